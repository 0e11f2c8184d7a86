/* .vk / .params readers and writers, proof bytes (bellperson's layouts). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/groth16.h"
#include "util/log.h"
#include "util/parallel.h"
#include "util/tmpfiles.h"

void cz_groth16_vk_free(cz_groth16_vk *vk) {
    if (!vk) return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

void cz_groth16_params_free(cz_groth16_params *params) {
    if (!params) return;
    cz_groth16_vk_free(&params->vk);
    if (!params->encoded) { /* a view's arrays are the mapping's */
        free(params->h);
        free(params->l);
        free(params->a);
        free(params->b_g1);
        free(params->b_g2);
    }
    memset(params, 0, sizeof *params);
}

/* ---- sizes ---- */

size_t cz_groth16_vk_encoded_size(const cz_groth16_vk *vk) {
    return CZ_GROTH16_VK_FIXED_BYTES + vk->n_ic * CZ_G1_UNCOMPRESSED_BYTES;
}

uint64_t cz_groth16_params_encoded_size(const cz_groth16_params *p) {
    return (uint64_t)cz_groth16_vk_encoded_size(&p->vk) + 5 * 4 +
           ((uint64_t)p->n_h + p->n_l + p->n_a + p->n_b_g1) * CZ_G1_UNCOMPRESSED_BYTES +
           (uint64_t)p->n_b_g2 * CZ_G2_UNCOMPRESSED_BYTES;
}

static void put_u32_be(uint8_t *out, uint32_t v) {
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}

static uint32_t get_u32_be(const uint8_t *in) {
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | (uint32_t)in[3];
}

/* ---- encoding ---- */

cz_status cz_groth16_vk_encode(uint8_t *out, const cz_groth16_vk *vk, cz_error *err) {
    if (vk->n_ic > UINT32_MAX)
        return cz_error_set(err, CZ_E_RANGE, "vk: %zu ic points do not fit a u32 length", vk->n_ic);
    cz_g1_affine_to_uncompressed(out, &vk->alpha_g1), out += CZ_G1_UNCOMPRESSED_BYTES;
    cz_g1_affine_to_uncompressed(out, &vk->beta_g1), out += CZ_G1_UNCOMPRESSED_BYTES;
    cz_g2_affine_to_uncompressed(out, &vk->beta_g2), out += CZ_G2_UNCOMPRESSED_BYTES;
    cz_g2_affine_to_uncompressed(out, &vk->gamma_g2), out += CZ_G2_UNCOMPRESSED_BYTES;
    cz_g1_affine_to_uncompressed(out, &vk->delta_g1), out += CZ_G1_UNCOMPRESSED_BYTES;
    cz_g2_affine_to_uncompressed(out, &vk->delta_g2), out += CZ_G2_UNCOMPRESSED_BYTES;
    put_u32_be(out, (uint32_t)vk->n_ic), out += 4;
    for (size_t i = 0; i < vk->n_ic; i++, out += CZ_G1_UNCOMPRESSED_BYTES)
        cz_g1_affine_to_uncompressed(out, &vk->ic[i]);
    return CZ_OK;
}

/* ---- decoding ---- */

typedef struct {
    const uint8_t *p;
    size_t left;
    const char *file;      /* "vk" or "params" */
    const char *vk_prefix; /* "" or "vk." for the vk inside params */
    unsigned flags;
    /* the input is a private file mapping whose decoded pages may be dropped
     * (so that a 44 GiB .params does not hold both the file pages and the
     * decoded points resident) */
    int release_consumed;
} reader;

static void release_pages(const reader *r, const uint8_t *begin, const uint8_t *end) {
    if (!r->release_consumed) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)begin + page - 1) & ~(page - 1), hi = (uintptr_t)end & ~(page - 1);
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

static cz_status need(reader *r, size_t bytes, const char *name, cz_error *err) {
    if (r->left < bytes)
        return cz_error_set(err, CZ_E_PARSE, "%s: truncated at %s%s: need %zu bytes, %zu left",
                            r->file, r->vk_prefix, name, bytes, r->left);
    return CZ_OK;
}

static cz_status read_g1(reader *r, cz_g1_affine *out, const char *name, cz_error *err) {
    cz_status st = need(r, CZ_G1_UNCOMPRESSED_BYTES, name, err);
    if (st != CZ_OK) return st;
    cz_error e;
    st = cz_g1_affine_from_uncompressed(out, r->p, r->flags, &e);
    if (st != CZ_OK)
        return cz_error_set(err, st, "%s: %s%s: %s", r->file, r->vk_prefix, name, e.message);
    r->p += CZ_G1_UNCOMPRESSED_BYTES, r->left -= CZ_G1_UNCOMPRESSED_BYTES;
    return CZ_OK;
}

static cz_status read_g2(reader *r, cz_g2_affine *out, const char *name, cz_error *err) {
    cz_status st = need(r, CZ_G2_UNCOMPRESSED_BYTES, name, err);
    if (st != CZ_OK) return st;
    cz_error e;
    st = cz_g2_affine_from_uncompressed(out, r->p, r->flags, &e);
    if (st != CZ_OK)
        return cz_error_set(err, st, "%s: %s%s: %s", r->file, r->vk_prefix, name, e.message);
    r->p += CZ_G2_UNCOMPRESSED_BYTES, r->left -= CZ_G2_UNCOMPRESSED_BYTES;
    return CZ_OK;
}

/* The batch decoders report "point <i>: <why>"; this turns that into
 * "<file>: <name>[<i>]: <why>". */
static cz_status vector_error(cz_error *err, const cz_error *e, const reader *r, const char *name) {
    unsigned long long index;
    int consumed = 0;
    if (sscanf(e->message, "point %llu: %n", &index, &consumed) == 1 && consumed > 0)
        return cz_error_set(err, e->status, "%s: %s%s[%llu]: %s", r->file, r->vk_prefix, name,
                            index, e->message + consumed);
    return cz_error_set(err, e->status, "%s: %s%s: %s", r->file, r->vk_prefix, name, e->message);
}

/* A u32 length and that many points of point_bytes each, decoded into a new
 * array of point_size-byte structs. The length is checked against what is
 * left before anything is allocated. */
static cz_status read_vector(reader *r, void **out, size_t *n_out, int g2, const char *name,
                             cz_error *err) {
    size_t point_bytes = g2 ? CZ_G2_UNCOMPRESSED_BYTES : CZ_G1_UNCOMPRESSED_BYTES;
    size_t point_size = g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    if (r->left < 4)
        return cz_error_set(err, CZ_E_PARSE, "%s: truncated at the length of %s%s: %zu bytes left",
                            r->file, r->vk_prefix, name, r->left);
    uint32_t n = get_u32_be(r->p);
    r->p += 4, r->left -= 4;
    uint64_t bytes = (uint64_t)n * point_bytes;
    if (bytes > r->left)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: %s%s: length %u needs %llu bytes, only %zu left (truncated file "
                            "or corrupt length)",
                            r->file, r->vk_prefix, name, n, (unsigned long long)bytes, r->left);
    *out = NULL;
    *n_out = 0;
    if (n == 0) return CZ_OK;
    void *points = malloc((size_t)n * point_size);
    if (!points)
        return cz_error_set(err, CZ_E_NOMEM, "%s: %s%s: cannot allocate %u points", r->file,
                            r->vk_prefix, name, n);
    cz_error e;
    cz_status st = g2 ? cz_g2_batch_from_uncompressed(points, r->p, n, r->flags, &e)
                      : cz_g1_batch_from_uncompressed(points, r->p, n, r->flags, &e);
    if (st != CZ_OK) {
        free(points);
        return vector_error(err, &e, r, name);
    }
    release_pages(r, r->p, r->p + bytes);
    r->p += bytes, r->left -= (size_t)bytes;
    *out = points;
    *n_out = n;
    return CZ_OK;
}

static cz_status read_vk(reader *r, cz_groth16_vk *vk, cz_error *err) {
    cz_status st;
    if ((st = read_g1(r, &vk->alpha_g1, "alpha_g1", err)) != CZ_OK) return st;
    if ((st = read_g1(r, &vk->beta_g1, "beta_g1", err)) != CZ_OK) return st;
    if ((st = read_g2(r, &vk->beta_g2, "beta_g2", err)) != CZ_OK) return st;
    if ((st = read_g2(r, &vk->gamma_g2, "gamma_g2", err)) != CZ_OK) return st;
    if ((st = read_g1(r, &vk->delta_g1, "delta_g1", err)) != CZ_OK) return st;
    if ((st = read_g2(r, &vk->delta_g2, "delta_g2", err)) != CZ_OK) return st;
    void *ic;
    if ((st = read_vector(r, &ic, &vk->n_ic, 0, "ic", err)) != CZ_OK) return st;
    vk->ic = ic;
    if (vk->n_ic == 0)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: %sic is empty (a key has one point per input, ONE included)",
                            r->file, r->vk_prefix);
    return CZ_OK;
}

static unsigned decode_flags(cz_groth16_check check) {
    return (unsigned)check | CZ_DECODE_REJECT_INFINITY;
}

static cz_status vk_decode(cz_groth16_vk *out, const uint8_t *in, size_t len,
                           cz_groth16_check check, int release, cz_error *err) {
    memset(out, 0, sizeof *out);
    reader r = {in, len, "vk", "", decode_flags(check), release};
    cz_status st = read_vk(&r, out, err);
    if (st == CZ_OK && r.left != 0)
        st = cz_error_set(err, CZ_E_PARSE,
                          "vk: %zu trailing bytes after the end (ic has %zu points)", r.left,
                          out->n_ic);
    if (st != CZ_OK) cz_groth16_vk_free(out);
    return st;
}

static cz_status params_decode(cz_groth16_params *out, const uint8_t *in, size_t len,
                               cz_groth16_check check, int release, cz_error *err) {
    memset(out, 0, sizeof *out);
    reader r = {in, len, "params", "vk.", decode_flags(check), release};
    cz_status st = read_vk(&r, &out->vk, err);
    r.vk_prefix = "";
    void *v;
    if (st == CZ_OK && (st = read_vector(&r, &v, &out->n_h, 0, "h", err)) == CZ_OK) out->h = v;
    if (st == CZ_OK && (st = read_vector(&r, &v, &out->n_l, 0, "l", err)) == CZ_OK) out->l = v;
    if (st == CZ_OK && (st = read_vector(&r, &v, &out->n_a, 0, "a", err)) == CZ_OK) out->a = v;
    if (st == CZ_OK && (st = read_vector(&r, &v, &out->n_b_g1, 0, "b_g1", err)) == CZ_OK)
        out->b_g1 = v;
    if (st == CZ_OK && (st = read_vector(&r, &v, &out->n_b_g2, 1, "b_g2", err)) == CZ_OK)
        out->b_g2 = v;
    if (st == CZ_OK && r.left != 0)
        st = cz_error_set(err, CZ_E_PARSE,
                          "params: %zu trailing bytes after the end (b_g2 has %zu points)", r.left,
                          out->n_b_g2);
    if (st != CZ_OK) cz_groth16_params_free(out);
    return st;
}

cz_status cz_groth16_vk_decode(cz_groth16_vk *out, const uint8_t *in, size_t len,
                               cz_groth16_check check, cz_error *err) {
    return vk_decode(out, in, len, check, 0, err);
}

cz_status cz_groth16_params_decode(cz_groth16_params *out, const uint8_t *in, size_t len,
                                   cz_groth16_check check, cz_error *err) {
    return params_decode(out, in, len, check, 0, err);
}

/* ---- files ---- */

typedef struct {
    const uint8_t *data;
    size_t len;
} mapping;

static cz_status map_file(mapping *m, const char *path, cz_error *err) {
    m->data = NULL;
    m->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO, "%s: cannot open: %s",
                            path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        cz_error_set(err, CZ_E_IO, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return CZ_E_IO;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return cz_error_set(err, CZ_E_IO, "%s: not a regular file", path);
    }
    if (sb.st_size > 0) {
        /* shared: read only either way, and a shared file mapping can be
         * page-locked as it is (a private one would be copied page by page) */
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            cz_error_set(err, CZ_E_IO, "%s: cannot map: %s", path, strerror(errno));
            close(fd);
            return CZ_E_IO;
        }
        madvise(p, (size_t)sb.st_size, MADV_SEQUENTIAL);
        m->data = p;
        m->len = (size_t)sb.st_size;
    }
    close(fd);
    return CZ_OK;
}

static void unmap_file(mapping *m) {
    if (m->data) munmap((void *)m->data, m->len);
    m->data = NULL;
}

cz_status cz_groth16_vk_read(cz_groth16_vk *out, const char *path, cz_groth16_check check,
                             cz_error *err) {
    memset(out, 0, sizeof *out);
    mapping m;
    cz_status st = map_file(&m, path, err);
    if (st != CZ_OK) return st;
    st = vk_decode(out, m.data, m.len, check, 1, err);
    unmap_file(&m);
    if (st != CZ_OK) cz_error_prefix(err, "%s", path);
    return st;
}

cz_status cz_groth16_params_read(cz_groth16_params *out, const char *path, cz_groth16_check check,
                                 cz_error *err) {
    memset(out, 0, sizeof *out);
    mapping m;
    cz_status st = map_file(&m, path, err);
    if (st != CZ_OK) return st;
    st = params_decode(out, m.data, m.len, check, 1, err);
    unmap_file(&m);
    if (st != CZ_OK) cz_error_prefix(err, "%s", path);
    return st;
}

/* ---- a .params file without its points decoded ---- */

static const char *const vector_names[CZ_GROTH16_VECTORS] = {"h", "l", "a", "b_g1", "b_g2"};

const char *cz_groth16_vector_name(cz_groth16_vector v) {
    return (unsigned)v < CZ_GROTH16_VECTORS ? vector_names[v] : "?";
}

size_t cz_groth16_vector_point_bytes(cz_groth16_vector v) {
    return v == CZ_GROTH16_B_G2 ? CZ_G2_UNCOMPRESSED_BYTES : CZ_G1_UNCOMPRESSED_BYTES;
}

void *cz_groth16_params_points(const cz_groth16_params *p, cz_groth16_vector v, size_t *bytes) {
    void *pts[CZ_GROTH16_VECTORS] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    const size_t n[CZ_GROTH16_VECTORS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    if ((unsigned)v >= CZ_GROTH16_VECTORS) {
        *bytes = 0;
        return NULL;
    }
    *bytes = n[v] * cz_groth16_vector_point_bytes(v);
    return pts[v];
}

/* A u32 length and that many points, skipped: read_vector's checks and
 * messages without decoding. *offset: the first point's offset from base. */
static cz_status skip_vector(reader *r, const uint8_t *base, uint64_t *offset, uint64_t *n_out,
                             int g2, const char *name, cz_error *err) {
    size_t point_bytes = g2 ? CZ_G2_UNCOMPRESSED_BYTES : CZ_G1_UNCOMPRESSED_BYTES;
    if (r->left < 4)
        return cz_error_set(err, CZ_E_PARSE, "%s: truncated at the length of %s%s: %zu bytes left",
                            r->file, r->vk_prefix, name, r->left);
    uint32_t n = get_u32_be(r->p);
    r->p += 4, r->left -= 4;
    uint64_t bytes = (uint64_t)n * point_bytes;
    if (bytes > r->left)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: %s%s: length %u needs %llu bytes, only %zu left (truncated file "
                            "or corrupt length)",
                            r->file, r->vk_prefix, name, n, (unsigned long long)bytes, r->left);
    *offset = (uint64_t)(r->p - base);
    *n_out = n;
    r->p += bytes, r->left -= (size_t)bytes;
    return CZ_OK;
}

/* The vk's points and ic skipped, with read_vk's messages. */
static cz_status skip_vk(reader *r, const uint8_t *base, uint64_t *n_ic, cz_error *err) {
    static const struct {
        const char *name;
        size_t bytes;
    } fixed[] = {
        {"alpha_g1", CZ_G1_UNCOMPRESSED_BYTES}, {"beta_g1", CZ_G1_UNCOMPRESSED_BYTES},
        {"beta_g2", CZ_G2_UNCOMPRESSED_BYTES},  {"gamma_g2", CZ_G2_UNCOMPRESSED_BYTES},
        {"delta_g1", CZ_G1_UNCOMPRESSED_BYTES}, {"delta_g2", CZ_G2_UNCOMPRESSED_BYTES},
    };
    cz_status st;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if ((st = need(r, fixed[i].bytes, fixed[i].name, err)) != CZ_OK) return st;
        r->p += fixed[i].bytes, r->left -= fixed[i].bytes;
    }
    uint64_t offset;
    if ((st = skip_vector(r, base, &offset, n_ic, 0, "ic", err)) != CZ_OK) return st;
    if (*n_ic == 0)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: %sic is empty (a key has one point per input, ONE included)",
                            r->file, r->vk_prefix);
    return CZ_OK;
}

/* The layout of in[len]; the vk decoded into *vk when not NULL (else
 * skipped). */
static cz_status walk_params(cz_groth16_params_layout *lay, cz_groth16_vk *vk, const uint8_t *in,
                             size_t len, cz_groth16_check check, cz_error *err) {
    memset(lay, 0, sizeof *lay);
    lay->file_bytes = len;
    reader r = {in, len, "params", "vk.", decode_flags(check), 0};
    cz_status st;
    if (vk) {
        st = read_vk(&r, vk, err);
        lay->n_ic = vk->n_ic;
    } else {
        st = skip_vk(&r, in, &lay->n_ic, err);
    }
    r.vk_prefix = "";
    for (int v = 0; v < CZ_GROTH16_VECTORS && st == CZ_OK; v++)
        st = skip_vector(&r, in, &lay->offset[v], &lay->count[v], v == CZ_GROTH16_B_G2,
                         vector_names[v], err);
    if (st == CZ_OK && r.left != 0)
        st = cz_error_set(err, CZ_E_PARSE,
                          "params: %zu trailing bytes after the end (b_g2 has %llu points)", r.left,
                          (unsigned long long)lay->count[CZ_GROTH16_B_G2]);
    return st;
}

cz_status cz_groth16_params_layout_read(cz_groth16_params_layout *out, const uint8_t *in,
                                        size_t len, cz_error *err) {
    cz_status st = walk_params(out, NULL, in, len, CZ_GROTH16_TRUSTED, err);
    if (st != CZ_OK) memset(out, 0, sizeof *out);
    return st;
}

cz_status cz_groth16_params_decode_header(cz_groth16_params *out, cz_groth16_params_layout *layout,
                                          const uint8_t *in, size_t len, cz_groth16_check check,
                                          cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_groth16_params_layout lay;
    cz_status st = walk_params(&lay, &out->vk, in, len, check, err);
    if (st != CZ_OK) {
        cz_groth16_params_free(out);
        if (layout) memset(layout, 0, sizeof *layout);
        return st;
    }
    out->n_h = (size_t)lay.count[CZ_GROTH16_H];
    out->n_l = (size_t)lay.count[CZ_GROTH16_L];
    out->n_a = (size_t)lay.count[CZ_GROTH16_A];
    out->n_b_g1 = (size_t)lay.count[CZ_GROTH16_B_G1];
    out->n_b_g2 = (size_t)lay.count[CZ_GROTH16_B_G2];
    if (layout) *layout = lay;
    return CZ_OK;
}

cz_status cz_groth16_params_check_point(void *out_point, const uint8_t *in,
                                        const cz_groth16_params_layout *layout, cz_groth16_vector v,
                                        uint64_t index, cz_groth16_check check, cz_error *err) {
    if ((unsigned)v >= CZ_GROTH16_VECTORS || index >= layout->count[v])
        return cz_error_set(err, CZ_E_INVALID_ARG, "params: no point %s[%llu]",
                            cz_groth16_vector_name(v), (unsigned long long)index);
    const uint8_t *p = in + layout->offset[v] + index * cz_groth16_vector_point_bytes(v);
    cz_g1_affine g1;
    cz_g2_affine g2;
    cz_error e;
    cz_status st = v == CZ_GROTH16_B_G2
                       ? cz_g2_affine_from_uncompressed(&g2, p, decode_flags(check), &e)
                       : cz_g1_affine_from_uncompressed(&g1, p, decode_flags(check), &e);
    if (st != CZ_OK)
        return cz_error_set(err, st, "params: %s[%llu]: %s", vector_names[v],
                            (unsigned long long)index, e.message);
    if (out_point) {
        if (v == CZ_GROTH16_B_G2)
            memcpy(out_point, &g2, sizeof g2);
        else
            memcpy(out_point, &g1, sizeof g1);
    }
    return CZ_OK;
}

cz_status cz_groth16_params_file_decode(cz_groth16_params *out, const cz_groth16_params_file *f,
                                        cz_groth16_check check, cz_error *err) {
    cz_status st = params_decode(out, f->data, f->len, check, 1, err);
    if (st != CZ_OK) cz_error_prefix(err, "%s", f->path);
    return st;
}

/* Where p keeps vector v's points. */
static void **vector_slot(cz_groth16_params *p, cz_groth16_vector v) {
    void **slot[CZ_GROTH16_VECTORS] = {(void **)&p->h, (void **)&p->l, (void **)&p->a,
                                       (void **)&p->b_g1, (void **)&p->b_g2};
    return slot[v];
}

cz_status cz_groth16_params_file_decode_vector(cz_groth16_params *p,
                                               const cz_groth16_params_file *f, cz_groth16_vector v,
                                               cz_groth16_check check, cz_error *err) {
    if ((unsigned)v >= CZ_GROTH16_VECTORS)
        return cz_error_set(err, CZ_E_INVALID_ARG, "params: no vector %d", (int)v);
    void **slot = vector_slot(p, v);
    size_t bytes = 0;
    (void)cz_groth16_params_points(p, v, &bytes);
    if (*slot || !bytes) return CZ_OK;
    const cz_groth16_params_layout *L = &f->layout;
    const size_t want = bytes / cz_groth16_vector_point_bytes(v);
    if (!f->data || L->count[v] != want || L->offset[v] < 4 || L->offset[v] > f->len)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s: params: %s: the file's %llu points are not the %zu of the key "
                            "they are decoded for",
                            f->path, cz_groth16_vector_name(v), (unsigned long long)L->count[v],
                            want);
    if (p->encoded) {
        *slot = (void *)(f->data + L->offset[v]);
        return CZ_OK;
    }
    const size_t at = (size_t)L->offset[v] - 4; /* its length word */
    reader r = {f->data + at, f->len - at, "params", "", decode_flags(check), 1};
    void *points = NULL;
    size_t n = 0;
    cz_status st =
        read_vector(&r, &points, &n, v == CZ_GROTH16_B_G2, cz_groth16_vector_name(v), err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", f->path);
    *slot = points;
    return CZ_OK;
}

cz_status cz_groth16_params_file_view(cz_groth16_params *p, const cz_groth16_params_file *f,
                                      cz_groth16_check check, cz_error *err) {
    if (!f->data) {
        memset(p, 0, sizeof *p);
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: params: not mapped", f->path);
    }
    cz_status st = cz_groth16_params_decode_header(p, NULL, f->data, f->len, check, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", f->path);
    p->encoded = 1;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++)
        if (f->layout.count[v]) *vector_slot(p, v) = (void *)(f->data + f->layout.offset[v]);
    return CZ_OK;
}

void *cz_groth16_params_take_vector(cz_groth16_params *p, cz_groth16_vector v) {
    if ((unsigned)v >= CZ_GROTH16_VECTORS) return NULL;
    void **slot = vector_slot(p, v), *points = *slot;
    *slot = NULL;
    return points;
}

cz_status cz_groth16_params_file_map(cz_groth16_params_file *f, const char *path, cz_error *err) {
    memset(f, 0, sizeof *f);
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO, "%s: cannot open: %s",
                            path, strerror(errno));
    struct stat sb;
    cz_status st = CZ_OK;
    if (fstat(fd, &sb) != 0)
        st = cz_error_set(err, CZ_E_IO, "%s: cannot stat: %s", path, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        st = cz_error_set(err, CZ_E_IO, "%s: not a regular file", path);
    if (st == CZ_OK && sb.st_size > 0) {
        /* shared: read only either way, and a shared file mapping can be
         * page-locked as it is (a private one would be copied page by page) */
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            st = cz_error_set(err, CZ_E_IO, "%s: cannot map: %s", path, strerror(errno));
        } else {
            madvise(p, (size_t)sb.st_size, MADV_SEQUENTIAL);
            f->data = p;
            f->len = (size_t)sb.st_size;
        }
    }
    close(fd);
    if (st != CZ_OK) return st;
    f->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    if ((st = cz_groth16_params_layout_read(&f->layout, f->data, f->len, err)) != CZ_OK) {
        cz_groth16_params_file_unmap(f);
        cz_error_prefix(err, "%s", path);
        return st;
    }
    return CZ_OK;
}

cz_status cz_groth16_params_file_head(cz_groth16_params_head *out, const char *path,
                                      cz_error *err) {
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO, "%s: cannot open: %s",
                            path, strerror(errno));
    /* n_ic ends the vk's fixed part; h's length follows ic, l's follows h. */
    uint8_t b[4];
    int ok = pread(fd, b, 4, CZ_GROTH16_VK_FIXED_BYTES - 4) == 4;
    if (ok) {
        out->n_ic = get_u32_be(b);
        off_t at = CZ_GROTH16_VK_FIXED_BYTES + (off_t)(CZ_G1_UNCOMPRESSED_BYTES * out->n_ic);
        ok = pread(fd, b, 4, at) == 4;
        if (ok) {
            out->n_h = get_u32_be(b);
            at += 4 + (off_t)(CZ_G1_UNCOMPRESSED_BYTES * out->n_h);
            ok = pread(fd, b, 4, at) == 4;
        }
        if (ok) out->n_l = get_u32_be(b);
    }
    close(fd);
    if (!ok) {
        memset(out, 0, sizeof *out);
        return cz_error_set(err, CZ_E_PARSE, "%s: truncated header", path);
    }
    return CZ_OK;
}

void cz_groth16_params_file_unmap(cz_groth16_params_file *f) {
    if (!f) return;
    if (f->data) munmap((void *)f->data, f->len);
    f->data = NULL;
    f->len = 0;
}

/* Writes go to a temporary file next to path, renamed over it when complete,
 * so that a reader never sees half a key. */
typedef struct {
    FILE *f;
    char tmp[4096];
    const char *path;
    int failed;
} writer;

static cz_status writer_open(writer *w, const char *path, cz_error *err) {
    w->path = path;
    w->failed = 0;
    if (snprintf(w->tmp, sizeof w->tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof w->tmp)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path too long", path);
    unsigned stale = cz_remove_stale_temporaries(path, ".tmp-");
    if (stale)
        cz_log(CZ_LOG_INFO, "%s: removed %u temporary file(s) of killed writers", path, stale);
    w->f = fopen(w->tmp, "wb");
    if (!w->f) return cz_error_set(err, CZ_E_IO, "%s: cannot create: %s", w->tmp, strerror(errno));
    return CZ_OK;
}

static void writer_put(writer *w, const void *data, size_t len) {
    if (!w->failed && len > 0 && fwrite(data, 1, len, w->f) != len) w->failed = errno ? errno : EIO;
}

static cz_status writer_close(writer *w, cz_status st, cz_error *err) {
    if (st == CZ_OK && w->failed)
        st = cz_error_set(err, CZ_E_IO, "%s: write failed: %s", w->tmp, strerror(w->failed));
    if (fclose(w->f) != 0 && st == CZ_OK)
        st = cz_error_set(err, CZ_E_IO, "%s: write failed: %s", w->tmp, strerror(errno));
    if (st == CZ_OK && rename(w->tmp, w->path) != 0)
        st = cz_error_set(err, CZ_E_IO, "%s: cannot rename into place: %s", w->path,
                          strerror(errno));
    if (st != CZ_OK) remove(w->tmp);
    return st;
}

typedef struct {
    uint8_t *out;
    const void *points;
    int g2;
} encode_job;

static void encode_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    encode_job *job = ctx;
    for (size_t i = begin; i < end; i++) {
        if (job->g2)
            cz_g2_affine_to_uncompressed(job->out + i * CZ_G2_UNCOMPRESSED_BYTES,
                                         (const cz_g2_affine *)job->points + i);
        else
            cz_g1_affine_to_uncompressed(job->out + i * CZ_G1_UNCOMPRESSED_BYTES,
                                         (const cz_g1_affine *)job->points + i);
    }
}

#define WRITE_CHUNK_POINTS ((size_t)1 << 15)

static cz_status write_vector(writer *w, uint8_t *buf, const void *points, size_t n, int g2,
                              const char *name, cz_error *err) {
    if (n > UINT32_MAX)
        return cz_error_set(err, CZ_E_RANGE, "params: %zu %s points do not fit a u32 length", n,
                            name);
    uint8_t len[4];
    put_u32_be(len, (uint32_t)n);
    writer_put(w, len, 4);
    size_t point_bytes = g2 ? CZ_G2_UNCOMPRESSED_BYTES : CZ_G1_UNCOMPRESSED_BYTES;
    size_t point_size = g2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    for (size_t at = 0; at < n && !w->failed; at += WRITE_CHUNK_POINTS) {
        size_t count = n - at < WRITE_CHUNK_POINTS ? n - at : WRITE_CHUNK_POINTS;
        encode_job job = {buf, (const uint8_t *)points + at * point_size, g2};
        cz_parallel_for(count, 1024, encode_task, &job);
        writer_put(w, buf, count * point_bytes);
    }
    return CZ_OK;
}

cz_status cz_groth16_vk_write(const cz_groth16_vk *vk, const char *path, cz_error *err) {
    size_t size = cz_groth16_vk_encoded_size(vk);
    uint8_t *buf = malloc(size);
    if (!buf) return cz_error_set(err, CZ_E_NOMEM, "%s: cannot allocate %zu bytes", path, size);
    cz_status st = cz_groth16_vk_encode(buf, vk, err);
    if (st == CZ_OK) {
        writer w;
        st = writer_open(&w, path, err);
        if (st == CZ_OK) {
            writer_put(&w, buf, size);
            st = writer_close(&w, CZ_OK, err);
        }
    }
    free(buf);
    return st;
}

cz_status cz_groth16_params_write(const cz_groth16_params *params, const char *path,
                                  cz_error *err) {
    size_t vk_size = cz_groth16_vk_encoded_size(&params->vk);
    size_t chunk_bytes = WRITE_CHUNK_POINTS * CZ_G2_UNCOMPRESSED_BYTES;
    uint8_t *buf = malloc(vk_size > chunk_bytes ? vk_size : chunk_bytes);
    if (!buf) return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", path);
    cz_status st = cz_groth16_vk_encode(buf, &params->vk, err);
    if (st != CZ_OK) {
        free(buf);
        return st;
    }
    writer w;
    st = writer_open(&w, path, err);
    if (st != CZ_OK) {
        free(buf);
        return st;
    }
    writer_put(&w, buf, vk_size);
    if (st == CZ_OK) st = write_vector(&w, buf, params->h, params->n_h, 0, "h", err);
    if (st == CZ_OK) st = write_vector(&w, buf, params->l, params->n_l, 0, "l", err);
    if (st == CZ_OK) st = write_vector(&w, buf, params->a, params->n_a, 0, "a", err);
    if (st == CZ_OK) st = write_vector(&w, buf, params->b_g1, params->n_b_g1, 0, "b_g1", err);
    if (st == CZ_OK) st = write_vector(&w, buf, params->b_g2, params->n_b_g2, 1, "b_g2", err);
    st = writer_close(&w, st, err);
    free(buf);
    return st;
}

/* ---- proofs ---- */

void cz_groth16_proof_encode(uint8_t out[CZ_GROTH16_PROOF_BYTES], const cz_groth16_proof *proof) {
    cz_g1_affine_to_compressed(out, &proof->a);
    cz_g2_affine_to_compressed(out + CZ_G1_COMPRESSED_BYTES, &proof->b);
    cz_g1_affine_to_compressed(out + CZ_G1_COMPRESSED_BYTES + CZ_G2_COMPRESSED_BYTES, &proof->c);
}

cz_status cz_groth16_proof_decode(cz_groth16_proof *out, const uint8_t in[CZ_GROTH16_PROOF_BYTES],
                                  cz_error *err) {
    cz_groth16_proof p;
    cz_error e;
    cz_status st;
    if ((st = cz_g1_affine_from_compressed(&p.a, in, CZ_DECODE_REJECT_INFINITY, &e)) != CZ_OK)
        return cz_error_set(err, st, "proof: A: %s", e.message);
    in += CZ_G1_COMPRESSED_BYTES;
    if ((st = cz_g2_affine_from_compressed(&p.b, in, CZ_DECODE_REJECT_INFINITY, &e)) != CZ_OK)
        return cz_error_set(err, st, "proof: B: %s", e.message);
    in += CZ_G2_COMPRESSED_BYTES;
    if ((st = cz_g1_affine_from_compressed(&p.c, in, CZ_DECODE_REJECT_INFINITY, &e)) != CZ_OK)
        return cz_error_set(err, st, "proof: C: %s", e.message);
    *out = p;
    return CZ_OK;
}
