/* Definitions shared by the prime fields, included once by fp.c and once by
 * fr.c. The includer defines:
 *   CZ_FIELD, CZ_FIELD_FN(name)   element type and function names
 *   FIELD_N, FIELD_BYTES          limbs and canonical byte length
 *   FIELD_NONRESIDUE              a small quadratic non-residue
 *   field_modulus[], field_r2[] (2^(128N) mod m), CZ_FIELD_FN(one) (2^(64N) mod m),
 *   FIELD_MINV                    -m^-1 mod 2^64
 * No include guard: this is a template. */

#include "ff/mont_impl.h"

const CZ_FIELD CZ_FIELD_FN(zero) = {{0}};

#define F_MUL(r, a, b) mont_mul((r)->l, (a)->l, (b)->l, field_modulus, FIELD_MINV, FIELD_N)
#define F_SQR(r, a)    mont_sqr((r)->l, (a)->l, field_modulus, FIELD_MINV, FIELD_N)

void CZ_FIELD_FN(add)(CZ_FIELD *r, const CZ_FIELD *a, const CZ_FIELD *b) {
    mont_add(r->l, a->l, b->l, field_modulus, FIELD_N);
}

void CZ_FIELD_FN(sub)(CZ_FIELD *r, const CZ_FIELD *a, const CZ_FIELD *b) {
    mont_sub(r->l, a->l, b->l, field_modulus, FIELD_N);
}

void CZ_FIELD_FN(dbl)(CZ_FIELD *r, const CZ_FIELD *a) {
    mont_add(r->l, a->l, a->l, field_modulus, FIELD_N);
}

void CZ_FIELD_FN(neg)(CZ_FIELD *r, const CZ_FIELD *a) {
    mont_neg(r->l, a->l, field_modulus, FIELD_N);
}

void CZ_FIELD_FN(mul)(CZ_FIELD *r, const CZ_FIELD *a, const CZ_FIELD *b) {
    F_MUL(r, a, b);
}

void CZ_FIELD_FN(sqr)(CZ_FIELD *r, const CZ_FIELD *a) {
    F_SQR(r, a);
}

void CZ_FIELD_FN(pow)(CZ_FIELD *r, const CZ_FIELD *a, const uint64_t *exp, size_t exp_limbs) {
    CZ_FIELD acc = CZ_FIELD_FN(one), base = *a;
    for (size_t i = 64 * exp_limbs; i-- > 0;) {
        F_SQR(&acc, &acc);
        if ((exp[i / 64] >> (i % 64)) & 1) F_MUL(&acc, &acc, &base);
    }
    *r = acc;
}

/* m - k for a small k, as limbs (the exponents below derive from m). */
static void field_modulus_minus(uint64_t *out, uint64_t k) {
    uint64_t small[FIELD_N] = {k};
    mont_sub_raw(out, field_modulus, small, FIELD_N);
}

void CZ_FIELD_FN(inv)(CZ_FIELD *r, const CZ_FIELD *a) {
    uint64_t e[FIELD_N];
    field_modulus_minus(e, 2);
    mont_pow(r->l, a->l, e, CZ_FIELD_FN(one).l, field_modulus, FIELD_MINV, FIELD_N);
}

void CZ_FIELD_FN(inv_var)(CZ_FIELD *r, const CZ_FIELD *a) {
    if (mont_is_zero(a->l, FIELD_N)) {
        *r = CZ_FIELD_FN(zero);
        return;
    }
    /* a holds x*R; the plain inverse is x^-1 * R^-1, and two Montgomery
     * multiplications by R^2 bring it to x^-1 * R. */
    CZ_FIELD t, r2;
    memcpy(r2.l, field_r2, sizeof r2.l);
    mont_inv_plain_var(t.l, a->l, field_modulus, FIELD_N);
    F_MUL(&t, &t, &r2);
    F_MUL(r, &t, &r2);
}

void CZ_FIELD_FN(batch_inv_var)(CZ_FIELD *out, const CZ_FIELD *in, size_t n, CZ_FIELD *scratch) {
    CZ_FIELD acc = CZ_FIELD_FN(one);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc; /* product of the non-zero in[0..i) */
        if (!mont_is_zero(in[i].l, FIELD_N)) F_MUL(&acc, &acc, &in[i]);
    }
    CZ_FIELD_FN(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (mont_is_zero(in[i].l, FIELD_N)) {
            out[i] = CZ_FIELD_FN(zero);
            continue;
        }
        CZ_FIELD next;
        F_MUL(&next, &acc, &in[i]);
        F_MUL(&out[i], &acc, &scratch[i]);
        acc = next;
    }
}

int CZ_FIELD_FN(legendre)(const CZ_FIELD *a) {
    uint64_t e[FIELD_N];
    field_modulus_minus(e, 1);
    mont_shr1(e, 0, FIELD_N);
    CZ_FIELD t;
    mont_pow(t.l, a->l, e, CZ_FIELD_FN(one).l, field_modulus, FIELD_MINV, FIELD_N);
    if (mont_is_zero(t.l, FIELD_N)) return 0;
    return CZ_FIELD_FN(is_one)(&t) ? 1 : -1;
}

int CZ_FIELD_FN(sqrt_var)(CZ_FIELD *r, const CZ_FIELD *a) {
    if (mont_is_zero(a->l, FIELD_N)) {
        *r = CZ_FIELD_FN(zero);
        return 1;
    }
    if ((field_modulus[0] & 3) == 3) {
        /* m = 3 mod 4 (Fp): x = a^((m + 1) / 4) is a root whenever one exists */
        uint64_t e[FIELD_N], one[FIELD_N] = {1};
        mont_add_raw(e, field_modulus, one, FIELD_N); /* no carry: m < 2^(64N - 1) */
        mont_shr1(e, 0, FIELD_N);
        mont_shr1(e, 0, FIELD_N);
        CZ_FIELD x, x2;
        CZ_FIELD_FN(pow)(&x, a, e, FIELD_N);
        CZ_FIELD_FN(sqr)(&x2, &x);
        if (!CZ_FIELD_FN(equal)(&x2, a)) return 0;
        *r = x;
        return 1;
    }
    if (CZ_FIELD_FN(legendre)(a) != 1) return 0;
    /* Tonelli-Shanks: m - 1 = 2^s * t with t odd. */
    uint64_t t[FIELD_N];
    field_modulus_minus(t, 1);
    int s = 0;
    while (!(t[0] & 1)) {
        mont_shr1(t, 0, FIELD_N);
        s++;
    }
    CZ_FIELD z, c, x, b;
    CZ_FIELD_FN(from_u64)(&z, FIELD_NONRESIDUE);
    CZ_FIELD_FN(pow)(&c, &z, t, FIELD_N); /* c = z^t, order 2^s */
    CZ_FIELD_FN(pow)(&b, a, t, FIELD_N);  /* b = a^t */
    uint64_t t_plus_1_half[FIELD_N];
    memcpy(t_plus_1_half, t, sizeof t);
    mont_shr1(t_plus_1_half, 0, FIELD_N); /* (t - 1) / 2 */
    CZ_FIELD_FN(pow)(&x, a, t_plus_1_half, FIELD_N);
    F_MUL(&x, &x, a); /* x = a^((t + 1) / 2) */
    int m = s;
    while (!CZ_FIELD_FN(is_one)(&b)) {
        int i = 0;
        CZ_FIELD b2 = b;
        while (!CZ_FIELD_FN(is_one)(&b2)) {
            F_SQR(&b2, &b2);
            i++;
        }
        CZ_FIELD g = c;
        for (int k = 0; k < m - i - 1; k++) F_SQR(&g, &g);
        F_MUL(&x, &x, &g);
        F_SQR(&c, &g);
        F_MUL(&b, &b, &c);
        m = i;
    }
    *r = x;
    return 1;
}

int CZ_FIELD_FN(is_zero)(const CZ_FIELD *a) {
    return mont_is_zero(a->l, FIELD_N);
}

int CZ_FIELD_FN(is_one)(const CZ_FIELD *a) {
    return CZ_FIELD_FN(equal)(a, &CZ_FIELD_FN(one));
}

int CZ_FIELD_FN(equal)(const CZ_FIELD *a, const CZ_FIELD *b) {
    uint64_t acc = 0;
    for (int i = 0; i < FIELD_N; i++) acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

void CZ_FIELD_FN(select)(CZ_FIELD *r, int cond, const CZ_FIELD *a, const CZ_FIELD *b) {
    mont_select(r->l, 0 - (uint64_t)(cond != 0), a->l, b->l, FIELD_N);
}

int CZ_FIELD_FN(is_lexicographically_largest)(const CZ_FIELD *a) {
    uint64_t v[FIELD_N], half[FIELD_N];
    CZ_FIELD_FN(to_limbs)(v, a);
    field_modulus_minus(half, 1);
    mont_shr1(half, 0, FIELD_N);
    return mont_less(half, v, FIELD_N); /* (m - 1) / 2 < v */
}

void CZ_FIELD_FN(from_u64)(CZ_FIELD *r, uint64_t v) {
    uint64_t limbs[FIELD_N] = {v};
    /* every u64 is below both moduli */
    CZ_FIELD_FN(from_limbs)(r, limbs);
}

int CZ_FIELD_FN(from_limbs)(CZ_FIELD *r, const uint64_t *limbs) {
    if (!mont_less(limbs, field_modulus, FIELD_N)) return 0;
    mont_mul(r->l, limbs, field_r2, field_modulus, FIELD_MINV, FIELD_N);
    return 1;
}

void CZ_FIELD_FN(to_limbs)(uint64_t *limbs, const CZ_FIELD *a) {
    static const uint64_t plain_one[FIELD_N] = {1};
    mont_mul(limbs, a->l, plain_one, field_modulus, FIELD_MINV, FIELD_N);
}

int CZ_FIELD_FN(from_bytes_be)(CZ_FIELD *r, const uint8_t *in) {
    uint64_t limbs[FIELD_N];
    mont_limbs_from_be(limbs, in, FIELD_N);
    return CZ_FIELD_FN(from_limbs)(r, limbs);
}

int CZ_FIELD_FN(from_bytes_le)(CZ_FIELD *r, const uint8_t *in) {
    uint8_t be[FIELD_BYTES];
    for (int i = 0; i < FIELD_BYTES; i++) be[i] = in[FIELD_BYTES - 1 - i];
    return CZ_FIELD_FN(from_bytes_be)(r, be);
}

void CZ_FIELD_FN(to_bytes_be)(uint8_t *out, const CZ_FIELD *a) {
    uint64_t limbs[FIELD_N];
    CZ_FIELD_FN(to_limbs)(limbs, a);
    mont_limbs_to_be(out, limbs, FIELD_N);
}

void CZ_FIELD_FN(to_bytes_le)(uint8_t *out, const CZ_FIELD *a) {
    uint8_t be[FIELD_BYTES];
    CZ_FIELD_FN(to_bytes_be)(be, a);
    for (int i = 0; i < FIELD_BYTES; i++) out[i] = be[FIELD_BYTES - 1 - i];
}

void CZ_FIELD_FN(from_bytes_le_reduce)(CZ_FIELD *r, const uint8_t *in, size_t len) {
    /* Horner over bytes from the most significant end: acc = acc * 256 + b. */
    CZ_FIELD acc = CZ_FIELD_FN(zero), radix, digit;
    CZ_FIELD_FN(from_u64)(&radix, 256);
    for (size_t i = len; i-- > 0;) {
        F_MUL(&acc, &acc, &radix);
        CZ_FIELD_FN(from_u64)(&digit, in[i]);
        CZ_FIELD_FN(add)(&acc, &acc, &digit);
    }
    *r = acc;
}

#undef F_MUL
#undef F_SQR
