/* Device point arithmetic for G1 (over fp_t) and G2 (over fp2_t).
 *
 * Affine points are (x, y) with the point at infinity stored as (0, 0), the
 * CPU's layout (96 / 192 bytes), so resident bases are plain copies of the
 * CPU's cz_g?_affine arrays. Accumulators are XYZZ: (X, Y, ZZ, ZZZ) stands for
 * (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; infinity is ZZ = 0 (we keep all of it 0).
 * Formulas from the EFD (short Weierstrass, a = 0): madd-2008-s,
 * mdbl-2008-s-1, add-2008-s, dbl-2008-s-1. Exceptional cases (infinity,
 * P + P, P + (-P)) are branches, so results are exact in every case. */
#ifndef CZ_GPU_CURVE_CUH
#define CZ_GPU_CURVE_CUH

#include "gpu/field.cuh"

namespace cz_gpu {

template <class F> struct affine {
    F x, y;
    CZ_DEV bool is_inf() const {
        return x.is_zero() && y.is_zero();
    }
    static CZ_DEV affine inf() {
        return {F::zero(), F::zero()};
    }
    CZ_DEV affine neg() const {
        return is_inf() ? *this : affine{x, F::neg(y)};
    }
};

template <class F> struct xyzz {
    F X, Y, ZZ, ZZZ;

    static CZ_DEV xyzz inf() {
        return {F::zero(), F::zero(), F::zero(), F::zero()};
    }
    CZ_DEV bool is_inf() const {
        return ZZ.is_zero();
    }
    static CZ_DEV xyzz from_affine(const affine<F> &a) {
        if (a.is_inf()) return inf();
        return {a.x, a.y, F::one(), F::one()};
    }
    CZ_DEV xyzz neg() const {
        return {X, F::neg(Y), ZZ, ZZZ};
    }

    /* Out-of-line functions take and return values, never references: an
     * address passed to a __noinline__ function makes its object live in
     * local memory (stack) for the whole caller, which cost every mixed
     * addition of the MSM loads and stores of its operands. */

    /* 2 * (x, y) for an affine point (mdbl-2008-s-1). */
    static __device__ __noinline__ xyzz dbl_affine(const affine<F> a) {
        if (a.is_inf()) return inf();
        F U = F::dbl(a.y);
        F V = F::sqr(U);
        F W = F::mul(U, V);
        F S = F::mul(a.x, V);
        F xx = F::sqr(a.x);
        F M = F::add(F::dbl(xx), xx);
        F X3 = F::sub(F::sqr(M), F::dbl(S));
        F Y3 = F::sub(F::mul(M, F::sub(S, X3)), F::mul(W, a.y));
        return {X3, Y3, V, W};
    }

    /* 2 * p (dbl-2008-s-1). */
    static __device__ __noinline__ xyzz dbl_of(const xyzz p) {
        if (p.is_inf()) return p;
        F U = F::dbl(p.Y);
        F V = F::sqr(U);
        F W = F::mul(U, V);
        F S = F::mul(p.X, V);
        F xx = F::sqr(p.X);
        F M = F::add(F::dbl(xx), xx);
        F X3 = F::sub(F::sqr(M), F::dbl(S));
        F Y3 = F::sub(F::mul(M, F::sub(S, X3)), F::mul(W, p.Y));
        return {X3, Y3, F::mul(V, p.ZZ), F::mul(W, p.ZZZ)};
    }
    CZ_DEV xyzz dbl() const {
        return dbl_of(*this);
    }

    /* this += a (madd-2008-s). The products are ordered so that at most 7
     * field elements are live across a product (registers: the accumulation
     * kernel's occupancy). */
    CZ_DEV void add_affine(const affine<F> &a) {
        if (a.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(a);
            return;
        }
        F P = F::sub(F::mul(a.x, ZZ), X);
        F R = F::sub(F::mul(a.y, ZZZ), Y);
        if (P.is_zero()) {
            /* this = a (then 2a = 2 this, so a need not stay live) or -a */
            *this = R.is_zero() ? dbl_of(*this) : inf();
            return;
        }
        F PP = F::sqr(P);
        F PPP = F::mul(P, PP);
        F Q = F::mul(X, PP);
        ZZ = F::mul(ZZ, PP);
        ZZZ = F::mul(ZZZ, PPP);
        F T = F::mul(Y, PPP);
        X = F::sub(F::sub(F::sqr(R), PPP), F::dbl(Q));
        Y = F::sub(F::mul(R, F::sub(Q, X)), T);
    }

    /* a + o (add-2008-s). */
    /* out of line: reductions only, and it keeps the kernels small */
    static __device__ __noinline__ xyzz add_of(const xyzz a, const xyzz o) {
        if (o.is_inf()) return a;
        if (a.is_inf()) return o;
        F U1 = F::mul(a.X, o.ZZ);
        F U2 = F::mul(o.X, a.ZZ);
        F S1 = F::mul(a.Y, o.ZZZ);
        F S2 = F::mul(o.Y, a.ZZZ);
        F P = F::sub(U2, U1);
        F R = F::sub(S2, S1);
        if (P.is_zero()) return R.is_zero() ? dbl_of(a) : inf();
        F PP = F::sqr(P);
        F PPP = F::mul(P, PP);
        F Q = F::mul(U1, PP);
        F X3 = F::sub(F::sub(F::sqr(R), PPP), F::dbl(Q));
        F Y3 = F::sub(F::mul(R, F::sub(Q, X3)), F::mul(S1, PPP));
        return {X3, Y3, F::mul(F::mul(a.ZZ, o.ZZ), PP), F::mul(F::mul(a.ZZZ, o.ZZZ), PPP)};
    }
    /* this += o */
    CZ_DEV void add(const xyzz &o) {
        *this = add_of(*this, o);
    }
};

typedef affine<fp_t> g1_affine;
typedef xyzz<fp_t> g1_xyzz;
typedef affine<fp2_t> g2_affine;
typedef xyzz<fp2_t> g2_xyzz;

} // namespace cz_gpu

#endif
