/* The Groth16 heavy part on the device, with the CPU prover's definitions
 * (groth16/prover.h):
 *   h    = sum_{i < m-1} H_i h[i], H from the H chain on the device:
 *          iNTT (NR) of a, b, c; coset NTT (RN) of each; a = (a b - c) / Z;
 *          coset iNTT (NN) -> coefficients in natural order (bellperson's
 *          execute_fft; the scalars stay on the device for the H MSM);
 *   l    = sum_v aux_v l[v];
 *   a, b_g1, b_g2 over the density-compacted assignment (compacted on the
 *          device from the uploaded assignment and density bitmaps).
 * a, b, c come from the prove data or, when it has none, from a resident
 * device circuit (cz_gpu_circuit_eval into the NTT buffers; its densities
 * then replace the prove data's).
 * L, A, B_G1 and B_G2 use the 0 / 1 / other split: sum = (batch addition of the points whose scalar
 * is 1) + (MSM over the gathered points and scalars that are neither 0 nor 1, or, when most are
 * neither, over every point with the ones masked). Both parts are exact group sums, so the result
 * is the same group element as the plain MSM. The key's points are the cz_gpu_srs's (srs.c):
 * on the device, or streamed from the host in chunks, as its memory plan says. Everything here
 * goes through the C interface of gpu.h, so this file is C (and builds against gpu_stub.c
 * without CUDA, failing at srs creation). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/settings.h"
#include "gpu/srs.h"
#include "r1cs/backends.h"
#include "util/cancel.h"
#include "util/check.h"
#include "util/log.h"
#include "util/parallel.h"

/* The steps of a proof: to the calling thread's hook (cz_gpu_set_step_hook)
 * and, with CZ_GPU_PROVE_PROFILE=1, milliseconds per step on stderr. Every
 * step ends with the device idle, so host time is device time. */
static _Thread_local cz_gpu_step_fn step_hook;
static _Thread_local void *step_hook_ctx;

cz_status cz_gpu_witness_upload(cz_fr *dev_z, cz_gpu_uploader *up, const cz_fr *inputs, size_t ni,
                                const cz_fr *aux, size_t na, cz_error *err) {
    const uint64_t t0 = cz_now_ns();
    cz_status st = cz_gpu_stage_witness(dev_z, up, inputs, ni, aux, na, err);
    if (st == CZ_OK && step_hook)
        step_hook(step_hook_ctx, "witness upload (staged)", t0, cz_now_ns());
    return st;
}

static size_t max3(size_t a, size_t b, size_t c) {
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

static size_t words(size_t bits) {
    return (bits + 63) / 64;
}

/* Per-proof device buffers (sizes from the shapes; freed together). */
typedef struct {
    cz_fr *abc;        /* 3m (a lean plan: 2m): a, b, c -> h */
    cz_fr *z;          /* inputs then aux */
    uint64_t *dens;    /* a_aux, b_aux, b_input bitmaps (uploaded from pd) */
    uint32_t *idx;     /* compaction indices, then tail indices */
    cz_fr *scal;       /* compacted scalars of A or B */
    uint64_t *ones;    /* "scalar is 1" bitmap */
    cz_fr *tail_s;     /* tail scalars, gathered or masked (a lean plan: one chunk's) */
    cz_g1_affine *tp1; /* gathered tail points (resident SRS) */
    cz_g2_affine *tp2;
} bufs;

static void bufs_free(bufs *b) {
    cz_gpu_free_pooled(b->abc);
    cz_gpu_free_pooled(b->z);
    cz_gpu_free_pooled(b->dens);
    cz_gpu_free_pooled(b->idx);
    cz_gpu_free_pooled(b->scal);
    cz_gpu_free_pooled(b->ones);
    cz_gpu_free_pooled(b->tail_s);
    cz_gpu_free_pooled(b->tp1);
    cz_gpu_free_pooled(b->tp2);
    memset(b, 0, sizeof *b);
}

void cz_gpu_set_step_hook(cz_gpu_step_fn fn, void *ctx) {
    step_hook = fn;
    step_hook_ctx = ctx;
}

typedef struct {
    int on;
    uint64_t t;
} prof;
static void prof_step(prof *p, const char *what) {
    uint64_t now = cz_now_ns();
    if (step_hook) step_hook(step_hook_ctx, what, p->t, now);
    if (p->on) cz_log(CZ_LOG_INFO, "gpu prove: %-28s %8.2f ms", what, (double)(now - p->t) / 1e6);
    p->t = now;
}

/* cz_gpu_stage_points on a helper thread (stream_sum: the CPU's copy of the next
 * chunk into pinned memory runs while the main thread waits on the current
 * chunk's kernels; the helper is the only user of the uploader meanwhile). */
typedef struct {
    cz_gpu_uploader *up;
    void *dev;
    const cz_gpu_host_points *src;
    size_t k0, count;
    uint64_t *ticket;
    cz_status st;
    cz_error err;
} send_job;

static void *send_job_run(void *arg) {
    send_job *j = arg;
    j->st = cz_gpu_stage_points(j->up, j->dev, j->src, j->k0, j->count, j->ticket, &j->err);
    return NULL;
}

/* A step boundary (util/cancel.h): a higher-priority unit may run here
 * (the engine's hook), and a cancelled job's unit stops. */
static int cancel_point(cz_status *st, const char *before, cz_error *err) {
    if (!cz_step_boundary()) return 0;
    *st = cz_error_set(err, CZ_E_CANCELLED, "gpu prove: cancelled before %s", before);
    return 1;
}

/* The scalars of a chunked sum: scal[k0..] in place, or, in a lean plan
 * (plan.h), prepared chunk by chunk into piece (chunk-sized): scal[k] with
 * the scalars whose bit is set in mask made zero (a long tail's, the ones
 * masked). */
typedef struct {
    const cz_fr *scal;
    const uint64_t *mask;
    cz_fr *piece;
} scalars;

/* o1 (G1) or o2 (G2) += the sum of cnt device points pts (points k0.. of
 * the vector), weighted by the scalars k0.. of sc or, without sc, selected
 * by the bits from k0. */
static cz_status chunk_sum(cz_g1 *o1, cz_g2 *o2, const void *pts, const scalars *sc,
                           const uint64_t *bits, size_t k0, size_t cnt, cz_error *err) {
    cz_status st = CZ_OK;
    const cz_fr *scal = NULL;
    if (sc && !sc->piece) {
        scal = sc->scal + k0;
    } else if (sc) {
        /* k0 is a multiple of the chunk (of 64 points at least) */
        scal = sc->piece;
        if ((st = cz_gpu_mask_fr(sc->piece, sc->scal + k0, sc->mask + k0 / 64, cnt, err)) != CZ_OK)
            return st;
    }
    if (o1) {
        cz_g1 part;
        st = scal ? cz_gpu_g1_msm(&part, pts, scal, cnt, err)
                  : cz_gpu_g1_batch_add(&part, pts, bits + k0 / 64, cnt, err);
        if (st == CZ_OK) cz_g1_add(o1, o1, &part);
    } else {
        cz_g2 part;
        st = scal ? cz_gpu_g2_msm(&part, pts, scal, cnt, err)
                  : cz_gpu_g2_batch_add(&part, pts, bits + k0 / 64, cnt, err);
        if (st == CZ_OK) cz_g2_add(o2, o2, &part);
    }
    return st;
}

/* What a chunked loop does with one chunk: pts (device memory) holds
 * points k0 .. k0 + cnt of the vector. */
typedef cz_status (*chunk_fn)(void *ctx, const void *pts, size_t k0, size_t cnt, cz_error *err);

/* The slot of srs->curve_checked holding host vector (base, n), or the
 * first free one (base NULL), -1 when neither is left; *found says which. */
static int curve_checked_slot(const cz_gpu_srs *s, const void *base, size_t n, int *found) {
    int free_slot = -1;
    for (int i = 0; i < CZ_GROTH16_VECTORS; i++) {
        if (s->curve_checked[i].base == base && s->curve_checked[i].n == n) {
            *found = 1;
            return i;
        }
        if (!s->curve_checked[i].base && free_slot < 0) free_slot = i;
    }
    *found = 0;
    return free_slot;
}

/* The vector a chunked loop streams next, in chunks of c: its first chunk
 * may go up during the last chunk of the loop before it. */
typedef struct {
    cz_gpu_host_points src;
    size_t n, c;
} stream_next;

/* next's first chunk is in chunk[buf] (or on its way: ticket) */
static void ahead_set(cz_gpu_srs *s, const stream_next *next, int buf, uint64_t ticket) {
    s->ahead.base = next->src.base;
    s->ahead.n = next->n;
    s->ahead.c = next->c;
    s->ahead.buf = buf;
    s->ahead.ticket = ticket;
}

/* A streamed key: sends the first chunk of next into chunk[1] (s->ahead) ahead of its
 * stream_chunks, without waiting, when the copy can go straight from
 * page-locked memory (a staged one would hold the calling thread while it
 * copies on the CPU). chunk[1] must be idle until that sum: nothing else
 * runs through the chunk buffers meanwhile (a lean plan's packed witness
 * is in chunk[0]). Only speed is lost when it does not happen. */
static void stream_ahead(cz_gpu_srs *s, const stream_next *next) {
    const size_t cnt = next->n < next->c ? next->n : next->c;
    uint64_t ticket = 0;
    s->ahead.base = NULL;
    if (!s->chunk[1] || !cnt || !cz_gpu_host_locked(next->src.base, cnt * next->src.size)) return;
    cz_error ignored = {0};
    if (cz_gpu_stage_points(s->up, s->chunk[1], &next->src, 0, cnt, &ticket, &ignored) == CZ_OK)
        ahead_set(s, next, 1, ticket);
}

/* A chunk sent ahead and not taken (its unit, or the pass, ended first):
 * its copy waited for, so that the host memory it reads may be unlocked and
 * freed once the unit's key is let go. */
static void ahead_drop(cz_gpu_srs *s) {
    if (!s->ahead.base) return;
    cz_error ignored = {0};
    (void)cz_gpu_uploader_wait(s->up, s->ahead.ticket, &ignored);
    s->ahead.base = NULL;
}

/* Streaming SRS: fn for each chunk of c of the n host points of src
 * (c src->size bytes at most the chunk buffers' chunk_points G2 points;
 * a file view's converted on the device as each chunk arrives),
 * through the two device chunk buffers (chunk k + 1 is staged, or sent
 * straight from page-locked memory, while fn's kernels run on chunk k;
 * chunks start at multiples of 64 points). Chunk 0 may be there already
 * (s->ahead); a copy sent ahead for another sum is dropped (its buffer's
 * next copy is queued after it, on the same stream). With then, its first
 * chunk goes up beside the last chunk's kernels, ahead for the next loop. */
static cz_status stream_chunks(cz_gpu_srs *s, const cz_gpu_host_points *src, size_t n, size_t c,
                               const stream_next *then, chunk_fn fn, void *ctx, cz_error *err) {
    uint64_t ticket[2] = {0, 0};
    cz_status st = CZ_OK;
    if (n == 0) return CZ_OK;
    /* chunk k is in chunk[(k + first) & 1] */
    const int ahead = s->ahead.base == src->base && s->ahead.n == n && s->ahead.c == c;
    const int first = ahead ? s->ahead.buf : 0;
    s->ahead.base = NULL;
    /* a file view's vector: its first whole pass checks the curve equation,
     * later ones only the encoding (srs.h, curve_checked) */
    int checked = 0;
    const int slot = s->encoded ? curve_checked_slot(s, src->base, n, &checked) : -1;
    /* a chunk sent ahead is waited for here, before this loop's sends: other
     * copies may have been queued since (a pass's parts), so its ticket can
     * share the parity of the helper's first send, whose event record would
     * make a wait for it during that send wait for both */
    if (ahead)
        st = cz_gpu_uploader_wait(s->up, s->ahead.ticket, err);
    else
        st = cz_gpu_stage_points(s->up, s->chunk[0], src, 0, n < c ? n : c, &ticket[0], err);
    for (size_t k = 0; st == CZ_OK && k * c < n; k++) {
        const size_t k0 = k * c, cnt = n - k0 < c ? n - k0 : c;
        const int cur = (int)((k + first) & 1), next = cur ^ 1;
        /* chunk k + 1, or then's first, into the other buffers (their last
         * readers, the chunk before's copy and kernels, are done); the
         * helper only touches the uploader's slot of that copy, the wait
         * below the other one's */
        send_job job = {.up = s->up,
                        .dev = s->chunk[next],
                        .src = src,
                        .k0 = k0 + cnt,
                        .ticket = &ticket[next],
                        .st = CZ_OK};
        if (k0 + cnt < n) {
            job.count = n - k0 - cnt < c ? n - k0 - cnt : c;
        } else if (then && then->n) {
            job.src = &then->src;
            job.k0 = 0;
            job.count = then->n < then->c ? then->n : then->c;
        }
        pthread_t helper;
        int threaded = 0;
        if (job.count) {
            threaded = pthread_create(&helper, NULL, send_job_run, &job) == 0;
            if (!threaded) send_job_run(&job);
        }
        st = cz_gpu_uploader_wait(s->up, ticket[cur], err);
        if (st == CZ_OK)
            st = cz_gpu_srs_convert(s, s->chunk[cur], k0, cnt, src->size == sizeof(cz_g2_affine),
                                    !checked, err);
        if (st == CZ_OK) st = fn(ctx, s->chunk[cur], k0, cnt, err);
        if (threaded) pthread_join(helper, NULL);
        if (st == CZ_OK && job.st != CZ_OK) {
            st = job.st;
            *err = job.err;
        }
        if (st == CZ_OK && job.count && job.src != src) ahead_set(s, then, next, ticket[next]);
        /* between chunks (the next one on its way): a higher-priority unit,
         * its key resident beside this one, may run here, so it waits for
         * one chunk of a streamed sum, not the whole sum */
        if (st == CZ_OK && k0 + cnt < n) cancel_point(&st, "the next streamed chunk", err);
    }
    /* a refused point of the chunks converted (the word reset either way) */
    cz_error cerr = {0};
    const cz_status cst = cz_gpu_srs_convert_check(s, src->size == sizeof(cz_g2_affine), &cerr);
    if (st == CZ_OK && cst != CZ_OK) {
        st = cst;
        if (err) *err = cerr;
    }
    if (st == CZ_OK && !checked && slot >= 0) { /* every chunk converted and found on the curve */
        s->curve_checked[slot].base = src->base;
        s->curve_checked[slot].n = n;
    }
    if (st != CZ_OK) cz_error_prefix(err, "streamed chunks of %zu points", c);
    return st;
}

/* A chunked plan's vector: fn for each chunk of c of its n points (c
 * points of size bytes at most chunk_points G2 points), from the device
 * (dev: a partial plan's kept vector, in pieces of a chunk, since the plan
 * counts one chunk's MSM scratch, not a whole vector's) or streamed from
 * the host points. An MSM per chunk takes c = chunk_points (the plan's
 * scratch); a pass, which runs no MSM of a chunk's size, the G1 points the
 * chunk buffers hold (twice as many: half the batch additions). */
static cz_status for_chunks(cz_gpu_srs *s, const void *dev, const void *host, size_t size, size_t n,
                            size_t c, const stream_next *then, chunk_fn fn, void *ctx,
                            cz_error *err) {
    if (!dev) {
        const cz_gpu_host_points h = {host, size};
        return stream_chunks(s, &h, n, c, then, fn, ctx, err);
    }
    cz_status st = CZ_OK;
    for (size_t k0 = 0; k0 < n && st == CZ_OK; k0 += c) {
        const size_t cnt = n - k0 < c ? n - k0 : c;
        st = fn(ctx, (const uint8_t *)dev + k0 * size, k0, cnt, err);
        if (st == CZ_OK && k0 + cnt < n) cancel_point(&st, "the next piece", err);
    }
    if (st != CZ_OK) cz_error_prefix(err, "resident points in pieces of %zu", c);
    return st;
}

typedef struct {
    cz_g1 *o1;
    cz_g2 *o2;
    const scalars *sc;
    const uint64_t *bits;
    const cz_gpu_msm_sum *carried; /* a carried G1 sum of sc's scalars in place */
} sum_ctx;

static cz_status sum_chunk(void *ctx, const void *pts, size_t k0, size_t cnt, cz_error *err) {
    const sum_ctx *x = ctx;
    if (x->carried) return cz_gpu_g1_msm_sum_add(x->carried, pts, x->sc->scal + k0, cnt, err);
    return chunk_sum(x->o1, x->o2, pts, x->sc, x->bits, k0, cnt, err);
}

/* o1 (G1) or o2 (G2) = the sum over the n points of a chunked plan's
 * vector (dev kept, else host), weighted by sc or selected by bits. */
static cz_status chunked_sum(cz_gpu_srs *s, cz_g1 *o1, cz_g2 *o2, const void *dev, const void *host,
                             size_t n, const scalars *sc, const uint64_t *bits, cz_error *err) {
    sum_ctx x = {o1, o2, sc, bits, NULL};
    if (o1) cz_g1_set_infinity(o1);
    if (o2) cz_g2_set_infinity(o2);
    return for_chunks(s, dev, host, o1 ? sizeof(cz_g1_affine) : sizeof(cz_g2_affine), n,
                      s->chunk_points, NULL, sum_chunk, &x, err);
}

/* o = the G1 sum over a chunked plan's n points (dev kept, else host)
 * weighted by the device scalars scal: one carried MSM over the chunks
 * (its buckets in room, room_bytes of device memory unused meanwhile) when
 * they fit there and CZ_GPU_MSM_CARRY allows, else an MSM per chunk. */
static cz_status chunked_msm_g1(cz_gpu_srs *s, cz_g1 *o, const void *dev, const void *host,
                                size_t n, const cz_fr *scal, void *room, size_t room_bytes,
                                cz_error *err) {
    const scalars sc = {scal, NULL, NULL};
    const unsigned c = cz_gpu_settings_get()->msm_carry
                           ? cz_gpu_plan_msm_sum_window(n, s->chunk_points, room_bytes)
                           : 0;
    if (!c) return chunked_sum(s, o, NULL, dev, host, n, &sc, NULL, err);
    cz_gpu_msm_sum sum;
    sum_ctx x = {NULL, NULL, &sc, NULL, &sum};
    cz_status st = cz_gpu_g1_msm_sum_begin(&sum, room, c, err);
    if (st == CZ_OK)
        st = for_chunks(s, dev, host, sizeof(cz_g1_affine), n, s->chunk_points, NULL, sum_chunk, &x,
                        err);
    if (st == CZ_OK) st = cz_gpu_g1_msm_sum_end(o, &sum, err);
    return st;
}

/* out = sum_i scalars[i] * points[i] over n device scalars with the 0 / 1 /
 * other split; G1 points (device p1, or host h1 when the SRS streams) and,
 * for B, the G2 points with the same scalars. */
typedef struct {
    const cz_g1_affine *p1, *h1; /* device / host */
    const cz_g2_affine *p2, *h2; /* NULL: no G2 part */
} split_points;

/* A resident key's split sum: the ones batch-added over the whole vector,
 * the tail (neither 0 nor 1, its indices in b->idx) by one MSM over every
 * point with the ones masked when it is dense, else over its points
 * gathered in pieces. */
static cz_status resident_split(cz_g1 *o1, cz_g2 *o2, const split_points *pp, const cz_fr *scal,
                                size_t n, bufs *b, const char *name, prof *pr, cz_error *err) {
    const int g2 = pp->p2 != NULL;
    size_t tail = 0;
    char step[96];
    cz_g1 t1;
    cz_g2 t2;
    cz_g1_set_infinity(&t1);
    cz_g2_set_infinity(&t2);
    cz_status st = cz_gpu_classify(scal, n, b->ones, b->idx, &tail, err);
    if (st == CZ_OK) st = cz_gpu_g1_batch_add(o1, pp->p1, b->ones, n, err);
    if (st == CZ_OK && g2) st = cz_gpu_g2_batch_add(o2, pp->p2, b->ones, n, err);
    if (st != CZ_OK) goto fail;
    snprintf(step, sizeof step, "%s split + batch add", name);
    prof_step(pr, step);
    if (cancel_point(&st, "the tail MSM", err)) goto fail;
    const int dense = tail && cz_gpu_plan_dense_tail(tail, n);
    if (dense) {
        const scalars sc = {b->tail_s, NULL, NULL};
        st = cz_gpu_mask_fr(b->tail_s, scal, b->ones, n, err);
        if (st == CZ_OK) st = chunk_sum(&t1, NULL, pp->p1, &sc, NULL, 0, n, err);
        if (st == CZ_OK && g2) st = chunk_sum(NULL, &t2, pp->p2, &sc, NULL, 0, n, err);
    } else if (tail) {
        const size_t piece = cz_gpu_plan_tail_chunk();
        const scalars sc = {b->tail_s, NULL, NULL};
        st = cz_gpu_gather_fr(b->tail_s, scal, b->idx, tail, err);
        for (size_t k0 = 0; k0 < tail && st == CZ_OK; k0 += piece) {
            const size_t cnt = tail - k0 < piece ? tail - k0 : piece;
            st = cz_gpu_gather_g1(b->tp1, pp->p1, b->idx + k0, 0, cnt, err);
            if (st == CZ_OK) st = chunk_sum(&t1, NULL, b->tp1, &sc, NULL, k0, cnt, err);
            if (st == CZ_OK && g2) st = cz_gpu_gather_g2(b->tp2, pp->p2, b->idx + k0, 0, cnt, err);
            if (st == CZ_OK && g2) st = chunk_sum(NULL, &t2, b->tp2, &sc, NULL, k0, cnt, err);
        }
    }
    if (st != CZ_OK) goto fail;
    snprintf(step, sizeof step, "%s tail MSM (%zu of %zu%s)", name, tail, n,
             dense ? ", masked" : "");
    prof_step(pr, step);
    cz_g1_add(o1, o1, &t1);
    if (g2) cz_g2_add(o2, o2, &t2);
    return CZ_OK;
fail:
    cz_error_prefix(err, "gpu prove: %s (%zu scalars)", name, n);
    return st;
}

/* ---- passes: the L, A and B sums of a chunked plan ----
 * A unit's sum waits for its pass in host memory, in a pass set: its ones
 * bitmap and its tail (the scalars neither 0 nor 1: their increasing
 * indices and the scalars). A pass streams each vector once for every set
 * given to it: the sets' parts of that sum go up (a few percent of the
 * scalars' bytes), then per chunk each set's ones are batch-added from the
 * chunk and its tail points in the chunk gathered from it for an MSM. The
 * chunk crosses PCIe once for all the sets, whole, so the bytes of points
 * per unit fall with the number of sets; waiting sets take no device
 * memory. A tail longer than cz_gpu_plan_pass_tail is summed at once
 * instead (one MSM over every point with the ones masked: a WindowPoSt
 * witness), and the set leaves that sum out. */
enum { PASS_L, PASS_A, PASS_B, PASS_SUMS };

typedef struct {
    size_t n, tail; /* n = 0: not in the set (summed at once) */
    void *block;    /* host memory holding the three (cz_gpu_block_get) */
    uint64_t *ones;
    uint32_t *idx;
    cz_fr *scal;
} pass_sum;

struct cz_gpu_pass_set {
    pass_sum sum[PASS_SUMS];
};

static void pass_sum_free(pass_sum *ps) {
    cz_gpu_block_put(ps->block);
    memset(ps, 0, sizeof *ps);
}

void cz_gpu_pass_set_free(cz_gpu_pass_set *set) {
    if (!set) return;
    for (int i = 0; i < PASS_SUMS; i++) pass_sum_free(&set->sum[i]);
    free(set);
}

/* A chunked plan's split sum of n scalars, into the set's ps when its tail
 * is short enough (o1 / o2 then stay at infinity), else summed at once into
 * o1 (G1) and o2 (G2, for B). */
static cz_status chunked_split(cz_gpu_srs *s, pass_sum *ps, cz_g1 *o1, cz_g2 *o2,
                               const split_points *pp, const cz_fr *scal, size_t n, bufs *b,
                               const char *name, prof *pr, cz_error *err) {
    const int g2 = o2 != NULL;
    size_t tail = 0;
    char step[96];
    cz_g1 t1;
    cz_g2 t2;
    cz_g1_set_infinity(o1);
    if (g2) cz_g2_set_infinity(o2);
    cz_status st = cz_gpu_classify(scal, n, b->ones, b->idx, &tail, err);
    if (st != CZ_OK) goto fail;
    if (tail <= cz_gpu_plan_pass_tail(n)) {
        /* ones, then idx, then scal (from a multiple of 64 bytes) */
        const size_t ones_bytes = words(n) * 8,
                     idx_bytes = (tail * sizeof(uint32_t) + 63) / 64 * 64;
        ps->n = n;
        ps->tail = tail;
        ps->block = cz_gpu_block_get(ones_bytes + idx_bytes + tail * sizeof(cz_fr));
        if (!ps->block) {
            st = cz_error_set(err, CZ_E_NOMEM, "out of host memory");
            goto fail;
        }
        ps->ones = ps->block;
        ps->idx = (uint32_t *)((uint8_t *)ps->block + ones_bytes);
        ps->scal = (cz_fr *)((uint8_t *)ps->block + ones_bytes + idx_bytes);
        if ((st = cz_gpu_gather_fr(b->tail_s, scal, b->idx, tail, err)) != CZ_OK ||
            (st = cz_gpu_download(ps->ones, b->ones, words(n) * 8, err)) != CZ_OK ||
            (st = cz_gpu_download(ps->idx, b->idx, tail * sizeof(uint32_t), err)) != CZ_OK ||
            (st = cz_gpu_download(ps->scal, b->tail_s, tail * sizeof(cz_fr), err)) != CZ_OK)
            goto fail;
        snprintf(step, sizeof step, "%s split (tail %zu of %zu)", name, tail, n);
        prof_step(pr, step);
        return CZ_OK;
    }
    /* a long tail: one MSM over every point, the ones masked to zero
     * (a lean plan masks chunk by chunk), then the ones batch-added */
    const scalars sc =
        s->plan.lean ? (scalars){scal, b->ones, b->tail_s} : (scalars){b->tail_s, NULL, NULL};
    if (!s->plan.lean && (st = cz_gpu_mask_fr(b->tail_s, scal, b->ones, n, err)) != CZ_OK)
        goto fail;
    st = chunked_sum(s, &t1, NULL, pp->p1, pp->h1, n, &sc, NULL, err);
    if (st == CZ_OK && g2) st = chunked_sum(s, NULL, &t2, pp->p2, pp->h2, n, &sc, NULL, err);
    if (st != CZ_OK) goto fail;
    snprintf(step, sizeof step, "%s tail MSM (%zu of %zu, masked)", name, tail, n);
    prof_step(pr, step);
    if (cancel_point(&st, "the batch addition", err)) goto fail;
    st = chunked_sum(s, o1, NULL, pp->p1, pp->h1, n, NULL, b->ones, err);
    if (st == CZ_OK && g2) st = chunked_sum(s, NULL, o2, pp->p2, pp->h2, n, NULL, b->ones, err);
    if (st != CZ_OK) goto fail;
    snprintf(step, sizeof step, "%s batch add", name);
    prof_step(pr, step);
    cz_g1_add(o1, o1, &t1);
    if (g2) cz_g2_add(o2, o2, &t2);
    return CZ_OK;
fail:
    pass_sum_free(ps);
    cz_error_prefix(err, "gpu prove: %s (%zu scalars)", name, n);
    return st;
}

/* One set's part of the vector in a pass: on the device for the pass. Its
 * tail points are gathered chunk after chunk into its region of the pass's
 * gather buffer (room for cap points) and summed when the region is full
 * and at the vector's end, so a tail costs one MSM per region, not one per
 * chunk (a PoRep L tail of ~1.7 M points spread over 31 chunks of 2^22:
 * 2 MSMs instead of 31). */
typedef struct {
    const pass_sum *ps;
    uint64_t *ones;
    uint32_t *idx;
    cz_fr *scal;
    cz_g1 *o1;
    cz_g2 *o2;
    void *region;
    size_t done, fill; /* tail entries summed; gathered, not yet summed */
} pass_part;

typedef struct {
    pass_part *part;
    size_t k;
    size_t cap; /* points per part's region */
} pass_ctx;

/* the first of the n increasing indices that is >= x */
static size_t lower_bound(const uint32_t *idx, size_t n, size_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (idx[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* the points gathered in p's region, weighted by their tail scalars */
static cz_status pass_flush(pass_part *p, cz_error *err) {
    if (!p->fill) return CZ_OK;
    const scalars sc = {p->scal + p->done, NULL, NULL};
    const cz_status st = chunk_sum(p->o1, p->o2, p->region, &sc, NULL, 0, p->fill, err);
    p->done += p->fill;
    p->fill = 0;
    return st;
}

static cz_status pass_chunk(void *ctx, const void *pts, size_t k0, size_t cnt, cz_error *err) {
    const pass_ctx *x = ctx;
    const size_t size = x->part[0].o2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    cz_status st = CZ_OK;
    for (size_t j = 0; j < x->k && st == CZ_OK; j++) {
        pass_part *p = &x->part[j];
        st = chunk_sum(p->o1, p->o2, pts, NULL, p->ones, k0, cnt, err);
        /* the tail entries of this chunk: from p->done + p->fill on */
        const size_t hi = lower_bound(p->ps->idx, p->ps->tail, k0 + cnt);
        for (size_t q = p->done + p->fill; q < hi && st == CZ_OK;) {
            if (p->fill == x->cap && (st = pass_flush(p, err)) != CZ_OK) break;
            const size_t room = x->cap - p->fill, c = hi - q < room ? hi - q : room;
            void *to = (uint8_t *)p->region + p->fill * size;
            st = p->o2 ? cz_gpu_gather_g2(to, pts, p->idx + q, (uint32_t)k0, c, err)
                       : cz_gpu_gather_g1(to, pts, p->idx + q, (uint32_t)k0, c, err);
            p->fill += c;
            q += c;
        }
    }
    return st;
}

static void parts_free(pass_part *part, size_t k) {
    for (size_t j = 0; j < k; j++) {
        cz_gpu_free_pooled(part[j].ones);
        cz_gpu_free_pooled(part[j].idx);
        cz_gpu_free_pooled(part[j].scal);
    }
}

cz_status cz_gpu_groth16_pass(cz_gpu_srs *srs, const cz_groth16_params *params,
                              cz_gpu_pass_set *const *sets, cz_groth16_msm_results *const *outs,
                              size_t k, cz_error *err) {
    if (!k) return CZ_OK;
    if (!srs->streaming || !params)
        return CZ_BROKEN(err, "gpu prove: a pass over a key that does not stream");
    const struct {
        int which, g2;
        const void *dev, *host;
        size_t n;
        const char *name;
    } vec[] = {
        {PASS_L, 0, srs->l, params->l, srs->shape.n_l, "L"},
        {PASS_A, 0, srs->a, params->a, srs->shape.n_a, "A"},
        {PASS_B, 0, srs->b_g1, params->b_g1, srs->shape.n_b_g1, "B_G1"},
        {PASS_B, 1, srs->b_g2, params->b_g2, srs->shape.n_b_g2, "B_G2"},
    };
    prof pr = {cz_gpu_settings_get()->prove_profile, cz_now_ns()};
    pass_part *part = calloc(k, sizeof *part);
    pass_ctx x = {part, 0, 0};
    /* the gather buffer: a piece of G2 points, shared by the sets' regions
     * (a region holds at most a piece: one MSM's scratch is planned for a
     * chunk, and a piece is at most a chunk) */
    const size_t piece =
        srs->chunk_points < CZ_GPU_PASS_PIECE ? srs->chunk_points : CZ_GPU_PASS_PIECE;
    void *tp = NULL;
    cz_status st = part ? cz_gpu_alloc_pooled(&tp, piece * sizeof(cz_g2_affine), err)
                        : cz_error_set(err, CZ_E_NOMEM, "out of host memory");
    for (size_t v = 0; v < sizeof vec / sizeof vec[0] && st == CZ_OK; v++) {
        if (cancel_point(&st, "the next vector of the pass", err)) break;
        /* the sets' parts of this sum up to the device */
        uint64_t ticket = 0;
        x.k = 0;
        for (size_t j = 0; j < k && st == CZ_OK; j++) {
            const pass_sum *ps = &sets[j]->sum[vec[v].which];
            if (!ps->n) continue;
            pass_part *p = &part[x.k++];
            *p = (pass_part){.ps = ps};
            if (vec[v].g2)
                p->o2 = &outs[j]->b_g2;
            else
                p->o1 = vec[v].which == PASS_L   ? &outs[j]->l
                        : vec[v].which == PASS_A ? &outs[j]->a
                                                 : &outs[j]->b_g1;
            if ((st = cz_gpu_alloc_pooled((void **)&p->ones, words(ps->n) * 8, err)) != CZ_OK ||
                (st = cz_gpu_alloc_pooled((void **)&p->idx, ps->tail * sizeof(uint32_t) + 4,
                                          err)) != CZ_OK ||
                (st = cz_gpu_alloc_pooled((void **)&p->scal, ps->tail * sizeof(cz_fr) + 32, err)) !=
                    CZ_OK ||
                (st = cz_gpu_stage_bytes(srs->up, p->ones, ps->ones, words(ps->n) * 8, &ticket,
                                         err)) != CZ_OK ||
                (st = cz_gpu_stage_bytes(srs->up, p->idx, ps->idx, ps->tail * sizeof(uint32_t),
                                         &ticket, err)) != CZ_OK ||
                (st = cz_gpu_stage_bytes(srs->up, p->scal, ps->scal, ps->tail * sizeof(cz_fr),
                                         &ticket, err)) != CZ_OK)
                break;
        }
        const size_t size = vec[v].g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
        if (x.k) {
            x.cap = piece * sizeof(cz_g2_affine) / size / x.k;
            if (x.cap > piece) x.cap = piece;
            if (!x.cap) st = CZ_BROKEN(err, "gpu prove: no gather room for %zu sets", x.k);
            for (size_t j = 0; j < x.k; j++) part[j].region = (uint8_t *)tp + j * x.cap * size;
        }
        /* the next streamed vector with a set's part: its first chunk goes up
         * during this one's last */
        stream_next then = {{NULL, 0}, 0, 0};
        for (size_t w = v + 1; w < sizeof vec / sizeof vec[0] && !then.n; w++) {
            int parts = 0;
            for (size_t j = 0; j < k; j++) parts |= sets[j]->sum[vec[w].which].n != 0;
            if (!parts) continue;
            if (vec[w].dev) break;
            const size_t wsize = vec[w].g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
            then = (stream_next){
                {vec[w].host, wsize}, vec[w].n, srs->chunk_points * sizeof(cz_g2_affine) / wsize};
        }
        if (st == CZ_OK && x.k) st = cz_gpu_uploader_wait(srs->up, ticket, err);
        if (st == CZ_OK && x.k)
            st = for_chunks(srs, vec[v].dev, vec[v].host, size, vec[v].n,
                            srs->chunk_points * sizeof(cz_g2_affine) / size, &then, pass_chunk, &x,
                            err);
        for (size_t j = 0; j < x.k && st == CZ_OK; j++) st = pass_flush(&part[j], err);
        parts_free(part, k);
        memset(part, 0, k * sizeof *part);
        if (st != CZ_OK) {
            cz_error_prefix(err, "gpu prove: %s pass over %zu units", vec[v].name, k);
        } else if (x.k) {
            char step[64];
            snprintf(step, sizeof step, "%s pass (%zu unit%s)", vec[v].name, x.k,
                     x.k > 1 ? "s" : "");
            prof_step(&pr, step);
        }
    }
    ahead_drop(srs);
    cz_gpu_free_pooled(tp);
    free(part);
    return st;
}

/* cz_groth16_check_shapes for the circuit path: the witness must be the
 * device circuit's, the density counts are the circuit's. */
static cz_status circuit_shapes(const cz_groth16_params *p, const cz_gpu_circuit_info *ci,
                                const cz_prove_data *pd, cz_error *err) {
    if (pd->num_inputs != ci->num_inputs || pd->num_aux != ci->num_aux ||
        pd->num_constraints != ci->num_constraints)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu prove: the witness (%u inputs, %u aux, %llu constraints) is not "
                            "the device circuit's (%u, %u, %llu)",
                            pd->num_inputs, pd->num_aux, (unsigned long long)pd->num_constraints,
                            ci->num_inputs, ci->num_aux, (unsigned long long)ci->num_constraints);
    unsigned k = 0;
    cz_status st = cz_groth16_domain_log_size(&k, pd->num_constraints, err);
    if (st != CZ_OK) return st;
    if (pd->num_inputs == 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "prove: no inputs (input 0 is ONE)");
    const uint64_t b = ci->b_input_count + ci->b_aux_count;
    const struct {
        const char *name;
        uint64_t have, want;
    } checks[] = {
        {"vk.ic", p->vk.n_ic, pd->num_inputs},
        {"h", p->n_h, ((uint64_t)1 << k) - 1},
        {"l", p->n_l, pd->num_aux},
        {"a", p->n_a, pd->num_inputs + ci->a_aux_count},
        {"b_g1", p->n_b_g1, b},
        {"b_g2", p->n_b_g2, b},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (checks[i].have != checks[i].want)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "prove: params.%s has %llu points, the device circuit needs %llu: "
                                "parameters for another circuit?",
                                checks[i].name, (unsigned long long)checks[i].have,
                                (unsigned long long)checks[i].want);
    return CZ_OK;
}

/* One of a, b, c (n elements) from the host into d, zero-padded to m;
 * the copy is staged (wait for *ticket). */
static cz_status abc_upload(cz_gpu_srs *srs, cz_fr *d, const cz_fr *src, size_t n, size_t m,
                            uint64_t *ticket, cz_error *err) {
    cz_status st = cz_gpu_stage_bytes(srs->up, d, src, n * sizeof(cz_fr), ticket, err);
    if (st == CZ_OK) st = cz_gpu_zero(d + n, (m - n) * sizeof(cz_fr), err);
    return st;
}

/* The H chain's first two transforms of one of a, b, c: to coefficients
 * (inverse, NR), then to the coset (forward, RN). */
static cz_status abc_coset(cz_gpu_srs *srs, cz_fr *d, cz_error *err) {
    cz_status st = cz_gpu_ntt_transform(srs->dom, d, CZ_NTT_NR, CZ_NTT_INVERSE, CZ_NTT_PLAIN, err);
    if (st == CZ_OK)
        st = cz_gpu_ntt_transform(srs->dom, d, CZ_NTT_RN, CZ_NTT_FORWARD, CZ_NTT_COSET, err);
    return st;
}

/* pd's assignment (inputs then aux) to dev_z through the SRS's uploader,
 * returning when it is there: packed (zpack, expanded through scratch, device
 * memory unused meanwhile) when it is pd's and fits, else whole. */
static cz_status witness_up(cz_fr *dev_z, void *scratch, size_t scratch_bytes, cz_gpu_srs *srs,
                            const cz_prove_data *pd, const cz_gpu_witness_pack *zpack,
                            cz_error *err) {
    const size_t ni = pd->num_inputs, na = pd->num_aux;
    if (zpack && zpack->n == ni + na && cz_gpu_witness_pack_bytes(zpack) <= scratch_bytes)
        return cz_gpu_witness_unpack(dev_z, scratch, scratch_bytes, srs->up, zpack, err);
    return cz_gpu_stage_witness(dev_z, srs->up, pd->input_assignment, ni, pd->aux_assignment, na,
                                err);
}

/* pd's density bitmaps (a_aux, b_aux, b_input) to b->dens, returning when
 * they are there. */
static cz_status host_densities_up(cz_gpu_srs *srs, bufs *b, const cz_prove_data *pd, size_t wa,
                                   size_t wi, cz_error *err) {
    uint64_t ticket = 0;
    cz_status st = cz_gpu_stage_bytes(srs->up, b->dens, pd->a_aux_density, wa * 8, &ticket, err);
    if (st == CZ_OK)
        st = cz_gpu_stage_bytes(srs->up, b->dens + wa, pd->b_aux_density, wa * 8, &ticket, err);
    if (st == CZ_OK)
        st = cz_gpu_stage_bytes(srs->up, b->dens + 2 * wa, pd->b_input_density, wi * 8, &ticket,
                                err);
    if (st == CZ_OK) st = cz_gpu_uploader_wait(srs->up, ticket, err);
    return st;
}

cz_status cz_gpu_groth16_prove_head(cz_groth16_msm_results *out, cz_gpu_pass_set **set,
                                    cz_gpu_srs *srs, const cz_groth16_params *params,
                                    const cz_gpu_circuit *circuit, const cz_prove_data *pd,
                                    const cz_fr *dev_z, const cz_gpu_witness_pack *zpack,
                                    cz_error *err) {
    *set = NULL;
    if (!srs) return cz_error_set(err, CZ_E_INVALID_ARG, "gpu prove: no SRS (cz_gpu_srs_create)");
    if (srs->streaming && !params)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu prove: the SRS streams its points: the host params are needed");
    if (srs->streaming && params->encoded != srs->encoded)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu prove: the SRS streams %s points, the unit's host params are %s",
                            srs->encoded ? "a file view's" : "decoded",
                            params->encoded ? "a file view" : "decoded");
    /* a, b, c from the device circuit when pd has none */
    const int on_device = !pd->a && !pd->b && !pd->c;
    cz_gpu_circuit_info ci;
    cz_status st = CZ_OK;
    if (on_device && !circuit)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu prove: no a, b, c in the prove data and no device circuit");
    if (!on_device && (!pd->a || !pd->b || !pd->c))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu prove: a, b, c: all three or none");
    if (dev_z && !on_device)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu prove: a device witness goes with the device circuit only");
    if (on_device) {
        cz_gpu_circuit_get_info(&ci, circuit);
        st = circuit_shapes(&srs->shape, &ci, pd, err);
        if (st == CZ_OK && srs->streaming) st = circuit_shapes(params, &ci, pd, err);
    } else {
        st = cz_groth16_check_shapes(&srs->shape, pd, err);
        if (st == CZ_OK && srs->streaming) st = cz_groth16_check_shapes(params, pd, err);
    }
    if (st != CZ_OK) return st;
    /* the lean plan (plan.h) streams every vector; its H chain has no room
     * for the witness whole: a, b, c come from the host, or from the
     * device circuit reading the witness packed, kept meanwhile in a chunk
     * buffer (idle until the H MSM) */
    const int lean = srs->plan.lean;
    if (lean && !srs->streaming)
        return CZ_BROKEN(err, "gpu prove: a lean memory plan that keeps vectors");
    if (lean && on_device &&
        (dev_z || !zpack || zpack->n != pd->num_inputs + pd->num_aux ||
         cz_gpu_witness_pack_bytes(zpack) > cz_gpu_srs_pack_room(srs)))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu prove: the key's lean memory plan evaluates a, b, c on the device "
                            "only from the witness packed in at most %zu bytes (%s); else they "
                            "come from the host",
                            cz_gpu_srs_pack_room(srs),
                            dev_z   ? "a device witness was given"
                            : zpack ? "this one packs larger"
                                    : "none was given");
    const size_t m = (size_t)1 << srs->log_m, n = pd->num_constraints;
    const size_t ni = pd->num_inputs, na = pd->num_aux;
    const size_t n_a = srs->shape.n_a, n_b = srs->shape.n_b_g1;
    const size_t wi = words(ni), wa = words(na);
    const uint64_t *dens = NULL; /* device: a_aux | b_aux | b_input */
    bufs b = {0};
    cz_gpu_pass_set *ps = NULL; /* a chunked plan's L, A, B sums for a pass */
    const cz_fr *z = dev_z;     /* the assignment on the device: dev_z or b.z */
    cz_gpu_packed_z pz;         /* a lean plan's packed assignment, in srs->chunk[0] */
    uint64_t ticket = 0;
    prof pr = {cz_gpu_settings_get()->prove_profile, cz_now_ns()};

    /* ---- H chain: a, b, c zero-padded to m on the device (a lean plan:
     * a and b, then c where b was) ---- */
    const int nbuf = lean ? 2 : 3;
    /* a lean plan's buckets for the H MSM may reach past the second buffer
     * (plan.h: sum_room is 0 for the others) */
    const size_t sum_room = srs->plan.sum_room;
    if ((st = cz_gpu_alloc_pooled((void **)&b.abc, nbuf * m * sizeof(cz_fr) + sum_room, err)) !=
        CZ_OK) {
        cz_error_prefix(err, "gpu prove: a, b, c (%d x 2^%u elements)", nbuf, srs->log_m);
        goto done;
    }
    prof_step(&pr, "a, b, c buffers");
    if (on_device) {
        /* the witness goes up first, unless it is there (it stays for L, A,
         * B); a, b, c from it. A lean plan's goes packed into a chunk
         * buffer, read in place: a and b now, c once a' b' is formed. */
        if (lean) {
            if ((st = cz_gpu_witness_pack_up(&pz, srs->chunk[0], cz_gpu_srs_pack_room(srs), srs->up,
                                             zpack, err)) != CZ_OK)
                goto done;
            prof_step(&pr, "upload packed assignment");
        } else if (!z) {
            if ((st = cz_gpu_alloc_pooled((void **)&b.z, (ni + na) * sizeof(cz_fr), err)) !=
                CZ_OK) {
                cz_error_prefix(err, "gpu prove: the witness (%zu elements)", ni + na);
                goto done;
            }
            /* a, b, c's buffers (written next) are a pack's scratch */
            if ((st = witness_up(b.z, b.abc, nbuf * m * sizeof(cz_fr), srs, pd, zpack, err)) !=
                CZ_OK)
                goto done;
            z = b.z;
            prof_step(&pr, "upload assignment");
        }
        if (cancel_point(&st, lean ? "a, b" : "a, b, c", err)) goto done;
        for (int j = 0; j < nbuf && st == CZ_OK; j++)
            st = cz_gpu_zero(b.abc + j * m + n, (m - n) * sizeof(cz_fr), err);
        if (st == CZ_OK)
            st = lean ? cz_gpu_circuit_eval_packed(b.abc, b.abc + m, NULL, circuit, &pz, err)
                      : cz_gpu_circuit_eval(b.abc, b.abc + m, b.abc + 2 * m, circuit, z, err);
        if (st != CZ_OK) {
            cz_error_prefix(err, "gpu prove: a, b%s from the device circuit", lean ? "" : ", c");
            goto done;
        }
        dens = ci.dev_density;
        prof_step(&pr, lean ? "a, b on the device" : "a, b, c on the device");
    } else {
        const cz_fr *src[3] = {pd->a, pd->b, pd->c};
        for (int j = 0; j < nbuf; j++)
            if ((st = abc_upload(srs, b.abc + j * m, src[j], n, m, &ticket, err)) != CZ_OK)
                goto done;
        if ((st = cz_gpu_uploader_wait(srs->up, ticket, err)) != CZ_OK) goto done;
        prof_step(&pr, lean ? "upload a, b" : "upload a, b, c");
    }
    /* a boundary between the evaluation (68 ms at 32 GiB, lean, on an H100)
     * and the transforms (~80 ms a vector): a WinningPoSt waited both */
    if (cancel_point(&st, "the H chain's transforms", err)) goto done;
    /* a streamed H's first chunk goes up while the H chain runs (the link
     * idles then; chunk[1] is unused until the H MSM) */
    if (srs->streaming && !srs->h) {
        const stream_next h = {
            {(const uint8_t *)params->h, sizeof(cz_g1_affine)}, m - 1, srs->chunk_points};
        stream_ahead(srs, &h);
    }
    /* a step boundary after each vector's two transforms (~80 ms at 2^27),
     * so a higher-priority unit does not wait for the whole chain */
    for (int j = 0; j < nbuf; j++) {
        if ((st = abc_coset(srs, b.abc + j * m, err)) != CZ_OK) goto done;
        if (cancel_point(&st, "the next transforms of the H chain", err)) goto done;
    }
    if (lean) {
        /* a' b' into a's buffer, then c where b was */
        if ((st = cz_gpu_ntt_pointwise_mul(srs->dom, b.abc, b.abc + m, err)) != CZ_OK) goto done;
        if (on_device) {
            if ((st = cz_gpu_zero(b.abc + m + n, (m - n) * sizeof(cz_fr), err)) != CZ_OK ||
                (st = cz_gpu_circuit_eval_packed(NULL, NULL, b.abc + m, circuit, &pz, err)) !=
                    CZ_OK) {
                cz_error_prefix(err, "gpu prove: c from the device circuit");
                goto done;
            }
        } else if ((st = abc_upload(srs, b.abc + m, pd->c, n, m, &ticket, err)) != CZ_OK ||
                   (st = cz_gpu_uploader_wait(srs->up, ticket, err)) != CZ_OK) {
            goto done;
        }
        if ((st = abc_coset(srs, b.abc + m, err)) != CZ_OK) goto done;
        if (cancel_point(&st, "the quotient", err)) goto done;
        st = cz_gpu_ntt_coset_quotient(srs->dom, b.abc, NULL, b.abc + m, err);
    } else {
        st = cz_gpu_ntt_coset_quotient(srs->dom, b.abc, b.abc + m, b.abc + 2 * m, err);
    }
    if (st == CZ_OK)
        st = cz_gpu_ntt_transform(srs->dom, b.abc, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_COSET, err);
    if (st != CZ_OK) goto done;
    {
        cz_fr top;
        if ((st = cz_gpu_download(&top, b.abc + m - 1, sizeof top, err)) != CZ_OK) goto done;
        if (!cz_fr_is_zero(&top)) {
            st = cz_error_set(err, CZ_E_INVALID_ARG,
                              "prove: the witness does not satisfy the constraints (A B - C is "
                              "not divisible by Z: H has degree m - 1)");
            goto done;
        }
    }
    prof_step(&pr, "H chain (7 NTT + quotient)");
    if (cancel_point(&st, "the H MSM", err)) goto done;
    if (srs->streaming) {
        /* the buckets where b and c were (or c, lean, and the plan's room
         * after it) */
        st = chunked_msm_g1(srs, &out->h, srs->h, params->h, m - 1, b.abc, b.abc + m,
                            (nbuf - 1) * m * sizeof(cz_fr) + sum_room, err);
    } else {
        st = cz_gpu_g1_msm(&out->h, srs->h, b.abc, m - 1, err);
    }
    if (st != CZ_OK) {
        cz_error_prefix(err, "gpu prove: H MSM (%zu points)", m - 1);
        goto done;
    }
    cz_gpu_free_pooled(b.abc);
    b.abc = NULL;
    prof_step(&pr, "H MSM");

    /* ---- assignment and densities up (unless they are there); buffers
     * for the splits ---- */
    {
        size_t nmax = max3(na, n_a, n_b);
        /* a lean plan masks long tails chunk by chunk; a chunked plan's pass
         * sets gather short ones */
        size_t tail_room = lean ? srs->chunk_points : nmax;
        if (srs->streaming && tail_room < cz_gpu_plan_pass_tail(nmax))
            tail_room = cz_gpu_plan_pass_tail(nmax);
        if ((!z &&
             (st = cz_gpu_alloc_pooled((void **)&b.z, (ni + na) * sizeof(cz_fr), err)) != CZ_OK) ||
            (!on_device &&
             (st = cz_gpu_alloc_pooled((void **)&b.dens, (2 * wa + wi) * 8, err)) != CZ_OK) ||
            (st = cz_gpu_alloc_pooled((void **)&b.idx, (ni + na) * sizeof(uint32_t), err)) !=
                CZ_OK ||
            (st = cz_gpu_alloc_pooled((void **)&b.scal, (n_a > n_b ? n_a : n_b) * sizeof(cz_fr),
                                      err)) != CZ_OK ||
            (st = cz_gpu_alloc_pooled((void **)&b.ones, words(nmax) * 8, err)) != CZ_OK ||
            (st = cz_gpu_alloc_pooled((void **)&b.tail_s, tail_room * sizeof(cz_fr), err)) !=
                CZ_OK ||
            (!srs->streaming &&
             ((st = cz_gpu_alloc_pooled((void **)&b.tp1,
                                        cz_gpu_plan_tail_cap(nmax) * sizeof(cz_g1_affine), err)) !=
                  CZ_OK ||
              (st = cz_gpu_alloc_pooled((void **)&b.tp2,
                                        cz_gpu_plan_tail_cap(n_b) * sizeof(cz_g2_affine), err)) !=
                  CZ_OK))) {
            cz_error_prefix(err, "gpu prove: per-proof buffers (%zu scalars)", ni + na);
            goto done;
        }
        if (srs->streaming && !(ps = calloc(1, sizeof *ps))) {
            st = cz_error_set(err, CZ_E_NOMEM, "gpu prove: out of host memory");
            goto done;
        }
        if (!z) {
            /* the compacted scalars' buffer (written later) is a pack's
             * scratch; the densities are the device circuit's, or go up */
            if ((st = witness_up(b.z, b.scal, (n_a > n_b ? n_a : n_b) * sizeof(cz_fr), srs, pd,
                                 zpack, err)) != CZ_OK ||
                (!on_device && (st = host_densities_up(srs, &b, pd, wa, wi, err)) != CZ_OK))
                goto done;
            z = b.z;
            if (!on_device) dens = b.dens;
            prof_step(&pr, "upload assignment");
        }
    }

    /* ---- L: every aux ---- */
    if (cancel_point(&st, "the L MSM", err)) goto done;
    {
        split_points pp = {srs->l, srs->streaming ? params->l : NULL, NULL, NULL};
        st = ps ? chunked_split(srs, &ps->sum[PASS_L], &out->l, NULL, &pp, z + ni, na, &b, "L", &pr,
                                err)
                : resident_split(&out->l, NULL, &pp, z + ni, na, &b, "L", &pr, err);
        if (st != CZ_OK) goto done;
    }

    /* ---- A: every input, then the aux dense in A (z indices) ---- */
    if (cancel_point(&st, "the A MSM", err)) goto done;
    {
        size_t c1 = 0, c2 = 0;
        if ((st = cz_gpu_select_bits(b.idx, &c1, NULL, ni, 0, err)) != CZ_OK ||
            (st = cz_gpu_select_bits(b.idx + c1, &c2, dens, na, (uint32_t)ni, err)) != CZ_OK ||
            (st = cz_gpu_gather_fr(b.scal, z, b.idx, c1 + c2, err)) != CZ_OK)
            goto done;
        if (c1 + c2 != n_a) { /* check_shapes counted the same bits on the host */
            st = cz_error_set(err, CZ_E_INTERNAL, "gpu prove: A compaction gave %zu of %zu",
                              c1 + c2, n_a);
            goto done;
        }
        split_points pp = {srs->a, srs->streaming ? params->a : NULL, NULL, NULL};
        st = ps ? chunked_split(srs, &ps->sum[PASS_A], &out->a, NULL, &pp, b.scal, n_a, &b, "A",
                                &pr, err)
                : resident_split(&out->a, NULL, &pp, b.scal, n_a, &b, "A", &pr, err);
        if (st != CZ_OK) goto done;
    }

    /* ---- B: inputs dense in B, then aux dense in B; G1 and G2 ---- */
    if (cancel_point(&st, "the B MSMs", err)) goto done;
    {
        size_t c1 = 0, c2 = 0;
        if ((st = cz_gpu_select_bits(b.idx, &c1, dens + 2 * wa, ni, 0, err)) != CZ_OK ||
            (st = cz_gpu_select_bits(b.idx + c1, &c2, dens + wa, na, (uint32_t)ni, err)) != CZ_OK ||
            (st = cz_gpu_gather_fr(b.scal, z, b.idx, c1 + c2, err)) != CZ_OK)
            goto done;
        if (c1 + c2 != n_b) {
            st = cz_error_set(err, CZ_E_INTERNAL, "gpu prove: B compaction gave %zu of %zu",
                              c1 + c2, n_b);
            goto done;
        }
        split_points pp = {srs->b_g1, srs->streaming ? params->b_g1 : NULL, srs->b_g2,
                           srs->streaming ? params->b_g2 : NULL};
        st = ps ? chunked_split(srs, &ps->sum[PASS_B], &out->b_g1, &out->b_g2, &pp, b.scal, n_b, &b,
                                "B", &pr, err)
                : resident_split(&out->b_g1, &out->b_g2, &pp, b.scal, n_b, &b, "B", &pr, err);
    }
done:
    ahead_drop(srs);
    bufs_free(&b);
    if (st == CZ_OK && ps && (ps->sum[PASS_L].n || ps->sum[PASS_A].n || ps->sum[PASS_B].n)) {
        *set = ps;
        ps = NULL;
    }
    cz_gpu_pass_set_free(ps);
    return st;
}

cz_status cz_gpu_groth16_prove_start(cz_groth16_msm_results *out, cz_gpu_srs *srs,
                                     const cz_groth16_params *params, const cz_gpu_circuit *circuit,
                                     const cz_prove_data *pd, const cz_fr *dev_z, cz_error *err) {
    cz_gpu_pass_set *set = NULL;
    cz_status st = cz_gpu_groth16_prove_head(out, &set, srs, params, circuit, pd, dev_z, NULL, err);
    if (st == CZ_OK && set) st = cz_gpu_groth16_pass(srs, params, &set, &out, 1, err);
    cz_gpu_pass_set_free(set);
    return st;
}
