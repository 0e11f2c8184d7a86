/* Pippenger MSM on the device, templated over the coordinate field
 * (fp_t: G1, fp2_t: G2). Included by msm_g1.cu and msm_g2.cu only.
 *
 * 1. digits: every scalar leaves Montgomery form; if it is > (r-1)/2 it is
 *    replaced by r - s and its point negated, so it is < 2^254; then it is
 *    cut into W = ceil(255 / c) signed digits in [-2^(c-1), 2^(c-1)]
 *    (the carry of a digit > 2^(c-1) moves up; W c >= 255 leaves room for the
 *    last carry). Each nonzero digit becomes a pair (key = window * 2^(c-1) +
 *    |digit| - 1, value = point index | sign << 31); zero digits get the
 *    key SENTINEL = W 2^(c-1), which sorts after every bucket.
 * 2. sort: CUB radix sort of all W n pairs on the key's significant bits, so
 *    each bucket's entries are contiguous.
 * 3. accumulate, robust to skew: thread t owns sorted positions
 *    [t S, (t+1) S), whatever the buckets: a bucket entirely inside one
 *    range is summed by that thread and written; the pieces of a bucket that
 *    crosses range boundaries become partial sums (at most 2 per thread),
 *    which are compacted (still sorted by key) and reduced again the same way
 *    (full XYZZ additions) until none is left. A bucket holding all n points
 *    (all scalars equal) costs n / S threads of S additions, not one thread
 *    of n. Or, with CZ_GPU_MSM_AFFINE, by batch-affine levels (see
 *    msm_affine_acc below).
 * 4. bucket reduction per window, T = sum_j (j+1) X_j over the 2^(c-1)
 *    buckets: segments of L = 16 give LW_s = sum_t (t+1) X_{sL+t} and
 *    PS_s = sum_t X_{sL+t} by a running sum; with X' = PS and G the plain sum,
 *    F(X) = G(LW) + L (F(X') - G(X')) and G(X') = G(X). Recursing until one
 *    segment is left gives
 *      F(X_0) = sum_k L^(k-1) G(LW_k) + L^d F(X_d) - (L + ... + L^d) G(X_0),
 *    evaluated by Horner per window; the G(LW_k) are plain sums reduced by
 *    the same kernel.
 * 5. the windows are combined by Horner (c doublings between them) on the
 *    device, and the XYZZ result is converted to Jacobian. */
#ifndef CZ_GPU_MSM_CUH
#define CZ_GPU_MSM_CUH

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "gpu/common.cuh"
#include "gpu/curve.cuh"
#include "gpu/internal.cuh"
#include "gpu/pairs.cuh"
#include "gpu/settings.h"
#include "util/log.h"

namespace cz_gpu {

#define MSM_EMPTY   0xffffffffu
#define MSM_SEG_LOG 4 /* bucket reduction segments of 16 */

static inline unsigned msm_window(size_t n) {
    unsigned lg = 0;
    while (lg < 40 && ((size_t)1 << (lg + 1)) <= n) lg++;
    int c = (int)lg - 5;
    if (c < 4) c = 4;
    if (c > 22) c = 22;
    return (unsigned)c;
}

/* (r - 1) / 2 as 32-bit limbs: scalars above it are negated. */
static __device__ __forceinline__ bool fr_gt_half(const fr_t &s) {
    constexpr uint32_t H[8] = {0x80000000u, 0x7fffffffu, 0x7fff2dffu, 0xa9ded201u,
                               0x04d0ec02u, 0x199cec04u, 0x94cebea4u, 0x39f6d3a9u};
#pragma unroll
    for (int i = 7; i >= 0; i--) {
        if (s.v[i] != H[i]) return s.v[i] > H[i];
    }
    return false;
}

static __global__ void k_msm_digits(const fr_t *scalars, size_t n, unsigned c, unsigned W,
                                    uint32_t *keys, uint32_t *vals) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t s = scalars[i].from_mont();
    uint32_t neg = 0;
    if (fr_gt_half(s)) {
        s = fr_t::sub(fr_t::zero(), s); /* r - s, as an integer: s is in [1, r) */
        neg = 1;
    }
    uint32_t w8[9];
#pragma unroll
    for (int j = 0; j < 8; j++) w8[j] = s.v[j];
    w8[8] = 0;
    const uint32_t half = 1u << (c - 1), full = 1u << c, mask = full - 1;
    const uint32_t sentinel = W * half;
    uint32_t carry = 0;
    for (unsigned w = 0; w < W; w++) {
        unsigned pos = w * c, word = pos >> 5, off = pos & 31;
        uint32_t lo = word < 9 ? w8[word] : 0, hi = word + 1 < 9 ? w8[word + 1] : 0;
        uint32_t bits = (uint32_t)((((uint64_t)hi << 32) | lo) >> off) & mask;
        uint32_t v = bits + carry, sign = 0, mag = v;
        carry = 0;
        if (v > half) {
            mag = full - v;
            sign = 1;
            carry = 1;
        }
        size_t o = (size_t)w * n + i;
        keys[o] = mag ? w * half + mag - 1 : sentinel;
        vals[o] = (uint32_t)i | ((sign ^ neg) << 31);
    }
}

template <class F> struct msm_part {
    uint32_t key;
    xyzz<F> p;
};

struct part_valid {
    template <class T> __host__ __device__ bool operator()(const T &x) const {
        return x.key != MSM_EMPTY;
    }
};

/* Point idx of the bases. VEC: as 16-byte loads (6 instead of 24 loads for
 * G1), for a 16-byte aligned array (msm_acc0_launch checks). */
template <class F, bool VEC>
static __device__ __forceinline__ affine<F> msm_load_point(const affine<F> *points, uint32_t idx) {
    if constexpr (VEC) {
        static_assert(sizeof(affine<F>) % 16 == 0, "affine points in 16-byte words");
        constexpr int K = sizeof(affine<F>) / 16;
        const uint4 *s = reinterpret_cast<const uint4 *>(points + idx);
        uint4 w[K];
#pragma unroll
        for (int k = 0; k < K; k++) w[k] = __ldg(s + k);
        affine<F> r;
        memcpy(&r, w, sizeof r);
        return r;
    } else {
        return points[idx];
    }
}

/* The running sum of k_msm_acc0 kept in shared memory (SM variants): word i
 * of coordinate e of thread t at s[(e NW + i) BS + t] (conflict-free), so
 * the accumulator's 4 coordinates are not live in registers across the
 * products (the registers decide the occupancy). */
template <class F, int BS> struct msm_sacc {
    static constexpr int NW = sizeof(F) / 4;
    uint32_t *s; /* shared base + threadIdx.x */
    CZ_DEV F ld(int e) const {
        uint32_t w[NW];
#pragma unroll
        for (int i = 0; i < NW; i++) w[i] = s[(e * NW + i) * BS];
        F r;
        memcpy(&r, w, sizeof r);
        return r;
    }
    CZ_DEV void st(int e, const F &v) const {
        uint32_t w[NW];
        memcpy(w, &v, sizeof w);
#pragma unroll
        for (int i = 0; i < NW; i++) s[(e * NW + i) * BS] = w[i];
    }
    CZ_DEV xyzz<F> get() const {
        return {ld(0), ld(1), ld(2), ld(3)};
    }
    CZ_DEV void set(const xyzz<F> &p) const {
        st(0, p.X), st(1, p.Y), st(2, p.ZZ), st(3, p.ZZZ);
    }
    CZ_DEV bool is_inf() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < NW; i++) acc |= s[(2 * NW + i) * BS];
        return acc == 0;
    }
    /* xyzz::add_affine with the coordinates read where used */
    CZ_DEV void add_affine(const affine<F> &a) const {
        if (a.is_inf()) return;
        if (is_inf()) {
            set(xyzz<F>::from_affine(a));
            return;
        }
        F P = F::sub(F::mul(a.x, ld(2)), ld(0));
        F R = F::sub(F::mul(a.y, ld(3)), ld(1));
        if (P.is_zero()) {
            set(R.is_zero() ? xyzz<F>::dbl_of(get()) : xyzz<F>::inf());
            return;
        }
        F PP = F::sqr(P);
        F PPP = F::mul(P, PP);
        F Q = F::mul(ld(0), PP);
        st(2, F::mul(ld(2), PP));
        st(3, F::mul(ld(3), PPP));
        F T = F::mul(ld(1), PPP);
        F X = F::sub(F::sub(F::sqr(R), PPP), F::dbl(Q));
        st(0, X);
        st(1, F::sub(F::mul(R, F::sub(Q, X)), T));
    }
};

/* Step 3, first level: sorted (key, value) pairs and affine points.
 * BS threads per block, at most MAXR registers per thread (occupancy hides
 * the latency of the random point gathers and of the products' carry
 * chains). VEC: 16-byte point loads. SM: the running sum in shared memory
 * (msm_sacc). Variants are picked at run time
 * (CZ_GPU_MSM_ACC, see msm_acc0_launch) so one build can compare them.
 * total < 2^31 (msm_run), so positions fit 32 bits. */
template <class F, int BS, int MAXR, bool VEC, bool SM>
__global__ void __launch_bounds__(BS) __maxnreg__(MAXR)
    k_msm_acc0(const uint32_t *keys, const uint32_t *vals, uint32_t total, uint32_t S,
               uint32_t sentinel, const affine<F> *points, xyzz<F> *buckets, msm_part<F> *parts) {
    const uint32_t t = blockIdx.x * BS + threadIdx.x;
    const uint32_t begin = t * S; /* < total + (BS + 1) S < 2^32 */
    if (begin >= total) return;
    const uint32_t end = total - begin > S ? begin + S : total;
    msm_part<F> *slot = parts + 2 * (size_t)t;
    slot[0].key = MSM_EMPTY;
    slot[1].key = MSM_EMPTY;
    uint32_t cur = keys[begin];
    if (cur == sentinel) return;
    const bool prev_cont = begin > 0 && keys[begin - 1] == cur;
    bool first = true;
    xyzz<F> acc_r;
    __shared__ uint32_t sacc_mem[SM ? 4 * (sizeof(F) / 4) * BS : 1];
    const msm_sacc<F, BS> sacc{sacc_mem + threadIdx.x};
    /* the running sum, wherever it is kept */
    auto acc_get = [&]() { return SM ? sacc.get() : acc_r; };
    auto acc_reset = [&]() {
        if (SM)
            sacc.set(xyzz<F>::inf());
        else
            acc_r = xyzz<F>::inf();
    };
    acc_reset();
    uint32_t v = vals[begin];
    for (uint32_t i = begin; i < end; i++) {
        uint32_t k = keys[i];
        if (k != cur) {
            if (first && prev_cont) {
                slot[0].key = cur;
                slot[0].p = acc_get();
            } else {
                buckets[cur] = acc_get();
            }
            first = false;
            cur = k;
            if (k == sentinel) break;
            acc_reset();
        }
        affine<F> q = msm_load_point<F, VEC>(points, v & 0x7fffffffu);
        const uint32_t vq = v;
        v = i + 1 < end ? vals[i + 1] : v;
        if (vq >> 31) q = q.neg();
        if (SM)
            sacc.add_affine(q);
        else
            acc_r.add_affine(q);
    }
    if (cur == sentinel) return;
    const bool next_cont = end < total && keys[end] == cur;
    if (first && prev_cont) {
        slot[0].key = cur;
        slot[0].p = acc_get();
    } else if (next_cont) {
        slot[1].key = cur;
        slot[1].p = acc_get();
    } else {
        buckets[cur] = acc_get();
    }
}

/* Step 3, later levels: compacted partial sums (sorted by key, no gaps). */
template <class F>
__global__ void __launch_bounds__(128) k_msm_accn(const msm_part<F> *in, size_t total, uint32_t S,
                                                  xyzz<F> *buckets, msm_part<F> *parts) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t begin = t * S;
    if (begin >= total) return;
    size_t end = begin + S < total ? begin + S : total;
    msm_part<F> *slot = parts + 2 * t;
    slot[0].key = MSM_EMPTY;
    slot[1].key = MSM_EMPTY;
    uint32_t cur = in[begin].key;
    const bool prev_cont = begin > 0 && in[begin - 1].key == cur;
    bool first = true;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t i = begin; i < end; i++) {
        uint32_t k = in[i].key;
        if (k != cur) {
            if (first && prev_cont) {
                slot[0].key = cur;
                slot[0].p = acc;
            } else {
                buckets[cur] = acc;
            }
            first = false;
            cur = k;
            acc = xyzz<F>::inf();
        }
        acc.add(in[i].p);
    }
    const bool next_cont = end < total && in[end].key == cur;
    if (first && prev_cont) {
        slot[0].key = cur;
        slot[0].p = acc;
    } else if (next_cont) {
        slot[1].key = cur;
        slot[1].p = acc;
    } else {
        buckets[cur] = acc;
    }
}

/* Step 4: per window w and segment s of L entries of in (Min per window):
 * ps = sum, lw = sum (t+1) x_t (skipped when lw is NULL). */
template <class F>
__global__ void __launch_bounds__(128)
    k_msm_runsum(const xyzz<F> *in, size_t Min, unsigned L, unsigned W, xyzz<F> *lw, xyzz<F> *ps) {
    size_t Mout = (Min + L - 1) / L;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)W * Mout) return;
    size_t w = t / Mout, s = t % Mout;
    size_t cnt = Min - s * L < L ? Min - s * L : L;
    const xyzz<F> *x = in + w * Min + s * L;
    xyzz<F> run = xyzz<F>::inf(), acc = xyzz<F>::inf();
    for (size_t u = cnt; u-- > 0;) {
        run.add(x[u]);
        if (lw) acc.add(run);
    }
    ps[t] = run;
    if (lw) lw[t] = acc;
}

/* Step 4's Horner per window, then step 5 (one block of W threads). fd, g:
 * F(X_d), G(X_0) per window; glw[k-1][w] = G(LW_k). */
template <class F>
__global__ void k_msm_combine(const xyzz<F> *fd, const xyzz<F> *g, const xyzz<F> *glw, unsigned d,
                              unsigned W, unsigned c, jacobian<F> *out) {
    __shared__ xyzz<F> tw[64];
    unsigned w = threadIdx.x;
    if (w < W) {
        xyzz<F> acc = fd[w], ng = g[w].neg();
        if (d > 0) acc.add(ng);
        for (unsigned k = d; k >= 1; k--) {
            for (int b = 0; b < MSM_SEG_LOG; b++) acc = acc.dbl();
            acc.add(glw[(size_t)(k - 1) * W + w]);
            if (k > 1) acc.add(ng);
        }
        tw[w] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        xyzz<F> acc = tw[W - 1];
        for (unsigned i = W - 1; i-- > 0;) {
            for (unsigned b = 0; b < c; b++) acc = acc.dbl();
            acc.add(tw[i]);
        }
        *out = to_jacobian(acc);
    }
}

/* The first-level accumulation kernel. Variants (CZ_GPU_MSM_ACC for G1,
 * CZ_GPU_MSM_ACC2 for G2, read per call, for experiments; 2^27 G1 / 2^24
 * G2 on the H200, docs/PERFORMANCE.md):
 *   0  running sum in registers, no register cap, 4-byte point loads
 *      (the fallback for bases that are not 16-byte aligned)
 *   1  running sum in registers, no register cap (G1: 168 registers, 12
 *      warps per SM, 895 ms; G2 490 ms)
 *   2  running sum in shared memory, 128 registers (G1: 16 warps per SM
 *      without spills, 878 ms: the G1 default; G2 spills, 501 ms)
 *   3  running sum in shared memory, no register cap (G1 894 ms; G2: 234
 *      registers, 458 ms: the G2 default)
 * Capping the registers of 1 at 128 / 144 / 152 (spills in the products)
 * or of 2 at 112 / 96 was slower (922–960 ms), so was an L2 prefetch of
 * the next point (no change). */
template <class F>
static void msm_acc0_launch(size_t T0, cudaStream_t st, const uint32_t *keys, const uint32_t *vals,
                            uint32_t total, uint32_t S, uint32_t sentinel, const affine<F> *points,
                            xyzz<F> *buckets, msm_part<F> *parts) {
#define MSM_ACC0(MAXR, VEC, SM)                                                                    \
    k_msm_acc0<F, 128, MAXR, VEC, SM><<<cz_gpu_blocks(T0, 128), 128, 0, st>>>(                     \
        keys, vals, total, S, sentinel, points, buckets, parts)
    const bool g1 = sizeof(F) == sizeof(fp_t);
    const cz_gpu_settings *knobs = cz_gpu_settings_get();
    int variant = g1 ? knobs->msm_acc_g1 : knobs->msm_acc_g2;
    if (((uintptr_t)points & 15) != 0) variant = 0;
    switch (variant) {
    case 0: MSM_ACC0(255, false, false); break;
    case 1: MSM_ACC0(255, true, false); break;
    case 3: MSM_ACC0(255, true, true); break;
    default: MSM_ACC0(128, true, true); break;
    }
#undef MSM_ACC0
}

/* ---- Step 3 by batch-affine levels (CZ_GPU_MSM_AFFINE) ----
 *
 * Instead of XYZZ running sums, the sorted entries are summed by levels of
 * affine pair additions (gpu/pairs.cuh: 6 products per addition plus a
 * share of one inversion per block, against 10 for a mixed XYZZ addition).
 * The entries (without the zero digits' SENTINEL tail) are taken in chunks
 * of Nc positions. A level reads a list sorted by key (level 0: the sorted
 * keys with their point indices and signs; later levels: (key, affine
 * point) lists) and, with r = the rank of an entry in its key's run:
 *   - an entry of even r followed by one of the same key starts a pair; the
 *     pair's sum goes to the output;
 *   - an entry of even r > 0 without a successor (the last of an odd run)
 *     goes to the output as it is;
 *   - an entry alone in its run (r = 0, no successor) is its bucket's sum:
 *     it is written to the bucket (or, for the chunk's first or last key
 *     when its run continues in the neighbour chunk, to one of the chunk's
 *     two partial-sum slots, added to the buckets at the end);
 *   - odd entries are the second halves of pairs.
 * Every run of length L >= 2 leaves ceil(L / 2) entries, kept in key order
 * at positions given by an exclusive scan of the "leaves an entry" flags;
 * a chunk is done after ceil(log2(longest run)) + 1 levels. Run starts come
 * from an inclusive max-scan of the run-head positions. */

struct msm_max_u32 {
    __host__ __device__ uint32_t operator()(uint32_t a, uint32_t b) const {
        return a > b ? a : b;
    }
};

/* i if entry i starts its run, else 0 (max-scanned into run starts). */
struct msm_run_head {
    const uint32_t *key;
    __host__ __device__ uint32_t operator()(uint32_t i) const {
        return i == 0 || key[i] != key[i - 1] ? i : 0;
    }
};

enum { AFF_ODD, AFF_PAIR, AFF_KEEP, AFF_DONE };

/* Entry i's role in a level of n entries (run starts rs). */
struct msm_aff_role {
    const uint32_t *key, *rs;
    uint32_t n;
    __host__ __device__ int operator()(uint32_t i) const {
        if (i >= n) return AFF_ODD;
        const uint32_t r = i - rs[i];
        if (r & 1) return AFF_ODD;
        if (i + 1 < n && key[i + 1] == key[i]) return AFF_PAIR;
        return r ? AFF_KEEP : AFF_DONE;
    }
};
/* 1 if entry i leaves an entry in the output (PAIR, KEEP), for the scan. */
struct msm_aff_leaves {
    msm_aff_role role;
    __host__ __device__ uint32_t operator()(uint32_t i) const {
        const int r = role(i);
        return r == AFF_PAIR || r == AFF_KEEP;
    }
};
struct msm_aff_is_pair {
    msm_aff_role role;
    __host__ __device__ bool operator()(const uint32_t &i) const {
        return role(i) == AFF_PAIR;
    }
};

/* A level's entries: level 0 (L0) reads the bases through the sorted
 * values (index | sign << 31), later levels a list's points. */
template <class F, bool L0> struct msm_aff_src {
    const uint32_t *__restrict__ key;
    const uint32_t *__restrict__ val; /* L0 only */
    const affine<F> *__restrict__ pts;
    CZ_DEV const affine<F> *at(uint32_t i) const {
        return L0 ? pts + (val[i] & 0x7fffffffu) : pts + i;
    }
    CZ_DEV affine<F> point(uint32_t i) const {
        const affine<F> p = ld16(at(i));
        return L0 && (val[i] >> 31) ? p.neg() : p;
    }
};

/* The pairs of a level for k_pair_level: pair j is (ps[j], ps[j] + 1), its
 * sum goes to output position pos[ps[j]]. */
template <class F, bool L0> struct msm_aff_pairs {
    msm_aff_src<F, L0> src;
    const uint32_t *__restrict__ ps, *__restrict__ pos;
    uint32_t *__restrict__ okey;
    affine<F> *__restrict__ opts;
    CZ_DEV void prologue(size_t) const {}
    CZ_DEV F den(size_t j) const {
        const uint32_t i = ps[j];
        /* the sign changes y only: x is read from the bases as it is */
        return pair_den(
            ld16(&src.at(i)->x), ld16(&src.at(i + 1)->x), [&] { return src.point(i).y; },
            [&] { return src.point(i + 1).y; });
    }
    CZ_DEV void load(size_t j, affine<F> &a, affine<F> &b) const {
        const uint32_t i = ps[j];
        a = src.point(i);
        b = src.point(i + 1);
    }
    CZ_DEV void put(size_t j, const affine<F> &r) const {
        const uint32_t i = ps[j], o = pos[i];
        okey[o] = src.key[i];
        st16(&opts[o], r);
    }
};

/* Where a finished bucket sum goes: chunk [c0, c1) of the E sorted
 * entries gkey; a key whose run continues in the chunk before (after) goes
 * to slot[0] (slot[1]). */
template <class F> struct msm_aff_done {
    xyzz<F> *buckets;
    msm_part<F> *slot;
    const uint32_t *gkey;
    uint32_t c0, c1, E;
    CZ_DEV void put(uint32_t k, const affine<F> &p) const {
        const xyzz<F> x = xyzz<F>::from_affine(p);
        if (c0 > 0 && k == gkey[c0] && gkey[c0 - 1] == k) {
            slot[0].key = k;
            slot[0].p = x;
        } else if (c1 < E && k == gkey[c1 - 1] && gkey[c1] == k) {
            slot[1].key = k;
            slot[1].p = x;
        } else {
            buckets[k] = x;
        }
    }
};

/* The entries that are not pairs: KEEP to the output, DONE to the buckets. */
template <class F, bool L0>
__global__ void __launch_bounds__(256)
    k_msm_aff_rest(const msm_aff_src<F, L0> src, const msm_aff_role role,
                   const uint32_t *__restrict__ pos, uint32_t *__restrict__ okey,
                   affine<F> *__restrict__ opts, const msm_aff_done<F> done) {
    const uint32_t i = blockIdx.x * 256 + threadIdx.x;
    if (i >= role.n) return;
    const int r = role(i);
    if (r == AFF_KEEP) {
        const uint32_t o = pos[i];
        okey[o] = src.key[i];
        st16(&opts[o], src.point(i));
    } else if (r == AFF_DONE) {
        done.put(src.key[i], src.point(i));
    }
}

/* The chunks' partial sums into the buckets (one thread, in order). */
template <class F>
__global__ void k_msm_aff_slots(const msm_part<F> *slot, uint32_t n, xyzz<F> *buckets) {
    for (uint32_t i = 0; i < n; i++)
        if (slot[i].key != MSM_EMPTY) buckets[slot[i].key].add(slot[i].p);
}

/* The first sorted position holding the SENTINEL key (keys sorted). */
static __global__ void k_msm_count_real(const uint32_t *keys, uint32_t total, uint32_t sentinel,
                                        uint32_t *out) {
    uint32_t lo = 0, hi = total;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < sentinel)
            lo = mid + 1;
        else
            hi = mid;
    }
    *out = lo;
}

/* the level kernel's blocks (as batch addition's: 128 threads, 4 blocks
 * per SM) and the fewest pairs per thread that get a wave of their own */
#define MSM_AFF_BLOCK 128
#define MSM_AFF_K     32

/* Bump allocation from a region of cap bytes at base (256-byte aligned
 * pieces; base NULL: only counts). */
struct msm_carve {
    uintptr_t base;
    size_t used, cap;
    template <class T> bool take(T **out, size_t count) {
        const size_t b = (count * sizeof(T) + 255) & ~(size_t)255;
        if (b > cap - used) return false;
        *out = (T *)(base + used);
        used += b;
        return true;
    }
};

/* Step 3 by affine levels: sorted keys / values (total entries), buckets
 * zeroed. spare (spare_bytes) is device memory free during this step (the
 * sort's alternate buffers); the rest is allocated. */
template <class F>
static cz_status msm_affine_acc(const uint32_t *skeys, const uint32_t *svals, uint32_t total,
                                uint32_t sentinel, const affine<F> *points, xyzz<F> *buckets,
                                void *spare, size_t spare_bytes, cudaStream_t st, cz_error *err) {
    cz_status status = CZ_OK;
    uint32_t *d_small = NULL; /* [0] real entries, [1] pair count, [2] output count */
    char *own = NULL;
    msm_part<F> *slots = NULL;
    uint32_t E = 0, nchunks = 0, Nc = 0;
    size_t tmp_bytes = 0;
    CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&d_small, 4 * sizeof(uint32_t), st));
    k_msm_count_real<<<1, 1, 0, st>>>(skeys, total, sentinel, d_small);
    CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
    CZ_CUDA_GOTO(err, status, done, cudaMemcpyAsync(&E, d_small, 4, cudaMemcpyDeviceToHost, st));
    CZ_CUDA_GOTO(err, status, done, cudaStreamSynchronize(st));
    if (E == 0) goto done;
    {
        /* Chunk size: all entries when their scratch fits in twice the
         * sort's spare buffers (the spare, and as much again allocated),
         * else as many as fit that (at least 2^20) */
        const size_t per = 4 /* rs */ + 4 /* pos */ + 2 /* ps */ + sizeof(F) / 2 /* scr */ +
                           (sizeof(affine<F>) + 4) * 10 / 9 /* lists: 2/3 + 4/9 */;
        size_t want = (size_t)E;
        const size_t cap = (2 * spare_bytes) / per;
        if (want > cap && cap >= ((size_t)1 << 20)) want = cap;
        const size_t forced = cz_gpu_settings_get()->msm_affine_chunk;
        if (forced) want = forced < (size_t)E ? forced : (size_t)E;
        Nc = (uint32_t)want;
        nchunks = (uint32_t)((E + (size_t)Nc - 1) / Nc);
    }
    {
        /* the CUB temporaries for Nc + 1 entries */
        thrust::counting_iterator<uint32_t> it(0);
        size_t b1 = 0, b2 = 0, b3 = 0;
        msm_aff_role role{NULL, NULL, 0};
        CZ_CUDA_GOTO(err, status, done,
                     cub::DeviceScan::InclusiveScan(
                         NULL, b1, thrust::make_transform_iterator(it, msm_run_head{NULL}),
                         (uint32_t *)NULL, msm_max_u32(), (int)Nc + 1, st));
        CZ_CUDA_GOTO(err, status, done,
                     cub::DeviceScan::ExclusiveSum(
                         NULL, b2, thrust::make_transform_iterator(it, msm_aff_leaves{role}),
                         (uint32_t *)NULL, (int)Nc + 1, st));
        CZ_CUDA_GOTO(err, status, done,
                     cub::DeviceSelect::If(NULL, b3, it, (uint32_t *)NULL, (uint32_t *)NULL,
                                           (int)Nc + 1, msm_aff_is_pair{role}, st));
        tmp_bytes = b1 > b2 ? b1 : b2;
        if (b3 > tmp_bytes) tmp_bytes = b3;
    }
    {
        const size_t capA = (size_t)Nc * 2 / 3 + 2, capB = capA * 2 / 3 + 2;
        uint32_t *rs, *pos, *ps, *keyA, *keyB;
        affine<F> *ptsA, *ptsB;
        F *scr;
        void *tmp;
        /* pieces into the spare region first, then into one allocation */
        auto place = [&](msm_carve &a, msm_carve &b, bool keep) -> bool {
            msm_carve ca = a, cb = b;
            bool ok = true;
            auto put = [&](auto **out, size_t count) {
                if (!ca.take(out, count) && !cb.take(out, count)) ok = false;
            };
            put(&ptsA, capA);
            put(&ptsB, capB);
            put(&scr, (size_t)Nc / 2 + 1);
            put(&keyA, capA);
            put(&keyB, capB);
            put(&rs, (size_t)Nc + 1);
            put(&pos, (size_t)Nc + 1);
            put(&ps, (size_t)Nc / 2 + 1);
            put((char **)&tmp, tmp_bytes);
            put(&slots, 2 * (size_t)nchunks);
            if (keep) a = ca;
            b = cb;
            return ok;
        };
        /* the spare region from its first 256-byte boundary (total may be odd) */
        const uintptr_t sp0 = ((uintptr_t)spare + 255) & ~(uintptr_t)255;
        const size_t sp_bytes =
            spare_bytes > sp0 - (uintptr_t)spare ? spare_bytes - (sp0 - (uintptr_t)spare) : 0;
        msm_carve sp{sp0, 0, sp_bytes}, count{0, 0, SIZE_MAX / 2};
        msm_carve sp2 = sp;
        place(sp2, count, false);
        const size_t own_bytes = count.used;
        if (own_bytes) CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&own, own_bytes, st));
        msm_carve ownc{(uintptr_t)own, 0, own_bytes};
        if (!place(sp, ownc, true)) {
            status = cz_error_set(err, CZ_E_INTERNAL, "gpu msm: affine scratch layout");
            goto done;
        }
        CZ_CUDA_GOTO(err, status, done,
                     cudaMemsetAsync(slots, 0xff, 2 * (size_t)nchunks * sizeof *slots, st));
        thrust::counting_iterator<uint32_t> it(0);
        const size_t wave = pair_level_wave();
        /* CZ_GPU_MSM_PROFILE: levels, and the time in the scans, the pair
         * levels and the rest (synchronizes after every level) */
        const bool profile = cz_gpu_settings_get()->msm_profile != 0;
        cudaEvent_t ev[4];
        float t_scan = 0, t_pairs = 0, t_rest = 0;
        unsigned levels = 0;
        if (profile)
            for (int i = 0; i < 4; i++) cudaEventCreate(&ev[i]);
        for (uint32_t ch = 0; ch < nchunks; ch++) {
            const uint32_t c0 = ch * Nc, c1 = E - c0 > Nc ? c0 + Nc : E;
            const msm_aff_done<F> fin{buckets, slots + 2 * ch, skeys, c0, c1, E};
            uint32_t n = c1 - c0;
            const uint32_t *key = skeys + c0;
            bool l0 = true;
            int which = 0;
            while (n > 0) {
                if (profile) cudaEventRecord(ev[0], st);
                uint32_t *okey = which ? keyB : keyA;
                affine<F> *opts = which ? ptsB : ptsA;
                CZ_CUDA_GOTO(err, status, done,
                             cub::DeviceScan::InclusiveScan(
                                 tmp, tmp_bytes,
                                 thrust::make_transform_iterator(it, msm_run_head{key}), rs,
                                 msm_max_u32(), (int)n, st));
                const msm_aff_role role{key, rs, n};
                CZ_CUDA_GOTO(err, status, done,
                             cub::DeviceScan::ExclusiveSum(
                                 tmp, tmp_bytes,
                                 thrust::make_transform_iterator(it, msm_aff_leaves{role}), pos,
                                 (int)n + 1, st));
                CZ_CUDA_GOTO(err, status, done,
                             cub::DeviceSelect::If(tmp, tmp_bytes, it, ps, d_small + 1, (int)n,
                                                   msm_aff_is_pair{role}, st));
                if (profile) cudaEventRecord(ev[1], st);
                uint32_t h[2];
                CZ_CUDA_GOTO(err, status, done,
                             cudaMemcpyAsync(&h[0], d_small + 1, 4, cudaMemcpyDeviceToHost, st));
                CZ_CUDA_GOTO(err, status, done,
                             cudaMemcpyAsync(&h[1], pos + n, 4, cudaMemcpyDeviceToHost, st));
                CZ_CUDA_GOTO(err, status, done, cudaStreamSynchronize(st));
                const uint32_t q = h[0], nout = h[1];
                if (q > 0) {
                    /* a wave of threads with MSM_AFF_K pairs or more each;
                     * fewer threads (at least a block's) when the level has
                     * fewer pairs */
                    size_t T = q / MSM_AFF_K;
                    if (T > wave) T = wave;
                    if (T < MSM_AFF_BLOCK) T = q < MSM_AFF_BLOCK ? q : MSM_AFF_BLOCK;
                    const unsigned nb = cz_gpu_blocks(T, MSM_AFF_BLOCK);
                    if (l0)
                        k_pair_level<F, msm_aff_pairs<F, true>, MSM_AFF_BLOCK, 4>
                            <<<nb, MSM_AFF_BLOCK, 0, st>>>(
                                {{key, svals + c0, points}, ps, pos, okey, opts}, q, T, scr);
                    else
                        k_pair_level<F, msm_aff_pairs<F, false>, MSM_AFF_BLOCK, 4>
                            <<<nb, MSM_AFF_BLOCK, 0, st>>>(
                                {{key, NULL, which ? ptsA : ptsB}, ps, pos, okey, opts}, q, T, scr);
                    CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
                }
                if (profile) cudaEventRecord(ev[2], st);
                const unsigned nb = cz_gpu_blocks(n, 256);
                if (l0)
                    k_msm_aff_rest<F, true>
                        <<<nb, 256, 0, st>>>({key, svals + c0, points}, role, pos, okey, opts, fin);
                else
                    k_msm_aff_rest<F, false><<<nb, 256, 0, st>>>({key, NULL, which ? ptsA : ptsB},
                                                                 role, pos, okey, opts, fin);
                CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
                if (profile) {
                    float a, b, c;
                    cudaEventRecord(ev[3], st);
                    cudaEventSynchronize(ev[3]);
                    cudaEventElapsedTime(&a, ev[0], ev[1]);
                    cudaEventElapsedTime(&b, ev[1], ev[2]);
                    cudaEventElapsedTime(&c, ev[2], ev[3]);
                    t_scan += a, t_pairs += b, t_rest += c;
                    if (ch == 0)
                        cz_log(CZ_LOG_INFO,
                               "msm affine: chunk 0 level %u: %u entries, %u pairs: scans %.3f  "
                               "pairs %.3f  rest %.3f ms",
                               levels, n, q, a, b, c);
                }
                levels++;
                key = okey;
                n = nout;
                l0 = false;
                which ^= 1;
            }
        }
        k_msm_aff_slots<F><<<1, 1, 0, st>>>(slots, 2 * nchunks, buckets);
        CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
        if (profile) {
            cz_log(CZ_LOG_INFO,
                   "msm affine: %u entries, %u chunk(s) of <= %u, %u levels: scans %.2f  pairs "
                   "%.2f (incl. the host's wait)  rest %.2f ms",
                   E, nchunks, Nc, levels, t_scan, t_pairs, t_rest);
            for (int i = 0; i < 4; i++) cudaEventDestroy(ev[i]);
        }
    }
done:
    cudaFreeAsync(d_small, st);
    cudaFreeAsync(own, st);
    return status;
}

/* The whole MSM; out is a host pointer. */
template <class F>
static cz_status msm_run(jacobian<F> *out, const affine<F> *points, const fr_t *scalars, size_t n,
                         cz_error *err) {
    (void)out;
    if (n == 0) /* the callers answer n = 0 with the point at infinity */
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu msm: no points");
    if (n >= (1u << 31))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu msm: %zu points (max 2^31 - 1)", n);
    cudaStream_t st = 0;
    const unsigned c = msm_window(n);
    const unsigned W = (255 + c - 1) / c;
    const size_t M = (size_t)1 << (c - 1);
    const uint32_t sentinel = (uint32_t)(W * M);
    unsigned key_bits = 1;
    while (((uint64_t)1 << key_bits) <= sentinel) key_bits++;
    const size_t total = (size_t)W * n;
    if (total >= (1u << 31))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu msm: %zu digit pairs (max 2^31 - 1)",
                            total);
    /* sorted entries per accumulation thread: at least 2^18 threads when
     * there is work for them, at most 256 entries each (CZ_GPU_MSM_S
     * overrides, for experiments) */
    uint32_t S0 = total >> 18 > 256 ? 256 : (total >> 18 < 8 ? 8 : (uint32_t)(total >> 18));
    const cz_gpu_settings *knobs = cz_gpu_settings_get();
    if (knobs->msm_s) S0 = knobs->msm_s;
    const uint32_t SN = 16;
    const size_t T0 = (total + S0 - 1) / S0;

    cz_status status = CZ_OK;
    uint32_t *kv = NULL; /* keys, vals, keys_alt, vals_alt */
    void *sort_tmp = NULL;
    xyzz<F> *buckets = NULL;
    msm_part<F> *parts = NULL; /* raw partials: 2 T0; compacted: 2 T0 */
    int *d_count = NULL;
    xyzz<F> *red = NULL;
    jacobian<F> *d_out = NULL;
    size_t sort_bytes = 0, sel_bytes = 0;

    CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&kv, 4 * total * sizeof(uint32_t), st));
    {
        cub::DoubleBuffer<uint32_t> dk(kv, kv + 2 * total), dv(kv + total, kv + 3 * total);
        CZ_CUDA_GOTO(err, status, done,
                     cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, dk, dv, (int)total, 0,
                                                     (int)key_bits, st));
    }
    /* DeviceSelect::If's size query (temp pointer NULL) */
    CZ_CUDA_GOTO(err, status, done,
                 cub::DeviceSelect::If(NULL, sel_bytes, (msm_part<F> *)NULL, (msm_part<F> *)NULL,
                                       (int *)NULL, (int)(2 * T0), part_valid(), st));
    CZ_CUDA_GOTO(err, status, done,
                 cudaMallocAsync(&sort_tmp, sort_bytes > sel_bytes ? sort_bytes : sel_bytes, st));
    CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&buckets, W * M * sizeof(xyzz<F>), st));
    /* batch-affine accumulation for n >= CZ_GPU_MSM_AFFINE (0: never) */
    bool affine_acc; /* not an initializer: the gotos above jump past it */
    affine_acc = knobs->msm_affine && n >= knobs->msm_affine && ((uintptr_t)points & 15) == 0;
    if (!affine_acc)
        CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&parts, 4 * T0 * sizeof(msm_part<F>), st));
    CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&d_count, sizeof(int), st));
    CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&d_out, sizeof(jacobian<F>), st));

    /* CZ_GPU_MSM_PROFILE=1 prints the time of each step (stderr) */
    int profile; /* not an initializer: the gotos above jump past it */
    profile = knobs->msm_profile;
    cudaEvent_t ev[6];
    if (profile)
        for (int i = 0; i < 6; i++) cudaEventCreate(&ev[i]);
    if (profile) cudaEventRecord(ev[0], st);
    /* 1. digits */
    k_msm_digits<<<cz_gpu_blocks(n, 256), 256, 0, st>>>(scalars, n, c, W, kv, kv + total);
    CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
    if (profile) cudaEventRecord(ev[1], st);
    /* 2. sort */
    uint32_t *skeys, *svals;
    {
        cub::DoubleBuffer<uint32_t> dk(kv, kv + 2 * total), dv(kv + total, kv + 3 * total);
        CZ_CUDA_GOTO(err, status, done,
                     cub::DeviceRadixSort::SortPairs(sort_tmp, sort_bytes, dk, dv, (int)total, 0,
                                                     (int)key_bits, st));
        skeys = dk.Current();
        svals = dv.Current();
    }
    if (profile) cudaEventRecord(ev[2], st);
    /* 3. accumulate */
    CZ_CUDA_GOTO(err, status, done, cudaMemsetAsync(buckets, 0, W * M * sizeof(xyzz<F>), st));
    if (affine_acc) {
        /* the sort's other buffers are free now */
        uint32_t *spare = skeys == kv ? kv + 2 * total : kv;
        status = msm_affine_acc<F>(skeys, svals, (uint32_t)total, sentinel, points, buckets, spare,
                                   2 * total * sizeof(uint32_t), st, err);
        if (status != CZ_OK) goto done;
    } else {
        msm_acc0_launch<F>(T0, st, skeys, svals, (uint32_t)total, S0, sentinel, points, buckets,
                           parts);
    }
    CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
    if (profile) cudaEventRecord(ev[3], st);
    if (!affine_acc) {
        msm_part<F> *raw = parts, *packed = parts + 2 * T0;
        size_t nraw = 2 * T0;
        for (;;) {
            int cnt = 0;
            CZ_CUDA_GOTO(err, status, done,
                         cub::DeviceSelect::If(sort_tmp, sel_bytes, raw, packed, d_count, (int)nraw,
                                               part_valid(), st));
            CZ_CUDA_GOTO(err, status, done,
                         cudaMemcpyAsync(&cnt, d_count, sizeof cnt, cudaMemcpyDeviceToHost, st));
            CZ_CUDA_GOTO(err, status, done, cudaStreamSynchronize(st));
            if (cnt == 0) break;
            size_t T = ((size_t)cnt + SN - 1) / SN;
            k_msm_accn<F>
                <<<cz_gpu_blocks(T, 128), 128, 0, st>>>(packed, (size_t)cnt, SN, buckets, raw);
            CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
            nraw = 2 * T;
        }
    }
    if (profile) cudaEventRecord(ev[4], st);
    /* 4. bucket reduction */
    {
        const unsigned L = 1u << MSM_SEG_LOG;
        std::vector<size_t> sizes; /* M_k per window */
        size_t m = M;
        while (m > L) {
            m = (m + L - 1) / L;
            sizes.push_back(m);
        }
        const unsigned d = (unsigned)sizes.size();
        /* scratch: per level LW_k and PS_k (W * M_k each), plain-reduction
         * ping-pong, F_d, G, G(LW_k) */
        size_t need = 0;
        for (size_t s : sizes) need += 2 * W * s;
        size_t pp = sizes.empty() ? 1 : sizes[0];
        need += 2 * W * pp + 2 * W + (size_t)d * W;
        CZ_CUDA_GOTO(err, status, done, cudaMallocAsync(&red, need * sizeof(xyzz<F>), st));
        xyzz<F> *p = red;
        std::vector<xyzz<F> *> lw(d), ps(d);
        for (unsigned k = 0; k < d; k++) {
            lw[k] = p;
            ps[k] = p + W * sizes[k];
            p += 2 * W * sizes[k];
        }
        xyzz<F> *pa = p, *pb = p + W * pp;
        p += 2 * W * pp;
        xyzz<F> *fd = p, *g = p + W, *glw = p + 2 * W;
        const xyzz<F> *cur = buckets;
        size_t curm = M;
        for (unsigned k = 0; k < d; k++) {
            size_t th = (size_t)W * sizes[k];
            k_msm_runsum<F><<<cz_gpu_blocks(th, 128), 128, 0, st>>>(cur, curm, L, W, lw[k], ps[k]);
            CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
            cur = ps[k];
            curm = sizes[k];
        }
        /* top: F(X_d) and G(X_d) = G(X_0) */
        k_msm_runsum<F><<<1, 64, 0, st>>>(cur, curm, (unsigned)curm, W, fd, g);
        CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
        /* G(LW_k): plain sums, 16 at a time */
        for (unsigned k = 0; k < d; k++) {
            const xyzz<F> *src = lw[k];
            size_t sm = sizes[k];
            xyzz<F> *bufs[2] = {pa, pb};
            int which = 0;
            while (sm > 1) {
                size_t om = (sm + L - 1) / L;
                xyzz<F> *dst = om == 1 ? glw + (size_t)k * W : bufs[which];
                k_msm_runsum<F>
                    <<<cz_gpu_blocks((size_t)W * om, 128), 128, 0, st>>>(src, sm, L, W, NULL, dst);
                CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
                src = dst;
                sm = om;
                which ^= 1;
            }
            if (src != glw + (size_t)k * W)
                CZ_CUDA_GOTO(err, status, done,
                             cudaMemcpyAsync(glw + (size_t)k * W, src, W * sizeof(xyzz<F>),
                                             cudaMemcpyDeviceToDevice, st));
        }
        k_msm_combine<F><<<1, 64, 0, st>>>(fd, g, glw, d, W, c, d_out);
        CZ_CUDA_GOTO(err, status, done, cudaGetLastError());
    }
    CZ_CUDA_GOTO(err, status, done,
                 cudaMemcpyAsync(out, d_out, sizeof *out, cudaMemcpyDeviceToHost, st));
    CZ_CUDA_GOTO(err, status, done, cudaStreamSynchronize(st));
    if (profile) {
        cudaEventRecord(ev[5], st);
        cudaEventSynchronize(ev[5]);
        float t[5];
        for (int i = 0; i < 5; i++) cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
        cz_log(CZ_LOG_INFO,
               "msm n=%zu c=%u: digits %.2f  sort %.2f  acc %.2f  partials %.2f  reduce %.2f ms", n,
               c, t[0], t[1], t[2], t[3], t[4]);
        for (int i = 0; i < 6; i++) cudaEventDestroy(ev[i]);
    }
done:
    cudaFreeAsync(kv, st);
    cudaFreeAsync(sort_tmp, st);
    cudaFreeAsync(buckets, st);
    cudaFreeAsync(parts, st);
    cudaFreeAsync(d_count, st);
    cudaFreeAsync(red, st);
    cudaFreeAsync(d_out, st);
    (void)cudaStreamSynchronize(st);
    return status;
}

} // namespace cz_gpu

#endif
