/* Filecoin's parameter table and the classification of parameter files
 * (src/filecoin/common/params_table.h):
 *  - the built-in table is sorted and every name is found by lookup (its
 *    contents are held to rust-fil-proofs' parameters.json by the ctest
 *    filecoin/params-table, tests/filecoin/params_table_check.py);
 *  - file digests equal hashlib's (tests/vectors/params_digest.txt, written
 *    by tests/oracle/gen_params_digest.py) across the read-block boundary;
 *  - the classifier on fabricated files against a fabricated table:
 *    official, wrong digest, development, unknown (not read), the records
 *    (remembered digest believed for the same size and time only, a stale
 *    development record, malformed records named), missing files;
 *  - the development records of a directory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filecoin/common/params_table.h"
#include "harness/harness.h"

/* The pattern of tests/oracle/gen_params_digest.py. */
static uint8_t pattern_byte(uint64_t i) {
    return (uint8_t)((uint32_t)(i * 2654435761u) >> 13);
}

static void write_pattern(const char *path, uint64_t n) {
    uint8_t *b = malloc(n ? n : 1);
    CHECK(b != NULL);
    for (uint64_t i = 0; i < n; i++) b[i] = pattern_byte(i);
    cz_test_write_file(path, b, n);
    free(b);
}

static void write_text(const char *path, const char *text) {
    cz_test_write_file(path, (const uint8_t *)text, strlen(text));
}

static char dir[256];

static const char *in_dir(char *buf, const char *name) {
    snprintf(buf, 512, "%s/%s", dir, name);
    return buf;
}

static void test_table(void) {
    CHECK(cz_fc_param_table_len == 44);
    for (size_t i = 0; i < cz_fc_param_table_len; i++) {
        const cz_fc_param_entry *e = &cz_fc_param_table[i];
        if (i) CHECK(strcmp(cz_fc_param_table[i - 1].name, e->name) < 0);
        CHECK(cz_fc_param_lookup(e->name, NULL, 0) == e);
        CHECK(strlen(e->digest) == 32 && strlen(e->cid) == 46 && e->sector_size >= 2048);
        char longer[300];
        snprintf(longer, sizeof longer, "%sx", e->name);
        CHECK(cz_fc_param_lookup(longer, NULL, 0) == NULL);
    }
    /* one entry spelled out, as parameters.json has it */
    const cz_fc_param_entry *e = cz_fc_param_lookup(
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
        "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
        NULL, 0);
    CHECK(e && !strcmp(e->digest, "6a388072a518cf46ebd661f5cc46900a") &&
          e->sector_size == 34359738368ull &&
          !strcmp(e->cid, "QmengpM684XLQfG8754ToonszgEg2bQeAGUan5uXTHUQzJ"));
    CHECK(cz_fc_param_lookup("", NULL, 0) == NULL);
    CHECK(cz_fc_param_lookup("v28-", NULL, 0) == NULL);
}

static void test_digests(void) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, "params_digest.txt"));
    unsigned n = 0;
    char path[512];
    while (cz_vector_next(&vf)) {
        uint64_t len = strtoull(vf.fields[0], NULL, 10);
        write_pattern(in_dir(path, "pattern.bin"), len);
        char hex[CZ_FC_PARAM_DIGEST_HEX];
        cz_error err = {0};
        CHECK(cz_fc_param_digest_file(hex, path, NULL, NULL, &err) == CZ_OK);
        if (strcmp(hex, vf.fields[1]))
            fprintf(stderr, "length %llu: digest %s, hashlib %s\n", (unsigned long long)len, hex,
                    vf.fields[1]);
        CHECK(!strcmp(hex, vf.fields[1]));
        n++;
    }
    cz_vector_close(&vf);
    CHECK(n == 10);
    cz_error err = {0};
    char hex[CZ_FC_PARAM_DIGEST_HEX];
    CHECK(cz_fc_param_digest_file(hex, in_dir(path, "absent"), NULL, NULL, &err) == CZ_E_NOT_FOUND);
    CHECK(strstr(err.message, "absent") && strstr(err.message, "cannot open"));
}

/* Progress must grow to the file's size. */
static uint64_t progress_last, progress_calls;
static void progress(void *ctx, uint64_t done, uint64_t total) {
    (void)ctx;
    CHECK(done >= progress_last && done <= total);
    progress_last = done, progress_calls++;
}

/* The expected digests are hashlib's (params_digest.txt), for pattern
 * files of the vector file's lengths. */
static void test_classify(void) {
    /* lengths 100000 and 129 of the vector file */
    static const char d100000[] = "e1799e6fba0bae10156aa4ad7c20872a";
    static const char d129[] = "b5a5ab61462ed913305d3e6ebeddc8ca";
    /* a fabricated table, sorted by name */
    static const cz_fc_param_entry table[] = {
        {"a-dev.params", "Qm", "00000000000000000000000000000000", 2048},
        {"b-ok.params", "Qm", d100000, 2048},
        {"c-wrong.vk", "Qm", d129, 2048},
    };
    const size_t n = 3;
    char p[512], rec[600];
    cz_fc_param_verdict v;
    cz_error err = {0};

    /* official: read once, then believed from the record */
    write_pattern(in_dir(p, "b-ok.params"), 100000);
    progress_last = progress_calls = 0;
    CHECK(cz_fc_param_classify(&v, p, table, n, progress, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_OFFICIAL && v.hashed && v.entry == &table[1] && v.size == 100000);
    CHECK(!strcmp(v.digest, d100000) && progress_last == 100000 && progress_calls >= 1);
    snprintf(rec, sizeof rec, "%s.blake2b", p);
    CHECK(access(rec, R_OK) == 0);
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_OFFICIAL && !v.hashed);
    /* the same size, another time: read again; the bytes now differ */
    uint8_t *b = cz_test_read_file(p, &(size_t){0});
    CHECK(b != NULL);
    b[500] ^= 1;
    cz_test_write_file(p, b, 100000);
    free(b);
    struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 5}};
    CHECK(utimensat(AT_FDCWD, p, times, 0) == 0);
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_WRONG_DIGEST && v.hashed && strcmp(v.digest, d100000));
    /* a record naming the file's size and time is believed without reading
     * it (the documented trade: damage in place under the same time is not
     * seen): a record naming the official digest makes it official */
    struct stat sb;
    CHECK(stat(p, &sb) == 0);
    char text[200];
    snprintf(text, sizeof text, "cuzk-blake2b512-16 %s %lld %lld\n", d100000, (long long)sb.st_size,
             (long long)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec);
    write_text(rec, text);
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_OFFICIAL && !v.hashed);
    /* a malformed record is named */
    write_text(rec, "cuzk-blake2b512-16 xyz 1 2\n");
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, ".blake2b") && strstr(err.message, "line 1"));
    unlink(rec);

    /* wrong digest (an official name, other bytes, no development record) */
    write_pattern(in_dir(p, "c-wrong.vk"), 128);
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_WRONG_DIGEST &&
          !strcmp(v.digest, "0535f1cdf1f47954a92e05a40ab951c3"));

    /* development: official name, marked with its digest */
    write_pattern(in_dir(p, "a-dev.params"), 127);
    char marked[CZ_FC_PARAM_DIGEST_HEX];
    CHECK(cz_fc_param_mark_development(marked, p, NULL, NULL, &err) == CZ_OK);
    CHECK(!strcmp(marked, "934aa4382ed21fafa03224427e576ef3"));
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_DEVELOPMENT && !v.hashed); /* marking recorded the digest */
    /* the key replaced after it was marked: the record no longer names it */
    write_pattern(p, 129);
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_WRONG_DIGEST && v.hashed && !strcmp(v.digest, d129));
    /* a damaged development record is named */
    snprintf(rec, sizeof rec, "%s.dev", p);
    write_text(rec, "blake2b 934aa4382ed21fafa03224427e576ef3\n");
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "a-dev.params.dev") && strstr(err.message, "development record"));
    CHECK(cz_fc_param_mark_development(NULL, in_dir(rec, "b-absent.params"), NULL, NULL, &err) ==
          CZ_E_NOT_FOUND);

    /* unknown: not in the table, no record: not read */
    write_pattern(in_dir(p, "z-other.bin"), 1000);
    progress_calls = 0;
    CHECK(cz_fc_param_classify(&v, p, table, n, progress, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_UNKNOWN && !v.hashed && !v.digest[0] && !v.entry &&
          progress_calls == 0);
    /* ... unless marked development */
    CHECK(cz_fc_param_mark_development(NULL, p, NULL, NULL, &err) == CZ_OK);
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_DEVELOPMENT && !v.hashed && !v.entry);
    /* a development record that names other bytes (the file grew) */
    write_pattern(p, 1001);
    CHECK(cz_fc_param_classify(&v, p, table, n, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_UNKNOWN && v.hashed);

    /* missing, and not a file */
    CHECK(cz_fc_param_classify(&v, in_dir(p, "b-absent.params"), table, n, NULL, NULL, &err) ==
          CZ_E_NOT_FOUND);
    CHECK(strstr(err.message, "b-absent.params") != NULL);
    CHECK(cz_fc_param_classify(&v, dir, table, n, NULL, NULL, &err) == CZ_E_IO);
    CHECK(strstr(err.message, "not a regular file") != NULL);

    /* the built-in table: an official name with fabricated bytes */
    write_pattern(in_dir(p, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
                            "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk"),
                  1);
    CHECK(cz_fc_param_classify(&v, p, NULL, 0, NULL, NULL, &err) == CZ_OK);
    CHECK(v.cls == CZ_FC_PARAM_WRONG_DIGEST && v.entry &&
          !strcmp(v.digest, "2fa3f686df876995167e7c2e5d74c4c7"));

    /* the development records of the directory: a-dev.params.dev (its key
     * present) and z-other.bin.dev; a record without its key is not counted */
    cz_test_write_file(in_dir(p, "gone.params.dev"), (const uint8_t *)"x", 1);
    size_t n_dev = 0;
    char first[256];
    CHECK(cz_fc_param_dir_development(&n_dev, first, sizeof first, dir, &err) == CZ_OK);
    CHECK(n_dev == 2);
    CHECK(!strcmp(first, "a-dev.params") || !strcmp(first, "z-other.bin"));
    CHECK(cz_fc_param_dir_development(&n_dev, NULL, 0, in_dir(p, "nodir"), &err) == CZ_E_IO);
    CHECK(strstr(err.message, "nodir") != NULL);
}

static void test_side_files(void) {
    CHECK(cz_fc_param_is_side_file("x.params.dev"));
    CHECK(cz_fc_param_is_side_file("x.params.blake2b"));
    CHECK(cz_fc_param_is_side_file("x.params.xxh64"));
    CHECK(cz_fc_param_is_side_file("x.czc"));
    CHECK(cz_fc_param_is_side_file("x.params.tmp-123"));
    CHECK(!cz_fc_param_is_side_file("x.params"));
    CHECK(!cz_fc_param_is_side_file("x.vk"));
    CHECK(!cz_fc_param_is_side_file(".dev"));
}

int main(void) {
    cz_test_init("filecoin/params_table");
    snprintf(dir, sizeof dir, "/tmp/cz_params_table_%ld", (long)getpid());
    CHECK(mkdir(dir, 0755) == 0);
    test_table();
    test_digests();
    test_classify();
    test_side_files();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return cz_test_finish("filecoin/params_table");
}
