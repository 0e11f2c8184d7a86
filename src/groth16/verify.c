/* Groth16 verification (bellperson's verify_proof and verify_proofs_batch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/msm.h"
#include "ec/pairing.h"
#include "groth16/groth16.h"
#include "util/random.h"
#include "util/parallel.h"

/* A proof point must be a non-identity element of its prime-order group. */
static cz_status check_proof(const cz_groth16_proof *p, size_t index, int batch, cz_error *err) {
    char where[48] = "proof";
    if (batch) snprintf(where, sizeof where, "proofs[%zu]", index);
    const cz_g1_affine *g1[2] = {&p->a, &p->c};
    const char *g1_name[2] = {"A", "C"};
    for (int k = 0; k < 2; k++) {
        if (cz_g1_affine_is_infinity(g1[k]))
            return cz_error_set(err, CZ_E_IDENTITY, "%s: %s is the identity", where, g1_name[k]);
        if (!cz_g1_affine_is_on_curve(g1[k]))
            return cz_error_set(err, CZ_E_NOT_ON_CURVE, "%s: %s is not on the curve", where,
                                g1_name[k]);
        if (!cz_g1_affine_is_in_subgroup(g1[k]))
            return cz_error_set(err, CZ_E_NOT_IN_SUBGROUP, "%s: %s is not in G1", where,
                                g1_name[k]);
    }
    if (cz_g2_affine_is_infinity(&p->b))
        return cz_error_set(err, CZ_E_IDENTITY, "%s: B is the identity", where);
    if (!cz_g2_affine_is_on_curve(&p->b))
        return cz_error_set(err, CZ_E_NOT_ON_CURVE, "%s: B is not on the curve", where);
    if (!cz_g2_affine_is_in_subgroup(&p->b))
        return cz_error_set(err, CZ_E_NOT_IN_SUBGROUP, "%s: B is not in G2", where);
    return CZ_OK;
}

static cz_status check_vk(const cz_groth16_vk *vk, size_t n_inputs, cz_error *err) {
    if (vk->n_ic == 0 || !vk->ic)
        return cz_error_set(err, CZ_E_INVALID_ARG, "verify: the verifying key has no ic points");
    if (n_inputs + 1 != vk->n_ic)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "verify: %zu public inputs given, the verifying key expects %zu",
                            n_inputs, vk->n_ic - 1);
    return CZ_OK;
}

/* sum_i scalars[i] points[i] for n >= 0 */
static cz_status g1_msm(cz_g1 *out, const cz_g1_affine *points, const cz_fr *scalars, size_t n,
                        cz_error *err) {
    if (n == 0) {
        cz_g1_set_infinity(out);
        return CZ_OK;
    }
    if (cz_g1_msm(out, points, scalars, n) != CZ_OK)
        return cz_error_set(err, CZ_E_NOMEM, "verify: out of memory in an MSM of %zu points", n);
    return CZ_OK;
}

cz_status cz_groth16_verify(int *valid, const cz_groth16_vk *vk, const cz_groth16_proof *proof,
                            const cz_fr *inputs, size_t n_inputs, cz_error *err) {
    *valid = 0;
    cz_status st = check_vk(vk, n_inputs, err);
    if (st == CZ_OK) st = check_proof(proof, 0, 0, err);
    if (st != CZ_OK) return st;

    cz_g1 acc, ic0;
    if ((st = g1_msm(&acc, vk->ic + 1, inputs, n_inputs, err)) != CZ_OK) return st;
    cz_g1_from_affine(&ic0, &vk->ic[0]);
    cz_g1_add(&acc, &acc, &ic0);

    cz_g1_affine p[4];
    cz_g2_affine q[4];
    cz_g1 neg_acc;
    cz_g1_neg(&neg_acc, &acc);
    p[0] = proof->a, q[0] = proof->b;
    cz_g1_to_affine(&p[1], &neg_acc), q[1] = vk->gamma_g2;
    cz_g1_affine_neg(&p[2], &proof->c), q[2] = vk->delta_g2;
    cz_g1_affine_neg(&p[3], &vk->alpha_g1), q[3] = vk->beta_g2;
    cz_fp12 f;
    cz_multi_pairing(&f, p, q, 4);
    *valid = cz_fp12_is_one(&f);
    return CZ_OK;
}

typedef struct {
    cz_g1 *out;
    const cz_groth16_proof *proofs;
    const cz_fr *weights;
} weigh_job;

static void weigh_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    weigh_job *job = ctx;
    for (size_t j = begin; j < end; j++) {
        cz_g1 a;
        cz_g1_from_affine(&a, &job->proofs[j].a);
        cz_g1_mul_var(&job->out[j], &a, &job->weights[j]);
    }
}

cz_status cz_groth16_verify_batch(int *valid, const cz_groth16_vk *vk,
                                  const cz_groth16_proof *proofs, size_t n_proofs,
                                  const cz_fr *inputs, size_t n_inputs, cz_error *err) {
    *valid = 0;
    cz_status st = check_vk(vk, n_inputs, err);
    if (st != CZ_OK) return st;
    for (size_t j = 0; j < n_proofs; j++)
        if ((st = check_proof(&proofs[j], j, 1, err)) != CZ_OK) return st;
    if (n_proofs == 0) {
        *valid = 1;
        return CZ_OK;
    }

    size_t pairs = n_proofs + 3;
    cz_fr *weights = malloc(n_proofs * sizeof *weights);
    cz_fr *ic_scalars = malloc(vk->n_ic * sizeof *ic_scalars);
    cz_g1_affine *c_points = malloc(n_proofs * sizeof *c_points);
    cz_g1 *jac = malloc(pairs * sizeof *jac);
    cz_fp *scratch = malloc(pairs * sizeof *scratch);
    cz_g1_affine *p = malloc(pairs * sizeof *p);
    cz_g2_affine *q = malloc(pairs * sizeof *q);
    if (!weights || !ic_scalars || !c_points || !jac || !scratch || !p || !q) {
        st = cz_error_set(err, CZ_E_NOMEM, "verify batch: out of memory for %zu proofs", n_proofs);
        goto done;
    }

    /* weights z_j: uniform non-zero 128-bit integers */
    for (size_t j = 0; j < n_proofs; j++) {
        uint64_t limbs[CZ_FR_LIMBS] = {0};
        do {
            if ((st = cz_os_random_bytes((uint8_t *)limbs, 16, err)) != CZ_OK) goto done;
        } while (limbs[0] == 0 && limbs[1] == 0);
        cz_fr_from_limbs(&weights[j], limbs); /* < 2^128 < r, never fails */
    }

    /* sum_j z_j acc_j = (sum_j z_j) ic[0] + sum_i (sum_j z_j x_{j,i}) ic[i + 1] */
    ic_scalars[0] = cz_fr_zero;
    for (size_t j = 0; j < n_proofs; j++) cz_fr_add(&ic_scalars[0], &ic_scalars[0], &weights[j]);
    for (size_t i = 0; i < n_inputs; i++) {
        cz_fr sum = cz_fr_zero, t;
        for (size_t j = 0; j < n_proofs; j++) {
            cz_fr_mul(&t, &weights[j], &inputs[j * n_inputs + i]);
            cz_fr_add(&sum, &sum, &t);
        }
        ic_scalars[1 + i] = sum;
    }
    cz_g1 acc, sum_c, alpha, alpha_w;
    if ((st = g1_msm(&acc, vk->ic, ic_scalars, vk->n_ic, err)) != CZ_OK) goto done;
    for (size_t j = 0; j < n_proofs; j++) c_points[j] = proofs[j].c;
    if ((st = g1_msm(&sum_c, c_points, weights, n_proofs, err)) != CZ_OK) goto done;
    cz_g1_from_affine(&alpha, &vk->alpha_g1);
    cz_g1_mul_var(&alpha_w, &alpha, &ic_scalars[0]);

    weigh_job job = {jac, proofs, weights};
    cz_parallel_for(n_proofs, 1, weigh_task, &job);
    cz_g1_neg(&jac[n_proofs], &sum_c);
    cz_g1_neg(&jac[n_proofs + 1], &acc);
    cz_g1_neg(&jac[n_proofs + 2], &alpha_w);
    cz_g1_batch_to_affine(p, jac, pairs, scratch);
    for (size_t j = 0; j < n_proofs; j++) q[j] = proofs[j].b;
    q[n_proofs] = vk->delta_g2;
    q[n_proofs + 1] = vk->gamma_g2;
    q[n_proofs + 2] = vk->beta_g2;

    cz_fp12 f;
    cz_multi_pairing(&f, p, q, pairs);
    *valid = cz_fp12_is_one(&f);
    st = CZ_OK;

done:
    free(weights);
    free(ic_scalars);
    free(c_points);
    free(jac);
    free(scratch);
    free(p);
    free(q);
    return st;
}
