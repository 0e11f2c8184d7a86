/* MultiEq: see multieq.h. */
#include "gadgets/multieq.h"

void cz_multieq_init(cz_multieq *m, cz_cs *cs) {
    m->cs = cs;
    cz_lcb_init(&m->lhs, cs, NULL, 0);
    cz_lcb_init(&m->rhs, cs, NULL, 0);
    m->bits_used = 0;
    m->emitted = 0;
}

/* lhs * ONE = rhs, then start over. */
static void accumulate(cz_multieq *m) {
    cz_lc_term one_term = {CZ_VAR_ONE, cz_fr_one};
    cz_lc one = {&one_term, 1, 1};
    cz_cs_enforce(m->cs, &m->lhs.lc, &one, &m->rhs.lc);
    cz_lcb_clear(&m->lhs);
    cz_lcb_clear(&m->rhs);
    m->bits_used = 0;
    m->emitted++;
}

void cz_multieq_reserve(cz_multieq *m, unsigned num_bits, cz_fr *shift) {
    if (num_bits >= CZ_MULTIEQ_CAPACITY) {
        cz_cs_fail(m->cs, CZ_E_INVALID_ARG, "gadgets: MultiEq of %u bits", num_bits);
        num_bits = 0;
    }
    if (CZ_MULTIEQ_CAPACITY <= m->bits_used + num_bits) accumulate(m);
    cz_gadget_pow2(shift, m->bits_used);
    m->bits_used += num_bits;
}

void cz_multieq_enforce_equal(cz_multieq *m, unsigned num_bits, const cz_lc *lhs,
                              const cz_lc *rhs) {
    cz_fr shift;
    cz_multieq_reserve(m, num_bits, &shift);
    if (cz_cs_ignores_lcs(m->cs)) return;
    cz_lcb_add_lc(&m->lhs, lhs, &shift);
    cz_lcb_add_lc(&m->rhs, rhs, &shift);
}

void cz_multieq_finish(cz_multieq *m) {
    if (m->bits_used > 0) accumulate(m);
    cz_lcb_free(&m->lhs);
    cz_lcb_free(&m->rhs);
}
