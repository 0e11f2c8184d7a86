/* The CUDA back-end context keeping several keys resident (engine/backend.h):
 * two circuits of different shapes proven in turn on one context give the
 * CPU's five sums every time and both stay resident (most recently used
 * first in the context's report); a context whose budget holds one of them
 * with a proof's working set but not both evicts the other and still
 * proves both right; a budget where the large key cannot be resident beside
 * the small one but one of its streaming plans fits lets it stream beside
 * it, both staying (as a 32 GiB PoRep key streams beside a resident
 * WinningPoSt key on a 24 GiB card); a fifth key evicts the least recently
 * used of four;
 * releasing one circuit leaves the others; a device out-of-memory in a
 * unit is proven again on a smaller plan; a lean plan (forced) proves
 * with a, b, c from its streamed circuit and the packed witness, or from
 * the CPU for a witness that does not pack; units of one streamed key proven on
 * several threads at once share passes over its points (CZ_GPU_PASS_UNITS)
 * and each gets its own sums. Units come both ways: witness
 * with the pre-compiled circuit (a, b, c on the device, witness slots) and
 * a, b, c from the host. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine/backend.h"
#include "gpu/plan.h"
#include "gpu_test_util.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"

typedef struct {
    cz_circuit *circ;
    cz_groth16_params params;
    cz_witness w;
    cz_prove_data pd;
    cz_groth16_msm_results cpu;
} test_circuit;

/* gpu_test_chain(n), then with bits that many more aux b enforced b b = b,
 * whose values salt chooses: mostly 0 and 1, as a PoRep witness (the L, A
 * and B tails short enough for a pass), and another witness per salt. */
static void synth(cz_cs *cs, size_t n, size_t bits, uint64_t salt) {
    gpu_test_chain(cs, n);
    for (size_t q = 0; q < bits; q++) gpu_test_bit(cs, (q * 7 + salt) / 3 % 2);
}

/* t's witness, prove data and CPU sums for synth(n, bits, salt) under
 * params. */
static void witness(test_circuit *t, const cz_groth16_params *params, size_t n, size_t bits,
                    uint64_t salt) {
    cz_error err = {0};
    cz_cs *wcs = cz_cs_witness_new();
    synth(wcs, n, bits, salt);
    CHECK(cz_witness_finish(wcs, &t->w.input, &t->w.num_inputs, &t->w.aux, &t->w.num_aux, &err) ==
          CZ_OK);
    cz_cs_destroy(wcs);
    cz_cs *pcs = cz_cs_prove_new();
    synth(pcs, n, bits, salt);
    CHECK(cz_prove_finish(pcs, &t->pd, &err) == CZ_OK);
    cz_cs_destroy(pcs);
    CHECK(cz_groth16_prove_start(&t->cpu, params, &t->pd, &err) == CZ_OK);
}

static void make_bits(test_circuit *t, size_t n, size_t bits) {
    cz_error err = {0};
    memset(t, 0, sizeof *t);
    cz_cs *rec = cz_cs_compile_new();
    synth(rec, n, bits, 0);
    CHECK(cz_compile_finish(rec, &t->circ, &err) == CZ_OK);
    cz_cs_destroy(rec);
    uint8_t seed[CZ_GROTH16_SEED_BYTES] = {0};
    cz_test_rand_bytes(seed, sizeof seed);
    CHECK(cz_groth16_dev_setup(&t->params, t->circ, seed, &err) == CZ_OK);
    witness(t, &t->params, n, bits, 0);
}

static void make(test_circuit *t, size_t n) {
    make_bits(t, n, 0);
}

static void drop(test_circuit *t) {
    cz_circuit_free(t->circ);
    cz_groth16_params_free(&t->params);
    cz_witness_free(&t->w);
    cz_prove_data_free(&t->pd);
}

/* Proves t under id on b (from the witness, or from a, b, c when host_abc)
 * and compares with the CPU. */
static void prove(cz_backend *b, const char *id, const test_circuit *t, int host_abc) {
    cz_backend_unit u = {.job_id = "test",
                         .kind = CZ_PROOF_POREP,
                         .circuit_id = id,
                         .params = &t->params,
                         .pd = host_abc ? &t->pd : NULL,
                         .circuit = host_abc ? NULL : t->circ,
                         .witness = host_abc ? NULL : &t->w};
    cz_groth16_msm_results r;
    cz_error err = {0};
    cz_status st = cz_backend_prove_start(b, &r, &u, &err);
    if (st != CZ_OK) printf("%s: prove %s: %s\n", b->info.name, id, err.message);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) return;
    CHECK(cz_g1_equal(&r.h, &t->cpu.h) && cz_g1_equal(&r.l, &t->cpu.l) &&
          cz_g1_equal(&r.a, &t->cpu.a) && cz_g1_equal(&r.b_g1, &t->cpu.b_g1) &&
          cz_g2_equal(&r.b_g2, &t->cpu.b_g2));
}

/* A unit proven on a thread of its own (an engine's prove worker), its
 * key t's; passes counts the passes its thread ran for more than one unit. */
typedef struct {
    cz_backend *b;
    const test_circuit *key;
    test_circuit *t;
    int prep;     /* its host staging done ahead (cz_backend_prep) */
    int prepared; /* a token came back */
    int same;
} unit_thread;

static atomic_int shared_passes;

/* A lean plan's units by where their a, b, c came from (the steps
 * "a, b on the device" and "upload a, b"). */
static int lean_device, lean_host;
static void count_lean(void *ctx, const char *step, uint64_t t0, uint64_t t1) {
    (void)ctx, (void)t0, (void)t1;
    lean_device += !strcmp(step, "a, b on the device");
    lean_host += !strcmp(step, "upload a, b");
}

static void count_shared(void *ctx, const char *step, uint64_t t0, uint64_t t1) {
    (void)ctx, (void)t0, (void)t1;
    if (strstr(step, " pass (") && !strstr(step, "(1 unit)")) atomic_fetch_add(&shared_passes, 1);
}

static void *unit_run(void *arg) {
    unit_thread *x = arg;
    cz_backend_unit u = {.job_id = "pass",
                         .kind = CZ_PROOF_POREP,
                         .circuit_id = "sparse",
                         .params = &x->key->params,
                         .circuit = x->key->circ,
                         .witness = &x->t->w};
    cz_groth16_msm_results r;
    cz_error err = {0};
    if (x->prep) u.prep = cz_backend_prep(x->b, &u);
    x->prepared = u.prep != NULL;
    cz_gpu_set_step_hook(count_shared, NULL);
    const cz_status st = cz_backend_prove_start(x->b, &r, &u, &err);
    cz_gpu_set_step_hook(NULL, NULL);
    cz_backend_prep_free(x->b, u.prep);
    if (st != CZ_OK) printf("%s: pass unit: %s\n", x->b->info.name, err.message);
    x->same = st == CZ_OK && cz_g1_equal(&r.h, &x->t->cpu.h) && cz_g1_equal(&r.l, &x->t->cpu.l) &&
              cz_g1_equal(&r.a, &x->t->cpu.a) && cz_g1_equal(&r.b_g1, &x->t->cpu.b_g1) &&
              cz_g2_equal(&r.b_g2, &x->t->cpu.b_g2);
    return NULL;
}

/* Units of one streamed key on three threads at once (CZ_GPU_PASS_UNITS 3):
 * each gets the CPU's sums for its own witness, and at least one pass over
 * the points served more than one of them. In the second round the units'
 * witnesses are packed ahead (cz_backend_prep, CZ_GPU_WITNESS_PACK=1: the
 * streamed key has no witness slot), as a synthesis worker does. */
static void check_shared_passes(void) {
    enum { UNITS = 3 };
    const size_t n = 40, bits = 32 * 40;
    test_circuit key, t[UNITS];
    make_bits(&key, n, bits);
    memset(t, 0, sizeof t);
    for (int j = 0; j < UNITS; j++) witness(&t[j], &key.params, n, bits, (uint64_t)j + 1);
    gpu_knob("CZ_GPU_STREAM_CHUNK", "64");
    gpu_knob("CZ_GPU_PASS_UNITS", "3");
    cz_backend *b = NULL;
    cz_error err = {0};
    CHECK(cz_backend_cuda_create(&b, 0, 0, "cuda:0/pass", &err) == CZ_OK);
    if (b) {
        for (int round = 0; round < 2; round++) {
            unit_thread x[UNITS];
            pthread_t th[UNITS];
            atomic_store(&shared_passes, 0);
            gpu_knob("CZ_GPU_WITNESS_PACK", round ? "1" : NULL);
            for (int j = 0; j < UNITS; j++) {
                x[j] = (unit_thread){b, &key, &t[j], round, 0, 0};
                CHECK(pthread_create(&th[j], NULL, unit_run, &x[j]) == 0);
            }
            for (int j = 0; j < UNITS; j++) pthread_join(th[j], NULL);
            for (int j = 0; j < UNITS; j++) CHECK(x[j].same && x[j].prepared == round);
            printf("round %d: %d passes for more than one unit\n", round,
                   atomic_load(&shared_passes));
            CHECK(atomic_load(&shared_passes) > 0);
        }
        cz_backend_info bi;
        cz_backend_get_info(b, &bi);
        CHECK(bi.units == 2 * UNITS && bi.failures == 0 && bi.streaming);
        cz_backend_destroy(b);
    }
    gpu_knob("CZ_GPU_WITNESS_PACK", NULL);
    gpu_knob("CZ_GPU_PASS_UNITS", NULL);
    gpu_knob("CZ_GPU_STREAM_CHUNK", NULL);
    for (int j = 0; j < UNITS; j++) {
        cz_witness_free(&t[j].w);
        cz_prove_data_free(&t[j].pd);
    }
    drop(&key);
}

/* The context's resident circuits, most recently used first, as "a,b". */
static void residents(cz_backend *b, char *out, size_t size) {
    cz_backend_info bi;
    cz_backend_get_info(b, &bi);
    out[0] = 0;
    for (uint32_t i = 0; i < bi.n_resident; i++) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", i ? "," : "", bi.resident_circuits[i]);
    }
}

static void expect_residents(cz_backend *b, const char *want) {
    char got[256];
    residents(b, got, sizeof got);
    if (strcmp(got, want)) printf("%s: resident '%s', expected '%s'\n", b->info.name, got, want);
    CHECK(!strcmp(got, want));
}

/* What t takes resident on a context at least: key and circuit (its
 * witness slots come on top when they fit). */
static size_t held_bytes(const test_circuit *t, size_t *work) {
    cz_error err = {0};
    size_t key = 0;
    CHECK(cz_gpu_srs_footprint(&key, work, &t->params, &err) == CZ_OK);
    cz_gpu_circuit *gc = NULL;
    CHECK(cz_gpu_circuit_create(&gc, t->circ, &err) == CZ_OK);
    size_t gc_bytes = cz_gpu_circuit_bytes(gc);
    cz_gpu_circuit_destroy(gc);
    return key + gc_bytes;
}

int main(void) {
    cz_test_init("gpu/test_gpu_backend");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    cz_error err = {0};
    test_circuit t[2];
    make(&t[0], 3000);
    make(&t[1], 9000); /* another domain (2^14 against 2^12) */

    /* Both side by side. */
    cz_backend *b = NULL;
    CHECK(cz_backend_cuda_create(&b, 0, 0, "cuda:0", &err) == CZ_OK);
    if (!b) return 1;
    prove(b, "small", &t[0], 0);
    prove(b, "large", &t[1], 0);
    expect_residents(b, "large,small");
    prove(b, "small", &t[0], 0);
    prove(b, "small", &t[0], 1);
    expect_residents(b, "small,large");
    prove(b, "large", &t[1], 1);
    expect_residents(b, "large,small");
    /* A fifth key evicts the least recently used of four. */
    prove(b, "small-2", &t[0], 0);
    prove(b, "small-3", &t[0], 0);
    expect_residents(b, "small-3,small-2,large,small");
    prove(b, "small", &t[0], 0);
    prove(b, "small-4", &t[0], 0);
    expect_residents(b, "small-4,small,small-3,small-2");
    CHECK(cz_backend_release(b, "small-3") > 0);
    expect_residents(b, "small-4,small,small-2");
    CHECK(cz_backend_release(b, "no-such-circuit") == 0);
    CHECK(cz_backend_release(b, NULL) > 0);
    expect_residents(b, "");
    cz_backend_destroy(b);

    /* A budget for either key with a proof's working set, not both: the
     * small one resident leaves less than the large one needs. */
    size_t w0 = 0, w1 = 0;
    const size_t h0 = held_bytes(&t[0], &w0), h1 = held_bytes(&t[1], &w1);
    const size_t budget = h1 + (w0 > w1 ? w0 : w1) + h0 / 4;
    printf("held %zu + %zu bytes, work %zu / %zu: budget %zu\n", h0, h1, w0, w1, budget);
    CHECK(cz_backend_cuda_create(&b, 0, budget, "cuda:0/small", &err) == CZ_OK);
    if (!b) return 1;
    prove(b, "small", &t[0], 0);
    prove(b, "large", &t[1], 0);
    expect_residents(b, "large");
    prove(b, "small", &t[0], 0);
    expect_residents(b, "small");
    prove(b, "large", &t[1], 1);
    expect_residents(b, "large");
    cz_backend_destroy(b);

    /* A budget with room beside the small key (its key, circuit, witness
     * slots and working set) for the large key's smallest streaming plan
     * (no circuit: a, b, c from the CPU) and not for it resident: the large
     * key streams beside the small one, and neither load evicts. */
    cz_gpu_plan smallest, beside;
    CHECK(cz_gpu_plan_make(&smallest, &t[1].params, 1, NULL, &err) == CZ_E_NOMEM);
    const size_t slots0 = 2 * (t[0].w.num_inputs + t[0].w.num_aux) * sizeof(cz_fr);
    const size_t room = smallest.minimum + ((size_t)4 << 20);
    CHECK(cz_gpu_plan_make(&beside, &t[1].params, room, NULL, &err) == CZ_OK);
    CHECK(beside.kind != CZ_GPU_PLAN_RESIDENT); /* else the case tests nothing */
    const size_t budget2 = h0 + slots0 + w0 + room;
    printf("streaming beside: room %zu for the large key (minimum %zu): budget %zu\n", room,
           smallest.minimum, budget2);
    CHECK(cz_backend_cuda_create(&b, 0, budget2, "cuda:0/beside", &err) == CZ_OK);
    if (!b) return 1;
    prove(b, "small", &t[0], 0);
    prove(b, "large", &t[1], 0);
    expect_residents(b, "large,small");
    cz_backend_info bi;
    cz_backend_get_info(b, &bi);
    printf("beside: %s\n", bi.memory_plan);
    CHECK(bi.streaming && strcmp(bi.memory_plan_kind, "resident") != 0);
    prove(b, "small", &t[0], 0);
    prove(b, "large", &t[1], 1);
    prove(b, "small", &t[0], 1);
    expect_residents(b, "small,large");
    cz_backend_get_info(b, &bi);
    CHECK(bi.failures == 0 && bi.units == 5);
    cz_backend_destroy(b);

    /* A device out-of-memory in a unit (injected): the unit is proven
     * again, right, on a smaller plan, at worst the key's smallest (a
     * quarter less than this small key's resident need is below its
     * streaming minimum, so the step lands on that minimum instead of
     * skipping it); a unit already on the smallest plan that runs out
     * fails with the reason, and the next unit plans afresh. */
    CHECK(cz_backend_cuda_create(&b, 0, 0, "cuda:0/oom", &err) == CZ_OK);
    if (!b) return 1;
    prove(b, "large", &t[1], 0);
    cz_backend_get_info(b, &bi);
    printf("before: %s\n", bi.memory_plan);
    CHECK(!strcmp(bi.memory_plan_kind, "resident"));
    cz_gpu_inject_oom(1);
    prove(b, "large", &t[1], 0);
    prove(b, "large", &t[1], 1);
    cz_backend_get_info(b, &bi);
    printf("after one: %s\n", bi.memory_plan);
    CHECK(bi.failures == 0 && bi.units == 3 && bi.streaming);
    cz_gpu_inject_oom(100000);
    cz_backend_unit u = {.job_id = "oom",
                         .kind = CZ_PROOF_POREP,
                         .circuit_id = "large",
                         .params = &t[1].params,
                         .circuit = t[1].circ,
                         .witness = &t[1].w};
    cz_groth16_msm_results res;
    cz_error uerr = {0};
    CHECK(cz_backend_prove_start(b, &res, &u, &uerr) == CZ_E_NOMEM);
    printf("every allocation failing: %s\n", uerr.message);
    CHECK(strstr(uerr.message, "no smaller memory plan") != NULL);
    cz_gpu_inject_oom(0);
    prove(b, "large", &t[1], 0);
    cz_backend_get_info(b, &bi);
    printf("afresh: %s\n", bi.memory_plan);
    CHECK(!strcmp(bi.memory_plan_kind, "resident"));
    cz_backend_destroy(b);

    /* The lean plan (forced, as a 16 GiB card gets it for 32 GiB PoRep):
     * the circuit is streamed beside the key; a, b, c are evaluated on the
     * device from a witness that packs small (mostly 0 and 1, as PoRep's),
     * on the CPU from one that does not (and come from the host in a unit
     * that brings them); the sums are the CPU's every time. */
    gpu_knob("CZ_GPU_STREAM_CHUNK", "256");
    gpu_knob("CZ_GPU_STREAM_LEAN", "1");
    CHECK(cz_backend_cuda_create(&b, 0, 0, "cuda:0/lean", &err) == CZ_OK);
    if (!b) return 1;
    test_circuit sparse;
    make_bits(&sparse, 200, 3000);
    cz_gpu_set_step_hook(count_lean, NULL);
    prove(b, "sparse", &sparse, 0);
    CHECK(lean_device == 1 && lean_host == 0);
    prove(b, "large", &t[1], 0);
    CHECK(lean_device == 1 && lean_host == 1);
    prove(b, "large", &t[1], 1);
    CHECK(lean_device == 1 && lean_host == 2);
    prove(b, "sparse", &sparse, 0);
    CHECK(lean_device == 2 && lean_host == 2);
    cz_gpu_set_step_hook(NULL, NULL);
    cz_backend_get_info(b, &bi);
    printf("lean: %s\n", bi.memory_plan);
    CHECK(strstr(bi.memory_plan, "lean") != NULL && bi.failures == 0 && bi.units == 4);
    cz_backend_destroy(b);
    drop(&sparse);
    gpu_knob("CZ_GPU_STREAM_LEAN", NULL);
    gpu_knob("CZ_GPU_STREAM_CHUNK", NULL);

    drop(&t[0]);
    drop(&t[1]);
    check_shared_passes();
    return cz_test_finish("gpu/test_gpu_backend");
}
