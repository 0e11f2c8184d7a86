/* GPU knobs (see settings.h). */
#include "gpu/settings.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"
#include "util/size.h"

void cz_gpu_settings_defaults(cz_gpu_settings *s) {
    memset(s, 0, sizeof *s);
    s->abc_long = 16;
    s->abc_shared = 1;
    s->msm_acc_g1 = 2;
    s->msm_acc_g2 = 3;
    s->ntt_mtab = s->ntt_nn_dif = s->ntt_fuse = 1;
    s->ntt_g = s->ntt_g0 = 1;
    s->ntt_maxb = 9;
    s->batch_kmin = 32;
    s->batch_levels = 8;
    s->batch_chunk = (size_t)1 << 27;
    s->batch_fanin = 2;
    s->tail_chunk = (size_t)1 << 24;
    s->tail_dense = 50;
}

/* The knobs' old readings, kept: atoi for flags and small integers,
 * strtoull with clamping for sizes, strtoul with a fallback for the
 * circuit's. */
static const char *get(cz_gpu_settings_lookup lookup, void *ctx, const char *name) {
    const char *v = lookup(name, ctx);
    return v && *v ? v : NULL;
}

static int flag(cz_gpu_settings_lookup lookup, void *ctx, const char *name, int dflt) {
    const char *v = get(lookup, ctx, name);
    return v ? atoi(v) != 0 : dflt;
}

static unsigned clamp_u(cz_gpu_settings_lookup lookup, void *ctx, const char *name, unsigned dflt,
                        unsigned lo, unsigned hi, int out_of_range_is_default) {
    const char *v = get(lookup, ctx, name);
    if (!v) return dflt;
    long x = atol(v);
    if (x < (long)lo || x > (long)hi)
        return out_of_range_is_default ? dflt : x < (long)lo ? lo : hi;
    return (unsigned)x;
}

static size_t clamp_size(cz_gpu_settings_lookup lookup, void *ctx, const char *name, size_t dflt,
                         size_t lo, size_t hi) {
    const char *v = get(lookup, ctx, name);
    if (!v) return dflt;
    unsigned long long x = strtoull(v, NULL, 0);
    return x < lo ? lo : (x > hi ? hi : (size_t)x);
}

static unsigned strict_u32(cz_gpu_settings_lookup lookup, void *ctx, const char *name,
                           unsigned dflt) {
    const char *v = get(lookup, ctx, name);
    if (!v) return dflt;
    char *end = NULL;
    unsigned long x = strtoul(v, &end, 10);
    return *end || x > 0xffffffffu ? dflt : (unsigned)x;
}

cz_status cz_gpu_settings_parse(cz_gpu_settings *s, cz_gpu_settings_lookup lookup, void *ctx,
                                cz_error *err) {
    cz_gpu_settings_defaults(s);
    cz_status st = CZ_OK;
    const char *v = get(lookup, ctx, "CZ_GPU_MEM_LIMIT");
    if (v) {
        st = cz_parse_size(&s->mem_limit, v, err);
        if (st == CZ_OK)
            s->has_mem_limit = 1;
        else
            cz_error_prefix(err, "CZ_GPU_MEM_LIMIT");
    }
    if ((v = get(lookup, ctx, "CZ_GPU_STREAM_CHUNK")) != NULL) {
        char *end = NULL;
        unsigned long long x = strtoull(v, &end, 10);
        if (*end || x < 64 || x > (1ull << 24) || (x & (x - 1))) {
            if (st == CZ_OK)
                st = cz_error_set(err, CZ_E_INVALID_ARG,
                                  "CZ_GPU_STREAM_CHUNK: '%s' is not a power of two from 64 to 2^24",
                                  v);
        } else {
            s->stream_chunk = (size_t)x;
        }
    }
    if ((v = get(lookup, ctx, "CZ_GPU_STREAM_KEEP")) != NULL) {
        /* "h,b_g2": vector names (groth16.h), comma-separated */
        const char *p = v;
        while (*p && st == CZ_OK) {
            size_t len = strcspn(p, ",");
            int found = -1;
            for (int k = 0; k < CZ_GROTH16_VECTORS; k++) {
                const char *name = cz_groth16_vector_name((cz_groth16_vector)k);
                if (strlen(name) == len && !strncmp(p, name, len)) found = k;
            }
            if (found < 0)
                st = cz_error_set(err, CZ_E_INVALID_ARG,
                                  "CZ_GPU_STREAM_KEEP: '%.*s' in '%s' is not h, l, a, b_g1 or b_g2",
                                  (int)len, p, v);
            else
                s->stream_keep |= 1u << found;
            p += len;
            if (*p == ',') p++;
        }
        if (st == CZ_OK && !s->stream_chunk)
            st = cz_error_set(err, CZ_E_INVALID_ARG,
                              "CZ_GPU_STREAM_KEEP is set without CZ_GPU_STREAM_CHUNK");
    }
    s->tail_chunk =
        clamp_size(lookup, ctx, "CZ_GPU_TAIL_CHUNK", (size_t)1 << 24, 64, (size_t)1 << 24);
    s->tail_dense = clamp_u(lookup, ctx, "CZ_GPU_TAIL_DENSE", 50, 0, 101, 0);
    s->prove_profile = lookup("CZ_GPU_PROVE_PROFILE", ctx) != NULL;
    s->abc_long = strict_u32(lookup, ctx, "CZ_GPU_ABC_LONG", 16);
    s->abc_shared = strict_u32(lookup, ctx, "CZ_GPU_ABC_SHARED", 1);
    if ((v = get(lookup, ctx, "CZ_GPU_MSM_ACC")) != NULL) s->msm_acc_g1 = atoi(v);
    if ((v = get(lookup, ctx, "CZ_GPU_MSM_ACC2")) != NULL) s->msm_acc_g2 = atoi(v);
    if ((v = get(lookup, ctx, "CZ_GPU_MSM_S")) != NULL && atoi(v) >= 1)
        s->msm_s = (unsigned)atoi(v);
    s->msm_profile = lookup("CZ_GPU_MSM_PROFILE", ctx) != NULL;
    s->msm_affine = clamp_size(lookup, ctx, "CZ_GPU_MSM_AFFINE", 0, 0, (size_t)1 << 31);
    s->msm_affine_chunk = clamp_size(lookup, ctx, "CZ_GPU_MSM_AFFINE_CHUNK", 0, 0, (size_t)1 << 31);
    s->ntt_old = flag(lookup, ctx, "CZ_GPU_NTT_OLD", 0);
    s->ntt_profile = flag(lookup, ctx, "CZ_GPU_NTT_PROFILE", 0);
    s->ntt_nn_dif = flag(lookup, ctx, "CZ_GPU_NTT_NN", 1);
    s->ntt_fuse = flag(lookup, ctx, "CZ_GPU_NTT_FUSE", 1);
    s->ntt_mtab = flag(lookup, ctx, "CZ_GPU_NTT_MTAB", 1);
    s->ntt_g = clamp_u(lookup, ctx, "CZ_GPU_NTT_G", 1, 0, 3, 0);
    s->ntt_g0 = clamp_u(lookup, ctx, "CZ_GPU_NTT_G0", 1, 0, 3, 0);
    s->ntt_maxb = clamp_u(lookup, ctx, "CZ_GPU_NTT_MAXB", 9, 4, 9, 1);
    s->batch_t = clamp_size(lookup, ctx, "CZ_GPU_BATCH_T", 0, 1, (size_t)1 << 24);
    s->batch_kmin = clamp_size(lookup, ctx, "CZ_GPU_BATCH_KMIN", 32, 1, (size_t)1 << 20);
    s->batch_levels = clamp_size(lookup, ctx, "CZ_GPU_BATCH_LEVELS", 8, 0, 64);
    s->batch_t2 = clamp_size(lookup, ctx, "CZ_GPU_BATCH_T2", 0, 1, (size_t)1 << 24);
    /* a multiple of 64 (whole bitmap words), below 2^31 (CUB's int count) */
    s->batch_chunk =
        clamp_size(lookup, ctx, "CZ_GPU_BATCH_CHUNK", (size_t)1 << 27, 64, (size_t)1 << 30) &
        ~(size_t)63;
    s->batch_fanin = clamp_size(lookup, ctx, "CZ_GPU_BATCH_FANIN", 2, 2, 32);
    s->batch_profile = clamp_size(lookup, ctx, "CZ_GPU_BATCH_PROFILE", 0, 0, 1) != 0;
    return st;
}

static const char *env_lookup(const char *name, void *ctx) {
    (void)ctx;
    return getenv(name);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cz_gpu_settings from_env, used;
static cz_error env_error, used_error;
static const cz_gpu_settings *current;
static const cz_error *current_error;

static void load(void) {
    cz_error e = {0};
    e.status = cz_gpu_settings_parse(&from_env, env_lookup, NULL, &e);
    env_error = e;
    current = &from_env;
    current_error = &env_error;
}

const cz_gpu_settings *cz_gpu_settings_get(void) {
    pthread_once(&once, load);
    return current;
}

cz_status cz_gpu_settings_status(cz_error *err) {
    pthread_once(&once, load);
    if (current_error->status == CZ_OK) return CZ_OK;
    if (err) *err = *current_error;
    return current_error->status;
}

void cz_gpu_settings_use(const cz_gpu_settings *s) {
    pthread_once(&once, load);
    if (s) {
        used = *s;
        used_error = (cz_error){0};
        current = &used;
        current_error = &used_error;
    } else {
        current = &from_env;
        current_error = &env_error;
    }
}

cz_status cz_gpu_settings_use_lookup(cz_gpu_settings_lookup lookup, void *ctx, cz_error *err) {
    pthread_once(&once, load);
    cz_error e = {0};
    e.status = cz_gpu_settings_parse(&used, lookup, ctx, &e);
    used_error = e;
    current = &used;
    current_error = &used_error;
    if (e.status != CZ_OK && err) *err = e;
    return e.status;
}
