/* The record file ("pre-compiled circuit"), version 1. Everything is
 * little-endian; u64 arrays start 8-byte aligned.
 *
 *   offset  0  magic "CZR1CS\0\0"
 *           8  u32 version (1)            12  u32 header bytes (64)
 *          16  u32 num_inputs             20  u32 num_aux
 *          24  u64 num_constraints (rows, input constraints included)
 *          32  u64 nnz of A               40  u64 nnz of B
 *          48  u64 nnz of C               56  u64 reserved (0)
 *          64  A, B, C in turn: u64 row_start[rows + 1], u32 col[nnz],
 *              u32 0 when nnz is odd, val[nnz] (32-byte canonical Fr, LE)
 *              then u64 a_aux_density[ceil(num_aux / 64)],
 *              u64 b_input_density[ceil(num_inputs / 64)],
 *              u64 b_aux_density[ceil(num_aux / 64)]
 *     size - 8 u64 XXH64 (seed 0) of every byte before it
 *
 * The reader maps the file, derives the exact size from the header and
 * compares it with the file's size before it allocates anything (so a
 * header that declares terabytes is refused, not allocated), verifies the
 * checksum, then copies the arrays and checks every cz_r1cs invariant,
 * densities included (cz_r1cs_validate). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "r1cs/internal.h"
#include "util/parallel.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the record file code assumes a little-endian host"
#endif

#define HEADER_BYTES 64
#define VERSION      1
static const char MAGIC[8] = {'C', 'Z', 'R', '1', 'C', 'S', 0, 0};

/* Values converted per parallel step (8 MiB of file bytes). */
#define VAL_CHUNK ((size_t)1 << 18)

/* ---- sizes ---- */

typedef struct {
    uint64_t rows, nnz[3];
    uint32_t num_inputs, num_aux;
} layout;

/* Bytes of one matrix section; 0 on overflow (a section is never empty:
 * row_start has rows + 1 entries). */
static uint64_t matrix_bytes(uint64_t rows, uint64_t nnz) {
    uint64_t rs, cols, vals, sum;
    if (rows == UINT64_MAX || __builtin_mul_overflow(rows + 1, 8, &rs)) return 0;
    if (__builtin_mul_overflow(nnz + (nnz & 1), 4, &cols)) return 0;
    if (__builtin_mul_overflow(nnz, CZ_FR_BYTES, &vals)) return 0;
    if (__builtin_add_overflow(rs, cols, &sum) || __builtin_add_overflow(sum, vals, &sum)) return 0;
    return sum;
}

/* Exact file size for the layout; 0 on overflow. */
static uint64_t file_bytes(const layout *l) {
    uint64_t total = HEADER_BYTES + 8;
    for (int k = 0; k < 3; k++) {
        uint64_t m = matrix_bytes(l->rows, l->nnz[k]);
        if (!m || __builtin_add_overflow(total, m, &total)) return 0;
    }
    uint64_t density =
        8 * (2 * (uint64_t)cz_bitmap_words(l->num_aux) + (uint64_t)cz_bitmap_words(l->num_inputs));
    if (__builtin_add_overflow(total, density, &total)) return 0;
    return total;
}

/* ---- writing ---- */

typedef struct {
    const cz_fr *val;
    uint8_t *out;
} to_bytes_ctx;

static void vals_to_bytes(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const to_bytes_ctx *x = arg;
    for (size_t i = begin; i < end; i++) cz_fr_to_bytes_le(x->out + i * CZ_FR_BYTES, &x->val[i]);
}

static void put_vals(cz_file_writer *w, const cz_fr *val, uint64_t nnz, uint8_t *buf) {
    for (uint64_t done = 0; done < nnz && !w->failed; done += VAL_CHUNK) {
        size_t n = (size_t)(nnz - done < VAL_CHUNK ? nnz - done : VAL_CHUNK);
        to_bytes_ctx x = {val + done, buf};
        cz_parallel_for(n, n >= 32768 ? 8192 : n, vals_to_bytes, &x);
        cz_file_writer_put(w, buf, n * CZ_FR_BYTES);
    }
}

cz_status cz_r1cs_write(const cz_r1cs *r, const char *path, cz_error *err) {
    cz_status st = cz_r1cs_validate(r, err);
    if (st != CZ_OK) {
        if (err) err->status = CZ_E_INVALID_ARG;
        cz_error_prefix(err, "%s: refusing to write an invalid system", path);
        return CZ_E_INVALID_ARG;
    }
    const cz_csr *mats[3] = {&r->a, &r->b, &r->c};
    uint8_t header[HEADER_BYTES] = {0};
    memcpy(header, MAGIC, 8);
    cz_store_u32(header + 8, VERSION);
    cz_store_u32(header + 12, HEADER_BYTES);
    cz_store_u32(header + 16, r->num_inputs);
    cz_store_u32(header + 20, r->num_aux);
    cz_store_u64(header + 24, r->num_constraints);
    uint64_t max_nnz = 0;
    for (int k = 0; k < 3; k++) {
        uint64_t nnz = mats[k]->row_start[mats[k]->rows];
        cz_store_u64(header + 32 + 8 * k, nnz);
        if (nnz > max_nnz) max_nnz = nnz;
    }

    /* Written next to the target and renamed: a reader never sees half a file. */
    size_t buf_vals = max_nnz < VAL_CHUNK ? (size_t)max_nnz : VAL_CHUNK;
    uint8_t *buf = malloc(buf_vals ? buf_vals * CZ_FR_BYTES : 1);
    if (!buf) return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory for the write buffers", path);
    cz_file_writer w;
    st = cz_file_writer_open(&w, path, err);
    if (st != CZ_OK) {
        free(buf);
        return st;
    }
    cz_file_writer_put(&w, header, sizeof header);
    for (int k = 0; k < 3; k++) {
        const cz_csr *m = mats[k];
        uint64_t nnz = m->row_start[m->rows];
        cz_file_writer_put(&w, m->row_start, (size_t)(m->rows + 1) * 8);
        cz_file_writer_put(&w, m->col, (size_t)nnz * 4);
        cz_file_writer_pad(&w, 8);
        put_vals(&w, m->val, nnz, buf);
    }
    cz_file_writer_put(&w, r->a_aux_density, cz_bitmap_words(r->num_aux) * 8);
    cz_file_writer_put(&w, r->b_input_density, cz_bitmap_words(r->num_inputs) * 8);
    cz_file_writer_put(&w, r->b_aux_density, cz_bitmap_words(r->num_aux) * 8);
    st = cz_file_writer_commit(&w, NULL, err);
    free(buf);
    return st;
}

/* ---- reading ---- */

typedef struct {
    const uint8_t *in;
    cz_fr *val;
    _Atomic uint64_t first_bad; /* smallest index of a value >= r */
} from_bytes_ctx;

static void vals_from_bytes(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    from_bytes_ctx *x = arg;
    for (size_t i = begin; i < end; i++) {
        if (cz_fr_from_bytes_le(&x->val[i], x->in + i * CZ_FR_BYTES)) continue;
        uint64_t seen = atomic_load(&x->first_bad);
        while (i < seen && !atomic_compare_exchange_weak(&x->first_bad, &seen, i)) {
        }
        return;
    }
}

/* Copies one matrix section at *pos into m (sizes already match the file). */
static cz_status read_matrix(cz_csr *m, char name, const uint8_t *base, uint64_t *pos,
                             uint64_t rows, uint64_t nnz, const char *path, cz_error *err) {
    m->rows = rows;
    m->row_start = malloc((size_t)(rows + 1) * 8);
    m->col = malloc(nnz ? (size_t)nnz * 4 : 1);
    m->val = malloc(nnz ? (size_t)nnz * sizeof(cz_fr) : 1);
    if (!m->row_start || !m->col || !m->val)
        return cz_error_set(err, CZ_E_NOMEM, "%s: %c: out of memory for %llu rows, %llu entries",
                            path, name, (unsigned long long)rows, (unsigned long long)nnz);
    memcpy(m->row_start, base + *pos, (size_t)(rows + 1) * 8);
    *pos += (rows + 1) * 8;
    memcpy(m->col, base + *pos, (size_t)nnz * 4);
    *pos += nnz * 4;
    if (nnz & 1) {
        if (cz_load_u32(base + *pos) != 0)
            return cz_error_set(err, CZ_E_PARSE, "%s: %c: padding after the columns is not zero",
                                path, name);
        *pos += 4;
    }
    if (m->row_start[rows] != nnz)
        return cz_error_set(
            err, CZ_E_PARSE, "%s: %c: last row ends at %llu, but the header declares %llu entries",
            path, name, (unsigned long long)m->row_start[rows], (unsigned long long)nnz);
    from_bytes_ctx x = {base + *pos, m->val, UINT64_MAX};
    cz_parallel_for((size_t)nnz, nnz >= 65536 ? 16384 : 0, vals_from_bytes, &x);
    uint64_t bad = atomic_load(&x.first_bad);
    if (bad != UINT64_MAX)
        return cz_error_set(err, CZ_E_PARSE, "%s: %c: entry %llu: value is not below r", path, name,
                            (unsigned long long)bad);
    *pos += nnz * CZ_FR_BYTES;
    return CZ_OK;
}

static cz_status read_density(uint64_t **out, const uint8_t *base, uint64_t *pos, uint64_t bits,
                              const char *name, const char *path, cz_error *err) {
    size_t words = cz_bitmap_words(bits);
    *out = calloc(words ? words : 1, 8);
    if (!*out) return cz_error_set(err, CZ_E_NOMEM, "%s: %s: out of memory", path, name);
    memcpy(*out, base + *pos, words * 8);
    *pos += words * 8;
    return CZ_OK;
}

static cz_status parse(cz_r1cs *out, const uint8_t *base, uint64_t size, const char *path,
                       cz_error *err) {
    if (size < HEADER_BYTES + 8)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: truncated: %llu bytes, but header and checksum take %d", path,
                            (unsigned long long)size, HEADER_BYTES + 8);
    if (memcmp(base, MAGIC, 8) != 0)
        return cz_error_set(err, CZ_E_PARSE, "%s: not a record file (bad magic, want \"CZR1CS\")",
                            path);
    uint32_t version = cz_load_u32(base + 8), header_bytes = cz_load_u32(base + 12);
    if (version != VERSION)
        return cz_error_set(err, CZ_E_PARSE, "%s: version %u, this build reads version %d", path,
                            version, VERSION);
    if (header_bytes != HEADER_BYTES || cz_load_u64(base + 56) != 0)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: header size %u / reserved field do not match version %d", path,
                            header_bytes, VERSION);
    layout l = {cz_load_u64(base + 24),
                {cz_load_u64(base + 32), cz_load_u64(base + 40), cz_load_u64(base + 48)},
                cz_load_u32(base + 16),
                cz_load_u32(base + 20)};
    uint64_t want = file_bytes(&l);
    if (want != size) {
        char declared[256];
        snprintf(declared, sizeof declared,
                 "header declares %llu rows, %llu/%llu/%llu entries in A/B/C, %u inputs, %u aux",
                 (unsigned long long)l.rows, (unsigned long long)l.nnz[0],
                 (unsigned long long)l.nnz[1], (unsigned long long)l.nnz[2], l.num_inputs,
                 l.num_aux);
        if (!want)
            return cz_error_set(err, CZ_E_PARSE,
                                "%s: corrupt header: %s, more than 2^64 bytes (file: %llu)", path,
                                declared, (unsigned long long)size);
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: %s: %s, which take %llu bytes, but the file has %llu", path,
                            want > size ? "truncated or corrupt header" : "oversized", declared,
                            (unsigned long long)want, (unsigned long long)size);
    }
    uint64_t stored = cz_load_u64(base + size - 8), computed = cz_xxh64(base, (size_t)size - 8, 0);
    if (stored != computed)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: checksum mismatch (stored %016llx, computed %016llx): the file is "
                            "corrupt",
                            path, (unsigned long long)stored, (unsigned long long)computed);
    if (l.num_inputs < 1 || (uint64_t)l.num_inputs + l.num_aux > CZ_CS_MAX_VARS)
        return cz_error_set(err, CZ_E_PARSE, "%s: %u inputs and %u aux are out of range", path,
                            l.num_inputs, l.num_aux);

    out->num_inputs = l.num_inputs;
    out->num_aux = l.num_aux;
    out->num_constraints = l.rows;
    uint64_t pos = HEADER_BYTES;
    cz_csr *mats[3] = {&out->a, &out->b, &out->c};
    for (int k = 0; k < 3; k++) {
        cz_status st = read_matrix(mats[k], "ABC"[k], base, &pos, l.rows, l.nnz[k], path, err);
        if (st != CZ_OK) return st;
    }
    cz_status st =
        read_density(&out->a_aux_density, base, &pos, l.num_aux, "a_aux_density", path, err);
    if (st == CZ_OK)
        st = read_density(&out->b_input_density, base, &pos, l.num_inputs, "b_input_density", path,
                          err);
    if (st == CZ_OK)
        st = read_density(&out->b_aux_density, base, &pos, l.num_aux, "b_aux_density", path, err);
    if (st != CZ_OK) return st;
    if (pos != size - 8)
        return cz_error_set(err, CZ_E_INTERNAL, "%s: parsed %llu bytes of %llu", path,
                            (unsigned long long)pos, (unsigned long long)size - 8);
    st = cz_r1cs_validate(out, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s: inconsistent", path);
    return CZ_OK;
}

cz_status cz_r1cs_decode(cz_r1cs *out, const uint8_t *data, uint64_t size, const char *name,
                         cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_status st = parse(out, data, size, name, err);
    if (st != CZ_OK) cz_r1cs_free(out);
    return st;
}

cz_status cz_r1cs_read(cz_r1cs *out, const char *path, cz_error *err) {
    memset(out, 0, sizeof *out);
    const uint8_t *map;
    uint64_t size;
    cz_status st = cz_file_map(&map, &size, path, err);
    if (st != CZ_OK) return st;
    if (map) madvise((void *)map, (size_t)size, MADV_SEQUENTIAL);
    st = cz_r1cs_decode(out, map, size, path, err); /* a short file fails before reading */
    cz_file_unmap(map, size);
    return st;
}
