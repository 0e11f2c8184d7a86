/* Inline Fp and Fp2 arithmetic for the tower (fp2.c, fp6.c, fp12.c) and the
 * pairing: the Montgomery core of mont_impl.h with p as a constant of each
 * including file, so the hot paths pay no call per Fp operation.
 *
 * The Fp2 multiplication reduces lazily: the three Karatsuba products are
 * kept at full width (12 words) and combined before two Montgomery
 * reductions instead of three. The Fp2 squaring feeds unreduced sums (below
 * 2p) to the Montgomery multiplication, whose bounds allow an operand below
 * 2p (see fp2_sqr_inline). Results are fully reduced, as everywhere. */
#ifndef CZ_FF_FP2_INLINE_H
#define CZ_FF_FP2_INLINE_H

#include "ff/fp2.h"
#include "ff/mont_impl.h"

#define CZ_FP_INLINE static inline __attribute__((always_inline))
#define CZ_FP_MINV   0x89f3fffcfffcfffdULL

static const uint64_t cz_fp_inline_modulus[CZ_FP_LIMBS] = {
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};

CZ_FP_INLINE void fp_add_inline(cz_fp *r, const cz_fp *a, const cz_fp *b) {
    mont_add(r->l, a->l, b->l, cz_fp_inline_modulus, CZ_FP_LIMBS);
}
CZ_FP_INLINE void fp_sub_inline(cz_fp *r, const cz_fp *a, const cz_fp *b) {
    mont_sub(r->l, a->l, b->l, cz_fp_inline_modulus, CZ_FP_LIMBS);
}
CZ_FP_INLINE void fp_dbl_inline(cz_fp *r, const cz_fp *a) {
    mont_add(r->l, a->l, a->l, cz_fp_inline_modulus, CZ_FP_LIMBS);
}
CZ_FP_INLINE void fp_neg_inline(cz_fp *r, const cz_fp *a) {
    mont_neg(r->l, a->l, cz_fp_inline_modulus, CZ_FP_LIMBS);
}
/* r = a b / 2^384 mod p, fully reduced, also for unreduced a, b < 2p: the
 * CIOS accumulator stays below a + p < 2^383 and ends below
 * a b / 2^384 + p < 2p (4p < 2^384), so the one final subtraction suffices. */
CZ_FP_INLINE void fp_mul_inline(cz_fp *r, const cz_fp *a, const cz_fp *b) {
    mont_mul(r->l, a->l, b->l, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);
}
CZ_FP_INLINE void fp_sqr_inline(cz_fp *r, const cz_fp *a) {
    mont_sqr(r->l, a->l, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);
}

CZ_FP_INLINE void cz_fp2_add_inline(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    fp_add_inline(&r->c0, &a->c0, &b->c0);
    fp_add_inline(&r->c1, &a->c1, &b->c1);
}
CZ_FP_INLINE void cz_fp2_sub_inline(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    fp_sub_inline(&r->c0, &a->c0, &b->c0);
    fp_sub_inline(&r->c1, &a->c1, &b->c1);
}
CZ_FP_INLINE void cz_fp2_dbl_inline(cz_fp2 *r, const cz_fp2 *a) {
    fp_dbl_inline(&r->c0, &a->c0);
    fp_dbl_inline(&r->c1, &a->c1);
}
CZ_FP_INLINE void cz_fp2_neg_inline(cz_fp2 *r, const cz_fp2 *a) {
    fp_neg_inline(&r->c0, &a->c0);
    fp_neg_inline(&r->c1, &a->c1);
}
CZ_FP_INLINE void cz_fp2_conj_inline(cz_fp2 *r, const cz_fp2 *a) {
    r->c0 = a->c0;
    fp_neg_inline(&r->c1, &a->c1);
}
CZ_FP_INLINE void cz_fp2_mul_fp_inline(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b) {
    fp_mul_inline(&r->c0, &a->c0, b);
    fp_mul_inline(&r->c1, &a->c1, b);
}
/* r = a (1 + u) = (a0 - a1) + (a0 + a1) u */
CZ_FP_INLINE void cz_fp2_mul_by_nonresidue_inline(cz_fp2 *r, const cz_fp2 *a) {
    cz_fp t;
    fp_sub_inline(&t, &a->c0, &a->c1);
    fp_add_inline(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

CZ_FP_INLINE void cz_fp2_mul_inline(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b) {
    /* Karatsuba at full width: with A = a0 b0, B = a1 b1, C = (a0 + a1)(b0 + b1)
     * (sums unreduced, below 2p < 2^382),
     *   c1 = C - A - B = a0 b1 + a1 b0 < 2 p^2 < p 2^384,
     *   c0 = A - B, plus p 2^384 when negative: in [0, p 2^384).
     * Both meet mont_redc's bound w < p 2^384. */
    uint64_t wa[2 * CZ_FP_LIMBS], wb[2 * CZ_FP_LIMBS], wc[2 * CZ_FP_LIMBS];
    uint64_t s[CZ_FP_LIMBS], t[CZ_FP_LIMBS], fix[CZ_FP_LIMBS];
    mont_add_raw(s, a->c0.l, a->c1.l, CZ_FP_LIMBS);
    mont_add_raw(t, b->c0.l, b->c1.l, CZ_FP_LIMBS);
    mont_mulwide(wa, a->c0.l, b->c0.l, CZ_FP_LIMBS);
    mont_mulwide(wb, a->c1.l, b->c1.l, CZ_FP_LIMBS);
    mont_mulwide(wc, s, t, CZ_FP_LIMBS);
    mont_sub_raw(wc, wc, wa, 2 * CZ_FP_LIMBS);
    mont_sub_raw(wc, wc, wb, 2 * CZ_FP_LIMBS);
    uint64_t negative = 0 - mont_sub_raw(wa, wa, wb, 2 * CZ_FP_LIMBS);
    for (int i = 0; i < CZ_FP_LIMBS; i++) fix[i] = cz_fp_inline_modulus[i] & negative;
    mont_add_raw(wa + CZ_FP_LIMBS, wa + CZ_FP_LIMBS, fix, CZ_FP_LIMBS); /* mod 2^768 */
    mont_redc(r->c0.l, wa, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);
    mont_redc(r->c1.l, wc, cz_fp_inline_modulus, CZ_FP_MINV, CZ_FP_LIMBS);
}

CZ_FP_INLINE void cz_fp2_sqr_inline(cz_fp2 *r, const cz_fp2 *a) {
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u with unreduced factors
     * a0 + a1, a0 - a1 + p and 2 a0, each below 2p (see fp_mul_inline). */
    cz_fp s, d, a0x2;
    mont_add_raw(s.l, a->c0.l, a->c1.l, CZ_FP_LIMBS);
    mont_sub_raw(d.l, a->c0.l, a->c1.l, CZ_FP_LIMBS);
    mont_add_raw(d.l, d.l, cz_fp_inline_modulus, CZ_FP_LIMBS); /* mod 2^384 */
    mont_add_raw(a0x2.l, a->c0.l, a->c0.l, CZ_FP_LIMBS);
    fp_mul_inline(&r->c1, &a0x2, &a->c1);
    fp_mul_inline(&r->c0, &s, &d);
}

#endif
