#include "ff/fr.h"

const uint64_t cz_fr_modulus[CZ_FR_LIMBS] = CZ_FR_MODULUS_LIMBS;
#define field_modulus cz_fr_modulus
/* 2^512 mod r */
static const uint64_t field_r2[CZ_FR_LIMBS] = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
                                               0x05d314967254398fULL, 0x0748d9d99f59ff11ULL};
#define FIELD_MINV CZ_FR_MINV
#define FIELD_N CZ_FR_LIMBS
#define FIELD_BYTES CZ_FR_BYTES
#define FIELD_NONRESIDUE 7 /* the multiplicative generator */
#define CZ_FIELD cz_fr
#define CZ_FIELD_FN(name) cz_fr_##name

/* 2^256 mod r */
const cz_fr cz_fr_one = {{0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
                          0x1824b159acc5056fULL}};

#include "ff/field_impl.h"

void cz_fr_generator(cz_fr *r) {
    cz_fr_from_u64(r, 7);
}

void cz_fr_root_of_unity(cz_fr *r) {
    uint64_t t[CZ_FR_LIMBS];
    memcpy(t, cz_fr_modulus, sizeof t);
    t[0] -= 1; /* r - 1, no borrow: the low limb is odd */
    for (int i = 0; i < CZ_FR_TWO_ADICITY; i++) mont_shr1(t, 0, CZ_FR_LIMBS);
    cz_fr g;
    cz_fr_generator(&g);
    cz_fr_pow(r, &g, t, CZ_FR_LIMBS);
}
