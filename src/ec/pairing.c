#include "ec/pairing.h"

#include "ff/fp2_inline.h"

/* The Miller loop keeps one G2 point per pair in homogeneous projective
 * coordinates: (X, Y, Z) stands for (X/Z, Y/Z). It is private to this file,
 * independent of point.c's Jacobian arithmetic. */
typedef struct {
    cz_fp2 x, y, z;
} g2_proj;

/* The G1 point of a pair with the values the line coefficients need. */
typedef struct {
    cz_fp x, neg_x, y, neg_y;
} g1_prepared;

/* Line evaluation. On the M-type twist E': y^2 = x^3 + b', b' = 4 xi, the
 * untwisting map is (x, y) -> (x / w^2, y / w^3). A line on E' with slope
 * lambda through (x', y'), evaluated at P = (xP, yP) in G1 and multiplied by
 * w^3 (an Fp4 factor, which the final exponentiation removes), is
 *   (lambda x' - y') - lambda xP w^2 + yP w^3,
 * i.e. l0 + l1 v + l4 v w with l0, l1, l4 in Fp2: cz_fp12_mul_by_014. Every
 * line below is that, scaled by a non-zero Fp2 factor (also removed). */

/* T = 2 T, and the tangent line at T evaluated at P (Costello, Lange and
 * Naehrig, "Faster pairing computations on curves with high-degree twists",
 * PKC 2010, homogeneous coordinates, a = 0). With B = Y^2, C = Z^2,
 * E = 3 b' C, F = 3 E, H = 2 Y Z:
 *   X' = 2 X Y (B - F),  Y' = (B + F)^2 - 12 E^2,  Z' = 4 B H
 *   line = (E - B) + 3 X^2 xP v - H yP v w
 * (four times the usual X', Y', Z', which avoids halving). */
static void doubling_step(cz_fp2 *l0, cz_fp2 *l1, cz_fp2 *l4, g2_proj *t, const g1_prepared *p) {
    cz_fp2 b, c, e, f, h, x2, s;
    cz_fp2_sqr(&b, &t->y);
    cz_fp2_sqr(&c, &t->z);
    /* e = 3 b' c = 12 xi c */
    cz_fp2_mul_by_nonresidue_inline(&e, &c);
    cz_fp2_dbl_inline(&s, &e);
    cz_fp2_add_inline(&e, &s, &e);
    cz_fp2_dbl_inline(&e, &e);
    cz_fp2_dbl_inline(&e, &e);
    cz_fp2_dbl_inline(&f, &e);
    cz_fp2_add_inline(&f, &f, &e);
    cz_fp2_add_inline(&h, &t->y, &t->z);
    cz_fp2_sqr(&h, &h);
    cz_fp2_sub_inline(&h, &h, &b);
    cz_fp2_sub_inline(&h, &h, &c);
    cz_fp2_sqr(&x2, &t->x);

    /* line */
    cz_fp2_sub_inline(l0, &e, &b);
    cz_fp2_dbl_inline(&s, &x2);
    cz_fp2_add_inline(&s, &s, &x2);
    cz_fp2_mul_fp_inline(l1, &s, &p->x);
    cz_fp2_mul_fp_inline(l4, &h, &p->neg_y);

    /* point */
    cz_fp2_mul(&s, &t->x, &t->y);
    cz_fp2_dbl_inline(&s, &s);
    cz_fp2_sub_inline(&c, &b, &f);
    cz_fp2_mul(&t->x, &s, &c);
    cz_fp2_add_inline(&s, &b, &f);
    cz_fp2_sqr(&s, &s);
    cz_fp2_sqr(&e, &e);
    cz_fp2_dbl_inline(&c, &e);
    cz_fp2_add_inline(&c, &c, &e); /* 3 E^2 */
    cz_fp2_dbl_inline(&c, &c);
    cz_fp2_dbl_inline(&c, &c); /* 12 E^2 */
    cz_fp2_sub_inline(&t->y, &s, &c);
    cz_fp2_mul(&t->z, &b, &h);
    cz_fp2_dbl_inline(&t->z, &t->z);
    cz_fp2_dbl_inline(&t->z, &t->z);
}

/* T = T + Q for Q = (x2, y2) affine, and the line through T and Q evaluated
 * at P. With theta = Y - y2 Z and lambda = X - x2 Z (Z times the affine
 * differences), C = lambda^2, D = lambda^3, G = C X, F = theta^2 Z + D - 2 G:
 *   X' = lambda F,  Y' = theta (G - F) - D Y,  Z' = Z D
 *   line = (theta x2 - lambda y2) - theta xP v + lambda yP v w.
 * T != +-Q always holds inside the loop for Q of prime order r. */
static void addition_step(cz_fp2 *l0, cz_fp2 *l1, cz_fp2 *l4, g2_proj *t, const cz_g2_affine *q,
                          const g1_prepared *p) {
    cz_fp2 theta, lambda, c, d, g, f, s;
    cz_fp2_mul(&s, &q->y, &t->z);
    cz_fp2_sub_inline(&theta, &t->y, &s);
    cz_fp2_mul(&s, &q->x, &t->z);
    cz_fp2_sub_inline(&lambda, &t->x, &s);

    /* line */
    cz_fp2_mul(l0, &theta, &q->x);
    cz_fp2_mul(&s, &lambda, &q->y);
    cz_fp2_sub_inline(l0, l0, &s);
    cz_fp2_mul_fp_inline(l1, &theta, &p->neg_x);
    cz_fp2_mul_fp_inline(l4, &lambda, &p->y);

    /* point */
    cz_fp2_sqr(&c, &lambda);
    cz_fp2_mul(&d, &c, &lambda);
    cz_fp2_mul(&g, &c, &t->x);
    cz_fp2_sqr(&f, &theta);
    cz_fp2_mul(&f, &f, &t->z);
    cz_fp2_add_inline(&f, &f, &d);
    cz_fp2_sub_inline(&f, &f, &g);
    cz_fp2_sub_inline(&f, &f, &g);
    cz_fp2_mul(&t->x, &lambda, &f);
    cz_fp2_sub_inline(&s, &g, &f);
    cz_fp2_mul(&s, &s, &theta);
    cz_fp2_mul(&c, &d, &t->y);
    cz_fp2_sub_inline(&t->y, &s, &c);
    cz_fp2_mul(&t->z, &t->z, &d);
}

/* Pairs go through the loop in batches of this many, sharing the squarings of
 * f; the state lives on the stack, so nothing is allocated. */
#define MILLER_BATCH 8

/* out = prod f_{|x|, Q_j}(P_j) over one batch of finite pairs. */
static void miller_loop_batch(cz_fp12 *out, const g1_prepared *p, const cz_g2_affine *const *q,
                              size_t n) {
    g2_proj t[MILLER_BATCH];
    for (size_t j = 0; j < n; j++) {
        t[j].x = q[j]->x;
        t[j].y = q[j]->y;
        t[j].z = cz_fp2_one;
    }
    cz_fp12 f = cz_fp12_one;
    cz_fp2 l0, l1, l4;
    /* |x| has its top bit at 63; T starts at Q, so the loop runs over bits 62..0. */
    for (int i = 62; i >= 0; i--) {
        if (i != 62) cz_fp12_sqr(&f, &f);
        for (size_t j = 0; j < n; j++) {
            doubling_step(&l0, &l1, &l4, &t[j], &p[j]);
            cz_fp12_mul_by_014(&f, &f, &l0, &l1, &l4);
        }
        if ((CZ_BLS_X_ABS >> i) & 1) {
            for (size_t j = 0; j < n; j++) {
                addition_step(&l0, &l1, &l4, &t[j], q[j], &p[j]);
                cz_fp12_mul_by_014(&f, &f, &l0, &l1, &l4);
            }
        }
    }
    *out = f;
}

void cz_miller_loop(cz_fp12 *out, const cz_g1_affine *P, const cz_g2_affine *Q, size_t n) {
    g1_prepared p[MILLER_BATCH];
    const cz_g2_affine *q[MILLER_BATCH];
    cz_fp12 f = cz_fp12_one, g;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (cz_fp_is_zero(&P[i].x) & cz_fp_is_zero(&P[i].y)) continue;
        if (cz_fp2_is_zero(&Q[i].x) & cz_fp2_is_zero(&Q[i].y)) continue;
        p[m].x = P[i].x;
        cz_fp_neg(&p[m].neg_x, &P[i].x);
        p[m].y = P[i].y;
        cz_fp_neg(&p[m].neg_y, &P[i].y);
        q[m] = &Q[i];
        if (++m == MILLER_BATCH) {
            miller_loop_batch(&g, p, q, m);
            cz_fp12_mul(&f, &f, &g);
            m = 0;
        }
    }
    if (m > 0) {
        miller_loop_batch(&g, p, q, m);
        cz_fp12_mul(&f, &f, &g);
    }
    /* x < 0: f_{x,Q} = 1 / (f_{|x|,Q} v_{[|x|]Q}); the vertical line lies in
     * Fp6 and 1/f equals conj(f) after the easy part, so conjugate. */
    cz_fp12_conjugate(out, &f);
}

/* r = a^x for a in the cyclotomic subgroup (x < 0, so conjugate). */
static void cyclotomic_exp_by_x(cz_fp12 *r, const cz_fp12 *a) {
    const uint64_t x_abs = CZ_BLS_X_ABS;
    cz_fp12_cyclotomic_pow(r, a, &x_abs, 1);
    cz_fp12_conjugate(r, r);
}

void cz_final_exponentiation(cz_fp12 *out, const cz_fp12 *f) {
    /* Easy part: m = f^((p^6 - 1)(p^2 + 1)), which lands in G_phi6(p^2). */
    cz_fp12 m, t, a, b, c;
    cz_fp12_inv(&t, f);
    cz_fp12_conjugate(&m, f);
    cz_fp12_mul(&m, &m, &t);
    cz_fp12_frobenius_map(&t, &m, 2);
    cz_fp12_mul(&m, &m, &t);

    /* Hard part: m^(3 (p^4 - p^2 + 1) / r) = m^((x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3).
     * Inverses are conjugates from here on. */
    cyclotomic_exp_by_x(&a, &m); /* a = m^(x - 1) */
    cz_fp12_conjugate(&t, &m);
    cz_fp12_mul(&a, &a, &t);
    cyclotomic_exp_by_x(&t, &a); /* a = m^((x - 1)^2) */
    cz_fp12_conjugate(&a, &a);
    cz_fp12_mul(&a, &a, &t);
    cyclotomic_exp_by_x(&b, &a); /* b = a^(x + p) */
    cz_fp12_frobenius_map(&t, &a, 1);
    cz_fp12_mul(&b, &b, &t);
    cyclotomic_exp_by_x(&c, &b); /* c = b^(x^2 + p^2 - 1) */
    cyclotomic_exp_by_x(&c, &c);
    cz_fp12_frobenius_map(&t, &b, 2);
    cz_fp12_mul(&c, &c, &t);
    cz_fp12_conjugate(&t, &b);
    cz_fp12_mul(&c, &c, &t);
    cz_fp12_cyclotomic_sqr(&t, &m); /* times m^3 */
    cz_fp12_mul(&t, &t, &m);
    cz_fp12_mul(out, &c, &t);
}

void cz_pairing(cz_fp12 *out, const cz_g1_affine *P, const cz_g2_affine *Q) {
    cz_multi_pairing(out, P, Q, 1);
}

void cz_multi_pairing(cz_fp12 *out, const cz_g1_affine *P, const cz_g2_affine *Q, size_t n) {
    cz_fp12 f;
    cz_miller_loop(&f, P, Q, n);
    cz_final_exponentiation(out, &f);
}
