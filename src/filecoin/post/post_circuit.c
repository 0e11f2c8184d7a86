/* The fallback PoSt circuit; see post_circuit.h. */
#include "filecoin/post/post_circuit.h"

#include <stdlib.h>
#include <string.h>

#include "gadgets/por.h"
#include "gadgets/poseidon.h"
#include "util/parallel.h"

/* Sector::synthesize for one slot, in two parts: its head (p = NULL without
 * a witness), which leaves comm_r_last for the challenges, ... */
static void slot_head(cz_cs *cs, const cz_post_sector_proof *p, cz_num *comm_r_last) {
    cz_num comm_c, comm_r, h;
    cz_num_alloc(cs, comm_r_last, p ? &p->comm_r_last : NULL);
    cz_num_alloc(cs, &comm_c, p ? &p->comm_c : NULL);
    cz_num_alloc(cs, &comm_r, p ? &p->comm_r : NULL);
    cz_num_inputize(cs, &comm_r);
    /* hash2_circuit(comm_c, comm_r_last), then equal(comm_r, h) */
    cz_num pre[2] = {comm_c, *comm_r_last};
    cz_poseidon_gadget_hash(cs, &h, pre, 2);
    cz_num_equal(cs, &comm_r, &h);
}

/* ... and each challenge (inc = NULL without a witness):
 * PoRCircuit::synthesize(Root::Val(leaf), path, Root::Var(comm_r_last), private). */
static void slot_challenge(cz_cs *cs, const cz_post_config *cfg, const cz_fc_merkle_proof *inc,
                           const cz_num *comm_r_last) {
    cz_num leaf;
    cz_num_alloc(cs, &leaf, inc ? &inc->leaf : NULL);
    cz_por_verify(cs, &cfg->tree, &leaf, inc ? inc->index : 0, inc ? inc->siblings : NULL,
                  comm_r_last);
}

/* The slot whole; first = the slot's first inclusion proof of p. */
static void slot_circuit(cz_cs *cs, const cz_post_config *cfg, const cz_post_sector_proof *p,
                         uint32_t first) {
    cz_num comm_r_last;
    slot_head(cs, p, &comm_r_last);
    for (uint32_t j = 0; j < cfg->challenge_count; j++)
        slot_challenge(cs, cfg, p ? &p->inclusions[first + j] : NULL, &comm_r_last);
}

/* What synthesis relies on in the proofs (cz_post_decode's shape aside). */
static cz_status check_proofs(const cz_post_config *cfg, const cz_post_sector_proof *proofs,
                              uint32_t n, cz_error *err) {
    uint32_t max = cfg->kind == CZ_POST_WINNING ? 1 : cfg->sector_count;
    if (n < 1 || n > max)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "post circuit: %u vanilla proofs, the %s circuit takes %s%u", n,
                            cz_post_kind_name(cfg->kind), max == 1 ? "" : "1 to ", max);
    for (uint32_t i = 0; i < n; i++)
        if (proofs[i].n_inclusions != cfg->vanilla_challenges || !proofs[i].inclusions)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "post circuit: vanilla proof %u has %u inclusion proofs, not %u", i,
                                proofs[i].n_inclusions, cfg->vanilla_challenges);
    return CZ_OK;
}

cz_status cz_post_synthesize(cz_cs *cs, const cz_post_config *cfg,
                             const cz_post_sector_proof *proofs, uint32_t n,
                             cz_post_progress_fn progress, void *progress_ctx, cz_error *err) {
    if (cz_cs_has_witness(cs) && !proofs)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "post circuit: this back-end needs a witness (vanilla proofs)");
    cz_status st;
    if (proofs && (st = check_proofs(cfg, proofs, n, err)) != CZ_OK) return st;
    for (uint32_t s = 0; s < cfg->sector_count && cz_cs_status(cs) == CZ_OK; s++) {
        uint32_t pi = 0, first = 0;
        if (proofs) cz_post_slot_source(cfg, n, s, &pi, &first);
        slot_circuit(cs, cfg, proofs ? &proofs[pi] : NULL, first);
        if (progress) progress(progress_ctx, s + 1, cfg->sector_count);
    }
    if ((st = cz_cs_status(cs)) != CZ_OK && err) *err = cs->error;
    return st;
}

/* ------------------------------------------------------ witness in parallel */

static cz_cs *window_new(cz_witness *w, uint32_t input_begin, uint32_t input_end,
                         uint32_t aux_begin, uint32_t aux_end) {
    cz_witness_window win = {w ? w->input : NULL, w ? w->aux : NULL, input_begin,
                             input_end,           aux_begin,         aux_end};
    return cz_cs_window_new(&win);
}

cz_status cz_post_layout_make(cz_post_layout *out, const cz_post_config *cfg, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_cs *cs = window_new(NULL, 1, CZ_VAR_INPUT_BIT - 1, 0, CZ_VAR_INPUT_BIT - 1);
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "post layout: out of memory");
    /* the slot as slot_circuit makes it, counted after its head and after
     * its first challenge */
    cz_num comm_r_last;
    slot_head(cs, NULL, &comm_r_last);
    const uint32_t hi = cs->num_inputs - 1, ha = cs->num_aux;
    const uint64_t hc = cs->num_constraints;
    for (uint32_t j = 0; j < cfg->challenge_count; j++) {
        slot_challenge(cs, cfg, NULL, &comm_r_last);
        if (j == 0) {
            out->challenge_inputs = cs->num_inputs - 1 - hi;
            out->challenge_aux = cs->num_aux - ha;
            out->challenge_constraints = cs->num_constraints - hc;
        }
    }
    out->head_inputs = hi, out->head_aux = ha;
    cz_status st = cz_cs_status(cs);
    if (st != CZ_OK && err) *err = cs->error;
    if (st == CZ_OK &&
        (cs->num_inputs - 1 != hi + (uint64_t)cfg->challenge_count * out->challenge_inputs ||
         cs->num_aux != ha + (uint64_t)cfg->challenge_count * out->challenge_aux ||
         cs->num_constraints != hc + cfg->challenge_count * out->challenge_constraints))
        st =
            cz_error_set(err, CZ_E_INTERNAL, "post layout: the slot's %u challenges differ in size",
                         cfg->challenge_count);
    if (st == CZ_OK) {
        uint64_t si = cs->num_inputs - 1, sa = cs->num_aux;
        uint64_t inputs = 1 + si * cfg->sector_count, aux = sa * cfg->sector_count;
        if (inputs + aux >= CZ_VAR_INPUT_BIT) {
            st = cz_error_set(err, CZ_E_RANGE, "post layout: %llu inputs and %llu aux",
                              (unsigned long long)inputs, (unsigned long long)aux);
        } else {
            out->slots = cfg->sector_count;
            out->slot_inputs = (uint32_t)si;
            out->slot_aux = (uint32_t)sa;
            out->slot_constraints = cs->num_constraints;
            out->num_inputs = (uint32_t)inputs;
            out->num_aux = (uint32_t)aux;
            out->num_constraints = cs->num_constraints * cfg->sector_count;
        }
    }
    cz_cs_destroy(cs);
    return st;
}

typedef struct {
    cz_witness *w;
    const cz_post_config *cfg;
    const cz_post_layout *layout;
    const cz_post_sector_proof *proofs;
    uint32_t n;
    cz_status *status; /* per thread: the first failure */
    cz_error *errors;
    uint32_t *failed; /* per thread: the slot (or, spread, the challenge) that failed */
    /* the slot being spread: its proof, first inclusion, first challenge's
     * window and the head's comm_r_last */
    const cz_post_sector_proof *p;
    uint32_t first, in0, aux0;
    cz_num comm_r_last;
} witness_job;

/* The end of one part's synthesis into cs, made by window_new for inputs
 * [in0, in0 + ni) and aux [aux0, aux0 + na): its status, CZ_E_INTERNAL when
 * it allocated other than that window (or made other than nc constraints). */
static cz_status window_end(cz_cs *cs, uint32_t in0, uint32_t ni, uint32_t aux0, uint32_t na,
                            uint64_t nc, cz_error *err) {
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    cz_status st = cz_cs_status(cs);
    if (st != CZ_OK) {
        if (err) *err = cs->error;
    } else if (cs->num_inputs != in0 + ni || cs->num_aux != aux0 + na ||
               cs->num_constraints != nc) {
        st = cz_error_set(err, CZ_E_INTERNAL,
                          "allocated %u inputs, %u aux and %llu constraints, the layout says %u, "
                          "%u and %llu",
                          cs->num_inputs - in0, cs->num_aux - aux0,
                          (unsigned long long)cs->num_constraints, ni, na, (unsigned long long)nc);
    }
    cz_cs_destroy(cs);
    return st;
}

static void witness_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    witness_job *j = ctx;
    const cz_post_layout *L = j->layout;
    for (size_t s = begin; s < end && j->status[worker] == CZ_OK; s++) {
        uint32_t in0 = 1 + (uint32_t)s * L->slot_inputs, aux0 = (uint32_t)s * L->slot_aux;
        cz_cs *cs = window_new(j->w, in0, in0 + L->slot_inputs, aux0, aux0 + L->slot_aux);
        if (cs) {
            uint32_t pi, first;
            cz_post_slot_source(j->cfg, j->n, (uint32_t)s, &pi, &first);
            slot_circuit(cs, j->cfg, &j->proofs[pi], first);
        }
        cz_status st = window_end(cs, in0, L->slot_inputs, aux0, L->slot_aux, L->slot_constraints,
                                  &j->errors[worker]);
        if (st != CZ_OK) {
            j->status[worker] = st;
            j->failed[worker] = (uint32_t)s;
        }
    }
}

/* Challenges [begin, end) of the slot being spread, each in its window. */
static void challenge_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    witness_job *j = ctx;
    const cz_post_layout *L = j->layout;
    for (size_t c = begin; c < end && j->status[worker] == CZ_OK; c++) {
        uint32_t in0 = j->in0 + (uint32_t)c * L->challenge_inputs;
        uint32_t aux0 = j->aux0 + (uint32_t)c * L->challenge_aux;
        cz_cs *cs = window_new(j->w, in0, in0 + L->challenge_inputs, aux0, aux0 + L->challenge_aux);
        if (cs) slot_challenge(cs, j->cfg, &j->p->inclusions[j->first + c], &j->comm_r_last);
        cz_status st = window_end(cs, in0, L->challenge_inputs, aux0, L->challenge_aux,
                                  L->challenge_constraints, &j->errors[worker]);
        if (st != CZ_OK) {
            j->status[worker] = st;
            j->failed[worker] = (uint32_t)c;
        }
    }
}

/* Slot s with its challenges on every thread (WinningPoSt's one slot: 66
 * Merkle paths, 15 ms on one core at 32 GiB, on the path of a proof due
 * within seconds): its head here, then the challenges. CZ_OK, or the first
 * failure (*at: the challenge, UINT32_MAX for the head). */
static cz_status slot_spread(witness_job *j, uint32_t s, uint32_t *at, cz_error *err) {
    const cz_post_layout *L = j->layout;
    const unsigned nt = cz_thread_count();
    uint32_t pi, in0 = 1 + s * L->slot_inputs, aux0 = s * L->slot_aux;
    cz_post_slot_source(j->cfg, j->n, s, &pi, &j->first);
    j->p = &j->proofs[pi];
    cz_cs *cs = window_new(j->w, in0, in0 + L->head_inputs, aux0, aux0 + L->head_aux);
    if (cs) slot_head(cs, j->p, &j->comm_r_last);
    *at = UINT32_MAX;
    cz_status st =
        window_end(cs, in0, L->head_inputs, aux0, L->head_aux,
                   L->slot_constraints - j->cfg->challenge_count * L->challenge_constraints, err);
    if (st != CZ_OK) return st;
    j->in0 = in0 + L->head_inputs, j->aux0 = aux0 + L->head_aux;
    cz_parallel_for(j->cfg->challenge_count, 1, challenge_range, j);
    for (unsigned t = 0; t < nt; t++)
        if (j->status[t] != CZ_OK && j->failed[t] < *at) {
            *at = j->failed[t];
            st = j->status[t];
            if (err) *err = j->errors[t];
        }
    return st;
}

cz_status cz_post_synthesize_witness(cz_witness *w, const cz_post_config *cfg,
                                     const cz_post_sector_proof *proofs, uint32_t n,
                                     unsigned threads, cz_error *err) {
    w->num_inputs = w->num_aux = 0;
    if (!proofs) return cz_error_set(err, CZ_E_INVALID_ARG, "post witness: needs vanilla proofs");
    cz_status st;
    cz_post_layout layout;
    if ((st = check_proofs(cfg, proofs, n, err)) != CZ_OK ||
        (st = cz_post_layout_make(&layout, cfg, err)) != CZ_OK)
        return st;
    if (cz_witness_reserve(w, layout.num_inputs, layout.num_aux) != CZ_OK)
        return cz_error_set(
            err, CZ_E_NOMEM, "post witness: out of memory for %u inputs and %u aux (%.1f GiB)",
            layout.num_inputs, layout.num_aux, (double)layout.num_aux * sizeof(cz_fr) / (1u << 30));
    w->input[0] = cz_fr_one;
    unsigned nt = cz_thread_count();
    cz_status *status = calloc(nt, sizeof *status);
    cz_error *errors = calloc(nt, sizeof *errors);
    uint32_t *failed = calloc(nt, sizeof *failed);
    if (!status || !errors || !failed) {
        free(status), free(errors), free(failed);
        return cz_error_set(err, CZ_E_NOMEM, "post witness: out of memory");
    }
    witness_job job = {w, cfg, &layout, proofs, n, status, errors, failed, NULL, 0, 0, 0, {0}};
    if (threads) cz_parallel_set_thread_limit(threads);
    st = CZ_OK;
    uint32_t worst = UINT32_MAX, at = UINT32_MAX;
    if (cfg->sector_count < (threads && threads < nt ? threads : nt)) {
        /* fewer slots than threads: each slot's challenges spread */
        for (uint32_t s = 0; s < cfg->sector_count && st == CZ_OK; s++)
            if ((st = slot_spread(&job, s, &at, err)) != CZ_OK) worst = s;
    } else {
        /* slots in chunks of 16: a 32 GiB WindowPoSt has 2349 slots of 54 k aux */
        cz_parallel_for(cfg->sector_count, 16, witness_range, &job);
        for (unsigned t = 0; t < nt; t++)
            if (status[t] != CZ_OK && failed[t] < worst) {
                worst = failed[t];
                st = status[t];
                if (err) *err = errors[t];
            }
    }
    if (threads) cz_parallel_set_thread_limit(0);
    free(status), free(errors), free(failed);
    if (st != CZ_OK && at != UINT32_MAX)
        return cz_error_wrap(err, st, "post witness: slot %u, challenge %u", worst, at);
    if (st != CZ_OK) return cz_error_wrap(err, st, "post witness: slot %u", worst);
    w->num_inputs = layout.num_inputs;
    w->num_aux = layout.num_aux;
    return CZ_OK;
}
