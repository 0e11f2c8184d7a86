/* cuzk bench gpu: times the CUDA back-end on the device it finds (NTT, MSM
 * G1 / G2, batch addition, raw field multiplication rates) and prints each
 * figure as the median of several runs next to the floor of
 * ../shared/spec/gpu-prover.md §8 (as the fraction floor / time) and the
 * sppark figures measured on an H200 (spec §6). Data is generated on the
 * device; MSM bases are 2^16 distinct random points repeated (the cost of an
 * addition does not depend on which valid point it adds). Correctness is the
 * job of tests/gpu; this command only measures. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "ec/point.h"
#include "gpu/gpu.h"
#include "util/parallel.h"

#define NBASE 65536

typedef struct {
    int quick;
    int runs;
    const char *only;
} gb_opts;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int want(const gb_opts *o, const char *what) {
    return !o->only || !strcmp(o->only, what);
}

static int fail(const char *what, const cz_error *err) {
    fprintf(stderr, "bench gpu: %s: %s\n", what, err->message);
    return 1;
}

/* 2^16 random affine points from the CPU: k G then steps of a random point. */
static void host_bases_g1(cz_g1_affine *out, size_t n) {
    cz_g1 g, step, cur;
    cz_fr k;
    uint64_t limbs[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL, 0};
    cz_g1_generator(&g);
    cz_fr_from_limbs(&k, limbs);
    cz_g1_mul_var(&step, &g, &k);
    cur = step;
    cz_g1 *jac = malloc(n * sizeof *jac);
    cz_fp *scratch = malloc(n * sizeof *scratch);
    for (size_t i = 0; i < n; i++) {
        jac[i] = cur;
        cz_g1_add(&cur, &cur, &step);
        if (i % 3 == 0) cz_g1_dbl(&cur, &cur);
    }
    cz_g1_batch_to_affine(out, jac, n, scratch);
    free(jac);
    free(scratch);
}

static void host_bases_g2(cz_g2_affine *out, size_t n) {
    cz_g2 g, step, cur;
    cz_fr k;
    uint64_t limbs[4] = {0x082efa98ec4e6c89ULL, 0x452821e638d01377ULL, 0xbe5466cf34e90c6cULL, 0};
    cz_g2_generator(&g);
    cz_fr_from_limbs(&k, limbs);
    cz_g2_mul_var(&step, &g, &k);
    cur = step;
    cz_g2 *jac = malloc(n * sizeof *jac);
    cz_fp2 *scratch = malloc(n * sizeof *scratch);
    for (size_t i = 0; i < n; i++) {
        jac[i] = cur;
        cz_g2_add(&cur, &cur, &step);
        if (i % 3 == 0) cz_g2_dbl(&cur, &cur);
    }
    cz_g2_batch_to_affine(out, jac, n, scratch);
    free(jac);
    free(scratch);
}

/* sppark on an H200 (spec §6.1): dense G1 MSM ms by log size, 0 = unknown */
static double sppark_msm_ms(unsigned lg) {
    switch (lg) {
    case 20: return 20.8;
    case 22: return 53.3;
    case 24: return 155;
    case 25: return 287;
    case 26: return 560;
    case 27: return 1102;
    default: return 0;
    }
}

/* Floor (spec §8.1): 1.68e9 madd-eq at 90 SM-cycles for 2^27 = 0.58 s, scaled
 * by n (windows of the optimal size shrink slowly with n: a slight
 * under-estimate at small n). */
static double msm_floor_ms(size_t n) {
    return 580.0 * (double)n / (double)(1u << 27);
}

static int bench_field(void) {
    double fr = 0, fp = 0;
    cz_error err = {0};
    if (cz_gpu_field_rates(&fr, &fp, &err) != CZ_OK) return fail("field rates", &err);
    printf("field mul   Fr %.3g /s (sppark 5.97e10), Fp %.3g /s (sppark 2.70e10)\n", fr, fp);
    return 0;
}

static int bench_ntt(const gb_opts *o, unsigned lg) {
    cz_error err = {0};
    cz_gpu_ntt *d = NULL;
    size_t n = (size_t)1 << lg;
    cz_fr *data = NULL;
    if (cz_gpu_ntt_create(&d, lg, &err) != CZ_OK) return fail("ntt domain", &err);
    if (cz_gpu_alloc((void **)&data, n * sizeof(cz_fr), &err) != CZ_OK) {
        cz_gpu_ntt_destroy(d);
        return fail("ntt data", &err);
    }
    if (cz_gpu_fill_random_fr(data, n, 1, &err) != CZ_OK) return fail("ntt fill", &err);
    static const struct {
        const char *name;
        cz_ntt_order order;
        cz_ntt_direction dir;
        cz_ntt_kind kind;
        double sppark24, sppark27;
    } v[] = {
        {"iNTT (NR)", CZ_NTT_NR, CZ_NTT_INVERSE, CZ_NTT_PLAIN, 4.7, 44.5},
        {"coset NTT (RN)", CZ_NTT_RN, CZ_NTT_FORWARD, CZ_NTT_COSET, 5.0, 46.4},
        {"coset iNTT (NN)", CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_COSET, 5.6, 51.7},
        {"NTT (NN)", CZ_NTT_NN, CZ_NTT_FORWARD, CZ_NTT_PLAIN, 0, 0},
    };
    /* floor (spec §8.2): 1.95e9 Fr mults at 4.25 cycles = 32 ms for 2^27, scaled by n log n */
    double floor_ms = 32.0 * (double)n * lg / ((double)(1u << 27) * 27);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        double t[64];
        (void)cz_gpu_ntt_transform(d, data, v[i].order, v[i].dir, v[i].kind, &err); /* warm-up */
        for (int r = 0; r < o->runs; r++) {
            uint64_t t0 = cz_now_ns();
            if (cz_gpu_ntt_transform(d, data, v[i].order, v[i].dir, v[i].kind, &err) != CZ_OK)
                return fail("ntt", &err);
            t[r] = (double)(cz_now_ns() - t0) / 1e6;
        }
        double ms = median(t, o->runs);
        double sp = lg == 24 ? v[i].sppark24 : lg == 27 ? v[i].sppark27 : 0;
        printf("ntt 2^%-2u %-16s %9.2f ms  floor %6.1f ms (%3.0f%%)", lg, v[i].name, ms, floor_ms,
               100 * floor_ms / ms);
        if (sp > 0) printf("  sppark %.1f ms (x%.2f)", sp, sp / ms);
        printf("\n");
    }
    cz_gpu_free(data);
    cz_gpu_ntt_destroy(d);
    return 0;
}

static int bench_msm(const gb_opts *o, int g2, const unsigned *lgs, int nlg, const void *dbase) {
    cz_error err = {0};
    unsigned maxlg = 0;
    for (int i = 0; i < nlg; i++) maxlg = lgs[i] > maxlg ? lgs[i] : maxlg;
    size_t maxn = (size_t)1 << maxlg;
    size_t psz = g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    void *pts = NULL;
    cz_fr *sc = NULL;
    if (cz_gpu_alloc(&pts, maxn * psz, &err) != CZ_OK) return fail("msm points", &err);
    if (cz_gpu_alloc((void **)&sc, maxn * sizeof(cz_fr), &err) != CZ_OK)
        return fail("msm scalars", &err);
    cz_status st = g2 ? cz_gpu_fill_g2(pts, maxn, dbase, NBASE, &err)
                      : cz_gpu_fill_g1(pts, maxn, dbase, NBASE, &err);
    if (st != CZ_OK) return fail("msm fill", &err);
    if (cz_gpu_fill_random_fr(sc, maxn, 2, &err) != CZ_OK) return fail("msm fill", &err);
    for (int i = 0; i < nlg; i++) {
        size_t n = (size_t)1 << lgs[i];
        double t[64];
        cz_g1 r1;
        cz_g2 r2;
        int runs = o->runs;
        for (int r = -1; r < runs; r++) { /* r = -1: warm-up */
            uint64_t t0 = cz_now_ns();
            st = g2 ? cz_gpu_g2_msm(&r2, pts, sc, n, &err) : cz_gpu_g1_msm(&r1, pts, sc, n, &err);
            if (st != CZ_OK) return fail("msm", &err);
            if (r >= 0) t[r] = (double)(cz_now_ns() - t0) / 1e6;
        }
        double ms = median(t, runs);
        /* a G2 mixed addition costs about 3x a G1 one (spec §8.3) */
        double floor_ms = msm_floor_ms(n) * (g2 ? 3 : 1);
        printf("msm %s 2^%-2u (c=%2u)   %9.2f ms  floor %6.1f ms (%3.0f%%)", g2 ? "G2" : "G1",
               lgs[i], cz_gpu_msm_window_bits(n), ms, floor_ms, 100 * floor_ms / ms);
        double sp = g2 ? 0 : sppark_msm_ms(lgs[i]);
        if (sp > 0) printf("  sppark %.1f ms (x%.2f)", sp, sp / ms);
        printf("\n");
        fflush(stdout);
    }
    cz_gpu_free(pts);
    cz_gpu_free(sc);
    return 0;
}

static int bench_batch(const gb_opts *o, unsigned lg, const void *dbase) {
    cz_error err = {0};
    size_t n = (size_t)1 << lg;
    cz_g1_affine *pts = NULL;
    uint64_t *bm = NULL;
    if (cz_gpu_alloc((void **)&pts, n * sizeof *pts, &err) != CZ_OK)
        return fail("batch points", &err);
    if (cz_gpu_alloc((void **)&bm, (n + 63) / 64 * 8, &err) != CZ_OK)
        return fail("batch bitmap", &err);
    if (cz_gpu_fill_g1(pts, n, dbase, NBASE, &err) != CZ_OK) return fail("batch fill", &err);
    if (cz_gpu_fill_bitmap(bm, n, 50, 3, &err) != CZ_OK) return fail("batch fill", &err);
    double t[64];
    cz_g1 r;
    for (int i = -1; i < o->runs; i++) {
        uint64_t t0 = cz_now_ns();
        if (cz_gpu_g1_batch_add(&r, pts, bm, n, &err) != CZ_OK) return fail("batch add", &err);
        if (i >= 0) t[i] = (double)(cz_now_ns() - t0) / 1e6;
    }
    double ms = median(t, o->runs);
    /* floor: n/2 mixed additions at 90 SM-cycles over 2.61e11 cycles/s */
    double floor_ms = (double)n / 2 * 90 / 2.61e11 * 1e3;
    printf("batch add G1 2^%u, density 1/2   %9.2f ms  floor %6.1f ms (%3.0f%%)  sppark-style %s\n",
           lg, ms, floor_ms, 100 * floor_ms / ms, lg == 27 ? "34 ms" : "-");
    cz_gpu_free(pts);
    cz_gpu_free(bm);
    return 0;
}

int cz_cmd_bench_gpu(int argc, char **argv) {
    gb_opts o = {0, 5, NULL};
    static const struct option longopts[] = {{"quick", no_argument, NULL, 'q'},
                                             {"runs", required_argument, NULL, 'r'},
                                             {"only", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    static const char usage[] =
        "usage: cuzk bench gpu [--quick] [--runs N] [--only field|ntt|msm|g2|batch]\n"
        "  Benchmarks the CUDA kernels (field, NTT, G1/G2 MSM, batch addition) on device 0;\n"
        "  prints \"skipped\" without a CUDA device. --quick: small sizes, at most 3 runs;\n"
        "  --runs N: 1..64 runs per size, median reported (default 5).\n";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qr:o:h", longopts, NULL)) != -1) {
        if (c == 'q')
            o.quick = 1;
        else if (c == 'r') {
            char *end;
            long runs = strtol(optarg, &end, 10);
            if (end == optarg || *end || runs < 1 || runs > 64) {
                fprintf(stderr, "cuzk bench gpu: --runs: expected 1..64, got '%s'\n", optarg);
                return 2;
            }
            o.runs = (int)runs;
        } else if (c == 'o') {
            if (strcmp(optarg, "field") && strcmp(optarg, "ntt") && strcmp(optarg, "msm") &&
                strcmp(optarg, "g2") && strcmp(optarg, "batch")) {
                fprintf(stderr,
                        "cuzk bench gpu: --only: expected field, ntt, msm, g2 or batch, "
                        "got '%s'\n",
                        optarg);
                return 2;
            }
            o.only = optarg;
        } else if (c == 'h') {
            printf("%s", usage);
            return 0;
        } else {
            fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cuzk bench gpu: unexpected argument '%s'\n%s", argv[optind], usage);
        return 2;
    }
    if (o.quick && o.runs > 3) o.runs = 3;
    char desc[256];
    cz_error err = {0};
    if (cz_gpu_probe(desc, sizeof desc, &err) != CZ_OK) {
        printf("bench gpu: skipped: %s\n", err.message);
        return 0;
    }
    printf("device: %s\n", desc);
    printf("median of %d runs (after one warm-up); floors from spec gpu-prover.md §8\n", o.runs);
    int rc = 0;
    if (want(&o, "field")) rc |= bench_field();
    if (want(&o, "ntt")) {
        rc |= bench_ntt(&o, o.quick ? 20 : 24);
        if (!o.quick) rc |= bench_ntt(&o, 27);
    }
    void *d1 = NULL, *d2 = NULL;
    if (want(&o, "msm") || want(&o, "batch")) {
        cz_g1_affine *b1 = malloc(NBASE * sizeof *b1);
        host_bases_g1(b1, NBASE);
        if (cz_gpu_alloc(&d1, NBASE * sizeof *b1, &err) != CZ_OK ||
            cz_gpu_upload(d1, b1, NBASE * sizeof *b1, &err) != CZ_OK)
            return fail("bases", &err);
        free(b1);
    }
    if (want(&o, "msm")) {
        static const unsigned full[] = {20, 22, 24, 25, 26, 27}, quick[] = {16, 20};
        rc |= o.quick ? bench_msm(&o, 0, quick, 2, d1) : bench_msm(&o, 0, full, 6, d1);
    }
    if (want(&o, "msm") || want(&o, "g2")) {
        cz_g2_affine *b2 = malloc(NBASE * sizeof *b2);
        host_bases_g2(b2, NBASE);
        if (cz_gpu_alloc(&d2, NBASE * sizeof *b2, &err) != CZ_OK ||
            cz_gpu_upload(d2, b2, NBASE * sizeof *b2, &err) != CZ_OK)
            return fail("bases", &err);
        free(b2);
        static const unsigned g2full[] = {24}, g2quick[] = {16};
        rc |= bench_msm(&o, 1, o.quick ? g2quick : g2full, 1, d2);
    }
    if (want(&o, "batch")) rc |= bench_batch(&o, o.quick ? 22 : 27, d1);
    cz_gpu_free(d1);
    cz_gpu_free(d2);
    return rc;
}

#ifdef CZ_BENCH_GPU_MAIN
/* Standalone build (scripts/gpu-check.sh on a machine without the CLI's
 * dependencies): bench_gpu [options]. */
int main(int argc, char **argv) {
    return cz_cmd_bench_gpu(argc, argv);
}
#endif
