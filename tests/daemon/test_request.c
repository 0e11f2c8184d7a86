/* cz_rpc_decode, the daemon's request decoding: a submission's C1 is not
 * copied (the view points into the call's bytes) and the result equals
 * protobuf-c's own decoding (cz_rpc_decode_copying) on plain messages, on
 * odd shapes (vanilla_proof repeated or absent, submit repeated: protobuf's
 * last-one-wins and merge rules) and on random edits of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/request.h"
#include "harness/harness.h"

static uint8_t *pack(const ProtobufCMessage *m, size_t *len) {
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *b = malloc(*len + 1);
    protobuf_c_message_pack(m, b);
    return b;
}

/* Same status; for submissions the same view (every field, the bytes). */
static int same(cz_rpc rpc, const uint8_t *in, size_t len, int *borrowed) {
    cz_rpc_request a, b;
    cz_error ea = {0}, eb = {0};
    cz_status sa = cz_rpc_decode(&a, rpc, in, len, &ea);
    cz_status sb = cz_rpc_decode_copying(&b, rpc, in, len, 1, &eb);
    int ok = sa == sb;
    if (ok && sa == CZ_OK && (rpc == CZ_RPC_SUBMIT || rpc == CZ_RPC_PROVE)) {
        const cz_engine_request *x = &a.submit, *y = &b.submit;
        ok = !strcmp(x->request_id, y->request_id) && x->kind == y->kind &&
             x->priority == y->priority && x->sector_size == y->sector_size &&
             x->registered_proof == y->registered_proof && x->sector_number == y->sector_number &&
             x->miner_id == y->miner_id && x->vanilla_proof_len == y->vanilla_proof_len &&
             (!x->vanilla_proof_len ||
              !memcmp(x->vanilla_proof, y->vanilla_proof, x->vanilla_proof_len)) &&
             x->n_vanilla_proofs == y->n_vanilla_proofs && x->randomness_len == y->randomness_len;
        if (borrowed)
            *borrowed = x->vanilla_proof_len && x->vanilla_proof >= in &&
                        x->vanilla_proof + x->vanilla_proof_len <= in + len;
    }
    if (sa == CZ_OK) cz_rpc_request_free(&a);
    if (sb == CZ_OK) cz_rpc_request_free(&b);
    return ok;
}

int main(void) {
    cz_test_init("daemon/request");
    static uint8_t c1[5000];
    for (size_t i = 0; i < sizeof c1; i++) c1[i] = (uint8_t)(i * 7 + 3);
    Cuzk__V1__SubmitProofRequest s;
    cuzk__v1__submit_proof_request__init(&s);
    s.request_id = "porep-1000-7";
    s.proof_kind = 1;
    s.vanilla_proof.data = c1;
    s.vanilla_proof.len = sizeof c1;
    s.sector_number = 7;
    s.miner_id = 1000;
    s.registered_proof = 8;
    s.priority = 3;
    size_t n = 0;
    uint8_t *sb = pack(&s.base, &n);
    int borrowed = 0;
    CHECK(same(CZ_RPC_SUBMIT, sb, n, &borrowed) && borrowed);
    Cuzk__V1__ProveRequest p;
    cuzk__v1__prove_request__init(&p);
    p.submit = &s;
    size_t pn = 0;
    uint8_t *pb = pack(&p.base, &pn);
    borrowed = 0;
    CHECK(same(CZ_RPC_PROVE, pb, pn, &borrowed) && borrowed);
    /* vanilla_proof twice (the last wins), absent, and submit twice
     * (messages merge): the copying path decides, with the same result */
    uint8_t *twice = malloc(n + 8);
    memcpy(twice, sb, n);
    memcpy(twice + n, (const uint8_t[]){0x52, 0x03, 'a', 'b', 'c'}, 5); /* field 10, "abc" */
    borrowed = 1;
    CHECK(same(CZ_RPC_SUBMIT, twice, n + 5, &borrowed) && !borrowed);
    cz_rpc_request r;
    cz_error err = {0};
    CHECK(cz_rpc_decode(&r, CZ_RPC_SUBMIT, twice, n + 5, &err) == CZ_OK);
    CHECK(r.submit.vanilla_proof_len == 3 && !memcmp(r.submit.vanilla_proof, "abc", 3));
    cz_rpc_request_free(&r);
    s.vanilla_proof.len = 0;
    size_t en = 0;
    uint8_t *eb = pack(&s.base, &en);
    CHECK(same(CZ_RPC_SUBMIT, eb, en, NULL));
    s.vanilla_proof.len = sizeof c1;
    uint8_t *pp = malloc(2 * pn);
    memcpy(pp, pb, pn);
    memcpy(pp + pn, pb, pn);
    borrowed = 1;
    CHECK(same(CZ_RPC_PROVE, pp, 2 * pn, &borrowed) && !borrowed);
    /* random edits: both decoders agree on every one */
    unsigned iters = cz_test_iters(20000), disagree = 0;
    uint8_t *m = malloc(pn + 16);
    for (unsigned it = 0; it < iters; it++) {
        int prove = it & 1;
        const uint8_t *base = prove ? pb : sb;
        size_t len = prove ? pn : n;
        memcpy(m, base, len);
        unsigned edits = 1 + (unsigned)(cz_test_rand64() % 3);
        for (unsigned k = 0; k < edits; k++) {
            uint64_t r64 = cz_test_rand64();
            size_t at = (size_t)((r64 >> 8) % 24); /* the header fields, where the shape lives */
            if (at < len) m[at] = (uint8_t)r64;
        }
        if (!same(prove ? CZ_RPC_PROVE : CZ_RPC_SUBMIT, m, len, NULL)) disagree++;
    }
    if (disagree) printf("%u of %u edited messages decoded differently\n", disagree, iters);
    CHECK(disagree == 0);
    free(m), free(pp), free(eb), free(twice), free(pb), free(sb);
    return cz_test_finish("daemon/request");
}
