/* SnapDeals vanilla partition proofs: bincode decoding and encoding, the
 * native verifier and the synthetic generator; see snap.h.
 *
 * Layout (rust-fil-proofs storage-proofs-update vanilla.rs; bincode 1.x,
 * MerkleProof as common/merkle.c reads it):
 *   PartitionProof := comm_c [32] | u64 n | apex_leafs [32] x n
 *                   | u64 m | ChallengeProof x m
 *   ChallengeProof := proof_r_old | proof_d_new | proof_r_new (MerkleProof:
 *                     tree R's variant, tree D always Single) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/derive.h"
#include "filecoin/common/merkle.h"
#include "filecoin/snap/snap.h"
#include "hash/poseidon.h"
#include "util/check.h"

/* ---------------------------------------------------------------- memory */

void cz_snap_proof_free(cz_snap_partition_proof *p) {
    if (!p) return;
    free(p->ch);
    free(p->pool);
    memset(p, 0, sizeof *p);
}

void cz_snap_proofs_free(cz_snap_partition_proof *proofs, uint32_t n) {
    for (uint32_t i = 0; proofs && i < n; i++) cz_snap_proof_free(&proofs[i]);
    free(proofs);
}

cz_status cz_snap_proof_alloc(cz_snap_partition_proof *p, const cz_snap_config *cfg,
                              cz_error *err) {
    memset(p, 0, sizeof *p);
    size_t r = cz_por_siblings(&cfg->tree_r), d = cfg->node_bits;
    size_t per = 2 * r + d;
    p->ch = calloc(cfg->challenges, sizeof *p->ch);
    p->pool = calloc(cfg->apex_leaves + cfg->challenges * per, sizeof *p->pool);
    if (!p->ch || !p->pool) {
        cz_snap_proof_free(p);
        return cz_error_set(err, CZ_E_NOMEM, "snap proof: out of memory");
    }
    p->apex_leaves = p->pool;
    for (uint32_t c = 0; c < cfg->challenges; c++) {
        cz_fr *base = p->pool + cfg->apex_leaves + c * per;
        p->ch[c].r_old.siblings = base;
        p->ch[c].d_new.siblings = base + r;
        p->ch[c].r_new.siblings = base + r + d;
    }
    return CZ_OK;
}

/* ------------------------------------------------------ decoding, encoding */

cz_status cz_snap_decode(cz_snap_partition_proof *out, const cz_snap_config *cfg,
                         const uint8_t *data, size_t len, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_snap_partition_proof p;
    cz_status st = cz_snap_proof_alloc(&p, cfg, err);
    if (st != CZ_OK) return st;
    const cz_por_shape tree_d = cz_snap_tree_d(cfg);
    cz_bincode_reader r;
    cz_bincode_reader_init(&r, data, len, err);
    uint64_t n;
    int ok = cz_bincode_fr(&r, &p.comm_c, "partition_proof.comm_c") &&
             cz_bincode_len(&r, &n, cfg->apex_leaves, 0, "partition_proof.apex_leafs (length)");
    char where[96];
    for (uint32_t i = 0; ok && i < cfg->apex_leaves; i++) {
        snprintf(where, sizeof where, "partition_proof.apex_leafs[%u]", i);
        ok = cz_bincode_fr(&r, &p.apex_leaves[i], where);
    }
    ok = ok &&
         cz_bincode_len(&r, &n, cfg->challenges, 0, "partition_proof.challenge_proofs (length)");
    for (uint32_t c = 0; ok && c < cfg->challenges; c++) {
        snprintf(where, sizeof where, "partition_proof.challenge_proofs[%u].proof_r_old", c);
        ok = cz_fc_merkle_decode(&r, &p.ch[c].r_old, &cfg->tree_r, where);
        snprintf(where, sizeof where, "partition_proof.challenge_proofs[%u].proof_d_new", c);
        ok = ok && cz_fc_merkle_decode(&r, &p.ch[c].d_new, &tree_d, where);
        snprintf(where, sizeof where, "partition_proof.challenge_proofs[%u].proof_r_new", c);
        ok = ok && cz_fc_merkle_decode(&r, &p.ch[c].r_new, &cfg->tree_r, where);
    }
    if (!(ok && cz_bincode_end(&r, "PartitionProof"))) {
        cz_snap_proof_free(&p);
        return r.status;
    }
    *out = p;
    return CZ_OK;
}

cz_status cz_snap_encode(uint8_t **out, size_t *len, const cz_snap_config *cfg,
                         const cz_snap_partition_proof *p, cz_error *err) {
    size_t size = cz_snap_encoded_size(cfg);
    cz_bincode_writer w = {malloc(size), size, 0};
    if (!w.data) return cz_error_set(err, CZ_E_NOMEM, "snap encode: out of memory");
    const cz_por_shape tree_d = cz_snap_tree_d(cfg);
    cz_bincode_put_fr(&w, &p->comm_c);
    cz_bincode_put_u64(&w, cfg->apex_leaves);
    for (uint32_t i = 0; i < cfg->apex_leaves; i++) cz_bincode_put_fr(&w, &p->apex_leaves[i]);
    cz_bincode_put_u64(&w, cfg->challenges);
    for (uint32_t c = 0; c < cfg->challenges; c++) {
        cz_fc_merkle_encode(&w, &p->ch[c].r_old, &cfg->tree_r);
        cz_fc_merkle_encode(&w, &p->ch[c].d_new, &tree_d);
        cz_fc_merkle_encode(&w, &p->ch[c].r_new, &cfg->tree_r);
    }
    if (w.pos != size) {
        free(w.data);
        return CZ_BROKEN(err, "snap encode: wrote %zu bytes, expected %zu", w.pos, size);
    }
    *out = w.data;
    *len = size;
    return CZ_OK;
}

/* ---------------------------------------------------------- verification */

static cz_status sha_node(cz_fr *out, const cz_fr *left, const cz_fr *right) {
    cz_fr children[2] = {*left, *right};
    return cz_por_hash_node_native(out, children, 2, CZ_POR_SHA256);
}

/* The apex tree of the apex leaves, rows leaves first, in tree (2A - 1
 * values). */
static cz_status apex_tree(cz_fr *tree, const cz_fr *leaves, uint32_t A) {
    memcpy(tree, leaves, A * sizeof *tree);
    cz_fr *row = tree, *next = tree + A;
    for (uint32_t len = A; len > 1; len /= 2) {
        for (uint32_t i = 0; i < len / 2; i++) {
            cz_status st = sha_node(&next[i], &row[2 * i], &row[2 * i + 1]);
            if (st != CZ_OK) return st;
        }
        row = next;
        next += len / 2;
    }
    return CZ_OK;
}

/* One challenge: what the circuit computes for it holds natively. */
static cz_status verify_challenge(const cz_snap_config *cfg, const cz_snap_comms *comms,
                                  const cz_snap_partition_proof *p, uint32_t ci, uint64_t c,
                                  const cz_fr *phi, const cz_fr *apex, cz_error *err) {
    const cz_snap_challenge_proof *cp = &p->ch[ci], *c0 = &p->ch[0];
    const cz_por_shape tree_d = cz_snap_tree_d(cfg);
    const cz_fc_merkle_proof *proofs[3] = {&cp->r_old, &cp->d_new, &cp->r_new};
    static const char *const names[3] = {"proof_r_old", "proof_d_new", "proof_r_new"};
    const cz_fr *roots[3] = {&c0->r_old.root, &comms->comm_d_new, &c0->r_new.root};
    cz_status st;
    for (int k = 0; k < 3; k++) {
        const cz_fc_merkle_proof *m = proofs[k];
        cz_fr root;
        if (m->index != c)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "challenge_proofs[%u].%s proves node %llu, the challenge is %llu",
                                ci, names[k], (unsigned long long)m->index, (unsigned long long)c);
        if ((st = cz_fc_merkle_root(&root, k == 1 ? &tree_d : &cfg->tree_r, m)) != CZ_OK)
            return cz_error_set(err, st, "challenge_proofs[%u].%s: hash failed", ci, names[k]);
        if (!cz_fr_equal(&root, &m->root) || !cz_fr_equal(&m->root, roots[k]))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "challenge_proofs[%u].%s: the path of node %llu does not hash to "
                                "the root of %s",
                                ci, names[k], (unsigned long long)c,
                                k == 1 ? "comm_d_new" : "challenge_proofs[0]");
    }
    /* the encoding */
    cz_fr rho, expect;
    if ((st = cz_snap_rho(&rho, phi, cz_snap_rho_index(cfg, c))) != CZ_OK)
        return cz_error_set(err, st, "rho failed");
    cz_fr_mul(&expect, &cp->d_new.leaf, &rho);
    cz_fr_add(&expect, &expect, &cp->r_old.leaf);
    if (!cz_fr_equal(&expect, &cp->r_new.leaf))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "challenge_proofs[%u]: leaf_r_new of node %llu is not leaf_r_old + "
                            "leaf_d_new * rho",
                            ci, (unsigned long long)c);
    /* tree D: the node at the apex row is the selected apex leaf, the apex
     * levels' siblings are the apex tree's, the partition path is
     * challenge 0's */
    const unsigned below = cfg->node_bits - cfg->partition_bits - cfg->apex_bits;
    cz_fr cur = cp->d_new.leaf;
    for (unsigned l = 0; l < below; l++) {
        const cz_fr *sib = &cp->d_new.siblings[l];
        st = (c >> l) & 1 ? sha_node(&cur, sib, &cur) : sha_node(&cur, &cur, sib);
        if (st != CZ_OK) return cz_error_set(err, st, "sha256 failed");
    }
    uint32_t pos = (uint32_t)(c >> below) & (cfg->apex_leaves - 1);
    if (!cz_fr_equal(&cur, &p->apex_leaves[pos]))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "challenge_proofs[%u].proof_d_new: node %llu does not lead to "
                            "apex_leafs[%u]",
                            ci, (unsigned long long)c, pos);
    const cz_fr *row = apex;
    for (unsigned l = 0, len = cfg->apex_leaves; l < cfg->apex_bits; l++, len /= 2) {
        if (!cz_fr_equal(&cp->d_new.siblings[below + l], &row[pos ^ 1]))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "challenge_proofs[%u].proof_d_new.path[%u] is not in the apex tree",
                                ci, below + l);
        row += len;
        pos >>= 1;
    }
    for (unsigned l = cfg->node_bits - cfg->partition_bits; l < cfg->node_bits; l++)
        if (!cz_fr_equal(&cp->d_new.siblings[l], &c0->d_new.siblings[l]))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "challenge_proofs[%u].proof_d_new.path[%u] differs from challenge "
                                "0's partition path",
                                ci, l);
    return CZ_OK;
}

cz_status cz_snap_vanilla_verify(const cz_snap_config *cfg, const cz_snap_comms *comms,
                                 uint32_t partition, const cz_snap_partition_proof *p,
                                 cz_error *err) {
    if (partition >= cfg->partitions)
        return cz_error_set(err, CZ_E_INVALID_ARG, "snap verify: partition %u of %u", partition,
                            cfg->partitions);
    cz_status st;
    cz_fr pre[2] = {p->comm_c, p->ch[0].r_old.root}, h, phi;
    const char *which = "comm_r_old";
    if ((st = cz_poseidon_hash(&h, pre, 2)) == CZ_OK && cz_fr_equal(&h, &comms->comm_r_old)) {
        pre[1] = p->ch[0].r_new.root;
        which = "comm_r_new";
        if ((st = cz_poseidon_hash(&h, pre, 2)) == CZ_OK && cz_fr_equal(&h, &comms->comm_r_new))
            which = NULL;
    }
    if (st != CZ_OK) return cz_error_set(err, st, "snap verify: Poseidon failed");
    if (which)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s is not Poseidon2(comm_c, root of challenge_proofs[0].proof_r_%s)",
                            which, which[7] == 'o' ? "old" : "new");
    uint64_t *ch = malloc(cfg->challenges * sizeof *ch);
    cz_fr *apex = malloc(2 * (size_t)cfg->apex_leaves * sizeof *apex);
    if (!ch || !apex) {
        free(ch), free(apex);
        return cz_error_set(err, CZ_E_NOMEM, "snap verify: out of memory");
    }
    st = cz_snap_challenges(ch, cfg, &comms->comm_r_new, partition, err);
    if (st == CZ_OK && ((st = cz_snap_phi(&phi, &comms->comm_d_new, &comms->comm_r_old)) != CZ_OK ||
                        (st = apex_tree(apex, p->apex_leaves, cfg->apex_leaves)) != CZ_OK))
        cz_error_set(err, st, "snap verify: hash failed");
    for (uint32_t c = 0; c < cfg->challenges && st == CZ_OK; c++)
        st = verify_challenge(cfg, comms, p, c, ch[c], &phi, apex, err);
    free(ch), free(apex);
    return st;
}

/* ------------------------------------------------------------- generator */

#define MAX_LEVELS 40

/* Tree R new: below the rho block size every node of a level is a function
 * of its block (uniform[l][block]); above it each node is stored
 * (upper[l][i]). */
typedef struct {
    const cz_snap_config *cfg;
    unsigned levels;
    uint64_t span[MAX_LEVELS + 1]; /* leaves under one node of level l */
    uint64_t block;                /* nodes of one rho block: 2^(dD - h) */
    uint64_t blocks;               /* 2^h */
    cz_fr *uniform[MAX_LEVELS + 1];
    cz_fr *upper[MAX_LEVELS + 1];
} new_tree;

static void new_tree_free(new_tree *t) {
    for (unsigned l = 0; l <= MAX_LEVELS; l++) free(t->uniform[l]), free(t->upper[l]);
}

static const cz_fr *new_node(const new_tree *t, unsigned l, uint64_t i) {
    if (t->span[l] <= t->block) return &t->uniform[l][i * t->span[l] / t->block];
    return &t->upper[l][i];
}

static cz_status new_tree_build(new_tree *t, const cz_fr *key, const cz_fr *data,
                                const cz_fr *phi) {
    const cz_snap_config *cfg = t->cfg;
    const cz_por_shape *s = &cfg->tree_r;
    t->levels = cz_por_levels(s);
    t->block = (uint64_t)1 << (cfg->node_bits - cfg->h);
    t->blocks = (uint64_t)1 << cfg->h;
    t->span[0] = 1;
    for (unsigned l = 0; l < t->levels; l++) t->span[l + 1] = t->span[l] * cz_por_level_arity(s, l);
    cz_status st = CZ_OK;
    for (unsigned l = 0; l <= t->levels && st == CZ_OK; l++) {
        uint64_t n = t->span[l] <= t->block ? t->blocks : cfg->nodes / t->span[l];
        cz_fr *v = malloc(n * sizeof *v);
        if (!v) return CZ_E_NOMEM;
        if (t->span[l] <= t->block)
            t->uniform[l] = v;
        else
            t->upper[l] = v;
        for (uint64_t i = 0; i < n && st == CZ_OK; i++) {
            if (l == 0) { /* leaves: key + data * rho(block) */
                cz_fr rho;
                if ((st = cz_snap_rho(&rho, phi, i)) == CZ_OK) {
                    cz_fr_mul(&v[i], data, &rho);
                    cz_fr_add(&v[i], &v[i], key);
                }
                continue;
            }
            unsigned a = cz_por_level_arity(s, l - 1);
            cz_fr children[CZ_POR_MAX_ARITY];
            for (unsigned k = 0; k < a; k++)
                children[k] =
                    t->span[l] <= t->block ? t->uniform[l - 1][i] : *new_node(t, l - 1, i * a + k);
            st = cz_poseidon_hash(&v[i], children, a);
        }
    }
    return st;
}

/* The proof of node c in a tree whose node values come from value(level,
 * index): siblings level by level. */
typedef const cz_fr *(*node_fn)(const void *ctx, unsigned l, uint64_t i);

static void fill_proof(cz_fc_merkle_proof *m, const cz_por_shape *s, uint64_t c, node_fn value,
                       const void *ctx) {
    unsigned levels = cz_por_levels(s);
    uint64_t i = c;
    size_t k = 0;
    m->index = c;
    m->leaf = *value(ctx, 0, c);
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = cz_por_level_arity(s, l), pos = (unsigned)(i % a);
        for (unsigned j = 0; j < a; j++)
            if (j != pos) m->siblings[k++] = *value(ctx, l, i - pos + j);
        i /= a;
    }
    m->root = *value(ctx, levels, 0);
}

static const cz_fr *new_value(const void *ctx, unsigned l, uint64_t i) {
    return new_node(ctx, l, i);
}

/* A tree whose every node of a level is the same: defaults[l]. */
static const cz_fr *uniform_value(const void *ctx, unsigned l, uint64_t i) {
    (void)i;
    return &((const cz_fr *)ctx)[l];
}

/* defaults[0] = leaf, defaults[l + 1] = H(defaults[l] x arity). */
static cz_status uniform_levels(cz_fr *defaults, const cz_por_shape *s, const cz_fr *leaf) {
    defaults[0] = *leaf;
    unsigned levels = cz_por_levels(s);
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = cz_por_level_arity(s, l);
        cz_fr children[CZ_POR_MAX_ARITY];
        for (unsigned k = 0; k < a; k++) children[k] = defaults[l];
        cz_status st = cz_por_hash_node_native(&defaults[l + 1], children, a, s->hasher);
        if (st != CZ_OK) return st;
    }
    return CZ_OK;
}

cz_status cz_snap_gen(cz_snap_partition_proof *out, cz_snap_comms *comms, const cz_snap_config *cfg,
                      const cz_snap_gen_opts *opts, cz_error *err) {
    uint8_t top[32];
    cz_fr_to_bytes_le(top, &opts->data_leaf);
    if (top[31] & 0xc0)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "snap gen: the data leaf must be below 2^254 (Fr32 data)");
    const cz_por_shape tree_d = cz_snap_tree_d(cfg);
    cz_fr old[MAX_LEVELS + 1], data[MAX_LEVELS + 1], pre[2], phi;
    new_tree t;
    memset(&t, 0, sizeof t);
    t.cfg = cfg;
    memset(out, 0, cfg->partitions * sizeof *out);
    cz_status st;
    if ((st = uniform_levels(old, &cfg->tree_r, &opts->key_leaf)) != CZ_OK ||
        (st = uniform_levels(data, &tree_d, &opts->data_leaf)) != CZ_OK)
        return cz_error_set(err, st, "snap gen: hash failed");
    comms->comm_d_new = data[cfg->node_bits];
    pre[0] = opts->comm_c;
    pre[1] = old[cz_por_levels(&cfg->tree_r)];
    if ((st = cz_poseidon_hash(&comms->comm_r_old, pre, 2)) != CZ_OK ||
        (st = cz_snap_phi(&phi, &comms->comm_d_new, &comms->comm_r_old)) != CZ_OK ||
        (st = new_tree_build(&t, &opts->key_leaf, &opts->data_leaf, &phi)) != CZ_OK) {
        new_tree_free(&t);
        return cz_error_set(err, st, "snap gen: %s",
                            st == CZ_E_NOMEM ? "out of memory" : "hash failed");
    }
    pre[1] = *new_node(&t, t.levels, 0);
    if ((st = cz_poseidon_hash(&comms->comm_r_new, pre, 2)) != CZ_OK) {
        new_tree_free(&t);
        return cz_error_set(err, st, "snap gen: hash failed");
    }
    uint64_t *ch = malloc(cfg->challenges * sizeof *ch);
    if (!ch) st = cz_error_set(err, CZ_E_NOMEM, "snap gen: out of memory");
    const unsigned apex_row = cfg->node_bits - cfg->partition_bits - cfg->apex_bits;
    for (uint32_t k = 0; k < cfg->partitions && st == CZ_OK; k++) {
        cz_snap_partition_proof *p = &out[k];
        if ((st = cz_snap_proof_alloc(p, cfg, err)) != CZ_OK ||
            (st = cz_snap_challenges(ch, cfg, &comms->comm_r_new, k, err)) != CZ_OK)
            break;
        p->comm_c = opts->comm_c;
        for (uint32_t i = 0; i < cfg->apex_leaves; i++) p->apex_leaves[i] = data[apex_row];
        for (uint32_t c = 0; c < cfg->challenges; c++) {
            fill_proof(&p->ch[c].r_old, &cfg->tree_r, ch[c], uniform_value, old);
            fill_proof(&p->ch[c].d_new, &tree_d, ch[c], uniform_value, data);
            fill_proof(&p->ch[c].r_new, &cfg->tree_r, ch[c], new_value, &t);
        }
    }
    free(ch);
    new_tree_free(&t);
    if (st != CZ_OK)
        for (uint32_t k = 0; k < cfg->partitions; k++) cz_snap_proof_free(&out[k]);
    return st;
}

void cz_snap_gen_opts_from_seed(cz_snap_gen_opts *out, uint64_t seed) {
    static const char *const tags[3] = {"comm_c", "key", "data"};
    cz_fr *fields[3] = {&out->comm_c, &out->key_leaf, &out->data_leaf};
    for (int k = 0; k < 3; k++) {
        uint8_t msg[40], digest[32];
        size_t n = (size_t)snprintf((char *)msg, 24, "cuzk gen snap %s", tags[k]);
        for (int i = 0; i < 8; i++) msg[n + i] = (uint8_t)(seed >> (8 * i));
        cz_fc_sha256(digest, msg, n + 8);
        cz_fc_fr32_mask(digest);
        cz_fr_from_bytes_le(fields[k], digest); /* below 2^254 < r */
    }
}
