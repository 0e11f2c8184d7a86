/* The fallback PoSt circuit (FallbackPoStCircuit, rust-fil-proofs
 * storage-proofs-post/src/fallback/circuit.rs), bellperson's R1CS variable
 * for variable and constraint for constraint, for any cz_post_config.
 *
 * Per slot i (the sequential order, synthesize_default, which parameter
 * generation used; the extendable parallel order gives the same system):
 *   aux comm_r_last, aux comm_c, aux comm_r; inputize comm_r (input);
 *   h = Poseidon2(comm_c, comm_r_last); comm_r * ONE = h;
 *   per challenge j: PoRCircuit with private root = the comm_r_last
 *   variable: aux leaf, per level log2(a) index bits + a - 1 siblings +
 *   insert + Poseidon arity a, pack_into_inputs(index bits) (input = leaf
 *   index), computed root * ONE = comm_r_last.
 * So slot i owns inputs 1 + i (1 + c) ... and a fixed run of aux and
 * constraints, which lets the witness be built slot by slot on several
 * threads. */
#ifndef CZ_FILECOIN_POST_CIRCUIT_H
#define CZ_FILECOIN_POST_CIRCUIT_H

#include <stdint.h>

#include "cuzk/status.h"
#include "filecoin/post/post.h"
#include "r1cs/backends.h"
#include "r1cs/cs.h"

/* Synthesizes the circuit of cfg into cs. proofs = NULL (n = 0): without a
 * witness (count / stats / record / compile back-ends). Otherwise the n
 * vanilla proofs of the request fill the slots as cz_post_slot_source says
 * (Window: 1..sector_count proofs, the last one padding the rest; Winning:
 * exactly 1, its inclusion proofs unrolled); they must have cfg's shape
 * (cz_post_decode guarantees it). Nothing is recomputed from the
 * randomness: the witness is the vanilla proofs' values (the public inputs
 * come out of the paths' index bits). progress (may be NULL) is called
 * after each slot. Returns the sticky status of cs. */
typedef void (*cz_post_progress_fn)(void *ctx, uint32_t slots_done, uint32_t slots_total);
cz_status cz_post_synthesize(cz_cs *cs, const cz_post_config *cfg,
                             const cz_post_sector_proof *proofs, uint32_t n,
                             cz_post_progress_fn progress, void *progress_ctx, cz_error *err);

/* Variables and constraints of one slot (all slots are alike): its head
 * (comm_r_last, comm_c, comm_r and comm_r's check), then challenge_count
 * challenges alike. */
typedef struct {
    uint32_t slots;
    uint32_t slot_inputs, slot_aux;
    uint64_t slot_constraints;
    uint32_t head_inputs, head_aux;
    uint32_t challenge_inputs, challenge_aux;
    uint64_t challenge_constraints;
    uint32_t num_inputs, num_aux; /* whole circuit, inputs with ONE */
    uint64_t num_constraints;     /* synthesized (no input constraints) */
} cz_post_layout;
/* Counted by synthesizing one slot without values or combinations. */
cz_status cz_post_layout_make(cz_post_layout *out, const cz_post_config *cfg, cz_error *err);

/* The witness only (what the sequential witness back-end gives for
 * cz_post_synthesize, byte for byte), slot by slot on `threads` threads (0:
 * cz_thread_count()), each slot written in place into its window of w (with
 * fewer slots than threads, a WinningPoSt's one: each slot's head, then its
 * challenges in windows of their own on every thread); w's
 * buffers are reused when large enough (as cz_porep_synthesize_witness). A
 * slot allocating other than its window fails (CZ_E_RANGE / CZ_E_INTERNAL
 * naming the slot), never shifting the witness. */
cz_status cz_post_synthesize_witness(cz_witness *w, const cz_post_config *cfg,
                                     const cz_post_sector_proof *proofs, uint32_t n,
                                     unsigned threads, cz_error *err);

#endif
