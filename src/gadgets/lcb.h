/* Linear-combination builder for the gadgets (internal to src/gadgets/).
 *
 * Produces a cz_lc with bellpepper's Indexer semantics: adding a variable
 * that is already present adds the coefficients, and the term stays even
 * when its coefficient sums to zero. Terms keep first-insertion order.
 *
 * Unlike cz_lc_add it can start on a caller's stack buffer (no allocation
 * for the small LCs of boolean gadgets) and indexes large LCs by a hash of
 * the variable, so the big sums of addmany / MultiEq / packing stay linear.
 * Allocation failures are reported to the constraint system (sticky error)
 * and turn further additions into no-ops; so does a system that ignores
 * linear combinations (cz_cs_ignores_lcs): its builders stay empty. */
#ifndef CZ_GADGETS_LCB_H
#define CZ_GADGETS_LCB_H

#include "gadgets/boolean.h"
#include "r1cs/cs.h"

typedef struct {
    cz_lc lc;           /* the result; lc.terms is buf or heap memory */
    cz_cs *cs;          /* where allocation failures are reported */
    uint32_t *slots;    /* hash index: term index + 1, 0 = empty; NULL while small */
    uint32_t slot_mask; /* slots has slot_mask + 1 entries (a power of two) */
    int owned;          /* lc.terms was allocated here */
    int failed;         /* or inert: additions are no-ops */
} cz_lcb;

/* buf (cap terms) may be NULL with cap 0; the builder grows onto the heap. */
void cz_lcb_init(cz_lcb *b, cz_cs *cs, cz_lc_term *buf, uint32_t cap);
void cz_lcb_free(cz_lcb *b);
/* Empties the combination and keeps the memory. */
void cz_lcb_clear(cz_lcb *b);
/* lc += coeff * var */
void cz_lcb_add(cz_lcb *b, cz_var var, const cz_fr *coeff);
/* lc += var, lc -= var */
void cz_lcb_add_var(cz_lcb *b, cz_var var);
void cz_lcb_sub_var(cz_lcb *b, cz_var var);
/* lc += coeff * bool (bellpepper's `lc + &bool.lc(ONE, coeff)`): IS adds
 * coeff*var, NOT adds coeff*ONE then -coeff*var, true adds coeff*ONE. */
void cz_lcb_add_bool(cz_lcb *b, cz_bool x, const cz_fr *coeff);
/* lc += coeff * other, term by term in other's order */
void cz_lcb_add_lc(cz_lcb *b, const cz_lc *other, const cz_fr *coeff);

/* For a back-end that ignores linear combinations (cz_cs_ignores_lcs: the
 * witness back-ends): emits the constraint without them and returns 1, so
 * the caller skips building them; else returns 0 and emits nothing. */
static inline int cz_gadget_enforce_bare(cz_cs *cs) {
    if (!cz_cs_ignores_lcs(cs)) return 0;
    cz_cs_enforce(cs, NULL, NULL, NULL);
    return 1;
}

/* -1 in Fr (Montgomery form). */
extern const cz_fr cz_gadget_minus_one;
/* r = 2^k for k < 256. */
void cz_gadget_pow2(cz_fr *r, unsigned k);

#endif
