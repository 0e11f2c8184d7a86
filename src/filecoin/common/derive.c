/* Replica id and empty-sector comm_d (see derive.h). */
#include "filecoin/common/derive.h"

#include <string.h>

#include <openssl/evp.h>

void cz_fc_sha256(uint8_t out[32], const void *data, size_t len) {
    unsigned int out_len = 0;
    /* EVP_Digest only fails on allocation failure inside OpenSSL; the
     * output is then zeroed so that a failure cannot pass as a digest. */
    if (!EVP_Digest(data, len, out, &out_len, EVP_sha256(), NULL) || out_len != 32)
        memset(out, 0, 32);
}

void cz_fc_sha256_hex(char out[65], const char *text) {
    static const char digits[] = "0123456789abcdef";
    uint8_t digest[32];
    cz_fc_sha256(digest, text, strlen(text));
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 15];
    }
    out[64] = 0;
}

void cz_fc_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]) {
    uint8_t buf[64];
    memcpy(buf, left, 32);
    memcpy(buf + 32, right, 32);
    cz_fc_sha256(out, buf, sizeof buf);
    cz_fc_fr32_mask(out);
}

void cz_fc_prover_id(uint8_t out[32], uint64_t miner_id) {
    memset(out, 0, 32);
    /* Unsigned LEB128: 7 bits per byte, low group first, high bit = more
     * bytes follow; at most 10 bytes for a u64. */
    int i = 0;
    do {
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        if (miner_id) b |= 0x80;
        out[i++] = b;
    } while (miner_id);
}

void cz_fc_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                      const uint8_t ticket[32], const uint8_t comm_d[32],
                      const uint8_t porep_id[32]) {
    uint8_t buf[32 + 8 + 32 + 32 + 32];
    memcpy(buf, prover_id, 32);
    for (int i = 0; i < 8; i++) buf[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i)); /* big-endian */
    memcpy(buf + 40, ticket, 32);
    memcpy(buf + 72, comm_d, 32);
    memcpy(buf + 104, porep_id, 32);
    cz_fc_sha256(out, buf, sizeof buf);
    cz_fc_fr32_mask(out);
}

cz_status cz_fc_empty_comm_d(uint8_t out[32], uint64_t sector_size, cz_error *err) {
    if (sector_size < 64 || sector_size > (UINT64_C(1) << 40) ||
        (sector_size & (sector_size - 1)) != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "empty comm_d: sector size %llu is not a power of two in [64, 2^40]",
                            (unsigned long long)sector_size);
    uint64_t leaves = sector_size / 32;
    /* Invariant: node holds the value of every node of the current level. */
    uint8_t node[32] = {0};
    for (; leaves > 1; leaves >>= 1) cz_fc_sha256_node(node, node, node);
    memcpy(out, node, 32);
    return CZ_OK;
}

/* (little-endian 256-bit integer in bytes) mod m, for 0 < m < 2^63: Horner
 * from the most significant byte keeps every intermediate below 2^71, so it
 * is done in unsigned __int128. */
static uint64_t le256_mod(const uint8_t bytes[32], uint64_t m) {
    unsigned __int128 acc = 0;
    for (int i = 31; i >= 0; i--) acc = ((acc << 8) | bytes[i]) % m;
    return (uint64_t)acc;
}

cz_status cz_fc_interactive_challenges(uint64_t *out, size_t count, const uint8_t replica_id[32],
                                       const uint8_t seed[32], uint64_t nodes, uint32_t partition,
                                       cz_error *err) {
    if (nodes < 2 || nodes > (UINT64_C(1) << 62))
        return cz_error_set(err, CZ_E_INVALID_ARG, "challenges: %llu nodes out of range",
                            (unsigned long long)nodes);
    if (count != 0 && (uint64_t)partition * count + count - 1 > UINT32_MAX)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "challenges: partition %u x %zu overflows the u32 index", partition,
                            count);
    uint8_t buf[68], h[32];
    memcpy(buf, replica_id, 32);
    memcpy(buf + 32, seed, 32);
    for (size_t i = 0; i < count; i++) {
        uint32_t j = (uint32_t)(partition * count + i);
        for (int b = 0; b < 4; b++) buf[64 + b] = (uint8_t)(j >> (8 * b));
        cz_fc_sha256(h, buf, sizeof buf);
        out[i] = le256_mod(h, nodes - 1) + 1;
    }
    return CZ_OK;
}
