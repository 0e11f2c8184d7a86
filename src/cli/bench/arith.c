/* cuzk bench-arith: checks and times the CPU arithmetic (fields, curves,
 * pairing, MSM, NTT) on this machine. Every timing is the median of several
 * runs; the machine and peak memory are printed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "ec/msm.h"
#include "ec/pairing.h"
#include "ec/point.h"
#include "poly/ntt.h"
#include "util/parallel.h"

typedef struct {
    int quick;
    int runs;
    int failures;
} bench_opts;

static uint64_t rng_state = 0x0123456789abcdefULL;

static uint64_t rng64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void random_fr(cz_fr *r) {
    uint8_t b[64];
    for (int i = 0; i < 64; i += 8) {
        uint64_t v = rng64();
        memcpy(b + i, &v, 8);
    }
    cz_fr_from_bytes_le_reduce(r, b, sizeof b);
}

static void random_fp(cz_fp *r) {
    uint8_t b[64];
    for (int i = 0; i < 64; i += 8) {
        uint64_t v = rng64();
        memcpy(b + i, &v, 8);
    }
    cz_fp_from_bytes_le_reduce(r, b, sizeof b);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return v[n / 2];
}

static void check(bench_opts *o, int ok, const char *what) {
    printf("  check %-44s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) o->failures++;
}

/* Times `iters` calls of body and reports the median ns per call. */
#define TIME_OP(opts, label, iters, setup, body)                                        \
    do {                                                                               \
        uint64_t samples[15];                                                          \
        setup;                                                                         \
        for (int run = 0; run < (opts)->runs; run++) {                                 \
            uint64_t t0 = cz_now_ns();                                                 \
            for (long it = 0; it < (long)(iters); it++) { body; }                      \
            samples[run] = cz_now_ns() - t0;                                           \
        }                                                                              \
        printf("  %-32s %12.1f ns/op\n", label,                                       \
               (double)median(samples, (opts)->runs) / (double)(iters));              \
    } while (0)

static volatile uint64_t sink; /* keeps results alive */

static void bench_fields(bench_opts *o) {
    printf("fields (dependent chains, one core)\n");
    cz_fp a, b;
    cz_fr x, y;
    random_fp(&a), random_fp(&b), random_fr(&x), random_fr(&y);
    long n = o->quick ? 200000 : 2000000;
    TIME_OP(o, "fp_mul", n, (void)0, cz_fp_mul(&a, &a, &b));
    TIME_OP(o, "fp_sqr", n, (void)0, cz_fp_sqr(&a, &a));
    TIME_OP(o, "fr_mul", n, (void)0, cz_fr_mul(&x, &x, &y));
    TIME_OP(o, "fp_add", n, (void)0, cz_fp_add(&a, &a, &b));
    TIME_OP(o, "fp_inv (Fermat, constant time)", n / 1000, (void)0, cz_fp_inv(&a, &a));
    TIME_OP(o, "fp_inv_var (binary Euclid)", n / 1000, (void)0, cz_fp_inv_var(&a, &a));
    sink = a.l[0] ^ x.l[0];

    cz_fp c;
    cz_fp_inv_var(&c, &b);
    cz_fp_mul(&c, &c, &b);
    check(o, cz_fp_is_one(&c), "fp: b * b^-1 = 1");
}

static void bench_curves(bench_opts *o) {
    printf("curves and pairing (one core)\n");
    cz_g1 p, q;
    cz_g2 p2, q2;
    cz_fr k;
    random_fr(&k);
    cz_g1_generator(&p), cz_g1_mul_var(&q, &p, &k);
    cz_g2_generator(&p2), cz_g2_mul_var(&q2, &p2, &k);
    cz_g1_affine qa;
    cz_g1_to_affine(&qa, &q);
    long n = o->quick ? 20000 : 200000;
    TIME_OP(o, "g1_add (Jacobian)", n, (void)0, cz_g1_add(&p, &p, &q));
    TIME_OP(o, "g1_add_affine (mixed)", n, (void)0, cz_g1_add_affine(&p, &p, &qa));
    TIME_OP(o, "g1_dbl", n, (void)0, cz_g1_dbl(&p, &p));
    TIME_OP(o, "g2_add (Jacobian)", n / 4, (void)0, cz_g2_add(&p2, &p2, &q2));
    TIME_OP(o, "g2_dbl", n / 4, (void)0, cz_g2_dbl(&p2, &p2));
    TIME_OP(o, "g1_mul_var (255-bit scalar)", n / 200, (void)0, cz_g1_mul_var(&p, &p, &k));
    sink = p.x.l[0] ^ p2.x.c0.l[0];

    cz_g1_affine g1a;
    cz_g2_affine g2a;
    cz_g1_affine_generator(&g1a);
    cz_g2_affine_generator(&g2a);
    cz_fp12 e, e2;
    TIME_OP(o, "pairing", o->quick ? 50 : 400, (void)0, cz_pairing(&e, &g1a, &g2a));
    cz_fp12 f;
    TIME_OP(o, "miller loop", o->quick ? 50 : 400, (void)0, cz_miller_loop(&f, &g1a, &g2a, 1));
    TIME_OP(o, "final exponentiation", o->quick ? 50 : 400, (void)0,
            cz_final_exponentiation(&e2, &f));
    /* e(kG1, G2) = e(G1, G2)^k */
    cz_g1 kp;
    cz_g1_affine kpa;
    uint64_t k_limbs[CZ_FR_LIMBS];
    cz_g1_generator(&kp);
    cz_g1_mul_var(&kp, &kp, &k);
    cz_g1_to_affine(&kpa, &kp);
    cz_pairing(&e2, &kpa, &g2a);
    cz_fr_to_limbs(k_limbs, &k);
    cz_fp12_pow(&e, &e, k_limbs, CZ_FR_LIMBS);
    check(o, cz_fp12_equal(&e, &e2), "pairing: e(kP, Q) = e(P, Q)^k");

    cz_g1 r;
    cz_g1_generator(&p);
    cz_g1_mul_limbs_var(&r, &p, cz_fr_modulus, CZ_FR_LIMBS);
    check(o, cz_g1_is_infinity(&r), "g1: r * G = 0");
}

/* n affine points G1: a random start plus a random step, repeatedly (cheap to
 * make, no structure the MSM can use); scalars uniform in Fr. */
#define MAKE_POINTS(G, F_T, pts, n)                                                         \
    do {                                                                                    \
        cz_##G *jac = malloc(4096 * sizeof *jac);                                           \
        F_T *scratch = malloc(4096 * sizeof *scratch);                                      \
        cz_##G acc, step;                                                                   \
        cz_fr k;                                                                            \
        cz_##G##_generator(&acc), cz_##G##_generator(&step);                                \
        random_fr(&k), cz_##G##_mul_var(&acc, &acc, &k);                                    \
        random_fr(&k), cz_##G##_mul_var(&step, &step, &k);                                  \
        for (size_t b = 0; b < (n); b += 4096) {                                            \
            size_t m = (n) - b < 4096 ? (n) - b : 4096;                                     \
            for (size_t i = 0; i < m; i++) cz_##G##_add(&acc, &acc, &step), jac[i] = acc;   \
            cz_##G##_batch_to_affine(&(pts)[b], jac, m, scratch);                           \
        }                                                                                   \
        free(jac);                                                                          \
        free(scratch);                                                                      \
    } while (0)

static void bench_msm(bench_opts *o) {
    printf("MSM (all cores, random 255-bit scalars)\n");
    static const unsigned g1_logs[] = {16, 18, 20};
    unsigned g1_count = o->quick ? 1 : 3;
    size_t max_n = (size_t)1 << g1_logs[g1_count - 1];
    cz_g1_affine *pts = malloc(max_n * sizeof *pts);
    cz_fr *sc = malloc(max_n * sizeof *sc);
    if (!pts || !sc) {
        fprintf(stderr, "bench: out of memory\n");
        o->failures++;
        free(pts), free(sc);
        return;
    }
    MAKE_POINTS(g1, cz_fp, pts, max_n);
    for (size_t i = 0; i < max_n; i++) random_fr(&sc[i]);

    /* correctness first: a small MSM against the sum of single products */
    {
        cz_g1 want, got, t;
        cz_g1_set_infinity(&want);
        for (size_t i = 0; i < 64; i++) {
            cz_g1_from_affine(&t, &pts[i]);
            cz_g1_mul_var(&t, &t, &sc[i]);
            cz_g1_add(&want, &want, &t);
        }
        check(o, cz_g1_msm(&got, pts, sc, 64) == CZ_OK && cz_g1_equal(&got, &want),
              "g1 msm(64) = sum of k_i P_i");
    }
    for (unsigned s = 0; s < g1_count; s++) {
        size_t n = (size_t)1 << g1_logs[s];
        uint64_t samples[15];
        cz_g1 out;
        int runs = o->runs > 3 ? 3 : o->runs;
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = cz_now_ns();
            cz_g1_msm(&out, pts, sc, n);
            samples[r] = cz_now_ns() - t0;
        }
        printf("  g1 msm 2^%-2u (window %2u)        %12.3f s\n", g1_logs[s],
               cz_msm_window_bits(n, 0), (double)median(samples, runs) / 1e9);
    }
    free(pts);

    size_t n2 = (size_t)1 << 16;
    if (o->quick) n2 = (size_t)1 << 12;
    cz_g2_affine *pts2 = malloc(n2 * sizeof *pts2);
    if (pts2) {
        MAKE_POINTS(g2, cz_fp2, pts2, n2);
        uint64_t samples[15];
        cz_g2 out;
        int runs = o->runs > 3 ? 3 : o->runs;
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = cz_now_ns();
            cz_g2_msm(&out, pts2, sc, n2);
            samples[r] = cz_now_ns() - t0;
        }
        printf("  g2 msm 2^%-2u (window %2u)        %12.3f s\n", o->quick ? 12 : 16,
               cz_msm_window_bits(n2, 1), (double)median(samples, runs) / 1e9);
    }
    free(pts2);
    free(sc);
}

static void bench_ntt(bench_opts *o) {
    printf("NTT over Fr (all cores)\n");
    static const unsigned logs[] = {16, 20, 22};
    unsigned count = o->quick ? 1 : 3;
    for (unsigned s = 0; s < count; s++) {
        unsigned k = logs[s];
        cz_ntt_domain d;
        cz_error err = {0};
        size_t n = (size_t)1 << k;
        cz_fr *x = malloc(n * sizeof *x), *orig = malloc(n * sizeof *orig);
        if (!x || !orig || cz_ntt_domain_init(&d, k, &err) != CZ_OK) {
            fprintf(stderr, "bench: NTT 2^%u: %s\n", k, err.message[0] ? err.message : "no memory");
            o->failures++;
            free(x), free(orig);
            return;
        }
        for (size_t i = 0; i < n; i++) random_fr(&orig[i]);
        memcpy(x, orig, n * sizeof *x);
        uint64_t fwd[15], inv[15], coset[15];
        for (int r = 0; r < o->runs; r++) {
            uint64_t t0 = cz_now_ns();
            cz_ntt_forward(&d, x, NULL);
            uint64_t t1 = cz_now_ns();
            cz_ntt_inverse(&d, x, NULL);
            uint64_t t2 = cz_now_ns();
            cz_ntt_coset_forward(&d, x, NULL);
            uint64_t t3 = cz_now_ns();
            cz_ntt_coset_inverse(&d, x, NULL);
            fwd[r] = t1 - t0, inv[r] = t2 - t1, coset[r] = t3 - t2;
        }
        printf("  ntt 2^%-2u forward %9.2f ms   inverse %9.2f ms   coset forward %9.2f ms\n", k,
               (double)median(fwd, o->runs) / 1e6, (double)median(inv, o->runs) / 1e6,
               (double)median(coset, o->runs) / 1e6);
        if (s == 0) check(o, memcmp(x, orig, n * sizeof *x) == 0, "ntt: inverse(forward(x)) = x");
        cz_ntt_domain_free(&d);
        free(x), free(orig);
    }
}

int cz_cmd_bench_arith(int argc, char **argv) {
    bench_opts o = {.quick = 0, .runs = 5};
    static const struct option long_opts[] = {
        {"quick", no_argument, NULL, 'q'}, {"runs", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "qr:h", long_opts, NULL)) != -1) {
        switch (c) {
        case 'q': o.quick = 1; break;
        case 'r':
            o.runs = atoi(optarg);
            if (o.runs < 1 || o.runs > 15) {
                fprintf(stderr, "bench-arith: --runs must be 1..15\n");
                return 2;
            }
            break;
        case 'h':
            printf("usage: cuzk bench-arith [--quick] [--runs N]\n"
                   "  --quick   small sizes only (seconds)\n"
                   "  --runs N  runs per measurement, median reported (default 5)\n");
            return 0;
        default: return 2;
        }
    }
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk bench-arith %s (%s, %d runs, median)\n%s\n", CZ_VERSION,
           o.quick ? "quick" : "full", o.runs, machine);
    bench_fields(&o);
    bench_curves(&o);
    bench_msm(&o);
    bench_ntt(&o);
    printf("peak memory: %.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    if (o.failures) {
        printf("bench-arith: %d self-check(s) FAILED\n", o.failures);
        return 1;
    }
    printf("bench-arith: all self-checks passed\n");
    return 0;
}
