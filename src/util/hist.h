/* A duration histogram in eighth-octave buckets: constant memory for any
 * number of samples, the median within 1/16 of its value (the middle of a
 * bucket that spans 1/8 of an octave, kept between the smallest and the
 * largest sample), the count, total, minimum and maximum exact.
 * The engine keeps one per GPU step, so that a step's typical time shows
 * beside its mean (a few slow calls move the mean, not the median). */
#ifndef CZ_UTIL_HIST_H
#define CZ_UTIL_HIST_H

#include <stdint.h>

#define CZ_HIST_BUCKETS (8 * 64)

typedef struct {
    uint64_t count, total, min, max;
    uint32_t bucket[CZ_HIST_BUCKETS];
} cz_hist;

/* Zero-initialized is empty. */
void cz_hist_add(cz_hist *h, uint64_t value);

/* The middle of the bucket holding the lower median ((count + 1) / 2-th
 * smallest sample), clamped to [min, max]; 0 when empty. Values below 16
 * are exact. */
uint64_t cz_hist_median(const cz_hist *h);

#endif
