/* The circuit file (".czc"), version 1: a cz_circuit laid out so that a
 * read-only mapping of it is used in place (the matrices and densities are
 * never copied). Everything is little-endian; every section starts 8-byte
 * aligned, with zero padding after the sections whose size is not a
 * multiple of 8.
 *
 *   offset  0  magic "CZCIRC\0\0"
 *           8  u32 version (1)            12  u32 header bytes (64)
 *          16  u32 num_inputs (ONE incl.) 20  u32 num_aux
 *          24  u64 num_constraints (rows, input constraints included)
 *          32  u64 nnz of A               40  u64 nnz of B
 *          48  u64 nnz of C
 *          56  u32 coef_bytes (2 when num_coeffs <= 65,536, else 4)
 *          60  u32 num_coeffs (>= 2)
 *          64  the coefficient table: num_coeffs values, 32-byte canonical
 *              Fr, LE ([0] = 1, [1] = -1, distinct, non-zero)
 *              then A, B, C in turn: u32 row_start[rows + 1], pad,
 *              u32 col[nnz], pad, coef[nnz] (indices of coef_bytes), pad
 *              then u64 a_aux_density[ceil(num_aux / 64)],
 *              u64 b_input_density[ceil(num_inputs / 64)],
 *              u64 b_aux_density[ceil(num_aux / 64)]
 *     size - 8 u64 XXH64 (seed 0) of every byte before it
 *
 * The reader maps the file, checks the header and derives the exact size
 * from it, comparing that with the file's size before anything else (a
 * header declaring terabytes is refused without allocating), then the
 * checksum (CHECKED: recomputed; TRUSTED: the stored one against the
 * caller's expectation). The table is converted into a small heap array of
 * Montgomery values (canonical, [0] = 1 and [1] = -1 in both modes); the
 * matrices point into the mapping. CHECKED mode then checks every
 * invariant of circuit.h, the padding and the densities too. */
#include <stdlib.h>
#include <string.h>

#include "r1cs/circuit.h"
#include "r1cs/internal.h"
#include "util/check.h"

#define HEADER_BYTES 64
#define VERSION      1
static const char MAGIC[8] = {'C', 'Z', 'C', 'I', 'R', 'C', 0, 0};

/* ---- layout ---- */

typedef struct {
    uint32_t num_inputs, num_aux, coef_bytes, num_coeffs;
    uint64_t rows, nnz[3];
    /* offsets of the sections, the checksum and the exact file size */
    uint64_t coeffs, row_start[3], col[3], coef[3], density[3], checksum, size;
} layout;

/* A section of count elements of elem bytes at *pos, padded to 8; 0 on
 * overflow. */
static int section(uint64_t *start, uint64_t *pos, uint64_t count, uint64_t elem) {
    uint64_t bytes;
    if (__builtin_mul_overflow(count, elem, &bytes)) return 0;
    *start = *pos;
    if (__builtin_add_overflow(*pos, bytes, pos)) return 0;
    return !__builtin_add_overflow(*pos, -*pos & 7, pos);
}

static int layout_compute(layout *l) {
    uint64_t pos = HEADER_BYTES;
    if (!section(&l->coeffs, &pos, l->num_coeffs, CZ_FR_BYTES) || l->rows == UINT64_MAX) return 0;
    for (int k = 0; k < 3; k++)
        if (!section(&l->row_start[k], &pos, l->rows + 1, 4) ||
            !section(&l->col[k], &pos, l->nnz[k], 4) ||
            !section(&l->coef[k], &pos, l->nnz[k], l->coef_bytes))
            return 0;
    uint64_t aux_words = cz_bitmap_words(l->num_aux), input_words = cz_bitmap_words(l->num_inputs);
    if (!section(&l->density[0], &pos, aux_words, 8) ||
        !section(&l->density[1], &pos, input_words, 8) ||
        !section(&l->density[2], &pos, aux_words, 8))
        return 0;
    l->checksum = pos;
    return !__builtin_add_overflow(pos, 8, &l->size);
}

static void layout_of(layout *l, const cz_circuit *c) {
    memset(l, 0, sizeof *l);
    l->num_inputs = c->num_inputs;
    l->num_aux = c->num_aux;
    l->coef_bytes = c->coef_bytes;
    l->num_coeffs = c->num_coeffs;
    l->rows = c->num_constraints;
    for (int k = 0; k < 3; k++) l->nnz[k] = c->m[k].nnz;
}

/* ---- the invariants (write and CHECKED open) ---- */

static cz_status validate_matrix(const cz_circuit *c, int k, cz_error *err) {
    const cz_circuit_matrix *m = &c->m[k];
    char name = "ABC"[k];
    uint64_t ncols = (uint64_t)c->num_inputs + c->num_aux;
    if (m->nnz > UINT32_MAX)
        return cz_error_set(err, CZ_E_PARSE, "%c: %llu entries, more than u32 row starts address",
                            name, (unsigned long long)m->nnz);
    if (m->row_start[0] != 0)
        return cz_error_set(err, CZ_E_PARSE, "%c: row 0 starts at %u, not 0", name,
                            m->row_start[0]);
    for (uint64_t row = 0; row < c->num_constraints; row++) {
        uint32_t begin = m->row_start[row], end = m->row_start[row + 1];
        if (end < begin)
            return cz_error_set(err, CZ_E_PARSE, "%c: row %llu ends at %u before it starts (%u)",
                                name, (unsigned long long)row, end, begin);
        if (end > m->nnz)
            return cz_error_set(err, CZ_E_PARSE, "%c: row %llu ends at %u, beyond the %llu entries",
                                name, (unsigned long long)row, end, (unsigned long long)m->nnz);
        cz_status st = cz_check_row_columns(m->col, begin, end, ncols, name, row, err);
        if (st != CZ_OK) return st;
        for (uint32_t e = begin; e < end; e++) {
            uint32_t i = c->coef_bytes == 2 ? ((const uint16_t *)m->coef)[e]
                                            : ((const uint32_t *)m->coef)[e];
            if (i >= c->num_coeffs)
                return cz_error_set(err, CZ_E_PARSE,
                                    "%c: row %llu: coefficient index %u of column %u beyond the "
                                    "%u coefficients",
                                    name, (unsigned long long)row, i, m->col[e], c->num_coeffs);
        }
    }
    if (m->row_start[c->num_constraints] != m->nnz)
        return cz_error_set(err, CZ_E_PARSE,
                            "%c: the last row ends at %u, but there are %llu entries", name,
                            m->row_start[c->num_constraints], (unsigned long long)m->nnz);
    return CZ_OK;
}

static cz_status validate_table(const cz_circuit *c, cz_error *err) {
    if (c->num_coeffs < 2)
        return cz_error_set(err, CZ_E_PARSE, "%u coefficients (1 and -1 are always there)",
                            c->num_coeffs);
    if (c->coef_bytes != (c->num_coeffs > 65536 ? 4u : 2u))
        return cz_error_set(err, CZ_E_PARSE, "%u-byte indices for %u coefficients (want %u)",
                            c->coef_bytes, c->num_coeffs, c->num_coeffs > 65536 ? 4u : 2u);
    cz_fr minus_one;
    cz_fr_neg(&minus_one, &cz_fr_one);
    if (!cz_fr_equal(&c->coeffs[CZ_CIRCUIT_COEF_ONE], &cz_fr_one))
        return cz_error_set(err, CZ_E_PARSE, "coefficient 0 is not 1");
    if (!cz_fr_equal(&c->coeffs[CZ_CIRCUIT_COEF_MINUS_ONE], &minus_one))
        return cz_error_set(err, CZ_E_PARSE, "coefficient 1 is not -1");
    cz_coef_table t;
    if (cz_coef_table_init(&t) != CZ_OK)
        return cz_error_set(err, CZ_E_NOMEM, "out of memory checking the coefficients");
    cz_status st = CZ_OK;
    for (uint32_t i = 2; i < c->num_coeffs && st == CZ_OK; i++) {
        cz_fr probe;
        if (!cz_fr_from_limbs(&probe, c->coeffs[i].l)) {
            st = cz_error_set(err, CZ_E_PARSE, "coefficient %u is not below r", i);
        } else if (cz_fr_is_zero(&c->coeffs[i])) {
            st = cz_error_set(err, CZ_E_PARSE, "coefficient %u is zero", i);
        } else {
            uint32_t first;
            int added;
            if (cz_coef_table_intern(&t, &c->coeffs[i], &first, &added) != CZ_OK)
                st = cz_error_set(err, CZ_E_NOMEM, "out of memory checking the coefficients");
            else if (!added)
                st =
                    cz_error_set(err, CZ_E_PARSE, "coefficient %u equals coefficient %u", i, first);
        }
    }
    cz_coef_table_free(&t);
    return st;
}

static cz_status validate(const cz_circuit *c, cz_error *err) {
    if (c->num_inputs < 1)
        return cz_error_set(err, CZ_E_PARSE, "no inputs (input 0 is ONE, so at least 1)");
    if ((uint64_t)c->num_inputs + c->num_aux > CZ_CS_MAX_VARS)
        return cz_error_set(err, CZ_E_PARSE, "%u inputs + %u aux exceed the limit of %u variables",
                            c->num_inputs, c->num_aux, CZ_CS_MAX_VARS);
    cz_status st = validate_table(c, err);
    for (int k = 0; k < 3 && st == CZ_OK; k++) st = validate_matrix(c, k, err);
    if (st != CZ_OK) return st;
    uint64_t *aa, *bi, *ba;
    st = cz_densities_from_columns(&aa, &bi, &ba, c->num_inputs, c->num_aux, c->m[0].col,
                                   c->m[0].nnz, c->m[1].col, c->m[1].nnz, err);
    if (st != CZ_OK) return st;
    st = cz_density_compare(c->a_aux_density, aa, c->num_aux, "a_aux_density", "aux", err);
    if (st == CZ_OK)
        st = cz_density_compare(c->b_input_density, bi, c->num_inputs, "b_input_density", "inputs",
                                err);
    if (st == CZ_OK)
        st = cz_density_compare(c->b_aux_density, ba, c->num_aux, "b_aux_density", "aux", err);
    free(aa), free(bi), free(ba);
    return st;
}

/* ---- writing ---- */

cz_status cz_circuit_write(cz_circuit *c, const char *path, cz_error *err) {
    cz_status st = validate(c, err);
    if (st != CZ_OK) {
        if (err) err->status = CZ_E_INVALID_ARG;
        cz_error_prefix(err, "%s: refusing to write an invalid circuit", path);
        return CZ_E_INVALID_ARG;
    }
    layout l;
    layout_of(&l, c);
    if (!layout_compute(&l))
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: the circuit exceeds 2^64 bytes", path);
    uint8_t header[HEADER_BYTES] = {0};
    memcpy(header, MAGIC, 8);
    cz_store_u32(header + 8, VERSION);
    cz_store_u32(header + 12, HEADER_BYTES);
    cz_store_u32(header + 16, c->num_inputs);
    cz_store_u32(header + 20, c->num_aux);
    cz_store_u64(header + 24, c->num_constraints);
    for (int k = 0; k < 3; k++) cz_store_u64(header + 32 + 8 * k, c->m[k].nnz);
    cz_store_u32(header + 56, c->coef_bytes);
    cz_store_u32(header + 60, c->num_coeffs);
    uint8_t *table = malloc((size_t)c->num_coeffs * CZ_FR_BYTES);
    if (!table) return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", path);
    for (uint32_t i = 0; i < c->num_coeffs; i++)
        cz_fr_to_bytes_le(table + (size_t)i * CZ_FR_BYTES, &c->coeffs[i]);

    cz_file_writer w;
    st = cz_file_writer_open(&w, path, err);
    if (st != CZ_OK) {
        free(table);
        return st;
    }
    cz_file_writer_put(&w, header, sizeof header);
    cz_file_writer_put(&w, table, (size_t)c->num_coeffs * CZ_FR_BYTES);
    free(table);
    for (int k = 0; k < 3; k++) {
        const cz_circuit_matrix *m = &c->m[k];
        cz_file_writer_put(&w, m->row_start, (size_t)(c->num_constraints + 1) * 4);
        cz_file_writer_pad(&w, 8);
        cz_file_writer_put(&w, m->col, (size_t)m->nnz * 4);
        cz_file_writer_pad(&w, 8);
        cz_file_writer_put(&w, m->coef, (size_t)m->nnz * c->coef_bytes);
        cz_file_writer_pad(&w, 8);
    }
    cz_file_writer_put(&w, c->a_aux_density, cz_bitmap_words(c->num_aux) * 8);
    cz_file_writer_put(&w, c->b_input_density, cz_bitmap_words(c->num_inputs) * 8);
    cz_file_writer_put(&w, c->b_aux_density, cz_bitmap_words(c->num_aux) * 8);
    if (!w.failed && w.written != l.checksum) {
        cz_file_writer_abort(&w);
        return CZ_BROKEN(err, "%s: wrote %llu bytes, the layout says %llu", path,
                         (unsigned long long)w.written, (unsigned long long)l.checksum);
    }
    uint64_t checksum = 0;
    st = cz_file_writer_commit(&w, &checksum, err);
    if (st == CZ_OK) c->checksum = checksum;
    return st;
}

/* ---- opening ---- */

static cz_status parse_header(layout *l, const uint8_t *base, uint64_t size, const char *path,
                              cz_error *err) {
    if (size < HEADER_BYTES + 8)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: truncated: %llu bytes, but header and checksum take %d", path,
                            (unsigned long long)size, HEADER_BYTES + 8);
    if (memcmp(base, MAGIC, 8) != 0)
        return cz_error_set(err, CZ_E_PARSE, "%s: not a circuit file (bad magic, want \"CZCIRC\")",
                            path);
    uint32_t version = cz_load_u32(base + 8), header_bytes = cz_load_u32(base + 12);
    if (version != VERSION)
        return cz_error_set(err, CZ_E_PARSE, "%s: version %u, expected %d", path, version, VERSION);
    if (header_bytes != HEADER_BYTES)
        return cz_error_set(err, CZ_E_PARSE, "%s: header size %u, expected %d", path, header_bytes,
                            HEADER_BYTES);
    memset(l, 0, sizeof *l);
    l->num_inputs = cz_load_u32(base + 16);
    l->num_aux = cz_load_u32(base + 20);
    l->rows = cz_load_u64(base + 24);
    for (int k = 0; k < 3; k++) l->nnz[k] = cz_load_u64(base + 32 + 8 * k);
    l->coef_bytes = cz_load_u32(base + 56);
    l->num_coeffs = cz_load_u32(base + 60);
    if (l->coef_bytes != 2 && l->coef_bytes != 4)
        return cz_error_set(err, CZ_E_PARSE, "%s: coefficient indices of %u bytes (2 or 4)", path,
                            l->coef_bytes);
    if (l->num_coeffs < 2 || l->coef_bytes != (l->num_coeffs > 65536 ? 4u : 2u))
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: %u coefficients with %u-byte indices (at least 2; 2-byte "
                            "indices up to 65,536)",
                            path, l->num_coeffs, l->coef_bytes);
    if (l->num_inputs < 1 || (uint64_t)l->num_inputs + l->num_aux > CZ_CS_MAX_VARS)
        return cz_error_set(err, CZ_E_PARSE, "%s: %u inputs and %u aux are out of range", path,
                            l->num_inputs, l->num_aux);
    for (int k = 0; k < 3; k++)
        if (l->nnz[k] > UINT32_MAX)
            return cz_error_set(err, CZ_E_PARSE,
                                "%s: header says %llu entries in %c, more than u32 row starts "
                                "address",
                                path, (unsigned long long)l->nnz[k], "ABC"[k]);
    char declared[200];
    snprintf(declared, sizeof declared,
             "%llu rows, %llu/%llu/%llu entries in A/B/C, %u coefficients, %u inputs, %u aux",
             (unsigned long long)l->rows, (unsigned long long)l->nnz[0],
             (unsigned long long)l->nnz[1], (unsigned long long)l->nnz[2], l->num_coeffs,
             l->num_inputs, l->num_aux);
    if (!layout_compute(l))
        return cz_error_set(err, CZ_E_PARSE, "%s: corrupt header: %s take more than 2^64 bytes",
                            path, declared);
    if (l->size != size)
        return cz_error_set(err, CZ_E_PARSE, "%s: %s: %llu bytes, header says %llu (%s)", path,
                            l->size > size ? "truncated" : "oversized", (unsigned long long)size,
                            (unsigned long long)l->size, declared);
    return CZ_OK;
}

static int zero_bytes(const uint8_t *p, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* The padding after each section that does not end 8-aligned. */
static cz_status check_padding(const layout *l, const uint8_t *base, const char *path,
                               cz_error *err) {
    for (int k = 0; k < 3; k++) {
        uint64_t ends[3] = {l->row_start[k] + (l->rows + 1) * 4, l->col[k] + l->nnz[k] * 4,
                            l->coef[k] + l->nnz[k] * l->coef_bytes};
        uint64_t next[3] = {l->col[k], l->coef[k], k < 2 ? l->row_start[k + 1] : l->density[0]};
        for (int s = 0; s < 3; s++)
            if (!zero_bytes(base + ends[s], next[s] - ends[s]))
                return cz_error_set(err, CZ_E_PARSE, "%s: %c: padding after the %s is not zero",
                                    path, "ABC"[k],
                                    s == 0   ? "row starts"
                                    : s == 1 ? "columns"
                                             : "coefficient indices");
    }
    return CZ_OK;
}

cz_status cz_circuit_open(cz_circuit **out, const char *path, cz_circuit_check mode,
                          uint64_t expected_checksum, cz_error *err) {
    *out = NULL;
    if (mode != CZ_CIRCUIT_CHECKED && mode != CZ_CIRCUIT_TRUSTED)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: unknown check mode %d", path, (int)mode);
    const uint8_t *base;
    uint64_t size;
    cz_status st = cz_file_map(&base, &size, path, err);
    if (st != CZ_OK) return st;
    layout l;
    st = parse_header(&l, base, size, path, err);
    if (st != CZ_OK) {
        cz_file_unmap(base, size);
        return st;
    }
    uint64_t stored = cz_load_u64(base + l.checksum);
    if (mode == CZ_CIRCUIT_CHECKED) {
        uint64_t computed = cz_xxh64(base, (size_t)l.checksum, 0);
        if (stored != computed)
            st = cz_error_set(err, CZ_E_PARSE,
                              "%s: checksum mismatch (stored %016llx, computed %016llx): the file "
                              "is corrupt",
                              path, (unsigned long long)stored, (unsigned long long)computed);
    }
    if (st == CZ_OK && expected_checksum && stored != expected_checksum)
        st = cz_error_set(err, CZ_E_PARSE,
                          "%s: checksum %016llx, expected %016llx: not the circuit the caller "
                          "expects",
                          path, (unsigned long long)stored, (unsigned long long)expected_checksum);
    cz_circuit *c = NULL;
    if (st == CZ_OK) st = cz_circuit_alloc(&c, err);
    if (st != CZ_OK) {
        cz_file_unmap(base, size);
        return st;
    }
    cz_circuit_storage *s = c->storage;
    s->map = base;
    s->map_size = size;
    c->num_inputs = l.num_inputs;
    c->num_aux = l.num_aux;
    c->num_constraints = l.rows;
    c->coef_bytes = l.coef_bytes;
    c->num_coeffs = l.num_coeffs;
    c->checksum = stored;
    cz_fr *coeffs = cz_circuit_own(c, malloc((size_t)l.num_coeffs * sizeof(cz_fr)));
    c->coeffs = coeffs;
    if (!coeffs) st = cz_error_set(err, CZ_E_NOMEM, "%s: out of memory for the table", path);
    for (uint32_t i = 0; i < l.num_coeffs && st == CZ_OK; i++)
        if (!cz_fr_from_bytes_le(&coeffs[i], base + l.coeffs + (uint64_t)i * CZ_FR_BYTES))
            st = cz_error_set(err, CZ_E_PARSE, "%s: coefficient %u is not below r", path, i);
    if (st == CZ_OK) {
        cz_fr minus_one;
        cz_fr_neg(&minus_one, &cz_fr_one);
        if (!cz_fr_equal(&coeffs[CZ_CIRCUIT_COEF_ONE], &cz_fr_one))
            st = cz_error_set(err, CZ_E_PARSE, "%s: coefficient 0 is not 1", path);
        else if (!cz_fr_equal(&coeffs[CZ_CIRCUIT_COEF_MINUS_ONE], &minus_one))
            st = cz_error_set(err, CZ_E_PARSE, "%s: coefficient 1 is not -1", path);
    }
    for (int k = 0; k < 3; k++) {
        c->m[k].nnz = l.nnz[k];
        c->m[k].row_start = (const uint32_t *)(base + l.row_start[k]);
        c->m[k].col = (const uint32_t *)(base + l.col[k]);
        c->m[k].coef = base + l.coef[k];
    }
    c->a_aux_density = (const uint64_t *)(base + l.density[0]);
    c->b_input_density = (const uint64_t *)(base + l.density[1]);
    c->b_aux_density = (const uint64_t *)(base + l.density[2]);
    if (st == CZ_OK && mode == CZ_CIRCUIT_CHECKED) {
        st = check_padding(&l, base, path, err);
        if (st == CZ_OK && (st = validate(c, err)) != CZ_OK) cz_error_prefix(err, "%s", path);
    }
    if (st != CZ_OK) {
        cz_circuit_free(c);
        return st;
    }
    *out = c;
    return CZ_OK;
}
