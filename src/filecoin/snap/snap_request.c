/* SnapDeals request files and the decoding of a request's vanilla proofs;
 * see snap.h. */
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/request_json.h"
#include "filecoin/snap/snap.h"

void cz_snap_request_free(cz_snap_request *req) {
    if (!req) return;
    cz_fc_json_proofs_free(req->proofs, req->proof_lens, req->n_proofs);
    memset(req, 0, sizeof *req);
}

cz_status cz_snap_request_write_json(FILE *out, const cz_snap_request *req, cz_error *err) {
    fprintf(out, "{\"kind\":\"snap-update\",\"registered_proof\":%u,\"sector_size\":%llu,",
            req->registered_proof, (unsigned long long)req->sector_size);
    cz_fc_json_put_hex32(out, "comm_r_old", req->comm_r_old);
    cz_fc_json_put_hex32(out, "comm_d_new", req->comm_d_new);
    cz_fc_json_put_hex32(out, "comm_r_new", req->comm_r_new);
    return cz_fc_json_put_proofs(out, req->proofs, req->proof_lens, req->n_proofs, err);
}

cz_status cz_snap_request_parse_json(cz_snap_request *out, const uint8_t *data, size_t len,
                                     cz_error *err) {
    memset(out, 0, sizeof *out);
    const char *what = "snap request";
    yajl_val doc;
    cz_status st = cz_fc_json_parse_object(&doc, data, len, what, err);
    if (st != CZ_OK) return st;
    cz_snap_request r;
    memset(&r, 0, sizeof r);
    uint64_t id = 0;
    const char *kind = cz_fc_json_string(doc, "kind");
    if (!kind || strcmp(kind, "snap-update"))
        st = cz_error_set(err, CZ_E_PARSE, "%s: \"kind\" must be \"snap-update\"", what);
    if (st == CZ_OK &&
        (st = cz_fc_json_uint(&id, doc, "registered_proof", UINT32_MAX, what, err)) == CZ_OK &&
        (st = cz_fc_json_uint(&r.sector_size, doc, "sector_size", INT64_MAX, what, err)) == CZ_OK &&
        (st = cz_fc_json_hex32(r.comm_r_old, doc, "comm_r_old", what, err)) == CZ_OK &&
        (st = cz_fc_json_hex32(r.comm_d_new, doc, "comm_d_new", what, err)) == CZ_OK &&
        (st = cz_fc_json_hex32(r.comm_r_new, doc, "comm_r_new", what, err)) == CZ_OK)
        st = cz_fc_json_proofs(&r.proofs, &r.proof_lens, &r.n_proofs, doc, what, err);
    r.registered_proof = (uint32_t)id;
    yajl_tree_free(doc);
    if (st != CZ_OK) {
        cz_snap_request_free(&r);
        return st;
    }
    *out = r;
    return CZ_OK;
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
    if (st != CZ_OK) return cz_fc_request_invalid(err);
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
            st = cz_fc_request_invalid(err);
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
