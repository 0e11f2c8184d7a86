/* cz_circuit_prove_view (circuit.h). */
#include <string.h>

#include "r1cs/circuit.h"

void cz_circuit_prove_view(cz_prove_data *out, const cz_circuit *circ, const cz_witness *w,
                           cz_fr *a, cz_fr *b, cz_fr *c) {
    memset(out, 0, sizeof *out);
    out->num_inputs = circ->num_inputs;
    out->num_aux = circ->num_aux;
    out->num_constraints = circ->num_constraints;
    if (w) out->input_assignment = w->input, out->aux_assignment = w->aux;
    out->a = a, out->b = b, out->c = c;
    /* The provers read the bitmaps only; the casts do not make them writable. */
    out->a_aux_density = (uint64_t *)circ->a_aux_density;
    out->b_input_density = (uint64_t *)circ->b_input_density;
    out->b_aux_density = (uint64_t *)circ->b_aux_density;
}
