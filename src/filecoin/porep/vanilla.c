/* Labels, PoRep challenges and the native vanilla verifier
 * (see vanilla.h; rust-fil-proofs storage-proofs-porep stacked/vanilla
 * proof_scheme.rs verify_all_partitions, params.rs Proof::verify,
 * column_proof.rs, labeling_proof.rs, encoding_proof.rs, and
 * storage-proofs-core merkle/proof.rs). */
#include "filecoin/porep/vanilla.h"

#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "filecoin/common/derive.h"
#include "filecoin/porep/synth.h"
#include "hash/poseidon.h"

void cz_fc_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                 const cz_c1_dom *parents, size_t n_parents) {
    /* 64-byte prefix then the parents: at most 64 + 37 * 32 = 1248 bytes for
     * a real label; more parents are hashed the same way (the verifier
     * hashes what a labeling proof holds). */
    uint8_t stack_buf[64 + CZ_FC_LABEL_PARENTS * 32];
    size_t len = 64 + n_parents * 32;
    uint8_t *buf = len <= sizeof stack_buf ? stack_buf : malloc(len);
    if (!buf) {
        memset(out, 0, 32); /* cannot equal a label: labels are fr32-masked digests */
        return;
    }
    memcpy(buf, replica_id, 32);
    memset(buf + 32, 0, 32);
    for (int i = 0; i < 4; i++) buf[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) buf[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    if (n_parents) memcpy(buf + 64, parents, n_parents * 32);
    cz_fc_sha256(out, buf, len);
    cz_fc_fr32_mask(out);
    if (buf != stack_buf) free(buf);
}

void cz_fc_label_parents_expand(cz_c1_dom out[CZ_FC_LABEL_PARENTS], const cz_c1_dom *parents,
                                unsigned n) {
    for (unsigned j = 0; j < CZ_FC_LABEL_PARENTS; j++) memcpy(out[j], parents[j % n], 32);
}

static cz_status dom_to_fr(cz_fr *out, const uint8_t dom[32], const char *what, cz_error *err) {
    if (!cz_fr_from_bytes_le(out, dom))
        return cz_error_set(err, CZ_E_RANGE, "%s is not a canonical field element", what);
    return CZ_OK;
}

cz_status cz_fc_column_hash(uint8_t out[32], const cz_c1_dom *rows, uint32_t layers,
                            cz_error *err) {
    if (layers != 2 && layers != 11)
        return cz_error_set(err, CZ_E_INVALID_ARG, "column hash: %u layers (only 2 and 11 exist)",
                            layers);
    cz_fr in[11], h;
    for (uint32_t l = 0; l < layers; l++) {
        cz_status st = dom_to_fr(&in[l], rows[l], "column row", err);
        if (st != CZ_OK) return st;
    }
    cz_status st = cz_poseidon_hash(&h, in, layers);
    if (st != CZ_OK) return cz_error_set(err, st, "column hash: Poseidon arity %u failed", layers);
    cz_fr_to_bytes_le(out, &h);
    return CZ_OK;
}

cz_status cz_fc_comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                       cz_error *err) {
    cz_fr in[2], h;
    cz_status st = dom_to_fr(&in[0], comm_c, "comm_c", err);
    if (st == CZ_OK) st = dom_to_fr(&in[1], comm_r_last, "comm_r_last", err);
    if (st != CZ_OK) return st;
    st = cz_poseidon_hash(&h, in, 2);
    if (st != CZ_OK) return cz_error_set(err, st, "comm_r: Poseidon arity 2 failed");
    cz_fr_to_bytes_le(out, &h);
    return CZ_OK;
}

cz_status cz_fc_check_replica_id(const cz_c1 *c1, const uint8_t prover_id[32], uint64_t sector_id,
                                 cz_error *err) {
    cz_fc_proof_info info;
    cz_status st = cz_fc_proof_lookup(&info, c1->registered_proof, err);
    if (st != CZ_OK) return st;
    uint8_t replica_id[32];
    cz_fc_replica_id(replica_id, prover_id, sector_id, c1->ticket, c1->comm_d, info.porep_id);
    if (memcmp(replica_id, c1->replica_id, 32) != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "replica_id does not match prover_id, sector %llu, ticket, comm_d "
                            "and porep_id",
                            (unsigned long long)sector_id);
    return CZ_OK;
}

cz_status cz_fc_porep_challenges(uint64_t *out, const cz_c1 *c1, uint32_t partition,
                                 cz_error *err) {
    cz_fc_proof_info info;
    cz_status st = cz_fc_proof_lookup(&info, c1->registered_proof, err);
    if (st != CZ_OK) return st;
    const cz_fc_sector_info *sec = &info.sector;
    uint32_t n = sec->challenges_per_partition;
    if (c1->challenges_per_partition != n)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "challenges: %u challenges per partition, %s has %u",
                            c1->challenges_per_partition, info.name, n);
    if (partition >= sec->partitions)
        return cz_error_set(err, CZ_E_INVALID_ARG, "challenges: partition %u of %u", partition,
                            sec->partitions);
    if (!info.synthetic)
        return cz_fc_interactive_challenges(out, n, c1->replica_id, c1->seed, sec->nodes, partition,
                                            err);
    cz_fc_synth synth;
    st = cz_fc_synth_init(&synth, sec->nodes, c1->replica_id, c1->comm_r, 0, err);
    if (st != CZ_OK) return st;
    return cz_fc_synth_porep_challenges(out, NULL, n, &synth, c1->seed, partition, err);
}

/* ------------------------------------------------------------ verifier */

/* Root of a Merkle proof recomputed from its leaf (merkle/proof.rs
 * InclusionPath::root: per element, the running hash is inserted at
 * `index` among the siblings and the arity children are hashed), and the
 * leaf index the path encodes (mixed radix, lowest level first). sha: the
 * binary SHA-256 tree D, else Poseidon with the element's arity. */
static cz_status merkle_root(uint8_t root[32], uint64_t *index, const cz_c1 *c1,
                             const cz_c1_merkle *m, int sha, cz_error *err) {
    uint8_t cur[32];
    memcpy(cur, m->leaf, 32);
    uint64_t idx = 0, scale = 1;
    const cz_c1_span parts[3] = {m->base, m->sub, m->top};
    unsigned level = 0;
    for (int p = 0; p < 3; p++) {
        for (uint32_t j = 0; j < parts[p].count; j++, level++) {
            const cz_c1_path_elem *e = &c1->path_elems[parts[p].first + j];
            uint32_t arity = e->hashes.count + 1;
            if (e->index >= arity)
                return cz_error_set(err, CZ_E_INVALID_ARG, "path level %u: index %llu >= arity %u",
                                    level, (unsigned long long)e->index, arity);
            if (scale > UINT64_MAX / arity)
                return cz_error_set(err, CZ_E_INVALID_ARG, "path longer than 64 index bits");
            idx += e->index * scale;
            scale *= arity;
            const cz_c1_dom *sib = cz_c1_doms(c1, e->hashes);
            if (sha) {
                if (arity != 2)
                    return cz_error_set(err, CZ_E_INVALID_ARG,
                                        "path level %u: tree D arity %u, expected 2", level, arity);
                if (e->index == 0)
                    cz_fc_sha256_node(cur, cur, sib[0]);
                else
                    cz_fc_sha256_node(cur, sib[0], cur);
                continue;
            }
            if (!cz_poseidon_arity_supported(arity))
                return cz_error_set(err, CZ_E_INVALID_ARG, "path level %u: arity %u unsupported",
                                    level, arity);
            cz_fr children[CZ_POSEIDON_MAX_ARITY], h;
            for (uint32_t c = 0, s = 0; c < arity; c++) {
                const uint8_t *v = c == e->index ? cur : sib[s++];
                if (!cz_fr_from_bytes_le(&children[c], v))
                    return cz_error_set(err, CZ_E_RANGE, "path level %u: non-canonical value",
                                        level);
            }
            cz_status st = cz_poseidon_hash(&h, children, arity);
            if (st != CZ_OK) return cz_error_set(err, st, "path level %u: Poseidon failed", level);
            cz_fr_to_bytes_le(cur, &h);
        }
    }
    memcpy(root, cur, 32);
    *index = idx;
    return CZ_OK;
}

/* A Merkle proof is valid for `leaf_index` under `root` (MerkleProof
 * validate + root comparison). what names the proof in messages. */
static cz_status check_merkle(const cz_c1 *c1, const cz_c1_merkle *m, int sha, uint64_t leaf_index,
                              const uint8_t root[32], const char *what, cz_error *err) {
    uint8_t computed[32];
    uint64_t idx;
    cz_status st = merkle_root(computed, &idx, c1, m, sha, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", what);
    if (memcmp(computed, m->root, 32) != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path does not hash to its root", what);
    if (memcmp(m->root, root, 32) != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: root differs from the expected %s", what,
                            sha ? "comm_d" : "commitment");
    if (idx != leaf_index)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: path leads to leaf %llu, expected %llu",
                            what, (unsigned long long)idx, (unsigned long long)leaf_index);
    return CZ_OK;
}

/* ColumnProof::verify: inclusion of the column hash at `node` under comm_c. */
static cz_status check_column(const cz_c1 *c1, const cz_c1_column_proof *col, uint64_t node,
                              const uint8_t comm_c[32], const char *what, cz_error *err) {
    if (col->rows.count != c1->layers)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: %u rows, expected %u", what,
                            col->rows.count, c1->layers);
    if (col->index != node)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: column.index %u, expected node %llu", what,
                            col->index, (unsigned long long)node);
    uint8_t h[32];
    cz_status st = cz_fc_column_hash(h, cz_c1_doms(c1, col->rows), c1->layers, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", what);
    if (memcmp(h, col->proof.leaf, 32) != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s: column hash differs from the inclusion proof's leaf", what);
    return check_merkle(c1, &col->proof, 0, node, comm_c, what, err);
}

/* Labeling (or encoding) proof of layer `layer` at `node`: its fields and
 * parents are what the columns imply, and its label is `expected`. */
static cz_status check_labeling(const cz_c1 *c1, const cz_c1_labeling_proof *lp,
                                const cz_c1_dom *want_parents, uint32_t layer, uint64_t node,
                                const uint8_t expected[32], const char *what, cz_error *err) {
    if (lp->layer_index != layer)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: layer_index %u, expected %u", what,
                            lp->layer_index, layer);
    if (lp->node != node)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: node %llu, expected %llu", what,
                            (unsigned long long)lp->node, (unsigned long long)node);
    if (lp->parents.count != CZ_FC_LABEL_PARENTS)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: %u parents, expected %d", what,
                            lp->parents.count, CZ_FC_LABEL_PARENTS);
    const cz_c1_dom *parents = cz_c1_doms(c1, lp->parents);
    for (unsigned j = 0; j < CZ_FC_LABEL_PARENTS; j++)
        if (memcmp(parents[j], want_parents[j], 32) != 0)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "%s: parents[%u] differs from the parent columns' row", what, j);
    uint8_t label[32];
    cz_fc_label(label, c1->replica_id, lp->layer_index, lp->node, parents, lp->parents.count);
    if (memcmp(label, expected, 32) != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s: recomputed label differs from c_x row %u (label_%u)", what,
                            layer - 1, layer);
    return CZ_OK;
}

static int is_zero32(const uint8_t *b) {
    uint8_t acc = 0;
    for (int i = 0; i < 32; i++) acc |= b[i];
    return acc == 0;
}

/* One challenge (params.rs Proof::verify plus the stricter checks). */
static cz_status verify_challenge(const cz_c1 *c1, const cz_fc_graph *graph,
                                  const cz_c1_challenge *ch, uint64_t challenge,
                                  const uint8_t comm_c[32], const uint8_t comm_r_last[32],
                                  cz_error *err) {
    const uint32_t layers = c1->layers;
    cz_status st;
    if (challenge >= graph->nodes)
        return cz_error_set(err, CZ_E_INVALID_ARG, "challenge %llu >= %llu nodes",
                            (unsigned long long)challenge, (unsigned long long)graph->nodes);
    /* Tree D: the data leaf under comm_d. */
    if ((st = check_merkle(c1, &ch->comm_d_proof, 1, challenge, c1->comm_d, "comm_d_proofs",
                           err)) != CZ_OK)
        return st;
    /* Columns: the challenge's and its 14 parents', all under comm_c. */
    if ((st = check_column(c1, &ch->c_x, challenge, comm_c, "c_x", err)) != CZ_OK) return st;
    uint32_t parents[CZ_FC_PARENTS];
    cz_fc_graph_drg_parents(parents, graph, (uint32_t)challenge);
    cz_fc_graph_exp_parents(parents + CZ_FC_DRG_DEGREE, graph, (uint32_t)challenge);
    for (int j = 0; j < CZ_FC_PARENTS; j++) {
        char what[32];
        int drg = j < CZ_FC_DRG_DEGREE;
        snprintf(what, sizeof what, "%s[%d]", drg ? "drg_parents" : "exp_parents",
                 drg ? j : j - CZ_FC_DRG_DEGREE);
        const cz_c1_column_proof *col =
            drg ? &ch->drg_parents[j] : &ch->exp_parents[j - CZ_FC_DRG_DEGREE];
        if ((st = check_column(c1, col, parents[j], comm_c, what, err)) != CZ_OK) return st;
    }
    /* Tree R: the replica leaf under comm_r_last. */
    if ((st = check_merkle(c1, &ch->comm_r_last_proof, 0, challenge, comm_r_last,
                           "comm_r_last_proof", err)) != CZ_OK)
        return st;
    /* Labels of layers 1..L from the parent columns (DRG parents: this
     * layer's row; expander parents: the previous layer's row). */
    if (ch->labeling.count != layers)
        return cz_error_set(err, CZ_E_INVALID_ARG, "labeling_proofs: %u, expected %u",
                            ch->labeling.count, layers);
    const cz_c1_dom *cx_rows = cz_c1_doms(c1, ch->c_x.rows);
    cz_c1_dom layer_parents[CZ_FC_PARENTS], expanded[CZ_FC_LABEL_PARENTS];
    for (uint32_t l = 1; l <= layers; l++) {
        unsigned n = l == 1 ? CZ_FC_DRG_DEGREE : CZ_FC_PARENTS;
        for (unsigned j = 0; j < n; j++) {
            int drg = j < CZ_FC_DRG_DEGREE;
            const cz_c1_column_proof *col =
                drg ? &ch->drg_parents[j] : &ch->exp_parents[j - CZ_FC_DRG_DEGREE];
            memcpy(layer_parents[j], cz_c1_doms(c1, col->rows)[drg ? l - 1 : l - 2], 32);
        }
        cz_fc_label_parents_expand(expanded, layer_parents, n);
        char what[40];
        snprintf(what, sizeof what, "labeling_proofs[%u]", l - 1);
        st = check_labeling(c1, &cz_c1_labelings(c1, ch->labeling)[l - 1], expanded, l, challenge,
                            cx_rows[l - 1], what, err);
        if (st != CZ_OK) return st;
        if (l == layers) {
            /* EncodingProof::verify: key (the last label, from the encoding
             * proof's own parents) + data leaf = replica leaf. */
            st = check_labeling(c1, &ch->encoding, expanded, l, challenge, cx_rows[l - 1],
                                "encoding_proof", err);
            if (st != CZ_OK) return st;
            cz_fr key, data, sum, leaf;
            if (!cz_fr_from_bytes_le(&key, cx_rows[l - 1]) ||
                !cz_fr_from_bytes_le(&data, ch->comm_d_proof.leaf) ||
                !cz_fr_from_bytes_le(&leaf, ch->comm_r_last_proof.leaf))
                return cz_error_set(err, CZ_E_RANGE, "encoding: non-canonical value");
            cz_fr_add(&sum, &key, &data);
            if (!cz_fr_equal(&sum, &leaf))
                return cz_error_set(err, CZ_E_INVALID_ARG,
                                    "encoding: label_%u + data leaf differs from the replica "
                                    "leaf (comm_r_last_proof.leaf)",
                                    layers);
        }
    }
    return CZ_OK;
}

cz_status cz_fc_vanilla_verify(const cz_c1 *c1, const uint8_t *prover_id, uint64_t sector_id,
                               cz_error *err) {
    cz_status st = cz_c1_check_shape(c1, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "vanilla");
    cz_fc_proof_info info;
    if ((st = cz_fc_proof_lookup(&info, c1->registered_proof, err)) != CZ_OK) return st;
    if (c1->n_challenges != (size_t)c1->partitions * c1->challenges_per_partition)
        return cz_error_set(err, CZ_E_INVALID_ARG, "vanilla: %zu proofs for %u x %u challenges",
                            c1->n_challenges, c1->partitions, c1->challenges_per_partition);
    if (is_zero32(c1->comm_d) || is_zero32(c1->comm_r) || is_zero32(c1->seed))
        return cz_error_set(err, CZ_E_INVALID_ARG, "vanilla: comm_d, comm_r or seed is zero");
    if (prover_id && (st = cz_fc_check_replica_id(c1, prover_id, sector_id, err)) != CZ_OK)
        return cz_error_wrap(err, st, "vanilla");
    cz_fc_graph graph;
    st = cz_fc_graph_init(&graph, info.sector.nodes, info.porep_id, info.api_version, err);
    if (st != CZ_OK) return st;
    uint64_t *challenges = malloc(sizeof *challenges * c1->challenges_per_partition);
    if (!challenges) return cz_error_set(err, CZ_E_NOMEM, "vanilla: out of memory");
    for (uint32_t k = 0; k < c1->partitions && st == CZ_OK; k++) {
        /* verify_all_partitions: comm_r from the first proof's roots; every
         * proof shares them. */
        const cz_c1_challenge *first = cz_c1_challenge_at(c1, k, 0);
        const uint8_t *comm_c = first->c_x.proof.root;
        const uint8_t *comm_r_last = first->comm_r_last_proof.root;
        uint8_t comm_r[32];
        st = cz_fc_comm_r(comm_r, comm_c, comm_r_last, err);
        if (st == CZ_OK && memcmp(comm_r, c1->comm_r, 32) != 0)
            st = cz_error_set(err, CZ_E_INVALID_ARG,
                              "comm_r differs from Poseidon2(comm_c, comm_r_last) of the proofs");
        if (st == CZ_OK) st = cz_fc_porep_challenges(challenges, c1, k, err);
        if (st != CZ_OK) {
            cz_error_prefix(err, "vanilla: partition %u", k);
            break;
        }
        for (uint32_t i = 0; i < c1->challenges_per_partition && st == CZ_OK; i++) {
            const cz_c1_challenge *ch = cz_c1_challenge_at(c1, k, i);
            if (memcmp(ch->c_x.proof.root, comm_c, 32) != 0)
                st = cz_error_set(err, CZ_E_INVALID_ARG, "comm_c differs from challenge 0's");
            else if (memcmp(ch->comm_r_last_proof.root, comm_r_last, 32) != 0)
                st = cz_error_set(err, CZ_E_INVALID_ARG, "comm_r_last differs from challenge 0's");
            else
                st = verify_challenge(c1, &graph, ch, challenges[i], comm_c, comm_r_last, err);
            if (st != CZ_OK)
                cz_error_prefix(err, "vanilla: partition %u challenge %u (node %llu)", k, i,
                                (unsigned long long)challenges[i]);
        }
    }
    free(challenges);
    return st;
}
