#include "ff/fp12.h"

#include "ff/fp2_inline.h"

const cz_fp12 cz_fp12_zero = {{{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}},
                              {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};
/* c0.c0.c0 = the Fp one (Montgomery form of 1, see fp.c) */
const cz_fp12 cz_fp12_one = {
    {{{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
        0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
      {{0}}},
     {{{0}}, {{0}}},
     {{{0}}, {{0}}}},
    {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

/* frob_w[k] = xi^((p^k - 1) / 6) for k = 0..11, Montgomery form, so that
 * w^(p^k) = frob_w[k] * w (w^6 = xi). Computed with Python integers like the
 * tables in fp6.c; tests/ff/test_tower.c checks frobenius_map(k) against
 * a^(p^k) and noble. */
static const cz_fp2 frob_w[12] = {
    /* k = 0 */
    {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
     {{0}}},
    /* k = 1 */
    {{{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL,
       0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}},
     {{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL,
       0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}}},
    /* k = 2 */
    {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL,
       0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
     {{0}}},
    /* k = 3 */
    {{{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
       0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
     {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
       0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}},
    /* k = 4 */
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0}}},
    /* k = 5 */
    {{{0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL, 0xef517c3266341429ULL,
       0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL}},
     {{0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL, 0x7525cf528d50fe95ULL,
       0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL}}},
    /* k = 6 */
    {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL,
       0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
     {{0}}},
    /* k = 7 */
    {{{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL,
       0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}},
     {{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL,
       0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}}},
    /* k = 8 */
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0}}},
    /* k = 9 */
    {{{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
       0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
     {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
       0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}}},
    /* k = 10 */
    {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
       0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
     {{0}}},
    /* k = 11 */
    {{{0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL, 0x7525cf528d50fe95ULL,
       0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL}},
     {{0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL, 0xef517c3266341429ULL,
       0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL}}},
};

void cz_fp12_add(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b) {
    cz_fp6_add(&r->c0, &a->c0, &b->c0);
    cz_fp6_add(&r->c1, &a->c1, &b->c1);
}

void cz_fp12_sub(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b) {
    cz_fp6_sub(&r->c0, &a->c0, &b->c0);
    cz_fp6_sub(&r->c1, &a->c1, &b->c1);
}

void cz_fp12_neg(cz_fp12 *r, const cz_fp12 *a) {
    cz_fp6_neg(&r->c0, &a->c0);
    cz_fp6_neg(&r->c1, &a->c1);
}

void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b) {
    /* Karatsuba: aa = a0 b0, bb = a1 b1,
     *   c0 = aa + v bb,  c1 = (a0 + a1)(b0 + b1) - aa - bb */
    cz_fp6 aa, bb, s, t;
    cz_fp6_mul(&aa, &a->c0, &b->c0);
    cz_fp6_mul(&bb, &a->c1, &b->c1);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_add(&t, &b->c0, &b->c1);
    cz_fp6_mul(&s, &s, &t);
    cz_fp6_sub(&s, &s, &aa);
    cz_fp6_sub(&r->c1, &s, &bb);
    cz_fp6_mul_by_nonresidue(&bb, &bb);
    cz_fp6_add(&r->c0, &aa, &bb);
}

void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *a) {
    /* Complex squaring: with ab = a0 a1,
     *   c0 = (a0 + a1)(a0 + v a1) - ab - v ab,  c1 = 2 ab */
    cz_fp6 ab, s, t;
    cz_fp6_mul(&ab, &a->c0, &a->c1);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_mul_by_nonresidue(&t, &a->c1);
    cz_fp6_add(&t, &t, &a->c0);
    cz_fp6_mul(&s, &s, &t);
    cz_fp6_sub(&s, &s, &ab);
    cz_fp6_mul_by_nonresidue(&t, &ab);
    cz_fp6_sub(&r->c0, &s, &t);
    cz_fp6_dbl(&r->c1, &ab);
}

void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *l0, const cz_fp2 *l1,
                        const cz_fp2 *l4) {
    /* Karatsuba with b0 = l0 + l1 v and b1 = l4 v (13 Fp2 products):
     *   aa = a0 b0,  bb = a1 b1,  c0 = aa + v bb,
     *   c1 = (a0 + a1)(l0 + (l1 + l4) v) - aa - bb */
    cz_fp6 aa, bb, s;
    cz_fp2 l14;
    cz_fp6_mul_by_01(&aa, &a->c0, l0, l1);
    cz_fp6_mul_by_1(&bb, &a->c1, l4);
    cz_fp2_add_inline(&l14, l1, l4);
    cz_fp6_add(&s, &a->c0, &a->c1);
    cz_fp6_mul_by_01(&s, &s, l0, &l14);
    cz_fp6_sub(&s, &s, &aa);
    cz_fp6_sub(&r->c1, &s, &bb);
    cz_fp6_mul_by_nonresidue(&bb, &bb);
    cz_fp6_add(&r->c0, &aa, &bb);
}

static void fp12_inv_with(cz_fp12 *r, const cz_fp12 *a, void (*fp6_inv)(cz_fp6 *, const cz_fp6 *)) {
    /* 1 / (a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2); the denominator is 0
     * only for a = 0, which the Fp6 inversion maps to 0. */
    cz_fp6 t0, t1;
    cz_fp6_sqr(&t0, &a->c0);
    cz_fp6_sqr(&t1, &a->c1);
    cz_fp6_mul_by_nonresidue(&t1, &t1);
    cz_fp6_sub(&t0, &t0, &t1);
    fp6_inv(&t0, &t0);
    cz_fp6_mul(&r->c0, &a->c0, &t0);
    cz_fp6_mul(&t1, &a->c1, &t0);
    cz_fp6_neg(&r->c1, &t1);
}

void cz_fp12_inv(cz_fp12 *r, const cz_fp12 *a) {
    fp12_inv_with(r, a, cz_fp6_inv);
}

void cz_fp12_inv_var(cz_fp12 *r, const cz_fp12 *a) {
    fp12_inv_with(r, a, cz_fp6_inv_var);
}

void cz_fp12_conjugate(cz_fp12 *r, const cz_fp12 *a) {
    r->c0 = a->c0;
    cz_fp6_neg(&r->c1, &a->c1);
}

void cz_fp12_frobenius_map(cz_fp12 *r, const cz_fp12 *a, unsigned k) {
    /* (a0 + a1 w)^(p^k) = a0^(p^k) + a1^(p^k) w^(p^k - 1) w, and
     * w^(p^k - 1) = (w^6)^((p^k - 1)/6) = frob_w[k] lies in Fp2. */
    k %= 12;
    cz_fp6_frobenius_map(&r->c0, &a->c0, k);
    cz_fp6_frobenius_map(&r->c1, &a->c1, k);
    cz_fp6_mul_fp2(&r->c1, &r->c1, &frob_w[k]);
}

/* k p^2 as 12 words, for k = 2, 4, 5: offsets that keep the full-width
 * differences below non-negative (they vanish modulo p). */
static const uint64_t p2_times2[12] = {
    0x4d54000038e31c72ULL, 0xf9dad63aec705d56ULL, 0x2c586706c42279faULL, 0xcd7f23da7ce36e86ULL,
    0x525d0b50e1234092ULL, 0x3ad0c3390c30b8f6ULL, 0xea62926612f1de02ULL, 0xa14c59fa2dbb94ddULL,
    0xcdcb3c92693d17a0ULL, 0xc5b921ca1ce08d68ULL, 0x97a4f1d5445e4bd3ULL, 0x05486f497186bf8eULL};
static const uint64_t p2_times4[12] = {
    0x9aa8000071c638e4ULL, 0xf3b5ac75d8e0baacULL, 0x58b0ce0d8844f3f5ULL, 0x9afe47b4f9c6dd0cULL,
    0xa4ba16a1c2468125ULL, 0x75a18672186171ecULL, 0xd4c524cc25e3bc04ULL, 0x4298b3f45b7729bbULL,
    0x9b967924d27a2f41ULL, 0x8b72439439c11ad1ULL, 0x2f49e3aa88bc97a7ULL, 0x0a90de92e30d7f1dULL};
static const uint64_t p2_times5[12] = {
    0xc15200008e37c71dULL, 0x70a317934f18e957ULL, 0x6edd0190ea5630f3ULL, 0x01bdd9a23838944fULL,
    0xcde89c4a32d8216fULL, 0x9309e80e9e79ce67ULL, 0xc9f66dff2f5cab05ULL, 0x933ee0f17254f42aULL,
    0x027c176e0718bb11ULL, 0x6e4ed47948316186ULL, 0x7b1c5c952aebbd91ULL, 0x0d3516379bd0dee4ULL};

#define W12 (2 * CZ_FP_LIMBS)

/* x^2 for a reduced x in Fp2, unreduced at full width (12 words each):
 * w0 = (x0 + x1)(x0 - x1 + p) = x0^2 - x1^2 + p (x0 + x1), below (3p/2)^2
 * (the factors sum to 2 x0 + p < 3p), and w1 = 2 x0 x1 < 2 p^2. */
static inline void fp2_sqr_wide(uint64_t *w0, uint64_t *w1, const cz_fp2 *x) {
    uint64_t s[CZ_FP_LIMBS], d[CZ_FP_LIMBS], x0x2[CZ_FP_LIMBS];
    mont_add_raw(s, x->c0.l, x->c1.l, CZ_FP_LIMBS);
    mont_sub_raw(d, x->c0.l, x->c1.l, CZ_FP_LIMBS);
    mont_add_raw(d, d, cz_fp_inline_modulus, CZ_FP_LIMBS); /* mod 2^384: x0 - x1 + p */
    mont_add_raw(x0x2, x->c0.l, x->c0.l, CZ_FP_LIMBS);
    mont_mulwide(w0, s, d, CZ_FP_LIMBS);
    mont_mulwide(w1, x0x2, x->c1.l, CZ_FP_LIMBS);
}

/* (a + b s)^2 in Fp4 = Fp2[s]/(s^2 - xi): r0 + r1 s with
 *   r0 = a^2 + xi b^2,  r1 = (a + b)^2 - a^2 - b^2 = 2 a b,
 * from three full-width Fp2 squarings (six 12-word products) and four
 * Montgomery reductions (against six for three reduced Fp2 squarings). With
 * A = a^2, B = b^2, S = (a + b)^2 at full width (real parts below 2.25 p^2,
 * imaginary parts below 2 p^2) and xi B = (B0 - B1) + (B0 + B1) u:
 *   r0 = (A0 + B0 - B1 + 2 p^2) + (A1 + B0 + B1) u,
 *   r1 = (S0 - A0 - B0 + 5 p^2) + (S1 - A1 - B1 + 4 p^2) u,
 * every part in [0, 7.25 p^2), below p 2^384 (about 9.8 p^2) as mont_redc
 * requires. */
static void fp4_sqr(cz_fp2 *r0, cz_fp2 *r1, const cz_fp2 *a, const cz_fp2 *b) {
    uint64_t a0[W12], a1[W12], b0[W12], b1[W12], s0[W12], s1[W12], t[W12];
    cz_fp2 s;
    fp2_sqr_wide(a0, a1, a);
    fp2_sqr_wide(b0, b1, b);
    cz_fp2_add_inline(&s, a, b);
    fp2_sqr_wide(s0, s1, &s);

    /* r1 first: a and b may alias r0 or r1, but they are no longer read */
    mont_add_raw(t, s0, p2_times5, W12);
    mont_sub_raw(t, t, a0, W12);
    mont_sub_raw(t, t, b0, W12);
    mont_redc(r1->c0.l, t, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);
    mont_add_raw(t, s1, p2_times4, W12);
    mont_sub_raw(t, t, a1, W12);
    mont_sub_raw(t, t, b1, W12);
    mont_redc(r1->c1.l, t, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);

    mont_add_raw(t, a0, b0, W12);
    mont_add_raw(t, t, p2_times2, W12);
    mont_sub_raw(t, t, b1, W12);
    mont_redc(r0->c0.l, t, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);
    mont_add_raw(t, a1, b0, W12);
    mont_add_raw(t, t, b1, W12);
    mont_redc(r0->c1.l, t, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);
}

#undef W12

/* r = 3 t - 2 a (minus = 1) or 3 t + 2 a (minus = 0), as 2 (t -+ a) + t */
static void three_t_pm_two_a(cz_fp2 *r, const cz_fp2 *t, const cz_fp2 *a, int minus) {
    cz_fp2 s;
    if (minus)
        cz_fp2_sub_inline(&s, t, a);
    else
        cz_fp2_add_inline(&s, t, a);
    cz_fp2_dbl_inline(&s, &s);
    cz_fp2_add_inline(r, &s, t);
}

void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a) {
    /* Granger-Scott, "Faster squaring in the cyclotomic subgroup of sixth
     * degree extensions" (PKC 2010). View Fp12 as Fp4[w]/(w^3 - s) with
     * s = w^3, s^2 = xi, and a = A + B w + C w^2 where
     *   A = a0 + a3 s = (c0.c0, c1.c1),  B = a1 + a4 s = (c1.c0, c0.c2),
     *   C = a2 + a5 s = (c0.c1, c1.c2)  (a_i the coefficient of w^i).
     * For a in G_phi6(p^2) the square is
     *   A' = 3 A^2 - 2 conj(A),  B' = 3 s C^2 + 2 conj(B),  C' = 3 B^2 - 2 conj(C)
     * with conj the Fp4/Fp2 conjugation (s -> -s). */
    cz_fp2 t0, t1, u0, u1, v0, v1;
    fp4_sqr(&t0, &t1, &a->c0.c0, &a->c1.c1);   /* A^2 */
    fp4_sqr(&u0, &u1, &a->c0.c1, &a->c1.c2);   /* C^2 */
    fp4_sqr(&v0, &v1, &a->c1.c0, &a->c0.c2);   /* B^2 */
    cz_fp2_mul_by_nonresidue_inline(&u1, &u1); /* s C^2 = xi u1 + u0 s */

    three_t_pm_two_a(&r->c0.c0, &t0, &a->c0.c0, 1);
    three_t_pm_two_a(&r->c1.c1, &t1, &a->c1.c1, 0);
    three_t_pm_two_a(&r->c1.c0, &u1, &a->c1.c0, 0);
    three_t_pm_two_a(&r->c0.c2, &u0, &a->c0.c2, 1);
    three_t_pm_two_a(&r->c0.c1, &v0, &a->c0.c1, 1);
    three_t_pm_two_a(&r->c1.c2, &v1, &a->c1.c2, 0);
}

void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *exp, size_t exp_limbs) {
    cz_fp12 acc = cz_fp12_one, base = *a;
    for (size_t i = 64 * exp_limbs; i-- > 0;) {
        cz_fp12_sqr(&acc, &acc);
        if ((exp[i / 64] >> (i % 64)) & 1) cz_fp12_mul(&acc, &acc, &base);
    }
    *r = acc;
}

void cz_fp12_cyclotomic_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *exp, size_t exp_limbs) {
    /* Skips the leading zero bits (the exponent is public), so a short
     * exponent costs only its own length. */
    size_t i = 64 * exp_limbs;
    while (i > 0 && !((exp[(i - 1) / 64] >> ((i - 1) % 64)) & 1)) i--;
    if (i == 0) {
        *r = cz_fp12_one;
        return;
    }
    cz_fp12 acc = *a, base = *a;
    for (i--; i-- > 0;) {
        cz_fp12_cyclotomic_sqr(&acc, &acc);
        if ((exp[i / 64] >> (i % 64)) & 1) cz_fp12_mul(&acc, &acc, &base);
    }
    *r = acc;
}

int cz_fp12_is_zero(const cz_fp12 *a) {
    return cz_fp6_is_zero(&a->c0) & cz_fp6_is_zero(&a->c1);
}

int cz_fp12_is_one(const cz_fp12 *a) {
    return cz_fp6_is_one(&a->c0) & cz_fp6_is_zero(&a->c1);
}

int cz_fp12_equal(const cz_fp12 *a, const cz_fp12 *b) {
    return cz_fp6_equal(&a->c0, &b->c0) & cz_fp6_equal(&a->c1, &b->c1);
}

void cz_fp12_select(cz_fp12 *r, int cond, const cz_fp12 *a, const cz_fp12 *b) {
    cz_fp6_select(&r->c0, cond, &a->c0, &b->c0);
    cz_fp6_select(&r->c1, cond, &a->c1, &b->c1);
}

void cz_fp12_to_bytes(uint8_t *out, const cz_fp12 *a) {
    cz_fp6_to_bytes(out, &a->c0);
    cz_fp6_to_bytes(out + CZ_FP6_BYTES, &a->c1);
}

int cz_fp12_from_bytes(cz_fp12 *r, const uint8_t *in) {
    cz_fp12 t;
    if (!cz_fp6_from_bytes(&t.c0, in) || !cz_fp6_from_bytes(&t.c1, in + CZ_FP6_BYTES)) return 0;
    *r = t;
    return 1;
}
