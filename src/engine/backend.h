/* Prover back-ends: the contexts that run the heavy half of a unit's proof
 * (H and the five MSM sums, cz_groth16_prove_start's contract).
 *
 * A context is the CPU, or one CUDA device (several contexts may share one
 * device: that is how the multi-device paths are tested on a host with one
 * GPU). Each context owns what it keeps resident: a CUDA context the
 * proving keys of the circuits it proved last, up to
 * CZ_BACKEND_MAX_RESIDENT side by side (keyed by circuit id and the key's
 * identity, so a reloaded key hits and another setup's key does not), within
 * its device-memory budget, least recently used evicted first, loaded from
 * the host points or straight from the .params file (hold). Nothing about a device lives in
 * process-global state. The engine creates the contexts from a
 * cz_backend_choice and owns them; the daemon and the CLI only choose.
 *
 * Thread safety: a context runs one unit at a time (prove_start holds its
 * lock) and stages at most one more beside it (ops->stage); release and
 * info may be called from any thread. */
#ifndef CZ_ENGINE_BACKEND_H
#define CZ_ENGINE_BACKEND_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "groth16/prover.h"
#include "r1cs/circuit.h"

/* One unit to prove. */
typedef struct {
    const char *job_id; /* for status ("" or NULL when none) */
    cz_proof_kind kind;
    const char *circuit_id; /* names what may stay resident ("" = keep nothing) */
    const cz_groth16_params *params;
    /* The unit, one of: pd synthesized with a, b, c and densities (the
     * prove back-end of r1cs); or a witness with the pre-compiled circuit,
     * from which the context evaluates a, b, c itself. */
    const cz_prove_data *pd;
    const cz_circuit *circuit;
    const cz_witness *witness;
    /* The mapped .params file params came from, or NULL. When the SRS
     * manager keeps no host points (params has the vk and the counts, its
     * point arrays NULL: the key lives on the devices, see srs.h), a context
     * that lost its resident copy loads it again from here. */
    const cz_groth16_params_file *params_file;
    /* The unit's job's priority (CZ_PRIORITY_*; 0: not said). A CUDA
     * context keeps a key last used for CRITICAL work beside the keys that
     * lower priorities bring (cuda_ensure). */
    int priority;
    /* What cz_backend_prep made of the unit on this context ahead of its
     * turn, or NULL (the engine never passes one context's token to
     * another). */
    void *prep;
    /* The unit's host memory reservation holds no a, b, c (job.h: prep;
     * cz_backend_prep_no_abc said so): a context that would evaluate them
     * on the CPU refuses the unit with CZ_E_BUSY instead, and the engine
     * synthesizes it again with them reserved. */
    int abc_unreserved;
} cz_backend_unit;

typedef cz_engine_backend_info cz_backend_info;

typedef struct {
    const char *kind; /* "cpu", "cuda", or a test's name */
    cz_status (*prove_start)(cz_backend *b, cz_groth16_msm_results *out, const cz_backend_unit *u,
                             cz_error *err);
    /* Makes circuit_id's key (and its pre-compiled circuit, when not NULL)
     * resident: from params' host points when it has them, else straight
     * from the mapped .params file (file), needing no host points
     * afterwards. CZ_OK when it is resident (loaded now, or held already);
     * CZ_E_UNSUPPORTED when params has no host points and this context
     * cannot hold the key that way (the device is too small, so the points
     * would stream from host memory): the caller decodes the points on the
     * host and passes them with the units. Other failures are the file's (a
     * damaged point, a digest mismatch) or the device's. The engine calls it
     * when an SRS loads (on every context, from the file) and when a job is
     * admitted (on an idle context, so the upload overlaps synthesis);
     * priority is the job's, as in cz_backend_unit. NULL: a context that
     * keeps nothing (the CPU). Called under the run lock. */
    cz_status (*hold)(cz_backend *b, const char *circuit_id, const cz_groth16_params *params,
                      const cz_groth16_params_file *file, const cz_circuit *circuit, int priority,
                      cz_error *err);
    /* Frees what is resident for circuit_id (every circuit when NULL);
     * returns the device bytes freed. Called under the run lock. */
    uint64_t (*release)(cz_backend *b, const char *circuit_id);
    void (*destroy)(cz_backend *b);
    /* Optional: before the unit takes the run lock, copies what it can of
     * it to the device (the CUDA context: the witness, into one of two
     * device slots), so that copy runs beside the kernels of the unit in
     * progress; returns a token, or NULL when nothing was staged (no free
     * slot, no slot for this circuit, an error, which prove_start will meet
     * again); prove_start finds what was staged for the same unit itself.
     * Called under the stage lock, one stager at a time; unstage gives the
     * token back after prove_start. */
    void *(*stage)(cz_backend *b, const cz_backend_unit *u);
    void (*unstage)(cz_backend *b, void *staged);
    /* Optional: the host part of staging, done ahead by the thread that
     * synthesized the unit, with no lock of the context held (the CUDA
     * context: a, b, c on the CPU for a key whose circuit is not on the
     * device, the packed witness); returns a token for u->prep, or NULL
     * when there is nothing to do ahead. prep_free frees a token, used or
     * not. */
    void *(*prep)(cz_backend *b, const cz_backend_unit *u);
    void (*prep_free)(cz_backend *b, void *prep);
    /* Optional: 1 when the unit prep was made for needs no a, b, c in host
     * memory on this context as its key is planned now (NULL: it may). */
    int (*prep_no_abc)(cz_backend *b, const void *prep);
    /* Optional: whether this context may evaluate the a, b, c of
     * circuit_id's units in host memory: 1 when its key of circuit_id does
     * (it streams without its circuit on the device, or a lean plan's unit
     * has a witness that does not pack small), 0 when the circuit on the
     * device always does, -1 when it holds no key of circuit_id. Reads
     * without the run lock (a unit may be in progress). */
    int (*host_abc)(cz_backend *b, const char *circuit_id);
} cz_backend_ops;

struct cz_backend {
    const cz_backend_ops *ops;
    void *impl;
    pthread_mutex_t run_lock;   /* one unit (or release) at a time; guards impl */
    pthread_mutex_t stage_lock; /* one ops->stage at a time (taken before run_lock, never inside) */
    pthread_mutex_t info_lock;  /* guards info, which status calls read without waiting */
    cz_backend_info info;
    /* Units inside cz_backend_prove_start (not nested), those of them not
     * past their staging yet (a, b, c on the CPU: seconds), and those
     * waiting for a pass over their key's points (engine/backend.c); under
     * info_lock, in_flight and pass_waiting changed with run_lock held where
     * a waiter must see it: waiters wait on pass_cond with run_lock. */
    unsigned in_flight, staging, pass_waiting;
    pthread_cond_t pass_cond;
};

/* Initialises the shared part (ops, impl, name, locks). */
void cz_backend_init(cz_backend *b, const cz_backend_ops *ops, void *impl, const char *name);
/* What an implementation calls when its resident state changes: the
 * circuits now resident (most recently used first), the device bytes held,
 * whether a key streams. The one-circuit form: circuit_id alone ("" or
 * NULL: nothing). */
void cz_backend_note_residents(cz_backend *b, const char *const *ids, uint32_t n, uint64_t bytes,
                               int streaming);
void cz_backend_note_resident(cz_backend *b, const char *circuit_id, uint64_t bytes, int streaming);
/* The memory plan a context's status reports (kind and line; NULL: none). */
void cz_backend_note_plan(cz_backend *b, const char *kind, const char *line);

/* The CPU context (cz_groth16_prove_start over all cores). */
cz_status cz_backend_cpu_create(cz_backend **out, cz_error *err);
/* A CUDA context on device (ordinal); budget_bytes of device memory for
 * what it keeps (0 = the device's free memory at the first upload). Fails
 * with the device's problem (no driver, no such device) at once. */
cz_status cz_backend_cuda_create(cz_backend **out, int device, uint64_t budget_bytes,
                                 const char *name, cz_error *err);
/* For a CUDA context that is the engine's only back-end (before any unit):
 * once it holds a key from m's host points, the host copies of the vectors
 * its device keeps are freed (cz_srs_drop_host_vectors), and decoded again
 * before it plans that key anew. Nothing for another kind of context. */
struct cz_srs_manager;
void cz_backend_cuda_own_host_points(cz_backend *b, struct cz_srs_manager *m);

/* Stages the unit (ops->stage, under the stage lock), then runs it under
 * the context's lock, counting busy time (the run, not the staging) and
 * units. */
cz_status cz_backend_prove_start(cz_backend *b, cz_groth16_msm_results *out,
                                 const cz_backend_unit *u, cz_error *err);
/* ops->prep (NULL when the context has none), ops->prep_free (NULL is
 * fine) and ops->prep_no_abc (0 when the context has none). */
void *cz_backend_prep(cz_backend *b, const cz_backend_unit *u);
void cz_backend_prep_free(cz_backend *b, void *prep);
int cz_backend_prep_no_abc(cz_backend *b, const void *prep);
/* ops->hold under the context's lock; CZ_E_UNSUPPORTED when it has none.
 * wait 0: CZ_E_BUSY at once when the lock is taken (a unit, another key's
 * upload), instead of waiting for it. */
cz_status cz_backend_hold(cz_backend *b, const char *circuit_id, const cz_groth16_params *params,
                          const cz_groth16_params_file *file, const cz_circuit *circuit,
                          int priority, int wait, cz_error *err);
uint64_t cz_backend_release(cz_backend *b, const char *circuit_id);
/* 1 when nothing holds the context's run lock at this instant (no unit
 * runs, no key is being held): units there are staging, waiting for a
 * pass, or none. A probe (trylock), so callers may hold other locks. */
int cz_backend_run_lock_free(cz_backend *b);
/* ops->host_abc; -1 when it has none. */
int cz_backend_host_abc(cz_backend *b, const char *circuit_id);
void cz_backend_get_info(cz_backend *b, cz_backend_info *out);
void cz_backend_destroy(cz_backend *b); /* NULL is fine */

/* The contexts a choice asks for (cz_engine_config's backend fields): for
 * "auto" CUDA contexts on the listed devices (all devices when none is
 * listed) when a device probes OK, else the CPU; "cuda" fails when a device
 * does not probe; "cpu" is the CPU. *n receives the count (<= max). */
cz_status cz_backends_create(cz_backend **out, uint32_t *n, uint32_t max,
                             const cz_engine_config *cfg, cz_error *err);

/* Whether a choice ("auto", "cpu", "cuda"; NULL or "" = "auto") can be
 * served on this host, without making a context: CZ_E_INVALID_ARG for
 * another word; "cuda" needs a usable device (CZ_E_NOT_FOUND: none at all);
 * "auto" fails only for a GPU that is there and cannot be used (no code for
 * it in this build, a driver too old), never to prove on the CPU unasked.
 * For the command line's early refusal; the engine decides the same way. */
cz_status cz_backend_choice_check(const char *choice, cz_error *err);

#endif
