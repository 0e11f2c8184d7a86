/* SnapDeals on top of the circuit: the parameter and pre-compiled circuit
 * files of a sector size, the witness of one partition, and the
 * verification of proof bytes the way Filecoin's verifier does
 * (filecoin-proofs api/update.rs, verify_empty_sector_update_proof). */
#ifndef CZ_FILECOIN_SNAP_PROVE_H
#define CZ_FILECOIN_SNAP_PROVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "filecoin/snap/snap.h"
#include "groth16/groth16.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"

/* "<dir>/<stem>.params" / ".vk" / ".czc" with Filecoin's stem
 * (v28-empty-sector-update-merkletree-poseidon_hasher-...). */
cz_status cz_snap_param_paths(char *params_path, char *vk_path, size_t cap, const char *dir,
                              const cz_snap_config *cfg, cz_error *err);
cz_status cz_snap_circuit_path(char *path, size_t cap, const char *dir, const cz_snap_config *cfg,
                               cz_error *err);
/* The pre-compiled circuit (one partition; every partition shares it),
 * built and written when missing (circuit_files.h). */
cz_status cz_snap_circuit_load(cz_circuit **out, int *built, const char *path,
                               const cz_snap_config *cfg, FILE *progress, cz_error *err);

/* The witness of partition k (what the witness back-end gives for
 * cz_snap_synthesize), into w (its buffers freed first, then replaced: one
 * thread, ~4.6 s CPU and 2.5 GB for a 32 GiB partition). */
cz_status cz_snap_synthesize_witness(cz_witness *w, const cz_snap_config *cfg, uint32_t partition,
                                     const cz_snap_comms *comms,
                                     const cz_snap_partition_proof *proof, cz_error *err);

/* Verifies the update's proof bytes (one 192-byte proof per partition, in
 * partition order) with the public inputs of cz_snap_public_inputs, never
 * from a witness. *valid = 1 when every partition verifies; otherwise err
 * says which did not (CZ_E_VERIFY). CZ_E_INVALID_ARG for a malformed proof
 * or a key of another circuit. */
cz_status cz_snap_verify(int *valid, const cz_snap_config *cfg, const cz_groth16_vk *vk,
                         const cz_snap_comms *comms, const uint8_t *proof, size_t proof_len,
                         cz_error *err);

#endif
