/* Evaluation domains of size m = 2^k over Fr and the number-theoretic
 * transform (NTT) on them, as bellperson defines them for Groth16:
 *
 *   omega  = ROOT_OF_UNITY^(2^(32-k)), ROOT_OF_UNITY = 7^((r-1)/2^32)
 *   g      = 7 (coset shift); constraint j <-> domain point omega^j.
 *
 * Transforms, for x of m elements (all sums over 0 <= i < m):
 *   forward        X[j] = sum_i x[i] omega^(ij)          (coefficients -> values on H)
 *   inverse        x[i] = m^-1 sum_j X[j] omega^(-ij)     (values on H -> coefficients)
 *   coset forward  X[j] = sum_i x[i] (g omega^j)^i        (coefficients -> values on gH)
 *   coset inverse  x[i] = g^-i m^-1 sum_j X[j] omega^(-ij) (values on gH -> coefficients)
 *
 * Orders: an array is in natural order when position p holds element p, and
 * in bit-reversed order when position p holds element rev_k(p) (the k-bit
 * reversal of p). Natural-in/natural-out transforms exist for everything;
 * the NR (natural in, bit-reversed out; decimation in frequency) and RN
 * (bit-reversed in, natural out; decimation in time) variants let a chain of
 * transforms skip the reorder pass: iNTT(NR) then coset NTT(RN) takes values
 * on H to values on gH with no permutation at all.
 *
 * Memory: the domain owns cz_ntt_domain_table_bytes(k) bytes of tables
 * (5 MiB for k = 27, 2.5 MiB for k = 22: two stage-twiddle tables of
 * 2^min(k, 15) entries and four power tables of about 2 sqrt(m) entries).
 * Each transform allocates, for its duration, about 1.75 MiB of scratch per
 * worker thread plus, for a coset transform with the scaling on its
 * bit-reversed side, 2 MiB of leaf factors. The data is transformed in place.
 *
 * Threads: every transform runs over all cores through cz_parallel_for. A
 * domain is read-only after init (set_blocking aside), so any number of
 * transforms may run on one domain concurrently. Everything here is
 * variable-time in the sizes only; no branch depends on the data. */
#ifndef CZ_POLY_NTT_H
#define CZ_POLY_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"

#define CZ_NTT_MAX_LOG_SIZE 32 /* the 2-adicity of r - 1 */
/* Largest leaf (in-cache) transform; the per-stage twiddle tables have
 * 2^min(k, CZ_NTT_LEAF_LOG_MAX) entries per direction. */
#define CZ_NTT_LEAF_LOG_MAX 15

/* Powers b^e of a fixed b for 0 <= e < 2^log_size, stored in two tables of
 * about 2^(log_size/2) entries: b^e = high[e >> low_bits] * low[e & (2^low_bits - 1)]. */
typedef struct {
    const cz_fr *low;  /* b^i, i < 2^low_bits */
    const cz_fr *high; /* b^(i * 2^low_bits), i < 2^(log_size - low_bits) */
    unsigned low_bits;
} cz_ntt_powers;

typedef struct {
    unsigned log_size;         /* k, 0..32 */
    size_t size;               /* m = 2^k */
    cz_fr omega;               /* primitive m-th root of unity (bellperson's) */
    cz_fr omega_inv;           /* omega^-1 */
    cz_fr size_inv;            /* m^-1 */
    cz_fr gen;                 /* g = 7, the coset shift */
    cz_fr gen_inv;             /* g^-1 */
    cz_fr coset_vanishing_inv; /* (g^m - 1)^-1: Z(x) = x^m - 1 is this constant's inverse on gH */

    /* Blocking (see cz_ntt_domain_set_blocking): transforms of at most
     * 2^leaf_log elements run stage by stage in cache; larger ones are split
     * into 2^s1 x 2^(s - s1) with s1 <= column_log. */
    unsigned leaf_log;
    unsigned column_log;

    /* [0] forward (omega), [1] inverse (omega^-1). Entry h + j of
     * stage_twiddles[dir] is w_2h^j (w_2h the primitive 2h-th root from
     * omega^(+-1)) for every power of two h < 2^min(k, CZ_NTT_LEAF_LOG_MAX)
     * and 0 <= j < h; entry 0 is unused. */
    const cz_fr *stage_twiddles[2];
    cz_ntt_powers roots[2]; /* omega^e, omega^-e */
    cz_ntt_powers coset[2]; /* g^e, g^-e */

    cz_fr *tables; /* the one allocation behind all tables above */
    size_t table_bytes;
} cz_ntt_domain;

typedef enum {
    CZ_NTT_NN, /* natural in, natural out */
    CZ_NTT_NR, /* natural in, bit-reversed out */
    CZ_NTT_RN  /* bit-reversed in, natural out */
} cz_ntt_order;

typedef enum { CZ_NTT_FORWARD, CZ_NTT_INVERSE } cz_ntt_direction;

typedef enum {
    CZ_NTT_PLAIN, /* on H = {omega^j} */
    CZ_NTT_COSET  /* on gH = {g omega^j}: coefficient i scaled by g^i (forward) or g^-i (inverse) */
} cz_ntt_kind;

/* Bytes of tables a domain of size 2^log_size allocates (0 if log_size > 32). */
size_t cz_ntt_domain_table_bytes(unsigned log_size);

/* Builds the domain of size 2^log_size (log_size <= 32; up to 2^28 or so is
 * practical in memory). On failure *d is left freed (cz_ntt_domain_free is
 * harmless on it). */
cz_status cz_ntt_domain_init(cz_ntt_domain *d, unsigned log_size, cz_error *err);
void cz_ntt_domain_free(cz_ntt_domain *d);

/* Changes the blocking: 1 <= leaf_log <= CZ_NTT_LEAF_LOG_MAX and
 * 1 <= column_log <= leaf_log. Results do not depend on it (tests lower it to
 * reach the multi-level paths on small sizes); the defaults suit a core with
 * >= 1 MiB of L2. Not thread-safe against transforms running on d. */
cz_status cz_ntt_domain_set_blocking(cz_ntt_domain *d, unsigned leaf_log, unsigned column_log,
                                     cz_error *err);

/* The general transform of d->size elements in place. Fails only with
 * CZ_E_NOMEM (scratch) or CZ_E_INVALID_ARG (bad enum). */
cz_status cz_ntt_transform(const cz_ntt_domain *d, cz_fr *data, cz_ntt_order order,
                           cz_ntt_direction direction, cz_ntt_kind kind, cz_error *err);

/* Natural-order shorthands for cz_ntt_transform(d, data, CZ_NTT_NN, ...). */
cz_status cz_ntt_forward(const cz_ntt_domain *d, cz_fr *data, cz_error *err);
cz_status cz_ntt_inverse(const cz_ntt_domain *d, cz_fr *data, cz_error *err);
cz_status cz_ntt_coset_forward(const cz_ntt_domain *d, cz_fr *data, cz_error *err);
cz_status cz_ntt_coset_inverse(const cz_ntt_domain *d, cz_fr *data, cz_error *err);

/* Swaps data[p] and data[rev_k(p)] for all p (an involution), cache-blocked
 * and parallel. */
void cz_ntt_bit_reverse(cz_fr *data, unsigned log_size);

/* a[i] = (a[i] * b[i] - c[i]) * (g^m - 1)^-1 for i < m, in parallel: the
 * division by the vanishing polynomial on the coset. Order-agnostic. */
void cz_ntt_coset_quotient(const cz_ntt_domain *d, cz_fr *a, const cz_fr *b, const cz_fr *c);

/* The Groth16 H polynomial (bellperson's execute_fft): a, b, c hold the
 * evaluations of A, B, C on H in natural order (constraint j at omega^j,
 * zero-padded to m). On return a holds the m coefficients of
 * H = (A B - C) / (x^m - 1) in natural order (computed on the coset, so it is
 * the exact quotient when a[j] b[j] = c[j] for all j, and then a[m - 1] = 0);
 * b and c are clobbered. Seven transforms, one permutation, no other pass. */
cz_status cz_ntt_groth16_h(const cz_ntt_domain *d, cz_fr *a, cz_fr *b, cz_fr *c, cz_error *err);

#endif
