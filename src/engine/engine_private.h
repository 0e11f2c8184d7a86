/* What the engine's files share (private to src/engine; the API is
 * cuzk/engine.h, a job's life is engine/job.h): the engine and job structs,
 * the queues, and the functions one file calls in another.
 *
 *   engine.c    life cycle (create, drain, destroy), worker counts
 *   workers.c   the synthesis, prove and finish workers, the janitor
 *               (retention)
 *   prepare.c   a job's preparation, its SRS (hot, or the SRS loader
 *               thread), key upload to a context
 *   jobs.c      job table, request ids, submit / await / cancel, results,
 *               how a unit and a job end
 *   schedule.c  the queues (heaps, FIFO), prove_pick, same-circuit runs,
 *               admission, the CRITICAL memory reserve, synthesis
 *               backpressure and the critical lane
 *   events.c    log lines made under the lock, TIMELINE lines, trace spans
 *   metrics.c   status, Prometheus text, preload / evict
 * Calls go down that list only (metrics.c beside engine.c, at the top):
 * no file calls into one above it, so each can be read knowing only
 * those below.
 *
 * Locking. One mutex, e->lock, guards the job table, the queues, the
 * counters, the back-end slots and every job's bookkeeping fields; no op,
 * SRS load, budget wait or log write runs under it (lines made under it go
 * through cz_eng_defer_log_locked and are written by cz_eng_unlock, which
 * every unlock of e->lock goes through). One rule for every function here:
 *   - a name ending in `_locked` is called with e->lock held and returns
 *     with it held; where it drops the lock in between (to run an op or to
 *     end a job), its comment says so and the caller must re-check what it
 *     read before the call;
 *   - every other function that takes the engine is called without e->lock
 *     and returns without it;
 *   - the functions on a queue or a job alone (the heap and FIFO
 *     operations, cz_eng_item_before, cz_eng_find_unit_of, cz_eng_job_free)
 *     take no lock; their callers hold e->lock whenever the queue or the
 *     job is shared.
 * No function returns with the lock in another state than it found it,
 * but cz_eng_unlock.
 * A job is freed when it has been pruned from the table and no queue item,
 * running op or waiter refers to it (job->refs == 0). */
#ifndef CZ_ENGINE_PRIVATE_H
#define CZ_ENGINE_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/engine.h"
#include "engine/budget.h"
#include "engine/job.h"
#include "engine/srs.h"
#include "engine/trace.h"
#include "util/hist.h"
#include "util/log.h"

#define CZ_ENG_PREPARE_UNIT      UINT32_MAX
#define CZ_ENG_MAX_PROVE_WORKERS 64
/* Worker counts the configuration leaves to the engine (engine.c). */
#define CZ_ENG_CPU_SYNTHESIS_WORKERS 2
#define CZ_ENG_DEVICE_PROVE_WORKERS  2
/* on devices with less memory for keys than CZ_ENG_SMALL_DEVICE_BYTES
 * (the cards a 32 GiB PoRep key streams on, lean): one more prove worker,
 * whose unit shares the passes over the streamed points (engine.c) */
#define CZ_ENG_SMALL_DEVICE_PROVE_WORKERS 4
#define CZ_ENG_SMALL_DEVICE_BYTES         ((uint64_t)40 << 30)

typedef enum { CZ_ENG_QUEUED, CZ_ENG_PREPARING, CZ_ENG_RUNNING, CZ_ENG_DONE } cz_eng_phase;

typedef struct cz_eng_job {
    struct cz_eng_job *next; /* job table */
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

    cz_eng_phase phase;
    cz_job_status final;
    char error[512];
    cz_status error_status; /* set with error: the failed step's status */
    atomic_int cancel;      /* also read without the engine lock (budget and SRS waits) */
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
    int admitted;       /* may take its SRS (admission passed), or queued units without one */
    uint64_t srs_bytes; /* of plan.circuit_id when hot */
    int refs;           /* queue items, running ops and waiters */
    int pruned;         /* out of the table */
} cz_eng_job;

typedef struct {
    cz_eng_job *j;
    uint32_t unit;     /* CZ_ENG_PREPARE_UNIT: the job's prepare item */
    void *data;        /* synth (prove heap) or pending (finish queue) */
    uint64_t reserved; /* budget bytes held by this unit */
    uint64_t t_ready;  /* cz_now_ns() when it entered the prove heap */
    int no_nest;       /* never run inside another unit (a nested run found no device memory) */
    int prepped;       /* its data carries host work done ahead (counted in preps_ahead) */
    int prep_retried;  /* taken out of the prove heap once for host work ahead (workers.c) */
    int abc_shed;      /* its a, b, c left its reservation after its host work ahead (workers.c) */
    int keep_abc;      /* reserves its a, b, c to the end (a context refused it without them) */
} cz_eng_item;

/* A binary heap ordered by cz_eng_item_before, or a FIFO (finish queue). */
typedef struct {
    cz_eng_item *v;
    size_t n, cap;
} cz_eng_heap;

typedef struct {
    uint64_t completed, failed, cancelled;
    double duration_sum_s;
} cz_eng_kind_counters;

#define CZ_ENG_HOOKED_MAX 8

/* A back-end context and what the scheduler remembers of it. */
typedef struct {
    cz_backend *backend;
    int out_of_service; /* its device failed: its workers stopped */
    int have_last;
    cz_proof_kind last_kind;
    char last_circuit[32];
    uint32_t run_len;
    uint32_t busy_workers; /* its prove workers with a unit taken (prove_pick's affinity) */
    /* jobs of the units its workers prove with a preemption hook (below
     * CRITICAL, not nested): a unit that would nest in one of them is left
     * to that hook (cz_eng_prove_pick_locked); more than the array holds
     * go unrecorded (those free workers then take it as before) */
    const cz_eng_job *hooked[CZ_ENG_HOOKED_MAX];
    uint32_t n_hooked;
} cz_eng_slot;

typedef struct cz_eng_deferred_line cz_eng_deferred_line;
typedef struct cz_eng_dead_state cz_eng_dead_state;

struct cz_engine {
    pthread_mutex_t lock;
    pthread_cond_t work;       /* synth heap changed or stop */
    pthread_cond_t prove_work; /* prove heap changed */
    pthread_cond_t prove_room; /* prove heap shrank, a job was cancelled or failed, or
                                  an item entered the synth heap */
    pthread_cond_t finish_work;
    pthread_cond_t job_done; /* a job reached CZ_ENG_DONE */
    pthread_cond_t janitor_wake;
    pthread_cond_t load_work;
    int stop, draining;
    int loader_busy; /* the SRS loader holds a job (loading or waiting for memory) */

    cz_eng_job *jobs;
    uint64_t next_seq;
    cz_eng_heap synth, prove, finish, load;
    uint32_t prove_queue_depth;
    uint32_t prove_blocked; /* synthesis workers waiting for the prove heap to shrink */
    /* Run-ahead bound (cz_engine_config.partitions_ahead): units being
     * synthesized per priority (taken from the synth heap, not yet in the
     * prove heap or dropped); schedule.c's cz_eng_synth_ready_locked. */
    uint32_t partitions_ahead;
    int synthesis_nice; /* cz_engine_config's, at most 19 */
    uint32_t synthesizing[CZ_PRIORITY_CRITICAL + 1];

    /* Same-circuit runs (prove_pick): per back-end context, the circuit of
     * the last unit its workers took and how many in a row; how often a
     * context changed circuit. */
    uint32_t max_batch;
    uint64_t max_batch_wait_ns;
    cz_eng_slot slots[CZ_ENGINE_MAX_BACKENDS];
    uint32_t n_backends;
    uint64_t circuit_switches;
    uint64_t preemptions; /* units proven inside another at a step boundary */

    cz_budget budget;
    uint64_t critical_unit; /* the largest CRITICAL partition seen (the reserve's aim) */
    cz_srs_manager srs;
    const cz_job_ops *ops[CZ_PROOF_KIND_COUNT];
    uint32_t prove_thread_limit; /* [gpus] gpu_threads */
    int host_evaluation;         /* some context evaluates a, b, c in host memory (the CPU) */
    uint64_t retention_ns;
    int timeline;
    uint64_t t_start;

    uint32_t n_synth, n_prove; /* n_synth synthesis workers, and one more: the critical lane */
    uint32_t preps_ahead;      /* synthesized units with host work done ahead, not yet taken */
    pthread_t *synth_threads, *prove_threads, finish_thread, janitor_thread, loader_thread;
    uint32_t prove_busy;

    cz_eng_kind_counters counters[CZ_PROOF_KIND_COUNT];

    /* cz_engine_config.trace_path / progress */
    int tracing;
    cz_trace trace;
    char trace_path[4096];
    FILE *progress;
    atomic_uint synth_lanes; /* synthesis workers that took a lane */
    pthread_mutex_t steps_lock;
    struct {
        char name[40];
        cz_hist calls; /* each call's duration, ns */
    } steps[CZ_ENGINE_MAX_STEPS];
    size_t n_steps;
    cz_eng_deferred_line *log_head, **log_tail; /* lines made under the lock */
    cz_eng_dead_state *dead_states;             /* ended jobs' states, to free unlocked */
};

/* ---- events.c ---- */

/* An item leaves the prove heap (taken by a prove worker, or dropped): it
 * no longer counts as prepared ahead (workers.c: prep_ahead). */
static inline void cz_eng_item_taken_locked(cz_engine *e, cz_eng_item *it) {
    if (it->prepped) e->preps_ahead--;
    it->prepped = 0;
}

/* Queues a log line made under e->lock; cz_eng_unlock writes it. */
void cz_eng_defer_log_locked(cz_engine *e, cz_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Queues an ended job's state for cz_eng_unlock to free: a PoRep job's pool
 * of witnesses is tens of GB, and returning it to the system under the
 * lock stalled every worker for seconds. */
void cz_eng_defer_free_state_locked(cz_engine *e, const cz_job_ops *ops, void *state);
/* Unlocks e->lock (the one exception to the rule above: called with it,
 * returns without it), then writes the lines and frees the job states
 * queued under it. */
void cz_eng_unlock(cz_engine *e);
/* TIMELINE lines ([logging] timeline): "TIMELINE,ms since start,event,job,
 * detail". */
void cz_eng_timeline(cz_engine *e, const char *event, const cz_eng_job *j, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cz_eng_timeline_locked(cz_engine *e, const char *event, const cz_eng_job *j, const char *fmt,
                            ...) __attribute__((format(printf, 4, 5)));
/* A span on the calling worker's trace lane. */
void cz_eng_span(cz_engine *e, const char *name, const cz_eng_job *j, int32_t unit, uint64_t t0,
                 uint64_t t1);
/* Sets and reads the calling thread's trace lane. */
void cz_eng_set_lane(uint32_t lane);
uint32_t cz_eng_lane(void);

/* ---- jobs.c ---- */

void cz_eng_job_free(cz_eng_job *j);
/* Drops a reference; frees a pruned job with no references. */
void cz_eng_job_unref_locked(cz_eng_job *j);
/* Ends a job: counters, SRS reference, its state, waiters. msg and why
 * (its status) say why it did not complete, unless a reason is already
 * recorded. */
void cz_eng_job_end_locked(cz_engine *e, cz_eng_job *j, cz_job_status st, cz_status why,
                           const char *msg);
/* Cancels j. A job whose prepare item is still queued ends now; otherwise
 * the workers drop its units at the next boundary and the last one ends it.
 * Drops the lock while it ends queued units (cz_eng_drop_queued_units_locked). */
void cz_eng_cancel_job_locked(cz_engine *e, cz_eng_job *j);
int cz_eng_jobs_active_locked(const cz_engine *e);
/* How units end (a unit's outcome goes to its job; the last one ends the
 * job, cz_eng_finish_job):
 *   cz_eng_unit_end            after a unit ran or was discarded: returns
 *                              its memory reservation, records st, drops
 *                              the caller's reference to the job (takes
 *                              and releases the lock);
 *   cz_eng_unit_dropped_locked a queued unit of a cancelled or failed job
 *                              that never ran (drops the lock while the job
 *                              ends);
 *   cz_eng_drop_synthesized_locked  a synthesized unit taken from the prove
 *                              heap, discarded (drops the lock while its
 *                              discard op runs). */
void cz_eng_unit_end(cz_engine *e, cz_eng_job *j, uint64_t reserved, cz_status st,
                     const cz_error *uerr);
void cz_eng_unit_dropped_locked(cz_engine *e, cz_eng_job *j);
void cz_eng_drop_synthesized_locked(cz_engine *e, cz_eng_item it);
/* All units of j are over: verify and end the job. */
void cz_eng_finish_job(cz_engine *e, cz_eng_job *j);
/* The queued units of a cancelled or failed job end now; drops the lock
 * while their ops run. */
void cz_eng_drop_queued_units_locked(cz_engine *e, cz_eng_job *j);

/* ---- schedule.c ---- */

/* (priority desc, job sequence asc, unit asc); the prepare item first. */
int cz_eng_item_before(const cz_eng_item *a, const cz_eng_item *b);
int cz_eng_heap_push(cz_eng_heap *h, cz_eng_item it); /* 0: out of memory */
/* Removes and returns h->v[i] (any index), keeping the heap order. */
cz_eng_item cz_eng_heap_take(cz_eng_heap *h, size_t i);
cz_eng_item cz_eng_heap_pop(cz_eng_heap *h);
int cz_eng_fifo_push(cz_eng_heap *h, cz_eng_item it); /* 0: out of memory */
cz_eng_item cz_eng_fifo_pop(cz_eng_heap *h);
/* Index of a unit item (not the prepare item) of j in h, or SIZE_MAX. */
size_t cz_eng_find_unit_of(const cz_eng_heap *h, const cz_eng_job *j);
/* Index of a prove heap item whose job is cancelled or failed, or SIZE_MAX. */
size_t cz_eng_prove_dropped_locked(const cz_engine *e);
/* Which prove heap item a prove worker of slot b takes next (the heap is
 * not empty); SIZE_MAX: none for now, every unit is left to a free context
 * that holds its key (the worker waits for prove_work). */
size_t cz_eng_prove_pick_locked(const cz_engine *e, const cz_eng_slot *b);
/* The prove heap item that may run inside a unit of job running on
 * context b at one of its step boundaries (workers.c, preempt_hook), or
 * SIZE_MAX: the best-placed item of a priority above running's that is
 * CRITICAL, or HIGH over NORMAL / LOW, not of a cancelled or failed job,
 * whose key b keeps resident and is not running's (any, on a context that
 * keeps no keys: the CPU). */
size_t cz_eng_preempt_pick_locked(const cz_engine *e, const cz_eng_slot *b,
                                  const cz_eng_job *running);
/* Bookkeeping of the circuit a prove worker of b is about to run. */
void cz_eng_note_circuit_locked(cz_engine *e, cz_eng_slot *b, const cz_eng_job *j);
/* Whether j may take its SRS now (admission). */
int cz_eng_admissible_locked(cz_engine *e, const cz_eng_job *j);
/* Sizes the budget's CRITICAL reserve again after j (NULL: none) was
 * prepared, admitted or ended (schedule.c). */
void cz_eng_reserve_update_locked(cz_engine *e, const cz_eng_job *j);
/* Queues an item for synthesis and wakes the synthesis workers, also those
 * waiting on backpressure (a higher priority lets them go); 0: out of
 * memory. */
int cz_eng_synth_push_locked(cz_engine *e, cz_eng_item it);
/* Whether a synthesis worker has work: any item, or for the critical lane
 * an item of CZ_PRIORITY_CRITICAL at the top. */
int cz_eng_synth_ready_locked(const cz_engine *e, int critical_lane);
/* Backpressure: whether the prove heap holds more units than a synthesis
 * worker waiting on it may let pass (see schedule.c). */
int cz_eng_prove_over_bound_locked(const cz_engine *e);
/* Whether the synth heap's top has a priority above prio. */
int cz_eng_synth_outranks_locked(const cz_engine *e, int prio);
/* Whether the run-ahead bound holds it back (schedule.c). */
int cz_eng_ahead_full_locked(const cz_engine *e, const cz_eng_item *it);

/* ---- prepare.c ---- */

/* Parses and plans a job on a synthesis worker (its prepare item). */
void cz_eng_run_prepare(cz_engine *e, cz_eng_job *j);
/* The SRS loader thread. */
void *cz_eng_srs_loader(void *arg);
/* The SRS manager's device loader (srs.h: cz_srs_device_load_fn). */
cz_status cz_eng_device_load(void *ctx, const char *id, const cz_groth16_params_file *file,
                             const cz_circuit *circuit, cz_error *err);

/* ---- workers.c ---- */

typedef struct {
    cz_engine *e;
    uint32_t index; /* worker number, over all contexts */
    uint32_t slot;  /* its back-end context */
} cz_eng_prove_worker_arg;

void *cz_eng_synthesis_worker(void *arg); /* arg: the engine */
/* cz_backend_hold of slot slot_index's context for job j (NULL: a preload)
 * with the preemption hook of a unit of j around it (workers.c). */
cz_status cz_eng_hold(cz_engine *e, uint32_t slot_index, const cz_eng_job *j,
                      const char *circuit_id, const cz_groth16_params *params,
                      const cz_groth16_params_file *file, const cz_circuit *circuit, int priority,
                      int wait, cz_error *err);
void *cz_eng_prove_worker(void *arg); /* arg: a malloc'd cz_eng_prove_worker_arg, freed */
void *cz_eng_finish_worker(void *arg);
void *cz_eng_janitor(void *arg);

#endif
