/* Vanilla PoRep side (src/filecoin/porep/vanilla.h): synthetic C1 generation,
 * the JSON writer and the native vanilla verifier.
 *
 * Independent checks: the known-answer label vectors of rust-fil-proofs'
 * create_label tests (whole 11-layer graphs, v1.0 and v1.1), labels of the
 * challenged node recomputed here with
 * OpenSSL's SHA256() directly from the parent columns (layer 1: 6 DRG
 * parents cycled to 37; layer 2: 6 DRG + 8 expander parents cycled), the
 * replica leaf = label_L + data checked with GMP modulo r, tree-D paths
 * hashed here with SHA256(), the comm_d of sparse (all-zero) sectors against
 * the empty-sector table (the one test_derive.c checks), prover_id against
 * the known f0 payload bytes, and the envelope's base64 against OpenSSL's
 * EVP_EncodeBlock. The verifier is then fed tampered copies and must name
 * the broken check. Finally the PoRep circuit (porep_circuit.h, written
 * separately) must be satisfied by the generated witnesses (check
 * back-end) and unsatisfied by a tampered one.
 *
 * CZ_SLOW_TESTS=1 adds the 32 GiB and 64 GiB sparse sectors (generation,
 * JSON round trip, vanilla verification) and the whole 8 MiB seal. */
#include <gmp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/porep/c1_envelope.h"
#include "filecoin/common/derive.h"
#include "filecoin/porep/graph.h"
#include "filecoin/porep/porep.h"
#include "filecoin/porep/porep_circuit.h"
#include "filecoin/porep/vanilla.h"
#include "harness/harness.h"
#include "r1cs/backends.h"

static const uint64_t miner_id = 1000, sector_num = 7;

static cz_status gen(cz_c1 *c1, uint32_t id, int sparse, uint64_t seed) {
    cz_fc_gen_opts opts = {id, seed, miner_id, sector_num, sparse, NULL};
    cz_error err = {0};
    cz_status st = cz_fc_gen_c1(c1, &opts, &err);
    if (st != CZ_OK) printf("  gen id %u: %s\n", id, err.message);
    return st;
}

static int verify_ok(const cz_c1 *c1, const char *what) {
    uint8_t prover_id[32];
    cz_fc_prover_id(prover_id, miner_id);
    cz_error err = {0};
    cz_status st = cz_fc_vanilla_verify(c1, prover_id, sector_num, &err);
    if (st != CZ_OK) printf("  %s: %s\n", what, err.message);
    return st == CZ_OK;
}

/* ------------------------------------------------- independent checks */

static void sha256_masked(uint8_t out[32], const uint8_t *in, size_t len) {
    SHA256(in, len, out);
    out[31] &= 0x3f;
}

static const uint8_t *dom_at(const cz_c1 *c1, cz_c1_span s, uint32_t i) {
    return c1->doms[s.first + i];
}

/* Labels of both layers of every challenge, from the parent columns. */
static void check_labels_independently(const cz_c1 *c1) {
    CHECK(c1->layers == 2);
    for (size_t n = 0; n < c1->n_challenges; n++) {
        const cz_c1_challenge *ch = &c1->challenges[n];
        uint64_t node = ch->c_x.index;
        for (uint32_t layer = 1; layer <= 2; layer++) {
            uint8_t msg[64 + 37 * 32], label[32];
            memcpy(msg, c1->replica_id, 32);
            memset(msg + 32, 0, 32);
            msg[35] = (uint8_t)layer; /* u32 BE */
            for (int b = 0; b < 8; b++) msg[36 + b] = (uint8_t)(node >> (56 - 8 * b));
            const uint8_t *p[14];
            for (int j = 0; j < 6; j++) p[j] = dom_at(c1, ch->drg_parents[j].rows, layer - 1);
            for (int j = 0; j < 8; j++) p[6 + j] = dom_at(c1, ch->exp_parents[j].rows, 0);
            int count = layer == 1 ? 6 : 14;
            /* layer 1: P x 6 then P[0]; layer 2: P, P, P[0..9] */
            for (int j = 0; j < 37; j++) memcpy(msg + 64 + 32 * j, p[j % count], 32);
            sha256_masked(label, msg, sizeof msg);
            CHECK(memcmp(label, dom_at(c1, ch->c_x.rows, layer - 1), 32) == 0);
        }
        /* replica leaf = label_2 + data leaf mod r (GMP) */
        mpz_t r, a, b, sum, leaf;
        mpz_inits(r, a, b, sum, leaf, NULL);
        mpz_set_str(r, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
        mpz_import(a, 32, -1, 1, 0, 0, dom_at(c1, ch->c_x.rows, 1));
        mpz_import(b, 32, -1, 1, 0, 0, ch->comm_d_proof.leaf);
        mpz_import(leaf, 32, -1, 1, 0, 0, ch->comm_r_last_proof.leaf);
        mpz_add(sum, a, b);
        mpz_mod(sum, sum, r);
        CHECK(mpz_cmp(sum, leaf) == 0);
        mpz_clears(r, a, b, sum, leaf, NULL);
        /* tree D path hashed here */
        uint8_t cur[32], buf[64];
        memcpy(cur, ch->comm_d_proof.leaf, 32);
        uint64_t idx = 0;
        for (uint32_t l = 0; l < ch->comm_d_proof.base.count; l++) {
            const cz_c1_path_elem *e = &c1->path_elems[ch->comm_d_proof.base.first + l];
            const uint8_t *sib = c1->doms[e->hashes.first];
            memcpy(buf, e->index ? sib : cur, 32);
            memcpy(buf + 32, e->index ? cur : sib, 32);
            sha256_masked(cur, buf, 64);
            idx |= (uint64_t)e->index << l;
        }
        CHECK(memcmp(cur, c1->comm_d, 32) == 0);
        CHECK(idx == node);
    }
}

/* Node 0's label (no parents hashed), computed here. */
static void node0_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer) {
    uint8_t msg[64] = {0};
    memcpy(msg, replica_id, 32);
    msg[35] = (uint8_t)layer;
    sha256_masked(out, msg, 64);
}

/* Sparse sector: comm_d = the empty-sector comm_d, data leaves zero, every
 * parent column of a node that is not challenged holds node 0's labels. */
static void check_sparse_semantics(const cz_c1 *c1, const char *comm_d_hex) {
    uint8_t want[32], zero[32] = {0};
    CHECK(cz_test_from_hex(want, comm_d_hex, 32));
    CHECK(memcmp(c1->comm_d, want, 32) == 0);
    uint8_t def[11][32];
    for (uint32_t l = 1; l <= c1->layers; l++) node0_label(def[l - 1], c1->replica_id, l);
    size_t defaults_seen = 0;
    for (size_t n = 0; n < c1->n_challenges; n++) {
        const cz_c1_challenge *ch = &c1->challenges[n];
        CHECK(memcmp(ch->comm_d_proof.leaf, zero, 32) == 0);
        for (int j = 0; j < 14; j++) {
            const cz_c1_column_proof *col = j < 6 ? &ch->drg_parents[j] : &ch->exp_parents[j - 6];
            int challenged = 0;
            for (size_t m = 0; m < c1->n_challenges; m++)
                if (c1->challenges[m].c_x.index == col->index) challenged = 1;
            if (challenged) continue;
            defaults_seen++;
            for (uint32_t l = 0; l < c1->layers; l++)
                CHECK(memcmp(dom_at(c1, col->rows, l), def[l], 32) == 0);
        }
    }
    CHECK(defaults_seen > 0);
}

/* ------------------------------------------------------ round trips */

static int merkle_equal(const cz_c1 *a, const cz_c1_merkle *x, const cz_c1 *b,
                        const cz_c1_merkle *y) {
    if (x->kind != y->kind || memcmp(x->root, y->root, 32) || memcmp(x->leaf, y->leaf, 32))
        return 0;
    const cz_c1_span sx[3] = {x->base, x->sub, x->top}, sy[3] = {y->base, y->sub, y->top};
    for (int p = 0; p < 3; p++) {
        if (sx[p].count != sy[p].count) return 0;
        for (uint32_t i = 0; i < sx[p].count; i++) {
            const cz_c1_path_elem *ex = &a->path_elems[sx[p].first + i],
                                  *ey = &b->path_elems[sy[p].first + i];
            if (ex->index != ey->index || ex->hashes.count != ey->hashes.count) return 0;
            if (memcmp(a->doms[ex->hashes.first], b->doms[ey->hashes.first], 32 * ex->hashes.count))
                return 0;
        }
    }
    return 1;
}

static int doms_equal(const cz_c1 *a, cz_c1_span x, const cz_c1 *b, cz_c1_span y) {
    return x.count == y.count && !memcmp(a->doms[x.first], b->doms[y.first], 32 * x.count);
}

static int column_equal(const cz_c1 *a, const cz_c1_column_proof *x, const cz_c1 *b,
                        const cz_c1_column_proof *y) {
    return x->index == y->index && doms_equal(a, x->rows, b, y->rows) &&
           merkle_equal(a, &x->proof, b, &y->proof);
}

static int labeling_equal(const cz_c1 *a, const cz_c1_labeling_proof *x, const cz_c1 *b,
                          const cz_c1_labeling_proof *y) {
    return x->layer_index == y->layer_index && x->node == y->node &&
           doms_equal(a, x->parents, b, y->parents);
}

static int c1_equal(const cz_c1 *a, const cz_c1 *b) {
    if (a->registered_proof != b->registered_proof || a->sector_size != b->sector_size ||
        memcmp(a->comm_r, b->comm_r, 32) || memcmp(a->comm_d, b->comm_d, 32) ||
        memcmp(a->replica_id, b->replica_id, 32) || memcmp(a->seed, b->seed, 32) ||
        memcmp(a->ticket, b->ticket, 32) || a->partitions != b->partitions ||
        a->challenges_per_partition != b->challenges_per_partition || a->layers != b->layers ||
        a->tree_d_depth != b->tree_d_depth || a->tree_r_kind != b->tree_r_kind ||
        a->tree_r_base_depth != b->tree_r_base_depth ||
        a->tree_r_base_siblings != b->tree_r_base_siblings ||
        a->tree_r_sub_siblings != b->tree_r_sub_siblings ||
        a->tree_r_top_siblings != b->tree_r_top_siblings || a->n_challenges != b->n_challenges)
        return 0;
    for (size_t n = 0; n < a->n_challenges; n++) {
        const cz_c1_challenge *x = &a->challenges[n], *y = &b->challenges[n];
        if (!merkle_equal(a, &x->comm_d_proof, b, &y->comm_d_proof) ||
            !merkle_equal(a, &x->comm_r_last_proof, b, &y->comm_r_last_proof) ||
            !column_equal(a, &x->c_x, b, &y->c_x) || x->labeling.count != y->labeling.count ||
            !labeling_equal(a, &x->encoding, b, &y->encoding))
            return 0;
        for (int j = 0; j < 6; j++)
            if (!column_equal(a, &x->drg_parents[j], b, &y->drg_parents[j])) return 0;
        for (int j = 0; j < 8; j++)
            if (!column_equal(a, &x->exp_parents[j], b, &y->exp_parents[j])) return 0;
        for (uint32_t l = 0; l < x->labeling.count; l++)
            if (!labeling_equal(a, &a->labeling[x->labeling.first + l], b,
                                &b->labeling[y->labeling.first + l]))
                return 0;
    }
    return 1;
}

/* Writes raw and envelope JSON, parses both back, compares and verifies.
 * *raw_out (optional) receives the raw JSON. */
static void round_trip(const cz_c1 *c1, const char *what, uint8_t **raw_out, size_t *raw_len) {
    uint8_t *raw = NULL, *env = NULL;
    size_t rl = 0, el = 0;
    cz_error err = {0};
    CHECK(cz_c1_write_json_mem(&raw, &rl, c1, 0, sector_num, &err) == CZ_OK);
    CHECK(cz_c1_write_json_mem(&env, &el, c1, 1, sector_num, &err) == CZ_OK);
    for (int e = 0; e < 2; e++) {
        cz_c1 back;
        cz_status st = cz_c1_parse(&back, e ? env : raw, e ? el : rl, &err);
        if (st != CZ_OK) printf("  %s %s parse: %s\n", what, e ? "envelope" : "raw", err.message);
        CHECK(st == CZ_OK);
        if (st != CZ_OK) continue;
        CHECK(back.has_envelope == e);
        if (e) CHECK(back.envelope_sector_num == sector_num);
        CHECK(c1_equal(c1, &back));
        CHECK(cz_c1_check_shape(&back, &err) == CZ_OK);
        CHECK(cz_c1_check_indices(&back, &err) == CZ_OK);
        CHECK(verify_ok(&back, what));
        cz_c1_free(&back);
    }
    /* The envelope is exactly {"SectorNum":n,"Phase1Out":"<base64>","SectorSize":n} with
     * OpenSSL's base64 of the raw bytes. */
    if (raw && env) {
        size_t b64_cap = (rl + 2) / 3 * 4 + 1;
        unsigned char *b64 = malloc(b64_cap);
        int n = EVP_EncodeBlock(b64, raw, (int)rl);
        char head[64], tail[64];
        int hl = snprintf(head, sizeof head, "{\"SectorNum\":%llu,\"Phase1Out\":\"",
                          (unsigned long long)sector_num);
        int tl = snprintf(tail, sizeof tail, "\",\"SectorSize\":%llu}",
                          (unsigned long long)c1->sector_size);
        CHECK(el == (size_t)(hl + n + tl));
        if (el == (size_t)(hl + n + tl)) {
            CHECK(memcmp(env, head, (size_t)hl) == 0);
            CHECK(memcmp(env + hl, b64, (size_t)n) == 0);
            CHECK(memcmp(env + hl + n, tail, (size_t)tl) == 0);
        }
        free(b64);
    }
    free(env);
    if (raw_out) {
        *raw_out = raw;
        *raw_len = rl;
    } else {
        free(raw);
    }
}

/* --------------------------------------------------------------- tests */

static void test_prover_id(void) {
    /* f01000's ID-address payload is the uvarint e8 07. */
    static const struct {
        uint64_t id;
        uint8_t bytes[10];
        int n;
    } cases[] = {{0, {0}, 1},
                 {127, {0x7f}, 1},
                 {128, {0x80, 0x01}, 2},
                 {1000, {0xe8, 0x07}, 2},
                 {UINT64_MAX, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t out[32], want[32] = {0};
        memcpy(want, cases[i].bytes, (size_t)cases[i].n);
        cz_fc_prover_id(out, cases[i].id);
        CHECK(memcmp(out, want, 32) == 0);
    }
}

static void test_label_primitive(void) {
    /* cz_fc_label against a direct SHA-256 of the documented message. */
    uint8_t replica_id[32], parents[37][32], msg[64 + 37 * 32], want[32], got[32];
    cz_test_rand_bytes(replica_id, 32);
    cz_test_rand_bytes(&parents[0][0], sizeof parents);
    replica_id[31] &= 0x3f;
    memset(msg, 0, 64);
    memcpy(msg, replica_id, 32);
    msg[32] = 0x01, msg[33] = 0x02, msg[34] = 0x03, msg[35] = 0x04; /* layer 0x01020304 BE */
    for (int b = 0; b < 8; b++) msg[36 + b] = (uint8_t)(0x1122334455667788ULL >> (56 - 8 * b));
    memcpy(msg + 64, parents, sizeof parents);
    sha256_masked(want, msg, sizeof msg);
    cz_fc_label(got, replica_id, 0x01020304, 0x1122334455667788ULL, (const cz_c1_dom *)parents, 37);
    CHECK(memcmp(got, want, 32) == 0);
    sha256_masked(want, msg, 64);
    cz_fc_label(got, replica_id, 0x01020304, 0x1122334455667788ULL, NULL, 0);
    CHECK(memcmp(got, want, 32) == 0);
}

/* rust-fil-proofs storage-proofs-porep create_label/multi.rs
 * test_create_labels: replica_id [9; 32], 11 layers, the last label of the
 * last layer as FrRepr limbs (little-endian u64), for 64 and 128 nodes with
 * porep_id [0; 32] (api 1.0.0) and [123; 32] (api 1.1.0). */
static void test_rust_label_vectors(void) {
    static const struct {
        uint64_t nodes;
        uint8_t porep_byte;
        cz_fc_api_version api;
        uint64_t limbs[4];
    } cases[] = {
        {64,
         0,
         CZ_FC_API_V1_0_0,
         {0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3, 0x0462f4f4f1a68d37}},
        {128,
         0,
         CZ_FC_API_V1_0_0,
         {0x7e191e52c4a8da86, 0x5ae8a1c9e6fac148, 0xce239f3b88a894b8, 0x234c00d1dc1d53be}},
        {64,
         123,
         CZ_FC_API_V1_1_0,
         {0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
        {128,
         123,
         CZ_FC_API_V1_1_0,
         {0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t porep_id[32], replica_id[32], want[32];
        memset(porep_id, cases[i].porep_byte, 32);
        memset(replica_id, 9, 32);
        for (int w = 0; w < 4; w++)
            for (int b = 0; b < 8; b++) want[8 * w + b] = (uint8_t)(cases[i].limbs[w] >> (8 * b));
        cz_fc_graph g;
        CHECK(cz_fc_graph_init(&g, cases[i].nodes, porep_id, cases[i].api, NULL) == CZ_OK);
        cz_c1_dom *labels = malloc(sizeof(cz_c1_dom) * 11 * cases[i].nodes);
        CHECK(cz_fc_sdr_labels(labels, &g, replica_id, 11, NULL) == CZ_OK);
        CHECK(memcmp(labels[11 * cases[i].nodes - 1], want, 32) == 0);
        free(labels);
    }
}

static const char *comm_d_2k = "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833";
static const char *comm_d_8m = "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c";
static const char *comm_d_32g = "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e";
static const char *comm_d_64g = "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02";

static void test_2k_whole(uint32_t id, uint8_t **raw_keep, size_t *raw_len) {
    cz_c1 c1;
    char what[32];
    snprintf(what, sizeof what, "2KiB id %u", id);
    CHECK(gen(&c1, id, 0, 42 + id) == CZ_OK);
    if (c1.n_challenges == 0) return;
    CHECK(c1.registered_proof == id);
    CHECK(c1.n_challenges == 2);
    CHECK(verify_ok(&c1, what));
    cz_error err = {0};
    CHECK(cz_c1_check_shape(&c1, &err) == CZ_OK);
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_OK);
    check_labels_independently(&c1);
    /* the proven nodes are the derived challenges */
    uint64_t chal[2];
    CHECK(cz_fc_porep_challenges(chal, &c1, 0, &err) == CZ_OK);
    CHECK(c1.challenges[0].c_x.index == chal[0] && c1.challenges[1].c_x.index == chal[1]);
    round_trip(&c1, what, raw_keep, raw_len);
    cz_c1_free(&c1);
}

/* JSON as serde_json writes it: compact, fields in declaration order. */
static void test_json_text(const uint8_t *raw, size_t len) {
    const char *head = "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{"
                       "\"StackedDrg2KiBV1\":[[{\"comm_d_proofs\":{\"data\":{\"Single\":{"
                       "\"root\":[";
    CHECK(len > strlen(head) && memcmp(raw, head, strlen(head)) == 0);
    char *s = malloc(len + 1);
    memcpy(s, raw, len);
    s[len] = 0;
    CHECK(strstr(s, "],\"leaf\":[") != NULL);
    CHECK(strstr(s, "}]}}}},\"comm_r_last_proof\":{\"data\":{\"Single\":{\"root\":[") != NULL);
    CHECK(strstr(s, "\"replica_column_proofs\":{\"c_x\":{\"column\":{\"index\":") != NULL);
    CHECK(strstr(s, "]],\"_h\":null},\"inclusion_proof\":{\"data\":{\"Single\":") != NULL);
    CHECK(strstr(s, "],\"index\":") != NULL);
    CHECK(strstr(s, ",\"layer_index\":1,\"node\":") != NULL);
    CHECK(strstr(s, ",\"layer_index\":2,\"node\":") != NULL);
    CHECK(strstr(s, "\"encoding_proof\":{\"parents\":[[") != NULL);
    CHECK(strstr(s, "]]},\"comm_r\":[") != NULL);
    CHECK(strstr(s, "],\"comm_d\":[") && strstr(s, "],\"replica_id\":[") &&
          strstr(s, "],\"seed\":[") && strstr(s, "],\"ticket\":["));
    CHECK(strchr(s, ' ') == NULL && strchr(s, '\n') == NULL);
    CHECK(s[len - 1] == '}' && s[len - 2] == ']');
    free(s);
}

typedef enum {
    T_COMM_R,
    T_COMM_D,
    T_COMM_D_NO_PROVER,
    T_REPLICA_ID,
    T_SEED,
    T_LABEL_ROW,
    T_SIBLING,
    T_PARENT_COLUMN,
    T_LABELING_PARENT,
    T_LAYER_INDEX,
    T_ENCODING_NODE
} tamper;

static void test_tamper(const uint8_t *raw, size_t len) {
    static const struct {
        tamper t;
        const char *expect;
    } cases[] = {
        {T_COMM_R, "comm_r differs from Poseidon2(comm_c, comm_r_last)"},
        {T_COMM_D, "replica_id does not match"},
        {T_COMM_D_NO_PROVER, "comm_d_proofs: root differs from the expected comm_d"},
        {T_REPLICA_ID, "replica_id does not match"},
        {T_SEED, "comm_d_proofs: path leads to leaf"},
        {T_LABEL_ROW, "c_x: column hash differs from the inclusion proof's leaf"},
        {T_SIBLING, "comm_r_last_proof: path does not hash to its root"},
        {T_PARENT_COLUMN, "drg_parents[2]: column hash differs"},
        {T_LABELING_PARENT, "labeling_proofs[0]: parents[3] differs from the parent columns"},
        {T_LAYER_INDEX, "labeling_proofs[1]: layer_index 1, expected 2"},
        {T_ENCODING_NODE, "encoding_proof: node"},
    };
    uint8_t prover_id[32];
    cz_fc_prover_id(prover_id, miner_id);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cz_c1 c1;
        cz_error err = {0};
        CHECK(cz_c1_parse(&c1, raw, len, &err) == CZ_OK);
        if (c1.n_challenges == 0) return;
        cz_c1_challenge *ch = &c1.challenges[1]; /* the second challenge */
        const uint8_t *pid = prover_id;
        switch (cases[i].t) {
        case T_COMM_R: c1.comm_r[0] ^= 1; break;
        case T_COMM_D: c1.comm_d[0] ^= 1; break;
        case T_COMM_D_NO_PROVER:
            c1.comm_d[0] ^= 1;
            pid = NULL;
            break;
        case T_REPLICA_ID: c1.replica_id[0] ^= 1; break;
        case T_SEED: c1.seed[0] ^= 1; break;
        case T_LABEL_ROW: c1.doms[ch->c_x.rows.first + 1][0] ^= 1; break;
        case T_SIBLING:
            c1.doms[c1.path_elems[ch->comm_r_last_proof.base.first].hashes.first][5] ^= 4;
            break;
        case T_PARENT_COLUMN: c1.doms[ch->drg_parents[2].rows.first][0] ^= 1; break;
        case T_LABELING_PARENT:
            c1.doms[c1.labeling[ch->labeling.first].parents.first + 3][0] ^= 1;
            break;
        case T_LAYER_INDEX: c1.labeling[ch->labeling.first + 1].layer_index = 1; break;
        case T_ENCODING_NODE: ch->encoding.node ^= 1; break;
        }
        cz_status st = cz_fc_vanilla_verify(&c1, pid, sector_num, &err);
        CHECK(st == CZ_E_INVALID_ARG);
        int named = strstr(err.message, cases[i].expect) != NULL;
        if (!named) printf("  tamper %zu: unexpected message: %s\n", i, err.message);
        CHECK(named);
        if (cases[i].t != T_COMM_D && cases[i].t != T_REPLICA_ID && cases[i].t != T_COMM_R)
            CHECK(strstr(err.message, "vanilla: partition 0 challenge") != NULL);
        cz_c1_free(&c1);
    }
}

static void test_sparse(uint32_t id, const char *comm_d_hex, int json) {
    cz_c1 c1;
    char what[40];
    snprintf(what, sizeof what, "sparse id %u", id);
    CHECK(gen(&c1, id, 1, 9) == CZ_OK);
    if (c1.n_challenges == 0) return;
    CHECK(verify_ok(&c1, what));
    cz_error err = {0};
    CHECK(cz_c1_check_shape(&c1, &err) == CZ_OK);
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_OK);
    check_sparse_semantics(&c1, comm_d_hex);
    if (c1.layers == 2) check_labels_independently(&c1);
    if (json) round_trip(&c1, what, NULL, NULL);
    cz_c1_free(&c1);
}

/* The first max_partitions partitions (0: all) of a generated C1 satisfy
 * the circuit (or, tampered, do not). */
static void check_circuit(uint32_t id, int sparse, int tampered, uint32_t max_partitions) {
    cz_c1 c1;
    CHECK(gen(&c1, id, sparse, 11) == CZ_OK);
    if (c1.n_challenges == 0) return;
    if (tampered) c1.doms[c1.challenges[1].exp_parents[4].rows.first][0] ^= 1;
    cz_porep_geometry g;
    cz_error err = {0};
    CHECK(cz_porep_geometry_of_c1(&g, &c1, &err) == CZ_OK);
    uint32_t partitions =
        max_partitions && max_partitions < c1.partitions ? max_partitions : c1.partitions;
    for (uint32_t k = 0; k < partitions; k++) {
        cz_cs *cs = cz_cs_check_new();
        CHECK(cs != NULL);
        if (!cs) break;
        cz_status st = cz_porep_synthesize(cs, &g, &c1, k, &err);
        cz_check_result r;
        cz_cs_check_result(cs, &r);
        CHECK(st == CZ_OK);
        CHECK(r.satisfied == !tampered);
        if (r.satisfied == tampered)
            printf("  circuit id %u sparse %d partition %u: satisfied %d (constraint %llu)\n", id,
                   sparse, k, r.satisfied, (unsigned long long)r.first_failure);
        CHECK(cs->num_inputs == cz_porep_num_inputs(&g));
        cz_cs_destroy(cs);
    }
    cz_c1_free(&c1);
}

static void test_synthetic_sparse_refused(void) {
    cz_c1 c1;
    cz_fc_gen_opts opts = {13, 1, miner_id, sector_num, 1, NULL};
    cz_error err = {0};
    CHECK(cz_fc_gen_c1(&c1, &opts, &err) == CZ_E_UNSUPPORTED);
    CHECK(strstr(err.message, "synthetic PoRep cannot use a sparse sector") != NULL);
    opts.registered_proof = 10; /* also refused at 2 KiB when sparse is asked for */
    CHECK(cz_fc_gen_c1(&c1, &opts, &err) == CZ_E_UNSUPPORTED);
    opts.registered_proof = 8; /* a whole 32 GiB seal is refused, not attempted */
    opts.sparse = 0;
    CHECK(cz_fc_gen_c1(&c1, &opts, &err) == CZ_E_UNSUPPORTED);
}

int main(void) {
    cz_test_init("filecoin_vanilla");
    test_prover_id();
    test_label_primitive();
    test_rust_label_vectors();
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    test_2k_whole(0, NULL, NULL);
    test_2k_whole(5, &raw, &raw_len);
    test_2k_whole(10, NULL, NULL);
    if (raw) {
        test_json_text(raw, raw_len);
        test_tamper(raw, raw_len);
    }
    free(raw);
    test_sparse(5, comm_d_2k, 1);
    test_sparse(6, comm_d_8m, 1);
    test_synthetic_sparse_refused();
    check_circuit(0, 0, 0, 0);
    check_circuit(5, 0, 0, 0);
    check_circuit(10, 0, 0, 0);
    check_circuit(6, 1, 0, 0);
    check_circuit(5, 0, 1, 0);
    const char *slow = getenv("CZ_SLOW_TESTS");
    if (slow && !strcmp(slow, "1")) {
        printf("  CZ_SLOW_TESTS=1: 32 GiB and 64 GiB sparse, 8 MiB whole, 32 GiB partition 0 "
               "through the circuit\n");
        test_sparse(8, comm_d_32g, 1);
        check_circuit(8, 1, 0, 1); /* 130 M constraints on the check back-end: ~1 min, 4 GB */
        test_sparse(9, comm_d_64g, 1);
        cz_c1 c1;
        CHECK(gen(&c1, 6, 0, 3) == CZ_OK);
        CHECK(verify_ok(&c1, "8MiB whole"));
        check_labels_independently(&c1);
        cz_c1_free(&c1);
    }
    return cz_test_finish("filecoin_vanilla");
}
