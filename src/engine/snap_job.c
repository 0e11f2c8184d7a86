/* SnapDeals (EmptySectorUpdate) as an engine job kind: one unit per
 * partition (1, 4 or 16), pipelined like PoRep's partitions.
 *
 * admit (in the submitting thread) decodes every partition proof and runs
 * the vanilla verifier (EmptySectorUpdate::verify, stricter) with the
 * request's commitments, so a malformed or inconsistent request is refused
 * at submission with INVALID_ARGUMENT naming the proof and the field;
 * synthesis makes the witness only (a, b, c come from the pre-compiled
 * circuit in the back-end, as for PoRep and PoSt); the proofs are verified
 * against public inputs recomputed from the commitments and the partition
 * index, as Filecoin's verifier does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "engine/srs.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_prove.h"

typedef struct {
    cz_witness_job base; /* first: the skeleton's part */
    cz_snap_config cfg;
    cz_snap_comms comms;
    cz_snap_partition_proof *proofs; /* cfg.partitions */
} snap_state;

/* One partition's witness (on the calling thread). */
static cz_status snap_fill(void *state, uint32_t unit, cz_witness *w, unsigned threads,
                           cz_error *err) {
    (void)threads;
    snap_state *s = state;
    return cz_snap_synthesize_witness(w, &s->cfg, unit, &s->comms, &s->proofs[unit], err);
}

static cz_status snap_admit(void **statep, const cz_engine_request *req, cz_error *err) {
    snap_state *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "snap: out of memory");
    cz_witness_job_init(&s->base, snap_fill);
    *statep = s;
    if (req->registered_proof > UINT32_MAX)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "registered_proof %" PRIu64 " is not an update proof (0-4)",
                            req->registered_proof);
    if (req->n_vanilla_proofs > UINT32_MAX)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%zu vanilla proofs", req->n_vanilla_proofs);
    cz_status st = cz_snap_request_decode(
        &s->cfg, &s->comms, &s->proofs, (uint32_t)req->registered_proof, req->sector_size,
        req->vanilla_proofs, req->vanilla_proofs_len, (uint32_t)req->n_vanilla_proofs,
        req->comm_r_old, req->comm_r_old_len, req->comm_d_new, req->comm_d_new_len, req->comm_r_new,
        req->comm_r_new_len, 1, err);
    if (st != CZ_OK) return st;
    if (!cz_srs_snap_circuit_id(s->cfg.nodes * 32))
        return cz_error_set(err, CZ_E_UNSUPPORTED, "no update circuit for %" PRIu64 "-byte sectors",
                            s->cfg.nodes * 32);
    return CZ_OK;
}

static cz_status snap_prepare(void **statep, cz_job_plan *plan, const cz_engine_request *req,
                              const char *param_cache, cz_error *err) {
    cz_status st = CZ_OK;
    if (!*statep && (st = snap_admit(statep, req, err)) != CZ_OK) return st;
    snap_state *s = *statep;
    char params_path[4096], vk_path[4096];
    st = cz_snap_param_paths(params_path, vk_path, sizeof params_path, param_cache, &s->cfg, err);
    uint64_t unit_bytes = 0, m = 0;
    if (st == CZ_OK)
        st =
            cz_job_unit_bytes_from_params(&unit_bytes, &m, params_path, plan->host_evaluation, err);
    if (st != CZ_OK) return st;
    cz_witness_job_plan(&s->base, plan, cz_srs_snap_circuit_id(s->cfg.nodes * 32),
                        s->cfg.partitions, unit_bytes, m);
    return CZ_OK;
}

static cz_status snap_verify(void *state, const uint8_t *proof, size_t len,
                             const cz_srs_handle *srs, cz_error *err) {
    snap_state *s = state;
    int valid = 0;
    cz_status st = cz_snap_verify(&valid, &s->cfg, srs->vk, &s->comms, proof, len, err);
    if (st != CZ_OK) return st;
    /* cz_snap_verify recorded which partition failed (CZ_E_VERIFY). */
    return valid ? CZ_OK : CZ_E_VERIFY;
}

static void snap_free(void *state) {
    snap_state *s = state;
    if (!s) return;
    if (s->proofs) cz_snap_proofs_free(s->proofs, s->cfg.partitions);
    cz_witness_job_free(&s->base);
    free(s);
}

const cz_job_ops cz_job_ops_snap = {
    .name = "snap-update",
    .prepare = snap_prepare,
    .synthesize = cz_job_witness_synthesize,
    .prove_start = cz_job_witness_prove_start,
    .prep = cz_job_witness_prep,
    .prove_finish = cz_job_msm_prove_finish,
    .discard = cz_job_witness_discard,
    .verify = snap_verify,
    .free_state = snap_free,
    .admit = snap_admit,
};
