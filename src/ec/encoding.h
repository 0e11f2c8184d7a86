/* zcash-format encodings of G1 and G2 points (Filecoin proofs and .params).
 *
 *   G1 compressed    48 bytes  x
 *   G1 uncompressed  96 bytes  x || y
 *   G2 compressed    96 bytes  x.c1 || x.c0
 *   G2 uncompressed 192 bytes  x.c1 || x.c0 || y.c1 || y.c0
 * Every coordinate is 48 bytes big-endian. The top three bits of byte 0 are
 * flags, not part of x:
 *   bit 7  compression: 1 exactly in the compressed forms
 *   bit 6  infinity: then every other bit of the encoding is 0
 *   bit 5  sort, only in a compressed encoding of a finite point: y is the
 *          lexicographically larger root (G1: y > (p-1)/2; G2: decided on
 *          y.c1, or on y.c0 when y.c1 = 0); 0 in every other encoding.
 * Infinity is 0xc0 || 0.. (compressed) and 0x40 || 0.. (uncompressed).
 *
 * Decoders check, in this order, and report the first failure:
 *   CZ_E_PARSE            a flag wrong for the length or the point (compression
 *                         bit vs length, sort bit with infinity or uncompressed,
 *                         infinity with any other bit set)
 *   CZ_E_RANGE            a coordinate >= p (non-canonical)
 *   CZ_E_NOT_ON_CURVE     compressed: x^3 + b has no square root; uncompressed:
 *                         y^2 != x^3 + b (also an all-zero payload without the
 *                         infinity flag)
 *   CZ_E_NOT_IN_SUBGROUP  on the curve, order not r
 *   CZ_E_IDENTITY         infinity, when CZ_DECODE_REJECT_INFINITY is given
 * The flags below relax or tighten that. Outputs are untouched on failure.
 * Decoding is variable time (points are public). */
#ifndef CZ_EC_ENCODING_H
#define CZ_EC_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ec/point.h"

#define CZ_G1_COMPRESSED_BYTES   48
#define CZ_G1_UNCOMPRESSED_BYTES 96
#define CZ_G2_COMPRESSED_BYTES   96
#define CZ_G2_UNCOMPRESSED_BYTES 192

/* Decoder flags (bitwise or; 0 = every check). */
enum {
    /* Skip the subgroup check: the "unchecked" mode for trusted parameter
     * files. Flags, range and on-curve are still checked. */
    CZ_DECODE_SKIP_SUBGROUP = 1u << 0,
    /* Also skip y^2 = x^3 + b in the uncompressed forms, for input already
     * validated once (a cache). Implies SKIP_SUBGROUP. Flags and range are
     * still checked, and an all-zero payload without the infinity flag is
     * still refused. Compressed forms are on the curve regardless (y comes
     * from a square root). */
    CZ_DECODE_SKIP_CURVE = 1u << 1,
    /* Refuse the point at infinity with CZ_E_IDENTITY (proof elements,
     * parameter points). */
    CZ_DECODE_REJECT_INFINITY = 1u << 2,
};

/* Encoders: any affine point; the infinity (0, 0) gets its flag encoding. */
void cz_g1_affine_to_compressed(uint8_t out[CZ_G1_COMPRESSED_BYTES], const cz_g1_affine *p);
void cz_g1_affine_to_uncompressed(uint8_t out[CZ_G1_UNCOMPRESSED_BYTES], const cz_g1_affine *p);
void cz_g2_affine_to_compressed(uint8_t out[CZ_G2_COMPRESSED_BYTES], const cz_g2_affine *p);
void cz_g2_affine_to_uncompressed(uint8_t out[CZ_G2_UNCOMPRESSED_BYTES], const cz_g2_affine *p);

/* Decoders: CZ_OK and *out, or a status and err's message naming the byte,
 * flag or coordinate at fault ("G1 compressed: x (bytes 0..47) >= p"). */
cz_status cz_g1_affine_from_compressed(cz_g1_affine *out, const uint8_t in[CZ_G1_COMPRESSED_BYTES],
                                       unsigned flags, cz_error *err);
cz_status cz_g1_affine_from_uncompressed(cz_g1_affine *out,
                                         const uint8_t in[CZ_G1_UNCOMPRESSED_BYTES], unsigned flags,
                                         cz_error *err);
cz_status cz_g2_affine_from_compressed(cz_g2_affine *out, const uint8_t in[CZ_G2_COMPRESSED_BYTES],
                                       unsigned flags, cz_error *err);
cz_status cz_g2_affine_from_uncompressed(cz_g2_affine *out,
                                         const uint8_t in[CZ_G2_UNCOMPRESSED_BYTES], unsigned flags,
                                         cz_error *err);

/* Batch decoders of n consecutive uncompressed encodings (the .params
 * layout), spread over all cores with cz_parallel_for. On failure the status
 * and message are those of the lowest failing index, prefixed with
 * "point <i>: "; out[] is then partly written. */
cz_status cz_g1_batch_from_uncompressed(cz_g1_affine *out, const uint8_t *in, size_t n,
                                        unsigned flags, cz_error *err);
cz_status cz_g2_batch_from_uncompressed(cz_g2_affine *out, const uint8_t *in, size_t n,
                                        unsigned flags, cz_error *err);

#endif
