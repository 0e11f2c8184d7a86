/* Development setup (bellperson's generate_parameters) on the CPU from the
 * pre-compiled circuit; see setup.h. The GPU setup (src/gpu/setup.cu)
 * shares the plan, the vk's fixed points and the checks defined here. */
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

/* ---- what both setups share ---- */

cz_status cz_groth16_setup_plan_init(cz_groth16_setup_plan *plan, const cz_circuit *c,
                                     const cz_groth16_secrets *s, cz_error *err) {
    memset(plan, 0, sizeof *plan);
    if (c->num_inputs == 0)
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: no inputs (input 0 is ONE)");
    if ((c->num_aux && (!c->a_aux_density || !c->b_aux_density)) || !c->b_input_density)
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: the circuit has no density bitmaps");
    if (cz_fr_is_zero(&s->tau) || cz_fr_is_zero(&s->alpha) || cz_fr_is_zero(&s->beta) ||
        cz_fr_is_zero(&s->gamma) || cz_fr_is_zero(&s->delta))
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: a secret is zero");
    unsigned k = 0;
    cz_status st = cz_groth16_domain_log_size(&k, c->num_constraints, err);
    if (st != CZ_OK) return st;
    plan->log_m = k;
    plan->m = (uint64_t)1 << k;
    plan->num_inputs = c->num_inputs;
    plan->num_aux = c->num_aux;
    plan->n_h = plan->m - 1;
    /* inputs are dense in A (checked per variable) */
    plan->n_a = c->num_inputs + cz_density_popcount(c->a_aux_density, c->num_aux);
    plan->n_b = cz_density_popcount(c->b_input_density, c->num_inputs) +
                cz_density_popcount(c->b_aux_density, c->num_aux);
    cz_fr z_tau, one = cz_fr_one;
    uint64_t m = plan->m;
    cz_fr_pow(&z_tau, &s->tau, &m, 1);
    cz_fr_sub(&z_tau, &z_tau, &one);
    if (cz_fr_is_zero(&z_tau))
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: tau lies in the domain (tau^m = 1)");
    cz_fr_inv_var(&plan->gamma_inv, &s->gamma);
    cz_fr_inv_var(&plan->delta_inv, &s->delta);
    cz_fr_mul(&plan->h_factor, &z_tau, &plan->delta_inv);
    return CZ_OK;
}

void cz_groth16_setup_vk_points(cz_groth16_vk *vk, const cz_groth16_secrets *s) {
    cz_g1 g1, p1;
    cz_g2 g2, p2;
    cz_g1_generator(&g1);
    cz_g2_generator(&g2);
    cz_g1_mul_var(&p1, &g1, &s->alpha), cz_g1_to_affine(&vk->alpha_g1, &p1);
    cz_g1_mul_var(&p1, &g1, &s->beta), cz_g1_to_affine(&vk->beta_g1, &p1);
    cz_g1_mul_var(&p1, &g1, &s->delta), cz_g1_to_affine(&vk->delta_g1, &p1);
    cz_g2_mul_var(&p2, &g2, &s->beta), cz_g2_to_affine(&vk->beta_g2, &p2);
    cz_g2_mul_var(&p2, &g2, &s->gamma), cz_g2_to_affine(&vk->gamma_g2, &p2);
    cz_g2_mul_var(&p2, &g2, &s->delta), cz_g2_to_affine(&vk->delta_g2, &p2);
}

/* Every non-zero evaluation must match a density bit and vice versa, since
 * the prover consumes key points by the densities. Inputs are always dense
 * in A. */
cz_status cz_groth16_setup_check_variable(const cz_circuit *c, uint64_t i, const cz_fr *u_i,
                                          const cz_fr *v_i, cz_error *err) {
    static const char hint[] = "(tau hit a root of this polynomial, or the densities are wrong; "
                               "try another seed)";
    const uint64_t ni = c->num_inputs;
    if (i < ni) {
        if (cz_fr_is_zero(u_i))
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "setup: input %llu: A evaluates to 0 at tau, every input must be "
                                "dense in A %s",
                                (unsigned long long)i, hint);
        int bit = cz_density_get(c->b_input_density, i);
        if ((!cz_fr_is_zero(v_i)) != bit)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "setup: input %llu: B(tau) %s 0 but b_input_density says %d %s",
                                (unsigned long long)i, cz_fr_is_zero(v_i) ? "=" : "!=", bit, hint);
        return CZ_OK;
    }
    const uint64_t k = i - ni;
    int bit = cz_density_get(c->a_aux_density, k);
    if ((!cz_fr_is_zero(u_i)) != bit)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "setup: aux %llu: A(tau) %s 0 but a_aux_density says %d %s",
                            (unsigned long long)k, cz_fr_is_zero(u_i) ? "=" : "!=", bit, hint);
    bit = cz_density_get(c->b_aux_density, k);
    if ((!cz_fr_is_zero(v_i)) != bit)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "setup: aux %llu: B(tau) %s 0 but b_aux_density says %d %s",
                            (unsigned long long)k, cz_fr_is_zero(v_i) ? "=" : "!=", bit, hint);
    return CZ_OK;
}

cz_status cz_groth16_setup_check_scalar(const cz_circuit *c, uint64_t i, const cz_fr *s_i,
                                        cz_error *err) {
    if (!cz_fr_is_zero(s_i)) return CZ_OK;
    if (i < c->num_inputs)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "setup: ic[%llu] would be the identity (try another seed)",
                            (unsigned long long)i);
    const unsigned long long k = i - c->num_inputs;
    return cz_error_set(err, CZ_E_INVALID_ARG,
                        "setup: aux %llu is unconstrained: it occurs in no constraint, so l[%llu] "
                        "would be the identity",
                        k, k);
}

/* ---- b * f^i for i < n (the powers of tau, and h's scalars) ---- */

typedef struct {
    cz_fr *out;
    const cz_fr *base, *factor;
} powers_job;

static void powers_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    powers_job *job = ctx;
    uint64_t e = begin;
    cz_fr cur;
    cz_fr_pow(&cur, job->base, &e, 1);
    if (job->factor) cz_fr_mul(&cur, &cur, job->factor);
    for (size_t i = begin; i < end; i++) {
        job->out[i] = cur;
        cz_fr_mul(&cur, &cur, job->base);
    }
}

/* ---- column evaluations u_i(tau) = sum_j M[j][i] L_j(tau) ----
 * The compact CSR matrix is transposed (a counting sort by column that
 * records, for each entry, its row and its coefficient index) so that the
 * sums can run over all cores without sharing an accumulator. Field
 * addition is exact, so the order of a column's terms does not matter. */

typedef struct {
    cz_fr *out;
    const uint64_t *col_start; /* [ncols + 1] into rows / coef */
    const uint32_t *rows, *coef;
    const cz_fr *coeffs;
    const cz_fr *lagrange;
} column_job;

static void column_task(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    column_job *job = ctx;
    for (size_t c = begin; c < end; c++) {
        cz_fr acc = cz_fr_zero, t;
        for (uint64_t p = job->col_start[c]; p < job->col_start[c + 1]; p++) {
            const cz_fr *l = &job->lagrange[job->rows[p]];
            const uint32_t ci = job->coef[p];
            if (ci == CZ_CIRCUIT_COEF_ONE) {
                cz_fr_add(&acc, &acc, l);
            } else if (ci == CZ_CIRCUIT_COEF_MINUS_ONE) {
                cz_fr_sub(&acc, &acc, l);
            } else {
                cz_fr_mul(&t, &job->coeffs[ci], l);
                cz_fr_add(&acc, &acc, &t);
            }
        }
        job->out[c] = acc;
    }
}

static uint32_t coef_index(const cz_circuit *c, const cz_circuit_matrix *m, uint64_t e) {
    return c->coef_bytes == 2 ? ((const uint16_t *)m->coef)[e] : ((const uint32_t *)m->coef)[e];
}

static cz_status column_eval(cz_fr *out, const cz_circuit *c, int which, const cz_fr *lagrange,
                             cz_error *err) {
    const char *name = which == 0 ? "A" : which == 1 ? "B" : "C";
    const cz_circuit_matrix *m = &c->m[which];
    const size_t ncols = (size_t)c->num_inputs + c->num_aux;
    const uint64_t rows = c->num_constraints;
    if (c->coef_bytes != 2 && c->coef_bytes != 4)
        return cz_error_set(err, CZ_E_INVALID_ARG, "setup: coefficient indices of %u bytes",
                            c->coef_bytes);
    if (m->row_start[0] != 0 || m->row_start[rows] != m->nnz)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "setup: matrix %s: row offsets do not run from 0 to nnz = %llu", name,
                            (unsigned long long)m->nnz);
    for (uint64_t j = 0; j < rows; j++)
        if (m->row_start[j + 1] < m->row_start[j])
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "setup: matrix %s: row_start decreases at row %llu", name,
                                (unsigned long long)j);
    const uint64_t nnz = m->nnz;
    uint64_t *col_start = calloc(ncols + 1, sizeof *col_start);
    uint64_t *next = malloc((ncols + 1) * sizeof *next);
    uint32_t *row_of = malloc((nnz ? nnz : 1) * sizeof *row_of);
    uint32_t *coef_of = malloc((nnz ? nnz : 1) * sizeof *coef_of);
    cz_status st = CZ_OK;
    if (!col_start || !next || !row_of || !coef_of) {
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
        if (coef_index(c, m, e) >= c->num_coeffs) {
            st = cz_error_set(err, CZ_E_INVALID_ARG,
                              "setup: matrix %s: entry %llu has coefficient index %u, only %u "
                              "coefficients",
                              name, (unsigned long long)e, coef_index(c, m, e), c->num_coeffs);
            goto done;
        }
        col_start[m->col[e] + 1]++;
    }
    for (size_t col = 0; col < ncols; col++) col_start[col + 1] += col_start[col];
    memcpy(next, col_start, (ncols + 1) * sizeof *next);
    for (uint64_t j = 0; j < rows; j++) /* rows <= m <= 2^31, so j fits a u32 */
        for (uint64_t e = m->row_start[j]; e < m->row_start[j + 1]; e++) {
            uint64_t p = next[m->col[e]]++;
            row_of[p] = (uint32_t)j;
            coef_of[p] = coef_index(c, m, e);
        }
    column_job job = {out, col_start, row_of, coef_of, c->coeffs, lagrange};
    cz_parallel_for(ncols, 1024, column_task, &job);
done:
    free(col_start);
    free(next);
    free(row_of);
    free(coef_of);
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
    const char *stage;
    uint64_t done, total;
} progress;

static void progress_add(progress *p, uint64_t units) {
    p->done += units;
    if (p->done > p->total) p->done = p->total;
    if (p->fn) p->fn(p->ctx, p->stage, p->done, p->total);
}

static void progress_stage(progress *p, const char *stage) {
    p->stage = stage;
    progress_add(p, 0);
}

/* The whole setup in units: h, ic + l, a, b_g1 and b_g2 (the densities
 * give the counts, the checks hold the evaluations to them). */
static uint64_t progress_total(const cz_circuit *c, const cz_groth16_setup_plan *plan) {
    uint64_t nnz = c->m[0].nnz + c->m[1].nnz + c->m[2].nnz;
    return NTT_UNITS(plan->m) + COLUMN_UNITS(nnz) + plan->n_h + plan->num_inputs + plan->num_aux +
           plan->n_a + plan->n_b + G2_UNITS * plan->n_b;
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

static cz_status setup(cz_groth16_params *out, const cz_circuit *c, const cz_groth16_secrets *s,
                       progress *prog, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_groth16_setup_plan plan;
    cz_status st = cz_groth16_setup_plan_init(&plan, c, s, err);
    if (st != CZ_OK) return st;
    const size_t m = (size_t)plan.m;
    const size_t ni = c->num_inputs, na = c->num_aux, nv = ni + na;

    prog->total = progress_total(c, &plan);
    progress_stage(prog, "Lagrange basis");

    cz_ntt_domain domain;
    memset(&domain, 0, sizeof domain);
    cz_fr *lagrange = malloc(m * sizeof *lagrange);
    cz_fr *scalars = malloc((m > nv ? m : nv) * sizeof *scalars);
    cz_fr *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    cz_g1_fixed_base *g1_table = malloc(sizeof *g1_table);
    cz_g2_fixed_base *g2_table = malloc(sizeof *g2_table);
    if (!lagrange || !scalars || !u || !v || !w || !g1_table || !g2_table) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory (domain 2^%u, %zu variables)",
                          plan.log_m, nv);
        goto done;
    }
    if ((st = cz_ntt_domain_init(&domain, plan.log_m, err)) != CZ_OK) goto done;
    cz_g1 g1;
    cz_g2 g2;
    cz_g1_generator(&g1);
    cz_g2_generator(&g2);
    if (cz_g1_fixed_base_init(g1_table, &g1) != CZ_OK ||
        cz_g2_fixed_base_init(g2_table, &g2) != CZ_OK) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for fixed-base tables");
        goto done;
    }

    /* Lagrange basis at tau: L_j(tau) = m^-1 sum_i tau^i omega^(-ij), the
     * inverse transform of the powers of tau */
    powers_job pj = {lagrange, &s->tau, NULL};
    cz_parallel_for(m, 4096, powers_task, &pj);
    progress_add(prog, NTT_UNITS(m) / 2);
    if ((st = cz_ntt_inverse(&domain, lagrange, err)) != CZ_OK) goto done;
    progress_add(prog, NTT_UNITS(m) - NTT_UNITS(m) / 2);
    cz_ntt_domain_free(&domain);

    progress_stage(prog, "column sums");
    cz_fr *evals[3] = {u, v, w};
    for (int k = 0; k < 3; k++) {
        if ((st = column_eval(evals[k], c, k, lagrange, err)) != CZ_OK) goto done;
        progress_add(prog, COLUMN_UNITS(c->m[k].nnz));
    }
    free(lagrange);
    lagrange = NULL;
    for (size_t i = 0; i < nv; i++)
        if ((st = cz_groth16_setup_check_variable(c, i, &u[i], &v[i], err)) != CZ_OK) goto done;

    /* vk */
    cz_groth16_setup_vk_points(&out->vk, s);

    /* ic (inputs, / gamma) and l (aux, / delta) */
    out->vk.n_ic = ni;
    out->vk.ic = alloc_points(ni, sizeof *out->vk.ic);
    out->n_l = na;
    out->l = alloc_points(na, sizeof *out->l);
    if (!out->vk.ic || !out->l) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for ic / l");
        goto done;
    }
    ext_job ej = {scalars, u, v, w, &s->alpha, &s->beta, &plan.gamma_inv};
    cz_parallel_for(ni, 1024, ext_task, &ej);
    ej = (ext_job){scalars + ni, u + ni, v + ni, w + ni, &s->alpha, &s->beta, &plan.delta_inv};
    cz_parallel_for(na, 1024, ext_task, &ej);
    for (size_t i = 0; i < nv; i++)
        if ((st = cz_groth16_setup_check_scalar(c, i, &scalars[i], err)) != CZ_OK) goto done;
    progress_stage(prog, "ic");
    g1_mul(out->vk.ic, g1_table, scalars, ni, prog);
    progress_stage(prog, "l");
    g1_mul(out->l, g1_table, scalars + ni, na, prog);

    /* h[i] = tau^i Z(tau) / delta, i < m - 1 */
    progress_stage(prog, "h");
    out->n_h = plan.n_h;
    out->h = alloc_points(out->n_h, sizeof *out->h);
    if (!out->h) {
        st = cz_error_set(err, CZ_E_NOMEM, "setup: out of memory for h");
        goto done;
    }
    pj = (powers_job){scalars, &s->tau, &plan.h_factor};
    cz_parallel_for(out->n_h, 4096, powers_task, &pj);
    g1_mul(out->h, g1_table, scalars, out->n_h, prog);

    /* a: non-zero u_i, inputs then aux */
    progress_stage(prog, "a");
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
    progress_stage(prog, "b_g1");
    g1_mul(out->b_g1, g1_table, scalars, out->n_b_g1, prog);
    progress_stage(prog, "b_g2");
    g2_mul(out->b_g2, g2_table, scalars, out->n_b_g2, prog);
    progress_add(prog, prog->total - prog->done);
    st = CZ_OK;

done:
    cz_ntt_domain_free(&domain);
    free(lagrange);
    free(scalars);
    free(u);
    free(v);
    free(w);
    free(g1_table);
    free(g2_table);
    if (st != CZ_OK) cz_groth16_params_free(out);
    return st;
}

cz_status cz_groth16_setup_with_secrets(cz_groth16_params *out, const cz_circuit *c,
                                        const cz_groth16_secrets *secrets, cz_error *err) {
    progress prog = {0};
    return setup(out, c, secrets, &prog, err);
}

cz_status cz_groth16_dev_setup_progress(cz_groth16_params *out, const cz_circuit *c,
                                        const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                        cz_groth16_setup_progress_fn progress_fn,
                                        void *progress_ctx, cz_error *err) {
    cz_groth16_secrets secrets;
    cz_groth16_dev_secrets(&secrets, seed);
    progress prog = {progress_fn, progress_ctx, "", 0, 0};
    cz_status st = setup(out, c, &secrets, &prog, err);
    memset(&secrets, 0, sizeof secrets);
    return st;
}

cz_status cz_groth16_dev_setup(cz_groth16_params *out, const cz_circuit *c,
                               const uint8_t seed[CZ_GROTH16_SEED_BYTES], cz_error *err) {
    return cz_groth16_dev_setup_progress(out, c, seed, NULL, NULL, err);
}
