/* The memory budget: one byte counter for SRS, pre-compiled circuits and
 * per-partition working sets.
 *
 * Invariants: used <= total at all times. Reservations are granted by
 * priority, then in arrival order: a waiter is served only when every
 * waiter of a higher priority, and every earlier waiter of its own, has
 * been served or gave up, so a CRITICAL unit never queues behind lower
 * priorities, and a large request is not starved by a stream of small ones
 * of its priority. Exception: a waiter marked `yields` (a cache load, such
 * as an SRS, that may need memory which only the progress of running jobs
 * frees) lets waiters behind it that fit pass it, so that it never blocks
 * the work it waits for; the engine bounds its wait by admitting no new job
 * while it waits. A reservation below CZ_PRIORITY_CRITICAL leaves `reserve`
 * bytes free (used + bytes + reserve <= total): those are for CRITICAL work
 * alone, which so finds its memory at once in a budget that lower
 * priorities keep full. The engine sizes the reserve and keeps it small
 * enough that admitted jobs can always go on (schedule.c,
 * cz_eng_reserve_update_locked). Waiting is on a condition variable
 * re-checked under the lock after every release, so no wake-up is lost. A
 * request larger than the whole budget fails at once instead of waiting
 * forever. */
#ifndef CZ_ENGINE_BUDGET_H
#define CZ_ENGINE_BUDGET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef struct cz_budget_waiter cz_budget_waiter;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t total, used;
    uint64_t reserve;              /* for CRITICAL reservations only */
    cz_budget_waiter *head, *tail; /* waiters in arrival order */
} cz_budget;

void cz_budget_init(cz_budget *b, uint64_t total);
void cz_budget_destroy(cz_budget *b);

/* Called (without the budget lock) when the head waiter does not fit, and
 * again at least once a second while it waits: may free memory (evict
 * caches) and release it; returns the bytes it released. */
typedef uint64_t (*cz_budget_evict_fn)(void *ctx, uint64_t need);

/* The priority (CZ_PRIORITY_*) at which the calling thread's
 * cz_budget_acquire calls wait, CZ_PRIORITY_NORMAL until set. Per thread,
 * so that a caller reserving through another module (the engine's SRS
 * loader, through the SRS manager) waits at its job's priority. */
void cz_budget_set_thread_priority(int priority);

/* Blocks until `bytes` fit, at the calling thread's priority.
 * CZ_E_NOMEM at once when bytes > total; CZ_E_CANCELLED when *abort_flag
 * becomes non-zero while waiting (the flag is read under the lock after
 * each cz_budget_wake). */
cz_status cz_budget_acquire(cz_budget *b, uint64_t bytes, const char *what, int yields,
                            cz_budget_evict_fn evict, void *evict_ctx, const atomic_int *abort_flag,
                            cz_error *err);
/* Non-blocking, below CRITICAL (it leaves the reserve); 1 when granted
 * (never jumps ahead of a waiter that does not yield). */
int cz_budget_try_acquire(cz_budget *b, uint64_t bytes);
/* Sets the bytes only CRITICAL reservations may use (at most total); a
 * smaller reserve lets waiters that now fit go. */
void cz_budget_set_reserve(cz_budget *b, uint64_t bytes);
void cz_budget_release(cz_budget *b, uint64_t bytes);
/* Wakes the waiters so that they re-read their abort flags. */
void cz_budget_wake(cz_budget *b);
void cz_budget_usage(cz_budget *b, uint64_t *used, uint64_t *total);
/* Number of waiters queued (for status and tests). */
size_t cz_budget_waiting(cz_budget *b);

/* Parses physical memory from /proc/meminfo (MemTotal); 0 if unknown. */
uint64_t cz_physical_memory_bytes(void);

#endif
