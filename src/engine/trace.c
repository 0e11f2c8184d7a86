/* Chrome trace events (trace.h). */
#include "engine/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

void cz_trace_init(cz_trace *t) {
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    t->origin_ns = cz_now_ns();
}

void cz_trace_free(cz_trace *t) {
    free(t->v);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof *t);
}

void cz_trace_name_lane(cz_trace *t, uint32_t lane, const char *name) {
    if (lane >= CZ_TRACE_LANES) return;
    pthread_mutex_lock(&t->lock);
    snprintf(t->lane_names[lane], sizeof t->lane_names[lane], "%s", name);
    pthread_mutex_unlock(&t->lock);
}

void cz_trace_add(cz_trace *t, const char *name, const char *job, int32_t unit, uint32_t lane,
                  uint64_t t0_ns, uint64_t t1_ns) {
    pthread_mutex_lock(&t->lock);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        cz_trace_event *v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&t->lock);
            return;
        }
        t->v = v, t->cap = cap;
    }
    cz_trace_event *ev = &t->v[t->n++];
    snprintf(ev->name, sizeof ev->name, "%s", name);
    snprintf(ev->job, sizeof ev->job, "%s", job ? job : "");
    ev->unit = unit;
    ev->lane = lane < CZ_TRACE_LANES ? lane : CZ_TRACE_LANES - 1;
    ev->t0_ns = t0_ns, ev->t1_ns = t1_ns > t0_ns ? t1_ns : t0_ns;
    pthread_mutex_unlock(&t->lock);
}

/* A JSON string body: names and request ids are printable ASCII in
 * practice, anything else is escaped. */
static void put_str(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
}

static double us(const cz_trace *t, uint64_t ns) {
    return ns > t->origin_ns ? (double)(ns - t->origin_ns) / 1e3 : 0.0;
}

cz_status cz_trace_write(cz_trace *t, const char *path, cz_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return cz_error_set(err, CZ_E_IO, "trace %s: %s", path, strerror(errno));
    pthread_mutex_lock(&t->lock);
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    int first = 1;
    for (uint32_t l = 0; l < CZ_TRACE_LANES; l++) {
        if (!t->lane_names[l][0]) continue;
        fprintf(f,
                "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%u,"
                "\"args\":{\"name\":\"",
                first ? "" : ",\n", l);
        put_str(f, t->lane_names[l]);
        fprintf(f, "\"}}");
        first = 0;
    }
    for (size_t i = 0; i < t->n; i++) {
        const cz_trace_event *ev = &t->v[i];
        /* Queue waits overlap one another: async begin / end pairs. */
        int async = ev->lane == CZ_TRACE_LANE_QUEUE;
        for (int half = 0; half < (async ? 2 : 1); half++) {
            if (async)
                fprintf(f,
                        "%s{\"ph\":\"%c\",\"cat\":\"queue\",\"id\":%zu,\"pid\":1,"
                        "\"tid\":%u,\"ts\":%.3f,\"name\":\"",
                        first ? "" : ",\n", half ? 'e' : 'b', i, ev->lane,
                        us(t, half ? ev->t1_ns : ev->t0_ns));
            else
                fprintf(f,
                        "%s{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
                        "\"name\":\"",
                        first ? "" : ",\n", ev->lane, us(t, ev->t0_ns),
                        (double)(ev->t1_ns - ev->t0_ns) / 1e3);
            put_str(f, ev->name);
            fprintf(f, "\",\"args\":{\"job\":\"");
            put_str(f, ev->job);
            fprintf(f, "\"");
            if (ev->unit >= 0) fprintf(f, ",\"partition\":%d", ev->unit);
            fprintf(f, "}}");
            first = 0;
        }
    }
    fprintf(f, "\n]}\n");
    pthread_mutex_unlock(&t->lock);
    if (fclose(f) != 0) return cz_error_set(err, CZ_E_IO, "trace %s: %s", path, strerror(errno));
    return CZ_OK;
}
