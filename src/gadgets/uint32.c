/* UInt32: see uint32.h. */
#include "gadgets/uint32.h"

#include <string.h>

void cz_u32_const(cz_u32 *out, uint32_t value) {
    for (int i = 0; i < 32; i++) out->bits[i] = cz_bool_const((int)((value >> i) & 1));
}

void cz_u32_alloc(cz_cs *cs, cz_u32 *out, uint32_t value) {
    cz_bits_alloc_u64_le(cs, out->bits, 32, value);
}

uint32_t cz_u32_value(const cz_u32 *x) {
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) v |= (uint32_t)cz_bool_value(x->bits[i]) << i;
    return v;
}

void cz_u32_from_bits_le(cz_u32 *out, const cz_bool bits[32]) {
    memmove(out->bits, bits, sizeof out->bits);
}

void cz_u32_from_bits_be(cz_u32 *out, const cz_bool bits[32]) {
    cz_u32 t;
    for (int i = 0; i < 32; i++) t.bits[i] = bits[31 - i];
    *out = t;
}

void cz_u32_to_bits_le(cz_bool out[32], const cz_u32 *x) {
    memmove(out, x->bits, sizeof x->bits);
}

void cz_u32_to_bits_be(cz_bool out[32], const cz_u32 *x) {
    cz_u32 t = *x;
    for (int i = 0; i < 32; i++) out[i] = t.bits[31 - i];
}

void cz_u32_rotr(cz_u32 *out, const cz_u32 *x, unsigned by) {
    cz_u32 t;
    for (unsigned i = 0; i < 32; i++) t.bits[i] = x->bits[(i + by) % 32];
    *out = t;
}

void cz_u32_shr(cz_u32 *out, const cz_u32 *x, unsigned by) {
    cz_u32 t;
    by %= 32;
    for (unsigned i = 0; i < 32; i++) t.bits[i] = i + by < 32 ? x->bits[i + by] : cz_bool_const(0);
    *out = t;
}

void cz_u32_xor(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b) {
    cz_u32 t;
    for (int i = 0; i < 32; i++) t.bits[i] = cz_bool_xor(cs, a->bits[i], b->bits[i]);
    *out = t;
}

void cz_u32_sha256_ch(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c) {
    cz_u32 t;
    for (int i = 0; i < 32; i++)
        t.bits[i] = cz_bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i]);
    *out = t;
}

void cz_u32_sha256_maj(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c) {
    cz_u32 t;
    for (int i = 0; i < 32; i++)
        t.bits[i] = cz_bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i]);
    *out = t;
}

void cz_u32_addmany(cz_multieq *m, cz_u32 *out, const cz_u32 *ops, size_t n) {
    cz_cs *cs = m->cs;
    if (n < 2 || n > 10) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: addmany of %zu operands", n);
        return;
    }
    uint64_t sum = 0;
    int all_constants = 1;
    for (size_t k = 0; k < n; k++) {
        uint32_t v = 0;
        for (int i = 0; i < 32; i++) {
            cz_bool b = ops[k].bits[i];
            v |= (uint32_t)(b.value ^ (b.kind == CZ_BOOL_NOT)) << i;
            all_constants &= b.kind == CZ_BOOL_CONST;
        }
        sum += v;
    }
    if (all_constants) {
        cz_u32_const(out, (uint32_t)sum);
        return;
    }
    /* The sum's bits, then the equality (which may first emit the pending one). */
    cz_bool result[36];
    unsigned nbits = 0;
    for (uint64_t max = (uint64_t)n * 0xffffffffu; max; max >>= 1, nbits++)
        result[nbits] = cz_bit_alloc(cs, (int)((sum >> nbits) & 1));

    cz_fr shift, coeff;
    cz_multieq_reserve(m, nbits, &shift);
    if (cz_cs_ignores_lcs(cs)) { /* the equality's terms are never looked at */
        memcpy(out->bits, result, sizeof out->bits);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        coeff = shift;
        for (int i = 0; i < 32; i++) {
            cz_lcb_add_bool(&m->lhs, ops[k].bits[i], &coeff);
            cz_fr_dbl(&coeff, &coeff);
        }
    }
    coeff = shift;
    for (unsigned i = 0; i < nbits; i++) {
        cz_lcb_add(&m->rhs, result[i].var, &coeff);
        cz_fr_dbl(&coeff, &coeff);
    }
    memcpy(out->bits, result, sizeof out->bits);
}
