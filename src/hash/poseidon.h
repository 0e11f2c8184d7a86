/* Poseidon over the BLS12-381 scalar field exactly as neptune defines it
 * (Strength::Standard, x^5 S-box, RF = 8; neptune src/poseidon.rs).
 *
 * Every constant is generated at first use (thread-safe, once per arity):
 * the Grain LFSR round constants, the Cauchy MDS matrix and its inverse, and
 * the pre-processed constants of the optimized form (compressed round
 * constants, pre-sparse matrix, sparse M'' factors) that the circuit
 * (gadgets/poseidon.h) needs. Supported arities: 2, 4, 8, 11, 16, 24, 36
 * (width t = arity + 1).
 *
 * Matrices are row-major t x t arrays of cz_fr. Field elements are cz_fr in
 * Montgomery form as everywhere in the library. */
#ifndef CZ_HASH_POSEIDON_H
#define CZ_HASH_POSEIDON_H

#include <stddef.h>

#include "cuzk/status.h"
#include "ff/fr.h"

#define CZ_POSEIDON_MAX_ARITY   36
#define CZ_POSEIDON_MAX_WIDTH   (CZ_POSEIDON_MAX_ARITY + 1)
#define CZ_POSEIDON_FULL_ROUNDS 8
/* filecoin-hashers' PoseidonMDArity: hash_md chains arity-36 hashes. */
#define CZ_POSEIDON_MD_ARITY 36

typedef struct {
    unsigned arity, width;      /* width t = arity + 1 */
    unsigned full_rounds;       /* RF = 8 (4 before, 4 after the partial rounds) */
    unsigned partial_rounds;    /* RP */
    cz_fr merkle_tag;           /* 2^arity - 1 (HashType::MerkleTree) */
    const cz_fr *round_consts;  /* (RF + RP) * t, round r at [r * t] (Grain LFSR) */
    const cz_fr *mds;           /* M[i][j] = 1 / (i + t + j) */
    const cz_fr *mds_inv;       /* M^-1 */
    const cz_fr *compressed;    /* t * RF + RP constants of the optimized form */
    const cz_fr *pre_sparse;    /* the matrix applied after round RF/2 - 1 */
    const cz_fr *sparse_w_hat;  /* RP rows of t: column 0 of each sparse M'' */
    const cz_fr *sparse_v_rest; /* RP rows of t - 1: row 0 of each M'' without [0] */
} cz_poseidon_params;

/* 1 when arity is one of the supported arities. */
int cz_poseidon_arity_supported(unsigned arity);
/* The parameters of an arity, generated on first use (thread-safe). NULL when
 * the arity is unsupported or memory ran out. The result lives until exit. */
const cz_poseidon_params *cz_poseidon_params_get(unsigned arity);
/* Generates every supported arity now (optional; get() does it lazily). */
cz_status cz_poseidon_init(void);

/* Partial rounds of neptune's calc_round_numbers for Strength::Standard
 * (tabulated for the supported arities; 0 for others). */
unsigned cz_poseidon_partial_rounds(unsigned arity);
/* The Grain LFSR round constants for width t, n = 255 bits, field = 1,
 * sbox = 1: (rf + rp) * t elements into out. */
void cz_poseidon_grain_constants(cz_fr *out, unsigned t, unsigned rf, unsigned rp);

/* The permutation of state[0..t) in neptune's "Correct" (textbook) form:
 * add round constants, S-box (all elements or element 0), multiply by M. */
void cz_poseidon_permute_ref(const cz_poseidon_params *p, cz_fr *state);
/* The same permutation in the optimized form the circuit uses (compressed
 * constants, pre-sparse and sparse matrices); equal results. */
void cz_poseidon_permute_opt(const cz_poseidon_params *p, cz_fr *state);

/* out = Poseidon(tag, in[0..arity)) = state[1] after the permutation of
 * [tag, in...]. CZ_E_INVALID_ARG for an unsupported arity, CZ_E_NOMEM when the
 * parameters could not be generated. out may alias in. */
cz_status cz_poseidon_hash_tag(cz_fr *out, const cz_fr *in, unsigned arity, const cz_fr *tag);
/* With the MerkleTree domain tag 2^arity - 1 (neptune PoseidonConstants::new()):
 * Filecoin's Merkle nodes, column hashes and comm_r. */
cz_status cz_poseidon_hash(cz_fr *out, const cz_fr *in, unsigned arity);
/* filecoin-hashers' hash_md: acc = in[0]; for each chunk of up to 35 of
 * in[1..n): acc = Poseidon_36(acc, chunk, zero padding). Requires n >= 2. */
cz_status cz_poseidon_hash_md(cz_fr *out, const cz_fr *in, size_t n);

#endif
