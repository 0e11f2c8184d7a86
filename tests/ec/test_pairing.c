/* The optimal ate pairing against @noble/curves (tests/vectors/pairing_*.txt
 * and the final exponentiations in tower_fp12_cyclo.txt, made by
 * tests/oracle/gen_{pairing,tower}.mjs), and algebraically: bilinearity with
 * Fr arithmetic and with point.c's scalar multiplication, e(P, Q) e(-P, Q) = 1
 * through the multi-pairing, infinity pairs contribute 1, non-degeneracy,
 * order r, and the exact exponent of the final exponentiation (from GMP). */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "ec/pairing.h"
#include "harness/bls_vectors.h"

/* r = a^k for k in Fr, with the generic (not cyclotomic) square-and-multiply */
static void fp12_pow_fr(cz_fp12 *r, const cz_fp12 *a, const cz_fr *k) {
    uint64_t limbs[CZ_FR_LIMBS];
    cz_fr_to_limbs(limbs, k);
    cz_fp12_pow(r, a, limbs, CZ_FR_LIMBS);
}

static void rand_fr(cz_fr *r) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(r, b, sizeof b);
}

static cz_fp12 gt_generator; /* e(G1, G2), from the first noble case */

static void test_noble_pairings(void) {
    cz_vector_file vf;
    unsigned cases = 0;
    if (cz_vector_open(&vf, "pairing_random.txt")) {
        while (cz_vector_next(&vf)) {
            cz_fr a, b, ab;
            cz_g1_affine P;
            cz_g2_affine Q;
            cz_fp12 want, got, t;
            if (!cz_vec_fr(&vf, 0, &a) || !cz_vec_fr(&vf, 1, &b) || !cz_vec_g1(&vf, 2, &P) ||
                !cz_vec_g2(&vf, 3, &Q) || !cz_vec_fp12(&vf, 4, &want))
                break;
            cz_pairing(&got, &P, &Q);
            CHECK(cz_fp12_equal(&got, &want));
            if (cases == 0) {
                /* a = b = 1: the generators, and e(G1, G2) != 1 */
                cz_g1_affine g1;
                cz_g2_affine g2;
                cz_g1_affine_generator(&g1);
                cz_g2_affine_generator(&g2);
                CHECK(cz_fr_is_one(&a) && cz_fr_is_one(&b));
                CHECK(cz_g1_affine_equal(&g1, &P) && cz_g2_affine_equal(&g2, &Q));
                CHECK(!cz_fp12_is_one(&got));
                gt_generator = got;
            }
            /* bilinearity: e(aG1, bG2) = e(G1, G2)^(ab mod r) */
            cz_fr_mul(&ab, &a, &b);
            fp12_pow_fr(&t, &gt_generator, &ab);
            CHECK(cz_fp12_equal(&got, &t));
            cases++;
        }
        cz_vector_close(&vf);
    }
    CHECK(cases >= 32);

    unsigned multi = 0;
    if (cz_vector_open(&vf, "pairing_multi.txt")) {
        while (cz_vector_next(&vf)) {
            enum { MAX = 16 };
            cz_g1_affine P[MAX];
            cz_g2_affine Q[MAX];
            cz_fp12 want, got, prod = cz_fp12_one, t;
            long n = strtol(vf.fields[0], NULL, 10);
            CHECK(n >= 1 && n <= MAX);
            if (n < 1 || n > MAX) break;
            int ok = 1;
            for (long i = 0; i < n && ok; i++)
                ok = cz_vec_g1(&vf, 1 + 2 * (int)i, &P[i]) && cz_vec_g2(&vf, 2 + 2 * (int)i, &Q[i]);
            if (!ok || !cz_vec_fp12(&vf, 1 + 2 * (int)n, &want)) break;
            cz_multi_pairing(&got, P, Q, (size_t)n);
            CHECK(cz_fp12_equal(&got, &want));
            for (long i = 0; i < n; i++) {
                cz_pairing(&t, &P[i], &Q[i]);
                cz_fp12_mul(&prod, &prod, &t);
            }
            CHECK(cz_fp12_equal(&prod, &want));
            /* the same with the Miller loop and final exponentiation separately */
            cz_miller_loop(&t, P, Q, (size_t)n);
            cz_final_exponentiation(&t, &t);
            CHECK(cz_fp12_equal(&t, &want));
            multi++;
        }
        cz_vector_close(&vf);
    }
    CHECK(multi >= 12);

    /* the final exponentiation alone, on arbitrary (non-Miller) elements */
    unsigned fe = 0;
    if (cz_vector_open(&vf, "tower_fp12_cyclo.txt")) {
        while (cz_vector_next(&vf)) {
            cz_fp12 a, want, got;
            if (!cz_vec_fp12(&vf, 0, &a) || !cz_vec_fp12(&vf, 3, &want)) break;
            cz_final_exponentiation(&got, &a);
            CHECK(cz_fp12_equal(&got, &want));
            fe++;
        }
        cz_vector_close(&vf);
    }
    CHECK(fe >= 40);
    printf("pairing: %u single, %u multi, %u final-exponentiation noble cases\n", cases, multi, fe);
}

/* out = e^k where k = 3 (p^12 - 1) / r (cube = 1) or (p^12 - 1) / r */
static void pow_by_final_exponent(cz_fp12 *out, const cz_fp12 *f, int cube) {
    uint8_t pb[CZ_FP_BYTES], rb[CZ_FR_BYTES];
    for (int i = 0; i < CZ_FP_LIMBS; i++)
        for (int k = 0; k < 8; k++)
            pb[CZ_FP_BYTES - 1 - (8 * i + k)] = (uint8_t)(cz_fp_modulus[i] >> 8 * k);
    for (int i = 0; i < CZ_FR_LIMBS; i++)
        for (int k = 0; k < 8; k++)
            rb[CZ_FR_BYTES - 1 - (8 * i + k)] = (uint8_t)(cz_fr_modulus[i] >> 8 * k);
    mpz_t p, r, e;
    mpz_inits(p, r, e, NULL);
    mpz_import(p, sizeof pb, 1, 1, 1, 0, pb);
    mpz_import(r, sizeof rb, 1, 1, 1, 0, rb);
    mpz_pow_ui(e, p, 12);
    mpz_sub_ui(e, e, 1);
    CHECK(mpz_divisible_p(e, r));
    mpz_divexact(e, e, r);
    if (cube) mpz_mul_ui(e, e, 3);
    uint64_t limbs[80] = {0};
    size_t n = 0;
    mpz_export(limbs, &n, -1, 8, 0, 0, e);
    cz_fp12_pow(out, f, limbs, n);
    mpz_clears(p, r, e, NULL);
}

static void test_algebra(unsigned iters) {
    cz_g1_affine g1, P, negP, inf1 = {{{0}}, {{0}}};
    cz_g2_affine g2, Q, negQ, inf2 = {{{{0}}, {{0}}}, {{{0}}, {{0}}}};
    cz_g1 j1;
    cz_g2 j2;
    cz_fp12 e, t, u;
    cz_g1_affine_generator(&g1);
    cz_g2_affine_generator(&g2);

    /* which power of the Miller value we compute: 3 (p^12 - 1) / r, like noble */
    cz_miller_loop(&t, &g1, &g2, 1);
    cz_final_exponentiation(&e, &t);
    pow_by_final_exponent(&u, &t, 1);
    CHECK(cz_fp12_equal(&e, &u));
    pow_by_final_exponent(&u, &t, 0);
    CHECK(!cz_fp12_equal(&e, &u));
    cz_fp12 u3;
    cz_fp12_sqr(&u3, &u), cz_fp12_mul(&u3, &u3, &u);
    CHECK(cz_fp12_equal(&e, &u3));

    /* order r, non-degenerate */
    cz_pairing(&e, &g1, &g2);
    CHECK(!cz_fp12_is_one(&e));
    cz_fp12_pow(&t, &e, cz_fr_modulus, CZ_FR_LIMBS), CHECK(cz_fp12_is_one(&t));

    /* infinity contributes 1; n = 0 is 1 */
    cz_pairing(&t, &inf1, &g2), CHECK(cz_fp12_is_one(&t));
    cz_pairing(&t, &g1, &inf2), CHECK(cz_fp12_is_one(&t));
    cz_pairing(&t, &inf1, &inf2), CHECK(cz_fp12_is_one(&t));
    cz_multi_pairing(&t, &g1, &g2, 0), CHECK(cz_fp12_is_one(&t));
    cz_miller_loop(&t, &g1, &g2, 0), CHECK(cz_fp12_is_one(&t));

    for (unsigned it = 0; it < iters; it++) {
        cz_fr a, b, ab;
        rand_fr(&a);
        rand_fr(&b);
        cz_g1_from_affine(&j1, &g1);
        cz_g1_mul_var(&j1, &j1, &a);
        cz_g1_to_affine(&P, &j1);
        cz_g2_from_affine(&j2, &g2);
        cz_g2_mul_var(&j2, &j2, &b);
        cz_g2_to_affine(&Q, &j2);
        cz_g1_affine_neg(&negP, &P);
        cz_g2_affine_neg(&negQ, &Q);

        /* e(aG1, bG2) = e(G1, G2)^(ab) = e(abG1, G2) */
        cz_pairing(&e, &P, &Q);
        cz_fr_mul(&ab, &a, &b);
        fp12_pow_fr(&t, &gt_generator, &ab), CHECK(cz_fp12_equal(&e, &t));
        cz_g1_affine abP;
        cz_g1_from_affine(&j1, &g1);
        cz_g1_mul_var(&j1, &j1, &ab);
        cz_g1_to_affine(&abP, &j1);
        cz_pairing(&t, &abP, &g2), CHECK(cz_fp12_equal(&e, &t));

        /* e(P, Q) e(-P, Q) = 1 and e(P, Q) e(P, -Q) = 1 as multi-pairings */
        cz_g1_affine ps[2] = {P, negP};
        cz_g2_affine qs[2] = {Q, Q};
        cz_multi_pairing(&t, ps, qs, 2), CHECK(cz_fp12_is_one(&t));
        ps[1] = P, qs[1] = negQ;
        cz_multi_pairing(&t, ps, qs, 2), CHECK(cz_fp12_is_one(&t));
        cz_pairing(&t, &negP, &Q), cz_fp12_conjugate(&u, &e), CHECK(cz_fp12_equal(&t, &u));

        /* infinity pairs anywhere in a batch change nothing; 19 pairs cross
         * the internal batches of 8 */
        enum { N = 19 };
        cz_g1_affine pn[N];
        cz_g2_affine qn[N];
        for (int i = 0; i < N; i++) pn[i] = P, qn[i] = Q;
        pn[3] = inf1, qn[7] = inf2, pn[11] = inf1, qn[11] = inf2;
        cz_multi_pairing(&t, pn, qn, N);
        /* 16 finite pairs, each e(P, Q) */
        uint64_t sixteen = 16;
        cz_fp12_pow(&u, &e, &sixteen, 1), CHECK(cz_fp12_equal(&t, &u));
        /* GT membership of the result */
        cz_fp12_pow(&t, &e, cz_fr_modulus, CZ_FR_LIMBS), CHECK(cz_fp12_is_one(&t));
    }
}

int main(void) {
    cz_test_init("test_pairing");
    unsigned iters = cz_test_iters(4);
    test_noble_pairings();
    test_algebra(iters);
    return cz_test_finish("test_pairing");
}
