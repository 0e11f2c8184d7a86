/* The tuning knobs of the GPU layer and the engine's key loading (one
 * table in settings.c: name, reading, default, doc line), read once into
 * one struct instead of a getenv at every use. Each is an environment
 * variable and a key of the daemon's [tuning] section; the environment
 * wins. Defaults are the measured best on the H200 (docs/PERFORMANCE.md).
 *
 * The process's settings are parsed from the environment on first use;
 * a malformed CZ_GPU_MEM_LIMIT or CZ_GPU_STREAM_CHUNK is an error that the
 * calls depending on it report (cz_gpu_settings_status), the experimental
 * knobs are clamped as they always were. Tests change settings with
 * cz_gpu_settings_use, never with setenv. */
#ifndef CZ_GPU_SETTINGS_H
#define CZ_GPU_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /* CZ_GPU_MEM_LIMIT (a size): device bytes a context may use, below its
     * free memory; has_mem_limit = 0 when unset. */
    int has_mem_limit;
    uint64_t mem_limit;
    /* CZ_GPU_STREAM_CHUNK (a power of two, 64 .. 2^24): stream the key in
     * chunks of this many points even when it fits; 0 = only when needed. */
    size_t stream_chunk;
    /* CZ_GPU_STREAM_KEEP ("h,b_g2", with CZ_GPU_STREAM_CHUNK only): the
     * vectors that stay on the device while the others stream, i.e. a
     * partial plan (plan.h), for tests and measurements; bit v of the mask
     * for vector v. */
    unsigned stream_keep;
    /* CZ_GPU_STREAM_LEAN (1, with CZ_GPU_STREAM_CHUNK and no kept vector):
     * the lean streaming plan (plan.h) whatever the budget, for tests. */
    int stream_lean;
    /* CZ_GPU_TAIL_CHUNK (64 .. 2^24, default 2^24): gathered tail points
     * per tail MSM piece of a resident SRS (groth16.c). */
    size_t tail_chunk;
    /* CZ_GPU_TAIL_DENSE (percent, 0 .. 101, default 50): a tail longer
     * than one piece and holding at least this share of the scalars is
     * summed by one MSM over all the points, its ones masked to zero,
     * instead of gathered pieces (101: never; groth16.c). */
    unsigned tail_dense;
    /* CZ_GPU_PASS_UNITS (1 .. 16, default 4): units of one key whose L, A
     * and B sums share one pass over its streamed points (groth16.c,
     * engine/backend.c); 1: each unit streams the key alone. */
    unsigned pass_units;
    int prove_profile; /* CZ_GPU_PROVE_PROFILE set: ms per prove step */
    /* CZ_GPU_SYNC: how a host thread waits for its device (cudaSetDeviceFlags
     * as each device is probed): 0 auto, 1 spin, 2 yield, 3 blocking sync */
    unsigned sync_wait;
    /* Pre-compiled circuit evaluation (circuit.cu): rows with more entries
     * than abc_long take the long-row path (CZ_GPU_ABC_LONG, default 16);
     * abc_shared = 0 keeps the coefficient table in global memory
     * (CZ_GPU_ABC_SHARED, default 1). */
    unsigned abc_long, abc_shared;
    /* a key that streams without room for its circuit: a, b, c on the
     * device from the circuit streamed per unit (CZ_GPU_ABC_STREAM, default
     * 1; 0: on the CPU cores, engine/backend.c) */
    int abc_stream;
    /* MSM (msm.cuh): accumulation variants for G1 / G2 (CZ_GPU_MSM_ACC,
     * CZ_GPU_MSM_ACC2, defaults 2 and 3), sorted entries per accumulation
     * thread (CZ_GPU_MSM_S, 0 = automatic), step times (CZ_GPU_MSM_PROFILE),
     * batch-affine accumulation for MSMs of at least CZ_GPU_MSM_AFFINE
     * points (0 = never), in chunks of CZ_GPU_MSM_AFFINE_CHUNK sorted
     * entries (0 = as the scratch allows; tests force small ones). The
     * affine path's scratch (up to twice the sort's free buffers) is not in
     * the prover's memory plan (groth16.c msm_scratch): an experiment. */
    int msm_acc_g1, msm_acc_g2;
    unsigned msm_s;
    /* CZ_GPU_MSM_CARRY (default 1): 1, a chunked plan's H MSM keeps one
     * set of buckets across its chunks (a carried sum, groth16.c); 0, an
     * MSM per chunk (4.1 s/proof slower at 24 GiB, docs/PERFORMANCE.md). */
    int msm_carry;
    /* CZ_GPU_WITNESS_PACK (default 0 until measured on a device): 1, the
     * engine's CUDA context packs a unit's witness in its staging
     * (cz_gpu_witness_pack_make: ~0.1 GB instead of 4.2 GB at 32 GiB PoRep)
     * where it does not go into a device slot; 0, it is sent whole. */
    int witness_pack;
    int msm_profile;
    size_t msm_affine, msm_affine_chunk;
    /* NTT (ntt.cu; meanings there): CZ_GPU_NTT_OLD, _PROFILE, _MTAB, _NN,
     * _FUSE (0/1), _G, _G0 (0..3), _MAXB (4..9). */
    int ntt_old, ntt_profile, ntt_mtab, ntt_nn_dif, ntt_fuse;
    unsigned ntt_g, ntt_g0, ntt_maxb;
    /* Batch addition (batch.cu; meanings there): CZ_GPU_BATCH_T, _T2
     * (0 = one wave of the device), _KMIN, _LEVELS, _CHUNK, _FANIN,
     * _PROFILE. */
    size_t batch_t, batch_kmin, batch_levels, batch_t2, batch_chunk, batch_fanin;
    int batch_profile;
    /* Key load from its file (srs.c): MiB per pinned buffer
     * (CZ_GPU_KEYLOAD_CHUNK_MIB, 0 = 64). */
    size_t keyload_chunk_mib;
    /* cuzk setup on the GPU (setup.cu): MSM window bits, points per chunk
     * (0 = its own choice), a host-time profile (CZ_GPU_SETUP_WINDOW,
     * _CHUNK, _PROFILE). */
    unsigned setup_window, setup_chunk, setup_profile;
    /* The engine decodes keys on the host even when every context loads
     * them from the file (CZ_SRS_HOST_POINTS=1, to compare). */
    int srs_host_points;
    /* The host points of a key that streams are page-locked, so that the
     * copy engines read them without the CPU's staging copy (CZ_SRS_LOCK_HOST,
     * default 1; 0 to compare). */
    int srs_lock_host;
    /* a, b, c evaluated on the CPU for a unit of such a key are page-locked
     * while staged, so their upload skips the staging copy too
     * (CZ_GPU_LOCK_ABC, default 1; engine/backend.c). */
    int lock_abc;
} cz_gpu_settings;

/* The knobs as a table: the environment variable (also the key of the
 * daemon's [tuning] section, lower case without "CZ_"), its default as
 * text (NULL: unset, 0) and one line of doc. */
typedef struct {
    const char *name, *def, *doc;
} cz_gpu_knob_info;
#define CZ_GPU_MAX_KNOBS 64 /* cz_gpu_knob_count() is below it */
size_t cz_gpu_knob_count(void);
void cz_gpu_knob_at(size_t i, cz_gpu_knob_info *out);
/* The index of the knob named name (its environment variable), or -1. */
int cz_gpu_knob_find(const char *name);
/* Whether value reads for the knob name (the same reading as the
 * environment's): CZ_E_INVALID_ARG for no such knob, else the knob's own
 * error for a malformed value (the clamped knobs never fail); *is_default
 * when it reads as the default. */
cz_status cz_gpu_knob_check(const char *name, const char *value, int *is_default, cz_error *err);

/* A knob's value by name, NULL when unset (getenv, or a test's table). */
typedef const char *(*cz_gpu_settings_lookup)(const char *name, void *ctx);

/* The defaults, every knob unset. */
void cz_gpu_settings_defaults(cz_gpu_settings *out);

/* Parses the knobs from lookup over the defaults. A malformed
 * CZ_GPU_MEM_LIMIT (CZ_E_PARSE) or CZ_GPU_STREAM_CHUNK (CZ_E_INVALID_ARG)
 * is an error naming the variable and its value; the other knobs are
 * clamped into their ranges. *out is complete either way. */
cz_status cz_gpu_settings_parse(cz_gpu_settings *out, cz_gpu_settings_lookup lookup, void *ctx,
                                cz_error *err);

/* The process's settings: the environment's, parsed on the first call
 * (thread-safe), or what cz_gpu_settings_use set. Never NULL. */
const cz_gpu_settings *cz_gpu_settings_get(void);

/* CZ_OK, or the error of the current settings' parse (which callers that
 * need CZ_GPU_MEM_LIMIT / CZ_GPU_STREAM_CHUNK return). */
cz_status cz_gpu_settings_status(cz_error *err);

/* 1 with *bytes = CZ_GPU_MEM_LIMIT (the device memory cuzk may use) when
 * it is set and the settings parsed (their callers report a parse error),
 * else 0. */
int cz_gpu_settings_mem_limit(uint64_t *bytes);

/* Tests: replace the process's settings by s (NULL: the environment's),
 * or by a parse of lookup (its error, if any, then reported by
 * cz_gpu_settings_status as the environment's would be). Not while GPU
 * calls run. */
void cz_gpu_settings_use(const cz_gpu_settings *s);
cz_status cz_gpu_settings_use_lookup(cz_gpu_settings_lookup lookup, void *ctx, cz_error *err);

#ifdef __cplusplus
}
#endif
#endif
