/* G1 and G2 of BLS12-381: types and group law.
 *
 * G1: y^2 = x^3 + 4 over Fp.  G2: y^2 = x^3 + 4(1 + u) over Fp2 (the M-type
 * sextic twist Filecoin/zcash use). Both groups have prime order r (Fr).
 *
 * Affine points: (x, y); the point at infinity is stored as (0, 0), which is
 * not on either curve, so no flag word is needed (96 / 192 bytes a point).
 * Jacobian points: (X, Y, Z) stands for (X/Z^2, Y/Z^3); infinity has Z = 0.
 *
 * The group law handles every exceptional case (infinity, P + P, P + (-P))
 * by branching on it, so it is variable time on those cases only; scalar
 * multiplication is variable time throughout (_var). Proving data is public
 * or per-proof random, so no constant-time point code is needed. Outputs may
 * alias inputs. */
#ifndef CZ_EC_POINT_H
#define CZ_EC_POINT_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fp.h"
#include "ff/fp2.h"
#include "ff/fr.h"

typedef struct {
    cz_fp x, y;
} cz_g1_affine;

typedef struct {
    cz_fp x, y, z;
} cz_g1;

typedef struct {
    cz_fp2 x, y;
} cz_g2_affine;

typedef struct {
    cz_fp2 x, y, z;
} cz_g2;

/* The same operations exist for g1 (over cz_fp) and g2 (over cz_fp2). */
#define CZ_POINT_DECLARE(G, F)                                                                   \
    /* the standard generators (zcash / IETF) */                                                 \
    void cz_##G##_generator(cz_##G *r);                                                          \
    void cz_##G##_affine_generator(cz_##G##_affine *r);                                          \
    void cz_##G##_set_infinity(cz_##G *r);                                                       \
    int cz_##G##_is_infinity(const cz_##G *p);                                                   \
    int cz_##G##_affine_is_infinity(const cz_##G##_affine *p);                                   \
    void cz_##G##_from_affine(cz_##G *r, const cz_##G##_affine *a);                              \
    void cz_##G##_to_affine(cz_##G##_affine *r, const cz_##G *p);                                \
    /* n conversions with one field inversion; scratch holds n F elements */                     \
    void cz_##G##_batch_to_affine(cz_##G##_affine *out, const cz_##G *in, size_t n, F *scratch); \
    int cz_##G##_equal(const cz_##G *a, const cz_##G *b);                                        \
    int cz_##G##_affine_equal(const cz_##G##_affine *a, const cz_##G##_affine *b);               \
    void cz_##G##_neg(cz_##G *r, const cz_##G *a);                                               \
    void cz_##G##_affine_neg(cz_##G##_affine *r, const cz_##G##_affine *a);                      \
    void cz_##G##_dbl(cz_##G *r, const cz_##G *a);                                               \
    void cz_##G##_add(cz_##G *r, const cz_##G *a, const cz_##G *b);                              \
    /* mixed addition: r = a + b with b affine */                                                \
    void cz_##G##_add_affine(cz_##G *r, const cz_##G *a, const cz_##G##_affine *b);              \
    /* r = k * p for k in Fr, and for any little-endian integer of `limbs` limbs */              \
    void cz_##G##_mul_var(cz_##G *r, const cz_##G *p, const cz_fr *k);                           \
    void cz_##G##_mul_limbs_var(cz_##G *r, const cz_##G *p, const uint64_t *k, size_t limbs);    \
    /* y^2 = x^3 + b; infinity counts as on the curve */                                         \
    int cz_##G##_affine_is_on_curve(const cz_##G##_affine *a);                                   \
    /* order divides r; for points already known to be on the curve */                          \
    int cz_##G##_affine_is_in_subgroup(const cz_##G##_affine *a);

CZ_POINT_DECLARE(g1, cz_fp)
CZ_POINT_DECLARE(g2, cz_fp2)

#endif
