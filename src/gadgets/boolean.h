/* Boolean gadgets, bellpepper-core's gadgets/boolean.rs semantics: the same
 * variables, constraints and emission order, so that circuits built from
 * them match Filecoin's proving keys.
 *
 * A cz_bool is a constant, an allocated bit (IS) or the negation of one
 * (NOT). An "allocated bit" (bellpepper's AllocatedBit) is a cz_bool of kind
 * CZ_BOOL_IS whose variable carries the boolean constraint (ONE - b) * b = 0.
 *
 * Values: when the constraint system carries a witness (cz_cs_has_witness)
 * every IS/NOT cz_bool carries the value of its variable and results are
 * computed; without one, values are 0 and meaningless, and nothing but the
 * structure is produced (identical in both modes).
 *
 * Errors are the constraint system's sticky status (cz_cs_status): the
 * functions here return values even after a failure; check the status once
 * at the end of synthesis. */
#ifndef CZ_GADGETS_BOOLEAN_H
#define CZ_GADGETS_BOOLEAN_H

#include <stddef.h>
#include <stdint.h>

#include "r1cs/cs.h"

typedef enum {
    CZ_BOOL_CONST = 0, /* the constant `value` */
    CZ_BOOL_IS = 1,    /* the allocated bit `var` */
    CZ_BOOL_NOT = 2    /* 1 - the allocated bit `var` */
} cz_bool_kind;

typedef struct {
    cz_var var;    /* IS / NOT: the bit's aux variable; CONST: unused (0) */
    uint8_t kind;  /* cz_bool_kind */
    uint8_t value; /* CONST: the constant; IS / NOT: the variable's value (0 without witness) */
} cz_bool;

static inline cz_bool cz_bool_const(int value) {
    cz_bool b = {0, CZ_BOOL_CONST, (uint8_t)(value != 0)};
    return b;
}
static inline int cz_bool_is_const(cz_bool b) {
    return b.kind == CZ_BOOL_CONST;
}
/* The boolean's value (a NOT inverts its variable's value). */
static inline int cz_bool_value(cz_bool b) {
    return b.kind == CZ_BOOL_NOT ? !b.value : b.value;
}
/* bellpepper's Boolean::not: no constraint. */
static inline cz_bool cz_bool_not(cz_bool b) {
    if (b.kind == CZ_BOOL_CONST)
        b.value = !b.value;
    else
        b.kind = b.kind == CZ_BOOL_IS ? CZ_BOOL_NOT : CZ_BOOL_IS;
    return b;
}

/* ---- allocated bits (AllocatedBit); operands must be of kind IS ---- */

/* aux b; (ONE - b) * b = 0. value is ignored without a witness. */
cz_bool cz_bit_alloc(cz_cs *cs, int value);
/* aux b; (ONE - must_be_false - b) * b = 0 (b is 0 when must_be_false is 1). */
cz_bool cz_bit_alloc_conditionally(cz_cs *cs, int value, cz_bool must_be_false);
/* aux c; (a + a) * b = a + b - c */
cz_bool cz_bit_xor(cz_cs *cs, cz_bool a, cz_bool b);
/* aux c; a * b = c */
cz_bool cz_bit_and(cz_cs *cs, cz_bool a, cz_bool b);
/* aux c; a * (ONE - b) = c */
cz_bool cz_bit_and_not(cz_cs *cs, cz_bool a, cz_bool b);
/* aux c; (ONE - a) * (ONE - b) = c */
cz_bool cz_bit_nor(cz_cs *cs, cz_bool a, cz_bool b);

/* ---- booleans (Boolean), with bellpepper's dispatch and constant folding ---- */

/* const false -> the other operand; const true -> its negation; IS with NOT
 * (either order) -> NOT(bit_xor(the IS variable, the NOT variable));
 * IS,IS or NOT,NOT -> IS(bit_xor(a, b)). */
cz_bool cz_bool_xor(cz_cs *cs, cz_bool a, cz_bool b);
/* const false -> false; const true -> the other; IS x with NOT y (either
 * order) -> and_not(x, y); NOT,NOT -> nor; IS,IS -> and. */
cz_bool cz_bool_and(cz_cs *cs, cz_bool a, cz_bool b);
/* not(and(not a, not b)) */
cz_bool cz_bool_or(cz_cs *cs, cz_bool a, cz_bool b);
/* (a and b) xor ((not a) and c), folding constants as bellpepper does. */
cz_bool cz_bool_sha256_ch(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c);
/* (a and b) xor (a and c) xor (b and c), folding constants as bellpepper does. */
cz_bool cz_bool_sha256_maj(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c);
/* One constraint 0 * 0 = lc(a) - lc(b) (with the constant-operand forms of
 * bellpepper); two different constants fail the cs with CZ_E_INVALID_ARG. */
void cz_bool_enforce_equal(cz_cs *cs, cz_bool a, cz_bool b);

/* bellpepper's Boolean::lc(one, coeff) added to lc: IS -> coeff*var,
 * NOT -> coeff*ONE - coeff*var, true -> coeff*ONE, false -> nothing. */
cz_status cz_bool_lc_add(cz_lc *lc, cz_bool b, const cz_fr *coeff);

/* ---- vectors ---- */

/* n allocated bits with the values of v, bit 0 (least significant) first
 * (u64_into_boolean_vec_le, UInt64::alloc). n <= 64. */
void cz_bits_alloc_u64_le(cz_cs *cs, cz_bool *out, unsigned n, uint64_t v);
/* out[8k + j] = in[8k + 7 - j]: reverses the bit order inside each byte
 * (Filecoin's "byte-bits" of an LSB-first decomposition, and the fr-safe
 * digest order). n must be a multiple of 8; out must not alias in. */
void cz_bits_reverse_bytes(cz_bool *out, const cz_bool *in, size_t n);

#endif
