#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/status.h"

const char *cz_status_name(cz_status status) {
    switch (status) {
    case CZ_OK: return "CZ_OK";
    case CZ_E_INVALID_ARG: return "CZ_E_INVALID_ARG";
    case CZ_E_PARSE: return "CZ_E_PARSE";
    case CZ_E_RANGE: return "CZ_E_RANGE";
    case CZ_E_NOT_ON_CURVE: return "CZ_E_NOT_ON_CURVE";
    case CZ_E_NOT_IN_SUBGROUP: return "CZ_E_NOT_IN_SUBGROUP";
    case CZ_E_IDENTITY: return "CZ_E_IDENTITY";
    case CZ_E_NOMEM: return "CZ_E_NOMEM";
    case CZ_E_IO: return "CZ_E_IO";
    case CZ_E_UNSUPPORTED: return "CZ_E_UNSUPPORTED";
    case CZ_E_CUDA: return "CZ_E_CUDA";
    case CZ_E_INTERNAL: return "CZ_E_INTERNAL";
    case CZ_E_NOT_FOUND: return "CZ_E_NOT_FOUND";
    case CZ_E_CANCELLED: return "CZ_E_CANCELLED";
    case CZ_E_SHUTDOWN: return "CZ_E_SHUTDOWN";
    case CZ_E_BUSY: return "CZ_E_BUSY";
    case CZ_E_VERIFY: return "CZ_E_VERIFY";
    }
    return "CZ_E_UNKNOWN";
}

cz_status cz_error_set(cz_error *err, cz_status status, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return status;
}

static void prefix_v(cz_error *err, const char *fmt, va_list ap) {
    char prefix[256];
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    /* truncation keeps the start of the message, which is what matters */
    char joined[sizeof prefix + sizeof err->message + 2];
    snprintf(joined, sizeof joined, "%s: %s", prefix, err->message);
    memcpy(err->message, joined, sizeof err->message - 1);
    err->message[sizeof err->message - 1] = 0;
}

void cz_error_prefix(cz_error *err, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    prefix_v(err, fmt, ap);
    va_end(ap);
}

cz_status cz_error_wrap(cz_error *err, cz_status status, const char *fmt, ...) {
    if (!err) return status;
    va_list ap;
    va_start(ap, fmt);
    prefix_v(err, fmt, ap);
    va_end(ap);
    err->status = status;
    return status;
}
