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
 * is the same group element as the plain MSM. The bases stay resident in a cz_gpu_srs across
 * proofs. Everything here goes through the C interface of gpu.h, so this file is C (and builds
 * against gpu_stub.c without CUDA, failing at srs creation). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "gpu/plan.h"
#include "groth16/digest.h"
#include "r1cs/xxh64.h"
#include "gpu/settings.h"
#include "r1cs/backends.h"
#include "util/cancel.h"
#include "util/log.h"
#include "util/parallel.h"
#include "util/size.h"

struct cz_gpu_srs {
    /* counts only (every pointer NULL): what cz_groth16_check_shapes reads */
    cz_groth16_params shape;
    unsigned log_m; /* domain 2^log_m = n_h + 1 */
    cz_gpu_ntt *dom;
    cz_g1_affine *h, *l, *a, *b_g1; /* NULL when streaming */
    cz_g2_affine *b_g2;
    cz_gpu_uploader *up; /* pinned staging for every upload */
    /* streaming: chunk_points points per chunk, two device chunk buffers
     * (room for chunk_points G2 points each) */
    cz_gpu_plan plan;
    int streaming; /* plan.kind != resident: some vector streams, MSMs run in chunks */
    size_t chunk_points;
    void *chunk[2];
    size_t bytes;
    char why[512];
};

/* The steps of a proof: to the calling thread's hook (cz_gpu_set_step_hook)
 * and, with CZ_GPU_PROVE_PROFILE=1, milliseconds per step on stderr. Every
 * step ends with the device idle, so host time is device time. */
static _Thread_local cz_gpu_step_fn step_hook;
static _Thread_local void *step_hook_ctx;

#define MIB(x)       ((double)(x) / (1024.0 * 1024.0))
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

/* Points [k0, k0 + count) of a host vector, contiguous or picked by index. */
typedef struct {
    const uint8_t *base;
    size_t size;          /* bytes per point */
    const uint32_t *pick; /* NULL: point k is base[k] */
} host_points;

typedef struct {
    uint8_t *dst;
    const host_points *src;
    size_t k0;
} fill_ctx;

static void fill_range(void *vctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const fill_ctx *c = vctx;
    const host_points *s = c->src;
    if (!s->pick) {
        memcpy(c->dst + begin * s->size, s->base + (c->k0 + begin) * s->size,
               (end - begin) * s->size);
        return;
    }
    for (size_t j = begin; j < end; j++)
        memcpy(c->dst + j * s->size, s->base + (size_t)s->pick[c->k0 + j] * s->size, s->size);
}

/* Stages points [k0, k0 + count) and queues their copy to dev. */
static cz_status send_points(cz_gpu_uploader *up, void *dev, const host_points *src, size_t k0,
                             size_t count, uint64_t *ticket, cz_error *err) {
    void *stage;
    cz_status st = cz_gpu_uploader_stage(up, &stage, err);
    if (st != CZ_OK) return st;
    fill_ctx c = {stage, src, k0};
    size_t grain = (count + 63) / 64;
    if (grain < 8192) grain = 8192; /* small chunks: fewer threads to start */
    cz_parallel_for(count, grain, fill_range, &c);
    return cz_gpu_uploader_send(up, dev, count * src->size, ticket, err);
}

/* Copies bytes of host memory to dev through the staging buffers; returns
 * the ticket of the last piece (the caller waits for it). */
static cz_status upload(cz_gpu_uploader *up, void *dev, const void *host, size_t bytes,
                        uint64_t *ticket, cz_error *err) {
    const size_t chunk = cz_gpu_uploader_chunk(up);
    host_points src = {host, 1, NULL};
    *ticket = 0;
    for (size_t off = 0; off < bytes; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        cz_status st = send_points(up, (uint8_t *)dev + off, &src, off, len, ticket, err);
        if (st != CZ_OK) return st;
    }
    return CZ_OK;
}

/* inputs then aux to dev_z, returning when the copy is done */
static cz_status witness_upload(cz_fr *dev_z, cz_gpu_uploader *up, const cz_fr *inputs, size_t ni,
                                const cz_fr *aux, size_t na, cz_error *err) {
    uint64_t ticket = 0;
    cz_status st = upload(up, dev_z, inputs, ni * sizeof(cz_fr), &ticket, err);
    if (st == CZ_OK) st = upload(up, dev_z + ni, aux, na * sizeof(cz_fr), &ticket, err);
    if (st == CZ_OK) st = cz_gpu_uploader_wait(up, ticket, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "gpu: witness upload (%zu elements)", ni + na);
    return CZ_OK;
}

cz_status cz_gpu_witness_upload(cz_fr *dev_z, cz_gpu_uploader *up, const cz_fr *inputs, size_t ni,
                                const cz_fr *aux, size_t na, cz_error *err) {
    const uint64_t t0 = cz_now_ns();
    cz_status st = witness_upload(dev_z, up, inputs, ni, aux, na, err);
    if (st == CZ_OK && step_hook)
        step_hook(step_hook_ctx, "witness upload (staged)", t0, cz_now_ns());
    return st;
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
    const cz_gpu_settings *knobs = cz_gpu_settings_get();
    if (knobs->has_mem_limit && knobs->mem_limit < *budget) *budget = (size_t)knobs->mem_limit;
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
    return cz_gpu_plan_make(pl, p, budget, knobs->stream_chunk, knobs->stream_keep, err);
}

static size_t max3(size_t a, size_t b, size_t c) {
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

static size_t words(size_t bits) {
    return (bits + 63) / 64;
}

/* Gathered tail points per tail MSM piece of the resident plan (2^24 by
 * default: the gather buffers take 288 B x 2^24 = 4.5 GiB at most instead
 * of 288 B per scalar, 36 GiB for the 32 GiB PoRep key). */
static size_t tail_cap(size_t n) {
    return n < cz_gpu_plan_tail_chunk() ? n : cz_gpu_plan_tail_chunk();
}

static cz_status put(cz_gpu_srs *s, void **dev, const void *host, size_t bytes, const char *name,
                     cz_error *err) {
    uint64_t ticket = 0;
    cz_status st = cz_gpu_alloc(dev, bytes, err);
    if (st == CZ_OK) st = upload(s->up, *dev, host, bytes, &ticket, err);
    if (st == CZ_OK) st = cz_gpu_uploader_wait(s->up, ticket, err);
    if (st != CZ_OK) cz_error_prefix(err, "gpu srs: %s (%.1f MiB)", name, MIB(bytes));
    return st;
}

static void shape_of(cz_groth16_params *shape, const cz_groth16_params *p) {
    memset(shape, 0, sizeof *shape);
    shape->vk.n_ic = p->vk.n_ic;
    shape->n_h = p->n_h, shape->n_l = p->n_l, shape->n_a = p->n_a;
    shape->n_b_g1 = p->n_b_g1, shape->n_b_g2 = p->n_b_g2;
}

cz_status cz_gpu_srs_plan(int *resident, const cz_groth16_params *shape, size_t budget_bytes,
                          char *why, size_t why_size, cz_error *err) {
    *resident = 0;
    cz_gpu_plan pl;
    const char *capped = "";
    cz_error perr = {0};
    cz_status st = plan_srs(&pl, &capped, shape, budget_bytes, &perr);
    if (st != CZ_OK && st != CZ_E_NOMEM) {
        if (err) *err = perr;
        return st;
    }
    *resident = st == CZ_OK && pl.kind == CZ_GPU_PLAN_RESIDENT;
    if (st == CZ_E_NOMEM) {
        if (why && why_size) snprintf(why, why_size, "does not fit: %s%s", perr.message, capped);
        if (err) *err = perr;
        cz_error_prefix(err, "%s", capped[0] ? capped + 2 : "the device");
        return st;
    }
    if (why && why_size) {
        {
            char plan[256];
            cz_gpu_plan_describe(plan, sizeof plan, &pl);
            snprintf(why, why_size, "%s: %s%s",
                     *resident                             ? "fits"
                     : cz_gpu_settings_get()->stream_chunk ? "streams (CZ_GPU_STREAM_CHUNK is set)"
                                                           : "does not fit",
                     plan, capped);
        }
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
        if (st == CZ_E_NOMEM) cz_error_prefix(err, "%s", capped[0] ? capped + 2 : "");
        return st;
    }
    const size_t g1 = sizeof(cz_g1_affine), g2 = sizeof(cz_g2_affine);
    cz_gpu_srs *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "gpu srs: out of host memory");
    shape_of(&s->shape, p);
    s->log_m = pl.log_m;
    s->plan = pl;
    s->bytes = pl.held;
    s->streaming = pl.kind != CZ_GPU_PLAN_RESIDENT;
    s->chunk_points = pl.chunk_points;
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
    if (s->streaming) {
        for (int i = 0; i < 2; i++)
            if ((st = cz_gpu_alloc(&s->chunk[i], s->chunk_points * g2, err)) != CZ_OK) {
                cz_error_prefix(err, "gpu srs: chunk buffer (%.1f MiB)", MIB(s->chunk_points * g2));
                goto fail;
            }
    }
    {
        void **dev[CZ_GROTH16_VECTORS] = {(void **)&s->h, (void **)&s->l, (void **)&s->a,
                                          (void **)&s->b_g1, (void **)&s->b_g2};
        const void *host[CZ_GROTH16_VECTORS] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
        const size_t bytes[CZ_GROTH16_VECTORS] = {p->n_h * g1, p->n_l * g1, p->n_a * g1,
                                                  p->n_b_g1 * g1, p->n_b_g2 * g2};
        for (int v = 0; v < CZ_GROTH16_VECTORS; v++)
            if ((pl.keep >> v & 1) &&
                (st = put(s, dev[v], host[v], bytes[v], cz_groth16_vector_name(v), err)) != CZ_OK)
                goto fail;
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

static size_t keyload_chunk(size_t asked) {
    size_t c = asked;
    const char *env = getenv("CZ_GPU_KEYLOAD_CHUNK_MIB");
    if (!c && env && *env) c = (size_t)strtoull(env, NULL, 10) << 20;
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
                            f->path, MIB(pl.resident_need), MIB(pl.budget), capped,
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
            cz_error_prefix(err, "gpu srs: %s (%.1f MiB)", cz_groth16_vector_name(v), MIB(bytes));
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
             MIB(pl.held), check_curve ? "checked" : "trusted by digest", MIB(pl.resident_need),
             MIB(pl.budget), capped);
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

/* Per-proof device buffers (sizes from the shapes; freed together). */
typedef struct {
    cz_fr *abc;        /* 3m: a, b, c -> h */
    cz_fr *z;          /* inputs then aux */
    uint64_t *dens;    /* a_aux, b_aux, b_input bitmaps (uploaded from pd) */
    uint32_t *idx;     /* compaction indices, then tail indices */
    cz_fr *scal;       /* compacted scalars of A or B */
    uint64_t *ones;    /* "scalar is 1" bitmap */
    cz_fr *tail_s;     /* gathered tail scalars */
    cz_g1_affine *tp1; /* gathered tail points (resident SRS) */
    cz_g2_affine *tp2;
    uint32_t *host_idx; /* tail indices on the host (streaming SRS) */
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
    free(b->host_idx);
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
    if (p->on) fprintf(stderr, "gpu prove: %-28s %8.2f ms\n", what, (double)(now - p->t) / 1e6);
    p->t = now;
}

/* send_points on a helper thread (stream_sum: the CPU's copy of the next
 * chunk into pinned memory runs while the main thread waits on the current
 * chunk's kernels; the helper is the only user of the uploader meanwhile). */
typedef struct {
    cz_gpu_uploader *up;
    void *dev;
    const host_points *src;
    size_t k0, count;
    uint64_t *ticket;
    cz_status st;
    cz_error err;
} send_job;

static void *send_job_run(void *arg) {
    send_job *j = arg;
    j->st = send_points(j->up, j->dev, j->src, j->k0, j->count, j->ticket, &j->err);
    return NULL;
}

/* o1 (G1) or o2 (G2) += the sum of cnt device points pts (points k0.. of
 * the vector), weighted by scal[k0..] or selected by the bits from k0. */
static cz_status chunk_sum(cz_g1 *o1, cz_g2 *o2, const void *pts, const cz_fr *scal,
                           const uint64_t *bits, size_t k0, size_t cnt, cz_error *err) {
    cz_status st;
    if (o1) {
        cz_g1 part;
        st = scal ? cz_gpu_g1_msm(&part, pts, scal + k0, cnt, err)
                  : cz_gpu_g1_batch_add(&part, pts, bits + k0 / 64, cnt, err);
        if (st == CZ_OK) cz_g1_add(o1, o1, &part);
    } else {
        cz_g2 part;
        st = scal ? cz_gpu_g2_msm(&part, pts, scal + k0, cnt, err)
                  : cz_gpu_g2_batch_add(&part, pts, bits + k0 / 64, cnt, err);
        if (st == CZ_OK) cz_g2_add(o2, o2, &part);
    }
    return st;
}

/* Streaming SRS: o1 (G1) or o2 (G2) = the sum over the n host points of
 * src, chunk by chunk through the two device chunk buffers (chunk k + 1 is
 * staged by the CPU and copied while the kernels of chunk k run), either weighted by the
 * device scalars scal (an MSM; scal[j] goes with point j) or selected by
 * the device bitmap bits (batch addition; chunks start at multiples of 64
 * points). */
static cz_status stream_sum(cz_gpu_srs *s, cz_g1 *o1, cz_g2 *o2, const host_points *src, size_t n,
                            const cz_fr *scal, const uint64_t *bits, cz_error *err) {
    const size_t c = s->chunk_points;
    uint64_t ticket[2] = {0, 0};
    cz_status st = CZ_OK;
    if (o1) cz_g1_set_infinity(o1);
    if (o2) cz_g2_set_infinity(o2);
    if (n == 0) return CZ_OK;
    st = send_points(s->up, s->chunk[0], src, 0, n < c ? n : c, &ticket[0], err);
    for (size_t k = 0; st == CZ_OK && k * c < n; k++) {
        const size_t k0 = k * c, cnt = n - k0 < c ? n - k0 : c;
        /* chunk k + 1 into the other buffers (their last readers, chunk
         * k - 1's copy and kernels, are done); the helper only touches the
         * uploader's slot of that copy, the wait below the other one's */
        send_job job = {.up = s->up,
                        .dev = s->chunk[(k + 1) & 1],
                        .src = src,
                        .k0 = k0 + cnt,
                        .ticket = &ticket[(k + 1) & 1],
                        .st = CZ_OK};
        pthread_t helper;
        int threaded = 0;
        if (k0 + cnt < n) {
            job.count = n - k0 - cnt < c ? n - k0 - cnt : c;
            threaded = pthread_create(&helper, NULL, send_job_run, &job) == 0;
            if (!threaded) send_job_run(&job);
        }
        st = cz_gpu_uploader_wait(s->up, ticket[k & 1], err);
        if (st == CZ_OK) st = chunk_sum(o1, o2, s->chunk[k & 1], scal, bits, k0, cnt, err);
        if (threaded) pthread_join(helper, NULL);
        if (st == CZ_OK && job.st != CZ_OK) {
            st = job.st;
            *err = job.err;
        }
    }
    if (st != CZ_OK) cz_error_prefix(err, "streamed chunks of %zu points", c);
    return st;
}

/* A step boundary (util/cancel.h): a higher-priority unit may run here
 * (the engine's hook), and a cancelled job's unit stops. */
static int cancel_point(cz_status *st, const char *before, cz_error *err) {
    if (!cz_step_boundary()) return 0;
    *st = cz_error_set(err, CZ_E_CANCELLED, "gpu prove: cancelled before %s", before);
    return 1;
}

/* A partial plan's resident vector: o1 (G1) or o2 (G2) = the sum over n of
 * its device points, in the pieces of the streamed chunks (the plan counts
 * one chunk's MSM scratch, not a whole vector's), weighted by scal or
 * selected by bits as in stream_sum. With idx (device indices) the points
 * idx[0..n) are gathered into a chunk buffer piece by piece. */
static cz_status device_sum(cz_gpu_srs *s, cz_g1 *o1, cz_g2 *o2, const void *dev,
                            const uint32_t *idx, size_t n, const cz_fr *scal, const uint64_t *bits,
                            cz_error *err) {
    const size_t c = s->chunk_points, size = o1 ? sizeof(cz_g1_affine) : sizeof(cz_g2_affine);
    cz_status st = CZ_OK;
    if (o1) cz_g1_set_infinity(o1);
    if (o2) cz_g2_set_infinity(o2);
    for (size_t k0 = 0; k0 < n && st == CZ_OK; k0 += c) {
        const size_t cnt = n - k0 < c ? n - k0 : c;
        const void *pts = (const uint8_t *)dev + k0 * size;
        if (idx) {
            st = o1 ? cz_gpu_gather_g1(s->chunk[0], dev, idx + k0, cnt, err)
                    : cz_gpu_gather_g2(s->chunk[0], dev, idx + k0, cnt, err);
            pts = s->chunk[0];
        }
        if (st == CZ_OK) st = chunk_sum(o1, o2, pts, scal, bits, k0, cnt, err);
    }
    if (st != CZ_OK) cz_error_prefix(err, "resident points in pieces of %zu", c);
    return st;
}

/* out = sum_i scalars[i] * points[i] over n device scalars with the 0 / 1 /
 * other split; G1 points (device p1, or host h1 when the SRS streams) and,
 * for B, the G2 points with the same scalars. */
typedef struct {
    const cz_g1_affine *p1, *h1; /* device / host */
    const cz_g2_affine *p2, *h2; /* NULL: no G2 part */
} split_points;

/* One of the G1 / G2 parts of a sum in a chunked plan: its points on the
 * device (dev, kept) or on the host (host), all n selected by bits or
 * weighted by scal, or (idx / host_idx) the n picked ones. */
static cz_status chunked_sum(cz_gpu_srs *s, cz_g1 *o1, cz_g2 *o2, const void *dev, const void *host,
                             size_t n, const cz_fr *scal, const uint64_t *bits, const uint32_t *idx,
                             const uint32_t *host_idx, cz_error *err) {
    if (dev) return device_sum(s, o1, o2, dev, idx, n, scal, bits, err);
    host_points h = {host, o1 ? sizeof(cz_g1_affine) : sizeof(cz_g2_affine), idx ? host_idx : NULL};
    return stream_sum(s, o1, o2, &h, n, scal, bits, err);
}

static cz_status split_sum(cz_gpu_srs *s, cz_g1 *o1, cz_g2 *o2, const split_points *pp,
                           const cz_fr *scal, size_t n, bufs *b, const char *name, prof *pr,
                           cz_error *err) {
    const int g2 = pp->p2 || pp->h2;
    size_t tail = 0;
    cz_status st = cz_gpu_classify(scal, n, b->ones, b->idx, &tail, err);
    if (st != CZ_OK) goto fail;
    if (s->streaming) {
        st = chunked_sum(s, o1, NULL, pp->p1, pp->h1, n, NULL, b->ones, NULL, NULL, err);
        if (st == CZ_OK && g2)
            st = chunked_sum(s, NULL, o2, pp->p2, pp->h2, n, NULL, b->ones, NULL, NULL, err);
    } else {
        st = cz_gpu_g1_batch_add(o1, pp->p1, b->ones, n, err);
        if (st == CZ_OK && g2) st = cz_gpu_g2_batch_add(o2, pp->p2, b->ones, n, err);
    }
    if (st != CZ_OK) goto fail;
    {
        char what[64];
        snprintf(what, sizeof what, "%s split + batch add", name);
        prof_step(pr, what);
    }
    if (cancel_point(&st, "the tail MSM", err)) goto fail;
    const int dense = tail && cz_gpu_plan_dense_tail(tail, n);
    if (tail) {
        cz_g1 t1;
        cz_g2 t2;
        cz_g1_set_infinity(&t1);
        cz_g2_set_infinity(&t2);
        if (dense) {
            /* one MSM over every point (in chunks when the plan streams),
             * the ones masked to zero: nothing gathered or picked */
            if ((st = cz_gpu_mask_fr(b->tail_s, scal, b->ones, n, err)) != CZ_OK) goto fail;
            if (s->streaming) {
                st = chunked_sum(s, &t1, NULL, pp->p1, pp->h1, n, b->tail_s, NULL, NULL, NULL, err);
                if (st == CZ_OK && g2)
                    st = chunked_sum(s, NULL, &t2, pp->p2, pp->h2, n, b->tail_s, NULL, NULL, NULL,
                                     err);
            } else {
                st = chunk_sum(&t1, NULL, pp->p1, b->tail_s, NULL, 0, n, err);
                if (st == CZ_OK && g2)
                    st = chunk_sum(NULL, &t2, pp->p2, b->tail_s, NULL, 0, n, err);
            }
        } else if ((st = cz_gpu_gather_fr(b->tail_s, scal, b->idx, tail, err)) != CZ_OK) {
            goto fail;
        } else if (s->streaming) {
            /* streamed points are picked on the host by the tail indices,
             * resident ones gathered on the device */
            if ((!pp->p1 || (g2 && !pp->p2)) &&
                (st = cz_gpu_download(b->host_idx, b->idx, tail * sizeof(uint32_t), err)) != CZ_OK)
                goto fail;
            st = chunked_sum(s, &t1, NULL, pp->p1, pp->h1, tail, b->tail_s, NULL, b->idx,
                             b->host_idx, err);
            if (st == CZ_OK && g2)
                st = chunked_sum(s, NULL, &t2, pp->p2, pp->h2, tail, b->tail_s, NULL, b->idx,
                                 b->host_idx, err);
        } else {
            /* in pieces of at most the tail chunk of gathered points */
            const size_t piece = cz_gpu_plan_tail_chunk();
            for (size_t k0 = 0; k0 < tail && st == CZ_OK; k0 += piece) {
                const size_t cnt = tail - k0 < piece ? tail - k0 : piece;
                st = cz_gpu_gather_g1(b->tp1, pp->p1, b->idx + k0, cnt, err);
                if (st == CZ_OK) st = chunk_sum(&t1, NULL, b->tp1, b->tail_s, NULL, k0, cnt, err);
                if (st == CZ_OK && g2) st = cz_gpu_gather_g2(b->tp2, pp->p2, b->idx + k0, cnt, err);
                if (st == CZ_OK && g2)
                    st = chunk_sum(NULL, &t2, b->tp2, b->tail_s, NULL, k0, cnt, err);
            }
        }
        if (st != CZ_OK) goto fail;
        cz_g1_add(o1, o1, &t1);
        if (g2) cz_g2_add(o2, o2, &t2);
    }
    {
        char what[64];
        snprintf(what, sizeof what, "%s tail MSM (%zu of %zu%s)", name, tail, n,
                 dense ? ", masked" : "");
        prof_step(pr, what);
    }
    return CZ_OK;
fail:
    cz_error_prefix(err, "gpu prove: %s (%zu scalars)", name, n);
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

cz_status cz_gpu_groth16_prove_start(cz_groth16_msm_results *out, cz_gpu_srs *srs,
                                     const cz_groth16_params *params, const cz_gpu_circuit *circuit,
                                     const cz_prove_data *pd, const cz_fr *dev_z, cz_error *err) {
    if (!srs) return cz_error_set(err, CZ_E_INVALID_ARG, "gpu prove: no SRS (cz_gpu_srs_create)");
    if (srs->streaming && !params)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu prove: the SRS streams its points: the host params are needed");
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
    const size_t m = (size_t)1 << srs->log_m, n = pd->num_constraints;
    const size_t ni = pd->num_inputs, na = pd->num_aux;
    const size_t n_a = srs->shape.n_a, n_b = srs->shape.n_b_g1;
    const size_t wi = words(ni), wa = words(na);
    const uint64_t *dens = NULL; /* device: a_aux | b_aux | b_input */
    bufs b = {0};
    const cz_fr *z = dev_z; /* the assignment on the device: dev_z or b.z */
    uint64_t ticket = 0;
    prof pr = {cz_gpu_settings_get()->prove_profile, cz_now_ns()};

    /* ---- H chain: a, b, c zero-padded to m on the device ---- */
    if ((st = cz_gpu_alloc_pooled((void **)&b.abc, 3 * m * sizeof(cz_fr), err)) != CZ_OK) {
        cz_error_prefix(err, "gpu prove: a, b, c (3 x 2^%u elements)", srs->log_m);
        goto done;
    }
    if (on_device) {
        /* the witness goes up first, unless it is there (it stays for L, A,
         * B); a, b, c from it */
        if (!z) {
            if ((st = cz_gpu_alloc_pooled((void **)&b.z, (ni + na) * sizeof(cz_fr), err)) !=
                CZ_OK) {
                cz_error_prefix(err, "gpu prove: the witness (%zu elements)", ni + na);
                goto done;
            }
            if ((st = witness_upload(b.z, srs->up, pd->input_assignment, ni, pd->aux_assignment, na,
                                     err)) != CZ_OK)
                goto done;
            z = b.z;
            prof_step(&pr, "upload assignment");
        }
        for (int j = 0; j < 3; j++) {
            cz_fr *d = b.abc + j * m;
            if ((st = cz_gpu_zero(d + n, (m - n) * sizeof(cz_fr), err)) != CZ_OK) goto done;
        }
        st = cz_gpu_circuit_eval(b.abc, b.abc + m, b.abc + 2 * m, circuit, z, err);
        if (st != CZ_OK) {
            cz_error_prefix(err, "gpu prove: a, b, c from the device circuit");
            goto done;
        }
        dens = ci.dev_density;
        prof_step(&pr, "a, b, c on the device");
    } else {
        const cz_fr *src[3] = {pd->a, pd->b, pd->c};
        for (int j = 0; j < 3; j++) {
            cz_fr *d = b.abc + j * m;
            if ((st = upload(srs->up, d, src[j], n * sizeof(cz_fr), &ticket, err)) != CZ_OK)
                goto done;
            if ((st = cz_gpu_zero(d + n, (m - n) * sizeof(cz_fr), err)) != CZ_OK) goto done;
        }
        if ((st = cz_gpu_uploader_wait(srs->up, ticket, err)) != CZ_OK) goto done;
        prof_step(&pr, "upload a, b, c");
    }
    for (int j = 0; j < 3; j++) {
        cz_fr *d = b.abc + j * m;
        st = cz_gpu_ntt_transform(srs->dom, d, CZ_NTT_NR, CZ_NTT_INVERSE, CZ_NTT_PLAIN, err);
        if (st == CZ_OK)
            st = cz_gpu_ntt_transform(srs->dom, d, CZ_NTT_RN, CZ_NTT_FORWARD, CZ_NTT_COSET, err);
        if (st != CZ_OK) goto done;
    }
    st = cz_gpu_ntt_coset_quotient(srs->dom, b.abc, b.abc + m, b.abc + 2 * m, err);
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
        st =
            chunked_sum(srs, &out->h, NULL, srs->h, params->h, m - 1, b.abc, NULL, NULL, NULL, err);
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
        if ((!on_device &&
             ((st = cz_gpu_alloc_pooled((void **)&b.z, (ni + na) * sizeof(cz_fr), err)) != CZ_OK ||
              (st = cz_gpu_alloc_pooled((void **)&b.dens, (2 * wa + wi) * 8, err)) != CZ_OK)) ||
            (st = cz_gpu_alloc_pooled((void **)&b.idx, (ni + na) * sizeof(uint32_t), err)) !=
                CZ_OK ||
            (st = cz_gpu_alloc_pooled((void **)&b.scal, (n_a > n_b ? n_a : n_b) * sizeof(cz_fr),
                                      err)) != CZ_OK ||
            (st = cz_gpu_alloc_pooled((void **)&b.ones, words(nmax) * 8, err)) != CZ_OK ||
            (st = cz_gpu_alloc_pooled((void **)&b.tail_s, nmax * sizeof(cz_fr), err)) != CZ_OK ||
            (!srs->streaming &&
             ((st = cz_gpu_alloc_pooled((void **)&b.tp1, tail_cap(nmax) * sizeof(cz_g1_affine),
                                        err)) != CZ_OK ||
              (st = cz_gpu_alloc_pooled((void **)&b.tp2, tail_cap(n_b) * sizeof(cz_g2_affine),
                                        err)) != CZ_OK))) {
            cz_error_prefix(err, "gpu prove: per-proof buffers (%zu scalars)", ni + na);
            goto done;
        }
        if (srs->streaming && !(b.host_idx = malloc(nmax * sizeof(uint32_t) + 1))) {
            st = cz_error_set(err, CZ_E_NOMEM, "gpu prove: out of host memory");
            goto done;
        }
        if (!on_device) {
            if ((st = upload(srs->up, b.z, pd->input_assignment, ni * sizeof(cz_fr), &ticket,
                             err)) != CZ_OK ||
                (st = upload(srs->up, b.z + ni, pd->aux_assignment, na * sizeof(cz_fr), &ticket,
                             err)) != CZ_OK ||
                (st = upload(srs->up, b.dens, pd->a_aux_density, wa * 8, &ticket, err)) != CZ_OK ||
                (st = upload(srs->up, b.dens + wa, pd->b_aux_density, wa * 8, &ticket, err)) !=
                    CZ_OK ||
                (st = upload(srs->up, b.dens + 2 * wa, pd->b_input_density, wi * 8, &ticket,
                             err)) != CZ_OK ||
                (st = cz_gpu_uploader_wait(srs->up, ticket, err)) != CZ_OK)
                goto done;
            z = b.z;
            dens = b.dens;
            prof_step(&pr, "upload assignment");
        }
    }

    /* ---- L: every aux ---- */
    if (cancel_point(&st, "the L MSM", err)) goto done;
    {
        split_points pp = {srs->l, srs->streaming ? params->l : NULL, NULL, NULL};
        st = split_sum(srs, &out->l, NULL, &pp, z + ni, na, &b, "L", &pr, err);
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
        st = split_sum(srs, &out->a, NULL, &pp, b.scal, n_a, &b, "A", &pr, err);
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
        st = split_sum(srs, &out->b_g1, &out->b_g2, &pp, b.scal, n_b, &b, "B", &pr, err);
    }
done:
    bufs_free(&b);
    return st;
}
