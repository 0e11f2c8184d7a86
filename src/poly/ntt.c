/* NTT over Fr: domain tables, the blocked radix-2 engine and the public
 * transforms. See ntt.h for the definitions and README.md for the layout.
 *
 * Engine. A transform of size 2^s on a contiguous array is either a leaf
 * (s <= leaf_log: radix-2 stage by stage, in cache) or split as
 * 2^s = n1 * n2 (n1 = 2^s1 rows of n2 = 2^s2 contiguous elements):
 *
 *   DIF (natural -> bit-reversed), with j = j1 n2 + j2, K = k1 + n1 k2:
 *     1. per column j2: DIF of size n1 over the rows (row p then holds k1 = rev(p)),
 *     2. multiply (row p, column j2) by w_2^s^(k1 j2),
 *     3. per row: DIF of size n2 (recursively).
 *   Row p, position q then holds X[k1 + n1 k2] with p = rev_s1(k1), q = rev_s2(k2),
 *   i.e. global position rev_s(K): exactly the in-place DIF output.
 *
 *   DIT (bit-reversed -> natural) is the mirror image: rows first (DIT of
 *   size n2), then the same twiddle w^(j1 k2) with j1 = rev(p), then column
 *   DITs of size n1. Its output lands at k1 n2 + k2 = K.
 *
 * Columns are processed in tiles of n1 x T elements copied into a per-worker
 * buffer, so the strided rows (power-of-two stride: cache-set conflicts) are
 * read and written once per level. The inter-level twiddles are running
 * products per row, started from the two-level power tables, so no table
 * grows with m beyond ~2 sqrt(m) entries. Each level is one pass over memory;
 * with the default blocking (leaves of 2^15, columns of up to 2^13) sizes up
 * to 2^28 take two levels. Every split costs two multiplications per element
 * (make and apply the twiddle) on top of the k/2 per element of the
 * butterflies.
 *
 * The scalings (1/m, g^i, g^-i / m) ride on passes that touch the data
 * anyway; see the comment above `engine`. */
#include "poly/ntt.h"

#include <stdlib.h>
#include <string.h>

#include "ff/fr_inline.h"
#include "util/parallel.h"

/* (x, y) <- (x + y, (x - y) w) */
static inline void bfly_dif(cz_fr *x, cz_fr *y, const cz_fr *w) {
    cz_fr d;
    cz_fr_sub_inline(&d, x, y);
    cz_fr_add_inline(x, x, y);
    cz_fr_mul_inline(y, &d, w);
}
/* (x, y) <- (x + y, x - y) */
static inline void bfly_plain(cz_fr *x, cz_fr *y) {
    cz_fr d;
    cz_fr_sub_inline(&d, x, y);
    cz_fr_add_inline(x, x, y);
    *y = d;
}
/* (x, y) <- (x + y w, x - y w) */
static inline void bfly_dit(cz_fr *x, cz_fr *y, const cz_fr *w) {
    cz_fr t;
    cz_fr_mul_inline(&t, y, w);
    cz_fr_sub_inline(y, x, &t);
    cz_fr_add_inline(x, x, &t);
}

/* ---- small helpers ---------------------------------------------------- */

static inline uint64_t rev_bits(uint64_t x, unsigned bits) {
    if (bits == 0) return 0;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = __builtin_bswap64(x);
    return x >> (64 - bits);
}

/* b^e for e < 2^k (k = the table's log size). */
static inline void pow_lookup(cz_fr *r, const cz_ntt_powers *p, uint64_t e) {
    cz_fr_mul_inline(r, &p->high[e >> p->low_bits], &p->low[e & ((1ULL << p->low_bits) - 1)]);
}

static void fill_geometric(cz_fr *out, size_t n, const cz_fr *ratio) {
    if (n == 0) return;
    out[0] = cz_fr_one;
    for (size_t i = 1; i < n; i++) cz_fr_mul_inline(&out[i], &out[i - 1], ratio);
}

/* ---- domain ------------------------------------------------------------ */

/* Default column transforms of up to 2^13 rows: with 2^15-element leaves,
 * two memory passes up to 2^28 and 1 MiB tiles of 2^13 x 4. */
#define COLUMN_LOG_DEFAULT 13

static size_t stage_entries(unsigned k) {
    unsigned leaf = k < CZ_NTT_LEAF_LOG_MAX ? k : CZ_NTT_LEAF_LOG_MAX;
    return (size_t)1 << leaf;
}
static unsigned low_bits_of(unsigned k) {
    return (k + 1) / 2;
}
static size_t power_entries(unsigned k) {
    return ((size_t)1 << low_bits_of(k)) + ((size_t)1 << (k - low_bits_of(k)));
}

size_t cz_ntt_domain_table_bytes(unsigned log_size) {
    if (log_size > CZ_NTT_MAX_LOG_SIZE) return 0;
    return (2 * stage_entries(log_size) + 4 * power_entries(log_size)) * sizeof(cz_fr);
}

static void build_powers(cz_ntt_powers *p, cz_fr *mem, unsigned k, const cz_fr *base) {
    unsigned lb = low_bits_of(k);
    size_t nlow = (size_t)1 << lb, nhigh = (size_t)1 << (k - lb);
    cz_fr step;
    fill_geometric(mem, nlow, base);
    cz_fr_mul_inline(&step, &mem[nlow - 1], base); /* base^(2^lb) */
    fill_geometric(mem + nlow, nhigh, &step);
    p->low = mem;
    p->high = mem + nlow;
    p->low_bits = lb;
}

/* tw[h + j] = w_2h^j for h = 1, 2, ..., n/2, where w_n = root. */
static void build_stage_twiddles(cz_fr *tw, size_t n, const cz_fr *root) {
    tw[0] = cz_fr_zero;
    if (n < 2) return;
    fill_geometric(tw + n / 2, n / 2, root);
    for (size_t h = n / 4; h >= 1; h /= 2)
        for (size_t j = 0; j < h; j++) tw[h + j] = tw[2 * h + 2 * j];
}

void cz_ntt_domain_free(cz_ntt_domain *d) {
    free(d->tables);
    memset(d, 0, sizeof *d);
}

cz_status cz_ntt_domain_init(cz_ntt_domain *d, unsigned log_size, cz_error *err) {
    memset(d, 0, sizeof *d);
    if (log_size > CZ_NTT_MAX_LOG_SIZE)
        return cz_error_set(err, CZ_E_INVALID_ARG, "ntt: domain 2^%u exceeds the 2-adicity 2^%u",
                            log_size, CZ_NTT_MAX_LOG_SIZE);
    unsigned k = log_size;
    d->log_size = k;
    d->size = (size_t)1 << k;

    cz_fr_root_of_unity(&d->omega);
    for (unsigned i = k; i < CZ_NTT_MAX_LOG_SIZE; i++) cz_fr_sqr(&d->omega, &d->omega);
    cz_fr_inv(&d->omega_inv, &d->omega);
    cz_fr_from_u64(&d->size_inv, (uint64_t)d->size);
    cz_fr_inv(&d->size_inv, &d->size_inv);
    cz_fr_generator(&d->gen);
    cz_fr_inv(&d->gen_inv, &d->gen);
    cz_fr gm = d->gen;
    for (unsigned i = 0; i < k; i++) cz_fr_sqr(&gm, &gm);
    cz_fr_sub(&gm, &gm, &cz_fr_one);
    cz_fr_inv(&d->coset_vanishing_inv, &gm); /* g^m != 1: g = 7 generates Fr^* */

    d->leaf_log = CZ_NTT_LEAF_LOG_MAX;
    d->column_log = COLUMN_LOG_DEFAULT;

    d->table_bytes = cz_ntt_domain_table_bytes(k);
    d->tables = malloc(d->table_bytes);
    if (!d->tables) {
        size_t bytes = d->table_bytes;
        cz_ntt_domain_free(d);
        return cz_error_set(err, CZ_E_NOMEM, "ntt: cannot allocate %zu bytes of tables", bytes);
    }
    size_t ns = stage_entries(k), np = power_entries(k);
    cz_fr *mem = d->tables;
    const cz_fr *roots[2] = {&d->omega, &d->omega_inv};
    const cz_fr *gens[2] = {&d->gen, &d->gen_inv};
    for (int dir = 0; dir < 2; dir++) {
        /* the ns-th root: omega^(m / ns) */
        cz_fr w = *roots[dir];
        for (size_t n = d->size; n > ns; n /= 2) cz_fr_sqr(&w, &w);
        build_stage_twiddles(mem, ns, &w);
        d->stage_twiddles[dir] = mem;
        mem += ns;
    }
    for (int dir = 0; dir < 2; dir++) {
        build_powers(&d->roots[dir], mem, k, roots[dir]);
        mem += np;
        build_powers(&d->coset[dir], mem, k, gens[dir]);
        mem += np;
    }
    return CZ_OK;
}

cz_status cz_ntt_domain_set_blocking(cz_ntt_domain *d, unsigned leaf_log, unsigned column_log,
                                     cz_error *err) {
    if (leaf_log < 1 || leaf_log > CZ_NTT_LEAF_LOG_MAX || column_log < 1 || column_log > leaf_log)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "ntt: blocking leaf 2^%u, columns 2^%u (need 1 <= columns <= leaf "
                            "<= %u)",
                            leaf_log, column_log, CZ_NTT_LEAF_LOG_MAX);
    d->leaf_log = leaf_log;
    d->column_log = column_log;
    return CZ_OK;
}

/* ---- leaves --------------------------------------------------------------- */

/* In-place DIF of size 2^s (natural -> bit-reversed), s <= table's log. */
static void dif_leaf(const cz_fr *tw, cz_fr *x, unsigned s) {
    size_t n = (size_t)1 << s;
    for (size_t h = n / 2; h >= 1; h /= 2)
        for (size_t b = 0; b < n; b += 2 * h) {
            bfly_plain(&x[b], &x[b + h]);
            for (size_t j = 1; j < h; j++) bfly_dif(&x[b + j], &x[b + j + h], &tw[h + j]);
        }
}

/* In-place DIT of size 2^s (bit-reversed -> natural). */
static void dit_leaf(const cz_fr *tw, cz_fr *x, unsigned s) {
    size_t n = (size_t)1 << s;
    for (size_t h = 1; h < n; h *= 2)
        for (size_t b = 0; b < n; b += 2 * h) {
            bfly_plain(&x[b], &x[b + h]);
            for (size_t j = 1; j < h; j++) bfly_dit(&x[b + j], &x[b + j + h], &tw[h + j]);
        }
}

/* The same on n1 = 2^s1 rows of T elements (row-major buf): the transform
 * runs down each of the T columns, sharing one twiddle per row pair. */
static void dif_columns(const cz_fr *tw, cz_fr *buf, unsigned s1, size_t T) {
    size_t n1 = (size_t)1 << s1;
    for (size_t h = n1 / 2; h >= 1; h /= 2)
        for (size_t b = 0; b < n1; b += 2 * h)
            for (size_t j = 0; j < h; j++) {
                cz_fr *x = buf + (b + j) * T, *y = buf + (b + j + h) * T;
                if (j == 0)
                    for (size_t t = 0; t < T; t++) bfly_plain(&x[t], &y[t]);
                else
                    for (size_t t = 0; t < T; t++) bfly_dif(&x[t], &y[t], &tw[h + j]);
            }
}

static void dit_columns(const cz_fr *tw, cz_fr *buf, unsigned s1, size_t T) {
    size_t n1 = (size_t)1 << s1;
    for (size_t h = 1; h < n1; h *= 2)
        for (size_t b = 0; b < n1; b += 2 * h)
            for (size_t j = 0; j < h; j++) {
                cz_fr *x = buf + (b + j) * T, *y = buf + (b + j + h) * T;
                if (j == 0)
                    for (size_t t = 0; t < T; t++) bfly_plain(&x[t], &y[t]);
                else
                    for (size_t t = 0; t < T; t++) bfly_dit(&x[t], &y[t], &tw[h + j]);
            }
}

/* ---- scaling -------------------------------------------------------------- */

/* A transform scales by at most one diagonal: the element of index i (in the
 * order of that side) is multiplied by c * b^i, on the input (pre) or on the
 * output. b = 1 when powers is NULL. Bit-reversed sides index by rev_k(p). */
typedef struct {
    int active;
    int pre;
    cz_fr c;
    const cz_ntt_powers *powers;
} scaling;

/* c * b^e, e < 2^k */
static void scaling_factor(cz_fr *r, const scaling *sc, uint64_t e) {
    if (sc->powers) {
        pow_lookup(r, sc->powers, e);
        cz_fr_mul_inline(r, r, &sc->c);
    } else {
        *r = sc->c;
    }
}

/* Scales the whole array of 2^k elements (for transforms too small to split;
 * two multiplications per element). bitrev: index = rev_k(position). */
static void scale_all(const scaling *sc, cz_fr *x, unsigned k, int bitrev) {
    size_t n = (size_t)1 << k;
    if (!sc->powers) {
        for (size_t i = 0; i < n; i++) cz_fr_mul_inline(&x[i], &x[i], &sc->c);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        cz_fr f;
        scaling_factor(&f, sc, bitrev ? rev_bits(i, k) : i);
        cz_fr_mul_inline(&x[i], &x[i], &f);
    }
}

/* ---- engine --------------------------------------------------------------- */

#define TILE_LOG         15 /* target column tile: 2^15 elements = 1 MiB */
#define TILE_MIN_LOG     2  /* at least 4 elements (128 bytes) per row segment */
#define PARALLEL_MIN_LOG 12 /* below this a transform runs on one thread */

/* Where the scaling goes. DIF reads natural order and writes bit-reversed;
 * DIT the opposite. The natural side is handled by the top-level column
 * tiles: with index i = p n2 + col, c b^col is constant down a column and so
 * commutes with the column transforms and joins the twiddles, while b^(p n2)
 * costs one multiplication per element. The bit-reversed side is handled at
 * the leaves: with position off + q in a leaf of 2^sl elements, index =
 * rev_k(off) + rev_sl(q) 2^(k - sl), so the factor is a per-leaf constant
 * c b^rev_k(off), which joins the twiddles of the adjacent column stage
 * (it commutes with the leaf transform), times leaf_factors[q] =
 * (b^(2^(k - sl)))^rev_sl(q), one multiplication per element. A constant
 * scaling (b = 1: the plain inverse's 1/m) thus costs nothing. Transforms
 * small enough to stay one leaf scale in a separate loop (scale_all). */
typedef struct {
    const cz_ntt_domain *d;
    int dif;
    const cz_fr *tw; /* d->stage_twiddles[dir] */
    const cz_ntt_powers *roots;
    scaling sc;
    int natural_side; /* sc on the natural-order side */
    int bitrev_side;  /* sc on the bit-reversed side */
    cz_fr *leaf_factors;
    cz_fr *scratch; /* per worker: tile, then 3 arrays of 2^column_log */
    size_t tile_elems, rows_max, worker_elems;
} engine;

/* How a transform of size 2^s splits: s1 = log of the column transforms, or
 * 0 for a leaf. The top level splits even when it would fit a leaf, to spread
 * over the threads. */
static unsigned split_of(const cz_ntt_domain *d, unsigned s, int top) {
    if (s <= d->leaf_log) {
        if (top && s >= PARALLEL_MIN_LOG && cz_thread_count() > 1)
            return s / 2 < d->column_log ? s / 2 : d->column_log;
        return 0;
    }
    unsigned levels = (s + d->leaf_log - 1) / d->leaf_log;
    unsigned by_columns = 1 + (s - d->leaf_log + d->column_log - 1) / d->column_log;
    if (by_columns > levels) levels = by_columns;
    unsigned s1 = (s + levels - 1) / levels;
    return s1 < d->column_log ? s1 : d->column_log;
}

/* Row segment length for tiles of 2^s1 rows of 2^s2. */
static size_t tile_width(unsigned s1, unsigned s2) {
    unsigned lt = s1 + TILE_MIN_LOG >= TILE_LOG ? TILE_MIN_LOG : TILE_LOG - s1;
    if (lt > s2) lt = s2;
    return (size_t)1 << lt;
}

typedef struct {
    cz_fr *buf, *f, *step, *rowfac;
} worker_space;

static worker_space space_of(const engine *e, unsigned worker) {
    cz_fr *base = e->scratch + (size_t)worker * e->worker_elems;
    worker_space ws = {base, base + e->tile_elems, base + e->tile_elems + e->rows_max,
                       base + e->tile_elems + 2 * e->rows_max};
    return ws;
}

static void rows_mul(cz_fr *buf, size_t n1, size_t T, const cz_fr *rowfac) {
    for (size_t p = 0; p < n1; p++)
        for (size_t t = 0; t < T; t++) cz_fr_mul_inline(&buf[p * T + t], &buf[p * T + t], &rowfac[p]);
}

/* Column tiles tile_begin..tile_end-1 of the block x (2^s elements at global
 * position off), split 2^s1 rows x 2^s2, T columns per tile. DIF: column
 * transforms then twiddles; DIT: twiddles then column transforms. The
 * twiddle of (row p, column col) is w^(rev_s1(p) col), w = omega^(2^(k-s)),
 * carried along the columns as a running product per row. */
static void tile_stage(const engine *e, cz_fr *x, uint64_t off, unsigned s, unsigned s1, size_t T,
                       size_t tile_begin, size_t tile_end, worker_space ws, int top) {
    const cz_ntt_domain *d = e->d;
    unsigned k = d->log_size, shift = k - s, s2 = s - s1;
    size_t n1 = (size_t)1 << s1, n2 = (size_t)1 << s2;
    int fold_natural = top && e->natural_side;
    int fold_leaf = e->bitrev_side && split_of(d, s2, 0) == 0;
    int row_factors = fold_natural && e->sc.powers;
    size_t c0 = tile_begin * T;
    for (size_t p = 0; p < n1; p++) {
        uint64_t e1 = rev_bits(p, s1);
        pow_lookup(&ws.step[p], e->roots, e1 << shift);
        pow_lookup(&ws.f[p], e->roots, (e1 * c0) << shift);
        cz_fr t;
        if (fold_natural) { /* columns: c b^col; rows: b^(p n2); off = 0 here */
            scaling_factor(&t, &e->sc, c0);
            cz_fr_mul_inline(&ws.f[p], &ws.f[p], &t);
            if (e->sc.powers) {
                cz_fr_mul_inline(&ws.step[p], &ws.step[p], &e->sc.powers->low[1]);
                pow_lookup(&ws.rowfac[p], e->sc.powers, p * n2);
            }
        }
        if (fold_leaf) { /* row p is the leaf at off + p n2 */
            scaling_factor(&t, &e->sc, rev_bits(off + p * n2, k));
            cz_fr_mul_inline(&ws.f[p], &ws.f[p], &t);
        }
    }
    size_t first_row = fold_natural || fold_leaf ? 0 : 1; /* else row 0's twiddle is 1 */
    for (size_t tile = tile_begin; tile < tile_end; tile++) {
        size_t col = tile * T;
        for (size_t p = 0; p < n1; p++) memcpy(ws.buf + p * T, x + p * n2 + col, T * sizeof(cz_fr));
        if (e->dif) {
            if (row_factors) rows_mul(ws.buf, n1, T, ws.rowfac);
            dif_columns(e->tw, ws.buf, s1, T);
        }
        for (size_t p = first_row; p < n1; p++) {
            cz_fr *row = ws.buf + p * T;
            for (size_t t = 0; t < T; t++) {
                cz_fr_mul_inline(&row[t], &row[t], &ws.f[p]);
                cz_fr_mul_inline(&ws.f[p], &ws.f[p], &ws.step[p]);
            }
        }
        if (!e->dif) {
            dit_columns(e->tw, ws.buf, s1, T);
            if (row_factors) rows_mul(ws.buf, n1, T, ws.rowfac);
        }
        for (size_t p = 0; p < n1; p++) memcpy(x + p * n2 + col, ws.buf + p * T, T * sizeof(cz_fr));
    }
}

/* A leaf below a column stage (the top-level-only case is in run_top). */
static void leaf(const engine *e, cz_fr *x, unsigned s) {
    size_t n = (size_t)1 << s;
    const cz_fr *lf = e->bitrev_side ? e->leaf_factors : NULL;
    if (e->dif) {
        dif_leaf(e->tw, x, s);
        if (lf)
            for (size_t q = 0; q < n; q++) cz_fr_mul_inline(&x[q], &x[q], &lf[q]);
    } else {
        if (lf)
            for (size_t q = 0; q < n; q++) cz_fr_mul_inline(&x[q], &x[q], &lf[q]);
        dit_leaf(e->tw, x, s);
    }
}

/* Below the top level everything runs on the calling worker. */
static void transform_rec(const engine *e, cz_fr *x, uint64_t off, unsigned s, worker_space ws) {
    unsigned s1 = split_of(e->d, s, 0);
    if (s1 == 0) {
        leaf(e, x, s);
        return;
    }
    unsigned s2 = s - s1;
    size_t T = tile_width(s1, s2), n2 = (size_t)1 << s2, rows = (size_t)1 << s1;
    if (e->dif) tile_stage(e, x, off, s, s1, T, 0, n2 / T, ws, 0);
    for (size_t r = 0; r < rows; r++) transform_rec(e, x + r * n2, off + r * n2, s2, ws);
    if (!e->dif) tile_stage(e, x, off, s, s1, T, 0, n2 / T, ws, 0);
}

typedef struct {
    const engine *e;
    cz_fr *x;
    unsigned s1;
    size_t T;
} top_step;

static void tiles_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    const top_step *st = ctx;
    tile_stage(st->e, st->x, 0, st->e->d->log_size, st->s1, st->T, begin, end,
               space_of(st->e, worker), 1);
}

static void rows_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    const top_step *st = ctx;
    unsigned s2 = st->e->d->log_size - st->s1;
    size_t n2 = (size_t)1 << s2;
    for (size_t r = begin; r < end; r++)
        transform_rec(st->e, st->x + r * n2, r * n2, s2, space_of(st->e, worker));
}

static size_t grain_for(size_t n, unsigned threads) {
    size_t g = n / (4 * (size_t)threads);
    return g ? g : 1;
}

/* leaf_factors[q] = B^rev_sl(q), B = b^(2^(k - sl)) */
static cz_status build_leaf_factors(engine *e, unsigned sl, cz_error *err) {
    size_t n = (size_t)1 << sl;
    cz_fr *g = malloc(2 * n * sizeof(cz_fr));
    if (!g) return cz_error_set(err, CZ_E_NOMEM, "ntt: cannot allocate %zu leaf factors", n);
    cz_fr base;
    pow_lookup(&base, e->sc.powers, (uint64_t)1 << (e->d->log_size - sl));
    fill_geometric(g + n, n, &base);
    for (size_t q = 0; q < n; q++) g[q] = g[n + rev_bits(q, sl)];
    e->leaf_factors = g;
    return CZ_OK;
}

/* The whole transform: DIF (e->dif) or DIT of the domain's size. */
static cz_status run_top(engine *e, cz_fr *x, cz_error *err) {
    const cz_ntt_domain *d = e->d;
    unsigned k = d->log_size;
    unsigned s1 = split_of(d, k, 1);
    if (s1 == 0) {
        int bitrev_pre = !e->dif; /* DIT input / DIF output are bit-reversed */
        if (e->sc.active && e->sc.pre) scale_all(&e->sc, x, k, bitrev_pre);
        if (e->dif)
            dif_leaf(e->tw, x, k);
        else
            dit_leaf(e->tw, x, k);
        if (e->sc.active && !e->sc.pre) scale_all(&e->sc, x, k, !bitrev_pre);
        return CZ_OK;
    }
    e->natural_side = e->sc.active && e->sc.pre == e->dif;
    e->bitrev_side = e->sc.active && e->sc.pre != e->dif;
    if (e->bitrev_side && e->sc.powers) {
        unsigned sl = k - s1, s;
        while ((s = split_of(d, sl, 0)) != 0) sl -= s;
        cz_status st = build_leaf_factors(e, sl, err);
        if (st != CZ_OK) return st;
    }
    unsigned threads = cz_thread_count();
    unsigned s2 = k - s1;
    size_t T = tile_width(s1, s2);
    /* enough tiles to keep every worker busy */
    while (T > ((size_t)1 << TILE_MIN_LOG) && ((size_t)1 << s2) / T < 4 * (size_t)threads) T /= 2;
    e->rows_max = (size_t)1 << d->column_log;
    e->tile_elems = e->rows_max << TILE_MIN_LOG;
    if (e->tile_elems < ((size_t)1 << TILE_LOG)) e->tile_elems = (size_t)1 << TILE_LOG;
    if (e->tile_elems < ((size_t)T << s1)) e->tile_elems = (size_t)T << s1;
    e->worker_elems = e->tile_elems + 3 * e->rows_max;
    e->scratch = malloc((size_t)threads * e->worker_elems * sizeof(cz_fr));
    if (!e->scratch) {
        free(e->leaf_factors);
        return cz_error_set(err, CZ_E_NOMEM, "ntt: cannot allocate %u scratch tiles of %zu bytes",
                            threads, e->worker_elems * sizeof(cz_fr));
    }
    top_step st = {e, x, s1, T};
    size_t tiles = ((size_t)1 << s2) / T, rows = (size_t)1 << s1;
    if (e->dif) {
        cz_parallel_for(tiles, grain_for(tiles, threads), tiles_task, &st);
        cz_parallel_for(rows, grain_for(rows, threads), rows_task, &st);
    } else {
        cz_parallel_for(rows, grain_for(rows, threads), rows_task, &st);
        cz_parallel_for(tiles, grain_for(tiles, threads), tiles_task, &st);
    }
    free(e->scratch);
    free(e->leaf_factors);
    e->scratch = e->leaf_factors = NULL;
    return CZ_OK;
}

static void engine_init(engine *e, const cz_ntt_domain *d, int dif, int inverse) {
    memset(e, 0, sizeof *e);
    e->d = d;
    e->dif = dif;
    e->tw = d->stage_twiddles[inverse];
    e->roots = &d->roots[inverse];
}

static void engine_scale(engine *e, int pre, const cz_fr *c, const cz_ntt_powers *powers) {
    e->sc.active = 1;
    e->sc.pre = pre;
    e->sc.c = *c;
    e->sc.powers = powers;
}

/* ---- public transforms ---------------------------------------------------- */

cz_status cz_ntt_transform(const cz_ntt_domain *d, cz_fr *data, cz_ntt_order order,
                           cz_ntt_direction direction, cz_ntt_kind kind, cz_error *err) {
    if ((order != CZ_NTT_NN && order != CZ_NTT_NR && order != CZ_NTT_RN) ||
        (direction != CZ_NTT_FORWARD && direction != CZ_NTT_INVERSE) ||
        (kind != CZ_NTT_PLAIN && kind != CZ_NTT_COSET))
        return cz_error_set(err, CZ_E_INVALID_ARG, "ntt: bad order/direction/kind %d/%d/%d",
                            (int)order, (int)direction, (int)kind);
    int inverse = direction == CZ_NTT_INVERSE;
    /* NN runs as DIF then a permutation; NR as DIF; RN as DIT. The scaling
     * sits on the coefficient side: before a forward, after an inverse. */
    engine e;
    engine_init(&e, d, order != CZ_NTT_RN, inverse);
    if (!inverse) {
        if (kind == CZ_NTT_COSET) engine_scale(&e, 1, &cz_fr_one, &d->coset[0]);
    } else {
        engine_scale(&e, 0, &d->size_inv, kind == CZ_NTT_COSET ? &d->coset[1] : NULL);
    }
    cz_status st = run_top(&e, data, err);
    if (st != CZ_OK) return st;
    if (order == CZ_NTT_NN) cz_ntt_bit_reverse(data, d->log_size);
    return CZ_OK;
}

cz_status cz_ntt_forward(const cz_ntt_domain *d, cz_fr *data, cz_error *err) {
    return cz_ntt_transform(d, data, CZ_NTT_NN, CZ_NTT_FORWARD, CZ_NTT_PLAIN, err);
}
cz_status cz_ntt_inverse(const cz_ntt_domain *d, cz_fr *data, cz_error *err) {
    return cz_ntt_transform(d, data, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_PLAIN, err);
}
cz_status cz_ntt_coset_forward(const cz_ntt_domain *d, cz_fr *data, cz_error *err) {
    return cz_ntt_transform(d, data, CZ_NTT_NN, CZ_NTT_FORWARD, CZ_NTT_COSET, err);
}
cz_status cz_ntt_coset_inverse(const cz_ntt_domain *d, cz_fr *data, cz_error *err) {
    return cz_ntt_transform(d, data, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_COSET, err);
}

/* ---- bit reversal ------------------------------------------------------- */

#define BITREV_TILE_LOG 5 /* 32 x 32 tiles, 1 KiB row segments */

typedef struct {
    cz_fr *x;
    unsigned k, q; /* index = a (q bits) | b (k - 2q bits) | c (q bits) */
} bitrev_ctx;

static void bitrev_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const bitrev_ctx *bc = ctx;
    unsigned k = bc->k, q = bc->q, mid = k - 2 * q;
    size_t side = (size_t)1 << q;
    cz_fr t1[1 << (2 * BITREV_TILE_LOG)], t2[1 << (2 * BITREV_TILE_LOG)];
    for (size_t b = begin; b < end; b++) {
        size_t br = rev_bits(b, mid);
        if (br < b) continue; /* the pair was handled at br */
        /* index(a, b, c) = a << (k - q) | b << q | c; its reversal is
         * index(rev c, rev b, rev a). */
        for (size_t a = 0; a < side; a++) {
            memcpy(t1 + a * side, bc->x + (a << (k - q)) + (b << q), side * sizeof(cz_fr));
            if (br != b)
                memcpy(t2 + a * side, bc->x + (a << (k - q)) + (br << q), side * sizeof(cz_fr));
        }
        const cz_fr *src_for_b = br != b ? t2 : t1; /* x[a, b, c] <- x[rev c, br, rev a] */
        for (size_t a = 0; a < side; a++) {
            size_t ra = rev_bits(a, q);
            cz_fr *row = bc->x + (a << (k - q)) + (b << q);
            for (size_t c = 0; c < side; c++) row[c] = src_for_b[rev_bits(c, q) * side + ra];
            if (br != b) {
                cz_fr *row2 = bc->x + (a << (k - q)) + (br << q);
                for (size_t c = 0; c < side; c++) row2[c] = t1[rev_bits(c, q) * side + ra];
            }
        }
    }
}

void cz_ntt_bit_reverse(cz_fr *data, unsigned log_size) {
    unsigned q = log_size / 2 < BITREV_TILE_LOG ? log_size / 2 : BITREV_TILE_LOG;
    bitrev_ctx bc = {data, log_size, q};
    size_t middles = (size_t)1 << (log_size - 2 * q);
    if (log_size < PARALLEL_MIN_LOG) {
        bitrev_task(&bc, 0, middles, 0);
        return;
    }
    cz_parallel_for(middles, grain_for(middles, cz_thread_count()), bitrev_task, &bc);
}

/* ---- Groth16 helpers ------------------------------------------------------ */

typedef struct {
    cz_fr *a;
    const cz_fr *b, *c;
    cz_fr z_inv;
} quotient_ctx;

static void quotient_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const quotient_ctx *qc = ctx;
    for (size_t i = begin; i < end; i++) {
        cz_fr t;
        cz_fr_mul_inline(&t, &qc->a[i], &qc->b[i]);
        cz_fr_sub_inline(&t, &t, &qc->c[i]);
        cz_fr_mul_inline(&qc->a[i], &t, &qc->z_inv);
    }
}

void cz_ntt_coset_quotient(const cz_ntt_domain *d, cz_fr *a, const cz_fr *b, const cz_fr *c) {
    quotient_ctx qc = {a, b, c, d->coset_vanishing_inv};
    if (d->log_size < PARALLEL_MIN_LOG)
        quotient_task(&qc, 0, d->size, 0);
    else
        cz_parallel_for(d->size, grain_for(d->size, cz_thread_count()), quotient_task, &qc);
}

cz_status cz_ntt_groth16_h(const cz_ntt_domain *d, cz_fr *a, cz_fr *b, cz_fr *c, cz_error *err) {
    cz_fr *v[3] = {a, b, c};
    cz_status st;
    for (int i = 0; i < 3; i++) {
        /* values on H -> bit-reversed coefficients (m^-1 deferred) -> values
         * on gH, with m^-1 g^i as the DIT's one input scaling */
        engine e;
        engine_init(&e, d, 1, 1);
        if ((st = run_top(&e, v[i], err)) != CZ_OK) return st;
        engine_init(&e, d, 0, 0);
        engine_scale(&e, 1, &d->size_inv, &d->coset[0]);
        if ((st = run_top(&e, v[i], err)) != CZ_OK) return st;
    }
    cz_ntt_coset_quotient(d, a, b, c);
    return cz_ntt_transform(d, a, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_COSET, err);
}
