/* Fp6 = Fp2[v] / (v^3 - xi), xi = 1 + u; element c0 + c1 v + c2 v^2.
 *
 * This is the middle of the zcash / IETF BLS12-381 tower (Fp2 -> Fp6 -> Fp12).
 * Every coefficient is a fully reduced Fp2 element, so equality is equality of
 * coefficients. Outputs may alias inputs everywhere. Everything is constant
 * time (the Frobenius power k and sparse shapes are public). */
#ifndef CZ_FF_FP6_H
#define CZ_FF_FP6_H

#include "ff/fp2.h"

#define CZ_FP6_BYTES (6 * CZ_FP_BYTES)

typedef struct {
    cz_fp2 c0, c1, c2;
} cz_fp6;

extern const cz_fp6 cz_fp6_zero;
extern const cz_fp6 cz_fp6_one;

void cz_fp6_add(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_sub(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_dbl(cz_fp6 *r, const cz_fp6 *a);
void cz_fp6_neg(cz_fp6 *r, const cz_fp6 *a);
void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a);
/* r = a * v (the non-residue that builds Fp12: w^2 = v) */
void cz_fp6_mul_by_nonresidue(cz_fp6 *r, const cz_fp6 *a);
/* r = a * b with b in Fp2 (a constant in v) */
void cz_fp6_mul_fp2(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b);
/* Sparse products for line evaluation: r = a * (b0 + b1 v) and r = a * (b1 v). */
void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1);
void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1);
/* a^-1 (0 maps to 0); _var uses the variable-time Fp2 inversion. */
void cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a);
void cz_fp6_inv_var(cz_fp6 *r, const cz_fp6 *a);
/* r = a^(p^k) for any k >= 0 (the map has order 6 on Fp6). */
void cz_fp6_frobenius_map(cz_fp6 *r, const cz_fp6 *a, unsigned k);

int cz_fp6_is_zero(const cz_fp6 *a);
int cz_fp6_is_one(const cz_fp6 *a);
int cz_fp6_equal(const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_select(cz_fp6 *r, int cond, const cz_fp6 *a, const cz_fp6 *b);

/* Canonical bytes: the six Fp coefficients c0.c0, c0.c1, c1.c0, c1.c1, c2.c0,
 * c2.c1 in that order, each CZ_FP_BYTES big-endian (CZ_FP6_BYTES in all).
 * from_bytes returns 0 and leaves r untouched when a coefficient is >= p. */
void cz_fp6_to_bytes(uint8_t *out, const cz_fp6 *a);
int cz_fp6_from_bytes(cz_fp6 *r, const uint8_t *in);

#endif
