/* The engine's worker threads (engine_private.h): synthesis workers (a
 * job's prepare item, then its units under their memory reservations,
 * with backpressure from the prove heap), prove workers (one set per
 * back-end context, prove_start with the GPU step hook and the cancel
 * flag), the finalizer (prove_finish, then a job's self-verification once
 * its last unit is over), and the janitor (prunes ended jobs past their
 * retention). How a unit and a job end is jobs.c's. */
#include <errno.h>
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

#include "engine/engine_private.h"
#include "gpu/gpu.h"
#include "util/cancel.h"
#include "util/parallel.h"

/* The GPU steps of one prove_start: summed by name (the part before " (",
 * so "B tail MSM (2 of 43)" counts as "B tail MSM") for status and
 * metrics, and nested in the unit's span when tracing. */
typedef struct {
    cz_engine *e;
    const cz_eng_job *j;
    int32_t unit;
} step_ctx;

static void gpu_step(void *ctx, const char *step, uint64_t t0, uint64_t t1) {
    step_ctx *sc = ctx;
    cz_engine *e = sc->e;
    cz_eng_span(e, step, sc->j, sc->unit, t0, t1);
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
    if (i < e->n_steps) cz_hist_add(&e->steps[i].calls, t1 - t0);
    pthread_mutex_unlock(&e->steps_lock);
}

static void run_item_locked(cz_engine *e, cz_eng_item it, int critical_lane);

/* A unit's host memory reservation: its plan's, and its a, b, c
 * (plan.unit_abc_bytes) when a context evaluates them in host memory: one
 * whose key of the job's circuit does, or, while no context holds that key,
 * when the job's SRS keeps its points in host memory (a device too small
 * for the key resident streams it, and usually leaves its circuit out too).
 * Those a, b, c (12.9 GB per 32 GiB PoRep partition) live from staging to
 * the unit's end; reserved with the witness, they stay inside the budget
 * (prep_ahead may give them back). The plan's alone when the sum would
 * exceed the whole budget. keep_abc: a, b, c reserved whatever the
 * contexts say (a context refused the unit without them). */
static uint64_t unit_reservation(cz_engine *e, const cz_eng_job *j, int keep_abc) {
    const uint64_t bytes = j->plan.unit_bytes, abc = j->plan.unit_abc_bytes;
    if (!abc) return bytes;
    int host = keep_abc ? 1 : -1;
    for (uint32_t i = 0; i < e->n_backends && host < 1; i++) {
        const int h = cz_backend_host_abc(e->slots[i].backend, j->plan.circuit_id);
        if (h > host) host = h;
    }
    if (host < 0) host = j->srs.params && j->srs.params->h != NULL;
    uint64_t total = 0;
    cz_budget_usage(&e->budget, NULL, &total);
    return host == 1 && bytes + abc <= total ? bytes + abc : bytes;
}

/* The host work a context would do in a unit's staging (job.h: prep; the
 * CUDA context: a, b, c on the CPU for a key whose circuit is not on the
 * device, the packed witness), done by the synthesis worker as soon as the
 * unit is synthesized, on the first context that holds the unit's key. A
 * prove worker stages only once it has a unit: two workers leaving a pass
 * over a streamed key together then staged one after the other while the
 * device waited (2.5 s per 32 GiB partition for a, b, c). At most n_prove
 * units wait prepared, enough for every worker's next unit: a, b, c are
 * 12.9 GB a unit, and the whole prove queue holding them would outgrow the
 * host. 1 when synth carries such work. */
static int prep_ahead(cz_engine *e, cz_eng_job *j, cz_eng_item *it, void *synth) {
    if (!j->ops->prep) return 0;
    cz_backend *in_service[CZ_ENGINE_MAX_BACKENDS];
    uint32_t n = 0;
    pthread_mutex_lock(&e->lock);
    const int room = e->preps_ahead < e->n_prove;
    if (room) e->preps_ahead++;
    for (uint32_t i = 0; i < e->n_backends && room; i++)
        if (!e->slots[i].out_of_service) in_service[n++] = e->slots[i].backend;
    cz_eng_unlock(e);
    if (!room) return 0;
    cz_backend *b = NULL;
    for (uint32_t i = 0; i < n && !b; i++)
        if (cz_backend_host_abc(in_service[i], j->plan.circuit_id) >= 0) b = in_service[i];
    const uint64_t t0 = cz_now_ns(), abc = j->plan.unit_abc_bytes;
    cz_prove_context pc = {b, j->id, j->kind, j->plan.circuit_id, j->priority};
    /* a, b, c reserved that this context, as its key is planned now, will
     * not make in host memory (its witness packs within the lean plan's
     * room): they leave the reservation, so more units run ahead */
    const int shed = abc && !it->keep_abc && it->reserved == j->plan.unit_bytes + abc;
    const int made = b ? j->ops->prep(j->state, it->unit, synth,
                                      j->plan.circuit_id[0] ? &j->srs : NULL, &pc, shed)
                       : 0;
    if (made == 2) { /* only when shed (job.h: prep) */
        cz_budget_release(&e->budget, abc);
        it->reserved -= abc;
        it->abc_shed = 1;
    }
    if (made) {
        cz_eng_span(e, "prep ahead", j, (int32_t)it->unit, t0, cz_now_ns());
        return 1;
    }
    pthread_mutex_lock(&e->lock);
    e->preps_ahead--;
    cz_eng_unlock(e);
    return 0;
}

/* A unit went into the prove heap (e->lock held): a prove worker is woken;
 * with several contexts all of them, since the one that holds its key may
 * not be the one a signal would wake (prove_pick's affinity). */
static void prove_wake_locked(cz_engine *e) {
    if (e->n_backends > 1)
        pthread_cond_broadcast(&e->prove_work);
    else
        pthread_cond_signal(&e->prove_work);
}

/* A synthesis worker held by the prove queue's backpressure (e->lock held,
 * counted in prove_blocked) does the host work ahead for a unit already
 * queued that has none: units synthesized while every prepared place was
 * taken wait without it, and a prove worker would do it when it takes
 * the unit, while the device waits (a 32 GiB PoRep witness packed: ~0.5 s
 * after every pass over a streamed key at 24 GiB). The unit leaves the
 * heap meanwhile (no prove worker takes it half made), counted as
 * synthesizing so the run-ahead bound holds, and the worker as not
 * blocked, so the backpressure bound is what it was; CRITICAL units are
 * never held back. Each unit is tried once here. 1 when it did one (e->lock
 * held again). */
static int prep_queued_locked(cz_engine *e) {
    if (e->preps_ahead >= e->n_prove) return 0;
    size_t pick = SIZE_MAX;
    for (size_t i = 0; i < e->prove.n; i++) {
        const cz_eng_item *x = &e->prove.v[i];
        if (x->prepped || x->prep_retried || !x->j->ops->prep || x->j->cancel || x->j->failed ||
            x->j->priority >= CZ_PRIORITY_CRITICAL)
            continue;
        if (pick == SIZE_MAX || cz_eng_item_before(x, &e->prove.v[pick])) pick = i;
    }
    if (pick == SIZE_MAX) return 0;
    cz_eng_item it = cz_eng_heap_take(&e->prove, pick);
    const int prio = it.j->priority;
    it.prep_retried = 1;
    e->synthesizing[prio]++;
    e->prove_blocked--;
    cz_eng_unlock(e);
    it.prepped = prep_ahead(e, it.j, &it, it.data);
    pthread_mutex_lock(&e->lock);
    e->prove_blocked++;
    e->synthesizing[prio]--;
    /* back into the heap; other workers pushed meanwhile, so that may need
     * memory: without it the unit fails as a synthesized one finding no
     * place does (run_synthesis), never lost */
    if (cz_eng_heap_push(&e->prove, it)) {
        prove_wake_locked(e);
        return 1;
    }
    cz_eng_item_taken_locked(e, &it);
    cz_eng_unlock(e);
    cz_error uerr = {0};
    const cz_status st = cz_error_set(&uerr, CZ_E_NOMEM, "engine: out of memory");
    it.j->ops->discard(it.j->state, it.unit, it.data, 0);
    cz_eng_unit_end(e, it.j, it.reserved, st, &uerr);
    pthread_mutex_lock(&e->lock);
    return 1;
}

/* Synthesizes one unit and hands it to the prove heap; then, but on the
 * critical lane, waits while the backpressure holds. */
static void run_synthesis(cz_engine *e, cz_eng_item it, int critical_lane) {
    cz_eng_job *j = it.j;
    int prio = j->priority;
    cz_error uerr = {0};
    cz_status st = CZ_OK;
    void *synth = NULL;
    int dropped = 0;
    char what[64];
    snprintf(what, sizeof what, "partition %u of %.32s", it.unit, j->id);
    const uint64_t reserve = unit_reservation(e, j, it.keep_abc);
    if (reserve) {
        cz_eng_timeline(e, "MEM_WAIT", j, "%u %" PRIu64, it.unit, reserve);
        /* served before lower priorities; a CRITICAL unit may use the
         * reserve (budget.h) */
        cz_budget_set_thread_priority(prio);
        st = cz_budget_acquire(&e->budget, reserve, what, 0, cz_srs_evict_idle, &e->srs, &j->cancel,
                               &uerr);
        if (st == CZ_OK)
            it.reserved = reserve;
        else if (j->cancel)
            dropped = 1;
    }
    if (st == CZ_OK) {
        pthread_mutex_lock(&e->lock);
        if (!j->t_first_synth) j->t_first_synth = cz_now_ns();
        j->started = 1;
        cz_eng_unlock(e);
        cz_eng_timeline(e, "SYNTH_START", j, "%u", it.unit);
        uint64_t t0 = cz_now_ns();
        cz_job_witness_all_cores(prio >= CZ_PRIORITY_CRITICAL);
        st = j->ops->synthesize(j->state, it.unit, &synth, &uerr);
        cz_job_witness_all_cores(0);
        uint64_t dt = cz_now_ns() - t0;
        cz_eng_span(e, "synthesis", j, (int32_t)it.unit, t0, t0 + dt);
        cz_eng_timeline(e, "SYNTH_END", j, "%u", it.unit);
        pthread_mutex_lock(&e->lock);
        j->synth_ns += dt;
        cz_eng_unlock(e);
        if (st == CZ_OK) it.prepped = prep_ahead(e, j, &it, synth);
    }
    pthread_mutex_lock(&e->lock);
    e->synthesizing[prio]--; /* now in the prove heap (still ahead), or gone */
    pthread_cond_broadcast(&e->work);
    if (st == CZ_OK) {
        if (!j->cancel && !j->failed && !e->stop) {
            it.data = synth;
            it.t_ready = cz_now_ns();
            if (cz_eng_heap_push(&e->prove, it)) {
                cz_eng_timeline_locked(e, "GPU_QUEUE", j, "%u", it.unit);
                prove_wake_locked(e);
                /* The item (and its job reference) moved on: j is not
                 * touched again. Backpressure (schedule.c): this worker
                 * synthesizes nothing more until a unit goes, but items of
                 * a higher priority than its unit's. The critical lane
                 * never waits: its units are few and go first. A waiting worker also
                 * drops a unit of a cancelled or failed job (cancel
                 * broadcasts prove_room): that frees its memory at once
                 * instead of after the prove work ahead of it, and counts
                 * as the pop that lets this worker go. */
                if (!critical_lane && e->prove.n > e->prove_queue_depth) {
                    e->prove_blocked++;
                    while (!e->stop && cz_eng_prove_over_bound_locked(e)) {
                        size_t d = cz_eng_prove_dropped_locked(e);
                        if (d != SIZE_MAX) {
                            cz_eng_item x = cz_eng_heap_take(&e->prove, d);
                            e->prove_blocked--;
                            cz_eng_drop_synthesized_locked(e, x);
                            cz_eng_unlock(e);
                            return;
                        }
                        if (cz_eng_synth_outranks_locked(e, prio)) {
                            e->prove_blocked--;
                            run_item_locked(e, cz_eng_heap_pop(&e->synth), 0);
                            e->prove_blocked++;
                            continue;
                        }
                        if (prep_queued_locked(e)) continue;
                        pthread_cond_wait(&e->prove_room, &e->lock);
                    }
                    /* let go: one more queued unit prepared first, if any
                     * waits without (the last blocked worker would
                     * otherwise leave the rest to the prover) */
                    if (!e->stop) (void)prep_queued_locked(e);
                    e->prove_blocked--;
                }
                cz_eng_unlock(e);
                return;
            }
            st = cz_error_set(&uerr, CZ_E_NOMEM, "engine: out of memory");
        }
        dropped = 1;
    }
    cz_eng_item_taken_locked(e, &it);
    cz_eng_unlock(e);
    if (synth) j->ops->discard(j->state, it.unit, synth, 0);
    cz_eng_unit_end(e, j, it.reserved, dropped ? CZ_OK : st, &uerr);
}

/* One item taken from the synth heap: a job's preparation, a unit of a
 * cancelled or failed job (dropped at the partition boundary) or a unit to
 * synthesize. The lock is dropped while it runs. */
static void run_item_locked(cz_engine *e, cz_eng_item it, int critical_lane) {
    cz_eng_job *j = it.j;
    if (it.unit == CZ_ENG_PREPARE_UNIT) {
        cz_eng_unlock(e);
        cz_eng_run_prepare(e, j);
        pthread_mutex_lock(&e->lock);
        cz_eng_job_unref_locked(j);
    } else if (j->cancel || j->failed) {
        cz_eng_unit_dropped_locked(e, j);
    } else {
        e->synthesizing[j->priority]++; /* run_synthesis lowers it */
        cz_eng_unlock(e);
        run_synthesis(e, it, critical_lane);
        pthread_mutex_lock(&e->lock);
    }
}

void *cz_eng_synthesis_worker(void *arg) {
    cz_engine *e = arg;
    unsigned k = atomic_fetch_add(&e->synth_lanes, 1);
    /* The last of the n_synth + 1 to start is the critical lane
     * (schedule.c: cz_eng_synth_ready_locked). */
    int critical_lane = k == e->n_synth;
    cz_eng_set_lane(CZ_TRACE_LANE_SYNTH + k < CZ_TRACE_LANES ? CZ_TRACE_LANE_SYNTH + k
                                                             : CZ_TRACE_LANES - 1);
    if (e->tracing) {
        char name[32];
        snprintf(name, sizeof name, critical_lane ? "synthesis (critical)" : "synthesis %u", k);
        cz_trace_name_lane(&e->trace, cz_eng_lane(), name);
    }
    /* a nice value is the thread's on Linux, and the threads its loops
     * start inherit it; raising it needs no privilege (and cannot be undone
     * without one: such a worker leaves CRITICAL units to the lane) */
    if (!critical_lane && e->synthesis_nice > 0) {
        const id_t tid = (id_t)syscall(SYS_gettid);
        errno = 0;
        const int now = getpriority(PRIO_PROCESS, tid);
        if ((now != -1 || errno == 0) &&
            setpriority(PRIO_PROCESS, tid,
                        now + e->synthesis_nice > 19 ? 19 : now + e->synthesis_nice) != 0)
            cz_log(CZ_LOG_WARN, "engine: synthesis worker %u: nice %d refused: %s", k,
                   e->synthesis_nice, strerror(errno));
    }
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && !cz_eng_synth_ready_locked(e, critical_lane))
            pthread_cond_wait(&e->work, &e->lock);
        if (e->stop) break;
        run_item_locked(e, cz_eng_heap_pop(&e->synth), critical_lane);
    }
    cz_eng_unlock(e);
    return NULL;
}

/* A device error (CZ_E_CUDA) on a context while another context is in
 * service: the failing one is taken out of service (its workers stop, with
 * one log line) and the unit goes back to synthesis (its witness was
 * consumed), to be proven elsewhere. Returns 1 when it did (the caller's
 * worker then stops; the lock was dropped while the unit's memory went
 * back), 0 to fail the unit as usual. */
static int take_out_of_service_locked(cz_engine *e, cz_eng_slot *slot, cz_eng_job *j,
                                      cz_eng_item it, const cz_error *uerr) {
    int others = 0;
    for (uint32_t i = 0; i < e->n_backends; i++)
        if (&e->slots[i] != slot && !e->slots[i].out_of_service) others = 1;
    if (!others || j->cancel || j->failed) return 0;
    if (!cz_eng_synth_push_locked(e, (cz_eng_item){.j = j, .unit = it.unit})) return 0;
    slot->out_of_service = 1;
    cz_eng_defer_log_locked(e, CZ_LOG_ERROR,
                            "engine: back-end %s taken out of service after a device error (%s); "
                            "partition %u of %.64s goes to the other contexts",
                            slot->backend->info.name, uerr->message, it.unit, j->id);
    pthread_cond_broadcast(&e->prove_work); /* its other workers see it and stop */
    cz_eng_unlock(e);
    if (it.reserved) cz_budget_release(&e->budget, it.reserved);
    pthread_mutex_lock(&e->lock);
    return 1;
}

static int prove_taken_locked(cz_engine *e, cz_eng_slot *slot, uint32_t w, cz_eng_item it,
                              const step_ctx *outer);

/* The context's record of j as running with a preemption hook (e->lock
 * held): 1 when recorded (more than the array holds go unrecorded). */
static int hook_record_locked(cz_eng_slot *slot, const cz_eng_job *j) {
    if (slot->n_hooked == CZ_ENG_HOOKED_MAX) return 0;
    slot->hooked[slot->n_hooked++] = j;
    return 1;
}

/* One record of j gone (e->lock held): a unit left to its hook is free for
 * every worker again. */
static void hook_forget_locked(cz_engine *e, cz_eng_slot *slot, const cz_eng_job *j) {
    for (uint32_t k = 0; k < slot->n_hooked; k++)
        if (slot->hooked[k] == j) {
            slot->hooked[k] = slot->hooked[--slot->n_hooked];
            pthread_cond_broadcast(&e->prove_work);
            return;
        }
}

/* A unit its context refused (CZ_E_BUSY) is not lost: it goes back to
 * synthesis (its witness was consumed) and is proven in its turn. One run
 * inside another (preemption, nested) found no device memory beside it: it
 * never runs inside another unit again. One whose a, b, c left its
 * reservation (abc_shed) met a context that would make them in host
 * memory after all (its key planned again meanwhile): it reserves them to
 * the end. Returns 1 when it did (the lock was dropped while its memory
 * went back), 0 to fail it as usual. */
static int again_locked(cz_engine *e, cz_eng_job *j, cz_eng_item it, int nested,
                        const cz_error *uerr) {
    if (j->cancel || j->failed) return 0;
    cz_eng_item again = {.j = j,
                         .unit = it.unit,
                         .no_nest = nested || it.no_nest,
                         .keep_abc = it.abc_shed || it.keep_abc};
    if (!cz_eng_synth_push_locked(e, again)) return 0;
    if (nested)
        cz_eng_defer_log_locked(e, CZ_LOG_WARN,
                                "engine: partition %u of %.64s did not fit beside the unit it "
                                "interrupted (%s): it is proven in its turn",
                                it.unit, j->id, uerr->message);
    else
        cz_eng_defer_log_locked(e, CZ_LOG_WARN,
                                "engine: partition %u of %.64s was refused without its a, b, c "
                                "reserved in host memory (%s): it is synthesized again with "
                                "them reserved",
                                it.unit, j->id, uerr->message);
    cz_eng_unlock(e);
    if (it.reserved) cz_budget_release(&e->budget, it.reserved);
    pthread_mutex_lock(&e->lock);
    return 1;
}

/* Preemption (util/cancel.h): the hook a prove worker sets around a unit
 * below CRITICAL. At each step boundary of that unit it takes the best
 * waiting unit that outranks it (cz_eng_preempt_pick_locked: CRITICAL over
 * anything, HIGH over NORMAL and LOW, its key on this context) and proves
 * it there, on this thread and device, beside the interrupted unit's
 * buffers, which stay as they are; then the interrupted unit goes on
 * where it stopped. The unit proven inside meets no hook of its own. */
typedef struct {
    cz_engine *e;
    cz_eng_slot *slot;
    uint32_t w;
    const step_ctx *running; /* the interrupted unit */
} preempt_ctx;

static void preempt_hook(void *ctx) {
    const preempt_ctx *pc = ctx;
    cz_engine *e = pc->e;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        if (e->stop || pc->slot->out_of_service || !e->prove.n) break;
        size_t pick = cz_eng_preempt_pick_locked(e, pc->slot, pc->running->j);
        if (pick == SIZE_MAX) break;
        cz_eng_item it = cz_eng_heap_take(&e->prove, pick);
        pthread_cond_broadcast(&e->prove_room);
        pthread_cond_broadcast(&e->work);
        e->preemptions++;
        if (pc->running->unit >= 0)
            cz_eng_defer_log_locked(e, CZ_LOG_INFO,
                                    "engine: partition %u of %.64s (priority %d) runs inside "
                                    "partition %d of %.64s on %s, at a step boundary",
                                    it.unit, it.j->id, it.j->priority, pc->running->unit,
                                    pc->running->j->id, pc->slot->backend->info.name);
        else
            cz_eng_defer_log_locked(e, CZ_LOG_INFO,
                                    "engine: partition %u of %.64s (priority %d) runs while the "
                                    "key of %.64s goes onto %s, at a step boundary of its upload",
                                    it.unit, it.j->id, it.j->priority, pc->running->j->id,
                                    pc->slot->backend->info.name);
        prove_taken_locked(e, pc->slot, pc->w, it, pc->running);
    }
    cz_eng_unlock(e);
}

/* Proves the unit it, just taken from the prove heap by a worker of slot
 * (e->lock held; dropped while the unit runs), and hands it to the
 * finisher or ends it. outer: NULL for a worker's own unit, else the unit
 * this one interrupts (preempt_hook), whose thread state (cancel flag,
 * step hook) is restored afterwards. Returns 1 when the worker must stop
 * (its context was taken out of service). */
static int prove_taken_locked(cz_engine *e, cz_eng_slot *slot, uint32_t w, cz_eng_item it,
                              const step_ctx *outer) {
    cz_eng_job *j = it.j;
    int drop = j->cancel || j->failed;
    /* the context's same-circuit run is the interrupted unit's: a unit
     * proven inside it neither ends nor extends it */
    if (!drop && !outer) cz_eng_note_circuit_locked(e, slot, j);
    cz_eng_item_taken_locked(e, &it);
    e->prove_busy++;
    slot->busy_workers++;
    /* a unit with a preemption hook (below) is recorded on its context, so
     * that the context's free workers leave what it would take to it */
    const int hooked =
        !drop && !outer && j->priority < CZ_PRIORITY_CRITICAL && hook_record_locked(slot, j);
    cz_eng_unlock(e);

    cz_error uerr = {0};
    cz_status st = CZ_OK;
    void *pending = NULL;
    if (!drop) {
        cz_eng_timeline(e, "GPU_START", j, "%u worker=%d backend=%s%s", it.unit, (int)w,
                        slot->backend->info.name, outer ? " preempting" : "");
        uint64_t t0 = cz_now_ns();
        cz_prove_context pc = {slot->backend, j->id, j->kind, j->plan.circuit_id, j->priority};
        step_ctx sc = {e, j, (int32_t)it.unit};
        preempt_ctx hook = {e, slot, w, &sc};
        cz_gpu_set_step_hook(gpu_step, &sc);
        /* A cancel stops the prover at its next step (util/cancel.h); a
         * higher-priority unit may run at one (preempt_hook). */
        cz_cancel_set_flag(&j->cancel);
        if (!outer && j->priority < CZ_PRIORITY_CRITICAL) cz_boundary_set_hook(preempt_hook, &hook);
        st = j->ops->prove_start(j->state, it.unit, it.data, j->plan.circuit_id[0] ? &j->srs : NULL,
                                 &pc, &pending, &uerr);
        if (!outer) cz_boundary_set_hook(NULL, NULL);
        cz_cancel_set_flag(outer ? &outer->j->cancel : NULL);
        cz_gpu_set_step_hook(outer ? gpu_step : NULL, (void *)outer);
        uint64_t dt = cz_now_ns() - t0;
        cz_eng_span(e, "prove", j, (int32_t)it.unit, t0, t0 + dt);
        if (e->tracing)
            cz_trace_add(&e->trace, "prove queue", j->id, (int32_t)it.unit, CZ_TRACE_LANE_QUEUE,
                         it.t_ready, t0);
        if (e->progress && st == CZ_OK)
            fprintf(e->progress,
                    "job %s: partition %u of %u proven on %s in %.2f s (%.2f s queued)%s\n", j->id,
                    it.unit + 1, j->plan.units, slot->backend->info.name, (double)dt / 1e9,
                    (double)(t0 - it.t_ready) / 1e9, outer ? ", preempting" : "");
        it.data = NULL; /* consumed by prove_start */
        cz_eng_timeline(e, "GPU_END", j, "%u", it.unit);
        pthread_mutex_lock(&e->lock);
        j->prove_ns += dt;
        cz_eng_unlock(e);
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
    slot->busy_workers--;
    if (hooked) hook_forget_locked(e, slot, j);
    if (!drop && st == CZ_E_CUDA && take_out_of_service_locked(e, slot, j, it, &uerr)) return 1;
    if (!drop && st == CZ_E_BUSY && (outer || it.abc_shed) &&
        again_locked(e, j, it, outer != NULL, &uerr))
        return 0;
    if (!drop && st == CZ_OK) {
        it.data = pending;
        if (cz_eng_fifo_push(&e->finish, it)) {
            pthread_cond_signal(&e->finish_work);
            return 0;
        }
        st = cz_error_set(&uerr, CZ_E_NOMEM, "engine: out of memory");
        j->ops->discard(j->state, it.unit, pending, 1);
    }
    cz_eng_unlock(e);
    cz_eng_unit_end(e, j, it.reserved, drop ? CZ_OK : st, &uerr);
    pthread_mutex_lock(&e->lock);
    return 0;
}

/* A key's hold (engine/prepare.c) keeps its context's run lock for the
 * whole upload (a 32 GiB key from its file: ~6 s on an H100) and meets a
 * step boundary between its pieces (gpu/srs.c). Around it the holding
 * thread sets the preemption hook of a unit of the job the key is for
 * (unit -1), with that job recorded as hooked on the context: a unit that
 * would run inside one of the job's units (CRITICAL, or HIGH over NORMAL,
 * its key resident there) runs at those boundaries, on this thread, beside
 * the key's upload, and the context's free workers leave it to the hook
 * instead of waiting for the run lock. A hold for no job (a preload) or for
 * a CRITICAL one runs without the hook. */
cz_status cz_eng_hold(cz_engine *e, uint32_t slot_index, const cz_eng_job *j,
                      const char *circuit_id, const cz_groth16_params *params,
                      const cz_groth16_params_file *file, const cz_circuit *circuit, int priority,
                      int wait, cz_error *err) {
    cz_eng_slot *slot = &e->slots[slot_index];
    const int hook = j && j->priority < CZ_PRIORITY_CRITICAL;
    int hooked = 0;
    step_ctx sc = {e, j, -1};
    preempt_ctx pc = {e, slot, UINT32_MAX, &sc};
    if (hook) {
        pthread_mutex_lock(&e->lock);
        hooked = hook_record_locked(slot, j);
        cz_eng_unlock(e);
        cz_boundary_set_hook(preempt_hook, &pc);
    }
    const cz_status st =
        cz_backend_hold(slot->backend, circuit_id, params, file, circuit, priority, wait, err);
    if (hook) {
        cz_boundary_set_hook(NULL, NULL);
        /* a unit run at a boundary left the job's flag and step hook on
         * this thread (prove_taken_locked restores the interrupted unit's) */
        cz_cancel_set_flag(NULL);
        cz_gpu_set_step_hook(NULL, NULL);
    }
    if (hooked) {
        pthread_mutex_lock(&e->lock);
        hook_forget_locked(e, slot, j);
        cz_eng_unlock(e);
    }
    return st;
}

void *cz_eng_prove_worker(void *arg) {
    cz_eng_prove_worker_arg *pa = arg;
    cz_engine *e = pa->e;
    uint32_t w = pa->index;
    cz_eng_slot *slot = &e->slots[pa->slot];
    free(pa);
    cz_eng_set_lane(CZ_TRACE_LANE_PROVE + w < CZ_TRACE_LANE_SYNTH ? CZ_TRACE_LANE_PROVE + w
                                                                  : CZ_TRACE_LANE_SYNTH - 1);
    if (e->tracing) {
        char name[48];
        snprintf(name, sizeof name, "prove %u (%s)", w, slot->backend->info.name);
        cz_trace_name_lane(&e->trace, cz_eng_lane(), name);
    }
    cz_parallel_set_thread_limit(e->prove_thread_limit);
    pthread_mutex_lock(&e->lock);
    for (;;) {
        size_t pick = SIZE_MAX;
        while (!e->stop && !slot->out_of_service &&
               (e->prove.n == 0 || (pick = cz_eng_prove_pick_locked(e, slot)) == SIZE_MAX))
            pthread_cond_wait(&e->prove_work, &e->lock);
        if (e->stop || slot->out_of_service) break;
        cz_eng_item it = cz_eng_heap_take(&e->prove, pick);
        pthread_cond_broadcast(&e->prove_room);
        pthread_cond_broadcast(&e->work); /* the run-ahead bound has room */
        /* a worker that left units to this context's free worker looks again */
        if (e->prove.n && e->n_backends > 1) pthread_cond_broadcast(&e->prove_work);
        if (prove_taken_locked(e, slot, w, it, NULL)) break;
    }
    cz_eng_unlock(e);
    return NULL;
}

void *cz_eng_finish_worker(void *arg) {
    cz_engine *e = arg;
    cz_eng_set_lane(CZ_TRACE_LANE_FINALIZER);
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && e->finish.n == 0) pthread_cond_wait(&e->finish_work, &e->lock);
        if (e->stop) break;
        cz_eng_item it = cz_eng_fifo_pop(&e->finish);
        cz_eng_job *j = it.j;
        int drop = j->cancel || j->failed;
        cz_eng_unlock(e);
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
            cz_eng_span(e, "finalize", j, (int32_t)it.unit, t0, t0 + dt);
            cz_eng_timeline(e, "FINALIZE_END", j, "%u", it.unit);
            pthread_mutex_lock(&e->lock);
            j->prove_ns += dt;
            cz_eng_unlock(e);
        }
        cz_eng_unit_end(e, j, it.reserved, drop ? CZ_OK : st, &uerr);
        pthread_mutex_lock(&e->lock);
    }
    cz_eng_unlock(e);
    return NULL;
}

/* Prunes finished jobs past their retention, once a second. */
void *cz_eng_janitor(void *arg) {
    cz_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&e->janitor_wake, &e->lock, &ts);
        uint64_t now = cz_now_ns();
        cz_eng_job **pp = &e->jobs;
        while (*pp) {
            cz_eng_job *j = *pp;
            if (j->phase == CZ_ENG_DONE && now - j->t_end >= e->retention_ns) {
                *pp = j->next;
                j->pruned = 1;
                if (j->refs == 0) cz_eng_job_free(j);
            } else {
                pp = &j->next;
            }
        }
    }
    cz_eng_unlock(e);
    return NULL;
}
