/* Fork-join parallel loops over all cores, and small system helpers. */
#ifndef CZ_UTIL_PARALLEL_H
#define CZ_UTIL_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#define CZ_THREADS_MAX 4096

/* Worker threads to use: the program's setting (cz_thread_count_set), else
 * $CZ_THREADS when it is a decimal number in 1..CZ_THREADS_MAX, else the
 * online cores. Always >= 1. */
unsigned cz_thread_count(void);

/* The program's own thread count (the daemon's [synthesis] threads), which
 * wins over $CZ_THREADS; 0 = none. The environment is left alone: setenv
 * while other threads may read it is not safe. */
void cz_thread_count_set(unsigned n);

/* CZ_OK when $CZ_THREADS is unset, empty or a decimal number in
 * 1..CZ_THREADS_MAX; else CZ_E_INVALID_ARG with a message quoting the value.
 * Programs call it once at start so that a mistyped value is an error, not
 * the silent all-cores default of cz_thread_count. */
cz_status cz_thread_env_check(cz_error *err);

/* fn(ctx, begin, end, worker) is called on disjoint chunks [begin, end) that
 * together cover [0, n), each at most `grain` long (grain 0 means "split n
 * evenly over the threads"). worker < cz_thread_count() identifies the
 * thread, so fn may index per-thread scratch with it. Returns when all chunks
 * are done. The calling thread takes part as worker 0. */
typedef void (*cz_parallel_fn)(void *ctx, size_t begin, size_t end, unsigned worker);
void cz_parallel_for(size_t n, size_t grain, cz_parallel_fn fn, void *ctx);

/* Caps the threads of the calling thread's cz_parallel_for loops at n (0 =
 * no cap): a prove worker of a back-end context uses it for [gpus]
 * gpu_threads. Worker indices stay below cz_thread_count(). */
void cz_parallel_set_thread_limit(unsigned n);

/* Asks for transparent huge pages over the 2 MiB-aligned part of [p, p +
 * bytes), before its pages are touched, when bytes is CZ_HUGE_PAGES_MIN or
 * more (a no-op below, or where the kernel has them off): a multi-GB
 * buffer then faults in and is unmapped in 2 MiB steps, not 4 KiB ones.
 * Smaller buffers (a WinningPoSt witness: 12 MB) fault in quickly anyway,
 * and on a fragmented host a huge page can wait for the kernel to compact
 * memory. */
#define CZ_HUGE_PAGES_MIN ((size_t)64 << 20)
void cz_advise_huge_pages(void *p, size_t bytes);

/* The kernel's transparent huge page mode into out: "always", "madvise"
 * (both honour cz_advise_huge_pages), "never", or "" when unknown. */
void cz_huge_pages_mode(char *out, size_t size);

/* Monotonic clock in nanoseconds. */
uint64_t cz_now_ns(void);

/* One line describing the machine: CPU model, cores, memory. */
void cz_machine_describe(char *out, size_t out_size);

/* Peak resident set size of this process in bytes (VmHWM), 0 if unknown. */
uint64_t cz_peak_rss_bytes(void);

#endif
