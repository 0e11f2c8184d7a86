/* Boolean gadgets: see boolean.h. The dispatch order of every function
 * follows the match arms of bellpepper-core's boolean.rs, because the arm
 * that fires decides which constraint (if any) is emitted. */
#include "gadgets/boolean.h"

#include "gadgets/lcb.h"

/* The boolean gadgets' linear combinations have at most 4 distinct terms. */
#define SMALL_TERMS 8
typedef struct {
    cz_lc_term buf[SMALL_TERMS];
    cz_lcb b;
} small_lc;

static void small_init(small_lc *s, cz_cs *cs) {
    cz_lcb_init(&s->b, cs, s->buf, SMALL_TERMS);
}

/* Emits A * B = C and releases the three builders. */
static void enforce_small(cz_cs *cs, small_lc *a, small_lc *b, small_lc *c) {
    cz_cs_enforce(cs, &a->b.lc, &b->b.lc, &c->b.lc);
    cz_lcb_free(&a->b);
    cz_lcb_free(&b->b);
    cz_lcb_free(&c->b);
}

static cz_var alloc_bit_var(cz_cs *cs, int value) {
    if (!cz_cs_has_witness(cs)) return cz_cs_alloc(cs, NULL);
    return cz_cs_alloc(cs, value ? &cz_fr_one : &cz_fr_zero);
}

static cz_bool make_is(cz_cs *cs, cz_var var, int value) {
    cz_bool b = {var, CZ_BOOL_IS, (uint8_t)(cz_cs_has_witness(cs) && value)};
    return b;
}

static int require_is(cz_cs *cs, cz_bool a, cz_bool b, const char *what) {
    if (a.kind == CZ_BOOL_IS && b.kind == CZ_BOOL_IS) return 1;
    cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: %s needs two allocated (IS) bits", what);
    return 0;
}

/* ---- allocated bits ---- */

cz_bool cz_bit_alloc(cz_cs *cs, int value) {
    value = value != 0;
    cz_var v = alloc_bit_var(cs, value);
    if (cz_gadget_enforce_bare(cs)) return make_is(cs, v, value);
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, CZ_VAR_ONE);
    cz_lcb_sub_var(&a.b, v);
    cz_lcb_add_var(&b.b, v);
    enforce_small(cs, &a, &b, &c);
    return make_is(cs, v, value);
}

cz_bool cz_bit_alloc_conditionally(cz_cs *cs, int value, cz_bool must_be_false) {
    value = value != 0;
    if (must_be_false.kind != CZ_BOOL_IS) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: alloc_conditionally needs an allocated bit");
    }
    cz_var v = alloc_bit_var(cs, value);
    if (cz_gadget_enforce_bare(cs)) return make_is(cs, v, value);
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, CZ_VAR_ONE);
    cz_lcb_sub_var(&a.b, must_be_false.var);
    cz_lcb_sub_var(&a.b, v);
    cz_lcb_add_var(&b.b, v);
    enforce_small(cs, &a, &b, &c);
    return make_is(cs, v, value);
}

cz_bool cz_bit_xor(cz_cs *cs, cz_bool x, cz_bool y) {
    require_is(cs, x, y, "xor");
    int value = x.value ^ y.value;
    cz_var r = alloc_bit_var(cs, value);
    if (cz_gadget_enforce_bare(cs)) return make_is(cs, r, value);
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, x.var);
    cz_lcb_add_var(&a.b, x.var);
    cz_lcb_add_var(&b.b, y.var);
    cz_lcb_add_var(&c.b, x.var);
    cz_lcb_add_var(&c.b, y.var);
    cz_lcb_sub_var(&c.b, r);
    enforce_small(cs, &a, &b, &c);
    return make_is(cs, r, value);
}

/* The three products: A = a or ONE - a, B = b or ONE - b, C = result. */
static cz_bool bit_product(cz_cs *cs, cz_bool x, int negate_x, cz_bool y, int negate_y,
                           const char *what) {
    require_is(cs, x, y, what);
    int value = (x.value ^ negate_x) & (y.value ^ negate_y);
    cz_var r = alloc_bit_var(cs, value);
    if (cz_gadget_enforce_bare(cs)) return make_is(cs, r, value);
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    if (negate_x) cz_lcb_add_var(&a.b, CZ_VAR_ONE);
    if (negate_x)
        cz_lcb_sub_var(&a.b, x.var);
    else
        cz_lcb_add_var(&a.b, x.var);
    if (negate_y) cz_lcb_add_var(&b.b, CZ_VAR_ONE);
    if (negate_y)
        cz_lcb_sub_var(&b.b, y.var);
    else
        cz_lcb_add_var(&b.b, y.var);
    cz_lcb_add_var(&c.b, r);
    enforce_small(cs, &a, &b, &c);
    return make_is(cs, r, value);
}

cz_bool cz_bit_and(cz_cs *cs, cz_bool a, cz_bool b) {
    return bit_product(cs, a, 0, b, 0, "and");
}

cz_bool cz_bit_and_not(cz_cs *cs, cz_bool a, cz_bool b) {
    return bit_product(cs, a, 0, b, 1, "and_not");
}

cz_bool cz_bit_nor(cz_cs *cs, cz_bool a, cz_bool b) {
    return bit_product(cs, a, 1, b, 1, "nor");
}

/* ---- booleans ---- */

static int is_false(cz_bool b) {
    return b.kind == CZ_BOOL_CONST && !b.value;
}
static int is_true(cz_bool b) {
    return b.kind == CZ_BOOL_CONST && b.value;
}

cz_bool cz_bool_xor(cz_cs *cs, cz_bool a, cz_bool b) {
    if (is_false(a)) return b;
    if (is_false(b)) return a;
    if (is_true(a)) return cz_bool_not(b);
    if (is_true(b)) return cz_bool_not(a);
    /* a xor (not b) = not (a xor b), with the IS operand's variable first */
    if (a.kind == CZ_BOOL_IS && b.kind == CZ_BOOL_NOT)
        return cz_bool_not(cz_bit_xor(cs, a, cz_bool_not(b)));
    if (a.kind == CZ_BOOL_NOT && b.kind == CZ_BOOL_IS)
        return cz_bool_not(cz_bit_xor(cs, b, cz_bool_not(a)));
    /* IS,IS or NOT,NOT: (not a) xor (not b) = a xor b */
    if (a.kind == CZ_BOOL_NOT) a = cz_bool_not(a), b = cz_bool_not(b);
    return cz_bit_xor(cs, a, b);
}

cz_bool cz_bool_and(cz_cs *cs, cz_bool a, cz_bool b) {
    if (is_false(a) || is_false(b)) return cz_bool_const(0);
    if (is_true(a)) return b;
    if (is_true(b)) return a;
    if (a.kind == CZ_BOOL_IS && b.kind == CZ_BOOL_NOT) return cz_bit_and_not(cs, a, cz_bool_not(b));
    if (a.kind == CZ_BOOL_NOT && b.kind == CZ_BOOL_IS) return cz_bit_and_not(cs, b, cz_bool_not(a));
    if (a.kind == CZ_BOOL_NOT) return cz_bit_nor(cs, cz_bool_not(a), cz_bool_not(b));
    return cz_bit_and(cs, a, b);
}

cz_bool cz_bool_or(cz_cs *cs, cz_bool a, cz_bool b) {
    return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(b)));
}

cz_bool cz_bool_sha256_ch(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c) {
    int va = cz_bool_value(a), vb = cz_bool_value(b), vc = cz_bool_value(c);
    int value = (va & vb) ^ ((!va) & vc);
    if (a.kind == CZ_BOOL_CONST && b.kind == CZ_BOOL_CONST && c.kind == CZ_BOOL_CONST)
        return cz_bool_const(value);
    if (is_false(a)) return c;
    if (is_false(b)) return cz_bool_and(cs, cz_bool_not(a), c);
    if (is_false(c)) return cz_bool_and(cs, a, b);
    if (is_true(c)) return cz_bool_not(cz_bool_and(cs, a, cz_bool_not(b)));
    if (is_true(b)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(c)));
    /* a true, or no constant: aux ch; (b - c) * a = ch - c */
    cz_var ch = alloc_bit_var(cs, value);
    if (cz_gadget_enforce_bare(cs)) return make_is(cs, ch, value);
    small_lc la, lb, lc;
    small_init(&la, cs), small_init(&lb, cs), small_init(&lc, cs);
    cz_lcb_add_bool(&la.b, b, &cz_fr_one);
    cz_lcb_add_bool(&la.b, c, &cz_gadget_minus_one);
    cz_lcb_add_bool(&lb.b, a, &cz_fr_one);
    cz_lcb_add_var(&lc.b, ch);
    cz_lcb_add_bool(&lc.b, c, &cz_gadget_minus_one);
    enforce_small(cs, &la, &lb, &lc);
    return make_is(cs, ch, value);
}

cz_bool cz_bool_sha256_maj(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c) {
    int va = cz_bool_value(a), vb = cz_bool_value(b), vc = cz_bool_value(c);
    int value = (va & vb) ^ (va & vc) ^ (vb & vc);
    if (a.kind == CZ_BOOL_CONST && b.kind == CZ_BOOL_CONST && c.kind == CZ_BOOL_CONST)
        return cz_bool_const(value);
    if (is_false(a)) return cz_bool_and(cs, b, c);
    if (is_false(b)) return cz_bool_and(cs, a, c);
    if (is_false(c)) return cz_bool_and(cs, a, b);
    if (is_true(c)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(b)));
    if (is_true(b)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(c)));
    if (is_true(a)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(b), cz_bool_not(c)));
    /* aux maj first, then bc = b and c, then (2bc - b - c) * a = bc - maj */
    cz_var maj = alloc_bit_var(cs, value);
    cz_bool bc = cz_bool_and(cs, b, c);
    if (cz_gadget_enforce_bare(cs)) return make_is(cs, maj, value);
    cz_fr two;
    cz_fr_dbl(&two, &cz_fr_one);
    small_lc la, lb, lc;
    small_init(&la, cs), small_init(&lb, cs), small_init(&lc, cs);
    cz_lcb_add_bool(&la.b, bc, &two);
    cz_lcb_add_bool(&la.b, b, &cz_gadget_minus_one);
    cz_lcb_add_bool(&la.b, c, &cz_gadget_minus_one);
    cz_lcb_add_bool(&lb.b, a, &cz_fr_one);
    cz_lcb_add_bool(&lc.b, bc, &cz_fr_one);
    cz_lcb_sub_var(&lc.b, maj);
    enforce_small(cs, &la, &lb, &lc);
    return make_is(cs, maj, value);
}

void cz_bool_enforce_equal(cz_cs *cs, cz_bool a, cz_bool b) {
    small_lc la, lb, lc;
    if (a.kind == CZ_BOOL_CONST && b.kind == CZ_BOOL_CONST) {
        if (a.value != b.value)
            cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: enforce_equal of two different constants");
        return;
    }
    if (cz_gadget_enforce_bare(cs)) return;
    small_init(&la, cs), small_init(&lb, cs), small_init(&lc, cs);
    if (is_true(a) || is_true(b)) { /* 0 * 0 = ONE - x */
        cz_lcb_add_var(&lc.b, CZ_VAR_ONE);
        cz_lcb_add_bool(&lc.b, is_true(a) ? b : a, &cz_gadget_minus_one);
    } else if (is_false(a) || is_false(b)) { /* 0 * 0 = x */
        cz_lcb_add_bool(&lc.b, is_false(a) ? b : a, &cz_fr_one);
    } else { /* 0 * 0 = a - b */
        cz_lcb_add_bool(&lc.b, a, &cz_fr_one);
        cz_lcb_add_bool(&lc.b, b, &cz_gadget_minus_one);
    }
    enforce_small(cs, &la, &lb, &lc);
}

cz_status cz_bool_lc_add(cz_lc *lc, cz_bool b, const cz_fr *coeff) {
    cz_status st = CZ_OK;
    if (b.kind == CZ_BOOL_IS) {
        st = cz_lc_add(lc, b.var, coeff);
    } else if (b.kind == CZ_BOOL_NOT) {
        cz_fr neg;
        cz_fr_neg(&neg, coeff);
        st = cz_lc_add(lc, CZ_VAR_ONE, coeff);
        if (st == CZ_OK) st = cz_lc_add(lc, b.var, &neg);
    } else if (b.value) {
        st = cz_lc_add(lc, CZ_VAR_ONE, coeff);
    }
    return st;
}

/* ---- vectors ---- */

void cz_bits_alloc_u64_le(cz_cs *cs, cz_bool *out, unsigned n, uint64_t v) {
    for (unsigned i = 0; i < n && i < 64; i++) out[i] = cz_bit_alloc(cs, (int)((v >> i) & 1));
}

void cz_bits_reverse_bytes(cz_bool *out, const cz_bool *in, size_t n) {
    for (size_t k = 0; k + 8 <= n; k += 8)
        for (size_t j = 0; j < 8; j++) out[k + j] = in[k + 7 - j];
}
