/* Output files of the CLI: checked before the work, replaced atomically
 * after it (commands.h, cz_cli_out). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"

/* The temporary file being written, removed if a signal ends the process
 * first (Ctrl-C during a proof leaves no PATH.tmp-PID behind). One at a time:
 * the CLI writes one output file per command. */
static char pending_tmp[4096];
static volatile sig_atomic_t pending;

static void remove_pending(int sig) {
    if (pending) unlink(pending_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track(const char *tmp) {
    pending = 0;
    if (!tmp[0]) return;
    snprintf(pending_tmp, sizeof pending_tmp, "%s", tmp);
    pending = 1;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_pending;
        sigemptyset(&sa.sa_mask);
        /* leave a signal alone that the caller ignores (nohup) */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

cz_status cz_cli_out_open(cz_cli_out *out, const char *path, cz_error *err) {
    memset(out, 0, sizeof *out);
    if (!path[0]) return cz_error_set(err, CZ_E_INVALID_ARG, "empty output path");
    if (snprintf(out->path, sizeof out->path, "%s", path) >= (int)sizeof out->path)
        return cz_error_set(err, CZ_E_INVALID_ARG, "output path too long");
    struct stat sb;
    int fd;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return cz_error_set(err, CZ_E_IO, "cannot write '%s': it is a directory", path);
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        /* a device or a FIFO: never rename over it */
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return cz_error_set(err, CZ_E_IO, "cannot write '%s': %s", path, strerror(errno));
    } else {
        if (snprintf(out->tmp, sizeof out->tmp, "%s.tmp-%ld", path, (long)getpid()) >=
            (int)sizeof out->tmp)
            return cz_error_set(err, CZ_E_INVALID_ARG, "output path too long");
        fd = open(out->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            int e = errno;
            out->tmp[0] = 0;
            return cz_error_set(err, CZ_E_IO, "cannot create '%s': %s", path, strerror(e));
        }
    }
    out->file = fdopen(fd, "wb");
    if (!out->file) {
        int e = errno;
        close(fd);
        cz_cli_out_abort(out);
        return cz_error_set(err, CZ_E_IO, "cannot open '%s': %s", path, strerror(e));
    }
    track(out->tmp);
    return CZ_OK;
}

cz_status cz_cli_out_commit(cz_cli_out *out, cz_error *err) {
    FILE *f = out->file;
    out->file = NULL;
    int bad = !f || fflush(f) != 0 || ferror(f);
    int e = errno;
    if (f && !bad && out->tmp[0] && fsync(fileno(f)) != 0) bad = 1, e = errno;
    if (f && fclose(f) != 0 && !bad) bad = 1, e = errno;
    if (!bad && out->tmp[0] && rename(out->tmp, out->path) != 0) bad = 1, e = errno;
    if (bad) {
        cz_cli_out_abort(out);
        return cz_error_set(err, CZ_E_IO, "cannot write '%s': %s", out->path, strerror(e));
    }
    out->tmp[0] = 0;
    pending = 0;
    return CZ_OK;
}

void cz_cli_out_abort(cz_cli_out *out) {
    if (out->file) fclose(out->file);
    out->file = NULL;
    if (out->tmp[0]) unlink(out->tmp);
    out->tmp[0] = 0;
    pending = 0;
}
