/* Plain log lines on stderr: "2026-11-29T23:10:00.123Z INFO  message". */
#ifndef CZ_DAEMON_LOG_H
#define CZ_DAEMON_LOG_H

typedef enum { CZ_LOG_ERROR = 0, CZ_LOG_WARN, CZ_LOG_INFO, CZ_LOG_DEBUG } cz_log_level;

/* 0 on success, -1 for an unknown name. */
int cz_log_set_level_name(const char *name);
void cz_log(cz_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
