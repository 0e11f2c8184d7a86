/* Declarations shared by the prime fields. Included by fp.h and fr.h after
 * they define CZ_FIELD (the element type) and CZ_FIELD_FN(name) (the function
 * name for an operation); deliberately without an include guard.
 *
 * Elements are in Montgomery form and always fully reduced (< modulus), so
 * equality is equality of limbs. Outputs may alias inputs everywhere.
 * Everything is constant time unless its name ends in _var. */

extern const CZ_FIELD CZ_FIELD_FN(zero);
extern const CZ_FIELD CZ_FIELD_FN(one);

void CZ_FIELD_FN(add)(CZ_FIELD *r, const CZ_FIELD *a, const CZ_FIELD *b);
void CZ_FIELD_FN(sub)(CZ_FIELD *r, const CZ_FIELD *a, const CZ_FIELD *b);
void CZ_FIELD_FN(dbl)(CZ_FIELD *r, const CZ_FIELD *a);
void CZ_FIELD_FN(neg)(CZ_FIELD *r, const CZ_FIELD *a);
void CZ_FIELD_FN(mul)(CZ_FIELD *r, const CZ_FIELD *a, const CZ_FIELD *b);
void CZ_FIELD_FN(sqr)(CZ_FIELD *r, const CZ_FIELD *a);
/* a^exp for a public little-endian exponent of exp_limbs 64-bit limbs. */
void CZ_FIELD_FN(pow)(CZ_FIELD *r, const CZ_FIELD *a, const uint64_t *exp, size_t exp_limbs);
/* a^-1 by Fermat (a^(m-2)); the inverse of 0 is 0. */
void CZ_FIELD_FN(inv)(CZ_FIELD *r, const CZ_FIELD *a);
/* a^-1 by the binary extended Euclidean algorithm; the inverse of 0 is 0. */
void CZ_FIELD_FN(inv_var)(CZ_FIELD *r, const CZ_FIELD *a);
/* out[i] = in[i]^-1 for n elements with one inversion (Montgomery's trick);
 * zeros stay zero. scratch holds n elements. out may alias in. */
void CZ_FIELD_FN(batch_inv_var)(CZ_FIELD *out, const CZ_FIELD *in, size_t n, CZ_FIELD *scratch);
/* 1 if a is a non-zero square, -1 if a non-square, 0 if zero (Euler). */
int CZ_FIELD_FN(legendre)(const CZ_FIELD *a);
/* r = a square root of a (Tonelli-Shanks) and 1, or 0 when a is not a square
 * (r untouched). Which root is returned is not specified. */
int CZ_FIELD_FN(sqrt_var)(CZ_FIELD *r, const CZ_FIELD *a);

int CZ_FIELD_FN(is_zero)(const CZ_FIELD *a);
int CZ_FIELD_FN(is_one)(const CZ_FIELD *a);
int CZ_FIELD_FN(equal)(const CZ_FIELD *a, const CZ_FIELD *b);
/* r = cond ? a : b, without a branch. */
void CZ_FIELD_FN(select)(CZ_FIELD *r, int cond, const CZ_FIELD *a, const CZ_FIELD *b);
/* 1 when the canonical value of a is > (m-1)/2 (zcash's "lexicographically
 * largest"), else 0. */
int CZ_FIELD_FN(is_lexicographically_largest)(const CZ_FIELD *a);

void CZ_FIELD_FN(from_u64)(CZ_FIELD *r, uint64_t v);
/* Canonical little-endian limbs <-> element. from_limbs returns 0 (r
 * untouched) when the integer is not below the modulus. */
int CZ_FIELD_FN(from_limbs)(CZ_FIELD *r, const uint64_t *limbs);
void CZ_FIELD_FN(to_limbs)(uint64_t *limbs, const CZ_FIELD *a);
/* Canonical big- and little-endian bytes (CZ_FIELD_FN(bytes) long). The
 * readers return 0 and leave r untouched when the value is >= the modulus. */
int CZ_FIELD_FN(from_bytes_be)(CZ_FIELD *r, const uint8_t *in);
int CZ_FIELD_FN(from_bytes_le)(CZ_FIELD *r, const uint8_t *in);
void CZ_FIELD_FN(to_bytes_be)(uint8_t *out, const CZ_FIELD *a);
void CZ_FIELD_FN(to_bytes_le)(uint8_t *out, const CZ_FIELD *a);
/* r = the integer in `len` little-endian bytes, reduced modulo m (any len). */
void CZ_FIELD_FN(from_bytes_le_reduce)(CZ_FIELD *r, const uint8_t *in, size_t len);
