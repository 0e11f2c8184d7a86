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

    /* 2 * (x, y) for an affine point (mdbl-2008-s-1). */
    static __device__ __noinline__ xyzz dbl_affine(const affine<F> &a) {
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

    /* 2 * this (dbl-2008-s-1). */
    __device__ __noinline__ xyzz dbl() const {
        if (is_inf()) return *this;
        F U = F::dbl(Y);
        F V = F::sqr(U);
        F W = F::mul(U, V);
        F S = F::mul(X, V);
        F xx = F::sqr(X);
        F M = F::add(F::dbl(xx), xx);
        F X3 = F::sub(F::sqr(M), F::dbl(S));
        F Y3 = F::sub(F::mul(M, F::sub(S, X3)), F::mul(W, Y));
        return {X3, Y3, F::mul(V, ZZ), F::mul(W, ZZZ)};
    }

    /* this += a (madd-2008-s). */
    CZ_DEV void add_affine(const affine<F> &a) {
        if (a.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(a);
            return;
        }
        F U2 = F::mul(a.x, ZZ);
        F S2 = F::mul(a.y, ZZZ);
        F P = F::sub(U2, X);
        F R = F::sub(S2, Y);
        if (P.is_zero()) {
            *this = R.is_zero() ? dbl_affine(a) : inf();
            return;
        }
        F PP = F::sqr(P);
        F PPP = F::mul(P, PP);
        F Q = F::mul(X, PP);
        F X3 = F::sub(F::sub(F::sqr(R), PPP), F::dbl(Q));
        F Y3 = F::sub(F::mul(R, F::sub(Q, X3)), F::mul(Y, PPP));
        X = X3;
        Y = Y3;
        ZZ = F::mul(ZZ, PP);
        ZZZ = F::mul(ZZZ, PPP);
    }

    /* this += o (add-2008-s). */
    /* out of line: reductions only, and it keeps the kernels small */
    __device__ __noinline__ void add(const xyzz &o) {
        if (o.is_inf()) return;
        if (is_inf()) {
            *this = o;
            return;
        }
        F U1 = F::mul(X, o.ZZ);
        F U2 = F::mul(o.X, ZZ);
        F S1 = F::mul(Y, o.ZZZ);
        F S2 = F::mul(o.Y, ZZZ);
        F P = F::sub(U2, U1);
        F R = F::sub(S2, S1);
        if (P.is_zero()) {
            *this = R.is_zero() ? dbl() : inf();
            return;
        }
        F PP = F::sqr(P);
        F PPP = F::mul(P, PP);
        F Q = F::mul(U1, PP);
        F X3 = F::sub(F::sub(F::sqr(R), PPP), F::dbl(Q));
        F Y3 = F::sub(F::mul(R, F::sub(Q, X3)), F::mul(S1, PPP));
        X = X3;
        Y = Y3;
        ZZ = F::mul(F::mul(ZZ, o.ZZ), PP);
        ZZZ = F::mul(F::mul(ZZZ, o.ZZZ), PPP);
    }
};

typedef affine<fp_t> g1_affine;
typedef xyzz<fp_t> g1_xyzz;
typedef affine<fp2_t> g2_affine;
typedef xyzz<fp2_t> g2_xyzz;

} // namespace cz_gpu

#endif
