/* Merkle inclusion proofs in bincode; see merkle.h.
 *
 * Layout (rust-fil-proofs storage-proofs-core merkle/proof.rs):
 *   MerkleProof  := u32 tag | 0 Single { root, leaf, path }
 *                           | 1 Sub { base_proof, sub_proof, root, leaf }
 *                           | 2 Top { base_proof, sub_proof, top_proof, root, leaf }
 *   InclusionPath := u64 n | PathElement x n
 *   PathElement  := u64 n_hashes | [32] x n_hashes | index u64
 * A path element's hashes are the a - 1 siblings in child order with the
 * current node removed, its index the current node's position (below a):
 * exactly cz_por_path's siblings and index bits. */
#include "filecoin/common/merkle.h"

#include <stdio.h>

static unsigned log2_arity(unsigned a) {
    return a == 2 ? 1 : a == 4 ? 2 : 3;
}

/* The MerkleProof variant a tree shape serializes as. */
static uint32_t variant_of(const cz_por_shape *s) {
    return s->top_arity ? 2 : s->sub_arity ? 1 : 0;
}
static const char *variant_name(uint32_t v) {
    return v == 0 ? "Single" : v == 1 ? "Sub" : v == 2 ? "Top" : "?";
}

/* An InclusionPath of exactly `levels` elements of arity a, starting at the
 * circuit's index bit *bit: siblings into sib, the level indices into *index. */
static int decode_path(cz_bincode_reader *r, cz_fr *sib, uint64_t *index, unsigned *bit,
                       unsigned levels, unsigned a, const char *where) {
    char field[256];
    uint64_t n;
    snprintf(field, sizeof field, "%s (path length)", where);
    if (!cz_bincode_len(r, &n, levels, 0, field)) return 0;
    for (unsigned l = 0; l < levels; l++) {
        snprintf(field, sizeof field, "%s[%u].hashes", where, l);
        uint64_t nh;
        if (!cz_bincode_len(r, &nh, a - 1, 0, field)) return 0;
        for (unsigned h = 0; h + 1 < a; h++) {
            snprintf(field, sizeof field, "%s[%u].hashes[%u]", where, l, h);
            if (!cz_bincode_fr(r, &sib[l * (a - 1) + h], field)) return 0;
        }
        size_t at = r->pos;
        uint64_t idx;
        snprintf(field, sizeof field, "%s[%u].index", where, l);
        if (!cz_bincode_u64(r, &idx, field)) return 0;
        if (idx >= a) {
            cz_bincode_fail(r, at, field, "%llu is not below the arity %u", (unsigned long long)idx,
                            a);
            return 0;
        }
        *index |= idx << *bit;
        *bit += log2_arity(a);
    }
    return 1;
}

int cz_fc_merkle_decode(cz_bincode_reader *r, cz_fc_merkle_proof *m, const cz_por_shape *s,
                        const char *where) {
    char field[256];
    m->offset = r->pos;
    uint32_t tag, want = variant_of(s);
    snprintf(field, sizeof field, "%s (MerkleProof variant)", where);
    size_t at = r->pos;
    if (!cz_bincode_u32(r, &tag, field)) return 0;
    if (tag != want) {
        cz_bincode_fail(r, at, field, "%u (%s); a %u-%u-%u tree's proofs are %u (%s)", tag,
                        variant_name(tag), s->base_arity, s->sub_arity, s->top_arity, want,
                        variant_name(want));
        return 0;
    }
    m->index = 0;
    unsigned bit = 0;
    size_t base_sib = (size_t)s->base_levels * (s->base_arity - 1);
    if (tag == 0) {
        snprintf(field, sizeof field, "%s.root", where);
        if (!cz_bincode_fr(r, &m->root, field)) return 0;
        snprintf(field, sizeof field, "%s.leaf", where);
        if (!cz_bincode_fr(r, &m->leaf, field)) return 0;
        snprintf(field, sizeof field, "%s.path", where);
        return decode_path(r, m->siblings, &m->index, &bit, s->base_levels, s->base_arity, field);
    }
    snprintf(field, sizeof field, "%s.base_proof", where);
    if (!decode_path(r, m->siblings, &m->index, &bit, s->base_levels, s->base_arity, field))
        return 0;
    snprintf(field, sizeof field, "%s.sub_proof", where);
    if (!decode_path(r, m->siblings + base_sib, &m->index, &bit, 1, s->sub_arity, field)) return 0;
    if (tag == 2) {
        snprintf(field, sizeof field, "%s.top_proof", where);
        if (!decode_path(r, m->siblings + base_sib + s->sub_arity - 1, &m->index, &bit, 1,
                         s->top_arity, field))
            return 0;
    }
    snprintf(field, sizeof field, "%s.root", where);
    if (!cz_bincode_fr(r, &m->root, field)) return 0;
    snprintf(field, sizeof field, "%s.leaf", where);
    return cz_bincode_fr(r, &m->leaf, field);
}

size_t cz_fc_merkle_size(const cz_por_shape *s) {
    size_t merkle = 4 + 64, paths = 1 + (s->sub_arity != 0) + (s->top_arity != 0);
    merkle += 8 * paths;
    unsigned levels = cz_por_levels(s);
    for (unsigned l = 0; l < levels; l++) merkle += 8 + 32 * (cz_por_level_arity(s, l) - 1) + 8;
    return merkle;
}

static void put_path(cz_bincode_writer *w, const cz_fr *sib, uint64_t index, unsigned *bit,
                     unsigned levels, unsigned a) {
    cz_bincode_put_u64(w, levels);
    for (unsigned l = 0; l < levels; l++) {
        cz_bincode_put_u64(w, a - 1);
        for (unsigned h = 0; h + 1 < a; h++) cz_bincode_put_fr(w, &sib[l * (a - 1) + h]);
        cz_bincode_put_u64(w, (index >> *bit) & (a - 1));
        *bit += log2_arity(a);
    }
}

void cz_fc_merkle_encode(cz_bincode_writer *w, const cz_fc_merkle_proof *m, const cz_por_shape *s) {
    uint32_t tag = variant_of(s);
    size_t base_sib = (size_t)s->base_levels * (s->base_arity - 1);
    unsigned bit = 0;
    cz_bincode_put_u32(w, tag);
    if (tag == 0) {
        cz_bincode_put_fr(w, &m->root);
        cz_bincode_put_fr(w, &m->leaf);
        put_path(w, m->siblings, m->index, &bit, s->base_levels, s->base_arity);
        return;
    }
    put_path(w, m->siblings, m->index, &bit, s->base_levels, s->base_arity);
    put_path(w, m->siblings + base_sib, m->index, &bit, 1, s->sub_arity);
    if (tag == 2)
        put_path(w, m->siblings + base_sib + s->sub_arity - 1, m->index, &bit, 1, s->top_arity);
    cz_bincode_put_fr(w, &m->root);
    cz_bincode_put_fr(w, &m->leaf);
}

cz_status cz_fc_merkle_root(cz_fr *out, const cz_por_shape *s, const cz_fc_merkle_proof *m) {
    cz_fr cur = m->leaf, children[CZ_POR_MAX_ARITY];
    unsigned levels = cz_por_levels(s), bit = 0;
    size_t sib = 0;
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = cz_por_level_arity(s, l);
        unsigned pos = (unsigned)((m->index >> bit) & (a - 1));
        for (unsigned c = 0, k = 0; c < a; c++)
            children[c] = c == pos ? cur : m->siblings[sib + k++];
        cz_status st = cz_por_hash_node_native(&cur, children, a, s->hasher);
        if (st != CZ_OK) return st;
        bit += log2_arity(a);
        sib += a - 1;
    }
    *out = cur;
    return CZ_OK;
}
