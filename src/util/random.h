/* Randomness from the operating system (getrandom), for what must be
 * unpredictable: the prover's r and s, the batch verifier's weights, the
 * engine's request ids. Deterministic streams (the development setup's
 * ChaCha20) live with their users (groth16/rng.h). */
#ifndef CZ_UTIL_RANDOM_H
#define CZ_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

/* len bytes from the operating system's CSPRNG. CZ_E_IO when it fails. */
cz_status cz_os_random_bytes(uint8_t *out, size_t len, cz_error *err);

#endif
