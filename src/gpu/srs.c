/* The proving key on the device (cz_gpu_srs): its memory plan (plan.c) on
 * the current device, the point vectors the plan keeps uploaded from host
 * points (cz_gpu_srs_create_budget) or straight from the mapped .params
 * file, converted and checked on the device (cz_gpu_srs_load), the NTT
 * domain, the chunk buffers of the streamed vectors; and the pinned
 * staging every host-to-device copy of the GPU layer goes through. The
 * prover that reads it is groth16.c. C on top of gpu.h: it builds against
 * gpu_stub.c without CUDA, failing at creation. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "gpu/settings.h"
#include "gpu/srs.h"
#include "groth16/digest.h"
#include "util/cancel.h"
#include "util/xxh64.h"
#include "util/log.h"
#include "util/parallel.h"
#include "util/size.h"

#define UPLOAD_CHUNK ((size_t)64 << 20) /* pinned staging per buffer, resident SRS */

void cz_gpu_srs_destroy(cz_gpu_srs *srs) {
    if (!srs) return;
    cz_gpu_uploader_destroy(srs->up);
    cz_gpu_ntt_destroy(srs->dom);
    cz_gpu_free(srs->h);
    cz_gpu_free(srs->l);
    cz_gpu_free(srs->a);
    cz_gpu_free(srs->b_g1);
    cz_gpu_free(srs->b_g2);
    cz_gpu_free(srs->chunk[0]);
    cz_gpu_free(srs->chunk[1]);
    cz_gpu_free(srs->fault);
    free(srs);
}

size_t cz_gpu_srs_bytes(const cz_gpu_srs *srs) {
    return srs ? srs->bytes : 0;
}

int cz_gpu_srs_streaming(const cz_gpu_srs *srs, char *why, size_t why_size) {
    if (why && why_size) snprintf(why, why_size, "%s", srs ? srs->why : "");
    return srs ? srs->streaming : 0;
}

/* ---- host-side copies into the pinned staging buffers ---- */

typedef struct {
    uint8_t *dst;
    const cz_gpu_host_points *src;
    size_t k0;
} fill_ctx;

static void fill_range(void *vctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const fill_ctx *c = vctx;
    const cz_gpu_host_points *s = c->src;
    memcpy(c->dst + begin * s->size, s->base + (c->k0 + begin) * s->size, (end - begin) * s->size);
}

/* Stages points [k0, k0 + count) and queues their copy to dev; a range of
 * page-locked points (the engine locks a streamed key's) goes straight
 * from the host points, without the CPU's copy. */
cz_status cz_gpu_stage_points(cz_gpu_uploader *up, void *dev, const cz_gpu_host_points *src,
                              size_t k0, size_t count, uint64_t *ticket, cz_error *err) {
    const uint8_t *from = src->base + k0 * src->size;
    if (cz_gpu_host_locked(from, count * src->size))
        return cz_gpu_uploader_send_host(up, dev, from, count * src->size, ticket, err);
    void *stage;
    cz_status st = cz_gpu_uploader_stage(up, &stage, count * src->size, err);
    if (st != CZ_OK) return st;
    fill_ctx c = {stage, src, k0};
    size_t grain = (count + 63) / 64;
    if (grain < 8192) grain = 8192; /* small chunks: fewer threads to start */
    cz_parallel_for(count, grain, fill_range, &c);
    return cz_gpu_uploader_send(up, dev, count * src->size, ticket, err);
}

/* Copies bytes of host memory to dev through the staging buffers, in
 * pieces of at most STAGE_PIECE (the uploader pins no more for them: a
 * streamed key's chunk-sized buffers are GBs, pinned only for its points
 * when they are not locked); *ticket becomes the last piece's (the caller
 * waits for it), and stays as it was when there is nothing to copy, so a
 * caller queuing several copies waits for the last one queued. */
#define STAGE_PIECE ((size_t)256 << 20)
cz_status cz_gpu_stage_bytes(cz_gpu_uploader *up, void *dev, const void *host, size_t bytes,
                             uint64_t *ticket, cz_error *err) {
    size_t chunk = cz_gpu_uploader_chunk(up);
    if (chunk > STAGE_PIECE) chunk = STAGE_PIECE;
    cz_gpu_host_points src = {host, 1};
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        cz_status st = cz_gpu_stage_points(up, (uint8_t *)dev + off, &src, off, len, ticket, err);
        if (st != CZ_OK) return st;
    }
    return CZ_OK;
}

/* ---- page-locked blocks (cz_gpu_block_get) ----
 * A pass set's parts come down from the device after its unit's head and
 * go up again in the pass. Into ordinary memory, freshly allocated, the
 * head's downloads went through the driver's own buffer and faulted every
 * page of the new block: a 32 GiB PoRep partition's three splits (~0.2 GB)
 * took 118 ms at 24 GiB on the H100, about 1.7 GB/s. A packed witness
 * (~0.12 GB) in ordinary memory went up as a CPU copy into the staging
 * buffers, up to 170 ms beside another unit's packing on every core. In
 * page-locked blocks both copies go straight; locking costs about what the
 * faults did, so a freed block is kept for the next buffer (up to
 * BLOCKS_IDLE of them, BLOCKS_IDLE_BYTES in all: the sets of one pass of
 * four units, ~0.8 GB at 32 GiB, and the packs beside them) until the
 * engine releases a key (cz_gpu_host_blocks_trim). Sizes are rounded up to
 * BLOCK_ROUND so that the next unit's buffers, of nearly the same sizes,
 * fit the blocks its predecessor left; a block more than twice the size
 * asked for is left for a buffer of its own size (a pack's, ~128 MB, not a
 * set's small part). */
#define BLOCK_HEAD        64
#define BLOCK_ROUND       ((size_t)16 << 20)
#define BLOCKS_IDLE       32
#define BLOCKS_IDLE_BYTES ((size_t)2 << 30)

typedef struct {
    size_t bytes; /* the whole block, head included */
    int locked;
} block_head;

static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static block_head *blocks_idle[BLOCKS_IDLE];
static size_t blocks_n, blocks_bytes;

void *cz_gpu_block_get(size_t bytes) {
    const size_t want = (bytes + BLOCK_HEAD + BLOCK_ROUND - 1) / BLOCK_ROUND * BLOCK_ROUND;
    block_head *h = NULL;
    pthread_mutex_lock(&blocks_lock);
    size_t best = blocks_n;
    for (size_t i = 0; i < blocks_n; i++)
        if (blocks_idle[i]->bytes >= want && blocks_idle[i]->bytes / 2 <= want &&
            (best == blocks_n || blocks_idle[i]->bytes < blocks_idle[best]->bytes))
            best = i;
    if (best < blocks_n) {
        h = blocks_idle[best];
        blocks_bytes -= h->bytes;
        blocks_idle[best] = blocks_idle[--blocks_n];
    }
    pthread_mutex_unlock(&blocks_lock);
    if (!h) {
        cz_error ignored = {0};
        void *p = NULL;
        const int locked = cz_gpu_host_alloc_locked(&p, want, &ignored) == CZ_OK;
        if (!locked) {
            if (!(p = malloc(want))) return NULL;
            cz_advise_huge_pages(p, want);
        }
        h = p;
        h->bytes = want;
        h->locked = locked;
    }
    return (uint8_t *)h + BLOCK_HEAD;
}

void cz_gpu_block_put(void *block) {
    if (!block) return;
    block_head *h = (block_head *)((uint8_t *)block - BLOCK_HEAD);
    if (!h->locked) {
        free(h);
        return;
    }
    pthread_mutex_lock(&blocks_lock);
    const int keep = blocks_n < BLOCKS_IDLE && blocks_bytes + h->bytes <= BLOCKS_IDLE_BYTES;
    if (keep) {
        blocks_idle[blocks_n++] = h;
        blocks_bytes += h->bytes;
    }
    pthread_mutex_unlock(&blocks_lock);
    if (!keep) cz_gpu_host_free_locked(h);
}

size_t cz_gpu_host_blocks_trim(void) {
    block_head *idle[BLOCKS_IDLE];
    pthread_mutex_lock(&blocks_lock);
    const size_t n = blocks_n, bytes = blocks_bytes;
    memcpy(idle, blocks_idle, n * sizeof *idle);
    blocks_n = blocks_bytes = 0;
    pthread_mutex_unlock(&blocks_lock);
    for (size_t i = 0; i < n; i++) cz_gpu_host_free_locked(idle[i]);
    return bytes;
}

/* Witness elements between two step boundaries of its upload (a 32 GiB
 * PoRep partition's 4.2 GB took 0.6 s through a resident key's staging, a
 * WinningPoSt waiting all of it): one staged piece, 2^23 elements. */
#define WITNESS_PIECE (STAGE_PIECE / sizeof(cz_fr))

/* inputs then aux to dev_z, returning when the copy is done; a step
 * boundary (util/cancel.h) between pieces of the aux, where a unit of a
 * higher priority may run (its copies, if it shares the uploader, queue
 * after the ones in flight, and the last ticket waited for covers them);
 * a cancel is seen at the caller's next boundary. */
cz_status cz_gpu_stage_witness(cz_fr *dev_z, cz_gpu_uploader *up, const cz_fr *inputs, size_t ni,
                               const cz_fr *aux, size_t na, cz_error *err) {
    uint64_t ticket = 0;
    cz_status st = cz_gpu_stage_bytes(up, dev_z, inputs, ni * sizeof(cz_fr), &ticket, err);
    for (size_t k = 0; k < na && st == CZ_OK; k += WITNESS_PIECE) {
        const size_t len = na - k < WITNESS_PIECE ? na - k : WITNESS_PIECE;
        if (k) (void)cz_step_boundary();
        st = cz_gpu_stage_bytes(up, dev_z + ni + k, aux + k, len * sizeof(cz_fr), &ticket, err);
    }
    if (st == CZ_OK) st = cz_gpu_uploader_wait(up, ticket, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "gpu: witness upload (%zu elements)", ni + na);
    return CZ_OK;
}

/* ---- memory planning (plan.c) ---- */

/* The device bytes this process may use: free memory, capped by the
 * caller's cap and $CZ_GPU_MEM_LIMIT when set; capped: "" or why the
 * budget is below the free memory. */
static cz_status device_budget(size_t *budget, const char **capped, size_t cap, cz_error *err) {
    size_t free_b = 0, total_b = 0;
    cz_status st = cz_gpu_mem_info(&free_b, &total_b, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "gpu srs");
    *budget = free_b;
    if (cap && cap < *budget) *budget = cap;
    if ((st = cz_gpu_settings_status(err)) != CZ_OK) return st; /* a bad CZ_GPU_MEM_LIMIT */
    uint64_t limit = 0;
    if (cz_gpu_settings_mem_limit(&limit) && limit < *budget) *budget = (size_t)limit;
    *capped = *budget < free_b ? ", capped by the context's budget or CZ_GPU_MEM_LIMIT" : "";
    return CZ_OK;
}

/* The plan of a key of shape p on the current device, within cap (0: its
 * free memory); CZ_E_NOMEM (below the minimum) leaves pl filled. */
static cz_status plan_srs(cz_gpu_plan *pl, const char **capped, const cz_groth16_params *p,
                          size_t cap, cz_error *err) {
    size_t budget = 0;
    cz_status st = device_budget(&budget, capped, cap, err);
    if (st != CZ_OK) return st;
    if ((st = cz_gpu_settings_status(err)) != CZ_OK) return st; /* a bad CZ_GPU_STREAM_CHUNK */
    const cz_gpu_settings *knobs = cz_gpu_settings_get();
    const cz_gpu_plan_force force = {knobs->stream_chunk, knobs->stream_keep, knobs->stream_lean};
    return cz_gpu_plan_make(pl, p, budget, &force, err);
}

/* A kept vector up from the host points, in pieces with a step boundary
 * between them (util/cancel.h): a unit of a higher priority may run there,
 * beside the upload (the engine's hook around a key's hold); a cancel does
 * not stop a key, which other jobs share. The file loader below meets one
 * per chunk. */
#define PUT_PIECE ((size_t)1 << 30)

static cz_status put(cz_gpu_srs *s, void **dev, const void *host, size_t bytes, const char *name,
                     cz_error *err) {
    uint64_t ticket = 0;
    cz_status st = cz_gpu_alloc(dev, bytes, err);
    for (size_t off = 0; off < bytes && st == CZ_OK; off += PUT_PIECE) {
        const size_t len = bytes - off < PUT_PIECE ? bytes - off : PUT_PIECE;
        st = cz_gpu_stage_bytes(s->up, (uint8_t *)*dev + off, (const uint8_t *)host + off, len,
                                &ticket, err);
        if (st == CZ_OK) st = cz_gpu_uploader_wait(s->up, ticket, err);
        if (st == CZ_OK) (void)cz_step_boundary(); /* between vectors too */
    }
    if (st != CZ_OK) cz_error_prefix(err, "gpu srs: %s (%.1f MiB)", name, CZ_GPU_MIB(bytes));
    return st;
}

static void shape_of(cz_groth16_params *shape, const cz_groth16_params *p) {
    memset(shape, 0, sizeof *shape);
    shape->vk.n_ic = p->vk.n_ic;
    shape->n_h = p->n_h, shape->n_l = p->n_l, shape->n_a = p->n_a;
    shape->n_b_g1 = p->n_b_g1, shape->n_b_g2 = p->n_b_g2;
}

cz_status cz_gpu_srs_plan(cz_gpu_plan *plan, const cz_groth16_params *shape, size_t budget_bytes,
                          char *why, size_t why_size, cz_error *err) {
    cz_gpu_plan pl;
    memset(&pl, 0, sizeof pl);
    const char *capped = "";
    cz_error perr = {0};
    cz_status st = plan_srs(&pl, &capped, shape, budget_bytes, &perr);
    if (plan) *plan = pl;
    if (st != CZ_OK && st != CZ_E_NOMEM) {
        if (err) *err = perr;
        return st;
    }
    if (st == CZ_E_NOMEM) {
        if (why && why_size) snprintf(why, why_size, "does not fit: %s%s", perr.message, capped);
        if (err) *err = perr;
        if (capped[0]) cz_error_prefix(err, "%s", capped + 2);
        return st;
    }
    if (why && why_size) {
        char line[256];
        cz_gpu_plan_describe(line, sizeof line, &pl);
        snprintf(why, why_size, "%s: %s%s",
                 pl.kind == CZ_GPU_PLAN_RESIDENT       ? "fits"
                 : cz_gpu_settings_get()->stream_chunk ? "streams (CZ_GPU_STREAM_CHUNK is set)"
                                                       : "does not fit",
                 line, capped);
    }
    return CZ_OK;
}

cz_status cz_gpu_srs_footprint(size_t *key_bytes, size_t *work_bytes,
                               const cz_groth16_params *shape, cz_error *err) {
    return cz_gpu_plan_footprint(key_bytes, work_bytes, shape, err);
}

void cz_gpu_srs_plan_get(cz_gpu_plan *out, const cz_gpu_srs *srs) {
    if (srs)
        *out = srs->plan;
    else
        memset(out, 0, sizeof *out);
}

size_t cz_gpu_srs_pack_room(const cz_gpu_srs *srs) {
    return srs && srs->plan.lean && srs->chunk[0] ? srs->chunk_points * sizeof(cz_g2_affine) : 0;
}

cz_status cz_gpu_srs_create(cz_gpu_srs **out, const cz_groth16_params *p, cz_error *err) {
    return cz_gpu_srs_create_budget(out, p, 0, err);
}

cz_status cz_gpu_srs_create_budget(cz_gpu_srs **out, const cz_groth16_params *p, size_t cap,
                                   cz_error *err) {
    *out = NULL;
    cz_gpu_plan pl;
    const char *capped = "";
    cz_status st = plan_srs(&pl, &capped, p, cap, err);
    if (st != CZ_OK) {
        if (st == CZ_E_NOMEM && capped[0]) cz_error_prefix(err, "%s", capped + 2);
        return st;
    }
    const size_t g2 = sizeof(cz_g2_affine);
    cz_gpu_srs *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "gpu srs: out of host memory");
    shape_of(&s->shape, p);
    s->log_m = pl.log_m;
    s->plan = pl;
    s->bytes = pl.held;
    s->streaming = pl.kind != CZ_GPU_PLAN_RESIDENT;
    s->chunk_points = pl.chunk_points;
    s->encoded = p->encoded;
    {
        char plan[256];
        cz_gpu_plan_describe(plan, sizeof plan, &pl);
        snprintf(s->why, sizeof s->why, "%s%s%s", plan,
                 pl.kind != CZ_GPU_PLAN_RESIDENT && cz_gpu_settings_get()->stream_chunk
                     ? " (CZ_GPU_STREAM_CHUNK is set)"
                     : "",
                 capped);
    }
    st = cz_gpu_uploader_create(&s->up, s->streaming ? s->chunk_points * g2 : UPLOAD_CHUNK, err);
    if (st != CZ_OK) goto fail;
    if ((st = cz_gpu_ntt_create(&s->dom, s->log_m, err)) != CZ_OK) {
        cz_error_prefix(err, "gpu srs: NTT domain 2^%u", s->log_m);
        goto fail;
    }
    if (s->encoded) {
        const unsigned long long none = ~0ull;
        if ((st = cz_gpu_alloc((void **)&s->fault, sizeof none, err)) != CZ_OK ||
            (st = cz_gpu_upload(s->fault, &none, sizeof none, err)) != CZ_OK)
            goto fail;
    }
    if (s->streaming) {
        for (int i = 0; i < 2; i++)
            if ((st = cz_gpu_alloc(&s->chunk[i], s->chunk_points * g2, err)) != CZ_OK) {
                cz_error_prefix(err, "gpu srs: chunk buffer (%.1f MiB)",
                                CZ_GPU_MIB(s->chunk_points * g2));
                goto fail;
            }
    }
    {
        void **dev[CZ_GROTH16_VECTORS] = {(void **)&s->h, (void **)&s->l, (void **)&s->a,
                                          (void **)&s->b_g1, (void **)&s->b_g2};
        for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
            size_t bytes = 0;
            const void *host = cz_groth16_params_points(p, v, &bytes);
            if (!(pl.keep >> v & 1)) continue;
            if ((st = put(s, dev[v], host, bytes, cz_groth16_vector_name(v), err)) != CZ_OK)
                goto fail;
            const int g2v = v == CZ_GROTH16_B_G2;
            st = cz_gpu_srs_convert(s, *dev[v], 0, bytes / cz_groth16_vector_point_bytes(v), g2v, 1,
                                    err);
            if (st == CZ_OK) st = cz_gpu_srs_convert_check(s, g2v, err);
            if (st != CZ_OK) {
                cz_error_prefix(err, "gpu srs: %s", cz_groth16_vector_name(v));
                goto fail;
            }
        }
    }
    *out = s;
    return CZ_OK;
fail:
    cz_gpu_srs_destroy(s);
    return st;
}

cz_status cz_gpu_srs_vector(const void **dev, size_t *n, const cz_gpu_srs *srs, int v,
                            cz_error *err) {
    *dev = NULL, *n = 0;
    if (!srs || srs->streaming || v < 0 || v >= CZ_GROTH16_VECTORS)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu srs: no resident vector %d", v);
    const void *ptr[CZ_GROTH16_VECTORS] = {srs->h, srs->l, srs->a, srs->b_g1, srs->b_g2};
    const size_t cnt[CZ_GROTH16_VECTORS] = {srs->shape.n_h, srs->shape.n_l, srs->shape.n_a,
                                            srs->shape.n_b_g1, srs->shape.n_b_g2};
    *dev = ptr[v];
    *n = cnt[v];
    return CZ_OK;
}

/* ---- the key from its .params file ---- */

#define KEYLOAD_CHUNK ((size_t)128 << 20) /* per pinned staging buffer */
#define KEYLOAD_SLICE ((size_t)64 << 10)  /* copied, then hashed while in the cache */

/* One chunk of the file into a staging buffer: each digest block copied
 * and hashed slice by slice. */
typedef struct {
    uint8_t *stage;
    const uint8_t *src;
    size_t len;
    uint64_t *digests; /* of the chunk's blocks */
} fill_job;

static void fill_blocks(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const fill_job *j = ctx;
    for (size_t b = begin; b < end; b++) {
        const size_t off = b * CZ_PARAMS_DIGEST_BLOCK;
        const size_t n =
            j->len - off < CZ_PARAMS_DIGEST_BLOCK ? j->len - off : CZ_PARAMS_DIGEST_BLOCK;
        cz_xxh64_state h;
        cz_xxh64_init(&h, 0); /* cz_params_digest_block: XXH64, seed 0 */
        for (size_t at = 0; at < n; at += KEYLOAD_SLICE) {
            const size_t len = n - at < KEYLOAD_SLICE ? n - at : KEYLOAD_SLICE;
            memcpy(j->stage + off + at, j->src + off + at, len);
            cz_xxh64_update(&h, j->stage + off + at, len);
        }
        j->digests[b] = cz_xxh64_digest(&h);
    }
}

static void advise(const uint8_t *base, size_t len, uint64_t from, uint64_t bytes, int advice) {
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (from >= len || !bytes) return;
    if (bytes > len - from) bytes = len - from;
    uintptr_t lo = (uintptr_t)(base + from) & ~(page - 1), hi = (uintptr_t)(base + from + bytes);
    madvise((void *)lo, hi - lo, advice);
}

static const char *fault_reason(unsigned reason) {
    switch (reason) {
    case CZ_GPU_KEY_FAULT_FLAGS: return "a flag bit set";
    case CZ_GPU_KEY_FAULT_RANGE: return "a coordinate >= p";
    case CZ_GPU_KEY_FAULT_ZERO: return "(0, 0)";
    case CZ_GPU_KEY_FAULT_CURVE: return "not on the curve";
    default: return "unknown";
    }
}

cz_status cz_gpu_srs_convert(const cz_gpu_srs *s, void *dev, size_t k0, size_t n, int g2,
                             int check_curve, cz_error *err) {
    if (!s->encoded || !n) return CZ_OK;
    return cz_gpu_points_from_file(dev, n, g2, k0, check_curve, s->fault, err);
}

cz_status cz_gpu_srs_convert_check(const cz_gpu_srs *s, int g2, cz_error *err) {
    if (!s->encoded) return CZ_OK;
    uint64_t bad = UINT64_MAX;
    unsigned reason = 0;
    cz_status st = cz_gpu_points_fault(s->fault, &bad, &reason, err);
    if (st == CZ_OK && bad != UINT64_MAX)
        st = cz_error_set(err, CZ_E_PARSE,
                          "the key's point %llu of the file (%s) is refused: %s: the .params "
                          "file is damaged",
                          (unsigned long long)bad, g2 ? "G2" : "G1", fault_reason(reason));
    return st;
}

static size_t keyload_chunk(size_t asked) {
    size_t c = asked;
    if (!c) c = cz_gpu_settings_get()->keyload_chunk_mib << 20;
    if (!c) c = KEYLOAD_CHUNK;
    c -= c % CZ_PARAMS_DIGEST_BLOCK;
    return c ? c : CZ_PARAMS_DIGEST_BLOCK;
}

cz_status cz_gpu_srs_load(cz_gpu_srs **out, const cz_groth16_params_file *f, size_t cap,
                          const cz_gpu_key_options *opt_in, cz_gpu_key_report *rep_out,
                          cz_error *err) {
    *out = NULL;
    const uint64_t t0 = cz_now_ns();
    cz_gpu_key_options opt = {0};
    if (opt_in) opt = *opt_in;
    cz_gpu_key_report rep;
    memset(&rep, 0, sizeof rep);
    const cz_groth16_params_layout *L = &f->layout;
    if (!f->data || L->file_bytes != f->len)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu srs: %s: not a mapped .params file",
                            f->path);
    cz_groth16_params shape;
    memset(&shape, 0, sizeof shape);
    shape.vk.n_ic = (size_t)L->n_ic;
    shape.n_h = (size_t)L->count[CZ_GROTH16_H], shape.n_l = (size_t)L->count[CZ_GROTH16_L];
    shape.n_a = (size_t)L->count[CZ_GROTH16_A], shape.n_b_g1 = (size_t)L->count[CZ_GROTH16_B_G1];
    shape.n_b_g2 = (size_t)L->count[CZ_GROTH16_B_G2];
    cz_gpu_plan pl;
    const char *capped = "";
    cz_status st = plan_srs(&pl, &capped, &shape, cap, err);
    if (st != CZ_OK && st != CZ_E_NOMEM) return cz_error_wrap(err, st, "%s", f->path);
    if (st != CZ_OK || pl.kind != CZ_GPU_PLAN_RESIDENT)
        return cz_error_set(err, CZ_E_NOMEM,
                            "gpu srs: %s: the key does not fit resident (%.0f MiB with a proof's "
                            "working set, %.0f MiB usable on the device%s%s); streaming it needs "
                            "its points in host memory",
                            f->path, CZ_GPU_MIB(pl.resident_need), CZ_GPU_MIB(pl.budget), capped,
                            cz_gpu_settings_get()->stream_chunk ? ", CZ_GPU_STREAM_CHUNK is set"
                                                                : "");

    /* How the points are checked. */
    int check_curve = opt.check != CZ_GPU_KEY_TRUSTED;
    uint64_t trusted = opt.trusted_digest;
    if (opt.check == CZ_GPU_KEY_AUTO) {
        cz_error rerr = {0};
        int known = 0;
        st = cz_params_digest_lookup(&trusted, &known, f->path, f->len, f->mtime_ns, &rerr);
        check_curve = st != CZ_OK || !known;
        if (st != CZ_OK)
            snprintf(rep.note, sizeof rep.note, "checked (%.250s)", rerr.message);
        else
            snprintf(rep.note, sizeof rep.note, "%s",
                     known ? "trusted: its digest record matches the file (size, time); the "
                             "digest is verified"
                           : "checked: no digest record of this version of the file");
        st = CZ_OK;
    } else {
        snprintf(rep.note, sizeof rep.note, "%s",
                 check_curve ? "checked (asked)" : "trusted: the digest given is verified");
    }
    rep.checked = check_curve;
    rep.file_bytes = f->len;
    rep.chunk_bytes = keyload_chunk(opt.chunk_bytes);

    const size_t g1 = sizeof(cz_g1_affine), g2 = sizeof(cz_g2_affine);
    const size_t B = CZ_PARAMS_DIGEST_BLOCK, chunk = rep.chunk_bytes;
    const size_t n_blocks = (f->len + B - 1) / B;
    cz_gpu_keyload *kl = NULL;
    uint64_t *digests = NULL;
    cz_gpu_srs *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "gpu srs: out of host memory");
    s->shape = shape;
    s->log_m = pl.log_m;
    s->plan = pl;
    s->bytes = pl.held;
    if (!(digests = malloc((n_blocks ? n_blocks : 1) * sizeof *digests))) {
        st = cz_error_set(err, CZ_E_NOMEM, "gpu srs: out of host memory");
        goto fail;
    }
    if ((st = cz_gpu_uploader_create(&s->up, UPLOAD_CHUNK, err)) != CZ_OK) goto fail;
    if ((st = cz_gpu_ntt_create(&s->dom, pl.log_m, err)) != CZ_OK) {
        cz_error_prefix(err, "gpu srs: NTT domain 2^%u", pl.log_m);
        goto fail;
    }
    void **dev[CZ_GROTH16_VECTORS] = {(void **)&s->h, (void **)&s->l, (void **)&s->a,
                                      (void **)&s->b_g1, (void **)&s->b_g2};
    uint64_t vec_end[CZ_GROTH16_VECTORS];
    int converted[CZ_GROTH16_VECTORS] = {0};
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        const size_t bytes = (size_t)L->count[v] * (v == CZ_GROTH16_B_G2 ? g2 : g1);
        vec_end[v] = L->offset[v] + bytes;
        if (bytes && (st = cz_gpu_alloc(dev[v], bytes, err)) != CZ_OK) {
            cz_error_prefix(err, "gpu srs: %s (%.1f MiB)", cz_groth16_vector_name(v),
                            CZ_GPU_MIB(bytes));
            goto fail;
        }
    }
    if ((st = cz_gpu_keyload_create(&kl, chunk, err)) != CZ_OK) goto fail;

    /* The file in order, chunk by chunk: the CPU fills one staging buffer
     * while the other's copies run. */
    uint64_t fill_ns = 0, wait_ns = 0;
    for (uint64_t pos = 0; pos < f->len && st == CZ_OK; pos += chunk) {
        const size_t n = f->len - pos < chunk ? (size_t)(f->len - pos) : chunk;
        advise(f->data, f->len, pos + n, 2 * chunk, MADV_WILLNEED);
        uint8_t *stage = NULL;
        uint64_t t = cz_now_ns();
        if ((st = cz_gpu_keyload_stage(kl, &stage, err)) != CZ_OK) break;
        uint64_t t1 = cz_now_ns();
        wait_ns += t1 - t;
        fill_job job = {stage, f->data + pos, n, digests + pos / B};
        cz_parallel_for((n + B - 1) / B, 1, fill_blocks, &job);
        fill_ns += cz_now_ns() - t1;
        for (int v = 0; v < CZ_GROTH16_VECTORS && st == CZ_OK; v++) {
            const uint64_t a = pos > L->offset[v] ? pos : L->offset[v];
            const uint64_t b = pos + n < vec_end[v] ? pos + n : vec_end[v];
            if (a < b)
                st = cz_gpu_keyload_copy(kl, (uint8_t *)*dev[v] + (a - L->offset[v]),
                                         (size_t)(a - pos), (size_t)(b - a), err);
        }
        if (st == CZ_OK) st = cz_gpu_keyload_commit(kl, err);
        if (st == CZ_OK && pos + n < f->len) (void)cz_step_boundary();
        /* the copy is in pinned memory: this process needs the pages no more */
        advise(f->data, f->len, pos, n, MADV_DONTNEED);
        for (int v = 0; v < CZ_GROTH16_VECTORS && st == CZ_OK; v++)
            if (!converted[v] && vec_end[v] <= pos + n) {
                st = cz_gpu_keyload_convert(kl, *dev[v], (size_t)L->count[v], v == CZ_GROTH16_B_G2,
                                            check_curve, (unsigned)v, err);
                converted[v] = 1;
            }
    }
    int fault = 0;
    unsigned tag = 0, reason = 0;
    uint64_t index = 0;
    if (st == CZ_OK) {
        uint64_t t = cz_now_ns();
        st = cz_gpu_keyload_finish(kl, &fault, &tag, &index, &reason, err);
        wait_ns += cz_now_ns() - t;
    }
    if (st != CZ_OK) {
        cz_error_prefix(err, "gpu srs: %s: loading the key", f->path);
        goto fail;
    }
    rep.fill_seconds = (double)fill_ns / 1e9;
    rep.wait_seconds = (double)wait_ns / 1e9;
    rep.digest = cz_params_digest_fold(digests, n_blocks, f->len);
    if (!check_curve && rep.digest != trusted) {
        char record[4200];
        if (opt.check == CZ_GPU_KEY_AUTO &&
            cz_params_digest_path(record, sizeof record, f->path, NULL) == CZ_OK)
            st = cz_error_set(err, CZ_E_PARSE,
                              "%s: digest %016llx differs from %016llx, which %s records for "
                              "this file's size and modification time: the file was damaged "
                              "or changed in place since it was validated (remove the record "
                              "to validate it again)",
                              f->path, (unsigned long long)rep.digest, (unsigned long long)trusted,
                              record);
        else
            st = cz_error_set(err, CZ_E_PARSE,
                              "%s: digest %016llx is not the trusted digest %016llx", f->path,
                              (unsigned long long)rep.digest, (unsigned long long)trusted);
        goto fail;
    }
    if (fault) {
        /* the host decoder's verdict and message for that point */
        const cz_groth16_check mode = check_curve ? CZ_GROTH16_UNCHECKED : CZ_GROTH16_TRUSTED;
        cz_error perr = {0};
        if (tag < CZ_GROTH16_VECTORS && index < L->count[tag] &&
            cz_groth16_params_check_point(NULL, f->data, L, (cz_groth16_vector)tag, index, mode,
                                          &perr) != CZ_OK) {
            st = perr.status;
            if (err) {
                *err = perr;
                cz_error_prefix(err, "%s", f->path);
            }
        } else {
            st = cz_error_set(err, CZ_E_INTERNAL,
                              "%s: the device refused params %s[%llu] (%s), which the host "
                              "decoder accepts",
                              f->path, cz_groth16_vector_name((cz_groth16_vector)tag),
                              (unsigned long long)index, fault_reason(reason));
        }
        goto fail;
    }
    if (check_curve && !opt.no_record) {
        cz_error werr = {0};
        rep.recorded =
            cz_params_digest_save(f->path, rep.digest, f->len, f->mtime_ns, &werr) == CZ_OK;
        if (!rep.recorded) {
            size_t used = strlen(rep.note);
            snprintf(rep.note + used, sizeof rep.note - used, "; digest record not written: %.200s",
                     werr.message);
        }
    }
    snprintf(s->why, sizeof s->why,
             "resident: %.0f MiB of points and tables loaded from the file (%s), %.0f MiB with a "
             "proof's working set, %.0f MiB usable on the device%s",
             CZ_GPU_MIB(pl.held), check_curve ? "checked" : "trusted by digest",
             CZ_GPU_MIB(pl.resident_need), CZ_GPU_MIB(pl.budget), capped);
    /* A witness that fits one staging buffer (a 32 GiB WinningPoSt's
     * 12 MB) finds it pinned when it goes up unstaged (a unit run inside
     * another at a step boundary: a WinningPoSt in a PoRep backlog), instead
     * of pinning on its latency path, 8-18 ms of a 1-2 ms upload. A larger
     * witness's pinning is a few percent of its upload: its buffers wait
     * for their first use. Only a speed-up: a refusal here is met again,
     * and reported, when something is staged. */
    const size_t witness = (shape.vk.n_ic + shape.n_l) * sizeof(cz_fr);
    if (witness <= cz_gpu_uploader_chunk(s->up)) {
        cz_error perr = {0};
        (void)cz_gpu_uploader_pin(s->up, witness, &perr);
    }
    cz_gpu_keyload_destroy(kl);
    free(digests);
    rep.seconds = (double)(cz_now_ns() - t0) / 1e9;
    if (rep_out) *rep_out = rep;
    *out = s;
    return CZ_OK;
fail:
    cz_gpu_keyload_destroy(kl);
    free(digests);
    cz_gpu_srs_destroy(s);
    rep.seconds = (double)(cz_now_ns() - t0) / 1e9;
    if (rep_out) *rep_out = rep;
    return st;
}
