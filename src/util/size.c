/* Byte sizes written by people (see size.h). */
#include "util/size.h"

#include <ctype.h>
#include <string.h>

cz_status cz_parse_size(uint64_t *out, const char *s, cz_error *err) {
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return cz_error_set(err, CZ_E_PARSE,
                            "bad size '%s' (a whole number with an optional unit: B, KiB, MiB, "
                            "GiB, TiB, KB, MB, GB, TB)",
                            s);
    uint64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        unsigned d = (unsigned)(*p++ - '0');
        if (v > (UINT64_MAX - d) / 10)
            return cz_error_set(err, CZ_E_RANGE, "size '%s' overflows", s);
        v = v * 10 + d;
    }
    while (*p == ' ') p++;
    static const struct {
        const char *unit;
        uint64_t mul;
    } units[] = {{"", 1},
                 {"B", 1},
                 {"KiB", 1ull << 10},
                 {"MiB", 1ull << 20},
                 {"GiB", 1ull << 30},
                 {"TiB", 1ull << 40},
                 {"KB", 1000ull},
                 {"MB", 1000000ull},
                 {"GB", 1000000000ull},
                 {"TB", 1000000000000ull}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(p, units[i].unit)) {
            if (v > UINT64_MAX / units[i].mul)
                return cz_error_set(err, CZ_E_RANGE, "size '%s' overflows", s);
            *out = v * units[i].mul;
            return CZ_OK;
        }
    return cz_error_set(err, CZ_E_PARSE,
                        "bad size '%s' (a whole number with an optional unit: B, KiB, MiB, GiB, "
                        "TiB, KB, MB, GB, TB)",
                        s);
}
