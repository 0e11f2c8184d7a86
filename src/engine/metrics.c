/* What the engine tells about itself (GetStatus, the Prometheus text of
 * /metrics) and the SRS calls of its API (preload, evict). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_private.h"
#include "gpu/gpu.h"
#include "util/parallel.h"

static const char *kind_metric_label(cz_proof_kind kind) {
    switch (kind) {
    case CZ_PROOF_POREP: return "porep_c2";
    case CZ_PROOF_SNAP: return "snap_update";
    case CZ_PROOF_WINDOW_POST: return "window_post";
    case CZ_PROOF_WINNING_POST: return "winning_post";
    default: return "unspecified";
    }
}

void cz_engine_get_status(cz_engine *e, cz_engine_status *out) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->lock);
    out->uptime_seconds = (cz_now_ns() - e->t_start) / 1000000000ull;
    for (int k = 0; k < CZ_PROOF_KIND_COUNT; k++) {
        out->completed += e->counters[k].completed;
        out->failed += e->counters[k].failed;
        out->cancelled += e->counters[k].cancelled;
    }
    for (cz_eng_job *j = e->jobs; j; j = j->next) {
        if (j->phase == CZ_ENG_DONE) continue;
        if (j->phase == CZ_ENG_QUEUED || (j->phase == CZ_ENG_RUNNING && !j->started))
            out->queues[j->kind].pending++;
        else
            out->queues[j->kind].in_progress++;
    }
    out->prove_workers = e->n_prove;
    out->prove_workers_busy = e->prove_busy;
    out->gpu_circuit_switches = e->circuit_switches;
    out->preemptions = e->preemptions;
    out->n_backends = e->n_backends;
    out->backend_name = e->n_backends ? e->slots[0].backend->ops->kind : "none";
    cz_eng_unlock(e);
    for (uint32_t i = 0; i < e->n_backends; i++)
        cz_backend_get_info(e->slots[i].backend, &out->backends[i]);
    pthread_mutex_lock(&e->lock);
    for (uint32_t i = 0; i < e->n_backends; i++)
        out->backends[i].out_of_service = e->slots[i].out_of_service;
    cz_eng_unlock(e);
    cz_budget_usage(&e->budget, &out->memory_used_bytes, &out->memory_total_bytes);
    out->n_srs = cz_srs_list(&e->srs, out->srs, sizeof out->srs / sizeof out->srs[0]);
    for (size_t i = 0; i < out->n_srs; i++) out->development_keys += out->srs[i].development != 0;
    pthread_mutex_lock(&e->steps_lock);
    out->n_steps = e->n_steps;
    for (size_t i = 0; i < e->n_steps; i++) {
        const cz_hist *h = &e->steps[i].calls;
        cz_engine_step *o = &out->steps[i];
        memcpy(o->name, e->steps[i].name, sizeof o->name);
        o->count = h->count, o->total_ns = h->total, o->max_ns = h->max;
        o->median_ns = cz_hist_median(h);
    }
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
    cz_eng_kind_counters c[CZ_PROOF_KIND_COUNT];
    pthread_mutex_lock(&e->lock);
    memcpy(c, e->counters, sizeof c);
    size_t synth_q = e->synth.n, prove_q = e->prove.n;
    cz_eng_unlock(e);
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
    sb_printf(&b, "# HELP cuzk_backend_memory_plan How a context's most recently used key uses "
                  "the device (resident, partial or streaming: src/gpu/plan.h).\n"
                  "# TYPE cuzk_backend_memory_plan gauge\n");
    for (uint32_t i = 0; i < s.n_backends; i++)
        if (s.backends[i].memory_plan_kind[0])
            sb_printf(&b, "cuzk_backend_memory_plan{backend=\"%s\",plan=\"%s\"} 1\n",
                      s.backends[i].name, s.backends[i].memory_plan_kind);
    sb_printf(&b, "# HELP cuzk_backend_resident_circuit The circuits whose keys a context keeps "
                  "(1 per context and circuit).\n# TYPE cuzk_backend_resident_circuit gauge\n");
    for (uint32_t i = 0; i < s.n_backends; i++)
        for (uint32_t r = 0; r < s.backends[i].n_resident; r++)
            sb_printf(&b, "cuzk_backend_resident_circuit{backend=\"%s\",circuit_id=\"%s\"} 1\n",
                      s.backends[i].name, s.backends[i].resident_circuits[r]);
    sb_printf(&b, "# HELP cuzk_gpu_step_seconds_total Time in each step of the GPU prover, all "
                  "units.\n# TYPE cuzk_gpu_step_seconds_total counter\n");
    for (size_t i = 0; i < s.n_steps; i++)
        sb_printf(&b, "cuzk_gpu_step_seconds_total{step=\"%s\"} %.3f\n", s.steps[i].name,
                  (double)s.steps[i].total_ns / 1e9);
    sb_printf(&b, "# HELP cuzk_gpu_step_median_seconds The median call of each step of the GPU "
                  "prover (within 1/16), all units.\n# TYPE cuzk_gpu_step_median_seconds gauge\n");
    for (size_t i = 0; i < s.n_steps; i++)
        sb_printf(&b, "cuzk_gpu_step_median_seconds{step=\"%s\"} %.6f\n", s.steps[i].name,
                  (double)s.steps[i].median_ns / 1e9);
    sb_printf(&b, "# HELP cuzk_gpu_step_max_seconds The longest call of each step of the GPU "
                  "prover.\n# TYPE cuzk_gpu_step_max_seconds gauge\n");
    for (size_t i = 0; i < s.n_steps; i++)
        sb_printf(&b, "cuzk_gpu_step_max_seconds{step=\"%s\"} %.6f\n", s.steps[i].name,
                  (double)s.steps[i].max_ns / 1e9);
    sb_printf(&b,
              "# HELP cuzk_gpu_circuit_switches_total Prove units whose circuit differed from "
              "the previous unit's (a GPU re-uploads its parameters).\n"
              "# TYPE cuzk_gpu_circuit_switches_total counter\n"
              "cuzk_gpu_circuit_switches_total %" PRIu64 "\n",
              s.gpu_circuit_switches);
    sb_printf(&b,
              "# HELP cuzk_gpu_host_to_device_bytes_total Bytes copied from host memory to the "
              "GPUs (streamed key chunks, witnesses, circuit windows, a, b, c, key loads).\n"
              "# TYPE cuzk_gpu_host_to_device_bytes_total counter\n"
              "cuzk_gpu_host_to_device_bytes_total %" PRIu64 "\n",
              cz_gpu_h2d_bytes());
    sb_printf(&b,
              "# HELP cuzk_preemptions_total Units proven inside a lower-priority unit at one of "
              "its step boundaries (a WinningPoSt during a PoRep partition).\n"
              "# TYPE cuzk_preemptions_total counter\n"
              "cuzk_preemptions_total %" PRIu64 "\n",
              s.preemptions);
    sb_printf(&b, "# TYPE cuzk_memory_budget_bytes gauge\ncuzk_memory_budget_bytes %" PRIu64 "\n",
              s.memory_total_bytes);
    sb_printf(&b,
              "# TYPE cuzk_memory_reserved_bytes gauge\ncuzk_memory_reserved_bytes %" PRIu64 "\n",
              s.memory_used_bytes);
    sb_printf(&b,
              "# HELP cuzk_srs_development_keys Loaded SRS entries that are development keys "
              "(cuzk setup, NOT a trusted setup) or not in Filecoin's table: their proofs do "
              "not verify on chain.\n"
              "# TYPE cuzk_srs_development_keys gauge\ncuzk_srs_development_keys %" PRIu32 "\n",
              s.development_keys);
    sb_printf(&b, "# HELP cuzk_srs_development SRS per circuit loaded from a development key "
                  "(1) or Filecoin's (0).\n# TYPE cuzk_srs_development gauge\n");
    for (size_t i = 0; i < s.n_srs; i++)
        sb_printf(&b, "cuzk_srs_development{circuit_id=\"%s\"} %d\n", s.srs[i].circuit_id,
                  s.srs[i].development);
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
