/* Fp12 = Fp6[w] / (w^2 - v), element c0 + c1 w; the pairing target field.
 *
 * With w^2 = v and v^3 = xi = 1 + u, w^6 = xi, so Fp12 = Fp2[w]/(w^6 - xi) and
 * the coefficient of w^i (i = 0..5) sits at c(i%2).c(i/2). Elements are
 * always fully reduced coefficient-wise, so equality is equality of
 * coefficients. Outputs may alias inputs everywhere. Everything is constant
 * time except the _var functions (exponents and Frobenius powers are public).
 *
 * GT, the pairing group, is the order-r subgroup of Fp12*. It lies in the
 * cyclotomic subgroup G_phi6(p^2) = { a : a^(p^4 - p^2 + 1) = 1 }, where
 * a^-1 = conjugate(a) and cyclotomic_sqr is a cheaper square. */
#ifndef CZ_FF_FP12_H
#define CZ_FF_FP12_H

#include "ff/fp6.h"

#define CZ_FP12_BYTES (12 * CZ_FP_BYTES)

typedef struct {
    cz_fp6 c0, c1;
} cz_fp12;

extern const cz_fp12 cz_fp12_zero;
extern const cz_fp12 cz_fp12_one;

void cz_fp12_add(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_sub(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_neg(cz_fp12 *r, const cz_fp12 *a);
void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *a);
/* r = a * (l0 + l1 w^2 + l4 w^3), i.e. a times the sparse element whose only
 * non-zero coefficients are c0.c0 = l0, c0.c1 = l1, c1.c1 = l4: the shape of
 * a line evaluated on the M-type twist. */
void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *l0, const cz_fp2 *l1,
                        const cz_fp2 *l4);
/* a^-1 (0 maps to 0); _var uses the variable-time Fp inversion inside. */
void cz_fp12_inv(cz_fp12 *r, const cz_fp12 *a);
void cz_fp12_inv_var(cz_fp12 *r, const cz_fp12 *a);
/* r = c0 - c1 w = a^(p^6); equals a^-1 when a is in the cyclotomic subgroup. */
void cz_fp12_conjugate(cz_fp12 *r, const cz_fp12 *a);
/* r = a^(p^k) for any k >= 0 (the map has order 12). */
void cz_fp12_frobenius_map(cz_fp12 *r, const cz_fp12 *a, unsigned k);
/* r = a^2 for a in the cyclotomic subgroup G_phi6(p^2) (Granger-Scott); the
 * result is meaningless for other a. Three Fp4 squarings, each 6 full-width
 * Fp products and 4 Montgomery reductions (lazy reduction), against 12 Fp2
 * products for cz_fp12_sqr. */
void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a);
/* r = a^exp for a public little-endian exponent of exp_limbs 64-bit limbs
 * (a^0 = 1). The cyclotomic variant requires a in G_phi6(p^2). */
void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *exp, size_t exp_limbs);
void cz_fp12_cyclotomic_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *exp, size_t exp_limbs);

int cz_fp12_is_zero(const cz_fp12 *a);
int cz_fp12_is_one(const cz_fp12 *a);
int cz_fp12_equal(const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_select(cz_fp12 *r, int cond, const cz_fp12 *a, const cz_fp12 *b);

/* Canonical bytes: c0 then c1, each as cz_fp6_to_bytes (twelve big-endian Fp
 * coefficients, c0.c0.c0 first, CZ_FP12_BYTES in all). from_bytes returns 0
 * and leaves r untouched when a coefficient is >= p. */
void cz_fp12_to_bytes(uint8_t *out, const cz_fp12 *a);
int cz_fp12_from_bytes(cz_fp12 *r, const uint8_t *in);

#endif
