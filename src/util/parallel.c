#include "util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* $CZ_THREADS: 0 when unset or empty, -1 when not a number in
 * 1..CZ_THREADS_MAX, else the number. Digits only: no sign, no space. */
static long threads_env(const char **text) {
    const char *env = getenv("CZ_THREADS");
    *text = env;
    if (!env || !*env) return 0;
    long v = 0;
    for (const char *p = env; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > CZ_THREADS_MAX) return -1;
    }
    return v >= 1 ? v : -1;
}

static atomic_uint thread_count_setting;

void cz_thread_count_set(unsigned n) {
    atomic_store(&thread_count_setting, n > CZ_THREADS_MAX ? CZ_THREADS_MAX : n);
}

unsigned cz_thread_count(void) {
    unsigned set = atomic_load(&thread_count_setting);
    if (set) return set;
    const char *text;
    long v = threads_env(&text);
    if (v > 0) return (unsigned)v;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

cz_status cz_thread_env_check(cz_error *err) {
    const char *text;
    if (threads_env(&text) >= 0) return CZ_OK;
    return cz_error_set(err, CZ_E_INVALID_ARG,
                        "CZ_THREADS='%s': expected a number of threads from 1 to %d (unset it "
                        "to use every core)",
                        text, CZ_THREADS_MAX);
}

typedef struct {
    cz_parallel_fn fn;
    void *ctx;
    size_t n, grain;
    atomic_size_t next;
} loop_state;

typedef struct {
    loop_state *state;
    unsigned worker;
} loop_worker;

static void *run_chunks(void *arg) {
    loop_worker *w = arg;
    loop_state *s = w->state;
    for (;;) {
        size_t begin = atomic_fetch_add(&s->next, s->grain);
        if (begin >= s->n) break;
        size_t end = begin + s->grain < s->n ? begin + s->grain : s->n;
        s->fn(s->ctx, begin, end, w->worker);
    }
    return NULL;
}

static _Thread_local unsigned thread_limit;

void cz_parallel_set_thread_limit(unsigned n) {
    thread_limit = n;
}

void cz_parallel_for(size_t n, size_t grain, cz_parallel_fn fn, void *ctx) {
    if (n == 0) return;
    unsigned threads = cz_thread_count();
    if (thread_limit && thread_limit < threads) threads = thread_limit;
    if (grain == 0) grain = (n + threads - 1) / threads;
    size_t chunks = (n + grain - 1) / grain;
    if (chunks < threads) threads = (unsigned)chunks;
    if (threads <= 1) {
        for (size_t b = 0; b < n; b += grain) fn(ctx, b, b + grain < n ? b + grain : n, 0);
        return;
    }
    loop_state state = {.fn = fn, .ctx = ctx, .n = n, .grain = grain};
    atomic_init(&state.next, 0);
    pthread_t tids[threads];
    loop_worker workers[threads];
    unsigned started = 1;
    for (unsigned t = 0; t < threads; t++) workers[t] = (loop_worker){&state, t};
    for (unsigned t = 1; t < threads; t++) {
        /* A thread that cannot start is not an error: the others take its
         * chunks, since chunks are handed out dynamically. */
        if (pthread_create(&tids[t], NULL, run_chunks, &workers[t]) != 0) break;
        started++;
    }
    run_chunks(&workers[0]);
    for (unsigned t = 1; t < started; t++) pthread_join(tids[t], NULL);
}

void cz_advise_huge_pages(void *p, size_t bytes) {
    const uintptr_t huge = (uintptr_t)2 << 20;
    const uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (p && bytes >= CZ_HUGE_PAGES_MIN && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

void cz_huge_pages_mode(char *out, size_t size) {
    if (!size) return;
    out[0] = 0;
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return;
    char line[128] = {0};
    if (fgets(line, sizeof line, f)) {
        const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b && (size_t)(b - a) <= size) {
            memcpy(out, a + 1, (size_t)(b - a - 1));
            out[b - a - 1] = 0;
        }
    }
    fclose(f);
}

uint64_t cz_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void read_field(const char *path, const char *key, char *out, size_t out_size) {
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
        const char *v = strchr(line, ':');
        if (!v) continue;
        v++;
        while (*v == ' ' || *v == '\t') v++;
        snprintf(out, out_size, "%s", v);
        out[strcspn(out, "\n")] = 0;
        break;
    }
    fclose(f);
}

void cz_machine_describe(char *out, size_t out_size) {
    char model[256], mem[64];
    read_field("/proc/cpuinfo", "model name", model, sizeof model);
    read_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(out, out_size, "cpu: %s; cores: %ld; threads used: %u; memory: %s",
             model[0] ? model : "unknown", cores, cz_thread_count(), mem[0] ? mem : "unknown");
}

uint64_t cz_peak_rss_bytes(void) {
    char hwm[64];
    read_field("/proc/self/status", "VmHWM", hwm, sizeof hwm);
    return (uint64_t)strtoull(hwm, NULL, 10) * 1024u;
}
