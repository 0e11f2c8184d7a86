/* A .params file without its points decoded (groth16.h) and the file's
 * digest (groth16/digest.h), the host half of the GPU key load:
 *   - the layout equals offsets computed here from the counts, the header
 *     decode gives the full decoder's vk and counts, one point's decode the
 *     full decoder's point;
 *   - every refusal says what cz_groth16_params_decode says: each
 *     truncation, trailing bytes, absurd lengths (layout), each kind of
 *     damaged point in each vector (the point's verdict, exact message);
 *   - the mapping (shared): layout, modification time, refusals with the
 *     path; its decode equals the buffer decode and leaves the file's pages
 *     out of this process's memory; its view points at the file's points,
 *     which decode to the decoder's, and owns none of them;
 *   - the digest against its definition evaluated here with XXH64 (itself
 *     checked against libxxhash in tests/r1cs), one changed byte changes it;
 *   - the record: round trip, another size or time is "unknown", malformed
 *     records are refused. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/digest.h"
#include "groth16/groth16.h"
#include "harness/harness.h"
#include "harness/random_key.h"
#include "util/xxh64.h"

#define G1B CZ_G1_UNCOMPRESSED_BYTES
#define G2B CZ_G2_UNCOMPRESSED_BYTES

static const void *host_vector(const cz_groth16_params *p, int v) {
    const void *vec[CZ_GROTH16_VECTORS] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    return vec[v];
}

static size_t host_count(const cz_groth16_params *p, int v) {
    const size_t n[CZ_GROTH16_VECTORS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    return n[v];
}

/* The file's bytes, written by cz_groth16_params_write. */
static uint8_t *encode(const cz_groth16_params *p, const char *path, size_t *len) {
    cz_error err = {0};
    CHECK(cz_groth16_params_write(p, path, &err) == CZ_OK);
    uint8_t *bytes = cz_test_read_file(path, len);
    CHECK(bytes != NULL);
    return bytes;
}

static void test_layout_and_header(const char *dir) {
    cz_groth16_params p;
    cz_test_random_params(&p, 3, 15, 9, 8, 5);
    char path[512];
    snprintf(path, sizeof path, "%s/key.params", dir);
    size_t len = 0;
    uint8_t *bytes = encode(&p, path, &len);

    /* offsets from the counts (the layout of groth16/groth16.h) */
    uint64_t at = 3 * G1B + 3 * G2B + 4 + 3 * G1B;
    const size_t counts[CZ_GROTH16_VECTORS] = {15, 9, 8, 5, 5};
    uint64_t want[CZ_GROTH16_VECTORS];
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        want[v] = at + 4;
        at = want[v] + counts[v] * (v == CZ_GROTH16_B_G2 ? G2B : G1B);
    }
    CHECK(at == len);
    cz_groth16_params_layout lay;
    cz_error err = {0};
    CHECK(cz_groth16_params_layout_read(&lay, bytes, len, &err) == CZ_OK);
    CHECK(lay.file_bytes == len && lay.n_ic == 3);
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++)
        CHECK(lay.offset[v] == want[v] && lay.count[v] == counts[v]);
    CHECK(!strcmp(cz_groth16_vector_name(CZ_GROTH16_B_G1), "b_g1"));
    CHECK(cz_groth16_vector_point_bytes(CZ_GROTH16_B_G2) == G2B &&
          cz_groth16_vector_point_bytes(CZ_GROTH16_H) == G1B);

    /* header: the full decoder's vk and counts, no points */
    cz_groth16_params full, head;
    cz_groth16_params_layout lay2;
    CHECK(cz_groth16_params_decode(&full, bytes, len, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    CHECK(cz_groth16_params_decode_header(&head, &lay2, bytes, len, CZ_GROTH16_CHECKED, &err) ==
          CZ_OK);
    CHECK(!memcmp(&lay, &lay2, sizeof lay));
    CHECK(!memcmp(&head.vk.alpha_g1, &full.vk.alpha_g1, sizeof full.vk.alpha_g1));
    CHECK(!memcmp(&head.vk.beta_g2, &full.vk.beta_g2, sizeof full.vk.beta_g2));
    CHECK(!memcmp(&head.vk.delta_g1, &full.vk.delta_g1, sizeof full.vk.delta_g1));
    CHECK(!memcmp(&head.vk.delta_g2, &full.vk.delta_g2, sizeof full.vk.delta_g2));
    CHECK(head.vk.n_ic == 3 && !memcmp(head.vk.ic, full.vk.ic, 3 * sizeof *full.vk.ic));
    CHECK(head.n_h == 15 && head.n_l == 9 && head.n_a == 8 && head.n_b_g1 == 5 && head.n_b_g2 == 5);
    CHECK(!head.h && !head.l && !head.a && !head.b_g1 && !head.b_g2);
    cz_groth16_params_free(&head);

    /* each point: the full decoder's */
    int same = 1;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++)
        for (size_t i = 0; i < host_count(&full, v); i++) {
            cz_g2_affine pt; /* room for either */
            size_t size = cz_groth16_vector_point_bytes(v);
            if (cz_groth16_params_check_point(&pt, bytes, &lay, v, i, CZ_GROTH16_CHECKED, &err) !=
                    CZ_OK ||
                memcmp(&pt, (const uint8_t *)host_vector(&full, v) + i * size, size))
                same = 0;
        }
    CHECK(same);
    CHECK(cz_groth16_params_check_point(NULL, bytes, &lay, CZ_GROTH16_L, 9, CZ_GROTH16_CHECKED,
                                        &err) == CZ_E_INVALID_ARG);
    cz_groth16_params_free(&full);
    cz_groth16_params_free(&p);
    free(bytes);
    unlink(path);
}

/* layout_read and the full decoder refuse bytes[len] alike (status and
 * message); returns 1 when they do. */
static int layout_refuses_alike(const uint8_t *bytes, size_t len) {
    cz_groth16_params q;
    cz_groth16_params_layout lay;
    cz_error e1 = {0}, e2 = {0};
    cz_status s1 = cz_groth16_params_decode(&q, bytes, len, CZ_GROTH16_TRUSTED, &e1);
    if (s1 == CZ_OK) cz_groth16_params_free(&q);
    cz_status s2 = cz_groth16_params_layout_read(&lay, bytes, len, &e2);
    if (s1 != s2) return 0;
    return s1 == CZ_OK || !strcmp(e1.message, e2.message);
}

/* The point's verdict equals the full decoder's report for mode. */
static void expect_point_verdict(const uint8_t *bytes, size_t len, int v, size_t index,
                                 cz_groth16_check mode, cz_status want) {
    cz_groth16_params q, head;
    cz_groth16_params_layout lay;
    cz_error e1 = {0}, e2 = {0};
    cz_status s1 = cz_groth16_params_decode(&q, bytes, len, mode, &e1);
    if (s1 == CZ_OK) cz_groth16_params_free(&q);
    CHECK(s1 == want);
    /* the layout and header never read the points */
    CHECK(cz_groth16_params_decode_header(&head, &lay, bytes, len, mode, &e2) == CZ_OK);
    cz_groth16_params_free(&head);
    cz_status s2 = cz_groth16_params_check_point(NULL, bytes, &lay, v, index, mode, &e2);
    CHECK(s2 == want);
    if (want != CZ_OK) {
        if (strcmp(e1.message, e2.message))
            printf("decoder: %s\npoint:   %s\n", e1.message, e2.message);
        CHECK(!strcmp(e1.message, e2.message));
    }
}

static void test_messages(const char *dir) {
    cz_groth16_params p;
    cz_test_random_params(&p, 2, 7, 5, 6, 4);
    char path[512];
    snprintf(path, sizeof path, "%s/msg.params", dir);
    size_t len = 0;
    uint8_t *good = encode(&p, path, &len);
    unlink(path);
    uint8_t *bad = malloc(len + 8);
    cz_groth16_params_layout lay;
    cz_error err = {0};
    CHECK(cz_groth16_params_layout_read(&lay, good, len, &err) == CZ_OK);

    int alike = 1;
    for (size_t cut = 0; cut < len; cut++) alike &= layout_refuses_alike(good, cut);
    CHECK(alike);
    memcpy(bad, good, len);
    bad[len] = 0;
    CHECK(layout_refuses_alike(bad, len + 1)); /* trailing bytes */
    const size_t off_nl = lay.offset[CZ_GROTH16_L] - 4;
    memcpy(bad, good, len);
    bad[off_nl] = bad[off_nl + 1] = bad[off_nl + 2] = bad[off_nl + 3] = 0xff;
    CHECK(layout_refuses_alike(bad, len)); /* absurd length */
    memcpy(bad, good, len);
    bad[3 * G1B + 3 * G2B + 3] = 0; /* no ic */
    CHECK(layout_refuses_alike(bad, len));

    /* damaged points, in every vector, each kind the host decoder names */
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        const size_t size = cz_groth16_vector_point_bytes(v);
        const size_t i = 1 + (size_t)(cz_test_rand64() % (lay.count[v] - 1));
        uint8_t *pt = bad + lay.offset[v] + i * size;
        /* off the curve: a bit of the last coordinate */
        memcpy(bad, good, len);
        pt[size - 1] ^= 2;
        expect_point_verdict(bad, len, v, i, CZ_GROTH16_UNCHECKED, CZ_E_NOT_ON_CURVE);
        expect_point_verdict(bad, len, v, i, CZ_GROTH16_TRUSTED, CZ_OK);
        /* flags: compressed, sort, infinity (the identity) */
        static const uint8_t flags[] = {0x80, 0x20, 0x40};
        for (size_t f = 0; f < sizeof flags; f++) {
            memcpy(bad, good, len);
            pt[0] |= flags[f];
            expect_point_verdict(bad, len, v, i, CZ_GROTH16_TRUSTED, CZ_E_PARSE);
        }
        memcpy(bad, good, len);
        memset(pt, 0, size);
        pt[0] = 0x40;
        expect_point_verdict(bad, len, v, i, CZ_GROTH16_TRUSTED, CZ_E_IDENTITY);
        /* (0, 0) without the flag */
        memcpy(bad, good, len);
        memset(pt, 0, size);
        expect_point_verdict(bad, len, v, i, CZ_GROTH16_TRUSTED, CZ_E_NOT_ON_CURVE);
        /* a coordinate >= p: top byte 0x1f (p's is 0x1a) */
        memcpy(bad, good, len);
        pt[size - 48] = 0x1f;
        expect_point_verdict(bad, len, v, i, CZ_GROTH16_TRUSTED, CZ_E_RANGE);
    }
    cz_groth16_params_free(&p);
    free(good);
    free(bad);
}

static void test_file_map(const char *dir) {
    cz_groth16_params p;
    cz_test_random_params(&p, 2, 3, 2, 2, 2);
    char path[512];
    snprintf(path, sizeof path, "%s/map.params", dir);
    size_t len = 0;
    uint8_t *bytes = encode(&p, path, &len);
    cz_groth16_params_file f;
    cz_error err = {0};
    CHECK(cz_groth16_params_file_map(&f, path, &err) == CZ_OK);
    CHECK(f.len == len && !memcmp(f.data, bytes, len) && !strcmp(f.path, path));
    struct stat sb;
    CHECK(stat(path, &sb) == 0);
    CHECK(f.mtime_ns == (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec);
    cz_groth16_params_layout lay;
    CHECK(cz_groth16_params_layout_read(&lay, bytes, len, &err) == CZ_OK);
    CHECK(!memcmp(&lay, &f.layout, sizeof lay));
    /* the head: the counts of ic, h and l from their length words alone */
    cz_groth16_params_head head;
    CHECK(cz_groth16_params_file_head(&head, path, &err) == CZ_OK);
    CHECK(head.n_ic == p.vk.n_ic && head.n_h == p.n_h && head.n_l == p.n_l);
    cz_groth16_params_file_unmap(&f);
    CHECK(f.data == NULL);
    cz_groth16_params_file_unmap(&f); /* twice is harmless */

    /* a writer's record: the digest of the file, for its size and time */
    uint64_t d = 0, want = 0, got = 0;
    int known = 0;
    CHECK(cz_params_digest_record_file(&d, path, &err) == CZ_OK);
    CHECK(cz_params_digest(&want, bytes, len, &err) == CZ_OK && d == want);
    CHECK(cz_params_digest_lookup(&got, &known, path, len,
                                  (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec,
                                  &err) == CZ_OK &&
          known && got == want);
    char record[600];
    CHECK(cz_params_digest_path(record, sizeof record, path, &err) == CZ_OK);
    unlink(record);

    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.params", dir);
    CHECK(cz_groth16_params_file_map(&f, missing, &err) == CZ_E_NOT_FOUND);
    CHECK(strstr(err.message, "cannot open") && strstr(err.message, missing) == err.message);
    CHECK(cz_groth16_params_file_head(&head, missing, &err) == CZ_E_NOT_FOUND);
    cz_test_write_file(path, bytes, len - 7);
    CHECK(cz_groth16_params_file_map(&f, path, &err) == CZ_E_PARSE && f.data == NULL);
    CHECK(strstr(err.message, path) == err.message && strstr(err.message, "b_g2"));
    cz_test_write_file(path, bytes, 0);
    CHECK(cz_groth16_params_file_map(&f, path, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "truncated at vk.alpha_g1"));
    CHECK(cz_groth16_params_file_head(&head, path, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, path) == err.message && strstr(err.message, "truncated header"));
    cz_groth16_params_free(&p);
    free(bytes);
    unlink(path);
}

/* Resident bytes (the smaps "Rss:" line) of the mapping that holds addr. */
static size_t mapping_rss(const void *addr) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return SIZE_MAX;
    char line[512];
    int inside = 0;
    size_t rss = SIZE_MAX;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        } else if (inside && !strncmp(line, "Rss:", 4)) {
            rss = (size_t)strtoull(line + 4, NULL, 10) * 1024;
            break;
        }
    }
    fclose(f);
    return rss;
}

/* cz_groth16_params_file_decode: the points of cz_groth16_params_decode,
 * and the mapping's pages dropped behind the decoder (a 32 GiB key must
 * not sit in memory twice). The vectors repeat a few random points so the
 * file spans a few hundred pages without thousands of scalar multiplications. */
static void test_file_decode(const char *dir) {
    cz_groth16_params p;
    cz_test_random_params(&p, 2, 4, 4, 4, 4);
    const size_t n = 4000;
    cz_g1_affine **g1[4] = {&p.h, &p.l, &p.a, &p.b_g1};
    size_t *c1[4] = {&p.n_h, &p.n_l, &p.n_a, &p.n_b_g1};
    for (int v = 0; v < 4; v++) {
        cz_g1_affine *big = malloc(n * sizeof *big);
        for (size_t i = 0; i < n; i++) big[i] = (*g1[v])[i % 4];
        free(*g1[v]);
        *g1[v] = big;
        *c1[v] = n;
    }
    cz_g2_affine *big2 = malloc(n * sizeof *big2);
    for (size_t i = 0; i < n; i++) big2[i] = p.b_g2[i % 4];
    free(p.b_g2);
    p.b_g2 = big2;
    p.n_b_g2 = n;
    char path[512];
    snprintf(path, sizeof path, "%s/decode.params", dir);
    size_t len = 0;
    uint8_t *bytes = encode(&p, path, &len);
    cz_groth16_params_file f;
    cz_error err = {0};
    CHECK(cz_groth16_params_file_map(&f, path, &err) == CZ_OK);
    cz_groth16_params got, want;
    CHECK(cz_groth16_params_file_decode(&got, &f, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    CHECK(cz_groth16_params_decode(&want, bytes, len, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    CHECK(got.n_h == n && got.n_b_g2 == n);
    CHECK(!memcmp(got.h, want.h, n * sizeof *got.h) && !memcmp(got.l, want.l, n * sizeof *got.l));
    CHECK(!memcmp(got.a, want.a, n * sizeof *got.a) &&
          !memcmp(got.b_g1, want.b_g1, n * sizeof *got.b_g1));
    CHECK(!memcmp(got.b_g2, want.b_g2, n * sizeof *got.b_g2));
    CHECK(!memcmp(&got.vk.delta_g1, &want.vk.delta_g1, sizeof got.vk.delta_g1));
    /* 1.6 MB decoded; what stays mapped is at most the pages the decoder
     * was inside when it stopped (the header and a vector boundary) */
    size_t rss = mapping_rss(f.data);
    CHECK(len > 1500000 && rss < len / 8);
    if (rss >= len / 8) fprintf(stderr, "mapping rss %zu of %zu bytes\n", rss, len);
    /* the mapping still reads the file (the pages fault back in) */
    CHECK(!memcmp(f.data, bytes, len));
    cz_groth16_params_free(&got);
    cz_groth16_params_free(&want);
    /* a damaged file: the path leads the message */
    cz_groth16_params_file_unmap(&f);
    bytes[len - 1] ^= 0x40;
    cz_test_write_file(path, bytes, len);
    CHECK(cz_groth16_params_file_map(&f, path, &err) == CZ_OK);
    CHECK(cz_groth16_params_file_decode(&got, &f, CZ_GROTH16_CHECKED, &err) != CZ_OK);
    CHECK(strstr(err.message, path) == err.message && strstr(err.message, "b_g2"));
    cz_groth16_params_file_unmap(&f);
    cz_groth16_params_free(&p);
    free(bytes);
    unlink(path);
}

/* cz_groth16_params_file_view: the decoder's vk and counts, each vector
 * pointing at its points in the (shared) mapping, whose bytes decode to
 * the decoder's points; free, take and decode_vector leave the mapping
 * alone (take gives its address, decode_vector points at it again). */
static void test_file_view(const char *dir) {
    cz_groth16_params p;
    cz_test_random_params(&p, 3, 7, 5, 4, 3);
    char path[512];
    snprintf(path, sizeof path, "%s/view.params", dir);
    size_t len = 0;
    uint8_t *bytes = encode(&p, path, &len);
    cz_groth16_params_file f;
    cz_error err = {0};
    CHECK(cz_groth16_params_file_map(&f, path, &err) == CZ_OK);
    CHECK(cz_test_mapping_shared(f.data) != 0);
    cz_groth16_params view, want;
    CHECK(cz_groth16_params_file_view(&view, &f, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    CHECK(cz_groth16_params_decode(&want, bytes, len, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    CHECK(view.encoded == 1 && !want.encoded);
    CHECK(view.vk.n_ic == want.vk.n_ic &&
          !memcmp(view.vk.ic, want.vk.ic, want.vk.n_ic * sizeof *want.vk.ic));
    CHECK(!memcmp(&view.vk.delta_g2, &want.vk.delta_g2, sizeof want.vk.delta_g2));
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        const size_t n = host_count(&want, v);
        CHECK(host_count(&view, v) == n && n > 0);
        const uint8_t *at = host_vector(&view, v);
        CHECK(at == f.data + f.layout.offset[v]);
        for (size_t i = 0; i < n && at; i++) {
            if (v == CZ_GROTH16_B_G2) {
                cz_g2_affine q;
                CHECK(cz_g2_affine_from_uncompressed(&q, at + i * G2B, 0, &err) == CZ_OK);
                CHECK(!memcmp(&q, &want.b_g2[i], sizeof q));
            } else {
                cz_g1_affine q;
                const cz_g1_affine *w = host_vector(&want, v);
                CHECK(cz_g1_affine_from_uncompressed(&q, at + i * G1B, 0, &err) == CZ_OK);
                CHECK(!memcmp(&q, &w[i], sizeof q));
            }
        }
    }
    /* taken: the mapping's address, nothing to free; back: the same */
    void *l = cz_groth16_params_take_vector(&view, CZ_GROTH16_L);
    CHECK(l == f.data + f.layout.offset[CZ_GROTH16_L] && view.l == NULL && view.n_l == want.n_l);
    CHECK(cz_groth16_params_file_decode_vector(&view, &f, CZ_GROTH16_L, CZ_GROTH16_CHECKED, &err) ==
          CZ_OK);
    CHECK((void *)view.l == l);
    cz_groth16_params_free(&view);
    CHECK(view.h == NULL && !view.encoded);
    CHECK(!memcmp(f.data, bytes, len)); /* the mapping is untouched */
    cz_groth16_params_file_unmap(&f);
    cz_groth16_params_free(&want);
    cz_groth16_params_free(&p);
    free(bytes);
    unlink(path);
}

/* The digest as digest.h defines it, from XXH64 alone. */
static uint64_t digest_by_definition(const uint8_t *data, size_t len) {
    const size_t B = (size_t)1 << 20, n = (len + B - 1) / B;
    uint8_t *le = malloc(8 * (n ? n : 1));
    for (size_t b = 0; b < n; b++) {
        size_t part = len - b * B < B ? len - b * B : B;
        uint64_t h = cz_xxh64(data + b * B, part, 0);
        for (int k = 0; k < 8; k++) le[8 * b + k] = (uint8_t)(h >> (8 * k));
    }
    uint64_t d = cz_xxh64(le, 8 * n, len);
    free(le);
    return d;
}

static void test_digest(void) {
    const size_t B = CZ_PARAMS_DIGEST_BLOCK;
    CHECK(B == (size_t)1 << 20);
    const size_t sizes[] = {0, 1, B - 1, B, B + 1, 3 * B + 12345, 5 * B};
    uint8_t *buf = malloc(5 * B);
    cz_test_rand_bytes(buf, 5 * B);
    cz_error err = {0};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t d = 0;
        CHECK(cz_params_digest(&d, buf, sizes[i], &err) == CZ_OK);
        CHECK(d == digest_by_definition(buf, sizes[i]));
    }
    /* any byte matters, and so does the length */
    uint64_t d0 = 0, d1 = 0, d2 = 0;
    CHECK(cz_params_digest(&d0, buf, 3 * B + 12345, &err) == CZ_OK);
    buf[2 * B + 77] ^= 0x10;
    CHECK(cz_params_digest(&d1, buf, 3 * B + 12345, &err) == CZ_OK);
    CHECK(cz_params_digest(&d2, buf, 3 * B + 12344, &err) == CZ_OK);
    CHECK(d0 != d1 && d1 != d2);
    /* the block digest is XXH64 with seed 0 */
    CHECK(cz_params_digest_block(buf, 1000) == cz_xxh64(buf, 1000, 0));
    free(buf);
}

static void test_record(const char *dir) {
    char path[512], record[600];
    snprintf(path, sizeof path, "%s/rec.params", dir);
    cz_error err = {0};
    CHECK(cz_params_digest_path(record, sizeof record, path, &err) == CZ_OK);
    CHECK(!strcmp(record + strlen(path), ".xxh64"));
    uint64_t d = 0;
    int known = 1;
    unlink(record);
    CHECK(cz_params_digest_lookup(&d, &known, path, 100, 5, &err) == CZ_OK && !known);
    CHECK(cz_params_digest_save(path, 0x0123456789abcdefull, 47373928632ull, 1718000000123456789ll,
                                &err) == CZ_OK);
    size_t len = 0;
    char *text = (char *)cz_test_read_file(record, &len);
    CHECK(text &&
          len == strlen("cuzk-params-digest 1 0123456789abcdef 47373928632 "
                        "1718000000123456789\n") &&
          !memcmp(text, "cuzk-params-digest 1 0123456789abcdef 47373928632 1718000000123456789\n",
                  len));
    free(text);
    CHECK(cz_params_digest_lookup(&d, &known, path, 47373928632ull, 1718000000123456789ll, &err) ==
              CZ_OK &&
          known && d == 0x0123456789abcdefull);
    /* another version of the file */
    CHECK(cz_params_digest_lookup(&d, &known, path, 47373928631ull, 1718000000123456789ll, &err) ==
              CZ_OK &&
          !known);
    CHECK(cz_params_digest_lookup(&d, &known, path, 47373928632ull, 1718000000123456788ll, &err) ==
              CZ_OK &&
          !known);
    /* not records */
    static const char *const bad[] = {
        "",
        "cuzk-params-digest 1 0123456789abcdef 47373928632\n",
        "cuzk-params-digest 2 0123456789abcdef 47373928632 1718000000123456789\n",
        "cuzk-params-digest 1 0123456789ABCDEF 47373928632 1718000000123456789\n",
        "cuzk-params-digest 1 0123456789abcde 47373928632 1718000000123456789\n",
        "cuzk-params-digest 1 0123456789abcdef 47373928632 1718000000123456789",
        "cuzk-params-digest 1 0123456789abcdef 47373928632 1718000000123456789 x\n",
        "cuzk-params-digest 1 0123456789abcdef 47373928632 1718000000123456789\nmore\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cz_test_write_file(record, (const uint8_t *)bad[i], strlen(bad[i]));
        cz_status st =
            cz_params_digest_lookup(&d, &known, path, 47373928632ull, 1718000000123456789ll, &err);
        if (st != CZ_E_PARSE) printf("record %zu accepted\n", i);
        CHECK(st == CZ_E_PARSE && !known && strstr(err.message, record) == err.message);
    }
    unlink(record);
}

int main(void) {
    cz_test_init("groth16/params_file");
    char dir[] = "/tmp/cz_params_file_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_layout_and_header(dir);
    test_messages(dir);
    test_file_map(dir);
    test_file_decode(dir);
    test_file_view(dir);
    test_digest();
    test_record(dir);
    rmdir(dir);
    return cz_test_finish("groth16/params_file");
}
