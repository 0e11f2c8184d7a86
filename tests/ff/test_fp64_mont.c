/* The FP64-limb Montgomery product (src/gpu/fp64_mont.h, the device
 * product's portable source) on the CPU, in every build (no GPU needed):
 * bit-exact against the CPU field (src/ff's cz_fp_mul / cz_fr_mul, through
 * the project's Montgomery form) on random inputs, and against GMP
 * (a b R^-1 mod p, computed here) on the edge cases: 0, 1, 2, p - 1, p,
 * p + 1, R mod p, R^2 mod p, the largest allowed inputs (2p - 1 for Fp;
 * every limb 2^51 - 1, i.e. 2^255 - 1, for Fr), all-ones and alternating
 * limbs, limbs 2^(w-1) (rounding ties), and lazy inputs (>= p) at random.
 * CZ_TEST_ITERS sets the random products per field (default 10^6;
 * docs/TESTING.md records a run of 10^8), CZ_TEST_SEED the seed. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "ff/fp.h"
#include "ff/fr.h"
#include "gpu/fp64_mont.h"
#include "harness/harness.h"

/* Uniform canonical elements by rejection (about 80 % / 90 % of draws kept). */
static void rand_fp(cz_fp *r) {
    uint64_t l[6];
    do {
        for (int i = 0; i < 6; i++) l[i] = cz_test_rand64();
        l[5] >>= 3;
    } while (!cz_fp_from_limbs(r, l));
}
static void rand_fr(cz_fr *r) {
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++) l[i] = cz_test_rand64();
        l[3] >>= 1;
    } while (!cz_fr_from_limbs(r, l));
}

typedef struct {
    const char *name;
    int field, n, w;
    mpz_t p, r_inv; /* the modulus, R^-1 mod p for this representation's R */
} fp64_field;

static fp64_field FP, FR;

static void field_init(fp64_field *f, const char *name, int field, const char *p_hex) {
    f->name = name;
    f->field = field;
    f->n = cz_fp64_limbs(field);
    f->w = cz_fp64_bits(field);
    mpz_init_set_str(f->p, p_hex, 16);
    mpz_init(f->r_inv);
    mpz_t R;
    mpz_init(R);
    mpz_ui_pow_ui(R, 2, (unsigned long)(f->n * f->w));
    CHECK(mpz_invert(f->r_inv, R, f->p) != 0);
    mpz_clear(R);
}

/* The value of FP64 limbs; 0 (and a failure) when a limb is not an integer
 * in [0, 2^w). */
static int limbs_value(mpz_t v, const fp64_field *f, const double *l) {
    mpz_set_ui(v, 0);
    for (int i = f->n - 1; i >= 0; i--) {
        if (!(l[i] >= 0 && l[i] < (double)(1ULL << f->w) && l[i] == (double)(uint64_t)l[i]))
            return 0;
        mpz_mul_2exp(v, v, (mp_bitcnt_t)f->w);
        mpz_add_ui(v, v, (unsigned long)(uint64_t)l[i]);
    }
    return 1;
}

/* FP64 limbs of v (0 <= v < 2^(n w)). */
static void limbs_set(double *l, const fp64_field *f, const mpz_t v) {
    mpz_t t;
    mpz_init_set(t, v);
    for (int i = 0; i < f->n; i++) {
        l[i] = (double)(mpz_get_ui(t) & ((1ULL << f->w) - 1));
        mpz_fdiv_q_2exp(t, t, (mp_bitcnt_t)f->w);
    }
    CHECK(mpz_sgn(t) == 0);
    mpz_clear(t);
}

/* r = a b R^-1 mod p, canonical limbs, by GMP. Returns 1 when equal. */
static int gmp_agrees(const fp64_field *f, const double *a, const double *b, const double *r) {
    mpz_t x, y, z, want;
    mpz_inits(x, y, z, want, NULL);
    int ok = limbs_value(x, f, a) && limbs_value(y, f, b) && limbs_value(z, f, r);
    mpz_mul(want, x, y);
    mpz_mul(want, want, f->r_inv);
    mpz_mod(want, want, f->p);
    ok = ok && mpz_cmp(want, z) == 0;
    mpz_clears(x, y, z, want, NULL);
    return ok;
}

static void mul(const fp64_field *f, double *r, const double *a, const double *b) {
    if (f->field == CZ_FP64_FP)
        cz_fp64_mont_mul(r, a, b, CZ_FP64_FP);
    else
        cz_fp64_mont_mul(r, a, b, CZ_FP64_FR);
}

/* Random products through the project's form, against cz_fp_mul / cz_fr_mul;
 * one in 64 also against GMP in FP64 form. */
static void check_random(unsigned iters) {
    unsigned bad_fp = 0, bad_fr = 0, bad_gmp = 0;
    for (unsigned it = 0; it < iters; it++) {
        cz_fp x, y, z, got;
        cz_fp64_fp a, b, c;
        rand_fp(&x), rand_fp(&y);
        cz_fp_mul(&z, &x, &y);
        cz_fp64_fp_load(&a, x.l), cz_fp64_fp_load(&b, y.l);
        cz_fp64_fp_mul(&c, &a, &b);
        cz_fp64_fp_store(got.l, &c);
        if (memcmp(&got, &z, sizeof z)) {
            if (bad_fp++ < 4) fprintf(stderr, "fp64 Fp: product %u differs from cz_fp_mul\n", it);
        }
        if (it % 64 == 0 && !gmp_agrees(&FP, a.l, b.l, c.l)) bad_gmp++;

        cz_fr s, t, u, got_r;
        cz_fp64_fr d, e, g;
        rand_fr(&s), rand_fr(&t);
        cz_fr_mul(&u, &s, &t);
        cz_fp64_fr_load(&d, s.l), cz_fp64_fr_load(&e, t.l);
        cz_fp64_fr_mul(&g, &d, &e);
        cz_fp64_fr_store(got_r.l, &g);
        if (memcmp(&got_r, &u, sizeof u)) {
            if (bad_fr++ < 4) fprintf(stderr, "fp64 Fr: product %u differs from cz_fr_mul\n", it);
        }
        if (it % 64 == 0 && !gmp_agrees(&FR, d.l, e.l, g.l)) bad_gmp++;
    }
    printf("random: %u Fp and %u Fr products, %u Fp / %u Fr differ from src/ff, %u from GMP\n",
           iters, iters, bad_fp, bad_fr, bad_gmp);
    CHECK(bad_fp == 0 && bad_fr == 0 && bad_gmp == 0);
}

/* The conversions alone: load / store round trips, and Fr's load is the
 * halving x -> x 2^-1 mod r (GMP). */
static void check_conversions(unsigned iters) {
    unsigned bad = 0;
    mpz_t v, want, two_inv;
    mpz_inits(v, want, two_inv, NULL);
    mpz_set_ui(two_inv, 2);
    CHECK(mpz_invert(two_inv, two_inv, FR.p) != 0);
    for (unsigned it = 0; it < iters; it++) {
        cz_fp x, back;
        cz_fp64_fp a;
        rand_fp(&x);
        cz_fp64_fp_load(&a, x.l);
        cz_fp64_fp_store(back.l, &a);
        bad += memcmp(&x, &back, sizeof x) != 0;
        mpz_import(want, 6, -1, 8, 0, 0, x.l);
        bad += !limbs_value(v, &FP, a.l) || mpz_cmp(v, want) != 0;

        cz_fr s, back_r;
        cz_fp64_fr d;
        rand_fr(&s);
        if (it == 0) memset(&s, 0, sizeof s);
        cz_fp64_fr_load(&d, s.l);
        cz_fp64_fr_store(back_r.l, &d);
        bad += memcmp(&s, &back_r, sizeof s) != 0;
        mpz_import(want, 4, -1, 8, 0, 0, s.l);
        mpz_mul(want, want, two_inv);
        mpz_mod(want, want, FR.p);
        bad += !limbs_value(v, &FR, d.l) || mpz_cmp(v, want) != 0;
    }
    mpz_clears(v, want, two_inv, NULL);
    if (bad) fprintf(stderr, "conversions: %u mismatches\n", bad);
    CHECK(bad == 0);
}

#define N_EDGE 28

/* Edge inputs of a field as integers in the FP64 form, all within the
 * product's input bounds (Fp: < 2p; Fr: < 2^255). */
static int edge_values(const fp64_field *f, mpz_t *e) {
    int k = 0;
    mpz_t R, top;
    mpz_inits(R, top, NULL);
    mpz_ui_pow_ui(R, 2, (unsigned long)(f->n * f->w));
    mpz_set_ui(e[k++], 0);
    mpz_set_ui(e[k++], 1);
    mpz_set_ui(e[k++], 2);
    mpz_sub_ui(e[k++], f->p, 1);
    mpz_sub_ui(e[k++], f->p, 2);
    mpz_set(e[k++], f->p);
    mpz_add_ui(e[k++], f->p, 1);
    mpz_mod(e[k++], R, f->p);                    /* Montgomery one */
    mpz_powm_ui(e[k], R, 2, f->p), k++;          /* R^2 mod p */
    mpz_fdiv_q_2exp(e[k++], f->p, 1);            /* (p - 1) / 2 */
    mpz_mul_2exp(top, f->p, 1);                  /* the largest allowed value */
    if (f->field == CZ_FP64_FR) mpz_set(top, R); /* Fr: every value < 2^255 */
    mpz_sub_ui(e[k++], top, 1);                  /* 2p - 1, 2^255 - 1 */
    mpz_sub_ui(e[k++], top, 2);
    mpz_sub(e[k++], top, f->p);                    /* p (Fp), 2^255 - p (Fr) */
    mpz_fdiv_q_2exp(e[k++], R, 1);                 /* 2^(nw - 1) */
    mpz_sub_ui(e[k++], R, 1);                      /* all ones: Fr only (Fp: > 2p) */
    mpz_ui_pow_ui(e[k++], 2, (unsigned long)f->w); /* 2^w: one limb carries */
    mpz_ui_pow_ui(e[k], 2, (unsigned long)f->w), mpz_sub_ui(e[k], e[k], 1), k++;
    /* alternating limbs 2^w - 1, 0, ... and 0, 2^w - 1, ... */
    mpz_set_ui(e[k], 0), mpz_set_ui(e[k + 1], 0);
    for (int i = f->n - 1; i >= 0; i--) {
        mpz_mul_2exp(e[k], e[k], (mp_bitcnt_t)f->w),
            mpz_mul_2exp(e[k + 1], e[k + 1], (mp_bitcnt_t)f->w);
        if (i % 2 == 0)
            mpz_add_ui(e[k], e[k], (unsigned long)((1ULL << f->w) - 1));
        else
            mpz_add_ui(e[k + 1], e[k + 1], (unsigned long)((1ULL << f->w) - 1));
    }
    k += 2;
    /* every limb 2^(w-1) (below the top one, and all): times a value with
     * odd limbs each limb product is a tie, x y = 2^(w-1) mod 2^w, which
     * round to nearest even splits with |L| = 2^(w-1), the bound's edge */
    mpz_set_ui(e[k], 0), mpz_set_ui(e[k + 1], 0);
    for (int i = f->n - 1; i >= 0; i--) {
        mpz_mul_2exp(e[k], e[k], (mp_bitcnt_t)f->w),
            mpz_mul_2exp(e[k + 1], e[k + 1], (mp_bitcnt_t)f->w);
        if (i < f->n - 1) mpz_add_ui(e[k], e[k], (unsigned long)(1ULL << (f->w - 1)));
        mpz_add_ui(e[k + 1], e[k + 1], (unsigned long)(1ULL << (f->w - 1)));
    }
    k += 2;
    mpz_add_ui(e[k++], R, 0), mpz_sub(e[k - 1], e[k - 1], f->p); /* R - p */
    mpz_sub_ui(e[k++], f->p, 3);
    mpz_mul_2exp(e[k++], f->p, 0), mpz_add_ui(e[k - 1], e[k - 1], 12345);
    mpz_set_ui(e[k++], 0xffffffffULL);
    /* keep the ones within the input bound */
    int kept = 0;
    for (int i = 0; i < k; i++)
        if (mpz_cmp(e[i], top) < 0 && mpz_cmp(e[i], R) < 0) mpz_swap(e[kept++], e[i]);
    mpz_clears(R, top, NULL);
    return kept;
}

/* Every pair of edge values, each edge value with random and lazy random
 * values, all against GMP. */
static void check_edges(const fp64_field *f, unsigned lazy_iters) {
    mpz_t e[N_EDGE], v, top;
    for (int i = 0; i < N_EDGE; i++) mpz_init(e[i]);
    mpz_inits(v, top, NULL);
    const int ne = edge_values(f, e);
    double a[CZ_FP64_MAX_LIMBS], b[CZ_FP64_MAX_LIMBS], r[CZ_FP64_MAX_LIMBS];
    unsigned bad = 0, count = 0;
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++) {
            limbs_set(a, f, e[i]);
            limbs_set(b, f, e[j]);
            mul(f, r, a, b);
            count++;
            if (!gmp_agrees(f, a, b, r)) {
                if (bad++ < 4) gmp_fprintf(stderr, "%s: %Zx * %Zx wrong\n", f->name, e[i], e[j]);
            }
        }
    /* lazy: uniform values below the input bound (2p for Fp, 2^255 for Fr),
     * alone and times each edge value */
    if (f->field == CZ_FP64_FP)
        mpz_mul_2exp(top, f->p, 1);
    else
        mpz_ui_pow_ui(top, 2, 255);
    for (unsigned it = 0; it < lazy_iters; it++) {
        uint64_t words[8];
        for (int k = 0; k < 8; k++) words[k] = cz_test_rand64();
        mpz_import(v, 8, -1, 8, 0, 0, words);
        mpz_mod(v, v, top);
        limbs_set(a, f, v);
        for (int k = 0; k < 8; k++) words[k] = cz_test_rand64();
        mpz_import(v, 8, -1, 8, 0, 0, words);
        mpz_mod(v, v, top);
        if (it < (unsigned)ne) mpz_set(v, e[it]);
        limbs_set(b, f, v);
        mul(f, r, a, b);
        count++;
        if (!gmp_agrees(f, a, b, r)) bad++;
        mul(f, r, a, a);
        count++;
        if (!gmp_agrees(f, a, a, r)) bad++;
    }
    printf("%s: %d edge values, %u products (edge x edge, lazy x lazy, squares), %u wrong\n",
           f->name, ne, count, bad);
    CHECK(bad == 0);
    for (int i = 0; i < N_EDGE; i++) mpz_clear(e[i]);
    mpz_clears(v, top, NULL);
}

int main(void) {
    cz_test_init("ff/test_fp64_mont");
    field_init(
        &FP, "Fp", CZ_FP64_FP,
        "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fe"
        "ffffffffaaab");
    field_init(&FR, "Fr", CZ_FP64_FR,
               "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
    /* the limb constants of the header against the moduli */
    mpz_t v;
    mpz_init(v);
    double pl[CZ_FP64_MAX_LIMBS];
    for (int i = 0; i < FP.n; i++) pl[i] = (double)cz_fp64_modulus(CZ_FP64_FP, i);
    CHECK(limbs_value(v, &FP, pl) && mpz_cmp(v, FP.p) == 0);
    for (int i = 0; i < FR.n; i++) pl[i] = (double)cz_fp64_modulus(CZ_FP64_FR, i);
    CHECK(limbs_value(v, &FR, pl) && mpz_cmp(v, FR.p) == 0);
    mpz_clear(v);

    unsigned iters = cz_test_iters(1000000);
    check_conversions(iters < 100000 ? iters : 100000);
    check_edges(&FP, 20000);
    check_edges(&FR, 20000);
    check_random(iters);
    mpz_clears(FP.p, FP.r_inv, FR.p, FR.r_inv, NULL);
    return cz_test_finish("ff/test_fp64_mont");
}
