/* The constraint-system interface: bellpepper's R1CS semantics in C.
 *
 * Synthesis code (gadgets, circuits) is written once against cz_cs and runs
 * on every back-end: count, check, prove, record and witness (see
 * backends.h). Compatibility with Filecoin's keys depends on the exact
 * conventions below:
 *
 *  - Variables are inputs (input 0 is the constant ONE, allocated by the
 *    back-end at creation) and aux, each numbered in allocation order.
 *  - A constraint is (A, B, C) with <A,z> * <B,z> = <C,z>; emission order is
 *    constraint order; A and B are not interchangeable.
 *  - A linear combination maps variables to coefficients; adding a variable
 *    that is already present adds the coefficients (bellpepper's Indexer);
 *    the term stays even when its coefficient becomes zero.
 *
 * Values: back-ends that carry a witness (check, prove, witness) receive the
 * value of every allocated variable; count and record do not, and
 * cz_cs_has_witness() tells synthesis code whether values must be computed.
 * Likewise back-ends that never look at the linear combinations (witness)
 * say so with cz_cs_ignores_lcs(): synthesis code may then pass empty ones
 * to enforce, which only counts the constraint. Allocation order and the
 * number of constraints must not depend on either flag.
 *
 * Errors are sticky: an allocation failure or a broken invariant inside a
 * back-end sets cs->status (and cs->error), later calls become no-ops, and
 * the caller checks cz_cs_status() once at the end of synthesis. */
#ifndef CZ_R1CS_CS_H
#define CZ_R1CS_CS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"

/* A variable: its index, with the top bit set for inputs. */
typedef uint32_t cz_var;
#define CZ_VAR_INPUT_BIT   0x80000000u
#define CZ_VAR_ONE         (CZ_VAR_INPUT_BIT | 0u)
#define CZ_VAR_IS_INPUT(v) (((v)&CZ_VAR_INPUT_BIT) != 0)
#define CZ_VAR_INDEX(v)    ((v) & ~CZ_VAR_INPUT_BIT)

typedef struct {
    cz_var var;
    cz_fr coeff;
} cz_lc_term;

/* A linear combination: each variable at most once. The back-ends accept
 * terms in any order; the cz_lc_* functions keep them sorted as bellpepper
 * iterates them (inputs by index, then aux by index). */
typedef struct {
    cz_lc_term *terms;
    uint32_t len, cap;
} cz_lc;

typedef struct cz_cs cz_cs;

typedef struct {
    /* value is NULL when the back-end carries no witness */
    cz_var (*alloc)(cz_cs *cs, const cz_fr *value, int is_input);
    void (*enforce)(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c);
    void (*destroy)(cz_cs *cs);
} cz_cs_ops;

struct cz_cs {
    const cz_cs_ops *ops;
    int has_witness;
    /* Set by back-ends whose enforce only counts the constraint (while the
     * status is clean): cz_cs_enforce then counts inline, and synthesis
     * code may skip building the combinations (0 unless a back-end sets it). */
    int ignores_lcs;
    /* Optional in-place store of aux values (witness back-ends): while
     * num_aux < direct_aux_end, cz_cs_alloc writes aux v's value to
     * direct_aux[v] inline instead of calling ops->alloc. NULL: none. */
    cz_fr *direct_aux;
    uint32_t direct_aux_end;
    uint32_t num_inputs; /* including ONE */
    uint32_t num_aux;
    uint64_t num_constraints;
    cz_status status; /* first error, sticky */
    cz_error error;
};

/* ---- linear combinations ---- */
void cz_lc_init(cz_lc *lc);
void cz_lc_free(cz_lc *lc);
void cz_lc_clear(cz_lc *lc); /* keeps the memory */
/* lc += coeff * var, merging with an existing term for var. Returns CZ_E_NOMEM
 * when the term array cannot grow (lc unchanged). */
cz_status cz_lc_add(cz_lc *lc, cz_var var, const cz_fr *coeff);
/* lc += var, lc -= var (coefficient 1 / -1) */
cz_status cz_lc_add_var(cz_lc *lc, cz_var var);
cz_status cz_lc_sub_var(cz_lc *lc, cz_var var);
/* lc += coeff * other (coeff NULL means 1; other may be lc itself) */
cz_status cz_lc_add_lc(cz_lc *lc, const cz_lc *other, const cz_fr *coeff);

/* ---- the system ---- */
static inline cz_var cz_cs_alloc(cz_cs *cs, const cz_fr *value) {
    uint32_t v = cs->num_aux;
    if (cs->direct_aux && v < cs->direct_aux_end && value && cs->status == CZ_OK) {
        cs->direct_aux[v] = *value;
        cs->num_aux = v + 1;
        return v;
    }
    return cs->ops->alloc(cs, value, 0);
}
static inline cz_var cz_cs_alloc_input(cz_cs *cs, const cz_fr *value) {
    return cs->ops->alloc(cs, value, 1);
}
/* a, b or c may be NULL for the empty (zero) combination. Every term must
 * name an allocated variable (checked; a violation fails cs). */
static inline void cz_cs_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    if (cs->ignores_lcs) {
        cs->num_constraints += cs->status == CZ_OK;
        return;
    }
    cs->ops->enforce(cs, a, b, c);
}
static inline int cz_cs_has_witness(const cz_cs *cs) {
    return cs->has_witness;
}
static inline int cz_cs_ignores_lcs(const cz_cs *cs) {
    return cs->ignores_lcs;
}
static inline cz_status cz_cs_status(const cz_cs *cs) {
    return cs->status;
}
/* Records the first error (later ones are dropped) and returns the recorded
 * status. Allocation after an error returns CZ_VAR_ONE. */
cz_status cz_cs_fail(cz_cs *cs, cz_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cz_cs_destroy(cz_cs *cs);

#endif
