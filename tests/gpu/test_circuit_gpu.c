/* a, b, c from a resident pre-compiled circuit on the device
 * (cz_gpu_circuit_*) against evaluations done here with the CPU's cz_fr
 * arithmetic (every entry multiplied by its table value, no special cases),
 * on random compact circuits: u16 and u32 coefficient indices, tables in
 * shared and in global memory, empty rows, rows at the short / long and
 * piece boundaries, long rows of thousands and of 100,000 entries, a case of
 * more than a million rows, outputs left out; the same circuits streamed
 * (in ~37 row windows and in one) give the same a, b, c, and so does a
 * witness of mostly 0 and 1 read packed. Bad circuits are refused with
 * the fault named. Then the GPU prover through the circuit path (a, b, c
 * not in the prove data) against the CPU prover on the same circuit: the
 * same five sums and, with the same r, s, the same proof bytes.
 *
 * The compact circuits are built here by hand (from a cz_r1cs for the
 * prover), not with cz_circuit_from_r1cs. */
#include <stdlib.h>

#include "gpu_test_util.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"

/* A cz_circuit whose arrays this file owns. */
typedef struct {
    cz_circuit c;
    uint32_t *row_start[3], *col[3];
    void *coef[3];
    cz_fr *coeffs;
    uint64_t *dens[3]; /* a_aux, b_input, b_aux */
} owned_circuit;

static void owned_free(owned_circuit *o) {
    for (int i = 0; i < 3; i++) {
        free(o->row_start[i]);
        free(o->col[i]);
        free(o->coef[i]);
        free(o->dens[i]);
    }
    free(o->coeffs);
    memset(o, 0, sizeof *o);
}

static uint64_t rnd(uint64_t n) {
    return n ? cz_test_rand64() % n : 0;
}

static uint32_t coef_at(const cz_circuit *c, int i, uint64_t k) {
    return c->coef_bytes == 2 ? ((const uint16_t *)c->m[i].coef)[k]
                              : ((const uint32_t *)c->m[i].coef)[k];
}

/* The densities of c's columns: A for aux, B for inputs and aux. */
static void set_densities(owned_circuit *o) {
    cz_circuit *c = &o->c;
    const uint32_t ni = c->num_inputs;
    o->dens[0] = calloc((c->num_aux + 63) / 64 + 1, 8);
    o->dens[1] = calloc((ni + 63) / 64 + 1, 8);
    o->dens[2] = calloc((c->num_aux + 63) / 64 + 1, 8);
    for (int i = 0; i < 2; i++)
        for (uint64_t k = 0; k < c->m[i].nnz; k++) {
            uint32_t col = c->m[i].col[k];
            uint64_t *bits = col < ni ? (i == 1 ? o->dens[1] : NULL) : o->dens[i == 0 ? 0 : 2];
            uint32_t v = col < ni ? col : col - ni;
            if (bits) bits[v / 64] |= 1ull << (v % 64);
        }
    c->a_aux_density = o->dens[0];
    c->b_input_density = o->dens[1];
    c->b_aux_density = o->dens[2];
}

/* Shape of a random circuit. special: rows 0.. get the lengths of the
 * boundary list below (empty, at the short / long threshold, around the
 * 256-entry pieces, thousands). */
typedef struct {
    uint64_t rows;
    uint32_t num_inputs, num_aux, coef_bytes, num_coeffs;
    unsigned empty_pct;    /* rows with no entry */
    unsigned long_per_mil; /* rows of 1000 .. 3999 entries, per 1000 */
    unsigned unit_pct;     /* entries with coefficient 1 or -1 (half each) */
    int special;           /* boundary lengths at the start */
    uint32_t huge_len;     /* one row (the last of A) of this many entries, 0: none */
} shape;

static const uint32_t special_len[] = {0,   1,   2,   15,  16,  17,   31,   32,   33,  255,
                                       256, 257, 511, 512, 513, 1000, 4095, 8193, 300, 0};

static uint32_t row_len(const shape *s, uint64_t j, int i) {
    const size_t ns = sizeof special_len / sizeof special_len[0];
    if (s->special && j < ns) return special_len[(j + (uint64_t)i) % ns];
    if (s->huge_len && i == 0 && j == s->rows - 1) return s->huge_len;
    if (rnd(100) < s->empty_pct) return 0;
    if (rnd(1000) < s->long_per_mil) return 1000 + (uint32_t)rnd(3000);
    return 1 + (uint32_t)rnd(4);
}

static void random_circuit(owned_circuit *o, const shape *s) {
    memset(o, 0, sizeof *o);
    cz_circuit *c = &o->c;
    c->num_inputs = s->num_inputs, c->num_aux = s->num_aux;
    c->num_constraints = s->rows;
    c->coef_bytes = s->coef_bytes, c->num_coeffs = s->num_coeffs;
    const uint64_t vars = (uint64_t)s->num_inputs + s->num_aux;
    o->coeffs = malloc(s->num_coeffs * sizeof(cz_fr));
    o->coeffs[0] = cz_fr_one;
    cz_fr_neg(&o->coeffs[1], &cz_fr_one);
    for (uint32_t t = 2; t < s->num_coeffs; t++) {
        if (t < 20)
            gpu_edge_fr(&o->coeffs[t], t + 2); /* 2, -2, 3, -3, ... */
        else
            gpu_rand_fr(&o->coeffs[t]);
    }
    c->coeffs = o->coeffs;
    for (int i = 0; i < 3; i++) {
        uint32_t *rs = malloc((s->rows + 1) * sizeof *rs);
        uint64_t nnz = 0;
        for (uint64_t j = 0; j < s->rows; j++) {
            rs[j] = (uint32_t)nnz;
            uint32_t len = row_len(s, j, i);
            nnz += len < vars ? len : vars;
        }
        rs[s->rows] = (uint32_t)nnz;
        uint32_t *col = malloc((nnz + 1) * sizeof *col);
        void *coef = malloc((nnz + 1) * s->coef_bytes);
        for (uint64_t j = 0; j < s->rows; j++) {
            uint32_t len = rs[j + 1] - rs[j];
            /* strictly ascending columns in a window near the row (local
             * like synthesized circuits), steps of 1 to 3 when they fit */
            uint64_t span = vars - len, start = rnd(span + 1);
            uint64_t slack = span - start, cur = start;
            for (uint32_t e = 0; e < len; e++) {
                uint64_t step = 1 + rnd(3);
                if (e > 0) {
                    if (step - 1 > slack) step = 1 + slack;
                    slack -= step - 1;
                    cur += step;
                }
                uint64_t k = rs[j] + e;
                col[k] = (uint32_t)cur;
                uint64_t r = rnd(100);
                uint32_t ci = r < s->unit_pct ? (uint32_t)(r & 1) : (uint32_t)rnd(s->num_coeffs);
                if (s->coef_bytes == 2)
                    ((uint16_t *)coef)[k] = (uint16_t)ci;
                else
                    ((uint32_t *)coef)[k] = ci;
            }
        }
        o->row_start[i] = rs, o->col[i] = col, o->coef[i] = coef;
        c->m[i].nnz = nnz;
        c->m[i].row_start = rs;
        c->m[i].col = col;
        c->m[i].coef = coef;
    }
    set_densities(o);
}

/* out[j] = sum_k coeffs[coef[k]] * z[col[k]] over row j of matrix i. */
static void cpu_eval(cz_fr *out, const cz_circuit *c, int i, const cz_fr *z) {
    const cz_circuit_matrix *m = &c->m[i];
    for (uint64_t j = 0; j < c->num_constraints; j++) {
        cz_fr acc = cz_fr_zero, t;
        for (uint32_t k = m->row_start[j]; k < m->row_start[j + 1]; k++) {
            cz_fr_mul(&t, &c->coeffs[coef_at(c, i, k)], &z[m->col[k]]);
            cz_fr_add(&acc, &acc, &t);
        }
        out[j] = acc;
    }
}

/* Of every 100 elements about other_pct random, the rest 0 and 1 (a
 * PoRep witness: ~2 % other values). */
static void random_witness(cz_fr *z, uint64_t vars, unsigned other_pct) {
    for (uint64_t v = 0; v < vars; v++) {
        uint64_t r = rnd(100);
        if (r < other_pct)
            gpu_rand_fr(&z[v]);
        else if (r % 2)
            z[v] = cz_fr_zero;
        else
            z[v] = cz_fr_one;
    }
    z[0] = cz_fr_one;
}

/* The matrices of *view copied into one page-locked block (returned; its
 * arrays now point there), as the SRS manager locks a circuit file's
 * mapping: one registration of whole pages. */
static uint8_t *locked_copy(cz_circuit *view, cz_error *err) {
    size_t size[3][3], total = 0;
    for (int i = 0; i < 3; i++) {
        const cz_circuit_matrix *m = &view->m[i];
        size[i][0] = (view->num_constraints + 1) * 4;
        size[i][1] = m->nnz * 4;
        size[i][2] = m->nnz * view->coef_bytes;
        for (int a = 0; a < 3; a++) total += (size[i][a] + 15) / 16 * 16;
    }
    total = (total + 4095) / 4096 * 4096;
    uint8_t *block = aligned_alloc(4096, total), *at = block;
    if (!block) return NULL;
    for (int i = 0; i < 3; i++) {
        cz_circuit_matrix *m = &view->m[i];
        const void *from[3] = {m->row_start, m->col, m->coef};
        void *to[3];
        for (int a = 0; a < 3; a++) {
            to[a] = at;
            if (size[i][a]) memcpy(at, from[a], size[i][a]);
            at += (size[i][a] + 15) / 16 * 16;
        }
        m->row_start = to[0], m->col = to[1], m->coef = to[2];
    }
    if (cz_gpu_host_lock(block, total, err) != CZ_OK) {
        free(block);
        return NULL;
    }
    CHECK(cz_gpu_host_locked(block, total));
    return block;
}

/* a, b, c of gc (resident or streamed, its host circuit attached) from z
 * packed (cz_gpu_witness_pack_up, cz_gpu_circuit_eval_packed) against
 * cpu_eval's; and a pack of another length refused. */
static void check_packed(const cz_gpu_circuit *gc, const cz_circuit *c, const cz_fr *z) {
    const size_t ni = c->num_inputs, na = c->num_aux, rows = c->num_constraints;
    cz_error err = {0};
    cz_gpu_witness_pack pack;
    CHECK(cz_gpu_witness_pack_make(&pack, z, ni, z + ni, na) == 1);
    cz_gpu_uploader *up = NULL;
    void *scratch = NULL;
    cz_fr *dout[3] = {NULL, NULL, NULL};
    CHECK(cz_gpu_uploader_create(&up, (size_t)1 << 20, &err) == CZ_OK);
    CHECK(cz_gpu_alloc(&scratch, cz_gpu_witness_pack_bytes(&pack), &err) == CZ_OK);
    for (int i = 0; i < 3; i++)
        CHECK(cz_gpu_alloc((void **)&dout[i], (rows + 1) * sizeof(cz_fr), &err) == CZ_OK);
    cz_gpu_packed_z pz;
    CHECK(cz_gpu_witness_pack_up(&pz, scratch, cz_gpu_witness_pack_bytes(&pack), up, &pack, &err) ==
          CZ_OK);
    CHECK(pz.n == ni + na);
    cz_status st = cz_gpu_circuit_eval_packed(dout[0], dout[1], dout[2], gc, &pz, &err);
    if (st != CZ_OK) fprintf(stderr, "packed eval: %s\n", err.message);
    CHECK(st == CZ_OK);
    cz_fr *want = malloc((rows + 1) * sizeof *want), *got = malloc((rows + 1) * sizeof *got);
    for (int i = 0; i < 3 && st == CZ_OK; i++) {
        cpu_eval(want, c, i, z);
        CHECK(cz_gpu_download(got, dout[i], rows * sizeof(cz_fr), &err) == CZ_OK);
        uint64_t bad = 0;
        for (uint64_t j = 0; j < rows; j++) bad += memcmp(&want[j], &got[j], sizeof(cz_fr)) != 0;
        if (bad)
            fprintf(stderr, "packed, matrix %d: %llu of %llu rows differ\n", i,
                    (unsigned long long)bad, (unsigned long long)rows);
        CHECK(bad == 0);
    }
    cz_gpu_packed_z shorter = pz;
    shorter.n--;
    CHECK(cz_gpu_circuit_eval_packed(dout[0], NULL, NULL, gc, &shorter, &err) == CZ_E_INVALID_ARG);
    free(want);
    free(got);
    for (int i = 0; i < 3; i++) cz_gpu_free(dout[i]);
    cz_gpu_free(scratch);
    cz_gpu_uploader_destroy(up);
    cz_gpu_witness_pack_free(&pack);
}

/* Creates the device circuit under the knobs (NULL: unset), evaluates all
 * three matrices from host arrays and compares with cpu_eval. */
static void check_eval(const shape *s, const char *long_knob, const char *shared_knob,
                       int expect_shared) {
    owned_circuit o;
    random_circuit(&o, s);
    const cz_circuit *c = &o.c;
    const uint64_t vars = (uint64_t)c->num_inputs + c->num_aux, rows = c->num_constraints;
    cz_fr *z = malloc(vars * sizeof *z), *zp = malloc(vars * sizeof *zp);
    random_witness(z, vars, 60);
    random_witness(zp, vars, 3); /* one that packs */
    if (long_knob) gpu_knob("CZ_GPU_ABC_LONG", long_knob);
    if (shared_knob) gpu_knob("CZ_GPU_ABC_SHARED", shared_knob);
    cz_error err = {0};
    cz_gpu_circuit *gc = NULL;
    cz_status st = cz_gpu_circuit_create(&gc, c, &err);
    gpu_knob("CZ_GPU_ABC_LONG", NULL);
    gpu_knob("CZ_GPU_ABC_SHARED", NULL);
    if (st != CZ_OK) fprintf(stderr, "create: %s\n", err.message);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) {
        owned_free(&o);
        free(z);
        return;
    }
    cz_gpu_circuit_info info;
    cz_gpu_circuit_get_info(&info, gc);
    CHECK(info.table_in_shared == expect_shared);
    CHECK(info.num_constraints == rows && info.coef_bytes == s->coef_bytes);
    CHECK(info.nnz[0] == c->m[0].nnz && info.nnz[2] == c->m[2].nnz);
    CHECK(info.a_aux_count == cz_density_popcount(c->a_aux_density, c->num_aux));
    CHECK(cz_gpu_circuit_bytes(gc) >= (c->m[0].nnz + c->m[1].nnz + c->m[2].nnz) * 6);
    printf("rows %llu, nnz %llu/%llu/%llu, coef u%u x %u (%s), long rows %llu/%llu/%llu "
           "(> %u entries), pieces %llu/%llu/%llu\n",
           (unsigned long long)rows, (unsigned long long)info.nnz[0],
           (unsigned long long)info.nnz[1], (unsigned long long)info.nnz[2], 8 * s->coef_bytes,
           s->num_coeffs, expect_shared ? "shared" : "global",
           (unsigned long long)info.long_rows[0], (unsigned long long)info.long_rows[1],
           (unsigned long long)info.long_rows[2], info.long_threshold,
           (unsigned long long)info.pieces[0], (unsigned long long)info.pieces[1],
           (unsigned long long)info.pieces[2]);

    cz_fr *want = malloc((rows + 1) * sizeof *want), *got[3];
    for (int i = 0; i < 3; i++) got[i] = malloc((rows + 1) * sizeof(cz_fr));
    st = cz_gpu_circuit_eval_host(got[0], got[1], got[2], gc, z, z + c->num_inputs, &err);
    if (st != CZ_OK) fprintf(stderr, "eval: %s\n", err.message);
    CHECK(st == CZ_OK);
    for (int i = 0; i < 3; i++) {
        cpu_eval(want, c, i, z);
        uint64_t bad = 0, first = 0;
        for (uint64_t j = 0; j < rows; j++)
            if (memcmp(&want[j], &got[i][j], sizeof(cz_fr)) != 0 && bad++ == 0) first = j;
        if (bad)
            fprintf(stderr, "matrix %d: %llu of %llu rows differ, first %llu (%u entries)\n", i,
                    (unsigned long long)bad, (unsigned long long)rows, (unsigned long long)first,
                    c->m[i].row_start[first + 1] - c->m[i].row_start[first]);
        CHECK(bad == 0);
    }

    /* device outputs: only B asked for, A and C untouched; rows past the
     * last not written */
    if (rows) {
        cz_fr *dz = NULL, *dout = NULL;
        const size_t extra = 8, nb = (rows + extra) * sizeof(cz_fr);
        cz_fr *pattern = malloc(nb), *back = malloc(nb);
        memset(pattern, 0xa5, nb);
        CHECK(cz_gpu_alloc((void **)&dz, vars * sizeof(cz_fr), &err) == CZ_OK);
        CHECK(cz_gpu_alloc((void **)&dout, nb, &err) == CZ_OK);
        CHECK(cz_gpu_upload(dz, z, vars * sizeof(cz_fr), &err) == CZ_OK);
        CHECK(cz_gpu_upload(dout, pattern, nb, &err) == CZ_OK);
        CHECK(cz_gpu_circuit_eval(NULL, dout, NULL, gc, dz, &err) == CZ_OK);
        CHECK(cz_gpu_download(back, dout, nb, &err) == CZ_OK);
        CHECK(memcmp(back, got[1], rows * sizeof(cz_fr)) == 0);
        CHECK(memcmp(back + rows, pattern, extra * sizeof(cz_fr)) == 0);
        /* and again (the scratch of the long rows is reused) */
        CHECK(cz_gpu_circuit_eval(dout, NULL, NULL, gc, dz, &err) == CZ_OK);
        CHECK(cz_gpu_download(back, dout, nb, &err) == CZ_OK);
        CHECK(memcmp(back, got[0], rows * sizeof(cz_fr)) == 0);
        check_packed(gc, c, zp);
        cz_gpu_free(dz);
        cz_gpu_free(dout);
        free(pattern);
        free(back);
    }
    /* streamed (cz_gpu_circuit_create_streamed): in about 37 windows (rows
     * longer than a window get one of their own), in one, and in about 37
     * from page-locked host matrices (no staging: the loop only queued,
     * the copies and kernels waiting for each other on the device); the
     * same a, b, c as the resident circuit, which the CPU's equal */
    uint64_t most = c->m[0].nnz, total = 0, longest = 0;
    for (int i = 0; i < 3; i++) {
        if (c->m[i].nnz > most) most = c->m[i].nnz;
        total += c->m[i].nnz;
        for (uint64_t r = 0; r < rows; r++)
            if (c->m[i].row_start[r + 1] - c->m[i].row_start[r] > longest)
                longest = c->m[i].row_start[r + 1] - c->m[i].row_start[r];
    }
    const size_t windows[3] = {(size_t)(most / 37 + 97), 0, (size_t)(most / 37 + 97)};
    for (int k = 0; k < 3; k++) {
        cz_gpu_circuit *sc = NULL;
        if (long_knob) gpu_knob("CZ_GPU_ABC_LONG", long_knob);
        if (shared_knob) gpu_knob("CZ_GPU_ABC_SHARED", shared_knob);
        st = cz_gpu_circuit_create_streamed(&sc, c, windows[k], &err);
        gpu_knob("CZ_GPU_ABC_LONG", NULL);
        gpu_knob("CZ_GPU_ABC_SHARED", NULL);
        if (st != CZ_OK) fprintf(stderr, "streamed: %s\n", err.message);
        CHECK(st == CZ_OK && cz_gpu_circuit_streamed(sc) && !cz_gpu_circuit_streamed(gc));
        if (st != CZ_OK) continue;
        cz_gpu_circuit_info si;
        cz_gpu_circuit_get_info(&si, sc);
        CHECK(si.long_rows[0] >= info.long_rows[0] && si.nnz[1] == info.nnz[1]);
        cz_fr *sgot = malloc((rows + 1) * sizeof *sgot);
        cz_error serr = {0};
        /* without its host circuit it refuses, and a circuit of another
         * shape is refused */
        if (rows) {
            CHECK(cz_gpu_circuit_eval_host(sgot, NULL, NULL, sc, z, z + c->num_inputs, &serr) ==
                  CZ_E_INVALID_ARG);
            cz_circuit other = *c;
            other.num_constraints = rows - 1;
            CHECK(cz_gpu_circuit_set_host(sc, &other, &serr) == CZ_E_INVALID_ARG);
        }
        cz_circuit view = *c;
        uint8_t *block = k == 2 && rows ? locked_copy(&view, &serr) : NULL;
        CHECK(k < 2 || !rows || block);
        CHECK(cz_gpu_circuit_set_host(sc, block ? &view : c, &serr) == CZ_OK);
        for (int i = 0; i < 3; i++) {
            cz_fr *outs[3] = {NULL, NULL, NULL};
            outs[i] = sgot;
            st = cz_gpu_circuit_eval_host(outs[0], outs[1], outs[2], sc, z, z + c->num_inputs,
                                          &serr);
            if (st != CZ_OK) fprintf(stderr, "streamed eval: %s\n", serr.message);
            CHECK(st == CZ_OK && memcmp(sgot, got[i], rows * sizeof(cz_fr)) == 0);
        }
        if (rows) check_packed(sc, c, zp);
        if (block) cz_gpu_host_unlock(block);
        free(block);
        /* less device memory than resident, unless one row holds so many
         * entries that its own window, twice (two buffers), outweighs the
         * three matrices (an empty circuit has nothing to save) */
        CHECK(cz_gpu_circuit_bytes(sc) < cz_gpu_circuit_bytes(gc) || windows[k] == 0 ||
              2 * (longest > windows[k] ? longest : windows[k]) >= total);
        free(sgot);
        cz_gpu_circuit_destroy(sc);
    }

    for (int i = 0; i < 3; i++) free(got[i]);
    free(want);
    free(z);
    free(zp);
    cz_gpu_circuit_destroy(gc);
    owned_free(&o);
}

static void check_eval_cases(void) {
    const int small = getenv("CZ_GPU_SMALL") != NULL;
    /* rows, inputs, aux, index bytes, table, empty %, long per mil, +-1 %, special, huge */
    shape boundary = {400, 3, 20000, 2, 300, 10, 0, 60, 1, 0};
    check_eval(&boundary, NULL, NULL, 1);
    check_eval(&boundary, NULL, "0", 0);
    check_eval(&boundary, "0", NULL, 1);   /* every non-empty row on the warp path */
    check_eval(&boundary, "300", NULL, 1); /* the 256-entry pieces: several per row */
    shape u16_global = {5000, 7, 30000, 2, 3000, 5, 10, 70, 1, 0};
    check_eval(&u16_global, NULL, NULL, 0);
    shape u16_max = {3000, 2, 9000, 2, 1536, 5, 3, 50, 0, 0}; /* the largest shared table */
    check_eval(&u16_max, NULL, NULL, 1);
    shape u32_big_table = {5000, 5, 30000, 4, 70000, 5, 5, 40, 1, 0};
    check_eval(&u32_big_table, NULL, NULL, 0);
    shape u32_small_table = {3000, 4, 12000, 4, 40, 5, 5, 80, 1, 0};
    check_eval(&u32_small_table, NULL, NULL, 1);
    check_eval(&u32_small_table, "0", "0", 0);
    shape no_units = {2000, 2, 8000, 2, 100, 0, 2, 0, 0, 0}; /* every entry multiplies */
    check_eval(&no_units, NULL, NULL, 1);
    /* one row of 100,000 entries: 391 pieces, more than a warp's lanes */
    shape huge = {1000, 3, 150000, 2, 500, 5, 0, 70, 0, 100000};
    check_eval(&huge, NULL, NULL, 1);
    shape none = {0, 1, 0, 2, 2, 0, 0, 0, 0, 0};
    check_eval(&none, NULL, NULL, 1);
    /* more than a million rows, PoRep-like: short rows of mostly +-1 and a
     * few long ones */
    shape million = {
        small ? 200000 : 1100000, 10, small ? 200000 : 1100000, 2, 1000, 3, 1, 85, 1, 5000};
    check_eval(&million, NULL, NULL, 1);
}

/* Bad circuits are refused at creation with the fault named. */
/* Resident, or streamed in windows of 64 entries: both refuse the same. */
static cz_status create(cz_gpu_circuit **gc, const cz_circuit *c, int streamed, cz_error *err) {
    return streamed ? cz_gpu_circuit_create_streamed(gc, c, 64, err)
                    : cz_gpu_circuit_create(gc, c, err);
}

static void check_refusals(int streamed) {
    shape s = {200, 2, 1000, 2, 50, 0, 0, 50, 0, 0};
    owned_circuit o;
    cz_error err = {0};
    cz_gpu_circuit *gc = NULL;
    random_circuit(&o, &s);
    cz_circuit *c = &o.c;

    uint32_t saved = o.col[1][17];
    o.col[1][17] = c->num_inputs + c->num_aux; /* one past the last variable */
    gc = (cz_gpu_circuit *)&o;                 /* must be reset */
    CHECK(create(&gc, c, streamed, &err) == CZ_E_INVALID_ARG && gc == NULL);
    CHECK(strstr(err.message, "B row") && strstr(err.message, "entry 17") &&
          strstr(err.message, "column"));
    o.col[1][17] = saved;

    uint16_t *coef = (uint16_t *)o.coef[2];
    uint16_t saved16 = coef[5];
    coef[5] = (uint16_t)c->num_coeffs;
    CHECK(create(&gc, c, streamed, &err) == CZ_E_INVALID_ARG && gc == NULL);
    CHECK(strstr(err.message, "C row") && strstr(err.message, "coefficient index"));
    coef[5] = saved16;

    /* row offsets that go down (the total still right) */
    uint32_t *rs = o.row_start[0];
    uint32_t r5 = rs[5], r6 = rs[6];
    rs[5] = rs[7], rs[6] = rs[4];
    CHECK(create(&gc, c, streamed, &err) == CZ_E_INVALID_ARG && gc == NULL);
    CHECK(strstr(err.message, "A row") && strstr(err.message, "decrease"));
    rs[5] = r5, rs[6] = r6;

    uint32_t last = rs[c->num_constraints];
    rs[c->num_constraints] = last + 1;
    CHECK(create(&gc, c, streamed, &err) == CZ_E_INVALID_ARG && gc == NULL);
    rs[c->num_constraints] = last;

    cz_fr two;
    cz_fr_from_u64(&two, 2);
    cz_fr saved_fr = o.coeffs[1];
    o.coeffs[1] = two;
    CHECK(create(&gc, c, streamed, &err) == CZ_E_INVALID_ARG && gc == NULL);
    CHECK(strstr(err.message, "1, -1") != NULL);
    o.coeffs[1] = saved_fr;

    c->coef_bytes = 3;
    CHECK(create(&gc, c, streamed, &err) == CZ_E_INVALID_ARG && gc == NULL);
    c->coef_bytes = 2;

    gpu_knob("CZ_GPU_MEM_LIMIT", "1KiB");
    CHECK(create(&gc, c, streamed, &err) == CZ_E_NOMEM && gc == NULL);
    CHECK(strstr(err.message, "too small") && strstr(err.message, "CZ_GPU_MEM_LIMIT"));
    gpu_knob("CZ_GPU_MEM_LIMIT", NULL);

    /* repaired: accepted */
    CHECK(create(&gc, c, streamed, &err) == CZ_OK && gc != NULL);
    cz_gpu_circuit_destroy(gc);
    cz_gpu_circuit_destroy(NULL);
    owned_free(&o);
}

/* ---- the prover through the circuit path ---- */

/* A chain with constants (coefficients other than +-1), booleans, a packing
 * of 40 bits into one variable (a row of 41 entries with powers of two),
 * differences (-1 coefficients) and aux only in C; bad: one wrong value. */
static void synth(cz_cs *cs, uint64_t n, int bad) {
    int witness = cz_cs_has_witness(cs);
    cz_var v[2], bits[40];
    cz_fr val[2], x, bitval[40];
    for (int i = 0; i < 2; i++) {
        cz_fr_from_u64(&x, 3 + 4 * (uint64_t)i);
        v[i] = cz_cs_alloc_input(cs, witness ? &x : NULL);
        val[i] = x;
    }
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    for (uint64_t j = 0; j < n && cz_cs_status(cs) == CZ_OK; j++) {
        /* out = (v0 + (j+2) v1) * (v1 - v0 + 5) */
        cz_fr k1, k5, left, right, prod;
        cz_fr_from_u64(&k1, j + 2);
        cz_fr_from_u64(&k5, 5);
        if (witness) {
            cz_fr_mul(&left, &k1, &val[1]);
            cz_fr_add(&left, &left, &val[0]);
            cz_fr_sub(&right, &val[1], &val[0]);
            cz_fr_add(&right, &right, &k5);
            cz_fr_mul(&prod, &left, &right);
            if (bad && j == n / 2) cz_fr_add(&prod, &prod, &cz_fr_one);
        }
        cz_var out = cz_cs_alloc(cs, witness ? &prod : NULL);
        cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
        cz_lc_add_var(&a, v[0]);
        cz_lc_add(&a, v[1], &k1);
        cz_lc_add_var(&b, v[1]);
        cz_lc_sub_var(&b, v[0]);
        cz_lc_add(&b, CZ_VAR_ONE, &k5);
        cz_lc_add_var(&c, out);
        cz_cs_enforce(cs, &a, &b, &c);
        if (j % 4 == 0) { /* w only in C: w = out * 1 */
            cz_var w = cz_cs_alloc(cs, witness ? &prod : NULL);
            cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
            cz_lc_add_var(&a, out);
            cz_lc_add_var(&b, CZ_VAR_ONE);
            cz_lc_add_var(&c, w);
            cz_cs_enforce(cs, &a, &b, &c);
        }
        if (j % 50 == 0) { /* 40 booleans and their packing */
            uint64_t word = (j * 0x9e3779b97f4a7c15ull) >> 24;
            cz_lc packed;
            cz_lc_init(&packed);
            cz_fr pw = cz_fr_one, total = cz_fr_zero;
            for (int t = 0; t < 40; t++) {
                cz_fr_from_u64(&bitval[t], (word >> t) & 1);
                bits[t] = cz_cs_alloc(cs, witness ? &bitval[t] : NULL);
                cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
                cz_lc_add_var(&a, bits[t]);
                cz_lc_add_var(&b, CZ_VAR_ONE);
                cz_lc_sub_var(&b, bits[t]);
                cz_cs_enforce(cs, &a, &b, &c); /* b (1 - b) = 0 */
                cz_lc_add(&packed, bits[t], &pw);
                if (witness && ((word >> t) & 1)) cz_fr_add(&total, &total, &pw);
                cz_fr_dbl(&pw, &pw);
            }
            cz_var p = cz_cs_alloc(cs, witness ? &total : NULL);
            cz_lc_clear(&b), cz_lc_clear(&c);
            cz_lc_add_var(&b, CZ_VAR_ONE);
            cz_lc_add_var(&c, p);
            cz_cs_enforce(cs, &packed, &b, &c);
            cz_lc_free(&packed);
        }
        v[1] = v[0], v[0] = out;
        if (witness) val[1] = val[0], val[0] = prod;
    }
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

/* The compact form of r (distinct coefficients interned, 1 and -1 first). */
static void compact_from_r1cs(owned_circuit *o, const cz_r1cs *r) {
    memset(o, 0, sizeof *o);
    cz_circuit *c = &o->c;
    c->num_inputs = r->num_inputs, c->num_aux = r->num_aux;
    c->num_constraints = r->num_constraints;
    c->coef_bytes = 2;
    const cz_csr *csr[3] = {&r->a, &r->b, &r->c};
    uint64_t total = csr[0]->row_start[r->num_constraints] + csr[1]->row_start[r->num_constraints] +
                     csr[2]->row_start[r->num_constraints];
    o->coeffs = malloc((total + 2) * sizeof(cz_fr));
    o->coeffs[0] = cz_fr_one;
    cz_fr_neg(&o->coeffs[1], &cz_fr_one);
    uint32_t n = 2;
    for (int i = 0; i < 3; i++) {
        uint64_t nnz = csr[i]->row_start[r->num_constraints];
        uint32_t *rs = malloc((r->num_constraints + 1) * sizeof *rs);
        uint32_t *col = malloc((nnz + 1) * sizeof *col);
        uint16_t *coef = malloc((nnz + 1) * sizeof *coef);
        for (uint64_t j = 0; j <= r->num_constraints; j++) rs[j] = (uint32_t)csr[i]->row_start[j];
        for (uint64_t k = 0; k < nnz; k++) {
            col[k] = csr[i]->col[k];
            uint32_t t = 0;
            while (t < n && !cz_fr_equal(&o->coeffs[t], &csr[i]->val[k])) t++;
            if (t == n) o->coeffs[n++] = csr[i]->val[k];
            CHECK(t < 65536);
            coef[k] = (uint16_t)t;
        }
        o->row_start[i] = rs, o->col[i] = col, o->coef[i] = coef;
        c->m[i].nnz = nnz;
        c->m[i].row_start = rs;
        c->m[i].col = col;
        c->m[i].coef = coef;
    }
    c->num_coeffs = n;
    c->coeffs = o->coeffs;
    /* the record back-end's densities ("column occurs") */
    size_t wa = (r->num_aux + 63) / 64 + 1, wi = (r->num_inputs + 63) / 64 + 1;
    o->dens[0] = calloc(wa, 8), o->dens[1] = calloc(wi, 8), o->dens[2] = calloc(wa, 8);
    memcpy(o->dens[0], r->a_aux_density, (r->num_aux + 63) / 64 * 8);
    memcpy(o->dens[1], r->b_input_density, (r->num_inputs + 63) / 64 * 8);
    memcpy(o->dens[2], r->b_aux_density, (r->num_aux + 63) / 64 * 8);
    c->a_aux_density = o->dens[0];
    c->b_input_density = o->dens[1];
    c->b_aux_density = o->dens[2];
}

static void prove_data(cz_prove_data *pd, uint64_t n, int bad) {
    cz_error err = {0};
    cz_cs *pcs = cz_cs_prove_new();
    synth(pcs, n, bad);
    CHECK(cz_prove_finish(pcs, pd, &err) == CZ_OK);
    cz_cs_destroy(pcs);
}

static void check_prove(uint64_t n, const char *stream_chunk) {
    cz_error err = {0};
    cz_cs *rec = cz_cs_record_new();
    synth(rec, n, 0);
    cz_r1cs r1cs;
    CHECK(cz_record_finish(rec, &r1cs, &err) == CZ_OK);
    cz_cs_destroy(rec);
    owned_circuit o;
    compact_from_r1cs(&o, &r1cs);
    uint8_t seed[CZ_GROTH16_SEED_BYTES] = {0};
    cz_test_rand_bytes(seed, sizeof seed);
    cz_groth16_params params;
    cz_circuit *circ = NULL;
    CHECK(cz_circuit_from_r1cs(&circ, &r1cs, &err) == CZ_OK);
    CHECK(circ && cz_groth16_dev_setup(&params, circ, seed, &err) == CZ_OK);
    cz_circuit_free(circ);
    cz_r1cs_free(&r1cs);

    cz_gpu_srs *srs = NULL;
    cz_gpu_circuit *gc = NULL;
    if (stream_chunk) gpu_knob("CZ_GPU_STREAM_CHUNK", stream_chunk);
    CHECK(cz_gpu_srs_create(&srs, &params, &err) == CZ_OK);
    gpu_knob("CZ_GPU_STREAM_CHUNK", NULL);
    CHECK(cz_gpu_srs_streaming(srs, NULL, 0) == (stream_chunk != NULL));
    gpu_knob("CZ_GPU_ABC_LONG", "8"); /* the packing rows (41 entries) take the warp path */
    cz_status st = cz_gpu_circuit_create(&gc, &o.c, &err);
    gpu_knob("CZ_GPU_ABC_LONG", NULL);
    if (st != CZ_OK) fprintf(stderr, "circuit: %s\n", err.message);
    CHECK(st == CZ_OK);
    cz_gpu_circuit_info info;
    cz_gpu_circuit_get_info(&info, gc);
    CHECK(n < 50 || info.long_rows[0] > 0);

    for (int round = 0; round < 3; round++) {
        const int bad = round == 1;
        cz_prove_data pd;
        prove_data(&pd, n, bad);
        /* the device's a, b, c are the prove back-end's, byte for byte */
        cz_fr *abc[3];
        for (int i = 0; i < 3; i++) abc[i] = malloc(pd.num_constraints * sizeof(cz_fr));
        CHECK(cz_gpu_circuit_eval_host(abc[0], abc[1], abc[2], gc, pd.input_assignment,
                                       pd.aux_assignment, &err) == CZ_OK);
        CHECK(memcmp(abc[0], pd.a, pd.num_constraints * sizeof(cz_fr)) == 0);
        CHECK(memcmp(abc[1], pd.b, pd.num_constraints * sizeof(cz_fr)) == 0);
        CHECK(memcmp(abc[2], pd.c, pd.num_constraints * sizeof(cz_fr)) == 0);
        for (int i = 0; i < 3; i++) free(abc[i]);

        /* the witness only: no a, b, c, no densities */
        cz_prove_data wd = pd;
        wd.a = wd.b = wd.c = NULL;
        wd.a_aux_density = wd.b_input_density = wd.b_aux_density = NULL;
        cz_groth16_msm_results cpu, gpu;
        cz_status sc = cz_groth16_prove_start(&cpu, &params, &pd, &err);
        cz_status sg = cz_gpu_groth16_prove_start(&gpu, srs, &params, gc, &wd, NULL, &err);
        if (bad) {
            CHECK(sc == CZ_E_INVALID_ARG);
            CHECK(sg == CZ_E_INVALID_ARG);
        } else {
            if (sg != CZ_OK) fprintf(stderr, "n=%llu: %s\n", (unsigned long long)n, err.message);
            CHECK(sc == CZ_OK && sg == CZ_OK);
            CHECK(gpu_test_sums_equal(&cpu, &gpu));
            cz_fr r, s;
            gpu_rand_fr(&r);
            gpu_rand_fr(&s);
            cz_groth16_proof pc, pg;
            CHECK(cz_groth16_prove_finalize(&pc, &params.vk, &cpu, &r, &s, &err) == CZ_OK);
            CHECK(cz_groth16_prove_finalize(&pg, &params.vk, &gpu, &r, &s, &err) == CZ_OK);
            CHECK(memcmp(&pc, &pg, sizeof pc) == 0);
            int valid = 0;
            CHECK(cz_groth16_verify(&valid, &params.vk, &pg, pd.input_assignment + 1,
                                    pd.num_inputs - 1, &err) == CZ_OK);
            CHECK(valid);
            /* today's path with the circuit given: a, b, c from pd */
            cz_groth16_msm_results again;
            CHECK(cz_gpu_groth16_prove_start(&again, srs, &params, gc, &pd, NULL, &err) == CZ_OK);
            CHECK(gpu_test_sums_equal(&cpu, &again));
            /* the circuit streamed in windows of 50 entries: the same sums */
            {
                cz_gpu_circuit *sgc = NULL;
                gpu_knob("CZ_GPU_ABC_LONG", "8");
                CHECK(cz_gpu_circuit_create_streamed(&sgc, &o.c, 50, &err) == CZ_OK);
                gpu_knob("CZ_GPU_ABC_LONG", NULL);
                CHECK(sgc && cz_gpu_circuit_set_host(sgc, &o.c, &err) == CZ_OK);
                st = sgc ? cz_gpu_groth16_prove_start(&again, srs, &params, sgc, &wd, NULL, &err)
                         : CZ_E_INTERNAL;
                if (st != CZ_OK) fprintf(stderr, "streamed circuit: %s\n", err.message);
                CHECK(st == CZ_OK && gpu_test_sums_equal(&cpu, &again));
                cz_gpu_circuit_destroy(sgc);
            }
            /* the witness staged on the device first (another uploader, as a
             * back-end context stages the next unit's); pd's assignment is
             * then not read */
            {
                const size_t nz = (size_t)wd.num_inputs + wd.num_aux;
                cz_fr *dev_z = NULL;
                cz_gpu_uploader *up = NULL;
                CHECK(cz_gpu_alloc((void **)&dev_z, nz * sizeof(cz_fr), &err) == CZ_OK);
                CHECK(cz_gpu_uploader_create(&up, (size_t)1 << 16, &err) == CZ_OK);
                CHECK(cz_gpu_witness_upload(dev_z, up, wd.input_assignment, wd.num_inputs,
                                            wd.aux_assignment, wd.num_aux, &err) == CZ_OK);
                cz_prove_data bare = wd;
                bare.input_assignment = bare.aux_assignment = NULL;
                CHECK(cz_gpu_groth16_prove_start(&again, srs, &params, gc, &bare, dev_z, &err) ==
                      CZ_OK);
                CHECK(gpu_test_sums_equal(&cpu, &again));
                /* with a, b, c from pd a device witness is refused */
                CHECK(cz_gpu_groth16_prove_start(&again, srs, &params, gc, &pd, dev_z, &err) ==
                      CZ_E_INVALID_ARG);
                cz_gpu_uploader_destroy(up);
                cz_gpu_free(dev_z);
            }
            /* refusals: no circuit, only some of a, b, c, another circuit's witness */
            CHECK(cz_gpu_groth16_prove_start(&again, srs, &params, NULL, &wd, NULL, &err) ==
                  CZ_E_INVALID_ARG);
            CHECK(strstr(err.message, "device circuit") != NULL);
            wd.a = pd.a;
            CHECK(cz_gpu_groth16_prove_start(&again, srs, &params, gc, &wd, NULL, &err) ==
                  CZ_E_INVALID_ARG);
            wd.a = NULL;
            wd.num_aux--;
            CHECK(cz_gpu_groth16_prove_start(&again, srs, &params, gc, &wd, NULL, &err) ==
                  CZ_E_INVALID_ARG);
            CHECK(strstr(err.message, "device circuit") != NULL);
        }
        cz_prove_data_free(&pd);
    }
    cz_gpu_circuit_destroy(gc);
    cz_gpu_srs_destroy(srs);
    cz_groth16_params_free(&params);
    owned_free(&o);
}

int main(void) {
    cz_test_init("gpu/test_circuit_gpu");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    check_refusals(0);
    check_refusals(1);
    check_eval_cases();
    check_prove(1, NULL);
    check_prove(60, NULL);
    check_prove(getenv("CZ_GPU_SMALL") ? 300 : 2000, NULL);
    check_prove(200, "64"); /* streaming SRS: the host key's counts are checked too */
    return cz_test_finish("gpu/test_circuit_gpu");
}
