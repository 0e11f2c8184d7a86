/* SnapDeals: the EmptySectorUpdate proof (rust-fil-proofs
 * storage-proofs-update, filecoin-proofs api/update.rs). The Poseidon-hash
 * variant (storage-proofs-update src/poseidon) is not used in production and
 * is left out.
 *
 * A sector update replaces the data of a committed-capacity sector: every
 * node v of the new replica is sector_key[v] + data[v] * rho(v >> (dD - h)),
 * with rho(high) = P2c(phi, high), phi = P2c(comm_d_new, comm_r_old) (P2c:
 * Poseidon arity 2 with the Custom(1) tag 2^40). The proof has one Groth16
 * proof per partition (1, 4 or 16); partition k's circuit proves 10 or 86
 * challenged nodes whose indices follow from comm_r_new, so they lie in the
 * partition's node range and are not public inputs.
 *
 * Curio sends one bincode PartitionProof per partition (snap_vanilla.c
 * decodes, verifies, encodes and generates them; errors name the field and
 * the byte offset). */
#ifndef CZ_FILECOIN_SNAP_H
#define CZ_FILECOIN_SNAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "filecoin/common/merkle.h"
#include "gadgets/por.h"

/* ---- registered update proofs (Go abi.RegisteredUpdateProof) ----
 * 0-4 StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1 (api 1.1.0). */
#define CZ_SNAP_PROOF_ID_COUNT 5
/* The sector size of an id; CZ_E_UNSUPPORTED naming the id otherwise. */
cz_status cz_snap_proof_sector_size(uint64_t *out, uint64_t id, cz_error *err);
/* The id of a published sector size (CZ_E_UNSUPPORTED otherwise). */
cz_status cz_snap_proof_id(uint32_t *out, uint64_t sector_size, cz_error *err);
/* Go name, "StackedDrg32GiBV1" (static; "unknown" outside 0-4). */
const char *cz_snap_proof_name(uint32_t id);

/* Number of h values (hs) every circuit selects among. */
#define CZ_SNAP_HS 6

/* The circuit's configuration, a function of the node count (storage-
 * proofs-update constants.rs) and tree R's shape. */
typedef struct {
    uint64_t nodes;                 /* sector nodes, a power of two */
    cz_por_shape tree_r;            /* Poseidon base-sub-top */
    unsigned node_bits;             /* dD = log2(nodes) = tree D's depth */
    uint32_t partitions;            /* 1 (<= 2^8 nodes), 2 (<= 2^10), 4 (<= 2^19), else 16 */
    unsigned partition_bits;        /* pb = log2(partitions) */
    uint32_t challenges;            /* per partition: 10 (<= 2^19 nodes) or 86 */
    uint32_t apex_leaves;           /* A: 8 (<= 2^8 nodes) or 128 */
    unsigned apex_bits;             /* ab = log2(A) */
    unsigned random_bits;           /* rb = dD - pb: generated bits per challenge */
    unsigned challenges_per_digest; /* 254 / rb */
    uint32_t digests;               /* per partition: ceil(challenges / per digest) */
    unsigned hs[CZ_SNAP_HS];        /* [1;6] (<= 2^10 nodes) or [7..12] */
    unsigned h;                     /* hs[3], SectorUpdateConfig's default */
    unsigned h_select;              /* 1 << (first t with hs[t] == h) */
} cz_snap_config;

/* Any allowed shape (rust-fil-proofs' test sizes 1 KiB - 32 KiB use
 * 8-4-0, 8-0-0, 8-2-0, 8-4-0, 8-8-0, 8-8-2): nodes a power of two from 2^5
 * to 2^31 that the tree fills exactly. */
cz_status cz_snap_config_make(cz_snap_config *out, uint64_t nodes, unsigned base_arity,
                              unsigned sub_arity, unsigned top_arity, cz_error *err);
/* The published sector sizes' configurations (tree R as PoRep's). */
cz_status cz_snap_config_from_sector(cz_snap_config *out, uint64_t sector_size, cz_error *err);

/* Bytes of one encoded PartitionProof (561,768 at 32 GiB). */
size_t cz_snap_encoded_size(const cz_snap_config *cfg);

/* The parameter-cache identifier ("empty_sector_update::PublicParams{
 * sector_nodes: 1073741824 }") and file stem
 * ("v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-<hex>"). */
cz_status cz_snap_param_identifier(char *out, size_t cap, const cz_snap_config *cfg, cz_error *err);
cz_status cz_snap_param_file_stem(char *out, size_t cap, const cz_snap_config *cfg, cz_error *err);

/* ---- derivations (native) ---- */

/* P2c(x, y): Poseidon arity 2 with the Custom(1) domain tag 2^40. */
cz_status cz_snap_hash_gen(cz_fr *out, const cz_fr *x, const cz_fr *y);
/* phi = P2c(comm_d_new, comm_r_old). */
cz_status cz_snap_phi(cz_fr *out, const cz_fr *comm_d_new, const cz_fr *comm_r_old);
/* rho(high) = P2c(phi, Fr(high)). */
cz_status cz_snap_rho(cz_fr *out, const cz_fr *phi, uint64_t high);
/* The high bits of node v that select its rho: v >> (dD - h). */
static inline uint64_t cz_snap_rho_index(const cz_snap_config *cfg, uint64_t node) {
    return node >> (cfg->node_bits - cfg->h);
}
/* Challenges::new(nodes, comm_r_new, k): cfg->challenges node indices of
 * partition k, in order. CZ_E_INVALID_ARG for k >= partitions. */
cz_status cz_snap_challenges(uint64_t *out, const cz_snap_config *cfg, const cz_fr *comm_r_new,
                             uint32_t partition, cz_error *err);

/* The public values of one update. */
typedef struct {
    cz_fr comm_r_old, comm_d_new, comm_r_new;
} cz_snap_comms;

/* The 32-byte commitments of a request: each a canonical Fr
 * (as_safe_commitment); CZ_E_INVALID_ARG naming the field otherwise. */
cz_status cz_snap_comms_from_bytes(cz_snap_comms *out, const uint8_t *comm_r_old,
                                   size_t comm_r_old_len, const uint8_t *comm_d_new,
                                   size_t comm_d_new_len, const uint8_t *comm_r_new,
                                   size_t comm_r_new_len, cz_error *err);

/* Public inputs of partition k without ONE, as the verifier computes them
 * (EmptySectorUpdateCompound::generate_public_inputs): out[0] = k |
 * (h_select << pb), then comm_r_old, comm_d_new, comm_r_new. */
#define CZ_SNAP_PUBLIC_INPUTS 4
cz_status cz_snap_public_inputs(cz_fr out[CZ_SNAP_PUBLIC_INPUTS], const cz_snap_config *cfg,
                                const cz_snap_comms *comms, uint32_t partition, cz_error *err);

/* ---- vanilla partition proofs (snap_vanilla.c) ---- */

/* ChallengeProof: tree R old, tree D new (binary SHA-256, dD levels), tree
 * R new. */
typedef struct {
    cz_fc_merkle_proof r_old, d_new, r_new;
} cz_snap_challenge_proof;

/* PartitionProof (storage-proofs-update vanilla.rs). */
typedef struct {
    cz_fr comm_c;
    cz_fr *apex_leaves;          /* cfg->apex_leaves */
    cz_snap_challenge_proof *ch; /* cfg->challenges */
    cz_fr *pool;                 /* owns apex leaves and siblings */
} cz_snap_partition_proof;

/* Tree D's shape: SHA-256, binary, cfg->node_bits levels. */
cz_por_shape cz_snap_tree_d(const cz_snap_config *cfg);

/* Allocates p for cfg (zero values). */
cz_status cz_snap_proof_alloc(cz_snap_partition_proof *p, const cz_snap_config *cfg, cz_error *err);
void cz_snap_proof_free(cz_snap_partition_proof *p);
/* Decodes one bincode PartitionProof (u64 LE lengths, u32 LE MerkleProof
 * tags: Single / Sub / Top as tree R has no sub level / a sub level / a top
 * level, tree D always Single; exact lengths, path indices below the arity,
 * canonical domains, no trailing bytes). CZ_E_PARSE with the field and the
 * byte offset ("partition_proof.challenge_proofs[3].proof_d_new.path[2]
 * .hashes at byte 9000: length 2, expected 1"). */
cz_status cz_snap_decode(cz_snap_partition_proof *out, const cz_snap_config *cfg,
                         const uint8_t *data, size_t len, cz_error *err);
/* The bincode bytes (*out malloc'ed): inverse of cz_snap_decode. */
cz_status cz_snap_encode(uint8_t **out, size_t *len, const cz_snap_config *cfg,
                         const cz_snap_partition_proof *p, cz_error *err);

/* Everything EmptySectorUpdate::verify checks for partition k: comm_r_old
 * = P2(comm_c, root_r_old) and comm_r_new = P2(comm_c, root_r_new); the
 * apex tree of the apex leaves; per challenge c (cz_snap_challenges): all
 * three proofs prove node c, hash to their roots (root_r_old, comm_d_new,
 * root_r_new), leaf_r_new = leaf_r_old + leaf_d_new * rho(c), and tree D's
 * apex-row siblings lie in the apex tree. Stricter where the circuit relies
 * on it: every challenge's roots are root_r_old / root_r_new of challenge 0
 * and its tree D path ends in the same partition path. CZ_E_INVALID_ARG
 * naming the challenge. */
cz_status cz_snap_vanilla_verify(const cz_snap_config *cfg, const cz_snap_comms *comms,
                                 uint32_t partition, const cz_snap_partition_proof *p,
                                 cz_error *err);

/* ---- synthetic updates (snap_vanilla.c) ----
 * A sparse sector key (every leaf key_leaf), new data (every node
 * data_leaf) and the new replica key + data * rho(v) at every node (so the
 * encoding holds everywhere and comm_r_new needs no challenge): trees built
 * per level from default nodes, rho blocks as piecewise-constant subtrees.
 * All partitions' vanilla proofs (out: cfg->partitions, free each). */
typedef struct {
    cz_fr comm_c, key_leaf, data_leaf; /* data_leaf must be below 2^254 */
} cz_snap_gen_opts;
cz_status cz_snap_gen(cz_snap_partition_proof *out, cz_snap_comms *comms, const cz_snap_config *cfg,
                      const cz_snap_gen_opts *opts, cz_error *err);

/* Default options from a seed: comm_c, key and data leaves
 * fr32_mask(SHA256("cuzk gen snap " tag || seed LE)). */
void cz_snap_gen_opts_from_seed(cz_snap_gen_opts *out, uint64_t seed);

/* Frees n proofs and the array. */
void cz_snap_proofs_free(cz_snap_partition_proof *proofs, uint32_t n);

/* ---- request files (snap_request.c) ----
 * What `cuzk gen snap` writes and `cuzk prove --snap` / `cuzk verify
 * --snap` read: the fields of a SNAP_DEALS_UPDATE Prove request as one
 * JSON object:
 *   {"kind": "snap-update", "registered_proof": 3, "sector_size": 34359738368,
 *    "comm_r_old": "<64 hex>", "comm_d_new": "<64 hex>", "comm_r_new": "<64 hex>",
 *    "vanilla_proofs": ["<standard base64 of one PartitionProof>", ...]} */
typedef struct {
    uint32_t registered_proof;
    uint64_t sector_size;
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
    uint32_t n_proofs;
    uint8_t **proofs; /* n_proofs buffers (owned) */
    size_t *proof_lens;
} cz_snap_request;

cz_status cz_snap_request_write_json(FILE *out, const cz_snap_request *req, cz_error *err);
/* CZ_E_PARSE naming the key for a malformed or missing field. */
cz_status cz_snap_request_parse_json(cz_snap_request *out, const uint8_t *data, size_t len,
                                     cz_error *err);
void cz_snap_request_free(cz_snap_request *req);

/* Every check a SnapDeals request needs before proving (CZ_E_INVALID_ARG
 * with a precise message): the registered update proof (0-4) and, when
 * sector_size is not 0, that it matches; the three commitments 32 canonical
 * bytes each; exactly one vanilla proof per partition, each decoding for the
 * size ("vanilla_proofs[3] (561700 bytes, a StackedDrg32GiBV1 partition proof
 * has 561768): ..."); with verify, each passing cz_snap_vanilla_verify for
 * its partition. Out: the configuration, the commitments and the decoded
 * proofs (cz_snap_proofs_free(*proofs, cfg->partitions)). */
cz_status cz_snap_request_decode(cz_snap_config *cfg, cz_snap_comms *comms,
                                 cz_snap_partition_proof **proofs, uint32_t registered_proof,
                                 uint64_t sector_size, const uint8_t *const *bytes,
                                 const size_t *lens, uint32_t count, const uint8_t *comm_r_old,
                                 size_t comm_r_old_len, const uint8_t *comm_d_new,
                                 size_t comm_d_new_len, const uint8_t *comm_r_new,
                                 size_t comm_r_new_len, int verify, cz_error *err);

#endif
