/* The EmptySectorUpdate circuit:
 *  - published constraint counts: 81,049,499 per partition at 32 GiB
 *    (whole synthesis on the count back-end) and the rust-fil-proofs test
 *    sizes 1 KiB - 32 KiB (storage-proofs-update/tests/circuit.rs:
 *    1,248,389; 1,705,039; 2,165,109; 2,620,359; 6,300,021; 6,760,091),
 *    with the independent model's aux counts (tools/refmodels/
 *    post_snap_check.py) and 5 inputs everywhere;
 *  - the stats back-end against the record back-end at 2 KiB;
 *  - registered update ids, the per-size constants (storage-proofs-update
 *    constants.rs), and the parameter file names of the published table
 *    (rust-fil-proofs parameters.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_circuit.h"
#include "harness/harness.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"

static void check_count(const char *name, const cz_snap_config *cfg, uint64_t constraints,
                        uint64_t aux) {
    cz_error err = {0};
    cz_cs *cs = cz_cs_count_new();
    CHECK(cz_snap_synthesize(cs, cfg, 0, NULL, NULL, NULL, NULL, &err) == CZ_OK);
    printf("  %-24s %llu constraints (want %llu), %u aux (want %llu), %u inputs\n", name,
           (unsigned long long)cs->num_constraints, (unsigned long long)constraints, cs->num_aux,
           (unsigned long long)aux, cs->num_inputs);
    CHECK(cs->num_constraints == constraints);
    CHECK(cs->num_aux == aux);
    CHECK(cs->num_inputs == 1 + CZ_SNAP_PUBLIC_INPUTS);
    cz_cs_destroy(cs);
}

static void test_counts(void) {
    static const struct {
        const char *name;
        uint64_t nodes;
        unsigned base, sub, top;
        uint64_t constraints, aux;
        int slow;
    } cases[] = {
        {"1 KiB 8-4-0", 32, 8, 4, 0, 1248389, 1247309, 0},
        {"2 KiB 8-0-0", 64, 8, 0, 0, 1705039, 1703569, 0},
        {"4 KiB 8-2-0", 128, 8, 2, 0, 2165109, 2163189, 0},
        {"8 KiB 8-4-0", 256, 8, 4, 0, 2620359, 2618009, 0},
        {"16 KiB 8-8-0", 512, 8, 8, 0, 6300021, 6293944, 0},
        {"32 KiB 8-8-2", 1024, 8, 8, 2, 6760091, 6753564, 0},
        /* the model's values ([D]) */
        {"8 MiB 8-0-0", UINT64_C(1) << 18, 8, 0, 0, 10007503, 9998039, 0},
        {"512 MiB 8-0-0", UINT64_C(1) << 24, 8, 0, 0, 57450479, 57401314, 1},
        /* published ([R]) */
        {"32 GiB 8-8-0", UINT64_C(1) << 30, 8, 8, 0, 81049499, 80978488, 0},
        {"64 GiB 8-8-2", UINT64_C(1) << 31, 8, 8, 2, 85006101, 84931220, 1},
    };
    int slow = getenv("CZ_SLOW_TESTS") != NULL;
    printf("constraint counts (count back-end, whole synthesis)\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].slow && !slow) continue;
        cz_snap_config cfg;
        cz_error err = {0};
        CHECK(cz_snap_config_make(&cfg, cases[i].nodes, cases[i].base, cases[i].sub, cases[i].top,
                                  &err) == CZ_OK);
        check_count(cases[i].name, &cfg, cases[i].constraints, cases[i].aux);
    }
}

/* stats (sizes, non-zeros, densities) = what record's matrices say. */
static void test_stats_vs_record(void) {
    cz_snap_config cfg;
    cz_error err = {0};
    CHECK(cz_snap_config_from_sector(&cfg, 2048, &err) == CZ_OK);
    cz_cs *st = cz_cs_stats_new(), *rec = cz_cs_compile_new();
    CHECK(st && rec);
    CHECK(cz_snap_synthesize(st, &cfg, 0, NULL, NULL, NULL, NULL, &err) == CZ_OK);
    CHECK(cz_snap_synthesize(rec, &cfg, 0, NULL, NULL, NULL, NULL, &err) == CZ_OK);
    cz_r1cs_stats s;
    cz_circuit *c = NULL;
    CHECK(cz_stats_finish(st, &s, &err) == CZ_OK);
    CHECK(cz_compile_finish(rec, &c, &err) == CZ_OK);
    CHECK(c != NULL);
    if (c) {
        printf("2 KiB: %llu constraints, nnz A/B/C %llu/%llu/%llu\n",
               (unsigned long long)s.num_constraints, (unsigned long long)s.nnz_a,
               (unsigned long long)s.nnz_b, (unsigned long long)s.nnz_c);
        CHECK(s.num_constraints == c->num_constraints && s.num_aux == c->num_aux &&
              s.num_inputs == c->num_inputs);
        CHECK(s.nnz_a == c->m[0].nnz && s.nnz_b == c->m[1].nnz && s.nnz_c == c->m[2].nnz);
        CHECK(s.a_aux_count == cz_density_popcount(c->a_aux_density, c->num_aux));
        CHECK(s.b_aux_count == cz_density_popcount(c->b_aux_density, c->num_aux));
        CHECK(s.b_input_count == cz_density_popcount(c->b_input_density, c->num_inputs));
        cz_circuit_free(c);
    }
    cz_r1cs_stats_free(&s);
    cz_cs_destroy(st);
    cz_cs_destroy(rec);
}

static void test_registry(void) {
    /* per size: partitions, challenges, h_select, apex leaves, and the rb /
     * challenges per digest / digests that challenges.rs derives */
    static const struct {
        uint64_t size;
        uint32_t partitions, challenges, apex;
        unsigned h, h_select, rb, cpd;
        uint32_t digests;
        size_t encoded;
        const char *stem;
    } rows[] = {
        {UINT64_C(2) << 10, 1, 10, 8, 1, 1, 6, 42, 1, 0,
         "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
         "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194"},
        {UINT64_C(8) << 20, 4, 10, 128, 10, 8, 16, 15, 1, 0,
         "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
         "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63"},
        {UINT64_C(512) << 20, 16, 86, 128, 10, 8, 20, 12, 8, 0,
         "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
         "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c"},
        {UINT64_C(32) << 30, 16, 86, 128, 10, 8, 26, 9, 10, 561768,
         "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
         "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"},
        {UINT64_C(64) << 30, 16, 86, 128, 10, 8, 27, 9, 10, 0,
         "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
         "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cz_snap_config cfg;
        cz_error err = {0};
        char stem[256];
        uint32_t id = 99;
        uint64_t size = 0;
        CHECK(cz_snap_config_from_sector(&cfg, rows[i].size, &err) == CZ_OK);
        CHECK(cfg.partitions == rows[i].partitions && cfg.challenges == rows[i].challenges &&
              cfg.apex_leaves == rows[i].apex && cfg.h == rows[i].h &&
              cfg.h_select == rows[i].h_select && cfg.random_bits == rows[i].rb &&
              cfg.challenges_per_digest == rows[i].cpd && cfg.digests == rows[i].digests);
        if (rows[i].encoded) CHECK(cz_snap_encoded_size(&cfg) == rows[i].encoded);
        CHECK(cz_snap_param_file_stem(stem, sizeof stem, &cfg, &err) == CZ_OK);
        if (strcmp(stem, rows[i].stem)) printf("  got %s\n want %s\n", stem, rows[i].stem);
        CHECK(!strcmp(stem, rows[i].stem));
        CHECK(cz_snap_proof_id(&id, rows[i].size, &err) == CZ_OK && id == i);
        CHECK(cz_snap_proof_sector_size(&size, id, &err) == CZ_OK && size == rows[i].size);
    }
    uint64_t size;
    cz_error err = {0};
    CHECK(cz_snap_proof_sector_size(&size, 5, &err) == CZ_E_UNSUPPORTED);
    CHECK(strstr(err.message, "5") != NULL);
    CHECK(!strcmp(cz_snap_proof_name(3), "StackedDrg32GiBV1"));
    cz_snap_config cfg;
    CHECK(cz_snap_config_make(&cfg, 48, 8, 0, 0, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_snap_config_make(&cfg, 64, 8, 2, 0, &err) == CZ_E_INVALID_ARG);
}

int main(void) {
    cz_test_init("filecoin/snap_circuit");
    test_registry();
    test_stats_vs_record();
    test_counts();
    return cz_test_finish("filecoin/snap_circuit");
}
