/* bincode 1.x default encoding: reader and writer; see bincode.h. */
#include "filecoin/common/bincode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cz_bincode_reader_init(cz_bincode_reader *r, const uint8_t *data, size_t len, cz_error *err) {
    r->data = data;
    r->len = len;
    r->pos = 0;
    r->status = CZ_OK;
    r->err = err;
}

cz_status cz_bincode_fail(cz_bincode_reader *r, size_t pos, const char *field, const char *fmt,
                          ...) {
    if (r->status != CZ_OK) return r->status;
    r->status = CZ_E_PARSE;
    if (r->err) {
        char why[384];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);
        cz_error_set(r->err, CZ_E_PARSE, "%s at byte %zu: %s", field, pos, why);
    }
    return r->status;
}

/* n bytes at the current offset, or a failure naming what was expected. */
static const uint8_t *take(cz_bincode_reader *r, size_t n, const char *field, const char *what) {
    if (r->status != CZ_OK) return NULL;
    if (r->len - r->pos < n) {
        if (r->pos == r->len)
            cz_bincode_fail(r, r->pos, field, "truncated: %s needs %zu bytes, the input ends", what,
                            n);
        else
            cz_bincode_fail(r, r->pos, field, "truncated: %s needs %zu bytes, %zu left", what, n,
                            r->len - r->pos);
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

int cz_bincode_u32(cz_bincode_reader *r, uint32_t *out, const char *field) {
    const uint8_t *p = take(r, 4, field, "a u32");
    if (!p) return 0;
    *out = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return 1;
}

int cz_bincode_u64(cz_bincode_reader *r, uint64_t *out, const char *field) {
    const uint8_t *p = take(r, 8, field, "a u64");
    if (!p) return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    *out = v;
    return 1;
}

int cz_bincode_bytes(cz_bincode_reader *r, uint8_t *out, size_t n, const char *field) {
    const uint8_t *p = take(r, n, field, "the value");
    if (!p) return 0;
    memcpy(out, p, n);
    return 1;
}

int cz_bincode_len(cz_bincode_reader *r, uint64_t *out, uint64_t want, size_t min_elem,
                   const char *field) {
    size_t at = r->pos;
    uint64_t n;
    if (!cz_bincode_u64(r, &n, field)) return 0;
    if (want != UINT64_MAX && n != want) {
        cz_bincode_fail(r, at, field, "length %llu, expected %llu", (unsigned long long)n,
                        (unsigned long long)want);
        return 0;
    }
    if (min_elem && n > (r->len - r->pos) / min_elem) {
        cz_bincode_fail(r, at, field, "length %llu does not fit in the %zu bytes left",
                        (unsigned long long)n, r->len - r->pos);
        return 0;
    }
    *out = n;
    return 1;
}

int cz_bincode_fr(cz_bincode_reader *r, cz_fr *out, const char *field) {
    size_t at = r->pos;
    const uint8_t *p = take(r, 32, field, "a 32-byte domain");
    if (!p) return 0;
    if (!cz_fr_from_bytes_le(out, p)) {
        cz_bincode_fail(r, at, field, "not a canonical field element (byte 31 = 0x%02x)", p[31]);
        return 0;
    }
    return 1;
}

int cz_bincode_end(cz_bincode_reader *r, const char *what) {
    if (r->status != CZ_OK) return 0;
    if (r->pos != r->len) {
        cz_bincode_fail(r, r->pos, what, "%zu trailing bytes after the value", r->len - r->pos);
        return 0;
    }
    return 1;
}

void cz_bincode_put_bytes(cz_bincode_writer *w, const uint8_t *b, size_t n) {
    if (w->pos <= w->cap && n <= w->cap - w->pos) memcpy(w->data + w->pos, b, n);
    w->pos += n;
}

void cz_bincode_put_u32(cz_bincode_writer *w, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    cz_bincode_put_bytes(w, b, 4);
}

void cz_bincode_put_u64(cz_bincode_writer *w, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    cz_bincode_put_bytes(w, b, 8);
}

void cz_bincode_put_fr(cz_bincode_writer *w, const cz_fr *v) {
    uint8_t b[32];
    cz_fr_to_bytes_le(b, v);
    cz_bincode_put_bytes(w, b, 32);
}
