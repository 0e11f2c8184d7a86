/* cz_gpu_groth16_prove_start: the Groth16 heavy part on the device, with the
 * CPU prover's definitions (groth16/prover.h):
 *   h    = sum_{i < m-1} H_i h[i], H from the H chain on the device:
 *          iNTT (NR) of a, b, c; coset NTT (RN) of each; a = (a b - c) / Z;
 *          coset iNTT (NN) -> coefficients in natural order (bellperson's
 *          execute_fft; the scalars stay on the device for the H MSM);
 *   l    = sum_v aux_v l[v];
 *   a, b_g1, b_g2 over the density-compacted assignment.
 * Everything here goes through the C interface of gpu.h, so this file is C. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "r1cs/backends.h"

static size_t compact(cz_fr *out, const cz_fr *in, const uint64_t *bits, uint64_t n) {
    size_t k = 0;
    for (uint64_t i = 0; i < n; i++)
        if (cz_density_get(bits, i)) out[k++] = in[i];
    return k;
}

/* out = MSM over n host points and device scalars (points uploaded). */
static cz_status g1_msm_host_points(cz_g1 *out, const cz_g1_affine *pts, const cz_fr *dev_scalars,
                                    size_t n, const char *name, cz_error *err) {
    if (n == 0) {
        cz_g1_set_infinity(out);
        return CZ_OK;
    }
    cz_g1_affine *dp = NULL;
    cz_status st = cz_gpu_alloc((void **)&dp, n * sizeof *dp, err);
    if (st == CZ_OK) st = cz_gpu_upload(dp, pts, n * sizeof *dp, err);
    if (st == CZ_OK) st = cz_gpu_g1_msm(out, dp, dev_scalars, n, err);
    cz_gpu_free(dp);
    if (st != CZ_OK) cz_error_prefix(err, "gpu prove: %s MSM (%zu points)", name, n);
    return st;
}

static cz_status upload_scalars(cz_fr **dev, const cz_fr *host, size_t n, cz_error *err) {
    cz_status st = cz_gpu_alloc((void **)dev, (n ? n : 1) * sizeof(cz_fr), err);
    if (st == CZ_OK) st = cz_gpu_upload(*dev, host, n * sizeof(cz_fr), err);
    return st;
}

cz_status cz_gpu_groth16_prove_start(cz_groth16_msm_results *out, const cz_groth16_params *params,
                                     const cz_prove_data *pd, cz_error *err) {
    cz_status st = cz_groth16_check_shapes(params, pd, err);
    if (st != CZ_OK) return st;
    unsigned k = 0;
    if ((st = cz_groth16_domain_log_size(&k, pd->num_constraints, err)) != CZ_OK) return st;
    const size_t m = (size_t)1 << k, n = pd->num_constraints;
    const size_t ni = pd->num_inputs, na = pd->num_aux;
    cz_gpu_ntt *dom = NULL;
    cz_fr *dabc = NULL, *ds = NULL, *host = NULL, *sa = NULL, *sb = NULL;

    /* ---- H chain ---- */
    if ((st = cz_gpu_ntt_create(&dom, k, err)) != CZ_OK) goto done;
    if ((st = cz_gpu_alloc((void **)&dabc, 3 * m * sizeof(cz_fr), err)) != CZ_OK) goto done;
    host = calloc(m, sizeof *host);
    if (!host) {
        st = cz_error_set(err, CZ_E_NOMEM, "gpu prove: out of host memory (2^%u)", k);
        goto done;
    }
    {
        const cz_fr *src[3] = {pd->a, pd->b, pd->c};
        for (int j = 0; j < 3; j++) {
            memcpy(host, src[j], n * sizeof *host); /* zero-padded to m */
            if ((st = cz_gpu_upload(dabc + j * m, host, m * sizeof *host, err)) != CZ_OK) goto done;
            st = cz_gpu_ntt_transform(dom, dabc + j * m, CZ_NTT_NR, CZ_NTT_INVERSE, CZ_NTT_PLAIN,
                                      err);
            if (st == CZ_OK)
                st = cz_gpu_ntt_transform(dom, dabc + j * m, CZ_NTT_RN, CZ_NTT_FORWARD,
                                          CZ_NTT_COSET, err);
            if (st != CZ_OK) goto done;
        }
    }
    if ((st = cz_gpu_ntt_coset_quotient(dom, dabc, dabc + m, dabc + 2 * m, err)) != CZ_OK)
        goto done;
    st = cz_gpu_ntt_transform(dom, dabc, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_COSET, err);
    if (st != CZ_OK) goto done;
    {
        cz_fr top;
        if ((st = cz_gpu_download(&top, dabc + m - 1, sizeof top, err)) != CZ_OK) goto done;
        if (!cz_fr_is_zero(&top)) {
            st = cz_error_set(err, CZ_E_INVALID_ARG,
                              "prove: the witness does not satisfy the constraints (A B - C is "
                              "not divisible by Z: H has degree m - 1)");
            goto done;
        }
    }
    if ((st = g1_msm_host_points(&out->h, params->h, dabc, m - 1, "H", err)) != CZ_OK) goto done;
    cz_gpu_free(dabc);
    dabc = NULL;
    cz_gpu_ntt_destroy(dom);
    dom = NULL;

    /* ---- L ---- */
    if ((st = upload_scalars(&ds, pd->aux_assignment, na, err)) != CZ_OK) goto done;
    if ((st = g1_msm_host_points(&out->l, params->l, ds, na, "L", err)) != CZ_OK) goto done;
    cz_gpu_free(ds);
    ds = NULL;

    /* ---- A, B (density-compacted, as the CPU prover) ---- */
    sa = malloc((params->n_a ? params->n_a : 1) * sizeof *sa);
    sb = malloc((params->n_b_g1 ? params->n_b_g1 : 1) * sizeof *sb);
    if (!sa || !sb) {
        st = cz_error_set(err, CZ_E_NOMEM, "gpu prove: out of memory for the A/B scalars");
        goto done;
    }
    memcpy(sa, pd->input_assignment, ni * sizeof *sa);
    compact(sa + ni, pd->aux_assignment, pd->a_aux_density, na);
    {
        size_t nb_in = compact(sb, pd->input_assignment, pd->b_input_density, ni);
        compact(sb + nb_in, pd->aux_assignment, pd->b_aux_density, na);
    }
    if ((st = upload_scalars(&ds, sa, params->n_a, err)) != CZ_OK) goto done;
    if ((st = g1_msm_host_points(&out->a, params->a, ds, params->n_a, "A", err)) != CZ_OK)
        goto done;
    cz_gpu_free(ds);
    ds = NULL;
    if ((st = upload_scalars(&ds, sb, params->n_b_g1, err)) != CZ_OK) goto done;
    st = g1_msm_host_points(&out->b_g1, params->b_g1, ds, params->n_b_g1, "B1", err);
    if (st != CZ_OK) goto done;
    if (params->n_b_g2 == 0) {
        cz_g2_set_infinity(&out->b_g2);
    } else {
        cz_g2_affine *dp = NULL;
        st = cz_gpu_alloc((void **)&dp, params->n_b_g2 * sizeof *dp, err);
        if (st == CZ_OK) st = cz_gpu_upload(dp, params->b_g2, params->n_b_g2 * sizeof *dp, err);
        if (st == CZ_OK) st = cz_gpu_g2_msm(&out->b_g2, dp, ds, params->n_b_g2, err);
        cz_gpu_free(dp);
        if (st != CZ_OK) cz_error_prefix(err, "gpu prove: B2 MSM (%zu points)", params->n_b_g2);
    }
done:
    cz_gpu_ntt_destroy(dom);
    cz_gpu_free(dabc);
    cz_gpu_free(ds);
    free(host);
    free(sa);
    free(sb);
    return st;
}
