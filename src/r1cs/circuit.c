/* The pre-compiled circuit in memory (circuit.h): the compile back-end
 * (the recorder of record.c storing indices into the coefficient table of
 * coef_table.c), the conversions from and to cz_r1cs, and the evaluation
 * a = A·z, b = B·z, c = C·z over all cores.
 *
 * Invariants kept by everything here: the table's invariants
 * (coef_table.c), and an index array holds 2-byte indices exactly when the
 * table has at most 65,536 values. */
#include <stdlib.h>
#include <string.h>

#include "ff/fr_inline.h"
#include "r1cs/circuit.h"
#include "r1cs/internal.h"
#include "util/parallel.h"

/* ---- circuits on the heap ---- */

cz_status cz_circuit_alloc(cz_circuit **out, cz_error *err) {
    *out = NULL;
    cz_circuit *c = calloc(1, sizeof *c);
    cz_circuit_storage *s = calloc(1, sizeof *s);
    if (!c || !s) {
        free(c), free(s);
        return cz_error_set(err, CZ_E_NOMEM, "out of memory for a circuit");
    }
    c->storage = s;
    *out = c;
    return CZ_OK;
}

void *cz_circuit_own(cz_circuit *c, void *block) {
    cz_circuit_storage *s = c->storage;
    if (block) s->owned[s->n_owned++] = block; /* at most CZ_CIRCUIT_MAX_BLOCKS */
    return block;
}

void cz_circuit_free(cz_circuit *c) {
    if (!c) return;
    cz_circuit_storage *s = c->storage;
    if (s) {
        for (unsigned i = 0; i < s->n_owned; i++) free(s->owned[i]);
        if (s->map) cz_file_unmap(s->map, s->map_size);
        free(s);
    }
    free(c);
}

const void *cz_circuit_mapping(const cz_circuit *c, size_t *bytes) {
    const cz_circuit_storage *s = c->storage;
    *bytes = s && s->map ? (size_t)s->map_size : 0;
    return *bytes ? s->map : NULL;
}

static uint64_t density_words(const cz_circuit *c) {
    return 2 * (uint64_t)cz_bitmap_words(c->num_aux) + cz_bitmap_words(c->num_inputs);
}

uint64_t cz_circuit_bytes(const cz_circuit *c) {
    uint64_t total = (uint64_t)c->num_coeffs * sizeof(cz_fr) + 8 * density_words(c);
    for (int k = 0; k < 3; k++)
        total += (c->num_constraints + 1) * 4 + c->m[k].nnz * (4 + (uint64_t)c->coef_bytes);
    return total;
}

/* The table and the densities of a circuit whose matrices are set: the
 * table moves out of t (shrunk to its size). */
static cz_status finish_circuit(cz_circuit *c, cz_coef_table *t, cz_error *err) {
    c->num_coeffs = t->n;
    c->coeffs = cz_circuit_own(c, cz_shrink(t->vals, (size_t)t->n * sizeof(cz_fr)));
    t->vals = NULL;
    cz_coef_table_free(t);
    uint64_t *aa, *bi, *ba;
    cz_status st = cz_densities_from_columns(&aa, &bi, &ba, c->num_inputs, c->num_aux, c->m[0].col,
                                             c->m[0].nnz, c->m[1].col, c->m[1].nnz, err);
    if (st != CZ_OK) return st;
    c->a_aux_density = cz_circuit_own(c, aa);
    c->b_input_density = cz_circuit_own(c, bi);
    c->b_aux_density = cz_circuit_own(c, ba);
    c->checksum = 0;
    return CZ_OK;
}

/* ---- the compile back-end ---- */

typedef struct {
    cz_recorder rec; /* first: a cz_cs * is a compile_cs * */
    cz_coef_table coefs;
} compile_cs;

static void compile_destroy(cz_cs *cs) {
    compile_cs *p = (compile_cs *)cs;
    cz_recorder_free(&p->rec);
    cz_coef_table_free(&p->coefs);
    free(p);
}

static const cz_cs_ops compile_ops = {cz_recorder_alloc, cz_recorder_enforce, compile_destroy};

cz_cs *cz_cs_compile_new(void) {
    compile_cs *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (cz_coef_table_init(&p->coefs) != CZ_OK) {
        free(p);
        return NULL;
    }
    if (cz_recorder_init(&p->rec, &compile_ops, "cz_compile_finish", &p->coefs) != CZ_OK) {
        cz_coef_table_free(&p->coefs);
        free(p);
        return NULL;
    }
    return &p->rec.base;
}

cz_status cz_compile_finish(cz_cs *cs, cz_circuit **out, cz_error *err) {
    *out = NULL;
    if (!cs || cs->ops != &compile_ops)
        return cz_error_set(err, CZ_E_INVALID_ARG, "cz_compile_finish: not a compile back-end");
    compile_cs *p = (compile_cs *)cs;
    uint64_t rows;
    cz_status st = cz_recorder_close(&p->rec, &rows, err);
    if (st != CZ_OK) return st;
    unsigned coef_bytes = p->coefs.n > 65536 ? 4 : 2;
    for (int k = 0; k < 3 && coef_bytes == 4; k++) {
        cz_matrix_builder *m = &p->rec.m[k];
        if (cz_coef_index_widen(&m->coef, &m->idx_bytes, m->coef_cap, m->nnz) != CZ_OK)
            return cz_error_set(err, CZ_E_NOMEM, "cz_compile_finish: out of memory widening %c",
                                "ABC"[k]);
    }
    cz_circuit *c;
    st = cz_circuit_alloc(&c, err);
    if (st != CZ_OK) return st;
    c->num_inputs = cs->num_inputs;
    c->num_aux = cs->num_aux;
    c->num_constraints = rows;
    c->coef_bytes = coef_bytes;
    for (int k = 0; k < 3; k++) {
        cz_matrix_builder *m = &p->rec.m[k];
        c->m[k].nnz = m->nnz;
        c->m[k].row_start = cz_circuit_own(c, cz_shrink(m->row_start, (size_t)(rows + 1) * 4));
        c->m[k].col = cz_circuit_own(c, cz_shrink(m->col, (size_t)m->nnz * 4));
        c->m[k].coef = cz_circuit_own(c, cz_shrink(m->coef, (size_t)m->nnz * coef_bytes));
        memset(m, 0, sizeof *m);
    }
    st = finish_circuit(c, &p->coefs, err);
    if (st != CZ_OK) {
        cz_circuit_free(c);
        return st;
    }
    *out = c;
    return CZ_OK;
}

/* ---- conversions ---- */

cz_status cz_circuit_from_r1cs(cz_circuit **out, const cz_r1cs *r, cz_error *err) {
    *out = NULL;
    cz_status st = cz_r1cs_validate(r, err);
    if (st != CZ_OK) {
        if (err) err->status = CZ_E_INVALID_ARG;
        cz_error_prefix(err, "cz_circuit_from_r1cs: invalid system");
        return CZ_E_INVALID_ARG;
    }
    const cz_csr *mats[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++)
        if (mats[k]->row_start[mats[k]->rows] > UINT32_MAX)
            return cz_error_set(err, CZ_E_RANGE,
                                "cz_circuit_from_r1cs: %c has %llu entries, more than u32 row "
                                "starts address",
                                "ABC"[k], (unsigned long long)mats[k] -> row_start[mats[k]->rows]);
    cz_coef_table t;
    if (cz_coef_table_init(&t) != CZ_OK)
        return cz_error_set(err, CZ_E_NOMEM, "cz_circuit_from_r1cs: out of memory");
    cz_circuit *c;
    st = cz_circuit_alloc(&c, err);
    if (st != CZ_OK) {
        cz_coef_table_free(&t);
        return st;
    }
    c->num_inputs = r->num_inputs;
    c->num_aux = r->num_aux;
    c->num_constraints = r->num_constraints;
    void *coef[3] = {NULL, NULL, NULL};
    unsigned idx_bytes[3] = {2, 2, 2};
    for (int k = 0; k < 3 && st == CZ_OK; k++) {
        const cz_csr *m = mats[k];
        uint64_t nnz = m->row_start[m->rows];
        uint32_t *row_start = cz_circuit_own(c, malloc((size_t)(m->rows + 1) * 4));
        uint32_t *col = cz_circuit_own(c, malloc(nnz ? (size_t)nnz * 4 : 1));
        coef[k] = malloc(nnz ? (size_t)nnz * 2 : 2);
        if (!row_start || !col || !coef[k]) {
            st = cz_error_set(err, CZ_E_NOMEM, "cz_circuit_from_r1cs: out of memory for %c",
                              "ABC"[k]);
            break;
        }
        for (uint64_t j = 0; j <= m->rows; j++) row_start[j] = (uint32_t)m->row_start[j];
        memcpy(col, m->col, (size_t)nnz * 4);
        c->m[k] = (cz_circuit_matrix){nnz, row_start, col, NULL};
    }
    /* Interned in the compile back-end's order (row by row, A then B then
     * C), so both give the same table, index for index. */
    for (uint64_t j = 0; j < r->num_constraints && st == CZ_OK; j++) {
        for (int k = 0; k < 3 && st == CZ_OK; k++) {
            const cz_csr *m = mats[k];
            for (uint64_t e = m->row_start[j]; e < m->row_start[j + 1] && st == CZ_OK; e++) {
                uint32_t index;
                st = cz_coef_table_intern(&t, &m->val[e], &index, NULL);
                if (st == CZ_OK)
                    st = cz_coef_index_store(&coef[k], &idx_bytes[k], c->m[k].nnz, e, e, index);
                if (st != CZ_OK) st = cz_error_set(err, st, "cz_circuit_from_r1cs: out of memory");
            }
        }
    }
    c->coef_bytes = t.n > 65536 ? 4 : 2;
    for (int k = 0; k < 3 && st == CZ_OK; k++)
        if (c->coef_bytes == 4 &&
            cz_coef_index_widen(&coef[k], &idx_bytes[k], c->m[k].nnz, c->m[k].nnz) != CZ_OK)
            st = cz_error_set(err, CZ_E_NOMEM, "cz_circuit_from_r1cs: out of memory");
    for (int k = 0; k < 3; k++) c->m[k].coef = cz_circuit_own(c, coef[k]);
    if (st == CZ_OK) st = finish_circuit(c, &t, err);
    cz_coef_table_free(&t);
    if (st != CZ_OK) {
        cz_circuit_free(c);
        return st;
    }
    *out = c;
    return CZ_OK;
}

static uint32_t coef_index(const cz_circuit_matrix *m, unsigned coef_bytes, uint64_t e) {
    return coef_bytes == 2 ? ((const uint16_t *)m->coef)[e] : ((const uint32_t *)m->coef)[e];
}

cz_status cz_circuit_to_r1cs(cz_r1cs *out, const cz_circuit *c, cz_error *err) {
    memset(out, 0, sizeof *out);
    out->num_inputs = c->num_inputs;
    out->num_aux = c->num_aux;
    out->num_constraints = c->num_constraints;
    cz_csr *mats[3] = {&out->a, &out->b, &out->c};
    for (int k = 0; k < 3; k++) {
        const cz_circuit_matrix *m = &c->m[k];
        cz_csr *o = mats[k];
        o->rows = c->num_constraints;
        o->row_start = malloc((size_t)(o->rows + 1) * 8);
        o->col = malloc(m->nnz ? (size_t)m->nnz * 4 : 1);
        o->val = malloc(m->nnz ? (size_t)m->nnz * sizeof(cz_fr) : 1);
        if (!o->row_start || !o->col || !o->val) {
            cz_r1cs_free(out);
            return cz_error_set(err, CZ_E_NOMEM, "cz_circuit_to_r1cs: out of memory for %c",
                                "ABC"[k]);
        }
        for (uint64_t j = 0; j <= o->rows; j++) o->row_start[j] = m->row_start[j];
        memcpy(o->col, m->col, (size_t)m->nnz * 4);
        for (uint64_t e = 0; e < m->nnz; e++)
            o->val[e] = c->coeffs[coef_index(m, c->coef_bytes, e)];
    }
    size_t wa = cz_bitmap_words(c->num_aux), wi = cz_bitmap_words(c->num_inputs);
    out->a_aux_density = calloc(wa ? wa : 1, 8);
    out->b_input_density = calloc(wi ? wi : 1, 8);
    out->b_aux_density = calloc(wa ? wa : 1, 8);
    if (!out->a_aux_density || !out->b_input_density || !out->b_aux_density) {
        cz_r1cs_free(out);
        return cz_error_set(err, CZ_E_NOMEM, "cz_circuit_to_r1cs: out of memory");
    }
    memcpy(out->a_aux_density, c->a_aux_density, wa * 8);
    memcpy(out->b_input_density, c->b_input_density, wi * 8);
    memcpy(out->b_aux_density, c->b_aux_density, wa * 8);
    return CZ_OK;
}

/* ---- evaluation ---- */

typedef struct {
    const cz_circuit *c;
    const cz_fr *input, *aux;
    cz_fr *out[3];
    size_t first; /* the row the parallel loop's index 0 stands for */
} eval_ctx;

/* Rows begin..end-1 of one matrix; coef_bytes is a constant at each call,
 * so the index load folds into two specialised loops. */
static inline __attribute__((always_inline)) void
eval_matrix(cz_fr *out, const cz_circuit_matrix *m, const cz_fr *coeffs, uint32_t ni,
            const cz_fr *input, const cz_fr *aux, size_t begin, size_t end, unsigned coef_bytes) {
    const uint16_t *c16 = m->coef;
    const uint32_t *c32 = m->coef;
    for (size_t row = begin; row < end; row++) {
        cz_fr acc = cz_fr_zero, tmp;
        for (uint32_t e = m->row_start[row]; e < m->row_start[row + 1]; e++) {
            uint32_t col = m->col[e];
            const cz_fr *z = col < ni ? &input[col] : &aux[col - ni];
            uint32_t k = coef_bytes == 2 ? c16[e] : c32[e];
            if (k == CZ_CIRCUIT_COEF_ONE) {
                cz_fr_add_inline(&acc, &acc, z);
            } else if (k == CZ_CIRCUIT_COEF_MINUS_ONE) {
                cz_fr_sub_inline(&acc, &acc, z);
            } else if ((z->l[0] | z->l[1] | z->l[2] | z->l[3]) == 0) {
                /* most witness values are bits: no multiplication for them */
            } else if (cz_fr_equal_inline(z, &coeffs[CZ_CIRCUIT_COEF_ONE])) {
                cz_fr_add_inline(&acc, &acc, &coeffs[k]);
            } else {
                cz_fr_mul_inline(&tmp, z, &coeffs[k]);
                cz_fr_add_inline(&acc, &acc, &tmp);
            }
        }
        out[row] = acc;
    }
}

static void eval_rows(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const eval_ctx *x = arg;
    begin += x->first;
    end += x->first;
    const cz_circuit *c = x->c;
    for (int k = 0; k < 3; k++) {
        if (!x->out[k]) continue;
        if (c->coef_bytes == 2)
            eval_matrix(x->out[k], &c->m[k], c->coeffs, c->num_inputs, x->input, x->aux, begin, end,
                        2);
        else
            eval_matrix(x->out[k], &c->m[k], c->coeffs, c->num_inputs, x->input, x->aux, begin, end,
                        4);
    }
}

void cz_circuit_eval(cz_fr *a, cz_fr *b, cz_fr *c, const cz_circuit *circ, const cz_fr *input,
                     const cz_fr *aux) {
    cz_circuit_eval_rows(a, b, c, circ, input, aux, 0, (size_t)circ->num_constraints);
}

void cz_circuit_eval_rows(cz_fr *a, cz_fr *b, cz_fr *c, const cz_circuit *circ, const cz_fr *input,
                          const cz_fr *aux, size_t begin, size_t end) {
    eval_ctx x = {circ, input, aux, {a, b, c}, begin};
    cz_parallel_for(end - begin, 1 << 14, eval_rows, &x);
}
