/* Checks on protobuf request bytes that protobuf-c does not make: a proto3
 * `string` must be valid UTF-8 (strict clients such as grpc-go refuse to
 * decode one that is not, so an id echoed back would break them), and
 * protobuf-c hands strings over NUL-terminated, so a NUL inside one would
 * silently cut it ("nul\0A" and "nul\0B" would both become "nul"). The
 * strings are read here with their wire length, in every (nested) field of
 * the message's descriptor, before protobuf-c unpacks the message. */
#ifndef CZ_DAEMON_WIRE_H
#define CZ_DAEMON_WIRE_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

/* CZ_OK when every string field of the message (as desc describes it) is
 * valid UTF-8 without NUL bytes; CZ_E_INVALID_ARG naming the field
 * ("SubmitProofRequest.request_id: not valid UTF-8 at byte 1") otherwise;
 * CZ_E_PARSE when the bytes are not a protobuf message at all (truncated
 * lengths, bad wire types). Unknown fields are skipped, as protobuf-c
 * skips them. */
cz_status cz_wire_check_strings(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                size_t len, cz_error *err);

#endif
