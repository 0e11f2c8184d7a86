/* a = A z, b = B z, c = C z on the device from a resident pre-compiled
 * circuit (r1cs/circuit.h: u32 row offsets, u32 columns, u16 or u32 indices
 * into a table of distinct coefficients, 0 = 1 and 1 = -1).
 *
 * Rows are short in practice (PoRep: mostly 1-3 entries) with a few long
 * ones (hundreds of entries: packings, additions of many words). So:
 *   - short rows (<= T entries, T = 16 by default): one thread per row,
 *     threads of a warp on consecutive rows (coalesced row offsets and
 *     result stores, the entries of neighbouring rows share cache lines);
 *   - long rows (> T): cut at creation into pieces of at most 256
 *     consecutive entries; one warp per piece (lanes on consecutive entries,
 *     a shuffle tree of additions), the piece sums to a scratch array, then
 *     one warp per long row adds its pieces and stores the row. No thread
 *     walks more than 8 entries of a long row, whatever its length.
 * The short-row kernel skips the long rows, the long-row kernels write only
 * theirs, so every row is written exactly once.
 *
 * Entries: coefficient index 0 adds z[col], 1 subtracts it, any other index
 * multiplies by the table entry (the out-of-line Montgomery product; a warp
 * pays for it only when one of its lanes needs it). The table goes to
 * shared memory when it has at most 1536 entries (48 KiB; one copy per
 * block of a grid of about one wave, so a few MB of L2 reads in all), else
 * it is read through the read-only cache (__ldg). Field addition is exact,
 * so the order of the sums does not change the fully reduced result: it is
 * byte-identical to the CPU's.
 *
 * Memory traffic at 32 GiB PoRep (130 M rows, 722 M entries with u16
 * indices): entries 4.3 GB, row offsets 1.6 GB, results 12.5 GB, z 4.2 GB
 * once when columns are local (each z read is one 32-byte sector): about
 * 23 GB, i.e. ~6 ms at 4 TB/s; the arithmetic (one Fr addition per entry,
 * a product for the others) is of the same order. */
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/common.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"

extern "C" {
#include "r1cs/circuit.h"
#include "gpu/settings.h"
#include "gpu/srs.h"
#include "util/cancel.h"
#include "util/parallel.h"
#include "util/size.h"
}

using namespace cz_gpu;

#define ABC_THREADS    256
#define ABC_PIECE      256  /* entries per piece of a long row: 8 per lane */
#define ABC_LONG       16   /* default T: rows with more entries are long */
#define ABC_SHARED_MAX 1536 /* table entries that go to shared memory (48 KiB) */
#define ABC_UPLOAD     ((size_t)64 << 20)
#define MIB(x)         ((double)(x) / (1024.0 * 1024.0))
#define ABC_FULL_WARP  0xffffffffu
#define ABC_NO_FAULT   (~0ull)

static const char *const matrix_name[3] = {"A", "B", "C"};

/* One matrix on the device. Long rows: long_row[s] is the row of the s-th
 * long row, its pieces are first[s] .. first[s + 1] - 1, piece p covers the
 * entries [pieces[p].x, pieces[p].y). */
typedef struct {
    uint64_t nnz;
    uint32_t *row_start, *col;
    void *coef;
    uint32_t n_long, n_pieces;
    uint32_t *long_row, *first;
    uint2 *pieces;
} gpu_matrix;

/* A streamed circuit (cz_gpu_circuit_create_streamed): each matrix in row
 * windows of at most a window's entries, planned at creation. Window: rows
 * [r0, r0 + rows), entries [e0, e0 + nnz); its long rows with rows counted
 * from r0 and pieces' entries from e0, made on the host (freed once up)
 * and kept on the device in the matrix's long-row arrays (gpu_matrix, all
 * windows' one after the other) from long_at, first_at and piece_at. */
typedef struct {
    uint32_t r0, rows;
    uint64_t e0, nnz;
    uint32_t n_long, n_pieces;
    uint32_t *long_row, *first;
    uint2 *pieces;
    uint64_t long_at, first_at, piece_at;
} abc_window;

/* A device copy of one window's row offsets, columns and coefficient
 * indices (m: its other fields unused; the row offsets as the matrix has
 * them, the kernels subtract the window's first entry), so that a
 * page-locked host circuit goes up without the CPU; two, so the next
 * window goes up while the kernels of the current one run (used: recorded
 * after them). */
typedef struct {
    gpu_matrix m;
    cudaEvent_t used;
} abc_window_buf;

typedef struct {
    abc_window *w[3];
    size_t nw[3];
    uint64_t max_rows, max_nnz;
    uint32_t max_long, max_pieces;
    abc_window_buf buf[2];
    cz_gpu_uploader *up;
    const cz_circuit *host; /* the unit's circuit (cz_gpu_circuit_set_host) */
} abc_stream;

struct cz_gpu_circuit {
    uint32_t num_inputs, num_aux, rows, coef_bytes, num_coeffs;
    uint64_t a_aux_count, b_input_count, b_aux_count;
    fr_t *table;
    gpu_matrix m[3];
    fr_t *partial;     /* [max n_pieces]: piece sums of the matrix being evaluated */
    uint64_t *density; /* a_aux | b_aux | b_input */
    unsigned long_threshold;
    int shared;
    int sms;
    size_t bytes;
    abc_stream *stream; /* NULL: the matrices resident (m[i]'s arrays) */
};

/* ---- device side ---- */

static __device__ __forceinline__ fr_t ld_fr(const fr_t *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    const uint4 lo = __ldg(q), hi = __ldg(q + 1);
    fr_t r;
    r.v[0] = lo.x, r.v[1] = lo.y, r.v[2] = lo.z, r.v[3] = lo.w;
    r.v[4] = hi.x, r.v[5] = hi.y, r.v[6] = hi.z, r.v[7] = hi.w;
    return r;
}

/* The table in shared memory (a plain load) or in global memory (__ldg). */
template <bool SH> static __device__ __forceinline__ fr_t ld_coef(const fr_t *tab, uint32_t i) {
    if (!SH) return ld_fr(tab + i);
    const uint4 *q = reinterpret_cast<const uint4 *>(tab + i);
    const uint4 lo = q[0], hi = q[1];
    fr_t r;
    r.v[0] = lo.x, r.v[1] = lo.y, r.v[2] = lo.z, r.v[3] = lo.w;
    r.v[4] = hi.x, r.v[5] = hi.y, r.v[6] = hi.z, r.v[7] = hi.w;
    return r;
}

static __device__ __forceinline__ void st_fr(fr_t *p, const fr_t &r) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
    q[1] = make_uint4(r.v[4], r.v[5], r.v[6], r.v[7]);
}

/* Where the kernels read z: whole (one 32-byte element per read), or packed
 * (cz_gpu_packed_z: a word of each bitmap, and for the few values neither 0
 * nor 1 their running count and the value). get returns 0 for a zero
 * element, which then adds nothing. */
struct z_whole {
    const fr_t *z;
    __device__ __forceinline__ bool get(fr_t &x, uint32_t i) const {
        x = ld_fr(z + i);
        return true;
    }
};
struct z_packed {
    const uint64_t *ones, *other;
    const uint32_t *before;
    const fr_t *values;
    __device__ __forceinline__ bool get(fr_t &x, uint32_t i) const {
        const uint32_t w = i / 64, b = i % 64;
        const uint64_t o = __ldg(other + w);
        if (o >> b & 1) {
            x = ld_fr(values + __ldg(before + w) + (uint32_t)__popcll(o & ((1ull << b) - 1)));
            return true;
        }
        if (!(__ldg(ones + w) >> b & 1)) return false;
        x = fr_t::one();
        return true;
    }
};

/* acc += coeff(ci) * z[col] with 1 and -1 special-cased. */
template <class I, bool SH, class Z>
static __device__ __forceinline__ void add_entry(fr_t &acc, const Z &z, const uint32_t *col,
                                                 const I *coef, uint32_t k, const fr_t *tab) {
    fr_t x;
    if (!z.get(x, __ldg(col + k))) return;
    const uint32_t ci = __ldg(coef + k);
    if (ci > CZ_CIRCUIT_COEF_MINUS_ONE) x = fr_t::mul(x, ld_coef<SH>(tab, ci));
    acc = ci == CZ_CIRCUIT_COEF_MINUS_ONE ? fr_t::sub(acc, x) : fr_t::add(acc, x);
}

/* The sum of every lane's acc, in every lane (all 32 lanes must call it). */
static __device__ __forceinline__ fr_t warp_sum(fr_t acc) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        fr_t t;
#pragma unroll
        for (int i = 0; i < 8; i++) t.v[i] = __shfl_xor_sync(ABC_FULL_WARP, acc.v[i], o);
        acc = fr_t::add(acc, t);
    }
    return acc;
}

/* Copies the table into the block's shared memory (SH) and returns where the
 * kernel reads it. */
template <bool SH> static __device__ const fr_t *block_table(const fr_t *table, uint32_t n) {
    if (!SH) return table;
    extern __shared__ uint4 s_table[];
    const uint4 *src = reinterpret_cast<const uint4 *>(table);
    for (uint32_t i = threadIdx.x; i < 2 * n; i += blockDim.x) s_table[i] = __ldg(src + i);
    __syncthreads();
    return reinterpret_cast<const fr_t *>(s_table);
}

/* Short rows: one thread per row (grid-stride; rows < 2^31). */
template <class I, bool SH, class Z>
__global__ void __launch_bounds__(ABC_THREADS)
    k_short_rows(fr_t *out, const uint32_t *row_start, uint32_t base, const uint32_t *col,
                 const I *coef, uint32_t rows, uint32_t long_threshold, const Z z,
                 const fr_t *table, uint32_t num_coeffs) {
    const fr_t *tab = block_table<SH>(table, num_coeffs);
    for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < rows;
         j += gridDim.x * blockDim.x) {
        const uint32_t b = __ldg(row_start + j) - base, e = __ldg(row_start + j + 1) - base;
        if (e - b > long_threshold) continue; /* a long row: the warp kernels write it */
        fr_t acc = fr_t::zero();
        for (uint32_t k = b; k < e; k++) add_entry<I, SH, Z>(acc, z, col, coef, k, tab);
        st_fr(out + j, acc);
    }
}

/* Long rows, step 1: one warp per piece (grid-stride over warps; the loop
 * condition is the same for the whole warp, so warp_sum sees all lanes). */
template <class I, bool SH, class Z>
__global__ void __launch_bounds__(ABC_THREADS)
    k_pieces(fr_t *partial, const uint2 *pieces, uint32_t n_pieces, const uint32_t *col,
             const I *coef, const Z z, const fr_t *table, uint32_t num_coeffs) {
    const fr_t *tab = block_table<SH>(table, num_coeffs);
    const uint32_t lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;
    for (uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < n_pieces; w += warps) {
        const uint2 p = pieces[w];
        fr_t acc = fr_t::zero();
        for (uint32_t k = lane; k < p.y - p.x; k += 32) /* <= 256: no wrap-around near 2^32 */
            add_entry<I, SH, Z>(acc, z, col, coef, p.x + k, tab);
        acc = warp_sum(acc);
        if (lane == 0) st_fr(partial + w, acc);
    }
}

/* Long rows, step 2: one warp per long row adds its piece sums. */
__global__ void __launch_bounds__(ABC_THREADS)
    k_long_rows(fr_t *out, const fr_t *partial, const uint32_t *long_row, const uint32_t *first,
                uint32_t n_long) {
    const uint32_t lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;
    for (uint32_t s = (blockIdx.x * blockDim.x + threadIdx.x) / 32; s < n_long; s += warps) {
        const uint32_t b = __ldg(first + s), e = __ldg(first + s + 1);
        fr_t acc = fr_t::zero();
        for (uint32_t p = b + lane; p < e; p += 32) acc = fr_t::add(acc, ld_fr(partial + p));
        acc = warp_sum(acc);
        if (lane == 0) st_fr(out + __ldg(long_row + s), acc);
    }
}

/* Creation check: *fault = the first entry whose column or coefficient
 * index is out of range (ABC_NO_FAULT when none). */
template <class I>
__global__ void k_check(unsigned long long *fault, const uint32_t *col, const I *coef, uint64_t nnz,
                        uint32_t num_vars, uint32_t num_coeffs) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += stride)
        if (col[i] >= num_vars || (uint32_t)coef[i] >= num_coeffs)
            atomicMin(fault, (unsigned long long)i);
}

/* ---- host side ---- */

/* The long rows of one matrix, planned on the host from its row offsets
 * (which are checked on the way: they must not decrease). */
typedef struct {
    const uint32_t *row_start;
    uint32_t rows, threshold;
    size_t chunk, n_chunks;
    uint64_t *chunk_long, *chunk_pieces; /* per chunk: counts, then first indices */
    uint64_t *chunk_fault;               /* per chunk: first decreasing row, or ABC_NO_FAULT */
    uint32_t *long_row, *first;
    uint2 *pieces;
} plan;

static void plan_count(void *vctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    plan *p = (plan *)vctx;
    for (size_t c = begin; c < end; c++) {
        uint64_t nl = 0, np = 0, fault = ABC_NO_FAULT;
        const size_t j1 = (c + 1) * p->chunk < p->rows ? (c + 1) * p->chunk : p->rows;
        for (size_t j = c * p->chunk; j < j1; j++) {
            const uint32_t b = p->row_start[j], e = p->row_start[j + 1];
            if (e < b) {
                fault = j;
                break;
            }
            if (e - b > p->threshold) nl++, np += (e - b + ABC_PIECE - 1) / ABC_PIECE;
        }
        p->chunk_long[c] = nl, p->chunk_pieces[c] = np, p->chunk_fault[c] = fault;
    }
}

static void plan_fill(void *vctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    plan *p = (plan *)vctx;
    for (size_t c = begin; c < end; c++) {
        uint64_t s = p->chunk_long[c], q = p->chunk_pieces[c];
        const size_t j1 = (c + 1) * p->chunk < p->rows ? (c + 1) * p->chunk : p->rows;
        for (size_t j = c * p->chunk; j < j1; j++) {
            const uint32_t b = p->row_start[j], e = p->row_start[j + 1];
            if (e - b <= p->threshold) continue;
            p->long_row[s] = (uint32_t)j;
            p->first[s++] = (uint32_t)q;
            for (uint64_t k = b; k < e; k += ABC_PIECE)
                p->pieces[q++] =
                    make_uint2((uint32_t)k, e - k > ABC_PIECE ? (uint32_t)k + ABC_PIECE : e);
        }
    }
}

/* Counts (pass 1) and, with room allocated, fills (pass 2) the lists of
 * matrix `name`. */
static cz_status plan_long_rows(plan *p, const char *name, const uint32_t *row_start, uint32_t rows,
                                unsigned threshold, cz_error *err) {
    memset(p, 0, sizeof *p);
    p->row_start = row_start, p->rows = rows, p->threshold = threshold;
    p->chunk = (size_t)1 << 16;
    p->n_chunks = (rows + p->chunk - 1) / p->chunk;
    p->chunk_long = (uint64_t *)calloc(p->n_chunks + 1, sizeof(uint64_t));
    p->chunk_pieces = (uint64_t *)calloc(p->n_chunks + 1, sizeof(uint64_t));
    p->chunk_fault = (uint64_t *)calloc(p->n_chunks + 1, sizeof(uint64_t));
    if (!p->chunk_long || !p->chunk_pieces || !p->chunk_fault) goto nomem;
    cz_parallel_for(p->n_chunks, 1, plan_count, p);
    for (size_t c = 0; c < p->n_chunks; c++)
        if (p->chunk_fault[c] != ABC_NO_FAULT) {
            const uint64_t j = p->chunk_fault[c];
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "gpu circuit: %s row %llu: row offsets decrease (%u then %u)", name,
                                (unsigned long long)j, row_start[j], row_start[j + 1]);
        }
    {
        uint64_t nl = 0, np = 0; /* exclusive prefix sums */
        for (size_t c = 0; c < p->n_chunks; c++) {
            const uint64_t l = p->chunk_long[c], q = p->chunk_pieces[c];
            p->chunk_long[c] = nl, p->chunk_pieces[c] = np;
            nl += l, np += q;
        }
        p->chunk_long[p->n_chunks] = nl, p->chunk_pieces[p->n_chunks] = np;
    }
    {
        const uint64_t nl = p->chunk_long[p->n_chunks], np = p->chunk_pieces[p->n_chunks];
        p->long_row = (uint32_t *)malloc((nl + 1) * sizeof(uint32_t));
        p->first = (uint32_t *)malloc((nl + 1) * sizeof(uint32_t));
        p->pieces = (uint2 *)malloc((np + 1) * sizeof(uint2));
        if (!p->long_row || !p->first || !p->pieces) goto nomem;
        cz_parallel_for(p->n_chunks, 1, plan_fill, p);
        p->first[nl] = (uint32_t)np;
    }
    return CZ_OK;
nomem:
    return cz_error_set(err, CZ_E_NOMEM, "gpu circuit: out of host memory for the long rows");
}

static void plan_free(plan *p) {
    free(p->chunk_long);
    free(p->chunk_pieces);
    free(p->chunk_fault);
    free(p->long_row);
    free(p->first);
    free(p->pieces);
    memset(p, 0, sizeof *p);
}

/* cz_gpu_stage_bytes of a circuit being created, with a step boundary every
 * UPLOAD_PIECE: a unit of a higher priority may run there, beside the
 * copies in flight (the engine's hook around a key's hold; srs.c put). A
 * 32 GiB PoRep matrix is ~2 GB, read from the circuit file's mapping: a
 * WinningPoSt waited 1.85 s for one on an H100. Not for a streamed
 * circuit's copies inside a unit, whose buffers a unit run there could
 * share. */
#define UPLOAD_PIECE ((size_t)256 << 20)

static cz_status stage_upload(cz_gpu_uploader *up, void *dev, const void *host, size_t bytes,
                              uint64_t *ticket, cz_error *err) {
    cz_status st = CZ_OK;
    for (size_t off = 0; off < bytes && st == CZ_OK; off += UPLOAD_PIECE) {
        const size_t len = bytes - off < UPLOAD_PIECE ? bytes - off : UPLOAD_PIECE;
        st = cz_gpu_stage_bytes(up, (uint8_t *)dev + off, (const uint8_t *)host + off, len, ticket,
                                err);
        if (st == CZ_OK && off + len < bytes) (void)cz_step_boundary();
    }
    return st;
}

static void stream_free(abc_stream *s);

static void matrix_free(gpu_matrix *m) {
    cz_gpu_free(m->row_start);
    cz_gpu_free(m->col);
    cz_gpu_free(m->coef);
    cz_gpu_free(m->long_row);
    cz_gpu_free(m->first);
    cz_gpu_free(m->pieces);
}

extern "C" void cz_gpu_circuit_destroy(cz_gpu_circuit *gc) {
    if (!gc) return;
    stream_free(gc->stream);
    for (int i = 0; i < 3; i++) matrix_free(&gc->m[i]);
    cz_gpu_free(gc->table);
    cz_gpu_free(gc->partial);
    cz_gpu_free(gc->density);
    delete gc;
}

extern "C" size_t cz_gpu_circuit_bytes(const cz_gpu_circuit *gc) {
    return gc ? gc->bytes : 0;
}

extern "C" void cz_gpu_circuit_get_info(cz_gpu_circuit_info *out, const cz_gpu_circuit *gc) {
    memset(out, 0, sizeof *out);
    out->num_inputs = gc->num_inputs, out->num_aux = gc->num_aux;
    out->num_constraints = gc->rows;
    for (int i = 0; i < 3; i++) {
        out->nnz[i] = gc->m[i].nnz;
        out->long_rows[i] = gc->m[i].n_long;
        out->pieces[i] = gc->m[i].n_pieces;
    }
    out->coef_bytes = gc->coef_bytes, out->num_coeffs = gc->num_coeffs;
    out->a_aux_count = gc->a_aux_count, out->b_input_count = gc->b_input_count;
    out->b_aux_count = gc->b_aux_count;
    out->dev_density = gc->density;
    out->long_threshold = gc->long_threshold;
    out->table_in_shared = gc->shared;
}

extern "C" void cz_gpu_circuit_get_matrix(cz_gpu_circuit_matrix *out, const cz_gpu_circuit *gc,
                                          int which) {
    const gpu_matrix *m = &gc->m[which];
    out->nnz = m->nnz;
    out->rows = gc->rows, out->coef_bytes = gc->coef_bytes, out->num_coeffs = gc->num_coeffs;
    out->row_start = m->row_start, out->col = m->col, out->coef = m->coef;
    out->table = (const cz_fr *)gc->table;
}

static size_t words64(uint64_t bits) {
    return (size_t)((bits + 63) / 64);
}

/* The row of entry k: the last j with row_start[j] <= k. */
static uint64_t row_of(const uint32_t *row_start, uint64_t rows, uint64_t k) {
    uint64_t lo = 0, hi = rows; /* row_start[lo] <= k < row_start[hi] (non-decreasing) */
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (row_start[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Host-side checks of what the kernels rely on before anything is sent. */
static cz_status check_host(const cz_circuit *c, cz_error *err) {
    const uint64_t vars = (uint64_t)c->num_inputs + c->num_aux;
    if (c->num_constraints >= ((uint64_t)1 << 31) || vars >= ((uint64_t)1 << 32))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu circuit: %llu rows and %llu variables: at most 2^31 - 1 rows and "
                            "2^32 - 1 variables on the device",
                            (unsigned long long)c->num_constraints, (unsigned long long)vars);
    if (c->coef_bytes != 2 && c->coef_bytes != 4)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu circuit: coefficient indices of %u bytes (2 or 4 expected)",
                            c->coef_bytes);
    cz_fr minus_one;
    cz_fr_neg(&minus_one, &cz_fr_one);
    if (c->num_coeffs < 2 || !c->coeffs || !cz_fr_equal(&c->coeffs[0], &cz_fr_one) ||
        !cz_fr_equal(&c->coeffs[1], &minus_one))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu circuit: the coefficient table (%u entries) does not start with "
                            "1, -1",
                            c->num_coeffs);
    for (int i = 0; i < 3; i++) {
        const cz_circuit_matrix *m = &c->m[i];
        if (!m->row_start || m->row_start[0] != 0 || m->row_start[c->num_constraints] != m->nnz ||
            (m->nnz && (!m->col || !m->coef)))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "gpu circuit: %s: row offsets do not run from 0 to nnz = %llu",
                                matrix_name[i], (unsigned long long)m->nnz);
    }
    if ((c->num_aux && (!c->a_aux_density || !c->b_aux_density)) ||
        (c->num_inputs && !c->b_input_density))
        return cz_error_set(err, CZ_E_INVALID_ARG, "gpu circuit: density bitmaps missing");
    return CZ_OK;
}

/* Runs k_check on the nnz device entries (col, coef) of matrix i that
 * start at entry e0 (a window of a streamed circuit; 0: all of it) and
 * names the first fault. */
static cz_status check_device(const cz_gpu_circuit *gc, const cz_circuit *c, int i,
                              const uint32_t *col, const void *coef, uint64_t nnz, uint64_t e0,
                              unsigned long long *dev_fault, cz_error *err) {
    unsigned long long fault = ABC_NO_FAULT;
    if (!nnz) return CZ_OK;
    CZ_CUDA_TRY(err, cudaMemcpy(dev_fault, &fault, sizeof fault, cudaMemcpyHostToDevice));
    const unsigned blocks = (unsigned)(nnz / ABC_THREADS < 4096 ? nnz / ABC_THREADS + 1 : 4096);
    const uint32_t vars = gc->num_inputs + gc->num_aux;
    if (gc->coef_bytes == 2)
        k_check<uint16_t><<<blocks, ABC_THREADS>>>(dev_fault, col, (const uint16_t *)coef, nnz,
                                                   vars, gc->num_coeffs);
    else
        k_check<uint32_t><<<blocks, ABC_THREADS>>>(dev_fault, col, (const uint32_t *)coef, nnz,
                                                   vars, gc->num_coeffs);
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaMemcpy(&fault, dev_fault, sizeof fault, cudaMemcpyDeviceToHost));
    if (fault == ABC_NO_FAULT) return CZ_OK;
    const cz_circuit_matrix *h = &c->m[i];
    const uint64_t k = e0 + fault;
    const uint32_t ci =
        c->coef_bytes == 2 ? ((const uint16_t *)h->coef)[k] : ((const uint32_t *)h->coef)[k];
    return cz_error_set(err, CZ_E_INVALID_ARG,
                        "gpu circuit: %s row %llu, entry %llu: column %u (of %u variables), "
                        "coefficient index %u (of %u)",
                        matrix_name[i],
                        (unsigned long long)row_of(h->row_start, c->num_constraints, k),
                        (unsigned long long)k, h->col[k], vars, ci, c->num_coeffs);
}

/* The sizes, knobs and density counts of c, and the device's SMs. */
static cz_status circuit_fields(cz_gpu_circuit *gc, const cz_circuit *c, cz_error *err) {
    gc->num_inputs = c->num_inputs, gc->num_aux = c->num_aux;
    gc->rows = (uint32_t)c->num_constraints;
    gc->coef_bytes = c->coef_bytes, gc->num_coeffs = c->num_coeffs;
    const cz_gpu_settings *knobs = cz_gpu_settings_get();
    gc->long_threshold = knobs->abc_long;
    gc->shared = c->num_coeffs <= ABC_SHARED_MAX && knobs->abc_shared != 0;
    gc->a_aux_count = cz_density_popcount(c->a_aux_density, c->num_aux);
    gc->b_aux_count = cz_density_popcount(c->b_aux_density, c->num_aux);
    gc->b_input_count = cz_density_popcount(c->b_input_density, c->num_inputs);
    int dev = 0;
    CZ_CUDA_TRY(err, cudaGetDevice(&dev));
    CZ_CUDA_TRY(err, cudaDeviceGetAttribute(&gc->sms, cudaDevAttrMultiProcessorCount, dev));
    return CZ_OK;
}

/* CZ_E_NOMEM naming the bytes when need does not fit the device's free
 * memory (capped by CZ_GPU_MEM_LIMIT). */
static cz_status device_room(size_t need, const cz_gpu_circuit *gc, cz_error *err) {
    size_t free_b = 0, total_b = 0;
    cz_status st = cz_gpu_mem_info(&free_b, &total_b, err);
    if (st != CZ_OK) return st;
    if ((st = cz_gpu_settings_status(err)) != CZ_OK) return st; /* a bad CZ_GPU_MEM_LIMIT */
    size_t budget = free_b;
    uint64_t limit = 0;
    if (cz_gpu_settings_mem_limit(&limit) && limit < budget) budget = (size_t)limit;
    if (need <= budget) return CZ_OK;
    return cz_error_set(err, CZ_E_NOMEM,
                        "gpu circuit: the device is too small: %.1f MiB needed (matrices of %llu "
                        "+ %llu + %llu entries, %llu rows%s), %.1f MiB usable (%.1f free of "
                        "%.1f%s)",
                        MIB(need), (unsigned long long)gc->m[0].nnz,
                        (unsigned long long)gc->m[1].nnz, (unsigned long long)gc->m[2].nnz,
                        (unsigned long long)gc->rows, gc->stream ? ", streamed" : "", MIB(budget),
                        MIB(free_b), MIB(total_b),
                        budget < free_b ? ", capped by CZ_GPU_MEM_LIMIT" : "");
}

/* What every circuit keeps beside its matrices: the coefficient table, the
 * densities, the long rows' piece scratch (max_pieces) and a fault word
 * for the checks (freed after them). */
static size_t common_bytes(const cz_circuit *c, uint32_t max_pieces, size_t sz[4]) {
    const size_t wa = words64(c->num_aux), wi = words64(c->num_inputs);
    sz[0] = (size_t)c->num_coeffs * sizeof(fr_t), sz[1] = (2 * wa + wi) * 8;
    sz[2] = (size_t)max_pieces * sizeof(fr_t), sz[3] = 8;
    return sz[0] + sz[1] + sz[2] + sz[3];
}

static cz_status common_alloc(cz_gpu_circuit *gc, const size_t sz[4],
                              unsigned long long **dev_fault, cz_error *err) {
    void **slot[] = {(void **)&gc->table, (void **)&gc->density, (void **)&gc->partial,
                     (void **)dev_fault};
    for (int k = 0; k < 4; k++) {
        const cz_status st = cz_gpu_alloc(slot[k], sz[k], err);
        if (st != CZ_OK) return st;
        gc->bytes += sz[k];
    }
    return CZ_OK;
}

/* The table and the densities up (copies queued; *ticket: the last). */
static cz_status common_upload(cz_gpu_uploader *up, cz_gpu_circuit *gc, const cz_circuit *c,
                               uint64_t *ticket, cz_error *err) {
    const size_t wa = words64(c->num_aux), wi = words64(c->num_inputs);
    cz_status st =
        stage_upload(up, gc->table, c->coeffs, (size_t)c->num_coeffs * sizeof(fr_t), ticket, err);
    if (st == CZ_OK) st = stage_upload(up, gc->density, c->a_aux_density, wa * 8, ticket, err);
    if (st == CZ_OK) st = stage_upload(up, gc->density + wa, c->b_aux_density, wa * 8, ticket, err);
    if (st == CZ_OK)
        st = stage_upload(up, gc->density + 2 * wa, c->b_input_density, wi * 8, ticket, err);
    return st;
}

/* m's six arrays of sz bytes each (row offsets, columns, indices, long
 * rows, their first pieces, pieces; one of 0 bytes stays NULL), counted
 * into *bytes. */
static cz_status matrix_alloc(gpu_matrix *m, const size_t sz[6], size_t *bytes, cz_error *err) {
    void **slot[] = {(void **)&m->row_start, (void **)&m->col,   &m->coef,
                     (void **)&m->long_row,  (void **)&m->first, (void **)&m->pieces};
    for (int k = 0; k < 6; k++) {
        if (!sz[k]) continue;
        const cz_status st = cz_gpu_alloc(slot[k], sz[k], err);
        if (st != CZ_OK) return st;
        *bytes += sz[k];
    }
    return CZ_OK;
}

extern "C" cz_status cz_gpu_circuit_create(cz_gpu_circuit **out, const cz_circuit *c,
                                           cz_error *err) {
    *out = NULL;
    cz_status st = check_host(c, err);
    if (st != CZ_OK) return st;
    cz_gpu_circuit *gc = new (std::nothrow) cz_gpu_circuit();
    if (!gc) return cz_error_set(err, CZ_E_NOMEM, "gpu circuit: out of host memory");
    plan pl[3];
    memset(pl, 0, sizeof pl);
    cz_gpu_uploader *up = NULL;
    unsigned long long *dev_fault = NULL;
    uint64_t ticket = 0;
    size_t need = 0;
    uint32_t max_pieces = 0;
    if ((st = circuit_fields(gc, c, err)) != CZ_OK) goto fail;

    /* plan the long rows, then check the device has room for everything */
    {
        for (int i = 0; i < 3; i++) {
            if ((st = plan_long_rows(&pl[i], matrix_name[i], c->m[i].row_start, gc->rows,
                                     gc->long_threshold, err)) != CZ_OK)
                goto fail;
            gpu_matrix *m = &gc->m[i];
            m->nnz = c->m[i].nnz;
            m->n_long = (uint32_t)pl[i].chunk_long[pl[i].n_chunks];
            m->n_pieces = (uint32_t)pl[i].chunk_pieces[pl[i].n_chunks];
            if (m->n_pieces > max_pieces) max_pieces = m->n_pieces;
            need += ((size_t)gc->rows + 1) * 4 + m->nnz * (4 + c->coef_bytes) +
                    ((size_t)m->n_long * 2 + 1) * 4 + (size_t)m->n_pieces * sizeof(uint2);
        }
        size_t sz[4];
        need += common_bytes(c, max_pieces, sz);
        if ((st = device_room(need, gc, err)) != CZ_OK) goto fail;
        /* allocate everything first: a failure leaves nothing to upload */
        if ((st = common_alloc(gc, sz, &dev_fault, err)) != CZ_OK) goto alloc_fail;
        for (int i = 0; i < 3; i++) {
            gpu_matrix *m = &gc->m[i];
            const size_t msz[] = {((size_t)gc->rows + 1) * 4,  m->nnz * 4,
                                  m->nnz * c->coef_bytes,      (size_t)m->n_long * 4,
                                  ((size_t)m->n_long + 1) * 4, (size_t)m->n_pieces * sizeof(uint2)};
            if ((st = matrix_alloc(m, msz, &gc->bytes, err)) != CZ_OK) goto alloc_fail;
        }
    }

    /* upload (the matrices through pinned staging; the small arrays too) */
    if ((st = cz_gpu_uploader_create(&up, ABC_UPLOAD, err)) != CZ_OK) goto fail;
    for (int i = 0; i < 3 && st == CZ_OK; i++) {
        gpu_matrix *m = &gc->m[i];
        const cz_circuit_matrix *h = &c->m[i];
        st = stage_upload(up, m->row_start, h->row_start, ((size_t)gc->rows + 1) * 4, &ticket, err);
        if (st == CZ_OK) st = stage_upload(up, m->col, h->col, m->nnz * 4, &ticket, err);
        if (st == CZ_OK)
            st = stage_upload(up, m->coef, h->coef, m->nnz * c->coef_bytes, &ticket, err);
        if (st == CZ_OK)
            st = stage_upload(up, m->long_row, pl[i].long_row, (size_t)m->n_long * 4, &ticket, err);
        if (st == CZ_OK)
            st = stage_upload(up, m->first, pl[i].first, ((size_t)m->n_long + 1) * 4, &ticket, err);
        if (st == CZ_OK)
            st = stage_upload(up, m->pieces, pl[i].pieces, (size_t)m->n_pieces * sizeof(uint2),
                              &ticket, err);
        if (st != CZ_OK) cz_error_prefix(err, "gpu circuit: upload of %s", matrix_name[i]);
        if (st == CZ_OK) (void)cz_step_boundary(); /* as in stage_upload */
    }
    if (st == CZ_OK) st = common_upload(up, gc, c, &ticket, err);
    if (st == CZ_OK) st = cz_gpu_uploader_wait(up, ticket, err);
    if (st != CZ_OK) goto fail;

    for (int i = 0; i < 3; i++)
        if ((st = check_device(gc, c, i, gc->m[i].col, gc->m[i].coef, gc->m[i].nnz, 0, dev_fault,
                               err)) != CZ_OK)
            goto fail;
    CZ_CUDA_GOTO(err, st, fail, cudaDeviceSynchronize());
    cz_gpu_uploader_destroy(up);
    cz_gpu_free(dev_fault);
    gc->bytes -= 8;
    for (int i = 0; i < 3; i++) plan_free(&pl[i]);
    *out = gc;
    return CZ_OK;
alloc_fail:
    cz_error_prefix(err, "gpu circuit: %.1f MiB of device memory (%.1f allocated)", MIB(need),
                    MIB(gc->bytes));
fail:
    cz_gpu_uploader_destroy(up);
    cz_gpu_free(dev_fault);
    for (int i = 0; i < 3; i++) plan_free(&pl[i]);
    cz_gpu_circuit_destroy(gc);
    return st;
}

/* Grid of about one wave of resident blocks (the kernels loop), capped by
 * the work. */
template <class K>
static unsigned wave_blocks(K kernel, size_t shmem, int sms, size_t threads_wanted) {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, ABC_THREADS, shmem) !=
            cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    (void)cudaGetLastError();
    const size_t want = (threads_wanted + ABC_THREADS - 1) / ABC_THREADS;
    const size_t wave = (size_t)per_sm * (size_t)sms;
    return (unsigned)(want < wave ? (want ? want : 1) : wave);
}

/* What the kernels read of one matrix, or of one window of a streamed
 * one: row offsets (rows + 1; a window's are the matrix's, less base, its
 * first entry), columns, coefficient indices and the long rows (rows and
 * entries counted from the window's first). */
typedef struct {
    const uint32_t *row_start;
    uint32_t base;
    const uint32_t *col;
    const void *coef;
    uint32_t rows, n_long, n_pieces;
    const uint32_t *long_row, *first;
    const uint2 *pieces;
} rows_view;

template <class I, bool SH, class Z>
static cz_status eval_rows(fr_t *out, const cz_gpu_circuit *gc, const rows_view &v, const Z &z,
                           cz_error *err) {
    const size_t shmem = SH ? (size_t)gc->num_coeffs * sizeof(fr_t) : 0;
    const I *coef = (const I *)v.coef;
    if (v.rows) {
        const unsigned blocks = wave_blocks(k_short_rows<I, SH, Z>, shmem, gc->sms, v.rows);
        k_short_rows<I, SH, Z><<<blocks, ABC_THREADS, shmem>>>(out, v.row_start, v.base, v.col,
                                                               coef, v.rows, gc->long_threshold, z,
                                                               gc->table, gc->num_coeffs);
        CZ_CUDA_LAUNCHED(err);
    }
    if (v.n_pieces) {
        const unsigned blocks =
            wave_blocks(k_pieces<I, SH, Z>, shmem, gc->sms, (size_t)v.n_pieces * 32);
        k_pieces<I, SH, Z><<<blocks, ABC_THREADS, shmem>>>(gc->partial, v.pieces, v.n_pieces, v.col,
                                                           coef, z, gc->table, gc->num_coeffs);
        CZ_CUDA_LAUNCHED(err);
        const unsigned lblocks = wave_blocks(k_long_rows, 0, gc->sms, (size_t)v.n_long * 32);
        k_long_rows<<<lblocks, ABC_THREADS>>>(out, gc->partial, v.long_row, v.first, v.n_long);
        CZ_CUDA_LAUNCHED(err);
    }
    return CZ_OK;
}

template <class Z>
static cz_status eval_view(fr_t *out, const cz_gpu_circuit *gc, const rows_view &v, const Z &z,
                           cz_error *err) {
    if (gc->coef_bytes == 2)
        return gc->shared ? eval_rows<uint16_t, true, Z>(out, gc, v, z, err)
                          : eval_rows<uint16_t, false, Z>(out, gc, v, z, err);
    return gc->shared ? eval_rows<uint32_t, true, Z>(out, gc, v, z, err)
                      : eval_rows<uint32_t, false, Z>(out, gc, v, z, err);
}

template <class Z>
static cz_status eval_streamed(fr_t *const outs[3], const cz_gpu_circuit *gc, const Z &z,
                               cz_error *err);

template <class Z>
static cz_status eval_matrices(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c, const cz_gpu_circuit *gc,
                               const Z &z, cz_error *err) {
    fr_t *const outs[3] = {(fr_t *)dev_a, (fr_t *)dev_b, (fr_t *)dev_c};
    if (gc->stream) {
        const cz_status st = eval_streamed(outs, gc, z, err);
        if (st != CZ_OK) return st;
    } else {
        for (int i = 0; i < 3; i++) {
            if (!outs[i]) continue;
            const gpu_matrix *m = &gc->m[i];
            const rows_view v = {m->row_start, 0,           m->col,      m->coef,  gc->rows,
                                 m->n_long,    m->n_pieces, m->long_row, m->first, m->pieces};
            const cz_status st = eval_view(outs[i], gc, v, z, err);
            if (st != CZ_OK) return cz_error_wrap(err, st, "gpu circuit: %s", matrix_name[i]);
        }
    }
    /* this thread's stream: its kernels waited for their copies on the
     * device; the whole device would also wait for other threads' work */
    CZ_CUDA_TRY(err, cudaStreamSynchronize(0));
    return CZ_OK;
}

extern "C" cz_status cz_gpu_circuit_eval(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c,
                                         const cz_gpu_circuit *gc, const cz_fr *dev_z,
                                         cz_error *err) {
    return eval_matrices(dev_a, dev_b, dev_c, gc, z_whole{(const fr_t *)dev_z}, err);
}

extern "C" cz_status cz_gpu_circuit_eval_packed(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c,
                                                const cz_gpu_circuit *gc, const cz_gpu_packed_z *z,
                                                cz_error *err) {
    if (z->n != (size_t)gc->num_inputs + gc->num_aux)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu circuit: a packed witness of %zu elements for a circuit of %u "
                            "inputs and %u aux",
                            z->n, gc->num_inputs, gc->num_aux);
    const z_packed zp = {z->ones, z->other, z->before, (const fr_t *)z->values};
    return eval_matrices(dev_a, dev_b, dev_c, gc, zp, err);
}

extern "C" cz_status cz_gpu_circuit_eval_host(cz_fr *a, cz_fr *b, cz_fr *c,
                                              const cz_gpu_circuit *gc, const cz_fr *input,
                                              const cz_fr *aux, cz_error *err) {
    const size_t ni = gc->num_inputs, na = gc->num_aux, rows = gc->rows;
    cz_fr *host[3] = {a, b, c}, *dev[3] = {NULL, NULL, NULL}, *z = NULL;
    cz_status st = cz_gpu_alloc((void **)&z, (ni + na) * sizeof(cz_fr), err);
    for (int i = 0; i < 3 && st == CZ_OK; i++)
        if (host[i]) st = cz_gpu_alloc((void **)&dev[i], rows * sizeof(cz_fr), err);
    if (st == CZ_OK) st = cz_gpu_upload(z, input, ni * sizeof(cz_fr), err);
    if (st == CZ_OK) st = cz_gpu_upload(z + ni, aux, na * sizeof(cz_fr), err);
    if (st == CZ_OK) st = cz_gpu_circuit_eval(dev[0], dev[1], dev[2], gc, z, err);
    for (int i = 0; i < 3 && st == CZ_OK; i++)
        if (host[i]) st = cz_gpu_download(host[i], dev[i], rows * sizeof(cz_fr), err);
    cz_gpu_free(z);
    for (int i = 0; i < 3; i++) cz_gpu_free(dev[i]);
    return st;
}

/* ---- streamed circuits ----
 *
 * For a key whose memory plan leaves no room for its circuit resident: the
 * coefficient table and the densities stay, the matrices go up on every
 * evaluation in windows of at most ABC_WINDOW entries (their long rows
 * planned once, at creation), two window buffers in turn, so the next
 * window's copy overlaps the kernels of the current one. At 32 GiB PoRep
 * that is 5.9 GB over PCIe per unit, against 12.9 GB of a, b, c evaluated
 * on the CPU cores and uploaded (the other way, engine/backend.c). */

#define ABC_WINDOW ((uint64_t)1 << 26)

static void stream_free(abc_stream *s) {
    if (!s) return;
    for (int i = 0; i < 3; i++) {
        for (size_t k = 0; k < s->nw[i]; k++) {
            free(s->w[i][k].long_row);
            free(s->w[i][k].first);
            free(s->w[i][k].pieces);
        }
        free(s->w[i]);
    }
    for (int b = 0; b < 2; b++) {
        matrix_free(&s->buf[b].m);
        if (s->buf[b].used) (void)cudaEventDestroy(s->buf[b].used);
    }
    cz_gpu_uploader_destroy(s->up);
    free(s);
}

/* The windows of matrix i of c: from each row r0 the most rows whose entries
 * fit cap (one row at least, however long), each with its long rows. */
static cz_status plan_windows(abc_stream *s, int i, const cz_circuit *c, uint64_t cap,
                              unsigned threshold, cz_error *err) {
    const uint32_t *rs = c->m[i].row_start;
    const uint64_t rows = c->num_constraints;
    size_t room = 0;
    for (uint64_t r0 = 0; r0 < rows;) {
        /* the largest r1 in (r0, rows] with rs[r1] - rs[r0] <= cap (offsets
         * that decrease are found by the window's plan below) */
        uint64_t lo = r0 + 1, hi = rows;
        if ((uint64_t)(rs[lo] - rs[r0]) > cap) hi = lo;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo + 1) / 2;
            if (rs[mid] >= rs[r0] && (uint64_t)(rs[mid] - rs[r0]) <= cap)
                lo = mid;
            else
                hi = mid - 1;
        }
        if (s->nw[i] == room) {
            room = room ? 2 * room : 64;
            abc_window *w = (abc_window *)realloc(s->w[i], room * sizeof *w);
            if (!w) return cz_error_set(err, CZ_E_NOMEM, "gpu circuit: out of host memory");
            s->w[i] = w;
        }
        abc_window *w = &s->w[i][s->nw[i]];
        memset(w, 0, sizeof *w);
        w->r0 = (uint32_t)r0, w->rows = (uint32_t)(lo - r0);
        w->e0 = rs[r0], w->nnz = rs[lo] >= rs[r0] ? rs[lo] - rs[r0] : 0;
        s->nw[i]++; /* owned from here: stream_free frees its lists */
        plan pl;
        cz_status st = plan_long_rows(&pl, matrix_name[i], rs + r0, w->rows, threshold, err);
        if (st != CZ_OK) {
            plan_free(&pl);
            if (st == CZ_E_INVALID_ARG) /* the plan counts rows from r0: name the row itself */
                for (uint64_t j = r0; j < lo; j++)
                    if (rs[j + 1] < rs[j])
                        return cz_error_set(err, st,
                                            "gpu circuit: %s row %llu: row offsets decrease (%u "
                                            "then %u)",
                                            matrix_name[i], (unsigned long long)j, rs[j],
                                            rs[j + 1]);
            return st;
        }
        w->n_long = (uint32_t)pl.chunk_long[pl.n_chunks];
        w->n_pieces = (uint32_t)pl.chunk_pieces[pl.n_chunks];
        w->long_row = pl.long_row, w->first = pl.first, w->pieces = pl.pieces;
        pl.long_row = pl.first = NULL, pl.pieces = NULL;
        plan_free(&pl);
        for (uint32_t p = 0; p < w->n_pieces; p++) /* entries from the window's first */
            w->pieces[p].x -= (uint32_t)w->e0, w->pieces[p].y -= (uint32_t)w->e0;
        if (w->rows > s->max_rows) s->max_rows = w->rows;
        if (w->nnz > s->max_nnz) s->max_nnz = w->nnz;
        if (w->n_long > s->max_long) s->max_long = w->n_long;
        if (w->n_pieces > s->max_pieces) s->max_pieces = w->n_pieces;
        r0 = lo;
    }
    return CZ_OK;
}

/* Window w of matrix i of c into B (copies queued; *ticket: the last). */
static cz_status window_upload(abc_stream *s, gpu_matrix *B, const cz_circuit *c, int i,
                               const abc_window *w, uint32_t coef_bytes, uint64_t *ticket,
                               cz_error *err) {
    const cz_circuit_matrix *h = &c->m[i];
    cz_status st = cz_gpu_stage_bytes(s->up, B->row_start, h->row_start + w->r0,
                                      ((size_t)w->rows + 1) * 4, ticket, err);
    if (st == CZ_OK)
        st = cz_gpu_stage_bytes(s->up, B->col, h->col + w->e0, w->nnz * 4, ticket, err);
    if (st == CZ_OK)
        st = cz_gpu_stage_bytes(s->up, B->coef, (const uint8_t *)h->coef + w->e0 * coef_bytes,
                                w->nnz * coef_bytes, ticket, err);
    return st;
}

/* The long rows of every window of matrix i up, each at its offsets in
 * m's arrays (copies queued; *ticket: the last). */
static cz_status long_rows_upload(abc_stream *s, gpu_matrix *m, int i, uint64_t *ticket,
                                  cz_error *err) {
    cz_status st = CZ_OK;
    for (size_t k = 0; k < s->nw[i] && st == CZ_OK; k++) {
        const abc_window *w = &s->w[i][k];
        st = cz_gpu_stage_bytes(s->up, m->long_row + w->long_at, w->long_row, (size_t)w->n_long * 4,
                                ticket, err);
        if (st == CZ_OK)
            st = cz_gpu_stage_bytes(s->up, m->first + w->first_at, w->first,
                                    ((size_t)w->n_long + 1) * 4, ticket, err);
        if (st == CZ_OK)
            st = cz_gpu_stage_bytes(s->up, m->pieces + w->piece_at, w->pieces,
                                    (size_t)w->n_pieces * sizeof(uint2), ticket, err);
    }
    return st;
}

/* The host copies of matrix i's long rows, once they are up. */
static void long_rows_free_host(abc_stream *s, int i) {
    for (size_t k = 0; k < s->nw[i]; k++) {
        abc_window *w = &s->w[i][k];
        free(w->long_row);
        free(w->first);
        free(w->pieces);
        w->long_row = w->first = NULL, w->pieces = NULL;
    }
}

extern "C" cz_status cz_gpu_circuit_create_streamed(cz_gpu_circuit **out, const cz_circuit *c,
                                                    size_t window_entries, cz_error *err) {
    *out = NULL;
    cz_status st = check_host(c, err);
    if (st != CZ_OK) return st;
    cz_gpu_circuit *gc = new (std::nothrow) cz_gpu_circuit();
    abc_stream *s = (abc_stream *)calloc(1, sizeof *s);
    if (!gc || !s) {
        delete gc;
        free(s);
        return cz_error_set(err, CZ_E_NOMEM, "gpu circuit: out of host memory");
    }
    gc->stream = s;
    const uint64_t cap = window_entries ? window_entries : ABC_WINDOW;
    unsigned long long *dev_fault = NULL;
    uint64_t ticket = 0;
    if ((st = circuit_fields(gc, c, err)) != CZ_OK) goto fail;
    size_t lsz[3][6];
    for (int i = 0; i < 3; i++) {
        if ((st = plan_windows(s, i, c, cap, gc->long_threshold, err)) != CZ_OK) goto fail;
        gpu_matrix *m = &gc->m[i];
        m->nnz = c->m[i].nnz;
        for (size_t k = 0; k < s->nw[i]; k++) {
            abc_window *w = &s->w[i][k];
            w->long_at = m->n_long, w->first_at = m->n_long + k, w->piece_at = m->n_pieces;
            m->n_long += w->n_long;
            m->n_pieces += w->n_pieces;
        }
        /* the long rows of every window stay: only their three arrays */
        const size_t l[] = {0,
                            0,
                            0,
                            (size_t)m->n_long * 4,
                            ((size_t)m->n_long + s->nw[i]) * 4,
                            (size_t)m->n_pieces * sizeof(uint2)};
        memcpy(lsz[i], l, sizeof l);
    }
    {
        size_t sz[4];
        const size_t common = common_bytes(c, s->max_pieces, sz);
        const size_t wsz[] = {
            ((size_t)s->max_rows + 1) * 4, s->max_nnz * 4, s->max_nnz * c->coef_bytes, 0, 0, 0};
        size_t need = common;
        for (size_t k = 0; k < 6; k++) need += 2 * wsz[k] + lsz[0][k] + lsz[1][k] + lsz[2][k];
        if ((st = device_room(need, gc, err)) != CZ_OK) goto fail;
        if ((st = common_alloc(gc, sz, &dev_fault, err)) != CZ_OK) goto fail;
        for (int i = 0; i < 3; i++)
            if ((st = matrix_alloc(&gc->m[i], lsz[i], &gc->bytes, err)) != CZ_OK) goto fail;
        for (int b = 0; b < 2; b++) {
            if ((st = matrix_alloc(&s->buf[b].m, wsz, &gc->bytes, err)) != CZ_OK) goto fail;
            CZ_CUDA_GOTO(err, st, fail,
                         cudaEventCreateWithFlags(&s->buf[b].used, cudaEventDisableTiming));
        }
    }
    if ((st = cz_gpu_uploader_create(&s->up, ABC_UPLOAD, err)) != CZ_OK) goto fail;
    st = common_upload(s->up, gc, c, &ticket, err);
    for (int i = 0; i < 3 && st == CZ_OK; i++) st = long_rows_upload(s, &gc->m[i], i, &ticket, err);
    if (st == CZ_OK) st = cz_gpu_uploader_wait(s->up, ticket, err);
    for (int i = 0; i < 3 && st == CZ_OK; i++) long_rows_free_host(s, i);
    /* every entry checked once, as the resident circuit's are */
    for (int i = 0; i < 3 && st == CZ_OK; i++)
        for (size_t k = 0; k < s->nw[i] && st == CZ_OK; k++) {
            const abc_window *w = &s->w[i][k];
            st = window_upload(s, &s->buf[0].m, c, i, w, gc->coef_bytes, &ticket, err);
            if (st == CZ_OK) st = cz_gpu_uploader_wait(s->up, ticket, err);
            if (st == CZ_OK)
                st = check_device(gc, c, i, s->buf[0].m.col, s->buf[0].m.coef, w->nnz, w->e0,
                                  dev_fault, err);
            /* a step boundary after each window (5.9 GB in all at 32 GiB
             * PoRep): nothing else can use this circuit before it is made */
            if (st == CZ_OK) (void)cz_step_boundary();
        }
    if (st != CZ_OK) goto fail;
    cz_gpu_free(dev_fault);
    gc->bytes -= 8;
    *out = gc;
    return CZ_OK;
fail:
    cz_gpu_free(dev_fault);
    cz_gpu_circuit_destroy(gc);
    return st;
}

extern "C" int cz_gpu_circuit_streamed(const cz_gpu_circuit *gc) {
    return gc && gc->stream;
}

extern "C" cz_status cz_gpu_circuit_set_host(cz_gpu_circuit *gc, const cz_circuit *c,
                                             cz_error *err) {
    if (!gc->stream) return CZ_OK;
    if (c && (c->num_constraints != gc->rows || c->num_inputs != gc->num_inputs ||
              c->num_aux != gc->num_aux || c->coef_bytes != gc->coef_bytes ||
              c->num_coeffs != gc->num_coeffs || c->m[0].nnz != gc->m[0].nnz ||
              c->m[1].nnz != gc->m[1].nnz || c->m[2].nnz != gc->m[2].nnz))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu circuit: a circuit of %llu rows and %llu + %llu + %llu entries "
                            "given to the streamed one of %u rows and %llu + %llu + %llu",
                            (unsigned long long)c->num_constraints, (unsigned long long)c->m[0].nnz,
                            (unsigned long long)c->m[1].nnz, (unsigned long long)c->m[2].nnz,
                            gc->rows, (unsigned long long)gc->m[0].nnz,
                            (unsigned long long)gc->m[1].nnz, (unsigned long long)gc->m[2].nnz);
    gc->stream->host = c;
    return CZ_OK;
}

template <class Z>
static cz_status eval_streamed(fr_t *const outs[3], const cz_gpu_circuit *gc, const Z &z,
                               cz_error *err) {
    abc_stream *s = gc->stream;
    const cz_circuit *c = s->host;
    if (!c)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu circuit: a streamed circuit needs its host circuit "
                            "(cz_gpu_circuit_set_host)");
    /* Only queued here: a window's copies wait on the device for the kernels
     * that read its buffer last (two windows ago), its kernels for its
     * copies. From a page-locked circuit nothing blocks this thread (the
     * staging buffers of an unlocked one do). */
    unsigned k = 0;
    for (int i = 0; i < 3; i++) {
        if (!outs[i]) continue;
        const gpu_matrix *m = &gc->m[i];
        for (size_t n = 0; n < s->nw[i]; n++, k ^= 1) {
            const abc_window *w = &s->w[i][n];
            abc_window_buf *buf = &s->buf[k];
            const gpu_matrix *B = &buf->m;
            uint64_t ticket = 0;
            cz_status st = cz_gpu_uploader_after(s->up, buf->used, err);
            if (st == CZ_OK) st = window_upload(s, &buf->m, c, i, w, gc->coef_bytes, &ticket, err);
            if (st == CZ_OK) st = cz_gpu_uploader_queue_wait(s->up, ticket, err);
            if (st == CZ_OK) {
                const rows_view v = {B->row_start,
                                     (uint32_t)w->e0,
                                     B->col,
                                     B->coef,
                                     w->rows,
                                     w->n_long,
                                     w->n_pieces,
                                     m->long_row + w->long_at,
                                     m->first + w->first_at,
                                     m->pieces + w->piece_at};
                st = eval_view(outs[i] + w->r0, gc, v, z, err);
            }
            if (st != CZ_OK)
                return cz_error_wrap(err, st, "gpu circuit: %s, streamed rows from %u",
                                     matrix_name[i], w->r0);
            CZ_CUDA_TRY(err, cudaEventRecord(buf->used, 0));
        }
    }
    return CZ_OK;
}
