/* The job skeleton's witness pool (engine/witness_job.c): a unit's witness
 * buffer goes back to its job's pool for the job's next units, and is
 * freed instead once every unit has taken its buffer, since an idle buffer
 * sits outside the engine's memory budget while the job's last units wait
 * to be proven. A unit synthesized again takes a fresh buffer. The fill
 * marks each buffer it gets, so a pooled buffer is seen reused. Then the
 * threads a fill is given: a share of the cores while another unit is
 * being synthesized, every core for a thread marked for CRITICAL units. */
#include <stdlib.h>

#include "engine/job.h"
#include "harness/harness.h"
#include "util/parallel.h"

static unsigned fills, reused;

static cz_status fill(void *state, uint32_t unit, cz_witness *w, unsigned threads, cz_error *err) {
    (void)state, (void)unit, (void)threads, (void)err;
    fills++;
    if (w->num_aux == 7) reused++;
    w->num_aux = 7;
    return CZ_OK;
}

/* Synthesizes n units of j, then discards them (as after their runs). */
static void round_of(cz_witness_job *j, unsigned n) {
    void *synth[8];
    cz_error err = {0};
    for (unsigned i = 0; i < n; i++)
        CHECK(cz_job_witness_synthesize(j, i, &synth[i], &err) == CZ_OK);
    for (unsigned i = 0; i < n; i++) cz_job_witness_discard(j, i, synth[i], 0);
}

/* A unit of `inner` synthesized inside a unit of the outer job (two units
 * being synthesized), the thread marked all-cores or not; the threads the
 * inner fill was given. */
static unsigned given;
static cz_witness_job inner;
static int inner_all_cores;

static cz_status record(void *state, uint32_t unit, cz_witness *w, unsigned threads,
                        cz_error *err) {
    (void)state, (void)unit, (void)w, (void)err;
    given = threads;
    return CZ_OK;
}

static cz_status nest(void *state, uint32_t unit, cz_witness *w, unsigned threads, cz_error *err) {
    (void)state, (void)unit, (void)w, (void)threads;
    void *synth = NULL;
    cz_job_witness_all_cores(inner_all_cores);
    cz_status st = cz_job_witness_synthesize(&inner, 0, &synth, err);
    cz_job_witness_all_cores(0);
    if (st == CZ_OK) cz_job_witness_discard(&inner, 0, synth, 0);
    return st;
}

static unsigned threads_given(int all_cores) {
    cz_witness_job outer;
    cz_job_plan plan = {0};
    cz_witness_job_init(&outer, nest);
    cz_witness_job_init(&inner, record);
    cz_witness_job_plan(&outer, &plan, "outer", 1, 1000, 16);
    cz_witness_job_plan(&inner, &plan, "inner", 1, 1000, 16);
    inner_all_cores = all_cores;
    given = 0;
    void *synth = NULL;
    cz_error err = {0};
    CHECK(cz_job_witness_synthesize(&outer, 0, &synth, &err) == CZ_OK);
    cz_job_witness_discard(&outer, 0, synth, 0);
    cz_witness_job_free(&outer);
    cz_witness_job_free(&inner);
    return given;
}

int main(void) {
    cz_test_init("engine/test_witness_pool");
    cz_witness_job j;
    cz_job_plan plan = {0};
    cz_witness_job_init(&j, fill);
    cz_witness_job_plan(&j, &plan, "pool-test", 5, 1000, 16);
    CHECK(plan.units == 5 && plan.unit_bytes == 1000);

    /* two units in flight, three still to come: both buffers kept */
    round_of(&j, 2);
    CHECK(j.pooled == 2 && reused == 0);
    /* the next two reuse them; one unit still to come: kept */
    round_of(&j, 2);
    CHECK(reused == 2 && j.pooled == 2);
    /* the last unit reuses one, and the other is freed then: every unit
     * has taken its buffer, so none stays pooled */
    round_of(&j, 1);
    CHECK(reused == 3 && j.pooled == 0);
    /* a unit synthesized again (the engine's again_locked) gets a fresh
     * buffer and does not keep it */
    round_of(&j, 1);
    CHECK(reused == 3 && j.pooled == 0 && fills == 6);
    cz_witness_job_free(&j);

    /* 4 cores: a unit alone gets 4, one beside another 2, a CRITICAL one 4 */
    cz_thread_count_set(4);
    cz_witness_job lone;
    cz_witness_job_init(&lone, record);
    cz_witness_job_plan(&lone, &plan, "lone", 1, 1000, 16);
    void *synth = NULL;
    cz_error err = {0};
    CHECK(cz_job_witness_synthesize(&lone, 0, &synth, &err) == CZ_OK && given == 4);
    cz_job_witness_discard(&lone, 0, synth, 0);
    cz_witness_job_free(&lone);
    CHECK(threads_given(0) == 2);
    CHECK(threads_given(1) == 4);
    return cz_test_finish("engine/test_witness_pool");
}
