/* GPU knobs (see settings.h). */
#include "gpu/settings.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"
#include "util/size.h"

/* How a knob's text is read (the readings each knob always had):
 *   SIZE     a size ("24GiB"); malformed is an error (CZ_E_PARSE)
 *   POW2     a power of two in [lo, hi]; else an error (CZ_E_INVALID_ARG)
 *   VECTORS  key vector names, comma-separated; an unknown one is an error
 *   FLAG     atoi != 0
 *   SET      set at all, even empty: 1
 *   INT      atoi
 *   INT_POS  atoi, taken when >= 1
 *   CLAMP    strtoull (any base), clamped into [lo, hi]
 *   RANGE    atol, clamped into [lo, hi]
 *   RANGE_D  atol, the default when outside [lo, hi]
 *   STRICT   decimal digits only, else the default; RANGE_D's range too
 * Empty text is unset but for SET. */
typedef enum { SIZE, POW2, VECTORS, FLAG, SET, INT, INT_POS, CLAMP, RANGE, RANGE_D, STRICT } kind;

typedef struct {
    const char *name; /* the environment variable */
    kind how;
    size_t off, width; /* the field in cz_gpu_settings */
    unsigned long long lo, hi;
    const char *def; /* NULL: unset is 0 */
    const char *doc;
} knob;

#define F(field) offsetof(cz_gpu_settings, field), sizeof(((cz_gpu_settings *)0)->field)

static const knob knobs[] = {
    {"CZ_GPU_MEM_LIMIT", SIZE, F(mem_limit), 0, 0, NULL,
     "device bytes this process may use, below the free memory (e.g. 24GiB: a smaller card)"},
    {"CZ_GPU_STREAM_CHUNK", POW2, F(stream_chunk), 64, 1u << 24, NULL,
     "stream the key in chunks of this many points even when it fits (64 .. 2^24)"},
    {"CZ_GPU_STREAM_KEEP", VECTORS, F(stream_keep), 0, 0, NULL,
     "with CZ_GPU_STREAM_CHUNK: the vectors that stay resident (h,l,a,b_g1,b_g2): a partial plan"},
    {"CZ_GPU_STREAM_LEAN", FLAG, F(stream_lean), 0, 0, "0",
     "1 with CZ_GPU_STREAM_CHUNK: the lean streaming plan (what a 16 GiB card gets)"},
    {"CZ_GPU_TAIL_CHUNK", CLAMP, F(tail_chunk), 64, 1u << 24, "16777216",
     "gathered tail points per tail MSM piece of a resident key"},
    {"CZ_GPU_TAIL_DENSE", RANGE, F(tail_dense), 0, 101, "50",
     "percent of a long tail's scalars from which it is summed masked over all points (101: "
     "never)"},
    {"CZ_GPU_PASS_UNITS", RANGE, F(pass_units), 1, 16, "4",
     "units of one key whose L, A, B sums share one pass over its streamed points (1: none)"},
    {"CZ_GPU_PROVE_PROFILE", SET, F(prove_profile), 0, 0, NULL, "log ms per prove step"},
    {"CZ_GPU_SYNC", RANGE_D, F(sync_wait), 0, 3, "0",
     "how a thread waits for its device: 0 the driver's choice (spins while the process has "
     "fewer CUDA contexts than cores), 1 spin, 2 yield, 3 block on an interrupt"},
    {"CZ_GPU_ABC_LONG", STRICT, F(abc_long), 0, 0xffffffffu, "16",
     "rows of the pre-compiled circuit longer than this take the long-row path"},
    {"CZ_GPU_ABC_STREAM", FLAG, F(abc_stream), 0, 0, "1",
     "1: a key without room for its circuit evaluates a, b, c from the circuit streamed to the "
     "device per unit (0: on the CPU cores)"},
    {"CZ_GPU_ABC_SHARED", STRICT, F(abc_shared), 0, 0xffffffffu, "1",
     "0: the circuit's coefficient table in global memory, not shared"},
    {"CZ_GPU_MSM_ACC", INT, F(msm_acc_g1), 0, 0, "2", "G1 MSM bucket accumulation variant"},
    {"CZ_GPU_MSM_ACC2", INT, F(msm_acc_g2), 0, 0, "3", "G2 MSM bucket accumulation variant"},
    {"CZ_GPU_MSM_S", INT_POS, F(msm_s), 0, 0, NULL,
     "sorted entries per accumulation thread (unset: automatic)"},
    {"CZ_GPU_MSM_CARRY", FLAG, F(msm_carry), 0, 0, "1",
     "1: a streamed H MSM keeps its buckets across the chunks, one reduction at the end (0: an "
     "MSM per chunk)"},
    {"CZ_GPU_WITNESS_PACK", FLAG, F(witness_pack), 0, 0, "0",
     "1: a unit's witness is packed on the CPU before its run (bitmaps of its 0s and 1s and its "
     "other values) and sent so, where it is not staged on the device (0: sent whole; the "
     "default until measured on a device)"},
    {"CZ_GPU_MSM_PROFILE", SET, F(msm_profile), 0, 0, NULL, "log the MSM's step times"},
    {"CZ_GPU_MSM_AFFINE", CLAMP, F(msm_affine), 0, 1u << 31, NULL,
     "batch-affine accumulation for MSMs of at least this many points (0: never; an experiment)"},
    {"CZ_GPU_MSM_AFFINE_CHUNK", CLAMP, F(msm_affine_chunk), 0, 1u << 31, NULL,
     "sorted entries per batch-affine chunk (0: as the scratch allows)"},
    {"CZ_GPU_NTT_OLD", FLAG, F(ntt_old), 0, 0, "0", "1: the radix-2 NTT of the first version"},
    {"CZ_GPU_NTT_PROFILE", FLAG, F(ntt_profile), 0, 0, "0", "1: log the NTT passes' times"},
    {"CZ_GPU_NTT_MTAB", FLAG, F(ntt_mtab), 0, 0, "1", "twiddles from tables (0: computed)"},
    {"CZ_GPU_NTT_NN", FLAG, F(ntt_nn_dif), 0, 0, "1",
     "the coset NTTs in natural order (0: bit-reversed)"},
    {"CZ_GPU_NTT_FUSE", FLAG, F(ntt_fuse), 0, 0, "1",
     "NTT: the coset inverse's factors in the bit reversal"},
    {"CZ_GPU_NTT_G", RANGE, F(ntt_g), 0, 3, "1", "NTT passes' grouping (0 .. 3)"},
    {"CZ_GPU_NTT_G0", RANGE, F(ntt_g0), 0, 3, "1", "the first NTT pass's grouping (0 .. 3)"},
    {"CZ_GPU_NTT_MAXB", RANGE_D, F(ntt_maxb), 4, 9, "9", "bits per register-blocked NTT pass"},
    {"CZ_GPU_BATCH_T", CLAMP, F(batch_t), 1, 1u << 24, NULL,
     "batch addition threads (0: one wave of the device)"},
    {"CZ_GPU_BATCH_KMIN", CLAMP, F(batch_kmin), 1, 1u << 20, "32",
     "batch addition: the smallest run summed by the batched path"},
    {"CZ_GPU_BATCH_LEVELS", CLAMP, F(batch_levels), 0, 64, "8", "batch addition: tree levels"},
    {"CZ_GPU_BATCH_T2", CLAMP, F(batch_t2), 1, 1u << 24, NULL,
     "batch addition: second-stage threads (0: one wave)"},
    {"CZ_GPU_BATCH_CHUNK", CLAMP, F(batch_chunk), 64, 1u << 30, "134217728",
     "batch addition: entries per chunk (a multiple of 64)"},
    {"CZ_GPU_BATCH_FANIN", CLAMP, F(batch_fanin), 2, 32, "2", "batch addition: tree fan-in"},
    {"CZ_GPU_BATCH_PROFILE", CLAMP, F(batch_profile), 0, 1, NULL,
     "1: log the batch addition's steps"},
    {"CZ_GPU_KEYLOAD_CHUNK_MIB", CLAMP, F(keyload_chunk_mib), 0, 1u << 16, NULL,
     "MiB per pinned buffer of a key loaded from its file (0: 64)"},
    {"CZ_GPU_SETUP_WINDOW", RANGE_D, F(setup_window), 8, 16, NULL,
     "cuzk setup on the GPU: MSM window bits (8 .. 16; unset: its own choice)"},
    {"CZ_GPU_SETUP_CHUNK", RANGE_D, F(setup_chunk), 1, 1u << 26, NULL,
     "cuzk setup on the GPU: points per chunk (unset: its own choice)"},
    {"CZ_GPU_SETUP_PROFILE", RANGE_D, F(setup_profile), 0, 1, NULL,
     "1: cuzk setup on the GPU logs where the host's time went"},
    {"CZ_SRS_HOST_POINTS", FLAG, F(srs_host_points), 0, 0, "0",
     "1: the engine decodes keys on the host even when every context loads from the file"},
    {"CZ_SRS_LOCK_HOST", FLAG, F(srs_lock_host), 0, 0, "1",
     "0: a streamed key's host points are not page-locked (copied through the staging buffers)"},
    {"CZ_GPU_LOCK_ABC", FLAG, F(lock_abc), 0, 0, "1",
     "0: a, b, c staged on the CPU are not page-locked (copied through the staging buffers)"},
};

static void put(cz_gpu_settings *s, const knob *k, unsigned long long v) {
    char *p = (char *)s + k->off;
    switch (k->width) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = (uint64_t)v; break;
    }
}

static unsigned long long clampu(unsigned long long x, unsigned long long lo,
                                 unsigned long long hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

/* One knob's text over s (its default already there). */
static cz_status read_knob(cz_gpu_settings *s, const knob *k, const char *v, cz_error *err) {
    if (!v || (!*v && k->how != SET)) return CZ_OK;
    char *end = NULL;
    switch (k->how) {
    case SIZE: {
        uint64_t x = 0;
        cz_status st = cz_parse_size(&x, v, err);
        if (st != CZ_OK) return cz_error_wrap(err, st, "%s", k->name);
        s->has_mem_limit = 1;
        put(s, k, x);
        return CZ_OK;
    }
    case POW2: {
        unsigned long long x = strtoull(v, &end, 10);
        if (*end || x < k->lo || x > k->hi || (x & (x - 1)))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "%s: '%s' is not a power of two from %llu to 2^%d", k->name, v,
                                k->lo, __builtin_ctzll(k->hi));
        put(s, k, x);
        return CZ_OK;
    }
    case VECTORS: {
        unsigned mask = 0;
        for (const char *p = v; *p;) {
            size_t len = strcspn(p, ",");
            int found = -1;
            for (int i = 0; i < CZ_GROTH16_VECTORS; i++) {
                const char *name = cz_groth16_vector_name((cz_groth16_vector)i);
                if (strlen(name) == len && !strncmp(p, name, len)) found = i;
            }
            if (found < 0)
                return cz_error_set(err, CZ_E_INVALID_ARG,
                                    "%s: '%.*s' in '%s' is not h, l, a, b_g1 or b_g2", k->name,
                                    (int)len, p, v);
            mask |= 1u << found;
            p += len;
            if (*p == ',') p++;
        }
        put(s, k, mask);
        return CZ_OK;
    }
    case FLAG: put(s, k, atoi(v) != 0); return CZ_OK;
    case SET: put(s, k, 1); return CZ_OK;
    case INT: put(s, k, (unsigned long long)(long long)atoi(v)); return CZ_OK;
    case INT_POS:
        if (atoi(v) >= 1) put(s, k, (unsigned long long)atoi(v));
        return CZ_OK;
    case CLAMP: put(s, k, clampu(strtoull(v, NULL, 0), k->lo, k->hi)); return CZ_OK;
    case RANGE:
    case RANGE_D: {
        long x = atol(v);
        if (x >= (long)k->lo && (unsigned long long)x <= k->hi)
            put(s, k, (unsigned long long)x);
        else if (k->how == RANGE)
            put(s, k, x < (long)k->lo ? k->lo : k->hi);
        return CZ_OK;
    }
    case STRICT: {
        unsigned long x = strtoul(v, &end, 10);
        if (!*end && x >= k->lo && x <= k->hi) put(s, k, x);
        return CZ_OK;
    }
    }
    return CZ_OK;
}

void cz_gpu_settings_defaults(cz_gpu_settings *s) {
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        (void)read_knob(s, &knobs[i], knobs[i].def, NULL);
}

cz_status cz_gpu_settings_parse(cz_gpu_settings *s, cz_gpu_settings_lookup lookup, void *ctx,
                                cz_error *err) {
    cz_gpu_settings_defaults(s);
    cz_status st = CZ_OK;
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        cz_error kerr = {0};
        cz_status kst = read_knob(s, &knobs[i], lookup(knobs[i].name, ctx), &kerr);
        if (kst != CZ_OK && st == CZ_OK) {
            st = kst;
            if (err) *err = kerr;
        }
    }
    /* a multiple of 64 (whole bitmap words), below 2^31 (CUB's int count) */
    s->batch_chunk &= ~(size_t)63;
    if (st == CZ_OK && s->stream_keep && !s->stream_chunk)
        st = cz_error_set(err, CZ_E_INVALID_ARG,
                          "CZ_GPU_STREAM_KEEP is set without CZ_GPU_STREAM_CHUNK");
    if (st == CZ_OK && s->stream_lean && (!s->stream_chunk || s->stream_keep))
        st = cz_error_set(err, CZ_E_INVALID_ARG,
                          "CZ_GPU_STREAM_LEAN goes with CZ_GPU_STREAM_CHUNK and no "
                          "CZ_GPU_STREAM_KEEP");
    return st;
}

_Static_assert(sizeof knobs / sizeof knobs[0] < CZ_GPU_MAX_KNOBS, "CZ_GPU_MAX_KNOBS");

size_t cz_gpu_knob_count(void) {
    return sizeof knobs / sizeof knobs[0];
}

void cz_gpu_knob_at(size_t i, cz_gpu_knob_info *out) {
    out->name = knobs[i].name;
    out->def = knobs[i].def;
    out->doc = knobs[i].doc;
}

int cz_gpu_knob_find(const char *name) {
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
        if (!strcmp(knobs[i].name, name)) return (int)i;
    return -1;
}

cz_status cz_gpu_knob_check(const char *name, const char *value, int *is_default, cz_error *err) {
    int i = cz_gpu_knob_find(name);
    if (i < 0) return cz_error_set(err, CZ_E_INVALID_ARG, "no tuning knob %s", name);
    cz_gpu_settings d, s;
    cz_gpu_settings_defaults(&d);
    s = d;
    cz_status st = read_knob(&s, &knobs[i], value, err);
    s.batch_chunk &= ~(size_t)63; /* as cz_gpu_settings_parse */
    *is_default = st == CZ_OK && !memcmp(&s, &d, sizeof s);
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

int cz_gpu_settings_mem_limit(uint64_t *bytes) {
    const cz_gpu_settings *s = cz_gpu_settings_get();
    if (cz_gpu_settings_status(NULL) != CZ_OK || !s->has_mem_limit) return 0;
    *bytes = s->mem_limit;
    return 1;
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
