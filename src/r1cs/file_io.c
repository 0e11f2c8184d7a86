/* What the r1cs file formats share: writing through a temporary renamed
 * into place (a reader never sees half a file) with a running XXH64 that
 * ends the file, and read-only mappings. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "r1cs/internal.h"
#include "util/log.h"
#include "util/tmpfiles.h"

cz_status cz_file_writer_open(cz_file_writer *w, const char *path, cz_error *err) {
    memset(w, 0, sizeof *w);
    size_t plen = strlen(path);
    w->path = malloc(plen + 1);
    w->tmp = malloc(plen + 32);
    if (!w->path || !w->tmp) {
        free(w->path), free(w->tmp);
        memset(w, 0, sizeof *w);
        return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", path);
    }
    memcpy(w->path, path, plen + 1);
    snprintf(w->tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    unsigned stale = cz_remove_stale_temporaries(path, ".tmp.");
    if (stale)
        cz_log(CZ_LOG_INFO, "%s: removed %u temporary file(s) of killed writers", path, stale);
    w->f = fopen(w->tmp, "wb");
    if (!w->f) {
        cz_status st = cz_error_set(err, CZ_E_IO, "%s: cannot create: %s", w->tmp, strerror(errno));
        free(w->path), free(w->tmp);
        memset(w, 0, sizeof *w);
        return st;
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    cz_xxh64_init(&w->hash, 0);
    return CZ_OK;
}

void cz_file_writer_put(cz_file_writer *w, const void *p, size_t n) {
    if (w->failed || n == 0) return;
    cz_xxh64_update(&w->hash, p, n);
    errno = 0;
    if (fwrite(p, 1, n, w->f) != n) w->failed = errno ? errno : EIO;
    w->written += n;
}

void cz_file_writer_pad(cz_file_writer *w, unsigned align) {
    static const uint8_t zeros[64] = {0};
    size_t n = (size_t)(-w->written & (uint64_t)(align - 1));
    cz_file_writer_put(w, zeros, n);
}

static void writer_release(cz_file_writer *w) {
    free(w->path), free(w->tmp);
    memset(w, 0, sizeof *w);
}

cz_status cz_file_writer_commit(cz_file_writer *w, uint64_t *checksum, cz_error *err) {
    uint64_t sum = cz_xxh64_digest(&w->hash);
    uint8_t le[8];
    memcpy(le, &sum, 8); /* little-endian hosts only (see r1cs_file.c) */
    cz_file_writer_put(w, le, 8);
    errno = 0;
    if (fflush(w->f) != 0 && !w->failed) w->failed = errno ? errno : EIO;
    if (fclose(w->f) != 0 && !w->failed) w->failed = errno ? errno : EIO;
    if (!w->failed && rename(w->tmp, w->path) != 0) w->failed = errno ? errno : EIO;
    cz_status st = CZ_OK;
    if (w->failed) {
        st = cz_error_set(err, CZ_E_IO, "%s: write failed: %s", w->path, strerror(w->failed));
        unlink(w->tmp);
    } else if (checksum) {
        *checksum = sum;
    }
    writer_release(w);
    return st;
}

void cz_file_writer_abort(cz_file_writer *w) {
    if (!w->f) return;
    fclose(w->f);
    unlink(w->tmp);
    writer_release(w);
}

cz_status cz_file_map(const uint8_t **data, uint64_t *size, const char *path, cz_error *err) {
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO, "%s: cannot open: %s",
                            path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        cz_status st = cz_error_set(err, CZ_E_IO, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return st;
    }
    uint64_t bytes = (uint64_t)sb.st_size;
    if (bytes == 0) {
        close(fd);
        return CZ_OK;
    }
    if (bytes > SIZE_MAX) {
        close(fd);
        return cz_error_set(err, CZ_E_IO, "%s: %llu bytes do not fit the address space", path,
                            (unsigned long long)bytes);
    }
    /* Shared, not private, although nothing writes it: a device streaming a
     * key page-locks its circuit's mapping, and locking a private file
     * mapping makes the kernel copy every page (5.9 GB: 5.0 s against 0.28 s
     * shared on an H100 host, and no answer at all beside a 32 GiB PoRep's
     * synthesis). */
    void *map = mmap(NULL, (size_t)bytes, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return cz_error_set(err, CZ_E_IO, "%s: cannot map %llu bytes: %s", path,
                            (unsigned long long)bytes, strerror(errno));
    *data = map;
    *size = bytes;
    return CZ_OK;
}

void cz_file_unmap(const uint8_t *data, uint64_t size) {
    if (data) munmap((void *)data, (size_t)size);
}
