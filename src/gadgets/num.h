/* Field-element gadgets: bellpepper-core's AllocatedNum (gadgets/num.rs),
 * Filecoin's equal / pick / insert (storage-proofs-core gadgets/constraint.rs,
 * insertion.rs). Values and errors as in boolean.h: without a witness the
 * values are zero and only the structure is produced; failures are the
 * constraint system's sticky status. */
#ifndef CZ_GADGETS_NUM_H
#define CZ_GADGETS_NUM_H

#include <stddef.h>

#include "gadgets/boolean.h"
#include "r1cs/cs.h"

/* An allocated variable (aux or input) and its value (zero without witness). */
typedef struct {
    cz_var var;
    cz_fr value;
} cz_num;

/* Number of bits of a field element decomposition (Fr::NUM_BITS). */
#define CZ_NUM_BITS 255

/* aux x (no constraint). value may be NULL without a witness. */
void cz_num_alloc(cz_cs *cs, cz_num *out, const cz_fr *value);
/* input x (no constraint). */
void cz_num_alloc_input(cz_cs *cs, cz_num *out, const cz_fr *value);
/* input u; u * ONE = x. Returns u. */
cz_var cz_num_inputize(cz_cs *cs, const cz_num *x);
/* a * ONE = b */
void cz_num_equal(cz_cs *cs, const cz_num *a, const cz_num *b);
/* aux s; (a + b) * ONE = s */
void cz_num_add(cz_cs *cs, cz_num *out, const cz_num *a, const cz_num *b);
/* aux c = cond ? a : b; (b - a) * cond = b - c */
void cz_num_pick(cz_cs *cs, cz_num *out, cz_bool cond, const cz_num *a, const cz_num *b);

/* Non-strict decomposition (to_bits_le): 255 allocated bits, bit 0 first,
 * each with its boolean constraint, then 0 * 0 = sum 2^i bit_i - x. */
void cz_num_to_bits_le(cz_cs *cs, cz_bool out[CZ_NUM_BITS], const cz_num *x);
/* Strict decomposition (to_bits_le_strict): the bits are also forced to
 * encode an integer below r (runs of ones of r - 1 ANDed, conditional
 * allocation), then the same unpacking constraint. */
void cz_num_to_bits_le_strict(cz_cs *cs, cz_bool out[CZ_NUM_BITS], const cz_num *x);

/* AllocatedNum::mul: aux p = x y; x * y = p. */
void cz_num_mul(cz_cs *cs, cz_num *out, const cz_num *x, const cz_num *y);
/* The same with an allocated bit (kind IS) as y: aux p = bit ? x : 0;
 * x * bit = p. */
void cz_num_mul_bit(cz_cs *cs, cz_num *out, const cz_num *x, cz_bool bit);
/* aux s = sum of the n terms; (sum terms) * ONE = s. */
void cz_num_sum(cz_cs *cs, cz_num *out, const cz_num *terms, size_t n);
/* aux y = mul x + add; (mul x + add ONE) * ONE = y, the ONE term present
 * even when add = 0 (bellperson keeps zero-coefficient terms). */
void cz_num_affine(cz_cs *cs, cz_num *out, const cz_num *x, uint64_t mul, uint64_t add);
/* field_into_allocated_bits_le's first n bits (n <= 255: n allocated bits
 * of x's value, bit 0 first, each with its boolean constraint), then
 * (sum 2^i bit_i) * ONE = x (the orientation of storage-proofs-update's
 * allocated_num_to_allocated_bits, unlike to_bits_le's 0 * 0 = sum - x). */
void cz_num_to_allocated_bits(cz_cs *cs, cz_bool *out, unsigned n, const cz_num *x);
/* insert(element, bits, elements): out[0..n] (n = 2^nbits outputs) is
 * elements with element inserted at the position whose bits (LSB first) are
 * given; n - 1 elements. The hand-optimized forms for n = 2, 4, 8 (8 needs
 * IS bits for bits[0], bits[1]) and the general select-based form otherwise,
 * exactly as Filecoin's insertion.rs. nbits <= 16. */
void cz_num_insert(cz_cs *cs, cz_num *out, const cz_num *element, const cz_bool *bits,
                   unsigned nbits, const cz_num *elements);
/* select: from[index] where index has nbits bits, LSB first (2^nbits - 1 picks). */
void cz_num_select(cz_cs *cs, cz_num *out, const cz_num *from, const cz_bool *bits, unsigned nbits);

#endif
