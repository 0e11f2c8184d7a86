/* Filecoin sealing registry: the registered PoRep proof ids, their sector
 * geometry and the derived names (porep_id, Groth16 parameter file names).
 *
 * The numbers are facts of the Filecoin network (rust-fil-proofs
 * filecoin-proofs/src/constants.rs and api/src/registry.rs, Go
 * abi.RegisteredSealProof). */
#ifndef CZ_FILECOIN_REGISTRY_H
#define CZ_FILECOIN_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef enum {
    CZ_FC_API_V1_0_0 = 0, /* legacy graph: DRG "node - 1" parent in the last slot */
    CZ_FC_API_V1_1_0 = 1,
    CZ_FC_API_V1_2_0 = 2
} cz_fc_api_version;

/* Per-sector-size geometry; identical for every proof id of that size. */
typedef struct {
    uint64_t sector_size;              /* bytes */
    uint64_t nodes;                    /* sector_size / 32 */
    uint32_t layers;                   /* SDR layers */
    uint32_t partitions;               /* interactive / synthetic PoRep */
    uint32_t challenges_per_partition; /* interactive / synthetic PoRep */
    uint32_t tree_base_arity;          /* tree R / C shape base-sub-top */
    uint32_t tree_sub_arity;           /* 0 when absent */
    uint32_t tree_top_arity;           /* 0 when absent */
    uint32_t tree_d_depth;             /* log2(nodes): binary SHA-256 tree D */
} cz_fc_sector_info;

typedef struct {
    uint32_t id;      /* RegisteredSealProof numeric value, 0..14 */
    const char *name; /* "StackedDrg2KiBV1", ... (static storage) */
    cz_fc_api_version api_version;
    int synthetic;        /* 1 for the *_Feat_SyntheticPoRep ids */
    uint8_t porep_id[32]; /* id u64 LE || nonce 0 u64 LE || 16 zero bytes */
    cz_fc_sector_info sector;
} cz_fc_proof_info;

/* The published sector sizes, in increasing order. */
#define CZ_FC_SECTOR_SIZE_COUNT 5
extern const uint64_t cz_fc_sector_sizes[CZ_FC_SECTOR_SIZE_COUNT];

/* The short name of a published sector size in circuit ids ("2k", "8m",
 * "512m", "32g", "64g": the engine's "porep-32g", "window-post-2k"); NULL
 * for other sizes. */
const char *cz_fc_sector_short_name(uint64_t sector_size);

/* Number of supported registered proof ids (0..CZ_FC_PROOF_ID_COUNT-1). */
#define CZ_FC_PROOF_ID_COUNT 15

/* Parses a sector size as users write it: a published size's name
 * ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB", any letter case) or its byte
 * count in decimal. CZ_E_PARSE for text that is neither, CZ_E_UNSUPPORTED
 * for a byte count that is not a published size; the message lists them. */
cz_status cz_fc_sector_size_parse(uint64_t *out, const char *text, cz_error *err);

/* Geometry of a published sector size; CZ_E_UNSUPPORTED for others. */
cz_status cz_fc_sector_lookup(cz_fc_sector_info *out, uint64_t sector_size, cz_error *err);

/* Everything about a registered proof id; CZ_E_UNSUPPORTED for ids outside
 * 0..14 (15..19, NI-PoRep, are known but out of scope and reported as such). */
cz_status cz_fc_proof_lookup(cz_fc_proof_info *out, uint32_t id, cz_error *err);

/* The proof id for (sector size, api version, synthetic). V1_0_0 and V1_1_0
 * require synthetic = 0; V1_2_0 requires synthetic = 1. */
/* By Rust enum name ("StackedDrg32GiBV1_1"), len bytes of name (not NUL-terminated). */
cz_status cz_fc_proof_lookup_by_name(cz_fc_proof_info *out, const char *name, size_t len,
                                     cz_error *err);
cz_status cz_fc_proof_lookup_by_size(cz_fc_proof_info *out, uint64_t sector_size,
                                     cz_fc_api_version api_version, int synthetic, cz_error *err);

/* porep_id of any u64 id (no range check): id LE || 0 u64 || 16 zero bytes. */
void cz_fc_porep_id(uint8_t out[32], uint64_t id);

/* "x.y.z" for an api version. Never NULL. */
const char *cz_fc_api_version_name(cz_fc_api_version api_version);

/* The parameter-cache identifier string (VERSION 28 StackedDrg public
 * params), e.g. "layered_drgporep::PublicParams{ graph: ... }". Writes a
 * NUL-terminated string; CZ_E_INVALID_ARG when cap is too small. */
cz_status cz_fc_param_identifier(char *out, size_t cap, const cz_fc_sector_info *sector,
                                 cz_error *err);

/* The parameter file stem (append ".params" / ".vk"):
 * "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-B-S-T-sha256_hasher-<hex>"
 * where <hex> = SHA-256 of the identifier above. */
cz_status cz_fc_param_file_stem(char *out, size_t cap, const cz_fc_sector_info *sector,
                                cz_error *err);

#endif
