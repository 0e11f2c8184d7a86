/* The EmptySectorUpdate circuit; see snap_circuit.h. */
#include "filecoin/snap/snap_circuit.h"

#include <stdlib.h>
#include <string.h>

#include "gadgets/multipack.h"
#include "gadgets/poseidon.h"

/* The gadgets' P2c: Poseidon arity 2 with the Custom(1) tag 2^40
 * (POSEIDON_CONSTANTS_GEN_RANDOMNESS). */
static void hash_gen(cz_cs *cs, cz_num *out, const cz_num *x, const cz_num *y) {
    cz_fr tag;
    cz_fr_from_u64(&tag, (uint64_t)1 << 40);
    cz_num in[2] = {*x, *y};
    cz_poseidon_gadget_hash_tag(cs, out, in, 2, &tag);
}

static void alloc_all(cz_cs *cs, cz_num *out, const cz_fr *values, size_t n) {
    for (size_t i = 0; i < n; i++) cz_num_alloc(cs, &out[i], values ? &values[i] : NULL);
}

/* What synthesis needs from the proof beyond cz_snap_decode's shape. */
static cz_status check_inputs(const cz_snap_config *cfg, uint32_t partition,
                              const cz_snap_comms *comms, const cz_snap_partition_proof *proof,
                              cz_error *err) {
    if (partition >= cfg->partitions)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap circuit: partition %u of %u", partition,
                            cfg->partitions);
    if ((comms == NULL) != (proof == NULL))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "snap circuit: the commitments and the vanilla proof go together");
    if (proof && (!proof->apex_leaves || !proof->ch))
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap circuit: empty vanilla proof");
    return CZ_OK;
}

/* The scratch of one synthesis: every array sized by cfg. */
typedef struct {
    cz_num *apex;      /* A apex leaves, then the apex tree's rows */
    cz_num *siblings;  /* one challenge's tree R or tree D siblings */
    cz_bool *gen_bits; /* challenges x rb generated bits */
    cz_bool *c_bits;   /* dD bits of one challenge */
} scratch;

static void scratch_free(scratch *s) {
    free(s->apex), free(s->siblings), free(s->gen_bits), free(s->c_bits);
}

static cz_status scratch_make(scratch *s, const cz_snap_config *cfg, cz_error *err) {
    size_t sib = cz_por_siblings(&cfg->tree_r);
    if (sib < cfg->node_bits) sib = cfg->node_bits;
    s->apex = malloc(2 * (size_t)cfg->apex_leaves * sizeof *s->apex);
    s->siblings = malloc(sib * sizeof *s->siblings);
    s->gen_bits = malloc((size_t)cfg->challenges * cfg->random_bits * sizeof *s->gen_bits);
    s->c_bits = malloc(cfg->node_bits * sizeof *s->c_bits);
    if (!s->apex || !s->siblings || !s->gen_bits || !s->c_bits) {
        scratch_free(s);
        return cz_error_set(err, CZ_E_NOMEM, "snap circuit: out of memory");
    }
    return CZ_OK;
}

/* get_challenge_high_bits: the h-selected high part of the challenge. */
static void challenge_high(cz_cs *cs, cz_num *out, const cz_snap_config *cfg, const cz_bool *c_bits,
                           const cz_bool *h_select_bits) {
    cz_num or_zero[CZ_SNAP_HS];
    for (unsigned t = 0; t < CZ_SNAP_HS; t++) {
        cz_num high;
        unsigned h = cfg->hs[t];
        cz_pack_bits(cs, &high, &c_bits[cfg->node_bits - h], h);
        cz_num_mul_bit(cs, &or_zero[t], &high, h_select_bits[t]);
    }
    cz_num_sum(cs, out, or_zero, CZ_SNAP_HS);
}

cz_status cz_snap_synthesize(cz_cs *cs, const cz_snap_config *cfg, uint32_t partition,
                             const cz_snap_comms *comms, const cz_snap_partition_proof *proof,
                             cz_snap_progress_fn progress, void *progress_ctx, cz_error *err) {
    cz_status st;
    if (cz_cs_has_witness(cs) && !proof)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "snap circuit: this back-end needs a witness (vanilla proof)");
    if ((st = check_inputs(cfg, partition, comms, proof, err)) != CZ_OK) return st;
    scratch s;
    if ((st = scratch_make(&s, cfg, err)) != CZ_OK) return st;
    const unsigned pb = cfg->partition_bits, ab = cfg->apex_bits, dD = cfg->node_bits;
    const unsigned rb = cfg->random_bits, below_apex = dD - pb - ab;
    const uint32_t A = cfg->apex_leaves;
    const cz_snap_challenge_proof *ch0 = proof ? &proof->ch[0] : NULL;

    /* k_and_h_select (input #1) and its bits */
    cz_num k_and_h_select, partition_num;
    cz_fr kh;
    cz_fr_from_u64(&kh, partition | ((uint64_t)cfg->h_select << pb));
    cz_num_alloc(cs, &k_and_h_select, &kh);
    cz_num_inputize(cs, &k_and_h_select);
    cz_bool kh_bits[8 + CZ_SNAP_HS];
    cz_num_to_allocated_bits(cs, kh_bits, pb + CZ_SNAP_HS, &k_and_h_select);
    const cz_bool *partition_bits = kh_bits, *h_select_bits = kh_bits + pb;
    cz_pack_bits(cs, &partition_num, partition_bits, pb);

    /* the commitments (inputs #2-#4), phi */
    cz_num comm_r_old, comm_d_new, comm_r_new, phi;
    cz_num_alloc(cs, &comm_r_old, comms ? &comms->comm_r_old : NULL);
    cz_num_inputize(cs, &comm_r_old);
    cz_num_alloc(cs, &comm_d_new, comms ? &comms->comm_d_new : NULL);
    cz_num_inputize(cs, &comm_d_new);
    cz_num_alloc(cs, &comm_r_new, comms ? &comms->comm_r_new : NULL);
    cz_num_inputize(cs, &comm_r_new);
    hash_gen(cs, &phi, &comm_d_new, &comm_r_old);

    /* private inputs other than the challenges' paths */
    cz_num comm_c, root_r_old, root_r_new, partition_path[8];
    cz_num_alloc(cs, &comm_c, proof ? &proof->comm_c : NULL);
    cz_num_alloc(cs, &root_r_old, ch0 ? &ch0->r_old.root : NULL);
    cz_num_alloc(cs, &root_r_new, ch0 ? &ch0->r_new.root : NULL);
    alloc_all(cs, s.apex, proof ? proof->apex_leaves : NULL, A);
    alloc_all(cs, partition_path, ch0 ? &ch0->d_new.siblings[dD - pb] : NULL, pb);

    /* comm_r = P2(comm_c, root_r), old and new */
    cz_num pre[2] = {comm_c, root_r_old}, calc;
    cz_poseidon_gadget_hash(cs, &calc, pre, 2);
    cz_num_equal(cs, &calc, &comm_r_old);
    pre[1] = root_r_new;
    cz_poseidon_gadget_hash(cs, &calc, pre, 2);
    cz_num_equal(cs, &calc, &comm_r_new);

    /* apex_por: the apex tree row by row, its root to comm_d_new */
    cz_num *row = s.apex, *next = s.apex + A;
    for (uint32_t len = A; len > 1; len /= 2) {
        for (uint32_t i = 0; i < len / 2; i++)
            cz_por_hash_node(cs, &next[i], &row[2 * i], 2, CZ_POR_SHA256);
        row = next;
        next += len / 2;
    }
    cz_por_shape partition_tree = {CZ_POR_SHA256, 2, pb, 0, 0};
    cz_por_no_challenge_input(cs, &partition_tree, partition_bits, row, partition_path,
                              &comm_d_new);

    /* gen_challenge_bits */
    uint32_t taken = 0;
    for (uint32_t j = 0; j < cfg->digests; j++) {
        cz_num digest_index, digest;
        cz_num_affine(cs, &digest_index, &partition_num, cfg->digests, j);
        hash_gen(cs, &digest, &comm_r_new, &digest_index);
        cz_bool bits[CZ_NUM_BITS];
        cz_num_to_allocated_bits(cs, bits, CZ_NUM_BITS, &digest);
        for (unsigned i = 0; i < cfg->challenges_per_digest && taken < cfg->challenges; i++)
            memcpy(&s.gen_bits[(size_t)taken++ * rb], &bits[i * rb], rb * sizeof *bits);
    }

    cz_por_shape tree_below_apex = {CZ_POR_SHA256, 2, below_apex, 0, 0};
    const size_t r_siblings = cz_por_siblings(&cfg->tree_r);
    for (uint32_t c = 0; c < cfg->challenges && cz_cs_status(cs) == CZ_OK; c++) {
        const cz_snap_challenge_proof *cp = proof ? &proof->ch[c] : NULL;
        memcpy(s.c_bits, &s.gen_bits[(size_t)c * rb], rb * sizeof *s.c_bits);
        memcpy(s.c_bits + rb, partition_bits, pb * sizeof *s.c_bits);
        cz_num high, rho, leaf_r_old, leaf_d_new, product, leaf_r_new, apex_leaf;
        challenge_high(cs, &high, cfg, s.c_bits, h_select_bits);
        hash_gen(cs, &rho, &phi, &high);
        cz_num_alloc(cs, &leaf_r_old, cp ? &cp->r_old.leaf : NULL);
        cz_num_alloc(cs, &leaf_d_new, cp ? &cp->d_new.leaf : NULL);
        cz_num_mul(cs, &product, &leaf_d_new, &rho);
        cz_num_add(cs, &leaf_r_new, &leaf_r_old, &product);
        alloc_all(cs, s.siblings, cp ? cp->r_old.siblings : NULL, r_siblings);
        cz_por_no_challenge_input(cs, &cfg->tree_r, s.c_bits, &leaf_r_old, s.siblings, &root_r_old);
        alloc_all(cs, s.siblings, cp ? cp->r_new.siblings : NULL, r_siblings);
        cz_por_no_challenge_input(cs, &cfg->tree_r, s.c_bits, &leaf_r_new, s.siblings, &root_r_new);
        cz_num_select(cs, &apex_leaf, s.apex, &s.c_bits[below_apex], ab);
        alloc_all(cs, s.siblings, cp ? cp->d_new.siblings : NULL, below_apex);
        cz_por_no_challenge_input(cs, &tree_below_apex, s.c_bits, &leaf_d_new, s.siblings,
                                  &apex_leaf);
        if (progress) progress(progress_ctx, c + 1, cfg->challenges);
    }
    scratch_free(&s);
    if ((st = cz_cs_status(cs)) != CZ_OK && err) *err = cs->error;
    return st;
}
