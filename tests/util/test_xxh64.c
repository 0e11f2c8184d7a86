/* XXH64 (util/xxh64.h) against libxxhash's answers, whole and streamed in
 * uneven pieces. */
#include <stdint.h>

#include "harness/harness.h"
#include "util/xxh64.h"

/* XXH64, seed 0, of bytes (7 i + 3) mod 256, i = 0..len-1: digests from the
 * system's libxxhash (XXH64 via Python ctypes), recorded once. */
static void test_xxh64(void) {
    static const struct {
        size_t len;
        uint64_t digest;
    } kat[] = {
        {0, 0xef46db3751d8e999ULL},   {1, 0x1f25c8d0bc1f4bb6ULL},   {3, 0x31d2363f52e564c9ULL},
        {4, 0x9bb64b7d66ee9fdaULL},   {7, 0x9a7b149959ce60d8ULL},   {8, 0xdab99d95c6f90092ULL},
        {15, 0x1b47cb8243cc8e32ULL},  {31, 0xa2aa5f33cc4a6119ULL},  {32, 0x23c3c17ef790fd97ULL},
        {33, 0x50a7cfc7ba588784ULL},  {63, 0x5e3e54b431c7493cULL},  {64, 0x0eb64b3ef6eeb01fULL},
        {100, 0xa61f8d4c170fe531ULL}, {257, 0xb7b604f7e4f822faULL}, {300, 0x240004dbee0ba6dcULL}};
    uint8_t buf[300];
    for (int i = 0; i < 300; i++) buf[i] = (uint8_t)(i * 7 + 3);
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        CHECK(cz_xxh64(buf, kat[i].len, 0) == kat[i].digest);
        /* streaming in uneven pieces gives the same digest */
        cz_xxh64_state s;
        cz_xxh64_init(&s, 0);
        for (size_t j = 0; j < kat[i].len;) {
            size_t step = 1 + (size_t)(cz_test_rand64() % 40);
            if (step > kat[i].len - j) step = kat[i].len - j;
            cz_xxh64_update(&s, buf + j, step);
            j += step;
        }
        CHECK(cz_xxh64_digest(&s) == kat[i].digest);
    }
}

int main(void) {
    cz_test_init("util/xxh64");
    test_xxh64();
    return cz_test_finish("util/xxh64");
}
