#include "ec/point.h"

#include <string.h>

/* Parses a 96-character big-endian hex constant (the generators below). */
static void fp_from_hex(cz_fp *r, const char *hex) {
    uint8_t be[CZ_FP_BYTES];
    for (int i = 0; i < CZ_FP_BYTES; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = hex[2 * i + k];
            v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
        }
        be[i] = (uint8_t)v;
    }
    cz_fp_from_bytes_be(r, be); /* the constants are canonical */
}

/* ---- G1 ---- */
#define PT cz_g1
#define PTA cz_g1_affine
#define F cz_fp
#define F_(name) cz_fp_##name
#define PT_(name) cz_g1_##name
static void g1_curve_b(cz_fp *b) {
    cz_fp_from_u64(b, 4);
}
#define curve_b g1_curve_b
#include "ec/point_impl.h"
#undef PT
#undef PTA
#undef F
#undef F_
#undef PT_
#undef curve_b

void cz_g1_affine_generator(cz_g1_affine *r) {
    fp_from_hex(&r->x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    fp_from_hex(&r->y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
}

void cz_g1_generator(cz_g1 *r) {
    cz_g1_affine a;
    cz_g1_affine_generator(&a);
    cz_g1_from_affine(r, &a);
}

/* ---- G2 ---- */
#define PT cz_g2
#define PTA cz_g2_affine
#define F cz_fp2
#define F_(name) cz_fp2_##name
#define PT_(name) cz_g2_##name
static void g2_curve_b(cz_fp2 *b) {
    cz_fp_from_u64(&b->c0, 4);
    cz_fp_from_u64(&b->c1, 4);
}
#define curve_b g2_curve_b
#include "ec/point_impl.h"
#undef PT
#undef PTA
#undef F
#undef F_
#undef PT_
#undef curve_b

void cz_g2_affine_generator(cz_g2_affine *r) {
    fp_from_hex(&r->x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    fp_from_hex(&r->x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    fp_from_hex(&r->y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
    fp_from_hex(&r->y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
}

void cz_g2_generator(cz_g2 *r) {
    cz_g2_affine a;
    cz_g2_affine_generator(&a);
    cz_g2_from_affine(r, &a);
}
