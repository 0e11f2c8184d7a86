/* Prover back-end contexts: the CPU and one per CUDA device (backend.h). */
#include "engine/backend.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "util/cancel.h"
#include "util/log.h"
#include "util/parallel.h"

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

void cz_backend_init(cz_backend *b, const cz_backend_ops *ops, void *impl, const char *name) {
    memset(b, 0, sizeof *b);
    b->ops = ops;
    b->impl = impl;
    pthread_mutex_init(&b->run_lock, NULL);
    pthread_mutex_init(&b->info_lock, NULL);
    snprintf(b->info.name, sizeof b->info.name, "%s", name);
    b->info.device = -1;
}

void cz_backend_note_resident(cz_backend *b, const char *circuit_id, uint64_t bytes,
                              int streaming) {
    pthread_mutex_lock(&b->info_lock);
    snprintf(b->info.resident_circuit, sizeof b->info.resident_circuit, "%s",
             circuit_id ? circuit_id : "");
    b->info.memory_used = bytes;
    b->info.streaming = streaming;
    pthread_mutex_unlock(&b->info_lock);
}

cz_status cz_backend_prove_start(cz_backend *b, cz_groth16_msm_results *out,
                                 const cz_backend_unit *u, cz_error *err) {
    pthread_mutex_lock(&b->run_lock);
    pthread_mutex_lock(&b->info_lock);
    b->info.busy = 1;
    snprintf(b->info.current_job, sizeof b->info.current_job, "%s", u->job_id ? u->job_id : "");
    b->info.current_kind = u->kind;
    pthread_mutex_unlock(&b->info_lock);
    uint64_t t0 = cz_now_ns();
    cz_status st = b->ops->prove_start(b, out, u, err);
    uint64_t dt = cz_now_ns() - t0;
    pthread_mutex_lock(&b->info_lock);
    b->info.busy_ns += dt;
    b->info.busy = 0;
    b->info.current_job[0] = 0;
    if (st == CZ_OK)
        b->info.units++;
    else
        b->info.failures++;
    pthread_mutex_unlock(&b->info_lock);
    pthread_mutex_unlock(&b->run_lock);
    return st;
}

uint64_t cz_backend_release(cz_backend *b, const char *circuit_id) {
    if (!b->ops->release) return 0;
    pthread_mutex_lock(&b->run_lock);
    uint64_t freed = b->ops->release(b, circuit_id);
    pthread_mutex_unlock(&b->run_lock);
    return freed;
}

void cz_backend_get_info(cz_backend *b, cz_backend_info *out) {
    pthread_mutex_lock(&b->info_lock);
    *out = b->info;
    pthread_mutex_unlock(&b->info_lock);
}

void cz_backend_destroy(cz_backend *b) {
    if (!b) return;
    if (b->ops->release) b->ops->release(b, NULL);
    if (b->ops->destroy) b->ops->destroy(b);
    pthread_mutex_destroy(&b->run_lock);
    pthread_mutex_destroy(&b->info_lock);
    free(b);
}

/* ---- CPU ---- */

/* a, b, c of a witness unit from its pre-compiled circuit, over all cores,
 * into host buffers; *view borrows them (free view->a, b, c). */
static cz_status host_evaluate(cz_prove_data *view, const cz_backend_unit *u, cz_error *err) {
    const cz_circuit *c = u->circuit;
    size_t n = (size_t)c->num_constraints;
    cz_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *cc = malloc(n * sizeof *cc);
    if (!a || !b || !cc) {
        free(a), free(b), free(cc);
        return cz_error_set(err, CZ_E_NOMEM, "prove: out of memory for a, b, c (3 x %zu)", n);
    }
    cz_circuit_eval(a, b, cc, c, u->witness->input, u->witness->aux);
    cz_circuit_prove_view(view, c, u->witness, a, b, cc);
    return CZ_OK;
}

static void host_evaluation_free(cz_prove_data *view) {
    free(view->a), free(view->b), free(view->c);
}

static cz_status cpu_prove_start(cz_backend *b, cz_groth16_msm_results *out,
                                 const cz_backend_unit *u, cz_error *err) {
    (void)b;
    if (u->pd) return cz_groth16_prove_start(out, u->params, u->pd, err);
    if (cz_cancel_requested()) /* a, b, c are a pass over the whole circuit */
        return cz_error_set(err, CZ_E_CANCELLED, "prove: cancelled before a, b, c");
    cz_prove_data view;
    cz_status st = host_evaluate(&view, u, err);
    if (st != CZ_OK) return st;
    st = cz_groth16_prove_start(out, u->params, &view, err);
    host_evaluation_free(&view);
    return st;
}

static const cz_backend_ops cpu_ops = {"cpu", cpu_prove_start, NULL, NULL};

cz_status cz_backend_cpu_create(cz_backend **out, cz_error *err) {
    *out = calloc(1, sizeof **out);
    if (!*out) return cz_error_set(err, CZ_E_NOMEM, "back-end: out of memory");
    cz_backend_init(*out, &cpu_ops, NULL, "cpu");
    snprintf((*out)->info.description, sizeof(*out)->info.description, "%u CPU threads",
             cz_thread_count());
    return CZ_OK;
}

/* ---- CUDA ----
 * The key of the circuit proven last stays resident (cz_gpu_srs), keyed by
 * the circuit id and the key's sizes, delta and first H point (copied), so
 * host parameters that were evicted and reloaded at another address still
 * hit, and another circuit's or another setup's key never does. */

typedef struct {
    size_t n_ic, n_h, n_l, n_a, n_b_g1, n_b_g2;
    cz_g1_affine delta_g1, h0;
} srs_key;

typedef struct {
    int device;
    uint64_t budget; /* 0 = the device's free memory */
    cz_gpu_srs *srs;
    cz_gpu_circuit *gc; /* the pre-compiled circuit of the same circuit id, when given */
    srs_key key;
    char circuit[32];
} cuda_ctx;

static void srs_key_of(srs_key *k, const cz_groth16_params *p) {
    memset(k, 0, sizeof *k);
    k->n_ic = p->vk.n_ic, k->n_h = p->n_h, k->n_l = p->n_l, k->n_a = p->n_a;
    k->n_b_g1 = p->n_b_g1, k->n_b_g2 = p->n_b_g2;
    k->delta_g1 = p->vk.delta_g1;
    if (p->n_h) k->h0 = p->h[0];
}

static uint64_t cuda_release(cz_backend *b, const char *circuit_id) {
    cuda_ctx *c = b->impl;
    if ((!c->srs && !c->gc) || (circuit_id && strcmp(circuit_id, c->circuit) != 0)) return 0;
    uint64_t bytes = cz_gpu_srs_bytes(c->srs) + cz_gpu_circuit_bytes(c->gc);
    cz_error err = {0};
    if (cz_gpu_set_device(c->device, &err) == CZ_OK) {
        cz_gpu_srs_destroy(c->srs);
        cz_gpu_circuit_destroy(c->gc);
    }
    c->srs = NULL;
    c->gc = NULL;
    c->circuit[0] = 0;
    cz_backend_note_resident(b, "", 0, 0);
    return bytes;
}

static cz_status cuda_prove_start(cz_backend *b, cz_groth16_msm_results *out,
                                  const cz_backend_unit *u, cz_error *err) {
    cuda_ctx *c = b->impl;
    cz_status st = cz_gpu_set_device(c->device, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", b->info.name);
    srs_key key;
    srs_key_of(&key, u->params);
    const char *id = u->circuit_id ? u->circuit_id : "";
    if (!c->srs || memcmp(&key, &c->key, sizeof key) != 0 || strcmp(id, c->circuit) != 0 ||
        (u->circuit && !c->gc)) {
        cuda_release(b, NULL); /* the context holds one circuit at a time */
        uint64_t t0 = cz_now_ns();
        /* The circuit first: the key may stream when both do not fit. */
        if (u->circuit && (st = cz_gpu_circuit_create(&c->gc, u->circuit, err)) != CZ_OK)
            return cz_error_wrap(err, st, "%s: %s: pre-compiled circuit", b->info.name, id);
        size_t gc_bytes = cz_gpu_circuit_bytes(c->gc);
        size_t budget = c->budget > gc_bytes ? (size_t)(c->budget - gc_bytes) : 0;
        if (c->budget && !budget) {
            st = cz_error_set(err, CZ_E_NOMEM,
                              "%s: %s: the pre-compiled circuit (%.0f MiB) fills the context's "
                              "device budget (%.0f MiB)",
                              b->info.name, id, MIB(gc_bytes), MIB(c->budget));
            cuda_release(b, NULL);
            return st;
        }
        st = cz_gpu_srs_create_budget(&c->srs, u->params, budget, err);
        if (st != CZ_OK) {
            cuda_release(b, NULL);
            return cz_error_wrap(err, st, "%s: %s", b->info.name, id);
        }
        c->key = key;
        snprintf(c->circuit, sizeof c->circuit, "%s", id);
        cz_backend_note_resident(b, id, cz_gpu_srs_bytes(c->srs) + gc_bytes,
                                 cz_gpu_srs_streaming(c->srs, NULL, 0));
        char why[256];
        if (cz_gpu_srs_streaming(c->srs, why, sizeof why))
            cz_log(CZ_LOG_WARN, "%s: %s: parameters do not fit: %s", b->info.name, id, why);
        else
            cz_log(CZ_LOG_INFO,
                   "%s: %s: parameters (%.0f MiB) and circuit (%.0f MiB) resident, uploaded "
                   "in %.2f s",
                   b->info.name, id, MIB(cz_gpu_srs_bytes(c->srs)), MIB(gc_bytes),
                   (double)(cz_now_ns() - t0) / 1e9);
    }
    if (u->pd) {
        st = cz_gpu_groth16_prove_start(out, c->srs, u->params, NULL, u->pd, err);
    } else {
        /* a, b, c on the device from the resident circuit: only the
         * witness crosses PCIe. */
        cz_prove_data view;
        cz_circuit_prove_view(&view, u->circuit, u->witness, NULL, NULL, NULL);
        st = cz_gpu_groth16_prove_start(out, c->srs, u->params, c->gc, &view, err);
    }
    if (st != CZ_OK) cz_error_prefix(err, "%s", b->info.name);
    return st;
}

static void cuda_destroy(cz_backend *b) {
    free(b->impl);
}

static const cz_backend_ops cuda_ops = {"cuda", cuda_prove_start, cuda_release, cuda_destroy};

cz_status cz_backend_cuda_create(cz_backend **out, int device, uint64_t budget_bytes,
                                 const char *name, cz_error *err) {
    *out = NULL;
    char desc[160] = "";
    size_t free_b = 0, total_b = 0;
    cz_status st = cz_gpu_probe_device(device, desc, sizeof desc, err);
    if (st == CZ_OK) st = cz_gpu_set_device(device, err);
    if (st == CZ_OK) st = cz_gpu_mem_info(&free_b, &total_b, err);
    if (st != CZ_OK) return st;
    cuda_ctx *c = calloc(1, sizeof *c);
    cz_backend *b = calloc(1, sizeof *b);
    if (!c || !b) {
        free(c);
        free(b);
        return cz_error_set(err, CZ_E_NOMEM, "back-end: out of memory");
    }
    c->device = device;
    c->budget = budget_bytes;
    cz_backend_init(b, &cuda_ops, c, name);
    b->info.device = device;
    snprintf(b->info.description, sizeof b->info.description, "%s", desc);
    b->info.memory_total = total_b;
    b->info.memory_budget = budget_bytes ? budget_bytes : free_b;
    *out = b;
    return CZ_OK;
}

/* ---- from a choice ---- */

cz_status cz_backends_create(cz_backend **out, uint32_t *n, uint32_t max,
                             const cz_engine_config *cfg, cz_error *err) {
    *n = 0;
    const char *kind = cfg->backend && *cfg->backend ? cfg->backend : "auto";
    if (strcmp(kind, "auto") && strcmp(kind, "cpu") && strcmp(kind, "cuda"))
        return cz_error_set(err, CZ_E_INVALID_ARG, "back-end '%s': expected auto, cpu or cuda",
                            kind);
    if (strcmp(kind, "cpu") != 0) {
        uint32_t devices[CZ_ENGINE_MAX_BACKENDS], nd = cfg->n_devices;
        cz_error gerr = {0};
        int count = 0;
        cz_status st = cz_gpu_device_count(&count, &gerr);
        if (nd) {
            memcpy(devices, cfg->devices, nd * sizeof *devices);
        } else if (st == CZ_OK) {
            nd =
                (uint32_t)count < CZ_ENGINE_MAX_BACKENDS ? (uint32_t)count : CZ_ENGINE_MAX_BACKENDS;
            for (uint32_t i = 0; i < nd; i++) devices[i] = i;
        }
        if (nd > max) nd = max;
        if (st == CZ_OK) {
            for (uint32_t i = 0; i < nd && st == CZ_OK; i++) {
                /* Contexts sharing a device share its memory equally unless
                 * a budget is set. */
                uint32_t same = 0, nth = 0;
                for (uint32_t k = 0; k < nd; k++) {
                    if (devices[k] != devices[i]) continue;
                    if (k < i) nth++;
                    same++;
                }
                char name[32];
                if (same > 1)
                    snprintf(name, sizeof name, "cuda:%u/%u", devices[i], nth);
                else
                    snprintf(name, sizeof name, "cuda:%u", devices[i]);
                uint64_t budget = cfg->device_memory_bytes;
                if (!budget && same > 1) {
                    size_t free_b = 0, total_b = 0;
                    cz_error merr = {0};
                    if (cz_gpu_set_device((int)devices[i], &merr) == CZ_OK &&
                        cz_gpu_mem_info(&free_b, &total_b, &merr) == CZ_OK)
                        budget = free_b / same;
                }
                st = cz_backend_cuda_create(&out[*n], (int)devices[i], budget, name, &gerr);
                if (st == CZ_OK)
                    (*n)++;
                else
                    cz_error_prefix(&gerr, "device %u", devices[i]);
            }
        }
        if (st == CZ_OK && *n) return CZ_OK;
        for (uint32_t i = 0; i < *n; i++) cz_backend_destroy(out[i]);
        *n = 0;
        /* "cuda", or devices listed explicitly: no silent fall-back. */
        if (!strcmp(kind, "cuda") || cfg->n_devices) {
            if (st == CZ_OK) st = cz_error_set(&gerr, CZ_E_UNSUPPORTED, "no CUDA device");
            if (err) *err = gerr;
            return cz_error_wrap(err, st, "back-end %s", kind);
        }
        st = cz_backend_cpu_create(&out[0], err);
        if (st != CZ_OK) return st;
        *n = 1;
        snprintf(out[0]->info.description, sizeof out[0]->info.description,
                 "%u CPU threads (no usable GPU: %.100s)", cz_thread_count(), gerr.message);
        return CZ_OK;
    }
    if (max == 0) return cz_error_set(err, CZ_E_INVALID_ARG, "back-end: no room");
    cz_status st = cz_backend_cpu_create(&out[0], err);
    if (st == CZ_OK) *n = 1;
    return st;
}
