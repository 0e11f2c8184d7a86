/* PoSt request files and the decoding of a request's vanilla proofs; see
 * post.h. */
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/request_json.h"
#include "filecoin/post/post.h"

/* The miner actor's MaxPartitionsPerDeadline: no deadline has more
 * partitions, so a larger partition_index is a malformed request. */
#define MAX_PARTITIONS 3000

void cz_post_request_free(cz_post_request *req) {
    if (!req) return;
    cz_fc_json_proofs_free(req->proofs, req->proof_lens, req->n_proofs);
    memset(req, 0, sizeof *req);
}

static const char *kind_key(cz_post_kind k) {
    return k == CZ_POST_WINNING ? "winning-post" : "window-post";
}

cz_status cz_post_request_write_json(FILE *out, const cz_post_request *req, cz_error *err) {
    fprintf(out,
            "{\"kind\":\"%s\",\"registered_proof\":%u,\"sector_size\":%llu,\"miner_id\":%llu,"
            "\"partition_index\":%u,",
            kind_key(req->kind), req->registered_proof, (unsigned long long)req->sector_size,
            (unsigned long long)req->miner_id, req->partition_index);
    cz_fc_json_put_hex32(out, "randomness", req->randomness);
    return cz_fc_json_put_proofs(out, req->proofs, req->proof_lens, req->n_proofs, err);
}

cz_status cz_post_request_parse_json(cz_post_request *out, const uint8_t *data, size_t len,
                                     cz_error *err) {
    memset(out, 0, sizeof *out);
    yajl_val doc;
    cz_status st = cz_fc_json_parse_object(&doc, data, len, "post request", err);
    if (st != CZ_OK) return st;
    cz_post_request r;
    memset(&r, 0, sizeof r);
    uint64_t id = 0, part = 0;
    cz_post_proof_info info;
    const char *what = "post request";
    if ((st = cz_fc_json_uint(&id, doc, "registered_proof", UINT32_MAX, what, err)) != CZ_OK ||
        (st = cz_fc_json_uint(&r.sector_size, doc, "sector_size", INT64_MAX, what, err)) != CZ_OK ||
        (st = cz_fc_json_uint(&r.miner_id, doc, "miner_id", INT64_MAX, what, err)) != CZ_OK ||
        (st = cz_fc_json_uint(&part, doc, "partition_index", UINT32_MAX, what, err)) != CZ_OK)
        goto done;
    if ((st = cz_post_proof_lookup(&info, id, err)) != CZ_OK) {
        cz_error_prefix(err, "post request: \"registered_proof\"");
        st = CZ_E_PARSE;
        goto done;
    }
    r.registered_proof = (uint32_t)id;
    r.kind = info.kind;
    r.partition_index = (uint32_t)part;
    const char *kind = cz_fc_json_string(doc, "kind");
    if (!kind || strcmp(kind, kind_key(info.kind))) {
        st = cz_error_set(err, CZ_E_PARSE, "post request: \"kind\" must be \"%s\" for %s",
                          kind_key(info.kind), info.name);
        goto done;
    }
    if ((st = cz_fc_json_hex32(r.randomness, doc, "randomness", what, err)) != CZ_OK) goto done;
    st = cz_fc_json_proofs(&r.proofs, &r.proof_lens, &r.n_proofs, doc, what, err);
done:
    yajl_tree_free(doc);
    if (st != CZ_OK) {
        cz_post_request_free(&r);
        return st;
    }
    *out = r;
    return CZ_OK;
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
    if (st != CZ_OK) return cz_fc_request_invalid(err);
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
            st = cz_fc_request_invalid(err);
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
