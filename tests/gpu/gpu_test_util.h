/* Helpers shared by the GPU tests: the "no device" skip and random inputs
 * built with the CPU code (the independent twin every kernel is compared
 * with). */
#ifndef CZ_TESTS_GPU_UTIL_H
#define CZ_TESTS_GPU_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/point.h"
#include "gpu/gpu.h"
#include "gpu/settings.h"
#include "harness/harness.h"
#include "r1cs/cs.h"

/* GPU knobs for the calls that follow: the GPU layer reads its environment
 * once (gpu/settings.h), so a test sets a knob here instead of with
 * setenv. gpu_knob(name, value) = the variable set to value (NULL: unset),
 * over the environment (a knob the environment sets, such as
 * gpu-check.sh's CZ_GPU_NTT_MAXB, stays unless overridden). Returns the
 * parse's status; the calls that use a malformed value report it. */
#define GPU_KNOBS_MAX 16
static const char *gpu_knob_names[GPU_KNOBS_MAX], *gpu_knob_values[GPU_KNOBS_MAX];
static int gpu_knob_count;

static inline const char *gpu_knob_lookup(const char *name, void *ctx) {
    (void)ctx;
    for (int i = 0; i < gpu_knob_count; i++)
        if (!strcmp(gpu_knob_names[i], name)) return gpu_knob_values[i];
    return getenv(name);
}

static inline cz_status gpu_knob(const char *name, const char *value) {
    int i = 0;
    while (i < gpu_knob_count && strcmp(gpu_knob_names[i], name)) i++;
    if (i == gpu_knob_count) {
        if (gpu_knob_count == GPU_KNOBS_MAX) abort();
        gpu_knob_names[gpu_knob_count++] = name;
    }
    gpu_knob_values[i] = value;
    return cz_gpu_settings_use_lookup(gpu_knob_lookup, NULL, NULL);
}

/* ctest treats this exit status as "skipped" (SKIP_RETURN_CODE). */
#define CZ_GPU_TEST_SKIP 77

/* Returns 1 when a device is usable; 0 after the skip line when there is no
 * GPU at all. A GPU this build cannot use (no code for it, a driver too old)
 * fails the test: skipping would hide exactly what the test is for. */
static inline int gpu_test_have_device(void) {
    char desc[256];
    cz_error err = {0};
    cz_status st = cz_gpu_probe(desc, sizeof desc, &err);
    if (st == CZ_E_NOT_FOUND) {
        printf("skipped: no CUDA device (%s)\n", err.message);
        return 0;
    }
    if (st != CZ_OK) {
        printf("FAILED: a CUDA device is present but unusable: %s\n", err.message);
        exit(1);
    }
    printf("device: %s\n", desc);
    return 1;
}

/* Uniform field elements by rejection: random limbs below 2^255 (Fr) or
 * 2^381 (Fp), kept when below the modulus (about 90 % / 80 % of draws).
 * Fast (the tests draw millions). */
static inline void gpu_rand_fr(cz_fr *r) {
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++) l[i] = cz_test_rand64();
        l[3] >>= 1;
    } while (!cz_fr_from_limbs(r, l));
}

static inline void gpu_rand_fp(cz_fp *r) {
    uint64_t l[6];
    do {
        for (int i = 0; i < 6; i++) l[i] = cz_test_rand64();
        l[5] >>= 3;
    } while (!cz_fp_from_limbs(r, l));
}

/* Field elements near the edges: 0, 1, -1, 2, small integers, p - small. */
static inline void gpu_edge_fr(cz_fr *r, unsigned i) {
    cz_fr_from_u64(r, i / 2);
    if (i & 1) cz_fr_neg(r, r);
}
static inline void gpu_edge_fp(cz_fp *r, unsigned i) {
    cz_fp_from_u64(r, i / 2);
    if (i & 1) cz_fp_neg(r, r);
}

/* n random affine points: a random multiple of the generator, then
 * consecutive sums with a random step, converted with one inversion. */
#define GPU_RAND_POINTS(G, F)                                                                      \
    static inline void gpu_rand_##G(cz_##G##_affine *out, size_t n) {                              \
        cz_##G g, step, cur;                                                                       \
        cz_fr k;                                                                                   \
        cz_##G##_generator(&g);                                                                    \
        gpu_rand_fr(&k);                                                                           \
        cz_##G##_mul_var(&step, &g, &k);                                                           \
        gpu_rand_fr(&k);                                                                           \
        cz_##G##_mul_var(&cur, &g, &k);                                                            \
        const size_t chunk = 4096;                                                                 \
        cz_##G *jac = malloc(chunk * sizeof *jac);                                                 \
        F *scratch = malloc(chunk * sizeof *scratch);                                              \
        for (size_t i = 0; i < n; i += chunk) {                                                    \
            size_t m = n - i < chunk ? n - i : chunk;                                              \
            for (size_t j = 0; j < m; j++) {                                                       \
                jac[j] = cur;                                                                      \
                cz_##G##_add(&cur, &cur, &step);                                                   \
            }                                                                                      \
            cz_##G##_batch_to_affine(out + i, jac, m, scratch);                                    \
        }                                                                                          \
        free(jac);                                                                                 \
        free(scratch);                                                                             \
    }
GPU_RAND_POINTS(g1, cz_fp)
GPU_RAND_POINTS(g2, cz_fp2)

/* Whether two sets of the prover's five sums are the same group elements. */
static inline int gpu_test_sums_equal(const cz_groth16_msm_results *x,
                                      const cz_groth16_msm_results *y) {
    return cz_g1_equal(&x->h, &y->h) && cz_g1_equal(&x->l, &y->l) && cz_g1_equal(&x->a, &y->a) &&
           cz_g1_equal(&x->b_g1, &y->b_g1) && cz_g2_equal(&x->b_g2, &y->b_g2);
}

/* A small circuit for prover tests, n + n / 4 + 1 constraints:
 * v_0 = x^2, v_{j+1} = v_j (x + j) + v_{j-1}, w_j = v_j only in C every 4th
 * step: A and B hold inputs and aux, some aux are in neither. */
static inline void gpu_test_chain(cz_cs *cs, size_t n) {
    const int witness = cz_cs_has_witness(cs);
    cz_fr xv, one;
    cz_fr_from_u64(&xv, 3);
    cz_fr_from_u64(&one, 1);
    cz_var x = cz_cs_alloc_input(cs, witness ? &xv : NULL);
    cz_fr prev = one, cur;
    cz_fr_mul(&cur, &xv, &xv);
    cz_var vprev = CZ_VAR_ONE, v = cz_cs_alloc(cs, witness ? &cur : NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    cz_lc_add_var(&a, x);
    cz_lc_add_var(&b, x);
    cz_lc_add_var(&c, v);
    cz_cs_enforce(cs, &a, &b, &c);
    for (size_t j = 0; j < n; j++) {
        cz_fr k, sum, next;
        cz_fr_from_u64(&k, j);
        cz_fr_add(&sum, &xv, &k);
        cz_fr_mul(&next, &cur, &sum);
        cz_fr_add(&next, &next, &prev);
        cz_var w = cz_cs_alloc(cs, witness ? &next : NULL);
        cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
        cz_lc_add_var(&a, v);
        cz_lc_add_var(&b, x);
        cz_lc_add(&b, CZ_VAR_ONE, &k);
        cz_lc_add_var(&c, w);
        cz_lc_sub_var(&c, vprev);
        cz_cs_enforce(cs, &a, &b, &c);
        if (j % 4 == 0) {
            cz_var u = cz_cs_alloc(cs, witness ? &next : NULL);
            cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
            cz_lc_add_var(&a, w);
            cz_lc_add_var(&b, CZ_VAR_ONE);
            cz_lc_add_var(&c, u);
            cz_cs_enforce(cs, &a, &b, &c);
        }
        vprev = v, v = w, prev = cur, cur = next;
    }
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

/* A new aux t = value (0 or 1) enforced as t * t = t: the witnesses of
 * mostly 0 and 1 the provers' splits are for. */
static inline void gpu_test_bit(cz_cs *cs, uint64_t value) {
    cz_fr tv;
    cz_fr_from_u64(&tv, value);
    cz_var t = cz_cs_alloc(cs, cz_cs_has_witness(cs) ? &tv : NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    cz_lc_add_var(&a, t);
    cz_lc_add_var(&b, t);
    cz_lc_add_var(&c, t);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

#endif
