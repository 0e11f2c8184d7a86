/* Development parameters for a circuit: NOT A TRUSTED SETUP.
 *
 * Every secret (tau, alpha, beta, gamma, delta) follows from a 32-byte seed,
 * so whoever knows the seed can forge proofs for the circuit. The keys are
 * for tests, benchmarks and development only; Filecoin's real keys come from
 * its multi-party ceremony and are read with cz_groth16_params_read. Tools
 * that call this should say so in their output.
 *
 * The construction is bellperson's generate_parameters, from the
 * pre-compiled circuit (r1cs/circuit.h: the 32 GiB PoRep circuit in 5.9 GB,
 * where a cz_r1cs with 32-byte values would need 32 GiB; tests holding a
 * cz_r1cs convert it with cz_circuit_from_r1cs): for the domain of size
 * m = 2^k >= num_constraints (bellperson's input constraints included in
 * the matrices), L_j(tau) is the Lagrange basis at tau (computed
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
 * tables over all cores. The GPU setup (gpu/gpu.h, cz_gpu_groth16_dev_setup)
 * gives the same bytes from the same circuit and seed; what both need beyond
 * the secrets (the plan, the vk's fixed points, the checks and their
 * messages) is declared at the end of this file, so each refusal reads the
 * same whichever device made the key. */
#ifndef CZ_GROTH16_SETUP_H
#define CZ_GROTH16_SETUP_H

#include <stdint.h>

#include "groth16/groth16.h"
#include "r1cs/circuit.h"

#define CZ_GROTH16_SEED_BYTES 32

typedef struct {
    cz_fr tau, alpha, beta, gamma, delta;
} cz_groth16_secrets;

/* The secrets of the development setup for a seed: ChaCha20 keyed by the seed
 * (nonce "cuzkdev1"), five non-zero Fr elements from 64 bytes each, in the
 * order tau, alpha, beta, gamma, delta. */
void cz_groth16_dev_secrets(cz_groth16_secrets *out, const uint8_t seed[CZ_GROTH16_SEED_BYTES]);

/* Parameters for circuit c from explicit secrets (all non-zero; tau outside
 * the domain). Fails with CZ_E_INVALID_ARG on inconsistent matrices (rows,
 * columns or coefficient indices out of range), an unconstrained aux
 * variable (l would hold the identity: bellperson's UnconstrainedVariable),
 * or an evaluation that disagrees with a density. On failure *out is
 * zeroed. */
cz_status cz_groth16_setup_with_secrets(cz_groth16_params *out, const cz_circuit *c,
                                        const cz_groth16_secrets *secrets, cz_error *err);

/* cz_groth16_dev_secrets then cz_groth16_setup_with_secrets. */
cz_status cz_groth16_dev_setup(cz_groth16_params *out, const cz_circuit *c,
                               const uint8_t seed[CZ_GROTH16_SEED_BYTES], cz_error *err);

/* Progress of a setup: progress(ctx, stage, done, total) on the calling
 * thread after each slice of work (at most 2^16 points on the CPU, one
 * chunk on the GPU) and when a stage begins (done unchanged), done rising
 * to total. stage names the step under way ("powers of tau", "Lagrange
 * basis", "column sums", "h", "l", "a", "b_g1", "b_g2", ...; a static
 * string, so a caller may compare pointers to see a change). The units are
 * about equal in time for the setup reporting them (the CPU's: one G1
 * fixed-base multiplication, the other steps by measured ratios), so
 * done / total estimates the fraction of the time spent; total is the same
 * from the first call on (the densities give the key's sizes). */
typedef void (*cz_groth16_setup_progress_fn)(void *ctx, const char *stage, uint64_t done,
                                             uint64_t total);

/* cz_groth16_dev_setup, reporting progress when progress is not NULL. */
cz_status cz_groth16_dev_setup_progress(cz_groth16_params *out, const cz_circuit *c,
                                        const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                        cz_groth16_setup_progress_fn progress, void *progress_ctx,
                                        cz_error *err);

/* ---- what the CPU and GPU setups share ---- */

/* The sizes and constants of a setup, derived before any heavy work:
 * m = 2^log_m (bellperson's domain for num_constraints), the key's counts
 * (n_a and n_b from the densities; the evaluations are held to them), and
 * gamma^-1, delta^-1, h_factor = Z(tau) / delta with Z(tau) = tau^m - 1. */
typedef struct {
    unsigned log_m;
    uint64_t m;
    uint32_t num_inputs, num_aux;
    uint64_t n_h, n_a, n_b; /* n_h = m - 1; n_b for b_g1 and b_g2 */
    cz_fr gamma_inv, delta_inv, h_factor;
} cz_groth16_setup_plan;

/* Checks what needs no matrix work (an input, ONE, exists; the densities
 * exist; no secret is zero; the domain exists; tau is not in it) and fills
 * *plan. CZ_E_INVALID_ARG / CZ_E_RANGE with the message of either setup. */
cz_status cz_groth16_setup_plan_init(cz_groth16_setup_plan *plan, const cz_circuit *c,
                                     const cz_groth16_secrets *s, cz_error *err);

/* alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 of the vk (n_ic and
 * ic untouched). */
void cz_groth16_setup_vk_points(cz_groth16_vk *vk, const cz_groth16_secrets *s);

/* Variable i's evaluations u_i = A_i(tau), v_i = B_i(tau) (inputs then aux)
 * against the densities the prover walks: every input non-zero in A, and
 * "non-zero" equal to the density bit for B (inputs), A and B (aux).
 * CZ_E_INVALID_ARG with the setup's message when they disagree. A setup
 * reports the first variable that fails, in index order. */
cz_status cz_groth16_setup_check_variable(const cz_circuit *c, uint64_t i, const cz_fr *u_i,
                                          const cz_fr *v_i, cz_error *err);
/* Variable i's ic / l scalar (beta u_i + alpha v_i + w_i) / (gamma or
 * delta): CZ_E_INVALID_ARG when it is zero (the point would be the identity:
 * an unconstrained aux variable, or an unlucky seed for an input). */
cz_status cz_groth16_setup_check_scalar(const cz_circuit *c, uint64_t i, const cz_fr *s_i,
                                        cz_error *err);

#endif
