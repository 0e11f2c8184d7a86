/* Device field and point arithmetic against the CPU twin (src/ff, src/ec):
 * random and edge inputs, bit-exact (field elements are fully reduced in
 * both, so results must be equal limb for limb). */
#include <stdlib.h>

#include "gpu_test_util.h"

#define N_RAND 4096
#define N_EDGE 16

static void check_fr(void) {
    size_t n = N_RAND + N_EDGE * N_EDGE;
    cz_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *g = malloc(n * sizeof *g);
    for (size_t i = 0; i < N_RAND; i++) gpu_rand_fr(&a[i]), gpu_rand_fr(&b[i]);
    for (size_t i = 0; i < N_EDGE * N_EDGE; i++)
        gpu_edge_fr(&a[N_RAND + i], (unsigned)(i / N_EDGE)),
            gpu_edge_fr(&b[N_RAND + i], (unsigned)(i % N_EDGE));
    for (int op = CZ_GPU_ADD; op <= CZ_GPU_NEG; op++) {
        cz_error err = {0};
        CHECK(cz_gpu_fr_eltwise((cz_gpu_op)op, g, a, b, n, &err) == CZ_OK);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            cz_fr c;
            switch (op) {
            case CZ_GPU_ADD: cz_fr_add(&c, &a[i], &b[i]); break;
            case CZ_GPU_SUB: cz_fr_sub(&c, &a[i], &b[i]); break;
            case CZ_GPU_MUL: cz_fr_mul(&c, &a[i], &b[i]); break;
            case CZ_GPU_SQR: cz_fr_sqr(&c, &a[i]); break;
            default: cz_fr_neg(&c, &a[i]); break;
            }
            if (memcmp(&c, &g[i], sizeof c)) bad++;
        }
        if (bad) fprintf(stderr, "fr op %d: %d mismatches\n", op, bad);
        CHECK(bad == 0);
    }
    free(a), free(b), free(g);
}

static void check_fp(void) {
    size_t n = N_RAND + N_EDGE * N_EDGE;
    cz_fp *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *g = malloc(n * sizeof *g);
    for (size_t i = 0; i < N_RAND; i++) gpu_rand_fp(&a[i]), gpu_rand_fp(&b[i]);
    for (size_t i = 0; i < N_EDGE * N_EDGE; i++)
        gpu_edge_fp(&a[N_RAND + i], (unsigned)(i / N_EDGE)),
            gpu_edge_fp(&b[N_RAND + i], (unsigned)(i % N_EDGE));
    for (int op = CZ_GPU_ADD; op <= CZ_GPU_NEG; op++) {
        cz_error err = {0};
        CHECK(cz_gpu_fp_eltwise((cz_gpu_op)op, g, a, b, n, &err) == CZ_OK);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            cz_fp c;
            switch (op) {
            case CZ_GPU_ADD: cz_fp_add(&c, &a[i], &b[i]); break;
            case CZ_GPU_SUB: cz_fp_sub(&c, &a[i], &b[i]); break;
            case CZ_GPU_MUL: cz_fp_mul(&c, &a[i], &b[i]); break;
            case CZ_GPU_SQR: cz_fp_sqr(&c, &a[i]); break;
            default: cz_fp_neg(&c, &a[i]); break;
            }
            if (memcmp(&c, &g[i], sizeof c)) bad++;
        }
        if (bad) fprintf(stderr, "fp op %d: %d mismatches\n", op, bad);
        CHECK(bad == 0);
    }
    free(a), free(b), free(g);
}

static void check_fp2(void) {
    size_t n = 2048;
    cz_fp2 *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *g = malloc(n * sizeof *g);
    for (size_t i = 0; i < n; i++) {
        gpu_rand_fp(&a[i].c0), gpu_rand_fp(&a[i].c1), gpu_rand_fp(&b[i].c0), gpu_rand_fp(&b[i].c1);
        if (i < 64)
            gpu_edge_fp(&a[i].c1, (unsigned)(i % 8)), gpu_edge_fp(&b[i].c0, (unsigned)(i / 8));
    }
    for (int op = CZ_GPU_ADD; op <= CZ_GPU_NEG; op++) {
        cz_error err = {0};
        CHECK(cz_gpu_fp2_eltwise((cz_gpu_op)op, g, a, b, n, &err) == CZ_OK);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            cz_fp2 c;
            switch (op) {
            case CZ_GPU_ADD: cz_fp2_add(&c, &a[i], &b[i]); break;
            case CZ_GPU_SUB: cz_fp2_sub(&c, &a[i], &b[i]); break;
            case CZ_GPU_MUL: cz_fp2_mul(&c, &a[i], &b[i]); break;
            case CZ_GPU_SQR: cz_fp2_sqr(&c, &a[i]); break;
            default: cz_fp2_neg(&c, &a[i]); break;
            }
            if (memcmp(&c, &g[i], sizeof c)) bad++;
        }
        if (bad) fprintf(stderr, "fp2 op %d: %d mismatches\n", op, bad);
        CHECK(bad == 0);
    }
    free(a), free(b), free(g);
}

/* Case i: b random, b = a, b = -a, a = inf, b = inf, both inf. */
#define POINT_CASES(G)                                                                             \
    static void check_##G(size_t n) {                                                              \
        cz_##G##_affine *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);                    \
        cz_##G *s = malloc(n * sizeof *s), *t = malloc(n * sizeof *t), *d = malloc(n * sizeof *d); \
        gpu_rand_##G(a, n);                                                                        \
        gpu_rand_##G(b, n);                                                                        \
        for (size_t i = 0; i < n; i++) {                                                           \
            switch (i % 8) {                                                                       \
            case 1: b[i] = a[i]; break;                                                            \
            case 2: cz_##G##_affine_neg(&b[i], &a[i]); break;                                      \
            case 3: memset(&a[i], 0, sizeof a[i]); break;                                          \
            case 4: memset(&b[i], 0, sizeof b[i]); break;                                          \
            case 5: memset(&a[i], 0, sizeof a[i]), memset(&b[i], 0, sizeof b[i]); break;           \
            default: break;                                                                        \
            }                                                                                      \
        }                                                                                          \
        cz_error err = {0};                                                                        \
        CHECK(cz_gpu_##G##_formulas(s, t, d, a, b, n, &err) == CZ_OK);                             \
        int bad = 0;                                                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            cz_##G ja, jb, r, u;                                                                   \
            cz_##G##_from_affine(&ja, &a[i]);                                                      \
            cz_##G##_from_affine(&jb, &b[i]);                                                      \
            cz_##G##_add(&r, &ja, &jb);                                                            \
            bad += !cz_##G##_equal(&r, &s[i]);                                                     \
            cz_##G##_dbl(&u, &ja);                                                                 \
            bad += !cz_##G##_equal(&u, &d[i]);                                                     \
            cz_##G##_add(&u, &u, &r);                                                              \
            bad += !cz_##G##_equal(&u, &t[i]);                                                     \
        }                                                                                          \
        if (bad) fprintf(stderr, #G " formulas: %d mismatches\n", bad);                            \
        CHECK(bad == 0);                                                                           \
        free(a), free(b), free(s), free(t), free(d);                                               \
    }
POINT_CASES(g1)
POINT_CASES(g2)

int main(void) {
    cz_test_init("gpu/test_gpu_arith");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    check_fr();
    check_fp();
    check_fp2();
    check_g1(512);
    check_g2(256);
    return cz_test_finish("gpu/test_gpu_arith");
}
