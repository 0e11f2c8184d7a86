/* Merkle inclusion gadget (storage-proofs-core gadgets/por.rs); see por.h. */
#include "gadgets/por.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "gadgets/multipack.h"
#include "gadgets/poseidon.h"
#include "gadgets/sha256.h"
#include "hash/poseidon.h"

static int arity_log2(unsigned a) {
    return a == 2 ? 1 : a == 4 ? 2 : a == 8 ? 3 : -1;
}

cz_status cz_por_shape_make(cz_por_shape *out, cz_por_hasher hasher, unsigned base_arity,
                            unsigned sub_arity, unsigned top_arity, uint64_t leaves) {
    if (hasher != CZ_POR_POSEIDON && hasher != CZ_POR_SHA256) return CZ_E_INVALID_ARG;
    if (arity_log2(base_arity) < 0) return CZ_E_INVALID_ARG;
    if (sub_arity && arity_log2(sub_arity) < 0) return CZ_E_INVALID_ARG;
    if (top_arity && (arity_log2(top_arity) < 0 || !sub_arity)) return CZ_E_INVALID_ARG;
    uint64_t base_trees = (uint64_t)(sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1);
    if (leaves == 0 || leaves % base_trees) return CZ_E_INVALID_ARG;
    uint64_t per_base = leaves / base_trees;
    unsigned levels = 0;
    while (per_base > 1) {
        if (per_base % base_arity) return CZ_E_INVALID_ARG;
        per_base /= base_arity;
        levels++;
    }
    out->hasher = hasher;
    out->base_arity = base_arity;
    out->base_levels = levels;
    out->sub_arity = sub_arity;
    out->top_arity = top_arity;
    if (cz_por_index_bits(out) > CZ_POR_MAX_BITS) return CZ_E_INVALID_ARG;
    return CZ_OK;
}

unsigned cz_por_levels(const cz_por_shape *s) {
    return s->base_levels + (s->sub_arity != 0) + (s->top_arity != 0);
}

unsigned cz_por_level_arity(const cz_por_shape *s, unsigned l) {
    if (l < s->base_levels) return s->base_arity;
    if (l == s->base_levels && s->sub_arity) return s->sub_arity;
    return s->top_arity;
}

unsigned cz_por_index_bits(const cz_por_shape *s) {
    unsigned n = 0, levels = cz_por_levels(s);
    for (unsigned l = 0; l < levels; l++) n += (unsigned)arity_log2(cz_por_level_arity(s, l));
    return n;
}

size_t cz_por_siblings(const cz_por_shape *s) {
    size_t n = 0;
    unsigned levels = cz_por_levels(s);
    for (unsigned l = 0; l < levels; l++) n += cz_por_level_arity(s, l) - 1;
    return n;
}

/* Sha256Function::hash_multi_leaf_circuit: every child's to_bits_le (all
 * children first), then one SHA-256 over their byte-bits, then the packed
 * first 254 bits of the digest read little-endian. */
static void sha_node(cz_cs *cs, cz_num *out, const cz_num *children, unsigned arity) {
    cz_bool msg[CZ_POR_MAX_ARITY * 256], le[256], digest[256], rev[256];
    for (unsigned k = 0; k < arity; k++) {
        cz_num_to_bits_le(cs, le, &children[k]);
        le[255] = cz_bool_const(0); /* padding to a whole byte */
        cz_bits_reverse_bytes(&msg[256 * k], le, 256);
    }
    cz_sha256(cs, digest, msg, 256 * (size_t)arity);
    cz_bits_reverse_bytes(rev, digest, 256);
    cz_pack_bits(cs, out, rev, 256); /* takes the first 254 (Fr::CAPACITY) */
}

void cz_por_hash_node(cz_cs *cs, cz_num *out, const cz_num *children, unsigned arity,
                      cz_por_hasher hasher) {
    if (arity_log2(arity) < 0) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "por: unsupported arity %u", arity);
        out->var = CZ_VAR_ONE;
        out->value = cz_fr_zero;
        return;
    }
    if (hasher == CZ_POR_SHA256)
        sha_node(cs, out, children, arity);
    else
        cz_poseidon_gadget_hash(cs, out, children, arity);
}

void cz_por_path(cz_cs *cs, cz_num *root_out, cz_bool *bits_out, const cz_por_shape *s,
                 const cz_num *leaf, uint64_t index, const cz_fr *siblings) {
    int wit = cz_cs_has_witness(cs);
    unsigned levels = cz_por_levels(s), bit = 0;
    size_t sib = 0;
    cz_num cur = *leaf;
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = cz_por_level_arity(s, l);
        int nb = arity_log2(a);
        if (nb < 0) {
            cz_cs_fail(cs, CZ_E_INVALID_ARG, "por: unsupported arity %u", a);
            break;
        }
        cz_bool bits[3];
        for (int i = 0; i < nb; i++) {
            bits[i] = cz_bit_alloc(cs, wit ? (int)((index >> (bit + (unsigned)i)) & 1) : 0);
            if (bits_out) bits_out[bit + (unsigned)i] = bits[i];
        }
        bit += (unsigned)nb;
        cz_num path[CZ_POR_MAX_ARITY - 1], children[CZ_POR_MAX_ARITY];
        for (unsigned i = 0; i + 1 < a; i++)
            cz_num_alloc(cs, &path[i], wit && siblings ? &siblings[sib + i] : NULL);
        sib += a - 1;
        cz_num_insert(cs, children, &cur, bits, (unsigned)nb, path);
        cz_por_hash_node(cs, &cur, children, a, s->hasher);
    }
    *root_out = cur;
}

void cz_por_verify(cz_cs *cs, const cz_por_shape *s, const cz_num *leaf, uint64_t index,
                   const cz_fr *siblings, const cz_num *root) {
    cz_bool bits[CZ_POR_MAX_BITS];
    cz_num computed;
    cz_por_path(cs, &computed, bits, s, leaf, index, siblings);
    cz_pack_into_inputs(cs, bits, cz_por_index_bits(s));
    cz_num_equal(cs, &computed, root);
}

void cz_por_circuit(cz_cs *cs, const cz_por_shape *s, const cz_fr *leaf_value, uint64_t index,
                    const cz_fr *siblings, const cz_fr *root_value, int private_root) {
    int wit = cz_cs_has_witness(cs);
    cz_bool bits[CZ_POR_MAX_BITS];
    cz_num leaf, computed, root;
    cz_num_alloc(cs, &leaf, wit ? leaf_value : NULL);
    cz_por_path(cs, &computed, bits, s, &leaf, index, siblings);
    cz_pack_into_inputs(cs, bits, cz_por_index_bits(s));
    cz_num_alloc(cs, &root, wit ? root_value : NULL);
    cz_num_equal(cs, &computed, &root);
    if (!private_root) cz_num_inputize(cs, &root);
}

void cz_por_no_challenge_input(cz_cs *cs, const cz_por_shape *s, const cz_bool *challenge_bits,
                               const cz_num *leaf, const cz_num *path, const cz_num *root) {
    unsigned levels = cz_por_levels(s), bit = 0;
    size_t sib = 0;
    cz_num cur = *leaf, children[CZ_POR_MAX_ARITY];
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = cz_por_level_arity(s, l);
        int nb = arity_log2(a);
        if (nb < 0) {
            cz_cs_fail(cs, CZ_E_INVALID_ARG, "por: unsupported arity %u", a);
            return;
        }
        cz_num_insert(cs, children, &cur, &challenge_bits[bit], (unsigned)nb, &path[sib]);
        cz_por_hash_node(cs, &cur, children, a, s->hasher);
        bit += (unsigned)nb;
        sib += a - 1;
    }
    cz_num_equal(cs, &cur, root);
}

/* ---- native ---- */

cz_status cz_por_hash_node_native(cz_fr *out, const cz_fr *children, unsigned arity,
                                  cz_por_hasher hasher) {
    if (arity_log2(arity) < 0) return CZ_E_INVALID_ARG;
    if (hasher == CZ_POR_POSEIDON) return cz_poseidon_hash(out, children, arity);
    if (hasher != CZ_POR_SHA256) return CZ_E_INVALID_ARG;
    uint8_t buf[CZ_POR_MAX_ARITY * 32], digest[32];
    for (unsigned k = 0; k < arity; k++) cz_fr_to_bytes_le(&buf[32 * k], &children[k]);
    SHA256(buf, 32 * (size_t)arity, digest);
    digest[31] &= 0x3f; /* fr32 mask: below 2^254 < r */
    if (!cz_fr_from_bytes_le(out, digest)) return CZ_E_RANGE;
    return CZ_OK;
}

cz_status cz_por_native_path(cz_fr *root_out, cz_fr *siblings_out, const cz_por_shape *s,
                             const cz_fr *leaves, uint64_t index) {
    unsigned nbits = cz_por_index_bits(s), levels = cz_por_levels(s);
    if (nbits >= 40) return CZ_E_INVALID_ARG; /* builds the whole tree in memory */
    uint64_t n = (uint64_t)1 << nbits;
    if (index >= n) return CZ_E_INVALID_ARG;
    /* A compound tree is contiguous base trees under sub / top nodes, i.e.
     * a mixed-arity tree: node j of level l+1 hashes nodes a*j .. a*j+a-1. */
    cz_fr *cur = malloc(n * sizeof *cur);
    if (!cur) return CZ_E_NOMEM;
    memcpy(cur, leaves, n * sizeof *cur);
    cz_status st = CZ_OK;
    size_t sib = 0;
    for (unsigned l = 0; l < levels && st == CZ_OK; l++) {
        unsigned a = cz_por_level_arity(s, l);
        uint64_t group = index / a, pos = index % a;
        if (siblings_out)
            for (unsigned i = 0, k = 0; i < a; i++)
                if (i != pos) siblings_out[sib + k++] = cur[group * a + i];
        sib += a - 1;
        n /= a;
        for (uint64_t j = 0; j < n && st == CZ_OK; j++)
            st = cz_por_hash_node_native(&cur[j], &cur[a * j], a, s->hasher);
        index = group;
    }
    if (st == CZ_OK) *root_out = cur[0];
    free(cur);
    return st;
}
