/* The device NTT's pass layout and the size of the tables a domain keeps on
 * the device: plain C, shared by ntt.cu, which builds and uses them, and
 * plan.c, which counts their bytes in every build (no device needed). */
#ifndef CZ_GPU_NTT_LAYOUT_H
#define CZ_GPU_NTT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Widths of the register-blocked passes of a 2^k transform (k >= 3; at
 * most CZ_GPU_NTT_MAXB stages each, >= 3, at most 4 passes, as equal as
 * possible, wider first); returns the number of passes. DIT runs them in
 * this order from the lowest bits up, DIF from the highest bits down. */
unsigned cz_gpu_ntt_split(unsigned k, unsigned bs[4]);

/* Layout of the register-blocked passes' tables for one (dit, inverse)
 * (ntt.cu, "k_ntt_rb tables"): widths of the pass on the lowest bits (L)
 * and of the one next to it (M; bm = 0: one pass, no M), whether the coset
 * position is bit-reversed (rev), whether the edge pass is L (the same
 * condition with >= 2 passes), the edge table's index split and the sizes
 * of M's table and of the edge table, in elements. */
typedef struct {
    unsigned npass, bl, bm;
    bool rev, edge_l;
    unsigned esh, ekeep;
    size_t msize, esize;
} cz_gpu_ntt_layout;
cz_gpu_ntt_layout cz_gpu_ntt_layout_get(unsigned k, bool dit, bool inv);

/* Powers of a base b in two levels: b^e = lo[e mod 2^bits] hi[e >> bits].
 * The twiddles (omega^e, omega^-e for e < 2^k) split at k / 2, the coset
 * powers (g^e, g^-e) at (k + 1) / 2. */
static inline unsigned cz_gpu_ntt_twiddle_bits(unsigned k) {
    return k / 2;
}
static inline unsigned cz_gpu_ntt_coset_bits(unsigned k) {
    return (k + 1) / 2;
}
/* The butterflies' roots: omega_{2^R}^j for j < 2^(R-1) (one entry when
 * R = 0), R = min(k, 11), the widest pass; a pass of b stages reads entry
 * j 2^(R-b) for omega_{2^b}^j. */
static inline unsigned cz_gpu_ntt_root_bits(unsigned k) {
    return k < 11 ? k : 11;
}
static inline size_t cz_gpu_ntt_root_elems(unsigned k) {
    const unsigned r = cz_gpu_ntt_root_bits(k);
    return r ? (size_t)1 << (r - 1) : 1;
}

/* Field elements (32 bytes each) of every table a 2^k domain keeps on the
 * device: the two-level twiddle and coset power tables of both directions
 * and the register-blocked passes' tables (2^27: ~3.2 M, 98 MiB). */
size_t cz_gpu_ntt_table_elems(unsigned k);

#ifdef __cplusplus
}
#endif
#endif
