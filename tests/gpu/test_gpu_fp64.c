/* The FP64-limb Montgomery product on the device (src/gpu/fp64.cu, issue 29)
 * against the CPU: canonical inputs against cz_fp_mul / cz_fr_mul through the
 * project's form (independent of fp64_mont.h), lazy and edge inputs against
 * the host copy of fp64_mont.h (which tests/ff/test_fp64_mont.c holds to
 * src/ff and GMP): bit-exact, limb for limb. CZ_TEST_ITERS sets the random
 * products per field (default 2^20; docs/TESTING.md: 10^8 on the H200). */
#include <stdlib.h>

#include "gpu_test_util.h"

#define CHUNK (1u << 22)

/* Adds the modulus to little-endian words (no carry out for the callers). */
static void words_add(uint64_t *r, const uint64_t *a, const uint64_t *b, int n) {
    uint64_t carry = 0;
    for (int i = 0; i < n; i++) {
        const uint64_t s = a[i] + b[i], c1 = s < a[i];
        r[i] = s + carry;
        carry = c1 | (r[i] < carry);
    }
}

/* Fp: element i of a chunk. Kinds by i mod 4: canonical (from cz_fp), lazy
 * (canonical + p, < 2p), edge (first 64 of the chunk), canonical. */
static void make_fp(cz_fp64_fp *a, cz_fp *canon, int *is_canon, size_t i) {
    uint64_t w[6];
    gpu_rand_fp(canon);
    memcpy(w, canon->l, sizeof w);
    *is_canon = 1;
    if (i < 64) {
        static const uint64_t one[6] = {1, 0, 0, 0, 0, 0};
        uint64_t pm1[6], twop_m1[6];
        memcpy(pm1, cz_fp_modulus, sizeof pm1);
        pm1[0] -= 1; /* p - 1: p is odd */
        words_add(twop_m1, cz_fp_modulus, pm1, 6);
        switch (i % 8) {
        case 0: memset(w, 0, sizeof w); break;
        case 1: memcpy(w, one, sizeof w); break;
        case 2: memcpy(w, pm1, sizeof w); break;
        case 3: memcpy(w, cz_fp_one.l, sizeof w); break;
        case 4: memcpy(w, cz_fp_modulus, sizeof w), *is_canon = 0; break;
        case 5: memcpy(w, twop_m1, sizeof w), *is_canon = 0; break;
        default: break;
        }
        if (*is_canon) memcpy(canon->l, w, sizeof w);
    } else if (i % 4 == 1) {
        words_add(w, w, cz_fp_modulus, 6);
        *is_canon = 0;
    }
    cz_fp64_fp_load(a, w);
}

/* Fr: canonical (from cz_fr), or raw 51-bit limbs (every value < 2^255 is a
 * valid input: lazy or not), every limb 2^51 - 1 and zero among the first. */
static void make_fr(cz_fp64_fr *a, cz_fr *canon, int *is_canon, size_t i) {
    gpu_rand_fr(canon);
    cz_fp64_fr_load(a, canon->l);
    *is_canon = 1;
    if (i % 4 == 1 || (i < 64 && i % 8 == 5)) {
        for (int j = 0; j < CZ_FP64_FR_LIMBS; j++)
            a->l[j] = (double)(i % 8 == 5 ? (1ULL << 51) - 1 : cz_test_rand64() >> 13);
        *is_canon = 0;
    } else if (i < 64 && i % 8 == 0) {
        memset(canon, 0, sizeof *canon);
        cz_fp64_fr_load(a, canon->l);
    }
}

/* check_fp / check_fr: device products of `total` pairs in chunks, each
 * against the host's FP64 product, the canonical ones also against src/ff. */
#define CHECK_FIELD(NAME, LABEL, T64, TFF, MAKE, GPU_MUL, HOST_MUL, STORE, FF_MUL)                 \
    static void NAME(size_t total) {                                                               \
        T64 *a = malloc(CHUNK * sizeof *a), *b = malloc(CHUNK * sizeof *b),                        \
            *g = malloc(CHUNK * sizeof *g);                                                        \
        TFF *ca = malloc(CHUNK * sizeof *ca), *cb = malloc(CHUNK * sizeof *cb);                    \
        int *ka = malloc(CHUNK * sizeof *ka), *kb = malloc(CHUNK * sizeof *kb);                    \
        size_t bad_host = 0, bad_ff = 0, vs_ff = 0;                                                \
        for (size_t done = 0; done < total; done += CHUNK) {                                       \
            const size_t n = total - done < CHUNK ? total - done : CHUNK;                          \
            for (size_t i = 0; i < n; i++) {                                                       \
                MAKE(&a[i], &ca[i], &ka[i], i);                                                    \
                MAKE(&b[i], &cb[i], &kb[i], i < 64 ? i / 8 : i + 2);                               \
            }                                                                                      \
            cz_error err = {0};                                                                    \
            CHECK(GPU_MUL(g, a, b, n, &err) == CZ_OK);                                             \
            for (size_t i = 0; i < n; i++) {                                                       \
                T64 h;                                                                             \
                HOST_MUL(&h, &a[i], &b[i]);                                                        \
                bad_host += memcmp(&h, &g[i], sizeof h) != 0;                                      \
                if (ka[i] && kb[i]) {                                                              \
                    TFF want, got;                                                                 \
                    FF_MUL(&want, &ca[i], &cb[i]);                                                 \
                    STORE(got.l, &g[i]);                                                           \
                    bad_ff += memcmp(&want, &got, sizeof want) != 0;                               \
                    vs_ff++;                                                                       \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        printf("%s: %zu device products, %zu differ from the host's, %zu of %zu canonical ones "   \
               "differ from src/ff\n",                                                             \
               LABEL, total, bad_host, bad_ff, vs_ff);                                             \
        CHECK(bad_host == 0 && bad_ff == 0);                                                       \
        free(a), free(b), free(g), free(ca), free(cb), free(ka), free(kb);                         \
    }
CHECK_FIELD(check_fp, "Fp", cz_fp64_fp, cz_fp, make_fp, cz_gpu_fp64_fp_mul, cz_fp64_fp_mul,
            cz_fp64_fp_store, cz_fp_mul)
CHECK_FIELD(check_fr, "Fr", cz_fp64_fr, cz_fr, make_fr, cz_gpu_fp64_fr_mul, cz_fp64_fr_mul,
            cz_fp64_fr_store, cz_fr_mul)

int main(void) {
    cz_test_init("gpu/test_gpu_fp64");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    const size_t total = cz_test_iters(1u << 20);
    check_fp(total);
    check_fr(total);
    return cz_test_finish("gpu/test_gpu_fp64");
}
