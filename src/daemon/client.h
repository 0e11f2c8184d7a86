/* A small cuzk.v1 client on the core C API of libgrpc: unary calls with raw
 * protobuf bytes (the caller packs and unpacks with protobuf-c). Used by
 * `cuzk bench`. Thread safe: calls may run concurrently on one client. */
#ifndef CZ_DAEMON_CLIENT_H
#define CZ_DAEMON_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef struct cz_client cz_client;

/* addr: unix:///abs/path, unix://rel/path, unix:path, http://IP:port or
 * IP:port. Connection happens on the first call. */
cz_status cz_client_open(cz_client **out, const char *addr, cz_error *err);
void cz_client_close(cz_client *c);

/* Calls /cuzk.v1.ProvingEngine/<method>. On return *grpc_code is the gRPC
 * status (0 = OK) and, when OK, *resp (malloc'ed) holds the reply.
 * details receives the status message. timeout_ms 0 = none. CZ_E_IO only
 * when the call could not be made at all. */
cz_status cz_client_call(cz_client *c, const char *method, const uint8_t *req, size_t req_len,
                         uint8_t **resp, size_t *resp_len, int *grpc_code, char *details,
                         size_t details_cap, uint64_t timeout_ms, cz_error *err);

#endif
