/* Benchmark helpers: device-side data generation and raw field
 * multiplication rates (a dependent chain per thread, many threads): the
 * IMAD products of field.cuh and, beside them, the FP64-limb products of
 * fp64_mont.h (issue 29), with their exactness entry points. */
/* Fr arithmetic only: inline the multiplication (see field.cuh) */
#define CZ_GPU_FULL_INLINE 1
#include "gpu/common.cuh"
#include "gpu/curve.cuh"
#include "gpu/fp64.cuh"
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

/* A dependent chain of 2 iters products on d[i], d[i + 1]. */
template <class F> static __device__ __forceinline__ void rate_chain(F *d, size_t i, int iters) {
    F a = d[i], b = d[i + 1];
    for (int k = 0; k < iters; k++) {
        a = F::mul(a, b);
        b = F::mul(b, a);
    }
    d[i] = a;
    d[i + 1] = b;
}

template <class F> __global__ void k_rate(F *d, int iters) {
    rate_chain(d, (size_t)blockIdx.x * blockDim.x + threadIdx.x, iters);
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

/* Milliseconds of one launch (after one warm-up launch of the same). */
template <class L> static cz_status time_launch(float *ms, L launch, cz_error *err) {
    event_set<2> ev;
    CZ_CUDA_TRY(err, ev.create());
    launch(true);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaEventRecord(ev[0]));
    launch(false);
    CZ_CUDA_TRY(err, cudaEventRecord(ev[1]));
    CZ_CUDA_TRY(err, cudaEventSynchronize(ev[1]));
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaEventElapsedTime(ms, ev[0], ev[1]));
    return CZ_OK;
}

template <class F> static cz_status rate(double *out, cz_error *err) {
    int sms = 0;
    CZ_CUDA_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned threads = 256, blocks = (unsigned)sms * 8;
    const size_t n = (size_t)threads * blocks + 1;
    const int iters = 256;
    dev_buf<F> d;
    CZ_CUDA_TRY(err, d.alloc(n));
    k_fill_fr<<<cz_gpu_blocks(n * sizeof(F) / 32, 256), 256>>>((fr_t *)d.get(), n * sizeof(F) / 32,
                                                               7);
    float ms = 0;
    const cz_status st = time_launch(
        &ms, [&](bool warm) { k_rate<F><<<blocks, threads>>>(d, warm ? 4 : iters); }, err);
    if (st != CZ_OK) return st;
    *out = (double)threads * blocks * iters * 2 / (ms * 1e-3);
    return CZ_OK;
}

extern "C" cz_status cz_gpu_field_rates(double *fr_mul_per_s, double *fp_mul_per_s, cz_error *err) {
    cz_status st = rate<fr_t>(fr_mul_per_s, err);
    if (st == CZ_OK) st = rate<fp_t>(fp_mul_per_s, err);
    return st;
}

/* The FP64-limb Montgomery product (fp64_mont.h, issue 29, "measure before
 * building") beside the IMAD one: the rates `cuzk bench gpu --only field`
 * prints (each alone, both in one thread as interleaved chains so the
 * scheduler can issue the integer and the FP64 pipe together, both on
 * alternate warps), and products over host arrays for the exactness test.
 * Same kernel shape as k_rate: a dependent chain per thread, 8 blocks of 256
 * threads per SM. */

/* FP64 operands: limbs below 2^w, Fp's top limb below 2^44 (value < 2^380
 * < p), so every input is within the product's bounds; the values need not
 * mean anything (a product's cost does not depend on them). */
template <class F> __global__ void k_fill_fp64(F *d, size_t n, uint64_t seed) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int nl = cz_fp64_limbs(F::field), w = cz_fp64_bits(F::field);
    F x;
#pragma unroll
    for (int j = 0; j < nl; j++) {
        uint64_t r = mix64(seed ^ (i * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)j << 56));
        r &= (1ULL << w) - 1;
        if (F::field == CZ_FP64_FP && j == nl - 1) r &= (1ULL << 44) - 1;
        x.e.l[j] = (double)r;
    }
    d[i] = x;
}

/* Both in one thread: an IMAD chain and an FP64 chain, independent, their
 * products alternating in the source; 4 products per iteration. */
template <class FI, class FD> __global__ void k_rate_mix(FI *di, FD *dd, int iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    FI a = di[i], b = di[i + 1];
    FD x = dd[i], y = dd[i + 1];
    for (int k = 0; k < iters; k++) {
        a = FI::mul(a, b);
        x = FD::mul(x, y);
        b = FI::mul(b, a);
        y = FD::mul(y, x);
    }
    di[i] = a;
    di[i + 1] = b;
    dd[i] = x;
    dd[i + 1] = y;
}

/* Both on alternate warps of a block: even warps run iters_imad IMAD
 * iterations, odd warps iters_fp64 FP64 iterations (2 products each); the
 * caller balances the two counts by the rates alone so both halves end
 * together. */
template <class FI, class FD>
__global__ void k_rate_split(FI *di, FD *dd, int iters_imad, int iters_fp64) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if ((threadIdx.x >> 5) & 1)
        rate_chain(dd, i, iters_fp64);
    else
        rate_chain(di, i, iters_imad);
}

/* The four rates of one field: IMAD type FI, FP64 type FD. */
template <class FI, class FD>
static cz_status field_rates(double *imad, double *fp64, double *mix, double *split,
                             cz_error *err) {
    int sms = 0;
    CZ_CUDA_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned threads = 256, blocks = (unsigned)sms * 8;
    const double nthreads = (double)threads * blocks;
    const size_t n = (size_t)threads * blocks + 1;
    const int iters = 256;
    dev_buf<FI> di;
    dev_buf<FD> dd;
    float ms = 0;
    cz_status st = CZ_OK;
    CZ_CUDA_TRY(err, di.alloc(n));
    CZ_CUDA_TRY(err, dd.alloc(n));
    k_fill_fr<<<cz_gpu_blocks(n * sizeof(FI) / 32, 256), 256>>>((fr_t *)di.get(),
                                                                n * sizeof(FI) / 32, 7);
    k_fill_fp64<FD><<<cz_gpu_blocks(n, 256), 256>>>(dd, n, 11);
    CZ_CUDA_TRY(err, cudaGetLastError());

    st = time_launch(
        &ms, [&](bool warm) { k_rate<FI><<<blocks, threads>>>(di, warm ? 4 : iters); }, err);
    if (st != CZ_OK) return st;
    *imad = nthreads * iters * 2 / (ms * 1e-3);
    st = time_launch(
        &ms, [&](bool warm) { k_rate<FD><<<blocks, threads>>>(dd, warm ? 4 : iters); }, err);
    if (st != CZ_OK) return st;
    *fp64 = nthreads * iters * 2 / (ms * 1e-3);
    st = time_launch(
        &ms, [&](bool warm) { k_rate_mix<FI, FD><<<blocks, threads>>>(di, dd, warm ? 4 : iters); },
        err);
    if (st != CZ_OK) return st;
    *mix = nthreads * iters * 4 / (ms * 1e-3);
    {
        /* FP64 warps run more (or fewer) iterations in proportion to the
         * rates alone, so neither half idles at the end */
        int iters_fp64 = (int)(iters * *fp64 / *imad + 0.5);
        if (iters_fp64 < 1) iters_fp64 = 1;
        st = time_launch(
            &ms,
            [&](bool warm) {
                k_rate_split<FI, FD>
                    <<<blocks, threads>>>(di, dd, warm ? 4 : iters, warm ? 4 : iters_fp64);
            },
            err);
        if (st != CZ_OK) return st;
        *split = nthreads / 2 * ((double)iters + iters_fp64) * 2 / (ms * 1e-3);
    }
    return CZ_OK;
}

extern "C" cz_status cz_gpu_fp64_rates(cz_gpu_mul_rates *out, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_status st = field_rates<fr_t, fp64_fr_t>(&out->fr_imad, &out->fr_fp64, &out->fr_mix,
                                                &out->fr_split, err);
    if (st == CZ_OK)
        st = field_rates<fp_t, fp64_fp_t>(&out->fp_imad, &out->fp_fp64, &out->fp_mix,
                                          &out->fp_split, err);
    return st;
}

template <class F> __global__ void k_fp64_mul(F *r, const F *a, const F *b, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = F::mul(a[i], b[i]);
}

/* r[i] = a[i] b[i] over host arrays: upload, launch, download. */
template <class F, class H>
static cz_status fp64_mul(H *r, const H *a, const H *b, size_t n, cz_error *err) {
    static_assert(sizeof(F) == sizeof(H), "device and host layouts differ");
    if (n == 0) return CZ_OK;
    dev_buf<F> d;
    const size_t bytes = n * sizeof(F);
    CZ_CUDA_TRY(err, d.alloc(3 * n));
    CZ_CUDA_TRY(err, cudaMemcpy(d + n, a, bytes, cudaMemcpyHostToDevice));
    CZ_CUDA_TRY(err, cudaMemcpy(d + 2 * n, b, bytes, cudaMemcpyHostToDevice));
    k_fp64_mul<F><<<cz_gpu_blocks(n, 128), 128>>>(d, d + n, d + 2 * n, n);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaMemcpy(r, d, bytes, cudaMemcpyDeviceToHost));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_fp64_fp_mul(cz_fp64_fp *r, const cz_fp64_fp *a, const cz_fp64_fp *b,
                                        size_t n, cz_error *err) {
    return fp64_mul<fp64_fp_t>(r, a, b, n, err);
}
extern "C" cz_status cz_gpu_fp64_fr_mul(cz_fp64_fr *r, const cz_fp64_fr *a, const cz_fp64_fr *b,
                                        size_t n, cz_error *err) {
    return fp64_mul<fp64_fr_t>(r, a, b, n, err);
}
