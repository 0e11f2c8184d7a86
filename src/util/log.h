/* The one logger of every layer: lines on stderr,
 * "2026-11-29T23:10:00.123Z info  engine: job porep-1000-7 ...", each
 * written with a single write(2) so that lines of concurrent threads never
 * interleave. Levels error < warn < info < debug; lines above the current
 * level are dropped before they are formatted. The default is info; the
 * daemon sets [logging] level, CZ_LOG_LEVEL=debug|info|warn|error sets it
 * for any cuzk program at start.
 *
 * A write to stderr can block (a full pipe to a stalled reader), so code
 * that holds a lock other threads wait on logs after releasing it. */
#ifndef CZ_UTIL_LOG_H
#define CZ_UTIL_LOG_H

#include <stdarg.h>

typedef enum { CZ_LOG_ERROR = 0, CZ_LOG_WARN, CZ_LOG_INFO, CZ_LOG_DEBUG } cz_log_level;

#ifdef __cplusplus
extern "C" {
#endif

/* 0 on success, -1 for an unknown name ("error", "warn", "info", "debug"). */
int cz_log_set_level_name(const char *name);
void cz_log_set_level(cz_log_level level);
/* 1 when lines of this level are written. */
int cz_log_enabled(cz_log_level level);
void cz_log(cz_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cz_logv(cz_log_level level, const char *fmt, va_list ap);

#ifdef __cplusplus
}
#endif
#endif
