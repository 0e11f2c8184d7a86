/* Fallback PoSt on top of the circuit: the parameter and pre-compiled
 * circuit files of a kind and sector size, and the verification of proof
 * bytes the way Filecoin's verifier does (filecoin-proofs api/winning_post.rs,
 * api/window_post.rs). */
#ifndef CZ_FILECOIN_POST_PROVE_H
#define CZ_FILECOIN_POST_PROVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "filecoin/post/post.h"
#include "groth16/groth16.h"
#include "r1cs/circuit.h"
#include "r1cs/cs.h"

/* "<dir>/<stem>.params" and "<dir>/<stem>.vk" with Filecoin's stem
 * (cz_post_param_file_stem: v28-proof-of-spacetime-fallback-...). */
cz_status cz_post_param_paths(char *params_path, char *vk_path, size_t cap, const char *dir,
                              const cz_post_config *cfg, cz_error *err);
/* "<dir>/<stem>.czc": the pre-compiled circuit, next to the parameters. */
cz_status cz_post_circuit_path(char *path, size_t cap, const char *dir, const cz_post_config *cfg,
                               cz_error *err);
/* The pre-compiled circuit from path (mapped, checked), built (compile
 * back-end, no witness) and written when missing or damaged, which is said
 * on progress (may be NULL). *built = 1 when this call built it. */
cz_status cz_post_circuit_load(cz_circuit **out, int *built, const char *path,
                               const cz_post_config *cfg, FILE *progress, cz_error *err);

/* Verifies one Groth16 proof (192 bytes: WinningPoSt's proof, or one
 * WindowPoSt partition's) with the public inputs recomputed from the
 * randomness, partition index and the sectors (ids and comm_rs; Window:
 * the partition's sorted sectors, Winning: the one challenged sector)
 * (cz_post_public_inputs), never from a witness. *valid = 1 when it
 * verifies; CZ_E_INVALID_ARG for a malformed proof, key or sector list. */
cz_status cz_post_verify(int *valid, const cz_post_config *cfg, cz_fc_api_version api,
                         const cz_groth16_vk *vk, const uint8_t randomness[32], uint32_t partition,
                         const uint64_t *sector_ids, const cz_fr *comm_rs, uint32_t n,
                         const uint8_t *proof, size_t proof_len, cz_error *err);

#endif
