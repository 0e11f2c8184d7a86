/* Curio's envelope around a C1 output, and the reader of a C1 document in
 * either form (see c1_envelope.h). The envelope is small and flat: its own
 * yajl callbacks take the three keys, the base64 of Phase1Out is decoded in
 * memory and handed to the raw parser (c1.h), whose messages are prefixed
 * with "Phase1Out". */
#include "filecoin/porep/c1_envelope.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "util/base64.h"

typedef struct {
    cz_error *err;
    cz_status status;
    int failed, depth, cur;
    unsigned seen;
    uint64_t sector_num, sector_size;
    uint8_t *raw;
    size_t raw_len;
} envelope;

static const char *const env_keys[] = {"SectorNum", "Phase1Out", "SectorSize"};

static int env_fail(envelope *e, cz_status st, const char *msg) {
    if (!e->failed) {
        e->failed = 1;
        e->status = st;
        const char *k = e->cur >= 0 ? env_keys[e->cur] : "(root)";
        cz_error_set(e->err, st, "c1 envelope: %s: %s", k, msg);
    }
    return 0;
}

static int env_start_map(void *ctx) {
    envelope *e = ctx;
    if (e->depth++ != 0) return env_fail(e, CZ_E_PARSE, "unexpected object");
    return 1;
}
static int env_end_map(void *ctx) {
    envelope *e = ctx;
    e->depth--;
    e->cur = -1;
    for (int i = 0; i < 3; i++)
        if (!(e->seen >> i & 1)) {
            if (!e->failed) {
                e->failed = 1;
                e->status = CZ_E_PARSE;
                cz_error_set(e->err, CZ_E_PARSE, "c1 envelope: missing key \"%s\"", env_keys[i]);
            }
            return 0;
        }
    return 1;
}
static int env_key(void *ctx, const unsigned char *k, size_t len) {
    envelope *e = ctx;
    for (int i = 0; i < 3; i++)
        if (strlen(env_keys[i]) == len && memcmp(env_keys[i], k, len) == 0) {
            e->cur = i;
            if (e->seen >> i & 1) return env_fail(e, CZ_E_PARSE, "duplicate key");
            e->seen |= 1u << i;
            return 1;
        }
    e->cur = -1;
    if (!e->failed) {
        e->failed = 1;
        e->status = CZ_E_PARSE;
        cz_error_set(e->err, CZ_E_PARSE, "c1 envelope: unknown key \"%.*s\"",
                     (int)(len > 40 ? 40 : len), k);
    }
    return 0;
}
static int env_number(void *ctx, const char *s, size_t len) {
    envelope *e = ctx;
    uint64_t v;
    if (e->depth != 1 || e->cur == 1) return env_fail(e, CZ_E_PARSE, "expected string, got number");
    if (!cz_c1_json_u64(s, len, UINT64_MAX, &v)) return env_fail(e, CZ_E_RANGE, "expected u64");
    if (e->cur == 0)
        e->sector_num = v;
    else
        e->sector_size = v;
    return 1;
}
static int env_string(void *ctx, const unsigned char *s, size_t len) {
    envelope *e = ctx;
    if (e->depth != 1 || e->cur != 1) return env_fail(e, CZ_E_PARSE, "expected u64, got string");
    cz_error sub;
    if (cz_base64_decode(&e->raw, &e->raw_len, (const char *)s, len, &sub) != CZ_OK)
        return env_fail(e, sub.status, sub.message);
    return 1;
}
static int env_other(void *ctx) {
    return env_fail(ctx, CZ_E_PARSE, "unexpected value");
}
static int env_bool(void *ctx, int b) {
    (void)b;
    return env_other(ctx);
}

static const yajl_callbacks env_callbacks = {env_other,   env_bool,   NULL,          NULL,
                                             env_number,  env_string, env_start_map, env_key,
                                             env_end_map, env_other,  NULL};

static int looks_like_envelope(const uint8_t *json, size_t len) {
    size_t i = 0;
    while (i < len && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r'))
        i++;
    if (i >= len || json[i] != '{') return 0;
    i++;
    while (i < len && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r'))
        i++;
    if (i >= len || json[i] != '"') return 0;
    i++;
    for (int k = 0; k < 3; k++) {
        size_t kl = strlen(env_keys[k]);
        if (i + kl < len && memcmp(json + i, env_keys[k], kl) == 0 && json[i + kl] == '"') return 1;
    }
    return 0;
}

static cz_status parse_envelope(cz_c1 *out, const uint8_t *json, size_t len, cz_error *err) {
    envelope e;
    memset(&e, 0, sizeof e);
    memset(out, 0, sizeof *out);
    e.err = err;
    e.cur = -1;
    yajl_handle h = yajl_alloc(&env_callbacks, NULL, &e);
    if (!h) return cz_error_set(err, CZ_E_NOMEM, "c1 envelope: out of memory");
    yajl_status st = yajl_parse(h, json, len);
    if (st == yajl_status_ok) st = yajl_complete_parse(h);
    cz_status rc = CZ_OK;
    if (st != yajl_status_ok) {
        if (e.failed) {
            rc = e.status;
        } else {
            unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
            char m[200];
            snprintf(m, sizeof m, "%s", msg ? (const char *)msg : "parse error");
            if (msg) yajl_free_error(h, msg);
            size_t ml = strlen(m);
            while (ml && (m[ml - 1] == '\n' || m[ml - 1] == ' ')) m[--ml] = 0;
            rc = cz_error_set(err, CZ_E_PARSE, "c1 envelope: invalid JSON: %s", m);
        }
    }
    yajl_free(h);
    if (rc == CZ_OK) {
        rc = cz_c1_parse_raw(out, e.raw, e.raw_len, err);
        if (rc != CZ_OK) {
            cz_error_prefix(err, "Phase1Out");
        } else {
            out->has_envelope = 1;
            out->envelope_sector_num = e.sector_num;
            out->envelope_sector_size = e.sector_size;
            if (e.sector_size != out->sector_size) {
                rc = cz_error_set(err, CZ_E_PARSE,
                                  "c1 envelope: SectorSize %llu does not match registered proof "
                                  "%s (%llu)",
                                  (unsigned long long)e.sector_size, out->registered_proof_name,
                                  (unsigned long long)out->sector_size);
                cz_c1_free(out);
            }
        }
    }
    free(e.raw);
    return rc;
}

cz_status cz_c1_parse(cz_c1 *out, const uint8_t *json, size_t len, cz_error *err) {
    if (looks_like_envelope(json, len)) return parse_envelope(out, json, len, err);
    return cz_c1_parse_raw(out, json, len, err);
}

cz_status cz_c1_parse_file(cz_c1 *out, const char *path, cz_error *err) {
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO,
                            "c1: cannot open %s: %s", path, strerror(errno));
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf) {
        fclose(fp);
        return cz_error_set(err, CZ_E_NOMEM, "c1: out of memory");
    }
    size_t n = fread(buf, 1, CHUNK, fp);
    cz_status st;
    if (looks_like_envelope(buf, n)) {
        /* The envelope holds one big string: read the whole file. */
        size_t cap = CHUNK, len = n;
        while (n == CHUNK || (n > 0 && len == cap)) {
            if (len == cap) {
                uint8_t *nb = realloc(buf, cap * 2);
                if (!nb) {
                    free(buf);
                    fclose(fp);
                    return cz_error_set(err, CZ_E_NOMEM, "c1: out of memory");
                }
                buf = nb;
                cap *= 2;
            }
            n = fread(buf + len, 1, cap - len, fp);
            len += n;
            if (n == 0) break;
        }
        st = ferror(fp) ? cz_error_set(err, CZ_E_IO, "c1: read error on %s", path)
                        : parse_envelope(out, buf, len, err);
    } else {
        st = cz_c1_parse_raw_stream(out, buf, CHUNK, n, fp, path, err);
    }
    free(buf);
    fclose(fp);
    return st;
}
