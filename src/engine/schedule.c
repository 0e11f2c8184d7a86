/* The engine's queues and the choices made on them (engine_private.h):
 * the heaps, ordered by (priority desc, job sequence asc, unit asc) with
 * a job's prepare item first, and the finish FIFO:
 *   synth heap   "prepare job" items (unit = CZ_ENG_PREPARE_UNIT) and
 *                "synthesize unit";
 *   prove heap   synthesized units. A synthesis worker pushes its unit at
 *                once and, while more than prove_queue_depth units wait, it
 *                waits too (backpressure): every synthesized unit is visible to the
 * prove workers' choice (prove_pick), which may take a unit other than the top to stay on one
 * circuit; finish FIFO  units after prove_start, for the finalizer; load heap    jobs waiting for
 * the SRS loader (prepare.c). Also admission: when a job may take its SRS, and the budget's
 * reserve for CRITICAL work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_private.h"
#include "util/parallel.h"

int cz_eng_item_before(const cz_eng_item *a, const cz_eng_item *b) {
    if (a->j->priority != b->j->priority) return a->j->priority > b->j->priority;
    if (a->j->seq != b->j->seq) return a->j->seq < b->j->seq;
    uint64_t ua = a->unit == CZ_ENG_PREPARE_UNIT ? 0 : (uint64_t)a->unit + 1;
    uint64_t ub = b->unit == CZ_ENG_PREPARE_UNIT ? 0 : (uint64_t)b->unit + 1;
    return ua < ub;
}

/* Room for one more item; 0 when out of memory. */
static int make_room(cz_eng_heap *h) {
    if (h->n < h->cap) return 1;
    size_t cap = h->cap ? 2 * h->cap : 16;
    cz_eng_item *v = realloc(h->v, cap * sizeof *v);
    if (!v) return 0;
    h->v = v;
    h->cap = cap;
    return 1;
}

/* Moves h->v[i] up to its place; returns where it went. */
static size_t sift_up(cz_eng_heap *h, size_t i) {
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!cz_eng_item_before(&h->v[i], &h->v[p])) break;
        cz_eng_item t = h->v[i];
        h->v[i] = h->v[p];
        h->v[p] = t;
        i = p;
    }
    return i;
}

int cz_eng_heap_push(cz_eng_heap *h, cz_eng_item it) {
    if (!make_room(h)) return 0;
    h->v[h->n] = it;
    sift_up(h, h->n++);
    return 1;
}

cz_eng_item cz_eng_heap_take(cz_eng_heap *h, size_t i) {
    cz_eng_item it = h->v[i];
    if (i == --h->n) return it;
    h->v[i] = h->v[h->n];
    i = sift_up(h, i); /* the moved item may belong above i ... */
    for (;;) {         /* ... or below it */
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && cz_eng_item_before(&h->v[l], &h->v[m])) m = l;
        if (r < h->n && cz_eng_item_before(&h->v[r], &h->v[m])) m = r;
        if (m == i) break;
        cz_eng_item t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
    return it;
}

cz_eng_item cz_eng_heap_pop(cz_eng_heap *h) {
    return cz_eng_heap_take(h, 0);
}

/* FIFO on the same storage (finish queue): push at the end, pop the front. */
int cz_eng_fifo_push(cz_eng_heap *h, cz_eng_item it) {
    if (!make_room(h)) return 0;
    h->v[h->n++] = it;
    return 1;
}

cz_eng_item cz_eng_fifo_pop(cz_eng_heap *h) {
    cz_eng_item it = h->v[0];
    memmove(h->v, h->v + 1, (h->n - 1) * sizeof *h->v);
    h->n--;
    return it;
}

/* The most a partition of j reserves: its plan's, with its a, b, c when a
 * context evaluates them on the host (workers.c, unit_reservation). */
static uint64_t unit_most(const cz_eng_job *j) {
    return j->plan.unit_bytes + j->plan.unit_abc_bytes;
}

/* Admission: a job may take its SRS only when the SRSs of
 * the admitted jobs (referenced, so never evicted), its own, and the
 * largest partition of any of them fit the budget together. Then some
 * partition can always get memory once the partitions in flight are done,
 * so admitted jobs finish, and a job that does not fit yet only waits for
 * them (without this, two jobs each holding an SRS can wait forever for
 * partition memory the other holds). */
int cz_eng_admissible_locked(cz_engine *e, const cz_eng_job *j) {
    uint64_t total = 0, unit = unit_most(j);
    cz_budget_usage(&e->budget, NULL, &total);
    for (const cz_eng_job *o = e->jobs; o; o = o->next)
        if (o->srs_held && o->phase != CZ_ENG_DONE && unit_most(o) > unit) unit = unit_most(o);
    uint64_t pinned = cz_srs_pinned_bytes(&e->srs, j->plan.circuit_id);
    return pinned + j->srs_bytes + unit <= total;
}

/* The budget's CRITICAL reserve (budget.h): the largest partition of a
 * CRITICAL job prepared since the engine started (critical_unit; the
 * WinningPoSt of the miner's sector size, which recurs), so that the next
 * one finds its memory free in a budget that a backlog keeps full. Never
 * more than admission leaves: the admitted jobs' SRSs (referenced, and
 * those being loaded, counted once more when also referenced) and the
 * largest partition of any of them, beside the reserve, fit the budget.
 * Then, as admission promises without a reserve, some partition of every
 * admitted job still gets memory once the partitions in flight are done,
 * and every SRS load of an admitted job fits: the reserve shrinks when a
 * job is admitted instead of admission waiting for it, so it never keeps a
 * job from running; it grows back as jobs end. */
void cz_eng_reserve_update_locked(cz_engine *e, const cz_eng_job *j) {
    if (j && j->priority >= CZ_PRIORITY_CRITICAL && unit_most(j) > e->critical_unit)
        e->critical_unit = unit_most(j);
    uint64_t total = 0, unit = 0;
    cz_budget_usage(&e->budget, NULL, &total);
    uint64_t pinned = cz_srs_pinned_bytes(&e->srs, "");
    for (const cz_eng_job *o = e->jobs; o; o = o->next) {
        if (!o->admitted || o->phase == CZ_ENG_DONE) continue;
        if (!o->srs_held) pinned += o->srs_bytes;
        if (unit_most(o) > unit) unit = unit_most(o);
    }
    const uint64_t slack = total > pinned + unit ? total - pinned - unit : 0;
    cz_budget_set_reserve(&e->budget, e->critical_unit < slack ? e->critical_unit : slack);
}

/* Index of a prove heap item whose job is cancelled or failed (it will be
 * dropped, not proven), or SIZE_MAX. */
size_t cz_eng_prove_dropped_locked(const cz_engine *e) {
    for (size_t i = 0; i < e->prove.n; i++)
        if (e->prove.v[i].j->cancel || e->prove.v[i].j->failed) return i;
    return SIZE_MAX;
}

/* Index of a unit item (not the prepare item) of j in h, or SIZE_MAX. */
size_t cz_eng_find_unit_of(const cz_eng_heap *h, const cz_eng_job *j) {
    for (size_t i = 0; i < h->n; i++)
        if (h->v[i].j == j && h->v[i].unit != CZ_ENG_PREPARE_UNIT) return i;
    return SIZE_MAX;
}

static int is_last_circuit(const cz_eng_slot *b, const cz_eng_job *j) {
    return b->have_last && j->kind == b->last_kind && !strcmp(j->plan.circuit_id, b->last_circuit);
}

/* Which prove heap item a prove worker of context b takes next (under
 * e->lock; the heap is not empty). Plain order is the heap's top: highest
 * priority, oldest job, lowest unit. Departures from it:
 *   - a unit that will be dropped (job cancelled or failed) first: it costs
 *     nothing and frees its memory;
 *   - same-circuit runs: while the top is of another circuit than the last
 *     unit this context took, the run is shorter than max_batch, and no
 *     unit of another circuit at the top priority has been ready longer
 *     than max_batch_wait, the oldest unit of the top priority and of the
 *     context's last circuit goes instead (the context keeps that
 *     circuit's parameters; a switch re-uploads them). Each context runs
 *     its own circuit, so with several devices one may stay on PoRep while
 *     another takes the other circuit;
 *   - device affinity (several contexts): a unit whose key another context
 *     keeps resident while that context has a free prove worker is left
 *     to it (it takes the unit as soon as it looks; no key upload); this
 *     context takes instead the first unit in that order that no other free
 *     context holds, at the same priority, or none (SIZE_MAX: it waits for
 *     the heap to change). A holder that is busy does not keep a unit: the
 *     free context takes it and loads its key.
 * Only units already synthesized are considered: the GPU never idles for a
 * batch to fill, and a higher priority always goes first. The scan is
 * linear; the heap holds at most prove_queue_depth + synthesis workers. */
static size_t run_pick(const cz_engine *e, const cz_eng_slot *b) {
    const cz_eng_heap *h = &e->prove;
    const cz_eng_item *top = &h->v[0];
    if (e->max_batch <= 1 || !b->have_last || b->run_len >= e->max_batch ||
        is_last_circuit(b, top->j))
        return 0;
    uint64_t now = cz_now_ns();
    if (now - top->t_ready > e->max_batch_wait_ns) return 0;
    size_t best = 0;
    for (size_t i = 1; i < h->n; i++) {
        const cz_eng_item *it = &h->v[i];
        if (it->j->priority != top->j->priority) continue;
        if (!is_last_circuit(b, it->j)) {
            if (now - it->t_ready > e->max_batch_wait_ns) return 0;
        } else if (best == 0 || cz_eng_item_before(it, &h->v[best])) {
            best = i;
        }
    }
    return best;
}

/* Whether context s keeps j's key resident (its back-end's report). */
static int slot_holds(const cz_eng_slot *s, const cz_eng_job *j) {
    if (!j->plan.circuit_id[0]) return 0;
    cz_backend_info bi;
    cz_backend_get_info(s->backend, &bi);
    for (uint32_t r = 0; r < bi.n_resident; r++)
        if (!strcmp(bi.resident_circuits[r], j->plan.circuit_id)) return 1;
    return 0;
}

/* Whether a context other than b, in service with a free prove worker,
 * keeps j's key resident (b does not). */
static int free_holder_elsewhere(const cz_engine *e, const cz_eng_slot *b, const cz_eng_job *j) {
    if (e->n_backends < 2 || !j->plan.circuit_id[0] || slot_holds(b, j)) return 0;
    for (uint32_t i = 0; i < e->n_backends; i++) {
        const cz_eng_slot *s = &e->slots[i];
        if (s != b && !s->out_of_service && s->busy_workers < e->n_prove / e->n_backends &&
            slot_holds(s, j))
            return 1;
    }
    return 0;
}

/* Whether it may run inside a unit of running on b at one of its step
 * boundaries (preemption). */
static int nests_in(const cz_eng_slot *b, const cz_eng_item *it, const cz_eng_job *running) {
    const int prio = it->j->priority;
    if (prio <= running->priority || prio < CZ_PRIORITY_HIGH || it->j->cancel || it->j->failed ||
        it->no_nest)
        return 0;
    const int keeps_keys = b->backend->ops->hold != NULL;
    /* on a context that keeps keys, not inside a unit of its own key: the
     * two would share what the key's plan holds for one unit at a time (a
     * streaming key's chunk buffers and uploader, busy between the chunks
     * of a sum) */
    if (keeps_keys && it->j->plan.circuit_id[0] &&
        !strcmp(it->j->plan.circuit_id, running->plan.circuit_id))
        return 0;
    /* preempting never evicts: the unit's key must be there already */
    return !keeps_keys || slot_holds(b, it->j);
}

/* Whether a unit that b's workers prove with a preemption hook will take
 * it at its next step boundary: a free worker of b that took it instead
 * would only wait for the context (its run lock) until that unit ends. Not
 * a CRITICAL unit while the run lock is free (the hooked units are staging,
 * or waiting for a pass): a staged witness upload (0.6 s at 32 GiB) has no
 * boundary, and a free worker runs it at once (it skips a busy stage lock;
 * a lower priority would wait for that lock and then race the staged
 * unit). */
static int left_to_hook(const cz_eng_slot *b, const cz_eng_item *it) {
    if (b->n_hooked && it->j->priority >= CZ_PRIORITY_CRITICAL &&
        cz_backend_run_lock_free(b->backend))
        return 0;
    for (uint32_t k = 0; k < b->n_hooked; k++)
        if (nests_in(b, it, b->hooked[k])) return 1;
    return 0;
}

size_t cz_eng_prove_pick_locked(const cz_engine *e, const cz_eng_slot *b) {
    const cz_eng_heap *h = &e->prove;
    size_t d = cz_eng_prove_dropped_locked(e);
    if (d != SIZE_MAX) return d;
    size_t pick = run_pick(e, b);
    if (!left_to_hook(b, &h->v[pick]) && !free_holder_elsewhere(e, b, h->v[pick].j)) return pick;
    /* the first unit in heap order that is neither left to a hook nor to
     * another context's free worker, at the priority run_pick chose unless
     * that unit is the one left to a hook */
    const int same_prio = !left_to_hook(b, &h->v[pick]), prio = h->v[pick].j->priority;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < h->n; i++) {
        const cz_eng_item *it = &h->v[i];
        if ((same_prio && it->j->priority != prio) || left_to_hook(b, it) ||
            free_holder_elsewhere(e, b, it->j))
            continue;
        if (best == SIZE_MAX || cz_eng_item_before(it, &h->v[best])) best = i;
    }
    return best;
}

size_t cz_eng_preempt_pick_locked(const cz_engine *e, const cz_eng_slot *b,
                                  const cz_eng_job *running) {
    const cz_eng_heap *h = &e->prove;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < h->n; i++) {
        const cz_eng_item *it = &h->v[i];
        if (!nests_in(b, it, running)) continue;
        if (best == SIZE_MAX || cz_eng_item_before(it, &h->v[best])) best = i;
    }
    return best;
}

/* Bookkeeping of the circuit a prove worker of b is about to run (under
 * e->lock). */
void cz_eng_note_circuit_locked(cz_engine *e, cz_eng_slot *b, const cz_eng_job *j) {
    if (!is_last_circuit(b, j)) {
        if (b->have_last) e->circuit_switches++;
        b->have_last = 1;
        b->last_kind = j->kind;
        snprintf(b->last_circuit, sizeof b->last_circuit, "%s", j->plan.circuit_id);
        b->run_len = 0;
    }
    b->run_len++;
}

int cz_eng_synth_push_locked(cz_engine *e, cz_eng_item it) {
    if (!cz_eng_heap_push(&e->synth, it)) return 0;
    pthread_cond_broadcast(&e->work);
    if (e->prove_blocked) pthread_cond_broadcast(&e->prove_room);
    return 1;
}

/* The critical lane: one synthesis worker beyond synthesis_workers that
 * takes only CRITICAL items (a WinningPoSt by default), so that such a job
 * never waits for a partition in synthesis to end (tens of seconds at
 * 32 GiB); the other workers take them too, first, when they are free,
 * unless they run niced (synthesis_nice): then the lane alone does, at the
 * process's priority. */
int cz_eng_synth_ready_locked(const cz_engine *e, int critical_lane) {
    if (e->synth.n == 0) return 0;
    const cz_eng_item *top = &e->synth.v[0];
    if (critical_lane) return top->j->priority >= CZ_PRIORITY_CRITICAL;
    if (e->synthesis_nice > 0 && top->j->priority >= CZ_PRIORITY_CRITICAL) return 0;
    return !cz_eng_ahead_full_locked(e, top);
}

/* The run-ahead bound: it may start when fewer than partitions_ahead units
 * of its priority or above are being synthesized or wait for a prove
 * worker. Without it every synthesis worker finishes a partition and then
 * holds its witness while it waits for the GPU (at 32 GiB 16 workers held
 * 64 GiB for a GPU that takes one partition per 1.3 s, 120 GiB of host
 * memory in all); a few ahead keep the GPU as busy. Counting per priority
 * keeps a higher priority from waiting behind a lower one's bound; the heap
 * is ordered by priority, so what waits here is the highest-priority item. */
int cz_eng_ahead_full_locked(const cz_engine *e, const cz_eng_item *it) {
    if (it->unit == CZ_ENG_PREPARE_UNIT || it->j->cancel || it->j->failed) return 0;
    const int prio = it->j->priority;
    uint32_t ahead = 0;
    for (int p = prio; p <= CZ_PRIORITY_CRITICAL; p++) ahead += e->synthesizing[p];
    for (size_t i = 0; i < e->prove.n && ahead < e->partitions_ahead; i++)
        if (e->prove.v[i].j->priority >= prio) ahead++;
    return ahead >= e->partitions_ahead;
}

/* Backpressure: with more than depth units queued for proving, a worker
 * that queued one waits (workers.c). Each pop lets exactly one blocked
 * worker go (the first to see prove.n <= depth + blocked - 1 leaves and
 * lowers blocked, which keeps the others waiting), so the heap holds at
 * most depth + blocked units (those units were synthesized anyway, memory
 * reserved; now the prove workers can choose among them).
 *
 * A waiting worker also takes an item of the synth heap whose priority is
 * above the unit it queued, and waits again after it: a job of higher
 * priority never waits behind the backpressure of lower ones. Without
 * this, during a backlog every worker may be waiting, and a WinningPoSt
 * is not even prepared until the prover takes one more PoRep unit, whose
 * turn then comes before its own. Only the worker that takes the item
 * leaves the wait, so the bound stays depth + blocked. */
int cz_eng_prove_over_bound_locked(const cz_engine *e) {
    return e->prove.n > e->prove_queue_depth + e->prove_blocked - 1;
}

int cz_eng_synth_outranks_locked(const cz_engine *e, int prio) {
    return e->synth.n && e->synth.v[0].j->priority > prio;
}
