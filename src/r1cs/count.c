/* The count back-end: sizes only, O(1) memory whatever the circuit size. */
#include <stdlib.h>

#include "r1cs/internal.h"

static cz_var count_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    (void)value;
    if (!cz_cs_may_alloc(cs, is_input)) return CZ_VAR_ONE;
    return cz_cs_count_var(cs, is_input);
}

static void count_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    if (cs->status != CZ_OK) return;
    /* The range checks cost a pass over terms the caller just built; they
     * catch the same synthesis bugs here as in the other back-ends. */
    if (!cz_cs_check_lc(cs, a, 'A') || !cz_cs_check_lc(cs, b, 'B') || !cz_cs_check_lc(cs, c, 'C'))
        return;
    cs->num_constraints++;
}

static void count_destroy(cz_cs *cs) {
    free(cs);
}

static const cz_cs_ops count_ops = {count_alloc, count_enforce, count_destroy};

cz_cs *cz_cs_count_new(void) {
    cz_cs *cs = malloc(sizeof *cs);
    if (!cs) return NULL;
    cz_cs_base_init(cs, &count_ops, 0);
    return cs;
}
