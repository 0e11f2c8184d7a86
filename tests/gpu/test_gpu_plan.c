/* The device memory plan (gpu/plan.h), no device needed, in every build:
 * which plan a key gets for each device size, the refusal below the
 * minimum, and the byte counts against what the H200 measured (a 2^27 G1
 * MSM allocates 36.3 GB; the 32 GiB PoRep key resident on 139 GiB; the
 * same key streaming on an H200 capped at 22 GiB). */
#include <stdio.h>
#include <string.h>

#include "gpu/ntt_layout.h"
#include "gpu/plan.h"
#include "gpu/settings.h"
#include "harness/harness.h"

#define GIB ((size_t)1 << 30)

/* the 32 GiB PoRep partition's key (`cuzk info circuit --sector-size
 * 32GiB`: 328 inputs, 130,169,893 aux, a_aux density 129,753,292, b
 * 1 + 33,112,281; its .params file is 47,373,928,632 bytes) */
static void porep32g(cz_groth16_params *shape) {
    memset(shape, 0, sizeof *shape);
    const size_t m = (size_t)1 << 27;
    shape->vk.n_ic = 328, shape->n_h = m - 1, shape->n_l = 130169893;
    shape->n_a = 328 + 129753292, shape->n_b_g1 = 1 + 33112281, shape->n_b_g2 = 1 + 33112281;
}

static size_t vector_bytes(const cz_groth16_params *p, int v) {
    const size_t n[CZ_GROTH16_VECTORS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    return n[v] * (v == CZ_GROTH16_B_G2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine));
}

static void test_footprint(void) {
    cz_error err = {0};
    cz_groth16_params shape;
    porep32g(&shape);
    const size_t m = (size_t)1 << 27, ni = 328, na = 130169893;
    size_t key = 0, work = 0, points = 0;
    CHECK(cz_gpu_plan_footprint(&key, &work, &shape, &err) == CZ_OK);
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) points += vector_bytes(&shape, v);
    /* the .params file's point bytes: its size less the header and vk */
    CHECK(points < 47373928632ull && points > 47373928632ull - ((size_t)1 << 20));
    /* the NTT tables of 2^27: two-level twiddles and coset powers of both
     * directions, 2 (2^13 + 2^14) each, the butterflies' roots of an
     * 11-stage pass (2 x 2^10), and for each of the four (DIT / DIF,
     * forward / inverse) three-pass layouts (9 + 9 + 9) M's plain and coset
     * tables, 2^18 each, and an edge table of 2^(27 - 9): 99 MiB, not the
     * 4 GiB of a whole-domain twiddle table */
    CHECK(cz_gpu_ntt_table_elems(27) ==
          2 * 2 * (8192 + 16384) + 2 * 1024 + 4 * 3 * ((size_t)1 << 18));
    CHECK(key == points + cz_gpu_ntt_table_elems(27) * sizeof(cz_fr));
    const double gb = 1e9, abc = (double)(3 * m + ni + na) * sizeof(cz_fr);
    printf("32 GiB PoRep shape: key %.1f GB, working set %.1f GB (a, b, c and the assignment "
           "%.1f GB)\n",
           key / gb, work / gb, abc / gb);
    CHECK(cz_gpu_plan_msm_scratch(m, 0) >= (size_t)(36.3 * gb)); /* measured on the H200 */
    CHECK(work >= 36.3 * gb + abc);
    CHECK(work <= 60.0 * gb);
    /* n_h must be 2^k - 1, k <= 28 */
    shape.n_h = m;
    CHECK(cz_gpu_plan_footprint(&key, &work, &shape, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "2^k - 1") != NULL);
    CHECK(key == 0 && work == 0);
    shape.n_h = ((size_t)1 << 29) - 1;
    CHECK(cz_gpu_plan_footprint(&key, &work, &shape, &err) == CZ_E_INVALID_ARG);
}

/* Window bits as msm.cuh documents them: log2(n) - 5 in [4, 22], G1 22
 * from 2^26 points. */
static void test_window(void) {
    CHECK(cz_gpu_msm_window_bits(1, 0) == 4);
    CHECK(cz_gpu_msm_window_bits((size_t)1 << 20, 0) == 15);
    CHECK(cz_gpu_msm_window_bits(((size_t)1 << 20) - 1, 1) == 14);
    CHECK(cz_gpu_msm_window_bits((size_t)1 << 26, 0) == 22);
    CHECK(cz_gpu_msm_window_bits((size_t)1 << 26, 1) == 21);
    CHECK(cz_gpu_msm_window_bits((size_t)1 << 27, 1) == 22);
    CHECK(cz_gpu_msm_window_bits((size_t)1 << 30, 1) == 22);
    /* a carried G1 sum (the streamed H MSM): the fewest windows whose
     * buckets (W 2^(c-1) XYZZ points of 192 bytes) fit the room, the
     * narrowest of those, at least the chunk's own window; 0 when none
     * fits. 2^27 points in chunks of 2^22: where b and c were (8 GiB) the
     * MSM's own window, 22 (12 windows, 4.8 GB); where c was (a lean
     * plan's 4 GiB) 20 (13 windows: 1.3 GB, not 21's 2.6) */
    const size_t n27 = (size_t)1 << 27, c22 = (size_t)1 << 22, c20 = (size_t)1 << 20;
    CHECK(cz_gpu_plan_msm_sum_bytes(22) == 12 * ((size_t)1 << 21) * 192);
    CHECK(cz_gpu_plan_msm_sum_window(n27, c22, (size_t)8 << 30) == 22);
    CHECK(cz_gpu_plan_msm_sum_window(n27, c22, (size_t)4 << 30) == 20);
    CHECK(cz_gpu_plan_msm_sum_window(n27, c20, (size_t)4 << 30) == 20);
    CHECK(cz_gpu_plan_msm_sum_window(n27, c22, cz_gpu_plan_msm_sum_bytes(17) - 1) == 0);
    CHECK(cz_gpu_plan_msm_sum_window(n27, c22, cz_gpu_plan_msm_sum_bytes(17)) == 17);
    /* small sums: the whole MSM's window when it fits */
    CHECK(cz_gpu_plan_msm_sum_window(65539, 4096, (size_t)1 << 30) == 11);
    CHECK(cz_gpu_plan_msm_sum_window(65539, 65539, (size_t)1 << 30) == 11);
}

/* The plan for every device size from 1 to 160 GiB: valid, within the
 * budget, and more memory never streams in smaller chunks. */
static void test_sizes(void) {
    cz_groth16_params shape;
    porep32g(&shape);
    cz_error err = {0};
    unsigned prev_keep = 0;
    size_t prev_kept = 0, prev_chunk = 0;
    int prev_lean = 1;
    int seen[3] = {0, 0, 0}, refused = 0;
    for (size_t gib = 1; gib <= 160; gib++) {
        cz_gpu_plan pl;
        cz_status st = cz_gpu_plan_make(&pl, &shape, gib * GIB, NULL, &err);
        if (st == CZ_E_NOMEM) {
            refused++;
            CHECK(gib * GIB < pl.minimum);
            CHECK(strstr(err.message, "too small") != NULL);
            continue;
        }
        CHECK(st == CZ_OK);
        if (st != CZ_OK) continue;
        seen[pl.kind]++;
        CHECK(pl.need <= pl.budget);
        CHECK(gib * GIB >= pl.minimum);
        CHECK(pl.log_m == 27);
        size_t kept = 0, streamed = 0;
        for (int v = 0; v < CZ_GROTH16_VECTORS; v++)
            *(pl.keep >> v & 1 ? &kept : &streamed) += vector_bytes(&shape, v);
        CHECK(pl.stream_bytes == streamed);
        CHECK((pl.kind == CZ_GPU_PLAN_RESIDENT) == (pl.budget >= pl.resident_need));
        CHECK((pl.kind == CZ_GPU_PLAN_STREAMING) == (pl.keep == 0));
        if (pl.kind == CZ_GPU_PLAN_RESIDENT) {
            CHECK(pl.chunk_points == 0 && streamed == 0);
        } else {
            CHECK(pl.chunk_points >= ((size_t)1 << 12) && pl.chunk_points <= ((size_t)1 << 24));
            CHECK((pl.chunk_points & (pl.chunk_points - 1)) == 0);
            if (pl.kind == CZ_GPU_PLAN_PARTIAL) CHECK(pl.chunk_points >= ((size_t)1 << 22));
            /* among plans of one working set (lean or plain): the lean
             * plan below 24 GiB may get larger chunks than the plain one
             * above it, which uploads a, b, c less */
            if (pl.lean == prev_lean) CHECK(pl.chunk_points >= prev_chunk);
            prev_chunk = pl.chunk_points, prev_lean = pl.lean;
        }
        CHECK(pl.held <= pl.need);
        /* not monotone in kept bytes: a larger chunk may take the room a
         * vector had (the chunk comes first: it sets every MSM's speed) */
        prev_kept = kept, prev_keep = pl.keep;
        if (gib == 12 || gib == 16 || gib == 22 || gib == 24 || gib == 32 || gib == 48 ||
            gib == 64 || gib == 80 || gib == 139) {
            char line[320];
            cz_gpu_plan_describe(line, sizeof line, &pl);
            printf("%3zu GiB: %s\n", gib, line);
        }
    }
    (void)prev_keep, (void)prev_kept;
    /* the H200 (139 GiB free) holds the key: measured resident */
    cz_gpu_plan pl;
    CHECK(cz_gpu_plan_make(&pl, &shape, 139 * GIB, NULL, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_RESIDENT);
    /* capped at 22 GiB it proved streaming (docs/PERFORMANCE.md, 68 s) */
    CHECK(cz_gpu_plan_make(&pl, &shape, 22 * GIB, NULL, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_STREAMING);
    CHECK(seen[CZ_GPU_PLAN_RESIDENT] && seen[CZ_GPU_PLAN_PARTIAL] && seen[CZ_GPU_PLAN_STREAMING]);
    CHECK(refused > 0);
    printf("32 GiB PoRep: minimum %.1f GiB, resident from %.1f GiB\n",
           (double)pl.minimum / (double)GIB, (double)pl.resident_need / (double)GIB);
}

/* At the minimum exactly: lean streaming in the smallest chunk; a byte less
 * is refused, with the figure in the message. */
static void test_minimum(void) {
    cz_groth16_params shape;
    porep32g(&shape);
    cz_error err = {0};
    cz_gpu_plan pl;
    CHECK(cz_gpu_plan_make(&pl, &shape, 12 * GIB, NULL, &err) == CZ_E_NOMEM ||
          pl.kind == CZ_GPU_PLAN_STREAMING);
    const size_t min = pl.minimum;
    CHECK(cz_gpu_plan_make(&pl, &shape, min, NULL, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_STREAMING && pl.chunk_points == ((size_t)1 << 12) && pl.lean);
    CHECK(pl.need == min);
    CHECK(cz_gpu_plan_make(&pl, &shape, min - 1, NULL, &err) == CZ_E_NOMEM);
    char figure[32];
    snprintf(figure, sizeof figure, "%.0f MiB", (double)min / (1024.0 * 1024.0));
    CHECK(strstr(err.message, figure) != NULL);
    printf("refused: %s\n", err.message);
    /* a forced chunk (CZ_GPU_STREAM_CHUNK) streams even where the key fits */
    const cz_gpu_plan_force c16 = {(size_t)1 << 16, 0, 0};
    CHECK(cz_gpu_plan_make(&pl, &shape, 139 * GIB, &c16, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_STREAMING && pl.chunk_points == ((size_t)1 << 16));
    CHECK(pl.keep == 0 && !pl.lean);
    const cz_gpu_plan_force c16lean = {(size_t)1 << 16, 0, 1};
    CHECK(cz_gpu_plan_make(&pl, &shape, 139 * GIB, &c16lean, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_STREAMING && pl.lean && pl.chunk_points == ((size_t)1 << 16));
    /* with forced vectors to keep (CZ_GPU_STREAM_KEEP): partial */
    const unsigned hb = 1u << CZ_GROTH16_H | 1u << CZ_GROTH16_B_G2;
    const cz_gpu_plan_force c16hb = {(size_t)1 << 16, hb, 1}; /* lean does not go with keep */
    CHECK(cz_gpu_plan_make(&pl, &shape, 139 * GIB, &c16hb, &err) == CZ_OK);
    CHECK(!pl.lean);
    CHECK(pl.kind == CZ_GPU_PLAN_PARTIAL && pl.keep == hb && pl.chunk_points == ((size_t)1 << 16));
    CHECK(pl.stream_bytes == vector_bytes(&shape, CZ_GROTH16_L) +
                                 vector_bytes(&shape, CZ_GROTH16_A) +
                                 vector_bytes(&shape, CZ_GROTH16_B_G1));
}

/* The lean plan: one proof's working set of 32 GiB PoRep halved (two of
 * a, b, c and no assignment in the H chain, 8 GiB; tail scalars per chunk),
 * so a 16 GiB card proves it in chunks of 2^21 points or more. It is chosen
 * where the plain plan's chunk would be 2^22 or less, with a chunk the
 * plain plan could not have, and where a larger plain chunk would keep no
 * H points beside it, with a chunk as large. */
static void test_lean(void) {
    cz_groth16_params shape;
    porep32g(&shape);
    cz_error err = {0};
    cz_gpu_plan pl;
    const size_t m = (size_t)1 << 27;
    CHECK(cz_gpu_plan_proof_bytes(&shape, 1, 0) >= 3 * m * sizeof(cz_fr));
    CHECK(cz_gpu_plan_proof_bytes(&shape, 1, (size_t)1 << 22) <= (size_t)9 * GIB);
    CHECK(cz_gpu_plan_make(&pl, &shape, 16 * GIB, NULL, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_STREAMING && pl.lean && pl.keep == 0);
    CHECK(pl.chunk_points >= ((size_t)1 << 21) && pl.need <= 16 * GIB);
    char line[320];
    cz_gpu_plan_describe(line, sizeof line, &pl);
    CHECK(strstr(line, "lean") != NULL);
    printf("16 GiB: %s\n", line);
    /* 15 GiB (what a 16 GB card leaves after its context) proves too, and
     * so does a 12 GB card's 11.5 GiB, in chunks of 2^21 */
    CHECK(cz_gpu_plan_make(&pl, &shape, 15 * GIB, NULL, &err) == CZ_OK && pl.lean);
    CHECK(cz_gpu_plan_make(&pl, &shape, 23 * GIB / 2, NULL, &err) == CZ_OK && pl.lean);
    CHECK(pl.chunk_points >= ((size_t)1 << 21));
    int leans = 0;
    for (size_t gib = 12; gib <= 80; gib++) {
        if (cz_gpu_plan_make(&pl, &shape, gib * GIB, NULL, &err) != CZ_OK || !pl.lean) continue;
        leans++;
        CHECK(pl.kind == CZ_GPU_PLAN_STREAMING && pl.keep == 0 && pl.need <= gib * GIB);
        const cz_gpu_plan_force plain = {pl.chunk_points, 0, 0};
        cz_gpu_plan same;
        CHECK(cz_gpu_plan_make(&same, &shape, gib * GIB, &plain, &err) == CZ_OK);
        CHECK(!same.lean);
        /* the plain plan could not stream in chunks as large, or could
         * keep no H points beside them */
        CHECK(same.need > gib * GIB ||
              (pl.chunk_points > ((size_t)1 << 22) &&
               gib * GIB - same.need < vector_bytes(&shape, CZ_GROTH16_H)));
    }
    CHECK(leans > 0);
    /* 22 GiB (a 24 GiB device less a streamed circuit's windows): the
     * plain plan would stream in 2^22 chunks, the lean one streams in 2^24
     * (measured faster) */
    const cz_gpu_plan_force plain22 = {(size_t)1 << 22, 0, 0}, plain23 = {(size_t)1 << 23, 0, 0};
    cz_gpu_plan plain;
    CHECK(cz_gpu_plan_make(&plain, &shape, 22 * GIB, &plain22, &err) == CZ_OK);
    CHECK(plain.need <= 22 * GIB);
    CHECK(cz_gpu_plan_make(&plain, &shape, 22 * GIB, &plain23, &err) == CZ_OK);
    CHECK(plain.need > 22 * GIB);
    CHECK(cz_gpu_plan_make(&pl, &shape, 22 * GIB, NULL, &err) == CZ_OK);
    CHECK(pl.lean && pl.keep == 0 && pl.kind == CZ_GPU_PLAN_STREAMING);
    CHECK(pl.chunk_points == ((size_t)1 << 24) && pl.need <= 22 * GIB);
    /* at 24 GiB the plain plan would stream in 2^23 chunks keeping no
     * vector, at 27 GiB keep B_G1 beside 2^23 chunks, at 30 GiB stream in
     * 2^24 keeping none, at 36 GiB keep B_G2 beside 2^24: lean in 2^24
     * (measured faster at 24, 26.4 and 29.7 GiB); from 41 GiB it keeps H
     * and stays */
    CHECK(cz_gpu_plan_make(&plain, &shape, 24 * GIB, &plain23, &err) == CZ_OK);
    CHECK(plain.need <= 24 * GIB);
    const size_t lean_gibs[] = {24, 27, 30, 36, 40};
    for (size_t i = 0; i < sizeof lean_gibs / sizeof lean_gibs[0]; i++) {
        CHECK(cz_gpu_plan_make(&pl, &shape, lean_gibs[i] * GIB, NULL, &err) == CZ_OK);
        CHECK(pl.lean && pl.keep == 0 && pl.chunk_points == ((size_t)1 << 24));
    }
    CHECK(cz_gpu_plan_make(&pl, &shape, 41 * GIB, NULL, &err) == CZ_OK);
    CHECK(!pl.lean && pl.chunk_points == ((size_t)1 << 24));
    CHECK(pl.kind == CZ_GPU_PLAN_PARTIAL && pl.keep == 1u << CZ_GROTH16_H);
}

/* A lean plan's carried H MSM: its buckets in the H chain's second buffer
 * (2^27 scalars, 4 GiB: c = 20, 13 windows), or, with 0.5 GB beside it,
 * 12 windows of c = 22 (4.8 GB) from that buffer on: planned where the
 * budget has them. */
static void test_lean_sum_room(void) {
    cz_groth16_params shape;
    porep32g(&shape);
    cz_error err = {0};
    const size_t m = (size_t)1 << 27, c24 = (size_t)1 << 24;
    const size_t room = cz_gpu_plan_lean_sum_room(&shape, c24);
    CHECK(room == cz_gpu_plan_msm_sum_bytes(22) - m * sizeof(cz_fr));
    CHECK(cz_gpu_plan_msm_sum_window(m - 1, c24, m * sizeof(cz_fr)) == 20);
    CHECK(cz_gpu_plan_msm_sum_window(m - 1, c24, m * sizeof(cz_fr) + room) == 22);
    CHECK(cz_gpu_plan_msm_sum_window(m - 1, c24, m * sizeof(cz_fr) + room - 1) == 20);
    /* in chunks of 2^20 the chunk's scratch holds no wider reduction than
     * the buffer's buckets: nothing beside it */
    CHECK(cz_gpu_plan_lean_sum_room(&shape, (size_t)1 << 20) == 0);
    /* 32 GiB PoRep: a lean proof's peak is its splits' buffers, above the
     * H chain's two buffers with the room, so the room costs no budget */
    const cz_gpu_plan_force lean24 = {c24, 0, 1};
    cz_gpu_plan pl, tight;
    CHECK(2 * m * sizeof(cz_fr) + room <= cz_gpu_plan_proof_bytes(&shape, 1, c24));
    CHECK(cz_gpu_plan_make(&pl, &shape, 24 * GIB, &lean24, &err) == CZ_OK);
    CHECK(pl.lean && pl.sum_room == room && pl.need <= 24 * GIB);
    CHECK(cz_gpu_plan_make(&tight, &shape, pl.need, &lean24, &err) == CZ_OK);
    CHECK(tight.sum_room == room && tight.need == pl.need);
    char line[320];
    cz_gpu_plan_describe(line, sizeof line, &pl);
    CHECK(strstr(line, "H's buckets") != NULL);
    printf("24 GiB, lean in 2^24: %s\n", line);
    /* a key whose H chain is its peak (few L, A, B points): the room only
     * where the budget has it beside the plan */
    shape.n_l = shape.n_a = shape.n_b_g1 = shape.n_b_g2 = (size_t)1 << 20;
    CHECK(2 * m * sizeof(cz_fr) > cz_gpu_plan_proof_bytes(&shape, 1, c24) - room);
    CHECK(cz_gpu_plan_make(&pl, &shape, 24 * GIB, &lean24, &err) == CZ_OK && pl.sum_room == room);
    const size_t more = 2 * m * sizeof(cz_fr) + room - cz_gpu_plan_proof_bytes(&shape, 1, c24);
    CHECK(cz_gpu_plan_make(&tight, &shape, pl.need - 1, &lean24, &err) == CZ_OK);
    CHECK(tight.lean && tight.sum_room == 0 && tight.need == pl.need - more);
    /* the plain plan never has them */
    porep32g(&shape);
    CHECK(cz_gpu_plan_make(&pl, &shape, 41 * GIB, NULL, &err) == CZ_OK);
    CHECK(!pl.lean && pl.sum_room == 0);
}

/* A partial plan keeps vectors in the order H, B_G2, L, A, B_G1, skipping
 * one that does not fit for a later one that does. */
static void test_partial_order(void) {
    cz_groth16_params shape;
    porep32g(&shape);
    cz_error err = {0};
    cz_gpu_plan base;
    const cz_gpu_plan_force c24 = {(size_t)1 << 24, 0, 0};
    CHECK(cz_gpu_plan_make(&base, &shape, 139 * GIB, &c24, &err) == CZ_OK);
    const size_t stream24 = base.need; /* streaming in chunks of 2^24 */
    const size_t h = vector_bytes(&shape, CZ_GROTH16_H);
    const size_t b2 = vector_bytes(&shape, CZ_GROTH16_B_G2);
    const size_t b1 = vector_bytes(&shape, CZ_GROTH16_B_G1);
    cz_gpu_plan pl;
    /* room for H and not B_G2 beside it, but B_G1 fits the rest */
    CHECK(cz_gpu_plan_make(&pl, &shape, stream24 + h + b1, NULL, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_PARTIAL && pl.chunk_points == ((size_t)1 << 24));
    CHECK(pl.keep == (1u << CZ_GROTH16_H | 1u << CZ_GROTH16_B_G1));
    /* room for B_G2 but not H: the plain plan would keep B_G2 alone, which
     * the lean plan in chunks as large replaces */
    CHECK(cz_gpu_plan_make(&pl, &shape, stream24 + b2, NULL, &err) == CZ_OK);
    CHECK(pl.lean && pl.keep == 0 && pl.chunk_points == ((size_t)1 << 24));
}

/* A small key (2 KiB PoRep: 2^17 domain) fits a small budget resident;
 * its plans obey the same rules. */
static void test_small(void) {
    cz_groth16_params shape;
    memset(&shape, 0, sizeof shape);
    shape.vk.n_ic = 2, shape.n_h = ((size_t)1 << 17) - 1, shape.n_l = 100000;
    shape.n_a = 99000, shape.n_b_g1 = 30000, shape.n_b_g2 = 30000;
    cz_error err = {0};
    cz_gpu_plan pl;
    CHECK(cz_gpu_plan_make(&pl, &shape, 2 * GIB, NULL, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_RESIDENT);
    CHECK(cz_gpu_plan_make(&pl, &shape, pl.resident_need - 1, NULL, &err) == CZ_OK);
    CHECK(pl.kind != CZ_GPU_PLAN_RESIDENT);
    CHECK(cz_gpu_plan_make(&pl, &shape, 1 << 20, NULL, &err) == CZ_E_NOMEM);
}

/* After a device out-of-memory the context plans with a quarter less than
 * it held each time (backend.c: shrink): from the resident 32 GiB PoRep key
 * the plans only get smaller
 * (resident, then partial or streaming, never back), and the refusal below
 * the minimum comes within 9 tries. */
static void test_shrink(void) {
    const size_t mib = (size_t)1 << 20;
    CHECK(cz_gpu_plan_shrink(2 * mib) == 0 && cz_gpu_plan_shrink(0) == 0);
    CHECK(cz_gpu_plan_shrink(3 * mib) == 2 * mib);
    CHECK(cz_gpu_plan_shrink(100 * GIB) == 75 * GIB);
    cz_groth16_params shape;
    porep32g(&shape);
    cz_error err = {0};
    cz_gpu_plan pl;
    CHECK(cz_gpu_plan_make(&pl, &shape, 139 * GIB, NULL, &err) == CZ_OK);
    CHECK(pl.kind == CZ_GPU_PLAN_RESIDENT);
    size_t budget = pl.need, last_need = pl.need;
    cz_gpu_plan_kind last = pl.kind;
    int tries = 0;
    for (;;) {
        const size_t next = cz_gpu_plan_shrink(last_need);
        CHECK(next > 0 && next < budget);
        budget = next;
        tries++;
        cz_status st = cz_gpu_plan_make(&pl, &shape, budget, NULL, &err);
        if (st == CZ_E_NOMEM) break;
        CHECK(st == CZ_OK && pl.need <= budget && pl.need < last_need && pl.kind >= last);
        printf("shrink %d: %.1f GiB: %s\n", tries, (double)budget / (double)GIB,
               cz_gpu_plan_name(pl.kind));
        last_need = pl.need, last = pl.kind;
        if (tries > 64) break;
    }
    CHECK(tries <= 9 && last == CZ_GPU_PLAN_STREAMING);
}

/* The device NTT's pass layout (ntt_layout.h), as ntt.cu documents it:
 * 27 = 9 + 9 + 9, 24 = 8 + 8 + 8, 28 in four passes of 7, small sizes in
 * one; with CZ_GPU_NTT_MAXB=5 2^20 gets the four-pass layout of 2^28. The
 * tables: M's (the pass next to the lowest bits) indexed by the low bL + bM
 * bits, the edge table by the bits outside the merged group. */
static void test_ntt_layout(void) {
    unsigned bs[4];
    CHECK(cz_gpu_ntt_split(27, bs) == 3 && bs[0] == 9 && bs[1] == 9 && bs[2] == 9);
    CHECK(cz_gpu_ntt_split(24, bs) == 3 && bs[0] == 8 && bs[2] == 8);
    CHECK(cz_gpu_ntt_split(28, bs) == 4 && bs[0] == 7 && bs[3] == 7);
    CHECK(cz_gpu_ntt_split(22, bs) == 3 && bs[0] == 8 && bs[1] == 7 && bs[2] == 7);
    CHECK(cz_gpu_ntt_split(9, bs) == 1 && bs[0] == 9);
    CHECK(cz_gpu_ntt_split(3, bs) == 1 && bs[0] == 3);
    /* DIT forward: bit-reversed positions, the edge pass is L (the first) */
    cz_gpu_ntt_layout l = cz_gpu_ntt_layout_get(27, true, false);
    CHECK(l.npass == 3 && l.bl == 9 && l.bm == 9 && l.rev && l.edge_l);
    CHECK(l.msize == ((size_t)1 << 18) && l.esize == ((size_t)1 << 18));
    CHECK(l.esh == 18 && l.ekeep == 9);
    /* DIF forward: natural positions, the edge pass (the first) is not L */
    l = cz_gpu_ntt_layout_get(27, false, false);
    CHECK(!l.rev && !l.edge_l && l.esh == 9 && l.ekeep == 0);
    /* one pass: no M, the edge pass is L */
    l = cz_gpu_ntt_layout_get(8, false, true);
    CHECK(l.npass == 1 && l.bm == 0 && l.msize == 0 && l.edge_l && l.esize == 256);
    /* the roots of the widest pass: 2^10 entries from 2^11 on */
    CHECK(cz_gpu_ntt_root_elems(27) == 1024 && cz_gpu_ntt_root_elems(11) == 1024);
    CHECK(cz_gpu_ntt_root_elems(4) == 8 && cz_gpu_ntt_root_elems(0) == 1);
    /* 2^28 (four passes: edge tables of 2^21) stays under 512 MiB, against 8 GiB whole */
    CHECK(cz_gpu_ntt_table_elems(0) > 0 && cz_gpu_ntt_table_elems(28) < ((size_t)1 << 24));
    /* CZ_GPU_NTT_MAXB=5: 2^20 in four passes of 5 */
    cz_gpu_settings knobs;
    cz_gpu_settings_defaults(&knobs);
    knobs.ntt_maxb = 5;
    cz_gpu_settings_use(&knobs);
    CHECK(cz_gpu_ntt_split(20, bs) == 4 && bs[0] == 5 && bs[3] == 5);
    cz_gpu_settings_use(NULL);
    CHECK(cz_gpu_ntt_split(20, bs) == 3);
}

int main(void) {
    cz_test_init("gpu/test_gpu_plan");
    test_ntt_layout();
    test_footprint();
    test_window();
    test_sizes();
    test_minimum();
    test_lean();
    test_lean_sum_room();
    test_partial_order();
    test_small();
    test_shrink();
    return cz_test_finish("gpu/test_gpu_plan");
}
