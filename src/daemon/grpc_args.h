/* The gRPC channel arguments both ends of cuzk.v1 use (server.c, client.c). */
#ifndef CZ_DAEMON_GRPC_ARGS_H
#define CZ_DAEMON_GRPC_ARGS_H

#include <grpc/grpc.h>

#include "daemon/daemon.h"

/* Messages up to max_receive bytes in (the server derives it from
 * [daemon] max_request_memory, see server.c) and CZ_DAEMON_MAX_MESSAGE out
 * (a 32 GiB C1 output is ~51 MB). args is the storage the result points
 * into. */
static inline grpc_channel_args cz_grpc_message_limits(grpc_arg args[2], int max_receive) {
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = max_receive;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = CZ_DAEMON_MAX_MESSAGE;
    grpc_channel_args cargs = {2, args};
    return cargs;
}

#endif
