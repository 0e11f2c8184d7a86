/* Device types for the FP64-limb Montgomery product (fp64_mont.h): Fp in 8
 * limbs of 48 bits (R = 2^384, the project's), Fr in 5 limbs of 51 bits
 * (R' = 2^255; cz_fp64_fr_load / _store convert). The same source as the
 * host's, so the CPU test (tests/ff/test_fp64_mont.c) covers the algorithm
 * and the GPU test (tests/gpu/test_gpu_fp64.c) the device compilation.
 * Used by gpu_bench.cu's rate kernels and the exactness entry points; no
 * production kernel uses it yet (issue 29: measure first). */
#ifndef CZ_GPU_FP64_CUH
#define CZ_GPU_FP64_CUH

#include "gpu/fp64_mont.h"

namespace cz_gpu {

template <int FIELD, class E> struct fp64_mont {
    static constexpr int field = FIELD;
    E e;
    static __device__ __forceinline__ fp64_mont mul(const fp64_mont &a, const fp64_mont &b) {
        fp64_mont r;
        cz_fp64_mont_mul(r.e.l, a.e.l, b.e.l, FIELD);
        return r;
    }
};

typedef fp64_mont<CZ_FP64_FP, cz_fp64_fp> fp64_fp_t;
typedef fp64_mont<CZ_FP64_FR, cz_fp64_fr> fp64_fr_t;

} // namespace cz_gpu

#endif
