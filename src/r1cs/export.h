/* Export to iden3's binary formats (circom / snarkjs), so that an independent
 * implementation can check our circuits, witnesses and keys:
 *   .r1cs  iden3 r1cs binary format, version 1 (sections 1 header,
 *          2 constraints, 3 wire-to-label map)
 *   .wtns  iden3 witness format, version 2 (sections 1 header, 2 values)
 * Both are little-endian; every field element is 32 bytes, the canonical
 * (normal, not Montgomery) integer little-endian, and the prime in the
 * headers is r (BLS12-381's scalar field), which snarkjs maps to "bls12381".
 *
 * Wires: wire 0 is ONE, wires 1 .. num_inputs - 1 are our inputs 1 .. in
 * order (declared as public inputs: nPubOut = 0, nPubIn = num_inputs - 1),
 * and aux v is wire num_inputs + v (declared private: nPrvIn = num_aux).
 * So snarkjs's public signals are our inputs without ONE, in order, and a
 * column of a cz_r1cs is its wire number.
 *
 * Only the synthesized constraints are exported: bellperson's input
 * constraints that cz_record_finish appends (the last num_inputs rows,
 * A = input_i, B = C = 0) are left out, since snarkjs's setup adds its own
 * (A = wire i for i = 0 .. nPublic), which are the same constraints. */
#ifndef CZ_R1CS_EXPORT_H
#define CZ_R1CS_EXPORT_H

#include <stdint.h>

#include "cuzk/status.h"
#include "r1cs/backends.h"

/* Writes r as an iden3 .r1cs file (to path.tmp.<pid>, renamed into place).
 * CZ_E_INVALID_ARG when r breaks a cz_r1cs invariant, when its last
 * num_inputs rows are not the appended input constraints, or when a count
 * does not fit the format's u32 fields. */
cz_status cz_r1cs_export_iden3(const cz_r1cs *r, const char *path, cz_error *err);

/* Writes the full assignment (input[0] = ONE first, then the other inputs,
 * then aux) as an iden3 .wtns file. CZ_E_INVALID_ARG when num_inputs is 0 or
 * the wire count does not fit a u32. input[0] is written as given (a witness
 * with input[0] != 1 is wrong, and snarkjs's check says so). */
cz_status cz_wtns_export_iden3(const cz_fr *input, uint32_t num_inputs, const cz_fr *aux,
                               uint32_t num_aux, const char *path, cz_error *err);

#endif
