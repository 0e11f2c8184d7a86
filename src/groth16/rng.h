/* Randomness for the Groth16 layer (internal to src/groth16).
 *
 * Two sources:
 *  - a deterministic stream, ChaCha20 (DJB's original layout: 64-bit block
 *    counter in state words 12-13, 64-bit nonce in words 14-15) keyed by a
 *    32-byte seed, for the development setup, whose secrets must follow from
 *    the seed alone;
 *  - the operating system (util/random.h), for the prover's r and s,
 *    which must be unpredictable. */
#ifndef CZ_GROTH16_RNG_H
#define CZ_GROTH16_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"

/* One ChaCha20 block (20 rounds) of the state built from key, the 64-bit
 * block counter and the 64-bit nonce (both little-endian words). Exposed for
 * the known-answer test. */
void cz_chacha20_block(uint8_t out[64], const uint8_t key[32], uint64_t counter, uint64_t nonce);

typedef struct {
    uint8_t key[32];
    uint64_t nonce;
    uint64_t counter;    /* next block */
    uint8_t block[64];   /* the current block */
    unsigned block_used; /* bytes of block already handed out, 64 = empty */
} cz_chacha20_stream;

void cz_chacha20_stream_init(cz_chacha20_stream *s, const uint8_t key[32], uint64_t nonce);
void cz_chacha20_stream_bytes(cz_chacha20_stream *s, uint8_t *out, size_t len);
/* A non-zero field element: 64 stream bytes reduced mod r (bias < 2^-256),
 * drawn again in the (never observed) case of zero. */
void cz_chacha20_stream_fr_nonzero(cz_chacha20_stream *s, cz_fr *out);

/* A uniformly random non-zero element from the OS (64 bytes reduced mod r). */
cz_status cz_os_random_fr_nonzero(cz_fr *out, cz_error *err);

#endif
