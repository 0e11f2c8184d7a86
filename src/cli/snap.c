/* cuzk setup --kind snap, cuzk prove --snap, cuzk verify --snap: SnapDeals
 * (EmptySectorUpdate) from the command line (filecoin/snap/snap.h). A request
 * file (`cuzk gen snap`) holds what Curio sends: the registered update
 * proof, comm_r_old, comm_d_new, comm_r_new and one bincode partition proof
 * per partition. prove runs it through an engine of its own, as the daemon
 * does (partition proofs decoded and verified at submission, every
 * partition's proof self-verified before the bytes are returned); verify
 * recomputes the public inputs from the commitments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_prove.h"
#include "util/parallel.h"

static cz_status snap_circuit(cz_circuit **out, int *built, const char *path, const void *ctx,
                              FILE *progress, cz_error *err) {
    return cz_snap_circuit_load(out, built, path, ctx, progress, err);
}

int cz_cli_snap_setup(uint64_t sector_size, const char *dir, int force, const char *backend) {
    cz_error err = {0};
    cz_snap_config cfg;
    char params_path[4096], vk_path[4096], circuit_path[4096];
    if (cz_snap_config_from_sector(&cfg, sector_size, &err) != CZ_OK ||
        cz_cli_make_dir(dir, &err) != CZ_OK ||
        cz_snap_param_paths(params_path, vk_path, sizeof params_path, dir, &cfg, &err) != CZ_OK ||
        cz_snap_circuit_path(circuit_path, sizeof circuit_path, dir, &cfg, &err) != CZ_OK)
        return cz_cli_fail("setup", &err);
    char what[128];
    snprintf(what, sizeof what,
             "EmptySectorUpdate circuit of %llu-byte sectors (one of %u partitions)",
             (unsigned long long)sector_size, cfg.partitions);
    return cz_cli_setup_report(dir, force, backend, params_path, vk_path, circuit_path, what,
                               snap_circuit, &cfg);
}

/* Reads and parses a request file; prints what it holds. */
cz_status cz_cli_snap_request_load(cz_snap_request *req, const char *path, cz_error *err) {
    uint8_t *bytes = NULL;
    size_t len = 0;
    cz_status st = cz_cli_read_file(&bytes, &len, path, (size_t)1 << 31, err);
    if (st == CZ_OK) st = cz_snap_request_parse_json(req, bytes, len, err);
    free(bytes);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", path);
    printf("  request                 %s update, %u partition proof%s\n",
           cz_snap_proof_name(req->registered_proof), req->n_proofs, req->n_proofs == 1 ? "" : "s");
    return CZ_OK;
}

void cz_cli_snap_engine_request(cz_engine_request *er, const cz_snap_request *req, const char *id) {
    memset(er, 0, sizeof *er);
    er->request_id = id;
    er->kind = CZ_PROOF_SNAP;
    er->sector_size = req->sector_size;
    er->registered_proof = req->registered_proof;
    er->vanilla_proofs = (const uint8_t *const *)req->proofs;
    er->vanilla_proofs_len = req->proof_lens;
    er->n_vanilla_proofs = req->n_proofs;
    er->comm_r_old = req->comm_r_old, er->comm_r_old_len = 32;
    er->comm_d_new = req->comm_d_new, er->comm_d_new_len = 32;
    er->comm_r_new = req->comm_r_new, er->comm_r_new_len = 32;
}

int cz_cli_snap_prove(const char *request, const char *params, const char *out_path,
                      const char *backend) {
    cz_error err = {0};
    if (!cz_cli_is_dir(params)) {
        fprintf(stderr,
                "cuzk prove: --params '%s': a SnapDeals proof reads its parameters by their "
                "Filecoin name from a directory\n",
                params);
        return 1;
    }
    uint64_t t0 = cz_now_ns();
    cz_snap_request req;
    cz_status st = cz_cli_snap_request_load(&req, request, &err);
    if (st != CZ_OK) return cz_cli_fail("prove", &err);
    cz_engine_request er;
    cz_cli_snap_engine_request(&er, &req, "cli");
    int rc = cz_cli_request_prove(&er, params, out_path, backend, t0);
    cz_snap_request_free(&req);
    return rc;
}

int cz_cli_snap_verify(const char *request, const char *vk_arg, const char *proof_path,
                       int print_inputs) {
    cz_error err = {0};
    cz_snap_request req;
    cz_status st = cz_cli_snap_request_load(&req, request, &err);
    if (st != CZ_OK) return cz_cli_fail("verify", &err);
    /* only the size and the commitments are read from the request: the
     * verifier's public inputs */
    uint64_t size = 0;
    cz_snap_config cfg;
    cz_snap_comms comms;
    if ((st = cz_snap_proof_sector_size(&size, req.registered_proof, &err)) == CZ_OK)
        st = cz_snap_config_from_sector(&cfg, size, &err);
    if (st == CZ_OK)
        st = cz_snap_comms_from_bytes(&comms, req.comm_r_old, 32, req.comm_d_new, 32,
                                      req.comm_r_new, 32, &err);
    for (uint32_t k = 0; st == CZ_OK && print_inputs && k < cfg.partitions; k++) {
        cz_fr inputs[CZ_SNAP_PUBLIC_INPUTS];
        st = cz_snap_public_inputs(inputs, &cfg, &comms, k, &err);
        if (st == CZ_OK) cz_cli_print_inputs(k, k == 0, inputs, CZ_SNAP_PUBLIC_INPUTS);
    }
    char params_path[4096], vk_path[4096];
    if (st == CZ_OK && vk_arg && cz_cli_is_dir(vk_arg))
        st = cz_snap_param_paths(params_path, vk_path, sizeof vk_path, vk_arg, &cfg, &err);
    else
        snprintf(vk_path, sizeof vk_path, "%s", vk_arg ? vk_arg : "");
    cz_groth16_vk vk = {0};
    uint8_t *proof = NULL;
    size_t proof_len = 0;
    int valid = 0;
    if (st == CZ_OK && vk_arg)
        st = cz_cli_read_vk_proof(&vk, &proof, &proof_len, vk_path, proof_path, &err);
    if (st == CZ_OK && vk_arg)
        st = cz_snap_verify(&valid, &cfg, &vk, &comms, proof, proof_len, &err);
    free(proof);
    cz_groth16_vk_free(&vk);
    cz_snap_request_free(&req);
    if (st == CZ_OK && !vk_arg) return 0; /* inputs printed, nothing to verify */
    return cz_cli_verify_outcome(st, valid, &err);
}
