/* MultiEq (bellpepper gadgets/multieq.rs): batches equalities
 * lhs_k = rhs_k of values below 2^num_bits_k into one constraint
 * (sum 2^s_k lhs_k) * ONE = (sum 2^s_k rhs_k), as long as the packed width
 * stays below Fr::CAPACITY = 254 bits. The pending constraint is emitted when
 * the next equality would not fit (before it is added) and by
 * cz_multieq_finish, so these constraints come later than the variables
 * they check. One MultiEq lives for one SHA-256 compression call. */
#ifndef CZ_GADGETS_MULTIEQ_H
#define CZ_GADGETS_MULTIEQ_H

#include "gadgets/lcb.h"
#include "r1cs/cs.h"

#define CZ_MULTIEQ_CAPACITY 254

typedef struct {
    cz_cs *cs;
    cz_lcb lhs, rhs;    /* the pending sums */
    unsigned bits_used; /* width packed so far */
    uint64_t emitted;   /* constraints emitted (bellpepper's `ops`) */
} cz_multieq;

void cz_multieq_init(cz_multieq *m, cz_cs *cs);
/* Adds lhs == rhs (both < 2^num_bits, num_bits < 254). */
void cz_multieq_enforce_equal(cz_multieq *m, unsigned num_bits, const cz_lc *lhs, const cz_lc *rhs);
/* The first half of enforce_equal, for callers that add their terms straight
 * into m->lhs / m->rhs: emits the pending constraint when num_bits more would
 * not fit, reserves num_bits and sets *shift to 2^(position of the new slot).
 * The caller then adds shift * its lhs to m->lhs and shift * rhs to m->rhs. */
void cz_multieq_reserve(cz_multieq *m, unsigned num_bits, cz_fr *shift);
/* Emits the pending constraint when something is pending; frees memory. */
void cz_multieq_finish(cz_multieq *m);

#endif
