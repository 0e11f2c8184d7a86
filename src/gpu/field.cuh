/* Device prime-field arithmetic for BLS12-381: Montgomery form in 32-bit
 * limbs (8 for Fr, 12 for Fp), Fp2 on top of Fp.
 *
 * Representation: little-endian 32-bit limbs, Montgomery form with
 * R = 2^(32 N); this is the same R as the CPU's 64-bit-limb code (2^256 for
 * Fr, 2^384 for Fp), so a cz_fr / cz_fp in host memory is bit-for-bit a
 * device element and copies need no conversion. Values are kept fully
 * reduced (< p) after every operation, so equality is limb equality.
 *
 * Multiplication: operand-scanning Montgomery with
 * the accumulator split into two arrays A and B, both aligned at word 0, with
 * T = A + B. The product a * b_i is added as a_even * b_i (pairs of words
 * (0,1), (2,3), ... that never overlap, so one carry chain of
 * mad.lo.cc / madc.hi.cc on the same product) into A, and a_odd * b_i (pairs
 * (1,2), (3,4), ...) into B starting at word 1. ptxas turns each lo/hi pair
 * on one product into one IMAD.WIDE.U32(.X). The reduction multiple m is
 * taken from A[0] + B[0]; after adding m p the two low words sum to 0 or 2^32
 * (k = A[0] != 0 says which), both arrays shift down one word (register
 * renaming only) and k enters the next row's B chain as its first carry.
 * That is the Fr product (mul_shift, which also swaps the arrays' roles
 * every row); the Fp product (mul_pairs) adds the same words at absolute
 * positions instead of shifting, which saves ptxas' register moves.
 *
 * Bounds (a, b < p): each of A and B stays below 2p * 2^32 before the shift
 * and below 2p after it (the usual CIOS fixed point, per array), so A needs
 * N + 1 words and B's chain never carries out of word N. The final T < 2p,
 * so one conditional subtraction gives the reduced result. Both moduli are
 * below 2^(32 N - 1), so 2p fits in N words. */
#ifndef CZ_GPU_FIELD_CUH
#define CZ_GPU_FIELD_CUH

#include <stdint.h>

#define CZ_DEV __device__ __forceinline__
/* The Montgomery product is ~300 wide multiply-adds. A .cu file that defines
 * CZ_GPU_FULL_INLINE before including this inlines it (gpu_bench.cu's rate
 * kernels; ntt.cu, whose pass kernels call their own out-of-line copy of the
 * inlined Fr product: everything inlined, the 2^27 NTT kernels outgrew the
 * instruction cache); the others call one out-of-line copy per field, which measured faster for the
 * point kernels (2^27 MSM 898 ms out of line, 1070-1090 ms inlined at the same or higher occupancy:
 * the inlined addition is ~10x the code) and compiles in a fraction of the time. The out-of-line
 * functions take their operands by value: with references the caller's operands (the whole MSM
 * running sum) had to live in local memory (2^27 MSM 960 ms -> 898 ms by value). */
#ifdef CZ_GPU_FULL_INLINE
#define CZ_DEV_HOT    __device__ __forceinline__
#define CZ_HOT_ARG(T) const T & /* inlined: the same code as before by-value */
#else
#define CZ_DEV_HOT    __device__ __noinline__
#define CZ_HOT_ARG(T) const T
#endif

namespace cz_gpu {

struct fr_params {
    static constexpr int N = 8;
    static CZ_DEV uint32_t p(int i) {
        constexpr uint32_t P[8] = {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u,
                                   0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u};
        return P[i];
    }
    static constexpr uint32_t minv = 0xffffffffu; /* -p^-1 mod 2^32 */
    /* R mod p (Montgomery one) */
    static CZ_DEV uint32_t one(int i) {
        constexpr uint32_t O[8] = {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau,
                                   0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u};
        return O[i];
    }
};

struct fp_params {
    static constexpr int N = 12;
    static CZ_DEV uint32_t p(int i) {
        constexpr uint32_t P[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu,
                                    0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u,
                                    0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};
        return P[i];
    }
    static constexpr uint32_t minv = 0xfffcfffdu;
    static CZ_DEV uint32_t one(int i) {
        constexpr uint32_t O[12] = {0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu,
                                    0x53c758bau, 0x5f489857u, 0x70525745u, 0x77ce5853u,
                                    0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u};
        return O[i];
    }
};

/* -p^-1 mod 2^32 as the Fr product (below) reads it. It is the
 * literal 0xffffffff; given the literal, ptxas turns m = t * minv into
 * m = -t and then compiles every m p_j lo/hi pair as IMAD.X + IMAD.HI.U32.X
 * (two instructions) instead of one IMAD.WIDE.U32.X (measured: 96 of each
 * per 2 products). Read from constant memory the value is opaque: one IMAD
 * per row, and the pairs stay wide. */
static __constant__ uint32_t cz_fr_minv_c = 0xffffffffu;

template <class P> struct mont {
    static constexpr int N = P::N;
    uint32_t v[N];

    static CZ_DEV mont zero() {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = 0;
        return r;
    }
    static CZ_DEV mont one() {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = P::one(i);
        return r;
    }
    CZ_DEV bool is_zero() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0;
    }
    CZ_DEV bool is_one() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i] ^ P::one(i);
        return acc == 0;
    }
    CZ_DEV bool operator==(const mont &o) const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i] ^ o.v[i];
        return acc == 0;
    }

    /* r = t - p if that does not borrow, else t (t < 2p). */
    static CZ_DEV void reduce_once(uint32_t *t) {
        uint32_t s[N], borrow;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(P::p(0)));
#pragma unroll
        for (int i = 1; i < N; i++)
            asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(t[i]), "r"(P::p(i)));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
#pragma unroll
        for (int i = 0; i < N; i++) t[i] = borrow ? t[i] : s[i];
    }

    /* The end of every product: x + y + k (N words each, k a bit) is below
     * 2p, so one conditional subtraction reduces it. */
    static CZ_DEV mont total(const uint32_t *x, const uint32_t *y, uint32_t k) {
        mont r;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(x[0]), "r"(y[0]));
#pragma unroll
        for (int i = 1; i < N; i++)
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(x[i]), "r"(y[i]));
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(k));
#pragma unroll
        for (int i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(r.v[i]));
        reduce_once(r.v);
        return r;
    }

    static CZ_DEV mont add(const mont &a, const mont &b) {
        mont r;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
        for (int i = 1; i < N; i++)
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
        /* a + b < 2p < 2^(32N): no carry out */
        reduce_once(r.v);
        return r;
    }
    static CZ_DEV mont sub(const mont &a, const mont &b) {
        mont r;
        uint32_t borrow;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
        for (int i = 1; i < N; i++)
            asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
        /* add p back, masked by the borrow (branch-free) */
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(P::p(0) & borrow));
#pragma unroll
        for (int i = 1; i < N; i++)
            asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(P::p(i) & borrow));
        return r;
    }
    static CZ_DEV mont neg(const mont &a) {
        return sub(zero(), a);
    }
    static CZ_DEV mont dbl(const mont &a) {
        return add(a, a);
    }

    /* One row of the product: A += a_even * bi (words 0..N, carry into A[N]),
     * B += k + a_odd * bi (k at word 0, products from word 1, up to word N). */
    static CZ_DEV void row_mad(uint32_t *A, uint32_t *B, const uint32_t *a, uint32_t bi,
                               uint32_t k) {
        asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(A[0]), "+r"(A[1])
                     : "r"(a[0]), "r"(bi));
#pragma unroll
        for (int j = 2; j < N; j += 2)
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                         : "+r"(A[j]), "+r"(A[j + 1])
                         : "r"(a[j]), "r"(bi));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(A[N]));

        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(B[0]) : "r"(k));
#pragma unroll
        for (int j = 1; j < N - 1; j += 2)
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                         : "+r"(B[j]), "+r"(B[j + 1])
                         : "r"(a[j]), "r"(bi));
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.u32 %1, %2, %3, %1;"
                     : "+r"(B[N - 1]), "+r"(B[N])
                     : "r"(a[N - 1]), "r"(bi));
    }
    /* The same with the modulus' limbs and m: defined for Fr only (below),
     * where p0 = 1 and p1 = 2^32 - 1 save two products. */
    static CZ_DEV void row_red(uint32_t *A, uint32_t *B, uint32_t m);

    /* The product with the arrays of the top of the file, shifted one word
     * per row: defined for Fr only (below). */
    static CZ_DEV mont mul_shift(const mont &a, const mont &b);

    /* The Fp product and squaring. Shifting A and B down one word per row
     * (as mul_shift does) costs Fp dearly:
     * in SASS each IMAD.WIDE writes an aligned register pair, and the shift
     * moves every word from the high to the low half of a pair, so ptxas
     * adds ~250 moves per Fp product (SASS of the MSM's Fp mul: 288
     * IMAD.WIDE, 252 MOV / IMAD.MOV of 672 instructions; the Fr product does
     * not show it, its code is the same size either way). With the pairs
     * below the Fp rate kernel's loop (2 products) is 944 instead of 1432
     * SASS instructions (cubin sizes), and on the H200 the Fp rate went
     * from 2.43e10 to 2.69e10 /s and the 2^27 G1 MSM from 878 to 729 ms.
     * The same computation with
     * absolute word positions: E holds the pairs that start at even words,
     * O those that start at odd words, whatever the row; row i adds
     * x_j y at words (i + j, i + j + 1) into E if i + j is even, else O.
     * So for even i E plays A's part (pairs from word i, carry into word
     * i + N) and O plays B's (pairs from word i + 1 up to word i + N), for
     * odd i the other way round; word i is consumed by the row's reduction
     * and nothing moves. Same products, same carries, same bounds as the
     * arrays of the top of the file (checked against a word-level Python
     * model of these chains, every carry asserted, before the device
     * tests). */

    /* X[o + j], X[o + j + 1] += x(j) y for j = j0, j0 + 2, ... < N, one
     * chain (CIN: continuing the carry flag); j0 even: the carry goes into
     * X[o + N]; j0 odd: the last pair ends at X[o + N], no carry out. */
    template <class W>
    static CZ_DEV void pchain(uint32_t *X, const int o, const int j0, const W &x, uint32_t y,
                              const bool cin) {
#pragma unroll
        for (int j = j0; j < N; j += 2) {
            const bool first = j == j0, top = (j0 & 1) && j == N - 1;
            const uint32_t xj = x(j);
            if (first && !cin)
                asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(X[o + j]) : "r"(xj), "r"(y));
            else
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(X[o + j]) : "r"(xj), "r"(y));
            if (top)
                asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(X[o + j + 1]) : "r"(xj), "r"(y));
            else
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;"
                             : "+r"(X[o + j + 1])
                             : "r"(xj), "r"(y));
        }
        if (!(j0 & 1)) asm volatile("addc.u32 %0, %0, 0;" : "+r"(X[o + N]));
    }
    /* The first row of a product: a b0 into E (pairs from even words, E[N]
     * = 0) and O (pairs from odd words, O[0] = 0). */
    static CZ_DEV void row0(uint32_t *E, uint32_t *O, const mont &a, uint32_t b0) {
#pragma unroll
        for (int j = 0; j < N; j += 2) {
            asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                         : "=r"(E[j]), "=r"(E[j + 1])
                         : "r"(a.v[j]), "r"(b0));
            asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                         : "=r"(O[j + 1]), "=r"(O[j + 2])
                         : "r"(a.v[j + 1]), "r"(b0));
        }
        E[N] = 0;
        O[0] = 0;
    }
    static CZ_DEV mont mul_pairs(const mont &a, const mont &b) {
        uint32_t E[2 * N], O[2 * N], k = 0;
        const auto av = [&](int j) { return a.v[j]; };
        const auto pv = [](int j) { return P::p(j); };
        /* row 0: plain products */
        row0(E, O, a, b.v[0]);
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint32_t *X = (i & 1) ? O : E, *Y = (i & 1) ? E : O; /* A's and B's parts */
            if (i > 0) {
                X[i + N] = 0;
                Y[i + N] = 0;
                pchain(X, i, 0, av, b.v[i], false);
                asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(Y[i]) : "r"(k));
                pchain(Y, i, 1, av, b.v[i], true);
            }
            const uint32_t m = (X[i] + Y[i]) * P::minv;
            pchain(X, i, 0, pv, m, false);
            pchain(Y, i, 1, pv, m, false);
            /* X[i] + Y[i] is now 0 mod 2^32: it is 2^32 exactly when X[i] != 0 */
            k = X[i] != 0;
        }
        /* T = E + O + k at words N..2N-1, T < 2p */
        return total(E + N, O + N, k);
    }
    /* Squaring (Fp only, see sqr), with absolute word positions as
     * mul_pairs: the rows of the product use the
     * operand D_i = a_i 2^(32 i) + 2 sum_{j > i} a_j 2^(32 j) at word
     * positions i..N-1 (sum_i a_i D_i = a^2), so row i has N - i products
     * instead of N (78 instead of 144 for Fp); the reduction rows are mul's.
     * The words of D_i: a_i at i, a_{i+1} << 1 at i + 1, then the words of
     * 2a (2a < 2^(32N) as p < 2^(32N - 2)), recomputed per row (a funnel
     * shift on the ALU pipe is cheaper than 12 more live registers). The
     * carry bit k of the two low words is kept apart instead of entering B's
     * chain (which starts at the first product of the row, not at word 0):
     * m = (A[0] + B[0] + k) m', and after adding m p the low sum
     * A[0] + B[0] + k is 0 or 2^32, so the next k = (A[0] | B[0] | k) != 0.
     * Bounds: D_i <= 2a < 2p, so each array stays below 2p + p < 3p after
     * the shift (mul's argument with 2p for the operand), which needs
     * 3p < 2^(32N): true for Fp (p < 2^381), false for Fr; the total
     * T = (a^2 + M p) / R < 2p as in mul. Checked against a word-level
     * Python model of these chains (random and edge inputs, every carry
     * asserted) before the device tests. */
    static CZ_DEV mont sqr_pairs(const mont &a) {
        uint32_t E[2 * N], O[2 * N], k = 0;
        const auto pv = [](int j) { return P::p(j); };
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t ai = a.v[i];
            const auto D = [&](int j) {
                return j < i ? 0u
                             : (j == i ? ai
                                       : (j == i + 1 ? a.v[j] << 1
                                                     : __funnelshift_l(a.v[j - 1], a.v[j], 1)));
            };
            uint32_t *X = (i & 1) ? O : E, *Y = (i & 1) ? E : O;
            if (i == 0) {
#pragma unroll
                for (int j = 0; j < N; j += 2) {
                    asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                                 : "=r"(E[j]), "=r"(E[j + 1])
                                 : "r"(D(j)), "r"(ai));
                    asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                                 : "=r"(O[j + 1]), "=r"(O[j + 2])
                                 : "r"(D(j + 1)), "r"(ai));
                }
                E[N] = 0;
                O[0] = 0;
            } else {
                X[i + N] = 0;
                Y[i + N] = 0;
                const int ja = i + (i & 1), jb = i | 1;
                if (ja < N) pchain(X, i, ja, D, ai, false);
                pchain(Y, i, jb, D, ai, false);
            }
            const uint32_t m = (X[i] + Y[i] + k) * P::minv;
            pchain(X, i, 0, pv, m, false);
            pchain(Y, i, 1, pv, m, false);
            k = (X[i] | Y[i] | k) != 0;
        }
        return total(E + N, O + N, k);
    }
    /* r = x + y and r = x - y over W words, modulo 2^(32 W) (r may be x). */
    template <int W>
    static CZ_DEV void words_add(uint32_t *r, const uint32_t *x, const uint32_t *y) {
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(x[0]), "r"(y[0]));
#pragma unroll
        for (int i = 1; i < W; i++)
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[i]) : "r"(x[i]), "r"(y[i]));
    }
    template <int W>
    static CZ_DEV void words_sub(uint32_t *r, const uint32_t *x, const uint32_t *y) {
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(x[0]), "r"(y[0]));
#pragma unroll
        for (int i = 1; i < W; i++)
            asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r[i]) : "r"(x[i]), "r"(y[i]));
    }
    /* Fp2's lazy product (fp2_t::mul) splits mul_pairs in two: the full
     * 2N-word product, then one Montgomery reduction of a combination of
     * three products, so an Fp2 product pays 3 products but 2 reductions
     * (720 instead of 864 wide multiply-adds). mul_wide: T = a b (any
     * a, b < 2^(32N)); the rows of mul_pairs without the reduction rows. Word
     * i + N is first written by row i, so each row's carry goes into a fresh
     * word (zeroed there) and E + O = a b exactly, with no carry out. */
    static CZ_DEV void mul_wide(const mont &a, const mont &b, uint32_t *T) {
        uint32_t E[2 * N], O[2 * N];
        const auto av = [&](int j) { return a.v[j]; };
        row0(E, O, a, b.v[0]);
#pragma unroll
        for (int i = 1; i < N; i++) {
            uint32_t *X = (i & 1) ? O : E, *Y = (i & 1) ? E : O;
            X[i + N] = 0;
            Y[i + N] = 0;
            pchain(X, i, 0, av, b.v[i], false);
            pchain(Y, i, 1, av, b.v[i], false);
        }
        words_add<2 * N>(T, E, O);
    }
    /* T R^-1 mod p, canonical, for T < 2 p^2 (2N words). With T = H R + L:
     * the reduction rows of sqr_pairs on L alone give (L + M p) / R <= p,
     * then + H (H < 2 p^2 / R < p as 2p < R): below 2p, one subtraction. */
    static CZ_DEV mont redc_wide(const uint32_t *T) {
        uint32_t E[2 * N], O[2 * N], k = 0;
        const auto pv = [](int j) { return P::p(j); };
#pragma unroll
        for (int j = 0; j < N; j++) E[j] = T[j], O[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint32_t *X = (i & 1) ? O : E, *Y = (i & 1) ? E : O;
            X[i + N] = 0;
            Y[i + N] = 0;
            const uint32_t m = (X[i] + Y[i] + k) * P::minv;
            pchain(X, i, 0, pv, m, false);
            pchain(Y, i, 1, pv, m, false);
            k = (X[i] | Y[i] | k) != 0;
        }
        mont h;
#pragma unroll
        for (int j = 0; j < N; j++) h.v[j] = T[N + j];
        return add(total(E + N, O + N, k), h);
    }

    /* The out-of-line product and squaring take their operands by value (an
     * address passed to a __noinline__ function would keep the caller's
     * operands in local memory). Fp: mul_pairs, Fr: mul_shift. */
    static CZ_DEV_HOT mont mul(CZ_HOT_ARG(mont) a, CZ_HOT_ARG(mont) b) {
        if constexpr (N == 12)
            return mul_pairs(a, b);
        else
            return mul_shift(a, b);
    }
    static CZ_DEV_HOT mont sqr_rows(CZ_HOT_ARG(mont) a) {
        return sqr_pairs(a);
    }
    /* The Fr modulus leaves too little headroom for sqr_rows' bounds, so Fr
     * squares by mul (bit-exact as before). */
    static CZ_DEV mont sqr(const mont &a) {
        if constexpr (N == 12)
            return sqr_rows(a);
        else
            return mul(a, a);
    }

    /* Montgomery form -> canonical integer limbs (multiply by 1). */
    CZ_DEV mont from_mont() const {
        mont one_int = zero();
        one_int.v[0] = 1;
        return mul(*this, one_int);
    }

    /* a^e for a small public exponent (used by tests and table builds). */
    static CZ_DEV mont pow_u32(mont a, uint32_t e) {
        mont r = one();
        while (e) {
            if (e & 1) r = mul(r, a);
            a = sqr(a);
            e >>= 1;
        }
        return r;
    }

    CZ_DEV mont operator+(const mont &o) const {
        return add(*this, o);
    }
    CZ_DEV mont operator-(const mont &o) const {
        return sub(*this, o);
    }
    CZ_DEV mont operator*(const mont &o) const {
        return mul(*this, o);
    }
};

/* Fr reduction row: the modulus r = 1 + (2^32 - 1) 2^32 + ... has p0 = 1 and
 * p1 = 2^32 - 1, so m p0 = m (high word 0) and m p1 = (m - [m != 0]) 2^32 +
 * (-m mod 2^32) need no multiplication: the row is 6 wide multiply-adds
 * instead of 8 (112 instead of 128 per product). The words added are exactly
 * those of the generic row (same values, same carries), so the bounds above
 * hold unchanged. */
template <> CZ_DEV void mont<fr_params>::row_red(uint32_t *A, uint32_t *B, uint32_t m) {
    asm volatile("add.cc.u32 %0, %0, %2; addc.cc.u32 %1, %1, 0;" : "+r"(A[0]), "+r"(A[1]) : "r"(m));
#pragma unroll
    for (int j = 2; j < N; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(A[j]), "+r"(A[j + 1])
                     : "r"(fr_params::p(j)), "r"(m));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(A[N]));

    const uint32_t lo1 = 0u - m, hi1 = m - (m != 0u);
    asm volatile("add.cc.u32 %0, %0, %2; addc.cc.u32 %1, %1, %3;"
                 : "+r"(B[1]), "+r"(B[2])
                 : "r"(lo1), "r"(hi1));
#pragma unroll
    for (int j = 3; j < N - 1; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(B[j]), "+r"(B[j + 1])
                     : "r"(fr_params::p(j)), "r"(m));
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.u32 %1, %2, %3, %1;"
                 : "+r"(B[N - 1]), "+r"(B[N])
                 : "r"(fr_params::p(N - 1)), "r"(m));
}

/* Fr product with the arrays' roles swapped every row. After the shift by
 * one word, the array that took the even pairs (0,1), (2,3), ... holds them
 * at (-1,0), (1,2), ...: it is the odd-aligned one now, and the other array
 * (odd pairs shifted to (0,1), (2,3), ...) is the even-aligned one. Giving
 * the next row's even products and m p_even to the latter keeps every lo/hi
 * pair on one aligned register pair, so each becomes one IMAD.WIDE(.X) with
 * no register moves (with fixed roles and the opaque m, ptxas added ~40
 * moves per product: Fr rate 5.1e10 /s against 5.8e10 /s). Same words added as the
 * generic product, only into the other array, and the bounds above are per
 * array and independent of which products an array takes (each stays < 2p
 * after the shift: X' 2^32 <= X + 1 + (2^32 - 1)(a + p) with a < p), so they
 * hold unchanged; k still enters the odd-aligned array at word 0. */
template <>
CZ_DEV mont<fr_params> mont<fr_params>::mul_shift(const mont<fr_params> &a,
                                                  const mont<fr_params> &b) {
    uint32_t X[2][N + 1], k = 0;
    /* row 0: even-aligned X[0] = a_even b_0, odd-aligned X[1] = a_odd b_0 */
#pragma unroll
    for (int j = 0; j < N; j += 2) {
        asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                     : "=r"(X[0][j]), "=r"(X[0][j + 1])
                     : "r"(a.v[j]), "r"(b.v[0]));
        asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                     : "=r"(X[1][j + 1]), "=r"(X[1][j + 2])
                     : "r"(a.v[j + 1]), "r"(b.v[0]));
    }
    X[0][N] = 0;
    X[1][0] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        uint32_t *E = X[i & 1], *O = X[(i & 1) ^ 1]; /* even-, odd-aligned */
        if (i > 0) row_mad(E, O, a.v, b.v[i], k);
        const uint32_t m = (E[0] + O[0]) * cz_fr_minv_c; /* opaque: see above */
        row_red(E, O, m);
        /* E[0] + O[0] is now 0 mod 2^32: it is 2^32 exactly when E[0] != 0 */
        k = E[0] != 0;
#pragma unroll
        for (int j = 0; j < N; j++) {
            E[j] = E[j + 1];
            O[j] = O[j + 1];
        }
        E[N] = 0;
        O[N] = 0;
    }
    /* T = X[0] + X[1] + k, T < 2p */
    return total(X[0], X[1], k);
}

typedef mont<fr_params> fr_t;
typedef mont<fp_params> fp_t;

/* Fp2 = Fp[u]/(u^2 + 1). */
struct fp2_t {
    fp_t c0, c1;
    static CZ_DEV fp2_t zero() {
        return {fp_t::zero(), fp_t::zero()};
    }
    static CZ_DEV fp2_t one() {
        return {fp_t::one(), fp_t::zero()};
    }
    CZ_DEV bool is_zero() const {
        return c0.is_zero() && c1.is_zero();
    }
    CZ_DEV bool operator==(const fp2_t &o) const {
        return c0 == o.c0 && c1 == o.c1;
    }
    static CZ_DEV fp2_t add(const fp2_t &a, const fp2_t &b) {
        return {fp_t::add(a.c0, b.c0), fp_t::add(a.c1, b.c1)};
    }
    static CZ_DEV fp2_t sub(const fp2_t &a, const fp2_t &b) {
        return {fp_t::sub(a.c0, b.c0), fp_t::sub(a.c1, b.c1)};
    }
    static CZ_DEV fp2_t neg(const fp2_t &a) {
        return {fp_t::neg(a.c0), fp_t::neg(a.c1)};
    }
    static CZ_DEV fp2_t dbl(const fp2_t &a) {
        return add(a, a);
    }
    /* Karatsuba with lazy reduction: 3 products of 2N words (fp_t::
     * mul_wide), 2 reductions (fp_t::redc_wide). For canonical a, b (< p):
     * c0 = a0 b0 - a1 b1 + p^2 in (0, 2 p^2); c1 = (a0 + a1)(b0 + b1) - a0 b0
     * - a1 b1 = a0 b1 + a1 b0 < 2 p^2, with the sums a0 + a1, b0 + b1 < 2p
     * left unreduced. Out of line, as the Fp product (see CZ_DEV_HOT).
     * Checked against a word-level Python model of these chains (every carry
     * asserted; random and edge inputs) before the device tests. */
    static CZ_DEV_HOT fp2_t mul(CZ_HOT_ARG(fp2_t) a, CZ_HOT_ARG(fp2_t) b) {
        constexpr int W = 2 * fp_t::N;
        uint32_t t0[W], t1[W], t2[W], q[W];
        fp_t::mul_wide(a.c0, b.c0, t0);
        fp_t::mul_wide(a.c1, b.c1, t1);
        /* t2 = t0 + t1 (< 2 p^2), t0 = t0 - t1 + p^2: the wrapped difference
         * plus p^2 is exact mod 2^(32W), the true value is in (0, 2 p^2) */
        fp_t::words_add<W>(t2, t0, t1);
        fp_t::words_sub<W>(t0, t0, t1);
#pragma unroll
        for (int i = 0; i < W; i++) q[i] = p2(i);
        fp_t::words_add<W>(t0, t0, q);
        const fp_t c0 = fp_t::redc_wide(t0);
        fp_t sa, sb;
        fp_t::words_add<fp_t::N>(sa.v, a.c0.v, a.c1.v);
        fp_t::words_add<fp_t::N>(sb.v, b.c0.v, b.c1.v);
        fp_t::mul_wide(sa, sb, t1);
        fp_t::words_sub<W>(t1, t1, t2);
        return {c0, fp_t::redc_wide(t1)};
    }
    /* p^2 in 32-bit words, least significant first. */
    static CZ_DEV uint32_t p2(int i) {
        constexpr uint32_t Q[24] = {0x1c718e39u, 0x26aa0000u, 0x76382eabu, 0x7ced6b1du, 0x62113cfdu,
                                    0x162c3383u, 0x3e71b743u, 0x66bf91edu, 0x7091a049u, 0x292e85a8u,
                                    0x86185c7bu, 0x1d68619cu, 0x0978ef01u, 0xf5314933u, 0x16ddca6eu,
                                    0x50a62cfdu, 0x349e8bd0u, 0x66e59e49u, 0x0e7046b4u, 0xe2dc90e5u,
                                    0xa22f25e9u, 0x4bd278eau, 0xb8c35fc7u, 0x02a437a4u};
        return Q[i];
    }
    /* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 products. */
    static CZ_DEV fp2_t sqr(const fp2_t &a) {
        fp_t t = fp_t::mul(a.c0, a.c1);
        return {fp_t::mul(fp_t::add(a.c0, a.c1), fp_t::sub(a.c0, a.c1)), fp_t::add(t, t)};
    }
    CZ_DEV fp2_t operator+(const fp2_t &o) const {
        return add(*this, o);
    }
    CZ_DEV fp2_t operator-(const fp2_t &o) const {
        return sub(*this, o);
    }
    CZ_DEV fp2_t operator*(const fp2_t &o) const {
        return mul(*this, o);
    }
};

} // namespace cz_gpu

#endif
