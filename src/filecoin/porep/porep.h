/* PoRep C2 on top of the circuit: per-partition synthesis for the prover,
 * the parameter files of a sector size, whole-sector proving on the CPU and
 * verification of the proof bytes the way Filecoin's verify_seal does
 * (filecoin-proofs api/seal.rs). */
#ifndef CZ_FILECOIN_POREP_H
#define CZ_FILECOIN_POREP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "filecoin/porep/c1.h"
#include "filecoin/porep/porep_circuit.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"

/* Paths "<dir>/<stem>.params" and "<dir>/<stem>.vk" of a sector size
 * (stem from cz_fc_param_file_stem). CZ_E_INVALID_ARG when cap is short. */
cz_status cz_porep_param_paths(char *params_path, char *vk_path, size_t cap, const char *dir,
                               const cz_fc_sector_info *sector, cz_error *err);

/* "<dir>/<stem>.czc": the pre-compiled circuit of a sector size (r1cs/
 * circuit.h), kept next to its parameters. */
cz_status cz_porep_circuit_path(char *path, size_t cap, const char *dir,
                                const cz_fc_sector_info *sector, cz_error *err);

/* The pre-compiled circuit of a sector size from path (mapped, every
 * invariant checked). A missing file is built (the circuit synthesized
 * without a witness on the compile back-end) and written first; a damaged
 * or stale one (checksum, version, sizes, invariants) is rebuilt, and
 * either is said on progress (may be NULL) with the reason. *built = 1
 * when this call built the file. */
cz_status cz_porep_circuit_load(cz_circuit **out, int *built, const char *path,
                                const cz_fc_sector_info *sector, FILE *progress, cz_error *err);

/* The geometry of c1's registered proof, after cz_c1_check_shape. */
cz_status cz_porep_geometry_of_c1(cz_porep_geometry *out, const cz_c1 *c1, cz_error *err);

/* Synthesizes partition `partition` with the prove back-end: everything the
 * Groth16 prover needs (input constraints appended). Free with
 * cz_prove_data_free. */
cz_status cz_porep_synthesize_partition(cz_prove_data *out, const cz_porep_geometry *g,
                                        const cz_c1 *c1, uint32_t partition, cz_error *err);

/* The verifier's public inputs of every partition of c1's sector, without
 * ONE: *out (malloc'ed, free it) holds partitions * *n_inputs values,
 * partition k from k * *n_inputs on, recomputed from replica_id, comm_d,
 * comm_r and the challenges derived from replica_id and seed, never from
 * the vanilla proofs. When prover_id is not NULL, replica_id is first
 * recomputed from (prover_id, sector_id, ticket, comm_d, porep_id) and must
 * equal c1's. */
cz_status cz_porep_verifier_inputs(cz_fr **out, uint32_t *n_inputs, const cz_c1 *c1,
                                   const uint8_t *prover_id, uint64_t sector_id, cz_error *err);

/* Verifies proof bytes (partitions * 192) for c1's sector: public inputs
 * recomputed from replica_id, comm_d, comm_r and the challenges derived
 * from replica_id and seed (cz_fc_porep_challenges), never from the vanilla
 * proofs. When prover_id is not NULL, replica_id is first recomputed from
 * (prover_id, sector_id, ticket, comm_d, porep_id) and must equal c1's.
 * *valid = 1 when every partition verifies; otherwise CZ_OK with *valid = 0
 * and err (status CZ_E_VERIFY) naming the last partition that failed. */
cz_status cz_porep_verify(int *valid, const cz_c1 *c1, const cz_groth16_vk *vk,
                          const uint8_t *proof, size_t proof_len, const uint8_t *prover_id,
                          uint64_t sector_id, cz_error *err);

#endif
