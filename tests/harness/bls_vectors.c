#include "harness/bls_vectors.h"

static int fp2_from_be(cz_fp2 *r, const uint8_t *in) {
    return cz_fp_from_bytes_be(&r->c0, in) && cz_fp_from_bytes_be(&r->c1, in + CZ_FP_BYTES);
}

int cz_vec_fr(cz_vector_file *vf, int field, cz_fr *r) {
    uint8_t b[CZ_FR_BYTES];
    int ok = cz_vector_hex(vf, field, b, sizeof b) && cz_fr_from_bytes_be(r, b);
    CHECK(ok);
    return ok;
}

int cz_vec_fp2(cz_vector_file *vf, int field, cz_fp2 *r) {
    uint8_t b[2 * CZ_FP_BYTES];
    int ok = cz_vector_hex(vf, field, b, sizeof b) && fp2_from_be(r, b);
    CHECK(ok);
    return ok;
}

int cz_vec_fp6(cz_vector_file *vf, int field, cz_fp6 *r) {
    uint8_t b[CZ_FP6_BYTES];
    int ok = cz_vector_hex(vf, field, b, sizeof b) && cz_fp6_from_bytes(r, b);
    CHECK(ok);
    return ok;
}

int cz_vec_fp12(cz_vector_file *vf, int field, cz_fp12 *r) {
    uint8_t b[CZ_FP12_BYTES];
    int ok = cz_vector_hex(vf, field, b, sizeof b) && cz_fp12_from_bytes(r, b);
    CHECK(ok);
    return ok;
}

int cz_vec_g1(cz_vector_file *vf, int field, cz_g1_affine *r) {
    uint8_t b[2 * CZ_FP_BYTES];
    int ok = cz_vector_hex(vf, field, b, sizeof b) && cz_fp_from_bytes_be(&r->x, b) &&
             cz_fp_from_bytes_be(&r->y, b + CZ_FP_BYTES) && cz_g1_affine_is_on_curve(r);
    CHECK(ok);
    return ok;
}

int cz_vec_g2(cz_vector_file *vf, int field, cz_g2_affine *r) {
    uint8_t b[4 * CZ_FP_BYTES];
    int ok = cz_vector_hex(vf, field, b, sizeof b) && fp2_from_be(&r->x, b) &&
             fp2_from_be(&r->y, b + 2 * CZ_FP_BYTES) && cz_g2_affine_is_on_curve(r);
    CHECK(ok);
    return ok;
}
