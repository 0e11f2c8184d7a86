/* The EmptySectorUpdate circuit (rust-fil-proofs storage-proofs-update
 * circuit.rs and gadgets.rs),
 * bellperson's R1CS variable for variable and constraint for constraint,
 * for any cz_snap_config. One partition per circuit; 4 public inputs
 * (k | h_select << pb, comm_r_old, comm_d_new, comm_r_new).
 *
 * Synthesis order: k_and_h_select (input) and its pb + 6 bits (A = sum
 * 2^i b_i, B = ONE, C = x), partition = pack_bits(k bits), the three
 * commitments (inputs), phi, comm_c, root_r_old, root_r_new, the apex
 * leaves, the partition path, comm_r_old/new = P2(comm_c, root), the apex
 * tree (SHA-256 hash2 row by row) and its PoR to comm_d_new over the
 * partition bits, the challenge bits (per digest: digest_index, P2c,
 * 255 bits); then per challenge: h-select of the high bits, rho, leaf_r_old,
 * leaf_d_new, leaf_r_new = leaf_r_old + leaf_d_new * rho, tree R old
 * siblings + PoR, tree R new siblings + PoR, select of the apex leaf, tree
 * D siblings below the apex row + PoR to the apex leaf. */
#ifndef CZ_FILECOIN_SNAP_CIRCUIT_H
#define CZ_FILECOIN_SNAP_CIRCUIT_H

#include <stdint.h>

#include "cuzk/status.h"
#include "filecoin/snap/snap.h"
#include "r1cs/cs.h"

/* Synthesizes partition `partition` of cfg into cs. comms = proof = NULL:
 * without a witness (count / stats / record / compile back-ends).
 * Otherwise the witness comes from the commitments and the vanilla proof
 * (cz_snap_decode's shape): comm_c, the roots of challenge 0, the apex
 * leaves, challenge 0's partition path, and per challenge the three leaves
 * and the siblings; the challenge bits are computed in the circuit from
 * comm_r_new. A witness that does not satisfy the circuit is still
 * synthesized (the check back-end finds the constraint). progress (may be
 * NULL) is called after each challenge. Returns the sticky status of cs. */
typedef void (*cz_snap_progress_fn)(void *ctx, uint32_t done, uint32_t total);
cz_status cz_snap_synthesize(cz_cs *cs, const cz_snap_config *cfg, uint32_t partition,
                             const cz_snap_comms *comms, const cz_snap_partition_proof *proof,
                             cz_snap_progress_fn progress, void *progress_ctx, cz_error *err);

#endif
