/* SHA-256 gadget (bellpepper gadgets/sha256.rs).
 *
 * Constraint-for-constraint the same as bellpepper: message schedule first
 * (for t = 16..63: s0 xors, s1 xors, addmany), then the 64 rounds with the
 * "maybe deferred" a and e (round t: e's addmany, S1 xors, ch bits, a's
 * addmany, S0 xors, maj bits), then the eight output additions, then the
 * MultiEq's last constraint. Constants (IV, round constants, padding, and
 * constant message bits) fold exactly as in bellpepper. Values and errors as
 * in boolean.h. */
#ifndef CZ_GADGETS_SHA256_H
#define CZ_GADGETS_SHA256_H

#include <stddef.h>

#include "gadgets/boolean.h"
#include "gadgets/uint32.h"

/* The eight IV words as constants. */
void cz_sha256_iv(cz_u32 out[8]);
/* One compression: block[0] is the first message bit (the most significant
 * bit of the first word). out may alias state. */
void cz_sha256_compression(cz_cs *cs, cz_u32 out[8], const cz_bool block[512],
                           const cz_u32 state[8]);
/* The compression of one 512-bit block from the IV, without padding; out is
 * the 256 digest bits, most significant bit of word 0 first. */
void cz_sha256_block_no_padding(cz_cs *cs, cz_bool out[256], const cz_bool block[512]);
/* SHA-256 of nbits message bits (a multiple of 8; each byte most significant
 * bit first): padding as constant bits, one compression per block. out is
 * the digest, bit 0 = the most significant bit of byte 0. */
void cz_sha256(cz_cs *cs, cz_bool out[256], const cz_bool *msg, size_t nbits);

#endif
