/* The constraint-system layer: LC merge semantics against a dense reference,
 * and every back-end (count, check, prove, record, witness) on hand-made and
 * random circuits, compared with the description in circuits.h (reference
 * merge, evaluation, CSR and densities computed by plain loops here). */
#include <string.h>

#include "r1cs/backends.h"
#include "r1cs/cs.h"
#include "circuits.h"

/* ---- linear combinations ---- */

#define NV 24 /* variables: inputs 0..11 and aux 0..11 */
static cz_var dense_var(int i) {
    return i < NV / 2 ? (CZ_VAR_INPUT_BIT | (uint32_t)i) : (cz_var)(i - NV / 2);
}

/* lc must hold exactly the touched variables, in order, with the dense
 * coefficients (zero sums included). */
static void check_lc_dense(const cz_lc *lc, const cz_fr *dense, const int *touched) {
    uint32_t pos = 0;
    for (int i = 0; i < NV; i++) { /* dense order is the expected order */
        if (!touched[i]) continue;
        CHECK(pos < lc->len);
        if (pos >= lc->len) return;
        CHECK(lc->terms[pos].var == dense_var(i));
        CHECK(cz_fr_equal(&lc->terms[pos].coeff, &dense[i]));
        pos++;
    }
    CHECK(pos == lc->len);
}

static void test_lc_basics(void) {
    cz_lc lc;
    cz_lc_init(&lc);
    cz_fr two, three, five, m;
    cz_fr_from_u64(&two, 2), cz_fr_from_u64(&three, 3), cz_fr_from_u64(&five, 5);

    /* same variable twice: one term, coefficients summed */
    CHECK(cz_lc_add(&lc, 7, &two) == CZ_OK);
    CHECK(cz_lc_add(&lc, 7, &three) == CZ_OK);
    CHECK(lc.len == 1 && lc.terms[0].var == 7 && cz_fr_equal(&lc.terms[0].coeff, &five));

    /* cancellation keeps the term, with coefficient zero */
    cz_lc_clear(&lc);
    CHECK(lc.len == 0 && lc.cap > 0);
    CHECK(cz_lc_add_var(&lc, 4) == CZ_OK);
    CHECK(cz_lc_sub_var(&lc, 4) == CZ_OK);
    CHECK(lc.len == 1 && lc.terms[0].var == 4 && cz_fr_is_zero(&lc.terms[0].coeff));

    /* order: inputs by index, then aux by index, whatever the insertion order */
    cz_lc_clear(&lc);
    cz_var order_in[] = {5, CZ_VAR_INPUT_BIT | 3, 1, CZ_VAR_ONE, 9, CZ_VAR_INPUT_BIT | 1};
    cz_var order_out[] = {CZ_VAR_ONE, CZ_VAR_INPUT_BIT | 1, CZ_VAR_INPUT_BIT | 3, 1, 5, 9};
    for (int i = 0; i < 6; i++) CHECK(cz_lc_add_var(&lc, order_in[i]) == CZ_OK);
    CHECK(lc.len == 6);
    for (int i = 0; i < 6 && i < (int)lc.len; i++) CHECK(lc.terms[i].var == order_out[i]);

    /* lc += 3 * lc: every coefficient times 4; lc += lc (NULL coeff): times 2 */
    CHECK(cz_lc_add_lc(&lc, &lc, &three) == CZ_OK);
    cz_fr four, eight;
    cz_fr_from_u64(&four, 4), cz_fr_from_u64(&eight, 8);
    for (uint32_t i = 0; i < lc.len; i++) CHECK(cz_fr_equal(&lc.terms[i].coeff, &four));
    CHECK(cz_lc_add_lc(&lc, &lc, NULL) == CZ_OK);
    for (uint32_t i = 0; i < lc.len; i++) CHECK(cz_fr_equal(&lc.terms[i].coeff, &eight));

    /* add_lc merging with a cancelling coefficient */
    cz_lc other;
    cz_lc_init(&other);
    CHECK(cz_lc_add(&other, 5, &two) == CZ_OK);
    CHECK(cz_lc_add(&other, 7, &two) == CZ_OK);
    cz_fr_neg(&m, &four); /* 8 + 2 * -4 = 0 for aux 5 */
    CHECK(cz_lc_add_lc(&lc, &other, &m) == CZ_OK);
    CHECK(lc.len == 7);
    for (uint32_t i = 0; i < lc.len; i++) {
        if (lc.terms[i].var == 5) CHECK(cz_fr_is_zero(&lc.terms[i].coeff));
        if (lc.terms[i].var == 7) {
            cz_fr want;
            cz_fr_mul(&want, &two, &m);
            CHECK(cz_fr_equal(&lc.terms[i].coeff, &want));
            CHECK(i == 5); /* ONE, in 1, in 3, aux 1, aux 5, aux 7, aux 9 */
        }
    }
    cz_lc_free(&other);
    cz_lc_free(&lc);
    CHECK(lc.terms == NULL && lc.len == 0 && lc.cap == 0);
}

/* Random sequences of every LC operation against a dense array. */
static void test_lc_random(unsigned rounds) {
    for (unsigned round = 0; round < rounds; round++) {
        cz_lc lc, other;
        cz_lc_init(&lc), cz_lc_init(&other);
        cz_fr dense[NV], odense[NV];
        int touched[NV] = {0}, otouched[NV] = {0};
        for (int i = 0; i < NV; i++) dense[i] = odense[i] = cz_fr_zero;
        uint64_t s = cz_test_rand64();
        int steps = (int)(sm_next(&s) % 60);
        for (int step = 0; step < steps; step++) {
            int i = (int)(sm_next(&s) % NV);
            cz_fr k = sm_coeff(&s), t;
            switch (sm_next(&s) % 5) {
            case 0:
                CHECK(cz_lc_add(&lc, dense_var(i), &k) == CZ_OK);
                cz_fr_add(&dense[i], &dense[i], &k), touched[i] = 1;
                break;
            case 1:
                CHECK(cz_lc_add_var(&lc, dense_var(i)) == CZ_OK);
                cz_fr_add(&dense[i], &dense[i], &cz_fr_one), touched[i] = 1;
                break;
            case 2:
                CHECK(cz_lc_sub_var(&lc, dense_var(i)) == CZ_OK);
                cz_fr_sub(&dense[i], &dense[i], &cz_fr_one), touched[i] = 1;
                break;
            case 3:
                CHECK(cz_lc_add(&other, dense_var(i), &k) == CZ_OK);
                cz_fr_add(&odense[i], &odense[i], &k), otouched[i] = 1;
                break;
            default: /* lc += k * other */
                CHECK(cz_lc_add_lc(&lc, &other, &k) == CZ_OK);
                for (int j = 0; j < NV; j++) {
                    if (!otouched[j]) continue;
                    cz_fr_mul(&t, &odense[j], &k);
                    cz_fr_add(&dense[j], &dense[j], &t), touched[j] = 1;
                }
                break;
            }
        }
        check_lc_dense(&lc, dense, touched);
        check_lc_dense(&other, odense, otouched);
        cz_lc_free(&lc), cz_lc_free(&other);
    }
}

/* ---- back-ends on a circuit ---- */

typedef struct {
    cz_lc lcs[3], tmp;
} lc_set;

static void lcs_init(lc_set *l) {
    for (int k = 0; k < 3; k++) cz_lc_init(&l->lcs[k]);
    cz_lc_init(&l->tmp);
}
static void lcs_free(lc_set *l) {
    for (int k = 0; k < 3; k++) cz_lc_free(&l->lcs[k]);
    cz_lc_free(&l->tmp);
}

static int csr_equal_ref(const cz_csr *m, const ref_csr *r) {
    if (m->rows != r->rows) return 0;
    if (memcmp(m->row_start, r->row_start, (r->rows + 1) * sizeof(uint64_t)) != 0) return 0;
    if (r->nnz && memcmp(m->col, r->col, r->nnz * sizeof(uint32_t)) != 0) return 0;
    for (uint64_t e = 0; e < r->nnz; e++)
        if (!cz_fr_equal(&m->val[e], &r->val[e])) return 0;
    return 1;
}

/* Expected densities from the reference CSR: one byte per variable. */
static uint8_t *ref_density(const ref_csr *m, uint32_t first_col, uint32_t count) {
    uint8_t *d = calloc(count ? count : 1, 1);
    for (uint64_t e = 0; e < m->nnz; e++)
        if (m->col[e] >= first_col && m->col[e] - first_col < count) d[m->col[e] - first_col] = 1;
    return d;
}

static int density_equal(const uint64_t *bits, const uint8_t *want, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        if (cz_density_get(bits, i) != want[i]) return 0;
    /* nothing beyond the last variable */
    if (count % 64 && (bits[count / 64] >> (count % 64)) != 0) return 0;
    return 1;
}

/* Runs every back-end on c; `bad` is the index of the first constraint the
 * witness violates (>= num_constraints when satisfied). */
static void run_backends(const circuit *c, uint64_t bad) {
    lc_set l;
    lcs_init(&l);
    cz_error err;
    ref_csr ref[3];
    for (int k = 0; k < 3; k++) ref[k] = circ_csr(c, k);

    /* count */
    cz_cs *cs = cz_cs_count_new();
    CHECK(cs && !cz_cs_has_witness(cs));
    CHECK(circ_replay(cs, c, l.lcs, &l.tmp) == 0);
    CHECK(cz_cs_status(cs) == CZ_OK);
    CHECK(cs->num_inputs == c->num_inputs && cs->num_aux == c->num_aux);
    CHECK(cs->num_constraints == c->num_constraints);
    cz_cs_destroy(cs);

    /* record: the matrices and densities against the reference */
    cz_r1cs r;
    cs = cz_cs_record_new();
    CHECK(cs && !cz_cs_has_witness(cs));
    CHECK(circ_replay(cs, c, l.lcs, &l.tmp) == 0);
    CHECK(cz_record_finish(cs, &r, &err) == CZ_OK);
    cz_cs_destroy(cs);
    CHECK(r.num_inputs == c->num_inputs && r.num_aux == c->num_aux);
    CHECK(r.num_constraints == c->num_constraints + c->num_inputs);
    CHECK(csr_equal_ref(&r.a, &ref[0]));
    CHECK(csr_equal_ref(&r.b, &ref[1]));
    CHECK(csr_equal_ref(&r.c, &ref[2]));
    uint8_t *want_a_aux = ref_density(&ref[0], c->num_inputs, c->num_aux);
    uint8_t *want_b_in = ref_density(&ref[1], 0, c->num_inputs);
    uint8_t *want_b_aux = ref_density(&ref[1], c->num_inputs, c->num_aux);
    CHECK(density_equal(r.a_aux_density, want_a_aux, c->num_aux));
    CHECK(density_equal(r.b_input_density, want_b_in, c->num_inputs));
    CHECK(density_equal(r.b_aux_density, want_b_aux, c->num_aux));

    /* check: satisfied, or the first failing constraint with its values
     * evaluated independently from the reference CSR */
    cs = cz_cs_check_new();
    CHECK(cs && cz_cs_has_witness(cs));
    CHECK(circ_replay(cs, c, l.lcs, &l.tmp) == 0);
    CHECK(cz_cs_status(cs) == CZ_OK);
    CHECK(cs->num_constraints == c->num_constraints);
    cz_check_result res;
    cz_cs_check_result(cs, &res);
    if (bad >= c->num_constraints) {
        CHECK(res.satisfied);
    } else {
        CHECK(!res.satisfied);
        CHECK(res.first_failure == bad);
        cz_fr a = ref_csr_row(c, &ref[0], bad), b = ref_csr_row(c, &ref[1], bad),
              cc = ref_csr_row(c, &ref[2], bad), ab;
        CHECK(cz_fr_equal(&res.a, &a) && cz_fr_equal(&res.b, &b) && cz_fr_equal(&res.c, &cc));
        cz_fr_mul(&ab, &a, &b);
        CHECK(!cz_fr_equal(&ab, &cc));
    }
    cz_cs_destroy(cs);

    /* prove: assignments, a/b/c = matrices times witness, densities */
    cz_prove_data d;
    cs = cz_cs_prove_new();
    CHECK(cs && cz_cs_has_witness(cs));
    CHECK(circ_replay(cs, c, l.lcs, &l.tmp) == 0);
    CHECK(cz_prove_finish(cs, &d, &err) == CZ_OK);
    CHECK(cz_prove_finish(cs, &d, &err) == CZ_E_INVALID_ARG); /* only once */
    cz_cs_destroy(cs);
    CHECK(d.num_inputs == c->num_inputs && d.num_aux == c->num_aux);
    CHECK(d.num_constraints == ref[0].rows);
    CHECK(memcmp(d.input_assignment, c->input, c->num_inputs * sizeof(cz_fr)) == 0);
    CHECK(c->num_aux == 0 || memcmp(d.aux_assignment, c->aux, c->num_aux * sizeof(cz_fr)) == 0);
    int abc_ok = 1;
    for (uint64_t j = 0; j < d.num_constraints; j++) {
        cz_fr a = ref_csr_row(c, &ref[0], j), b = ref_csr_row(c, &ref[1], j),
              cc = ref_csr_row(c, &ref[2], j);
        abc_ok &= cz_fr_equal(&d.a[j], &a) && cz_fr_equal(&d.b[j], &b) && cz_fr_equal(&d.c[j], &cc);
        if (j >= c->num_constraints) /* input constraints: A = input_i, B = C = 0 */
            abc_ok &= cz_fr_equal(&d.a[j], &c->input[j - c->num_constraints]) &&
                      cz_fr_is_zero(&d.b[j]) && cz_fr_is_zero(&d.c[j]);
    }
    CHECK(abc_ok);
    CHECK(density_equal(d.a_aux_density, want_a_aux, c->num_aux));
    CHECK(density_equal(d.b_input_density, want_b_in, c->num_inputs));
    CHECK(density_equal(d.b_aux_density, want_b_aux, c->num_aux));

    /* cz_r1cs_eval of the recorded system gives the prover's a/b/c */
    uint64_t rows = r.num_constraints;
    cz_fr *ea = malloc(rows * sizeof(cz_fr)), *eb = malloc(rows * sizeof(cz_fr)),
          *ec = malloc(rows * sizeof(cz_fr));
    cz_r1cs_eval(ea, eb, ec, &r, c->input, c->aux);
    CHECK(memcmp(ea, d.a, rows * sizeof(cz_fr)) == 0);
    CHECK(memcmp(eb, d.b, rows * sizeof(cz_fr)) == 0);
    CHECK(memcmp(ec, d.c, rows * sizeof(cz_fr)) == 0);
    free(ea), free(eb), free(ec);
    cz_prove_data_free(&d);

    /* witness */
    cs = cz_cs_witness_new();
    CHECK(cs && cz_cs_has_witness(cs));
    CHECK(circ_replay(cs, c, l.lcs, &l.tmp) == 0);
    cz_fr *win, *waux;
    uint32_t nin, naux;
    CHECK(cz_witness_finish(cs, &win, &nin, &waux, &naux, &err) == CZ_OK);
    cz_cs_destroy(cs);
    CHECK(nin == c->num_inputs && naux == c->num_aux);
    CHECK(memcmp(win, c->input, nin * sizeof(cz_fr)) == 0);
    CHECK(naux == 0 || memcmp(waux, c->aux, naux * sizeof(cz_fr)) == 0);
    free(win), free(waux);

    free(want_a_aux), free(want_b_in), free(want_b_aux);
    cz_r1cs_free(&r);
    for (int k = 0; k < 3; k++) ref_csr_free(&ref[k]);
    lcs_free(&l);
}

static void test_cubic(void) {
    circuit c;
    circ_cubic(&c, 3);
    CHECK(c.num_inputs == 2 && c.num_aux == 4 && c.num_constraints == 4);
    run_backends(&c, UINT64_MAX);
    circ_free(&c);
    circ_cubic(&c, 4); /* 64 + 4 + 5 = 73 != 35: only the last constraint fails */
    run_backends(&c, 3);
    circ_free(&c);
}

static void test_random_circuits(unsigned n) {
    uint64_t sizes[] = {0, 1, 7, n};
    for (int i = 0; i < 4; i++) {
        uint64_t seed = cz_test_rand64();
        circuit c;
        circ_random(&c, seed, sizes[i], UINT64_MAX);
        run_backends(&c, UINT64_MAX);
        circ_free(&c);
        if (sizes[i] == 0) continue;
        uint64_t bad = cz_test_rand64() % sizes[i];
        circ_random(&c, seed, sizes[i], bad);
        run_backends(&c, bad);
        circ_free(&c);
    }
}

/* ---- errors ---- */

static void test_errors(void) {
    cz_cs *(*news[])(void) = {cz_cs_count_new, cz_cs_check_new, cz_cs_prove_new, cz_cs_record_new};
    cz_fr v = cz_fr_one;
    for (int i = 0; i < 4; i++) {
        /* a term that names a variable not allocated yet */
        cz_cs *cs = news[i]();
        cz_var x = cz_cs_alloc(cs, &v);
        CHECK(x == 0);
        cz_lc a;
        cz_lc_init(&a);
        cz_lc_add_var(&a, x);
        cz_cs_enforce(cs, &a, &a, &a);
        CHECK(cz_cs_status(cs) == CZ_OK && cs->num_constraints == 1);
        cz_lc_add_var(&a, 1); /* aux 1 does not exist */
        cz_cs_enforce(cs, NULL, &a, NULL);
        CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
        CHECK(strstr(cs->error.message, "constraint 1: B term 1 names aux 1") != NULL);
        /* sticky: later calls do nothing */
        CHECK(cz_cs_alloc(cs, &v) == CZ_VAR_ONE);
        cz_cs_enforce(cs, NULL, NULL, NULL);
        CHECK(cs->num_constraints == 1 && cs->num_aux == 1);
        /* a later error does not replace the first */
        CHECK(cz_cs_fail(cs, CZ_E_NOMEM, "later") == CZ_E_INVALID_ARG);
        CHECK(strstr(cs->error.message, "later") == NULL);
        cz_lc_free(&a);
        if (i == 1) { /* check reports an errored system as not satisfied */
            cz_check_result res;
            cz_cs_check_result(cs, &res);
            CHECK(!res.satisfied);
        }
        if (i == 2) {
            cz_prove_data d;
            cz_error err;
            CHECK(cz_prove_finish(cs, &d, &err) == CZ_E_INVALID_ARG);
            CHECK(strstr(err.message, "names aux 1") != NULL);
        }
        if (i == 3) {
            cz_r1cs r;
            cz_error err;
            CHECK(cz_record_finish(cs, &r, &err) == CZ_E_INVALID_ARG);
        }
        cz_cs_destroy(cs);
    }

    /* witness-carrying back-ends need values */
    cz_cs *(*wnews[])(void) = {cz_cs_check_new, cz_cs_prove_new, cz_cs_witness_new};
    for (int i = 0; i < 3; i++) {
        cz_cs *cs = wnews[i]();
        CHECK(cz_cs_alloc_input(cs, NULL) == CZ_VAR_ONE);
        CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
        CHECK(cs->num_inputs == 1);
        cz_cs_destroy(cs);
    }

    /* record sorts an LC built by hand out of order, refuses a repeat */
    cz_cs *cs = cz_cs_record_new();
    cz_cs_alloc(cs, NULL), cz_cs_alloc(cs, NULL);
    cz_fr two;
    cz_fr_from_u64(&two, 2);
    cz_lc_term terms[3] = {{1, cz_fr_one}, {CZ_VAR_ONE, two}, {0, two}};
    cz_lc hand = {terms, 3, 3};
    cz_cs_enforce(cs, NULL, NULL, &hand);
    CHECK(cz_cs_status(cs) == CZ_OK);
    CHECK(terms[0].var == 1); /* the caller's LC is left alone */
    cz_r1cs rec;
    CHECK(cz_record_finish(cs, &rec, NULL) == CZ_OK);
    /* C row 0: ONE (column 0) = 2, aux 0 (column 1) = 2, aux 1 (column 2) = 1 */
    CHECK(rec.c.row_start[1] == 3 && rec.c.col[0] == 0 && rec.c.col[1] == 1 && rec.c.col[2] == 2);
    CHECK(cz_fr_equal(&rec.c.val[0], &two) && cz_fr_equal(&rec.c.val[1], &two) &&
          cz_fr_is_one(&rec.c.val[2]));
    cz_r1cs_free(&rec);
    cz_cs_destroy(cs);
    cs = cz_cs_record_new();
    cz_cs_alloc(cs, NULL), cz_cs_alloc(cs, NULL);
    terms[2].var = 1; /* aux 1 twice */
    cz_cs_enforce(cs, &hand, NULL, NULL);
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    CHECK(strstr(cs->error.message, "A holds aux 1 twice") != NULL);
    cz_cs_destroy(cs);

    /* finish on the wrong back-end */
    cs = cz_cs_count_new();
    cz_prove_data d;
    cz_r1cs r;
    CHECK(cz_prove_finish(cs, &d, NULL) == CZ_E_INVALID_ARG);
    CHECK(cz_record_finish(cs, &r, NULL) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
    cz_cs_destroy(NULL);
}

/* Densities count non-zero coefficients only (bellperson's
 * eval_with_trackers): a variable whose A and B terms cancel is not dense,
 * though the term stays in the LC. */
static void test_density_cancel(void) {
    cz_cs *p = cz_cs_prove_new(), *rec = cz_cs_record_new();
    cz_cs *both[2] = {p, rec};
    cz_fr v;
    cz_fr_from_u64(&v, 9);
    for (int i = 0; i < 2; i++) {
        cz_cs *cs = both[i];
        cz_var in1 = cz_cs_alloc_input(cs, &v), x = cz_cs_alloc(cs, &v), y = cz_cs_alloc(cs, &v);
        cz_lc a, b, c;
        cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
        cz_lc_add_var(&a, x), cz_lc_sub_var(&a, x);                       /* x cancels in A */
        cz_lc_add_var(&a, y);                                             /* y dense in A */
        cz_lc_add_var(&b, in1), cz_lc_sub_var(&b, in1);                   /* in1 cancels in B */
        cz_lc_add_var(&b, CZ_VAR_ONE);                                    /* ONE dense in B */
        cz_lc_add_var(&b, x), cz_lc_sub_var(&b, x), cz_lc_add_var(&b, x); /* x dense in B */
        cz_lc_add_var(&c, y);
        CHECK(a.len == 2 && b.len == 3);
        cz_cs_enforce(cs, &a, &b, &c); /* (y) * (1 + x) = y: false, no matter here */
        cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
    }
    cz_prove_data d;
    cz_r1cs r;
    CHECK(cz_prove_finish(p, &d, NULL) == CZ_OK);
    CHECK(cz_record_finish(rec, &r, NULL) == CZ_OK);
    CHECK(!cz_density_get(d.a_aux_density, 0) && cz_density_get(d.a_aux_density, 1));
    CHECK(cz_density_get(d.b_input_density, 0) && !cz_density_get(d.b_input_density, 1));
    CHECK(cz_density_get(d.b_aux_density, 0) && !cz_density_get(d.b_aux_density, 1));
    CHECK(d.a_aux_density[0] == r.a_aux_density[0] && d.b_input_density[0] == r.b_input_density[0]);
    CHECK(d.b_aux_density[0] == r.b_aux_density[0]);
    /* the cancelled terms are not stored: A row 0 is {y}, B row 0 is {ONE, x} */
    CHECK(r.a.row_start[1] == 1 && r.a.col[0] == 2 + 1);
    CHECK(r.b.row_start[1] == 2 && r.b.col[0] == 0 && r.b.col[1] == 2 + 0);
    cz_fr ten; /* a = y = 9, b = 1 + x = 10, c = y = 9 */
    cz_fr_from_u64(&ten, 10);
    CHECK(cz_fr_equal(&d.a[0], &v) && cz_fr_equal(&d.b[0], &ten) && cz_fr_equal(&d.c[0], &v));
    cz_prove_data_free(&d);
    cz_r1cs_free(&r);
    cz_cs_destroy(p), cz_cs_destroy(rec);
}

/* A long hand-built LC in random order (the record back-end's heap-sort
 * path) lands in the CSR sorted, each value with its variable. */
static void test_record_long_unsorted(void) {
    enum { NI = 90, NA = 150 };
    cz_cs *cs = cz_cs_record_new();
    for (int i = 1; i < NI; i++) cz_cs_alloc_input(cs, NULL);
    for (int i = 0; i < NA; i++) cz_cs_alloc(cs, NULL);
    cz_lc_term terms[NI + NA];
    for (int i = 0; i < NI + NA; i++) {
        terms[i].var = i < NI ? (CZ_VAR_INPUT_BIT | (uint32_t)i) : (cz_var)(i - NI);
        cz_fr_from_u64(&terms[i].coeff, 1000 + (uint64_t)i); /* column i */
    }
    for (int i = NI + NA - 1; i > 0; i--) { /* shuffle */
        int j = (int)(cz_test_rand64() % (uint64_t)(i + 1));
        cz_lc_term t = terms[i];
        terms[i] = terms[j], terms[j] = t;
    }
    cz_lc hand = {terms, NI + NA, NI + NA};
    cz_cs_enforce(cs, &hand, &hand, NULL);
    cz_r1cs r;
    CHECK(cz_record_finish(cs, &r, NULL) == CZ_OK);
    cz_cs_destroy(cs);
    CHECK(r.a.row_start[1] == NI + NA && r.b.row_start[1] == NI + NA);
    for (uint32_t e = 0; e < NI + NA; e++) {
        cz_fr want;
        cz_fr_from_u64(&want, 1000 + e);
        CHECK(r.a.col[e] == e && cz_fr_equal(&r.a.val[e], &want));
        CHECK(r.b.col[e] == e && cz_fr_equal(&r.b.val[e], &want));
    }
    cz_r1cs_free(&r);
}

int main(void) {
    cz_test_init("r1cs/test_cs");
    test_lc_basics();
    test_lc_random(cz_test_iters(2000));
    test_errors();
    test_density_cancel();
    test_record_long_unsorted();
    test_cubic();
    test_random_circuits(cz_test_iters(3000));
    return cz_test_finish("r1cs/test_cs");
}
