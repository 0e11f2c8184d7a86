/* CPU Groth16 prover; see prover.h. */
#include "groth16/prover.h"

#include <stdlib.h>
#include <string.h>

#include "ec/msm.h"
#include "groth16/rng.h"
#include "poly/ntt.h"
#include "util/cancel.h"

cz_status cz_groth16_domain_log_size(unsigned *log_size, uint64_t num_constraints, cz_error *err) {
    unsigned k = 0;
    while (((uint64_t)1 << k) < num_constraints) {
        k++;
        if (k >= CZ_FR_TWO_ADICITY)
            return cz_error_set(err, CZ_E_RANGE,
                                "groth16: %llu constraints need a domain of 2^32 or more",
                                (unsigned long long)num_constraints);
    }
    *log_size = k;
    return CZ_OK;
}

/* Set bits among the first n of a density bitmap. */
static uint64_t density_count(const uint64_t *bits, uint64_t n) {
    uint64_t count = 0, words = n / 64;
    for (uint64_t i = 0; i < words; i++) count += (uint64_t)__builtin_popcountll(bits[i]);
    if (n % 64) count += (uint64_t)__builtin_popcountll(bits[words] & ((1ULL << (n % 64)) - 1));
    return count;
}

/* out gets in[i] for every set bit i < n; returns how many. */
static size_t density_compact(cz_fr *out, const cz_fr *in, const uint64_t *bits, uint64_t n) {
    size_t k = 0;
    for (uint64_t i = 0; i < n; i++)
        if (cz_density_get(bits, i)) out[k++] = in[i];
    return k;
}

cz_status cz_groth16_check_shapes(const cz_groth16_params *p, const cz_prove_data *pd,
                                  cz_error *err) {
    unsigned k = 0;
    cz_status st = cz_groth16_domain_log_size(&k, pd->num_constraints, err);
    if (st != CZ_OK) return st;
    uint64_t m = (uint64_t)1 << k;
    if (pd->num_inputs == 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "prove: no inputs (input 0 is ONE)");
    uint64_t a_aux = density_count(pd->a_aux_density, pd->num_aux);
    uint64_t b_in = density_count(pd->b_input_density, pd->num_inputs);
    uint64_t b_aux = density_count(pd->b_aux_density, pd->num_aux);
    struct {
        const char *name;
        uint64_t have, want;
        const char *why;
    } checks[] = {
        {"vk.ic", p->vk.n_ic, pd->num_inputs, "num_inputs"},
        {"h", p->n_h, m - 1, "domain size - 1"},
        {"l", p->n_l, pd->num_aux, "num_aux"},
        {"a", p->n_a, pd->num_inputs + a_aux, "num_inputs + |a_aux_density|"},
        {"b_g1", p->n_b_g1, b_in + b_aux, "|b_input_density| + |b_aux_density|"},
        {"b_g2", p->n_b_g2, b_in + b_aux, "|b_input_density| + |b_aux_density|"},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (checks[i].have != checks[i].want)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "prove: params.%s has %llu points, the circuit needs %llu (%s): "
                                "parameters for another circuit?",
                                checks[i].name, (unsigned long long)checks[i].have,
                                (unsigned long long)checks[i].want, checks[i].why);
    return CZ_OK;
}

cz_status cz_groth16_compute_h(cz_fr *h, const cz_prove_data *pd, cz_error *err) {
    unsigned k = 0;
    cz_status st = cz_groth16_domain_log_size(&k, pd->num_constraints, err);
    if (st != CZ_OK) return st;
    size_t m = (size_t)1 << k, n = pd->num_constraints;
    cz_fr *b = malloc(m * sizeof *b), *c = malloc(m * sizeof *c);
    cz_ntt_domain domain;
    memset(&domain, 0, sizeof domain);
    if (!b || !c) {
        st = cz_error_set(err, CZ_E_NOMEM, "prove: out of memory for the H polynomial (2^%u)", k);
        goto done;
    }
    memcpy(h, pd->a, n * sizeof *h);
    memcpy(b, pd->b, n * sizeof *b);
    memcpy(c, pd->c, n * sizeof *c);
    for (size_t i = n; i < m; i++) h[i] = b[i] = c[i] = cz_fr_zero;
    if ((st = cz_ntt_domain_init(&domain, k, err)) != CZ_OK) goto done;
    if ((st = cz_ntt_groth16_h(&domain, h, b, c, err)) != CZ_OK) goto done;
    if (!cz_fr_is_zero(&h[m - 1]))
        st = cz_error_set(err, CZ_E_INVALID_ARG,
                          "prove: the witness does not satisfy the constraints (A B - C is not "
                          "divisible by Z: H has degree m - 1)");
done:
    cz_ntt_domain_free(&domain);
    free(b);
    free(c);
    return st;
}

static cz_status msm_g1(cz_g1 *out, const cz_g1_affine *bases, const cz_fr *scalars, size_t n,
                        const char *name, cz_error *err) {
    if (n == 0) {
        cz_g1_set_infinity(out);
        return CZ_OK;
    }
    if (cz_g1_msm(out, bases, scalars, n) != CZ_OK)
        return cz_error_set(err, CZ_E_NOMEM, "prove: out of memory in the %s MSM (%zu points)",
                            name, n);
    return CZ_OK;
}

/* The step boundaries (util/cancel.h): a higher-priority unit may run here
 * (the engine's hook), and a cancelled job's unit stops at the next one
 * instead of running the whole prover. */
static int cancelled(cz_status *st, const char *before, cz_error *err) {
    if (!cz_step_boundary()) return 0;
    *st = cz_error_set(err, CZ_E_CANCELLED, "prove: cancelled before %s", before);
    return 1;
}

cz_status cz_groth16_prove_start(cz_groth16_msm_results *out, const cz_groth16_params *params,
                                 const cz_prove_data *pd, cz_error *err) {
    cz_status st = cz_groth16_check_shapes(params, pd, err);
    if (st != CZ_OK) return st;
    size_t m = params->n_h + 1, ni = pd->num_inputs, na = pd->num_aux;
    cz_fr *h = malloc(m * sizeof *h);
    cz_fr *scalars_a = NULL, *scalars_b = NULL;
    if (!h) return cz_error_set(err, CZ_E_NOMEM, "prove: out of memory for H (%zu)", m);
    if (cancelled(&st, "the H polynomial", err)) goto done;
    if ((st = cz_groth16_compute_h(h, pd, err)) != CZ_OK) goto done;
    if (cancelled(&st, "the H MSM", err)) goto done;
    if ((st = msm_g1(&out->h, params->h, h, m - 1, "H", err)) != CZ_OK) goto done;
    free(h);
    h = NULL;
    if (cancelled(&st, "the L MSM", err)) goto done;
    if ((st = msm_g1(&out->l, params->l, pd->aux_assignment, na, "L", err)) != CZ_OK) goto done;

    /* A: every input, then the aux dense in A; B: inputs and aux dense in B.
     * check_shapes made the counts equal to the key's vector lengths. */
    scalars_a = malloc((params->n_a ? params->n_a : 1) * sizeof *scalars_a);
    scalars_b = malloc((params->n_b_g1 ? params->n_b_g1 : 1) * sizeof *scalars_b);
    if (!scalars_a || !scalars_b) {
        st = cz_error_set(err, CZ_E_NOMEM, "prove: out of memory for the A/B scalars");
        goto done;
    }
    memcpy(scalars_a, pd->input_assignment, ni * sizeof *scalars_a);
    density_compact(scalars_a + ni, pd->aux_assignment, pd->a_aux_density, na);
    size_t nb_in = density_compact(scalars_b, pd->input_assignment, pd->b_input_density, ni);
    density_compact(scalars_b + nb_in, pd->aux_assignment, pd->b_aux_density, na);
    if (cancelled(&st, "the A MSM", err)) goto done;
    if ((st = msm_g1(&out->a, params->a, scalars_a, params->n_a, "A", err)) != CZ_OK) goto done;
    free(scalars_a);
    scalars_a = NULL;
    if (cancelled(&st, "the B1 MSM", err)) goto done;
    if ((st = msm_g1(&out->b_g1, params->b_g1, scalars_b, params->n_b_g1, "B1", err)) != CZ_OK)
        goto done;
    if (cancelled(&st, "the B2 MSM", err)) goto done;
    if (params->n_b_g2 == 0) {
        cz_g2_set_infinity(&out->b_g2);
    } else if (cz_g2_msm(&out->b_g2, params->b_g2, scalars_b, params->n_b_g2) != CZ_OK) {
        st = cz_error_set(err, CZ_E_NOMEM, "prove: out of memory in the B2 MSM (%zu points)",
                          params->n_b_g2);
        goto done;
    }
done:
    free(h);
    free(scalars_a);
    free(scalars_b);
    return st;
}

cz_status cz_groth16_prove_finalize(cz_groth16_proof *out, const cz_groth16_vk *vk,
                                    const cz_groth16_msm_results *msm, const cz_fr *r_in,
                                    const cz_fr *s_in, cz_error *err) {
    if (cz_g1_affine_is_infinity(&vk->delta_g1) || cz_g2_affine_is_infinity(&vk->delta_g2))
        return cz_error_set(err, CZ_E_IDENTITY,
                            "prove: delta is the identity in the verifying key (a subverted key)");
    cz_fr r, s, rs;
    cz_status st;
    if (r_in)
        r = *r_in;
    else if ((st = cz_os_random_fr_nonzero(&r, err)) != CZ_OK)
        return st;
    if (s_in)
        s = *s_in;
    else if ((st = cz_os_random_fr_nonzero(&s, err)) != CZ_OK)
        return st;
    cz_fr_mul(&rs, &r, &s);

    cz_g1 alpha1, beta1, delta1, a, c, t;
    cz_g2 beta2, delta2, b, t2;
    cz_g1_from_affine(&alpha1, &vk->alpha_g1);
    cz_g1_from_affine(&beta1, &vk->beta_g1);
    cz_g1_from_affine(&delta1, &vk->delta_g1);
    cz_g2_from_affine(&beta2, &vk->beta_g2);
    cz_g2_from_affine(&delta2, &vk->delta_g2);

    /* A = alpha_1 + a + r delta_1 */
    cz_g1_mul_var(&t, &delta1, &r);
    cz_g1_add(&a, &alpha1, &msm->a);
    cz_g1_add(&a, &a, &t);

    /* B = beta_2 + b_g2 + s delta_2 */
    cz_g2_mul_var(&t2, &delta2, &s);
    cz_g2_add(&b, &beta2, &msm->b_g2);
    cz_g2_add(&b, &b, &t2);

    /* C = s a + r b_g1 + r s delta_1 + s alpha_1 + r beta_1 + h + l */
    cz_g1_add(&c, &msm->h, &msm->l);
    cz_g1_mul_var(&t, &msm->a, &s);
    cz_g1_add(&c, &c, &t);
    cz_g1_mul_var(&t, &msm->b_g1, &r);
    cz_g1_add(&c, &c, &t);
    cz_g1_mul_var(&t, &delta1, &rs);
    cz_g1_add(&c, &c, &t);
    cz_g1_mul_var(&t, &alpha1, &s);
    cz_g1_add(&c, &c, &t);
    cz_g1_mul_var(&t, &beta1, &r);
    cz_g1_add(&c, &c, &t);

    cz_g1_to_affine(&out->a, &a);
    cz_g2_to_affine(&out->b, &b);
    cz_g1_to_affine(&out->c, &c);
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    memset(&rs, 0, sizeof rs);
    return CZ_OK;
}

cz_status cz_groth16_prove(cz_groth16_proof *out, const cz_groth16_params *params,
                           const cz_prove_data *pd, const cz_fr *r, const cz_fr *s, cz_error *err) {
    cz_groth16_msm_results msm;
    cz_status st = cz_groth16_prove_start(&msm, params, pd, err);
    if (st != CZ_OK) return st;
    return cz_groth16_prove_finalize(out, &params->vk, &msm, r, s, err);
}
