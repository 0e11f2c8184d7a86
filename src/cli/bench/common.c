/* What the benchmarks share: timings sorted and their medians. Only libc:
 * the standalone bench gpu (scripts/gpu-check.sh) links it too. */
#include <stdlib.h>

#include "cli/bench/bench.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cz_bench_sort(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
}

double cz_bench_median(double *v, size_t n) {
    cz_bench_sort(v, n);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
