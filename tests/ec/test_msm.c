/* MSM and fixed-base multiplication: against @noble/curves vectors, and
 * against sums of single scalar multiplications on random and edge inputs. */
#include <stdlib.h>
#include <string.h>

#include "ec/msm.h"
#include "harness/bls_vectors.h"

static void random_fr(cz_fr *k) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(k, b, sizeof b);
}

/* The same test body for both groups. */
#define MSM_TESTS(G, F_T)                                                                          \
    static void G##_vectors(const char *file) {                                                    \
        cz_vector_file vf;                                                                         \
        if (!cz_vector_open(&vf, file)) return;                                                    \
        int cases = 0;                                                                             \
        while (cz_vector_next(&vf)) {                                                              \
            size_t n = strtoul(vf.fields[0], NULL, 10);                                            \
            CHECK(vf.nfields == (int)(2 * n + 2));                                                 \
            if (vf.nfields != (int)(2 * n + 2)) break;                                             \
            cz_##G##_affine *pts = malloc(n * sizeof *pts), want_a, got_a;                         \
            cz_fr *sc = malloc(n * sizeof *sc);                                                    \
            for (size_t i = 0; i < n; i++) cz_vec_##G(&vf, 1 + (int)i, &pts[i]);                   \
            for (size_t i = 0; i < n; i++) cz_vec_fr(&vf, 1 + (int)(n + i), &sc[i]);               \
            cz_vec_##G(&vf, (int)(2 * n + 1), &want_a);                                            \
            cz_##G got;                                                                            \
            CHECK(cz_##G##_msm(&got, pts, sc, n) == CZ_OK);                                        \
            cz_##G##_to_affine(&got_a, &got);                                                      \
            CHECK(cz_##G##_affine_equal(&got_a, &want_a));                                         \
            free(pts);                                                                             \
            free(sc);                                                                              \
            cases++;                                                                               \
        }                                                                                          \
        cz_vector_close(&vf);                                                                      \
        CHECK(cases > 0);                                                                          \
        printf(#G ": %d noble MSM vectors\n", cases);                                              \
    }                                                                                              \
                                                                                                   \
    /* kind: 0 random, 1 all-zero scalars, 2 all-one, 3 one repeated point with small scalars,     \
     * 4 infinity points mixed in, 5 scalars r-1 */                                                \
    static void G##_random(size_t n, int kind) {                                                   \
        cz_##G##_affine *pts = malloc((n + 1) * sizeof *pts);                                      \
        cz_fr *sc = malloc((n + 1) * sizeof *sc);                                                  \
        cz_##G *jac = malloc((n + 1) * sizeof *jac);                                               \
        F_T *scratch = malloc((n + 1) * sizeof *scratch);                                          \
        cz_##G gen, want, got, t;                                                                  \
        cz_##G##_generator(&gen);                                                                  \
        for (size_t i = 0; i < n; i++) {                                                           \
            cz_fr k;                                                                               \
            random_fr(&k);                                                                         \
            if (kind == 3)                                                                         \
                jac[i] = gen;                                                                      \
            else                                                                                   \
                cz_##G##_mul_var(&jac[i], &gen, &k);                                               \
            if (kind == 4 && i % 3 == 0) cz_##G##_set_infinity(&jac[i]);                           \
            if (kind == 1)                                                                         \
                sc[i] = cz_fr_zero;                                                                \
            else if (kind == 2)                                                                    \
                sc[i] = cz_fr_one;                                                                 \
            else if (kind == 3)                                                                    \
                cz_fr_from_u64(&sc[i], 1 + i % 5);                                                 \
            else if (kind == 5)                                                                    \
                cz_fr_neg(&sc[i], &cz_fr_one);                                                     \
            else                                                                                   \
                random_fr(&sc[i]);                                                                 \
        }                                                                                          \
        cz_##G##_batch_to_affine(pts, jac, n, scratch);                                            \
        cz_##G##_set_infinity(&want);                                                              \
        for (size_t i = 0; i < n; i++) {                                                           \
            cz_##G##_from_affine(&t, &pts[i]);                                                     \
            cz_##G##_mul_var(&t, &t, &sc[i]);                                                      \
            cz_##G##_add(&want, &want, &t);                                                        \
        }                                                                                          \
        CHECK(cz_##G##_msm(&got, pts, sc, n) == CZ_OK);                                            \
        CHECK(cz_##G##_equal(&got, &want));                                                        \
        free(pts);                                                                                 \
        free(sc);                                                                                  \
        free(jac);                                                                                 \
        free(scratch);                                                                             \
    }                                                                                              \
                                                                                                   \
    static void G##_fixed_base(size_t n) {                                                         \
        cz_##G##_fixed_base *table = malloc(sizeof *table);                                        \
        cz_##G##_affine *out = malloc(n * sizeof *out), want_a;                                    \
        cz_fr *sc = malloc(n * sizeof *sc);                                                        \
        cz_##G base, want;                                                                         \
        cz_fr k;                                                                                   \
        random_fr(&k);                                                                             \
        cz_##G##_generator(&base);                                                                 \
        cz_##G##_mul_var(&base, &base, &k);                                                        \
        CHECK(cz_##G##_fixed_base_init(table, &base) == CZ_OK);                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (i == 0)                                                                            \
                sc[i] = cz_fr_zero;                                                                \
            else if (i == 1)                                                                       \
                cz_fr_neg(&sc[i], &cz_fr_one);                                                     \
            else                                                                                   \
                random_fr(&sc[i]);                                                                 \
        }                                                                                          \
        CHECK(cz_##G##_fixed_base_mul(out, table, sc, n) == CZ_OK);                                \
        for (size_t i = 0; i < n; i++) {                                                           \
            cz_##G##_mul_var(&want, &base, &sc[i]);                                                \
            cz_##G##_to_affine(&want_a, &want);                                                    \
            CHECK(cz_##G##_affine_equal(&out[i], &want_a));                                        \
        }                                                                                          \
        free(table);                                                                               \
        free(out);                                                                                 \
        free(sc);                                                                                  \
    }

MSM_TESTS(g1, cz_fp)
MSM_TESTS(g2, cz_fp2)

int main(void) {
    cz_test_init("test_msm");
    g1_vectors("msm_g1.txt");
    g2_vectors("msm_g2.txt");
    static const size_t sizes[] = {0, 1, 2, 3, 31, 257, 1500};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 6; kind++) {
            g1_random(sizes[s], kind);
            if (sizes[s] <= 257) g2_random(sizes[s], kind);
        }
    g1_fixed_base(300);
    g2_fixed_base(100);
    return cz_test_finish("test_msm");
}
