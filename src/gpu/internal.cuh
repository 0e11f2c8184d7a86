/* Shared device helpers of the back-end's .cu files: XYZZ to Jacobian,
 * 16-byte loads and stores, the Fermat inversion in Fp and Fp2. */
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

/* 16-byte vector load / store of a field element or an affine point (the
 * device layouts are multiples of 16 bytes and 16-byte aligned in every
 * array used here: cudaMalloc'd bases, 48 / 96 / 192-byte elements). */
template <class T> static CZ_DEV T ld16(const T *p) {
    static_assert(sizeof(T) % 16 == 0, "16-byte multiple");
    union {
        T t;
        uint4 q[sizeof(T) / 16];
    } u;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 16); i++) u.q[i] = s[i];
    return u.t;
}
template <class T> static CZ_DEV void st16(T *p, const T &v) {
    union {
        T t;
        uint4 q[sizeof(T) / 16];
    } u;
    u.t = v;
    uint4 *d = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 16); i++) d[i] = u.q[i];
}

/* p - 2 for BLS12-381's Fp, 32-bit limbs, little-endian (Fermat exponent). */
static __constant__ uint32_t c_fp_pm2[12] = {0xffffaaa9u, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu,
                                             0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u,
                                             0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};

/* a^-1 = a^(p-2) for a != 0 (0 maps to 0), Montgomery form in and out: fixed
 * 4-bit windows, 14 + 380 squarings + 91 products. The exponent is public and
 * the same for every lane (no divergence). */
static __device__ __noinline__ fp_t field_inv(const fp_t &a) {
    fp_t tbl[16]; /* a^0 .. a^15 (local memory: dynamic index) */
    tbl[0] = fp_t::one();
    tbl[1] = a;
    for (int i = 2; i < 16; i++) tbl[i] = fp_t::mul(tbl[i - 1], a);
    fp_t r = tbl[c_fp_pm2[11] >> 28];
    for (int w = 94; w >= 0; w--) {
#pragma unroll
        for (int s = 0; s < 4; s++) r = fp_t::sqr(r);
        uint32_t nib = (c_fp_pm2[w >> 3] >> ((w & 7) * 4)) & 15;
        if (nib) r = fp_t::mul(r, tbl[nib]);
    }
    return r;
}
/* (c0 + c1 u)^-1 = (c0 - c1 u) / (c0^2 + c1^2) (u^2 = -1; the norm is 0 only
 * for 0). */
static __device__ __noinline__ fp2_t field_inv(const fp2_t &a) {
    fp_t t = field_inv(fp_t::add(fp_t::sqr(a.c0), fp_t::sqr(a.c1)));
    return {fp_t::mul(a.c0, t), fp_t::neg(fp_t::mul(a.c1, t))};
}

} // namespace cz_gpu

#endif
