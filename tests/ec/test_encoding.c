/* zcash-format G1/G2 encodings against @noble/curves:
 *   ec_g{1,2}_encoding.txt  valid points with noble's compressed and
 *                           uncompressed bytes (both directions)
 *   ec_g{1,2}_invalid.txt   malformed encodings, one defect each, with the
 *                           status a fully checking decoder must return
 * (made by tests/oracle/gen_ec.mjs), the generators' published bytes, the
 * infinity encodings, each decoder flag, messages that name the defect, and
 * the batch decoders against the single ones. */
#include <stdlib.h>
#include <string.h>

#include "ec/encoding.h"
#include "harness/harness.h"

/* One table per group and form so that the checks below run on all four. */
typedef union {
    cz_g1_affine g1;
    cz_g2_affine g2;
} any_affine;

typedef struct {
    const char *name; /* as the decoder's messages start: "G1 compressed" */
    size_t bytes;
    int compressed;
    size_t raw_bytes;
    void (*encode)(uint8_t *, const any_affine *);
    cz_status (*decode)(any_affine *, const uint8_t *, unsigned, cz_error *);
    int (*read_raw)(any_affine *, const uint8_t *);
    int (*equal)(const any_affine *, const any_affine *);
    int (*is_infinity)(const any_affine *);
    void (*neg)(any_affine *, const any_affine *);
    void (*random_point)(any_affine *); /* random multiple of the generator */
} form_ops;

static void rand_fr(cz_fr *r) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(r, b, sizeof b);
}

static void g1_enc_c(uint8_t *o, const any_affine *p) {
    cz_g1_affine_to_compressed(o, &p->g1);
}
static void g1_enc_u(uint8_t *o, const any_affine *p) {
    cz_g1_affine_to_uncompressed(o, &p->g1);
}
static void g2_enc_c(uint8_t *o, const any_affine *p) {
    cz_g2_affine_to_compressed(o, &p->g2);
}
static void g2_enc_u(uint8_t *o, const any_affine *p) {
    cz_g2_affine_to_uncompressed(o, &p->g2);
}
static cz_status g1_dec_c(any_affine *r, const uint8_t *in, unsigned f, cz_error *e) {
    return cz_g1_affine_from_compressed(&r->g1, in, f, e);
}
static cz_status g1_dec_u(any_affine *r, const uint8_t *in, unsigned f, cz_error *e) {
    return cz_g1_affine_from_uncompressed(&r->g1, in, f, e);
}
static cz_status g2_dec_c(any_affine *r, const uint8_t *in, unsigned f, cz_error *e) {
    return cz_g2_affine_from_compressed(&r->g2, in, f, e);
}
static cz_status g2_dec_u(any_affine *r, const uint8_t *in, unsigned f, cz_error *e) {
    return cz_g2_affine_from_uncompressed(&r->g2, in, f, e);
}
static int g1_read_raw(any_affine *r, const uint8_t *b) {
    return cz_fp_from_bytes_be(&r->g1.x, b) && cz_fp_from_bytes_be(&r->g1.y, b + CZ_FP_BYTES);
}
static int g2_read_raw(any_affine *r, const uint8_t *b) {
    return cz_fp_from_bytes_be(&r->g2.x.c0, b) && cz_fp_from_bytes_be(&r->g2.x.c1, b + 48) &&
           cz_fp_from_bytes_be(&r->g2.y.c0, b + 96) && cz_fp_from_bytes_be(&r->g2.y.c1, b + 144);
}
static int g1_equal(const any_affine *a, const any_affine *b) {
    return cz_g1_affine_equal(&a->g1, &b->g1);
}
static int g2_equal(const any_affine *a, const any_affine *b) {
    return cz_g2_affine_equal(&a->g2, &b->g2);
}
static int g1_is_inf(const any_affine *a) {
    return cz_g1_affine_is_infinity(&a->g1);
}
static int g2_is_inf(const any_affine *a) {
    return cz_g2_affine_is_infinity(&a->g2);
}
static void g1_neg(any_affine *r, const any_affine *a) {
    cz_g1_affine_neg(&r->g1, &a->g1);
}
static void g2_neg(any_affine *r, const any_affine *a) {
    cz_g2_affine_neg(&r->g2, &a->g2);
}
static void g1_random(any_affine *r) {
    cz_g1 g;
    cz_fr k;
    rand_fr(&k);
    cz_g1_generator(&g);
    cz_g1_mul_var(&g, &g, &k);
    cz_g1_to_affine(&r->g1, &g);
}
static void g2_random(any_affine *r) {
    cz_g2 g;
    cz_fr k;
    rand_fr(&k);
    cz_g2_generator(&g);
    cz_g2_mul_var(&g, &g, &k);
    cz_g2_to_affine(&r->g2, &g);
}

static const form_ops g1c = {"G1 compressed", 48,       1,         96,     g1_enc_c, g1_dec_c,
                             g1_read_raw,     g1_equal, g1_is_inf, g1_neg, g1_random};
static const form_ops g1u = {"G1 uncompressed", 96,       0,         96,     g1_enc_u, g1_dec_u,
                             g1_read_raw,       g1_equal, g1_is_inf, g1_neg, g1_random};
static const form_ops g2c = {"G2 compressed", 96,       1,         192,    g2_enc_c, g2_dec_c,
                             g2_read_raw,     g2_equal, g2_is_inf, g2_neg, g2_random};
static const form_ops g2u = {"G2 uncompressed", 192,      0,         192,    g2_enc_u, g2_dec_u,
                             g2_read_raw,       g2_equal, g2_is_inf, g2_neg, g2_random};

#define MAXB 192

static int starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Decodes in with `flags` and checks the status, that err carries it with a
 * message starting with the form's name, and (on failure) that *out was not
 * touched. Returns the status. */
static cz_status decode_checked(const form_ops *f, any_affine *out, const uint8_t *in,
                                unsigned flags, cz_error *err) {
    any_affine before;
    memset(&before, 0xa5, sizeof before);
    *out = before;
    memset(err, 0, sizeof *err);
    cz_status st = f->decode(out, in, flags, err);
    if (st != CZ_OK) {
        CHECK(err->status == st);
        CHECK(starts_with(err->message, f->name));
        CHECK(memcmp(out, &before, sizeof before) == 0);
        /* a NULL error report is allowed */
        any_affine o2;
        CHECK(f->decode(&o2, in, flags, NULL) == st);
    }
    return st;
}

static const char *status_short(cz_status st) {
    const char *n = cz_status_name(st);
    return starts_with(n, "CZ_E_") ? n + 5 : n;
}

/* ---- valid encodings, both directions ---- */

static void check_valid_vectors(const form_ops *fc, const form_ops *fu, const char *file,
                                const char *generator_compressed_hex) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, file));
    if (!vf.file) return;
    unsigned n = 0;
    while (cz_vector_next(&vf)) {
        int before = cz_test_failures;
        uint8_t raw[MAXB], c[MAXB], u[MAXB], out[MAXB];
        any_affine p, d;
        cz_error err;
        if (!cz_vector_hex(&vf, 0, raw, fc->raw_bytes) || !cz_vector_hex(&vf, 1, c, fc->bytes) ||
            !cz_vector_hex(&vf, 2, u, fu->bytes))
            continue;
        CHECK(fc->read_raw(&p, raw));
        n++;
        fc->encode(out, &p);
        CHECK(memcmp(out, c, fc->bytes) == 0);
        fu->encode(out, &p);
        CHECK(memcmp(out, u, fu->bytes) == 0);
        static const unsigned flag_sets[] = {0, CZ_DECODE_SKIP_SUBGROUP, CZ_DECODE_SKIP_CURVE};
        for (size_t i = 0; i < sizeof flag_sets / sizeof flag_sets[0]; i++) {
            CHECK(decode_checked(fc, &d, c, flag_sets[i], &err) == CZ_OK);
            CHECK(fc->equal(&d, &p));
            CHECK(decode_checked(fu, &d, u, flag_sets[i], &err) == CZ_OK);
            CHECK(fu->equal(&d, &p));
        }
        /* line 1 is the generator: its published compressed bytes */
        if (n == 1) {
            uint8_t want[MAXB];
            for (size_t i = 0; i < fc->bytes; i++)
                sscanf(generator_compressed_hex + 2 * i, "%2hhx", &want[i]);
            CHECK(memcmp(c, want, fc->bytes) == 0);
        }
        if (fc->is_infinity(&p)) {
            CHECK(c[0] == 0xc0 && u[0] == 0x40);
            for (size_t i = 1; i < fc->bytes; i++) CHECK(c[i] == 0);
            for (size_t i = 1; i < fu->bytes; i++) CHECK(u[i] == 0);
            CHECK(decode_checked(fc, &d, c, CZ_DECODE_REJECT_INFINITY, &err) == CZ_E_IDENTITY);
            CHECK(decode_checked(fu, &d, u, CZ_DECODE_REJECT_INFINITY, &err) == CZ_E_IDENTITY);
        } else {
            CHECK(decode_checked(fc, &d, c, CZ_DECODE_REJECT_INFINITY, &err) == CZ_OK);
            CHECK(decode_checked(fu, &d, u, CZ_DECODE_REJECT_INFINITY, &err) == CZ_OK);
        }
        if (cz_test_failures != before) fprintf(stderr, "  (%s line %lu)\n", vf.path, vf.lineno);
    }
    cz_vector_close(&vf);
    CHECK(n >= 100);
    printf("%s/%s: %u noble encodings\n", fc->name, fu->name, n);
}

/* The generators from point.c encode to the published bytes. */
static void check_generators(void) {
    static const char g1_hex[] = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
                                 "6c55e83ff97a1aeffb3af00adb22c6bb";
    uint8_t out[48], want[48];
    for (size_t i = 0; i < 48; i++) sscanf(g1_hex + 2 * i, "%2hhx", &want[i]);
    cz_g1_affine g;
    cz_g1_affine_generator(&g);
    cz_g1_affine_to_compressed(out, &g);
    CHECK(memcmp(out, want, 48) == 0);
}

/* ---- malformed encodings ---- */

/* Which coordinate of a well-flagged encoding is >= p (for the RANGE
 * message): the first 48-byte block that does not read as an Fp element. */
static const char *first_noncanonical(const form_ops *f, const uint8_t *in, size_t *offset) {
    static const char *g1_names[] = {"x", "y"};
    static const char *g2_names[] = {"x.c1", "x.c0", "y.c1", "y.c0"};
    int g2 = f->raw_bytes == 192;
    for (size_t b = 0; b < f->bytes / 48; b++) {
        uint8_t block[48];
        memcpy(block, in + 48 * b, 48);
        if (b == 0) block[0] &= 0x1f;
        cz_fp t;
        if (!cz_fp_from_bytes_be(&t, block)) {
            *offset = 48 * b;
            return g2 ? g2_names[b] : g1_names[b];
        }
    }
    return NULL;
}

static void check_invalid_vectors(const form_ops *fc, const form_ops *fu, const char *file) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, file));
    if (!vf.file) return;
    unsigned n = 0, by_status[16] = {0};
    while (cz_vector_next(&vf)) {
        int before = cz_test_failures;
        size_t len = cz_vector_hex_len(&vf, 0);
        const form_ops *f = len == fc->bytes ? fc : fu;
        CHECK(len == fc->bytes || len == fu->bytes);
        uint8_t in[MAXB];
        if (vf.nfields < 3 || !cz_vector_hex(&vf, 0, in, len)) continue;
        const char *want = vf.fields[1];
        n++;
        any_affine d;
        cz_error err;
        cz_status st = decode_checked(f, &d, in, 0, &err);
        CHECK(strcmp(status_short(st), want) == 0);
        if (st < 16) by_status[st]++;
        if (getenv("CZ_TEST_VERBOSE")) printf("  %-16s %s\n", want, err.message);

        /* the message names the defect */
        switch (st) {
        case CZ_E_PARSE: CHECK(strstr(err.message, "byte") && strstr(err.message, "flag")); break;
        case CZ_E_RANGE: {
            size_t off = 0;
            const char *coord = first_noncanonical(f, in, &off);
            char expect[64];
            CHECK(coord != NULL);
            if (!coord) break;
            snprintf(expect, sizeof expect, ": %s (bytes %zu..%zu)", coord, off, off + 47);
            CHECK(strstr(err.message, expect) != NULL);
            break;
        }
        case CZ_E_NOT_ON_CURVE: CHECK(strstr(err.message, "curve") != NULL); break;
        case CZ_E_NOT_IN_SUBGROUP: CHECK(strstr(err.message, "subgroup") != NULL); break;
        default: break;
        }

        /* the same defect with the subgroup check skipped; a point not in the
         * subgroup is then accepted and is noble's point */
        cz_status st2 = decode_checked(f, &d, in, CZ_DECODE_SKIP_SUBGROUP, &err);
        if (st == CZ_E_NOT_IN_SUBGROUP) {
            uint8_t raw[MAXB];
            any_affine want_point;
            CHECK(st2 == CZ_OK);
            if (cz_vector_hex(&vf, 2, raw, f->raw_bytes)) {
                CHECK(f->read_raw(&want_point, raw));
                CHECK(st2 == CZ_OK && f->equal(&d, &want_point));
            }
            CHECK(decode_checked(f, &d, in, CZ_DECODE_SKIP_CURVE, &err) == CZ_OK);
        } else {
            CHECK(st2 == st);
            cz_status st3 = decode_checked(f, &d, in, CZ_DECODE_SKIP_CURVE, &err);
            /* skipping the curve equation accepts an uncompressed point off the curve,
             * except the all-zero payload */
            if (st == CZ_E_NOT_ON_CURVE && !f->compressed) {
                int zero = (in[0] & 0x1f) == 0;
                for (size_t i = 1; i < len; i++) zero &= in[i] == 0;
                CHECK(st3 == (zero ? CZ_E_NOT_ON_CURVE : CZ_OK));
            } else {
                CHECK(st3 == st);
            }
        }
        if (cz_test_failures != before) fprintf(stderr, "  (%s line %lu)\n", vf.path, vf.lineno);
    }
    cz_vector_close(&vf);
    CHECK(n >= 80);
    CHECK(by_status[CZ_E_PARSE] >= 20 && by_status[CZ_E_RANGE] >= 10 &&
          by_status[CZ_E_NOT_ON_CURVE] >= 10 && by_status[CZ_E_NOT_IN_SUBGROUP] >= 10);
    printf("%s/%s: %u malformed encodings rejected (parse %u, range %u, curve %u, subgroup %u)\n",
           fc->name, fu->name, n, by_status[CZ_E_PARSE], by_status[CZ_E_RANGE],
           by_status[CZ_E_NOT_ON_CURVE], by_status[CZ_E_NOT_IN_SUBGROUP]);
}

/* ---- random points: round trips and single-bit corruptions ---- */

static void check_random(const form_ops *f, unsigned iters) {
    for (unsigned it = 0; it < iters; it++) {
        any_affine p, np, d;
        uint8_t e[MAXB], m[MAXB];
        cz_error err;
        f->random_point(&p);
        f->encode(e, &p);
        CHECK(decode_checked(f, &d, e, 0, &err) == CZ_OK && f->equal(&d, &p));
        /* the flags as the format fixes them */
        CHECK(((e[0] >> 7) & 1) == f->compressed);
        CHECK(((e[0] >> 6) & 1) == 0);
        f->neg(&np, &p);
        uint8_t ne[MAXB];
        f->encode(ne, &np);
        if (f->compressed) {
            /* -P differs only in the sort bit */
            CHECK((e[0] ^ ne[0]) == 0x20 && memcmp(e + 1, ne + 1, f->bytes - 1) == 0);
            memcpy(m, e, f->bytes);
            m[0] ^= 0x20;
            CHECK(decode_checked(f, &d, m, 0, &err) == CZ_OK && f->equal(&d, &np));
        } else {
            CHECK((e[0] & 0x20) == 0);
            memcpy(m, e, f->bytes);
            m[0] |= 0x20;
            CHECK(decode_checked(f, &d, m, 0, &err) == CZ_E_PARSE);
        }
        /* infinity flag on a non-zero payload */
        memcpy(m, e, f->bytes);
        m[0] |= 0x40;
        m[0] &= (uint8_t)~0x20;
        CHECK(decode_checked(f, &d, m, 0, &err) == CZ_E_PARSE);
        CHECK(strstr(err.message, "infinity flag") != NULL);
        /* the other form's compression bit */
        memcpy(m, e, f->bytes);
        m[0] ^= 0x80;
        if (f->compressed) m[0] &= (uint8_t)~0x20;
        CHECK(decode_checked(f, &d, m, 0, &err) == CZ_E_PARSE);
        CHECK(strstr(err.message, "compression flag (byte 0 bit 7)") != NULL);
    }
}

/* Infinity with one more bit set, at every position: refused, and the
 * message names the byte. */
static void check_infinity_garbage(const form_ops *f) {
    uint8_t m[MAXB];
    any_affine d;
    cz_error err;
    for (size_t pos = 0; pos < f->bytes; pos++) {
        for (int bit = 0; bit < 8; bit++) {
            if (pos == 0 && bit >= 5) continue; /* the flags themselves */
            memset(m, 0, f->bytes);
            m[0] = f->compressed ? 0xc0 : 0x40;
            m[pos] |= (uint8_t)(1u << bit);
            CHECK(decode_checked(f, &d, m, 0, &err) == CZ_E_PARSE);
            char want[32];
            snprintf(want, sizeof want, "byte %zu ", pos);
            CHECK(strstr(err.message, want) != NULL);
        }
    }
    memset(m, 0, f->bytes);
    m[0] = f->compressed ? 0xc0 : 0x40;
    CHECK(decode_checked(f, &d, m, 0, &err) == CZ_OK && f->is_infinity(&d));
    m[0] |= 0x20;
    CHECK(decode_checked(f, &d, m, 0, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "sort flag") != NULL);
}

/* ---- batch decoders ---- */

static void check_batch(unsigned n) {
    uint8_t *enc1 = malloc(n * CZ_G1_UNCOMPRESSED_BYTES);
    uint8_t *enc2 = malloc(n * CZ_G2_UNCOMPRESSED_BYTES);
    cz_g1_affine *p1 = malloc(n * sizeof *p1), *d1 = malloc(n * sizeof *d1);
    cz_g2_affine *p2 = malloc(n * sizeof *p2), *d2 = malloc(n * sizeof *d2);
    CHECK(enc1 && enc2 && p1 && d1 && p2 && d2);
    if (!enc1 || !enc2 || !p1 || !d1 || !p2 || !d2) goto done;
    /* multiples of the generators: k G for consecutive k, plus infinity */
    cz_g1 a1, g1;
    cz_g2 a2, gen2;
    cz_g1_generator(&g1);
    cz_g2_generator(&gen2);
    cz_g1_set_infinity(&a1);
    cz_g2_set_infinity(&a2);
    for (unsigned i = 0; i < n; i++) {
        cz_g1_to_affine(&p1[i], &a1);
        cz_g2_to_affine(&p2[i], &a2);
        cz_g1_affine_to_uncompressed(enc1 + i * CZ_G1_UNCOMPRESSED_BYTES, &p1[i]);
        cz_g2_affine_to_uncompressed(enc2 + i * CZ_G2_UNCOMPRESSED_BYTES, &p2[i]);
        cz_g1_add(&a1, &a1, &g1);
        cz_g2_add(&a2, &a2, &gen2);
    }
    cz_error err;
    CHECK(cz_g1_batch_from_uncompressed(d1, enc1, n, 0, &err) == CZ_OK);
    CHECK(cz_g2_batch_from_uncompressed(d2, enc2, n, 0, &err) == CZ_OK);
    for (unsigned i = 0; i < n; i++) CHECK(cz_g1_affine_equal(&d1[i], &p1[i]));
    for (unsigned i = 0; i < n; i++) CHECK(cz_g2_affine_equal(&d2[i], &p2[i]));
    CHECK(cz_g1_batch_from_uncompressed(d1, enc1, n, CZ_DECODE_SKIP_SUBGROUP, &err) == CZ_OK);
    CHECK(cz_g1_batch_from_uncompressed(d1, enc1, 0, 0, &err) == CZ_OK);
    /* infinity at index 0 */
    CHECK(cz_g1_batch_from_uncompressed(d1, enc1, n, CZ_DECODE_REJECT_INFINITY, &err) ==
          CZ_E_IDENTITY);
    CHECK(starts_with(err.message, "point 0: G1 uncompressed"));
    /* two corruptions: the lower index is reported */
    unsigned lo = n / 3, hi = n - 2;
    enc1[lo * CZ_G1_UNCOMPRESSED_BYTES + 95] ^= 1; /* y: off the curve */
    enc1[hi * CZ_G1_UNCOMPRESSED_BYTES] |= 0x80;   /* compression flag */
    CHECK(cz_g1_batch_from_uncompressed(d1, enc1, n, 0, &err) == CZ_E_NOT_ON_CURVE);
    char want[64];
    snprintf(want, sizeof want, "point %u: G1 uncompressed", lo);
    CHECK(starts_with(err.message, want));
    CHECK(cz_g1_batch_from_uncompressed(d1, enc1 + (lo + 1) * CZ_G1_UNCOMPRESSED_BYTES, n - lo - 1,
                                        0, &err) == CZ_E_PARSE);
    snprintf(want, sizeof want, "point %u: G1 uncompressed", hi - lo - 1);
    CHECK(starts_with(err.message, want));
    CHECK(cz_g1_batch_from_uncompressed(d1, enc1, n, 0, NULL) == CZ_E_NOT_ON_CURVE);
    enc2[hi * CZ_G2_UNCOMPRESSED_BYTES + 100] ^= 4; /* y.c1 */
    CHECK(cz_g2_batch_from_uncompressed(d2, enc2, n, 0, &err) == CZ_E_NOT_ON_CURVE);
    snprintf(want, sizeof want, "point %u: G2 uncompressed", hi);
    CHECK(starts_with(err.message, want));
    CHECK(cz_g2_batch_from_uncompressed(d2, enc2, n, CZ_DECODE_SKIP_CURVE, &err) == CZ_OK);
    printf("batch decoders: %u points per group\n", n);
done:
    free(enc1);
    free(enc2);
    free(p1);
    free(d1);
    free(p2);
    free(d2);
}

int main(void) {
    cz_test_init("test_encoding");
    check_generators();
    check_valid_vectors(&g1c, &g1u, "ec_g1_encoding.txt",
                        "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff9"
                        "7a1aeffb3af00adb22c6bb");
    check_valid_vectors(&g2c, &g2u, "ec_g2_encoding.txt",
                        "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213"
                        "945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b451"
                        "0b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    check_invalid_vectors(&g1c, &g1u, "ec_g1_invalid.txt");
    check_invalid_vectors(&g2c, &g2u, "ec_g2_invalid.txt");
    unsigned iters = cz_test_iters(100);
    check_random(&g1c, iters);
    check_random(&g1u, iters);
    check_random(&g2c, iters / 2 ? iters / 2 : 1);
    check_random(&g2u, iters / 2 ? iters / 2 : 1);
    check_infinity_garbage(&g1c);
    check_infinity_garbage(&g1u);
    check_infinity_garbage(&g2c);
    check_infinity_garbage(&g2u);
    check_batch(3000);
    return cz_test_finish("test_encoding");
}
