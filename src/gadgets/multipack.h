/* Packing bits into field elements (bellpepper gadgets/multipack.rs), and
 * the native computations a verifier or witness generator needs.
 * A packed element is sum 2^i bit_i over at most Fr::CAPACITY = 254 bits. */
#ifndef CZ_GADGETS_MULTIPACK_H
#define CZ_GADGETS_MULTIPACK_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets/boolean.h"
#include "gadgets/num.h"

#define CZ_MULTIPACK_CHUNK 254

/* pack_bits: the first min(n, 254) bits; aux y; (sum 2^i bit_i) * ONE = y. */
void cz_pack_bits(cz_cs *cs, cz_num *out, const cz_bool *bits, size_t n);
/* pack_into_inputs: per chunk of 254 bits (the last may be shorter): input u;
 * (sum 2^i bit_i) * ONE = u. Nothing for n = 0. */
void cz_pack_into_inputs(cz_cs *cs, const cz_bool *bits, size_t n);

/* Native: number of field elements pack_into_inputs makes from n bits. */
static inline size_t cz_multipack_len(size_t n) {
    return (n + CZ_MULTIPACK_CHUNK - 1) / CZ_MULTIPACK_CHUNK;
}
/* Native compute_multipacking: bits[i] is 0 or 1 (one byte per bit);
 * out has cz_multipack_len(n) elements. */
void cz_multipack_compute(cz_fr *out, const uint8_t *bits, size_t n);
/* bytes_to_bits: 8 bits per byte, most significant first. out has 8 n bytes. */
void cz_multipack_bytes_to_bits_be(uint8_t *out, const uint8_t *bytes, size_t n);
/* bytes_to_bits_le: least significant first. */
void cz_multipack_bytes_to_bits_le(uint8_t *out, const uint8_t *bytes, size_t n);
/* Filecoin's fr-safe digest: 32 bytes as a little-endian integer with the two
 * top bits of byte 31 cleared (the value pack_bits gives for the digest bits
 * reversed within each byte). */
void cz_multipack_digest_to_fr(cz_fr *out, const uint8_t digest[32]);

#endif
