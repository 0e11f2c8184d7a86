/* Synthetic PoRep challenges against the hard-coded vector of rust-fil-proofs
 * storage-proofs-porep/src/stacked/vanilla/challenges.rs
 * (test_synth_challenges_against_hardcoded: nodes 2^10, replica_id = Fr(55),
 * comm_r = Fr(101), 21 synthetic challenges, 10 PoRep challenges, seed [1; 32]),
 * and the ChaCha20 core against RFC 8439 §2.3.2. */
#include <string.h>

#include "hash/chacha.h"
#include "filecoin/porep/synth.h"
#include "harness/harness.h"

static void test_rfc8439_block(void) {
    /* RFC 8439 2.3.2: key 00..1f, nonce 000000090000004a00000000, counter 1. */
    uint32_t key[8], out[16];
    uint8_t kb[32];
    for (int i = 0; i < 32; i++) kb[i] = (uint8_t)i;
    for (int i = 0; i < 8; i++) key[i] = cz_chacha_load32_le(kb + 4 * i);
    cz_chacha_block(out, key, 20, 1, 0x09000000, 0x4a000000, 0);
    static const uint32_t want[16] = {0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
                                      0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
                                      0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
                                      0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
    CHECK(memcmp(out, want, sizeof want) == 0);
}

static void test_hardcoded(void) {
    static const uint64_t want_synth[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                            801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t want_porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    uint8_t replica[32] = {55}, comm_r[32] = {101}, seed[32];
    memset(seed, 1, sizeof seed);
    cz_fc_synth s;
    CHECK(cz_fc_synth_init(&s, 1 << 10, replica, comm_r, 21, NULL) == CZ_OK);
    for (uint64_t i = 0; i < 21; i++) CHECK(cz_fc_synth_challenge(&s, i) == want_synth[i]);
    CHECK(cz_fc_synth_challenge(&s, 21) == 0);
    uint64_t porep[10], idx[10];
    CHECK(cz_fc_synth_porep_challenges(porep, idx, 10, &s, seed, 0, NULL) == CZ_OK);
    for (int t = 0; t < 10; t++) {
        CHECK(porep[t] == want_porep[t]);
        CHECK(idx[t] < 21 && want_synth[idx[t]] == porep[t]);
    }
    /* Partitioning: partition k of 5 equals slice k of one long request. */
    uint64_t all[10], part[2];
    CHECK(cz_fc_synth_porep_challenges(all, NULL, 10, &s, seed, 0, NULL) == CZ_OK);
    for (uint32_t k = 0; k < 5; k++) {
        CHECK(cz_fc_synth_porep_challenges(part, NULL, 2, &s, seed, k, NULL) == CZ_OK);
        CHECK(part[0] == all[2 * k] && part[1] == all[2 * k + 1]);
    }
    /* Default count is min(nodes, 2^18). */
    CHECK(cz_fc_synth_init(&s, 1 << 10, replica, comm_r, 0, NULL) == CZ_OK);
    CHECK(s.num_synth == 1 << 10);
    CHECK(cz_fc_synth_challenge(&s, 5) == want_synth[5]); /* same stream, larger count */
    CHECK(cz_fc_synth_init(&s, UINT64_C(1) << 30, replica, comm_r, 0, NULL) == CZ_OK);
    CHECK(s.num_synth == CZ_FC_SYNTH_DEFAULT_COUNT);
    cz_error err;
    CHECK(cz_fc_synth_init(&s, 2, replica, comm_r, 0, &err) == CZ_E_INVALID_ARG);
}

int main(void) {
    cz_test_init("filecoin_synth");
    test_rfc8439_block();
    test_hardcoded();
    return cz_test_finish("filecoin_synth");
}
