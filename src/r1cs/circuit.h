/* The pre-compiled circuit: a circuit shape's A, B, C matrices in a compact
 * form that is recorded once, kept in a file next to the parameters, mapped
 * with mmap and evaluated against each witness (a = A·z, b = B·z, c = C·z,
 * z = inputs ‖ aux) on the CPU or, uploaded once, on the GPU.
 *
 * Compact CSR: per matrix u32 row offsets (nnz < 2^32), u32 columns and one
 * coefficient index per entry into a per-circuit table of the distinct
 * coefficients (u16 indices when the table has at most 65,536 entries, else
 * u32). Row j of A is the entries row_start[j] .. row_start[j + 1] - 1, each
 * contributing coeffs[coef[k]] * z[col[k]]. The rows are those of
 * cz_prove_finish / cz_record_finish: the synthesized constraints followed by
 * bellperson's input constraints (A = input_i, B = C = 0), so
 * num_constraints = synthesized + num_inputs and a, b, c equal the prove
 * back-end's values.
 *
 * Invariants (checked on open): columns strictly ascend within a row and are
 * < num_inputs + num_aux; every coefficient index is < num_coeffs; the table
 * holds distinct non-zero values with coeffs[0] = 1 and coeffs[1] = -1 (the
 * evaluators special-case those two: no multiplication); the densities are
 * exactly "column occurs" (A for aux, B for inputs and aux). */
#ifndef CZ_R1CS_CIRCUIT_H
#define CZ_R1CS_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "r1cs/backends.h"
#include "r1cs/cs.h"

/* Coefficient table indices reserved for 1 and -1. */
#define CZ_CIRCUIT_COEF_ONE       0u
#define CZ_CIRCUIT_COEF_MINUS_ONE 1u

typedef struct {
    uint64_t nnz;
    const uint32_t *row_start; /* [rows + 1], row_start[0] = 0, row_start[rows] = nnz */
    const uint32_t *col;       /* [nnz] */
    const void *coef;          /* [nnz] indices of coef_bytes each (uint16_t or uint32_t) */
} cz_circuit_matrix;

typedef struct cz_circuit {
    uint32_t num_inputs, num_aux; /* inputs include ONE */
    uint64_t num_constraints;     /* rows, input constraints included */
    uint32_t coef_bytes;          /* 2 or 4 */
    uint32_t num_coeffs;
    const cz_fr *coeffs;             /* [num_coeffs], Montgomery form */
    cz_circuit_matrix m[3];          /* A, B, C */
    const uint64_t *a_aux_density;   /* [ceil(num_aux / 64)] */
    const uint64_t *b_input_density; /* [ceil(num_inputs / 64)] */
    const uint64_t *b_aux_density;   /* [ceil(num_aux / 64)] */
    uint64_t checksum;               /* the file's XXH64 (0 for one never written) */
    void *storage;                   /* private: the mapping or heap blocks behind the arrays */
} cz_circuit;

/* ---- building ---- */

/* A back-end that records the compact form directly (the coefficient table
 * is interned as constraints are enforced), in memory proportional to the
 * entries (about 6 bytes each with u16 indices), so the 130 M-constraint
 * 32 GiB PoRep circuit can be compiled on a machine that could not hold its
 * cz_r1cs (32-byte values). Accepts and rejects the LCs the record back-end
 * does; zero coefficients are dropped. */
cz_cs *cz_cs_compile_new(void);
/* Appends the input constraints and moves the circuit out (cs can then only
 * be destroyed). Free with cz_circuit_free. *out is NULL on failure: the
 * sticky status of cs, or CZ_E_RANGE (reported through cs) when a matrix
 * outgrows the 2^32 - 1 entries u32 row starts address. */
cz_status cz_compile_finish(cz_cs *cs, cz_circuit **out, cz_error *err);

/* The compact form of a recorded system, and back (for the setup and tests).
 * r must pass cz_r1cs_validate (else CZ_E_INVALID_ARG). The table is
 * interned in the compile back-end's order (row by row, A, B, C), so
 * cz_circuit_from_r1cs of record's output equals compile's output array
 * for array. */
cz_status cz_circuit_from_r1cs(cz_circuit **out, const cz_r1cs *r, cz_error *err);
cz_status cz_circuit_to_r1cs(cz_r1cs *out, const cz_circuit *c, cz_error *err);

void cz_circuit_free(cz_circuit *c); /* NULL is fine */

/* ---- file ---- */

/* Writes the file (header with magic, version and sizes, the arrays 8-byte
 * aligned so a mapping can be used in place, an XXH64 checksum at the end)
 * through a temporary file renamed into place, so a reader never sees a
 * partial file. Sets c->checksum. */
cz_status cz_circuit_write(cz_circuit *c, const char *path, cz_error *err);

typedef enum {
    CZ_CIRCUIT_CHECKED, /* checksum and every invariant (reads the whole file) */
    CZ_CIRCUIT_TRUSTED, /* header, sizes and the expected checksum only (the caller knows it) */
} cz_circuit_check;
/* Maps path read-only and validates it; messages name the file and the
 * fault ("circuit.czc: checksum mismatch", "...: A: row 17: column 5 after
 * column 9 (columns must ascend)", "...: version 3, expected 1", "...:
 * truncated: 1234 bytes, header says 5678"). Both modes check the header
 * and the exact size it implies before anything else, and convert the
 * table into a heap array (canonical values, [0] = 1, [1] = -1); a non-zero
 * expected_checksum must equal the file's stored checksum (0 skips that
 * comparison). The matrices and densities point into the mapping, which
 * lives until cz_circuit_free. *out is NULL on failure. */
cz_status cz_circuit_open(cz_circuit **out, const char *path, cz_circuit_check mode,
                          uint64_t expected_checksum, cz_error *err);

/* Bytes of the arrays: the table (32 bytes a value), the three matrices and
 * the densities (what a device copy holds at most). */
uint64_t cz_circuit_bytes(const cz_circuit *c);

/* The file mapping the matrices and densities of an opened circuit point
 * into (read only), for whoever page-locks them; NULL and 0 for a circuit
 * built in memory. */
const void *cz_circuit_mapping(const cz_circuit *c, size_t *bytes);

/* ---- evaluation ---- */

/* a[j] = <A_j, z>, b[j], c[j] for every row j (any output may be NULL),
 * z = inputs (num_inputs) then aux (num_aux), over all cores. Equal to the
 * prove back-end's a, b, c for the same witness. */
void cz_circuit_eval(cz_fr *a, cz_fr *b, cz_fr *c, const cz_circuit *circ, const cz_fr *input,
                     const cz_fr *aux);
/* The same for rows begin..end-1 only (a[j] for j in that range), for a
 * caller that stops between pieces (engine/backend.c: a step boundary). */
void cz_circuit_eval_rows(cz_fr *a, cz_fr *b, cz_fr *c, const cz_circuit *circ, const cz_fr *input,
                          const cz_fr *aux, size_t begin, size_t end);

/* A cz_prove_data that borrows circ's sizes and densities, the witness w
 * (may be NULL: sizes only) and the evaluations a, b, c (may be NULL), for
 * code that only reads it (the provers, cz_groth16_check_shapes). Never
 * pass it to cz_prove_data_free. */
void cz_circuit_prove_view(cz_prove_data *out, const cz_circuit *circ, const cz_witness *w,
                           cz_fr *a, cz_fr *b, cz_fr *c);

#endif
