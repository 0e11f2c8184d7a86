/* Memory budget: reservations by priority, then arrival, on a mutex +
 * condition variable. */
#include "engine/budget.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cuzk/engine.h"
#include "util/check.h"

struct cz_budget_waiter {
    uint64_t bytes;
    int yields;
    int priority;
    cz_budget_waiter *next;
};

static _Thread_local int thread_priority = CZ_PRIORITY_NORMAL;

void cz_budget_set_thread_priority(int priority) {
    thread_priority = priority;
}

/* w may be served: every waiter ahead of it yields (under b->lock). Ahead
 * of w: a waiter of a higher priority, or of its own that came earlier
 * (the list is in arrival order). */
static int first_in_line(const cz_budget *b, const cz_budget_waiter *w) {
    int earlier = 1;
    for (const cz_budget_waiter *v = b->head; v; v = v->next) {
        if (v == w) {
            earlier = 0;
            continue;
        }
        const int ahead = v->priority > w->priority || (earlier && v->priority == w->priority);
        if (ahead && !v->yields) return 0;
    }
    return 1;
}

/* Free bytes a reservation at priority may take (under b->lock). */
static uint64_t room_for(const cz_budget *b, int priority) {
    const uint64_t free_b = b->total - b->used;
    if (priority >= CZ_PRIORITY_CRITICAL) return free_b;
    return free_b > b->reserve ? free_b - b->reserve : 0;
}

void cz_budget_init(cz_budget *b, uint64_t total) {
    memset(b, 0, sizeof *b);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->changed, NULL);
    b->total = total;
}

void cz_budget_destroy(cz_budget *b) {
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->changed);
}

static void unlink_waiter(cz_budget *b, cz_budget_waiter *w) {
    cz_budget_waiter **pp = &b->head, *prev = NULL;
    while (*pp && *pp != w) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (!*pp) return;
    *pp = w->next;
    if (b->tail == w) b->tail = prev;
}

cz_status cz_budget_acquire(cz_budget *b, uint64_t bytes, const char *what, int yields,
                            cz_budget_evict_fn evict, void *evict_ctx, const atomic_int *abort_flag,
                            cz_error *err) {
    if (bytes > b->total)
        return cz_error_set(err, CZ_E_NOMEM,
                            "memory budget: %s needs %llu bytes but the whole budget is %llu bytes "
                            "(raise [memory] total_budget)",
                            what, (unsigned long long)bytes, (unsigned long long)b->total);
    cz_budget_waiter self = {bytes, yields, thread_priority, NULL};
    pthread_mutex_lock(&b->lock);
    if (b->tail)
        b->tail->next = &self;
    else
        b->head = &self;
    b->tail = &self;
    cz_status st = CZ_OK;
    for (;;) {
        if (abort_flag && *abort_flag) {
            st = cz_error_set(err, CZ_E_CANCELLED, "memory budget: %s: wait aborted", what);
            break;
        }
        int first = first_in_line(b, &self);
        const uint64_t room = room_for(b, self.priority);
        if (first && room >= bytes) {
            b->used += bytes;
            break;
        }
        if (first && evict) {
            uint64_t need = bytes - room;
            pthread_mutex_unlock(&b->lock);
            uint64_t freed = evict(evict_ctx, need);
            pthread_mutex_lock(&b->lock);
            if (freed) continue; /* re-check before sleeping */
            /* Cache entries also become evictable by ageing, which signals
             * nothing: retry the evictor once a second. */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            pthread_cond_timedwait(&b->changed, &b->lock, &ts);
            continue;
        }
        pthread_cond_wait(&b->changed, &b->lock);
    }
    unlink_waiter(b, &self);
    /* The next waiter may now be the head and fit. */
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
    return st;
}

int cz_budget_try_acquire(cz_budget *b, uint64_t bytes) {
    int ok = 0;
    /* as the lowest waiter: every one that does not yield is ahead */
    const cz_budget_waiter last = {bytes, 0, CZ_PRIORITY_UNSPECIFIED, NULL};
    pthread_mutex_lock(&b->lock);
    if (first_in_line(b, &last) && room_for(b, last.priority) >= bytes) {
        b->used += bytes;
        ok = 1;
    }
    pthread_mutex_unlock(&b->lock);
    return ok;
}

void cz_budget_release(cz_budget *b, uint64_t bytes) {
    pthread_mutex_lock(&b->lock);
    CZ_ASSERT(bytes <= b->used); /* every release matches an acquire */
    b->used = bytes > b->used ? 0 : b->used - bytes;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
}

void cz_budget_set_reserve(cz_budget *b, uint64_t bytes) {
    pthread_mutex_lock(&b->lock);
    const uint64_t was = b->reserve;
    b->reserve = bytes < b->total ? bytes : b->total;
    if (b->reserve < was) pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
}

void cz_budget_wake(cz_budget *b) {
    pthread_mutex_lock(&b->lock);
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
}

void cz_budget_usage(cz_budget *b, uint64_t *used, uint64_t *total) {
    pthread_mutex_lock(&b->lock);
    if (used) *used = b->used;
    if (total) *total = b->total;
    pthread_mutex_unlock(&b->lock);
}

size_t cz_budget_waiting(cz_budget *b) {
    size_t n = 0;
    pthread_mutex_lock(&b->lock);
    for (const cz_budget_waiter *w = b->head; w; w = w->next) n++;
    pthread_mutex_unlock(&b->lock);
    return n;
}

uint64_t cz_physical_memory_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) break;
    fclose(f);
    return (uint64_t)kib * 1024;
}
