/* The record file: round trips that are byte-identical, and rejection
 * (with a message naming the problem) of truncated, oversized, bit-flipped,
 * wrong-magic, wrong-version, huge-size and inconsistent-but-checksummed
 * files. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "r1cs/backends.h"
#include "r1cs/internal.h"
#include "circuits.h"

static char dir[256];

static void path_of(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s", dir, name);
}

static void record_circuit(cz_r1cs *r, const circuit *c) {
    cz_lc lcs[3], tmp;
    for (int k = 0; k < 3; k++) cz_lc_init(&lcs[k]);
    cz_lc_init(&tmp);
    cz_cs *cs = cz_cs_record_new();
    circ_replay(cs, c, lcs, &tmp);
    cz_error err;
    CHECK(cz_record_finish(cs, r, &err) == CZ_OK);
    cz_cs_destroy(cs);
    for (int k = 0; k < 3; k++) cz_lc_free(&lcs[k]);
    cz_lc_free(&tmp);
}

static int csr_equal(const cz_csr *x, const cz_csr *y) {
    if (x->rows != y->rows) return 0;
    if (memcmp(x->row_start, y->row_start, (x->rows + 1) * 8) != 0) return 0;
    uint64_t nnz = x->row_start[x->rows];
    return (nnz == 0 || memcmp(x->col, y->col, nnz * 4) == 0) &&
           (nnz == 0 || memcmp(x->val, y->val, nnz * sizeof(cz_fr)) == 0);
}

static int r1cs_equal(const cz_r1cs *x, const cz_r1cs *y) {
    size_t wa = (x->num_aux + 63) / 64 * 8, wi = (x->num_inputs + 63) / 64 * 8;
    return x->num_inputs == y->num_inputs && x->num_aux == y->num_aux &&
           x->num_constraints == y->num_constraints && csr_equal(&x->a, &y->a) &&
           csr_equal(&x->b, &y->b) && csr_equal(&x->c, &y->c) &&
           memcmp(x->a_aux_density, y->a_aux_density, wa) == 0 &&
           memcmp(x->b_input_density, y->b_input_density, wi) == 0 &&
           memcmp(x->b_aux_density, y->b_aux_density, wa) == 0;
}

/* Write, read, write again: same structure, same bytes. */
static void test_round_trip(unsigned n) {
    uint64_t sizes[] = {0, 1, 2, n};
    for (int i = 0; i < 4; i++) {
        circuit c;
        circ_random(&c, cz_test_rand64(), sizes[i], UINT64_MAX);
        cz_r1cs r, back;
        record_circuit(&r, &c);
        char p1[512], p2[512];
        path_of(p1, sizeof p1, "one.r1cs");
        path_of(p2, sizeof p2, "two.r1cs");
        cz_error err;
        CHECK(cz_r1cs_write(&r, p1, &err) == CZ_OK);
        CHECK(cz_r1cs_read(&back, p1, &err) == CZ_OK);
        CHECK(r1cs_equal(&r, &back));
        CHECK(cz_r1cs_write(&back, p2, &err) == CZ_OK);
        size_t l1 = 0, l2 = 0;
        uint8_t *b1 = cz_test_read_file(p1, &l1), *b2 = cz_test_read_file(p2, &l2);
        CHECK(b1 && b2 && l1 == l2 && memcmp(b1, b2, l1) == 0);
        /* the size the format promises */
        size_t want = 64 + 8 + 8 * (2 * ((c.num_aux + 63) / 64) + (c.num_inputs + 63) / 64);
        const cz_csr *m[3] = {&r.a, &r.b, &r.c};
        for (int k = 0; k < 3; k++) {
            uint64_t nnz = m[k]->row_start[m[k]->rows];
            want += (m[k]->rows + 1) * 8 + (nnz + (nnz & 1)) * 4 + nnz * 32;
        }
        CHECK(l1 == want);
        CHECK(l1 >= 8 && memcmp(b1, "CZR1CS\0\0", 8) == 0);
        free(b1), free(b2);
        cz_r1cs_free(&back);
        cz_r1cs_free(&r);
        circ_free(&c);
    }
}

/* Reads buf (written to a file) and expects rejection with `want` in the
 * message; returns the status. */
static cz_status expect_reject(const uint8_t *buf, size_t len, const char *want) {
    char p[512];
    path_of(p, sizeof p, "bad.r1cs");
    cz_test_write_file(p, buf, len);
    cz_r1cs r;
    memset(&r, 0x5a, sizeof r);
    cz_error err = {0};
    cz_status st = cz_r1cs_read(&r, p, &err);
    CHECK(st != CZ_OK);
    if (st != CZ_OK) {
        CHECK(err.status == st);
        if (getenv("CZ_TEST_VERBOSE")) printf("  rejected: %s\n", err.message);
        CHECK(strstr(err.message, p) != NULL); /* names the file */
        if (want && !strstr(err.message, want)) {
            printf("  expected \"%s\" in: %s\n", want, err.message);
            CHECK(0);
        }
        CHECK(r.a.row_start == NULL && r.a_aux_density == NULL); /* nothing left allocated */
    } else {
        cz_r1cs_free(&r);
    }
    return st;
}

static void reseal(uint8_t *buf, size_t len) { /* recompute the checksum */
    uint64_t h = cz_xxh64(buf, len - 8, 0);
    memcpy(buf + len - 8, &h, 8);
}

static void test_rejections(void) {
    circuit c;
    circ_random(&c, cz_test_rand64(), 200, UINT64_MAX);
    cz_r1cs r;
    record_circuit(&r, &c);
    char p[512];
    path_of(p, sizeof p, "good.r1cs");
    CHECK(cz_r1cs_write(&r, p, NULL) == CZ_OK);
    size_t len = 0;
    uint8_t *good = cz_test_read_file(p, &len), *buf = malloc(len + 16);
    CHECK(good && len > 200);

    /* truncated anywhere, including inside the header */
    size_t cuts[] = {0, 1, 8, 63, 64, 71, 72, 100, len / 2, len - 8, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        CHECK(expect_reject(good, cuts[i], "truncated") == CZ_E_PARSE);

    /* oversized: a trailing byte */
    memcpy(buf, good, len);
    buf[len] = 0;
    CHECK(expect_reject(buf, len + 1, "oversized") == CZ_E_PARSE);

    /* single bit flips past the header (sizes there are checked first) */
    for (int i = 0; i < 64; i++) {
        memcpy(buf, good, len);
        size_t at = 64 + (size_t)(cz_test_rand64() % (len - 64));
        buf[at] ^= (uint8_t)(1u << (cz_test_rand64() % 8));
        CHECK(expect_reject(buf, len, "checksum mismatch") == CZ_E_PARSE);
    }
    /* any flip in the header is refused too (message depends on the field) */
    for (size_t at = 0; at < 64; at++) {
        memcpy(buf, good, len);
        buf[at] ^= 0x10;
        CHECK(expect_reject(buf, len, NULL) == CZ_E_PARSE);
    }

    /* wrong magic, wrong version */
    memcpy(buf, good, len);
    memcpy(buf, "CZR1CX", 6);
    CHECK(expect_reject(buf, len, "bad magic") == CZ_E_PARSE);
    memcpy(buf, good, len);
    buf[8] = 2;
    reseal(buf, len);
    CHECK(expect_reject(buf, len, "version 2") == CZ_E_PARSE);

    /* huge declared sizes are refused from the header alone: the reader
     * compares the size they imply with the file's size before allocating */
    uint64_t huge[] = {(uint64_t)1 << 40, (uint64_t)1 << 61, UINT64_MAX - 1, UINT64_MAX};
    for (int i = 0; i < 4; i++) {
        for (int field = 24; field <= 48; field += 8) { /* rows, nnz of A, B, C */
            memcpy(buf, good, len);
            memcpy(buf + field, &huge[i], 8);
            reseal(buf, len);
            CHECK(expect_reject(buf, len, "header declares") == CZ_E_PARSE);
        }
    }
    memcpy(buf, good, len);
    uint32_t big = 0xffffffffu;
    memcpy(buf + 20, &big, 4); /* num_aux */
    reseal(buf, len);
    CHECK(expect_reject(buf, len, "header declares") == CZ_E_PARSE);

    /* inconsistent content with a valid checksum */
    uint64_t rows = r.num_constraints;
    size_t a_rows = 64, a_cols = a_rows + (rows + 1) * 8;
    uint64_t nnz_a = r.a.row_start[rows];
    size_t a_vals = a_cols + (nnz_a + (nnz_a & 1)) * 4;
    /* a density bit the matrices do not justify (an aux absent from A) */
    uint32_t absent = UINT32_MAX;
    for (uint32_t v = 0; v < r.num_aux && absent == UINT32_MAX; v++)
        if (!cz_density_get(r.a_aux_density, v)) absent = v;
    size_t dens = len - 8 - 8 * (2 * ((r.num_aux + 63) / 64) + (r.num_inputs + 63) / 64);
    if (absent != UINT32_MAX) {
        memcpy(buf, good, len);
        buf[dens + absent / 8] ^= (uint8_t)(1u << (absent % 8));
        reseal(buf, len);
        CHECK(expect_reject(buf, len, "a_aux_density: bit") == CZ_E_PARSE);
    }
    /* row 1 ends before it starts (row 0 may break first: it now reaches
     * into row 2) */
    memcpy(buf, good, len);
    uint64_t moved = r.a.row_start[2] + 1;
    CHECK(rows > 3 && moved < nnz_a);
    memcpy(buf + a_rows + 8 * 1, &moved, 8);
    reseal(buf, len);
    CHECK(expect_reject(buf, len, "inconsistent") == CZ_E_PARSE);
    /* columns swapped inside a row with two entries or more */
    for (uint64_t j = 0; j < rows; j++) {
        if (r.a.row_start[j + 1] - r.a.row_start[j] < 2) continue;
        memcpy(buf, good, len);
        uint64_t e = r.a.row_start[j];
        uint32_t c0 = r.a.col[e], c1 = r.a.col[e + 1];
        memcpy(buf + a_cols + 4 * e, &c1, 4);
        memcpy(buf + a_cols + 4 * (e + 1), &c0, 4);
        reseal(buf, len);
        CHECK(expect_reject(buf, len, "columns must ascend") == CZ_E_PARSE);
        break;
    }
    /* a column beyond the variables */
    memcpy(buf, good, len);
    uint32_t far = r.num_inputs + r.num_aux;
    memcpy(buf + a_cols + 4 * (nnz_a - 1), &far, 4);
    reseal(buf, len);
    CHECK(expect_reject(buf, len, "beyond") == CZ_E_PARSE);
    /* a value >= r, and a value of zero */
    memcpy(buf, good, len);
    memset(buf + a_vals, 0xff, 32);
    reseal(buf, len);
    CHECK(expect_reject(buf, len, "not below r") == CZ_E_PARSE);
    memcpy(buf, good, len);
    memset(buf + a_vals, 0, 32);
    reseal(buf, len);
    CHECK(expect_reject(buf, len, "is zero") == CZ_E_PARSE);
    /* the good file still reads */
    cz_r1cs back;
    CHECK(cz_r1cs_read(&back, p, NULL) == CZ_OK);
    CHECK(r1cs_equal(&r, &back));
    cz_r1cs_free(&back);

    /* missing file; a structure that breaks an invariant is not written */
    cz_error err;
    char missing[512];
    path_of(missing, sizeof missing, "missing.r1cs");
    CHECK(cz_r1cs_read(&back, missing, &err) == CZ_E_NOT_FOUND);
    CHECK(strstr(err.message, "missing.r1cs") != NULL);
    if (r.a.row_start[rows] >= 2) {
        uint32_t save = r.a.col[0];
        r.a.col[0] = r.num_inputs + r.num_aux;
        char out[512];
        path_of(out, sizeof out, "invalid.r1cs");
        CHECK(cz_r1cs_write(&r, out, &err) == CZ_E_INVALID_ARG);
        CHECK(access(out, F_OK) != 0);
        r.a.col[0] = save;
    }

    free(good), free(buf);
    cz_r1cs_free(&r);
    circ_free(&c);
}

int main(void) {
    cz_test_init("r1cs/test_r1cs_file");
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cz_r1cs_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip(cz_test_iters(2000));
    test_rejections();
    const char *names[] = {"one.r1cs", "two.r1cs", "bad.r1cs", "good.r1cs"};
    for (int i = 0; i < 4; i++) {
        char p[512];
        path_of(p, sizeof p, names[i]);
        unlink(p);
    }
    rmdir(dir);
    return cz_test_finish("r1cs/test_r1cs_file");
}
