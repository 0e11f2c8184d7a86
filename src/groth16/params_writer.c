/* The streaming .params writer (params_writer.h). Plain write(2) calls on
 * the caller's buffers: no copy on the host, whatever the chunk size. */
#include "groth16/params_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *const vector_name[CZ_GROTH16_PARAMS_VECTORS] = {"h", "l", "a", "b_g1", "b_g2"};

struct cz_groth16_params_writer {
    int fd;
    char tmp[4096];
    char path[4096];
    uint64_t counts[CZ_GROTH16_PARAMS_VECTORS];
    uint64_t written; /* points given of the current vector */
    unsigned vector;  /* the vector being written; CZ_GROTH16_PARAMS_VECTORS when all are */
    int failed;       /* errno of the first failed write */
    cz_groth16_params_tap tap;
};

static uint64_t point_bytes(unsigned vector) {
    return vector == 4 ? CZ_G2_UNCOMPRESSED_BYTES : CZ_G1_UNCOMPRESSED_BYTES;
}

uint64_t cz_groth16_params_writer_bytes(const cz_groth16_vk *vk,
                                        const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS]) {
    uint64_t total = cz_groth16_vk_encoded_size(vk);
    for (unsigned v = 0; v < CZ_GROTH16_PARAMS_VECTORS; v++)
        total += 4 + counts[v] * point_bytes(v);
    return total;
}

cz_status cz_groth16_params_writer_check_space(const char *path, uint64_t bytes, cz_error *err) {
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0) return CZ_OK; /* unknown: the writes will tell */
    const uint64_t avail = (uint64_t)fs.f_bavail * fs.f_frsize;
    if (avail >= bytes) return CZ_OK;
    return cz_error_set(err, CZ_E_IO,
                        "%s: the key needs %llu bytes (%.1f GiB), %s has %llu free (%.1f GiB)",
                        path, (unsigned long long)bytes, (double)bytes / (1u << 30), dir,
                        (unsigned long long)avail, (double)avail / (1u << 30));
}

/* Buffers at least this large go to the tap on a helper thread while
 * write(2) copies them: a chunk then costs the longer of the two, not their
 * sum (BLAKE2b on one core is slower than the copy into the page cache). */
#define TAP_THREAD_BYTES ((size_t)1 << 20)

typedef struct {
    const cz_groth16_params_tap *tap;
    const void *data;
    size_t len;
} tap_job;

static void *tap_run(void *arg) {
    const tap_job *j = arg;
    j->tap->fn(j->tap->ctx, j->data, j->len);
    return NULL;
}

static void put_bytes(cz_groth16_params_writer *w, const void *data, size_t len) {
    tap_job job = {&w->tap, data, len};
    pthread_t tapper;
    int threaded = 0;
    if (w->tap.fn && !w->failed) {
        threaded = len >= TAP_THREAD_BYTES && pthread_create(&tapper, NULL, tap_run, &job) == 0;
        if (!threaded) tap_run(&job);
    }
    const uint8_t *p = data;
    while (!w->failed && len > 0) {
        ssize_t k = write(w->fd, p, len);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            w->failed = k < 0 ? errno : EIO;
            break;
        }
        p += k, len -= (size_t)k;
    }
    if (threaded) pthread_join(tapper, NULL);
}

static void put_count(cz_groth16_params_writer *w, uint64_t n) {
    uint8_t be[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    put_bytes(w, be, 4);
}

/* Moves past the vectors whose points are all given, writing the count of
 * each vector it enters. */
static void advance(cz_groth16_params_writer *w) {
    while (w->vector < CZ_GROTH16_PARAMS_VECTORS && w->written == w->counts[w->vector]) {
        w->vector++;
        w->written = 0;
        if (w->vector < CZ_GROTH16_PARAMS_VECTORS) put_count(w, w->counts[w->vector]);
    }
}

cz_status cz_groth16_params_writer_open(cz_groth16_params_writer **out, const char *path,
                                        const cz_groth16_vk *vk,
                                        const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS],
                                        const cz_groth16_params_tap *tap, cz_error *err) {
    *out = NULL;
    for (unsigned v = 0; v < CZ_GROTH16_PARAMS_VECTORS; v++)
        if (counts[v] > UINT32_MAX)
            return cz_error_set(err, CZ_E_RANGE, "params: %llu %s points do not fit a u32 length",
                                (unsigned long long)counts[v], vector_name[v]);
    size_t vk_bytes = cz_groth16_vk_encoded_size(vk);
    uint8_t *vk_buf = malloc(vk_bytes);
    if (!vk_buf) return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory for the vk", path);
    cz_status st = cz_groth16_vk_encode(vk_buf, vk, err);
    if (st != CZ_OK) {
        free(vk_buf);
        return st;
    }
    cz_groth16_params_writer *w = calloc(1, sizeof *w);
    if (!w) {
        free(vk_buf);
        return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", path);
    }
    w->fd = -1;
    if (snprintf(w->path, sizeof w->path, "%s", path) >= (int)sizeof w->path ||
        snprintf(w->tmp, sizeof w->tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof w->tmp) {
        free(vk_buf), free(w);
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    }
    if ((st = cz_groth16_params_writer_check_space(path, cz_groth16_params_writer_bytes(vk, counts),
                                                   err)) != CZ_OK) {
        free(vk_buf), free(w);
        return st;
    }
    w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        st = cz_error_set(err, CZ_E_IO, "%s: cannot create: %s", w->tmp, strerror(errno));
        free(vk_buf), free(w);
        return st;
    }
    memcpy(w->counts, counts, sizeof w->counts);
    if (tap) w->tap = *tap;
    put_bytes(w, vk_buf, vk_bytes);
    free(vk_buf);
    put_count(w, counts[0]);
    advance(w);
    *out = w;
    return CZ_OK;
}

cz_status cz_groth16_params_writer_put(cz_groth16_params_writer *w, unsigned vector,
                                       const uint8_t *encoded, uint64_t n, cz_error *err) {
    if (n == 0) return CZ_OK;
    if (vector != w->vector || n > w->counts[vector] - w->written)
        return cz_error_set(
            err, CZ_E_INVALID_ARG,
            "%s: %llu points of %s given while writing %s (%llu of %llu given)", w->tmp,
            (unsigned long long)n, vector < CZ_GROTH16_PARAMS_VECTORS ? vector_name[vector] : "?",
            w->vector < CZ_GROTH16_PARAMS_VECTORS ? vector_name[w->vector] : "none",
            (unsigned long long)w->written,
            (unsigned long long)(w->vector < CZ_GROTH16_PARAMS_VECTORS ? w->counts[w->vector] : 0));
    put_bytes(w, encoded, (size_t)(n * point_bytes(vector)));
    w->written += n;
    advance(w);
    if (w->failed)
        return cz_error_set(err, CZ_E_IO, "%s: write failed: %s", w->tmp, strerror(w->failed));
    return CZ_OK;
}

cz_status cz_groth16_params_writer_close(cz_groth16_params_writer *w, cz_status st, cz_error *err) {
    if (!w) return st;
    if (st == CZ_OK && w->failed)
        st = cz_error_set(err, CZ_E_IO, "%s: write failed: %s", w->tmp, strerror(w->failed));
    if (st == CZ_OK && w->vector < CZ_GROTH16_PARAMS_VECTORS)
        st = cz_error_set(err, CZ_E_INVALID_ARG, "%s: incomplete: %llu of %llu %s points given",
                          w->tmp, (unsigned long long)w->written,
                          (unsigned long long)w->counts[w->vector], vector_name[w->vector]);
    if (close(w->fd) != 0 && st == CZ_OK)
        st = cz_error_set(err, CZ_E_IO, "%s: write failed: %s", w->tmp, strerror(errno));
    if (st == CZ_OK && rename(w->tmp, w->path) != 0)
        st = cz_error_set(err, CZ_E_IO, "%s: cannot rename into place: %s", w->path,
                          strerror(errno));
    if (st != CZ_OK) unlink(w->tmp);
    free(w);
    return st;
}
