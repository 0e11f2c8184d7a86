/* Byte sizes written by people: config values, environment variables. */
#ifndef CZ_UTIL_SIZE_H
#define CZ_UTIL_SIZE_H

#include <stdint.h>

#include "cuzk/status.h"

/* "12GiB" / "512 MiB" / "1000000" (bytes): a whole number with an optional
 * unit B, KiB, MiB, GiB, TiB (powers of 2) or KB, MB, GB, TB (powers of 10);
 * CZ_E_PARSE naming the accepted forms otherwise, CZ_E_RANGE on overflow. */
cz_status cz_parse_size(uint64_t *out, const char *s, cz_error *err);

#endif
