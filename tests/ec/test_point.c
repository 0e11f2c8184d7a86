/* G1 and G2 group law, scalar multiplication, on-curve and subgroup checks.
 *
 * Independent results: @noble/curves (tests/vectors/ec_g{1,2}_ops.txt and
 * ec_g{1,2}_subgroup.txt, made by tests/oracle/gen_ec.mjs), and the slow
 * definition of subgroup membership, [r]P = O, on random curve points made
 * here (random x, cofactor not cleared), on [h]P (cofactor cleared: always in
 * the subgroup) and on [r]P (order divides h: never in it, unless O).
 * Jacobian inputs are given random Z so that no code may assume Z = 1. */
#include <string.h>

#include "ec/point.h"
#include "harness/harness.h"

/* The cofactors, little-endian limbs (h1 = (z-1)^2/3; h2 is G2's). */
static const uint64_t g1_cofactor[] = {0x8c00aaab0000aaab, 0x396c8c005555e156};
static const uint64_t g2_cofactor[] = {0xcf1c38e31c7238e5, 0x1616ec6e786f0c70, 0x21537e293a6691ae,
                                       0xa628f1cb4d9e82ef, 0xa68a205b2e5a7ddf, 0xcd91de4547085aba,
                                       0x091d50792876a202, 0x05d543a95414e7f1};

typedef union {
    cz_g1_affine g1;
    cz_g2_affine g2;
} any_affine;

typedef union {
    cz_g1 g1;
    cz_g2 g2;
} any_point;

/* One table per group so that every check below runs on both. */
typedef struct {
    const char *name;
    size_t raw_bytes; /* raw vector form: G1 x||y, G2 x.c0||x.c1||y.c0||y.c1 */
    const uint64_t *cofactor;
    size_t cofactor_limbs;
    int (*read_raw)(any_affine *, const uint8_t *);
    void (*random_curve_point)(any_affine *);
    void (*random_field_pair)(any_affine *); /* random (x, y): almost surely off the curve */
    void (*bump_y)(any_affine *);            /* y += 1 */
    void (*randomize)(any_point *, const any_affine *);
    void (*generator)(any_affine *);
    void (*from_affine)(any_point *, const any_affine *);
    void (*to_affine)(any_affine *, const any_point *);
    void (*batch_to_affine)(any_affine *, const any_point *, size_t);
    void (*set_infinity)(any_point *);
    int (*is_infinity)(const any_point *);
    int (*affine_is_infinity)(const any_affine *);
    int (*equal)(const any_point *, const any_point *);
    int (*affine_equal)(const any_affine *, const any_affine *);
    void (*neg)(any_point *, const any_point *);
    void (*affine_neg)(any_affine *, const any_affine *);
    void (*dbl)(any_point *, const any_point *);
    void (*add)(any_point *, const any_point *, const any_point *);
    void (*add_affine)(any_point *, const any_point *, const any_affine *);
    void (*mul_var)(any_point *, const any_point *, const cz_fr *);
    void (*mul_limbs)(any_point *, const any_point *, const uint64_t *, size_t);
    int (*on_curve)(const any_affine *);
    int (*in_subgroup)(const any_affine *);
} group_ops;

static void rand_fp(cz_fp *r) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fp_from_bytes_le_reduce(r, b, sizeof b);
}

static void rand_fp_nonzero(cz_fp *r) {
    do rand_fp(r);
    while (cz_fp_is_zero(r));
}

/* ---- G1 wrappers ---- */
static int g1_read_raw(any_affine *r, const uint8_t *b) {
    return cz_fp_from_bytes_be(&r->g1.x, b) && cz_fp_from_bytes_be(&r->g1.y, b + CZ_FP_BYTES);
}
static void g1_random_curve_point(any_affine *r) {
    cz_fp x, rhs, y, four;
    cz_fp_from_u64(&four, 4);
    for (;;) {
        rand_fp(&x);
        cz_fp_sqr(&rhs, &x);
        cz_fp_mul(&rhs, &rhs, &x);
        cz_fp_add(&rhs, &rhs, &four);
        if (cz_fp_sqrt_var(&y, &rhs)) break;
    }
    if (cz_test_rand64() & 1) cz_fp_neg(&y, &y);
    r->g1.x = x;
    r->g1.y = y;
}
static void g1_random_field_pair(any_affine *r) {
    rand_fp(&r->g1.x);
    rand_fp(&r->g1.y);
}
static void g1_bump_y(any_affine *r) {
    cz_fp_add(&r->g1.y, &r->g1.y, &cz_fp_one);
}
/* (x l^2, y l^3, l) for a random l != 0; infinity as (l^2, l^3, 0) */
static void g1_randomize(any_point *r, const any_affine *a) {
    cz_fp l, l2, l3;
    rand_fp_nonzero(&l);
    cz_fp_sqr(&l2, &l);
    cz_fp_mul(&l3, &l2, &l);
    if (cz_g1_affine_is_infinity(&a->g1)) {
        if (cz_test_rand64() & 1) {
            cz_g1_set_infinity(&r->g1);
        } else {
            r->g1.x = l2;
            r->g1.y = l3;
            r->g1.z = cz_fp_zero;
        }
        return;
    }
    cz_fp_mul(&r->g1.x, &a->g1.x, &l2);
    cz_fp_mul(&r->g1.y, &a->g1.y, &l3);
    r->g1.z = l;
}
static void g1_generator(any_affine *r) {
    cz_g1_affine_generator(&r->g1);
}
static void g1_from_affine(any_point *r, const any_affine *a) {
    cz_g1_from_affine(&r->g1, &a->g1);
}
static void g1_to_affine(any_affine *r, const any_point *p) {
    cz_g1_to_affine(&r->g1, &p->g1);
}
static void g1_batch_to_affine(any_affine *out, const any_point *in, size_t n) {
    cz_g1 jac[64] = {0};
    cz_g1_affine aff[64];
    cz_fp scratch[64];
    for (size_t i = 0; i < n; i++) jac[i] = in[i].g1;
    cz_g1_batch_to_affine(aff, jac, n, scratch);
    for (size_t i = 0; i < n; i++) out[i].g1 = aff[i];
}
static void g1_set_infinity(any_point *r) {
    cz_g1_set_infinity(&r->g1);
}
static int g1_is_infinity(const any_point *p) {
    return cz_g1_is_infinity(&p->g1);
}
static int g1_affine_is_infinity(const any_affine *p) {
    return cz_g1_affine_is_infinity(&p->g1);
}
static int g1_equal(const any_point *a, const any_point *b) {
    return cz_g1_equal(&a->g1, &b->g1);
}
static int g1_affine_equal(const any_affine *a, const any_affine *b) {
    return cz_g1_affine_equal(&a->g1, &b->g1);
}
static void g1_neg(any_point *r, const any_point *a) {
    cz_g1_neg(&r->g1, &a->g1);
}
static void g1_affine_neg(any_affine *r, const any_affine *a) {
    cz_g1_affine_neg(&r->g1, &a->g1);
}
static void g1_dbl(any_point *r, const any_point *a) {
    cz_g1_dbl(&r->g1, &a->g1);
}
static void g1_add(any_point *r, const any_point *a, const any_point *b) {
    cz_g1_add(&r->g1, &a->g1, &b->g1);
}
static void g1_add_affine(any_point *r, const any_point *a, const any_affine *b) {
    cz_g1_add_affine(&r->g1, &a->g1, &b->g1);
}
static void g1_mul_var(any_point *r, const any_point *p, const cz_fr *k) {
    cz_g1_mul_var(&r->g1, &p->g1, k);
}
static void g1_mul_limbs(any_point *r, const any_point *p, const uint64_t *k, size_t n) {
    cz_g1_mul_limbs_var(&r->g1, &p->g1, k, n);
}
static int g1_on_curve(const any_affine *a) {
    return cz_g1_affine_is_on_curve(&a->g1);
}
static int g1_in_subgroup(const any_affine *a) {
    return cz_g1_affine_is_in_subgroup(&a->g1);
}

/* ---- G2 wrappers ---- */
static void rand_fp2(cz_fp2 *r) {
    rand_fp(&r->c0);
    rand_fp(&r->c1);
}
static int g2_read_raw(any_affine *r, const uint8_t *b) {
    return cz_fp_from_bytes_be(&r->g2.x.c0, b) && cz_fp_from_bytes_be(&r->g2.x.c1, b + 48) &&
           cz_fp_from_bytes_be(&r->g2.y.c0, b + 96) && cz_fp_from_bytes_be(&r->g2.y.c1, b + 144);
}
static void g2_random_curve_point(any_affine *r) {
    cz_fp2 x, rhs, y, b;
    cz_fp_from_u64(&b.c0, 4);
    cz_fp_from_u64(&b.c1, 4);
    for (;;) {
        rand_fp2(&x);
        cz_fp2_sqr(&rhs, &x);
        cz_fp2_mul(&rhs, &rhs, &x);
        cz_fp2_add(&rhs, &rhs, &b);
        if (cz_fp2_sqrt_var(&y, &rhs)) break;
    }
    if (cz_test_rand64() & 1) cz_fp2_neg(&y, &y);
    r->g2.x = x;
    r->g2.y = y;
}
static void g2_random_field_pair(any_affine *r) {
    rand_fp2(&r->g2.x);
    rand_fp2(&r->g2.y);
}
static void g2_bump_y(any_affine *r) {
    cz_fp2_add(&r->g2.y, &r->g2.y, &cz_fp2_one);
}
static void g2_randomize(any_point *r, const any_affine *a) {
    cz_fp2 l, l2, l3;
    do rand_fp2(&l);
    while (cz_fp2_is_zero(&l));
    cz_fp2_sqr(&l2, &l);
    cz_fp2_mul(&l3, &l2, &l);
    if (cz_g2_affine_is_infinity(&a->g2)) {
        if (cz_test_rand64() & 1) {
            cz_g2_set_infinity(&r->g2);
        } else {
            r->g2.x = l2;
            r->g2.y = l3;
            r->g2.z = cz_fp2_zero;
        }
        return;
    }
    cz_fp2_mul(&r->g2.x, &a->g2.x, &l2);
    cz_fp2_mul(&r->g2.y, &a->g2.y, &l3);
    r->g2.z = l;
}
static void g2_generator(any_affine *r) {
    cz_g2_affine_generator(&r->g2);
}
static void g2_from_affine(any_point *r, const any_affine *a) {
    cz_g2_from_affine(&r->g2, &a->g2);
}
static void g2_to_affine(any_affine *r, const any_point *p) {
    cz_g2_to_affine(&r->g2, &p->g2);
}
static void g2_batch_to_affine(any_affine *out, const any_point *in, size_t n) {
    cz_g2 jac[64] = {0};
    cz_g2_affine aff[64];
    cz_fp2 scratch[64];
    for (size_t i = 0; i < n; i++) jac[i] = in[i].g2;
    cz_g2_batch_to_affine(aff, jac, n, scratch);
    for (size_t i = 0; i < n; i++) out[i].g2 = aff[i];
}
static void g2_set_infinity(any_point *r) {
    cz_g2_set_infinity(&r->g2);
}
static int g2_is_infinity(const any_point *p) {
    return cz_g2_is_infinity(&p->g2);
}
static int g2_affine_is_infinity(const any_affine *p) {
    return cz_g2_affine_is_infinity(&p->g2);
}
static int g2_equal(const any_point *a, const any_point *b) {
    return cz_g2_equal(&a->g2, &b->g2);
}
static int g2_affine_equal(const any_affine *a, const any_affine *b) {
    return cz_g2_affine_equal(&a->g2, &b->g2);
}
static void g2_neg(any_point *r, const any_point *a) {
    cz_g2_neg(&r->g2, &a->g2);
}
static void g2_affine_neg(any_affine *r, const any_affine *a) {
    cz_g2_affine_neg(&r->g2, &a->g2);
}
static void g2_dbl(any_point *r, const any_point *a) {
    cz_g2_dbl(&r->g2, &a->g2);
}
static void g2_add(any_point *r, const any_point *a, const any_point *b) {
    cz_g2_add(&r->g2, &a->g2, &b->g2);
}
static void g2_add_affine(any_point *r, const any_point *a, const any_affine *b) {
    cz_g2_add_affine(&r->g2, &a->g2, &b->g2);
}
static void g2_mul_var(any_point *r, const any_point *p, const cz_fr *k) {
    cz_g2_mul_var(&r->g2, &p->g2, k);
}
static void g2_mul_limbs(any_point *r, const any_point *p, const uint64_t *k, size_t n) {
    cz_g2_mul_limbs_var(&r->g2, &p->g2, k, n);
}
static int g2_on_curve(const any_affine *a) {
    return cz_g2_affine_is_on_curve(&a->g2);
}
static int g2_in_subgroup(const any_affine *a) {
    return cz_g2_affine_is_in_subgroup(&a->g2);
}

#define OPS(G, RAW, COF)                                                                           \
    {                                                                                              \
#G, RAW, COF,                                                                              \
            sizeof COF / sizeof COF[0], G##_read_raw, G##_random_curve_point,                      \
                                    G##_random_field_pair, G##_bump_y, G##_randomize,              \
                                    G##_generator, G##_from_affine, G##_to_affine,                 \
                                    G##_batch_to_affine, G##_set_infinity, G##_is_infinity,        \
                                    G##_affine_is_infinity, G##_equal, G##_affine_equal, G##_neg,  \
                                    G##_affine_neg, G##_dbl, G##_add, G##_add_affine, G##_mul_var, \
                                    G##_mul_limbs, G##_on_curve, G##_in_subgroup                   \
    }

static const group_ops g1_ops = OPS(g1, 96, g1_cofactor);
static const group_ops g2_ops = OPS(g2, 192, g2_cofactor);

/* ---- helpers ---- */

static int read_point(const group_ops *g, cz_vector_file *vf, int i, any_affine *r) {
    uint8_t raw[192];
    if (!cz_vector_hex(vf, i, raw, g->raw_bytes)) return 0;
    int ok = g->read_raw(r, raw);
    CHECK(ok);
    return ok;
}

/* 1 when the Jacobian p is the affine point want, checked two ways: through
 * to_affine and through the projective equality with a randomized copy. */
static int is_point(const group_ops *g, const any_point *p, const any_affine *want) {
    any_affine a;
    any_point w;
    g->to_affine(&a, p);
    g->randomize(&w, want);
    return g->affine_equal(&a, want) && g->equal(p, &w) &&
           g->is_infinity(p) == g->affine_is_infinity(want);
}

static unsigned vector_failures_at_line(cz_vector_file *vf, int before, const char *what) {
    if (cz_test_failures != before)
        fprintf(stderr, "  (%s, %s line %lu)\n", what, vf->path, vf->lineno);
    return (unsigned)(cz_test_failures - before);
}

/* 1 when [r]P = O: the definition of subgroup membership. */
static int in_subgroup_slow(const group_ops *g, const any_affine *a) {
    any_point p, t;
    g->from_affine(&p, a);
    g->mul_limbs(&t, &p, cz_fr_modulus, CZ_FR_LIMBS);
    return g->is_infinity(&t);
}

/* ---- group law and scalar multiplication against noble ---- */

static void check_ops(const group_ops *g, const char *file) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, file));
    if (!vf.file) return;
    unsigned lines = 0;
    any_point batch_in[64];
    any_affine batch_want[64], batch_out[64];
    size_t batch_n = 0;
    while (cz_vector_next(&vf)) {
        int before = cz_test_failures;
        any_affine P, Q, S, D, N, K;
        uint8_t kb[CZ_FR_BYTES];
        cz_fr k;
        if (!read_point(g, &vf, 0, &P) || !read_point(g, &vf, 1, &Q) ||
            !read_point(g, &vf, 2, &S) || !read_point(g, &vf, 3, &D) ||
            !read_point(g, &vf, 4, &N) || !cz_vector_hex(&vf, 5, kb, sizeof kb) ||
            !read_point(g, &vf, 6, &K))
            continue;
        CHECK(cz_fr_from_bytes_be(&k, kb));
        lines++;
        CHECK(g->on_curve(&P) && g->on_curve(&Q) && g->on_curve(&S) && g->on_curve(&D) &&
              g->on_curve(&N) && g->on_curve(&K));

        any_point Pj, Qj, r, t;
        g->randomize(&Pj, &P);
        g->randomize(&Qj, &Q);
        g->add(&r, &Pj, &Qj);
        CHECK(is_point(g, &r, &S));
        g->add(&r, &Qj, &Pj);
        CHECK(is_point(g, &r, &S));
        g->add_affine(&r, &Pj, &Q);
        CHECK(is_point(g, &r, &S));
        g->add_affine(&r, &Qj, &P);
        CHECK(is_point(g, &r, &S));
        g->dbl(&r, &Pj);
        CHECK(is_point(g, &r, &D));
        g->add(&r, &Pj, &Pj); /* doubling through the addition */
        CHECK(is_point(g, &r, &D));
        g->add_affine(&r, &Pj, &P); /* the same point as affine */
        CHECK(is_point(g, &r, &D));
        g->neg(&r, &Pj);
        CHECK(is_point(g, &r, &N));
        any_affine na;
        g->affine_neg(&na, &P);
        CHECK(g->affine_equal(&na, &N));
        g->add(&r, &Pj, &r); /* P + (-P) */
        CHECK(g->is_infinity(&r));
        g->add_affine(&r, &Pj, &N);
        CHECK(g->is_infinity(&r));

        g->mul_var(&r, &Pj, &k);
        CHECK(is_point(g, &r, &K));
        uint64_t limbs[CZ_FR_LIMBS + 1];
        cz_fr_to_limbs(limbs, &k);
        limbs[CZ_FR_LIMBS] = 0;
        g->mul_limbs(&r, &Pj, limbs, CZ_FR_LIMBS);
        CHECK(is_point(g, &r, &K));
        g->mul_limbs(&r, &Pj, limbs, CZ_FR_LIMBS + 1);
        CHECK(is_point(g, &r, &K));
        /* [r]P = O and [r + 1]P = P on subgroup points (r + 1 < 2^256) */
        g->mul_limbs(&r, &Pj, cz_fr_modulus, CZ_FR_LIMBS);
        CHECK(g->is_infinity(&r));
        uint64_t r1[CZ_FR_LIMBS];
        memcpy(r1, cz_fr_modulus, sizeof r1);
        r1[0] += 1; /* r is odd: no carry */
        g->mul_limbs(&r, &Pj, r1, CZ_FR_LIMBS);
        CHECK(is_point(g, &r, &P));

        /* outputs aliasing inputs */
        t = Pj;
        g->add(&t, &t, &Qj);
        CHECK(is_point(g, &t, &S));
        t = Qj;
        g->add(&t, &Pj, &t);
        CHECK(is_point(g, &t, &S));
        t = Pj;
        g->add_affine(&t, &t, &Q);
        CHECK(is_point(g, &t, &S));
        t = Pj;
        g->dbl(&t, &t);
        CHECK(is_point(g, &t, &D));
        t = Pj;
        g->neg(&t, &t);
        CHECK(is_point(g, &t, &N));
        t = Pj;
        g->mul_var(&t, &t, &k);
        CHECK(is_point(g, &t, &K));

        /* equality across representations, and between different points */
        any_point P2;
        g->randomize(&P2, &P);
        CHECK(g->equal(&Pj, &P2));
        CHECK(g->equal(&Pj, &Qj) == g->affine_equal(&P, &Q));
        any_point fa;
        g->from_affine(&fa, &P);
        CHECK(is_point(g, &fa, &P));

        g->add(&batch_in[batch_n], &Pj, &Qj);
        batch_want[batch_n++] = S;
        if (batch_n == 64) {
            g->batch_to_affine(batch_out, batch_in, batch_n);
            for (size_t i = 0; i < batch_n; i++)
                CHECK(g->affine_equal(&batch_out[i], &batch_want[i]));
            batch_n = 0;
        }
        vector_failures_at_line(&vf, before, g->name);
    }
    if (batch_n) {
        g->batch_to_affine(batch_out, batch_in, batch_n);
        for (size_t i = 0; i < batch_n; i++) CHECK(g->affine_equal(&batch_out[i], &batch_want[i]));
    }
    cz_vector_close(&vf);
    CHECK(lines >= 300);
    printf("%s: %u group-law vectors\n", g->name, lines);
}

/* Edge cases that need no vectors: infinity everywhere, the generator. */
static void check_edges(const group_ops *g) {
    any_affine inf_a, gen, a;
    any_point inf, r, gj;
    memset(&inf_a, 0, sizeof inf_a);
    g->set_infinity(&inf);
    CHECK(g->is_infinity(&inf));
    CHECK(g->affine_is_infinity(&inf_a));
    CHECK(g->on_curve(&inf_a));
    CHECK(g->in_subgroup(&inf_a));
    g->to_affine(&a, &inf);
    CHECK(g->affine_is_infinity(&a));
    g->from_affine(&r, &inf_a);
    CHECK(g->is_infinity(&r));
    g->dbl(&r, &inf);
    CHECK(g->is_infinity(&r));
    g->add(&r, &inf, &inf);
    CHECK(g->is_infinity(&r));
    g->add_affine(&r, &inf, &inf_a);
    CHECK(g->is_infinity(&r));
    g->neg(&r, &inf);
    CHECK(g->is_infinity(&r));
    g->affine_neg(&a, &inf_a);
    CHECK(g->affine_is_infinity(&a));
    cz_fr k;
    cz_fr_from_u64(&k, 12345);
    g->mul_var(&r, &inf, &k);
    CHECK(g->is_infinity(&r));
    g->generator(&gen);
    CHECK(g->on_curve(&gen) && g->in_subgroup(&gen) && in_subgroup_slow(g, &gen));
    CHECK(!g->affine_is_infinity(&gen));
    g->randomize(&gj, &gen);
    g->add(&r, &gj, &inf);
    CHECK(is_point(g, &r, &gen));
    g->add(&r, &inf, &gj);
    CHECK(is_point(g, &r, &gen));
    g->add_affine(&r, &inf, &gen);
    CHECK(is_point(g, &r, &gen));
    g->add_affine(&r, &gj, &inf_a);
    CHECK(is_point(g, &r, &gen));
    CHECK(!g->equal(&gj, &inf) && !g->equal(&inf, &gj));
    uint64_t zero = 0;
    g->mul_limbs(&r, &gj, &zero, 1);
    CHECK(g->is_infinity(&r));
    g->mul_limbs(&r, &gj, &zero, 0);
    CHECK(g->is_infinity(&r));
}

/* ---- on-curve and subgroup checks ---- */

static void check_subgroup_vectors(const group_ops *g, const char *file) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, file));
    if (!vf.file) return;
    unsigned n = 0, inside = 0;
    while (cz_vector_next(&vf)) {
        int before = cz_test_failures;
        any_affine p;
        if (!read_point(g, &vf, 0, &p)) continue;
        int want = strcmp(vf.fields[1], "1") == 0;
        n++;
        inside += (unsigned)want;
        CHECK(g->on_curve(&p));
        CHECK(g->in_subgroup(&p) == want);
        CHECK(in_subgroup_slow(g, &p) == want);
        vector_failures_at_line(&vf, before, g->name);
    }
    cz_vector_close(&vf);
    CHECK(n >= 60 && inside >= 10 && n - inside >= 40);
    printf("%s: %u subgroup vectors (%u inside)\n", g->name, n, inside);
}

static void check_subgroup_random(const group_ops *g, unsigned iters) {
    unsigned outside = 0;
    for (unsigned i = 0; i < iters; i++) {
        any_affine p, q;
        any_point pj, t;
        g->random_curve_point(&p);
        CHECK(g->on_curve(&p));
        /* a random point is in the subgroup with probability 1/h */
        int fast = g->in_subgroup(&p);
        CHECK(fast == in_subgroup_slow(g, &p));
        outside += (unsigned)!fast;

        /* [h]P: cofactor cleared, always inside */
        g->from_affine(&pj, &p);
        g->mul_limbs(&t, &pj, g->cofactor, g->cofactor_limbs);
        g->to_affine(&q, &t);
        CHECK(g->on_curve(&q));
        CHECK(g->in_subgroup(&q) && in_subgroup_slow(g, &q));

        /* [r]P: order divides h, outside unless O */
        g->mul_limbs(&t, &pj, cz_fr_modulus, CZ_FR_LIMBS);
        g->to_affine(&q, &t);
        CHECK(g->on_curve(&q));
        if (!g->affine_is_infinity(&q)) CHECK(!g->in_subgroup(&q) && !in_subgroup_slow(g, &q));

        /* off the curve */
        q = p;
        g->bump_y(&q);
        CHECK(!g->on_curve(&q));
        g->random_field_pair(&q);
        CHECK(!g->on_curve(&q));
    }
    CHECK(outside == iters);
    printf("%s: %u random curve points checked against [r]P = O\n", g->name, iters);
}

int main(void) {
    cz_test_init("test_point");
    check_edges(&g1_ops);
    check_edges(&g2_ops);
    check_ops(&g1_ops, "ec_g1_ops.txt");
    check_ops(&g2_ops, "ec_g2_ops.txt");
    check_subgroup_vectors(&g1_ops, "ec_g1_subgroup.txt");
    check_subgroup_vectors(&g2_ops, "ec_g2_subgroup.txt");
    unsigned iters = cz_test_iters(100);
    check_subgroup_random(&g1_ops, iters);
    check_subgroup_random(&g2_ops, iters / 2 ? iters / 2 : 1);
    return cz_test_finish("test_point");
}
