/* The device memory plan (cz_gpu_srs_footprint), no device needed: a key's
 * resident bytes are its points and NTT tables exactly; one proof's working
 * set for the 32 GiB PoRep shape covers what the H200 measured (a 2^27 G1
 * MSM allocates 36.3 GB, the proof's a, b, c and assignment 17 GB) without
 * the old over-estimate (70 GB, which kept witness slots and a second key
 * off the device); shapes the device prover cannot take are refused.
 * Skipped in a build without CUDA (no MSM window to plan with). */
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "harness/harness.h"

int main(void) {
    cz_test_init("gpu/test_gpu_plan");
    if (cz_gpu_msm_window_bits((size_t)1 << 27, 0) == 0) {
        printf("skipped: a build without CUDA\n");
        return 77;
    }
    cz_error err = {0};
    /* the 32 GiB PoRep partition's key (`cuzk info circuit --sector-size
     * 32GiB`: 328 inputs, 130,169,893 aux, a_aux density 129,753,292, b
     * 1 + 33,112,281; its .params file is 47,373,928,632 bytes) */
    cz_groth16_params shape;
    memset(&shape, 0, sizeof shape);
    const size_t m = (size_t)1 << 27, ni = 328, na = 130169893;
    shape.vk.n_ic = ni, shape.n_h = m - 1, shape.n_l = na;
    shape.n_a = 328 + 129753292, shape.n_b_g1 = 1 + 33112281, shape.n_b_g2 = 1 + 33112281;
    size_t key = 0, work = 0;
    CHECK(cz_gpu_srs_footprint(&key, &work, &shape, &err) == CZ_OK);
    const size_t points =
        (shape.n_h + shape.n_l + shape.n_a + shape.n_b_g1) * sizeof(cz_g1_affine) +
        shape.n_b_g2 * sizeof(cz_g2_affine);
    CHECK(key == points + m * sizeof(cz_fr));
    const double gb = 1e9, abc = (double)(3 * m + ni + na) * sizeof(cz_fr);
    printf("32 GiB PoRep shape: key %.1f GB, working set %.1f GB (a, b, c and the assignment "
           "%.1f GB)\n",
           key / gb, work / gb, abc / gb);
    CHECK(work >= 36.3 * gb + abc);
    CHECK(work <= 60.0 * gb);
    /* n_h must be 2^k - 1, k <= 28 */
    shape.n_h = m;
    CHECK(cz_gpu_srs_footprint(&key, &work, &shape, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "2^k - 1") != NULL);
    CHECK(key == 0 && work == 0);
    shape.n_h = ((size_t)1 << 29) - 1;
    CHECK(cz_gpu_srs_footprint(&key, &work, &shape, &err) == CZ_E_INVALID_ARG);
    return cz_test_finish("gpu/test_gpu_plan");
}
