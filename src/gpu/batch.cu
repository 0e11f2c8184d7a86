/* Batch addition (sum of the points selected by a bitmap) and the 0 / 1 /
 * other classification of witness scalars.
 *
 * Batch addition, per chunk of at most CZ_GPU_BATCH_CHUNK points (default
 * 2^27; halved while the scratch does not fit):
 *
 *  1. compaction: the indices of the selected points (CUB DeviceSelect::If,
 *     order kept, so the work and the result's coordinates are
 *     deterministic);
 *  2. affine levels (Montgomery's trick): level l turns m
 *     affine points into ceil(m/2) by adding the pairs (2j, 2j+1). Thread t
 *     of T owns the pairs j = t, t + T, t + 2T, ... (consecutive lanes read
 *     consecutive pairs: coalesced). Forward it multiplies the K
 *     denominators (x2 - x1, or 2 y1 for P + P) into a running product and
 *     stores the K - 1 prefixes (scratch[j]); the block of 128 threads
 *     shares one Fermat inversion (block_inv); backward each thread peels
 *     1 / den_j off its inverse (2 products) and finishes the pair with 3
 *     more (lambda, lambda^2, y3): 6 products per addition against 10 for
 *     an XYZZ mixed addition. Pairs with infinity, P + (-P) (and 2P with
 *     y = 0) need no inversion: their denominator is 1 and the result is
 *     chosen by case. A level runs while every thread gets at least
 *     CZ_GPU_BATCH_KMIN pairs (default 32) with at most CZ_GPU_BATCH_T
 *     threads (default 512 per SM: one wave at 16 warps per SM), at most
 *     CZ_GPU_BATCH_LEVELS times (default 8). Each level also costs about
 *     0.6 ms whatever its size (mostly the latency of the one inversion),
 *     which is why the levels stop there;
 *  3. the remaining m points: thread t of T2 (CZ_GPU_BATCH_T2, default 512
 *     per SM) sums points t, t + T2, ... into an XYZZ accumulator with mixed
 *     additions (coalesced, no divergence), then the T2 sums are added
 *     CZ_GPU_BATCH_FANIN (default 2) at a time with full additions;
 *  4. the chunk's sum is added to the running total.
 * Measured on the H200 (2^27 G1 points, density 1/2): 30.3 ms, against 51 ms
 * for the previous kernel (thread t summing the selected points of bitmap
 * word t with XYZZ additions); XYZZ only (CZ_GPU_BATCH_LEVELS=0) 39 ms;
 * KMIN 128 / 64 / 16: 31.1 / 30.3 / 30.6 ms; twice the threads for T: 32.2 ms.
 * Scratch per chunk: 4 B per point (indices) and, when a level runs, about
 * 0.75 affine point + 0.5 field element per selected point. All from CUDA's
 * stream-ordered pool (kept between calls). CZ_GPU_BATCH_PROFILE=1 prints the
 * time of each step.
 *
 * Classification: one thread per scalar; a warp ballot builds 32 bits of the
 * "is one" bitmap at a time; the tail indices are compacted with CUB's
 * DeviceSelect::If over the index range (order preserved). */
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu/common.cuh"
#include "gpu/settings.h"
#include "util/log.h"
#include "gpu/curve.cuh"
#include "gpu/gpu.h"
#include "gpu/internal.cuh"
#include "gpu/pairs.cuh"

using namespace cz_gpu;

/* ---- affine levels (gpu/pairs.cuh) ---- */

/* Input i of a level: the i-th selected point (level 0, through the index
 * list) or element i of the previous level's output. */
template <class F, bool IDX>
static CZ_DEV const affine<F> *level_in(const affine<F> *in, const uint32_t *idx, size_t i) {
    return IDX ? in + idx[i] : in + i;
}

/* A level's pairs: out[j] = in[2j] + in[2j+1] for j < q = m / 2, out[q] =
 * in[m-1] when m is odd. */
template <class F, bool IDX> struct flat_pairs {
    const affine<F> *__restrict__ in;
    const uint32_t *__restrict__ idx;
    size_t m;
    affine<F> *__restrict__ out;
    CZ_DEV void prologue(size_t t) const {
        if (t == 0 && (m & 1)) st16(&out[m / 2], ld16(level_in<F, IDX>(in, idx, m - 1)));
    }
    CZ_DEV F den(size_t j) const {
        const affine<F> *pa = level_in<F, IDX>(in, idx, 2 * j);
        const affine<F> *pb = level_in<F, IDX>(in, idx, 2 * j + 1);
        return pair_den(
            ld16(&pa->x), ld16(&pb->x), [&] { return ld16(&pa->y); }, [&] { return ld16(&pb->y); });
    }
    CZ_DEV void load(size_t j, affine<F> &a, affine<F> &b) const {
        a = ld16(level_in<F, IDX>(in, idx, 2 * j));
        b = ld16(level_in<F, IDX>(in, idx, 2 * j + 1));
    }
    CZ_DEV void put(size_t j, const affine<F> &r) const {
        st16(&out[j], r);
    }
};

/* Threads per block of the level kernel (the block shares one inversion). */
#define LEVEL_BLOCK 128

/* ---- XYZZ stage ---- */

/* out[t] = sum of in'[t + k T] over k (in' = the level input view), t < T. */
template <class F, bool IDX>
__global__ void __launch_bounds__(128, 4)
    k_xyzz_strided(const affine<F> *__restrict__ in, const uint32_t *__restrict__ idx, size_t m,
                   size_t T, xyzz<F> *__restrict__ out) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t j = t; j < m; j += T) acc.add_affine(ld16(level_in<F, IDX>(in, idx, j)));
    out[t] = acc;
}

/* out[t] = in[t S] + ... + in[t S + S - 1] (clipped at n). */
template <class F>
__global__ void __launch_bounds__(128)
    k_batch_sum(const xyzz<F> *in, size_t n, unsigned S, xyzz<F> *out) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t begin = t * S;
    if (begin >= n) return;
    size_t end = begin + S < n ? begin + S : n;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t i = begin; i < end; i++) acc.add(in[i]);
    out[t] = acc;
}

template <class F> __global__ void k_batch_acc(xyzz<F> *total, const xyzz<F> *part) {
    total->add(*part);
}

template <class F> __global__ void k_batch_out(const xyzz<F> *in, jacobian<F> *out) {
    *out = to_jacobian(*in);
}

/* ---- host side ---- */

struct bit_pred {
    const uint32_t *bits;
    __device__ bool operator()(const uint32_t &i) const {
        return (bits[i >> 5] >> (i & 31)) & 1;
    }
};

/* Knobs (gpu/settings.h; taken at every call, so tests can force the
 * affine path on small inputs); defaults are the measured best on the H200.
 * T and T2 default to 512 threads per SM: one full wave at the kernels' 16
 * warps per SM. */
struct batch_knobs {
    size_t T, kmin, levels, T2, chunk, fanin;
    bool profile;
};
static batch_knobs batch_knobs_get(void) {
    const size_t wave = pair_level_wave();
    const cz_gpu_settings *s = cz_gpu_settings_get();
    batch_knobs k;
    k.T = s->batch_t ? s->batch_t : wave;
    k.kmin = s->batch_kmin;
    k.levels = s->batch_levels;
    k.T2 = s->batch_t2 ? s->batch_t2 : wave;
    k.chunk = s->batch_chunk;
    k.fanin = s->batch_fanin;
    k.profile = s->batch_profile != 0;
    return k;
}

/* CZ_GPU_BATCH_PROFILE=1: the time of each step on stderr (synchronizes). */
struct batch_prof {
    bool on;
    cudaEvent_t e;
    float total;
    void start(bool enable) {
        on = enable;
        total = 0;
        if (on && cudaEventCreate(&e) == cudaSuccess) {
            (void)cudaEventRecord(e, 0);
        } else {
            on = false;
        }
        (void)cudaGetLastError();
    }
    void step(const char *what, size_t a, size_t b) {
        if (!on) return;
        cudaEvent_t e2;
        float ms = 0;
        if (cudaEventCreate(&e2) == cudaSuccess) {
            (void)cudaEventRecord(e2, 0);
            (void)cudaEventSynchronize(e2);
            (void)cudaEventElapsedTime(&ms, e, e2);
            (void)cudaEventDestroy(e);
            e = e2;
        }
        (void)cudaGetLastError();
        total += ms;
        cz_log(CZ_LOG_INFO, "batch: %-8s %10zu %8zu %8.3f ms", what, a, b, ms);
    }
    void stop(void) {
        if (!on) return;
        cz_log(CZ_LOG_INFO, "batch: total %.3f ms", total);
        (void)cudaEventDestroy(e);
        (void)cudaGetLastError();
        on = false;
    }
    ~batch_prof() { /* a step that failed returns without stop() */
        if (on) (void)cudaEventDestroy(e);
    }
};

/* Sum of the m partial sums at a (room for m) into *res[0], S at a time
 * (S >= 2); b has room for m / 2 + 1. The steps are latency-bound (few
 * threads, each a chain of full additions), so a small S is faster: more
 * steps, but each only S additions long. */
template <class F>
static cz_status batch_reduce(xyzz<F> **res, xyzz<F> *a, xyzz<F> *b, size_t m, unsigned S,
                              cz_error *err) {
    while (m > 1) {
        const size_t om = (m + S - 1) / S;
        k_batch_sum<F><<<cz_gpu_blocks(om, 128), 128>>>(a, m, S, b);
        CZ_CUDA_LAUNCHED(err);
        xyzz<F> *t = a;
        a = b;
        b = t;
        m = om;
    }
    *res = a;
    return CZ_OK;
}

/* Adds the selected points among points[c0, c0 + R) to *total (device). */
template <class F>
static cz_status batch_chunk(xyzz<F> *total, const affine<F> *points, const uint32_t *bits,
                             size_t c0, size_t R, const batch_knobs &kn, batch_prof &prof,
                             cz_error *err) {
    const cudaStream_t s0 = 0; /* the thread's default stream, like every entry point */
    dev_buf<uint32_t> idx;
    dev_buf<char> tmp;
    dev_buf<affine<F>> A, B;
    dev_buf<F> scr;
    dev_buf<xyzz<F>> P, P2;
    xyzz<F> *res = NULL;
    size_t tmp_bytes = 0, s = 0, m = 0, T2 = 0;
    int cnt = 0;
    const affine<F> *cur = points + c0;
    bool dense = false;
    thrust::counting_iterator<uint32_t> it(0);
    const bit_pred pred{bits + c0 / 32};

    CZ_CUDA_TRY(err, cub::DeviceSelect::If(NULL, tmp_bytes, it, (uint32_t *)NULL, (int *)NULL,
                                           (int)R, pred, s0));
    const size_t aligned = (tmp_bytes + 15) & ~(size_t)15;
    CZ_CUDA_TRY(err, tmp.alloc_async(aligned + 16, s0));
    int *d_cnt = (int *)(tmp + aligned);
    CZ_CUDA_TRY(err, idx.alloc_async(R, s0));
    CZ_CUDA_TRY(
        err, cub::DeviceSelect::If(tmp.get(), tmp_bytes, it, idx.get(), d_cnt, (int)R, pred, s0));
    CZ_CUDA_TRY(err, cudaMemcpy(&cnt, d_cnt, sizeof cnt, cudaMemcpyDeviceToHost));
    s = (size_t)cnt;
    prof.step("compact", R, s);
    if (s == 0) return CZ_OK;

    /* affine levels */
    m = s;
    for (size_t lvl = 0; lvl < kn.levels; lvl++) {
        const size_t q = m / 2;
        if (q == 0) break;
        const size_t T = q < kn.T ? q : kn.T;
        if (q / T < kn.kmin) break;
        if (!A) {
            /* level l writes ceil(m_l / 2) points: level 0 into A, 1 into B,
             * 2 into A, ...; scr holds one element per pair of the level */
            CZ_CUDA_TRY(err, A.alloc_async(s / 2 + 1, s0));
            CZ_CUDA_TRY(err, B.alloc_async(s / 4 + 1, s0));
            CZ_CUDA_TRY(err, scr.alloc_async(s / 2, s0));
        }
        affine<F> *o = (lvl & 1) ? B.get() : A.get();
        const unsigned nb = cz_gpu_blocks(T, LEVEL_BLOCK), bs = LEVEL_BLOCK;
        if (dense)
            k_pair_level<F, flat_pairs<F, false>, LEVEL_BLOCK, 4>
                <<<nb, bs, 0, s0>>>({cur, NULL, m, o}, q, T, scr);
        else
            k_pair_level<F, flat_pairs<F, true>, LEVEL_BLOCK, 4>
                <<<nb, bs, 0, s0>>>({cur, idx, m, o}, q, T, scr);
        CZ_CUDA_TRY(err, cudaPeekAtLastError());
        prof.step("level", q, T);
        cur = o;
        dense = true;
        m = q + (m & 1);
    }

    /* XYZZ stage and reduction */
    T2 = m < kn.T2 ? m : kn.T2;
    CZ_CUDA_TRY(err, P.alloc_async(T2, s0));
    CZ_CUDA_TRY(err, P2.alloc_async(T2 / 2 + 1, s0));
    if (dense)
        k_xyzz_strided<F, false><<<cz_gpu_blocks(T2, 128), 128, 0, s0>>>(cur, NULL, m, T2, P);
    else
        k_xyzz_strided<F, true><<<cz_gpu_blocks(T2, 128), 128, 0, s0>>>(cur, idx, m, T2, P);
    CZ_CUDA_TRY(err, cudaPeekAtLastError());
    prof.step("xyzz", m, T2);
    const cz_status st = batch_reduce<F>(&res, P, P2, T2, (unsigned)kn.fanin, err);
    if (st != CZ_OK) return st;
    k_batch_acc<F><<<1, 1, 0, s0>>>(total, res);
    CZ_CUDA_TRY(err, cudaPeekAtLastError());
    prof.step("reduce", T2, 1);
    return CZ_OK;
}

/* The batch addition's steps (batch_add); its device buffers are freed
 * (stream-ordered) when it returns. */
template <class F>
static cz_status batch_steps(jacobian<F> *out, const affine<F> *points, const uint64_t *bitmap,
                             size_t n, cz_error *err) {
    const batch_knobs kn = batch_knobs_get();
    batch_prof prof;
    prof.on = false;
    const uint32_t *bits = (const uint32_t *)bitmap;
    dev_buf<xyzz<F>> total;
    dev_buf<jacobian<F>> d_out;
    CZ_CUDA_TRY(err, total.alloc_async(1, 0));
    CZ_CUDA_TRY(err, d_out.alloc_async(1, 0));
    /* all-zero XYZZ is infinity */
    CZ_CUDA_TRY(err, cudaMemsetAsync(total, 0, sizeof(xyzz<F>), 0));
    prof.start(kn.profile);
    {
        size_t R = kn.chunk;
        for (size_t c0 = 0; c0 < n;) {
            const size_t len = n - c0 < R ? n - c0 : R;
            const cz_status st = batch_chunk<F>(total, points, bits, c0, len, kn, prof, err);
            if (st == CZ_E_NOMEM && R > ((size_t)1 << 16)) {
                /* scratch did not fit: smaller chunks (R stays a multiple of 64) */
                R = (R / 2) & ~(size_t)63;
                continue;
            }
            if (st != CZ_OK) return st;
            c0 += len;
        }
    }
    k_batch_out<F><<<1, 1>>>(total, d_out);
    CZ_CUDA_TRY(err, cudaPeekAtLastError());
    CZ_CUDA_TRY(err, cudaMemcpy(out, d_out, sizeof(jacobian<F>), cudaMemcpyDeviceToHost));
    prof.step("out", 0, 0);
    prof.stop();
    return CZ_OK;
}

/* Returns once its buffers' frees have run too. */
template <class F, class HJ>
static cz_status batch_add(HJ *out, const affine<F> *points, const uint64_t *bitmap, size_t n,
                           cz_error *err) {
    static_assert(sizeof(jacobian<F>) == sizeof(HJ), "layouts differ");
    cz_gpu_pool_keep();
    const cz_status st = batch_steps<F>((jacobian<F> *)out, points, bitmap, n, err);
    (void)cudaStreamSynchronize(0);
    return st;
}

extern "C" cz_status cz_gpu_g1_batch_add(cz_g1 *out, const cz_g1_affine *dev_points,
                                         const uint64_t *dev_bitmap, size_t n, cz_error *err) {
    return batch_add<fp_t>(out, (const affine<fp_t> *)dev_points, dev_bitmap, n, err);
}
extern "C" cz_status cz_gpu_g2_batch_add(cz_g2 *out, const cz_g2_affine *dev_points,
                                         const uint64_t *dev_bitmap, size_t n, cz_error *err) {
    return batch_add<fp2_t>(out, (const affine<fp2_t> *)dev_points, dev_bitmap, n, err);
}

/* Bits of the "is one" bitmap, 32 per warp; zero-fills the last word's tail. */
__global__ void k_classify_ones(const fr_t *s, size_t n, uint32_t *ones) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t warp_base = i & ~(size_t)31;
    if (warp_base >= n) return;
    bool one = i < n && s[i].is_one();
    uint32_t word = __ballot_sync(0xffffffffu, one);
    if ((threadIdx.x & 31) == 0) ones[i / 32] = word;
}

struct tail_pred {
    const fr_t *s;
    __device__ bool operator()(const uint32_t &i) const {
        const fr_t x = s[i];
        return !x.is_zero() && !x.is_one();
    }
};

extern "C" cz_status cz_gpu_classify(const cz_fr *dev_scalars, size_t n, uint64_t *dev_ones,
                                     uint32_t *dev_tail, size_t *tail_count, cz_error *err) {
    *tail_count = 0;
    if (n == 0) return CZ_OK;
    if (n >= (1u << 31))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu classify: %zu scalars (max 2^31 - 1)", n);
    const fr_t *s = (const fr_t *)dev_scalars;
    size_t words64 = (n + 63) / 64;
    /* the ballot writes 32-bit words; an odd count leaves the last 64-bit word's top half */
    CZ_CUDA_TRY(err, cudaMemset(dev_ones, 0, words64 * 8));
    k_classify_ones<<<cz_gpu_blocks(n, 256), 256>>>(s, n, (uint32_t *)dev_ones);
    CZ_CUDA_LAUNCHED(err);
    dev_buf<char> tmp;
    size_t tmp_bytes = 0;
    int cnt = 0;
    thrust::counting_iterator<uint32_t> it(0);
    tail_pred pred{s};
    CZ_CUDA_TRY(err,
                cub::DeviceSelect::If(NULL, tmp_bytes, it, dev_tail, (int *)NULL, (int)n, pred));
    size_t aligned = (tmp_bytes + 15) & ~(size_t)15;
    CZ_CUDA_TRY(err, tmp.alloc(aligned + 16));
    int *d_cnt = (int *)(tmp + aligned);
    CZ_CUDA_TRY(err,
                cub::DeviceSelect::If(tmp.get(), tmp_bytes, it, dev_tail, d_cnt, (int)n, pred));
    CZ_CUDA_TRY(err, cudaMemcpy(&cnt, d_cnt, sizeof cnt, cudaMemcpyDeviceToHost));
    *tail_count = (size_t)cnt;
    return CZ_OK;
}
