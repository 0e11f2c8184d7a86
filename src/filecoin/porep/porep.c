/* PoRep C2 glue: parameter paths, per-partition synthesis, CPU proving and
 * verification of the proof bytes (see porep.h). */
#include "filecoin/porep/porep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/common/circuit_files.h"
#include "filecoin/porep/vanilla.h"
#include "groth16/prover.h"
#include "util/parallel.h"

static cz_status stem_path(char *out, size_t cap, const char *dir, const cz_fc_sector_info *sector,
                           const char *ext, cz_error *err) {
    char stem[256];
    cz_status st = cz_fc_param_file_stem(stem, sizeof stem, sector, err);
    return st == CZ_OK ? cz_fc_stem_path(out, cap, dir, stem, ext, err) : st;
}

cz_status cz_porep_param_paths(char *params_path, char *vk_path, size_t cap, const char *dir,
                               const cz_fc_sector_info *sector, cz_error *err) {
    cz_status st = stem_path(params_path, cap, dir, sector, ".params", err);
    return st == CZ_OK ? stem_path(vk_path, cap, dir, sector, ".vk", err) : st;
}

cz_status cz_porep_circuit_path(char *path, size_t cap, const char *dir,
                                const cz_fc_sector_info *sector, cz_error *err) {
    return stem_path(path, cap, dir, sector, ".czc", err);
}

static cz_status porep_blank(cz_cs *cs, const void *sector, cz_error *err) {
    cz_porep_geometry g;
    cz_status st = cz_porep_geometry_from_sector(&g, sector, err);
    return st == CZ_OK ? cz_porep_synthesize(cs, &g, NULL, 0, err) : st;
}

cz_status cz_porep_circuit_load(cz_circuit **out, int *built, const char *path,
                                const cz_fc_sector_info *sector, FILE *progress, cz_error *err) {
    return cz_fc_circuit_load(out, built, path, porep_blank, sector, "once per sector size",
                              progress, err);
}

cz_status cz_porep_geometry_of_c1(cz_porep_geometry *out, const cz_c1 *c1, cz_error *err) {
    cz_fc_sector_info sector;
    cz_status st = cz_fc_sector_lookup(&sector, c1->sector_size, err);
    if (st != CZ_OK) return st;
    return cz_porep_geometry_from_sector(out, &sector, err);
}

cz_status cz_porep_synthesize_partition(cz_prove_data *out, const cz_porep_geometry *g,
                                        const cz_c1 *c1, uint32_t partition, cz_error *err) {
    memset(out, 0, sizeof *out);
    if (partition >= c1->partitions)
        return cz_error_set(err, CZ_E_INVALID_ARG, "partition %u out of range (sector has %u)",
                            partition, c1->partitions);
    cz_cs *cs = cz_cs_prove_new();
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "out of memory for the constraint system");
    cz_status st = cz_porep_synthesize(cs, g, c1, partition, err);
    if (st == CZ_OK) st = cz_prove_finish(cs, out, err);
    cz_cs_destroy(cs);
    return st;
}

cz_status cz_porep_verifier_inputs(cz_fr **out, uint32_t *n_inputs, const cz_c1 *c1,
                                   const uint8_t *prover_id, uint64_t sector_id, cz_error *err) {
    *out = NULL;
    *n_inputs = 0;
    cz_fc_proof_info info;
    cz_status st = cz_fc_proof_lookup(&info, c1->registered_proof, err);
    if (st != CZ_OK) return st;
    if (prover_id && (st = cz_fc_check_replica_id(c1, prover_id, sector_id, err)) != CZ_OK)
        return st;
    cz_porep_geometry g;
    if ((st = cz_porep_geometry_of_c1(&g, c1, err)) != CZ_OK) return st;
    const uint32_t n = cz_porep_num_inputs(&g) - 1;
    cz_fc_graph graph;
    if ((st = cz_fc_graph_init(&graph, g.nodes, info.porep_id, info.api_version, err)) != CZ_OK)
        return st;
    uint64_t *challenges = malloc(sizeof *challenges * g.challenges);
    cz_fr *inputs = malloc(sizeof *inputs * n * (size_t)c1->partitions);
    if (!challenges || !inputs) {
        free(challenges), free(inputs);
        return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; st == CZ_OK && k < c1->partitions; k++) {
        st = cz_fc_porep_challenges(challenges, c1, k, err);
        if (st == CZ_OK)
            st = cz_porep_public_inputs(inputs + (size_t)k * n, &g, &graph, c1->replica_id,
                                        c1->comm_d, c1->comm_r, challenges, err);
        if (st != CZ_OK) cz_error_prefix(err, "partition %u", k);
    }
    free(challenges);
    if (st != CZ_OK) {
        free(inputs);
        return st;
    }
    *out = inputs;
    *n_inputs = n;
    return CZ_OK;
}

cz_status cz_porep_verify(int *valid, const cz_c1 *c1, const cz_groth16_vk *vk,
                          const uint8_t *proof, size_t proof_len, const uint8_t *prover_id,
                          uint64_t sector_id, cz_error *err) {
    *valid = 0;
    if (proof_len != (size_t)c1->partitions * CZ_GROTH16_PROOF_BYTES)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "proof is %zu bytes, a %u-partition sector needs %zu", proof_len,
                            c1->partitions, (size_t)c1->partitions * CZ_GROTH16_PROOF_BYTES);
    cz_fr *inputs = NULL;
    uint32_t n_inputs = 0;
    cz_status st = cz_porep_verifier_inputs(&inputs, &n_inputs, c1, prover_id, sector_id, err);
    if (st != CZ_OK) return st;
    if (vk->n_ic != (size_t)n_inputs + 1) {
        free(inputs);
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "verifying key has %zu input points, this circuit needs %u", vk->n_ic,
                            n_inputs + 1);
    }
    int all_valid = 1;
    for (uint32_t k = 0; st == CZ_OK && k < c1->partitions; k++) {
        cz_groth16_proof p;
        int ok = 0;
        st = cz_groth16_proof_decode(&p, proof + (size_t)k * CZ_GROTH16_PROOF_BYTES, err);
        if (st == CZ_OK)
            st = cz_groth16_verify(&ok, vk, &p, inputs + (size_t)k * n_inputs, n_inputs, err);
        if (st != CZ_OK)
            cz_error_prefix(err, "partition %u", k);
        else if (!ok) {
            all_valid = 0;
            cz_error_set(err, CZ_E_VERIFY, "partition %u: proof does not verify", k);
        }
    }
    free(inputs);
    if (st == CZ_OK) *valid = all_valid;
    return st;
}
