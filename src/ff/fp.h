/* Fp: the 381-bit base field of BLS12-381,
 * p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab.
 * Six 64-bit limbs, Montgomery form with R = 2^384. */
#ifndef CZ_FF_FP_H
#define CZ_FF_FP_H

#include <stddef.h>
#include <stdint.h>

#define CZ_FP_LIMBS 6
#define CZ_FP_BYTES 48

typedef struct {
    uint64_t l[CZ_FP_LIMBS];
} cz_fp;

/* The modulus as canonical little-endian limbs. */
extern const uint64_t cz_fp_modulus[CZ_FP_LIMBS];

#define CZ_FIELD cz_fp
#define CZ_FIELD_FN(name) cz_fp_##name
#include "ff/field_decl.h"
#undef CZ_FIELD
#undef CZ_FIELD_FN

#endif
