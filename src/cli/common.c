/* Helpers every command shares: option values, whole files, directories,
 * the one-line failure message, elapsed time. They depend on src/util
 * only, so the standalone bench gpu (scripts/gpu-check.sh) links them
 * too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "util/parallel.h"

int cz_cli_parse_u64(const char *text, uint64_t *out) {
    if (text[0] < '0' || text[0] > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

cz_status cz_cli_read_file(uint8_t **data, size_t *len, const char *path, size_t max,
                           cz_error *err) {
    *data = NULL, *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return cz_error_set(err, CZ_E_IO, "cannot open '%s': %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    cz_status st = CZ_OK;
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                st = cz_error_set(err, CZ_E_PARSE, "'%s' is larger than %zu bytes", path, max);
                break;
            }
            size_t next = cap ? 2 * cap : 1 << 16;
            uint8_t *grown = realloc(buf, next);
            if (!grown) {
                st = cz_error_set(err, CZ_E_NOMEM, "out of memory reading '%s'", path);
                break;
            }
            buf = grown, cap = next;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    if (st == CZ_OK && ferror(f))
        st = cz_error_set(err, CZ_E_IO, "cannot read '%s': %s", path, strerror(errno));
    if (st == CZ_OK && n > max)
        st = cz_error_set(err, CZ_E_PARSE, "'%s' is larger than %zu bytes", path, max);
    fclose(f);
    if (st != CZ_OK) {
        free(buf);
        return st;
    }
    *data = buf, *len = n;
    return CZ_OK;
}

int cz_cli_is_help(const char *arg) {
    return !strcmp(arg, "--help") || !strcmp(arg, "-h") || !strcmp(arg, "help");
}

int cz_cli_fail(const char *cmd, const cz_error *err) {
    fprintf(stderr, "cuzk %s: %s\n", cmd, err->message);
    return 1;
}

double cz_cli_seconds_since(uint64_t t0) {
    return (double)(cz_now_ns() - t0) / 1e9;
}

int cz_cli_is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

cz_status cz_cli_make_dir(const char *path, cz_error *err) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return cz_error_set(err, CZ_E_INVALID_ARG, "directory name too long");
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(buf, 0755);
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && !cz_cli_is_dir(buf))
        return cz_error_set(err, CZ_E_IO, "cannot create directory '%s': %s", path,
                            strerror(errno));
    return CZ_OK;
}
