/* Cancellation of long computations at their step boundaries: a thread
 * names a flag (the engine's prove worker names its job's cancel flag
 * around prove_start), and code running on that thread polls it where
 * stopping is cheap (the provers, between their NTT chain and MSMs). The
 * flag is per thread, so nothing below needs a parameter for it; work that
 * a parallel loop spreads over other threads is polled by the thread that
 * started it, between loops. */
#ifndef CZ_UTIL_CANCEL_H
#define CZ_UTIL_CANCEL_H

#include <stdatomic.h>

/* The calling thread's flag (NULL: none, never cancelled). */
void cz_cancel_set_flag(const atomic_int *flag);

/* 1 when the calling thread's flag is set. */
int cz_cancel_requested(void);

#endif
