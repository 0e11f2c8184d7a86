/* util/hist: the median of random samples (uniform, log-uniform, skewed
 * with outliers) against the exact median of the sorted samples, within
 * the bucket's 1/16 and never outside the samples' range; count, total,
 * minimum and maximum exact; small values exact. */
#include <stdint.h>
#include <stdlib.h>

#include "harness/harness.h"
#include "util/hist.h"

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_against_sorted(uint64_t *v, size_t n) {
    cz_hist h = {0};
    uint64_t total = 0, min = UINT64_MAX, max = 0;
    for (size_t i = 0; i < n; i++) {
        cz_hist_add(&h, v[i]);
        total += v[i];
        if (v[i] < min) min = v[i];
        if (v[i] > max) max = v[i];
    }
    qsort(v, n, sizeof *v, cmp_u64);
    const uint64_t exact = v[(n + 1) / 2 - 1], got = cz_hist_median(&h);
    CHECK(h.count == n && h.total == total && h.min == min && h.max == max);
    CHECK(got >= min && got <= max);
    const uint64_t diff = got > exact ? got - exact : exact - got;
    CHECK(diff * 16 <= exact || (exact < 16 && diff == 0));
    if (diff * 16 > exact)
        fprintf(stderr, "median %llu, exact %llu (n %zu)\n", (unsigned long long)got,
                (unsigned long long)exact, n);
}

int main(void) {
    cz_test_init("util/test_hist");
    cz_hist empty = {0};
    CHECK(cz_hist_median(&empty) == 0);
    /* small values are exact */
    for (uint64_t v = 0; v < 16; v++) {
        cz_hist h = {0};
        cz_hist_add(&h, v);
        CHECK(cz_hist_median(&h) == v);
    }
    /* one sample, or all alike, in the lower half of its bucket: the
     * bucket's middle would be above every sample */
    for (uint64_t v = 1000; v < 1100; v += 7) {
        cz_hist h = {0};
        for (int k = 0; k < 3; k++) cz_hist_add(&h, v);
        CHECK(cz_hist_median(&h) == v);
    }
    enum { N = 2001 };
    uint64_t *v = malloc(N * sizeof *v);
    CHECK(v != NULL);
    for (int round = 0; round < 200 && v; round++) {
        const size_t n = 1 + cz_test_rand64() % N;
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = cz_test_rand64();
            switch (round % 4) {
            case 0: v[i] = r % 1000000000ull; break; /* uniform up to 1 s in ns */
            case 1: v[i] = r >> (r % 64); break;     /* log-uniform, to 2^64 */
            case 2: v[i] = i % 10 ? 100000000 + r % 9999 : r % (1ull << 40); break; /* outliers */
            default: v[i] = r % 40; break; /* the exact range and above */
            }
        }
        check_against_sorted(v, n);
    }
    free(v);
    return cz_test_finish("util/test_hist");
}
