/* The engine's record of what happens: log lines made under the engine
 * lock (written when it is released), TIMELINE lines and trace spans on the
 * calling worker's lane. The bottom of the engine core: every other file
 * calls it, it calls none of them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_private.h"
#include "util/parallel.h"

/* Logging goes through util/log.h, never while e->lock is held (a blocked
 * stderr would stall every worker): lines made under the lock are queued
 * and written by cz_eng_unlock, which every unlock of e->lock goes
 * through. */
struct cz_eng_deferred_line {
    cz_eng_deferred_line *next;
    cz_log_level level;
    char text[];
};

void cz_eng_defer_log_locked(cz_engine *e, cz_log_level level, const char *fmt, ...) {
    if (!cz_log_enabled(level)) return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
    cz_eng_deferred_line *l = malloc(sizeof *l + len + 1);
    if (!l) return; /* a lost log line, not a lost job */
    l->next = NULL;
    l->level = level;
    memcpy(l->text, text, len);
    l->text[len] = 0;
    *e->log_tail = l;
    e->log_tail = &l->next;
}

struct cz_eng_dead_state {
    cz_eng_dead_state *next;
    const cz_job_ops *ops;
    void *state;
};

void cz_eng_defer_free_state_locked(cz_engine *e, const cz_job_ops *ops, void *state) {
    if (!state || !ops->free_state) return;
    cz_eng_dead_state *d = malloc(sizeof *d);
    if (!d) { /* no room to defer it: freed here, slowly but not lost */
        ops->free_state(state);
        return;
    }
    *d = (cz_eng_dead_state){e->dead_states, ops, state};
    e->dead_states = d;
}

void cz_eng_unlock(cz_engine *e) {
    cz_eng_deferred_line *l = e->log_head;
    e->log_head = NULL;
    e->log_tail = &e->log_head;
    cz_eng_dead_state *d = e->dead_states;
    e->dead_states = NULL;
    pthread_mutex_unlock(&e->lock);
    while (l) {
        cz_eng_deferred_line *next = l->next;
        cz_log(l->level, "%s", l->text);
        free(l);
        l = next;
    }
    while (d) {
        cz_eng_dead_state *next = d->next;
        d->ops->free_state(d->state);
        free(d);
        d = next;
    }
}

static void timeline_line(char *out, size_t cap, cz_engine *e, const char *event, const char *id,
                          const char *fmt, va_list ap) {
    char detail[128] = "";
    if (fmt) vsnprintf(detail, sizeof detail, fmt, ap);
    snprintf(out, cap, "TIMELINE,%" PRIu64 ",%s,%s,%s", (cz_now_ns() - e->t_start) / 1000000, event,
             id, detail);
}

void cz_eng_timeline(cz_engine *e, const char *event, const cz_eng_job *j, const char *fmt, ...) {
    if (!e->timeline) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    timeline_line(line, sizeof line, e, event, j->id, fmt, ap);
    va_end(ap);
    cz_log(CZ_LOG_INFO, "%s", line);
}

void cz_eng_timeline_locked(cz_engine *e, const char *event, const cz_eng_job *j, const char *fmt,
                            ...) {
    if (!e->timeline) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    timeline_line(line, sizeof line, e, event, j->id, fmt, ap);
    va_end(ap);
    cz_eng_defer_log_locked(e, CZ_LOG_INFO, "%s", line);
}

/* The trace lane of the calling worker thread. */
static _Thread_local uint32_t worker_lane;

void cz_eng_set_lane(uint32_t lane) {
    worker_lane = lane;
}

uint32_t cz_eng_lane(void) {
    return worker_lane;
}

void cz_eng_span(cz_engine *e, const char *name, const cz_eng_job *j, int32_t unit, uint64_t t0,
                 uint64_t t1) {
    if (e->tracing) cz_trace_add(&e->trace, name, j ? j->id : NULL, unit, worker_lane, t0, t1);
}
