/* Fallback PoSt parameter files, pre-compiled circuit and verification; see
 * post_prove.h. */
#include "filecoin/post_prove.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/post_circuit.h"
#include "r1cs/backends.h"
#include "util/parallel.h"

cz_status cz_fc_stem_path(char *out, size_t cap, const char *dir, const char *stem, const char *ext,
                          cz_error *err) {
    const char *sep = (dir[0] && dir[strlen(dir) - 1] != '/') ? "/" : "";
    int n = snprintf(out, cap, "%s%s%s%s", dir, sep, stem, ext);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "parameter path under '%s' is too long", dir);
    return CZ_OK;
}

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

cz_status cz_fc_circuit_load(cz_circuit **out, int *built, const char *path,
                             cz_fc_blank_synth_fn synthesize, const void *ctx, FILE *progress,
                             cz_error *err) {
    *out = NULL;
    *built = 0;
    cz_error open_err = {0};
    if (access(path, F_OK) == 0) {
        if (cz_circuit_open(out, path, CZ_CIRCUIT_CHECKED, 0, &open_err) == CZ_OK) return CZ_OK;
        if (progress)
            fprintf(progress, "circuit %s: %s: building it again\n", path, open_err.message);
    } else if (progress) {
        fprintf(progress, "circuit %s: not found: building it (once per kind and size)\n", path);
    }
    uint64_t t0 = cz_now_ns();
    cz_cs *cs = cz_cs_compile_new();
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "circuit %s: out of memory", path);
    cz_circuit *c = NULL;
    cz_status st = synthesize(cs, ctx, err);
    if (st == CZ_OK) st = cz_compile_finish(cs, &c, err);
    cz_cs_destroy(cs);
    if (st == CZ_OK) st = cz_circuit_write(c, path, err);
    uint64_t checksum = c ? c->checksum : 0;
    cz_circuit_free(c); /* the mapping replaces the heap copy */
    if (st == CZ_OK) st = cz_circuit_open(out, path, CZ_CIRCUIT_TRUSTED, checksum, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "circuit %s", path);
    *built = 1;
    if (progress)
        fprintf(progress, "circuit %s: built in %.1f s (%.2f GB)\n", path,
                (double)(cz_now_ns() - t0) / 1e9, (double)cz_circuit_bytes(*out) / 1e9);
    return CZ_OK;
}

static cz_status post_blank(cz_cs *cs, const void *cfg, cz_error *err) {
    return cz_post_synthesize(cs, cfg, NULL, 0, NULL, NULL, err);
}

cz_status cz_post_circuit_load(cz_circuit **out, int *built, const char *path,
                               const cz_post_config *cfg, FILE *progress, cz_error *err) {
    return cz_fc_circuit_load(out, built, path, post_blank, cfg, progress, err);
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
