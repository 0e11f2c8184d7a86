/* A proxy constraint system for the gadget tests (header-only, included by
 * tests/gadgets/test_*.c). It forwards to a real back-end (check when a
 * witness is wanted, count otherwise) and on the way:
 *  - hashes the structure (every variable and every term of every
 *    constraint) so that synthesis with and without a witness can be compared;
 *  - can replace the value of chosen aux variables (soundness checks);
 *  - records input values and, optionally, every constraint, so tests can
 *    look at the exact linear combinations a gadget emitted. */
#ifndef CZ_TESTS_GADGET_TEST_CS_H
#define CZ_TESTS_GADGET_TEST_CS_H

#include <stdlib.h>
#include <string.h>

#include "r1cs/backends.h"

typedef struct {
    cz_lc_term *terms[3];
    uint32_t len[3];
} proxy_constraint;

typedef struct {
    cz_cs base;
    cz_cs *inner;
    int hash;        /* keep the structure digest */
    uint64_t digest; /* a running hash of the structure */
    /* aux index -> 0: keep, 1: flip (1 - value), 2: override_value[aux] */
    uint8_t *override_mode;
    cz_fr *override_value;
    uint32_t override_cap;
    /* input values in allocation order (input 0 = ONE not included) */
    cz_fr *inputs;
    uint32_t n_inputs;
    /* recorded constraints, when record is set */
    int record;
    proxy_constraint *cons;
    uint64_t n_cons, cap_cons;
} proxy_cs;

static inline void proxy_mix(uint64_t *h, uint64_t w) {
    uint64_t x = (*h ^ w) * 0x9e3779b97f4a7c15ULL;
    *h = x ^ (x >> 29);
}

static inline cz_var proxy_alloc(cz_cs *cs, const cz_fr *value, int is_input) {
    proxy_cs *p = (proxy_cs *)cs;
    cz_fr replaced;
    uint32_t aux = p->inner->num_aux;
    if (!is_input && value && aux < p->override_cap && p->override_mode[aux]) {
        if (p->override_mode[aux] == 1)
            cz_fr_sub(&replaced, &cz_fr_one, value);
        else
            replaced = p->override_value[aux];
        value = &replaced;
    }
    if (is_input) {
        p->inputs = realloc(p->inputs, (p->n_inputs + 1) * sizeof *p->inputs);
        p->inputs[p->n_inputs++] = value ? *value : cz_fr_zero;
    }
    cz_var v = p->inner->ops->alloc(p->inner, value, is_input);
    if (p->hash) proxy_mix(&p->digest, v);
    cs->num_inputs = p->inner->num_inputs;
    cs->num_aux = p->inner->num_aux;
    return v;
}

static inline void proxy_hash_lc(uint64_t *h, const cz_lc *lc) {
    for (uint32_t i = 0; i < lc->len; i++) {
        const uint64_t *l = lc->terms[i].coeff.l;
        proxy_mix(h, lc->terms[i].var ^ (l[0] + 3 * l[1] + 5 * l[2] + 7 * l[3]));
    }
    proxy_mix(h, 0x7c);
}

static inline void proxy_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c) {
    proxy_cs *p = (proxy_cs *)cs;
    if (p->hash)
        proxy_hash_lc(&p->digest, a), proxy_hash_lc(&p->digest, b), proxy_hash_lc(&p->digest, c);
    if (p->record) {
        if (p->n_cons == p->cap_cons) {
            p->cap_cons = p->cap_cons ? 2 * p->cap_cons : 64;
            p->cons = realloc(p->cons, p->cap_cons * sizeof *p->cons);
        }
        const cz_lc *abc[3] = {a, b, c};
        proxy_constraint *k = &p->cons[p->n_cons++];
        for (int m = 0; m < 3; m++) {
            k->len[m] = abc[m]->len;
            k->terms[m] = malloc((abc[m]->len + 1) * sizeof(cz_lc_term));
            if (abc[m]->len) memcpy(k->terms[m], abc[m]->terms, abc[m]->len * sizeof(cz_lc_term));
        }
    }
    p->inner->ops->enforce(p->inner, a, b, c);
    cs->num_constraints = p->inner->num_constraints;
}

static inline void proxy_destroy(cz_cs *cs) {
    proxy_cs *p = (proxy_cs *)cs;
    cz_cs_destroy(p->inner);
    for (uint64_t i = 0; i < p->n_cons; i++)
        for (int m = 0; m < 3; m++) free(p->cons[i].terms[m]);
    free(p->cons);
    free(p->inputs);
    free(p->override_mode);
    free(p->override_value);
    free(p);
}

static const cz_cs_ops proxy_ops = {proxy_alloc, proxy_enforce, proxy_destroy};

/* witness: over a check back-end, else over a count back-end */
static inline cz_cs *proxy_new(int witness) {
    proxy_cs *p = calloc(1, sizeof *p);
    p->base.ops = &proxy_ops;
    p->inner = witness ? cz_cs_check_new() : cz_cs_count_new();
    p->base.has_witness = p->inner->has_witness;
    p->base.num_inputs = 1;
    p->hash = 1;
    p->digest = 0xcbf29ce484222325ULL;
    return &p->base;
}

static inline proxy_cs *proxy_of(cz_cs *cs) {
    return (proxy_cs *)cs;
}

static inline void proxy_override(proxy_cs *p, uint32_t aux, int mode, const cz_fr *value) {
    if (aux >= p->override_cap) {
        uint32_t cap = 2 * aux + 64;
        p->override_mode = realloc(p->override_mode, cap);
        p->override_value = realloc(p->override_value, cap * sizeof *p->override_value);
        memset(p->override_mode + p->override_cap, 0, cap - p->override_cap);
        p->override_cap = cap;
    }
    p->override_mode[aux] = (uint8_t)mode;
    if (value) p->override_value[aux] = *value;
}

/* Aux variable `aux` will get 1 - its value. */
static inline void proxy_flip(cz_cs *cs, uint32_t aux) {
    proxy_override(proxy_of(cs), aux, 1, NULL);
}

/* Aux variable `aux` will get `value`. */
static inline void proxy_set(cz_cs *cs, uint32_t aux, const cz_fr *value) {
    proxy_override(proxy_of(cs), aux, 2, value);
}

static inline int proxy_ok(cz_cs *cs) {
    return cz_cs_status(cs) == CZ_OK && cz_cs_status(proxy_of(cs)->inner) == CZ_OK;
}

/* No error anywhere and (over a check back-end) every constraint holds. */
static inline int proxy_satisfied(cz_cs *cs) {
    cz_check_result r;
    cz_cs_check_result(proxy_of(cs)->inner, &r);
    return proxy_ok(cs) && r.satisfied;
}

/* ---- comparing recorded linear combinations ---- */

/* An expected term: variable and a small integer coefficient. */
typedef struct {
    cz_var var;
    int64_t coeff;
} exp_term;

static inline void small_to_fr(cz_fr *r, int64_t v) {
    cz_fr_from_u64(r, (uint64_t)(v < 0 ? -v : v));
    if (v < 0) cz_fr_neg(r, r);
}

/* Recorded LC m (0 = A, 1 = B, 2 = C) of constraint k equals the expected
 * terms as a map variable -> coefficient (order free, zero coefficients
 * compared too: the term stays in bellpepper). */
static inline int lc_is(cz_cs *cs, uint64_t k, int m, const exp_term *want, uint32_t n) {
    proxy_cs *p = proxy_of(cs);
    if (k >= p->n_cons) return 0;
    const cz_lc_term *t = p->cons[k].terms[m];
    uint32_t len = p->cons[k].len[m];
    if (len != n) return 0;
    for (uint32_t i = 0; i < n; i++) {
        int found = 0;
        cz_fr c;
        small_to_fr(&c, want[i].coeff);
        for (uint32_t j = 0; j < len; j++)
            if (t[j].var == want[i].var) found = cz_fr_equal(&t[j].coeff, &c);
        if (!found) return 0;
    }
    return 1;
}

#define T(v, c) ((exp_term){(v), (c)})
#define LC_IS(cs, k, m, ...)                                                                       \
    lc_is((cs), (k), (m), (const exp_term[]){__VA_ARGS__},                                         \
          (uint32_t)(sizeof((const exp_term[]){__VA_ARGS__}) / sizeof(exp_term)))
#define LC_EMPTY(cs, k, m) lc_is((cs), (k), (m), NULL, 0)

/* Synthesis on the witness back-end, which ignores linear combinations
 * (the gadgets build none and may take other paths: Poseidon's direct
 * synthesis instead of the template), against the prove back-end, which
 * builds and evaluates every one: 1 when both give the same counts and the
 * same inputs and aux, value for value. fn must synthesize the same thing
 * on every call. */
typedef void (*gadget_synth_fn)(cz_cs *cs, void *ctx);
static inline int witness_matches_prove(gadget_synth_fn fn, void *ctx) {
    cz_cs *w = cz_cs_witness_new(), *p = cz_cs_prove_new();
    fn(w, ctx);
    fn(p, ctx);
    uint64_t w_constraints = w->num_constraints, p_constraints = p->num_constraints;
    cz_fr *inputs = NULL, *aux = NULL;
    uint32_t n_inputs = 0, n_aux = 0;
    cz_prove_data pd;
    int ok = cz_witness_finish(w, &inputs, &n_inputs, &aux, &n_aux, NULL) == CZ_OK &&
             cz_prove_finish(p, &pd, NULL) == CZ_OK;
    if (ok) {
        ok = w_constraints == p_constraints && n_inputs == pd.num_inputs && n_aux == pd.num_aux &&
             !memcmp(inputs, pd.input_assignment, (size_t)n_inputs * sizeof(cz_fr)) &&
             (!n_aux || !memcmp(aux, pd.aux_assignment, (size_t)n_aux * sizeof(cz_fr)));
        cz_prove_data_free(&pd);
    }
    free(inputs), free(aux);
    cz_cs_destroy(w), cz_cs_destroy(p);
    return ok;
}

#endif
