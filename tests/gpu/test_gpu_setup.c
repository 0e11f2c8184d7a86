/* The development setup on the GPU against the CPU's (groth16/setup.c, whose
 * bytes tests/groth16/test_setup_vectors.c pins): for random circuits the
 * whole key must be the same, byte for byte, in memory
 * (cz_gpu_groth16_dev_setup) and as a file (cz_gpu_groth16_dev_setup_write
 * against cz_groth16_params_write of the CPU's key). The circuits have
 * coefficients of every kind (1, -1, small, random; u16 and u32 table
 * indices), aux variables only in C (dropped from a and b), an input never
 * in B (dropped from b_g1 / b_g2), empty rows, a long row, a column in
 * every row (one long segment of the column sums), and domains from 2^3 to
 * 2^17; chunks of a few points (the knob CZ_GPU_SETUP_CHUNK) and every window
 * size (CZ_GPU_SETUP_WINDOW) must not change a byte. The refusals (an
 * unconstrained aux, a density that disagrees with the matrices) carry the
 * CPU's status and message; an out-of-range column is refused too. A proof
 * under a GPU-made key verifies. Skips without a device (exit 77). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/common/params_table.h"
#include "gpu_test_util.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"
#include "util/parallel.h"

typedef struct {
    const char *name;
    uint32_t ni, na, nc;
    int random_share; /* percent of terms with a random coefficient */
    int heavy_column; /* aux na - 1 in B of every row */
    int long_row;     /* row 0's A holds up to 300 aux */
} shape;

static void coeff(cz_fr *c, int random_share) {
    uint64_t r = cz_test_rand64();
    if ((int)(r % 100) < random_share) {
        gpu_rand_fr(c);
        if (cz_fr_is_zero(c)) *c = cz_fr_one;
        return;
    }
    switch ((r >> 8) % 4) {
    case 0: *c = cz_fr_one; break;
    case 1: cz_fr_neg(c, &cz_fr_one); break;
    case 2: cz_fr_from_u64(c, 2 + (r >> 16) % 100); break;
    default: cz_fr_from_u64(c, 2 + (r >> 16) % 100), cz_fr_neg(c, c);
    }
}

/* A random system of shape sh (no witness): aux below na / 4 occur only in
 * C, input 1 never in B, every 17th row is empty, every aux occurs. */
static void synth_random(cz_cs *cs, const shape *sh) {
    cz_var *in = malloc(sh->ni * sizeof *in), *aux = malloc(sh->na * sizeof *aux);
    in[0] = CZ_VAR_ONE;
    for (uint32_t i = 1; i < sh->ni; i++) in[i] = cz_cs_alloc_input(cs, NULL);
    for (uint32_t k = 0; k < sh->na; k++) aux[k] = cz_cs_alloc(cs, NULL);
    const uint32_t c_only = sh->na / 4;
    cz_lc lc[3];
    for (int s = 0; s < 3; s++) cz_lc_init(&lc[s]);
    for (uint32_t j = 0; j < sh->nc; j++) {
        for (int s = 0; s < 3; s++) cz_lc_clear(&lc[s]);
        if (j % 17 != 5) {
            for (int s = 0; s < 3; s++) {
                unsigned terms = (unsigned)(cz_test_rand64() % 5);
                for (unsigned t = 0; t < terms; t++) {
                    uint64_t p = cz_test_rand64() % (sh->ni + sh->na);
                    if (s == 1 && sh->ni > 1 && p == 1) continue;
                    if (p >= sh->ni && p - sh->ni < c_only && s != 2) continue;
                    cz_fr c;
                    coeff(&c, sh->random_share);
                    cz_lc_add(&lc[s], p < sh->ni ? in[p] : aux[p - sh->ni], &c);
                }
            }
            if (sh->heavy_column && sh->na > c_only + 1) cz_lc_add_var(&lc[1], aux[sh->na - 1]);
            if (sh->long_row && j == 0)
                for (uint32_t k = c_only; k < sh->na && k < c_only + 300; k++) {
                    cz_fr c;
                    coeff(&c, sh->random_share);
                    cz_lc_add(&lc[0], aux[k], &c);
                }
        }
        /* aux j occurs at least here (C for the C-only ones, else A or B) */
        for (uint32_t k = j; k < sh->na; k += sh->nc) {
            cz_fr c;
            coeff(&c, sh->random_share);
            cz_lc_add(&lc[k < c_only ? 2 : (int)(k % 2)], aux[k], &c);
        }
        cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
    }
    for (int s = 0; s < 3; s++) cz_lc_free(&lc[s]);
    free(in);
    free(aux);
}

static cz_circuit *compile_shape(const shape *sh) {
    cz_cs *cs = cz_cs_compile_new();
    synth_random(cs, sh);
    cz_circuit *c = NULL;
    cz_error err = {0};
    if (cz_compile_finish(cs, &c, &err) != CZ_OK) fprintf(stderr, "compile: %s\n", err.message);
    cz_cs_destroy(cs);
    return c;
}

static int params_equal(const cz_groth16_params *p, const cz_groth16_params *q) {
    if (p->vk.n_ic != q->vk.n_ic || p->n_h != q->n_h || p->n_l != q->n_l || p->n_a != q->n_a ||
        p->n_b_g1 != q->n_b_g1 || p->n_b_g2 != q->n_b_g2)
        return 0;
    size_t a = cz_groth16_vk_encoded_size(&p->vk);
    uint8_t *x = malloc(a), *y = malloc(a);
    cz_groth16_vk_encode(x, &p->vk, NULL);
    cz_groth16_vk_encode(y, &q->vk, NULL);
    int eq = memcmp(x, y, a) == 0;
    free(x), free(y);
    return eq && memcmp(p->h, q->h, p->n_h * sizeof *p->h) == 0 &&
           memcmp(p->l, q->l, p->n_l * sizeof *p->l) == 0 &&
           memcmp(p->a, q->a, p->n_a * sizeof *p->a) == 0 &&
           memcmp(p->b_g1, q->b_g1, p->n_b_g1 * sizeof *p->b_g1) == 0 &&
           memcmp(p->b_g2, q->b_g2, p->n_b_g2 * sizeof *p->b_g2) == 0;
}

/* 1 when the two files hold the same bytes. */
static int files_equal(const char *x, const char *y) {
    FILE *a = fopen(x, "rb"), *b = fopen(y, "rb");
    int eq = a && b;
    static uint8_t ba[1 << 16], bb[1 << 16];
    while (eq) {
        size_t na = fread(ba, 1, sizeof ba, a), nb = fread(bb, 1, sizeof bb, b);
        if (na != nb || memcmp(ba, bb, na) != 0) eq = 0;
        if (na == 0) break;
    }
    if (a) fclose(a);
    if (b) fclose(b);
    return eq;
}

typedef struct {
    uint64_t last_done, total, calls;
    int monotone, saw_h, saw_b_g2;
} progress_log;

static void on_progress(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    progress_log *p = ctx;
    if (p->calls && (done < p->last_done || total != p->total)) p->monotone = 0;
    p->last_done = done, p->total = total, p->calls++;
    if (!strcmp(stage, "h")) p->saw_h = 1;
    if (!strcmp(stage, "b_g2")) p->saw_b_g2 = 1;
}

static void seed_of(uint8_t seed[CZ_GROTH16_SEED_BYTES]) {
    cz_test_rand_bytes(seed, CZ_GROTH16_SEED_BYTES);
}

/* CPU and GPU keys of c for one seed: equal in memory and as files. */
static void compare(const char *name, const cz_circuit *c, const char *dir) {
    cz_error err = {0};
    uint8_t seed[CZ_GROTH16_SEED_BYTES];
    seed_of(seed);
    cz_groth16_params cpu, gpu;
    uint64_t t0 = cz_now_ns();
    cz_status sc = cz_groth16_dev_setup(&cpu, c, seed, &err);
    if (sc != CZ_OK) fprintf(stderr, "%s: CPU setup: %s\n", name, err.message);
    CHECK(sc == CZ_OK);
    double cpu_ms = (double)(cz_now_ns() - t0) / 1e6;
    progress_log log = {0, 0, 0, 1, 0, 0};
    t0 = cz_now_ns();
    cz_status sg = cz_gpu_groth16_dev_setup(&gpu, c, seed, on_progress, &log, &err);
    if (sg != CZ_OK) fprintf(stderr, "%s: GPU setup: %s\n", name, err.message);
    CHECK(sg == CZ_OK);
    double gpu_ms = (double)(cz_now_ns() - t0) / 1e6;
    if (sc != CZ_OK || sg != CZ_OK) return;
    int same = params_equal(&cpu, &gpu);
    CHECK(same);
    CHECK(log.monotone && log.calls > 0 && log.last_done == log.total && log.saw_h &&
          (cpu.n_b_g2 == 0 || log.saw_b_g2));

    /* the file path: encoded on the device, streamed to the writer */
    char cpu_path[512], gpu_path[512];
    snprintf(cpu_path, sizeof cpu_path, "%s/%s-cpu.params", dir, name);
    snprintf(gpu_path, sizeof gpu_path, "%s/%s-gpu.params", dir, name);
    CHECK(cz_groth16_params_write(&cpu, cpu_path, &err) == CZ_OK);
    cz_groth16_vk vk;
    /* the file's digest as the writer saw it, against the file read again */
    cz_fc_param_hasher *h = NULL;
    CHECK(cz_fc_param_hasher_new(&h, &err) == CZ_OK);
    const cz_groth16_params_tap tap = {cz_fc_param_hasher_update, h};
    cz_status sw = cz_gpu_groth16_dev_setup_write(&vk, gpu_path, &tap, c, seed, NULL, NULL, &err);
    if (sw != CZ_OK) fprintf(stderr, "%s: GPU setup to a file: %s\n", name, err.message);
    CHECK(sw == CZ_OK);
    int same_file = sw == CZ_OK && files_equal(cpu_path, gpu_path);
    CHECK(same_file);
    char tapped[CZ_FC_PARAM_DIGEST_HEX] = "", read_back[CZ_FC_PARAM_DIGEST_HEX] = "";
    CHECK(cz_fc_param_hasher_finish(tapped, h, &err) == CZ_OK);
    CHECK(sw != CZ_OK || (cz_fc_param_digest_file(read_back, gpu_path, NULL, NULL, &err) == CZ_OK &&
                          strcmp(tapped, read_back) == 0));
    if (sw == CZ_OK) {
        size_t n = cz_groth16_vk_encoded_size(&vk);
        uint8_t *x = malloc(n), *y = malloc(n);
        cz_groth16_vk_encode(x, &vk, NULL);
        cz_groth16_vk_encode(y, &cpu.vk, NULL);
        CHECK(n == cz_groth16_vk_encoded_size(&cpu.vk) && memcmp(x, y, n) == 0);
        free(x), free(y);
        cz_groth16_vk_free(&vk);
    }
    const unsigned chunk = cz_gpu_settings_get()->setup_chunk,
                   window = cz_gpu_settings_get()->setup_window;
    printf("%s: %llu constraints (domain 2^%u), %u inputs, %u aux, %u coefficients (u%u); "
           "|a| %zu |b| %zu; chunk %u, window %u (0: default): %s in memory, %s as a file "
           "(CPU %.0f ms, GPU %.0f ms)\n",
           name, (unsigned long long)c->num_constraints,
           (unsigned)__builtin_ctzll((unsigned long long)(cpu.n_h + 1)), c->num_inputs, c->num_aux,
           c->num_coeffs, 8 * c->coef_bytes, cpu.n_a, cpu.n_b_g1, chunk, window,
           same ? "same" : "DIFFERENT", same_file ? "same" : "DIFFERENT", cpu_ms, gpu_ms);
    remove(cpu_path);
    remove(gpu_path);
    cz_groth16_params_free(&cpu);
    cz_groth16_params_free(&gpu);
}

/* Both setups refuse c alike: status, and message when want_same_message. */
static void refuse_alike(const char *name, const cz_circuit *c, const char *expect,
                         int want_same_message) {
    uint8_t seed[CZ_GROTH16_SEED_BYTES];
    seed_of(seed);
    cz_error ec = {0}, eg = {0};
    cz_groth16_params p, q;
    cz_status sc = cz_groth16_dev_setup(&p, c, seed, &ec);
    cz_status sg = cz_gpu_groth16_dev_setup(&q, c, seed, NULL, NULL, &eg);
    printf("%s: CPU '%s'\n%*s  GPU '%s'\n", name, ec.message, (int)strlen(name), "", eg.message);
    CHECK(sc == CZ_E_INVALID_ARG && sg == CZ_E_INVALID_ARG);
    CHECK(strstr(ec.message, expect) != NULL);
    if (want_same_message) CHECK(strcmp(ec.message, eg.message) == 0);
    CHECK(q.h == NULL && q.vk.ic == NULL && q.n_h == 0);
    if (sc == CZ_OK) cz_groth16_params_free(&p);
    if (sg == CZ_OK) cz_groth16_params_free(&q);
}

static void refusals(void) {
    /* an aux that occurs nowhere: l would hold the identity */
    shape sh = {"unconstrained", 3, 40, 60, 30, 0, 0};
    cz_cs *cs = cz_cs_compile_new();
    synth_random(cs, &sh);
    (void)cz_cs_alloc(cs, NULL); /* aux 40, never used */
    cz_circuit *c = NULL;
    cz_error err = {0};
    CHECK(cz_compile_finish(cs, &c, &err) == CZ_OK);
    cz_cs_destroy(cs);
    if (c) refuse_alike("unconstrained aux", c, "aux 40 is unconstrained", 1);
    cz_circuit_free(c);

    /* a density bit that the matrices contradict (edited in place) */
    sh = (shape){"density", 3, 40, 60, 30, 0, 0};
    c = compile_shape(&sh);
    if (!c) return;
    uint64_t *b_aux = (uint64_t *)c->b_aux_density;
    CHECK((b_aux[0] & 1) == 0); /* aux 0 is C-only */
    b_aux[0] |= 1;
    refuse_alike("density mismatch", c, "aux 0: B(tau) = 0 but b_aux_density says 1", 1);
    b_aux[0] &= ~1ull;
    /* a column past the variables: the GPU's circuit check words it */
    uint32_t *col = (uint32_t *)c->m[2].col, saved = col[0];
    col[0] = c->num_inputs + c->num_aux + 5;
    refuse_alike("column out of range", c, "matrix C", 0);
    col[0] = saved;
    cz_circuit_free(c);
}

/* x_{i+1} = x_i (x_i + i) (+ y for odd i), the last x public: a circuit
 * with a witness, for a proof under a GPU-made key. */
static void synth_chain(cz_cs *cs, uint32_t len, uint64_t start) {
    int w = cz_cs_has_witness(cs);
    cz_fr x, y;
    cz_fr_from_u64(&x, start);
    cz_fr_from_u64(&y, start * 7 + 1);
    cz_var X = cz_cs_alloc(cs, w ? &x : NULL), Y = cz_cs_alloc(cs, w ? &y : NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    for (uint32_t i = 0; i < len; i++) {
        cz_fr ic, next;
        cz_fr_from_u64(&ic, i);
        cz_fr_add(&next, &x, &ic);
        cz_fr_mul(&next, &next, &x);
        if (i & 1) cz_fr_add(&next, &next, &y);
        cz_var N = i + 1 == len ? cz_cs_alloc_input(cs, w ? &next : NULL)
                                : cz_cs_alloc(cs, w ? &next : NULL);
        cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
        cz_lc_add_var(&a, X);
        cz_lc_add_var(&b, X), cz_lc_add(&b, CZ_VAR_ONE, &ic);
        cz_lc_add_var(&c, N);
        if (i & 1) cz_lc_sub_var(&c, Y);
        cz_cs_enforce(cs, &a, &b, &c);
        X = N;
        x = next;
    }
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

static void proof_verifies(void) {
    const uint32_t len = 3000;
    cz_error err = {0};
    cz_cs *cs = cz_cs_compile_new();
    synth_chain(cs, len, 0);
    cz_circuit *c = NULL;
    CHECK(cz_compile_finish(cs, &c, &err) == CZ_OK);
    cz_cs_destroy(cs);
    if (!c) return;
    uint8_t seed[CZ_GROTH16_SEED_BYTES];
    seed_of(seed);
    cz_groth16_params params;
    CHECK(cz_gpu_groth16_dev_setup(&params, c, seed, NULL, NULL, &err) == CZ_OK);
    cz_circuit_free(c);
    cs = cz_cs_prove_new();
    synth_chain(cs, len, 5);
    cz_prove_data pd;
    CHECK(cz_prove_finish(cs, &pd, &err) == CZ_OK);
    cz_cs_destroy(cs);
    cz_groth16_proof proof;
    CHECK(cz_groth16_prove(&proof, &params, &pd, NULL, NULL, &err) == CZ_OK);
    int valid = 0;
    CHECK(cz_groth16_verify(&valid, &params.vk, &proof, pd.input_assignment + 1, 1, &err) ==
              CZ_OK &&
          valid);
    cz_fr wrong = pd.input_assignment[1];
    cz_fr_add(&wrong, &wrong, &cz_fr_one);
    valid = 1;
    CHECK(cz_groth16_verify(&valid, &params.vk, &proof, &wrong, 1, &err) == CZ_OK && !valid);
    printf("chain of %u: a proof under the GPU-made key verifies\n", len);
    cz_prove_data_free(&pd);
    cz_groth16_params_free(&params);
}

int main(void) {
    cz_test_init("gpu/test_gpu_setup");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    char dir[] = "/tmp/cz-gpu-setup-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    static const shape shapes[] = {
        {"tiny", 2, 3, 3, 0, 0, 0},
        {"small", 4, 30, 50, 30, 0, 1},
        {"mixed", 6, 3000, 4000, 30, 1, 1},
        {"u32 indices", 5, 30000, 40000, 60, 0, 0}, /* > 65,536 distinct coefficients */
        {"2^17", 9, 100000, 130000, 5, 1, 1},
    };
    /* CZ_GPU_SMALL (runs under compute-sanitizer): the three small shapes */
    const size_t n_shapes = getenv("CZ_GPU_SMALL") ? 3 : sizeof shapes / sizeof shapes[0];
    for (size_t i = 0; i < n_shapes; i++) {
        cz_circuit *c = compile_shape(&shapes[i]);
        CHECK(c != NULL);
        if (!c) continue;
        if (i == 3) CHECK(c->coef_bytes == 4);
        compare(shapes[i].name, c, dir);
        cz_circuit_free(c);
    }
    /* chunks and windows change nothing */
    {
        cz_circuit *c = compile_shape(&shapes[getenv("CZ_GPU_SMALL") ? 1 : 2]);
        cz_gpu_settings knobs = *cz_gpu_settings_get();
        static const unsigned chunks[] = {1, 7, 1000};
        for (size_t i = 0; c && i < 3; i++) {
            knobs.setup_chunk = chunks[i];
            cz_gpu_settings_use(&knobs);
            compare("chunks", c, dir);
        }
        knobs.setup_chunk = 0;
        static const unsigned windows[] = {8, 11, 13, 16};
        for (size_t i = 0; c && i < 4; i++) {
            knobs.setup_window = windows[i];
            cz_gpu_settings_use(&knobs);
            compare("windows", c, dir);
        }
        cz_gpu_settings_use(NULL);
        cz_circuit_free(c);
    }
    refusals();
    proof_verifies();
    rmdir(dir);
    return cz_test_finish("gpu/test_gpu_setup");
}
