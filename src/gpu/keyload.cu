/* The proving key from its .params file: pinned staging buffers that take
 * the file's bytes to the device, and the kernel that turns them into
 * points there (gpu.h, "the proving key from its .params file"). The
 * orchestration (which bytes go where, the digest, the messages) is
 * groth16.c's cz_gpu_srs_load.
 *
 * In-place conversion: a point's file encoding (G1: x || y, G2: x.c1 || x.c0
 * || y.c1 || y.c0, each coordinate 48 bytes big-endian, flags in the top
 * three bits of byte 0) and its device form (cz_g?_affine: the coordinates
 * as 12 little-endian 32-bit limbs in Montgomery form, c0 before c1) have
 * the same size, so each vector's device array receives the file's bytes
 * and one thread per point reads its 96 / 192 bytes and writes the point
 * over them. Threads touch disjoint bytes, so no ordering is needed. */
#include <new>

#include "gpu/common.cuh"
#include "gpu/curve.cuh"
#include "gpu/gpu.h"

using namespace cz_gpu;

namespace {

/* 2^768 mod p: x R^2 / R = x R, the Montgomery form of x (< p). */
__constant__ uint32_t fp_r2_c[12] = {0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u,
                                     0x4c95b6d5u, 0x8de5476cu, 0x939d83c0u, 0x67eb88a9u,
                                     0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u};

__device__ __forceinline__ bool below_p(const fp_t &a) {
#pragma unroll
    for (int l = 11; l >= 0; l--)
        if (a.v[l] != fp_params::p(l)) return a.v[l] < fp_params::p(l);
    return false; /* a = p */
}

/* The fault word: the lowest (tag, index) wins an atomicMin. */
__device__ __forceinline__ unsigned long long fault_word(unsigned tag, size_t index,
                                                         unsigned reason) {
    return (unsigned long long)tag << 60 | (unsigned long long)index << 4 | reason;
}

/* C coordinates per point: 2 (G1) or 4 (G2). One thread per point. */
template <int C>
__global__ void k_key_convert(uint4 *points, size_t n, size_t first, int check_curve, unsigned tag,
                              unsigned long long *fault) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 *p = points + i * (3 * C); /* 48 bytes = 3 uint4 per coordinate */
    uint32_t w[12 * C];
#pragma unroll
    for (int j = 0; j < 3 * C; j++) {
        uint4 q = p[j];
        w[4 * j] = q.x, w[4 * j + 1] = q.y, w[4 * j + 2] = q.z, w[4 * j + 3] = q.w;
    }
    unsigned reason = 0;
    /* byte 0 is w[0]'s low byte; its top three bits are the flags, which an
     * uncompressed key point must have clear (set: compressed, infinity or
     * sort, every one refused by the host decoder with the identity refused) */
    if (w[0] & 0xe0u) reason = CZ_GPU_KEY_FAULT_FLAGS;
    /* coordinate k, limb l (least significant first) = big-endian bytes
     * 48k + 44 - 4l .. 48k + 47 - 4l */
    fp_t c[C];
    bool zero = true;
#pragma unroll
    for (int k = 0; k < C; k++) {
#pragma unroll
        for (int l = 0; l < 12; l++) c[k].v[l] = __byte_perm(w[12 * k + 11 - l], 0, 0x0123);
        if (!reason && !below_p(c[k])) reason = CZ_GPU_KEY_FAULT_RANGE;
        zero = zero && c[k].is_zero();
    }
    /* (0, 0) is how infinity is stored and is on neither curve */
    if (!reason && zero) reason = CZ_GPU_KEY_FAULT_ZERO;
    if (!reason) {
        fp_t r2;
#pragma unroll
        for (int l = 0; l < 12; l++) r2.v[l] = fp_r2_c[l];
#pragma unroll
        for (int k = 0; k < C; k++) c[k] = fp_t::mul(c[k], r2);
        if (check_curve) {
            const fp_t four = fp_t::dbl(fp_t::dbl(fp_t::one()));
            bool on;
            if constexpr (C == 2) { /* y^2 = x^3 + 4 */
                const fp_t x = c[0], y = c[1];
                on = fp_t::sqr(y) == fp_t::add(fp_t::mul(fp_t::sqr(x), x), four);
            } else { /* y^2 = x^3 + 4 (1 + u); file order c1 before c0 */
                const fp2_t x = {c[1], c[0]}, y = {c[3], c[2]}, b = {four, four};
                on = fp2_t::sqr(y) == fp2_t::add(fp2_t::mul(fp2_t::sqr(x), x), b);
            }
            if (!on) reason = CZ_GPU_KEY_FAULT_CURVE;
        }
    }
    if (reason) {
        /* the bytes stay as they were; the load fails */
        atomicMin(fault, fault_word(tag, first + i, reason));
        return;
    }
    /* the device layout: G1 x, y; G2 x.c0, x.c1, y.c0, y.c1 */
    uint32_t o[12 * C];
#pragma unroll
    for (int k = 0; k < C; k++) {
        const int from = C == 2 ? k : (k ^ 1);
#pragma unroll
        for (int l = 0; l < 12; l++) o[12 * k + l] = c[from].v[l];
    }
#pragma unroll
    for (int j = 0; j < 3 * C; j++)
        p[j] = make_uint4(o[4 * j], o[4 * j + 1], o[4 * j + 2], o[4 * j + 3]);
}

} // namespace

/* Buffer b is filled by the CPU while the copies from the other one run;
 * freed[b] is recorded after b's last copy, and staging b again waits for
 * it. Conversions run on a stream of their own behind an event on the copy
 * stream, so they overlap with the next vector's copies. */
struct cz_gpu_keyload {
    size_t chunk;
    uint8_t *host[2];
    cudaEvent_t freed[2];
    int pending[2]; /* freed[b] recorded and not yet waited for */
    int staged;     /* the buffer being filled, -1 when none */
    unsigned next;  /* the buffer the next stage takes (& 1) */
    cudaStream_t copy, convert;
    cudaEvent_t copied;
    unsigned long long *fault; /* device word, ~0 when no point failed */
};

extern "C" void cz_gpu_keyload_destroy(cz_gpu_keyload *k) {
    if (!k) return;
    if (k->copy) cudaStreamSynchronize(k->copy);
    if (k->convert) cudaStreamSynchronize(k->convert);
    for (int i = 0; i < 2; i++) {
        if (k->host[i]) cudaFreeHost(k->host[i]);
        if (k->freed[i]) cudaEventDestroy(k->freed[i]);
    }
    if (k->copied) cudaEventDestroy(k->copied);
    if (k->fault) cudaFree(k->fault);
    if (k->copy) cudaStreamDestroy(k->copy);
    if (k->convert) cudaStreamDestroy(k->convert);
    (void)cudaGetLastError();
    delete k;
}

extern "C" cz_status cz_gpu_keyload_create(cz_gpu_keyload **out, size_t chunk_bytes,
                                           cz_error *err) {
    *out = NULL;
    cz_gpu_keyload *k = new (std::nothrow) cz_gpu_keyload();
    if (!k) return cz_error_set(err, CZ_E_NOMEM, "gpu key load: out of host memory");
    k->chunk = chunk_bytes ? chunk_bytes : 1;
    k->staged = -1;
    cz_status st = CZ_OK;
    CZ_CUDA_GOTO(err, st, fail, cudaStreamCreateWithFlags(&k->copy, cudaStreamNonBlocking));
    CZ_CUDA_GOTO(err, st, fail, cudaStreamCreateWithFlags(&k->convert, cudaStreamNonBlocking));
    CZ_CUDA_GOTO(err, st, fail, cudaEventCreateWithFlags(&k->copied, cudaEventDisableTiming));
    for (int i = 0; i < 2; i++) {
        CZ_CUDA_GOTO(err, st, fail,
                     cudaHostAlloc((void **)&k->host[i], k->chunk, cudaHostAllocDefault));
        CZ_CUDA_GOTO(err, st, fail, cudaEventCreateWithFlags(&k->freed[i], cudaEventDisableTiming));
    }
    CZ_CUDA_GOTO(err, st, fail, cudaMalloc((void **)&k->fault, sizeof *k->fault));
    CZ_CUDA_GOTO(err, st, fail, cudaMemsetAsync(k->fault, 0xff, sizeof *k->fault, k->convert));
    *out = k;
    return CZ_OK;
fail:
    cz_error_prefix(err, "gpu key load: 2 pinned buffers of %zu bytes", k->chunk);
    cz_gpu_keyload_destroy(k);
    return st;
}

extern "C" cz_status cz_gpu_keyload_stage(cz_gpu_keyload *k, uint8_t **host, cz_error *err) {
    *host = NULL;
    if (k->staged >= 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu key load: a buffer is staged already");
    const int b = (int)(k->next & 1);
    if (k->pending[b]) {
        CZ_CUDA_TRY(err, cudaEventSynchronize(k->freed[b]));
        k->pending[b] = 0;
    }
    k->staged = b;
    *host = k->host[b];
    return CZ_OK;
}

extern "C" cz_status cz_gpu_keyload_copy(cz_gpu_keyload *k, void *dev, size_t offset, size_t bytes,
                                         cz_error *err) {
    if (k->staged < 0 || offset > k->chunk || bytes > k->chunk - offset)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu key load: copy of %zu bytes at %zu outside the staged buffer",
                            bytes, offset);
    if (bytes)
        CZ_CUDA_TRY(err, cudaMemcpyAsync(dev, k->host[k->staged] + offset, bytes,
                                         cudaMemcpyHostToDevice, k->copy));
    cz_gpu_note_h2d(bytes);
    return CZ_OK;
}

extern "C" cz_status cz_gpu_keyload_commit(cz_gpu_keyload *k, cz_error *err) {
    if (k->staged < 0) return cz_error_set(err, CZ_E_INVALID_ARG, "gpu key load: nothing staged");
    const int b = k->staged;
    k->staged = -1;
    k->next++;
    CZ_CUDA_TRY(err, cudaEventRecord(k->freed[b], k->copy));
    k->pending[b] = 1;
    return CZ_OK;
}

extern "C" cz_status cz_gpu_keyload_convert(cz_gpu_keyload *k, void *dev, size_t n, int g2,
                                            int check_curve, unsigned tag, cz_error *err) {
    if (n == 0) return CZ_OK;
    if (tag > 15 || n >= ((size_t)1 << 56))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu key load: tag %u / %zu points", tag, n);
    CZ_CUDA_TRY(err, cudaEventRecord(k->copied, k->copy));
    CZ_CUDA_TRY(err, cudaStreamWaitEvent(k->convert, k->copied, 0));
    const unsigned threads = 128;
    if (g2)
        k_key_convert<4><<<cz_gpu_blocks(n, threads), threads, 0, k->convert>>>(
            (uint4 *)dev, n, 0, check_curve, tag, k->fault);
    else
        k_key_convert<2><<<cz_gpu_blocks(n, threads), threads, 0, k->convert>>>(
            (uint4 *)dev, n, 0, check_curve, tag, k->fault);
    CZ_CUDA_LAUNCHED(err);
    return CZ_OK;
}

extern "C" cz_status cz_gpu_keyload_finish(cz_gpu_keyload *k, int *fault, unsigned *tag,
                                           uint64_t *index, unsigned *reason, cz_error *err) {
    *fault = 0, *tag = 0, *index = 0, *reason = 0;
    unsigned long long word = ~0ull;
    CZ_CUDA_TRY(err, cudaStreamSynchronize(k->copy));
    CZ_CUDA_TRY(err,
                cudaMemcpyAsync(&word, k->fault, sizeof word, cudaMemcpyDeviceToHost, k->convert));
    CZ_CUDA_TRY(err, cudaStreamSynchronize(k->convert));
    if (word != ~0ull) {
        *fault = 1;
        *tag = (unsigned)(word >> 60);
        *index = (word >> 4) & ((1ull << 56) - 1);
        *reason = (unsigned)(word & 15);
    }
    return CZ_OK;
}

extern "C" cz_status cz_gpu_points_from_file(void *dev, size_t n, int g2, size_t first,
                                             int check_curve, unsigned long long *fault,
                                             cz_error *err) {
    if (n == 0) return CZ_OK;
    if (first + n >= ((size_t)1 << 56))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu points from the file: %zu points", n);
    const unsigned threads = 128;
    if (g2)
        k_key_convert<4><<<cz_gpu_blocks(n, threads), threads, 0, cudaStreamPerThread>>>(
            (uint4 *)dev, n, first, check_curve, 0, fault);
    else
        k_key_convert<2><<<cz_gpu_blocks(n, threads), threads, 0, cudaStreamPerThread>>>(
            (uint4 *)dev, n, first, check_curve, 0, fault);
    CZ_CUDA_LAUNCHED(err);
    return CZ_OK;
}

extern "C" cz_status cz_gpu_points_fault(unsigned long long *fault, uint64_t *bad, unsigned *reason,
                                         cz_error *err) {
    unsigned long long word = ~0ull;
    *bad = UINT64_MAX, *reason = 0;
    CZ_CUDA_TRY(err, cudaMemcpyAsync(&word, fault, sizeof word, cudaMemcpyDeviceToHost,
                                     cudaStreamPerThread));
    CZ_CUDA_TRY(err, cudaStreamSynchronize(cudaStreamPerThread));
    if (word == ~0ull) return CZ_OK;
    *bad = (word >> 4) & ((1ull << 56) - 1);
    *reason = (unsigned)(word & 15);
    CZ_CUDA_TRY(err, cudaMemsetAsync(fault, 0xff, sizeof *fault, cudaStreamPerThread));
    return CZ_OK;
}
