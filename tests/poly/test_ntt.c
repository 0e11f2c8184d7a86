/* NTT over Fr against independent definitions: the naive O(n^2) DFT,
 * Horner evaluation at single points, schoolbook polynomial products and
 * divisions, bellperson's omega for 2^27, and @noble/curves' FFT vectors. */
#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "harness/harness.h"
#include "poly/ntt.h"

/* A random element, drawn directly in Montgomery form: any limbs below r
 * are a valid element, and top limb < r's top limb keeps them below r. */
static void rand_fr(cz_fr *r) {
    for (int i = 0; i < 4; i++) r->l[i] = cz_test_rand64();
    r->l[3] %= cz_fr_modulus[3];
}

static void rand_vec(cz_fr *v, size_t n) {
    for (size_t i = 0; i < n; i++) rand_fr(&v[i]);
}

static int vec_equal(const cz_fr *a, const cz_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!cz_fr_equal(&a[i], &b[i])) return 0;
    return 1;
}

static size_t rev(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

static void permute_rev(cz_fr *out, const cz_fr *in, unsigned k) {
    for (size_t p = 0; p < ((size_t)1 << k); p++) out[p] = in[rev(p, k)];
}

static void pow_u64(cz_fr *r, const cz_fr *a, uint64_t e) {
    cz_fr_pow(r, a, &e, 1);
}

/* The primitive 2^k-th root as bellperson defines it, from the field alone. */
static void spec_omega(cz_fr *w, unsigned k) {
    cz_fr_root_of_unity(w);
    for (unsigned i = k; i < 32; i++) cz_fr_sqr(w, w);
}

/* out[j] = sum_i in[i] * (shift * root^j)^i, times scale. */
static void naive_dft(cz_fr *out, const cz_fr *in, size_t n, const cz_fr *root, const cz_fr *shift,
                      const cz_fr *scale) {
    cz_fr point = *shift;
    for (size_t j = 0; j < n; j++) {
        cz_fr acc = cz_fr_zero, xp = cz_fr_one, t;
        for (size_t i = 0; i < n; i++) {
            cz_fr_mul(&t, &in[i], &xp);
            cz_fr_add(&acc, &acc, &t);
            cz_fr_mul(&xp, &xp, &point);
        }
        cz_fr_mul(&out[j], &acc, scale);
        cz_fr_mul(&point, &point, root);
    }
}

/* Reference for every flavour, by definition (ntt.h): forward evaluates at
 * g^c omega^j; inverse interpolates, then scales coefficient i by g^-ci. */
static void reference(cz_fr *out, const cz_fr *in, unsigned k, cz_ntt_order order,
                      cz_ntt_direction dir, cz_ntt_kind kind) {
    size_t n = (size_t)1 << k;
    cz_fr *nat_in = malloc(n * sizeof(cz_fr)), *nat_out = malloc(n * sizeof(cz_fr));
    if (order == CZ_NTT_RN)
        permute_rev(nat_in, in, k);
    else
        memcpy(nat_in, in, n * sizeof(cz_fr));
    cz_fr w, g, one = cz_fr_one;
    spec_omega(&w, k);
    cz_fr_from_u64(&g, 7);
    if (dir == CZ_NTT_FORWARD) {
        naive_dft(nat_out, nat_in, n, &w, kind == CZ_NTT_COSET ? &g : &one, &one);
    } else {
        cz_fr winv, ninv, ginv, f;
        cz_fr_inv(&winv, &w);
        cz_fr_from_u64(&ninv, n);
        cz_fr_inv(&ninv, &ninv);
        naive_dft(nat_out, nat_in, n, &winv, &one, &ninv);
        if (kind == CZ_NTT_COSET) {
            cz_fr_inv(&ginv, &g);
            f = one;
            for (size_t i = 0; i < n; i++) {
                cz_fr_mul(&nat_out[i], &nat_out[i], &f);
                cz_fr_mul(&f, &f, &ginv);
            }
        }
    }
    if (order == CZ_NTT_NR)
        permute_rev(out, nat_out, k);
    else
        memcpy(out, nat_out, n * sizeof(cz_fr));
    free(nat_in);
    free(nat_out);
}

static const cz_ntt_order orders[3] = {CZ_NTT_NN, CZ_NTT_NR, CZ_NTT_RN};
static const cz_ntt_direction dirs[2] = {CZ_NTT_FORWARD, CZ_NTT_INVERSE};
static const cz_ntt_kind kinds[2] = {CZ_NTT_PLAIN, CZ_NTT_COSET};

/* Every order x direction x kind against the naive DFT. */
static void check_against_naive(cz_ntt_domain *d) {
    unsigned k = d->log_size;
    size_t n = d->size;
    cz_fr *x = malloc(n * sizeof(cz_fr)), *y = malloc(n * sizeof(cz_fr)),
          *want = malloc(n * sizeof(cz_fr));
    for (int o = 0; o < 3; o++)
        for (int di = 0; di < 2; di++)
            for (int ki = 0; ki < 2; ki++) {
                rand_vec(x, n);
                memcpy(y, x, n * sizeof(cz_fr));
                CHECK(cz_ntt_transform(d, y, orders[o], dirs[di], kinds[ki], NULL) == CZ_OK);
                reference(want, x, k, orders[o], dirs[di], kinds[ki]);
                int ok = vec_equal(y, want, n);
                if (!ok)
                    printf("  mismatch: k=%u leaf=%u col=%u order=%d dir=%d kind=%d\n", k,
                           d->leaf_log, d->column_log, o, di, ki);
                CHECK(ok);
            }
    free(x);
    free(y);
    free(want);
}

static void test_naive_small(void) {
    for (unsigned k = 0; k <= 8; k++) {
        cz_ntt_domain d;
        CHECK(cz_ntt_domain_init(&d, k, NULL) == CZ_OK);
        check_against_naive(&d);
        cz_ntt_domain_free(&d);
    }
}

/* The multi-level paths (three and four levels, tiles narrower than rows)
 * on sizes where the naive DFT is still affordable. */
static void test_naive_blocked(void) {
    static const unsigned cases[][3] = {
        /* k, leaf_log, column_log */
        {4, 1, 1}, {5, 2, 1}, {7, 2, 2}, {8, 3, 2}, {9, 3, 3}, {9, 4, 2}, {9, 3, 1}, {9, 5, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cz_ntt_domain d;
        CHECK(cz_ntt_domain_init(&d, cases[i][0], NULL) == CZ_OK);
        CHECK(cz_ntt_domain_set_blocking(&d, cases[i][1], cases[i][2], NULL) == CZ_OK);
        check_against_naive(&d);
        cz_ntt_domain_free(&d);
    }
}

/* Horner: sum_i c[i] x^i */
static void horner(cz_fr *r, const cz_fr *c, size_t n, const cz_fr *x) {
    cz_fr acc = cz_fr_zero;
    for (size_t i = n; i-- > 0;) {
        cz_fr_mul(&acc, &acc, x);
        cz_fr_add(&acc, &acc, &c[i]);
    }
    *r = acc;
}

/* Large sizes (default blocking, split and parallel paths): a few output
 * points against Horner evaluation, all flavours, then round trips. */
static void test_large_spot(unsigned k, unsigned leaf, unsigned col) {
    size_t n = (size_t)1 << k;
    cz_ntt_domain d;
    CHECK(cz_ntt_domain_init(&d, k, NULL) == CZ_OK);
    if (leaf) CHECK(cz_ntt_domain_set_blocking(&d, leaf, col, NULL) == CZ_OK);
    cz_fr *x = malloc(n * sizeof(cz_fr)), *y = malloc(n * sizeof(cz_fr)),
          *nat = malloc(n * sizeof(cz_fr));
    cz_fr w, g, winv, ginv, ninv;
    spec_omega(&w, k);
    cz_fr_inv(&winv, &w);
    cz_fr_from_u64(&g, 7);
    cz_fr_inv(&ginv, &g);
    cz_fr_from_u64(&ninv, n);
    cz_fr_inv(&ninv, &ninv);
    for (int o = 0; o < 3; o++)
        for (int di = 0; di < 2; di++)
            for (int ki = 0; ki < 2; ki++) {
                rand_vec(x, n);
                memcpy(y, x, n * sizeof(cz_fr));
                CHECK(cz_ntt_transform(&d, y, orders[o], dirs[di], kinds[ki], NULL) == CZ_OK);
                /* natural-order input, for evaluating */
                if (orders[o] == CZ_NTT_RN)
                    permute_rev(nat, x, k);
                else
                    memcpy(nat, x, n * sizeof(cz_fr));
                for (int s = 0; s < 6; s++) {
                    size_t j = s == 0 ? 0 : s == 1 ? n - 1 : cz_test_rand64() & (n - 1);
                    cz_fr pt, want;
                    if (dirs[di] == CZ_NTT_FORWARD) {
                        pow_u64(&pt, &w, j);
                        if (kinds[ki] == CZ_NTT_COSET) cz_fr_mul(&pt, &pt, &g);
                        horner(&want, nat, n, &pt);
                    } else { /* coefficient j = m^-1 sum_i X_i omega^-ij (g^-j) */
                        pow_u64(&pt, &winv, j);
                        horner(&want, nat, n, &pt);
                        cz_fr_mul(&want, &want, &ninv);
                        if (kinds[ki] == CZ_NTT_COSET) {
                            cz_fr gj;
                            pow_u64(&gj, &ginv, j);
                            cz_fr_mul(&want, &want, &gj);
                        }
                    }
                    size_t pos = orders[o] == CZ_NTT_NR ? rev(j, k) : j;
                    CHECK(cz_fr_equal(&y[pos], &want));
                }
            }
    cz_ntt_domain_free(&d);
    free(x);
    free(y);
    free(nat);
}

/* inverse(forward(x)) = x in every pairing of orders that chains. */
static void test_round_trips(void) {
    unsigned max_k = 16;
    for (unsigned k = 0; k <= max_k; k++) {
        size_t n = (size_t)1 << k;
        cz_ntt_domain d;
        CHECK(cz_ntt_domain_init(&d, k, NULL) == CZ_OK);
        cz_fr *x = malloc(n * sizeof(cz_fr)), *y = malloc(n * sizeof(cz_fr));
        rand_vec(x, n);
        for (int ki = 0; ki < 2; ki++) {
            cz_ntt_kind kind = kinds[ki];
            memcpy(y, x, n * sizeof(cz_fr));
            CHECK(cz_ntt_transform(&d, y, CZ_NTT_NN, CZ_NTT_FORWARD, kind, NULL) == CZ_OK);
            CHECK(k == 0 || kind == CZ_NTT_COSET || !vec_equal(x, y, n));
            CHECK(cz_ntt_transform(&d, y, CZ_NTT_NN, CZ_NTT_INVERSE, kind, NULL) == CZ_OK);
            CHECK(vec_equal(x, y, n));
            /* coefficients -> bit-reversed values -> coefficients */
            CHECK(cz_ntt_transform(&d, y, CZ_NTT_NR, CZ_NTT_FORWARD, kind, NULL) == CZ_OK);
            CHECK(cz_ntt_transform(&d, y, CZ_NTT_RN, CZ_NTT_INVERSE, kind, NULL) == CZ_OK);
            CHECK(vec_equal(x, y, n));
            /* values -> bit-reversed coefficients -> values */
            CHECK(cz_ntt_transform(&d, y, CZ_NTT_NR, CZ_NTT_INVERSE, kind, NULL) == CZ_OK);
            CHECK(cz_ntt_transform(&d, y, CZ_NTT_RN, CZ_NTT_FORWARD, kind, NULL) == CZ_OK);
            CHECK(vec_equal(x, y, n));
        }
        /* the natural-order shorthands */
        memcpy(y, x, n * sizeof(cz_fr));
        CHECK(cz_ntt_coset_forward(&d, y, NULL) == CZ_OK);
        CHECK(cz_ntt_coset_inverse(&d, y, NULL) == CZ_OK);
        CHECK(cz_ntt_forward(&d, y, NULL) == CZ_OK);
        CHECK(cz_ntt_inverse(&d, y, NULL) == CZ_OK);
        CHECK(vec_equal(x, y, n));
        cz_ntt_domain_free(&d);
        free(x);
        free(y);
    }
}

static void test_bit_reverse(void) {
    for (unsigned k = 0; k <= 17; k++) {
        if (k > 13 && k != 17) continue;
        size_t n = (size_t)1 << k;
        cz_fr *x = malloc(n * sizeof(cz_fr)), *y = malloc(n * sizeof(cz_fr)),
              *want = malloc(n * sizeof(cz_fr));
        for (size_t i = 0; i < n; i++) cz_fr_from_u64(&x[i], i);
        memcpy(y, x, n * sizeof(cz_fr));
        cz_ntt_bit_reverse(y, k);
        permute_rev(want, x, k);
        CHECK(vec_equal(y, want, n));
        free(x);
        free(y);
        free(want);
    }
}

static void test_domain_constants(void) {
    /* bellperson's omega for 2^27, canonical big-endian */
    static const uint8_t omega27[32] = {0x23, 0x39, 0x7a, 0x93, 0x00, 0xf8, 0xf9, 0x8b,
                                        0xec, 0xe8, 0xea, 0x22, 0x4f, 0x31, 0xd2, 0x5d,
                                        0xb9, 0x4f, 0x11, 0x01, 0xb1, 0xd7, 0xa6, 0x28,
                                        0xe2, 0xd0, 0xa7, 0x86, 0x9f, 0x03, 0x19, 0xed};
    static const uint8_t root32[32] = {0x16, 0xa2, 0xa1, 0x9e, 0xdf, 0xe8, 0x1f, 0x20,
                                       0xd0, 0x9b, 0x68, 0x19, 0x22, 0xc8, 0x13, 0xb4,
                                       0xb6, 0x36, 0x83, 0x50, 0x8c, 0x22, 0x80, 0xb9,
                                       0x38, 0x29, 0x97, 0x1f, 0x43, 0x9f, 0x0d, 0x2b};
    cz_fr want27, want32;
    CHECK(cz_fr_from_bytes_be(&want27, omega27));
    CHECK(cz_fr_from_bytes_be(&want32, root32));

    static const unsigned ks[] = {0, 1, 2, 3, 5, 16, 22, 27, 28, 32};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        unsigned k = ks[i];
        cz_ntt_domain d;
        CHECK(cz_ntt_domain_init(&d, k, NULL) == CZ_OK);
        CHECK(d.size == ((size_t)1 << k));
        CHECK(d.table_bytes == cz_ntt_domain_table_bytes(k));
        if (k == 27) CHECK(cz_fr_equal(&d.omega, &want27));
        if (k == 32) CHECK(cz_fr_equal(&d.omega, &want32));
        /* omega^(m/2) = -1 (primitive) and so omega^m = 1 */
        cz_fr t = d.omega, minus_one;
        cz_fr_neg(&minus_one, &cz_fr_one);
        for (unsigned j = 1; j < k; j++) cz_fr_sqr(&t, &t);
        if (k >= 1) CHECK(cz_fr_equal(&t, &minus_one));
        if (k >= 1) cz_fr_sqr(&t, &t);
        CHECK(cz_fr_is_one(&t));
        /* the other fields */
        cz_fr u, m, seven, gm;
        cz_fr_mul(&u, &d.omega, &d.omega_inv);
        CHECK(cz_fr_is_one(&u));
        cz_fr_from_u64(&m, (uint64_t)1 << k);
        cz_fr_mul(&u, &m, &d.size_inv);
        CHECK(cz_fr_is_one(&u));
        cz_fr_from_u64(&seven, 7);
        CHECK(cz_fr_equal(&d.gen, &seven));
        cz_fr_mul(&u, &d.gen, &d.gen_inv);
        CHECK(cz_fr_is_one(&u));
        uint64_t e[2] = {(uint64_t)1 << k, 0};
        cz_fr_pow(&gm, &seven, e, 2);
        cz_fr_sub(&gm, &gm, &cz_fr_one);
        cz_fr_mul(&u, &gm, &d.coset_vanishing_inv);
        CHECK(cz_fr_is_one(&u));
        cz_ntt_domain_free(&d);
    }
    /* the tables stay small: 5 MiB at 2^27 */
    CHECK(cz_ntt_domain_table_bytes(27) <= (5u << 20));
    cz_ntt_domain d;
    cz_error err;
    CHECK(cz_ntt_domain_init(&d, 33, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_ntt_domain_init(&d, 4, NULL) == CZ_OK);
    CHECK(cz_ntt_domain_set_blocking(&d, 0, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_ntt_domain_set_blocking(&d, 3, 4, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_ntt_domain_set_blocking(&d, CZ_NTT_LEAF_LOG_MAX + 1, 1, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_ntt_transform(&d, NULL, (cz_ntt_order)7, CZ_NTT_FORWARD, CZ_NTT_PLAIN, &err) ==
          CZ_E_INVALID_ARG);
    cz_ntt_domain_free(&d);
}

static void schoolbook(cz_fr *out, const cz_fr *a, size_t na, const cz_fr *b, size_t nb) {
    for (size_t i = 0; i < na + nb - 1; i++) out[i] = cz_fr_zero;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            cz_fr t;
            cz_fr_mul(&t, &a[i], &b[j]);
            cz_fr_add(&out[i + j], &out[i + j], &t);
        }
}

/* Products through the transform (plain, coset, and the bit-reversed chain)
 * equal schoolbook products. */
static void test_poly_mul(void) {
    unsigned iters = cz_test_iters(20);
    for (unsigned it = 0; it < iters; it++) {
        unsigned k = 1 + (unsigned)(cz_test_rand64() % 10);
        size_t n = (size_t)1 << k;
        size_t na = 1 + cz_test_rand64() % n;            /* na + nb - 1 <= n: */
        size_t nb = 1 + cz_test_rand64() % (n + 1 - na); /* no wrap-around */
        cz_ntt_domain d;
        CHECK(cz_ntt_domain_init(&d, k, NULL) == CZ_OK);
        cz_fr *a = calloc(n, sizeof(cz_fr)), *b = calloc(n, sizeof(cz_fr)),
              *want = calloc(2 * n, sizeof(cz_fr));
        cz_fr *fa = malloc(n * sizeof(cz_fr)), *fb = malloc(n * sizeof(cz_fr));
        rand_vec(a, na);
        rand_vec(b, nb);
        schoolbook(want, a, na, b, nb);
        for (int variant = 0; variant < 3; variant++) {
            memcpy(fa, a, n * sizeof(cz_fr));
            memcpy(fb, b, n * sizeof(cz_fr));
            if (variant < 2) {
                cz_ntt_kind kind = variant ? CZ_NTT_COSET : CZ_NTT_PLAIN;
                CHECK(cz_ntt_transform(&d, fa, CZ_NTT_NN, CZ_NTT_FORWARD, kind, NULL) == CZ_OK);
                CHECK(cz_ntt_transform(&d, fb, CZ_NTT_NN, CZ_NTT_FORWARD, kind, NULL) == CZ_OK);
                for (size_t i = 0; i < n; i++) cz_fr_mul(&fa[i], &fa[i], &fb[i]);
                CHECK(cz_ntt_transform(&d, fa, CZ_NTT_NN, CZ_NTT_INVERSE, kind, NULL) == CZ_OK);
            } else { /* NR forward, pointwise in bit-reversed order, RN inverse */
                CHECK(cz_ntt_transform(&d, fa, CZ_NTT_NR, CZ_NTT_FORWARD, CZ_NTT_PLAIN, NULL) ==
                      CZ_OK);
                CHECK(cz_ntt_transform(&d, fb, CZ_NTT_NR, CZ_NTT_FORWARD, CZ_NTT_PLAIN, NULL) ==
                      CZ_OK);
                for (size_t i = 0; i < n; i++) cz_fr_mul(&fa[i], &fa[i], &fb[i]);
                CHECK(cz_ntt_transform(&d, fa, CZ_NTT_RN, CZ_NTT_INVERSE, CZ_NTT_PLAIN, NULL) ==
                      CZ_OK);
            }
            CHECK(vec_equal(fa, want, na + nb - 1));
            for (size_t i = na + nb - 1; i < n; i++) CHECK(cz_fr_is_zero(&fa[i]));
        }
        cz_ntt_domain_free(&d);
        free(a);
        free(b);
        free(want);
        free(fa);
        free(fb);
    }
}

/* Groth16's H: with c = a o b on H, (A B - C) = H (x^m - 1) exactly, checked
 * with schoolbook products of the naive interpolations. */
static void test_groth16_h(void) {
    for (unsigned k = 0; k <= 9; k++) {
        size_t n = (size_t)1 << k;
        cz_ntt_domain d;
        CHECK(cz_ntt_domain_init(&d, k, NULL) == CZ_OK);
        if (k == 9) CHECK(cz_ntt_domain_set_blocking(&d, 3, 2, NULL) == CZ_OK);
        cz_fr *a = malloc(n * sizeof(cz_fr)), *b = malloc(n * sizeof(cz_fr)),
              *c = malloc(n * sizeof(cz_fr)), *pa = malloc(n * sizeof(cz_fr)),
              *pb = malloc(n * sizeof(cz_fr)), *pc = malloc(n * sizeof(cz_fr)),
              *ab = malloc(2 * n * sizeof(cz_fr));
        rand_vec(a, n);
        rand_vec(b, n);
        if (n > 2) a[n - 1] = b[n - 2] = cz_fr_zero; /* padding-like zeros */
        for (size_t i = 0; i < n; i++) cz_fr_mul(&c[i], &a[i], &b[i]);
        reference(pa, a, k, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_PLAIN);
        reference(pb, b, k, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_PLAIN);
        reference(pc, c, k, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_PLAIN);
        CHECK(cz_ntt_groth16_h(&d, a, b, c, NULL) == CZ_OK);
        schoolbook(ab, pa, n, pb, n); /* 2n - 1 coefficients */
        ab[2 * n - 1] = cz_fr_zero;
        for (size_t i = 0; i < n; i++) cz_fr_sub(&ab[i], &ab[i], &pc[i]);
        /* (h (x^n - 1))[i] = h[i - n] - h[i] */
        int ok = 1;
        for (size_t i = 0; i < 2 * n; i++) {
            cz_fr t = i >= n ? a[i - n] : cz_fr_zero;
            if (i < n) cz_fr_sub(&t, &t, &a[i]);
            ok &= cz_fr_equal(&t, &ab[i]);
        }
        CHECK(ok);
        CHECK(cz_fr_is_zero(&a[n - 1]) || n == 1);
        cz_ntt_domain_free(&d);
        free(a);
        free(b);
        free(c);
        free(pa);
        free(pb);
        free(pc);
        free(ab);
    }
}

/* Vectors from @noble/curves' FFT (tests/oracle/gen_ntt.mjs): one line per
 * element: log_size, index, input, forward, inverse, coset forward, coset
 * inverse (all natural order, 32-byte big-endian). */
static void test_noble_vectors(void) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, "ntt_fr.txt"));
    if (!vf.file) return;
    unsigned cur_k = 99, cases = 0;
    size_t n = 0, filled = 0;
    cz_fr *cols[5] = {0};
    cz_ntt_domain d = {0};
    for (;;) {
        int more = cz_vector_next(&vf);
        if (!more || (vf.nfields == 7 && (unsigned)strtoul(vf.fields[0], NULL, 10) != cur_k)) {
            if (cur_k != 99) { /* finish the previous size */
                CHECK(filled == n);
                cz_fr *y = malloc(n * sizeof(cz_fr));
                for (int f = 0; f < 4; f++) {
                    memcpy(y, cols[0], n * sizeof(cz_fr));
                    CHECK(cz_ntt_transform(&d, y, CZ_NTT_NN,
                                           f & 1 ? CZ_NTT_INVERSE : CZ_NTT_FORWARD,
                                           f & 2 ? CZ_NTT_COSET : CZ_NTT_PLAIN, NULL) == CZ_OK);
                    CHECK(vec_equal(y, cols[1 + f], n));
                }
                free(y);
                cases++;
                cz_ntt_domain_free(&d);
                for (int f = 0; f < 5; f++) free(cols[f]);
            }
            if (!more) break;
            cur_k = (unsigned)strtoul(vf.fields[0], NULL, 10);
            n = (size_t)1 << cur_k;
            filled = 0;
            for (int f = 0; f < 5; f++) cols[f] = calloc(n, sizeof(cz_fr));
            CHECK(cz_ntt_domain_init(&d, cur_k, NULL) == CZ_OK);
        }
        if (vf.nfields != 7) {
            CHECK(vf.nfields == 7);
            continue;
        }
        size_t idx = strtoul(vf.fields[1], NULL, 10);
        if (idx >= n) {
            CHECK(idx < n);
            continue;
        }
        for (int f = 0; f < 5; f++) {
            uint8_t be[32];
            if (cz_vector_hex(&vf, 2 + f, be, 32)) CHECK(cz_fr_from_bytes_be(&cols[f][idx], be));
        }
        filled++;
    }
    cz_vector_close(&vf);
    CHECK(cases >= 8);
}

int main(void) {
    cz_test_init("poly/ntt");
    test_domain_constants();
    test_bit_reverse();
    test_naive_small();
    test_naive_blocked();
    test_round_trips();
    test_poly_mul();
    test_groth16_h();
    test_large_spot(12, 0, 0); /* top-level parallel split of a leaf-sized transform */
    test_large_spot(16, 0, 0); /* two levels, default blocking */
    test_large_spot(15, 4, 2); /* four levels */
    test_noble_vectors();
    return cz_test_finish("poly/ntt");
}
