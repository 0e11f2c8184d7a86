/* Inline Fr add / sub / mul / equality for the hot loops of other layers (NTT
 * butterflies, linear-combination evaluation). The same Montgomery core as
 * fr.c, with r as a constant of each including file so that it folds into
 * the code instead of costing a call per operation. */
#ifndef CZ_FF_FR_INLINE_H
#define CZ_FF_FR_INLINE_H

#include "ff/fr.h"
#include "ff/mont_impl.h"

static const uint64_t cz_fr_inline_modulus[CZ_FR_LIMBS] = CZ_FR_MODULUS_LIMBS;

static inline void cz_fr_add_inline(cz_fr *r, const cz_fr *a, const cz_fr *b) {
    mont_add(r->l, a->l, b->l, cz_fr_inline_modulus, CZ_FR_LIMBS);
}

static inline void cz_fr_sub_inline(cz_fr *r, const cz_fr *a, const cz_fr *b) {
    mont_sub(r->l, a->l, b->l, cz_fr_inline_modulus, CZ_FR_LIMBS);
}

static inline void cz_fr_mul_inline(cz_fr *r, const cz_fr *a, const cz_fr *b) {
    mont_mul(r->l, a->l, b->l, cz_fr_inline_modulus, CZ_FR_MINV, CZ_FR_LIMBS);
}

/* a == b (values are fully reduced, so equal limbs), without a branch per limb. */
static inline int cz_fr_equal_inline(const cz_fr *a, const cz_fr *b) {
    return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
            (a->l[3] ^ b->l[3])) == 0;
}

#endif
