/* The ChaCha block function (RFC 8439 core, any even round count), for every
 * layer that needs it: ChaCha8 for Filecoin's DRG (rand_chacha's ChaCha8Rng),
 * ChaCha20 in the IETF layout (32-bit counter, 96-bit nonce) for synthetic
 * challenges, and ChaCha20 in DJB's layout (64-bit counter and nonce) for the
 * Groth16 development setup's deterministic stream. The caller lays out state
 * words 12..15 for its variant. */
#ifndef CZ_HASH_CHACHA_H
#define CZ_HASH_CHACHA_H

#include <stdint.h>
#include <string.h>

static inline uint32_t cz_chacha_load32_le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t cz_chacha_rotl32(uint32_t x, int n) {
    return (x << n) | (x >> (32 - n));
}

static inline void cz_chacha_quarter(uint32_t *x, int a, int b, int c, int d) {
    x[a] += x[b], x[d] ^= x[a], x[d] = cz_chacha_rotl32(x[d], 16);
    x[c] += x[d], x[b] ^= x[c], x[b] = cz_chacha_rotl32(x[b], 12);
    x[a] += x[b], x[d] ^= x[a], x[d] = cz_chacha_rotl32(x[d], 8);
    x[c] += x[d], x[b] ^= x[c], x[b] = cz_chacha_rotl32(x[b], 7);
}

/* One 64-byte keystream block as 16 words (little-endian byte order when
 * serialised). words12_15 fill state words 12..15 (counter and nonce, laid
 * out by the caller's variant). rounds is even (8 or 20). */
static inline void cz_chacha_block(uint32_t out[16], const uint32_t key[8], int rounds,
                                      uint32_t w12, uint32_t w13, uint32_t w14, uint32_t w15) {
    const uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, key[0], key[1],
                            key[2],     key[3],     key[4],     key[5],     key[6], key[7],
                            w12,        w13,        w14,        w15};
    uint32_t x[16];
    memcpy(x, s, sizeof x);
    for (int r = 0; r < rounds; r += 2) {
        cz_chacha_quarter(x, 0, 4, 8, 12);
        cz_chacha_quarter(x, 1, 5, 9, 13);
        cz_chacha_quarter(x, 2, 6, 10, 14);
        cz_chacha_quarter(x, 3, 7, 11, 15);
        cz_chacha_quarter(x, 0, 5, 10, 15);
        cz_chacha_quarter(x, 1, 6, 11, 12);
        cz_chacha_quarter(x, 2, 7, 8, 13);
        cz_chacha_quarter(x, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + s[i];
}

#endif
