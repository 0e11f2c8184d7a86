/* G1 instantiation of the device MSM (msm.cuh); a file of its own so the two
 * instantiations compile in parallel. */
#include "gpu/gpu.h"
#include "gpu/msm.cuh"

using namespace cz_gpu;

extern "C" cz_status cz_gpu_g1_msm(cz_g1 *out, const cz_g1_affine *dev_points,
                                   const cz_fr *dev_scalars, size_t n, cz_error *err) {
    static_assert(sizeof(jacobian<fp_t>) == sizeof(cz_g1), "layouts differ");
    if (n == 0) {
        cz_g1_set_infinity(out);
        return CZ_OK;
    }
    cz_gpu_pool_keep();
    return msm_run<fp_t>((jacobian<fp_t> *)out, (const affine<fp_t> *)dev_points,
                         (const fr_t *)dev_scalars, n, err);
}

extern "C" cz_status cz_gpu_g1_msm_sum_begin(cz_gpu_msm_sum *sum, void *dev_buckets, unsigned c,
                                             cz_error *err) {
    static_assert(sizeof(xyzz<fp_t>) == 192, "cz_gpu_plan_msm_sum_bytes counts 192-byte buckets");
    if (c < 4 || c > 22 || !dev_buckets)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu msm: a carried sum of window %u", c);
    sum->buckets = dev_buckets;
    sum->c = c;
    CZ_CUDA_TRY(err, cudaMemsetAsync(dev_buckets, 0, cz_gpu_plan_msm_sum_bytes(c), 0));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_g1_msm_sum_add(const cz_gpu_msm_sum *sum,
                                           const cz_g1_affine *dev_points, const cz_fr *dev_scalars,
                                           size_t n, cz_error *err) {
    cz_gpu_pool_keep();
    return msm_sum_add<fp_t>(sum, (const affine<fp_t> *)dev_points, (const fr_t *)dev_scalars, n,
                             err);
}

extern "C" cz_status cz_gpu_g1_msm_sum_end(cz_g1 *out, const cz_gpu_msm_sum *sum, cz_error *err) {
    cz_gpu_pool_keep();
    return msm_sum_end<fp_t>((jacobian<fp_t> *)out, sum, err);
}
