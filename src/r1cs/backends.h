/* The back-ends of the constraint-system interface (cs.h). Each *_new returns
 * a cz_cs to hand to synthesis code (NULL on allocation failure); destroy it
 * with cz_cs_destroy. */
#ifndef CZ_R1CS_BACKENDS_H
#define CZ_R1CS_BACKENDS_H

#include <stdio.h>

#include "r1cs/cs.h"

/* ---- count: sizes only, O(1) memory (a 130 M-constraint circuit is fine) ---- */
cz_cs *cz_cs_count_new(void);

/* ---- check: evaluates every constraint as it is enforced (values are known
 * at allocation, so nothing is stored but the assignment) ---- */
cz_cs *cz_cs_check_new(void);
typedef struct {
    int satisfied;
    uint64_t first_failure; /* constraint index, when !satisfied */
    cz_fr a, b, c;          /* <A,z>, <B,z>, <C,z> of that constraint */
} cz_check_result;
/* A system with an error status reports satisfied = 0 and first_failure =
 * the number of constraints enforced before the error. */
void cz_cs_check_result(const cz_cs *cs, cz_check_result *out);

/* ---- prove: what the Groth16 prover needs ----
 * After synthesis the caller runs cz_prove_finish(), which appends bellperson's
 * input constraints (A = input_i, B = 0, C = 0 for every input, ONE included). */
typedef struct {
    uint32_t num_inputs, num_aux;
    uint64_t num_constraints;  /* including the appended input constraints */
    cz_fr *input_assignment;   /* [num_inputs], [0] = 1 */
    cz_fr *aux_assignment;     /* [num_aux] */
    cz_fr *a, *b, *c;          /* [num_constraints] evaluations <A_j,z> ... */
    uint64_t *a_aux_density;   /* bitmaps, bit v set when aux v occurs in some A */
    uint64_t *b_input_density; /* ... input i occurs in some B */
    uint64_t *b_aux_density;   /* ... aux v occurs in some B */
} cz_prove_data;
cz_cs *cz_cs_prove_new(void);
/* Appends the input constraints and moves the data out of cs (cs can then only
 * be destroyed). The caller frees the data with cz_prove_data_free. */
cz_status cz_prove_finish(cz_cs *cs, cz_prove_data *out, cz_error *err);
void cz_prove_data_free(cz_prove_data *d);

/* ---- record: the constraint matrices (the "pre-compiled circuit") ----
 * CSR with rows = constraints (the input constraints of cz_prove_finish
 * appended too, so num_constraints = synthesized + num_inputs, as in
 * cz_prove_data) and columns = inputs then aux (column num_inputs + v is
 * aux v). Invariants (checked by the reader): row_start[0] = 0, rows
 * non-decreasing, nnz = row_start[rows]; columns strictly ascend within a
 * row; every stored value is non-zero (terms whose coefficient summed to
 * zero are dropped), so the densities are exactly "column occurs". */
typedef struct {
    uint64_t rows;
    uint64_t *row_start; /* [rows + 1] */
    uint32_t *col;       /* [nnz] */
    cz_fr *val;          /* [nnz] */
} cz_csr;
typedef struct {
    uint32_t num_inputs, num_aux;
    uint64_t num_constraints;
    cz_csr a, b, c;
    uint64_t *a_aux_density, *b_input_density, *b_aux_density;
} cz_r1cs;
cz_cs *cz_cs_record_new(void);
cz_status cz_record_finish(cz_cs *cs, cz_r1cs *out, cz_error *err);
void cz_r1cs_free(cz_r1cs *r);
/* File form: header (magic, version, sizes), the three matrices, densities and
 * a checksum; readers reject truncated or inconsistent files with a message. */
cz_status cz_r1cs_write(const cz_r1cs *r, const char *path, cz_error *err);
cz_status cz_r1cs_read(cz_r1cs *out, const char *path, cz_error *err);
/* The same from memory (data of size bytes; name prefixes the messages). */
cz_status cz_r1cs_decode(cz_r1cs *out, const uint8_t *data, uint64_t size, const char *name,
                         cz_error *err);
/* a[j] = <A_j, z>, b[j], c[j] for every row j, z = (input, aux), over all
 * cores: the prover's evaluations from a recorded system and a witness
 * (same values as cz_prove_finish). Any output may be NULL. */
void cz_r1cs_eval(cz_fr *a, cz_fr *b, cz_fr *c, const cz_r1cs *r, const cz_fr *input,
                  const cz_fr *aux);

/* ---- stats: what record's matrices would say, without the matrices ----
 * Sizes, non-zeros of A, B, C and the density bitmaps, exactly as
 * cz_record_finish would produce them (same LC checks, zero coefficients
 * dropped, the input constraints included), in memory of one bit per
 * variable per bitmap: fine for the 130 M-aux 32 GiB PoRep circuit. */
typedef struct {
    uint32_t num_inputs, num_aux;     /* inputs include ONE */
    uint64_t synthesized_constraints; /* as the circuit emitted them */
    uint64_t num_constraints;         /* + num_inputs input constraints (as record) */
    uint64_t nnz_a, nnz_b, nnz_c;     /* record's nnz: the input rows add num_inputs to A */
    uint64_t a_aux_count, b_input_count, b_aux_count;          /* popcounts of the bitmaps */
    uint64_t *a_aux_density, *b_input_density, *b_aux_density; /* as in cz_r1cs */
} cz_r1cs_stats;
cz_cs *cz_cs_stats_new(void);
/* Moves the results out (cs can then only be destroyed); free them with
 * cz_r1cs_stats_free. */
cz_status cz_stats_finish(cz_cs *cs, cz_r1cs_stats *out, cz_error *err);
void cz_r1cs_stats_free(cz_r1cs_stats *st);
/* Set bits among the first n of a bitmap. */
uint64_t cz_density_popcount(const uint64_t *bits, uint64_t n);

/* ---- witness: assignments only, enforce only counts (ignores_lcs) ---- */
/* A witness in buffers that outlive one synthesis: the capacities (in
 * elements) let the next unit reuse the pages instead of allocating and
 * zeroing 4 GiB per 32 GiB partition. z = input (num_inputs, input[0] = 1)
 * then aux (num_aux). */
typedef struct {
    uint32_t num_inputs, num_aux;
    cz_fr *input, *aux;
    size_t input_cap, aux_cap;
} cz_witness;
void cz_witness_free(cz_witness *w); /* frees the buffers, zeroes *w */
/* Makes room for num_inputs inputs and num_aux aux. A buffer of too small a
 * capacity is replaced, not grown: its contents are dead, so free + malloc
 * (no copy, and no zeroing: the caller writes every element); one large
 * enough is kept as it is. CZ_E_NOMEM without a message (the caller knows
 * what the witness was for). */
cz_status cz_witness_reserve(cz_witness *w, uint32_t num_inputs, uint32_t num_aux);
cz_cs *cz_cs_witness_new(void);
/* Moves the assignments out (input_assignment[0] = 1). */
cz_status cz_witness_finish(cz_cs *cs, cz_fr **inputs, uint32_t *num_inputs, cz_fr **aux,
                            uint32_t *num_aux, cz_error *err);

/* ---- window: one part of a circuit written in place into a caller's arrays ----
 * For synthesizing independent parts of one circuit on several threads
 * into one cz_witness: the part's variables are numbered from input_begin /
 * aux_begin (their numbers in the whole circuit; input_begin >= 1, ONE is
 * the caller's) and each value is stored at that global index of input /
 * aux, nothing allocated per variable. An allocation at or past input_end /
 * aux_end fails the system with CZ_E_RANGE naming the window, so an
 * overrun never writes into a neighbour's window; the caller checks
 * afterwards that num_inputs == input_end and num_aux == aux_end (a part
 * that allocated less than its window). input and aux both NULL: no
 * witness, counting only (cz_cs_has_witness() = 0). enforce only counts,
 * num_constraints from 0. NULL for an inconsistent window or no memory. */
typedef struct {
    cz_fr *input, *aux; /* whole-circuit arrays, indexed by global variable number */
    uint32_t input_begin, input_end, aux_begin, aux_end;
} cz_witness_window;
cz_cs *cz_cs_window_new(const cz_witness_window *win);

static inline int cz_density_get(const uint64_t *bits, uint64_t i) {
    return (int)((bits[i / 64] >> (i % 64)) & 1);
}

#endif
