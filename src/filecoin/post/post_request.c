/* PoSt and SnapDeals request files and the decoding of a request's
 * vanilla proofs; see post.h and snap.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "filecoin/post/post.h"
#include "filecoin/snap/snap.h"
#include "util/base64.h"

/* The miner actor's MaxPartitionsPerDeadline: no deadline has more
 * partitions, so a larger partition_index is a malformed request. */
#define MAX_PARTITIONS 3000

void cz_post_request_free(cz_post_request *req) {
    if (!req) return;
    for (uint32_t i = 0; i < req->n_proofs; i++) free(req->proofs[i]);
    free(req->proofs);
    free(req->proof_lens);
    memset(req, 0, sizeof *req);
}

/* "vanilla_proofs":[base64, ...]} and the end of the document. */
static cz_status write_proofs(FILE *out, uint8_t *const *proofs, const size_t *lens, uint32_t n,
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

static const char *kind_key(cz_post_kind k) {
    return k == CZ_POST_WINNING ? "winning-post" : "window-post";
}

cz_status cz_post_request_write_json(FILE *out, const cz_post_request *req, cz_error *err) {
    fprintf(out,
            "{\"kind\":\"%s\",\"registered_proof\":%u,\"sector_size\":%llu,\"miner_id\":%llu,"
            "\"partition_index\":%u,\"randomness\":\"",
            kind_key(req->kind), req->registered_proof, (unsigned long long)req->sector_size,
            (unsigned long long)req->miner_id, req->partition_index);
    for (int i = 0; i < 32; i++) fprintf(out, "%02x", req->randomness[i]);
    fputs("\",", out);
    return write_proofs(out, req->proofs, req->proof_lens, req->n_proofs, err);
}

static const char *path_one[] = {NULL, NULL};

static yajl_val get(yajl_val doc, const char *key, yajl_type type) {
    path_one[0] = key;
    return yajl_tree_get(doc, path_one, type);
}

static const char *str_of(yajl_val v) {
    return v && v->type == yajl_t_string ? v->u.string : NULL;
}

/* A non-negative integer field that fits max; what: "post request". */
static cz_status get_uint(uint64_t *out, yajl_val doc, const char *key, uint64_t max,
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

/* A string field of 64 hex digits. */
static cz_status get_hex32(uint8_t out[32], yajl_val doc, const char *key, const char *what,
                           cz_error *err) {
    const char *h = str_of(get(doc, key, yajl_t_string));
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

/* "vanilla_proofs": 1 .. 100000 base64 strings, decoded (*n of them
 * allocated on failure too: the caller frees). */
static cz_status get_proofs(uint8_t ***proofs, size_t **lens, uint32_t *n, yajl_val doc,
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
        const char *s = str_of(YAJL_GET_ARRAY(arr)->values[i]);
        if (!s)
            return cz_error_set(err, CZ_E_PARSE, "%s: vanilla_proofs[%zu]: not a string", what, i);
        cz_status st = cz_base64_decode(&(*proofs)[i], &(*lens)[i], s, strlen(s), err);
        if (st != CZ_OK) return cz_error_wrap(err, st, "%s: vanilla_proofs[%zu]", what, i);
        *n = (uint32_t)(i + 1);
    }
    return CZ_OK;
}

/* The document as a JSON object (free with yajl_tree_free). */
static cz_status parse_doc(yajl_val *doc, const uint8_t *data, size_t len, const char *what,
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

cz_status cz_post_request_parse_json(cz_post_request *out, const uint8_t *data, size_t len,
                                     cz_error *err) {
    memset(out, 0, sizeof *out);
    yajl_val doc;
    cz_status st = parse_doc(&doc, data, len, "post request", err);
    if (st != CZ_OK) return st;
    cz_post_request r;
    memset(&r, 0, sizeof r);
    uint64_t id = 0, part = 0;
    cz_post_proof_info info;
    const char *what = "post request";
    if ((st = get_uint(&id, doc, "registered_proof", UINT32_MAX, what, err)) != CZ_OK ||
        (st = get_uint(&r.sector_size, doc, "sector_size", INT64_MAX, what, err)) != CZ_OK ||
        (st = get_uint(&r.miner_id, doc, "miner_id", INT64_MAX, what, err)) != CZ_OK ||
        (st = get_uint(&part, doc, "partition_index", UINT32_MAX, what, err)) != CZ_OK)
        goto done;
    if ((st = cz_post_proof_lookup(&info, id, err)) != CZ_OK) {
        cz_error_prefix(err, "post request: \"registered_proof\"");
        st = CZ_E_PARSE;
        goto done;
    }
    r.registered_proof = (uint32_t)id;
    r.kind = info.kind;
    r.partition_index = (uint32_t)part;
    const char *kind = str_of(get(doc, "kind", yajl_t_string));
    if (!kind || strcmp(kind, kind_key(info.kind))) {
        st = cz_error_set(err, CZ_E_PARSE, "post request: \"kind\" must be \"%s\" for %s",
                          kind_key(info.kind), info.name);
        goto done;
    }
    if ((st = get_hex32(r.randomness, doc, "randomness", what, err)) != CZ_OK) goto done;
    st = get_proofs(&r.proofs, &r.proof_lens, &r.n_proofs, doc, what, err);
done:
    yajl_tree_free(doc);
    if (st != CZ_OK) {
        cz_post_request_free(&r);
        return st;
    }
    *out = r;
    return CZ_OK;
}

/* A request's fault is the caller's: CZ_E_INVALID_ARG, message kept. */
static cz_status invalid(cz_error *err) {
    if (err) err->status = CZ_E_INVALID_ARG;
    return CZ_E_INVALID_ARG;
}

cz_status cz_post_request_decode(cz_post_config *cfg, cz_fc_api_version *api,
                                 cz_post_sector_proof **proofs, uint32_t *n,
                                 uint32_t registered_proof, uint64_t sector_size,
                                 const uint8_t *const *bytes, const size_t *lens, uint32_t count,
                                 const uint8_t *randomness, size_t randomness_len,
                                 uint32_t partition_index, int verify, cz_error *err) {
    *proofs = NULL;
    *n = 0;
    cz_post_proof_info info;
    cz_status st = cz_post_proof_lookup(&info, registered_proof, err);
    if (st != CZ_OK) return invalid(err);
    if (sector_size != info.sector_size)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "registered proof %u (%s) is for %llu-byte sectors, the request says "
                            "sector_size %llu",
                            registered_proof, info.name, (unsigned long long)info.sector_size,
                            (unsigned long long)sector_size);
    if (randomness_len != 32)
        return cz_error_set(err, CZ_E_INVALID_ARG, "randomness must be exactly 32 bytes, got %zu",
                            randomness_len);
    if ((st = cz_post_check_randomness(randomness, err)) != CZ_OK) return st;
    if (info.kind == CZ_POST_WINDOW && partition_index >= MAX_PARTITIONS)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "partition_index %u is out of range (a deadline has at most %u "
                            "partitions)",
                            partition_index, MAX_PARTITIONS);
    if ((st = cz_post_config_from_sector(cfg, info.kind, info.sector_size, err)) != CZ_OK)
        return st;
    uint32_t max = info.kind == CZ_POST_WINNING ? 1 : cfg->sector_count;
    if (count < 1 || count > max)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%u vanilla proofs: %s takes %s%u (%s)", count,
                            info.name, max == 1 ? "exactly " : "1 to ", max,
                            info.kind == CZ_POST_WINNING ? "the challenged sector"
                                                         : "one per sector of the partition");
    cz_post_sector_proof *p = calloc(count, sizeof *p);
    if (!p) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < count && st == CZ_OK; i++) {
        st = cz_post_decode(&p[i], cfg, bytes[i], lens[i], err);
        if (st != CZ_OK) {
            cz_error_prefix(err, "vanilla_proofs[%u] (%zu bytes, a %s proof has %zu)", i, lens[i],
                            info.name, cz_post_encoded_size(cfg));
            st = invalid(err);
        }
    }
    uint32_t api_partition = info.kind == CZ_POST_WINNING ? 0 : partition_index;
    if (st == CZ_OK && verify)
        st =
            cz_post_vanilla_verify(cfg, info.api_version, randomness, api_partition, p, count, err);
    if (st != CZ_OK) {
        for (uint32_t i = 0; i < count; i++) cz_post_sector_proof_free(&p[i]);
        free(p);
        return st;
    }
    *api = info.api_version;
    *proofs = p;
    *n = count;
    return CZ_OK;
}

/* ------------------------------------------------------------- SnapDeals */

void cz_snap_request_free(cz_snap_request *req) {
    if (!req) return;
    for (uint32_t i = 0; i < req->n_proofs; i++) free(req->proofs[i]);
    free(req->proofs);
    free(req->proof_lens);
    memset(req, 0, sizeof *req);
}

static void put_hex32(FILE *out, const char *key, const uint8_t b[32]) {
    fprintf(out, "\"%s\":\"", key);
    for (int i = 0; i < 32; i++) fprintf(out, "%02x", b[i]);
    fputs("\",", out);
}

cz_status cz_snap_request_write_json(FILE *out, const cz_snap_request *req, cz_error *err) {
    fprintf(out, "{\"kind\":\"snap-update\",\"registered_proof\":%u,\"sector_size\":%llu,",
            req->registered_proof, (unsigned long long)req->sector_size);
    put_hex32(out, "comm_r_old", req->comm_r_old);
    put_hex32(out, "comm_d_new", req->comm_d_new);
    put_hex32(out, "comm_r_new", req->comm_r_new);
    return write_proofs(out, req->proofs, req->proof_lens, req->n_proofs, err);
}

cz_status cz_snap_request_parse_json(cz_snap_request *out, const uint8_t *data, size_t len,
                                     cz_error *err) {
    memset(out, 0, sizeof *out);
    const char *what = "snap request";
    yajl_val doc;
    cz_status st = parse_doc(&doc, data, len, what, err);
    if (st != CZ_OK) return st;
    cz_snap_request r;
    memset(&r, 0, sizeof r);
    uint64_t id = 0;
    const char *kind = str_of(get(doc, "kind", yajl_t_string));
    if (!kind || strcmp(kind, "snap-update"))
        st = cz_error_set(err, CZ_E_PARSE, "%s: \"kind\" must be \"snap-update\"", what);
    if (st == CZ_OK &&
        (st = get_uint(&id, doc, "registered_proof", UINT32_MAX, what, err)) == CZ_OK &&
        (st = get_uint(&r.sector_size, doc, "sector_size", INT64_MAX, what, err)) == CZ_OK &&
        (st = get_hex32(r.comm_r_old, doc, "comm_r_old", what, err)) == CZ_OK &&
        (st = get_hex32(r.comm_d_new, doc, "comm_d_new", what, err)) == CZ_OK &&
        (st = get_hex32(r.comm_r_new, doc, "comm_r_new", what, err)) == CZ_OK)
        st = get_proofs(&r.proofs, &r.proof_lens, &r.n_proofs, doc, what, err);
    r.registered_proof = (uint32_t)id;
    yajl_tree_free(doc);
    if (st != CZ_OK) {
        cz_snap_request_free(&r);
        return st;
    }
    *out = r;
    return CZ_OK;
}

void cz_snap_proofs_free(cz_snap_partition_proof *proofs, uint32_t n) {
    for (uint32_t i = 0; proofs && i < n; i++) cz_snap_proof_free(&proofs[i]);
    free(proofs);
}

cz_status cz_snap_request_decode(cz_snap_config *cfg, cz_snap_comms *comms,
                                 cz_snap_partition_proof **proofs, uint32_t registered_proof,
                                 uint64_t sector_size, const uint8_t *const *bytes,
                                 const size_t *lens, uint32_t count, const uint8_t *comm_r_old,
                                 size_t comm_r_old_len, const uint8_t *comm_d_new,
                                 size_t comm_d_new_len, const uint8_t *comm_r_new,
                                 size_t comm_r_new_len, int verify, cz_error *err) {
    *proofs = NULL;
    uint64_t size;
    cz_status st = cz_snap_proof_sector_size(&size, registered_proof, err);
    if (st != CZ_OK) return invalid(err);
    if (sector_size && sector_size != size)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "registered update proof %u (%s) is for %llu-byte sectors, the "
                            "request says sector_size %llu",
                            registered_proof, cz_snap_proof_name(registered_proof),
                            (unsigned long long)size, (unsigned long long)sector_size);
    if ((st = cz_snap_comms_from_bytes(comms, comm_r_old, comm_r_old_len, comm_d_new,
                                       comm_d_new_len, comm_r_new, comm_r_new_len, err)) != CZ_OK ||
        (st = cz_snap_config_from_sector(cfg, size, err)) != CZ_OK)
        return st;
    if (count != cfg->partitions)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%u vanilla proofs: a %s update has %u partitions, one proof each",
                            count, cz_snap_proof_name(registered_proof), cfg->partitions);
    cz_snap_partition_proof *p = calloc(count, sizeof *p);
    if (!p) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < count && st == CZ_OK; i++) {
        st = cz_snap_decode(&p[i], cfg, bytes[i], lens[i], err);
        if (st != CZ_OK) {
            cz_error_prefix(err, "vanilla_proofs[%u] (%zu bytes, a %s partition proof has %zu)", i,
                            lens[i], cz_snap_proof_name(registered_proof),
                            cz_snap_encoded_size(cfg));
            st = invalid(err);
        } else if (verify && (st = cz_snap_vanilla_verify(cfg, comms, i, &p[i], err)) != CZ_OK) {
            cz_error_prefix(err, "vanilla_proofs[%u] (partition %u)", i, i);
        }
    }
    if (st != CZ_OK) {
        cz_snap_proofs_free(p, count);
        return st;
    }
    *proofs = p;
    return CZ_OK;
}
