/* The cuzk proving engine: a job table keyed by request_id, a priority
 * scheduler, a memory budget, an SRS manager and the partition pipeline
 * (synthesis workers -> bounded prove queue -> prove workers -> finalizer).
 *
 * Thread safety: every function may be called from any thread once the
 * engine is created; cz_engine_destroy must be the last call.
 *
 * Semantics the daemon relies on (fixing the Rust daemon's flaws):
 *   - request_id is an idempotency key for the same payload: a submit with
 *     the id and payload of a queued, running or completed job attaches to
 *     it (the same result for every caller); if that job FAILED or was
 *     CANCELLED it starts anew. Another payload under the id of an ended job
 *     starts a new job that replaces it (Curio's ids are fixed per sector,
 *     porep-<miner>-<sector>, and a sector may be re-proven with a new C1);
 *     while the first is queued or running it is refused (CZ_E_BUSY, the
 *     message names the job). An empty id gets a made-up one (a UUIDv4, in
 *     the submit info): no idempotency, as in Rust cuzk.
 *   - a kind may check its request at submission (PoRep: the C1's shape,
 *     registered_proof / sector_size / sector_number against it, the vanilla
 *     proofs with miner_id's prover id): a bad one is refused at once by
 *     cz_engine_submit instead of failing after a full proof.
 *   - results are kept result_retention_ms after the job ends, then pruned.
 *   - priority (CRITICAL > HIGH > NORMAL > LOW, then submission order, then
 *     partition) orders every queue: jobs to prepare, partitions to
 *     synthesize, partitions to prove. The prove queue alone may reorder
 *     units of one priority to keep the back-end on one circuit (see
 *     max_batch_size below); a higher priority still always goes first.
 *   - cancel removes a queued job at once; a running one's queued
 *     partitions end at once (their memory back) and the partition in the
 *     prover stops at its next step (between MSMs); every waiter gets
 *     CANCELLED.
 *   - a proof is returned only after it verified. */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values equal to the cuzk.v1 wire enums. */
typedef enum {
    CZ_PROOF_KIND_UNSPECIFIED = 0,
    CZ_PROOF_POREP = 1,
    CZ_PROOF_SNAP = 2,
    CZ_PROOF_WINDOW_POST = 3,
    CZ_PROOF_WINNING_POST = 4
} cz_proof_kind;
#define CZ_PROOF_KIND_COUNT 5

typedef enum {
    CZ_PRIORITY_UNSPECIFIED = 0, /* the kind's default */
    CZ_PRIORITY_LOW = 1,
    CZ_PRIORITY_NORMAL = 2,
    CZ_PRIORITY_HIGH = 3,
    CZ_PRIORITY_CRITICAL = 4
} cz_priority;

typedef enum {
    CZ_JOB_UNKNOWN = 0, /* no such job (never submitted, or pruned) */
    CZ_JOB_COMPLETED = 1,
    CZ_JOB_FAILED = 2,
    CZ_JOB_CANCELLED = 3,
    CZ_JOB_TIMEOUT = 4 /* await gave up; the job goes on */
} cz_job_status;

#define CZ_JOB_ID_MAX 256 /* bytes of a request_id, NUL excluded */

/* A request; the engine keeps no pointer into it (what it keeps it parses
 * or copies during cz_engine_submit). */
typedef struct {
    /* 0..CZ_JOB_ID_MAX bytes of UTF-8 without control characters; "" = make
     * one up */
    const char *request_id;
    cz_proof_kind kind;
    cz_priority priority; /* 0..4; another value is refused (CZ_E_INVALID_ARG) */
    uint64_t sector_size, registered_proof, sector_number, miner_id;
    /* 1 (the daemon): registered_proof and sector_number are compared with
     * the C1 even when 0, since 0 is a real value of both (StackedDrg2KiBV1,
     * sector 0) and proto3 cannot send "unset"; a PoRep miner_id of 0 is
     * refused (no storage provider is actor f00). 0 (the command line): 0
     * means "not given" for the three, and the C1 decides. */
    int zero_is_value;
    const uint8_t *vanilla_proof; /* PoRep: C1 (envelope or raw JSON) */
    size_t vanilla_proof_len;
    const uint8_t *const *vanilla_proofs; /* PoSt / Snap */
    const size_t *vanilla_proofs_len;
    size_t n_vanilla_proofs;
    const uint8_t *randomness;
    size_t randomness_len;
    uint32_t partition_index;
    const uint8_t *comm_r_old, *comm_r_new, *comm_d_new;
    size_t comm_r_old_len, comm_r_new_len, comm_d_new_len;
} cz_engine_request;

typedef struct {
    char job_id[CZ_JOB_ID_MAX + 1];
    uint32_t queue_position; /* jobs ahead of this one in the scheduler */
    int attached;            /* 1 when the id named an existing job */
} cz_engine_submit_info;

typedef struct {
    cz_job_status status;
    uint8_t *proof; /* malloc'ed; free with cz_engine_result_free */
    size_t proof_len;
    char error_message[512];
    /* Why the job did not complete: the status of the step that failed
     * (CZ_E_VERIFY when self-verification refused the proof),
     * CZ_E_CANCELLED, or CZ_E_NOT_FOUND for no such job; CZ_OK when it
     * completed or is still running (CZ_JOB_TIMEOUT). */
    cz_status error_status;
    /* queue: submission to the first partition's synthesis start, less the
     * SRS load; srs: time
     * spent loading the SRS for this job (0 when it was resident);
     * synthesis and gpu_compute: sums over partitions (partitions overlap,
     * so these can exceed total); total: submission to result. */
    uint64_t queue_wait_ms, srs_load_ms, synthesis_ms, gpu_compute_ms, total_ms;
} cz_engine_result;

void cz_engine_result_free(cz_engine_result *r);

typedef struct cz_job_ops cz_job_ops; /* src/engine/job.h */
typedef struct cz_backend cz_backend; /* src/engine/backend.h */

/* Prove back-end contexts an engine may own (CPU, or one per GPU entry). */
#define CZ_ENGINE_MAX_BACKENDS 16

/* Keys (with their circuits) a CUDA context keeps resident side by side. */
#define CZ_BACKEND_MAX_RESIDENT 4

/* What a prove back-end context reports (GetStatus, /metrics). */
typedef struct {
    char name[32];         /* "cpu", "cuda:0", "cuda:0/1" (second context of device 0) */
    int device;            /* CUDA ordinal; -1 for the CPU */
    char description[160]; /* "NVIDIA H200, 132 SMs, 139 GiB, sm_90", or the CPU's threads */
    uint64_t memory_used;  /* device bytes held (keys, circuits, tables); 0 for the CPU */
    uint64_t memory_budget, memory_total; /* this context's share / the device's size */
    /* the circuits whose keys are resident, most recently used first */
    char resident_circuits[CZ_BACKEND_MAX_RESIDENT][32];
    uint32_t n_resident;
    int streaming; /* a resident key streams from host memory */
    /* the device memory plan of the most recently used key (src/gpu/plan.h):
     * its kind ("resident", "partial", "streaming"; "" with no key) and one
     * line ("porep-32g: partial: H, B_G1 resident, ...") */
    char memory_plan_kind[16];
    char memory_plan[320];
    int busy;
    int out_of_service; /* a device error took it out of service (engine status only) */
    char current_job[CZ_JOB_ID_MAX + 1]; /* job of the unit in progress ("" idle) */
    cz_proof_kind current_kind;
    uint64_t busy_ns, units, failures;
} cz_engine_backend_info;

typedef struct {
    /* Memory budget in bytes; 0 = physical memory minus safety_margin. */
    uint64_t memory_budget_bytes;
    uint64_t safety_margin_bytes; /* 0 = 15 % of the memory, 5 to 32 GiB; more than half
                                     the memory: half is the budget */
    /* Workers; 0 = the engine's choice from the contexts it made: with the
     * CPU back-end 2 synthesis workers (one prepares the next partition while
     * a proof takes every core), else one per core. */
    uint32_t synthesis_workers;
    /* Prove workers per device context ("GPU workers per device"; 0 = the
     * engine's choice: 2, a second overlapping one unit's host work with
     * another's kernels, or 3 when every device has under 40 GiB for keys,
     * where a third shares the passes over a streamed key's points); a CPU
     * context has one, whose proof uses every core. */
    uint32_t prove_workers;
    /* Synthesized partitions waiting to prove beyond which a synthesis
     * worker that queues one more waits (its partition stays queued, so the
     * prove workers choose among up to depth + synthesis_workers);
     * 0 = prove_workers. */
    uint32_t prove_queue_depth;
    /* Partitions synthesized ahead of the prove workers: a synthesis worker
     * starts a unit only while fewer units of its priority or above are
     * being synthesized or wait in the prove queue (preparations, dropped
     * units and the critical lane are not bounded). Bounds host memory to
     * about (this + prove workers) witnesses (4 GiB each at 32 GiB) whatever
     * synthesis_workers is; 0 = 2 per prove worker + 2, or prove_queue_depth +
     * the prove workers when that is more. */
    uint32_t partitions_ahead;
    /* The synthesis workers' nice value (0 = as the process; at most 19):
     * they then yield the cores to the prove workers' host work (copies
     * feeding the device) and to the critical lane, which keeps the
     * process's and alone takes CRITICAL units. */
    uint32_t synthesis_nice;
    const char *param_cache; /* directory of .params / .vk (copied) */
    uint64_t result_retention_ms;
    uint64_t srs_eviction_min_idle_ms; /* an unused hot SRS may be evicted after this */
    int timeline;                      /* TIMELINE lines on stderr */
    /* Chrome trace-event JSON of every unit's spans (synthesis, prove queue,
     * prove and its GPU steps, finalize; preparation, SRS loads, verify),
     * written to trace_path by cz_engine_destroy; NULL = none. */
    const char *trace_path;
    /* A line per proven partition ("job X: partition 3 of 10 proven on
     * cuda:0 in 1.21 s (0.40 s queued)"); NULL = none. */
    FILE *progress;
    /* Same-circuit runs on the prove back-end (which keeps one circuit's
     * parameters resident; a switch re-uploads them). Among the ready units
     * of the highest priority present, a prove worker prefers units of the
     * circuit (kind and circuit id) proven last, up to max_batch_size
     * consecutive units of it; then plain order (priority, age) decides.
     * A unit of another circuit that has been ready longer than
     * max_batch_wait_ms ends the run (0: never pass one over). Never waits
     * for units to arrive. max_batch_size 0 or 1 = plain order. */
    uint32_t max_batch_size;
    uint64_t max_batch_wait_ms;
    /* Prove back-ends; the engine creates and owns the contexts.
     * backend: "auto" (also NULL or ""): a CUDA context per device when
     * one probes OK, else the CPU; "cuda": CUDA or fail; "cpu".
     * devices: CUDA ordinals, one context per entry (an ordinal may repeat:
     * those contexts share the device), none = every device of the host.
     * device_memory_bytes: each context's device-memory budget (0 = the
     * device's free memory, split equally between contexts on one device).
     * prove_threads: CPU threads of a prove worker's own parallel loops
     * ([gpus] gpu_threads; 0 = every core). */
    const char *backend;
    uint32_t devices[CZ_ENGINE_MAX_BACKENDS];
    uint32_t n_devices;
    uint64_t device_memory_bytes;
    uint32_t prove_threads;
    /* Injection points: job kinds by cz_proof_kind (NULL = built-in), and
     * back-end contexts made by the caller (tests): when n_backends > 0
     * they are used instead of the choice above, and the engine owns them
     * from cz_engine_create on, also when it fails. */
    const cz_job_ops *ops[CZ_PROOF_KIND_COUNT];
    cz_backend *backends[CZ_ENGINE_MAX_BACKENDS];
    uint32_t n_backends;
} cz_engine_config;

typedef struct cz_engine cz_engine;

cz_status cz_engine_create(cz_engine **out, const cz_engine_config *cfg, cz_error *err);
/* Cancels what is left, joins the workers and frees everything. */
void cz_engine_destroy(cz_engine *e);

/* CZ_E_INVALID_ARG: a malformed request (message says which field and
 * why, including the admission check's findings); CZ_E_UNSUPPORTED: a kind
 * this build does not prove; CZ_E_BUSY: the id names a job in flight with
 * another payload; CZ_E_SHUTDOWN: draining. */
cz_status cz_engine_submit(cz_engine *e, const cz_engine_request *req, cz_engine_submit_info *info,
                           cz_error *err);

/* Waits for the job (timeout_ms 0 = until it ends). out->status UNKNOWN when
 * no such job; TIMEOUT when the time ran out or abandon(ctx) returned
 * non-zero (a caller that went away; polled about every 200 ms). */
cz_status cz_engine_await(cz_engine *e, const char *job_id, uint64_t timeout_ms,
                          int (*abandon)(void *ctx), void *abandon_ctx, cz_engine_result *out,
                          cz_error *err);

/* *found = 0 for an unknown job; *was_running = 1 when partitions had
 * started. A finished job is left as it is. */
cz_status cz_engine_cancel(cz_engine *e, const char *job_id, int *found, int *was_running,
                           cz_error *err);

/* SRS tiers (values of the wire enum SRSStatus.Tier). */
typedef enum { CZ_SRS_HOT = 0, CZ_SRS_WARM = 1, CZ_SRS_COLD = 2 } cz_srs_tier;

typedef struct {
    char circuit_id[32];
    cz_srs_tier tier;
    uint64_t size_bytes; /* of the .params file (0 when cold) */
    uint32_t ref_count;
    uint64_t host_bytes;  /* memory budget it holds (hot) */
    int points_on_device; /* hot with the points on the GPUs only, no host copy */
    /* a development key (cuzk setup, NOT a trusted setup) or a file not in
     * Filecoin's table: its proofs will not verify on chain */
    int development;
} cz_engine_srs_info;

typedef struct {
    uint32_t pending, in_progress; /* jobs waiting / with partitions started */
} cz_engine_queue_info;

/* One step of the GPU prover ("H MSM", "B tail MSM", ...), over all units:
 * its calls, their total, the median call (within 1/16) and the longest. */
#define CZ_ENGINE_MAX_STEPS 24
typedef struct {
    char name[40];
    uint64_t count, total_ns, median_ns, max_ns;
} cz_engine_step;

typedef struct {
    uint64_t uptime_seconds, completed, failed, cancelled;
    uint64_t memory_used_bytes, memory_total_bytes;
    cz_engine_queue_info queues[CZ_PROOF_KIND_COUNT]; /* index = cz_proof_kind */
    size_t n_srs;
    cz_engine_srs_info srs[16];
    uint32_t prove_workers, prove_workers_busy; /* in total */
    const char *backend_name;                   /* kind of the contexts: "cpu", "cuda" */
    uint32_t n_backends;
    cz_engine_backend_info backends[CZ_ENGINE_MAX_BACKENDS];
    size_t n_steps;
    cz_engine_step steps[CZ_ENGINE_MAX_STEPS];
    /* Prove units whose circuit differed from the one proven before them
     * (counted when a worker takes the unit; the first unit is not one). */
    uint64_t gpu_circuit_switches;
    uint64_t preemptions; /* units proven inside a lower-priority one at a step boundary */
    /* SRS entries loaded (warm or hot) from development keys (srs[].development) */
    uint32_t development_keys;
} cz_engine_status;

void cz_engine_get_status(cz_engine *e, cz_engine_status *out);

/* Prometheus text exposition; *text malloc'ed (free it). */
cz_status cz_engine_metrics(cz_engine *e, char **text, cz_error *err);

/* circuit ids: "porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g". */
cz_status cz_engine_preload(cz_engine *e, const char *circuit_id, int *already_loaded,
                            uint64_t *load_ms, cz_error *err);
/* Drops the decoded SRS and the mapping (hot or warm -> cold) and what the
 * back-end contexts keep of it on their devices (freed_bytes counts both).
 * CZ_E_BUSY when proofs in flight use it. */
cz_status cz_engine_evict(cz_engine *e, const char *circuit_id, int *was_loaded,
                          uint64_t *freed_bytes, cz_error *err);

/* Stops accepting submissions, waits up to timeout_ms for the jobs in
 * flight, then cancels the rest and waits for them to stop. Returns the
 * number of jobs cancelled. */
uint32_t cz_engine_drain(cz_engine *e, uint64_t timeout_ms);

const char *cz_proof_kind_name(cz_proof_kind kind); /* "porep-c2", ... */
const char *cz_job_status_name(cz_job_status s);

#ifdef __cplusplus
}
#endif
#endif
