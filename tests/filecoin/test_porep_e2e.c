/* PoRep C2 end to end for a 2 KiB sector: a generated C1 output (a really
 * sealed small sector) is proven on the CPU with development parameters
 * (made by the `cuzk setup` fixture, directory in $CZ_PARAMS_DIR) and the
 * proof is checked the way Filecoin's verifier does. Then every input the
 * verifier recomputes is altered in turn and must be rejected: comm_r,
 * comm_d, replica_id, the seed (hence the challenges), a single challenge
 * inside the public inputs, and each byte position class of the proof. */
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/derive.h"
#include "filecoin/porep/porep.h"
#include "filecoin/porep/vanilla.h"
#include "groth16/prover.h"
#include "harness/harness.h"

#define MINER  1234
#define SECTOR 42

static cz_groth16_params params;
static cz_c1 c1;
static uint8_t prover_id[32];

static int verify_bytes(const cz_c1 *c, const uint8_t *proof, size_t len, const uint8_t *pid) {
    int valid = 0;
    cz_error err = {0};
    cz_status st = cz_porep_verify(&valid, c, &params.vk, proof, len, pid, SECTOR, &err);
    return st == CZ_OK && valid;
}

/* The public inputs of partition 0 with challenge `which` replaced, checked
 * directly against the proof: a proof is bound to each challenge. */
static int verify_with_challenge(const uint8_t *proof, unsigned which, uint64_t delta) {
    cz_porep_geometry g;
    cz_fc_proof_info info;
    cz_fc_graph graph;
    CHECK(cz_porep_geometry_of_c1(&g, &c1, NULL) == CZ_OK);
    CHECK(cz_fc_proof_lookup(&info, c1.registered_proof, NULL) == CZ_OK);
    CHECK(cz_fc_graph_init(&graph, g.nodes, info.porep_id, info.api_version, NULL) == CZ_OK);
    uint64_t ch[64];
    CHECK(g.challenges <= 64);
    CHECK(cz_fc_porep_challenges(ch, &c1, 0, NULL) == CZ_OK);
    ch[which] = (ch[which] + delta) % g.nodes;
    uint32_t n = cz_porep_num_inputs(&g) - 1;
    cz_fr *inputs = malloc(sizeof *inputs * n);
    CHECK(cz_porep_public_inputs(inputs, &g, &graph, c1.replica_id, c1.comm_d, c1.comm_r, ch,
                                 NULL) == CZ_OK);
    cz_groth16_proof p;
    int valid = 0;
    CHECK(cz_groth16_proof_decode(&p, proof, NULL) == CZ_OK);
    CHECK(cz_groth16_verify(&valid, &params.vk, &p, inputs, n, NULL) == CZ_OK);
    free(inputs);
    return valid;
}

int main(void) {
    cz_test_init("filecoin_porep_e2e");
    const char *dir = getenv("CZ_PARAMS_DIR");
    if (!dir) {
        printf("skipped: CZ_PARAMS_DIR not set (ctest sets it after `cuzk setup`)\n");
        return 77;
    }
    cz_error err = {0};
    cz_fc_gen_opts gen = {.registered_proof = 5, /* StackedDrg2KiBV1_1 */
                          .seed = cz_test_rand64(),
                          .miner_id = MINER,
                          .sector_num = SECTOR,
                          .sparse = 0};
    CHECK(cz_fc_gen_c1(&c1, &gen, &err) == CZ_OK);
    cz_fc_sector_info sector;
    char params_path[4096], vk_path[4096];
    CHECK(cz_fc_sector_lookup(&sector, c1.sector_size, NULL) == CZ_OK);
    CHECK(cz_porep_param_paths(params_path, vk_path, sizeof params_path, dir, &sector, NULL) ==
          CZ_OK);
    if (cz_groth16_params_read(&params, params_path, CZ_GROTH16_UNCHECKED, &err) != CZ_OK) {
        printf("cannot read %s: %s\n", params_path, err.message);
        return 1;
    }
    cz_fc_prover_id(prover_id, MINER);

    uint8_t proof[CZ_GROTH16_PROOF_BYTES];
    CHECK(c1.partitions == 1);
    {
        cz_porep_geometry g;
        cz_prove_data pd;
        cz_groth16_proof gp;
        CHECK(cz_porep_geometry_of_c1(&g, &c1, &err) == CZ_OK);
        CHECK(cz_porep_synthesize_partition(&pd, &g, &c1, 0, &err) == CZ_OK);
        CHECK(cz_groth16_prove(&gp, &params, &pd, NULL, NULL, &err) == CZ_OK);
        cz_groth16_proof_encode(proof, &gp);
        cz_prove_data_free(&pd);
    }
    CHECK(verify_bytes(&c1, proof, sizeof proof, prover_id));
    CHECK(verify_bytes(&c1, proof, sizeof proof, NULL));

    /* Wrong sector identity: replica_id no longer follows. */
    int valid = 1;
    CHECK(cz_porep_verify(&valid, &c1, &params.vk, proof, sizeof proof, prover_id, SECTOR + 1,
                          &err) != CZ_OK);
    CHECK(!valid && strstr(err.message, "replica_id") != NULL);

    /* Each recomputed input altered (one bit of byte 0: stays canonical). */
    uint8_t *fields[] = {c1.comm_r, c1.comm_d, c1.replica_id, c1.seed};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        fields[i][0] ^= 1;
        CHECK(!verify_bytes(&c1, proof, sizeof proof, NULL));
        fields[i][0] ^= 1;
    }
    CHECK(verify_bytes(&c1, proof, sizeof proof, NULL));
    /* A proof that does not verify is reported as such: CZ_OK, *valid = 0,
     * and the error names the partition with CZ_E_VERIFY (not CZ_OK). */
    c1.comm_r[0] ^= 1;
    err = (cz_error){0};
    CHECK(cz_porep_verify(&valid, &c1, &params.vk, proof, sizeof proof, NULL, SECTOR, &err) ==
          CZ_OK);
    CHECK(!valid && err.status == CZ_E_VERIFY);
    CHECK(strstr(err.message, "partition 0: proof does not verify") != NULL);
    c1.comm_r[0] ^= 1;
    for (unsigned i = 0; i < c1.challenges_per_partition; i++)
        CHECK(!verify_with_challenge(proof, i, 1));
    CHECK(verify_with_challenge(proof, 0, 0));

    /* Every byte of the proof matters: flip one bit at a spread of
     * positions (A, B's two coordinates, C); decoding or pairing fails. */
    for (size_t pos = 0; pos < sizeof proof; pos += 7) {
        proof[pos] ^= 0x10;
        CHECK(!verify_bytes(&c1, proof, sizeof proof, NULL));
        proof[pos] ^= 0x10;
    }
    /* Wrong length. */
    CHECK(cz_porep_verify(&valid, &c1, &params.vk, proof, sizeof proof - 1, NULL, 0, &err) ==
          CZ_E_INVALID_ARG);

    cz_c1_free(&c1);
    cz_groth16_params_free(&params);
    return cz_test_finish("filecoin_porep_e2e");
}
