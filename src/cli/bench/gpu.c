/* cuzk bench gpu: times the CUDA back-end on the device it finds (NTT, MSM
 * G1 / G2, batch addition, raw field multiplication rates, a / b / c from a
 * resident compact circuit) and prints each
 * figure as the median of several runs next to a compute floor for an H200
 * (docs/PERFORMANCE.md; as the fraction floor / time) and the sppark
 * figures measured on an H200. Data is generated on the
 * device; MSM bases are 2^16 distinct random points repeated (the cost of an
 * addition does not depend on which valid point it adds). Correctness is the
 * job of tests/gpu; this command only measures. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "ec/point.h"
#include "gpu/gpu.h"
#include "groth16/digest.h"
#include "r1cs/circuit.h"
#include "util/parallel.h"

#define NBASE 65536

typedef struct {
    int quick;
    int runs;
    const char *only;
    unsigned abc_log;    /* rows of the a / b / c circuit: 2^abc_log */
    const char *circuit; /* a/b/c of this pre-compiled circuit file instead */
    /* keyload */
    const char *params; /* the .params file */
    unsigned synthetic; /* write a synthetic key of domain 2^synthetic there first */
    const char *check;  /* auto, checked or trusted */
    int cold;           /* drop the file's page cache before each run */
    int host;           /* also time the host decode and upload */
    unsigned chunk_mib; /* staging buffer size (0: the default) */
} gb_opts;

static int want(const gb_opts *o, const char *what) {
    return !o->only || !strcmp(o->only, what);
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

/* sppark on an H200: dense G1 MSM ms by log size, 0 = unknown */
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

/* Floor: 1.68e9 madd-eq at 90 SM-cycles for 2^27 = 0.58 s, scaled
 * by n (windows of the optimal size shrink slowly with n: a slight
 * under-estimate at small n). */
static double msm_floor_ms(size_t n) {
    return 580.0 * (double)n / (double)(1u << 27);
}

static int bench_field(void) {
    double fr = 0, fp = 0;
    cz_error err = {0};
    if (cz_gpu_field_rates(&fr, &fp, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: field rates", &err);
    printf("field mul   Fr %.3g /s (sppark 5.97e10), Fp %.3g /s (sppark 2.70e10)\n", fr, fp);
    /* issue 29: the FP64-limb product (gpu/fp64_mont.h) beside the IMAD one,
     * alone and sharing the SM; ratios are to the IMAD rate of the same run */
    cz_gpu_mul_rates r;
    if (cz_gpu_fp64_rates(&r, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: fp64 field rates", &err);
    const struct {
        const char *name;
        double imad, fp64, mix, split;
    } rows[2] = {{"Fr", r.fr_imad, r.fr_fp64, r.fr_mix, r.fr_split},
                 {"Fp", r.fp_imad, r.fp_fp64, r.fp_mix, r.fp_split}};
    for (int i = 0; i < 2; i++)
        printf("field fp64  %s: IMAD %.3g /s, FP64 %.3g /s (%.2fx), both in one thread %.3g /s "
               "(%.2fx), both on alternate warps %.3g /s (%.2fx)\n",
               rows[i].name, rows[i].imad, rows[i].fp64, rows[i].fp64 / rows[i].imad, rows[i].mix,
               rows[i].mix / rows[i].imad, rows[i].split, rows[i].split / rows[i].imad);
    return 0;
}

static int bench_ntt(const gb_opts *o, unsigned lg) {
    cz_error err = {0};
    cz_gpu_ntt *d = NULL;
    size_t n = (size_t)1 << lg;
    cz_fr *data = NULL;
    if (cz_gpu_ntt_create(&d, lg, &err) != CZ_OK) return cz_cli_fail("bench gpu: ntt domain", &err);
    if (cz_gpu_alloc((void **)&data, n * sizeof(cz_fr), &err) != CZ_OK) {
        cz_gpu_ntt_destroy(d);
        return cz_cli_fail("bench gpu: ntt data", &err);
    }
    if (cz_gpu_fill_random_fr(data, n, 1, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: ntt fill", &err);
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
    /* floor: 1.95e9 Fr mults at 4.25 cycles = 32 ms for 2^27, scaled by n log n */
    double floor_ms = 32.0 * (double)n * lg / ((double)(1u << 27) * 27);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        double t[64];
        (void)cz_gpu_ntt_transform(d, data, v[i].order, v[i].dir, v[i].kind, &err); /* warm-up */
        for (int r = 0; r < o->runs; r++) {
            uint64_t t0 = cz_now_ns();
            if (cz_gpu_ntt_transform(d, data, v[i].order, v[i].dir, v[i].kind, &err) != CZ_OK)
                return cz_cli_fail("bench gpu: ntt", &err);
            t[r] = (double)(cz_now_ns() - t0) / 1e6;
        }
        double ms = cz_bench_median(t, (size_t)o->runs);
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
    if (cz_gpu_alloc(&pts, maxn * psz, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: msm points", &err);
    if (cz_gpu_alloc((void **)&sc, maxn * sizeof(cz_fr), &err) != CZ_OK)
        return cz_cli_fail("bench gpu: msm scalars", &err);
    cz_status st = g2 ? cz_gpu_fill_g2(pts, maxn, dbase, NBASE, &err)
                      : cz_gpu_fill_g1(pts, maxn, dbase, NBASE, &err);
    if (st != CZ_OK) return cz_cli_fail("bench gpu: msm fill", &err);
    if (cz_gpu_fill_random_fr(sc, maxn, 2, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: msm fill", &err);
    for (int i = 0; i < nlg; i++) {
        size_t n = (size_t)1 << lgs[i];
        double t[64];
        cz_g1 r1;
        cz_g2 r2;
        int runs = o->runs;
        for (int r = -1; r < runs; r++) { /* r = -1: warm-up */
            uint64_t t0 = cz_now_ns();
            st = g2 ? cz_gpu_g2_msm(&r2, pts, sc, n, &err) : cz_gpu_g1_msm(&r1, pts, sc, n, &err);
            if (st != CZ_OK) return cz_cli_fail("bench gpu: msm", &err);
            if (r >= 0) t[r] = (double)(cz_now_ns() - t0) / 1e6;
        }
        double ms = cz_bench_median(t, (size_t)runs);
        /* a G2 mixed addition costs about 3x a G1 one */
        double floor_ms = msm_floor_ms(n) * (g2 ? 3 : 1);
        printf("msm %s 2^%-2u (c=%2u)   %9.2f ms  floor %6.1f ms (%3.0f%%)", g2 ? "G2" : "G1",
               lgs[i], cz_gpu_msm_window_bits(n, g2), ms, floor_ms, 100 * floor_ms / ms);
        double sp = g2 ? 0 : sppark_msm_ms(lgs[i]);
        if (sp > 0) printf("  sppark %.1f ms (x%.2f)", sp, sp / ms);
        printf("\n");
        fflush(stdout);
    }
    cz_gpu_free(pts);
    cz_gpu_free(sc);
    return 0;
}

/* The carried G1 sum (gpu.h cz_gpu_msm_sum) over 2^lg device points in
 * pieces, as a streamed key's H MSM runs, beside the whole MSM: what the
 * pieces cost (each piece's sort, and one bucket update per bucket and
 * piece) for each piece size and window, without the link. */
static int bench_carry(const gb_opts *o, unsigned lg, const void *dbase) {
    static const struct {
        unsigned piece_lg, c;
    } v[] = {{22, 22}, {23, 21}, {23, 22}, {24, 21}, {24, 22}, {25, 22}};
    cz_error err = {0};
    const size_t n = (size_t)1 << lg;
    cz_g1_affine *pts = NULL;
    cz_fr *sc = NULL;
    void *buckets = NULL;
    size_t bucket_bytes = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        const size_t b = cz_gpu_plan_msm_sum_bytes(v[i].c);
        bucket_bytes = b > bucket_bytes ? b : bucket_bytes;
    }
    int rc = 1;
    if (cz_gpu_alloc((void **)&pts, n * sizeof *pts, &err) != CZ_OK ||
        cz_gpu_alloc((void **)&sc, n * sizeof *sc, &err) != CZ_OK ||
        cz_gpu_alloc(&buckets, bucket_bytes, &err) != CZ_OK ||
        cz_gpu_fill_g1(pts, n, dbase, NBASE, &err) != CZ_OK ||
        cz_gpu_fill_random_fr(sc, n, 2, &err) != CZ_OK) {
        rc = cz_cli_fail("bench gpu: carried msm set-up", &err);
        goto done;
    }
    cz_g1 whole, r;
    double t[64];
    for (int k = -1; k < o->runs; k++) {
        uint64_t t0 = cz_now_ns();
        if (cz_gpu_g1_msm(&whole, pts, sc, n, &err) != CZ_OK) {
            rc = cz_cli_fail("bench gpu: msm", &err);
            goto done;
        }
        if (k >= 0) t[k] = (double)(cz_now_ns() - t0) / 1e6;
    }
    const double ms_whole = cz_bench_median(t, (size_t)o->runs);
    printf("carried msm G1 2^%-2u whole (c=%2u) %9.2f ms\n", lg, cz_gpu_msm_window_bits(n, 0),
           ms_whole);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        const size_t piece = (size_t)1 << v[i].piece_lg;
        if (piece >= n) continue;
        for (int k = -1; k < o->runs; k++) {
            cz_gpu_msm_sum sum;
            uint64_t t0 = cz_now_ns();
            cz_status st = cz_gpu_g1_msm_sum_begin(&sum, buckets, v[i].c, &err);
            for (size_t at = 0; at < n && st == CZ_OK; at += piece) {
                const size_t len = n - at < piece ? n - at : piece;
                st = cz_gpu_g1_msm_sum_add(&sum, pts + at, sc + at, len, &err);
            }
            if (st == CZ_OK) st = cz_gpu_g1_msm_sum_end(&r, &sum, &err);
            if (st != CZ_OK) {
                rc = cz_cli_fail("bench gpu: carried msm", &err);
                goto done;
            }
            if (k >= 0) t[k] = (double)(cz_now_ns() - t0) / 1e6;
        }
        if (!cz_g1_equal(&r, &whole)) {
            fprintf(stderr,
                    "bench gpu: the carried sum in pieces of 2^%u (c=%u) differs from "
                    "the whole MSM\n",
                    v[i].piece_lg, v[i].c);
            goto done;
        }
        const double ms = cz_bench_median(t, (size_t)o->runs);
        printf("carried msm G1 2^%-2u pieces 2^%u (c=%2u) %9.2f ms  (x%.2f the whole)\n", lg,
               v[i].piece_lg, v[i].c, ms, ms / ms_whole);
        fflush(stdout);
    }
    rc = 0;
done:
    cz_gpu_free(pts);
    cz_gpu_free(sc);
    cz_gpu_free(buckets);
    return rc;
}

static int bench_batch(const gb_opts *o, unsigned lg, const void *dbase) {
    cz_error err = {0};
    size_t n = (size_t)1 << lg;
    cz_g1_affine *pts = NULL;
    uint64_t *bm = NULL;
    if (cz_gpu_alloc((void **)&pts, n * sizeof *pts, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: batch points", &err);
    if (cz_gpu_alloc((void **)&bm, (n + 63) / 64 * 8, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: batch bitmap", &err);
    if (cz_gpu_fill_g1(pts, n, dbase, NBASE, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: batch fill", &err);
    if (cz_gpu_fill_bitmap(bm, n, 50, 3, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: batch fill", &err);
    double t[64];
    cz_g1 r;
    for (int i = -1; i < o->runs; i++) {
        uint64_t t0 = cz_now_ns();
        if (cz_gpu_g1_batch_add(&r, pts, bm, n, &err) != CZ_OK)
            return cz_cli_fail("bench gpu: batch add", &err);
        if (i >= 0) t[i] = (double)(cz_now_ns() - t0) / 1e6;
    }
    double ms = cz_bench_median(t, (size_t)o->runs);
    /* floor: n/2 mixed additions at 90 SM-cycles over 2.61e11 cycles/s */
    double floor_ms = (double)n / 2 * 90 / 2.61e11 * 1e3;
    printf("batch add G1 2^%u, density 1/2   %9.2f ms  floor %6.1f ms (%3.0f%%)  sppark-style %s\n",
           lg, ms, floor_ms, 100 * floor_ms / ms, lg == 27 ? "34 ms" : "-");
    cz_gpu_free(pts);
    cz_gpu_free(bm);
    return 0;
}

/* ---- a / b / c from a synthetic compact circuit shaped like PoRep's ----
 * Per row: A 1-3 entries (every 256th row 192, the long additions of
 * SHA-256), B 1-2, C 1-2: ~5.5 entries per row over the three matrices as
 * in the 32 GiB PoRep (722 M for 130 M rows); columns near the row (local,
 * as synthesized circuits are); short rows' coefficients 60 % 1, 30 % -1,
 * 10 % others of a 1024-entry table, long rows' powers of two. */
#define ABC_TABLE 1024

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint32_t abc_len(int i, uint64_t j) {
    const uint64_t h = mix(j * 3 + (uint64_t)i);
    if (i == 0) return j % 256 == 255 ? 192 : 1 + (uint32_t)(h % 3);
    return i == 1 ? 1 + (h % 4 == 0) : 1 + (uint32_t)(h & 1);
}

typedef struct {
    cz_circuit *c;
    int i;
} abc_fill_ctx;

static void abc_fill(void *vctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const abc_fill_ctx *x = vctx;
    const cz_circuit_matrix *m = &x->c->m[x->i];
    uint32_t *col = (uint32_t *)m->col;
    uint16_t *coef = (uint16_t *)m->coef;
    const uint64_t vars = (uint64_t)x->c->num_inputs + x->c->num_aux;
    for (size_t j = begin; j < end; j++) {
        const uint32_t b = m->row_start[j], len = m->row_start[j + 1] - b;
        uint64_t start = j > 2 * len ? j - 2 * len : 0;
        if (start + 2 * len > vars) start = vars - 2 * len;
        for (uint32_t e = 0; e < len; e++) {
            const uint64_t h = mix(((uint64_t)b + e) * 7 + (uint64_t)x->i);
            col[b + e] = (uint32_t)(start + 2 * e + (h & 1));
            if (len > 3)
                coef[b + e] = (uint16_t)(2 + e % 64);
            else {
                const unsigned r = (unsigned)(h % 100);
                coef[b + e] = r < 60 ? 0 : r < 90 ? 1 : (uint16_t)(2 + (h >> 8) % (ABC_TABLE - 2));
            }
        }
    }
}

/* Times cz_gpu_circuit_eval of c (median of o->runs after a warm-up) and
 * prints one line: what, entries, long rows, the table's place, ms and the
 * effective bandwidth (bytes that must move: entries, row offsets, results,
 * z once). only >= 0: c holds that matrix alone. */
static int abc_time(const gb_opts *o, const cz_circuit *c, const char *what, double prep_s,
                    int only) {
    cz_error err = {0};
    const uint64_t rows = c->num_constraints, vars = (uint64_t)c->num_inputs + c->num_aux;
    uint64_t nnz_all = c->m[0].nnz + c->m[1].nnz + c->m[2].nnz;
    cz_gpu_circuit *gc = NULL;
    uint64_t t0 = cz_now_ns();
    if (cz_gpu_circuit_create(&gc, c, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: abc circuit", &err);
    const double up_s = (double)(cz_now_ns() - t0) / 1e9;
    cz_gpu_circuit_info info;
    cz_gpu_circuit_get_info(&info, gc);
    cz_fr *z = NULL, *out = NULL;
    if (cz_gpu_alloc((void **)&z, vars * sizeof(cz_fr), &err) != CZ_OK ||
        cz_gpu_alloc((void **)&out, 3 * rows * sizeof(cz_fr), &err) != CZ_OK ||
        cz_gpu_fill_random_fr(z, vars, 4, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: abc buffers", &err);
    double t[64];
    for (int r = -1; r < o->runs; r++) {
        uint64_t s0 = cz_now_ns();
        if (cz_gpu_circuit_eval(out, out + rows, out + 2 * rows, gc, z, &err) != CZ_OK)
            return cz_cli_fail("bench gpu: abc eval", &err);
        if (r >= 0) t[r] = (double)(cz_now_ns() - s0) / 1e6;
    }
    const double ms = cz_bench_median(t, (size_t)o->runs);
    const double mats = only >= 0 ? 1.0 : 3.0;
    const double bytes = (double)nnz_all * (4.0 + c->coef_bytes) + mats * (double)(rows + 1) * 4 +
                         mats * (double)rows * 32 + (double)vars * 32;
    printf("abc %s, %llu entries (%.2f/row; long rows %llu, table %u in %s memory): "
           "%8.2f ms  %6.0f GB/s effective  (prepared %.1f s, uploaded %.1f s, %.0f MiB on the "
           "device)\n",
           what, (unsigned long long)nnz_all, (double)nnz_all / (double)rows,
           (unsigned long long)(info.long_rows[0] + info.long_rows[1] + info.long_rows[2]),
           c->num_coeffs, info.table_in_shared ? "shared" : "global", ms, bytes / ms / 1e6, prep_s,
           up_s, (double)cz_gpu_circuit_bytes(gc) / (1 << 20));
    cz_gpu_free(z);
    cz_gpu_free(out);
    cz_gpu_circuit_destroy(gc);
    return 0;
}

static int bench_abc(const gb_opts *o, unsigned lg) {
    const uint64_t rows = (uint64_t)1 << lg;
    cz_circuit c;
    memset(&c, 0, sizeof c);
    c.num_inputs = 1, c.num_aux = (uint32_t)rows, c.num_constraints = rows;
    c.coef_bytes = 2, c.num_coeffs = ABC_TABLE;
    cz_fr *table = malloc(ABC_TABLE * sizeof *table);
    table[0] = cz_fr_one;
    cz_fr_neg(&table[1], &cz_fr_one);
    for (unsigned t = 2; t < ABC_TABLE; t++) {
        if (t < 66)
            cz_fr_dbl(&table[t], &table[t == 2 ? 0 : t - 1]); /* 2, 4, ..., 2^64 */
        else
            cz_fr_from_u64(&table[t], mix(t) | 1);
    }
    c.coeffs = table;
    uint64_t *dens = calloc(rows / 64 + 2, 8);
    c.a_aux_density = c.b_aux_density = c.b_input_density = dens;
    uint64_t t0 = cz_now_ns(), nnz_all = 0;
    for (int i = 0; i < 3; i++) {
        uint32_t *rs = malloc((rows + 1) * sizeof *rs);
        uint64_t nnz = 0;
        for (uint64_t j = 0; j < rows; j++) rs[j] = (uint32_t)nnz, nnz += abc_len(i, j);
        rs[rows] = (uint32_t)nnz;
        c.m[i].nnz = nnz;
        c.m[i].row_start = rs;
        c.m[i].col = malloc(nnz * sizeof(uint32_t));
        c.m[i].coef = malloc(nnz * sizeof(uint16_t));
        if (!rs || !c.m[i].col || !c.m[i].coef)
            return fprintf(stderr, "bench gpu: abc: out of memory\n"), 1;
        abc_fill_ctx x = {&c, i};
        cz_parallel_for(rows, 1 << 16, abc_fill, &x);
        nnz_all += nnz;
    }
    const double gen_s = (double)(cz_now_ns() - t0) / 1e9;
    char what[64];
    snprintf(what, sizeof what, "2^%u rows", lg);
    int rc = abc_time(o, &c, what, gen_s, -1);
    for (int i = 0; i < 3; i++) {
        free((void *)c.m[i].row_start);
        free((void *)c.m[i].col);
        free((void *)c.m[i].coef);
    }
    free(table);
    free(dens);
    return rc;
}

/* a/b/c of the pre-compiled circuit file o->circuit (a random witness: the
 * kernels' work does not depend on its values), then of each matrix alone
 * (the others empty), so the slow one shows. */
static int bench_abc_file(const gb_opts *o) {
    cz_error err = {0};
    cz_circuit *c = NULL;
    uint64_t t0 = cz_now_ns();
    if (cz_circuit_open(&c, o->circuit, CZ_CIRCUIT_CHECKED, 0, &err) != CZ_OK)
        return cz_cli_fail("bench gpu: abc circuit file", &err);
    const double open_s = (double)(cz_now_ns() - t0) / 1e9;
    int rc = abc_time(o, c, o->circuit, open_s, -1);
    const size_t rows = (size_t)c->num_constraints;
    uint32_t *none = calloc(rows + 1, sizeof *none);
    if (!none) return fprintf(stderr, "bench gpu: abc: out of memory\n"), 1;
    for (int k = 0; k < 3 && rc == 0; k++) {
        cz_circuit one = *c;
        for (int i = 0; i < 3; i++)
            if (i != k) one.m[i].nnz = 0, one.m[i].row_start = none;
        char what[32];
        snprintf(what, sizeof what, "  matrix %c alone", "ABC"[k]);
        rc = abc_time(o, &one, what, 0, k);
    }
    free(none);
    cz_circuit_free(c);
    return rc;
}

/* ---- keyload: a .params file to a resident key ---- */

/* Peak RSS from now on: VmHWM is reset by writing 5 to clear_refs. */
static void reset_peak_rss(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static void put_be32(FILE *f, uint32_t v) {
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    fwrite(b, 1, 4, f);
}

/* A key with 32 GiB PoRep's proportions (n_h = 2^lg - 1, l and a about
 * 0.97 of it, b_g1 and b_g2 a quarter; 328 inputs) made of NBASE valid
 * points repeated: a file of 47.4 GB at lg 27, 11.8 GB at 25. For load
 * timings only (it proves nothing). */
static int write_synthetic_key(const char *path, unsigned lg) {
    const uint64_t m = (uint64_t)1 << lg;
    const uint64_t counts[5] = {m - 1, m / 32 * 31, m / 32 * 31, m / 4, m / 4};
    const size_t n_ic = 328, nb2 = 4096;
    cz_g1_affine *b1 = malloc(NBASE * sizeof *b1);
    cz_g2_affine *b2 = malloc(nb2 * sizeof *b2);
    uint8_t *e1 = malloc((size_t)NBASE * CZ_G1_UNCOMPRESSED_BYTES);
    uint8_t *e2 = malloc(nb2 * CZ_G2_UNCOMPRESSED_BYTES);
    host_bases_g1(b1, NBASE);
    host_bases_g2(b2, nb2);
    for (size_t i = 0; i < NBASE; i++)
        cz_g1_affine_to_uncompressed(e1 + i * CZ_G1_UNCOMPRESSED_BYTES, &b1[i]);
    for (size_t i = 0; i < nb2; i++)
        cz_g2_affine_to_uncompressed(e2 + i * CZ_G2_UNCOMPRESSED_BYTES, &b2[i]);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "bench gpu: cannot create %s\n", path);
        free(b1), free(b2), free(e1), free(e2);
        return 1;
    }
    uint64_t t0 = cz_now_ns();
    /* vk: alpha, beta (G1), beta, gamma (G2), delta (G1), delta (G2), ic */
    fwrite(e1, 1, 2 * CZ_G1_UNCOMPRESSED_BYTES, f);
    fwrite(e2, 1, 2 * CZ_G2_UNCOMPRESSED_BYTES, f);
    fwrite(e1 + 2 * CZ_G1_UNCOMPRESSED_BYTES, 1, CZ_G1_UNCOMPRESSED_BYTES, f);
    fwrite(e2 + 2 * CZ_G2_UNCOMPRESSED_BYTES, 1, CZ_G2_UNCOMPRESSED_BYTES, f);
    put_be32(f, (uint32_t)n_ic);
    fwrite(e1, 1, n_ic * CZ_G1_UNCOMPRESSED_BYTES, f);
    for (int v = 0; v < 5; v++) {
        put_be32(f, (uint32_t)counts[v]);
        const uint8_t *src = v == 4 ? e2 : e1;
        const uint64_t per = v == 4 ? nb2 : NBASE;
        const size_t size = v == 4 ? CZ_G2_UNCOMPRESSED_BYTES : CZ_G1_UNCOMPRESSED_BYTES;
        for (uint64_t at = 0; at < counts[v]; at += per) {
            uint64_t k = counts[v] - at < per ? counts[v] - at : per;
            fwrite(src, size, (size_t)k, f);
        }
    }
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    free(b1), free(b2), free(e1), free(e2);
    if (bad) {
        fprintf(stderr, "bench gpu: writing %s failed\n", path);
        return 1;
    }
    struct stat sb;
    stat(path, &sb);
    printf("keyload: wrote a synthetic key of domain 2^%u to %s: %.2f GB in %.1f s\n", lg, path,
           (double)sb.st_size / 1e9, (double)(cz_now_ns() - t0) / 1e9);
    return 0;
}

/* The file's pages out of the page cache (clean pages only: the file was
 * written and synced before, or only read). */
static void drop_page_cache(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

static int bench_keyload(const gb_opts *o) {
    cz_error err = {0};
    if (o->synthetic && write_synthetic_key(o->params, o->synthetic)) return 1;
    cz_gpu_key_options opt = {CZ_GPU_KEY_AUTO, 0, 0, (size_t)o->chunk_mib << 20};
    if (o->check && !strcmp(o->check, "checked")) opt.check = CZ_GPU_KEY_CHECKED;
    if (o->check && !strcmp(o->check, "trusted")) {
        /* the record's digest, as AUTO would find it */
        cz_groth16_params_file f;
        int known = 0;
        if (cz_groth16_params_file_map(&f, o->params, &err) != CZ_OK)
            return cz_cli_fail("bench gpu: keyload", &err);
        cz_status st =
            cz_params_digest_lookup(&opt.trusted_digest, &known, f.path, f.len, f.mtime_ns, &err);
        cz_groth16_params_file_unmap(&f);
        if (st != CZ_OK) return cz_cli_fail("bench gpu: keyload", &err);
        if (!known) {
            fprintf(stderr,
                    "bench gpu: --key-check trusted: %s has no digest record (a checked "
                    "or auto run writes it)\n",
                    o->params);
            return 1;
        }
        opt.check = CZ_GPU_KEY_TRUSTED;
    }
    char machine[256];
    cz_machine_describe(machine, sizeof machine);
    printf("keyload: %s; machine: %s\n", o->params, machine);
    double t[2][64];
    int n[2] = {0, 0};
    double gbs = 0;
    for (int r = 0; r < o->runs; r++) {
        if (o->cold) drop_page_cache(o->params);
        reset_peak_rss();
        uint64_t t0 = cz_now_ns();
        cz_groth16_params_file f;
        cz_gpu_srs *srs = NULL;
        cz_gpu_key_report rep;
        memset(&rep, 0, sizeof rep);
        cz_status st = cz_groth16_params_file_map(&f, o->params, &err);
        if (st == CZ_OK) {
            if (r == 0)
                printf("keyload: %.2f GB (%.1f GiB): h %llu, l %llu, a %llu, b_g1 %llu, b_g2 %llu "
                       "points; %s page cache\n",
                       (double)f.len / 1e9, (double)f.len / (1u << 30),
                       (unsigned long long)f.layout.count[0], (unsigned long long)f.layout.count[1],
                       (unsigned long long)f.layout.count[2], (unsigned long long)f.layout.count[3],
                       (unsigned long long)f.layout.count[4], o->cold ? "cold" : "warm");
            st = cz_gpu_srs_load(&srs, &f, 0, &opt, &rep, &err);
        }
        double s = (double)(cz_now_ns() - t0) / 1e9;
        cz_groth16_params_file_unmap(&f);
        if (st != CZ_OK) return cz_cli_fail("bench gpu: keyload", &err);
        gbs = (double)rep.file_bytes / s / 1e9;
        printf("keyload: run %d: %.2f s file -> resident, %.2f GB/s (fill + hash %.2f s, waits "
               "%.2f s, chunk %zu MiB), %s, digest %016llx%s; peak RSS %.0f MiB\n",
               r + 1, s, gbs, rep.fill_seconds, rep.wait_seconds, rep.chunk_bytes >> 20,
               rep.checked ? "checked" : "trusted", (unsigned long long)rep.digest,
               rep.recorded ? " (recorded)" : "", (double)cz_peak_rss_bytes() / (1 << 20));
        if (r == 0) printf("keyload: %s\n", rep.note);
        t[rep.checked][n[rep.checked]++] = s;
        cz_gpu_srs_destroy(srs);
    }
    for (int c = 1; c >= 0; c--)
        if (n[c]) {
            double med = cz_bench_median(t[c], (size_t)n[c]);
            printf("keyload: %s: median of %d: %.2f s file -> resident (target at 32 GiB: <= 30 "
                   "s)\n",
                   c ? "checked" : "trusted", n[c], med);
        }
    if (o->host) {
        /* today's path before this one: the whole key decoded on the host,
         * then uploaded */
        if (o->cold) drop_page_cache(o->params);
        reset_peak_rss();
        uint64_t t0 = cz_now_ns();
        cz_groth16_params p;
        cz_gpu_srs *srs = NULL;
        cz_status st = cz_groth16_params_read(&p, o->params, CZ_GROTH16_UNCHECKED, &err);
        double dec = (double)(cz_now_ns() - t0) / 1e9;
        if (st == CZ_OK) st = cz_gpu_srs_create(&srs, &p, &err);
        double s = (double)(cz_now_ns() - t0) / 1e9;
        if (st != CZ_OK) return cz_cli_fail("bench gpu: keyload host path", &err);
        printf("keyload: host path: %.2f s file -> resident (decode %.2f s, upload %.2f s), peak "
               "RSS %.0f MiB\n",
               s, dec, s - dec, (double)cz_peak_rss_bytes() / (1 << 20));
        cz_gpu_srs_destroy(srs);
        cz_groth16_params_free(&p);
    }
    return 0;
}

int cz_cmd_bench_gpu(int argc, char **argv) {
    gb_opts o = {.runs = 5};
    int runs_given = 0;
    enum {
        OPT_PARAMS = 256,
        OPT_SYNTHETIC,
        OPT_KEY_CHECK,
        OPT_COLD,
        OPT_HOST,
        OPT_CHUNK,
        OPT_CIRCUIT
    };
    static const struct option longopts[] = {{"quick", no_argument, NULL, 'q'},
                                             {"runs", required_argument, NULL, 'r'},
                                             {"only", required_argument, NULL, 'o'},
                                             {"log", required_argument, NULL, 'l'},
                                             {"params", required_argument, NULL, OPT_PARAMS},
                                             {"circuit", required_argument, NULL, OPT_CIRCUIT},
                                             {"synthetic", required_argument, NULL, OPT_SYNTHETIC},
                                             {"key-check", required_argument, NULL, OPT_KEY_CHECK},
                                             {"cold", no_argument, NULL, OPT_COLD},
                                             {"host", no_argument, NULL, OPT_HOST},
                                             {"chunk-mib", required_argument, NULL, OPT_CHUNK},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    static const char usage[] =
        "usage: cuzk bench gpu [--quick] [--runs N] [--only "
        "field|ntt|msm|g2|batch|abc|keyload|carry]\n"
        "                      [--log N | --circuit FILE] [--params FILE [--synthetic N]\n"
        "                      [--key-check MODE] [--cold] [--host] [--chunk-mib N]]\n"
        "  Benchmarks the CUDA kernels (field, NTT, G1/G2 MSM, batch addition, a/b/c from a\n"
        "  PoRep-shaped pre-compiled circuit) on device 0; prints \"skipped\" without a CUDA\n"
        "  device. field: the IMAD Montgomery products (Fr, Fp), then beside them the FP64-limb\n"
        "  products (issue 29) alone, interleaved in one thread and on alternate warps.\n"
        "  --quick: small sizes, at most 3 runs; --runs N: 1..64 runs per size,\n"
        "  median reported (default 5); --log N: a/b/c rows 2^N (10..29, default 27);\n"
        "  --circuit FILE: a/b/c of that pre-compiled circuit (.czc) with a random witness,\n"
        "  then of each matrix alone.\n"
        "  keyload (with --params FILE): the .params FILE to a resident key on the device, as\n"
        "  the engine loads it (file -> pinned staging -> device, converted and checked there):\n"
        "  time, GB/s and host peak RSS per run (default 3 runs). --key-check auto (default:\n"
        "  checked the first time, which records the digest in FILE.xxh64, trusted after),\n"
        "  checked or trusted; --cold: drop FILE from the page cache before each run; --host:\n"
        "  also the host decode + upload for comparison; --chunk-mib N: staging buffers;\n"
        "  --synthetic N: first write a synthetic key of 32 GiB PoRep's proportions and domain\n"
        "  2^N (10..27; 27 is 47.4 GB) to FILE.\n"
        "  carry (only with --only): the carried G1 MSM of 2^27 points (2^24 --quick) summed\n"
        "  in pieces of 2^22 to 2^25 at windows 21 and 22, as a streamed key's H MSM, against\n"
        "  the whole MSM (device points: no link).\n";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qr:o:l:h", longopts, NULL)) != -1) {
        if (c == OPT_PARAMS) {
            o.params = optarg;
            continue;
        }
        if (c == OPT_CIRCUIT) {
            o.circuit = optarg;
            continue;
        }
        if (c == OPT_SYNTHETIC || c == OPT_CHUNK) {
            char *end;
            long v = strtol(optarg, &end, 10);
            int ok = end != optarg && !*end &&
                     (c == OPT_SYNTHETIC ? v >= 10 && v <= 27 : v >= 1 && v <= 4096);
            if (!ok) {
                fprintf(stderr, "cuzk bench gpu: %s: expected %s, got '%s'\n",
                        c == OPT_SYNTHETIC ? "--synthetic" : "--chunk-mib",
                        c == OPT_SYNTHETIC ? "10..27" : "1..4096", optarg);
                return 2;
            }
            if (c == OPT_SYNTHETIC)
                o.synthetic = (unsigned)v;
            else
                o.chunk_mib = (unsigned)v;
            continue;
        }
        if (c == OPT_KEY_CHECK) {
            if (strcmp(optarg, "auto") && strcmp(optarg, "checked") && strcmp(optarg, "trusted")) {
                fprintf(stderr,
                        "cuzk bench gpu: --key-check: expected auto, checked or trusted, got "
                        "'%s'\n",
                        optarg);
                return 2;
            }
            o.check = optarg;
            continue;
        }
        if (c == OPT_COLD || c == OPT_HOST) {
            *(c == OPT_COLD ? &o.cold : &o.host) = 1;
            continue;
        }
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
            runs_given = 1;
        } else if (c == 'o') {
            if (strcmp(optarg, "field") && strcmp(optarg, "ntt") && strcmp(optarg, "msm") &&
                strcmp(optarg, "g2") && strcmp(optarg, "batch") && strcmp(optarg, "abc") &&
                strcmp(optarg, "keyload") && strcmp(optarg, "carry")) {
                fprintf(stderr,
                        "cuzk bench gpu: --only: expected field, ntt, msm, g2, batch, abc, "
                        "keyload or carry, got '%s'\n",
                        optarg);
                return 2;
            }
            o.only = optarg;
        } else if (c == 'l') {
            char *end;
            long lg = strtol(optarg, &end, 10);
            if (end == optarg || *end || lg < 10 || lg > 29) {
                fprintf(stderr, "cuzk bench gpu: --log: expected 10..29, got '%s'\n", optarg);
                return 2;
            }
            o.abc_log = (unsigned)lg;
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
    const int keyload_only = o.only && !strcmp(o.only, "keyload");
    if (keyload_only && !o.params) {
        fprintf(stderr, "cuzk bench gpu: --only keyload: --params FILE is required\n%s", usage);
        return 2;
    }
    if (o.params && !runs_given) o.runs = 3;
    char desc[256];
    cz_error err = {0};
    if (cz_gpu_probe(desc, sizeof desc, &err) != CZ_OK) {
        printf("bench gpu: skipped: %s\n", err.message);
        return 0;
    }
    printf("device: %s\n", desc);
    printf("median of %d runs (after one warm-up); floors as in docs/PERFORMANCE.md\n", o.runs);
    int rc = 0;
    if (o.params && want(&o, "keyload")) {
        rc |= bench_keyload(&o);
        if (keyload_only) return rc;
    }
    if (want(&o, "field")) rc |= bench_field();
    if (want(&o, "ntt")) {
        rc |= bench_ntt(&o, o.quick ? 20 : 24);
        if (!o.quick) rc |= bench_ntt(&o, 27);
    }
    void *d1 = NULL, *d2 = NULL;
    if (want(&o, "msm") || want(&o, "batch") || want(&o, "carry")) {
        cz_g1_affine *b1 = malloc(NBASE * sizeof *b1);
        host_bases_g1(b1, NBASE);
        if (cz_gpu_alloc(&d1, NBASE * sizeof *b1, &err) != CZ_OK ||
            cz_gpu_upload(d1, b1, NBASE * sizeof *b1, &err) != CZ_OK)
            return cz_cli_fail("bench gpu: bases", &err);
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
            return cz_cli_fail("bench gpu: bases", &err);
        free(b2);
        static const unsigned g2full[] = {24, 26}, g2quick[] = {16};
        rc |= bench_msm(&o, 1, o.quick ? g2quick : g2full, o.quick ? 1 : 2, d2);
    }
    if (want(&o, "batch")) rc |= bench_batch(&o, o.quick ? 22 : 27, d1);
    if (o.only && !strcmp(o.only, "carry")) rc |= bench_carry(&o, o.quick ? 24 : 27, d1);
    if (want(&o, "abc"))
        rc |= o.circuit ? bench_abc_file(&o)
                        : bench_abc(&o, o.abc_log ? o.abc_log
                                        : o.quick ? 20
                                                  : 27);
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
