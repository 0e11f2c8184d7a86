/* The engine with SRS: two circuit ids whose parameters do not fit the
 * budget together. The files are real Groth16 parameters of a tiny circuit
 * (x * x = y) written under the porep-2k and porep-8m file names; the fake
 * job kind only needs a loaded SRS, not a PoRep one.
 *
 * Checked: a CRITICAL job needing the other SRS does not stall the running
 * job (its SRS load waits on the loader thread while the synthesis worker
 * finishes the running job's partitions, whose end lets the idle SRS be
 * evicted to warm); a job waiting for SRS memory can be cancelled; the
 * tiers and reference counts reported match; on a context that keeps keys a
 * HIGH unit runs inside a NORMAL unit of another circuit, never of its
 * own. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "engine/backend.h"
#include "engine/job.h"
#include "gpu/settings.h"
#include "harness/harness.h"
#include "r1cs/backends.h"
#include "util/cancel.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open = 1, gate_waiting = 0;

static void sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct {
    unsigned units, ms, gate;
    char circuit[32];
} fake_state;

static cz_status fake_prepare(void **statep, cz_job_plan *plan, const cz_engine_request *req,
                              const char *param_cache, cz_error *err) {
    (void)param_cache;
    fake_state *s = calloc(1, sizeof *s);
    *statep = s;
    char text[128];
    size_t n = req->vanilla_proof_len < sizeof text - 1 ? req->vanilla_proof_len : sizeof text - 1;
    memcpy(text, req->vanilla_proof, n);
    text[n] = 0;
    if (sscanf(text, "%31s %u %u %u", s->circuit, &s->units, &s->ms, &s->gate) != 4)
        return cz_error_set(err, CZ_E_PARSE, "fake: bad request");
    if (s->gate == 2) { /* hold the synthesis worker in prepare */
        pthread_mutex_lock(&lock);
        gate_waiting = 1;
        while (!gate_open) pthread_cond_wait(&gate_cond, &lock);
        gate_waiting = 0;
        pthread_mutex_unlock(&lock);
    }
    plan->units = s->units;
    plan->unit_proof_bytes = 8;
    plan->unit_bytes = 200;
    plan->unit_bytes_after = 0;
    /* "none": a job without SRS */
    snprintf(plan->circuit_id, sizeof plan->circuit_id, "%s",
             strcmp(s->circuit, "none") ? s->circuit : "");
    return CZ_OK;
}

static int n_synthesized;

static cz_status fake_synthesize(void *state, uint32_t unit, void **synth, cz_error *err) {
    (void)err;
    fake_state *s = state;
    pthread_mutex_lock(&lock);
    n_synthesized++;
    pthread_mutex_unlock(&lock);
    sleep_ms(s->ms);
    uint32_t *u = malloc(sizeof *u);
    *u = unit;
    *synth = u;
    return CZ_OK;
}

static const cz_backend_ops aff_ops, nest_ops;

static cz_status fake_prove_start(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                                  const cz_prove_context *where, void **pending, cz_error *err) {
    (void)unit;
    fake_state *s = state;
    if (where->backend->ops == &aff_ops || where->backend->ops == &nest_ops) {
        /* test_affinity's and test_nesting's contexts run the unit */
        cz_backend_unit u = {
            .job_id = where->job_id, .kind = where->kind, .circuit_id = where->circuit_id};
        cz_groth16_msm_results msm;
        cz_status st = cz_backend_prove_start(where->backend, &msm, &u, err);
        if (st != CZ_OK) {
            free(synth);
            return st;
        }
    }
    /* The SRS is loaded and referenced while the job runs. */
    CHECK(!strcmp(s->circuit, "none") ||
          (srs != NULL && srs->params != NULL && srs->params->vk.n_ic == 2));
    if (s->gate == 1) {
        pthread_mutex_lock(&lock);
        gate_waiting = 1;
        while (!gate_open) pthread_cond_wait(&gate_cond, &lock);
        gate_waiting = 0;
        pthread_mutex_unlock(&lock);
    }
    *pending = synth;
    return CZ_OK;
}

static cz_status fake_prove_finish(void *state, uint32_t unit, void *pending,
                                   const cz_srs_handle *srs, uint8_t *out, cz_error *err) {
    (void)state, (void)srs, (void)err;
    free(pending);
    memset(out, (int)unit, 8);
    return CZ_OK;
}

static void fake_discard(void *state, uint32_t unit, void *data, int stage) {
    (void)state, (void)unit, (void)stage;
    free(data);
}

static cz_status fake_verify(void *state, const uint8_t *proof, size_t len,
                             const cz_srs_handle *srs, cz_error *err) {
    (void)err, (void)srs;
    fake_state *s = state;
    CHECK(len == (size_t)s->units * 8);
    for (unsigned u = 0; u < s->units; u++) CHECK(proof[u * 8] == (uint8_t)u);
    return CZ_OK;
}

static void fake_free(void *state) {
    free(state);
}

static const cz_job_ops fake_ops = {
    .name = "fake-srs",
    .prepare = fake_prepare,
    .synthesize = fake_synthesize,
    .prove_start = fake_prove_start,
    .prove_finish = fake_prove_finish,
    .discard = fake_discard,
    .verify = fake_verify,
    .free_state = fake_free,
};

static cz_status submit(cz_engine *e, const char *id, int prio, const char *text) {
    cz_engine_request r;
    memset(&r, 0, sizeof r);
    r.request_id = id;
    r.kind = CZ_PROOF_POREP;
    r.priority = (cz_priority)prio;
    r.vanilla_proof = (const uint8_t *)text;
    r.vanilla_proof_len = strlen(text);
    cz_engine_submit_info info;
    cz_error err = {0};
    return cz_engine_submit(e, &r, &info, &err);
}

static cz_job_status await_status(cz_engine *e, const char *id, uint64_t timeout_ms) {
    cz_engine_result r;
    cz_error err = {0};
    CHECK(cz_engine_await(e, id, timeout_ms, NULL, NULL, &r, &err) == CZ_OK);
    if (r.status != CZ_JOB_COMPLETED && r.status != CZ_JOB_CANCELLED)
        printf("%s: %s %s\n", id, cz_job_status_name(r.status), r.error_message);
    cz_engine_result_free(&r);
    return r.status;
}

static const cz_engine_srs_info *find_srs(const cz_engine_status *s, const char *id) {
    for (size_t i = 0; i < s->n_srs; i++)
        if (!strcmp(s->srs[i].circuit_id, id)) return &s->srs[i];
    return NULL;
}

/* The tests' engine configuration: the fake PoRep kind, parameters in dir,
 * one prove worker. */
static cz_engine_config test_config(const char *dir, uint64_t budget, uint32_t synthesis_workers) {
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_budget_bytes = budget;
    cfg.synthesis_workers = synthesis_workers;
    cfg.prove_workers = 1;
    cfg.param_cache = dir;
    cfg.result_retention_ms = 60000;
    cfg.ops[CZ_PROOF_POREP] = &fake_ops;
    return cfg;
}

static cz_engine *make_engine(const char *dir, uint64_t budget) {
    cz_engine_config cfg = test_config(dir, budget, 1);
    cfg.backend = "cpu";
    cfg.srs_eviction_min_idle_ms = 0;
    cfg.timeline = getenv("CZ_TIMELINE") != NULL;
    cz_engine *e = NULL;
    cz_error err = {0};
    CHECK(cz_engine_create(&e, &cfg, &err) == CZ_OK);
    return e;
}

/* A runs on porep-2k; B (CRITICAL, porep-8m) comes while A's partitions
 * are still queued. Both must finish. */
static void run_pair(cz_engine *e, uint64_t srs_bytes) {
    CHECK(submit(e, "a", CZ_PRIORITY_NORMAL, "porep-2k 6 20 0") == CZ_OK);
    sleep_ms(30); /* (not needed for correctness: only makes B arrive mid-job) */
    CHECK(submit(e, "b", CZ_PRIORITY_CRITICAL, "porep-8m 1 1 0") == CZ_OK);
    CHECK(await_status(e, "a", 30000) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "b", 30000) == CZ_JOB_COMPLETED);
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    const cz_engine_srs_info *ia = find_srs(&s, "porep-2k"), *ib = find_srs(&s, "porep-8m");
    CHECK(ia && ia->tier == CZ_SRS_WARM && ia->ref_count == 0);
    CHECK(ib && ib->tier == CZ_SRS_HOT && ib->ref_count == 0 && ib->size_bytes == srs_bytes);
    CHECK(s.memory_used_bytes == srs_bytes);
}

static void wait_gate(void) {
    for (int i = 0; i < 5000; i++) {
        pthread_mutex_lock(&lock);
        int w = gate_waiting;
        pthread_mutex_unlock(&lock);
        if (w) return;
        sleep_ms(1);
    }
    CHECK(!"gate never reached");
}

/* The interleaving that needs admission control: A (porep-2k) has
 * partitions left but none holding memory, because the only synthesis
 * worker is held in C's prepare; B's SRS (porep-8m) would now fit. Loaded,
 * it would leave no room for any partition of A, B or C while A and B keep
 * their SRSs. B must wait until A is done. */
static void run_interleaving(cz_engine *e) {
    CHECK(submit(e, "a2", CZ_PRIORITY_NORMAL, "porep-2k 4 10 0") == CZ_OK);
    for (int i = 0; i < 5000; i++) {
        pthread_mutex_lock(&lock);
        int started = n_synthesized;
        pthread_mutex_unlock(&lock);
        if (started) break;
        sleep_ms(1);
    }
    CHECK(submit(e, "b2", CZ_PRIORITY_CRITICAL, "porep-8m 1 1 0") == CZ_OK);
    for (int i = 0; i < 5000; i++) { /* B's prepare has run (its entry exists) */
        cz_engine_status s;
        cz_engine_get_status(e, &s);
        if (find_srs(&s, "porep-8m")) break;
        sleep_ms(1);
    }
    pthread_mutex_lock(&lock);
    gate_open = 0;
    pthread_mutex_unlock(&lock);
    CHECK(submit(e, "c2", CZ_PRIORITY_HIGH, "none 2 1 2") == CZ_OK);
    wait_gate();
    sleep_ms(200); /* A's partitions in flight finish meanwhile */
    pthread_mutex_lock(&lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&lock);
    CHECK(await_status(e, "a2", 20000) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "b2", 20000) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "c2", 20000) == CZ_JOB_COMPLETED);
}

/* A back-end context that keeps keys (a GPU's way): hold is asked once per
 * job ahead of its units, unless the context holds that circuit already;
 * when it fails (the device cannot hold the key), the job fails at once
 * with its message and no unit is proven. */
static int holds, hold_fails;
static char held[32];

static cz_status hold_start(cz_backend *b, cz_groth16_msm_results *out, const cz_backend_unit *u,
                            cz_error *err) {
    (void)b, (void)out, (void)u, (void)err;
    return CZ_OK;
}

static cz_status hold_hold(cz_backend *b, const char *circuit_id, const cz_groth16_params *params,
                           const cz_groth16_params_file *file, const cz_circuit *circuit,
                           int priority, cz_error *err) {
    (void)priority, (void)circuit, (void)file;
    /* every context keeps keys: the SRS loads onto it from the file */
    CHECK(file != NULL && (params == NULL || params->vk.n_ic == 2));
    pthread_mutex_lock(&lock);
    holds++;
    int fail = hold_fails;
    pthread_mutex_unlock(&lock);
    if (fail) return cz_error_set(err, CZ_E_NOMEM, "fake device: too small for %s", circuit_id);
    snprintf(held, sizeof held, "%s", circuit_id);
    cz_backend_note_resident(b, circuit_id, 1000, 0);
    return CZ_OK;
}

static const cz_backend_ops hold_ops = {
    .kind = "fake-gpu", .prove_start = hold_start, .hold = hold_hold};

static void test_hold(const char *dir) {
    cz_engine_config cfg = test_config(dir, 1 << 30, 1);
    cz_backend *b = calloc(1, sizeof *b);
    cz_backend_init(b, &hold_ops, NULL, "fake-gpu:0");
    cfg.backends[0] = b;
    cfg.n_backends = 1;
    cz_engine *e = NULL;
    cz_error err = {0};
    CHECK(cz_engine_create(&e, &cfg, &err) == CZ_OK);
    CHECK(submit(e, "h1", CZ_PRIORITY_NORMAL, "porep-2k 2 1 0") == CZ_OK);
    CHECK(await_status(e, "h1", 30000) == CZ_JOB_COMPLETED);
    CHECK(submit(e, "h2", CZ_PRIORITY_NORMAL, "porep-2k 2 1 0") == CZ_OK);
    CHECK(await_status(e, "h2", 30000) == CZ_JOB_COMPLETED);
    CHECK(holds == 1 && !strcmp(held, "porep-2k")); /* the second job found it resident */
    pthread_mutex_lock(&lock);
    hold_fails = 1;
    pthread_mutex_unlock(&lock);
    CHECK(submit(e, "h3", CZ_PRIORITY_NORMAL, "porep-8m 3 1 0") == CZ_OK);
    cz_engine_result r;
    CHECK(cz_engine_await(e, "h3", 30000, NULL, NULL, &r, &err) == CZ_OK);
    printf("hold failure: %s\n", r.error_message);
    CHECK(r.status == CZ_JOB_FAILED && strstr(r.error_message, "too small for porep-8m"));
    cz_engine_result_free(&r);
    CHECK(holds == 2);
    cz_engine_destroy(e);
    hold_fails = 0;
}

/* Two contexts that keep keys (two GPUs): each keeps up to 4 resident, the
 * last used first; a unit of a circuit it does not hold loads it (counted).
 * The engine gives a unit to the free context that holds its key, and a
 * second job's key to the context that holds none; a unit whose holder is
 * busy goes to the other context, which loads the key. */
typedef struct {
    int index;
    char res[CZ_BACKEND_MAX_RESIDENT][32];
    uint32_t n;
    unsigned units[2], loads; /* units of porep-2k / porep-8m; keys loaded in prove */
} aff_ctx;

/* Makes circuit_id the most recently used resident key; 1 when it was not
 * resident (a load). Under the context's run lock. */
static int aff_touch(cz_backend *b, aff_ctx *c, const char *circuit_id) {
    uint32_t at = c->n < CZ_BACKEND_MAX_RESIDENT ? c->n : CZ_BACKEND_MAX_RESIDENT - 1;
    int load = 1;
    for (uint32_t r = 0; r < c->n; r++)
        if (!strcmp(c->res[r], circuit_id)) at = r, load = 0;
    if (load && c->n < CZ_BACKEND_MAX_RESIDENT) c->n++;
    memmove(c->res[1], c->res[0], at * sizeof c->res[0]);
    snprintf(c->res[0], sizeof c->res[0], "%s", circuit_id);
    const char *ids[CZ_BACKEND_MAX_RESIDENT];
    for (uint32_t r = 0; r < c->n; r++) ids[r] = c->res[r];
    cz_backend_note_residents(b, ids, c->n, 1000 * c->n, 0);
    return load;
}

static cz_status aff_start(cz_backend *b, cz_groth16_msm_results *out, const cz_backend_unit *u,
                           cz_error *err) {
    (void)out, (void)err;
    aff_ctx *c = b->impl;
    int load = aff_touch(b, c, u->circuit_id);
    sleep_ms(20);
    pthread_mutex_lock(&lock);
    c->loads += (unsigned)load;
    c->units[strcmp(u->circuit_id, "porep-2k") != 0]++;
    pthread_mutex_unlock(&lock);
    return CZ_OK;
}

static cz_status aff_hold(cz_backend *b, const char *circuit_id, const cz_groth16_params *params,
                          const cz_groth16_params_file *file, const cz_circuit *circuit,
                          int priority, cz_error *err) {
    (void)priority, (void)params, (void)file, (void)circuit, (void)err;
    aff_touch(b, b->impl, circuit_id);
    return CZ_OK;
}

static const cz_backend_ops aff_ops = {
    .kind = "fake-gpu", .prove_start = aff_start, .hold = aff_hold};

static void test_affinity(const char *dir) {
    cz_engine_config cfg = test_config(dir, 1 << 30, 2);
    aff_ctx ctx[2] = {{.index = 0}, {.index = 1}};
    for (int i = 0; i < 2; i++) {
        cz_backend *b = calloc(1, sizeof *b);
        char name[16];
        snprintf(name, sizeof name, "fake-gpu:%d", i);
        cz_backend_init(b, &aff_ops, &ctx[i], name);
        cfg.backends[i] = b;
    }
    cfg.n_backends = 2;
    cz_engine *e = NULL;
    cz_error err = {0};
    /* keys from the host's decoded points, not onto every context as the
     * SRS loads: each context holds what it was given or proved */
    cz_gpu_settings knobs;
    cz_gpu_settings_defaults(&knobs);
    knobs.srs_host_points = 1;
    cz_gpu_settings_use(&knobs);
    CHECK(cz_engine_create(&e, &cfg, &err) == CZ_OK);
    cz_gpu_settings_use(NULL);
    /* one unit at a time, both contexts free each time: every unit goes to
     * the holder of its key (without affinity, either context by chance) */
    for (int i = 0; i < 6; i++) {
        char id[16];
        snprintf(id, sizeof id, "a%d", i);
        CHECK(submit(e, id, CZ_PRIORITY_NORMAL, i % 2 ? "porep-8m 1 1 0" : "porep-2k 1 1 0") ==
              CZ_OK);
        CHECK(await_status(e, id, 30000) == CZ_JOB_COMPLETED);
    }
    pthread_mutex_lock(&lock);
    printf("affinity: context 0 %u + %u units, context 1 %u + %u units (porep-2k + porep-8m), "
           "%u + %u loads in prove\n",
           ctx[0].units[0], ctx[0].units[1], ctx[1].units[0], ctx[1].units[1], ctx[0].loads,
           ctx[1].loads);
    CHECK(ctx[0].units[0] == 3 && ctx[0].units[1] == 0);
    CHECK(ctx[1].units[0] == 0 && ctx[1].units[1] == 3);
    CHECK(ctx[0].loads == 0 && ctx[1].loads == 0);
    pthread_mutex_unlock(&lock);
    /* six units at once: the holder is busy with the first, so the other
     * context takes units too and loads the key once */
    CHECK(submit(e, "spread", CZ_PRIORITY_NORMAL, "porep-2k 6 1 0") == CZ_OK);
    CHECK(await_status(e, "spread", 30000) == CZ_JOB_COMPLETED);
    pthread_mutex_lock(&lock);
    printf("six units at once: %u on context 0, %u on context 1 (%u load)\n", ctx[0].units[0] - 3,
           ctx[1].units[0], ctx[1].loads);
    CHECK(ctx[0].units[0] > 3 && ctx[1].units[0] > 0 && ctx[0].units[0] + ctx[1].units[0] == 9);
    CHECK(ctx[0].loads == 0 && ctx[1].loads == 1);
    pthread_mutex_unlock(&lock);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    CHECK(st.backends[1].n_resident == 2 &&
          !strcmp(st.backends[1].resident_circuits[0], "porep-2k"));
    cz_engine_destroy(e);
}

/* A context that keeps both keys and offers 30 step boundaries 10 ms apart
 * in each unit; the order units end in, by the first letter of their job. */
static char nest_ends[16];

static cz_status nest_start(cz_backend *b, cz_groth16_msm_results *out, const cz_backend_unit *u,
                            cz_error *err) {
    (void)out;
    const char *ids[2] = {"porep-2k", "porep-8m"};
    cz_backend_note_residents(b, ids, 2, 2000, 0);
    for (int i = 0; i < 30; i++) {
        if (cz_step_boundary()) return cz_error_set(err, CZ_E_CANCELLED, "fake: cancelled");
        sleep_ms(10);
    }
    pthread_mutex_lock(&lock);
    size_t n = strlen(nest_ends);
    if (n + 1 < sizeof nest_ends) nest_ends[n] = u->job_id[0];
    pthread_mutex_unlock(&lock);
    return CZ_OK;
}

static cz_status nest_hold(cz_backend *b, const char *circuit_id, const cz_groth16_params *params,
                           const cz_groth16_params_file *file, const cz_circuit *circuit,
                           int priority, cz_error *err) {
    (void)priority, (void)circuit_id, (void)params, (void)file, (void)circuit, (void)err;
    const char *ids[2] = {"porep-2k", "porep-8m"};
    cz_backend_note_residents(b, ids, 2, 2000, 0);
    return CZ_OK;
}

static const cz_backend_ops nest_ops = {
    .kind = "fake-gpu", .prove_start = nest_start, .hold = nest_hold};

/* A NORMAL unit of porep-2k in progress; then a HIGH job of the same
 * circuit and one of porep-8m: the latter runs inside it (ends first), the
 * former waits for it (the two would share what the key's plan holds for
 * one unit: a streaming key's chunk buffers). */
static void test_nesting(const char *dir) {
    cz_engine_config cfg = test_config(dir, 1 << 30, 2);
    cz_backend *b = calloc(1, sizeof *b);
    cz_backend_init(b, &nest_ops, NULL, "fake-gpu:0");
    cfg.backends[0] = b;
    cfg.n_backends = 1;
    cz_engine *e = NULL;
    cz_error err = {0};
    CHECK(cz_engine_create(&e, &cfg, &err) == CZ_OK);
    /* both keys resident, and their SRSs hot */
    CHECK(submit(e, "w", CZ_PRIORITY_NORMAL, "porep-8m 1 1 0") == CZ_OK);
    CHECK(await_status(e, "w", 30000) == CZ_JOB_COMPLETED);
    CHECK(submit(e, "v", CZ_PRIORITY_NORMAL, "porep-2k 1 1 0") == CZ_OK);
    CHECK(await_status(e, "v", 30000) == CZ_JOB_COMPLETED);
    pthread_mutex_lock(&lock);
    memset(nest_ends, 0, sizeof nest_ends);
    pthread_mutex_unlock(&lock);
    CHECK(submit(e, "normal", CZ_PRIORITY_NORMAL, "porep-2k 1 1 0") == CZ_OK);
    for (int i = 0; i < 5000; i++) {
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        if (st.backends[0].busy) break;
        sleep_ms(1);
    }
    CHECK(submit(e, "same", CZ_PRIORITY_HIGH, "porep-2k 1 1 0") == CZ_OK);
    CHECK(submit(e, "other", CZ_PRIORITY_HIGH, "porep-8m 1 1 0") == CZ_OK);
    const char *ids[3] = {"normal", "same", "other"};
    for (int i = 0; i < 3; i++) CHECK(await_status(e, ids[i], 30000) == CZ_JOB_COMPLETED);
    pthread_mutex_lock(&lock);
    if (strcmp(nest_ends, "ons") != 0) printf("nesting: end order %s\n", nest_ends);
    CHECK(!strcmp(nest_ends, "ons"));
    pthread_mutex_unlock(&lock);
    cz_engine_destroy(e);
}

int main(void) {
    cz_test_init("engine/engine_srs");
    char dir[] = "/tmp/cz_engine_srs_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    uint64_t srs_a = cz_test_write_tiny_params(dir, 2048);
    uint64_t srs_b = cz_test_write_tiny_params(dir, 8ull << 20);
    CHECK(srs_a == srs_b && srs_a > 1000);
    /* Two SRSs do not fit: B's load waits for A's end and evicts A's SRS. */
    cz_engine *e = make_engine(dir, srs_a + 200 + srs_a / 4);
    run_pair(e, srs_b);
    cz_engine_destroy(e);
    /* Two SRSs fit, but not with a partition: admitting B before A ends
     * would leave both waiting for partition memory forever. */
    e = make_engine(dir, 2 * srs_a + 100);
    run_pair(e, srs_b);
    cz_engine_destroy(e);
    e = make_engine(dir, 2 * srs_a + 100);
    run_interleaving(e);
    cz_engine_status s;
    cz_error err = {0};

    /* G holds porep-8m (gated in prove); D needs porep-2k, which cannot load
     * while G runs. Cancelling D ends it without waiting for G. */
    pthread_mutex_lock(&lock);
    gate_open = 0;
    pthread_mutex_unlock(&lock);
    CHECK(submit(e, "g", CZ_PRIORITY_NORMAL, "porep-8m 1 1 1") == CZ_OK);
    wait_gate();
    CHECK(submit(e, "d", CZ_PRIORITY_HIGH, "porep-2k 1 1 0") == CZ_OK);
    CHECK(await_status(e, "d", 300) == CZ_JOB_TIMEOUT);
    cz_engine_get_status(e, &s);
    const cz_engine_srs_info *ib = find_srs(&s, "porep-8m");
    CHECK(ib && ib->ref_count == 1);
    int found = 0, was_running = 0;
    CHECK(cz_engine_cancel(e, "d", &found, &was_running, &err) == CZ_OK && found && was_running);
    CHECK(await_status(e, "d", 5000) == CZ_JOB_CANCELLED);
    pthread_mutex_lock(&lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&lock);
    CHECK(await_status(e, "g", 30000) == CZ_JOB_COMPLETED);

    /* Evict: the idle hot entry goes cold and its memory comes back. */
    int was_loaded = 0;
    uint64_t freed = 0;
    CHECK(cz_engine_evict(e, "porep-8m", &was_loaded, &freed, &err) == CZ_OK);
    CHECK(was_loaded && freed == srs_b);
    cz_engine_get_status(e, &s);
    CHECK(s.memory_used_bytes == 0);
    cz_engine_destroy(e);

    test_hold(dir);
    test_affinity(dir);
    test_nesting(dir);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return cz_test_finish("engine/engine_srs");
}
