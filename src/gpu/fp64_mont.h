/* The Montgomery product of Fp (BLS12-381 base field) and Fr (scalar field)
 * with limbs held in doubles, for the FP64 pipe of a GPU (issue 29). One
 * source for the host (plain C11, `fma` from math.h; x86-64-v3 has FMA3) and
 * the device (nvcc: `__fma_rn`, `__dsub_rn`); the CPU test
 * (tests/ff/test_fp64_mont.c) holds it bit-exact to src/ff and GMP, the GPU
 * test (tests/gpu/test_gpu_fp64.c) the device copy to the host one.
 *
 * Representation. An element is n limbs x_i, each an integer in [0, 2^w)
 * held exactly in a double, value x = sum x_i 2^(w i):
 *   Fp: n = 8, w = 48, Montgomery R = 2^384, the CPU's and field.cuh's R: an
 *       element's value is the project's Montgomery value (cz_fp), so
 *       cz_fp64_fp_load / _store only move bits (48-bit limbs <-> 64-bit words);
 *   Fr: n = 5, w = 51, Montgomery R' = 2^255 = R / 2 (the project's R is 2^256,
 *       which 5 limbs of 51 bits cannot reach and 52-bit limbs cannot serve: see
 *       "Why w <= 51"): cz_fp64_fr_load halves modulo r (x R -> x R'), _store
 *       doubles (x R' -> x R), a few integer operations each.
 *
 * The product of two limbs. For 0 <= x, y < 2^w (or |x| <= 2^(w-1) for the
 * reduction multiples m below) the exact integer x y (< 2^(2w) <= 2^102) is
 * split with three double operations, all exact, round to nearest:
 *   h = fma(x, y, C)       C = 2^(w+52) for x y >= 0, where x y <= (2^w - 1)^2
 *                          < 2^(w+52); C = 1.5 * 2^(w+52) for signed x, where
 *                          |x y| < 2^(2w-1) <= 2^(w+50). Either way C + x y lies
 *                          in [2^(w+52), 2^(w+53)], where doubles are spaced 2^w
 *                          (both ends are on that grid), so h = C + K 2^w with
 *                          K = round(x y / 2^w), and the bit pattern of h is
 *                          bits(C) + K (a double's pattern grows by one per
 *                          spacing inside a binade, and the top end 2^(w+53)
 *                          continues the line);
 *   s = C2 - h             C2 = C + 1.5 * 2^52 (a double: its bits span w + 53
 *                          - 51 <= 53 places for w <= 51): s = 1.5 * 2^52 -
 *                          K 2^w, a multiple of 2^min(w,51) below 2^104 in
 *                          magnitude with at most 53 significant bits, so the
 *                          subtraction is exact;
 *   l = fma(x, y, s)       = 1.5 * 2^52 + L with L = x y - K 2^w, |L| <= 2^(w-1)
 *                          (round to nearest), so l is in [2^52, 2^53] where
 *                          doubles are the integers: exact, and bits(l) =
 *                          bits(1.5 * 2^52) + L.
 * So x y = K 2^w + L exactly, and K and L are read as integers from the bit
 * patterns (no conversion instruction) and summed in 64-bit integer column
 * accumulators, the biases bits(C), bits(1.5 * 2^52) subtracted once per
 * column as a constant (the counts are fixed, so it folds at compile time).
 * Sums run modulo 2^64 (unsigned); each true column value is below 2^(w+6)
 * in magnitude (at most 2n = 16 terms K <= 2^w, 16 terms |L| <= 2^(w-1), a
 * carry below 2^6), so its int64 reading is exact.
 *
 * Why w <= 51: C2 must be a double (w + 53 - 51 <= 53), and L's window
 * [2^52, 2^53] must hold 1.5 * 2^52 +- 2^(w-1). With w = 52 the signed L
 * would need another bias or round-toward-zero (`__fma_rz`), which the host
 * C library cannot give without changing the rounding mode.
 *
 * The reduction (product scanning, one column at a time, a Montgomery
 * "finely integrated" order): column k collects L of every limb product
 * x_i y_j with i + j = k (a_i b_j, and m_i p_j for the multiples already
 * known), K of those of column k - 1, and the carry of column k - 1. For
 * k < n the column's value v then gives t = v mod 2^w and the multiple
 * m_k = t (-p^-1) mod 2^w, taken as the signed L of the limb product t * pinv
 * (|m_k| <= 2^(w-1), a double with no conversion: l - 1.5 * 2^52); adding
 * m_k p_0 makes v = 0 mod 2^w and v / 2^w (an arithmetic shift, exact) is
 * the carry. Columns n..2n-1 give the result's limbs (v mod 2^w, carry
 * v >> w, floor) and the last carry is the result's sign/top word.
 *
 * Bounds of the result r = (a b + M p) / R with M = sum m_k 2^(w k),
 * |M| <= (R - 1) / 2 * 2^w / (2^w - 1) < (R / 2)(1 + 2^-47), so
 * |M p / R| < (p / 2)(1 + 2^-47):
 *   Fp (R = 2^384, p < 0.1016 R): for a, b < 2p (lazy inputs allowed),
 *       a b / R < 4 p (p / R) < 0.41 p, so -p < r < p: one conditional
 *       addition of p (r < 0: the top word is -1) gives r in [0, p);
 *   Fr (R' = 2^255, r_mod < 0.906 R'): for any a, b < 2^255 (every 5-limb
 *       value, lazy or not), a b / R' < R' < 1.11 r_mod, so
 *       -r_mod < r < 1.61 r_mod < 2^256: the conditional addition, then a
 *       conditional subtraction of r_mod.
 * The output is always fully reduced (< p), limbs in [0, 2^w).
 *
 * Cost per product: 2 n^2 + n limb products (n^2 a b, n^2 m p, n for the
 * m's: Fp 136, Fr 55), 3 double operations each (2 FMA + 1 subtraction) and
 * two 64-bit integer additions, plus 3n exact conversions (t, m, the output
 * limbs): 432 (Fp) / 180 (Fr) FP64 operations. The IMAD product (field.cuh)
 * is 288 (Fp) / 111 (Fr) IMAD.WIDE. Counts of the compiled code and the
 * measurement: docs/PERFORMANCE.md "FP64-limb products". */
#ifndef CZ_GPU_FP64_MONT_H
#define CZ_GPU_FP64_MONT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define CZ_FP64_FN static __host__ __device__ __forceinline__
#else
#define CZ_FP64_FN static inline
#endif

/* Device: the _rn intrinsics are never contracted or reassociated by nvcc.
 * Host: fma() is the correctly rounded fused operation (an FMA3 instruction
 * with -march=x86-64-v3, libm's exact emulation otherwise); the one other
 * double operation is a plain subtraction, which no contraction touches. */
#if defined(__CUDA_ARCH__)
#define CZ_FP64_UNROLL      _Pragma("unroll")
#define CZ_F64_FMA(x, y, z) __fma_rn((x), (y), (z))
#define CZ_F64_SUB(x, y)    __dsub_rn((x), (y))
CZ_FP64_FN uint64_t cz_f64_bits(double x) {
    return (uint64_t)__double_as_longlong(x);
}
CZ_FP64_FN double cz_f64_from_bits(uint64_t u) {
    return __longlong_as_double((long long)u);
}
#else
#define CZ_FP64_UNROLL
#define CZ_F64_FMA(x, y, z) fma((x), (y), (z))
#define CZ_F64_SUB(x, y)    ((x) - (y))
CZ_FP64_FN uint64_t cz_f64_bits(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
CZ_FP64_FN double cz_f64_from_bits(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}
#endif

#define CZ_FP64_FR        0 /* field ids of the generic code below */
#define CZ_FP64_FP        1
#define CZ_FP64_FP_LIMBS  8
#define CZ_FP64_FR_LIMBS  5
#define CZ_FP64_MAX_LIMBS 8

/* Fp element: 8 limbs of 48 bits, Montgomery form with R = 2^384. */
typedef struct {
    double l[CZ_FP64_FP_LIMBS];
} cz_fp64_fp;
/* Fr element: 5 limbs of 51 bits, Montgomery form with R' = 2^255. */
typedef struct {
    double l[CZ_FP64_FR_LIMBS];
} cz_fp64_fr;

/* bits(1.5 * 2^52) and bits(2^52): the biases of L and of limb conversion. */
#define CZ_FP64_LO_BIAS   0x4338000000000000ULL
#define CZ_FP64_INT_BIAS  0x4330000000000000ULL
#define CZ_FP64_TWO52     4503599627370496.0 /* 2^52 */
#define CZ_FP64_TWO52_1P5 6755399441055744.0 /* 1.5 * 2^52 */

CZ_FP64_FN int cz_fp64_limbs(const int field) {
    return field == CZ_FP64_FP ? CZ_FP64_FP_LIMBS : CZ_FP64_FR_LIMBS;
}
CZ_FP64_FN int cz_fp64_bits(const int field) {
    return field == CZ_FP64_FP ? 48 : 51;
}
/* The modulus' limbs (w bits each) and -p^-1 mod 2^w. */
CZ_FP64_FN uint64_t cz_fp64_modulus(const int field, const int i) {
    if (field == CZ_FP64_FP) {
        switch (i) {
        case 0: return 0xffffffffaaabULL;
        case 1: return 0xb153ffffb9feULL;
        case 2: return 0xf6241eabfffeULL;
        case 3: return 0x6730d2a0f6b0ULL;
        case 4: return 0x4b84f38512bfULL;
        case 5: return 0x434bacd76477ULL;
        case 6: return 0xe69a4b1ba7b6ULL;
        default: return 0x1a0111ea397fULL;
        }
    }
    switch (i) {
    case 0: return 0x7ffff00000001ULL;
    case 1: return 0x5fffcb7fdfffULL;
    case 2: return 0x68760154ef690ULL;
    case 3: return 0x6a4199cec0404ULL;
    default: return 0x73eda753299d7ULL;
    }
}
CZ_FP64_FN uint64_t cz_fp64_pinv(const int field) {
    return field == CZ_FP64_FP ? 0xfffcfffcfffdULL : 0x7fffeffffffffULL;
}

/* An integer 0 <= u < 2^52 as a double, exactly: 2^52 + u has u as its
 * mantissa bits; subtracting 2^52 is exact. */
CZ_FP64_FN double cz_fp64_u2d(uint64_t u) {
    return CZ_F64_SUB(cz_f64_from_bits(CZ_FP64_INT_BIAS | u), CZ_FP64_TWO52);
}

/* x y = K 2^w + L (see the top of the file): returns bits(h) = bits(c) + K
 * and bits(l) = CZ_FP64_LO_BIAS + L. c = 2^(w+52) with c2 = c + 1.5 * 2^52
 * for x, y >= 0; 1.5 * 2^(w+52) and its c2 for |x| <= 2^(w-1). */
CZ_FP64_FN void cz_fp64_split(uint64_t *hi, uint64_t *lo, double x, double y, double c, double c2) {
    const double h = CZ_F64_FMA(x, y, c);
    const double s = CZ_F64_SUB(c2, h);
    *hi = cz_f64_bits(h);
    *lo = cz_f64_bits(CZ_F64_FMA(x, y, s));
}

/* r = a b / R mod p, fully reduced (limbs in [0, 2^w)), for inputs with limbs
 * in [0, 2^w) and values a, b < 2p (Fp) or any (Fr); see the bounds above.
 * r may alias a or b. field is a constant (CZ_FP64_FP / CZ_FP64_FR): with the
 * function inlined every loop unrolls and every index and bias folds. */
CZ_FP64_FN void cz_fp64_mont_mul(double *r, const double *a, const double *b, const int field) {
    const int n = cz_fp64_limbs(field), w = cz_fp64_bits(field);
    const uint64_t mask = (1ULL << w) - 1;
    /* the biases: bits of C (unsigned products), C_s (signed), and the
     * distance 1.5 * 2^52 = 3 2^(51 - w) spacings of 2^w */
    const uint64_t bits_cu = (uint64_t)(1075 + w) << 52, bits_cs = bits_cu | (1ULL << 51);
    const uint64_t d2 = 3ULL << (51 - w);
    const double cu = cz_f64_from_bits(bits_cu), c2u = cz_f64_from_bits(bits_cu + d2);
    const double cs = cz_f64_from_bits(bits_cs), c2s = cz_f64_from_bits(bits_cs + d2);
    const double pinv = (double)cz_fp64_pinv(field);
    double m[CZ_FP64_MAX_LIMBS];
    uint64_t out[CZ_FP64_MAX_LIMBS];
    /* cur: column k (biased sum), cur_bias its bias; nxt, nxt_bias: k + 1 */
    uint64_t cur = 0, cur_bias = 0, hi, lo;
    /* Every loop runs to a literal bound with the range as a condition, so
     * it unrolls fully whatever order the compiler unrolls nested loops in
     * (with bounds from k, nvcc left the Fp rate kernel's arrays in local
     * memory); with the field a constant the conditions fold away. */
    CZ_FP64_UNROLL
    for (int k = 0; k < 2 * CZ_FP64_MAX_LIMBS; k++) {
        if (k >= 2 * n) break;
        uint64_t nxt = 0, nxt_bias = 0;
        CZ_FP64_UNROLL
        for (int i = 0; i < CZ_FP64_MAX_LIMBS; i++) {
            if (i >= n || k - i < 0 || k - i >= n) continue;
            cz_fp64_split(&hi, &lo, a[i], b[k - i], cu, c2u);
            cur += lo, cur_bias += CZ_FP64_LO_BIAS;
            nxt += hi, nxt_bias += bits_cu;
        }
        /* m_i p_(k-i) for the multiples known (i < k) */
        CZ_FP64_UNROLL
        for (int i = 0; i < CZ_FP64_MAX_LIMBS; i++) {
            if (i >= n || i >= k || k - i >= n) continue;
            cz_fp64_split(&hi, &lo, m[i], (double)cz_fp64_modulus(field, k - i), cs, c2s);
            cur += lo, cur_bias += CZ_FP64_LO_BIAS;
            nxt += hi, nxt_bias += bits_cs;
        }
        int64_t v = (int64_t)(cur - cur_bias); /* the column's exact value */
        if (k < n) {
            /* m_k = signed L of t * pinv = t (-p^-1) mod 2^w, |m_k| <= 2^(w-1) */
            const double t = cz_fp64_u2d((uint64_t)v & mask);
            cz_fp64_split(&hi, &lo, t, pinv, cu, c2u);
            m[k] = CZ_F64_SUB(cz_f64_from_bits(lo), CZ_FP64_TWO52_1P5);
            cz_fp64_split(&hi, &lo, m[k], (double)cz_fp64_modulus(field, 0), cs, c2s);
            nxt += hi, nxt_bias += bits_cs;
            v += (int64_t)(lo - CZ_FP64_LO_BIAS); /* now v = 0 mod 2^w */
        } else {
            out[k - n] = (uint64_t)v & mask;
        }
        /* floor(v / 2^w): arithmetic shift of int64 (GCC, Clang and nvcc
         * define >> of a negative value so) */
        nxt += (uint64_t)(v >> w);
        cur = nxt, cur_bias = nxt_bias;
    }
    /* The top word: r = sum out_i 2^(w i) + top 2^(n w), top in {-1, 0, 1}. */
    int64_t top = (int64_t)(cur - cur_bias);
    /* r < 0: add p (the carry out makes top 0) */
    const uint64_t neg = (uint64_t)(top >> 63);
    uint64_t carry = 0;
    CZ_FP64_UNROLL
    for (int i = 0; i < CZ_FP64_MAX_LIMBS; i++) {
        if (i >= n) break;
        const uint64_t s = out[i] + (cz_fp64_modulus(field, i) & neg) + carry;
        out[i] = s & mask;
        carry = s >> w;
    }
    top += (int64_t)carry;
    if (field == CZ_FP64_FR) {
        /* 0 <= r < 2p: subtract p unless that borrows */
        uint64_t d[CZ_FP64_MAX_LIMBS];
        int64_t borrow = 0;
        CZ_FP64_UNROLL
        for (int i = 0; i < n; i++) {
            const int64_t s = (int64_t)out[i] - (int64_t)cz_fp64_modulus(field, i) + borrow;
            d[i] = (uint64_t)s & mask;
            borrow = s >> w;
        }
        const uint64_t keep = (uint64_t)((top + borrow) >> 63); /* all ones: r < p */
        CZ_FP64_UNROLL
        for (int i = 0; i < n; i++) out[i] = (out[i] & keep) | (d[i] & ~keep);
    }
    CZ_FP64_UNROLL
    for (int i = 0; i < n; i++) r[i] = cz_fp64_u2d(out[i]);
}

CZ_FP64_FN void cz_fp64_fp_mul(cz_fp64_fp *r, const cz_fp64_fp *a, const cz_fp64_fp *b) {
    cz_fp64_mont_mul(r->l, a->l, b->l, CZ_FP64_FP);
}
CZ_FP64_FN void cz_fp64_fr_mul(cz_fp64_fr *r, const cz_fp64_fr *a, const cz_fp64_fr *b) {
    cz_fp64_mont_mul(r->l, a->l, b->l, CZ_FP64_FR);
}

/* Limbs of w bits <-> little-endian 64-bit words (words holds n w bits). */
CZ_FP64_FN void cz_fp64_from_words(double *r, const uint64_t *words, const int nwords, const int n,
                                   const int w) {
    const uint64_t mask = (1ULL << w) - 1;
    CZ_FP64_UNROLL
    for (int i = 0; i < n; i++) {
        const int pos = w * i, word = pos / 64, off = pos % 64;
        uint64_t v = words[word] >> off;
        if (off + w > 64 && word + 1 < nwords) v |= words[word + 1] << (64 - off);
        r[i] = cz_fp64_u2d(v & mask);
    }
}
CZ_FP64_FN void cz_fp64_to_words(uint64_t *words, const int nwords, const double *a, const int n,
                                 const int w) {
    CZ_FP64_UNROLL
    for (int j = 0; j < nwords; j++) words[j] = 0;
    CZ_FP64_UNROLL
    for (int i = 0; i < n; i++) {
        /* a limb's bits: the double 2^52 + a_i carries them as its mantissa */
        const uint64_t v = cz_f64_bits(a[i] + CZ_FP64_TWO52) - CZ_FP64_INT_BIAS;
        const int pos = w * i, word = pos / 64, off = pos % 64;
        words[word] |= v << off;
        if (off + w > 64) words[word + 1] |= v >> (64 - off);
    }
}

/* The project's Fp (cz_fp.l: 6 words, Montgomery R = 2^384, < p) <-> FP64
 * form: the same value, so only the bits move. */
CZ_FP64_FN void cz_fp64_fp_load(cz_fp64_fp *r, const uint64_t words[6]) {
    cz_fp64_from_words(r->l, words, 6, CZ_FP64_FP_LIMBS, 48);
}
CZ_FP64_FN void cz_fp64_fp_store(uint64_t words[6], const cz_fp64_fp *a) {
    cz_fp64_to_words(words, 6, a->l, CZ_FP64_FP_LIMBS, 48);
}

/* The scalar field's modulus in 64-bit words. */
CZ_FP64_FN uint64_t cz_fp64_fr_word(const int i) {
    switch (i) {
    case 0: return 0xffffffff00000001ULL;
    case 1: return 0x53bda402fffe5bfeULL;
    case 2: return 0x3339d80809a1d805ULL;
    default: return 0x73eda753299d7d48ULL;
    }
}

/* The project's Fr (cz_fr.l: x 2^256 mod r, < r) -> FP64 form x 2^255 mod r:
 * halve modulo r, i.e. (x + (x odd ? r : 0)) / 2; x + r < 2r < 2^256. */
CZ_FP64_FN void cz_fp64_fr_load(cz_fp64_fr *r, const uint64_t words[4]) {
    const uint64_t odd = 0 - (words[0] & 1);
    uint64_t t[4], carry = 0;
    CZ_FP64_UNROLL
    for (int i = 0; i < 4; i++) {
        const uint64_t add = cz_fp64_fr_word(i) & odd;
        const uint64_t s = words[i] + add;
        const uint64_t c1 = s < add;
        t[i] = s + carry;
        carry = c1 | (t[i] < carry);
    }
    CZ_FP64_UNROLL
    for (int i = 0; i < 3; i++) t[i] = (t[i] >> 1) | (t[i + 1] << 63);
    t[3] >>= 1; /* no carry out: x + r < 2^256 */
    cz_fp64_from_words(r->l, t, 4, CZ_FP64_FR_LIMBS, 51);
}
/* FP64 form (a canonical product: < r) -> the project's form: double
 * modulo r (2x < 2r < 2^256, minus r unless that borrows). */
CZ_FP64_FN void cz_fp64_fr_store(uint64_t words[4], const cz_fp64_fr *a) {
    uint64_t x[4], d[4], borrow = 0;
    cz_fp64_to_words(x, 4, a->l, CZ_FP64_FR_LIMBS, 51);
    CZ_FP64_UNROLL
    for (int i = 3; i > 0; i--) x[i] = (x[i] << 1) | (x[i - 1] >> 63);
    x[0] <<= 1;
    CZ_FP64_UNROLL
    for (int i = 0; i < 4; i++) {
        const uint64_t s = cz_fp64_fr_word(i);
        const uint64_t t = x[i] - s;
        const uint64_t b1 = x[i] < s;
        d[i] = t - borrow;
        borrow = b1 | (t < borrow);
    }
    const uint64_t keep = 0 - borrow; /* all ones: 2x < r */
    CZ_FP64_UNROLL
    for (int i = 0; i < 4; i++) words[i] = (x[i] & keep) | (d[i] & ~keep);
}

#endif
