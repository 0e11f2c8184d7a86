/* NTT over Fr on the device.
 *
 * A transform of 2^k elements is split into passes of b <= 9 radix-2 stages
 * (k <= 9: one pass; 27 = 9 + 9 + 9, 24 = 8 + 8 + 8). A pass works on tiles
 * of 2^b elements that interact in its stages (index bits lo .. lo+b-1)
 * times 2^g neighbours: in the low index bits when lo > 0 (so the global
 * accesses of a warp touch runs of 2^g consecutive elements), whole
 * consecutive transforms when lo = 0. Gentleman-Sande (DIF) passes go from
 * the top bits down and give NR (natural in, bit-reversed out); Cooley-Tukey
 * (DIT) passes go from the bottom up on bit-reversed input and give RN. NN is
 * NR followed by a bit-reversal permutation (CZ_GPU_NTT_NN=0: the
 * permutation, then RN; 2^27 on the H200: 40.7 against 41.2 ms), and the
 * coset inverse's output factors ride on that permutation. The coset scaling (g^i on the
 * input of a forward transform, g^-i / m on the output of an inverse) is
 * fused into the passes: in k_ntt_rb one product per element at the first
 * pass's loads / the last pass's stores plus factors merged into one pass's
 * four-step twiddle table (see "k_ntt_rb tables", which also fold the plain
 * inverse's 1/m); in k_ntt_pass two-level power tables at the first / last
 * pass.
 *
 * k_ntt_rb (k >= 3, the default): each thread keeps 8 elements in registers
 * and runs up to 3 stages on them between shared-memory exchanges (a pass of
 * 9 stages: 3 register rounds, 2 exchanges); in the round on the lowest 3
 * stage bits every twiddle is a compile-time power of omega_8 and the 7 of
 * 12 butterflies whose twiddle is 1 have no multiplication (~7/8 m products
 * saved per pass). k_ntt_pass (one butterfly per thread per stage, a shared
 * round trip and __syncthreads per stage) remains for k < 3, for data that
 * is not 32-byte aligned, and under CZ_GPU_NTT_OLD=1 for comparisons.
 *
 * Twiddles: omega^e (and omega^-e) for e < m in two levels, omega^e =
 * lo[e mod 2^s] hi[e >> s] with s = k / 2 (ntt_layout.h): 2^14 + 2^13
 * elements at 2^27, cached, instead of a table of m / 2 elements per
 * direction (4 GiB at 2^27, which a 12 GB card cannot spare beside one
 * proof's buffers). Inside a pass the butterflies use the 2^(b-1) powers of
 * omega_{2^b} (copied into shared memory from a table of the widest pass's
 * roots, 2^10 entries); between passes
 * every element is multiplied once by a "four-step" twiddle, formed from
 * the two levels (one product more per element of that pass boundary, in
 * place of a gather from the big table; see k_ntt_pass), or, in k_ntt_rb's
 * pass next to the lowest bits, from a table of its own. Coset powers g^e:
 * see above.
 *
 * Cost (2^27): 27 * 2^26 butterflies less the trivial ones (~1.46e9 Fr
 * products), 2^28 four-step twiddles (2^27 of them two-level: 2^27 products
 * more), 2^27 coset products (1/m free); three passes over 4 GiB. The
 * products dominate (a compute floor of ~32 ms on the H200 against 4-6 ms
 * for the memory traffic).
 * Code size matters as much: with every product inlined a pass kernel was
 * ~310 KB of machine code, far past the instruction cache (ncu saw
 * instruction-cache misses beside the long-scoreboard stalls of the strided
 * loads and twiddle gathers in the passes with lo > 0); every product of
 * k_ntt_rb now calls one out-of-line copy (mul_ool), which took the 2^27
 * iNTT from 50.1 to 38.9 ms (figures at mul_ool). */
/* Fr arithmetic only: inline the multiplication (see field.cuh) */
#define CZ_GPU_FULL_INLINE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/common.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"
#include "gpu/ntt_layout.h"
#include "gpu/settings.h"
#include "util/log.h"

using namespace cz_gpu;

#define NTT_TILE_LOG 10

struct cz_gpu_ntt {
    unsigned k;
    size_t n;
    fr_t *wlo[2]; /* omega^e, omega^-e for e < 2^wbits */
    fr_t *whi[2]; /* omega^(e 2^wbits), omega^-(e 2^wbits) for e < n >> wbits */
    unsigned wbits;
    fr_t *wroot[2]; /* the butterflies' roots omega_{2^R}^(+-j) (ntt_layout.h) */
    unsigned root_bits;
    fr_t *gpow_lo[2]; /* g^e, g^-e for e < 2^lo_bits */
    fr_t *gpow_hi[2]; /* g^(e 2^lo_bits), and g^-(e 2^lo_bits) / n */
    unsigned lo_bits;
    fr_t size_inv;
    fr_t zinv; /* (g^n - 1)^-1 */
    /* k_ntt_rb tables (k >= 3; see rb_tables): mtab[dit][inverse][coset]
     * for the pass next to the one on the lowest bits (>= 2 passes, else
     * NULL), etab[dit][inverse] the coset factors not merged there */
    fr_t *mtab[2][2][2];
    fr_t *etab[2][2];
    void *mem;
};

/* Pass parameters. */
struct ntt_pass_args {
    fr_t *data;
    const fr_t *wlo, *whi; /* the direction's twiddles, two levels (cz_gpu_ntt) */
    unsigned wbits;
    const fr_t *wroot; /* the direction's butterfly roots: omega_{2^b}^j at j 2^(root_bits-b) */
    unsigned root_bits;
    unsigned k, lo, b, g;
    int pre;  /* k_ntt_pass: 0 none, 1: x[i] *= g^i (natural), 2: x[p] *= g^rev(p) */
    int post; /* 0 none, 1: *= 1/n; k_ntt_pass: 2: *= g^-i / n (natural), 3: *= g^-rev(p) / n */
    const fr_t *plo, *phi;
    unsigned plo_bits;
    fr_t scale;
    unsigned r0; /* k_ntt_rb: stages of the round at s = 0 (1..3) */
    unsigned nb; /* k_ntt_rb, DIT: the next pass's width (0: none) */
    /* k_ntt_rb: four-step twiddles of this pass from mtab[idx mod 2^(lo+b)]
     * instead of the two-level twiddles (when not NULL); coset factors etab[eidx(idx)]
     * at the load (edge 1) or the store (edge 2), eidx = (idx >> esh) <<
     * ekeep | idx mod 2^ekeep */
    const fr_t *mtab, *etab;
    int edge;
    unsigned esh, ekeep;
};

static __device__ __forceinline__ uint32_t rev_bits(uint32_t x, unsigned k) {
    return k ? __brev(x) >> (32 - k) : 0;
}

/* 32-byte element access as two 16-byte vectors (the element type's own
 * alignment is 4, which would give eight 4-byte accesses). Device buffers
 * here are 32-byte aligned (the entry point checks the caller's). */
static __device__ __forceinline__ fr_t ld_fr(const fr_t *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    const uint4 u = q[0], w = q[1];
    fr_t r;
    r.v[0] = u.x, r.v[1] = u.y, r.v[2] = u.z, r.v[3] = u.w;
    r.v[4] = w.x, r.v[5] = w.y, r.v[6] = w.z, r.v[7] = w.w;
    return r;
}
/* The same for read-only tables (non-coherent cache path). */
static __device__ __forceinline__ fr_t ldg_fr(const fr_t *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    const uint4 u = __ldg(q), w = __ldg(q + 1);
    fr_t r;
    r.v[0] = u.x, r.v[1] = u.y, r.v[2] = u.z, r.v[3] = u.w;
    r.v[4] = w.x, r.v[5] = w.y, r.v[6] = w.z, r.v[7] = w.w;
    return r;
}
static __device__ __forceinline__ void st_fr(fr_t *p, const fr_t &x) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    q[1] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}
/* Shared memory holds elements as two planes of 16-byte halves (s0: limbs
 * 0-3, s1: limbs 4-7), so 8 consecutive slots are 128 bytes, one per bank
 * group. */
static __device__ __forceinline__ fr_t lds_fr(const uint4 *s0, const uint4 *s1, uint32_t i) {
    const uint4 u = s0[i], w = s1[i];
    fr_t r;
    r.v[0] = u.x, r.v[1] = u.y, r.v[2] = u.z, r.v[3] = u.w;
    r.v[4] = w.x, r.v[5] = w.y, r.v[6] = w.z, r.v[7] = w.w;
    return r;
}
static __device__ __forceinline__ void sts_fr(uint4 *s0, uint4 *s1, uint32_t i, const fr_t &x) {
    s0[i] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    s1[i] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}

/* Every product of k_ntt_rb (butterflies, four-step twiddles, coset powers,
 * 1/n) calls this one out-of-line copy: inlined, each pass kernel was ~310 KB
 * of machine code, far past the instruction cache. Measured at 2^27 on the
 * H200 (iNTT NR / coset NTT RN / coset iNTT NN / NTT NN): all inlined 50.1 /
 * 55.8 / 65.9 / 52.7 ms; the products outside the butterflies out of line
 * 40.6 / 49.0 / 50.1 / 45.9 ms; all out of line 38.9 / 46.2 / 48.0 /
 * 42.8 ms. */
static __device__ __noinline__ fr_t mul_ool(fr_t a, fr_t b) {
    return fr_t::mul(a, b);
}
/* base^e from a two-level power table: lo[e mod 2^bits] hi[e >> bits]. */
static __device__ __forceinline__ fr_t pow_lookup(const fr_t *lo, const fr_t *hi, unsigned bits,
                                                  uint32_t e) {
    return mul_ool(ldg_fr(lo + (e & ((1u << bits) - 1))), ldg_fr(hi + (e >> bits)));
}
/* omega^e (the pass's direction), e < 2^k. */
static __device__ __forceinline__ fr_t omega_pow(const ntt_pass_args &a, uint32_t e) {
    return pow_lookup(a.wlo, a.whi, a.wbits, e);
}
/* omega_{2^(lo+b)}^(low * u) for a pass on bits [lo, lo+b): omega^e with
 * e = (low u) 2^(k-lo-b) < 2^k. */
static __device__ __forceinline__ fr_t inter_twiddle(const ntt_pass_args &a, unsigned lo,
                                                     unsigned b, uint32_t low, uint32_t u) {
    return omega_pow(a, (low * u) << (a.k - lo - b));
}
/* The four-step twiddle of element idx in the pass on bits [lo, lo+b):
 * omega_{2^(lo+b)}^(low rev_b(t)), low = idx mod 2^lo, t = the bits
 * [lo, lo+b) of idx; from mtab when set (then that pass is M), else from the
 * two-level twiddles. */
static __device__ __forceinline__ fr_t rb_four_step(const ntt_pass_args &a, uint32_t idx,
                                                    unsigned lo, unsigned b) {
    if (a.mtab) return ldg_fr(a.mtab + (idx & ((1u << (lo + b)) - 1)));
    const uint32_t t = (idx >> lo) & ((1u << b) - 1);
    return inter_twiddle(a, lo, b, idx & ((1u << lo) - 1), rev_bits(t, b));
}

/* The coset factor of element idx from the pass's edge table. */
static __device__ __forceinline__ fr_t edge_factor(const fr_t *etab, unsigned esh, unsigned ekeep,
                                                   uint32_t idx) {
    return ldg_fr(etab + (((idx >> esh) << ekeep) | (idx & ((1u << ekeep) - 1))));
}
static __device__ __forceinline__ fr_t rb_edge(const ntt_pass_args &a, uint32_t idx) {
    return edge_factor(a.etab, a.esh, a.ekeep, idx);
}

/* ---- Register-blocked pass (k >= 3) ----
 *
 * Same pass decomposition and twiddles as k_ntt_pass below (tile of 2^b
 * stage positions t times 2^g columns c, four-step twiddle between passes;
 * DIT applies a pass's four-step twiddles at the previous pass's stores, so
 * every pass multiplies after its rounds like DIF: 2^27 DIT 44.5 -> 41.2 ms
 * on the H200), but each thread keeps 8 elements in registers and runs the pass's stages
 * as "rounds" of up to 3 stages on them: round (s, R) covers the stage bits
 * [s, s+R) of t, and thread (c, rest) holds the 8 elements
 *     t = rb_t(rest, s, j) = (rest >> s) << (s+3) | j << s | rest mod 2^s,
 * j < 8 (when R < 3, j's high bits index independent sub-transforms). Only
 * the round at s = 0 may have R < 3 (round sizes from s = 0 up: r0, 3, 3...),
 * DIT runs the rounds from s = 0 up, DIF from the top down. Between rounds
 * the elements go through shared memory (2 __syncthreads per exchange), so a
 * pass of 9 stages has 2 exchanges instead of 9 shared round trips.
 *
 * Twiddle of the butterfly (t0, t0 + 2^tb) at stage tb is, as in k_ntt_pass,
 * omega_{2^(tb+1)}^(t0 mod 2^tb) = roots[(t0 mod 2^tb) << (b-1-tb)], and
 * t0 mod 2^tb = u + v 2^s with u = rest mod 2^s (the thread's) and v = j0 mod
 * 2^(tb-s) (the register's). In the round at s = 0, u = 0, so the twiddle is
 * known at compile time and every twiddle 1 (v = 0: 4 + 2 + 1 of the 12
 * butterflies of a radix-8 round, ~7/8 n per pass) is skipped.
 *
 * Global access: with lo > 0 the first/last round reads/writes the tile
 * directly, lanes running over the 2^g consecutive columns (runs of 2^g
 * elements); with lo = 0 the block's 2^g transforms are 2^(b+g) consecutive
 * elements: the round at s = 0 (DIT's loads, DIF's stores), where each thread
 * holds 8 consecutive ones, goes through shared memory in natural order
 * (coalesced), the round at s = b - 3 (lanes on consecutive elements) goes
 * direct (measured: staging both sides 0.1-0.7 ms slower). Shared slots are
 * swizzled, slot(e) = e ^ ((e >> 3) & 7): in every round's access pattern the
 * 8 lanes of a 128-byte phase then hit 8 distinct 16-byte bank groups (the
 * lane bits land in e's bits 0..2, or for s = 0 in bits 0..g-1 and g+3..5). */
static __device__ __forceinline__ uint32_t rb_swz(uint32_t e) {
    return e ^ ((e >> 3) & 7);
}
static __device__ __forceinline__ uint32_t rb_t(uint32_t rest, unsigned s, unsigned j) {
    return ((rest >> s) << (s + 3)) | (j << s) | (rest & ((1u << s) - 1));
}

/* x[j] *= f(j) for the 8 registers. */
template <class F> static __device__ __forceinline__ void rb_scale(fr_t (&x)[8], F f) {
#pragma unroll
    for (int j = 0; j < 8; j++) x[j] = mul_ool(x[j], f(j));
}

/* One round of R stages on bits [s, s+R) of the 8 registers. S0: s = 0
 * (compile-time twiddles, 1s skipped). u = rest mod 2^s. */
template <bool DIT, int R, bool S0>
static __device__ __forceinline__ void rb_round(fr_t (&x)[8], unsigned s, unsigned b, uint32_t u,
                                                const uint4 *w0, const uint4 *w1) {
#pragma unroll
    for (int i = 0; i < R; i++) {
        const int lb = DIT ? i : R - 1 - i;
        const unsigned tb = s + lb;
#pragma unroll
        for (int j0 = 0; j0 < 8; j0++) {
            if (j0 & (1 << lb)) continue;
            const int j1 = j0 | (1 << lb);
            const uint32_t v = (uint32_t)(j0 & ((1 << lb) - 1));
            const bool triv = S0 && v == 0;
            fr_t w;
            if (!triv) w = lds_fr(w0, w1, (S0 ? v : u + (v << s)) << (b - 1 - tb));
            if (DIT) {
                const fr_t y = triv ? x[j1] : mul_ool(x[j1], w);
                x[j1] = fr_t::sub(x[j0], y);
                x[j0] = fr_t::add(x[j0], y);
            } else {
                const fr_t d = fr_t::sub(x[j0], x[j1]);
                x[j0] = fr_t::add(x[j0], x[j1]);
                x[j1] = triv ? d : mul_ool(d, w);
            }
        }
    }
}

template <bool DIT>
static __device__ __forceinline__ void rb_round_s0(fr_t (&x)[8], unsigned r0, unsigned b,
                                                   const uint4 *w0, const uint4 *w1) {
    if (r0 == 3)
        rb_round<DIT, 3, true>(x, 0, b, 0, w0, w1);
    else if (r0 == 2)
        rb_round<DIT, 2, true>(x, 0, b, 0, w0, w1);
    else
        rb_round<DIT, 1, true>(x, 0, b, 0, w0, w1);
}

/* Registers from the round at sf to the round at st through shared memory. */
static __device__ __forceinline__ void rb_exchange(fr_t (&x)[8], uint4 *s0, uint4 *s1,
                                                   uint32_t rest, uint32_t c, unsigned g,
                                                   unsigned sf, unsigned st) {
    __syncthreads(); /* every read of the previous contents is done */
#pragma unroll
    for (int j = 0; j < 8; j++) sts_fr(s0, s1, rb_swz((rb_t(rest, sf, j) << g) | c), x[j]);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 8; j++) x[j] = lds_fr(s0, s1, rb_swz((rb_t(rest, st, j) << g) | c));
}

/* Launch: 2^(b+g-3) <= 256 threads, b >= 3, g <= lo when lo > 0, b + g <= k;
 * dynamic shared
 * memory (2 * 2^(b+g) + 2 * 2^(b-1)) * 16 bytes (tile planes, root planes). */
template <bool DIT> __global__ void __launch_bounds__(256, 2) k_ntt_rb(ntt_pass_args a) {
    extern __shared__ uint4 sm[];
    const unsigned b = a.b, g = a.g, lo = a.lo;
    const uint32_t T = 1u << (b + g - 3), tile = 1u << (b + g);
    uint4 *s0 = sm, *s1 = sm + tile;
    uint4 *w0 = sm + 2 * tile, *w1 = w0 + (1u << (b - 1));
    const uint32_t gmask = (1u << g) - 1;
    const uint32_t blk = blockIdx.x;
    /* lo > 0: element (t, c) at base | t << lo | c (c: low index bits);
     * lo = 0: the block's 2^g transforms are consecutive, (t, c) at
     * base | c << b | t. rb_idx below. */
    const uint32_t base =
        lo ? ((blk >> (lo - g)) << (lo + b)) | ((blk & ((1u << (lo - g)) - 1)) << g)
           : blk << (b + g);
    const uint32_t q = threadIdx.x, c = q & gmask, rest = q >> g;
    const unsigned r0 = a.r0;
#define rb_idx(t) (lo ? (base | ((t) << lo) | c) : (base | (c << b) | (t)))
    const unsigned sfirst = DIT ? 0 : b - 3, slast = DIT ? b - 3 : 0;

    for (uint32_t j = q; j < (1u << (b - 1)); j += T)
        sts_fr(w0, w1, j, ldg_fr(a.wroot + (j << (a.root_bits - b)))); /* omega_{2^b}^j */

    fr_t x[8];
    if (lo == 0 && DIT) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const uint32_t e = q + i * T; /* (t, c) = (e mod 2^b, e >> b) */
            sts_fr(s0, s1, rb_swz(((e & ((1u << b) - 1)) << g) | (e >> b)),
                   ld_fr(a.data + (base | e)));
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 8; j++) x[j] = lds_fr(s0, s1, rb_swz((rb_t(rest, sfirst, j) << g) | c));
    } else {
#pragma unroll
        for (int j = 0; j < 8; j++) x[j] = ld_fr(a.data + rb_idx(rb_t(rest, sfirst, j)));
    }
    __syncthreads(); /* roots visible; staging reads done before the first exchange */

    if (a.edge == 1) rb_scale(x, [&](int j) { return rb_edge(a, rb_idx(rb_t(rest, sfirst, j))); });

    if (DIT) {
        rb_round_s0<true>(x, r0, b, w0, w1);
        unsigned sp = 0;
        for (unsigned s = r0; s < b; s += 3) {
            rb_exchange(x, s0, s1, rest, c, g, sp, s);
            rb_round<true, 3, false>(x, s, b, rest & ((1u << s) - 1), w0, w1);
            sp = s;
        }
    } else {
        int sp = -1;
        for (int s = (int)b - 3; s >= (int)r0; s -= 3) {
            if (sp >= 0) rb_exchange(x, s0, s1, rest, c, g, (unsigned)sp, (unsigned)s);
            rb_round<false, 3, false>(x, (unsigned)s, b, rest & ((1u << s) - 1), w0, w1);
            sp = s;
        }
        if (sp >= 0) rb_exchange(x, s0, s1, rest, c, g, (unsigned)sp, 0);
        rb_round_s0<false>(x, r0, b, w0, w1);
    }

    /* four-step twiddles at the store: DIF this pass's, DIT the next's */
    const unsigned flo = DIT ? lo + b : lo, fb = DIT ? a.nb : b;
    const bool four = DIT ? a.nb > 0 : lo > 0;
    if (four)
        rb_scale(x, [&](int j) { return rb_four_step(a, rb_idx(rb_t(rest, slast, j)), flo, fb); });
    if (a.post) rb_scale(x, [&](int) { return a.scale; });
    if (a.edge == 2) rb_scale(x, [&](int j) { return rb_edge(a, rb_idx(rb_t(rest, slast, j))); });

    if (lo == 0 && !DIT) {
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 8; j++) sts_fr(s0, s1, rb_swz((rb_t(rest, slast, j) << g) | c), x[j]);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const uint32_t e = q + i * T;
            st_fr(a.data + (base | e),
                  lds_fr(s0, s1, rb_swz(((e & ((1u << b) - 1)) << g) | (e >> b))));
        }
    } else {
#pragma unroll
        for (int j = 0; j < 8; j++) st_fr(a.data + rb_idx(rb_t(rest, slast, j)), x[j]);
    }
#undef rb_idx
}

/* One pass = a size-2^b NTT along the tile's t bits for each of its 2^g
 * columns, with the roots omega_{2^b}^j (a table of 2^(b-1) entries in
 * shared memory, the same for every block), plus the "four-step" twiddle
 * omega_{2^(lo+b)}^(low * rev_b(t)) on element (t, low): DIF applies it
 * after its stages (at the store), DIT, the transposed algorithm, before
 * them (at the load). low = 0 in the pass on the lowest bits, so that pass
 * needs none. This keeps the per-butterfly twiddles block-independent and
 * cached, at the price of one multiplication per element per pass
 * boundary. */
template <bool DIT> __global__ void __launch_bounds__(512) k_ntt_pass(ntt_pass_args a) {
    __shared__ fr_t s[1 << NTT_TILE_LOG];
    __shared__ fr_t roots[1 << (NTT_TILE_LOG - 1)];
    const unsigned b = a.b, g = a.g, lo = a.lo;
    const unsigned tile = 1u << (b + g);
    const uint32_t gmask = (1u << g) - 1;
    const uint32_t blk = blockIdx.x;
    const uint32_t lb = blk & ((1u << (lo - g)) - 1);
    const uint32_t hb = blk >> (lo - g);
    const uint32_t base = (hb << (lo + b)) | (lb << g);
    const uint32_t lomask = (1u << lo) - 1;

    for (uint32_t j = threadIdx.x; j < (1u << (b - 1)); j += blockDim.x)
        roots[j] = ldg_fr(a.wroot + (j << (a.root_bits - b))); /* omega_{2^b}^j */
    for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
        uint32_t t = e >> g;
        uint32_t idx = base | (t << lo) | (e & gmask);
        fr_t x = a.data[idx];
        if (a.pre == 1)
            x = fr_t::mul(x, pow_lookup(a.plo, a.phi, a.plo_bits, idx));
        else if (a.pre == 2)
            x = fr_t::mul(x, pow_lookup(a.plo, a.phi, a.plo_bits, rev_bits(idx, a.k)));
        if (DIT && lo > 0) x = fr_t::mul(x, inter_twiddle(a, lo, b, idx & lomask, rev_bits(t, b)));
        s[e] = x;
    }
    __syncthreads();

    const uint32_t l = threadIdx.x & gmask;
    const uint32_t q = threadIdx.x >> g;
    for (unsigned j = 0; j < b; j++) {
        const unsigned tb = DIT ? j : b - 1 - j;
        const uint32_t t0 = ((q >> tb) << (tb + 1)) | (q & ((1u << tb) - 1));
        const uint32_t t1 = t0 | (1u << tb);
        /* omega_{2^(tb+1)}^(t0 mod 2^tb) = omega_{2^b}^((t0 mod 2^tb) 2^(b-1-tb)) */
        const fr_t w = roots[(t0 & ((1u << tb) - 1)) << (b - 1 - tb)];
        fr_t x = s[(t0 << g) | l], y = s[(t1 << g) | l];
        if (DIT) {
            if (tb > 0) y = fr_t::mul(y, w); /* stage tb = 0: every twiddle is 1 */
            s[(t0 << g) | l] = fr_t::add(x, y);
            s[(t1 << g) | l] = fr_t::sub(x, y);
        } else {
            s[(t0 << g) | l] = fr_t::add(x, y);
            s[(t1 << g) | l] = tb > 0 ? fr_t::mul(fr_t::sub(x, y), w) : fr_t::sub(x, y);
        }
        __syncthreads();
    }

    for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
        uint32_t t = e >> g;
        uint32_t idx = base | (t << lo) | (e & gmask);
        fr_t x = s[e];
        if (!DIT && lo > 0) x = fr_t::mul(x, inter_twiddle(a, lo, b, idx & lomask, rev_bits(t, b)));
        if (a.post == 1)
            x = fr_t::mul(x, a.scale);
        else if (a.post == 2)
            x = fr_t::mul(x, pow_lookup(a.plo, a.phi, a.plo_bits, idx));
        else if (a.post == 3)
            x = fr_t::mul(x, pow_lookup(a.plo, a.phi, a.plo_bits, rev_bits(idx, a.k)));
        a.data[idx] = x;
    }
}

__global__ void k_bit_reverse(fr_t *d, unsigned k, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t j = rev_bits(i, k);
    if (i < j) {
        fr_t t = d[i];
        d[i] = d[j];
        d[j] = t;
    }
}

/* Bit reversal for k >= 8 by 16 x 16 tiles: index = (a, mid, b) with 4-bit a
 * and b maps to (rev4 b, rev_{k-8} mid, rev4 a), so the tile of mid and the
 * tile of rev(mid) swap, transposed; one block per pair (mid <= rev(mid)),
 * rows of 16 consecutive elements (512 B) read and written whole, as 16-byte
 * vectors. Shared slot of (row, col): row 16 + (col ^ f(row)), f(row) =
 * (row ^ row >> 3) & 7, so the row-wise writes and the transposed reads
 * (rows rev4(b) for 8 consecutive b) both hit 8 distinct bank groups. */
static __device__ __forceinline__ uint32_t br_slot(uint32_t row, uint32_t col) {
    return row * 16 + (col ^ ((row ^ (row >> 3)) & 7));
}
/* With etab: each element also multiplied by its edge factor (of its
 * position before the permutation; see "k_ntt_rb tables"). */
__global__ void __launch_bounds__(256)
    k_bit_reverse_tiles(fr_t *d, unsigned k, const fr_t *etab, unsigned esh, unsigned ekeep) {
    __shared__ uint4 A0[256], A1[256], B0[256], B1[256];
    const uint32_t mid = blockIdx.x, rmid = rev_bits(mid, k - 8);
    if (mid > rmid) return;
    const uint32_t a = threadIdx.x >> 4, b = threadIdx.x & 15;
    const uint32_t ia = (a << (k - 4)) | (mid << 4) | b, ib = (a << (k - 4)) | (rmid << 4) | b;
    fr_t va = ld_fr(d + ia), vb;
    if (mid != rmid) vb = ld_fr(d + ib);
    if (etab) {
        va = fr_t::mul(va, edge_factor(etab, esh, ekeep, ia));
        if (mid != rmid) vb = fr_t::mul(vb, edge_factor(etab, esh, ekeep, ib));
    }
    sts_fr(A0, A1, br_slot(a, b), va);
    if (mid != rmid) sts_fr(B0, B1, br_slot(a, b), vb);
    __syncthreads();
    const uint32_t src = br_slot(rev_bits(b, 4), rev_bits(a, 4));
    st_fr(d + ib, lds_fr(A0, A1, src));
    if (mid != rmid) st_fr(d + ia, lds_fr(B0, B1, src));
}

/* ---- k_ntt_rb tables ----
 *
 * With >= 2 passes, call L the pass on the lowest index bits [0, bL) (DIT:
 * the first, DIF: the last) and M the one next to it, bits [bL, bL + bM).
 * M's four-step twiddles come from a table indexed by the element's low
 * bL + bM index bits (2^18 entries at 2^27, L2-resident) instead of being
 * formed from the two-level twiddles, and other factors ride on them:
 *   - plain inverse: 1/n (every element gets exactly one M twiddle);
 *   - coset: the factor of one bit group. The coset factor of position p is
 *     g^(+-x(p)) (/ n for the inverse), x(p) = rev_k(p) or p, and x is a sum
 *     over bit groups, so the factor is a product of one factor per pass's
 *     bit group. A pass only mixes elements that differ in its own bits, so
 *     a group's factor may be applied anywhere before the pass on its bits
 *     (forward: on the input) or anywhere after it (inverse: on the output).
 *     M's table (indexed by the bits of groups L and M) can carry group M's
 *     factor when the edge pass (the first pass for the forward transform,
 *     the last for the inverse) is L, else group L's. The edge pass applies
 *     the factors of every other group from etab, indexed by the position's
 *     bits outside the merged group (2^(k - 9) entries at 2^27): one product
 *     per element for the coset instead of two plus two table loads.
 * Whether the edge pass is L and whether x(p) = rev_k(p) is the same
 * condition: DIT forward (bit-reversed input) and DIF inverse (bit-reversed
 * output). */

/* M's table: entry q = (t, low), t = q >> bl, low = q mod 2^bl: the
 * four-step twiddle omega^((low rev_bm(t)) 2^(k-bl-bm)) (tw: the
 * direction's twiddles; its k, wlo, whi, wbits), times s, times (fgrp 1:
 * x = t << bl, 2: x = low) the coset factor pow_lookup(x(p)) with x(p) =
 * rev_k(p) if rev else p. */
__global__ void k_rb_mtab(fr_t *out, ntt_pass_args tw, unsigned bl, unsigned bm, const fr_t *plo,
                          const fr_t *phi, unsigned pbits, int fgrp, int rev, fr_t s) {
    const unsigned k = tw.k;
    const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >> (bl + bm)) return;
    const uint32_t low = q & ((1u << bl) - 1), t = q >> bl;
    fr_t v = fr_t::mul(inter_twiddle(tw, bl, bm, low, rev_bits(t, bm)), s);
    if (fgrp) {
        const uint32_t p = fgrp == 1 ? t << bl : low;
        v = fr_t::mul(v, pow_lookup(plo, phi, pbits, rev ? rev_bits(p, k) : p));
    }
    out[q] = v;
}

/* The edge table: entry r < count stands for position p = (r >> keep) <<
 * sh | r mod 2^keep; value pow_lookup(x(p)). */
__global__ void k_rb_etab(fr_t *out, uint32_t count, unsigned k, unsigned sh, unsigned keep,
                          const fr_t *plo, const fr_t *phi, unsigned pbits, int rev) {
    const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= count) return;
    const uint32_t p = ((r >> keep) << sh) | (r & ((1u << keep) - 1));
    out[r] = pow_lookup(plo, phi, pbits, rev ? rev_bits(p, k) : p);
}

/* Environment knobs (read once), for measurements:
 *   CZ_GPU_NTT_OLD=1      one-butterfly-per-thread passes (k_ntt_pass) only
 *   CZ_GPU_NTT_G=g        columns 2^g of the register-blocked passes with lo > 0
 *                         (default 1: 64-byte runs, 128 threads; measured
 *                         faster than 2 at 2^27)
 *   CZ_GPU_NTT_G0=g       transforms per block, 2^g, in the pass with lo = 0
 *                         (default 1: measured faster than 2 at 2^27)
 *   CZ_GPU_NTT_NN=0       NN as a bit reversal then DIT (RN) (default: DIF
 *                         (NR) then a bit reversal)
 *   CZ_GPU_NTT_FUSE=0     NN coset inverse by DIF: the output factors at the
 *                         last pass's stores (default: in the bit reversal)
 *   CZ_GPU_NTT_PROFILE=1  time every kernel (events) and print to stderr
 *   CZ_GPU_NTT_MAXB=b     register-blocked passes of at most b stages (4..9,
 *                         default 9; at most 4 passes), for tests: 5 gives
 *                         2^20 the 4-pass layout that 2^28 takes
 *   CZ_GPU_NTT_MTAB=0     plain transforms: pass M's twiddles from the two
 *                         levels like the others' and, for the inverse, 1/n as one
 *                         more product per element in the last pass (default
 *                         1: from mtab, 1/n folded in; the coset transforms
 *                         always use mtab)
 */
struct ntt_knobs {
    int old, profile, mtab, nn_dif, fuse;
    unsigned g, g0, maxb;
};
static ntt_knobs ntt_knobs_get() {
    const cz_gpu_settings *k = cz_gpu_settings_get();
    ntt_knobs r;
    r.old = k->ntt_old;
    r.profile = k->ntt_profile;
    r.nn_dif = k->ntt_nn_dif;
    r.fuse = k->ntt_fuse;
    r.mtab = k->ntt_mtab;
    r.g = k->ntt_g;
    r.g0 = k->ntt_g0;
    r.maxb = k->ntt_maxb;
    return r;
}

/* Fills d->mtab and d->etab from p (their elements as counted by
 * cz_gpu_ntt_table_elems); needs the twiddle and coset power tables.
 * Launches only. */
static void rb_tables_fill(cz_gpu_ntt *d, fr_t *p) {
    const unsigned k = d->k;
    cz_fr one_h, n_h;
    cz_fr_from_u64(&one_h, 1);
    cz_fr_from_u64(&n_h, d->n);
    const fr_t one = *(const fr_t *)&one_h, n = *(const fr_t *)&n_h;
    for (int dit = 0; dit < 2 && k >= 3; dit++)
        for (int inv = 0; inv < 2; inv++) {
            const cz_gpu_ntt_layout l = cz_gpu_ntt_layout_get(k, dit, inv);
            const fr_t *plo = d->gpow_lo[inv], *phi = d->gpow_hi[inv];
            for (int coset = 0; coset < 2 && l.msize; coset++) {
                /* plain inverse: 1/n here; coset inverse: the power tables
                 * carry 1/n (gpow_hi[1]), which belongs to the edge only */
                const fr_t s = inv ? (coset ? n : d->size_inv) : one;
                ntt_pass_args tw;
                memset(&tw, 0, sizeof tw);
                tw.k = k, tw.wlo = d->wlo[inv], tw.whi = d->whi[inv], tw.wbits = d->wbits;
                d->mtab[dit][inv][coset] = p;
                k_rb_mtab<<<cz_gpu_blocks(l.msize, 256), 256>>>(
                    p, tw, l.bl, l.bm, plo, phi, d->lo_bits, coset ? (l.edge_l ? 1 : 2) : 0, l.rev,
                    s);
                p += l.msize;
            }
            d->etab[dit][inv] = p;
            k_rb_etab<<<cz_gpu_blocks(l.esize, 256), 256>>>(p, (uint32_t)l.esize, k, l.esh, l.ekeep,
                                                            plo, phi, d->lo_bits, l.rev);
            p += l.esize;
        }
}

/* Host: base^i for i < count. */
static void host_powers(cz_fr *out, const cz_fr *base, size_t count) {
    if (!count) return;
    out[0] = cz_fr_one;
    for (size_t i = 1; i < count; i++) cz_fr_mul(&out[i], &out[i - 1], base);
}

extern "C" void cz_gpu_ntt_destroy(cz_gpu_ntt *d) {
    if (!d) return;
    cudaFree(d->mem);
    free(d);
}

extern "C" cz_status cz_gpu_ntt_create(cz_gpu_ntt **out, unsigned log_size, cz_error *err) {
    *out = NULL;
    if (log_size > 28)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu ntt: log size %u > 28", log_size);
    cz_ntt_domain dom;
    cz_status st = cz_ntt_domain_init(&dom, log_size, err);
    if (st != CZ_OK) return st;
    cz_gpu_ntt *d = (cz_gpu_ntt *)calloc(1, sizeof *d);
    if (!d) {
        cz_ntt_domain_free(&dom);
        return cz_error_set(err, CZ_E_NOMEM, "gpu ntt: out of host memory");
    }
    d->k = log_size;
    d->n = (size_t)1 << log_size;
    /* two-level tables (ntt_layout.h): the coset powers g^±e at lo_bits,
     * the twiddles omega^±e at wbits */
    d->lo_bits = cz_gpu_ntt_coset_bits(log_size);
    d->wbits = cz_gpu_ntt_twiddle_bits(log_size);
    const size_t plo = (size_t)1 << d->lo_bits, phi = d->n >> d->lo_bits;
    const size_t tlo = (size_t)1 << d->wbits, thi = d->n >> d->wbits;
    d->root_bits = cz_gpu_ntt_root_bits(log_size);
    const size_t nroot = cz_gpu_ntt_root_elems(log_size);
    const size_t small = 2 * (plo + phi) + 2 * (tlo + thi) + 2 * nroot; /* built on the host */
    const size_t elems = cz_gpu_ntt_table_elems(log_size);
    cz_fr *host = (cz_fr *)malloc(small * sizeof(cz_fr));
    fr_t *dm = NULL;
    cudaError_t ce = cudaMalloc(&dm, elems * sizeof(fr_t));
    if (!host || ce != cudaSuccess) {
        (void)cudaGetLastError();
        free(host);
        free(d);
        cz_ntt_domain_free(&dom);
        return cz_error_set(err, ce != cudaSuccess ? cz_gpu_cuda_status(ce) : CZ_E_NOMEM,
                            "gpu ntt: cannot allocate tables for 2^%u (%s)", log_size,
                            ce != cudaSuccess ? cudaGetErrorString(ce) : "host");
    }
    d->mem = dm;
    fr_t *p = dm;
    cz_fr *h = host;
    /* coset power tables: g^e, g^-e (lo); g^(e 2^lo), g^-(e 2^lo) / n (hi) */
    const cz_fr *gens[2] = {&dom.gen, &dom.gen_inv};
    for (int dir = 0; dir < 2; dir++) {
        cz_fr step;
        host_powers(h, gens[dir], plo);
        cz_fr_mul(&step, &h[plo - 1], gens[dir]); /* g^(2^lo_bits) */
        host_powers(h + plo, &step, phi);
        if (dir == 1)
            for (size_t i = 0; i < phi; i++) cz_fr_mul(&h[plo + i], &h[plo + i], &dom.size_inv);
        d->gpow_lo[dir] = p;
        d->gpow_hi[dir] = p + plo;
        p += plo + phi;
        h += plo + phi;
    }
    /* twiddles: omega^±e (lo), omega^±(e 2^wbits) (hi) */
    const cz_fr *roots[2] = {&dom.omega, &dom.omega_inv};
    for (int dir = 0; dir < 2; dir++) {
        cz_fr step;
        host_powers(h, roots[dir], tlo);
        cz_fr_mul(&step, &h[tlo - 1], roots[dir]); /* omega^(2^wbits) */
        host_powers(h + tlo, &step, thi);
        d->wlo[dir] = p;
        d->whi[dir] = p + tlo;
        p += tlo + thi;
        h += tlo + thi;
    }
    /* the butterflies' roots: (omega^(2^(k - R)))^j, omega_{2^R} = omega^(2^(k - R)) */
    for (int dir = 0; dir < 2; dir++) {
        cz_fr base = *roots[dir];
        for (unsigned i = d->root_bits; i < log_size; i++) cz_fr_sqr(&base, &base);
        host_powers(h, &base, nroot);
        d->wroot[dir] = p;
        p += nroot;
        h += nroot;
    }
    memcpy(&d->size_inv, &dom.size_inv, sizeof(cz_fr));
    memcpy(&d->zinv, &dom.coset_vanishing_inv, sizeof(cz_fr));
    st = CZ_OK;
    CZ_CUDA_GOTO(err, st, fail,
                 cudaMemcpy(dm, host, small * sizeof(cz_fr), cudaMemcpyHostToDevice));
    rb_tables_fill(d, p); /* p: past the tables above; the rest of elems */
    CZ_CUDA_GOTO(err, st, fail, cudaGetLastError());
    CZ_CUDA_GOTO(err, st, fail, cudaStreamSynchronize(0));
    free(host);
    cz_ntt_domain_free(&dom);
    *out = d;
    return CZ_OK;
fail:
    free(host);
    cz_ntt_domain_free(&dom);
    cz_gpu_ntt_destroy(d);
    return st;
}

/* Kernel timer for CZ_GPU_NTT_PROFILE (no-op otherwise; errors ignored: it
 * only prints). */
struct ntt_timer {
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    bool on;
    explicit ntt_timer(bool enable) : on(enable) {
        if (!on) return;
        if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
            (void)cudaGetLastError();
            on = false;
            return;
        }
        cudaEventRecord(e0);
    }
    void done(const char *what, unsigned i, unsigned b, unsigned lo) {
        if (!on) return;
        float ms = 0;
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        cz_log(CZ_LOG_INFO, "ntt profile: %s %u (b %u lo %u) %.3f ms", what, i, b, lo, ms);
    }
    ~ntt_timer() {
        if (e0) cudaEventDestroy(e0);
        if (e1) cudaEventDestroy(e1);
    }
};

/* The bit-reversal permutation; with etab (k >= 8, 16-byte aligned data
 * only) fused with the edge factors. */
static bool ntt_bit_reverse_tiled(const cz_gpu_ntt *d, const fr_t *data) {
    return d->k >= 8 && !((uintptr_t)data & 15);
}
static cz_status ntt_bit_reverse(cz_gpu_ntt *d, fr_t *data, const ntt_knobs &kn, const fr_t *etab,
                                 unsigned esh, unsigned ekeep, cz_error *err) {
    ntt_timer tm(kn.profile);
    const unsigned k = d->k;
    if (ntt_bit_reverse_tiled(d, data))
        k_bit_reverse_tiles<<<1u << (k - 8), 256>>>(data, k, etab, esh, ekeep);
    else
        k_bit_reverse<<<cz_gpu_blocks(d->n, 256), 256>>>(data, k, (uint32_t)d->n);
    CZ_CUDA_LAUNCHED(err);
    tm.done("bitrev", 0, k, 0);
    return CZ_OK;
}

extern "C" cz_status cz_gpu_ntt_transform(cz_gpu_ntt *d, cz_fr *dev_data, cz_ntt_order order,
                                          cz_ntt_direction direction, cz_ntt_kind kind,
                                          cz_error *err) {
    if (order != CZ_NTT_NN && order != CZ_NTT_NR && order != CZ_NTT_RN)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu ntt: bad order %d", (int)order);
    if (direction != CZ_NTT_FORWARD && direction != CZ_NTT_INVERSE)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu ntt: bad direction %d", (int)direction);
    if (kind != CZ_NTT_PLAIN && kind != CZ_NTT_COSET)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu ntt: bad kind %d", (int)kind);
    const unsigned k = d->k;
    if (k == 0) return CZ_OK; /* one element: every transform is the identity */
    fr_t *data = (fr_t *)dev_data;
    const int inv = direction == CZ_NTT_INVERSE;
    const int coset = kind == CZ_NTT_COSET;
    const ntt_knobs &kn = ntt_knobs_get();
    /* NN: DIF (NR), then a bit reversal; or (CZ_GPU_NTT_NN=0) a bit
     * reversal, then DIT (RN) */
    const bool nn_dif = order == CZ_NTT_NN && kn.nn_dif;
    if (order == CZ_NTT_NN && !nn_dif) {
        cz_status st = ntt_bit_reverse(d, data, kn, NULL, 0, 0, err);
        if (st != CZ_OK) return st;
    }
    const bool dit = order != CZ_NTT_NR && !nn_dif; /* bit-reversed input now */

    /* register-blocked passes of <= 9 stages (k >= 3, 32-byte aligned data),
     * else the one-butterfly-per-thread passes of <= 10 */
    const bool rb = k >= 3 && !((uintptr_t)data & 31) && !kn.old;
    /* k_ntt_rb's shared memory on this device: a block may take up to
     * smem_optin (64 KiB on sm_75, 99 KiB on sm_86/89/120, 227 KiB on
     * sm_90), and a pass keeps two blocks per SM when it can (smem_sm). */
    int smem_optin = 0, smem_sm = 0, device = 0;
    if (rb) {
        CZ_CUDA_TRY(err, cudaGetDevice(&device));
        CZ_CUDA_TRY(err, cudaDeviceGetAttribute(&smem_optin,
                                                cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        CZ_CUDA_TRY(err, cudaDeviceGetAttribute(
                             &smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    }
    unsigned npass, bs[4];
    if (rb) {
        npass = cz_gpu_ntt_split(k, bs);
    } else {
        npass = (k + NTT_TILE_LOG - 1) / NTT_TILE_LOG;
        for (unsigned i = 0; i < npass; i++) bs[i] = k / npass + (i < k % npass);
    }
    /* k_ntt_rb: pass M (next to the pass on the lowest bits) takes its
     * twiddles, 1/n or a coset factor from mtab, the edge pass (first
     * forward, last inverse) the other coset factors from etab ("k_ntt_rb
     * tables"); without mtab, 1/n is a product in the last pass */
    const cz_gpu_ntt_layout lay = cz_gpu_ntt_layout_get(k, dit, inv);
    const fr_t *mtab = rb && (coset || kn.mtab) ? d->mtab[dit][inv][coset] : NULL;
    /* the pass that applies M's twiddles: DIF M itself (pass npass - 2, at
     * its stores), DIT the pass before M (pass 0: k_ntt_rb applies a DIT
     * pass's four-step twiddles at the previous pass's stores) */
    const int mtab_pass = lay.npass >= 2 ? (dit ? 0 : (int)lay.npass - 2) : -1;
    /* NN by DIF: the coset inverse's edge factors ride on the bit reversal
     * (CZ_GPU_NTT_FUSE=0: at the last pass's stores) */
    const bool fuse_edge =
        rb && nn_dif && coset && inv && kn.fuse && ntt_bit_reverse_tiled(d, data);

    ntt_pass_args a;
    memset(&a, 0, sizeof a);
    a.data = data;
    a.wlo = d->wlo[inv];
    a.whi = d->whi[inv];
    a.wbits = d->wbits;
    a.wroot = d->wroot[inv];
    a.root_bits = d->root_bits;
    a.k = k;
    a.plo_bits = d->lo_bits;
    a.scale = *(const fr_t *)&d->size_inv;
    unsigned done = 0; /* stages done; DIF from the top bit down, DIT from the bottom up */
    for (unsigned i = 0; i < npass; i++) {
        a.b = bs[i];
        a.lo = dit ? done : k - done - a.b;
        a.pre = 0;
        a.post = 0;
        a.plo = a.phi = NULL;
        a.mtab = a.etab = NULL;
        a.edge = 0;
        const bool first = i == 0, last = i == npass - 1;
        if (rb) {
            if ((int)i == mtab_pass) a.mtab = mtab;
            a.nb = dit && !last ? bs[i + 1] : 0;
            if (coset && (inv ? last : first) && !(fuse_edge && last)) {
                a.edge = inv ? 2 : 1;
                a.etab = d->etab[dit][inv];
                a.esh = lay.esh;
                a.ekeep = lay.ekeep;
            }
            if (inv && !coset && last && !mtab) a.post = 1;
        } else {
            if (first && coset && !inv) {
                a.pre = dit ? 2 : 1;
                a.plo = d->gpow_lo[0];
                a.phi = d->gpow_hi[0];
            }
            if (last && inv) {
                a.post = coset ? (dit ? 2 : 3) : 1;
                if (coset) {
                    a.plo = d->gpow_lo[1];
                    a.phi = d->gpow_hi[1];
                }
            }
            /* pre and post only meet when npass == 1, and then never
             * together (pre is forward-only, post inverse-only), so one
             * table pair suffices */
        }
        ntt_timer tm(kn.profile);
        if (rb) {
            /* columns: 2^g consecutive elements per run, <= 256 threads */
            unsigned g = a.lo ? kn.g : kn.g0;
            if (a.lo && g > a.lo) g = a.lo;
            if (!a.lo && g > k - a.b) g = k - a.b; /* at least one block */
            if (a.b + g > 11) g = 11 - a.b;
            /* two planes of 2^(b+g) elements and 2^b twiddles, 16 B each
             * (per element half); fewer columns where that does not fit
             * two blocks per SM (sm_75/86/89/120: b + g = 10 or 9) */
            auto rb_smem = [&](unsigned gg) {
                return ((size_t)2 << (a.b + gg)) * 16 + ((size_t)2 << (a.b - 1)) * 16;
            };
            while (g > 0 &&
                   (rb_smem(g) > (size_t)smem_optin || 2 * (rb_smem(g) + 1024) > (size_t)smem_sm))
                g--;
            a.g = g;
            a.r0 = a.b - 3 * ((a.b + 2) / 3 - 1);
            const unsigned threads = 1u << (a.b + g - 3);
            const unsigned blocks = (unsigned)(d->n >> (a.b + g));
            const size_t smem = rb_smem(g);
            void (*kern)(ntt_pass_args) = dit ? k_ntt_rb<true> : k_ntt_rb<false>;
            /* The attribute is per kernel and device, shared by every thread
             * of the process: set it to the bound of every launch on this
             * device (b + g <= 11, b <= 11, at most the opt-in limit), never
             * to this launch's size, or a thread of another back-end context
             * could lower it between our set and launch. */
            size_t smem_bound = ((size_t)2 << 11) * 16 + ((size_t)2 << 10) * 16;
            if (smem_bound > (size_t)smem_optin) smem_bound = (size_t)smem_optin;
            if (smem > smem_bound || a.b > 11)
                return cz_error_set(err, CZ_E_INTERNAL,
                                    "gpu ntt: pass of %u bits needs %zu B of shared memory, the "
                                    "device allows %d",
                                    a.b, smem, smem_optin);
            CZ_CUDA_TRY(err, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  (int)smem_bound));
            kern<<<blocks, threads, smem>>>(a);
        } else {
            a.g = a.lo < NTT_TILE_LOG - a.b ? a.lo : NTT_TILE_LOG - a.b;
            unsigned threads = 1u << (a.b + a.g - 1);
            unsigned blocks = (unsigned)(d->n >> (a.b + a.g));
            if (dit)
                k_ntt_pass<true><<<blocks, threads>>>(a);
            else
                k_ntt_pass<false><<<blocks, threads>>>(a);
        }
        CZ_CUDA_LAUNCHED(err);
        tm.done("pass", i, a.b, a.lo);
        done += a.b;
    }
    if (nn_dif) {
        cz_status st = ntt_bit_reverse(d, data, kn, fuse_edge ? d->etab[dit][inv] : NULL, lay.esh,
                                       lay.ekeep, err);
        if (st != CZ_OK) return st;
    }
    CZ_CUDA_TRY(err, cudaStreamSynchronize(0));
    return CZ_OK;
}

/* a = (a b - c) / Z, or without b (the lean H chain: a holds a b already)
 * a = (a - c) / Z, or without c and Z (its first half) a = a b. */
__global__ void k_quotient(fr_t *a, const fr_t *b, const fr_t *c, fr_t zinv, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const fr_t ab = b ? fr_t::mul(a[i], b[i]) : a[i];
    a[i] = c ? fr_t::mul(fr_t::sub(ab, c[i]), zinv) : ab;
}

static cz_status quotient(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b, const cz_fr *dev_c,
                          cz_error *err) {
    k_quotient<<<cz_gpu_blocks(d->n, 256), 256>>>((fr_t *)dev_a, (const fr_t *)dev_b,
                                                  (const fr_t *)dev_c, d->zinv, (uint32_t)d->n);
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaStreamSynchronize(0));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_ntt_coset_quotient(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b,
                                               const cz_fr *dev_c, cz_error *err) {
    if (!dev_c) return cz_error_set(err, CZ_E_INVALID_ARG, "gpu ntt: the coset quotient needs c");
    return quotient(d, dev_a, dev_b, dev_c, err);
}

extern "C" cz_status cz_gpu_ntt_pointwise_mul(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b,
                                              cz_error *err) {
    if (!dev_b) return cz_error_set(err, CZ_E_INVALID_ARG, "gpu ntt: the product needs b");
    return quotient(d, dev_a, dev_b, NULL, err);
}
