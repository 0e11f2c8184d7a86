/* SnapDeals parameter files, pre-compiled circuit, witness and
 * verification; see snap_prove.h. */
#include "filecoin/snap/snap_prove.h"

#include <stdlib.h>

#include "filecoin/common/circuit_files.h"
#include "filecoin/snap/snap_circuit.h"

static cz_status stem_path(char *out, size_t cap, const char *dir, const cz_snap_config *cfg,
                           const char *ext, cz_error *err) {
    char stem[256];
    cz_status st = cz_snap_param_file_stem(stem, sizeof stem, cfg, err);
    return st == CZ_OK ? cz_fc_stem_path(out, cap, dir, stem, ext, err) : st;
}

cz_status cz_snap_param_paths(char *params_path, char *vk_path, size_t cap, const char *dir,
                              const cz_snap_config *cfg, cz_error *err) {
    cz_status st = stem_path(params_path, cap, dir, cfg, ".params", err);
    return st == CZ_OK ? stem_path(vk_path, cap, dir, cfg, ".vk", err) : st;
}

cz_status cz_snap_circuit_path(char *path, size_t cap, const char *dir, const cz_snap_config *cfg,
                               cz_error *err) {
    return stem_path(path, cap, dir, cfg, ".czc", err);
}

static cz_status snap_blank(cz_cs *cs, const void *cfg, cz_error *err) {
    return cz_snap_synthesize(cs, cfg, 0, NULL, NULL, NULL, NULL, err);
}

cz_status cz_snap_circuit_load(cz_circuit **out, int *built, const char *path,
                               const cz_snap_config *cfg, FILE *progress, cz_error *err) {
    return cz_fc_circuit_load(out, built, path, snap_blank, cfg, "once per size", progress, err);
}

cz_status cz_snap_synthesize_witness(cz_witness *w, const cz_snap_config *cfg, uint32_t partition,
                                     const cz_snap_comms *comms,
                                     const cz_snap_partition_proof *proof, cz_error *err) {
    cz_witness_free(w); /* before the new one: one partition's witness at a time */
    cz_cs *cs = cz_cs_witness_new();
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "snap witness: out of memory");
    cz_fr *input = NULL, *aux = NULL;
    uint32_t ni = 0, na = 0;
    cz_status st = cz_snap_synthesize(cs, cfg, partition, comms, proof, NULL, NULL, err);
    if (st == CZ_OK) st = cz_witness_finish(cs, &input, &ni, &aux, &na, err);
    cz_cs_destroy(cs);
    if (st != CZ_OK) return cz_error_wrap(err, st, "snap witness: partition %u", partition);
    w->input = input, w->input_cap = ni, w->num_inputs = ni;
    w->aux = aux, w->aux_cap = na, w->num_aux = na;
    return CZ_OK;
}

cz_status cz_snap_verify(int *valid, const cz_snap_config *cfg, const cz_groth16_vk *vk,
                         const cz_snap_comms *comms, const uint8_t *proof, size_t proof_len,
                         cz_error *err) {
    *valid = 0;
    if (proof_len != (size_t)cfg->partitions * CZ_GROTH16_PROOF_BYTES)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "proof is %zu bytes, a %u-partition update needs %zu", proof_len,
                            cfg->partitions, (size_t)cfg->partitions * CZ_GROTH16_PROOF_BYTES);
    if (vk->n_ic != CZ_SNAP_PUBLIC_INPUTS + 1)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "verifying key has %zu input points, the update circuit needs %d",
                            vk->n_ic, CZ_SNAP_PUBLIC_INPUTS + 1);
    cz_status st = CZ_OK;
    int all_valid = 1;
    for (uint32_t k = 0; st == CZ_OK && k < cfg->partitions; k++) {
        cz_fr inputs[CZ_SNAP_PUBLIC_INPUTS];
        cz_groth16_proof p;
        int ok = 0;
        st = cz_snap_public_inputs(inputs, cfg, comms, k, err);
        if (st == CZ_OK)
            st = cz_groth16_proof_decode(&p, proof + (size_t)k * CZ_GROTH16_PROOF_BYTES, err);
        if (st == CZ_OK) st = cz_groth16_verify(&ok, vk, &p, inputs, CZ_SNAP_PUBLIC_INPUTS, err);
        if (st != CZ_OK)
            cz_error_prefix(err, "partition %u", k);
        else if (!ok && all_valid) {
            all_valid = 0;
            cz_error_set(err, CZ_E_VERIFY, "partition %u: proof does not verify", k);
        }
    }
    if (st != CZ_OK) return st;
    *valid = all_valid;
    return CZ_OK;
}
