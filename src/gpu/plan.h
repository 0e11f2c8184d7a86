/* The device memory plan of a proving key: which of its point vectors stay
 * on the device and which stream from pinned host memory on every proof,
 * chosen from the key's shape and the device bytes usable. Pure host
 * arithmetic (no device call), compiled in every build, so the choice for
 * every card size is tested on machines without a GPU.
 *
 *   resident   every vector, the NTT tables and one proof's working set fit:
 *              no PCIe traffic for points (the H200 holds a 32 GiB PoRep key
 *              this way);
 *   partial    the vectors that fit stay (greedy, in the order H, B_G2, L, A,
 *              B_G1: the dense H MSM first, then the G2 points, costliest to
 *              send and to sum), the others stream in chunks of at least
 *              2^20 points;
 *   streaming  none stays: every vector streams, in the largest chunk that
 *              fits (2^12 to 2^24 points);
 *   lean       streaming with one proof's working set cut from 16 to 8 GiB
 *              at 32 GiB (what a 16 GiB card needs): a, b, c go through two
 *              device buffers one after another (a' b' formed before c is
 *              made), the assignment goes up whole only after the H MSM,
 *              and the tail scalars are gathered or masked per chunk
 *              instead of all at once. a, b, c come from the host (12.5 GB
 *              to upload per proof at 32 GiB), or from a streamed device
 *              circuit reading the witness packed in a chunk buffer (idle
 *              until the H MSM; cz_gpu_srs_pack_room). Chosen only where
 *              the plain streaming plan's chunk would be 2^22 points or
 *              less, or 2^23 keeping no vector (or it would not fit at
 *              all), and the lean one's chunk is larger (a 24 GiB device:
 *              2^24 against 2^23). Its carried
 *              H MSM gets room for 12 windows' buckets beside the second
 *              H-chain buffer where the budget has it (sum_room: free at
 *              32 GiB PoRep, whose peak is the splits'), else 13.
 * Below the lean plan with 2^12-point chunks nothing proves: the plan is
 * refused with that minimum in the message. */
#ifndef CZ_GPU_PLAN_H
#define CZ_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "groth16/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CZ_GPU_PLAN_RESIDENT = 0,
    CZ_GPU_PLAN_PARTIAL,
    CZ_GPU_PLAN_STREAMING,
} cz_gpu_plan_kind;

typedef struct {
    cz_gpu_plan_kind kind;
    unsigned keep;         /* bit v set: vector v (cz_groth16_vector) resident */
    size_t chunk_points;   /* the streamed vectors' chunk; 0 when none streams */
    size_t budget;         /* device bytes usable */
    size_t need;           /* device bytes at the plan's peak (<= budget) */
    size_t held;           /* kept between proofs: kept points, NTT tables, chunk buffers */
    size_t resident_need;  /* what the resident plan needs */
    size_t minimum;        /* the smallest budget a plan proves in (a lean one) */
    uint64_t stream_bytes; /* the streamed vectors' point bytes (a proof sends the points of
                            * its nonzero scalars: ~27 of 47 GB at 32 GiB PoRep) */
    unsigned log_m;        /* the key's domain: 2^log_m = n_h + 1 */
    int lean;              /* streaming, lean (above): two H-chain buffers */
    size_t sum_room;       /* lean: device bytes beside the two H-chain buffers for the
                            * carried H MSM's buckets (cz_gpu_plan_lean_sum_room), planned
                            * where the budget has them; 0: the second buffer alone */
} cz_gpu_plan;

/* Plans forced whatever the budget, for tests and measurements: chunk
 * (CZ_GPU_STREAM_CHUNK, a power of two from 64 to 2^24) makes the plan
 * streaming with that chunk, partial when keep (CZ_GPU_STREAM_KEEP) names
 * vectors to keep, lean with lean (CZ_GPU_STREAM_LEAN) and no keep. */
typedef struct {
    size_t chunk;
    unsigned keep;
    int lean;
} cz_gpu_plan_force;

/* The plan for a key of shape (counts only) in budget device bytes, or the
 * forced one (force may be NULL; a zero chunk forces nothing).
 * CZ_E_INVALID_ARG for a shape the device prover cannot take (n_h not
 * 2^k - 1, k <= 28); CZ_E_NOMEM when budget is below the minimum (out is
 * filled all the same, kind streaming, so callers can report the figures). */
cz_status cz_gpu_plan_make(cz_gpu_plan *out, const cz_groth16_params *shape, size_t budget,
                           const cz_gpu_plan_force *force, cz_error *err);

/* The device bytes to plan with after a device out-of-memory while a
 * context used `used` bytes (what it held and a proof's working set): a
 * quarter less, and at least 1 MiB less; 0 when used is 2 MiB or less
 * (nothing smaller to try). Repeated, it reaches any plan's minimum in
 * O(log) steps (a 32 GiB PoRep key: from resident, 96.7 GiB, to below its
 * 8.5 GiB minimum in 9). */
size_t cz_gpu_plan_shrink(size_t used);

/* "resident", "partial", "streaming". */
const char *cz_gpu_plan_name(cz_gpu_plan_kind kind);

/* One line for logs and GetStatus: "partial: H, B_G2 resident; L, A, B_G1
 * stream in chunks of 2^22 points (28.1 GB of points); 30.9 of 32.0 GiB". */
void cz_gpu_plan_describe(char *buf, size_t size, const cz_gpu_plan *plan);

/* What a key of shape takes resident: *key_bytes its points and NTT
 * tables, *work_bytes one proof's working set (its buffers and the largest
 * MSM's scratch). Keys resident side by side in one context need room for
 * two working sets, not one each: it runs one proof at a time, and one more
 * inside it when a higher priority preempts (engine/backend.c). */
cz_status cz_gpu_plan_footprint(size_t *key_bytes, size_t *work_bytes,
                                const cz_groth16_params *shape, cz_error *err);

/* The window the device MSM uses for n points of G1 (g2 = 0) or G2. */
unsigned cz_gpu_msm_window_bits(size_t n, int g2);

/* Device scratch of one MSM of n points (what the MSM allocates, from its
 * own formulas), and one proof's buffers besides the MSMs' scratch
 * (chunked: a partial or streaming plan's, with its pass sets, else a
 * resident key's, with room for gathered tail points; lean_chunk: a lean
 * plan's, whose long tails are masked in pieces of that many, 0 for the
 * others). For the prover's allocations and the tests. */
size_t cz_gpu_plan_msm_scratch(size_t n, int g2);

/* A carried G1 sum (gpu.h cz_gpu_msm_sum): its buckets' bytes for window
 * c, and the window for n points in pieces of at most piece points with
 * room bytes of device memory for the buckets: the fewest windows whose
 * buckets fit, the narrowest of those; at least the piece's own window (a
 * piece's scratch is then at most the one a plan counts for an MSM of the
 * piece) and its reduction's scratch within that counted scratch. 0: none
 * fits. */
size_t cz_gpu_plan_msm_sum_bytes(unsigned c);
unsigned cz_gpu_plan_msm_sum_window(size_t n, size_t piece, size_t room);
/* A lean plan's H MSM sums its chunks (chunk points each) into one set of
 * buckets in the H chain's second buffer, m scalars' bytes (4 GiB at 2^27:
 * 13 windows of c = 20). The bytes beside it that give the sum its fewest
 * windows (12, c = 22: 4.8 GB in all, 0.5 GB more); 0 when the buffer
 * holds them, or the chunk's scratch limits the window anyway. */
size_t cz_gpu_plan_lean_sum_room(const cz_groth16_params *shape, size_t chunk);
size_t cz_gpu_plan_proof_bytes(const cz_groth16_params *shape, int chunked, size_t lean_chunk);

/* A chunked plan's unit leaves its L, A or B sum for a pass (gpu.h,
 * cz_gpu_groth16_prove_head) when the sum's tail has at most
 * cz_gpu_plan_pass_tail(n) of its n scalars. */
size_t cz_gpu_plan_pass_tail(size_t n);
/* Tail points a pass gathers for one MSM: at most this many (and at most
 * a chunk). */
#define CZ_GPU_PASS_PIECE ((size_t)1 << 20)

/* Gathered tail points per tail MSM piece of a resident vector
 * (CZ_GPU_TAIL_CHUNK, default 2^24), and whether a tail of t of n scalars
 * is summed by one MSM over all n points with the ones masked. */
size_t cz_gpu_plan_tail_chunk(void);
/* The gathered tail points a resident vector of n points gets room for
 * (min(n, tail chunk)): what the prover allocates and the plan counts. */
size_t cz_gpu_plan_tail_cap(size_t n);
int cz_gpu_plan_dense_tail(size_t t, size_t n);

#ifdef __cplusplus
}
#endif
#endif
