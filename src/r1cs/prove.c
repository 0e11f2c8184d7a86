/* The prove back-end: what the Groth16 prover needs (bellperson's
 * ProvingAssignment): assignments, a/b/c evaluations per constraint and the
 * density bitmaps. Per constraint only three field elements are stored (in
 * arrays that double), nothing is allocated. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/internal.h"

typedef struct {
    cz_cs base; /* first: a cz_cs * is a prove_cs * */
    cz_assignment as;
    cz_fr *a, *b, *c;
    size_t a_cap, b_cap, c_cap;
    /* Bitmaps hold at least cz_bitmap_words(num_*) words, zero beyond. */
    uint64_t *a_aux_density, *b_input_density, *b_aux_density;
    size_t a_aux_cap, b_input_cap, b_aux_cap;
    int finished;
} prove_cs;

static cz_var prove_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    prove_cs *p = (prove_cs *)cs;
    if (p->finished) cz_cs_fail(cs, CZ_E_INVALID_ARG, "alloc after cz_prove_finish");
    if (cs->status != CZ_OK) return CZ_VAR_ONE;
    /* room in the density bitmap first, so that a failed growth leaves the
     * variable unallocated */
    size_t words = cz_bitmap_words((uint64_t)(is_input ? cs->num_inputs : cs->num_aux) + 1);
    cz_status st;
    if (is_input) {
        st = cz_grow((void **)&p->b_input_density, &p->b_input_cap, words, 8, 1);
    } else {
        st = cz_grow((void **)&p->a_aux_density, &p->a_aux_cap, words, 8, 1);
        if (st == CZ_OK) st = cz_grow((void **)&p->b_aux_density, &p->b_aux_cap, words, 8, 1);
    }
    if (st != CZ_OK) {
        cz_cs_fail(cs, st, "alloc: out of memory for the density bitmaps");
        return CZ_VAR_ONE;
    }
    return cz_assignment_alloc(cs, &p->as, value, is_input);
}

static cz_status push_row(prove_cs *p, uint64_t row) {
    cz_status st = cz_grow((void **)&p->a, &p->a_cap, row + 1, sizeof(cz_fr), 0);
    if (st == CZ_OK) st = cz_grow((void **)&p->b, &p->b_cap, row + 1, sizeof(cz_fr), 0);
    if (st == CZ_OK) st = cz_grow((void **)&p->c, &p->c_cap, row + 1, sizeof(cz_fr), 0);
    return st;
}

static void prove_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    prove_cs *p = (prove_cs *)cs;
    if (p->finished) cz_cs_fail(cs, CZ_E_INVALID_ARG, "enforce after cz_prove_finish");
    if (cs->status != CZ_OK) return;
    if (!cz_cs_check_lc(cs, a, 'A') || !cz_cs_check_lc(cs, b, 'B') || !cz_cs_check_lc(cs, c, 'C'))
        return;
    uint64_t row = cs->num_constraints;
    cz_status st = push_row(p, row);
    if (st != CZ_OK) {
        cz_cs_fail(cs, st, "constraint %llu: out of memory for the evaluations",
                   (unsigned long long)row);
        return;
    }
    /* Inputs are dense in A anyway (the appended input constraints), so A
     * tracks aux only; C has no density (bellperson). */
    cz_lc_eval(&p->a[row], a, p->as.input, p->as.aux, NULL, p->a_aux_density);
    cz_lc_eval(&p->b[row], b, p->as.input, p->as.aux, p->b_input_density, p->b_aux_density);
    cz_lc_eval(&p->c[row], c, p->as.input, p->as.aux, NULL, NULL);
    cs->num_constraints = row + 1;
}

static void prove_destroy(cz_cs *cs) {
    prove_cs *p = (prove_cs *)cs;
    cz_assignment_free(&p->as);
    free(p->a), free(p->b), free(p->c);
    free(p->a_aux_density), free(p->b_input_density), free(p->b_aux_density);
    free(p);
}

static const cz_cs_ops prove_ops = {prove_alloc, prove_enforce, prove_destroy};

cz_cs *cz_cs_prove_new(void) {
    prove_cs *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    cz_cs_base_init(&p->base, &prove_ops, 1);
    if (cz_assignment_init(&p->as) != CZ_OK ||
        cz_grow((void **)&p->b_input_density, &p->b_input_cap, 1, 8, 1) != CZ_OK ||
        cz_grow((void **)&p->a_aux_density, &p->a_aux_cap, 1, 8, 1) != CZ_OK ||
        cz_grow((void **)&p->b_aux_density, &p->b_aux_cap, 1, 8, 1) != CZ_OK) {
        prove_destroy(&p->base);
        return NULL;
    }
    return &p->base;
}

/* Gives back the slack of a doubled array (the tail of a 130 M-row array
 * can be gigabytes); keeps the old block when shrinking fails. */
static void *shrink(void *buf, size_t bytes) {
    void *q = realloc(buf, bytes ? bytes : 1);
    return q ? q : buf;
}

cz_status cz_prove_finish(cz_cs *cs, cz_prove_data *out, cz_error *err) {
    if (!cs || cs->ops != &prove_ops)
        return cz_error_set(err, CZ_E_INVALID_ARG, "cz_prove_finish: not a prove back-end");
    prove_cs *p = (prove_cs *)cs;
    if (p->finished) return cz_error_set(err, CZ_E_INVALID_ARG, "cz_prove_finish: called twice");
    if (cs->status != CZ_OK) {
        if (err) *err = cs->error;
        return cs->status;
    }
    /* bellperson: for every input i (ONE included) A = input_i, B = 0, C = 0 */
    uint64_t rows = cs->num_constraints + cs->num_inputs;
    cz_status st = push_row(p, rows - 1);
    if (st != CZ_OK)
        return cz_error_set(err, st, "cz_prove_finish: out of memory for %llu evaluations",
                            (unsigned long long)rows);
    for (uint32_t i = 0; i < cs->num_inputs; i++) {
        uint64_t row = cs->num_constraints + i;
        p->a[row] = p->as.input[i];
        p->b[row] = cz_fr_zero;
        p->c[row] = cz_fr_zero;
    }
    memset(out, 0, sizeof *out);
    out->num_inputs = cs->num_inputs;
    out->num_aux = cs->num_aux;
    out->num_constraints = rows;
    out->input_assignment = shrink(p->as.input, (size_t)cs->num_inputs * sizeof(cz_fr));
    out->aux_assignment = p->as.aux ? shrink(p->as.aux, (size_t)cs->num_aux * sizeof(cz_fr)) : NULL;
    out->a = shrink(p->a, (size_t)rows * sizeof(cz_fr));
    out->b = shrink(p->b, (size_t)rows * sizeof(cz_fr));
    out->c = shrink(p->c, (size_t)rows * sizeof(cz_fr));
    out->a_aux_density = p->a_aux_density;
    out->b_input_density = p->b_input_density;
    out->b_aux_density = p->b_aux_density;
    memset(&p->as, 0, sizeof p->as);
    p->a = p->b = p->c = NULL;
    p->a_aux_density = p->b_input_density = p->b_aux_density = NULL;
    p->a_cap = p->b_cap = p->c_cap = p->a_aux_cap = p->b_input_cap = p->b_aux_cap = 0;
    p->finished = 1;
    return CZ_OK;
}

void cz_prove_data_free(cz_prove_data *d) {
    if (!d) return;
    free(d->input_assignment), free(d->aux_assignment);
    free(d->a), free(d->b), free(d->c);
    free(d->a_aux_density), free(d->b_input_density), free(d->b_aux_density);
    memset(d, 0, sizeof *d);
}
