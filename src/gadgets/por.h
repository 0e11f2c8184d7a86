/* Merkle inclusion (proof of retrievability) gadget: rust-fil-proofs'
 * storage-proofs-core gadgets/por.rs (PoRCircuit, SubPath::synthesize) with
 * insertion.rs.
 *
 * A tree shape is a hasher (Poseidon or SHA-256), a base arity with a number
 * of base levels, and an optional sub level and top level (one level each,
 * arity 0 = absent), e.g. 32 GiB tree R/C = Poseidon 8-8 (base 8, sub 8),
 * 64 GiB = 8-8-2, tree D = SHA-256 base 2. Every arity is 2, 4 or 8.
 *
 * Per level of arity a (base levels first, then sub, then top), exactly as
 * SubPath::synthesize emits it:
 *   1. log2(a) allocated index bits, LSB first (bits of the level's index);
 *   2. a - 1 sibling values, aux, no constraint;
 *   3. insert(cur, bits, siblings) -> a children (num.h, cz_num_insert);
 *   4. cur = node hash of the a children: Poseidon arity a with the
 *      MerkleTree tag (hash_multi_leaf_circuit), or for SHA-256: each child
 *      to_bits_le (255 bits) + one constant false bit, bits reversed within
 *      each byte, SHA-256 of the concatenation, digest bits reversed within
 *      each byte, pack_bits of the first 254 (Sha256Function's
 *      hash_multi_leaf_circuit / hash_circuit).
 * The index bits of all levels, in that order, are the challenge's bits LSB
 * first (challenge_into_auth_path_bits). Leaf i of a tree with sub/top
 * levels lies in base tree i / (leaves per base tree), as merkletree builds
 * compound trees from contiguous base trees.
 *
 * Values and errors as in num.h (values only with a witness; the sticky
 * status of the constraint system). */
#ifndef CZ_GADGETS_POR_H
#define CZ_GADGETS_POR_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "gadgets/num.h"

typedef enum { CZ_POR_POSEIDON = 0, CZ_POR_SHA256 = 1 } cz_por_hasher;

typedef struct {
    cz_por_hasher hasher;
    unsigned base_arity;  /* 2, 4 or 8 */
    unsigned base_levels; /* levels of each base tree */
    unsigned sub_arity;   /* 0 (none), 2, 4 or 8 */
    unsigned top_arity;   /* 0 (none), 2, 4 or 8; needs a sub level */
} cz_por_shape;

/* Largest arity of any level. */
#define CZ_POR_MAX_ARITY 8
/* Most index bits a shape may have (and so leaves <= 2^64). */
#define CZ_POR_MAX_BITS 64

/* The shape of a tree of `leaves` leaves: base_levels = log_base(leaves /
 * (sub * top)). CZ_E_INVALID_ARG when the arities are not 2/4/8 (sub/top
 * also 0), top without sub, or leaves does not fill the tree exactly. */
cz_status cz_por_shape_make(cz_por_shape *out, cz_por_hasher hasher, unsigned base_arity,
                            unsigned sub_arity, unsigned top_arity, uint64_t leaves);
/* Number of levels (base_levels + [sub] + [top]). */
unsigned cz_por_levels(const cz_por_shape *s);
/* Arity of level l (0 = the leaves' level). */
unsigned cz_por_level_arity(const cz_por_shape *s, unsigned l);
/* Total index bits (= log2(leaves)) and total sibling count. */
unsigned cz_por_index_bits(const cz_por_shape *s);
size_t cz_por_siblings(const cz_por_shape *s);

/* The node hash gadget of a level (step 4 above). */
void cz_por_hash_node(cz_cs *cs, cz_num *out, const cz_num *children, unsigned arity,
                      cz_por_hasher hasher);

/* Steps 1-4 for every level from `leaf` up: allocates the index bits (from
 * index, the challenge; ignored without a witness) and the siblings
 * (siblings: cz_por_siblings(s) values, level by level, each level's a - 1
 * siblings in order; NULL without a witness). root_out: the computed root.
 * bits_out (may be NULL): the cz_por_index_bits(s) allocated index bits. */
void cz_por_path(cz_cs *cs, cz_num *root_out, cz_bool *bits_out, const cz_por_shape *s,
                 const cz_num *leaf, uint64_t index, const cz_fr *siblings);

/* The PoR with leaf and root already allocated (the PoRep / PoSt use):
 * cz_por_path, then pack_into_inputs(all index bits) (one public input per
 * 254 bits), then equal(computed root, root). */
void cz_por_verify(cz_cs *cs, const cz_por_shape *s, const cz_num *leaf, uint64_t index,
                   const cz_fr *siblings, const cz_num *root);

/* PoRCircuit::synthesize: leaf allocated (aux), cz_por_path,
 * pack_into_inputs(index bits), root allocated (aux), equal(computed, root),
 * and when !private the root is inputized (one more input and constraint).
 * leaf_value / root_value may be NULL without a witness. */
void cz_por_circuit(cz_cs *cs, const cz_por_shape *s, const cz_fr *leaf_value, uint64_t index,
                    const cz_fr *siblings, const cz_fr *root_value, int private_root);

/* por_no_challenge_input (SnapDeals, and the PoR of por.rs without a
 * challenge input): everything allocated by the caller: challenge_bits
 * (cz_por_index_bits(s) allocated bits, LSB first), path (cz_por_siblings(s)
 * values, level by level), leaf and root. Per level insert + node hash, then
 * computed * ONE = root. No public input. */
void cz_por_no_challenge_input(cz_cs *cs, const cz_por_shape *s, const cz_bool *challenge_bits,
                               const cz_num *leaf, const cz_num *path, const cz_num *root);

/* ---- native ---- */

/* The node hash of a level: Poseidon arity a (MerkleTree tag), or for
 * SHA-256 fr32_mask(SHA256(le bytes of child 0 || ... || child a-1)) read
 * little-endian (Sha256Function::multi_node; arity 2 is tree D's node). */
cz_status cz_por_hash_node_native(cz_fr *out, const cz_fr *children, unsigned arity,
                                  cz_por_hasher hasher);
/* Root and authentication path of leaf `index` in the tree over
 * leaves[0 .. 2^cz_por_index_bits(s)): siblings_out gets cz_por_siblings(s)
 * values in cz_por_path's order (may be NULL for the root only). Builds the
 * whole tree: O(leaves) hashes and memory. */
cz_status cz_por_native_path(cz_fr *root_out, cz_fr *siblings_out, const cz_por_shape *s,
                             const cz_fr *leaves, uint64_t index);

#endif
