/* Linear combinations with bellpepper's merge semantics.
 *
 * Invariant: terms are sorted by cz_lc_key (inputs by index, then aux by
 * index) and each variable occurs once. bellpepper keeps two sorted maps
 * (inputs, aux) and iterates inputs first; one array in key order is the same
 * thing. Adding a present variable adds the coefficients and keeps the term
 * even when the sum is zero. */
#include <stdlib.h>
#include <string.h>

#include "ff/fr_inline.h"
#include "r1cs/internal.h"

static inline int fr_is_zero(const cz_fr *a) {
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}
static inline int fr_is_one(const cz_fr *a) {
    return a->l[0] == cz_fr_one.l[0] && a->l[1] == cz_fr_one.l[1] && a->l[2] == cz_fr_one.l[2] &&
           a->l[3] == cz_fr_one.l[3];
}

void cz_lc_init(cz_lc *lc) {
    lc->terms = NULL;
    lc->len = lc->cap = 0;
}

void cz_lc_free(cz_lc *lc) {
    free(lc->terms);
    cz_lc_init(lc);
}

void cz_lc_clear(cz_lc *lc) {
    lc->len = 0;
}

static cz_status lc_reserve(cz_lc *lc, uint64_t need) {
    if (need <= lc->cap) return CZ_OK;
    if (need > 0x80000000u) return CZ_E_NOMEM;
    uint64_t cap = lc->cap ? lc->cap : 8;
    while (cap < need) cap *= 2;
    cz_lc_term *p = realloc(lc->terms, (size_t)cap * sizeof *p);
    if (!p) return CZ_E_NOMEM;
    lc->terms = p;
    lc->cap = (uint32_t)cap;
    return CZ_OK;
}

/* lc += coeff * var, or lc -= coeff * var when negate is set. */
static inline cz_status lc_add(cz_lc *lc, cz_var var, const cz_fr *coeff, int negate) {
    uint32_t key = cz_lc_key(var), n = lc->len, pos;
    cz_lc_term *t = lc->terms;
    if (n && t[n - 1].var == var) { /* the same variable again (MultiEq, Poseidon) */
        pos = n - 1;
    } else if (n == 0 || cz_lc_key(t[n - 1].var) < key) { /* ascending: append */
        if (n == lc->cap) {
            cz_status st = lc_reserve(lc, (uint64_t)n + 1);
            if (st != CZ_OK) return st;
            t = lc->terms;
        }
        t[n].var = var;
        if (negate)
            cz_fr_sub_inline(&t[n].coeff, &cz_fr_zero, coeff);
        else
            t[n].coeff = *coeff;
        lc->len = n + 1;
        return CZ_OK;
    } else {
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (cz_lc_key(t[mid].var) < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        pos = lo;
        if (t[pos].var != var) { /* insert in the middle */
            cz_status st = lc_reserve(lc, (uint64_t)n + 1);
            if (st != CZ_OK) return st;
            t = lc->terms;
            memmove(t + pos + 1, t + pos, (size_t)(n - pos) * sizeof *t);
            t[pos].var = var;
            if (negate)
                cz_fr_sub_inline(&t[pos].coeff, &cz_fr_zero, coeff);
            else
                t[pos].coeff = *coeff;
            lc->len = n + 1;
            return CZ_OK;
        }
    }
    if (negate)
        cz_fr_sub_inline(&t[pos].coeff, &t[pos].coeff, coeff);
    else
        cz_fr_add_inline(&t[pos].coeff, &t[pos].coeff, coeff);
    return CZ_OK;
}

cz_status cz_lc_add(cz_lc *lc, cz_var var, const cz_fr *coeff) {
    return lc_add(lc, var, coeff, 0);
}

cz_status cz_lc_add_var(cz_lc *lc, cz_var var) {
    return lc_add(lc, var, &cz_fr_one, 0);
}

cz_status cz_lc_sub_var(cz_lc *lc, cz_var var) {
    return lc_add(lc, var, &cz_fr_one, 1);
}

cz_status cz_lc_add_lc(cz_lc *lc, const cz_lc *other, const cz_fr *coeff) {
    int scale = coeff && !fr_is_one(coeff);
    if (other == lc) { /* lc += coeff * lc: every coefficient times (1 + coeff) */
        cz_fr factor = cz_fr_one;
        if (coeff)
            cz_fr_add_inline(&factor, &factor, coeff);
        else
            cz_fr_add_inline(&factor, &factor, &cz_fr_one);
        for (uint32_t i = 0; i < lc->len; i++)
            cz_fr_mul_inline(&lc->terms[i].coeff, &lc->terms[i].coeff, &factor);
        return CZ_OK;
    }
    uint32_t n = lc->len, m = other->len;
    if (m == 0) return CZ_OK;
    cz_status st = lc_reserve(lc, (uint64_t)n + m);
    if (st != CZ_OK) return st;
    /* Merge from the back into the free space at the end: the write position
     * w never falls below the read position i, so no unread term of lc is
     * overwritten. Merged duplicates leave a gap, closed afterwards. */
    cz_lc_term *t = lc->terms;
    const cz_lc_term *o = other->terms;
    int64_t i = (int64_t)n - 1, j = (int64_t)m - 1, w = (int64_t)n + m - 1;
    while (j >= 0) {
        cz_fr oc = o[j].coeff;
        if (scale) cz_fr_mul_inline(&oc, &oc, coeff);
        uint32_t ok = cz_lc_key(o[j].var);
        if (i >= 0 && cz_lc_key(t[i].var) > ok) {
            t[w--] = t[i--];
        } else if (i >= 0 && t[i].var == o[j].var) {
            t[w].var = t[i].var;
            cz_fr_add_inline(&t[w].coeff, &t[i].coeff, &oc);
            w--, i--, j--;
        } else {
            t[w].var = o[j].var;
            t[w].coeff = oc;
            w--, j--;
        }
    }
    /* t[0..i] are in place, t[w+1 .. n+m) hold the merged tail */
    size_t tail = (size_t)((int64_t)n + m - 1 - w);
    if (w != i) memmove(t + i + 1, t + w + 1, tail * sizeof *t);
    lc->len = (uint32_t)(i + 1 + (int64_t)tail);
    return CZ_OK;
}

void cz_lc_eval(cz_fr *out, const cz_lc *lc, const cz_fr *input, const cz_fr *aux,
                uint64_t *input_density, uint64_t *aux_density) {
    cz_fr acc = cz_fr_zero, tmp;
    if (!lc) {
        *out = acc;
        return;
    }
    for (uint32_t i = 0; i < lc->len; i++) {
        const cz_lc_term *t = &lc->terms[i];
        if (fr_is_zero(&t->coeff)) continue;
        uint32_t idx = CZ_VAR_INDEX(t->var);
        const cz_fr *x;
        if (CZ_VAR_IS_INPUT(t->var)) {
            x = &input[idx];
            if (input_density) cz_bitmap_set(input_density, idx);
        } else {
            x = &aux[idx];
            if (aux_density) cz_bitmap_set(aux_density, idx);
        }
        /* Most witness values are bits and most coefficients 1 or powers
         * of two: skip the multiplication whenever a factor is 0 or 1. */
        if (fr_is_zero(x)) continue;
        if (fr_is_one(&t->coeff)) {
            cz_fr_add_inline(&acc, &acc, x);
        } else if (fr_is_one(x)) {
            cz_fr_add_inline(&acc, &acc, &t->coeff);
        } else {
            cz_fr_mul_inline(&tmp, x, &t->coeff);
            cz_fr_add_inline(&acc, &acc, &tmp);
        }
    }
    *out = acc;
}
