/* NTT over Fr on the device.
 *
 * A transform of 2^k elements is split into passes of b <= 10 radix-2
 * stages (k <= 10: one pass; 27 = 9 + 9 + 9). A pass loads a tile of
 * 2^(b+g) elements into shared memory: 2^b elements that interact in its
 * stages (index bits lo .. lo+b-1) times 2^g neighbours in the low index
 * bits (so the global accesses of a warp touch runs of 2^g consecutive
 * elements), runs its b stages there with one butterfly per thread per stage,
 * and stores the tile back. Gentleman-Sande (DIF) passes go from the top
 * bits down and give NR (natural in, bit-reversed out); Cooley-Tukey (DIT)
 * passes go from the bottom up on bit-reversed input and give RN. NN is a
 * bit-reversal permutation followed by RN. The coset scaling (g^i on the
 * input of a forward transform) is fused into the first pass's loads, the
 * inverse's 1/m and g^-i into the last pass's stores.
 *
 * Twiddles: one table of omega^e (and one of omega^-e) for e < m/2 in device
 * memory. Inside a pass the butterflies use the 2^(b-1) powers of
 * omega_{2^b} (copied to shared memory); between passes every element is
 * multiplied once by a "four-step" twiddle from the big table (see
 * k_ntt_pass). Coset
 * powers g^e come from two tables of about sqrt(m) entries each (one extra
 * multiplication per element, first/last pass only).
 *
 * Cost (2^27): 27 * 2^26 butterflies with one Fr multiplication each, three
 * passes over 4 GiB; the multiplications dominate (spec §8.2). */
/* Fr arithmetic only: inline the multiplication (see field.cuh) */
#define CZ_GPU_FULL_INLINE 1
#include <stdlib.h>
#include <string.h>

#include "gpu/common.cuh"
#include "gpu/field.cuh"
#include "gpu/gpu.h"

using namespace cz_gpu;

#define NTT_TILE_LOG 10

struct cz_gpu_ntt {
    unsigned k;
    size_t n;
    fr_t *tw[2];      /* omega^e, omega^-e for e < n/2 */
    fr_t *gpow_lo[2]; /* g^e, g^-e for e < 2^lo_bits */
    fr_t *gpow_hi[2]; /* g^(e 2^lo_bits), and g^-(e 2^lo_bits) / n */
    unsigned lo_bits;
    fr_t size_inv;
    fr_t zinv; /* (g^n - 1)^-1 */
    void *mem;
};

/* Pass parameters. */
struct ntt_pass_args {
    fr_t *data;
    const fr_t *tw;
    unsigned k, lo, b, g;
    int pre;  /* 0 none, 1: x[i] *= g^i (natural), 2: x[p] *= g^rev(p) */
    int post; /* 0 none, 1: *= 1/n, 2: *= g^-i / n (natural), 3: *= g^-rev(p) / n */
    const fr_t *plo, *phi;
    unsigned plo_bits;
    fr_t scale;
};

static __device__ __forceinline__ fr_t pow_lookup(const fr_t *lo, const fr_t *hi, unsigned bits,
                                                  uint32_t e) {
    return fr_t::mul(lo[e & ((1u << bits) - 1)], hi[e >> bits]);
}

static __device__ __forceinline__ uint32_t rev_bits(uint32_t x, unsigned k) {
    return k ? __brev(x) >> (32 - k) : 0;
}

/* omega_{2^(lo+b)}^(low * u) for a pass on bits [lo, lo+b): entry
 * (low u) 2^(k-lo-b) of the omega^e table, which holds e < m/2 only;
 * omega^(m/2) = -1 covers the rest. */
static __device__ __forceinline__ fr_t inter_twiddle(const fr_t *tw, unsigned k, unsigned lo,
                                                     unsigned b, uint32_t low, uint32_t u) {
    uint32_t e = (low * u) << (k - lo - b);
    const uint32_t half = 1u << (k - 1);
    if (e >= half) return fr_t::neg(tw[e - half]);
    return tw[e];
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
        roots[j] = a.tw[j << (a.k - b)]; /* omega_{2^b}^j */
    for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
        uint32_t t = e >> g;
        uint32_t idx = base | (t << lo) | (e & gmask);
        fr_t x = a.data[idx];
        if (a.pre == 1)
            x = fr_t::mul(x, pow_lookup(a.plo, a.phi, a.plo_bits, idx));
        else if (a.pre == 2)
            x = fr_t::mul(x, pow_lookup(a.plo, a.phi, a.plo_bits, rev_bits(idx, a.k)));
        if (DIT && lo > 0)
            x = fr_t::mul(x, inter_twiddle(a.tw, a.k, lo, b, idx & lomask, rev_bits(t, b)));
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
        if (!DIT && lo > 0)
            x = fr_t::mul(x, inter_twiddle(a.tw, a.k, lo, b, idx & lomask, rev_bits(t, b)));
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
 * rows of 16 consecutive elements (512 B) read and written whole. */
__global__ void __launch_bounds__(256) k_bit_reverse_tiles(fr_t *d, unsigned k) {
    __shared__ fr_t A[256], B[256];
    const uint32_t mid = blockIdx.x, rmid = rev_bits(mid, k - 8);
    if (mid > rmid) return;
    const uint32_t a = threadIdx.x >> 4, b = threadIdx.x & 15;
    const uint32_t ia = (a << (k - 4)) | (mid << 4) | b, ib = (a << (k - 4)) | (rmid << 4) | b;
    A[threadIdx.x] = d[ia];
    if (mid != rmid) B[threadIdx.x] = d[ib];
    __syncthreads();
    const uint32_t src = (rev_bits(b, 4) << 4) | rev_bits(a, 4);
    d[ib] = A[src];
    if (mid != rmid) d[ia] = B[src];
}

/* out[e] = hi[e >> bits] * lo[e & mask] for e < n (table expansion). */
__global__ void k_expand(fr_t *out, const fr_t *lo, const fr_t *hi, unsigned bits, uint32_t n) {
    uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < n) out[e] = fr_t::mul(hi[e >> bits], lo[e & ((1u << bits) - 1)]);
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
    size_t half = d->n / 2;
    d->lo_bits = (log_size + 1) / 2;
    size_t plo = (size_t)1 << d->lo_bits, phi = d->n >> d->lo_bits;
    /* twiddle expansion: omega^e = omega^(e_hi 2^tb) * omega^e_lo */
    unsigned tb = half > 1 ? (log_size) / 2 : 0;
    size_t tlo = (size_t)1 << tb, thi = half > tlo ? half >> tb : 1;
    size_t elems = 2 * half + 4 * (plo + phi) + 4 * (tlo + thi);
    cz_fr *host = (cz_fr *)malloc((4 * (plo + phi) + 4 * (tlo + thi)) * sizeof(cz_fr));
    fr_t *dm = NULL;
    cudaError_t ce = cudaMalloc(&dm, (elems ? elems : 1) * sizeof(fr_t));
    if (!host || ce != cudaSuccess) {
        (void)cudaGetLastError();
        free(host);
        free(d);
        cz_ntt_domain_free(&dom);
        return cz_error_set(err, ce != cudaSuccess ? CZ_E_NOMEM : CZ_E_NOMEM,
                            "gpu ntt: cannot allocate tables for 2^%u (%s)", log_size,
                            ce != cudaSuccess ? cudaGetErrorString(ce) : "host");
    }
    d->mem = dm;
    d->tw[0] = dm;
    d->tw[1] = dm + half;
    fr_t *p = dm + 2 * half;
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
    /* small twiddle factor tables for the expansion */
    const fr_t *tlo_d[2], *thi_d[2];
    const cz_fr *roots[2] = {&dom.omega, &dom.omega_inv};
    for (int dir = 0; dir < 2; dir++) {
        cz_fr step;
        host_powers(h, roots[dir], tlo);
        cz_fr_mul(&step, &h[tlo - 1], roots[dir]);
        host_powers(h + tlo, &step, thi);
        tlo_d[dir] = p;
        thi_d[dir] = p + tlo;
        p += tlo + thi;
        h += tlo + thi;
    }
    memcpy(&d->size_inv, &dom.size_inv, sizeof(cz_fr));
    memcpy(&d->zinv, &dom.coset_vanishing_inv, sizeof(cz_fr));
    st = CZ_OK;
    CZ_CUDA_GOTO(err, st, fail,
                 cudaMemcpy(dm + 2 * half, host, (size_t)(h - host) * sizeof(cz_fr),
                            cudaMemcpyHostToDevice));
    for (int dir = 0; dir < 2 && half; dir++) {
        k_expand<<<cz_gpu_blocks(half, 256), 256>>>(d->tw[dir], tlo_d[dir], thi_d[dir], tb,
                                                    (uint32_t)half);
        CZ_CUDA_GOTO(err, st, fail, cudaGetLastError());
    }
    CZ_CUDA_GOTO(err, st, fail, cudaDeviceSynchronize());
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
    if (order == CZ_NTT_NN) {
        if (k >= 8)
            k_bit_reverse_tiles<<<1u << (k - 8), 256>>>(data, k);
        else
            k_bit_reverse<<<cz_gpu_blocks(d->n, 256), 256>>>(data, k, (uint32_t)d->n);
        CZ_CUDA_LAUNCHED(err);
    }
    const bool dit = order != CZ_NTT_NR; /* NN and RN: bit-reversed input now */

    /* split k stages into passes of <= 10, as evenly as possible */
    unsigned npass = (k + NTT_TILE_LOG - 1) / NTT_TILE_LOG, bs[4];
    for (unsigned i = 0; i < npass; i++) bs[i] = k / npass + (i < k % npass);

    ntt_pass_args a;
    a.data = data;
    a.tw = d->tw[inv];
    a.k = k;
    a.plo_bits = d->lo_bits;
    a.scale = *(const fr_t *)&d->size_inv;
    unsigned done = 0; /* stages done; DIF from the top bit down, DIT from the bottom up */
    for (unsigned i = 0; i < npass; i++) {
        a.b = bs[i];
        a.lo = dit ? done : k - done - a.b;
        a.g = a.lo < NTT_TILE_LOG - a.b ? a.lo : NTT_TILE_LOG - a.b;
        a.pre = 0;
        a.post = 0;
        a.plo = a.phi = NULL;
        if (i == 0 && coset && !inv) {
            a.pre = dit ? 2 : 1;
            a.plo = d->gpow_lo[0];
            a.phi = d->gpow_hi[0];
        }
        if (i == npass - 1 && inv) {
            if (coset) {
                a.post = dit ? 2 : 3;
                a.plo = d->gpow_lo[1];
                a.phi = d->gpow_hi[1];
            } else {
                a.post = 1;
            }
        }
        /* pre and post only meet when npass == 1, and then never together
         * (pre is forward-only, post inverse-only), so one table pair suffices */
        unsigned threads = 1u << (a.b + a.g - 1);
        unsigned blocks = (unsigned)(d->n >> (a.b + a.g));
        if (dit)
            k_ntt_pass<true><<<blocks, threads>>>(a);
        else
            k_ntt_pass<false><<<blocks, threads>>>(a);
        CZ_CUDA_LAUNCHED(err);
        done += a.b;
    }
    CZ_CUDA_TRY(err, cudaDeviceSynchronize());
    return CZ_OK;
}

__global__ void k_quotient(fr_t *a, const fr_t *b, const fr_t *c, fr_t zinv, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = fr_t::mul(fr_t::sub(fr_t::mul(a[i], b[i]), c[i]), zinv);
}

extern "C" cz_status cz_gpu_ntt_coset_quotient(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b,
                                               const cz_fr *dev_c, cz_error *err) {
    k_quotient<<<cz_gpu_blocks(d->n, 256), 256>>>((fr_t *)dev_a, (const fr_t *)dev_b,
                                                  (const fr_t *)dev_c, d->zinv, (uint32_t)d->n);
    CZ_CUDA_LAUNCHED(err);
    CZ_CUDA_TRY(err, cudaDeviceSynchronize());
    return CZ_OK;
}
