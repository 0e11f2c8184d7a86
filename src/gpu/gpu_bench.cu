/* Benchmark helpers: device-side data generation and a raw field
 * multiplication rate (a dependent chain per thread, many threads). */
/* Fr arithmetic only: inline the multiplication (see field.cuh) */
#define CZ_GPU_FULL_INLINE 1
#include "gpu/common.cuh"
#include "gpu/curve.cuh"
#include "gpu/gpu.h"

using namespace cz_gpu;

static __device__ __forceinline__ uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

__global__ void k_fill_fr(fr_t *d, size_t n, uint64_t seed) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t x;
    uint64_t s = seed ^ (i * 0x9e3779b97f4a7c15ULL);
#pragma unroll
    for (int j = 0; j < 4; j++) {
        uint64_t r = mix64(s + (uint64_t)j * 0x632be59bd9b4e019ULL);
        x.v[2 * j] = (uint32_t)r;
        x.v[2 * j + 1] = (uint32_t)(r >> 32);
    }
    x.v[7] &= 0x3fffffffu; /* < 2^254 < r */
    d[i] = x;
}

template <class A> __global__ void k_fill_pts(A *d, size_t n, const A *base, size_t nbase) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = base[i % nbase];
}

__global__ void k_fill_bits(uint32_t *d, size_t words, unsigned pct, uint64_t seed) {
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= words) return;
    uint32_t word = 0;
    for (int b = 0; b < 32; b++)
        if (mix64(seed ^ ((w * 32 + b) * 0x9e3779b97f4a7c15ULL)) % 100 < pct) word |= 1u << b;
    d[w] = word;
}

template <class F> __global__ void k_rate(F *d, int iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    F a = d[i], b = d[i + 1];
    for (int k = 0; k < iters; k++) {
        a = F::mul(a, b);
        b = F::mul(b, a);
    }
    d[i] = a;
    d[i + 1] = b;
}

extern "C" cz_status cz_gpu_fill_random_fr(cz_fr *dev, size_t n, uint64_t seed, cz_error *err) {
    if (!n) return CZ_OK;
    k_fill_fr<<<cz_gpu_blocks(n, 256), 256>>>((fr_t *)dev, n, seed);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaDeviceSynchronize());
    return CZ_OK;
}

extern "C" cz_status cz_gpu_fill_g1(cz_g1_affine *dev, size_t n, const cz_g1_affine *dev_base,
                                    size_t nbase, cz_error *err) {
    if (!n) return CZ_OK;
    k_fill_pts<<<cz_gpu_blocks(n, 256), 256>>>((g1_affine *)dev, n, (const g1_affine *)dev_base,
                                               nbase);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaDeviceSynchronize());
    return CZ_OK;
}

extern "C" cz_status cz_gpu_fill_g2(cz_g2_affine *dev, size_t n, const cz_g2_affine *dev_base,
                                    size_t nbase, cz_error *err) {
    if (!n) return CZ_OK;
    k_fill_pts<<<cz_gpu_blocks(n, 256), 256>>>((g2_affine *)dev, n, (const g2_affine *)dev_base,
                                               nbase);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaDeviceSynchronize());
    return CZ_OK;
}

extern "C" cz_status cz_gpu_fill_bitmap(uint64_t *dev, size_t n, unsigned density_pct,
                                        uint64_t seed, cz_error *err) {
    size_t words = (n + 63) / 64 * 2;
    if (!words) return CZ_OK;
    k_fill_bits<<<cz_gpu_blocks(words, 256), 256>>>((uint32_t *)dev, words, density_pct, seed);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaDeviceSynchronize());
    return CZ_OK;
}

template <class F> static cz_status rate(double *out, cz_error *err) {
    int sms = 0;
    CZ_CUDA_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned threads = 256, blocks = (unsigned)sms * 8;
    const size_t n = (size_t)threads * blocks + 1;
    const int iters = 256;
    F *d = NULL;
    CZ_CUDA_TRY(err, cudaMalloc(&d, n * sizeof(F)));
    cz_status st = CZ_OK;
    cudaEvent_t e0, e1;
    float ms = 0;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    k_fill_fr<<<cz_gpu_blocks(n * sizeof(F) / 32, 256), 256>>>((fr_t *)d, n * sizeof(F) / 32, 7);
    k_rate<F><<<blocks, threads>>>(d, 4); /* warm-up */
    cudaEventRecord(e0);
    k_rate<F><<<blocks, threads>>>(d, iters);
    cudaEventRecord(e1);
    CZ_CUDA_GOTO(err, st, done, cudaEventSynchronize(e1));
    CZ_CUDA_GOTO(err, st, done, cudaGetLastError());
    cudaEventElapsedTime(&ms, e0, e1);
    *out = (double)threads * blocks * iters * 2 / (ms * 1e-3);
done:
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(d);
    return st;
}

extern "C" cz_status cz_gpu_field_rates(double *fr_mul_per_s, double *fp_mul_per_s, cz_error *err) {
    cz_status st = rate<fr_t>(fr_mul_per_s, err);
    if (st == CZ_OK) st = rate<fp_t>(fp_mul_per_s, err);
    return st;
}
