#include "util/hist.h"

/* Values below 16 have buckets of their own; above, bucket 8 * e + s holds
 * [(8 + s) << (e - 3), (9 + s) << (e - 3)) for the top bit e >= 4 and the
 * next three bits s. */
static unsigned bucket_of(uint64_t v) {
    if (v < 16) return (unsigned)v;
    const unsigned e = 63u - (unsigned)__builtin_clzll(v);
    return 8 * e + (unsigned)((v >> (e - 3)) & 7);
}

void cz_hist_add(cz_hist *h, uint64_t value) {
    if (!h->count++ || value < h->min) h->min = value;
    h->total += value;
    if (value > h->max) h->max = value;
    h->bucket[bucket_of(value)]++;
}

uint64_t cz_hist_median(const cz_hist *h) {
    if (!h->count) return 0;
    const uint64_t rank = (h->count + 1) / 2;
    uint64_t seen = 0;
    unsigned b = 0;
    while (b < CZ_HIST_BUCKETS - 1 && (seen += h->bucket[b]) < rank) b++;
    if (b < 16) return b;
    const unsigned e = b / 8, s = b % 8;
    const uint64_t lo = (uint64_t)(8 + s) << (e - 3), width = (uint64_t)1 << (e - 3);
    const uint64_t mid = lo + width / 2;
    return mid < h->min ? h->min : mid > h->max ? h->max : mid;
}
