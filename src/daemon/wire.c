/* Protobuf wire walk for the string checks (see wire.h). */
#include "daemon/wire.h"

#include <stdio.h>
#include <string.h>

#include "util/utf8.h"

/* Nesting the walk follows: the requests are two levels deep (ProveRequest
 * holds a SubmitProofRequest); anything deeper is not ours. */
#define MAX_DEPTH 8

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *out) {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p == end) return 0;
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

static cz_status walk(const ProtobufCMessageDescriptor *desc, const uint8_t *p, const uint8_t *end,
                      char *path, size_t path_len, size_t cap, unsigned depth, cz_error *err) {
    if (depth > MAX_DEPTH)
        return cz_error_set(err, CZ_E_PARSE, "%s: messages nested too deeply", path);
    while (p < end) {
        uint64_t tag, n;
        if (!read_varint(&p, end, &tag) || tag >> 3 == 0 || tag >> 3 > UINT32_MAX)
            return cz_error_set(err, CZ_E_PARSE, "%s: bad field tag", path);
        unsigned wire = (unsigned)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            desc ? protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3)) : NULL;
        switch (wire) {
        case 0:
            if (!read_varint(&p, end, &n))
                return cz_error_set(err, CZ_E_PARSE, "%s: truncated varint", path);
            break;
        case 1:
        case 5: {
            size_t w = wire == 1 ? 8 : 4;
            if ((size_t)(end - p) < w)
                return cz_error_set(err, CZ_E_PARSE, "%s: truncated fixed-width field", path);
            p += w;
            break;
        }
        case 2: {
            if (!read_varint(&p, end, &n) || n > (uint64_t)(end - p))
                return cz_error_set(err, CZ_E_PARSE, "%s: length beyond the message", path);
            const uint8_t *v = p;
            p += n;
            if (!f) break;
            /* path.field for messages in this one */
            int w = snprintf(path + path_len, cap - path_len, ".%s", f->name);
            size_t sub_len = w < 0 ? path_len : path_len + (size_t)w;
            if (sub_len >= cap) sub_len = cap - 1;
            cz_status st = CZ_OK;
            size_t bad = 0;
            if (f->type == PROTOBUF_C_TYPE_STRING) {
                const void *nul = memchr(v, 0, (size_t)n);
                if (!cz_utf8_valid(v, (size_t)n, &bad))
                    st = cz_error_set(err, CZ_E_INVALID_ARG, "%s: not valid UTF-8 at byte %zu",
                                      path, bad);
                else if (nul)
                    st = cz_error_set(err, CZ_E_INVALID_ARG, "%s: NUL byte at %zu", path,
                                      (size_t)((const uint8_t *)nul - v));
            } else if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
                st = walk(f->descriptor, v, v + n, path, sub_len, cap, depth + 1, err);
            }
            path[path_len] = 0;
            if (st != CZ_OK) return st;
            break;
        }
        default: return cz_error_set(err, CZ_E_PARSE, "%s: wire type %u", path, wire);
        }
    }
    return CZ_OK;
}

cz_status cz_wire_check_strings(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                size_t len, cz_error *err) {
    char path[256];
    int n = snprintf(path, sizeof path, "%s", desc->short_name);
    return walk(desc, data, data + len, path, n < 0 ? 0 : (size_t)n, sizeof path, 0, err);
}
