/* Device MSM (G1, G2; XYZZ and batch-affine accumulation), batch addition
 * and scalar classification against the CPU (src/ec/msm.h and plain point
 * sums): sizes 0, 1, 2, 3, 1000, 2^16 + 3, infinity points, one point
 * repeated or alternating with its negation, all-zero / all-one / small /
 * skewed / negative scalars. */
#include <stdlib.h>

#include "ec/msm.h"
#include "gpu_test_util.h"

typedef enum { S_RANDOM, S_ZERO, S_ONE, S_SMALL, S_SAME, S_MINUS, S_MIXED, S_COUNT } scalar_kind;
static const char *kind_name[S_COUNT] = {"random", "zero",  "one",  "small",
                                         "same",   "minus", "mixed"};

static void make_scalars(cz_fr *s, size_t n, scalar_kind kind) {
    cz_fr same;
    gpu_rand_fr(&same);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case S_RANDOM: gpu_rand_fr(&s[i]); break;
        case S_ZERO: s[i] = cz_fr_zero; break;
        case S_ONE: s[i] = cz_fr_one; break;
        case S_SMALL: cz_fr_from_u64(&s[i], cz_test_rand64() % 5); break;
        case S_SAME: s[i] = same; break;
        case S_MINUS: /* -1, -2, ...: the top half of the field, negated digits */
            cz_fr_from_u64(&s[i], 1 + cz_test_rand64() % 3);
            cz_fr_neg(&s[i], &s[i]);
            break;
        default: { /* 0 / 1 / random / 2^k */
            uint64_t r = cz_test_rand64() % 4;
            if (r == 0)
                s[i] = cz_fr_zero;
            else if (r == 1)
                s[i] = cz_fr_one;
            else if (r == 2)
                gpu_rand_fr(&s[i]);
            else {
                uint64_t limbs[4] = {0, 0, 0, 0};
                unsigned b = (unsigned)(cz_test_rand64() % 254);
                limbs[b / 64] = 1ULL << (b % 64);
                cz_fr_from_limbs(&s[i], limbs);
            }
        }
        }
    }
}

#define MSM_CHECK(G)                                                                               \
    static void check_msm_##G(const cz_##G##_affine *pts, size_t n, scalar_kind kind) {            \
        cz_error err = {0};                                                                        \
        cz_fr *s = malloc((n ? n : 1) * sizeof *s);                                                \
        make_scalars(s, n, kind);                                                                  \
        cz_##G##_affine *dp = NULL;                                                                \
        cz_fr *ds = NULL;                                                                          \
        CHECK(cz_gpu_alloc((void **)&dp, n * sizeof *dp, &err) == CZ_OK);                          \
        CHECK(cz_gpu_alloc((void **)&ds, n * sizeof *ds, &err) == CZ_OK);                          \
        CHECK(cz_gpu_upload(dp, pts, n * sizeof *dp, &err) == CZ_OK);                              \
        CHECK(cz_gpu_upload(ds, s, n * sizeof *ds, &err) == CZ_OK);                                \
        cz_##G cpu, gpu;                                                                           \
        CHECK(cz_##G##_msm(&cpu, pts, s, n) == CZ_OK);                                             \
        cz_status st = cz_gpu_##G##_msm(&gpu, dp, ds, n, &err);                                    \
        if (st != CZ_OK) fprintf(stderr, "%s\n", err.message);                                     \
        CHECK(st == CZ_OK);                                                                        \
        int ok = cz_##G##_equal(&cpu, &gpu);                                                       \
        if (!ok) fprintf(stderr, #G " msm n=%zu scalars=%s: mismatch\n", n, kind_name[kind]);      \
        CHECK(ok);                                                                                 \
        cz_gpu_free(dp);                                                                           \
        cz_gpu_free(ds);                                                                           \
        free(s);                                                                                   \
    }
MSM_CHECK(g1)
MSM_CHECK(g2)

#define BATCH_CHECK(G)                                                                             \
    static void check_batch_##G(const cz_##G##_affine *pts, size_t n, unsigned density_pct) {      \
        cz_error err = {0};                                                                        \
        size_t words = (n + 63) / 64;                                                              \
        uint64_t *bm = calloc(words ? words : 1, 8);                                               \
        cz_##G cpu, gpu;                                                                           \
        cz_##G##_set_infinity(&cpu);                                                               \
        for (size_t i = 0; i < n; i++)                                                             \
            if (cz_test_rand64() % 100 < density_pct) {                                            \
                bm[i / 64] |= 1ULL << (i % 64);                                                    \
                cz_##G##_add_affine(&cpu, &cpu, &pts[i]);                                          \
            }                                                                                      \
        cz_##G##_affine *dp = NULL;                                                                \
        uint64_t *db = NULL;                                                                       \
        CHECK(cz_gpu_alloc((void **)&dp, n * sizeof *dp, &err) == CZ_OK);                          \
        CHECK(cz_gpu_alloc((void **)&db, words * 8, &err) == CZ_OK);                               \
        CHECK(cz_gpu_upload(dp, pts, n * sizeof *dp, &err) == CZ_OK);                              \
        CHECK(cz_gpu_upload(db, bm, words * 8, &err) == CZ_OK);                                    \
        CHECK(cz_gpu_##G##_batch_add(&gpu, dp, db, n, &err) == CZ_OK);                             \
        int ok = cz_##G##_equal(&cpu, &gpu);                                                       \
        if (!ok) fprintf(stderr, #G " batch add n=%zu density %u%%: mismatch\n", n, density_pct);  \
        CHECK(ok);                                                                                 \
        cz_gpu_free(dp);                                                                           \
        cz_gpu_free(db);                                                                           \
        free(bm);                                                                                  \
    }
BATCH_CHECK(g1)
BATCH_CHECK(g2)

/* Point sets for batch addition's exceptional cases: 0 all equal (P + P),
 * 1 alternating P, -P (P + (-P)), 2 all infinity, 3 a random mix of P, -P,
 * infinity, 2P-like repeats and random points; every size, 64 or not. */
#define BATCH_SPECIAL(G)                                                                           \
    static void batch_special_##G(const cz_##G##_affine *base, size_t nbase, size_t n) {           \
        cz_##G##_affine *q = malloc((n ? n : 1) * sizeof *q), P = base[1], N;                      \
        cz_##G##_affine_neg(&N, &P);                                                               \
        for (int kind = 0; kind < 4; kind++) {                                                     \
            for (size_t i = 0; i < n; i++) {                                                       \
                uint64_t r = cz_test_rand64() % 5;                                                 \
                if (kind == 0)                                                                     \
                    q[i] = P;                                                                      \
                else if (kind == 1)                                                                \
                    q[i] = (i & 1) ? N : P;                                                        \
                else if (kind == 2 || r == 2)                                                      \
                    memset(&q[i], 0, sizeof q[i]);                                                 \
                else if (r < 2)                                                                    \
                    q[i] = r ? N : P;                                                              \
                else                                                                               \
                    q[i] = base[2 + cz_test_rand64() % (nbase - 2 < 8 ? nbase - 2 : 8)];           \
            }                                                                                      \
            check_batch_##G(q, n, 100);                                                            \
            check_batch_##G(q, n, 50);                                                             \
        }                                                                                          \
        free(q);                                                                                   \
    }
BATCH_SPECIAL(g1)
BATCH_SPECIAL(g2)

/* Batch addition's knobs (src/gpu/batch.cu), read at every call: set v
 * forces the affine levels, their strided loops and chunking onto small
 * inputs; set 0 is the defaults. */
static void batch_knobs(int v) {
    static const char *names[] = {"CZ_GPU_BATCH_T",  "CZ_GPU_BATCH_KMIN",  "CZ_GPU_BATCH_LEVELS",
                                  "CZ_GPU_BATCH_T2", "CZ_GPU_BATCH_CHUNK", "CZ_GPU_BATCH_FANIN"};
    static const char *sets[][6] = {
        {NULL, NULL, NULL, NULL, NULL, NULL},
        {"7", "1", NULL, "5", "192", "4"},       /* levels down to a few points, chunks of 192 */
        {"64", "1", "64", "1", "1048576", NULL}, /* affine levels down to one point */
        {"3", "2", "1", "100", "64", "8"},       /* one level, chunks of one bitmap word */
        {NULL, NULL, "0", "33", NULL, NULL},     /* XYZZ only, through the index list */
    };
    for (int i = 0; i < 6; i++) {
        if (sets[v][i])
            gpu_knob(names[i], sets[v][i]);
        else
            gpu_knob(names[i], NULL);
    }
}

static void check_classify(size_t n) {
    cz_error err = {0};
    cz_fr *s = malloc((n ? n : 1) * sizeof *s);
    make_scalars(s, n, S_MIXED);
    size_t words = (n + 63) / 64;
    uint64_t *ones = malloc((words ? words : 1) * 8);
    uint32_t *tail = malloc((n ? n : 1) * 4);
    cz_fr *ds = NULL;
    uint64_t *dones = NULL;
    uint32_t *dtail = NULL;
    CHECK(cz_gpu_alloc((void **)&ds, n * sizeof *ds, &err) == CZ_OK);
    CHECK(cz_gpu_alloc((void **)&dones, words * 8, &err) == CZ_OK);
    CHECK(cz_gpu_alloc((void **)&dtail, n * 4, &err) == CZ_OK);
    CHECK(cz_gpu_upload(ds, s, n * sizeof *ds, &err) == CZ_OK);
    size_t tc = 0;
    CHECK(cz_gpu_classify(ds, n, dones, dtail, &tc, &err) == CZ_OK);
    CHECK(cz_gpu_download(ones, dones, words * 8, &err) == CZ_OK);
    CHECK(cz_gpu_download(tail, dtail, tc * 4, &err) == CZ_OK);
    size_t t = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        int one = cz_fr_is_one(&s[i]), zero = cz_fr_is_zero(&s[i]);
        bad += (int)((ones[i / 64] >> (i % 64)) & 1) != one;
        if (!one && !zero) bad += t >= tc || tail[t++] != i;
    }
    for (size_t i = n; i < words * 64; i++) bad += (ones[i / 64] >> (i % 64)) & 1;
    bad += t != tc;
    if (bad) fprintf(stderr, "classify n=%zu: %zu errors\n", n, bad);
    CHECK(bad == 0);
    cz_gpu_free(ds), cz_gpu_free(dones), cz_gpu_free(dtail);
    free(s), free(ones), free(tail);
}

/* A carried G1 sum (gpu.h cz_gpu_msm_sum) of the n points in pieces of
 * piece points, window c, against the CPU's MSM of all of them. */
static void check_carried(const cz_g1_affine *pts, size_t n, size_t piece, unsigned c,
                          scalar_kind kind) {
    cz_error err = {0};
    cz_fr *s = malloc((n ? n : 1) * sizeof *s);
    make_scalars(s, n, kind);
    cz_g1_affine *dp = NULL;
    cz_fr *ds = NULL;
    void *buckets = NULL;
    CHECK(cz_gpu_alloc((void **)&dp, n * sizeof *dp + 1, &err) == CZ_OK);
    CHECK(cz_gpu_alloc((void **)&ds, n * sizeof *ds + 1, &err) == CZ_OK);
    CHECK(cz_gpu_alloc(&buckets, cz_gpu_plan_msm_sum_bytes(c), &err) == CZ_OK);
    CHECK(cz_gpu_upload(dp, pts, n * sizeof *dp, &err) == CZ_OK);
    CHECK(cz_gpu_upload(ds, s, n * sizeof *ds, &err) == CZ_OK);
    cz_g1 cpu, gpu;
    CHECK(cz_g1_msm(&cpu, pts, s, n) == CZ_OK);
    cz_gpu_msm_sum sum;
    cz_status st = cz_gpu_g1_msm_sum_begin(&sum, buckets, c, &err);
    for (size_t k0 = 0; k0 < n && st == CZ_OK; k0 += piece)
        st = cz_gpu_g1_msm_sum_add(&sum, dp + k0, ds + k0, n - k0 < piece ? n - k0 : piece, &err);
    if (st == CZ_OK) st = cz_gpu_g1_msm_sum_end(&gpu, &sum, &err);
    if (st != CZ_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(st == CZ_OK);
    const int ok = cz_g1_equal(&cpu, &gpu);
    if (!ok)
        fprintf(stderr, "carried g1 sum n=%zu piece=%zu c=%u scalars=%s: mismatch\n", n, piece, c,
                kind_name[kind]);
    CHECK(ok);
    cz_gpu_free(dp);
    cz_gpu_free(ds);
    cz_gpu_free(buckets);
    free(s);
}

/* Carried sums: pieces cut through the buckets' runs, windows from 4 to
 * wider than one piece's own, a sum of one piece and of none. */
static void carried_suite(const cz_g1_affine *p1, size_t big) {
    const struct {
        size_t n, piece;
        unsigned c;
    } cases[] = {{big, 4096, 4},  {big, 4096, 7}, {big, 4096, 11}, {big, 1000, 13},
                 {1000, 4096, 9}, {31, 7, 4},     {0, 64, 5},      {big, big, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int k = 0; k < S_COUNT; k++)
            check_carried(p1, cases[i].n, cases[i].piece, cases[i].c, (scalar_kind)k);
}

/* The MSM checks over the point sets p1 (big G1 points) and p2 (big2 G2
 * points), under the current knobs. */
static void msm_suite(const cz_g1_affine *p1, size_t big, const cz_g2_affine *p2, size_t big2) {
    const size_t sizes[] = {0, 1, 2, 3, 31, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int k = 0; k < S_COUNT; k++) check_msm_g1(p1 + 1, sizes[i], (scalar_kind)k);
    for (int k = 0; k < S_COUNT; k++) check_msm_g1(p1, big, (scalar_kind)k);
    /* one point repeated, and the point and its negation alternating: a
     * bucket's running sum meets the point itself (doubling) and its
     * negation (infinity) all the time */
    {
        const size_t nrep = 1000;
        cz_g1_affine *rep = malloc(nrep * sizeof *rep);
        cz_g1_affine neg;
        cz_g1_affine_neg(&neg, &p1[1]);
        for (size_t i = 0; i < nrep; i++) rep[i] = p1[1];
        const size_t rsizes[] = {2, 3, 64, nrep};
        for (size_t i = 0; i < sizeof rsizes / sizeof rsizes[0]; i++)
            for (int k = 0; k < S_COUNT; k++) check_msm_g1(rep, rsizes[i], (scalar_kind)k);
        for (size_t i = 1; i < nrep; i += 2) rep[i] = neg;
        for (size_t i = 0; i < sizeof rsizes / sizeof rsizes[0]; i++)
            for (int k = 0; k < S_COUNT; k++) check_msm_g1(rep, rsizes[i], (scalar_kind)k);
        free(rep);
    }
    if (getenv("CZ_SLOW_TESTS")) {
        size_t n = (size_t)1 << 20;
        cz_g1_affine *q = malloc(n * sizeof *q);
        gpu_rand_g1(q, n);
        check_msm_g1(q, n, S_RANDOM);
        check_msm_g1(q, n, S_SAME);
        free(q);
    }
    {
        cz_g2_affine *rep2 = malloc(64 * sizeof *rep2);
        cz_g2_affine neg2;
        cz_g2_affine_neg(&neg2, &p2[1]);
        for (size_t i = 0; i < 64; i++) rep2[i] = (i % 3 == 2) ? neg2 : p2[1];
        for (int k = 0; k < S_COUNT; k++) check_msm_g2(rep2, 64, (scalar_kind)k);
        free(rep2);
    }
    const size_t sizes2[] = {0, 1, 2, 100, big2};
    for (size_t i = 0; i < sizeof sizes2 / sizeof sizes2[0]; i++)
        for (int k = 0; k < S_COUNT; k++) check_msm_g2(p2, sizes2[i], (scalar_kind)k);
}

/* The MSM's accumulation paths (src/gpu/msm.cuh): 0 the XYZZ running sums
 * (default), 1 batch-affine levels in one chunk, 2 and 3 in chunks of 97
 * and 1000 sorted entries (runs cut by chunk boundaries: partial sums). */
static void msm_knobs(int v) {
    static const char *aff[] = {NULL, "1", "1", "1"}, *chunk[] = {NULL, NULL, "97", "1000"};
    gpu_knob("CZ_GPU_MSM_AFFINE", aff[v]);
    gpu_knob("CZ_GPU_MSM_AFFINE_CHUNK", chunk[v]);
}

int main(void) {
    cz_test_init("gpu/test_gpu_msm");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    /* CZ_GPU_SMALL: small sizes for runs under compute-sanitizer */
    const int small = getenv("CZ_GPU_SMALL") != NULL;
    const size_t big = small ? 2051 : ((size_t)1 << 16) + 3;
    cz_g1_affine *p1 = malloc(big * sizeof *p1);
    gpu_rand_g1(p1, big);
    /* a few infinity points, and a repeated point (doubling inside a bucket) */
    for (size_t i = 0; i < big; i += 997) memset(&p1[i], 0, sizeof p1[i]);
    for (size_t i = 5; i < big; i += 1009) p1[i] = p1[3];
    carried_suite(p1, big);
    check_batch_g1(p1, 0, 50);
    check_batch_g1(p1, 1, 100);
    check_batch_g1(p1, 1000, 50);
    check_batch_g1(p1, big, 50);
    check_batch_g1(p1, big, 3);
    check_batch_g1(p1, big, 100);

    const size_t big2 = small ? 301 : 4099;
    cz_g2_affine *p2 = malloc(big2 * sizeof *p2);
    gpu_rand_g2(p2, big2);
    for (size_t i = 0; i < big2; i += 501) memset(&p2[i], 0, sizeof p2[i]);
    for (int v = 0; v < 4; v++) {
        msm_knobs(v);
        msm_suite(p1, big, p2, big2);
    }
    msm_knobs(0);
    check_batch_g2(p2, big2, 50);
    check_batch_g2(p2, 7, 100);

    /* batch addition under every knob set: sizes around 64, densities
     * 0 / 3 / 50 / 100 %, the exceptional point sets */
    for (int v = 0; v < 5; v++) {
        batch_knobs(v);
        const size_t bsizes[] = {1, 2, 3, 63, 64, 65, 1000, big};
        for (size_t i = 0; i < sizeof bsizes / sizeof bsizes[0]; i++) {
            check_batch_g1(p1, bsizes[i], 100);
            check_batch_g1(p1, bsizes[i], 50);
        }
        check_batch_g1(p1, big, 0);
        check_batch_g1(p1, big, 3);
        batch_special_g1(p1 + 1, big - 1, 1000);
        batch_special_g1(p1 + 1, big - 1, 65);
        check_batch_g2(p2, big2, 100);
        check_batch_g2(p2, big2, 50);
        check_batch_g2(p2, 65, 100);
        batch_special_g2(p2 + 1, big2 - 1, 129);
    }
    batch_knobs(0);

    const size_t csizes[] = {0, 1, 31, 32, 33, 64, 65, 1000, 100003};
    for (size_t i = 0; i < sizeof csizes / sizeof csizes[0]; i++) check_classify(csizes[i]);
    free(p1);
    free(p2);
    return cz_test_finish("gpu/test_gpu_msm");
}
