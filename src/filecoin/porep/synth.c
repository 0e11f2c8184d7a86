/* Synthetic PoRep challenges (see synth.h). */
#include "filecoin/porep/synth.h"

#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "hash/chacha.h"

static const uint8_t synth_nonce[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

/* ChaCha20 key = keyed BLAKE2b with a 32-byte output over a || b. */
static cz_status blake2b256_keyed(uint32_t key_words[8], const char *tag, const uint8_t a[32],
                                  const uint8_t b[32], cz_error *err) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    size_t out_size = 32, out_len = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &out_size),
                           OSSL_PARAM_construct_end()};
    uint8_t digest[32];
    int ok = ctx != NULL && EVP_MAC_init(ctx, (const unsigned char *)tag, strlen(tag), params) &&
             EVP_MAC_update(ctx, a, 32) && EVP_MAC_update(ctx, b, 32) &&
             EVP_MAC_final(ctx, digest, &out_len, sizeof digest) && out_len == 32;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    if (!ok)
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "synthetic challenges: keyed BLAKE2b-256 "
                            "unavailable in libcrypto");
    for (int i = 0; i < 8; i++) key_words[i] = cz_chacha_load32_le(digest + 4 * i);
    return CZ_OK;
}

static void chacha20_ietf_block(uint32_t out[16], const uint32_t key[8], uint32_t counter) {
    cz_chacha_block(out, key, 20, counter, cz_chacha_load32_le(synth_nonce),
                       cz_chacha_load32_le(synth_nonce + 4), cz_chacha_load32_le(synth_nonce + 8));
}

cz_status cz_fc_synth_init(cz_fc_synth *s, uint64_t nodes, const uint8_t replica_id[32],
                           const uint8_t comm_r[32], uint64_t num_synth, cz_error *err) {
    if (nodes <= 2 || nodes > (UINT64_C(1) << 32))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "synthetic challenges: %llu nodes outside (2, 2^32]",
                            (unsigned long long)nodes);
    if (num_synth == 0)
        num_synth = nodes < CZ_FC_SYNTH_DEFAULT_COUNT ? nodes : CZ_FC_SYNTH_DEFAULT_COUNT;
    if (num_synth >= (UINT64_C(1) << 32))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "synthetic challenges: count %llu does not fit in u32",
                            (unsigned long long)num_synth);
    memset(s, 0, sizeof *s);
    s->nodes = nodes;
    s->num_synth = num_synth;
    memcpy(s->replica_id, replica_id, 32);
    return blake2b256_keyed(s->gen_key, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id,
                            comm_r, err);
}

uint64_t cz_fc_synth_challenge(const cz_fc_synth *s, uint64_t i) {
    if (i >= s->num_synth) return 0;
    uint32_t block[16];
    /* num_synth < 2^32 so the block index i / 2 fits the 32-bit counter. */
    chacha20_ietf_block(block, s->gen_key, (uint32_t)(i >> 1));
    const uint32_t *words = block + 8 * (i & 1);
    /* (256-bit LE integer) mod (nodes - 1), Horner over 32-bit words from the
     * top; nodes - 1 < 2^32 keeps acc << 32 below 2^64. */
    uint64_t m = s->nodes - 1, acc = 0;
    for (int w = 7; w >= 0; w--) acc = ((acc << 32) | words[w]) % m;
    return acc + 1;
}

cz_status cz_fc_synth_porep_challenges(uint64_t *out, uint64_t *indexes, size_t count,
                                       const cz_fc_synth *s, const uint8_t seed[32],
                                       uint32_t partition, cz_error *err) {
    uint64_t first = (uint64_t)partition * count;
    /* 16 selections per 64-byte block; the block index must fit 32 bits. */
    if (count != 0 && (first + count - 1) / 16 > UINT32_MAX)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "synthetic challenges: partition %u x %zu out of range", partition,
                            count);
    uint32_t select_key[8];
    cz_status st = blake2b256_keyed(select_key, "filecoin.io|PoRep|1|Synthetic|1|Selection",
                                    s->replica_id, seed, err);
    if (st != CZ_OK) return st;
    uint32_t block[16];
    uint64_t cached_block = UINT64_MAX;
    for (size_t t = 0; t < count; t++) {
        uint64_t j = first + t;
        if (j / 16 != cached_block) {
            cached_block = j / 16;
            chacha20_ietf_block(block, select_key, (uint32_t)cached_block);
        }
        uint64_t index = block[j % 16] % s->num_synth;
        if (indexes != NULL) indexes[t] = index;
        out[t] = cz_fc_synth_challenge(s, index);
    }
    return CZ_OK;
}
