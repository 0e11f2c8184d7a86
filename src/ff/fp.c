#include "ff/fp.h"

const uint64_t cz_fp_modulus[CZ_FP_LIMBS] = {
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
    0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
#define field_modulus cz_fp_modulus
/* 2^768 mod p */
static const uint64_t field_r2[CZ_FP_LIMBS] = {
    0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
    0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
#define FIELD_MINV 0x89f3fffcfffcfffdULL
#define FIELD_N CZ_FP_LIMBS
#define FIELD_BYTES CZ_FP_BYTES
#define FIELD_NONRESIDUE 2 /* p = 3 mod 8, so 2 is not a square */
#define CZ_FIELD cz_fp
#define CZ_FIELD_FN(name) cz_fp_##name

/* one in Montgomery form: 2^384 mod p */
const cz_fp cz_fp_one = {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                          0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};

#include "ff/field_impl.h"
