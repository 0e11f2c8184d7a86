/* Cancellation and preemption of long computations at their step
 * boundaries: a thread names a flag (the engine's prove worker names its
 * job's cancel flag around prove_start) and, optionally, a boundary hook
 * (the prove worker's: it proves a waiting higher-priority unit there), and
 * code running on that thread calls cz_step_boundary where stopping is
 * cheap (the provers, between their NTT chain and MSMs). Both are per
 * thread, so nothing below needs a parameter for them; work that a
 * parallel loop spreads over other threads is polled by the thread that
 * started it, between loops. */
#ifndef CZ_UTIL_CANCEL_H
#define CZ_UTIL_CANCEL_H

#ifdef __cplusplus
/* CUDA code (src/gpu) calls the boundary only; the flag is C11's atomic_int */
extern "C" {
#else
#include <stdatomic.h>

/* The calling thread's flag (NULL: none, never cancelled). */
void cz_cancel_set_flag(const atomic_int *flag);
/* The flag cz_cancel_set_flag last named on the calling thread. */
const atomic_int *cz_cancel_flag(void);
#endif

/* 1 when the calling thread's flag is set. */
int cz_cancel_requested(void);

/* The calling thread's boundary hook (NULL: none). It runs with no lock of
 * the caller's held, between two steps whose state the caller keeps, so it
 * may run other work on the thread (another unit, on the same device) as
 * long as it leaves that state alone and restores the thread's flag. */
typedef void (*cz_boundary_hook)(void *ctx);
void cz_boundary_set_hook(cz_boundary_hook hook, void *ctx);

/* A step boundary: runs the thread's hook, if any (the hook is unset while
 * it runs, so work run inside meets no hook of its own), then returns
 * cz_cancel_requested(). */
int cz_step_boundary(void);

#ifdef __cplusplus
}
#endif
#endif
