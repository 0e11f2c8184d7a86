/* iden3 .r1cs and .wtns writers (see export.h for the wire mapping).
 *
 * Common container ("binfile"): magic (4 bytes), u32 version, u32 number of
 * sections, then each section as u32 type, u64 byte size, payload. Section
 * sizes are computed before writing, so the file is written in one pass.
 *
 * .r1cs version 1:
 *   section 1 (header)  u32 n8 = 32, prime r (n8 bytes LE), u32 nWires,
 *                       u32 nPubOut, u32 nPubIn, u32 nPrvIn, u64 nLabels,
 *                       u32 nConstraints
 *   section 2           per constraint, A then B then C: u32 term count, then
 *                       per term u32 wire, coefficient (n8 bytes LE, normal form)
 *   section 3           per wire its u64 label (here the wire number itself)
 * .wtns version 2:
 *   section 1 (header)  u32 n8 = 32, prime r, u32 number of values
 *   section 2           the values, n8 bytes LE each, normal form */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "r1cs/export.h"
#include "r1cs/internal.h"

#define N8 CZ_FR_BYTES

typedef struct {
    FILE *f;
    int failed; /* errno of the first failed write */
} out_file;

static void put(out_file *o, const void *p, size_t n) {
    if (o->failed || n == 0) return;
    if (fwrite(p, 1, n, o->f) != n) o->failed = errno ? errno : EIO;
}

static void put_u32(out_file *o, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, 4);
}

static void put_u64(out_file *o, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, 8);
}

static void put_fr(out_file *o, const cz_fr *x) {
    uint8_t b[N8];
    cz_fr_to_bytes_le(b, x);
    put(o, b, N8);
}

static void put_prime(out_file *o) {
    uint8_t b[N8];
    for (int i = 0; i < N8; i++) b[i] = (uint8_t)(cz_fr_modulus[i / 8] >> (8 * (i % 8)));
    put(o, b, N8);
}

static void put_section_start(out_file *o, uint32_t type, uint64_t bytes) {
    put_u32(o, type);
    put_u64(o, bytes);
}

/* Opens path.tmp.<pid> for writing and writes the container's preamble. */
static cz_status open_out(out_file *o, char **tmp, const char *path, const char magic[4],
                          uint32_t version, uint32_t sections, cz_error *err) {
    size_t plen = strlen(path);
    *tmp = malloc(plen + 32);
    if (!*tmp) return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", path);
    snprintf(*tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    memset(o, 0, sizeof *o);
    o->f = fopen(*tmp, "wb");
    if (!o->f) {
        cz_status st = cz_error_set(err, CZ_E_IO, "%s: cannot create: %s", *tmp, strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return st;
    }
    setvbuf(o->f, NULL, _IOFBF, 1 << 20);
    errno = 0;
    put(o, magic, 4);
    put_u32(o, version);
    put_u32(o, sections);
    return CZ_OK;
}

/* Closes, renames into place on success, removes the temporary otherwise. */
static cz_status close_out(out_file *o, char *tmp, const char *path, cz_error *err) {
    if (fflush(o->f) != 0 && !o->failed) o->failed = errno ? errno : EIO;
    if (fclose(o->f) != 0 && !o->failed) o->failed = errno ? errno : EIO;
    if (!o->failed && rename(tmp, path) != 0) o->failed = errno ? errno : EIO;
    cz_status st = CZ_OK;
    if (o->failed) {
        st = cz_error_set(err, CZ_E_IO, "%s: write failed: %s", path, strerror(o->failed));
        unlink(tmp);
    }
    free(tmp);
    return st;
}

/* The last num_inputs rows must be input_i * 0 = 0 with coefficient 1. */
static cz_status check_input_rows(const cz_r1cs *r, uint64_t synth, cz_error *err) {
    for (uint32_t i = 0; i < r->num_inputs; i++) {
        uint64_t row = synth + i;
        uint64_t s = r->a.row_start[row], e = r->a.row_start[row + 1];
        int ok = e - s == 1 && r->a.col[s] == i && cz_fr_is_one(&r->a.val[s]) &&
                 r->b.row_start[row] == r->b.row_start[row + 1] &&
                 r->c.row_start[row] == r->c.row_start[row + 1];
        if (!ok)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "row %llu is not the appended input constraint of input %u",
                                (unsigned long long)row, i);
    }
    return CZ_OK;
}

cz_status cz_r1cs_export_iden3(const cz_r1cs *r, const char *path, cz_error *err) {
    cz_status st = cz_r1cs_validate(r, err);
    if (st == CZ_OK && r->num_constraints < r->num_inputs)
        st = cz_error_set(err, CZ_E_INVALID_ARG,
                          "%llu rows cannot hold the %u appended input constraints",
                          (unsigned long long)r->num_constraints, r->num_inputs);
    uint64_t synth = r->num_constraints - r->num_inputs;
    if (st == CZ_OK) st = check_input_rows(r, synth, err);
    uint64_t wires = (uint64_t)r->num_inputs + r->num_aux;
    if (st == CZ_OK && (synth > UINT32_MAX || wires > UINT32_MAX))
        st = cz_error_set(err, CZ_E_INVALID_ARG,
                          "%llu constraints / %llu wires do not fit the format's u32 counts",
                          (unsigned long long)synth, (unsigned long long)wires);
    if (st != CZ_OK) {
        if (err) err->status = CZ_E_INVALID_ARG;
        cz_error_prefix(err, "%s: refusing to export", path);
        return CZ_E_INVALID_ARG;
    }

    const cz_csr *mats[3] = {&r->a, &r->b, &r->c};
    uint64_t terms = 0;
    for (int k = 0; k < 3; k++) terms += mats[k]->row_start[synth];
    uint64_t header_bytes = 4 + N8 + 4 * 4 + 8 + 4;
    uint64_t constraint_bytes = synth * 3 * 4 + terms * (4 + N8);
    uint64_t map_bytes = wires * 8;

    out_file o;
    char *tmp;
    static const char magic[4] = {'r', '1', 'c', 's'};
    st = open_out(&o, &tmp, path, magic, 1, 3, err);
    if (st != CZ_OK) return st;

    put_section_start(&o, 1, header_bytes);
    put_u32(&o, N8);
    put_prime(&o);
    put_u32(&o, (uint32_t)wires);
    put_u32(&o, 0);                 /* nPubOut */
    put_u32(&o, r->num_inputs - 1); /* nPubIn */
    put_u32(&o, r->num_aux);        /* nPrvIn */
    put_u64(&o, wires);             /* nLabels */
    put_u32(&o, (uint32_t)synth);

    /* Columns are wires (export.h), already ascending within each row. */
    put_section_start(&o, 2, constraint_bytes);
    for (uint64_t row = 0; row < synth && !o.failed; row++) {
        for (int k = 0; k < 3; k++) {
            const cz_csr *m = mats[k];
            put_u32(&o, (uint32_t)(m->row_start[row + 1] - m->row_start[row]));
            for (uint64_t e = m->row_start[row]; e < m->row_start[row + 1]; e++) {
                put_u32(&o, m->col[e]);
                put_fr(&o, &m->val[e]);
            }
        }
    }

    put_section_start(&o, 3, map_bytes);
    for (uint64_t w = 0; w < wires && !o.failed; w++) put_u64(&o, w);

    return close_out(&o, tmp, path, err);
}

cz_status cz_wtns_export_iden3(const cz_fr *input, uint32_t num_inputs, const cz_fr *aux,
                               uint32_t num_aux, const char *path, cz_error *err) {
    uint64_t wires = (uint64_t)num_inputs + num_aux;
    if (num_inputs == 0 || wires > UINT32_MAX)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s: refusing to export: %u inputs (ONE included) and %u aux", path,
                            num_inputs, num_aux);
    out_file o;
    char *tmp;
    static const char magic[4] = {'w', 't', 'n', 's'};
    cz_status st = open_out(&o, &tmp, path, magic, 2, 2, err);
    if (st != CZ_OK) return st;

    put_section_start(&o, 1, 4 + N8 + 4);
    put_u32(&o, N8);
    put_prime(&o);
    put_u32(&o, (uint32_t)wires);

    put_section_start(&o, 2, wires * N8);
    for (uint32_t i = 0; i < num_inputs && !o.failed; i++) put_fr(&o, &input[i]);
    for (uint32_t v = 0; v < num_aux && !o.failed; v++) put_fr(&o, &aux[v]);

    return close_out(&o, tmp, path, err);
}
