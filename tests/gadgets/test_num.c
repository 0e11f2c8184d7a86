/* Number gadgets and packing: AllocatedNum's alloc /
 * inputize / equal / add / pick with their exact constraints, to_bits_le
 * (and the strict variant) against the canonical bits of the value, the
 * non-strict decomposition's acceptance of x + r and the strict one's
 * refusal, insertion and selection, pack_bits / pack_into_inputs and the
 * native multipacking against GMP. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "gadget_test_cs.h"
#include "gadgets/multipack.h"
#include "gadgets/num.h"
#include "harness/harness.h"

#define ONE CZ_VAR_ONE

static void random_fr(cz_fr *r) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(r, b, sizeof b);
}

/* ---- AllocatedNum ---- */

static void test_num_basics(void) {
    cz_cs *cs = proxy_new(1);
    proxy_of(cs)->record = 1;
    cz_fr va, vb, t;
    random_fr(&va), random_fr(&vb);
    cz_num a, b, s, c;
    cz_num_alloc(cs, &a, &va);
    cz_num_alloc(cs, &b, &vb);
    CHECK(a.var == 0 && b.var == 1 && cs->num_constraints == 0);
    /* inputize: input u; u * ONE = a */
    cz_var u = cz_num_inputize(cs, &a);
    CHECK(u == (CZ_VAR_INPUT_BIT | 1) && cs->num_inputs == 2);
    CHECK(proxy_of(cs)->n_inputs == 1 && cz_fr_equal(&proxy_of(cs)->inputs[0], &va));
    CHECK(LC_IS(cs, 0, 0, T(u, 1)) && LC_IS(cs, 0, 1, T(ONE, 1)) && LC_IS(cs, 0, 2, T(0, 1)));
    /* add: aux s; (a + b) * ONE = s */
    cz_num_add(cs, &s, &a, &b);
    cz_fr_add(&t, &va, &vb);
    CHECK(s.var == 2 && cz_fr_equal(&s.value, &t));
    CHECK(LC_IS(cs, 1, 0, T(0, 1), T(1, 1)) && LC_IS(cs, 1, 1, T(ONE, 1)) &&
          LC_IS(cs, 1, 2, T(2, 1)));
    cz_num_add(cs, &c, &a, &a); /* the same variable twice: coefficient 2 */
    CHECK(LC_IS(cs, 2, 0, T(0, 2)));
    /* equal: a * ONE = b */
    cz_num_equal(cs, &a, &a);
    CHECK(LC_IS(cs, 3, 0, T(0, 1)) && LC_IS(cs, 3, 1, T(ONE, 1)) && LC_IS(cs, 3, 2, T(0, 1)));
    CHECK(proxy_satisfied(cs));
    cz_num_equal(cs, &a, &b);
    CHECK(!proxy_satisfied(cs)); /* different values */
    cz_cs_destroy(cs);

    /* pick(cond, a, b) = cond ? a : b; (b - a) * cond = b - c */
    for (int kind = 0; kind < 4; kind++) {
        for (int v = 0; v < 2; v++) {
            cs = proxy_new(1);
            proxy_of(cs)->record = 1;
            cz_num_alloc(cs, &a, &va);
            cz_num_alloc(cs, &b, &vb);
            cz_bool cond = kind < 2 ? cz_bool_const(kind) : cz_bit_alloc(cs, kind == 2 ? v : !v);
            if (kind == 3) cond = cz_bool_not(cond);
            int cv = kind < 2 ? kind : v;
            uint64_t k = cs->num_constraints;
            cz_num_pick(cs, &c, cond, &a, &b);
            CHECK(cz_fr_equal(&c.value, cv ? &va : &vb));
            CHECK(LC_IS(cs, k, 0, T(1, 1), T(0, -1)) && LC_IS(cs, k, 2, T(1, 1), T(c.var, -1)));
            if (kind == 0) CHECK(LC_EMPTY(cs, k, 1));
            if (kind == 1) CHECK(LC_IS(cs, k, 1, T(ONE, 1)));
            if (kind == 2) CHECK(LC_IS(cs, k, 1, T(cond.var, 1)));
            if (kind == 3) CHECK(LC_IS(cs, k, 1, T(ONE, 1), T(cond.var, -1)));
            CHECK(proxy_satisfied(cs));
            cz_cs_destroy(cs);
        }
    }
    /* without a witness: no values, same counts */
    cs = cz_cs_count_new();
    cz_num_alloc(cs, &a, NULL);
    cz_num_inputize(cs, &a);
    cz_num_add(cs, &s, &a, &a);
    CHECK(cs->num_aux == 2 && cs->num_inputs == 2 && cs->num_constraints == 2);
    CHECK(cz_cs_status(cs) == CZ_OK);
    cz_cs_destroy(cs);
}

/* ---- to_bits_le ---- */

static int bit_of(const uint8_t le[32], unsigned i) {
    return (le[i / 8] >> (i % 8)) & 1;
}

static void value_of_hex(cz_fr *r, const char *hex_be) {
    uint8_t b[32];
    for (int i = 0; i < 32; i++) sscanf(hex_be + 2 * i, "%2hhx", &b[i]);
    CHECK(cz_fr_from_bytes_be(r, b));
}

/* Assigns every aux variable of a recorded decomposition: x (aux 0), the
 * 255 bits from the integer `bits_le` (32 bytes, bit 255 ignored), and the
 * AND results the strict form chains (C = A * B) computed from those. */
static cz_fr *solve(cz_cs *recorded, const cz_fr *x, const cz_bool *bits, const uint8_t *bits_le) {
    proxy_cs *p = proxy_of(recorded);
    cz_fr *values = calloc(recorded->num_aux, sizeof *values);
    values[0] = *x;
    uint8_t *is_bit = calloc(recorded->num_aux, 1);
    for (unsigned i = 0; i < CZ_NUM_BITS; i++) {
        values[bits[i].var] = bit_of(bits_le, i) ? cz_fr_one : cz_fr_zero;
        is_bit[bits[i].var] = 1;
    }
    for (uint64_t k = 0; k < p->n_cons; k++) {
        proxy_constraint *c = &p->cons[k];
        if (c->len[0] == 1 && c->len[1] == 1 && c->len[2] == 1 && !is_bit[c->terms[2][0].var] &&
            !CZ_VAR_IS_INPUT(c->terms[2][0].var))
            cz_fr_mul(&values[c->terms[2][0].var], &values[c->terms[0][0].var],
                      &values[c->terms[1][0].var]);
    }
    free(is_bit);
    return values;
}

static void decompose(cz_cs *cs, cz_bool *bits, const cz_fr *x, int strict) {
    cz_num n;
    cz_num_alloc(cs, &n, x);
    if (strict)
        cz_num_to_bits_le_strict(cs, bits, &n);
    else
        cz_num_to_bits_le(cs, bits, &n);
}

/* Synthesizes again with every aux replaced by values; returns satisfied. */
static int satisfied_with(const cz_fr *x, int strict, const cz_fr *values, uint32_t num_aux) {
    cz_cs *cs = proxy_new(1);
    for (uint32_t v = 0; v < num_aux; v++) proxy_set(cs, v, &values[v]);
    cz_bool bits[CZ_NUM_BITS];
    decompose(cs, bits, x, strict);
    int ok = proxy_satisfied(cs);
    cz_cs_destroy(cs);
    return ok;
}

static void test_to_bits(void) {
    static const char *edge[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000001",
        "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000", /* r - 1 */
        "4000000000000000000000000000000000000000000000000000000000000000", /* 2^254 */
        "3fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    };
    unsigned iters = cz_test_iters(12);
    for (unsigned it = 0; it < iters + 5; it++) {
        cz_fr x;
        if (it < 5)
            value_of_hex(&x, edge[it]);
        else
            random_fr(&x);
        if (it >= 5 && it % 2) { /* below 2^251: x + r has 255 bits */
            uint8_t small[32];
            cz_fr_to_bytes_le(small, &x);
            small[31] &= 0x07;
            CHECK(cz_fr_from_bytes_le(&x, small));
        }
        uint8_t le[32];
        cz_fr_to_bytes_le(le, &x);
        for (int strict = 0; strict < 2; strict++) {
            cz_cs *cs = proxy_new(1), *n = proxy_new(0);
            proxy_of(cs)->record = 1;
            cz_bool bits[CZ_NUM_BITS], nbits[CZ_NUM_BITS];
            decompose(cs, bits, &x, strict);
            decompose(n, nbits, NULL, strict);
            int same = 1;
            for (unsigned i = 0; i < CZ_NUM_BITS; i++)
                same &= bits[i].kind == CZ_BOOL_IS && cz_bool_value(bits[i]) == bit_of(le, i);
            CHECK(same);
            CHECK(proxy_satisfied(cs));
            CHECK(proxy_of(cs)->digest == proxy_of(n)->digest);
            uint64_t last = cs->num_constraints - 1;
            proxy_constraint *c = &proxy_of(cs)->cons[last];
            CHECK(c->len[0] == 0 && c->len[1] == 0 && c->len[2] == CZ_NUM_BITS + 1);
            if (!strict) {
                /* bit i is aux 1 + i, allocated LSB first; 256 constraints */
                CHECK(cs->num_aux == 1 + 255 && cs->num_constraints == 256);
                for (unsigned i = 0; i < CZ_NUM_BITS; i++) CHECK(bits[i].var == 1 + i);
                CHECK(LC_IS(cs, 0, 0, T(ONE, 1), T(1, -1)));
            } else {
                /* allocated MSB first; the AND chain adds one aux and one
                 * constraint per AND */
                CHECK(bits[254].var == 1 && bits[253].var == 2);
                CHECK(cs->num_constraints - 256 == cs->num_aux - 256);
                if (it == 0)
                    printf("  to_bits_le_strict: %llu constraints, %u aux (to_bits_le: 256, 255)\n",
                           (unsigned long long)cs->num_constraints, cs->num_aux - 1);
            }

            /* x + r written in bits (it fits in 255 bits for x < 2^251):
             * accepted by the non-strict form, refused by the strict one */
            if (it != 2 && it != 3 && it != 4 && (le[31] & 0xf8) == 0) {
                mpz_t v, r;
                mpz_inits(v, r, NULL);
                mpz_import(v, 32, -1, 1, 0, 0, le);
                mpz_import(r, CZ_FR_LIMBS, -1, 8, 0, 0, cz_fr_modulus);
                mpz_add(v, v, r);
                uint8_t alt[32] = {0};
                mpz_export(alt, NULL, -1, 1, 0, 0, v);
                mpz_clears(v, r, NULL);
                cz_fr *honest = solve(cs, &x, bits, le), *forged = solve(cs, &x, bits, alt);
                CHECK(satisfied_with(&x, strict, honest, cs->num_aux)); /* the solver is right */
                CHECK(satisfied_with(&x, strict, forged, cs->num_aux) == !strict);
                free(honest), free(forged);
            }
            cz_cs_destroy(cs);
            cz_cs_destroy(n);
        }
    }
    /* bellpepper's test_into_bits_strict: r - 1 decomposed strictly, then
     * its least significant bit set (the bits now spell r): the conditional
     * boolean constraint of that bit, the last before the unpacking, fails */
    {
        cz_fr m1;
        value_of_hex(&m1, edge[2]);
        cz_cs *ref = proxy_new(1);
        cz_bool bits[CZ_NUM_BITS];
        decompose(ref, bits, &m1, 1);
        uint32_t lsb = bits[0].var;
        uint64_t total = ref->num_constraints;
        cz_cs_destroy(ref);
        cz_cs *cs = proxy_new(1);
        proxy_flip(cs, lsb);
        decompose(cs, bits, &m1, 1);
        cz_check_result res;
        cz_cs_check_result(proxy_of(cs)->inner, &res);
        CHECK(proxy_ok(cs) && !res.satisfied && res.first_failure == total - 2);
        cz_cs_destroy(cs);
    }

    /* a wrong bit breaks the unpacking constraint */
    cz_fr x;
    random_fr(&x);
    cz_cs *cs = proxy_new(1);
    proxy_flip(cs, 1 + (uint32_t)(cz_test_rand64() % 255));
    cz_bool bits[CZ_NUM_BITS];
    decompose(cs, bits, &x, 0);
    CHECK(proxy_ok(cs) && !proxy_satisfied(cs));
    cz_cs_destroy(cs);
}

/* ---- insertion ---- */

static void test_insert(void) {
    for (unsigned nbits = 1; nbits <= 4; nbits++) {
        size_t size = (size_t)1 << nbits;
        uint64_t want_cons = nbits == 1 ? 2 : nbits == 2 ? 8 : nbits == 3 ? 22 : size * (size - 1);
        for (size_t index = 0; index < size; index++) {
            cz_cs *cs = proxy_new(1), *n = proxy_new(0);
            cz_num el[15], nel[15], elem, nelem, out[16], nout[16];
            cz_fr v;
            for (size_t i = 0; i + 1 < size; i++) {
                random_fr(&v);
                cz_num_alloc(cs, &el[i], &v);
                cz_num_alloc(n, &nel[i], NULL);
            }
            random_fr(&v);
            cz_num_alloc(cs, &elem, &v);
            cz_num_alloc(n, &nelem, NULL);
            cz_bool bits[4], nb[4];
            cz_bits_alloc_u64_le(cs, bits, nbits, index);
            cz_bits_alloc_u64_le(n, nb, nbits, 0);
            uint64_t c0 = cs->num_constraints;
            cz_num_insert(cs, out, &elem, bits, nbits, el);
            cz_num_insert(n, nout, &nelem, nb, nbits, nel);
            CHECK(cs->num_constraints - c0 == want_cons);
            int ok = 1;
            for (size_t pos = 0; pos < size; pos++) {
                const cz_num *want = pos < index ? &el[pos] : pos == index ? &elem : &el[pos - 1];
                ok &= cz_fr_equal(&out[pos].value, &want->value);
            }
            CHECK(ok);
            CHECK(proxy_satisfied(cs));
            CHECK(proxy_of(cs)->digest == proxy_of(n)->digest);
            cz_cs_destroy(cs);
            cz_cs_destroy(n);
        }
        /* select: one pick per inner node of the binary tree */
        for (size_t index = 0; index < size; index++) {
            cz_cs *cs = proxy_new(1);
            cz_num from[16], out;
            cz_fr v;
            for (size_t i = 0; i < size; i++) random_fr(&v), cz_num_alloc(cs, &from[i], &v);
            cz_bool bits[4];
            cz_bits_alloc_u64_le(cs, bits, nbits, index);
            uint64_t c0 = cs->num_constraints;
            cz_num_select(cs, &out, from, bits, nbits);
            CHECK(cs->num_constraints - c0 == size - 1);
            CHECK(cz_fr_equal(&out.value, &from[index].value) && proxy_satisfied(cs));
            cz_cs_destroy(cs);
        }
    }
    /* insert_8 wants allocated, unnegated bits 0 and 1 */
    cz_cs *cs = cz_cs_count_new();
    cz_num el[7], elem, out[8];
    for (int i = 0; i < 7; i++) cz_num_alloc(cs, &el[i], NULL);
    cz_num_alloc(cs, &elem, NULL);
    cz_bool bits[3] = {cz_bool_not(cz_bit_alloc(cs, 0)), cz_bit_alloc(cs, 0), cz_bit_alloc(cs, 0)};
    cz_num_insert(cs, out, &elem, bits, 3, el);
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
}

/* ---- packing ---- */

/* Chunk k of 254 bits as a field element, through GMP. */
static void gmp_pack(cz_fr *out, const uint8_t *bits, size_t n) {
    mpz_t v;
    mpz_init(v);
    for (size_t i = n; i-- > 0;) {
        mpz_mul_2exp(v, v, 1);
        if (bits[i]) mpz_add_ui(v, v, 1);
    }
    uint8_t le[32] = {0};
    mpz_export(le, NULL, -1, 1, 0, 0, v);
    CHECK(cz_fr_from_bytes_le(out, le));
    mpz_clear(v);
}

static void test_packing(void) {
    unsigned iters = cz_test_iters(40);
    uint8_t bits[1100];
    for (unsigned it = 0; it < iters; it++) {
        size_t n = it < 4 ? (size_t[]){0, 1, 254, 255}[it] : (size_t)(cz_test_rand64() % 1100);
        for (size_t i = 0; i < n; i++) bits[i] = cz_test_rand64() & 1;
        size_t chunks = cz_multipack_len(n);
        CHECK(chunks == (n + 253) / 254);

        /* native */
        cz_fr native[5], want;
        cz_multipack_compute(native, bits, n);
        for (size_t k = 0; k < chunks; k++) {
            size_t len = n - 254 * k < 254 ? n - 254 * k : 254;
            gmp_pack(&want, bits + 254 * k, len);
            CHECK(cz_fr_equal(&native[k], &want));
        }

        /* pack_into_inputs: one input and one constraint per chunk */
        cz_cs *cs = proxy_new(1), *nw = proxy_new(0);
        cz_bool *b = malloc((n + 1) * sizeof *b), *nb = malloc((n + 1) * sizeof *nb);
        for (size_t i = 0; i < n; i++) {
            /* constants, IS and NOT bits mixed */
            int kind = (int)(cz_test_rand64() % 3);
            if (kind == 0)
                b[i] = nb[i] = cz_bool_const(bits[i]);
            else if (kind == 1)
                b[i] = cz_bit_alloc(cs, bits[i]), nb[i] = cz_bit_alloc(nw, 0);
            else {
                b[i] = cz_bool_not(cz_bit_alloc(cs, !bits[i]));
                nb[i] = cz_bool_not(cz_bit_alloc(nw, 0));
            }
        }
        uint64_t c0 = cs->num_constraints;
        uint32_t a0 = cs->num_aux;
        cz_pack_into_inputs(cs, b, n);
        cz_pack_into_inputs(nw, nb, n);
        CHECK(cs->num_constraints - c0 == chunks && cs->num_aux == a0);
        CHECK(cs->num_inputs == 1 + chunks && proxy_of(cs)->n_inputs == chunks);
        for (size_t k = 0; k < chunks; k++)
            CHECK(cz_fr_equal(&proxy_of(cs)->inputs[k], &native[k]));
        CHECK(proxy_satisfied(cs));
        CHECK(proxy_of(cs)->digest == proxy_of(nw)->digest);

        /* pack_bits: the first 254 bits into one aux */
        cz_num packed;
        c0 = cs->num_constraints;
        a0 = cs->num_aux;
        cz_pack_bits(cs, &packed, b, n);
        gmp_pack(&want, bits, n < 254 ? n : 254);
        CHECK(cz_fr_equal(&packed.value, &want) && packed.var == a0);
        CHECK(cs->num_constraints - c0 == 1 && cs->num_aux - a0 == 1);
        CHECK(proxy_satisfied(cs));
        free(b), free(nb);
        cz_cs_destroy(cs);
        cz_cs_destroy(nw);
    }

    /* a wrong packed value is caught */
    cz_cs *cs = proxy_new(1);
    cz_bool b[10];
    cz_bits_alloc_u64_le(cs, b, 10, 0x2b5);
    cz_fr wrong;
    cz_fr_from_u64(&wrong, 0x2b4);
    proxy_set(cs, 10, &wrong);
    cz_num packed;
    cz_pack_bits(cs, &packed, b, 10);
    CHECK(packed.var == 10 && proxy_ok(cs) && !proxy_satisfied(cs));
    cz_cs_destroy(cs);

    /* fr-safe digests: native masking = pack_bits of the byte-reversed bits */
    for (int t = 0; t < 8; t++) {
        uint8_t digest[32], dbits[256];
        cz_test_rand_bytes(digest, 32);
        cz_multipack_bytes_to_bits_be(dbits, digest, 32);
        cs = proxy_new(1);
        cz_bool d[256], rev[256];
        for (int i = 0; i < 256; i++) d[i] = cz_bit_alloc(cs, dbits[i]);
        cz_bits_reverse_bytes(rev, d, 256);
        cz_pack_bits(cs, &packed, rev, 256);
        cz_fr native;
        cz_multipack_digest_to_fr(&native, digest);
        CHECK(cz_fr_equal(&packed.value, &native) && proxy_satisfied(cs));
        cz_cs_destroy(cs);
        /* bytes_to_bits: most / least significant bit first */
        uint8_t le_bits[256];
        cz_multipack_bytes_to_bits_le(le_bits, digest, 32);
        int ok = 1;
        for (int i = 0; i < 256; i++) {
            ok &= dbits[i] == ((digest[i / 8] >> (7 - i % 8)) & 1);
            ok &= le_bits[i] == ((digest[i / 8] >> (i % 8)) & 1);
        }
        CHECK(ok);
    }
}

/* ---- the SnapDeals gadgets: mul, mul by a bit, sum, affine,
 * allocated_num_to_allocated_bits (storage-proofs-update gadgets.rs) ---- */
static void test_snap_gadgets(void) {
    cz_cs *cs = proxy_new(1);
    proxy_of(cs)->record = 1;
    cz_fr va, vb, t, k5;
    random_fr(&va), random_fr(&vb);
    cz_num a, b, p, q, z, sum, aff, terms[3];
    cz_num_alloc(cs, &a, &va);
    cz_num_alloc(cs, &b, &vb);
    /* mul: aux p; a * b = p */
    cz_num_mul(cs, &p, &a, &b);
    cz_fr_mul(&t, &va, &vb);
    CHECK(p.var == 2 && cz_fr_equal(&p.value, &t));
    CHECK(LC_IS(cs, 0, 0, T(0, 1)) && LC_IS(cs, 0, 1, T(1, 1)) && LC_IS(cs, 0, 2, T(2, 1)));
    /* mul by an allocated bit: a * bit = q (q = a or 0) */
    cz_bool one = cz_bit_alloc(cs, 1), zero = cz_bit_alloc(cs, 0);
    cz_num_mul_bit(cs, &q, &a, one);
    CHECK(cz_fr_equal(&q.value, &va) && LC_IS(cs, 3, 1, T(one.var, 1)));
    cz_num_mul_bit(cs, &z, &a, zero);
    CHECK(cz_fr_is_zero(&z.value) && LC_IS(cs, 4, 0, T(0, 1)) && LC_IS(cs, 4, 2, T(z.var, 1)));
    /* sum: aux s; (a + b + p) * ONE = s */
    terms[0] = a, terms[1] = b, terms[2] = p;
    cz_num_sum(cs, &sum, terms, 3);
    cz_fr_add(&t, &va, &vb);
    cz_fr_add(&t, &t, &p.value);
    CHECK(cz_fr_equal(&sum.value, &t));
    CHECK(LC_IS(cs, 5, 0, T(0, 1), T(1, 1), T(2, 1)) && LC_IS(cs, 5, 1, T(ONE, 1)) &&
          LC_IS(cs, 5, 2, T(sum.var, 1)));
    /* affine: (10 a + 3 ONE) * ONE = y, and the ONE term kept with 0 */
    cz_num_affine(cs, &aff, &a, 10, 3);
    cz_fr_from_u64(&k5, 10);
    cz_fr_mul(&t, &va, &k5);
    cz_fr_from_u64(&k5, 3);
    cz_fr_add(&t, &t, &k5);
    CHECK(cz_fr_equal(&aff.value, &t));
    CHECK(LC_IS(cs, 6, 0, T(0, 10), T(ONE, 3)) && LC_IS(cs, 6, 2, T(aff.var, 1)));
    cz_num_affine(cs, &aff, &a, 10, 0);
    CHECK(LC_IS(cs, 7, 0, T(0, 10), T(ONE, 0)));
    CHECK(proxy_satisfied(cs));
    /* 255 bits of a random value: each allocated with its boolean
     * constraint, then (sum 2^i b_i) * ONE = x */
    uint64_t k = cs->num_constraints;
    uint32_t first = cs->num_aux;
    cz_bool bits[CZ_NUM_BITS];
    cz_num_to_allocated_bits(cs, bits, CZ_NUM_BITS, &b);
    uint8_t le[32];
    cz_fr_to_bytes_le(le, &vb);
    int same = 1;
    for (unsigned i = 0; i < CZ_NUM_BITS; i++)
        same &= bits[i].kind == CZ_BOOL_IS && bits[i].var == first + i &&
                cz_bool_value(bits[i]) == bit_of(le, i);
    CHECK(same);
    CHECK(cs->num_constraints == k + CZ_NUM_BITS + 1);
    k += CZ_NUM_BITS;
    CHECK(LC_IS(cs, k, 1, T(ONE, 1)) && LC_IS(cs, k, 2, T(1, 1)));
    CHECK(proxy_of(cs)->cons[k].len[0] == CZ_NUM_BITS);
    CHECK(proxy_satisfied(cs));
    cz_cs_destroy(cs);
    /* a flipped bit breaks the decomposition (soundness) */
    cs = proxy_new(1);
    cz_num_alloc(cs, &b, &vb);
    proxy_flip(cs, 1 + 17);
    cz_num_to_allocated_bits(cs, bits, CZ_NUM_BITS, &b);
    CHECK(!proxy_satisfied(cs));
    cz_cs_destroy(cs);
    /* the first n bits only (k_and_h_select: pb + 6 bits of 133 = 5 | 8 << 4) */
    cs = proxy_new(1);
    cz_fr_from_u64(&t, 133);
    cz_num_alloc(cs, &b, &t);
    cz_num_to_allocated_bits(cs, bits, 10, &b);
    unsigned v = 0;
    for (unsigned i = 0; i < 10; i++) v |= (unsigned)cz_bool_value(bits[i]) << i;
    CHECK(v == 133 && cs->num_constraints == 11 && proxy_satisfied(cs));
    cz_cs_destroy(cs);
}

int main(void) {
    cz_test_init("gadgets/num");
    test_num_basics();
    test_snap_gadgets();
    test_to_bits();
    test_insert();
    test_packing();
    return cz_test_finish("gadgets/num");
}
