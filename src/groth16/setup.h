/* Development parameters for a circuit: NOT A TRUSTED SETUP.
 *
 * Every secret (tau, alpha, beta, gamma, delta) follows from a 32-byte seed,
 * so whoever knows the seed can forge proofs for the circuit. The keys are
 * for tests, benchmarks and development only; Filecoin's real keys come from
 * its multi-party ceremony and are read with cz_groth16_params_read. Tools
 * that call this should say so in their output.
 *
 * The construction is bellperson's generate_parameters (spec §5.4): for the
 * domain of size m = 2^k >= num_constraints (bellperson's input constraints
 * included in the matrices), L_j(tau) is the Lagrange basis at tau (computed
 * as the inverse NTT of the powers of tau), u_i(tau) = sum_j A[j][i] L_j(tau)
 * and likewise v (B) and w (C) for every variable i (inputs then aux), and
 *   ic[i] = (beta u_i + alpha v_i + w_i) / gamma        inputs
 *   l[v]  = (beta u_v + alpha v_v + w_v) / delta        aux
 *   h[i]  = tau^i (tau^m - 1) / delta                   i < m - 1
 *   a, b_g1, b_g2: u_i, v_i for the variables whose evaluation is non-zero
 * (bellperson keeps exactly the non-zero evaluations, not the densities; the
 * two agree except with probability about n / r, and the setup fails with a
 * message when they do not, because the prover walks the densities). All
 * points are multiples of the standard generators, computed with fixed-base
 * tables over all cores. */
#ifndef CZ_GROTH16_SETUP_H
#define CZ_GROTH16_SETUP_H

#include <stdint.h>

#include "groth16/groth16.h"
#include "r1cs/backends.h"

#define CZ_GROTH16_SEED_BYTES 32

typedef struct {
    cz_fr tau, alpha, beta, gamma, delta;
} cz_groth16_secrets;

/* The secrets of the development setup for a seed: ChaCha20 keyed by the seed
 * (nonce "cuzkdev1"), five non-zero Fr elements from 64 bytes each, in the
 * order tau, alpha, beta, gamma, delta. */
void cz_groth16_dev_secrets(cz_groth16_secrets *out, const uint8_t seed[CZ_GROTH16_SEED_BYTES]);

/* Parameters for r1cs from explicit secrets (all non-zero; tau outside the
 * domain). Fails with CZ_E_INVALID_ARG on inconsistent matrices, an
 * unconstrained aux variable (l would hold the identity: bellperson's
 * UnconstrainedVariable), or an evaluation that disagrees with a density.
 * On failure *out is zeroed. */
cz_status cz_groth16_setup_with_secrets(cz_groth16_params *out, const cz_r1cs *r1cs,
                                        const cz_groth16_secrets *secrets, cz_error *err);

/* cz_groth16_dev_secrets then cz_groth16_setup_with_secrets. */
cz_status cz_groth16_dev_setup(cz_groth16_params *out, const cz_r1cs *r1cs,
                               const uint8_t seed[CZ_GROTH16_SEED_BYTES], cz_error *err);

/* Progress of a setup: progress(ctx, done, total) on the calling thread
 * after each slice of work (at most 2^16 points), done rising to total.
 * The units are about equal in time (one G1 fixed-base multiplication; a G2
 * one, the NTT and the column sums count by measured ratios), so
 * done / total estimates the fraction of the time spent. total is the same
 * from the first call on (the densities give the key's sizes). */
typedef void (*cz_groth16_setup_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* cz_groth16_dev_setup, reporting progress when progress is not NULL. */
cz_status cz_groth16_dev_setup_progress(cz_groth16_params *out, const cz_r1cs *r1cs,
                                        const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                        cz_groth16_setup_progress_fn progress, void *progress_ctx,
                                        cz_error *err);

#endif
