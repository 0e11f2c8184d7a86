/* The fallback PoSt circuit:
 *  - published constraint / input counts: WinningPoSt 32 GiB 370,590 / 133,
 *    WindowPoSt 32 GiB 125,279,217 / 25,840, 64 GiB 129,887,900 / 25,301
 *    (whole synthesis on the count back-end, and slots x one counted
 *    slot), and the rust-fil-proofs test shapes
 *    (fallback_circuit.rs: 16,869; 22,674; 27,384; 11,246; the 32 GiB
 *    base-8 bench 266,665), with the model's aux counts for every size;
 *  - registered PoSt ids and the parameter file names of the published
 *    table (SHA-256 of the identifiers);
 *  - the stats back-end against the record back-end on a small circuit;
 *  - the layout (one slot's inputs / aux / constraints) against a whole
 *    count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/post/post.h"
#include "filecoin/post/post_circuit.h"
#include "harness/harness.h"
#include "r1cs/backends.h"

static void check_count(const char *name, const cz_post_config *cfg, uint64_t constraints,
                        uint64_t aux, uint32_t inputs) {
    cz_error err = {0};
    cz_cs *cs = cz_cs_count_new();
    CHECK(cz_post_synthesize(cs, cfg, NULL, 0, NULL, NULL, &err) == CZ_OK);
    printf("  %-32s %llu constraints (want %llu), %u aux (want %llu), %u inputs (want %u)\n", name,
           (unsigned long long)cs->num_constraints, (unsigned long long)constraints, cs->num_aux,
           (unsigned long long)aux, cs->num_inputs, inputs);
    CHECK(cs->num_constraints == constraints);
    if (aux) CHECK(cs->num_aux == aux);
    CHECK(cs->num_inputs == inputs);
    CHECK(cz_post_num_inputs(cfg) == inputs);
    cz_post_layout L;
    CHECK(cz_post_layout_make(&L, cfg, &err) == CZ_OK);
    CHECK(L.num_constraints == cs->num_constraints && L.num_aux == cs->num_aux &&
          L.num_inputs == cs->num_inputs);
    cz_cs_destroy(cs);
}

/* The layout alone (slots x one counted slot), for the circuits that take
 * a minute to synthesize whole. */
static void check_layout(const char *name, const cz_post_config *cfg, uint64_t constraints,
                         uint64_t aux, uint32_t inputs) {
    cz_error err = {0};
    cz_post_layout L;
    CHECK(cz_post_layout_make(&L, cfg, &err) == CZ_OK);
    printf("  %-32s %llu constraints (want %llu), %u aux (want %llu), %u inputs (want %u) "
           "[%u slots x one]\n",
           name, (unsigned long long)L.num_constraints, (unsigned long long)constraints, L.num_aux,
           (unsigned long long)aux, L.num_inputs, inputs, L.slots);
    CHECK(L.num_constraints == constraints);
    CHECK(L.num_aux == aux);
    CHECK(L.num_inputs == inputs);
}

static void test_test_shapes(void) {
    /* storage-proofs-post/tests/fallback_circuit.rs: 64 leaves per base tree,
     * 5 challenges per sector */
    static const struct {
        const char *name;
        uint64_t nodes;
        unsigned base, sub, top;
        uint32_t slots, challenges;
        uint64_t constraints;
        uint32_t inputs;
    } cases[] = {
        {"fallback 8-0-0, 3 x 5", 64, 8, 0, 0, 3, 5, 16869, 19},
        {"fallback 8-4-0, 3 x 5", 256, 8, 4, 0, 3, 5, 22674, 19},
        {"fallback 8-4-2, 3 x 5", 512, 8, 4, 2, 3, 5, 27384, 19},
        {"fallback 8-0-0, 2 x 5", 64, 8, 0, 0, 2, 5, 11246, 13},
        {"bench_cs 32 GiB 8-0-0, 5 x 10", UINT64_C(1) << 30, 8, 0, 0, 5, 10, 266665, 56},
    };
    printf("rust-fil-proofs test shapes\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cz_post_config cfg;
        cz_error err = {0};
        CHECK(cz_post_config_make(&cfg, CZ_POST_WINDOW, cases[i].nodes, cases[i].base, cases[i].sub,
                                  cases[i].top, cases[i].slots, cases[i].challenges,
                                  &err) == CZ_OK);
        check_count(cases[i].name, &cfg, cases[i].constraints, 0, cases[i].inputs);
    }
}

static void test_sector_sizes(void) {
    /* the reference model's counts (tools/refmodels/post_snap_check.py); the
     * published ones among them: Winning 32 GiB, Window 32 / 64 GiB */
    static const struct {
        cz_post_kind kind;
        uint64_t size, constraints, aux;
        uint32_t inputs;
    } rows[] = {
        {CZ_POST_WINNING, UINT64_C(2) << 10, 90750, 91674, 133},
        {CZ_POST_WINNING, UINT64_C(8) << 20, 230670, 233442, 133},
        {CZ_POST_WINNING, UINT64_C(512) << 20, 300630, 304326, 133},
        {CZ_POST_WINNING, UINT64_C(32) << 30, 370590, 375210, 133},
        {CZ_POST_WINNING, UINT64_C(64) << 30, 391314, 396000, 133},
        {CZ_POST_WINDOW, UINT64_C(2) << 10, 21866, 22128, 23},
        {CZ_POST_WINDOW, UINT64_C(8) << 20, 64266, 65088, 23},
        {CZ_POST_WINDOW, UINT64_C(512) << 20, 85466, 86568, 23},
        {CZ_POST_WINDOW, UINT64_C(32) << 30, 125279217, 126902376, 25840},
        {CZ_POST_WINDOW, UINT64_C(64) << 30, 129887900, 131500200, 25301},
    };
    printf("published sector sizes\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cz_post_config cfg;
        cz_error err = {0};
        CHECK(cz_post_config_from_sector(&cfg, rows[i].kind, rows[i].size, &err) == CZ_OK);
        char name[64];
        static const char *const sizes[] = {"2 KiB", "8 MiB", "512 MiB", "32 GiB", "64 GiB"};
        snprintf(name, sizeof name, "%s %s", cz_post_kind_name(rows[i].kind), sizes[i % 5]);
        check_layout(name, &cfg, rows[i].constraints, rows[i].aux, rows[i].inputs);
        /* and the whole synthesis (the count back-end does 32 / 64 GiB
         * WindowPoSt in about a second each) */
        check_count(name, &cfg, rows[i].constraints, rows[i].aux, rows[i].inputs);
    }
}

static void test_registry(void) {
    cz_post_proof_info info;
    cz_error err = {0};
    CHECK(cz_post_proof_lookup(&info, 13, &err) == CZ_OK);
    CHECK(info.kind == CZ_POST_WINDOW && info.api_version == CZ_FC_API_V1_2_0 &&
          info.sector_size == (UINT64_C(32) << 30) &&
          !strcmp(info.name, "StackedDrgWindow32GiBV1_1") &&
          !strcmp(info.rust_name, "StackedDrgWindow32GiBV1_2"));
    CHECK(cz_post_proof_lookup(&info, 3, &err) == CZ_OK);
    CHECK(info.kind == CZ_POST_WINNING && info.api_version == CZ_FC_API_V1_0_0 &&
          info.sector_size == (UINT64_C(32) << 30));
    CHECK(cz_post_proof_lookup(&info, 8, &err) == CZ_OK);
    CHECK(info.kind == CZ_POST_WINDOW && info.api_version == CZ_FC_API_V1_0_0);
    CHECK(cz_post_proof_lookup(&info, 15, &err) == CZ_E_UNSUPPORTED);
    CHECK(strstr(err.message, "15") != NULL);
    CHECK(cz_post_proof_lookup_by_size(&info, CZ_POST_WINDOW, UINT64_C(64) << 30, &err) == CZ_OK &&
          info.id == 14);
    CHECK(cz_post_proof_lookup_by_size(&info, CZ_POST_WINNING, UINT64_C(2) << 10, &err) == CZ_OK &&
          info.id == 0);
    CHECK(cz_post_proof_lookup_by_size(&info, CZ_POST_WINNING, 4096, &err) == CZ_E_UNSUPPORTED);

    /* the <hex> of every PoSt parameter file (matches rust-fil-proofs'
     * parameters.json) */
    static const struct {
        cz_post_kind kind;
        uint64_t size;
        const char *stem;
    } names[] = {
        {CZ_POST_WINNING, UINT64_C(2) << 10,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
         "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e"},
        {CZ_POST_WINNING, UINT64_C(8) << 20,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
         "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331"},
        {CZ_POST_WINNING, UINT64_C(512) << 20,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
         "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781"},
        {CZ_POST_WINNING, UINT64_C(32) << 30,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
         "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"},
        {CZ_POST_WINNING, UINT64_C(64) << 30,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
         "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c"},
        {CZ_POST_WINDOW, UINT64_C(2) << 10,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
         "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0"},
        {CZ_POST_WINDOW, UINT64_C(8) << 20,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
         "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9"},
        {CZ_POST_WINDOW, UINT64_C(512) << 20,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
         "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9"},
        {CZ_POST_WINDOW, UINT64_C(32) << 30,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
         "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc"},
        {CZ_POST_WINDOW, UINT64_C(64) << 30,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
         "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cz_post_config cfg;
        char stem[256];
        CHECK(cz_post_config_from_sector(&cfg, names[i].kind, names[i].size, &err) == CZ_OK);
        CHECK(cz_post_param_file_stem(stem, sizeof stem, &cfg, &err) == CZ_OK);
        if (strcmp(stem, names[i].stem)) printf("  got %s\n want %s\n", stem, names[i].stem);
        CHECK(!strcmp(stem, names[i].stem));
    }
    cz_post_config cfg;
    char ident[256];
    CHECK(cz_post_config_from_sector(&cfg, CZ_POST_WINDOW, UINT64_C(32) << 30, &err) == CZ_OK);
    CHECK(cz_post_param_identifier(ident, sizeof ident, &cfg, &err) == CZ_OK);
    /* the identifier as a field log quoted in rust-fil-proofs issue #1281 prints it */
    CHECK(!strcmp(ident, "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: "
                         "10, sector_count: 2349}"));
}

/* stats = what record's matrices say, on WinningPoSt 2 KiB and a
 * WindowPoSt 8-4-2 test shape. */
static void test_stats_vs_record(void) {
    cz_post_config cfgs[2];
    cz_error err = {0};
    CHECK(cz_post_config_from_sector(&cfgs[0], CZ_POST_WINNING, 2048, &err) == CZ_OK);
    CHECK(cz_post_config_make(&cfgs[1], CZ_POST_WINDOW, 512, 8, 4, 2, 3, 5, &err) == CZ_OK);
    for (int k = 0; k < 2; k++) {
        cz_cs *rec = cz_cs_record_new(), *sts = cz_cs_stats_new();
        CHECK(cz_post_synthesize(rec, &cfgs[k], NULL, 0, NULL, NULL, &err) == CZ_OK);
        CHECK(cz_post_synthesize(sts, &cfgs[k], NULL, 0, NULL, NULL, &err) == CZ_OK);
        cz_r1cs r;
        cz_r1cs_stats st;
        CHECK(cz_record_finish(rec, &r, &err) == CZ_OK);
        CHECK(cz_stats_finish(sts, &st, &err) == CZ_OK);
        CHECK(st.num_inputs == r.num_inputs && st.num_aux == r.num_aux &&
              st.num_constraints == r.num_constraints);
        CHECK(st.nnz_a == r.a.row_start[r.a.rows] && st.nnz_b == r.b.row_start[r.b.rows] &&
              st.nnz_c == r.c.row_start[r.c.rows]);
        CHECK(st.a_aux_count == cz_density_popcount(r.a_aux_density, r.num_aux));
        CHECK(st.b_aux_count == cz_density_popcount(r.b_aux_density, r.num_aux));
        CHECK(st.b_input_count == cz_density_popcount(r.b_input_density, r.num_inputs));
        CHECK(!memcmp(st.a_aux_density, r.a_aux_density, (r.num_aux + 63) / 64 * 8));
        printf("  %s: %u inputs, %u aux, %llu constraints; nnz %llu / %llu / %llu\n",
               k ? "window 8-4-2 3x5" : "winning 2 KiB", st.num_inputs, st.num_aux,
               (unsigned long long)st.num_constraints, (unsigned long long)st.nnz_a,
               (unsigned long long)st.nnz_b, (unsigned long long)st.nnz_c);
        cz_r1cs_free(&r);
        cz_r1cs_stats_free(&st);
        cz_cs_destroy(rec);
        cz_cs_destroy(sts);
    }
}

int main(void) {
    cz_test_init("test_post_circuit");
    test_registry();
    test_test_shapes();
    test_stats_vs_record();
    test_sector_sizes();
    return cz_test_finish("test_post_circuit");
}
