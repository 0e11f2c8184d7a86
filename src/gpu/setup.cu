/* The development setup on the device (gpu.h; groth16/setup.h: NOT a
 * trusted setup). The CPU setup's construction, step for step, with every
 * heavy part on the device:
 *
 *  1. the circuit resident (cz_gpu_circuit_create: its checks, its arrays);
 *  2. the powers of tau, tau^i = lo[i mod 2^b] hi[i >> b] from two host
 *     tables of about sqrt(m) entries (one product per element), and their
 *     inverse NTT (gpu/ntt.cu, natural order): the Lagrange basis L;
 *  3. per matrix the column sums u = M^T L: each entry's value
 *     row << 32 | coefficient index (the row by a max-scan over marks at the
 *     row starts), a stable radix sort by column (CUB), and a reduction by
 *     key of coefficient * L[row] (CUB ReduceByKey), scattered into u. No
 *     atomics on field elements: field addition is exact and commutative,
 *     so the sums are the CPU's, byte for byte, whatever the order;
 *  4. the checks (evaluations against the densities; ic / l scalars non-zero)
 *     find the first failing variable on the device (atomicMin of an index,
 *     deterministic) and the host words the refusal with the CPU's function
 *     (groth16/setup.h), so both refuse alike;
 *  5. the scalars: ic / l = (beta u + alpha v + w) / (gamma or delta) in
 *     place of w; h = tau^i Z(tau) / delta generated per chunk from the
 *     power tables; a and b the non-zero u and v in order (CUB
 *     DeviceSelect, the CPU's compact_nonzero);
 *  6. fixed-base multiplications per chunk of points: one thread per point
 *     walks the signed c-bit windows of its scalar (the MSM's recoding: the
 *     scalar negated when above (r - 1) / 2, so W = ceil(255 / c) windows
 *     absorb the last carry) and adds the table entry |d| 2^(c w) G, negated
 *     by sign, with XYZZ mixed additions (exceptional cases are branches,
 *     so every result is exact); the table (W 2^(c-1) affine points, 4.3 MB
 *     for G1 at c = 12) is built on the host and read through L2;
 *  7. affine conversion: thread t takes points t, t + T, ... (K = 32 per
 *     thread, coalesced), multiplies their ZZ ZZZ forward, inverts once
 *     (Fermat), and peels each 1 / (ZZ ZZZ) off backward: x = X ZZZ / (ZZ ZZZ),
 *     y = Y ZZ / (ZZ ZZZ); optionally encoded on the device in the file's
 *     uncompressed form (big-endian, G2 as c1 || c0), same bytes as
 *     ec/encoding.c;
 *  8. each chunk's points leave through two pinned buffers on a copy stream
 *     of their own: while chunk k computes, chunk k - 1 is copied and the
 *     host hands chunk k - 2 ... k - 1 to the sink (memcpy into a
 *     cz_groth16_params, or write(2) into the .params file).
 *
 * Cost model at 32 GiB PoRep (n_h 134 M, l 130 M, a 130 M, b 33 M in G1 and
 * G2): with c = 12, 21 mixed additions (10 Fp products each) and ~15 more
 * products per G1 point: ~9.6e10 Fp products for 427 M G1 points, ~2e10 for
 * 33 M G2 points (Fp2 = 3 products), i.e. ~4.5 s at the H200's 2.7e10 Fp
 * products per second and perhaps twice that in practice; the column sums
 * sort 722 M entries (~1 s), the NTT is 40 ms. The output is 47 GB: about
 * 1-2 s of PCIe, overlapped, and then the disk's speed. Device memory at
 * its peak (the column sums): the circuit (6 GB), L (4.3 GB), u, v, w
 * (12.5 GB) and one matrix's sort (24 bytes an entry plus 36 per column:
 * ~14 GB for a 400 M-entry matrix), ~37 GB; the circuit and L are freed
 * after the checks, then the compacted scalars (4.2 GB) and the chunk
 * buffers (~4 GB at 2^22 points) join u, v, w: ~21 GB. Host memory: two
 * pinned chunk buffers (1.6 GB) besides the caller's circuit. */
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "gpu/common.cuh"
#include "gpu/settings.h"
#include "util/log.h"
#include "gpu/curve.cuh"
#include "gpu/gpu.h"
#include "gpu/internal.cuh"

extern "C" {
#include "ec/encoding.h"
#include "groth16/params_writer.h"
#include "r1cs/circuit.h"
#include "util/parallel.h"
}

using namespace cz_gpu;

#define SETUP_THREADS  256
#define AFFINE_K       32 /* points per thread of the affine conversion: one inversion each */
#define DEFAULT_CHUNK  ((size_t)1 << 22)
#define DEFAULT_WINDOW 12
#define NO_FAULT       (~0ull)
#define VEC_IC         CZ_GROTH16_PARAMS_VECTORS /* the vk's ic, after h .. b_g2 */

/* Progress units (about equal device time): one G1 point; the rest by
 * estimate (to be refined with H200 measurements). */
#define G2_UNITS            3
#define UPLOAD_UNITS(bytes) ((bytes) / 512)
#define LAGRANGE_UNITS(m)   ((m) / 64)
#define COLUMN_UNITS(nnz)   ((nnz) / 32)

static const char *const vector_name[CZ_GROTH16_PARAMS_VECTORS + 1] = {"h",    "l",    "a",
                                                                       "b_g1", "b_g2", "ic"};

/* ---- device side ---- */

/* (r - 1) / 2 as 32-bit limbs (the MSM's bound: scalars above it are
 * negated, so they stay below 2^254). */
static __device__ __forceinline__ bool fr_above_half(const fr_t &s) {
    constexpr uint32_t H[8] = {0x80000000u, 0x7fffffffu, 0x7fff2dffu, 0xa9ded201u,
                               0x04d0ec02u, 0x199cec04u, 0x94cebea4u, 0x39f6d3a9u};
#pragma unroll
    for (int i = 7; i >= 0; i--) {
        if (s.v[i] != H[i]) return s.v[i] > H[i];
    }
    return false;
}

#define GRID_STRIDE(i, n)                                                                          \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                        \
         i += (size_t)gridDim.x * blockDim.x)

/* out[i] = lo[e mod 2^lo_bits] * hi[e >> lo_bits] = b^e f, e = first + i
 * (hi carries the factor f). */
__global__ void k_powers(fr_t *out, size_t n, uint64_t first, const fr_t *lo, const fr_t *hi,
                         unsigned lo_bits) {
    GRID_STRIDE(i, n) {
        const uint64_t e = first + i;
        st16(out + i,
             fr_t::mul(ld16(lo + (e & ((1ull << lo_bits) - 1))), ld16(hi + (e >> lo_bits))));
    }
}

/* mark[row_start[j]] = j << 32 for every non-empty row j (the starts of
 * non-empty rows are distinct; other entries stay 0). */
__global__ void k_mark_rows(uint64_t *mark, const uint32_t *row_start, uint32_t rows) {
    GRID_STRIDE(j, rows) {
        const uint32_t b = row_start[j], e = row_start[j + 1];
        if (b < e) mark[b] = (uint64_t)j << 32;
    }
}

template <class I> __global__ void k_or_coef(uint64_t *v, const I *coef, uint64_t nnz) {
    GRID_STRIDE(k, nnz) v[k] |= (uint32_t)coef[k];
}

struct max_u64 {
    __device__ uint64_t operator()(uint64_t a, uint64_t b) const {
        return a > b ? a : b;
    }
};

/* An entry's term coefficient * L[row], from row << 32 | coefficient index. */
struct term_of {
    const fr_t *lagrange, *table;
    __device__ fr_t operator()(uint64_t rc) const {
        const fr_t l = ld16(lagrange + (uint32_t)(rc >> 32));
        const uint32_t ci = (uint32_t)rc;
        if (ci == CZ_CIRCUIT_COEF_ONE) return l;
        if (ci == CZ_CIRCUIT_COEF_MINUS_ONE) return fr_t::neg(l);
        return fr_t::mul(l, ld16(table + ci));
    }
};

struct fr_add {
    __device__ fr_t operator()(const fr_t &a, const fr_t &b) const {
        return fr_t::add(a, b);
    }
};

struct fr_nonzero {
    __device__ bool operator()(const fr_t &x) const {
        return !x.is_zero();
    }
};

/* out[cols[k]] = sums[k] for k < *runs. */
__global__ void k_scatter(fr_t *out, const uint32_t *cols, const fr_t *sums, const uint64_t *runs) {
    const uint64_t n = *runs;
    GRID_STRIDE(k, n) st16(out + cols[k], ld16(sums + k));
}

static __device__ __forceinline__ bool bit_of(const uint64_t *bits, uint64_t i) {
    return (bits[i / 64] >> (i % 64)) & 1;
}

/* *first = the least variable whose evaluations disagree with the
 * densities (cz_groth16_setup_check_variable's rule). */
__global__ void k_check_density(unsigned long long *first, const fr_t *u, const fr_t *v,
                                uint32_t ni, uint32_t na, const uint64_t *a_aux,
                                const uint64_t *b_aux, const uint64_t *b_in) {
    GRID_STRIDE(i, (size_t)ni + na) {
        const bool uz = ld16(u + i).is_zero(), vz = ld16(v + i).is_zero();
        bool bad;
        if (i < ni) {
            bad = uz || (!vz) != bit_of(b_in, i);
        } else {
            const uint64_t k = i - ni;
            bad = (!uz) != bit_of(a_aux, k) || (!vz) != bit_of(b_aux, k);
        }
        if (bad) atomicMin(first, (unsigned long long)i);
    }
}

/* w[i] = (beta u_i + alpha v_i + w_i) * (gamma^-1 for inputs, delta^-1 for
 * aux); *first_zero = the least i whose scalar is 0. */
__global__ void k_ext(fr_t *w, const fr_t *u, const fr_t *v, size_t nv, uint32_t ni, fr_t alpha,
                      fr_t beta, fr_t gamma_inv, fr_t delta_inv, unsigned long long *first_zero) {
    GRID_STRIDE(i, nv) {
        fr_t acc = fr_t::mul(beta, ld16(u + i));
        acc = fr_t::add(acc, fr_t::mul(alpha, ld16(v + i)));
        acc = fr_t::add(acc, ld16(w + i));
        acc = fr_t::mul(acc, i < ni ? gamma_inv : delta_inv);
        st16(w + i, acc);
        if (acc.is_zero()) atomicMin(first_zero, (unsigned long long)i);
    }
}

/* Blocks of the fixed-base kernel: G1 capped at 128 registers (4 blocks of
 * 128 threads, 16 warps per SM, as the MSM's accumulation), G2 as it comes
 * (about 250 registers). */
#define FB_THREADS 128
template <class F> struct fb_blocks { static constexpr int min = 4; };
template <> struct fb_blocks<fp2_t> { static constexpr int min = 1; };

/* out[i] = scalars[i] * G in XYZZ form from the window table of G:
 * entry w 2^(c-1) + |d| - 1 is |d| 2^(c w) G for 1 <= |d| <= 2^(c-1). */
template <class F>
__global__ void __launch_bounds__(FB_THREADS, fb_blocks<F>::min)
    k_fixed_base(xyzz<F> *out, const fr_t *scalars, size_t n, const affine<F> *table, unsigned c,
                 unsigned W) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t s = ld16(scalars + i).from_mont();
    uint32_t neg = 0;
    if (fr_above_half(s)) {
        s = fr_t::sub(fr_t::zero(), s); /* r - s as an integer: s is in [1, r) */
        neg = 1;
    }
    uint32_t w9[9];
#pragma unroll
    for (int j = 0; j < 8; j++) w9[j] = s.v[j];
    w9[8] = 0;
    const uint32_t half = 1u << (c - 1), full = 1u << c, mask = full - 1;
    uint32_t carry = 0;
    xyzz<F> acc = xyzz<F>::inf();
    for (unsigned w = 0; w < W; w++) {
        const unsigned pos = w * c, word = pos >> 5, off = pos & 31;
        const uint32_t lo = word < 9 ? w9[word] : 0, hi = word + 1 < 9 ? w9[word + 1] : 0;
        const uint32_t bits = (uint32_t)((((uint64_t)hi << 32) | lo) >> off) & mask;
        const uint32_t v = bits + carry;
        uint32_t mag = v, sign = 0;
        carry = 0;
        if (v > half) {
            mag = full - v;
            sign = 1;
            carry = 1;
        }
        if (mag) {
            affine<F> p = ld16(table + (size_t)w * half + mag - 1);
            if (sign ^ neg) p.y = F::neg(p.y);
            acc.add_affine(p);
        }
    }
    st16(out + i, acc);
}

/* The uncompressed encoding's words (ec/encoding.c): an Fp element as 48
 * big-endian bytes, i.e. its canonical 32-bit limbs from the top, each
 * byte-swapped. */
static __device__ __forceinline__ void be_words(uint32_t *w, const fp_t &x) {
    const fp_t c = x.from_mont();
#pragma unroll
    for (int i = 0; i < 12; i++) w[i] = __byte_perm(c.v[11 - i], 0, 0x0123);
}
static __device__ __forceinline__ void encode_coords(uint32_t *w, const fp_t &x, const fp_t &y) {
    be_words(w, x);
    be_words(w + 12, y);
}
static __device__ __forceinline__ void encode_coords(uint32_t *w, const fp2_t &x, const fp2_t &y) {
    be_words(w, x.c1);
    be_words(w + 12, x.c0);
    be_words(w + 24, y.c1);
    be_words(w + 36, y.c0);
}

template <class F>
static __device__ __forceinline__ void store_encoded(uint8_t *out, size_t j, const affine<F> &p) {
    constexpr int words = (int)sizeof(affine<F>) / 4; /* 24 (G1) or 48 (G2): encoded = affine */
    uint32_t w[words];
    if (p.is_inf()) {
#pragma unroll
        for (int i = 0; i < words; i++) w[i] = 0;
        w[0] = 0x40; /* byte 0: the infinity flag */
    } else {
        encode_coords(w, p.x, p.y);
    }
    uint4 *d = reinterpret_cast<uint4 *>(out + j * sizeof(affine<F>));
#pragma unroll
    for (int i = 0; i < words / 4; i++)
        d[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
}

/* XYZZ -> affine (or its encoding) for in[0..n): thread t < T converts
 * t, t + T, ... with one inversion; scratch[j] holds the product of the
 * thread's ZZ ZZZ before j. */
template <class F, bool ENC>
__global__ void __launch_bounds__(SETUP_THREADS)
    k_to_affine(void *out, const xyzz<F> *in, F *scratch, size_t n, size_t T) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T || t >= n) return;
    F acc = F::one();
    size_t K = 0;
    for (size_t j = t; j < n; j += T, K++) {
        const xyzz<F> p = ld16(in + j);
        st16(scratch + j, acc);
        if (!p.is_inf()) acc = F::mul(acc, F::mul(p.ZZ, p.ZZZ));
    }
    F inv = field_inv(acc); /* (prod of the thread's ZZ ZZZ)^-1 */
    for (size_t k = K; k-- > 0;) {
        const size_t j = t + k * T;
        const xyzz<F> p = ld16(in + j);
        affine<F> r = affine<F>::inf();
        if (!p.is_inf()) {
            const F d = F::mul(p.ZZ, p.ZZZ);
            const F dinv = F::mul(inv, ld16(scratch + j)); /* 1 / (ZZ ZZZ) */
            inv = F::mul(inv, d);
            r.x = F::mul(p.X, F::mul(p.ZZZ, dinv));
            r.y = F::mul(p.Y, F::mul(p.ZZ, dinv));
        }
        if (ENC)
            store_encoded((uint8_t *)out, j, r);
        else
            st16((affine<F> *)out + j, r);
    }
}

/* ---- host side ---- */

/* Where the points go: begin once with the vk (ic included) and the counts,
 * then put each chunk of a vector in file order (encoded, or cz_g?_affine
 * arrays when !encoded). */
typedef struct setup_sink {
    int encoded;
    cz_status (*begin)(struct setup_sink *s, const cz_groth16_vk *vk, const uint64_t *counts,
                       cz_error *err);
    cz_status (*put)(struct setup_sink *s, unsigned vector, uint64_t first, const void *points,
                     uint64_t n, cz_error *err);
} setup_sink;

typedef struct {
    setup_sink base;
    cz_groth16_params *out;
} memory_sink;

typedef struct {
    setup_sink base;
    const char *path;
    const cz_groth16_params_tap *tap;
    cz_groth16_params_writer *w;
} file_sink;

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
} copy_job;

static void copy_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const copy_job *j = (const copy_job *)ctx;
    memcpy(j->dst + begin, j->src + begin, end - begin);
}

static cz_status memory_begin(setup_sink *s, const cz_groth16_vk *vk, const uint64_t *counts,
                              cz_error *err) {
    (void)vk; /* moved into the params when the setup is done */
    cz_groth16_params *p = ((memory_sink *)s)->out;
    p->n_h = counts[0], p->n_l = counts[1], p->n_a = counts[2];
    p->n_b_g1 = counts[3], p->n_b_g2 = counts[4];
    void **arr[5] = {(void **)&p->h, (void **)&p->l, (void **)&p->a, (void **)&p->b_g1,
                     (void **)&p->b_g2};
    for (int v = 0; v < 5; v++) {
        const size_t sz = v == 4 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
        *arr[v] = malloc((counts[v] ? counts[v] : 1) * sz);
        if (!*arr[v])
            return cz_error_set(err, CZ_E_NOMEM,
                                "gpu setup: out of host memory for %s (%llu points)",
                                vector_name[v], (unsigned long long)counts[v]);
    }
    return CZ_OK;
}

static cz_status memory_put(setup_sink *s, unsigned vector, uint64_t first, const void *points,
                            uint64_t n, cz_error *err) {
    (void)err;
    cz_groth16_params *p = ((memory_sink *)s)->out;
    uint8_t *arr[5] = {(uint8_t *)p->h, (uint8_t *)p->l, (uint8_t *)p->a, (uint8_t *)p->b_g1,
                       (uint8_t *)p->b_g2};
    const size_t sz = vector == 4 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
    copy_job j = {arr[vector] + first * sz, (const uint8_t *)points};
    cz_parallel_for((size_t)(n * sz), (size_t)1 << 20, copy_task, &j);
    return CZ_OK;
}

static cz_status file_begin(setup_sink *s, const cz_groth16_vk *vk, const uint64_t *counts,
                            cz_error *err) {
    file_sink *f = (file_sink *)s;
    return cz_groth16_params_writer_open(&f->w, f->path, vk, counts, f->tap, err);
}

static cz_status file_put(setup_sink *s, unsigned vector, uint64_t first, const void *points,
                          uint64_t n, cz_error *err) {
    (void)first; /* the writer checks the order itself */
    return cz_groth16_params_writer_put(((file_sink *)s)->w, vector, (const uint8_t *)points, n,
                                        err);
}

/* One chunk on its way out. */
typedef struct {
    int busy;
    unsigned vector; /* 0..4, or VEC_IC */
    uint64_t first, n;
} pending_chunk;

typedef struct {
    const cz_circuit *c;
    cz_groth16_setup_plan plan;
    const cz_groth16_secrets *s;
    setup_sink *sink;
    cz_groth16_vk vk; /* ic filled before begin */
    cz_groth16_setup_progress_fn progress;
    void *progress_ctx;
    const char *stage;
    uint64_t done, total;

    cz_gpu_circuit *gc;
    cudaStream_t compute, copy;
    cudaEvent_t computed[2], copied[2];
    int copied_recorded[2];
    size_t chunk;
    unsigned window, windows, lo_bits;

    affine<fp_t> *table1;
    affine<fp2_t> *table2;
    fr_t *pow_lo, *pow_hi, *h_hi; /* tau^i, tau^(i 2^lo_bits), the latter times Z(tau) / delta */
    fr_t *u, *v, *w, *compact;
    fr_t *scal;     /* one chunk of generated scalars (h) */
    void *xyzz_buf; /* one chunk of XYZZ results (G2 size) */
    void *fscratch; /* one chunk of field elements (G2 size) */
    void *dev_out[2];
    void *host_out[2]; /* pinned */
    pending_chunk pend[2];
    uint64_t chunks;
    /* $CZ_GPU_SETUP_PROFILE=1: where the host's time went, printed at the end */
    int profile;
    uint64_t wait_ns, put_ns, start_ns, stage_ns;
} gpu_setup;

static void progress_report(gpu_setup *g, uint64_t units) {
    g->done += units;
    if (g->done > g->total) g->done = g->total;
    if (g->progress) g->progress(g->progress_ctx, g->stage, g->done, g->total);
}

static void profile_stage_end(gpu_setup *g) {
    if (g->profile && g->stage && g->stage[0])
        cz_log(CZ_LOG_INFO, "gpu setup: %-16s %8.3f s", g->stage,
               (double)(cz_now_ns() - g->stage_ns) / 1e9);
}

static void progress_stage(gpu_setup *g, const char *stage) {
    profile_stage_end(g);
    g->stage_ns = cz_now_ns();
    g->stage = stage;
    progress_report(g, 0);
}

static unsigned grid_for(size_t n) {
    size_t b = (n + SETUP_THREADS - 1) / SETUP_THREADS;
    if (b > 65535u * 16) b = 65535u * 16; /* grid-stride kernels loop past it */
    return (unsigned)(b ? b : 1);
}

/* ---- window tables (host, CPU arithmetic) ---- */

/* entry[w half + d - 1] = d 2^(c w) G for w < W, 1 <= d <= half = 2^(c-1):
 * one window per task; the window bases by c doublings each. */
#define TABLE_BUILDER(G, F)                                                                        \
    typedef struct {                                                                               \
        cz_##G##_affine *out;                                                                      \
        const cz_##G *bases;                                                                       \
        size_t half;                                                                               \
        int failed;                                                                                \
    } G##_table_job;                                                                               \
    static void G##_table_task(void *ctx, size_t begin, size_t end, unsigned worker) {             \
        (void)worker;                                                                              \
        G##_table_job *job = (G##_table_job *)ctx;                                                 \
        cz_##G *jac = (cz_##G *)malloc(job->half * sizeof(cz_##G));                                \
        F *scratch = (F *)malloc(job->half * sizeof(F));                                           \
        if (!jac || !scratch) {                                                                    \
            job->failed = 1;                                                                       \
        } else {                                                                                   \
            for (size_t w = begin; w < end; w++) {                                                 \
                jac[0] = job->bases[w];                                                            \
                for (size_t d = 1; d < job->half; d++)                                             \
                    cz_##G##_add(&jac[d], &jac[d - 1], &job->bases[w]);                            \
                cz_##G##_batch_to_affine(job->out + w * job->half, jac, job->half, scratch);       \
            }                                                                                      \
        }                                                                                          \
        free(jac);                                                                                 \
        free(scratch);                                                                             \
    }                                                                                              \
    static cz_status G##_table(cz_##G##_affine **out, unsigned c, unsigned W, cz_error *err) {     \
        const size_t half = (size_t)1 << (c - 1);                                                  \
        cz_##G##_affine *t = (cz_##G##_affine *)malloc((size_t)W * half * sizeof *t);              \
        cz_##G *bases = (cz_##G *)malloc((size_t)W * sizeof *bases);                               \
        if (!t || !bases) {                                                                        \
            free(t), free(bases);                                                                  \
            return cz_error_set(err, CZ_E_NOMEM, "gpu setup: out of host memory for a table");     \
        }                                                                                          \
        cz_##G##_generator(&bases[0]);                                                             \
        for (unsigned w = 1; w < W; w++) {                                                         \
            bases[w] = bases[w - 1];                                                               \
            for (unsigned k = 0; k < c; k++) cz_##G##_dbl(&bases[w], &bases[w]);                   \
        }                                                                                          \
        G##_table_job job = {t, bases, half, 0};                                                   \
        cz_parallel_for(W, 1, G##_table_task, &job);                                               \
        free(bases);                                                                               \
        if (job.failed) {                                                                          \
            free(t);                                                                               \
            return cz_error_set(err, CZ_E_NOMEM, "gpu setup: out of host memory for a table");     \
        }                                                                                          \
        *out = t;                                                                                  \
        return CZ_OK;                                                                              \
    }
TABLE_BUILDER(g1, cz_fp)
TABLE_BUILDER(g2, cz_fp2)

/* ---- the chunk pipeline ---- */

/* The points of chunk `slot` are on the host: to the sink (or the vk's ic). */
static cz_status deliver(gpu_setup *g, int slot, cz_error *err) {
    pending_chunk *p = &g->pend[slot];
    if (!p->busy) return CZ_OK;
    p->busy = 0;
    const uint64_t t0 = cz_now_ns();
    CZ_CUDA_TRY(err, cudaEventSynchronize(g->copied[slot]));
    const uint64_t t1 = cz_now_ns();
    g->wait_ns += t1 - t0;
    cz_status st;
    if (p->vector == VEC_IC) {
        memcpy(g->vk.ic + p->first, g->host_out[slot], (size_t)p->n * sizeof(cz_g1_affine));
        st = CZ_OK;
    } else {
        st = g->sink->put(g->sink, p->vector, p->first, g->host_out[slot], p->n, err);
    }
    g->put_ns += cz_now_ns() - t1;
    if (st == CZ_OK) progress_report(g, p->vector == 4 ? G2_UNITS * p->n : p->n);
    return st;
}

/* Computes n points of `vector` from dev_scalars[first ..] (NULL: h's
 * scalars, generated) into the next slot and hands the previous chunk to
 * the sink while the device works. */
static cz_status submit(gpu_setup *g, unsigned vector, const fr_t *dev_scalars, uint64_t first,
                        uint64_t n, cz_error *err) {
    const int slot = (int)(g->chunks & 1);
    const int g2 = vector == 4, enc = vector != VEC_IC && g->sink->encoded;
    const size_t point_bytes = g2 ? sizeof(affine<fp2_t>) : sizeof(affine<fp_t>);
    if (g->copied_recorded[slot])
        CZ_CUDA_TRY(err, cudaStreamWaitEvent(g->compute, g->copied[slot], 0));
    const fr_t *scalars = dev_scalars ? dev_scalars + first : g->scal;
    if (!dev_scalars) {
        k_powers<<<grid_for(n), SETUP_THREADS, 0, g->compute>>>(g->scal, n, first, g->pow_lo,
                                                                g->h_hi, g->lo_bits);
        CZ_CUDA_LAUNCHED(err);
    }
    const size_t T = (n + AFFINE_K - 1) / AFFINE_K;
    const unsigned fb_grid = (unsigned)((n + FB_THREADS - 1) / FB_THREADS);
    const unsigned af_blocks = (unsigned)((T + SETUP_THREADS - 1) / SETUP_THREADS);
    if (g2) {
        k_fixed_base<fp2_t><<<fb_grid, FB_THREADS, 0, g->compute>>>(
            (xyzz<fp2_t> *)g->xyzz_buf, scalars, n, g->table2, g->window, g->windows);
        CZ_CUDA_LAUNCHED(err);
        if (enc)
            k_to_affine<fp2_t, true><<<af_blocks, SETUP_THREADS, 0, g->compute>>>(
                g->dev_out[slot], (const xyzz<fp2_t> *)g->xyzz_buf, (fp2_t *)g->fscratch, n, T);
        else
            k_to_affine<fp2_t, false><<<af_blocks, SETUP_THREADS, 0, g->compute>>>(
                g->dev_out[slot], (const xyzz<fp2_t> *)g->xyzz_buf, (fp2_t *)g->fscratch, n, T);
    } else {
        k_fixed_base<fp_t><<<fb_grid, FB_THREADS, 0, g->compute>>>(
            (xyzz<fp_t> *)g->xyzz_buf, scalars, n, g->table1, g->window, g->windows);
        CZ_CUDA_LAUNCHED(err);
        if (enc)
            k_to_affine<fp_t, true><<<af_blocks, SETUP_THREADS, 0, g->compute>>>(
                g->dev_out[slot], (const xyzz<fp_t> *)g->xyzz_buf, (fp_t *)g->fscratch, n, T);
        else
            k_to_affine<fp_t, false><<<af_blocks, SETUP_THREADS, 0, g->compute>>>(
                g->dev_out[slot], (const xyzz<fp_t> *)g->xyzz_buf, (fp_t *)g->fscratch, n, T);
    }
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaEventRecord(g->computed[slot], g->compute));
    CZ_CUDA_TRY(err, cudaStreamWaitEvent(g->copy, g->computed[slot], 0));
    CZ_CUDA_TRY(err, cudaMemcpyAsync(g->host_out[slot], g->dev_out[slot], (size_t)n * point_bytes,
                                     cudaMemcpyDeviceToHost, g->copy));
    CZ_CUDA_TRY(err, cudaEventRecord(g->copied[slot], g->copy));
    g->copied_recorded[slot] = 1;
    g->pend[slot] = (pending_chunk){1, vector, first, n};
    g->chunks++;
    return deliver(g, slot ^ 1, err);
}

/* Every chunk delivered. */
static cz_status drain(gpu_setup *g, cz_error *err) {
    if (g->chunks == 0) return CZ_OK;
    const int last = (int)((g->chunks - 1) & 1); /* the slot of the last submitted chunk */
    cz_status st = deliver(g, last ^ 1, err);
    if (st == CZ_OK) st = deliver(g, last, err);
    return st;
}

/* All n points of vector (from dev_scalars, or h's generated scalars). */
static cz_status run_vector(gpu_setup *g, unsigned vector, const fr_t *dev_scalars, uint64_t n,
                            cz_error *err) {
    progress_stage(g, vector_name[vector]);
    for (uint64_t at = 0; at < n; at += g->chunk) {
        const uint64_t len = n - at < g->chunk ? n - at : g->chunk;
        cz_status st = submit(g, vector, dev_scalars, at, len, err);
        if (st != CZ_OK) return cz_error_wrap(err, st, "gpu setup: %s", vector_name[vector]);
    }
    return CZ_OK;
}

/* ---- column sums ---- */

/* out[col] = sum over the entries of matrix `which` in that column of
 * coefficient * lagrange[row]; every other column 0. */
static cz_status column_sums(fr_t *out, gpu_setup *g, int which, const fr_t *lagrange,
                             cz_error *err) {
    cz_gpu_circuit_matrix m;
    cz_gpu_circuit_get_matrix(&m, g->gc, which);
    const uint64_t nv = (uint64_t)g->c->num_inputs + g->c->num_aux;
    CZ_CUDA_TRY(err, cudaMemsetAsync(out, 0, (size_t)nv * sizeof(fr_t), g->compute));
    if (m.nnz == 0) return CZ_OK;
    const uint64_t nnz = m.nnz, runs_max = nnz < nv ? nnz : nv;
    dev_buf<uint32_t> keys[2], unique;
    dev_buf<uint64_t> vals[2], runs;
    dev_buf<fr_t> sums;
    dev_buf<char> temp;
    size_t temp_bytes = 0, need;
    int end_bit = 1;
    while (end_bit < 32 && (nv - 1) >> end_bit) end_bit++;
    cub::DoubleBuffer<uint32_t> kb;
    cub::DoubleBuffer<uint64_t> vb;
    thrust::transform_iterator<term_of, const uint64_t *, fr_t> terms(
        (const uint64_t *)NULL, term_of{lagrange, (const fr_t *)m.table});
    for (int i = 0; i < 2; i++) {
        CZ_CUDA_TRY(err, keys[i].alloc_async(nnz, g->compute));
        CZ_CUDA_TRY(err, vals[i].alloc_async(nnz, g->compute));
    }
    CZ_CUDA_TRY(err, unique.alloc_async(runs_max, g->compute));
    CZ_CUDA_TRY(err, sums.alloc_async(runs_max, g->compute));
    CZ_CUDA_TRY(err, runs.alloc_async(1, g->compute));
    kb = cub::DoubleBuffer<uint32_t>(keys[0], keys[1]);
    vb = cub::DoubleBuffer<uint64_t>(vals[0], vals[1]);
    /* temporary storage: the largest of the three CUB calls */
    CZ_CUDA_TRY(err, cub::DeviceScan::InclusiveScan(NULL, temp_bytes, vals[1].get(), vals[0].get(),
                                                    max_u64(), (int64_t)nnz, g->compute));
    need = 0;
    CZ_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, need, kb, vb, (int64_t)nnz, 0, end_bit,
                                                     g->compute));
    if (need > temp_bytes) temp_bytes = need;
    need = 0;
    CZ_CUDA_TRY(err, cub::DeviceReduce::ReduceByKey(NULL, need, kb.Current(), unique.get(), terms,
                                                    sums.get(), runs.get(), fr_add(), (int64_t)nnz,
                                                    g->compute));
    if (need > temp_bytes) temp_bytes = need;
    CZ_CUDA_TRY(err, temp.alloc_async(temp_bytes, g->compute));

    /* values: row << 32 | coefficient index; keys: the columns */
    CZ_CUDA_TRY(err, cudaMemsetAsync(vals[1], 0, (size_t)nnz * 8, g->compute));
    k_mark_rows<<<grid_for(m.rows), SETUP_THREADS, 0, g->compute>>>(vals[1], m.row_start, m.rows);
    CZ_CUDA_TRY(err, cudaPeekAtLastError());
    need = temp_bytes;
    CZ_CUDA_TRY(err, cub::DeviceScan::InclusiveScan(temp.get(), need, vals[1].get(), vals[0].get(),
                                                    max_u64(), (int64_t)nnz, g->compute));
    if (m.coef_bytes == 2)
        k_or_coef<uint16_t><<<grid_for(nnz), SETUP_THREADS, 0, g->compute>>>(
            vals[0], (const uint16_t *)m.coef, nnz);
    else
        k_or_coef<uint32_t><<<grid_for(nnz), SETUP_THREADS, 0, g->compute>>>(
            vals[0], (const uint32_t *)m.coef, nnz);
    CZ_CUDA_TRY(err, cudaPeekAtLastError());
    CZ_CUDA_TRY(err, cudaMemcpyAsync(keys[0], m.col, (size_t)nnz * 4, cudaMemcpyDeviceToDevice,
                                     g->compute));
    need = temp_bytes;
    CZ_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(temp.get(), need, kb, vb, (int64_t)nnz, 0,
                                                     end_bit, g->compute));
    terms = thrust::transform_iterator<term_of, const uint64_t *, fr_t>(
        vb.Current(), term_of{lagrange, (const fr_t *)m.table});
    need = temp_bytes;
    CZ_CUDA_TRY(err, cub::DeviceReduce::ReduceByKey(temp.get(), need, kb.Current(), unique.get(),
                                                    terms, sums.get(), runs.get(), fr_add(),
                                                    (int64_t)nnz, g->compute));
    k_scatter<<<grid_for(runs_max), SETUP_THREADS, 0, g->compute>>>(out, unique, sums, runs);
    CZ_CUDA_TRY(err, cudaPeekAtLastError());
    return CZ_OK;
}

/* ---- the setup ---- */

static void gpu_setup_free(gpu_setup *g) {
    if (g->compute) (void)cudaStreamSynchronize(g->compute);
    if (g->copy) (void)cudaStreamSynchronize(g->copy);
    void *dev[] = {g->table1,   g->table2,   g->pow_lo,     g->pow_hi,    g->h_hi,
                   g->u,        g->v,        g->w,          g->compact,   g->scal,
                   g->xyzz_buf, g->fscratch, g->dev_out[0], g->dev_out[1]};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) cz_gpu_free(dev[i]);
    for (int i = 0; i < 2; i++) {
        if (g->host_out[i]) (void)cudaFreeHost(g->host_out[i]);
        if (g->computed[i]) (void)cudaEventDestroy(g->computed[i]);
        if (g->copied[i]) (void)cudaEventDestroy(g->copied[i]);
    }
    if (g->copy) (void)cudaStreamDestroy(g->copy);
    cz_gpu_circuit_destroy(g->gc);
    (void)cudaGetLastError();
}

static cz_status dev_alloc(void *p, size_t bytes, const char *what, cz_error *err) {
    cz_status st = cz_gpu_alloc((void **)p, bytes ? bytes : 16, err);
    if (st != CZ_OK) cz_error_prefix(err, "gpu setup: %s (%.1f MiB)", what, bytes / 1048576.0);
    return st;
}
/* The same for a buffer of the calling scope: count elements. */
template <class T>
static cz_status dev_alloc(dev_buf<T> &b, size_t count, const char *what, cz_error *err) {
    const cudaError_t e = b.alloc(count);
    if (e == cudaSuccess) return CZ_OK;
    (void)cudaGetLastError();
    return cz_error_set(err, cz_gpu_cuda_status(e), "gpu setup: %s (%.1f MiB): %s", what,
                        count * sizeof(T) / 1048576.0, cudaGetErrorString(e));
}

/* The power tables: lo[i] = tau^i (i < 2^lo_bits), hi[j] = tau^(j 2^lo_bits)
 * (j < 2^(k - lo_bits)), h_hi[j] = hi[j] Z(tau) / delta. */
static cz_status power_tables(gpu_setup *g, cz_error *err) {
    const unsigned k = g->plan.log_m;
    g->lo_bits = (k + 1) / 2;
    const size_t nlo = (size_t)1 << g->lo_bits, nhi = (size_t)1 << (k - g->lo_bits);
    cz_fr *host = (cz_fr *)malloc((nlo + 2 * nhi) * sizeof(cz_fr));
    if (!host) return cz_error_set(err, CZ_E_NOMEM, "gpu setup: out of host memory");
    cz_fr *lo = host, *hi = host + nlo, *hh = hi + nhi;
    lo[0] = cz_fr_one;
    for (size_t i = 1; i < nlo; i++) cz_fr_mul(&lo[i], &lo[i - 1], &g->s->tau);
    cz_fr step;
    cz_fr_mul(&step, &lo[nlo - 1], &g->s->tau); /* tau^(2^lo_bits) */
    hi[0] = cz_fr_one;
    for (size_t j = 1; j < nhi; j++) cz_fr_mul(&hi[j], &hi[j - 1], &step);
    for (size_t j = 0; j < nhi; j++) cz_fr_mul(&hh[j], &hi[j], &g->plan.h_factor);
    cz_status st = dev_alloc(&g->pow_lo, nlo * sizeof(fr_t), "power tables", err);
    if (st == CZ_OK) st = dev_alloc(&g->pow_hi, nhi * sizeof(fr_t), "power tables", err);
    if (st == CZ_OK) st = dev_alloc(&g->h_hi, nhi * sizeof(fr_t), "power tables", err);
    if (st == CZ_OK) st = cz_gpu_upload(g->pow_lo, lo, nlo * sizeof(fr_t), err);
    if (st == CZ_OK) st = cz_gpu_upload(g->pow_hi, hi, nhi * sizeof(fr_t), err);
    if (st == CZ_OK) st = cz_gpu_upload(g->h_hi, hh, nhi * sizeof(fr_t), err);
    memset(host, 0, (nlo + 2 * nhi) * sizeof(cz_fr)); /* powers of a secret */
    free(host);
    return st;
}

static cz_status window_tables(gpu_setup *g, cz_error *err) {
    const unsigned window = cz_gpu_settings_get()->setup_window;
    g->window = window ? window : DEFAULT_WINDOW;
    g->windows = (255 + g->window - 1) / g->window;
    const size_t entries = (size_t)g->windows << (g->window - 1);
    cz_g1_affine *t1 = NULL;
    cz_g2_affine *t2 = NULL;
    cz_status st = g1_table(&t1, g->window, g->windows, err);
    if (st == CZ_OK) st = g2_table(&t2, g->window, g->windows, err);
    if (st == CZ_OK) st = dev_alloc(&g->table1, entries * sizeof(cz_g1_affine), "G1 table", err);
    if (st == CZ_OK) st = dev_alloc(&g->table2, entries * sizeof(cz_g2_affine), "G2 table", err);
    if (st == CZ_OK) st = cz_gpu_upload(g->table1, t1, entries * sizeof(cz_g1_affine), err);
    if (st == CZ_OK) st = cz_gpu_upload(g->table2, t2, entries * sizeof(cz_g2_affine), err);
    free(t1);
    free(t2);
    return st;
}

static cz_status chunk_buffers(gpu_setup *g, cz_error *err) {
    const unsigned chunk = cz_gpu_settings_get()->setup_chunk;
    g->chunk = chunk ? chunk : (unsigned)DEFAULT_CHUNK;
    /* no larger than the longest vector: small keys take small buffers */
    uint64_t longest = g->c->num_inputs;
    const uint64_t lens[4] = {g->plan.n_h, g->c->num_aux, g->plan.n_a, g->plan.n_b};
    for (int i = 0; i < 4; i++)
        if (lens[i] > longest) longest = lens[i];
    if (g->chunk > longest) g->chunk = longest ? (size_t)longest : 1;
    const size_t n = g->chunk;
    cz_status st = dev_alloc(&g->scal, n * sizeof(fr_t), "chunk scalars", err);
    if (st == CZ_OK) st = dev_alloc(&g->xyzz_buf, n * sizeof(xyzz<fp2_t>), "chunk points", err);
    if (st == CZ_OK) st = dev_alloc(&g->fscratch, n * sizeof(fp2_t), "chunk scratch", err);
    for (int i = 0; i < 2 && st == CZ_OK; i++) {
        st = dev_alloc(&g->dev_out[i], n * sizeof(affine<fp2_t>), "chunk output", err);
        if (st != CZ_OK) break;
        CZ_CUDA_TRY(
            err, cudaHostAlloc(&g->host_out[i], n * sizeof(affine<fp2_t>), cudaHostAllocDefault));
        CZ_CUDA_TRY(err, cudaEventCreateWithFlags(&g->computed[i], cudaEventDisableTiming));
        CZ_CUDA_TRY(err, cudaEventCreateWithFlags(&g->copied[i], cudaEventDisableTiming));
    }
    if (st == CZ_OK) CZ_CUDA_TRY(err, cudaStreamCreateWithFlags(&g->copy, cudaStreamNonBlocking));
    return st;
}

/* The least index the device reported (NO_FAULT when none). */
static cz_status read_fault(unsigned long long *out, const unsigned long long *dev, gpu_setup *g,
                            cz_error *err) {
    CZ_CUDA_TRY(err, cudaMemcpyAsync(out, dev, sizeof *out, cudaMemcpyDeviceToHost, g->compute));
    CZ_CUDA_TRY(err, cudaStreamSynchronize(g->compute));
    return CZ_OK;
}

static cz_status download_fr(cz_fr *out, const fr_t *dev, gpu_setup *g, cz_error *err) {
    CZ_CUDA_TRY(err, cudaMemcpyAsync(out, dev, sizeof *out, cudaMemcpyDeviceToHost, g->compute));
    CZ_CUDA_TRY(err, cudaStreamSynchronize(g->compute));
    return CZ_OK;
}

/* The non-zero entries of in[0..nv) into g->compact, in order; their count
 * must be want (the densities' count, which the checks held them to). */
static cz_status compact_nonzero(gpu_setup *g, const fr_t *in, uint64_t nv, uint64_t want,
                                 const char *what, cz_error *err) {
    dev_buf<uint64_t> count;
    dev_buf<char> temp;
    uint64_t got = 0;
    size_t temp_bytes = 0;
    CZ_CUDA_TRY(err, count.alloc_async(1, g->compute));
    CZ_CUDA_TRY(err, cub::DeviceSelect::If(NULL, temp_bytes, in, g->compact, count.get(),
                                           (int64_t)nv, fr_nonzero(), g->compute));
    CZ_CUDA_TRY(err, temp.alloc_async(temp_bytes, g->compute));
    CZ_CUDA_TRY(err, cub::DeviceSelect::If(temp.get(), temp_bytes, in, g->compact, count.get(),
                                           (int64_t)nv, fr_nonzero(), g->compute));
    CZ_CUDA_TRY(err, cudaMemcpyAsync(&got, count, 8, cudaMemcpyDeviceToHost, g->compute));
    CZ_CUDA_TRY(err, cudaStreamSynchronize(g->compute));
    if (got != want)
        return cz_error_set(err, CZ_E_INTERNAL,
                            "gpu setup: %s: %llu non-zero evaluations, %llu expected", what,
                            (unsigned long long)got, (unsigned long long)want);
    return CZ_OK;
}

static cz_status run(gpu_setup *g, cz_error *err) {
    const cz_circuit *c = g->c;
    const uint32_t ni = c->num_inputs, na = c->num_aux;
    const uint64_t nv = (uint64_t)ni + na, m = g->plan.m;
    cz_status st;
    dev_buf<unsigned long long> fault;
    unsigned long long fault_h = NO_FAULT;
    dev_buf<fr_t> lagrange;
    cz_gpu_ntt *ntt = NULL;
    const uint64_t nnz = c->m[0].nnz + c->m[1].nnz + c->m[2].nnz;
    g->compute = cudaStreamPerThread;
    g->profile = cz_gpu_settings_get()->setup_profile;
    g->start_ns = cz_now_ns();
    g->total = UPLOAD_UNITS(cz_circuit_bytes(c)) + LAGRANGE_UNITS(m) + COLUMN_UNITS(nnz) + ni +
               g->plan.n_h + na + g->plan.n_a + g->plan.n_b + G2_UNITS * g->plan.n_b;

    progress_stage(g, "circuit upload");
    if ((st = cz_gpu_circuit_create(&g->gc, c, err)) != CZ_OK)
        return cz_error_wrap(err, st, "gpu setup");
    progress_report(g, UPLOAD_UNITS(cz_circuit_bytes(c)));

    /* Lagrange basis: the inverse NTT of the powers of tau */
    progress_stage(g, "Lagrange basis");
    if ((st = power_tables(g, err)) != CZ_OK) return st;
    if ((st = dev_alloc(lagrange, m, "Lagrange basis", err)) != CZ_OK) return st;
    k_powers<<<grid_for(m), SETUP_THREADS, 0, g->compute>>>(lagrange, m, 0, g->pow_lo, g->pow_hi,
                                                            g->lo_bits);
    CZ_CUDA_TRY(err, cudaPeekAtLastError());
    if ((st = cz_gpu_ntt_create(&ntt, g->plan.log_m, err)) != CZ_OK) return st;
    st = cz_gpu_ntt_transform(ntt, (cz_fr *)lagrange.get(), CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_PLAIN,
                              err);
    cz_gpu_ntt_destroy(ntt);
    if (st != CZ_OK) return st;
    progress_report(g, LAGRANGE_UNITS(m));

    /* u, v, w */
    progress_stage(g, "column sums");
    if ((st = dev_alloc(&g->u, nv * sizeof(fr_t), "u", err)) != CZ_OK ||
        (st = dev_alloc(&g->v, nv * sizeof(fr_t), "v", err)) != CZ_OK ||
        (st = dev_alloc(&g->w, nv * sizeof(fr_t), "w", err)) != CZ_OK)
        return st;
    {
        fr_t *evals[3] = {g->u, g->v, g->w};
        for (int k = 0; k < 3; k++) {
            if ((st = column_sums(evals[k], g, k, lagrange, err)) != CZ_OK) {
                cz_error_prefix(err, "gpu setup: column sums of %c", "ABC"[k]);
                return st;
            }
            CZ_CUDA_TRY(err, cudaStreamSynchronize(g->compute));
            progress_report(g, COLUMN_UNITS(c->m[k].nnz));
        }
    }
    lagrange.reset();
    /* the sorts' scratch went back to the stream-ordered pool: give it to
     * the device for the plain allocations that follow */
    cz_gpu_pool_trim();

    /* the evaluations against the densities */
    if ((st = dev_alloc(fault, 1, "fault index", err)) != CZ_OK) return st;
    {
        cz_gpu_circuit_info info;
        cz_gpu_circuit_get_info(&info, g->gc);
        const size_t wa = ((size_t)na + 63) / 64;
        CZ_CUDA_TRY(err, cudaMemcpyAsync(fault, &fault_h, 8, cudaMemcpyHostToDevice, g->compute));
        k_check_density<<<grid_for(nv), SETUP_THREADS, 0, g->compute>>>(
            fault, g->u, g->v, ni, na, info.dev_density, info.dev_density + wa,
            info.dev_density + 2 * wa);
        CZ_CUDA_TRY(err, cudaPeekAtLastError());
        if ((st = read_fault(&fault_h, fault, g, err)) != CZ_OK) return st;
        if (fault_h != NO_FAULT) {
            cz_fr ui, vi;
            if ((st = download_fr(&ui, g->u + fault_h, g, err)) != CZ_OK ||
                (st = download_fr(&vi, g->v + fault_h, g, err)) != CZ_OK)
                return st;
            st = cz_groth16_setup_check_variable(c, fault_h, &ui, &vi, err);
            if (st == CZ_OK)
                st = cz_error_set(err, CZ_E_INTERNAL,
                                  "gpu setup: variable %llu flagged by the density check, which "
                                  "the host passes",
                                  fault_h);
            return st;
        }
    }

    /* the circuit's part is done: its 6 GB (32 GiB PoRep) go back */
    cz_gpu_circuit_destroy(g->gc);
    g->gc = NULL;

    /* ic / l scalars into w */
    fault_h = NO_FAULT;
    CZ_CUDA_TRY(err, cudaMemcpyAsync(fault, &fault_h, 8, cudaMemcpyHostToDevice, g->compute));
    {
        fr_t alpha, beta, gamma_inv, delta_inv;
        memcpy(&alpha, &g->s->alpha, sizeof alpha);
        memcpy(&beta, &g->s->beta, sizeof beta);
        memcpy(&gamma_inv, &g->plan.gamma_inv, sizeof gamma_inv);
        memcpy(&delta_inv, &g->plan.delta_inv, sizeof delta_inv);
        k_ext<<<grid_for(nv), SETUP_THREADS, 0, g->compute>>>(g->w, g->u, g->v, nv, ni, alpha, beta,
                                                              gamma_inv, delta_inv, fault);
        CZ_CUDA_TRY(err, cudaPeekAtLastError());
    }
    if ((st = read_fault(&fault_h, fault, g, err)) != CZ_OK) return st;
    if (fault_h != NO_FAULT) {
        cz_fr si;
        if ((st = download_fr(&si, g->w + fault_h, g, err)) != CZ_OK) return st;
        st = cz_groth16_setup_check_scalar(c, fault_h, &si, err);
        if (st == CZ_OK)
            st =
                cz_error_set(err, CZ_E_INTERNAL, "gpu setup: scalar %llu flagged as zero", fault_h);
        return st;
    }

    /* the vk: fixed points on the host, ic on the device */
    if ((st = window_tables(g, err)) != CZ_OK || (st = chunk_buffers(g, err)) != CZ_OK) return st;
    cz_groth16_setup_vk_points(&g->vk, g->s);
    g->vk.n_ic = ni;
    g->vk.ic = (cz_g1_affine *)malloc(ni * sizeof(cz_g1_affine));
    if (!g->vk.ic) {
        st = cz_error_set(err, CZ_E_NOMEM, "gpu setup: out of host memory for ic");
        return st;
    }
    progress_stage(g, "ic");
    for (uint64_t at = 0; at < ni && st == CZ_OK; at += g->chunk)
        st = submit(g, VEC_IC, g->w, at, ni - at < g->chunk ? ni - at : g->chunk, err);
    if (st == CZ_OK) st = drain(g, err);
    if (st != CZ_OK) return st;
    {
        const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS] = {g->plan.n_h, na, g->plan.n_a,
                                                            g->plan.n_b, g->plan.n_b};
        if ((st = g->sink->begin(g->sink, &g->vk, counts, err)) != CZ_OK) return st;
    }

    /* h, l, a, b_g1, b_g2 in file order */
    if ((st = run_vector(g, 0, NULL, g->plan.n_h, err)) != CZ_OK) return st;
    if ((st = run_vector(g, 1, g->w + ni, na, err)) != CZ_OK) return st;
    /* a's and b's scalars: the compaction runs on the compute stream after
     * the chunks before it, so reusing the buffer needs no wait */
    if ((st = dev_alloc(&g->compact, nv * sizeof(fr_t), "compacted scalars", err)) != CZ_OK)
        return st;
    if ((st = compact_nonzero(g, g->u, nv, g->plan.n_a, "a", err)) != CZ_OK) return st;
    if ((st = run_vector(g, 2, g->compact, g->plan.n_a, err)) != CZ_OK) return st;
    if ((st = compact_nonzero(g, g->v, nv, g->plan.n_b, "b", err)) != CZ_OK) return st;
    if ((st = run_vector(g, 3, g->compact, g->plan.n_b, err)) != CZ_OK) return st;
    if ((st = run_vector(g, 4, g->compact, g->plan.n_b, err)) != CZ_OK) return st;
    if ((st = drain(g, err)) != CZ_OK) return st;
    profile_stage_end(g);
    progress_report(g, g->total - g->done);
    if (g->profile)
        cz_log(CZ_LOG_INFO,
               "gpu setup: %.3f s in all, %llu chunks of up to %zu points (window %u): host "
               "waited %.3f s for the device, spent %.3f s handing points to the sink",
               (double)(cz_now_ns() - g->start_ns) / 1e9, (unsigned long long)g->chunks, g->chunk,
               g->window, (double)g->wait_ns / 1e9, (double)g->put_ns / 1e9);
    return CZ_OK;
}

/* Both entry points: the plan, the device work, the sink's end. */
static cz_status gpu_dev_setup(setup_sink *sink, cz_groth16_vk *vk_out, const cz_circuit *c,
                               const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                               cz_groth16_setup_progress_fn progress, void *progress_ctx,
                               const char *space_path, cz_error *err) {
    cz_groth16_secrets secrets;
    cz_groth16_dev_secrets(&secrets, seed);
    gpu_setup g;
    memset(&g, 0, sizeof g);
    g.c = c, g.s = &secrets, g.sink = sink;
    g.progress = progress, g.progress_ctx = progress_ctx, g.stage = "";
    cz_status st = cz_groth16_setup_plan_init(&g.plan, c, &secrets, err);
    if (st == CZ_OK && space_path) {
        /* the file's size is known now: refuse before the device work */
        cz_groth16_vk sized;
        memset(&sized, 0, sizeof sized);
        sized.n_ic = c->num_inputs;
        const uint64_t counts[CZ_GROTH16_PARAMS_VECTORS] = {g.plan.n_h, c->num_aux, g.plan.n_a,
                                                            g.plan.n_b, g.plan.n_b};
        st = cz_groth16_params_writer_check_space(
            space_path, cz_groth16_params_writer_bytes(&sized, counts), err);
    }
    if (st == CZ_OK) st = run(&g, err);
    gpu_setup_free(&g);
    memset(&secrets, 0, sizeof secrets);
    if (st == CZ_OK) {
        *vk_out = g.vk;
    } else {
        cz_groth16_vk_free(&g.vk);
    }
    return st;
}

extern "C" cz_status cz_gpu_groth16_dev_setup(cz_groth16_params *out, const struct cz_circuit *c,
                                              const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                              cz_groth16_setup_progress_fn progress,
                                              void *progress_ctx, cz_error *err) {
    memset(out, 0, sizeof *out);
    memory_sink sink = {{0, memory_begin, memory_put}, out};
    cz_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    cz_status st = gpu_dev_setup(&sink.base, &vk, c, seed, progress, progress_ctx, NULL, err);
    if (st == CZ_OK)
        out->vk = vk;
    else
        cz_groth16_params_free(out);
    return st;
}

extern "C" cz_status cz_gpu_groth16_dev_setup_write(cz_groth16_vk *vk_out, const char *params_path,
                                                    const cz_groth16_params_tap *tap,
                                                    const struct cz_circuit *c,
                                                    const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                                    cz_groth16_setup_progress_fn progress,
                                                    void *progress_ctx, cz_error *err) {
    memset(vk_out, 0, sizeof *vk_out);
    file_sink sink = {{1, file_begin, file_put}, params_path, tap, NULL};
    cz_status st =
        gpu_dev_setup(&sink.base, vk_out, c, seed, progress, progress_ctx, params_path, err);
    st = cz_groth16_params_writer_close(sink.w, st, err);
    if (st != CZ_OK) cz_groth16_vk_free(vk_out);
    return st;
}
