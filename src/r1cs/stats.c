/* The stats back-end: what the record back-end's matrices would say about a
 * circuit (sizes, non-zeros per matrix, density bitmaps) without storing
 * them, so a 130 M-constraint circuit needs only its three density bitmaps
 * (one bit per variable: 16 MB each for 130 M aux).
 *
 * Every LC passes the checks of the record back-end (range, and
 * cz_lc_sorted_view's no repeated variable), and a term counts as a non-zero
 * exactly when record would store it (its coefficient, summed over repeats
 * by the LC builder, is not zero). Densities are set from those same terms:
 * a_aux from A, b_input and b_aux from B, as cz_r1cs_compute_densities
 * derives them from the stored matrices. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/internal.h"

typedef struct {
    cz_cs base; /* first: a cz_cs * is a stats_cs * */
    cz_lc_sort_scratch scratch[3];
    uint64_t nnz[3];
    /* Bitmaps hold at least cz_bitmap_words(num_*) words, zero beyond. */
    uint64_t *a_aux_density, *b_input_density, *b_aux_density;
    size_t a_aux_cap, b_input_cap, b_aux_cap;
    int finished;
} stats_cs;

static cz_var stats_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    stats_cs *s = (stats_cs *)cs;
    (void)value;
    if (s->finished) cz_cs_fail(cs, CZ_E_INVALID_ARG, "alloc after cz_stats_finish");
    if (!cz_cs_may_alloc(cs, is_input)) return CZ_VAR_ONE;
    /* Bitmap room first, so that a failed growth leaves the variable
     * unallocated; growth doubles, so this is amortized O(1). */
    size_t words = cz_bitmap_words((uint64_t)(is_input ? cs->num_inputs : cs->num_aux) + 1);
    cz_status st = CZ_OK;
    if (words <= (is_input ? s->b_input_cap : s->a_aux_cap)) {
        /* room already (a_aux and b_aux grow together) */
    } else if (is_input) {
        st = cz_grow((void **)&s->b_input_density, &s->b_input_cap, words, 8, 1);
    } else {
        st = cz_grow((void **)&s->a_aux_density, &s->a_aux_cap, words, 8, 1);
        if (st == CZ_OK) st = cz_grow((void **)&s->b_aux_density, &s->b_aux_cap, words, 8, 1);
    }
    if (st != CZ_OK) {
        cz_cs_fail(cs, st, "alloc: out of memory for the density bitmaps");
        return CZ_VAR_ONE;
    }
    return cz_cs_count_var(cs, is_input);
}

/* One pass over lc: the range of every term (a bad one fails cs through
 * cz_cs_check_lc, which names it, before any bit is set for it), key order,
 * the non-zero terms and their density bits (of the kinds given). An LC
 * out of key order then goes through record's check for a repeated
 * variable. Returns 0 when cs has failed. */
static int count_lc(stats_cs *s, const cz_lc *lc, char which, uint64_t *nnz,
                    uint64_t *input_density, uint64_t *aux_density) {
    if (!lc) return 1;
    cz_cs *cs = &s->base;
    uint32_t num_inputs = cs->num_inputs, num_aux = cs->num_aux, prev = 0;
    int ascending = 1;
    uint64_t n = 0;
    for (uint32_t i = 0; i < lc->len; i++) {
        const cz_lc_term *t = &lc->terms[i];
        uint32_t idx = CZ_VAR_INDEX(t->var), key = cz_lc_key(t->var);
        int is_input = CZ_VAR_IS_INPUT(t->var);
        if (idx >= (is_input ? num_inputs : num_aux)) {
            cz_cs_check_lc(cs, lc, which);
            return 0;
        }
        if (i && key <= prev) ascending = 0;
        prev = key;
        const uint64_t *l = t->coeff.l;                 /* zero in Montgomery form is zero */
        if ((l[0] | l[1] | l[2] | l[3]) == 0) continue; /* record stores no entry */
        n++;
        uint64_t *bits = is_input ? input_density : aux_density;
        if (bits) cz_bitmap_set(bits, idx);
    }
    if (!ascending && !cz_lc_sorted_view(cs, lc, which, &s->scratch[which - 'A'], NULL)) return 0;
    *nnz += n;
    return 1;
}

static void stats_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    stats_cs *s = (stats_cs *)cs;
    if (s->finished) cz_cs_fail(cs, CZ_E_INVALID_ARG, "enforce after cz_stats_finish");
    if (cs->status != CZ_OK) return;
    if (!count_lc(s, a, 'A', &s->nnz[0], NULL, s->a_aux_density) ||
        !count_lc(s, b, 'B', &s->nnz[1], s->b_input_density, s->b_aux_density) ||
        !count_lc(s, c, 'C', &s->nnz[2], NULL, NULL))
        return;
    cs->num_constraints++;
}

static void stats_destroy(cz_cs *cs) {
    stats_cs *s = (stats_cs *)cs;
    for (int k = 0; k < 3; k++) free(s->scratch[k].terms), free(s->scratch[k].keys);
    free(s->a_aux_density), free(s->b_input_density), free(s->b_aux_density);
    free(s);
}

static const cz_cs_ops stats_ops = {stats_alloc, stats_enforce, stats_destroy};

cz_cs *cz_cs_stats_new(void) {
    stats_cs *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    cz_cs_base_init(&s->base, &stats_ops, 0);
    if (cz_grow((void **)&s->b_input_density, &s->b_input_cap, 1, 8, 1) != CZ_OK ||
        cz_grow((void **)&s->a_aux_density, &s->a_aux_cap, 1, 8, 1) != CZ_OK ||
        cz_grow((void **)&s->b_aux_density, &s->b_aux_cap, 1, 8, 1) != CZ_OK) {
        stats_destroy(&s->base);
        return NULL;
    }
    return &s->base;
}

uint64_t cz_density_popcount(const uint64_t *bits, uint64_t n) {
    uint64_t total = 0, words = n / 64;
    for (uint64_t w = 0; w < words; w++) total += (uint64_t)__builtin_popcountll(bits[w]);
    if (n % 64)
        total += (uint64_t)__builtin_popcountll(bits[words] & (((uint64_t)1 << (n % 64)) - 1));
    return total;
}

cz_status cz_stats_finish(cz_cs *cs, cz_r1cs_stats *out, cz_error *err) {
    if (!cs || cs->ops != &stats_ops)
        return cz_error_set(err, CZ_E_INVALID_ARG, "cz_stats_finish: not a stats back-end");
    stats_cs *s = (stats_cs *)cs;
    if (s->finished) return cz_error_set(err, CZ_E_INVALID_ARG, "cz_stats_finish: called twice");
    if (cs->status != CZ_OK) {
        if (err) *err = cs->error;
        return cs->status;
    }
    memset(out, 0, sizeof *out);
    out->num_inputs = cs->num_inputs;
    out->num_aux = cs->num_aux;
    out->synthesized_constraints = cs->num_constraints;
    /* bellperson's input constraints, as record appends them: one row per
     * input with A = {input_i: 1} (one non-zero each; inputs have no A
     * density bit), B = C = 0. */
    out->num_constraints = cs->num_constraints + cs->num_inputs;
    out->nnz_a = s->nnz[0] + cs->num_inputs;
    out->nnz_b = s->nnz[1];
    out->nnz_c = s->nnz[2];
    out->a_aux_count = cz_density_popcount(s->a_aux_density, cs->num_aux);
    out->b_input_count = cz_density_popcount(s->b_input_density, cs->num_inputs);
    out->b_aux_count = cz_density_popcount(s->b_aux_density, cs->num_aux);
    out->a_aux_density = s->a_aux_density;
    out->b_input_density = s->b_input_density;
    out->b_aux_density = s->b_aux_density;
    s->a_aux_density = s->b_input_density = s->b_aux_density = NULL;
    s->a_aux_cap = s->b_input_cap = s->b_aux_cap = 0;
    s->finished = 1;
    return CZ_OK;
}

void cz_r1cs_stats_free(cz_r1cs_stats *st) {
    if (!st) return;
    free(st->a_aux_density), free(st->b_input_density), free(st->b_aux_density);
    memset(st, 0, sizeof *st);
}
