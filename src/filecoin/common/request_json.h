/* What the request files of PoSt and SnapDeals (post/post_request.c,
 * snap/snap_request.c) share: one JSON object whose proofs are an array of
 * standard base64 strings ("vanilla_proofs") and whose 32-byte values are
 * 64 hex digits. Errors name the document (`what`: "post request") and the
 * key. Inside the filecoin layer only (yajl's headers are private to it). */
#ifndef CZ_FILECOIN_REQUEST_JSON_H
#define CZ_FILECOIN_REQUEST_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_tree.h>

#include "cuzk/status.h"

/* ---- reading ---- */

/* The document (len bytes, no NUL needed) as a JSON object; CZ_E_PARSE
 * otherwise. Free with yajl_tree_free. */
cz_status cz_fc_json_parse_object(yajl_val *doc, const uint8_t *data, size_t len, const char *what,
                                  cz_error *err);
/* The string field `key`; NULL when missing or not a string. */
const char *cz_fc_json_string(yajl_val doc, const char *key);
/* A non-negative integer field of at most max. */
cz_status cz_fc_json_uint(uint64_t *out, yajl_val doc, const char *key, uint64_t max,
                          const char *what, cz_error *err);
/* A string field of 64 hex digits (either case). */
cz_status cz_fc_json_hex32(uint8_t out[32], yajl_val doc, const char *key, const char *what,
                           cz_error *err);
/* "vanilla_proofs": 1 .. 100000 base64 strings, decoded. *proofs, *lens
 * and the *n buffers decoded so far stay allocated after a failure too:
 * free them with cz_fc_json_proofs_free. */
cz_status cz_fc_json_proofs(uint8_t ***proofs, size_t **lens, uint32_t *n, yajl_val doc,
                            const char *what, cz_error *err);
void cz_fc_json_proofs_free(uint8_t **proofs, size_t *lens, uint32_t n);

/* ---- writing (compact, keys in the caller's order) ---- */

/* "key":"<64 hex digits>", */
void cz_fc_json_put_hex32(FILE *out, const char *key, const uint8_t value[32]);
/* "vanilla_proofs":[base64, ...]} and the newline ending the document;
 * CZ_E_IO when the stream failed. */
cz_status cz_fc_json_put_proofs(FILE *out, uint8_t *const *proofs, const size_t *lens, uint32_t n,
                                cz_error *err);

/* A request's fault is its sender's: err's status becomes CZ_E_INVALID_ARG
 * (message kept), which it returns. */
cz_status cz_fc_request_invalid(cz_error *err);

#endif
