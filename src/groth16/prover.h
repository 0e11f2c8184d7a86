/* The Groth16 prover on the CPU, exactly as bellperson's.
 *
 * It is split in two so that other back-ends (the GPU) can reuse the shape:
 *
 *   cz_groth16_prove_start     the heavy part: the H polynomial (NTT chain)
 *                              and the five MSM sums, which depend on the
 *                              witness and the parameters but not on r, s;
 *   cz_groth16_prove_finalize  the randomization by r, s and the assembly of
 *                              A, B, C from those sums and the vk (a few
 *                              scalar multiplications).
 *
 * With z the full assignment (inputs then aux) and the sums
 *   h    = sum_{i < m-1} H_i h[i]
 *   l    = sum_v aux_v l[v]
 *   a    = sum over the inputs and the aux dense in A of z_i a[.]
 *   b_g1 = sum over the inputs dense in B and the aux dense in B of z_i b_g1[.]
 *   b_g2 = the same in G2
 * (key points consumed in order, the next one for each set density bit), the
 * proof is
 *   A = alpha_1 + a + r delta_1
 *   B = beta_2 + b_g2 + s delta_2
 *   C = s a + r b_g1 + r s delta_1 + s alpha_1 + r beta_1 + h + l. */
#ifndef CZ_GROTH16_PROVER_H
#define CZ_GROTH16_PROVER_H

#include "groth16/groth16.h"
#include "r1cs/backends.h"

typedef struct {
    cz_g1 h, l, a, b_g1;
    cz_g2 b_g2;
} cz_groth16_msm_results;

/* Checks that params fit the circuit in pd: n_ic = num_inputs, n_l = num_aux,
 * n_h = m - 1, n_a = num_inputs + |a_aux_density|, n_b_g1 = n_b_g2 =
 * |b_input_density| + |b_aux_density|. CZ_E_INVALID_ARG with the first
 * mismatch otherwise. */
cz_status cz_groth16_check_shapes(const cz_groth16_params *params, const cz_prove_data *pd,
                                  cz_error *err);

/* The m coefficients of H = (A B - C) / Z (bellperson's execute_fft), with
 * m = 2^k from cz_groth16_domain_log_size(pd->num_constraints); h holds m
 * elements. Allocates 2m elements of scratch. Fails with CZ_E_INVALID_ARG
 * when H has degree m - 1, which proves the witness does not satisfy the
 * constraints (for a satisfying one deg H <= m - 2; bellperson would go on
 * and produce a proof that does not verify). */
cz_status cz_groth16_compute_h(cz_fr *h, const cz_prove_data *pd, cz_error *err);

/* H and the five sums. Peak memory beyond pd and params: 3m field elements
 * for H (2m released before the MSMs), the compacted scalars of the A and B
 * sums, and the MSM scratch. */
cz_status cz_groth16_prove_start(cz_groth16_msm_results *out, const cz_groth16_params *params,
                                 const cz_prove_data *pd, cz_error *err);

/* A, B, C from the sums. r and s are the blinding scalars: pass NULL for
 * fresh random ones from the OS (what a real proof must use); tests inject
 * fixed values. Refuses a vk whose delta is the identity (CZ_E_IDENTITY). */
cz_status cz_groth16_prove_finalize(cz_groth16_proof *out, const cz_groth16_vk *vk,
                                    const cz_groth16_msm_results *msm, const cz_fr *r,
                                    const cz_fr *s, cz_error *err);

/* prove_start then prove_finalize. */
cz_status cz_groth16_prove(cz_groth16_proof *out, const cz_groth16_params *params,
                           const cz_prove_data *pd, const cz_fr *r, const cz_fr *s, cz_error *err);

#endif
