/* Fr: the 255-bit scalar field of BLS12-381 (the group order),
 * r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001.
 * Four 64-bit limbs, Montgomery form with R = 2^256. r - 1 = 2^32 * t. */
#ifndef CZ_FF_FR_H
#define CZ_FF_FR_H

#include <stddef.h>
#include <stdint.h>

#define CZ_FR_LIMBS 4
#define CZ_FR_BYTES 32
#define CZ_FR_TWO_ADICITY 32

typedef struct {
    uint64_t l[CZ_FR_LIMBS];
} cz_fr;

/* r as little-endian limbs, and -r^-1 mod 2^64 (for the inline ops). */
#define CZ_FR_MODULUS_LIMBS                                                                        \
    {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL}
#define CZ_FR_MINV 0xfffffffeffffffffULL
extern const uint64_t cz_fr_modulus[CZ_FR_LIMBS];

#define CZ_FIELD cz_fr
#define CZ_FIELD_FN(name) cz_fr_##name
#include "ff/field_decl.h"
#undef CZ_FIELD
#undef CZ_FIELD_FN

/* The 2^32-th primitive root of unity bellperson uses: 7^t, t = (r-1)/2^32. */
void cz_fr_root_of_unity(cz_fr *r);
/* The multiplicative generator 7 (bellperson's coset shift). */
void cz_fr_generator(cz_fr *r);

#endif
