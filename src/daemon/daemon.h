/* The cuzk daemon: the engine behind a cuzk.v1.ProvingEngine gRPC server
 * (core C API of libgrpc, messages by protobuf-c).
 *
 * Threads: one completion-queue thread accepts calls and reads requests;
 * each request is handled on its own detached thread (Prove and AwaitProof
 * block for minutes), at most CZ_DAEMON_MAX_CALLS at once (more get
 * RESOURCE_EXHAUSTED). Messages out up to 256 MiB, in up to a quarter of
 * [daemon] max_request_memory (at most 256 MiB; a 32 GiB C1 output is
 * ~50 MB); larger ones are refused by gRPC with RESOURCE_EXHAUSTED.
 *
 * Listening: unix://PATH (mode 0600; a stale socket is replaced, a live one
 * is an error) or IP:port; a non-loopback TCP address needs
 * [daemon] allow_remote = true, since there is no TLS and no auth.
 *
 * Shutdown (cz_daemon_stop): stop taking calls and submissions, let jobs in
 * flight finish for up to drain_timeout, cancel the rest (their callers get
 * CANCELLED), answer every call, remove the socket. */
#ifndef CZ_DAEMON_DAEMON_H
#define CZ_DAEMON_DAEMON_H

#include "cuzk/engine.h"
#include "daemon/config.h"

#define CZ_DAEMON_MAX_CALLS   512
#define CZ_DAEMON_MAX_MESSAGE (256 * 1024 * 1024)

typedef struct cz_daemon cz_daemon;

/* engine_extra: injection points for tests (ops, backend); may be NULL. */
cz_status cz_daemon_start(cz_daemon **out, const cz_daemon_config *cfg,
                          const cz_engine_config *engine_extra, cz_error *err);
/* Drains and stops (blocking); then frees d. */
void cz_daemon_stop(cz_daemon *d);

/* Starts, waits for SIGTERM or SIGINT, drains and stops. A second signal
 * during the drain returns at once with *forced = 1 (the caller exits
 * without cleaning up). */
cz_status cz_daemon_run(const cz_daemon_config *cfg, int *forced, cz_error *err);

#endif
