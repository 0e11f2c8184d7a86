/* The check back-end: evaluates each constraint when it is enforced (every
 * value is known at allocation) and remembers the first one that fails.
 * Only the assignment is stored. */
#include <stdlib.h>

#include "r1cs/internal.h"

typedef struct {
    cz_cs base; /* first: a cz_cs * is a check_cs * */
    cz_assignment as;
    int failed;
    uint64_t first_failure;
    cz_fr a, b, c;
} check_cs;

static cz_var check_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    check_cs *k = (check_cs *)cs;
    return cz_assignment_alloc(cs, &k->as, value, is_input);
}

static void check_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    check_cs *k = (check_cs *)cs;
    if (cs->status != CZ_OK) return;
    if (!cz_cs_check_lc(cs, a, 'A') || !cz_cs_check_lc(cs, b, 'B') || !cz_cs_check_lc(cs, c, 'C'))
        return;
    if (!k->failed) {
        cz_fr va, vb, vc, ab;
        cz_lc_eval(&va, a, k->as.input, k->as.aux, NULL, NULL);
        cz_lc_eval(&vb, b, k->as.input, k->as.aux, NULL, NULL);
        cz_lc_eval(&vc, c, k->as.input, k->as.aux, NULL, NULL);
        cz_fr_mul(&ab, &va, &vb);
        if (!cz_fr_equal(&ab, &vc)) {
            k->failed = 1;
            k->first_failure = cs->num_constraints;
            k->a = va, k->b = vb, k->c = vc;
        }
    }
    cs->num_constraints++;
}

static void check_destroy(cz_cs *cs) {
    check_cs *k = (check_cs *)cs;
    cz_assignment_free(&k->as);
    free(k);
}

static const cz_cs_ops check_ops = {check_alloc, check_enforce, check_destroy};

cz_cs *cz_cs_check_new(void) {
    check_cs *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    cz_cs_base_init(&k->base, &check_ops, 1);
    if (cz_assignment_init(&k->as) != CZ_OK) {
        free(k);
        return NULL;
    }
    return &k->base;
}

void cz_cs_check_result(const cz_cs *cs, cz_check_result *out) {
    out->a = out->b = out->c = cz_fr_zero;
    if (!cs || cs->ops != &check_ops || cs->status != CZ_OK) {
        /* an errored system proves nothing: not satisfied, no index */
        out->satisfied = 0;
        out->first_failure = cs ? cs->num_constraints : 0;
        return;
    }
    const check_cs *k = (const check_cs *)cs;
    out->satisfied = !k->failed;
    out->first_failure = k->failed ? k->first_failure : 0;
    if (k->failed) out->a = k->a, out->b = k->b, out->c = k->c;
}
