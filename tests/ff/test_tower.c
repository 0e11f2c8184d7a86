/* Fp2, Fp6 and Fp12 against @noble/curves vectors (tests/vectors/tower_*.txt,
 * made by tests/oracle/gen_tower.mjs), plus algebraic identities on random
 * elements: the Frobenius maps against a^(p^k) with exponents from GMP,
 * a^(p^12 - 1) = 1, sparse and cyclotomic operations against the generic
 * ones, aliasing, zero/one edge cases and byte encodings. */
#include <gmp.h>
#include <string.h>

#include "ff/fp12.h"
#include "harness/bls_vectors.h"

/* ---- random elements ---------------------------------------------------- */

static void rand_fp(cz_fp *r) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fp_from_bytes_le_reduce(r, b, sizeof b);
}

static void rand_fp2(cz_fp2 *r) {
    rand_fp(&r->c0);
    rand_fp(&r->c1);
}

static void rand_fp6(cz_fp6 *r) {
    rand_fp2(&r->c0);
    rand_fp2(&r->c1);
    rand_fp2(&r->c2);
}

static void rand_fp12(cz_fp12 *r) {
    rand_fp6(&r->c0);
    rand_fp6(&r->c1);
}

/* ---- exponents from GMP ------------------------------------------------- */

#define MAX_EXP_LIMBS 80 /* p^12 has 4569 bits < 80 * 64 */

static mpz_t P; /* the base-field modulus */

/* exp = v as little-endian limbs; returns the limb count */
static size_t mpz_to_limbs(uint64_t *exp, const mpz_t v) {
    size_t n = 0;
    memset(exp, 0, MAX_EXP_LIMBS * 8);
    mpz_export(exp, &n, -1, 8, 0, 0, v);
    return n;
}

static void fp6_pow(cz_fp6 *r, const cz_fp6 *a, const uint64_t *e, size_t n) {
    cz_fp6 acc = cz_fp6_one;
    for (size_t i = 64 * n; i-- > 0;) {
        cz_fp6_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) cz_fp6_mul(&acc, &acc, a);
    }
    *r = acc;
}

/* ---- Fp2 ---------------------------------------------------------------- */

static void test_fp2_vectors(void) {
    cz_vector_file vf;
    if (!cz_vector_open(&vf, "tower_fp2.txt")) return;
    unsigned cases = 0, roots = 0;
    while (cz_vector_next(&vf)) {
        cz_fp2 a, b, mul, sqr, inv, got;
        if (!cz_vec_fp2(&vf, 0, &a) || !cz_vec_fp2(&vf, 1, &b) || !cz_vec_fp2(&vf, 2, &mul) ||
            !cz_vec_fp2(&vf, 3, &sqr) || !cz_vec_fp2(&vf, 4, &inv))
            break;
        cz_fp2_mul(&got, &a, &b), CHECK(cz_fp2_equal(&got, &mul));
        cz_fp2_sqr(&got, &a), CHECK(cz_fp2_equal(&got, &sqr));
        cz_fp2_inv(&got, &a), CHECK(cz_fp2_equal(&got, &inv));
        cz_fp2_inv_var(&got, &a), CHECK(cz_fp2_equal(&got, &inv));
        int found = cz_fp2_sqrt_var(&got, &a);
        if (cz_vector_hex_len(&vf, 5) == 0) {
            CHECK(!found);
        } else {
            cz_fp2 want, neg;
            if (!cz_vec_fp2(&vf, 5, &want)) break;
            CHECK(found);
            cz_fp2_neg(&neg, &want);
            CHECK(found && (cz_fp2_equal(&got, &want) || cz_fp2_equal(&got, &neg)));
            roots++;
        }
        cases++;
    }
    cz_vector_close(&vf);
    CHECK(cases >= 300 && roots > 100 && roots < cases);
    printf("fp2: %u noble cases (%u squares)\n", cases, roots);
}

/* ---- Fp6 ---------------------------------------------------------------- */

static void test_fp6_vectors(void) {
    cz_vector_file vf;
    if (!cz_vector_open(&vf, "tower_fp6.txt")) return;
    unsigned cases = 0;
    while (cz_vector_next(&vf)) {
        cz_fp6 v[10], got;
        int ok = 1;
        for (int i = 0; i < 10 && ok; i++) ok = cz_vec_fp6(&vf, i, &v[i]);
        if (!ok) break;
        const cz_fp6 *a = &v[0], *b = &v[1];
        cz_fp6_mul(&got, a, b), CHECK(cz_fp6_equal(&got, &v[2]));
        cz_fp6_sqr(&got, a), CHECK(cz_fp6_equal(&got, &v[3]));
        cz_fp6_inv(&got, a), CHECK(cz_fp6_equal(&got, &v[4]));
        cz_fp6_inv_var(&got, a), CHECK(cz_fp6_equal(&got, &v[4]));
        for (unsigned k = 1; k <= 3; k++) {
            cz_fp6_frobenius_map(&got, a, k), CHECK(cz_fp6_equal(&got, &v[4 + k]));
            cz_fp6_frobenius_map(&got, a, k + 6), CHECK(cz_fp6_equal(&got, &v[4 + k]));
        }
        cz_fp6_mul_by_01(&got, a, &b->c0, &b->c1), CHECK(cz_fp6_equal(&got, &v[8]));
        cz_fp6_mul_by_1(&got, a, &b->c1), CHECK(cz_fp6_equal(&got, &v[9]));
        /* aliasing: r = a, r = r op b */
        got = *a, cz_fp6_mul(&got, &got, b), CHECK(cz_fp6_equal(&got, &v[2]));
        got = *b, cz_fp6_mul(&got, a, &got), CHECK(cz_fp6_equal(&got, &v[2]));
        got = *a, cz_fp6_sqr(&got, &got), CHECK(cz_fp6_equal(&got, &v[3]));
        got = *a, cz_fp6_inv(&got, &got), CHECK(cz_fp6_equal(&got, &v[4]));
        got = *a, cz_fp6_frobenius_map(&got, &got, 1), CHECK(cz_fp6_equal(&got, &v[5]));
        got = *a, cz_fp6_mul_by_01(&got, &got, &b->c0, &b->c1), CHECK(cz_fp6_equal(&got, &v[8]));
        got = *a, cz_fp6_mul_by_1(&got, &got, &b->c1), CHECK(cz_fp6_equal(&got, &v[9]));
        cases++;
    }
    cz_vector_close(&vf);
    CHECK(cases >= 200);
    printf("fp6: %u noble cases\n", cases);
}

static void test_fp6_algebra(unsigned iters) {
    uint64_t e[MAX_EXP_LIMBS];
    mpz_t pk;
    mpz_init_set_ui(pk, 1);
    for (unsigned k = 1; k <= 6; k++) {
        mpz_mul(pk, pk, P);
        size_t n = mpz_to_limbs(e, pk);
        for (unsigned it = 0; it < (k <= 2 ? 4u : 2u); it++) {
            cz_fp6 a, want, got;
            rand_fp6(&a);
            fp6_pow(&want, &a, e, n);
            cz_fp6_frobenius_map(&got, &a, k), CHECK(cz_fp6_equal(&got, &want));
        }
    }
    mpz_clear(pk);
    for (unsigned it = 0; it < iters; it++) {
        cz_fp6 a, b, t, u;
        rand_fp6(&a);
        rand_fp6(&b);
        /* distributivity and the definitions of the helpers */
        cz_fp6_add(&t, &a, &b), cz_fp6_sqr(&t, &t);
        cz_fp6_mul(&u, &a, &b), cz_fp6_dbl(&u, &u);
        cz_fp6_sub(&t, &t, &u);
        cz_fp6_sqr(&u, &a), cz_fp6_sub(&t, &t, &u);
        cz_fp6_sqr(&u, &b), cz_fp6_sub(&t, &t, &u);
        CHECK(cz_fp6_is_zero(&t));
        cz_fp6 v = cz_fp6_zero;
        v.c1 = cz_fp2_one;
        cz_fp6_mul(&t, &a, &v), cz_fp6_mul_by_nonresidue(&u, &a), CHECK(cz_fp6_equal(&t, &u));
        cz_fp6 bc0 = cz_fp6_zero;
        bc0.c0 = b.c0;
        cz_fp6_mul(&t, &a, &bc0), cz_fp6_mul_fp2(&u, &a, &b.c0), CHECK(cz_fp6_equal(&t, &u));
        cz_fp6_neg(&t, &a), cz_fp6_add(&t, &t, &a), CHECK(cz_fp6_is_zero(&t));
        cz_fp6_inv(&t, &a), cz_fp6_mul(&t, &t, &a), CHECK(cz_fp6_is_one(&t));
        uint8_t bytes[CZ_FP6_BYTES];
        cz_fp6_to_bytes(bytes, &a);
        CHECK(cz_fp6_from_bytes(&t, bytes) && cz_fp6_equal(&t, &a));
        cz_fp6_select(&t, 1, &a, &b), CHECK(cz_fp6_equal(&t, &a));
        cz_fp6_select(&t, 0, &a, &b), CHECK(cz_fp6_equal(&t, &b));
    }
    /* edge cases */
    cz_fp6 t;
    cz_fp6_inv(&t, &cz_fp6_zero), CHECK(cz_fp6_is_zero(&t));
    cz_fp6_inv_var(&t, &cz_fp6_zero), CHECK(cz_fp6_is_zero(&t));
    cz_fp6_inv(&t, &cz_fp6_one), CHECK(cz_fp6_is_one(&t));
    CHECK(cz_fp6_is_zero(&cz_fp6_zero) && !cz_fp6_is_one(&cz_fp6_zero));
    CHECK(cz_fp6_is_one(&cz_fp6_one) && !cz_fp6_is_zero(&cz_fp6_one));
}

/* ---- Fp12 --------------------------------------------------------------- */

static void test_fp12_vectors(void) {
    cz_vector_file vf;
    unsigned cases = 0;
    if (cz_vector_open(&vf, "tower_fp12.txt")) {
        while (cz_vector_next(&vf)) {
            cz_fp12 v[5], got;
            int ok = 1;
            for (int i = 0; i < 5 && ok; i++) ok = cz_vec_fp12(&vf, i, &v[i]);
            if (!ok) break;
            cz_fp12_mul(&got, &v[0], &v[1]), CHECK(cz_fp12_equal(&got, &v[2]));
            cz_fp12_sqr(&got, &v[0]), CHECK(cz_fp12_equal(&got, &v[3]));
            cz_fp12_inv(&got, &v[0]), CHECK(cz_fp12_equal(&got, &v[4]));
            cz_fp12_inv_var(&got, &v[0]), CHECK(cz_fp12_equal(&got, &v[4]));
            got = v[0], cz_fp12_mul(&got, &got, &v[1]), CHECK(cz_fp12_equal(&got, &v[2]));
            got = v[1], cz_fp12_mul(&got, &v[0], &got), CHECK(cz_fp12_equal(&got, &v[2]));
            got = v[0], cz_fp12_sqr(&got, &got), CHECK(cz_fp12_equal(&got, &v[3]));
            got = v[0], cz_fp12_inv(&got, &got), CHECK(cz_fp12_equal(&got, &v[4]));
            cases++;
        }
        cz_vector_close(&vf);
    }
    CHECK(cases >= 200);

    unsigned frob_cases = 0;
    if (cz_vector_open(&vf, "tower_fp12_frob.txt")) {
        while (cz_vector_next(&vf)) {
            cz_fp12 v[13], got;
            int ok = 1;
            for (int i = 0; i < 13 && ok; i++) ok = cz_vec_fp12(&vf, i, &v[i]);
            if (!ok) break;
            for (unsigned k = 1; k <= 11; k++) {
                cz_fp12_frobenius_map(&got, &v[0], k), CHECK(cz_fp12_equal(&got, &v[k]));
                cz_fp12_frobenius_map(&got, &v[0], k + 24), CHECK(cz_fp12_equal(&got, &v[k]));
            }
            cz_fp12_frobenius_map(&got, &v[0], 0), CHECK(cz_fp12_equal(&got, &v[0]));
            cz_fp12_frobenius_map(&got, &v[0], 12), CHECK(cz_fp12_equal(&got, &v[0]));
            got = v[0], cz_fp12_frobenius_map(&got, &got, 3), CHECK(cz_fp12_equal(&got, &v[3]));
            cz_fp12_conjugate(&got, &v[0]), CHECK(cz_fp12_equal(&got, &v[12]));
            CHECK(cz_fp12_equal(&v[6], &v[12])); /* noble's a^(p^6) is the conjugate */
            frob_cases++;
        }
        cz_vector_close(&vf);
    }
    CHECK(frob_cases >= 60);

    unsigned cyclo_cases = 0;
    if (cz_vector_open(&vf, "tower_fp12_cyclo.txt")) {
        while (cz_vector_next(&vf)) {
            cz_fp12 a, g, g2, got, t;
            if (!cz_vec_fp12(&vf, 0, &a) || !cz_vec_fp12(&vf, 1, &g) || !cz_vec_fp12(&vf, 2, &g2))
                break;
            /* the easy part of the final exponentiation, from the tower ops */
            cz_fp12_inv(&t, &a);
            cz_fp12_conjugate(&got, &a);
            cz_fp12_mul(&got, &got, &t);
            cz_fp12_frobenius_map(&t, &got, 2);
            cz_fp12_mul(&got, &got, &t);
            CHECK(cz_fp12_equal(&got, &g));
            cz_fp12_cyclotomic_sqr(&got, &g), CHECK(cz_fp12_equal(&got, &g2));
            got = g, cz_fp12_cyclotomic_sqr(&got, &got), CHECK(cz_fp12_equal(&got, &g2));
            /* inverse = conjugate in the cyclotomic subgroup */
            cz_fp12_inv(&t, &g), cz_fp12_conjugate(&got, &g), CHECK(cz_fp12_equal(&got, &t));
            cyclo_cases++;
        }
        cz_vector_close(&vf);
    }
    CHECK(cyclo_cases >= 40);
    printf("fp12: %u + %u Frobenius + %u cyclotomic noble cases\n", cases, frob_cases, cyclo_cases);
}

static void test_fp12_algebra(unsigned iters) {
    uint64_t e[MAX_EXP_LIMBS];
    mpz_t pk, m;
    mpz_inits(pk, m, NULL);

    /* Frobenius against a^(p^k), k = 1..3, with the generic square-and-multiply */
    mpz_set_ui(pk, 1);
    for (unsigned k = 1; k <= 3; k++) {
        mpz_mul(pk, pk, P);
        size_t n = mpz_to_limbs(e, pk);
        for (unsigned it = 0; it < (k == 1 ? 4u : 2u); it++) {
            cz_fp12 a, want, got;
            rand_fp12(&a);
            cz_fp12_pow(&want, &a, e, n);
            cz_fp12_frobenius_map(&got, &a, k), CHECK(cz_fp12_equal(&got, &want));
        }
    }

    /* a^(p^12 - 1) = 1 for a != 0: checks mul/sqr as a field law, independently */
    mpz_pow_ui(m, P, 12);
    mpz_sub_ui(m, m, 1);
    size_t n = mpz_to_limbs(e, m);
    for (unsigned it = 0; it < 2; it++) {
        cz_fp12 a, got;
        rand_fp12(&a);
        cz_fp12_pow(&got, &a, e, n), CHECK(cz_fp12_is_one(&got));
    }

    for (unsigned it = 0; it < iters; it++) {
        cz_fp12 a, b, t, u, g;
        rand_fp12(&a);
        rand_fp12(&b);
        /* sparse line product against the generic product */
        cz_fp2 l0, l1, l4;
        rand_fp2(&l0), rand_fp2(&l1), rand_fp2(&l4);
        cz_fp12 line = cz_fp12_zero;
        line.c0.c0 = l0, line.c0.c1 = l1, line.c1.c1 = l4;
        cz_fp12_mul(&t, &a, &line);
        cz_fp12_mul_by_014(&u, &a, &l0, &l1, &l4), CHECK(cz_fp12_equal(&t, &u));
        u = a, cz_fp12_mul_by_014(&u, &u, &l0, &l1, &l4), CHECK(cz_fp12_equal(&t, &u));

        /* an element of the cyclotomic subgroup: g = a^((p^6 - 1)(p^2 + 1)) */
        cz_fp12_inv(&t, &a);
        cz_fp12_conjugate(&g, &a);
        cz_fp12_mul(&g, &g, &t);
        cz_fp12_frobenius_map(&t, &g, 2);
        cz_fp12_mul(&g, &g, &t);
        cz_fp12_sqr(&t, &g), cz_fp12_cyclotomic_sqr(&u, &g), CHECK(cz_fp12_equal(&t, &u));
        cz_fp12_conjugate(&t, &g), cz_fp12_mul(&t, &t, &g), CHECK(cz_fp12_is_one(&t));

        /* pow and cyclotomic_pow: a^(e1 + e2) = a^e1 a^e2, a^0 = 1, a^1 = a */
        uint64_t e1[2] = {cz_test_rand64(), cz_test_rand64() >> 1};
        uint64_t e2[2] = {cz_test_rand64(), cz_test_rand64() >> 1};
        uint64_t e12[2];
        e12[0] = e1[0] + e2[0];
        e12[1] = e1[1] + e2[1] + (e12[0] < e1[0]);
        cz_fp12 p1, p2, p12;
        cz_fp12_pow(&p1, &a, e1, 2), cz_fp12_pow(&p2, &a, e2, 2), cz_fp12_pow(&p12, &a, e12, 2);
        cz_fp12_mul(&t, &p1, &p2), CHECK(cz_fp12_equal(&t, &p12));
        cz_fp12_pow(&t, &g, e1, 2), cz_fp12_cyclotomic_pow(&u, &g, e1, 2);
        CHECK(cz_fp12_equal(&t, &u));
        uint64_t zero[2] = {0, 0}, one[2] = {1, 0};
        cz_fp12_pow(&t, &a, zero, 2), CHECK(cz_fp12_is_one(&t));
        cz_fp12_cyclotomic_pow(&t, &g, zero, 2), CHECK(cz_fp12_is_one(&t));
        cz_fp12_pow(&t, &a, one, 2), CHECK(cz_fp12_equal(&t, &a));
        cz_fp12_cyclotomic_pow(&t, &g, one, 2), CHECK(cz_fp12_equal(&t, &g));

        /* ring identities and helpers */
        cz_fp12_add(&t, &a, &b), cz_fp12_sub(&t, &t, &b), CHECK(cz_fp12_equal(&t, &a));
        cz_fp12_neg(&t, &a), cz_fp12_add(&t, &t, &a), CHECK(cz_fp12_is_zero(&t));
        cz_fp12_inv(&t, &a), cz_fp12_mul(&t, &t, &a), CHECK(cz_fp12_is_one(&t));
        cz_fp12_mul(&t, &a, &b), cz_fp12_mul(&u, &b, &a), CHECK(cz_fp12_equal(&t, &u));
        /* Frobenius is a ring homomorphism */
        cz_fp12_frobenius_map(&t, &t, 1);
        cz_fp12_frobenius_map(&p1, &a, 1), cz_fp12_frobenius_map(&p2, &b, 1);
        cz_fp12_mul(&u, &p1, &p2), CHECK(cz_fp12_equal(&t, &u));

        uint8_t bytes[CZ_FP12_BYTES];
        cz_fp12_to_bytes(bytes, &a);
        CHECK(cz_fp12_from_bytes(&t, bytes) && cz_fp12_equal(&t, &a));
        cz_fp12_select(&t, 1, &a, &b), CHECK(cz_fp12_equal(&t, &a));
        cz_fp12_select(&t, 0, &a, &b), CHECK(cz_fp12_equal(&t, &b));
        CHECK(!cz_fp12_equal(&a, &b));
    }

    /* edge cases: 0 and 1 */
    cz_fp12 a, t;
    rand_fp12(&a);
    cz_fp12_inv(&t, &cz_fp12_zero), CHECK(cz_fp12_is_zero(&t));
    cz_fp12_inv_var(&t, &cz_fp12_zero), CHECK(cz_fp12_is_zero(&t));
    cz_fp12_inv(&t, &cz_fp12_one), CHECK(cz_fp12_is_one(&t));
    cz_fp12_mul(&t, &a, &cz_fp12_zero), CHECK(cz_fp12_is_zero(&t));
    cz_fp12_mul(&t, &a, &cz_fp12_one), CHECK(cz_fp12_equal(&t, &a));
    cz_fp12_sqr(&t, &cz_fp12_one), CHECK(cz_fp12_is_one(&t));
    cz_fp12_cyclotomic_sqr(&t, &cz_fp12_one), CHECK(cz_fp12_is_one(&t));
    cz_fp12_frobenius_map(&t, &cz_fp12_one, 5), CHECK(cz_fp12_is_one(&t));
    CHECK(cz_fp12_is_zero(&cz_fp12_zero) && !cz_fp12_is_one(&cz_fp12_zero));
    CHECK(cz_fp12_is_one(&cz_fp12_one) && !cz_fp12_is_zero(&cz_fp12_one));

    /* a coefficient equal to p is rejected, anywhere */
    uint8_t bytes[CZ_FP12_BYTES];
    uint8_t pb[CZ_FP_BYTES] = {0};
    size_t count = 0;
    mpz_export(pb, &count, 1, 1, 1, 0, P);
    CHECK(count == CZ_FP_BYTES);
    for (int i = 0; i < 12; i++) {
        cz_fp12_to_bytes(bytes, &a);
        memcpy(bytes + i * CZ_FP_BYTES, pb, CZ_FP_BYTES);
        t = cz_fp12_one;
        CHECK(!cz_fp12_from_bytes(&t, bytes) && cz_fp12_is_one(&t));
    }
    mpz_clears(pk, m, NULL);
}

int main(void) {
    cz_test_init("test_tower");
    unsigned iters = cz_test_iters(200);
    uint8_t pb[CZ_FP_BYTES];
    for (int i = 0; i < CZ_FP_LIMBS; i++)
        for (int k = 0; k < 8; k++)
            pb[CZ_FP_BYTES - 1 - (8 * i + k)] = (uint8_t)(cz_fp_modulus[i] >> 8 * k);
    mpz_init(P);
    mpz_import(P, CZ_FP_BYTES, 1, 1, 1, 0, pb);

    test_fp2_vectors();
    test_fp6_vectors();
    test_fp6_algebra(iters);
    test_fp12_vectors();
    test_fp12_algebra(iters);

    mpz_clear(P);
    return cz_test_finish("test_tower");
}
