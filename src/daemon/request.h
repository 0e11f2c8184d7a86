/* Decoding of cuzk.v1 requests, apart from the transport so that the fuzzer
 * (tests/fuzz) drives exactly what the server runs on a call's bytes: the
 * string checks of wire.h, protobuf-c's unpack, the message's own rules
 * (ProveRequest.submit present) and, for SubmitProof / Prove, the view of
 * the message as a cz_engine_request (pointers into the message, no copy). */
#ifndef CZ_DAEMON_REQUEST_H
#define CZ_DAEMON_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "cuzk/v1/proving.pb-c.h"

typedef enum {
    CZ_RPC_SUBMIT,
    CZ_RPC_AWAIT,
    CZ_RPC_PROVE,
    CZ_RPC_CANCEL,
    CZ_RPC_STATUS,
    CZ_RPC_METRICS,
    CZ_RPC_PRELOAD,
    CZ_RPC_EVICT,
    CZ_RPC_COUNT
} cz_rpc;

typedef struct {
    cz_rpc rpc;
    ProtobufCMessage *msg; /* the unpacked request */
    /* CZ_RPC_SUBMIT and CZ_RPC_PROVE: the submission, pointing into msg. */
    cz_engine_request submit;
    const uint8_t **vp_ptrs;
    size_t *vp_lens;
} cz_rpc_request;

/* The rpc of a method path ("/cuzk.v1.ProvingEngine/Prove"); 0 if unknown. */
int cz_rpc_lookup(cz_rpc *out, const char *path, size_t len);
const char *cz_rpc_name(cz_rpc rpc); /* "Prove" */

/* CZ_E_PARSE: the bytes are not a message of the rpc's type ("cannot decode
 * ProveRequest (5 bytes): not a valid protobuf message"); CZ_E_INVALID_ARG:
 * a string field that is not UTF-8 or holds a NUL (named), or a Prove
 * without its submit; CZ_E_NOMEM. On success free out with
 * cz_rpc_request_free; on failure out needs no freeing. out->submit's
 * vanilla_proof may point into in (not copied: the C1 is most of a
 * request), so in must outlive the use of out->submit. */
cz_status cz_rpc_decode(cz_rpc_request *out, cz_rpc rpc, const uint8_t *in, size_t len,
                        cz_error *err);
/* The same with copy = 1: vanilla_proof always copied by protobuf-c (the
 * reference the tests and the fuzzer compare cz_rpc_decode with). */
cz_status cz_rpc_decode_copying(cz_rpc_request *out, cz_rpc rpc, const uint8_t *in, size_t len,
                                int copy, cz_error *err);
void cz_rpc_request_free(cz_rpc_request *r);

#endif
