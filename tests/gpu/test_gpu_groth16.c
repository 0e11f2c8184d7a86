/* The GPU prover's heavy part (cz_gpu_groth16_prove_start over a resident
 * or a streaming or partial cz_gpu_srs) against the CPU one on the same circuit, parameters and
 * witness: the five sums must be the same group elements, and with the same
 * r, s the proofs must be the same bytes and verify. Circuits: a
 * multiplication chain with constants (every aux in A or B) plus aux that
 * occur only in C (so the A / B density compaction matters) and boolean aux
 * (0 and 1 values in A, B and L: the 0 / 1 / other split), at a few sizes,
 * and an unsatisfied witness; the SRS is reused for several proofs. A
 * chunked plan offers a step boundary (preemption, cancel) between its
 * chunks, and a cancel there stops the unit and leaves the SRS usable. In
 * every plan a unit of another key proven at a boundary (preemption, as
 * the engine's CRITICAL units are) gives the CPU's sums, and the unit it
 * interrupted the same proof bytes as uninterrupted. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpu_test_util.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "r1cs/backends.h"
#include "util/cancel.h"

/* v_j = (v_{j-1} + (j+1) v_{j-2}) (v_{j-3} + 3j + 5); every 5th step also
 * w = v_j enforced as v_j * 1 = w (w only in C); every 3rd step a bit
 * t = (j / 3) mod 2 enforced as t * t = t; with sparse_bits, that many
 * more bits every step (a witness mostly 0 and 1, as PoRep's: the tails
 * short enough for a pass). salt changes the inputs, hence the witness,
 * not the circuit. bad: corrupts one value. */
static unsigned sparse_bits;
static int lean_packed; /* lean proofs with a, b, c from the packed witness */
static uint64_t salt;
static void synth(cz_cs *cs, uint64_t n, int bad) {
    int witness = cz_cs_has_witness(cs);
    cz_var v[3];
    cz_fr val[3], x;
    for (int i = 0; i < 3; i++) {
        cz_fr_from_u64(&x, 2 + 3 * (uint64_t)i + salt);
        v[i] = cz_cs_alloc_input(cs, witness ? &x : NULL);
        val[i] = x;
    }
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    for (uint64_t j = 0; j < n && cz_cs_status(cs) == CZ_OK; j++) {
        cz_fr c1, c2, left, right, prod;
        cz_fr_from_u64(&c1, j + 1);
        cz_fr_from_u64(&c2, 3 * j + 5);
        if (witness) {
            cz_fr_mul(&left, &c1, &val[1]);
            cz_fr_add(&left, &left, &val[0]);
            cz_fr_add(&right, &val[2], &c2);
            cz_fr_mul(&prod, &left, &right);
            if (bad && j == n / 2) cz_fr_add(&prod, &prod, &cz_fr_one);
        }
        cz_var out = cz_cs_alloc(cs, witness ? &prod : NULL);
        cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
        cz_lc_add_var(&a, v[0]);
        cz_lc_add(&a, v[1], &c1);
        cz_lc_add_var(&b, v[2]);
        cz_lc_add(&b, CZ_VAR_ONE, &c2);
        cz_lc_add_var(&c, out);
        cz_cs_enforce(cs, &a, &b, &c);
        if (j % 5 == 0) {
            cz_var w = cz_cs_alloc(cs, witness ? &prod : NULL);
            cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
            cz_lc_add_var(&a, out);
            cz_lc_add_var(&b, CZ_VAR_ONE);
            cz_lc_add_var(&c, w);
            cz_cs_enforce(cs, &a, &b, &c);
        }
        for (unsigned q = 0; q < sparse_bits; q++) gpu_test_bit(cs, (j + q + salt) % 2);
        if (j % 3 == 0) gpu_test_bit(cs, (j / 3) % 2);
        v[2] = v[1], v[1] = v[0], v[0] = out;
        if (witness) val[2] = val[1], val[1] = val[0], val[0] = prod;
    }
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

/* The prover's tail steps: "L tail MSM (t of n[, masked])" of a resident
 * key, masked exactly when t is above mask_above; a chunked plan's "L split
 * (tail t of n)", left for the pass when t is at most the pass's share
 * (cz_gpu_plan_pass_tail), else "L tail MSM (t of n, masked)". Counted:
 * the masked ones, those not as expected, and the pass steps ("L pass (1
 * unit)"). */
static int masked_steps, wrong_steps, pass_steps;
static size_t mask_above;
static int in_inner; /* the preempting unit's prove runs (its steps and boundaries not counted) */
static void count_masked(void *ctx, const char *step, uint64_t t0, uint64_t t1) {
    const int chunked = ctx != NULL;
    (void)t0, (void)t1;
    if (in_inner) return;
    if (strstr(step, " pass (")) pass_steps++;
    const char *p = strstr(step, "tail MSM (");
    const char *q = strstr(step, "split (tail ");
    size_t t = 0, n = 0;
    if (q && sscanf(q, "split (tail %zu of %zu", &t, &n) == 2) {
        wrong_steps += !chunked || t > cz_gpu_plan_pass_tail(n);
        return;
    }
    if (!p || sscanf(p, "tail MSM (%zu of %zu", &t, &n) != 2) return;
    const int masked = strstr(p, ", masked") != NULL;
    masked_steps += masked;
    wrong_steps += masked != (chunked ? t > cz_gpu_plan_pass_tail(n) : t > mask_above);
}

/* Development parameters for synth(n) from a seed whose first byte is
 * seed0, and a satisfying witness for synth(n). */
static void small_key(cz_groth16_params *params, uint64_t n, uint8_t seed0) {
    cz_error err = {0};
    uint8_t seed[CZ_GROTH16_SEED_BYTES] = {seed0};
    cz_cs *rec = cz_cs_compile_new();
    synth(rec, n, 0);
    cz_circuit *circ = NULL;
    CHECK(cz_compile_finish(rec, &circ, &err) == CZ_OK);
    cz_cs_destroy(rec);
    CHECK(circ && cz_groth16_dev_setup(params, circ, seed, &err) == CZ_OK);
    cz_circuit_free(circ);
}

static void small_witness(cz_prove_data *pd, uint64_t n) {
    cz_error err = {0};
    cz_cs *pcs = cz_cs_prove_new();
    synth(pcs, n, 0);
    CHECK(cz_prove_finish(pcs, pd, &err) == CZ_OK);
    cz_cs_destroy(pcs);
}

/* A unit that preempts the one proving (as the engine's CRITICAL unit
 * does at a step boundary): another circuit's key resident on the device,
 * proven to the end on the same thread beside the interrupted unit's
 * buffers; its sums must equal the CPU's, and the interrupted unit's its
 * own uninterrupted ones (the caller's checks). */
typedef struct {
    cz_groth16_params params;
    cz_gpu_srs *srs;
    cz_prove_data pd;
    cz_groth16_msm_results cpu;
    int ran;
} inner_unit;
static inner_unit *inner;

static void inner_make(inner_unit *u) {
    cz_error err = {0};
    memset(u, 0, sizeof *u);
    small_key(&u->params, 37, 7);
    CHECK(cz_gpu_srs_create(&u->srs, &u->params, &err) == CZ_OK);
    small_witness(&u->pd, 37);
    CHECK(cz_groth16_prove_start(&u->cpu, &u->params, &u->pd, &err) == CZ_OK);
}

static void inner_free(inner_unit *u) {
    cz_gpu_srs_destroy(u->srs);
    cz_prove_data_free(&u->pd);
    cz_groth16_params_free(&u->params);
}

static void inner_run(void) {
    cz_error err = {0};
    cz_groth16_msm_results gpu;
    in_inner = 1;
    const cz_status st =
        cz_gpu_groth16_prove_start(&gpu, inner->srs, &inner->params, NULL, &inner->pd, NULL, &err);
    in_inner = 0;
    if (st != CZ_OK) fprintf(stderr, "preempting unit: %s\n", err.message);
    CHECK(st == CZ_OK && gpu_test_sums_equal(&inner->cpu, &gpu));
    inner->ran++;
}

/* Step boundaries met by a prove (cz_step_boundary's hook), the one at
 * which the hook cancels and the one at which inner runs (0: never). */
static int boundaries, cancel_at, preempt_at;
/* the H chain's boundaries, in every plan (a, b, c from the host) */
#define H_CHAIN_BOUNDARIES 4
static atomic_int cancel_flag;
static void count_boundary(void *ctx) {
    (void)ctx;
    if (in_inner) return;
    if (++boundaries == cancel_at) atomic_store(&cancel_flag, 1);
    if (boundaries == preempt_at && inner) inner_run();
}

/* Set: check_plan's host points are page-locked (on pages of their own),
 * so the streamed chunks go from them to the device without the staging
 * copy (cz_gpu_stage_points), as the engine's streamed keys do. */
static int lock_host;

/* v (bytes) moved to page-aligned memory of whole pages, then locked. */
static void *locked_copy(void *v, size_t bytes) {
    if (!v) return NULL;
    const size_t page = 4096, len = (bytes + page - 1) / page * page;
    void *p = NULL;
    CHECK(posix_memalign(&p, page, len) == 0);
    memcpy(p, v, bytes);
    free(v);
    cz_error err = {0};
    if (cz_gpu_host_lock(p, len, &err) != CZ_OK) fprintf(stderr, "%s\n", err.message);
    CHECK(cz_gpu_host_locked(p, bytes));
    return p;
}

static void lock_params(cz_groth16_params *p) {
    void **v[CZ_GROTH16_VECTORS] = {(void **)&p->h, (void **)&p->l, (void **)&p->a,
                                    (void **)&p->b_g1, (void **)&p->b_g2};
    for (int k = 0; k < CZ_GROTH16_VECTORS; k++) {
        size_t bytes = 0;
        /* bytes is set by the accessor: read it after the call (argument
         * order is unspecified) */
        void *points = cz_groth16_params_points(p, k, &bytes);
        *v[k] = locked_copy(points, bytes);
    }
}

static void unlock_params(cz_groth16_params *p) {
    for (int k = 0; k < CZ_GROTH16_VECTORS; k++) {
        size_t bytes = 0;
        cz_gpu_host_unlock(cz_groth16_params_points(p, k, &bytes));
    }
    CHECK(!cz_gpu_host_locked(p->h, sizeof *p->h));
}

/* Set: check_plan's GPU side takes a view of the key's .params file
 * (groth16.h: cz_groth16_params_file_view), as the engine's streamed keys
 * do: its points as the file has them, converted on the device (kept
 * vectors at the upload, streamed chunks as each arrives); with lock_host,
 * the mapping's vectors page-locked. The CPU proves from the decoded key. */
static int from_file;

/* p written to a file, mapped into *f (the file then unlinked: the
 * mapping keeps it) and *view a view of it; damage: that byte of the file
 * XORed with 1 first (SIZE_MAX: none). */
static void file_view_of(const cz_groth16_params *p, cz_groth16_params_file *f,
                         cz_groth16_params *view, size_t damage) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/cz-gpu-groth16-%d.params", (int)getpid());
    cz_error err = {0};
    CHECK(cz_groth16_params_write(p, path, &err) == CZ_OK);
    if (damage != SIZE_MAX) {
        FILE *fp = fopen(path, "r+b");
        CHECK(fp != NULL);
        if (fp) {
            CHECK(fseek(fp, (long)damage, SEEK_SET) == 0);
            const int c = fgetc(fp);
            CHECK(fseek(fp, (long)damage, SEEK_SET) == 0 && fputc(c ^ 1, fp) != EOF);
            fclose(fp);
        }
    }
    CHECK(cz_groth16_params_file_map(f, path, &err) == CZ_OK);
    unlink(path);
    CHECK(cz_groth16_params_file_view(view, f, CZ_GROTH16_CHECKED, &err) == CZ_OK);
}

/* A view's vectors (in the mapping) page-locked, or unlocked. */
static void lock_view(const cz_groth16_params *view, int lock) {
    for (int k = 0; k < CZ_GROTH16_VECTORS; k++) {
        size_t bytes = 0;
        void *v = cz_groth16_params_points(view, k, &bytes);
        cz_error err = {0};
        if (v && lock)
            CHECK(cz_gpu_host_lock(v, bytes, &err) == CZ_OK && cz_gpu_host_locked(v, bytes));
        if (v && !lock) cz_gpu_host_unlock(v);
    }
}

/* stream_chunk: NULL for a resident SRS, else the points per chunk of a
 * streaming one (CZ_GPU_STREAM_CHUNK), keep (NULL or CZ_GPU_STREAM_KEEP's
 * vector names: a partial plan) the vectors that stay on the device; tails
 * longer than mask_tail points must run masked, the others gathered; at
 * least one must be masked when mask_tail is below SIZE_MAX. lean (with
 * stream_chunk, without keep): the lean plan (CZ_GPU_STREAM_LEAN), which
 * refuses a, b, c from a device circuit. */
static void check_plan(uint64_t n, const char *stream_chunk, const char *keep, size_t mask_tail,
                       int lean) {
    cz_error err = {0};
    cz_cs *rec = cz_cs_compile_new();
    synth(rec, n, 0);
    cz_circuit *circ = NULL;
    CHECK(cz_compile_finish(rec, &circ, &err) == CZ_OK);
    cz_cs_destroy(rec);
    uint8_t seed[CZ_GROTH16_SEED_BYTES] = {0};
    cz_test_rand_bytes(seed, sizeof seed);
    cz_groth16_params params;
    CHECK(circ && cz_groth16_dev_setup(&params, circ, seed, &err) == CZ_OK);
    /* gp: what the GPU side proves from (the decoded key, or its file view) */
    cz_groth16_params fview, *gp = &params;
    cz_groth16_params_file pf;
    memset(&pf, 0, sizeof pf);
    if (from_file) {
        file_view_of(&params, &pf, &fview, SIZE_MAX);
        gp = &fview;
    }
    if (lock_host && from_file)
        lock_view(gp, 1);
    else if (lock_host)
        lock_params(&params);
    cz_gpu_circuit *gc = NULL;
    if (lean) CHECK(cz_gpu_circuit_create(&gc, circ, &err) == CZ_OK);
    cz_circuit_free(circ);
    cz_gpu_srs *srs = NULL;
    if (stream_chunk) gpu_knob("CZ_GPU_STREAM_CHUNK", stream_chunk);
    if (keep) gpu_knob("CZ_GPU_STREAM_KEEP", keep);
    if (lean) gpu_knob("CZ_GPU_STREAM_LEAN", "1");
    cz_status sc0 = cz_gpu_srs_create(&srs, gp, &err);
    gpu_knob("CZ_GPU_STREAM_LEAN", NULL);
    gpu_knob("CZ_GPU_STREAM_KEEP", NULL);
    gpu_knob("CZ_GPU_STREAM_CHUNK", NULL);
    if (sc0 != CZ_OK) fprintf(stderr, "srs: %s\n", err.message);
    CHECK(sc0 == CZ_OK);
    char why[512];
    CHECK(cz_gpu_srs_streaming(srs, why, sizeof why) == (stream_chunk != NULL));
    cz_gpu_plan plan;
    cz_gpu_srs_plan_get(&plan, srs);
    CHECK(plan.kind == (!stream_chunk ? CZ_GPU_PLAN_RESIDENT
                        : keep        ? CZ_GPU_PLAN_PARTIAL
                                      : CZ_GPU_PLAN_STREAMING));
    CHECK(plan.lean == lean);
    if (stream_chunk)
        CHECK(strstr(why, "CZ_GPU_STREAM_CHUNK") != NULL);
    else
        CHECK(cz_gpu_srs_bytes(srs) >=
              (params.n_h + params.n_l + params.n_a + params.n_b_g1) * sizeof(cz_g1_affine));

    /* a chunked plan: a cancel at the first boundary inside the H sum (past
     * the H chain's four: after a, b, c are up and after each vector's
     * transforms, or, lean, after a, b are up, after a's and b's transforms
     * and c's; and the one before the H MSM) stops the unit there: between
     * two streamed chunks, or two pieces of a kept H */
    if (stream_chunk) {
        cz_cs *pcs = cz_cs_prove_new();
        synth(pcs, n, 0);
        cz_prove_data pd;
        CHECK(cz_prove_finish(pcs, &pd, &err) == CZ_OK);
        cz_cs_destroy(pcs);
        cz_groth16_msm_results gpu;
        cz_error cerr = {0};
        const int inside = H_CHAIN_BOUNDARIES + 1 + 1;
        boundaries = 0, cancel_at = inside;
        atomic_store(&cancel_flag, 0);
        cz_cancel_set_flag(&cancel_flag);
        cz_boundary_set_hook(count_boundary, NULL);
        const cz_status st = cz_gpu_groth16_prove_start(&gpu, srs, gp, NULL, &pd, NULL, &cerr);
        cz_boundary_set_hook(NULL, NULL);
        cz_cancel_set_flag(NULL);
        const int h_kept = plan.keep >> CZ_GROTH16_H & 1;
        printf("cancelled at boundary %d: %s\n", inside, cerr.message);
        CHECK(st == CZ_E_CANCELLED && boundaries == inside);
        CHECK(strstr(cerr.message, h_kept ? "the next piece" : "the next streamed chunk") != NULL);
        cz_prove_data_free(&pd);
    }

    /* good, bad, good again: the resident SRS serves several proofs; the
     * last one is preempted (inner) at the boundary before its H MSM, or in
     * a chunked plan at the first inside its H sum (its carried buckets
     * kept), and must give the same sums as the first */
    inner_unit iu;
    inner_make(&iu);
    for (int round = 0; round < 3; round++) {
        int bad = round == 1;
        cz_cs *pcs = cz_cs_prove_new();
        synth(pcs, n, bad);
        cz_prove_data pd;
        CHECK(cz_prove_finish(pcs, &pd, &err) == CZ_OK);
        cz_cs_destroy(pcs);
        cz_groth16_msm_results cpu, gpu;
        cz_status sc = cz_groth16_prove_start(&cpu, &params, &pd, &err);
        masked_steps = wrong_steps = pass_steps = 0;
        mask_above = mask_tail;
        cz_gpu_set_step_hook(count_masked, plan.chunk_points ? &plan : NULL);
        boundaries = 0, cancel_at = 0;
        preempt_at = round == 2 ? H_CHAIN_BOUNDARIES + 1 + (stream_chunk != NULL) : 0;
        inner = round == 2 ? &iu : NULL;
        cz_boundary_set_hook(count_boundary, NULL);
        const uint64_t h2d0 = cz_gpu_h2d_bytes();
        cz_status sg = cz_gpu_groth16_prove_start(&gpu, srs, gp, NULL, &pd, NULL, &err);
        inner = NULL, preempt_at = 0;
        CHECK(iu.ran == (round == 2));
        /* what crossed to the device: a streamed H at least (the H MSM
         * reads every point), and the witness in any plan */
        const uint64_t h2d = cz_gpu_h2d_bytes() - h2d0;
        if (!bad && stream_chunk && !(plan.keep >> CZ_GROTH16_H & 1))
            CHECK(h2d >= params.n_h * sizeof(cz_g1_affine));
        if (!bad) CHECK(h2d >= pd.num_aux * sizeof(cz_fr) / 64);
        cz_boundary_set_hook(NULL, NULL);
        cz_gpu_set_step_hook(NULL, NULL);
        /* the four steps' boundaries (H, L, A, B MSMs), and in a chunked
         * plan one between every two chunks of each chunked sum: the H
         * sum's alone are ceil(n_h / chunk) - 1 more */
        if (!bad && plan.chunk_points) {
            const size_t chunks_h = (params.n_h + plan.chunk_points - 1) / plan.chunk_points;
            if (boundaries < (int)(4 + chunks_h - 1))
                fprintf(stderr, "n=%llu: %d boundaries, %zu chunks of H\n", (unsigned long long)n,
                        boundaries, chunks_h);
            CHECK(boundaries >= (int)(4 + chunks_h - 1));
        } else if (!bad) {
            CHECK(boundaries >= 4);
        }
        if (gc && !bad) {
            /* the lean plan takes a, b, c from the host, or from the device
             * circuit with the witness packed (in a chunk buffer: refused
             * without a pack) */
            cz_prove_data view = pd;
            view.a = view.b = view.c = NULL;
            cz_error lerr = {0};
            cz_groth16_msm_results dev, *devp = &dev;
            CHECK(cz_gpu_groth16_prove_start(&dev, srs, gp, gc, &view, NULL, &lerr) ==
                      CZ_E_INVALID_ARG &&
                  strstr(lerr.message, "lean") != NULL);
            cz_gpu_witness_pack zp;
            if (cz_gpu_witness_pack_make(&zp, pd.input_assignment, pd.num_inputs, pd.aux_assignment,
                                         pd.num_aux)) {
                cz_gpu_pass_set *set = NULL;
                cz_status sl =
                    cz_gpu_groth16_prove_head(&dev, &set, srs, gp, gc, &view, NULL, &zp, &lerr);
                if (sl == CZ_OK && set) sl = cz_gpu_groth16_pass(srs, gp, &set, &devp, 1, &lerr);
                cz_gpu_pass_set_free(set);
                if (sl != CZ_OK) fprintf(stderr, "lean, packed: %s\n", lerr.message);
                CHECK(sl == CZ_OK && sc == CZ_OK);
                CHECK(gpu_test_sums_equal(&cpu, &dev));
                lean_packed++;
                cz_gpu_witness_pack_free(&zp);
            }
        }
        if (!bad) CHECK(wrong_steps == 0 && (mask_tail == SIZE_MAX || masked_steps > 0));
        /* a witness of short tails goes through a pass on a chunked plan */
        if (!bad && sparse_bits && plan.chunk_points) CHECK(pass_steps > 0);
        if (bad) {
            /* both refuse the unsatisfied witness */
            CHECK(sc == CZ_E_INVALID_ARG);
            CHECK(sg == CZ_E_INVALID_ARG);
        } else {
            if (sg != CZ_OK) fprintf(stderr, "n=%llu: %s\n", (unsigned long long)n, err.message);
            CHECK(sc == CZ_OK && sg == CZ_OK);
            int same = cz_g1_equal(&cpu.h, &gpu.h) && cz_g1_equal(&cpu.l, &gpu.l) &&
                       cz_g1_equal(&cpu.a, &gpu.a) && cz_g1_equal(&cpu.b_g1, &gpu.b_g1) &&
                       cz_g2_equal(&cpu.b_g2, &gpu.b_g2);
            if (!same)
                fprintf(stderr, "n=%llu: sums differ (h %d l %d a %d b1 %d b2 %d)\n",
                        (unsigned long long)n, cz_g1_equal(&cpu.h, &gpu.h),
                        cz_g1_equal(&cpu.l, &gpu.l), cz_g1_equal(&cpu.a, &gpu.a),
                        cz_g1_equal(&cpu.b_g1, &gpu.b_g1), cz_g2_equal(&cpu.b_g2, &gpu.b_g2));
            CHECK(same);
            cz_fr r, s;
            gpu_rand_fr(&r);
            gpu_rand_fr(&s);
            cz_groth16_proof pc, pg;
            CHECK(cz_groth16_prove_finalize(&pc, &params.vk, &cpu, &r, &s, &err) == CZ_OK);
            CHECK(cz_groth16_prove_finalize(&pg, &params.vk, &gpu, &r, &s, &err) == CZ_OK);
            CHECK(memcmp(&pc, &pg, sizeof pc) == 0);
            int valid = 0;
            CHECK(cz_groth16_verify(&valid, &params.vk, &pg, pd.input_assignment + 1,
                                    pd.num_inputs - 1, &err) == CZ_OK);
            CHECK(valid);
        }
        cz_prove_data_free(&pd);
    }
    inner_free(&iu);
    cz_gpu_srs_destroy(srs);
    cz_gpu_circuit_destroy(gc);
    if (lock_host && from_file)
        lock_view(gp, 0);
    else if (lock_host)
        unlock_params(&params);
    if (from_file) {
        cz_groth16_params_free(&fview);
        cz_groth16_params_file_unmap(&pf);
    }
    cz_groth16_params_free(&params);
}

static void check(uint64_t n, const char *stream_chunk) {
    check_plan(n, stream_chunk, NULL, SIZE_MAX, 0);
}

/* Units of one key share a pass: each unit's head on a chunked plan leaves
 * its L, A and B sums in a set (its witness mostly 0 and 1), one pass adds
 * all k sets' sums, and each unit's five sums are then the CPU's for its
 * own witness. A set whose unit is given up is freed without a pass. The
 * odd units' witnesses go up packed (cz_gpu_witness_pack). */
static void check_pass_units(uint64_t n, const char *stream_chunk, const char *keep, size_t k) {
    enum { MAX_UNITS = 4 };
    CHECK(k <= MAX_UNITS);
    cz_error err = {0};
    sparse_bits = 20;
    salt = 0;
    cz_groth16_params params;
    small_key(&params, n, 7);
    gpu_knob("CZ_GPU_STREAM_CHUNK", stream_chunk);
    gpu_knob("CZ_GPU_STREAM_KEEP", keep);
    cz_gpu_srs *srs = NULL;
    const cz_status sc0 = cz_gpu_srs_create(&srs, &params, &err);
    gpu_knob("CZ_GPU_STREAM_KEEP", NULL);
    gpu_knob("CZ_GPU_STREAM_CHUNK", NULL);
    CHECK(sc0 == CZ_OK);
    cz_prove_data pd[MAX_UNITS + 1];
    cz_groth16_msm_results gpu[MAX_UNITS + 1], *outs[MAX_UNITS + 1];
    cz_gpu_pass_set *set[MAX_UNITS + 1] = {0};
    for (size_t j = 0; j <= k; j++) {
        salt = j;
        small_witness(&pd[j], n);
        outs[j] = &gpu[j];
        cz_gpu_witness_pack pack;
        const int packed =
            j % 2 && cz_gpu_witness_pack_make(&pack, pd[j].input_assignment, pd[j].num_inputs,
                                              pd[j].aux_assignment, pd[j].num_aux);
        CHECK(packed == (int)(j % 2));
        const cz_status st = cz_gpu_groth16_prove_head(&gpu[j], &set[j], srs, &params, NULL, &pd[j],
                                                       NULL, packed ? &pack : NULL, &err);
        if (st != CZ_OK) fprintf(stderr, "head %zu: %s\n", j, err.message);
        CHECK(st == CZ_OK && set[j] != NULL);
        if (packed) cz_gpu_witness_pack_free(&pack);
    }
    cz_gpu_pass_set_free(set[k]); /* the unit given up */
    CHECK(cz_gpu_groth16_pass(srs, &params, set, outs, k, &err) == CZ_OK);
    for (size_t j = 0; j < k; j++) {
        cz_groth16_msm_results cpu;
        CHECK(cz_groth16_prove_start(&cpu, &params, &pd[j], &err) == CZ_OK);
        const int same = cz_g1_equal(&cpu.h, &gpu[j].h) && cz_g1_equal(&cpu.l, &gpu[j].l) &&
                         cz_g1_equal(&cpu.a, &gpu[j].a) && cz_g1_equal(&cpu.b_g1, &gpu[j].b_g1) &&
                         cz_g2_equal(&cpu.b_g2, &gpu[j].b_g2);
        if (!same) fprintf(stderr, "pass of %zu units, unit %zu: sums differ\n", k, j);
        CHECK(same);
    }
    for (size_t j = 0; j <= k; j++) {
        if (j < k) cz_gpu_pass_set_free(set[j]);
        cz_prove_data_free(&pd[j]);
    }
    /* the freed sets' page-locked blocks wait for the next pass until trimmed */
    CHECK(cz_gpu_host_blocks_trim() > 0);
    CHECK(cz_gpu_host_blocks_trim() == 0);
    cz_gpu_srs_destroy(srs);
    cz_groth16_params_free(&params);
    sparse_bits = 0;
    salt = 0;
}

/* A proving key for another circuit is refused by shape, not misused. */
/* A file view with a point off the curve: h[70] (past the first chunk of
 * 64) refused by the streamed H sum, and by a partial plan's upload of a
 * kept h, with its index; the decoded key (the CPU's) is not involved. */
static void check_damaged_file(void) {
    cz_error err = {0};
    cz_groth16_params params, view;
    small_key(&params, 100, 3);
    CHECK(params.n_h > 70);
    cz_groth16_params_file f;
    file_view_of(&params, &f, &view, SIZE_MAX);
    const size_t at = (size_t)f.layout.offset[CZ_GROTH16_H] + 70 * CZ_G1_UNCOMPRESSED_BYTES + 95;
    cz_groth16_params_free(&view);
    cz_groth16_params_file_unmap(&f);
    file_view_of(&params, &f, &view, at); /* the last byte of y: off the curve */
    cz_prove_data pd;
    small_witness(&pd, 100);
    for (int kept = 0; kept < 2; kept++) {
        cz_gpu_srs *srs = NULL;
        gpu_knob("CZ_GPU_STREAM_CHUNK", "64");
        if (kept) gpu_knob("CZ_GPU_STREAM_KEEP", "h");
        cz_status st = cz_gpu_srs_create(&srs, &view, &err);
        gpu_knob("CZ_GPU_STREAM_KEEP", NULL);
        gpu_knob("CZ_GPU_STREAM_CHUNK", NULL);
        if (st == CZ_OK) {
            cz_groth16_msm_results res;
            st = cz_gpu_groth16_prove_start(&res, srs, &view, NULL, &pd, NULL, &err);
        }
        printf("damaged h[70]%s: %s\n", kept ? " (kept)" : "", err.message);
        CHECK(st == CZ_E_PARSE && (kept ? srs == NULL : srs != NULL));
        CHECK(strstr(err.message, "point 70 ") && strstr(err.message, "not on the curve"));
        cz_gpu_srs_destroy(srs);
    }
    cz_prove_data_free(&pd);
    cz_groth16_params_free(&view);
    cz_groth16_params_file_unmap(&f);
    cz_groth16_params_free(&params);
}

static void check_shape_mismatch(void) {
    cz_error err = {0};
    cz_groth16_params params;
    small_key(&params, 10, 1);
    cz_gpu_srs *srs = NULL;
    CHECK(cz_gpu_srs_create(&srs, &params, &err) == CZ_OK);
    cz_prove_data pd;
    small_witness(&pd, 20);
    cz_groth16_msm_results res;
    CHECK(cz_gpu_groth16_prove_start(&res, srs, NULL, NULL, &pd, NULL, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "params.") != NULL);
    cz_prove_data_free(&pd);
    cz_gpu_srs_destroy(srs);
    cz_gpu_srs_destroy(NULL);
    cz_groth16_params_free(&params);
}

/* A device budget too small even for streaming is refused with the
 * figures; bad knobs are named; a streaming SRS without the host key is
 * refused at prove time. */
static void check_streaming_refusals(void) {
    cz_error err = {0};
    cz_groth16_params params;
    small_key(&params, 50, 2);
    cz_gpu_srs *srs = NULL;
    gpu_knob("CZ_GPU_MEM_LIMIT", "1MiB");
    CHECK(cz_gpu_srs_create(&srs, &params, &err) == CZ_E_NOMEM && srs == NULL);
    CHECK(strstr(err.message, "too small") && strstr(err.message, "CZ_GPU_MEM_LIMIT"));
    gpu_knob("CZ_GPU_MEM_LIMIT", "lots");
    CHECK(cz_gpu_srs_create(&srs, &params, &err) == CZ_E_PARSE && srs == NULL);
    CHECK(strstr(err.message, "CZ_GPU_MEM_LIMIT") != NULL);
    gpu_knob("CZ_GPU_MEM_LIMIT", NULL);
    gpu_knob("CZ_GPU_STREAM_CHUNK", "1000");
    CHECK(cz_gpu_srs_create(&srs, &params, &err) == CZ_E_INVALID_ARG && srs == NULL);
    gpu_knob("CZ_GPU_STREAM_CHUNK", "128");
    CHECK(cz_gpu_srs_create(&srs, &params, &err) == CZ_OK);
    gpu_knob("CZ_GPU_STREAM_CHUNK", NULL);
    cz_prove_data pd;
    small_witness(&pd, 50);
    cz_groth16_msm_results res;
    CHECK(cz_gpu_groth16_prove_start(&res, srs, NULL, NULL, &pd, NULL, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "host params") != NULL);
    cz_prove_data_free(&pd);
    cz_gpu_srs_destroy(srs);
    cz_groth16_params_free(&params);
}

int main(void) {
    cz_test_init("gpu/test_gpu_groth16");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    check_shape_mismatch();
    check_streaming_refusals();
    check(1, NULL);
    check(100, NULL);
    check(getenv("CZ_GPU_SMALL") ? 300 : 3000, NULL);
    /* streaming: several chunks per vector (the long tails masked) */
    check(100, "64");
    check(getenv("CZ_GPU_SMALL") ? 300 : 3000, "1024");
    /* resident, the tail MSMs in pieces of 64 gathered points, then (a
     * tail longer than a piece taken as dense whatever its share) as one
     * MSM over every point with the ones masked */
    gpu_knob("CZ_GPU_TAIL_CHUNK", "64");
    gpu_knob("CZ_GPU_TAIL_DENSE", "101");
    check(getenv("CZ_GPU_SMALL") ? 300 : 3000, NULL);
    gpu_knob("CZ_GPU_TAIL_DENSE", "0");
    const uint64_t big = getenv("CZ_GPU_SMALL") ? 300 : 3000;
    check_plan(big, NULL, NULL, 64, 0);
    /* streaming and partial, the dense tails masked over every chunk */
    check_plan(big, "256", NULL, 64, 0);
    check_plan(big, "256", "h,b_g2", 64, 0);
    /* lean: the masked tail scalars made chunk by chunk */
    check_plan(big, "256", NULL, 64, 1);
    gpu_knob("CZ_GPU_TAIL_DENSE", NULL);
    gpu_knob("CZ_GPU_TAIL_CHUNK", NULL);
    /* partial plans: the kept vectors summed in place in pieces of the
     * chunk, the others streamed; G1 kept beside G2 streamed and the other
     * way round */
    check_plan(100, "64", "h,b_g2", SIZE_MAX, 0);
    check_plan(big, "1024", "l,a,b_g1", SIZE_MAX, 0);
    check_plan(big, "128", "h,l,a,b_g1,b_g2", SIZE_MAX, 0);
    /* the lean plan: a, b, c through two buffers, the long tails masked
     * chunk by chunk */
    check_plan(100, "64", NULL, SIZE_MAX, 1);
    check_plan(big, "1024", NULL, SIZE_MAX, 1);
    /* the H MSM as an MSM per chunk (CZ_GPU_MSM_CARRY=0; the cases above
     * sum it as one carried sum, the default): streamed, kept in pieces,
     * lean */
    gpu_knob("CZ_GPU_MSM_CARRY", "0");
    check_plan(big, "256", NULL, SIZE_MAX, 0);
    check_plan(big, "128", "h,l,a,b_g1,b_g2", SIZE_MAX, 0);
    check_plan(big, "1024", NULL, SIZE_MAX, 1);
    gpu_knob("CZ_GPU_MSM_CARRY", NULL);
    /* the host points page-locked: streamed, partial (their kept vectors
     * uploaded from locked memory too) and lean (the tail knobs at their
     * defaults: no tail masked) */
    lock_host = 1;
    check_plan(big, "1024", NULL, SIZE_MAX, 0);
    check_plan(big, "256", "h,b_g2", SIZE_MAX, 0);
    check_plan(big, "1024", NULL, SIZE_MAX, 1);
    /* a witness of short tails: its L, A and B through a pass of its own */
    sparse_bits = 20;
    check_plan(100, "64", NULL, SIZE_MAX, 0);
    check_plan(100, "64", NULL, SIZE_MAX, 1);
    CHECK(lean_packed > 0);
    lock_host = 0;
    check_plan(100, "64", "h,b_g2", SIZE_MAX, 0);
    check_plan(100, "256", NULL, SIZE_MAX, 0);
    sparse_bits = 0;
    /* several units in one pass: streamed, partial (kept G1 beside
     * streamed G2), four units with one chunk per vector */
    check_pass_units(100, "64", NULL, 3);
    check_pass_units(100, "128", "l,a", 2);
    check_pass_units(60, "64", NULL, 4);
    /* the engine's streamed keys: a view of the .params file, converted on
     * the device; streamed, partial, lean, page-locked or not */
    from_file = 1;
    check_plan(big, "256", NULL, SIZE_MAX, 0);
    check_plan(big, "256", "h,b_g2", 64, 0);
    check_plan(big, "1024", NULL, SIZE_MAX, 1);
    lock_host = 1;
    check_plan(big, "1024", NULL, SIZE_MAX, 0);
    check_plan(big, "256", "l,a,b_g1", SIZE_MAX, 0);
    lock_host = 0;
    from_file = 0;
    check_damaged_file();
    return cz_test_finish("gpu/test_gpu_groth16");
}
