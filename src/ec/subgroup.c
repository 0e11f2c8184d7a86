/* Subgroup membership for G1 and G2 by endomorphisms (M. Scott, "A note on
 * group membership tests for G1, G2 and GT on BLS pairing-friendly curves",
 * ePrint 2021/1130). With the curve parameter z = -0xd201000000010000:
 *
 *   G1: sigma(x, y) = (beta x, y), beta a primitive cube root of unity in Fp,
 *       acts on the order-r subgroup as multiplication by -z^2 (for the beta
 *       below; the other root gives z^2 - 1). A point P on E(Fp) is in G1
 *       iff sigma(P) = -z^2 P.
 *   G2: psi = untwist o Frobenius o twist, psi(x, y) = (conj(x) cx, conj(y) cy)
 *       with cx = (1 + u)^-((p-1)/3), cy = (1 + u)^-((p-1)/2). A point P on
 *       E'(Fp2) is in G2 iff psi(P) = z P.
 *
 * Each test costs one (G2) or two (G1) multiplications by |z|, a 64-bit
 * constant with six set bits: 63 doublings and 5 additions each, instead of
 * the ~255 doublings and ~64 additions of [r]P = O. The tests in
 * tests/ec/test_point.c compare both against [r]P = O and against noble. */
#include "ec/point.h"

/* |z| = 0xd201000000010000: set bits 63, 62, 60, 57, 48, 16. */
#define CZ_ABS_Z 0xd201000000010000ull

/* beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe,
 * canonical little-endian limbs; beta^3 = 1, beta != 1. */
static const uint64_t g1_beta[CZ_FP_LIMBS] = {0x2e01fffffffefffe, 0xde17d813620a0002,
                                              0xddb3a93be6f89688, 0xba69c6076a0f77ea,
                                              0x5f19672fdf76ce51, 0x0000000000000000};

/* cx = (1 + u)^-((p-1)/3) = 0 + c1 u (canonical little-endian limbs of c1). */
static const uint64_t g2_psi_x_c1[CZ_FP_LIMBS] = {0x8bfd00000000aaad, 0x409427eb4f49fffd,
                                                  0x897d29650fb85f9b, 0xaa0d857d89759ad4,
                                                  0xec02408663d4de85, 0x1a0111ea397fe699};
/* cy = (1 + u)^-((p-1)/2) = c0 + c1 u. */
static const uint64_t g2_psi_y_c0[CZ_FP_LIMBS] = {0xf1ee7b04121bdea2, 0x304466cf3e67fa0a,
                                                  0xef396489f61eb45e, 0x1c3dedd930b1cf60,
                                                  0xe2e9c448d77a2cd9, 0x135203e60180a68e};
static const uint64_t g2_psi_y_c1[CZ_FP_LIMBS] = {0xc81084fbede3cc09, 0xee67992f72ec05f4,
                                                  0x77f76e17009241c5, 0x48395dabc2d3435e,
                                                  0x6831e36d6bd17ffe, 0x06af0e0437ff400b};

/* r = |z| * p by double-and-add from the top bit (bit 63 starts acc = p). */
static void g1_mul_abs_z(cz_g1 *r, const cz_g1 *p) {
    cz_g1 acc = *p;
    for (int bit = 62; bit >= 0; bit--) {
        cz_g1_dbl(&acc, &acc);
        if ((CZ_ABS_Z >> bit) & 1) cz_g1_add(&acc, &acc, p);
    }
    *r = acc;
}

static void g2_mul_abs_z(cz_g2 *r, const cz_g2 *p) {
    cz_g2 acc = *p;
    for (int bit = 62; bit >= 0; bit--) {
        cz_g2_dbl(&acc, &acc);
        if ((CZ_ABS_Z >> bit) & 1) cz_g2_add(&acc, &acc, p);
    }
    *r = acc;
}

int cz_g1_affine_is_in_subgroup(const cz_g1_affine *a) {
    if (cz_g1_affine_is_infinity(a)) return 1;
    cz_g1 p, t;
    cz_g1_from_affine(&p, a);
    g1_mul_abs_z(&t, &p);
    g1_mul_abs_z(&t, &t);
    cz_g1_neg(&t, &t); /* t = -z^2 P */

    cz_fp beta;
    cz_fp_from_limbs(&beta, g1_beta);
    cz_g1 sigma = p; /* Z = 1 */
    cz_fp_mul(&sigma.x, &sigma.x, &beta);
    return cz_g1_equal(&sigma, &t);
}

int cz_g2_affine_is_in_subgroup(const cz_g2_affine *a) {
    if (cz_g2_affine_is_infinity(a)) return 1;
    cz_g2 p, t;
    cz_g2_from_affine(&p, a);
    g2_mul_abs_z(&t, &p);
    cz_g2_neg(&t, &t); /* t = z P */

    cz_fp2 cx, cy;
    cx.c0 = cz_fp_zero;
    cz_fp_from_limbs(&cx.c1, g2_psi_x_c1);
    cz_fp_from_limbs(&cy.c0, g2_psi_y_c0);
    cz_fp_from_limbs(&cy.c1, g2_psi_y_c1);
    cz_g2 psi;
    cz_fp2_conj(&psi.x, &a->x);
    cz_fp2_mul(&psi.x, &psi.x, &cx);
    cz_fp2_conj(&psi.y, &a->y);
    cz_fp2_mul(&psi.y, &psi.y, &cy);
    psi.z = cz_fp2_one;
    return cz_g2_equal(&psi, &t);
}
