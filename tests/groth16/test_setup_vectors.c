/* Known answers for the development setup: SHA-256 of the whole .params
 * file (and of the .vk) for fixed circuits and fixed seeds.
 *
 * The digests were recorded with the setup as it was before it took the
 * pre-compiled circuit (cz_r1cs input, commit a237eb6), so they pin the
 * bytes every later setup (CPU from a cz_circuit, GPU) must reproduce. The
 * circuits are synthesized here from a private xorshift stream,
 * independent of the test harness' generator, so a change to either cannot
 * move them; each goes through the compile back-end and through the record
 * back-end and cz_circuit_from_r1cs, which must give the same key. test_prove.c checks the same
 * construction point by point against the secrets; this file only holds the bytes still. The 2 KiB
 * PoRep key (cuzk setup) has its digest in tests/CMakeLists.txt (cli/setup-2k-digest). The
 * streaming writer (params_writer.h) is held to cz_groth16_params_write's bytes here too. */
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/common/params_table.h"
#include "groth16/groth16.h"
#include "groth16/params_writer.h"
#include "groth16/setup.h"
#include "harness/harness.h"
#include "r1cs/backends.h"

static uint64_t xs_state;

static uint64_t xs_next(void) {
    uint64_t x = xs_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return xs_state = x;
}

static void fr_u64(cz_fr *r, uint64_t v) {
    cz_fr_from_u64(r, v);
}

/* A coefficient: 1, -1, a small integer, its negation or a "random" element
 * (four u64 draws reduced by the field's from_u64 arithmetic). */
static void coeff(cz_fr *c) {
    switch (xs_next() % 6) {
    case 0: *c = cz_fr_one; break;
    case 1: cz_fr_neg(c, &cz_fr_one); break;
    case 2: fr_u64(c, 2 + xs_next() % 1000); break;
    case 3:
        fr_u64(c, 2 + xs_next() % 1000);
        cz_fr_neg(c, c);
        break;
    default: {
        cz_fr t, s;
        fr_u64(c, xs_next());
        for (int k = 0; k < 3; k++) {
            fr_u64(&t, xs_next());
            fr_u64(&s, (uint64_t)1 << 32);
            cz_fr_mul(c, c, &s);
            cz_fr_mul(c, c, &s);
            cz_fr_add(c, c, &t);
        }
        if (cz_fr_is_zero(c)) *c = cz_fr_one;
    }
    }
}

/* cubic: x^3 + x + 5 = y with y public */
static void synth_cubic(cz_cs *cs) {
    cz_fr five;
    fr_u64(&five, 5);
    cz_var Y = cz_cs_alloc_input(cs, NULL);
    cz_var X = cz_cs_alloc(cs, NULL), X2 = cz_cs_alloc(cs, NULL), X3 = cz_cs_alloc(cs, NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    cz_lc_add_var(&a, X), cz_lc_add_var(&b, X), cz_lc_add_var(&c, X2);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&a, X2), cz_lc_add_var(&b, X), cz_lc_add_var(&c, X3);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&a, X3), cz_lc_add_var(&a, X), cz_lc_add(&a, CZ_VAR_ONE, &five);
    cz_lc_add_var(&b, CZ_VAR_ONE), cz_lc_add_var(&c, Y);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

/* A random system: ni inputs (ONE among them), na aux, nc constraints of
 * 0-4 terms per side with coefficients of every kind. Each aux occurs at
 * least once (in C for the first na / 3, so those are dropped from a and
 * b); input 1 never occurs in B (dropped from b_g1). */
static void synth_random(cz_cs *cs, uint32_t ni, uint32_t na, uint32_t nc) {
    cz_var *in = malloc(ni * sizeof *in), *aux = malloc(na * sizeof *aux);
    in[0] = CZ_VAR_ONE;
    for (uint32_t i = 1; i < ni; i++) in[i] = cz_cs_alloc_input(cs, NULL);
    for (uint32_t k = 0; k < na; k++) aux[k] = cz_cs_alloc(cs, NULL);
    cz_lc lc[3];
    for (int s = 0; s < 3; s++) cz_lc_init(&lc[s]);
    for (uint32_t j = 0; j < nc; j++) {
        for (int s = 0; s < 3; s++) {
            cz_lc_clear(&lc[s]);
            unsigned terms = (unsigned)(xs_next() % 5);
            for (unsigned t = 0; t < terms; t++) {
                cz_fr c;
                coeff(&c);
                uint64_t pickv = xs_next() % (ni + na);
                cz_var v = pickv < ni ? in[pickv] : aux[pickv - ni];
                if (s == 1 && ni > 1 && pickv == 1) continue;
                if (pickv >= ni && pickv - ni < na / 3 && s != 2) continue;
                cz_lc_add(&lc[s], v, &c);
            }
        }
        if (j < na) { /* aux j occurs at least here */
            cz_fr c;
            coeff(&c);
            cz_lc_add(&lc[j < na / 3 ? 2 : (int)(j % 2)], aux[j], &c);
        }
        cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
    }
    for (int s = 0; s < 3; s++) cz_lc_free(&lc[s]);
    free(in);
    free(aux);
}

static void hex(char *out, const uint8_t *d, size_t n) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

static int file_digest(char out[65], const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    uint8_t d[SHA256_DIGEST_LENGTH];
    SHA256(buf, got, d);
    free(buf);
    hex(out, d, sizeof d);
    return got == (size_t)len;
}

typedef struct {
    const char *name;
    uint64_t circuit_seed;
    uint8_t seed_tag;
    const char *params_sha256, *vk_sha256;
    const char *params_blake2b; /* first 16 bytes of BLAKE2b-512 (Python's hashlib) */
} vector;

static void seed_of(uint8_t seed[CZ_GROTH16_SEED_BYTES], uint8_t tag) {
    for (int i = 0; i < CZ_GROTH16_SEED_BYTES; i++) seed[i] = (uint8_t)(tag * 31 + i * 7 + 1);
}

/* The circuit of v through the compile back-end (compile = 1) or the
 * record back-end and cz_circuit_from_r1cs (compile = 0). */
static cz_status build(cz_circuit **out, const vector *v, int compile, cz_error *err) {
    xs_state = v->circuit_seed;
    cz_cs *cs = compile ? cz_cs_compile_new() : cz_cs_record_new();
    if (!strcmp(v->name, "cubic"))
        synth_cubic(cs);
    else if (!strcmp(v->name, "random-small"))
        synth_random(cs, 3, 12, 20);
    else if (!strcmp(v->name, "random-900"))
        synth_random(cs, 6, 700, 900);
    else /* > 65,536 distinct coefficients: u32 indices in the compact form */
        synth_random(cs, 4, 20000, 40000);
    cz_status st;
    if (compile) {
        st = cz_compile_finish(cs, out, err);
    } else {
        cz_r1cs r1cs;
        st = cz_record_finish(cs, &r1cs, err);
        if (st == CZ_OK) st = cz_circuit_from_r1cs(out, &r1cs, err);
        if (st == CZ_OK) cz_r1cs_free(&r1cs);
    }
    cz_cs_destroy(cs);
    return st;
}

/* params through the streaming writer, in chunks of 1..7 points (or, with
 * whole, each vector at once: its tap then runs beside the write when the
 * vector is 1 MiB or more), encoded here with the ec layer's encoder: the
 * same file as cz_groth16_params_write. */
static cz_status stream_write(char digest[CZ_FC_PARAM_DIGEST_HEX], const cz_groth16_params *p,
                              const char *path, int whole, cz_error *err) {
    const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1,
                                                        p->n_b_g2};
    const cz_g1_affine *g1[4] = {p->h, p->l, p->a, p->b_g1};
    cz_groth16_params_writer *w = NULL;
    cz_fc_param_hasher *h = NULL;
    cz_status st = cz_fc_param_hasher_new(&h, err);
    if (st != CZ_OK) return st;
    const cz_groth16_params_tap tap = {cz_fc_param_hasher_update, h};
    if ((st = cz_groth16_params_writer_open(&w, path, &p->vk, counts, &tap, err)) != CZ_OK) {
        cz_fc_param_hasher_finish(digest, h, NULL);
        return st;
    }
    uint64_t most = 7;
    for (unsigned v = 0; whole && v < CZ_GROTH16_PARAMS_VECTORS; v++)
        if (counts[v] > most) most = counts[v];
    uint8_t *buf = malloc(most * CZ_G2_UNCOMPRESSED_BYTES);
    if (!buf) st = cz_error_set(err, CZ_E_NOMEM, "out of memory");
    for (unsigned v = 0; v < CZ_GROTH16_PARAMS_VECTORS && st == CZ_OK; v++) {
        for (uint64_t at = 0; at < counts[v] && st == CZ_OK;) {
            uint64_t n = whole ? counts[v] : 1 + xs_next() % 7;
            if (n > counts[v] - at) n = counts[v] - at;
            for (uint64_t k = 0; k < n; k++)
                if (v == 4)
                    cz_g2_affine_to_uncompressed(buf + k * CZ_G2_UNCOMPRESSED_BYTES,
                                                 &p->b_g2[at + k]);
                else
                    cz_g1_affine_to_uncompressed(buf + k * CZ_G1_UNCOMPRESSED_BYTES,
                                                 &g1[v][at + k]);
            st = cz_groth16_params_writer_put(w, v, buf, n, err);
            at += n;
        }
    }
    free(buf);
    st = cz_groth16_params_writer_close(w, st, err);
    cz_status fin = cz_fc_param_hasher_finish(digest, h, err);
    return st != CZ_OK ? st : fin;
}

/* The writer's refusals: points of the wrong vector or too many, a file
 * closed before its last point (removed, never renamed into place). */
static void stream_refusals(const cz_groth16_params *p, const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/refused.params", dir);
    const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1,
                                                        p->n_b_g2};
    uint8_t buf[CZ_G1_UNCOMPRESSED_BYTES] = {0};
    cz_error err = {0};
    cz_groth16_params_writer *w = NULL;
    CHECK(cz_groth16_params_writer_open(&w, path, &p->vk, counts, NULL, &err) == CZ_OK);
    CHECK(cz_groth16_params_writer_put(w, 1, buf, 1, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "points of l given while writing h"));
    CHECK(cz_groth16_params_writer_put(w, 0, buf, p->n_h + 1, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_groth16_params_writer_put(w, 0, buf, 1, &err) == CZ_OK);
    CHECK(cz_groth16_params_writer_close(w, CZ_OK, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "incomplete: 1 of"));
    CHECK(access(path, F_OK) != 0);
    CHECK(cz_groth16_params_writer_open(&w, path, &p->vk, counts, NULL, &err) == CZ_OK);
    CHECK(cz_groth16_params_writer_close(w, CZ_E_CUDA, &err) == CZ_E_CUDA);
    CHECK(access(path, F_OK) != 0);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    CHECK(access(tmp, F_OK) != 0);
    /* more than the disk holds: refused before anything is written */
    uint64_t huge[CZ_GROTH16_PARAMS_VECTORS] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                                                UINT32_MAX};
    if (cz_groth16_params_writer_bytes(&p->vk, huge) > ((uint64_t)1 << 40)) {
        CHECK(cz_groth16_params_writer_open(&w, path, &p->vk, huge, NULL, &err) == CZ_E_IO &&
              strstr(err.message, "free"));
        CHECK(access(tmp, F_OK) != 0);
    }
}

static void run(const vector *v, int compile, const char *dir) {
    cz_error err = {0};
    cz_circuit *c = NULL;
    uint8_t seed[CZ_GROTH16_SEED_BYTES];
    seed_of(seed, v->seed_tag);
    CHECK(build(&c, v, compile, &err) == CZ_OK);
    if (!c) return;
    if (!strcmp(v->name, "random-u32")) CHECK(c->coef_bytes == 4);
    cz_groth16_params params;
    cz_status st = cz_groth16_dev_setup(&params, c, seed, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: setup: %s\n", v->name, err.message);
        cz_circuit_free(c);
        return;
    }
    char pp[512], vp[512], pd[65], vd[65];
    snprintf(pp, sizeof pp, "%s/%s.params", dir, v->name);
    snprintf(vp, sizeof vp, "%s/%s.vk", dir, v->name);
    CHECK(cz_groth16_params_write(&params, pp, &err) == CZ_OK);
    CHECK(cz_groth16_vk_write(&params.vk, vp, &err) == CZ_OK);
    CHECK(file_digest(pd, pp) && file_digest(vd, vp));
    char sp[512], sd[65], b2[CZ_FC_PARAM_DIGEST_HEX] = "";
    snprintf(sp, sizeof sp, "%s/%s-stream.params", dir, v->name);
    for (int whole = 0; whole < 2; whole++) {
        CHECK(stream_write(b2, &params, sp, whole, &err) == CZ_OK);
        CHECK(file_digest(sd, sp) && strcmp(sd, pd) == 0);
        /* the digest the writer's tap saw: Filecoin's form of the file's BLAKE2b-512 */
        printf("%s: digest as written%s %s\n", v->name, whole ? " (whole vectors)" : "", b2);
        CHECK(strcmp(b2, v->params_blake2b) == 0);
    }
    remove(sp);
    if (!strcmp(v->name, "random-small") && compile) stream_refusals(&params, dir);
    printf("%s (%s): %llu constraints, %u coefficients (u%u), |a| %zu |b| %zu\n  params %s\n"
           "  vk     %s\n",
           v->name, compile ? "compiled" : "recorded, converted",
           (unsigned long long)c->num_constraints, c->num_coeffs, 8 * c->coef_bytes, params.n_a,
           params.n_b_g1, pd, vd);
    CHECK(strcmp(pd, v->params_sha256) == 0);
    CHECK(strcmp(vd, v->vk_sha256) == 0);
    remove(pp);
    remove(vp);
    cz_groth16_params_free(&params);
    cz_circuit_free(c);
}

int main(void) {
    cz_test_init("groth16/setup_vectors");
    static const vector vectors[] = {
        {"cubic", 1, 1, "003ba618f73c831ddf859283521f5d57e2c505fda7eb12ea78d636503e22510f",
         "d6ff85bade1ebae2ef5934c4eb69084b933125f8dbdd528d8ff9f2e51efb1db0",
         "df4b76f6e589c97899abbb14b615cb1f"},
        {"random-small", 2, 2, "d62823634d268d29bc0f72ea58cacc384621b2aad8a8673f803ef6a6ead74de1",
         "7c07b848858e262018fecdbf3a5086ea56287a3fd9aa163a27d4ab1490ae0714",
         "cad41156e92dc501faf5331bba1778e5"},
        {"random-900", 3, 3, "a00a14439f3834ae93db755f96ee33fdcc73a75ab7dbd226eecf720af1ffb438",
         "ee3c6c849a7bcb399e381c3f0846627fac1fae602b1868180c7173b721a13747",
         "d325a09ef442433dd0862c0fb946253f"},
        {"random-u32", 4, 4, "3e73d2646266cb8646414a8f6e54303ec9cfed67a2dff6d5162eccf6402c11a4",
         "7b8cc00affbeb925910a2608f1d0035e4e4c4031f192deb830983eb3eac072d5",
         "2f61ad18fa377f2a81d3f2c9958742bb"},
    };
    char dir[] = "/tmp/cz-setup-vectors-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        for (int compile = 0; compile < 2; compile++) run(&vectors[i], compile, dir);
    rmdir(dir);
    return cz_test_finish("groth16/setup_vectors");
}
