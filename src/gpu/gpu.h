/* The CUDA back-end's C interface.
 *
 * Every function returns a cz_status; CUDA failures (no device, out of
 * memory, a failed launch) come back as CZ_E_CUDA (or CZ_E_NOMEM for
 * allocations) with the CUDA error string and the call site in err. A build
 * without CUDA links gpu_stub.c, whose functions all return
 * CZ_E_UNSUPPORTED "no GPU back-end in this build".
 *
 * Data layout: field elements and affine points on the device have exactly
 * the host layout (cz_fr 32 B, cz_fp 48 B, cz_fp2 96 B, cz_g1_affine 96 B,
 * cz_g2_affine 192 B, Montgomery form, infinity = (0, 0)), so device buffers
 * are filled with cz_gpu_upload of host arrays.
 *
 * Functions taking `dev_*` pointers expect device memory from cz_gpu_alloc;
 * they run on the default stream and return after the device finished (so
 * host timers around them measure device time plus launch overhead).
 * Threads: every function works on the calling thread's current device
 * (cz_gpu_set_device) and its per-thread default stream, and keeps no
 * state across calls outside the objects it returns; an object (SRS, NTT
 * domain, uploader) is used by one thread at a time (a back-end context
 * serializes its units). */
#ifndef CZ_GPU_GPU_H
#define CZ_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU headers are plain C: declare them with C linkage for the .cu files. */
#include "cuzk/status.h"
#include "ec/point.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "groth16/groth16.h"
#include "groth16/params_writer.h"
#include "groth16/prover.h"
#include "poly/ntt.h"
#include "gpu/plan.h"
#include "gpu/fp64_mont.h"

/* The GPU code this build holds, "sm_75 sm_80 ... compute_120 (nvcc 13.0.88)"
 * (sm_NN machine code, compute_NN PTX); NULL in a build without CUDA. */
const char *cz_gpu_build_code(void);
/* CZ_OK when CUDA device 0 is usable; desc (may be NULL) then receives
 * "NVIDIA H200, 132 SMs, 139 GiB, sm_90 (sm_90 machine code)" (or
 * "(compute_80 PTX, compiled by the driver)"). CZ_E_NOT_FOUND when there is
 * no GPU at all (no device, no NVIDIA driver, a build without CUDA): falling
 * back to the CPU is then honest. Any other status means a GPU is there but
 * cannot be used (no code for its compute capability in this build, a
 * driver older than the build's CUDA, ...): callers must refuse rather than
 * prove on the CPU unasked. The reason, naming the device, is in err. */
cz_status cz_gpu_probe(char *desc, size_t desc_size, cz_error *err);
/* The same for one device of the host (ordinal from 0). */
cz_status cz_gpu_probe_device(int device, char *desc, size_t desc_size, cz_error *err);
/* Devices on the host; 0 with the statuses of cz_gpu_probe otherwise. */
cz_status cz_gpu_device_count(int *count, cz_error *err);
/* Makes device the calling thread's current device: every other function
 * works on the current device of its thread (the CUDA runtime keeps it per
 * host thread), so a back-end context sets its device before its calls. */
cz_status cz_gpu_set_device(int device, cz_error *err);

/* Device memory. */
cz_status cz_gpu_alloc(void **dev, size_t bytes, cz_error *err);
void cz_gpu_free(void *dev);
/* Per-proof buffers from the device's stream-ordered pool, which keeps them
 * between proofs: no device-wide synchronization (cudaMalloc and cudaFree
 * wait for every stream of the device, so a proof's buffers waited for
 * the staging of the next unit's witness on another thread: ~0.1 s per
 * 32 GiB SnapDeals partition) and no fresh mapping of ~13 GB per proof.
 * Ordered on the calling thread's default stream; the allocation returns
 * once that stream is idle, so any stream may use the memory at once.
 * Free with cz_gpu_free_pooled (NULL is fine). */
cz_status cz_gpu_alloc_pooled(void **dev, size_t bytes, cz_error *err);
void cz_gpu_free_pooled(void *dev);
cz_status cz_gpu_upload(void *dev, const void *host, size_t bytes, cz_error *err);
cz_status cz_gpu_download(void *host, const void *dev, size_t bytes, cz_error *err);
/* bytes from device memory src to device memory dst (not overlapping). */
cz_status cz_gpu_copy(void *dst, const void *src, size_t bytes, cz_error *err);

/* Element-wise arithmetic on host arrays (for tests and self-checks): for
 * i < n, out[i] = a[i] OP b[i] (b unused by NEG and SQR). */
typedef enum { CZ_GPU_ADD, CZ_GPU_SUB, CZ_GPU_MUL, CZ_GPU_SQR, CZ_GPU_NEG } cz_gpu_op;
cz_status cz_gpu_fr_eltwise(cz_gpu_op op, cz_fr *out, const cz_fr *a, const cz_fr *b, size_t n,
                            cz_error *err);
cz_status cz_gpu_fp_eltwise(cz_gpu_op op, cz_fp *out, const cz_fp *a, const cz_fp *b, size_t n,
                            cz_error *err);
cz_status cz_gpu_fp2_eltwise(cz_gpu_op op, cz_fp2 *out, const cz_fp2 *a, const cz_fp2 *b, size_t n,
                             cz_error *err);

/* Point formulas on host arrays (for tests): for i < n
 *   sum[i]  = a[i] + b[i]            (XYZZ mixed addition)
 *   trip[i] = 2 a[i] + (b[i] + a[i]) (XYZZ doubling and full addition)
 *   dbl[i]  = 2 a[i]                 (affine doubling)
 * Results are converted from XYZZ to Jacobian. Any input may be infinity or
 * equal / opposite to the other. */
cz_status cz_gpu_g1_formulas(cz_g1 *sum, cz_g1 *trip, cz_g1 *dbl, const cz_g1_affine *a,
                             const cz_g1_affine *b, size_t n, cz_error *err);
cz_status cz_gpu_g2_formulas(cz_g2 *sum, cz_g2 *trip, cz_g2 *dbl, const cz_g2_affine *a,
                             const cz_g2_affine *b, size_t n, cz_error *err);

/* NTT over Fr on the device. A domain holds device twiddle tables for one
 * size 2^log_size (log_size <= 28; about 2^log_size * 32 bytes of tables)
 * with the same omega and coset generator as the CPU's cz_ntt_domain, and
 * the same transform definitions and orders (see poly/ntt.h). */
typedef struct cz_gpu_ntt cz_gpu_ntt;
cz_status cz_gpu_ntt_create(cz_gpu_ntt **out, unsigned log_size, cz_error *err);
void cz_gpu_ntt_destroy(cz_gpu_ntt *d);
/* dev_data: 2^log_size elements in device memory, transformed in place. */
cz_status cz_gpu_ntt_transform(cz_gpu_ntt *d, cz_fr *dev_data, cz_ntt_order order,
                               cz_ntt_direction direction, cz_ntt_kind kind, cz_error *err);

/* a[i] = (a[i] b[i] - c[i]) (g^m - 1)^-1 for i < m (device arrays): the
 * division by the vanishing polynomial on the coset, as cz_ntt_coset_quotient.
 * dev_b NULL: a holds the products a b already (cz_gpu_ntt_pointwise_mul),
 * a[i] = (a[i] - c[i]) (g^m - 1)^-1. */
cz_status cz_gpu_ntt_coset_quotient(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b,
                                    const cz_fr *dev_c, cz_error *err);
/* a[i] = a[i] b[i] for i < m (device arrays): the quotient's first half,
 * so the H chain holds two of a, b, c at a time (the lean memory plan). */
cz_status cz_gpu_ntt_pointwise_mul(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b, cz_error *err);

/* MSM: out = sum_i scalars[i] * points[i] for i < n, points and scalars
 * (Montgomery form) resident in device memory. n may be 0. Scratch is taken
 * from the device for the call (about n * 8 * ceil(255 / c) * 2 bytes for
 * the sort, c the window, plus 2^(c-1) * ceil(255/c) buckets). */
cz_status cz_gpu_g1_msm(cz_g1 *out, const cz_g1_affine *dev_points, const cz_fr *dev_scalars,
                        size_t n, cz_error *err);
cz_status cz_gpu_g2_msm(cz_g2 *out, const cz_g2_affine *dev_points, const cz_fr *dev_scalars,
                        size_t n, cz_error *err);
/* A carried G1 MSM: one sum over points given in pieces (a streamed
 * vector's chunks). Each piece's digits are summed into the same buckets,
 * reduced once at the end, instead of an MSM with its own reduction per
 * piece. The buckets are the caller's device memory, at least
 * cz_gpu_plan_msm_sum_bytes(c) bytes, for window c
 * (cz_gpu_plan_msm_sum_window); begin zeroes them. The per-piece scratch
 * is allocated per piece (at most an MSM's of that piece at the piece's
 * own window, for c at least that window). */
typedef struct {
    void *buckets;
    unsigned c;
} cz_gpu_msm_sum;
cz_status cz_gpu_g1_msm_sum_begin(cz_gpu_msm_sum *sum, void *dev_buckets, unsigned c,
                                  cz_error *err);
cz_status cz_gpu_g1_msm_sum_add(const cz_gpu_msm_sum *sum, const cz_g1_affine *dev_points,
                                const cz_fr *dev_scalars, size_t n, cz_error *err);
cz_status cz_gpu_g1_msm_sum_end(cz_g1 *out, const cz_gpu_msm_sum *sum, cz_error *err);
/* cz_gpu_msm_window_bits (plan.h): the window the device MSM uses. */

/* Batch addition: out = sum of points[i] over the i < n whose bit i is set in
 * the bitmap (bit i of 64-bit word i / 64), all in device memory. */
cz_status cz_gpu_g1_batch_add(cz_g1 *out, const cz_g1_affine *dev_points,
                              const uint64_t *dev_bitmap, size_t n, cz_error *err);
cz_status cz_gpu_g2_batch_add(cz_g2 *out, const cz_g2_affine *dev_points,
                              const uint64_t *dev_bitmap, size_t n, cz_error *err);

/* Classification of n scalars (Montgomery form, device): dev_ones gets bit i
 * set when scalars[i] == 1 (ceil(n / 64) words, fully written), dev_tail the
 * increasing indices i with scalars[i] not 0 and not 1 (room for n entries),
 * *tail_count their number. */
cz_status cz_gpu_classify(const cz_fr *dev_scalars, size_t n, uint64_t *dev_ones,
                          uint32_t *dev_tail, size_t *tail_count, cz_error *err);

/* ---- Groth16 prover (srs.c, groth16.c, prover.cu) ---- */

/* Device memory: *free_bytes and *total_bytes of the current device. */
cz_status cz_gpu_mem_info(size_t *free_bytes, size_t *total_bytes, cz_error *err);
/* Gives the current device's stream-ordered pool back to the device: the
 * MSMs and batch additions keep their scratch there between calls (36 GB
 * after a 2^27 MSM), which cz_gpu_mem_info counts as used; call it before
 * planning an allocation that must see that memory (a key load). */
void cz_gpu_pool_trim(void);
/* Device out-of-memory errors (cudaErrorMemoryAllocation, CZ_E_NOMEM) the
 * calling thread has seen: what tells a device shortfall from a host one. */
uint64_t cz_gpu_oom_count(void);
/* Bytes this process has queued from host to device memory since it
 * started (all devices, every thread): the key's streamed chunks and its
 * load, witnesses, circuit windows, a, b, c from the CPU. What crosses
 * PCIe, to set against the time it took; 0 without CUDA. */
uint64_t cz_gpu_h2d_bytes(void);
/* Tests: the next n device allocations (cz_gpu_alloc, cz_gpu_alloc_pooled)
 * fail as out of memory. */
void cz_gpu_inject_oom(unsigned n);
/* bytes of device memory at dev set to zero. */
cz_status cz_gpu_zero(void *dev, size_t bytes, cz_error *err);

/* dev_idx[k] = offset + i for the increasing i < n whose bit i is set in
 * dev_bits (every i when dev_bits is NULL); *count = k. dev_idx has room
 * for n entries; n < 2^31. */
cz_status cz_gpu_select_bits(uint32_t *dev_idx, size_t *count, const uint64_t *dev_bits, size_t n,
                             uint32_t offset, cz_error *err);

/* dev_out[k] = dev_in[dev_idx[k]] for k < count (device arrays); the
 * points dev_in[dev_idx[k] - base], so that indices into a whole vector
 * read a chunk of it that starts at point base. */
cz_status cz_gpu_gather_fr(cz_fr *dev_out, const cz_fr *dev_in, const uint32_t *dev_idx,
                           size_t count, cz_error *err);
cz_status cz_gpu_gather_g1(cz_g1_affine *dev_out, const cz_g1_affine *dev_in,
                           const uint32_t *dev_idx, uint32_t base, size_t count, cz_error *err);
cz_status cz_gpu_gather_g2(cz_g2_affine *dev_out, const cz_g2_affine *dev_in,
                           const uint32_t *dev_idx, uint32_t base, size_t count, cz_error *err);
/* dev_out[i] = 0 where bit i of dev_ones is set, dev_in[i] elsewhere, for
 * i < n (device arrays; dev_ones as cz_gpu_classify writes it). */
cz_status cz_gpu_mask_fr(cz_fr *dev_out, const cz_fr *dev_in, const uint64_t *dev_ones, size_t n,
                         cz_error *err);

/* Host-to-device copies through two pinned staging buffers of at most
 * chunk_bytes each, on a copy stream of their own, so they overlap with
 * kernels (which run on the default stream) and with the CPU filling the
 * other buffer:
 *   stage: a free staging buffer of at least `bytes` (<= chunk; waits for
 *          the copy that last used it; pinned when first staged, and again
 *          larger when a larger piece comes, so an uploader that only sends
 *          from page-locked memory never pins one, and one that stages
 *          small pieces pins small buffers);
 *   send:  queue its first `bytes` (<= what was staged for) to dev,
 *          returning a ticket;
 *   wait:  block until the copy with that ticket is done;
 *   pin:   both staging buffers pinned now for pieces of `bytes` (at most
 *          the chunk), so that a first staging on a latency path pins
 *          nothing; pinned: the bytes pinned.
 * Use: stage, fill, send; later wait(ticket) before a kernel reads dev.
 * Destroying waits for queued copies. */
typedef struct cz_gpu_uploader cz_gpu_uploader;
cz_status cz_gpu_uploader_create(cz_gpu_uploader **out, size_t chunk_bytes, cz_error *err);
void cz_gpu_uploader_destroy(cz_gpu_uploader *u); /* NULL is fine */
size_t cz_gpu_uploader_chunk(const cz_gpu_uploader *u);
cz_status cz_gpu_uploader_stage(cz_gpu_uploader *u, void **host, size_t bytes, cz_error *err);
cz_status cz_gpu_uploader_send(cz_gpu_uploader *u, void *dev, size_t bytes, uint64_t *ticket,
                               cz_error *err);
cz_status cz_gpu_uploader_wait(cz_gpu_uploader *u, uint64_t ticket, cz_error *err);
cz_status cz_gpu_uploader_pin(cz_gpu_uploader *u, size_t bytes, cz_error *err);
size_t cz_gpu_uploader_pinned(const cz_gpu_uploader *u);
/* send_host: queue a copy of bytes (any size) straight from page-locked
 * host memory (cz_gpu_host_lock, or cudaHostAlloc'ed) to dev on the same
 * copy stream, no staging buffer involved; its ticket is waited for as a
 * staged one's. The host memory must stay as it is until then. */
cz_status cz_gpu_uploader_send_host(cz_gpu_uploader *u, void *dev, const void *host, size_t bytes,
                                    uint64_t *ticket, cz_error *err);

/* Page-locks (cudaHostRegister, for every device) bytes of ordinary host
 * memory at p, so that the copy engines read it directly: a streamed key's
 * host points then cross PCIe without a CPU copy into the staging buffers.
 * Memory the process may not write (a read-only file mapping: a circuit
 * file's) is registered read-only where the driver refuses it otherwise.
 * The owner of the memory locks it and unlocks it before freeing it.
 * CZ_E_CUDA naming the driver's error when the driver refuses (e.g. the
 * locked-memory limit), CZ_E_UNSUPPORTED without a GPU back-end; either
 * only costs speed. */
cz_status cz_gpu_host_lock(void *p, size_t bytes, cz_error *err);
void cz_gpu_host_unlock(void *p); /* p as locked; NULL is fine */
/* Whether [p, p + bytes) lies in page-locked host memory (its first and
 * last byte: ranges inside one locked block). */
int cz_gpu_host_locked(const void *p, size_t bytes);
/* bytes of page-locked host memory allocated as such (cudaHostAlloc,
 * portable: every device's copy engines read and write it directly), freed
 * with cz_gpu_host_free_locked; CZ_E_CUDA naming the driver's error when it
 * refuses, CZ_E_UNSUPPORTED without a GPU back-end. */
cz_status cz_gpu_host_alloc_locked(void **out, size_t bytes, cz_error *err);
void cz_gpu_host_free_locked(void *p); /* NULL is fine */

/* The proving key's point vectors (h, l, a, b_g1, b_g2 of a
 * cz_groth16_params) resident in device memory, plus the NTT domain of the
 * circuit (2^k with 2^k - 1 = n_h), so repeated proofs upload only the
 * witness side. When the points and tables do not fit the free device
 * memory (or $CZ_GPU_MEM_LIMIT, bytes with an optional K/M/G suffix, which
 * caps what this process uses of the device), creation falls back to
 * streaming: only the NTT domain is resident and every proof copies the
 * points from the host key through pinned buffers in chunks (slower: PCIe
 * traffic of the whole key per proof); cz_gpu_srs_streaming says which, and
 * creation fails with CZ_E_NOMEM naming the bytes needed and available when
 * not even the streaming working set fits. CZ_E_CUDA / CZ_E_UNSUPPORTED
 * without a device or back-end; nothing stays allocated on failure. A
 * resident SRS does not need the params after creation; a streaming one
 * reads them in every prove_start (the caller passes them). */
typedef struct cz_gpu_srs cz_gpu_srs;
cz_status cz_gpu_srs_create(cz_gpu_srs **out, const cz_groth16_params *params, cz_error *err);
/* The same within budget_bytes of the device (0 = its free memory; a
 * back-end context's share when several contexts use one device). */
cz_status cz_gpu_srs_create_budget(cz_gpu_srs **out, const cz_groth16_params *params,
                                   size_t budget_bytes, cz_error *err);
void cz_gpu_srs_destroy(cz_gpu_srs *srs); /* NULL is fine */
/* Device bytes held by the SRS (points and NTT tables). */
size_t cz_gpu_srs_bytes(const cz_gpu_srs *srs);
/* 1 when some points stream from the host on every proof (a partial or
 * streaming plan: every MSM then runs in chunks), 0 when resident; why (the
 * plan, device bytes needed and available) in why[why_size] when not NULL. */
int cz_gpu_srs_streaming(const cz_gpu_srs *srs, char *why, size_t why_size);
/* The SRS's memory plan (plan.h; zeros for NULL). */
void cz_gpu_srs_plan_get(cz_gpu_plan *out, const cz_gpu_srs *srs);
/* A lean plan's room for a packed witness (cz_gpu_witness_pack_bytes) from
 * which a unit's a, b, c are evaluated on the device (a streamed circuit):
 * one chunk buffer, idle during the H chain; 0 for another plan or NULL. */
size_t cz_gpu_srs_pack_room(const cz_gpu_srs *srs);

/* ---- the proving key from its .params file (keyload.cu, srs.c) ----
 * cz_gpu_srs_load makes an SRS resident straight from the mapped .params
 * file, without host point arrays: the file's point bytes (uncompressed,
 * big-endian, groth16.h) go through two pinned staging buffers to the device
 * as they are, and a kernel converts them there, in place (an encoded point
 * and a cz_g?_affine have the same size), to Montgomery form, checking each
 * point as the host decoder does: flags, coordinates < p, not (0, 0) (the
 * identity is refused in a key), and in checked mode y^2 = x^3 + b. No
 * subgroup check: see cz_gpu_srs_load. */

/* The staging and conversion primitives (keyload.cu), for cz_gpu_srs_load:
 *   stage:   the next free staging buffer of chunk_bytes (waits until the
 *            device has finished copying from it);
 *   copy:    queue host[offset, offset + bytes) of the staged buffer to dev;
 *   commit:  the staged buffer's copies are all queued;
 *   convert: after every copy queued so far, convert n points at dev in
 *            place (G2 when g2), the curve equation checked when
 *            check_curve; a failing point is left as it was and recorded
 *            with tag (0..15, its vector);
 *   finish:  waits for all of it; *fault = 1 with the lowest (tag, index)
 *            failing and the reason (CZ_GPU_KEY_FAULT_*), else 0.
 * Copies and conversions run on streams of the object's own; one thread
 * uses it at a time. */
typedef struct cz_gpu_keyload cz_gpu_keyload;
enum {
    CZ_GPU_KEY_FAULT_FLAGS = 1, /* a flag bit set in byte 0 */
    CZ_GPU_KEY_FAULT_RANGE,     /* a coordinate >= p */
    CZ_GPU_KEY_FAULT_ZERO,      /* (0, 0) without the infinity flag */
    CZ_GPU_KEY_FAULT_CURVE      /* y^2 != x^3 + b */
};
cz_status cz_gpu_keyload_create(cz_gpu_keyload **out, size_t chunk_bytes, cz_error *err);
void cz_gpu_keyload_destroy(cz_gpu_keyload *k); /* NULL is fine */
cz_status cz_gpu_keyload_stage(cz_gpu_keyload *k, uint8_t **host, cz_error *err);
cz_status cz_gpu_keyload_copy(cz_gpu_keyload *k, void *dev, size_t offset, size_t bytes,
                              cz_error *err);
cz_status cz_gpu_keyload_commit(cz_gpu_keyload *k, cz_error *err);
cz_status cz_gpu_keyload_convert(cz_gpu_keyload *k, void *dev, size_t n, int g2, int check_curve,
                                 unsigned tag, cz_error *err);
cz_status cz_gpu_keyload_finish(cz_gpu_keyload *k, int *fault, unsigned *tag, uint64_t *index,
                                unsigned *reason, cz_error *err);
/* n points at dev in the file encoding, points first .. first + n - 1 of
 * their vector, converted in place as convert does (the curve equation
 * checked when check_curve), queued on the calling thread's stream (no
 * wait); a
 * failing point's index and reason go to the device word *fault
 * (atomicMin; all ones while none failed). cz_gpu_points_fault waits for
 * the stream and reads it: *bad = the lowest failing index (UINT64_MAX:
 * none) and *reason its CZ_GPU_KEY_FAULT_*, the word reset when set. For
 * points that reach the device as the file has them other than through
 * cz_gpu_srs_load: a streamed chunk, or a kept vector, of a key whose host
 * points are a view of its mapped file (groth16.h:
 * cz_groth16_params_file_view). */
cz_status cz_gpu_points_from_file(void *dev, size_t n, int g2, size_t first, int check_curve,
                                  unsigned long long *fault, cz_error *err);
cz_status cz_gpu_points_fault(unsigned long long *fault, uint64_t *bad, unsigned *reason,
                              cz_error *err);

/* How cz_gpu_srs_load checks the points. */
typedef enum {
    /* trusted when the file's digest record (groth16/digest.h: PATH.xxh64)
     * names this file's size and modification time, else checked */
    CZ_GPU_KEY_AUTO = 0,
    CZ_GPU_KEY_CHECKED, /* the curve equation of every point, on the device */
    /* no curve equation; the digest must equal trusted_digest (the record's
     * in AUTO mode), verified before the load succeeds */
    CZ_GPU_KEY_TRUSTED
} cz_gpu_key_check;

typedef struct {
    cz_gpu_key_check check;
    uint64_t trusted_digest; /* CZ_GPU_KEY_TRUSTED */
    int no_record;           /* a checked load does not write the digest record */
    /* bytes per staging buffer (0: 128 MiB, or $CZ_GPU_KEYLOAD_CHUNK_MIB);
     * rounded down to a multiple of CZ_PARAMS_DIGEST_BLOCK (1 MiB), at
     * least one block */
    size_t chunk_bytes;
} cz_gpu_key_options;

typedef struct {
    int checked;         /* 1: the curve equation was checked; 0: trusted by digest */
    uint64_t digest;     /* of the whole file, computed during the load */
    int recorded;        /* the digest record was written */
    uint64_t file_bytes; /* read from the mapping */
    size_t chunk_bytes;  /* per staging buffer */
    double seconds;      /* file mapping to resident points (NTT tables included) */
    double fill_seconds; /* of which the CPU copied the mapping into pinned memory and hashed */
    double wait_seconds; /* of which it waited for free staging buffers and the device's end */
    char note[320];      /* how it was checked and why; a record that could not be written */
} cz_gpu_key_report;

/* The memory plan (plan.h) of the key of shape (counts only are read, as
 * in cz_gpu_srs's planning) within budget_bytes of the current device (0:
 * its free memory; $CZ_GPU_MEM_LIMIT caps it as for creation, and the
 * CZ_GPU_STREAM_* knobs force it): *plan (may be NULL), the plan and its
 * figures in why[why_size] (may be NULL). CZ_E_NOMEM (with the minimum in
 * err and why, *plan filled all the same) when not even the lean streaming
 * plan fits; device errors as cz_gpu_mem_info. */
cz_status cz_gpu_srs_plan(cz_gpu_plan *plan, const cz_groth16_params *shape, size_t budget_bytes,
                          char *why, size_t why_size, cz_error *err);

/* cz_gpu_plan_footprint (plan.h), under the SRS's name. CZ_E_INVALID_ARG
 * for a shape the device prover cannot take (n_h not 2^k - 1, k <= 28). */
cz_status cz_gpu_srs_footprint(size_t *key_bytes, size_t *work_bytes,
                               const cz_groth16_params *shape, cz_error *err);

/* A resident SRS (points and NTT domain, as cz_gpu_srs_create_budget makes
 * it) from a mapped .params file (groth16.h: cz_groth16_params_file_map),
 * within budget_bytes of the current device (0: its free memory). The file
 * is read once, in order, in chunks of opt->chunk_bytes: each 1 MiB block
 * copied into pinned memory by all cores and hashed there for the digest
 * (groth16/digest.h), the chunk's pages of the mapping dropped from this
 * process (MADV_DONTNEED; the page cache keeps them) and the next chunk's
 * read ahead (MADV_WILLNEED); the point vectors' bytes copied to their
 * device arrays and converted there as each vector completes. So the host
 * holds two staging buffers and no point array.
 * Checks (opt NULL = AUTO): flags, ranges, (0, 0) and the identity always,
 * the curve equation in checked mode, which then writes the digest record
 * (best effort; rep->note says when it could not); trusted mode skips the
 * curve equation and refuses the file (CZ_E_PARSE) when its digest is not
 * the trusted one. No subgroup check in either mode: key points only ever
 * become parts of proofs, every proof cuzk returns is verified first against
 * a vk read with full checks, and a point outside the subgroup can only make
 * that verification fail; the cost would be a scalar multiplication per
 * point (seconds of device time at 32 GiB) for no safety gained. The curve
 * equation costs a few products per point and names a damaged point
 * precisely. A refused point's message is the host decoder's for it
 * ("PATH: params: l[17]: G1 uncompressed: (x, y) is not on the curve: ...").
 * Never streams: CZ_E_NOMEM with the figures when the key does not fit
 * resident (cz_gpu_srs_plan says so first; streaming needs host points,
 * cz_gpu_srs_create_budget). rep may be NULL. Nothing stays allocated on
 * failure. */
cz_status cz_gpu_srs_load(cz_gpu_srs **out, const cz_groth16_params_file *file, size_t budget_bytes,
                          const cz_gpu_key_options *opt, cz_gpu_key_report *rep, cz_error *err);

/* A resident SRS's device array of vector v (a cz_groth16_vector: h, l, a,
 * b_g1, b_g2) and its count (tests compare it with the host decoder's);
 * CZ_E_INVALID_ARG for a streaming SRS. */
cz_status cz_gpu_srs_vector(const void **dev, size_t *n, const cz_gpu_srs *srs, int v,
                            cz_error *err);

/* ---- the pre-compiled circuit on the device (circuit.cu) ----
 * A cz_circuit's (r1cs/circuit.h) three compact matrices, its coefficient
 * table and its density bitmaps resident in device memory, so that a proof
 * sends only the witness z = inputs || aux over PCIe and a = A z, b = B z,
 * c = C z are computed on the device, equal (byte for byte) to the CPU's
 * cz_circuit_eval and the prove back-end's a, b, c. */
struct cz_circuit;
typedef struct cz_gpu_circuit cz_gpu_circuit;
/* Copies c's arrays (host memory or a mapping) to the current device in
 * chunks through pinned staging buffers and checks every index there:
 * rows non-decreasing from 0 to nnz, columns < num_inputs + num_aux,
 * coefficient indices < num_coeffs, coeffs[0] = 1 and coeffs[1] = -1
 * (CZ_E_INVALID_ARG naming the matrix, row and entry). CZ_E_NOMEM with the
 * bytes needed and free when the device is too small; nothing stays
 * allocated on failure. c is not referenced afterwards (it may be freed).
 * Knobs read here (for tests and measurements): $CZ_GPU_ABC_LONG=T (rows with
 * more than T entries take the warp path; default 16, 0 = every non-empty
 * row), $CZ_GPU_ABC_SHARED=0 (the coefficient table stays in global memory
 * even when it fits shared memory); $CZ_GPU_MEM_LIMIT caps the device bytes
 * it may take, as for cz_gpu_srs_create. */
cz_status cz_gpu_circuit_create(cz_gpu_circuit **out, const struct cz_circuit *c, cz_error *err);
/* The same circuit streamed, for a key whose memory plan leaves no room for
 * it resident: the coefficient table, the densities and two window buffers
 * stay on the device (1-2 GB at 32 GiB PoRep instead of 5.5 GiB), and every
 * evaluation sends the matrices in row windows of at most window_entries
 * entries (0: 2^26), each window's copy beside the previous one's kernels.
 * The long rows are planned here and every entry is checked here, as
 * cz_gpu_circuit_create does; the matrices are read again from the host
 * circuit attached for each evaluation (cz_gpu_circuit_set_host), so c
 * need not outlive the call. */
cz_status cz_gpu_circuit_create_streamed(cz_gpu_circuit **out, const struct cz_circuit *c,
                                         size_t window_entries, cz_error *err);
/* 1 when gc is streamed. */
int cz_gpu_circuit_streamed(const cz_gpu_circuit *gc);
/* The host circuit a streamed gc's evaluations read the matrices from (a
 * circuit of the same id: its sizes must be gc's, CZ_E_INVALID_ARG
 * otherwise; NULL detaches); nothing for a resident one. */
cz_status cz_gpu_circuit_set_host(cz_gpu_circuit *gc, const struct cz_circuit *c, cz_error *err);
void cz_gpu_circuit_destroy(cz_gpu_circuit *gc); /* NULL is fine */
/* Device bytes held (matrices or window buffers, table, densities,
 * long-row lists, scratch). */
size_t cz_gpu_circuit_bytes(const cz_gpu_circuit *gc);

/* What the circuit holds; the GPU prover reads the sizes, the popcounts and
 * dev_density from here instead of a cz_prove_data's bitmaps. */
typedef struct {
    uint32_t num_inputs, num_aux;
    uint64_t num_constraints;
    uint64_t nnz[3]; /* A, B, C */
    uint32_t coef_bytes, num_coeffs;
    uint64_t a_aux_count, b_input_count, b_aux_count; /* popcounts of the densities */
    /* device: a_aux (ceil(num_aux / 64) words), b_aux (the same), then
     * b_input (ceil(num_inputs / 64) words) */
    const uint64_t *dev_density;
    uint64_t long_rows[3], pieces[3]; /* rows on the warp path, their pieces of <= 256 */
    unsigned long_threshold;          /* rows with more entries than this are "long" */
    int table_in_shared;              /* the kernels copy the table to shared memory */
} cz_gpu_circuit_info;
void cz_gpu_circuit_get_info(cz_gpu_circuit_info *out, const cz_gpu_circuit *gc);

/* The device arrays of matrix `which` (0 = A, 1 = B, 2 = C) and the
 * coefficient table, for kernels outside circuit.cu (the setup's column
 * sums); valid while gc lives, checked at creation as described above. A
 * streamed circuit has no matrix arrays on the device (NULL). */
typedef struct {
    uint64_t nnz;
    uint32_t rows, coef_bytes, num_coeffs;
    const uint32_t *row_start, *col; /* [rows + 1], [nnz] */
    const void *coef;                /* [nnz] indices of coef_bytes each */
    const cz_fr *table;              /* [num_coeffs] */
} cz_gpu_circuit_matrix;
void cz_gpu_circuit_get_matrix(cz_gpu_circuit_matrix *out, const cz_gpu_circuit *gc, int which);

/* dev_a[j] = <A_j, z>, dev_b[j] = <B_j, z>, dev_c[j] = <C_j, z> for every row
 * j < num_constraints (any output may be NULL: that matrix is skipped;
 * rows past num_constraints are not written), dev_z = inputs then aux
 * (num_inputs + num_aux elements), all in device memory. Results are fully
 * reduced, Montgomery form. One call at a time per circuit (it owns the
 * long rows' scratch). */
cz_status cz_gpu_circuit_eval(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c, const cz_gpu_circuit *gc,
                              const cz_fr *dev_z, cz_error *err);
/* A packed witness (cz_gpu_witness_pack, below) on the device, as
 * cz_gpu_witness_pack_up leaves it: n elements, inputs then aux. */
typedef struct {
    size_t n;
    const uint64_t *ones, *other; /* words(n) each */
    const uint32_t *before;       /* words(n): the other values before each word */
    const cz_fr *values;          /* the other values, in element order */
} cz_gpu_packed_z;
/* cz_gpu_circuit_eval reading z packed: a word of each bitmap per entry,
 * and for the values neither 0 nor 1 their count and the value (a zero
 * element adds nothing), so a 32 GiB PoRep partition's z takes ~0.1 GB of
 * device memory instead of 4.2 GB. The results are cz_gpu_circuit_eval's,
 * byte for byte. CZ_E_INVALID_ARG when z->n is not the circuit's inputs
 * plus aux. */
cz_status cz_gpu_circuit_eval_packed(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c,
                                     const cz_gpu_circuit *gc, const cz_gpu_packed_z *z,
                                     cz_error *err);
/* The same from and to host arrays (tests): uploads input and aux, evaluates,
 * downloads a, b, c (num_constraints each; any may be NULL). */
cz_status cz_gpu_circuit_eval_host(cz_fr *a, cz_fr *b, cz_fr *c, const cz_gpu_circuit *gc,
                                   const cz_fr *input, const cz_fr *aux, cz_error *err);

/* The GPU twin of cz_groth16_prove_start (groth16/prover.h): the same five
 * sums from the same inputs. Per call a, b, c and the assignments (inputs
 * and aux, plus the density bitmaps) go up through pinned buffers; then on
 * the device: the H chain (7 NTTs + quotient) and the H MSM; the A / B
 * scalars compacted by density; for each of L, A, B (G1 and G2) the
 * 0 / 1 / other split: scalars classified, the points whose scalar is 1
 * summed by batch addition, an MSM over the gathered "other" scalars and
 * points only. Group sums are exact, so the results equal the CPU's as
 * group elements. params is the host key the SRS was made from (read only
 * when the SRS streams; may be NULL for a resident one). Fails like the CPU
 * one (shapes, unsatisfied witness: CZ_E_INVALID_ARG) plus CUDA errors
 * (CZ_E_NOMEM when the per-proof buffers do not fit). One proof at a time
 * per SRS (it owns the staging buffers).
 * circuit: NULL, or the device copy of the circuit pd's witness belongs to.
 * When pd->a, pd->b and pd->c are all NULL, a, b, c are computed on the
 * device from it (cz_gpu_circuit_eval, straight into the NTT buffers) and
 * the prover reads from pd only num_inputs, num_aux, num_constraints (which
 * must equal the circuit's) and the two assignments; the densities are the
 * circuit's (cz_gpu_circuit_info: counts for the shape checks, dev_density
 * for the A / B compaction) and pd's density pointers may be NULL. Peak
 * device memory then holds z beside a, b, c during the H chain. With a, b,
 * c given the circuit is not used (today's path).
 * dev_z: NULL, or (with the device circuit only) pd's assignment already on
 * the device, inputs then aux (cz_gpu_witness_upload): it is read, not
 * copied, so it must stay until the call returns; pd's assignment pointers
 * are then not read. */
cz_status cz_gpu_groth16_prove_start(cz_groth16_msm_results *out, cz_gpu_srs *srs,
                                     const cz_groth16_params *params, const cz_gpu_circuit *circuit,
                                     const cz_prove_data *pd, const cz_fr *dev_z, cz_error *err);
/* cz_gpu_groth16_prove_start in two parts, so that units of one key whose
 * plan streams (or keeps only some vectors) share one pass over its
 * points: the head proves everything but the L, A and B sums whose tails
 * are short (a PoRep witness's: ~2 % of scalars neither 0 nor 1), which it
 * leaves in *set (device memory: their ones bitmaps and tails; NULL when
 * nothing is left: a resident key, long tails); the pass adds each set's
 * sums into its results, every chunk of points sent once for all k sets,
 * their units' heads all done on this srs. A set is freed by its owner
 * after the pass (or instead of it, when its unit is given up). prove_start
 * is the head and a pass of its one set. */
typedef struct cz_gpu_pass_set cz_gpu_pass_set;
/* A witness packed for the trip to the device: most values of a PoRep
 * witness are 0 or 1 (bits of SHA-256 and of the labels), so the host sends
 * two bitmaps, a running count per 64 elements and the values that are
 * neither: ~0.1 GB instead of 4.2 GB for a 32 GiB partition. Elements are
 * the inputs then the aux; values in Montgomery form, as cz_fr holds them.
 * The parts lie in one block, in the device's layout, page-locked where the
 * driver allows (cz_gpu_witness_pack_make). */
typedef struct {
    size_t n;         /* elements */
    size_t n_values;  /* elements neither 0 nor 1 */
    uint64_t *bits;   /* 2 x words(n): the ones, then the others */
    uint32_t *before; /* words(n): the others before each 64-element word */
    cz_fr *values;    /* n_values, in element order */
} cz_gpu_witness_pack;
/* Packs ni inputs then na aux on every core (host memory only, no device
 * needed); 0 (nothing allocated) when the packed form would not be under
 * half the raw bytes (a WindowPoSt witness is ~99 % other values) or
 * memory ran out: send it raw then. 1 when packed. */
int cz_gpu_witness_pack_make(cz_gpu_witness_pack *out, const cz_fr *inputs, size_t ni,
                             const cz_fr *aux, size_t na);
void cz_gpu_witness_pack_free(cz_gpu_witness_pack *p);
/* The device bytes of p's parts (the scratch cz_gpu_witness_unpack needs). */
size_t cz_gpu_witness_pack_bytes(const cz_gpu_witness_pack *p);
/* p's parts up into scratch (scratch_bytes >= cz_gpu_witness_pack_bytes(p),
 * device memory unused meanwhile) through up; *out points into scratch;
 * returns when the copy is done. */
cz_status cz_gpu_witness_pack_up(cz_gpu_packed_z *out, void *scratch, size_t scratch_bytes,
                                 cz_gpu_uploader *up, const cz_gpu_witness_pack *p, cz_error *err);
/* p up into scratch (cz_gpu_witness_pack_up), then expanded to the p->n
 * elements at dev_z; returns when dev_z holds them. */
cz_status cz_gpu_witness_unpack(cz_fr *dev_z, void *scratch, size_t scratch_bytes,
                                cz_gpu_uploader *up, const cz_gpu_witness_pack *p, cz_error *err);
/* dev_z[i] for i < n from a packed witness's parts on the device: values[k]
 * where bit i of other is set (k = before[i / 64] + the others below it in
 * its word), one where bit i of ones is set, else 0. */
cz_status cz_gpu_expand_witness(cz_fr *dev_z, size_t n, const uint64_t *dev_ones,
                                const uint64_t *dev_other, const uint32_t *dev_before,
                                const cz_fr *dev_values, cz_error *err);
/* zpack: NULL, or pd's assignment packed (cz_gpu_witness_pack_make), sent
 * in that form where the head uploads the assignment (not read with
 * dev_z). Under a lean plan with the device circuit it is required: a, b,
 * c are evaluated from it in place (cz_gpu_circuit_eval_packed), so it
 * must fit cz_gpu_srs_pack_room (CZ_E_INVALID_ARG otherwise). */
cz_status cz_gpu_groth16_prove_head(cz_groth16_msm_results *out, cz_gpu_pass_set **set,
                                    cz_gpu_srs *srs, const cz_groth16_params *params,
                                    const cz_gpu_circuit *circuit, const cz_prove_data *pd,
                                    const cz_fr *dev_z, const cz_gpu_witness_pack *zpack,
                                    cz_error *err);
cz_status cz_gpu_groth16_pass(cz_gpu_srs *srs, const cz_groth16_params *params,
                              cz_gpu_pass_set *const *sets, cz_groth16_msm_results *const *outs,
                              size_t k, cz_error *err);
void cz_gpu_pass_set_free(cz_gpu_pass_set *set); /* NULL is fine */
/* Gives back the page-locked host blocks that freed pass sets and packed
 * witnesses left for the next ones (at most 2 GiB, process-wide); returns
 * their bytes. Blocks in use stay theirs. The engine calls it when it
 * releases keys (an eviction, the end). */
size_t cz_gpu_host_blocks_trim(void);
/* Copies a witness (ni inputs, then na aux) to dev_z (room for ni + na
 * elements) through up and returns when the copy is done; reported to the
 * calling thread's step hook as "witness upload (staged)". up is not an
 * SRS's, so this runs on one thread while another proves on the same
 * device: a back-end context stages the next unit's witness this way while
 * the kernels of the current one run. */
cz_status cz_gpu_witness_upload(cz_fr *dev_z, cz_gpu_uploader *up, const cz_fr *inputs, size_t ni,
                                const cz_fr *aux, size_t na, cz_error *err);

/* Each step of cz_gpu_groth16_prove_start on the calling thread ("H MSM",
 * "B tail MSM (2 of 43)", ...) is reported to fn with its start and end
 * (cz_now_ns); NULL removes the hook. The name is valid during the call. */
typedef void (*cz_gpu_step_fn)(void *ctx, const char *step, uint64_t t0_ns, uint64_t t1_ns);
void cz_gpu_set_step_hook(cz_gpu_step_fn fn, void *ctx);

/* ---- the development setup on the device (setup.cu) ----
 * cz_groth16_dev_setup (groth16/setup.h: NOT a trusted setup) computed on
 * the current device: the powers of tau and their inverse NTT (the Lagrange
 * basis at tau), the column sums A^T L, B^T L, C^T L of the circuit's
 * matrices (a sort of each matrix by column and a reduction by key: no
 * atomics), the key scalars, every fixed-base multiplication (G1 and G2
 * from precomputed window tables of the generators) and the affine
 * conversion (one inversion per block of points). The result is the CPU
 * setup's, byte for byte, for the same circuit and seed (the same plan,
 * checks and messages: groth16/setup.h); a refusal (unconstrained aux,
 * density mismatch, entries out of range) fails the same way.
 * progress as in groth16/setup.h, with units of about equal device time
 * (one G1 point; a G2 point counts 3). Device memory: the circuit
 * (cz_gpu_circuit_create), u, v, w (96 bytes per variable), the domain
 * (32 bytes per element, twice while the NTT runs), one matrix's sort
 * (about 24 bytes per entry) and the chunk buffers: about 37 GB at its peak
 * for the 32 GiB PoRep circuit. $CZ_GPU_SETUP_PROFILE=1 prints each stage's
 * time and where the host waited. $CZ_GPU_SETUP_CHUNK (points per chunk, default 2^22) and
 * $CZ_GPU_SETUP_WINDOW (fixed-base window bits, 8..16, default 12) are for
 * tests and measurements; neither changes the result. */
#include "groth16/setup.h"

/* Into host memory (*out, freed with cz_groth16_params_free). */
cz_status cz_gpu_groth16_dev_setup(cz_groth16_params *out, const struct cz_circuit *c,
                                   const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                   cz_groth16_setup_progress_fn progress, void *progress_ctx,
                                   cz_error *err);
/* Straight into the .params file params_path (groth16/params_writer.h:
 * the free space is checked first, the file appears complete or not at
 * all), the points encoded on the device and written chunk by chunk while
 * the device computes the next, so the host holds two chunk buffers, never
 * the key. *vk_out: the verifying key (for the .vk file; free it with
 * cz_groth16_vk_free); tap (may be NULL) sees the file's bytes as they are
 * written. */
cz_status cz_gpu_groth16_dev_setup_write(cz_groth16_vk *vk_out, const char *params_path,
                                         const cz_groth16_params_tap *tap,
                                         const struct cz_circuit *c,
                                         const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                         cz_groth16_setup_progress_fn progress, void *progress_ctx,
                                         cz_error *err);

/* Benchmark helpers (device data without host round trips):
 * fill_random_fr: n pseudo-random field elements from seed (uniform below
 *   2^254, Montgomery form is irrelevant for random data);
 * fill_g?: dev[i] = base[i % nbase] (bases already on the device);
 * fill_bitmap: bit i set with probability density_pct / 100;
 * field_rates: measured Fr and Fp Montgomery multiplications per second. */
cz_status cz_gpu_fill_random_fr(cz_fr *dev, size_t n, uint64_t seed, cz_error *err);
cz_status cz_gpu_fill_g1(cz_g1_affine *dev, size_t n, const cz_g1_affine *dev_base, size_t nbase,
                         cz_error *err);
cz_status cz_gpu_fill_g2(cz_g2_affine *dev, size_t n, const cz_g2_affine *dev_base, size_t nbase,
                         cz_error *err);
cz_status cz_gpu_fill_bitmap(uint64_t *dev, size_t n, unsigned density_pct, uint64_t seed,
                             cz_error *err);
cz_status cz_gpu_field_rates(double *fr_mul_per_s, double *fp_mul_per_s, cz_error *err);

/* The FP64-limb Montgomery product (fp64_mont.h, issue 29) against the IMAD
 * one (field.cuh), in products per second: each alone, both interleaved in
 * one thread (all products counted), both on alternate warps (iterations
 * balanced by the rates alone). Same kernel shape as cz_gpu_field_rates. */
typedef struct {
    double fr_imad, fr_fp64, fr_mix, fr_split;
    double fp_imad, fp_fp64, fp_mix, fp_split;
} cz_gpu_mul_rates;
cz_status cz_gpu_fp64_rates(cz_gpu_mul_rates *out, cz_error *err);

/* r[i] = a[i] b[i] with the FP64-limb product on the device, over host arrays
 * (for tests; elements in fp64_mont.h's form, host layout = device layout). */
cz_status cz_gpu_fp64_fp_mul(cz_fp64_fp *r, const cz_fp64_fp *a, const cz_fp64_fp *b, size_t n,
                             cz_error *err);
cz_status cz_gpu_fp64_fr_mul(cz_fp64_fr *r, const cz_fp64_fr *a, const cz_fp64_fr *b, size_t n,
                             cz_error *err);

#ifdef __cplusplus
}
#endif
#endif
