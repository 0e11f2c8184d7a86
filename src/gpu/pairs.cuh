/* Affine pair levels (Montgomery's trick), shared by batch addition
 * (batch.cu) and the MSM's batch-affine accumulation (msm.cuh).
 *
 * A level adds q pairs of affine points (a_j, b_j). Thread t of T (T <= q)
 * owns the pairs j = t, t + T, t + 2T, ... Forward it multiplies their
 * denominators (x2 - x1, or 2 y1 for a + a) into a running product and
 * stores the prefixes (scr[j] for j >= T); the BS threads of a block share
 * one Fermat inversion (block_inv); backward each thread peels 1 / den_j off
 * its inverse (2 products) and finishes the pair with 3 more (lambda,
 * lambda^2, y3): 6 products per addition against 10 for an XYZZ mixed
 * addition, plus the block's inversion (~480 products) shared by its pairs.
 * Pairs with infinity, a + (-a) (and 2a with y = 0) need no inversion: their
 * denominator is 1 and the result is chosen by case.
 *
 * Where the pairs come from and where the sums go is the view V's:
 *   void prologue(size_t t): called first by every thread;
 *   F den(size_t j): pair j's denominator (pair_den, reading what it needs);
 *   void load(size_t j, affine<F> &a, affine<F> &b);
 *   void put(size_t j, const affine<F> &sum). */
#ifndef CZ_GPU_PAIRS_CUH
#define CZ_GPU_PAIRS_CUH

#include "gpu/internal.cuh"

namespace cz_gpu {

/* What an affine pair (a, b) needs: PAIR_ADD (den = x2 - x1) and PAIR_DBL
 * (a == b, den = 2 y1) go through the shared inversion; the others have
 * den = 1 and a result chosen by case: PAIR_A (b is infinity), PAIR_B (a is
 * infinity), PAIR_INF (both infinity, a == -b, or 2a with y1 = 0). */
enum { PAIR_ADD, PAIR_DBL, PAIR_A, PAIR_B, PAIR_INF };

template <class F>
static CZ_DEV int pair_kind(const F &x1, const F &y1, const F &x2, const F &y2, F &den) {
    const bool inf1 = x1.is_zero() && y1.is_zero(), inf2 = x2.is_zero() && y2.is_zero();
    if (inf1 || inf2) {
        den = F::one();
        return inf1 ? (inf2 ? PAIR_INF : PAIR_B) : PAIR_A;
    }
    if (!(x1 == x2)) {
        den = F::sub(x2, x1);
        return PAIR_ADD;
    }
    /* same x: b = a or b = -a */
    if (y1 == y2 && !y1.is_zero()) {
        den = F::dbl(y1);
        return PAIR_DBL;
    }
    den = F::one();
    return PAIR_INF;
}

/* The forward pass's denominator: only x is read in the usual case (x1 !=
 * x2, neither x zero: then neither point is infinity, which has x = 0, and
 * pair_kind would say PAIR_ADD with the same den); y1, y2 are read (called)
 * only otherwise. */
template <class F, class Y1, class Y2>
static CZ_DEV F pair_den(const F &x1, const F &x2, Y1 y1, Y2 y2) {
    if (!(x1 == x2) && !x1.is_zero() && !x2.is_zero()) return F::sub(x2, x1);
    F den;
    (void)pair_kind(x1, y1(), x2, y2(), den);
    return den;
}

/* a + b of kind pair_kind(a, b), dinv = 1 / den. */
template <class F>
static CZ_DEV affine<F> pair_sum(int kind, const affine<F> &a, const affine<F> &b, const F &dinv) {
    if (kind > PAIR_DBL) return kind == PAIR_A ? a : (kind == PAIR_B ? b : affine<F>::inf());
    F num;
    if (kind == PAIR_ADD) {
        num = F::sub(b.y, a.y);
    } else {
        const F xx = F::sqr(a.x);
        num = F::add(F::dbl(xx), xx);
    }
    /* x2 == x1 for a doubling, so one formula serves both */
    const F lam = F::mul(num, dinv);
    affine<F> r;
    r.x = F::sub(F::sub(F::sqr(lam), a.x), b.x);
    r.y = F::sub(F::mul(lam, F::sub(a.x, r.x)), a.y);
    return r;
}

/* Warp shuffle of a whole field element, up (from lane - o) or down (from
 * lane + o); every lane of the warp takes part. */
template <bool Up, class F> static CZ_DEV F shfl_f(const F &x, unsigned o) {
    union {
        F f;
        uint32_t w[sizeof(F) / 4];
    } u;
    u.f = x;
#pragma unroll
    for (int i = 0; i < (int)(sizeof(F) / 4); i++)
        u.w[i] =
            Up ? __shfl_up_sync(0xffffffffu, u.w[i], o) : __shfl_down_sync(0xffffffffu, u.w[i], o);
    return u.f;
}

/* x^-1 for every thread's x != 0 (threads without pairs pass 1) with one
 * inversion per block of BS threads: inclusive prefix and suffix products
 * inside each warp (shuffles), the warp totals in shared memory, thread 0
 * inverts the block's product, and x^-1 = (block product)^-1 * (product of
 * all the others). ~15 products per thread and one inversion per block
 * instead of one per thread; the inversion runs in one warp while the
 * block's other warps wait, so it costs its latency (a few hundred
 * microseconds per level) rather than throughput. All threads of the block
 * must call it. Out of line: it keeps the level loops' register allocation
 * as it is without it. */
template <class F, int BS> static __device__ __noinline__ F block_inv(const F &x) {
    __shared__ F wtot[BS / 32];
    __shared__ F binv;
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    F pre = x, suf = x; /* inclusive prefix / suffix products over the warp's lanes */
#pragma unroll 1
    for (unsigned o = 1; o < 32; o <<= 1) {
        const F u = shfl_f<true>(pre, o), v = shfl_f<false>(suf, o);
        if (lane >= o) pre = F::mul(pre, u);
        if (lane + o < 32) suf = F::mul(suf, v);
    }
    if (lane == 31) wtot[w] = pre;
    /* exclusive: the lanes before / after this one */
    F epre = shfl_f<true>(pre, 1), esuf = shfl_f<false>(suf, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        F tot = wtot[0];
        for (unsigned v = 1; v < BS / 32; v++) tot = F::mul(tot, wtot[v]);
        binv = field_inv(tot);
    }
    __syncthreads();
    F r = binv;
    for (unsigned v = 0; v < BS / 32; v++)
        if (v != w) r = F::mul(r, wtot[v]);
    if (lane > 0) r = F::mul(r, epre);
    if (lane < 31) r = F::mul(r, esuf);
    return r;
}

/* One level (see the top): blocks of BS threads, at least MINB blocks per
 * SM; threads t >= T only join the shared inversion. */
template <class F, class V, int BS, int MINB>
__global__ void __launch_bounds__(BS, MINB)
    k_pair_level(const V v, size_t q, size_t T, F *__restrict__ scr) {
    const size_t t = (size_t)blockIdx.x * BS + threadIdx.x;
    v.prologue(t);
    /* forward: acc = den_0 * ... * den_k */
    F acc = F::one();
    size_t j = t;
    if (t < T) {
        for (size_t k = 0; j < q; k++, j += T) {
            const F den = v.den(j);
            if (k == 0) {
                acc = den;
            } else {
                st16(&scr[j], acc);
                acc = F::mul(acc, den);
            }
        }
    }
    /* here j = t + K T, K = the thread's pair count; every den != 0, so
     * acc != 0 */
    F inv = block_inv<F, BS>(acc);
    if (t >= T) return;
    /* backward: inv = (den_0 ... den_k)^-1 on entry of step k */
    for (;;) {
        j -= T; /* the last pair first; j >= t always holds (unsigned, T <= t + k T) */
        const bool first = j == t;
        affine<F> a, b;
        v.load(j, a, b);
        F den;
        const int kind = pair_kind(a.x, a.y, b.x, b.y, den);
        F dinv = inv; /* 1 / den_k */
        if (!first) {
            dinv = F::mul(inv, ld16(&scr[j]));
            inv = F::mul(inv, den);
        }
        v.put(j, pair_sum(kind, a, b, dinv));
        if (first) break;
    }
}

/* Threads of one full wave of the level kernels on the current device at
 * 16 warps per SM (blocks of 128, 4 per SM): the level's T when it has
 * pairs enough, so that each block pays one inversion per level. */
static inline size_t pair_level_wave(void) {
    static size_t wave = 0;
    if (!wave) {
        int dev = 0, sms = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            sms < 1)
            sms = 132;
        (void)cudaGetLastError();
        wave = (size_t)sms * 512;
    }
    return wave;
}

} // namespace cz_gpu

#endif
