/* cuzk setup --kind winning-post|window-post, cuzk prove --post,
 * cuzk verify --post: WinningPoSt and WindowPoSt from the command line
 * (filecoin/post/post.h). A request file (`cuzk gen post`) holds what Curio
 * sends: registered proof, miner, partition index, randomness and the
 * bincode vanilla proofs. prove runs them through an engine of its own, as
 * the daemon does (vanilla proofs decoded and verified in prepare, the
 * proof self-verified before it is returned); verify recomputes the public
 * inputs from the randomness, partition and the sectors' ids and comm_rs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/post/post.h"
#include "filecoin/post/post_circuit.h"
#include "filecoin/post/post_prove.h"
#include "util/parallel.h"

static cz_status post_circuit(cz_circuit **out, int *built, const char *path, const void *ctx,
                              FILE *progress, cz_error *err) {
    return cz_post_circuit_load(out, built, path, ctx, progress, err);
}

int cz_cli_post_setup(int kind, uint64_t sector_size, const char *dir, int force,
                      const char *backend) {
    cz_error err = {0};
    cz_post_config cfg;
    char params_path[4096], vk_path[4096], circuit_path[4096];
    if (cz_post_config_from_sector(&cfg, (cz_post_kind)kind, sector_size, &err) != CZ_OK ||
        cz_cli_make_dir(dir, &err) != CZ_OK ||
        cz_post_param_paths(params_path, vk_path, sizeof params_path, dir, &cfg, &err) != CZ_OK ||
        cz_post_circuit_path(circuit_path, sizeof circuit_path, dir, &cfg, &err) != CZ_OK)
        return cz_cli_fail("setup", &err);
    char what[128];
    snprintf(what, sizeof what, "%sPoSt circuit of %llu-byte sectors (%u x %u)",
             kind == CZ_POST_WINNING ? "Winning" : "Window", (unsigned long long)sector_size,
             cfg.sector_count, cfg.challenge_count);
    return cz_cli_setup_report(dir, force, backend, params_path, vk_path, circuit_path, what,
                               post_circuit, &cfg);
}

cz_status cz_cli_post_request_load(cz_post_request *req, const char *path, cz_error *err) {
    uint8_t *bytes = NULL;
    size_t len = 0;
    cz_status st = cz_cli_read_file(&bytes, &len, path, (size_t)1 << 31, err);
    if (st == CZ_OK) st = cz_post_request_parse_json(req, bytes, len, err);
    free(bytes);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", path);
    cz_post_proof_info info;
    cz_post_proof_lookup(&info, req->registered_proof, NULL);
    printf("  request                 %s, %u vanilla proof%s, miner f0%llu", info.name,
           req->n_proofs, req->n_proofs == 1 ? "" : "s", (unsigned long long)req->miner_id);
    if (req->kind == CZ_POST_WINDOW) printf(", partition %u", req->partition_index);
    printf("\n");
    return CZ_OK;
}

void cz_cli_post_engine_request(cz_engine_request *er, const cz_post_request *req, const char *id) {
    memset(er, 0, sizeof *er);
    er->request_id = id;
    er->kind = req->kind == CZ_POST_WINNING ? CZ_PROOF_WINNING_POST : CZ_PROOF_WINDOW_POST;
    er->sector_size = req->sector_size;
    er->registered_proof = req->registered_proof;
    er->miner_id = req->miner_id;
    er->vanilla_proofs = (const uint8_t *const *)req->proofs;
    er->vanilla_proofs_len = req->proof_lens;
    er->n_vanilla_proofs = req->n_proofs;
    er->randomness = req->randomness;
    er->randomness_len = 32;
    er->partition_index = req->partition_index;
}

int cz_cli_post_prove(const char *request, const char *params, const char *out_path,
                      const char *backend) {
    cz_error err = {0};
    if (!cz_cli_is_dir(params)) {
        fprintf(stderr,
                "cuzk prove: --params '%s': a PoSt proof reads its parameters by their Filecoin "
                "name from a directory\n",
                params);
        return 1;
    }
    uint64_t t0 = cz_now_ns();
    cz_post_request req;
    cz_status st = cz_cli_post_request_load(&req, request, &err);
    if (st != CZ_OK) return cz_cli_fail("prove", &err);
    cz_engine_request er;
    cz_cli_post_engine_request(&er, &req, "cli");
    int rc = cz_cli_request_prove(&er, params, out_path, backend, t0);
    cz_post_request_free(&req);
    return rc;
}

int cz_cli_post_verify(const char *request, const char *vk_arg, const char *proof_path,
                       int print_inputs) {
    cz_error err = {0};
    cz_post_request req;
    cz_status st = cz_cli_post_request_load(&req, request, &err);
    if (st != CZ_OK) return cz_cli_fail("verify", &err);
    cz_post_config cfg;
    cz_fc_api_version api;
    cz_post_sector_proof *p = NULL;
    uint32_t n = 0;
    /* only the sectors' ids and comm_rs are read from the vanilla proofs:
     * they stand for the chain's sector list */
    st = cz_post_request_decode(&cfg, &api, &p, &n, req.registered_proof, req.sector_size,
                                (const uint8_t *const *)req.proofs, req.proof_lens, req.n_proofs,
                                req.randomness, 32, req.partition_index, 0, &err);
    char params_path[4096], vk_path[4096];
    if (st == CZ_OK && vk_arg && cz_cli_is_dir(vk_arg))
        st = cz_post_param_paths(params_path, vk_path, sizeof vk_path, vk_arg, &cfg, &err);
    else
        snprintf(vk_path, sizeof vk_path, "%s", vk_arg ? vk_arg : "");
    cz_groth16_vk vk = {0};
    uint8_t *proof = NULL;
    size_t proof_len = 0;
    if (st == CZ_OK && vk_arg)
        st = cz_cli_read_vk_proof(&vk, &proof, &proof_len, vk_path, proof_path, &err);
    uint64_t *ids = st == CZ_OK ? malloc(sizeof *ids * n) : NULL;
    cz_fr *comm_rs = st == CZ_OK ? malloc(sizeof *comm_rs * n) : NULL;
    if (st == CZ_OK && (!ids || !comm_rs)) st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    int valid = 0;
    const uint32_t partition = req.kind == CZ_POST_WINNING ? 0 : req.partition_index;
    if (st == CZ_OK)
        for (uint32_t i = 0; i < n; i++) ids[i] = p[i].sector_id, comm_rs[i] = p[i].comm_r;
    if (st == CZ_OK && print_inputs) {
        const uint32_t n_inputs = cz_post_num_inputs(&cfg) - 1;
        cz_fr *inputs = malloc(sizeof *inputs * n_inputs);
        if (!inputs) st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
        if (st == CZ_OK)
            st = cz_post_public_inputs(inputs, &cfg, api, req.randomness, partition, ids, comm_rs,
                                       n, &err);
        if (st == CZ_OK) cz_cli_print_inputs(partition, 1, inputs, n_inputs);
        free(inputs);
    }
    if (st == CZ_OK && vk_arg)
        st = cz_post_verify(&valid, &cfg, api, &vk, req.randomness, partition, ids, comm_rs, n,
                            proof, proof_len, &err);
    for (uint32_t i = 0; i < n; i++) cz_post_sector_proof_free(&p[i]);
    free(p), free(ids), free(comm_rs), free(proof);
    cz_groth16_vk_free(&vk);
    cz_post_request_free(&req);
    if (st == CZ_OK && !vk_arg) return 0; /* inputs printed, nothing to verify */
    return cz_cli_verify_outcome(st, valid, &err);
}
