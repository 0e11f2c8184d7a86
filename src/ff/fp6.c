#include "ff/fp6.h"

#include "ff/fp2_inline.h"

const cz_fp6 cz_fp6_zero = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
/* c0 = the Fp2 one (Montgomery form of 1, see fp2.c) */
const cz_fp6 cz_fp6_one = {{{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                              0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
                            {{0}}},
                           {{{0}}, {{0}}},
                           {{{0}}, {{0}}}};

/* Frobenius coefficients, Montgomery form:
 *   frob_v1[k] = xi^((p^k - 1) / 3)      (v^(p^k) = frob_v1[k] * v)
 *   frob_v2[k] = xi^(2 (p^k - 1) / 3)    (v^(2 p^k) = frob_v2[k] * v^2)
 * for k = 0..5, xi = 1 + u. They were computed with Python integers (Fp2
 * square-and-multiply of xi by the exact exponent, then times 2^384 mod p);
 * tests/ff/test_tower.c checks frobenius_map(k) against a^(p^k) and noble. */
static const cz_fp2 frob_v1[6] = {
    /* k = 0 */
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0}}},
    /* k = 1 */
    {{{0}},
     {{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}}},
    /* k = 2 */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0}}},
    /* k = 3 */
    {{{0}},
     {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}}},
    /* k = 4 */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0}}},
    /* k = 5 */
    {{{0}},
     {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}}},
};
static const cz_fp2 frob_v2[6] = {
    /* k = 0 */
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0}}},
    /* k = 1 */
    {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
       0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
     {{0}}},
    /* k = 2 */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0}}},
    /* k = 3 */
    {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL,
       0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
     {{0}}},
    /* k = 4 */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0}}},
    /* k = 5 */
    {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL,
       0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
     {{0}}},
};

void cz_fp6_add(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b) {
    cz_fp2_add_inline(&r->c0, &a->c0, &b->c0);
    cz_fp2_add_inline(&r->c1, &a->c1, &b->c1);
    cz_fp2_add_inline(&r->c2, &a->c2, &b->c2);
}

void cz_fp6_sub(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b) {
    cz_fp2_sub_inline(&r->c0, &a->c0, &b->c0);
    cz_fp2_sub_inline(&r->c1, &a->c1, &b->c1);
    cz_fp2_sub_inline(&r->c2, &a->c2, &b->c2);
}

void cz_fp6_dbl(cz_fp6 *r, const cz_fp6 *a) {
    cz_fp2_dbl_inline(&r->c0, &a->c0);
    cz_fp2_dbl_inline(&r->c1, &a->c1);
    cz_fp2_dbl_inline(&r->c2, &a->c2);
}

void cz_fp6_neg(cz_fp6 *r, const cz_fp6 *a) {
    cz_fp2_neg_inline(&r->c0, &a->c0);
    cz_fp2_neg_inline(&r->c1, &a->c1);
    cz_fp2_neg_inline(&r->c2, &a->c2);
}

void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b) {
    /* Karatsuba over three coefficients (6 Fp2 products), v^3 = xi:
     *   c0 = a0 b0 + xi (a1 b2 + a2 b1)
     *   c1 = a0 b1 + a1 b0 + xi a2 b2
     *   c2 = a0 b2 + a2 b0 + a1 b1 */
    cz_fp2 t0, t1, t2, s, u, c0, c1, c2;
    cz_fp2_mul(&t0, &a->c0, &b->c0);
    cz_fp2_mul(&t1, &a->c1, &b->c1);
    cz_fp2_mul(&t2, &a->c2, &b->c2);

    cz_fp2_add_inline(&s, &a->c1, &a->c2);
    cz_fp2_add_inline(&u, &b->c1, &b->c2);
    cz_fp2_mul(&c0, &s, &u);
    cz_fp2_sub_inline(&c0, &c0, &t1);
    cz_fp2_sub_inline(&c0, &c0, &t2);
    cz_fp2_mul_by_nonresidue_inline(&c0, &c0);
    cz_fp2_add_inline(&c0, &c0, &t0);

    cz_fp2_add_inline(&s, &a->c0, &a->c1);
    cz_fp2_add_inline(&u, &b->c0, &b->c1);
    cz_fp2_mul(&c1, &s, &u);
    cz_fp2_sub_inline(&c1, &c1, &t0);
    cz_fp2_sub_inline(&c1, &c1, &t1);
    cz_fp2_mul_by_nonresidue_inline(&s, &t2);
    cz_fp2_add_inline(&c1, &c1, &s);

    cz_fp2_add_inline(&s, &a->c0, &a->c2);
    cz_fp2_add_inline(&u, &b->c0, &b->c2);
    cz_fp2_mul(&c2, &s, &u);
    cz_fp2_sub_inline(&c2, &c2, &t0);
    cz_fp2_sub_inline(&c2, &c2, &t2);
    cz_fp2_add_inline(&c2, &c2, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a) {
    /* Chung-Hasan SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2,
     * s3 = 2 a1 a2, s4 = a2^2; then
     *   c0 = s0 + xi s3,  c1 = s1 + xi s4,  c2 = s1 + s2 + s3 - s0 - s4. */
    cz_fp2 s0, s1, s2, s3, s4, t;
    cz_fp2_sqr(&s0, &a->c0);
    cz_fp2_mul(&s1, &a->c0, &a->c1);
    cz_fp2_dbl_inline(&s1, &s1);
    cz_fp2_sub_inline(&t, &a->c0, &a->c1);
    cz_fp2_add_inline(&t, &t, &a->c2);
    cz_fp2_sqr(&s2, &t);
    cz_fp2_mul(&s3, &a->c1, &a->c2);
    cz_fp2_dbl_inline(&s3, &s3);
    cz_fp2_sqr(&s4, &a->c2);

    cz_fp2_mul_by_nonresidue_inline(&t, &s3);
    cz_fp2_add_inline(&r->c0, &s0, &t);
    cz_fp2_add_inline(&s2, &s2, &s1);
    cz_fp2_add_inline(&s2, &s2, &s3);
    cz_fp2_sub_inline(&s2, &s2, &s0);
    cz_fp2_sub_inline(&r->c2, &s2, &s4);
    cz_fp2_mul_by_nonresidue_inline(&t, &s4);
    cz_fp2_add_inline(&r->c1, &s1, &t);
}

void cz_fp6_mul_by_nonresidue(cz_fp6 *r, const cz_fp6 *a) {
    /* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
    cz_fp2 t;
    cz_fp2_mul_by_nonresidue_inline(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void cz_fp6_mul_fp2(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b) {
    cz_fp2_mul(&r->c0, &a->c0, b);
    cz_fp2_mul(&r->c1, &a->c1, b);
    cz_fp2_mul(&r->c2, &a->c2, b);
}

void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1) {
    /* (a0 + a1 v + a2 v^2)(b0 + b1 v), 5 Fp2 products:
     *   c0 = a0 b0 + xi a2 b1,  c1 = a0 b1 + a1 b0,  c2 = a1 b1 + a2 b0 */
    cz_fp2 t0, t1, s, u, c0, c1, c2;
    cz_fp2_mul(&t0, &a->c0, b0);
    cz_fp2_mul(&t1, &a->c1, b1);

    cz_fp2_add_inline(&s, &a->c1, &a->c2);
    cz_fp2_mul(&c0, &s, b1);
    cz_fp2_sub_inline(&c0, &c0, &t1); /* a2 b1 */
    cz_fp2_mul_by_nonresidue_inline(&c0, &c0);
    cz_fp2_add_inline(&c0, &c0, &t0);

    cz_fp2_add_inline(&s, &a->c0, &a->c1);
    cz_fp2_add_inline(&u, b0, b1);
    cz_fp2_mul(&c1, &s, &u);
    cz_fp2_sub_inline(&c1, &c1, &t0);
    cz_fp2_sub_inline(&c1, &c1, &t1);

    cz_fp2_add_inline(&s, &a->c0, &a->c2);
    cz_fp2_mul(&c2, &s, b0);
    cz_fp2_sub_inline(&c2, &c2, &t0); /* a2 b0 */
    cz_fp2_add_inline(&c2, &c2, &t1);

    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1) {
    /* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
    cz_fp2 c0, c1, c2;
    cz_fp2_mul(&c0, &a->c2, b1);
    cz_fp2_mul_by_nonresidue_inline(&c0, &c0);
    cz_fp2_mul(&c1, &a->c0, b1);
    cz_fp2_mul(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

static void fp6_inv_with(cz_fp6 *r, const cz_fp6 *a, void (*fp2_inv)(cz_fp2 *, const cz_fp2 *)) {
    /* a^-1 = (t0 + t1 v + t2 v^2) / N with
     *   t0 = a0^2 - xi a1 a2,  t1 = xi a2^2 - a0 a1,  t2 = a1^2 - a0 a2,
     *   N = a0 t0 + xi (a2 t1 + a1 t2) in Fp2 (the norm to Fp2 divided by
     * nothing: (t0 + t1 v + t2 v^2) a = N). N = 0 only for a = 0, and then
     * the Fp2 inversion maps 0 to 0, so 0 maps to 0. */
    cz_fp2 t0, t1, t2, n, s;
    cz_fp2_sqr(&t0, &a->c0);
    cz_fp2_mul(&s, &a->c1, &a->c2);
    cz_fp2_mul_by_nonresidue_inline(&s, &s);
    cz_fp2_sub_inline(&t0, &t0, &s);

    cz_fp2_sqr(&t1, &a->c2);
    cz_fp2_mul_by_nonresidue_inline(&t1, &t1);
    cz_fp2_mul(&s, &a->c0, &a->c1);
    cz_fp2_sub_inline(&t1, &t1, &s);

    cz_fp2_sqr(&t2, &a->c1);
    cz_fp2_mul(&s, &a->c0, &a->c2);
    cz_fp2_sub_inline(&t2, &t2, &s);

    cz_fp2_mul(&n, &a->c2, &t1);
    cz_fp2_mul(&s, &a->c1, &t2);
    cz_fp2_add_inline(&n, &n, &s);
    cz_fp2_mul_by_nonresidue_inline(&n, &n);
    cz_fp2_mul(&s, &a->c0, &t0);
    cz_fp2_add_inline(&n, &n, &s);
    fp2_inv(&n, &n);

    cz_fp2_mul(&r->c0, &t0, &n);
    cz_fp2_mul(&r->c1, &t1, &n);
    cz_fp2_mul(&r->c2, &t2, &n);
}

void cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a) {
    fp6_inv_with(r, a, cz_fp2_inv);
}

void cz_fp6_inv_var(cz_fp6 *r, const cz_fp6 *a) {
    fp6_inv_with(r, a, cz_fp2_inv_var);
}

void cz_fp6_frobenius_map(cz_fp6 *r, const cz_fp6 *a, unsigned k) {
    /* (a0 + a1 v + a2 v^2)^(p^k) = a0^(p^k) + a1^(p^k) v^(p^k) + a2^(p^k) v^(2 p^k);
     * on Fp2 the p-power map is conjugation, of order 2. */
    k %= 6;
    cz_fp2 c0 = a->c0, c1 = a->c1, c2 = a->c2;
    if (k & 1) {
        cz_fp2_conj_inline(&c0, &c0);
        cz_fp2_conj_inline(&c1, &c1);
        cz_fp2_conj_inline(&c2, &c2);
    }
    cz_fp2_mul(&r->c1, &c1, &frob_v1[k]);
    cz_fp2_mul(&r->c2, &c2, &frob_v2[k]);
    r->c0 = c0;
}

int cz_fp6_is_zero(const cz_fp6 *a) {
    return cz_fp2_is_zero(&a->c0) & cz_fp2_is_zero(&a->c1) & cz_fp2_is_zero(&a->c2);
}

int cz_fp6_is_one(const cz_fp6 *a) {
    return cz_fp2_is_one(&a->c0) & cz_fp2_is_zero(&a->c1) & cz_fp2_is_zero(&a->c2);
}

int cz_fp6_equal(const cz_fp6 *a, const cz_fp6 *b) {
    return cz_fp2_equal(&a->c0, &b->c0) & cz_fp2_equal(&a->c1, &b->c1) &
           cz_fp2_equal(&a->c2, &b->c2);
}

void cz_fp6_select(cz_fp6 *r, int cond, const cz_fp6 *a, const cz_fp6 *b) {
    cz_fp2_select(&r->c0, cond, &a->c0, &b->c0);
    cz_fp2_select(&r->c1, cond, &a->c1, &b->c1);
    cz_fp2_select(&r->c2, cond, &a->c2, &b->c2);
}

void cz_fp6_to_bytes(uint8_t *out, const cz_fp6 *a) {
    const cz_fp *coef[6] = {&a->c0.c0, &a->c0.c1, &a->c1.c0, &a->c1.c1, &a->c2.c0, &a->c2.c1};
    for (int i = 0; i < 6; i++) cz_fp_to_bytes_be(out + i * CZ_FP_BYTES, coef[i]);
}

int cz_fp6_from_bytes(cz_fp6 *r, const uint8_t *in) {
    cz_fp6 t;
    cz_fp *coef[6] = {&t.c0.c0, &t.c0.c1, &t.c1.c0, &t.c1.c1, &t.c2.c0, &t.c2.c1};
    for (int i = 0; i < 6; i++)
        if (!cz_fp_from_bytes_be(coef[i], in + i * CZ_FP_BYTES)) return 0;
    *r = t;
    return 1;
}
