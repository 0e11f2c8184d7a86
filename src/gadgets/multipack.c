/* Packing: see multipack.h. */
#include "gadgets/multipack.h"

#include <string.h>

#include "gadgets/lcb.h"

/* lc = sum 2^i bits[i] (unless the back-end ignores combinations); value
 * likewise (when a witness exists). n <= CZ_MULTIPACK_CHUNK. */
static void pack_lc(cz_cs *cs, cz_lcb *lc, cz_fr *value, const cz_bool *bits, size_t n) {
    *value = cz_fr_zero;
    if (cz_cs_has_witness(cs)) { /* the bits as an integer below 2^254 */
        uint64_t limbs[CZ_FR_LIMBS] = {0, 0, 0, 0};
        for (size_t i = 0; i < n; i++)
            if (cz_bool_value(bits[i])) limbs[i / 64] |= 1ULL << (i % 64);
        cz_fr_from_limbs(value, limbs);
    }
    if (cz_cs_ignores_lcs(cs)) return;
    cz_fr coeff = cz_fr_one;
    for (size_t i = 0; i < n; i++) {
        cz_lcb_add_bool(lc, bits[i], &coeff);
        cz_fr_dbl(&coeff, &coeff);
    }
}

static void enforce_packing(cz_cs *cs, const cz_lcb *lc, cz_var packed) {
    if (cz_gadget_enforce_bare(cs)) return;
    cz_lc_term one_term = {CZ_VAR_ONE, cz_fr_one}, packed_term = {packed, cz_fr_one};
    cz_lc one = {&one_term, 1, 1}, c = {&packed_term, 1, 1};
    cz_cs_enforce(cs, &lc->lc, &one, &c);
}

void cz_pack_bits(cz_cs *cs, cz_num *out, const cz_bool *bits, size_t n) {
    if (n > CZ_MULTIPACK_CHUNK) n = CZ_MULTIPACK_CHUNK;
    cz_lcb lc;
    cz_lcb_init(&lc, cs, NULL, 0);
    cz_fr value;
    pack_lc(cs, &lc, &value, bits, n);
    cz_num_alloc(cs, out, &value);
    enforce_packing(cs, &lc, out->var);
    cz_lcb_free(&lc);
}

void cz_pack_into_inputs(cz_cs *cs, const cz_bool *bits, size_t n) {
    cz_lcb lc;
    cz_lcb_init(&lc, cs, NULL, 0);
    for (size_t start = 0; start < n; start += CZ_MULTIPACK_CHUNK) {
        size_t len = n - start < CZ_MULTIPACK_CHUNK ? n - start : CZ_MULTIPACK_CHUNK;
        cz_fr value;
        cz_num input;
        cz_lcb_clear(&lc);
        pack_lc(cs, &lc, &value, bits + start, len);
        cz_num_alloc_input(cs, &input, &value);
        enforce_packing(cs, &lc, input.var);
    }
    cz_lcb_free(&lc);
}

void cz_multipack_compute(cz_fr *out, const uint8_t *bits, size_t n) {
    for (size_t start = 0, k = 0; start < n; start += CZ_MULTIPACK_CHUNK, k++) {
        size_t len = n - start < CZ_MULTIPACK_CHUNK ? n - start : CZ_MULTIPACK_CHUNK;
        uint64_t limbs[CZ_FR_LIMBS] = {0, 0, 0, 0};
        for (size_t i = 0; i < len; i++)
            if (bits[start + i]) limbs[i / 64] |= 1ULL << (i % 64);
        cz_fr_from_limbs(&out[k], limbs); /* < 2^254 < r */
    }
}

void cz_multipack_bytes_to_bits_be(uint8_t *out, const uint8_t *bytes, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * i + (size_t)j] = (bytes[i] >> (7 - j)) & 1;
}

void cz_multipack_bytes_to_bits_le(uint8_t *out, const uint8_t *bytes, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * i + (size_t)j] = (bytes[i] >> j) & 1;
}

void cz_multipack_digest_to_fr(cz_fr *out, const uint8_t digest[32]) {
    uint8_t t[32];
    memcpy(t, digest, 32);
    t[31] &= 0x3f;
    cz_fr_from_bytes_le(out, t); /* < 2^254 < r */
}
