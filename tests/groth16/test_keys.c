/* Groth16 byte formats: .vk / .params written in bellperson's layout
 * (checked against a layout assembled here from the point encoders and
 * big-endian lengths), read back identical, and every kind of damage
 * (truncation, trailing bytes, absurd lengths, non-canonical coordinates,
 * points off the curve, outside the subgroup, the identity) refused with a
 * message naming the vector and index; proof bytes; the ChaCha20 block
 * function against RFC 8439. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/groth16.h"
#include "groth16/rng.h"
#include "harness/harness.h"
#include "harness/random_key.h"

#define G1B CZ_G1_UNCOMPRESSED_BYTES
#define G2B CZ_G2_UNCOMPRESSED_BYTES

/* ---- the layout, assembled independently of keys.c ---- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} buf;

static void put(buf *b, const void *data, size_t len) {
    if (b->len + len > b->cap) {
        b->cap = 2 * (b->len + len);
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

static void put_u32(buf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(b, x, 4);
}

static void put_g1(buf *b, const cz_g1_affine *p) {
    uint8_t x[G1B];
    cz_g1_affine_to_uncompressed(x, p);
    put(b, x, sizeof x);
}

static void put_g2(buf *b, const cz_g2_affine *p) {
    uint8_t x[G2B];
    cz_g2_affine_to_uncompressed(x, p);
    put(b, x, sizeof x);
}

static void layout_vk(buf *b, const cz_groth16_vk *vk) {
    put_g1(b, &vk->alpha_g1);
    put_g1(b, &vk->beta_g1);
    put_g2(b, &vk->beta_g2);
    put_g2(b, &vk->gamma_g2);
    put_g1(b, &vk->delta_g1);
    put_g2(b, &vk->delta_g2);
    put_u32(b, (uint32_t)vk->n_ic);
    for (size_t i = 0; i < vk->n_ic; i++) put_g1(b, &vk->ic[i]);
}

static void layout_params(buf *b, const cz_groth16_params *p) {
    layout_vk(b, &p->vk);
    put_u32(b, (uint32_t)p->n_h);
    for (size_t i = 0; i < p->n_h; i++) put_g1(b, &p->h[i]);
    put_u32(b, (uint32_t)p->n_l);
    for (size_t i = 0; i < p->n_l; i++) put_g1(b, &p->l[i]);
    put_u32(b, (uint32_t)p->n_a);
    for (size_t i = 0; i < p->n_a; i++) put_g1(b, &p->a[i]);
    put_u32(b, (uint32_t)p->n_b_g1);
    for (size_t i = 0; i < p->n_b_g1; i++) put_g1(b, &p->b_g1[i]);
    put_u32(b, (uint32_t)p->n_b_g2);
    for (size_t i = 0; i < p->n_b_g2; i++) put_g2(b, &p->b_g2[i]);
}

static int g1_vec_equal(const cz_g1_affine *a, const cz_g1_affine *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!cz_g1_affine_equal(&a[i], &b[i])) return 0;
    return 1;
}

static int vk_equal(const cz_groth16_vk *a, const cz_groth16_vk *b) {
    return cz_g1_affine_equal(&a->alpha_g1, &b->alpha_g1) &&
           cz_g1_affine_equal(&a->beta_g1, &b->beta_g1) &&
           cz_g2_affine_equal(&a->beta_g2, &b->beta_g2) &&
           cz_g2_affine_equal(&a->gamma_g2, &b->gamma_g2) &&
           cz_g1_affine_equal(&a->delta_g1, &b->delta_g1) &&
           cz_g2_affine_equal(&a->delta_g2, &b->delta_g2) && a->n_ic == b->n_ic &&
           g1_vec_equal(a->ic, b->ic, a->n_ic);
}

static int params_equal(const cz_groth16_params *a, const cz_groth16_params *b) {
    if (!vk_equal(&a->vk, &b->vk) || a->n_h != b->n_h || a->n_l != b->n_l || a->n_a != b->n_a ||
        a->n_b_g1 != b->n_b_g1 || a->n_b_g2 != b->n_b_g2)
        return 0;
    if (!g1_vec_equal(a->h, b->h, a->n_h) || !g1_vec_equal(a->l, b->l, a->n_l) ||
        !g1_vec_equal(a->a, b->a, a->n_a) || !g1_vec_equal(a->b_g1, b->b_g1, a->n_b_g1))
        return 0;
    for (size_t i = 0; i < a->n_b_g2; i++)
        if (!cz_g2_affine_equal(&a->b_g2[i], &b->b_g2[i])) return 0;
    return 1;
}

/* Decoding `bytes` must fail with `status` and a message containing `text`. */
static void expect_params_error(const uint8_t *bytes, size_t len, cz_groth16_check check,
                                cz_status status, const char *text) {
    cz_groth16_params p;
    cz_error err = {0};
    cz_status st = cz_groth16_params_decode(&p, bytes, len, check, &err);
    CHECK(st == status);
    CHECK(strstr(err.message, text) != NULL);
    CHECK(p.h == NULL && p.vk.ic == NULL); /* zeroed on failure */
    if (st != status || !strstr(err.message, text))
        fprintf(stderr, "  want %s \"%s\", got %s \"%s\"\n", cz_status_name(status), text,
                cz_status_name(st), err.message);
}

static void expect_vk_error(const uint8_t *bytes, size_t len, cz_status status, const char *text) {
    cz_groth16_vk vk;
    cz_error err = {0};
    cz_status st = cz_groth16_vk_decode(&vk, bytes, len, CZ_GROTH16_CHECKED, &err);
    CHECK(st == status);
    CHECK(strstr(err.message, text) != NULL);
    if (st != status || !strstr(err.message, text))
        fprintf(stderr, "  want %s \"%s\", got %s \"%s\"\n", cz_status_name(status), text,
                cz_status_name(st), err.message);
}

/* A point on y^2 = x^3 + 4 outside G1 (the cofactor is large, so a random
 * point on the curve is almost never in G1; checked with the subgroup test
 * and, independently, by r * P != O). */
static void g1_outside_subgroup(uint8_t out[G1B]) {
    for (;;) {
        cz_fp x, y, rhs, four;
        uint8_t b[64];
        cz_test_rand_bytes(b, sizeof b);
        cz_fp_from_bytes_le_reduce(&x, b, sizeof b);
        cz_fp_sqr(&rhs, &x);
        cz_fp_mul(&rhs, &rhs, &x);
        cz_fp_from_u64(&four, 4);
        cz_fp_add(&rhs, &rhs, &four);
        if (!cz_fp_sqrt_var(&y, &rhs)) continue;
        cz_g1_affine p = {x, y};
        cz_g1 j, rp;
        cz_g1_from_affine(&j, &p);
        cz_g1_mul_limbs_var(&rp, &j, cz_fr_modulus, CZ_FR_LIMBS);
        if (cz_g1_is_infinity(&rp)) continue;
        CHECK(cz_g1_affine_is_on_curve(&p) && !cz_g1_affine_is_in_subgroup(&p));
        cz_g1_affine_to_uncompressed(out, &p);
        return;
    }
}

static void test_chacha20(void) {
    /* RFC 8439 §2.3.2: key 00..1f, block counter 1, nonce 000000090000004a00000000
     * (state words 12..15 = 1, 0x09000000, 0x4a000000, 0) */
    static const uint8_t want1[64] = {
        0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15, 0x50, 0x0f, 0xdd, 0x1f, 0xa3,
        0x20, 0x71, 0xc4, 0xc7, 0xd1, 0xf4, 0xc7, 0x33, 0xc0, 0x68, 0x03, 0x04, 0x22,
        0xaa, 0x9a, 0xc3, 0xd4, 0x6c, 0x4e, 0xd2, 0x82, 0x64, 0x46, 0x07, 0x9f, 0xaa,
        0x09, 0x14, 0xc2, 0xd7, 0x05, 0xd9, 0x8b, 0x02, 0xa2, 0xb5, 0x12, 0x9c, 0xd1,
        0xde, 0x16, 0x4e, 0xb9, 0xcb, 0xd0, 0x83, 0xe8, 0xa2, 0x50, 0x3c, 0x4e};
    /* RFC 8439 A.1 test vector 1: all-zero key, counter and nonce */
    static const uint8_t want0[64] = {
        0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90, 0x40, 0x5d, 0x6a, 0xe5, 0x53,
        0x86, 0xbd, 0x28, 0xbd, 0xd2, 0x19, 0xb8, 0xa0, 0x8d, 0xed, 0x1a, 0xa8, 0x36,
        0xef, 0xcc, 0x8b, 0x77, 0x0d, 0xc7, 0xda, 0x41, 0x59, 0x7c, 0x51, 0x57, 0x48,
        0x8d, 0x77, 0x24, 0xe0, 0x3f, 0xb8, 0xd8, 0x4a, 0x37, 0x6a, 0x43, 0xb8, 0xf4,
        0x15, 0x18, 0xa1, 0x1c, 0xc3, 0x87, 0xb6, 0x69, 0xb2, 0xee, 0x65, 0x86};
    uint8_t key[32], out[64];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    cz_chacha20_block(out, key, 1 | (uint64_t)0x09000000 << 32, 0x4a000000);
    CHECK(memcmp(out, want1, 64) == 0);
    memset(key, 0, 32);
    cz_chacha20_block(out, key, 0, 0);
    CHECK(memcmp(out, want0, 64) == 0);

    /* the stream is the concatenation of blocks, whatever the read sizes */
    uint8_t stream_bytes[200], blocks[256];
    cz_chacha20_stream s;
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)(3 * i + 1);
    cz_chacha20_stream_init(&s, key, 77);
    size_t at = 0;
    for (size_t step = 1; at < sizeof stream_bytes; step = step * 3 % 70 + 1) {
        size_t take = step < sizeof stream_bytes - at ? step : sizeof stream_bytes - at;
        cz_chacha20_stream_bytes(&s, stream_bytes + at, take);
        at += take;
    }
    for (int b = 0; b < 4; b++) cz_chacha20_block(blocks + 64 * b, key, (uint64_t)b, 77);
    CHECK(memcmp(stream_bytes, blocks, sizeof stream_bytes) == 0);
}

static void test_round_trip(const char *dir) {
    cz_groth16_params p;
    cz_test_random_params(&p, 3, 7, 5, 6, 4);
    char vk_path[512], params_path[512];
    snprintf(vk_path, sizeof vk_path, "%s/k.vk", dir);
    snprintf(params_path, sizeof params_path, "%s/k.params", dir);
    cz_error err = {0};
    CHECK(cz_groth16_vk_write(&p.vk, vk_path, &err) == CZ_OK);
    CHECK(cz_groth16_params_write(&p, params_path, &err) == CZ_OK);

    /* the files are exactly the layout */
    buf want_vk = {0}, want_params = {0};
    layout_vk(&want_vk, &p.vk);
    layout_params(&want_params, &p);
    size_t vk_len = 0, params_len = 0;
    uint8_t *vk_bytes = cz_test_read_file(vk_path, &vk_len),
            *params_bytes = cz_test_read_file(params_path, &params_len);
    CHECK(vk_bytes && vk_len == want_vk.len && memcmp(vk_bytes, want_vk.p, vk_len) == 0);
    CHECK(vk_len == 868 + 96 * 3);
    CHECK(vk_len == cz_groth16_vk_encoded_size(&p.vk));
    CHECK(params_bytes && params_len == want_params.len &&
          memcmp(params_bytes, want_params.p, params_len) == 0);
    CHECK(params_len == cz_groth16_params_encoded_size(&p));

    /* read back (each mode), equal, and written again byte-identical */
    for (int mode = 0; mode < 3; mode++) {
        cz_groth16_check check = mode == 0   ? CZ_GROTH16_CHECKED
                                 : mode == 1 ? CZ_GROTH16_UNCHECKED
                                             : CZ_GROTH16_TRUSTED;
        cz_groth16_params q;
        cz_groth16_vk vk;
        CHECK(cz_groth16_params_read(&q, params_path, check, &err) == CZ_OK);
        CHECK(cz_groth16_vk_read(&vk, vk_path, check, &err) == CZ_OK);
        CHECK(params_equal(&p, &q));
        CHECK(vk_equal(&p.vk, &vk));
        char again[600];
        snprintf(again, sizeof again, "%s.again", params_path);
        CHECK(cz_groth16_params_write(&q, again, &err) == CZ_OK);
        size_t len2 = 0;
        uint8_t *bytes2 = cz_test_read_file(again, &len2);
        CHECK(bytes2 && len2 == params_len && memcmp(bytes2, params_bytes, len2) == 0);
        free(bytes2);
        remove(again);
        cz_groth16_params_free(&q);
        cz_groth16_vk_free(&vk);
    }

    /* empty vectors are allowed except ic */
    cz_groth16_params e;
    cz_test_random_params(&e, 1, 0, 0, 0, 0);
    CHECK(cz_groth16_params_write(&e, params_path, &err) == CZ_OK);
    cz_groth16_params q;
    CHECK(cz_groth16_params_read(&q, params_path, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    CHECK(params_equal(&e, &q) && q.h == NULL && q.n_b_g2 == 0);
    cz_groth16_params_free(&q);
    cz_groth16_params_free(&e);

    /* files: missing, empty, truncated on disk (path in the message) */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.params", dir);
    CHECK(cz_groth16_params_read(&q, missing, CZ_GROTH16_CHECKED, &err) == CZ_E_NOT_FOUND);
    CHECK(strstr(err.message, "none.params") != NULL);
    cz_test_write_file(params_path, params_bytes, 0);
    CHECK(cz_groth16_params_read(&q, params_path, CZ_GROTH16_CHECKED, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "truncated at vk.alpha_g1") != NULL);
    cz_test_write_file(params_path, params_bytes, params_len - 1);
    CHECK(cz_groth16_params_read(&q, params_path, CZ_GROTH16_CHECKED, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, params_path) != NULL && strstr(err.message, "b_g2") != NULL);
    cz_test_write_file(vk_path, vk_bytes, vk_len - 96);
    cz_groth16_vk vk_bad;
    CHECK(cz_groth16_vk_read(&vk_bad, vk_path, CZ_GROTH16_CHECKED, &err) == CZ_E_PARSE);
    CHECK(vk_bad.ic == NULL); /* zeroed */
    remove(vk_path);
    remove(params_path);

    free(want_vk.p);
    free(want_params.p);
    free(vk_bytes);
    free(params_bytes);
    cz_groth16_params_free(&p);
}

static void test_rejections(void) {
    cz_groth16_params p;
    cz_test_random_params(&p, 2, 7, 5, 6, 4);
    buf good = {0};
    layout_params(&good, &p);
    size_t len = good.len;
    uint8_t *bad = malloc(len + 8);
    /* offsets */
    size_t vk_fixed = 3 * G1B + 3 * G2B;
    size_t off_ic = vk_fixed + 4; /* ic[0] */
    size_t off_nh = off_ic + 2 * G1B, off_h = off_nh + 4;
    size_t off_nl = off_h + 7 * G1B, off_l = off_nl + 4;
    size_t off_na = off_l + 5 * G1B, off_a = off_na + 4;
    size_t off_nb1 = off_a + 6 * G1B, off_b1 = off_nb1 + 4;
    size_t off_nb2 = off_b1 + 4 * G1B, off_b2 = off_nb2 + 4;
    CHECK(off_b2 + 4 * G2B == len);

    cz_groth16_params q;
    cz_error err;
    CHECK(cz_groth16_params_decode(&q, good.p, len, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    cz_groth16_params_free(&q);

    /* every truncation fails cleanly (trusted mode keeps the sweep fast) */
    int all_parse = 1;
    for (size_t cut = 0; cut < len; cut++) {
        cz_status st = cz_groth16_params_decode(&q, good.p, cut, CZ_GROTH16_TRUSTED, &err);
        if (st != CZ_E_PARSE || (!strstr(err.message, "truncated") && !strstr(err.message, "left")))
            all_parse = 0;
    }
    CHECK(all_parse);
    expect_params_error(good.p, off_l + 2 * G1B + 10, CZ_GROTH16_CHECKED, CZ_E_PARSE,
                        "params: l: length 5 needs 480 bytes");
    expect_params_error(good.p, off_nb2 + 2, CZ_GROTH16_CHECKED, CZ_E_PARSE,
                        "truncated at the length of b_g2");

    /* trailing bytes */
    memcpy(bad, good.p, len);
    bad[len] = 0;
    expect_params_error(bad, len + 1, CZ_GROTH16_CHECKED, CZ_E_PARSE,
                        "params: 1 trailing bytes after the end (b_g2 has 4 points)");

    /* absurd length: refused before any allocation */
    memcpy(bad, good.p, len);
    bad[off_nl] = bad[off_nl + 1] = bad[off_nl + 2] = bad[off_nl + 3] = 0xff;
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_PARSE,
                        "params: l: length 4294967295 needs 412316860320 bytes");
    memcpy(bad, good.p, len);
    bad[off_nh + 3] = 8; /* one point too many: everything after is misaligned */
    CHECK(cz_groth16_params_decode(&q, bad, len, CZ_GROTH16_TRUSTED, &err) != CZ_OK);

    /* non-canonical coordinate: x of l[2] set to p */
    memcpy(bad, good.p, len);
    uint8_t p_be[48];
    {
        uint64_t limbs[CZ_FP_LIMBS];
        memcpy(limbs, cz_fp_modulus, sizeof limbs);
        for (int i = 0; i < 48; i++) p_be[47 - i] = (uint8_t)(limbs[i / 8] >> (8 * (i % 8)));
    }
    memcpy(bad + off_l + 2 * G1B, p_be, 48);
    /* and l[4] broken too: the lowest index is the one reported */
    bad[off_l + 4 * G1B + 95] ^= 1;
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_RANGE, "params: l[2]: ");
    expect_params_error(bad, len, CZ_GROTH16_TRUSTED, CZ_E_RANGE, "params: l[2]: ");

    /* off the curve: a bit of y of h[3] */
    memcpy(bad, good.p, len);
    bad[off_h + 3 * G1B + 95] ^= 1;
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_NOT_ON_CURVE, "params: h[3]: ");
    expect_params_error(bad, len, CZ_GROTH16_UNCHECKED, CZ_E_NOT_ON_CURVE, "params: h[3]: ");
    /* trusted mode does not look at the curve */
    CHECK(cz_groth16_params_decode(&q, bad, len, CZ_GROTH16_TRUSTED, &err) == CZ_OK);
    cz_groth16_params_free(&q);
    /* G2 off the curve: b_g2[3] */
    memcpy(bad, good.p, len);
    bad[off_b2 + 3 * G2B + 191] ^= 4;
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_NOT_ON_CURVE, "params: b_g2[3]: ");

    /* outside the subgroup: only the checked mode sees it */
    memcpy(bad, good.p, len);
    g1_outside_subgroup(bad + off_a + 5 * G1B);
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_NOT_IN_SUBGROUP, "params: a[5]: ");
    CHECK(cz_groth16_params_decode(&q, bad, len, CZ_GROTH16_UNCHECKED, &err) == CZ_OK);
    cz_groth16_params_free(&q);
    memcpy(bad, good.p, len);
    g1_outside_subgroup(bad + 0);
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_NOT_IN_SUBGROUP,
                        "params: vk.alpha_g1: ");

    /* the identity, anywhere */
    static const uint8_t inf_g1[G1B] = {0x40}, inf_g2[G2B] = {0x40};
    memcpy(bad, good.p, len);
    memcpy(bad + off_b2 + G2B, inf_g2, G2B);
    expect_params_error(bad, len, CZ_GROTH16_TRUSTED, CZ_E_IDENTITY, "params: b_g2[1]: ");
    memcpy(bad, good.p, len);
    memcpy(bad + off_b1, inf_g1, G1B);
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_IDENTITY, "params: b_g1[0]: ");
    memcpy(bad, good.p, len);
    memcpy(bad + off_ic + G1B, inf_g1, G1B);
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_IDENTITY, "params: vk.ic[1]: ");
    memcpy(bad, good.p, len);
    memcpy(bad + 2 * G1B + G2B, inf_g2, G2B); /* gamma_g2 */
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_IDENTITY, "params: vk.gamma_g2: ");
    /* a compressed flag in an uncompressed file */
    memcpy(bad, good.p, len);
    bad[off_a + G1B] |= 0x80;
    expect_params_error(bad, len, CZ_GROTH16_CHECKED, CZ_E_PARSE, "params: a[1]: ");

    /* vk on its own */
    buf vk = {0};
    layout_vk(&vk, &p.vk);
    cz_groth16_vk v;
    CHECK(cz_groth16_vk_decode(&v, vk.p, vk.len, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    CHECK(vk_equal(&v, &p.vk));
    cz_groth16_vk_free(&v);
    memcpy(bad, vk.p, vk.len);
    bad[vk.len] = 7;
    expect_vk_error(bad, vk.len + 1, CZ_E_PARSE,
                    "vk: 1 trailing bytes after the end (ic has 2 points)");
    expect_vk_error(vk.p, vk.len - 1, CZ_E_PARSE,
                    "vk: ic: length 2 needs 192 bytes, only 191 left");
    expect_vk_error(vk.p, 100, CZ_E_PARSE, "vk: truncated at beta_g1");
    memcpy(bad, vk.p, vk.len);
    memcpy(bad + 2 * G1B + 2 * G2B, inf_g1, G1B);
    expect_vk_error(bad, vk.len, CZ_E_IDENTITY, "vk: delta_g1: ");
    memcpy(bad, vk.p, vk.len);
    memset(bad + vk_fixed, 0, 4); /* n_ic = 0, then the ic bytes trail */
    expect_vk_error(bad, vk_fixed + 4, CZ_E_PARSE, "vk: ic is empty");

    free(vk.p);
    free(good.p);
    free(bad);
    cz_groth16_params_free(&p);
}

static void test_proof_bytes(void) {
    for (unsigned it = 0; it < cz_test_iters(20); it++) {
        cz_groth16_proof pr, back;
        cz_test_random_g1(&pr.a);
        cz_test_random_g2(&pr.b);
        cz_test_random_g1(&pr.c);
        uint8_t bytes[CZ_GROTH16_PROOF_BYTES], part[96];
        cz_groth16_proof_encode(bytes, &pr);
        /* layout: compressed A || B || C */
        cz_g1_affine_to_compressed(part, &pr.a);
        CHECK(memcmp(bytes, part, 48) == 0);
        cz_g2_affine_to_compressed(part, &pr.b);
        CHECK(memcmp(bytes + 48, part, 96) == 0);
        cz_g1_affine_to_compressed(part, &pr.c);
        CHECK(memcmp(bytes + 144, part, 48) == 0);
        CHECK((bytes[0] & 0x80) && (bytes[48] & 0x80) && (bytes[144] & 0x80));
        cz_error err;
        CHECK(cz_groth16_proof_decode(&back, bytes, &err) == CZ_OK);
        CHECK(cz_g1_affine_equal(&back.a, &pr.a) && cz_g2_affine_equal(&back.b, &pr.b) &&
              cz_g1_affine_equal(&back.c, &pr.c));
    }
    cz_groth16_proof pr, back;
    cz_test_random_g1(&pr.a);
    cz_test_random_g2(&pr.b);
    cz_test_random_g1(&pr.c);
    uint8_t good[CZ_GROTH16_PROOF_BYTES], bad[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(good, &pr);
    cz_error err;
    /* identity A, B, C */
    static const uint8_t inf[96] = {0xc0};
    memcpy(bad, good, sizeof bad);
    memcpy(bad, inf, 48);
    CHECK(cz_groth16_proof_decode(&back, bad, &err) == CZ_E_IDENTITY &&
          strstr(err.message, "proof: A: "));
    memcpy(bad, good, sizeof bad);
    memcpy(bad + 48, inf, 96);
    CHECK(cz_groth16_proof_decode(&back, bad, &err) == CZ_E_IDENTITY &&
          strstr(err.message, "proof: B: "));
    memcpy(bad, good, sizeof bad);
    memcpy(bad + 144, inf, 48);
    CHECK(cz_groth16_proof_decode(&back, bad, &err) == CZ_E_IDENTITY &&
          strstr(err.message, "proof: C: "));
    /* uncompressed flag missing */
    memcpy(bad, good, sizeof bad);
    bad[48] &= 0x7f;
    CHECK(cz_groth16_proof_decode(&back, bad, &err) == CZ_E_PARSE &&
          strstr(err.message, "proof: B: "));
    /* x >= p in C */
    memcpy(bad, good, sizeof bad);
    memset(bad + 144, 0xff, 48);
    bad[144] = 0x9f;
    CHECK(cz_groth16_proof_decode(&back, bad, &err) == CZ_E_RANGE &&
          strstr(err.message, "proof: C: "));
    /* a point of E(Fp) outside G1 as A, compressed */
    uint8_t unc[G1B];
    g1_outside_subgroup(unc);
    cz_g1_affine outside;
    CHECK(cz_g1_affine_from_uncompressed(&outside, unc, CZ_DECODE_SKIP_SUBGROUP, &err) == CZ_OK);
    memcpy(bad, good, sizeof bad);
    cz_g1_affine_to_compressed(bad, &outside);
    CHECK(cz_g1_affine_from_compressed(&back.a, bad, CZ_DECODE_SKIP_SUBGROUP, &err) == CZ_OK);
    CHECK(cz_groth16_proof_decode(&back, bad, &err) == CZ_E_NOT_IN_SUBGROUP &&
          strstr(err.message, "proof: A: "));
    /* x with no square root (not on the curve): search for one */
    for (int tries = 0; tries < 1000; tries++) {
        memcpy(bad, good, sizeof bad);
        bad[144 + 47] ^= (uint8_t)(tries + 1);
        cz_status st = cz_groth16_proof_decode(&back, bad, &err);
        if (st == CZ_E_NOT_ON_CURVE) {
            CHECK(strstr(err.message, "proof: C: ") != NULL);
            break;
        }
        CHECK(tries < 999);
    }
}

int main(void) {
    cz_test_init("groth16/keys");
    char dir[] = "/tmp/cz_groth16_keys_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_chacha20();
    test_round_trip(dir);
    test_rejections();
    test_proof_bytes();
    rmdir(dir);
    return cz_test_finish("groth16/keys");
}
