/* Fallback PoSt parameter files, pre-compiled circuit and verification; see
 * post_prove.h. */
#include "filecoin/post/post_prove.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/common/circuit_files.h"
#include "filecoin/post/post_circuit.h"
#include "r1cs/backends.h"
#include "util/parallel.h"

static cz_status stem_path(char *out, size_t cap, const char *dir, const cz_post_config *cfg,
                           const char *ext, cz_error *err) {
    char stem[256];
    cz_status st = cz_post_param_file_stem(stem, sizeof stem, cfg, err);
    return st == CZ_OK ? cz_fc_stem_path(out, cap, dir, stem, ext, err) : st;
}

cz_status cz_post_param_paths(char *params_path, char *vk_path, size_t cap, const char *dir,
                              const cz_post_config *cfg, cz_error *err) {
    cz_status st = stem_path(params_path, cap, dir, cfg, ".params", err);
    return st == CZ_OK ? stem_path(vk_path, cap, dir, cfg, ".vk", err) : st;
}

cz_status cz_post_circuit_path(char *path, size_t cap, const char *dir, const cz_post_config *cfg,
                               cz_error *err) {
    return stem_path(path, cap, dir, cfg, ".czc", err);
}

static cz_status post_blank(cz_cs *cs, const void *cfg, cz_error *err) {
    return cz_post_synthesize(cs, cfg, NULL, 0, NULL, NULL, err);
}

cz_status cz_post_circuit_load(cz_circuit **out, int *built, const char *path,
                               const cz_post_config *cfg, FILE *progress, cz_error *err) {
    return cz_fc_circuit_load(out, built, path, post_blank, cfg, "once per kind and size", progress,
                              err);
}

cz_status cz_post_verify(int *valid, const cz_post_config *cfg, cz_fc_api_version api,
                         const cz_groth16_vk *vk, const uint8_t randomness[32], uint32_t partition,
                         const uint64_t *sector_ids, const cz_fr *comm_rs, uint32_t n,
                         const uint8_t *proof, size_t proof_len, cz_error *err) {
    *valid = 0;
    if (proof_len != CZ_GROTH16_PROOF_BYTES)
        return cz_error_set(err, CZ_E_INVALID_ARG, "proof is %zu bytes, a %s PoSt proof is %d",
                            proof_len, cz_post_kind_name(cfg->kind), CZ_GROTH16_PROOF_BYTES);
    uint32_t n_inputs = cz_post_num_inputs(cfg) - 1;
    if (vk->n_ic != (size_t)n_inputs + 1)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "verifying key has %zu input points, this circuit needs %u", vk->n_ic,
                            n_inputs + 1);
    cz_fr *inputs = malloc(sizeof *inputs * n_inputs);
    if (!inputs) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    cz_groth16_proof p;
    int ok = 0;
    cz_status st =
        cz_post_public_inputs(inputs, cfg, api, randomness, partition, sector_ids, comm_rs, n, err);
    if (st == CZ_OK) st = cz_groth16_proof_decode(&p, proof, err);
    if (st == CZ_OK) st = cz_groth16_verify(&ok, vk, &p, inputs, n_inputs, err);
    free(inputs);
    if (st != CZ_OK) return st;
    if (!ok) cz_error_set(err, CZ_OK, "the proof does not verify");
    *valid = ok;
    return CZ_OK;
}
