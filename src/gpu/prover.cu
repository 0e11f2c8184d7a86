/* Device helpers of the Groth16 prover (groth16.c): memory information,
 * index selection by bitmap (density compaction, "every index") and gathers
 * of scalars and points by index (the compacted tail of the 0 / 1 / other
 * split), or the scalars with the ones masked (a dense tail). Elements are moved as opaque 16-byte
 * words: the host and device layouts are the same (gpu.h), and cudaMalloc's alignment (256 B) keeps
 * every 32 / 96 / 192-byte element 16-byte aligned. */
#include <cub/device/device_select.cuh>
#include <new>
#include <string.h>
#include <thrust/iterator/counting_iterator.h>

#include "gpu/common.cuh"
#include "gpu/gpu.h"

using cz_gpu::dev_buf;

extern "C" cz_status cz_gpu_mem_info(size_t *free_bytes, size_t *total_bytes, cz_error *err) {
    *free_bytes = *total_bytes = 0;
    CZ_CUDA_TRY(err, cudaMemGetInfo(free_bytes, total_bytes));
    return CZ_OK;
}

extern "C" void cz_gpu_pool_trim(void) {
    int dev = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
        (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
}

extern "C" cz_status cz_gpu_zero(void *dev, size_t bytes, cz_error *err) {
    if (bytes) CZ_CUDA_TRY(err, cudaMemset(dev, 0, bytes));
    return CZ_OK;
}

/* i is selected when bit (i - offset) is set (or always without a bitmap);
 * the counting iterator starts at offset, so selected values are the
 * output indices directly. */
struct bit_pred {
    const uint64_t *bits;
    uint32_t offset;
    __device__ bool operator()(const uint32_t &i) const {
        if (!bits) return true;
        uint32_t j = i - offset;
        return (bits[j >> 6] >> (j & 63)) & 1;
    }
};

extern "C" cz_status cz_gpu_select_bits(uint32_t *dev_idx, size_t *count, const uint64_t *dev_bits,
                                        size_t n, uint32_t offset, cz_error *err) {
    *count = 0;
    if (n == 0) return CZ_OK;
    if (n >= (1u << 31) || (uint64_t)offset + n >= ((uint64_t)1 << 32))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu select: %zu indices from %u do not fit 32-bit indices", n, offset);
    dev_buf<char> tmp;
    size_t tmp_bytes = 0;
    int cnt = 0;
    thrust::counting_iterator<uint32_t> it(offset);
    bit_pred pred{dev_bits, offset};
    CZ_CUDA_TRY(err,
                cub::DeviceSelect::If(NULL, tmp_bytes, it, dev_idx, (int *)NULL, (int)n, pred));
    size_t aligned = (tmp_bytes + 15) & ~(size_t)15;
    CZ_CUDA_TRY(err, tmp.alloc(aligned + 16));
    int *d_cnt = (int *)(tmp + aligned);
    CZ_CUDA_TRY(err, cub::DeviceSelect::If(tmp.get(), tmp_bytes, it, dev_idx, d_cnt, (int)n, pred));
    CZ_CUDA_TRY(err, cudaMemcpy(&cnt, d_cnt, sizeof cnt, cudaMemcpyDeviceToHost));
    *count = (size_t)cnt;
    return CZ_OK;
}

/* One thread per 16-byte word of the output: W words per element. */
template <unsigned W>
__global__ void k_gather(uint4 *out, const uint4 *in, const uint32_t *idx, uint32_t base,
                         size_t count) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count * W) return;
    size_t k = t / W, w = t % W;
    out[t] = in[(size_t)(idx[k] - base) * W + w];
}

template <unsigned W>
static cz_status gather(void *out, const void *in, const uint32_t *idx, uint32_t base, size_t count,
                        cz_error *err) {
    if (count == 0) return CZ_OK;
    k_gather<W>
        <<<cz_gpu_blocks(count * W, 256), 256>>>((uint4 *)out, (const uint4 *)in, idx, base, count);
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaStreamSynchronize(0));
    return CZ_OK;
}

static_assert(sizeof(cz_fr) == 32 && sizeof(cz_g1_affine) == 96 && sizeof(cz_g2_affine) == 192,
              "host layouts");

extern "C" cz_status cz_gpu_gather_fr(cz_fr *dev_out, const cz_fr *dev_in, const uint32_t *dev_idx,
                                      size_t count, cz_error *err) {
    return gather<2>(dev_out, dev_in, dev_idx, 0, count, err);
}
extern "C" cz_status cz_gpu_gather_g1(cz_g1_affine *dev_out, const cz_g1_affine *dev_in,
                                      const uint32_t *dev_idx, uint32_t base, size_t count,
                                      cz_error *err) {
    return gather<6>(dev_out, dev_in, dev_idx, base, count, err);
}
extern "C" cz_status cz_gpu_gather_g2(cz_g2_affine *dev_out, const cz_g2_affine *dev_in,
                                      const uint32_t *dev_idx, uint32_t base, size_t count,
                                      cz_error *err) {
    return gather<12>(dev_out, dev_in, dev_idx, base, count, err);
}

/* One thread per 16-byte half of a scalar: zero where the bitmap's bit is set. */
__global__ void k_mask_fr(uint4 *out, const uint4 *in, const uint64_t *ones, size_t n) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2 * n) return;
    size_t i = t / 2;
    out[t] = (ones[i / 64] >> (i % 64)) & 1 ? make_uint4(0, 0, 0, 0) : in[t];
}

extern "C" cz_status cz_gpu_mask_fr(cz_fr *dev_out, const cz_fr *dev_in, const uint64_t *dev_ones,
                                    size_t n, cz_error *err) {
    if (n == 0) return CZ_OK;
    k_mask_fr<<<cz_gpu_blocks(2 * n, 256), 256>>>((uint4 *)dev_out, (const uint4 *)dev_in, dev_ones,
                                                  n);
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaStreamSynchronize(0));
    return CZ_OK;
}

/* One thread per 16-byte half of an element of a packed witness
 * (cz_gpu_expand_witness). */
__global__ void k_expand_witness(uint4 *z, size_t n, const uint64_t *ones, const uint64_t *other,
                                 const uint32_t *before, const uint4 *values, uint4 one_lo,
                                 uint4 one_hi) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2 * n) return;
    const size_t i = t / 2, w = i / 64;
    const unsigned b = (unsigned)(i % 64), half = (unsigned)(t & 1);
    const uint64_t o = other[w];
    if (o >> b & 1) {
        const size_t k = before[w] + (unsigned)__popcll(o & ((1ull << b) - 1));
        z[t] = values[2 * k + half];
    } else if (ones[w] >> b & 1) {
        z[t] = half ? one_hi : one_lo;
    } else {
        z[t] = make_uint4(0, 0, 0, 0);
    }
}

extern "C" cz_status cz_gpu_expand_witness(cz_fr *dev_z, size_t n, const uint64_t *dev_ones,
                                           const uint64_t *dev_other, const uint32_t *dev_before,
                                           const cz_fr *dev_values, cz_error *err) {
    if (n == 0) return CZ_OK;
    uint4 one[2];
    static_assert(sizeof one == sizeof(cz_fr), "an Fr element is two uint4");
    memcpy(one, &cz_fr_one, sizeof one);
    k_expand_witness<<<cz_gpu_blocks(2 * n, 256), 256>>>((uint4 *)dev_z, n, dev_ones, dev_other,
                                                         dev_before, (const uint4 *)dev_values,
                                                         one[0], one[1]);
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaStreamSynchronize(0));
    return CZ_OK;
}

/* ---- pinned double-buffered uploads ----
 * Two pinned staging buffers and a non-blocking copy stream: the CPU fills
 * one buffer while the DMA engine empties the other, and the copies run
 * beside kernels on the default stream (a non-blocking stream does not
 * synchronize with the legacy default stream). Copy number t uses buffer
 * t & 1; filling it again first waits for copy t - 2. A buffer is
 * pinned when first staged (or pinned ahead: cz_gpu_uploader_pin), as
 * large as what is staged in it (a power of two, at most the chunk), and
 * grows when a larger piece comes: copies
 * straight from page-locked memory (send_host: a streamed key's locked
 * points) never need one, and bytes staged in pieces (cz_gpu_stage_bytes:
 * witnesses, a, b, c, circuit windows) need 256 MiB, where a streamed key's
 * two chunk-sized buffers are 6.4 GB at 2^24 G2 points: host work of a
 * second or more, during which, we suspect, this process's page faults
 * and allocations wait (a WinningPoSt's synthesis took 2.96 s during the
 * first witness upload of a WindowPoSt backlog, which pinned them;
 * docs/PERFORMANCE.md). */
struct cz_gpu_uploader {
    size_t chunk;
    void *host[2];
    size_t size[2]; /* bytes pinned at host[i] */
    cudaEvent_t done[2];
    uint64_t ticket[2]; /* last copy queued from each buffer (0: none yet) */
    uint64_t next;      /* ticket of the next copy, from 1 */
    cudaStream_t stream;
};

extern "C" void cz_gpu_uploader_destroy(cz_gpu_uploader *u) {
    if (!u) return;
    if (u->stream) cudaStreamSynchronize(u->stream);
    for (int i = 0; i < 2; i++) {
        if (u->host[i]) cudaFreeHost(u->host[i]);
        if (u->done[i]) cudaEventDestroy(u->done[i]);
    }
    if (u->stream) cudaStreamDestroy(u->stream);
    delete u;
}

extern "C" cz_status cz_gpu_uploader_create(cz_gpu_uploader **out, size_t chunk_bytes,
                                            cz_error *err) {
    *out = NULL;
    cz_gpu_uploader *u = new (std::nothrow) cz_gpu_uploader();
    if (!u) return cz_error_set(err, CZ_E_NOMEM, "gpu uploader: out of host memory");
    u->chunk = chunk_bytes ? chunk_bytes : 1;
    u->next = 1;
    cz_status st = CZ_OK;
    CZ_CUDA_GOTO(err, st, fail, cudaStreamCreateWithFlags(&u->stream, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++)
        CZ_CUDA_GOTO(err, st, fail, cudaEventCreateWithFlags(&u->done[i], cudaEventDisableTiming));
    *out = u;
    return CZ_OK;
fail:
    cz_error_prefix(err, "gpu uploader");
    cz_gpu_uploader_destroy(u);
    return st;
}

extern "C" size_t cz_gpu_uploader_chunk(const cz_gpu_uploader *u) {
    return u->chunk;
}

/* Buffer i page-locked for pieces of bytes (at most the chunk): as it is
 * when large enough, else pinned anew at the next power of two from 1 MiB
 * (its copies must be done). */
static cz_status pin_buffer(cz_gpu_uploader *u, int i, size_t bytes, cz_error *err) {
    if (u->host[i] && u->size[i] >= bytes) return CZ_OK;
    size_t size = (size_t)1 << 20;
    while (size < bytes) size <<= 1;
    if (size > u->chunk) size = u->chunk;
    if (u->host[i]) cudaFreeHost(u->host[i]);
    u->host[i] = NULL;
    u->size[i] = 0;
    const cudaError_t e = cudaHostAlloc(&u->host[i], size, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        u->host[i] = NULL;
        cudaGetLastError(); /* not sticky: clear it for the next call */
        /* host memory: not a device fault (no re-plan, the context stays in
         * service) */
        return cz_error_set(err, CZ_E_NOMEM,
                            "gpu uploader: a pinned staging buffer of %zu bytes: %s", size,
                            cudaGetErrorString(e));
    }
    u->size[i] = size;
    return CZ_OK;
}

extern "C" cz_status cz_gpu_uploader_stage(cz_gpu_uploader *u, void **host, size_t bytes,
                                           cz_error *err) {
    if (bytes > u->chunk)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu uploader: %zu bytes > chunk of %zu", bytes,
                            u->chunk);
    int i = (int)(u->next & 1);
    if (u->ticket[i]) CZ_CUDA_TRY(err, cudaEventSynchronize(u->done[i]));
    cz_status st = pin_buffer(u, i, bytes, err);
    if (st != CZ_OK) return st;
    *host = u->host[i];
    return CZ_OK;
}

extern "C" cz_status cz_gpu_uploader_pin(cz_gpu_uploader *u, size_t bytes, cz_error *err) {
    if (bytes > u->chunk) bytes = u->chunk;
    for (int i = 0; i < 2; i++) {
        /* a buffer that grows must not be in use */
        if (u->ticket[i] && u->size[i] < bytes) CZ_CUDA_TRY(err, cudaEventSynchronize(u->done[i]));
        cz_status st = pin_buffer(u, i, bytes, err);
        if (st != CZ_OK) return st;
    }
    return CZ_OK;
}

extern "C" size_t cz_gpu_uploader_pinned(const cz_gpu_uploader *u) {
    return u->size[0] + u->size[1];
}

/* Queues a copy of bytes from host to dev on the copy stream and records
 * it as the next ticket (its parity's event). */
static cz_status queue_copy(cz_gpu_uploader *u, void *dev, const void *host, size_t bytes,
                            uint64_t *ticket, cz_error *err) {
    int i = (int)(u->next & 1);
    if (bytes)
        CZ_CUDA_TRY(err, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, u->stream));
    cz_gpu_note_h2d(bytes);
    CZ_CUDA_TRY(err, cudaEventRecord(u->done[i], u->stream));
    u->ticket[i] = u->next;
    if (ticket) *ticket = u->next;
    u->next++;
    return CZ_OK;
}

extern "C" cz_status cz_gpu_uploader_send(cz_gpu_uploader *u, void *dev, size_t bytes,
                                          uint64_t *ticket, cz_error *err) {
    if (!u->host[u->next & 1])
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu uploader: a send with nothing staged");
    if (bytes > u->size[u->next & 1])
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu uploader: %zu bytes > %zu staged", bytes,
                            u->size[u->next & 1]);
    return queue_copy(u, dev, u->host[u->next & 1], bytes, ticket, err);
}

extern "C" cz_status cz_gpu_uploader_send_host(cz_gpu_uploader *u, void *dev, const void *host,
                                               size_t bytes, uint64_t *ticket, cz_error *err) {
    return queue_copy(u, dev, host, bytes, ticket, err);
}

/* The event to wait for copy ticket, NULL when there is nothing to wait
 * for. A newer copy of the same parity ends after this one (one stream, in
 * order): its record covers this one. A staged copy had waited for the
 * older one already; one sent from locked host memory had not. */
static cudaEvent_t ticket_event(const cz_gpu_uploader *u, uint64_t ticket) {
    const int i = (int)(ticket & 1);
    return ticket && u->ticket[i] >= ticket ? u->done[i] : NULL;
}

extern "C" cz_status cz_gpu_uploader_wait(cz_gpu_uploader *u, uint64_t ticket, cz_error *err) {
    cudaEvent_t ev = ticket_event(u, ticket);
    if (ev) CZ_CUDA_TRY(err, cudaEventSynchronize(ev));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_uploader_after(cz_gpu_uploader *u, cudaEvent_t ev, cz_error *err) {
    CZ_CUDA_TRY(err, cudaStreamWaitEvent(u->stream, ev, 0));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_uploader_queue_wait(cz_gpu_uploader *u, uint64_t ticket,
                                                cz_error *err) {
    cudaEvent_t ev = ticket_event(u, ticket);
    if (ev) CZ_CUDA_TRY(err, cudaStreamWaitEvent(0, ev, 0));
    return CZ_OK;
}

/* ---- page-locked host memory ---- */

extern "C" cz_status cz_gpu_host_lock(void *p, size_t bytes, cz_error *err) {
    if (!p || !bytes) return CZ_OK;
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not sticky: clear it for the next call */
        /* read-only memory (a PROT_READ mapping) needs the flag saying so */
        e = cudaHostRegister(p, bytes, cudaHostRegisterPortable | cudaHostRegisterReadOnly);
        if (e == cudaSuccess) return CZ_OK;
        cudaGetLastError();
        return cz_error_set(err, CZ_E_CUDA, "gpu: page-locking %zu bytes of host memory: %s", bytes,
                            cudaGetErrorString(e));
    }
    return CZ_OK;
}

extern "C" void cz_gpu_host_unlock(void *p) {
    if (p && cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

static int locked_at(const void *p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

extern "C" int cz_gpu_host_locked(const void *p, size_t bytes) {
    return p && bytes && locked_at(p) && locked_at((const uint8_t *)p + bytes - 1);
}

extern "C" cz_status cz_gpu_host_alloc_locked(void **out, size_t bytes, cz_error *err) {
    *out = NULL;
    const cudaError_t e = cudaHostAlloc(out, bytes ? bytes : 1, cudaHostAllocPortable);
    if (e == cudaSuccess) return CZ_OK;
    cudaGetLastError(); /* not sticky */
    *out = NULL;
    return cz_error_set(err, CZ_E_CUDA, "gpu: %zu bytes of page-locked host memory: %s", bytes,
                        cudaGetErrorString(e));
}

extern "C" void cz_gpu_host_free_locked(void *p) {
    if (p && cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
}
