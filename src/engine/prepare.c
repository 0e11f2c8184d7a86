/* A job's preparation (engine_private.h): its prepare op on a synthesis
 * worker, the never-fits checks, its SRS (taken at once when hot and the
 * job is admissible, else by the SRS loader thread, one job at a time by
 * priority), its units queued for synthesis, and its key put on an idle
 * back-end context ahead of them.
 *
 * A CRITICAL job (a WinningPoSt, due in seconds) never waits for the
 * loader's current job, whose key upload can take seconds (7 s for a
 * 32 GiB PoRep key on an H100): with its SRS hot and admission passed it
 * takes the SRS on its synthesis worker even while the loader works, and
 * the hold of its key never waits for a context in use (its first unit
 * loads the key instead). Only a CRITICAL job whose SRS is not hot goes to
 * the loader, first in its queue. That does not lengthen a loader's wait
 * for memory: the CRITICAL job's partitions come out of the budget's
 * reserve, which the loader's load may not use. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine_private.h"
#include "util/check.h"
#include "util/parallel.h"

/* Puts a job's key and circuit on a back-end context ahead of its units, so
 * that the upload (~1 GB at 2 KiB, ~50 GB at 32 GiB) overlaps their
 * synthesis: nothing when a context holds them already, else the idle
 * context that keeps keys and holds the fewest (the first of those: with
 * several devices, circuits spread over them instead of evicting each
 * other; never the CPU; all busy: the first unit does it; for a CRITICAL
 * job also a context in use, by another job's upload too, since this
 * thread may be the critical lane that synthesizes its units next). A job
 * that no context can hold, not even streaming, fails now, not after its
 * partitions are synthesized. Called without e->lock, j held. */
static void hold_for_job(cz_engine *e, cz_eng_job *j) {
    if (!j->plan.circuit_id[0] || !j->srs.params) return;
    const int critical = j->priority >= CZ_PRIORITY_CRITICAL;
    int idle = -1;
    uint32_t idle_keys = 0;
    for (uint32_t i = 0; i < e->n_backends; i++) {
        cz_backend *b = e->slots[i].backend;
        pthread_mutex_lock(&e->lock);
        int out = e->slots[i].out_of_service;
        cz_eng_unlock(e);
        if (out) continue;
        cz_backend_info bi;
        cz_backend_get_info(b, &bi);
        for (uint32_t r = 0; r < bi.n_resident; r++)
            if (!strcmp(bi.resident_circuits[r], j->plan.circuit_id)) return;
        if (!bi.busy && b->ops->hold && (idle < 0 || bi.n_resident < idle_keys)) {
            idle = (int)i;
            idle_keys = bi.n_resident;
        }
    }
    if (idle < 0) return;
    cz_backend *b = e->slots[idle].backend;
    cz_eng_timeline(e, "GPU_HOLD_START", j, "%s backend=%s", j->plan.circuit_id, b->info.name);
    cz_error herr = {0};
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_eng_hold(e, (uint32_t)idle, j, j->plan.circuit_id, j->srs.params,
                               j->srs.params_file, j->srs.circuit, j->priority, !critical, &herr);
    cz_eng_span(e, "key and circuit to the device", j, -1, t0, cz_now_ns());
    cz_eng_timeline(e, "GPU_HOLD_END", j, "%s",
                    st == CZ_OK       ? "ok"
                    : st == CZ_E_BUSY ? "context in use: the first unit loads it"
                                      : "failed");
    if (st == CZ_OK || st == CZ_E_BUSY) return;
    pthread_mutex_lock(&e->lock);
    if (!j->failed && !j->cancel) {
        j->failed = 1;
        snprintf(j->error, sizeof j->error, "%s", herr.message);
        j->error_status = st;
    }
    pthread_cond_broadcast(&e->prove_room); /* its queued units drop at once */
    pthread_cond_broadcast(&e->work);
    cz_eng_unlock(e);
}

/* The end of a job's preparation (its SRS held when it has one): queue its
 * units, or end it. */
static void prepare_finish(cz_engine *e, cz_eng_job *j, cz_status st, cz_error *perr) {
    if (st == CZ_OK) {
        j->proof = calloc(j->plan.units, j->plan.unit_proof_bytes ? j->plan.unit_proof_bytes : 1);
        if (!j->proof) st = cz_error_set(perr, CZ_E_NOMEM, "engine: out of memory");
    }
    cz_eng_timeline(e, "PREPARE_END", j, "%s", st == CZ_OK ? "ok" : "failed");

    pthread_mutex_lock(&e->lock);
    if (j->phase == CZ_ENG_DONE) {
        /* cancelled while waiting for its SRS (cz_eng_cancel_job_locked ended it) */
    } else if (st != CZ_OK) {
        cz_eng_job_end_locked(e, j, j->cancel ? CZ_JOB_CANCELLED : CZ_JOB_FAILED,
                              j->cancel ? CZ_E_CANCELLED : st,
                              j->cancel ? "cancelled" : perr->message);
    } else if (j->cancel) {
        cz_eng_job_end_locked(e, j, CZ_JOB_CANCELLED, CZ_E_CANCELLED, "cancelled");
    } else {
        j->phase = CZ_ENG_RUNNING;
        j->units_left = j->plan.units;
        if (!j->admitted) { /* no SRS: its units are what the reserve must leave room for */
            j->admitted = 1;
            cz_eng_reserve_update_locked(e, j);
        }
        for (uint32_t u = 0; u < j->plan.units; u++) {
            if (!cz_eng_synth_push_locked(e, (cz_eng_item){.j = j, .unit = u})) {
                /* Units never queued are over now. */
                j->failed = 1;
                snprintf(j->error, sizeof j->error, "engine: out of memory queueing partitions");
                j->error_status = CZ_E_NOMEM;
                j->units_left -= j->plan.units - u;
                break;
            }
            j->refs++;
        }
        int queued = j->units_left > 0;
        if (!queued) {
            cz_eng_unlock(e);
            cz_eng_finish_job(e, j);
            pthread_mutex_lock(&e->lock);
        }
        cz_eng_unlock(e);
        if (queued) hold_for_job(e, j);
        return;
    }
    cz_eng_unlock(e);
}

/* Parses and plans a job on a synthesis worker. Taking the SRS happens here
 * only when it is already hot; a load (which may wait for memory) goes to
 * the SRS loader thread, so that synthesis workers keep serving the
 * partitions of running jobs, whose progress is what frees memory. */
void cz_eng_run_prepare(cz_engine *e, cz_eng_job *j) {
    cz_error perr = {0};
    pthread_mutex_lock(&e->lock);
    if (j->cancel || j->phase != CZ_ENG_QUEUED) {
        cz_eng_unlock(e);
        return;
    }
    j->phase = CZ_ENG_PREPARING;
    cz_eng_unlock(e);
    cz_eng_timeline(e, "PREPARE_START", j, NULL);

    j->plan.host_evaluation = e->host_evaluation;
    uint64_t t_prep = cz_now_ns();
    cz_status st = j->ops->prepare(&j->state, &j->plan, &j->req, e->srs.dir, &perr);
    cz_eng_span(e, "prepare", j, -1, t_prep, cz_now_ns());
    if (st == CZ_OK && (j->plan.units == 0 || j->plan.unit_bytes_after > j->plan.unit_bytes))
        st = CZ_BROKEN(&perr, "%s: bad plan", j->ops->name);
    if (st == CZ_OK && j->priority >= CZ_PRIORITY_CRITICAL) {
        pthread_mutex_lock(&e->lock);
        cz_eng_reserve_update_locked(e, j); /* the next one of its size finds room */
        cz_eng_unlock(e);
    }
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
            cz_eng_timeline(e, "SRS_ACQUIRE", j, "%s", j->plan.circuit_id);
            /* While the loader works (it may wait for memory that only
             * running jobs free), new jobs queue behind it even when their
             * SRS is hot: that bounds its wait. A CRITICAL job does not
             * (the top of this file says why that is safe). */
            pthread_mutex_lock(&e->lock);
            int loader_idle = !e->loader_busy && e->load.n == 0;
            if ((loader_idle || j->priority >= CZ_PRIORITY_CRITICAL) &&
                cz_eng_admissible_locked(e, j) &&
                cz_srs_try_acquire(&e->srs, j->plan.circuit_id, j->plan.wants_circuit, &j->srs)) {
                j->srs_held = 1;
                j->admitted = 1;
                cz_eng_reserve_update_locked(e, j);
                cz_eng_unlock(e);
            } else {
                if (cz_eng_heap_push(&e->load,
                                     (cz_eng_item){.j = j, .unit = CZ_ENG_PREPARE_UNIT})) {
                    j->refs++;
                    j->in_load_queue = 1;
                    pthread_cond_broadcast(&e->load_work);
                    cz_eng_unlock(e);
                    return; /* the loader finishes the preparation */
                }
                cz_eng_unlock(e);
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
    cz_engine *e;
    uint32_t slot;
    const cz_eng_job *job; /* the loader's job (NULL: a preload) */
    const char *id;
    const cz_groth16_params_file *file;
    const cz_circuit *circuit;
    int priority;
    cz_status st;
    cz_error err;
} resident_job;

/* The job the calling thread loads an SRS for (the loader's; NULL on other
 * threads: a preload) and its priority, which the device loader passes to
 * the contexts: the SRS manager's callback does not carry them. */
static _Thread_local const cz_eng_job *loading_job;
static _Thread_local int loading_priority;

static void *resident_run(void *arg) {
    resident_job *r = arg;
    r->st = cz_eng_hold(r->e, r->slot, r->job, r->id, NULL, r->file, r->circuit, r->priority, 1,
                        &r->err);
    return NULL;
}

cz_status cz_eng_device_load(void *ctx, const char *id, const cz_groth16_params_file *file,
                             const cz_circuit *circuit, cz_error *err) {
    cz_engine *e = ctx;
    resident_job jobs[CZ_ENGINE_MAX_BACKENDS];
    pthread_t threads[CZ_ENGINE_MAX_BACKENDS];
    int started[CZ_ENGINE_MAX_BACKENDS] = {0};
    for (uint32_t i = 0; i < e->n_backends; i++) {
        jobs[i] =
            (resident_job){e, i, loading_job, id, file, circuit, loading_priority, CZ_OK, {0}};
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
void *cz_eng_srs_loader(void *arg) {
    cz_engine *e = arg;
    cz_eng_set_lane(CZ_TRACE_LANE_JOBS);
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->stop && e->load.n == 0) pthread_cond_wait(&e->load_work, &e->lock);
        if (e->stop) break;
        cz_eng_item it = cz_eng_heap_pop(&e->load);
        cz_eng_job *j = it.j;
        j->in_load_queue = 0;
        e->loader_busy = 1;
        int skip = j->phase == CZ_ENG_DONE || j->cancel;
        cz_eng_unlock(e);
        /* skip: cz_eng_cancel_job_locked ended the job while it was in this queue. */
        if (!skip) {
            pthread_mutex_lock(&e->lock);
            while (!cz_eng_admissible_locked(e, j) && !j->cancel && !e->stop) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 200000000;
                if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
                pthread_cond_timedwait(&e->job_done, &e->lock, &ts);
            }
            int cancelled = j->cancel || e->stop;
            if (!cancelled) {
                j->admitted = 1;
                cz_eng_reserve_update_locked(e, j);
            }
            cz_eng_unlock(e);
            cz_error perr = {0};
            uint64_t t_load = cz_now_ns();
            /* the load's budget wait and its key's hold at the job's priority */
            cz_budget_set_thread_priority(j->priority);
            loading_priority = j->priority;
            loading_job = j;
            cz_status st = cancelled
                               ? cz_error_set(&perr, CZ_E_CANCELLED, "cancelled")
                               : cz_srs_acquire(&e->srs, j->plan.circuit_id, j->plan.wants_circuit,
                                                &j->srs, &j->srs_load_ms, &j->cancel, &perr);
            loading_job = NULL;
            cz_eng_span(e, "SRS load", j, -1, t_load, cz_now_ns());
            if (st == CZ_OK) {
                pthread_mutex_lock(&e->lock);
                j->srs_held = 1;
                cz_eng_unlock(e);
            }
            prepare_finish(e, j, st, &perr);
        }
        pthread_mutex_lock(&e->lock);
        e->loader_busy = 0;
        cz_eng_job_unref_locked(j);
    }
    cz_eng_unlock(e);
    return NULL;
}
