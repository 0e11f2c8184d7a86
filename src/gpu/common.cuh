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

/* Counts bytes of a host-to-device copy in cz_gpu_h2d_bytes (gpu_core.cu):
 * every bulk path calls it (the uploader, cz_gpu_upload, the key load; a
 * fault word or a small table copied directly is left out). */
void cz_gpu_note_h2d(size_t bytes);

/* Evaluates a CUDA call; on failure records "file:line: call: error" in err
 * and returns its status (cz_gpu_cuda_status) from the enclosing function. */
#define CZ_CUDA_TRY(err, call)                                                                     \
    do {                                                                                           \
        cudaError_t cz_e_ = (call);                                                                \
        if (cz_e_ != cudaSuccess) {                                                                \
            (void)cudaGetLastError();                                                              \
            return cz_error_set(err, cz_gpu_cuda_status(cz_e_), "gpu: %s:%d: %s: %s", __FILE__,    \
                                __LINE__, #call, cudaGetErrorString(cz_e_));                       \
        }                                                                                          \
    } while (0)

/* Device-side waits on a cz_gpu_uploader (prover.cu), so that a loop of
 * copies and kernels is only queued by the host, never waited for there:
 * a host thread beside busy synthesis threads wakes late after every wait
 * (a streamed circuit's windows took up to ten times their median).
 *   after:      copies queued from now on wait for ev (recorded on any
 *               stream; one never recorded is complete);
 *   queue_wait: the kernels the calling thread queues from now on (its
 *               default stream) wait for the copy with that ticket (0:
 *               none). */
extern "C" cz_status cz_gpu_uploader_after(struct cz_gpu_uploader *u, cudaEvent_t ev,
                                           cz_error *err);
extern "C" cz_status cz_gpu_uploader_queue_wait(struct cz_gpu_uploader *u, uint64_t ticket,
                                                cz_error *err);

/* After a kernel launch: reports a bad configuration at once. */
#define CZ_CUDA_LAUNCHED(err) CZ_CUDA_TRY(err, cudaPeekAtLastError())

/* The same, for code that jumps to a cleanup label: sets st and jumps. */
#define CZ_CUDA_GOTO(err, st, label, call)                                                         \
    do {                                                                                           \
        cudaError_t cz_e_ = (call);                                                                \
        if (cz_e_ != cudaSuccess) {                                                                \
            (void)cudaGetLastError();                                                              \
            st = cz_error_set(err, cz_gpu_cuda_status(cz_e_), "gpu: %s:%d: %s: %s", __FILE__,      \
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

namespace cz_gpu {

/* Device memory owned by one scope (sppark's habit): freed when the scope
 * ends, however it ends, so a failing step returns at once instead of
 * jumping to a cleanup label. Allocated stream-ordered (alloc_async: freed
 * by cudaFreeAsync on the same stream, after the work queued before it) or
 * plainly (alloc: cudaFree, which waits for the device). It converts to
 * T *, so kernels and pointer arithmetic take it as the raw pointer; not
 * copyable, and release() hands the memory to an owner that outlives the
 * scope. Failures of the frees are ignored (nothing left to report to). */
template <class T> class dev_buf {
  public:
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf() {
        reset();
    }
    /* count elements (at least one, so an empty request still gets a
     * distinct pointer) on stream st */
    cudaError_t alloc_async(size_t count, cudaStream_t st) {
        reset();
        void *q = nullptr;
        const cudaError_t e = cudaMallocAsync(&q, (count ? count : 1) * sizeof(T), st);
        if (e == cudaSuccess) p_ = static_cast<T *>(q), st_ = st, async_ = true;
        return e;
    }
    cudaError_t alloc(size_t count) {
        reset();
        void *q = nullptr;
        const cudaError_t e = cudaMalloc(&q, (count ? count : 1) * sizeof(T));
        if (e == cudaSuccess) p_ = static_cast<T *>(q), async_ = false;
        return e;
    }
    void reset() {
        if (p_) (void)(async_ ? cudaFreeAsync(p_, st_) : cudaFree(p_));
        p_ = nullptr;
    }
    T *release() {
        T *q = p_;
        p_ = nullptr;
        return q;
    }
    T *get() const {
        return p_;
    }
    operator T *() const {
        return p_;
    }

  private:
    T *p_ = nullptr;
    cudaStream_t st_ = 0;
    bool async_ = false;
};

/* N CUDA events owned by one scope (for the profiles and benchmarks that
 * time steps): create() makes them all or none; destroyed with the scope. */
template <int N> class event_set {
  public:
    event_set() = default;
    event_set(const event_set &) = delete;
    event_set &operator=(const event_set &) = delete;
    ~event_set() {
        destroy();
    }
    cudaError_t create() {
        destroy();
        for (int i = 0; i < N; i++) {
            const cudaError_t e = cudaEventCreate(&ev_[i]);
            if (e != cudaSuccess) {
                ev_[i] = nullptr;
                destroy();
                return e;
            }
        }
        return cudaSuccess;
    }
    cudaEvent_t operator[](int i) const {
        return ev_[i];
    }

  private:
    void destroy() {
        for (int i = 0; i < N; i++)
            if (ev_[i]) (void)cudaEventDestroy(ev_[i]), ev_[i] = nullptr;
    }
    cudaEvent_t ev_[N] = {};
};

} // namespace cz_gpu

static inline unsigned cz_gpu_blocks(size_t n, unsigned threads) {
    return (unsigned)((n + threads - 1) / threads);
}

#endif
