/* Shared device helpers of the back-end's .cu files. */
#ifndef CZ_GPU_INTERNAL_CUH
#define CZ_GPU_INTERNAL_CUH

#include "gpu/curve.cuh"

namespace cz_gpu {

/* Jacobian (X, Y, Z) = (x Z^2, y Z^3, Z): the CPU's cz_g1 / cz_g2 layout. */
template <class F> struct jacobian { F x, y, z; };

/* XYZZ -> Jacobian without an inversion: (X ZZ^2, Y ZZZ^2, ZZZ), using
 * ZZ^3 = ZZZ^2 (Z_jac = ZZZ / ZZ scaled by ZZ). Infinity maps to Z = 0. */
template <class F> CZ_DEV jacobian<F> to_jacobian(const xyzz<F> &p) {
    if (p.is_inf()) return {F::one(), F::one(), F::zero()};
    return {F::mul(p.X, F::sqr(p.ZZ)), F::mul(p.Y, F::sqr(p.ZZZ)), p.ZZZ};
}

} // namespace cz_gpu

#endif
