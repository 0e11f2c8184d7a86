#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static cz_log_level current = CZ_LOG_INFO;
static const char *names[] = {"error", "warn", "info", "debug"};

int cz_log_set_level_name(const char *name) {
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, names[i])) {
            current = (cz_log_level)i;
            return 0;
        }
    return -1;
}

void cz_log(cz_log_level level, const char *fmt, ...) {
    if (level > current) return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char line[2048];
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %-5s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     (int)(tv.tv_usec / 1000), names[level]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line so that concurrent lines do not interleave. */
    fprintf(stderr, "%s\n", line);
}
