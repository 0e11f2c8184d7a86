/* Fp and Fr against GMP (random elements and edge cases, every operation)
 * and against @noble/curves vectors (tests/vectors/field_*.txt). */
#include <gmp.h>
#include <string.h>

#include "ff/fp.h"
#include "ff/fr.h"
#include "harness/harness.h"

/* One table per field so that the same checks run on both. Elements travel
 * as opaque buffers of the field's element size. */
typedef struct {
    const char *name;
    size_t bytes;
    const uint64_t *modulus;
    size_t limbs;
    int (*from_be)(void *, const uint8_t *);
    int (*from_le)(void *, const uint8_t *);
    void (*to_be)(uint8_t *, const void *);
    void (*to_le)(uint8_t *, const void *);
    void (*add)(void *, const void *, const void *);
    void (*sub)(void *, const void *, const void *);
    void (*mul)(void *, const void *, const void *);
    void (*sqr)(void *, const void *);
    void (*dbl)(void *, const void *);
    void (*neg)(void *, const void *);
    void (*inv)(void *, const void *);
    void (*inv_var)(void *, const void *);
    void (*batch_inv)(void *, const void *, size_t, void *);
    void (*pow)(void *, const void *, const uint64_t *, size_t);
    int (*legendre)(const void *);
    int (*sqrt_var)(void *, const void *);
    int (*lex_largest)(const void *);
    void (*reduce_le)(void *, const uint8_t *, size_t);
} field_ops;

#define WRAP(F, T)                                                                               \
    static int F##_w_from_be(void *r, const uint8_t *in) { return cz_##F##_from_bytes_be(r, in); } \
    static int F##_w_from_le(void *r, const uint8_t *in) { return cz_##F##_from_bytes_le(r, in); } \
    static void F##_w_to_be(uint8_t *o, const void *a) { cz_##F##_to_bytes_be(o, a); }            \
    static void F##_w_to_le(uint8_t *o, const void *a) { cz_##F##_to_bytes_le(o, a); }            \
    static void F##_w_add(void *r, const void *a, const void *b) { cz_##F##_add(r, a, b); }       \
    static void F##_w_sub(void *r, const void *a, const void *b) { cz_##F##_sub(r, a, b); }       \
    static void F##_w_mul(void *r, const void *a, const void *b) { cz_##F##_mul(r, a, b); }       \
    static void F##_w_sqr(void *r, const void *a) { cz_##F##_sqr(r, a); }                         \
    static void F##_w_dbl(void *r, const void *a) { cz_##F##_dbl(r, a); }                         \
    static void F##_w_neg(void *r, const void *a) { cz_##F##_neg(r, a); }                         \
    static void F##_w_inv(void *r, const void *a) { cz_##F##_inv(r, a); }                         \
    static void F##_w_inv_var(void *r, const void *a) { cz_##F##_inv_var(r, a); }                 \
    static void F##_w_batch(void *o, const void *i, size_t n, void *s) {                          \
        cz_##F##_batch_inv_var(o, i, n, s);                                                       \
    }                                                                                             \
    static void F##_w_pow(void *r, const void *a, const uint64_t *e, size_t n) {                  \
        cz_##F##_pow(r, a, e, n);                                                                 \
    }                                                                                             \
    static int F##_w_legendre(const void *a) { return cz_##F##_legendre(a); }                     \
    static int F##_w_sqrt(void *r, const void *a) { return cz_##F##_sqrt_var(r, a); }             \
    static int F##_w_lex(const void *a) { return cz_##F##_is_lexicographically_largest(a); }      \
    static void F##_w_reduce(void *r, const uint8_t *in, size_t n) {                              \
        cz_##F##_from_bytes_le_reduce(r, in, n);                                                  \
    }                                                                                             \
    static const field_ops F##_ops = {#F,           sizeof(T),        cz_##F##_modulus,           \
                                      sizeof(T) / 8, F##_w_from_be,   F##_w_from_le,              \
                                      F##_w_to_be,  F##_w_to_le,      F##_w_add,                  \
                                      F##_w_sub,    F##_w_mul,        F##_w_sqr,                  \
                                      F##_w_dbl,    F##_w_neg,        F##_w_inv,                  \
                                      F##_w_inv_var, F##_w_batch,     F##_w_pow,                  \
                                      F##_w_legendre, F##_w_sqrt,     F##_w_lex,                  \
                                      F##_w_reduce};

WRAP(fp, cz_fp)
WRAP(fr, cz_fr)

#define MAXB 48

static mpz_t M;

static void mpz_from_be(mpz_t r, const uint8_t *b, size_t n) {
    mpz_import(r, n, 1, 1, 1, 0, b);
}

static void mpz_to_be(uint8_t *out, size_t n, const mpz_t v) {
    memset(out, 0, n);
    size_t count = (mpz_sizeinbase(v, 256));
    if (mpz_sgn(v) == 0) return;
    mpz_export(out + n - count, NULL, 1, 1, 1, 0, v);
}

/* Element from an mpz (reduced mod M). */
static void elem(const field_ops *f, void *e, const mpz_t v) {
    uint8_t b[MAXB];
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, v, M);
    mpz_to_be(b, f->bytes, t);
    CHECK(f->from_be(e, b));
    mpz_clear(t);
}

static int equals(const field_ops *f, const void *e, const mpz_t v) {
    uint8_t got[MAXB], want[MAXB];
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, v, M);
    f->to_be(got, e);
    mpz_to_be(want, f->bytes, t);
    mpz_clear(t);
    return memcmp(got, want, f->bytes) == 0;
}

static void random_mpz(const field_ops *f, mpz_t v, unsigned i) {
    uint8_t b[MAXB + 8];
    /* edge values first, then uniform, then values with long runs of 1s/0s */
    switch (i) {
    case 0: mpz_set_ui(v, 0); return;
    case 1: mpz_set_ui(v, 1); return;
    case 2: mpz_sub_ui(v, M, 1); return;
    case 3: mpz_sub_ui(v, M, 2); return;
    case 4: mpz_set_ui(v, 2); return;
    case 5: mpz_fdiv_q_2exp(v, M, 1); return;
    default: break;
    }
    cz_test_rand_bytes(b, sizeof b);
    if (i % 5 == 0) memset(b, 0xff, f->bytes / 2);
    if (i % 7 == 0) memset(b + f->bytes / 2, 0, f->bytes / 2);
    mpz_from_be(v, b, sizeof b);
    mpz_mod(v, v, M);
}

static void check_field(const field_ops *f, unsigned iters) {
    uint8_t mb[MAXB];
    for (size_t i = 0; i < f->limbs; i++)
        for (int k = 0; k < 8; k++) mb[f->bytes - 1 - (8 * i + k)] = (uint8_t)(f->modulus[i] >> 8 * k);
    mpz_init(M);
    mpz_from_be(M, mb, f->bytes);

    uint64_t ea[MAXB / 8], eb[MAXB / 8], er[MAXB / 8], es[MAXB / 8];
    mpz_t a, b, r, e;
    mpz_inits(a, b, r, e, NULL);
    for (unsigned it = 0; it < iters; it++) {
        random_mpz(f, a, it);
        random_mpz(f, b, (it * 7 + 3) % (iters + 6) + (it > 5 ? 6 : 0));
        elem(f, ea, a);
        elem(f, eb, b);

        f->add(er, ea, eb), mpz_add(r, a, b), CHECK(equals(f, er, r));
        f->sub(er, ea, eb), mpz_sub(r, a, b), CHECK(equals(f, er, r));
        f->mul(er, ea, eb), mpz_mul(r, a, b), CHECK(equals(f, er, r));
        f->sqr(er, ea), mpz_mul(r, a, a), CHECK(equals(f, er, r));
        f->dbl(er, ea), mpz_add(r, a, a), CHECK(equals(f, er, r));
        f->neg(er, ea), mpz_neg(r, a), CHECK(equals(f, er, r));
        /* aliasing: r = a * r */
        memcpy(er, eb, f->bytes);
        f->mul(er, ea, er), mpz_mul(r, a, b), CHECK(equals(f, er, r));

        if (mpz_sgn(a)) mpz_invert(r, a, M);
        else mpz_set_ui(r, 0);
        f->inv(er, ea), CHECK(equals(f, er, r));
        f->inv_var(er, ea), CHECK(equals(f, er, r));

        uint64_t exp[2] = {cz_test_rand64(), it % 3 ? cz_test_rand64() : 0};
        mpz_import(e, 2, -1, 8, 0, 0, exp);
        f->pow(er, ea, exp, 2), mpz_powm(r, a, e, M), CHECK(equals(f, er, r));

        int leg = f->legendre(ea);
        CHECK(leg == mpz_legendre(a, M));
        if (f->sqrt_var(es, ea)) {
            CHECK(leg >= 0);
            f->sqr(er, es), CHECK(equals(f, er, a));
        } else {
            CHECK(leg == -1);
        }

        mpz_sub_ui(r, M, 1), mpz_fdiv_q_2exp(r, r, 1);
        CHECK(f->lex_largest(ea) == (mpz_cmp(a, r) > 0));

        /* byte round trips, both orders */
        uint8_t be[MAXB], le[MAXB];
        f->to_be(be, ea);
        f->to_le(le, ea);
        for (size_t k = 0; k < f->bytes; k++) CHECK(be[k] == le[f->bytes - 1 - k]);
        CHECK(f->from_le(es, le) && memcmp(es, ea, f->bytes) == 0);

        /* wide reduction of random byte strings of many lengths */
        uint8_t wide[100];
        size_t len = it % sizeof wide;
        cz_test_rand_bytes(wide, len);
        f->reduce_le(er, wide, len);
        mpz_import(r, len, -1, 1, 0, 0, wide);
        CHECK(equals(f, er, r));
    }

    /* batch inversion with zeros mixed in */
    enum { N = 37 };
    uint8_t in[N][MAXB], out[N][MAXB], scratch[N][MAXB];
    for (int i = 0; i < N; i++) {
        random_mpz(f, a, i % 3 == 0 ? 0 : (unsigned)i + 6);
        elem(f, (void *)in[i], a);
    }
    /* pack the elements contiguously at the field's element size */
    uint8_t packed_in[N * MAXB], packed_out[N * MAXB], packed_scratch[N * MAXB];
    for (int i = 0; i < N; i++) memcpy(packed_in + i * f->bytes, in[i], f->bytes);
    f->batch_inv(packed_out, packed_in, N, packed_scratch);
    for (int i = 0; i < N; i++) {
        f->inv_var(out[i], packed_in + i * f->bytes);
        CHECK(memcmp(out[i], packed_out + i * f->bytes, f->bytes) == 0);
    }
    (void)scratch;

    /* canonical-encoding range checks: m, m + 1 and all-ones are rejected */
    uint8_t bad[MAXB];
    mpz_to_be(bad, f->bytes, M);
    CHECK(!f->from_be(er, bad));
    mpz_add_ui(r, M, 1), mpz_to_be(bad, f->bytes, r);
    CHECK(!f->from_be(er, bad));
    memset(bad, 0xff, f->bytes);
    CHECK(!f->from_be(er, bad));
    mpz_sub_ui(r, M, 1), mpz_to_be(bad, f->bytes, r);
    CHECK(f->from_be(er, bad));

    mpz_clears(a, b, r, e, M, NULL);
    printf("%s: %u random cases checked against GMP\n", f->name, iters);
}

/* Known answers from @noble/curves: a b a+b a-b a*b a^2 -a a^-1 legendre e a^e */
static void check_vectors(const field_ops *f, const char *file) {
    cz_vector_file vf;
    if (!cz_vector_open(&vf, file)) return;
    int cases = 0;
    while (cz_vector_next(&vf)) {
        uint8_t v[8][MAXB], got[MAXB], e_be[8];
        uint64_t ea[MAXB / 8], eb[MAXB / 8], er[MAXB / 8];
        int ok = vf.nfields == 11;
        for (int i = 0; ok && i < 8; i++) ok = cz_vector_hex(&vf, i, v[i], f->bytes);
        ok = ok && cz_vector_hex(&vf, 9, e_be, 8);
        CHECK(ok);
        if (!ok) break;
        CHECK(f->from_be(ea, v[0]) && f->from_be(eb, v[1]));
#define EXPECT(expr, idx) (expr, f->to_be(got, er), CHECK(memcmp(got, v[idx], f->bytes) == 0))
        EXPECT(f->add(er, ea, eb), 2);
        EXPECT(f->sub(er, ea, eb), 3);
        EXPECT(f->mul(er, ea, eb), 4);
        EXPECT(f->sqr(er, ea), 5);
        EXPECT(f->neg(er, ea), 6);
        EXPECT(f->inv(er, ea), 7);
        EXPECT(f->inv_var(er, ea), 7);
#undef EXPECT
        const char *leg = vf.fields[8];
        CHECK(f->legendre(ea) == (leg[0] == '1' ? 1 : leg[0] == '0' ? 0 : -1));
        uint64_t e = 0;
        for (int i = 0; i < 8; i++) e = e << 8 | e_be[i];
        uint8_t want[MAXB];
        CHECK(cz_vector_hex(&vf, 10, want, f->bytes));
        f->pow(er, ea, &e, 1);
        f->to_be(got, er);
        CHECK(memcmp(got, want, f->bytes) == 0);
        cases++;
    }
    cz_vector_close(&vf);
    CHECK(cases >= 500);
    printf("%s: %d noble vectors checked\n", f->name, cases);
}

int main(void) {
    cz_test_init("test_field");
    check_vectors(&fp_ops, "field_fp.txt");
    check_vectors(&fr_ops, "field_fr.txt");
    unsigned iters = cz_test_iters(3000);
    check_field(&fp_ops, iters);
    check_field(&fr_ops, iters);

    /* Fr constants bellperson relies on */
    cz_fr w, t;
    cz_fr_root_of_unity(&w);
    uint8_t be[32], want[32];
    cz_fr_to_bytes_be(be, &w);
    const char *hex = "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b";
    for (int i = 0; i < 32; i++) sscanf(hex + 2 * i, "%2hhx", &want[i]);
    CHECK(memcmp(be, want, 32) == 0);
    t = w;
    for (int i = 0; i < 31; i++) cz_fr_sqr(&t, &t);
    CHECK(!cz_fr_is_one(&t)); /* primitive: w^(2^31) = -1 */
    cz_fr_sqr(&t, &t);
    CHECK(cz_fr_is_one(&t));
    return cz_test_finish("test_field");
}
