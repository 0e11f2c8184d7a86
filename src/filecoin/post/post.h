/* Filecoin fallback PoSt: WinningPoSt and WindowPoSt (rust-fil-proofs
 * storage-proofs-post/src/fallback, filecoin-proofs api/post_util.rs).
 *
 * One circuit (FallbackPoStCircuit) serves both kinds: `sector_count`
 * slots, each proving `challenge_count` Merkle inclusions in one sector's
 * tree R. WinningPoSt is 66 slots x 1 challenge, all slots the same sector
 * (its 66 vanilla inclusion proofs unrolled); WindowPoSt is 2349 (32 GiB),
 * 2300 (64 GiB) or 2 (test sizes) slots x 10 challenges, one per sector of a
 * partition, the last one repeated when the partition has fewer sectors.
 *
 * Vanilla proofs arrive as Curio sends them: one bincode
 * FallbackPoStSectorProof per sector (post_vanilla.c decodes, verifies,
 * encodes and generates them; errors name the field and the byte offset).
 * The randomness, prover id and sector ids never enter the R1CS; they decide
 * which leaves are challenged and so the public inputs. */
#ifndef CZ_FILECOIN_POST_H
#define CZ_FILECOIN_POST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "filecoin/common/merkle.h"
#include "filecoin/common/registry.h"
#include "gadgets/por.h"

typedef enum { CZ_POST_WINNING = 0, CZ_POST_WINDOW = 1 } cz_post_kind;

/* "winning" / "window". Never NULL. */
const char *cz_post_kind_name(cz_post_kind kind);

/* WINNING_POST_CHALLENGE_COUNT, WINDOW_POST_CHALLENGE_COUNT. */
#define CZ_POST_WINNING_CHALLENGES 66
#define CZ_POST_WINDOW_CHALLENGES  10

/* ---- registered proofs (Go abi.RegisteredPoStProof numbering) ----
 * 0-4 StackedDrgWinning{2KiB..64GiB}V1 (api 1.0.0), 5-9
 * StackedDrgWindow{..}V1 (1.0.0, legacy challenge indexing), 10-14
 * StackedDrgWindow{..}V1_1 (Rust's V1_2, api 1.2.0; what Curio sends). V1 and
 * V1_1 of one size share the circuit and the parameters. */
#define CZ_POST_PROOF_ID_COUNT 15
typedef struct {
    uint32_t id;
    const char *name;      /* Go name, "StackedDrgWindow32GiBV1_1" (static) */
    const char *rust_name; /* "StackedDrgWindow32GiBV1_2" (static) */
    cz_post_kind kind;
    cz_fc_api_version api_version;
    uint64_t sector_size;
} cz_post_proof_info;

/* CZ_E_UNSUPPORTED naming the id for ids outside 0..14. */
cz_status cz_post_proof_lookup(cz_post_proof_info *out, uint64_t id, cz_error *err);
/* The id Curio sends for a kind and size: Winning V1, Window V1_1 (10-14). */
cz_status cz_post_proof_lookup_by_size(cz_post_proof_info *out, cz_post_kind kind,
                                       uint64_t sector_size, cz_error *err);

/* ---- the circuit's shape ---- */
typedef struct {
    cz_post_kind kind;
    uint64_t nodes;           /* leaves of tree R (sector_size / 32) */
    cz_por_shape tree;        /* tree R: Poseidon base-sub-top */
    uint32_t sector_count;    /* circuit slots */
    uint32_t challenge_count; /* inclusion proofs per slot */
    /* inclusion proofs of one vanilla SectorProof: Window challenge_count,
     * Winning sector_count x challenge_count (slot i takes proofs
     * i*challenge_count ...) */
    uint32_t vanilla_challenges;
} cz_post_config;

/* The published configuration of a kind and sector size: Winning 66 x 1,
 * Window 2349 / 2300 / 2 x 10; tree 8-0-0, 8-8-0 (32 GiB), 8-8-2 (64 GiB). */
cz_status cz_post_config_from_sector(cz_post_config *out, cz_post_kind kind, uint64_t sector_size,
                                     cz_error *err);
/* Any shape (the rust-fil-proofs test shapes: 64 leaves per base tree, 3
 * slots x 5 challenges ...). */
cz_status cz_post_config_make(cz_post_config *out, cz_post_kind kind, uint64_t nodes,
                              unsigned base_arity, unsigned sub_arity, unsigned top_arity,
                              uint32_t sector_count, uint32_t challenge_count, cz_error *err);

/* Public inputs with ONE: 1 + sector_count x (1 + challenge_count). */
uint32_t cz_post_num_inputs(const cz_post_config *cfg);

/* The parameter-cache identifier ("FallbackPoSt::PublicParams{sector_size:
 * 34359738368, challenge_count: 10, sector_count: 2349}") and the file stem
 * "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-<hex>"
 * (<hex> = SHA-256 of the identifier; append .params / .vk). */
cz_status cz_post_param_identifier(char *out, size_t cap, const cz_post_config *cfg, cz_error *err);
cz_status cz_post_param_file_stem(char *out, size_t cap, const cz_post_config *cfg, cz_error *err);

/* ---- challenges ---- */

/* get_challenge_index: api 1.2.0 -> n; else sector_index * count + n. */
uint64_t cz_post_challenge_index(cz_fc_api_version api, uint64_t sector_index,
                                 uint32_t challenge_count, uint32_t n);
/* LE_u64(SHA256(randomness || sector_id LE || challenge_index LE)[0..8]) mod
 * nodes (generate_leaf_challenge). */
uint64_t cz_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                uint64_t challenge_index, uint64_t nodes);
/* WinningPoSt sector selection (done by the chain, not the prover):
 * LE_u64(SHA256(prover_id || randomness || n LE)[0..8]) mod sector_set_len. */
uint64_t cz_post_sector_challenge(const uint8_t prover_id[32], const uint8_t randomness[32],
                                  uint64_t n, uint64_t sector_set_len);
/* The leaves that sector `position` (0-based, in the sorted sectors of
 * partition `partition`) must prove, in vanilla order: Window
 * leaf(r, id, challenge_index(api, partition * sector_count + position,
 * challenge_count, n)) for n < challenge_count; Winning leaf(r, id, n) for
 * n < vanilla_challenges (position and partition 0). out has
 * cfg->vanilla_challenges values. */
void cz_post_sector_challenges(uint64_t *out, const cz_post_config *cfg, cz_fc_api_version api,
                               const uint8_t randomness[32], uint32_t partition, uint32_t position,
                               uint64_t sector_id);

/* The 32 randomness bytes must be a canonical Fr (as_safe_commitment);
 * CZ_E_INVALID_ARG otherwise (Curio masks byte 31 with 0x3f). */
cz_status cz_post_check_randomness(const uint8_t randomness[32], cz_error *err);

/* ---- vanilla proofs (post_vanilla.c) ---- */

/* FallbackPoStSectorProof with exactly one SectorProof (what Curio sends:
 * generate_single_vanilla_proof's output). */
typedef struct {
    uint64_t sector_id;
    cz_fr comm_r; /* the public comm_r */
    cz_fr comm_c, comm_r_last;
    uint32_t n_inclusions;          /* cfg->vanilla_challenges */
    cz_fc_merkle_proof *inclusions; /* of tree R (cfg->tree) */
    cz_fr *sibling_pool;            /* owns every inclusion's siblings */
} cz_post_sector_proof;

/* Decodes one bincode FallbackPoStSectorProof (u64 LE integers and
 * lengths, u32 LE enum tags, 32-byte LE domains) for cfg's
 * tree: the MerkleProof variant must be Single / Sub / Top as the tree has
 * no sub level / a sub level / a top level, each path exactly its levels
 * (arity - 1 hashes and an index below the arity each), one SectorProof of
 * cfg->vanilla_challenges inclusion proofs, every domain a canonical Fr, no
 * trailing bytes. CZ_E_PARSE with the field path and byte offset
 * ("vanilla_proof.sectors[0].inclusion_proofs[3].sub_proof.path[0].index
 * at byte 1234: 9 is not below the arity 8"). Free with
 * cz_post_sector_proof_free. */
cz_status cz_post_decode(cz_post_sector_proof *out, const cz_post_config *cfg, const uint8_t *data,
                         size_t len, cz_error *err);
void cz_post_sector_proof_free(cz_post_sector_proof *p);
/* Allocates p for cfg (n_inclusions inclusion proofs with sibling storage),
 * zero values: the generator fills it. */
cz_status cz_post_sector_proof_alloc(cz_post_sector_proof *p, const cz_post_config *cfg,
                                     cz_error *err);
/* The bincode bytes (*out malloc'ed, *len bytes): what rust-fil-proofs'
 * bincode::serialize writes. Inverse of cz_post_decode. */
cz_status cz_post_encode(uint8_t **out, size_t *len, const cz_post_config *cfg,
                         const cz_post_sector_proof *p, cz_error *err);
/* Encoded size of one proof of cfg. */
size_t cz_post_encoded_size(const cz_post_config *cfg);

/* Everything FallbackPoSt::verify checks, for the proofs of one request:
 * Winning exactly one proof; Window 1 .. sector_count proofs with strictly
 * increasing sector ids (the order the chain verifies them in); per proof
 * comm_r = Poseidon2(comm_c, comm_r_last), every inclusion proof's root =
 * comm_r_last, its path hashes up to the root and its index is the derived
 * challenge (cz_post_sector_challenges with the proof's position). Stricter
 * than rust-fil-proofs in two ways that the circuit relies on: the
 * SectorProof's comm_r_last must be the roots (Rust takes the first root),
 * and every Winning inclusion proof is checked (Rust's zip checks the
 * first). CZ_E_INVALID_ARG naming the proof ("vanilla_proofs[3] (sector 17):
 * inclusion_proofs[2] proves leaf 5, the challenge is leaf 9"). */
cz_status cz_post_vanilla_verify(const cz_post_config *cfg, cz_fc_api_version api,
                                 const uint8_t randomness[32], uint32_t partition,
                                 const cz_post_sector_proof *proofs, uint32_t n, cz_error *err);

/* The circuit slot s of a request of n proofs: which proof and which of its
 * inclusion proofs (first; challenge_count of them) fill it. Window: proof
 * min(s, n - 1), first 0 (the last sector padded, exactly as
 * single_partition_vanilla_proofs and FallbackPoStCompound::circuit do);
 * Winning: proof 0, first s * challenge_count (the unrolled proofs). */
void cz_post_slot_source(const cz_post_config *cfg, uint32_t n, uint32_t slot, uint32_t *proof,
                         uint32_t *first);

/* The public inputs without ONE (cz_post_num_inputs(cfg) - 1 values) as
 * Filecoin's verifier computes them (generate_public_inputs): per slot i
 * of partition k, comm_r of sector i, then for n < challenge_count
 * Fr(leaf(r, id_i, challenge_index(api, k * sector_count + i,
 * challenge_count, n))); slots past the n sectors repeat the last sector's
 * values. WindowPoSt: the partition's sorted sectors; WinningPoSt: the one
 * challenged sector (the verifier passes sector_count copies of it, so slot
 * i uses index i). CZ_E_INVALID_ARG for a bad count or randomness. */
cz_status cz_post_public_inputs(cz_fr *out, const cz_post_config *cfg, cz_fc_api_version api,
                                const uint8_t randomness[32], uint32_t partition,
                                const uint64_t *sector_ids, const cz_fr *comm_rs, uint32_t n,
                                cz_error *err);

/* ---- synthetic vanilla proofs (post_vanilla.c) ---- */
typedef struct {
    uint32_t registered_proof; /* PoSt id 0..14 */
    uint32_t sectors;          /* Window: sectors in the partition (1..sector_count);
                                  Winning: the sector set, one of which is challenged */
    uint64_t seed;             /* comm_c, leaf values and (unless given) randomness */
    uint64_t miner_id;         /* prover_id (Winning sector selection) */
    uint64_t first_sector;     /* sector numbers first_sector, first_sector + 1, ... */
    uint32_t partition;        /* Window: the partition index (V1 challenge indexing) */
    int have_randomness;       /* 0: randomness from the seed, masked */
    uint8_t randomness[32];
} cz_post_gen_opts;

/* Builds valid vanilla proofs without a sealed sector: per sector a sparse
 * tree R whose leaves are 0 except at its challenged positions (random
 * values there), comm_c random, comm_r = Poseidon2(comm_c, root), and the
 * inclusion proofs of the derived challenges. They pass
 * cz_post_vanilla_verify. *out gets *n proofs (Window: opts->sectors;
 * Winning: 1, the chain's challenged sector of the set, *winning_index its
 * position); free each with cz_post_sector_proof_free and the array with
 * free(). randomness_out: the randomness used. */
cz_status cz_post_gen(cz_post_sector_proof **out, uint32_t *n, uint32_t *winning_index,
                      uint8_t randomness_out[32], const cz_post_gen_opts *opts, cz_error *err);

/* Root of a tree R of cfg's shape whose every leaf is `leaf` (one hash per
 * level). */
cz_status cz_post_default_root(cz_fr *out, const cz_post_config *cfg, const cz_fr *leaf);

/* ---- request files (post_request.c) ----
 * What `cuzk gen post` writes and `cuzk prove` / `cuzk verify` read: the
 * fields of a Prove request for one PoSt proof (cuzk.v1 SubmitProofRequest)
 * as one JSON object:
 *   {"kind": "window-post", "registered_proof": 13, "sector_size": 34359738368,
 *    "miner_id": 1000, "partition_index": 0, "randomness": "<64 hex digits>",
 *    "vanilla_proofs": ["<standard base64 of the bincode bytes>", ...]}
 * "kind" ("winning-post" / "window-post") and "sector_size" must agree with
 * the registered proof. */
typedef struct {
    uint32_t registered_proof;
    cz_post_kind kind;
    uint64_t sector_size, miner_id;
    uint32_t partition_index;
    uint8_t randomness[32];
    uint32_t n_proofs;
    uint8_t **proofs; /* n_proofs buffers (owned) */
    size_t *proof_lens;
} cz_post_request;

cz_status cz_post_request_write_json(FILE *out, const cz_post_request *req, cz_error *err);
/* Parses the document (len bytes); CZ_E_PARSE naming the key for a
 * malformed or missing field. Free with cz_post_request_free. */
cz_status cz_post_request_parse_json(cz_post_request *out, const uint8_t *data, size_t len,
                                     cz_error *err);
void cz_post_request_free(cz_post_request *req);

/* Decodes and checks the vanilla proofs of a request against its
 * registered proof (CZ_E_INVALID_ARG / CZ_E_PARSE naming vanilla_proofs[i]
 * and the field): the config, the api version and the decoded proofs
 * (*proofs, *n; free each and the array). verify: also
 * cz_post_vanilla_verify. */
cz_status cz_post_request_decode(cz_post_config *cfg, cz_fc_api_version *api,
                                 cz_post_sector_proof **proofs, uint32_t *n,
                                 uint32_t registered_proof, uint64_t sector_size,
                                 const uint8_t *const *bytes, const size_t *lens, uint32_t count,
                                 const uint8_t *randomness, size_t randomness_len,
                                 uint32_t partition_index, int verify, cz_error *err);

#endif
