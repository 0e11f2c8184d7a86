/* Field-element gadgets: see num.h. */
#include "gadgets/num.h"

#include <stdlib.h>
#include <string.h>

#include "gadgets/lcb.h"

typedef struct {
    cz_lc_term buf[4];
    cz_lcb b;
} small_lc;

static void small_init(small_lc *s, cz_cs *cs) {
    cz_lcb_init(&s->b, cs, s->buf, 4);
}

static void enforce_small(cz_cs *cs, small_lc *a, small_lc *b, small_lc *c) {
    cz_cs_enforce(cs, &a->b.lc, &b->b.lc, &c->b.lc);
    cz_lcb_free(&a->b);
    cz_lcb_free(&b->b);
    cz_lcb_free(&c->b);
}

static void num_alloc(cz_cs *cs, cz_num *out, const cz_fr *value, int is_input) {
    int w = cz_cs_has_witness(cs);
    out->value = w && value ? *value : cz_fr_zero;
    const cz_fr *v = w ? &out->value : NULL;
    out->var = is_input ? cz_cs_alloc_input(cs, v) : cz_cs_alloc(cs, v);
}

void cz_num_alloc(cz_cs *cs, cz_num *out, const cz_fr *value) {
    num_alloc(cs, out, value, 0);
}

void cz_num_alloc_input(cz_cs *cs, cz_num *out, const cz_fr *value) {
    num_alloc(cs, out, value, 1);
}

cz_var cz_num_inputize(cz_cs *cs, const cz_num *x) {
    cz_num u;
    num_alloc(cs, &u, &x->value, 1);
    if (cz_gadget_enforce_bare(cs)) return u.var;
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, u.var);
    cz_lcb_add_var(&b.b, CZ_VAR_ONE);
    cz_lcb_add_var(&c.b, x->var);
    enforce_small(cs, &a, &b, &c);
    return u.var;
}

void cz_num_equal(cz_cs *cs, const cz_num *x, const cz_num *y) {
    if (cz_gadget_enforce_bare(cs)) return;
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, x->var);
    cz_lcb_add_var(&b.b, CZ_VAR_ONE);
    cz_lcb_add_var(&c.b, y->var);
    enforce_small(cs, &a, &b, &c);
}

void cz_num_add(cz_cs *cs, cz_num *out, const cz_num *x, const cz_num *y) {
    cz_fr sum;
    cz_fr_add(&sum, &x->value, &y->value);
    cz_var xv = x->var, yv = y->var; /* out may alias x or y */
    num_alloc(cs, out, &sum, 0);
    if (cz_gadget_enforce_bare(cs)) return;
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, xv);
    cz_lcb_add_var(&a.b, yv);
    cz_lcb_add_var(&b.b, CZ_VAR_ONE);
    cz_lcb_add_var(&c.b, out->var);
    enforce_small(cs, &a, &b, &c);
}

void cz_num_pick(cz_cs *cs, cz_num *out, cz_bool cond, const cz_num *x, const cz_num *y) {
    cz_fr value = cz_bool_value(cond) ? x->value : y->value;
    cz_var xv = x->var, yv = y->var;
    num_alloc(cs, out, &value, 0);
    if (cz_gadget_enforce_bare(cs)) return;
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, yv);
    cz_lcb_sub_var(&a.b, xv);
    cz_lcb_add_bool(&b.b, cond, &cz_fr_one);
    cz_lcb_add_var(&c.b, yv);
    cz_lcb_sub_var(&c.b, out->var);
    enforce_small(cs, &a, &b, &c);
}

/* Canonical bits of x's value, LSB first (all zero without a witness). */
static void value_bits(cz_cs *cs, uint64_t limbs[CZ_FR_LIMBS], const cz_num *x) {
    memset(limbs, 0, CZ_FR_LIMBS * sizeof *limbs);
    if (cz_cs_has_witness(cs)) cz_fr_to_limbs(limbs, &x->value);
}

static int limb_bit(const uint64_t *limbs, unsigned i) {
    return (int)((limbs[i / 64] >> (i % 64)) & 1);
}

/* 0 * 0 = sum 2^i bits[i] - x */
static void enforce_unpacking(cz_cs *cs, const cz_bool *bits, const cz_num *x) {
    if (cz_gadget_enforce_bare(cs)) return;
    cz_lcb lc;
    cz_lcb_init(&lc, cs, NULL, 0);
    cz_fr coeff = cz_fr_one;
    for (unsigned i = 0; i < CZ_NUM_BITS; i++) {
        cz_lcb_add(&lc, bits[i].var, &coeff);
        cz_fr_dbl(&coeff, &coeff);
    }
    cz_lcb_sub_var(&lc, x->var);
    cz_lc empty = {NULL, 0, 0};
    cz_cs_enforce(cs, &empty, &empty, &lc.lc);
    cz_lcb_free(&lc);
}

void cz_num_to_bits_le(cz_cs *cs, cz_bool out[CZ_NUM_BITS], const cz_num *x) {
    uint64_t limbs[CZ_FR_LIMBS];
    value_bits(cs, limbs, x);
    for (unsigned i = 0; i < CZ_NUM_BITS; i++) out[i] = cz_bit_alloc(cs, limb_bit(limbs, i));
    enforce_unpacking(cs, out, x);
}

/* AND of v[0..n) by a chain of n - 1 allocated ANDs (kary_and). */
static cz_bool kary_and(cz_cs *cs, const cz_bool *v, unsigned n) {
    cz_bool cur = v[0];
    for (unsigned i = 1; i < n; i++) cur = cz_bit_and(cs, cur, v[i]);
    return cur;
}

void cz_num_to_bits_le_strict(cz_cs *cs, cz_bool out[CZ_NUM_BITS], const cz_num *x) {
    uint64_t limbs[CZ_FR_LIMBS], rm1[CZ_FR_LIMBS];
    value_bits(cs, limbs, x);
    memcpy(rm1, cz_fr_modulus, sizeof rm1);
    rm1[0] -= 1; /* r is odd */
    /* From the top bit of r - 1 (bit 254) down: bits under a one of r - 1
     * are free; under a zero, a bit must be 0 when the run of ones above it
     * (and every earlier run) matched exactly. */
    cz_bool run[CZ_NUM_BITS + 1], last_run = cz_bool_const(0);
    unsigned run_len = 0;
    int have_last = 0;
    for (int i = CZ_NUM_BITS - 1; i >= 0; i--) {
        int a_bit = limb_bit(limbs, (unsigned)i);
        if (limb_bit(rm1, (unsigned)i)) {
            out[i] = cz_bit_alloc(cs, a_bit);
            run[run_len++] = out[i];
        } else {
            if (run_len) {
                if (have_last) run[run_len++] = last_run;
                last_run = kary_and(cs, run, run_len);
                have_last = 1;
                run_len = 0;
            }
            out[i] = cz_bit_alloc_conditionally(cs, a_bit, last_run);
        }
    }
    enforce_unpacking(cs, out, x);
}

/* ---- insertion ---- */

void cz_num_select(cz_cs *cs, cz_num *out, const cz_num *from, const cz_bool *bits,
                   unsigned nbits) {
    if (nbits > 16) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: select over 2^%u elements", nbits);
        return;
    }
    size_t half = ((size_t)1 << nbits) / 2;
    if (nbits == 0) {
        *out = from[0];
        return;
    }
    cz_num *state = malloc(half * sizeof *state);
    if (!state) {
        cz_cs_fail(cs, CZ_E_NOMEM, "gadgets: select over 2^%u elements", nbits);
        return;
    }
    /* most significant bit first */
    const cz_num *cur = from;
    for (unsigned k = 0; k < nbits; k++) {
        cz_bool bit = bits[nbits - 1 - k];
        for (size_t j = 0; j < half; j++) {
            cz_num picked;
            cz_num_pick(cs, &picked, bit, &cur[half + j], &cur[j]);
            state[j] = picked;
        }
        cur = state;
        half /= 2;
    }
    *out = state[0];
    free(state);
}

static void insert_2(cz_cs *cs, cz_num *out, const cz_num *a, const cz_bool *bits,
                     const cz_num *e) {
    cz_num p0, p1;
    cz_num_pick(cs, &p0, bits[0], &e[0], a);
    cz_num_pick(cs, &p1, bits[0], a, &e[0]);
    out[0] = p0, out[1] = p1;
}

static void insert_4(cz_cs *cs, cz_num *out, const cz_num *a, const cz_bool *bits,
                     const cz_num *e) {
    cz_bool b0 = bits[0], b1 = bits[1];
    const cz_num *b = &e[0], *c = &e[1], *d = &e[2];
    cz_num t, p[4];
    cz_num_pick(cs, &t, b0, b, a);
    cz_num_pick(cs, &p[0], b1, b, &t);
    cz_num_pick(cs, &t, b0, a, b);
    cz_num_pick(cs, &p[1], b1, c, &t);
    cz_num_pick(cs, &t, b0, d, a);
    cz_num_pick(cs, &p[2], b1, &t, c);
    cz_num_pick(cs, &t, b0, a, d);
    cz_num_pick(cs, &p[3], b1, &t, d);
    memcpy(out, p, sizeof p);
}

static void insert_8(cz_cs *cs, cz_num *out, const cz_num *A, const cz_bool *bits,
                     const cz_num *el) {
    cz_bool b0 = bits[0], b1 = bits[1], b2 = bits[2];
    if (b0.kind != CZ_BOOL_IS || b1.kind != CZ_BOOL_IS) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: insert_8 needs allocated, unnegated bits");
        return;
    }
    const cz_num *b = &el[0], *c = &el[1], *d = &el[2], *e = &el[3], *f = &el[4], *g = &el[5],
                 *h = &el[6];
    cz_bool nor01 = cz_bit_nor(cs, b0, b1);
    cz_bool and01 = cz_bit_and(cs, b0, b1);
    cz_num t, u, p[8];
    cz_num_pick(cs, &t, nor01, A, b);
    cz_num_pick(cs, &p[0], b2, b, &t);

    cz_num_pick(cs, &t, b0, A, b);
    cz_num_pick(cs, &u, b1, c, &t);
    cz_num_pick(cs, &p[1], b2, c, &u);

    cz_num_pick(cs, &t, b0, d, A);
    cz_num_pick(cs, &u, b1, &t, c);
    cz_num_pick(cs, &p[2], b2, d, &u);

    cz_num_pick(cs, &t, and01, A, d);
    cz_num_pick(cs, &p[3], b2, e, &t);

    cz_num_pick(cs, &t, nor01, A, f);
    cz_num_pick(cs, &p[4], b2, &t, e);

    cz_num_pick(cs, &t, b0, A, f);
    cz_num_pick(cs, &u, b1, g, &t);
    cz_num_pick(cs, &p[5], b2, &u, f);

    cz_num_pick(cs, &t, b0, h, A);
    cz_num_pick(cs, &u, b1, &t, g);
    cz_num_pick(cs, &p[6], b2, &u, g);

    cz_num_pick(cs, &t, and01, A, h);
    cz_num_pick(cs, &p[7], b2, &t, h);
    memcpy(out, p, sizeof p);
}

void cz_num_insert(cz_cs *cs, cz_num *out, const cz_num *element, const cz_bool *bits,
                   unsigned nbits, const cz_num *elements) {
    if (nbits == 0 || nbits > 16) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: insert with %u position bits", nbits);
        return;
    }
    switch (nbits) {
    case 1: insert_2(cs, out, element, bits, elements); return;
    case 2: insert_4(cs, out, element, bits, elements); return;
    case 3: insert_8(cs, out, element, bits, elements); return;
    default: break;
    }
    size_t size = (size_t)1 << nbits;
    cz_num *choices = malloc(size * sizeof *choices);
    cz_num *result = malloc(size * sizeof *result);
    if (!choices || !result) {
        free(choices), free(result);
        cz_cs_fail(cs, CZ_E_NOMEM, "gadgets: insert into %zu elements", size);
        return;
    }
    for (size_t pos = 0; pos < size; pos++) {
        /* the value at pos when inserting at index: elements[pos] before the
         * insertion point, element at it, elements[pos - 1] after it */
        for (size_t index = 0; index < size; index++) {
            choices[index] = pos < index    ? elements[pos]
                             : pos == index ? *element
                                            : elements[pos - 1];
        }
        cz_num_select(cs, &result[pos], choices, bits, nbits);
    }
    memcpy(out, result, size * sizeof *result);
    free(choices), free(result);
}

/* a * ONE = c; frees a. */
static void enforce_times_one(cz_cs *cs, cz_lcb *a, cz_var c) {
    if (!cz_gadget_enforce_bare(cs)) {
        small_lc b, cc;
        small_init(&b, cs), small_init(&cc, cs);
        cz_lcb_add_var(&b.b, CZ_VAR_ONE);
        cz_lcb_add_var(&cc.b, c);
        cz_cs_enforce(cs, &a->lc, &b.b.lc, &cc.b.lc);
        cz_lcb_free(&b.b);
        cz_lcb_free(&cc.b);
    }
    cz_lcb_free(a);
}

void cz_num_mul(cz_cs *cs, cz_num *out, const cz_num *x, const cz_num *y) {
    cz_fr product;
    cz_fr_mul(&product, &x->value, &y->value);
    cz_var xv = x->var, yv = y->var;
    num_alloc(cs, out, &product, 0);
    if (cz_gadget_enforce_bare(cs)) return;
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add_var(&a.b, xv);
    cz_lcb_add_var(&b.b, yv);
    cz_lcb_add_var(&c.b, out->var);
    enforce_small(cs, &a, &b, &c);
}

void cz_num_mul_bit(cz_cs *cs, cz_num *out, const cz_num *x, cz_bool bit) {
    cz_num y = {bit.var, cz_bool_value(bit) ? cz_fr_one : cz_fr_zero};
    cz_num_mul(cs, out, x, &y);
}

void cz_num_sum(cz_cs *cs, cz_num *out, const cz_num *terms, size_t n) {
    cz_fr sum = cz_fr_zero;
    for (size_t i = 0; i < n; i++) cz_fr_add(&sum, &sum, &terms[i].value);
    cz_lcb a;
    cz_lcb_init(&a, cs, NULL, 0);
    if (!cz_cs_ignores_lcs(cs))
        for (size_t i = 0; i < n; i++) cz_lcb_add_var(&a, terms[i].var);
    num_alloc(cs, out, &sum, 0);
    enforce_times_one(cs, &a, out->var);
}

void cz_num_affine(cz_cs *cs, cz_num *out, const cz_num *x, uint64_t mul, uint64_t add) {
    cz_fr m, k, value;
    cz_fr_from_u64(&m, mul);
    cz_fr_from_u64(&k, add);
    cz_fr_mul(&value, &x->value, &m);
    cz_fr_add(&value, &value, &k);
    cz_var xv = x->var;
    num_alloc(cs, out, &value, 0);
    if (cz_gadget_enforce_bare(cs)) return;
    small_lc a, b, c;
    small_init(&a, cs), small_init(&b, cs), small_init(&c, cs);
    cz_lcb_add(&a.b, xv, &m);
    cz_lcb_add(&a.b, CZ_VAR_ONE, &k); /* kept with a zero coefficient */
    cz_lcb_add_var(&b.b, CZ_VAR_ONE);
    cz_lcb_add_var(&c.b, out->var);
    enforce_small(cs, &a, &b, &c);
}

void cz_num_to_allocated_bits(cz_cs *cs, cz_bool *out, unsigned n, const cz_num *x) {
    uint64_t limbs[CZ_FR_LIMBS];
    value_bits(cs, limbs, x);
    for (unsigned i = 0; i < n; i++) out[i] = cz_bit_alloc(cs, limb_bit(limbs, i));
    cz_lcb a;
    cz_lcb_init(&a, cs, NULL, 0);
    cz_fr coeff = cz_fr_one;
    for (unsigned i = 0; i < n && !cz_cs_ignores_lcs(cs); i++) {
        cz_lcb_add(&a, out[i].var, &coeff);
        cz_fr_dbl(&coeff, &coeff);
    }
    enforce_times_one(cs, &a, x->var);
}
