/* The interned coefficient table of the pre-compiled circuit
 * (internal.h): each distinct value once, found by an open-addressing hash.
 *
 * Invariants: index 0 is 1 and index 1 is -1 (cz_coef_table_init puts them
 * there before anything else), values are distinct and non-zero (zero
 * coefficients never reach the table: the recorder drops them, a cz_r1cs
 * holds none). */
#include <stdlib.h>
#include <string.h>

#include "ff/fr_inline.h"
#include "r1cs/circuit.h"
#include "r1cs/internal.h"

static uint64_t coef_hash(const cz_fr *v) {
    /* Montgomery limbs of distinct values look random, but small integers
     * and their negations share limbs: mix all four */
    uint64_t h = v->l[0] * 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 29) ^ v->l[1]) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 32) ^ v->l[2]) * 0x94d049bb133111ebULL;
    h = (h ^ (h >> 29) ^ v->l[3]) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 32);
}

static void table_place(uint32_t *slots, size_t mask, const cz_fr *v, uint32_t index) {
    size_t s = (size_t)coef_hash(v) & mask;
    while (slots[s]) s = (s + 1) & mask;
    slots[s] = index + 1;
}

static cz_status table_rehash(cz_coef_table *t, size_t slots) {
    uint32_t *fresh = calloc(slots, sizeof *fresh);
    if (!fresh) return CZ_E_NOMEM;
    for (uint32_t i = 0; i < t->n; i++) table_place(fresh, slots - 1, &t->vals[i], i);
    free(t->slots);
    t->slots = fresh;
    t->mask = slots - 1;
    return CZ_OK;
}

cz_status cz_coef_table_init(cz_coef_table *t) {
    memset(t, 0, sizeof *t);
    cz_fr minus_one;
    cz_fr_neg(&minus_one, &cz_fr_one);
    cz_status st = cz_grow((void **)&t->vals, &t->cap, 16, sizeof(cz_fr), 0);
    if (st == CZ_OK) st = table_rehash(t, 64);
    if (st == CZ_OK) st = cz_coef_table_intern(t, &cz_fr_one, &(uint32_t){0}, NULL);
    if (st == CZ_OK) st = cz_coef_table_intern(t, &minus_one, &(uint32_t){0}, NULL);
    if (st != CZ_OK) cz_coef_table_free(t);
    return st;
}

void cz_coef_table_free(cz_coef_table *t) {
    free(t->vals), free(t->slots);
    memset(t, 0, sizeof *t);
}

cz_status cz_coef_table_intern(cz_coef_table *t, const cz_fr *v, uint32_t *index, int *added) {
    if (added) *added = 0;
    /* 1 and -1 are most entries of a real circuit: no hashing for them */
    if (t->n >= 2) {
        if (cz_fr_equal_inline(v, &t->vals[CZ_CIRCUIT_COEF_ONE])) return *index = CZ_CIRCUIT_COEF_ONE, CZ_OK;
        if (cz_fr_equal_inline(v, &t->vals[CZ_CIRCUIT_COEF_MINUS_ONE]))
            return *index = CZ_CIRCUIT_COEF_MINUS_ONE, CZ_OK;
    }
    size_t s = (size_t)coef_hash(v) & t->mask;
    for (; t->slots[s]; s = (s + 1) & t->mask) {
        uint32_t i = t->slots[s] - 1;
        if (cz_fr_equal_inline(v, &t->vals[i])) return *index = i, CZ_OK;
    }
    if (t->n == UINT32_MAX - 1) return CZ_E_RANGE;
    cz_status st = cz_grow((void **)&t->vals, &t->cap, (size_t)t->n + 1, sizeof(cz_fr), 0);
    if (st != CZ_OK) return st;
    t->vals[t->n] = *v;
    t->slots[s] = t->n + 1;
    *index = t->n++;
    if (added) *added = 1;
    /* load at most 1/2: probes stay short */
    if ((size_t)t->n * 2 > t->mask + 1) return table_rehash(t, (t->mask + 1) * 2);
    return CZ_OK;
}
