/* A .params file written as its points come, for keys that are never whole
 * in memory: the GPU setup hands over each chunk of points as it leaves the
 * device, already encoded, so the host holds two chunk buffers instead of
 * the 47 GB of the 32 GiB PoRep key (and the disk holds one copy: the
 * temporary, renamed into place at the end).
 *
 * Layout: exactly cz_groth16_params_write's (groth16.h): the encoded vk,
 * then for h, l, a, b_g1, b_g2 in that order a big-endian u32 count and that
 * many uncompressed points (96 bytes, 192 for b_g2). The writer emits the vk
 * and the counts; the caller gives the points in file order. */
#ifndef CZ_GROTH16_PARAMS_WRITER_H
#define CZ_GROTH16_PARAMS_WRITER_H

#include <stdint.h>

#include "groth16/groth16.h"

/* The point vectors of a .params file, in file order. */
#define CZ_GROTH16_PARAMS_VECTORS 5

typedef struct cz_groth16_params_writer cz_groth16_params_writer;

/* Sees every byte of the file, in file order, as it is written: a digest of
 * the file without a second read of it (the 47 GB key's BLAKE2b took longer
 * than making the key). It runs within the writer's calls, on a helper
 * thread beside the write of a large buffer (one call at a time). */
typedef struct {
    void (*fn)(void *ctx, const void *bytes, size_t n);
    void *ctx;
} cz_groth16_params_tap;

/* Creates path.tmp-<pid> next to path, after checking that the file's
 * bytes (cz_groth16_params_writer_bytes) fit the free space of its
 * filesystem (CZ_E_IO with both figures otherwise), and writes the vk.
 * counts: n_h, n_l, n_a, n_b_g1, n_b_g2 (each < 2^32, else CZ_E_RANGE).
 * tap: NULL, or what sees the bytes (copied: it need not outlive the call). */
cz_status cz_groth16_params_writer_open(cz_groth16_params_writer **out, const char *path,
                                        const cz_groth16_vk *vk,
                                        const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS],
                                        const cz_groth16_params_tap *tap, cz_error *err);

/* The file's size for a vk (only n_ic is read) and counts. */
uint64_t cz_groth16_params_writer_bytes(const cz_groth16_vk *vk,
                                        const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS]);
/* CZ_OK when bytes fit the free space of path's filesystem (or it cannot be
 * told), else CZ_E_IO with both figures: for callers that know the size
 * long before they open the file (the GPU setup checks before its device
 * work). */
cz_status cz_groth16_params_writer_check_space(const char *path, uint64_t bytes, cz_error *err);

/* The next n points of vector `vector` (0 = h ... 4 = b_g2), encoded
 * uncompressed, in file order: vector must be the one being written (the
 * first whose points are not all given yet; empty vectors are skipped) and
 * n at most what it still lacks, else CZ_E_INVALID_ARG. */
cz_status cz_groth16_params_writer_put(cz_groth16_params_writer *w, unsigned vector,
                                       const uint8_t *encoded, uint64_t n, cz_error *err);

/* Finishes the file: with st == CZ_OK and every point given, the temporary
 * is renamed to path; otherwise (st != CZ_OK, points missing, a write
 * error) it is removed and the status says why. Frees w (NULL is fine);
 * returns st when st != CZ_OK. */
cz_status cz_groth16_params_writer_close(cz_groth16_params_writer *w, cz_status st, cz_error *err);

#endif
