/* The engine's scheduling without real proofs: a fake job kind (injected
 * through cz_engine_config.ops) whose units sleep briefly and whose "proof"
 * of unit u is 8 bytes the test predicts (u, then the job's tag), so every
 * result is checked against values computed here, not by the engine.
 *
 * The fake request is text in vanilla_proof: "units=N ms=M bytes=B tag=T
 * gate=1 fail=U badverify=1". gate=1 makes prepare wait until the test opens
 * the gate, which holds the single synthesis worker while the test queues
 * jobs: orders are then deterministic, not timing-dependent. gate=2 holds
 * the prove worker instead, so that synthesized units pile up in the prove
 * queue (the same-circuit run tests).
 *
 * The fake kind sits in two kind slots (PoRep and WindowPoSt); the engine
 * treats (kind, circuit id) as a unit's circuit, so the two slots are two
 * circuits for the prove queue. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "engine/budget.h"
#include "engine/backend.h"
#include "engine/job.h"
#include "gpu/gpu.h"
#include "gpu/settings.h"
#include "harness/harness.h"
#include "util/cancel.h"

typedef struct {
    unsigned units, ms, gate, fail_unit, badverify, refuse, longprove, steps, nestbusy;
    unsigned long long bytes, abc;
    char tag;
} fake_state;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open = 1;
static int gate_waiting = 0;
static char synth_order[256]; /* tag of each unit synthesis, in order */
static int synth_nice[256];   /* the synthesizing thread's nice value, in the same order */
static size_t n_synth;
static char done_order[64];   /* tag of each job when verify ran */
static char prove_order[256]; /* tag of each unit at prove_start, in order */
static size_t n_prove;
static size_t n_done;
static int long_prove_cancelled;
static char end_order[256]; /* tag of each unit at prove_start's end, in order */
static size_t n_end;
/* Units holding their full reservation: from synthesis to prove_start's end. */
static int in_flight, max_in_flight;

static void sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void reset_logs(void) {
    pthread_mutex_lock(&log_lock);
    n_synth = n_done = n_prove = n_end = 0;
    memset(end_order, 0, sizeof end_order);
    memset(synth_order, 0, sizeof synth_order);
    memset(prove_order, 0, sizeof prove_order);
    memset(done_order, 0, sizeof done_order);
    in_flight = max_in_flight = 0;
    pthread_mutex_unlock(&log_lock);
}

static void set_gate(int open) {
    pthread_mutex_lock(&log_lock);
    gate_open = open;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&log_lock);
}

/* Waits until a prepare sits at the closed gate. */
static void wait_gate_reached(void) {
    for (int i = 0; i < 5000; i++) {
        pthread_mutex_lock(&log_lock);
        int w = gate_waiting;
        pthread_mutex_unlock(&log_lock);
        if (w) return;
        sleep_ms(1);
    }
    CHECK(!"a prepare never reached the gate");
}

/* Polls (up to 5 s) until cond(e) holds; 1 when it did. */
static int eventually(int (*cond)(cz_engine *), cz_engine *e) {
    for (int i = 0; i < 5000; i++) {
        if (cond(e)) return 1;
        sleep_ms(1);
    }
    return cond(e);
}

static size_t synthesized(void) {
    pthread_mutex_lock(&log_lock);
    size_t n = n_synth;
    pthread_mutex_unlock(&log_lock);
    return n;
}

static int has_synthesized(char tag) {
    pthread_mutex_lock(&log_lock);
    int yes = strchr(synth_order, tag) != NULL;
    pthread_mutex_unlock(&log_lock);
    return yes;
}

static cz_status fake_parse(void **statep, const cz_engine_request *req, cz_error *err) {
    fake_state *s = calloc(1, sizeof *s);
    *statep = s;
    char text[256];
    size_t n = req->vanilla_proof_len < sizeof text - 1 ? req->vanilla_proof_len : sizeof text - 1;
    memcpy(text, req->vanilla_proof, n);
    text[n] = 0;
    s->units = 1;
    s->fail_unit = ~0u;
    s->tag = '?';
    char *save = NULL; /* strtok_r: prepares run on several workers at once */
    for (char *tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (sscanf(tok, "units=%u", &s->units) == 1) continue;
        if (sscanf(tok, "ms=%u", &s->ms) == 1) continue;
        if (sscanf(tok, "bytes=%llu", &s->bytes) == 1) continue;
        if (sscanf(tok, "abc=%llu", &s->abc) == 1) continue;
        if (sscanf(tok, "gate=%u", &s->gate) == 1) continue;
        if (sscanf(tok, "fail=%u", &s->fail_unit) == 1) continue;
        if (sscanf(tok, "badverify=%u", &s->badverify) == 1) continue;
        if (sscanf(tok, "tag=%c", &s->tag) == 1) continue;
        if (sscanf(tok, "refuse=%u", &s->refuse) == 1) continue;
        if (sscanf(tok, "longprove=%u", &s->longprove) == 1) continue;
        if (sscanf(tok, "steps=%u", &s->steps) == 1) continue;
        if (sscanf(tok, "nestbusy=%u", &s->nestbusy) == 1) continue;
        return cz_error_set(err, CZ_E_PARSE, "fake: bad token '%s'", tok);
    }
    return CZ_OK;
}

/* The kind with an admission check (admit_ops): admit parses the text and
 * may refuse it; prepare then gets the state and a request without buffers. */
static int admitted_prepares;

static cz_status fake_admit(void **statep, const cz_engine_request *req, cz_error *err) {
    cz_status st = fake_parse(statep, req, err);
    if (st != CZ_OK) return st;
    fake_state *s = *statep;
    if (s->refuse) return cz_error_set(err, CZ_E_INVALID_ARG, "fake: refused at admission");
    return CZ_OK;
}

static cz_status fake_prepare(void **statep, cz_job_plan *plan, const cz_engine_request *req,
                              const char *param_cache, cz_error *err) {
    (void)param_cache;
    if (*statep) { /* admitted: the engine kept no copy of the payload */
        CHECK(req->vanilla_proof == NULL && req->vanilla_proof_len == 0);
        pthread_mutex_lock(&log_lock);
        admitted_prepares++;
        pthread_mutex_unlock(&log_lock);
    } else {
        cz_status st = fake_parse(statep, req, err);
        if (st != CZ_OK) return st;
    }
    fake_state *s = *statep;
    if (s->gate == 1) {
        pthread_mutex_lock(&log_lock);
        gate_waiting = 1;
        while (!gate_open) pthread_cond_wait(&gate_cond, &log_lock);
        gate_waiting = 0;
        pthread_mutex_unlock(&log_lock);
    }
    plan->units = s->units;
    plan->unit_proof_bytes = 8;
    plan->unit_bytes = s->bytes;
    plan->unit_bytes_after = s->bytes / 4;
    plan->unit_abc_bytes = s->abc;
    plan->circuit_id[0] = 0;
    return CZ_OK;
}

static cz_status fake_synthesize(void *state, uint32_t unit, void **synth, cz_error *err) {
    fake_state *s = state;
    const int nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    pthread_mutex_lock(&log_lock);
    if (n_synth < sizeof synth_order - 1)
        synth_nice[n_synth] = nice, synth_order[n_synth++] = s->tag;
    if (++in_flight > max_in_flight) max_in_flight = in_flight;
    pthread_mutex_unlock(&log_lock);
    sleep_ms(s->ms);
    if (unit == s->fail_unit) {
        pthread_mutex_lock(&log_lock);
        in_flight--;
        pthread_mutex_unlock(&log_lock);
        return cz_error_set(err, CZ_E_INVALID_ARG, "fake: unit %u fails", unit);
    }
    uint32_t *u = malloc(sizeof *u);
    *u = unit;
    *synth = u;
    return CZ_OK;
}

/* Host work prepared ahead (test_prep_ahead, below): tokens per unit. */
static void *prep_token[64];
static cz_backend *prep_ctx[64];
static int preps_made, preps_freed, preps_used, preps_in_prover;
/* test_abc_shed: what the fake context's prep_no_abc answers; per unit,
 * whether its a, b, c left its reservation; units the context refuses for
 * lacking them (as a CUDA context whose key was planned again), and did */
static int fake_prep_light, prep_no_abc_unit[64], fake_refuse_unreserved, fake_refused;

/* Fake back-end contexts (test_two_contexts): a unit run on one of them is
 * counted per context name and waits a little, so that both get work. */
static int fake_backend_units[2];
static int fake_backend_released[2];
static int fake_backend_fail; /* 1 + the context that fails its next unit with a device error */
static unsigned fake_backend_steps;    /* step boundaries of 10 ms in each unit (0: one sleep) */
static unsigned fake_backend_quiet_ms; /* with no steps: the sleep's ms, no boundary (0: 15) */
static int fake_backend_entered;       /* units that called cz_backend_prove_start */
static int fake_backend_host_abc = -1; /* what every fake context answers to host_abc */

static cz_status fake_backend_start(cz_backend *b, cz_groth16_msm_results *out,
                                    const cz_backend_unit *u, cz_error *err) {
    (void)out;
    int which = *(int *)b->impl;
    pthread_mutex_lock(&log_lock);
    if (u->abc_unreserved && fake_refuse_unreserved > 0) {
        fake_refuse_unreserved--;
        fake_refused++;
        pthread_mutex_unlock(&log_lock);
        return cz_error_set(err, CZ_E_BUSY, "fake: a, b, c in host memory, none reserved");
    }
    if (u->prep) preps_used++;
    int fail = fake_backend_fail == which + 1;
    if (fail) fake_backend_fail = 0;
    if (!fail) fake_backend_units[which]++;
    pthread_mutex_unlock(&log_lock);
    if (fail) return cz_error_set(err, CZ_E_CUDA, "fake: device %d lost", which);
    for (unsigned i = 0; i < fake_backend_steps; i++) {
        if (cz_step_boundary()) return cz_error_set(err, CZ_E_CANCELLED, "fake: cancelled");
        sleep_ms(10);
    }
    if (!fake_backend_steps) sleep_ms(fake_backend_quiet_ms ? fake_backend_quiet_ms : 15);
    return CZ_OK;
}

static uint64_t fake_backend_release(cz_backend *b, const char *circuit_id) {
    (void)circuit_id;
    fake_backend_released[*(int *)b->impl]++;
    return 0;
}

static int fake_backend_host_abc_op(cz_backend *b, const char *circuit_id) {
    (void)b, (void)circuit_id;
    return fake_backend_host_abc;
}

static const cz_backend_ops fake_backend_ops = {.kind = "fake",
                                                .prove_start = fake_backend_start,
                                                .release = fake_backend_release,
                                                .host_abc = fake_backend_host_abc_op};

/* Host work prepared ahead (test_prep_ahead): a context with prep ops
 * hands out tokens, the fake kind's prep keeps one per unit (one job at a
 * time) and gives it to the context's prove_start (u->prep), and prove_start
 * or discard frees it. */

static void *fake_backend_prep(cz_backend *b, const cz_backend_unit *u) {
    (void)b, (void)u;
    int *t = malloc(sizeof *t);
    *t = 7;
    pthread_mutex_lock(&log_lock);
    preps_made++;
    pthread_mutex_unlock(&log_lock);
    return t;
}

static void fake_backend_prep_free(cz_backend *b, void *prep) {
    (void)b;
    CHECK(*(int *)prep == 7);
    free(prep);
    pthread_mutex_lock(&log_lock);
    preps_freed++;
    pthread_mutex_unlock(&log_lock);
}

static int fake_backend_prep_no_abc(cz_backend *b, const void *prep) {
    (void)b, (void)prep;
    return fake_prep_light;
}

static const cz_backend_ops fake_prep_ops = {.kind = "fake",
                                             .prove_start = fake_backend_start,
                                             .release = fake_backend_release,
                                             .host_abc = fake_backend_host_abc_op,
                                             .prep = fake_backend_prep,
                                             .prep_free = fake_backend_prep_free,
                                             .prep_no_abc = fake_backend_prep_no_abc};

/* The unit's token, taken out of the table (NULL: none); *ctx its context. */
static void *prep_take(uint32_t unit, cz_backend **ctx) {
    pthread_mutex_lock(&log_lock);
    void *t = prep_token[unit % 64];
    *ctx = prep_ctx[unit % 64];
    prep_token[unit % 64] = NULL;
    pthread_mutex_unlock(&log_lock);
    return t;
}

/* A fake context that stages each unit before its run as a CUDA context
 * evaluating a, b, c on the CPU does: fake_stage_steps steps of 10 ms with
 * a step boundary after each (backend.c host_evaluate); fake_staging says
 * that one is under way. */
static unsigned fake_stage_steps;
static int fake_stage_quiet; /* no step boundary in the staging (a witness upload) */
static int fake_staging;
static int fake_stage_token;

static void *fake_backend_stage(cz_backend *b, const cz_backend_unit *u) {
    (void)b, (void)u;
    pthread_mutex_lock(&log_lock);
    fake_staging = 1;
    pthread_mutex_unlock(&log_lock);
    for (unsigned i = 0; i < fake_stage_steps; i++) {
        sleep_ms(10);
        if (!fake_stage_quiet) (void)cz_step_boundary();
    }
    pthread_mutex_lock(&log_lock);
    fake_staging = 0;
    pthread_mutex_unlock(&log_lock);
    return &fake_stage_token;
}

static void fake_backend_unstage(cz_backend *b, void *staged) {
    (void)b;
    CHECK(staged == &fake_stage_token);
}

static const cz_backend_ops fake_staging_ops = {.kind = "fake",
                                                .prove_start = fake_backend_start,
                                                .stage = fake_backend_stage,
                                                .unstage = fake_backend_unstage,
                                                .release = fake_backend_release};

/* Units in progress on this thread: more than one inside another
 * (preemption). nestbusy=1 makes a unit run inside another answer
 * CZ_E_BUSY, as a CUDA context without device memory for it does. */
static _Thread_local int fake_depth;

static cz_status fake_prove_run(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                                const cz_prove_context *where, void **pending, cz_error *err);

static cz_status fake_prove_start(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                                  const cz_prove_context *where, void **pending, cz_error *err) {
    const fake_state *s = state;
    if (fake_depth > 0 && s->nestbusy) {
        pthread_mutex_lock(&log_lock);
        in_flight--;
        pthread_mutex_unlock(&log_lock);
        free(synth);
        return cz_error_set(err, CZ_E_BUSY, "fake: no device memory inside another unit");
    }
    fake_depth++;
    cz_status st = fake_prove_run(state, unit, synth, srs, where, pending, err);
    fake_depth--;
    return st;
}

static cz_status fake_prove_run(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                                const cz_prove_context *where, void **pending, cz_error *err) {
    (void)srs, (void)err;
    fake_state *s = state;
    if (!strcmp(where->backend->ops->kind, "fake")) {
        cz_backend_unit u = {.job_id = where->job_id,
                             .kind = where->kind,
                             .circuit_id = where->circuit_id,
                             .priority = where->priority};
        cz_backend *prepped_on = NULL;
        void *prep = prep_take(unit, &prepped_on);
        if (prepped_on == where->backend) u.prep = prep;
        pthread_mutex_lock(&log_lock);
        u.abc_unreserved = prep_no_abc_unit[unit % 64];
        prep_no_abc_unit[unit % 64] = 0;
        pthread_mutex_unlock(&log_lock);
        cz_groth16_msm_results msm;
        pthread_mutex_lock(&log_lock);
        fake_backend_entered++;
        pthread_mutex_unlock(&log_lock);
        cz_status st = cz_backend_prove_start(where->backend, &msm, &u, err);
        cz_backend_prep_free(prepped_on, prep);
        if (st != CZ_OK) { /* prove_start consumes synth either way */
            free(synth);
            pthread_mutex_lock(&log_lock);
            in_flight--;
            pthread_mutex_unlock(&log_lock);
            return st;
        }
    }
    pthread_mutex_lock(&log_lock);
    if (n_prove < sizeof prove_order - 1) prove_order[n_prove++] = s->tag;
    pthread_mutex_unlock(&log_lock);
    sleep_ms(s->ms);
    /* longprove=1: a prover of up to 20 s that, like the real ones, polls
     * the thread's cancel flag between its steps (1 ms each here). */
    for (unsigned i = 0; s->longprove && i < 20000; i++) {
        if (cz_cancel_requested()) {
            pthread_mutex_lock(&log_lock);
            in_flight--;
            long_prove_cancelled++;
            pthread_mutex_unlock(&log_lock);
            free(synth);
            return cz_error_set(err, CZ_E_CANCELLED, "fake: cancelled between steps");
        }
        sleep_ms(1);
    }
    /* steps=N: a prover of N steps of ms each with a step boundary
     * (util/cancel.h) after each, where a higher-priority unit may run */
    for (unsigned i = 0; i < s->steps; i++) {
        if (cz_step_boundary()) {
            pthread_mutex_lock(&log_lock);
            in_flight--;
            pthread_mutex_unlock(&log_lock);
            free(synth);
            return cz_error_set(err, CZ_E_CANCELLED, "fake: cancelled at a step boundary");
        }
        sleep_ms(s->ms);
    }
    if (s->gate == 2) { /* hold the prove worker */
        pthread_mutex_lock(&log_lock);
        gate_waiting = 1;
        while (!gate_open) pthread_cond_wait(&gate_cond, &log_lock);
        gate_waiting = 0;
        pthread_mutex_unlock(&log_lock);
    }
    *pending = synth;
    pthread_mutex_lock(&log_lock);
    in_flight--;
    if (n_end < sizeof end_order - 1) end_order[n_end++] = s->tag;
    pthread_mutex_unlock(&log_lock);
    return CZ_OK;
}

static cz_status fake_prove_finish(void *state, uint32_t unit, void *pending,
                                   const cz_srs_handle *srs, uint8_t *out, cz_error *err) {
    (void)srs, (void)err;
    fake_state *s = state;
    uint32_t *u = pending;
    CHECK(*u == unit);
    memset(out, 0, 8);
    out[0] = (uint8_t)unit;
    out[7] = (uint8_t)s->tag;
    free(u);
    return CZ_OK;
}

static void fake_discard(void *state, uint32_t unit, void *data, int stage) {
    (void)state;
    free(data);
    if (stage == 0) {
        cz_backend *prepped_on = NULL;
        void *prep = prep_take(unit, &prepped_on);
        cz_backend_prep_free(prepped_on, prep);
        pthread_mutex_lock(&log_lock);
        in_flight--;
        pthread_mutex_unlock(&log_lock);
    }
}

static cz_status fake_verify(void *state, const uint8_t *proof, size_t len,
                             const cz_srs_handle *srs, cz_error *err) {
    (void)srs;
    fake_state *s = state;
    pthread_mutex_lock(&log_lock);
    if (n_done < sizeof done_order - 1) done_order[n_done++] = s->tag;
    pthread_mutex_unlock(&log_lock);
    if (s->badverify == 2) return CZ_E_VERIFY; /* a status and no message */
    if (s->badverify) return cz_error_set(err, CZ_E_INTERNAL, "fake: does not verify");
    CHECK(len == (size_t)s->units * 8);
    for (unsigned u = 0; u < s->units; u++)
        CHECK(proof[u * 8] == (uint8_t)u && proof[u * 8 + 7] == (uint8_t)s->tag);
    return CZ_OK;
}

/* With free_probe set, fake_free checks that a job's state is freed with
 * the engine unlocked (a PoRep job's pooled witnesses take seconds to
 * return to the system): another thread must get the engine's lock while
 * the free runs. */
static cz_engine *free_probe;
static int free_probe_runs, free_probe_blocked, free_probe_got_lock;
static pthread_cond_t free_probe_cond = PTHREAD_COND_INITIALIZER;

static void *status_caller(void *arg) {
    cz_engine_status st;
    cz_engine_get_status(arg, &st);
    pthread_mutex_lock(&log_lock);
    free_probe_got_lock = 1;
    pthread_cond_broadcast(&free_probe_cond);
    pthread_mutex_unlock(&log_lock);
    return NULL;
}

/* The kind's prep: a token of where's context for the unit (job.h). */
static int fake_prep(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                     const cz_prove_context *where, int shed_abc) {
    (void)state, (void)synth, (void)srs;
    cz_backend_unit u = {.job_id = where->job_id,
                         .kind = where->kind,
                         .circuit_id = where->circuit_id,
                         .priority = where->priority};
    void *t = cz_backend_prep(where->backend, &u);
    const int light = t && shed_abc && cz_backend_prep_no_abc(where->backend, t);
    pthread_mutex_lock(&log_lock);
    if (fake_depth) preps_in_prover++;
    if (t) {
        CHECK(prep_token[unit % 64] == NULL);
        prep_token[unit % 64] = t;
        prep_ctx[unit % 64] = where->backend;
        prep_no_abc_unit[unit % 64] = light;
    }
    pthread_mutex_unlock(&log_lock);
    return light ? 2 : t != NULL;
}

static void fake_free(void *state) {
    free(state);
    if (!free_probe) return;
    pthread_t t;
    pthread_mutex_lock(&log_lock);
    free_probe_got_lock = 0;
    pthread_mutex_unlock(&log_lock);
    CHECK(pthread_create(&t, NULL, status_caller, free_probe) == 0);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&log_lock);
    while (!free_probe_got_lock &&
           pthread_cond_timedwait(&free_probe_cond, &log_lock, &until) == 0) {
    }
    int got = free_probe_got_lock;
    free_probe_runs++;
    if (!got) free_probe_blocked++;
    pthread_mutex_unlock(&log_lock);
    if (got)
        pthread_join(t, NULL);
    else
        pthread_detach(t); /* it ends once the lock is dropped */
}

static const cz_job_ops fake_ops = {
    .name = "fake",
    .prepare = fake_prepare,
    .synthesize = fake_synthesize,
    .prove_start = fake_prove_start,
    .prep = fake_prep,
    .prove_finish = fake_prove_finish,
    .discard = fake_discard,
    .verify = fake_verify,
    .free_state = fake_free,
};

static const cz_job_ops admit_ops = {
    .name = "fake-admit",
    .prepare = fake_prepare,
    .synthesize = fake_synthesize,
    .prove_start = fake_prove_start,
    .prove_finish = fake_prove_finish,
    .discard = fake_discard,
    .verify = fake_verify,
    .free_state = fake_free,
    .admit = fake_admit,
};

static uint32_t cfg_partitions_ahead; /* cz_engine_config.partitions_ahead of make_engine_cfg */
static uint32_t cfg_synthesis_nice;   /* cz_engine_config.synthesis_nice of make_engine_cfg */

static cz_engine *make_engine_cfg(uint64_t budget, unsigned synth, unsigned prove,
                                  uint64_t retention_ms, unsigned depth, unsigned max_batch,
                                  uint64_t max_batch_wait_ms) {
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.prove_queue_depth = depth;
    cfg.partitions_ahead = cfg_partitions_ahead;
    cfg.synthesis_nice = cfg_synthesis_nice;
    cfg.max_batch_size = max_batch;
    cfg.max_batch_wait_ms = max_batch_wait_ms;
    cfg.memory_budget_bytes = budget;
    cfg.synthesis_workers = synth;
    cfg.prove_workers = prove;
    cfg.result_retention_ms = retention_ms;
    cfg.param_cache = ".";
    cfg.backend = "cpu";
    cfg.ops[CZ_PROOF_WINDOW_POST] = &fake_ops; /* any kind slot works */
    cfg.ops[CZ_PROOF_POREP] = &fake_ops;
    cfg.ops[CZ_PROOF_WINNING_POST] = &admit_ops;
    cz_engine *e = NULL;
    cz_error err = {0};
    CHECK(cz_engine_create(&e, &cfg, &err) == CZ_OK);
    return e;
}

static cz_engine *make_engine(uint64_t budget, unsigned synth, unsigned prove,
                              uint64_t retention_ms) {
    return make_engine_cfg(budget, synth, prove, retention_ms, 0, 1, 0);
}

static cz_status submit_kind(cz_engine *e, const char *id, cz_proof_kind kind, int prio,
                             const char *text, cz_engine_submit_info *info, cz_error *err) {
    cz_engine_request r;
    memset(&r, 0, sizeof r);
    r.request_id = id;
    r.kind = kind;
    r.priority = (cz_priority)prio;
    r.vanilla_proof = (const uint8_t *)text;
    r.vanilla_proof_len = strlen(text);
    return cz_engine_submit(e, &r, info, err);
}

static cz_status submit(cz_engine *e, const char *id, int prio, const char *text,
                        cz_engine_submit_info *info, cz_error *err) {
    return submit_kind(e, id, CZ_PROOF_POREP, prio, text, info, err);
}

static cz_job_status await_status(cz_engine *e, const char *id, uint64_t timeout_ms,
                                  cz_engine_result *keep) {
    cz_engine_result r;
    cz_error err = {0};
    CHECK(cz_engine_await(e, id, timeout_ms, NULL, NULL, &r, &err) == CZ_OK);
    cz_job_status st = r.status;
    if (keep)
        *keep = r;
    else
        cz_engine_result_free(&r);
    return st;
}

/* Proof bytes the fake kind must produce for a job. */
static void expected_proof(uint8_t *out, unsigned units, char tag) {
    memset(out, 0, (size_t)units * 8);
    for (unsigned u = 0; u < units; u++) {
        out[u * 8] = (uint8_t)u;
        out[u * 8 + 7] = (uint8_t)tag;
    }
}

static void test_priority_order(void) {
    reset_logs();
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "blocker", CZ_PRIORITY_NORMAL, "tag=X gate=1 ms=5", &info, &err) == CZ_OK);
    wait_gate_reached();
    /* Queued while the only synthesis worker sits in the blocker's prepare. */
    CHECK(submit(e, "a", CZ_PRIORITY_NORMAL, "tag=A ms=5", &info, &err) == CZ_OK);
    CHECK(submit(e, "b", CZ_PRIORITY_NORMAL, "tag=B ms=5", &info, &err) == CZ_OK);
    CHECK(info.queue_position == 1); /* blocker is preparing, a is queued */
    CHECK(submit(e, "c", CZ_PRIORITY_NORMAL, "tag=C ms=5 units=2", &info, &err) == CZ_OK);
    CHECK(submit(e, "d", CZ_PRIORITY_CRITICAL, "tag=D ms=5", &info, &err) == CZ_OK);
    CHECK(info.queue_position == 0);
    CHECK(submit(e, "l", CZ_PRIORITY_LOW, "tag=L ms=5", &info, &err) == CZ_OK);
    CHECK(submit(e, "h", CZ_PRIORITY_HIGH, "tag=H ms=5", &info, &err) == CZ_OK);
    /* The critical lane prepares and synthesizes D while the worker is
     * held: it completes before the gate opens. */
    CHECK(await_status(e, "d", 20000, NULL) == CZ_JOB_COMPLETED);
    set_gate(1);
    const char *ids[] = {"blocker", "a", "b", "c", "d", "l", "h"};
    for (int i = 0; i < 7; i++) CHECK(await_status(e, ids[i], 20000, NULL) == CZ_JOB_COMPLETED);
    /* CRITICAL (on its lane, at once), then HIGH, then NORMAL in submission
     * order (the blocker was first), then LOW; a job's units stay together. */
    if (strcmp(synth_order, "DHXABCCL") != 0) printf("synthesis order %s\n", synth_order);
    CHECK(!strcmp(synth_order, "DHXABCCL"));
    CHECK(!strcmp(done_order, "DHXABCL"));
    cz_engine_result r;
    CHECK(await_status(e, "c", 1000, &r) == CZ_JOB_COMPLETED);
    uint8_t want[16];
    expected_proof(want, 2, 'C');
    CHECK(r.proof_len == 16 && !memcmp(r.proof, want, 16));
    cz_engine_result_free(&r);
    cz_engine_destroy(e);
}

static void test_idempotent(void) {
    reset_logs();
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info i1, i2;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "same", 0, "tag=S ms=5 units=3 gate=1", &i1, &err) == CZ_OK);
    CHECK(!i1.attached && !strcmp(i1.job_id, "same"));
    CHECK(submit(e, "same", 0, "tag=S ms=5 units=3 gate=1", &i2, &err) == CZ_OK);
    CHECK(i2.attached && !strcmp(i2.job_id, "same"));
    /* Another payload under the id of a job in flight: refused, naming it. */
    CHECK(submit(e, "same", 0, "tag=T ms=5", &i2, &err) == CZ_E_BUSY);
    CHECK(strstr(err.message, "request_id 'same' is in use by a ") != NULL);
    CHECK(strstr(err.message, " porep-c2 job (submitted ") != NULL);
    set_gate(1);
    cz_engine_result r1, r2;
    CHECK(await_status(e, "same", 20000, &r1) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "same", 20000, &r2) == CZ_JOB_COMPLETED);
    uint8_t want[24];
    expected_proof(want, 3, 'S');
    CHECK(r1.proof_len == 24 && !memcmp(r1.proof, want, 24));
    CHECK(r2.proof_len == 24 && !memcmp(r2.proof, r1.proof, 24));
    cz_engine_result_free(&r1);
    cz_engine_result_free(&r2);
    CHECK(n_synth == 3); /* one job, not two */
    /* A completed job is returned again, not re-run. */
    CHECK(submit(e, "same", 0, "tag=S ms=5 units=3 gate=1", &i2, &err) == CZ_OK && i2.attached);
    CHECK(n_synth == 3);
    /* A failed job is re-run on resubmission. */
    CHECK(submit(e, "flaky", 0, "tag=F ms=1 units=2 fail=1", &i1, &err) == CZ_OK);
    cz_engine_result r;
    CHECK(await_status(e, "flaky", 20000, &r) == CZ_JOB_FAILED);
    CHECK(strstr(r.error_message, "fake: unit 1 fails") != NULL);
    CHECK(r.error_status == CZ_E_INVALID_ARG); /* the failed unit's own status */
    CHECK(r.proof == NULL && r.proof_len == 0);
    cz_engine_result_free(&r);
    CHECK(submit(e, "flaky", 0, "tag=F ms=1 units=2 fail=1", &i1, &err) == CZ_OK);
    CHECK(!i1.attached);
    CHECK(await_status(e, "flaky", 20000, NULL) == CZ_JOB_FAILED);
    /* A proof that fails the self-check is never returned. */
    CHECK(submit(e, "bad", 0, "tag=V ms=1 badverify=1", &i1, &err) == CZ_OK);
    CHECK(await_status(e, "bad", 20000, &r) == CZ_JOB_FAILED);
    CHECK(strstr(r.error_message, "self-check failed") != NULL && r.proof_len == 0);
    cz_engine_result_free(&r);
    /* The reason is never empty, even when the op gave only a status. */
    CHECK(submit(e, "bad2", 0, "tag=V ms=1 badverify=2", &i1, &err) == CZ_OK);
    CHECK(await_status(e, "bad2", 20000, &r) == CZ_JOB_FAILED);
    if (strcmp(r.error_message, "self-check failed, proof not returned: CZ_E_VERIFY") != 0)
        printf("self-check message: '%s'\n", r.error_message);
    CHECK(!strcmp(r.error_message, "self-check failed, proof not returned: CZ_E_VERIFY"));
    CHECK(r.error_status == CZ_E_VERIFY);
    cz_engine_result_free(&r);
    cz_engine_destroy(e);
}

/* request_id as Curio uses it: one id per sector, reused when a sector is
 * re-proven with a new C1. */
static void test_request_ids(void) {
    reset_logs();
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info i1, i2;
    cz_error err = {0};
    /* An ended job's id with another payload: a new job replaces it. */
    CHECK(submit(e, "porep-1000-7", 0, "tag=A ms=1 units=2", &i1, &err) == CZ_OK);
    CHECK(await_status(e, "porep-1000-7", 20000, NULL) == CZ_JOB_COMPLETED);
    err = (cz_error){0};
    cz_status st = submit(e, "porep-1000-7", 0, "tag=B ms=1 units=3", &i2, &err);
    if (st != CZ_OK) printf("resubmission with a new payload: %s\n", err.message);
    CHECK(st == CZ_OK && !i2.attached);
    cz_engine_result r;
    CHECK(await_status(e, "porep-1000-7", 20000, &r) == CZ_JOB_COMPLETED);
    uint8_t want[24];
    expected_proof(want, 3, 'B');
    CHECK(r.proof_len == 24 && !memcmp(r.proof, want, 24));
    cz_engine_result_free(&r);
    /* The same payload again: the retained result, not a new run. */
    size_t before = n_synth;
    CHECK(submit(e, "porep-1000-7", 0, "tag=B ms=1 units=3", &i2, &err) == CZ_OK && i2.attached);
    CHECK(await_status(e, "porep-1000-7", 20000, NULL) == CZ_JOB_COMPLETED && n_synth == before);
    /* No id: one is made up (a version 4 UUID) and nothing is joined. */
    CHECK(submit(e, "", 0, "tag=U ms=1", &i1, &err) == CZ_OK);
    CHECK(submit(e, "", 0, "tag=U ms=1", &i2, &err) == CZ_OK);
    CHECK(strlen(i1.job_id) == 36 && i1.job_id[14] == '4' && i1.job_id[8] == '-');
    CHECK(!i1.attached && !i2.attached && strcmp(i1.job_id, i2.job_id) != 0);
    CHECK(await_status(e, i1.job_id, 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, i2.job_id, 20000, NULL) == CZ_JOB_COMPLETED);
    /* The admission check: a refusal is the submission's error (no job);
     * an admitted job's prepare gets the state and no copy of the bytes. */
    cz_engine_request q;
    memset(&q, 0, sizeof q);
    q.kind = CZ_PROOF_WINNING_POST;
    q.request_id = "adm";
    q.vanilla_proof = (const uint8_t *)"tag=N refuse=1";
    q.vanilla_proof_len = strlen((const char *)q.vanilla_proof);
    CHECK(cz_engine_submit(e, &q, &i1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "fake: refused at admission") != NULL);
    CHECK(await_status(e, "adm", 10, NULL) == CZ_JOB_UNKNOWN);
    q.vanilla_proof = (const uint8_t *)"tag=M ms=1 units=2";
    q.vanilla_proof_len = strlen((const char *)q.vanilla_proof);
    admitted_prepares = 0;
    CHECK(cz_engine_submit(e, &q, &i1, &err) == CZ_OK);
    CHECK(await_status(e, "adm", 20000, &r) == CZ_JOB_COMPLETED);
    expected_proof(want, 2, 'M');
    CHECK(r.proof_len == 16 && !memcmp(r.proof, want, 16));
    cz_engine_result_free(&r);
    CHECK(admitted_prepares == 1);
    cz_engine_destroy(e);
}

static void test_bad_requests(void) {
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit(e, "a\nb", 0, "tag=A", &info, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "control character at byte 1") != NULL);
    /* Not UTF-8: refused (it would be echoed back in a proto3 string). */
    CHECK(submit(e, "\x75\xff\xfe", 0, "tag=A", &info, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "not valid UTF-8 (byte 1)") != NULL);
    CHECK(submit(e, "caf\xc3\xa9", 0, "tag=A ms=1", &info, &err) == CZ_OK);
    cz_engine_request r;
    memset(&r, 0, sizeof r);
    r.request_id = "k";
    r.kind = (cz_proof_kind)9;
    r.vanilla_proof = (const uint8_t *)"x";
    r.vanilla_proof_len = 1;
    CHECK(cz_engine_submit(e, &r, &info, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "proof_kind 9") != NULL);
    r.kind = CZ_PROOF_SNAP; /* the real kind: its admit refuses a request without commitments */
    CHECK(cz_engine_submit(e, &r, &info, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "comm_r_old: 0 bytes, expected 32") != NULL);
    r.kind = CZ_PROOF_POREP;
    r.vanilla_proof_len = 0;
    CHECK(cz_engine_submit(e, &r, &info, &err) == CZ_E_INVALID_ARG);
    /* A prepare error arrives as FAILED with the op's message. */
    CHECK(submit(e, "p", 0, "nonsense", &info, &err) == CZ_OK);
    cz_engine_result res;
    CHECK(await_status(e, "p", 20000, &res) == CZ_JOB_FAILED);
    CHECK(strstr(res.error_message, "bad token 'nonsense'") != NULL);
    CHECK(res.error_status == CZ_E_PARSE);
    cz_engine_result_free(&res);
    CHECK(await_status(e, "nope", 10, &res) == CZ_JOB_UNKNOWN);
    CHECK(res.error_status == CZ_E_NOT_FOUND);
    int found = 1, was_running = 1;
    CHECK(cz_engine_cancel(e, "nope", &found, &was_running, &err) == CZ_OK && !found);
    cz_engine_destroy(e);
}

static void test_cancel_and_timeout(void) {
    reset_logs();
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "g", 0, "tag=G ms=1 gate=1", &info, &err) == CZ_OK);
    wait_gate_reached();
    CHECK(submit(e, "q", 0, "tag=Q ms=1 units=4", &info, &err) == CZ_OK);
    /* Await with a timeout on a job that cannot finish yet. */
    cz_engine_result timed_out;
    CHECK(await_status(e, "g", 30, &timed_out) == CZ_JOB_TIMEOUT);
    CHECK(timed_out.error_status == CZ_OK); /* still running: no failure */
    /* Cancel the queued job: removed, not run. */
    int found = 0, was_running = 1;
    CHECK(cz_engine_cancel(e, "q", &found, &was_running, &err) == CZ_OK);
    CHECK(found && !was_running);
    CHECK(await_status(e, "q", 1000, NULL) == CZ_JOB_CANCELLED);
    /* A running job stops at a partition boundary. */
    CHECK(submit(e, "r", 0, "tag=R ms=40 units=20", &info, &err) == CZ_OK);
    set_gate(1);
    CHECK(await_status(e, "g", 20000, NULL) == CZ_JOB_COMPLETED);
    for (int i = 0; i < 2000; i++) {
        pthread_mutex_lock(&log_lock);
        int started = strchr(synth_order, 'R') != NULL;
        pthread_mutex_unlock(&log_lock);
        if (started) break;
        sleep_ms(1);
    }
    CHECK(cz_engine_cancel(e, "r", &found, &was_running, &err) == CZ_OK);
    CHECK(found && was_running);
    cz_engine_result r;
    CHECK(await_status(e, "r", 20000, &r) == CZ_JOB_CANCELLED);
    CHECK(r.proof_len == 0 && r.error_status == CZ_E_CANCELLED);
    cz_engine_result_free(&r);
    size_t r_units = 0;
    for (size_t i = 0; i < n_synth; i++) r_units += synth_order[i] == 'R';
    CHECK(r_units >= 1 && r_units < 20);
    CHECK(strchr(synth_order, 'Q') == NULL);
    /* Everything released: nothing in flight, no memory held. */
    CHECK(in_flight == 0);
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    CHECK(s.memory_used_bytes == 0);
    CHECK(s.cancelled == 2 && s.completed == 1);
    /* Cancelling a finished job leaves it as it is. */
    CHECK(cz_engine_cancel(e, "g", &found, &was_running, &err) == CZ_OK && found && !was_running);
    CHECK(await_status(e, "g", 1000, NULL) == CZ_JOB_COMPLETED);
    cz_engine_destroy(e);
}

/* The pipeline full (one unit proving, one waiting to prove, one waiting
 * for room with the only synthesis worker): a job submitted now is queued,
 * and cancelling it ends it at once without running it; cancelling the job
 * whose unit waits for room ends it at once too. */
static void test_cancel_queued_behind_pipeline(void) {
    reset_logs();
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "a", 0, "tag=A gate=2", &info, &err) == CZ_OK);
    wait_gate_reached(); /* a holds the prove worker */
    CHECK(submit(e, "b", 0, "tag=B", &info, &err) == CZ_OK);
    CHECK(submit(e, "c", 0, "tag=C", &info, &err) == CZ_OK);
    CHECK(submit(e, "d", 0, "tag=D", &info, &err) == CZ_OK);
    for (int i = 0; i < 5000; i++) { /* until c is synthesized (its worker then waits) */
        pthread_mutex_lock(&log_lock);
        int c_done = strchr(synth_order, 'C') != NULL;
        pthread_mutex_unlock(&log_lock);
        if (c_done) break;
        sleep_ms(1);
    }
    CHECK(!strcmp(synth_order, "ABC"));
    int found = 0, was_running = 1;
    CHECK(cz_engine_cancel(e, "d", &found, &was_running, &err) == CZ_OK);
    CHECK(found && !was_running);
    CHECK(await_status(e, "d", 2000, NULL) == CZ_JOB_CANCELLED);
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    CHECK(s.queues[CZ_PROOF_POREP].in_progress == 3 && s.queues[CZ_PROOF_POREP].pending == 0);
    /* c's unit waits for room (the prove worker is still held): cancelling
     * c ends it now, not after the prove work ahead of it. */
    CHECK(cz_engine_cancel(e, "c", &found, &was_running, &err) == CZ_OK);
    CHECK(found && was_running);
    CHECK(await_status(e, "c", 5000, NULL) == CZ_JOB_CANCELLED);
    set_gate(1);
    CHECK(await_status(e, "b", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(!strcmp(synth_order, "ABC"));
    CHECK(!strcmp(prove_order, "AB"));
    CHECK(in_flight == 0);
    cz_engine_destroy(e);
}

static uint64_t metric(cz_engine *e, const char *name);

/* Cancel and memory: a cancelled job's synthesized units waiting for a
 * busy prover end at once and give their memory back; the unit being
 * proven stops at the prover's next step. */
static void test_cancel_frees_queued(void) {
    reset_logs();
    cz_engine *e = make_engine_cfg(1ull << 30, 1, 1, 60000, 64, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "busy", 0, "tag=A gate=2 bytes=1000", &info, &err) == CZ_OK);
    wait_gate_reached(); /* A holds the only prove worker */
    CHECK(submit(e, "queued", 0, "tag=B units=4 bytes=1000", &info, &err) == CZ_OK);
    int queued = 0;
    for (int i = 0; i < 5000 && !queued; i++) {
        queued = metric(e, "cuzk_prove_queue_items") == 4;
        if (!queued) sleep_ms(1);
    }
    CHECK(queued);
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    CHECK(s.memory_used_bytes == 5000); /* A's unit and B's four */
    int found = 0, was_running = 0;
    CHECK(cz_engine_cancel(e, "queued", &found, &was_running, &err) == CZ_OK && found);
    /* Before the prove worker is free: B is over, its memory back. */
    cz_job_status st = await_status(e, "queued", 5000, NULL);
    if (st != CZ_JOB_CANCELLED) printf("queued job after cancel: %s\n", cz_job_status_name(st));
    CHECK(st == CZ_JOB_CANCELLED);
    cz_engine_get_status(e, &s);
    CHECK(s.memory_used_bytes == 1000);
    CHECK(metric(e, "cuzk_prove_queue_items") == 0);
    set_gate(1);
    CHECK(await_status(e, "busy", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(!strcmp(prove_order, "A"));
    /* The unit in the prover: stopped between steps, not run to its end. */
    long_prove_cancelled = 0;
    CHECK(submit(e, "long", 0, "tag=L longprove=1 units=2 bytes=1000", &info, &err) == CZ_OK);
    for (int i = 0; i < 5000; i++) {
        pthread_mutex_lock(&log_lock);
        int proving = strchr(prove_order, 'L') != NULL;
        pthread_mutex_unlock(&log_lock);
        if (proving) break;
        sleep_ms(1);
    }
    CHECK(cz_engine_cancel(e, "long", &found, &was_running, &err) == CZ_OK && was_running);
    st = await_status(e, "long", 5000, NULL);
    if (st != CZ_JOB_CANCELLED)
        printf("job in the prover after cancel: %s\n", cz_job_status_name(st));
    CHECK(st == CZ_JOB_CANCELLED && long_prove_cancelled == 1);
    cz_engine_get_status(e, &s);
    CHECK(s.memory_used_bytes == 0 && s.cancelled == 2 && s.failed == 0);
    CHECK(in_flight == 0);
    cz_engine_destroy(e);
}

typedef struct {
    cz_engine *e;
    char id[16];
    cz_job_status st;
} waiter_arg;

static void *waiter(void *arg) {
    waiter_arg *w = arg;
    w->st = await_status(w->e, w->id, 60000, NULL);
    return NULL;
}

static void test_memory_budget(void) {
    reset_logs();
    /* Room for one unit (1000 bytes) but not two: units are serialized. */
    cz_engine *e = make_engine(1500, 2, 2, 60000);
    cz_engine_submit_info info;
    cz_error err = {0};
    pthread_t t[4];
    waiter_arg w[4];
    for (int i = 0; i < 4; i++) {
        char text[64];
        snprintf(text, sizeof text, "tag=%c ms=5 units=2 bytes=1000", 'a' + i);
        snprintf(w[i].id, sizeof w[i].id, "m%d", i);
        w[i].e = e;
        CHECK(submit(e, w[i].id, 0, text, &info, &err) == CZ_OK);
        pthread_create(&t[i], NULL, waiter, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        if (w[i].st != CZ_JOB_COMPLETED) printf("%s: %s\n", w[i].id, cz_job_status_name(w[i].st));
        CHECK(w[i].st == CZ_JOB_COMPLETED);
    }
    CHECK(max_in_flight == 1);
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    CHECK(s.memory_used_bytes == 0 && s.memory_total_bytes == 1500);
    /* A unit larger than the whole budget fails at once. */
    CHECK(submit(e, "huge", 0, "tag=Z units=1 bytes=2000", &info, &err) == CZ_OK);
    cz_engine_result r;
    CHECK(await_status(e, "huge", 5000, &r) == CZ_JOB_FAILED);
    CHECK(strstr(r.error_message, "memory budget") != NULL);
    cz_engine_result_free(&r);
    cz_engine_destroy(e);
}

/* FIFO: a large request queued first is served before a small one behind
 * it, even though the small one would fit earlier. */
typedef struct {
    cz_budget *b;
    uint64_t bytes;
    int *order;
    int *n;
    int me;
    int yields;
    int priority;
} budget_arg;

static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;

static void *budget_taker(void *arg) {
    budget_arg *a = arg;
    cz_error err = {0};
    cz_budget_set_thread_priority(a->priority);
    CHECK(cz_budget_acquire(a->b, a->bytes, "test", a->yields, NULL, NULL, NULL, &err) == CZ_OK);
    pthread_mutex_lock(&order_lock);
    a->order[(*a->n)++] = a->me;
    pthread_mutex_unlock(&order_lock);
    return NULL;
}

static int waiters(cz_budget *b) {
    return (int)cz_budget_waiting(b);
}

static void test_budget_fifo(void) {
    cz_budget b;
    cz_budget_init(&b, 100);
    cz_error err = {0};
    CHECK(cz_budget_acquire(&b, 101, "too big", 0, NULL, NULL, NULL, &err) == CZ_E_NOMEM);
    CHECK(strstr(err.message, "too big") != NULL);
    CHECK(cz_budget_try_acquire(&b, 90));
    int order[2], n = 0;
    budget_arg big = {&b, 60, order, &n, 1, 0, CZ_PRIORITY_NORMAL},
               small = {&b, 10, order, &n, 2, 0, CZ_PRIORITY_NORMAL};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, budget_taker, &big);
    while (waiters(&b) < 1) sleep_ms(1);
    pthread_create(&t2, NULL, budget_taker, &small);
    while (waiters(&b) < 2) sleep_ms(1);
    /* 10 bytes are free, enough for `small`, but `big` is ahead. */
    CHECK(!cz_budget_try_acquire(&b, 5));
    CHECK(n == 0);
    /* 55 free: still not enough for `big`, and `small` must not pass it. */
    cz_budget_release(&b, 45);
    sleep_ms(50);
    CHECK(n == 0 && waiters(&b) == 2);
    cz_budget_release(&b, 45);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    CHECK(n == 2);
    uint64_t used;
    cz_budget_usage(&b, &used, NULL);
    CHECK(used == 70);
    /* A yielding waiter (a cache load) at the head lets a later one that
     * fits pass. used = 70: 30 free. */
    budget_arg y = {&b, 60, order, &n, 3, 1, CZ_PRIORITY_NORMAL},
               u = {&b, 20, order, &n, 4, 0, CZ_PRIORITY_NORMAL};
    n = 0;
    pthread_create(&t1, NULL, budget_taker, &y);
    while (waiters(&b) < 1) sleep_ms(1);
    pthread_create(&t2, NULL, budget_taker, &u);
    pthread_join(t2, NULL); /* served without any release */
    CHECK(n == 1 && order[0] == 4);
    cz_budget_release(&b, 90); /* used 0: y fits */
    pthread_join(t1, NULL);
    CHECK(n == 2 && order[1] == 3);
    cz_budget_release(&b, 60);
    /* An aborted wait leaves the queue. */
    atomic_int abort_flag = 1;
    CHECK(cz_budget_acquire(&b, 50, "x", 0, NULL, NULL, &abort_flag, &err) == CZ_E_CANCELLED);
    CHECK(waiters(&b) == 0);
    cz_budget_destroy(&b);
}

/* Priority: a waiter is served before every waiter of a lower priority,
 * whenever it came; FIFO within one. The reserve: bytes only CRITICAL
 * reservations may use. */
static void test_budget_priority(void) {
    cz_budget b;
    cz_budget_init(&b, 100);
    CHECK(cz_budget_try_acquire(&b, 90));
    int order[3], n = 0;
    budget_arg normal = {&b, 20, order, &n, 1, 0, CZ_PRIORITY_NORMAL},
               low = {&b, 5, order, &n, 2, 0, CZ_PRIORITY_LOW},
               critical = {&b, 30, order, &n, 3, 0, CZ_PRIORITY_CRITICAL};
    budget_arg *in_order[3] = {&normal, &low, &critical};
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        pthread_create(&t[i], NULL, budget_taker, in_order[i]);
        while (waiters(&b) < i + 1) sleep_ms(1);
    }
    /* 10 bytes free: enough for `low`, but `normal` is ahead of it */
    sleep_ms(50);
    CHECK(n == 0);
    cz_budget_release(&b, 25); /* 35 free: `critical` (30) first, though it came last */
    pthread_join(t[2], NULL);
    CHECK(n == 1 && order[0] == 3 && waiters(&b) == 2);
    cz_budget_release(&b, 15); /* 20 free: `normal`, then nothing for `low` */
    pthread_join(t[0], NULL);
    CHECK(n == 2 && order[1] == 1);
    cz_budget_release(&b, 5);
    pthread_join(t[1], NULL);
    CHECK(n == 3 && order[2] == 2);
    cz_budget_release(&b, 100);

    /* A reserve of 20: below CRITICAL, 80 bytes at most. */
    cz_error err = {0};
    cz_budget_set_reserve(&b, 20);
    CHECK(!cz_budget_try_acquire(&b, 85));
    CHECK(cz_budget_acquire(&b, 80, "normal", 0, NULL, NULL, NULL, &err) == CZ_OK);
    cz_budget_set_thread_priority(CZ_PRIORITY_CRITICAL);
    CHECK(cz_budget_acquire(&b, 20, "critical", 0, NULL, NULL, NULL, &err) == CZ_OK);
    cz_budget_set_thread_priority(CZ_PRIORITY_NORMAL);
    cz_budget_release(&b, 20);
    /* 20 free, all of it the reserve: a HIGH waiter waits until the
     * reserve shrinks */
    budget_arg high = {&b, 10, order, &n, 4, 0, CZ_PRIORITY_HIGH};
    n = 0;
    pthread_create(&t[0], NULL, budget_taker, &high);
    while (waiters(&b) < 1) sleep_ms(1);
    sleep_ms(50);
    CHECK(n == 0);
    cz_budget_set_reserve(&b, 10);
    pthread_join(t[0], NULL);
    CHECK(n == 1);
    uint64_t used;
    cz_budget_usage(&b, &used, NULL);
    CHECK(used == 90);
    cz_budget_release(&b, 90);
    cz_budget_destroy(&b);
}

static void test_retention(void) {
    cz_engine *e = make_engine(1ull << 30, 1, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit(e, "short", 0, "tag=P ms=1", &info, &err) == CZ_OK);
    CHECK(await_status(e, "short", 20000, NULL) == CZ_JOB_COMPLETED);
    int pruned = 0;
    for (int i = 0; i < 100 && !pruned; i++) { /* the janitor runs once a second */
        pruned = await_status(e, "short", 1, NULL) == CZ_JOB_UNKNOWN;
        if (!pruned) sleep_ms(50);
    }
    CHECK(pruned);
    char *text = NULL;
    CHECK(cz_engine_metrics(e, &text, &err) == CZ_OK);
    CHECK(strstr(text, "cuzk_proofs_completed_total 1\n") != NULL);
    CHECK(strstr(text, "cuzk_proofs_completed{proof_kind=\"porep_c2\"} 1\n") != NULL);
    free(text);
    cz_engine_destroy(e);
}

static void test_state_freed_unlocked(void) {
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info info;
    cz_error err = {0};
    free_probe = e;
    CHECK(submit(e, "freed", 0, "tag=F ms=1 units=2", &info, &err) == CZ_OK);
    CHECK(await_status(e, "freed", 20000, NULL) == CZ_JOB_COMPLETED);
    int runs = 0; /* the state is freed just after the result is published */
    for (int i = 0; i < 200 && !runs; i++) {
        pthread_mutex_lock(&log_lock);
        runs = free_probe_runs;
        pthread_mutex_unlock(&log_lock);
        if (!runs) sleep_ms(50);
    }
    pthread_mutex_lock(&log_lock);
    CHECK(free_probe_runs == 1);
    CHECK(free_probe_blocked == 0);
    pthread_mutex_unlock(&log_lock);
    free_probe = NULL;
    cz_engine_destroy(e);
}

static void test_drain(void) {
    reset_logs();
    cz_engine *e = make_engine(1ull << 30, 1, 1, 60000);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit(e, "long", 0, "tag=W ms=30 units=50", &info, &err) == CZ_OK);
    CHECK(submit(e, "quick", CZ_PRIORITY_HIGH, "tag=K ms=1", &info, &err) == CZ_OK);
    /* A short drain: quick finishes, long is cancelled. */
    uint32_t cancelled = cz_engine_drain(e, 200);
    CHECK(cancelled == 1);
    CHECK(await_status(e, "quick", 1000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "long", 1000, NULL) == CZ_JOB_CANCELLED);
    CHECK(submit(e, "late", 0, "tag=L", &info, &err) == CZ_E_SHUTDOWN);
    CHECK(in_flight == 0);
    cz_engine_destroy(e);
}

/* ---- same-circuit runs in the prove queue ----
 * A job of the run tests: its tag is one letter, upper case = circuit X
 * (the PoRep slot), lower case = circuit Y (the WindowPoSt slot). */
typedef struct {
    char tag;
    int prio;
    unsigned units;
} run_job;

static uint64_t metric(cz_engine *e, const char *name) {
    char *text = NULL;
    cz_error err = {0};
    CHECK(cz_engine_metrics(e, &text, &err) == CZ_OK);
    char key[96];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(text, key);
    CHECK(p != NULL);
    unsigned long long v = p ? strtoull(p + strlen(key), NULL, 10) : 0;
    free(text);
    return v;
}

/* Changes between upper and lower case tags: circuit switches, counted
 * here from the order the fake kind saw. */
static unsigned count_switches(const char *order) {
    unsigned n = 0;
    for (size_t i = 1; order[i]; i++) n += (order[i] >= 'a') != (order[i - 1] >= 'a');
    return n;
}

static unsigned longest_run(const char *order) {
    unsigned best = 0, run = 0;
    for (size_t i = 0; order[i]; i++) {
        run = i && (order[i] >= 'a') == (order[i - 1] >= 'a') ? run + 1 : 1;
        if (run > best) best = run;
    }
    return best;
}

/* A blocker G (circuit X) holds the only prove worker while the jobs are
 * queued and synthesized by the only synthesis worker; once every unit
 * waits in the prove queue (and settle_ms more have passed), the prove
 * worker goes on. The prove order is then a function of the queue alone.
 * Returns the engine's circuit switch counter. */
static uint64_t run_order(unsigned max_batch, uint64_t wait_ms, const run_job *jobs, size_t n,
                          unsigned settle_ms) {
    reset_logs();
    cz_engine *e = make_engine_cfg(1ull << 30, 1, 1, 60000, 64, max_batch, wait_ms);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "G", CZ_PRIORITY_NORMAL, "tag=G gate=2", &info, &err) == CZ_OK);
    wait_gate_reached();
    unsigned units = 0;
    for (size_t i = 0; i < n; i++) {
        char id[16], text[64];
        snprintf(id, sizeof id, "r%zu", i);
        snprintf(text, sizeof text, "tag=%c units=%u", jobs[i].tag,
                 jobs[i].units ? jobs[i].units : 1);
        cz_proof_kind kind = jobs[i].tag >= 'a' ? CZ_PROOF_WINDOW_POST : CZ_PROOF_POREP;
        CHECK(submit_kind(e, id, kind, jobs[i].prio, text, &info, &err) == CZ_OK);
        units += jobs[i].units ? jobs[i].units : 1;
    }
    int queued = 0;
    for (int i = 0; i < 5000 && !queued; i++) {
        queued = metric(e, "cuzk_prove_queue_items") == units;
        if (!queued) sleep_ms(1);
    }
    CHECK(queued);
    if (settle_ms) sleep_ms(settle_ms);
    set_gate(1);
    CHECK(await_status(e, "G", 20000, NULL) == CZ_JOB_COMPLETED);
    for (size_t i = 0; i < n; i++) {
        char id[16];
        snprintf(id, sizeof id, "r%zu", i);
        CHECK(await_status(e, id, 20000, NULL) == CZ_JOB_COMPLETED);
    }
    uint64_t switches = metric(e, "cuzk_gpu_circuit_switches_total");
    /* the fake kind copies nothing to a GPU: the counter is there, at the GPU layer's count */
    CHECK(metric(e, "cuzk_gpu_host_to_device_bytes_total") == cz_gpu_h2d_bytes());
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    CHECK(s.gpu_circuit_switches == switches);
    CHECK(switches == count_switches(prove_order));
    cz_engine_destroy(e);
    return switches;
}

static int order_is(const char *want) {
    if (strcmp(prove_order, want) != 0) printf("prove order %s, want %s\n", prove_order, want);
    return !strcmp(prove_order, want);
}

#define NORMAL CZ_PRIORITY_NORMAL

/* X and Y alternate in the queue: runs of up to 4 cut the switches. */
static void test_runs_interleaved(void) {
    const run_job jobs[] = {{'A', NORMAL, 1}, {'a', NORMAL, 1}, {'B', NORMAL, 1}, {'b', NORMAL, 1},
                            {'C', NORMAL, 1}, {'c', NORMAL, 1}, {'D', NORMAL, 1}, {'d', NORMAL, 1},
                            {'E', NORMAL, 1}, {'e', NORMAL, 1}, {'F', NORMAL, 1}, {'f', NORMAL, 1}};
    size_t n = sizeof jobs / sizeof jobs[0];
    /* Plain order alternates after G: 11 switches. */
    uint64_t plain = run_order(1, 10000, jobs, n, 0);
    CHECK(order_is("GAaBbCcDdEeFf"));
    CHECK(plain == 11);
    /* Runs of 4: G A B C (X, G started it), then the oldest (a) and three
     * more Y (b c d), then D E F (no X left), then e f. */
    uint64_t batched = run_order(4, 60000, jobs, n, 0);
    CHECK(order_is("GABCabcdDEFef"));
    CHECK(batched == 3 && batched < plain);
    CHECK(longest_run(prove_order) == 4);
}

/* A higher priority unit of the other circuit goes first, run or not. */
static void test_runs_priority_preempts(void) {
    const run_job jobs[] = {{'a', NORMAL, 1}, {'A', NORMAL, 1}, {'B', NORMAL, 1},
                            {'C', NORMAL, 1}, {'D', NORMAL, 1}, {'h', CZ_PRIORITY_HIGH, 1}};
    /* Without h the X run would go on after G (A B C); h (Y, HIGH) goes
     * first, then Y is the resident circuit and a (the oldest) follows. */
    uint64_t sw = run_order(4, 60000, jobs, sizeof jobs / sizeof jobs[0], 0);
    CHECK(order_is("GhaABCD"));
    CHECK(sw == 2);
}

/* A unit of the other circuit passed over longer than max_batch_wait_ms
 * goes next, inside a run. */
static void test_runs_max_wait(void) {
    const run_job jobs[] = {{'a', NORMAL, 1}, {'A', NORMAL, 1}, {'B', NORMAL, 1}, {'C', NORMAL, 1}};
    size_t n = sizeof jobs / sizeof jobs[0];
    /* A long bound: a (oldest, Y) is passed over by the X run. */
    run_order(8, 60000, jobs, n, 0);
    CHECK(order_is("GABCa"));
    /* A 1 ms bound, and a waited 20 ms (or more) before the prove worker
     * went on: a goes first. */
    uint64_t sw = run_order(8, 1, jobs, n, 20);
    CHECK(order_is("GaABC"));
    CHECK(sw == 2);
}

/* max_batch_size = 1: plain priority, then submission order, then unit. */
static void test_runs_off_plain_order(void) {
    const run_job jobs[] = {{'A', NORMAL, 1},
                            {'a', NORMAL, 1},
                            {'l', CZ_PRIORITY_LOW, 1},
                            {'B', NORMAL, 2},
                            {'c', CZ_PRIORITY_CRITICAL, 1},
                            {'H', CZ_PRIORITY_HIGH, 1},
                            {'b', NORMAL, 1}};
    run_order(1, 60000, jobs, sizeof jobs / sizeof jobs[0], 0);
    CHECK(order_is("GcHAaBBbl"));
}

/* An engine on n fake back-end contexts ("fake:0", ...), one prove worker
 * each, the fake kind in the PoRep slot and the admitting one in the
 * WinningPoSt slot; their unit counts reset. */
static uint32_t fake_prove_workers = 1; /* prove workers per context of make_fake_contexts */
static uint32_t fake_partitions_ahead, fake_queue_depth; /* its run-ahead and queue (0: default) */
/* the device memory each context reports as its budget (0: not a device) */
static uint64_t fake_device_bytes[2];

static const cz_backend_ops *fake_contexts_ops = &fake_backend_ops;

static cz_engine *make_fake_contexts(int n, unsigned synthesis_workers) {
    static int ids[2] = {0, 1};
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_budget_bytes = 1 << 30;
    cfg.synthesis_workers = synthesis_workers;
    cfg.prove_workers = fake_prove_workers;
    cfg.partitions_ahead = fake_partitions_ahead;
    cfg.prove_queue_depth = fake_queue_depth;
    cfg.result_retention_ms = 60000;
    cfg.param_cache = ".";
    cfg.ops[CZ_PROOF_POREP] = &fake_ops;
    cfg.ops[CZ_PROOF_WINNING_POST] = &admit_ops;
    for (int i = 0; i < n; i++) {
        cz_backend *b = calloc(1, sizeof *b);
        char name[16];
        snprintf(name, sizeof name, "fake:%d", i);
        cz_backend_init(b, fake_contexts_ops, &ids[i], name);
        if (fake_device_bytes[i]) {
            b->info.device = i;
            b->info.memory_budget = fake_device_bytes[i];
        }
        cfg.backends[i] = b;
    }
    cfg.n_backends = (uint32_t)n;
    memset(fake_backend_units, 0, sizeof fake_backend_units);
    memset(fake_backend_released, 0, sizeof fake_backend_released);
    cz_engine *e = NULL;
    cz_error err = {0};
    CHECK(cz_engine_create(&e, &cfg, &err) == CZ_OK);
    return e;
}

/* A context that evaluates a unit's a, b, c in host memory (a CUDA context
 * whose key streams without its circuit) makes the unit reserve them with
 * its witness, until its prove_start ends; one that does not (or holds no
 * key, with the SRS's points off the host) leaves them out. */
static cz_engine_status status_while_busy(cz_engine *e) {
    cz_engine_status st;
    for (int i = 0; i < 5000; i++) {
        cz_engine_get_status(e, &st);
        if (st.backends[0].busy) break;
        sleep_ms(1);
    }
    return st;
}

static void test_host_abc_reserved(void) {
    const int answers[3] = {1, 0, -1};
    const unsigned long long expect[3] = {6000, 1000, 1000};
    for (int k = 0; k < 3; k++) {
        fake_backend_host_abc = answers[k];
        fake_backend_steps = 20;
        cz_engine *e = make_fake_contexts(1, 2);
        cz_error err = {0};
        cz_engine_submit_info info;
        CHECK(submit(e, "abc", 0, "units=1 bytes=1000 abc=5000 ms=1", &info, &err) == CZ_OK);
        cz_engine_status st = status_while_busy(e);
        if (st.memory_used_bytes != expect[k])
            printf("host_abc %d: %llu bytes reserved, %llu expected\n", answers[k],
                   (unsigned long long)st.memory_used_bytes, expect[k]);
        CHECK(st.backends[0].busy && st.memory_used_bytes == expect[k]);
        CHECK(await_status(e, "abc", 20000, NULL) == CZ_JOB_COMPLETED);
        cz_engine_get_status(e, &st);
        CHECK(st.memory_used_bytes == 0);
        cz_engine_destroy(e);
    }
    fake_backend_host_abc = -1;
    fake_backend_steps = 0;
}

/* Two back-end contexts (as two GPUs, or two contexts on one): the engine
 * runs prove workers on both, each unit on exactly one; status and metrics
 * report both; evict reaches both; destroy frees them. */
/* A context that holds the job's key gets the host work of a synthesized
 * unit ahead (job.h: prep), on the synthesis worker, for at most n_prove
 * waiting units; the token reaches that context's prove_start and is freed
 * once, proven or dropped. A context holding no key gets none. */
static void prep_counts(int *made, int *freed, int *used, int *in_prover) {
    pthread_mutex_lock(&log_lock);
    *made = preps_made, *freed = preps_freed, *used = preps_used, *in_prover = preps_in_prover;
    pthread_mutex_unlock(&log_lock);
}

static void test_prep_ahead(void) {
    fake_contexts_ops = &fake_prep_ops;
    for (int round = 0; round < 3; round++) {
        /* 0: proven; 1: cancelled while its first unit holds the prover;
         * 2: the context holds no key */
        reset_logs();
        preps_made = preps_freed = preps_used = preps_in_prover = 0;
        fake_backend_host_abc = round == 2 ? -1 : 1;
        cz_engine *e = make_fake_contexts(1, 4);
        cz_engine_submit_info info;
        cz_error err = {0};
        set_gate(0);
        CHECK(submit(e, "prep", 0, "units=12 bytes=1000 ms=2 gate=2", &info, &err) == CZ_OK);
        wait_gate_reached();
        for (int i = 0; i < 2000 && synthesized() < 4; i++) sleep_ms(1);
        CHECK(synthesized() >= 4);
        int made, freed, used, in_prover;
        prep_counts(&made, &freed, &used, &in_prover);
        /* the held unit's own, then at most one waiting (one prove worker;
         * none when the others were synthesized before it was taken) */
        if (round < 2 && (made < 1 || made > 2))
            printf("round %d: %d units prepared ahead\n", round, made);
        CHECK(round == 2 ? made == 0 : made >= 1 && made <= 2);
        int found = 0, was_running = 0;
        if (round == 1) CHECK(cz_engine_cancel(e, "prep", &found, &was_running, &err) == CZ_OK);
        set_gate(1);
        CHECK(await_status(e, "prep", 20000, NULL) ==
              (round == 1 ? CZ_JOB_CANCELLED : CZ_JOB_COMPLETED));
        cz_engine_destroy(e);
        prep_counts(&made, &freed, &used, &in_prover);
        if (freed != made || in_prover)
            printf("round %d: %d prepared, %d freed, %d used, %d in a prover\n", round, made, freed,
                   used, in_prover);
        CHECK(freed == made && in_prover == 0);
        if (round == 0) CHECK(made >= 2 && used == made); /* each on its own context */
        if (round == 1) CHECK(used <= made);              /* a waiting one may have been dropped */
    }
    fake_contexts_ops = &fake_backend_ops;
    fake_backend_host_abc = -1;
}

/* A unit whose host work ahead leaves no a, b, c in host memory (its
 * witness packed within a lean plan's room) gives them back from its
 * reservation: 1000 bytes reserved during its run, not 6000 (6000 when the
 * context says it may need them). A context that refuses such a unit (its
 * key planned again to a, b, c on the CPU) does not lose it: it is
 * synthesized again with a, b, c reserved, and the job completes. */
static void test_abc_shed(void) {
    fake_contexts_ops = &fake_prep_ops;
    fake_backend_host_abc = 1;
    for (int round = 0; round < 3; round++) {
        /* 0: light; 1: the context may need them; 2: light, two refused */
        reset_logs();
        preps_made = preps_freed = preps_used = preps_in_prover = 0;
        fake_prep_light = round != 1;
        fake_refuse_unreserved = round == 2 ? 2 : 0;
        fake_refused = 0;
        fake_backend_steps = round == 2 ? 0 : 20;
        cz_engine *e = make_fake_contexts(1, 2);
        cz_engine_submit_info info;
        cz_error err = {0};
        CHECK(submit(e, "shed", 0,
                     round == 2 ? "units=6 bytes=1000 abc=5000 ms=1"
                                : "units=1 bytes=1000 abc=5000 ms=1",
                     &info, &err) == CZ_OK);
        if (round < 2) {
            cz_engine_status st = status_while_busy(e);
            const unsigned long long expect = round == 0 ? 1000 : 6000;
            if (st.memory_used_bytes != expect)
                printf("round %d: %llu bytes reserved in the run, %llu expected\n", round,
                       (unsigned long long)st.memory_used_bytes, expect);
            CHECK(st.backends[0].busy && st.memory_used_bytes == expect);
        }
        CHECK(await_status(e, "shed", 20000, NULL) == CZ_JOB_COMPLETED);
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        CHECK(st.memory_used_bytes == 0);
        cz_engine_destroy(e);
        int made, freed, used, in_prover;
        prep_counts(&made, &freed, &used, &in_prover);
        if (round == 2) printf("a, b, c given back: %d refused, %d prepared\n", fake_refused, made);
        CHECK(freed == made && in_prover == 0);
        CHECK(fake_refused == (round == 2 ? 2 : 0) && fake_refuse_unreserved == 0);
    }
    fake_backend_steps = 0;
    fake_prep_light = 0;
    memset(prep_no_abc_unit, 0, sizeof prep_no_abc_unit);
    fake_contexts_ops = &fake_backend_ops;
    fake_backend_host_abc = -1;
}

/* Units synthesized while every prepared place is taken (the prover held,
 * a deep run-ahead, a queue of one) wait without host work; the workers
 * that backpressure holds do it for them as places free, so the prover
 * finds most of the 12 units prepared (8 to 11; without: 2 or 3, the
 * first ones). A held worker must wake and prepare the next unit while
 * the prover proves one: with the fake's 15 ms a unit, a CI machine running
 * other tests beside it once had 6 prepared, so units take 60 ms here. */
static void test_prep_queued(void) {
    fake_contexts_ops = &fake_prep_ops;
    fake_backend_host_abc = 1;
    fake_backend_quiet_ms = 60;
    fake_partitions_ahead = 8, fake_queue_depth = 1;
    reset_logs();
    preps_made = preps_freed = preps_used = preps_in_prover = 0;
    cz_engine *e = make_fake_contexts(1, 4);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "queued", 0, "units=12 bytes=1000 ms=2 gate=2", &info, &err) == CZ_OK);
    wait_gate_reached();
    /* the held unit, one queued, four more held by backpressure */
    for (int i = 0; i < 5000 && synthesized() < 6; i++) sleep_ms(1);
    CHECK(synthesized() >= 6);
    int made, freed, used, in_prover;
    prep_counts(&made, &freed, &used, &in_prover);
    CHECK(made <= 2); /* the held unit's and one waiting: no place for more */
    set_gate(1);
    CHECK(await_status(e, "queued", 20000, NULL) == CZ_JOB_COMPLETED);
    cz_engine_destroy(e);
    prep_counts(&made, &freed, &used, &in_prover);
    printf("queued units: %d prepared ahead, %d used\n", made, used);
    CHECK(used >= 7 && used == made && freed == made && in_prover == 0);
    fake_backend_quiet_ms = 0;
    fake_partitions_ahead = fake_queue_depth = 0;
    fake_contexts_ops = &fake_backend_ops;
    fake_backend_host_abc = -1;
}

/* Prove workers left to the engine: 4 per context when every context is a
 * device with under 40 GiB for keys (its budget, or CZ_GPU_MEM_LIMIT when
 * lower: the large keys stream there, and the units share each pass),
 * else 2. */
static void test_default_prove_workers(void) {
    static const struct {
        uint64_t gib[2], limit_gib; /* the two devices' budgets; CZ_GPU_MEM_LIMIT (0: none) */
        uint32_t workers;           /* in all */
    } cases[] = {{{24, 24}, 0, 8},  {{12, 39}, 0, 8},  {{24, 80}, 0, 4},
                 {{40, 40}, 0, 4},  {{0, 16}, 0, 4},   {{24, 80}, 24, 8},
                 {{80, 80}, 39, 8}, {{80, 80}, 40, 4}, {{0, 16}, 16, 4}};
    cz_gpu_settings knobs = *cz_gpu_settings_get();
    fake_prove_workers = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        knobs.has_mem_limit = cases[k].limit_gib != 0;
        knobs.mem_limit = cases[k].limit_gib << 30;
        cz_gpu_settings_use(&knobs);
        for (int i = 0; i < 2; i++) fake_device_bytes[i] = cases[k].gib[i] << 30;
        cz_engine *e = make_fake_contexts(2, 1);
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        printf("default prove workers, devices of %" PRIu64 " and %" PRIu64 " GiB, limit %" PRIu64
               " GiB: %u\n",
               cases[k].gib[0], cases[k].gib[1], cases[k].limit_gib, st.prove_workers);
        CHECK(st.prove_workers == cases[k].workers);
        cz_engine_destroy(e);
    }
    cz_gpu_settings_use(NULL);
    memset(fake_device_bytes, 0, sizeof fake_device_bytes);
    fake_prove_workers = 1;
}

static void test_two_contexts(void) {
    cz_engine *e = make_fake_contexts(2, 4);
    cz_error err = {0};
    cz_engine_submit_info info;
    CHECK(submit(e, "two-a", 0, "units=8 ms=1 bytes=1000 tag=a", &info, &err) == CZ_OK);
    CHECK(submit(e, "two-b", 0, "units=8 ms=1 bytes=1000 tag=b", &info, &err) == CZ_OK);
    CHECK(await_status(e, "two-a", 0, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "two-b", 0, NULL) == CZ_JOB_COMPLETED);
    pthread_mutex_lock(&log_lock);
    int u0 = fake_backend_units[0], u1 = fake_backend_units[1];
    pthread_mutex_unlock(&log_lock);
    printf("two contexts: %d + %d units\n", u0, u1);
    CHECK(u0 + u1 == 16 && u0 > 0 && u1 > 0);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    CHECK(st.n_backends == 2 && st.prove_workers == 2);
    CHECK(!strcmp(st.backends[0].name, "fake:0") && !strcmp(st.backends[1].name, "fake:1"));
    CHECK(st.backends[0].units == (uint64_t)u0 && st.backends[1].units == (uint64_t)u1);
    CHECK(st.backends[0].busy_ns > 0 && st.backends[1].busy_ns > 0);
    char *text = NULL;
    CHECK(cz_engine_metrics(e, &text, &err) == CZ_OK);
    CHECK(strstr(text, "cuzk_backend_units_total{backend=\"fake:1\"}") != NULL);
    free(text);
    int was = 0;
    uint64_t freed = 0;
    /* No SRS of that id is loaded: the host side reports nothing, and the
     * contexts are asked to drop theirs all the same. */
    CHECK(cz_engine_evict(e, "porep-2k", &was, &freed, &err) == CZ_OK);
    CHECK(fake_backend_released[0] == 1 && fake_backend_released[1] == 1);

    /* Context 0 loses its device on its next unit: it goes out of service,
     * that unit is synthesized again and proven on context 1, and the job
     * completes; the next job runs on context 1 alone. */
    pthread_mutex_lock(&log_lock);
    memset(fake_backend_units, 0, sizeof fake_backend_units);
    fake_backend_fail = 1;
    pthread_mutex_unlock(&log_lock);
    CHECK(submit(e, "two-c", 0, "units=8 ms=1 bytes=1000 tag=c", &info, &err) == CZ_OK);
    CHECK(await_status(e, "two-c", 0, NULL) == CZ_JOB_COMPLETED);
    CHECK(submit(e, "two-d", 0, "units=4 ms=1 bytes=1000 tag=d", &info, &err) == CZ_OK);
    CHECK(await_status(e, "two-d", 0, NULL) == CZ_JOB_COMPLETED);
    pthread_mutex_lock(&log_lock);
    u0 = fake_backend_units[0], u1 = fake_backend_units[1];
    int failed_pending = fake_backend_fail;
    pthread_mutex_unlock(&log_lock);
    printf("after the device error: %d + %d units\n", u0, u1);
    CHECK(failed_pending == 0 && u0 + u1 == 12 && u1 >= 4);
    cz_engine_get_status(e, &st);
    CHECK(st.backends[0].out_of_service && !st.backends[1].out_of_service);
    CHECK(st.backends[0].failures == 1);
    CHECK(cz_engine_metrics(e, &text, &err) == CZ_OK);
    CHECK(strstr(text, "cuzk_backend_in_service{backend=\"fake:0\"} 0") != NULL);
    free(text);
    cz_engine_destroy(e);
}

/* The PoRep job's unit 0 in the (held) prover, 3 units in the prove queue,
 * both synthesis workers waiting for it to shrink. */
static int backlog_formed(cz_engine *e) {
    return metric(e, "cuzk_prove_queue_items") == 3 && synthesized() == 4;
}

static int post_synthesized(cz_engine *e) {
    return has_synthesized('W') && has_synthesized('V') && metric(e, "cuzk_prove_queue_items") == 5;
}

/* A WinningPoSt (CRITICAL by default) and a WindowPoSt (HIGH by default)
 * submitted while a PoRep job's units fill the prove queue, one is being
 * proven and the synthesis workers wait on the prove queue's backpressure:
 * both are synthesized at once (a worker waiting on backpressure for a
 * lower-priority unit goes back to serve them; the WinningPoSt also has
 * the critical lane), and they take the next prove slots, WinningPoSt
 * first, right after the unit that was running and before every queued
 * PoRep unit. */
static void test_post_jumps_porep_backlog(void) {
    reset_logs();
    cz_engine *e = make_engine_cfg(1ull << 30, 2, 1, 60000, 1, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit_kind(e, "porep", CZ_PROOF_POREP, 0, "tag=P units=12 ms=5 gate=2", &info, &err) ==
          CZ_OK);
    wait_gate_reached(); /* unit 0 is in the prover, held */
    CHECK(eventually(backlog_formed, e));
    CHECK(submit_kind(e, "window", CZ_PROOF_WINDOW_POST, 0, "tag=V ms=5", &info, &err) == CZ_OK);
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=5", &info, &err) == CZ_OK);
    int both = eventually(post_synthesized, e);
    if (!both) printf("synthesis order %s while the prover is held\n", synth_order);
    CHECK(both);
    set_gate(1);
    const char *ids[] = {"porep", "window", "winning"};
    for (int i = 0; i < 3; i++) CHECK(await_status(e, ids[i], 20000, NULL) == CZ_JOB_COMPLETED);
    if (strcmp(prove_order, "PWVPPPPPPPPPPP") != 0) printf("prove order %s\n", prove_order);
    CHECK(!strcmp(prove_order, "PWVPPPPPPPPPPP"));
    CHECK(!strncmp(synth_order, "PPPP", 4) && strchr("VW", synth_order[4]) &&
          strchr("VW", synth_order[5]) && synth_order[4] != synth_order[5]);
    cz_engine_destroy(e);
}

static int both_synthesizing(cz_engine *e) {
    (void)e;
    return synthesized() == 2;
}

/* Every synthesis worker busy with a long PoRep partition: a WinningPoSt
 * does not wait for one to finish (the critical lane synthesizes it), and
 * it is proven before any PoRep unit. */
static void test_winning_while_synthesis_busy(void) {
    reset_logs();
    cz_engine *e = make_engine_cfg(1ull << 30, 2, 1, 60000, 0, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit_kind(e, "porep", CZ_PROOF_POREP, 0, "tag=P units=3 ms=1500", &info, &err) ==
          CZ_OK);
    CHECK(eventually(both_synthesizing, e));
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=5", &info, &err) == CZ_OK);
    CHECK(await_status(e, "winning", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    if (strcmp(prove_order, "WPPP") != 0 || strcmp(synth_order, "PPWP") != 0)
        printf("prove order %s, synthesis order %s\n", prove_order, synth_order);
    CHECK(!strcmp(prove_order, "WPPP"));
    CHECK(!strcmp(synth_order, "PPWP"));
    cz_engine_destroy(e);
}

/* synthesis_nice: the synthesis workers' units run at the process's nice
 * value plus it, the critical lane's (the WinningPoSt, which the niced
 * workers leave to it though they are free) at the process's. */
static void test_synthesis_nice(void) {
    const int base = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    if (base > 13) {
        printf("synthesis nice: skipped (this process already runs at nice %d)\n", base);
        return;
    }
    reset_logs();
    cfg_synthesis_nice = 6;
    cz_engine *e = make_engine_cfg(1ull << 30, 2, 1, 60000, 0, 1, 0);
    cfg_synthesis_nice = 0;
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit_kind(e, "porep", CZ_PROOF_POREP, 0, "tag=P units=2 ms=5", &info, &err) == CZ_OK);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=5", &info, &err) == CZ_OK);
    CHECK(await_status(e, "winning", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(!strcmp(synth_order, "PPW"));
    for (size_t i = 0; i < n_synth; i++) {
        const int want = synth_order[i] == 'W' ? base : base + 6;
        if (synth_nice[i] != want)
            printf("unit %zu (%c) synthesized at nice %d, expected %d\n", i, synth_order[i],
                   synth_nice[i], want);
        CHECK(synth_nice[i] == want);
    }
    cz_engine_destroy(e);
}

static int two_synthesized(cz_engine *e) {
    (void)e;
    return synthesized() == 2;
}

/* A PoRep backlog that fills the memory budget and every synthesis worker
 * (two units synthesizing, two workers waiting for memory), then a
 * WinningPoSt: its unit is synthesized next, before any of the backlog's,
 * since the budget serves it first and keeps its reserve free (the size of
 * the WinningPoSt proven before the backlog). Without the reserve the
 * backlog would hold a third unit's memory; without the priority the
 * WinningPoSt would wait behind the two waiting workers. */
static void test_critical_memory_first(void) {
    reset_logs();
    cz_engine *e = make_engine_cfg(1600, 4, 1, 60000, 0, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit_kind(e, "w0", CZ_PROOF_WINNING_POST, 0, "tag=V ms=1 bytes=500", &info, &err) ==
          CZ_OK);
    CHECK(await_status(e, "w0", 20000, NULL) == CZ_JOB_COMPLETED);
    reset_logs();
    /* 1100 bytes below CRITICAL: two units of 500 */
    CHECK(submit(e, "porep", 0, "tag=P units=6 ms=400 bytes=500", &info, &err) == CZ_OK);
    CHECK(eventually(two_synthesized, e));
    sleep_ms(50); /* the other two workers wait for memory by now */
    CHECK(submit_kind(e, "w1", CZ_PROOF_WINNING_POST, 0, "tag=W ms=5 bytes=500", &info, &err) ==
          CZ_OK);
    CHECK(await_status(e, "w1", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    if (strncmp(synth_order, "PPW", 3) != 0) printf("synthesis order %s\n", synth_order);
    CHECK(!strncmp(synth_order, "PPW", 3));
    CHECK(max_in_flight <= 3);
    cz_engine_destroy(e);
}

static int held_and_ahead(cz_engine *e) {
    (void)e;
    return synthesized() >= 4;
}

static int high_synthesized(cz_engine *e) {
    (void)e;
    pthread_mutex_lock(&log_lock);
    int n = 0;
    for (size_t i = 0; i < n_synth; i++) n += synth_order[i] == 'H';
    pthread_mutex_unlock(&log_lock);
    return n == 2;
}

/* The run-ahead bound: with 8 synthesis workers, one prove worker held on
 * unit 0 and partitions_ahead = 3, exactly 3 more units are synthesized
 * (the backpressure alone lets every worker finish one: 9); a HIGH job's
 * units are counted apart, so both are synthesized while the NORMAL bound
 * is full; then everything completes and at most 3 + 1 units were ever
 * between synthesis and the end of their prove. */
static void test_partitions_ahead(void) {
    reset_logs();
    cfg_partitions_ahead = 3;
    cz_engine *e = make_engine_cfg(1ull << 30, 8, 1, 60000, 0, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    set_gate(0);
    CHECK(submit(e, "porep", CZ_PRIORITY_NORMAL, "tag=P units=20 ms=5 gate=2", &info, &err) ==
          CZ_OK);
    wait_gate_reached(); /* unit 0 in the prover, held */
    CHECK(eventually(held_and_ahead, e));
    sleep_ms(300); /* time for more, if the bound let them */
    if (synthesized() != 4) printf("%zu units synthesized with the prover held\n", synthesized());
    CHECK(synthesized() == 4);
    CHECK(submit(e, "high", CZ_PRIORITY_HIGH, "tag=H units=2 ms=5", &info, &err) == CZ_OK);
    CHECK(eventually(high_synthesized, e));
    CHECK(synthesized() == 6);
    set_gate(1);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "high", 20000, NULL) == CZ_JOB_COMPLETED);
    /* the NORMAL units' bound (3 ahead + 1 proving) and HIGH's 2 beside them */
    if (max_in_flight > 6) printf("max in flight %d\n", max_in_flight);
    CHECK(max_in_flight <= 6);
    cz_engine_destroy(e);
    cfg_partitions_ahead = 0;
}

/* Waits (up to 5 s) until a unit of tag has started proving. */
static void wait_proving(char tag) {
    for (int i = 0; i < 5000; i++) {
        pthread_mutex_lock(&log_lock);
        int yes = strchr(prove_order, tag) != NULL;
        pthread_mutex_unlock(&log_lock);
        if (yes) return;
        sleep_ms(1);
    }
    CHECK(!"the unit never started proving");
}

static uint64_t preemptions(cz_engine *e) {
    return metric(e, "cuzk_preemptions_total");
}

/* An engine with one prove worker in a PoRep unit (tag P) of 60 steps of
 * 10 ms, each followed by a step boundary. */
static cz_engine *engine_proving_steps(void) {
    reset_logs();
    cz_engine *e = make_engine_cfg(1ull << 30, 2, 1, 60000, 0, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit_kind(e, "porep", CZ_PROOF_POREP, 0, "tag=P steps=60 ms=10", &info, &err) == CZ_OK);
    wait_proving('P');
    return e;
}

/* One prove worker busy with a PoRep unit of 60 steps of 10 ms, a
 * WinningPoSt (CRITICAL) and then a WindowPoSt (HIGH) submitted meanwhile:
 * each runs inside the PoRep unit at its next step boundary and ends before
 * it (end order WVP, not PWV), the PoRep unit goes on where it stopped and
 * every proof is the one predicted (fake_verify checks the bytes). A
 * NORMAL job submitted meanwhile does not preempt: it waits its turn. */
static void test_preempt_at_boundary(void) {
    cz_engine *e = engine_proving_steps();
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit_kind(e, "other", CZ_PROOF_POREP, 0, "tag=N ms=5", &info, &err) == CZ_OK);
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=5", &info, &err) == CZ_OK);
    CHECK(await_status(e, "winning", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(submit_kind(e, "window", CZ_PROOF_WINDOW_POST, 0, "tag=V ms=5", &info, &err) == CZ_OK);
    const char *ids[] = {"porep", "other", "winning", "window"};
    for (int i = 0; i < 4; i++) CHECK(await_status(e, ids[i], 20000, NULL) == CZ_JOB_COMPLETED);
    if (strcmp(end_order, "WVPN") != 0)
        printf("end order %s, prove order %s\n", end_order, prove_order);
    CHECK(!strcmp(end_order, "WVPN"));
    CHECK(!strcmp(prove_order, "PWVN"));
    CHECK(preemptions(e) == 2);
    cz_engine_destroy(e);
}

/* Preemption inside a back-end context's prove_start, as with the real
 * provers: the WinningPoSt's unit runs under the context's run lock that
 * the interrupted unit's thread holds (no deadlock), and the context counts
 * both units. With two prove workers on the context (a CUDA context's
 * default) the free one must not take the WinningPoSt: its unit would then
 * wait for the run lock until the PoRep unit ends (end order PW, as it went
 * on the H200); it leaves it to the PoRep unit's next step boundary. */
static void preempt_inside_backend(uint32_t prove_workers) {
    reset_logs();
    fake_backend_steps = 40;
    fake_prove_workers = prove_workers;
    cz_engine *e = make_fake_contexts(1, 2);
    cz_error err = {0};
    cz_engine_submit_info info;
    CHECK(submit_kind(e, "porep", CZ_PROOF_POREP, 0, "tag=P ms=1", &info, &err) == CZ_OK);
    for (int i = 0; i < 5000; i++) {
        cz_engine_status st;
        cz_engine_get_status(e, &st);
        if (st.backends[0].busy) break;
        sleep_ms(1);
    }
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=1", &info, &err) == CZ_OK);
    CHECK(await_status(e, "winning", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    /* the WinningPoSt's prove_start ended inside the PoRep unit's */
    if (strcmp(end_order, "WP") != 0)
        printf("%u prove worker(s): end order %s\n", prove_workers, end_order);
    CHECK(!strcmp(end_order, "WP"));
    CHECK(preemptions(e) == 1);
    cz_engine_status st;
    cz_engine_get_status(e, &st);
    CHECK(st.backends[0].units == 2 && !st.backends[0].busy);
    fake_backend_steps = 0;
    fake_prove_workers = 1;
    cz_engine_destroy(e);
}

/* A CRITICAL unit that comes while a PoRep unit is being staged (its a, b,
 * c evaluated on the CPU before its run, with step boundaries) runs at one
 * of those boundaries, on the staging thread, which holds the context's
 * staging lock: it is not staged itself (no deadlock on that lock) and
 * takes the free run lock; it ends first. */
static void test_preempt_in_staging(void) {
    reset_logs();
    fake_contexts_ops = &fake_staging_ops;
    fake_stage_steps = 50;
    cz_engine *e = make_fake_contexts(1, 2);
    cz_error err = {0};
    cz_engine_submit_info info;
    CHECK(submit_kind(e, "porep", CZ_PROOF_POREP, 0, "tag=P ms=1", &info, &err) == CZ_OK);
    int staging = 0;
    for (int i = 0; i < 5000 && !staging; i++) {
        pthread_mutex_lock(&log_lock);
        staging = fake_staging;
        pthread_mutex_unlock(&log_lock);
        if (!staging) sleep_ms(1);
    }
    CHECK(staging);
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=1", &info, &err) == CZ_OK);
    CHECK(await_status(e, "winning", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    if (strcmp(end_order, "WP") != 0) printf("staging: end order %s\n", end_order);
    CHECK(!strcmp(end_order, "WP"));
    CHECK(preemptions(e) == 1);
    cz_engine_destroy(e);
    fake_stage_steps = 0;
    fake_contexts_ops = &fake_backend_ops;
}

/* A unit that does not fit beside the unit it interrupts (its context
 * answers CZ_E_BUSY, as a CUDA context does after a device out-of-memory
 * there) is not lost: it is synthesized again and proven in its turn,
 * after the interrupted unit, and never inside another unit again. */
/* With two prove workers, a WinningPoSt that comes while the other worker's
 * PoRep unit stages with no boundary (a witness upload) is run by the free
 * worker at once, past the busy stage lock, not left to that unit's first
 * boundary after its staging. */
static int still_staging(void) {
    pthread_mutex_lock(&log_lock);
    const int s = fake_staging;
    pthread_mutex_unlock(&log_lock);
    return s;
}

static void test_critical_past_staging(void) {
    reset_logs();
    fake_contexts_ops = &fake_staging_ops;
    fake_stage_steps = 300;
    fake_stage_quiet = 1;
    fake_prove_workers = 2;
    cz_engine *e = make_fake_contexts(1, 2);
    cz_error err = {0};
    cz_engine_submit_info info;
    CHECK(submit_kind(e, "porep", CZ_PROOF_POREP, 0, "tag=P ms=1", &info, &err) == CZ_OK);
    for (int i = 0; i < 5000 && !still_staging(); i++) sleep_ms(1);
    CHECK(still_staging());
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=1", &info, &err) == CZ_OK);
    CHECK(await_status(e, "winning", 20000, NULL) == CZ_JOB_COMPLETED);
    const int during = still_staging(); /* the PoRep unit stages for 3 s */
    if (!during) printf("critical past staging: the WinningPoSt waited for the staging\n");
    CHECK(during);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(!strcmp(end_order, "WP"));
    cz_engine_destroy(e);
    fake_prove_workers = 1;
    fake_stage_quiet = 0;
    fake_stage_steps = 0;
    fake_contexts_ops = &fake_backend_ops;
}

/* A unit that waited for the context's run lock (the other prove worker's
 * unit held it, with no step boundary, as a key's upload or a witness
 * staged beside busy synthesis may) meets a step boundary as it takes the
 * lock: a WinningPoSt that came meanwhile runs there, before the unit's
 * own work (end order PWQ or QWP), not after it (PQW). */
static void test_preempt_at_run_lock(void) {
    reset_logs();
    fake_prove_workers = 2;
    fake_backend_quiet_ms = 600;
    pthread_mutex_lock(&log_lock);
    fake_backend_entered = 0;
    pthread_mutex_unlock(&log_lock);
    cz_engine *e = make_fake_contexts(1, 2);
    cz_error err = {0};
    cz_engine_submit_info info;
    /* ms=200: the first unit's worker stays busy after it leaves the run
     * lock, so no free worker takes the WinningPoSt before the second unit
     * holds the lock (the run lock free, it would: schedule.c, left_to_hook) */
    CHECK(submit_kind(e, "p", CZ_PROOF_POREP, 0, "tag=P ms=200", &info, &err) == CZ_OK);
    CHECK(submit_kind(e, "q", CZ_PROOF_POREP, 0, "tag=Q ms=200", &info, &err) == CZ_OK);
    int entered = 0;
    for (int i = 0; i < 5000 && entered < 2; i++) {
        pthread_mutex_lock(&log_lock);
        entered = fake_backend_entered;
        pthread_mutex_unlock(&log_lock);
        if (entered < 2) sleep_ms(1);
    }
    CHECK(entered == 2); /* one unit in its quiet run, the other at the run lock */
    sleep_ms(50);
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=1", &info, &err) == CZ_OK);
    const char *ids[] = {"winning", "p", "q"};
    for (int i = 0; i < 3; i++) CHECK(await_status(e, ids[i], 20000, NULL) == CZ_JOB_COMPLETED);
    /* P or Q may take the run lock first */
    if (strlen(end_order) != 3 || end_order[1] != 'W')
        printf("run lock: end order %s\n", end_order);
    CHECK(strlen(end_order) == 3 && end_order[1] == 'W');
    CHECK(preemptions(e) == 1);
    cz_engine_destroy(e);
    fake_backend_quiet_ms = 0;
    fake_prove_workers = 1;
}

static void test_preempt_no_room(void) {
    cz_engine *e = engine_proving_steps();
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit_kind(e, "winning", CZ_PROOF_WINNING_POST, 0, "tag=W ms=5 nestbusy=1", &info,
                      &err) == CZ_OK);
    CHECK(await_status(e, "winning", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "porep", 20000, NULL) == CZ_JOB_COMPLETED);
    if (strcmp(end_order, "PW") != 0) printf("end order %s\n", end_order);
    CHECK(!strcmp(end_order, "PW") && !strcmp(prove_order, "PW"));
    CHECK(preemptions(e) == 1);
    CHECK(synthesized() == 3); /* the WinningPoSt twice */
    cz_engine_destroy(e);
}

/* A unit that runs inside another is not interrupted in turn, and a
 * CRITICAL unit is never interrupted: two WinningPoSts, the second
 * submitted while the first (steps at its boundaries) runs, end in order. */
static void test_critical_not_preempted(void) {
    reset_logs();
    cz_engine *e = make_engine_cfg(1ull << 30, 2, 1, 60000, 0, 1, 0);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(submit_kind(e, "w1", CZ_PROOF_WINNING_POST, 0, "tag=A steps=40 ms=10", &info, &err) ==
          CZ_OK);
    wait_proving('A');
    CHECK(submit_kind(e, "w2", CZ_PROOF_WINNING_POST, 0, "tag=B ms=5", &info, &err) == CZ_OK);
    CHECK(await_status(e, "w1", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(await_status(e, "w2", 20000, NULL) == CZ_JOB_COMPLETED);
    CHECK(!strcmp(end_order, "AB"));
    CHECK(preemptions(e) == 0);
    cz_engine_destroy(e);
}

int main(void) {
    cz_test_init("engine/engine");
    test_budget_fifo();
    test_budget_priority();
    test_bad_requests();
    test_priority_order();
    test_idempotent();
    test_request_ids();
    test_cancel_and_timeout();
    test_cancel_queued_behind_pipeline();
    test_cancel_frees_queued();
    test_memory_budget();
    test_retention();
    test_state_freed_unlocked();
    test_drain();
    test_runs_interleaved();
    test_runs_priority_preempts();
    test_runs_max_wait();
    test_runs_off_plain_order();
    test_default_prove_workers();
    test_two_contexts();
    test_post_jumps_porep_backlog();
    test_winning_while_synthesis_busy();
    test_synthesis_nice();
    test_critical_memory_first();
    test_partitions_ahead();
    test_preempt_at_boundary();
    test_critical_not_preempted();
    test_preempt_no_room();
    test_preempt_at_run_lock();
    preempt_inside_backend(1);
    preempt_inside_backend(2);
    test_preempt_in_staging();
    test_critical_past_staging();
    test_host_abc_reserved();
    test_prep_ahead();
    test_abc_shed();
    test_prep_queued();
    return cz_test_finish("engine/engine");
}
