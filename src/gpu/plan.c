/* The device memory plan (plan.h): byte counts of a key, one proof's
 * buffers and the MSMs' scratch, from the prover's own allocation formulas
 * (groth16.c, msm.cuh), and the choice among resident, partial and
 * streaming. No device call: the budget comes from the caller. */
#include <stdio.h>
#include <string.h>

#include "ec/point.h"
#include "gpu/ntt_layout.h"
#include "gpu/plan.h"
#include "gpu/settings.h"

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

/* Streamed chunks: powers of two from CHUNK_MIN to CHUNK_MAX points; a
 * partial plan keeps vectors only while its chunk can stay at least
 * PARTIAL_CHUNK_MIN (smaller chunks cost every streamed MSM more than the
 * kept vector saves in copies). */
#define CHUNK_MIN         ((size_t)1 << 12)
#define CHUNK_MAX         ((size_t)1 << 24)
#define PARTIAL_CHUNK_MIN ((size_t)1 << 22)
/* The plain plans a lean plan replaces: those whose chunk is at most
 * LEAN_CHOICE_MAX, where the lean one's is larger (a 16 or 12 GiB device),
 * and larger ones that keep none of H's points, where the lean one's
 * chunk is as large. On one H100 (one warm
 * machine) 32 GiB PoRep took 19.40 s/proof on the lean plan in 2^24
 * chunks, 20.56 on the plain one keeping B_G1 in 2^23 chunks beside its
 * resident circuit (26.4 GiB), 20.79 on the plain one keeping nothing in
 * 2^24 chunks (29.7 GiB), and 22.65 in 2^23 (24 GiB, an H100 before): the
 * plain plan's whole witness upload (4.2 GB) and a, b, c cost more than
 * the lean one's packed witness and second H-chain buffer, and its host
 * memory peaked at 107-110 GiB against 78. A kept B_G2 saves less than
 * that (its pass, ~0.15 s a partition, unmeasured against the lean plan);
 * kept H points run the largest MSM from device memory, 12.9 GB less over
 * PCIe a partition: such a plain plan stays. */
#define LEAN_CHOICE_MAX ((size_t)1 << 22)

/* The window for n points: log2(n) - 5, at most 22; for G1 22 from 2^26
 * points on (one window fewer at 2^26..2^27 for twice the buckets, which
 * cost a G1 MSM ~4 sorted entries each in the reduction: 2 % less work at
 * 2^26, 4.5 % at 125 M points; G2 keeps 21 there, its buckets would take
 * 4.5 GB more). msm.cuh runs with it. */
unsigned cz_gpu_msm_window_bits(size_t n, int g2) {
    unsigned lg = 0;
    while (lg < 40 && ((size_t)1 << (lg + 1)) <= n) lg++;
    int c = (int)lg - 5;
    if (!g2 && lg >= 26) c = 22;
    if (c < 4) c = 4;
    if (c > 22) c = 22;
    return (unsigned)c;
}

/* Device scratch of one MSM of n points: what msm.cuh allocates, from its
 * own formulas (window c, W = ceil(255 / c) windows, M = 2^(c-1) buckets
 * each, S0 sorted entries per accumulation thread): keys and values with
 * their alternates 16 W n, buckets W M XYZZ points, partial sums 4 T0 (a
 * key each), the bucket reduction's levels (segments of 16: below W M / 4
 * points) and the sort's temporary (a small fraction of the keys), plus a
 * thirty-second and 64 MiB. 2^27 G1 points: 38.5 GB planned, 36.3 GB
 * allocated (measured on the H200). */
size_t cz_gpu_plan_msm_scratch(size_t n, int g2) {
    if (n == 0) return 0;
    const size_t c = cz_gpu_msm_window_bits(n, g2);
    const size_t w = (255 + c - 1) / c;
    const size_t m = (size_t)1 << (c - 1), xyzz = g2 ? 384 : 192, total = w * n;
    size_t s0 = total >> 18 > 256 ? 256 : (total >> 18 < 8 ? 8 : total >> 18);
    if (cz_gpu_settings_get()->msm_s) s0 = cz_gpu_settings_get()->msm_s;
    const size_t t0 = (total + s0 - 1) / s0;
    size_t b = 16 * total + w * m * xyzz + 4 * t0 * (xyzz + 8) + w * m * xyzz / 4 + total / 4;
    return b + b / 32 + ((size_t)64 << 20);
}

size_t cz_gpu_plan_lean_sum_room(const cz_groth16_params *p, size_t chunk) {
    const size_t buffer = (p->n_h + 1) * sizeof(cz_fr);
    const unsigned c = cz_gpu_plan_msm_sum_window(p->n_h, chunk, SIZE_MAX);
    const size_t b = c ? cz_gpu_plan_msm_sum_bytes(c) : 0;
    return b > buffer ? b - buffer : 0;
}

size_t cz_gpu_plan_msm_sum_bytes(unsigned c) {
    return (size_t)((255 + c - 1) / c) * ((size_t)1 << (c - 1)) * 192;
}

unsigned cz_gpu_plan_msm_sum_window(size_t n, size_t piece, size_t room) {
    const unsigned lo = cz_gpu_msm_window_bits(piece, 0), hi = cz_gpu_msm_window_bits(n, 0);
    const size_t scratch = cz_gpu_plan_msm_scratch(piece, 1);
    unsigned best = 0;
    for (unsigned c = hi; c >= lo && c >= 4; c--) {
        const size_t b = cz_gpu_plan_msm_sum_bytes(c);
        /* the reduction's levels: below a quarter of the buckets */
        if (b > room || b / 4 + ((size_t)64 << 20) > scratch) continue;
        if (!best || (255 + c - 1) / c <= (255 + best - 1) / best) best = c;
    }
    return best;
}

static size_t max2(size_t a, size_t b) {
    return a > b ? a : b;
}

static size_t words(size_t bits) {
    return (bits + 63) / 64;
}

size_t cz_gpu_plan_tail_chunk(void) {
    return cz_gpu_settings_get()->tail_chunk;
}

size_t cz_gpu_plan_tail_cap(size_t n) {
    return n < cz_gpu_plan_tail_chunk() ? n : cz_gpu_plan_tail_chunk();
}

/* A tail longer than one piece, at least CZ_GPU_TAIL_DENSE percent of the
 * scalars (a Poseidon witness: 98.7 %), and within the MSMs' digit count:
 * the whole vector's MSM is cheaper per point than pieces of 2^24 (a wider
 * window: 2^27 points cost 5.4 ns each, 2^24 points 6.7 ns) and gathers
 * nothing; the zero and masked scalars cost their digits and their place in
 * the sort. */
int cz_gpu_plan_dense_tail(size_t t, size_t n) {
    const unsigned c = cz_gpu_msm_window_bits(n, 1); /* G2's: the narrower window */
    return t > cz_gpu_plan_tail_chunk() &&
           t * 100 >= (size_t)cz_gpu_settings_get()->tail_dense * n &&
           (size_t)((255 + c - 1) / c) * n < ((size_t)1 << 31);
}

/* A pass set keeps tails of at most 1/PASS_TAIL_DIV of a sum's scalars
 * (a PoRep witness's are ~2 %); a longer tail is summed at once. */
#define PASS_TAIL_DIV 16

size_t cz_gpu_plan_pass_tail(size_t n) {
    return n / PASS_TAIL_DIV;
}

/* One sum's part of a pass set on the device during the pass: its ones
 * bitmap, its tail's indices and scalars. */
static size_t pass_part_bytes(size_t n) {
    return words(n) * 8 + cz_gpu_plan_pass_tail(n) * (sizeof(uint32_t) + sizeof(cz_fr)) + 36;
}

/* At their peak: the H chain's a, b, c with the assignment beside them
 * (when a, b, c come from a device circuit), or the assignment and the
 * split buffers afterwards. A lean plan's H chain holds two of a, b, c and
 * no assignment (it goes up after the H MSM), and its long tails are
 * masked into one chunk-sized piece at a time (short ones are gathered
 * whole for the pass set). A chunked plan's pass, later, holds the parts of
 * CZ_GPU_PASS_UNITS sets for one vector (streaming_need counts its piece
 * of gathered tail points). */
size_t cz_gpu_plan_proof_bytes(const cz_groth16_params *p, int chunked, size_t lean_chunk) {
    const size_t m = p->n_h + 1, ni = p->vk.n_ic, na = p->n_l;
    const size_t nab = max2(p->n_a, p->n_b_g1), nmax = max2(na, nab);
    size_t h = lean_chunk ? 2 * m * sizeof(cz_fr) : (3 * m + ni + na) * sizeof(cz_fr);
    size_t tail_room = lean_chunk ? lean_chunk : nmax;
    if (chunked) tail_room = max2(tail_room, cz_gpu_plan_pass_tail(nmax));
    size_t lab = (ni + na) * (sizeof(cz_fr) + 4) + (2 * words(na) + words(ni)) * 8 +
                 nab * sizeof(cz_fr) + words(nmax) * 8 + tail_room * sizeof(cz_fr);
    if (!chunked)
        return max2(h, lab + cz_gpu_plan_tail_cap(nmax) * sizeof(cz_g1_affine) +
                           cz_gpu_plan_tail_cap(p->n_b_g1) * sizeof(cz_g2_affine));
    return max2(h, max2(lab, cz_gpu_settings_get()->pass_units * pass_part_bytes(nmax)));
}

/* The vectors in the order a partial plan keeps them. */
static const int keep_order[CZ_GROTH16_VECTORS] = {CZ_GROTH16_H, CZ_GROTH16_B_G2, CZ_GROTH16_L,
                                                   CZ_GROTH16_A, CZ_GROTH16_B_G1};

static size_t vector_bytes(const cz_groth16_params *p, int v) {
    const size_t n[CZ_GROTH16_VECTORS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    return n[v] * (v == CZ_GROTH16_B_G2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine));
}

/* Streaming in chunks of c (lean or not): the NTT tables, one proof's
 * buffers, two chunk buffers (room for G2 points), a pass's gathered tail
 * points (a piece of G2 points) and one chunk's MSM scratch. A partial plan adds its
 * kept vectors: their MSMs run in the same pieces, from device memory. */
static size_t streaming_need(const cz_groth16_params *p, size_t tables, size_t c, int lean) {
    const size_t piece = c < CZ_GPU_PASS_PIECE ? c : CZ_GPU_PASS_PIECE;
    return tables + cz_gpu_plan_proof_bytes(p, 1, lean ? c : 0) + 2 * c * sizeof(cz_g2_affine) +
           piece * sizeof(cz_g2_affine) + cz_gpu_plan_msm_scratch(c, 1);
}

/* The largest chunk from CHUNK_MAX down to CHUNK_MIN whose streaming plan
 * fits budget; 0 when none does. */
static size_t largest_chunk(const cz_groth16_params *p, size_t tables, size_t budget, int lean) {
    for (size_t c = CHUNK_MAX; c >= CHUNK_MIN; c >>= 1)
        if (streaming_need(p, tables, c, lean) <= budget) return c;
    return 0;
}

/* The resident plan: every vector, the tables, one proof's buffers with
 * gather room for the tails and the largest whole-vector MSM's scratch
 * (G1 over max(m, n_l, n_a, n_b), or B's G2 MSM over all its points when
 * its tail is dense). */
static size_t resident_work(const cz_groth16_params *p) {
    const size_t m = p->n_h + 1;
    const size_t largest = max2(max2(m, p->n_l), max2(p->n_a, p->n_b_g1));
    return cz_gpu_plan_proof_bytes(p, 0, 0) +
           max2(cz_gpu_plan_msm_scratch(largest, 0), cz_gpu_plan_msm_scratch(p->n_b_g1, 1));
}

static cz_status shape_check(unsigned *log_m, const cz_groth16_params *p, cz_error *err) {
    /* n_h = m - 1 for the circuit's domain m = 2^k (prover.h) */
    const size_t m = p->n_h + 1;
    unsigned k = 0;
    while (k < 40 && ((size_t)1 << k) < m) k++;
    if (((size_t)1 << k) != m || k > 28)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu srs: params.h has %zu points; 2^k - 1 with k <= 28 expected",
                            p->n_h);
    *log_m = k;
    return CZ_OK;
}

cz_status cz_gpu_plan_footprint(size_t *key_bytes, size_t *work_bytes,
                                const cz_groth16_params *shape, cz_error *err) {
    *key_bytes = *work_bytes = 0;
    unsigned k = 0;
    cz_status st = shape_check(&k, shape, err);
    if (st != CZ_OK) return st;
    size_t points = 0;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) points += vector_bytes(shape, v);
    *key_bytes = points + cz_gpu_ntt_table_elems(k) * sizeof(cz_fr);
    *work_bytes = resident_work(shape);
    return CZ_OK;
}

cz_status cz_gpu_plan_make(cz_gpu_plan *out, const cz_groth16_params *p, size_t budget,
                           const cz_gpu_plan_force *force, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_status st = shape_check(&out->log_m, p, err);
    if (st != CZ_OK) return st;
    const size_t forced_chunk = force ? force->chunk : 0;
    const unsigned forced_keep = forced_chunk ? force->keep : 0;
    const size_t tables = cz_gpu_ntt_table_elems(out->log_m) * sizeof(cz_fr);
    size_t points = 0;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) points += vector_bytes(p, v);
    out->budget = budget;
    out->resident_need = points + tables + resident_work(p);
    out->minimum = streaming_need(p, tables, CHUNK_MIN, 1);
    if (!forced_chunk && out->resident_need <= budget) {
        out->kind = CZ_GPU_PLAN_RESIDENT;
        out->keep = (1u << CZ_GROTH16_VECTORS) - 1;
        out->need = out->resident_need;
        out->held = points + tables;
        return CZ_OK;
    }
    /* the largest chunk that fits (or the forced one), then the vectors
     * that fit beside it; lean (keeping no vector) where the plain plan's
     * chunk would be at most LEAN_CHOICE_MAX and the lean one's is larger,
     * or where a larger plain chunk keeps no H points and the lean one's
     * is as large (it never is smaller: its working set is) */
    const size_t c = forced_chunk ? forced_chunk : largest_chunk(p, tables, budget, 0);
    out->kind = CZ_GPU_PLAN_STREAMING;
    out->chunk_points = c;
    out->need = streaming_need(p, tables, c, 0);
    if (forced_chunk) {
        out->keep = forced_keep & ((1u << CZ_GROTH16_VECTORS) - 1);
        for (int v = 0; v < CZ_GROTH16_VECTORS; v++)
            if (out->keep >> v & 1) out->need += vector_bytes(p, v);
        if (force->lean && !out->keep) {
            out->lean = 1;
            out->need = streaming_need(p, tables, c, 1);
        }
    } else if (c >= PARTIAL_CHUNK_MIN) {
        for (int i = 0; i < CZ_GROTH16_VECTORS; i++) {
            const int v = keep_order[i];
            const size_t bytes = vector_bytes(p, v);
            if (bytes && out->need + bytes <= budget) {
                out->keep |= 1u << v;
                out->need += bytes;
            }
        }
    }
    const int large_without_h = c > LEAN_CHOICE_MAX && !(out->keep >> CZ_GROTH16_H & 1);
    if (!forced_chunk && (c <= LEAN_CHOICE_MAX || large_without_h)) {
        const size_t lc = largest_chunk(p, tables, budget, 1);
        if (lc > c || (large_without_h && lc == c)) {
            out->lean = 1;
            out->keep = 0;
            out->chunk_points = lc;
            out->need = streaming_need(p, tables, lc, 1);
        }
    }
    if (out->lean && out->chunk_points && cz_gpu_settings_get()->msm_carry) {
        /* the carried H MSM's widest buckets, where the budget has them:
         * they sit beside the H chain's buffers, which a lean proof's peak
         * may exceed already (its passes) */
        const size_t room = cz_gpu_plan_lean_sum_room(p, out->chunk_points);
        const size_t h = 2 * (p->n_h + 1) * sizeof(cz_fr) + room;
        const size_t proof = cz_gpu_plan_proof_bytes(p, 1, out->chunk_points);
        const size_t more = h > proof ? h - proof : 0;
        if (room && out->need + more <= budget) {
            out->sum_room = room;
            out->need += more;
        }
    }
    if (!out->chunk_points) { /* below the minimum: the figures of the smallest plan */
        out->chunk_points = CHUNK_MIN;
        out->lean = 1;
        out->need = out->minimum;
        out->held = tables + 2 * CHUNK_MIN * sizeof(cz_g2_affine);
        for (int v = 0; v < CZ_GROTH16_VECTORS; v++) out->stream_bytes += vector_bytes(p, v);
        return cz_error_set(err, CZ_E_NOMEM,
                            "gpu srs: the device is too small for this circuit: even streaming "
                            "its points from host memory needs %.0f MiB (the NTT tables %.0f "
                            "MiB, one proof's buffers %.0f MiB, chunk buffers and MSM scratch); "
                            "%.0f MiB are usable; the whole key resident would need %.0f MiB",
                            MIB(out->minimum), MIB(tables),
                            MIB(cz_gpu_plan_proof_bytes(p, 1, CHUNK_MIN)), MIB(budget),
                            MIB(out->resident_need));
    }
    size_t kept = 0;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        if (out->keep >> v & 1)
            kept += vector_bytes(p, v);
        else
            out->stream_bytes += vector_bytes(p, v);
    }
    if (out->keep) out->kind = CZ_GPU_PLAN_PARTIAL;
    out->held = tables + kept + 2 * out->chunk_points * sizeof(cz_g2_affine);
    return CZ_OK;
}

size_t cz_gpu_plan_shrink(size_t used) {
    const size_t mib = (size_t)1 << 20;
    if (used <= 2 * mib) return 0;
    const size_t step = used / 4 > mib ? used / 4 : mib;
    return used - step;
}

const char *cz_gpu_plan_name(cz_gpu_plan_kind kind) {
    switch (kind) {
    case CZ_GPU_PLAN_RESIDENT: return "resident";
    case CZ_GPU_PLAN_PARTIAL: return "partial";
    case CZ_GPU_PLAN_STREAMING: return "streaming";
    }
    return "?";
}

/* "h, b_g2" for the vectors of mask in keep order (or "none"). */
static void vector_list(char *buf, size_t size, unsigned mask) {
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < CZ_GROTH16_VECTORS && at < size; i++) {
        const int v = keep_order[i];
        if (!(mask >> v & 1)) continue;
        int w = snprintf(buf + at, size - at, "%s%s", at ? ", " : "",
                         cz_groth16_vector_name((cz_groth16_vector)v));
        if (w < 0) break;
        at += (size_t)w;
    }
    if (!buf[0]) snprintf(buf, size, "none");
}

void cz_gpu_plan_describe(char *buf, size_t size, const cz_gpu_plan *p) {
    if (!size) return;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    unsigned lc = 0;
    while (lc < 40 && ((size_t)1 << lc) < p->chunk_points) lc++;
    char kept[64], streamed[64];
    vector_list(kept, sizeof kept, p->keep);
    vector_list(streamed, sizeof streamed, ~p->keep & ((1u << CZ_GROTH16_VECTORS) - 1));
    if (p->kind == CZ_GPU_PLAN_RESIDENT)
        snprintf(buf, size, "resident: the whole key on the device; %.1f of %.1f GiB",
                 p->need / gib, p->budget / gib);
    else if (!p->stream_bytes)
        snprintf(buf, size,
                 "partial: the whole key on the device, its MSMs in pieces of 2^%u points (a "
                 "whole vector's scratch does not fit); %.1f of %.1f GiB (resident would need "
                 "%.1f)",
                 lc, p->need / gib, p->budget / gib, p->resident_need / gib);
    else {
        char lean[80] = "";
        if (p->lean && p->sum_room)
            snprintf(lean, sizeof lean,
                     " (lean: two H-chain buffers, %.1f GB more for H's buckets)",
                     (double)p->sum_room / 1e9);
        else if (p->lean)
            snprintf(lean, sizeof lean, " (lean: two H-chain buffers)");
        snprintf(buf, size,
                 "%s%s: %s resident, %s streamed in chunks of 2^%u points (%.1f GB of points); "
                 "%.1f of %.1f GiB (resident would need %.1f)",
                 cz_gpu_plan_name(p->kind), lean, kept, streamed, lc, (double)p->stream_bytes / 1e9,
                 p->need / gib, p->budget / gib, p->resident_need / gib);
    }
}
