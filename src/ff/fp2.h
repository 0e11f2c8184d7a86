/* Fp2 = Fp[u] / (u^2 + 1), element c0 + c1*u (zcash / Filecoin's tower). */
#ifndef CZ_FF_FP2_H
#define CZ_FF_FP2_H

#include "ff/fp.h"

typedef struct {
    cz_fp c0, c1;
} cz_fp2;

extern const cz_fp2 cz_fp2_zero;
extern const cz_fp2 cz_fp2_one;

void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_dbl(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_conj(cz_fp2 *r, const cz_fp2 *a); /* c0 - c1*u, which is also a^p */
void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_sqr(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b);
/* r = a * (1 + u), the non-residue that builds Fp6 */
void cz_fp2_mul_by_nonresidue(cz_fp2 *r, const cz_fp2 *a);
/* a^-1 (0 maps to 0); _var uses the variable-time Fp inversion. */
void cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_inv_var(cz_fp2 *r, const cz_fp2 *a);
/* a^exp for a public little-endian exponent of exp_limbs limbs. */
void cz_fp2_pow(cz_fp2 *r, const cz_fp2 *a, const uint64_t *exp, size_t exp_limbs);
/* r = a square root of a and 1, or 0 when a is not a square (r untouched). */
int cz_fp2_sqrt_var(cz_fp2 *r, const cz_fp2 *a);

int cz_fp2_is_zero(const cz_fp2 *a);
int cz_fp2_is_one(const cz_fp2 *a);
int cz_fp2_equal(const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_select(cz_fp2 *r, int cond, const cz_fp2 *a, const cz_fp2 *b);
/* zcash's sort bit for G2: c1 lexicographically largest, or c0 when c1 = 0. */
int cz_fp2_is_lexicographically_largest(const cz_fp2 *a);

#endif
