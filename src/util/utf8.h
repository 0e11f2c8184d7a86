/* Text checks for identifiers that come from the network (request ids,
 * job ids, circuit ids): they travel in proto3 `string` fields, which
 * strict clients (grpc-go) refuse to decode unless they are valid UTF-8. */
#ifndef CZ_UTIL_UTF8_H
#define CZ_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* 1 when s[0..len) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates U+D800..U+DFFF, nothing above U+10FFFF). Otherwise 0 and
 * *bad_at (when not NULL) receives the offset of the first byte of the
 * first ill-formed sequence. NUL bytes are well-formed UTF-8; callers that
 * refuse them check for them apart. */
int cz_utf8_valid(const uint8_t *s, size_t len, size_t *bad_at);

#endif
