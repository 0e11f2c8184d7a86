/* Registered PoRep proofs and parameter file names (see registry.h). */
#include "filecoin/common/registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filecoin/common/derive.h"

const uint64_t cz_fc_sector_sizes[CZ_FC_SECTOR_SIZE_COUNT] = {
    UINT64_C(2) << 10, UINT64_C(8) << 20, UINT64_C(512) << 20, UINT64_C(32) << 30,
    UINT64_C(64) << 30};

/* One row per published size, same order as cz_fc_sector_sizes. The test
 * sizes (2 KiB .. 512 MiB) use 2 layers and 2 challenges in 1 partition; the
 * production sizes 11 layers and 176 challenges over 10 partitions (18 each,
 * rounded up). */
static const cz_fc_sector_info sector_table[CZ_FC_SECTOR_SIZE_COUNT] = {
    {UINT64_C(2) << 10, UINT64_C(1) << 6, 2, 1, 2, 8, 0, 0, 6},
    {UINT64_C(8) << 20, UINT64_C(1) << 18, 2, 1, 2, 8, 0, 0, 18},
    {UINT64_C(512) << 20, UINT64_C(1) << 24, 2, 1, 2, 8, 0, 0, 24},
    {UINT64_C(32) << 30, UINT64_C(1) << 30, 11, 10, 18, 8, 8, 0, 30},
    {UINT64_C(64) << 30, UINT64_C(1) << 31, 11, 10, 18, 8, 8, 2, 31},
};

static const char *const size_names[CZ_FC_SECTOR_SIZE_COUNT] = {"2KiB", "8MiB", "512MiB", "32GiB",
                                                                "64GiB"};
static const char *const short_names[CZ_FC_SECTOR_SIZE_COUNT] = {"2k", "8m", "512m", "32g", "64g"};

/* Names of ids 0..14: 5 sizes for each of the three families. */
static const char *const proof_names[CZ_FC_PROOF_ID_COUNT] = {
    "StackedDrg2KiBV1",
    "StackedDrg8MiBV1",
    "StackedDrg512MiBV1",
    "StackedDrg32GiBV1",
    "StackedDrg64GiBV1",
    "StackedDrg2KiBV1_1",
    "StackedDrg8MiBV1_1",
    "StackedDrg512MiBV1_1",
    "StackedDrg32GiBV1_1",
    "StackedDrg64GiBV1_1",
    "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
};

const char *cz_fc_api_version_name(cz_fc_api_version api_version) {
    switch (api_version) {
    case CZ_FC_API_V1_0_0: return "1.0.0";
    case CZ_FC_API_V1_1_0: return "1.1.0";
    case CZ_FC_API_V1_2_0: return "1.2.0";
    }
    return "unknown";
}

void cz_fc_porep_id(uint8_t out[32], uint64_t id) {
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(id >> (8 * i));
    /* bytes 8..15: nonce, always 0; bytes 16..31: zero. */
}

static int sector_index(uint64_t sector_size) {
    for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++)
        if (sector_table[i].sector_size == sector_size) return i;
    return -1;
}

const char *cz_fc_sector_short_name(uint64_t sector_size) {
    int i = sector_index(sector_size);
    return i < 0 ? NULL : short_names[i];
}

cz_status cz_fc_sector_size_parse(uint64_t *out, const char *text, cz_error *err) {
    for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++)
        if (!strcasecmp(text, size_names[i])) return *out = cz_fc_sector_sizes[i], CZ_OK;
    char *end = NULL;
    errno = 0;
    unsigned long long v = (text[0] >= '0' && text[0] <= '9') ? strtoull(text, &end, 10) : 0;
    if (!end || *end || errno)
        return cz_error_set(err, CZ_E_PARSE,
                            "sector size '%s': expected 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or a "
                            "byte count",
                            text);
    *out = v;
    return sector_index(v) < 0 ? cz_fc_sector_lookup(&(cz_fc_sector_info){0}, v, err) : CZ_OK;
}

cz_status cz_fc_sector_lookup(cz_fc_sector_info *out, uint64_t sector_size, cz_error *err) {
    int i = sector_index(sector_size);
    if (i < 0)
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "sector size %llu bytes is not a published Filecoin sector size "
                            "(2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB)",
                            (unsigned long long)sector_size);
    *out = sector_table[i];
    return CZ_OK;
}

cz_status cz_fc_proof_lookup(cz_fc_proof_info *out, uint32_t id, cz_error *err) {
    if (id >= 15 && id <= 19)
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "registered proof %u (NonInteractivePoRep) is not supported", id);
    if (id >= CZ_FC_PROOF_ID_COUNT)
        return cz_error_set(err, CZ_E_UNSUPPORTED, "unknown registered proof id %u", id);
    memset(out, 0, sizeof *out);
    out->id = id;
    out->name = proof_names[id];
    out->api_version = (cz_fc_api_version)(id / 5);
    out->synthetic = id >= 10;
    cz_fc_porep_id(out->porep_id, id);
    out->sector = sector_table[id % 5];
    return CZ_OK;
}

cz_status cz_fc_proof_lookup_by_name(cz_fc_proof_info *out, const char *name, size_t len,
                                     cz_error *err) {
    for (uint32_t id = 0; id < CZ_FC_PROOF_ID_COUNT; id++)
        if (strlen(proof_names[id]) == len && memcmp(proof_names[id], name, len) == 0)
            return cz_fc_proof_lookup(out, id, err);
    if (len >= 29 && memcmp(name + len - 29, "V1_2_Feat_NonInteractivePoRep", 29) == 0)
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "registered proof \"%.*s\" (NonInteractivePoRep) is not supported",
                            (int)(len > 60 ? 60 : len), name);
    return cz_error_set(err, CZ_E_UNSUPPORTED, "unknown registered proof \"%.*s\"",
                        (int)(len > 60 ? 60 : len), name);
}

cz_status cz_fc_proof_lookup_by_size(cz_fc_proof_info *out, uint64_t sector_size,
                                     cz_fc_api_version api_version, int synthetic, cz_error *err) {
    int i = sector_index(sector_size);
    if (i < 0) return cz_fc_sector_lookup(&out->sector, sector_size, err);
    uint32_t family;
    if (api_version == CZ_FC_API_V1_0_0 && !synthetic)
        family = 0;
    else if (api_version == CZ_FC_API_V1_1_0 && !synthetic)
        family = 1;
    else if (api_version == CZ_FC_API_V1_2_0 && synthetic)
        family = 2;
    else
        return cz_error_set(err, CZ_E_UNSUPPORTED, "no registered %s proof with api version %s%s",
                            size_names[i], cz_fc_api_version_name(api_version),
                            synthetic ? " and SyntheticPoRep" : " without SyntheticPoRep");
    return cz_fc_proof_lookup(out, family * 5 + (uint32_t)i, err);
}

cz_status cz_fc_param_identifier(char *out, size_t cap, const cz_fc_sector_info *sector,
                                 cz_error *err) {
    int n = snprintf(out, cap,
                     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                     "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %llu; degree: "
                     "6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: %u, "
                     "max_count: %u }, tree: merkletree-poseidon_hasher-%u-%u-%u }",
                     (unsigned long long)sector->nodes, sector->layers,
                     sector->challenges_per_partition, sector->tree_base_arity,
                     sector->tree_sub_arity, sector->tree_top_arity);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "param identifier: buffer of %zu too small",
                            cap);
    return CZ_OK;
}

cz_status cz_fc_param_file_stem(char *out, size_t cap, const cz_fc_sector_info *sector,
                                cz_error *err) {
    char ident[512];
    cz_status st = cz_fc_param_identifier(ident, sizeof ident, sector, err);
    if (st != CZ_OK) return st;
    uint8_t digest[32];
    cz_fc_sha256(digest, ident, strlen(ident));
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    int n = snprintf(out, cap,
                     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-%u-%u-%u-"
                     "sha256_hasher-%s",
                     sector->tree_base_arity, sector->tree_sub_arity, sector->tree_top_arity, hex);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "param file stem: buffer of %zu too small", cap);
    return CZ_OK;
}
