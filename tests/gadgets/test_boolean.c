/* Boolean, UInt32 and MultiEq gadgets against bellpepper's semantics: exact
 * linear combinations of each allocated-bit gadget, the constraint / aux cost
 * of every dispatch case (constant true / false, IS, NOT operands), truth
 * tables on the check back-end, identical structure with and without a
 * witness, UInt32 values against native u32 arithmetic and MultiEq's emission
 * points. */
#include <stdlib.h>
#include <string.h>

#include "gadget_test_cs.h"
#include "gadgets/boolean.h"
#include "gadgets/multieq.h"
#include "gadgets/uint32.h"
#include "harness/harness.h"

#define ONE CZ_VAR_ONE

/* ---- exact constraints of the allocated-bit gadgets ---- */

static void test_bit_shapes(void) {
    for (int va = 0; va < 2; va++) {
        for (int vb = 0; vb < 2; vb++) {
            cz_cs *cs = proxy_new(1);
            proxy_of(cs)->record = 1;
            cz_bool a = cz_bit_alloc(cs, va), b = cz_bit_alloc(cs, vb);
            CHECK(a.var == 0 && b.var == 1 && a.kind == CZ_BOOL_IS);
            CHECK(LC_IS(cs, 0, 0, T(ONE, 1), T(0, -1)) && LC_IS(cs, 0, 1, T(0, 1)) &&
                  LC_EMPTY(cs, 0, 2));
            cz_bool x = cz_bit_xor(cs, a, b);
            CHECK(x.var == 2 && cz_bool_value(x) == (va ^ vb));
            CHECK(LC_IS(cs, 2, 0, T(0, 2)) && LC_IS(cs, 2, 1, T(1, 1)) &&
                  LC_IS(cs, 2, 2, T(0, 1), T(1, 1), T(2, -1)));
            cz_bool n = cz_bit_and(cs, a, b);
            CHECK(cz_bool_value(n) == (va & vb));
            CHECK(LC_IS(cs, 3, 0, T(0, 1)) && LC_IS(cs, 3, 1, T(1, 1)) && LC_IS(cs, 3, 2, T(3, 1)));
            cz_bool an = cz_bit_and_not(cs, a, b);
            CHECK(cz_bool_value(an) == (va & !vb));
            CHECK(LC_IS(cs, 4, 0, T(0, 1)) && LC_IS(cs, 4, 1, T(ONE, 1), T(1, -1)) &&
                  LC_IS(cs, 4, 2, T(4, 1)));
            cz_bool nr = cz_bit_nor(cs, a, b);
            CHECK(cz_bool_value(nr) == (!va & !vb));
            CHECK(LC_IS(cs, 5, 0, T(ONE, 1), T(0, -1)) && LC_IS(cs, 5, 1, T(ONE, 1), T(1, -1)) &&
                  LC_IS(cs, 5, 2, T(5, 1)));
            cz_bool c = cz_bit_alloc_conditionally(cs, 0, a);
            CHECK(LC_IS(cs, 6, 0, T(ONE, 1), T(0, -1), T(6, -1)) && LC_IS(cs, 6, 1, T(6, 1)));
            (void)c;
            CHECK(cs->num_constraints == 7 && cs->num_aux == 7);
            CHECK(proxy_satisfied(cs));
            cz_cs_destroy(cs);

            /* each result flipped (a wrong witness) is caught */
            for (uint32_t aux = 2; aux < 6; aux++) {
                cs = proxy_new(1);
                proxy_flip(cs, aux);
                a = cz_bit_alloc(cs, va), b = cz_bit_alloc(cs, vb);
                cz_bit_xor(cs, a, b), cz_bit_and(cs, a, b), cz_bit_and_not(cs, a, b);
                cz_bit_nor(cs, a, b);
                CHECK(proxy_ok(cs) && !proxy_satisfied(cs));
                cz_cs_destroy(cs);
            }
        }
    }
    /* a bit forced to 0 by a true must_be_false cannot be 1 */
    cz_cs *cs = proxy_new(1);
    proxy_flip(cs, 1);
    cz_bool m = cz_bit_alloc(cs, 1);
    cz_bit_alloc_conditionally(cs, 0, m);
    CHECK(!proxy_satisfied(cs));
    cz_cs_destroy(cs);
    /* a non-boolean value breaks the boolean constraint */
    cs = proxy_new(1);
    cz_fr two;
    cz_fr_from_u64(&two, 2);
    proxy_set(cs, 0, &two);
    cz_bit_alloc(cs, 1);
    CHECK(!proxy_satisfied(cs));
    cz_cs_destroy(cs);
}

/* ---- dispatch of the boolean gadgets ---- */

/* Operand kinds: constant false, constant true, IS, NOT. */
enum { K_FALSE, K_TRUE, K_IS, K_NOT };
static const char *kind_name[] = {"false", "true", "is", "not"};

/* A boolean of the given kind with value v (constants ignore v). */
static cz_bool make(cz_cs *cs, int kind, int v) {
    switch (kind) {
    case K_FALSE: return cz_bool_const(0);
    case K_TRUE: return cz_bool_const(1);
    case K_IS: return cz_bit_alloc(cs, v);
    default: return cz_bool_not(cz_bit_alloc(cs, !v));
    }
}

static int kind_value(int kind, int v) {
    return kind == K_FALSE ? 0 : kind == K_TRUE ? 1 : v;
}

static int is_c(int kind) {
    return kind == K_FALSE || kind == K_TRUE;
}

/* Costs (constraints = aux) from bellpepper's dispatch rules (boolean.rs): an
 * and/xor costs one allocated bit unless an operand is constant. */
static int cost_pair(int a, int b) {
    return is_c(a) || is_c(b) ? 0 : 1;
}

static int cost_ch(int a, int b, int c) {
    if (is_c(a) && is_c(b) && is_c(c)) return 0;
    if (a == K_FALSE) return 0;
    if (b == K_FALSE) return cost_pair(a, c); /* and(not a, c) */
    if (c == K_FALSE) return cost_pair(a, b); /* and(a, b) */
    if (c == K_TRUE) return cost_pair(a, b);  /* not and(a, not b) */
    if (b == K_TRUE) return cost_pair(a, c);  /* not and(not a, not c) */
    return 1;                                 /* a true or no constant */
}

static int cost_maj(int a, int b, int c) {
    if (is_c(a) && is_c(b) && is_c(c)) return 0;
    if (a == K_FALSE) return cost_pair(b, c);
    if (b == K_FALSE) return cost_pair(a, c);
    if (c == K_FALSE) return cost_pair(a, b);
    if (c == K_TRUE) return cost_pair(a, b);
    if (b == K_TRUE) return cost_pair(a, c);
    if (a == K_TRUE) return cost_pair(b, c);
    return 2; /* maj and bc */
}

enum { OP_XOR, OP_AND, OP_OR, OP_CH, OP_MAJ, OP_EQ };

/* Runs op on operands of kinds k[] and values v[] over cs; returns the
 * result (for OP_EQ a constant). Operands are made first, then the op. */
static cz_bool run_op(cz_cs *cs, int op, const int *k, const int *v, uint64_t *cons_before,
                      uint32_t *aux_before, cz_bool *operands) {
    cz_bool x = make(cs, k[0], v[0]), y = make(cs, k[1], v[1]), z = make(cs, k[2], v[2]);
    operands[0] = x, operands[1] = y, operands[2] = z;
    *cons_before = cs->num_constraints;
    *aux_before = cs->num_aux;
    switch (op) {
    case OP_XOR: return cz_bool_xor(cs, x, y);
    case OP_AND: return cz_bool_and(cs, x, y);
    case OP_OR: return cz_bool_or(cs, x, y);
    case OP_CH: return cz_bool_sha256_ch(cs, x, y, z);
    case OP_MAJ: return cz_bool_sha256_maj(cs, x, y, z);
    default: cz_bool_enforce_equal(cs, x, y); return cz_bool_const(0);
    }
}

/* lc(b) for an allocated boolean: IS v -> v, NOT v -> ONE - v. */
static int lc_is_bool(cz_cs *cs, uint64_t k, int m, cz_bool b) {
    if (b.kind == CZ_BOOL_IS) return LC_IS(cs, k, m, T(b.var, 1));
    return LC_IS(cs, k, m, T(ONE, 1), T(b.var, -1));
}

/* The operands bellpepper's rules (boolean.rs) hand to and(x, y) when a ch /
 * maj / or folds to a single and; 0 when the case is not such a fold. */
static int folded_and_pair(int op, const int *k, const cz_bool *o, cz_bool *x, cz_bool *y) {
    cz_bool a = o[0], b = o[1], c = o[2];
#define PAIR(p, q) (*x = (p), *y = (q), 1)
    if (op == OP_AND) return PAIR(a, b);
    if (op == OP_OR) return PAIR(cz_bool_not(a), cz_bool_not(b));
    if (op == OP_CH) {
        if (k[1] == K_FALSE) return PAIR(cz_bool_not(a), c);
        if (k[2] == K_FALSE) return PAIR(a, b);
        if (k[2] == K_TRUE) return PAIR(a, cz_bool_not(b));
        if (k[1] == K_TRUE) return PAIR(cz_bool_not(a), cz_bool_not(c));
        return 0;
    }
    if (op == OP_MAJ) {
        if (k[0] == K_FALSE) return PAIR(b, c);
        if (k[1] == K_FALSE) return PAIR(a, c);
        if (k[2] == K_FALSE) return PAIR(a, b);
        if (k[2] == K_TRUE) return PAIR(cz_bool_not(a), cz_bool_not(b));
        if (k[1] == K_TRUE) return PAIR(cz_bool_not(a), cz_bool_not(c));
        if (k[0] == K_TRUE) return PAIR(cz_bool_not(b), cz_bool_not(c));
        return 0;
    }
#undef PAIR
    return 0;
}

/* The last constraint is the allocated and of x and y: A = lc(x), B = lc(y),
 * except that (NOT x, IS y) becomes and_not(y, x): A = y, B = ONE - x. */
static int and_shape_ok(cz_cs *cs, cz_bool x, cz_bool y) {
    uint64_t k = proxy_of(cs)->n_cons - 1;
    if (x.kind == CZ_BOOL_NOT && y.kind == CZ_BOOL_IS) {
        cz_bool t = x;
        x = y, y = t;
    }
    return lc_is_bool(cs, k, 0, x) && lc_is_bool(cs, k, 1, y);
}

/* The last constraint is bit_xor of x, y: A = 2 first, B = second, the IS
 * operand first when one is NOT. */
static int xor_shape_ok(cz_cs *cs, cz_bool x, cz_bool y) {
    uint64_t k = proxy_of(cs)->n_cons - 1;
    if (x.kind == CZ_BOOL_NOT && y.kind == CZ_BOOL_IS) {
        cz_bool t = x;
        x = y, y = t;
    }
    return LC_IS(cs, k, 0, T(x.var, 2)) && LC_IS(cs, k, 1, T(y.var, 1));
}

static void test_dispatch(void) {
    static const char *op_name[] = {"xor", "and", "or", "ch", "maj", "enforce_equal"};
    int failures = 0;
    for (int op = OP_XOR; op <= OP_EQ; op++) {
        int arity = op == OP_CH || op == OP_MAJ ? 3 : 2;
        int nk = arity == 3 ? 64 : 16;
        for (int kk = 0; kk < nk; kk++) {
            int k[3] = {kk & 3, (kk >> 2) & 3, arity == 3 ? (kk >> 4) & 3 : K_FALSE};
            int expect;
            switch (op) {
            case OP_XOR:
            case OP_AND:
            case OP_OR: expect = cost_pair(k[0], k[1]); break;
            case OP_CH: expect = cost_ch(k[0], k[1], k[2]); break;
            case OP_MAJ: expect = cost_maj(k[0], k[1], k[2]); break;
            default: expect = is_c(k[0]) && is_c(k[1]) ? 0 : 1; break;
            }
            /* the structure without a witness, for comparison */
            cz_cs *n = proxy_new(0);
            int zero[3] = {0, 0, 0};
            uint64_t nc0;
            uint32_t na0;
            cz_bool operands[3];
            run_op(n, op, k, zero, &nc0, &na0, operands);
            for (int vv = 0; vv < (1 << arity); vv++) {
                int v[3] = {vv & 1, (vv >> 1) & 1, (vv >> 2) & 1};
                int a = kind_value(k[0], v[0]), b = kind_value(k[1], v[1]),
                    c = kind_value(k[2], v[2]);
                if (op == OP_EQ && is_c(k[0]) && is_c(k[1]) && a != b) continue; /* an error */
                cz_cs *cs = proxy_new(1);
                proxy_of(cs)->record = 1;
                uint64_t c0;
                uint32_t a0;
                cz_bool r = run_op(cs, op, k, v, &c0, &a0, operands);
                int want;
                switch (op) {
                case OP_XOR: want = a ^ b; break;
                case OP_AND: want = a & b; break;
                case OP_OR: want = a | b; break;
                case OP_CH: want = (a & b) ^ ((!a) & c); break;
                case OP_MAJ: want = (a & b) ^ (a & c) ^ (b & c); break;
                default: want = 0; break;
                }
                int bad = 0;
                bad |= cs->num_constraints - c0 != (uint64_t)expect;
                bad |= cs->num_aux - a0 != (uint32_t)(op == OP_EQ ? 0 : expect);
                if (op == OP_EQ)
                    bad |= proxy_satisfied(cs) != (a == b) || !proxy_ok(cs);
                else
                    bad |= !proxy_satisfied(cs) || cz_bool_value(r) != want;
                /* a result that costs nothing is a constant or an operand */
                if (op != OP_EQ && expect == 0 && r.kind != CZ_BOOL_CONST)
                    bad |= r.var >= a0; /* names an existing variable */
                bad |= proxy_of(cs)->digest != proxy_of(n)->digest;
                /* the operands and their A / B placement */
                cz_bool px, py;
                if (expect == 1 && folded_and_pair(op, k, operands, &px, &py))
                    bad |= !and_shape_ok(cs, px, py);
                if (expect == 1 && op == OP_XOR) bad |= !xor_shape_ok(cs, operands[0], operands[1]);
                if (bad && failures++ < 10)
                    printf("  %s(%s, %s%s%s) values %d%d%d: %llu constraints, %u aux, value %d\n",
                           op_name[op], kind_name[k[0]], kind_name[k[1]], arity == 3 ? ", " : "",
                           arity == 3 ? kind_name[k[2]] : "", a, b, c,
                           (unsigned long long)(cs->num_constraints - c0), cs->num_aux - a0,
                           cz_bool_value(r));
                cz_cs_destroy(cs);
            }
            cz_cs_destroy(n);
        }
    }
    CHECK(failures == 0);
    /* two different constants cannot be equal */
    cz_cs *cs = cz_cs_count_new();
    cz_bool_enforce_equal(cs, cz_bool_const(1), cz_bool_const(0));
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
}

/* Which allocated-bit gadget the dispatch picked, seen in the emitted LCs. */
static void test_dispatch_shapes(void) {
    cz_cs *cs = proxy_new(1);
    proxy_of(cs)->record = 1;
    cz_bool x = cz_bit_alloc(cs, 1), y = cz_bit_alloc(cs, 0), z = cz_bit_alloc(cs, 1);
    /* 3 constraints so far; aux 0, 1, 2 */

    /* xor(NOT x, IS y) = NOT(bit_xor(y, x)): the IS operand first */
    cz_bool r = cz_bool_xor(cs, cz_bool_not(x), y);
    CHECK(r.kind == CZ_BOOL_NOT && r.var == 3 && cz_bool_value(r) == 0);
    CHECK(LC_IS(cs, 3, 0, T(1, 2)) && LC_IS(cs, 3, 1, T(0, 1)) &&
          LC_IS(cs, 3, 2, T(1, 1), T(0, 1), T(3, -1)));
    /* xor(NOT x, NOT y) = IS(bit_xor(x, y)) */
    r = cz_bool_xor(cs, cz_bool_not(x), cz_bool_not(y));
    CHECK(r.kind == CZ_BOOL_IS && cz_bool_value(r) == 1 && LC_IS(cs, 4, 0, T(0, 2)));
    /* xor with constants: no constraint */
    CHECK(cz_bool_xor(cs, cz_bool_const(1), x).kind == CZ_BOOL_NOT);
    CHECK(cz_bool_xor(cs, y, cz_bool_const(0)).kind == CZ_BOOL_IS);
    /* and(NOT x, IS y) = and_not(y, x) */
    r = cz_bool_and(cs, cz_bool_not(x), y);
    CHECK(r.kind == CZ_BOOL_IS && r.var == 5 && cz_bool_value(r) == 0);
    CHECK(LC_IS(cs, 5, 0, T(1, 1)) && LC_IS(cs, 5, 1, T(ONE, 1), T(0, -1)) &&
          LC_IS(cs, 5, 2, T(5, 1)));
    /* and(NOT x, NOT y) = nor(x, y) */
    r = cz_bool_and(cs, cz_bool_not(x), cz_bool_not(y));
    CHECK(LC_IS(cs, 6, 0, T(ONE, 1), T(0, -1)) && LC_IS(cs, 6, 1, T(ONE, 1), T(1, -1)));
    /* ch general case: aux ch; (b - c) * a = ch - c, with b NOT */
    r = cz_bool_sha256_ch(cs, x, cz_bool_not(y), z);
    CHECK(r.var == 7 && cz_bool_value(r) == 1);
    CHECK(LC_IS(cs, 7, 0, T(ONE, 1), T(1, -1), T(2, -1)) && LC_IS(cs, 7, 1, T(0, 1)) &&
          LC_IS(cs, 7, 2, T(7, 1), T(2, -1)));
    /* ch with a = true goes to the general case too: B = ONE */
    r = cz_bool_sha256_ch(cs, cz_bool_const(1), y, z);
    CHECK(r.var == 8 && cz_bool_value(r) == 0);
    CHECK(LC_IS(cs, 8, 0, T(1, 1), T(2, -1)) && LC_IS(cs, 8, 1, T(ONE, 1)) &&
          LC_IS(cs, 8, 2, T(8, 1), T(2, -1)));
    /* maj general case (IS, IS, NOT): aux maj first, then bc = and_not(y, z),
     * then (2bc - b - c) * a = bc - maj */
    r = cz_bool_sha256_maj(cs, x, y, cz_bool_not(z));
    CHECK(r.var == 9 && cz_bool_value(r) == 0);
    CHECK(cs->num_aux == 11 && cs->num_constraints == 11);
    CHECK(LC_IS(cs, 9, 0, T(1, 1)) && LC_IS(cs, 9, 1, T(ONE, 1), T(2, -1)) &&
          LC_IS(cs, 9, 2, T(10, 1)));
    CHECK(LC_IS(cs, 10, 0, T(10, 2), T(1, -1), T(ONE, -1), T(2, 1)) && LC_IS(cs, 10, 1, T(0, 1)) &&
          LC_IS(cs, 10, 2, T(10, 1), T(9, -1)));
    /* enforce_equal forms: 0 * 0 = lc(a) - lc(b); true vs NOT keeps the
     * ONE term with coefficient 0 (bellpepper's Indexer keeps it) */
    cz_bool_enforce_equal(cs, x, cz_bool_not(y));
    CHECK(LC_EMPTY(cs, 11, 0) && LC_EMPTY(cs, 11, 1) &&
          LC_IS(cs, 11, 2, T(0, 1), T(ONE, -1), T(1, 1)));
    cz_bool_enforce_equal(cs, cz_bool_const(1), cz_bool_not(y));
    CHECK(LC_IS(cs, 12, 2, T(ONE, 0), T(1, 1)));
    cz_bool_enforce_equal(cs, z, cz_bool_const(1));
    CHECK(LC_IS(cs, 13, 2, T(ONE, 1), T(2, -1)));
    cz_bool_enforce_equal(cs, cz_bool_const(0), y);
    CHECK(LC_IS(cs, 14, 2, T(1, 1)));
    CHECK(proxy_satisfied(cs));
    cz_cs_destroy(cs);

    /* Boolean::lc(ONE, coeff) on the public cz_lc: 3 * (IS x) + 5 * (NOT y)
     * + 7 * true + 11 * false + 2 * (NOT x) = (3 - 2) x + (5 + 7 + 2) ONE - 5 y */
    cz_lc lc;
    cz_lc_init(&lc);
    int64_t coeffs[5] = {3, 5, 7, 11, 2};
    cz_bool parts[5] = {x, cz_bool_not(y), cz_bool_const(1), cz_bool_const(0), cz_bool_not(x)};
    for (int i = 0; i < 5; i++) {
        cz_fr c;
        small_to_fr(&c, coeffs[i]);
        CHECK(cz_bool_lc_add(&lc, parts[i], &c) == CZ_OK);
    }
    int ok = lc.len == 3;
    exp_term want[3] = {T(0, 1), T(ONE, 14), T(1, -5)};
    for (int i = 0; i < 3 && ok; i++) {
        cz_fr c;
        small_to_fr(&c, want[i].coeff);
        int found = 0;
        for (uint32_t j = 0; j < lc.len; j++)
            if (lc.terms[j].var == want[i].var) found = cz_fr_equal(&lc.terms[j].coeff, &c);
        ok &= found;
    }
    CHECK(ok);
    cz_lc_free(&lc);
}

/* ---- UInt32 ---- */

static uint32_t rotr32(uint32_t x, unsigned k) {
    k %= 32;
    return k ? (x >> k) | (x << (32 - k)) : x;
}

/* A word with random bits constant, IS or NOT (mode 0), all allocated (1),
 * all constant (2). */
static void make_word(cz_cs *cs, cz_u32 *out, uint32_t v, int mode) {
    uint64_t r = cz_test_rand64();
    for (int i = 0; i < 32; i++) {
        int bit = (v >> i) & 1, kind = mode == 1   ? K_IS
                                       : mode == 2 ? K_TRUE
                                                   : (int)((r >> (2 * i)) & 3);
        if (kind == K_FALSE || kind == K_TRUE)
            out->bits[i] = cz_bool_const(bit);
        else
            out->bits[i] = make(cs, kind, bit);
    }
}

static unsigned count_const(const cz_u32 *x) {
    unsigned n = 0;
    for (int i = 0; i < 32; i++) n += cz_bool_is_const(x->bits[i]);
    return n;
}

static void test_uint32(void) {
    unsigned iters = cz_test_iters(200);
    for (unsigned it = 0; it < iters; it++) {
        uint32_t a = (uint32_t)cz_test_rand64(), b = (uint32_t)cz_test_rand64(),
                 c = (uint32_t)cz_test_rand64();
        unsigned k = (unsigned)(cz_test_rand64() % 40);
        cz_cs *cs = proxy_new(1);
        cz_u32 x, y, z, r;
        cz_u32_alloc(cs, &x, a);
        CHECK(cs->num_aux == 32 && cs->num_constraints == 32 && cz_u32_value(&x) == a);
        cz_u32_const(&y, b);
        CHECK(cz_u32_value(&y) == b && count_const(&y) == 32);
        cz_u32_rotr(&r, &x, k);
        CHECK(cz_u32_value(&r) == rotr32(a, k));
        cz_u32_shr(&r, &x, k % 32);
        CHECK(cz_u32_value(&r) == a >> (k % 32));
        cz_bool bits[32];
        cz_u32_to_bits_be(bits, &x);
        CHECK(bits[0].var == x.bits[31].var && bits[31].var == x.bits[0].var);
        cz_u32_from_bits_be(&r, bits);
        CHECK(cz_u32_value(&r) == a && r.bits[0].var == x.bits[0].var);
        cz_u32_to_bits_le(bits, &x);
        cz_u32_from_bits_le(&r, bits);
        CHECK(cz_u32_value(&r) == a);

        /* xor: one constraint per bit unless an operand bit is constant */
        uint64_t c0 = cs->num_constraints;
        cz_u32_xor(cs, &r, &x, &y);
        CHECK(cs->num_constraints == c0 && cz_u32_value(&r) == (a ^ b));
        make_word(cs, &y, b, 0);
        make_word(cs, &z, c, 0);
        unsigned free_bits = 0;
        for (int i = 0; i < 32; i++)
            free_bits += !cz_bool_is_const(y.bits[i]) && !cz_bool_is_const(z.bits[i]);
        c0 = cs->num_constraints;
        cz_u32_xor(cs, &r, &y, &z);
        CHECK(cs->num_constraints - c0 == free_bits && cz_u32_value(&r) == (b ^ c));
        cz_u32_xor(cs, &r, &r, &x); /* aliasing */
        CHECK(cz_u32_value(&r) == (a ^ b ^ c));

        /* ch / maj bitwise (all allocated: 32 and 64 constraints) */
        cz_u32_alloc(cs, &y, b);
        cz_u32_alloc(cs, &z, c);
        c0 = cs->num_constraints;
        cz_u32_sha256_ch(cs, &r, &x, &y, &z);
        CHECK(cz_u32_value(&r) == ((a & b) ^ (~a & c)) && cs->num_constraints - c0 == 32);
        c0 = cs->num_constraints;
        cz_u32_sha256_maj(cs, &r, &x, &y, &z);
        CHECK(cz_u32_value(&r) == ((a & b) ^ (a & c) ^ (b & c)) && cs->num_constraints - c0 == 64);
        CHECK(proxy_satisfied(cs));
        cz_cs_destroy(cs);
    }
}

/* Result bits of addmany: the bit length of n (2^32 - 1). */
static unsigned sum_bits(unsigned n) {
    static const unsigned table[11] = {0, 0, 33, 34, 34, 35, 35, 35, 35, 36, 36};
    return table[n];
}

static void test_addmany(void) {
    unsigned iters = cz_test_iters(100);
    for (unsigned it = 0; it < iters; it++) {
        unsigned n = 2 + (unsigned)(cz_test_rand64() % 9);
        int mode = (int)(cz_test_rand64() % 3); /* mixed, allocated, constant */
        uint32_t v[10], want = 0;
        cz_cs *cs = proxy_new(1), *nw = proxy_new(0);
        cz_u32 ops[10], nops[10], r, nr;
        for (unsigned k = 0; k < n; k++) {
            v[k] = cz_test_rand64() % 4 == 0 ? 0xffffffffu : (uint32_t)cz_test_rand64();
            want += v[k];
            make_word(cs, &ops[k], v[k], mode);
        }
        /* the same structure without a witness */
        for (unsigned k = 0; k < n; k++) {
            for (int i = 0; i < 32; i++) {
                cz_bool b = ops[k].bits[i];
                if (b.kind == CZ_BOOL_CONST)
                    nops[k].bits[i] = b;
                else {
                    nops[k].bits[i] = cz_bit_alloc(nw, 0);
                    if (b.kind == CZ_BOOL_NOT) nops[k].bits[i] = cz_bool_not(nops[k].bits[i]);
                }
            }
        }
        uint64_t c0 = cs->num_constraints;
        uint32_t a0 = cs->num_aux;
        cz_multieq m, nm;
        cz_multieq_init(&m, cs);
        cz_multieq_init(&nm, nw);
        cz_u32_addmany(&m, &r, ops, n);
        cz_u32_addmany(&nm, &nr, nops, n);
        cz_multieq_finish(&m);
        cz_multieq_finish(&nm);
        int all_const = 1;
        for (unsigned k = 0; k < n; k++) all_const &= count_const(&ops[k]) == 32;
        CHECK(cz_u32_value(&r) == want);
        if (all_const) {
            CHECK(count_const(&r) == 32 && cs->num_constraints == c0 && cs->num_aux == a0);
        } else {
            CHECK(cs->num_aux - a0 == sum_bits(n));
            CHECK(cs->num_constraints - c0 == sum_bits(n) + 1);
        }
        CHECK(proxy_satisfied(cs));
        CHECK(proxy_of(cs)->digest == proxy_of(nw)->digest);
        /* a wrong result bit (a carry bit too) is caught */
        if (!all_const) {
            for (int t = 0; t < 2; t++) {
                uint32_t bit = t == 0 ? (uint32_t)(cz_test_rand64() % 32) : sum_bits(n) - 1;
                cz_cs *bad = proxy_new(1);
                proxy_flip(bad, a0 + bit);
                for (unsigned k = 0; k < n; k++)
                    make_word(bad, &ops[k], v[k], mode == 0 ? 1 : mode);
                cz_multieq_init(&m, bad);
                cz_u32_addmany(&m, &r, ops, n);
                cz_multieq_finish(&m);
                CHECK(proxy_ok(bad) && !proxy_satisfied(bad));
                cz_cs_destroy(bad);
            }
        }
        cz_cs_destroy(cs);
        cz_cs_destroy(nw);
    }
    /* 1 or 11 operands are refused */
    cz_cs *cs = cz_cs_count_new();
    cz_u32 ops[11], r;
    for (int k = 0; k < 11; k++) cz_u32_alloc(cs, &ops[k], 1);
    cz_multieq m;
    cz_multieq_init(&m, cs);
    cz_u32_addmany(&m, &r, ops, 11);
    cz_multieq_finish(&m);
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
}

/* MultiEq packs equalities while they fit below 254 bits and emits the
 * pending constraint before the one that does not fit. */
static void test_multieq(void) {
    cz_cs *cs = proxy_new(1);
    proxy_of(cs)->record = 1;
    cz_u32 ops[4], r;
    uint32_t want = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t v = (uint32_t)cz_test_rand64();
        cz_u32_alloc(cs, &ops[k], v);
        want += v;
    }
    /* 128 constraints, aux 0..127 */
    cz_multieq m;
    cz_multieq_init(&m, cs);
    for (int t = 0; t < 7; t++) {
        cz_u32_addmany(&m, &r, ops, 4); /* 34 bits each: 7 x 34 = 238 < 254 */
        CHECK(cz_u32_value(&r) == want);
    }
    CHECK(cs->num_constraints == 128 + 7 * 34 && m.emitted == 0 && m.bits_used == 238);
    cz_u32_addmany(&m, &r, ops, 4); /* 238 + 34 >= 254: emit, after its bits */
    CHECK(cs->num_constraints == 128 + 8 * 34 + 1 && m.emitted == 1 && m.bits_used == 34);
    uint64_t k = 128 + 8 * 34;
    proxy_cs *p = proxy_of(cs);
    /* A: every operand bit once (coefficients summed over the 7 sums);
     * B = ONE; C: the 7 x 34 result bits */
    CHECK(p->cons[k].len[0] == 128 && LC_IS(cs, k, 1, T(ONE, 1)) && p->cons[k].len[2] == 7 * 34);
    /* the first result bit of the 7th sum sits at 2^(6 x 34) */
    cz_fr want_coeff;
    uint64_t limbs[4] = {0, 0, 0, 0};
    limbs[204 / 64] = 1ULL << (204 % 64);
    cz_fr_from_limbs(&want_coeff, limbs);
    int found = 0;
    for (uint32_t i = 0; i < p->cons[k].len[2]; i++)
        if (p->cons[k].terms[2][i].var == 128 + 6 * 34)
            found = cz_fr_equal(&p->cons[k].terms[2][i].coeff, &want_coeff);
    CHECK(found);
    /* operand bit 0 of ops[0] (aux 0): sum over the 7 slots of 2^(34 t) */
    cz_fr sum = cz_fr_zero, c;
    for (int t = 0; t < 7; t++) {
        memset(limbs, 0, sizeof limbs);
        limbs[(34 * t) / 64] = 1ULL << ((34 * t) % 64);
        cz_fr_from_limbs(&c, limbs);
        cz_fr_add(&sum, &sum, &c);
    }
    found = 0;
    for (uint32_t i = 0; i < p->cons[k].len[0]; i++)
        if (p->cons[k].terms[0][i].var == 0)
            found = cz_fr_equal(&p->cons[k].terms[0][i].coeff, &sum);
    CHECK(found);
    cz_multieq_finish(&m);
    CHECK(cs->num_constraints == 128 + 8 * 34 + 2);
    CHECK(proxy_satisfied(cs));
    cz_cs_destroy(cs);

    /* nothing pending: finish emits nothing; the generic enforce_equal */
    cs = proxy_new(1);
    cz_multieq_init(&m, cs);
    cz_multieq_finish(&m);
    CHECK(cs->num_constraints == 0);
    cz_bool a = cz_bit_alloc(cs, 1), b = cz_bit_alloc(cs, 1);
    cz_lc_term ta = {a.var, cz_fr_one}, tb = {b.var, cz_fr_one};
    cz_lc la = {&ta, 1, 1}, lb = {&tb, 1, 1};
    cz_multieq_init(&m, cs);
    cz_multieq_enforce_equal(&m, 1, &la, &lb);
    cz_multieq_enforce_equal(&m, 252, &la, &lb); /* 1 + 252 < 254 */
    CHECK(cs->num_constraints == 2);
    cz_multieq_enforce_equal(&m, 1, &la, &lb); /* 253 + 1 >= 254 */
    CHECK(cs->num_constraints == 3);
    cz_multieq_finish(&m);
    CHECK(cs->num_constraints == 4 && proxy_satisfied(cs));
    cz_cs_destroy(cs);
}

int main(void) {
    cz_test_init("gadgets/boolean");
    test_bit_shapes();
    test_dispatch();
    test_dispatch_shapes();
    test_uint32();
    test_addmany();
    test_multieq();
    return cz_test_finish("gadgets/boolean");
}
