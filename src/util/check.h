/* Invariants: conditions only a bug in cuzk can break (never bad input, a
 * full disk or a failing device, which are errors with a status).
 *
 *   CZ_ASSERT(cond)   in checked builds (debug, or the sanitizer build:
 *                     CZ_CHECKED) a false cond aborts at once with the
 *                     place and the condition; release builds do not
 *                     evaluate it.
 *   CZ_BROKEN(err, fmt, ...)
 *                     where release code must still answer (a caller waits
 *                     for a status): checked builds abort with the message
 *                     and the place; release builds record the message in
 *                     err and evaluate to CZ_E_INTERNAL, so
 *                     `return CZ_BROKEN(err, "wrote %zu of %zu", a, b);`.
 * The tests run in both builds (make test, make test-asan), so a broken
 * invariant stops the sanitizer run where it breaks instead of surfacing
 * later as an INTERNAL status. */
#ifndef CZ_UTIL_CHECK_H
#define CZ_UTIL_CHECK_H

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(NDEBUG) && !defined(CZ_CHECKED)
#define CZ_CHECKED 1
#endif

/* Logs "invariant broken at file:line (func): what" and aborts. */
void cz_check_failed(const char *file, int line, const char *func, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#ifdef CZ_CHECKED
#define CZ_ASSERT(cond)                                                                            \
    ((cond) ? (void)0 : cz_check_failed(__FILE__, __LINE__, __func__, "%s", #cond))
#define CZ_BROKEN(err, ...) (cz_check_failed(__FILE__, __LINE__, __func__, __VA_ARGS__), CZ_E_INTERNAL)
#else
#define CZ_ASSERT(cond) ((void)0)
#define CZ_BROKEN(err, ...) cz_error_set(err, CZ_E_INTERNAL, __VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif
#endif
