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
#include "util/cancel.h"
#include "util/log.h"

namespace cz_gpu {

#define MSM_EMPTY   0xffffffffu
#define MSM_SEG_LOG 4 /* bucket reduction segments of 16 */
/* The accumulation's launches (step boundaries between them) and the
 * fewest threads one takes (a multiple of the block; 2^16 threads hold at
 * most 2^24 sorted entries), so small MSMs stay one launch. */
#define MSM_ACC_PIECES    4
#define MSM_ACC_PIECE_MIN ((size_t)1 << 16)

/* The events of CZ_GPU_MSM_PROFILE; without them the MSM runs unprofiled
 * (the failure cleared). */
template <int N> static bool profile_events(event_set<N> &ev) {
    if (ev.create() == cudaSuccess) return true;
    (void)cudaGetLastError();
    return false;
}

/* The window for n points: cz_gpu_msm_window_bits (plan.c), which the
 * memory plan counts the scratch with. */
static inline unsigned msm_window(size_t n, bool g2) {
    return cz_gpu_msm_window_bits(n, g2 ? 1 : 0);
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
 * total < 2^31 (msm_run), so positions fit 32 bits. Thread t = t0 + its
 * index in the grid (a launch covers the threads from t0 on: the
 * accumulation runs in pieces, msm_steps). */
template <class F, int BS, int MAXR, bool VEC, bool SM>
__global__ void __launch_bounds__(BS) __maxnreg__(MAXR)
    k_msm_acc0(uint32_t t0, const uint32_t *keys, const uint32_t *vals, uint32_t total, uint32_t S,
               uint32_t sentinel, const affine<F> *points, xyzz<F> *buckets, msm_part<F> *parts,
               bool carry) {
    const uint32_t t = t0 + blockIdx.x * BS + threadIdx.x;
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
    /* a bucket's running sum starts at infinity, or (carry: a carried sum,
     * msm_sum_add) at what earlier accumulations left in the bucket, in the
     * thread where the bucket's entries start: a bucket's partial sums then
     * hold that value once, and a finished bucket is stored whole */
    auto acc_set = [&](const xyzz<F> &p) {
        if (SM)
            sacc.set(p);
        else
            acc_r = p;
    };
    auto acc_start = [&]() { acc_set(carry ? buckets[cur] : xyzz<F>::inf()); };
    if (prev_cont)
        acc_set(xyzz<F>::inf());
    else
        acc_start();
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
            acc_start();
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
 * the next point (no change). For G2, 3 capped at 168 registers (12 warps
 * per SM instead of 8, 68 bytes of spills) was 8 % slower (2026-12-03:
 * 2^24 accumulation 338 against 312 ms, 2^26 1233 against 1136 ms). */
template <class F>
static void msm_acc0_launch(size_t t0, size_t count, cudaStream_t st, const uint32_t *keys,
                            const uint32_t *vals, uint32_t total, uint32_t S, uint32_t sentinel,
                            const affine<F> *points, xyzz<F> *buckets, msm_part<F> *parts,
                            bool carry) {
#define MSM_ACC0(MAXR, VEC, SM)                                                                    \
    k_msm_acc0<F, 128, MAXR, VEC, SM><<<cz_gpu_blocks(count, 128), 128, 0, st>>>(                  \
        (uint32_t)t0, keys, vals, total, S, sentinel, points, buckets, parts, carry)
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
 * of Nc. A level reads a list sorted by key (level 0: the sorted keys with
 * their point indices and signs; later levels: (key, affine point) lists)
 * in slots j = (2j, 2j+1):
 *   - if both entries have the same key they are a pair, and their sum goes
 *     to the output;
 *   - else entry 2j+1 and entry 2j+2 are a pair when they are a run of
 *     exactly two (which no slot would pair otherwise), and slot j + 1 then
 *     skips its first entry;
 *   - an entry left alone goes to the output as it is, unless its run has
 *     no other entry: then it is its bucket's sum, written to the bucket.
 * Every run of two or more entries gets a pair per level, so the levels end;
 * runs about halve (a run of 4 starting at an odd position keeps 3: the
 * outputs are at most 3/4 of the inputs). A slot's outputs stay in key
 * order at positions given by an exclusive scan of its output counts: one
 * CUB scan and one pair kernel per level.
 *
 * A level that does not fill a wave of threads costs about its inversion's
 * latency (~1.3 ms), so a chunk's levels stop when fewer than tail_min
 * entries are left, and what is left of every chunk is appended to one tail
 * list, summed by levels at the end (still sorted by key: the chunks are in
 * key order). A key whose run crosses a chunk boundary (the chunk's first
 * or last key) is never finished inside the chunk: its last entry is kept
 * and meets the neighbour chunk's in the tail. */

/* A level's keys: n sorted entries; keep_lo / keep_hi (MSM_EMPTY: none)
 * are keys whose runs go on outside the list, never finished in it. */
struct msm_level {
    const uint32_t *key;
    uint32_t n, keep_lo, keep_hi;
    /* an entry alone: 1 kept, 2 its bucket's sum */
    __host__ __device__ int alone(uint32_t k, bool run_goes_on) const {
        return run_goes_on || k == keep_lo || k == keep_hi ? 1 : 2;
    }
};

/* What slot j of a level does. */
struct msm_slot_plan {
    uint32_t i0; /* 2j */
    bool pair01; /* (2j, 2j+1) a pair */
    bool pair12; /* (2j+1, 2j+2) a pair: a run of exactly two */
    bool skip0;  /* 2j taken by slot j - 1's pair12 */
    int single0; /* 2j alone: 0 none, 1 kept, 2 its bucket's sum */
    int single1; /* 2j+1 alone: the same */
    __host__ __device__ unsigned outputs() const {
        return (pair01 || pair12) + (single0 == 1) + (single1 == 1);
    }
};

/* 2j + 1 and 2j + 2 are a run of exactly two that starts at 2j + 1. */
static __host__ __device__ inline bool msm_slot_pair12(const uint32_t *key, uint32_t n,
                                                       uint32_t j) {
    const uint32_t i1 = 2 * j + 1, i2 = i1 + 1;
    if (i2 >= n) return false;
    const uint32_t k = key[i1];
    return key[2 * j] != k && key[i2] == k && (i2 + 1 >= n || key[i2 + 1] != k);
}

static __host__ __device__ inline msm_slot_plan msm_slot(const msm_level &lv, uint32_t j) {
    const uint32_t *key = lv.key, n = lv.n;
    msm_slot_plan p;
    const uint32_t i0 = 2 * j, i1 = i0 + 1;
    p.i0 = i0;
    p.pair01 = p.pair12 = p.skip0 = false;
    p.single0 = p.single1 = 0;
    const uint32_t k0 = key[i0];
    if (i1 < n && key[i1] == k0) {
        p.pair01 = true;
        return p;
    }
    p.skip0 = j > 0 && msm_slot_pair12(key, n, j - 1);
    /* alone: kept when its run goes on before it (it does not go on after) */
    if (!p.skip0) p.single0 = lv.alone(k0, i0 > 0 && key[i0 - 1] == k0);
    if (i1 < n) {
        p.pair12 = msm_slot_pair12(key, n, j);
        /* 2j+1 starts its run (its key is not 2j's) */
        if (!p.pair12) p.single1 = lv.alone(key[i1], i1 + 1 < n && key[i1 + 1] == key[i1]);
    }
    return p;
}

/* Slot j's output count (j == slots: 0, for the scan's total). */
struct msm_slot_count {
    msm_level lv;
    uint32_t slots;
    __host__ __device__ uint32_t operator()(uint32_t j) const {
        return j < slots ? msm_slot(lv, j).outputs() : 0;
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

/* The slots of a level for k_pair_level: a slot without a pair passes two
 * infinities (denominator 1, its sum unused); put writes the slot's outputs
 * from position pos[j] on, in key order, and its finished buckets. */
template <class F, bool L0> struct msm_aff_slots {
    msm_aff_src<F, L0> src;
    msm_level lv;
    const uint32_t *__restrict__ pos;
    uint32_t *__restrict__ okey;
    affine<F> *__restrict__ opts;
    xyzz<F> *__restrict__ buckets;
    CZ_DEV void prologue(size_t) const {}
    CZ_DEV F den(size_t j) const {
        const msm_slot_plan p = msm_slot(lv, (uint32_t)j);
        if (!p.pair01 && !p.pair12) return F::one();
        const uint32_t i = p.pair01 ? p.i0 : p.i0 + 1;
        /* the sign changes y only: x is read from the bases as it is */
        return pair_den(
            ld16(&src.at(i)->x), ld16(&src.at(i + 1)->x), [&] { return src.point(i).y; },
            [&] { return src.point(i + 1).y; });
    }
    CZ_DEV void load(size_t j, affine<F> &a, affine<F> &b) const {
        const msm_slot_plan p = msm_slot(lv, (uint32_t)j);
        if (!p.pair01 && !p.pair12) {
            a = b = affine<F>::inf();
            return;
        }
        const uint32_t i = p.pair01 ? p.i0 : p.i0 + 1;
        a = src.point(i);
        b = src.point(i + 1);
    }
    CZ_DEV void emit(uint32_t &o, uint32_t k, const affine<F> &v) const {
        okey[o] = k;
        st16(&opts[o], v);
        o++;
    }
    CZ_DEV void single(uint32_t &o, int how, uint32_t i) const {
        if (how == 1)
            emit(o, src.key[i], src.point(i));
        else if (how == 2)
            buckets[src.key[i]] = xyzz<F>::from_affine(src.point(i));
    }
    CZ_DEV void put(size_t j, const affine<F> &r) const {
        const msm_slot_plan p = msm_slot(lv, (uint32_t)j);
        uint32_t o = pos[j];
        if (p.pair01) {
            emit(o, src.key[p.i0], r);
            return;
        }
        single(o, p.single0, p.i0);
        if (p.pair12)
            emit(o, src.key[p.i0 + 1], r);
        else
            single(o, p.single1, p.i0 + 1);
    }
};

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
 * per SM) and the fewest slots per thread that get a wave of their own */
#define MSM_AFF_BLOCK 128
#define MSM_AFF_K     32

/* Bump allocation from a region of cap bytes at base (256-byte aligned
 * pieces; base 0: only counts). */
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

/* The scratch of msm_affine_acc and its level loop's state. */
template <class F> struct msm_aff_run {
    const uint32_t *svals; /* level 0's values (the chunk's: offset by c0) */
    const affine<F> *points;
    xyzz<F> *buckets;
    uint32_t *pos, *key_ab[2];
    affine<F> *pts_ab[2];
    F *scr;
    void *tmp;
    size_t tmp_bytes, wave;
    cudaStream_t st;
    /* CZ_GPU_MSM_PROFILE: levels, and the time in the scans and the pair
     * levels (synchronizes after every level) */
    bool profile;
    cudaEvent_t ev[3];
    float t_scan, t_pairs;
    unsigned levels;
};

/* Levels over the list (key, pts; level 0 when pts is NULL: the bases
 * through r.svals) of *n entries while *n >= stop (and a level makes
 * progress: a list of kept keys only stays), at least one when pts is NULL.
 * On return (*key, *pts, *n) is what is left, in one of r's lists. what
 * names the list in the profile. */
template <class F>
static cz_status msm_aff_levels(msm_aff_run<F> &r, const uint32_t **key, const affine<F> **pts,
                                uint32_t *n, uint32_t keep_lo, uint32_t keep_hi, uint32_t stop,
                                const char *what, cz_error *err) {
    thrust::counting_iterator<uint32_t> it(0);
    const cudaStream_t st = r.st;
    while (*n > 0 && (*pts == NULL || *n >= stop)) {
        if (r.profile) cudaEventRecord(r.ev[0], st);
        /* the output list: the one the input is not */
        const int w = *key == r.key_ab[0] ? 1 : 0;
        uint32_t *okey = r.key_ab[w];
        affine<F> *opts = r.pts_ab[w];
        const msm_level lv{*key, *n, keep_lo, keep_hi};
        const uint32_t q = (*n + 1) / 2; /* slots */
        CZ_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(
                             r.tmp, r.tmp_bytes,
                             thrust::make_transform_iterator(it, msm_slot_count{lv, q}), r.pos,
                             (int)q + 1, st));
        if (r.profile) cudaEventRecord(r.ev[1], st);
        /* a wave of threads with MSM_AFF_K slots or more each; fewer threads
         * (at least a block's) when the level is smaller */
        size_t T = q / MSM_AFF_K;
        if (T > r.wave) T = r.wave;
        if (T < MSM_AFF_BLOCK) T = q < MSM_AFF_BLOCK ? q : MSM_AFF_BLOCK;
        const unsigned nb = cz_gpu_blocks(T, MSM_AFF_BLOCK);
        if (*pts == NULL)
            k_pair_level<F, msm_aff_slots<F, true>, MSM_AFF_BLOCK, 4><<<nb, MSM_AFF_BLOCK, 0, st>>>(
                {{*key, r.svals, r.points}, lv, r.pos, okey, opts, r.buckets}, q, T, r.scr);
        else
            k_pair_level<F, msm_aff_slots<F, false>, MSM_AFF_BLOCK, 4>
                <<<nb, MSM_AFF_BLOCK, 0, st>>>(
                    {{*key, NULL, *pts}, lv, r.pos, okey, opts, r.buckets}, q, T, r.scr);
        CZ_CUDA_LAUNCHED(err);
        uint32_t nout = 0;
        CZ_CUDA_TRY(err, cudaMemcpyAsync(&nout, r.pos + q, 4, cudaMemcpyDeviceToHost, st));
        CZ_CUDA_TRY(err, cudaStreamSynchronize(st));
        if (r.profile) {
            float a, b;
            cudaEventRecord(r.ev[2], st);
            cudaEventSynchronize(r.ev[2]);
            cudaEventElapsedTime(&a, r.ev[0], r.ev[1]);
            cudaEventElapsedTime(&b, r.ev[1], r.ev[2]);
            r.t_scan += a, r.t_pairs += b;
            if (what)
                cz_log(CZ_LOG_INFO,
                       "msm affine: %s level: %u entries, %u left: scan %.3f  pairs %.3f ms", what,
                       *n, nout, a, b);
        }
        r.levels++;
        const bool stuck = nout == *n && *pts != NULL;
        *key = okey;
        *pts = opts;
        *n = nout;
        if (stuck) break;
    }
    return CZ_OK;
}

/* Step 3 by affine levels: sorted keys / values (total entries), buckets
 * zeroed. spare (spare_bytes) is device memory free during this step (the
 * sort's alternate buffers); the rest is allocated. */
template <class F>
static cz_status msm_affine_acc(const uint32_t *skeys, const uint32_t *svals, uint32_t total,
                                uint32_t sentinel, const affine<F> *points, xyzz<F> *buckets,
                                void *spare, size_t spare_bytes, cudaStream_t st, cz_error *err) {
    cz_status status = CZ_OK;
    dev_buf<uint32_t> d_small; /* the real entries' count */
    dev_buf<char> own;
    uint32_t E = 0, nchunks = 0, Nc = 0, tail_min = 0, Nmax = 0;
    msm_aff_run<F> r;
    memset(&r, 0, sizeof r);
    r.points = points, r.buckets = buckets, r.st = st, r.wave = pair_level_wave();
    event_set<3> ev;
    r.profile = cz_gpu_settings_get()->msm_profile != 0 && profile_events(ev);
    for (int i = 0; i < 3; i++) r.ev[i] = ev[i];
    CZ_CUDA_TRY(err, d_small.alloc_async(1, st));
    k_msm_count_real<<<1, 1, 0, st>>>(skeys, total, sentinel, d_small);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaMemcpyAsync(&E, d_small, 4, cudaMemcpyDeviceToHost, st));
    CZ_CUDA_TRY(err, cudaStreamSynchronize(st));
    if (E == 0) return CZ_OK;
    {
        /* Chunk size: all entries when their scratch fits in twice the
         * sort's spare buffers (the spare, and as much again allocated),
         * else as many as fit that (at least 2^20) */
        const size_t per = 2 /* pos */ + sizeof(F) / 2 /* scr */ +
                           (sizeof(affine<F>) + 4) * 25 / 16 /* lists 3/4 + 9/16, tail 1/4 */;
        size_t want = (size_t)E;
        const size_t cap = (2 * spare_bytes) / per;
        if (want > cap && cap >= ((size_t)1 << 20)) want = cap;
        const size_t forced = cz_gpu_settings_get()->msm_affine_chunk;
        if (forced) want = forced < (size_t)E ? forced : (size_t)E;
        Nc = (uint32_t)want;
        nchunks = (uint32_t)((E + (size_t)Nc - 1) / Nc);
        /* a chunk's levels stop below a wave's worth of slots; the tail
         * holds at most a quarter chunk (and 3 entries a chunk: two kept
         * keys and one more) */
        size_t tm = 2 * r.wave * MSM_AFF_K;
        if (tm > Nc / 4 / nchunks) tm = Nc / 4 / nchunks;
        tail_min = tm < 3 ? 3 : (uint32_t)tm;
    }
    /* the longest list a level reads: a chunk or the tail */
    Nmax = (size_t)nchunks * tail_min > Nc ? (uint32_t)((size_t)nchunks * tail_min) : Nc;
    /* the scan's temporary for Nmax / 2 + 2 slots */
    CZ_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(
                         NULL, r.tmp_bytes,
                         thrust::make_transform_iterator(thrust::counting_iterator<uint32_t>(0),
                                                         msm_slot_count{{NULL, 0, 0, 0}, 0}),
                         (uint32_t *)NULL, (int)(Nmax / 2 + 2), st));
    {
        const size_t capA = (size_t)Nmax * 3 / 4 + 2, capB = capA * 3 / 4 + 2;
        const size_t capT = (size_t)nchunks * tail_min;
        uint32_t *tkey;
        affine<F> *tpts;
        /* pieces into the spare region first, then into one allocation */
        auto place = [&](msm_carve &a, msm_carve &b, bool keep) -> bool {
            msm_carve ca = a, cb = b;
            bool ok = true;
            auto put = [&](auto **out, size_t count) {
                if (!ca.take(out, count) && !cb.take(out, count)) ok = false;
            };
            put(&r.pts_ab[0], capA);
            put(&r.pts_ab[1], capB);
            put(&tpts, capT);
            put(&r.scr, (size_t)Nmax / 2 + 1);
            put(&r.key_ab[0], capA);
            put(&r.key_ab[1], capB);
            put(&tkey, capT);
            put(&r.pos, (size_t)Nmax / 2 + 2);
            put((char **)&r.tmp, r.tmp_bytes);
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
        if (own_bytes) CZ_CUDA_TRY(err, own.alloc_async(own_bytes, st));
        msm_carve ownc{(uintptr_t)own.get(), 0, own_bytes};
        if (!place(sp, ownc, true))
            return cz_error_set(err, CZ_E_INTERNAL, "gpu msm: affine scratch layout");
        uint32_t tail_n = 0;
        for (uint32_t ch = 0; ch < nchunks; ch++) {
            const uint32_t c0 = ch * Nc, c1 = E - c0 > Nc ? c0 + Nc : E;
            /* the keys whose runs cross the chunk's ends */
            uint32_t edge[4] = {MSM_EMPTY, MSM_EMPTY, MSM_EMPTY, MSM_EMPTY};
            if (c0 > 0)
                CZ_CUDA_TRY(err,
                            cudaMemcpyAsync(edge, skeys + c0 - 1, 8, cudaMemcpyDeviceToHost, st));
            if (c1 < E)
                CZ_CUDA_TRY(
                    err, cudaMemcpyAsync(edge + 2, skeys + c1 - 1, 8, cudaMemcpyDeviceToHost, st));
            CZ_CUDA_TRY(err, cudaStreamSynchronize(st));
            const uint32_t keep_lo = c0 > 0 && edge[0] == edge[1] ? edge[1] : MSM_EMPTY;
            const uint32_t keep_hi = c1 < E && edge[2] == edge[3] ? edge[2] : MSM_EMPTY;
            const uint32_t *key = skeys + c0;
            const affine<F> *pts = NULL;
            uint32_t n = c1 - c0;
            r.svals = svals + c0;
            status = msm_aff_levels(r, &key, &pts, &n, keep_lo, keep_hi, tail_min,
                                    ch == 0 ? "chunk 0" : NULL, err);
            if (status != CZ_OK) return status;
            if (n > capT - tail_n)
                return cz_error_set(err, CZ_E_INTERNAL,
                                    "gpu msm: chunk %u leaves %u entries for a tail of %zu", ch, n,
                                    capT - tail_n);
            CZ_CUDA_TRY(err, cudaMemcpyAsync(tkey + tail_n, key, (size_t)n * 4,
                                             cudaMemcpyDeviceToDevice, st));
            CZ_CUDA_TRY(err, cudaMemcpyAsync(tpts + tail_n, pts, (size_t)n * sizeof *pts,
                                             cudaMemcpyDeviceToDevice, st));
            tail_n += n;
        }
        {
            const uint32_t *key = tkey;
            const affine<F> *pts = tpts;
            uint32_t n = tail_n;
            status = msm_aff_levels(r, &key, &pts, &n, MSM_EMPTY, MSM_EMPTY, 0, "tail", err);
            if (status != CZ_OK) return status;
            if (n != 0) return cz_error_set(err, CZ_E_INTERNAL, "gpu msm: %u tail entries left", n);
        }
        if (r.profile)
            cz_log(CZ_LOG_INFO,
                   "msm affine: %u entries, %u chunk(s) of <= %u, tail %u, %u levels: scans %.2f  "
                   "pairs %.2f ms",
                   E, nchunks, Nc, tail_n, r.levels, r.t_scan, r.t_pairs);
    }
    return CZ_OK;
}

/* The window's figures: c bits, W windows of M buckets; zero digits get the
 * key sentinel = W M, which the sort's key_bits cover. */
struct msm_shape {
    unsigned c, W, key_bits;
    size_t M;
    uint32_t sentinel;
    explicit msm_shape(unsigned bits) : c(bits), W((255 + bits - 1) / bits), key_bits(1) {
        M = (size_t)1 << (c - 1);
        sentinel = (uint32_t)(W * M);
        while (((uint64_t)1 << key_bits) <= sentinel) key_bits++;
    }
};

/* Steps 1-3 for n points: their digits sorted and summed into buckets
 * (W M of them). Without carry the buckets are zeroed first; with carry the
 * sums are added to what the buckets hold (a carried sum, msm_sum_add). ev:
 * CZ_GPU_MSM_PROFILE's events 0-4, or NULL. The scratch is freed
 * (stream-ordered) when it returns. */
template <class F>
static cz_status msm_accumulate(xyzz<F> *buckets, bool carry, const msm_shape &sh,
                                const affine<F> *points, const fr_t *scalars, size_t n,
                                event_set<6> *ev, cz_error *err) {
    if (n >= (1u << 31))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu msm: %zu points (max 2^31 - 1)", n);
    cudaStream_t st = 0;
    const unsigned W = sh.W;
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

    dev_buf<uint32_t> kv; /* keys, vals, keys_alt, vals_alt */
    dev_buf<char> sort_tmp;
    dev_buf<msm_part<F>> parts; /* raw partials: 2 T0; compacted: 2 T0 */
    dev_buf<int> d_count;
    size_t sort_bytes = 0, sel_bytes = 0;

    CZ_CUDA_TRY(err, kv.alloc_async(4 * total, st));
    {
        cub::DoubleBuffer<uint32_t> dk(kv, kv + 2 * total), dv(kv + total, kv + 3 * total);
        CZ_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, dk, dv, (int)total, 0,
                                                         (int)sh.key_bits, st));
    }
    /* DeviceSelect::If's size query (temp pointer NULL) */
    CZ_CUDA_TRY(err,
                cub::DeviceSelect::If(NULL, sel_bytes, (msm_part<F> *)NULL, (msm_part<F> *)NULL,
                                      (int *)NULL, (int)(2 * T0), part_valid(), st));
    CZ_CUDA_TRY(err, sort_tmp.alloc_async(sort_bytes > sel_bytes ? sort_bytes : sel_bytes, st));
    /* batch-affine accumulation for n >= CZ_GPU_MSM_AFFINE (0: never); it
     * writes buckets whole, so not for a carried sum */
    const bool affine_acc =
        !carry && knobs->msm_affine && n >= knobs->msm_affine && ((uintptr_t)points & 15) == 0;
    if (!affine_acc) CZ_CUDA_TRY(err, parts.alloc_async(4 * T0, st));
    CZ_CUDA_TRY(err, d_count.alloc_async(1, st));

    if (ev) cudaEventRecord((*ev)[0], st);
    /* 1. digits */
    k_msm_digits<<<cz_gpu_blocks(n, 256), 256, 0, st>>>(scalars, n, sh.c, W, kv, kv + total);
    CZ_CUDA_TRY(err, cudaGetLastError());
    if (ev) cudaEventRecord((*ev)[1], st);
    /* 2. sort */
    uint32_t *skeys, *svals;
    {
        cub::DoubleBuffer<uint32_t> dk(kv, kv + 2 * total), dv(kv + total, kv + 3 * total);
        CZ_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(sort_tmp.get(), sort_bytes, dk, dv,
                                                         (int)total, 0, (int)sh.key_bits, st));
        skeys = dk.Current();
        svals = dv.Current();
    }
    if (ev) cudaEventRecord((*ev)[2], st);
    /* 3. accumulate */
    if (!carry) CZ_CUDA_TRY(err, cudaMemsetAsync(buckets, 0, W * sh.M * sizeof(xyzz<F>), st));
    if (affine_acc) {
        /* the sort's other buffers are free now */
        uint32_t *spare = skeys == kv ? kv + 2 * total : kv;
        const cz_status status =
            msm_affine_acc<F>(skeys, svals, (uint32_t)total, sh.sentinel, points, buckets, spare,
                              2 * total * sizeof(uint32_t), st, err);
        if (status != CZ_OK) return status;
    } else {
        /* in up to MSM_ACC_PIECES launches of whole blocks, with a step
         * boundary (util/cancel.h) between them: a higher-priority unit
         * (a WinningPoSt inside a PoRep partition) runs there beside this
         * MSM's scratch, so it waits for a piece of the accumulation (~0.16
         * s of a 2^27 G1 MSM's 0.62), not all of it; a cancel stops there.
         * The pieces write what one launch would: every thread owns its
         * entries and its two partial slots. */
        size_t piece = (T0 + MSM_ACC_PIECES - 1) / MSM_ACC_PIECES;
        piece = (piece + 127) / 128 * 128;
        if (piece < MSM_ACC_PIECE_MIN) piece = MSM_ACC_PIECE_MIN;
        for (size_t t0 = 0; t0 < T0; t0 += piece) {
            if (t0 && cz_step_boundary())
                return cz_error_set(err, CZ_E_CANCELLED, "gpu msm: cancelled in the accumulation");
            msm_acc0_launch<F>(t0, T0 - t0 < piece ? T0 - t0 : piece, st, skeys, svals,
                               (uint32_t)total, S0, sh.sentinel, points, buckets, parts, carry);
            CZ_CUDA_TRY(err, cudaGetLastError());
        }
    }
    CZ_CUDA_TRY(err, cudaGetLastError());
    if (ev) cudaEventRecord((*ev)[3], st);
    if (!affine_acc) {
        msm_part<F> *raw = parts, *packed = parts + 2 * T0;
        size_t nraw = 2 * T0;
        for (;;) {
            int cnt = 0;
            CZ_CUDA_TRY(err, cub::DeviceSelect::If(sort_tmp.get(), sel_bytes, raw, packed,
                                                   d_count.get(), (int)nraw, part_valid(), st));
            CZ_CUDA_TRY(err,
                        cudaMemcpyAsync(&cnt, d_count, sizeof cnt, cudaMemcpyDeviceToHost, st));
            CZ_CUDA_TRY(err, cudaStreamSynchronize(st));
            if (cnt == 0) break;
            size_t T = ((size_t)cnt + SN - 1) / SN;
            k_msm_accn<F>
                <<<cz_gpu_blocks(T, 128), 128, 0, st>>>(packed, (size_t)cnt, SN, buckets, raw);
            CZ_CUDA_TRY(err, cudaGetLastError());
            nraw = 2 * T;
        }
    }
    if (ev) cudaEventRecord((*ev)[4], st);
    return CZ_OK;
}

/* Steps 4-5: out (host) = the sum the W M buckets stand for. */
template <class F>
static cz_status msm_reduce(jacobian<F> *out, const xyzz<F> *buckets, const msm_shape &sh,
                            cz_error *err) {
    cudaStream_t st = 0;
    const unsigned W = sh.W;
    dev_buf<xyzz<F>> red;
    dev_buf<jacobian<F>> d_out;
    CZ_CUDA_TRY(err, d_out.alloc_async(1, st));
    const unsigned L = 1u << MSM_SEG_LOG;
    std::vector<size_t> sizes; /* M_k per window */
    size_t m = sh.M;
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
    CZ_CUDA_TRY(err, red.alloc_async(need, st));
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
    size_t curm = sh.M;
    for (unsigned k = 0; k < d; k++) {
        size_t th = (size_t)W * sizes[k];
        k_msm_runsum<F><<<cz_gpu_blocks(th, 128), 128, 0, st>>>(cur, curm, L, W, lw[k], ps[k]);
        CZ_CUDA_TRY(err, cudaGetLastError());
        cur = ps[k];
        curm = sizes[k];
    }
    /* top: F(X_d) and G(X_d) = G(X_0) */
    k_msm_runsum<F><<<1, 64, 0, st>>>(cur, curm, (unsigned)curm, W, fd, g);
    CZ_CUDA_TRY(err, cudaGetLastError());
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
            CZ_CUDA_TRY(err, cudaGetLastError());
            src = dst;
            sm = om;
            which ^= 1;
        }
        if (src != glw + (size_t)k * W)
            CZ_CUDA_TRY(err, cudaMemcpyAsync(glw + (size_t)k * W, src, W * sizeof(xyzz<F>),
                                             cudaMemcpyDeviceToDevice, st));
    }
    k_msm_combine<F><<<1, 64, 0, st>>>(fd, g, glw, d, W, sh.c, d_out);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaMemcpyAsync(out, d_out, sizeof *out, cudaMemcpyDeviceToHost, st));
    CZ_CUDA_TRY(err, cudaStreamSynchronize(st));
    return CZ_OK;
}

/* The whole MSM's steps (msm_run); its device buffers are freed
 * (stream-ordered) when it returns. */
template <class F>
static cz_status msm_steps(jacobian<F> *out, const affine<F> *points, const fr_t *scalars, size_t n,
                           cz_error *err) {
    if (n == 0) /* the callers answer n = 0 with the point at infinity */
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu msm: no points");
    const msm_shape sh(msm_window(n, sizeof(F) != sizeof(fp_t)));
    dev_buf<xyzz<F>> buckets;
    CZ_CUDA_TRY(err, buckets.alloc_async(sh.W * sh.M, 0));
    /* CZ_GPU_MSM_PROFILE=1 prints the time of each step (stderr) */
    event_set<6> ev;
    const bool profile = cz_gpu_settings_get()->msm_profile && profile_events(ev);
    cz_status status =
        msm_accumulate<F>(buckets, false, sh, points, scalars, n, profile ? &ev : NULL, err);
    if (status == CZ_OK) status = msm_reduce<F>(out, buckets, sh, err);
    if (status == CZ_OK && profile) {
        cudaEventRecord(ev[5], 0);
        cudaEventSynchronize(ev[5]);
        float t[5];
        for (int i = 0; i < 5; i++) cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
        cz_log(CZ_LOG_INFO,
               "msm n=%zu c=%u: digits %.2f  sort %.2f  acc %.2f  partials %.2f  reduce %.2f ms", n,
               sh.c, t[0], t[1], t[2], t[3], t[4]);
    }
    return status;
}

/* A carried sum (gpu.h cz_gpu_msm_sum): the buckets in the caller's device
 * memory, zeroed at the start, each piece's digits summed into them, one
 * reduction at the end. */
template <class F>
static cz_status msm_sum_add(const cz_gpu_msm_sum *s, const affine<F> *points, const fr_t *scalars,
                             size_t n, cz_error *err) {
    if (n == 0) return CZ_OK;
    const cz_status status = msm_accumulate<F>((xyzz<F> *)s->buckets, true, msm_shape(s->c), points,
                                               scalars, n, NULL, err);
    (void)cudaStreamSynchronize(0);
    return status;
}

template <class F>
static cz_status msm_sum_end(jacobian<F> *out, const cz_gpu_msm_sum *s, cz_error *err) {
    const cz_status status = msm_reduce<F>(out, (const xyzz<F> *)s->buckets, msm_shape(s->c), err);
    (void)cudaStreamSynchronize(0);
    return status;
}

/* The whole MSM; out is a host pointer. Returns once its buffers' frees
 * have run too. */
template <class F>
static cz_status msm_run(jacobian<F> *out, const affine<F> *points, const fr_t *scalars, size_t n,
                         cz_error *err) {
    const cz_status status = msm_steps<F>(out, points, scalars, n, err);
    (void)cudaStreamSynchronize(0);
    return status;
}

} // namespace cz_gpu

#endif
