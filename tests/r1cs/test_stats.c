/* The stats back-end on hand-made systems whose non-zeros and densities are
 * counted here by hand, and against the record back-end on random systems
 * (long unsorted LCs, zero and cancelling coefficients, inputs in A and B);
 * the same LCs are refused by both (a repeated variable, an unallocated
 * one). The full PoRep circuit is compared in tests/filecoin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/harness.h"
#include "r1cs/backends.h"

static cz_fr fr_u64(uint64_t v) {
    cz_fr x;
    cz_fr_from_u64(&x, v);
    return x;
}

/* An LC in the order given (possibly unsorted, as gadget builders leave
 * them); terms are (var, coeff). */
typedef struct {
    cz_lc_term t[96];
    cz_lc lc;
} raw_lc;

static cz_lc *raw(raw_lc *r, const cz_var *vars, const uint64_t *coeffs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) r->t[i] = (cz_lc_term){vars[i], fr_u64(coeffs[i])};
    r->lc = (cz_lc){r->t, n, 96};
    return &r->lc;
}

static void test_by_hand(void) {
    cz_cs *cs = cz_cs_stats_new();
    cz_var x = cz_cs_alloc(cs, NULL), y = cz_cs_alloc(cs, NULL), z = cz_cs_alloc(cs, NULL);
    cz_var u = cz_cs_alloc_input(cs, NULL), w = cz_cs_alloc(cs, NULL);
    raw_lc a, b, c;
    /* (2x + 0y) * (ONE + u) = z - x : zero coefficient dropped; B has two inputs */
    cz_var av[] = {x, y}, bv[] = {CZ_VAR_ONE, u}, cv[] = {z, x};
    uint64_t ac[] = {2, 0}, bc[] = {1, 1}, cc[] = {1, 1};
    cz_cs_enforce(cs, raw(&a, av, ac, 2), raw(&b, bv, bc, 2), raw(&c, cv, cc, 2));
    /* (w + u + y, unsorted) * (x) = 0 */
    cz_var av2[] = {w, u, y}, bv2[] = {x};
    uint64_t ac2[] = {1, 1, 1}, bc2[] = {1};
    cz_cs_enforce(cs, raw(&a, av2, ac2, 3), raw(&b, bv2, bc2, 1), NULL);
    cz_r1cs_stats st;
    CHECK(cz_stats_finish(cs, &st, NULL) == CZ_OK);
    CHECK(cz_stats_finish(cs, &st, NULL) == CZ_E_INVALID_ARG); /* twice */
    cz_cs_destroy(cs);
    CHECK(st.num_inputs == 2 && st.num_aux == 4);
    CHECK(st.synthesized_constraints == 2 && st.num_constraints == 4);
    CHECK(st.nnz_a == 1 + 3 + 2); /* 2x; w, u, y; the two input rows */
    CHECK(st.nnz_b == 2 + 1);
    CHECK(st.nnz_c == 2);
    /* A: x, w, y (u is an input); B: inputs ONE and u, aux x */
    CHECK(st.a_aux_count == 3 && st.b_input_count == 2 && st.b_aux_count == 1);
    CHECK(cz_density_get(st.a_aux_density, 0) && cz_density_get(st.a_aux_density, 1) &&
          !cz_density_get(st.a_aux_density, 2) && cz_density_get(st.a_aux_density, 3));
    CHECK(cz_density_get(st.b_aux_density, 0) && !cz_density_get(st.b_aux_density, 1));
    CHECK(cz_density_popcount(st.b_input_density, 2) == 2);
    cz_r1cs_stats_free(&st);
}

static void test_refused(void) {
    cz_cs *(*news[])(void) = {cz_cs_stats_new, cz_cs_record_new};
    for (int k = 0; k < 2; k++) {
        /* a repeated variable in a long unsorted LC (radix path) */
        cz_cs *cs = news[k]();
        cz_var v[41];
        uint64_t co[41];
        for (int i = 0; i < 40; i++) v[39 - i] = cz_cs_alloc(cs, NULL), co[39 - i] = 1;
        v[40] = v[17], co[40] = 1;
        raw_lc a;
        cz_cs_enforce(cs, raw(&a, v, co, 40), NULL, NULL); /* descending, distinct */
        CHECK(cz_cs_status(cs) == CZ_OK);
        cz_cs_enforce(cs, raw(&a, v, co, 41), NULL, NULL); /* v[17] twice */
        CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
        cz_cs_destroy(cs);
        /* an unallocated variable */
        cs = news[k]();
        cz_var bad[] = {5};
        uint64_t one[] = {1};
        cz_cs_enforce(cs, NULL, raw(&a, bad, one, 1), NULL);
        CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
        cz_cs_destroy(cs);
    }
}

/* Random systems: long and short LCs in random order (the radix path of
 * the repeated-variable check), inputs anywhere, about one coefficient in
 * eight zero (a term whose merged coefficient cancelled, which bellpepper
 * keeps and record drops); stats must say what record stores. */
static void test_against_record(unsigned rounds) {
    for (unsigned r = 0; r < rounds; r++) {
        cz_cs *cs[2] = {cz_cs_stats_new(), cz_cs_record_new()};
        unsigned n_aux = 20 + (unsigned)(cz_test_rand64() % 200),
                 n_in = 1 + (unsigned)(cz_test_rand64() % 5);
        for (int k = 0; k < 2; k++) {
            for (unsigned i = 0; i < n_in; i++) cz_cs_alloc_input(cs[k], NULL);
            for (unsigned i = 0; i < n_aux; i++) cz_cs_alloc(cs[k], NULL);
        }
        unsigned n_cons = 1 + (unsigned)(cz_test_rand64() % 50);
        for (unsigned j = 0; j < n_cons; j++) {
            raw_lc lcs[3];
            for (int m = 0; m < 3; m++) {
                uint32_t len = (uint32_t)(cz_test_rand64() % (cz_test_rand64() % 2 ? 90 : 6));
                if (len > n_aux + n_in + 1) len = n_aux + n_in + 1; /* distinct variables */
                uint8_t used[260] = {0};
                uint32_t n = 0;
                while (n < len) {
                    uint64_t pick = cz_test_rand64() % (n_aux + n_in + 1);
                    cz_var v = pick <= n_in ? (CZ_VAR_INPUT_BIT | (uint32_t)pick)
                                            : (cz_var)(pick - n_in - 1);
                    if (used[pick]) continue;
                    used[pick] = 1;
                    uint64_t roll = cz_test_rand64() % 8;
                    cz_fr coeff = roll == 0 ? cz_fr_zero : fr_u64(cz_test_rand64() | 1);
                    lcs[m].t[n++] = (cz_lc_term){v, coeff};
                }
                lcs[m].lc = (cz_lc){lcs[m].t, n, 96};
            }
            for (int k = 0; k < 2; k++) cz_cs_enforce(cs[k], &lcs[0].lc, &lcs[1].lc, &lcs[2].lc);
        }
        cz_r1cs_stats st;
        cz_r1cs rec;
        CHECK(cz_stats_finish(cs[0], &st, NULL) == CZ_OK);
        CHECK(cz_record_finish(cs[1], &rec, NULL) == CZ_OK);
        CHECK(st.num_constraints == rec.num_constraints);
        CHECK(st.nnz_a == rec.a.row_start[rec.a.rows]);
        CHECK(st.nnz_b == rec.b.row_start[rec.b.rows]);
        CHECK(st.nnz_c == rec.c.row_start[rec.c.rows]);
        CHECK(memcmp(st.a_aux_density, rec.a_aux_density, (n_aux + 63) / 64 * 8) == 0);
        CHECK(memcmp(st.b_aux_density, rec.b_aux_density, (n_aux + 63) / 64 * 8) == 0);
        CHECK(memcmp(st.b_input_density, rec.b_input_density, (n_in + 1 + 63) / 64 * 8) == 0);
        cz_r1cs_stats_free(&st);
        cz_r1cs_free(&rec);
        cz_cs_destroy(cs[0]), cz_cs_destroy(cs[1]);
    }
}

int main(void) {
    cz_test_init("r1cs/test_stats");
    test_by_hand();
    test_refused();
    test_against_record(cz_test_iters(100));
    return cz_test_finish("r1cs/test_stats");
}
