/* The StackedDRG PoRep circuit; see porep_circuit.h.
 *
 * Layout followed line by line (rust-fil-proofs storage-proofs-porep
 * stacked/circuit/proof.rs StackedCircuit::synthesize, params.rs
 * Proof::synthesize, create_label.rs, hash.rs):
 *
 *   top:  replica_id (aux, inputize, to_bits_le -> byte-bits shared by every
 *         label), comm_d (aux, inputize), comm_r (aux, inputize), comm_r_last
 *         (aux), comm_c (aux), h = Poseidon2(comm_c, comm_r_last),
 *         comm_r * ONE = h;
 *   per challenge: data_leaf (aux); tree-D PoR of data_leaf under comm_d;
 *         6 DRG then 8 expander parent columns (L aux rows, column hash,
 *         tree-C PoR under comm_c); challenge UInt64 (64 bits) packed into
 *         one input; labels 1..L (parents' rows decomposed afresh per layer,
 *         37-parent expansion, SHA-256 of 1,248 bytes, fr-safe pack);
 *         encoded = label_L + data_leaf; tree-R PoR of encoded under
 *         comm_r_last; column hash of the labels and its tree-C PoR.
 *
 * Every PoR is cz_por_verify (path, pack_into_inputs of the index bits,
 * computed * ONE = root) with the leaf and root already allocated, as
 * enforce_inclusion hands Root::Var values to PoRCircuit (private root).
 *
 * The witness comes from the C1 output only: index bits from each path
 * element's `index`, siblings from its `hashes` (child order with the
 * current node removed, which is cz_por_path's order), the challenge from
 * labeling_proofs[0].node, comm_r_last / comm_c from challenge 0's proofs
 * (the other challenges must agree, as StackedCompound::circuit insists). */
#include "filecoin/porep/porep_circuit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gadgets/multipack.h"
#include "gadgets/poseidon.h"
#include "gadgets/sha256.h"
#include "util/parallel.h"

/* TOTAL_PARENTS: the label hash reads 37 parent labels. */
#define LABEL_PARENTS 37
/* replica_id (32 bytes) + layer/node/padding (32 bytes) + 37 parents. */
#define LABEL_MSG_BITS ((2 + LABEL_PARENTS) * 256)
/* Column hashes exist for 2 and 11 layers only (hash_single_column). */
#define MAX_LAYERS 11
/* A level of arity a has a - 1 <= 7/3 log2(a) siblings, so a path of at
 * most CZ_POR_MAX_BITS index bits has at most 149. */
#define MAX_PATH_SIBLINGS 150

static int is_pow2(uint64_t x) {
    return x && !(x & (x - 1));
}

cz_status cz_porep_geometry_make(cz_porep_geometry *out, uint64_t nodes, uint32_t layers,
                                 uint32_t challenges, unsigned base_arity, unsigned sub_arity,
                                 unsigned top_arity, cz_error *err) {
    if (nodes < 2 || !is_pow2(nodes) || nodes > ((uint64_t)1 << 32))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep geometry: %llu nodes (a power of two in 2..2^32 needed)",
                            (unsigned long long)nodes);
    if (layers != 2 && layers != 11)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep geometry: %u layers (column hashes exist for 2 and 11)", layers);
    if (challenges < 1 || challenges > 1024)
        return cz_error_set(err, CZ_E_INVALID_ARG, "porep geometry: %u challenges (1..1024)",
                            challenges);
    memset(out, 0, sizeof *out);
    out->nodes = nodes;
    out->layers = layers;
    out->challenges = challenges;
    if (cz_por_shape_make(&out->tree_d, CZ_POR_SHA256, 2, 0, 0, nodes) != CZ_OK)
        return cz_error_set(err, CZ_E_INVALID_ARG, "porep geometry: no binary tree D of %llu",
                            (unsigned long long)nodes);
    if (cz_por_shape_make(&out->tree_rc, CZ_POR_POSEIDON, base_arity, sub_arity, top_arity,
                          nodes) != CZ_OK)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep geometry: no tree %u-%u-%u over %llu leaves", base_arity,
                            sub_arity, top_arity, (unsigned long long)nodes);
    if (cz_por_siblings(&out->tree_d) > MAX_PATH_SIBLINGS ||
        cz_por_siblings(&out->tree_rc) > MAX_PATH_SIBLINGS) /* unreachable by the bound above */
        return cz_error_set(err, CZ_E_INVALID_ARG, "porep geometry: paths too long");
    return CZ_OK;
}

cz_status cz_porep_geometry_from_sector(cz_porep_geometry *out, const cz_fc_sector_info *sector,
                                        cz_error *err) {
    return cz_porep_geometry_make(out, sector->nodes, sector->layers,
                                  sector->challenges_per_partition, sector->tree_base_arity,
                                  sector->tree_sub_arity, sector->tree_top_arity, err);
}

uint32_t cz_porep_num_inputs(const cz_porep_geometry *g) {
    return 4 + 18 * g->challenges;
}

/* ------------------------------------------------------------- witness */

/* A Merkle path in cz_por_path's terms. */
typedef struct {
    uint64_t index;
    cz_fr siblings[MAX_PATH_SIBLINGS];
} path_witness;

static cz_status fr_from_dom(cz_fr *out, const uint8_t dom[32], const char *what, cz_error *err) {
    if (!cz_fr_from_bytes_le(out, dom))
        return cz_error_set(err, CZ_E_RANGE, "porep circuit: %s is not a canonical Fr", what);
    return CZ_OK;
}

/* Checks that proof m has exactly shape s's levels (base, then sub, then
 * top; arity - 1 hashes and an index below the arity each) and, when out is
 * given, converts it: the leaf index is the little-endian mixed-radix number
 * of the level indices, i.e. their bits concatenated, as the circuit
 * allocates them. */
static cz_status path_from_c1(path_witness *out, const cz_c1 *c1, const cz_c1_merkle *m,
                              const cz_por_shape *s, const char *what, cz_error *err) {
    unsigned want_sub = s->sub_arity != 0, want_top = s->top_arity != 0;
    if (m->base.count != s->base_levels || m->sub.count != want_sub || m->top.count != want_top)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep circuit: %s: path of %u base + %u sub + %u top levels, the "
                            "circuit has %u + %u + %u",
                            what, m->base.count, m->sub.count, m->top.count, s->base_levels,
                            want_sub, want_top);
    uint64_t index = 0;
    unsigned bit = 0, levels = cz_por_levels(s);
    size_t sib = 0;
    for (unsigned l = 0; l < levels; l++) {
        const cz_c1_path_elem *e = l < s->base_levels                ? &cz_c1_elems(c1, m->base)[l]
                                   : l == s->base_levels && want_sub ? cz_c1_elems(c1, m->sub)
                                                                     : cz_c1_elems(c1, m->top);
        unsigned a = cz_por_level_arity(s, l), nb = a == 2 ? 1 : a == 4 ? 2 : 3;
        if (e->hashes.count != a - 1 || e->index >= a)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "porep circuit: %s: level %u has %u siblings and index %llu, "
                                "arity %u needs %u and an index below %u",
                                what, l, e->hashes.count, (unsigned long long)e->index, a, a - 1,
                                a);
        if (out) {
            index |= e->index << bit;
            const cz_c1_dom *h = cz_c1_doms(c1, e->hashes);
            for (unsigned i = 0; i + 1 < a; i++) {
                cz_status st = fr_from_dom(&out->siblings[sib + i], h[i], what, err);
                if (st != CZ_OK) return st;
            }
        }
        bit += nb;
        sib += a - 1;
    }
    if (out) out->index = index;
    return CZ_OK;
}

/* Everything about c1 that synthesis relies on, before anything is
 * synthesized: geometry, partition, path shapes, column lengths, and one
 * comm_r_last / comm_c for the whole partition. */
static cz_status check_c1(const cz_porep_geometry *g, const cz_c1 *c1, uint32_t partition,
                          cz_error *err) {
    if (c1->layers != g->layers || c1->challenges_per_partition != g->challenges)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep circuit: c1 has %u layers and %u challenges per partition, "
                            "the circuit %u and %u",
                            c1->layers, c1->challenges_per_partition, g->layers, g->challenges);
    if (partition >= c1->partitions ||
        (uint64_t)(partition + 1) * c1->challenges_per_partition > c1->n_challenges)
        return cz_error_set(err, CZ_E_INVALID_ARG, "porep circuit: partition %u of %u", partition,
                            c1->partitions);
    const cz_c1_challenge *first = cz_c1_challenge_at(c1, partition, 0);
    for (uint32_t i = 0; i < g->challenges; i++) {
        const cz_c1_challenge *ch = cz_c1_challenge_at(c1, partition, i);
        char what[96];
        cz_status st;
        snprintf(what, sizeof what, "partition %u challenge %u tree D", partition, i);
        if ((st = path_from_c1(NULL, c1, &ch->comm_d_proof, &g->tree_d, what, err)) != CZ_OK)
            return st;
        snprintf(what, sizeof what, "partition %u challenge %u tree R", partition, i);
        if ((st = path_from_c1(NULL, c1, &ch->comm_r_last_proof, &g->tree_rc, what, err)) != CZ_OK)
            return st;
        snprintf(what, sizeof what, "partition %u challenge %u c_x", partition, i);
        if ((st = path_from_c1(NULL, c1, &ch->c_x.proof, &g->tree_rc, what, err)) != CZ_OK)
            return st;
        for (int p = 0; p < CZ_C1_DRG_PARENTS + CZ_C1_EXP_PARENTS; p++) {
            const cz_c1_column_proof *col =
                p < CZ_C1_DRG_PARENTS ? &ch->drg_parents[p] : &ch->exp_parents[p - 6];
            snprintf(what, sizeof what, "partition %u challenge %u %s parent %d", partition, i,
                     p < CZ_C1_DRG_PARENTS ? "drg" : "exp", p < 6 ? p : p - 6);
            if ((st = path_from_c1(NULL, c1, &col->proof, &g->tree_rc, what, err)) != CZ_OK)
                return st;
            if (col->rows.count != g->layers)
                return cz_error_set(err, CZ_E_INVALID_ARG, "porep circuit: %s: %u rows, not %u",
                                    what, col->rows.count, g->layers);
        }
        if (ch->labeling.count < 1)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "porep circuit: partition %u challenge %u: no labeling proof",
                                partition, i);
        if (memcmp(ch->comm_r_last_proof.root, first->comm_r_last_proof.root, 32))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "porep circuit: partition %u: inconsistent comm_r_lasts "
                                "(challenge %u differs from challenge 0)",
                                partition, i);
        if (memcmp(ch->c_x.proof.root, first->c_x.proof.root, 32))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "porep circuit: partition %u: inconsistent comm_cs (challenge %u "
                                "differs from challenge 0)",
                                partition, i);
    }
    return CZ_OK;
}

/* ----------------------------------------------------------- synthesis */

typedef struct {
    cz_cs *cs;
    const cz_porep_geometry *g;
    const cz_c1 *c1; /* NULL: no witness */
    cz_error *err;
    cz_status status; /* first witness-conversion failure */
    path_witness path;
    cz_bool replica_id_bits[256];
    cz_num comm_d, comm_c, comm_r_last;
    cz_bool msg[LABEL_MSG_BITS];
    cz_bool parent_bits[CZ_C1_DRG_PARENTS + CZ_C1_EXP_PARENTS][256];
} synth;

/* to_bits_le(x), then Filecoin's reverse_bit_numbering: one constant false
 * bit pads the 255 bits to 256 and each byte's bits are reversed. */
static void byte_bits(cz_cs *cs, cz_bool out[256], const cz_num *x) {
    cz_bool le[256];
    cz_num_to_bits_le(cs, le, x);
    le[255] = cz_bool_const(0);
    cz_bits_reverse_bytes(out, le, 256);
}

/* aux from a C1 domain value (or without a witness). */
static void alloc_dom(synth *s, cz_num *out, const uint8_t *dom, const char *what) {
    cz_fr v = cz_fr_zero;
    if (s->c1 && s->status == CZ_OK) s->status = fr_from_dom(&v, dom, what, s->err);
    cz_num_alloc(s->cs, out, &v);
}

/* enforce_inclusion: PoRCircuit over proof m (NULL without a witness). */
static void inclusion(synth *s, const cz_por_shape *shape, const cz_c1_merkle *m,
                      const cz_num *leaf, const cz_num *root, const char *what) {
    const cz_fr *siblings = NULL;
    uint64_t index = 0;
    if (m && s->status == CZ_OK) {
        s->status = path_from_c1(&s->path, s->c1, m, shape, what, s->err);
        siblings = s->path.siblings;
        index = s->path.index;
    }
    cz_por_verify(s->cs, shape, leaf, index, siblings, root);
}

/* create_label_circuit: SHA-256 of replica_id || layer (u32 BE, constant) ||
 * challenge (u64 BE, the allocated bits) || 20 zero bytes || 37 parents,
 * digest bits reversed per byte, the first 254 packed into one aux. */
static void label(synth *s, cz_num *out, uint32_t layer, const cz_bool challenge_le[64],
                  unsigned nparents) {
    cz_bool *msg = s->msg;
    memcpy(msg, s->replica_id_bits, sizeof s->replica_id_bits);
    for (int i = 0; i < 32; i++) msg[256 + i] = cz_bool_const((layer >> (31 - i)) & 1);
    for (int i = 0; i < 64; i++) msg[288 + i] = challenge_le[63 - i];
    for (int i = 352; i < 512; i++) msg[i] = cz_bool_const(0);
    /* The 37 entries are parent k mod nparents: layer 1 (6 DRG parents)
     * repeats them 6 times, then the first; later layers (14) take them
     * twice, then the first 9. */
    for (unsigned k = 0; k < LABEL_PARENTS; k++)
        memcpy(&msg[512 + 256 * k], s->parent_bits[k % nparents], 256 * sizeof *msg);
    cz_bool digest[256], rev[256];
    cz_sha256(s->cs, digest, msg, LABEL_MSG_BITS);
    cz_bits_reverse_bytes(rev, digest, 256);
    cz_pack_bits(s->cs, out, rev, 256); /* the first Fr::CAPACITY = 254 bits */
}

static void challenge_circuit(synth *s, uint32_t partition, uint32_t index) {
    cz_cs *cs = s->cs;
    const cz_porep_geometry *g = s->g;
    const cz_c1_challenge *ch = s->c1 ? cz_c1_challenge_at(s->c1, partition, index) : NULL;
    const unsigned L = g->layers, nparents = CZ_C1_DRG_PARENTS + CZ_C1_EXP_PARENTS;
    char what[96];

    cz_num data_leaf;
    snprintf(what, sizeof what, "challenge %u data leaf", index);
    alloc_dom(s, &data_leaf, ch ? ch->comm_d_proof.leaf : NULL, what);
    snprintf(what, sizeof what, "challenge %u tree D", index);
    inclusion(s, &g->tree_d, ch ? &ch->comm_d_proof : NULL, &data_leaf, &s->comm_d, what);

    /* columns: the 6 DRG parents, then the 8 expander parents */
    cz_num columns[CZ_C1_DRG_PARENTS + CZ_C1_EXP_PARENTS][MAX_LAYERS];
    for (unsigned p = 0; p < nparents; p++) {
        const cz_c1_column_proof *col = !ch                     ? NULL
                                        : p < CZ_C1_DRG_PARENTS ? &ch->drg_parents[p]
                                                                : &ch->exp_parents[p - 6];
        snprintf(what, sizeof what, "challenge %u parent column %u", index, p);
        for (unsigned r = 0; r < L; r++)
            alloc_dom(s, &columns[p][r], col ? cz_c1_doms(s->c1, col->rows)[r] : NULL, what);
        cz_num hash;
        cz_poseidon_gadget_hash(cs, &hash, columns[p], L);
        inclusion(s, &g->tree_rc, col ? &col->proof : NULL, &hash, &s->comm_c, what);
    }

    /* the challenge: UInt64::alloc (LSB first), pack_into_input */
    uint64_t node = ch ? cz_c1_labelings(s->c1, ch->labeling)[0].node : 0;
    cz_bool challenge_le[64];
    cz_bits_alloc_u64_le(cs, challenge_le, 64, node);
    cz_pack_into_inputs(cs, challenge_le, 64);

    /* labels: DRG parents from this layer, expander parents from the one below */
    cz_num labels[MAX_LAYERS];
    for (unsigned layer = 1; layer <= L; layer++) {
        unsigned n = 0;
        for (unsigned p = 0; p < CZ_C1_DRG_PARENTS; p++, n++)
            byte_bits(cs, s->parent_bits[n], &columns[p][layer - 1]);
        if (layer > 1)
            for (unsigned p = CZ_C1_DRG_PARENTS; p < nparents; p++, n++)
                byte_bits(cs, s->parent_bits[n], &columns[p][layer - 2]);
        label(s, &labels[layer - 1], layer, challenge_le, n);
    }

    /* encoding: encoded = label_L + data_leaf, included in tree R */
    cz_num encoded;
    cz_num_add(cs, &encoded, &labels[L - 1], &data_leaf);
    snprintf(what, sizeof what, "challenge %u tree R", index);
    inclusion(s, &g->tree_rc, ch ? &ch->comm_r_last_proof : NULL, &encoded, &s->comm_r_last, what);

    /* the challenged column's hash, included in tree C */
    cz_num column_hash;
    cz_poseidon_gadget_hash(cs, &column_hash, labels, L);
    snprintf(what, sizeof what, "challenge %u c_x", index);
    inclusion(s, &g->tree_rc, ch ? &ch->c_x.proof : NULL, &column_hash, &s->comm_c, what);
}

/* What precedes the challenges: replica_id, comm_d, comm_r (each aux, then
 * inputized), replica_id's byte-bits, comm_r_last, comm_c, comm_r = H(comm_c,
 * comm_r_last). Leaves in s what every challenge reads. */
static void top_circuit(synth *s, uint32_t partition) {
    cz_cs *cs = s->cs;
    const cz_c1 *c1 = s->c1;
    const cz_c1_challenge *first = c1 ? cz_c1_challenge_at(c1, partition, 0) : NULL;
    cz_num replica_id, comm_r, h;
    alloc_dom(s, &replica_id, c1 ? c1->replica_id : NULL, "replica_id");
    cz_num_inputize(cs, &replica_id);
    byte_bits(cs, s->replica_id_bits, &replica_id);
    alloc_dom(s, &s->comm_d, c1 ? c1->comm_d : NULL, "comm_d");
    cz_num_inputize(cs, &s->comm_d);
    alloc_dom(s, &comm_r, c1 ? c1->comm_r : NULL, "comm_r");
    cz_num_inputize(cs, &comm_r);
    alloc_dom(s, &s->comm_r_last, first ? first->comm_r_last_proof.root : NULL, "comm_r_last");
    alloc_dom(s, &s->comm_c, first ? first->c_x.proof.root : NULL, "comm_c");
    /* hash2_circuit(comm_c, comm_r_last), then equal(comm_r, h) */
    cz_num preimage[2] = {s->comm_c, s->comm_r_last};
    cz_poseidon_gadget_hash(cs, &h, preimage, 2);
    cz_num_equal(cs, &comm_r, &h);
}

cz_status cz_porep_synthesize_progress(cz_cs *cs, const cz_porep_geometry *g, const cz_c1 *c1,
                                       uint32_t partition, cz_porep_progress_fn progress,
                                       void *progress_ctx, cz_error *err) {
    if (cz_cs_has_witness(cs) && !c1)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep circuit: this back-end needs a witness (a C1 output)");
    cz_status st;
    if (c1 && (st = check_c1(g, c1, partition, err)) != CZ_OK) return st;
    synth *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "porep circuit: out of memory");
    s->cs = cs;
    s->g = g;
    s->c1 = c1;
    s->err = err;
    s->status = CZ_OK;
    top_circuit(s, partition);
    for (uint32_t i = 0; i < g->challenges && s->status == CZ_OK && cz_cs_status(cs) == CZ_OK;
         i++) {
        challenge_circuit(s, partition, i);
        if (progress) progress(progress_ctx, i + 1, g->challenges);
    }
    st = s->status;
    free(s);
    if (st != CZ_OK) return st; /* err already names the value */
    if ((st = cz_cs_status(cs)) != CZ_OK && err) *err = cs->error;
    return st;
}

cz_status cz_porep_synthesize(cz_cs *cs, const cz_porep_geometry *g, const cz_c1 *c1,
                              uint32_t partition, cz_error *err) {
    return cz_porep_synthesize_progress(cs, g, c1, partition, NULL, NULL, err);
}

/* ------------------------------------------------------- public inputs */

cz_status cz_porep_public_inputs(cz_fr *out, const cz_porep_geometry *g, const cz_fc_graph *graph,
                                 const uint8_t replica_id[32], const uint8_t comm_d[32],
                                 const uint8_t comm_r[32], const uint64_t *challenges,
                                 cz_error *err) {
    if (graph->nodes != g->nodes)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep public inputs: graph of %llu nodes, circuit of %llu",
                            (unsigned long long)graph->nodes, (unsigned long long)g->nodes);
    cz_status st;
    if ((st = fr_from_dom(&out[0], replica_id, "replica_id", err)) != CZ_OK ||
        (st = fr_from_dom(&out[1], comm_d, "comm_d", err)) != CZ_OK ||
        (st = fr_from_dom(&out[2], comm_r, "comm_r", err)) != CZ_OK)
        return st;
    cz_fr *o = out + 3;
    for (uint32_t i = 0; i < g->challenges; i++) {
        uint64_t c = challenges[i];
        if (c >= g->nodes)
            return cz_error_set(err, CZ_E_RANGE,
                                "porep public inputs: challenge %u is node %llu of %llu", i,
                                (unsigned long long)c, (unsigned long long)g->nodes);
        uint32_t drg[CZ_FC_DRG_DEGREE], exp[CZ_FC_EXP_DEGREE];
        cz_fc_graph_drg_parents(drg, graph, (uint32_t)c);
        cz_fc_graph_exp_parents(exp, graph, (uint32_t)c);
        /* every PoR input is its leaf index (index bits packed LSB first) */
        cz_fr_from_u64(o++, c);
        for (int p = 0; p < CZ_FC_DRG_DEGREE; p++) cz_fr_from_u64(o++, drg[p]);
        for (int p = 0; p < CZ_FC_EXP_DEGREE; p++) cz_fr_from_u64(o++, exp[p]);
        cz_fr_from_u64(o++, c); /* the challenge's UInt64 */
        cz_fr_from_u64(o++, c); /* tree R */
        cz_fr_from_u64(o++, c); /* tree C */
    }
    return CZ_OK;
}

/* ------------------------------------------- witness only, in parallel */

/* A window system over [input_begin, input_end) x [aux_begin, aux_end). */
static cz_cs *window_new(cz_witness *w, uint32_t input_begin, uint32_t input_end,
                         uint32_t aux_begin, uint32_t aux_end) {
    cz_witness_window win = {w ? w->input : NULL, w ? w->aux : NULL, input_begin,
                             input_end,           aux_begin,         aux_end};
    return cz_cs_window_new(&win);
}

static int shape_equal(const cz_por_shape *a, const cz_por_shape *b) {
    return a->hasher == b->hasher && a->base_arity == b->base_arity &&
           a->base_levels == b->base_levels && a->sub_arity == b->sub_arity &&
           a->top_arity == b->top_arity;
}

static int geometry_equal(const cz_porep_geometry *a, const cz_porep_geometry *b) {
    return a->nodes == b->nodes && a->layers == b->layers && a->challenges == b->challenges &&
           shape_equal(&a->tree_d, &b->tree_d) && shape_equal(&a->tree_rc, &b->tree_rc);
}

/* Layouts counted so far (a pure function of the geometry; a process sees a
 * handful of sector sizes), so that a caller without its own copy does not
 * pay the count (~0.1 s at 32 GiB) per partition. */
#define LAYOUT_MEMO 16
static struct {
    cz_porep_geometry g;
    cz_porep_layout layout;
} layout_memo[LAYOUT_MEMO];
static unsigned layout_memo_len;
static pthread_mutex_t layout_memo_lock = PTHREAD_MUTEX_INITIALIZER;

static cz_status layout_count(cz_porep_layout *out, const cz_porep_geometry *g, cz_error *err);

cz_status cz_porep_layout_make(cz_porep_layout *out, const cz_porep_geometry *g, cz_error *err) {
    int found = 0;
    pthread_mutex_lock(&layout_memo_lock);
    for (unsigned i = 0; i < layout_memo_len && !found; i++)
        if (geometry_equal(&layout_memo[i].g, g)) *out = layout_memo[i].layout, found = 1;
    pthread_mutex_unlock(&layout_memo_lock);
    if (found) return CZ_OK;
    cz_status st = layout_count(out, g, err);
    if (st != CZ_OK) return st;
    pthread_mutex_lock(&layout_memo_lock);
    for (unsigned i = 0; i < layout_memo_len && !found; i++)
        found = geometry_equal(&layout_memo[i].g, g);
    if (!found && layout_memo_len < LAYOUT_MEMO) {
        layout_memo[layout_memo_len].g = *g;
        layout_memo[layout_memo_len++].layout = *out;
    }
    pthread_mutex_unlock(&layout_memo_lock);
    return CZ_OK;
}

/* Counts the block and one challenge on a system without values or
 * combinations. */
static cz_status layout_count(cz_porep_layout *out, const cz_porep_geometry *g, cz_error *err) {
    memset(out, 0, sizeof *out);
    /* no witness, no combinations: the structure alone */
    cz_cs *cs = window_new(NULL, 1, CZ_VAR_INPUT_BIT - 1, 0, CZ_VAR_INPUT_BIT - 1);
    synth *s = calloc(1, sizeof *s);
    if (!cs || !s) {
        cz_cs_destroy(cs);
        free(s);
        return cz_error_set(err, CZ_E_NOMEM, "porep layout: out of memory");
    }
    s->cs = cs;
    s->g = g;
    s->status = CZ_OK;
    top_circuit(s, 0);
    uint32_t top_inputs = cs->num_inputs, top_aux = cs->num_aux;
    uint64_t top_constraints = cs->num_constraints;
    challenge_circuit(s, 0, 0);
    cz_status st = cz_cs_status(cs);
    if (st != CZ_OK && err) *err = cs->error;
    if (st == CZ_OK) {
        uint64_t ci = cs->num_inputs - top_inputs, ca = cs->num_aux - top_aux;
        uint64_t inputs = top_inputs + ci * g->challenges, aux = top_aux + ca * g->challenges;
        if (inputs >= CZ_VAR_INPUT_BIT || aux >= CZ_VAR_INPUT_BIT ||
            inputs + aux > CZ_VAR_INPUT_BIT - 1) {
            st = cz_error_set(err, CZ_E_RANGE, "porep layout: %llu inputs and %llu aux",
                              (unsigned long long)inputs, (unsigned long long)aux);
        } else {
            out->challenges = g->challenges;
            out->top_inputs = top_inputs;
            out->top_aux = top_aux;
            out->top_constraints = top_constraints;
            out->challenge_inputs = (uint32_t)ci;
            out->challenge_aux = (uint32_t)ca;
            out->challenge_constraints = cs->num_constraints - top_constraints;
            out->num_inputs = (uint32_t)inputs;
            out->num_aux = (uint32_t)aux;
            out->num_constraints = top_constraints + out->challenge_constraints * g->challenges;
        }
    }
    cz_cs_destroy(cs);
    free(s);
    return st;
}

/* One partition's witness: its buffers and the block's variables that its
 * challenges read. */
typedef struct {
    cz_witness *w;
    uint32_t partition;
    cz_bool replica_id_bits[256];
    cz_num comm_d, comm_c, comm_r_last;
} witness_unit;

/* Tasks are (unit, challenge) pairs, task t = unit t / challenges,
 * challenge t % challenges, handed out in order. */
typedef struct {
    const cz_porep_geometry *g;
    const cz_porep_layout *layout;
    const cz_c1 *c1;
    witness_unit *units;
    uint64_t tasks;
    atomic_uint_fast64_t next; /* next task to hand out */
    atomic_int stop;
    pthread_mutex_t lock;
    uint64_t failed_task; /* lowest failing task */
    cz_status status;
    cz_error error;
} witness_job;

/* Synthesizes challenge i of unit u into its window (the layout's numbering). */
static cz_status witness_challenge(witness_job *job, synth *s, const witness_unit *u, uint32_t i,
                                   cz_error *err) {
    const cz_porep_layout *L = job->layout;
    uint32_t in0 = L->top_inputs + i * L->challenge_inputs;
    uint32_t aux0 = L->top_aux + i * L->challenge_aux;
    cz_cs *cs = window_new(u->w, in0, in0 + L->challenge_inputs, aux0, aux0 + L->challenge_aux);
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    memcpy(s->replica_id_bits, u->replica_id_bits, sizeof s->replica_id_bits);
    s->comm_d = u->comm_d, s->comm_c = u->comm_c, s->comm_r_last = u->comm_r_last;
    s->cs = cs;
    s->status = CZ_OK;
    challenge_circuit(s, u->partition, i);
    cz_status st = s->status;
    if (st == CZ_OK && (st = cz_cs_status(cs)) != CZ_OK && err) *err = cs->error;
    if (st == CZ_OK &&
        (cs->num_inputs != in0 + L->challenge_inputs || cs->num_aux != aux0 + L->challenge_aux ||
         cs->num_constraints != L->challenge_constraints))
        st = cz_error_set(err, CZ_E_INTERNAL,
                          "allocated %u inputs, %u aux and %llu constraints, the layout says "
                          "%u, %u and %llu",
                          cs->num_inputs - in0, cs->num_aux - aux0,
                          (unsigned long long)cs->num_constraints, L->challenge_inputs,
                          L->challenge_aux, (unsigned long long)L->challenge_constraints);
    cz_cs_destroy(cs);
    s->cs = NULL;
    return st;
}

static void job_fail(witness_job *job, uint64_t task, cz_status st, const cz_error *err) {
    pthread_mutex_lock(&job->lock);
    /* keep the lowest failing task, whatever the thread timing */
    if (job->status == CZ_OK || task < job->failed_task) {
        job->status = st;
        job->error = *err;
        job->failed_task = task;
    }
    pthread_mutex_unlock(&job->lock);
    atomic_store(&job->stop, 1);
}

static void *witness_worker(void *arg) {
    witness_job *job = arg;
    cz_error err = {0};
    synth *s = calloc(1, sizeof *s);
    if (!s) {
        cz_error_set(&err, CZ_E_NOMEM, "out of memory");
        job_fail(job, atomic_load(&job->next), CZ_E_NOMEM, &err);
        return NULL;
    }
    s->g = job->g;
    s->c1 = job->c1;
    s->err = &err;
    uint32_t per_unit = job->layout->challenges;
    while (!atomic_load_explicit(&job->stop, memory_order_relaxed)) {
        uint64_t t = atomic_fetch_add(&job->next, 1);
        if (t >= job->tasks) break;
        cz_status st =
            witness_challenge(job, s, &job->units[t / per_unit], (uint32_t)(t % per_unit), &err);
        if (st != CZ_OK) {
            job_fail(job, t, st, &err);
            break;
        }
    }
    free(s);
    return NULL;
}

/* The block of unit u on this thread, into its window. */
static cz_status witness_top(witness_unit *u, const cz_porep_geometry *g,
                             const cz_porep_layout *layout, const cz_c1 *c1, cz_error *err) {
    synth *top = calloc(1, sizeof *top);
    cz_cs *cs = window_new(u->w, 1, layout->top_inputs, 0, layout->top_aux);
    if (!top || !cs) {
        free(top);
        cz_cs_destroy(cs);
        return cz_error_set(err, CZ_E_NOMEM, "porep witness: out of memory");
    }
    top->cs = cs;
    top->g = g;
    top->c1 = c1;
    top->err = err;
    top->status = CZ_OK;
    top_circuit(top, u->partition);
    cz_status st = top->status;
    if (st == CZ_OK && (st = cz_cs_status(cs)) != CZ_OK && err) *err = cs->error;
    if (st == CZ_OK && (cs->num_inputs != layout->top_inputs || cs->num_aux != layout->top_aux ||
                        cs->num_constraints != layout->top_constraints))
        st = cz_error_set(err, CZ_E_INTERNAL,
                          "porep witness: the block allocated %u inputs, %u aux and %llu "
                          "constraints, the layout says %u, %u and %llu",
                          cs->num_inputs, cs->num_aux, (unsigned long long)cs->num_constraints,
                          layout->top_inputs, layout->top_aux,
                          (unsigned long long)layout->top_constraints);
    memcpy(u->replica_id_bits, top->replica_id_bits, sizeof u->replica_id_bits);
    u->comm_d = top->comm_d, u->comm_c = top->comm_c, u->comm_r_last = top->comm_r_last;
    cz_cs_destroy(cs);
    free(top);
    return st;
}

static cz_status check_layout(const cz_porep_layout *layout, const cz_porep_geometry *g,
                              cz_error *err) {
    if (layout->challenges != g->challenges)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "porep witness: layout of %u challenges, circuit of %u",
                            layout->challenges, g->challenges);
    if (layout->top_inputs < 1 ||
        layout->num_inputs !=
            (uint64_t)layout->top_inputs + (uint64_t)layout->challenge_inputs * g->challenges ||
        layout->num_aux !=
            (uint64_t)layout->top_aux + (uint64_t)layout->challenge_aux * g->challenges ||
        (uint64_t)layout->num_inputs + layout->num_aux >= CZ_VAR_INPUT_BIT)
        return cz_error_set(err, CZ_E_INVALID_ARG, "porep witness: inconsistent layout");
    return CZ_OK;
}

cz_status cz_porep_synthesize_witnesses(cz_witness *w, uint32_t n, const cz_porep_geometry *g,
                                        const cz_porep_layout *layout, const cz_c1 *c1,
                                        const uint32_t *partitions, unsigned threads,
                                        cz_error *err) {
    for (uint32_t k = 0; k < n; k++) w[k].num_inputs = w[k].num_aux = 0;
    if (!c1)
        return cz_error_set(err, CZ_E_INVALID_ARG, "porep witness: needs a witness (a C1 output)");
    cz_porep_layout counted;
    cz_status st;
    if (!layout) {
        if ((st = cz_porep_layout_make(&counted, g, err)) != CZ_OK) return st;
        layout = &counted;
    }
    if ((st = check_layout(layout, g, err)) != CZ_OK) return st;
    for (uint32_t k = 0; k < n; k++)
        if ((st = check_c1(g, c1, partitions[k], err)) != CZ_OK) return st;
    witness_unit *units = calloc(n ? n : 1, sizeof *units);
    if (!units) return cz_error_set(err, CZ_E_NOMEM, "porep witness: out of memory");

    /* buffers, then the blocks, on this thread */
    for (uint32_t k = 0; k < n && st == CZ_OK; k++) {
        units[k].w = &w[k];
        units[k].partition = partitions[k];
        if (cz_witness_reserve(&w[k], layout->num_inputs, layout->num_aux) != CZ_OK)
            st = cz_error_set(err, CZ_E_NOMEM,
                              "porep witness: out of memory for %u inputs and %u aux (%.1f GiB)",
                              layout->num_inputs, layout->num_aux,
                              (double)layout->num_aux * sizeof(cz_fr) / (1u << 30));
        if (st == CZ_OK) {
            w[k].input[0] = cz_fr_one;
            st = witness_top(&units[k], g, layout, c1, err);
            if (st != CZ_OK) cz_error_prefix(err, "partition %u", partitions[k]);
        }
    }
    if (st != CZ_OK) {
        free(units);
        return st;
    }

    /* the challenges of every unit, on up to `threads` threads (this one included) */
    witness_job job = {.g = g,
                       .layout = layout,
                       .c1 = c1,
                       .units = units,
                       .tasks = (uint64_t)n * layout->challenges,
                       .failed_task = UINT64_MAX,
                       .status = CZ_OK};
    atomic_init(&job.next, 0);
    atomic_init(&job.stop, 0);
    pthread_mutex_init(&job.lock, NULL);
    if (threads == 0) threads = cz_thread_count();
    if (threads > job.tasks) threads = (unsigned)job.tasks;
    if (threads > 256) threads = 256;
    pthread_t tids[256];
    unsigned started = 0;
    for (unsigned t = 1; t < threads; t++) {
        /* one that cannot start is not an error: the others take its share */
        if (pthread_create(&tids[started], NULL, witness_worker, &job) != 0) break;
        started++;
    }
    witness_worker(&job);
    for (unsigned t = 0; t < started; t++) pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&job.lock);
    free(units);
    if (job.status != CZ_OK) {
        if (err) {
            *err = job.error;
            cz_error_prefix(err, "porep witness: partition %u challenge %u",
                            partitions[job.failed_task / layout->challenges],
                            (uint32_t)(job.failed_task % layout->challenges));
        }
        return job.status;
    }
    for (uint32_t k = 0; k < n; k++) {
        w[k].num_inputs = layout->num_inputs;
        w[k].num_aux = layout->num_aux;
    }
    return CZ_OK;
}

cz_status cz_porep_synthesize_witness(cz_witness *w, const cz_porep_geometry *g, const cz_c1 *c1,
                                      uint32_t partition, unsigned threads, cz_error *err) {
    return cz_porep_synthesize_witnesses(w, 1, g, NULL, c1, &partition, threads, err);
}
