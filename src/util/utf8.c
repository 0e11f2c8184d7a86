#include "util/utf8.h"

/* Table 3-7 of the Unicode standard (well-formed byte sequences): the
 * second byte's range depends on the first byte, the others are 80..BF. */
int cz_utf8_valid(const uint8_t *s, size_t len, size_t *bad_at) {
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        size_t n;
        uint8_t lo = 0x80, hi = 0xbf;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            if (c == 0xe0) lo = 0xa0; /* no overlong 3-byte forms */
            if (c == 0xed) hi = 0x9f; /* no surrogates */
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            if (c == 0xf0) lo = 0x90; /* no overlong 4-byte forms */
            if (c == 0xf4) hi = 0x8f; /* nothing above U+10FFFF */
        } else {
            goto bad; /* 80..C1 (continuation or overlong lead), F5..FF */
        }
        if (len - i - 1 < n) goto bad;
        if (s[i + 1] < lo || s[i + 1] > hi) goto bad;
        for (size_t k = 2; k <= n; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xbf) goto bad;
        i += n + 1;
    }
    return 1;
bad:
    if (bad_at) *bad_at = i;
    return 0;
}
