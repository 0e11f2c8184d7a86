/* The request files' JSON helpers; see request_json.h. */
#include "filecoin/common/request_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"

static yajl_val get(yajl_val doc, const char *key, yajl_type type) {
    const char *path[] = {key, NULL};
    return yajl_tree_get(doc, path, type);
}

const char *cz_fc_json_string(yajl_val doc, const char *key) {
    yajl_val v = get(doc, key, yajl_t_string);
    return v ? v->u.string : NULL;
}

cz_status cz_fc_json_parse_object(yajl_val *doc, const uint8_t *data, size_t len, const char *what,
                                  cz_error *err) {
    char *text = malloc(len + 1);
    if (!text) return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", what);
    memcpy(text, data, len);
    text[len] = 0;
    char why[256] = "";
    *doc = yajl_tree_parse(text, why, sizeof why);
    free(text);
    if (!*doc) {
        why[strcspn(why, "\n")] = 0;
        return cz_error_set(err, CZ_E_PARSE, "%s: not JSON: %s", what, why);
    }
    if (!YAJL_IS_OBJECT(*doc)) {
        yajl_tree_free(*doc);
        *doc = NULL;
        return cz_error_set(err, CZ_E_PARSE, "%s: expected a JSON object", what);
    }
    return CZ_OK;
}

cz_status cz_fc_json_uint(uint64_t *out, yajl_val doc, const char *key, uint64_t max,
                          const char *what, cz_error *err) {
    yajl_val v = get(doc, key, yajl_t_any);
    if (!v) return cz_error_set(err, CZ_E_PARSE, "%s: \"%s\" is missing", what, key);
    if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0 || (uint64_t)YAJL_GET_INTEGER(v) > max)
        return cz_error_set(err, CZ_E_PARSE, "%s: \"%s\" must be an integer in 0..%llu", what, key,
                            (unsigned long long)max);
    *out = (uint64_t)YAJL_GET_INTEGER(v);
    return CZ_OK;
}

static int hex_val(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

cz_status cz_fc_json_hex32(uint8_t out[32], yajl_val doc, const char *key, const char *what,
                           cz_error *err) {
    const char *h = cz_fc_json_string(doc, key);
    if (!h || strlen(h) != 64)
        return cz_error_set(err, CZ_E_PARSE, "%s: \"%s\" must be 64 hex digits", what, key);
    for (int i = 0; i < 32; i++) {
        int hi = hex_val(h[2 * i]), lo = hex_val(h[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return cz_error_set(err, CZ_E_PARSE, "%s: \"%s\": not a hex digit at character %d",
                                what, key, hi < 0 ? 2 * i : 2 * i + 1);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return CZ_OK;
}

cz_status cz_fc_json_proofs(uint8_t ***proofs, size_t **lens, uint32_t *n, yajl_val doc,
                            const char *what, cz_error *err) {
    yajl_val arr = get(doc, "vanilla_proofs", yajl_t_array);
    if (!arr || YAJL_GET_ARRAY(arr)->len == 0 || YAJL_GET_ARRAY(arr)->len > 100000)
        return cz_error_set(err, CZ_E_PARSE,
                            "%s: \"vanilla_proofs\" must be an array of 1 or more base64 strings",
                            what);
    size_t count = YAJL_GET_ARRAY(arr)->len;
    *proofs = calloc(count, sizeof **proofs);
    *lens = calloc(count, sizeof **lens);
    if (!*proofs || !*lens) return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", what);
    for (size_t i = 0; i < count; i++) {
        yajl_val v = YAJL_GET_ARRAY(arr)->values[i];
        const char *s = YAJL_IS_STRING(v) ? v->u.string : NULL;
        if (!s)
            return cz_error_set(err, CZ_E_PARSE, "%s: vanilla_proofs[%zu]: not a string", what, i);
        cz_status st = cz_base64_decode(&(*proofs)[i], &(*lens)[i], s, strlen(s), err);
        if (st != CZ_OK) return cz_error_wrap(err, st, "%s: vanilla_proofs[%zu]", what, i);
        *n = (uint32_t)(i + 1);
    }
    return CZ_OK;
}

void cz_fc_json_proofs_free(uint8_t **proofs, size_t *lens, uint32_t n) {
    for (uint32_t i = 0; proofs && i < n; i++) free(proofs[i]);
    free(proofs);
    free(lens);
}

void cz_fc_json_put_hex32(FILE *out, const char *key, const uint8_t value[32]) {
    fprintf(out, "\"%s\":\"", key);
    for (int i = 0; i < 32; i++) fprintf(out, "%02x", value[i]);
    fputs("\",", out);
}

cz_status cz_fc_json_put_proofs(FILE *out, uint8_t *const *proofs, const size_t *lens, uint32_t n,
                                cz_error *err) {
    fputs("\"vanilla_proofs\":[", out);
    for (uint32_t i = 0; i < n; i++) {
        char *b64;
        size_t b64_len;
        cz_status st = cz_base64_encode(&b64, &b64_len, proofs[i], lens[i], err);
        if (st != CZ_OK) return st;
        fprintf(out, "%s\"%s\"", i ? "," : "", b64);
        free(b64);
    }
    fputs("]}\n", out);
    if (ferror(out)) return cz_error_set(err, CZ_E_IO, "writing the request: %s", strerror(errno));
    return CZ_OK;
}

cz_status cz_fc_request_invalid(cz_error *err) {
    if (err) err->status = CZ_E_INVALID_ARG;
    return CZ_E_INVALID_ARG;
}
