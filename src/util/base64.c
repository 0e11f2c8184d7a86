/* Standard base64 (RFC 4648 §4): the encoder and the strict decoder (base64.h). */
#include "util/base64.h"

#include <stdint.h>
#include <stdlib.h>

/* 0..63 for alphabet characters, 64 for '=', 255 for anything else. */
static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    if (c == '=') return 64;
    return 255;
}

cz_status cz_base64_decode(uint8_t **out, size_t *out_len, const char *in, size_t len,
                           cz_error *err) {
    *out = NULL;
    *out_len = 0;
    if (len % 4 != 0)
        return cz_error_set(err, CZ_E_PARSE, "base64: length %zu is not a multiple of 4", len);
    size_t pad = 0;
    if (len >= 1 && in[len - 1] == '=') pad++;
    if (len >= 2 && in[len - 2] == '=') pad++;
    size_t n = len / 4 * 3 - pad;
    /* malloc(0) may return NULL; always ask for at least one byte. */
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return cz_error_set(err, CZ_E_NOMEM, "base64: out of memory");
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        int last = i + 4 == len;
        for (int j = 0; j < 4; j++) {
            v[j] = b64_value((unsigned char)in[i + j]);
            if (v[j] == 255) {
                free(buf);
                return cz_error_set(err, CZ_E_PARSE,
                                    "base64: invalid character 0x%02x at offset %zu",
                                    (unsigned char)in[i + j], i + j);
            }
            /* '=' only in the last quantum, only in its last two places,
             * and only followed by '='. */
            if (v[j] == 64 && (!last || j < 2 || (j == 2 && in[i + 3] != '='))) {
                free(buf);
                return cz_error_set(err, CZ_E_PARSE, "base64: misplaced '=' at offset %zu", i + j);
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)(v[2] & 63) << 6 |
                     (uint32_t)(v[3] & 63);
        if (v[2] == 64) {
            if (w & 0xffff) {
                free(buf);
                return cz_error_set(err, CZ_E_PARSE, "base64: non-zero padding bits at offset %zu",
                                    i + 1);
            }
            buf[o++] = (uint8_t)(w >> 16);
        } else if (v[3] == 64) {
            if (w & 0xff) {
                free(buf);
                return cz_error_set(err, CZ_E_PARSE, "base64: non-zero padding bits at offset %zu",
                                    i + 2);
            }
            buf[o++] = (uint8_t)(w >> 16);
            buf[o++] = (uint8_t)(w >> 8);
        } else {
            buf[o++] = (uint8_t)(w >> 16);
            buf[o++] = (uint8_t)(w >> 8);
            buf[o++] = (uint8_t)w;
        }
    }
    *out = buf;
    *out_len = o;
    return CZ_OK;
}

cz_status cz_base64_encode(char **out, size_t *out_len, const uint8_t *in, size_t len,
                           cz_error *err) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    *out = NULL;
    *out_len = 0;
    if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
        return cz_error_set(err, CZ_E_INVALID_ARG, "base64: input too long");
    size_t n = (len + 2) / 3 * 4;
    char *s = malloc(n + 1);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "base64: out of memory");
    size_t o = 0, i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        s[o++] = alphabet[v >> 18];
        s[o++] = alphabet[v >> 12 & 63];
        s[o++] = alphabet[v >> 6 & 63];
        s[o++] = alphabet[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        s[o++] = alphabet[v >> 18];
        s[o++] = alphabet[v >> 12 & 63];
        s[o++] = '=';
        s[o++] = '=';
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        s[o++] = alphabet[v >> 18];
        s[o++] = alphabet[v >> 12 & 63];
        s[o++] = alphabet[v >> 6 & 63];
        s[o++] = '=';
    }
    s[o] = 0;
    *out = s;
    *out_len = o;
    return CZ_OK;
}
