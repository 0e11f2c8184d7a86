/* The proving key on the device (cz_gpu_srs) as srs.c makes it and the
 * prover (groth16.c) reads it, and the host-to-device staging both use:
 * internal to src/gpu. */
#ifndef CZ_GPU_SRS_H
#define CZ_GPU_SRS_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "gpu/plan.h"

#define CZ_GPU_MIB(x) ((double)(x) / (1024.0 * 1024.0))

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
    /* made from a view of the mapped .params file (groth16.h: encoded): its
     * kept vectors were converted on the device, its streamed chunks are
     * as each arrives (cz_gpu_srs_convert) */
    int encoded;
    unsigned long long *fault; /* encoded: the device word of a refused point */
    /* encoded: the streamed host vectors (base, points) one whole pass
     * found on the curve; later passes convert them without the curve
     * equation (a point changed since, the file rewritten in place, makes
     * a proof that fails its self-verification instead of a named point) */
    struct {
        const void *base;
        size_t n;
    } curve_checked[CZ_GROTH16_VECTORS];
    /* streaming: the first chunk (c points) of host vector (base, n) sent
     * into chunk[buf] ahead of its sum (groth16.c: a streamed H's during
     * the H chain, a pass's next vector during its last chunk of the one
     * before), its copy's ticket; base NULL when none. The next loop
     * over the chunk buffers takes it; a head or pass that ends without
     * it waits for its copy. */
    struct {
        const void *base;
        size_t n, c;
        int buf;
        uint64_t ticket;
    } ahead;
};

/* A host vector of points (or bytes: size 1). */
typedef struct {
    const uint8_t *base;
    size_t size; /* bytes per point */
} cz_gpu_host_points;

/* Stages points [k0, k0 + count) of src into the uploader's next pinned
 * buffer (all cores) and queues their copy to dev; *ticket: the copy's.
 * Unpicked points in page-locked memory (cz_gpu_host_lock) are copied
 * from where they are instead, any count. */
cz_status cz_gpu_stage_points(cz_gpu_uploader *up, void *dev, const cz_gpu_host_points *src,
                              size_t k0, size_t count, uint64_t *ticket, cz_error *err);
/* Copies bytes of host memory to dev through the staging buffers (straight
 * from page-locked memory); *ticket is the last piece's (the caller waits
 * for it), unchanged when bytes is 0. */
cz_status cz_gpu_stage_bytes(cz_gpu_uploader *up, void *dev, const void *host, size_t bytes,
                             uint64_t *ticket, cz_error *err);
/* Host buffers that cross the link for every unit (a pass set's parts,
 * which also come back down; a packed witness): bytes in one block of
 * page-locked memory where the driver allows (the copy engines read it
 * directly, with no CPU copy into the staging buffers), else ordinary
 * memory (huge pages advised: slower, nothing else); NULL when there is no
 * memory at all. A block given back is kept for the next (see srs.c) until
 * cz_gpu_host_blocks_trim. */
void *cz_gpu_block_get(size_t bytes);
void cz_gpu_block_put(void *block); /* NULL is fine */
/* Points k0 .. k0 + n of a vector of an encoded srs, at dev as the file
 * has them (a kept vector's upload, or a streamed chunk), converted in
 * place and checked (the curve equation when check_curve), queued on the
 * calling thread's stream (cz_gpu_points_from_file); CZ_OK at once for a
 * decoded srs. After the vector's last piece, cz_gpu_srs_convert_check
 * waits and says whether a point failed: CZ_E_PARSE naming the lowest
 * index. */
cz_status cz_gpu_srs_convert(const cz_gpu_srs *s, void *dev, size_t k0, size_t n, int g2,
                             int check_curve, cz_error *err);
cz_status cz_gpu_srs_convert_check(const cz_gpu_srs *s, int g2, cz_error *err);
/* inputs then aux to dev_z, returning when the copy is done; a step
 * boundary (util/cancel.h) between pieces of 2^23 aux elements. */
cz_status cz_gpu_stage_witness(cz_fr *dev_z, cz_gpu_uploader *up, const cz_fr *inputs, size_t ni,
                               const cz_fr *aux, size_t na, cz_error *err);

#endif
