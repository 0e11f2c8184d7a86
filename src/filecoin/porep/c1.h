/* Parser of Filecoin's SealCommitPhase1Output ("C1 output") JSON, the input
 * of a PoRep C2 proof. Curio sends it wrapped in an envelope: c1_envelope.h
 * reads a document in either form.
 *
 * The parser is streaming (yajl SAX callbacks decode straight into the flat
 * typed arrays below; no document tree), so memory is about the size of the
 * decoded data. Every malformed input is rejected with CZ_E_PARSE or
 * CZ_E_RANGE and a message that names the JSON path of the offending value,
 * e.g. "c1: vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single
 * .path.path[2].hashes: expected 1 sibling, got 2".
 *
 * JSON shape (rust-fil-proofs filecoin-proofs/src/types, storage-proofs-core
 * merkle/proof.rs, storage-proofs-porep stacked/vanilla): every 32-byte
 * domain is an array of 32 integers 0..255, read here as the little-endian
 * repr of an Fr element and required to be canonical (< r), except seed and
 * ticket (chain randomness, any bytes).
 *
 * Storage model: variable-length lists live in four pools owned by cz_c1
 * (doms, path_elems, labeling, challenges) and are referenced by cz_c1_span
 * (first index, count). Accessors below turn spans into pointers. */
#ifndef CZ_FILECOIN_C1_H
#define CZ_FILECOIN_C1_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed parent counts of the StackedDRG graph (BASE_DEGREE, EXP_DEGREE). */
#define CZ_C1_DRG_PARENTS 6
#define CZ_C1_EXP_PARENTS 8
/* Maximum JSON nesting the parser accepts: a backstop, since every frame is
 * schema-driven and the deepest value (a byte of a sibling hash of a parent
 * column's inclusion path) sits 16 levels down. */
#define CZ_C1_MAX_DEPTH 24

typedef uint8_t cz_c1_dom[32];

typedef struct {
    uint32_t first, count;
} cz_c1_span;

/* serde's MerkleProof data variants: a tree with only base levels (Single),
 * base + one sub level (Sub, 32 GiB trees R/C) or base + sub + top (Top). */
typedef enum { CZ_C1_SINGLE = 1, CZ_C1_SUB = 2, CZ_C1_TOP = 3 } cz_c1_tree_kind;

typedef struct {
    uint64_t index;    /* position of the current node among its siblings; < hashes.count + 1 */
    cz_c1_span hashes; /* siblings in child order, into cz_c1.doms */
} cz_c1_path_elem;

typedef struct {
    cz_c1_tree_kind kind;
    cz_c1_dom root, leaf;
    /* Path elements (into cz_c1.path_elems), leaf -> root: base levels, then
     * the sub level (count 1 when kind >= SUB, else 0), then the top level
     * (count 1 when kind == TOP, else 0). */
    cz_c1_span base, sub, top;
} cz_c1_merkle;

typedef struct {
    uint32_t index;     /* column.index */
    cz_c1_span rows;    /* column.rows, one per layer, into cz_c1.doms */
    cz_c1_merkle proof; /* inclusion_proof (tree C) */
} cz_c1_column_proof;

/* LabelingProof and EncodingProof have the same JSON form. */
typedef struct {
    uint32_t layer_index;
    uint64_t node;
    cz_c1_span parents; /* into cz_c1.doms */
} cz_c1_labeling_proof;

/* One stacked vanilla Proof (one challenge of one partition). */
typedef struct {
    cz_c1_merkle comm_d_proof;      /* tree D, binary SHA-256, kind SINGLE */
    cz_c1_merkle comm_r_last_proof; /* tree R */
    cz_c1_column_proof c_x;
    cz_c1_column_proof drg_parents[CZ_C1_DRG_PARENTS];
    cz_c1_column_proof exp_parents[CZ_C1_EXP_PARENTS];
    cz_c1_span labeling; /* into cz_c1.labeling, one per layer */
    cz_c1_labeling_proof encoding;
} cz_c1_challenge;

typedef struct {
    /* Registered proof: numeric abi.RegisteredSealProof id (0..14; the
     * NonInteractivePoRep ids 15..19 are refused), its
     * serde name and the sector size it implies. */
    uint32_t registered_proof;
    const char *registered_proof_name;
    uint64_t sector_size;
    cz_c1_dom comm_r, comm_d, replica_id, seed, ticket;

    /* Envelope fields (c1_envelope.h); has_envelope = 0 when the input was raw C1 JSON. */
    int has_envelope;
    uint64_t envelope_sector_num, envelope_sector_size;

    /* vanilla_proofs[k][i] = challenges[k * challenges_per_partition + i]. */
    uint32_t partitions, challenges_per_partition;
    uint32_t layers; /* labeling proofs (= column rows) per challenge */

    /* Tree shapes, identical for every challenge (checked while parsing):
     * tree D depth (1 sibling per level); tree R/C kind, base depth and the
     * sibling counts of base/sub/top levels (arity - 1; 0 when absent). */
    uint32_t tree_d_depth;
    cz_c1_tree_kind tree_r_kind;
    uint32_t tree_r_base_depth, tree_r_base_siblings, tree_r_sub_siblings, tree_r_top_siblings;

    /* Pools. */
    cz_c1_dom *doms;
    size_t n_doms, cap_doms;
    cz_c1_path_elem *path_elems;
    size_t n_path_elems, cap_path_elems;
    cz_c1_labeling_proof *labeling;
    size_t n_labeling, cap_labeling;
    cz_c1_challenge *challenges;
    size_t n_challenges, cap_challenges;
} cz_c1;

/* Parses raw SealCommitPhase1Output JSON. On success out owns its memory
 * (free with cz_c1_free); on failure out is left empty (safe to free) and
 * err says what and where. */
cz_status cz_c1_parse_raw(cz_c1 *out, const uint8_t *json, size_t len, cz_error *err);
/* The same from a stream: buf (cap bytes) holds the first n bytes, already
 * read from fp, and is reused for the rest, read in chunks of cap; path
 * names the stream in messages. Memory: buf and the decoded data. */
cz_status cz_c1_parse_raw_stream(cz_c1 *out, uint8_t *buf, size_t cap, size_t n, FILE *fp,
                                 const char *path, cz_error *err);
void cz_c1_free(cz_c1 *c1);

/* A JSON number token as the C1 schema has them: decimal digits only (no
 * sign, fraction or exponent), at most max. Returns 1 and sets *out, or 0. */
int cz_c1_json_u64(const char *s, size_t len, uint64_t max, uint64_t *out);

/* Checks the parsed shape against what the registered proof's sector size
 * implies: tree D depth = log2(sector_size / 32), tree R/C arities and
 * depths (8-0-0, 8-8-0 for 32 GiB, 8-8-2 for 64 GiB), layers (2 for
 * <= 512 MiB, 11 for 32/64 GiB) and the partition count (1 below 32 GiB,
 * 10 for 32/64 GiB), all from the registry (filecoin/common/registry.h). */
cz_status cz_c1_check_shape(const cz_c1 *c1, cz_error *err);

/* Checks that every challenge's proofs agree on the challenged node, as
 * they do in a real C1 output: the leaf index encoded by the path indices
 * (sum of index_j times the product of the lower levels' arities) of
 * comm_d_proof, comm_r_last_proof and c_x's inclusion proof equals
 * labeling_proofs[0].node, as do c_x.index, every labeling proof's node and
 * encoding.node; each drg/exp parent's inclusion proof leads to its
 * column.index. Errors name the partition, challenge and field. */
cz_status cz_c1_check_indices(const cz_c1 *c1, cz_error *err);

/* Maps a serde name ("StackedDrg32GiBV1_1") to its id and sector size;
 * returns 0 when unknown. */
int cz_c1_registered_proof_lookup(const char *name, size_t len, uint32_t *id,
                                  uint64_t *sector_size);

static inline const cz_c1_challenge *cz_c1_challenge_at(const cz_c1 *c1, uint32_t partition,
                                                        uint32_t i) {
    return &c1->challenges[(size_t)partition * c1->challenges_per_partition + i];
}
static inline const cz_c1_dom *cz_c1_doms(const cz_c1 *c1, cz_c1_span s) {
    return c1->doms + s.first;
}
static inline const cz_c1_path_elem *cz_c1_elems(const cz_c1 *c1, cz_c1_span s) {
    return c1->path_elems + s.first;
}
static inline const cz_c1_labeling_proof *cz_c1_labelings(const cz_c1 *c1, cz_c1_span s) {
    return c1->labeling + s.first;
}

#ifdef __cplusplus
}
#endif
#endif
