#include "ff/fp2.h"

#include "ff/fp2_inline.h"

#include <string.h>

const cz_fp2 cz_fp2_zero = {{{0}}, {{0}}};
const cz_fp2 cz_fp2_one = {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                             0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
                           {{0}}};

void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp2_add_inline(r, a, b);
}

void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp2_sub_inline(r, a, b);
}

void cz_fp2_dbl(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp2_dbl_inline(r, a);
}

void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp2_neg_inline(r, a);
}

void cz_fp2_conj(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp2_conj_inline(r, a);
}

void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp2_mul_inline(r, a, b);
}

void cz_fp2_sqr(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp2_sqr_inline(r, a);
}

void cz_fp2_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b) {
    cz_fp2_mul_fp_inline(r, a, b);
}

void cz_fp2_mul_by_nonresidue(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp2_mul_by_nonresidue_inline(r, a);
}

static void fp2_inv_with(cz_fp2 *r, const cz_fp2 *a, void (*fp_inv)(cz_fp *, const cz_fp *)) {
    /* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    cz_fp n, t;
    cz_fp_sqr(&n, &a->c0);
    cz_fp_sqr(&t, &a->c1);
    cz_fp_add(&n, &n, &t);
    fp_inv(&n, &n);
    cz_fp_mul(&r->c0, &a->c0, &n);
    cz_fp_mul(&t, &a->c1, &n);
    cz_fp_neg(&r->c1, &t);
}

void cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a) {
    fp2_inv_with(r, a, cz_fp_inv);
}

void cz_fp2_inv_var(cz_fp2 *r, const cz_fp2 *a) {
    fp2_inv_with(r, a, cz_fp_inv_var);
}

void cz_fp2_pow(cz_fp2 *r, const cz_fp2 *a, const uint64_t *exp, size_t exp_limbs) {
    cz_fp2 acc = cz_fp2_one, base = *a;
    for (size_t i = 64 * exp_limbs; i-- > 0;) {
        cz_fp2_sqr(&acc, &acc);
        if ((exp[i / 64] >> (i % 64)) & 1) cz_fp2_mul(&acc, &acc, &base);
    }
    *r = acc;
}

/* (p - k) / d for the small constants the square root needs */
static void p_minus_over(uint64_t *out, uint64_t k, int shift) {
    uint64_t borrow = k;
    for (int i = 0; i < CZ_FP_LIMBS; i++) {
        uint64_t v = cz_fp_modulus[i];
        out[i] = v - borrow;
        borrow = v < borrow;
    }
    for (int s = 0; s < shift; s++) {
        for (int i = 0; i < CZ_FP_LIMBS - 1; i++) out[i] = (out[i] >> 1) | (out[i + 1] << 63);
        out[CZ_FP_LIMBS - 1] >>= 1;
    }
}

int cz_fp2_sqrt_var(cz_fp2 *r, const cz_fp2 *a) {
    /* p = 3 mod 4: Adj and Rodriguez-Henriquez, "Square root computation over
     * even extension fields", algorithm 9. */
    if (cz_fp2_is_zero(a)) {
        *r = cz_fp2_zero;
        return 1;
    }
    uint64_t e34[CZ_FP_LIMBS], e12[CZ_FP_LIMBS];
    p_minus_over(e34, 3, 2); /* (p - 3) / 4 */
    p_minus_over(e12, 1, 1); /* (p - 1) / 2 */
    cz_fp2 a1, alpha, a0, x0, minus_one, t;
    cz_fp2_pow(&a1, a, e34, CZ_FP_LIMBS);
    cz_fp2_sqr(&alpha, &a1);
    cz_fp2_mul(&alpha, &alpha, a);
    cz_fp2_conj(&a0, &alpha);
    cz_fp2_mul(&a0, &a0, &alpha);
    cz_fp2_neg(&minus_one, &cz_fp2_one);
    if (cz_fp2_equal(&a0, &minus_one)) return 0;
    cz_fp2_mul(&x0, &a1, a);
    if (cz_fp2_equal(&alpha, &minus_one)) {
        /* x = u * x0 */
        cz_fp c0;
        cz_fp_neg(&c0, &x0.c1);
        t.c1 = x0.c0;
        t.c0 = c0;
    } else {
        cz_fp2 b;
        cz_fp2_add(&b, &cz_fp2_one, &alpha);
        cz_fp2_pow(&b, &b, e12, CZ_FP_LIMBS);
        cz_fp2_mul(&t, &b, &x0);
    }
    cz_fp2 check;
    cz_fp2_sqr(&check, &t);
    if (!cz_fp2_equal(&check, a)) return 0;
    *r = t;
    return 1;
}

int cz_fp2_is_zero(const cz_fp2 *a) {
    return cz_fp_is_zero(&a->c0) & cz_fp_is_zero(&a->c1);
}

int cz_fp2_is_one(const cz_fp2 *a) {
    return cz_fp_is_one(&a->c0) & cz_fp_is_zero(&a->c1);
}

int cz_fp2_equal(const cz_fp2 *a, const cz_fp2 *b) {
    return cz_fp_equal(&a->c0, &b->c0) & cz_fp_equal(&a->c1, &b->c1);
}

void cz_fp2_select(cz_fp2 *r, int cond, const cz_fp2 *a, const cz_fp2 *b) {
    cz_fp_select(&r->c0, cond, &a->c0, &b->c0);
    cz_fp_select(&r->c1, cond, &a->c1, &b->c1);
}

int cz_fp2_is_lexicographically_largest(const cz_fp2 *a) {
    if (!cz_fp_is_zero(&a->c1)) return cz_fp_is_lexicographically_largest(&a->c1);
    return cz_fp_is_lexicographically_largest(&a->c0);
}
