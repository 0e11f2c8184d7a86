/* SHA-256 gadget: see sha256.h. */
#include "gadgets/sha256.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void cz_sha256_iv(cz_u32 out[8]) {
    for (int i = 0; i < 8; i++) cz_u32_const(&out[i], iv[i]);
}

/* bellpepper's Maybe: a concrete word, or operands whose sum is not yet
 * computed (at most 5 + 2 plus the state word added at the end). */
typedef struct {
    int deferred;
    size_t n;
    cz_u32 ops[8];
} maybe_u32;

/* A concrete value is returned as it is (extra operands are then ignored,
 * as in bellpepper; it never happens after the first round). */
static void maybe_compute(cz_multieq *m, cz_u32 *out, maybe_u32 *x, const cz_u32 *extra) {
    if (!x->deferred) {
        *out = x->ops[0];
        return;
    }
    if (extra) x->ops[x->n++] = *extra;
    cz_u32_addmany(m, out, x->ops, x->n);
}

/* x rotr r0 xor x rotr r1 xor (x shr / rotr r2), xors left to right */
static void sigma(cz_cs *cs, cz_u32 *out, const cz_u32 *x, unsigned r0, unsigned r1, unsigned r2,
                  int shift_last) {
    cz_u32 t, u;
    cz_u32_rotr(&t, x, r0);
    cz_u32_rotr(&u, x, r1);
    cz_u32_xor(cs, &t, &t, &u);
    if (shift_last)
        cz_u32_shr(&u, x, r2);
    else
        cz_u32_rotr(&u, x, r2);
    cz_u32_xor(cs, out, &t, &u);
}

void cz_sha256_compression(cz_cs *cs, cz_u32 out[8], const cz_bool block[512],
                           const cz_u32 state[8]) {
    cz_u32 w[64];
    for (int i = 0; i < 16; i++) cz_u32_from_bits_be(&w[i], &block[32 * i]);

    cz_multieq m;
    cz_multieq_init(&m, cs);

    for (int i = 16; i < 64; i++) {
        cz_u32 ops[4];
        ops[0] = w[i - 16];
        sigma(cs, &ops[1], &w[i - 15], 7, 18, 3, 1);
        ops[2] = w[i - 7];
        sigma(cs, &ops[3], &w[i - 2], 17, 19, 10, 1);
        cz_u32_addmany(&m, &w[i], ops, 4);
    }

    maybe_u32 a = {0, 1, {state[0]}}, e = {0, 1, {state[4]}};
    cz_u32 b = state[1], c = state[2], d = state[3];
    cz_u32 f = state[5], g = state[6], h = state[7];

    for (int i = 0; i < 64; i++) {
        cz_u32 new_e, new_a, s1, ch, s0, maj;
        maybe_compute(&m, &new_e, &e, NULL);
        sigma(cs, &s1, &new_e, 6, 11, 25, 0);
        cz_u32_sha256_ch(cs, &ch, &new_e, &f, &g);

        /* temp1 = h + S1 + ch + K[i] + w[i] */
        cz_u32 temp1[5];
        temp1[0] = h;
        temp1[1] = s1;
        temp1[2] = ch;
        cz_u32_const(&temp1[3], round_constants[i]);
        temp1[4] = w[i];

        maybe_compute(&m, &new_a, &a, NULL);
        sigma(cs, &s0, &new_a, 2, 13, 22, 0);
        cz_u32_sha256_maj(cs, &maj, &new_a, &b, &c);

        h = g;
        g = f;
        f = new_e;
        e.deferred = 1;
        memcpy(e.ops, temp1, sizeof temp1);
        e.ops[5] = d;
        e.n = 6;
        d = c;
        c = b;
        b = new_a;
        a.deferred = 1;
        memcpy(a.ops, temp1, sizeof temp1);
        a.ops[5] = s0;
        a.ops[6] = maj;
        a.n = 7;
    }

    cz_u32 res[8], pair[2];
    maybe_compute(&m, &res[0], &a, &state[0]);
    pair[0] = state[1], pair[1] = b;
    cz_u32_addmany(&m, &res[1], pair, 2);
    pair[0] = state[2], pair[1] = c;
    cz_u32_addmany(&m, &res[2], pair, 2);
    pair[0] = state[3], pair[1] = d;
    cz_u32_addmany(&m, &res[3], pair, 2);
    maybe_compute(&m, &res[4], &e, &state[4]);
    pair[0] = state[5], pair[1] = f;
    cz_u32_addmany(&m, &res[5], pair, 2);
    pair[0] = state[6], pair[1] = g;
    cz_u32_addmany(&m, &res[6], pair, 2);
    pair[0] = state[7], pair[1] = h;
    cz_u32_addmany(&m, &res[7], pair, 2);

    cz_multieq_finish(&m);
    memcpy(out, res, sizeof res);
}

static void state_to_bits(cz_bool out[256], const cz_u32 state[8]) {
    for (int i = 0; i < 8; i++) cz_u32_to_bits_be(&out[32 * i], &state[i]);
}

void cz_sha256_block_no_padding(cz_cs *cs, cz_bool out[256], const cz_bool block[512]) {
    cz_u32 state[8];
    cz_sha256_iv(state);
    cz_sha256_compression(cs, state, block, state);
    state_to_bits(out, state);
}

void cz_sha256(cz_cs *cs, cz_bool out[256], const cz_bool *msg, size_t nbits) {
    if (nbits % 8) {
        cz_cs_fail(cs, CZ_E_INVALID_ARG, "gadgets: sha256 of %zu bits (not whole bytes)", nbits);
        return;
    }
    /* message, a 1 bit, zeros up to 448 mod 512, the 64-bit big-endian length */
    size_t padded_bits = (nbits + 1 + 64 + 511) / 512 * 512;
    cz_bool *padded = malloc(padded_bits * sizeof *padded);
    if (!padded) {
        cz_cs_fail(cs, CZ_E_NOMEM, "gadgets: sha256 of %zu bits", nbits);
        return;
    }
    memcpy(padded, msg, nbits * sizeof *msg);
    padded[nbits] = cz_bool_const(1);
    for (size_t i = nbits + 1; i < padded_bits - 64; i++) padded[i] = cz_bool_const(0);
    for (int i = 0; i < 64; i++)
        padded[padded_bits - 64 + i] = cz_bool_const((int)(((uint64_t)nbits >> (63 - i)) & 1));

    cz_u32 state[8];
    cz_sha256_iv(state);
    for (size_t blk = 0; blk < padded_bits / 512; blk++)
        cz_sha256_compression(cs, state, &padded[512 * blk], state);
    free(padded);
    state_to_bits(out, state);
}
