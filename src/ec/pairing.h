/* The optimal ate pairing of BLS12-381, e: G1 x G2 -> GT (subgroup of Fp12*).
 *
 * Miller loop over the BLS parameter x = -0xd201000000010000 with the G2
 * point in homogeneous projective coordinates on the M-type twist
 * y^2 = x^3 + 4(1 + u), lines evaluated at the G1 point inside the loop; then
 * the final exponentiation.
 *
 * Which power of the Miller value GT holds: cz_final_exponentiation computes
 * f^(3 (p^12 - 1) / r), not f^((p^12 - 1) / r). The hard part uses the chain
 * 3 (p^4 - p^2 + 1) / r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3 of Hayashida,
 * Hayasaka and Teruya (ePrint 2020/875). Cubing is a bijection of GT (3 does
 * not divide r), so this is still a non-degenerate bilinear pairing, and it is
 * exactly the value @noble/curves produces (tests/ec/test_pairing.c compares
 * them and checks the exponent with GMP); noble's chain is zkcrypto
 * bls12_381's. Only products and equalities of GT values matter to Groth16
 * verification, so any fixed power coprime to r would do.
 *
 * Inputs are affine points, with infinity stored as (0, 0) (src/ec/point.h);
 * a pair with an infinity contributes 1. Points must lie in G1 and G2 (the
 * prime-order subgroups): the caller checks that (cz_g1/g2_affine_is_on_curve
 * and _is_in_subgroup); for other points the value is meaningless, though the
 * functions still return without fault. Constant time in the point values
 * except for the infinity checks. cz_final_exponentiation's out may alias f. */
#ifndef CZ_EC_PAIRING_H
#define CZ_EC_PAIRING_H

#include <stddef.h>

#include "ec/point.h"
#include "ff/fp12.h"

/* |x| for BLS12-381; x itself is negative. */
#define CZ_BLS_X_ABS 0xd201000000010000ULL

/* out = prod_i f_{x, Q[i]}(P[i]) for n pairs, up to factors the final
 * exponentiation removes; one shared squaring chain per batch of pairs, so a
 * multi-pairing needs one Miller loop pass and one final exponentiation.
 * n = 0, or all pairs with an infinity, gives 1. */
void cz_miller_loop(cz_fp12 *out, const cz_g1_affine *P, const cz_g2_affine *Q, size_t n);
/* out = f^(3 (p^12 - 1) / r) (see above); f = 0 gives 0. */
void cz_final_exponentiation(cz_fp12 *out, const cz_fp12 *f);
/* out = e(P, Q). */
void cz_pairing(cz_fp12 *out, const cz_g1_affine *P, const cz_g2_affine *Q);
/* out = prod_i e(P[i], Q[i]) for n pairs. */
void cz_multi_pairing(cz_fp12 *out, const cz_g1_affine *P, const cz_g2_affine *Q, size_t n);

#endif
