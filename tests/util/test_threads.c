/* cz_thread_count: the program's setting wins over $CZ_THREADS, which wins
 * over the online cores, and setting it leaves the environment alone (the
 * daemon's [synthesis] threads used to be a setenv at run time). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/harness.h"
#include "util/parallel.h"

int main(void) {
    cz_test_init("util/threads");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsetenv("CZ_THREADS");
    CHECK(cz_thread_count() == (unsigned)(cores > 0 ? cores : 1));
    setenv("CZ_THREADS", "3", 1);
    CHECK(cz_thread_count() == 3);
    cz_thread_count_set(5);
    CHECK(cz_thread_count() == 5);
    CHECK(!strcmp(getenv("CZ_THREADS"), "3")); /* not rewritten */
    unsetenv("CZ_THREADS");
    CHECK(cz_thread_count() == 5 && getenv("CZ_THREADS") == NULL);
    cz_thread_count_set(0); /* none: back to the environment, then the cores */
    CHECK(cz_thread_count() == (unsigned)(cores > 0 ? cores : 1));
    cz_thread_count_set(CZ_THREADS_MAX + 7);
    CHECK(cz_thread_count() == CZ_THREADS_MAX);
    cz_thread_count_set(0);
    return cz_test_finish("util/threads");
}
