/* Standard base64 (RFC 4648 §4 alphabet, '=' padding): Curio's envelope
 * around a C1 output (Go encoding/json of a []byte) and the proofs in the
 * request files of PoSt and SnapDeals. */
#ifndef CZ_UTIL_BASE64_H
#define CZ_UTIL_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

/* Strict decoder: '=' padding required, no whitespace, unused trailing bits
 * must be zero. *out is malloc'ed (free it); errors (CZ_E_PARSE) name the
 * offending character offset. */
cz_status cz_base64_decode(uint8_t **out, size_t *out_len, const char *in, size_t len,
                           cz_error *err);

/* Padded encoder, the inverse of cz_base64_decode. *out is a malloc'ed
 * NUL-terminated string of *out_len characters. */
cz_status cz_base64_encode(char **out, size_t *out_len, const uint8_t *in, size_t len,
                           cz_error *err);

#endif
