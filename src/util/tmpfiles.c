#include "util/tmpfiles.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

unsigned cz_remove_stale_temporaries(const char *path, const char *sep) {
    const char *slash = strrchr(path, '/');
    char dir[4096];
    const char *base = slash ? slash + 1 : path;
    if (slash) {
        size_t n = (size_t)(slash - path);
        if (n >= sizeof dir) return 0;
        memcpy(dir, path, n);
        dir[n] = 0;
        if (!n) snprintf(dir, sizeof dir, "/");
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    size_t blen = strlen(base), slen = strlen(sep);
    DIR *d = opendir(dir);
    if (!d) return 0;
    unsigned removed = 0;
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *name = e->d_name;
        if (strncmp(name, base, blen) != 0 || strncmp(name + blen, sep, slen) != 0) continue;
        const char *digits = name + blen + slen;
        if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9)
            continue;
        long pid = strtol(digits, NULL, 10);
        if (pid <= 0 || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to ask */
        char full[8192];
        if (snprintf(full, sizeof full, "%s/%s", dir, name) >= (int)sizeof full) continue;
        struct stat sb;
        if (lstat(full, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        if (now - sb.st_mtime < CZ_STALE_TMP_SECONDS) continue;
        if (unlink(full) == 0) removed++;
    }
    closedir(d);
    return removed;
}
