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
