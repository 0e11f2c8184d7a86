#include "util/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *names[] = {"error", "warn", "info", "debug"};
static atomic_int current = CZ_LOG_INFO;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* CZ_LOG_LEVEL, read once, before the first line (a program's setting
 * made later, such as the daemon's [logging] level, wins). */
static int level_of(const char *name) {
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

static void read_env(void) {
    const char *v = getenv("CZ_LOG_LEVEL");
    int l = v ? level_of(v) : -1;
    if (l >= 0) atomic_store(&current, l);
}

int cz_log_set_level_name(const char *name) {
    pthread_once(&env_once, read_env);
    int l = level_of(name);
    if (l < 0) return -1;
    atomic_store(&current, l);
    return 0;
}

void cz_log_set_level(cz_log_level level) {
    pthread_once(&env_once, read_env);
    atomic_store(&current, (int)level);
}

int cz_log_enabled(cz_log_level level) {
    pthread_once(&env_once, read_env);
    return (int)level <= atomic_load(&current);
}

void cz_logv(cz_log_level level, const char *fmt, va_list ap) {
    if (!cz_log_enabled(level)) return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char line[2048];
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %-5s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     (int)(tv.tv_usec / 1000), names[level]);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2) len = sizeof line - 2; /* truncated: keep the start */
    line[len++] = '\n';
    for (size_t off = 0; off < len;) {
        ssize_t w = write(STDERR_FILENO, line + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
}

void cz_log(cz_log_level level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cz_logv(level, fmt, ap);
    va_end(ap);
}
