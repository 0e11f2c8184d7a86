#include "groth16/rng.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

static inline uint32_t rotl32(uint32_t x, unsigned n) {
    return (x << n) | (x >> (32 - n));
}

static inline uint32_t load32_le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store32_le(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#define QUARTER_ROUND(x, a, b, c, d)                                                               \
    do {                                                                                           \
        x[a] += x[b], x[d] = rotl32(x[d] ^ x[a], 16);                                              \
        x[c] += x[d], x[b] = rotl32(x[b] ^ x[c], 12);                                              \
        x[a] += x[b], x[d] = rotl32(x[d] ^ x[a], 8);                                               \
        x[c] += x[d], x[b] = rotl32(x[b] ^ x[c], 7);                                               \
    } while (0)

void cz_chacha20_block(uint8_t out[64], const uint8_t key[32], uint64_t counter, uint64_t nonce) {
    uint32_t in[16], x[16];
    in[0] = 0x61707865; /* "expand 32-byte k" */
    in[1] = 0x3320646e;
    in[2] = 0x79622d32;
    in[3] = 0x6b206574;
    for (int i = 0; i < 8; i++) in[4 + i] = load32_le(key + 4 * i);
    in[12] = (uint32_t)counter;
    in[13] = (uint32_t)(counter >> 32);
    in[14] = (uint32_t)nonce;
    in[15] = (uint32_t)(nonce >> 32);
    memcpy(x, in, sizeof x);
    for (int round = 0; round < 10; round++) {
        QUARTER_ROUND(x, 0, 4, 8, 12);
        QUARTER_ROUND(x, 1, 5, 9, 13);
        QUARTER_ROUND(x, 2, 6, 10, 14);
        QUARTER_ROUND(x, 3, 7, 11, 15);
        QUARTER_ROUND(x, 0, 5, 10, 15);
        QUARTER_ROUND(x, 1, 6, 11, 12);
        QUARTER_ROUND(x, 2, 7, 8, 13);
        QUARTER_ROUND(x, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) store32_le(out + 4 * i, x[i] + in[i]);
}

void cz_chacha20_stream_init(cz_chacha20_stream *s, const uint8_t key[32], uint64_t nonce) {
    memcpy(s->key, key, 32);
    s->nonce = nonce;
    s->counter = 0;
    s->block_used = 64;
}

void cz_chacha20_stream_bytes(cz_chacha20_stream *s, uint8_t *out, size_t len) {
    while (len > 0) {
        if (s->block_used == 64) {
            cz_chacha20_block(s->block, s->key, s->counter++, s->nonce);
            s->block_used = 0;
        }
        size_t take = 64 - s->block_used;
        if (take > len) take = len;
        memcpy(out, s->block + s->block_used, take);
        s->block_used += (unsigned)take;
        out += take;
        len -= take;
    }
}

void cz_chacha20_stream_fr_nonzero(cz_chacha20_stream *s, cz_fr *out) {
    uint8_t wide[64];
    do {
        cz_chacha20_stream_bytes(s, wide, sizeof wide);
        cz_fr_from_bytes_le_reduce(out, wide, sizeof wide);
    } while (cz_fr_is_zero(out));
}

cz_status cz_os_random_bytes(uint8_t *out, size_t len, cz_error *err) {
    while (len > 0) {
        ssize_t got = getrandom(out, len, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return cz_error_set(err, CZ_E_IO, "getrandom: %s", strerror(errno));
        }
        out += got;
        len -= (size_t)got;
    }
    return CZ_OK;
}

cz_status cz_os_random_fr_nonzero(cz_fr *out, cz_error *err) {
    uint8_t wide[64];
    do {
        cz_status st = cz_os_random_bytes(wide, sizeof wide, err);
        if (st != CZ_OK) return st;
        cz_fr_from_bytes_le_reduce(out, wide, sizeof wide);
    } while (cz_fr_is_zero(out));
    return CZ_OK;
}
