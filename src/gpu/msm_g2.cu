/* G2 instantiation of the device MSM (msm.cuh); a file of its own so the two
 * instantiations compile in parallel. */
#include "gpu/gpu.h"
#include "gpu/msm.cuh"

using namespace cz_gpu;

extern "C" cz_status cz_gpu_g2_msm(cz_g2 *out, const cz_g2_affine *dev_points,
                                   const cz_fr *dev_scalars, size_t n, cz_error *err) {
    static_assert(sizeof(jacobian<fp2_t>) == sizeof(cz_g2), "layouts differ");
    if (n == 0) {
        cz_g2_set_infinity(out);
        return CZ_OK;
    }
    cz_gpu_pool_keep();
    return msm_run<fp2_t>((jacobian<fp2_t> *)out, (const affine<fp2_t> *)dev_points,
                          (const fr_t *)dev_scalars, n, err);
}
