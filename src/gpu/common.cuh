/* Host-side helpers shared by the .cu files: CUDA error checking that turns
 * every failure into a cz_status with the call site, and launch helpers. */
#ifndef CZ_GPU_COMMON_CUH
#define CZ_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuzk/status.h"

/* The status of a failed CUDA call: CZ_E_NOMEM for
 * cudaErrorMemoryAllocation (counted for cz_gpu_oom_count), else
 * CZ_E_CUDA (gpu_core.cu). */
extern "C" cz_status cz_gpu_cuda_status(cudaError_t e);

/* Evaluates a CUDA call; on failure records "file:line: call: error" in err
 * and returns its status (cz_gpu_cuda_status) from the enclosing function. */
#define CZ_CUDA_TRY(err, call)                                                                     \
    do {                                                                                           \
        cudaError_t cz_e_ = (call);                                                                \
        if (cz_e_ != cudaSuccess) {                                                                \
            (void)cudaGetLastError();                                                              \
            return cz_error_set(err, cz_gpu_cuda_status(cz_e_), "gpu: %s:%d: %s: %s", __FILE__,     \
                                __LINE__, #call, cudaGetErrorString(cz_e_));                       \
        }                                                                                          \
    } while (0)

/* After a kernel launch: reports a bad configuration at once. */
#define CZ_CUDA_LAUNCHED(err) CZ_CUDA_TRY(err, cudaPeekAtLastError())

/* The same, for code that jumps to a cleanup label: sets st and jumps. */
#define CZ_CUDA_GOTO(err, st, label, call)                                                         \
    do {                                                                                           \
        cudaError_t cz_e_ = (call);                                                                \
        if (cz_e_ != cudaSuccess) {                                                                \
            (void)cudaGetLastError();                                                              \
            st = cz_error_set(err, cz_gpu_cuda_status(cz_e_), "gpu: %s:%d: %s: %s", __FILE__,       \
                              __LINE__, #call, cudaGetErrorString(cz_e_));                         \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

/* Keeps freed memory in the current device's default stream-ordered pool
 * between calls (release threshold at its maximum), so repeated MSMs and
 * batch additions of the same size allocate nothing. Once per device (bit
 * per ordinal < 64); best effort: a failure only costs re-allocations. */
static inline void cz_gpu_pool_keep(void) {
    static unsigned long long done = 0;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
        (void)cudaGetLastError();
        return;
    }
    const unsigned long long bit = 1ull << dev;
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE) & bit) return;
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
        uint64_t thr = UINT64_MAX;
        (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
    }
    (void)cudaGetLastError();
    __atomic_fetch_or(&done, bit, __ATOMIC_RELEASE);
}

static inline unsigned cz_gpu_blocks(size_t n, unsigned threads) {
    return (unsigned)((n + threads - 1) / threads);
}

#endif
