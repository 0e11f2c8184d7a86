/* The vanilla (non-SNARK) side of PoRep: labels, sealing a sector, the
 * vanilla proofs of a C1 output, their native verification, and the
 * synthetic C1 generator (rust-fil-proofs storage-proofs-porep stacked/vanilla).
 *
 * Generated C1 outputs are held in the same cz_c1 structure the parser fills
 * (filecoin/porep/c1.h), so a generated output can be proven directly or written
 * as JSON and read back. */
#ifndef CZ_FILECOIN_VANILLA_H
#define CZ_FILECOIN_VANILLA_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "filecoin/porep/c1.h"
#include "filecoin/porep/graph.h"
#include "filecoin/common/registry.h"

/* Checks c1's replica_id against the one Filecoin derives from (prover_id,
 * sector_id, ticket, comm_d, porep_id of the registered proof);
 * CZ_E_INVALID_ARG naming the inputs when they differ. */
cz_status cz_fc_check_replica_id(const cz_c1 *c1, const uint8_t prover_id[32], uint64_t sector_id,
                                 cz_error *err);

/* Labels hash this many parent labels (TOTAL_PARENTS). */
#define CZ_FC_LABEL_PARENTS 37

/* label = fr32_mask(SHA256(replica_id || layer u32 BE || node u64 BE || 20
 * zero bytes || parents[0 .. n_parents))) (create_label.rs,
 * LabelingProof::create_label; layers count from 1). Node 0 of every layer
 * hashes no parents (n_parents = 0); every other node hashes the 37 expanded
 * parents below. */
void cz_fc_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                 const cz_c1_dom *parents, size_t n_parents);

/* The 37 hashed parents of a label from the layer's n parent labels (n = 6
 * DRG parents on layer 1; n = 14 = 6 DRG parents of this layer then 8
 * expander parents of the previous layer on layers > 1), cycled:
 * out[j] = parents[j mod n]. */
void cz_fc_label_parents_expand(cz_c1_dom out[CZ_FC_LABEL_PARENTS], const cz_c1_dom *parents,
                                unsigned n);

/* Every label of layers 1..layers of graph g (create_labels_for_encoding):
 * out holds layers * g->nodes values, label_l(v) at out[(l - 1) * nodes + v].
 * Time: layers * nodes SHA-256 of 1248 bytes plus the parents of every node
 * (computed once, in parallel); memory: 56 bytes per node besides out. */
cz_status cz_fc_sdr_labels(cz_c1_dom *out, const cz_fc_graph *g, const uint8_t replica_id[32],
                           uint32_t layers, cz_error *err);

/* Tree C leaf: Poseidon (MerkleTree tag) of a column's `layers` rows, arity
 * = layers (2 or 11; hash_single_column). CZ_E_RANGE for a non-canonical
 * row, CZ_E_INVALID_ARG for an unsupported layer count. */
cz_status cz_fc_column_hash(uint8_t out[32], const cz_c1_dom *rows, uint32_t layers, cz_error *err);

/* comm_r = Poseidon arity 2 (MerkleTree tag) of (comm_c, comm_r_last). */
cz_status cz_fc_comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                       cz_error *err);

/* The challenges of partition `partition` for c1: interactive (replica_id,
 * seed) or, for the SyntheticPoRep ids, selected synthetic challenges
 * (replica_id, comm_r, seed). out: c1->challenges_per_partition values. */
cz_status cz_fc_porep_challenges(uint64_t *out, const cz_c1 *c1, uint32_t partition, cz_error *err);

/* Everything rust-fil-proofs' vanilla verification checks for every
 * challenge of every partition: the challenges derived as above equal the
 * proven nodes; tree-D, tree-R and tree-C inclusion proofs hash up to
 * comm_d, comm_r_last and comm_c (the same for every challenge);
 * comm_r = Poseidon2(comm_c, comm_r_last); the parent columns are the
 * graph's parents of the challenge; the labels recomputed from the parent
 * columns equal the challenge's column; replica leaf = label_L + data leaf.
 * When prover_id is not NULL, replica_id is recomputed from (prover_id,
 * sector_id, ticket, comm_d, porep_id) and must match. Errors name the
 * partition, challenge and check.
 *
 * Beyond rust-fil-proofs (whose vanilla verifier recomputes labels from the
 * labeling proofs' parents only), the labeling and encoding proofs must hold
 * exactly the parent labels that the parent columns imply, with
 * layer_index = layer (1-based) and node = challenge, and every
 * column.index must equal its inclusion proof's leaf: the circuit takes
 * labels from the columns, so a C1 passing here also gives a satisfied
 * circuit. The shape is checked first (cz_c1_check_shape). Returns
 * CZ_E_INVALID_ARG when a check fails. */
cz_status cz_fc_vanilla_verify(const cz_c1 *c1, const uint8_t *prover_id, uint64_t sector_id,
                               cz_error *err);

/* Synthetic C1 generation. */
typedef struct {
    uint32_t registered_proof; /* 0..14 */
    uint64_t seed;             /* everything random (data, ticket, seed) follows from it */
    uint64_t miner_id;         /* prover_id = cz_fc_prover_id(miner_id) */
    uint64_t sector_num;
    /* 1 = sparse sector (all-zero data; real labels only at the
     * challenged nodes, a default label per layer everywhere else; see
     * src/filecoin/README.md), 0 = seal the whole sector (up to 512 MiB).
     * -1 = automatic (whole sector up to 8 MiB, sparse above). Synthetic
     * PoRep ids (10..14) need a whole sector (their challenges depend on
     * comm_r): automatic means whole for them, and sparse or sizes above
     * 512 MiB are refused with CZ_E_UNSUPPORTED. */
    int sparse;
    /* Progress lines on long steps (NULL = quiet). */
    FILE *progress;
} cz_fc_gen_opts;

/* Builds a valid C1 output (it passes cz_fc_vanilla_verify with the
 * options' prover_id and sector_num). out is freed with cz_c1_free. */
cz_status cz_fc_gen_c1(cz_c1 *out, const cz_fc_gen_opts *opts, cz_error *err);

/* Writes c1 as serde_json would emit the SealCommitPhase1Output (raw), or
 * wrapped in Curio's envelope {"SectorNum", "Phase1Out" (base64), "SectorSize"}. */
cz_status cz_c1_write_json(FILE *out, const cz_c1 *c1, int envelope, uint64_t sector_num,
                           cz_error *err);
/* The same document into a malloc'ed buffer (*out, *out_len; free it). */
cz_status cz_c1_write_json_mem(uint8_t **out, size_t *out_len, const cz_c1 *c1, int envelope,
                               uint64_t sector_num, cz_error *err);

#endif
