/* Readers for BLS12-381 values in vector files (see harness.h): big-endian
 * canonical hex. Fr: 32 bytes; Fp2: c0 || c1; Fp6 / Fp12: their to_bytes
 * layout; G1 affine: x || y; G2 affine: x.c0 || x.c1 || y.c0 || y.c1; all-zero
 * coordinates are the point at infinity. Each returns 1 on success and
 * records a test failure otherwise (bad hex, value >= modulus, point off the
 * curve). */
#ifndef CZ_TEST_BLS_VECTORS_H
#define CZ_TEST_BLS_VECTORS_H

#include "ec/point.h"
#include "ff/fp12.h"
#include "harness/harness.h"

int cz_vec_fr(cz_vector_file *vf, int field, cz_fr *r);
int cz_vec_fp2(cz_vector_file *vf, int field, cz_fp2 *r);
int cz_vec_fp6(cz_vector_file *vf, int field, cz_fp6 *r);
int cz_vec_fp12(cz_vector_file *vf, int field, cz_fp12 *r);
int cz_vec_g1(cz_vector_file *vf, int field, cz_g1_affine *r);
int cz_vec_g2(cz_vector_file *vf, int field, cz_g2_affine *r);

#endif
