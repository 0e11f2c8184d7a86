/* Linear-combination builder: see lcb.h. */
#include "gadgets/lcb.h"

#include <stdlib.h>
#include <string.h>

/* -1 = r - 1, in Montgomery form (r - 2^256 mod r). */
const cz_fr cz_gadget_minus_one = {
    {0xfffffffd00000003ULL, 0xfb38ec08fffb13fcULL, 0x99ad88181ce5880fULL, 0x5bc8f5f97cd877d8ULL}};

void cz_gadget_pow2(cz_fr *r, unsigned k) {
    uint64_t limbs[CZ_FR_LIMBS] = {0, 0, 0, 0};
    limbs[(k / 64) % CZ_FR_LIMBS] = 1ULL << (k % 64);
    /* 2^k < r for k <= 254; 2^255 > r is reduced once. */
    if (!cz_fr_from_limbs(r, limbs)) {
        cz_fr t;
        cz_gadget_pow2(&t, k - 1);
        cz_fr_dbl(r, &t);
    }
}

/* Below this many terms a linear scan beats hashing. */
#define LCB_HASH_MIN 16

static uint32_t slot_of(cz_var var, uint32_t mask) {
    return (uint32_t)((var * 0x9e3779b1u) ^ (var >> 15)) & mask;
}

static void lcb_fail(cz_lcb *b) {
    if (!b->failed) {
        b->failed = 1;
        cz_cs_fail(b->cs, CZ_E_NOMEM, "gadgets: linear combination of %u terms", b->lc.len);
    }
}

void cz_lcb_init(cz_lcb *b, cz_cs *cs, cz_lc_term *buf, uint32_t cap) {
    b->lc.terms = buf;
    b->lc.len = 0;
    b->lc.cap = buf ? cap : 0;
    b->cs = cs;
    b->slots = NULL;
    b->slot_mask = 0;
    b->owned = 0;
    /* inert for a back-end that never reads combinations: additions are no-ops */
    b->failed = cz_cs_ignores_lcs(cs);
}

void cz_lcb_free(cz_lcb *b) {
    if (b->owned) free(b->lc.terms);
    if (b->slots) free(b->slots);
    b->lc.terms = NULL;
    b->lc.len = b->lc.cap = 0;
    b->slots = NULL;
    b->owned = 0;
}

void cz_lcb_clear(cz_lcb *b) {
    if (b->slots) memset(b->slots, 0, ((size_t)b->slot_mask + 1) * sizeof *b->slots);
    b->lc.len = 0;
}

/* Rebuilds the index with room for at least twice the current capacity. */
static int lcb_reindex(cz_lcb *b) {
    uint32_t n = 64;
    while (n < 2 * b->lc.cap) n *= 2;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return 0;
    free(b->slots);
    b->slots = slots;
    b->slot_mask = n - 1;
    for (uint32_t i = 0; i < b->lc.len; i++) {
        uint32_t s = slot_of(b->lc.terms[i].var, b->slot_mask);
        while (slots[s]) s = (s + 1) & b->slot_mask;
        slots[s] = i + 1;
    }
    return 1;
}

static int lcb_grow(cz_lcb *b) {
    uint32_t cap = b->lc.cap ? 2 * b->lc.cap : 8;
    cz_lc_term *terms;
    if (b->owned) {
        terms = realloc(b->lc.terms, (size_t)cap * sizeof *terms);
    } else {
        terms = malloc((size_t)cap * sizeof *terms);
        if (terms && b->lc.len) memcpy(terms, b->lc.terms, (size_t)b->lc.len * sizeof *terms);
    }
    if (!terms) return 0;
    b->lc.terms = terms;
    b->lc.cap = cap;
    b->owned = 1;
    /* keep the index at most half full */
    if (b->slots && 2 * cap > b->slot_mask + 1) return lcb_reindex(b);
    return 1;
}

void cz_lcb_add(cz_lcb *b, cz_var var, const cz_fr *coeff) {
    if (b->failed) return;
    cz_lc_term *t = b->lc.terms;
    uint32_t len = b->lc.len;
    uint32_t s = 0;
    if (b->slots) {
        s = slot_of(var, b->slot_mask);
        while (b->slots[s]) {
            cz_lc_term *u = &t[b->slots[s] - 1];
            if (u->var == var) {
                cz_fr_add(&u->coeff, &u->coeff, coeff);
                return;
            }
            s = (s + 1) & b->slot_mask;
        }
    } else {
        /* newest first: consecutive updates of one variable are common */
        for (uint32_t i = len; i-- > 0;) {
            if (t[i].var == var) {
                cz_fr_add(&t[i].coeff, &t[i].coeff, coeff);
                return;
            }
        }
    }
    if (len == b->lc.cap) {
        if (!lcb_grow(b)) {
            lcb_fail(b);
            return;
        }
        t = b->lc.terms;
        if (b->slots) { /* the index may have been rebuilt: find the free slot again */
            s = slot_of(var, b->slot_mask);
            while (b->slots[s]) s = (s + 1) & b->slot_mask;
        }
    }
    t[len].var = var;
    t[len].coeff = *coeff;
    b->lc.len = len + 1;
    if (b->slots) {
        b->slots[s] = len + 1;
    } else if (b->lc.len >= LCB_HASH_MIN) {
        if (!lcb_reindex(b)) lcb_fail(b);
    }
}

void cz_lcb_add_var(cz_lcb *b, cz_var var) {
    cz_lcb_add(b, var, &cz_fr_one);
}

void cz_lcb_sub_var(cz_lcb *b, cz_var var) {
    cz_lcb_add(b, var, &cz_gadget_minus_one);
}

void cz_lcb_add_lc(cz_lcb *b, const cz_lc *other, const cz_fr *coeff) {
    if (b->failed) return;
    /* coeff is 1 for most callers (sums of bits and words) */
    int unit = cz_fr_equal(coeff, &cz_fr_one);
    for (uint32_t i = 0; i < other->len; i++) {
        cz_fr c;
        if (unit)
            c = other->terms[i].coeff;
        else
            cz_fr_mul(&c, &other->terms[i].coeff, coeff);
        cz_lcb_add(b, other->terms[i].var, &c);
    }
}

void cz_lcb_add_bool(cz_lcb *b, cz_bool x, const cz_fr *coeff) {
    if (b->failed) return;
    switch (x.kind) {
    case CZ_BOOL_IS: cz_lcb_add(b, x.var, coeff); break;
    case CZ_BOOL_NOT: {
        cz_fr neg;
        cz_fr_neg(&neg, coeff);
        cz_lcb_add(b, CZ_VAR_ONE, coeff);
        cz_lcb_add(b, x.var, &neg);
        break;
    }
    default:
        if (x.value) cz_lcb_add(b, CZ_VAR_ONE, coeff);
        break;
    }
}
