/* WinningPoSt and WindowPoSt (one partition per request) as an engine job
 * kind: one unit, the FallbackPoSt circuit of the registered proof's size.
 *
 * admit (in the submitting thread) decodes every vanilla proof and runs the
 * vanilla verifier (FallbackPoSt::verify, stricter), so a malformed or
 * invalid request is refused at submission with INVALID_ARGUMENT naming the
 * proof and field, and the job keeps the decoded proofs, not the request's
 * bytes; prepare plans the unit; synthesis makes the witness only, slot by
 * slot on the cores (a, b, c come from the pre-compiled circuit in the
 * back-end, as for PoRep); the proof is verified against public inputs
 * recomputed from the randomness, the partition index and the sectors, as
 * Filecoin's verifier does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "engine/srs.h"
#include "filecoin/post/post.h"
#include "filecoin/post/post_circuit.h"
#include "filecoin/post/post_prove.h"
#include "groth16/prover.h"

typedef struct {
    cz_witness_job base; /* first: the skeleton's part */
    cz_post_proof_info info;
    cz_post_config cfg;
    cz_fc_api_version api;
    cz_post_sector_proof *proofs;
    uint32_t n;
    uint8_t randomness[32];
    uint32_t partition; /* 0 for WinningPoSt */
    uint64_t *sector_ids;
    cz_fr *comm_rs;
} post_state;

/* The witness, slot by slot on threads threads. */
static cz_status post_fill(void *state, uint32_t unit, cz_witness *w, unsigned threads,
                           cz_error *err) {
    (void)unit;
    post_state *s = state;
    return cz_post_synthesize_witness(w, &s->cfg, s->proofs, s->n, threads, err);
}

/* Everything about the request, before it is queued: the registered id
 * against the proof kind and sector size, the randomness, the partition
 * index, the number of vanilla proofs, each one's bincode and the vanilla
 * verifier (every challenge and inclusion path). */
static cz_status post_admit(void **statep, const cz_engine_request *req, cz_error *err) {
    post_state *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "post: out of memory");
    cz_witness_job_init(&s->base, post_fill);
    *statep = s;
    cz_post_proof_info *info = &s->info;
    cz_status st = cz_post_proof_lookup(info, req->registered_proof, err);
    if (st != CZ_OK) {
        if (err) err->status = CZ_E_INVALID_ARG;
        return CZ_E_INVALID_ARG;
    }
    cz_post_kind want = req->kind == CZ_PROOF_WINNING_POST ? CZ_POST_WINNING : CZ_POST_WINDOW;
    if (info->kind != want)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "registered proof %u (%s) is a %s PoSt, the request's proof_kind is "
                            "%s",
                            info->id, info->name, cz_post_kind_name(info->kind),
                            want == CZ_POST_WINNING ? "WINNING_POST" : "WINDOW_POST_PARTITION");
    uint64_t size = req->sector_size ? req->sector_size : info->sector_size;
    if (req->n_vanilla_proofs > UINT32_MAX)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%zu vanilla proofs", req->n_vanilla_proofs);
    s->partition = info->kind == CZ_POST_WINNING ? 0 : req->partition_index;
    st = cz_post_request_decode(&s->cfg, &s->api, &s->proofs, &s->n, info->id, size,
                                req->vanilla_proofs, req->vanilla_proofs_len,
                                (uint32_t)req->n_vanilla_proofs, req->randomness,
                                req->randomness_len, s->partition, 1, err);
    if (st != CZ_OK) return st;
    memcpy(s->randomness, req->randomness, 32);
    s->sector_ids = malloc(sizeof *s->sector_ids * s->n);
    s->comm_rs = malloc(sizeof *s->comm_rs * s->n);
    if (!s->sector_ids || !s->comm_rs) return cz_error_set(err, CZ_E_NOMEM, "post: out of memory");
    for (uint32_t i = 0; i < s->n; i++) {
        s->sector_ids[i] = s->proofs[i].sector_id;
        s->comm_rs[i] = s->proofs[i].comm_r;
    }
    return CZ_OK;
}

/* The plan of admit's state: one unit of the size's circuit. */
static cz_status post_prepare(void **statep, cz_job_plan *plan, const cz_engine_request *req,
                              const char *param_cache, cz_error *err) {
    (void)req, (void)param_cache;
    post_state *s = *statep;
    const char *id = cz_srs_post_circuit_id((int)s->info.kind, s->info.sector_size);
    if (!id) return cz_error_set(err, CZ_E_UNSUPPORTED, "no circuit for %s", s->info.name);
    cz_post_layout L;
    cz_status st = cz_post_layout_make(&L, &s->cfg, err);
    if (st != CZ_OK) return st;
    unsigned log_m = 0;
    if ((st = cz_groth16_domain_log_size(&log_m, L.num_constraints + L.num_inputs, err)) != CZ_OK)
        return st;
    const uint64_t m = (uint64_t)1 << log_m;
    cz_witness_job_plan(&s->base, plan, id, 1,
                        cz_job_unit_bytes(L.num_inputs, L.num_aux, m, plan->host_evaluation), m);
    return CZ_OK;
}

static cz_status post_verify(void *state, const uint8_t *proof, size_t len,
                             const cz_srs_handle *srs, cz_error *err) {
    post_state *s = state;
    int valid = 0;
    cz_status st = cz_post_verify(&valid, &s->cfg, s->api, srs->vk, s->randomness, s->partition,
                                  s->sector_ids, s->comm_rs, s->n, proof, len, err);
    if (st != CZ_OK) return st;
    if (!valid) return cz_error_set(err, CZ_E_VERIFY, "self-verification: the proof is invalid");
    return CZ_OK;
}

static void post_free(void *state) {
    post_state *s = state;
    if (!s) return;
    for (uint32_t i = 0; i < s->n; i++) cz_post_sector_proof_free(&s->proofs[i]);
    free(s->proofs);
    free(s->sector_ids);
    free(s->comm_rs);
    cz_witness_job_free(&s->base);
    free(s);
}

const cz_job_ops cz_job_ops_post = {
    .name = "post",
    .prepare = post_prepare,
    .synthesize = cz_job_witness_synthesize,
    .prove_start = cz_job_witness_prove_start,
    .prep = cz_job_witness_prep,
    .prove_finish = cz_job_msm_prove_finish,
    .discard = cz_job_witness_discard,
    .verify = post_verify,
    .free_state = post_free,
    .admit = post_admit,
};
