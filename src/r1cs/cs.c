/* What every back-end shares: sticky errors, variable numbering and range
 * checks, the assignment store of the witness-carrying back-ends. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "r1cs/internal.h"
#include "util/parallel.h"

cz_status cz_grow(void **buf, size_t *cap, size_t need, size_t elem, int zero) {
    if (need <= *cap) return CZ_OK;
    size_t new_cap = *cap ? *cap : 16;
    while (new_cap < need) {
        if (new_cap > SIZE_MAX / 2) return CZ_E_NOMEM;
        new_cap *= 2;
    }
    if (new_cap > SIZE_MAX / elem) return CZ_E_NOMEM;
    void *p = realloc(*buf, new_cap * elem);
    if (!p) return CZ_E_NOMEM;
    /* a large store's new part on huge pages (a SnapDeals witness grows to
     * GBs here: witness.c says why) */
    cz_advise_huge_pages((char *)p + *cap * elem, (new_cap - *cap) * elem);
    if (zero) memset((char *)p + *cap * elem, 0, (new_cap - *cap) * elem);
    *buf = p;
    *cap = new_cap;
    return CZ_OK;
}

cz_status cz_cs_fail(cz_cs *cs, cz_status status, const char *fmt, ...) {
    if (cs->status == CZ_OK) {
        va_list ap;
        va_start(ap, fmt);
        cs->status = status;
        cs->error.status = status;
        vsnprintf(cs->error.message, sizeof cs->error.message, fmt, ap);
        va_end(ap);
    }
    return cs->status;
}

void cz_cs_destroy(cz_cs *cs) {
    if (cs) cs->ops->destroy(cs);
}

void cz_cs_base_init(cz_cs *cs, const cz_cs_ops *ops, int has_witness) {
    memset(cs, 0, sizeof *cs);
    cs->ops = ops;
    cs->has_witness = has_witness;
    cs->num_inputs = 1;
    cs->status = CZ_OK;
    cs->error.status = CZ_OK;
}

int cz_cs_may_alloc(cz_cs *cs, int is_input) {
    if (cs->status != CZ_OK) return 0;
    if ((uint64_t)cs->num_inputs + cs->num_aux >= CZ_CS_MAX_VARS) {
        cz_cs_fail(cs, CZ_E_RANGE,
                   "alloc%s: the system already holds %u inputs and %u aux (limit %u)",
                   is_input ? " input" : "", cs->num_inputs, cs->num_aux, CZ_CS_MAX_VARS);
        return 0;
    }
    return 1;
}

cz_var cz_cs_count_var(cz_cs *cs, int is_input) {
    if (is_input) return CZ_VAR_INPUT_BIT | cs->num_inputs++;
    return cs->num_aux++;
}

int cz_cs_check_lc(cz_cs *cs, const cz_lc *lc, char which) {
    if (!lc) return 1;
    for (uint32_t i = 0; i < lc->len; i++) {
        cz_var v = lc->terms[i].var;
        uint32_t idx = CZ_VAR_INDEX(v);
        int bad = CZ_VAR_IS_INPUT(v) ? idx >= cs->num_inputs : idx >= cs->num_aux;
        if (bad) {
            cz_cs_fail(cs, CZ_E_INVALID_ARG,
                       "constraint %llu: %c term %u names %s %u, but only %u are allocated",
                       (unsigned long long)cs->num_constraints, which, i,
                       CZ_VAR_IS_INPUT(v) ? "input" : "aux", idx,
                       CZ_VAR_IS_INPUT(v) ? cs->num_inputs : cs->num_aux);
            return 0;
        }
    }
    return 1;
}

cz_status cz_assignment_init(cz_assignment *as) {
    memset(as, 0, sizeof *as);
    cz_status st = cz_grow((void **)&as->input, &as->input_cap, 1, sizeof(cz_fr), 0);
    if (st != CZ_OK) return st;
    as->input[0] = cz_fr_one;
    return CZ_OK;
}

void cz_assignment_free(cz_assignment *as) {
    free(as->input);
    free(as->aux);
    memset(as, 0, sizeof *as);
}

cz_var cz_assignment_alloc(cz_cs *cs, cz_assignment *as, const cz_fr *value, int is_input) {
    if (!cz_cs_may_alloc(cs, is_input)) return CZ_VAR_ONE;
    if (!value) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "alloc%s %u: this back-end needs the variable's value",
                   is_input ? " input" : "", is_input ? cs->num_inputs : cs->num_aux);
        return CZ_VAR_ONE;
    }
    cz_status st;
    if (is_input) {
        st = cz_grow((void **)&as->input, &as->input_cap, (size_t)cs->num_inputs + 1, sizeof(cz_fr),
                     0);
        if (st == CZ_OK) as->input[cs->num_inputs] = *value;
    } else {
        st = cz_grow((void **)&as->aux, &as->aux_cap, (size_t)cs->num_aux + 1, sizeof(cz_fr), 0);
        if (st == CZ_OK) as->aux[cs->num_aux] = *value;
    }
    if (st != CZ_OK) {
        cz_cs_fail(cs, st, "alloc: out of memory for %u inputs / %u aux assignments",
                   cs->num_inputs, cs->num_aux);
        return CZ_VAR_ONE;
    }
    return cz_cs_count_var(cs, is_input);
}
