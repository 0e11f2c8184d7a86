/* cz_advise_huge_pages: a large buffer advised before its first writes is
 * backed by transparent huge pages where the kernel offers them on request
 * ("[always]" or "[madvise]" in /sys/kernel/mm/transparent_hugepage/enabled;
 * /proc/self/smaps counts the mapping's AnonHugePages); ranges under
 * CZ_HUGE_PAGES_MIN (under "[madvise]" they get none), small, unaligned
 * and NULL ones are left alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/harness.h"
#include "util/parallel.h"

int main(void) {
    cz_test_init("util/huge_pages");
    /* no range, a small one, an unaligned one: nothing to do, nothing breaks */
    cz_advise_huge_pages(NULL, 1u << 30);
    char small[4096];
    cz_advise_huge_pages(small, sizeof small);
    memset(small, 7, sizeof small);
    CHECK(small[4095] == 7);

    char mode[32];
    cz_huge_pages_mode(mode, sizeof mode);
    CHECK(!mode[0] || !strcmp(mode, "always") || !strcmp(mode, "madvise") ||
          !strcmp(mode, "never"));
    const int offered = !strcmp(mode, "always") || !strcmp(mode, "madvise");

    /* a buffer of 2 x CZ_HUGE_PAGES_MIN advised from an unaligned start, and
     * one just under the minimum */
    const size_t bytes = 2 * CZ_HUGE_PAGES_MIN, under = CZ_HUGE_PAGES_MIN - 1;
    uint8_t *big = malloc(bytes), *less = malloc(under);
    CHECK(big != NULL && less != NULL);
    if (big && less) {
        cz_advise_huge_pages(big + 1, bytes - 1);
        cz_advise_huge_pages(less, under);
        memset(big, 0x5a, bytes);
        memset(less, 0x5a, under);
        CHECK(big[0] == 0x5a && big[bytes - 1] == 0x5a && less[under - 1] == 0x5a);
        const long kb = cz_test_mapping_huge_kb(big + bytes / 2),
                   kb_less = cz_test_mapping_huge_kb(less + under / 2);
        printf("transparent huge pages: %s; %zu MiB advised: %ld kB of them, %zu bytes "
               "advised: %ld kB\n",
               mode[0] ? mode : "unknown", bytes >> 20, kb, under, kb_less);
        /* at least one 2 MiB page (memory may be too fragmented for all) */
        if (offered) CHECK(kb >= 2048);
        if (!strcmp(mode, "madvise")) CHECK(kb_less == 0);
    }
    free(big);
    free(less);
    return cz_test_finish("util/huge_pages");
}
