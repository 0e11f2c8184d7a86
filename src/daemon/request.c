/* cuzk.v1 request decoding (see request.h). */
#include "daemon/request.h"

#include <stdlib.h>
#include <string.h>

#include "daemon/wire.h"

static const struct {
    const char *name;
    const ProtobufCMessageDescriptor *desc;
} rpcs[CZ_RPC_COUNT] = {
    [CZ_RPC_SUBMIT] = {"SubmitProof", &cuzk__v1__submit_proof_request__descriptor},
    [CZ_RPC_AWAIT] = {"AwaitProof", &cuzk__v1__await_proof_request__descriptor},
    [CZ_RPC_PROVE] = {"Prove", &cuzk__v1__prove_request__descriptor},
    [CZ_RPC_CANCEL] = {"CancelProof", &cuzk__v1__cancel_proof_request__descriptor},
    [CZ_RPC_STATUS] = {"GetStatus", &cuzk__v1__get_status_request__descriptor},
    [CZ_RPC_METRICS] = {"GetMetrics", &cuzk__v1__get_metrics_request__descriptor},
    [CZ_RPC_PRELOAD] = {"PreloadSRS", &cuzk__v1__preload_srs_request__descriptor},
    [CZ_RPC_EVICT] = {"EvictSRS", &cuzk__v1__evict_srs_request__descriptor},
};

int cz_rpc_lookup(cz_rpc *out, const char *path, size_t len) {
    static const char prefix[] = "/cuzk.v1.ProvingEngine/";
    size_t plen = sizeof prefix - 1;
    if (len < plen || memcmp(path, prefix, plen) != 0) return 0;
    for (int i = 0; i < CZ_RPC_COUNT; i++) {
        size_t n = strlen(rpcs[i].name);
        if (len == plen + n && !memcmp(path + plen, rpcs[i].name, n)) {
            *out = (cz_rpc)i;
            return 1;
        }
    }
    return 0;
}

const char *cz_rpc_name(cz_rpc rpc) {
    return (unsigned)rpc < CZ_RPC_COUNT ? rpcs[rpc].name : "?";
}

/* The engine's view of a SubmitProofRequest: pointers into s. */
static cz_status view_submit(cz_rpc_request *r, const Cuzk__V1__SubmitProofRequest *s,
                             cz_error *err) {
    cz_engine_request *q = &r->submit;
    memset(q, 0, sizeof *q);
    q->request_id = s->request_id;
    q->kind = (cz_proof_kind)s->proof_kind;
    q->priority = (cz_priority)s->priority;
    /* proto3 sends 0 for a field the caller did not set: 0 is a value where
     * it is one (see cz_engine_request.zero_is_value) */
    q->zero_is_value = 1;
    q->sector_size = s->sector_size;
    q->registered_proof = s->registered_proof;
    q->sector_number = s->sector_number;
    q->miner_id = s->miner_id;
    q->vanilla_proof = s->vanilla_proof.data;
    q->vanilla_proof_len = s->vanilla_proof.len;
    q->randomness = s->randomness.data;
    q->randomness_len = s->randomness.len;
    q->partition_index = s->partition_index;
    q->comm_r_old = s->comm_r_old.data;
    q->comm_r_old_len = s->comm_r_old.len;
    q->comm_r_new = s->comm_r_new.data;
    q->comm_r_new_len = s->comm_r_new.len;
    q->comm_d_new = s->comm_d_new.data;
    q->comm_d_new_len = s->comm_d_new.len;
    if (s->n_vanilla_proofs) {
        r->vp_ptrs = calloc(s->n_vanilla_proofs, sizeof *r->vp_ptrs);
        r->vp_lens = calloc(s->n_vanilla_proofs, sizeof *r->vp_lens);
        if (!r->vp_ptrs || !r->vp_lens) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
        for (size_t i = 0; i < s->n_vanilla_proofs; i++) {
            r->vp_ptrs[i] = s->vanilla_proofs[i].data;
            r->vp_lens[i] = s->vanilla_proofs[i].len;
        }
        q->vanilla_proofs = r->vp_ptrs;
        q->vanilla_proofs_len = r->vp_lens;
        q->n_vanilla_proofs = s->n_vanilla_proofs;
    }
    return CZ_OK;
}

/* ---- the C1 without a copy ----
 * protobuf-c copies every bytes field; a PoRep request's vanilla_proof is
 * the whole C1 (~50 MB at 32 GiB), which admission only reads. When the
 * field occurs once (as every encoder writes it), the message is unpacked
 * without it and the view points at its bytes in the caller's buffer. Any
 * other shape (absent, repeated, odd wire types) takes the copying path,
 * which protobuf-c's semantics then decide. */

typedef struct {
    size_t start;  /* the tag */
    size_t lenpos; /* the length varint */
    size_t value;  /* the value */
    size_t end;    /* one past it */
} field_span;

static int varint(const uint8_t *m, size_t len, size_t *pos, uint64_t *out) {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64 && *pos < len; shift += 7) {
        uint8_t b = m[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* 1 when length-delimited field `number` occurs exactly once in m (and
 * with no other wire type) and m is well-formed at its top level. */
static int only_field(const uint8_t *m, size_t len, uint32_t number, field_span *out) {
    size_t pos = 0;
    int seen = 0;
    while (pos < len) {
        size_t start = pos;
        uint64_t tag, n;
        if (!varint(m, len, &pos, &tag)) return 0;
        unsigned wire = (unsigned)(tag & 7);
        int ours = (tag >> 3) == number;
        if (ours && wire != 2) return 0;
        if (wire == 0) {
            if (!varint(m, len, &pos, &n)) return 0;
        } else if (wire == 1 || wire == 5) {
            size_t w = wire == 1 ? 8 : 4;
            if (len - pos < w) return 0;
            pos += w;
        } else if (wire == 2) {
            size_t lenpos = pos;
            if (!varint(m, len, &pos, &n) || n > len - pos) return 0;
            if (ours) {
                if (seen++) return 0;
                *out = (field_span){start, lenpos, pos, pos + (size_t)n};
            }
            pos += (size_t)n;
        } else {
            return 0;
        }
    }
    return seen == 1;
}

static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t n = 0;
    do {
        p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* The message unpacked without its vanilla_proof, whose bytes in `in` are
 * returned in *proof; NULL when the shape is not the plain one. */
static ProtobufCMessage *unpack_borrowing_proof(cz_rpc rpc, const uint8_t *in, size_t len,
                                                const uint8_t **proof, size_t *proof_len) {
    field_span s = {0, 0, 0, len}, v;
    const uint8_t *sub = in;
    size_t sub_len = len;
    if (rpc == CZ_RPC_PROVE) { /* ProveRequest.submit (1) holds it */
        if (!only_field(in, len, 1, &s)) return NULL;
        sub = in + s.value;
        sub_len = s.end - s.value;
    }
    if (!only_field(sub, sub_len, 10, &v)) return NULL; /* SubmitProofRequest.vanilla_proof */
    uint8_t *m = malloc(len - (v.end - v.start) + 10);
    if (!m) return NULL;
    size_t n = 0;
    if (rpc == CZ_RPC_PROVE) {
        memcpy(m, in, s.lenpos);
        n = s.lenpos + put_varint(m + s.lenpos, sub_len - (v.end - v.start));
    }
    memcpy(m + n, sub, v.start);
    n += v.start;
    memcpy(m + n, sub + v.end, sub_len - v.end);
    n += sub_len - v.end;
    if (rpc == CZ_RPC_PROVE) {
        memcpy(m + n, in + s.end, len - s.end);
        n += len - s.end;
    }
    ProtobufCMessage *msg = protobuf_c_message_unpack(rpcs[rpc].desc, NULL, n, m);
    free(m);
    if (msg) {
        *proof = sub + v.value;
        *proof_len = v.end - v.value;
    }
    return msg;
}

cz_status cz_rpc_decode(cz_rpc_request *out, cz_rpc rpc, const uint8_t *in, size_t len,
                        cz_error *err) {
    return cz_rpc_decode_copying(out, rpc, in, len, 0, err);
}

cz_status cz_rpc_decode_copying(cz_rpc_request *out, cz_rpc rpc, const uint8_t *in, size_t len,
                                int copy, cz_error *err) {
    memset(out, 0, sizeof *out);
    if ((unsigned)rpc >= CZ_RPC_COUNT) return cz_error_set(err, CZ_E_INVALID_ARG, "unknown rpc");
    out->rpc = rpc;
    const ProtobufCMessageDescriptor *desc = rpcs[rpc].desc;
    /* Strings are checked with their wire length before protobuf-c turns
     * them into C strings (a NUL would cut one short there). */
    cz_error werr = {0};
    cz_status st = cz_wire_check_strings(desc, in, len, &werr);
    if (st == CZ_E_INVALID_ARG) return cz_error_set(err, st, "%s", werr.message);
    const uint8_t *proof = NULL;
    size_t proof_len = 0;
    ProtobufCMessage *m = NULL;
    if (st == CZ_OK && !copy && (rpc == CZ_RPC_SUBMIT || rpc == CZ_RPC_PROVE))
        m = unpack_borrowing_proof(rpc, in, len, &proof, &proof_len);
    if (st == CZ_OK && !m) {
        proof = NULL; /* the copying path: vanilla_proof from the message */
        m = protobuf_c_message_unpack(desc, NULL, len, in);
    }
    if (!m)
        return cz_error_set(err, CZ_E_PARSE,
                            "cannot decode %s (%zu bytes): not a valid protobuf message",
                            desc->short_name, len);
    out->msg = m;
    if (rpc == CZ_RPC_SUBMIT || rpc == CZ_RPC_PROVE) {
        const Cuzk__V1__SubmitProofRequest *s = rpc == CZ_RPC_SUBMIT
                                                    ? (const Cuzk__V1__SubmitProofRequest *)m
                                                    : ((const Cuzk__V1__ProveRequest *)m)->submit;
        if (!s) st = cz_error_set(err, CZ_E_INVALID_ARG, "ProveRequest.submit is missing");
        if (st == CZ_OK) st = view_submit(out, s, err);
        if (st == CZ_OK && proof) {
            out->submit.vanilla_proof = proof;
            out->submit.vanilla_proof_len = proof_len;
        }
        if (st != CZ_OK) {
            cz_rpc_request_free(out);
            return st;
        }
    }
    return CZ_OK;
}

void cz_rpc_request_free(cz_rpc_request *r) {
    if (r->msg) protobuf_c_message_free_unpacked(r->msg, NULL);
    free(r->vp_ptrs);
    free(r->vp_lens);
    memset(r, 0, sizeof *r);
}
