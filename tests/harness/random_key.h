/* Random proving-key material for the key-format tests: points are random
 * multiples of the generators (so on the curve and in the subgroup), drawn
 * from the harness's seeded generator. */
#ifndef CZ_TEST_RANDOM_KEY_H
#define CZ_TEST_RANDOM_KEY_H

#include <stddef.h>

#include "ec/point.h"
#include "ff/fr.h"
#include "groth16/groth16.h"

void cz_test_random_fr(cz_fr *k);
void cz_test_random_g1(cz_g1_affine *out);
void cz_test_random_g2(cz_g2_affine *out);
/* A params with random points and the given vector lengths (b_g1 and b_g2
 * both n_b); free with cz_groth16_params_free. */
void cz_test_random_params(cz_groth16_params *p, size_t n_ic, size_t n_h, size_t n_l, size_t n_a,
                           size_t n_b);

#endif
