/* The engine: job table, priority queues, workers. See cuzk/engine.h for the
 * contract and engine/job.h for a job's life.
 *
 * Locking: one mutex (e->lock) guards the job table, the queues, the
 * counters and every job's bookkeeping fields; no op, SRS load or budget wait
 * runs under it. A job is freed when it has been pruned from the table and
 * no queue item or waiter refers to it (job->refs == 0).
 *
 * Queues, all ordered by (priority desc, job sequence asc, unit asc):
 *   synth heap   "prepare job" items (unit = PREPARE) and "synthesize unit";
 *   prove heap   synthesized units. A synthesis worker pushes its unit at
 *                once and, while more than prove_queue_depth units wait, it
 *                waits too (backpressure): every synthesized unit is visible
 *                to the prove workers' choice (prove_pick), which may take a
 *                unit other than the top to stay on one circuit;
 *   finish FIFO  units after prove_start, for the finalizer. */
#include <errno.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/engine.h"
#include "engine/budget.h"
#include "engine/job.h"
#include "engine/srs.h"
#include "engine/trace.h"
#include "gpu/gpu.h"
#include "groth16/rng.h"
#include "util/cancel.h"
#include "util/log.h"
#include "util/parallel.h"
#include "util/utf8.h"

#define PREPARE_UNIT      UINT32_MAX
#define MAX_PROVE_WORKERS 64

typedef enum { PHASE_QUEUED, PHASE_PREPARING, PHASE_RUNNING, PHASE_DONE } job_phase;

typedef struct job {
    struct job *next; /* job table */
    char id[CZ_JOB_ID_MAX + 1];
    uint64_t seq;
    cz_proof_kind kind;
    int priority;
    const cz_job_ops *ops;
    uint64_t payload_hash;
    /* The request with every buffer owned by the job. */
    cz_engine_request req;
    uint8_t *owned; /* one allocation holding the copied buffers */
    uint8_t **vp_ptrs;
    size_t *vp_lens;

    job_phase phase;
    cz_job_status final;
    char error[512];
    atomic_int cancel; /* also read without the engine lock (budget and SRS waits) */
    int failed, started;
    void *state;
    cz_job_plan plan;
    int srs_held;
    cz_srs_handle srs;
    uint8_t *proof;
    uint32_t units_left; /* units not yet finished or dropped */
    uint64_t t_submit, t_first_synth, t_end;
    uint64_t srs_load_ms, synth_ns, prove_ns;
    int in_load_queue;  /* waiting for the SRS loader */
    uint64_t srs_bytes; /* of plan.circuit_id when hot */
    int refs;           /* queue items, running ops and waiters */
    int pruned;         /* out of the table */
} job;

typedef struct {
    job *j;
    uint32_t unit;
    void *data;        /* synth (prove heap) or pending (finish queue) */
    uint64_t reserved; /* budget bytes held by this unit */
    uint64_t t_ready;  /* cz_now_ns() when it entered the prove heap */
} item;

typedef struct {
    item *v;
    size_t n, cap;
} heap;

typedef struct {
    uint64_t completed, failed, cancelled;
    double duration_sum_s;
} kind_counters;

/* A back-end context and what the scheduler remembers of it. */
typedef struct {
    cz_backend *backend;
    int out_of_service; /* its device failed: its workers stopped (under e->lock) */
    int have_last;
    cz_proof_kind last_kind;
    char last_circuit[32];
    uint32_t run_len;
} backend_slot;

struct cz_engine {
    pthread_mutex_t lock;
    pthread_cond_t work;       /* synth heap changed or stop */
    pthread_cond_t prove_work; /* prove heap changed */
    pthread_cond_t prove_room;
    pthread_cond_t finish_work;
    pthread_cond_t job_done; /* a job reached PHASE_DONE */
    pthread_cond_t janitor_wake;
    pthread_cond_t load_work;
    int stop, draining;
    int loader_busy; /* the SRS loader holds a job (loading or waiting for memory) */

    job *jobs;
    uint64_t next_seq;
    heap synth, prove, finish, load;
    uint32_t prove_queue_depth;
    uint32_t prove_blocked; /* synthesis workers waiting for the prove heap to shrink */

    /* Same-circuit runs (prove_pick): per back-end context, the circuit of
     * the last unit its workers took and how many in a row; how often a
     * context changed circuit. */
    uint32_t max_batch;
    uint64_t max_batch_wait_ns;
    backend_slot slots[CZ_ENGINE_MAX_BACKENDS];
    uint32_t n_backends;
    uint64_t circuit_switches;

    cz_budget budget;
    cz_srs_manager srs;
    const cz_job_ops *ops[CZ_PROOF_KIND_COUNT];
    uint32_t prove_thread_limit; /* [gpus] gpu_threads */
    int host_evaluation;         /* some context evaluates a, b, c in host memory (the CPU) */
    uint64_t retention_ns;
    int timeline;
    uint64_t t_start;

    uint32_t n_synth, n_prove;
    pthread_t *synth_threads, *prove_threads, finish_thread, janitor_thread, loader_thread;
    uint32_t prove_busy;

    kind_counters counters[CZ_PROOF_KIND_COUNT];

    /* cz_engine_config.trace_path / progress */
    int tracing;
    cz_trace trace;
    char trace_path[4096];
    FILE *progress;
    atomic_uint synth_lanes; /* synthesis workers that took a lane */
    pthread_mutex_t steps_lock;
    cz_engine_step steps[CZ_ENGINE_MAX_STEPS];
    size_t n_steps;
    struct deferred_line *log_head, **log_tail; /* lines made under the lock (engine_unlock) */
};

/* The trace lane of the calling worker thread. */
static _Thread_local uint32_t worker_lane;

/* A span on the calling thread's lane. */
static void span(cz_engine *e, const char *name, const job *j, int32_t unit, uint64_t t0,
                 uint64_t t1) {
    if (e->tracing) cz_trace_add(&e->trace, name, j ? j->id : NULL, unit, worker_lane, t0, t1);
}

/* The GPU steps of one prove_start: summed by name (the part before " (",
 * so "B tail MSM (2 of 43)" counts as "B tail MSM") for status and
 * metrics, and nested in the unit's span when tracing. */
typedef struct {
    cz_engine *e;
    const job *j;
    int32_t unit;
} step_ctx;

static void gpu_step(void *ctx, const char *step, uint64_t t0, uint64_t t1) {
    step_ctx *sc = ctx;
    cz_engine *e = sc->e;
    span(e, step, sc->j, sc->unit, t0, t1);
    size_t len = strcspn(step, "(");
    while (len && step[len - 1] == ' ') len--;
    pthread_mutex_lock(&e->steps_lock);
    size_t i = 0;
    while (i < e->n_steps &&
           (strlen(e->steps[i].name) != len || strncmp(e->steps[i].name, step, len) != 0))
        i++;
    if (i == e->n_steps && i < CZ_ENGINE_MAX_STEPS) {
        snprintf(e->steps[i].name, sizeof e->steps[i].name, "%.*s", (int)len, step);
        e->n_steps++;
    }
    if (i < e->n_steps) {
        e->steps[i].count++;
        e->steps[i].total_ns += t1 - t0;
    }
    pthread_mutex_unlock(&e->steps_lock);
}

/* ------------------------------------------------------------------ */

const char *cz_proof_kind_name(cz_proof_kind kind) {
    switch (kind) {
    case CZ_PROOF_POREP: return "porep-c2";
    case CZ_PROOF_SNAP: return "snap-update";
    case CZ_PROOF_WINDOW_POST: return "window-post";
    case CZ_PROOF_WINNING_POST: return "winning-post";
    default: return "unspecified";
    }
}

static const char *kind_metric_label(cz_proof_kind kind) {
    switch (kind) {
    case CZ_PROOF_POREP: return "porep_c2";
    case CZ_PROOF_SNAP: return "snap_update";
    case CZ_PROOF_WINDOW_POST: return "window_post";
    case CZ_PROOF_WINNING_POST: return "winning_post";
    default: return "unspecified";
    }
}

const char *cz_job_status_name(cz_job_status s) {
    switch (s) {
    case CZ_JOB_COMPLETED: return "COMPLETED";
    case CZ_JOB_FAILED: return "FAILED";
    case CZ_JOB_CANCELLED: return "CANCELLED";
    case CZ_JOB_TIMEOUT: return "TIMEOUT";
    default: return "UNKNOWN";
    }
}

void cz_engine_result_free(cz_engine_result *r) {
    free(r->proof);
    r->proof = NULL;
    r->proof_len = 0;
}

/* ---- logging ----
 * Through util/log.h, never while e->lock is held (a blocked stderr would
 * stall every worker): lines made under the lock are queued and written by
 * engine_unlock, which every unlock of e->lock goes through. */

typedef struct deferred_line {
    struct deferred_line *next;
    cz_log_level level;
    char text[];
} deferred_line;

static void defer_log(cz_engine *e, cz_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void defer_log(cz_engine *e, cz_log_level level, const char *fmt, ...) {
    if (!cz_log_enabled(level)) return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
    deferred_line *l = malloc(sizeof *l + len + 1);
    if (!l) return; /* a lost log line, not a lost job */
    l->next = NULL;
    l->level = level;
    memcpy(l->text, text, len);
    l->text[len] = 0;
    *e->log_tail = l;
    e->log_tail = &l->next;
}

/* Unlocks e->lock, then writes the lines queued under it. */
static void engine_unlock(cz_engine *e) {
    deferred_line *l = e->log_head;
    e->log_head = NULL;
    e->log_tail = &e->log_head;
    pthread_mutex_unlock(&e->lock);
    while (l) {
        deferred_line *next = l->next;
        cz_log(l->level, "%s", l->text);
        free(l);
        l = next;
    }
}

/* TIMELINE lines ([logging] timeline): "TIMELINE,ms since start,event,job,
 * detail". timeline() without e->lock, timeline_locked() under it. */
static void timeline_line(char *out, size_t cap, cz_engine *e, const char *event, const char *id,
                          const char *fmt, va_list ap) {
    char detail[128] = "";
    if (fmt) vsnprintf(detail, sizeof detail, fmt, ap);
    snprintf(out, cap, "TIMELINE,%" PRIu64 ",%s,%s,%s", (cz_now_ns() - e->t_start) / 1000000, event,
             id, detail);
}

static void timeline(cz_engine *e, const char *event, const job *j, const char *fmt, ...) {
    if (!e->timeline) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    timeline_line(line, sizeof line, e, event, j->id, fmt, ap);
    va_end(ap);
    cz_log(CZ_LOG_INFO, "%s", line);
}

static void timeline_locked(cz_engine *e, const char *event, const job *j, const char *fmt, ...) {
    if (!e->timeline) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    timeline_line(line, sizeof line, e, event, j->id, fmt, ap);
    va_end(ap);
    defer_log(e, CZ_LOG_INFO, "%s", line);
}

/* ---- heaps: (priority desc, seq asc, unit asc); PREPARE_UNIT sorts first ---- */

static int item_before(const item *a, const item *b) {
    if (a->j->priority != b->j->priority) return a->j->priority > b->j->priority;
    if (a->j->seq != b->j->seq) return a->j->seq < b->j->seq;
    uint64_t ua = a->unit == PREPARE_UNIT ? 0 : (uint64_t)a->unit + 1;
    uint64_t ub = b->unit == PREPARE_UNIT ? 0 : (uint64_t)b->unit + 1;
    return ua < ub;
}

static int heap_push(heap *h, item it) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        item *v = realloc(h->v, cap * sizeof *v);
        if (!v) return 0;
        h->v = v;
        h->cap = cap;
    }
    size_t i = h->n++;
    h->v[i] = it;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!item_before(&h->v[i], &h->v[p])) break;
        item t = h->v[i];
        h->v[i] = h->v[p];
        h->v[p] = t;
        i = p;
    }
    return 1;
}

/* Removes and returns h->v[i] (any index), keeping the heap order. */
static item heap_take(heap *h, size_t i) {
    item it = h->v[i];
    if (i == --h->n) return it;
    h->v[i] = h->v[h->n];
    while (i > 0) { /* the moved item may belong above i ... */
        size_t p = (i - 1) / 2;
        if (!item_before(&h->v[i], &h->v[p])) break;
        item t = h->v[i];
        h->v[i] = h->v[p];
        h->v[p] = t;
        i = p;
    }
    for (;;) { /* ... or below it */
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && item_before(&h->v[l], &h->v[m])) m = l;
        if (r < h->n && item_before(&h->v[r], &h->v[m])) m = r;
        if (m == i) break;
        item t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
    return it;
}

static item heap_pop(heap *h) {
    return heap_take(h, 0);
}

/* FIFO on the same storage (finish queue): push at the end, pop the front. */
static int fifo_push(heap *h, item it) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        item *v = realloc(h->v, cap * sizeof *v);
        if (!v) return 0;
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = it;
    return 1;
}

static item fifo_pop(heap *h) {
    item it = h->v[0];
    memmove(h->v, h->v + 1, (h->n - 1) * sizeof *h->v);
    h->n--;
    return it;
}

/* ---- jobs ---- */

static void job_free(job *j) {
    if (j->state && j->ops->free_state) j->ops->free_state(j->state);
    free(j->proof);
    free(j->owned);
    free(j->vp_ptrs);
    free(j->vp_lens);
    free(j);
}

/* Drops a reference; under e->lock. Frees a pruned job with no references. */
static void job_unref(job *j) {
    if (--j->refs == 0 && j->pruned) job_free(j);
}

static job *find_job(cz_engine *e, const char *id) {
    for (job *j = e->jobs; j; j = j->next)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

static void unlink_job(cz_engine *e, job *j) {
    for (job **pp = &e->jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    j->pruned = 1;
}

/* Ends a job (under e->lock): counters, SRS reference, waiters. */
static void job_end(cz_engine *e, job *j, cz_job_status st, const char *msg) {
    if (j->phase == PHASE_DONE) return;
    j->phase = PHASE_DONE;
    j->final = st;
    j->t_end = cz_now_ns();
    if (msg && !j->error[0]) snprintf(j->error, sizeof j->error, "%s", msg);
    kind_counters *c = &e->counters[j->kind];
    if (st == CZ_JOB_COMPLETED) {
        c->completed++;
        c->duration_sum_s += (double)(j->t_end - j->t_submit) / 1e9;
    } else if (st == CZ_JOB_CANCELLED) {
        c->cancelled++;
    } else {
        c->failed++;
    }
    if (j->srs_held) {
        cz_srs_release(&e->srs, j->plan.circuit_id);
        j->srs_held = 0;
    }
    /* The C1 copy and its parsed form can be ~100 MB: a finished job keeps
     * only its result. No op of the job runs any more (all units are over,
     * or none was created). */
    if (j->state && j->ops->free_state) j->ops->free_state(j->state);
    j->state = NULL;
    free(j->owned);
    j->owned = NULL;
    memset(&j->req, 0, sizeof j->req);
    defer_log(e, st == CZ_JOB_FAILED ? CZ_LOG_WARN : CZ_LOG_INFO,
              "engine: job %s (%s) %s%s%s, %.3f s", j->id, cz_proof_kind_name(j->kind),
              cz_job_status_name(st), j->error[0] ? ": " : "", j->error,
              (double)(j->t_end - j->t_submit) / 1e9);
    pthread_cond_broadcast(&e->job_done);
}

/* FNV-1a 64 over the request payload: a same-id resubmission must carry the
 * same request. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t payload_hash(const cz_engine_request *r) {
    uint64_t h = 0xcbf29ce484222325ull;
    uint64_t f[6] = {(uint64_t)r->kind, r->sector_size, r->registered_proof,
                     r->sector_number,  r->miner_id,    r->partition_index};
    h = fnv(h, f, sizeof f);
    h = fnv(h, &r->vanilla_proof_len, sizeof r->vanilla_proof_len);
    if (r->vanilla_proof_len) h = fnv(h, r->vanilla_proof, r->vanilla_proof_len);
    for (size_t i = 0; i < r->n_vanilla_proofs; i++) {
        h = fnv(h, &r->vanilla_proofs_len[i], sizeof(size_t));
        if (r->vanilla_proofs_len[i]) h = fnv(h, r->vanilla_proofs[i], r->vanilla_proofs_len[i]);
    }
    if (r->randomness_len) h = fnv(h, r->randomness, r->randomness_len);
    if (r->comm_r_old_len) h = fnv(h, r->comm_r_old, r->comm_r_old_len);
    if (r->comm_r_new_len) h = fnv(h, r->comm_r_new, r->comm_r_new_len);
    if (r->comm_d_new_len) h = fnv(h, r->comm_d_new, r->comm_d_new_len);
    return h;
}

/* Deep copy of the request's buffers into one allocation. */
static cz_status copy_request(job *j, const cz_engine_request *r, cz_error *err) {
    size_t total = r->vanilla_proof_len + r->randomness_len + r->comm_r_old_len +
                   r->comm_r_new_len + r->comm_d_new_len;
    for (size_t i = 0; i < r->n_vanilla_proofs; i++) total += r->vanilla_proofs_len[i];
    j->owned = malloc(total ? total : 1);
    if (r->n_vanilla_proofs) {
        j->vp_ptrs = calloc(r->n_vanilla_proofs, sizeof *j->vp_ptrs);
        j->vp_lens = calloc(r->n_vanilla_proofs, sizeof *j->vp_lens);
    }
    if (!j->owned || (r->n_vanilla_proofs && (!j->vp_ptrs || !j->vp_lens)))
        return cz_error_set(err, CZ_E_NOMEM, "engine: out of memory copying the request");
    uint8_t *p = j->owned;
    j->req = *r;
    j->req.request_id = j->id;
#define COPY(field, len)                                                                           \
    do {                                                                                           \
        if (r->len) memcpy(p, r->field, r->len);                                                   \
        j->req.field = p;                                                                          \
        p += r->len;                                                                               \
    } while (0)
    COPY(vanilla_proof, vanilla_proof_len);
    COPY(randomness, randomness_len);
    COPY(comm_r_old, comm_r_old_len);
    COPY(comm_r_new, comm_r_new_len);
    COPY(comm_d_new, comm_d_new_len);
#undef COPY
    for (size_t i = 0; i < r->n_vanilla_proofs; i++) {
        if (r->vanilla_proofs_len[i]) memcpy(p, r->vanilla_proofs[i], r->vanilla_proofs_len[i]);
        j->vp_ptrs[i] = p;
        j->vp_lens[i] = r->vanilla_proofs_len[i];
        p += r->vanilla_proofs_len[i];
    }
    j->req.vanilla_proofs = (const uint8_t *const *)j->vp_ptrs;
    j->req.vanilla_proofs_len = j->vp_lens;
    return CZ_OK;
}

static int default_priority(cz_proof_kind k) {
    switch (k) {
    case CZ_PROOF_WINNING_POST: return CZ_PRIORITY_CRITICAL;
    case CZ_PROOF_WINDOW_POST: return CZ_PRIORITY_HIGH;
    default: return CZ_PRIORITY_NORMAL;
    }
}

/* A request_id from the network: 1..CZ_JOB_ID_MAX bytes of UTF-8 without
 * control characters (it is echoed back in proto3 strings and log lines). */
static cz_status check_request_id(const char *id, size_t len, cz_error *err) {
    if (len > CZ_JOB_ID_MAX)
        return cz_error_set(err, CZ_E_INVALID_ARG, "request_id is %zu bytes (at most %d)", len,
                            CZ_JOB_ID_MAX);
    size_t bad = 0;
    if (!cz_utf8_valid((const uint8_t *)id, len, &bad))
        return cz_error_set(err, CZ_E_INVALID_ARG, "request_id is not valid UTF-8 (byte %zu)", bad);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "request_id has a control character at byte %zu", i);
    return CZ_OK;
}

/* An id for a request that came without one (as Rust cuzk does: a random
 * UUID, version 4); such a job is never joined by another submission. */
static cz_status make_request_id(char out[37], cz_error *err) {
    uint8_t b[16];
    cz_status st = cz_os_random_bytes(b, sizeof b, err);
    if (st != CZ_OK) return st;
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
    return CZ_OK;
}

static const char *phase_name(job_phase p) {
    switch (p) {
    case PHASE_QUEUED: return "queued";
    case PHASE_PREPARING: return "preparing";
    case PHASE_RUNNING: return "running";
    default: return "ended";
    }
}

typedef enum { ID_NEW, ID_ATTACH, ID_REFUSE } id_verdict;

/* What a submission of (id, hash, kind) does to the job table (under
 * e->lock):
 *   - no job of that id: a new one;
 *   - the same payload: joins the job (queued, running or ended within
 *     retention), except that a FAILED or CANCELLED one is replaced (a
 *     retry starts anew);
 *   - another payload and the job has ended: a new job replaces it (Curio
 *     names its requests after the sector, `porep-<miner>-<sector>`, and
 *     re-proves a sector with a new C1 under the same id);
 *   - another payload while the job is queued or running: refused, naming
 *     the job, since one id cannot stand for two proofs at once.
 * A replaced job leaves the table; callers waiting on it still get its
 * result. */
static id_verdict lookup_id(cz_engine *e, const char *id, uint64_t hash, cz_proof_kind kind,
                            cz_error *err) {
    job *old = find_job(e, id);
    if (!old) return ID_NEW;
    int same = old->payload_hash == hash && old->kind == kind;
    if (same && !(old->phase == PHASE_DONE &&
                  (old->final == CZ_JOB_FAILED || old->final == CZ_JOB_CANCELLED)))
        return ID_ATTACH;
    if (!same && old->phase != PHASE_DONE) {
        cz_error_set(err, CZ_E_BUSY,
                     "request_id '%s' is in use by a %s %s job (submitted %.1f s ago) with a "
                     "different payload; it can be reused once that job ends or is cancelled",
                     id, phase_name(old->phase), cz_proof_kind_name(old->kind),
                     (double)(cz_now_ns() - old->t_submit) / 1e9);
        return ID_REFUSE;
    }
    unlink_job(e, old);
    if (old->refs == 0) job_free(old);
    return ID_NEW;
}

cz_status cz_engine_submit(cz_engine *e, const cz_engine_request *req, cz_engine_submit_info *info,
                           cz_error *err) {
    memset(info, 0, sizeof *info);
    char made_up[37];
    const char *id = req->request_id ? req->request_id : "";
    size_t id_len = strlen(id);
    cz_status st = check_request_id(id, id_len, err);
    if (st != CZ_OK) return st;
    int anonymous = id_len == 0;
    if (anonymous) {
        if ((st = make_request_id(made_up, err)) != CZ_OK) return st;
        id = made_up;
        id_len = strlen(made_up);
    }
    if ((unsigned)req->kind >= CZ_PROOF_KIND_COUNT || req->kind == CZ_PROOF_KIND_UNSPECIFIED)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "proof_kind %d is not one of POREP_SEAL_COMMIT (1), SNAP_DEALS_UPDATE "
                            "(2), WINDOW_POST_PARTITION (3), WINNING_POST (4)",
                            (int)req->kind);
    const cz_job_ops *ops = e->ops[req->kind];
    if (!ops)
        return cz_error_set(err, CZ_E_UNSUPPORTED, "proof kind %s is not supported by this build",
                            cz_proof_kind_name(req->kind));
    if (req->kind == CZ_PROOF_POREP && req->vanilla_proof_len == 0)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "POREP_SEAL_COMMIT needs vanilla_proof (the C1 output)");
    int prio = (int)req->priority;
    if (prio == CZ_PRIORITY_UNSPECIFIED) prio = default_priority(req->kind);
    if (prio < CZ_PRIORITY_LOW || prio > CZ_PRIORITY_CRITICAL) prio = CZ_PRIORITY_NORMAL;
    uint64_t hash = payload_hash(req);

    /* A repeated submission joins its job without re-checking the payload. */
    pthread_mutex_lock(&e->lock);
    id_verdict v = ID_NEW;
    if (e->draining || e->stop)
        st = cz_error_set(err, CZ_E_SHUTDOWN, "engine is shutting down; not accepting proofs");
    else if (!anonymous)
        v = lookup_id(e, id, hash, req->kind, err);
    engine_unlock(e);
    if (st != CZ_OK || v == ID_REFUSE) return st != CZ_OK ? st : CZ_E_BUSY;
    if (v == ID_ATTACH) {
        snprintf(info->job_id, sizeof info->job_id, "%s", id);
        info->attached = 1;
        return CZ_OK;
    }

    /* Without the lock: the admission check (which keeps what prepare
     * needs, so the request's buffers are not kept) or a copy of them. */
    job *j = calloc(1, sizeof *j);
    if (!j) return cz_error_set(err, CZ_E_NOMEM, "engine: out of memory");
    memcpy(j->id, id, id_len + 1);
    j->kind = req->kind;
    j->priority = prio;
    j->ops = ops;
    j->payload_hash = hash;
    j->phase = PHASE_QUEUED;
    if (ops->admit) {
        j->req = *req;
        j->req.vanilla_proof = NULL, j->req.vanilla_proof_len = 0;
        j->req.vanilla_proofs = NULL, j->req.vanilla_proofs_len = NULL, j->req.n_vanilla_proofs = 0;
        j->req.randomness = NULL, j->req.randomness_len = 0;
        j->req.comm_r_old = j->req.comm_r_new = j->req.comm_d_new = NULL;
        j->req.comm_r_old_len = j->req.comm_r_new_len = j->req.comm_d_new_len = 0;
        j->req.request_id = j->id;
        st = ops->admit(&j->state, req, err);
    } else {
        st = copy_request(j, req, err);
    }
    if (st != CZ_OK) {
        job_free(j);
        return st;
    }

    pthread_mutex_lock(&e->lock);
    if (e->draining || e->stop)
        st = cz_error_set(err, CZ_E_SHUTDOWN, "engine is shutting down; not accepting proofs");
    else if (!anonymous) /* another submission of the id may have come in meanwhile */
        v = lookup_id(e, id, hash, req->kind, err);
    if (st == CZ_OK && v == ID_NEW) {
        j->t_submit = cz_now_ns();
        /* The sequence number is part of the heap key: set before the push. */
        j->seq = e->next_seq++;
        if (!heap_push(&e->synth, (item){j, PREPARE_UNIT, NULL, 0, 0}))
            st = cz_error_set(err, CZ_E_NOMEM, "engine: out of memory");
    }
    if (st != CZ_OK || v != ID_NEW) {
        engine_unlock(e);
        job_free(j);
        if (st == CZ_OK && v == ID_ATTACH) {
            snprintf(info->job_id, sizeof info->job_id, "%s", id);
            info->attached = 1;
        }
        return st != CZ_OK ? st : v == ID_REFUSE ? CZ_E_BUSY : CZ_OK;
    }
    j->refs = 1; /* the prepare item */
    uint32_t ahead = 0;
    for (job *o = e->jobs; o; o = o->next)
        if (o->phase == PHASE_QUEUED && o->priority >= prio) ahead++;
    j->next = e->jobs;
    e->jobs = j;
    snprintf(info->job_id, sizeof info->job_id, "%s", id);
    info->queue_position = ahead;
    timeline_locked(e, "SUBMIT", j, "%s prio=%d", cz_proof_kind_name(j->kind), prio);
    pthread_cond_broadcast(&e->work);
    engine_unlock(e);
    return CZ_OK;
}

static void fill_result(const job *j, cz_engine_result *out) {
    out->status = j->final;
    snprintf(out->error_message, sizeof out->error_message, "%s", j->error);
    if (j->final == CZ_JOB_COMPLETED && j->proof) {
        size_t len = (size_t)j->plan.units * j->plan.unit_proof_bytes;
        out->proof = malloc(len);
        if (out->proof) {
            memcpy(out->proof, j->proof, len);
            out->proof_len = len;
        } else {
            out->status = CZ_JOB_FAILED;
            snprintf(out->error_message, sizeof out->error_message,
                     "out of memory copying the proof");
        }
        uint64_t first = j->t_first_synth ? j->t_first_synth : j->t_end;
        /* Waiting in queues, not loading the SRS (reported apart). */
        uint64_t waited_ms = (first - j->t_submit) / 1000000;
        out->queue_wait_ms = waited_ms > j->srs_load_ms ? waited_ms - j->srs_load_ms : 0;
        out->srs_load_ms = j->srs_load_ms;
        out->synthesis_ms = j->synth_ns / 1000000;
        out->gpu_compute_ms = j->prove_ns / 1000000;
        out->total_ms = (j->t_end - j->t_submit) / 1000000;
    }
}

cz_status cz_engine_await(cz_engine *e, const char *job_id, uint64_t timeout_ms,
                          int (*abandon)(void *ctx), void *abandon_ctx, cz_engine_result *out,
                          cz_error *err) {
    (void)err;
    memset(out, 0, sizeof *out);
    uint64_t deadline = timeout_ms ? cz_now_ns() + timeout_ms * 1000000ull : 0;
    pthread_mutex_lock(&e->lock);
    job *j = find_job(e, job_id ? job_id : "");
    if (!j) {
        engine_unlock(e);
        out->status = CZ_JOB_UNKNOWN;
        snprintf(out->error_message, sizeof out->error_message, "no job with id '%s'",
                 job_id ? job_id : "");
        return CZ_OK;
    }
    j->refs++;
    while (j->phase != PHASE_DONE) {
        uint64_t now = cz_now_ns();
        if (deadline && now >= deadline) break;
        if (abandon && abandon(abandon_ctx)) break;
        uint64_t wait_ns = 200000000ull;
        if (deadline && deadline - now < wait_ns) wait_ns = deadline - now;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t ns = (uint64_t)ts.tv_nsec + wait_ns;
        ts.tv_sec += (time_t)(ns / 1000000000ull);
        ts.tv_nsec = (long)(ns % 1000000000ull);
        pthread_cond_timedwait(&e->job_done, &e->lock, &ts);
    }
    if (j->phase == PHASE_DONE) {
        fill_result(j, out);
    } else {
        out->status = CZ_JOB_TIMEOUT;
        snprintf(out->error_message, sizeof out->error_message,
                 "job '%s' still running after %" PRIu64 " ms; it goes on (await it again)", j->id,
                 timeout_ms);
    }
    job_unref(j);
    engine_unlock(e);
    return CZ_OK;
}

/* Cancels j (under e->lock). A job whose prepare item is still queued ends
 * now; otherwise the workers drop its units at the next boundary and the
 * last one ends it. */
static void drop_queued_units(cz_engine *e, job *j);

static void cancel_job(cz_engine *e, job *j) {
    if (j->phase == PHASE_DONE || j->cancel) return;
    j->cancel = 1;
    timeline_locked(e, "CANCEL", j, NULL);
    if (j->phase == PHASE_QUEUED)
        job_end(e, j, CZ_JOB_CANCELLED, "cancelled while queued");
    else if (j->in_load_queue)
        job_end(e, j, CZ_JOB_CANCELLED, "cancelled while waiting for its SRS");
    cz_budget_wake(&e->budget); /* a unit waiting for memory gives up */
    pthread_cond_broadcast(&e->prove_room);
    pthread_cond_broadcast(&e->work);
    if (j->phase == PHASE_RUNNING) drop_queued_units(e, j);
}

cz_status cz_engine_cancel(cz_engine *e, const char *job_id, int *found, int *was_running,
                           cz_error *err) {
    (void)err;
    pthread_mutex_lock(&e->lock);
    job *j = find_job(e, job_id ? job_id : "");
    *found = j != NULL;
    *was_running = j && (j->phase == PHASE_PREPARING || j->phase == PHASE_RUNNING);
    if (j) cancel_job(e, j);
    engine_unlock(e);
    return CZ_OK;
}

/* ---- workers ---- */

/* A unit is over (finished or dropped); under e->lock. Returns 1 when it was
 * the job's last unit and the caller must run finish_job (without the lock). */
static int unit_over(job *j, cz_status st, const cz_error *uerr) {
    if (st != CZ_OK && !j->failed && !j->cancel) {
        j->failed = 1;
        snprintf(j->error, sizeof j->error, "%s", uerr->message);
    }
    return --j->units_left == 0;
}

/* All units are over: verify and end the job. Called without e->lock. */
static void finish_job(cz_engine *e, job *j) {
    pthread_mutex_lock(&e->lock);
    int cancel = j->cancel, failed = j->failed;
    engine_unlock(e);
    cz_job_status st = CZ_JOB_COMPLETED;
    cz_error verr = {0};
    char msg[600] = "";
    if (cancel) {
        st = CZ_JOB_CANCELLED;
        snprintf(msg, sizeof msg, "cancelled");
    } else if (!failed) {
        size_t len = (size_t)j->plan.units * j->plan.unit_proof_bytes;
        timeline(e, "VERIFY_START", j, NULL);
        uint64_t t_verify = cz_now_ns();
        cz_status vs =
            j->ops->verify(j->state, j->proof, len, j->plan.circuit_id[0] ? &j->srs : NULL, &verr);
        span(e, "self-verify", j, -1, t_verify, cz_now_ns());
        timeline(e, "VERIFY_END", j, "%s", vs == CZ_OK ? "ok" : "bad");
        if (vs != CZ_OK) {
            /* Never an empty reason: an op that set no message still has
             * a status. */
            st = CZ_JOB_FAILED;
            snprintf(msg, sizeof msg, "self-check failed, proof not returned: %s",
                     verr.message[0] ? verr.message : cz_status_name(vs));
        }
    } else {
        st = CZ_JOB_FAILED;
    }
    pthread_mutex_lock(&e->lock);
    job_end(e, j, st, msg[0] ? msg : NULL);
    engine_unlock(e);
}

/* Admission (under e->lock): a job may take its SRS only when the SRSs of
 * the admitted jobs (referenced, so never evicted), its own, and the
 * largest partition of any of them fit the budget together. Then some
 * partition can always get memory once the partitions in flight are done,
 * so admitted jobs finish, and a job that does not fit yet only waits for
 * them (without this, two jobs each holding an SRS can wait forever for
 * partition memory the other holds). */
static int admissible(cz_engine *e, const job *j) {
    uint64_t total = 0, unit = j->plan.unit_bytes;
    cz_budget_usage(&e->budget, NULL, &total);
    for (const job *o = e->jobs; o; o = o->next)
        if (o->srs_held && o->phase != PHASE_DONE && o->plan.unit_bytes > unit)
            unit = o->plan.unit_bytes;
    uint64_t pinned = cz_srs_pinned_bytes(&e->srs, j->plan.circuit_id);
    return pinned + j->srs_bytes + unit <= total;
}

/* Puts a job's key and circuit on a back-end context ahead of its units, so
 * that the upload (~1 GB at 2 KiB, ~50 GB at 32 GiB) overlaps their
 * synthesis: nothing when a context holds them already, else the first idle
 * context that keeps anything (never the CPU; all busy: the first unit does
 * it). A job that no context can hold, not even streaming, fails now, not
 * after its partitions are synthesized. Called without e->lock, j held. */
static void hold_for_job(cz_engine *e, job *j) {
    if (!j->plan.circuit_id[0] || !j->srs.params) return;
    int idle = -1;
    for (uint32_t i = 0; i < e->n_backends; i++) {
        cz_backend *b = e->slots[i].backend;
        pthread_mutex_lock(&e->lock);
        int out = e->slots[i].out_of_service;
        pthread_mutex_unlock(&e->lock);
        if (out) continue;
        cz_backend_info bi;
        cz_backend_get_info(b, &bi);
        if (!strcmp(bi.resident_circuit, j->plan.circuit_id)) return;
        if (idle < 0 && !bi.busy && b->ops->hold) idle = (int)i;
    }
    if (idle < 0) return;
    cz_backend *b = e->slots[idle].backend;
    timeline(e, "GPU_HOLD_START", j, "%s backend=%s", j->plan.circuit_id, b->info.name);
    cz_error herr = {0};
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_backend_hold(b, j->plan.circuit_id, j->srs.params, j->srs.params_file,
                                   j->srs.circuit, &herr);
    span(e, "key and circuit to the device", j, -1, t0, cz_now_ns());
    timeline(e, "GPU_HOLD_END", j, "%s", st == CZ_OK ? "ok" : "failed");
    if (st == CZ_OK) return;
    pthread_mutex_lock(&e->lock);
    if (!j->failed && !j->cancel) {
        j->failed = 1;
        snprintf(j->error, sizeof j->error, "%s", herr.message);
    }
    pthread_cond_broadcast(&e->prove_room); /* its queued units drop at once */
    pthread_mutex_unlock(&e->lock);
}

/* The end of a job's preparation (its SRS held when it has one): queue its
 * units, or end it. */
static void prepare_finish(cz_engine *e, job *j, cz_status st, cz_error *perr) {
    if (st == CZ_OK) {
        j->proof = calloc(j->plan.units, j->plan.unit_proof_bytes ? j->plan.unit_proof_bytes : 1);
        if (!j->proof) st = cz_error_set(perr, CZ_E_NOMEM, "engine: out of memory");
    }
    timeline(e, "PREPARE_END", j, "%s", st == CZ_OK ? "ok" : "failed");

    pthread_mutex_lock(&e->lock);
    if (j->phase == PHASE_DONE) {
        /* cancelled while waiting for its SRS (cancel_job ended it) */
    } else if (st != CZ_OK) {
        job_end(e, j, j->cancel ? CZ_JOB_CANCELLED : CZ_JOB_FAILED,
                j->cancel ? "cancelled" : perr->message);
    } else if (j->cancel) {
        job_end(e, j, CZ_JOB_CANCELLED, "cancelled");
    } else {
        j->phase = PHASE_RUNNING;
        j->units_left = j->plan.units;
        for (uint32_t u = 0; u < j->plan.units; u++) {
            if (!heap_push(&e->synth, (item){j, u, NULL, 0, 0})) {
                /* Units never queued are over now. */
                j->failed = 1;
                snprintf(j->error, sizeof j->error, "engine: out of memory queueing partitions");
                j->units_left -= j->plan.units - u;
                break;
            }
            j->refs++;
        }
        int queued = j->units_left > 0;
        if (!queued) {
            engine_unlock(e);
            finish_job(e, j);
            pthread_mutex_lock(&e->lock);
        }
        pthread_cond_broadcast(&e->work);
        pthread_mutex_unlock(&e->lock);
        if (queued) hold_for_job(e, j);
        return;
    }
    engine_unlock(e);
}

/* Parses and plans a job on a synthesis worker. Taking the SRS happens here
 * only when it is already hot; a load (which may wait for memory) goes to
 * the SRS loader thread, so that synthesis workers keep serving the
 * partitions of running jobs, whose progress is what frees memory. */
static void run_prepare(cz_engine *e, job *j) {
    cz_error perr = {0};
    pthread_mutex_lock(&e->lock);
    if (j->cancel || j->phase != PHASE_QUEUED) {
        engine_unlock(e);
        return;
    }
    j->phase = PHASE_PREPARING;
    engine_unlock(e);
    timeline(e, "PREPARE_START", j, NULL);

    j->plan.host_evaluation = e->host_evaluation;
    uint64_t t_prep = cz_now_ns();
    cz_status st = j->ops->prepare(&j->state, &j->plan, &j->req, e->srs.dir, &perr);
    span(e, "prepare", j, -1, t_prep, cz_now_ns());
    if (st == CZ_OK && (j->plan.units == 0 || j->plan.unit_bytes_after > j->plan.unit_bytes))
        st = cz_error_set(&perr, CZ_E_INTERNAL, "%s: bad plan", j->ops->name);
    if (st == CZ_OK && j->plan.circuit_id[0]) {
        /* Never-fits check before anything waits: the SRS and one unit must
         * fit the budget together. */
        uint64_t srs_bytes = 0, total = 0;
        cz_budget_usage(&e->budget, NULL, &total);
        st = cz_srs_hot_bytes(&e->srs, j->plan.circuit_id, &srs_bytes, &perr);
        j->srs_bytes = srs_bytes;
        if (st == CZ_OK && srs_bytes + j->plan.unit_bytes > total)
            st = cz_error_set(&perr, CZ_E_NOMEM,
                              "memory budget: %s needs %" PRIu64 " bytes of SRS plus %" PRIu64
                              " bytes per partition, more than the whole budget (%" PRIu64
                              " bytes; raise [memory] total_budget)",
                              j->plan.circuit_id, srs_bytes, j->plan.unit_bytes, total);
        if (st == CZ_OK) {
            timeline(e, "SRS_ACQUIRE", j, "%s", j->plan.circuit_id);
            /* While the loader works (it may wait for memory that only
             * running jobs free), new jobs queue behind it even when their
             * SRS is hot: that bounds its wait. */
            pthread_mutex_lock(&e->lock);
            int loader_idle = !e->loader_busy && e->load.n == 0;
            if (loader_idle && admissible(e, j) &&
                cz_srs_try_acquire(&e->srs, j->plan.circuit_id, j->plan.wants_circuit, &j->srs)) {
                j->srs_held = 1;
                engine_unlock(e);
            } else {
                if (heap_push(&e->load, (item){j, PREPARE_UNIT, NULL, 0, 0})) {
                    j->refs++;
                    j->in_load_queue = 1;
                    pthread_cond_broadcast(&e->load_work);
                    engine_unlock(e);
                    return; /* the loader finishes the preparation */
                }
                engine_unlock(e);
                st = cz_error_set(&perr, CZ_E_NOMEM, "engine: out of memory");
            }
        }
    } else if (st == CZ_OK && j->plan.unit_bytes) {
        uint64_t total = 0;
        cz_budget_usage(&e->budget, NULL, &total);
        if (j->plan.unit_bytes > total)
            st = cz_error_set(&perr, CZ_E_NOMEM,
                              "memory budget: a partition of this job needs %" PRIu64
                              " bytes, more than the whole budget (%" PRIu64 " bytes)",
                              j->plan.unit_bytes, total);
    }
    prepare_finish(e, j, st, &perr);
}

/* The SRS manager's device loader (installed when every context has
 * hold): the key from the mapped file onto every context's device,
 * one thread per context. Any context that would need host points makes
 * the whole entry decode on the host (CZ_E_UNSUPPORTED); the contexts that
 * loaded keep their copy (their key identity matches the host points'). */
typedef struct {
    cz_backend *backend;
    const char *id;
    const cz_groth16_params_file *file;
    const cz_circuit *circuit;
    cz_status st;
    cz_error err;
} resident_job;

static void *resident_run(void *arg) {
    resident_job *r = arg;
    r->st = cz_backend_hold(r->backend, r->id, NULL, r->file, r->circuit, &r->err);
    return NULL;
}

static cz_status device_load(void *ctx, const char *id, const cz_groth16_params_file *file,
                             const cz_circuit *circuit, cz_error *err) {
    cz_engine *e = ctx;
    resident_job jobs[CZ_ENGINE_MAX_BACKENDS];
    pthread_t threads[CZ_ENGINE_MAX_BACKENDS];
    int started[CZ_ENGINE_MAX_BACKENDS] = {0};
    for (uint32_t i = 0; i < e->n_backends; i++) {
        jobs[i] = (resident_job){e->slots[i].backend, id, file, circuit, CZ_OK, {0}};
        if (e->n_backends > 1)
            started[i] = pthread_create(&threads[i], NULL, resident_run, &jobs[i]) == 0;
        if (!started[i]) resident_run(&jobs[i]);
    }
    for (uint32_t i = 0; i < e->n_backends; i++)
        if (started[i]) pthread_join(threads[i], NULL);
    const resident_job *unsupported = NULL;
    for (uint32_t i = 0; i < e->n_backends; i++) {
        if (jobs[i].st == CZ_E_UNSUPPORTED) {
            if (!unsupported) unsupported = &jobs[i];
        } else if (jobs[i].st != CZ_OK) {
            if (err) *err = jobs[i].err;
            return jobs[i].st;
        }
    }
    if (unsupported) {
        if (err) *err = unsupported->err;
        return CZ_E_UNSUPPORTED;
    }
    return CZ_OK;
}

/* The SRS loader: one job at a time, by priority then arrival. */
static void *srs_loader(void *arg) {
    cz_engine *e = arg;
    worker_lane = CZ_TRACE_LANE_JOBS;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && e->load.n == 0) pthread_cond_wait(&e->load_work, &e->lock);
        if (e->stop) break;
        item it = heap_pop(&e->load);
        job *j = it.j;
        j->in_load_queue = 0;
        e->loader_busy = 1;
        int skip = j->phase == PHASE_DONE || j->cancel;
        engine_unlock(e);
        /* skip: cancel_job ended the job while it was in this queue. */
        if (!skip) {
            pthread_mutex_lock(&e->lock);
            while (!admissible(e, j) && !j->cancel && !e->stop) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 200000000;
                if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
                pthread_cond_timedwait(&e->job_done, &e->lock, &ts);
            }
            int cancelled = j->cancel || e->stop;
            engine_unlock(e);
            cz_error perr = {0};
            uint64_t t_load = cz_now_ns();
            cz_status st = cancelled
                               ? cz_error_set(&perr, CZ_E_CANCELLED, "cancelled")
                               : cz_srs_acquire(&e->srs, j->plan.circuit_id, j->plan.wants_circuit,
                                                &j->srs, &j->srs_load_ms, &j->cancel, &perr);
            span(e, "SRS load", j, -1, t_load, cz_now_ns());
            if (st == CZ_OK) {
                pthread_mutex_lock(&e->lock);
                j->srs_held = 1;
                engine_unlock(e);
            }
            prepare_finish(e, j, st, &perr);
        }
        pthread_mutex_lock(&e->lock);
        e->loader_busy = 0;
        job_unref(j);
    }
    engine_unlock(e);
    return NULL;
}

/* Index of a prove heap item whose job is cancelled or failed (it will be
 * dropped, not proven), or SIZE_MAX; under e->lock. */
static size_t prove_dropped(const cz_engine *e) {
    for (size_t i = 0; i < e->prove.n; i++)
        if (e->prove.v[i].j->cancel || e->prove.v[i].j->failed) return i;
    return SIZE_MAX;
}

/* Ends a unit: returns its memory, records its outcome, finishes the job
 * after its last unit and drops the caller's reference to the job. A unit
 * that fails its job drops the job's queued units. Called without e->lock;
 * returns with it held. */
static void unit_end(cz_engine *e, job *j, uint64_t reserved, cz_status st, const cz_error *uerr) {
    if (reserved) cz_budget_release(&e->budget, reserved);
    pthread_mutex_lock(&e->lock);
    int was_failed = j->failed;
    if (unit_over(j, st, uerr)) {
        engine_unlock(e);
        finish_job(e, j);
        pthread_mutex_lock(&e->lock);
    } else if (!was_failed && j->failed) {
        drop_queued_units(e, j);
    }
    job_unref(j);
}

/* Drops a synthesized unit taken from the prove heap. Called and returns
 * with e->lock held; the op runs without it. */
static void drop_synthesized(cz_engine *e, item it) {
    job *j = it.j;
    engine_unlock(e);
    j->ops->discard(j->state, it.unit, it.data, 0);
    unit_end(e, j, it.reserved, CZ_OK, NULL);
}

/* Index of a unit item (not the prepare item) of j in h, or SIZE_MAX. */
static size_t find_unit_of(const heap *h, const job *j) {
    for (size_t i = 0; i < h->n; i++)
        if (h->v[i].j == j && h->v[i].unit != PREPARE_UNIT) return i;
    return SIZE_MAX;
}

/* The queued units of a cancelled or failed job end now (under e->lock,
 * which is dropped while ops run and held again on return): a unit waiting
 * for synthesis holds nothing yet; a synthesized one holds its buffers and
 * memory reservation, which would otherwise wait for a prove worker to take
 * and drop it (behind a busy prover: a whole partition, minutes at 32 GiB).
 * Units being synthesized or proven stop at their next step boundary. */
static void drop_queued_units(cz_engine *e, job *j) {
    j->refs++; /* j stays while the lock is dropped */
    size_t i;
    while ((i = find_unit_of(&e->synth, j)) != SIZE_MAX) {
        heap_take(&e->synth, i);
        if (unit_over(j, CZ_OK, NULL)) {
            engine_unlock(e);
            finish_job(e, j);
            pthread_mutex_lock(&e->lock);
        }
        job_unref(j); /* the item's reference */
    }
    while ((i = find_unit_of(&e->prove, j)) != SIZE_MAX) {
        item it = heap_take(&e->prove, i);
        pthread_cond_broadcast(&e->prove_room); /* blocked synthesis workers re-check */
        drop_synthesized(e, it);
    }
    job_unref(j);
}

/* Synthesizes one unit and hands it to the prove heap. */
static void run_synthesis(cz_engine *e, item it) {
    job *j = it.j;
    cz_error uerr = {0};
    cz_status st = CZ_OK;
    void *synth = NULL;
    int dropped = 0;
    char what[64];
    snprintf(what, sizeof what, "partition %u of %.32s", it.unit, j->id);
    if (j->plan.unit_bytes) {
        timeline(e, "MEM_WAIT", j, "%u %" PRIu64, it.unit, j->plan.unit_bytes);
        st = cz_budget_acquire(&e->budget, j->plan.unit_bytes, what, 0, cz_srs_evict_idle, &e->srs,
                               &j->cancel, &uerr);
        if (st == CZ_OK)
            it.reserved = j->plan.unit_bytes;
        else if (j->cancel)
            dropped = 1;
    }
    if (st == CZ_OK) {
        pthread_mutex_lock(&e->lock);
        if (!j->t_first_synth) j->t_first_synth = cz_now_ns();
        j->started = 1;
        engine_unlock(e);
        timeline(e, "SYNTH_START", j, "%u", it.unit);
        uint64_t t0 = cz_now_ns();
        st = j->ops->synthesize(j->state, it.unit, &synth, &uerr);
        uint64_t dt = cz_now_ns() - t0;
        span(e, "synthesis", j, (int32_t)it.unit, t0, t0 + dt);
        timeline(e, "SYNTH_END", j, "%u", it.unit);
        pthread_mutex_lock(&e->lock);
        j->synth_ns += dt;
        engine_unlock(e);
    }
    pthread_mutex_lock(&e->lock);
    if (st == CZ_OK) {
        if (!j->cancel && !j->failed && !e->stop) {
            it.data = synth;
            it.t_ready = cz_now_ns();
            if (heap_push(&e->prove, it)) {
                timeline_locked(e, "GPU_QUEUE", j, "%u", it.unit);
                pthread_cond_signal(&e->prove_work);
                /* The item (and its job reference) moved on: j is not
                 * touched again. Backpressure: with more than depth units
                 * queued this worker synthesizes nothing more until one
                 * goes. Each pop lets exactly one blocked worker go (the
                 * first to see prove.n <= depth + blocked - 1 leaves and
                 * lowers blocked, which keeps the others waiting), so the
                 * heap holds at most depth + blocked units; those units
                 * were synthesized anyway (memory reserved), now the
                 * prove workers can choose among them. A waiting worker
                 * also drops a unit of a cancelled or failed job (cancel
                 * broadcasts prove_room): that frees its memory at once
                 * instead of after the prove work ahead of it, and counts
                 * as the pop that lets this worker go. */
                if (e->prove.n > e->prove_queue_depth) {
                    e->prove_blocked++;
                    while (e->prove.n > e->prove_queue_depth + e->prove_blocked - 1 && !e->stop) {
                        size_t d = prove_dropped(e);
                        if (d != SIZE_MAX) {
                            item x = heap_take(&e->prove, d);
                            e->prove_blocked--;
                            drop_synthesized(e, x);
                            engine_unlock(e);
                            return;
                        }
                        pthread_cond_wait(&e->prove_room, &e->lock);
                    }
                    e->prove_blocked--;
                }
                engine_unlock(e);
                return;
            }
            st = cz_error_set(&uerr, CZ_E_NOMEM, "engine: out of memory");
        }
        dropped = 1;
    }
    engine_unlock(e);
    if (synth) j->ops->discard(j->state, it.unit, synth, 0);
    unit_end(e, j, it.reserved, dropped ? CZ_OK : st, &uerr);
    engine_unlock(e);
}

static void *synthesis_worker(void *arg) {
    cz_engine *e = arg;
    unsigned k = atomic_fetch_add(&e->synth_lanes, 1);
    worker_lane =
        CZ_TRACE_LANE_SYNTH + k < CZ_TRACE_LANES ? CZ_TRACE_LANE_SYNTH + k : CZ_TRACE_LANES - 1;
    if (e->tracing) {
        char name[32];
        snprintf(name, sizeof name, "synthesis %u", k);
        cz_trace_name_lane(&e->trace, worker_lane, name);
    }
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && e->synth.n == 0) pthread_cond_wait(&e->work, &e->lock);
        if (e->stop) break;
        item it = heap_pop(&e->synth);
        job *j = it.j;
        if (it.unit == PREPARE_UNIT) {
            engine_unlock(e);
            run_prepare(e, j);
            pthread_mutex_lock(&e->lock);
            job_unref(j);
            continue;
        }
        if (j->cancel || j->failed) { /* dropped at the partition boundary */
            int last = unit_over(j, CZ_OK, NULL);
            if (last) {
                engine_unlock(e);
                finish_job(e, j);
                pthread_mutex_lock(&e->lock);
            }
            job_unref(j);
            continue;
        }
        engine_unlock(e);
        run_synthesis(e, it);
        pthread_mutex_lock(&e->lock);
    }
    engine_unlock(e);
    return NULL;
}

typedef struct {
    cz_engine *e;
    uint32_t index; /* worker number, over all contexts */
    uint32_t slot;  /* its back-end context */
} prove_worker_arg;

static int is_last_circuit(const backend_slot *b, const job *j) {
    return b->have_last && j->kind == b->last_kind && !strcmp(j->plan.circuit_id, b->last_circuit);
}

/* Which prove heap item a prove worker of context b takes next (under
 * e->lock; the heap is not empty). Plain order is the heap's top: highest
 * priority, oldest job, lowest unit. Departures from it:
 *   - a unit that will be dropped (job cancelled or failed) first: it costs
 *     nothing and frees its memory;
 *   - same-circuit runs: while the top is of another circuit than the last
 *     unit this context took, the run is shorter than max_batch, and no
 *     unit of another circuit at the top priority has been ready longer
 *     than max_batch_wait, the oldest unit of the top priority and of the
 *     context's last circuit goes instead (the context keeps that
 *     circuit's parameters; a switch re-uploads them). Each context runs
 *     its own circuit, so with several devices one may stay on PoRep while
 *     another takes the other circuit.
 * Only units already synthesized are considered: the GPU never idles for a
 * batch to fill, and a higher priority always goes first. The scan is
 * linear; the heap holds at most prove_queue_depth + synthesis workers. */
static size_t prove_pick(const cz_engine *e, const backend_slot *b) {
    const heap *h = &e->prove;
    size_t d = prove_dropped(e);
    if (d != SIZE_MAX) return d;
    const item *top = &h->v[0];
    if (e->max_batch <= 1 || !b->have_last || b->run_len >= e->max_batch ||
        is_last_circuit(b, top->j))
        return 0;
    uint64_t now = cz_now_ns();
    if (now - top->t_ready > e->max_batch_wait_ns) return 0;
    size_t best = 0;
    for (size_t i = 1; i < h->n; i++) {
        const item *it = &h->v[i];
        if (it->j->priority != top->j->priority) continue;
        if (!is_last_circuit(b, it->j)) {
            if (now - it->t_ready > e->max_batch_wait_ns) return 0;
        } else if (best == 0 || item_before(it, &h->v[best])) {
            best = i;
        }
    }
    return best;
}

/* Bookkeeping of the circuit a prove worker of b is about to run (under
 * e->lock). */
static void note_circuit(cz_engine *e, backend_slot *b, const job *j) {
    if (!is_last_circuit(b, j)) {
        if (b->have_last) e->circuit_switches++;
        b->have_last = 1;
        b->last_kind = j->kind;
        snprintf(b->last_circuit, sizeof b->last_circuit, "%s", j->plan.circuit_id);
        b->run_len = 0;
    }
    b->run_len++;
}

/* A device error (CZ_E_CUDA) on a context while another context is in
 * service: the failing one is taken out of service (its workers stop, with
 * one log line) and the unit goes back to synthesis (its witness was
 * consumed), to be proven elsewhere. Under e->lock; returns 1 when it did
 * (the caller's worker then stops), 0 to fail the unit as usual. */
static int take_out_of_service(cz_engine *e, backend_slot *slot, job *j, item it,
                               const cz_error *uerr) {
    int others = 0;
    for (uint32_t i = 0; i < e->n_backends; i++)
        if (&e->slots[i] != slot && !e->slots[i].out_of_service) others = 1;
    if (!others || j->cancel || j->failed) return 0;
    if (!heap_push(&e->synth, (item){j, it.unit, NULL, 0, 0})) return 0;
    slot->out_of_service = 1;
    fprintf(stderr,
            "engine: back-end %s taken out of service after a device error (%s); partition %u "
            "of %.64s goes to the other contexts\n",
            slot->backend->info.name, uerr->message, it.unit, j->id);
    pthread_cond_broadcast(&e->work);
    pthread_cond_broadcast(&e->prove_work); /* its other workers see it and stop */
    pthread_mutex_unlock(&e->lock);
    if (it.reserved) cz_budget_release(&e->budget, it.reserved);
    pthread_mutex_lock(&e->lock);
    return 1;
}

static void *prove_worker(void *arg) {
    prove_worker_arg *pa = arg;
    cz_engine *e = pa->e;
    uint32_t w = pa->index;
    backend_slot *slot = &e->slots[pa->slot];
    free(pa);
    worker_lane = CZ_TRACE_LANE_PROVE + w < CZ_TRACE_LANE_SYNTH ? CZ_TRACE_LANE_PROVE + w
                                                                : CZ_TRACE_LANE_SYNTH - 1;
    if (e->tracing) {
        char name[48];
        snprintf(name, sizeof name, "prove %u (%s)", w, slot->backend->info.name);
        cz_trace_name_lane(&e->trace, worker_lane, name);
    }
    cz_parallel_set_thread_limit(e->prove_thread_limit);
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && !slot->out_of_service && e->prove.n == 0)
            pthread_cond_wait(&e->prove_work, &e->lock);
        if (e->stop || slot->out_of_service) break;
        item it = heap_take(&e->prove, prove_pick(e, slot));
        pthread_cond_broadcast(&e->prove_room);
        job *j = it.j;
        int drop = j->cancel || j->failed;
        if (!drop) note_circuit(e, slot, j);
        e->prove_busy++;
        engine_unlock(e);

        cz_error uerr = {0};
        cz_status st = CZ_OK;
        void *pending = NULL;
        if (!drop) {
            timeline(e, "GPU_START", j, "%u worker=%u backend=%s", it.unit, w,
                     slot->backend->info.name);
            uint64_t t0 = cz_now_ns();
            cz_prove_context pc = {slot->backend, j->id, j->kind, j->plan.circuit_id};
            step_ctx sc = {e, j, (int32_t)it.unit};
            cz_gpu_set_step_hook(gpu_step, &sc);
            /* A cancel stops the prover at its next step (util/cancel.h). */
            cz_cancel_set_flag(&j->cancel);
            st = j->ops->prove_start(j->state, it.unit, it.data,
                                     j->plan.circuit_id[0] ? &j->srs : NULL, &pc, &pending, &uerr);
            cz_cancel_set_flag(NULL);
            cz_gpu_set_step_hook(NULL, NULL);
            uint64_t dt = cz_now_ns() - t0;
            span(e, "prove", j, (int32_t)it.unit, t0, t0 + dt);
            if (e->tracing)
                cz_trace_add(&e->trace, "prove queue", j->id, (int32_t)it.unit, CZ_TRACE_LANE_QUEUE,
                             it.t_ready, t0);
            if (e->progress && st == CZ_OK)
                fprintf(e->progress,
                        "job %s: partition %u of %u proven on %s in %.2f s (%.2f s queued)\n",
                        j->id, it.unit + 1, j->plan.units, slot->backend->info.name,
                        (double)dt / 1e9, (double)(t0 - it.t_ready) / 1e9);
            it.data = NULL; /* consumed by prove_start */
            timeline(e, "GPU_END", j, "%u", it.unit);
            pthread_mutex_lock(&e->lock);
            j->prove_ns += dt;
            engine_unlock(e);
            /* The synthesized vectors are gone: keep only what finalize needs. */
            uint64_t keep = j->plan.unit_bytes_after;
            if (it.reserved > keep) {
                cz_budget_release(&e->budget, it.reserved - keep);
                it.reserved = keep;
            }
        } else {
            j->ops->discard(j->state, it.unit, it.data, 0);
            it.data = NULL;
        }
        pthread_mutex_lock(&e->lock);
        e->prove_busy--;
        if (!drop && st == CZ_E_CUDA && take_out_of_service(e, slot, j, it, &uerr)) break;
        if (!drop && st == CZ_OK) {
            it.data = pending;
            if (fifo_push(&e->finish, it)) {
                pthread_cond_signal(&e->finish_work);
                continue;
            }
            st = cz_error_set(&uerr, CZ_E_NOMEM, "engine: out of memory");
            j->ops->discard(j->state, it.unit, pending, 1);
        }
        engine_unlock(e);
        unit_end(e, j, it.reserved, drop ? CZ_OK : st, &uerr);
    }
    engine_unlock(e);
    return NULL;
}

static void *finish_worker(void *arg) {
    cz_engine *e = arg;
    worker_lane = CZ_TRACE_LANE_FINALIZER;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && e->finish.n == 0) pthread_cond_wait(&e->finish_work, &e->lock);
        if (e->stop) break;
        item it = fifo_pop(&e->finish);
        job *j = it.j;
        int drop = j->cancel || j->failed;
        engine_unlock(e);
        cz_error uerr = {0};
        cz_status st = CZ_OK;
        if (drop) {
            j->ops->discard(j->state, it.unit, it.data, 1);
        } else {
            uint64_t t0 = cz_now_ns();
            st = j->ops->prove_finish(j->state, it.unit, it.data,
                                      j->plan.circuit_id[0] ? &j->srs : NULL,
                                      j->proof + (size_t)it.unit * j->plan.unit_proof_bytes, &uerr);
            uint64_t dt = cz_now_ns() - t0;
            span(e, "finalize", j, (int32_t)it.unit, t0, t0 + dt);
            timeline(e, "FINALIZE_END", j, "%u", it.unit);
            pthread_mutex_lock(&e->lock);
            j->prove_ns += dt;
            engine_unlock(e);
        }
        unit_end(e, j, it.reserved, drop ? CZ_OK : st, &uerr);
    }
    engine_unlock(e);
    return NULL;
}

/* Prunes finished jobs past their retention, once a second. */
static void *janitor(void *arg) {
    cz_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&e->janitor_wake, &e->lock, &ts);
        uint64_t now = cz_now_ns();
        job **pp = &e->jobs;
        while (*pp) {
            job *j = *pp;
            if (j->phase == PHASE_DONE && now - j->t_end >= e->retention_ns) {
                *pp = j->next;
                j->pruned = 1;
                if (j->refs == 0) job_free(j);
            } else {
                pp = &j->next;
            }
        }
    }
    engine_unlock(e);
    return NULL;
}

/* ---- life cycle ---- */

cz_status cz_engine_create(cz_engine **out, const cz_engine_config *cfg, cz_error *err) {
    *out = NULL;
    cz_engine *e = calloc(1, sizeof *e);
    if (!e) return cz_error_set(err, CZ_E_NOMEM, "engine: out of memory");
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->steps_lock, NULL);
    pthread_cond_init(&e->work, NULL);
    pthread_cond_init(&e->prove_work, NULL);
    pthread_cond_init(&e->prove_room, NULL);
    pthread_cond_init(&e->finish_work, NULL);
    pthread_cond_init(&e->job_done, NULL);
    pthread_cond_init(&e->janitor_wake, NULL);
    pthread_cond_init(&e->load_work, NULL);
    e->log_tail = &e->log_head;
    e->t_start = cz_now_ns();
    uint64_t total = cfg->memory_budget_bytes;
    if (!total) {
        uint64_t phys = cz_physical_memory_bytes();
        if (!phys) phys = 16ull << 30;
        /* What the engine's estimates do not see (the process's own code and
         * buffers, page cache of mapped files, the system) needs room. */
        uint64_t margin = cfg->safety_margin_bytes ? cfg->safety_margin_bytes : 5ull << 30;
        total = phys > 2 * margin ? phys - margin : phys / 2;
    }
    cz_budget_init(&e->budget, total);
    cz_srs_init(&e->srs, &e->budget, cfg->param_cache ? cfg->param_cache : ".",
                cfg->srs_eviction_min_idle_ms);
    e->ops[CZ_PROOF_POREP] = &cz_job_ops_porep;
    e->ops[CZ_PROOF_WINDOW_POST] = &cz_job_ops_post;
    e->ops[CZ_PROOF_WINNING_POST] = &cz_job_ops_post;
    e->ops[CZ_PROOF_SNAP] = &cz_job_ops_snap;
    for (int k = 0; k < CZ_PROOF_KIND_COUNT; k++)
        if (cfg->ops[k]) e->ops[k] = cfg->ops[k];
    e->prove_thread_limit = cfg->prove_threads;
    e->progress = cfg->progress;
    cz_trace_init(&e->trace);
    if (cfg->trace_path && *cfg->trace_path) {
        e->tracing = 1;
        snprintf(e->trace_path, sizeof e->trace_path, "%s", cfg->trace_path);
        cz_trace_name_lane(&e->trace, CZ_TRACE_LANE_JOBS, "SRS loader");
        cz_trace_name_lane(&e->trace, CZ_TRACE_LANE_FINALIZER, "finalize, verify");
        cz_trace_name_lane(&e->trace, CZ_TRACE_LANE_QUEUE, "prove queue");
    }
    e->retention_ns = cfg->result_retention_ms * 1000000ull;
    e->timeline = cfg->timeline;
    e->n_synth = cfg->synthesis_workers ? cfg->synthesis_workers : 1;
    /* The back-end contexts: the caller's (tests), else from the choice. */
    if (cfg->n_backends) {
        e->n_backends =
            cfg->n_backends < CZ_ENGINE_MAX_BACKENDS ? cfg->n_backends : CZ_ENGINE_MAX_BACKENDS;
        for (uint32_t i = 0; i < e->n_backends; i++) e->slots[i].backend = cfg->backends[i];
        for (uint32_t i = e->n_backends; i < cfg->n_backends; i++)
            cz_backend_destroy(cfg->backends[i]);
    } else {
        cz_backend *made[CZ_ENGINE_MAX_BACKENDS];
        cz_status bst = cz_backends_create(made, &e->n_backends, CZ_ENGINE_MAX_BACKENDS, cfg, err);
        if (bst != CZ_OK) {
            cz_engine_destroy(e);
            return bst;
        }
        for (uint32_t i = 0; i < e->n_backends; i++) e->slots[i].backend = made[i];
    }
    for (uint32_t i = 0; i < e->n_backends; i++)
        if (!strcmp(e->slots[i].backend->ops->kind, "cpu")) e->host_evaluation = 1;
    /* Keys straight from the file to the devices when every context can
     * hold one (CZ_SRS_HOST_POINTS=1 keeps the host decode, to compare). */
    int all_resident = e->n_backends > 0;
    for (uint32_t i = 0; i < e->n_backends; i++)
        if (!e->slots[i].backend->ops->hold) all_resident = 0;
    const char *host_points = getenv("CZ_SRS_HOST_POINTS");
    if (all_resident && !(host_points && !strcmp(host_points, "1")))
        cz_srs_set_device_loader(&e->srs, device_load, e);
    uint32_t per = cfg->prove_workers ? cfg->prove_workers : 1;
    if (per * e->n_backends > MAX_PROVE_WORKERS) per = MAX_PROVE_WORKERS / e->n_backends;
    e->n_prove = per * e->n_backends;
    e->prove_queue_depth = cfg->prove_queue_depth ? cfg->prove_queue_depth : e->n_prove;
    e->max_batch = cfg->max_batch_size ? cfg->max_batch_size : 1;
    e->max_batch_wait_ns = cfg->max_batch_wait_ms > UINT64_MAX / 1000000ull
                               ? UINT64_MAX
                               : cfg->max_batch_wait_ms * 1000000ull;
    e->synth_threads = calloc(e->n_synth, sizeof(pthread_t));
    e->prove_threads = calloc(e->n_prove, sizeof(pthread_t));
    if (!e->synth_threads || !e->prove_threads) {
        cz_engine_destroy(e);
        return cz_error_set(err, CZ_E_NOMEM, "engine: out of memory");
    }
    /* started_*: threads that run (the counters move only on success), so
     * a failure joins exactly those. */
    int rc = 0;
    uint32_t started_s = 0, started_p = 0;
    while (started_s < e->n_synth && !rc) {
        rc = pthread_create(&e->synth_threads[started_s], NULL, synthesis_worker, e);
        if (!rc) started_s++;
    }
    while (started_p < e->n_prove && !rc) {
        prove_worker_arg *pa = malloc(sizeof *pa);
        if (!pa) {
            rc = ENOMEM;
            break;
        }
        pa->e = e;
        pa->index = started_p;
        pa->slot = started_p / per;
        rc = pthread_create(&e->prove_threads[started_p], NULL, prove_worker, pa);
        if (rc)
            free(pa);
        else
            started_p++;
    }
    if (!rc) rc = pthread_create(&e->finish_thread, NULL, finish_worker, e);
    int janitor_started = 0, finish_started = 0;
    if (!rc) finish_started = 1;
    if (!rc) rc = pthread_create(&e->janitor_thread, NULL, janitor, e);
    if (!rc) janitor_started = 1;
    if (!rc) rc = pthread_create(&e->loader_thread, NULL, srs_loader, e);
    if (rc) {
        /* Some threads run: stop and join exactly those. */
        pthread_mutex_lock(&e->lock);
        e->stop = 1;
        pthread_cond_broadcast(&e->work);
        pthread_cond_broadcast(&e->prove_work);
        pthread_cond_broadcast(&e->finish_work);
        pthread_cond_broadcast(&e->janitor_wake);
        engine_unlock(e);
        for (uint32_t i = 0; i < started_s; i++) pthread_join(e->synth_threads[i], NULL);
        for (uint32_t i = 0; i < started_p; i++) pthread_join(e->prove_threads[i], NULL);
        if (finish_started) pthread_join(e->finish_thread, NULL);
        cz_trace_free(&e->trace);
        if (janitor_started) pthread_join(e->janitor_thread, NULL);
        free(e->synth_threads);
        free(e->prove_threads);
        for (uint32_t i = 0; i < e->n_backends; i++) cz_backend_destroy(e->slots[i].backend);
        cz_srs_destroy(&e->srs);
        cz_budget_destroy(&e->budget);
        free(e);
        return cz_error_set(err, CZ_E_NOMEM, "engine: cannot start worker threads: %s",
                            strerror(rc));
    }
    cz_log(CZ_LOG_INFO,
           "engine: budget %.2f GiB, %u synthesis worker(s), %u prove worker(s) on %u back-end "
           "context(s), prove queue %u, same-circuit runs up to %u (max wait %" PRIu64 " ms)",
           (double)total / (1u << 30), e->n_synth, e->n_prove, e->n_backends, e->prove_queue_depth,
           e->max_batch, cfg->max_batch_wait_ms);
    for (uint32_t i = 0; i < e->n_backends; i++) {
        const cz_backend_info *bi = &e->slots[i].backend->info;
        char budget[96] = "";
        if (bi->device >= 0)
            snprintf(budget, sizeof budget, ", budget %.1f of %.1f GiB",
                     (double)bi->memory_budget / (1u << 30), (double)bi->memory_total / (1u << 30));
        cz_log(CZ_LOG_INFO, "engine: back-end %s: %s%s, %u prove worker(s)", bi->name,
               bi->description, budget, per);
    }
    *out = e;
    return CZ_OK;
}

static int jobs_active(cz_engine *e) {
    for (job *j = e->jobs; j; j = j->next)
        if (j->phase != PHASE_DONE) return 1;
    return 0;
}

uint32_t cz_engine_drain(cz_engine *e, uint64_t timeout_ms) {
    uint64_t deadline = cz_now_ns() + timeout_ms * 1000000ull;
    uint32_t cancelled = 0;
    pthread_mutex_lock(&e->lock);
    e->draining = 1;
    while (jobs_active(e) && cz_now_ns() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&e->job_done, &e->lock, &ts);
    }
    /* cancel_job may drop the lock (it ends queued units): the scan starts
     * over after each one instead of following a list that may change. */
    for (int again = 1; again;) {
        again = 0;
        for (job *j = e->jobs; j; j = j->next)
            if (j->phase != PHASE_DONE && !j->cancel) {
                cancel_job(e, j);
                cancelled++;
                again = 1;
                break;
            }
    }
    while (jobs_active(e)) pthread_cond_wait(&e->job_done, &e->lock);
    engine_unlock(e);
    return cancelled;
}

void cz_engine_destroy(cz_engine *e) {
    if (!e) return;
    if (e->synth_threads && e->prove_threads) cz_engine_drain(e, 0);
    pthread_mutex_lock(&e->lock);
    e->stop = 1;
    pthread_cond_broadcast(&e->work);
    pthread_cond_broadcast(&e->prove_work);
    pthread_cond_broadcast(&e->prove_room);
    pthread_cond_broadcast(&e->finish_work);
    pthread_cond_broadcast(&e->janitor_wake);
    pthread_cond_broadcast(&e->load_work);
    engine_unlock(e);
    if (e->synth_threads && e->prove_threads) {
        for (uint32_t i = 0; i < e->n_synth; i++) pthread_join(e->synth_threads[i], NULL);
        for (uint32_t i = 0; i < e->n_prove; i++) pthread_join(e->prove_threads[i], NULL);
        pthread_join(e->finish_thread, NULL);
        pthread_join(e->janitor_thread, NULL);
        pthread_join(e->loader_thread, NULL);
    }
    /* Every job is done (drained); queue items left are stale references. */
    heap *stale[2] = {&e->synth, &e->load};
    for (int q = 0; q < 2; q++)
        for (size_t i = 0; i < stale[q]->n; i++) {
            job *sj = stale[q]->v[i].j;
            if (--sj->refs == 0 && sj->pruned) job_free(sj);
        }
    job *j = e->jobs;
    while (j) {
        job *next = j->next;
        job_free(j);
        j = next;
    }
    free(e->synth.v);
    free(e->prove.v);
    free(e->finish.v);
    free(e->load.v);
    free(e->synth_threads);
    free(e->prove_threads);
    for (uint32_t i = 0; i < e->n_backends; i++) cz_backend_destroy(e->slots[i].backend);
    if (e->tracing) {
        cz_error terr = {0};
        if (cz_trace_write(&e->trace, e->trace_path, &terr) == CZ_OK)
            fprintf(stderr, "engine: trace of %zu spans written to %s\n", e->trace.n,
                    e->trace_path);
        else
            fprintf(stderr, "engine: %s\n", terr.message);
    }
    cz_trace_free(&e->trace);
    cz_srs_destroy(&e->srs);
    cz_budget_destroy(&e->budget);
    pthread_mutex_lock(&e->lock);
    engine_unlock(e); /* writes what is still queued */
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* ---- status, metrics, SRS ---- */

void cz_engine_get_status(cz_engine *e, cz_engine_status *out) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->lock);
    out->uptime_seconds = (cz_now_ns() - e->t_start) / 1000000000ull;
    for (int k = 0; k < CZ_PROOF_KIND_COUNT; k++) {
        out->completed += e->counters[k].completed;
        out->failed += e->counters[k].failed;
        out->cancelled += e->counters[k].cancelled;
    }
    for (job *j = e->jobs; j; j = j->next) {
        if (j->phase == PHASE_DONE) continue;
        if (j->phase == PHASE_QUEUED || (j->phase == PHASE_RUNNING && !j->started))
            out->queues[j->kind].pending++;
        else
            out->queues[j->kind].in_progress++;
    }
    out->prove_workers = e->n_prove;
    out->prove_workers_busy = e->prove_busy;
    out->gpu_circuit_switches = e->circuit_switches;
    out->n_backends = e->n_backends;
    out->backend_name = e->n_backends ? e->slots[0].backend->ops->kind : "none";
    engine_unlock(e);
    for (uint32_t i = 0; i < e->n_backends; i++)
        cz_backend_get_info(e->slots[i].backend, &out->backends[i]);
    pthread_mutex_lock(&e->lock);
    for (uint32_t i = 0; i < e->n_backends; i++)
        out->backends[i].out_of_service = e->slots[i].out_of_service;
    pthread_mutex_unlock(&e->lock);
    cz_budget_usage(&e->budget, &out->memory_used_bytes, &out->memory_total_bytes);
    out->n_srs = cz_srs_list(&e->srs, out->srs, sizeof out->srs / sizeof out->srs[0]);
    pthread_mutex_lock(&e->steps_lock);
    out->n_steps = e->n_steps;
    memcpy(out->steps, e->steps, e->n_steps * sizeof e->steps[0]);
    pthread_mutex_unlock(&e->steps_lock);
}

typedef struct {
    char *buf;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n;
        char *p = realloc(b->buf, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->buf = p;
        b->cap = cap;
    }
}

cz_status cz_engine_metrics(cz_engine *e, char **text, cz_error *err) {
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    kind_counters c[CZ_PROOF_KIND_COUNT];
    pthread_mutex_lock(&e->lock);
    memcpy(c, e->counters, sizeof c);
    size_t synth_q = e->synth.n, prove_q = e->prove.n;
    engine_unlock(e);
    sbuf b = {malloc(4096), 0, 4096, 0};
    if (!b.buf) return cz_error_set(err, CZ_E_NOMEM, "metrics: out of memory");
    sb_printf(&b, "# HELP cuzk_proofs_completed_total Proofs completed (verified).\n"
                  "# TYPE cuzk_proofs_completed_total counter\n");
    sb_printf(&b, "cuzk_proofs_completed_total %" PRIu64 "\n", s.completed);
    sb_printf(&b, "# HELP cuzk_proofs_failed_total Proofs failed.\n"
                  "# TYPE cuzk_proofs_failed_total counter\n");
    sb_printf(&b, "cuzk_proofs_failed_total %" PRIu64 "\n", s.failed);
    sb_printf(&b, "# HELP cuzk_proofs_cancelled_total Proofs cancelled.\n"
                  "# TYPE cuzk_proofs_cancelled_total counter\n");
    sb_printf(&b, "cuzk_proofs_cancelled_total %" PRIu64 "\n", s.cancelled);
    sb_printf(&b, "# TYPE cuzk_proofs_completed counter\n");
    for (int k = 1; k < CZ_PROOF_KIND_COUNT; k++)
        sb_printf(&b, "cuzk_proofs_completed{proof_kind=\"%s\"} %" PRIu64 "\n",
                  kind_metric_label((cz_proof_kind)k), c[k].completed);
    sb_printf(&b, "# TYPE cuzk_proofs_failed counter\n");
    for (int k = 1; k < CZ_PROOF_KIND_COUNT; k++)
        sb_printf(&b, "cuzk_proofs_failed{proof_kind=\"%s\"} %" PRIu64 "\n",
                  kind_metric_label((cz_proof_kind)k), c[k].failed);
    sb_printf(&b, "# HELP cuzk_proof_duration_seconds Submission to verified result, completed "
                  "proofs (all time).\n# TYPE cuzk_proof_duration_seconds summary\n");
    for (int k = 1; k < CZ_PROOF_KIND_COUNT; k++) {
        const char *l = kind_metric_label((cz_proof_kind)k);
        sb_printf(&b, "cuzk_proof_duration_seconds_count{proof_kind=\"%s\"} %" PRIu64 "\n", l,
                  c[k].completed);
        sb_printf(&b, "cuzk_proof_duration_seconds_sum{proof_kind=\"%s\"} %.3f\n", l,
                  c[k].duration_sum_s);
    }
    uint32_t pending = 0, running = 0;
    for (int k = 0; k < CZ_PROOF_KIND_COUNT; k++) {
        pending += s.queues[k].pending;
        running += s.queues[k].in_progress;
    }
    sb_printf(&b, "# TYPE cuzk_uptime_seconds gauge\ncuzk_uptime_seconds %" PRIu64 "\n",
              s.uptime_seconds);
    sb_printf(&b,
              "# HELP cuzk_queue_depth Jobs submitted and not started.\n"
              "# TYPE cuzk_queue_depth gauge\ncuzk_queue_depth %u\n",
              pending);
    sb_printf(&b, "# TYPE cuzk_running_jobs gauge\ncuzk_running_jobs %u\n", running);
    sb_printf(&b, "# TYPE cuzk_synthesis_queue_items gauge\ncuzk_synthesis_queue_items %zu\n",
              synth_q);
    sb_printf(&b, "# TYPE cuzk_prove_queue_items gauge\ncuzk_prove_queue_items %zu\n", prove_q);
    sb_printf(&b, "# TYPE cuzk_gpu_workers gauge\ncuzk_gpu_workers %u\n", s.prove_workers);
    sb_printf(&b, "# TYPE cuzk_gpu_workers_busy gauge\ncuzk_gpu_workers_busy %u\n",
              s.prove_workers_busy);
    sb_printf(&b, "# HELP cuzk_backend_busy_seconds_total Time a back-end context spent "
                  "proving units.\n# TYPE cuzk_backend_busy_seconds_total counter\n");
    for (uint32_t i = 0; i < s.n_backends; i++)
        sb_printf(&b, "cuzk_backend_busy_seconds_total{backend=\"%s\"} %.3f\n", s.backends[i].name,
                  (double)s.backends[i].busy_ns / 1e9);
    sb_printf(&b, "# TYPE cuzk_backend_units_total counter\n");
    for (uint32_t i = 0; i < s.n_backends; i++)
        sb_printf(&b, "cuzk_backend_units_total{backend=\"%s\"} %" PRIu64 "\n", s.backends[i].name,
                  s.backends[i].units);
    sb_printf(&b, "# HELP cuzk_backend_in_service 0 once a device error took the context out of "
                  "service.\n# TYPE cuzk_backend_in_service gauge\n");
    for (uint32_t i = 0; i < s.n_backends; i++)
        sb_printf(&b, "cuzk_backend_in_service{backend=\"%s\"} %d\n", s.backends[i].name,
                  !s.backends[i].out_of_service);
    sb_printf(&b, "# TYPE cuzk_backend_failures_total counter\n");
    for (uint32_t i = 0; i < s.n_backends; i++)
        sb_printf(&b, "cuzk_backend_failures_total{backend=\"%s\"} %" PRIu64 "\n",
                  s.backends[i].name, s.backends[i].failures);
    sb_printf(&b, "# HELP cuzk_backend_device_memory_bytes Device memory a context holds, its "
                  "budget and the device's size.\n# TYPE cuzk_backend_device_memory_bytes gauge\n");
    for (uint32_t i = 0; i < s.n_backends; i++) {
        const cz_engine_backend_info *bi = &s.backends[i];
        if (bi->device < 0) continue;
        sb_printf(&b,
                  "cuzk_backend_device_memory_bytes{backend=\"%s\",kind=\"used\"} %" PRIu64 "\n"
                  "cuzk_backend_device_memory_bytes{backend=\"%s\",kind=\"budget\"} %" PRIu64 "\n"
                  "cuzk_backend_device_memory_bytes{backend=\"%s\",kind=\"total\"} %" PRIu64 "\n",
                  bi->name, bi->memory_used, bi->name, bi->memory_budget, bi->name,
                  bi->memory_total);
    }
    sb_printf(&b, "# HELP cuzk_backend_resident_circuit The circuit whose key a context keeps "
                  "(1 per context and circuit).\n# TYPE cuzk_backend_resident_circuit gauge\n");
    for (uint32_t i = 0; i < s.n_backends; i++)
        if (s.backends[i].resident_circuit[0])
            sb_printf(&b, "cuzk_backend_resident_circuit{backend=\"%s\",circuit_id=\"%s\"} 1\n",
                      s.backends[i].name, s.backends[i].resident_circuit);
    sb_printf(&b, "# HELP cuzk_gpu_step_seconds_total Time in each step of the GPU prover, all "
                  "units.\n# TYPE cuzk_gpu_step_seconds_total counter\n");
    for (size_t i = 0; i < s.n_steps; i++)
        sb_printf(&b, "cuzk_gpu_step_seconds_total{step=\"%s\"} %.3f\n", s.steps[i].name,
                  (double)s.steps[i].total_ns / 1e9);
    sb_printf(&b,
              "# HELP cuzk_gpu_circuit_switches_total Prove units whose circuit differed from "
              "the previous unit's (a GPU re-uploads its parameters).\n"
              "# TYPE cuzk_gpu_circuit_switches_total counter\n"
              "cuzk_gpu_circuit_switches_total %" PRIu64 "\n",
              s.gpu_circuit_switches);
    sb_printf(&b, "# TYPE cuzk_memory_budget_bytes gauge\ncuzk_memory_budget_bytes %" PRIu64 "\n",
              s.memory_total_bytes);
    sb_printf(&b,
              "# TYPE cuzk_memory_reserved_bytes gauge\ncuzk_memory_reserved_bytes %" PRIu64 "\n",
              s.memory_used_bytes);
    sb_printf(&b, "# HELP cuzk_srs_tier SRS tier per circuit (0 hot, 1 warm, 2 cold).\n"
                  "# TYPE cuzk_srs_tier gauge\n");
    for (size_t i = 0; i < s.n_srs; i++)
        sb_printf(&b, "cuzk_srs_tier{circuit_id=\"%s\"} %d\n", s.srs[i].circuit_id,
                  (int)s.srs[i].tier);
    sb_printf(&b, "# TYPE cuzk_peak_rss_bytes gauge\ncuzk_peak_rss_bytes %" PRIu64 "\n",
              cz_peak_rss_bytes());
    if (b.oom) {
        free(b.buf);
        return cz_error_set(err, CZ_E_NOMEM, "metrics: out of memory");
    }
    *text = b.buf;
    return CZ_OK;
}

cz_status cz_engine_preload(cz_engine *e, const char *circuit_id, int *already_loaded,
                            uint64_t *load_ms, cz_error *err) {
    *already_loaded = 0;
    *load_ms = 0;
    return cz_srs_preload(&e->srs, circuit_id ? circuit_id : "", already_loaded, load_ms, err);
}

cz_status cz_engine_evict(cz_engine *e, const char *circuit_id, int *was_loaded,
                          uint64_t *freed_bytes, cz_error *err) {
    const char *id = circuit_id ? circuit_id : "";
    cz_status st = cz_srs_evict(&e->srs, id, was_loaded, freed_bytes, err);
    if (st != CZ_OK) return st;
    /* The host SRS is not in use (else cz_srs_evict refused), so no unit of
     * it is in a context: what the devices keep of it goes too. */
    for (uint32_t i = 0; i < e->n_backends; i++) {
        uint64_t dev = cz_backend_release(e->slots[i].backend, id);
        if (dev) *was_loaded = 1;
        *freed_bytes += dev;
    }
    return CZ_OK;
}
