#include "groth16/rng.h"

#include "hash/chacha.h"
#include "util/random.h"

#include <string.h>

void cz_chacha20_block(uint8_t out[64], const uint8_t key[32], uint64_t counter, uint64_t nonce) {
    uint32_t key_words[8], words[16];
    for (int i = 0; i < 8; i++) key_words[i] = cz_chacha_load32_le(key + 4 * i);
    cz_chacha_block(words, key_words, 20, (uint32_t)counter, (uint32_t)(counter >> 32),
                    (uint32_t)nonce, (uint32_t)(nonce >> 32));
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 4; k++) out[4 * i + k] = (uint8_t)(words[i] >> (8 * k));
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

cz_status cz_os_random_fr_nonzero(cz_fr *out, cz_error *err) {
    uint8_t wide[64];
    do {
        cz_status st = cz_os_random_bytes(wide, sizeof wide, err);
        if (st != CZ_OK) return st;
        cz_fr_from_bytes_le_reduce(out, wide, sizeof wide);
    } while (cz_fr_is_zero(out));
    return CZ_OK;
}
