/* cz_utf8_valid against glibc's iconv (UTF-8 -> UTF-32LE), an independent
 * decoder: the same verdict and the same offset of the first ill-formed
 * sequence, on hand-picked edge cases and on random byte strings biased
 * towards multi-byte leads and continuation bytes. */
#include <iconv.h>
#include <stdio.h>
#include <string.h>

#include "harness/harness.h"
#include "util/utf8.h"

/* iconv's verdict; *stop = where it stopped (the first bad sequence). */
static int iconv_valid(const uint8_t *s, size_t n, size_t *stop) {
    iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
    CHECK(cd != (iconv_t)-1);
    char out[4 * 256 + 16];
    char *ip = (char *)s, *op = out;
    size_t il = n, ol = sizeof out;
    size_t r = iconv(cd, &ip, &il, &op, &ol);
    iconv_close(cd);
    *stop = (size_t)(ip - (char *)s);
    return r != (size_t)-1 && il == 0;
}

static void check_one(const uint8_t *s, size_t n, const char *what) {
    size_t ours = (size_t)-1, theirs = 0;
    int v = cz_utf8_valid(s, n, &ours), w = iconv_valid(s, n, &theirs);
    int same = v == w && (v || ours == theirs);
    if (!same) {
        printf("%s: ours %d at %zu, iconv %d at %zu:", what, v, ours, w, theirs);
        for (size_t i = 0; i < n; i++) printf(" %02x", s[i]);
        printf("\n");
    }
    CHECK(same);
}

int main(void) {
    cz_test_init("util/utf8");
    static const struct {
        const char *bytes;
        int valid;
    } cases[] = {
        {"porep-1000-42", 1},
        {"h\xc3\xa9", 1},         /* é */
        {"\xe2\x82\xac", 1},      /* € */
        {"\xf0\x9f\x98\x80", 1},  /* U+1F600 */
        {"\xf4\x8f\xbf\xbf", 1},  /* U+10FFFF, the last code point */
        {"\xed\x9f\xbf", 1},      /* U+D7FF, just below the surrogates */
        {"\x75\xff\xfe", 0},      /* the id of issue 18 */
        {"\xed\xa0\x80", 0},      /* U+D800, a surrogate */
        {"\xc0\xaf", 0},          /* overlong '/' */
        {"\xe0\x80\xaf", 0},      /* overlong, 3 bytes */
        {"\xf0\x80\x80\xaf", 0},  /* overlong, 4 bytes */
        {"\xf4\x90\x80\x80", 0},  /* above U+10FFFF */
        {"\xe2\x82", 0},          /* truncated at the end */
        {"ab\x80", 0},            /* lone continuation byte */
        {"\xc3\x28", 0},          /* bad continuation */
        {"\xf8\x88\x80\x80\x80", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const uint8_t *s = (const uint8_t *)cases[i].bytes;
        size_t n = strlen(cases[i].bytes);
        CHECK(cz_utf8_valid(s, n, NULL) == cases[i].valid);
        check_one(s, n, cases[i].bytes);
    }
    /* NUL is well-formed; refusing it is the caller's business. */
    CHECK(cz_utf8_valid((const uint8_t *)"nul\0A", 5, NULL));
    size_t at = 0;
    CHECK(!cz_utf8_valid((const uint8_t *)"\x75\xff\xfe", 3, &at) && at == 1);
    /* Random strings: bytes drawn mostly from lead and continuation bytes. */
    static const uint8_t pool[] = {0x41, 0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
                                   0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
                                   0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xfe, 0xff};
    unsigned iters = cz_test_iters(200000);
    uint8_t buf[12];
    for (unsigned it = 0; it < iters; it++) {
        size_t n = (size_t)(cz_test_rand64() % sizeof buf);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = cz_test_rand64();
            buf[i] = r & 1 ? pool[(r >> 1) % sizeof pool] : (uint8_t)(r >> 8);
        }
        check_one(buf, n, "random");
    }
    return cz_test_finish("util/utf8");
}
