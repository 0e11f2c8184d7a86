/* The skeleton of the Filecoin job kinds (job.h): pooled witness buffers,
 * synthesis on a share of the cores, the prove back-end with the SRS's
 * pre-compiled circuit, and the proof from the MSM results. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/job.h"
#include "groth16/groth16.h"
#include "util/parallel.h"

/* Units being synthesized in this process, of every kind: each takes a
 * share of the cores, so a lone unit uses all of them and many use one
 * each. */
static atomic_uint synthesizing;
static _Thread_local int all_cores;

void cz_job_witness_all_cores(int on) {
    all_cores = on;
}

void cz_witness_job_init(cz_witness_job *j, cz_witness_fill fill) {
    j->fill = fill;
    j->pooled = j->units = j->taken = 0;
    pthread_mutex_init(&j->pool_lock, NULL);
}

void cz_witness_job_free(cz_witness_job *j) {
    for (unsigned i = 0; i < j->pooled; i++) {
        cz_witness_free(j->pool[i]);
        free(j->pool[i]);
    }
    j->pooled = 0;
    pthread_mutex_destroy(&j->pool_lock);
}

/* A buffer for a unit: a pooled one, or a new one; the last unit's take
 * frees the rest of the pool (no unit will want them). */
static cz_witness *witness_take(cz_witness_job *j) {
    cz_witness *w = NULL, *idle[CZ_JOB_WITNESS_POOL];
    unsigned n_idle = 0;
    pthread_mutex_lock(&j->pool_lock);
    if (j->pooled) w = j->pool[--j->pooled];
    if (++j->taken >= j->units)
        while (j->pooled) idle[n_idle++] = j->pool[--j->pooled];
    pthread_mutex_unlock(&j->pool_lock);
    while (n_idle) {
        cz_witness_free(idle[--n_idle]);
        free(idle[n_idle]);
    }
    return w ? w : calloc(1, sizeof *w);
}

static void witness_put(cz_witness_job *j, cz_witness *w) {
    if (!w) return;
    pthread_mutex_lock(&j->pool_lock);
    /* a unit synthesized again (workers.c again_locked) takes a fresh one */
    if (j->pooled < CZ_JOB_WITNESS_POOL && j->taken < j->units) {
        j->pool[j->pooled++] = w;
        w = NULL;
    }
    pthread_mutex_unlock(&j->pool_lock);
    if (w) {
        cz_witness_free(w);
        free(w);
    }
}

uint64_t cz_job_unit_bytes(uint64_t n_inputs, uint64_t n_aux, uint64_t m, int host_evaluation) {
    uint64_t bytes = 32 * (n_inputs + n_aux) + (64ull << 20);
    if (host_evaluation) bytes += 32 * (6 * m + n_aux);
    return bytes;
}

cz_status cz_job_unit_bytes_from_params(uint64_t *out, uint64_t *m, const char *path,
                                        int host_evaluation, cz_error *err) {
    cz_groth16_params_head head;
    cz_status st = cz_groth16_params_file_head(&head, path, err);
    if (st == CZ_E_NOT_FOUND || st == CZ_E_IO)
        return cz_error_set(
            err, st, "parameters %s not found (run `cuzk setup` or set [srs] param_cache)", path);
    if (st != CZ_OK) return st;
    *out = cz_job_unit_bytes(head.n_ic, head.n_l, head.n_h + 1, host_evaluation);
    if (m) *m = head.n_h + 1;
    return CZ_OK;
}

void cz_witness_job_plan(cz_witness_job *j, cz_job_plan *plan, const char *circuit_id,
                         uint32_t units, uint64_t unit_bytes, uint64_t m) {
    pthread_mutex_lock(&j->pool_lock);
    j->units = units;
    pthread_mutex_unlock(&j->pool_lock);
    plan->wants_circuit = 1;
    plan->units = units;
    plan->unit_bytes = unit_bytes;
    plan->unit_abc_bytes = plan->host_evaluation ? 0 : 3 * 32 * m;
    plan->unit_proof_bytes = CZ_GROTH16_PROOF_BYTES;
    plan->unit_bytes_after = sizeof(cz_groth16_msm_results);
    snprintf(plan->circuit_id, sizeof plan->circuit_id, "%s", circuit_id);
}

/* A synthesized unit: its witness, and what cz_job_witness_prep made of it
 * ahead on a context (prep_on's token, or NULL); no_abc: its reservation
 * holds no a, b, c (job.h: prep). */
typedef struct {
    cz_witness *w;
    cz_backend *prep_on;
    void *prep;
    int no_abc;
} witness_unit;

static void unit_free(cz_witness_job *j, witness_unit *wu) {
    cz_backend_prep_free(wu->prep_on, wu->prep); /* no token: nothing */
    witness_put(j, wu->w);
    free(wu);
}

cz_status cz_job_witness_synthesize(void *state, uint32_t unit, void **synth, cz_error *err) {
    cz_witness_job *j = state;
    witness_unit *wu = calloc(1, sizeof *wu);
    cz_witness *w = wu ? witness_take(j) : NULL;
    if (!w) {
        free(wu);
        return cz_error_set(err, CZ_E_NOMEM, "unit %u: out of memory for its witness", unit);
    }
    unsigned active = atomic_fetch_add(&synthesizing, 1) + 1;
    unsigned cores = cz_thread_count(), threads = all_cores ? cores : (cores + active - 1) / active;
    cz_status st = j->fill(state, unit, w, threads, err);
    atomic_fetch_sub(&synthesizing, 1);
    if (st != CZ_OK) {
        witness_put(j, w);
        free(wu);
        return cz_error_wrap(err, st, "partition %u: synthesis", unit);
    }
    wu->w = w;
    *synth = wu;
    return CZ_OK;
}

/* The unit as the back-end takes it, with the token prepared on where's
 * context (none for another context). */
static cz_backend_unit backend_unit(const witness_unit *wu, const cz_srs_handle *srs,
                                    const cz_prove_context *where) {
    return (cz_backend_unit){.job_id = where->job_id,
                             .kind = where->kind,
                             .circuit_id = where->circuit_id,
                             .params = srs->params,
                             .circuit = srs->circuit,
                             .witness = wu->w,
                             .params_file = srs->params_file,
                             .priority = where->priority,
                             .prep = wu->prep_on == where->backend ? wu->prep : NULL,
                             .abc_unreserved = wu->no_abc};
}

int cz_job_witness_prep(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                        const cz_prove_context *where, int shed_abc) {
    (void)state, (void)unit;
    witness_unit *wu = synth;
    if (!srs || !srs->circuit || wu->prep) return 0;
    cz_backend_unit u = backend_unit(wu, srs, where);
    wu->prep = cz_backend_prep(where->backend, &u);
    if (!wu->prep) return 0;
    wu->prep_on = where->backend;
    wu->no_abc = shed_abc && cz_backend_prep_no_abc(where->backend, wu->prep);
    return wu->no_abc ? 2 : 1;
}

cz_status cz_job_witness_prove_start(void *state, uint32_t unit, void *synth,
                                     const cz_srs_handle *srs, const cz_prove_context *where,
                                     void **pending, cz_error *err) {
    witness_unit *wu = synth;
    cz_witness *w = wu->w;
    cz_groth16_msm_results *msm = malloc(sizeof *msm);
    cz_status st = msm ? CZ_OK : cz_error_set(err, CZ_E_NOMEM, "out of memory");
    if (st == CZ_OK && !srs->circuit)
        st = cz_error_set(err, CZ_E_INTERNAL, "the SRS has no pre-compiled circuit");
    if (st == CZ_OK &&
        (w->num_inputs != srs->circuit->num_inputs || w->num_aux != srs->circuit->num_aux))
        st = cz_error_set(
            err, CZ_E_INTERNAL, "witness of %u inputs and %u aux, the circuit has %u and %u",
            w->num_inputs, w->num_aux, srs->circuit->num_inputs, srs->circuit->num_aux);
    if (st == CZ_OK) {
        cz_backend_unit u = backend_unit(wu, srs, where);
        st = cz_backend_prove_start(where->backend, msm, &u, err);
    }
    unit_free(state, wu);
    if (st != CZ_OK) {
        free(msm);
        return cz_error_wrap(err, st, "partition %u: prove", unit);
    }
    *pending = msm;
    return CZ_OK;
}

cz_status cz_job_msm_prove_finish(void *state, uint32_t unit, void *pending,
                                  const cz_srs_handle *srs, uint8_t *out, cz_error *err) {
    (void)state;
    cz_groth16_msm_results *msm = pending;
    cz_groth16_proof proof;
    cz_status st = cz_groth16_prove_finalize(&proof, &srs->params->vk, msm, NULL, NULL, err);
    free(msm);
    if (st != CZ_OK) return cz_error_wrap(err, st, "partition %u: finalize", unit);
    cz_groth16_proof_encode(out, &proof);
    return CZ_OK;
}

void cz_job_witness_discard(void *state, uint32_t unit, void *data, int stage) {
    (void)unit;
    if (stage == 0)
        unit_free(state, data);
    else
        free(data);
}
