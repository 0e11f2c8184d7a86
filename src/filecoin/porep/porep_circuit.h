/* The StackedDRG PoRep circuit ("commit phase 2"), constraint for constraint
 * the R1CS of rust-fil-proofs' StackedCircuit (storage-proofs-porep
 * stacked/circuit/{proof,params}.rs).
 *
 * One circuit per partition; every partition of a sector size has the same
 * R1CS and differs only in its witness and public inputs. The geometry is
 * kept apart from the registry so that the rust-fil-proofs test shapes
 * (stacked_circuit.rs: 2 layers, 1 challenge, tree 8-4-2 ...) can be built
 * too. */
#ifndef CZ_FILECOIN_POREP_CIRCUIT_H
#define CZ_FILECOIN_POREP_CIRCUIT_H

#include <stdint.h>

#include "cuzk/status.h"
#include "filecoin/porep/c1.h"
#include "filecoin/porep/graph.h"
#include "filecoin/common/registry.h"
#include "gadgets/por.h"
#include "r1cs/backends.h"
#include "r1cs/cs.h"

typedef struct {
    uint64_t nodes;       /* leaves of trees D, R and C */
    uint32_t layers;      /* SDR layers L (column length) */
    uint32_t challenges;  /* challenges per partition */
    cz_por_shape tree_d;  /* SHA-256, binary, log2(nodes) levels */
    cz_por_shape tree_rc; /* Poseidon base-sub-top (trees R and C) */
} cz_porep_geometry;

/* The geometry of a published sector size (registry). */
cz_status cz_porep_geometry_from_sector(cz_porep_geometry *out, const cz_fc_sector_info *sector,
                                        cz_error *err);
/* Any geometry (tests): base/sub/top arities as in cz_por_shape_make. */
cz_status cz_porep_geometry_make(cz_porep_geometry *out, uint64_t nodes, uint32_t layers,
                                 uint32_t challenges, unsigned base_arity, unsigned sub_arity,
                                 unsigned top_arity, cz_error *err);

/* Public inputs, ONE included: 4 + 18 * challenges. */
uint32_t cz_porep_num_inputs(const cz_porep_geometry *g);

/* Synthesizes partition `partition` of c1 into cs in bellperson's exact
 * allocation and constraint order. c1 = NULL synthesizes without a witness
 * (count / record back-ends). With a c1, its shape (tree depths and
 * arities, layers, challenges per partition) must match g, else
 * CZ_E_INVALID_ARG naming the mismatch; the witness comes from c1 only (the
 * circuit never recomputes challenges or parents). Returns the sticky
 * status of cs at the end. */
cz_status cz_porep_synthesize(cz_cs *cs, const cz_porep_geometry *g, const cz_c1 *c1,
                              uint32_t partition, cz_error *err);
/* The same, calling progress(ctx, done, total) after each challenge (the
 * 32 GiB circuit takes seconds to minutes). */
typedef void (*cz_porep_progress_fn)(void *ctx, uint32_t challenges_done,
                                     uint32_t challenges_total);
cz_status cz_porep_synthesize_progress(cz_cs *cs, const cz_porep_geometry *g, const cz_c1 *c1,
                                       uint32_t partition, cz_porep_progress_fn progress,
                                       void *progress_ctx, cz_error *err);

/* ---- witness only, on several threads ----
 *
 * Variables are numbered by allocation order, inputs and aux separately,
 * and the circuit's structure does not depend on the witness: a fixed
 * block (ONE, replica_id, comm_d, comm_r and their aux, comm_r_last, comm_c,
 * comm_r's Poseidon check) precedes the challenges, and every challenge then
 * allocates the same number of inputs (its 18 packed leaf indices, in
 * order) and aux, reading only the block's variables. So challenge i owns
 * inputs top_inputs + i * challenge_inputs ... and aux top_aux + i *
 * challenge_aux ... of the sequential numbering, and the challenges can be
 * synthesized independently, each into its own window of one assignment. */
typedef struct {
    uint32_t challenges;
    uint32_t top_inputs, top_aux; /* before challenge 0; top_inputs counts ONE */
    uint64_t top_constraints;
    uint32_t challenge_inputs, challenge_aux; /* each challenge */
    uint64_t challenge_constraints;
    uint32_t num_inputs, num_aux; /* whole circuit */
    uint64_t num_constraints;     /* synthesized (no input constraints) */
} cz_porep_layout;

/* The layout of g's circuit, counted by synthesizing the block and one
 * challenge without a witness or combinations (~0.1 s at 32 GiB); it
 * depends on g alone and is remembered per geometry (a few per process;
 * thread-safe), so later calls return at once. */
cz_status cz_porep_layout_make(cz_porep_layout *out, const cz_porep_geometry *g, cz_error *err);

/* Partition `partition` of c1, witness only: w receives exactly the
 * assignment of the sequential witness back-end (cz_cs_witness_new +
 * cz_porep_synthesize): inputs (input[0] = ONE) and aux, in order. The
 * block is synthesized on the calling thread, then the challenges on
 * `threads` threads (0: cz_thread_count(); the caller takes part), each
 * written in place into its window of w->aux / w->input. w's buffers are
 * reused when their capacities suffice and replaced (not copied, not
 * zeroed) otherwise, so a caller that keeps one cz_witness across
 * partitions pays for its pages once; every element of the result is
 * written exactly once per call. Fails, never shifts the witness, when a
 * challenge allocates other than its window: an overrun stops at the
 * window's end (CZ_E_RANGE), a shortfall is found afterwards (CZ_E_INTERNAL),
 * both naming the partition and challenge. On failure w's sizes are 0 and
 * its contents undefined (the buffers stay for reuse). */
cz_status cz_porep_synthesize_witness(cz_witness *w, const cz_porep_geometry *g, const cz_c1 *c1,
                                      uint32_t partition, unsigned threads, cz_error *err);
/* n partitions at once, w[k] receiving partitions[k]: the n x challenges
 * sub-circuits share one pool of threads (better balance than n calls when
 * a partition has few challenges per thread, e.g. 18 on 16 cores; the n
 * witnesses are held together). layout: from cz_porep_layout_make (NULL:
 * counted here; a wrong one must be refused, which the tests check). */
cz_status cz_porep_synthesize_witnesses(cz_witness *w, uint32_t n, const cz_porep_geometry *g,
                                        const cz_porep_layout *layout, const cz_c1 *c1,
                                        const uint32_t *partitions, unsigned threads,
                                        cz_error *err);

/* The public inputs without ONE (cz_porep_num_inputs(g) - 1 values) as
 * Filecoin's verifier derives them: replica_id, comm_d, comm_r,
 * then per challenge c: c, its 6 DRG parents, its 8 expander parents, c, c,
 * c. challenges: g->challenges values (this partition's). The 32-byte values
 * are little-endian Fr reprs; CZ_E_RANGE when one is not canonical. */
cz_status cz_porep_public_inputs(cz_fr *out, const cz_porep_geometry *g, const cz_fc_graph *graph,
                                 const uint8_t replica_id[32], const uint8_t comm_d[32],
                                 const uint8_t comm_r[32], const uint64_t *challenges,
                                 cz_error *err);

#endif
