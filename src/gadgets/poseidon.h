/* Poseidon circuit: neptune's legacy circuit (circuit.rs::poseidon_hash),
 * the one Filecoin's proving keys were made with.
 * It runs the optimized form of hash/poseidon.h (compressed
 * constants, pre-sparse and sparse matrices): matrix steps are free linear
 * combinations, every S-box costs 3 constraints (plus 1 to allocate its
 * input when that is a linear combination), the first round's S-box of the
 * constant tag is computed natively, and the result is allocated with one
 * more constraint. Cost: 4 (t RF + RP) - 3 - arity constraints and as many
 * aux variables (arity 2: 311, 4: 377, 8: 505, 11: 598, 16: 761, 24: 1009,
 * 36: 1385).
 *
 * Values and errors as in num.h: values only with a witness; an unsupported
 * arity or a parameter-generation failure is the constraint system's sticky
 * error (out is then ONE with value zero). */
#ifndef CZ_GADGETS_POSEIDON_H
#define CZ_GADGETS_POSEIDON_H

#include <stddef.h>

#include "gadgets/num.h"

/* out = Poseidon(in[0..arity)) with the MerkleTree domain tag 2^arity - 1
 * (filecoin-hashers' hash_multi_leaf_circuit / hash2_circuit). */
void cz_poseidon_gadget_hash(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity);
/* The same with an explicit domain tag (e.g. Custom(1) = 2^40 of SnapDeals). */
void cz_poseidon_gadget_hash_tag(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity,
                                 const cz_fr *tag);
/* The direct symbolic synthesis, as neptune runs it (linear combinations
 * built and merged step by step). The functions above emit the identical
 * system faster by replaying a per-arity template recorded from this one
 * (MerkleTree tag; other tags use this directly); exposed for the tests. */
void cz_poseidon_gadget_hash_reference(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity,
                                       const cz_fr *tag);
/* filecoin-hashers' hash_md_circuit over n >= 2 elements: acc = in[0]; per
 * chunk of up to 35 of in[1..): zero padding allocated as aux (no
 * constraint) for a short last chunk, then acc = Poseidon_36(acc, chunk,
 * padding). 71 elements: 2,770 constraints. */
void cz_poseidon_gadget_hash_md(cz_cs *cs, cz_num *out, const cz_num *in, size_t n);

#endif
