/* cz_engine_create when a worker thread cannot be started: every thread
 * that did start is joined before the engine is freed, whichever thread
 * failed (the synthesis workers and the critical lane, the prove workers, the finalizer, the
 * janitor or the SRS loader).
 *
 * pthread_create and pthread_join are wrapped at link time
 * (-Wl,--wrap=pthread_create,--wrap=pthread_join, tests/CMakeLists.txt):
 * the wrapper fails the Nth creation and counts the threads created and
 * joined, so the test compares two counts, not timings. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "engine/backend.h"
#include "harness/harness.h"

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __real_pthread_join(pthread_t t, void **ret);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_join(pthread_t t, void **ret);

static atomic_int calls, fail_at, created, joined;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    int n = atomic_fetch_add(&calls, 1) + 1;
    if (n == atomic_load(&fail_at)) return EAGAIN;
    int rc = __real_pthread_create(t, a, fn, arg);
    if (rc == 0) atomic_fetch_add(&created, 1);
    return rc;
}

int __wrap_pthread_join(pthread_t t, void **ret) {
    int rc = __real_pthread_join(t, ret);
    if (rc == 0) atomic_fetch_add(&joined, 1);
    return rc;
}

/* A back-end context that never proves: the engine only needs its info. */
static cz_status idle_start(cz_backend *b, cz_groth16_msm_results *out, const cz_backend_unit *u,
                            cz_error *err) {
    (void)b, (void)out, (void)u;
    return cz_error_set(err, CZ_E_INTERNAL, "idle back-end");
}
static const cz_backend_ops idle_ops = {.kind = "idle", .prove_start = idle_start};

static cz_status create(cz_engine **e, cz_error *err) {
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_budget_bytes = 1 << 20;
    cfg.synthesis_workers = 3;
    cfg.prove_workers = 2;
    cfg.param_cache = ".";
    cz_backend *b = calloc(1, sizeof *b);
    CHECK(b != NULL);
    cz_backend_init(b, &idle_ops, NULL, "idle");
    cfg.backends[0] = b;
    cfg.n_backends = 1;
    return cz_engine_create(e, &cfg, err);
}

int main(void) {
    cz_test_init("engine/engine_threads");
    /* How many threads a working engine starts. */
    atomic_store(&fail_at, 0);
    cz_engine *e = NULL;
    cz_error err = {0};
    CHECK(create(&e, &err) == CZ_OK);
    int total = atomic_load(&calls);
    printf("an engine starts %d threads\n", total);
    /* synthesis (and the critical lane), prove, finalizer + janitor + SRS loader */
    CHECK(total == 3 + 1 + 2 + 3);
    cz_engine_destroy(e);
    CHECK(atomic_load(&joined) == atomic_load(&created));
    /* Each one failing in turn. */
    for (int k = 1; k <= total; k++) {
        atomic_store(&calls, 0);
        atomic_store(&created, 0);
        atomic_store(&joined, 0);
        atomic_store(&fail_at, k);
        e = NULL;
        err = (cz_error){0};
        cz_status st = create(&e, &err);
        int c = atomic_load(&created), j = atomic_load(&joined);
        if (st == CZ_OK || e != NULL || c != k - 1 || j != c)
            printf("thread %d failing: status %s, %d created, %d joined\n", k, cz_status_name(st),
                   c, j);
        CHECK(st != CZ_OK && e == NULL);
        CHECK(strstr(err.message, "cannot start worker threads") != NULL);
        CHECK(c == k - 1);
        CHECK(j == c); /* none left running on a freed engine */
    }
    return cz_test_finish("engine/engine_threads");
}
