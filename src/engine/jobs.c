/* The job table (engine_private.h): jobs keyed by request_id, submit
 * (id rules, the kind's admit op, the prepare item), await, cancel, the
 * result of an ended job, and a job's end. Ended jobs stay in the table
 * for result_retention_ms; the janitor (workers.c) prunes them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine_private.h"
#include "util/random.h"
#include "util/parallel.h"
#include "util/utf8.h"

const char *cz_proof_kind_name(cz_proof_kind kind) {
    switch (kind) {
    case CZ_PROOF_POREP: return "porep-c2";
    case CZ_PROOF_SNAP: return "snap-update";
    case CZ_PROOF_WINDOW_POST: return "window-post";
    case CZ_PROOF_WINNING_POST: return "winning-post";
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

void cz_eng_job_free(cz_eng_job *j) {
    if (j->state && j->ops->free_state) j->ops->free_state(j->state);
    free(j->proof);
    free(j->owned);
    free(j->vp_ptrs);
    free(j->vp_lens);
    free(j);
}

void cz_eng_job_unref_locked(cz_eng_job *j) {
    if (--j->refs == 0 && j->pruned) cz_eng_job_free(j);
}

static cz_eng_job *find_job_locked(cz_engine *e, const char *id) {
    for (cz_eng_job *j = e->jobs; j; j = j->next)
        if (!strcmp(j->id, id)) return j;
    return NULL;
}

static void unlink_job_locked(cz_engine *e, cz_eng_job *j) {
    for (cz_eng_job **pp = &e->jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    j->pruned = 1;
}

/* Ends a job: counters, SRS reference, its state, waiters. */
void cz_eng_job_end_locked(cz_engine *e, cz_eng_job *j, cz_job_status st, cz_status why,
                           const char *msg) {
    if (j->phase == CZ_ENG_DONE) return;
    j->phase = CZ_ENG_DONE;
    j->final = st;
    j->t_end = cz_now_ns();
    if (msg && !j->error[0]) {
        snprintf(j->error, sizeof j->error, "%s", msg);
        j->error_status = why;
    }
    cz_eng_kind_counters *c = &e->counters[j->kind];
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
    if (j->admitted) cz_eng_reserve_update_locked(e, NULL); /* its room is free again */
    /* The C1 copy and its parsed form can be ~100 MB, the pooled witnesses
     * tens of GB: a finished job keeps only its result, and its state is
     * freed once the lock is dropped. No op of the job runs any more (all
     * units are over, or none was created). */
    cz_eng_defer_free_state_locked(e, j->ops, j->state);
    j->state = NULL;
    free(j->owned);
    j->owned = NULL;
    memset(&j->req, 0, sizeof j->req);
    cz_eng_defer_log_locked(
        e, st == CZ_JOB_FAILED ? CZ_LOG_WARN : CZ_LOG_INFO, "engine: job %s (%s) %s%s%s, %.3f s",
        j->id, cz_proof_kind_name(j->kind), cz_job_status_name(st), j->error[0] ? ": " : "",
        j->error, (double)(j->t_end - j->t_submit) / 1e9);
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
static cz_status copy_request(cz_eng_job *j, const cz_engine_request *r, cz_error *err) {
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

static const char *phase_name(cz_eng_phase p) {
    switch (p) {
    case CZ_ENG_QUEUED: return "queued";
    case CZ_ENG_PREPARING: return "preparing";
    case CZ_ENG_RUNNING: return "running";
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
static id_verdict lookup_id_locked(cz_engine *e, const char *id, uint64_t hash, cz_proof_kind kind,
                                   cz_error *err) {
    cz_eng_job *old = find_job_locked(e, id);
    if (!old) return ID_NEW;
    int same = old->payload_hash == hash && old->kind == kind;
    if (same && !(old->phase == CZ_ENG_DONE &&
                  (old->final == CZ_JOB_FAILED || old->final == CZ_JOB_CANCELLED)))
        return ID_ATTACH;
    if (!same && old->phase != CZ_ENG_DONE) {
        cz_error_set(err, CZ_E_BUSY,
                     "request_id '%s' is in use by a %s %s job (submitted %.1f s ago) with a "
                     "different payload; it can be reused once that job ends or is cancelled",
                     id, phase_name(old->phase), cz_proof_kind_name(old->kind),
                     (double)(cz_now_ns() - old->t_submit) / 1e9);
        return ID_REFUSE;
    }
    unlink_job_locked(e, old);
    if (old->refs == 0) cz_eng_job_free(old);
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
    /* An unknown priority is the caller's mistake, not a request for NORMAL
     * (proto3 keeps unknown enum values, so 5 or -1 arrive as they are). */
    int prio = (int)req->priority;
    if (prio < CZ_PRIORITY_UNSPECIFIED || prio > CZ_PRIORITY_CRITICAL)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "priority %d is not one of PRIORITY_UNSPECIFIED (0), LOW (1), NORMAL "
                            "(2), HIGH (3), CRITICAL (4)",
                            prio);
    if (prio == CZ_PRIORITY_UNSPECIFIED) prio = default_priority(req->kind);
    uint64_t hash = payload_hash(req);

    /* A repeated submission joins its job without re-checking the payload. */
    pthread_mutex_lock(&e->lock);
    id_verdict v = ID_NEW;
    if (e->draining || e->stop)
        st = cz_error_set(err, CZ_E_SHUTDOWN, "engine is shutting down; not accepting proofs");
    else if (!anonymous)
        v = lookup_id_locked(e, id, hash, req->kind, err);
    cz_eng_unlock(e);
    if (st != CZ_OK || v == ID_REFUSE) return st != CZ_OK ? st : CZ_E_BUSY;
    if (v == ID_ATTACH) {
        snprintf(info->job_id, sizeof info->job_id, "%s", id);
        info->attached = 1;
        return CZ_OK;
    }

    /* Without the lock: the admission check (which keeps what prepare
     * needs, so the request's buffers are not kept) or a copy of them. */
    cz_eng_job *j = calloc(1, sizeof *j);
    if (!j) return cz_error_set(err, CZ_E_NOMEM, "engine: out of memory");
    memcpy(j->id, id, id_len + 1);
    j->kind = req->kind;
    j->priority = prio;
    j->ops = ops;
    j->payload_hash = hash;
    j->phase = CZ_ENG_QUEUED;
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
        cz_eng_job_free(j);
        return st;
    }

    pthread_mutex_lock(&e->lock);
    if (e->draining || e->stop)
        st = cz_error_set(err, CZ_E_SHUTDOWN, "engine is shutting down; not accepting proofs");
    else if (!anonymous) /* another submission of the id may have come in meanwhile */
        v = lookup_id_locked(e, id, hash, req->kind, err);
    if (st == CZ_OK && v == ID_NEW) {
        j->t_submit = cz_now_ns();
        /* The sequence number is part of the heap key: set before the push. */
        j->seq = e->next_seq++;
        if (!cz_eng_synth_push_locked(e, (cz_eng_item){.j = j, .unit = CZ_ENG_PREPARE_UNIT}))
            st = cz_error_set(err, CZ_E_NOMEM, "engine: out of memory");
    }
    if (st != CZ_OK || v != ID_NEW) {
        cz_eng_unlock(e);
        cz_eng_job_free(j);
        if (st == CZ_OK && v == ID_ATTACH) {
            snprintf(info->job_id, sizeof info->job_id, "%s", id);
            info->attached = 1;
        }
        return st != CZ_OK ? st : v == ID_REFUSE ? CZ_E_BUSY : CZ_OK;
    }
    j->refs = 1; /* the prepare item */
    uint32_t ahead = 0;
    for (cz_eng_job *o = e->jobs; o; o = o->next)
        if (o->phase == CZ_ENG_QUEUED && o->priority >= prio) ahead++;
    j->next = e->jobs;
    e->jobs = j;
    snprintf(info->job_id, sizeof info->job_id, "%s", id);
    info->queue_position = ahead;
    cz_eng_timeline_locked(e, "SUBMIT", j, "%s prio=%d", cz_proof_kind_name(j->kind), prio);
    cz_eng_unlock(e);
    return CZ_OK;
}

static void fill_result(const cz_eng_job *j, cz_engine_result *out) {
    out->status = j->final;
    snprintf(out->error_message, sizeof out->error_message, "%s", j->error);
    if (j->final == CZ_JOB_CANCELLED)
        out->error_status = CZ_E_CANCELLED;
    else if (j->final != CZ_JOB_COMPLETED)
        out->error_status = j->error_status != CZ_OK ? j->error_status : CZ_E_INTERNAL;
    if (j->final == CZ_JOB_COMPLETED && j->proof) {
        size_t len = (size_t)j->plan.units * j->plan.unit_proof_bytes;
        out->proof = malloc(len);
        if (out->proof) {
            memcpy(out->proof, j->proof, len);
            out->proof_len = len;
        } else {
            out->status = CZ_JOB_FAILED;
            out->error_status = CZ_E_NOMEM;
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
    cz_eng_job *j = find_job_locked(e, job_id ? job_id : "");
    if (!j) {
        cz_eng_unlock(e);
        out->status = CZ_JOB_UNKNOWN;
        out->error_status = CZ_E_NOT_FOUND;
        snprintf(out->error_message, sizeof out->error_message, "no job with id '%s'",
                 job_id ? job_id : "");
        return CZ_OK;
    }
    j->refs++;
    while (j->phase != CZ_ENG_DONE) {
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
    if (j->phase == CZ_ENG_DONE) {
        fill_result(j, out);
    } else {
        out->status = CZ_JOB_TIMEOUT;
        snprintf(out->error_message, sizeof out->error_message,
                 "job '%s' still running after %" PRIu64 " ms; it goes on (await it again)", j->id,
                 timeout_ms);
    }
    cz_eng_job_unref_locked(j);
    cz_eng_unlock(e);
    return CZ_OK;
}
void cz_eng_cancel_job_locked(cz_engine *e, cz_eng_job *j) {
    if (j->phase == CZ_ENG_DONE || j->cancel) return;
    j->cancel = 1;
    cz_eng_timeline_locked(e, "CANCEL", j, NULL);
    if (j->phase == CZ_ENG_QUEUED)
        cz_eng_job_end_locked(e, j, CZ_JOB_CANCELLED, CZ_E_CANCELLED, "cancelled while queued");
    else if (j->in_load_queue)
        cz_eng_job_end_locked(e, j, CZ_JOB_CANCELLED, CZ_E_CANCELLED,
                              "cancelled while waiting for its SRS");
    cz_budget_wake(&e->budget); /* a unit waiting for memory gives up */
    pthread_cond_broadcast(&e->prove_room);
    pthread_cond_broadcast(&e->work);
    if (j->phase == CZ_ENG_RUNNING) cz_eng_drop_queued_units_locked(e, j);
}

cz_status cz_engine_cancel(cz_engine *e, const char *job_id, int *found, int *was_running,
                           cz_error *err) {
    (void)err;
    pthread_mutex_lock(&e->lock);
    cz_eng_job *j = find_job_locked(e, job_id ? job_id : "");
    *found = j != NULL;
    *was_running = j && (j->phase == CZ_ENG_PREPARING || j->phase == CZ_ENG_RUNNING);
    if (j) cz_eng_cancel_job_locked(e, j);
    cz_eng_unlock(e);
    return CZ_OK;
}

int cz_eng_jobs_active_locked(const cz_engine *e) {
    for (const cz_eng_job *j = e->jobs; j; j = j->next)
        if (j->phase != CZ_ENG_DONE) return 1;
    return 0;
}

/* ---- how units and jobs end ---- */

/* A unit is over (finished or dropped). Returns 1 when it was the job's
 * last unit and the caller must run cz_eng_finish_job (without the lock). */
static int unit_over_locked(cz_eng_job *j, cz_status st, const cz_error *uerr) {
    if (st != CZ_OK && !j->failed && !j->cancel) {
        j->failed = 1;
        snprintf(j->error, sizeof j->error, "%s", uerr->message);
        j->error_status = st;
    }
    return --j->units_left == 0;
}

void cz_eng_finish_job(cz_engine *e, cz_eng_job *j) {
    pthread_mutex_lock(&e->lock);
    int cancel = j->cancel, failed = j->failed;
    cz_eng_unlock(e);
    cz_job_status st = CZ_JOB_COMPLETED;
    cz_status why = CZ_OK;
    cz_error verr = {0};
    char msg[600] = "";
    if (cancel) {
        st = CZ_JOB_CANCELLED;
        why = CZ_E_CANCELLED;
        snprintf(msg, sizeof msg, "cancelled");
    } else if (!failed) {
        size_t len = (size_t)j->plan.units * j->plan.unit_proof_bytes;
        cz_eng_timeline(e, "VERIFY_START", j, NULL);
        uint64_t t_verify = cz_now_ns();
        cz_status vs =
            j->ops->verify(j->state, j->proof, len, j->plan.circuit_id[0] ? &j->srs : NULL, &verr);
        cz_eng_span(e, "self-verify", j, -1, t_verify, cz_now_ns());
        cz_eng_timeline(e, "VERIFY_END", j, "%s", vs == CZ_OK ? "ok" : "bad");
        if (vs != CZ_OK) {
            /* Never an empty reason: an op that set no message still has
             * a status. */
            st = CZ_JOB_FAILED;
            why = vs;
            snprintf(msg, sizeof msg, "self-check failed, proof not returned: %s",
                     verr.message[0] ? verr.message : cz_status_name(vs));
        }
    } else {
        st = CZ_JOB_FAILED;
    }
    pthread_mutex_lock(&e->lock);
    cz_eng_job_end_locked(e, j, st, why, msg[0] ? msg : NULL);
    cz_eng_unlock(e);
}

void cz_eng_unit_dropped_locked(cz_engine *e, cz_eng_job *j) {
    if (unit_over_locked(j, CZ_OK, NULL)) {
        cz_eng_unlock(e);
        cz_eng_finish_job(e, j);
        pthread_mutex_lock(&e->lock);
    }
    cz_eng_job_unref_locked(j); /* the item's reference */
}

/* Ends a unit: returns its memory, records its outcome, finishes the job
 * after its last unit and drops the caller's reference to the job. A unit
 * that fails its job drops the job's queued units. */
void cz_eng_unit_end(cz_engine *e, cz_eng_job *j, uint64_t reserved, cz_status st,
                     const cz_error *uerr) {
    if (reserved) cz_budget_release(&e->budget, reserved);
    pthread_mutex_lock(&e->lock);
    int was_failed = j->failed;
    if (unit_over_locked(j, st, uerr)) {
        cz_eng_unlock(e);
        cz_eng_finish_job(e, j);
        pthread_mutex_lock(&e->lock);
    } else if (!was_failed && j->failed) {
        cz_eng_drop_queued_units_locked(e, j);
    }
    cz_eng_job_unref_locked(j);
    cz_eng_unlock(e);
}

/* Drops a synthesized unit taken from the prove heap; drops the lock while
 * its discard op runs and the unit ends. */
void cz_eng_drop_synthesized_locked(cz_engine *e, cz_eng_item it) {
    cz_eng_job *j = it.j;
    cz_eng_item_taken_locked(e, &it);
    cz_eng_unlock(e);
    j->ops->discard(j->state, it.unit, it.data, 0);
    cz_eng_unit_end(e, j, it.reserved, CZ_OK, NULL);
    pthread_mutex_lock(&e->lock);
}

/* The queued units of a cancelled or failed job end now (the lock is
 * dropped while ops run and units end): a unit waiting
 * for synthesis holds nothing yet; a synthesized one holds its buffers and
 * memory reservation, which would otherwise wait for a prove worker to take
 * and drop it (behind a busy prover: a whole partition, minutes at 32 GiB).
 * Units being synthesized or proven stop at their next step boundary. */
void cz_eng_drop_queued_units_locked(cz_engine *e, cz_eng_job *j) {
    j->refs++; /* j stays while the lock is dropped */
    size_t i;
    while ((i = cz_eng_find_unit_of(&e->synth, j)) != SIZE_MAX) {
        cz_eng_heap_take(&e->synth, i);
        cz_eng_unit_dropped_locked(e, j);
    }
    while ((i = cz_eng_find_unit_of(&e->prove, j)) != SIZE_MAX) {
        cz_eng_item it = cz_eng_heap_take(&e->prove, i);
        pthread_cond_broadcast(&e->prove_room); /* blocked synthesis workers re-check */
        pthread_cond_broadcast(&e->work);       /* and so do those held by the run-ahead bound */
        cz_eng_drop_synthesized_locked(e, it);
    }
    cz_eng_job_unref_locked(j);
}
