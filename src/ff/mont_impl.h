/* Montgomery arithmetic on n 64-bit limbs, shared by Fp (n = 6) and Fr (n = 4).
 *
 * Every function is always-inline with the limb count as a parameter, so each
 * field's wrappers get a fully unrolled copy for its own n; nothing here is
 * called through a pointer or with a run-time n.
 *
 * Invariants (checked by the callers' moduli, see fp.c / fr.c):
 *  - limbs are little-endian; every input and output is fully reduced, < m;
 *  - m is odd and its top limb is below 2^63 - 1, which lets the CIOS loop
 *    drop the extra carry word (the "no-carry" variant): the running sum
 *    stays below 2m < 2^(64n). Both BLS12-381 moduli satisfy this.
 *
 * Two implementations of add, sub, neg, mul and sqr: portable C (the *_c
 * functions, __int128) and, for n = 4 and 6 on x86-64 with BMI2 and ADX,
 * inline asm (mont_x86_64.h). The plain names pick the asm when it is
 * available unless CZ_FF_PORTABLE is defined; both stay compiled, so a test
 * can check one against the other. */
#ifndef CZ_FF_MONT_IMPL_H
#define CZ_FF_MONT_IMPL_H

#include <stdint.h>
#include <string.h>
#ifdef __x86_64__
#include <x86intrin.h>
#endif

#include "ff/mont_x86_64.h"

#if defined(CZ_MONT_HAVE_X86_64) && !defined(CZ_FF_PORTABLE)
#define CZ_MONT_USE_X86_64 1
#endif

#define CZ_MONT_INLINE    static inline __attribute__((always_inline))
#define CZ_MONT_MAX_LIMBS 6

typedef unsigned __int128 cz_u128;

/* r = a - b over n limbs; returns the borrow (0 or 1). r may alias a or b.
 * On x86-64 the carry intrinsics give plain sbb / adc chains (the __int128
 * form compiles to a much longer sequence). */
CZ_MONT_INLINE uint64_t mont_sub_raw(uint64_t *r, const uint64_t *a, const uint64_t *b, int n) {
#ifdef __x86_64__
    unsigned char borrow = 0;
#pragma GCC unroll 12
    for (int i = 0; i < n; i++) {
        unsigned long long d;
        borrow = _subborrow_u64(borrow, a[i], b[i], &d);
        r[i] = d;
    }
    return borrow;
#else
    uint64_t borrow = 0;
#pragma GCC unroll 12
    for (int i = 0; i < n; i++) {
        cz_u128 d = (cz_u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
#endif
}

/* r = a + b over n limbs; returns the carry. r may alias a or b. */
CZ_MONT_INLINE uint64_t mont_add_raw(uint64_t *r, const uint64_t *a, const uint64_t *b, int n) {
#ifdef __x86_64__
    unsigned char carry = 0;
#pragma GCC unroll 12
    for (int i = 0; i < n; i++) {
        unsigned long long s;
        carry = _addcarry_u64(carry, a[i], b[i], &s);
        r[i] = s;
    }
    return carry;
#else
    uint64_t carry = 0;
#pragma GCC unroll 12
    for (int i = 0; i < n; i++) {
        cz_u128 s = (cz_u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
#endif
}

/* r = mask ? a : b, without a branch. */
CZ_MONT_INLINE void mont_select(uint64_t *r, uint64_t mask, const uint64_t *a, const uint64_t *b,
                                int n) {
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) r[i] = (a[i] & mask) | (b[i] & ~mask);
}

/* t < 2m (with an optional carry word hi) -> r = t mod m. */
CZ_MONT_INLINE void mont_reduce_once(uint64_t *r, const uint64_t *t, uint64_t hi, const uint64_t *m,
                                     int n) {
    uint64_t d[CZ_MONT_MAX_LIMBS];
    uint64_t borrow = mont_sub_raw(d, t, m, n);
    /* keep t when t < m, i.e. when the subtraction borrowed and there was no
     * carry word to absorb the borrow */
    uint64_t keep_t = 0 - (borrow & (hi ^ 1));
    mont_select(r, keep_t, t, d, n);
}

CZ_MONT_INLINE void mont_add_c(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                               int n) {
    uint64_t t[CZ_MONT_MAX_LIMBS];
    uint64_t carry = mont_add_raw(t, a, b, n);
    mont_reduce_once(r, t, carry, m, n);
}

CZ_MONT_INLINE void mont_sub_c(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                               int n) {
    uint64_t t[CZ_MONT_MAX_LIMBS], u[CZ_MONT_MAX_LIMBS];
    uint64_t borrow = mont_sub_raw(t, a, b, n);
    mont_add_raw(u, t, m, n); /* wraps back below m when a < b */
    mont_select(r, 0 - borrow, u, t, n);
}

CZ_MONT_INLINE int mont_is_zero(const uint64_t *a, int n) {
    uint64_t acc = 0;
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) acc |= a[i];
    return acc == 0;
}

CZ_MONT_INLINE void mont_neg_c(uint64_t *r, const uint64_t *a, const uint64_t *m, int n) {
    uint64_t t[CZ_MONT_MAX_LIMBS];
    mont_sub_raw(t, m, a, n);
    uint64_t nonzero = 0 - (uint64_t)(!mont_is_zero(a, n));
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) r[i] = t[i] & nonzero; /* -0 = 0, not m */
}

/* r = a * b / 2^(64n) mod m (CIOS, no-carry variant). minv = -m^-1 mod 2^64.
 * Also exact for unreduced a, b < 2m when 4m < 2^(64n) (see mont_x86_64.h). */
CZ_MONT_INLINE void mont_mul_c(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                               uint64_t minv, int n) {
    uint64_t t[CZ_MONT_MAX_LIMBS] = {0};
#pragma GCC unroll 6
    for (int i = 0; i < n; i++) {
        cz_u128 acc = (cz_u128)a[0] * b[i] + t[0];
        uint64_t carry_ab = (uint64_t)(acc >> 64);
        uint64_t t0 = (uint64_t)acc;
        uint64_t q = t0 * minv;
        acc = (cz_u128)q * m[0] + t0;
        uint64_t carry_qm = (uint64_t)(acc >> 64);
#pragma GCC unroll 6
        for (int j = 1; j < n; j++) {
            acc = (cz_u128)a[j] * b[i] + t[j] + carry_ab;
            carry_ab = (uint64_t)(acc >> 64);
            acc = (cz_u128)q * m[j] + (uint64_t)acc + carry_qm;
            carry_qm = (uint64_t)(acc >> 64);
            t[j - 1] = (uint64_t)acc;
        }
        t[n - 1] = carry_ab + carry_qm;
    }
    mont_reduce_once(r, t, 0, m, n);
}

/* w = a * b as 2n words (schoolbook, no reduction). */
CZ_MONT_INLINE void mont_mulwide_c(uint64_t *w, const uint64_t *a, const uint64_t *b, int n) {
    for (int i = 0; i < 2 * n; i++) w[i] = 0;
    for (int i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < n; j++) {
            cz_u128 acc = (cz_u128)a[j] * b[i] + w[i + j] + carry;
            w[i + j] = (uint64_t)acc;
            carry = (uint64_t)(acc >> 64);
        }
        w[i + n] = carry;
    }
}

/* r = w / 2^(64n) mod m for a 2n-word w < m 2^(64n) (Montgomery reduction of
 * the low half, then the high half added: below 2m before the final
 * subtraction). */
CZ_MONT_INLINE void mont_redc_c(uint64_t *r, const uint64_t *w, const uint64_t *m, uint64_t minv,
                                int n) {
    uint64_t t[CZ_MONT_MAX_LIMBS + 1];
    for (int i = 0; i < n; i++) t[i] = w[i];
    t[n] = 0;
    for (int i = 0; i < n; i++) {
        uint64_t q = t[0] * minv;
        cz_u128 acc = (cz_u128)q * m[0] + t[0];
        uint64_t carry = (uint64_t)(acc >> 64);
        for (int j = 1; j < n; j++) {
            acc = (cz_u128)q * m[j] + t[j] + carry;
            t[j - 1] = (uint64_t)acc;
            carry = (uint64_t)(acc >> 64);
        }
        t[n - 1] = t[n] + carry; /* no overflow: the value stays below 2^(64n) + m */
        t[n] = 0;
    }
    uint64_t carry = mont_add_raw(t, t, w + n, n);
    mont_reduce_once(r, t, carry, m, n);
}

/* The dispatchers. n is a compile-time constant at every call site, so only
 * one branch survives. */

CZ_MONT_INLINE void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                             int n) {
#ifdef CZ_MONT_USE_X86_64
    if (n == 6) {
        mont_add6_x86_64(r, a, b, m);
        return;
    }
    if (n == 4) {
        mont_add4_x86_64(r, a, b, m);
        return;
    }
#endif
    mont_add_c(r, a, b, m, n);
}

CZ_MONT_INLINE void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                             int n) {
#ifdef CZ_MONT_USE_X86_64
    if (n == 6) {
        mont_sub6_x86_64(r, a, b, m);
        return;
    }
    if (n == 4) {
        mont_sub4_x86_64(r, a, b, m);
        return;
    }
#endif
    mont_sub_c(r, a, b, m, n);
}

CZ_MONT_INLINE void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int n) {
#ifdef CZ_MONT_USE_X86_64
    if (n == 6) {
        mont_neg6_x86_64(r, a, m);
        return;
    }
    if (n == 4) {
        mont_neg4_x86_64(r, a, m);
        return;
    }
#endif
    mont_neg_c(r, a, m, n);
}

/* r = a * b / 2^(64n) mod m. minv = -m^-1 mod 2^64. */
CZ_MONT_INLINE void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                             uint64_t minv, int n) {
#ifdef CZ_MONT_USE_X86_64
    if (n == 6) {
        mont_mul6_x86_64(r, a, b, m, minv);
        return;
    }
    if (n == 4) {
        mont_mul4_x86_64(r, a, b, m, minv);
        return;
    }
#endif
    mont_mul_c(r, a, b, m, minv, n);
}

/* w = a * b as 2n words, for a, b < 2^(64n). */
CZ_MONT_INLINE void mont_mulwide(uint64_t *w, const uint64_t *a, const uint64_t *b, int n) {
#ifdef CZ_MONT_USE_X86_64
    if (n == 6) {
        mont_mulwide6_x86_64(w, a, b);
        return;
    }
#endif
    mont_mulwide_c(w, a, b, n);
}

/* r = w / 2^(64n) mod m for a 2n-word w < m 2^(64n). */
CZ_MONT_INLINE void mont_redc(uint64_t *r, const uint64_t *w, const uint64_t *m, uint64_t minv,
                              int n) {
#ifdef CZ_MONT_USE_X86_64
    if (n == 6) {
        mont_redc6_x86_64(r, w, m, minv);
        return;
    }
#endif
    mont_redc_c(r, w, m, minv, n);
}

/* r = a^2 / 2^(64n) mod m: a dedicated squaring for n = 6 (Fp) on x86-64,
 * the multiplication otherwise. */
CZ_MONT_INLINE void mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t minv,
                             int n) {
#ifdef CZ_MONT_USE_X86_64
    if (n == 6) {
        mont_sqr6_x86_64(r, a, m, minv);
        return;
    }
#endif
    mont_mul(r, a, a, m, minv, n);
}

/* r = base^exp with exp a public little-endian n-limb integer: fixed 4-bit
 * windows from the top (base^0..base^15 precomputed; a zero window costs no
 * multiplication). The exponent is public, so the branches on its bits leak
 * nothing secret; the base only goes through mul and sqr. */
CZ_MONT_INLINE void mont_pow(uint64_t *r, const uint64_t *base, const uint64_t *exp,
                             const uint64_t *one, const uint64_t *m, uint64_t minv, int n) {
    uint64_t table[16][CZ_MONT_MAX_LIMBS], acc[CZ_MONT_MAX_LIMBS];
    memcpy(table[0], one, (size_t)n * 8);
    memcpy(table[1], base, (size_t)n * 8);
    for (int k = 2; k < 16; k++) mont_mul(table[k], table[k - 1], base, m, minv, n);
    int started = 0;
    for (int i = 16 * n - 1; i >= 0; i--) { /* window i: bits 4i..4i+3 */
        unsigned d = (unsigned)(exp[i / 16] >> (4 * (i % 16))) & 15;
        if (started) {
            for (int k = 0; k < 4; k++) mont_sqr(acc, acc, m, minv, n);
            if (d) mont_mul(acc, acc, table[d], m, minv, n);
        } else if (d) {
            memcpy(acc, table[d], (size_t)n * 8);
            started = 1;
        }
    }
    memcpy(r, started ? acc : one, (size_t)n * 8);
}

CZ_MONT_INLINE void mont_shr1(uint64_t *a, uint64_t top, int n) {
#pragma GCC unroll 6
    for (int i = 0; i < n - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[n - 1] = (a[n - 1] >> 1) | (top << 63);
}

/* x := x / 2 mod m, x < m. */
CZ_MONT_INLINE void mont_half(uint64_t *x, const uint64_t *m, int n) {
    uint64_t carry = 0;
    if (x[0] & 1) carry = mont_add_raw(x, x, m, n);
    mont_shr1(x, carry, n);
}

CZ_MONT_INLINE int mont_is_one_raw(const uint64_t *a, int n) {
    uint64_t acc = a[0] ^ 1;
    for (int i = 1; i < n; i++) acc |= a[i];
    return acc == 0;
}

/* r = a^-1 mod m for a plain (non-Montgomery) 0 < a < m, by the binary
 * extended Euclidean algorithm. Variable time. */
CZ_MONT_INLINE void mont_inv_plain_var(uint64_t *r, const uint64_t *a, const uint64_t *m, int n) {
    uint64_t u[CZ_MONT_MAX_LIMBS], v[CZ_MONT_MAX_LIMBS];
    uint64_t x1[CZ_MONT_MAX_LIMBS] = {1}, x2[CZ_MONT_MAX_LIMBS] = {0};
    memcpy(u, a, (size_t)n * 8);
    memcpy(v, m, (size_t)n * 8);
    while (!mont_is_one_raw(u, n) && !mont_is_one_raw(v, n)) {
        while (!(u[0] & 1)) {
            mont_shr1(u, 0, n);
            mont_half(x1, m, n);
        }
        while (!(v[0] & 1)) {
            mont_shr1(v, 0, n);
            mont_half(x2, m, n);
        }
        uint64_t d[CZ_MONT_MAX_LIMBS];
        if (!mont_sub_raw(d, u, v, n)) {
            memcpy(u, d, (size_t)n * 8);
            mont_sub(x1, x1, x2, m, n);
        } else {
            mont_sub_raw(v, v, u, n);
            mont_sub(x2, x2, x1, m, n);
        }
    }
    memcpy(r, mont_is_one_raw(u, n) ? x1 : x2, (size_t)n * 8);
}

/* Big-endian bytes <-> little-endian limbs (no range check here). */
CZ_MONT_INLINE void mont_limbs_from_be(uint64_t *r, const uint8_t *in, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++) w = (w << 8) | in[8 * (n - 1 - i) + k];
        r[i] = w;
    }
}

CZ_MONT_INLINE void mont_limbs_to_be(uint8_t *out, const uint64_t *a, int n) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) out[8 * (n - 1 - i) + k] = (uint8_t)(a[i] >> (56 - 8 * k));
}

/* a < m over n limbs */
CZ_MONT_INLINE int mont_less(const uint64_t *a, const uint64_t *m, int n) {
    uint64_t d[CZ_MONT_MAX_LIMBS];
    return (int)mont_sub_raw(d, a, m, n);
}

#endif
