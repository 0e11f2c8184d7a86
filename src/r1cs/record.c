/* The record back-end: the constraint matrices in CSR form (rows =
 * constraints, columns = inputs then aux), the recorder it shares with the
 * compile back-end (circuit.c), plus the checks and helpers every cz_r1cs
 * user shares (validation, densities, evaluation).
 *
 * During synthesis the final number of inputs is unknown (inputs may be
 * allocated after aux), so columns are stored as cz_var and mapped to
 * num_inputs + index when the recorder closes. Rows are stored in
 * cz_lc_key order (inputs before aux, both ascending; unsorted LCs are
 * sorted first), so every row's columns ascend before and after the map.
 * Zero coefficients are dropped: an entry of a cz_r1cs (or a cz_circuit)
 * is never zero. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/internal.h"
#include "util/parallel.h"

/* Sorts n packed values (key << 32 | position in the LC) ascending:
 * insertion sort for the short LCs of most gadgets, else a least-significant-
 * digit radix sort over the four key bytes (a byte that is the same in every
 * key costs no pass, and the variables of one LC usually share the top
 * bytes). tmp holds n values. No recursion, no allocation. */
static void sort_keys(uint64_t *k, uint64_t *tmp, uint32_t n) {
    if (n <= 32) {
        for (uint32_t i = 1; i < n; i++) {
            uint64_t x = k[i];
            uint32_t j = i;
            for (; j > 0 && x < k[j - 1]; j--) k[j] = k[j - 1];
            k[j] = x;
        }
        return;
    }
    uint32_t count[4][256];
    memset(count, 0, sizeof count);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t key = (uint32_t)(k[i] >> 32);
        for (int d = 0; d < 4; d++) count[d][(key >> (8 * d)) & 255]++;
    }
    uint64_t *src = k, *dst = tmp;
    for (int d = 0; d < 4; d++) {
        unsigned shift = 32 + 8 * (unsigned)d;
        if (count[d][(src[0] >> shift) & 255] == n) continue; /* one digit value: order kept */
        uint32_t offset[256], sum = 0;
        for (int b = 0; b < 256; b++) offset[b] = sum, sum += count[d][b];
        for (uint32_t i = 0; i < n; i++) dst[offset[(src[i] >> shift) & 255]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != k) memcpy(k, src, (size_t)n * sizeof *k);
}

/* Range, then order: the CSR lists a row's columns ascending, once each.
 * LCs from cz_lc_* are sorted already; others (insertion order, as a gadget's
 * own builder may keep them) are sorted into scratch, and *out points to the
 * terms in key order. A repeated variable breaks the LC contract. Shared with
 * the stats back-end (internal.h), so both accept and reject the same LCs. */
int cz_lc_sorted_view(cz_cs *cs, const cz_lc *lc, char which, cz_lc_sort_scratch *scratch,
                      const cz_lc **out) {
    if (out) *out = lc;
    if (!cz_cs_check_lc(cs, lc, which)) return 0;
    if (!lc) return 1;
    uint32_t i = 1, n = lc->len;
    while (i < n && cz_lc_key(lc->terms[i - 1].var) < cz_lc_key(lc->terms[i].var)) i++;
    if (i >= n) return 1;
    cz_status st =
        cz_grow((void **)&scratch->keys, &scratch->keys_cap, 2 * (size_t)n, sizeof(uint64_t), 0);
    if (st == CZ_OK && out)
        st = cz_grow((void **)&scratch->terms, &scratch->cap, n, sizeof(cz_lc_term), 0);
    if (st != CZ_OK) {
        cz_cs_fail(cs, st, "constraint %llu: out of memory sorting %c",
                   (unsigned long long)cs->num_constraints, which);
        return 0;
    }
    uint64_t *keys = scratch->keys;
    for (i = 0; i < n; i++) keys[i] = (uint64_t)cz_lc_key(lc->terms[i].var) << 32 | i;
    sort_keys(keys, keys + n, n);
    for (i = 1; i < n; i++) {
        if ((keys[i - 1] >> 32) == (keys[i] >> 32)) {
            cz_var v = lc->terms[(uint32_t)keys[i]].var;
            cz_cs_fail(cs, CZ_E_INVALID_ARG,
                       "constraint %llu: %c holds %s %u twice (an LC has each variable once; "
                       "merge with cz_lc_add)",
                       (unsigned long long)cs->num_constraints, which,
                       CZ_VAR_IS_INPUT(v) ? "input" : "aux", CZ_VAR_INDEX(v));
            return 0;
        }
    }
    if (!out) return 1;
    for (i = 0; i < n; i++) scratch->terms[i] = lc->terms[(uint32_t)keys[i]];
    scratch->view = (cz_lc){scratch->terms, n, n};
    *out = &scratch->view;
    return 1;
}

/* ---- the recorder (record and compile) ---- */

cz_status cz_coef_index_widen(void **coef, unsigned *idx_bytes, size_t cap, uint64_t used) {
    if (*idx_bytes == 4) return CZ_OK;
    void *p = realloc(*coef, cap ? cap * 4 : 4);
    if (!p) return CZ_E_NOMEM;
    /* backwards, in place: entry i moves from bytes 2i to 4i, over entries
     * 2i and 2i + 1, which lie behind it and are already moved */
    const uint16_t *from = p;
    uint32_t *to = p;
    for (uint64_t i = used; i-- > 0;) to[i] = from[i];
    *coef = p;
    *idx_bytes = 4;
    return CZ_OK;
}

cz_status cz_coef_index_store(void **coef, unsigned *idx_bytes, size_t cap, uint64_t used,
                              uint64_t e, uint32_t i) {
    if (*idx_bytes == 2 && i > UINT16_MAX) {
        cz_status st = cz_coef_index_widen(coef, idx_bytes, cap, used);
        if (st != CZ_OK) return st;
    }
    if (*idx_bytes == 2)
        ((uint16_t *)*coef)[e] = (uint16_t)i;
    else
        ((uint32_t *)*coef)[e] = i;
    return CZ_OK;
}

/* Room for one more row of up to len entries (doubling). */
static cz_status builder_reserve(cz_matrix_builder *m, uint64_t row, uint32_t len) {
    size_t row_bytes = m->idx_bytes ? sizeof(uint32_t) : sizeof(uint64_t);
    size_t coef_bytes = m->idx_bytes ? m->idx_bytes : sizeof(cz_fr);
    cz_status st = cz_grow(&m->row_start, &m->row_cap, row + 2, row_bytes, 0);
    if (st == CZ_OK) st = cz_grow((void **)&m->col, &m->col_cap, m->nnz + len, sizeof(uint32_t), 0);
    if (st == CZ_OK) {
        /* the index array keeps the column array's capacity, so that
         * widening it (which reallocs to cap * 4) knows its size */
        if (m->coef_cap < m->col_cap) {
            void *p = realloc(m->coef, m->col_cap * coef_bytes);
            if (!p) return CZ_E_NOMEM;
            m->coef = p;
            m->coef_cap = m->col_cap;
        }
    }
    return st;
}

static cz_status builder_row(cz_matrix_builder *m, cz_coef_table *coefs, uint64_t row,
                             const cz_lc *lc) {
    uint32_t len = lc ? lc->len : 0;
    cz_status st = builder_reserve(m, row, len);
    if (st != CZ_OK) return st;
    for (uint32_t i = 0; i < len; i++) {
        const cz_lc_term *t = &lc->terms[i];
        if (cz_fr_is_zero(&t->coeff)) continue; /* a zero entry is no entry */
        m->col[m->nnz] = t->var;
        if (!coefs) {
            ((cz_fr *)m->coef)[m->nnz] = t->coeff;
        } else {
            uint32_t index;
            st = cz_coef_table_intern(coefs, &t->coeff, &index, NULL);
            if (st == CZ_OK)
                st = cz_coef_index_store(&m->coef, &m->idx_bytes, m->coef_cap, m->nnz, m->nnz,
                                         index);
            if (st != CZ_OK) return st;
        }
        m->nnz++;
    }
    if (coefs && m->nnz > UINT32_MAX) return CZ_E_RANGE; /* u32 row starts */
    if (coefs)
        ((uint32_t *)m->row_start)[row + 1] = (uint32_t)m->nnz;
    else
        ((uint64_t *)m->row_start)[row + 1] = m->nnz;
    return CZ_OK;
}

static const char *builder_failure(cz_status st) {
    return st == CZ_E_RANGE ? "a matrix would exceed 2^32 - 1 entries (u32 row starts)"
                            : "out of memory for the matrices";
}

cz_var cz_recorder_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    cz_recorder *r = (cz_recorder *)cs;
    (void)value;
    if (r->finished) cz_cs_fail(cs, CZ_E_INVALID_ARG, "alloc after %s", r->finish_name);
    if (!cz_cs_may_alloc(cs, is_input)) return CZ_VAR_ONE;
    return cz_cs_count_var(cs, is_input);
}

void cz_recorder_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    cz_recorder *r = (cz_recorder *)cs;
    if (r->finished) cz_cs_fail(cs, CZ_E_INVALID_ARG, "enforce after %s", r->finish_name);
    if (cs->status != CZ_OK) return;
    const cz_lc *lcs[3];
    if (!cz_lc_sorted_view(cs, a, 'A', &r->scratch[0], &lcs[0]) ||
        !cz_lc_sorted_view(cs, b, 'B', &r->scratch[1], &lcs[1]) ||
        !cz_lc_sorted_view(cs, c, 'C', &r->scratch[2], &lcs[2]))
        return;
    uint64_t row = cs->num_constraints;
    for (int k = 0; k < 3; k++) {
        cz_status st = builder_row(&r->m[k], r->coefs, row, lcs[k]);
        if (st != CZ_OK) {
            cz_cs_fail(cs, st, "constraint %llu: %s", (unsigned long long)row, builder_failure(st));
            return;
        }
    }
    cs->num_constraints = row + 1;
}

void cz_recorder_free(cz_recorder *r) {
    for (int k = 0; k < 3; k++) {
        free(r->m[k].row_start), free(r->m[k].col), free(r->m[k].coef);
        free(r->scratch[k].terms), free(r->scratch[k].keys);
        memset(&r->m[k], 0, sizeof r->m[k]);
        memset(&r->scratch[k], 0, sizeof r->scratch[k]);
    }
}

cz_status cz_recorder_init(cz_recorder *r, const cz_cs_ops *ops, const char *finish_name,
                           cz_coef_table *coefs) {
    memset(r, 0, sizeof *r);
    cz_cs_base_init(&r->base, ops, 0);
    r->coefs = coefs;
    r->finish_name = finish_name;
    for (int k = 0; k < 3; k++) {
        cz_matrix_builder *m = &r->m[k];
        m->idx_bytes = coefs ? 2 : 0;
        if (builder_reserve(m, 0, 0) != CZ_OK) {
            cz_recorder_free(r);
            return CZ_E_NOMEM;
        }
        if (coefs)
            ((uint32_t *)m->row_start)[0] = 0;
        else
            ((uint64_t *)m->row_start)[0] = 0;
    }
    return CZ_OK;
}

cz_status cz_recorder_close(cz_recorder *r, uint64_t *rows_out, cz_error *err) {
    cz_cs *cs = &r->base;
    if (r->finished) return cz_error_set(err, CZ_E_INVALID_ARG, "%s: called twice", r->finish_name);
    if (cs->status != CZ_OK) {
        if (err) *err = cs->error;
        return cs->status;
    }
    /* bellperson's input constraints: A = input_i, B = 0, C = 0 */
    uint64_t rows = cs->num_constraints;
    for (uint32_t i = 0; i < cs->num_inputs; i++, rows++) {
        cz_lc_term term = {CZ_VAR_INPUT_BIT | i, cz_fr_one};
        cz_lc one_term = {&term, 1, 1};
        cz_status st = builder_row(&r->m[0], r->coefs, rows, &one_term);
        if (st == CZ_OK) st = builder_row(&r->m[1], r->coefs, rows, NULL);
        if (st == CZ_OK) st = builder_row(&r->m[2], r->coefs, rows, NULL);
        if (st != CZ_OK)
            return cz_error_set(err, st, "%s: the input rows: %s", r->finish_name,
                                builder_failure(st));
    }
    for (int k = 0; k < 3; k++) {
        cz_matrix_builder *m = &r->m[k];
        for (uint64_t e = 0; e < m->nnz; e++) {
            cz_var v = m->col[e];
            m->col[e] = CZ_VAR_IS_INPUT(v) ? CZ_VAR_INDEX(v) : cs->num_inputs + v;
        }
    }
    r->finished = 1;
    *rows_out = rows;
    return CZ_OK;
}

void *cz_shrink(void *buf, size_t bytes) {
    void *q = realloc(buf, bytes ? bytes : 1);
    return q ? q : buf;
}

/* ---- the record back-end ---- */

static void record_destroy(cz_cs *cs) {
    cz_recorder_free((cz_recorder *)cs);
    free(cs);
}

static const cz_cs_ops record_ops = {cz_recorder_alloc, cz_recorder_enforce, record_destroy};

cz_cs *cz_cs_record_new(void) {
    cz_recorder *r = malloc(sizeof *r);
    if (!r) return NULL;
    if (cz_recorder_init(r, &record_ops, "cz_record_finish", NULL) != CZ_OK) {
        free(r);
        return NULL;
    }
    return &r->base;
}

cz_status cz_record_finish(cz_cs *cs, cz_r1cs *out, cz_error *err) {
    if (!cs || cs->ops != &record_ops)
        return cz_error_set(err, CZ_E_INVALID_ARG, "cz_record_finish: not a record back-end");
    cz_recorder *r = (cz_recorder *)cs;
    uint64_t rows;
    cz_status st = cz_recorder_close(r, &rows, err);
    if (st != CZ_OK) return st;
    memset(out, 0, sizeof *out);
    out->num_inputs = cs->num_inputs;
    out->num_aux = cs->num_aux;
    out->num_constraints = rows;
    cz_csr *mats[3] = {&out->a, &out->b, &out->c};
    for (int k = 0; k < 3; k++) {
        cz_matrix_builder *m = &r->m[k];
        mats[k]->rows = rows;
        mats[k]->row_start = cz_shrink(m->row_start, (size_t)(rows + 1) * sizeof(uint64_t));
        mats[k]->col = cz_shrink(m->col, (size_t)m->nnz * sizeof(uint32_t));
        mats[k]->val = cz_shrink(m->coef, (size_t)m->nnz * sizeof(cz_fr));
        memset(m, 0, sizeof *m);
    }
    st = cz_r1cs_compute_densities(out, &out->a_aux_density, &out->b_input_density,
                                   &out->b_aux_density, err);
    if (st != CZ_OK) {
        cz_r1cs_free(out);
        return st;
    }
    return CZ_OK;
}

void cz_r1cs_free(cz_r1cs *r) {
    if (!r) return;
    cz_csr *mats[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++) free(mats[k]->row_start), free(mats[k]->col), free(mats[k]->val);
    free(r->a_aux_density), free(r->b_input_density), free(r->b_aux_density);
    memset(r, 0, sizeof *r);
}

/* ---- shared by every cz_r1cs user ---- */

static uint64_t *bitmap_new(uint64_t bits) {
    size_t words = cz_bitmap_words(bits);
    return calloc(words ? words : 1, sizeof(uint64_t));
}

cz_status cz_densities_from_columns(uint64_t **a_aux, uint64_t **b_input, uint64_t **b_aux,
                                    uint32_t num_inputs, uint32_t num_aux, const uint32_t *a_col,
                                    uint64_t a_nnz, const uint32_t *b_col, uint64_t b_nnz,
                                    cz_error *err) {
    uint64_t *aa = bitmap_new(num_aux), *bi = bitmap_new(num_inputs), *ba = bitmap_new(num_aux);
    if (!aa || !bi || !ba) {
        free(aa), free(bi), free(ba);
        return cz_error_set(err, CZ_E_NOMEM, "out of memory for the density bitmaps");
    }
    uint32_t ni = num_inputs;
    for (uint64_t e = 0; e < a_nnz; e++)
        if (a_col[e] >= ni) cz_bitmap_set(aa, a_col[e] - ni);
    for (uint64_t e = 0; e < b_nnz; e++) {
        uint32_t col = b_col[e];
        if (col < ni)
            cz_bitmap_set(bi, col);
        else
            cz_bitmap_set(ba, col - ni);
    }
    *a_aux = aa, *b_input = bi, *b_aux = ba;
    return CZ_OK;
}

cz_status cz_r1cs_compute_densities(const cz_r1cs *r, uint64_t **a_aux, uint64_t **b_input,
                                    uint64_t **b_aux, cz_error *err) {
    return cz_densities_from_columns(a_aux, b_input, b_aux, r->num_inputs, r->num_aux, r->a.col,
                                     r->a.row_start[r->a.rows], r->b.col, r->b.row_start[r->b.rows],
                                     err);
}

static int fr_is_canonical(const cz_fr *x) {
    for (int i = CZ_FR_LIMBS - 1; i >= 0; i--) {
        if (x->l[i] < cz_fr_modulus[i]) return 1;
        if (x->l[i] > cz_fr_modulus[i]) return 0;
    }
    return 0;
}

static cz_status validate_matrix(const cz_csr *m, char name, const cz_r1cs *r, cz_error *err) {
    uint64_t ncols = (uint64_t)r->num_inputs + r->num_aux;
    if (m->rows != r->num_constraints)
        return cz_error_set(err, CZ_E_PARSE, "%c: %llu rows, but %llu constraints", name,
                            (unsigned long long)m->rows, (unsigned long long)r->num_constraints);
    if (!m->row_start) return cz_error_set(err, CZ_E_PARSE, "%c: no row starts", name);
    if (m->row_start[0] != 0)
        return cz_error_set(err, CZ_E_PARSE, "%c: row 0 starts at %llu, not 0", name,
                            (unsigned long long)m->row_start[0]);
    for (uint64_t row = 0; row < m->rows; row++) {
        uint64_t begin = m->row_start[row], end = m->row_start[row + 1];
        if (end < begin)
            return cz_error_set(
                err, CZ_E_PARSE, "%c: row %llu ends at %llu before it starts (%llu)", name,
                (unsigned long long)row, (unsigned long long)end, (unsigned long long)begin);
        cz_status st = cz_check_row_columns(m->col, begin, end, ncols, name, row, err);
        if (st != CZ_OK) return st;
        for (uint64_t e = begin; e < end; e++) {
            if (!fr_is_canonical(&m->val[e]))
                return cz_error_set(err, CZ_E_PARSE, "%c: row %llu: value of column %u is not < r",
                                    name, (unsigned long long)row, m->col[e]);
            if (cz_fr_is_zero(&m->val[e]))
                return cz_error_set(err, CZ_E_PARSE,
                                    "%c: row %llu: value of column %u is zero (zeros are dropped)",
                                    name, (unsigned long long)row, m->col[e]);
        }
    }
    return CZ_OK;
}

cz_status cz_check_row_columns(const uint32_t *col, uint64_t begin, uint64_t end, uint64_t ncols,
                               char name, uint64_t row, cz_error *err) {
    for (uint64_t e = begin; e < end; e++) {
        if (col[e] >= ncols)
            return cz_error_set(err, CZ_E_PARSE,
                                "%c: row %llu: column %u beyond the %llu variables", name,
                                (unsigned long long)row, col[e], (unsigned long long)ncols);
        if (e > begin && col[e] <= col[e - 1])
            return cz_error_set(err, CZ_E_PARSE,
                                "%c: row %llu: column %u after column %u (columns must ascend)",
                                name, (unsigned long long)row, col[e], col[e - 1]);
    }
    return CZ_OK;
}

cz_status cz_density_compare(const uint64_t *have, const uint64_t *want, uint64_t bits,
                             const char *name, const char *var_kind, cz_error *err) {
    size_t words = cz_bitmap_words(bits);
    if (words && !have) return cz_error_set(err, CZ_E_PARSE, "%s: missing", name);
    for (size_t w = 0; w < words; w++) {
        if (have[w] == want[w]) continue;
        uint64_t diff = have[w] ^ want[w];
        uint64_t bit = (uint64_t)w * 64 + (uint64_t)__builtin_ctzll(diff);
        if (bit >= bits)
            return cz_error_set(err, CZ_E_PARSE, "%s: bit %llu set beyond the %llu %s", name,
                                (unsigned long long)bit, (unsigned long long)bits, var_kind);
        return cz_error_set(err, CZ_E_PARSE, "%s: bit %llu is %d, but the matrices say %d", name,
                            (unsigned long long)bit, (int)((have[w] >> (bit % 64)) & 1),
                            (int)((want[w] >> (bit % 64)) & 1));
    }
    return CZ_OK;
}

cz_status cz_r1cs_validate(const cz_r1cs *r, cz_error *err) {
    if (r->num_inputs < 1)
        return cz_error_set(err, CZ_E_PARSE, "no inputs (input 0 is ONE, so at least 1)");
    if ((uint64_t)r->num_inputs + r->num_aux > CZ_CS_MAX_VARS)
        return cz_error_set(err, CZ_E_PARSE, "%u inputs + %u aux exceed the limit of %u variables",
                            r->num_inputs, r->num_aux, CZ_CS_MAX_VARS);
    const cz_csr *mats[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++) {
        cz_status st = validate_matrix(mats[k], "ABC"[k], r, err);
        if (st != CZ_OK) return st;
    }
    uint64_t *aa, *bi, *ba;
    cz_status st = cz_r1cs_compute_densities(r, &aa, &bi, &ba, err);
    if (st != CZ_OK) return st;
    st = cz_density_compare(r->a_aux_density, aa, r->num_aux, "a_aux_density", "aux", err);
    if (st == CZ_OK)
        st = cz_density_compare(r->b_input_density, bi, r->num_inputs, "b_input_density", "inputs",
                                err);
    if (st == CZ_OK)
        st = cz_density_compare(r->b_aux_density, ba, r->num_aux, "b_aux_density", "aux", err);
    free(aa), free(bi), free(ba);
    return st;
}

/* ---- evaluation: the matrices times a witness, over all cores ---- */

typedef struct {
    const cz_r1cs *r;
    const cz_fr *input, *aux;
    cz_fr *out[3];
} eval_ctx;

static void eval_rows(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const eval_ctx *x = arg;
    const cz_csr *mats[3] = {&x->r->a, &x->r->b, &x->r->c};
    uint32_t ni = x->r->num_inputs;
    for (int k = 0; k < 3; k++) {
        if (!x->out[k]) continue;
        const cz_csr *m = mats[k];
        for (size_t row = begin; row < end; row++) {
            cz_fr acc = cz_fr_zero, tmp;
            for (uint64_t e = m->row_start[row]; e < m->row_start[row + 1]; e++) {
                uint32_t col = m->col[e];
                const cz_fr *z = col < ni ? &x->input[col] : &x->aux[col - ni];
                if (cz_fr_is_one(&m->val[e])) {
                    cz_fr_add(&acc, &acc, z);
                } else {
                    cz_fr_mul(&tmp, z, &m->val[e]);
                    cz_fr_add(&acc, &acc, &tmp);
                }
            }
            x->out[k][row] = acc;
        }
    }
}

void cz_r1cs_eval(cz_fr *a, cz_fr *b, cz_fr *c, const cz_r1cs *r, const cz_fr *input,
                  const cz_fr *aux) {
    eval_ctx x = {r, input, aux, {a, b, c}};
    cz_parallel_for((size_t)r->num_constraints, 1 << 14, eval_rows, &x);
}
