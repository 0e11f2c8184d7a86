/* SnapDeals vanilla side:
 *  - challenges: the 24 hard-coded vectors of rust-fil-proofs'
 *    challenges.rs and whole partitions, P2c (phi / rho) values, all from
 *    tests/vectors/snap_vectors.txt (tests/oracle/gen_snap.py: the
 *    independent reference model);
 *  - generated updates of every published size and the test shapes: every
 *    partition passes the vanilla verifier, encodes to cz_snap_encoded_size and
 *    decodes back byte for byte; at small sizes the circuit is satisfied
 *    (check back-end) and its public inputs are the verifier's;
 *  - tampering (a leaf, a sibling, an apex leaf, the commitments, another
 *    partition) is refused by the verifier and, for the witness, by the
 *    check back-end;
 *  - the decoder refuses every truncation, a wrong variant, index, length,
 *    a non-canonical domain and trailing bytes, naming field and offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_circuit.h"
#include "harness/harness.h"
#include "r1cs/backends.h"

static cz_fr comm_r_new_vector;

static void test_vectors(void) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, "snap_vectors.txt"));
    unsigned n_first = 0, n_all = 0, n_p2c = 0;
    while (cz_vector_next(&vf)) {
        const char *kind = vf.fields[0];
        if (!strcmp(kind, "comm_r_new")) {
            uint8_t b[32];
            CHECK(cz_vector_hex(&vf, 1, b, 32));
            CHECK(cz_fr_from_bytes_le(&comm_r_new_vector, b));
        } else if (!strcmp(kind, "challenges") || !strcmp(kind, "all_challenges")) {
            uint64_t nodes = strtoull(vf.fields[1], NULL, 10);
            uint32_t k = (uint32_t)strtoul(vf.fields[2], NULL, 10);
            /* any valid tree shape (8-0-0, 8-2-0 or 8-4-0): challenges do
             * not depend on it */
            unsigned lg = 0;
            while (((uint64_t)1 << lg) < nodes) lg++;
            cz_snap_config cfg;
            cz_error err = {0};
            CHECK(cz_snap_config_make(&cfg, nodes, 8, lg % 3 ? 2u << (lg % 3 - 1) : 0, 0, &err) ==
                  CZ_OK);
            uint64_t ch[86];
            CHECK(cz_snap_challenges(ch, &cfg, &comm_r_new_vector, k, &err) == CZ_OK);
            int want = vf.nfields - 3;
            CHECK(want <= (int)cfg.challenges);
            if (kind[0] == 'a')
                CHECK(want == (int)cfg.challenges), n_all++;
            else
                n_first++;
            for (int i = 0; i < want; i++) {
                uint64_t w = strtoull(vf.fields[3 + i], NULL, 10);
                if (ch[i] != w)
                    printf("  line %lu: challenge %d is %llu, want %llu\n", vf.lineno, i,
                           (unsigned long long)ch[i], (unsigned long long)w);
                CHECK(ch[i] == w);
                CHECK(ch[i] >> cfg.random_bits == k);
            }
        } else if (!strcmp(kind, "p2c")) {
            uint8_t b[3][32];
            cz_fr x, y, got, want;
            CHECK(cz_vector_hex(&vf, 1, b[0], 32) && cz_vector_hex(&vf, 2, b[1], 32) &&
                  cz_vector_hex(&vf, 3, b[2], 32));
            CHECK(cz_fr_from_bytes_le(&x, b[0]) && cz_fr_from_bytes_le(&y, b[1]) &&
                  cz_fr_from_bytes_le(&want, b[2]));
            CHECK(cz_snap_hash_gen(&got, &x, &y) == CZ_OK && cz_fr_equal(&got, &want));
            CHECK(cz_snap_phi(&got, &x, &y) == CZ_OK && cz_fr_equal(&got, &want));
            uint64_t limbs[4];
            cz_fr_to_limbs(limbs, &y);
            if (!limbs[1] && !limbs[2] && !limbs[3])
                CHECK(cz_snap_rho(&got, &x, limbs[0]) == CZ_OK && cz_fr_equal(&got, &want));
            n_p2c++;
        }
    }
    cz_vector_close(&vf);
    printf("vectors: %u first-5 challenge cases, %u whole partitions, %u P2c\n", n_first, n_all,
           n_p2c);
    CHECK(n_first == 24 && n_all == 4 && n_p2c == 7);
}

static void gen_opts(cz_snap_gen_opts *o, uint64_t seed) {
    cz_fr_from_u64(&o->comm_c, 1000 + seed);
    cz_fr_from_u64(&o->key_leaf, 77 + seed);
    cz_fr_from_u64(&o->data_leaf, 0x1234567 + seed);
}

/* The circuit of partition k on the check back-end; returns satisfied and
 * checks the inputs against the verifier's. */
static int circuit_satisfied(const cz_snap_config *cfg, uint32_t k, const cz_snap_comms *comms,
                             const cz_snap_partition_proof *p) {
    cz_error err = {0};
    cz_cs *cs = cz_cs_check_new();
    CHECK(cz_snap_synthesize(cs, cfg, k, comms, p, NULL, NULL, &err) == CZ_OK);
    cz_check_result res;
    cz_cs_check_result(cs, &res);
    cz_cs_destroy(cs);
    cs = cz_cs_witness_new();
    CHECK(cz_snap_synthesize(cs, cfg, k, comms, p, NULL, NULL, &err) == CZ_OK);
    cz_fr *in = NULL, *aux = NULL, pub[CZ_SNAP_PUBLIC_INPUTS];
    uint32_t ni = 0, na = 0;
    CHECK(cz_witness_finish(cs, &in, &ni, &aux, &na, &err) == CZ_OK);
    CHECK(cz_snap_public_inputs(pub, cfg, comms, k, &err) == CZ_OK);
    CHECK(ni == 1 + CZ_SNAP_PUBLIC_INPUTS);
    for (uint32_t i = 0; in && i < CZ_SNAP_PUBLIC_INPUTS; i++)
        CHECK(cz_fr_equal(&in[1 + i], &pub[i]));
    free(in), free(aux);
    cz_cs_destroy(cs);
    return res.satisfied;
}

static void roundtrip(const cz_snap_config *cfg, const cz_snap_partition_proof *p) {
    cz_error err = {0};
    uint8_t *b = NULL, *b2 = NULL;
    size_t len = 0, len2 = 0;
    CHECK(cz_snap_encode(&b, &len, cfg, p, &err) == CZ_OK);
    CHECK(len == cz_snap_encoded_size(cfg));
    cz_snap_partition_proof q;
    CHECK(cz_snap_decode(&q, cfg, b, len, &err) == CZ_OK);
    CHECK(cz_snap_encode(&b2, &len2, cfg, &q, &err) == CZ_OK);
    CHECK(len2 == len && b2 && !memcmp(b, b2, len));
    cz_snap_proof_free(&q);
    free(b), free(b2);
}

static void test_generated(void) {
    static const struct {
        const char *name;
        uint64_t nodes;
        unsigned base, sub, top;
        int circuit; /* check the circuit on every partition */
    } cases[] = {
        {"1 KiB 8-4-0", 32, 8, 4, 0, 1},
        {"2 KiB 8-0-0", 64, 8, 0, 0, 1},
        {"4 KiB 8-2-0", 128, 8, 2, 0, 1},
        {"32 KiB 8-8-2", 1024, 8, 8, 2, 1},
        {"8 MiB 8-0-0", UINT64_C(1) << 18, 8, 0, 0, 0},
        {"512 MiB 8-0-0", UINT64_C(1) << 24, 8, 0, 0, 0},
        {"32 GiB 8-8-0", UINT64_C(1) << 30, 8, 8, 0, 0},
        {"64 GiB 8-8-2", UINT64_C(1) << 31, 8, 8, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cz_snap_config cfg;
        cz_error err = {0};
        CHECK(cz_snap_config_make(&cfg, cases[i].nodes, cases[i].base, cases[i].sub, cases[i].top,
                                  &err) == CZ_OK);
        cz_snap_gen_opts o;
        gen_opts(&o, i);
        cz_snap_partition_proof p[16];
        cz_snap_comms comms;
        cz_status st = cz_snap_gen(p, &comms, &cfg, &o, &err);
        CHECK(st == CZ_OK);
        if (st != CZ_OK) {
            printf("  %s: %s\n", cases[i].name, err.message);
            continue;
        }
        unsigned verified = 0, satisfied = 0;
        for (uint32_t k = 0; k < cfg.partitions; k++) {
            st = cz_snap_vanilla_verify(&cfg, &comms, k, &p[k], &err);
            if (st != CZ_OK) printf("  %s partition %u: %s\n", cases[i].name, k, err.message);
            verified += st == CZ_OK;
            if (k == 0 || k + 1 == cfg.partitions) roundtrip(&cfg, &p[k]);
            if (cases[i].circuit) satisfied += circuit_satisfied(&cfg, k, &comms, &p[k]);
        }
        CHECK(verified == cfg.partitions);
        if (cases[i].circuit) CHECK(satisfied == cfg.partitions);
        /* another partition's proof */
        if (cfg.partitions > 1)
            CHECK(cz_snap_vanilla_verify(&cfg, &comms, 1, &p[0], &err) != CZ_OK);
        printf("  %-16s %u partitions verified%s\n", cases[i].name, verified,
               cases[i].circuit ? ", circuit satisfied" : "");
        for (uint32_t k = 0; k < cfg.partitions; k++) cz_snap_proof_free(&p[k]);
    }
}

/* One tampered field: the verifier refuses with `needle` in the message and
 * the circuit is not satisfied (satisfiable: leaf_r_new, which the circuit
 * computes instead of reading: rust-fil-proofs only asserts it). */
static void expect_refused(const cz_snap_config *cfg, const cz_snap_comms *comms,
                           const cz_snap_partition_proof *p, const char *what, const char *needle,
                           int satisfiable) {
    cz_error err = {0};
    cz_status st = cz_snap_vanilla_verify(cfg, comms, 0, p, &err);
    printf("  %-22s -> %s\n", what, st == CZ_OK ? "accepted" : err.message);
    CHECK(st == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, needle) != NULL);
    CHECK(circuit_satisfied(cfg, 0, comms, p) == satisfiable);
}

static void test_tampering(void) {
    cz_snap_config cfg;
    cz_error err = {0};
    CHECK(cz_snap_config_from_sector(&cfg, 2048, &err) == CZ_OK);
    cz_snap_gen_opts o;
    gen_opts(&o, 3);
    cz_snap_partition_proof p;
    cz_snap_comms comms, bad;
    CHECK(cz_snap_gen(&p, &comms, &cfg, &o, &err) == CZ_OK);
    printf("tampering (2 KiB)\n");
    cz_fr one = cz_fr_one, save;
    save = p.ch[4].r_new.leaf;
    cz_fr_add(&p.ch[4].r_new.leaf, &save, &one);
    expect_refused(&cfg, &comms, &p, "leaf_r_new", "challenge_proofs[4].proof_r_new", 1);
    p.ch[4].r_new.leaf = save;
    save = p.ch[2].d_new.leaf;
    cz_fr_add(&p.ch[2].d_new.leaf, &save, &one);
    expect_refused(&cfg, &comms, &p, "leaf_d_new", "challenge_proofs[2].proof_d_new", 0);
    p.ch[2].d_new.leaf = save;
    save = p.ch[7].r_old.siblings[3];
    cz_fr_add(&p.ch[7].r_old.siblings[3], &save, &one);
    expect_refused(&cfg, &comms, &p, "tree R old sibling", "challenge_proofs[7].proof_r_old", 0);
    p.ch[7].r_old.siblings[3] = save;
    save = p.apex_leaves[5];
    cz_fr_add(&p.apex_leaves[5], &save, &one);
    expect_refused(&cfg, &comms, &p, "apex leaf", "apex", 0);
    p.apex_leaves[5] = save;
    bad = comms;
    cz_fr_add(&bad.comm_r_old, &bad.comm_r_old, &one);
    expect_refused(&cfg, &bad, &p, "comm_r_old", "comm_r_old", 0);
    bad = comms;
    cz_fr_add(&bad.comm_d_new, &bad.comm_d_new, &one);
    expect_refused(&cfg, &bad, &p, "comm_d_new", "comm_d_new", 0);
    bad = comms;
    cz_fr_add(&bad.comm_r_new, &bad.comm_r_new, &one);
    expect_refused(&cfg, &bad, &p, "comm_r_new", "comm_r_new", 0);
    /* a path index field that disagrees with the challenge */
    p.ch[1].r_old.index ^= 1;
    CHECK(cz_snap_vanilla_verify(&cfg, &comms, 0, &p, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "challenge_proofs[1].proof_r_old proves node") != NULL);
    p.ch[1].r_old.index ^= 1;
    CHECK(cz_snap_vanilla_verify(&cfg, &comms, 0, &p, &err) == CZ_OK);
    /* the commitments' bytes */
    uint8_t b[33] = {0};
    CHECK(cz_snap_comms_from_bytes(&bad, b, 31, b, 32, b, 32, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "comm_r_old: 31 bytes, expected 32") != NULL);
    b[31] = 0xff;
    CHECK(cz_snap_comms_from_bytes(&bad, b + 1, 32, b + 1, 32, b, 32, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "comm_r_new is not a canonical field element") != NULL);
    cz_snap_proof_free(&p);
}

static void expect_parse(const cz_snap_config *cfg, const uint8_t *b, size_t len,
                         const char *needle) {
    cz_snap_partition_proof q;
    cz_error err = {0};
    cz_status st = cz_snap_decode(&q, cfg, b, len, &err);
    CHECK(st == CZ_E_PARSE);
    if (st == CZ_OK) cz_snap_proof_free(&q);
    if (!strstr(err.message, needle)) printf("  got '%s', want '%s'\n", err.message, needle);
    CHECK(strstr(err.message, needle) != NULL);
}

static void test_decoder(void) {
    cz_snap_config cfg;
    cz_error err = {0};
    CHECK(cz_snap_config_make(&cfg, 32, 8, 4, 0, &err) == CZ_OK); /* Sub proofs */
    cz_snap_gen_opts o;
    gen_opts(&o, 9);
    cz_snap_partition_proof p[1];
    cz_snap_comms comms;
    CHECK(cz_snap_gen(p, &comms, &cfg, &o, &err) == CZ_OK);
    uint8_t *b = NULL;
    size_t len = 0;
    CHECK(cz_snap_encode(&b, &len, &cfg, &p[0], &err) == CZ_OK);
    unsigned refused = 0;
    for (size_t n = 0; n < len; n++) {
        cz_snap_partition_proof q;
        cz_status st = cz_snap_decode(&q, &cfg, b, n, &err);
        refused += st == CZ_E_PARSE && strstr(err.message, " at byte ") != NULL;
        if (st == CZ_OK) cz_snap_proof_free(&q);
    }
    printf("decoder: %u of %zu truncations refused with an offset\n", refused, len);
    CHECK(refused == len);
    uint8_t *t = malloc(len + 1);
    memcpy(t, b, len);
    t[len] = 0;
    expect_parse(&cfg, t, len + 1, "PartitionProof");
    /* apex_leafs length (byte 32) */
    t[32] = 7;
    expect_parse(&cfg, t, len, "partition_proof.apex_leafs (length) at byte 32");
    t[32] = b[32];
    /* first apex leaf not canonical */
    memset(t + 40, 0xff, 32);
    expect_parse(&cfg, t, len, "partition_proof.apex_leafs[0] at byte 40");
    memcpy(t + 40, b + 40, 32);
    /* challenge 0's proof_r_old variant (byte 32 + 8 + 256 + 8 = 304) */
    t[304] = 0;
    expect_parse(&cfg, t, len, "challenge_proofs[0].proof_r_old (MerkleProof variant) at byte 304");
    t[304] = b[304];
    /* its first path element's index: tag 4, base path length 8, hashes
     * length 8, 7 hashes */
    size_t at = 304 + 4 + 8 + 8 + 7 * 32;
    t[at] = 8;
    expect_parse(&cfg, t, len, "challenge_proofs[0].proof_r_old.base_proof[0].index");
    t[at] = b[at];
    /* challenge 0's proof_d_new must be Single (tree D has no sub level) */
    size_t d_at = 304 + cz_fc_merkle_size(&cfg.tree_r);
    t[d_at] = 1;
    expect_parse(&cfg, t, len, "challenge_proofs[0].proof_d_new (MerkleProof variant)");
    t[d_at] = b[d_at];
    cz_snap_partition_proof q;
    CHECK(cz_snap_decode(&q, &cfg, t, len, &err) == CZ_OK);
    CHECK(cz_snap_vanilla_verify(&cfg, &comms, 0, &q, &err) == CZ_OK);
    cz_snap_proof_free(&q);
    free(t), free(b);
    cz_snap_proof_free(&p[0]);
}

int main(void) {
    cz_test_init("filecoin/snap_vanilla");
    test_vectors();
    test_generated();
    test_tampering();
    test_decoder();
    return cz_test_finish("filecoin/snap_vanilla");
}
