/* Curio's envelope around a C1 output
 * ({"SectorNum": n, "Phase1Out": "<base64 of the C1 JSON>", "SectorSize": n},
 * Go's encoding/json of a []byte: standard padded base64), and the reader of
 * a C1 document in either form, told apart by the first key of the
 * top-level object. The envelope's three keys are required, once each, and
 * nothing else; its SectorSize must be the registered proof's. */
#ifndef CZ_FILECOIN_C1_ENVELOPE_H
#define CZ_FILECOIN_C1_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "filecoin/porep/c1.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a C1 document: Curio's envelope (has_envelope = 1, its fields
 * kept) or raw SealCommitPhase1Output JSON. On success out owns its memory
 * (free with cz_c1_free); on failure out is left empty (safe to free) and
 * err says what and where. */
cz_status cz_c1_parse(cz_c1 *out, const uint8_t *json, size_t len, cz_error *err);
/* Reads and parses a file (either form): raw JSON is streamed in chunks of
 * 1 MiB, an envelope (one big string) read whole. */
cz_status cz_c1_parse_file(cz_c1 *out, const char *path, cz_error *err);

#ifdef __cplusplus
}
#endif
#endif
