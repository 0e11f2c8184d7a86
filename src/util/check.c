/* Invariant failures (check.h). */
#include "util/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/log.h"

void cz_check_failed(const char *file, int line, const char *func, const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    cz_log(CZ_LOG_ERROR, "invariant broken at %s:%d (%s): %s", file, line, func, what);
    abort();
}
