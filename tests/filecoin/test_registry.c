/* Registry: proof ids, geometry, porep_id and the five published parameter
 * file names (hex values matching the names in rust-fil-proofs
 * parameters.json). */
#include <stdio.h>
#include <string.h>

#include "filecoin/common/registry.h"
#include "harness/harness.h"

static const char *const published_hex[CZ_FC_SECTOR_SIZE_COUNT] = {
    "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
    "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
    "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
    "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
    "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
};
static const char *const published_shape[CZ_FC_SECTOR_SIZE_COUNT] = {"8-0-0", "8-0-0", "8-0-0",
                                                                     "8-8-0", "8-8-2"};

static void test_param_names(void) {
    for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++) {
        cz_fc_sector_info s;
        CHECK(cz_fc_sector_lookup(&s, cz_fc_sector_sizes[i], NULL) == CZ_OK);
        char expected[256], got[256];
        snprintf(expected, sizeof expected,
                 "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-%s-sha256_hasher-%s",
                 published_shape[i], published_hex[i]);
        CHECK(cz_fc_param_file_stem(got, sizeof got, &s, NULL) == CZ_OK);
        if (strcmp(got, expected) != 0)
            printf("param name mismatch:\n  got      %s\n  expected %s\n", got, expected);
        CHECK(strcmp(got, expected) == 0);
        /* Too small a buffer is an error, not a truncated name. */
        cz_error err;
        CHECK(cz_fc_param_file_stem(got, 40, &s, &err) == CZ_E_INVALID_ARG);
    }
}

static void test_geometry(void) {
    /* Per size: nodes, layers, partitions, challenges, shape, depth. */
    static const struct {
        uint64_t size, nodes;
        uint32_t layers, partitions, challenges, b, s, t, depth;
    } rows[] = {
        {2048, 64, 2, 1, 2, 8, 0, 0, 6},
        {8u << 20, 1u << 18, 2, 1, 2, 8, 0, 0, 18},
        {512u << 20, 1u << 24, 2, 1, 2, 8, 0, 0, 24},
        {32ull << 30, 1ull << 30, 11, 10, 18, 8, 8, 0, 30},
        {64ull << 30, 1ull << 31, 11, 10, 18, 8, 8, 2, 31},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cz_fc_sector_info s;
        CHECK(cz_fc_sector_lookup(&s, rows[i].size, NULL) == CZ_OK);
        CHECK(s.sector_size == rows[i].size && s.nodes == rows[i].nodes);
        CHECK(s.nodes * 32 == s.sector_size);
        CHECK((UINT64_C(1) << s.tree_d_depth) == s.nodes && s.tree_d_depth == rows[i].depth);
        CHECK(s.layers == rows[i].layers && s.partitions == rows[i].partitions);
        CHECK(s.challenges_per_partition == rows[i].challenges);
        CHECK(s.tree_base_arity == rows[i].b && s.tree_sub_arity == rows[i].s &&
              s.tree_top_arity == rows[i].t);
    }
    cz_fc_sector_info s;
    cz_error err;
    CHECK(cz_fc_sector_lookup(&s, 4096, &err) == CZ_E_UNSUPPORTED);
    CHECK(strstr(err.message, "4096") != NULL);
    CHECK(cz_fc_sector_lookup(&s, 0, &err) == CZ_E_UNSUPPORTED);
}

static void test_proof_ids(void) {
    static const char *const names[15] = {"StackedDrg2KiBV1",
                                          "StackedDrg8MiBV1",
                                          "StackedDrg512MiBV1",
                                          "StackedDrg32GiBV1",
                                          "StackedDrg64GiBV1",
                                          "StackedDrg2KiBV1_1",
                                          "StackedDrg8MiBV1_1",
                                          "StackedDrg512MiBV1_1",
                                          "StackedDrg32GiBV1_1",
                                          "StackedDrg64GiBV1_1",
                                          "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg64GiBV1_1_Feat_SyntheticPoRep"};
    static const uint64_t sizes[5] = {2048, 8u << 20, 512u << 20, 32ull << 30, 64ull << 30};
    for (uint32_t id = 0; id < 15; id++) {
        cz_fc_proof_info p;
        CHECK(cz_fc_proof_lookup(&p, id, NULL) == CZ_OK);
        CHECK(p.id == id);
        CHECK(strcmp(p.name, names[id]) == 0);
        CHECK(p.sector.sector_size == sizes[id % 5]);
        cz_fc_api_version want =
            id < 5 ? CZ_FC_API_V1_0_0 : (id < 10 ? CZ_FC_API_V1_1_0 : CZ_FC_API_V1_2_0);
        CHECK(p.api_version == want);
        CHECK(p.synthetic == (id >= 10));
        /* porep_id: id as u64 LE, then 24 zero bytes. */
        uint8_t expect[32] = {0};
        expect[0] = (uint8_t)id;
        CHECK(memcmp(p.porep_id, expect, 32) == 0);
        cz_fc_proof_info q;
        CHECK(cz_fc_proof_lookup_by_size(&q, sizes[id % 5], want, id >= 10, NULL) == CZ_OK);
        CHECK(q.id == id);
    }
    CHECK(strcmp(cz_fc_api_version_name(CZ_FC_API_V1_1_0), "1.1.0") == 0);
    cz_fc_proof_info p;
    cz_error err;
    CHECK(cz_fc_proof_lookup(&p, 15, &err) == CZ_E_UNSUPPORTED);
    CHECK(strstr(err.message, "NonInteractive") != NULL);
    CHECK(cz_fc_proof_lookup(&p, 20, &err) == CZ_E_UNSUPPORTED);
    CHECK(strstr(err.message, "20") != NULL);
    CHECK(cz_fc_proof_lookup(&p, UINT32_MAX, &err) == CZ_E_UNSUPPORTED);
    CHECK(cz_fc_proof_lookup_by_size(&p, 4096, CZ_FC_API_V1_1_0, 0, &err) == CZ_E_UNSUPPORTED);
    CHECK(cz_fc_proof_lookup_by_size(&p, 2048, CZ_FC_API_V1_0_0, 1, &err) == CZ_E_UNSUPPORTED);
    CHECK(cz_fc_proof_lookup_by_size(&p, 2048, CZ_FC_API_V1_2_0, 0, &err) == CZ_E_UNSUPPORTED);
    /* porep_id of a larger id keeps all 8 little-endian bytes. */
    uint8_t pid[32];
    cz_fc_porep_id(pid, UINT64_C(0x0102030405060708));
    CHECK(pid[0] == 8 && pid[7] == 1 && pid[8] == 0 && pid[31] == 0);
}

static void test_size_parse(void) {
    static const struct {
        const char *text;
        uint64_t size;
    } ok[] = {{"2KiB", 2048},
              {"2kib", 2048},
              {"8MiB", 8u << 20},
              {"512MIB", 512u << 20},
              {"32GiB", 32ull << 30},
              {"64GiB", 64ull << 30},
              {"34359738368", 32ull << 30},
              {"2048", 2048}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v = 0;
        CHECK(cz_fc_sector_size_parse(&v, ok[i].text, NULL) == CZ_OK);
        CHECK(v == ok[i].size);
    }
    uint64_t v;
    cz_error err;
    CHECK(cz_fc_sector_size_parse(&v, "4096", &err) == CZ_E_UNSUPPORTED);
    CHECK(strstr(err.message, "4096") != NULL);
    static const char *const bad[] = {"",      "32G",   "2 KiB",
                                      "-2048", "2048x", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(cz_fc_sector_size_parse(&v, bad[i], &err) == CZ_E_PARSE);
        CHECK(strstr(err.message, "sector size") != NULL);
    }
}

/* The circuit ids' size names: one per published size, none for others. */
static void test_short_names(void) {
    static const char *const want[CZ_FC_SECTOR_SIZE_COUNT] = {"2k", "8m", "512m", "32g", "64g"};
    for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++)
        CHECK(!strcmp(cz_fc_sector_short_name(cz_fc_sector_sizes[i]), want[i]));
    CHECK(cz_fc_sector_short_name(4096) == NULL);
    CHECK(cz_fc_sector_short_name(16ull << 30) == NULL);
}

int main(void) {
    cz_test_init("filecoin_registry");
    test_size_parse();
    test_short_names();
    test_param_names();
    test_geometry();
    test_proof_ids();
    return cz_test_finish("filecoin_registry");
}
