/* The Montgomery core's two implementations (portable C and, where the
 * compiler targets x86-64 with BMI2 and ADX, inline asm) against GMP, for
 * both BLS12-381 moduli: add, sub, neg, mul and sqr on random and boundary
 * inputs, including aliased outputs. The field tests exercise whichever path
 * the build selects; this one keeps the other path tested as well. */
#include <gmp.h>
#include <string.h>

#include "ff/fp.h"
#include "ff/fr.h"
#include "ff/mont_impl.h"
#include "harness/harness.h"

enum { MAX_LIMBS = 6 };

typedef struct {
    const char *name;
    const uint64_t *m;
    int n;
    uint64_t minv; /* -m^-1 mod 2^64, derived below */
    mpz_t M, R;    /* the modulus and 2^(64n) mod M */
} modulus;

/* The operations under test, indexed by implementation. */
typedef struct {
    const char *name;
    void (*add)(uint64_t *, const uint64_t *, const uint64_t *, const modulus *);
    void (*sub)(uint64_t *, const uint64_t *, const uint64_t *, const modulus *);
    void (*neg)(uint64_t *, const uint64_t *, const modulus *);
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *, const modulus *);
    void (*sqr)(uint64_t *, const uint64_t *, const modulus *);
} impl;

/* n is a run-time value here, so each wrapper switches to constant-n calls. */
#define DISPATCH_N(mod, call4, call6)                                                              \
    do {                                                                                           \
        if ((mod)->n == 4)                                                                         \
            call4;                                                                                 \
        else                                                                                       \
            call6;                                                                                 \
    } while (0)

static void c_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *md) {
    DISPATCH_N(md, mont_add_c(r, a, b, md->m, 4), mont_add_c(r, a, b, md->m, 6));
}
static void c_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *md) {
    DISPATCH_N(md, mont_sub_c(r, a, b, md->m, 4), mont_sub_c(r, a, b, md->m, 6));
}
static void c_neg(uint64_t *r, const uint64_t *a, const modulus *md) {
    DISPATCH_N(md, mont_neg_c(r, a, md->m, 4), mont_neg_c(r, a, md->m, 6));
}
static void c_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *md) {
    DISPATCH_N(md, mont_mul_c(r, a, b, md->m, md->minv, 4),
               mont_mul_c(r, a, b, md->m, md->minv, 6));
}
static void c_sqr(uint64_t *r, const uint64_t *a, const modulus *md) {
    DISPATCH_N(md, mont_mul_c(r, a, a, md->m, md->minv, 4),
               mont_mul_c(r, a, a, md->m, md->minv, 6));
}

#ifdef CZ_MONT_HAVE_X86_64
static void x_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *md) {
    DISPATCH_N(md, mont_add4_x86_64(r, a, b, md->m), mont_add6_x86_64(r, a, b, md->m));
}
static void x_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *md) {
    DISPATCH_N(md, mont_sub4_x86_64(r, a, b, md->m), mont_sub6_x86_64(r, a, b, md->m));
}
static void x_neg(uint64_t *r, const uint64_t *a, const modulus *md) {
    DISPATCH_N(md, mont_neg4_x86_64(r, a, md->m), mont_neg6_x86_64(r, a, md->m));
}
static void x_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const modulus *md) {
    DISPATCH_N(md, mont_mul4_x86_64(r, a, b, md->m, md->minv),
               mont_mul6_x86_64(r, a, b, md->m, md->minv));
}
static void x_sqr(uint64_t *r, const uint64_t *a, const modulus *md) {
    /* the 4-limb squaring is the multiplication (see mont_x86_64.h) */
    DISPATCH_N(md, mont_mul4_x86_64(r, a, a, md->m, md->minv),
               mont_sqr6_x86_64(r, a, md->m, md->minv));
}
#endif

static const impl impls[] = {
    {"portable", c_add, c_sub, c_neg, c_mul, c_sqr},
#ifdef CZ_MONT_HAVE_X86_64
    {"x86-64 asm", x_add, x_sub, x_neg, x_mul, x_sqr},
#endif
};

static void to_mpz(mpz_t r, const uint64_t *limbs, int n) {
    mpz_import(r, (size_t)n, -1, 8, 0, 0, limbs);
}

/* v (0 <= v < M) as n limbs. */
static void from_mpz(uint64_t *limbs, const mpz_t v, int n) {
    memset(limbs, 0, 8 * (size_t)n);
    mpz_export(limbs, NULL, -1, 8, 0, 0, v);
}

/* limbs hold exactly `want` mod M, fully reduced */
static int holds(const modulus *md, const uint64_t *limbs, const mpz_t want) {
    mpz_t got, w;
    mpz_inits(got, w, NULL);
    to_mpz(got, limbs, md->n);
    mpz_mod(w, want, md->M);
    int ok = mpz_cmp(got, w) == 0;
    mpz_clears(got, w, NULL);
    return ok;
}

/* Montgomery products: r * 2^(64n) = a * b (mod M) and r < M. */
static int holds_mont(const modulus *md, const uint64_t *r, const mpz_t a, const mpz_t b) {
    mpz_t lhs, rhs;
    mpz_inits(lhs, rhs, NULL);
    to_mpz(lhs, r, md->n);
    int ok = mpz_cmp(lhs, md->M) < 0;
    mpz_mul(lhs, lhs, md->R);
    mpz_mod(lhs, lhs, md->M);
    mpz_mul(rhs, a, b);
    mpz_mod(rhs, rhs, md->M);
    ok = ok && mpz_cmp(lhs, rhs) == 0;
    mpz_clears(lhs, rhs, NULL);
    return ok;
}

/* Operand number i: boundary values first, then structured and uniform ones. */
static void pick(const modulus *md, mpz_t v, unsigned i) {
    uint8_t bytes[8 * MAX_LIMBS + 8];
    switch (i) {
    case 0: mpz_set_ui(v, 0); return;
    case 1: mpz_set_ui(v, 1); return;
    case 2: mpz_sub_ui(v, md->M, 1); return;
    case 3: mpz_sub_ui(v, md->M, 2); return;
    case 4: mpz_fdiv_q_2exp(v, md->M, 1); return;
    case 5: mpz_fdiv_q_2exp(v, md->M, 1), mpz_add_ui(v, v, 1); return;
    case 6: mpz_set(v, md->R); return; /* Montgomery one */
    case 7: mpz_sub(v, md->M, md->R); return;
    default: break;
    }
    cz_test_rand_bytes(bytes, sizeof bytes);
    switch (i % 4) {
    case 0: memset(bytes, 0xff, 8 * (size_t)md->n); break; /* all ones: reduced to M - k */
    case 1: memset(bytes + 8, 0, 4 * (size_t)md->n); break;
    default: break;
    }
    mpz_import(v, sizeof bytes, 1, 1, 0, 0, bytes);
    mpz_mod(v, v, md->M);
    if (i % 8 == 3) { /* close below M */
        mpz_fdiv_r_2exp(v, v, 32);
        mpz_sub(v, md->M, v);
        mpz_sub_ui(v, v, 1);
    }
}

static void check_impl(const impl *im, const modulus *md, unsigned iters) {
    mpz_t a, b, want;
    mpz_inits(a, b, want, NULL);
    uint64_t la[MAX_LIMBS], lb[MAX_LIMBS], r[MAX_LIMBS];
    for (unsigned it = 0; it < iters; it++) {
        /* every pair of boundary values first, then random pairs */
        pick(md, a, it < 64 ? it % 8 : it);
        pick(md, b, it < 64 ? it / 8 : it * 7 + 1);
        from_mpz(la, a, md->n);
        from_mpz(lb, b, md->n);

        im->add(r, la, lb, md), mpz_add(want, a, b), CHECK(holds(md, r, want));
        im->sub(r, la, lb, md), mpz_sub(want, a, b), CHECK(holds(md, r, want));
        im->neg(r, la, md), mpz_neg(want, a), CHECK(holds(md, r, want));
        im->mul(r, la, lb, md), CHECK(holds_mont(md, r, a, b));
        im->sqr(r, la, md), CHECK(holds_mont(md, r, a, a));

        /* aliased outputs: r = a op r, r = r^2 */
        memcpy(r, lb, sizeof r);
        im->mul(r, la, r, md), CHECK(holds_mont(md, r, a, b));
        memcpy(r, la, sizeof r);
        im->sqr(r, r, md), CHECK(holds_mont(md, r, a, a));
        memcpy(r, lb, sizeof r);
        im->sub(r, la, r, md), mpz_sub(want, a, b), CHECK(holds(md, r, want));
        memcpy(r, la, sizeof r);
        im->add(r, r, r, md), mpz_add(want, a, a), CHECK(holds(md, r, want));
    }
    printf("%s, %s: %u cases checked against GMP\n", md->name, im->name, iters);
    mpz_clears(a, b, want, NULL);
}

/* Constant limb counts at each call, as in the library (the inlined loops
 * are sized for at most CZ_MONT_MAX_LIMBS). */
static void c_mulwide(uint64_t *w, const uint64_t *a, const uint64_t *b, const modulus *md) {
    if (md->n == 6) mont_mulwide_c(w, a, b, 6);
    else mont_mulwide_c(w, a, b, 4);
}

static void c_redc(uint64_t *r, const uint64_t *w, const modulus *md) {
    if (md->n == 6) mont_redc_c(r, w, md->m, md->minv, 6);
    else mont_redc_c(r, w, md->m, md->minv, 4);
}

/* The full-width product and the separate reduction (used by the Fp2 and
 * Fp12 code with operands below 2M): w = a * b exactly, and redc(w) R = w
 * (mod M) with redc(w) < M, on both paths. */
static void check_wide(const modulus *md, unsigned iters) {
    mpz_t a, b, prod, got;
    mpz_inits(a, b, prod, got, NULL);
    uint64_t la[MAX_LIMBS], lb[MAX_LIMBS], r[MAX_LIMBS], w[2 * MAX_LIMBS];
    for (unsigned it = 0; it < iters; it++) {
        pick(md, a, it < 64 ? it % 8 : it);
        pick(md, b, it < 64 ? it / 8 : it * 7 + 1);
        /* operands up to 2M - 1 where w < 4M^2 still meets redc's bound
         * w < M 2^(64n) (Fp: 4M < 2^384; Fr's 4M exceeds 2^256) */
        if (md->n == 6 && it % 3 == 1) mpz_add(a, a, md->M);
        if (md->n == 6 && it % 5 == 2) mpz_add(b, b, md->M);
        from_mpz(la, a, md->n);
        from_mpz(lb, b, md->n);
        mpz_mul(prod, a, b);
        for (int path = 0; path < 2; path++) {
            memset(w, 0, sizeof w);
#ifdef CZ_MONT_HAVE_X86_64
            if (path == 1 && md->n == 6) mont_mulwide6_x86_64(w, la, lb);
            else if (path == 1) continue;
            else c_mulwide(w, la, lb, md);
#else
            if (path == 1) continue;
            c_mulwide(w, la, lb, md);
#endif
            to_mpz(got, w, 2 * md->n);
            CHECK(mpz_cmp(got, prod) == 0);
#ifdef CZ_MONT_HAVE_X86_64
            if (path == 1) mont_redc6_x86_64(r, w, md->m, md->minv);
            else c_redc(r, w, md);
#else
            c_redc(r, w, md);
#endif
            to_mpz(got, r, md->n);
            CHECK(mpz_cmp(got, md->M) < 0);
            mpz_mul(got, got, md->R);
            mpz_sub(got, got, prod);
            CHECK(mpz_divisible_p(got, md->M));
        }
    }
    printf("%s: %u wide products and reductions checked against GMP\n", md->name, iters);
    mpz_clears(a, b, prod, got, NULL);
}

static void modulus_init(modulus *md, const char *name, const uint64_t *m, int n) {
    md->name = name;
    md->m = m;
    md->n = n;
    /* Newton's iteration for m^-1 mod 2^64: x = m0 is right to 3 bits (m0
     * odd), each step doubles that. */
    uint64_t x = m[0];
    for (int i = 0; i < 5; i++) x *= 2 - m[0] * x;
    md->minv = 0 - x;
    mpz_inits(md->M, md->R, NULL);
    to_mpz(md->M, m, n);
    mpz_set_ui(md->R, 1);
    mpz_mul_2exp(md->R, md->R, 64 * (unsigned)n);
    mpz_mod(md->R, md->R, md->M);
}

int main(void) {
    cz_test_init("test_mont_paths");
    unsigned iters = cz_test_iters(3000);
    modulus mods[2];
    modulus_init(&mods[0], "fp", cz_fp_modulus, CZ_FP_LIMBS);
    modulus_init(&mods[1], "fr", cz_fr_modulus, CZ_FR_LIMBS);
    CHECK(mods[0].minv == 0x89f3fffcfffcfffdULL); /* the constants fp.c / fr.c use */
    CHECK(mods[1].minv == 0xfffffffeffffffffULL);
#ifndef CZ_MONT_HAVE_X86_64
    printf("x86-64 asm path not built here (needs x86-64 with BMI2 and ADX): portable only\n");
#endif
    for (size_t k = 0; k < sizeof impls / sizeof impls[0]; k++)
        for (int i = 0; i < 2; i++) check_impl(&impls[k], &mods[i], iters);
    for (int i = 0; i < 2; i++) check_wide(&mods[i], iters);
    for (int i = 0; i < 2; i++) mpz_clears(mods[i].M, mods[i].R, NULL);
    return cz_test_finish("test_mont_paths");
}
