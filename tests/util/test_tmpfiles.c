/* cz_remove_stale_temporaries: a killed writer's PATH.tmp.PID goes once it
 * is old; a live writer's (this process), a fresh one (a writer of another
 * pid namespace may be at work), other names and other separators stay. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/harness.h"
#include "util/tmpfiles.h"

static void touch(const char *dir, const char *name, int age_s) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    fputs("partial", f);
    fclose(f);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age_s;
    t[1] = t[0];
    CHECK(utimensat(AT_FDCWD, p, t, 0) == 0);
}

static int exists(const char *dir, const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

int main(void) {
    cz_test_init("util/tmpfiles");
    char dir[] = "/tmp/cz-tmpfiles-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    pid_t dead = fork(); /* a pid that was a process and is no more */
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    char old_dead[64], new_dead[64], old_live[64], dash_dead[64], other[64];
    snprintf(old_dead, sizeof old_dead, "c.czc.tmp.%ld", (long)dead);
    snprintf(new_dead, sizeof new_dead, "d.czc.tmp.%ld", (long)dead);
    snprintf(old_live, sizeof old_live, "c.czc.tmp.%ld", (long)getpid());
    snprintf(dash_dead, sizeof dash_dead, "c.czc.tmp-%ld", (long)dead);
    snprintf(other, sizeof other, "c.czc.tmp.%ldx", (long)dead);
    touch(dir, "c.czc", 3600);
    touch(dir, old_dead, 3600);
    touch(dir, old_live, 3600);
    touch(dir, dash_dead, 3600);
    touch(dir, other, 3600);
    touch(dir, new_dead, 10);
    char path[4096];
    snprintf(path, sizeof path, "%s/c.czc", dir);
    CHECK(cz_remove_stale_temporaries(path, ".tmp.") == 1);
    CHECK(!exists(dir, old_dead));
    CHECK(exists(dir, "c.czc") && exists(dir, old_live) && exists(dir, dash_dead) &&
          exists(dir, other));
    snprintf(path, sizeof path, "%s/d.czc", dir);
    CHECK(cz_remove_stale_temporaries(path, ".tmp.") == 0 && exists(dir, new_dead));
    snprintf(path, sizeof path, "%s/c.czc", dir);
    CHECK(cz_remove_stale_temporaries(path, ".tmp-") == 1 && !exists(dir, dash_dead));
    const char *left[] = {"c.czc", old_live, other, new_dead};
    for (size_t i = 0; i < 4; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, left[i]);
        unlink(p);
    }
    CHECK(rmdir(dir) == 0);
    return cz_test_finish("util/tmpfiles");
}
