/* replica_id and interactive challenges against @noble/hashes vectors
 * (tests/oracle/gen_filecoin.mjs), empty-sector comm_d against known values
 * (the first two also asserted in rust-fil-proofs
 * filecoin-proofs/tests/pieces.rs). */
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/derive.h"
#include "filecoin/common/registry.h"
#include "harness/harness.h"

static void test_empty_comm_d(void) {
    static const struct {
        uint64_t size;
        const char *hex;
    } table[] = {
        {128, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"},
        {2048, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"},
        {8u << 20, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c"},
        {512u << 20, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"},
        {32ull << 30, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e"},
        {64ull << 30, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        uint8_t want[32], got[32];
        CHECK(cz_test_from_hex(want, table[i].hex, 32));
        CHECK(cz_fc_empty_comm_d(got, table[i].size, NULL) == CZ_OK);
        CHECK(memcmp(got, want, 32) == 0);
    }
    /* 128 B is also a 4-leaf tree built node by node. */
    uint8_t zero[32] = {0}, a[32], b[32], want[32];
    cz_fc_sha256_node(a, zero, zero);
    cz_fc_sha256_node(b, a, a);
    CHECK(cz_test_from_hex(want, table[0].hex, 32) && memcmp(b, want, 32) == 0);
    cz_error err;
    uint8_t out[32];
    CHECK(cz_fc_empty_comm_d(out, 32, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_fc_empty_comm_d(out, 3000, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_fc_empty_comm_d(out, UINT64_C(1) << 41, &err) == CZ_E_INVALID_ARG);
}

static void test_replica_id(void) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, "filecoin_replica_id.txt"));
    int cases = 0;
    while (cz_vector_next(&vf)) {
        uint8_t prover[32], ticket[32], comm_d[32], want[32], got[32];
        CHECK(vf.nfields == 6);
        CHECK(cz_vector_hex(&vf, 0, prover, 32));
        uint64_t sector_id = strtoull(vf.fields[1], NULL, 10);
        CHECK(cz_vector_hex(&vf, 2, ticket, 32));
        CHECK(cz_vector_hex(&vf, 3, comm_d, 32));
        uint32_t proof_id = (uint32_t)strtoul(vf.fields[4], NULL, 10);
        CHECK(cz_vector_hex(&vf, 5, want, 32));
        cz_fc_proof_info info;
        CHECK(cz_fc_proof_lookup(&info, proof_id, NULL) == CZ_OK);
        cz_fc_replica_id(got, prover, sector_id, ticket, comm_d, info.porep_id);
        CHECK(memcmp(got, want, 32) == 0);
        CHECK((got[31] & 0xc0) == 0);
        cases++;
    }
    cz_vector_close(&vf);
    CHECK(cases == 32);
}

static void test_challenges(void) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, "filecoin_challenges.txt"));
    int cases = 0;
    while (cz_vector_next(&vf)) {
        uint8_t replica[32], seed[32];
        CHECK(cz_vector_hex(&vf, 0, replica, 32));
        CHECK(cz_vector_hex(&vf, 1, seed, 32));
        uint64_t nodes = strtoull(vf.fields[2], NULL, 10);
        uint32_t partition = (uint32_t)strtoul(vf.fields[3], NULL, 10);
        size_t count = strtoul(vf.fields[4], NULL, 10);
        CHECK(count <= 18 && vf.nfields == 5 + (int)count);
        uint64_t got[18];
        CHECK(cz_fc_interactive_challenges(got, count, replica, seed, nodes, partition, NULL) ==
              CZ_OK);
        for (size_t i = 0; i < count && i < 18; i++) {
            CHECK(got[i] == strtoull(vf.fields[5 + i], NULL, 10));
            CHECK(got[i] >= 1 && got[i] < nodes);
        }
        cases++;
    }
    cz_vector_close(&vf);
    CHECK(cases == 7);
    uint64_t out[2];
    uint8_t z[32] = {0};
    cz_error err;
    CHECK(cz_fc_interactive_challenges(out, 2, z, z, 1, 0, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_fc_interactive_challenges(out, 2, z, z, 64, UINT32_MAX, &err) == CZ_E_INVALID_ARG);
}

int main(void) {
    cz_test_init("filecoin_derive");
    test_empty_comm_d();
    test_replica_id();
    test_challenges();
    return cz_test_finish("filecoin_derive");
}
