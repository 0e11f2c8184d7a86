/* PoRep C2 as an engine job kind: one unit per partition. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "engine/srs.h"
#include "filecoin/common/derive.h"
#include "filecoin/porep/c1_envelope.h"
#include "filecoin/porep/porep.h"
#include "filecoin/common/registry.h"
#include "filecoin/porep/vanilla.h"
#include "groth16/groth16.h"

typedef struct {
    cz_witness_job base; /* first: the skeleton's part */
    cz_c1 c1;
    cz_porep_geometry geometry;
    int has_prover_id;
    uint8_t prover_id[32];
    uint64_t sector_id;
} porep_state;

/* Witness only: a, b, c come from the pre-compiled circuit in the back-end
 * (on the GPU, or over all cores on the CPU). */
static cz_status porep_fill(void *state, uint32_t unit, cz_witness *w, unsigned threads,
                            cz_error *err) {
    porep_state *s = state;
    return cz_porep_synthesize_witness(w, &s->geometry, &s->c1, unit, threads, err);
}

/* Everything that can be checked before proving, in the submitting
 * thread: the C1's syntax and shape, that it agrees with the request
 * (registered_proof, sector_size, sector_number), and its vanilla proofs
 * with the prover id of miner_id (so a tampered comm_r or seed, or the
 * wrong miner, is refused now, not after a full proof). The parsed C1
 * (about a fifth of the JSON's size) is all the job keeps. */
static cz_status porep_admit(void **statep, const cz_engine_request *req, cz_error *err) {
    porep_state *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "porep: out of memory");
    cz_witness_job_init(&s->base, porep_fill);
    *statep = s;
    cz_status st = cz_c1_parse(&s->c1, req->vanilla_proof, req->vanilla_proof_len, err);
    if (st == CZ_OK) st = cz_c1_check_shape(&s->c1, err);
    if (st == CZ_OK) st = cz_c1_check_indices(&s->c1, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "vanilla_proof");
    const cz_c1 *c1 = &s->c1;
    /* registered_proof is Go's abi.RegisteredSealProof, the C1's own id
     * space, where 0 is StackedDrg2KiBV1: from the daemon (zero_is_value)
     * it is compared even when 0; from the command line 0 is "not given". */
    if ((req->registered_proof || req->zero_is_value) &&
        req->registered_proof != c1->registered_proof) {
        cz_fc_proof_info asked;
        cz_error lerr;
        int known = req->registered_proof <= UINT32_MAX &&
                    cz_fc_proof_lookup(&asked, (uint32_t)req->registered_proof, &lerr) == CZ_OK;
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "registered_proof %" PRIu64 " (%s) does not match the C1 output's %s "
                            "(%u)",
                            req->registered_proof, known ? asked.name : "not a PoRep seal proof",
                            c1->registered_proof_name, c1->registered_proof);
    }
    if (req->sector_size && req->sector_size != c1->sector_size)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "sector_size %" PRIu64 " does not match the C1 output's %s (%" PRIu64
                            " bytes)",
                            req->sector_size, c1->registered_proof_name, c1->sector_size);
    if (c1->has_envelope && c1->envelope_sector_size && c1->envelope_sector_size != c1->sector_size)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "envelope SectorSize %" PRIu64 " does not match the C1 output's %s",
                            c1->envelope_sector_size, c1->registered_proof_name);
    /* Sector 0 is a real sector number (a miner's first sector), so from the
     * daemon a request's 0 must match the envelope's SectorNum like any
     * other; without an envelope it is the sector id the C1 is checked
     * with (its replica_id), 0 included. */
    s->sector_id = req->sector_number;
    if (c1->has_envelope) {
        if ((req->sector_number || req->zero_is_value) &&
            req->sector_number != c1->envelope_sector_num)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "sector_number %" PRIu64
                                " differs from the envelope's SectorNum %" PRIu64,
                                req->sector_number, c1->envelope_sector_num);
        s->sector_id = c1->envelope_sector_num;
    }
    /* With a miner id the proof is bound to it: replica_id is recomputed
     * from prover_id as Filecoin's verify_seal does, here and in the
     * self-check. */
    /* No storage provider is actor 0 (f00 is the system actor; miners get
     * ids from the init actor, far above the singletons), and a PoRep not
     * bound to a miner proves nothing about whose sector it is. */
    if (req->zero_is_value && !req->miner_id)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "miner_id 0 is not a storage provider's actor id (f00 is the system "
                            "actor); a PoRep proof is bound to miner_id's prover id");
    if (req->miner_id) {
        cz_fc_prover_id(s->prover_id, req->miner_id);
        s->has_prover_id = 1;
    }
    st = cz_fc_vanilla_verify(c1, s->has_prover_id ? s->prover_id : NULL, s->sector_id, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "vanilla_proof rejected");
    if ((st = cz_porep_geometry_of_c1(&s->geometry, c1, err)) != CZ_OK) return st;
    if (!cz_srs_porep_circuit_id(c1->sector_size))
        return cz_error_set(err, CZ_E_UNSUPPORTED, "no circuit for sector size %" PRIu64,
                            c1->sector_size);
    return CZ_OK;
}

static cz_status porep_prepare(void **statep, cz_job_plan *plan, const cz_engine_request *req,
                               const char *param_cache, cz_error *err) {
    cz_status st = CZ_OK;
    if (!*statep && (st = porep_admit(statep, req, err)) != CZ_OK) return st;
    porep_state *s = *statep;
    const cz_c1 *c1 = &s->c1;
    const char *id = cz_srs_porep_circuit_id(c1->sector_size);
    cz_fc_sector_info sector;
    char params_path[4096], vk_path[4096];
    if ((st = cz_fc_sector_lookup(&sector, c1->sector_size, err)) != CZ_OK) return st;
    st = cz_porep_param_paths(params_path, vk_path, sizeof params_path, param_cache, &sector, err);
    uint64_t unit_bytes = 0, m = 0;
    if (st == CZ_OK)
        st =
            cz_job_unit_bytes_from_params(&unit_bytes, &m, params_path, plan->host_evaluation, err);
    if (st != CZ_OK) return st;
    cz_witness_job_plan(&s->base, plan, id, c1->partitions, unit_bytes, m);
    return CZ_OK;
}

static cz_status porep_verify(void *state, const uint8_t *proof, size_t len,
                              const cz_srs_handle *srs, cz_error *err) {
    porep_state *s = state;
    int valid = 0;
    cz_status st = cz_porep_verify(&valid, &s->c1, srs->vk, proof, len,
                                   s->has_prover_id ? s->prover_id : NULL, s->sector_id, err);
    if (st != CZ_OK) return st;
    /* cz_porep_verify recorded which partition failed (CZ_E_VERIFY). */
    return valid ? CZ_OK : CZ_E_VERIFY;
}

static void porep_free(void *state) {
    porep_state *s = state;
    if (!s) return;
    cz_c1_free(&s->c1);
    cz_witness_job_free(&s->base);
    free(s);
}

const cz_job_ops cz_job_ops_porep = {
    .name = "porep-c2",
    .prepare = porep_prepare,
    .synthesize = cz_job_witness_synthesize,
    .prove_start = cz_job_witness_prove_start,
    .prep = cz_job_witness_prep,
    .prove_finish = cz_job_msm_prove_finish,
    .discard = cz_job_witness_discard,
    .verify = porep_verify,
    .free_state = porep_free,
    .admit = porep_admit,
};
