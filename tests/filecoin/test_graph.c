/* SDR graph parents against rust-fil-proofs' published data: the parent-cache
 * digests for 2 KiB (porep ids 0 and 5; prefix/suffix of the digests in
 * storage-proofs-porep/parent_cache.json) and the
 * parent-cache file names that Go/lotus code hard-codes for ids 5, 7 and 8;
 * expander parents of larger graphs against @noble/hashes vectors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/porep/graph.h"
#include "harness/harness.h"

static void to_hex(char out[65], const uint8_t d[32]) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_cache_digests(void) {
    static const struct {
        uint32_t id;
        const char *prefix, *suffix;
    } rows[] = {{0, "3da49221", "750d"}, {5, "840057", "5b97"}};
    for (size_t r = 0; r < 2; r++) {
        cz_fc_proof_info p;
        CHECK(cz_fc_proof_lookup(&p, rows[r].id, NULL) == CZ_OK);
        cz_fc_graph g;
        CHECK(cz_fc_graph_init(&g, p.sector.nodes, p.porep_id, p.api_version, NULL) == CZ_OK);
        uint8_t digest[32];
        char hex[65];
        CHECK(cz_fc_parent_cache_digest(digest, &g, NULL) == CZ_OK);
        to_hex(hex, digest);
        printf("2 KiB porep id %u parent cache digest %s\n", rows[r].id, hex);
        CHECK(strncmp(hex, rows[r].prefix, strlen(rows[r].prefix)) == 0);
        CHECK(strcmp(hex + 64 - strlen(rows[r].suffix), rows[r].suffix) == 0);
    }
}

static void test_cache_names(void) {
    static const struct {
        uint32_t id;
        const char *name;
    } rows[] = {
        {5, "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b"},
        {7, "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34"},
        {8, "v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        cz_fc_proof_info p;
        CHECK(cz_fc_proof_lookup(&p, rows[r].id, NULL) == CZ_OK);
        cz_fc_graph g;
        CHECK(cz_fc_graph_init(&g, p.sector.nodes, p.porep_id, p.api_version, NULL) == CZ_OK);
        char name[128];
        CHECK(cz_fc_parent_cache_name(name, sizeof name, &g, NULL) == CZ_OK);
        if (strcmp(name, rows[r].name) != 0) printf("id %u: got %s\n", rows[r].id, name);
        CHECK(strcmp(name, rows[r].name) == 0);
    }
}

/* Parent vectors: each line is proof id, nodes, node, then `degree` parents.
 * Expander parents (degree 8) of 8 MiB .. 64 GiB graphs come from @noble/hashes,
 * covering Feistel half widths 11..17; DRG parents (degree 6) of 2 KiB .. 64 GiB
 * graphs from a separate JavaScript implementation whose 2 KiB rows tie it to
 * the published digests above, covering bucket counts up to 34 (both made by
 * tests/oracle/gen_filecoin.mjs). */
static void test_parent_vectors(const char *file, int degree, int expected_cases) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, file));
    int cases = 0;
    while (cz_vector_next(&vf)) {
        CHECK(vf.nfields == 3 + degree);
        if (vf.nfields != 3 + degree) continue;
        uint32_t id = (uint32_t)strtoul(vf.fields[0], NULL, 10);
        uint64_t nodes = strtoull(vf.fields[1], NULL, 10);
        uint32_t node = (uint32_t)strtoul(vf.fields[2], NULL, 10);
        cz_fc_proof_info p;
        CHECK(cz_fc_proof_lookup(&p, id, NULL) == CZ_OK);
        CHECK(p.sector.nodes == nodes);
        cz_fc_graph g;
        CHECK(cz_fc_graph_init(&g, nodes, p.porep_id, p.api_version, NULL) == CZ_OK);
        uint32_t parents[8];
        if (degree == 8)
            cz_fc_graph_exp_parents(parents, &g, node);
        else
            cz_fc_graph_drg_parents(parents, &g, node);
        for (int i = 0; i < degree; i++) CHECK(parents[i] == strtoul(vf.fields[3 + i], NULL, 10));
        cases++;
    }
    cz_vector_close(&vf);
    CHECK(cases == expected_cases);
}

/* Structural properties on a production-size graph: DRG parents precede the
 * node, the v1.1 slot 0 is node - 1, and the Feistel map is a permutation
 * (checked exhaustively on a small domain). */
static void test_structure(void) {
    cz_fc_proof_info p;
    CHECK(cz_fc_proof_lookup(&p, 8, NULL) == CZ_OK); /* 32 GiB v1.1 */
    cz_fc_graph g;
    CHECK(cz_fc_graph_init(&g, p.sector.nodes, p.porep_id, p.api_version, NULL) == CZ_OK);
    CHECK(g.half_bits == 17); /* 8 * 2^30 = 2^33 -> 4^17 = 2^34 */
    unsigned iters = cz_test_iters(200);
    for (unsigned i = 0; i < iters; i++) {
        uint32_t node = (uint32_t)(cz_test_rand64() % p.sector.nodes);
        uint32_t drg[6], exp[8];
        cz_fc_graph_drg_parents(drg, &g, node);
        cz_fc_graph_exp_parents(exp, &g, node);
        for (int k = 0; k < 6; k++) CHECK(node < 2 ? drg[k] == 0 : drg[k] < node);
        if (node >= 2) CHECK(drg[0] == node - 1);
        for (int k = 0; k < 8; k++) CHECK(exp[k] < p.sector.nodes);
    }
    /* Legacy layout puts node - 1 last. */
    cz_fc_graph legacy;
    CHECK(cz_fc_graph_init(&legacy, 64, p.porep_id, CZ_FC_API_V1_0_0, NULL) == CZ_OK);
    uint32_t drg[6];
    cz_fc_graph_drg_parents(drg, &legacy, 40);
    CHECK(drg[5] == 39);

    cz_fc_graph small;
    CHECK(cz_fc_graph_init(&small, 64, p.porep_id, CZ_FC_API_V1_1_0, NULL) == CZ_OK);
    static uint8_t seen[512];
    memset(seen, 0, sizeof seen);
    for (uint64_t a = 0; a < 512; a++) {
        uint64_t b = cz_fc_graph_feistel_permute(&small, a);
        CHECK(b < 512);
        if (b < 512) seen[b]++;
    }
    for (int i = 0; i < 512; i++) CHECK(seen[i] == 1);

    cz_error err;
    CHECK(cz_fc_graph_init(&g, 1, p.porep_id, CZ_FC_API_V1_1_0, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_fc_graph_init(&g, (UINT64_C(1) << 32) + 1, p.porep_id, CZ_FC_API_V1_1_0, &err) ==
          CZ_E_INVALID_ARG);
}

int main(void) {
    cz_test_init("filecoin_graph");
    test_cache_names();
    test_cache_digests();
    test_parent_vectors("filecoin_exp_parents.txt", 8, 42);
    test_parent_vectors("filecoin_drg_parents.txt", 6, 48);
    test_structure();
    return cz_test_finish("filecoin_graph");
}
