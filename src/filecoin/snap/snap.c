/* SnapDeals registry, configuration, derivations and public inputs; see
 * snap.h. */
#include "filecoin/snap/snap.h"

#include <stdio.h>
#include <string.h>

#include "filecoin/common/derive.h"
#include "filecoin/common/registry.h"
#include "hash/poseidon.h"

static const char *const proof_names[CZ_SNAP_PROOF_ID_COUNT] = {
    "StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1",
    "StackedDrg64GiBV1"};

const char *cz_snap_proof_name(uint32_t id) {
    return id < CZ_SNAP_PROOF_ID_COUNT ? proof_names[id] : "unknown";
}

cz_status cz_snap_proof_sector_size(uint64_t *out, uint64_t id, cz_error *err) {
    if (id >= CZ_SNAP_PROOF_ID_COUNT)
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "registered update proof %llu is unknown (0-4: StackedDrg2KiBV1 .. "
                            "StackedDrg64GiBV1)",
                            (unsigned long long)id);
    *out = cz_fc_sector_sizes[id];
    return CZ_OK;
}

cz_status cz_snap_proof_id(uint32_t *out, uint64_t sector_size, cz_error *err) {
    for (uint32_t i = 0; i < CZ_SNAP_PROOF_ID_COUNT; i++)
        if (cz_fc_sector_sizes[i] == sector_size) return *out = i, CZ_OK;
    return cz_error_set(err, CZ_E_UNSUPPORTED, "no registered update proof for %llu-byte sectors",
                        (unsigned long long)sector_size);
}

static unsigned log2_u64(uint64_t v) {
    unsigned k = 0;
    while (v > 1) v >>= 1, k++;
    return k;
}

cz_status cz_snap_config_make(cz_snap_config *out, uint64_t nodes, unsigned base_arity,
                              unsigned sub_arity, unsigned top_arity, cz_error *err) {
    memset(out, 0, sizeof *out);
    if (nodes < 32 || nodes > ((uint64_t)1 << 31) || (nodes & (nodes - 1)))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "snap config: %llu nodes (a power of two from 2^5 to 2^31)",
                            (unsigned long long)nodes);
    if (cz_por_shape_make(&out->tree_r, CZ_POR_POSEIDON, base_arity, sub_arity, top_arity, nodes) !=
        CZ_OK)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap config: no tree %u-%u-%u over %llu leaves",
                            base_arity, sub_arity, top_arity, (unsigned long long)nodes);
    /* storage-proofs-update constants.rs: partition_count, challenge_count,
     * apex_leaf_count, hs */
    out->nodes = nodes;
    out->node_bits = log2_u64(nodes);
    out->partitions = nodes <= (1u << 8)    ? 1
                      : nodes <= (1u << 10) ? 2
                      : nodes <= (1u << 19) ? 4
                                            : 16;
    out->partition_bits = log2_u64(out->partitions);
    out->challenges = nodes <= (1u << 19) ? 10 : 86;
    out->apex_leaves = nodes <= (1u << 8) ? 8 : 128;
    out->apex_bits = log2_u64(out->apex_leaves);
    out->random_bits = out->node_bits - out->partition_bits;
    out->challenges_per_digest = 254 / out->random_bits;
    out->digests = (out->challenges + out->challenges_per_digest - 1) / out->challenges_per_digest;
    for (unsigned t = 0; t < CZ_SNAP_HS; t++) out->hs[t] = nodes <= (1u << 10) ? 1 : 7 + t;
    out->h = out->hs[3];
    unsigned first = 0;
    while (out->hs[first] != out->h) first++;
    out->h_select = 1u << first;
    if (out->partition_bits + out->apex_bits > out->node_bits)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap config: %llu nodes hold no apex tree",
                            (unsigned long long)nodes);
    return CZ_OK;
}

cz_status cz_snap_config_from_sector(cz_snap_config *out, uint64_t sector_size, cz_error *err) {
    cz_fc_sector_info s;
    cz_status st = cz_fc_sector_lookup(&s, sector_size, err);
    if (st != CZ_OK) return st;
    return cz_snap_config_make(out, s.nodes, s.tree_base_arity, s.tree_sub_arity, s.tree_top_arity,
                               err);
}

cz_por_shape cz_snap_tree_d(const cz_snap_config *cfg) {
    cz_por_shape s = {CZ_POR_SHA256, 2, cfg->node_bits, 0, 0};
    return s;
}

size_t cz_snap_encoded_size(const cz_snap_config *cfg) {
    cz_por_shape d = cz_snap_tree_d(cfg);
    return 32 + 8 + 32 * (size_t)cfg->apex_leaves + 8 +
           cfg->challenges * (2 * cz_fc_merkle_size(&cfg->tree_r) + cz_fc_merkle_size(&d));
}

cz_status cz_snap_param_identifier(char *out, size_t cap, const cz_snap_config *cfg,
                                   cz_error *err) {
    int n = snprintf(out, cap, "empty_sector_update::PublicParams{ sector_nodes: %llu }",
                     (unsigned long long)cfg->nodes);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap param identifier: buffer too small");
    return CZ_OK;
}

cz_status cz_snap_param_file_stem(char *out, size_t cap, const cz_snap_config *cfg, cz_error *err) {
    char ident[128];
    cz_status st = cz_snap_param_identifier(ident, sizeof ident, cfg, err);
    if (st != CZ_OK) return st;
    char hex[65];
    cz_fc_sha256_hex(hex, ident);
    int n = snprintf(out, cap, "v28-empty-sector-update-merkletree-poseidon_hasher-%u-%u-%u-%s",
                     cfg->tree_r.base_arity, cfg->tree_r.sub_arity, cfg->tree_r.top_arity, hex);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap param file stem: buffer too small");
    return CZ_OK;
}

/* ------------------------------------------------------------ derivations */

cz_status cz_snap_hash_gen(cz_fr *out, const cz_fr *x, const cz_fr *y) {
    cz_fr in[2] = {*x, *y}, tag;
    cz_fr_from_u64(&tag, (uint64_t)1 << 40); /* HashType::Custom(CType::Arbitrary(1)) */
    return cz_poseidon_hash_tag(out, in, 2, &tag);
}

cz_status cz_snap_phi(cz_fr *out, const cz_fr *comm_d_new, const cz_fr *comm_r_old) {
    return cz_snap_hash_gen(out, comm_d_new, comm_r_old);
}

cz_status cz_snap_rho(cz_fr *out, const cz_fr *phi, uint64_t high) {
    cz_fr h;
    cz_fr_from_u64(&h, high);
    return cz_snap_hash_gen(out, phi, &h);
}

cz_status cz_snap_challenges(uint64_t *out, const cz_snap_config *cfg, const cz_fr *comm_r_new,
                             uint32_t partition, cz_error *err) {
    if (partition >= cfg->partitions)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap: partition %u of %u", partition,
                            cfg->partitions);
    const unsigned rb = cfg->random_bits;
    uint32_t done = 0;
    for (uint32_t j = 0; j < cfg->digests; j++) {
        cz_fr index, digest;
        cz_fr_from_u64(&index, (uint64_t)partition * cfg->digests + j);
        cz_status st = cz_snap_hash_gen(&digest, comm_r_new, &index);
        if (st != CZ_OK) return cz_error_set(err, st, "snap challenges: poseidon failed");
        uint64_t limbs[CZ_FR_LIMBS];
        cz_fr_to_limbs(limbs, &digest);
        for (unsigned i = 0; i < cfg->challenges_per_digest && done < cfg->challenges; i++) {
            uint64_t c = 0;
            for (unsigned t = 0; t < rb; t++) {
                unsigned b = i * rb + t;
                c |= ((limbs[b / 64] >> (b % 64)) & 1) << t;
            }
            out[done++] = c | ((uint64_t)partition << rb);
        }
    }
    return CZ_OK;
}

static cz_status comm_from_bytes(cz_fr *out, const uint8_t *b, size_t len, const char *name,
                                 cz_error *err) {
    if (len != 32)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: %zu bytes, expected 32", name, len);
    if (!cz_fr_from_bytes_le(out, b))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s is not a canonical field element (byte 31 = 0x%02x)", name, b[31]);
    return CZ_OK;
}

cz_status cz_snap_comms_from_bytes(cz_snap_comms *out, const uint8_t *comm_r_old,
                                   size_t comm_r_old_len, const uint8_t *comm_d_new,
                                   size_t comm_d_new_len, const uint8_t *comm_r_new,
                                   size_t comm_r_new_len, cz_error *err) {
    cz_status st;
    if ((st = comm_from_bytes(&out->comm_r_old, comm_r_old, comm_r_old_len, "comm_r_old", err)) !=
            CZ_OK ||
        (st = comm_from_bytes(&out->comm_d_new, comm_d_new, comm_d_new_len, "comm_d_new", err)) !=
            CZ_OK ||
        (st = comm_from_bytes(&out->comm_r_new, comm_r_new, comm_r_new_len, "comm_r_new", err)) !=
            CZ_OK)
        return st;
    return CZ_OK;
}

cz_status cz_snap_public_inputs(cz_fr out[CZ_SNAP_PUBLIC_INPUTS], const cz_snap_config *cfg,
                                const cz_snap_comms *comms, uint32_t partition, cz_error *err) {
    if (partition >= cfg->partitions)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap public inputs: partition %u of %u",
                            partition, cfg->partitions);
    cz_fr_from_u64(&out[0], partition | ((uint64_t)cfg->h_select << cfg->partition_bits));
    out[1] = comms->comm_r_old;
    out[2] = comms->comm_d_new;
    out[3] = comms->comm_r_new;
    return CZ_OK;
}
