/* cuzk.v1.ProvingEngine over the core C API of libgrpc (see daemon.h).
 *
 * A call's context is shared by the completion-queue thread and its handler
 * thread; `refs` counts the operations in flight on it (receive, close
 * notification, send) and the last one to finish frees it. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

#include "cuzk/v1/proving.pb-c.h"
#include "daemon/daemon.h"
#include "daemon/grpc_args.h"
#include "daemon/http_metrics.h"
#include "daemon/notify.h"
#include "daemon/request.h"
#include "engine/job.h"
#include "filecoin/common/params_table.h"
#include "gpu/gpu.h"
#include "util/log.h"
#include "util/parallel.h"

typedef enum { TAG_NEW, TAG_RECV, TAG_SEND, TAG_CLOSE, TAG_SHUTDOWN } tag_kind;

typedef struct call_ctx call_ctx;
typedef struct {
    tag_kind kind;
    call_ctx *c;
} tag_t;

struct cz_daemon {
    cz_daemon_config cfg;
    cz_engine *engine;
    cz_http_metrics *http;
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t cq_thread;
    int cq_thread_started;
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    tag_t shutdown_tag;

    pthread_mutex_t lock;
    pthread_cond_t changed;
    int shutting_down, shutdown_done;
    uint32_t active_handlers;
    uint64_t request_bytes; /* held by calls in progress ([daemon] max_request_memory) */
    uint64_t receive_limit; /* gRPC's receive limit: min(256 MiB, max_request_memory / 4) */
    /* Calls whose message is not received yet, waiting for request memory
     * (FIFO through call_ctx.wait_next); their bytes stay in the client
     * and in HTTP/2 flow control until their receive starts. */
    call_ctx *wait_head, *wait_tail;
};

struct call_ctx {
    cz_daemon *d;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_byte_buffer *recv;
    int cancelled; /* written by RECV_CLOSE_ON_SERVER */
    atomic_int refs;
    atomic_int client_gone;
    tag_t t_new, t_recv, t_send, t_close;
    grpc_byte_buffer *send;
    grpc_slice status_details;
    int has_details;
    /* The request's bytes (contiguous) and what this call counts of them
     * in d->request_bytes; both go once the request is decoded (a
     * submission's: once it is submitted). */
    grpc_slice in;
    int has_in;
    uint64_t request_reserved;
    call_ctx *wait_next;
};

static call_ctx *ctx_new(cz_daemon *d) {
    call_ctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->d = d;
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    c->t_new = (tag_t){TAG_NEW, c};
    c->t_recv = (tag_t){TAG_RECV, c};
    c->t_send = (tag_t){TAG_SEND, c};
    c->t_close = (tag_t){TAG_CLOSE, c};
    return c;
}

static void release_request(call_ctx *c);

static void ctx_free(call_ctx *c) {
    release_request(c);
    if (c->call) grpc_call_unref(c->call);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    if (c->send) grpc_byte_buffer_destroy(c->send);
    if (c->has_details) grpc_slice_unref(c->status_details);
    free(c);
}

static void ctx_unref(call_ctx *c) {
    if (atomic_fetch_sub(&c->refs, 1) == 1) ctx_free(c);
}

/* Request memory, counted before the bytes arrive: a call's receive starts
 * only once it has reserved twice the most gRPC will let its message be
 * (2 * receive_limit: the received buffer and its contiguous copy); when
 * the message is in, the reservation shrinks to twice its real size and
 * is held until release_request, right after the request is handed to the
 * engine. The sum over calls stays within [daemon] max_request_memory;
 * calls that do not fit wait in FIFO order, receiving nothing meanwhile
 * (their bytes wait in the client, behind HTTP/2 flow control), and a
 * larger message is refused by gRPC. */
static void respond(call_ctx *c, grpc_status_code code, const char *message,
                    const ProtobufCMessage *reply);

/* Starts the receive of c's message; the reference of TAG_NEW passes to it. */
static void start_receive(call_ctx *c) {
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->recv;
    if (grpc_call_start_batch(c->call, &op, 1, &c->t_recv, NULL) != GRPC_CALL_OK) ctx_unref(c);
}

/* Starts the receives of waiting calls that now fit, in order. Takes and
 * drops d->lock. */
static void pump_waiting(cz_daemon *d) {
    for (;;) {
        pthread_mutex_lock(&d->lock);
        call_ctx *c = d->wait_head;
        uint64_t need = 2 * d->receive_limit;
        if (!c || d->request_bytes + need > d->cfg.max_request_memory) c = NULL;
        if (c) {
            d->wait_head = c->wait_next;
            if (!d->wait_head) d->wait_tail = NULL;
            d->request_bytes += need;
            c->request_reserved = need;
        }
        pthread_mutex_unlock(&d->lock);
        if (!c) return;
        start_receive(c);
    }
}

/* A new call: its receive starts when its reservation fits and no call
 * waits before it; else it joins the queue. */
static void admit_receive(cz_daemon *d, call_ctx *c) {
    pthread_mutex_lock(&d->lock);
    int shutting = d->shutting_down;
    if (!shutting) {
        c->wait_next = NULL;
        if (d->wait_tail)
            d->wait_tail->wait_next = c;
        else
            d->wait_head = c;
        d->wait_tail = c;
    }
    pthread_mutex_unlock(&d->lock);
    if (shutting) {
        respond(c, GRPC_STATUS_UNAVAILABLE, "the daemon is shutting down", NULL);
        ctx_unref(c);
        return;
    }
    pump_waiting(d);
}

/* The message is in: the reservation shrinks to twice its size. 0 when
 * it does not fit the reservation (gRPC's limit should have refused it). */
static int settle_request(cz_daemon *d, call_ctx *c, uint64_t bytes) {
    if (bytes > c->request_reserved) return 0;
    pthread_mutex_lock(&d->lock);
    d->request_bytes -= c->request_reserved - bytes;
    c->request_reserved = bytes;
    pthread_mutex_unlock(&d->lock);
    pump_waiting(d);
    return 1;
}

/* Drops the request's bytes and their reservation (idempotent). */
static void release_request(call_ctx *c) {
    if (c->has_in) {
        grpc_slice_unref(c->in);
        c->has_in = 0;
    }
    if (c->recv) {
        grpc_byte_buffer_destroy(c->recv);
        c->recv = NULL;
    }
    if (c->request_reserved) {
        pthread_mutex_lock(&c->d->lock);
        c->d->request_bytes -= c->request_reserved;
        pthread_mutex_unlock(&c->d->lock);
        c->request_reserved = 0;
        pump_waiting(c->d);
    }
}

/* Sends the response (message may be NULL) and the status. */
static void respond(call_ctx *c, grpc_status_code code, const char *message,
                    const ProtobufCMessage *reply) {
    if (reply) {
        size_t len = protobuf_c_message_get_packed_size(reply);
        uint8_t *buf = malloc(len ? len : 1);
        if (!buf) {
            code = GRPC_STATUS_RESOURCE_EXHAUSTED;
            message = "out of memory encoding the response";
        } else {
            protobuf_c_message_pack(reply, buf);
            grpc_slice s = grpc_slice_new(buf, len, free);
            c->send = grpc_raw_byte_buffer_create(&s, 1);
            grpc_slice_unref(s);
        }
    }
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (c->send && code == GRPC_STATUS_OK) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = c->send;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = code;
    if (code != GRPC_STATUS_OK && message) {
        c->status_details = grpc_slice_from_copied_string(message);
        c->has_details = 1;
        ops[n].data.send_status_from_server.status_details = &c->status_details;
    }
    n++;
    atomic_fetch_add(&c->refs, 1);
    if (grpc_call_start_batch(c->call, ops, n, &c->t_send, NULL) != GRPC_CALL_OK) {
        cz_log(CZ_LOG_WARN, "grpc: cannot send a response");
        ctx_unref(c);
    }
    if (code != GRPC_STATUS_OK && message)
        cz_log(CZ_LOG_INFO, "rpc %.*s: status %d: %s", (int)GRPC_SLICE_LENGTH(c->details.method),
               (const char *)GRPC_SLICE_START_PTR(c->details.method), (int)code, message);
}

static grpc_status_code code_of(cz_status st) {
    switch (st) {
    case CZ_E_INVALID_ARG:
    case CZ_E_PARSE:
    case CZ_E_RANGE:
    case CZ_E_NOT_ON_CURVE:
    case CZ_E_NOT_IN_SUBGROUP:
    case CZ_E_IDENTITY: return GRPC_STATUS_INVALID_ARGUMENT;
    case CZ_E_UNSUPPORTED: return GRPC_STATUS_UNIMPLEMENTED;
    case CZ_E_NOMEM: return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case CZ_E_NOT_FOUND: /* parameters missing on this machine: not the caller's fault */
    case CZ_E_BUSY: return GRPC_STATUS_FAILED_PRECONDITION;
    case CZ_E_CANCELLED: return GRPC_STATUS_CANCELLED;
    case CZ_E_SHUTDOWN: return GRPC_STATUS_UNAVAILABLE;
    default: return GRPC_STATUS_INTERNAL; /* CZ_E_IO, CZ_E_CUDA, CZ_E_VERIFY, CZ_E_INTERNAL */
    }
}

static int client_gone(void *ctx) {
    call_ctx *c = ctx;
    return atomic_load(&c->client_gone);
}

/* ---- handlers ---- */

static void fill_await(Cuzk__V1__AwaitProofResponse *m, const char *job_id,
                       const cz_engine_result *r) {
    cuzk__v1__await_proof_response__init(m);
    m->job_id = (char *)job_id;
    m->status = (Cuzk__V1__AwaitProofResponse__Status)r->status;
    m->proof.data = r->proof;
    m->proof.len = r->proof_len;
    m->error_message = (char *)r->error_message;
    m->queue_wait_ms = r->queue_wait_ms;
    m->srs_load_ms = r->srs_load_ms;
    m->synthesis_ms = r->synthesis_ms;
    m->gpu_compute_ms = r->gpu_compute_ms;
    m->total_ms = r->total_ms;
}

/* SubmitProof (wait = 0) and Prove (wait = 1). The request's bytes go
 * before the wait: a Prove holds only its job id while the proof runs. */
static void do_submit(call_ctx *c, cz_rpc_request *rq, int wait) {
    cz_engine *e = c->d->engine;
    cz_error err = {0};
    cz_engine_submit_info info;
    cz_status st = cz_engine_submit(e, &rq->submit, &info, &err);
    cz_rpc_request_free(rq);
    release_request(c);
    if (st != CZ_OK) return respond(c, code_of(st), err.message, NULL);
    if (info.attached)
        cz_log(CZ_LOG_INFO, "%s %s: attached to the existing job", wait ? "Prove" : "SubmitProof",
               info.job_id);
    else
        cz_log(CZ_LOG_INFO, "%s %s: queued (%u ahead)", wait ? "Prove" : "SubmitProof", info.job_id,
               info.queue_position);
    if (!wait) {
        Cuzk__V1__SubmitProofResponse m;
        cuzk__v1__submit_proof_response__init(&m);
        m.job_id = info.job_id;
        m.queue_position = info.queue_position;
        m.assigned_gpu = "";
        return respond(c, GRPC_STATUS_OK, NULL, &m.base);
    }
    cz_engine_result r;
    cz_engine_await(e, info.job_id, 0, client_gone, c, &r, &err);
    if (r.status == CZ_JOB_TIMEOUT) /* the caller went away; the job goes on */
        snprintf(r.error_message, sizeof r.error_message, "caller went away");
    Cuzk__V1__AwaitProofResponse a;
    fill_await(&a, info.job_id, &r);
    Cuzk__V1__ProveResponse m;
    cuzk__v1__prove_response__init(&m);
    m.result = &a;
    respond(c, GRPC_STATUS_OK, NULL, &m.base);
    cz_engine_result_free(&r);
}

static void do_await(call_ctx *c, cz_rpc_request *rq) {
    const Cuzk__V1__AwaitProofRequest *q = (const Cuzk__V1__AwaitProofRequest *)rq->msg;
    cz_engine_result r;
    cz_error err = {0};
    cz_engine_await(c->d->engine, q->job_id, q->timeout_ms, client_gone, c, &r, &err);
    if (r.status == CZ_JOB_UNKNOWN) {
        respond(c, GRPC_STATUS_NOT_FOUND, r.error_message, NULL);
    } else {
        Cuzk__V1__AwaitProofResponse a;
        fill_await(&a, q->job_id, &r);
        respond(c, GRPC_STATUS_OK, NULL, &a.base);
    }
    cz_engine_result_free(&r);
}

static void do_cancel(call_ctx *c, cz_rpc_request *rq) {
    const Cuzk__V1__CancelProofRequest *q = (const Cuzk__V1__CancelProofRequest *)rq->msg;
    int found = 0, was_running = 0;
    cz_error err = {0};
    cz_engine_cancel(c->d->engine, q->job_id, &found, &was_running, &err);
    if (!found) {
        char m[CZ_JOB_ID_MAX + 32];
        snprintf(m, sizeof m, "no job with id '%.256s'", q->job_id);
        respond(c, GRPC_STATUS_NOT_FOUND, m, NULL);
    } else {
        cz_log(CZ_LOG_INFO, "CancelProof %s (was running: %d)", q->job_id, was_running);
        Cuzk__V1__CancelProofResponse m;
        cuzk__v1__cancel_proof_response__init(&m);
        m.was_running = was_running;
        respond(c, GRPC_STATUS_OK, NULL, &m.base);
    }
}

static void do_status(call_ctx *c) {
    cz_engine_status *s = malloc(sizeof *s);
    if (!s) return respond(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory", NULL);
    cz_engine_get_status(c->d->engine, s);
    Cuzk__V1__GetStatusResponse m;
    cuzk__v1__get_status_response__init(&m);
    Cuzk__V1__QueueStatus qs[CZ_PROOF_KIND_COUNT - 1], *qp[CZ_PROOF_KIND_COUNT - 1];
    for (int k = 1; k < CZ_PROOF_KIND_COUNT; k++) {
        cuzk__v1__queue_status__init(&qs[k - 1]);
        qs[k - 1].proof_kind = (char *)cz_proof_kind_name((cz_proof_kind)k);
        qs[k - 1].pending = s->queues[k].pending;
        qs[k - 1].in_progress = s->queues[k].in_progress;
        qp[k - 1] = &qs[k - 1];
    }
    m.n_queues = CZ_PROOF_KIND_COUNT - 1;
    m.queues = qp;
    Cuzk__V1__SRSStatus ss[16], *sp[16];
    for (size_t i = 0; i < s->n_srs; i++) {
        cuzk__v1__srsstatus__init(&ss[i]);
        ss[i].circuit_id = s->srs[i].circuit_id;
        ss[i].tier = (Cuzk__V1__SRSStatus__Tier)s->srs[i].tier;
        ss[i].size_bytes = s->srs[i].size_bytes;
        ss[i].ref_count = s->srs[i].ref_count;
        ss[i].development = s->srs[i].development != 0;
        sp[i] = &ss[i];
    }
    m.n_loaded_srs = s->n_srs;
    m.development_keys = s->development_keys;
    m.loaded_srs = sp;
    /* GPUs: one entry per CUDA back-end context; none on the CPU. */
    Cuzk__V1__GPUStatus gs[CZ_ENGINE_MAX_BACKENDS], *gp[CZ_ENGINE_MAX_BACKENDS];
    size_t n_gpus = 0;
    for (uint32_t i = 0; i < s->n_backends; i++) {
        const cz_engine_backend_info *bi = &s->backends[i];
        if (bi->device < 0) continue;
        Cuzk__V1__GPUStatus *g = &gs[n_gpus];
        cuzk__v1__gpustatus__init(g);
        g->ordinal = (uint32_t)bi->device;
        g->name = (char *)bi->description;
        g->vram_total_bytes = bi->memory_total;
        g->vram_free_bytes =
            bi->memory_budget > bi->memory_used ? bi->memory_budget - bi->memory_used : 0;
        g->current_job_id = (char *)bi->current_job;
        g->current_proof_kind =
            bi->current_job[0] ? (char *)cz_proof_kind_name(bi->current_kind) : "";
        g->memory_plan = (char *)bi->memory_plan;
        gp[n_gpus++] = g;
    }
    m.n_gpus = n_gpus;
    m.gpus = gp;
    m.total_proofs_completed = s->completed;
    m.total_proofs_failed = s->failed;
    m.uptime_seconds = s->uptime_seconds;
    m.pinned_memory_bytes = s->memory_used_bytes;
    m.pinned_memory_limit_bytes = s->memory_total_bytes;
    respond(c, GRPC_STATUS_OK, NULL, &m.base);
    free(s);
}

static void do_metrics(call_ctx *c) {
    char *text = NULL;
    cz_error err = {0};
    cz_status st = cz_engine_metrics(c->d->engine, &text, &err);
    if (st != CZ_OK) return respond(c, code_of(st), err.message, NULL);
    Cuzk__V1__GetMetricsResponse m;
    cuzk__v1__get_metrics_response__init(&m);
    m.prometheus_text = text;
    respond(c, GRPC_STATUS_OK, NULL, &m.base);
    free(text);
}

static void do_preload(call_ctx *c, cz_rpc_request *rq) {
    const Cuzk__V1__PreloadSrsRequest *q = (const Cuzk__V1__PreloadSrsRequest *)rq->msg;
    int already = 0;
    uint64_t ms = 0;
    cz_error err = {0};
    cz_status st = cz_engine_preload(c->d->engine, q->circuit_id, &already, &ms, &err);
    if (st != CZ_OK) {
        respond(c, code_of(st), err.message, NULL);
    } else {
        cz_log(CZ_LOG_INFO, "PreloadSRS %s: %s (%" PRIu64 " ms)", q->circuit_id,
               already ? "already loaded" : "loaded", ms);
        Cuzk__V1__PreloadSrsResponse m;
        cuzk__v1__preload_srs_response__init(&m);
        m.already_loaded = already;
        m.load_time_ms = ms;
        respond(c, GRPC_STATUS_OK, NULL, &m.base);
    }
}

static void do_evict(call_ctx *c, cz_rpc_request *rq) {
    const Cuzk__V1__EvictSrsRequest *q = (const Cuzk__V1__EvictSrsRequest *)rq->msg;
    int was = 0;
    uint64_t freed = 0;
    cz_error err = {0};
    cz_status st = cz_engine_evict(c->d->engine, q->circuit_id, &was, &freed, &err);
    if (st != CZ_OK) {
        respond(c, code_of(st), err.message, NULL);
    } else {
        cz_log(CZ_LOG_INFO, "EvictSRS %s: freed %" PRIu64 " bytes", q->circuit_id, freed);
        Cuzk__V1__EvictSrsResponse m;
        cuzk__v1__evict_srs_response__init(&m);
        m.was_loaded = was;
        m.freed_bytes = freed;
        respond(c, GRPC_STATUS_OK, NULL, &m.base);
    }
}

static void *handler(void *arg) {
    call_ctx *c = arg;
    cz_daemon *d = c->d;
    grpc_byte_buffer_reader reader;
    c->in = grpc_empty_slice();
    c->has_in = 1;
    if (grpc_byte_buffer_reader_init(&reader, c->recv)) {
        grpc_slice_unref(c->in);
        c->in = grpc_byte_buffer_reader_readall(&reader);
        grpc_byte_buffer_reader_destroy(&reader);
    }
    grpc_byte_buffer_destroy(c->recv);
    c->recv = NULL;
    cz_rpc rpc;
    cz_rpc_request rq;
    cz_error err = {0};
    if (!cz_rpc_lookup(&rpc, (const char *)GRPC_SLICE_START_PTR(c->details.method),
                       GRPC_SLICE_LENGTH(c->details.method))) {
        respond(c, GRPC_STATUS_UNIMPLEMENTED, "unknown method", NULL);
    } else {
        cz_status st =
            cz_rpc_decode(&rq, rpc, GRPC_SLICE_START_PTR(c->in), GRPC_SLICE_LENGTH(c->in), &err);
        /* decoded: the bytes go now, except a submission's, whose C1 the
         * view points into until it is submitted (do_submit releases it) */
        if (st != CZ_OK || (rpc != CZ_RPC_SUBMIT && rpc != CZ_RPC_PROVE)) {
            grpc_slice_unref(c->in);
            c->has_in = 0;
        }
        if (st != CZ_OK) {
            respond(c, code_of(st), err.message, NULL);
        } else {
            switch (rpc) {
            case CZ_RPC_SUBMIT: do_submit(c, &rq, 0); break;
            case CZ_RPC_PROVE: do_submit(c, &rq, 1); break;
            case CZ_RPC_AWAIT: do_await(c, &rq); break;
            case CZ_RPC_CANCEL: do_cancel(c, &rq); break;
            case CZ_RPC_STATUS: do_status(c); break;
            case CZ_RPC_METRICS: do_metrics(c); break;
            case CZ_RPC_PRELOAD: do_preload(c, &rq); break;
            case CZ_RPC_EVICT: do_evict(c, &rq); break;
            default: respond(c, GRPC_STATUS_UNIMPLEMENTED, "unknown method", NULL);
            }
            cz_rpc_request_free(&rq); /* a no-op where the handler freed it */
        }
    }
    release_request(c);
    ctx_unref(c); /* the receive's reference */
    pthread_mutex_lock(&d->lock);
    d->active_handlers--;
    pthread_cond_broadcast(&d->changed);
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

/* ---- completion queue ---- */

static void request_next(cz_daemon *d) {
    call_ctx *c = ctx_new(d);
    if (!c) {
        cz_log(CZ_LOG_ERROR, "grpc: out of memory; not accepting calls");
        return;
    }
    atomic_store(&c->refs, 1);
    grpc_call_error e =
        grpc_server_request_call(d->server, &c->call, &c->details, &c->md, d->cq, d->cq, &c->t_new);
    if (e != GRPC_CALL_OK) {
        cz_log(CZ_LOG_ERROR, "grpc: request_call failed (%d)", (int)e);
        ctx_free(c);
    }
}

static void on_new_call(cz_daemon *d, call_ctx *c, int ok) {
    if (!ok) { /* the server is shutting down */
        ctx_unref(c);
        return;
    }
    pthread_mutex_lock(&d->lock);
    int shutting = d->shutting_down;
    pthread_mutex_unlock(&d->lock);
    if (!shutting) request_next(d);
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled;
    atomic_fetch_add(&c->refs, 1);
    if (grpc_call_start_batch(c->call, &op, 1, &c->t_close, NULL) != GRPC_CALL_OK) ctx_unref(c);
    /* The reference of TAG_NEW passes to the receive, when it starts. */
    admit_receive(d, c);
}

static void on_recv(cz_daemon *d, call_ctx *c, int ok) {
    if (!ok || !c->recv) {
        release_request(c);
        if (ok) respond(c, GRPC_STATUS_INVALID_ARGUMENT, "no request message", NULL);
        ctx_unref(c);
        return;
    }
    uint64_t len = grpc_byte_buffer_length(c->recv);
    if (!settle_request(d, c, 2 * len)) {
        char m[256];
        snprintf(m, sizeof m,
                 "request memory: this call's %" PRIu64 " bytes (counted twice: received and "
                 "decoded) exceed its reservation of %" PRIu64 " bytes ([daemon] "
                 "max_request_memory %" PRIu64 " bytes)",
                 len, c->request_reserved, d->cfg.max_request_memory);
        release_request(c);
        respond(c, GRPC_STATUS_RESOURCE_EXHAUSTED, m, NULL);
        ctx_unref(c);
        return;
    }
    pthread_mutex_lock(&d->lock);
    int room = d->active_handlers < CZ_DAEMON_MAX_CALLS;
    if (room) d->active_handlers++;
    pthread_mutex_unlock(&d->lock);
    pthread_t t;
    if (room) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &attr, handler, c);
        pthread_attr_destroy(&attr);
        if (rc == 0) return;
        pthread_mutex_lock(&d->lock);
        d->active_handlers--;
        pthread_cond_broadcast(&d->changed);
        pthread_mutex_unlock(&d->lock);
    }
    respond(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "too many calls in progress", NULL);
    ctx_unref(c);
}

static void *cq_loop(void *arg) {
    cz_daemon *d = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(d->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type != GRPC_OP_COMPLETE) continue;
        tag_t *t = ev.tag;
        switch (t->kind) {
        case TAG_SHUTDOWN:
            pthread_mutex_lock(&d->lock);
            d->shutdown_done = 1;
            pthread_cond_broadcast(&d->changed);
            pthread_mutex_unlock(&d->lock);
            break;
        case TAG_NEW: on_new_call(d, t->c, ev.success); break;
        case TAG_RECV: on_recv(d, t->c, ev.success); break;
        case TAG_SEND: ctx_unref(t->c); break;
        case TAG_CLOSE:
            if (t->c->cancelled) atomic_store(&t->c->client_gone, 1);
            ctx_unref(t->c);
            break;
        }
    }
    return NULL;
}

/* ---- listening address ---- */

/* Binds a throw-away socket to the address gRPC will bind, so that a port in
 * use or a missing socket directory is one line with the system's reason, and
 * is known before the engine starts and parameters load (gRPC's own failure
 * is a multi-line internal log). */
static cz_status try_bind(const struct sockaddr *sa, socklen_t len, int family, const char *shown,
                          cz_error *err) {
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return cz_error_set(err, CZ_E_IO, "listen: socket: %s", strerror(errno));
    int one = 1;
    if (family != AF_UNIX) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = bind(fd, sa, len);
    int e = errno;
    close(fd);
    if (rc != 0)
        return cz_error_set(err, CZ_E_IO, "listen: cannot bind %s: %s", shown, strerror(e));
    if (family == AF_UNIX) unlink(((const struct sockaddr_un *)sa)->sun_path);
    return CZ_OK;
}

/* Builds the gRPC address; for a unix socket, prepares the path. */
static cz_status resolve_listen(cz_daemon *d, char *addr, size_t cap, cz_error *err) {
    cz_listen_addr la;
    cz_status st = cz_listen_parse(&la, d->cfg.listen, d->cfg.allow_remote, err);
    if (st != CZ_OK) return st;
    if (la.is_unix) {
        const char *path = la.path;
        char abs[PATH_MAX + 2];
        if (path[0] == '/') {
            snprintf(abs, sizeof abs, "%s", path);
        } else {
            char cwd[PATH_MAX];
            if (!getcwd(cwd, sizeof cwd))
                return cz_error_set(err, CZ_E_IO, "listen: cannot get the working directory");
            if (snprintf(abs, sizeof abs, "%s/%s", cwd, path) >= (int)sizeof abs)
                return cz_error_set(err, CZ_E_INVALID_ARG, "listen: path too long");
        }
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(abs) >= sizeof d->socket_path || strlen(abs) >= sizeof sa.sun_path)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "listen: unix socket path '%s' is longer than %zu bytes", abs,
                                sizeof sa.sun_path - 1);
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", abs);
        struct stat sb;
        if (lstat(abs, &sb) == 0) {
            if (!S_ISSOCK(sb.st_mode))
                return cz_error_set(err, CZ_E_IO, "listen: %s exists and is not a socket", abs);
            int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            int live = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
            if (fd >= 0) close(fd);
            if (live)
                return cz_error_set(err, CZ_E_IO, "listen: another process is serving on %s", abs);
            if (unlink(abs) != 0)
                return cz_error_set(err, CZ_E_IO, "listen: cannot remove stale socket %s: %s", abs,
                                    strerror(errno));
            cz_log(CZ_LOG_INFO, "removed stale socket %s", abs);
        }
        if ((st = try_bind((struct sockaddr *)&sa, sizeof sa, AF_UNIX, abs, err)) != CZ_OK)
            return st;
        snprintf(d->socket_path, sizeof d->socket_path, "%s", abs);
        if (snprintf(addr, cap, "unix:%s", abs) >= (int)cap)
            return cz_error_set(err, CZ_E_INVALID_ARG, "listen: path too long");
        return CZ_OK;
    }
    if (strchr(la.host, ':'))
        snprintf(addr, cap, "[%s]:%u", la.host, la.port);
    else
        snprintf(addr, cap, "%s:%u", la.host, la.port);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    int family;
    if (!strchr(la.host, ':')) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)la.port);
        inet_pton(AF_INET, la.host, &in->sin_addr);
        len = sizeof *in, family = AF_INET;
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)la.port);
        inet_pton(AF_INET6, la.host, &in6->sin6_addr);
        len = sizeof *in6, family = AF_INET6;
    }
    return try_bind((struct sockaddr *)&ss, len, family, addr, err);
}

/* ---- life cycle ---- */

/* Says at start, loudly, when the parameter directory holds development
 * keys (cuzk setup: NOT a trusted setup), before any is loaded; the SRS
 * manager checks every file it loads (filecoin/common/params_table.h). */
static void warn_development_keys(const char *param_cache) {
    size_t n = 0;
    char first[512];
    cz_error err = {0};
    if (cz_fc_param_dir_development(&n, first, sizeof first, param_cache, &err) != CZ_OK)
        cz_log(CZ_LOG_WARN, "[srs] param_cache: %s", err.message);
    else if (n)
        cz_log(CZ_LOG_WARN,
               "WARNING: [srs] param_cache %s holds %zu development key file(s) (%s ...): made by "
               "cuzk setup, NOT a trusted setup; proofs made with them will NOT verify on chain",
               param_cache, n, first);
}

cz_status cz_daemon_start(cz_daemon **out, const cz_daemon_config *cfg,
                          const cz_engine_config *engine_extra, cz_error *err) {
    *out = NULL;
    cz_daemon *d = calloc(1, sizeof *d);
    if (!d) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    d->cfg = *cfg;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->changed, NULL);
    d->shutdown_tag = (tag_t){TAG_SHUTDOWN, NULL};
    cz_log_set_level_name(cfg->log_level);
    if (cfg->synthesis_threads) cz_thread_count_set(cfg->synthesis_threads);

    char addr[PATH_MAX + 16];
    cz_status st = resolve_listen(d, addr, sizeof addr, err);
    if (st == CZ_OK) st = cz_config_apply_tuning(cfg, err);
    if (st != CZ_OK) goto fail;

    const char *gpu_code = cz_gpu_build_code();
    cz_log(CZ_LOG_INFO, "cuzk %s starting; GPU code: %s", CZ_VERSION,
           gpu_code ? gpu_code : "none (built without CUDA)");
    /* The engine chooses the contexts ([gpus] backend: "auto" takes the
     * CPU only when there is no GPU at all) and the worker counts left at 0
     * (max_parallel_synthesis 0 = auto). */
    cz_engine_config ec;
    if (engine_extra)
        ec = *engine_extra;
    else
        memset(&ec, 0, sizeof ec);
    ec.memory_budget_bytes = cfg->total_budget;
    ec.safety_margin_bytes = cfg->safety_margin;
    ec.synthesis_workers = cfg->max_parallel_synthesis;
    if (!ec.prove_workers) ec.prove_workers = cfg->gpu_workers_per_device;
    /* [gpus]: the engine makes one context per device listed (all when
     * none is), gpu_workers_per_device prove workers each; gpu_threads caps
     * the CPU threads of a prove worker's host-side work. */
    if (!ec.n_backends) {
        ec.backend = cfg->backend;
        ec.n_devices =
            cfg->n_devices < CZ_ENGINE_MAX_BACKENDS ? cfg->n_devices : CZ_ENGINE_MAX_BACKENDS;
        memcpy(ec.devices, cfg->devices, ec.n_devices * sizeof ec.devices[0]);
        ec.prove_threads = cfg->gpu_threads;
    }
    ec.prove_queue_depth = cfg->max_gpu_queue_depth;
    ec.partitions_ahead = cfg->partitions_ahead;
    ec.synthesis_nice = cfg->synthesis_nice;
    ec.max_batch_size = cfg->max_batch_size;
    ec.max_batch_wait_ms = cfg->max_batch_wait_ms;
    ec.param_cache = cfg->param_cache;
    ec.result_retention_ms = cfg->result_retention_ms;
    ec.srs_eviction_min_idle_ms = cfg->eviction_min_idle_ms;
    ec.timeline = cfg->timeline;
    st = cz_engine_create(&d->engine, &ec, err);
    if (st != CZ_OK) goto fail;
    for (uint32_t i = 0; i < cfg->n_preload; i++) {
        int already;
        uint64_t ms;
        st = cz_engine_preload(d->engine, cfg->preload[i], &already, &ms, err);
        if (st != CZ_OK) {
            cz_error_prefix(err, "[srs] preload");
            goto fail;
        }
        cz_log(CZ_LOG_INFO, "preloaded %s in %" PRIu64 " ms", cfg->preload[i], ms);
    }

    if (cfg->metrics_listen[0]) {
        int port = 0;
        st = cz_http_metrics_start(&d->http, cfg->metrics_listen, cfg->allow_remote, d->engine,
                                   &port, err);
        if (st != CZ_OK) goto fail;
        cz_log(CZ_LOG_INFO, "HTTP /metrics on %s (port %d)", cfg->metrics_listen, port);
    }

    grpc_init();
    grpc_arg args[2];
    /* A message may be a quarter of the request memory: counted twice, its
     * reservation is half, so one receive can start while the other half is
     * held by requests being checked. gRPC refuses a larger message
     * (RESOURCE_EXHAUSTED). */
    d->receive_limit = cfg->max_request_memory / 4;
    if (d->receive_limit > CZ_DAEMON_MAX_MESSAGE) d->receive_limit = CZ_DAEMON_MAX_MESSAGE;
    grpc_channel_args limits = cz_grpc_message_limits(args, (int)d->receive_limit);
    /* No BDP probing: it grows the HTTP/2 windows, and with them what gRPC
     * buffers of calls whose receive has not started (8 x 15 MB calls under
     * a 64 MiB bound peaked 85-127 MiB above the start with it, 63-68
     * without). The daemon's peers are local, where the default window
     * costs nothing. */
    grpc_arg all[3] = {args[0], args[1]};
    all[2].type = GRPC_ARG_INTEGER;
    all[2].key = GRPC_ARG_HTTP2_BDP_PROBE;
    all[2].value.integer = 0;
    grpc_channel_args cargs = {limits.num_args + 1, all};
    d->server = grpc_server_create(&cargs, NULL);
    d->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(d->server, d->cq, NULL);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    /* The socket file is created owner-only from the start (umask), then
     * chmod'ed as well. */
    mode_t old = umask(0077);
    int port = grpc_server_add_http2_port(d->server, addr, creds);
    umask(old);
    grpc_server_credentials_release(creds);
    if (!port) {
        st = cz_error_set(err, CZ_E_IO, "listen: cannot bind %s", addr);
        goto fail_grpc;
    }
    grpc_server_start(d->server);
    if (d->socket_path[0]) chmod(d->socket_path, 0600);
    request_next(d);
    if (pthread_create(&d->cq_thread, NULL, cq_loop, d) != 0) {
        st = cz_error_set(err, CZ_E_IO, "cannot start the gRPC thread");
        goto fail_grpc;
    }
    d->cq_thread_started = 1;
    cz_engine_status *es = malloc(sizeof *es);
    if (es) cz_engine_get_status(d->engine, es);
    cz_log(CZ_LOG_INFO, "cuzk %s listening on %s (backend %s, params %s)", CZ_VERSION, addr,
           es ? es->backend_name : "?", cfg->param_cache);
    free(es);
    warn_development_keys(cfg->param_cache);
    *out = d;
    return CZ_OK;

fail_grpc:
    grpc_server_shutdown_and_notify(d->server, d->cq, &d->shutdown_tag);
    grpc_server_cancel_all_calls(d->server);
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(d->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_OP_COMPLETE && ev.tag == &d->shutdown_tag) break;
        if (ev.type == GRPC_OP_COMPLETE && ((tag_t *)ev.tag)->kind == TAG_NEW)
            ctx_unref(((tag_t *)ev.tag)->c);
    }
    grpc_server_destroy(d->server);
    grpc_completion_queue_shutdown(d->cq);
    while (grpc_completion_queue_next(d->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(d->cq);
    grpc_shutdown();
    if (d->socket_path[0]) unlink(d->socket_path);
fail:
    cz_http_metrics_stop(d->http);
    cz_engine_destroy(d->engine);
    free(d);
    return st;
}

/* The stop's waits after the drain (cz_daemon_stop), in ms: for the
 * handlers of ended jobs to send their answers, for gRPC's shutdown notice,
 * and for calls cancelled by cancel_all_calls to be released. */
#define ANSWERS_SEND_MS    5000
#define SHUTDOWN_NOTICE_MS 2000
#define CANCELLED_CALLS_MS 10000

static void wait_until(cz_daemon *d, int *flag_or_null, uint64_t timeout_ms) {
    uint64_t deadline = cz_now_ns() + timeout_ms * 1000000ull;
    pthread_mutex_lock(&d->lock);
    while ((flag_or_null ? !*flag_or_null : d->active_handlers > 0) && cz_now_ns() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000;
        if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&d->changed, &d->lock, &ts);
    }
    pthread_mutex_unlock(&d->lock);
}

void cz_daemon_stop(cz_daemon *d) {
    cz_log(CZ_LOG_INFO, "shutting down: no new calls; draining jobs (up to %" PRIu64 " ms)",
           d->cfg.drain_timeout_ms);
    pthread_mutex_lock(&d->lock);
    d->shutting_down = 1;
    call_ctx *waiting = d->wait_head;
    d->wait_head = d->wait_tail = NULL;
    pthread_mutex_unlock(&d->lock);
    /* Calls still waiting to be received are answered now, unread. */
    while (waiting) {
        call_ctx *c = waiting;
        waiting = c->wait_next;
        respond(c, GRPC_STATUS_UNAVAILABLE, "the daemon is shutting down", NULL);
        ctx_unref(c);
    }
    grpc_server_shutdown_and_notify(d->server, d->cq, &d->shutdown_tag);
    uint32_t cancelled = cz_engine_drain(d->engine, d->cfg.drain_timeout_ms);
    if (cancelled) cz_log(CZ_LOG_WARN, "cancelled %u job(s) still running", cancelled);
    /* Every job has ended, so waiting handlers answer now; give them a
     * moment to send, then cut what is left. */
    wait_until(d, NULL, ANSWERS_SEND_MS);
    wait_until(d, &d->shutdown_done, SHUTDOWN_NOTICE_MS);
    grpc_server_cancel_all_calls(d->server);
    wait_until(d, &d->shutdown_done, CANCELLED_CALLS_MS);
    wait_until(d, NULL, CANCELLED_CALLS_MS);
    grpc_server_destroy(d->server);
    grpc_completion_queue_shutdown(d->cq);
    pthread_join(d->cq_thread, NULL);
    grpc_completion_queue_destroy(d->cq);
    cz_http_metrics_stop(d->http);
    cz_engine_destroy(d->engine); /* frees the back-end contexts and their devices' memory */
    grpc_shutdown();
    if (d->socket_path[0]) unlink(d->socket_path);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->changed);
    free(d);
    cz_log(CZ_LOG_INFO, "stopped");
}

typedef struct {
    cz_daemon *d;
    atomic_int done;
} stopper;

static void *stop_thread(void *arg) {
    stopper *s = arg;
    cz_daemon_stop(s->d);
    s->done = 1;
    return NULL;
}

cz_status cz_daemon_run(const cz_daemon_config *cfg, int *forced, cz_error *err) {
    *forced = 0;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    /* Blocked before any thread starts, so every thread inherits the mask
     * and only sigwait below sees the signals. */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    cz_daemon *d;
    cz_status st = cz_daemon_start(&d, cfg, NULL, err);
    if (st != CZ_OK) return st;
    /* listening, preloads done: a service manager may start Curio now */
    char ready[700];
    snprintf(ready, sizeof ready, "READY=1\nSTATUS=serving on %s", cfg->listen);
    if (cz_notify(ready) != 0)
        cz_log(CZ_LOG_WARN, "cannot notify the service manager (NOTIFY_SOCKET)");
    int sig = 0;
    sigwait(&set, &sig);
    cz_notify("STOPPING=1\nSTATUS=draining");
    cz_log(CZ_LOG_INFO, "signal %d: draining (a second signal exits at once)", sig);
    stopper s = {d, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, stop_thread, &s) != 0) {
        cz_daemon_stop(d);
        return CZ_OK;
    }
    while (!s.done) {
        struct timespec ts = {0, 100000000};
        if (sigtimedwait(&set, NULL, &ts) > 0) {
            cz_log(CZ_LOG_WARN, "second signal: exiting without draining");
            *forced = 1;
            return CZ_OK;
        }
    }
    pthread_join(t, NULL);
    return CZ_OK;
}
