/* The witness back-ends: assignments only; constraints are counted, their
 * linear combinations never looked at (ignores_lcs). witness grows its own
 * arrays; window writes in place into a caller's arrays (see backends.h). */
#include <stdlib.h>
#include <string.h>

#include "r1cs/internal.h"
#include "util/parallel.h"

typedef struct {
    cz_cs base; /* first: a cz_cs * is a witness_cs * */
    cz_assignment as;
    int finished;
} witness_cs;

static cz_var witness_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    witness_cs *w = (witness_cs *)cs;
    if (w->finished) cz_cs_fail(cs, CZ_E_INVALID_ARG, "alloc after cz_witness_finish");
    return cz_assignment_alloc(cs, &w->as, value, is_input);
}

static void witness_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    (void)a, (void)b, (void)c;
    if (cs->status == CZ_OK) cs->num_constraints++;
}

static void witness_destroy(cz_cs *cs) {
    witness_cs *w = (witness_cs *)cs;
    cz_assignment_free(&w->as);
    free(w);
}

static const cz_cs_ops witness_ops = {witness_alloc, witness_enforce, witness_destroy};

cz_cs *cz_cs_witness_new(void) {
    witness_cs *w = malloc(sizeof *w);
    if (!w) return NULL;
    cz_cs_base_init(&w->base, &witness_ops, 1);
    w->base.ignores_lcs = 1;
    w->finished = 0;
    if (cz_assignment_init(&w->as) != CZ_OK) {
        free(w);
        return NULL;
    }
    return &w->base;
}

cz_status cz_witness_finish(cz_cs *cs, cz_fr **inputs, uint32_t *num_inputs, cz_fr **aux,
                            uint32_t *num_aux, cz_error *err) {
    if (!cs || cs->ops != &witness_ops)
        return cz_error_set(err, CZ_E_INVALID_ARG, "cz_witness_finish: not a witness back-end");
    witness_cs *w = (witness_cs *)cs;
    if (w->finished) return cz_error_set(err, CZ_E_INVALID_ARG, "cz_witness_finish: called twice");
    if (cs->status != CZ_OK) {
        if (err) *err = cs->error;
        return cs->status;
    }
    *inputs = w->as.input;
    *num_inputs = cs->num_inputs;
    *aux = w->as.aux;
    *num_aux = cs->num_aux;
    w->as.input = w->as.aux = NULL;
    w->as.input_cap = w->as.aux_cap = 0;
    w->finished = 1;
    return CZ_OK;
}

void cz_witness_free(cz_witness *w) {
    if (!w) return;
    free(w->input);
    free(w->aux);
    memset(w, 0, sizeof *w);
}

static cz_status replace_if_small(cz_fr **buf, size_t *cap, size_t need) {
    if (need <= *cap && *buf) return CZ_OK;
    free(*buf);
    *buf = NULL;
    *cap = 0;
    if (need > SIZE_MAX / sizeof(cz_fr)) return CZ_E_NOMEM;
    cz_fr *p = malloc((need ? need : 1) * sizeof(cz_fr));
    if (!p) return CZ_E_NOMEM;
    /* a 32 GiB PoRep partition's aux is 4.2 GB: on 4 KiB pages its first
     * writes take a million faults and its free a million unmaps, under
     * the process's address-space lock that other threads' faults and
     * mappings (page-locking among them) wait for */
    cz_advise_huge_pages(p, need * sizeof(cz_fr));
    *buf = p;
    *cap = need;
    return CZ_OK;
}

cz_status cz_witness_reserve(cz_witness *w, uint32_t num_inputs, uint32_t num_aux) {
    cz_status st = replace_if_small(&w->input, &w->input_cap, num_inputs);
    if (st == CZ_OK) st = replace_if_small(&w->aux, &w->aux_cap, num_aux);
    return st;
}

/* ---- window ---- */

typedef struct {
    cz_cs base; /* first */
    cz_witness_window win;
} window_cs;

static cz_var window_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    window_cs *w = (window_cs *)cs;
    if (cs->status != CZ_OK) return CZ_VAR_ONE;
    uint32_t next = is_input ? cs->num_inputs : cs->num_aux;
    uint32_t begin = is_input ? w->win.input_begin : w->win.aux_begin;
    uint32_t end = is_input ? w->win.input_end : w->win.aux_end;
    if (next >= end) {
        cz_cs_fail(cs, CZ_E_RANGE,
                   "witness window: %s %u is past the window's end (%s window [%u, %u), %u "
                   "variables)",
                   is_input ? "input" : "aux", next, is_input ? "inputs" : "aux", begin, end,
                   end - begin);
        return CZ_VAR_ONE;
    }
    if (cs->has_witness) {
        if (!value) {
            cz_cs_fail(cs, CZ_E_INVALID_ARG, "alloc%s %u: this back-end needs the variable's value",
                       is_input ? " input" : "", next);
            return CZ_VAR_ONE;
        }
        (is_input ? w->win.input : w->win.aux)[next] = *value;
    }
    return cz_cs_count_var(cs, is_input);
}

static void window_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    (void)a, (void)b, (void)c;
    if (cs->status == CZ_OK) cs->num_constraints++;
}

static void window_destroy(cz_cs *cs) {
    free(cs);
}

static const cz_cs_ops window_ops = {window_alloc, window_enforce, window_destroy};

cz_cs *cz_cs_window_new(const cz_witness_window *win) {
    if (!win || win->input_begin < 1 || win->input_begin > win->input_end ||
        win->aux_begin > win->aux_end || win->input_end > CZ_CS_MAX_VARS ||
        win->aux_end > CZ_CS_MAX_VARS || (!win->input != !win->aux))
        return NULL;
    window_cs *w = malloc(sizeof *w);
    if (!w) return NULL;
    cz_cs_base_init(&w->base, &window_ops, win->aux != NULL);
    w->base.ignores_lcs = 1;
    w->base.num_inputs = win->input_begin;
    w->base.num_aux = win->aux_begin;
    w->base.direct_aux = win->aux; /* aux_end bounds the inline store too */
    w->base.direct_aux_end = win->aux_end;
    w->win = *win;
    return &w->base;
}
