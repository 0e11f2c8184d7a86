/* cuzk bench single|batch|stress|status|metrics|preload|evict: a client of
 * a running daemon, with the flags of Curio's cuzk-bench where they apply
 * (dispatched by bench.c). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "cuzk/v1/proving.pb-c.h"
#include "daemon/client.h"
#include "filecoin/porep/c1_envelope.h"
#include "util/parallel.h"

typedef struct {
    const char *addr;
    const char *type;
    const char *c1_path;
    const char *circuit_id;
    const char *out_path;
    uint64_t sector_num, miner_id;
    int sector_num_given;
    uint32_t registered_proof; /* the C1's own */
    int priority;
    unsigned count, concurrency;
    double duration_s, rate_per_min;
    uint64_t timeout_ms;
    uint8_t *c1;
    size_t c1_len;
} bench_opts;

static int parse_priority(const char *s) {
    if (!strcmp(s, "low")) return 1;
    if (!strcmp(s, "normal")) return 2;
    if (!strcmp(s, "high")) return 3;
    if (!strcmp(s, "critical")) return 4;
    return -1;
}

/* A fresh request id: "bench-" and 16 random hex digits. */
static void new_request_id(char *out, size_t cap) {
    uint8_t r[8] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, r, sizeof r) != (ssize_t)sizeof r) memset(r, 0, sizeof r);
        close(fd);
    }
    uint64_t t = cz_now_ns();
    snprintf(out, cap, "bench-%02x%02x%02x%02x%02x%02x%02x%02x-%" PRIx64, r[0], r[1], r[2], r[3],
             r[4], r[5], r[6], r[7], t & 0xffffff);
}

typedef struct {
    int ok; /* COMPLETED */
    int grpc_code;
    int status;
    char message[512];
    double wall_s;
    uint64_t total_ms, queue_ms, srs_ms, synth_ms, gpu_ms;
    uint8_t *proof;
    size_t proof_len;
    char job_id[128];
} proof_outcome;

static void fill_submit(Cuzk__V1__SubmitProofRequest *s, const bench_opts *o, const char *id) {
    cuzk__v1__submit_proof_request__init(s);
    s->request_id = (char *)id;
    s->proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
    s->priority = (Cuzk__V1__Priority)o->priority;
    s->vanilla_proof.data = o->c1;
    s->vanilla_proof.len = o->c1_len;
    s->registered_proof = o->registered_proof;
    s->sector_number = o->sector_num;
    s->miner_id = o->miner_id;
}

static void outcome_from(proof_outcome *po, const Cuzk__V1__AwaitProofResponse *r) {
    po->status = r->status;
    po->ok = r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    snprintf(po->message, sizeof po->message, "%s", r->error_message ? r->error_message : "");
    po->total_ms = r->total_ms;
    po->queue_ms = r->queue_wait_ms;
    po->srs_ms = r->srs_load_ms;
    po->synth_ms = r->synthesis_ms;
    po->gpu_ms = r->gpu_compute_ms;
    if (r->proof.len) {
        po->proof = malloc(r->proof.len);
        if (po->proof) {
            memcpy(po->proof, r->proof.data, r->proof.len);
            po->proof_len = r->proof.len;
        }
    }
}

static const char *status_name(int s) {
    static const char *names[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
    return s >= 0 && s <= 4 ? names[s] : "?";
}

/* One Prove call. */
static void prove_once(cz_client *cl, const bench_opts *o, proof_outcome *po) {
    memset(po, 0, sizeof *po);
    new_request_id(po->job_id, sizeof po->job_id);
    Cuzk__V1__SubmitProofRequest s;
    fill_submit(&s, o, po->job_id);
    Cuzk__V1__ProveRequest pr;
    cuzk__v1__prove_request__init(&pr);
    pr.submit = &s;
    size_t len = cuzk__v1__prove_request__get_packed_size(&pr);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        snprintf(po->message, sizeof po->message, "out of memory");
        return;
    }
    cuzk__v1__prove_request__pack(&pr, buf);
    uint8_t *resp = NULL;
    size_t resp_len = 0;
    cz_error err = {0};
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_client_call(cl, "Prove", buf, len, &resp, &resp_len, &po->grpc_code,
                                  po->message, sizeof po->message, o->timeout_ms, &err);
    po->wall_s = (double)(cz_now_ns() - t0) / 1e9;
    free(buf);
    if (st != CZ_OK) {
        snprintf(po->message, sizeof po->message, "%s", err.message);
        return;
    }
    if (po->grpc_code != 0) return;
    Cuzk__V1__ProveResponse *r = cuzk__v1__prove_response__unpack(NULL, resp_len, resp);
    free(resp);
    if (!r || !r->result) {
        snprintf(po->message, sizeof po->message, "cannot decode ProveResponse");
        if (r) cuzk__v1__prove_response__free_unpacked(r, NULL);
        return;
    }
    outcome_from(po, r->result);
    cuzk__v1__prove_response__free_unpacked(r, NULL);
}

static uint64_t daemon_peak_rss(cz_client *cl) {
    Cuzk__V1__GetMetricsRequest q;
    cuzk__v1__get_metrics_request__init(&q);
    uint8_t buf[8], *resp = NULL;
    size_t len = cuzk__v1__get_metrics_request__pack(&q, buf), resp_len = 0;
    int code = -1;
    char details[256];
    cz_error err = {0};
    uint64_t peak = 0;
    if (cz_client_call(cl, "GetMetrics", buf, len, &resp, &resp_len, &code, details, sizeof details,
                       10000, &err) == CZ_OK &&
        code == 0) {
        Cuzk__V1__GetMetricsResponse *m =
            cuzk__v1__get_metrics_response__unpack(NULL, resp_len, resp);
        if (m) {
            const char *p = strstr(m->prometheus_text, "\ncuzk_peak_rss_bytes ");
            if (p) peak = strtoull(p + 21, NULL, 10);
            cuzk__v1__get_metrics_response__free_unpacked(m, NULL);
        }
    }
    free(resp);
    return peak;
}

/* One proof; its bytes go to out when not NULL (committed on success). */
static int single_result(cz_client *cl, const bench_opts *o, cz_cli_out *out) {
    proof_outcome po;
    prove_once(cl, o, &po);
    printf("=== Proof Result ===\n");
    printf("job_id:  %s\n", po.job_id);
    if (po.grpc_code != 0) {
        printf("status:  gRPC error %d\nerror:   %s\n", po.grpc_code, po.message);
        return 1;
    }
    printf("status:  %s\n", status_name(po.status));
    if (!po.ok) {
        printf("error:   %s\n", po.message);
        free(po.proof);
        return 1;
    }
    printf("timings: total %" PRIu64 " ms, queue %" PRIu64 " ms, srs %" PRIu64
           " ms, synthesis %" PRIu64 " ms, prove %" PRIu64 " ms (sums over partitions)\n",
           po.total_ms, po.queue_ms, po.srs_ms, po.synth_ms, po.gpu_ms);
    printf("client wall: %.0f ms\n", po.wall_s * 1000);
    printf("proof:   %zu bytes: ", po.proof_len);
    size_t show = po.proof_len > 256 ? 128 : po.proof_len;
    for (size_t i = 0; i < show; i++) printf("%02x", po.proof[i]);
    printf("%s\n", show < po.proof_len ? "..." : "");
    int rc = 0;
    if (out) {
        cz_error err = {0};
        if (fwrite(po.proof, 1, po.proof_len, out->file) != po.proof_len ||
            cz_cli_out_commit(out, &err) != CZ_OK) {
            fprintf(stderr, "cuzk bench single: %s\n",
                    err.message[0] ? err.message : "cannot write the proof");
            rc = 1;
        }
    }
    free(po.proof);
    return rc;
}

static int cmd_single(cz_client *cl, const bench_opts *o) {
    cz_cli_out out = {0};
    cz_error err = {0};
    if (o->out_path && cz_cli_out_open(&out, o->out_path, &err) != CZ_OK) {
        fprintf(stderr, "cuzk bench single: --out: %s\n", err.message);
        return 1;
    }
    int rc = single_result(cl, o, o->out_path ? &out : NULL);
    cz_cli_out_abort(&out);
    return rc;
}

typedef struct {
    cz_client *cl;
    const bench_opts *o;
    pthread_mutex_t lock;
    unsigned next, n;
    proof_outcome *results;
    uint64_t t_start;
} batch_ctx;

static void *batch_worker(void *arg) {
    batch_ctx *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        unsigned i = b->next < b->n ? b->next++ : b->n;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->n) break;
        proof_outcome *po = &b->results[i];
        prove_once(b->cl, b->o, po);
        free(po->proof);
        po->proof = NULL;
        pthread_mutex_lock(&b->lock);
        if (po->grpc_code)
            printf("[%u/%u] gRPC error %d: %s\n", i + 1, b->n, po->grpc_code, po->message);
        else
            printf("[%u/%u] %s - %.2f s (prove=%" PRIu64 " ms, synth=%" PRIu64 " ms, queue=%" PRIu64
                   " ms)%s%s\n",
                   i + 1, b->n, status_name(po->status), po->wall_s, po->gpu_ms, po->synth_ms,
                   po->queue_ms, po->ok ? "" : " ", po->ok ? "" : po->message);
        fflush(stdout);
        pthread_mutex_unlock(&b->lock);
    }
    return NULL;
}

static void summary(proof_outcome *res, unsigned n, double total_s, uint64_t peak) {
    unsigned ok = 0;
    double sum = 0, mn = 1e30, mx = 0, psum = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!res[i].ok) continue;
        ok++;
        sum += res[i].wall_s;
        psum += (double)res[i].gpu_ms / 1000;
        if (res[i].wall_s < mn) mn = res[i].wall_s;
        if (res[i].wall_s > mx) mx = res[i].wall_s;
    }
    printf("\n=== Summary ===\n");
    printf("total time:   %.2f s\n", total_s);
    printf("completed:    %u\nfailed:       %u\n", ok, n - ok);
    if (ok) {
        printf("latency:      avg %.2f s, min %.2f s, max %.2f s\n", sum / ok, mn, mx);
        printf("prove (sum over partitions): avg %.2f s\n", psum / ok);
        printf("throughput:   %.2f s/proof, %.3f proofs/min\n", total_s / ok, ok / total_s * 60.0);
    }
    if (peak) printf("daemon peak RSS: %.2f GiB\n", (double)peak / (1u << 30));
}

static int cmd_batch(cz_client *cl, const bench_opts *o) {
    batch_ctx b = {cl, o, PTHREAD_MUTEX_INITIALIZER, 0, o->count, NULL, 0};
    b.results = calloc(o->count ? o->count : 1, sizeof *b.results);
    unsigned j = o->concurrency ? o->concurrency : 1;
    pthread_t *t = calloc(j, sizeof *t);
    if (!b.results || !t) return 1;
    printf("batch: %u proof(s), concurrency %u, c1 %s (%zu bytes)\n", o->count, j, o->c1_path,
           o->c1_len);
    uint64_t t0 = cz_now_ns();
    unsigned started = 0;
    for (; started < j; started++)
        if (pthread_create(&t[started], NULL, batch_worker, &b) != 0) break;
    if (!started) batch_worker(&b);
    for (unsigned i = 0; i < started; i++) pthread_join(t[i], NULL);
    double total = (double)(cz_now_ns() - t0) / 1e9;
    summary(b.results, o->count, total, daemon_peak_rss(cl));
    unsigned failed = 0;
    for (unsigned i = 0; i < o->count; i++) failed += !b.results[i].ok;
    free(b.results);
    free(t);
    return failed ? 1 : 0;
}

typedef struct {
    cz_client *cl;
    char id[128];
    uint64_t t_submit;
    proof_outcome po;
} stress_item;

static void *stress_await(void *arg) {
    stress_item *s = arg;
    Cuzk__V1__AwaitProofRequest q;
    cuzk__v1__await_proof_request__init(&q);
    q.job_id = s->id;
    size_t len = cuzk__v1__await_proof_request__get_packed_size(&q);
    uint8_t buf[256], *resp = NULL;
    size_t resp_len = 0;
    cuzk__v1__await_proof_request__pack(&q, buf);
    cz_error err = {0};
    if (cz_client_call(s->cl, "AwaitProof", buf, len, &resp, &resp_len, &s->po.grpc_code,
                       s->po.message, sizeof s->po.message, 0, &err) == CZ_OK &&
        s->po.grpc_code == 0) {
        Cuzk__V1__AwaitProofResponse *r =
            cuzk__v1__await_proof_response__unpack(NULL, resp_len, resp);
        if (r) {
            outcome_from(&s->po, r);
            cuzk__v1__await_proof_response__free_unpacked(r, NULL);
        }
    }
    free(resp);
    free(s->po.proof);
    s->po.proof = NULL;
    s->po.wall_s = (double)(cz_now_ns() - s->t_submit) / 1e9;
    return NULL;
}

static int cmd_stress(cz_client *cl, const bench_opts *o) {
    if (o->rate_per_min <= 0 || o->duration_s <= 0) {
        fprintf(stderr, "cuzk bench stress: --rate and --duration must be > 0\n");
        return 2;
    }
    size_t max = (size_t)(o->rate_per_min * o->duration_s / 60.0) + 1;
    stress_item *items = calloc(max, sizeof *items);
    pthread_t *threads = calloc(max, sizeof *threads);
    if (!items || !threads) return 1;
    double interval = 60.0 / o->rate_per_min;
    printf("stress: %.2f proofs/min for %.0f s (%zu submissions)\n", o->rate_per_min, o->duration_s,
           max);
    uint64_t t0 = cz_now_ns();
    size_t n = 0;
    while (n < max && (double)(cz_now_ns() - t0) / 1e9 < o->duration_s) {
        stress_item *s = &items[n];
        s->cl = cl;
        new_request_id(s->id, sizeof s->id);
        Cuzk__V1__SubmitProofRequest q;
        fill_submit(&q, o, s->id);
        size_t len = cuzk__v1__submit_proof_request__get_packed_size(&q);
        uint8_t *buf = malloc(len ? len : 1), *resp = NULL;
        size_t resp_len = 0;
        int code = -1;
        char details[512];
        cz_error err = {0};
        if (!buf) break;
        cuzk__v1__submit_proof_request__pack(&q, buf);
        s->t_submit = cz_now_ns();
        cz_status st = cz_client_call(cl, "SubmitProof", buf, len, &resp, &resp_len, &code, details,
                                      sizeof details, 60000, &err);
        free(buf);
        free(resp);
        if (st != CZ_OK || code != 0) {
            printf("submit %zu failed: %s\n", n + 1, st != CZ_OK ? err.message : details);
            s->po.grpc_code = code ? code : -1;
        } else if (pthread_create(&threads[n], NULL, stress_await, s) != 0) {
            s->po.grpc_code = -1;
        } else {
            s->po.status = -1; /* thread running */
        }
        n++;
        double next = (double)n * interval;
        double now = (double)(cz_now_ns() - t0) / 1e9;
        if (next > now) {
            double d = next - now;
            struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    proof_outcome *res = calloc(n ? n : 1, sizeof *res);
    for (size_t i = 0; i < n; i++) {
        if (items[i].po.status == -1) pthread_join(threads[i], NULL);
        res[i] = items[i].po;
        printf("[%zu/%zu] %s - %.2f s %s\n", i + 1, n,
               res[i].grpc_code ? "ERROR" : status_name(res[i].status), res[i].wall_s,
               res[i].ok ? "" : res[i].message);
    }
    summary(res, (unsigned)n, (double)(cz_now_ns() - t0) / 1e9, daemon_peak_rss(cl));
    unsigned failed = 0;
    for (size_t i = 0; i < n; i++) failed += !res[i].ok;
    free(res);
    free(items);
    free(threads);
    return failed ? 1 : 0;
}

static int simple_call(cz_client *cl, const char *method, const ProtobufCMessage *req,
                       uint8_t **resp, size_t *resp_len) {
    size_t len = protobuf_c_message_get_packed_size(req);
    uint8_t buf[512];
    if (len > sizeof buf) return 1;
    protobuf_c_message_pack(req, buf);
    int code = -1;
    char details[512];
    cz_error err = {0};
    if (cz_client_call(cl, method, buf, len, resp, resp_len, &code, details, sizeof details, 30000,
                       &err) != CZ_OK) {
        return cz_cli_fail("bench", &err);
    }
    if (code != 0) {
        fprintf(stderr, "cuzk bench: %s: gRPC status %d: %s\n", method, code, details);
        return 1;
    }
    return 0;
}

static int cmd_status(cz_client *cl) {
    Cuzk__V1__GetStatusRequest q;
    cuzk__v1__get_status_request__init(&q);
    uint8_t *resp = NULL;
    size_t len = 0;
    if (simple_call(cl, "GetStatus", &q.base, &resp, &len)) return 1;
    Cuzk__V1__GetStatusResponse *s = cuzk__v1__get_status_response__unpack(NULL, len, resp);
    free(resp);
    if (!s) return 1;
    printf("uptime:     %" PRIu64 " s\ncompleted:  %" PRIu64 "\nfailed:     %" PRIu64 "\n",
           s->uptime_seconds, s->total_proofs_completed, s->total_proofs_failed);
    printf("memory:     %.2f of %.2f GiB reserved\n", (double)s->pinned_memory_bytes / (1u << 30),
           (double)s->pinned_memory_limit_bytes / (1u << 30));
    for (size_t i = 0; i < s->n_gpus; i++) {
        printf("gpu %u:      %s, job %s %s\n", s->gpus[i]->ordinal, s->gpus[i]->name,
               s->gpus[i]->current_job_id[0] ? s->gpus[i]->current_job_id : "-",
               s->gpus[i]->current_proof_kind);
        if (s->gpus[i]->memory_plan[0]) printf("  plan:     %s\n", s->gpus[i]->memory_plan);
    }
    if (!s->n_gpus) printf("gpus:       none (CPU back-end)\n");
    static const char *tiers[] = {"hot", "warm", "cold"};
    for (size_t i = 0; i < s->n_loaded_srs; i++)
        printf("srs:        %s %s, %.2f MiB, %u ref(s)%s\n", s->loaded_srs[i]->circuit_id,
               s->loaded_srs[i]->tier <= 2 ? tiers[s->loaded_srs[i]->tier] : "?",
               (double)s->loaded_srs[i]->size_bytes / (1 << 20), s->loaded_srs[i]->ref_count,
               s->loaded_srs[i]->development ? ", DEVELOPMENT key (NOT a trusted setup)" : "");
    if (s->development_keys)
        printf("WARNING:    %u development key(s) loaded: their proofs do not verify on chain\n",
               s->development_keys);
    for (size_t i = 0; i < s->n_queues; i++)
        printf("queue:      %-13s pending %u, in progress %u\n", s->queues[i]->proof_kind,
               s->queues[i]->pending, s->queues[i]->in_progress);
    cuzk__v1__get_status_response__free_unpacked(s, NULL);
    return 0;
}

static int cmd_metrics(cz_client *cl) {
    Cuzk__V1__GetMetricsRequest q;
    cuzk__v1__get_metrics_request__init(&q);
    uint8_t *resp = NULL;
    size_t len = 0;
    if (simple_call(cl, "GetMetrics", &q.base, &resp, &len)) return 1;
    Cuzk__V1__GetMetricsResponse *m = cuzk__v1__get_metrics_response__unpack(NULL, len, resp);
    free(resp);
    if (!m) return 1;
    fputs(m->prometheus_text, stdout);
    cuzk__v1__get_metrics_response__free_unpacked(m, NULL);
    return 0;
}

static int cmd_preload(cz_client *cl, const char *id, int evict) {
    uint8_t *resp = NULL;
    size_t len = 0;
    if (!evict) {
        Cuzk__V1__PreloadSrsRequest q;
        cuzk__v1__preload_srs_request__init(&q);
        q.circuit_id = (char *)id;
        if (simple_call(cl, "PreloadSRS", &q.base, &resp, &len)) return 1;
        Cuzk__V1__PreloadSrsResponse *r = cuzk__v1__preload_srs_response__unpack(NULL, len, resp);
        free(resp);
        if (!r) return 1;
        if (r->already_loaded)
            printf("%s already loaded\n", id);
        else
            printf("%s loaded in %" PRIu64 " ms\n", id, r->load_time_ms);
        cuzk__v1__preload_srs_response__free_unpacked(r, NULL);
        return 0;
    }
    Cuzk__V1__EvictSrsRequest q;
    cuzk__v1__evict_srs_request__init(&q);
    q.circuit_id = (char *)id;
    if (simple_call(cl, "EvictSRS", &q.base, &resp, &len)) return 1;
    Cuzk__V1__EvictSrsResponse *r = cuzk__v1__evict_srs_response__unpack(NULL, len, resp);
    free(resp);
    if (!r) return 1;
    printf("%s: %s, %" PRIu64 " bytes freed\n", id, r->was_loaded ? "evicted" : "was not loaded",
           r->freed_bytes);
    cuzk__v1__evict_srs_response__free_unpacked(r, NULL);
    return 0;
}

/* A whole-number option value in [min, max]; 0 after a message if not. */
static int number_arg(uint64_t *out, const char *cmd, const char *flag, const char *text,
                      uint64_t min, uint64_t max) {
    if (cz_cli_parse_u64(text, out) && *out >= min && *out <= max) return 1;
    fprintf(stderr, "cuzk bench %s: %s: expected a whole number from %llu to %llu, got '%s'\n", cmd,
            flag, (unsigned long long)min, (unsigned long long)max, text);
    return 0;
}

int cz_bench_client(int argc, char **argv) {
    const char *cmd = argv[0];
    bench_opts o = {.addr = "unix://cuzk.sock",
                    .type = "porep",
                    .miner_id = 1000,
                    .count = 3,
                    .concurrency = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            cz_bench_usage(stdout);
            return 0;
        }
#define OPT(s, l) ((!strcmp(a, s) || !strcmp(a, l)) && v && ++i)
#define NUMBER(dst, min, max)                                                                      \
    do {                                                                                           \
        uint64_t n_;                                                                               \
        if (!number_arg(&n_, cmd, a, v, min, max)) return 2;                                       \
        dst = n_;                                                                                  \
    } while (0)
#define SECONDS(dst)                                                                               \
    do {                                                                                           \
        char *end_;                                                                                \
        dst = strtod(v, &end_);                                                                    \
        if (end_ == v || *end_ || !(dst > 0) || dst > 1e9) {                                       \
            fprintf(stderr, "cuzk bench %s: %s: expected a positive number, got '%s'\n", cmd, a,   \
                    v);                                                                            \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)
        if (OPT("-a", "--addr"))
            o.addr = v;
        else if (OPT("-t", "--type"))
            o.type = v;
        else if (OPT("--c1", "--c1"))
            o.c1_path = v;
        else if (OPT("-c", "--count")) {
            if (!strcmp(cmd, "preload") || !strcmp(cmd, "evict"))
                o.circuit_id = v;
            else
                NUMBER(o.count, 1, 1000000);
        } else if (OPT("--circuit-id", "--circuit-id"))
            o.circuit_id = v;
        else if (OPT("-j", "--concurrency"))
            NUMBER(o.concurrency, 1, 4096);
        else if (OPT("--sector-num", "--sector-num")) {
            NUMBER(o.sector_num, 0, UINT64_MAX);
            o.sector_num_given = 1;
        } else if (OPT("--miner-id", "--miner-id"))
            NUMBER(o.miner_id, 0, UINT64_MAX);
        else if (OPT("--priority", "--priority")) {
            o.priority = parse_priority(v);
            if (o.priority < 0) {
                fprintf(stderr, "cuzk bench: bad priority '%s'\n", v);
                return 2;
            }
        } else if (OPT("--timeout-ms", "--timeout-ms"))
            NUMBER(o.timeout_ms, 0, UINT64_MAX);
        else if (OPT("--duration", "--duration"))
            SECONDS(o.duration_s);
        else if (OPT("--rate", "--rate"))
            SECONDS(o.rate_per_min);
        else if (OPT("-o", "--out"))
            o.out_path = v;
        else {
            fprintf(stderr, "cuzk bench: unknown or incomplete option '%s'\n", a);
            cz_bench_usage(stderr);
            return 2;
        }
#undef OPT
#undef NUMBER
#undef SECONDS
    }
    int proving = !strcmp(cmd, "single") || !strcmp(cmd, "batch") || !strcmp(cmd, "stress");
    if (proving) {
        if (strcmp(o.type, "porep") && strcmp(o.type, "porep-c2") &&
            strcmp(o.type, "seal-commit")) {
            fprintf(stderr,
                    "cuzk bench %s: type '%s': this client sends PoRep C2 only "
                    "(porep|porep-c2|seal-commit)\n",
                    cmd, o.type);
            return 2;
        }
        if (!o.c1_path) {
            fprintf(stderr, "cuzk bench %s: --c1 FILE is required\n", cmd);
            return 2;
        }
        cz_error err = {0};
        if (cz_cli_read_file(&o.c1, &o.c1_len, o.c1_path, SIZE_MAX / 2, &err) != CZ_OK)
            return cz_cli_fail("bench", &err);
        /* The daemon compares registered_proof and sector_number with the
         * C1 even when 0 (proto3 has no "unset"): send the C1's own, and
         * the envelope's SectorNum unless --sector-num says otherwise. */
        /* A C1 that does not parse here goes as it is: the daemon's
         * refusal is what a bench run reports. */
        cz_c1 parsed;
        if (cz_c1_parse(&parsed, o.c1, o.c1_len, NULL) == CZ_OK) {
            o.registered_proof = parsed.registered_proof;
            if (!o.sector_num_given && parsed.has_envelope)
                o.sector_num = parsed.envelope_sector_num;
        }
        cz_c1_free(&parsed);
    }
    if ((!strcmp(cmd, "preload") || !strcmp(cmd, "evict")) && !o.circuit_id) {
        fprintf(stderr, "cuzk bench %s: -c/--circuit-id ID is required\n", cmd);
        free(o.c1);
        return 2;
    }
    cz_client *cl = NULL;
    cz_error err = {0};
    if (cz_client_open(&cl, o.addr, &err) != CZ_OK) {
        fprintf(stderr, "cuzk bench: %s\n", err.message);
        free(o.c1);
        return 1;
    }
    int rc;
    if (!strcmp(cmd, "single"))
        rc = cmd_single(cl, &o);
    else if (!strcmp(cmd, "batch"))
        rc = cmd_batch(cl, &o);
    else if (!strcmp(cmd, "stress"))
        rc = cmd_stress(cl, &o);
    else if (!strcmp(cmd, "status"))
        rc = cmd_status(cl);
    else if (!strcmp(cmd, "metrics"))
        rc = cmd_metrics(cl);
    else
        rc = cmd_preload(cl, o.circuit_id, !strcmp(cmd, "evict"));
    cz_client_close(cl);
    free(o.c1);
    return rc;
}
