/* cuzk.v1 client on the core C API (see client.h). */
#include "daemon/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

#include "daemon/daemon.h"
#include "daemon/grpc_args.h"

struct cz_client {
    grpc_channel *channel;
};

cz_status cz_client_open(cz_client **out, const char *addr, cz_error *err) {
    *out = NULL;
    char target[4200];
    if (!strncmp(addr, "unix://", 7)) {
        /* unix:///abs -> unix:/abs; unix://rel -> unix:rel */
        snprintf(target, sizeof target, "unix:%s", addr + 7);
    } else if (!strncmp(addr, "unix:", 5)) {
        snprintf(target, sizeof target, "%s", addr);
    } else if (!strncmp(addr, "http://", 7)) {
        snprintf(target, sizeof target, "%s", addr + 7);
    } else if (strstr(addr, "://")) {
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "address '%s': use unix://PATH, http://IP:PORT or IP:PORT", addr);
    } else {
        snprintf(target, sizeof target, "%s", addr);
    }
    cz_client *c = calloc(1, sizeof *c);
    if (!c) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    grpc_init();
    grpc_arg args[2];
    grpc_channel_args cargs = cz_grpc_message_limits(args, CZ_DAEMON_MAX_MESSAGE);
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    c->channel = grpc_channel_create(target, creds, &cargs);
    grpc_channel_credentials_release(creds);
    if (!c->channel) {
        free(c);
        grpc_shutdown();
        return cz_error_set(err, CZ_E_IO, "cannot create a channel to %s", target);
    }
    *out = c;
    return CZ_OK;
}

void cz_client_close(cz_client *c) {
    if (!c) return;
    grpc_channel_destroy(c->channel);
    free(c);
    grpc_shutdown();
}

cz_status cz_client_call(cz_client *c, const char *method, const uint8_t *req, size_t req_len,
                         uint8_t **resp, size_t *resp_len, int *grpc_code, char *details,
                         size_t details_cap, uint64_t timeout_ms, cz_error *err) {
    *resp = NULL;
    *resp_len = 0;
    *grpc_code = GRPC_STATUS_UNKNOWN;
    if (details_cap) details[0] = 0;
    char path[128];
    snprintf(path, sizeof path, "/cuzk.v1.ProvingEngine/%s", method);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_slice method_slice = grpc_slice_from_copied_string(path);
    gpr_timespec deadline =
        timeout_ms ? gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                  gpr_time_from_millis((int64_t)timeout_ms, GPR_TIMESPAN))
                   : gpr_inf_future(GPR_CLOCK_REALTIME);
    grpc_call *call = grpc_channel_create_call(c->channel, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
                                               method_slice, NULL, deadline, NULL);
    grpc_slice_unref(method_slice);
    if (!call) {
        grpc_completion_queue_destroy(cq);
        return cz_error_set(err, CZ_E_IO, "cannot create call %s", path);
    }
    grpc_slice req_slice = grpc_slice_from_copied_buffer((const char *)req, req_len);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&req_slice, 1);
    grpc_slice_unref(req_slice);
    grpc_byte_buffer *recv = NULL;
    grpc_metadata_array initial_md, trailing_md;
    grpc_metadata_array_init(&initial_md);
    grpc_metadata_array_init(&trailing_md);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice status_details = grpc_empty_slice();
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trailing_md;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &status_details;
    cz_status st = CZ_OK;
    int tag;
    if (grpc_call_start_batch(call, ops, 6, &tag, NULL) != GRPC_CALL_OK) {
        st = cz_error_set(err, CZ_E_IO, "cannot start call %s", path);
    } else {
        grpc_event ev =
            grpc_completion_queue_pluck(cq, &tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE) st = cz_error_set(err, CZ_E_IO, "call %s failed", path);
    }
    if (st == CZ_OK) {
        *grpc_code = (int)status;
        if (details_cap)
            snprintf(details, details_cap, "%.*s", (int)GRPC_SLICE_LENGTH(status_details),
                     (const char *)GRPC_SLICE_START_PTR(status_details));
        if (status == GRPC_STATUS_OK && recv) {
            grpc_byte_buffer_reader reader;
            if (grpc_byte_buffer_reader_init(&reader, recv)) {
                grpc_slice s = grpc_byte_buffer_reader_readall(&reader);
                grpc_byte_buffer_reader_destroy(&reader);
                size_t n = GRPC_SLICE_LENGTH(s);
                *resp = malloc(n ? n : 1);
                if (*resp) {
                    memcpy(*resp, GRPC_SLICE_START_PTR(s), n);
                    *resp_len = n;
                } else {
                    st = cz_error_set(err, CZ_E_NOMEM, "out of memory");
                }
                grpc_slice_unref(s);
            }
        }
    }
    if (recv) grpc_byte_buffer_destroy(recv);
    grpc_byte_buffer_destroy(send);
    grpc_slice_unref(status_details);
    grpc_metadata_array_destroy(&initial_md);
    grpc_metadata_array_destroy(&trailing_md);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    return st;
}
