/* zcash-format point encodings; see encoding.h for the format and the order
 * of the checks. */
#include "ec/encoding.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY   0x40
#define FLAG_SORT       0x20
#define FLAG_MASK       0xe0

/* ---- shared pieces ---- */

/* Checks the three flag bits of an encoding of `len` bytes that must be in
 * compressed form or not, and the all-zero rest of an infinity. Sets
 * *infinity and *sort. `what` names the form in messages ("G1 compressed"). */
static cz_status check_flags(int *infinity, int *sort, const uint8_t *in, size_t len,
                             int compressed_form, const char *what, cz_error *err) {
    int compressed = (in[0] & FLAG_COMPRESSED) != 0;
    *infinity = (in[0] & FLAG_INFINITY) != 0;
    *sort = (in[0] & FLAG_SORT) != 0;
    if (compressed != compressed_form)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: compression flag (byte 0 bit 7) is %d, but a %zu-byte encoding "
                            "must have it %s",
                            what, compressed, len, compressed_form ? "set" : "clear");
    if (*infinity) {
        if (*sort)
            return cz_error_set(err, CZ_E_PARSE,
                                "%s: infinity flag (byte 0 bit 6) together with the sort flag "
                                "(byte 0 bit 5)",
                                what);
        if (in[0] & ~FLAG_MASK)
            return cz_error_set(err, CZ_E_PARSE,
                                "%s: infinity flag (byte 0 bit 6) set but byte 0 bits 0..4 are "
                                "0x%02x, expected 0",
                                what, in[0] & ~FLAG_MASK);
        for (size_t i = 1; i < len; i++)
            if (in[i])
                return cz_error_set(err, CZ_E_PARSE,
                                    "%s: infinity flag (byte 0 bit 6) set but byte %zu is 0x%02x, "
                                    "expected 0",
                                    what, i, in[i]);
        return CZ_OK;
    }
    if (*sort && !compressed_form)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: sort flag (byte 0 bit 5) is set; it must be clear in the "
                            "uncompressed form",
                            what);
    return CZ_OK;
}

/* Reads the 48-byte big-endian coordinate at in + offset (flag bits cleared
 * when offset is 0) and requires it to be < p. */
static cz_status read_fp(cz_fp *r, const uint8_t *in, size_t offset, const char *what,
                         const char *coordinate, cz_error *err) {
    uint8_t be[CZ_FP_BYTES];
    memcpy(be, in + offset, CZ_FP_BYTES);
    if (offset == 0) be[0] &= (uint8_t)~FLAG_MASK;
    if (!cz_fp_from_bytes_be(r, be))
        return cz_error_set(err, CZ_E_RANGE,
                            "%s: %s (bytes %zu..%zu) is not a canonical field element: >= p", what,
                            coordinate, offset, offset + CZ_FP_BYTES - 1);
    return CZ_OK;
}

static void write_fp(uint8_t *out, const cz_fp *a) {
    cz_fp_to_bytes_be(out, a);
}

static cz_status infinity_result(unsigned flags, const char *what, cz_error *err) {
    if (flags & CZ_DECODE_REJECT_INFINITY)
        return cz_error_set(err, CZ_E_IDENTITY, "%s: the point at infinity is not allowed here",
                            what);
    return CZ_OK;
}

static int skip_subgroup(unsigned flags) {
    return (flags & (CZ_DECODE_SKIP_SUBGROUP | CZ_DECODE_SKIP_CURVE)) != 0;
}

static cz_status not_in_subgroup(const char *what, cz_error *err) {
    return cz_error_set(err, CZ_E_NOT_IN_SUBGROUP,
                        "%s: the point is on the curve but not in the order-r subgroup", what);
}

/* ---- G1 ---- */

void cz_g1_affine_to_compressed(uint8_t out[CZ_G1_COMPRESSED_BYTES], const cz_g1_affine *p) {
    if (cz_g1_affine_is_infinity(p)) {
        memset(out, 0, CZ_G1_COMPRESSED_BYTES);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    write_fp(out, &p->x);
    out[0] |= FLAG_COMPRESSED;
    if (cz_fp_is_lexicographically_largest(&p->y)) out[0] |= FLAG_SORT;
}

void cz_g1_affine_to_uncompressed(uint8_t out[CZ_G1_UNCOMPRESSED_BYTES], const cz_g1_affine *p) {
    if (cz_g1_affine_is_infinity(p)) {
        memset(out, 0, CZ_G1_UNCOMPRESSED_BYTES);
        out[0] = FLAG_INFINITY;
        return;
    }
    write_fp(out, &p->x);
    write_fp(out + CZ_FP_BYTES, &p->y);
}

cz_status cz_g1_affine_from_compressed(cz_g1_affine *out, const uint8_t in[CZ_G1_COMPRESSED_BYTES],
                                       unsigned flags, cz_error *err) {
    static const char what[] = "G1 compressed";
    int infinity, sort;
    cz_status st = check_flags(&infinity, &sort, in, CZ_G1_COMPRESSED_BYTES, 1, what, err);
    if (st != CZ_OK) return st;
    if (infinity) {
        if ((st = infinity_result(flags, what, err)) != CZ_OK) return st;
        out->x = cz_fp_zero;
        out->y = cz_fp_zero;
        return CZ_OK;
    }
    cz_g1_affine p;
    if ((st = read_fp(&p.x, in, 0, what, "x", err)) != CZ_OK) return st;
    cz_fp rhs, four;
    cz_fp_sqr(&rhs, &p.x);
    cz_fp_mul(&rhs, &rhs, &p.x);
    cz_fp_from_u64(&four, 4);
    cz_fp_add(&rhs, &rhs, &four);
    if (!cz_fp_sqrt_var(&p.y, &rhs))
        return cz_error_set(err, CZ_E_NOT_ON_CURVE,
                            "%s: x (bytes 0..47) is not the x-coordinate of a curve point: "
                            "x^3 + 4 is not a square in Fp",
                            what);
    if (cz_fp_is_lexicographically_largest(&p.y) != sort) cz_fp_neg(&p.y, &p.y);
    if (!skip_subgroup(flags) && !cz_g1_affine_is_in_subgroup(&p))
        return not_in_subgroup(what, err);
    *out = p;
    return CZ_OK;
}

cz_status cz_g1_affine_from_uncompressed(cz_g1_affine *out,
                                         const uint8_t in[CZ_G1_UNCOMPRESSED_BYTES], unsigned flags,
                                         cz_error *err) {
    static const char what[] = "G1 uncompressed";
    int infinity, sort;
    cz_status st = check_flags(&infinity, &sort, in, CZ_G1_UNCOMPRESSED_BYTES, 0, what, err);
    if (st != CZ_OK) return st;
    if (infinity) {
        if ((st = infinity_result(flags, what, err)) != CZ_OK) return st;
        out->x = cz_fp_zero;
        out->y = cz_fp_zero;
        return CZ_OK;
    }
    cz_g1_affine p;
    if ((st = read_fp(&p.x, in, 0, what, "x", err)) != CZ_OK) return st;
    if ((st = read_fp(&p.y, in, CZ_FP_BYTES, what, "y", err)) != CZ_OK) return st;
    /* (0, 0) is how infinity is stored, and it is not on the curve */
    if (cz_g1_affine_is_infinity(&p))
        return cz_error_set(err, CZ_E_NOT_ON_CURVE,
                            "%s: x = y = 0 without the infinity flag (byte 0 bit 6); (0, 0) is "
                            "not on the curve",
                            what);
    if (!(flags & CZ_DECODE_SKIP_CURVE) && !cz_g1_affine_is_on_curve(&p))
        return cz_error_set(err, CZ_E_NOT_ON_CURVE,
                            "%s: (x, y) is not on the curve: y^2 != x^3 + 4", what);
    if (!skip_subgroup(flags) && !cz_g1_affine_is_in_subgroup(&p))
        return not_in_subgroup(what, err);
    *out = p;
    return CZ_OK;
}

/* ---- G2: each Fp2 coordinate is c1 || c0 ---- */

void cz_g2_affine_to_compressed(uint8_t out[CZ_G2_COMPRESSED_BYTES], const cz_g2_affine *p) {
    if (cz_g2_affine_is_infinity(p)) {
        memset(out, 0, CZ_G2_COMPRESSED_BYTES);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    write_fp(out, &p->x.c1);
    write_fp(out + CZ_FP_BYTES, &p->x.c0);
    out[0] |= FLAG_COMPRESSED;
    if (cz_fp2_is_lexicographically_largest(&p->y)) out[0] |= FLAG_SORT;
}

void cz_g2_affine_to_uncompressed(uint8_t out[CZ_G2_UNCOMPRESSED_BYTES], const cz_g2_affine *p) {
    if (cz_g2_affine_is_infinity(p)) {
        memset(out, 0, CZ_G2_UNCOMPRESSED_BYTES);
        out[0] = FLAG_INFINITY;
        return;
    }
    write_fp(out, &p->x.c1);
    write_fp(out + CZ_FP_BYTES, &p->x.c0);
    write_fp(out + 2 * CZ_FP_BYTES, &p->y.c1);
    write_fp(out + 3 * CZ_FP_BYTES, &p->y.c0);
}

static cz_status g2_read_x(cz_fp2 *x, const uint8_t *in, const char *what, cz_error *err) {
    cz_status st = read_fp(&x->c1, in, 0, what, "x.c1", err);
    if (st != CZ_OK) return st;
    return read_fp(&x->c0, in, CZ_FP_BYTES, what, "x.c0", err);
}

cz_status cz_g2_affine_from_compressed(cz_g2_affine *out, const uint8_t in[CZ_G2_COMPRESSED_BYTES],
                                       unsigned flags, cz_error *err) {
    static const char what[] = "G2 compressed";
    int infinity, sort;
    cz_status st = check_flags(&infinity, &sort, in, CZ_G2_COMPRESSED_BYTES, 1, what, err);
    if (st != CZ_OK) return st;
    if (infinity) {
        if ((st = infinity_result(flags, what, err)) != CZ_OK) return st;
        out->x = cz_fp2_zero;
        out->y = cz_fp2_zero;
        return CZ_OK;
    }
    cz_g2_affine p;
    if ((st = g2_read_x(&p.x, in, what, err)) != CZ_OK) return st;
    cz_fp2 rhs, b;
    cz_fp_from_u64(&b.c0, 4);
    cz_fp_from_u64(&b.c1, 4);
    cz_fp2_sqr(&rhs, &p.x);
    cz_fp2_mul(&rhs, &rhs, &p.x);
    cz_fp2_add(&rhs, &rhs, &b);
    if (!cz_fp2_sqrt_var(&p.y, &rhs))
        return cz_error_set(err, CZ_E_NOT_ON_CURVE,
                            "%s: x (bytes 0..95) is not the x-coordinate of a curve point: "
                            "x^3 + 4(1 + u) is not a square in Fp2",
                            what);
    if (cz_fp2_is_lexicographically_largest(&p.y) != sort) cz_fp2_neg(&p.y, &p.y);
    if (!skip_subgroup(flags) && !cz_g2_affine_is_in_subgroup(&p))
        return not_in_subgroup(what, err);
    *out = p;
    return CZ_OK;
}

cz_status cz_g2_affine_from_uncompressed(cz_g2_affine *out,
                                         const uint8_t in[CZ_G2_UNCOMPRESSED_BYTES], unsigned flags,
                                         cz_error *err) {
    static const char what[] = "G2 uncompressed";
    int infinity, sort;
    cz_status st = check_flags(&infinity, &sort, in, CZ_G2_UNCOMPRESSED_BYTES, 0, what, err);
    if (st != CZ_OK) return st;
    if (infinity) {
        if ((st = infinity_result(flags, what, err)) != CZ_OK) return st;
        out->x = cz_fp2_zero;
        out->y = cz_fp2_zero;
        return CZ_OK;
    }
    cz_g2_affine p;
    if ((st = g2_read_x(&p.x, in, what, err)) != CZ_OK) return st;
    if ((st = read_fp(&p.y.c1, in, 2 * CZ_FP_BYTES, what, "y.c1", err)) != CZ_OK) return st;
    if ((st = read_fp(&p.y.c0, in, 3 * CZ_FP_BYTES, what, "y.c0", err)) != CZ_OK) return st;
    if (cz_g2_affine_is_infinity(&p))
        return cz_error_set(err, CZ_E_NOT_ON_CURVE,
                            "%s: x = y = 0 without the infinity flag (byte 0 bit 6); (0, 0) is "
                            "not on the curve",
                            what);
    if (!(flags & CZ_DECODE_SKIP_CURVE) && !cz_g2_affine_is_on_curve(&p))
        return cz_error_set(err, CZ_E_NOT_ON_CURVE,
                            "%s: (x, y) is not on the curve: y^2 != x^3 + 4(1 + u)", what);
    if (!skip_subgroup(flags) && !cz_g2_affine_is_in_subgroup(&p))
        return not_in_subgroup(what, err);
    *out = p;
    return CZ_OK;
}

/* ---- batches ---- */

typedef cz_status (*decode_one_fn)(void *out, const uint8_t *in, unsigned flags, cz_error *err);

static cz_status g1_decode_one(void *out, const uint8_t *in, unsigned flags, cz_error *err) {
    return cz_g1_affine_from_uncompressed(out, in, flags, err);
}

static cz_status g2_decode_one(void *out, const uint8_t *in, unsigned flags, cz_error *err) {
    return cz_g2_affine_from_uncompressed(out, in, flags, err);
}

typedef struct {
    decode_one_fn decode;
    uint8_t *out;
    size_t out_size; /* bytes of one decoded point */
    const uint8_t *in;
    size_t in_size; /* bytes of one encoding */
    unsigned flags;
    /* lowest failing index found so far (n when none); chunks past it stop */
    _Atomic size_t first_bad;
    /* per worker: its lowest failing index and that failure's report */
    size_t *worker_bad;
    cz_error *worker_err;
} batch_ctx;

static void batch_chunk(void *vctx, size_t begin, size_t end, unsigned worker) {
    batch_ctx *ctx = vctx;
    for (size_t i = begin; i < end; i++) {
        if ((i & 255) == 0 && i > atomic_load_explicit(&ctx->first_bad, memory_order_relaxed))
            return;
        cz_error e;
        if (ctx->decode(ctx->out + i * ctx->out_size, ctx->in + i * ctx->in_size, ctx->flags, &e) ==
            CZ_OK)
            continue;
        if (i < ctx->worker_bad[worker]) {
            ctx->worker_bad[worker] = i;
            ctx->worker_err[worker] = e;
        }
        size_t seen = atomic_load(&ctx->first_bad);
        while (i < seen && !atomic_compare_exchange_weak(&ctx->first_bad, &seen, i)) {
        }
        return;
    }
}

static cz_status batch_decode(decode_one_fn decode, void *out, size_t out_size, const uint8_t *in,
                              size_t in_size, size_t n, unsigned flags, cz_error *err) {
    unsigned workers = cz_thread_count();
    batch_ctx ctx = {.decode = decode,
                     .out = out,
                     .out_size = out_size,
                     .in = in,
                     .in_size = in_size,
                     .flags = flags};
    atomic_init(&ctx.first_bad, n);
    ctx.worker_bad = malloc(workers * sizeof *ctx.worker_bad);
    ctx.worker_err = malloc(workers * sizeof *ctx.worker_err);
    if (!ctx.worker_bad || !ctx.worker_err) {
        free(ctx.worker_bad);
        free(ctx.worker_err);
        return cz_error_set(err, CZ_E_NOMEM, "point batch decode: out of memory");
    }
    for (unsigned w = 0; w < workers; w++) ctx.worker_bad[w] = n;
    cz_parallel_for(n, 1024, batch_chunk, &ctx);
    size_t bad = n;
    unsigned bad_worker = 0;
    for (unsigned w = 0; w < workers; w++)
        if (ctx.worker_bad[w] < bad) bad = ctx.worker_bad[w], bad_worker = w;
    cz_status st = CZ_OK;
    if (bad < n) {
        st = ctx.worker_err[bad_worker].status;
        if (err) {
            *err = ctx.worker_err[bad_worker];
            cz_error_prefix(err, "point %zu", bad);
        }
    }
    free(ctx.worker_bad);
    free(ctx.worker_err);
    return st;
}

cz_status cz_g1_batch_from_uncompressed(cz_g1_affine *out, const uint8_t *in, size_t n,
                                        unsigned flags, cz_error *err) {
    return batch_decode(g1_decode_one, out, sizeof *out, in, CZ_G1_UNCOMPRESSED_BYTES, n, flags,
                        err);
}

cz_status cz_g2_batch_from_uncompressed(cz_g2_affine *out, const uint8_t *in, size_t n,
                                        unsigned flags, cz_error *err) {
    return batch_decode(g2_decode_one, out, sizeof *out, in, CZ_G2_UNCOMPRESSED_BYTES, n, flags,
                        err);
}
