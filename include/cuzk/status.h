/* Status codes and error reports shared by every cuzk layer.
 *
 * Functions that can fail return a cz_status and, when the caller passes a
 * non-NULL cz_error, fill it with a human-readable message that names what
 * was wrong and where ("params: h[17]: point not on curve"). */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CZ_OK = 0,
    CZ_E_INVALID_ARG,     /* a caller broke an API contract */
    CZ_E_PARSE,           /* malformed input bytes or text */
    CZ_E_RANGE,           /* a number outside its allowed range (e.g. >= p) */
    CZ_E_NOT_ON_CURVE,    /* decoded coordinates do not satisfy the curve */
    CZ_E_NOT_IN_SUBGROUP, /* on the curve but not in the prime-order group */
    CZ_E_IDENTITY,        /* the identity where it is not allowed */
    CZ_E_NOMEM,           /* an allocation failed */
    CZ_E_IO,              /* a file or socket operation failed (other than not found) */
    CZ_E_UNSUPPORTED,     /* valid request this build cannot serve */
    CZ_E_CUDA,            /* a CUDA call failed */
    CZ_E_INTERNAL,        /* an invariant broke: a bug */
    CZ_E_NOT_FOUND,       /* a file, parameter set or id that does not exist */
    CZ_E_CANCELLED,       /* the work was cancelled (by a caller or a drain) */
    CZ_E_SHUTDOWN,        /* the engine is draining or stopped: not accepting work */
    CZ_E_BUSY,            /* the resource is in use (an SRS held by proofs in flight) */
    CZ_E_VERIFY           /* a proof was checked and does not verify */
} cz_status;

typedef struct {
    cz_status status;
    char message[512];
} cz_error;

/* Short stable name of a status ("CZ_E_PARSE"). Never NULL. */
const char *cz_status_name(cz_status status);

/* Records status and a printf-style message in err (when err is not NULL)
 * and returns status, so that callers can write `return cz_error_set(...)`. */
cz_status cz_error_set(cz_error *err, cz_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to err's message (for adding context while an error
 * travels up: "c1.json: " + "vanilla_proofs[3]: ..."); nothing when err is
 * NULL. It returns nothing: a caller that passes the error on returns the
 * status it holds, which cz_error_wrap does in one step. */
void cz_error_prefix(cz_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cz_error_prefix, then returns status (the caller's, whether or not err is
 * NULL): `if (st != CZ_OK) return cz_error_wrap(err, st, "srs %s", id);`. */
cz_status cz_error_wrap(cz_error *err, cz_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
