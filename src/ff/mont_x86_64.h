/* Montgomery arithmetic for 4 and 6 limbs on x86-64 with BMI2 (mulx)
 * and ADX (adcx/adox), as GCC extended inline asm. Included by mont_impl.h.
 * Compiled when the compiler targets both extensions and optimizes (at -O0
 * the register allocator cannot satisfy the constraints); mont_impl.h then
 * uses it unless CZ_FF_PORTABLE is defined.
 *
 * Multiplication is CIOS with the reduction interleaved row by row. Row i adds
 * a * b[i] into an (n+1)-word accumulator t with two independent carry chains
 * (adcx for the low halves of the products, adox for the high halves), then
 * adds q * m for q = t[0] * minv mod 2^64, which clears t[0], and drops that
 * word. The dropped register is zero and becomes the new top word, so the
 * word registers rotate by one per row instead of being moved.
 *
 * Bounds (callers guarantee a, b < m and m < 2^(64n - 1), i.e. a top limb
 * below 2^63, true for both BLS12-381 moduli): before row i, t < a + m; adding
 * a * b[i] + q * m keeps it below 2^64 (a + m) < 2^(64(n+1)), so no carry
 * leaves the top word, and after the shift t < a + m again. Hence every
 * chain's final carry fits in the top word (adox/adc into it never
 * overflow), and after n rows t < 2m needs one conditional subtraction.
 * The same holds for unreduced a, b < 2m when 4m < 2^(64n) (Fp, which
 * fp2_inline.h relies on): t < a + m < 3m throughout, and the final
 * value a b / 2^(64n) + m < 2m.
 *
 * The asm blocks name every memory word they read through "m" operands (the
 * limbs of a and b through dummy array operands next to their pointers), so
 * the compiler orders them correctly against surrounding stores without a
 * "memory" clobber. Results leave in registers; the C wrappers store them, so
 * r may alias a or b. */
#ifndef CZ_FF_MONT_X86_64_H
#define CZ_FF_MONT_X86_64_H

#if defined(__x86_64__) && defined(__BMI2__) && defined(__ADX__) && defined(__OPTIMIZE__)
#define CZ_MONT_HAVE_X86_64 1

#include <stdint.h>

/* The asm templates are laid out by hand, one instruction a line. */
/* clang-format off */

#define CZ_X_INLINE static inline __attribute__((always_inline))

/* Operand reference by name. */
#define CZ_XO(name) "%[" #name "]"

/* lo:hi = rdx * src; t_lo += lo (CF chain), t_hi += hi (OF chain). */
#define CZ_X_MAC(src, TL, TH)                                                                      \
    "mulxq " src ", %[lo], %[hi]\n\t"                                                              \
    "adcxq %[lo], " CZ_XO(TL) "\n\t"                                                               \
    "adoxq %[hi], " CZ_XO(TH) "\n\t"

/* Memory sources: limb j of a (pointer operand a), of the modulus (operands
 * q0..q5) and the squaring's doubled limbs (operands u1.., d2..). */
#define CZ_XA(off) off "(%[a])"
#define CZ_XM(name) "%[" #name "]"

/* ------------------------------------------------------------------------ */
/* 6 limbs: accumulator in 7 registers t0..t6. */

/* t = a * src (t starts empty: one plain carry chain). */
#define CZ_X6_ROW_FIRST(S0, S1, S2, S3, S4, S5, T0, T1, T2, T3, T4, T5, T6)                        \
    "mulxq " S0 ", " CZ_XO(T0) ", " CZ_XO(T1) "\n\t"                                               \
    "mulxq " S1 ", %[lo], " CZ_XO(T2) "\n\t"                                                       \
    "addq %[lo], " CZ_XO(T1) "\n\t"                                                                \
    "mulxq " S2 ", %[lo], " CZ_XO(T3) "\n\t"                                                       \
    "adcq %[lo], " CZ_XO(T2) "\n\t"                                                                \
    "mulxq " S3 ", %[lo], " CZ_XO(T4) "\n\t"                                                       \
    "adcq %[lo], " CZ_XO(T3) "\n\t"                                                                \
    "mulxq " S4 ", %[lo], " CZ_XO(T5) "\n\t"                                                       \
    "adcq %[lo], " CZ_XO(T4) "\n\t"                                                                \
    "mulxq " S5 ", %[lo], " CZ_XO(T6) "\n\t"                                                       \
    "adcq %[lo], " CZ_XO(T5) "\n\t"                                                                \
    "adcq $0, " CZ_XO(T6) "\n\t"

/* t += a * b[i] (rdx = b[i] loaded from b + off); T6 is zero on entry (the
 * word the last reduction cleared). */
#define CZ_X6_MUL_ROW(off, T0, T1, T2, T3, T4, T5, T6)                                             \
    "movq " off "(%[b]), %%rdx\n\t"                                                                \
    "xorl %k[lo], %k[lo]\n\t" /* CF = OF = 0 */                                                    \
    CZ_X_MAC(CZ_XA("0"), T0, T1) CZ_X_MAC(CZ_XA("8"), T1, T2) CZ_X_MAC(CZ_XA("16"), T2, T3)        \
        CZ_X_MAC(CZ_XA("24"), T3, T4) CZ_X_MAC(CZ_XA("32"), T4, T5)                                \
            CZ_X_MAC(CZ_XA("40"), T5, T6) "adcq $0, " CZ_XO(T6) "\n\t"

/* t += (t0 * minv mod 2^64) * m: T0 becomes zero, t / 2^64 is in T1..T6. */
#define CZ_X6_RED_ROW(T0, T1, T2, T3, T4, T5, T6)                                                  \
    "movq " CZ_XO(T0) ", %%rdx\n\t"                                                                \
    "imulq %[minv], %%rdx\n\t"                                                                     \
    "xorl %k[lo], %k[lo]\n\t" CZ_X_MAC(CZ_XM(q0), T0, T1) CZ_X_MAC(CZ_XM(q1), T1, T2)              \
        CZ_X_MAC(CZ_XM(q2), T2, T3) CZ_X_MAC(CZ_XM(q3), T3, T4) CZ_X_MAC(CZ_XM(q4), T4, T5)        \
            CZ_X_MAC(CZ_XM(q5), T5, T6) "adcq $0, " CZ_XO(T6) "\n\t"

#define CZ_X6_MOD_OPERANDS                                                                         \
    [q0] "m"(m[0]), [q1] "m"(m[1]), [q2] "m"(m[2]), [q3] "m"(m[3]), [q4] "m"(m[4]), [q5] "m"(m[5])

/* r = w - m unless that borrows, for w < 2m in w0..w5 (low word first). */
CZ_X_INLINE void mont_final6_x86_64(uint64_t *r, uint64_t w0, uint64_t w1, uint64_t w2,
                                    uint64_t w3, uint64_t w4, uint64_t w5, const uint64_t *m) {
    uint64_t d0, d1, d2, d3, d4, d5;
    __asm__("movq %[w0], %[d0]\n\t"
            "subq %[q0], %[d0]\n\t"
            "movq %[w1], %[d1]\n\t"
            "sbbq %[q1], %[d1]\n\t"
            "movq %[w2], %[d2]\n\t"
            "sbbq %[q2], %[d2]\n\t"
            "movq %[w3], %[d3]\n\t"
            "sbbq %[q3], %[d3]\n\t"
            "movq %[w4], %[d4]\n\t"
            "sbbq %[q4], %[d4]\n\t"
            "movq %[w5], %[d5]\n\t"
            "sbbq %[q5], %[d5]\n\t"
            "cmovcq %[w0], %[d0]\n\t"
            "cmovcq %[w1], %[d1]\n\t"
            "cmovcq %[w2], %[d2]\n\t"
            "cmovcq %[w3], %[d3]\n\t"
            "cmovcq %[w4], %[d4]\n\t"
            "cmovcq %[w5], %[d5]\n\t"
            : [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3), [d4] "=&r"(d4),
              [d5] "=&r"(d5)
            : [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2), [w3] "r"(w3), [w4] "r"(w4), [w5] "r"(w5),
              CZ_X6_MOD_OPERANDS
            : "cc");
    r[0] = d0;
    r[1] = d1;
    r[2] = d2;
    r[3] = d3;
    r[4] = d4;
    r[5] = d5;
}

/* r = a * b / 2^384 mod m for a, b < m. */
CZ_X_INLINE void mont_mul6_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *m, uint64_t minv) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    __asm__("movq 0(%[b]), %%rdx\n\t" /* row 0: t0..t6 */
            CZ_X6_ROW_FIRST(CZ_XA("0"), CZ_XA("8"), CZ_XA("16"), CZ_XA("24"), CZ_XA("32"),
                            CZ_XA("40"), t0, t1, t2, t3, t4, t5, t6)
                CZ_X6_RED_ROW(t0, t1, t2, t3, t4, t5, t6)      /* t0 = 0 */
            CZ_X6_MUL_ROW("8", t1, t2, t3, t4, t5, t6, t0) /* row 1: t1..t6, t0 */
            CZ_X6_RED_ROW(t1, t2, t3, t4, t5, t6, t0)
            CZ_X6_MUL_ROW("16", t2, t3, t4, t5, t6, t0, t1)
            CZ_X6_RED_ROW(t2, t3, t4, t5, t6, t0, t1)
            CZ_X6_MUL_ROW("24", t3, t4, t5, t6, t0, t1, t2)
            CZ_X6_RED_ROW(t3, t4, t5, t6, t0, t1, t2)
            CZ_X6_MUL_ROW("32", t4, t5, t6, t0, t1, t2, t3)
            CZ_X6_RED_ROW(t4, t5, t6, t0, t1, t2, t3)
            CZ_X6_MUL_ROW("40", t5, t6, t0, t1, t2, t3, t4)
            CZ_X6_RED_ROW(t5, t6, t0, t1, t2, t3, t4) /* result in t6, t0..t4 */
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[6])a),
              "m"(*(const uint64_t(*)[6])b), CZ_X6_MOD_OPERANDS, [minv] "m"(minv)
            : "rdx", "cc");
    (void)t5;
    mont_final6_x86_64(r, t6, t0, t1, t2, t3, t4, m);
}

/* Lazy reduction for the Fp2 multiplication: the full 12-word product and a
 * Montgomery reduction of a 12-word value, so that several products can be
 * added or subtracted before one reduction. */

/* Store accumulator word T (final after its row) to w[off / 8], then zero it:
 * it becomes the zero top word of the next row. */
#define CZ_X6_STORE_WORD(off, T)                                                                   \
    "movq " CZ_XO(T) ", " off "(%[w])\n\t"                                                         \
    "xorl %k[" #T "], %k[" #T "]\n\t"

/* w = a * b as 12 words, for a, b < 2^384 (no reduction; the product always
 * fits). The rows are the multiplication's without the reduction rows. */
CZ_X_INLINE void mont_mulwide6_x86_64(uint64_t *w, const uint64_t *a, const uint64_t *b) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    __asm__("movq 0(%[b]), %%rdx\n\t"
            CZ_X6_ROW_FIRST(CZ_XA("0"), CZ_XA("8"), CZ_XA("16"), CZ_XA("24"), CZ_XA("32"),
                            CZ_XA("40"), t0, t1, t2, t3, t4, t5, t6)
            CZ_X6_STORE_WORD("0", t0)
            CZ_X6_MUL_ROW("8", t1, t2, t3, t4, t5, t6, t0)
            CZ_X6_STORE_WORD("8", t1)
            CZ_X6_MUL_ROW("16", t2, t3, t4, t5, t6, t0, t1)
            CZ_X6_STORE_WORD("16", t2)
            CZ_X6_MUL_ROW("24", t3, t4, t5, t6, t0, t1, t2)
            CZ_X6_STORE_WORD("24", t3)
            CZ_X6_MUL_ROW("32", t4, t5, t6, t0, t1, t2, t3)
            CZ_X6_STORE_WORD("32", t4)
            CZ_X6_MUL_ROW("40", t5, t6, t0, t1, t2, t3, t4)
            "movq %[t5], 40(%[w])\n\t"
            "movq %[t6], 48(%[w])\n\t"
            "movq %[t0], 56(%[w])\n\t"
            "movq %[t1], 64(%[w])\n\t"
            "movq %[t2], 72(%[w])\n\t"
            "movq %[t3], 80(%[w])\n\t"
            "movq %[t4], 88(%[w])\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi),
              "=m"(*(uint64_t(*)[12])w)
            : [w] "r"(w), [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[6])a),
              "m"(*(const uint64_t(*)[6])b)
            : "rdx", "cc");
}

/* r = w / 2^384 mod m for a 12-word w < m 2^384. The six reduction rows act
 * on the low half L alone and give (L + Q m) / 2^384 <= m (Q < 2^384, L <
 * 2^384); adding the high half H < m leaves a value below 2m, which the
 * final subtraction brings below m. */
CZ_X_INLINE void mont_redc6_x86_64(uint64_t *r, const uint64_t *w, const uint64_t *m,
                                   uint64_t minv) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    __asm__("movq 0(%[w]), %[t0]\n\t"
            "movq 8(%[w]), %[t1]\n\t"
            "movq 16(%[w]), %[t2]\n\t"
            "movq 24(%[w]), %[t3]\n\t"
            "movq 32(%[w]), %[t4]\n\t"
            "movq 40(%[w]), %[t5]\n\t"
            "xorl %k[t6], %k[t6]\n\t"
            CZ_X6_RED_ROW(t0, t1, t2, t3, t4, t5, t6)
            CZ_X6_RED_ROW(t1, t2, t3, t4, t5, t6, t0)
            CZ_X6_RED_ROW(t2, t3, t4, t5, t6, t0, t1)
            CZ_X6_RED_ROW(t3, t4, t5, t6, t0, t1, t2)
            CZ_X6_RED_ROW(t4, t5, t6, t0, t1, t2, t3)
            CZ_X6_RED_ROW(t5, t6, t0, t1, t2, t3, t4) /* (L + Q m) / 2^384 in t6, t0..t4 */
            "addq 48(%[w]), %[t6]\n\t"
            "adcq 56(%[w]), %[t0]\n\t"
            "adcq 64(%[w]), %[t1]\n\t"
            "adcq 72(%[w]), %[t2]\n\t"
            "adcq 80(%[w]), %[t3]\n\t"
            "adcq 88(%[w]), %[t4]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [w] "r"(w), "m"(*(const uint64_t(*)[12])w), CZ_X6_MOD_OPERANDS, [minv] "m"(minv)
            : "rdx", "cc");
    (void)t5;
    mont_final6_x86_64(r, t6, t0, t1, t2, t3, t4, m);
}

/* Squaring. a^2 = sum_i a_i 2^(64i) * X_i 2^(64i) with
 * X_i = a_i + 2 * sum_{j>i} a_j 2^(64(j-i)): every cross product appears once
 * with a doubled multiplicand, so row i has 6 - i products (21 in all, not
 * 36). The limbs of X_i are a_i, u_{i+1} = 2 a_{i+1} mod 2^64 and d_k = limb k
 * of 2a for k >= i + 2 (2a < 2^383 fits in 6 limbs). Row i lands at positions
 * i..6 of the shifted accumulator and is followed by the same reduction row as
 * in the multiplication.
 *
 * Bounds: after rows 0..i the accumulator is (a^2 - A^2 + M m) / 2^(64(i+1))
 * with A = sum_{j>i} a_j 2^(64j) and M < 2^(64(i+1)); since
 * a^2 - A^2 = (a - A)(a + A) < 2^(64(i+1)) * 2a, it stays below 2a + m < 3m,
 * which needs m < 2^384 / 3 (true for Fp, m < 2^381, but not for Fr: that is
 * why there is no 4-limb version). The final value is
 * (a^2 + M m) / 2^384 < 2m, as in the multiplication. */

/* u_k = 2 a_k mod 2^64 (lea: no flags, so it can sit inside the d chain). */
#define CZ_X6_SQ_U(off, dst)                                                                       \
    "movq " off "(%[a]), %[hi]\n\t"                                                                \
    "leaq (%[hi], %[hi]), %[hi]\n\t"                                                               \
    "movq %[hi], " CZ_XO(dst) "\n\t"

/* d_k: the next limb of 2a = a + a (CF chain). */
#define CZ_X6_SQ_D(off, dst)                                                                       \
    "movq " off "(%[a]), %[lo]\n\t"                                                                \
    "adcq %[lo], %[lo]\n\t"                                                                        \
    "movq %[lo], " CZ_XO(dst) "\n\t"

/* r = a^2 / 2^384 mod m for a < m < 2^381. */
CZ_X_INLINE void mont_sqr6_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *m,
                                  uint64_t minv) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    uint64_t u1, u2, u3, u4, u5, d2, d3, d4, d5; /* stack words for mulx operands */
    __asm__(
        /* the doubled limbs */
        "movq 0(%[a]), %[lo]\n\t"
        "addq %[lo], %[lo]\n\t"
        "movq 8(%[a]), %[lo]\n\t"
        "adcq %[lo], %[lo]\n\t" CZ_X6_SQ_U("8", u1) CZ_X6_SQ_D("16", d2) CZ_X6_SQ_U("16", u2)
            CZ_X6_SQ_D("24", d3) CZ_X6_SQ_U("24", u3) CZ_X6_SQ_D("32", d4) CZ_X6_SQ_U("32", u4)
                CZ_X6_SQ_D("40", d5) CZ_X6_SQ_U("40", u5)
        /* row 0: t = a_0 * (a_0, u1, d2..d5) */
        "movq 0(%[a]), %%rdx\n\t" CZ_X6_ROW_FIRST(CZ_XA("0"), CZ_XM(u1), CZ_XM(d2), CZ_XM(d3),
                                                  CZ_XM(d4), CZ_XM(d5), t0, t1, t2, t3, t4, t5,
                                                  t6) CZ_X6_RED_ROW(t0, t1, t2, t3, t4, t5, t6)
        /* row 1: a_1 * (a_1, u2, d3..d5) at positions 1..6 = t2..t6, t0 */
        "movq 8(%[a]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t" CZ_X_MAC(CZ_XA("8"), t2, t3) CZ_X_MAC(CZ_XM(u2), t3, t4)
            CZ_X_MAC(CZ_XM(d3), t4, t5) CZ_X_MAC(CZ_XM(d4), t5, t6) CZ_X_MAC(CZ_XM(d5), t6, t0)
        "adcq $0, %[t0]\n\t" CZ_X6_RED_ROW(t1, t2, t3, t4, t5, t6, t0)
        /* row 2: a_2 * (a_2, u3, d4, d5) at positions 2..6 = t4, t5, t6, t0, t1 */
        "movq 16(%[a]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t" CZ_X_MAC(CZ_XA("16"), t4, t5) CZ_X_MAC(CZ_XM(u3), t5, t6)
            CZ_X_MAC(CZ_XM(d4), t6, t0) CZ_X_MAC(CZ_XM(d5), t0, t1)
        "adcq $0, %[t1]\n\t" CZ_X6_RED_ROW(t2, t3, t4, t5, t6, t0, t1)
        /* row 3: a_3 * (a_3, u4, d5) at positions 3..6 = t6, t0, t1, t2 */
        "movq 24(%[a]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t" CZ_X_MAC(CZ_XA("24"), t6, t0) CZ_X_MAC(CZ_XM(u4), t0, t1)
            CZ_X_MAC(CZ_XM(d5), t1, t2) "adcq $0, %[t2]\n\t"
                CZ_X6_RED_ROW(t3, t4, t5, t6, t0, t1, t2)
        /* row 4: a_4 * (a_4, u5) at positions 4..6 = t1, t2, t3 */
        "movq 32(%[a]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t" CZ_X_MAC(CZ_XA("32"), t1, t2) CZ_X_MAC(CZ_XM(u5), t2, t3)
        "adcq $0, %[t3]\n\t" CZ_X6_RED_ROW(t4, t5, t6, t0, t1, t2, t3)
        /* row 5: a_5^2 at positions 5..6 = t3, t4 (t4 is zero) */
        "movq 40(%[a]), %%rdx\n\t"
        "mulxq 40(%[a]), %[lo], %[hi]\n\t"
        "addq %[lo], %[t3]\n\t"
        "adcq %[hi], %[t4]\n\t" CZ_X6_RED_ROW(t5, t6, t0, t1, t2, t3, t4) /* t6, t0..t4 */
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [u1] "=m"(u1),
          [u2] "=m"(u2), [u3] "=m"(u3), [u4] "=m"(u4), [u5] "=m"(u5), [d2] "=m"(d2), [d3] "=m"(d3),
          [d4] "=m"(d4), [d5] "=m"(d5)
        : [a] "r"(a), "m"(*(const uint64_t(*)[6])a), CZ_X6_MOD_OPERANDS, [minv] "m"(minv)
        : "rdx", "cc");
    (void)t5;
    mont_final6_x86_64(r, t6, t0, t1, t2, t3, t4, m);
}

/* r = a + b mod m for a, b < m (a + b < 2m < 2^384: no carry out). */
CZ_X_INLINE void mont_add6_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *m) {
    uint64_t t0, t1, t2, t3, t4, t5;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "addq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "adcq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "adcq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "adcq 24(%[b]), %[t3]\n\t"
            "movq 32(%[a]), %[t4]\n\t"
            "adcq 32(%[b]), %[t4]\n\t"
            "movq 40(%[a]), %[t5]\n\t"
            "adcq 40(%[b]), %[t5]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5)
            : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[6])a),
              "m"(*(const uint64_t(*)[6])b)
            : "cc");
    mont_final6_x86_64(r, t0, t1, t2, t3, t4, t5, m);
}

/* r = a - b mod m for a, b < m: a - b, plus m when that borrowed. The limbs
 * of m times the borrow (0 or 1) come from mulx, which leaves the flags of
 * the add chain alone (and, unlike pdep, is fast on every x86-64 with BMI2). */
CZ_X_INLINE void mont_sub6_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *m) {
    uint64_t t0, t1, t2, t3, t4, t5, u, hi;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "subq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "sbbq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "sbbq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "sbbq 24(%[b]), %[t3]\n\t"
            "movq 32(%[a]), %[t4]\n\t"
            "sbbq 32(%[b]), %[t4]\n\t"
            "movq 40(%[a]), %[t5]\n\t"
            "sbbq 40(%[b]), %[t5]\n\t"
            "movl $0, %%edx\n\t"
            "adcl $0, %%edx\n\t" /* rdx = borrow */
            "mulxq %[q0], %[u], %[hi]\n\t"
            "addq %[u], %[t0]\n\t"
            "mulxq %[q1], %[u], %[hi]\n\t"
            "adcq %[u], %[t1]\n\t"
            "mulxq %[q2], %[u], %[hi]\n\t"
            "adcq %[u], %[t2]\n\t"
            "mulxq %[q3], %[u], %[hi]\n\t"
            "adcq %[u], %[t3]\n\t"
            "mulxq %[q4], %[u], %[hi]\n\t"
            "adcq %[u], %[t4]\n\t"
            "mulxq %[q5], %[u], %[hi]\n\t"
            "adcq %[u], %[t5]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [u] "=&r"(u), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[6])a),
              "m"(*(const uint64_t(*)[6])b), CZ_X6_MOD_OPERANDS
            : "rdx", "cc");
    r[0] = t0;
    r[1] = t1;
    r[2] = t2;
    r[3] = t3;
    r[4] = t4;
    r[5] = t5;
}

/* r = -a mod m for a < m: m - a, masked to 0 when a = 0. */
CZ_X_INLINE void mont_neg6_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *m) {
    uint64_t t0, t1, t2, t3, t4, t5, mask;
    __asm__("movq 0(%[a]), %[mask]\n\t"
            "orq 8(%[a]), %[mask]\n\t"
            "orq 16(%[a]), %[mask]\n\t"
            "orq 24(%[a]), %[mask]\n\t"
            "orq 32(%[a]), %[mask]\n\t"
            "orq 40(%[a]), %[mask]\n\t"
            "negq %[mask]\n\t"          /* CF = (a != 0) */
            "sbbq %[mask], %[mask]\n\t" /* -(a != 0) */
            "movq %[q0], %[t0]\n\t"
            "subq 0(%[a]), %[t0]\n\t"
            "movq %[q1], %[t1]\n\t"
            "sbbq 8(%[a]), %[t1]\n\t"
            "movq %[q2], %[t2]\n\t"
            "sbbq 16(%[a]), %[t2]\n\t"
            "movq %[q3], %[t3]\n\t"
            "sbbq 24(%[a]), %[t3]\n\t"
            "movq %[q4], %[t4]\n\t"
            "sbbq 32(%[a]), %[t4]\n\t"
            "movq %[q5], %[t5]\n\t"
            "sbbq 40(%[a]), %[t5]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [mask] "=&r"(mask)
            : [a] "r"(a), "m"(*(const uint64_t(*)[6])a), CZ_X6_MOD_OPERANDS
            : "cc");
    r[0] = t0 & mask;
    r[1] = t1 & mask;
    r[2] = t2 & mask;
    r[3] = t3 & mask;
    r[4] = t4 & mask;
    r[5] = t5 & mask;
}

/* ------------------------------------------------------------------------ */
/* 4 limbs: accumulator in 5 registers t0..t4. */

#define CZ_X4_MUL_FIRST(T0, T1, T2, T3, T4)                                                        \
    "movq 0(%[b]), %%rdx\n\t"                                                                      \
    "mulxq 0(%[a]), " CZ_XO(T0) ", " CZ_XO(T1) "\n\t"                                              \
    "mulxq 8(%[a]), %[lo], " CZ_XO(T2) "\n\t"                                                      \
    "addq %[lo], " CZ_XO(T1) "\n\t"                                                                \
    "mulxq 16(%[a]), %[lo], " CZ_XO(T3) "\n\t"                                                     \
    "adcq %[lo], " CZ_XO(T2) "\n\t"                                                                \
    "mulxq 24(%[a]), %[lo], " CZ_XO(T4) "\n\t"                                                     \
    "adcq %[lo], " CZ_XO(T3) "\n\t"                                                                \
    "adcq $0, " CZ_XO(T4) "\n\t"

#define CZ_X4_MUL_ROW(off, T0, T1, T2, T3, T4)                                                     \
    "movq " off "(%[b]), %%rdx\n\t"                                                                \
    "xorl %k[lo], %k[lo]\n\t" CZ_X_MAC(CZ_XA("0"), T0, T1) CZ_X_MAC(CZ_XA("8"), T1, T2)            \
        CZ_X_MAC(CZ_XA("16"), T2, T3) CZ_X_MAC(CZ_XA("24"), T3, T4) "adcq $0, " CZ_XO(T4) "\n\t"

#define CZ_X4_RED_ROW(T0, T1, T2, T3, T4)                                                          \
    "movq " CZ_XO(T0) ", %%rdx\n\t"                                                                \
    "imulq %[minv], %%rdx\n\t"                                                                     \
    "xorl %k[lo], %k[lo]\n\t" CZ_X_MAC(CZ_XM(q0), T0, T1) CZ_X_MAC(CZ_XM(q1), T1, T2)              \
        CZ_X_MAC(CZ_XM(q2), T2, T3) CZ_X_MAC(CZ_XM(q3), T3, T4) "adcq $0, " CZ_XO(T4) "\n\t"

#define CZ_X4_MOD_OPERANDS [q0] "m"(m[0]), [q1] "m"(m[1]), [q2] "m"(m[2]), [q3] "m"(m[3])

/* r = w - m unless that borrows, for w < 2m in w0..w3. */
CZ_X_INLINE void mont_final4_x86_64(uint64_t *r, uint64_t w0, uint64_t w1, uint64_t w2,
                                    uint64_t w3, const uint64_t *m) {
    uint64_t d0, d1, d2, d3;
    __asm__("movq %[w0], %[d0]\n\t"
            "subq %[q0], %[d0]\n\t"
            "movq %[w1], %[d1]\n\t"
            "sbbq %[q1], %[d1]\n\t"
            "movq %[w2], %[d2]\n\t"
            "sbbq %[q2], %[d2]\n\t"
            "movq %[w3], %[d3]\n\t"
            "sbbq %[q3], %[d3]\n\t"
            "cmovcq %[w0], %[d0]\n\t"
            "cmovcq %[w1], %[d1]\n\t"
            "cmovcq %[w2], %[d2]\n\t"
            "cmovcq %[w3], %[d3]\n\t"
            : [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3)
            : [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2), [w3] "r"(w3), CZ_X4_MOD_OPERANDS
            : "cc");
    r[0] = d0;
    r[1] = d1;
    r[2] = d2;
    r[3] = d3;
}

/* r = a * b / 2^256 mod m for a, b < m. */
CZ_X_INLINE void mont_mul4_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *m, uint64_t minv) {
    uint64_t t0, t1, t2, t3, t4, lo, hi;
    __asm__(CZ_X4_MUL_FIRST(t0, t1, t2, t3, t4) CZ_X4_RED_ROW(t0, t1, t2, t3, t4)
                CZ_X4_MUL_ROW("8", t1, t2, t3, t4, t0) CZ_X4_RED_ROW(t1, t2, t3, t4, t0)
                    CZ_X4_MUL_ROW("16", t2, t3, t4, t0, t1) CZ_X4_RED_ROW(t2, t3, t4, t0, t1)
                        CZ_X4_MUL_ROW("24", t3, t4, t0, t1, t2)
                            CZ_X4_RED_ROW(t3, t4, t0, t1, t2) /* result in t4, t0..t2 */
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a),
              "m"(*(const uint64_t(*)[4])b), CZ_X4_MOD_OPERANDS, [minv] "m"(minv)
            : "rdx", "cc");
    (void)t3;
    mont_final4_x86_64(r, t4, t0, t1, t2, m);
}

CZ_X_INLINE void mont_add4_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *m) {
    uint64_t t0, t1, t2, t3;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "addq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "adcq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "adcq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "adcq 24(%[b]), %[t3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
            : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a),
              "m"(*(const uint64_t(*)[4])b)
            : "cc");
    mont_final4_x86_64(r, t0, t1, t2, t3, m);
}

CZ_X_INLINE void mont_sub4_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *m) {
    uint64_t t0, t1, t2, t3, u, hi;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "subq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "sbbq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "sbbq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "sbbq 24(%[b]), %[t3]\n\t"
            "movl $0, %%edx\n\t"
            "adcl $0, %%edx\n\t"
            "mulxq %[q0], %[u], %[hi]\n\t"
            "addq %[u], %[t0]\n\t"
            "mulxq %[q1], %[u], %[hi]\n\t"
            "adcq %[u], %[t1]\n\t"
            "mulxq %[q2], %[u], %[hi]\n\t"
            "adcq %[u], %[t2]\n\t"
            "mulxq %[q3], %[u], %[hi]\n\t"
            "adcq %[u], %[t3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [u] "=&r"(u),
              [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a),
              "m"(*(const uint64_t(*)[4])b), CZ_X4_MOD_OPERANDS
            : "rdx", "cc");
    r[0] = t0;
    r[1] = t1;
    r[2] = t2;
    r[3] = t3;
}

CZ_X_INLINE void mont_neg4_x86_64(uint64_t *r, const uint64_t *a, const uint64_t *m) {
    uint64_t t0, t1, t2, t3, mask;
    __asm__("movq 0(%[a]), %[mask]\n\t"
            "orq 8(%[a]), %[mask]\n\t"
            "orq 16(%[a]), %[mask]\n\t"
            "orq 24(%[a]), %[mask]\n\t"
            "negq %[mask]\n\t"
            "sbbq %[mask], %[mask]\n\t"
            "movq %[q0], %[t0]\n\t"
            "subq 0(%[a]), %[t0]\n\t"
            "movq %[q1], %[t1]\n\t"
            "sbbq 8(%[a]), %[t1]\n\t"
            "movq %[q2], %[t2]\n\t"
            "sbbq 16(%[a]), %[t2]\n\t"
            "movq %[q3], %[t3]\n\t"
            "sbbq 24(%[a]), %[t3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [mask] "=&r"(mask)
            : [a] "r"(a), "m"(*(const uint64_t(*)[4])a), CZ_X4_MOD_OPERANDS
            : "cc");
    r[0] = t0 & mask;
    r[1] = t1 & mask;
    r[2] = t2 & mask;
    r[3] = t3 & mask;
}

/* clang-format on */

#endif /* x86-64 with BMI2 and ADX */
#endif
