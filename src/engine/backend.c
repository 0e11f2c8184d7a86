/* Prover back-end contexts: the CPU and one per CUDA device (backend.h). */
#include "engine/backend.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/srs.h"
#include "gpu/gpu.h"
#include "gpu/settings.h"
#include "util/cancel.h"
#include "util/check.h"
#include "util/log.h"
#include "util/parallel.h"

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

void cz_backend_init(cz_backend *b, const cz_backend_ops *ops, void *impl, const char *name) {
    memset(b, 0, sizeof *b);
    b->ops = ops;
    b->impl = impl;
    pthread_mutex_init(&b->run_lock, NULL);
    pthread_mutex_init(&b->stage_lock, NULL);
    pthread_mutex_init(&b->info_lock, NULL);
    pthread_cond_init(&b->pass_cond, NULL);
    snprintf(b->info.name, sizeof b->info.name, "%s", name);
    b->info.device = -1;
}

void cz_backend_note_residents(cz_backend *b, const char *const *ids, uint32_t n, uint64_t bytes,
                               int streaming) {
    if (n > CZ_BACKEND_MAX_RESIDENT) n = CZ_BACKEND_MAX_RESIDENT;
    pthread_mutex_lock(&b->info_lock);
    b->info.n_resident = n;
    for (uint32_t i = 0; i < n; i++)
        snprintf(b->info.resident_circuits[i], sizeof b->info.resident_circuits[i], "%s", ids[i]);
    b->info.memory_used = bytes;
    b->info.streaming = streaming;
    pthread_mutex_unlock(&b->info_lock);
}

void cz_backend_note_resident(cz_backend *b, const char *circuit_id, uint64_t bytes,
                              int streaming) {
    const int one = circuit_id && *circuit_id;
    cz_backend_note_residents(b, &circuit_id, one ? 1 : 0, bytes, streaming);
}

void cz_backend_note_plan(cz_backend *b, const char *kind, const char *line) {
    pthread_mutex_lock(&b->info_lock);
    snprintf(b->info.memory_plan_kind, sizeof b->info.memory_plan_kind, "%s", kind ? kind : "");
    snprintf(b->info.memory_plan, sizeof b->info.memory_plan, "%s", line ? line : "");
    pthread_mutex_unlock(&b->info_lock);
}

/* The back-end whose run lock the calling thread holds inside
 * cz_backend_prove_start: a unit proven at a step boundary of another on the
 * same context (the engine's preemption, util/cancel.h) runs under the
 * lock its thread already holds, and without staging (stage_lock is never
 * taken inside run_lock). */
static _Thread_local cz_backend *running_on;
/* The back-end whose stage_lock the calling thread holds while it stages a
 * unit: a unit proven at a step boundary of that staging (the engine's hook,
 * while a, b, c are evaluated on the CPU: backend.c host_evaluate) is not
 * staged (the lock is this thread's) and takes the run lock as any unit. */
static _Thread_local cz_backend *staging_on;
/* What the calling thread's unit spent waiting for a pass (cuda_prove_start),
 * not the context's busy time. */
static _Thread_local uint64_t pass_waited_ns;

cz_status cz_backend_prove_start(cz_backend *b, cz_groth16_msm_results *out,
                                 const cz_backend_unit *u, cz_error *err) {
    void *staged = NULL;
    const int nested = running_on == b;
    if (!nested) {
        pthread_mutex_lock(&b->info_lock);
        b->in_flight++;
        b->staging++;
        pthread_mutex_unlock(&b->info_lock);
    }
    /* A CRITICAL unit never waits for another unit's staging (a witness
     * upload of 0.6 s at 32 GiB, a, b, c on the CPU for seconds): it goes
     * unstaged then, its small witness up in its run. */
    const int stages_here =
        !nested && staging_on != b && b->ops->stage && b->ops->unstage &&
        (u->priority < CZ_PRIORITY_CRITICAL ? pthread_mutex_lock(&b->stage_lock)
                                            : pthread_mutex_trylock(&b->stage_lock)) == 0;
    if (stages_here) {
        cz_backend *was_staging_on = staging_on;
        staging_on = b;
        staged = b->ops->stage(b, u);
        staging_on = was_staging_on;
        pthread_mutex_unlock(&b->stage_lock);
    }
    if (!nested) {
        pthread_mutex_lock(&b->info_lock);
        b->staging--;
        pthread_mutex_unlock(&b->info_lock);
    }
    if (!nested) pthread_mutex_lock(&b->run_lock);
    cz_backend *was_running_on = running_on;
    running_on = b;
    char outer_job[sizeof b->info.current_job];
    cz_proof_kind outer_kind;
    int outer_busy;
    pthread_mutex_lock(&b->info_lock);
    memcpy(outer_job, b->info.current_job, sizeof outer_job);
    outer_kind = b->info.current_kind;
    outer_busy = b->info.busy; /* a nested unit's outer unit, or a key's hold: none */
    b->info.busy = 1;
    snprintf(b->info.current_job, sizeof b->info.current_job, "%s", u->job_id ? u->job_id : "");
    b->info.current_kind = u->kind;
    pthread_mutex_unlock(&b->info_lock);
    uint64_t t0 = cz_now_ns();
    const uint64_t waited_before = pass_waited_ns;
    /* A step boundary as the unit takes the context: a CRITICAL unit that
     * came while this one waited for the run lock (behind a key's upload or
     * another unit) runs now, nested under the lock, not after this unit's
     * first piece of work (a 4 GB witness staged beside busy synthesis
     * took 0.47 s to its first boundary on an H100). */
    cz_status st =
        !nested && cz_step_boundary()
            ? cz_error_set(err, CZ_E_CANCELLED, "%s: cancelled before its run", b->info.name)
            : b->ops->prove_start(b, out, u, err);
    uint64_t dt = cz_now_ns() - t0 - (pass_waited_ns - waited_before);
    running_on = was_running_on;
    pthread_mutex_lock(&b->info_lock);
    /* one fewer unit that may still join a pass: its waiters look again
     * (under run_lock, so none misses it) */
    if (!nested) b->in_flight--;
    /* a nested unit's time is inside its outer unit's: counted once */
    if (!nested) b->info.busy_ns += dt;
    b->info.busy = nested && outer_busy;
    memcpy(b->info.current_job, nested ? outer_job : "", nested ? sizeof outer_job : 1);
    if (nested) b->info.current_kind = outer_kind;
    if (st == CZ_OK)
        b->info.units++;
    else
        b->info.failures++;
    pthread_mutex_unlock(&b->info_lock);
    if (!nested) pthread_cond_broadcast(&b->pass_cond);
    if (!nested) pthread_mutex_unlock(&b->run_lock);
    if (staged) b->ops->unstage(b, staged);
    return st;
}

cz_status cz_backend_hold(cz_backend *b, const char *circuit_id, const cz_groth16_params *params,
                          const cz_groth16_params_file *file, const cz_circuit *circuit,
                          int priority, int wait, cz_error *err) {
    if (!b->ops->hold)
        return cz_error_set(err, CZ_E_UNSUPPORTED, "%s: keeps no key resident", b->info.name);
    if (!wait && pthread_mutex_trylock(&b->run_lock) != 0)
        return cz_error_set(err, CZ_E_BUSY, "%s: in use", b->info.name);
    if (wait) pthread_mutex_lock(&b->run_lock);
    /* a unit proven at a step boundary of the key's upload (the engine's
     * hook, workers.c cz_eng_hold) runs nested, under this thread's lock */
    cz_backend *was_running_on = running_on;
    running_on = b;
    cz_status st = b->ops->hold(b, circuit_id, params, file, circuit, priority, err);
    running_on = was_running_on;
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

void *cz_backend_prep(cz_backend *b, const cz_backend_unit *u) {
    return b->ops->prep ? b->ops->prep(b, u) : NULL;
}

void cz_backend_prep_free(cz_backend *b, void *prep) {
    if (prep && b->ops->prep_free) b->ops->prep_free(b, prep);
}

int cz_backend_prep_no_abc(cz_backend *b, const void *prep) {
    return prep && b->ops->prep_no_abc ? b->ops->prep_no_abc(b, prep) : 0;
}

int cz_backend_run_lock_free(cz_backend *b) {
    if (pthread_mutex_trylock(&b->run_lock) != 0) return 0;
    pthread_mutex_unlock(&b->run_lock);
    return 1;
}

int cz_backend_host_abc(cz_backend *b, const char *circuit_id) {
    return b->ops->host_abc ? b->ops->host_abc(b, circuit_id ? circuit_id : "") : -1;
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
    pthread_mutex_destroy(&b->stage_lock);
    pthread_mutex_destroy(&b->info_lock);
    pthread_cond_destroy(&b->pass_cond);
    free(b);
}

/* ---- CPU ---- */

/* Rows of a, b, c evaluated between two step boundaries (2^22: ~60 ms of
 * a 32 GiB PoRep partition's ~2 s on 16 cores). */
#define EVAL_PIECE ((size_t)1 << 22)

/* a, b, c of a witness unit from its pre-compiled circuit, over all cores,
 * into host buffers; *view borrows them (free view->a, b, c). In pieces
 * with a step boundary between them: evaluated in a unit's run (not staged
 * in time) this holds the device for seconds, and a CRITICAL unit that
 * comes meanwhile runs at the next piece (a cancel stops there). */
static cz_status host_evaluate(cz_prove_data *view, const cz_backend_unit *u, cz_error *err) {
    const cz_circuit *c = u->circuit;
    size_t n = (size_t)c->num_constraints;
    cz_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *cc = malloc(n * sizeof *cc);
    if (!a || !b || !cc) {
        free(a), free(b), free(cc);
        return cz_error_set(err, CZ_E_NOMEM, "prove: out of memory for a, b, c (3 x %zu)", n);
    }
    /* 12.9 GB for a 32 GiB PoRep partition, freed after its run: huge
     * pages (r1cs/witness.c says why) */
    cz_advise_huge_pages(a, n * sizeof *a);
    cz_advise_huge_pages(b, n * sizeof *b);
    cz_advise_huge_pages(cc, n * sizeof *cc);
    for (size_t k = 0; k < n; k += EVAL_PIECE) {
        if (k && cz_step_boundary()) {
            free(a), free(b), free(cc);
            return cz_error_set(err, CZ_E_CANCELLED, "prove: cancelled inside a, b, c on the CPU");
        }
        cz_circuit_eval_rows(a, b, cc, c, u->witness->input, u->witness->aux, k,
                             n - k < EVAL_PIECE ? n : k + EVAL_PIECE);
    }
    cz_circuit_prove_view(view, c, u->witness, a, b, cc);
    return CZ_OK;
}

static void host_evaluation_free(cz_prove_data *view) {
    free(view->a), free(view->b), free(view->c);
}

static cz_status cpu_prove_start(cz_backend *b, cz_groth16_msm_results *out,
                                 const cz_backend_unit *u, cz_error *err) {
    (void)b;
    if (u->params->n_h && (!u->params->h || u->params->encoded)) /* decoded for a CPU context */
        return CZ_BROKEN(err, "cpu: the parameters have no decoded host points");
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

static const cz_backend_ops cpu_ops = {.kind = "cpu", .prove_start = cpu_prove_start};

cz_status cz_backend_cpu_create(cz_backend **out, cz_error *err) {
    *out = calloc(1, sizeof **out);
    if (!*out) return cz_error_set(err, CZ_E_NOMEM, "back-end: out of memory");
    cz_backend_init(*out, &cpu_ops, NULL, "cpu");
    snprintf((*out)->info.description, sizeof(*out)->info.description, "%u CPU threads",
             cz_thread_count());
    return CZ_OK;
}

/* ---- CUDA ----
 * The keys of the circuits proven last stay resident (cz_gpu_srs, with the
 * pre-compiled circuit and two witness slots each), up to
 * CZ_BACKEND_MAX_RESIDENT side by side while they fit the context's budget
 * together with the two largest of their proofs' working sets (the context
 * runs one unit at a time, and one more inside it when preempted:
 * room_beside): a WinningPoSt key (2.3 GiB at 32 GiB) stays beside a
 * 32 GiB PoRep key, so a WinningPoSt in a PoRep backlog loads nothing and
 * evicts nothing. A key with host points that does not fit resident
 * streams (partial, streaming or lean plan) in the room the others leave,
 * when that room holds one of its plans: on a 24 GiB card the 32 GiB PoRep
 * key streams beside a resident WinningPoSt key and the room for its unit,
 * so a WinningPoSt can still run inside a PoRep partition. A key that has
 * no plan in that room evicts the least recently used others until it
 * does, or until it is alone (then it may stream in the whole budget, as a
 * key too big for the device does). A key last used for CRITICAL work (a
 * WinningPoSt's) is not evicted for a lower priority's key: that key is
 * planned in the room beside it as if alone (from host points when it must
 * stream), so a CRITICAL unit finds its key resident and can run inside
 * the other's units; only when no plan fits that room does it leave too,
 * last (a lower-priority job must still run; its key then comes back with
 * the next CRITICAL unit). Each is keyed by the circuit id and the
 * key's sizes, delta and first H point (copied), so host parameters that
 * were evicted and reloaded at another address still hit, and another
 * circuit's or another setup's key never does. A key comes from the host
 * points when the unit has them, else straight from the mapped .params file
 * (cz_gpu_srs_load: no host copy, resident only). */

typedef struct {
    size_t n_ic, n_h, n_l, n_a, n_b_g1, n_b_g2;
    cz_g1_affine delta_g1, h0;
} srs_key;

/* What cuda_stage prepares for a unit before it takes the run lock, so
 * the work runs while the current unit's kernels do: its witness in a
 * device slot (a key with its circuit on the device), else in host memory
 * its a, b, c evaluated on the CPU (a key without: ABC_HOST) and its
 * witness packed (CZ_GPU_WITNESS_PACK, or a key of ABC_PACKED). */
typedef enum { STAGED_SLOT = 1, STAGED_HOST } staged_kind;

/* A device buffer for one unit's witness (inputs then aux), filled by
 * cuda_stage: with two, the next unit's witness crosses PCIe while the
 * current unit's kernels run. */
typedef struct {
    staged_kind kind; /* STAGED_SLOT */
    cz_fr *z;
    size_t elems;
    char circuit[32];
    const cz_witness *owner; /* the staged unit's witness (prove_start looks for it) */
    int busy;                /* held by a unit, from stage to unstage */
    int doomed;              /* released while busy: unstage frees it */
} witness_slot;

/* What cuda_stage made of a unit in host memory, found by prove_on by the
 * witness's address, freed by unstage: its a, b, c evaluated on the CPU (3
 * x 4.2 GB for a 32 GiB PoRep partition, in the unit's reservation), its
 * witness packed (~0.1 GB), or both. */
typedef struct staged_host {
    staged_kind kind; /* STAGED_HOST */
    const cz_witness *owner;
    int has_abc;
    int no_abc;         /* the key, as planned when this was made, needs none */
    cz_prove_data view; /* a, b, c from host_evaluate */
    int locked;         /* a, b, c page-locked (CZ_GPU_LOCK_ABC) */
    int packed;
    cz_gpu_witness_pack pack;
    struct staged_host *next;
} staged_host;

#define WITNESS_SLOTS 2
/* Entries per row window of a circuit streamed beside a lean plan (the
 * default windows' two buffers take 1.3 GiB at 32 GiB PoRep, these ~0.4). */
#define LEAN_WINDOW ((size_t)1 << 24)
#define STAGE_CHUNK ((size_t)64 << 20) /* pinned staging of the stager's uploader */

/* Where the units of a key get their a, b, c. */
typedef enum {
    ABC_DEVICE = 0, /* from its circuit on the device (resident or streamed) */
    ABC_HOST,       /* on the CPU: no room for the circuit beside the key's plan */
    ABC_PACKED,     /* a lean plan beside the streamed circuit: on the device from the
                     * witness packed into the plan's pack room (cz_gpu_srs_pack_room),
                     * on the CPU for a witness that does not pack that small */
} abc_source;

/* Whether a pack (may be NULL) fits room bytes (a lean plan's
 * cz_gpu_srs_pack_room): the device's a, b, c can then be read from it. */
static int pack_fits(const cz_gpu_witness_pack *p, size_t room) {
    return p && cz_gpu_witness_pack_bytes(p) <= room;
}

/* One resident key. Witness slots exist for circuits given with the key
 * (units with a, b, c from the host have none) when they fit beside it. */
typedef struct {
    cz_gpu_srs *srs;
    cz_gpu_circuit *gc; /* the pre-compiled circuit of the same circuit id, when given */
    abc_source abc;
    srs_key key;
    char circuit[32];
    size_t held;        /* device bytes: key, tables, circuit, slots */
    size_t work;        /* one proof's working set as its plan has it (resident: the footprint's) */
    uint64_t last_used; /* of the context's tick */
    int priority;       /* of the unit or hold that used it last and said one */
    witness_slot *slot[WITNESS_SLOTS];
} resident_key;

/* A unit's L, A and B sums waiting for a pass over its key's streamed
 * points (cz_gpu_groth16_prove_head), under the run lock: the pass that
 * serves them sets done, st and err and frees the set. */
typedef struct pass_entry {
    cz_gpu_srs *srs;
    const cz_groth16_params *params; /* the unit's host points (alive while it waits) */
    const char *job;
    cz_gpu_pass_set *set;
    cz_groth16_msm_results *out;
    int done, oom; /* oom: the pass met a device out-of-memory */
    cz_status st;
    cz_error err;
    struct pass_entry *next;
} pass_entry;

typedef struct {
    cz_backend *self;
    int device;
    uint64_t budget; /* 0 = the device's free memory */
    /* res[0..n_res) change under the run lock and slot_lock both (the stager
     * reads the slots under slot_lock only); slot_lock also guards each
     * slot's busy, doomed, owner and doomed_slots. A slot's z is written by
     * its holder only. */
    resident_key res[CZ_BACKEND_MAX_RESIDENT];
    uint32_t n_res;
    uint64_t tick;
    pthread_mutex_t slot_lock;
    unsigned doomed_slots;
    staged_host *host_staged;  /* under slot_lock */
    cz_gpu_uploader *stage_up; /* used under the back-end's stage lock only */
    /* Under the run lock: device bytes the plans may use after device
     * out-of-memory errors (0 = no such cap; cuda_prove_start), and the
     * units in progress on this thread's stack (more than 1: nested). */
    size_t cap;
    unsigned depth;
    pass_entry *pass; /* under the run lock */
    /* cz_backend_cuda_own_host_points: the SRS manager whose host copies of
     * the vectors this device keeps are freed (NULL: none) */
    cz_srs_manager *host_points;
} cuda_ctx;

static int has_host_points(const cz_groth16_params *p) {
    return p && p->h != NULL;
}

/* The key's identity from the host points, or else from the file (delta_g1
 * and h[0] decoded there: the same values, since decoding is exact). */
static cz_status srs_key_of(srs_key *k, const cz_groth16_params *p, const cz_groth16_params_file *f,
                            cz_error *err) {
    memset(k, 0, sizeof *k);
    if (has_host_points(p)) {
        k->n_ic = p->vk.n_ic, k->n_h = p->n_h, k->n_l = p->n_l, k->n_a = p->n_a;
        k->n_b_g1 = p->n_b_g1, k->n_b_g2 = p->n_b_g2;
        k->delta_g1 = p->vk.delta_g1;
        if (p->n_h && !p->encoded) k->h0 = p->h[0];
        cz_error e;
        /* a file view's h[0] as the file has it, decoded as below */
        if (p->n_h && p->encoded &&
            cz_g1_affine_from_uncompressed(&k->h0, (const uint8_t *)p->h,
                                           CZ_DECODE_SKIP_CURVE | CZ_DECODE_REJECT_INFINITY,
                                           &e) != CZ_OK)
            return cz_error_set(err, e.status, "params: h[0]: %s", e.message);
        return CZ_OK;
    }
    if (!f || !f->data)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "the unit has neither host points nor a parameter file");
    const cz_groth16_params_layout *L = &f->layout;
    k->n_ic = (size_t)L->n_ic, k->n_h = (size_t)L->count[CZ_GROTH16_H];
    k->n_l = (size_t)L->count[CZ_GROTH16_L], k->n_a = (size_t)L->count[CZ_GROTH16_A];
    k->n_b_g1 = (size_t)L->count[CZ_GROTH16_B_G1], k->n_b_g2 = (size_t)L->count[CZ_GROTH16_B_G2];
    /* vk: alpha_g1, beta_g1 (G1), beta_g2, gamma_g2 (G2), then delta_g1 */
    const size_t delta_at = 2 * CZ_G1_UNCOMPRESSED_BYTES + 2 * CZ_G2_UNCOMPRESSED_BYTES;
    cz_error e;
    cz_status st = cz_g1_affine_from_uncompressed(
        &k->delta_g1, f->data + delta_at, CZ_DECODE_SKIP_CURVE | CZ_DECODE_REJECT_INFINITY, &e);
    if (st != CZ_OK)
        return cz_error_set(err, st, "%s: params: vk.delta_g1: %s", f->path, e.message);
    if (k->n_h && (st = cz_groth16_params_check_point(&k->h0, f->data, L, CZ_GROTH16_H, 0,
                                                      CZ_GROTH16_TRUSTED, err)) != CZ_OK)
        return cz_error_wrap(err, st, "%s", f->path);
    return CZ_OK;
}

static void slot_free(witness_slot *ws) {
    cz_gpu_free(ws->z);
    free(ws);
}

/* Frees a key's slots (under slot_lock; the current device is the
 * context's); a busy one is freed by its holder's unstage. Returns the
 * bytes freed now. */
static uint64_t slots_release_locked(cuda_ctx *c, resident_key *r) {
    uint64_t bytes = 0;
    for (int i = 0; i < WITNESS_SLOTS; i++) {
        witness_slot *ws = r->slot[i];
        if (!ws) continue;
        r->slot[i] = NULL;
        if (ws->busy) {
            ws->doomed = 1;
            c->doomed_slots++;
        } else {
            bytes += ws->elems * sizeof(cz_fr);
            slot_free(ws);
        }
    }
    return bytes;
}

/* Slots for r's witnesses of elems elements (the device memory was kept
 * for them by load_key); 1 when made, 0 when the key runs without them. */
static int slots_create(cz_backend *b, resident_key *r, size_t elems) {
    cuda_ctx *c = b->impl;
    cz_error err = {0};
    cz_status st = c->stage_up ? CZ_OK : cz_gpu_uploader_create(&c->stage_up, STAGE_CHUNK, &err);
    witness_slot *made[WITNESS_SLOTS] = {NULL};
    for (int i = 0; i < WITNESS_SLOTS && st == CZ_OK; i++) {
        if (!(made[i] = calloc(1, sizeof *made[i]))) {
            st = cz_error_set(&err, CZ_E_NOMEM, "out of host memory");
            break;
        }
        made[i]->kind = STAGED_SLOT;
        made[i]->elems = elems;
        snprintf(made[i]->circuit, sizeof made[i]->circuit, "%s", r->circuit);
        st = cz_gpu_alloc((void **)&made[i]->z, elems * sizeof(cz_fr), &err);
    }
    if (st != CZ_OK) {
        for (int i = 0; i < WITNESS_SLOTS; i++)
            if (made[i]) slot_free(made[i]);
        cz_log(CZ_LOG_WARN,
               "%s: %s: no witness slots (%s): each unit uploads its witness in its run",
               b->info.name, r->circuit, err.message);
        return 0;
    }
    pthread_mutex_lock(&c->slot_lock);
    memcpy(r->slot, made, sizeof made);
    pthread_mutex_unlock(&c->slot_lock);
    return 1;
}

/* Reports the resident set (most recently used first). */
static void note_residents(cz_backend *b) {
    cuda_ctx *c = b->impl;
    const char *ids[CZ_BACKEND_MAX_RESIDENT];
    uint32_t order[CZ_BACKEND_MAX_RESIDENT];
    uint64_t bytes = 0;
    int streaming = 0;
    for (uint32_t i = 0; i < c->n_res; i++) {
        uint32_t k = i;
        while (k > 0 && c->res[order[k - 1]].last_used < c->res[i].last_used) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
        bytes += c->res[i].held;
        streaming |= cz_gpu_srs_streaming(c->res[i].srs, NULL, 0);
    }
    for (uint32_t i = 0; i < c->n_res; i++) ids[i] = c->res[order[i]].circuit;
    cz_backend_note_residents(b, ids, c->n_res, bytes, streaming);
    if (!c->n_res) {
        cz_backend_note_plan(b, NULL, NULL);
        return;
    }
    const resident_key *mru = &c->res[order[0]];
    cz_gpu_plan plan;
    char line[320];
    cz_gpu_srs_plan_get(&plan, mru->srs);
    size_t at = (size_t)snprintf(line, sizeof line, "%s: ", mru->circuit);
    if (at < sizeof line) cz_gpu_plan_describe(line + at, sizeof line - at, &plan);
    at = strlen(line);
    const char *abc = mru->abc == ABC_HOST     ? "on the CPU"
                      : mru->abc == ABC_PACKED ? "from the streamed circuit and the packed witness"
                      : !mru->gc               ? NULL
                      : cz_gpu_circuit_streamed(mru->gc) ? "from the streamed circuit"
                                                         : "from the resident circuit";
    if (abc && at < sizeof line) snprintf(line + at, sizeof line - at, "; a, b, c %s", abc);
    cz_backend_note_plan(b, cz_gpu_plan_name(plan.kind), line);
}

/* ---- passes: units of one streamed key summing L, A and B together ----
 * A unit whose key streams leaves its L, A and B sums for a pass
 * (pass_join) and waits, without the run lock, while other units of the
 * context come: the pass runs when CZ_GPU_PASS_UNITS units wait, when no
 * other unit past its staging is in the context (running or waiting for
 * the run lock), or after PASS_WAIT_NS, on the thread that finds it so, for
 * every waiting unit of that key at once. A unit still staging is not
 * waited for: with a, b, c on the CPU its staging takes seconds, in which
 * the device would stand idle (a lean plan's units, all staged at once
 * after their shared pass, left it idle ~2.4 s per pair of 32 GiB
 * partitions). A key leaving the device runs its pass
 * first. A waiter meets a step boundary every PASS_POLL_NS (a CRITICAL unit
 * runs there, a cancel ends its wait). */
#define PASS_WAIT_NS ((uint64_t)10 * 1000000000u)
#define PASS_POLL_NS ((uint64_t)50 * 1000000u)

/* The pass of every unit waiting on srs (under the run lock). The thread's
 * cancel flag stays only when they are all of job (a cancel of one job
 * must not fail another's units: the engine drops a cancelled job's
 * results). */
static void pass_run(cuda_ctx *c, cz_gpu_srs *srs, const char *job) {
    size_t k = 0;
    int own = job != NULL;
    for (pass_entry *e = c->pass; e; e = e->next)
        if (e->srs == srs) {
            k++;
            if (!job || strcmp(e->job, job)) own = 0;
        }
    if (!k) return;
    cz_gpu_pass_set **sets = calloc(k, sizeof *sets);
    cz_groth16_msm_results **outs = calloc(k, sizeof *outs);
    const cz_groth16_params *params = NULL;
    size_t j = 0;
    for (pass_entry *e = c->pass; e && sets && outs; e = e->next)
        if (e->srs == srs) {
            sets[j] = e->set;
            outs[j++] = e->out;
            params = e->params;
        }
    cz_error err = {0};
    const atomic_int *flag = cz_cancel_flag();
    if (!own) cz_cancel_set_flag(NULL);
    const uint64_t ooms = cz_gpu_oom_count();
    cz_status st = sets && outs ? cz_gpu_set_device(c->device, &err)
                                : cz_error_set(&err, CZ_E_NOMEM, "out of host memory");
    if (st == CZ_OK) st = cz_gpu_groth16_pass(srs, params, sets, outs, k, &err);
    const int oom = cz_gpu_oom_count() != ooms;
    cz_cancel_set_flag(flag);
    free(sets);
    free(outs);
    for (pass_entry **at = &c->pass; *at;) {
        pass_entry *e = *at;
        if (e->srs != srs) {
            at = &e->next;
            continue;
        }
        *at = e->next;
        e->st = st;
        e->oom = oom;
        if (st != CZ_OK) e->err = err;
        cz_gpu_pass_set_free(e->set);
        e->set = NULL;
        e->done = 1;
    }
    pthread_cond_broadcast(&c->self->pass_cond);
}

/* The unit's set into a pass over srs (taken: freed by the pass); returns
 * when the pass has added its sums to out. Inside another unit
 * (preemption), or with CZ_GPU_PASS_UNITS 1, a pass of its own at once. */
static cz_status pass_join(cz_backend *b, cz_gpu_srs *srs, const cz_backend_unit *u,
                           cz_groth16_msm_results *out, cz_gpu_pass_set *set, int *oom,
                           cz_error *err) {
    cuda_ctx *c = b->impl;
    const unsigned units = cz_gpu_settings_get()->pass_units;
    if (c->depth > 1 || units <= 1) {
        /* alone (the units waiting for a pass keep their sets for it) */
        const uint64_t ooms = cz_gpu_oom_count();
        const cz_status st = cz_gpu_groth16_pass(srs, u->params, &set, &out, 1, err);
        *oom = cz_gpu_oom_count() != ooms;
        cz_gpu_pass_set_free(set);
        return st;
    }
    pass_entry e = {srs, u->params, u->job_id ? u->job_id : "", set, out, 0, 0, CZ_OK, {0}, NULL};
    pass_entry **tail = &c->pass;
    while (*tail) tail = &(*tail)->next;
    *tail = &e;
    const uint64_t t0 = cz_now_ns();
    for (;;) {
        unsigned waiting = 0, others = 0;
        for (pass_entry *p = c->pass; p; p = p->next) waiting += p->srs == srs;
        pthread_mutex_lock(&b->info_lock);
        others = b->in_flight - 1 - b->pass_waiting - b->staging;
        pthread_mutex_unlock(&b->info_lock);
        if (waiting >= units || !others || cz_now_ns() - t0 >= PASS_WAIT_NS) {
            pass_run(c, srs, u->job_id);
            break;
        }
        /* wait without the run lock (the context is free for other units
         * meanwhile: this unit's state is its set, in host memory) */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)PASS_POLL_NS;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        const uint64_t w0 = cz_now_ns();
        pthread_mutex_lock(&b->info_lock);
        b->pass_waiting++;
        pthread_mutex_unlock(&b->info_lock);
        c->depth--;
        pthread_cond_timedwait(&b->pass_cond, &b->run_lock, &until);
        c->depth++;
        pthread_mutex_lock(&b->info_lock);
        b->pass_waiting--;
        pthread_mutex_unlock(&b->info_lock);
        pass_waited_ns += cz_now_ns() - w0;
        if (e.done) break;
        /* a step boundary of the waiting unit: a CRITICAL unit runs here
         * (the engine's hook), a cancel ends the wait */
        if (cz_step_boundary()) {
            for (pass_entry **at = &c->pass; *at; at = &(*at)->next)
                if (*at == &e) {
                    *at = e.next;
                    break;
                }
            cz_gpu_pass_set_free(e.set);
            return cz_error_set(err, CZ_E_CANCELLED, "gpu prove: cancelled waiting for its pass");
        }
        if (e.done) break;
    }
    *oom = e.oom;
    if (e.st != CZ_OK) *err = e.err;
    return e.st;
}

/* Frees res[i] and closes the gap (the current device is the context's);
 * the units waiting for a pass over its points get it first. */
static uint64_t key_release(cuda_ctx *c, uint32_t i) {
    CZ_ASSERT(i < c->n_res);
    pass_run(c, c->res[i].srs, NULL);
    resident_key *r = &c->res[i];
    uint64_t bytes = cz_gpu_srs_bytes(r->srs) + cz_gpu_circuit_bytes(r->gc);
    pthread_mutex_lock(&c->slot_lock);
    bytes += slots_release_locked(c, r);
    cz_gpu_srs_destroy(r->srs);
    cz_gpu_circuit_destroy(r->gc);
    memmove(&c->res[i], &c->res[i + 1], (c->n_res - i - 1) * sizeof c->res[0]);
    c->n_res--;
    memset(&c->res[c->n_res], 0, sizeof c->res[0]);
    pthread_mutex_unlock(&c->slot_lock);
    return bytes;
}

static uint64_t cuda_release(cz_backend *b, const char *circuit_id) {
    cuda_ctx *c = b->impl;
    uint64_t bytes = 0;
    cz_error err = {0};
    if (!c->n_res || cz_gpu_set_device(c->device, &err) != CZ_OK) return 0;
    for (uint32_t i = c->n_res; i-- > 0;)
        if (!circuit_id || !strcmp(circuit_id, c->res[i].circuit)) bytes += key_release(c, i);
    /* the MSMs' pooled scratch too: the next key's plan reads free memory
     * (a 64 GiB PoRep key reloaded after a WinningPoSt's saw 36 GB less
     * and was refused); and the page-locked host blocks its passes and packs kept */
    if (bytes) {
        cz_gpu_pool_trim();
        (void)cz_gpu_host_blocks_trim();
    }
    note_residents(b);
    return bytes;
}

/* The resident entry of id with this key, or NULL. */
static resident_key *key_find(cuda_ctx *c, const char *id, const srs_key *key, int host,
                              const cz_circuit *circuit) {
    for (uint32_t i = 0; i < c->n_res; i++) {
        resident_key *r = &c->res[i];
        if (!memcmp(key, &r->key, sizeof *key) && !strcmp(id, r->circuit) &&
            (!circuit || r->gc || r->abc == ABC_HOST) &&
            (host || !cz_gpu_srs_streaming(r->srs, NULL, 0)))
            return r;
    }
    return NULL;
}

/* Device bytes the key being loaded may take (its points, tables and its
 * own working set, as cz_gpu_srs_plan counts them) beside the keys resident
 * now: the budget (or the free memory with what this context holds) less
 * what they hold, less room for two working sets besides the new key's
 * (work): the context runs one unit at a time, but a unit of one key may
 * run inside a unit of another (preemption: a WinningPoSt inside a PoRep
 * partition), so the two largest of all the keys' working sets are kept
 * free. (Two units of one key at once are not: such a nested unit finds no
 * memory and waits for its turn, workers.c.) 0 when nothing is resident and
 * neither a budget nor CZ_GPU_MEM_LIMIT is set: the device's free memory,
 * as for a lone key. */
static size_t room_beside(const cuda_ctx *c, size_t work, int *none) {
    size_t held = 0, w1 = 0, w2 = 0; /* the resident keys' two largest working sets */
    for (uint32_t i = 0; i < c->n_res; i++) {
        held += c->res[i].held;
        if (c->res[i].work > w1)
            w2 = w1, w1 = c->res[i].work;
        else if (c->res[i].work > w2)
            w2 = c->res[i].work;
    }
    *none = 0;
    /* CZ_GPU_MEM_LIMIT caps all this process keeps on the device: the
     * circuit too (it is uploaded before the key is planned, so a cap
     * applied to the key's plan alone would leave the circuit outside it) */
    uint64_t limit = 0;
    const int capped = cz_gpu_settings_mem_limit(&limit);
    cz_error merr = {0};
    if (!c->n_res && !c->budget && !capped && !c->cap) return 0;
    size_t total = (size_t)c->budget, free_b = 0, total_b = 0;
    if (!total) {
        if (cz_gpu_mem_info(&free_b, &total_b, &merr) != CZ_OK) return *none = 1, 0;
        total = free_b + held;
    }
    if (capped && limit < total) total = (size_t)limit;
    if (c->cap && c->cap < total) total = c->cap;
    /* the two largest of w1, w2 and work, less the new key's own */
    const size_t extra = w1 + (w2 > work ? w2 : work) - work;
    if (total <= held + extra) return *none = 1, 0;
    return total - held - extra;
}

/* The counts of key as the plan functions take them. */
static void shape_of(cz_groth16_params *shape, const srs_key *key) {
    memset(shape, 0, sizeof *shape);
    shape->vk.n_ic = key->n_ic, shape->n_h = key->n_h, shape->n_l = key->n_l;
    shape->n_a = key->n_a, shape->n_b_g1 = key->n_b_g1, shape->n_b_g2 = key->n_b_g2;
}

/* The device bytes of a circuit's matrices (row starts, columns and
 * coefficient indices): what a resident copy takes at least. */
static size_t circuit_matrix_bytes(const cz_circuit *c) {
    size_t bytes = 0;
    for (int k = 0; k < 3; k++)
        bytes += ((size_t)c->num_constraints + 1) * sizeof(uint32_t) +
                 (size_t)c->m[k].nnz * (sizeof(uint32_t) + c->coef_bytes);
    return bytes;
}

/* Loads id's key (and circuit) as a new entry beside the resident ones, in
 * room bytes (0: the device's free memory). A key with host points may
 * stream, alone or beside others; one without must fit resident beside
 * others (CZ_E_NOMEM when it does not, or when no plan fits the room: the
 * caller evicts and tries again). alone: none of the others may leave for
 * it (there are none, or they are kept for CRITICAL work), so a key that
 * would stream asks for host points as a lone key does. */
static cz_status key_load(cz_backend *b, resident_key **out, const char *id, const srs_key *key,
                          const cz_groth16_params *params, const cz_groth16_params_file *file,
                          const cz_circuit *circuit, size_t room, int alone, cz_error *err) {
    cuda_ctx *c = b->impl;
    const int host = has_host_points(params);
    cz_gpu_circuit *gc = NULL;
    cz_gpu_srs *srs = NULL;
    cz_status st;
    uint64_t t0 = cz_now_ns();
    cz_groth16_params shape;
    shape_of(&shape, key);
    /* The circuit first: a lone key may stream when both do not fit. Not
     * uploaded when its matrices alone leave the key no plan but the lean
     * one (below): 5.5 GiB at 32 GiB PoRep, seconds under the run lock for
     * nothing on a 24 GiB card. */
    int skip = 0;
    if (circuit && host && room) {
        const size_t matrices = circuit_matrix_bytes(circuit);
        cz_gpu_plan beside;
        cz_error perr = {0};
        skip = room <= matrices ||
               cz_gpu_srs_plan(&beside, &shape, room - matrices, NULL, 0, &perr) == CZ_E_NOMEM ||
               beside.lean;
    }
    if (circuit && !skip && (st = cz_gpu_circuit_create(&gc, circuit, err)) != CZ_OK)
        return cz_error_wrap(err, st, "%s: %s: pre-compiled circuit", b->info.name, id);
    size_t gc_bytes = cz_gpu_circuit_bytes(gc);
    size_t budget = room > gc_bytes ? room - gc_bytes : 0;
    /* A key (with host points) that has no plan beside its circuit, or only
     * the lean one, goes without it resident. With CZ_GPU_ABC_STREAM (the
     * default) the circuit is streamed to the device for each unit instead,
     * when a plan fits beside its window buffers: a, b, c on the device
     * from the witness, whole, or packed under a lean plan (ABC_PACKED:
     * its H chain has no room for the witness whole). Else (or for a
     * witness that does not pack small) its units' a, b, c are evaluated on
     * the CPU (prove_on). So a 24 GiB card proves 32 GiB PoRep (20 GiB
     * streaming plus 5.5 GiB of circuit do not fit), and a 16 GiB card (the
     * lean plan) with the CPU free for synthesis. */
    abc_source abc = ABC_DEVICE;
    if ((gc || skip) && host) {
        cz_gpu_plan beside;
        cz_error perr = {0};
        if (skip || (room && !budget) ||
            cz_gpu_srs_plan(&beside, &shape, budget, NULL, 0, &perr) == CZ_E_NOMEM || beside.lean) {
            const size_t resident_bytes = skip ? circuit_matrix_bytes(circuit) : gc_bytes;
            cz_gpu_circuit_destroy(gc);
            gc = NULL;
            gc_bytes = 0;
            budget = room;
            abc = ABC_HOST;
            /* a key lean even without the circuit beside it gets short
             * windows: their two buffers come off its chunks; so does one
             * the default windows leave lean (made again: a 24 GB card's
             * 2^24 chunks instead of 2^23) */
            cz_gpu_plan whole;
            const int lean_anyway =
                cz_gpu_srs_plan(&whole, &shape, room, NULL, 0, &perr) != CZ_OK || whole.lean;
            cz_gpu_circuit *sgc = NULL;
            cz_error serr = {0};
            const int tries = cz_gpu_settings_get()->abc_stream ? (lean_anyway ? 1 : 2) : 0;
            for (int shorter = 0; shorter < tries && !gc; shorter++) {
                const size_t window = lean_anyway || shorter ? LEAN_WINDOW : 0;
                if (cz_gpu_circuit_create_streamed(&sgc, circuit, window, &serr) != CZ_OK) break;
                const size_t sb = cz_gpu_circuit_bytes(sgc), sbudget = room > sb ? room - sb : 0;
                if ((!room || sbudget) &&
                    cz_gpu_srs_plan(&beside, &shape, sbudget, NULL, 0, &perr) == CZ_OK &&
                    (window || !beside.lean)) {
                    gc = sgc, gc_bytes = sb, budget = sbudget;
                    abc = beside.lean ? ABC_PACKED : ABC_DEVICE;
                } else {
                    cz_gpu_circuit_destroy(sgc);
                    sgc = NULL;
                }
            }
            if (gc)
                cz_log(CZ_LOG_INFO,
                       "%s: %s: the pre-compiled circuit (%.0f MiB) leaves the key no memory "
                       "plan on the device but the lean one: it is streamed to the device for "
                       "each unit instead (%.0f MiB stay)%s",
                       b->info.name, id, MIB(resident_bytes), MIB(gc_bytes),
                       abc == ABC_PACKED ? "; the lean plan evaluates a, b, c from each unit's "
                                           "witness packed"
                                         : "");
            else
                cz_log(CZ_LOG_INFO,
                       "%s: %s: the pre-compiled circuit (%.0f MiB) leaves the key no memory "
                       "plan on the device but the lean one: a, b, c of its units are evaluated "
                       "on the CPU",
                       b->info.name, id, MIB(resident_bytes));
        }
    }
    if (room && !budget) {
        st = cz_error_set(err, CZ_E_NOMEM,
                          "%s: %s: the pre-compiled circuit (%.0f MiB) fills the context's "
                          "device budget (%.0f MiB)",
                          b->info.name, id, MIB(gc_bytes), MIB(room));
        cz_gpu_circuit_destroy(gc);
        return st;
    }
    /* Witness slots when the key stays resident beside them (their bytes
     * come off the key's budget). */
    const size_t elems = gc ? (size_t)circuit->num_inputs + circuit->num_aux : 0;
    const size_t slot_bytes = WITNESS_SLOTS * elems * sizeof(cz_fr);
    int slots = 0;
    if (elems && !c->doomed_slots) {
        size_t avail = budget, free_b = 0, total_b = 0;
        cz_error merr = {0};
        if (!avail && cz_gpu_mem_info(&free_b, &total_b, &merr) == CZ_OK) avail = free_b;
        cz_gpu_plan with;
        if (avail > slot_bytes &&
            cz_gpu_srs_plan(&with, &shape, avail - slot_bytes, NULL, 0, &merr) == CZ_OK &&
            with.kind == CZ_GPU_PLAN_RESIDENT) {
            slots = 1;
            budget = avail - slot_bytes;
        }
    }
    cz_gpu_plan plan;
    char why[512] = "";
    st = cz_gpu_srs_plan(&plan, &shape, budget, why, sizeof why, err);
    const int resident = plan.kind == CZ_GPU_PLAN_RESIDENT;
    if (st == CZ_E_NOMEM && alone && !host && gc) {
        /* without its circuit the key would stream (a, b, c on the CPU),
         * from host points: the caller decodes them and comes back */
        cz_error aerr = {0};
        const cz_status ast = cz_gpu_srs_plan(NULL, &shape, room, NULL, 0, &aerr);
        if (ast == CZ_OK)
            st = cz_error_set(err, CZ_E_UNSUPPORTED,
                              "the key %s; without its circuit it streams, which needs its "
                              "points in host memory",
                              why);
        else if (ast == CZ_E_NOMEM && err)
            *err = aerr; /* refused: the figures without the circuit */
    }
    if (st == CZ_OK && !resident && !alone && !host)
        st = cz_error_set(err, CZ_E_NOMEM, "the key %s beside the %u resident", why, c->n_res);
    else if (st == CZ_OK && !resident && !host)
        st = cz_error_set(err, CZ_E_UNSUPPORTED,
                          "the key %s; streaming it needs its points in host memory", why);
    cz_gpu_key_report rep;
    memset(&rep, 0, sizeof rep);
    /* a new plan may keep less than the last: every host vector back first */
    if (st == CZ_OK && host && c->host_points)
        st = cz_srs_restore_host_vectors(c->host_points, id, err);
    if (st == CZ_OK)
        st = host ? cz_gpu_srs_create_budget(&srs, params, budget, err)
                  : cz_gpu_srs_load(&srs, file, budget, NULL, &rep, err);
    if (st != CZ_OK) {
        cz_gpu_circuit_destroy(gc);
        return cz_error_wrap(err, st, "%s: %s", b->info.name, id);
    }
    pthread_mutex_lock(&c->slot_lock);
    resident_key *r = &c->res[c->n_res++];
    memset(r, 0, sizeof *r);
    /* its working set as planned (need - held): the resident one, or a
     * streaming plan's proof buffers and chunk scratch */
    cz_gpu_plan got;
    cz_gpu_srs_plan_get(&got, srs);
    r->srs = srs, r->gc = gc, r->key = *key, r->abc = abc;
    r->work = got.need - got.held;
    snprintf(r->circuit, sizeof r->circuit, "%s", id);
    pthread_mutex_unlock(&c->slot_lock);
    r->held = cz_gpu_srs_bytes(srs) + gc_bytes;
    if (slots && slots_create(b, r, elems)) r->held += slot_bytes;
    *out = r;
    const double dt = (double)(cz_now_ns() - t0) / 1e9;
    const char *beside = c->n_res == 1 ? "" : " beside the other resident keys";
    if (cz_gpu_srs_streaming(srs, why, sizeof why))
        cz_log(CZ_LOG_INFO, "%s: %s: the key does not fit resident: memory plan %s", b->info.name,
               id, why);
    else if (!host)
        cz_log(CZ_LOG_INFO,
               "%s: %s: parameters (%.0f MiB) loaded from %s in %.2f s (%.2f GB/s, %s) and "
               "circuit (%.0f MiB) resident%s, in %.2f s",
               b->info.name, id, MIB(cz_gpu_srs_bytes(srs)), file->path, rep.seconds,
               rep.seconds > 0 ? (double)rep.file_bytes / rep.seconds / 1e9 : 0.0,
               rep.checked ? "points checked on the device" : "trusted by digest", MIB(gc_bytes),
               beside, dt);
    else
        cz_log(CZ_LOG_INFO,
               "%s: %s: parameters (%.0f MiB) and circuit (%.0f MiB) resident%s, uploaded "
               "in %.2f s",
               b->info.name, id, MIB(cz_gpu_srs_bytes(srs)), MIB(gc_bytes), beside, dt);
    return CZ_OK;
}

/* Whether res[i] is kept for CRITICAL work when a key of priority comes
 * (0: not said, which counts as lower). */
static int kept_for_critical(const cuda_ctx *c, uint32_t i, int priority) {
    return c->res[i].priority >= CZ_PRIORITY_CRITICAL && priority < CZ_PRIORITY_CRITICAL;
}

/* Which resident key leaves to make room for a key of priority: the least
 * recently used of those not kept for CRITICAL work, else (nothing else
 * left) the least recently used of all. */
static uint32_t eviction_pick(const cuda_ctx *c, int priority) {
    uint32_t pick = UINT32_MAX;
    for (int last_resort = 0; last_resort < 2 && pick == UINT32_MAX; last_resort++)
        for (uint32_t i = 0; i < c->n_res; i++)
            if ((last_resort || !kept_for_critical(c, i, priority)) &&
                (pick == UINT32_MAX || c->res[i].last_used < c->res[pick].last_used))
                pick = i;
    return pick;
}

/* Makes the key of id (and its circuit, when given) resident, beside the
 * others while they fit, evicting the least recently used ones when they
 * do not (eviction_pick: a key kept for CRITICAL work last); *out is its
 * entry. priority: the unit's or the hold's (backend.h), recorded on the
 * key. With no host points a key that would stream is CZ_E_UNSUPPORTED. */
/* The host copies of the vectors r's plan keeps on the device, freed when
 * this context is the only back-end (nothing else reads them; the manager
 * ignores H, and an entry that holds none). */
static void drop_kept_host_points(const cuda_ctx *c, const resident_key *r, const char *id,
                                  const cz_groth16_params *params) {
    if (!c->host_points || !has_host_points(params) || !r->srs) return;
    cz_gpu_plan pl;
    cz_gpu_srs_plan_get(&pl, r->srs);
    (void)cz_srs_drop_host_vectors(c->host_points, id, pl.keep);
}

static cz_status cuda_ensure(cz_backend *b, resident_key **out, const char *id,
                             const cz_groth16_params *params, const cz_groth16_params_file *file,
                             const cz_circuit *circuit, int priority, cz_error *err) {
    cuda_ctx *c = b->impl;
    cz_status st = cz_gpu_set_device(c->device, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", b->info.name);
    srs_key key;
    if ((st = srs_key_of(&key, params, file, err)) != CZ_OK)
        return cz_error_wrap(err, st, "%s: %s", b->info.name, id);
    resident_key *r = key_find(c, id, &key, has_host_points(params), circuit);
    if (r) {
        if (priority) r->priority = priority;
        if (r->last_used != c->tick) {
            r->last_used = ++c->tick;
            note_residents(b);
        }
        drop_kept_host_points(c, r, id, params); /* the entry may have been loaded again */
        *out = r;
        return CZ_OK;
    }
    /* Inside another unit (preemption) nothing may leave the device: that
     * unit's key is in use. The engine only nests units whose key it sees
     * resident, so this is a key of the same id that does not match. */
    if (c->depth > 1)
        return cz_error_set(err, CZ_E_BUSY,
                            "%s: %s: its key is not the resident one, and another unit is in "
                            "progress on the device",
                            b->info.name, id);
    /* Another key of the same id (another setup, or now with its circuit,
     * or streaming where host points came back) goes first. */
    for (uint32_t i = c->n_res; i-- > 0;)
        if (!strcmp(id, c->res[i].circuit)) key_release(c, i);
    cz_groth16_params shape;
    shape_of(&shape, &key);
    size_t key_bytes = 0, work = 0;
    if ((st = cz_gpu_srs_footprint(&key_bytes, &work, &shape, err)) != CZ_OK)
        return cz_error_wrap(err, st, "%s: %s", b->info.name, id);
    for (;;) {
        if (c->n_res == CZ_BACKEND_MAX_RESIDENT) {
            st = CZ_E_NOMEM;
        } else {
            cz_gpu_pool_trim(); /* the plan reads free memory */
            int none = 0, alone = 1;
            size_t room = room_beside(c, work, &none);
            for (uint32_t i = 0; i < c->n_res; i++)
                if (!kept_for_critical(c, i, priority)) alone = 0;
            st = none ? cz_error_set(err, CZ_E_NOMEM, "no room beside the %u resident keys",
                                     c->n_res)
                      : key_load(b, &r, id, &key, params, file, circuit, room, alone, err);
        }
        if (st != CZ_E_NOMEM || !c->n_res) break;
        /* evict and try again */
        const uint32_t lru = eviction_pick(c, priority);
        cz_log(CZ_LOG_INFO, "%s: %s's key makes room: %s's key (%.0f MiB) leaves the device%s",
               b->info.name, id, c->res[lru].circuit, MIB(c->res[lru].held),
               kept_for_critical(c, lru, priority)
                   ? " (kept for CRITICAL work, but the new key has no plan beside it)"
                   : "");
        key_release(c, lru);
        cz_gpu_pool_trim();
    }
    if (st == CZ_OK) {
        r->last_used = ++c->tick;
        r->priority = priority;
        drop_kept_host_points(c, r, id, params);
        *out = r;
    }
    note_residents(b);
    return st;
}

/* A unit proven at a step boundary of the upload (cz_backend_hold) counts
 * as nested (depth 2): it cannot evict or re-plan what is being loaded. */
static cz_status cuda_hold(cz_backend *b, const char *circuit_id, const cz_groth16_params *params,
                           const cz_groth16_params_file *file, const cz_circuit *circuit,
                           int priority, cz_error *err) {
    cuda_ctx *c = b->impl;
    resident_key *r = NULL;
    c->depth++;
    const cz_status st =
        cuda_ensure(b, &r, circuit_id ? circuit_id : "", params, file, circuit, priority, err);
    c->depth--;
    return st;
}

/* The unit on r, its key resident (or planned) already. */
static cz_status prove_on(cz_backend *b, resident_key *r, cz_groth16_msm_results *out,
                          cz_gpu_pass_set **set, const cz_backend_unit *u, cz_error *err) {
    cuda_ctx *c = b->impl;
    cz_status st = CZ_OK;
    /* what was made of the unit in host memory: in its staging (the entry
     * lives until unstage, after this call), else ahead (u->prep, the
     * unit's own) */
    const staged_host *sh = NULL;
    pthread_mutex_lock(&c->slot_lock);
    for (const staged_host *x = c->host_staged; x && !sh && !u->pd; x = x->next)
        if (x->owner == u->witness) sh = x;
    pthread_mutex_unlock(&c->slot_lock);
    if (!sh) sh = u->prep;
    const cz_gpu_witness_pack *pack = sh && sh->packed ? &sh->pack : NULL;
    /* a lean plan's device a, b, c need the witness packed within its room:
     * packed now when nothing was (the unit was staged before its key was
     * loaded); a, b, c on the CPU when it does not pack that small */
    cz_gpu_witness_pack own;
    int own_packed = 0;
    if (r->abc == ABC_PACKED && !u->pd && !pack && !(sh && sh->has_abc)) {
        own_packed = cz_gpu_witness_pack_make(&own, u->witness->input, u->witness->num_inputs,
                                              u->witness->aux, u->witness->num_aux);
        if (own_packed) pack = &own;
    }
    const int packed_abc = r->abc == ABC_PACKED && pack_fits(pack, cz_gpu_srs_pack_room(r->srs));
    if (u->pd) {
        st = cz_gpu_groth16_prove_head(out, set, r->srs, u->params, NULL, u->pd, NULL, NULL, err);
    } else if (!r->gc || (r->abc == ABC_PACKED && !packed_abc)) {
        /* the circuit did not fit beside the key (key_load), or the lean
         * plan's unit has no pack that fits its room: a, b, c of the
         * witness from the CPU (staged before the run, or now on all
         * cores), then up with the assignment */
        cz_prove_data view;
        const int staged = sh && sh->has_abc;
        if (staged)
            view = sh->view;
        else if (u->abc_unreserved)
            st = cz_error_set(err, CZ_E_BUSY,
                              "the unit's a, b, c would be evaluated in host memory (its key "
                              "planned again since its witness was packed), which its reservation "
                              "does not hold");
        else
            st = host_evaluate(&view, u, err);
        if (st == CZ_OK) {
            st = cz_gpu_groth16_prove_head(out, set, r->srs, u->params, NULL, &view, NULL, pack,
                                           err);
            if (!staged) host_evaluation_free(&view);
        }
    } else {
        /* a, b, c on the device from the circuit there (resident or
         * streamed), from the witness (staged already, or sent now), packed
         * under a lean plan */
        const cz_fr *dev_z = NULL;
        pthread_mutex_lock(&c->slot_lock);
        for (int i = 0; i < WITNESS_SLOTS && !dev_z; i++)
            if (r->slot[i] && r->slot[i]->busy && r->slot[i]->owner == u->witness)
                dev_z = r->slot[i]->z;
        pthread_mutex_unlock(&c->slot_lock);
        cz_prove_data view;
        cz_circuit_prove_view(&view, u->circuit, u->witness, NULL, NULL, NULL);
        /* a streamed circuit reads the unit's matrices (nothing for a
         * resident one) */
        st = cz_gpu_circuit_set_host(r->gc, u->circuit, err);
        if (st == CZ_OK)
            st = cz_gpu_groth16_prove_head(out, set, r->srs, u->params, r->gc, &view, dev_z,
                                           dev_z ? NULL : pack, err);
        cz_error unused = {0};
        (void)cz_gpu_circuit_set_host(r->gc, NULL, &unused);
    }
    if (own_packed) cz_gpu_witness_pack_free(&own);
    if (st != CZ_OK) cz_error_prefix(err, "%s", b->info.name);
    return st;
}

/* The device bytes of the smallest plan of the unit's key (0: unknown). */
static size_t key_minimum(const cz_backend_unit *u) {
    srs_key key;
    cz_groth16_params shape;
    cz_gpu_plan smallest;
    if (srs_key_of(&key, u->params, u->params_file, NULL) != CZ_OK) return 0;
    shape_of(&shape, &key);
    /* a budget of one byte is below every plan: the minimum comes back */
    return cz_gpu_plan_make(&smallest, &shape, 1, NULL, NULL) == CZ_E_NOMEM ? smallest.minimum : 0;
}

/* After a device out-of-memory in a unit of id: the other keys leave the
 * device, or when id's is alone, the context plans with a quarter less
 * (cz_gpu_plan_shrink of what it held with a proof's working set), but not
 * below the key's smallest plan (minimum, 0: unknown), and id's key leaves,
 * to be loaded again on the smaller plan. 0 when there is nothing smaller
 * to try. */
static int shrink(cz_backend *b, const char *id, size_t minimum, const char *job, const char *why) {
    cuda_ctx *c = b->impl;
    size_t used = 0;
    uint32_t others = 0;
    for (uint32_t i = 0; i < c->n_res; i++)
        if (strcmp(c->res[i].circuit, id))
            others++;
        else
            used = c->res[i].held + c->res[i].work;
    if (others) {
        cz_log(CZ_LOG_WARN,
               "%s: device out of memory in a unit of %s (%s): the %u other key(s) leave the "
               "device and the unit is proven again",
               b->info.name, job, why, others);
        for (uint32_t i = c->n_res; i-- > 0;)
            if (strcmp(c->res[i].circuit, id)) key_release(c, i);
    } else {
        if (!used) {
            /* the key did not load: plan below what the load had */
            int none = 0;
            used = c->cap ? c->cap : room_beside(c, 0, &none);
            if (!used) {
                size_t free_b = 0, total_b = 0;
                cz_error merr = {0};
                if (cz_gpu_mem_info(&free_b, &total_b, &merr) == CZ_OK) used = free_b;
            }
        }
        size_t next = cz_gpu_plan_shrink(used);
        /* a quarter less may skip the smallest plan that still fits (a small
         * key's floor is its MSM scratch): that one is tried, once */
        if (minimum && next < minimum)
            next = used > minimum && (!c->cap || minimum < c->cap) ? minimum : 0;
        if (!next) return 0;
        cz_log(CZ_LOG_WARN,
               "%s: device out of memory in a unit of %s (%s): the unit is proven again on a "
               "smaller memory plan (%.0f MiB instead of %.0f)",
               b->info.name, job, why, MIB(next), MIB(used));
        c->cap = next;
        for (uint32_t i = c->n_res; i-- > 0;)
            if (!strcmp(c->res[i].circuit, id)) key_release(c, i);
    }
    cz_gpu_pool_trim();
    note_residents(b);
    return 1;
}

/* A device out-of-memory during a unit (another process took memory, a
 * plan's estimate fell short) fails the attempt, not the unit: it is proven
 * again on a smaller plan (shrink) until it succeeds or nothing smaller
 * exists. A unit nested in another (preemption) cannot change what is
 * resident: its failure is its own. A smaller plan stays in force for the
 * context (the memory went somewhere); when even the smallest fails, the
 * next unit plans afresh. */
static cz_status cuda_prove_start(cz_backend *b, cz_groth16_msm_results *out,
                                  const cz_backend_unit *u, cz_error *err) {
    cuda_ctx *c = b->impl;
    const char *id = u->circuit_id ? u->circuit_id : "";
    const int outer = c->depth++ == 0;
    const size_t cap_before = c->cap;
    size_t minimum = 0;
    int exhausted = 0; /* out of memory with no smaller plan left */
    cz_status st;
    for (;;) {
        const uint64_t ooms = cz_gpu_oom_count();
        int pass_oom = 0;
        resident_key *r = NULL;
        cz_gpu_pass_set *set = NULL;
        st = cuda_ensure(b, &r, id, u->params, u->params_file, u->circuit, u->priority, err);
        if (st == CZ_E_UNSUPPORTED)
            /* the key was resident when the SRS was loaded, and the device
             * has less room now */
            st = cz_error_wrap(err, st,
                               "the key no longer fits the device and the engine holds no "
                               "host copy (evict the SRS to load it on the host)");
        if (st == CZ_OK) st = prove_on(b, r, out, &set, u, err);
        if (st == CZ_OK && set) st = pass_join(b, r->srs, u, out, set, &pass_oom, err);
        if (st != CZ_E_NOMEM || (cz_gpu_oom_count() == ooms && !pass_oom)) break;
        if (!outer) {
            /* inside another unit nothing may be re-planned: the engine
             * runs it again in its turn (workers.c) */
            st = cz_error_wrap(err, CZ_E_BUSY, "no device memory beside the unit it interrupts");
            break;
        }
        if (!minimum) minimum = key_minimum(u);
        if (!shrink(b, id, minimum, u->job_id ? u->job_id : "a job", err ? err->message : "")) {
            exhausted = 1;
            break;
        }
    }
    if (st != CZ_OK && (exhausted || c->cap != cap_before)) {
        /* the next unit plans afresh: without the cap, and without the key
         * loaded on the smallest plan */
        c->cap = 0;
        if (exhausted) cuda_release(b, id);
        cz_error_prefix(err, "after device out-of-memory errors, no smaller memory plan proves it");
    }
    CZ_ASSERT(c->depth > 0);
    c->depth--;
    return st;
}

/* Page-locks the staged a, b, c (all or none), so their upload in the
 * unit's run reads them where they are, without the staging copy: 12.9 GB
 * per 32 GiB PoRep partition, which crossed PCIe at ~11 GB/s through the
 * CPU's copy. Locking costs the stager's thread, not the device. */
static void abc_lock(staged_host *sh, size_t n) {
    if (!cz_gpu_settings_get()->lock_abc) return;
    cz_fr *v[3] = {sh->view.a, sh->view.b, sh->view.c};
    cz_error err = {0};
    for (int i = 0; i < 3; i++)
        if (cz_gpu_host_lock(v[i], n * sizeof(cz_fr), &err) != CZ_OK) {
            while (i-- > 0) cz_gpu_host_unlock(v[i]);
            cz_log(CZ_LOG_WARN, "a, b, c not page-locked (%s): copied through the staging buffers",
                   err.message);
            return;
        }
    sh->locked = 1;
}

static void abc_unlock(staged_host *sh) {
    if (!sh->locked) return;
    cz_gpu_host_unlock(sh->view.a);
    cz_gpu_host_unlock(sh->view.b);
    cz_gpu_host_unlock(sh->view.c);
    sh->locked = 0;
}

static void staged_host_free(staged_host *sh) {
    abc_unlock(sh);
    if (sh->has_abc) host_evaluation_free(&sh->view);
    if (sh->packed) cz_gpu_witness_pack_free(&sh->pack);
    free(sh);
}

static void cuda_unstage(cz_backend *b, void *staged) {
    cuda_ctx *c = b->impl;
    if (*(const staged_kind *)staged == STAGED_HOST) {
        staged_host *sh = staged;
        pthread_mutex_lock(&c->slot_lock);
        for (staged_host **at = &c->host_staged; *at; at = &(*at)->next)
            if (*at == sh) {
                *at = sh->next;
                break;
            }
        pthread_mutex_unlock(&c->slot_lock);
        staged_host_free(sh);
        return;
    }
    witness_slot *ws = staged;
    pthread_mutex_lock(&c->slot_lock);
    ws->busy = 0;
    ws->owner = NULL;
    const int doomed = ws->doomed;
    if (doomed) c->doomed_slots--;
    pthread_mutex_unlock(&c->slot_lock);
    cz_error err = {0};
    if (doomed && cz_gpu_set_device(c->device, &err) == CZ_OK) slot_free(ws);
}

/* The first resident key of circuit id (slot_lock held): NULL when there
 * is none. */
static const resident_key *circuit_key_locked(const cuda_ctx *c, const char *id) {
    for (uint32_t k = 0; k < c->n_res; k++)
        if (!strcmp(c->res[k].circuit, id)) return &c->res[k];
    return NULL;
}

/* What staging ahead or in the unit's staging makes of it in host memory
 * for a key of circuit id: a, b, c on the CPU and a pack (CZ_GPU_WITNESS_PACK,
 * or a pack always for ABC_PACKED: of at most pack_room bytes, else a, b,
 * c after all). */
typedef struct {
    int abc, pack;
    size_t pack_room; /* 0: any */
} host_work;

/* host_work for the first resident key of id (slot_lock held); -1 when
 * there is none, 0 when the unit needs nothing in host memory, 1 when it
 * does (*w). */
static int host_work_locked(host_work *w, const cuda_ctx *c, const char *id) {
    const resident_key *r = circuit_key_locked(c, id);
    memset(w, 0, sizeof *w);
    if (!r) return -1;
    w->abc = r->abc == ABC_HOST;
    w->pack = r->abc == ABC_PACKED || (!r->slot[0] && cz_gpu_settings_get()->witness_pack);
    w->pack_room = r->abc == ABC_PACKED ? cz_gpu_srs_pack_room(r->srs) : 0;
    return w->abc || w->pack;
}

/* The unit in host memory before its run, as w says: its witness packed
 * (when it packs small, and within w->pack_room: else a, b, c after all)
 * and its a, b, c on the CPU (not for a unit whose reservation holds none:
 * prove_on refuses it then); NULL when neither was made (prove_on
 * evaluates a, b, c and sends the witness raw then). */
static staged_host *host_staging(cz_backend *b, const cz_backend_unit *u, const host_work *w) {
    staged_host *sh = calloc(1, sizeof *sh);
    if (!sh) return NULL;
    /* page-locking (the pack's block, a, b, c) goes through the calling
     * thread's device: on a synthesis worker none is set, and CUDA would
     * make a context on device 0, which the engine may have to leave alone */
    cz_error ignored = {0};
    (void)cz_gpu_set_device(((const cuda_ctx *)b->impl)->device, &ignored);
    int abc = w->abc;
    if (w->pack) {
        sh->packed = cz_gpu_witness_pack_make(&sh->pack, u->witness->input, u->witness->num_inputs,
                                              u->witness->aux, u->witness->num_aux);
        if (w->pack_room && !pack_fits(sh->packed ? &sh->pack : NULL, w->pack_room)) abc = 1;
    }
    sh->no_abc = !abc;
    if (u->abc_unreserved) abc = 0;
    cz_error err = {0};
    if (abc && host_evaluate(&sh->view, u, &err) != CZ_OK)
        cz_log(CZ_LOG_WARN, "%s: a, b, c of %s on the CPU before its run: %s", b->info.name,
               u->job_id ? u->job_id : "a unit", err.message);
    else if (abc)
        sh->has_abc = 1, abc_lock(sh, (size_t)u->circuit->num_constraints);
    if (!sh->has_abc && !sh->packed) {
        free(sh);
        return NULL;
    }
    sh->kind = STAGED_HOST;
    sh->owner = u->witness;
    return sh;
}

/* Whether what was made ahead (may be NULL) serves a key that needs w:
 * its a, b, c when the key takes them from the host, and for a key that
 * evaluates them from the packed witness, a pack within its room (or a,
 * b, c). A pack for the trip alone is optional. */
static int ahead_serves(const staged_host *ahead, const host_work *w) {
    if (!ahead) return 0;
    if (w->abc) return ahead->has_abc;
    if (w->pack_room)
        return ahead->has_abc || pack_fits(ahead->packed ? &ahead->pack : NULL, w->pack_room);
    return 1;
}

/* host_staging in the unit's staging, listed for prove_on. */
static void *stage_host(cz_backend *b, const cz_backend_unit *u, const host_work *w) {
    cuda_ctx *c = b->impl;
    staged_host *sh = host_staging(b, u, w);
    if (!sh) return NULL;
    pthread_mutex_lock(&c->slot_lock);
    sh->next = c->host_staged;
    c->host_staged = sh;
    pthread_mutex_unlock(&c->slot_lock);
    return sh;
}

/* host_staging ahead (cz_backend_prep), where staging would do it
 * (host_work_locked): a key of the circuit that takes a, b, c from the
 * host, or a pack for a key with no witness slot (a slot takes the witness
 * whole, beside the kernels) or one that evaluates a, b, c from it. */
static void *cuda_prep(cz_backend *b, const cz_backend_unit *u) {
    cuda_ctx *c = b->impl;
    if (u->pd || !u->circuit || !u->witness) return NULL;
    host_work w;
    pthread_mutex_lock(&c->slot_lock);
    const int needs = host_work_locked(&w, c, u->circuit_id ? u->circuit_id : "");
    pthread_mutex_unlock(&c->slot_lock);
    return needs > 0 ? host_staging(b, u, &w) : NULL;
}

static void cuda_prep_free(cz_backend *b, void *prep) {
    (void)b;
    staged_host_free(prep);
}

static int cuda_prep_no_abc(cz_backend *b, const void *prep) {
    (void)b;
    return ((const staged_host *)prep)->no_abc;
}

/* The unit's witness into a free slot of its circuit, if there is one;
 * prove_start finds it by the witness's address. A slot released meanwhile
 * (its key left the device) is doomed and out of its entry: prove_start
 * then uploads the witness itself, and unstage frees the slot. */
static void *cuda_stage(cz_backend *b, const cz_backend_unit *u) {
    cuda_ctx *c = b->impl;
    if (u->pd || !u->circuit || !u->witness) return NULL;
    const size_t ni = u->circuit->num_inputs, na = u->circuit->num_aux;
    if (u->witness->num_inputs != ni || u->witness->num_aux != na)
        return NULL; /* prove_start says why */
    const char *id = u->circuit_id ? u->circuit_id : "";
    witness_slot *ws = NULL;
    host_work w;
    pthread_mutex_lock(&c->slot_lock);
    const int needs = host_work_locked(&w, c, id);
    for (uint32_t k = 0; k < c->n_res && !ws && !w.abc; k++)
        for (int i = 0; i < WITNESS_SLOTS && !ws; i++) {
            witness_slot *s = c->res[k].slot[i];
            if (s && !s->busy && s->elems == ni + na && !strcmp(s->circuit, id)) {
                ws = s;
                ws->busy = 1;
            }
        }
    /* the owner is set once the copy is done: prove_start never sees a
     * slot being filled */
    pthread_mutex_unlock(&c->slot_lock);
    /* what was done ahead is not done again, unless it lacks what the key
     * now needs (it was planned again meanwhile) */
    if (w.abc || !ws) return needs > 0 && !ahead_serves(u->prep, &w) ? stage_host(b, u, &w) : NULL;
    cz_error err = {0};
    cz_status st = cz_gpu_set_device(c->device, &err);
    if (st == CZ_OK)
        st = cz_gpu_witness_upload(ws->z, c->stage_up, u->witness->input, ni, u->witness->aux, na,
                                   &err);
    if (st != CZ_OK) {
        cz_log(CZ_LOG_WARN, "%s: staging %s's witness: %s (it goes up in its run instead)",
               b->info.name, u->job_id ? u->job_id : "a unit", err.message);
        cuda_unstage(b, ws);
        return NULL;
    }
    pthread_mutex_lock(&c->slot_lock);
    ws->owner = u->witness;
    pthread_mutex_unlock(&c->slot_lock);
    return ws;
}

static void cuda_destroy(cz_backend *b) {
    cuda_ctx *c = b->impl;
    cz_gpu_uploader_destroy(c->stage_up);
    pthread_mutex_destroy(&c->slot_lock);
    free(c);
}

/* res[] is read under slot_lock (its entries change under both locks). */
static int cuda_host_abc(cz_backend *b, const char *circuit_id) {
    cuda_ctx *c = b->impl;
    pthread_mutex_lock(&c->slot_lock);
    const resident_key *r = circuit_key_locked(c, circuit_id);
    /* ABC_PACKED: a witness that does not pack small has them on the CPU */
    const int host = !r ? -1 : r->abc != ABC_DEVICE;
    pthread_mutex_unlock(&c->slot_lock);
    return host;
}

static const cz_backend_ops cuda_ops = {.kind = "cuda",
                                        .prove_start = cuda_prove_start,
                                        .hold = cuda_hold,
                                        .release = cuda_release,
                                        .destroy = cuda_destroy,
                                        .stage = cuda_stage,
                                        .unstage = cuda_unstage,
                                        .prep = cuda_prep,
                                        .prep_free = cuda_prep_free,
                                        .prep_no_abc = cuda_prep_no_abc,
                                        .host_abc = cuda_host_abc};

void cz_backend_cuda_own_host_points(cz_backend *b, cz_srs_manager *m) {
    if (b && b->ops == &cuda_ops) ((cuda_ctx *)b->impl)->host_points = m;
}

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
    c->self = b;
    pthread_mutex_init(&c->slot_lock, NULL);
    cz_backend_init(b, &cuda_ops, c, name);
    b->info.device = device;
    snprintf(b->info.description, sizeof b->info.description, "%s", desc);
    b->info.memory_total = total_b;
    b->info.memory_budget = budget_bytes ? budget_bytes : free_b;
    *out = b;
    return CZ_OK;
}

/* ---- from a choice ---- */

static int choice_valid(const char *kind) {
    return !strcmp(kind, "auto") || !strcmp(kind, "cpu") || !strcmp(kind, "cuda");
}

cz_status cz_backend_choice_check(const char *choice, cz_error *err) {
    const char *kind = choice && *choice ? choice : "auto";
    if (!choice_valid(kind))
        return cz_error_set(err, CZ_E_INVALID_ARG, "back-end '%s': expected auto, cpu or cuda",
                            kind);
    if (!strcmp(kind, "cpu")) return CZ_OK;
    char desc[256] = "";
    cz_error gerr = {0};
    cz_status st = cz_gpu_probe(desc, sizeof desc, &gerr);
    if (st == CZ_OK || (st == CZ_E_NOT_FOUND && !strcmp(kind, "auto"))) return CZ_OK;
    if (err) *err = gerr;
    return st;
}

cz_status cz_backends_create(cz_backend **out, uint32_t *n, uint32_t max,
                             const cz_engine_config *cfg, cz_error *err) {
    *n = 0;
    const char *kind = cfg->backend && *cfg->backend ? cfg->backend : "auto";
    if (!choice_valid(kind))
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
        /* "cuda", devices listed explicitly, or a GPU that is there but
         * cannot be used (st other than CZ_E_NOT_FOUND: no code for it in
         * this build, a driver too old): no silent fall-back to the CPU. */
        if (!strcmp(kind, "cuda") || cfg->n_devices || (st != CZ_OK && st != CZ_E_NOT_FOUND)) {
            if (st == CZ_OK) st = cz_error_set(&gerr, CZ_E_UNSUPPORTED, "no CUDA device");
            return cz_error_set(err, st, "back-end %s: %s (the back-end \"cpu\" proves on the CPU)",
                                kind, gerr.message);
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
