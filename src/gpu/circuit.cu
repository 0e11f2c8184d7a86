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

/* acc += coeff(ci) * z[col] with 1 and -1 special-cased. */
template <class I, bool SH>
static __device__ __forceinline__ void add_entry(fr_t &acc, const fr_t *z, const uint32_t *col,
                                                 const I *coef, uint32_t k, const fr_t *tab) {
    const uint32_t ci = __ldg(coef + k);
    fr_t x = ld_fr(z + __ldg(col + k));
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
template <class I, bool SH>
__global__ void __launch_bounds__(ABC_THREADS)
    k_short_rows(fr_t *out, const uint32_t *row_start, const uint32_t *col, const I *coef,
                 uint32_t rows, uint32_t long_threshold, const fr_t *z, const fr_t *table,
                 uint32_t num_coeffs) {
    const fr_t *tab = block_table<SH>(table, num_coeffs);
    for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < rows;
         j += gridDim.x * blockDim.x) {
        const uint32_t b = __ldg(row_start + j), e = __ldg(row_start + j + 1);
        if (e - b > long_threshold) continue; /* a long row: the warp kernels write it */
        fr_t acc = fr_t::zero();
        for (uint32_t k = b; k < e; k++) add_entry<I, SH>(acc, z, col, coef, k, tab);
        st_fr(out + j, acc);
    }
}

/* Long rows, step 1: one warp per piece (grid-stride over warps; the loop
 * condition is the same for the whole warp, so warp_sum sees all lanes). */
template <class I, bool SH>
__global__ void __launch_bounds__(ABC_THREADS)
    k_pieces(fr_t *partial, const uint2 *pieces, uint32_t n_pieces, const uint32_t *col,
             const I *coef, const fr_t *z, const fr_t *table, uint32_t num_coeffs) {
    const fr_t *tab = block_table<SH>(table, num_coeffs);
    const uint32_t lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;
    for (uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < n_pieces; w += warps) {
        const uint2 p = pieces[w];
        fr_t acc = fr_t::zero();
        for (uint32_t k = lane; k < p.y - p.x; k += 32) /* <= 256: no wrap-around near 2^32 */
            add_entry<I, SH>(acc, z, col, coef, p.x + k, tab);
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

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
} copy_ctx;

static void copy_range(void *vctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const copy_ctx *c = (const copy_ctx *)vctx;
    memcpy(c->dst + begin, c->src + begin, end - begin);
}

/* host[0, bytes) -> dev through the staging buffers (the CPU copies chunk
 * k + 1 while the DMA engine sends chunk k); *ticket: the last copy. */
static cz_status stage_upload(cz_gpu_uploader *up, void *dev, const void *host, size_t bytes,
                              uint64_t *ticket, cz_error *err) {
    for (size_t off = 0; off < bytes; off += ABC_UPLOAD) {
        const size_t len = bytes - off < ABC_UPLOAD ? bytes - off : ABC_UPLOAD;
        void *stage = NULL;
        cz_status st = cz_gpu_uploader_stage(up, &stage, err);
        if (st != CZ_OK) return st;
        copy_ctx c = {(uint8_t *)stage, (const uint8_t *)host + off};
        cz_parallel_for(len, (size_t)1 << 20, copy_range, &c);
        if ((st = cz_gpu_uploader_send(up, (uint8_t *)dev + off, len, ticket, err)) != CZ_OK)
            return st;
    }
    return CZ_OK;
}

extern "C" void cz_gpu_circuit_destroy(cz_gpu_circuit *gc) {
    if (!gc) return;
    for (int i = 0; i < 3; i++) {
        gpu_matrix *m = &gc->m[i];
        cz_gpu_free(m->row_start);
        cz_gpu_free(m->col);
        cz_gpu_free(m->coef);
        cz_gpu_free(m->long_row);
        cz_gpu_free(m->first);
        cz_gpu_free(m->pieces);
    }
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

/* Runs k_check on matrix i and names the first fault. */
static cz_status check_device(const cz_gpu_circuit *gc, const cz_circuit *c, int i,
                              unsigned long long *dev_fault, cz_error *err) {
    const gpu_matrix *m = &gc->m[i];
    unsigned long long fault = ABC_NO_FAULT;
    if (!m->nnz) return CZ_OK;
    CZ_CUDA_TRY(err, cudaMemcpy(dev_fault, &fault, sizeof fault, cudaMemcpyHostToDevice));
    const unsigned blocks =
        (unsigned)(m->nnz / ABC_THREADS < 4096 ? m->nnz / ABC_THREADS + 1 : 4096);
    const uint32_t vars = gc->num_inputs + gc->num_aux;
    if (gc->coef_bytes == 2)
        k_check<uint16_t><<<blocks, ABC_THREADS>>>(dev_fault, m->col, (const uint16_t *)m->coef,
                                                   m->nnz, vars, gc->num_coeffs);
    else
        k_check<uint32_t><<<blocks, ABC_THREADS>>>(dev_fault, m->col, (const uint32_t *)m->coef,
                                                   m->nnz, vars, gc->num_coeffs);
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaMemcpy(&fault, dev_fault, sizeof fault, cudaMemcpyDeviceToHost));
    if (fault == ABC_NO_FAULT) return CZ_OK;
    const cz_circuit_matrix *h = &c->m[i];
    const uint64_t k = fault;
    const uint32_t ci =
        c->coef_bytes == 2 ? ((const uint16_t *)h->coef)[k] : ((const uint32_t *)h->coef)[k];
    return cz_error_set(err, CZ_E_INVALID_ARG,
                        "gpu circuit: %s row %llu, entry %llu: column %u (of %u variables), "
                        "coefficient index %u (of %u)",
                        matrix_name[i],
                        (unsigned long long)row_of(h->row_start, c->num_constraints, k),
                        (unsigned long long)k, h->col[k], vars, ci, c->num_coeffs);
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
    const size_t wa = words64(c->num_aux), wi = words64(c->num_inputs);
    size_t need = (size_t)c->num_coeffs * sizeof(fr_t) + (2 * wa + wi) * 8 + 8;
    uint32_t max_pieces = 0;
    gc->num_inputs = c->num_inputs, gc->num_aux = c->num_aux;
    gc->rows = (uint32_t)c->num_constraints;
    gc->coef_bytes = c->coef_bytes, gc->num_coeffs = c->num_coeffs;
    const cz_gpu_settings *knobs = cz_gpu_settings_get();
    gc->long_threshold = knobs->abc_long;
    gc->shared = c->num_coeffs <= ABC_SHARED_MAX && knobs->abc_shared != 0;
    gc->a_aux_count = cz_density_popcount(c->a_aux_density, c->num_aux);
    gc->b_aux_count = cz_density_popcount(c->b_aux_density, c->num_aux);
    gc->b_input_count = cz_density_popcount(c->b_input_density, c->num_inputs);
    {
        int dev = 0;
        CZ_CUDA_GOTO(err, st, fail, cudaGetDevice(&dev));
        CZ_CUDA_GOTO(err, st, fail,
                     cudaDeviceGetAttribute(&gc->sms, cudaDevAttrMultiProcessorCount, dev));
    }

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
        need += (size_t)max_pieces * sizeof(fr_t);
        size_t free_b = 0, total_b = 0, budget = 0;
        if ((st = cz_gpu_mem_info(&free_b, &total_b, err)) != CZ_OK) goto fail;
        budget = free_b;
        if ((st = cz_gpu_settings_status(err)) != CZ_OK) goto fail; /* a bad CZ_GPU_MEM_LIMIT */
        if (knobs->has_mem_limit && knobs->mem_limit < budget) budget = (size_t)knobs->mem_limit;
        if (need > budget) {
            st = cz_error_set(err, CZ_E_NOMEM,
                              "gpu circuit: the device is too small: %.1f MiB needed (matrices "
                              "of %llu + %llu + %llu entries, %llu rows), %.1f MiB usable (%.1f "
                              "free of %.1f%s)",
                              MIB(need), (unsigned long long)gc->m[0].nnz,
                              (unsigned long long)gc->m[1].nnz, (unsigned long long)gc->m[2].nnz,
                              (unsigned long long)gc->rows, MIB(budget), MIB(free_b), MIB(total_b),
                              budget < free_b ? ", capped by CZ_GPU_MEM_LIMIT" : "");
            goto fail;
        }
        /* allocate everything first: a failure leaves nothing to upload */
        void **slot[] = {(void **)&gc->table, (void **)&gc->density, (void **)&gc->partial,
                         (void **)&dev_fault};
        const size_t sz[] = {(size_t)c->num_coeffs * sizeof(fr_t), (2 * wa + wi) * 8,
                             (size_t)max_pieces * sizeof(fr_t), 8};
        for (int k = 0; k < 4; k++) {
            if ((st = cz_gpu_alloc(slot[k], sz[k], err)) != CZ_OK) goto alloc_fail;
            gc->bytes += sz[k];
        }
        for (int i = 0; i < 3; i++) {
            gpu_matrix *m = &gc->m[i];
            void **mslot[] = {(void **)&m->row_start, (void **)&m->col,   &m->coef,
                              (void **)&m->long_row,  (void **)&m->first, (void **)&m->pieces};
            const size_t msz[] = {((size_t)gc->rows + 1) * 4,  m->nnz * 4,
                                  m->nnz * c->coef_bytes,      (size_t)m->n_long * 4,
                                  ((size_t)m->n_long + 1) * 4, (size_t)m->n_pieces * sizeof(uint2)};
            for (int k = 0; k < 6; k++) {
                if ((st = cz_gpu_alloc(mslot[k], msz[k], err)) != CZ_OK) goto alloc_fail;
                gc->bytes += msz[k];
            }
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
    }
    if (st == CZ_OK)
        st = stage_upload(up, gc->table, c->coeffs, (size_t)c->num_coeffs * sizeof(fr_t), &ticket,
                          err);
    if (st == CZ_OK) st = stage_upload(up, gc->density, c->a_aux_density, wa * 8, &ticket, err);
    if (st == CZ_OK)
        st = stage_upload(up, gc->density + wa, c->b_aux_density, wa * 8, &ticket, err);
    if (st == CZ_OK)
        st = stage_upload(up, gc->density + 2 * wa, c->b_input_density, wi * 8, &ticket, err);
    if (st == CZ_OK) st = cz_gpu_uploader_wait(up, ticket, err);
    if (st != CZ_OK) goto fail;

    for (int i = 0; i < 3; i++)
        if ((st = check_device(gc, c, i, dev_fault, err)) != CZ_OK) goto fail;
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

template <class I, bool SH>
static cz_status eval_matrix(fr_t *out, const cz_gpu_circuit *gc, const gpu_matrix *m,
                             const fr_t *z, cz_error *err) {
    const size_t shmem = SH ? (size_t)gc->num_coeffs * sizeof(fr_t) : 0;
    const I *coef = (const I *)m->coef;
    if (gc->rows) {
        const unsigned blocks = wave_blocks(k_short_rows<I, SH>, shmem, gc->sms, gc->rows);
        k_short_rows<I, SH><<<blocks, ABC_THREADS, shmem>>>(out, m->row_start, m->col, coef,
                                                            gc->rows, gc->long_threshold, z,
                                                            gc->table, gc->num_coeffs);
        CZ_CUDA_LAUNCHED(err);
    }
    if (m->n_pieces) {
        const unsigned blocks =
            wave_blocks(k_pieces<I, SH>, shmem, gc->sms, (size_t)m->n_pieces * 32);
        k_pieces<I, SH><<<blocks, ABC_THREADS, shmem>>>(gc->partial, m->pieces, m->n_pieces, m->col,
                                                        coef, z, gc->table, gc->num_coeffs);
        CZ_CUDA_LAUNCHED(err);
        const unsigned lblocks = wave_blocks(k_long_rows, 0, gc->sms, (size_t)m->n_long * 32);
        k_long_rows<<<lblocks, ABC_THREADS>>>(out, gc->partial, m->long_row, m->first, m->n_long);
        CZ_CUDA_LAUNCHED(err);
    }
    return CZ_OK;
}

extern "C" cz_status cz_gpu_circuit_eval(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c,
                                         const cz_gpu_circuit *gc, const cz_fr *dev_z,
                                         cz_error *err) {
    cz_fr *outs[3] = {dev_a, dev_b, dev_c};
    const fr_t *z = (const fr_t *)dev_z;
    for (int i = 0; i < 3; i++) {
        if (!outs[i]) continue;
        fr_t *o = (fr_t *)outs[i];
        const gpu_matrix *m = &gc->m[i];
        cz_status st;
        if (gc->coef_bytes == 2)
            st = gc->shared ? eval_matrix<uint16_t, true>(o, gc, m, z, err)
                            : eval_matrix<uint16_t, false>(o, gc, m, z, err);
        else
            st = gc->shared ? eval_matrix<uint32_t, true>(o, gc, m, z, err)
                            : eval_matrix<uint32_t, false>(o, gc, m, z, err);
        if (st != CZ_OK) return cz_error_wrap(err, st, "gpu circuit: %s", matrix_name[i]);
    }
    CZ_CUDA_TRY(err, cudaDeviceSynchronize());
    return CZ_OK;
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
