/* The digest of a .params file, and the record of it kept next to the file.
 *
 * Digest: the file is cut into blocks of CZ_PARAMS_DIGEST_BLOCK bytes at
 * offsets 0, B, 2B, ... (the last block may be shorter); each block's XXH64
 * with seed 0; the digest is the XXH64, seeded with the file's length, of
 * those block digests as consecutive little-endian u64. Block by block, so it
 * is computed over all cores, or by a loader in the same pass that copies the
 * file (the GPU key load hashes each block while it is hot in the cache).
 * XXH64 is a checksum, not a cryptographic hash: it finds damage (a flipped
 * bit, a truncated copy, another file), not an adversary's forgery, which is
 * all it is used for (see "Trusted-bytes mode" in docs/DESIGN.md).
 *
 * Record: the file PATH.xxh64 next to PATH, one line
 *   cuzk-params-digest 1 <digest, 16 hex digits> <file bytes> <mtime, ns>
 * It says "these bytes were validated once": a loader that finds a record
 * matching the file's size and modification time may skip the per-point
 * curve checks, provided it verifies the digest before it uses the points. */
#ifndef CZ_GROTH16_DIGEST_H
#define CZ_GROTH16_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#define CZ_PARAMS_DIGEST_BLOCK ((size_t)1 << 20)

/* The digest of one block (at most CZ_PARAMS_DIGEST_BLOCK bytes). */
uint64_t cz_params_digest_block(const void *data, size_t len);
/* The digest from the n = ceil(file_bytes / B) block digests. */
uint64_t cz_params_digest_fold(const uint64_t *block_digests, size_t n, uint64_t file_bytes);
/* The digest of data[len] over all cores. CZ_E_NOMEM only. */
cz_status cz_params_digest(uint64_t *digest, const void *data, size_t len, cz_error *err);

/* The record of params_path: *known = 1 and *digest when PATH.xxh64 exists
 * and names file_bytes and mtime_ns; *known = 0 when it is absent or
 * describes another version of the file (size or time differ). CZ_E_PARSE
 * (message naming the record) when it exists but is not a record; CZ_E_IO
 * when it cannot be read. */
cz_status cz_params_digest_lookup(uint64_t *digest, int *known, const char *params_path,
                                  uint64_t file_bytes, int64_t mtime_ns, cz_error *err);
/* Writes PATH.xxh64 (through a temporary file renamed into place). */
cz_status cz_params_digest_save(const char *params_path, uint64_t digest, uint64_t file_bytes,
                                int64_t mtime_ns, cz_error *err);
/* Maps params_path, computes its digest over all cores and writes its
 * record: for a writer that knows its points are valid (the development
 * setup computed them), so that the first load is already trusted.
 * *digest (may be NULL) receives the digest. */
cz_status cz_params_digest_record_file(uint64_t *digest, const char *params_path, cz_error *err);
/* Path of the record: params_path + ".xxh64". CZ_E_INVALID_ARG when too long. */
cz_status cz_params_digest_path(char *out, size_t out_size, const char *params_path, cz_error *err);

#endif
