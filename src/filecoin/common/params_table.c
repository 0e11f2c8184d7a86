/* Filecoin's parameter table, file digests and the classification of a
 * parameter file: see params_table.h. */
#include "filecoin/common/params_table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_BLOCK (16u << 20)
#define SUM_MAGIC  "cuzk-blake2b512-16"
#define DEV_LINE                                                                                   \
    "cuzk development parameters (cuzk setup): NOT a trusted setup; proofs made with this "        \
    "key do not verify on chain"

const cz_fc_param_entry *cz_fc_param_lookup(const char *name, const cz_fc_param_entry *table,
                                            size_t n) {
    if (!table) table = cz_fc_param_table, n = cz_fc_param_table_len;
    size_t lo = 0, hi = n; /* the name, if present, is in [lo, hi) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, table[mid].name);
        if (c == 0) return &table[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const char *cz_fc_param_class_text(cz_fc_param_class c) {
    switch (c) {
    case CZ_FC_PARAM_OFFICIAL: return "official, digest ok";
    case CZ_FC_PARAM_WRONG_DIGEST: return "official name, digest WRONG (partial or corrupt)";
    case CZ_FC_PARAM_DEVELOPMENT: return "development (made by cuzk setup, NOT a trusted setup)";
    case CZ_FC_PARAM_UNKNOWN: return "unknown (not in Filecoin's v28 table)";
    }
    return "?";
}

/* One block read of the digest: a helper thread reads block k + 1 while
 * the caller hashes block k (BLAKE2b is one sequential stream; the read's
 * copy out of the page cache then costs no hashing time: 47 GB took 83 s
 * read-then-hash on the H200 machine). */
typedef struct {
    int fd;
    uint8_t *buf;
    ssize_t got; /* bytes read; -1: errno in error */
    int error;
} block_read;

static void *block_read_run(void *arg) {
    block_read *r = arg;
    size_t have = 0;
    r->error = 0;
    while (have < HASH_BLOCK) {
        ssize_t k = read(r->fd, r->buf + have, HASH_BLOCK - have);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            r->error = errno;
            r->got = -1;
            return NULL;
        }
        if (k == 0) break;
        have += (size_t)k;
    }
    r->got = (ssize_t)have;
    return NULL;
}

struct cz_fc_param_hasher {
    EVP_MD_CTX *md;
    int failed;
};

cz_status cz_fc_param_hasher_new(cz_fc_param_hasher **out, cz_error *err) {
    cz_fc_param_hasher *h = calloc(1, sizeof *h);
    *out = NULL;
    if (!h || !(h->md = EVP_MD_CTX_new())) {
        free(h);
        return cz_error_set(err, CZ_E_NOMEM, "BLAKE2b-512: out of memory");
    }
    if (!EVP_DigestInit_ex(h->md, EVP_blake2b512(), NULL)) {
        EVP_MD_CTX_free(h->md);
        free(h);
        return cz_error_set(err, CZ_E_INTERNAL, "BLAKE2b-512 unavailable in libcrypto");
    }
    *out = h;
    return CZ_OK;
}

void cz_fc_param_hasher_update(void *hasher, const void *bytes, size_t n) {
    cz_fc_param_hasher *h = hasher;
    if (!h->failed && !EVP_DigestUpdate(h->md, bytes, n)) h->failed = 1;
}

cz_status cz_fc_param_hasher_finish(char hex[CZ_FC_PARAM_DIGEST_HEX], cz_fc_param_hasher *h,
                                    cz_error *err) {
    if (!h) return cz_error_set(err, CZ_E_INVALID_ARG, "BLAKE2b-512: no hasher");
    uint8_t d[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    cz_status st = CZ_OK;
    if (h->failed || !EVP_DigestFinal_ex(h->md, d, &len) || len != 64)
        st = cz_error_set(err, CZ_E_INTERNAL, "BLAKE2b-512 failed");
    /* Filecoin's digest: the first 16 of the 64 bytes */
    for (unsigned i = 0; st == CZ_OK && i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    EVP_MD_CTX_free(h->md);
    free(h);
    return st;
}

cz_status cz_fc_param_digest_file(char hex[CZ_FC_PARAM_DIGEST_HEX], const char *path,
                                  cz_fc_param_progress_fn progress, void *ctx, cz_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        cz_status st = cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO,
                                    "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return st;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    uint8_t *bufs = malloc(2 * (size_t)HASH_BLOCK);
    cz_fc_param_hasher *h = NULL;
    cz_status st = bufs ? cz_fc_param_hasher_new(&h, err)
                        : cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", path);
    uint64_t done = 0, total = (uint64_t)sb.st_size;
    block_read cur = {fd, bufs, 0, 0};
    if (st == CZ_OK) block_read_run(&cur);
    for (unsigned k = 1; st == CZ_OK; k++) {
        if (cur.got < 0) {
            st = cz_error_set(err, CZ_E_IO, "%s: read at byte %" PRIu64 ": %s", path, done,
                              strerror(cur.error));
            break;
        }
        if (cur.got == 0) break;
        /* the next block into the other buffer while this one is hashed
         * (read inline when no thread can be started) */
        block_read next = {fd, bufs + (size_t)(k & 1) * HASH_BLOCK, 0, 0};
        pthread_t reader;
        const int last = cur.got < (ssize_t)HASH_BLOCK;
        const int threaded = !last && pthread_create(&reader, NULL, block_read_run, &next) == 0;
        cz_fc_param_hasher_update(h, cur.buf, (size_t)cur.got);
        done += (uint64_t)cur.got;
        if (progress) progress(ctx, done, total > done ? total : done);
        if (threaded)
            pthread_join(reader, NULL);
        else if (!last)
            block_read_run(&next);
        cur = next;
    }
    if (h) {
        cz_status fin = cz_fc_param_hasher_finish(hex, h, st == CZ_OK ? err : NULL);
        if (st == CZ_OK && (st = fin) != CZ_OK) cz_error_prefix(err, "%s", path);
    }
    free(bufs);
    close(fd);
    return st;
}

static int64_t mtime_ns_of(const struct stat *sb) {
    return (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
}

static int is_hex32(const char *s) {
    if (strlen(s) != 32) return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return 0;
    return 1;
}

/* Reads at most cap - 1 bytes of a small record; 0 when absent. */
static cz_status read_record(char *buf, size_t cap, int *present, const char *path, cz_error *err) {
    *present = 0;
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return CZ_OK;
        return cz_error_set(err, CZ_E_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    size_t n = fread(buf, 1, cap - 1, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    buf[n] = 0;
    if (more || strlen(buf) != n)
        return cz_error_set(err, CZ_E_PARSE, "%s: not a cuzk record (over %zu bytes, or binary)",
                            path, cap - 1);
    *present = 1;
    return CZ_OK;
}

/* The remembered digest of FILE (FILE.blake2b) when it names the file's
 * current size and time: *known = 1 and hex filled. */
static cz_status sum_lookup(char hex[CZ_FC_PARAM_DIGEST_HEX], int *known, const char *path,
                            const struct stat *sb, cz_error *err) {
    *known = 0;
    char rec[4200], text[256];
    if (snprintf(rec, sizeof rec, "%s.blake2b", path) >= (int)sizeof rec)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    int present = 0;
    cz_status st = read_record(text, sizeof text, &present, rec, err);
    if (st != CZ_OK || !present) return st;
    char h[40];
    uint64_t bytes = 0;
    int64_t mtime = 0;
    int used = 0;
    if (sscanf(text, SUM_MAGIC " %39s %" SCNu64 " %" SCNd64 "%n", h, &bytes, &mtime, &used) != 3 ||
        !is_hex32(h) || strcmp(text + used, "\n"))
        return cz_error_set(
            err, CZ_E_PARSE,
            "%s: line 1: expected \"" SUM_MAGIC " <32 hex digits> <bytes> <mtime ns>\"", rec);
    if (bytes != (uint64_t)sb->st_size || mtime != mtime_ns_of(sb)) return CZ_OK; /* changed */
    memcpy(hex, h, CZ_FC_PARAM_DIGEST_HEX);
    *known = 1;
    return CZ_OK;
}

/* Writes PATH SUFFIX with text, through a temporary renamed into place, so
 * a reader never sees half a record. */
static cz_status write_record(const char *path, const char *suffix, const char *text,
                              cz_error *err) {
    char rec[4200], tmp[4300];
    if (snprintf(rec, sizeof rec, "%s%s", path, suffix) >= (int)sizeof rec ||
        snprintf(tmp, sizeof tmp, "%s.tmp-%ld", rec, (long)getpid()) >= (int)sizeof tmp)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return cz_error_set(err, CZ_E_IO, "%s: cannot create: %s", tmp, strerror(errno));
    int ok = fputs(text, f) >= 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, rec) != 0) {
        cz_status st = cz_error_set(err, CZ_E_IO, "%s: cannot write: %s", rec, strerror(errno));
        remove(tmp);
        return st;
    }
    return CZ_OK;
}

/* Writes FILE.blake2b: the digest of the file at this size and time. */
static cz_status sum_save(const char *path, const char *hex, const struct stat *sb, cz_error *err) {
    char text[160];
    snprintf(text, sizeof text, SUM_MAGIC " %s %" PRIu64 " %" PRId64 "\n", hex,
             (uint64_t)sb->st_size, mtime_ns_of(sb));
    return write_record(path, ".blake2b", text, err);
}

/* The digest FILE.dev names, when present: *present = 1, hex filled. */
static cz_status dev_lookup(char hex[CZ_FC_PARAM_DIGEST_HEX], int *present, const char *path,
                            cz_error *err) {
    char rec[4200], text[1024];
    if (snprintf(rec, sizeof rec, "%s.dev", path) >= (int)sizeof rec)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    cz_status st = read_record(text, sizeof text, present, rec, err);
    if (st != CZ_OK || !*present) return st;
    const char *line = strstr(text, "\nblake2b ");
    char h[40] = "";
    if (strncmp(text, DEV_LINE "\n", strlen(DEV_LINE) + 1) || !line ||
        sscanf(line + 9, "%39[0-9a-f]", h) != 1 || !is_hex32(h))
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: not a development record (expected the line \"%s\", then "
                            "\"blake2b <32 hex digits>\")",
                            rec, DEV_LINE);
    memcpy(hex, h, CZ_FC_PARAM_DIGEST_HEX);
    return CZ_OK;
}

cz_status cz_fc_param_classify(cz_fc_param_verdict *v, const char *path,
                               const cz_fc_param_entry *table, size_t n,
                               cz_fc_param_progress_fn progress, void *ctx, cz_error *err) {
    memset(v, 0, sizeof *v);
    v->cls = CZ_FC_PARAM_UNKNOWN;
    const char *slash = strrchr(path, '/');
    v->entry = cz_fc_param_lookup(slash ? slash + 1 : path, table, n);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO, "%s: %s", path,
                            strerror(errno));
    if (!S_ISREG(sb.st_mode)) return cz_error_set(err, CZ_E_IO, "%s: not a regular file", path);
    v->size = (uint64_t)sb.st_size;
    char dev[CZ_FC_PARAM_DIGEST_HEX] = "";
    int has_dev = 0, known = 0;
    cz_status st = dev_lookup(dev, &has_dev, path, err);
    if (st != CZ_OK) return st;
    if (!v->entry && !has_dev) return CZ_OK; /* unknown: not read */
    if ((st = sum_lookup(v->digest, &known, path, &sb, err)) != CZ_OK) return st;
    if (!known) {
        if ((st = cz_fc_param_digest_file(v->digest, path, progress, ctx, err)) != CZ_OK) return st;
        v->hashed = 1;
        /* remembered only when the file did not change while it was read */
        struct stat after;
        if (stat(path, &after) == 0 && after.st_size == sb.st_size &&
            mtime_ns_of(&after) == mtime_ns_of(&sb))
            sum_save(path, v->digest, &sb, NULL);
    }
    if (v->entry && !strcmp(v->digest, v->entry->digest))
        v->cls = CZ_FC_PARAM_OFFICIAL;
    else if (has_dev && !strcmp(v->digest, dev))
        v->cls = CZ_FC_PARAM_DEVELOPMENT;
    else if (v->entry)
        v->cls = CZ_FC_PARAM_WRONG_DIGEST;
    return CZ_OK;
}

/* FILE.dev naming hex, and FILE.blake2b for the file as it was at sb when
 * it still is (it did not change while it was read). */
static cz_status mark_records(const char *path, const char *hex, const struct stat *sb,
                              cz_error *err) {
    char text[256];
    snprintf(text, sizeof text, DEV_LINE "\nblake2b %s\n", hex);
    cz_status st = write_record(path, ".dev", text, err);
    if (st != CZ_OK) return st;
    struct stat after;
    if (stat(path, &after) == 0 && after.st_size == sb->st_size &&
        mtime_ns_of(&after) == mtime_ns_of(sb))
        sum_save(path, hex, sb, NULL);
    return CZ_OK;
}

static cz_status stat_key(struct stat *sb, const char *path, cz_error *err) {
    if (stat(path, sb) == 0) return CZ_OK;
    return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO, "%s: %s", path,
                        strerror(errno));
}

cz_status cz_fc_param_mark_development(char *digest, const char *path,
                                       cz_fc_param_progress_fn progress, void *ctx, cz_error *err) {
    struct stat sb;
    char hex[CZ_FC_PARAM_DIGEST_HEX];
    cz_status st = stat_key(&sb, path, err);
    if (st == CZ_OK) st = cz_fc_param_digest_file(hex, path, progress, ctx, err);
    if (st == CZ_OK) st = mark_records(path, hex, &sb, err);
    if (st == CZ_OK && digest) memcpy(digest, hex, sizeof hex);
    return st;
}

cz_status cz_fc_param_mark_development_hashed(const char *path, const char *digest, cz_error *err) {
    struct stat sb;
    if (!is_hex32(digest))
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: digest '%s' is not 32 hex digits", path,
                            digest);
    cz_status st = stat_key(&sb, path, err);
    return st == CZ_OK ? mark_records(path, digest, &sb, err) : st;
}

int cz_fc_param_is_side_file(const char *name) {
    static const char *const suffixes[] = {".dev", ".blake2b", ".xxh64", ".czc"};
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t s = strlen(suffixes[i]);
        if (len > s && !strcmp(name + len - s, suffixes[i])) return 1;
    }
    return strstr(name, ".tmp-") != NULL;
}

cz_status cz_fc_param_dir_development(size_t *n_dev, char *first, size_t first_size,
                                      const char *dir, cz_error *err) {
    *n_dev = 0;
    if (first && first_size) first[0] = 0;
    DIR *d = opendir(dir);
    if (!d) return cz_error_set(err, CZ_E_IO, "%s: cannot read: %s", dir, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len <= 4 || strcmp(de->d_name + len - 4, ".dev")) continue;
        char key[4200];
        struct stat sb;
        if (snprintf(key, sizeof key, "%s/%.*s", dir, (int)(len - 4), de->d_name) >=
                (int)sizeof key ||
            stat(key, &sb) != 0)
            continue; /* a record without its key */
        if (!*n_dev && first && first_size)
            snprintf(first, first_size, "%.*s", (int)(len - 4), de->d_name);
        (*n_dev)++;
    }
    closedir(d);
    return CZ_OK;
}
