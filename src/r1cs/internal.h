/* Private helpers shared by the constraint-system back-ends (not installed,
 * not for synthesis code). */
#ifndef CZ_R1CS_INTERNAL_H
#define CZ_R1CS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ff/mont_impl.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"
#include "r1cs/cs.h"
#include "util/xxh64.h" /* seed 0 in the record file format */

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
/* The same from the column arrays of A and B alone (any matrix form whose
 * entries are non-zero: cz_r1cs, cz_circuit). */
cz_status cz_densities_from_columns(uint64_t **a_aux, uint64_t **b_input, uint64_t **b_aux,
                                    uint32_t num_inputs, uint32_t num_aux, const uint32_t *a_col,
                                    uint64_t a_nnz, const uint32_t *b_col, uint64_t b_nnz,
                                    cz_error *err);
/* Compares a stored bitmap of `bits` bits with the recomputed one; names
 * the first differing bit ("a_aux_density: bit 5 is 1, but the matrices say
 * 0") or a bit set beyond the variables. */
cz_status cz_density_compare(const uint64_t *have, const uint64_t *want, uint64_t bits,
                             const char *name, const char *var_kind, cz_error *err);
/* The column checks of one CSR row (entries begin..end-1 of col): each <
 * ncols, strictly ascending. Names the matrix and the row ("B: row 17:
 * column 5 after column 9 (columns must ascend)"). */
cz_status cz_check_row_columns(const uint32_t *col, uint64_t begin, uint64_t end, uint64_t ncols,
                               char name, uint64_t row, cz_error *err);
/* Checks every invariant of cz_r1cs (see backends.h) and names the first one
 * that fails. */
cz_status cz_r1cs_validate(const cz_r1cs *r, cz_error *err);

static inline size_t cz_bitmap_words(uint64_t bits) {
    return (size_t)((bits + 63) / 64);
}
static inline void cz_bitmap_set(uint64_t *bits, uint64_t i) {
    bits[i / 64] |= (uint64_t)1 << (i % 64);
}

/* ---- the recorder: synthesis into CSR matrices (record and compile) ----
 *
 * Both back-ends store each constraint as one row per matrix, in the order
 * cz_lc_sorted_view gives (inputs before aux, both ascending), dropping zero
 * coefficients, with columns held as cz_var until cz_recorder_close maps
 * them to num_inputs + index (inputs may be allocated after aux). They
 * differ only in what an entry keeps: record its 32-byte value (u64 row
 * starts), compile an index into an interned coefficient table (u32 row
 * starts, u16 indices that widen to u32 once the table outgrows 65,536). */

/* The interned coefficients of a compiled circuit (circuit.c): distinct
 * non-zero values in Montgomery form, [0] = 1 and [1] = -1, with an open
 * addressing hash on the 32 bytes. */
typedef struct {
    cz_fr *vals;
    size_t cap;
    uint32_t n;
    uint32_t *slots; /* [mask + 1] value index + 1, 0 = empty */
    size_t mask;
} cz_coef_table;
cz_status cz_coef_table_init(cz_coef_table *t);
void cz_coef_table_free(cz_coef_table *t);
/* *index of v (non-zero), added when new; *added tells which (may be NULL). */
cz_status cz_coef_table_intern(cz_coef_table *t, const cz_fr *v, uint32_t *index, int *added);

typedef struct {
    void *row_start; /* [rows + 1]: uint64_t (values) or uint32_t (indices) */
    uint32_t *col;   /* cz_var until cz_recorder_close, then the column */
    void *coef;      /* cz_fr values, or indices of idx_bytes each */
    size_t row_cap, col_cap, coef_cap;
    uint64_t nnz;
    unsigned idx_bytes; /* 2 or 4 for indices, 0 for values */
} cz_matrix_builder;

/* Stores index i at position e of an index array of *idx_bytes (2 or 4)
 * each, holding `used` entries and room for cap, first widening the array
 * in place to 4 bytes when i does not fit 2 (realloc to cap * 4). */
cz_status cz_coef_index_store(void **coef, unsigned *idx_bytes, size_t cap, uint64_t used,
                              uint64_t e, uint32_t i);
/* Widens an index array of `used` entries (room for cap) from 2 to 4 bytes. */
cz_status cz_coef_index_widen(void **coef, unsigned *idx_bytes, size_t cap, uint64_t used);

typedef struct {
    cz_cs base; /* first: a cz_cs * is a cz_recorder * */
    cz_matrix_builder m[3];
    cz_lc_sort_scratch scratch[3];
    cz_coef_table *coefs;    /* NULL: values are stored (record) */
    const char *finish_name; /* "cz_record_finish", for messages */
    int finished;
} cz_recorder;

/* Sets up an empty recorder (ONE allocated, one row start per matrix).
 * coefs NULL stores values; else entries intern into *coefs. */
cz_status cz_recorder_init(cz_recorder *r, const cz_cs_ops *ops, const char *finish_name,
                           cz_coef_table *coefs);
/* The alloc and enforce operations of both back-ends' cz_cs_ops. */
cz_var cz_recorder_alloc(cz_cs *cs, const cz_fr *value, int is_input);
void cz_recorder_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c);
/* After synthesis: the sticky status and a second finish are refused;
 * appends bellperson's input constraints (A = input_i, B = C = 0), maps
 * the columns and marks r finished. The arrays stay in r->m for the caller
 * to move out (rows = r->base.num_constraints + num_inputs). */
cz_status cz_recorder_close(cz_recorder *r, uint64_t *rows, cz_error *err);
/* Frees the builders' arrays and the scratch (not r itself). */
void cz_recorder_free(cz_recorder *r);
/* realloc to bytes (at least 1), keeping the old block when that fails:
 * gives back the slack of doubled arrays. */
void *cz_shrink(void *buf, size_t bytes);

/* ---- what a cz_circuit's storage points to (circuit.c, circuit_file.c) ---- */

#define CZ_CIRCUIT_MAX_BLOCKS 16
typedef struct {
    const uint8_t *map; /* the file mapping the arrays point into, or NULL */
    uint64_t map_size;
    void *owned[CZ_CIRCUIT_MAX_BLOCKS]; /* heap blocks, freed with the circuit */
    unsigned n_owned;
} cz_circuit_storage;
/* A zeroed circuit with empty storage. */
cz_status cz_circuit_alloc(cz_circuit **out, cz_error *err);
/* Records a heap block to free with c (NULL is ignored); returns block. */
void *cz_circuit_own(cz_circuit *c, void *block);

/* ---- files: written through a temporary, read through a mapping ---- */

/* Little-endian fields of the file headers (the formats assume a
 * little-endian host, checked in r1cs_file.c). */
static inline uint32_t cz_load_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t cz_load_u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline void cz_store_u32(uint8_t *p, uint32_t v) {
    memcpy(p, &v, 4);
}
static inline void cz_store_u64(uint8_t *p, uint64_t v) {
    memcpy(p, &v, 8);
}

/* A file being written to path.tmp.PID with a running XXH64 (seed 0). */
typedef struct {
    FILE *f;
    char *path, *tmp;
    cz_xxh64_state hash;
    uint64_t written;
    int failed; /* errno of the first failure */
} cz_file_writer;
cz_status cz_file_writer_open(cz_file_writer *w, const char *path, cz_error *err);
/* Appends n bytes (hashed); failures are sticky and reported at commit. */
void cz_file_writer_put(cz_file_writer *w, const void *p, size_t n);
/* Zero bytes up to the next multiple of align (a power of two). */
void cz_file_writer_pad(cz_file_writer *w, unsigned align);
/* Appends the checksum of everything written (LE u64; *checksum receives
 * it when not NULL), closes and renames the temporary onto path; on any
 * failure removes the temporary and names path and errno's text. */
cz_status cz_file_writer_commit(cz_file_writer *w, uint64_t *checksum, cz_error *err);
/* Closes and removes the temporary (after an error of the caller's). */
void cz_file_writer_abort(cz_file_writer *w);

/* Maps path read-only: *data (NULL for an empty file) of *size bytes;
 * unmap with cz_file_unmap. Messages name path ("cannot open", "cannot
 * map"). */
cz_status cz_file_map(const uint8_t **data, uint64_t *size, const char *path, cz_error *err);
void cz_file_unmap(const uint8_t *data, uint64_t size);

#endif
