/* SDR graph parents (see graph.h). */
#include "filecoin/porep/graph.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "hash/chacha.h"
#include "filecoin/common/derive.h"

static uint64_t load64_le(const uint8_t *p) {
    return (uint64_t)cz_chacha_load32_le(p) | (uint64_t)cz_chacha_load32_le(p + 4) << 32;
}

/* ---- Feistel round function: first 8 bytes (BE) of BLAKE2b-512(right u64 BE
 * || key u64 BE), masked to the half width. */
static uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t mask) {
    uint8_t in[16], digest[64];
    for (int i = 0; i < 8; i++) {
        in[i] = (uint8_t)(right >> (56 - 8 * i));
        in[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    unsigned int len = 0;
    if (!EVP_Digest(in, sizeof in, digest, &len, EVP_blake2b512(), NULL))
        memset(digest, 0, sizeof digest); /* allocation failure in OpenSSL */
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) r = (r << 8) | digest[i];
    return r & mask;
}

static uint64_t feistel_encode(const cz_fc_graph *g, uint64_t index) {
    uint64_t left = (index >> g->half_bits) & g->right_mask;
    uint64_t right = index & g->right_mask;
    for (int round = 0; round < 3; round++) { /* keys[3] is never used */
        uint64_t next_right = left ^ feistel_round(right, g->feistel_keys[round], g->right_mask);
        left = right;
        right = next_right;
    }
    return (left << g->half_bits) | right;
}

uint64_t cz_fc_graph_feistel_permute(const cz_fc_graph *g, uint64_t index) {
    uint64_t domain = g->nodes * CZ_FC_EXP_DEGREE;
    /* encode permutes [0, 4^half_bits) ⊇ [0, domain); walking the cycle until
     * it re-enters the domain restricts it to a permutation of the domain. */
    uint64_t u = feistel_encode(g, index);
    while (u >= domain) u = feistel_encode(g, u);
    return u;
}

cz_status cz_fc_graph_init(cz_fc_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                           cz_fc_api_version api_version, cz_error *err) {
    if (nodes < 2 || nodes > (UINT64_C(1) << 32))
        return cz_error_set(err, CZ_E_INVALID_ARG, "graph: %llu nodes outside [2, 2^32]",
                            (unsigned long long)nodes);
    memset(g, 0, sizeof *g);
    g->nodes = nodes;
    g->legacy = api_version == CZ_FC_API_V1_0_0;

    static const char drg_tag[] = "Filecoin_DRSample";
    static const char feistel_tag[] = "Filecoin_Feistel";
    uint8_t buf[64], digest[32];
    size_t n = sizeof drg_tag - 1;
    memcpy(buf, drg_tag, n);
    memcpy(buf + n, porep_id, 32);
    cz_fc_sha256(digest, buf, n + 32);
    memcpy(g->drg_seed, digest, 28);

    n = sizeof feistel_tag - 1;
    memcpy(buf, feistel_tag, n);
    memcpy(buf + n, porep_id, 32);
    cz_fc_sha256(digest, buf, n + 32);
    for (int i = 0; i < 4; i++) g->feistel_keys[i] = load64_le(digest + 8 * i);

    /* Smallest k >= 1 with 4^k >= 8 * nodes. */
    uint64_t domain = nodes * CZ_FC_EXP_DEGREE;
    unsigned k = 1;
    while ((UINT64_C(1) << (2 * k)) < domain) k++;
    g->half_bits = k;
    g->right_mask = (UINT64_C(1) << k) - 1;
    return CZ_OK;
}

void cz_fc_graph_drg_parents(uint32_t out[CZ_FC_DRG_DEGREE], const cz_fc_graph *g, uint32_t node) {
    if (node < 2) {
        memset(out, 0, CZ_FC_DRG_DEGREE * sizeof out[0]);
        return;
    }
    /* Key = drg_seed || node u32 LE. */
    uint8_t key_bytes[32];
    memcpy(key_bytes, g->drg_seed, 28);
    for (int i = 0; i < 4; i++) key_bytes[28 + i] = (uint8_t)(node >> (8 * i));
    uint32_t key[8];
    for (int i = 0; i < 8; i++) key[i] = cz_chacha_load32_le(key_bytes + 4 * i);
    /* 5 parents x 2 draws x 8 bytes = 80 bytes: two keystream blocks. */
    uint32_t stream_words[32];
    /* rand_chacha ChaCha8Rng: 64-bit block counter in words 12..13, zero
     * stream id; a u64 draw is the next 8 keystream bytes LE. */
    cz_chacha_block(stream_words, key, 8, 0, 0, 0, 0);
    cz_chacha_block(stream_words + 16, key, 8, 1, 0, 0, 0);
    size_t next_word = 0;
#define DRAW_U64()                                                                                 \
    (next_word += 2,                                                                               \
     (uint64_t)stream_words[next_word - 2] | (uint64_t)stream_words[next_word - 1] << 32)

    const uint64_t m_prime = CZ_FC_DRG_DEGREE - 1;
    uint64_t meta = (uint64_t)node * m_prime;
    /* The reference computes ceil(log2(meta)) in f64; meta <= 5 * 2^32 is
     * exact in a double, and log2 of exact powers of two is exact. */
    uint64_t buckets = (uint64_t)ceil(log2((double)meta));
    uint32_t drawn[CZ_FC_DRG_DEGREE - 1];
    for (uint64_t i = 0; i < m_prime; i++) {
        uint64_t bucket = DRAW_U64() % buckets + 1;
        uint64_t largest =
            bucket >= 64 ? meta : (meta < (UINT64_C(1) << bucket) ? meta : UINT64_C(1) << bucket);
        uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
        uint64_t distance = smallest + DRAW_U64() % (largest - smallest + 1);
        uint64_t parent = (meta - distance) / m_prime;
        if (parent == node) parent = node - 1;
        drawn[i] = (uint32_t)parent;
    }
#undef DRAW_U64
    if (g->legacy) {
        memcpy(out, drawn, sizeof drawn);
        out[CZ_FC_DRG_DEGREE - 1] = node - 1;
    } else {
        out[0] = node - 1;
        memcpy(out + 1, drawn, sizeof drawn);
    }
}

void cz_fc_graph_exp_parents(uint32_t out[CZ_FC_EXP_DEGREE], const cz_fc_graph *g, uint32_t node) {
    for (uint64_t i = 0; i < CZ_FC_EXP_DEGREE; i++) {
        uint64_t a = (uint64_t)node * CZ_FC_EXP_DEGREE + i;
        out[i] = (uint32_t)(cz_fc_graph_feistel_permute(g, a) / CZ_FC_EXP_DEGREE);
    }
}

cz_status cz_fc_graph_identifier(char *out, size_t cap, uint64_t nodes, cz_error *err) {
    int n = snprintf(out, cap,
                     "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
                     "drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }",
                     (unsigned long long)nodes);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "graph identifier: buffer of %zu too small",
                            cap);
    return CZ_OK;
}

cz_status cz_fc_parent_cache_name(char *out, size_t cap, const cz_fc_graph *g, cz_error *err) {
    static const char hasher_name[] = "poseidon_hasher";
    uint8_t buf[512];
    size_t len = sizeof hasher_name - 1;
    memcpy(buf, hasher_name, len);
    cz_status st = cz_fc_graph_identifier((char *)buf + len, sizeof buf - len - 40, g->nodes, err);
    if (st != CZ_OK) return st;
    len += strlen((char *)buf + len);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++) buf[len++] = (uint8_t)(g->feistel_keys[k] >> (8 * i));
    uint32_t entries = (uint32_t)g->nodes; /* 2^32 nodes would wrap, as in the reference */
    for (int i = 0; i < 4; i++) buf[len++] = (uint8_t)(entries >> (8 * i));
    uint8_t digest[32];
    cz_fc_sha256(digest, buf, len);
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    int n = snprintf(out, cap, "v28-sdr-parent-%s", hex);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "parent cache name: buffer of %zu too small",
                            cap);
    return CZ_OK;
}

cz_status cz_fc_parent_cache_digest(uint8_t out[32], const cz_fc_graph *g, cz_error *err) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(ctx);
        return cz_error_set(err, CZ_E_NOMEM, "parent cache digest: SHA-256 context");
    }
    int ok = 1;
    for (uint64_t node = 0; node < g->nodes && ok; node++) {
        uint32_t parents[CZ_FC_PARENTS];
        cz_fc_graph_drg_parents(parents, g, (uint32_t)node);
        cz_fc_graph_exp_parents(parents + CZ_FC_DRG_DEGREE, g, (uint32_t)node);
        uint8_t entry[CZ_FC_PARENTS * 4];
        for (int i = 0; i < CZ_FC_PARENTS; i++)
            for (int b = 0; b < 4; b++) entry[4 * i + b] = (uint8_t)(parents[i] >> (8 * b));
        ok = EVP_DigestUpdate(ctx, entry, sizeof entry);
    }
    unsigned int len = 0;
    ok = ok && EVP_DigestFinal_ex(ctx, out, &len) && len == 32;
    EVP_MD_CTX_free(ctx);
    if (!ok) return cz_error_set(err, CZ_E_INTERNAL, "parent cache digest: SHA-256 failed");
    return CZ_OK;
}
