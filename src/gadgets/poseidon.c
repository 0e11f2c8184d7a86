/* Poseidon circuit (neptune legacy circuit): see poseidon.h. */
#include "gadgets/poseidon.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gadgets/lcb.h"
#include "hash/poseidon.h"

/* neptune's Elt: an allocated variable or a symbolic linear combination
 * (Num). An allocated element is kept as the combination 1 * var, which is
 * what bellpepper's Num::from(AllocatedNum) gives when it is scaled. */
typedef struct {
    cz_lcb lc;
    cz_fr value; /* zero without a witness */
    cz_var var;  /* when allocated */
    int allocated;
} elt;

typedef struct {
    cz_cs *cs;
    int witness;
    const cz_poseidon_params *p;
    elt *cur, *next; /* width each */
} circuit;

static void elt_set_var(elt *e, cz_var var, const cz_fr *value) {
    cz_lcb_clear(&e->lc);
    cz_lcb_add_var(&e->lc, var);
    e->var = var;
    e->value = *value;
    e->allocated = 1;
}

static void elt_set_const(elt *e, const cz_fr *value) {
    cz_lcb_clear(&e->lc);
    cz_lcb_add(&e->lc, CZ_VAR_ONE, value);
    e->value = *value;
    e->allocated = 0;
}

/* A constraint on small combinations: up to two terms each, coefficient 1
 * for the variables; k_* add k * ONE (NULL: none). */
typedef struct {
    cz_var var;
    const cz_fr *k; /* NULL, or the coefficient of ONE added to var */
} small_side;

static void enforce_small(cz_cs *cs, small_side a, small_side b, small_side c) {
    if (cz_gadget_enforce_bare(cs)) return;
    cz_lc_term buf[3][2];
    cz_lc lc[3];
    small_side s[3] = {a, b, c};
    for (int m = 0; m < 3; m++) {
        lc[m].terms = buf[m];
        lc[m].cap = 2;
        lc[m].len = 1;
        buf[m][0].var = s[m].var;
        buf[m][0].coeff = cz_fr_one;
        if (s[m].k) {
            buf[m][1].var = CZ_VAR_ONE;
            buf[m][1].coeff = *s[m].k;
            lc[m].len = 2;
        }
    }
    cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
}

static cz_var alloc_value(circuit *c, const cz_fr *value) {
    return cz_cs_alloc(c->cs, c->witness ? value : NULL);
}

/* AllocatedNum::square: aux y = x^2; x * x = y. */
static cz_var square(circuit *c, cz_fr *y, cz_var x, const cz_fr *xv) {
    if (c->witness) cz_fr_sqr(y, xv);
    cz_var v = alloc_value(c, y);
    enforce_small(c->cs, (small_side){x, NULL}, (small_side){x, NULL}, (small_side){v, NULL});
    return v;
}

/* The first round's S-box of an allocated element x (quintic_s_box_pre_add):
 * q = (x + pre)^2, q4 = q^2, y = q4 (x + pre) + post. */
static void sbox_first(circuit *c, elt *e, const cz_fr *pre, const cz_fr *post, cz_var vars_out[3],
                       cz_fr values_out[3]) {
    cz_fr xk = cz_fr_zero, q = cz_fr_zero, q4 = cz_fr_zero, y = cz_fr_zero, neg_post;
    if (c->witness) {
        cz_fr_add(&xk, &e->value, pre);
        cz_fr_sqr(&q, &xk);
    }
    /* square_sum: (x + pre ONE) * (x + pre ONE) = q */
    cz_var qv = alloc_value(c, &q);
    enforce_small(c->cs, (small_side){e->var, pre}, (small_side){e->var, pre},
                  (small_side){qv, NULL});
    cz_var q4v = square(c, &q4, qv, &q);
    /* mul_sum pre-post-add: (x + pre ONE) * q4 = y - post ONE */
    if (c->witness) {
        cz_fr_mul(&y, &q4, &xk);
        cz_fr_add(&y, &y, post);
    }
    cz_var yv = alloc_value(c, &y);
    cz_fr_neg(&neg_post, post);
    enforce_small(c->cs, (small_side){e->var, pre}, (small_side){q4v, NULL},
                  (small_side){yv, &neg_post});
    elt_set_var(e, yv, &y);
    if (vars_out) vars_out[0] = qv, vars_out[1] = q4v, vars_out[2] = yv;
    if (values_out) values_out[0] = q, values_out[1] = q4, values_out[2] = y;
}

/* Any later S-box (quintic_s_box): allocate the input when it is a
 * combination (ensure_allocated: LC * ONE = u), then u2 = u^2, u4 = u2^2,
 * y = u4 u + post (post NULL in the terminal round). */
static void sbox(circuit *c, elt *e, const cz_fr *post) {
    cz_var u = e->var;
    cz_fr uv = e->value, u2 = cz_fr_zero, u4 = cz_fr_zero, y = cz_fr_zero, neg_post;
    if (!e->allocated) {
        u = alloc_value(c, &uv);
        cz_lc_term one_term = {CZ_VAR_ONE, cz_fr_one}, u_term = {u, cz_fr_one};
        cz_lc b = {&one_term, 1, 1}, cc = {&u_term, 1, 1};
        cz_cs_enforce(c->cs, &e->lc.lc, &b, &cc);
    }
    cz_var u2v = square(c, &u2, u, &uv);
    cz_var u4v = square(c, &u4, u2v, &u2);
    if (c->witness) {
        cz_fr_mul(&y, &u4, &uv);
        if (post) cz_fr_add(&y, &y, post);
    }
    cz_var yv = alloc_value(c, &y);
    if (post) cz_fr_neg(&neg_post, post);
    enforce_small(c->cs, (small_side){u, NULL}, (small_side){u4v, NULL},
                  (small_side){yv, post ? &neg_post : NULL});
    elt_set_var(e, yv, &y);
}

static void swap_state(circuit *c) {
    elt *t = c->cur;
    c->cur = c->next;
    c->next = t;
}

/* new[j] = sum_i cur[i] m[i][j] (scalar_product over column j). */
static void product_dense(circuit *c, const cz_fr *m) {
    unsigned t = c->p->width;
    for (unsigned j = 0; j < t; j++) {
        elt *n = &c->next[j];
        cz_lcb_clear(&n->lc);
        n->value = cz_fr_zero;
        n->allocated = 0;
        for (unsigned i = 0; i < t; i++) {
            cz_lcb_add_lc(&n->lc, &c->cur[i].lc.lc, &m[i * t + j]);
            if (c->witness) {
                cz_fr tmp;
                cz_fr_mul(&tmp, &c->cur[i].value, &m[i * t + j]);
                cz_fr_add(&n->value, &n->value, &tmp);
            }
        }
    }
    swap_state(c);
}

/* Sparse M'': new[0] = sum_i cur[i] w_hat[i]; new[k] = cur[k] + cur[0] v_rest[k-1]. */
static void product_sparse(circuit *c, const cz_fr *w_hat, const cz_fr *v_rest) {
    unsigned t = c->p->width;
    elt *n0 = &c->next[0];
    cz_lcb_clear(&n0->lc);
    n0->value = cz_fr_zero;
    n0->allocated = 0;
    for (unsigned i = 0; i < t; i++) {
        cz_lcb_add_lc(&n0->lc, &c->cur[i].lc.lc, &w_hat[i]);
        if (c->witness) {
            cz_fr tmp;
            cz_fr_mul(&tmp, &c->cur[i].value, &w_hat[i]);
            cz_fr_add(&n0->value, &n0->value, &tmp);
        }
    }
    for (unsigned k = 1; k < t; k++) {
        elt *n = &c->next[k];
        cz_lcb_clear(&n->lc);
        n->allocated = 0;
        cz_lcb_add_lc(&n->lc, &c->cur[k].lc.lc, &cz_fr_one);
        cz_lcb_add_lc(&n->lc, &c->cur[0].lc.lc, &v_rest[k - 1]);
        n->value = cz_fr_zero;
        if (c->witness) {
            cz_fr tmp;
            cz_fr_mul(&tmp, &c->cur[0].value, &v_rest[k - 1]);
            cz_fr_add(&n->value, &c->cur[k].value, &tmp);
        }
    }
    swap_state(c);
}

/* The matrix step after round `round` (product_mds). */
static void product_mds(circuit *c, unsigned round) {
    const cz_poseidon_params *p = c->p;
    unsigned h = p->full_rounds / 2, t = p->width;
    if (round == h - 1) {
        product_dense(c, p->pre_sparse);
    } else if (round > h - 1 && round < h + p->partial_rounds) {
        product_sparse(c, &p->sparse_w_hat[(size_t)(round - h) * t],
                       &p->sparse_v_rest[(size_t)(round - h) * (t - 1)]);
    } else {
        product_dense(c, p->mds);
    }
}

static void hash_circuit(circuit *c, cz_num *out, const cz_num *in, const cz_fr *tag) {
    const cz_poseidon_params *p = c->p;
    unsigned t = p->width, h = p->full_rounds / 2, rounds = p->full_rounds + p->partial_rounds;
    const cz_fr *crc = p->compressed;
    size_t off;

    /* round 0: the tag's S-box is a constant; the inputs are allocated */
    {
        cz_fr x;
        cz_fr_add(&x, tag, &crc[0]);
        cz_fr x2, x4;
        cz_fr_sqr(&x2, &x);
        cz_fr_sqr(&x4, &x2);
        cz_fr_mul(&x, &x4, &x);
        cz_fr_add(&x, &x, &crc[t]);
        elt_set_const(&c->cur[0], &x);
    }
    for (unsigned i = 1; i < t; i++) {
        cz_fr v = c->witness ? in[i - 1].value : cz_fr_zero;
        elt_set_var(&c->cur[i], in[i - 1].var, &v);
        sbox_first(c, &c->cur[i], &crc[i], &crc[t + i], NULL, NULL);
    }
    off = 2 * (size_t)t;
    product_mds(c, 0);
    for (unsigned round = 1; round < rounds; round++) {
        if (round >= h && round < h + p->partial_rounds) {
            sbox(c, &c->cur[0], &crc[off++]);
        } else if (round + 1 < rounds) {
            for (unsigned i = 0; i < t; i++) sbox(c, &c->cur[i], &crc[off + i]);
            off += t;
        } else {
            for (unsigned i = 0; i < t; i++) sbox(c, &c->cur[i], NULL);
        }
        product_mds(c, round);
    }

    /* the result: ensure_allocated(element 1), LC * ONE = o */
    elt *e = &c->cur[1];
    out->value = c->witness ? e->value : cz_fr_zero;
    out->var = alloc_value(c, &out->value);
    cz_lc_term one_term = {CZ_VAR_ONE, cz_fr_one}, o_term = {out->var, cz_fr_one};
    cz_lc b = {&one_term, 1, 1}, cc = {&o_term, 1, 1};
    cz_cs_enforce(c->cs, &e->lc.lc, &b, &cc);
}

void cz_poseidon_gadget_hash_reference(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity,
                                       const cz_fr *tag) {
    out->var = CZ_VAR_ONE;
    out->value = cz_fr_zero;
    if (!cz_poseidon_arity_supported(arity)) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "poseidon gadget: unsupported arity %u", arity);
        return;
    }
    circuit c;
    c.cs = cs;
    c.witness = cz_cs_has_witness(cs);
    c.p = cz_poseidon_params_get(arity);
    if (!c.p) {
        cz_cs_fail(cs, CZ_E_NOMEM, "poseidon gadget: parameters for arity %u", arity);
        return;
    }
    unsigned t = c.p->width;
    elt *mem = malloc(2 * (size_t)t * sizeof *mem);
    if (!mem) {
        cz_cs_fail(cs, CZ_E_NOMEM, "poseidon gadget: state of width %u", t);
        return;
    }
    c.cur = mem;
    c.next = mem + t;
    for (unsigned i = 0; i < 2 * t; i++) {
        cz_lcb_init(&mem[i].lc, cs, NULL, 0);
        mem[i].value = cz_fr_zero;
        mem[i].var = CZ_VAR_ONE;
        mem[i].allocated = 0;
    }
    hash_circuit(&c, out, in, tag);
    for (unsigned i = 0; i < 2 * t; i++) cz_lcb_free(&mem[i].lc);
    free(mem);
}

/* ---- the replayed template ----
 *
 * From round 1 on, the constraints of one hash only name ONE and the hash's
 * own allocated variables, with coefficients that depend on the arity and the
 * tag alone. So the reference synthesis above runs once per arity (MerkleTree
 * tag) on a recording system, and every later hash replays the recording:
 * the first round is emitted directly (it names the preimage), then each
 * template constraint is preceded, as in the reference, by exactly one
 * allocation whose value is <A,z> <B,z> - (the ONE coefficient of C). The
 * emitted system is identical to the reference synthesis (tested). */

#define LOCAL_ONE UINT32_MAX

typedef struct {
    uint32_t var; /* local index (allocation order within the hash), or LOCAL_ONE */
    cz_fr coeff;
} tmpl_term;

typedef struct {
    uint32_t first;     /* allocations (and constraints) of the first round: 3 arity */
    uint32_t n_cons;    /* template constraints after the first round */
    uint32_t max_lc;    /* longest combination */
    uint32_t *lc_start; /* 3 n_cons + 1 offsets into terms: A, B, C of each */
    tmpl_term *terms;
} poseidon_template;

/* A recording constraint system (no witness): aux variables numbered from 0. */
typedef struct {
    cz_cs base;
    tmpl_term *terms;
    size_t n_terms, cap_terms;
    uint32_t *lc_start; /* offsets; lc_start[0] = 0 */
    size_t n_lcs, cap_lcs;
    uint32_t *aux_before; /* num_aux when each constraint was enforced */
    int bad;
} recorder;

static cz_var recorder_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    (void)value;
    recorder *r = (recorder *)cs;
    if (is_input) r->bad = 1;
    return cs->num_aux++;
}

static void recorder_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    recorder *r = (recorder *)cs;
    const cz_lc *abc[3] = {a, b, c};
    if (r->bad) return;
    if (r->n_lcs + 3 >= r->cap_lcs) {
        size_t cap = r->cap_lcs ? 2 * r->cap_lcs : 1024;
        uint32_t *ls = realloc(r->lc_start, (cap + 1) * sizeof *ls);
        uint32_t *ab = realloc(r->aux_before, (cap / 3 + 1) * sizeof *ab);
        if (ls) r->lc_start = ls;
        if (ab) r->aux_before = ab;
        if (!ls || !ab) {
            r->bad = 1;
            return;
        }
        r->cap_lcs = cap;
    }
    r->aux_before[cs->num_constraints] = cs->num_aux;
    for (int m = 0; m < 3; m++) {
        uint32_t len = abc[m] ? abc[m]->len : 0;
        if (r->n_terms + len > r->cap_terms) {
            size_t cap = 2 * (r->n_terms + len) + 1024;
            tmpl_term *t = realloc(r->terms, cap * sizeof *t);
            if (!t) {
                r->bad = 1;
                return;
            }
            r->terms = t;
            r->cap_terms = cap;
        }
        for (uint32_t i = 0; i < len; i++) {
            r->terms[r->n_terms].var = abc[m]->terms[i].var;
            r->terms[r->n_terms].coeff = abc[m]->terms[i].coeff;
            r->n_terms++;
        }
        r->lc_start[++r->n_lcs] = (uint32_t)r->n_terms;
    }
    cs->num_constraints++;
}

static void recorder_destroy(cz_cs *cs) {
    (void)cs;
}

static const cz_cs_ops recorder_ops = {recorder_alloc, recorder_enforce, recorder_destroy};

static void template_free(poseidon_template *t) {
    if (!t) return;
    free(t->lc_start);
    free(t->terms);
    free(t);
}

/* Records the reference synthesis over aux preimage 0..arity-1 and turns it
 * into a template; NULL when memory ran out or the recording does not have
 * the expected shape (then the reference synthesis is used instead). */
static poseidon_template *template_build(unsigned arity, const cz_fr *tag) {
    recorder r;
    memset(&r, 0, sizeof r);
    r.base.ops = &recorder_ops;
    r.base.num_inputs = 1;
    r.lc_start = malloc(sizeof *r.lc_start);
    poseidon_template *t = calloc(1, sizeof *t);
    if (!r.lc_start || !t) goto fail;
    r.lc_start[0] = 0;
    cz_num in[CZ_POSEIDON_MAX_ARITY], out;
    for (unsigned i = 0; i < arity; i++) cz_num_alloc(&r.base, &in[i], NULL);
    cz_poseidon_gadget_hash_reference(&r.base, &out, in, arity, tag);
    if (r.bad || r.base.status != CZ_OK) goto fail;

    uint32_t first = 3 * arity, total = (uint32_t)r.base.num_constraints;
    if (total <= first || r.base.num_aux != arity + total) goto fail;
    t->first = first;
    t->n_cons = total - first;
    size_t base_term = r.lc_start[3 * first], n_terms = r.n_terms - base_term;
    t->lc_start = malloc((3 * (size_t)t->n_cons + 1) * sizeof *t->lc_start);
    t->terms = malloc((n_terms ? n_terms : 1) * sizeof *t->terms);
    if (!t->lc_start || !t->terms) goto fail;
    for (uint32_t k = 0; k <= 3 * t->n_cons; k++)
        t->lc_start[k] = (uint32_t)(r.lc_start[3 * first + k] - base_term);
    for (size_t i = 0; i < n_terms; i++) {
        tmpl_term src = r.terms[base_term + i];
        if (src.var == CZ_VAR_ONE) {
            src.var = LOCAL_ONE;
        } else if (CZ_VAR_IS_INPUT(src.var) || src.var < arity) {
            goto fail; /* names the preimage or an outside variable */
        } else {
            src.var -= arity;
        }
        t->terms[i] = src;
    }
    for (uint32_t k = 0; k < t->n_cons; k++) {
        /* one allocation right before each constraint: local first + k */
        if (r.aux_before[first + k] != arity + first + k + 1) goto fail;
        /* C = 1 * (that variable) [+ c ONE], and A, B name only earlier locals */
        const tmpl_term *c = &t->terms[t->lc_start[3 * k + 2]];
        uint32_t clen = t->lc_start[3 * k + 3] - t->lc_start[3 * k + 2];
        if (clen < 1 || clen > 2 || c[0].var != first + k || !cz_fr_is_one(&c[0].coeff) ||
            (clen == 2 && c[1].var != LOCAL_ONE))
            goto fail;
        for (uint32_t m = 0; m < 2; m++)
            for (uint32_t i = t->lc_start[3 * k + m]; i < t->lc_start[3 * k + m + 1]; i++)
                if (t->terms[i].var != LOCAL_ONE && t->terms[i].var >= first + k) goto fail;
        for (uint32_t m = 0; m < 3; m++) {
            uint32_t len = t->lc_start[3 * k + m + 1] - t->lc_start[3 * k + m];
            if (len > t->max_lc) t->max_lc = len;
        }
    }
    free(r.terms);
    free(r.lc_start);
    free(r.aux_before);
    return t;
fail:
    free(r.terms);
    free(r.lc_start);
    free(r.aux_before);
    template_free(t);
    return NULL;
}

static const unsigned template_arities[] = {2, 4, 8, 11, 16, 24, 36};
#define NUM_TEMPLATES (sizeof template_arities / sizeof template_arities[0])
static _Atomic(poseidon_template *) templates[NUM_TEMPLATES];
static atomic_int template_failed[NUM_TEMPLATES];
static pthread_mutex_t template_lock = PTHREAD_MUTEX_INITIALIZER;

/* The template of the MerkleTree-tag hash of an arity, built once; NULL when
 * it could not be built. */
static const poseidon_template *template_get(const cz_poseidon_params *p) {
    unsigned slot = 0;
    while (slot < NUM_TEMPLATES && template_arities[slot] != p->arity) slot++;
    if (slot == NUM_TEMPLATES) return NULL;
    poseidon_template *t = atomic_load_explicit(&templates[slot], memory_order_acquire);
    if (t || atomic_load_explicit(&template_failed[slot], memory_order_relaxed)) return t;
    pthread_mutex_lock(&template_lock);
    t = atomic_load_explicit(&templates[slot], memory_order_relaxed);
    if (!t && !atomic_load_explicit(&template_failed[slot], memory_order_relaxed)) {
        t = template_build(p->arity, &p->merkle_tag);
        if (t)
            atomic_store_explicit(&templates[slot], t, memory_order_release);
        else
            atomic_store_explicit(&template_failed[slot], 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&template_lock);
    return t;
}

/* <lc, z> over the template's locals */
static void eval_template_lc(cz_fr *r, const tmpl_term *t, uint32_t len, const cz_fr *values) {
    cz_fr acc = cz_fr_zero, tmp;
    for (uint32_t i = 0; i < len; i++) {
        if (t[i].var == LOCAL_ONE) {
            cz_fr_add(&acc, &acc, &t[i].coeff);
        } else {
            cz_fr_mul(&tmp, &t[i].coeff, &values[t[i].var]);
            cz_fr_add(&acc, &acc, &tmp);
        }
    }
    *r = acc;
}

static int hash_replay(cz_cs *cs, cz_num *out, const cz_num *in, const cz_poseidon_params *p,
                       const poseidon_template *t) {
    uint32_t n_local = t->first + t->n_cons;
    int witness = cz_cs_has_witness(cs);
    cz_var *vars = malloc(n_local * sizeof *vars);
    cz_fr *values = witness ? malloc(n_local * sizeof *values) : NULL;
    cz_lc_term *buf = malloc(3 * (size_t)t->max_lc * sizeof *buf);
    if (!vars || (witness && !values) || !buf) {
        free(vars);
        free(values);
        free(buf);
        return 0;
    }
    unsigned tw = p->width;
    const cz_fr *crc = p->compressed;
    circuit c;
    c.cs = cs;
    c.witness = witness;
    c.p = p;
    c.cur = c.next = NULL; /* only the first-round S-boxes run here */
    /* the first round, exactly as the reference synthesis does it */
    for (unsigned i = 1; i < tw; i++) {
        elt e;
        cz_fr v = witness ? in[i - 1].value : cz_fr_zero;
        cz_lcb_init(&e.lc, cs, NULL, 0);
        elt_set_var(&e, in[i - 1].var, &v);
        uint32_t l = 3 * (i - 1); /* locals of this S-box: q, q4, y */
        sbox_first(&c, &e, &crc[i], &crc[tw + i], &vars[l], witness ? &values[l] : NULL);
        cz_lcb_free(&e.lc);
    }
    for (uint32_t k = 0; k < t->n_cons; k++) {
        uint32_t local = t->first + k;
        const tmpl_term *lcs[3];
        uint32_t len[3];
        for (int m = 0; m < 3; m++) {
            lcs[m] = &t->terms[t->lc_start[3 * k + m]];
            len[m] = t->lc_start[3 * k + m + 1] - t->lc_start[3 * k + m];
        }
        if (witness) {
            cz_fr a, b;
            eval_template_lc(&a, lcs[0], len[0], values);
            eval_template_lc(&b, lcs[1], len[1], values);
            cz_fr_mul(&values[local], &a, &b);
            if (len[2] == 2) cz_fr_sub(&values[local], &values[local], &lcs[2][1].coeff);
        }
        vars[local] = cz_cs_alloc(cs, witness ? &values[local] : NULL);
        if (cz_gadget_enforce_bare(cs)) continue;
        cz_lc lc[3];
        for (int m = 0; m < 3; m++) {
            cz_lc_term *dst = buf + (size_t)m * t->max_lc;
            for (uint32_t i = 0; i < len[m]; i++) {
                dst[i].var = lcs[m][i].var == LOCAL_ONE ? CZ_VAR_ONE : vars[lcs[m][i].var];
                dst[i].coeff = lcs[m][i].coeff;
            }
            lc[m].terms = dst;
            lc[m].len = lc[m].cap = len[m];
        }
        cz_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
    }
    out->var = vars[n_local - 1];
    out->value = witness ? values[n_local - 1] : cz_fr_zero;
    free(vars);
    free(values);
    free(buf);
    return 1;
}

void cz_poseidon_gadget_hash_tag(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity,
                                 const cz_fr *tag) {
    const cz_poseidon_params *p =
        cz_poseidon_arity_supported(arity) ? cz_poseidon_params_get(arity) : NULL;
    /* A witness-only system gets the direct synthesis without combinations:
     * its values come from the round function on the state (t^2
     * multiplications per full round, 2t per partial one), while the
     * template's combinations keep growing through the partial rounds. */
    if (p && cz_fr_equal(tag, &p->merkle_tag) && !cz_cs_ignores_lcs(cs)) {
        const poseidon_template *t = template_get(p);
        if (t && hash_replay(cs, out, in, p, t)) return;
    }
    cz_poseidon_gadget_hash_reference(cs, out, in, arity, tag);
}

void cz_poseidon_gadget_hash(cz_cs *cs, cz_num *out, const cz_num *in, unsigned arity) {
    const cz_poseidon_params *p =
        cz_poseidon_arity_supported(arity) ? cz_poseidon_params_get(arity) : NULL;
    if (!p) {
        out->var = CZ_VAR_ONE;
        out->value = cz_fr_zero;
        cz_cs_fail(cs, cz_poseidon_arity_supported(arity) ? CZ_E_NOMEM : CZ_E_INVALID_ARG,
                   "poseidon gadget: no parameters for arity %u", arity);
        return;
    }
    cz_poseidon_gadget_hash_tag(cs, out, in, arity, &p->merkle_tag);
}

void cz_poseidon_gadget_hash_md(cz_cs *cs, cz_num *out, const cz_num *in, size_t n) {
    out->var = CZ_VAR_ONE;
    out->value = cz_fr_zero;
    if (n < 2) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "poseidon hash_md: %zu elements (needs 2 or more)", n);
        return;
    }
    const size_t chunk = CZ_POSEIDON_MD_ARITY - 1;
    cz_num pre[CZ_POSEIDON_MD_ARITY], acc = in[0];
    for (size_t start = 1; start < n; start += chunk) {
        size_t len = n - start < chunk ? n - start : chunk;
        pre[0] = acc;
        for (size_t j = 0; j < len; j++) pre[1 + j] = in[start + j];
        /* terminal padding: allocated zeros, no constraint */
        for (size_t j = 1 + len; j < CZ_POSEIDON_MD_ARITY; j++)
            cz_num_alloc(cs, &pre[j], &cz_fr_zero);
        cz_poseidon_gadget_hash(cs, &acc, pre, CZ_POSEIDON_MD_ARITY);
    }
    *out = acc;
}
