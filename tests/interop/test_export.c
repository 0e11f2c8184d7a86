/* The iden3 exporters (r1cs/export.h) byte by byte, without node: a tiny
 * circuit's .r1cs and .wtns are parsed here and compared with values written
 * out by hand from the format description (circom's r1cs binary format,
 * snarkjs's wtns). snarkjs itself reads the files in test_groth16_interop.c.
 * Also: refusals (appended input constraints missing or altered), and that
 * nothing is left behind when a write is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/harness.h"
#include "r1cs/backends.h"
#include "r1cs/export.h"

#define NAME "interop/export"

/* r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 */
static const char R_HEX_BE[] = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";

/* 2 x + 3 y = z with x, y aux, z input; then x * x = w (w aux). Values x = 4,
 * y = 5, z = 23, w = 16. Wires: 0 ONE, 1 z, 2 x, 3 y, 4 w. */
static void synth(cz_cs *cs) {
    int wit = cz_cs_has_witness(cs);
    cz_fr x, y, z, w, two, three;
    cz_fr_from_u64(&x, 4), cz_fr_from_u64(&y, 5), cz_fr_from_u64(&z, 23);
    cz_fr_from_u64(&w, 16), cz_fr_from_u64(&two, 2), cz_fr_from_u64(&three, 3);
    cz_var vx = cz_cs_alloc(cs, wit ? &x : NULL);
    cz_var vy = cz_cs_alloc(cs, wit ? &y : NULL);
    cz_var vz = cz_cs_alloc_input(cs, wit ? &z : NULL);
    cz_var vw = cz_cs_alloc(cs, wit ? &w : NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    cz_lc_add(&a, vy, &three), cz_lc_add(&a, vx, &two);
    cz_lc_add_var(&b, CZ_VAR_ONE), cz_lc_add_var(&c, vz);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&a, vx), cz_lc_add_var(&b, vx), cz_lc_add_var(&c, vw);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

static uint32_t u32le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t u64le(const uint8_t *p) {
    return (uint64_t)u32le(p) | (uint64_t)u32le(p + 4) << 32;
}

/* 32 bytes little-endian of a small value */
static int is_small_le(const uint8_t *p, uint64_t v) {
    for (int i = 0; i < 32; i++)
        if (p[i] != (i < 8 ? (uint8_t)(v >> (8 * i)) : 0)) return 0;
    return 1;
}

static int is_prime_le(const uint8_t *p) {
    uint8_t be[32];
    if (!cz_test_from_hex(be, R_HEX_BE, 32)) return 0;
    for (int i = 0; i < 32; i++)
        if (p[i] != be[31 - i]) return 0;
    return 1;
}

/* expects one LC of terms (wire, small coefficient) at *p and advances */
static void expect_lc(const uint8_t **p, size_t n, const uint32_t *wires, const uint64_t *coeffs) {
    CHECK(u32le(*p) == n);
    *p += 4;
    for (size_t k = 0; k < n; k++) {
        CHECK(u32le(*p) == wires[k]);
        CHECK(is_small_le(*p + 4, coeffs[k]));
        *p += 36;
    }
}

static void check_r1cs_bytes(const char *path) {
    size_t len;
    uint8_t *b = cz_test_read_file(path, &len);
    CHECK(b != NULL);
    if (!b) return;
    size_t hdr = 4 + 32 + 16 + 8 + 4;                    /* 64 */
    size_t cons = 2 * 12 + (2 + 1 + 1 + 1 + 1 + 1) * 36; /* 276 */
    size_t map = 5 * 8;
    CHECK(len == 12 + 12 + hdr + 12 + cons + 12 + map);
    if (len != 12 + 12 + hdr + 12 + cons + 12 + map) {
        free(b);
        return;
    }
    CHECK(memcmp(b, "r1cs", 4) == 0 && u32le(b + 4) == 1 && u32le(b + 8) == 3);
    const uint8_t *p = b + 12;
    CHECK(u32le(p) == 1 && u64le(p + 4) == hdr);
    p += 12;
    CHECK(u32le(p) == 32 && is_prime_le(p + 4));
    p += 36;
    CHECK(u32le(p) == 5);      /* nWires */
    CHECK(u32le(p + 4) == 0);  /* nPubOut */
    CHECK(u32le(p + 8) == 1);  /* nPubIn */
    CHECK(u32le(p + 12) == 3); /* nPrvIn */
    CHECK(u64le(p + 16) == 5); /* nLabels */
    CHECK(u32le(p + 24) == 2); /* nConstraints: the input constraints are not exported */
    p += 28;
    CHECK(u32le(p) == 2 && u64le(p + 4) == cons);
    p += 12;
    /* (2 x + 3 y) * ONE = z: terms ascending by wire */
    expect_lc(&p, 2, (const uint32_t[]){2, 3}, (const uint64_t[]){2, 3});
    expect_lc(&p, 1, (const uint32_t[]){0}, (const uint64_t[]){1});
    expect_lc(&p, 1, (const uint32_t[]){1}, (const uint64_t[]){1});
    /* x * x = w */
    expect_lc(&p, 1, (const uint32_t[]){2}, (const uint64_t[]){1});
    expect_lc(&p, 1, (const uint32_t[]){2}, (const uint64_t[]){1});
    expect_lc(&p, 1, (const uint32_t[]){4}, (const uint64_t[]){1});
    CHECK(u32le(p) == 3 && u64le(p + 4) == map);
    p += 12;
    for (uint64_t w = 0; w < 5; w++) CHECK(u64le(p + 8 * w) == w);
    free(b);
}

static void check_wtns_bytes(const char *path) {
    size_t len;
    uint8_t *b = cz_test_read_file(path, &len);
    CHECK(b != NULL);
    if (!b) return;
    CHECK(len == 12 + 12 + 40 + 12 + 5 * 32);
    if (len != 12 + 12 + 40 + 12 + 5 * 32) {
        free(b);
        return;
    }
    CHECK(memcmp(b, "wtns", 4) == 0 && u32le(b + 4) == 2 && u32le(b + 8) == 2);
    const uint8_t *p = b + 12;
    CHECK(u32le(p) == 1 && u64le(p + 4) == 40);
    CHECK(u32le(p + 12) == 32 && is_prime_le(p + 16) && u32le(p + 48) == 5);
    p += 52;
    CHECK(u32le(p) == 2 && u64le(p + 4) == 5 * 32);
    p += 12;
    const uint64_t want[5] = {1, 23, 4, 5, 16}; /* ONE, z, x, y, w */
    for (int i = 0; i < 5; i++) CHECK(is_small_le(p + 32 * i, want[i]));
    free(b);
}

int main(void) {
    cz_test_init(NAME);
    char dir[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cz_export_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char r1cs_path[300], wtns_path[300];
    snprintf(r1cs_path, sizeof r1cs_path, "%s/c.r1cs", dir);
    snprintf(wtns_path, sizeof wtns_path, "%s/c.wtns", dir);

    cz_error err = {0};
    cz_r1cs r;
    cz_cs *cs = cz_cs_record_new();
    synth(cs);
    CHECK(cz_record_finish(cs, &r, &err) == CZ_OK);
    cz_cs_destroy(cs);
    cz_fr *in, *aux;
    uint32_t ni, na;
    cs = cz_cs_witness_new();
    synth(cs);
    CHECK(cz_witness_finish(cs, &in, &ni, &aux, &na, &err) == CZ_OK);
    cz_cs_destroy(cs);

    CHECK(cz_r1cs_export_iden3(&r, r1cs_path, &err) == CZ_OK);
    check_r1cs_bytes(r1cs_path);
    CHECK(cz_wtns_export_iden3(in, ni, aux, na, wtns_path, &err) == CZ_OK);
    check_wtns_bytes(wtns_path);
    unlink(r1cs_path), unlink(wtns_path);

    /* an appended input constraint with another coefficient: refused, no file */
    cz_fr saved = r.a.val[r.a.row_start[r.num_constraints - 1]];
    cz_fr_from_u64(&r.a.val[r.a.row_start[r.num_constraints - 1]], 2);
    err.message[0] = 0;
    CHECK(cz_r1cs_export_iden3(&r, r1cs_path, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "input constraint") != NULL);
    CHECK(access(r1cs_path, F_OK) != 0);
    r.a.val[r.a.row_start[r.num_constraints - 1]] = saved;
    /* fewer rows than inputs (the input rows dropped) */
    uint64_t rows = r.num_constraints;
    r.num_constraints = r.a.rows = r.b.rows = r.c.rows = 1;
    CHECK(cz_r1cs_export_iden3(&r, r1cs_path, &err) == CZ_E_INVALID_ARG);
    r.num_constraints = r.a.rows = r.b.rows = r.c.rows = rows;
    CHECK(cz_r1cs_export_iden3(&r, r1cs_path, &err) == CZ_OK);
    /* a witness without ONE */
    CHECK(cz_wtns_export_iden3(in, 0, aux, na, wtns_path, &err) == CZ_E_INVALID_ARG);
    CHECK(access(wtns_path, F_OK) != 0);
    /* an unwritable place */
    char bad[320];
    snprintf(bad, sizeof bad, "%s/missing/c.wtns", dir);
    CHECK(cz_wtns_export_iden3(in, ni, aux, na, bad, &err) == CZ_E_IO);

    unlink(r1cs_path);
    rmdir(dir);
    free(in), free(aux);
    cz_r1cs_free(&r);
    return cz_test_finish(NAME);
}
