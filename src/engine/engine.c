/* The engine's life cycle (create, drain, destroy) and the worker counts.
 * The rest of the engine: engine_private.h lists the files. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine_private.h"
#include "gpu/gpu.h"
#include "gpu/settings.h"
#include "util/parallel.h"

/* Prove workers per device context when the configuration leaves it to
 * the engine. A device with less than CZ_ENG_SMALL_DEVICE_BYTES for keys
 * (its context's budget, or CZ_GPU_MEM_LIMIT when lower) streams the large
 * keys, and every unit waiting there for a pass shares it: on an H100
 * capped at 24 GiB, 32 GiB PoRep, four workers spent 17.26 s of device
 * time per proof, three 17.59 and two ~18.8 (docs/PERFORMANCE.md), once a
 * unit packed ahead stopped reserving its a, b, c (before, four filled the
 * host budget and waited for synthesis after every pass). Every context
 * must be such a device: the count is one for all. */
static uint32_t default_prove_workers(const cz_engine *e) {
    uint64_t limit = 0;
    const int capped = cz_gpu_settings_mem_limit(&limit);
    for (uint32_t i = 0; i < e->n_backends; i++) {
        const cz_backend_info *bi = &e->slots[i].backend->info;
        uint64_t bytes = bi->memory_budget;
        if (capped && limit < bytes) bytes = limit;
        if (bi->device < 0 || bytes >= CZ_ENG_SMALL_DEVICE_BYTES)
            return CZ_ENG_DEVICE_PROVE_WORKERS;
    }
    return CZ_ENG_SMALL_DEVICE_PROVE_WORKERS;
}

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
         * buffers, page cache of mapped files, the system, Curio beside it)
         * needs room: by default 15 % of the memory, 5 to 32 GiB (19 GiB of a
         * 128 GiB host, whose 32 GiB PoRep batches streamed at 24 GiB filled
         * a 5 GiB margin's budget and peaked 0.7 GiB past it). */
        uint64_t margin = cfg->safety_margin_bytes;
        if (!margin) {
            margin = phys / 100 * 15;
            if (margin < (5ull << 30)) margin = 5ull << 30;
            if (margin > (32ull << 30)) margin = 32ull << 30;
        }
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
    /* Synthesis of a partition takes several times the GPU's time for it
     * (2 KiB on an H200: ~0.95 s against ~0.2 s), so with a GPU every core
     * synthesizes (the memory budget and partitions_ahead still bound how
     * many partitions are in flight); the CPU back-end uses every core per
     * proof, so one prove worker and a second synthesis worker that prepares
     * the next partition while the current one is proven. */
    e->n_synth = cfg->synthesis_workers ? cfg->synthesis_workers
                 : e->host_evaluation   ? CZ_ENG_CPU_SYNTHESIS_WORKERS
                                        : cz_thread_count();
    /* Keys straight from the file to the devices when every context can
     * hold one (CZ_SRS_HOST_POINTS=1 keeps the host decode, to compare). */
    int all_resident = e->n_backends > 0;
    for (uint32_t i = 0; i < e->n_backends; i++)
        if (!e->slots[i].backend->ops->hold) all_resident = 0;
    if (all_resident && !cz_gpu_settings_get()->srs_host_points)
        cz_srs_set_device_loader(&e->srs, cz_eng_device_load, e);
    /* a key a device declines streams from host points: locked, the copy
     * engines read them without the CPU's staging copy */
    if (all_resident && cz_gpu_settings_get()->srs_lock_host)
        cz_srs_set_host_locking(&e->srs, cz_gpu_host_lock, cz_gpu_host_unlock);
    /* one device, nothing else: the host copies of what it keeps are freed
     * (44 GB of a 32 GiB PoRep key on an 80 GB card) */
    if (all_resident && e->n_backends == 1)
        cz_backend_cuda_own_host_points(e->slots[0].backend, &e->srs);
    uint32_t per = e->host_evaluation   ? 1
                   : cfg->prove_workers ? cfg->prove_workers
                                        : default_prove_workers(e);
    if (per * e->n_backends > CZ_ENG_MAX_PROVE_WORKERS)
        per = CZ_ENG_MAX_PROVE_WORKERS / e->n_backends;
    e->n_prove = per * e->n_backends;
    e->prove_queue_depth = cfg->prove_queue_depth ? cfg->prove_queue_depth : e->n_prove;
    /* auto: enough to keep the provers fed, and never fewer than a deeper
     * prove queue asks for (its units are what same-circuit runs choose from) */
    e->partitions_ahead = cfg->partitions_ahead ? cfg->partitions_ahead : 2 * e->n_prove + 2;
    if (!cfg->partitions_ahead && e->prove_queue_depth + e->n_prove > e->partitions_ahead)
        e->partitions_ahead = e->prove_queue_depth + e->n_prove;
    e->synthesis_nice = cfg->synthesis_nice < 19 ? (int)cfg->synthesis_nice : 19;
    e->max_batch = cfg->max_batch_size ? cfg->max_batch_size : 1;
    e->max_batch_wait_ns = cfg->max_batch_wait_ms > UINT64_MAX / 1000000ull
                               ? UINT64_MAX
                               : cfg->max_batch_wait_ms * 1000000ull;
    e->synth_threads = calloc(e->n_synth + 1, sizeof(pthread_t)); /* + the critical lane */
    e->prove_threads = calloc(e->n_prove, sizeof(pthread_t));
    if (!e->synth_threads || !e->prove_threads) {
        cz_engine_destroy(e);
        return cz_error_set(err, CZ_E_NOMEM, "engine: out of memory");
    }
    /* started_*: threads that run (the counters move only on success), so
     * a failure joins exactly those. */
    int rc = 0;
    uint32_t started_s = 0, started_p = 0;
    while (started_s < e->n_synth + 1 && !rc) {
        rc = pthread_create(&e->synth_threads[started_s], NULL, cz_eng_synthesis_worker, e);
        if (!rc) started_s++;
    }
    while (started_p < e->n_prove && !rc) {
        cz_eng_prove_worker_arg *pa = malloc(sizeof *pa);
        if (!pa) {
            rc = ENOMEM;
            break;
        }
        pa->e = e;
        pa->index = started_p;
        pa->slot = started_p / per;
        rc = pthread_create(&e->prove_threads[started_p], NULL, cz_eng_prove_worker, pa);
        if (rc)
            free(pa);
        else
            started_p++;
    }
    if (!rc) rc = pthread_create(&e->finish_thread, NULL, cz_eng_finish_worker, e);
    int janitor_started = 0, finish_started = 0;
    if (!rc) finish_started = 1;
    if (!rc) rc = pthread_create(&e->janitor_thread, NULL, cz_eng_janitor, e);
    if (!rc) janitor_started = 1;
    if (!rc) rc = pthread_create(&e->loader_thread, NULL, cz_eng_srs_loader, e);
    if (rc) {
        /* Some threads run: stop and join exactly those. */
        pthread_mutex_lock(&e->lock);
        e->stop = 1;
        pthread_cond_broadcast(&e->work);
        pthread_cond_broadcast(&e->prove_work);
        pthread_cond_broadcast(&e->finish_work);
        pthread_cond_broadcast(&e->janitor_wake);
        cz_eng_unlock(e);
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
    char nice[40] = "";
    if (e->synthesis_nice) snprintf(nice, sizeof nice, " at nice +%d", e->synthesis_nice);
    cz_log(CZ_LOG_INFO,
           "engine: budget %.2f GiB, %u synthesis worker(s)%s (+ 1 for CRITICAL jobs), %u prove "
           "worker(s) on %u back-end "
           "context(s), prove queue %u, partitions ahead %u, same-circuit runs up to %u (max "
           "wait %" PRIu64 " ms)",
           (double)total / (1u << 30), e->n_synth, nice, e->n_prove, e->n_backends,
           e->prove_queue_depth, e->partitions_ahead, e->max_batch, cfg->max_batch_wait_ms);
    for (uint32_t i = 0; i < e->n_backends; i++) {
        const cz_backend_info *bi = &e->slots[i].backend->info;
        char budget[96] = "";
        if (bi->device >= 0)
            snprintf(budget, sizeof budget, ", budget %.1f of %.1f GiB",
                     (double)bi->memory_budget / (1u << 30), (double)bi->memory_total / (1u << 30));
        cz_log(CZ_LOG_INFO, "engine: back-end %s: %s%s, %u prove worker(s)", bi->name,
               bi->description, budget, per);
    }
    /* witnesses on 4 KiB pages cost a device streaming a key up to ~5 %
     * of its time (docs/DESIGN.md, huge pages) */
    char thp[16];
    cz_huge_pages_mode(thp, sizeof thp);
    if (!e->host_evaluation && !strcmp(thp, "never"))
        cz_log(CZ_LOG_WARN,
               "engine: transparent huge pages are off (/sys/kernel/mm/transparent_hugepage/"
               "enabled is [never]): multi-GB witnesses go on 4 KiB pages, which slows proofs "
               "on GPUs that stream their keys; 'madvise' or 'always' enables them");
    *out = e;
    return CZ_OK;
}

/* How often a drain looks at the clock while jobs run (a job's end wakes
 * it at once). */
#define DRAIN_POLL_NS 200000000

uint32_t cz_engine_drain(cz_engine *e, uint64_t timeout_ms) {
    uint64_t deadline = cz_now_ns() + timeout_ms * 1000000ull;
    uint32_t cancelled = 0;
    pthread_mutex_lock(&e->lock);
    e->draining = 1;
    while (cz_eng_jobs_active_locked(e) && cz_now_ns() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += DRAIN_POLL_NS;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&e->job_done, &e->lock, &ts);
    }
    /* cz_eng_cancel_job_locked may drop the lock (it ends queued units): the scan starts
     * over after each one instead of following a list that may change. */
    for (int again = 1; again;) {
        again = 0;
        for (cz_eng_job *j = e->jobs; j; j = j->next)
            if (j->phase != CZ_ENG_DONE && !j->cancel) {
                cz_eng_cancel_job_locked(e, j);
                cancelled++;
                again = 1;
                break;
            }
    }
    while (cz_eng_jobs_active_locked(e)) pthread_cond_wait(&e->job_done, &e->lock);
    cz_eng_unlock(e);
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
    cz_eng_unlock(e);
    if (e->synth_threads && e->prove_threads) {
        for (uint32_t i = 0; i < e->n_synth + 1; i++) pthread_join(e->synth_threads[i], NULL);
        for (uint32_t i = 0; i < e->n_prove; i++) pthread_join(e->prove_threads[i], NULL);
        pthread_join(e->finish_thread, NULL);
        pthread_join(e->janitor_thread, NULL);
        pthread_join(e->loader_thread, NULL);
    }
    /* Every job is done (drained); queue items left are stale references. */
    cz_eng_heap *stale[2] = {&e->synth, &e->load};
    for (int q = 0; q < 2; q++)
        for (size_t i = 0; i < stale[q]->n; i++) {
            cz_eng_job *sj = stale[q]->v[i].j;
            if (--sj->refs == 0 && sj->pruned) cz_eng_job_free(sj);
        }
    cz_eng_job *j = e->jobs;
    while (j) {
        cz_eng_job *next = j->next;
        cz_eng_job_free(j);
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
            cz_log(CZ_LOG_INFO, "engine: trace of %zu spans written to %s", e->trace.n,
                   e->trace_path);
        else
            cz_log(CZ_LOG_ERROR, "engine: %s", terr.message);
    }
    cz_trace_free(&e->trace);
    cz_srs_destroy(&e->srs);
    cz_budget_destroy(&e->budget);
    pthread_mutex_lock(&e->lock);
    cz_eng_unlock(e); /* writes what is still queued */
    pthread_mutex_destroy(&e->lock);
    free(e);
}
