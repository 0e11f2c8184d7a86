/* The fallback PoSt vanilla side:
 *  - the real 32 GiB WindowPoSt vanilla proof of Curio's testgolden
 *    (../shared/realdata, skipped when absent): decodes, re-encodes to the
 *    same bytes, verifies (ids 8 and 13), its inclusion proofs prove the
 *    challenges the independent model prints (tests/vectors/post_golden.txt),
 *    comm_r is the SealedCID's digest, the public inputs pad with the last
 *    sector, and one slot of the real circuit is satisfied by it;
 *  - decoder errors name the field and the byte offset: every truncation,
 *    wrong variant for another sector size, an index past the arity, a
 *    non-canonical domain, wrong counts, trailing bytes;
 *  - verifier errors: tampered siblings, leaves, roots, comm_c, sector id,
 *    randomness, order of sectors, counts;
 *  - known values: Poseidon2(0, 0), the zero-leaf 32 GiB tree root;
 *  - generated proofs of every kind and size pass the verifier, round-trip
 *    through bincode, satisfy the circuit's check back-end at the small
 *    sizes (and one-slot 32 / 64 GiB configurations), give the public inputs
 *    of the verifier's derivation, and the parallel witness equals the
 *    sequential one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/derive.h"
#include "filecoin/post/post.h"
#include "filecoin/post/post_circuit.h"
#include "harness/harness.h"
#include "hash/poseidon.h"
#include "r1cs/backends.h"

#define GIB (UINT64_C(1) << 30)

static void fr_of_hex(cz_fr *out, const char *hex) {
    uint8_t b[32];
    CHECK(cz_test_from_hex(b, hex, 32));
    CHECK(cz_fr_from_bytes_le(out, b));
}

static void proofs_free(cz_post_sector_proof *p, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) cz_post_sector_proof_free(&p[i]);
    free(p);
}

/* Check back-end on the circuit of cfg with these proofs: satisfied? */
static int satisfied(const cz_post_config *cfg, const cz_post_sector_proof *p, uint32_t n,
                     int expect) {
    cz_error err = {0};
    cz_cs *cs = cz_cs_check_new();
    cz_status st = cz_post_synthesize(cs, cfg, p, n, NULL, NULL, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) printf("  synthesis: %s\n", err.message);
    cz_check_result r;
    cz_cs_check_result(cs, &r);
    if (!r.satisfied && expect)
        printf("  first unsatisfied constraint %llu\n", (unsigned long long)r.first_failure);
    cz_cs_destroy(cs);
    return st == CZ_OK && r.satisfied;
}
#define circuit_satisfied(cfg, p, n)   satisfied(cfg, p, n, 1)
#define circuit_unsatisfied(cfg, p, n) (!satisfied(cfg, p, n, 0))

/* The circuit's public inputs (sequential witness back-end) equal the
 * verifier's derivation; the parallel witness equals the sequential one. */
static void check_inputs_and_witness(const cz_post_config *cfg, cz_fc_api_version api,
                                     const uint8_t r[32], uint32_t partition,
                                     const cz_post_sector_proof *p, uint32_t n) {
    cz_error err = {0};
    cz_cs *cs = cz_cs_witness_new();
    CHECK(cz_post_synthesize(cs, cfg, p, n, NULL, NULL, &err) == CZ_OK);
    cz_fr *inputs = NULL, *aux = NULL;
    uint32_t ni = 0, na = 0;
    CHECK(cz_witness_finish(cs, &inputs, &ni, &aux, &na, &err) == CZ_OK);
    cz_cs_destroy(cs);
    CHECK(ni == cz_post_num_inputs(cfg));
    if (!inputs || ni != cz_post_num_inputs(cfg)) return;
    uint64_t ids[8];
    cz_fr comm_rs[8];
    for (uint32_t i = 0; i < n && i < 8; i++) ids[i] = p[i].sector_id, comm_rs[i] = p[i].comm_r;
    cz_fr *expect = malloc(sizeof *expect * ni);
    CHECK(cz_post_public_inputs(expect, cfg, api, r, partition, ids, comm_rs, n, &err) == CZ_OK);
    CHECK(cz_fr_is_one(&inputs[0]));
    CHECK(!memcmp(expect, inputs + 1, sizeof *expect * (ni - 1)));
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        cz_witness w = {0};
        CHECK(cz_post_synthesize_witness(&w, cfg, p, n, threads, &err) == CZ_OK);
        CHECK(w.num_inputs == ni && w.num_aux == na);
        CHECK(!memcmp(w.input, inputs, sizeof *inputs * ni));
        CHECK(!memcmp(w.aux, aux, sizeof *aux * na));
        cz_witness_free(&w);
    }
    free(expect);
    free(inputs);
    free(aux);
}

/* ------------------------------------------------------------ golden */

static uint8_t *read_golden(size_t *len) {
    const char *dir = getenv("CZ_REALDATA_DIR");
    char path[1024];
    if (dir)
        snprintf(path, sizeof path, "%s/curio-testgolden/post.vproof", dir);
    else
        snprintf(path, sizeof path, "%s/../../../shared/realdata/curio-testgolden/post.vproof",
                 CZ_VECTOR_DIR);
    uint8_t *b = cz_test_read_file(path, len);
    if (!b) printf("golden vanilla proof: skipped: %s is absent\n", path);
    return b;
}

/* Decoding bytes that must fail with CZ_E_PARSE and a message containing
 * every one of the given pieces. */
static void expect_parse_error(const cz_post_config *cfg, const uint8_t *b, size_t len,
                               const char *piece1, const char *piece2) {
    cz_post_sector_proof p;
    cz_error err = {0};
    cz_status st = cz_post_decode(&p, cfg, b, len, &err);
    CHECK(st == CZ_E_PARSE);
    int ok = (!piece1 || strstr(err.message, piece1)) && (!piece2 || strstr(err.message, piece2));
    if (!ok) printf("  message: %s (want '%s', '%s')\n", err.message, piece1, piece2 ? piece2 : "");
    CHECK(ok);
    if (st == CZ_OK) cz_post_sector_proof_free(&p);
}

static void test_golden(void) {
    size_t len;
    uint8_t *b = read_golden(&len);
    if (!b) return;
    printf("golden 32 GiB WindowPoSt vanilla proof (%zu bytes)\n", len);
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, "post_golden.txt"));
    CHECK(cz_vector_next(&vf) && vf.nfields == 14);
    uint64_t sector_id = strtoull(vf.fields[0], NULL, 10), nodes = strtoull(vf.fields[3], NULL, 10),
             ch[10];
    uint8_t r[32], comm_r[32];
    CHECK(cz_vector_hex(&vf, 1, r, 32) && cz_vector_hex(&vf, 2, comm_r, 32));
    for (int i = 0; i < 10; i++) ch[i] = strtoull(vf.fields[4 + i], NULL, 10);
    cz_vector_close(&vf);

    cz_post_config cfg;
    cz_error err = {0};
    CHECK(cz_post_config_from_sector(&cfg, CZ_POST_WINDOW, 32 * GIB, &err) == CZ_OK);
    CHECK(cfg.nodes == nodes);
    CHECK(len == cz_post_encoded_size(&cfg) && len == 24960);
    cz_post_sector_proof p;
    CHECK(cz_post_decode(&p, &cfg, b, len, &err) == CZ_OK);
    CHECK(p.sector_id == sector_id && p.n_inclusions == 10);
    uint8_t got[32];
    cz_fr_to_bytes_le(got, &p.comm_r);
    CHECK(!memcmp(got, comm_r, 32));
    for (int i = 0; i < 10; i++) {
        CHECK(p.inclusions[i].index == ch[i]);
        CHECK(cz_fr_equal(&p.inclusions[i].root, &p.comm_r_last));
    }
    /* the challenges, derived (V1 = id 8, V1_1 = id 13: the same at position 0) */
    uint64_t derived[10];
    cz_post_sector_challenges(derived, &cfg, CZ_FC_API_V1_0_0, r, 0, 0, sector_id);
    CHECK(!memcmp(derived, ch, sizeof ch));
    cz_post_sector_challenges(derived, &cfg, CZ_FC_API_V1_2_0, r, 0, 0, sector_id);
    CHECK(!memcmp(derived, ch, sizeof ch));
    printf("  challenges %llu, %llu, ... %llu: as the model prints\n",
           (unsigned long long)derived[0], (unsigned long long)derived[1],
           (unsigned long long)derived[9]);
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_0_0, r, 0, &p, 1, &err) == CZ_OK);
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_OK);
    /* V1 indexing of partition 1 challenges other leaves */
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_0_0, r, 1, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "vanilla_proofs[0] (sector 1): inclusion_proofs[0] proves leaf "
                              "707914199, the challenge is leaf") != NULL);
    /* ... while V1_1 does not depend on the partition */
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 1, &p, 1, &err) == CZ_OK);

    uint8_t *enc;
    size_t enc_len;
    CHECK(cz_post_encode(&enc, &enc_len, &cfg, &p, &err) == CZ_OK);
    CHECK(enc_len == len && !memcmp(enc, b, len));
    free(enc);

    /* public inputs: slot 0 = comm_r and the challenges, the 2348 padded slots repeat it */
    cz_fr *in = malloc(sizeof *in * (cz_post_num_inputs(&cfg) - 1));
    CHECK(cz_post_public_inputs(in, &cfg, CZ_FC_API_V1_2_0, r, 0, &p.sector_id, &p.comm_r, 1,
                                &err) == CZ_OK);
    CHECK(cz_fr_equal(&in[0], &p.comm_r));
    for (int i = 0; i < 10; i++) {
        cz_fr c;
        cz_fr_from_u64(&c, ch[i]);
        CHECK(cz_fr_equal(&in[1 + i], &c));
    }
    int same = 1;
    for (uint32_t s = 1; s < cfg.sector_count; s++)
        same &= !memcmp(&in[11 * s], in, 11 * sizeof *in);
    CHECK(same);
    free(in);

    /* one slot of the 32 GiB circuit on the real proof: satisfied; and
     * tampered: not */
    cz_post_config one;
    CHECK(cz_post_config_make(&one, CZ_POST_WINDOW, GIB, 8, 8, 0, 1, 10, &err) == CZ_OK);
    CHECK(circuit_satisfied(&one, &p, 1));
    check_inputs_and_witness(&one, CZ_FC_API_V1_2_0, r, 0, &p, 1);
    cz_fr keep = p.inclusions[4].siblings[30];
    cz_fr_add(&p.inclusions[4].siblings[30], &keep, &cz_fr_one);
    CHECK(circuit_unsatisfied(&one, &p, 1));
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "inclusion_proofs[4]: the path of leaf 1061661429 does not hash") !=
          NULL);
    /* with a later one broken too (the paths are checked on every core when
     * the sectors are fewer than the cores): the first is named */
    cz_fr keep_root = p.inclusions[7].root;
    cz_fr_add(&p.inclusions[7].root, &keep_root, &cz_fr_one);
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "inclusion_proofs[4]: the path of leaf 1061661429 does not hash") !=
          NULL);
    p.inclusions[7].root = keep_root;
    p.inclusions[4].siblings[30] = keep;

    /* verifier errors */
    uint8_t r2[32];
    memcpy(r2, r, 32);
    r2[0] = 1;
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r2, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "the challenge is leaf") != NULL);
    r2[0] = 0, r2[31] = 0x74; /* above r's top byte 0x73 */
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r2, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "randomness is not a canonical field element") != NULL);
    p.sector_id = 2;
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "(sector 2): inclusion_proofs[0] proves leaf 707914199") != NULL);
    p.sector_id = 1;
    cz_fr keep_c = p.comm_c;
    cz_fr_add(&p.comm_c, &keep_c, &cz_fr_one);
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "is not Poseidon2(comm_c, comm_r_last)") != NULL);
    CHECK(circuit_unsatisfied(&one, &p, 1));
    p.comm_c = keep_c;
    keep = p.inclusions[7].root;
    cz_fr_add(&p.inclusions[7].root, &keep, &cz_fr_one);
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "inclusion_proofs[7]: root differs from comm_r_last") != NULL);
    p.inclusions[7].root = keep;
    keep = p.inclusions[9].leaf;
    cz_fr_add(&p.inclusions[9].leaf, &keep, &cz_fr_one);
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(circuit_unsatisfied(&one, &p, 1));
    p.inclusions[9].leaf = keep;
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 1, &err) == CZ_OK);
    /* two proofs of one sector, and a WinningPoSt config */
    cz_post_sector_proof two[2] = {p, p};
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, two, 2, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "vanilla_proofs[1]: sector 1 after sector 1") != NULL);
    CHECK(cz_post_vanilla_verify(&cfg, CZ_FC_API_V1_2_0, r, 0, &p, 0, &err) == CZ_E_INVALID_ARG);

    /* decoder errors: another sector size, every truncation, bad fields */
    cz_post_config other;
    CHECK(cz_post_config_from_sector(&other, CZ_POST_WINDOW, 64 * GIB, &err) == CZ_OK);
    expect_parse_error(&other, b, len,
                       "vanilla_proof.sectors[0].inclusion_proofs[0] (MerkleProof variant) at byte "
                       "56: 1 (Sub); a 8-8-2 tree's proofs are 2 (Top)",
                       NULL);
    CHECK(cz_post_config_from_sector(&other, CZ_POST_WINDOW, 2048, &err) == CZ_OK);
    expect_parse_error(&other, b, len, "at byte 56: 1 (Sub)", "are 0 (Single)");
    CHECK(cz_post_config_from_sector(&other, CZ_POST_WINNING, 32 * GIB, &err) == CZ_OK);
    expect_parse_error(&other, b, len,
                       "vanilla_proof.sectors[0].inclusion_proofs (length) at byte 48: length "
                       "10, expected 66",
                       NULL);
    unsigned truncations = 0;
    for (size_t cut = 0; cut < len; cut += cut < 300 ? 1 : 97) {
        expect_parse_error(&cfg, b, cut, "truncated", "at byte");
        truncations++;
    }
    expect_parse_error(&cfg, b, len - 1, "vanilla_proof.sectors[0].comm_r_last at byte 24928",
                       "needs 32 bytes, 31 left");
    printf("  %u truncations refused with field and offset\n", truncations);
    uint8_t *m = malloc(len + 1);
    memcpy(m, b, len);
    m[len] = 0;
    expect_parse_error(&cfg, m, len + 1, "FallbackPoStSectorProof at byte 24960",
                       "1 trailing bytes");
    m[39] = 0xff; /* comm_r's byte 31 */
    expect_parse_error(&cfg, m, len, "comm_r at byte 8: not a canonical field element", NULL);
    m[39] = b[39];
    m[40] = 2; /* vanilla_proof.sectors length */
    expect_parse_error(&cfg, m, len,
                       "vanilla_proof.sectors (length) at byte 40: length 2, "
                       "expected 1",
                       NULL);
    m[40] = b[40];
    /* inclusion 0: tag at 56, base path length at 60, element 0: hashes
     * length at 68, 7 hashes, index at 300 */
    CHECK(m[300] == (707914199u & 7));
    m[300] = 8;
    expect_parse_error(&cfg, m, len,
                       "vanilla_proof.sectors[0].inclusion_proofs[0].base_proof[0].index at byte "
                       "300: 8 is not below the arity 8",
                       NULL);
    m[300] = b[300];
    m[68] = 6;
    expect_parse_error(&cfg, m, len,
                       "inclusion_proofs[0].base_proof[0].hashes at byte 68: length 6, expected 7",
                       NULL);
    m[68] = b[68];
    m[60] = 10;
    expect_parse_error(&cfg, m, len,
                       "inclusion_proofs[0].base_proof (path length) at byte 60: length 10, "
                       "expected 9",
                       NULL);
    m[60] = b[60];
    m[56 + 2484 + 3] = 1; /* inclusion 1's tag, high byte */
    expect_parse_error(&cfg, m, len, "inclusion_proofs[1] (MerkleProof variant) at byte 2540",
                       "16777217");
    free(m);
    cz_post_sector_proof_free(&p);
    free(b);
}

/* ------------------------------------------------------ known values */

static void test_known_values(void) {
    cz_fr zero[2] = {cz_fr_zero, cz_fr_zero}, h, want;
    CHECK(cz_poseidon_hash(&h, zero, 2) == CZ_OK);
    fr_of_hex(&want, "d413460e7f14e58b413d1defe188d36fb761afe5c6a733db6c6f1931130bfe48");
    CHECK(cz_fr_equal(&h, &want)); /* P2(0, 0), the reference model's value */
    cz_post_config cfg;
    cz_error err = {0};
    CHECK(cz_post_config_from_sector(&cfg, CZ_POST_WINDOW, 32 * GIB, &err) == CZ_OK);
    CHECK(cz_post_default_root(&h, &cfg, &cz_fr_zero) == CZ_OK);
    fr_of_hex(&want, "d5cd408ceb94566b8d39966d406ea4312018f98684ffe630ece1ea0cf3fe7d4d");
    CHECK(cz_fr_equal(&h, &want)); /* zero-leaf 32 GiB tree R (reference model) */
    /* one leaf index, its digest computed here by hand: SHA-256 of 32 zero
     * bytes || 1 LE || 0 LE, first 8 bytes LE, mod 2^30 (the golden's first) */
    CHECK(cz_post_leaf_challenge((const uint8_t[32]){0}, 1, 0, cfg.nodes) == 707914199);
    CHECK(cz_post_challenge_index(CZ_FC_API_V1_0_0, 7, 10, 3) == 73);
    CHECK(cz_post_challenge_index(CZ_FC_API_V1_2_0, 7, 10, 3) == 3);
}

/* --------------------------------------------------------- generated */

static void gen_case(uint32_t id, uint32_t sectors, uint32_t partition, int run_circuit) {
    cz_post_proof_info info;
    cz_post_config cfg;
    cz_error err = {0};
    CHECK(cz_post_proof_lookup(&info, id, &err) == CZ_OK);
    CHECK(cz_post_config_from_sector(&cfg, info.kind, info.sector_size, &err) == CZ_OK);
    cz_post_gen_opts o = {.registered_proof = id,
                          .sectors = sectors,
                          .seed = cz_test_rand64(),
                          .miner_id = 1000 + id,
                          .first_sector = 100,
                          .partition = partition};
    cz_post_sector_proof *p;
    uint32_t n, win;
    uint8_t r[32];
    cz_status st = cz_post_gen(&p, &n, &win, r, &o, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) {
        printf("  gen %s: %s\n", info.name, err.message);
        return;
    }
    CHECK(n == (info.kind == CZ_POST_WINNING ? 1 : sectors));
    if (info.kind == CZ_POST_WINNING) {
        uint8_t prover_id[32];
        cz_fc_prover_id(prover_id, o.miner_id);
        CHECK(win == cz_post_sector_challenge(prover_id, r, 0, sectors) &&
              p[0].sector_id == 100 + win);
    }
    st = cz_post_vanilla_verify(&cfg, info.api_version, r, partition, p, n, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) printf("  verify %s: %s\n", info.name, err.message);
    /* bincode round trip */
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *b, *b2;
        size_t len, len2;
        cz_post_sector_proof q;
        CHECK(cz_post_encode(&b, &len, &cfg, &p[i], &err) == CZ_OK);
        CHECK(cz_post_decode(&q, &cfg, b, len, &err) == CZ_OK);
        CHECK(cz_post_encode(&b2, &len2, &cfg, &q, &err) == CZ_OK);
        CHECK(len == len2 && !memcmp(b, b2, len));
        free(b), free(b2);
        cz_post_sector_proof_free(&q);
    }
    if (info.kind == CZ_POST_WINDOW && info.api_version == CZ_FC_API_V1_0_0)
        /* V1 challenges depend on the partition (and position) */
        CHECK(cz_post_vanilla_verify(&cfg, info.api_version, r, partition + 1, p, n, &err) ==
              CZ_E_INVALID_ARG);
    /* the circuit: the real configuration at small sizes, else one slot
     * per generated sector of the real tree */
    cz_post_config ccfg = cfg;
    if (cfg.sector_count * (uint64_t)cfg.challenge_count > 1000 || !run_circuit)
        CHECK(cz_post_config_make(&ccfg, info.kind, cfg.nodes, cfg.tree.base_arity,
                                  cfg.tree.sub_arity, cfg.tree.top_arity,
                                  info.kind == CZ_POST_WINNING ? cfg.sector_count : n,
                                  cfg.challenge_count, &err) == CZ_OK);
    if (run_circuit) {
        int sat = circuit_satisfied(&ccfg, p, n);
        CHECK(sat);
        check_inputs_and_witness(&ccfg, info.api_version, r, partition, p, n);
        cz_fr keep = p[n - 1].inclusions[0].leaf;
        cz_fr_add(&p[n - 1].inclusions[0].leaf, &keep, &cz_fr_one);
        CHECK(circuit_unsatisfied(&ccfg, p, n));
        p[n - 1].inclusions[0].leaf = keep;
    }
    printf("  %-28s %u sector%s (partition %u): verified%s\n", info.name, n, n == 1 ? "" : "s",
           partition, run_circuit ? ", circuit satisfied" : "");
    proofs_free(p, n);
}

static void test_generated(void) {
    printf("generated vanilla proofs\n");
    for (uint32_t size = 0; size < 5; size++) {
        int small = size < 3;
        gen_case(size, 10, 0, small || size == 3);   /* Winning V1, a set of 10 sectors */
        gen_case(10 + size, small ? 2 : 3, 0, 1);    /* Window V1_1 */
        gen_case(5 + size, small ? 2 : 3, 1, small); /* Window V1, partition 1 */
    }
    gen_case(10, 1, 0, 1); /* a 2 KiB partition of 1 sector: padded */
    gen_case(7, 1, 3, 1);  /* 512 MiB V1, partition 3 of 1 sector */
    cz_post_sector_proof *p;
    uint32_t n;
    uint8_t r[32];
    cz_error err = {0};
    /* a WinningPoSt (one sector: its paths checked on every core) with two
     * inclusion proofs broken: the first is named */
    {
        cz_post_gen_opts w = {.registered_proof = 0, .sectors = 1, .seed = 3};
        cz_post_proof_info info;
        cz_post_config cfg;
        CHECK(cz_post_gen(&p, &n, NULL, r, &w, &err) == CZ_OK && n == 1);
        CHECK(cz_post_proof_lookup(&info, 0, &err) == CZ_OK);
        CHECK(cz_post_config_from_sector(&cfg, CZ_POST_WINNING, 2048, &err) == CZ_OK);
        CHECK(cz_post_vanilla_verify(&cfg, info.api_version, r, 0, p, 1, &err) == CZ_OK);
        cz_fr_add(&p[0].inclusions[9].root, &p[0].inclusions[9].root, &cz_fr_one);
        cz_fr_add(&p[0].inclusions[5].root, &p[0].inclusions[5].root, &cz_fr_one);
        CHECK(cz_post_vanilla_verify(&cfg, info.api_version, r, 0, p, 1, &err) == CZ_E_INVALID_ARG);
        CHECK(strstr(err.message, "inclusion_proofs[5]: root differs from comm_r_last") != NULL);
        proofs_free(p, n);
    }
    /* bad options */
    cz_post_gen_opts o = {.registered_proof = 13, .sectors = 2350};
    CHECK(cz_post_gen(&p, &n, NULL, r, &o, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "1 to 2349") != NULL);
    o.sectors = 1;
    o.have_randomness = 1;
    memset(o.randomness, 0xff, 32);
    CHECK(cz_post_gen(&p, &n, NULL, r, &o, &err) == CZ_E_INVALID_ARG);
    o.registered_proof = 15;
    CHECK(cz_post_gen(&p, &n, NULL, r, &o, &err) == CZ_E_UNSUPPORTED);
}

/* ---------------------------------------------------- request files */

/* A request (as `cuzk gen post` writes it) round-trips through JSON, and
 * cz_post_request_decode refuses what a daemon must answer
 * INVALID_ARGUMENT to, with the field named. */
static void test_request(void) {
    printf("request files and request checks\n");
    cz_post_gen_opts o = {.registered_proof = 10, .sectors = 2, .seed = 5, .first_sector = 40};
    cz_post_sector_proof *p;
    uint32_t n;
    uint8_t r[32];
    cz_error err = {0};
    CHECK(cz_post_gen(&p, &n, NULL, r, &o, &err) == CZ_OK && n == 2);
    cz_post_config cfg;
    CHECK(cz_post_config_from_sector(&cfg, CZ_POST_WINDOW, 2048, &err) == CZ_OK);
    cz_post_request req = {.registered_proof = 10,
                           .kind = CZ_POST_WINDOW,
                           .sector_size = 2048,
                           .miner_id = 1234,
                           .partition_index = 0,
                           .n_proofs = 2};
    memcpy(req.randomness, r, 32);
    uint8_t *bytes[2];
    size_t lens[2];
    for (int i = 0; i < 2; i++)
        CHECK(cz_post_encode(&bytes[i], &lens[i], &cfg, &p[i], &err) == CZ_OK);
    req.proofs = bytes;
    req.proof_lens = lens;
    char *doc = NULL;
    size_t doc_len = 0;
    FILE *f = open_memstream(&doc, &doc_len);
    CHECK(cz_post_request_write_json(f, &req, &err) == CZ_OK);
    fclose(f);
    cz_post_request back;
    CHECK(cz_post_request_parse_json(&back, (const uint8_t *)doc, doc_len, &err) == CZ_OK);
    CHECK(back.registered_proof == 10 && back.kind == CZ_POST_WINDOW && back.sector_size == 2048 &&
          back.miner_id == 1234 && back.n_proofs == 2 && !memcmp(back.randomness, r, 32));
    for (int i = 0; i < 2; i++)
        CHECK(back.proof_lens[i] == lens[i] && !memcmp(back.proofs[i], bytes[i], lens[i]));
    cz_post_request_free(&back);
    /* malformed documents */
    static const struct {
        const char *json, *want;
    } bad[] = {
        {"[1]", "expected a JSON object"},
        {"{\"registered_proof\": 10}", "\"sector_size\" is missing"},
        {"{\"registered_proof\": 99, \"sector_size\": 2048, \"miner_id\": 1, \"partition_index\": "
         "0}",
         "\"registered_proof\": registered PoSt proof 99 is unknown"},
        {"{\"registered_proof\": 10, \"sector_size\": 2048, \"miner_id\": 1, \"partition_index\": "
         "0, "
         "\"kind\": \"winning-post\"}",
         "\"kind\" must be \"window-post\""},
        {"{\"registered_proof\": 10, \"sector_size\": 2048, \"miner_id\": -1, \"partition_index\": "
         "0}",
         "\"miner_id\" must be an integer"},
        {"{\"registered_proof\": 10, \"sector_size\": 2048, \"miner_id\": 1, \"partition_index\": "
         "0, "
         "\"kind\": \"window-post\", \"randomness\": \"00\"}",
         "\"randomness\" must be 64 hex digits"},
        {"{\"registered_proof\": 10, \"sector_size\": 2048, \"miner_id\": 1, \"partition_index\": "
         "0, "
         "\"kind\": \"window-post\", \"randomness\": "
         "\"000000000000000000000000000000000000000000000000000000000000000x\", "
         "\"vanilla_proofs\": [\"AA==\"]}",
         "not a hex digit at character 63"},
        {"{\"registered_proof\": 10, \"sector_size\": 2048, \"miner_id\": 1, \"partition_index\": "
         "0, "
         "\"kind\": \"window-post\", \"randomness\": "
         "\"0000000000000000000000000000000000000000000000000000000000000000\", "
         "\"vanilla_proofs\": [\"AA==\", 7]}",
         "vanilla_proofs[1]: not a string"},
        {"{\"registered_proof\": 10, \"sector_size\": 2048, \"miner_id\": 1, \"partition_index\": "
         "0, "
         "\"kind\": \"window-post\", \"randomness\": "
         "\"0000000000000000000000000000000000000000000000000000000000000000\", "
         "\"vanilla_proofs\": []}",
         "\"vanilla_proofs\" must be an array of 1 or more"},
        {"{\"a\": ", "not JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(cz_post_request_parse_json(&back, (const uint8_t *)bad[i].json, strlen(bad[i].json),
                                         &err) == CZ_E_PARSE);
        if (!strstr(err.message, bad[i].want))
            printf("  got '%s', want '%s'\n", err.message, bad[i].want);
        CHECK(strstr(err.message, bad[i].want) != NULL);
    }
    free(doc);

    /* the request checks a daemon answers INVALID_ARGUMENT with */
    const uint8_t *const cb[2] = {bytes[0], bytes[1]};
    cz_post_config c2;
    cz_fc_api_version api;
    cz_post_sector_proof *d;
    uint32_t dn;
    CHECK(cz_post_request_decode(&c2, &api, &d, &dn, 10, 2048, cb, lens, 2, r, 32, 0, 1, &err) ==
          CZ_OK);
    CHECK(dn == 2 && api == CZ_FC_API_V1_2_0 && d[1].sector_id == 41);
    proofs_free(d, dn);
    static const struct {
        uint32_t id;
        uint64_t size;
        uint32_t count;
        size_t rlen, cut;
        uint32_t partition;
        int swap;
        const char *want;
    } rq[] = {
        {10, 8 << 20, 2, 32, 0, 0, 0,
         "is for 2048-byte sectors, the request says sector_size 8388608"},
        {11, 8 << 20, 2, 32, 0, 0, 0,
         "vanilla_proofs[0] (5680 bytes, a StackedDrgWindow8MiBV1_1 proof has 15280)"},
        {0, 2048, 2, 32, 0, 0, 0, "2 vanilla proofs: StackedDrgWinning2KiBV1 takes exactly 1"},
        {10, 2048, 2, 31, 0, 0, 0, "randomness must be exactly 32 bytes, got 31"},
        {10, 2048, 2, 32, 0, 3000, 0, "partition_index 3000 is out of range"},
        {10, 2048, 2, 32, 100, 0, 0,
         "vanilla_proofs[1] (5580 bytes, a StackedDrgWindow2KiBV1_1 proof has 5680): "
         "vanilla_proof.sectors[0].inclusion_proofs[9]"},
        {10, 2048, 2, 32, 0, 0, 1, "vanilla_proofs[1]: sector 40 after sector 41"},
        {5, 2048, 2, 32, 0, 1, 0, "vanilla_proofs[0] (sector 40): inclusion_proofs[0] proves leaf"},
        {99, 2048, 2, 32, 0, 0, 0, "registered PoSt proof 99 is unknown"},
    };
    for (size_t i = 0; i < sizeof rq / sizeof rq[0]; i++) {
        const uint8_t *b2[2] = {rq[i].swap ? bytes[1] : bytes[0], rq[i].swap ? bytes[0] : bytes[1]};
        size_t l2[2] = {lens[0], lens[1] - rq[i].cut};
        cz_status st = cz_post_request_decode(&c2, &api, &d, &dn, rq[i].id, rq[i].size, b2, l2,
                                              rq[i].count, r, rq[i].rlen, rq[i].partition, 1, &err);
        CHECK(st == CZ_E_INVALID_ARG);
        CHECK(err.status == CZ_E_INVALID_ARG);
        if (!strstr(err.message, rq[i].want))
            printf("  got '%s', want '%s'\n", err.message, rq[i].want);
        CHECK(strstr(err.message, rq[i].want) != NULL);
        if (st == CZ_OK) proofs_free(d, dn);
    }
    for (int i = 0; i < 2; i++) free(bytes[i]);
    proofs_free(p, n);
}

int main(void) {
    cz_test_init("test_post_vanilla");
    test_known_values();
    test_golden();
    test_generated();
    test_request();
    return cz_test_finish("test_post_vanilla");
}
