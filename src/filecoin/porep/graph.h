/* The SDR stacked graph: BucketGraph DRG parents (degree 6) and Feistel
 * expander parents (degree 8), plus the parent-cache name and digest that
 * rust-fil-proofs publishes (storage-proofs-core drgraph.rs,
 * crypto/feistel.rs, storage-proofs-porep stacked/vanilla/graph.rs, cache.rs).
 *
 * Parents depend only on (nodes, porep_id, api version), never on data. */
#ifndef CZ_FILECOIN_GRAPH_H
#define CZ_FILECOIN_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "filecoin/common/registry.h"

#define CZ_FC_DRG_DEGREE 6
#define CZ_FC_EXP_DEGREE 8
#define CZ_FC_PARENTS    (CZ_FC_DRG_DEGREE + CZ_FC_EXP_DEGREE) /* per cache entry */

typedef struct {
    uint64_t nodes;           /* 2 <= nodes <= 2^32 (parents are u32) */
    uint8_t drg_seed[28];     /* SHA256("Filecoin_DRSample" || porep_id)[0..28] */
    uint64_t feistel_keys[4]; /* SHA256("Filecoin_Feistel" || porep_id) as 4 u64 LE */
    int legacy;               /* api 1.0.0: DRG "node - 1" parent in the last slot */
    /* Feistel over [0, 8 * nodes): index split in two half_bits-bit halves. */
    unsigned half_bits;
    uint64_t right_mask;
} cz_fc_graph;

/* Derives the graph of a sector of `nodes` nodes for a porep_id. */
cz_status cz_fc_graph_init(cz_fc_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                           cz_fc_api_version api_version, cz_error *err);

/* The 6 DRG parents of node (< nodes); all < node for node >= 2, all 0 for
 * nodes 0 and 1. Variable time (public data). */
void cz_fc_graph_drg_parents(uint32_t out[CZ_FC_DRG_DEGREE], const cz_fc_graph *g, uint32_t node);

/* The 8 expander parents of node (< nodes), in the previous layer; each <
 * nodes. Variable time (public data). */
void cz_fc_graph_exp_parents(uint32_t out[CZ_FC_EXP_DEGREE], const cz_fc_graph *g, uint32_t node);

/* The Feistel permutation of [0, 8 * nodes) (cycle-walking 3-round
 * Feistel with BLAKE2b-512 round function); exposed for tests. */
uint64_t cz_fc_graph_feistel_permute(const cz_fc_graph *g, uint64_t index);

/* "stacked_graph::StackedGraph{expansion_degree: 8 base_graph:
 * drgraph::BucketGraph{size: N; degree: 6; hasher: poseidon_hasher} }" */
cz_status cz_fc_graph_identifier(char *out, size_t cap, uint64_t nodes, cz_error *err);

/* Parent-cache file stem "v28-sdr-parent-<hex>" where <hex> = SHA-256 of
 * ("poseidon_hasher" || identifier || feistel keys u64 LE || nodes u32 LE). */
cz_status cz_fc_parent_cache_name(char *out, size_t cap, const cz_fc_graph *g, cz_error *err);

/* SHA-256 of the parent-cache file: for every node, the 6 DRG then 8 expander
 * parents as u32 LE. Streams; time and no memory proportional to nodes. */
cz_status cz_fc_parent_cache_digest(uint8_t out[32], const cz_fc_graph *g, cz_error *err);

#endif
