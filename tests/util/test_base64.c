/* util/base64: the RFC 4648 §10 vectors both ways, every kind of malformed
 * input refused with its offset, and random inputs against OpenSSL's
 * EVP_EncodeBlock (the same text; its text decoded back). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "harness/harness.h"
#include "util/base64.h"

static void test_encode(void) {
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const out[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                      "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"}; /* RFC 4648 §10 */
    for (size_t i = 0; i < 7; i++) {
        char *s;
        size_t n;
        CHECK(cz_base64_encode(&s, &n, (const uint8_t *)in[i], strlen(in[i]), NULL) == CZ_OK);
        CHECK(n == strlen(out[i]) && strcmp(s, out[i]) == 0);
        free(s);
    }
}

static void test_decode(void) {
    /* RFC 4648 §10 vectors. */
    const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int t = 0; t < 7; t++) {
        uint8_t *out;
        size_t n;
        cz_error err;
        CHECK(cz_base64_decode(&out, &n, enc[t], strlen(enc[t]), &err) == CZ_OK);
        CHECK(n == strlen(plain[t]) && memcmp(out, plain[t], n) == 0);
        free(out);
    }
    /* All 256 byte values survive (alphabet incl. '+' and '/'): bytes
     * 0xfb 0xff 0xbf encode as "+/+/". */
    {
        uint8_t *out;
        size_t n;
        CHECK(cz_base64_decode(&out, &n, "+/+/", 4, NULL) == CZ_OK);
        CHECK(n == 3 && out[0] == 0xfb && out[1] == 0xff && out[2] == 0xbf);
        free(out);
    }
    const char *bad[] = {"Zg=",  "Zg",   "Z===", "Zh==", "Zm9=",   "Zg==Zg==", "Zm 9",
                         "Zm-9", "Zm_9", "=Zg=", "Zm=v", "Zm9v\n", "Zg=a"};
    const char *msg[] = {"not a multiple of 4",
                         "not a multiple of 4",
                         "misplaced '=' at offset 1",
                         "non-zero padding bits at offset 1",
                         "non-zero padding bits at offset 2",
                         "misplaced '=' at offset 2",
                         "invalid character 0x20 at offset 2",
                         "invalid character 0x2d at offset 2",
                         "invalid character 0x5f at offset 2",
                         "misplaced '=' at offset 0",
                         "misplaced '=' at offset 2",
                         "not a multiple of 4",
                         "misplaced '=' at offset 2"};
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        uint8_t *out = (uint8_t *)1;
        size_t n = 1;
        cz_error err;
        memset(&err, 0, sizeof err);
        cz_status st = cz_base64_decode(&out, &n, bad[t], strlen(bad[t]), &err);
        if (st != CZ_E_PARSE || !strstr(err.message, msg[t]))
            printf("base64 %zu: got %s \"%s\"\n", t, cz_status_name(st), err.message);
        CHECK(st == CZ_E_PARSE);
        CHECK(strstr(err.message, msg[t]) != NULL);
        CHECK(out == NULL && n == 0);
    }
    /* Random inputs against OpenSSL's encoder: ours writes the same text,
     * and ours decodes OpenSSL's text back to the input. */
    unsigned iters = cz_test_iters(300);
    for (unsigned it = 0; it < iters; it++) {
        uint8_t in[64];
        size_t n = cz_test_rand64() % 64;
        cz_test_rand_bytes(in, n);
        unsigned char ref[100];
        size_t ref_len = (size_t)EVP_EncodeBlock(ref, in, (int)n);
        char *e;
        size_t e_len;
        CHECK(cz_base64_encode(&e, &e_len, in, n, NULL) == CZ_OK);
        CHECK(e_len == ref_len && memcmp(e, ref, ref_len + 1) == 0);
        free(e);
        uint8_t *out;
        size_t m;
        CHECK(cz_base64_decode(&out, &m, (const char *)ref, ref_len, NULL) == CZ_OK);
        CHECK(m == n && memcmp(out, in, n) == 0);
        free(out);
    }
}

int main(void) {
    cz_test_init("util/base64");
    test_encode();
    test_decode();
    return cz_test_finish("util/base64");
}
