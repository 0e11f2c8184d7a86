#include "ec/msm.h"

#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

/* A scalar recoded for signed windows of c bits: K = k + sum_w 2^(c-1) 2^(wc)
 * over W windows. Then digit w of k is ((K >> wc) mod 2^c) - 2^(c-1), in
 * [-2^(c-1), 2^(c-1)), and every digit can be read on its own (no carry
 * chain between windows). The representation is exact when K < 2^(Wc); see
 * msm_windows for W. Wc <= 277, so 5 limbs hold K. */
typedef struct {
    uint64_t l[5];
} msm_scalar;

static void msm_recode(msm_scalar *out, const cz_fr *k, unsigned c, unsigned windows) {
    uint64_t limbs[CZ_FR_LIMBS];
    cz_fr_to_limbs(limbs, k);
    uint64_t offset[5] = {0};
    for (unsigned w = 0; w < windows; w++) {
        unsigned bit = w * c + c - 1;
        offset[bit / 64] |= 1ULL << (bit % 64);
    }
    unsigned __int128 carry = 0;
    for (int i = 0; i < 5; i++) {
        carry += (unsigned __int128)(i < CZ_FR_LIMBS ? limbs[i] : 0) + offset[i];
        out->l[i] = (uint64_t)carry;
        carry >>= 64;
    }
}

static inline int msm_digit(const msm_scalar *k, unsigned w, unsigned c) {
    unsigned bit = w * c, limb = bit / 64, shift = bit % 64;
    uint64_t v = k->l[limb] >> shift;
    if (shift + c > 64 && limb + 1 < 5) v |= k->l[limb + 1] << (64 - shift);
    return (int)(v & ((1ULL << c) - 1)) - (1 << (c - 1));
}

/* The offset sum_w 2^(c-1) 2^(wc) is below 2^(Wc-1) * 2^c / (2^c - 1) and
 * k < r < 0.91 * 2^255. With Wc >= 256 that keeps K below 2^(Wc) for every
 * c >= 4 (and c = 3, where Wc = 258); c = 2 needs one more window. */
static unsigned msm_windows(unsigned c) {
    unsigned windows = (256 + c - 1) / c;
    return c == 2 ? windows + 1 : windows;
}

typedef struct {
    const cz_fr *in;
    msm_scalar *out;
    unsigned c, windows;
} recode_job;

static void recode_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    recode_job *job = ctx;
    for (size_t i = begin; i < end; i++) msm_recode(&job->out[i], &job->in[i], job->c, job->windows);
}

static void msm_recode_all(msm_scalar *out, const cz_fr *in, size_t n, unsigned c,
                           unsigned windows) {
    recode_job job = {in, out, c, windows};
    cz_parallel_for(n, 1 << 14, recode_task, &job);
}

typedef struct {
    unsigned c, windows, chunks;
    size_t chunk_len;
} msm_plan;

/* Cost model in units of one batch-affine bucket addition (about 7 field
 * multiplications): every window adds each point to a bucket once (1 unit)
 * and sums its 2^(c-1) buckets with an XYZZ mixed addition and an XYZZ
 * general addition (about 24 multiplications, 3.4 units), once per chunk. Points
 * are split into chunks only when there are fewer windows than about twice
 * the threads, so that every core gets work. */
static msm_plan msm_choose_plan(size_t n, unsigned threads, int g2) {
    (void)g2; /* the same ratios hold for G2 */
    msm_plan best = {0};
    double best_cost = 0;
    for (unsigned c = 2; c <= 22; c++) {
        unsigned windows = msm_windows(c);
        unsigned chunks = (2 * threads + windows - 1) / windows;
        size_t chunk_len = (n + chunks - 1) / chunks;
        if (chunk_len == 0) chunk_len = 1;
        chunks = (unsigned)((n + chunk_len - 1) / chunk_len);
        double per_window = (double)n + 3.4 * (double)((size_t)1 << (c - 1)) * chunks;
        double cost = windows * per_window / (double)(windows * chunks < threads ? windows * chunks
                                                                                 : threads);
        if (best.c == 0 || cost < best_cost) {
            best = (msm_plan){c, windows, chunks, chunk_len};
            best_cost = cost;
        }
    }
    return best;
}

unsigned cz_msm_window_bits(size_t n, int g2) {
    return msm_choose_plan(n, cz_thread_count(), g2).c;
}

/* ---- G1 ---- */
#define PT cz_g1
#define PTA cz_g1_affine
#define F cz_fp
#define F_(name) cz_fp_##name
#define PT_(name) cz_g1_##name
#define BK g1_bucket
#define FB cz_g1_fixed_base
#define MSM_IS_G2 0
#include "ec/msm_impl.h"
#undef PT
#undef PTA
#undef F
#undef F_
#undef PT_
#undef BK
#undef FB
#undef MSM_IS_G2

/* ---- G2 ---- */
#define PT cz_g2
#define PTA cz_g2_affine
#define F cz_fp2
#define F_(name) cz_fp2_##name
#define PT_(name) cz_g2_##name
#define BK g2_bucket
#define FB cz_g2_fixed_base
#define MSM_IS_G2 1
#include "ec/msm_impl.h"
