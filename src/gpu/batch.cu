/* Batch addition (sum of the points selected by a bitmap) and the 0 / 1 /
 * other classification of witness scalars (spec gpu-prover.md §2.4, §7).
 *
 * Batch addition: thread t sums the selected points among
 * [t S, (t+1) S) into an XYZZ accumulator with mixed additions (reading a
 * point only when its bit is set, so the memory traffic is the selected
 * points plus the bitmap); the per-thread sums are then added up S at a time
 * by the same kind of kernel until one is left.
 *
 * Classification: one thread per scalar; a warp ballot builds 32 bits of the
 * "is one" bitmap at a time; the tail indices are compacted with CUB's
 * DeviceSelect::If over the index range (order preserved). */
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpu/common.cuh"
#include "gpu/curve.cuh"
#include "gpu/gpu.h"
#include "gpu/internal.cuh"

using namespace cz_gpu;

#define BATCH_S 32

/* 4 blocks of 128 per SM: occupancy hides the point loads (measured: the
 * uncapped inlined kernel, 148 registers, was slower) */
template <class F>
__global__ void __launch_bounds__(128, 4)
    k_batch_first(const affine<F> *points, const uint32_t *bits, size_t n, xyzz<F> *out) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t begin = t * BATCH_S;
    if (begin >= n) return;
    size_t end = begin + BATCH_S < n ? begin + BATCH_S : n;
    xyzz<F> acc = xyzz<F>::inf();
    /* BATCH_S = 32: the range is one bitmap word */
    uint32_t word = bits[begin / 32];
    if (end - begin < 32) word &= (1u << (end - begin)) - 1;
    while (word) {
        int j = __ffs(word) - 1;
        word &= word - 1;
        acc.add_affine(points[begin + j]);
    }
    out[t] = acc;
}

template <class F>
__global__ void __launch_bounds__(128) k_batch_sum(const xyzz<F> *in, size_t n, xyzz<F> *out) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t begin = t * BATCH_S;
    if (begin >= n) return;
    size_t end = begin + BATCH_S < n ? begin + BATCH_S : n;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t i = begin; i < end; i++) acc.add(in[i]);
    out[t] = acc;
}

template <class F> __global__ void k_batch_out(const xyzz<F> *in, jacobian<F> *out) {
    *out = to_jacobian(*in);
}

template <class F, class HJ>
static cz_status batch_add(HJ *out, const affine<F> *points, const uint64_t *bitmap, size_t n,
                           cz_error *err) {
    static_assert(sizeof(jacobian<F>) == sizeof(HJ), "layouts differ");
    cz_status st = CZ_OK;
    size_t T = (n + BATCH_S - 1) / BATCH_S;
    xyzz<F> *buf = NULL;
    jacobian<F> *d_out = NULL;
    size_t cap = T ? T : 1;
    CZ_CUDA_TRY(err, cudaMalloc(&buf, (cap + (cap + BATCH_S - 1) / BATCH_S + 1) * sizeof *buf));
    CZ_CUDA_GOTO(err, st, done, cudaMalloc(&d_out, sizeof *d_out));
    if (n == 0) {
        CZ_CUDA_GOTO(err, st, done, cudaMemset(buf, 0, sizeof *buf));
    } else {
        k_batch_first<F><<<cz_gpu_blocks(T, 128), 128>>>(points, (const uint32_t *)bitmap, n, buf);
        CZ_CUDA_GOTO(err, st, done, cudaGetLastError());
        xyzz<F> *a = buf, *b = buf + cap;
        size_t m = T;
        while (m > 1) {
            size_t om = (m + BATCH_S - 1) / BATCH_S;
            k_batch_sum<F><<<cz_gpu_blocks(om, 128), 128>>>(a, m, b);
            CZ_CUDA_GOTO(err, st, done, cudaGetLastError());
            xyzz<F> *t = a;
            a = b;
            b = t;
            m = om;
        }
        if (a != buf)
            CZ_CUDA_GOTO(err, st, done, cudaMemcpy(buf, a, sizeof *buf, cudaMemcpyDeviceToDevice));
    }
    k_batch_out<F><<<1, 1>>>(buf, d_out);
    CZ_CUDA_GOTO(err, st, done, cudaGetLastError());
    CZ_CUDA_GOTO(err, st, done, cudaMemcpy(out, d_out, sizeof *d_out, cudaMemcpyDeviceToHost));
done:
    cudaFree(buf);
    cudaFree(d_out);
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
    cz_status st = CZ_OK;
    void *tmp = NULL;
    int *d_cnt = NULL;
    size_t tmp_bytes = 0;
    int cnt = 0;
    thrust::counting_iterator<uint32_t> it(0);
    tail_pred pred{s};
    CZ_CUDA_TRY(err, cub::DeviceSelect::If(NULL, tmp_bytes, it, dev_tail, d_cnt, (int)n, pred));
    size_t aligned = (tmp_bytes + 15) & ~(size_t)15;
    CZ_CUDA_TRY(err, cudaMalloc(&tmp, aligned + 16));
    d_cnt = (int *)((char *)tmp + aligned);
    CZ_CUDA_GOTO(err, st, done,
                 cub::DeviceSelect::If(tmp, tmp_bytes, it, dev_tail, d_cnt, (int)n, pred));
    CZ_CUDA_GOTO(err, st, done, cudaMemcpy(&cnt, d_cnt, sizeof cnt, cudaMemcpyDeviceToHost));
    *tail_count = (size_t)cnt;
done:
    cudaFree(tmp);
    return st;
}
