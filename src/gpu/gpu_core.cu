/* Device probing, memory helpers and the element-wise / point-formula entry
 * points the tests compare against the CPU. */
#include <stdio.h>
#include <unistd.h>

#include "gpu/common.cuh"
#include "gpu/curve.cuh"
#include "gpu/gpu.h"
#include "gpu/internal.cuh"
#include "gpu/settings.h"

using namespace cz_gpu;

#ifndef CZ_CUDA_CODE
#error "CZ_CUDA_CODE (the architectures compiled in) comes from CMakeLists.txt"
#endif

extern "C" const char *cz_gpu_build_code(void) {
    return CZ_CUDA_CODE " (nvcc " CZ_CUDA_NVCC ")";
}

/* No CUDA device is no fault: without the NVIDIA kernel module (it
 * publishes /proc/driver/nvidia/version once loaded) or with no device, the
 * CPU is the honest back-end. A loaded driver the runtime cannot use (older
 * than this build's CUDA needs) is a fault the operator must see. */
extern "C" cz_status cz_gpu_device_count(int *count, cz_error *err) {
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaSuccess && *count > 0) return CZ_OK;
    (void)cudaGetLastError();
    *count = 0;
    if (e == cudaSuccess || e == cudaErrorNoDevice)
        return cz_error_set(err, CZ_E_NOT_FOUND, "gpu: no CUDA device");
    if (access("/proc/driver/nvidia/version", F_OK) != 0)
        return cz_error_set(err, CZ_E_NOT_FOUND, "gpu: no NVIDIA driver on this machine (%s)",
                            cudaGetErrorString(e));
    int runtime = 0, driver = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    (void)cudaDriverGetVersion(&driver);
    if (e == cudaErrorInsufficientDriver)
        return cz_error_set(err, CZ_E_CUDA,
                            "gpu: the NVIDIA driver (CUDA %d.%d) is older than this build's CUDA "
                            "runtime %d.%d needs: update the driver, or build with the CUDA "
                            "toolkit the driver supports (docs/GPUS.md, \"Toolkit and driver\")",
                            driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    return cz_error_set(err, CZ_E_CUDA, "gpu: the NVIDIA driver is loaded but CUDA fails: %s",
                        cudaGetErrorString(e));
}

/* The build's code that runs on compute capability cc (major*10 + minor):
 * machine code of the same major and the highest minor <= cc, else PTX of
 * the highest version <= cc (compiled by the driver at load); *ptx tells
 * which. 0 when nothing fits. Parsed from CZ_CUDA_CODE ("sm_75 ... compute_120"). */
static int code_for(int cc, int *ptx) {
    int best_sm = 0, best_ptx = 0;
    const char *s = CZ_CUDA_CODE;
    while (*s) {
        int v = 0, n = 0;
        if (sscanf(s, "sm_%d%n", &v, &n) == 1) {
            if (v / 10 == cc / 10 && v <= cc && v > best_sm) best_sm = v;
        } else if (sscanf(s, "compute_%d%n", &v, &n) == 1) {
            if (v <= cc && v > best_ptx) best_ptx = v;
        } else {
            break;
        }
        s += n;
        while (*s == ' ') s++;
    }
    *ptx = !best_sm;
    return best_sm ? best_sm : best_ptx;
}

__global__ void k_probe() {}

extern "C" cz_status cz_gpu_probe_device(int device, char *desc, size_t desc_size, cz_error *err) {
    int count = 0;
    cz_status st = cz_gpu_device_count(&count, err);
    if (st != CZ_OK) return st;
    if (device < 0 || device >= count)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu: no CUDA device %d (this host has %d)",
                            device, count);
    cudaDeviceProp prop;
    CZ_CUDA_TRY(err, cudaGetDeviceProperties(&prop, device));
    const int cc = prop.major * 10 + prop.minor;
    int ptx = 0;
    const int code = code_for(cc, &ptx);
    /* Ask the runtime too: it loads k_probe's module for the device (the
     * driver compiles PTX there), which is what every kernel launch needs. */
    int current = 0;
    cudaFuncAttributes fa;
    cudaError_t e = cudaGetDevice(&current);
    if (e == cudaSuccess) e = cudaSetDevice(device);
    /* how this process's threads wait for the device, before its first
     * launch (CZ_GPU_SYNC; the driver's own choice when 0) */
    static const unsigned sync_flags[4] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin,
                                           cudaDeviceScheduleYield, cudaDeviceScheduleBlockingSync};
    const unsigned sync = cz_gpu_settings_get()->sync_wait;
    if (e == cudaSuccess && sync) { /* the knob's range is 0 .. 3 (settings.c) */
        const cudaError_t fe = cudaSetDeviceFlags(sync_flags[sync]);
        if (fe != cudaSuccess) {
            (void)cudaGetLastError();
            (void)cudaSetDevice(current);
            return cz_error_set(err, CZ_E_CUDA, "gpu: device %d: CZ_GPU_SYNC=%u: %s", device, sync,
                                cudaGetErrorString(fe));
        }
    }
    if (e == cudaSuccess) {
        e = cudaFuncGetAttributes(&fa, k_probe);
        (void)cudaSetDevice(current);
    }
    if (!code || e != cudaSuccess) {
        (void)cudaGetLastError();
        return cz_error_set(
            err, CZ_E_UNSUPPORTED,
            "gpu: device %d, %s (compute capability %d.%d): this build has no code it can run "
            "(built for %s; %s): rebuild with -DCZ_CUDA_ARCHS=all (every card) or =%d%d",
            device, prop.name, prop.major, prop.minor, CZ_CUDA_CODE,
            e != cudaSuccess ? cudaGetErrorString(e) : "no sm_ or compute_ entry fits", prop.major,
            prop.minor);
    }
    if (desc && desc_size)
        snprintf(desc, desc_size, "%s, %d SMs, %.0f GiB, sm_%d%d (%s_%d%s)", prop.name,
                 prop.multiProcessorCount, (double)prop.totalGlobalMem / (1u << 30), prop.major,
                 prop.minor, ptx ? "compute" : "sm", code,
                 ptx ? " PTX, compiled by the driver" : " machine code");
    return CZ_OK;
}

extern "C" cz_status cz_gpu_probe(char *desc, size_t desc_size, cz_error *err) {
    return cz_gpu_probe_device(0, desc, desc_size, err);
}

extern "C" cz_status cz_gpu_set_device(int device, cz_error *err) {
    CZ_CUDA_TRY(err, cudaSetDevice(device));
    return CZ_OK;
}

/* Device out-of-memory errors seen by this thread, and allocations left
 * to fail on purpose (cz_gpu_inject_oom; any thread). */
static thread_local uint64_t oom_count;
static unsigned oom_injected;

extern "C" cz_status cz_gpu_cuda_status(cudaError_t e) {
    if (e != cudaErrorMemoryAllocation) return CZ_E_CUDA;
    oom_count++;
    return CZ_E_NOMEM;
}

extern "C" uint64_t cz_gpu_oom_count(void) {
    return oom_count;
}

/* Bytes queued from host to device by this process (cz_gpu_h2d_bytes). */
static unsigned long long h2d_bytes;

void cz_gpu_note_h2d(size_t bytes) {
    __atomic_add_fetch(&h2d_bytes, (unsigned long long)bytes, __ATOMIC_RELAXED);
}

extern "C" uint64_t cz_gpu_h2d_bytes(void) {
    return __atomic_load_n(&h2d_bytes, __ATOMIC_RELAXED);
}

extern "C" void cz_gpu_inject_oom(unsigned n) {
    __atomic_store_n(&oom_injected, n, __ATOMIC_RELAXED);
}

/* Takes one injected failure, if any is left. */
static int injected_oom(void) {
    unsigned n = __atomic_load_n(&oom_injected, __ATOMIC_RELAXED);
    while (n && !__atomic_compare_exchange_n(&oom_injected, &n, n - 1, 0, __ATOMIC_RELAXED,
                                             __ATOMIC_RELAXED)) {
    }
    return n != 0;
}

extern "C" cz_status cz_gpu_alloc(void **dev, size_t bytes, cz_error *err) {
    *dev = NULL;
    if (injected_oom()) CZ_CUDA_TRY(err, cudaErrorMemoryAllocation);
    CZ_CUDA_TRY(err, cudaMalloc(dev, bytes ? bytes : 1));
    return CZ_OK;
}

extern "C" void cz_gpu_free(void *dev) {
    if (dev) (void)cudaFree(dev);
}

extern "C" cz_status cz_gpu_alloc_pooled(void **dev, size_t bytes, cz_error *err) {
    *dev = NULL;
    if (injected_oom()) CZ_CUDA_TRY(err, cudaErrorMemoryAllocation);
    cz_gpu_pool_keep();
    CZ_CUDA_TRY(err, cudaMallocAsync(dev, bytes ? bytes : 1, 0));
    cudaError_t e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) {
        (void)cudaFreeAsync(*dev, 0);
        *dev = NULL;
        CZ_CUDA_TRY(err, e);
    }
    return CZ_OK;
}

extern "C" void cz_gpu_free_pooled(void *dev) {
    if (dev) (void)cudaFreeAsync(dev, 0);
}

extern "C" cz_status cz_gpu_upload(void *dev, const void *host, size_t bytes, cz_error *err) {
    if (bytes) CZ_CUDA_TRY(err, cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    cz_gpu_note_h2d(bytes);
    return CZ_OK;
}

extern "C" cz_status cz_gpu_download(void *host, const void *dev, size_t bytes, cz_error *err) {
    if (bytes) CZ_CUDA_TRY(err, cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_copy(void *dst, const void *src, size_t bytes, cz_error *err) {
    if (bytes) CZ_CUDA_TRY(err, cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    return CZ_OK;
}

template <class F> __global__ void k_eltwise(int op, F *out, const F *a, const F *b, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x = a[i], y = b[i], r;
    switch (op) {
    case CZ_GPU_ADD: r = F::add(x, y); break;
    case CZ_GPU_SUB: r = F::sub(x, y); break;
    case CZ_GPU_MUL: r = F::mul(x, y); break;
    case CZ_GPU_SQR: r = F::sqr(x); break;
    default: r = F::neg(x); break;
    }
    out[i] = r;
}

/* Runs a kernel over host arrays: upload, launch, download. */
template <class F, class H>
static cz_status eltwise(cz_gpu_op op, H *out, const H *a, const H *b, size_t n, cz_error *err) {
    static_assert(sizeof(F) == sizeof(H), "device and host layouts differ");
    if (n == 0) return CZ_OK;
    dev_buf<F> d;
    size_t bytes = n * sizeof(F);
    CZ_CUDA_TRY(err, d.alloc(3 * n));
    CZ_CUDA_TRY(err, cudaMemcpy(d + n, a, bytes, cudaMemcpyHostToDevice));
    CZ_CUDA_TRY(err, cudaMemcpy(d + 2 * n, b ? b : a, bytes, cudaMemcpyHostToDevice));
    k_eltwise<F><<<cz_gpu_blocks(n, 128), 128>>>((int)op, d, d + n, d + 2 * n, n);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaMemcpy(out, d, bytes, cudaMemcpyDeviceToHost));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_fr_eltwise(cz_gpu_op op, cz_fr *out, const cz_fr *a, const cz_fr *b,
                                       size_t n, cz_error *err) {
    return eltwise<fr_t>(op, out, a, b, n, err);
}
extern "C" cz_status cz_gpu_fp_eltwise(cz_gpu_op op, cz_fp *out, const cz_fp *a, const cz_fp *b,
                                       size_t n, cz_error *err) {
    return eltwise<fp_t>(op, out, a, b, n, err);
}
extern "C" cz_status cz_gpu_fp2_eltwise(cz_gpu_op op, cz_fp2 *out, const cz_fp2 *a, const cz_fp2 *b,
                                        size_t n, cz_error *err) {
    return eltwise<fp2_t>(op, out, a, b, n, err);
}

template <class F>
__global__ void k_formulas(jacobian<F> *sum, jacobian<F> *trip, jacobian<F> *dbl,
                           const affine<F> *a, const affine<F> *b, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    affine<F> pa = a[i], pb = b[i];
    xyzz<F> s = xyzz<F>::from_affine(pa);
    s.add_affine(pb);
    sum[i] = to_jacobian(s);
    xyzz<F> t = xyzz<F>::from_affine(pa).dbl();
    xyzz<F> u = xyzz<F>::from_affine(pb);
    u.add_affine(pa);
    t.add(u);
    trip[i] = to_jacobian(t);
    dbl[i] = to_jacobian(xyzz<F>::dbl_affine(pa));
}

template <class F, class HA, class HJ>
static cz_status formulas(HJ *sum, HJ *trip, HJ *dbl, const HA *a, const HA *b, size_t n,
                          cz_error *err) {
    static_assert(sizeof(affine<F>) == sizeof(HA), "affine layouts differ");
    static_assert(sizeof(jacobian<F>) == sizeof(HJ), "jacobian layouts differ");
    if (n == 0) return CZ_OK;
    dev_buf<affine<F>> da;
    dev_buf<jacobian<F>> dj;
    const size_t ab = n * sizeof(affine<F>), jb = n * sizeof(jacobian<F>);
    CZ_CUDA_TRY(err, da.alloc(2 * n));
    CZ_CUDA_TRY(err, dj.alloc(3 * n));
    CZ_CUDA_TRY(err, cudaMemcpy(da, a, ab, cudaMemcpyHostToDevice));
    CZ_CUDA_TRY(err, cudaMemcpy(da + n, b, ab, cudaMemcpyHostToDevice));
    k_formulas<F><<<cz_gpu_blocks(n, 64), 64>>>(dj, dj + n, dj + 2 * n, da, da + n, n);
    CZ_CUDA_TRY(err, cudaGetLastError());
    CZ_CUDA_TRY(err, cudaMemcpy(sum, dj, jb, cudaMemcpyDeviceToHost));
    CZ_CUDA_TRY(err, cudaMemcpy(trip, dj + n, jb, cudaMemcpyDeviceToHost));
    CZ_CUDA_TRY(err, cudaMemcpy(dbl, dj + 2 * n, jb, cudaMemcpyDeviceToHost));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_g1_formulas(cz_g1 *sum, cz_g1 *trip, cz_g1 *dbl, const cz_g1_affine *a,
                                        const cz_g1_affine *b, size_t n, cz_error *err) {
    return formulas<fp_t>(sum, trip, dbl, a, b, n, err);
}
extern "C" cz_status cz_gpu_g2_formulas(cz_g2 *sum, cz_g2 *trip, cz_g2 *dbl, const cz_g2_affine *a,
                                        const cz_g2_affine *b, size_t n, cz_error *err) {
    return formulas<fp2_t>(sum, trip, dbl, a, b, n, err);
}
