#include "util/random.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

cz_status cz_os_random_bytes(uint8_t *out, size_t len, cz_error *err) {
    while (len > 0) {
        ssize_t got = getrandom(out, len, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return cz_error_set(err, CZ_E_IO, "getrandom: %s", strerror(errno));
        }
        out += got;
        len -= (size_t)got;
    }
    return CZ_OK;
}
