/* Private helpers shared by the constraint-system back-ends (not installed,
 * not for synthesis code). */
#ifndef CZ_R1CS_INTERNAL_H
#define CZ_R1CS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ff/mont_impl.h"
#include "r1cs/backends.h"
#include "r1cs/cs.h"

/* Sort key of a variable inside a linear combination: inputs (top bit set)
 * map below every aux, so ascending keys list inputs by index, then aux by
 * index, which is bellpepper's iteration order and the CSR column order. */
static inline uint32_t cz_lc_key(cz_var v) {
    return v ^ CZ_VAR_INPUT_BIT;
}

/* Most variables one system may hold: indices keep the top bit free, and
 * CSR columns (num_inputs + num_aux) must fit a uint32_t. */
#define CZ_CS_MAX_VARS 0x7fffffffu

/* Grows *buf (elements of elem bytes, capacity *cap) to hold at least need
 * elements, doubling; new elements are zeroed when zero is set. */
cz_status cz_grow(void **buf, size_t *cap, size_t need, size_t elem, int zero);

/* Base initialisation: ONE is input 0 of every back-end. */
void cz_cs_base_init(cz_cs *cs, const cz_cs_ops *ops, int has_witness);

/* Checks that one more variable of the kind may be allocated (status clean,
 * limits); fails cs and returns 0 otherwise. */
int cz_cs_may_alloc(cz_cs *cs, int is_input);
/* Counts the new variable and returns it (after cz_cs_may_alloc). */
cz_var cz_cs_count_var(cz_cs *cs, int is_input);

/* Checks that every term of lc names an allocated variable; fails cs with a
 * message naming the constraint, the matrix ('A', 'B', 'C') and the term. */
int cz_cs_check_lc(cz_cs *cs, const cz_lc *lc, char which);

/* The terms of an LC in cz_lc_key order (the CSR column order), as record
 * stores a row: cz_cs_check_lc, then lc itself when its keys already
 * ascend, else a sorted copy in scratch (reused across calls; free
 * scratch->terms and scratch->keys at the end). A variable present twice
 * fails cs. Returns 0 when cs has failed; *out is NULL for a NULL lc. With
 * out = NULL only the checks run (the stats back-end counts terms in any
 * order but must accept and reject the LCs record does). */
typedef struct {
    cz_lc_term *terms;
    size_t cap;
    uint64_t *keys; /* 2 per term: packed (key, position), radix buffer */
    size_t keys_cap;
    cz_lc view;
} cz_lc_sort_scratch;
int cz_lc_sorted_view(cz_cs *cs, const cz_lc *lc, char which, cz_lc_sort_scratch *scratch,
                      const cz_lc **out);

/* Assignments of the witness-carrying back-ends (check, prove, witness). */
typedef struct {
    cz_fr *input; /* [num_inputs], input[0] = 1 */
    cz_fr *aux;
    size_t input_cap, aux_cap;
} cz_assignment;
/* Allocates input 0 = ONE. */
cz_status cz_assignment_init(cz_assignment *as);
void cz_assignment_free(cz_assignment *as);
/* The alloc operation of those back-ends: value is required. */
cz_var cz_assignment_alloc(cz_cs *cs, cz_assignment *as, const cz_fr *value, int is_input);

/* <lc, z> for z = (input, aux). Variables must be in range (see
 * cz_cs_check_lc). When a density bitmap is given, the bit of every variable
 * of its kind with a non-zero coefficient is set (bellperson's
 * eval_with_trackers); zero coefficients contribute nothing either way. */
void cz_lc_eval(cz_fr *out, const cz_lc *lc, const cz_fr *input, const cz_fr *aux,
                uint64_t *input_density, uint64_t *aux_density);

/* Density bitmaps of a matrix set, computed from the matrices: a_aux from A,
 * b_input and b_aux from B (each entry is non-zero by the cz_r1cs invariant).
 * The arrays are calloc'd with at least one word each. */
cz_status cz_r1cs_compute_densities(const cz_r1cs *r, uint64_t **a_aux, uint64_t **b_input,
                                    uint64_t **b_aux, cz_error *err);
/* Checks every invariant of cz_r1cs (see backends.h) and names the first one
 * that fails. */
cz_status cz_r1cs_validate(const cz_r1cs *r, cz_error *err);

static inline size_t cz_bitmap_words(uint64_t bits) {
    return (size_t)((bits + 63) / 64);
}
static inline void cz_bitmap_set(uint64_t *bits, uint64_t i) {
    bits[i / 64] |= (uint64_t)1 << (i % 64);
}

/* XXH64 (xxHash, 64-bit variant, seed 0 in the file format): the record
 * file's checksum. Streaming form. */
typedef struct {
    uint64_t v[4];
    uint64_t total;
    uint8_t buf[32];
    size_t buf_len;
} cz_xxh64_state;
void cz_xxh64_init(cz_xxh64_state *s, uint64_t seed);
void cz_xxh64_update(cz_xxh64_state *s, const void *data, size_t len);
uint64_t cz_xxh64_digest(const cz_xxh64_state *s);
uint64_t cz_xxh64(const void *data, size_t len, uint64_t seed);

#endif
