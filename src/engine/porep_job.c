/* PoRep C2 as an engine job kind: one unit per partition. */
#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "engine/srs.h"
#include "filecoin/porep/c1_envelope.h"
#include "filecoin/porep/porep.h"
#include "filecoin/common/registry.h"
#include "filecoin/porep/vanilla.h"
#include "groth16/groth16.h"
#include "util/parallel.h"

/* Witness buffers kept for the job's next partitions: a 32 GiB partition's
 * witness is 4 GiB, whose first touch costs page faults and zeroing. The
 * job's units hold at most as many as are in flight; all go at the job's
 * end (so idle buffers never sit outside the memory budget for long). */
#define WITNESS_POOL 16

typedef struct {
    cz_c1 c1;
    cz_porep_geometry geometry;
    int has_prover_id;
    uint8_t prover_id[32];
    uint64_t sector_id;
    pthread_mutex_t pool_lock;
    cz_witness *pool[WITNESS_POOL];
    unsigned pooled;
} porep_state;

/* Partitions being synthesized in this process: each takes a share of the
 * cores, so a lone partition uses all of them and many use one each. */
static atomic_uint synthesizing;

static cz_witness *witness_take(porep_state *s) {
    cz_witness *w = NULL;
    pthread_mutex_lock(&s->pool_lock);
    if (s->pooled) w = s->pool[--s->pooled];
    pthread_mutex_unlock(&s->pool_lock);
    return w ? w : calloc(1, sizeof *w);
}

static void witness_put(porep_state *s, cz_witness *w) {
    if (!w) return;
    pthread_mutex_lock(&s->pool_lock);
    if (s->pooled < WITNESS_POOL) {
        s->pool[s->pooled++] = w;
        w = NULL;
    }
    pthread_mutex_unlock(&s->pool_lock);
    if (w) {
        cz_witness_free(w);
        free(w);
    }
}

/* Host memory of one partition from the .params header (n_ic = inputs,
 * n_h = m - 1, n_l = aux count), 32 bytes per element plus 64 MiB for the
 * rest: the witness (inputs + aux) always; with host_evaluation (the CPU
 * back-end) also a, b, c (3m), the H polynomial and its scratch (3m) and
 * the compacted MSM scalars (aux). An estimate of the peak, not a
 * measurement. */
cz_status cz_job_unit_bytes_from_params(uint64_t *out, const char *path, int host_evaluation,
                                        cz_error *err) {
    cz_groth16_params_head head;
    cz_status st = cz_groth16_params_file_head(&head, path, err);
    if (st == CZ_E_NOT_FOUND || st == CZ_E_IO)
        return cz_error_set(
            err, st, "parameters %s not found (run `cuzk setup` or set [srs] param_cache)", path);
    if (st != CZ_OK) return st;
    uint64_t m = head.n_h + 1;
    *out = 32 * (head.n_ic + head.n_l) + (64ull << 20);
    if (host_evaluation) *out += 32 * (6 * m + head.n_l);
    return CZ_OK;
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
    pthread_mutex_init(&s->pool_lock, NULL);
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
    if (st == CZ_OK)
        st = cz_job_unit_bytes_from_params(&plan->unit_bytes, params_path, plan->host_evaluation,
                                           err);
    if (st != CZ_OK) return st;
    plan->wants_circuit = 1;
    plan->units = c1->partitions;
    plan->unit_proof_bytes = CZ_GROTH16_PROOF_BYTES;
    plan->unit_bytes_after = sizeof(cz_groth16_msm_results);
    snprintf(plan->circuit_id, sizeof plan->circuit_id, "%s", id);
    return CZ_OK;
}

/* Witness only: a, b, c come from the pre-compiled circuit in the back-end
 * (on the GPU, or over all cores on the CPU). */
static cz_status porep_synthesize(void *state, uint32_t unit, void **synth, cz_error *err) {
    porep_state *s = state;
    cz_witness *w = witness_take(s);
    if (!w) return cz_error_set(err, CZ_E_NOMEM, "porep: out of memory");
    unsigned active = atomic_fetch_add(&synthesizing, 1) + 1;
    unsigned cores = cz_thread_count(), threads = (cores + active - 1) / active;
    cz_status st = cz_porep_synthesize_witness(w, &s->geometry, &s->c1, unit, threads, err);
    atomic_fetch_sub(&synthesizing, 1);
    if (st != CZ_OK) {
        witness_put(s, w);
        return cz_error_wrap(err, st, "partition %u: synthesis", unit);
    }
    *synth = w;
    return CZ_OK;
}

static cz_status porep_prove_start(void *state, uint32_t unit, void *synth,
                                   const cz_srs_handle *srs, const cz_prove_context *where,
                                   void **pending, cz_error *err) {
    porep_state *s = state;
    cz_witness *w = synth;
    cz_groth16_msm_results *msm = malloc(sizeof *msm);
    cz_status st = msm ? CZ_OK : cz_error_set(err, CZ_E_NOMEM, "porep: out of memory");
    if (st == CZ_OK && !srs->circuit)
        st = cz_error_set(err, CZ_E_INTERNAL, "porep: the SRS has no pre-compiled circuit");
    if (st == CZ_OK &&
        (w->num_inputs != srs->circuit->num_inputs || w->num_aux != srs->circuit->num_aux))
        st = cz_error_set(
            err, CZ_E_INTERNAL, "porep: witness of %u inputs and %u aux, the circuit has %u and %u",
            w->num_inputs, w->num_aux, srs->circuit->num_inputs, srs->circuit->num_aux);
    cz_backend_unit u = {where->job_id, where->kind, where->circuit_id, srs->params, NULL,
                         srs->circuit,  w,           srs->params_file};
    if (st == CZ_OK) st = cz_backend_prove_start(where->backend, msm, &u, err);
    witness_put(s, w);
    if (st != CZ_OK) {
        free(msm);
        return cz_error_wrap(err, st, "partition %u: prove", unit);
    }
    *pending = msm;
    return CZ_OK;
}

static cz_status porep_prove_finish(void *state, uint32_t unit, void *pending,
                                    const cz_srs_handle *srs, uint8_t *out, cz_error *err) {
    (void)state;
    cz_groth16_msm_results *msm = pending;
    cz_groth16_proof proof;
    cz_status st = cz_groth16_prove_finalize(&proof, &srs->params->vk, msm, NULL, NULL, err);
    free(msm);
    if (st != CZ_OK) return cz_error_wrap(err, st, "partition %u: finalize", unit);
    cz_groth16_proof_encode(out, &proof);
    return CZ_OK;
}

static void porep_discard(void *state, uint32_t unit, void *data, int stage) {
    (void)unit;
    if (stage == 0)
        witness_put(state, data);
    else
        free(data);
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
    for (unsigned i = 0; i < s->pooled; i++) {
        cz_witness_free(s->pool[i]);
        free(s->pool[i]);
    }
    pthread_mutex_destroy(&s->pool_lock);
    free(s);
}

const cz_job_ops cz_job_ops_porep = {
    .name = "porep-c2",
    .prepare = porep_prepare,
    .synthesize = porep_synthesize,
    .prove_start = porep_prove_start,
    .prove_finish = porep_prove_finish,
    .discard = porep_discard,
    .verify = porep_verify,
    .free_state = porep_free,
    .admit = porep_admit,
};
