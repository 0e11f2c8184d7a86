/* Device prime-field arithmetic for BLS12-381: Montgomery form in 32-bit
 * limbs (8 for Fr, 12 for Fp), Fp2 on top of Fp.
 *
 * Representation: little-endian 32-bit limbs, Montgomery form with
 * R = 2^(32 N); this is the same R as the CPU's 64-bit-limb code (2^256 for
 * Fr, 2^384 for Fp), so a cz_fr / cz_fp in host memory is bit-for-bit a
 * device element and copies need no conversion. Values are kept fully
 * reduced (< p) after every operation, so equality is limb equality.
 *
 * Multiplication (spec gpu-prover.md §4.1): operand-scanning Montgomery with
 * the accumulator split into two arrays A and B, both aligned at word 0, with
 * T = A + B. The product a * b_i is added as a_even * b_i (pairs of words
 * (0,1), (2,3), ... that never overlap, so one carry chain of
 * mad.lo.cc / madc.hi.cc on the same product) into A, and a_odd * b_i (pairs
 * (1,2), (3,4), ...) into B starting at word 1. ptxas turns each lo/hi pair
 * on one product into one IMAD.WIDE.U32(.X). The reduction multiple m is
 * taken from A[0] + B[0]; after adding m p the two low words sum to 0 or 2^32
 * (k = A[0] != 0 says which), both arrays shift down one word (register
 * renaming only) and k enters the next row's B chain as its first carry.
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
 * CZ_GPU_FULL_INLINE before including this inlines it (ntt.cu, gpu_bench.cu:
 * measured 60 ms instead of 84 ms for a 2^27 NTT); the others call one
 * out-of-line copy per field, which measured faster for the point kernels
 * (2^27 MSM 992 ms out of line, 1083 ms inlined: the inlined accumulation
 * kernel needs more registers, so fewer warps hide the point gathers) and
 * compiles in a fraction of the time. */
#ifdef CZ_GPU_FULL_INLINE
#define CZ_DEV_HOT __device__ __forceinline__
#else
#define CZ_DEV_HOT __device__ __noinline__
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
    /* The same with the modulus' limbs (compile-time constants) and m. */
    static CZ_DEV void row_red(uint32_t *A, uint32_t *B, uint32_t m) {
        asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(A[0]), "+r"(A[1])
                     : "r"(P::p(0)), "r"(m));
#pragma unroll
        for (int j = 2; j < N; j += 2)
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                         : "+r"(A[j]), "+r"(A[j + 1])
                         : "r"(P::p(j)), "r"(m));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(A[N]));

        asm volatile("mad.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(B[1]), "+r"(B[2])
                     : "r"(P::p(1)), "r"(m));
#pragma unroll
        for (int j = 3; j < N - 1; j += 2)
            asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                         : "+r"(B[j]), "+r"(B[j + 1])
                         : "r"(P::p(j)), "r"(m));
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.u32 %1, %2, %3, %1;"
                     : "+r"(B[N - 1]), "+r"(B[N])
                     : "r"(P::p(N - 1)), "r"(m));
    }

    static CZ_DEV_HOT mont mul(const mont &a, const mont &b) {
        uint32_t A[N + 1], B[N + 1], k = 0;
        /* row 0: plain products, no accumulation */
#pragma unroll
        for (int j = 0; j < N; j += 2) {
            asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                         : "=r"(A[j]), "=r"(A[j + 1])
                         : "r"(a.v[j]), "r"(b.v[0]));
            asm volatile("mul.lo.u32 %0, %2, %3; mul.hi.u32 %1, %2, %3;"
                         : "=r"(B[j + 1]), "=r"(B[j + 2])
                         : "r"(a.v[j + 1]), "r"(b.v[0]));
        }
        A[N] = 0;
        B[0] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            if (i > 0) row_mad(A, B, a.v, b.v[i], k);
            uint32_t m = (A[0] + B[0]) * P::minv;
            row_red(A, B, m);
            /* A[0] + B[0] is now 0 mod 2^32: it is 2^32 exactly when A[0] != 0 */
            k = A[0] != 0;
#pragma unroll
            for (int j = 0; j < N; j++) {
                A[j] = A[j + 1];
                B[j] = B[j + 1];
            }
            A[N] = 0;
            B[N] = 0;
        }
        /* T = A + B + k, T < 2p */
        mont r;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(A[0]), "r"(B[0]));
#pragma unroll
        for (int i = 1; i < N; i++)
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(A[i]), "r"(B[i]));
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(k));
#pragma unroll
        for (int i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(r.v[i]));
        reduce_once(r.v);
        return r;
    }
    static CZ_DEV mont sqr(const mont &a) {
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
    /* Karatsuba: 3 Fp products. */
    static CZ_DEV fp2_t mul(const fp2_t &a, const fp2_t &b) {
        fp_t t0 = fp_t::mul(a.c0, b.c0);
        fp_t t1 = fp_t::mul(a.c1, b.c1);
        fp_t t2 = fp_t::mul(fp_t::add(a.c0, a.c1), fp_t::add(b.c0, b.c1));
        return {fp_t::sub(t0, t1), fp_t::sub(fp_t::sub(t2, t0), t1)};
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
