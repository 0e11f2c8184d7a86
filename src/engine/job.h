/* What the engine needs from a proof kind (a vtable, so tests can inject fake
 * kinds that only sleep); the prove back-ends are in backend.h.
 *
 * Life of a job, per kind:
 *   admit         optional, once, in the submitting thread before the job
 *                 exists (no engine lock): parse and check everything that
 *                 can be checked before proving, so a bad request is refused
 *                 at once; what it keeps in *state replaces the request's
 *                 buffers, which the engine then does not copy;
 *   prepare       once, on a synthesis worker: parse and check the request
 *                 (or take admit's state), fill the plan (units = partitions,
 *                 SRS, memory per unit);
 *   synthesize    per unit, on a synthesis worker, under the unit's memory
 *                 reservation;
 *   prove_start   per unit, on a prove worker: the heavy part; consumes synth;
 *   prove_finish  per unit, on the finalizer: unit_proof_bytes of proof;
 *   discard       frees a synth (stage 0) or pending (stage 1) value of a unit that will not go
 *                 on (cancel, failure of another unit, shutdown);
 *   verify        once, all units' proofs concatenated in unit order; a job
 *                 is COMPLETED only when this returns CZ_OK;
 *   free_state    once, whatever happened (also after a failed admit or
 *                 prepare).
 * The engine calls at most one op of a given unit at a time; ops of different
 * units of one job may run concurrently, so the shared state must be
 * read-only after prepare. */
#ifndef CZ_ENGINE_JOB_H
#define CZ_ENGINE_JOB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "engine/backend.h"
#include "groth16/prover.h"
#include "r1cs/circuit.h"

/* Where a unit is proven: the back-end context a prove worker runs on,
 * and what identifies the unit there (backend.h: cz_backend_unit). */
typedef struct {
    cz_backend *backend;
    const char *job_id;
    cz_proof_kind kind;
    const char *circuit_id;
    int priority; /* the job's (cz_backend_unit.priority) */
} cz_prove_context;

/* A loaded SRS as the ops see it; NULL when plan.circuit_id is empty. */
typedef struct {
    /* the vk and the counts always; the point arrays NULL when the points
     * live on the devices only (srs.h) */
    const cz_groth16_params *params;
    const cz_groth16_vk *vk;
    const cz_circuit *circuit;                 /* when the plan asked for it */
    const cz_groth16_params_file *params_file; /* the mapped .params file */
} cz_srs_handle;

typedef struct {
    /* Set by the engine before prepare: a back-end context evaluates a, b,
     * c and the H polynomial in host memory (the CPU one), so a unit's
     * memory includes them; else only the witness stays on the host. */
    int host_evaluation;
    uint32_t units;            /* >= 1 */
    size_t unit_proof_bytes;   /* proof bytes per unit */
    uint64_t unit_bytes;       /* memory from synthesis start to prove_start's end */
    uint64_t unit_bytes_after; /* kept from prove_start's end to prove_finish's end */
    /* a, b, c of a unit (3 m elements; 0 with host_evaluation, whose
     * unit_bytes has them): what a CUDA context that evaluates them on the
     * host (its key streams, the circuit not on the device) holds from
     * staging to prove_start's end; the engine adds them to a unit's
     * reservation when a context does (workers.c) */
    uint64_t unit_abc_bytes;
    char circuit_id[32]; /* SRS to hold while the job runs; "" = none */
    int wants_circuit;   /* the SRS with its pre-compiled circuit (srs.h) */
} cz_job_plan;

struct cz_job_ops {
    const char *name;
    /* *state: admit's state when the kind has admit, else NULL. */
    cz_status (*prepare)(void **state, cz_job_plan *plan, const cz_engine_request *req,
                         const char *param_cache, cz_error *err);
    cz_status (*synthesize)(void *state, uint32_t unit, void **synth, cz_error *err);
    cz_status (*prove_start)(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                             const cz_prove_context *where, void **pending, cz_error *err);
    /* Optional: host work on a synthesized unit ahead of its turn, on the
     * synthesizing thread, for the context expected to prove it
     * (where->backend; cz_backend_prep): what that context would otherwise
     * do in its staging, after the device's previous units. Returns 1 when
     * synth now carries that work (prove_start or discard frees it); 2 when
     * moreover shed_abc was set and the context, as its key is planned now,
     * needs no a, b, c of the unit in host memory (cz_backend_prep_no_abc):
     * the engine gives plan.unit_abc_bytes of the unit's reservation back,
     * and its contexts refuse it (CZ_E_BUSY) where they would need them. */
    int (*prep)(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                const cz_prove_context *where, int shed_abc);
    cz_status (*prove_finish)(void *state, uint32_t unit, void *pending, const cz_srs_handle *srs,
                              uint8_t *out, cz_error *err);
    /* stage 0: data is a synthesize result; 1: a prove_start result. */
    void (*discard)(void *state, uint32_t unit, void *data, int stage);
    cz_status (*verify)(void *state, const uint8_t *proof, size_t proof_len,
                        const cz_srs_handle *srs, cz_error *err);
    void (*free_state)(void *state);
    /* May be NULL: then the engine copies the request's buffers and prepare
     * reads them. When set, prepare finds admit's state in *state and req
     * without buffers (lengths 0); on failure *state is NULL or freed by
     * free_state. */
    cz_status (*admit)(void **state, const cz_engine_request *req, cz_error *err);
};

/* PoRep C2 (src/engine/porep_job.c). */
extern const cz_job_ops cz_job_ops_porep;
/* WinningPoSt and WindowPoSt, one unit each (src/engine/post_job.c). */
extern const cz_job_ops cz_job_ops_post;
/* SnapDeals (EmptySectorUpdate), one unit per partition (src/engine/snap_job.c). */
extern const cz_job_ops cz_job_ops_snap;

/* The skeleton the Filecoin kinds fill (witness_job.c): a unit is a
 * witness proven with the SRS's pre-compiled circuit (a, b, c in the
 * back-end). A kind's state begins with a cz_witness_job; the kind gives
 * admit, prepare (cz_witness_job_plan), its witness step (fill), verify
 * and free_state (cz_witness_job_free); the skeleton gives synthesize,
 * prove_start, prove_finish and discard, the same for every kind. */
#define CZ_JOB_WITNESS_POOL 16

typedef cz_status (*cz_witness_fill)(void *state, uint32_t unit, cz_witness *w, unsigned threads,
                                     cz_error *err);

typedef struct {
    cz_witness_fill fill; /* unit's witness into w, on threads threads */
    /* Witness buffers kept for the job's next units: a 32 GiB partition's
     * witness is 4 GiB, whose first touch costs page faults and zeroing.
     * The pool holds at most as many as are in flight, and none once every
     * unit has taken its buffer (units, from cz_witness_job_plan; taken):
     * an idle buffer is outside the memory budget, and a job's last units
     * may wait in the prove queue behind many others (a unit whose a, b,
     * c left its reservation, workers.c, lets more be in flight). */
    pthread_mutex_t pool_lock;
    cz_witness *pool[CZ_JOB_WITNESS_POOL];
    unsigned pooled, units, taken;
} cz_witness_job;

void cz_witness_job_init(cz_witness_job *j, cz_witness_fill fill);
void cz_witness_job_free(cz_witness_job *j);

/* Host memory of one unit of a circuit with these counts and a domain of
 * m: 32 bytes per input and aux (the witness) + 64 MiB, and with
 * host_evaluation (the CPU back-end) a, b, c, H and its scratch (6 m) and
 * the compacted MSM scalars (aux). An estimate of the peak. */
uint64_t cz_job_unit_bytes(uint64_t n_inputs, uint64_t n_aux, uint64_t m, int host_evaluation);
/* The same from a .params header (inputs = ic, m = h + 1, aux = l), and
 * the domain m (may be NULL); CZ_E_NOT_FOUND when the file is absent. */
cz_status cz_job_unit_bytes_from_params(uint64_t *out, uint64_t *m, const char *path,
                                        int host_evaluation, cz_error *err);

/* The plan of units units of circuit_id, unit_bytes host bytes each (from
 * synthesis to prove_start's end), a Groth16 proof each, over a domain of
 * m (a, b, c on the host: unit_abc_bytes); j learns the units (its pool). */
void cz_witness_job_plan(cz_witness_job *j, cz_job_plan *plan, const char *circuit_id,
                         uint32_t units, uint64_t unit_bytes, uint64_t m);

/* The ops the skeleton gives (state: a cz_witness_job first). */
cz_status cz_job_witness_synthesize(void *state, uint32_t unit, void **synth, cz_error *err);
/* Whether the calling thread's next syntheses fill their witness on every
 * core (a CRITICAL unit: a WinningPoSt due within seconds, which beside
 * sixteen busy synthesis workers got one thread of seventeen) instead of
 * their share of the cores (the default). */
void cz_job_witness_all_cores(int on);
cz_status cz_job_witness_prove_start(void *state, uint32_t unit, void *synth,
                                     const cz_srs_handle *srs, const cz_prove_context *where,
                                     void **pending, cz_error *err);
cz_status cz_job_msm_prove_finish(void *state, uint32_t unit, void *pending,
                                  const cz_srs_handle *srs, uint8_t *out, cz_error *err);
int cz_job_witness_prep(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                        const cz_prove_context *where, int shed_abc);
void cz_job_witness_discard(void *state, uint32_t unit, void *data, int stage);

#endif
