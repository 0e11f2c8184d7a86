/* Development setup (bellperson's generate_parameters); see setup.h. */
#include "groth16/setup.h"

#include <stdlib.h>
#include <string.h>

#include "ec/msm.h"
#include "groth16/rng.h"
#include "poly/ntt.h"
#include "util/parallel.h"

void cz_groth16_dev_secrets(cz_groth16_secrets *out, const uint8_t seed[CZ_GROTH16_SEED_BYTES]) {
    /* "cuzkdev1" as a little-endian word: changing it changes every key */
    const uint64_t nonce = 0x317665646b7a7563ULL;
    cz_chacha20_stream stream;
    cz_chacha20_stream_init(&stream, seed, nonce);
    cz_chacha20_stream_fr_nonzero(&stream, &out->tau);
    cz_chacha20_stream_fr_nonzero(&stream, &out->alpha);
    cz_chacha20_stream_fr_nonzero(&stream, &out->beta);
    cz_chacha20_stream_fr_nonzero(&stream, &out->gamma);
    cz_chacha20_stream_fr_nonzero(&stream, &out->delta);
    memset(&stream, 0, sizeof stream);
}

/* ---- tau^i for i < m ---- */

typedef struct {
    cz_fr *out;
    const cz_fr *base;
} powers_job;

static void powers_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    powers_job *job = ctx;
    uint64_t e = begin;
    cz_fr cur;
    cz_fr_pow(&cur, job->base, &e, 1);
    for (size_t i = begin; i < end; i++) {
        job->out[i] = cur;
        cz_fr_mul(&cur, &cur, job->base);
    }
}

/* ---- column evaluations u_i(tau) = sum_j M[j][i] L_j(tau) ----
 * The CSR matrix is transposed (a counting sort by column that records, for
 * each entry, its row and its position in the CSR arrays) so that the sums
 * can run over all cores without sharing an accumulator. */

typedef struct {
    cz_fr *out;
    const uint64_t *col_start; /* [ncols + 1] into rows/pos */
    const uint32_t *rows;
    const uint64_t *pos;
    const cz_fr *val;
    const cz_fr *lagrange;
} column_job;

static void column_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    column_job *job = ctx;
    for (size_t c = begin; c < end; c++) {
        cz_fr acc = cz_fr_zero, t;
        for (uint64_t p = job->col_start[c]; p < job->col_start[c + 1]; p++) {
            cz_fr_mul(&t, &job->val[job->pos[p]], &job->lagrange[job->rows[p]]);
            cz_fr_add(&acc, &acc, &t);
        }
        job->out[c] = acc;
    }
}

static cz_status column_eval(cz_fr *out, size_t ncols, const cz_csr *m, uint64_t rows,
                             const cz_fr *lagrange, const char *name, cz_error *err) {
    if (m->rows != rows)
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: matrix %s has %llu rows, expected %llu",
                            name, (unsigned long long)m->rows, (unsigned long long)rows);
    if (m->row_start[0] != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: matrix %s: row_start[0] != 0", name);
    for (uint64_t j = 0; j < rows; j++)
        if (m->row_start[j + 1] < m->row_start[j])
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "setup: matrix %s: row_start decreases at row %llu", name,
                                (unsigned long long)j);
    uint64_t nnz = m->row_start[rows];
    uint64_t *col_start = calloc(ncols + 1, sizeof *col_start);
    uint64_t *next = malloc((ncols + 1) * sizeof *next);
    uint32_t *row_of = malloc((nnz ? nnz : 1) * sizeof *row_of);
    uint64_t *pos = malloc((nnz ? nnz : 1) * sizeof *pos);
    cz_status st = CZ_OK;
    if (!col_start || !next || !row_of || !pos) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: matrix %s: out of memory (%llu entries)", name,
                          (unsigned long long)nnz);
        goto done;
    }
    for (uint64_t e = 0; e < nnz; e++) {
        if (m->col[e] >= ncols) {
            st = cz_error_set(err, CZ_E_INVALID_ARG,
                              "setup: matrix %s: entry %llu has column %u, only %zu variables",
                              name, (unsigned long long)e, m->col[e], ncols);
            goto done;
        }
        col_start[m->col[e] + 1]++;
    }
    for (size_t c = 0; c < ncols; c++) col_start[c + 1] += col_start[c];
    memcpy(next, col_start, (ncols + 1) * sizeof *next);
    for (uint64_t j = 0; j < rows; j++) /* rows <= m <= 2^31, so j fits a u32 */
        for (uint64_t e = m->row_start[j]; e < m->row_start[j + 1]; e++) {
            uint64_t p = next[m->col[e]]++;
            row_of[p] = (uint32_t)j;
            pos[p] = e;
        }
    column_job job = {out, col_start, row_of, pos, m->val, lagrange};
    cz_parallel_for(ncols, 1024, column_task, &job);
done:
    free(col_start);
    free(next);
    free(row_of);
    free(pos);
    return st;
}

/* ---- key scalars ---- */

typedef struct {
    cz_fr *out;
    const cz_fr *u, *v, *w;
    const cz_fr *alpha, *beta, *inv;
} ext_job;

/* out[i] = (beta u_i + alpha v_i + w_i) * inv */
static void ext_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    ext_job *job = ctx;
    for (size_t i = begin; i < end; i++) {
        cz_fr t, acc;
        cz_fr_mul(&acc, job->beta, &job->u[i]);
        cz_fr_mul(&t, job->alpha, &job->v[i]);
        cz_fr_add(&acc, &acc, &t);
        cz_fr_add(&acc, &acc, &job->w[i]);
        cz_fr_mul(&job->out[i], &acc, job->inv);
    }
}

typedef struct {
    cz_fr *out;
    const cz_fr *tau_powers;
    const cz_fr *factor;
} h_job;

static void h_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    h_job *job = ctx;
    for (size_t i = begin; i < end; i++) cz_fr_mul(&job->out[i], &job->tau_powers[i], job->factor);
}

/* Every non-zero evaluation must match a density bit and vice versa, since
 * the prover consumes key points by the densities (spec §5.3). Inputs are
 * always dense in A. */
static cz_status check_densities(const cz_r1cs *r, const cz_fr *u, const cz_fr *v, cz_error *err) {
    static const char hint[] = "(tau hit a root of this polynomial, or the densities are wrong; "
                               "try another seed)";
    uint32_t ni = r->num_inputs;
    for (uint32_t i = 0; i < ni; i++) {
        if (cz_fr_is_zero(&u[i]))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "setup: input %u: A evaluates to 0 at tau, every input must be "
                                "dense in A %s",
                                i, hint);
        if ((!cz_fr_is_zero(&v[i])) != cz_density_get(r->b_input_density, i))
            return cz_error_set(
                err, CZ_E_INVALID_ARG,
                "setup: input %u: B(tau) %s 0 but b_input_density says %d %s", i,
                cz_fr_is_zero(&v[i]) ? "=" : "!=", cz_density_get(r->b_input_density, i), hint);
    }
    for (uint32_t k = 0; k < r->num_aux; k++) {
        if ((!cz_fr_is_zero(&u[ni + k])) != cz_density_get(r->a_aux_density, k))
            return cz_error_set(
                err, CZ_E_INVALID_ARG, "setup: aux %u: A(tau) %s 0 but a_aux_density says %d %s", k,
                cz_fr_is_zero(&u[ni + k]) ? "=" : "!=", cz_density_get(r->a_aux_density, k), hint);
        if ((!cz_fr_is_zero(&v[ni + k])) != cz_density_get(r->b_aux_density, k))
            return cz_error_set(
                err, CZ_E_INVALID_ARG, "setup: aux %u: B(tau) %s 0 but b_aux_density says %d %s", k,
                cz_fr_is_zero(&v[ni + k]) ? "=" : "!=", cz_density_get(r->b_aux_density, k), hint);
    }
    return CZ_OK;
}

/* Copies the non-zero entries of in[0..n) to out; returns their count. */
static size_t compact_nonzero(cz_fr *out, const cz_fr *in, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!cz_fr_is_zero(&in[i])) out[k++] = in[i];
    return k;
}

/* ---- progress ----
 * Units of work, each about one G1 fixed-base multiplication (32 mixed
 * additions and a share of a batch inversion). The other weights are ratios
 * measured on the 2 KiB PoRep setup (2 cores): a G2 fixed-base
 * multiplication costs 2.2-3.3 G1 ones, the powers of tau and the inverse
 * NTT together about m / 40 units, the transpose-and-sum of a matrix about
 * nnz / 240. */
#define G2_UNITS          3
#define SLICE             ((size_t)1 << 16)
#define NTT_UNITS(m)      ((m) / 32)
#define COLUMN_UNITS(nnz) ((nnz) / 256)

typedef struct {
    cz_groth16_setup_progress_fn fn;
    void *ctx;
    uint64_t done, total;
} progress;

static void progress_add(progress *p, uint64_t units) {
    p->done += units;
    if (p->done > p->total) p->done = p->total;
    if (p->fn) p->fn(p->ctx, p->done, p->total);
}

static uint64_t popcount_bits(const uint64_t *bits, uint64_t n) {
    uint64_t total = 0;
    for (uint64_t i = 0; i < n / 64; i++) total += (uint64_t)__builtin_popcountll(bits[i]);
    if (n % 64) total += (uint64_t)__builtin_popcountll(bits[n / 64] & ((1ull << (n % 64)) - 1));
    return total;
}

/* The whole setup in units: h, ic + l, a (inputs are dense in A), b_g1 and
 * b_g2 (the densities give the counts, check_densities holds them to it). */
static uint64_t progress_total(const cz_r1cs *r, size_t m) {
    uint64_t ni = r->num_inputs, na = r->num_aux;
    uint64_t n_a = ni + popcount_bits(r->a_aux_density, na);
    uint64_t n_b = popcount_bits(r->b_input_density, ni) + popcount_bits(r->b_aux_density, na);
    uint64_t nnz =
        r->a.row_start[r->a.rows] + r->b.row_start[r->b.rows] + r->c.row_start[r->c.rows];
    return NTT_UNITS(m) + COLUMN_UNITS(nnz) + (m - 1) + ni + na + n_a + n_b + G2_UNITS * n_b;
}

static void g1_mul(cz_g1_affine *out, const cz_g1_fixed_base *table, const cz_fr *scalars, size_t n,
                   progress *p) {
    for (size_t b = 0; b < n; b += SLICE) {
        size_t len = n - b < SLICE ? n - b : SLICE;
        cz_g1_fixed_base_mul(out + b, table, scalars + b, len);
        progress_add(p, len);
    }
}

static void g2_mul(cz_g2_affine *out, const cz_g2_fixed_base *table, const cz_fr *scalars, size_t n,
                   progress *p) {
    for (size_t b = 0; b < n; b += SLICE) {
        size_t len = n - b < SLICE ? n - b : SLICE;
        cz_g2_fixed_base_mul(out + b, table, scalars + b, len);
        progress_add(p, G2_UNITS * len);
    }
}

static void *alloc_points(size_t n, size_t size) {
    return malloc((n ? n : 1) * size);
}

static cz_status setup(cz_groth16_params *out, const cz_r1cs *r1cs, const cz_groth16_secrets *s,
                       progress *prog, cz_error *err) {
    memset(out, 0, sizeof *out);
    if (r1cs->num_inputs == 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: no inputs (input 0 is ONE)");
    if (!r1cs->a_aux_density || !r1cs->b_input_density || !r1cs->b_aux_density)
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: the r1cs has no density bitmaps");
    if (cz_fr_is_zero(&s->tau) || cz_fr_is_zero(&s->alpha) || cz_fr_is_zero(&s->beta) ||
        cz_fr_is_zero(&s->gamma) || cz_fr_is_zero(&s->delta))
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: a secret is zero");
    uint64_t n = r1cs->num_constraints;
    unsigned k = 0;
    cz_status st = cz_groth16_domain_log_size(&k, n, err);
    if (st != CZ_OK) return st;
    size_t m = (size_t)1 << k;
    size_t ni = r1cs->num_inputs, na = r1cs->num_aux, nv = ni + na;

    prog->total = progress_total(r1cs, m);
    progress_add(prog, 0);

    cz_ntt_domain domain;
    memset(&domain, 0, sizeof domain);
    cz_fr *tau_powers = malloc(m * sizeof *tau_powers);
    cz_fr *scalars = malloc((m > nv ? m : nv) * sizeof *scalars);
    cz_fr *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    cz_g1_fixed_base *g1_table = malloc(sizeof *g1_table);
    cz_g2_fixed_base *g2_table = malloc(sizeof *g2_table);
    if (!tau_powers || !scalars || !u || !v || !w || !g1_table || !g2_table) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory (domain 2^%u, %zu variables)", k,
                          nv);
        goto done;
    }
    if ((st = cz_ntt_domain_init(&domain, k, err)) != CZ_OK) goto done;
    cz_g1 g1;
    cz_g2 g2;
    cz_g1_generator(&g1);
    cz_g2_generator(&g2);
    if (cz_g1_fixed_base_init(g1_table, &g1) != CZ_OK ||
        cz_g2_fixed_base_init(g2_table, &g2) != CZ_OK) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for fixed-base tables");
        goto done;
    }

    cz_fr gamma_inv, delta_inv, z_tau, one = cz_fr_one;
    cz_fr_inv_var(&gamma_inv, &s->gamma);
    cz_fr_inv_var(&delta_inv, &s->delta);

    /* h[i] = tau^i Z(tau) / delta, i < m - 1, with Z(tau) = tau^m - 1 */
    powers_job pj = {tau_powers, &s->tau};
    cz_parallel_for(m, 4096, powers_task, &pj);
    cz_fr_mul(&z_tau, &tau_powers[m - 1], &s->tau);
    cz_fr_sub(&z_tau, &z_tau, &one);
    if (cz_fr_is_zero(&z_tau)) {
        st = cz_error_set(err, CZ_E_INVALID_ARG, "setup: tau lies in the domain (tau^m = 1)");
        goto done;
    }
    cz_fr h_factor;
    cz_fr_mul(&h_factor, &z_tau, &delta_inv);
    out->n_h = m - 1;
    out->h = alloc_points(out->n_h, sizeof *out->h);
    if (!out->h) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for h");
        goto done;
    }
    h_job hj = {scalars, tau_powers, &h_factor};
    cz_parallel_for(out->n_h, 4096, h_task, &hj);
    progress_add(prog, NTT_UNITS(m) / 2);
    g1_mul(out->h, g1_table, scalars, out->n_h, prog);

    /* Lagrange basis at tau: L_j(tau) = m^-1 sum_i tau^i omega^(-ij), the
     * inverse transform of the powers of tau */
    if ((st = cz_ntt_inverse(&domain, tau_powers, err)) != CZ_OK) goto done;
    progress_add(prog, NTT_UNITS(m) - NTT_UNITS(m) / 2);
    if ((st = column_eval(u, nv, &r1cs->a, n, tau_powers, "A", err)) != CZ_OK) goto done;
    progress_add(prog, COLUMN_UNITS(r1cs->a.row_start[n]));
    if ((st = column_eval(v, nv, &r1cs->b, n, tau_powers, "B", err)) != CZ_OK) goto done;
    progress_add(prog, COLUMN_UNITS(r1cs->b.row_start[n]));
    if ((st = column_eval(w, nv, &r1cs->c, n, tau_powers, "C", err)) != CZ_OK) goto done;
    progress_add(prog, COLUMN_UNITS(r1cs->c.row_start[n]));
    free(tau_powers);
    tau_powers = NULL;
    if ((st = check_densities(r1cs, u, v, err)) != CZ_OK) goto done;

    /* vk */
    cz_fr vk_g1_scalars[3] = {s->alpha, s->beta, s->delta};
    cz_fr vk_g2_scalars[3] = {s->beta, s->gamma, s->delta};
    cz_g1_affine vk_g1[3];
    cz_g2_affine vk_g2[3];
    cz_g1_fixed_base_mul(vk_g1, g1_table, vk_g1_scalars, 3);
    cz_g2_fixed_base_mul(vk_g2, g2_table, vk_g2_scalars, 3);
    out->vk.alpha_g1 = vk_g1[0], out->vk.beta_g1 = vk_g1[1], out->vk.delta_g1 = vk_g1[2];
    out->vk.beta_g2 = vk_g2[0], out->vk.gamma_g2 = vk_g2[1], out->vk.delta_g2 = vk_g2[2];

    /* ic (inputs, / gamma) and l (aux, / delta) */
    out->vk.n_ic = ni;
    out->vk.ic = alloc_points(ni, sizeof *out->vk.ic);
    out->n_l = na;
    out->l = alloc_points(na, sizeof *out->l);
    if (!out->vk.ic || !out->l) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for ic / l");
        goto done;
    }
    ext_job ej = {scalars, u, v, w, &s->alpha, &s->beta, &gamma_inv};
    cz_parallel_for(ni, 1024, ext_task, &ej);
    ej = (ext_job){scalars + ni, u + ni, v + ni, w + ni, &s->alpha, &s->beta, &delta_inv};
    cz_parallel_for(na, 1024, ext_task, &ej);
    for (size_t i = 0; i < nv; i++)
        if (cz_fr_is_zero(&scalars[i])) {
            if (i < ni)
                st = cz_error_set(err, CZ_E_INVALID_ARG,
                                  "setup: ic[%zu] would be the identity (try another seed)", i);
            else
                st = cz_error_set(err, CZ_E_INVALID_ARG,
                                  "setup: aux %zu is unconstrained: it occurs in no constraint, so "
                                  "l[%zu] would be the identity",
                                  i - ni, i - ni);
            goto done;
        }
    g1_mul(out->vk.ic, g1_table, scalars, ni, prog);
    g1_mul(out->l, g1_table, scalars + ni, na, prog);

    /* a: non-zero u_i, inputs then aux */
    out->n_a = compact_nonzero(scalars, u, nv);
    out->a = alloc_points(out->n_a, sizeof *out->a);
    if (!out->a) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for a");
        goto done;
    }
    g1_mul(out->a, g1_table, scalars, out->n_a, prog);

    /* b_g1, b_g2: non-zero v_i */
    out->n_b_g1 = out->n_b_g2 = compact_nonzero(scalars, v, nv);
    out->b_g1 = alloc_points(out->n_b_g1, sizeof *out->b_g1);
    out->b_g2 = alloc_points(out->n_b_g2, sizeof *out->b_g2);
    if (!out->b_g1 || !out->b_g2) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for b_g1 / b_g2");
        goto done;
    }
    g1_mul(out->b_g1, g1_table, scalars, out->n_b_g1, prog);
    g2_mul(out->b_g2, g2_table, scalars, out->n_b_g2, prog);
    progress_add(prog, prog->total - prog->done);
    st = CZ_OK;

done:
    cz_ntt_domain_free(&domain);
    free(tau_powers);
    free(scalars);
    free(u);
    free(v);
    free(w);
    free(g1_table);
    free(g2_table);
    if (st != CZ_OK) cz_groth16_params_free(out);
    return st;
}

cz_status cz_groth16_setup_with_secrets(cz_groth16_params *out, const cz_r1cs *r1cs,
                                        const cz_groth16_secrets *secrets, cz_error *err) {
    progress prog = {0};
    return setup(out, r1cs, secrets, &prog, err);
}

cz_status cz_groth16_dev_setup_progress(cz_groth16_params *out, const cz_r1cs *r1cs,
                                        const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                        cz_groth16_setup_progress_fn progress_fn,
                                        void *progress_ctx, cz_error *err) {
    cz_groth16_secrets secrets;
    cz_groth16_dev_secrets(&secrets, seed);
    progress prog = {progress_fn, progress_ctx, 0, 0};
    cz_status st = setup(out, r1cs, &secrets, &prog, err);
    memset(&secrets, 0, sizeof secrets);
    return st;
}

cz_status cz_groth16_dev_setup(cz_groth16_params *out, const cz_r1cs *r1cs,
                               const uint8_t seed[CZ_GROTH16_SEED_BYTES], cz_error *err) {
    return cz_groth16_dev_setup_progress(out, r1cs, seed, NULL, NULL, err);
}
