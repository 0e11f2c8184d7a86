/* UInt32 (bellpepper gadgets/uint32.rs): 32 cz_bool,
 * least significant bit first. Rotations and shifts only rename bits (no
 * constraint); xor / ch / maj work bit by bit from bit 0 with the boolean
 * gadgets' constant folding; addmany allocates the sum's bits and checks the
 * sum through a MultiEq. Values and errors as in boolean.h. Outputs may
 * alias inputs everywhere. */
#ifndef CZ_GADGETS_UINT32_H
#define CZ_GADGETS_UINT32_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets/boolean.h"
#include "gadgets/multieq.h"

typedef struct {
    cz_bool bits[32]; /* bit 0 = least significant */
} cz_u32;

void cz_u32_const(cz_u32 *out, uint32_t value);
/* 32 allocated bits, bit 0 first. */
void cz_u32_alloc(cz_cs *cs, cz_u32 *out, uint32_t value);
/* The value (meaningful for constants, or with a witness). */
uint32_t cz_u32_value(const cz_u32 *x);
/* bits[0] is the least significant bit (UInt32::from_bits). */
void cz_u32_from_bits_le(cz_u32 *out, const cz_bool bits[32]);
/* bits[0] is the most significant bit (UInt32::from_bits_be). */
void cz_u32_from_bits_be(cz_u32 *out, const cz_bool bits[32]);
void cz_u32_to_bits_le(cz_bool out[32], const cz_u32 *x);
/* Most significant bit first (UInt32::into_bits_be). */
void cz_u32_to_bits_be(cz_bool out[32], const cz_u32 *x);

/* new bit i = old bit (i + by) mod 32 */
void cz_u32_rotr(cz_u32 *out, const cz_u32 *x, unsigned by);
/* new bit i = old bit i + by, or constant false */
void cz_u32_shr(cz_u32 *out, const cz_u32 *x, unsigned by);
/* Boolean xor of each bit, bit 0 first. */
void cz_u32_xor(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b);
void cz_u32_sha256_ch(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c);
void cz_u32_sha256_maj(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c);

/* Sum of n operands (2 <= n <= 10) modulo 2^32. When every bit of every
 * operand is constant the result is a constant (no variable, no
 * constraint). Otherwise the result's k = bit length of n * (2^32 - 1) bits
 * are allocated (33 for n = 2, 34 for 3-4, 35 for 5-8, 36 for 9-10), each
 * with its boolean constraint, and sum_ops sum_i 2^i op_i == sum_i 2^i r_i
 * goes into m as a k-bit equality; bits 0..31 are the result. */
void cz_u32_addmany(cz_multieq *m, cz_u32 *out, const cz_u32 *ops, size_t n);

#endif
