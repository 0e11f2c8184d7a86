/* The .params digest and its record (digest.h). */
#include "groth16/digest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/groth16.h"
#include "util/xxh64.h"
#include "util/parallel.h"

#define RECORD_MAGIC "cuzk-params-digest 1"

uint64_t cz_params_digest_block(const void *data, size_t len) {
    return cz_xxh64(data, len, 0);
}

uint64_t cz_params_digest_fold(const uint64_t *block_digests, size_t n, uint64_t file_bytes) {
    cz_xxh64_state s;
    cz_xxh64_init(&s, file_bytes);
    uint8_t le[8];
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++) le[k] = (uint8_t)(block_digests[i] >> (8 * k));
        cz_xxh64_update(&s, le, 8);
    }
    return cz_xxh64_digest(&s);
}

typedef struct {
    const uint8_t *data;
    size_t len;
    uint64_t *blocks;
} digest_job;

static void digest_blocks(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    digest_job *j = ctx;
    for (size_t b = begin; b < end; b++) {
        size_t off = b * CZ_PARAMS_DIGEST_BLOCK;
        size_t n = j->len - off < CZ_PARAMS_DIGEST_BLOCK ? j->len - off : CZ_PARAMS_DIGEST_BLOCK;
        j->blocks[b] = cz_params_digest_block(j->data + off, n);
    }
}

cz_status cz_params_digest(uint64_t *digest, const void *data, size_t len, cz_error *err) {
    size_t n = (len + CZ_PARAMS_DIGEST_BLOCK - 1) / CZ_PARAMS_DIGEST_BLOCK;
    uint64_t *blocks = malloc((n ? n : 1) * sizeof *blocks);
    if (!blocks) return cz_error_set(err, CZ_E_NOMEM, "digest: out of memory");
    digest_job j = {data, len, blocks};
    cz_parallel_for(n, 4, digest_blocks, &j);
    *digest = cz_params_digest_fold(blocks, n, len);
    free(blocks);
    return CZ_OK;
}

cz_status cz_params_digest_path(char *out, size_t out_size, const char *params_path,
                                cz_error *err) {
    if (snprintf(out, out_size, "%s.xxh64", params_path) >= (int)out_size)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", params_path);
    return CZ_OK;
}

cz_status cz_params_digest_lookup(uint64_t *digest, int *known, const char *params_path,
                                  uint64_t file_bytes, int64_t mtime_ns, cz_error *err) {
    *known = 0;
    *digest = 0;
    char path[4096 + 8];
    cz_status st = cz_params_digest_path(path, sizeof path, params_path, err);
    if (st != CZ_OK) return st;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return CZ_OK;
        return cz_error_set(err, CZ_E_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    char line[256];
    int got = fgets(line, sizeof line, f) != NULL;
    int more = got && fgetc(f) != EOF;
    fclose(f);
    char hex[17];
    uint64_t bytes = 0;
    int64_t mtime = 0;
    int used = 0;
    size_t magic = strlen(RECORD_MAGIC);
    if (!got || more || strncmp(line, RECORD_MAGIC " ", magic + 1) ||
        sscanf(line + magic + 1, "%16[0-9a-f] %" SCNu64 " %" SCNd64 "%n", hex, &bytes, &mtime,
               &used) != 3 ||
        strlen(hex) != 16 || strcmp(line + magic + 1 + used, "\n"))
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: not a digest record (expected one line \"" RECORD_MAGIC
                            " <16 hex digits> <bytes> <mtime ns>\")",
                            path);
    if (bytes != file_bytes || mtime != mtime_ns) return CZ_OK; /* another version of the file */
    *digest = strtoull(hex, NULL, 16);
    *known = 1;
    return CZ_OK;
}

cz_status cz_params_digest_save(const char *params_path, uint64_t digest, uint64_t file_bytes,
                                int64_t mtime_ns, cz_error *err) {
    char path[4096 + 8], tmp[4096 + 32];
    cz_status st = cz_params_digest_path(path, sizeof path, params_path, err);
    if (st != CZ_OK) return st;
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return cz_error_set(err, CZ_E_IO, "%s: cannot create: %s", tmp, strerror(errno));
    int ok = fprintf(f, RECORD_MAGIC " %016" PRIx64 " %" PRIu64 " %" PRId64 "\n", digest,
                     file_bytes, mtime_ns) > 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        st = cz_error_set(err, CZ_E_IO, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
    }
    return st;
}

cz_status cz_params_digest_record_file(uint64_t *digest, const char *params_path, cz_error *err) {
    cz_groth16_params_file f;
    cz_status st = cz_groth16_params_file_map(&f, params_path, err);
    if (st != CZ_OK) return st;
    uint64_t d = 0;
    st = cz_params_digest(&d, f.data, f.len, err);
    if (st == CZ_OK) st = cz_params_digest_save(f.path, d, f.len, f.mtime_ns, err);
    cz_groth16_params_file_unmap(&f);
    if (st == CZ_OK && digest) *digest = d;
    return st;
}
