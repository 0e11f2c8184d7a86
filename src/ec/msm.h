/* Multi-scalar multiplication on the CPU, for G1 and G2.
 *
 * cz_g?_msm computes sum_i scalars[i] * points[i] with Pippenger's bucket
 * method: signed window digits (so only 2^(c-1) buckets a window), a window
 * size c chosen from n, affine buckets filled by batches of additions that
 * share one inversion, an XYZZ running sum over the buckets, and the work
 * split over all cores (cz_parallel_for) by window and by point range.
 * Infinity points and zero scalars are allowed. Variable time.
 *
 * The fixed-base variant multiplies one base by many scalars from a table of
 * precomputed multiples (parameter generation needs this), using additions
 * only. */
#ifndef CZ_EC_MSM_H
#define CZ_EC_MSM_H

#include "cuzk/status.h"
#include "ec/point.h"

/* Returns CZ_E_NOMEM when scratch memory cannot be had (n * 40 bytes plus
 * buckets); out is then untouched. */
cz_status cz_g1_msm(cz_g1 *out, const cz_g1_affine *points, const cz_fr *scalars, size_t n);
cz_status cz_g2_msm(cz_g2 *out, const cz_g2_affine *points, const cz_fr *scalars, size_t n);

/* The window the MSM picks for n points (exposed for benchmarks and tests). */
unsigned cz_msm_window_bits(size_t n, int g2);

/* Fixed-base tables: for a base B, entries d * 2^(8j) * B for digits
 * d = 1..128 and windows j = 0..31, in affine form (4096 points). */
#define CZ_FIXED_BASE_WINDOWS 32
#define CZ_FIXED_BASE_DIGITS 128
typedef struct {
    cz_g1_affine entry[CZ_FIXED_BASE_WINDOWS][CZ_FIXED_BASE_DIGITS];
} cz_g1_fixed_base;
typedef struct {
    cz_g2_affine entry[CZ_FIXED_BASE_WINDOWS][CZ_FIXED_BASE_DIGITS];
} cz_g2_fixed_base;

cz_status cz_g1_fixed_base_init(cz_g1_fixed_base *table, const cz_g1 *base);
cz_status cz_g2_fixed_base_init(cz_g2_fixed_base *table, const cz_g2 *base);
/* out[i] = scalars[i] * base for i < n, in affine form, over all cores. */
cz_status cz_g1_fixed_base_mul(cz_g1_affine *out, const cz_g1_fixed_base *table,
                               const cz_fr *scalars, size_t n);
cz_status cz_g2_fixed_base_mul(cz_g2_affine *out, const cz_g2_fixed_base *table,
                               const cz_fr *scalars, size_t n);

#endif
