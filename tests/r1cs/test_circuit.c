/* The pre-compiled circuit (r1cs/circuit.h):
 *  - cz_circuit_eval equals the prove back-end's a/b/c and an oracle that
 *    evaluates the generator's own raw term lists with plain cz_fr
 *    arithmetic (random circuits: coefficients 1, -1, small repeated
 *    integers and random values, repeated variables, terms summing to zero,
 *    inputs allocated between aux), with u16 and u32 coefficient indices
 *    (65,536 distinct coefficients and one more);
 *  - the compile back-end's circuit equals cz_circuit_from_r1cs of the
 *    record back-end's system, array for array, and cz_circuit_to_r1cs
 *    gives the recorded system back;
 *  - the table's invariants ([0] = 1, [1] = -1, distinct, non-zero) and
 *    the densities against the reference CSR of circuits.h;
 *  - the compile back-end refuses what record refuses (repeated variable,
 *    unallocated variable, use after finish);
 *  - the file: round trips in both open modes (same arrays, same bytes when
 *    written again, the size the format promises, evaluation from the
 *    mapping), and every kind of damage refused with a message naming the
 *    file and the fault: truncation, a trailing byte, magic, version,
 *    header size, a flipped byte in each section (checksum), header sizes
 *    that lie, and, with a valid checksum, every invariant CHECKED mode
 *    enforces (offsets computed here from the documented layout). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "r1cs/backends.h"
#include "r1cs/circuit.h"
#include "r1cs/internal.h"
#include "circuits.h"

/* ---- running the back-ends on a test circuit ---- */

static cz_circuit *compile_circuit(const circuit *c) {
    cz_lc lcs[3], tmp;
    for (int k = 0; k < 3; k++) cz_lc_init(&lcs[k]);
    cz_lc_init(&tmp);
    cz_cs *cs = cz_cs_compile_new();
    CHECK(cs != NULL);
    CHECK(circ_replay(cs, c, lcs, &tmp) == 0);
    CHECK(!cz_cs_has_witness(cs));
    cz_circuit *out = NULL;
    cz_error err = {0};
    CHECK(cz_compile_finish(cs, &out, &err) == CZ_OK);
    if (!out) printf("  compile: %s\n", err.message);
    cz_cs_destroy(cs);
    for (int k = 0; k < 3; k++) cz_lc_free(&lcs[k]);
    cz_lc_free(&tmp);
    return out;
}

static void record_circuit(cz_r1cs *r, const circuit *c) {
    cz_lc lcs[3], tmp;
    for (int k = 0; k < 3; k++) cz_lc_init(&lcs[k]);
    cz_lc_init(&tmp);
    cz_cs *cs = cz_cs_record_new();
    CHECK(circ_replay(cs, c, lcs, &tmp) == 0);
    CHECK(cz_record_finish(cs, r, NULL) == CZ_OK);
    cz_cs_destroy(cs);
    for (int k = 0; k < 3; k++) cz_lc_free(&lcs[k]);
    cz_lc_free(&tmp);
}

static void prove_circuit(cz_prove_data *pd, const circuit *c) {
    cz_lc lcs[3], tmp;
    for (int k = 0; k < 3; k++) cz_lc_init(&lcs[k]);
    cz_lc_init(&tmp);
    cz_cs *cs = cz_cs_prove_new();
    CHECK(circ_replay(cs, c, lcs, &tmp) == 0);
    CHECK(cz_prove_finish(cs, pd, NULL) == CZ_OK);
    cz_cs_destroy(cs);
    for (int k = 0; k < 3; k++) cz_lc_free(&lcs[k]);
    cz_lc_free(&tmp);
}

/* The oracle: every row from the generator's raw (unmerged) lists, term by
 * term with cz_fr_mul and cz_fr_add, then the input rows (a = input_i). */
static void oracle_abc(cz_fr *out[3], const circuit *c) {
    uint64_t row = 0;
    for (size_t i = 0; i < c->nops; i++) {
        if (c->ops[i].kind != OP_ENFORCE) continue;
        for (int k = 0; k < 3; k++) out[k][row] = ref_eval(c, &c->ops[i].lc[k]);
        row++;
    }
    for (uint32_t i = 0; i < c->num_inputs; i++, row++) {
        out[0][row] = c->input[i];
        out[1][row] = cz_fr_zero;
        out[2][row] = cz_fr_zero;
    }
}

static int fr_arrays_equal(const cz_fr *x, const cz_fr *y, uint64_t n) {
    return n == 0 || memcmp(x, y, (size_t)n * sizeof(cz_fr)) == 0;
}

/* Every field and array, byte for byte. */
static int circuits_equal(const cz_circuit *x, const cz_circuit *y) {
    if (x->num_inputs != y->num_inputs || x->num_aux != y->num_aux ||
        x->num_constraints != y->num_constraints || x->coef_bytes != y->coef_bytes ||
        x->num_coeffs != y->num_coeffs)
        return 0;
    if (memcmp(x->coeffs, y->coeffs, (size_t)x->num_coeffs * sizeof(cz_fr)) != 0) return 0;
    for (int k = 0; k < 3; k++) {
        const cz_circuit_matrix *a = &x->m[k], *b = &y->m[k];
        if (a->nnz != b->nnz) return 0;
        if (memcmp(a->row_start, b->row_start, (size_t)(x->num_constraints + 1) * 4) != 0) return 0;
        if (a->nnz && memcmp(a->col, b->col, (size_t)a->nnz * 4) != 0) return 0;
        if (a->nnz && memcmp(a->coef, b->coef, (size_t)a->nnz * x->coef_bytes) != 0) return 0;
    }
    size_t wa = (x->num_aux + 63) / 64 * 8, wi = (x->num_inputs + 63) / 64 * 8;
    return memcmp(x->a_aux_density, y->a_aux_density, wa) == 0 &&
           memcmp(x->b_input_density, y->b_input_density, wi) == 0 &&
           memcmp(x->b_aux_density, y->b_aux_density, wa) == 0;
}

static int csr_equal(const cz_csr *x, const cz_csr *y) {
    if (x->rows != y->rows) return 0;
    if (memcmp(x->row_start, y->row_start, (x->rows + 1) * 8) != 0) return 0;
    uint64_t nnz = x->row_start[x->rows];
    return (nnz == 0 || memcmp(x->col, y->col, nnz * 4) == 0) &&
           (nnz == 0 || memcmp(x->val, y->val, nnz * sizeof(cz_fr)) == 0);
}

static int r1cs_equal(const cz_r1cs *x, const cz_r1cs *y) {
    size_t wa = (x->num_aux + 63) / 64 * 8, wi = (x->num_inputs + 63) / 64 * 8;
    return x->num_inputs == y->num_inputs && x->num_aux == y->num_aux &&
           x->num_constraints == y->num_constraints && csr_equal(&x->a, &y->a) &&
           csr_equal(&x->b, &y->b) && csr_equal(&x->c, &y->c) &&
           memcmp(x->a_aux_density, y->a_aux_density, wa) == 0 &&
           memcmp(x->b_input_density, y->b_input_density, wi) == 0 &&
           memcmp(x->b_aux_density, y->b_aux_density, wa) == 0;
}

static int fr_cmp(const void *x, const void *y) {
    return memcmp(x, y, sizeof(cz_fr));
}

static uint32_t index_at(const cz_circuit *c, int k, uint64_t e) {
    return c->coef_bytes == 2 ? ((const uint16_t *)c->m[k].coef)[e]
                              : ((const uint32_t *)c->m[k].coef)[e];
}

/* The circuit against the reference CSR of circuits.h (merged terms,
 * zeros dropped, aux after the final inputs, the input rows), entry by
 * entry through the table; the table's own invariants; the densities
 * against "column occurs" computed from the reference. */
static void check_against_reference(const cz_circuit *cc, const circuit *c) {
    CHECK(cc->num_inputs == c->num_inputs && cc->num_aux == c->num_aux);
    CHECK(cc->num_constraints == c->num_constraints + c->num_inputs);
    CHECK(cc->coef_bytes == (cc->num_coeffs > 65536 ? 4u : 2u));
    CHECK(cc->num_coeffs >= 2);
    cz_fr minus_one;
    cz_fr_neg(&minus_one, &cz_fr_one);
    CHECK(cz_fr_equal(&cc->coeffs[0], &cz_fr_one));
    CHECK(cz_fr_equal(&cc->coeffs[1], &minus_one));
    int ok = 1;
    for (uint32_t i = 0; i < cc->num_coeffs && ok; i++) ok = !cz_fr_is_zero(&cc->coeffs[i]);
    CHECK(ok);
    uint64_t *used = calloc((cc->num_coeffs + 63) / 64, 8);
    for (int k = 0; k < 3; k++) {
        ref_csr m = circ_csr(c, k);
        CHECK(m.rows == cc->num_constraints && m.nnz == cc->m[k].nnz);
        int same = m.rows == cc->num_constraints && m.nnz == cc->m[k].nnz;
        for (uint64_t j = 0; same && j <= m.rows; j++)
            same = m.row_start[j] == cc->m[k].row_start[j];
        for (uint64_t e = 0; same && e < m.nnz; e++) {
            uint32_t idx = index_at(cc, k, e);
            same = m.col[e] == cc->m[k].col[e] && idx < cc->num_coeffs &&
                   cz_fr_equal(&m.val[e], &cc->coeffs[idx]);
            if (same) used[idx / 64] |= 1ull << (idx % 64);
        }
        CHECK(same);
        /* densities: A tracks aux, B inputs and aux */
        if (k < 2) {
            uint32_t nv = cc->num_inputs + cc->num_aux;
            char *occurs = calloc(nv + 1, 1);
            for (uint64_t e = 0; e < m.nnz; e++) occurs[m.col[e]] = 1;
            int dens_ok = 1;
            for (uint32_t v = 0; v < nv; v++) {
                if (v < cc->num_inputs) {
                    if (k == 1) dens_ok &= cz_density_get(cc->b_input_density, v) == occurs[v];
                } else {
                    const uint64_t *bits = k == 0 ? cc->a_aux_density : cc->b_aux_density;
                    dens_ok &= cz_density_get(bits, v - cc->num_inputs) == occurs[v];
                }
            }
            CHECK(dens_ok);
            free(occurs);
        }
        ref_csr_free(&m);
    }
    /* every value beyond the two reserved ones is used by some entry, and
     * no two are equal (sorted copy) */
    int all_used = 1, distinct = 1;
    for (uint32_t i = 2; i < cc->num_coeffs; i++) all_used &= (int)((used[i / 64] >> (i % 64)) & 1);
    cz_fr *sorted = xrealloc(NULL, (size_t)cc->num_coeffs * sizeof(cz_fr));
    memcpy(sorted, cc->coeffs, (size_t)cc->num_coeffs * sizeof(cz_fr));
    qsort(sorted, cc->num_coeffs, sizeof(cz_fr), fr_cmp);
    for (uint32_t i = 1; i < cc->num_coeffs; i++)
        distinct &= !cz_fr_equal(&sorted[i - 1], &sorted[i]);
    free(sorted);
    CHECK(all_used);
    CHECK(distinct);
    free(used);
}

/* Everything about one generated circuit. */
static void check_circuit(const circuit *c, const char *what) {
    cz_circuit *cc = compile_circuit(c);
    if (!cc) return;
    check_against_reference(cc, c);
    uint64_t rows = cc->num_constraints;
    cz_fr *abc[3], *want[3];
    for (int k = 0; k < 3; k++) {
        abc[k] = xrealloc(NULL, (size_t)rows * sizeof(cz_fr));
        want[k] = xrealloc(NULL, (size_t)rows * sizeof(cz_fr));
        memset(abc[k], 0x5a, (size_t)rows * sizeof(cz_fr));
    }
    cz_circuit_eval(abc[0], abc[1], abc[2], cc, c->input, c->aux);
    oracle_abc(want, c);
    cz_prove_data pd;
    prove_circuit(&pd, c);
    CHECK(pd.num_constraints == rows);
    int eval_ok = 1, prove_ok = 1;
    for (int k = 0; k < 3; k++) {
        eval_ok &= fr_arrays_equal(abc[k], want[k], rows);
        const cz_fr *p = k == 0 ? pd.a : k == 1 ? pd.b : pd.c;
        prove_ok &= fr_arrays_equal(abc[k], p, rows);
    }
    CHECK(eval_ok);
    CHECK(prove_ok);
    /* one output at a time (the others NULL) gives the same values */
    for (int k = 0; k < 3; k++) {
        memset(abc[k], 0, (size_t)rows * sizeof(cz_fr));
        cz_circuit_eval(k == 0 ? abc[0] : NULL, k == 1 ? abc[1] : NULL, k == 2 ? abc[2] : NULL, cc,
                        c->input, c->aux);
        CHECK(fr_arrays_equal(abc[k], want[k], rows));
    }
    /* in pieces of rows (the CUDA context's a, b, c between step
     * boundaries): the same values, nothing outside a piece written */
    for (int k = 0; k < 3; k++) memset(abc[k], 0x5a, (size_t)rows * sizeof(cz_fr));
    const size_t piece = rows > 3 ? (size_t)rows / 3 : 1;
    for (size_t r0 = 0; r0 < rows; r0 += piece) {
        const size_t r1 = rows - r0 < piece ? rows : r0 + piece;
        cz_circuit_eval_rows(abc[0], abc[1], abc[2], cc, c->input, c->aux, r0, r1);
        if (r1 < rows) {
            uint8_t untouched[sizeof(cz_fr)];
            memset(untouched, 0x5a, sizeof untouched);
            CHECK(memcmp(&abc[0][r1], untouched, sizeof untouched) == 0);
        }
    }
    for (int k = 0; k < 3; k++) CHECK(fr_arrays_equal(abc[k], want[k], rows));
    /* record, then from_r1cs: the same circuit; to_r1cs: the same system */
    cz_r1cs r, back;
    record_circuit(&r, c);
    cz_circuit *from = NULL;
    cz_error err = {0};
    CHECK(cz_circuit_from_r1cs(&from, &r, &err) == CZ_OK);
    CHECK(from && circuits_equal(cc, from));
    CHECK(cz_circuit_to_r1cs(&back, cc, &err) == CZ_OK);
    CHECK(r1cs_equal(&r, &back));
    CHECK(cz_r1cs_validate(&back, &err) == CZ_OK);
    uint64_t want_bytes = (uint64_t)cc->num_coeffs * 32 +
                          8 * (2 * ((cc->num_aux + 63) / 64) + (cc->num_inputs + 63) / 64);
    for (int k = 0; k < 3; k++) want_bytes += (rows + 1) * 4 + cc->m[k].nnz * (4 + cc->coef_bytes);
    CHECK(cz_circuit_bytes(cc) == want_bytes);
    CHECK(cc->checksum == 0);
    if (getenv("CZ_TEST_VERBOSE"))
        printf("  %s: %llu rows, nnz %llu/%llu/%llu, %u coefficients (u%u)\n", what,
               (unsigned long long)rows, (unsigned long long)cc->m[0].nnz,
               (unsigned long long)cc->m[1].nnz, (unsigned long long)cc->m[2].nnz, cc->num_coeffs,
               8 * cc->coef_bytes);
    cz_r1cs_free(&back);
    cz_r1cs_free(&r);
    cz_circuit_free(from);
    cz_prove_data_free(&pd);
    for (int k = 0; k < 3; k++) free(abc[k]), free(want[k]);
    cz_circuit_free(cc);
}

static void test_random(unsigned n) {
    uint64_t sizes[] = {0, 1, 2, 17, n};
    for (int i = 0; i < 5; i++) {
        circuit c;
        circ_random(&c, cz_test_rand64(), sizes[i], UINT64_MAX);
        check_circuit(&c, "random");
        circ_free(&c);
    }
    circuit c;
    circ_cubic(&c, 3);
    check_circuit(&c, "cubic");
    circ_free(&c);
}

/* A circuit whose coefficients are exactly 1, -1 and `extra` more distinct
 * values (2, 3, ..., extra + 1, each used twice, in A and in B), so the
 * table holds 2 + extra values. Inputs come after aux, every 1000th A has
 * an input term summing to zero. */
static void circ_many_coeffs(circuit *c, uint32_t extra) {
    circ_init(c);
    uint64_t s = cz_test_rand64();
    cz_fr one = cz_fr_one, minus_one, x = sm_fr(&s);
    cz_fr_neg(&minus_one, &one);
    cz_var vx = circ_alloc(c, &x, 0);
    for (uint32_t i = 0; i < extra; i++) {
        cz_fr k, t, v = sm_fr(&s);
        cz_fr_from_u64(&k, (uint64_t)i + 2);
        cz_var vin = CZ_VAR_ONE;
        if (i % 1000 == 0) vin = circ_alloc(c, &v, 1); /* an input after aux */
        /* (k x - v_in + v_in) * 1 = t, t = k x */
        cz_fr_mul(&t, &k, &x);
        cz_var vt = circ_alloc(c, &t, 0);
        raw_lc a = {0}, b = {0}, cc = {0};
        raw_push(&a, vx, &k);
        if (i % 1000 == 0) raw_push(&a, vin, &minus_one), raw_push(&a, vin, &one);
        raw_push(&b, CZ_VAR_ONE, &one);
        raw_push(&cc, vt, &one);
        circ_enforce(c, a, b, cc);
        /* and k once more in C: x * k = t */
        a = (raw_lc){0}, b = (raw_lc){0}, cc = (raw_lc){0};
        raw_push(&a, vx, &one), raw_push(&b, CZ_VAR_ONE, &k), raw_push(&cc, vt, &one);
        circ_enforce(c, a, b, cc);
    }
}

static void test_index_width(void) {
    uint32_t extras[] = {65534, 65535};
    for (int i = 0; i < 2; i++) {
        circuit c;
        circ_many_coeffs(&c, extras[i]);
        cz_circuit *cc = compile_circuit(&c);
        CHECK(cc && cc->num_coeffs == extras[i] + 2);
        CHECK(cc && cc->coef_bytes == (i == 0 ? 2u : 4u));
        cz_circuit_free(cc);
        check_circuit(&c, i == 0 ? "65,536 coefficients" : "65,537 coefficients");
        circ_free(&c);
    }
    /* random circuits large enough to pass 65,536 random coefficients */
    circuit c;
    circ_random(&c, cz_test_rand64(), 30000, UINT64_MAX);
    cz_circuit *cc = compile_circuit(&c);
    CHECK(cc && cc->coef_bytes == 4 && cc->num_coeffs > 65536);
    cz_circuit_free(cc);
    check_circuit(&c, "random, u32 indices");
    circ_free(&c);
}

/* The compile back-end accepts and refuses what record does. */
static void test_refusals(void) {
    cz_error err = {0};
    cz_circuit *cc = NULL;
    cz_fr two;
    cz_fr_from_u64(&two, 2);
    /* a variable twice in a hand-built LC */
    cz_cs *cs = cz_cs_compile_new();
    cz_var x = cz_cs_alloc(cs, NULL);
    cz_lc_term terms[2] = {{x, cz_fr_one}, {x, two}};
    cz_lc twice = {terms, 2, 2};
    cz_cs_enforce(cs, &twice, NULL, NULL);
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    CHECK(cz_compile_finish(cs, &cc, &err) == CZ_E_INVALID_ARG && cc == NULL);
    CHECK(strstr(err.message, "twice") != NULL);
    cz_cs_destroy(cs);
    /* an unallocated variable */
    cs = cz_cs_compile_new();
    cz_lc_term far = {5, cz_fr_one};
    cz_lc lc = {&far, 1, 1};
    cz_cs_enforce(cs, NULL, &lc, NULL);
    CHECK(cz_compile_finish(cs, &cc, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "only 0 are allocated") != NULL);
    cz_cs_destroy(cs);
    /* finish twice, use after finish, the wrong back-end */
    cs = cz_cs_compile_new();
    CHECK(cz_compile_finish(cs, &cc, &err) == CZ_OK && cc != NULL);
    CHECK(cc->num_constraints == 1 && cc->m[0].nnz == 1 && cc->num_coeffs == 2);
    cz_circuit_free(cc);
    CHECK(cz_compile_finish(cs, &cc, &err) == CZ_E_INVALID_ARG && cc == NULL);
    CHECK(strstr(err.message, "called twice") != NULL);
    cz_cs_alloc(cs, NULL);
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    CHECK(strstr(cs->error.message, "after cz_compile_finish") != NULL);
    cz_cs_destroy(cs);
    cs = cz_cs_record_new();
    CHECK(cz_compile_finish(cs, &cc, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "not a compile back-end") != NULL);
    cz_cs_destroy(cs);
    cz_circuit_free(NULL);
    /* from_r1cs refuses a system that breaks an invariant */
    circuit c;
    circ_random(&c, cz_test_rand64(), 50, UINT64_MAX);
    cz_r1cs r;
    record_circuit(&r, &c);
    if (r.a.row_start[r.a.rows] > 0) {
        cz_fr save = r.a.val[0];
        r.a.val[0] = cz_fr_zero;
        CHECK(cz_circuit_from_r1cs(&cc, &r, &err) == CZ_E_INVALID_ARG && cc == NULL);
        CHECK(strstr(err.message, "is zero") != NULL);
        r.a.val[0] = save;
    }
    cz_r1cs_free(&r);
    circ_free(&c);
}

/* ---- the file ---- */

static char dir[256];

static void path_of(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s", dir, name);
}

static uint64_t align8(uint64_t x) {
    return (x + 7) & ~(uint64_t)7;
}

/* Offsets of the sections, from the format description at the top of
 * circuit_file.c (not from its code). */
typedef struct {
    uint64_t coeffs, rs[3], col[3], coef[3], dens[3], sum, size;
} offsets;

static offsets offsets_of(const cz_circuit *c) {
    offsets o;
    uint64_t pos = 64;
    o.coeffs = pos;
    pos += 32 * (uint64_t)c->num_coeffs;
    for (int k = 0; k < 3; k++) {
        o.rs[k] = pos;
        pos += align8((c->num_constraints + 1) * 4);
        o.col[k] = pos;
        pos += align8(c->m[k].nnz * 4);
        o.coef[k] = pos;
        pos += align8(c->m[k].nnz * c->coef_bytes);
    }
    uint64_t wa = (c->num_aux + 63) / 64 * 8, wi = (c->num_inputs + 63) / 64 * 8;
    o.dens[0] = pos, pos += wa;
    o.dens[1] = pos, pos += wi;
    o.dens[2] = pos, pos += wa;
    o.sum = pos;
    o.size = pos + 8;
    return o;
}

static void reseal(uint8_t *buf, size_t len) { /* recompute the checksum */
    uint64_t h = cz_xxh64(buf, len - 8, 0);
    memcpy(buf + len - 8, &h, 8);
}

/* Opens buf (written to a file) and expects rejection with `want` in the
 * message. */
static cz_status expect_reject(const uint8_t *buf, size_t len, cz_circuit_check mode,
                               uint64_t expected, const char *want) {
    char p[512];
    path_of(p, sizeof p, "bad.czc");
    cz_test_write_file(p, buf, len);
    cz_circuit *c = (cz_circuit *)&c; /* must come back NULL */
    cz_error err = {0};
    cz_status st = cz_circuit_open(&c, p, mode, expected, &err);
    CHECK(st != CZ_OK);
    CHECK(c == NULL);
    if (st != CZ_OK) {
        CHECK(err.status == st);
        if (getenv("CZ_TEST_VERBOSE")) printf("  rejected: %s\n", err.message);
        CHECK(strstr(err.message, p) != NULL); /* names the file */
        if (want && !strstr(err.message, want)) {
            printf("  expected \"%s\" in: %s\n", want, err.message);
            CHECK(0);
        }
    } else {
        cz_circuit_free(c);
    }
    return st;
}

static cz_circuit *open_ok(const uint8_t *buf, size_t len, cz_circuit_check mode,
                           uint64_t expected) {
    char p[512];
    path_of(p, sizeof p, "ok.czc");
    cz_test_write_file(p, buf, len);
    cz_circuit *c = NULL;
    cz_error err = {0};
    CHECK(cz_circuit_open(&c, p, mode, expected, &err) == CZ_OK);
    if (!c) printf("  open: %s\n", err.message);
    return c;
}

static void check_eval(const cz_circuit *cc, const circuit *c) {
    uint64_t rows = cc->num_constraints;
    cz_fr *abc[3], *want[3];
    for (int k = 0; k < 3; k++) {
        abc[k] = xrealloc(NULL, (size_t)rows * sizeof(cz_fr));
        want[k] = xrealloc(NULL, (size_t)rows * sizeof(cz_fr));
    }
    cz_circuit_eval(abc[0], abc[1], abc[2], cc, c->input, c->aux);
    oracle_abc(want, c);
    int ok = 1;
    for (int k = 0; k < 3; k++) ok &= fr_arrays_equal(abc[k], want[k], rows);
    CHECK(ok);
    for (int k = 0; k < 3; k++) free(abc[k]), free(want[k]);
}

static void file_round_trip(const circuit *c) {
    cz_circuit *cc = compile_circuit(c);
    if (!cc) return;
    char p1[512], p2[512];
    path_of(p1, sizeof p1, "one.czc");
    path_of(p2, sizeof p2, "two.czc");
    cz_error err = {0};
    CHECK(cz_circuit_write(cc, p1, &err) == CZ_OK);
    CHECK(cc->checksum != 0);
    size_t len = 0;
    uint8_t *bytes = cz_test_read_file(p1, &len);
    offsets o = offsets_of(cc);
    CHECK(bytes && len == o.size && memcmp(bytes, "CZCIRC\0\0", 8) == 0);
    CHECK(bytes && cz_xxh64(bytes, len - 8, 0) == cc->checksum);
    cz_circuit *back = NULL;
    CHECK(cz_circuit_open(&back, p1, CZ_CIRCUIT_CHECKED, 0, &err) == CZ_OK);
    if (back) {
        CHECK(circuits_equal(cc, back));
        CHECK(back->checksum == cc->checksum);
        CHECK(cz_circuit_bytes(back) == cz_circuit_bytes(cc));
        /* the arrays are the mapping, 8-byte aligned */
        for (int k = 0; k < 3; k++)
            CHECK(((uintptr_t)back->m[k].row_start & 7) == 0 &&
                  ((uintptr_t)back->m[k].col & 7) == 0 && ((uintptr_t)back->m[k].coef & 7) == 0);
        check_eval(back, c);
        /* written again: the same bytes */
        CHECK(cz_circuit_write(back, p2, &err) == CZ_OK);
        size_t len2 = 0;
        uint8_t *bytes2 = cz_test_read_file(p2, &len2);
        CHECK(bytes2 && len2 == len && memcmp(bytes, bytes2, len) == 0);
        free(bytes2);
        cz_circuit_free(back);
    }
    /* trusted: with the expected checksum, and without one */
    uint64_t expected[2] = {cc->checksum, 0};
    for (int i = 0; i < 2; i++) {
        back = NULL;
        CHECK(cz_circuit_open(&back, p1, CZ_CIRCUIT_TRUSTED, expected[i], &err) == CZ_OK);
        CHECK(back && circuits_equal(cc, back) && back->checksum == cc->checksum);
        if (back) check_eval(back, c);
        cz_circuit_free(back);
    }
    /* checked with an expected checksum: that must match too */
    back = NULL;
    CHECK(cz_circuit_open(&back, p1, CZ_CIRCUIT_CHECKED, cc->checksum, &err) == CZ_OK);
    cz_circuit_free(back);
    CHECK(cz_circuit_open(&back, p1, CZ_CIRCUIT_CHECKED, cc->checksum ^ 1, &err) == CZ_E_PARSE);
    CHECK(back == NULL && strstr(err.message, "expected") != NULL);
    free(bytes);
    cz_circuit_free(cc);
    unlink(p1), unlink(p2);
}

static void test_file_round_trip(unsigned n) {
    uint64_t sizes[] = {0, 1, 2, 17, n};
    for (int i = 0; i < 5; i++) {
        circuit c;
        circ_random(&c, cz_test_rand64(), sizes[i], UINT64_MAX);
        file_round_trip(&c);
        circ_free(&c);
    }
    circuit c;
    circ_many_coeffs(&c, 65535); /* u32 indices */
    file_round_trip(&c);
    circ_free(&c);
}

static void put32(uint8_t *p, uint32_t v) {
    memcpy(p, &v, 4);
}
static void put64(uint8_t *p, uint64_t v) {
    memcpy(p, &v, 8);
}

static void test_file_rejections(void) {
    circuit c;
    circ_random(&c, cz_test_rand64(), 300, UINT64_MAX);
    cz_circuit *cc = compile_circuit(&c);
    if (!cc) return;
    char p[512];
    path_of(p, sizeof p, "good.czc");
    CHECK(cz_circuit_write(cc, p, NULL) == CZ_OK);
    size_t len = 0;
    uint8_t *good = cz_test_read_file(p, &len), *buf = malloc(len + 16);
    offsets o = offsets_of(cc);
    CHECK(good && len == o.size && cc->num_coeffs >= 4);
    uint64_t sum = cc->checksum, rows = cc->num_constraints;
    const cz_circuit_check modes[2] = {CZ_CIRCUIT_CHECKED, CZ_CIRCUIT_TRUSTED};

    /* truncated anywhere, the header included, and a trailing byte: both
     * modes, from the sizes alone */
    size_t cuts[] = {0, 1, 8, 63, 64, 71, 72, 100, o.rs[1], len / 2, len - 8, len - 1};
    for (int m = 0; m < 2; m++) {
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            CHECK(expect_reject(good, cuts[i], modes[m], 0, "truncated") == CZ_E_PARSE);
        memcpy(buf, good, len);
        buf[len] = 0;
        CHECK(expect_reject(buf, len + 1, modes[m], 0, "oversized") == CZ_E_PARSE);
    }
    char want[128];
    snprintf(want, sizeof want, "truncated: %zu bytes, header says %zu", len - 1, len);
    CHECK(expect_reject(good, len - 1, CZ_CIRCUIT_CHECKED, 0, want) == CZ_E_PARSE);

    /* magic, version, header size */
    memcpy(buf, good, len);
    memcpy(buf, "CZR1CS\0\0", 8); /* the record file's */
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_TRUSTED, 0, "bad magic") == CZ_E_PARSE);
    memcpy(buf, good, len);
    put32(buf + 8, 9);
    reseal(buf, len);
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_CHECKED, 0, "version 9, expected 1") == CZ_E_PARSE);
    memcpy(buf, good, len);
    put32(buf + 12, 72);
    reseal(buf, len);
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_CHECKED, 0, "header size 72, expected 64") ==
          CZ_E_PARSE);

    /* a flipped byte in each section, the checksum itself included */
    uint64_t at[] = {o.coeffs + 40, o.rs[0] + 4,   o.col[0],         o.coef[0] + 1,
                     o.rs[1] + 8,   o.col[1] + 4,  o.coef[1],        o.rs[2] + 12,
                     o.col[2],      o.coef[2],     o.dens[0],        o.dens[1],
                     o.dens[2],     o.sum,         o.sum + 7,        o.rs[1] - 1,
                     o.coeffs + 5,  o.dens[2] - 1, (uint64_t)len / 3};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        if (at[i] >= len) continue;
        memcpy(buf, good, len);
        buf[at[i]] ^= (uint8_t)(1u << (cz_test_rand64() % 8));
        CHECK(expect_reject(buf, len, CZ_CIRCUIT_CHECKED, 0, "checksum mismatch") == CZ_E_PARSE);
    }
    /* any flip in the header is refused, whatever field it hits */
    for (size_t pos = 0; pos < 64; pos++) {
        memcpy(buf, good, len);
        buf[pos] ^= 0x10;
        CHECK(expect_reject(buf, len, CZ_CIRCUIT_CHECKED, 0, NULL) == CZ_E_PARSE);
    }
    /* trusted mode: a stored checksum other than the expected one */
    memcpy(buf, good, len);
    buf[o.sum] ^= 1;
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_TRUSTED, sum, "expected") == CZ_E_PARSE);
    CHECK(expect_reject(good, len, CZ_CIRCUIT_TRUSTED, sum + 1, "expected") == CZ_E_PARSE);

    /* header sizes that lie (huge rows, entries, coefficients, variables):
     * refused from the header, before anything is allocated */
    uint64_t huge[] = {
        len, (uint64_t)1 << 33, (uint64_t)1 << 40, (uint64_t)1 << 61, UINT64_MAX - 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        for (int field = 24; field <= 48; field += 8) { /* rows, nnz of A, B, C */
            memcpy(buf, good, len);
            put64(buf + field, huge[i]);
            reseal(buf, len);
            CHECK(expect_reject(buf, len, modes[i & 1], 0, "header") == CZ_E_PARSE);
        }
    }
    memcpy(buf, good, len);
    put32(buf + 56, 4), put32(buf + 60, 0xffffffffu); /* 2^32 - 1 coefficients */
    reseal(buf, len);
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_TRUSTED, 0, "header says") == CZ_E_PARSE);
    memcpy(buf, good, len);
    put32(buf + 20, 0x70000000u); /* num_aux */
    reseal(buf, len);
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_TRUSTED, 0, "header says") == CZ_E_PARSE);
    memcpy(buf, good, len);
    put32(buf + 56, 3);
    reseal(buf, len);
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_TRUSTED, 0, "(2 or 4)") == CZ_E_PARSE);
    memcpy(buf, good, len);
    put32(buf + 56, 4); /* u32 indices for a small table */
    reseal(buf, len);
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_TRUSTED, 0, "4-byte indices") == CZ_E_PARSE);
    memcpy(buf, good, len);
    put32(buf + 16, 0); /* no inputs */
    reseal(buf, len);
    CHECK(expect_reject(buf, len, CZ_CIRCUIT_TRUSTED, 0, "out of range") == CZ_E_PARSE);

    /* the table, in both modes: [0] = 1, [1] = -1, values below r */
    uint8_t two[32] = {2}, ones[32];
    memset(ones, 0xff, 32);
    const uint8_t *vals[3] = {two, two, ones};
    const uint64_t where[3] = {o.coeffs, o.coeffs + 32, o.coeffs + 64};
    const char *msgs[3] = {"coefficient 0 is not 1", "coefficient 1 is not -1",
                           "coefficient 2 is not below r"};
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 2; m++) {
            memcpy(buf, good, len);
            memcpy(buf + where[i], vals[i], 32);
            reseal(buf, len);
            CHECK(expect_reject(buf, len, modes[m], 0, msgs[i]) == CZ_E_PARSE);
        }

    /* CHECKED mode, valid checksum, one broken invariant each; TRUSTED
     * mode opens these (it checks sizes and the checksum's identity only) */
    struct damage {
        uint64_t at;
        uint8_t bytes[32];
        size_t n;
        const char *want;
    } d[16];
    int nd = 0;
    uint32_t ncols = cc->num_inputs + cc->num_aux;
    /* a duplicated value, a zero value */
    d[nd].at = o.coeffs + 3 * 32, d[nd].n = 32, d[nd].want = "coefficient 3 equals coefficient 2";
    memcpy(d[nd].bytes, good + o.coeffs + 2 * 32, 32), nd++;
    d[nd].at = o.coeffs + 2 * 32, d[nd].n = 32, d[nd].want = "coefficient 2 is zero";
    memset(d[nd].bytes, 0, 32), nd++;
    /* columns not ascending (B), a column out of range (C), an index out of
     * range (A) */
    for (uint64_t j = 0; j < rows; j++) {
        uint32_t b0 = cc->m[1].row_start[j], b1 = cc->m[1].row_start[j + 1];
        if (b1 - b0 < 2) continue;
        d[nd].at = o.col[1] + 4 * (uint64_t)b0, d[nd].n = 8;
        memcpy(d[nd].bytes, &cc->m[1].col[b0 + 1], 4);
        memcpy(d[nd].bytes + 4, &cc->m[1].col[b0], 4);
        static char msg[64];
        snprintf(msg, sizeof msg, "B: row %llu: column", (unsigned long long)j);
        d[nd].want = msg;
        nd++;
        break;
    }
    CHECK(cc->m[2].nnz > 0 && cc->m[0].nnz > 0);
    d[nd].at = o.col[2] + 4 * (cc->m[2].nnz - 1), d[nd].n = 4, d[nd].want = "beyond the";
    memcpy(d[nd].bytes, &ncols, 4), nd++;
    uint32_t bad_index = cc->num_coeffs;
    d[nd].at = o.coef[0], d[nd].n = 2, d[nd].want = "coefficient index";
    memcpy(d[nd].bytes, &bad_index, 2), nd++;
    /* row starts: one decreasing (row j ends before it starts), the last
     * one short of nnz */
    uint64_t j = 0;
    while (j < rows && cc->m[0].row_start[j] == 0) j++;
    CHECK(j < rows);
    uint32_t early = cc->m[0].row_start[j] - 1, last = (uint32_t)cc->m[0].nnz - 1;
    static char ends_msg[64];
    snprintf(ends_msg, sizeof ends_msg, "A: row %llu ends at %u before it starts",
             (unsigned long long)j, early);
    d[nd].at = o.rs[0] + 4 * (j + 1), d[nd].n = 4, d[nd].want = ends_msg;
    memcpy(d[nd].bytes, &early, 4), nd++;
    d[nd].at = o.rs[0] + 4 * rows, d[nd].n = 4, d[nd].want = "A: the last row ends";
    memcpy(d[nd].bytes, &last, 4), nd++;
    /* a density bit the matrices do not justify */
    uint32_t absent = UINT32_MAX;
    for (uint32_t v = 0; v < cc->num_aux && absent == UINT32_MAX; v++)
        if (!cz_density_get(cc->b_aux_density, v)) absent = v;
    CHECK(absent != UINT32_MAX);
    d[nd].at = o.dens[2] + absent / 8, d[nd].n = 1, d[nd].want = "b_aux_density: bit";
    d[nd].bytes[0] = good[o.dens[2] + absent / 8] ^ (uint8_t)(1u << (absent % 8)), nd++;
    /* a density bit beyond the variables */
    if (cc->num_aux % 64) {
        d[nd].at = o.dens[0] + (cc->num_aux / 64) * 8 + 7, d[nd].n = 1;
        d[nd].want = "beyond the";
        d[nd].bytes[0] = good[d[nd].at] | 0x80, nd++;
    }
    /* non-zero padding, wherever a section leaves some */
    for (int k = 0; k < 3; k++) {
        uint64_t ends[3] = {o.rs[k] + (rows + 1) * 4, o.col[k] + cc->m[k].nnz * 4,
                            o.coef[k] + cc->m[k].nnz * cc->coef_bytes};
        for (int s = 0; s < 3; s++)
            if (ends[s] % 8 && nd < 16)
                d[nd].at = ends[s], d[nd].n = 1, d[nd].bytes[0] = 1, d[nd].want = "padding", nd++;
    }
    for (int i = 0; i < nd; i++) {
        memcpy(buf, good, len);
        memcpy(buf + d[i].at, d[i].bytes, d[i].n);
        reseal(buf, len);
        CHECK(expect_reject(buf, len, CZ_CIRCUIT_CHECKED, 0, d[i].want) == CZ_E_PARSE);
        cz_circuit *t = open_ok(buf, len, CZ_CIRCUIT_TRUSTED, 0);
        cz_circuit_free(t);
    }

    /* the good file still opens; a missing file; an invalid circuit is not
     * written; a directory that does not exist */
    cz_circuit *back = open_ok(good, len, CZ_CIRCUIT_CHECKED, sum);
    CHECK(back && circuits_equal(cc, back));
    cz_circuit_free(back);
    cz_error err = {0};
    char missing[512];
    path_of(missing, sizeof missing, "missing.czc");
    back = NULL;
    CHECK(cz_circuit_open(&back, missing, CZ_CIRCUIT_CHECKED, 0, &err) == CZ_E_NOT_FOUND);
    CHECK(back == NULL && strstr(err.message, "missing.czc") != NULL);
    uint32_t *col0 = (uint32_t *)cc->m[0].col, save = col0[0];
    col0[0] = ncols;
    char out[512];
    path_of(out, sizeof out, "invalid.czc");
    CHECK(cz_circuit_write(cc, out, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "refusing") != NULL && access(out, F_OK) != 0);
    col0[0] = save;
    path_of(out, sizeof out, "no-such-dir/c.czc");
    CHECK(cz_circuit_write(cc, out, &err) == CZ_E_IO);
    CHECK(strstr(err.message, "No such file or directory") != NULL);

    free(good), free(buf);
    cz_circuit_free(cc);
    circ_free(&c);
}

int main(void) {
    cz_test_init("r1cs/test_circuit");
    test_random(cz_test_iters(3000));
    test_index_width();
    test_refusals();
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cz_circuit_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_file_round_trip(cz_test_iters(3000));
    test_file_rejections();
    const char *names[] = {"bad.czc", "ok.czc", "good.czc"};
    for (int i = 0; i < 3; i++) {
        char p[512];
        path_of(p, sizeof p, names[i]);
        unlink(p);
    }
    rmdir(dir);
    return cz_test_finish("r1cs/test_circuit");
}
