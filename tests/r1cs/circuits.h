/* Test circuits for the r1cs tests, described independently of the code
 * under test: a list of operations (alloc aux, alloc input, enforce with raw
 * term lists that may repeat a variable) plus the witness. The reference
 * merge (ref_merge), evaluation and densities here are plain quadratic loops
 * over that description, so the back-ends are compared against them, never
 * against themselves. Header-only: each test binary includes it once. */
#ifndef CZ_TEST_R1CS_CIRCUITS_H
#define CZ_TEST_R1CS_CIRCUITS_H

#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "harness/harness.h"
#include "r1cs/backends.h"

/* not every test uses every helper */
#define CIRC_FN static __attribute__((unused))

typedef struct {
    cz_var var;
    cz_fr coeff;
} raw_term;

typedef struct {
    raw_term *t;
    size_t n;
} raw_lc;

enum { OP_ALLOC_AUX, OP_ALLOC_INPUT, OP_ENFORCE };

typedef struct {
    int kind;
    cz_fr value;    /* allocs */
    cz_var var;     /* allocs: the variable the back-end must return */
    raw_lc lc[3];   /* enforce: A, B, C as raw lists */
    raw_lc lc_m[3]; /* enforce: merged by ref_merge, zero sums kept, sorted */
} op;

typedef struct {
    op *ops;
    size_t nops, cap;
    uint32_t num_inputs, num_aux; /* ONE included */
    uint64_t num_constraints;     /* synthesized */
    cz_fr *input, *aux;           /* the witness */
    size_t input_cap, aux_cap;
} circuit;

/* ---- a deterministic generator, so every back-end sees the same circuit ---- */
CIRC_FN uint64_t sm_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
CIRC_FN cz_fr sm_fr(uint64_t *s) {
    uint8_t b[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = sm_next(s);
        memcpy(b + 8 * i, &v, 8);
    }
    cz_fr r;
    cz_fr_from_bytes_le_reduce(&r, b, 64);
    return r;
}

CIRC_FN void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return q;
}

CIRC_FN op *circ_push(circuit *c) {
    if (c->nops == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->ops = xrealloc(c->ops, c->cap * sizeof *c->ops);
    }
    op *o = &c->ops[c->nops++];
    memset(o, 0, sizeof *o);
    return o;
}

CIRC_FN void circ_init(circuit *c) {
    memset(c, 0, sizeof *c);
    c->num_inputs = 1;
    c->input_cap = 16;
    c->input = xrealloc(NULL, c->input_cap * sizeof(cz_fr));
    c->input[0] = cz_fr_one;
}

CIRC_FN void circ_free(circuit *c) {
    for (size_t i = 0; i < c->nops; i++)
        for (int k = 0; k < 3; k++) free(c->ops[i].lc[k].t), free(c->ops[i].lc_m[k].t);
    free(c->ops), free(c->input), free(c->aux);
    memset(c, 0, sizeof *c);
}

CIRC_FN cz_var circ_alloc(circuit *c, const cz_fr *value, int is_input) {
    op *o = circ_push(c);
    o->kind = is_input ? OP_ALLOC_INPUT : OP_ALLOC_AUX;
    o->value = *value;
    if (is_input) {
        if (c->num_inputs == c->input_cap)
            c->input = xrealloc(c->input, (c->input_cap *= 2) * sizeof(cz_fr));
        c->input[c->num_inputs] = *value;
        o->var = CZ_VAR_INPUT_BIT | c->num_inputs++;
    } else {
        if (c->num_aux == c->aux_cap)
            c->aux =
                xrealloc(c->aux, (c->aux_cap = c->aux_cap ? 2 * c->aux_cap : 16) * sizeof(cz_fr));
        c->aux[c->num_aux] = *value;
        o->var = c->num_aux++;
    }
    return o->var;
}

CIRC_FN int var_before(cz_var x, cz_var y) { /* inputs first, then aux; by index */
    int xi = CZ_VAR_IS_INPUT(x), yi = CZ_VAR_IS_INPUT(y);
    if (xi != yi) return xi;
    return CZ_VAR_INDEX(x) < CZ_VAR_INDEX(y);
}

/* Merge by linear search and sort by insertion: quadratic, obviously right. */
CIRC_FN raw_lc ref_merge(const raw_lc *in) {
    raw_lc out = {xrealloc(NULL, in->n * sizeof(raw_term)), 0};
    for (size_t i = 0; i < in->n; i++) {
        size_t j = 0;
        while (j < out.n && out.t[j].var != in->t[i].var) j++;
        if (j < out.n) {
            cz_fr_add(&out.t[j].coeff, &out.t[j].coeff, &in->t[i].coeff);
        } else {
            out.t[out.n++] = in->t[i];
        }
    }
    for (size_t i = 1; i < out.n; i++)
        for (size_t j = i; j > 0 && var_before(out.t[j].var, out.t[j - 1].var); j--) {
            raw_term tmp = out.t[j];
            out.t[j] = out.t[j - 1];
            out.t[j - 1] = tmp;
        }
    return out;
}

CIRC_FN cz_fr ref_eval(const circuit *c, const raw_lc *lc) {
    cz_fr acc = cz_fr_zero, t;
    for (size_t i = 0; i < lc->n; i++) {
        cz_var v = lc->t[i].var;
        const cz_fr *x = CZ_VAR_IS_INPUT(v) ? &c->input[CZ_VAR_INDEX(v)] : &c->aux[v];
        cz_fr_mul(&t, x, &lc->t[i].coeff);
        cz_fr_add(&acc, &acc, &t);
    }
    return acc;
}

/* Takes ownership of the three raw lists. */
CIRC_FN void circ_enforce(circuit *c, raw_lc a, raw_lc b, raw_lc cc) {
    op *o = circ_push(c);
    o->kind = OP_ENFORCE;
    o->lc[0] = a, o->lc[1] = b, o->lc[2] = cc;
    for (int k = 0; k < 3; k++) o->lc_m[k] = ref_merge(&o->lc[k]);
    c->num_constraints++;
}

CIRC_FN void raw_push(raw_lc *lc, cz_var v, const cz_fr *coeff) {
    lc->t = xrealloc(lc->t, (lc->n + 1) * sizeof(raw_term));
    lc->t[lc->n].var = v;
    lc->t[lc->n].coeff = *coeff;
    lc->n++;
}

/* x^3 + x + 5 = 35 with public output (input 1) and x = 3 (or bad_x): the
 * usual Groth16 toy. Constraints: x*x = s1; s1*x = y; (y + x)*1 = s2;
 * (s2 + 5)*1 = out. With x = bad_x != 3 the first three hold (the
 * intermediate values follow x) and constraint 3 fails. */
CIRC_FN void circ_cubic(circuit *c, uint64_t xv) {
    circ_init(c);
    cz_fr x, s1, y, s2, out, one = cz_fr_one, five;
    cz_fr_from_u64(&out, 35);
    cz_fr_from_u64(&x, xv);
    cz_fr_from_u64(&five, 5);
    cz_fr_mul(&s1, &x, &x);
    cz_fr_mul(&y, &s1, &x);
    cz_fr_add(&s2, &y, &x);
    cz_var vout = circ_alloc(c, &out, 1);
    cz_var vx = circ_alloc(c, &x, 0);
    cz_var vs1 = circ_alloc(c, &s1, 0);
    raw_lc a = {0}, b = {0}, cc = {0};
    raw_push(&a, vx, &one), raw_push(&b, vx, &one), raw_push(&cc, vs1, &one);
    circ_enforce(c, a, b, cc);
    cz_var vy = circ_alloc(c, &y, 0);
    a = (raw_lc){0}, b = (raw_lc){0}, cc = (raw_lc){0};
    raw_push(&a, vs1, &one), raw_push(&b, vx, &one), raw_push(&cc, vy, &one);
    circ_enforce(c, a, b, cc);
    cz_var vs2 = circ_alloc(c, &s2, 0);
    a = (raw_lc){0}, b = (raw_lc){0}, cc = (raw_lc){0};
    raw_push(&a, vy, &one), raw_push(&a, vx, &one), raw_push(&b, CZ_VAR_ONE, &one);
    raw_push(&cc, vs2, &one);
    circ_enforce(c, a, b, cc);
    a = (raw_lc){0}, b = (raw_lc){0}, cc = (raw_lc){0};
    raw_push(&a, vs2, &one), raw_push(&a, CZ_VAR_ONE, &five), raw_push(&b, CZ_VAR_ONE, &one);
    raw_push(&cc, vout, &one);
    circ_enforce(c, a, b, cc);
}

CIRC_FN cz_fr sm_coeff(uint64_t *s) {
    cz_fr r;
    switch (sm_next(s) % 6) {
    case 0:
    case 1: return cz_fr_one;
    case 2: cz_fr_neg(&r, &cz_fr_one); return r;
    case 3: cz_fr_from_u64(&r, sm_next(s) % 1000 + 2); return r;
    default: return sm_fr(s);
    }
}

CIRC_FN cz_var sm_var(uint64_t *s, const circuit *c) {
    uint64_t r = sm_next(s);
    if (r % 8 == 0) return CZ_VAR_ONE;
    if (r % 8 == 1 || c->num_aux == 0) return CZ_VAR_INPUT_BIT | (uint32_t)(r >> 8) % c->num_inputs;
    return (uint32_t)(r >> 8) % c->num_aux;
}

/* A random raw LC: up to 6 terms; sometimes a repeated variable, sometimes a
 * pair that cancels to a zero coefficient. */
CIRC_FN raw_lc sm_lc(uint64_t *s, const circuit *c) {
    raw_lc lc = {0};
    int n = (int)(sm_next(s) % 7);
    for (int i = 0; i < n; i++) {
        cz_fr k = sm_coeff(s);
        raw_push(&lc, sm_var(s, c), &k);
    }
    if (lc.n && sm_next(s) % 4 == 0) { /* repeat a variable */
        cz_fr k = sm_coeff(s);
        raw_push(&lc, lc.t[sm_next(s) % lc.n].var, &k);
    }
    if (sm_next(s) % 5 == 0) { /* a term that cancels */
        cz_var v = sm_var(s, c);
        cz_fr k = sm_coeff(s), mk;
        cz_fr_neg(&mk, &k);
        raw_push(&lc, v, &k);
        raw_push(&lc, v, &mk);
    }
    return lc;
}

/* A random satisfied R1CS of n constraints, except constraint `corrupt`
 * (when < n), whose C is off by a non-zero amount. Inputs are allocated
 * between aux variables throughout, so the final column map matters. */
CIRC_FN void circ_random(circuit *c, uint64_t seed, uint64_t n, uint64_t corrupt) {
    circ_init(c);
    uint64_t s = seed;
    for (int i = 0; i < 3; i++) {
        cz_fr v = sm_fr(&s);
        circ_alloc(c, &v, sm_next(&s) & 1);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = sm_next(&s);
        if (r % 10 == 0) {
            cz_fr v = sm_fr(&s);
            circ_alloc(c, &v, 1);
        }
        if (r % 3 == 0) {
            cz_fr v = sm_fr(&s);
            circ_alloc(c, &v, 0);
        }
        raw_lc a = sm_lc(&s, c), b = sm_lc(&s, c), cc = sm_lc(&s, c);
        /* solve for a fresh aux t with C = R + k t */
        raw_lc am = ref_merge(&a), bm = ref_merge(&b), rm = ref_merge(&cc);
        cz_fr va = ref_eval(c, &am), vb = ref_eval(c, &bm), vr = ref_eval(c, &rm), ab, t, k, kinv;
        free(am.t), free(bm.t), free(rm.t);
        do k = sm_coeff(&s);
        while (cz_fr_is_zero(&k));
        cz_fr_inv(&kinv, &k);
        cz_fr_mul(&ab, &va, &vb);
        cz_fr_sub(&t, &ab, &vr);
        cz_fr_mul(&t, &t, &kinv);
        if (i == corrupt) cz_fr_add(&t, &t, &cz_fr_one);
        cz_var vt = circ_alloc(c, &t, 0);
        raw_push(&cc, vt, &k);
        circ_enforce(c, a, b, cc);
    }
}

/* Replays the circuit on a back-end. LCs are reused across constraints and
 * built three ways (cz_lc_add, add_var/sub_var, cz_lc_add_lc of a partial
 * LC) so that every entry point of the LC code takes part. Returns the
 * number of variables the back-end numbered differently (0 expected). */
CIRC_FN int circ_replay(cz_cs *cs, const circuit *c, cz_lc lcs[3], cz_lc *tmp) {
    int mismatches = 0;
    cz_fr minus_one;
    cz_fr_neg(&minus_one, &cz_fr_one);
    for (size_t i = 0; i < c->nops; i++) {
        const op *o = &c->ops[i];
        if (o->kind != OP_ENFORCE) {
            const cz_fr *value = cz_cs_has_witness(cs) ? &o->value : NULL;
            cz_var v =
                o->kind == OP_ALLOC_INPUT ? cz_cs_alloc_input(cs, value) : cz_cs_alloc(cs, value);
            mismatches += v != o->var;
            continue;
        }
        for (int k = 0; k < 3; k++) {
            cz_lc_clear(&lcs[k]);
            cz_lc_clear(tmp);
            const raw_lc *r = &o->lc[k];
            for (size_t j = 0; j < r->n; j++) {
                const raw_term *t = &r->t[j];
                cz_lc *dst = j >= r->n / 2 && (i & 1) ? tmp : &lcs[k];
                if (cz_fr_is_one(&t->coeff))
                    CHECK(cz_lc_add_var(dst, t->var) == CZ_OK);
                else if (cz_fr_equal(&t->coeff, &minus_one))
                    CHECK(cz_lc_sub_var(dst, t->var) == CZ_OK);
                else
                    CHECK(cz_lc_add(dst, t->var, &t->coeff) == CZ_OK);
            }
            CHECK(cz_lc_add_lc(&lcs[k], tmp, NULL) == CZ_OK);
        }
        /* an empty C goes in as NULL now and then: the header allows it */
        const cz_lc *cp = lcs[2].len == 0 && (i & 2) ? NULL : &lcs[2];
        if (i % 3 == 0) {
            /* Hand-built LCs, terms in a scrambled order (as a gadget's own
             * builder may keep insertion order): the merged reference terms,
             * reversed and rotated. Back-ends must not depend on the order. */
            cz_lc hand[3];
            for (int k = 0; k < 3; k++) {
                const raw_lc *m = &o->lc_m[k];
                hand[k].terms = xrealloc(NULL, (m->n + 1) * sizeof(cz_lc_term));
                hand[k].len = hand[k].cap = (uint32_t)m->n;
                for (size_t j = 0; j < m->n; j++) {
                    size_t from = (m->n - 1 - j + i) % m->n;
                    hand[k].terms[j].var = m->t[from].var;
                    hand[k].terms[j].coeff = m->t[from].coeff;
                }
            }
            cz_cs_enforce(cs, &hand[0], &hand[1], &hand[2]);
            for (int k = 0; k < 3; k++) free(hand[k].terms);
            continue;
        }
        cz_cs_enforce(cs, &lcs[0], &lcs[1], cp);
    }
    return mismatches;
}

/* The expected CSR of matrix k: nonzero merged terms, aux columns after the
 * final inputs, plus the appended input rows (A = input_i). */
typedef struct {
    uint64_t rows, nnz;
    uint64_t *row_start;
    uint32_t *col;
    cz_fr *val;
} ref_csr;

CIRC_FN ref_csr circ_csr(const circuit *c, int k) {
    ref_csr m = {0};
    m.rows = c->num_constraints + c->num_inputs;
    m.row_start = xrealloc(NULL, (m.rows + 1) * sizeof(uint64_t));
    size_t cap = 16;
    m.col = xrealloc(NULL, cap * sizeof(uint32_t));
    m.val = xrealloc(NULL, cap * sizeof(cz_fr));
    uint64_t row = 0;
    m.row_start[0] = 0;
    for (size_t i = 0; i < c->nops; i++) {
        if (c->ops[i].kind != OP_ENFORCE) continue;
        const raw_lc *r = &c->ops[i].lc_m[k];
        for (size_t j = 0; j < r->n; j++) {
            if (cz_fr_is_zero(&r->t[j].coeff)) continue;
            if (m.nnz + 1 > cap) {
                cap *= 2;
                m.col = xrealloc(m.col, cap * sizeof(uint32_t));
                m.val = xrealloc(m.val, cap * sizeof(cz_fr));
            }
            cz_var v = r->t[j].var;
            m.col[m.nnz] = CZ_VAR_IS_INPUT(v) ? CZ_VAR_INDEX(v) : c->num_inputs + v;
            m.val[m.nnz] = r->t[j].coeff;
            m.nnz++;
        }
        m.row_start[++row] = m.nnz;
    }
    for (uint32_t i = 0; i < c->num_inputs; i++) {
        if (k == 0) {
            if (m.nnz + 1 > cap) {
                cap *= 2;
                m.col = xrealloc(m.col, cap * sizeof(uint32_t));
                m.val = xrealloc(m.val, cap * sizeof(cz_fr));
            }
            m.col[m.nnz] = i;
            m.val[m.nnz] = cz_fr_one;
            m.nnz++;
        }
        m.row_start[++row] = m.nnz;
    }
    return m;
}

CIRC_FN void ref_csr_free(ref_csr *m) {
    free(m->row_start), free(m->col), free(m->val);
    memset(m, 0, sizeof *m);
}

/* Row `row` of m times the circuit's witness. */
CIRC_FN cz_fr ref_csr_row(const circuit *c, const ref_csr *m, uint64_t row) {
    cz_fr acc = cz_fr_zero, t;
    for (uint64_t e = m->row_start[row]; e < m->row_start[row + 1]; e++) {
        uint32_t col = m->col[e];
        const cz_fr *x = col < c->num_inputs ? &c->input[col] : &c->aux[col - c->num_inputs];
        cz_fr_mul(&t, x, &m->val[e]);
        cz_fr_add(&acc, &acc, &t);
    }
    return acc;
}

#endif
