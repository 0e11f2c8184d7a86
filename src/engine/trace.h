/* The engine's timeline as Chrome trace events (the JSON that Perfetto and
 * chrome://tracing draw): one complete event ("ph": "X") per span of work
 * (a unit's synthesis, its wait in the prove queue, its prove_start and the
 * GPU steps inside it, its finalization; a job's preparation, SRS load and
 * verification), on one lane per worker thread. Recorded in memory while
 * cz_engine_config.trace_path is set, written by cz_engine_destroy (and by
 * cz_trace_write on demand). Thread safe. */
#ifndef CZ_ENGINE_TRACE_H
#define CZ_ENGINE_TRACE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef struct {
    char name[48];
    char job[48];
    int32_t unit; /* -1 for a job's own spans */
    uint32_t lane;
    uint64_t t0_ns, t1_ns;
} cz_trace_event;

typedef struct {
    pthread_mutex_t lock;
    cz_trace_event *v;
    size_t n, cap;
    uint64_t origin_ns; /* time 0 of the trace */
    char lane_names[64][32];
} cz_trace;

/* Lanes: the SRS loader, the finalizer (also verification), the prove
 * queue (waits overlap: written as async spans), the prove workers, then the
 * synthesis workers (which also prepare jobs). */
#define CZ_TRACE_LANE_JOBS      0u
#define CZ_TRACE_LANE_FINALIZER 1u
#define CZ_TRACE_LANE_QUEUE     2u
#define CZ_TRACE_LANE_PROVE     3u
#define CZ_TRACE_LANE_SYNTH     19u
#define CZ_TRACE_LANES          64u

void cz_trace_init(cz_trace *t);
void cz_trace_free(cz_trace *t);
void cz_trace_name_lane(cz_trace *t, uint32_t lane, const char *name);
/* Records a span; job may be NULL, unit -1 for none. Drops it silently when
 * memory runs out (a trace is a diagnostic, never a reason to fail). */
void cz_trace_add(cz_trace *t, const char *name, const char *job, int32_t unit, uint32_t lane,
                  uint64_t t0_ns, uint64_t t1_ns);
cz_status cz_trace_write(cz_trace *t, const char *path, cz_error *err);

#endif
