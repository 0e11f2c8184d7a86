/* Groth16 end to end: development setup -> CPU prover -> verifiers.
 *
 * Circuits are built here by hand (rows of terms, a witness, bellperson's
 * input constraints appended, CSR matrices and prover evaluations computed
 * by this file), and one through the r1cs back-ends. Independent checks:
 *  - the parameters against the secrets: every key point equals its scalar
 *    times the generator, with u_i, v_i, w_i computed here from the closed
 *    Lagrange formula L_j(tau) = omega^j (tau^m - 1) / (m (tau - omega^j));
 *  - the proof against the secrets: A, B, C equal the scalars Groth16
 *    defines (C via A(tau) B(tau) - C(tau) = H(tau) Z(tau)), so the NTT
 *    chain, the densities and the MSMs are all checked at once;
 *  - H against schoolbook polynomial arithmetic (naive interpolation,
 *    product, long division by x^m - 1);
 *  - the verifiers against the pairing equation: good proofs pass, tampered
 *    proofs, wrong inputs and proofs under another key fail, and a batch with
 *    one bad proof fails. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "harness/harness.h"
#include "util/cancel.h"
#include "r1cs/backends.h"

/* ---- hand-built circuits ---- */

typedef struct {
    uint32_t col; /* inputs then aux */
    cz_fr coeff;
} term;

typedef struct {
    term *t;
    size_t n;
} row;

typedef struct {
    uint32_t ni, na; /* inputs (ONE included), aux */
    size_t nc, cap;  /* constraints */
    row *a, *b, *c;
    cz_fr *z; /* [ni + na], z[0] = 1 */
} circuit;

static void circuit_init(circuit *cs, uint32_t ni, uint32_t na) {
    memset(cs, 0, sizeof *cs);
    cs->ni = ni, cs->na = na;
    cs->z = calloc(ni + na, sizeof *cs->z);
    cs->z[0] = cz_fr_one;
}

static void circuit_free(circuit *cs) {
    for (size_t j = 0; j < cs->nc; j++) free(cs->a[j].t), free(cs->b[j].t), free(cs->c[j].t);
    free(cs->a), free(cs->b), free(cs->c), free(cs->z);
    memset(cs, 0, sizeof *cs);
}

static row row_copy(const term *t, size_t n) {
    row r = {malloc((n ? n : 1) * sizeof *t), n};
    if (n) memcpy(r.t, t, n * sizeof *t);
    return r;
}

static void enforce(circuit *cs, const term *a, size_t na, const term *b, size_t nb, const term *c,
                    size_t nc) {
    if (cs->nc == cs->cap) {
        cs->cap = cs->cap ? 2 * cs->cap : 16;
        cs->a = realloc(cs->a, cs->cap * sizeof *cs->a);
        cs->b = realloc(cs->b, cs->cap * sizeof *cs->b);
        cs->c = realloc(cs->c, cs->cap * sizeof *cs->c);
    }
    cs->a[cs->nc] = row_copy(a, na);
    cs->b[cs->nc] = row_copy(b, nb);
    cs->c[cs->nc] = row_copy(c, nc);
    cs->nc++;
}

/* bellperson's input constraints: input_i * 0 = 0 for every input */
static void append_input_constraints(circuit *cs) {
    for (uint32_t i = 0; i < cs->ni; i++) {
        term t = {i, cz_fr_one};
        enforce(cs, &t, 1, NULL, 0, NULL, 0);
    }
}

static void row_eval(cz_fr *out, const row *r, const cz_fr *z) {
    cz_fr acc = cz_fr_zero, t;
    for (size_t k = 0; k < r->n; k++) {
        cz_fr_mul(&t, &r->t[k].coeff, &z[r->t[k].col]);
        cz_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static void set_bit(uint64_t *bits, uint64_t i) {
    bits[i / 64] |= 1ULL << (i % 64);
}

/* densities: a variable counts where it has a non-zero coefficient */
static void densities(const circuit *cs, uint64_t **a_aux, uint64_t **b_in, uint64_t **b_aux) {
    *a_aux = calloc(cs->na / 64 + 1, 8);
    *b_in = calloc(cs->ni / 64 + 1, 8);
    *b_aux = calloc(cs->na / 64 + 1, 8);
    for (size_t j = 0; j < cs->nc; j++) {
        for (size_t k = 0; k < cs->a[j].n; k++)
            if (!cz_fr_is_zero(&cs->a[j].t[k].coeff) && cs->a[j].t[k].col >= cs->ni)
                set_bit(*a_aux, cs->a[j].t[k].col - cs->ni);
        for (size_t k = 0; k < cs->b[j].n; k++) {
            if (cz_fr_is_zero(&cs->b[j].t[k].coeff)) continue;
            uint32_t col = cs->b[j].t[k].col;
            if (col < cs->ni)
                set_bit(*b_in, col);
            else
                set_bit(*b_aux, col - cs->ni);
        }
    }
}

static int term_by_col(const void *x, const void *y) {
    const term *a = x, *b = y;
    return (a->col > b->col) - (a->col < b->col);
}

/* CSR as the record back-end stores it: columns ascending within a row,
 * zero coefficients dropped (the rows here may hold both). */
static void to_csr(cz_csr *m, const row *rows, size_t n) {
    m->rows = n;
    m->row_start = malloc((n + 1) * sizeof *m->row_start);
    size_t nnz = 0, widest = 1;
    for (size_t j = 0; j < n; j++) {
        nnz += rows[j].n;
        if (rows[j].n > widest) widest = rows[j].n;
    }
    m->col = malloc((nnz ? nnz : 1) * sizeof *m->col);
    m->val = malloc((nnz ? nnz : 1) * sizeof *m->val);
    term *sorted = malloc(widest * sizeof *sorted);
    size_t e = 0;
    for (size_t j = 0; j < n; j++) {
        m->row_start[j] = e;
        size_t k = 0;
        for (size_t q = 0; q < rows[j].n; q++)
            if (!cz_fr_is_zero(&rows[j].t[q].coeff)) sorted[k++] = rows[j].t[q];
        qsort(sorted, k, sizeof *sorted, term_by_col);
        for (size_t q = 0; q < k; q++, e++) m->col[e] = sorted[q].col, m->val[e] = sorted[q].coeff;
    }
    m->row_start[n] = e;
    free(sorted);
}

static void to_r1cs(cz_r1cs *r, const circuit *cs) {
    memset(r, 0, sizeof *r);
    r->num_inputs = cs->ni, r->num_aux = cs->na, r->num_constraints = cs->nc;
    to_csr(&r->a, cs->a, cs->nc);
    to_csr(&r->b, cs->b, cs->nc);
    to_csr(&r->c, cs->c, cs->nc);
    densities(cs, &r->a_aux_density, &r->b_input_density, &r->b_aux_density);
}

static void r1cs_free(cz_r1cs *r) {
    cz_csr *m[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 3; k++) free(m[k]->row_start), free(m[k]->col), free(m[k]->val);
    free(r->a_aux_density), free(r->b_input_density), free(r->b_aux_density);
}

static void to_prove_data(cz_prove_data *pd, const circuit *cs) {
    memset(pd, 0, sizeof *pd);
    pd->num_inputs = cs->ni, pd->num_aux = cs->na, pd->num_constraints = cs->nc;
    pd->input_assignment = malloc(cs->ni * sizeof(cz_fr));
    pd->aux_assignment = malloc((cs->na ? cs->na : 1) * sizeof(cz_fr));
    memcpy(pd->input_assignment, cs->z, cs->ni * sizeof(cz_fr));
    memcpy(pd->aux_assignment, cs->z + cs->ni, cs->na * sizeof(cz_fr));
    pd->a = malloc(cs->nc * sizeof(cz_fr));
    pd->b = malloc(cs->nc * sizeof(cz_fr));
    pd->c = malloc(cs->nc * sizeof(cz_fr));
    for (size_t j = 0; j < cs->nc; j++) {
        row_eval(&pd->a[j], &cs->a[j], cs->z);
        row_eval(&pd->b[j], &cs->b[j], cs->z);
        row_eval(&pd->c[j], &cs->c[j], cs->z);
    }
    densities(cs, &pd->a_aux_density, &pd->b_input_density, &pd->b_aux_density);
}

static void prove_data_free(cz_prove_data *pd) {
    free(pd->input_assignment), free(pd->aux_assignment);
    free(pd->a), free(pd->b), free(pd->c);
    free(pd->a_aux_density), free(pd->b_input_density), free(pd->b_aux_density);
}

static int satisfied(const circuit *cs) {
    for (size_t j = 0; j < cs->nc; j++) {
        cz_fr a, b, c;
        row_eval(&a, &cs->a[j], cs->z);
        row_eval(&b, &cs->b[j], cs->z);
        row_eval(&c, &cs->c[j], cs->z);
        cz_fr_mul(&a, &a, &b);
        if (!cz_fr_equal(&a, &c)) return 0;
    }
    return 1;
}

static void random_fr(cz_fr *k) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(k, b, sizeof b);
}

static void fr_u64(cz_fr *r, uint64_t v) {
    cz_fr_from_u64(r, v);
}

/* The cubic circuit's witness: x, x^2, x^3 and y = x^3 + x + 5. */
static void cubic_values(cz_fr *x, cz_fr *x2, cz_fr *x3, cz_fr *y, uint64_t x_value) {
    cz_fr five;
    fr_u64(x, x_value);
    cz_fr_sqr(x2, x);
    cz_fr_mul(x3, x2, x);
    fr_u64(&five, 5);
    cz_fr_add(y, x3, x);
    cz_fr_add(y, y, &five);
}

/* x^3 + x + 5 = y, y public (the classic example): ONE, y | x, x^2, x^3 */
static void cubic_circuit(circuit *cs, uint64_t x_value) {
    circuit_init(cs, 2, 3);
    cz_fr x, x2, x3, y, five;
    cubic_values(&x, &x2, &x3, &y, x_value);
    fr_u64(&five, 5);
    cs->z[1] = y, cs->z[2] = x, cs->z[3] = x2, cs->z[4] = x3;
    term tx = {2, cz_fr_one}, tx2 = {3, cz_fr_one}, tx3 = {4, cz_fr_one}, tone = {0, cz_fr_one},
         ty = {1, cz_fr_one};
    enforce(cs, &tx, 1, &tx, 1, &tx2, 1);
    enforce(cs, &tx2, 1, &tx, 1, &tx3, 1);
    term sum[3] = {tx3, tx, {0, five}};
    enforce(cs, sum, 3, &tone, 1, &ty, 1);
    append_input_constraints(cs);
}

/* A random satisfiable R1CS: A draws from the inputs and the first 3/4 of
 * the aux, B from ONE, input 1 and the last half of the aux (so both
 * densities are partial and some aux occur only in C), C from everything,
 * with one term per constraint (aux j mod na, so every aux is constrained)
 * whose coefficient makes the constraint hold. Some A rows carry an explicit
 * zero coefficient on an aux outside A's range (kept by bellpepper's
 * Indexer, but not dense). */
static uint32_t pick(uint32_t lo, uint32_t hi) {
    return lo + (uint32_t)(cz_test_rand64() % (hi - lo));
}

static void random_terms(term *t, size_t *n, size_t count, uint32_t ni, uint32_t na, int which) {
    *n = 0;
    for (size_t k = 0; k < count; k++) {
        uint32_t col;
        if (which == 0) {
            uint32_t span = ni + (3 * na) / 4;
            col = pick(0, span);
        } else if (which == 1) {
            uint32_t u = pick(0, na - na / 2 + 2);
            col = u == 0 ? 0 : u == 1 ? (ni > 1 ? 1 : 0) : ni + na / 2 + (u - 2);
        } else {
            col = pick(0, ni + na);
        }
        int dup = 0;
        for (size_t q = 0; q < *n; q++)
            if (t[q].col == col) dup = 1;
        if (dup) continue;
        t[*n].col = col;
        random_fr(&t[*n].coeff);
        (*n)++;
    }
}

static void random_circuit(circuit *cs, uint32_t ni, uint32_t na, size_t nsynth) {
    circuit_init(cs, ni, na);
    for (uint32_t i = 1; i < ni + na; i++) random_fr(&cs->z[i]);
    for (size_t j = 0; j < nsynth; j++) {
        term a[5], b[4], c[5];
        size_t n_a, n_b, n_c;
        random_terms(a, &n_a, 1 + cz_test_rand64() % 3, ni, na, 0);
        if (cz_test_rand64() % 10 == 0 && na >= 4) {
            a[n_a].col = ni + pick((3 * na) / 4, na);
            a[n_a].coeff = cz_fr_zero;
            n_a++;
        }
        if (cz_test_rand64() % 4 == 0) {
            b[0] = (term){0, cz_fr_one};
            n_b = 1;
        } else {
            random_terms(b, &n_b, 1 + cz_test_rand64() % 2, ni, na, 1);
        }
        uint32_t fix = ni + (uint32_t)(j % na);
        random_terms(c, &n_c, cz_test_rand64() % 3, ni, na, 2);
        size_t keep = 0;
        for (size_t q = 0; q < n_c; q++)
            if (c[q].col != fix) c[keep++] = c[q];
        n_c = keep;
        cz_fr av, bv, cv, need, inv;
        row ra = {a, n_a}, rb = {b, n_b}, rc = {c, n_c};
        row_eval(&av, &ra, cs->z);
        row_eval(&bv, &rb, cs->z);
        row_eval(&cv, &rc, cs->z);
        cz_fr_mul(&need, &av, &bv);
        cz_fr_sub(&need, &need, &cv);
        cz_fr_inv(&inv, &cs->z[fix]);
        c[n_c].col = fix;
        cz_fr_mul(&c[n_c].coeff, &need, &inv);
        n_c++;
        enforce(cs, a, n_a, b, n_b, c, n_c);
    }
    append_input_constraints(cs);
}

/* ---- independent evaluation of the QAP at tau ---- */

typedef struct {
    size_t m;
    cz_fr *u, *v, *w; /* per variable */
    cz_fr z_tau;      /* tau^m - 1 */
} qap_eval;

static unsigned log2_ceil(size_t n) {
    unsigned k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}

/* omega_m = 7^((r-1)/2^32) squared 32 - k times */
static void omega_for(cz_fr *omega, unsigned k) {
    cz_fr_root_of_unity(omega);
    for (unsigned i = k; i < 32; i++) cz_fr_sqr(omega, omega);
}

static void qap_at(qap_eval *q, const circuit *cs, const cz_fr *tau) {
    unsigned k = log2_ceil(cs->nc);
    q->m = (size_t)1 << k;
    size_t nv = cs->ni + cs->na;
    q->u = calloc(nv, sizeof(cz_fr));
    q->v = calloc(nv, sizeof(cz_fr));
    q->w = calloc(nv, sizeof(cz_fr));
    cz_fr omega, wj = cz_fr_one, m_fr, one = cz_fr_one;
    omega_for(&omega, k);
    fr_u64(&m_fr, q->m);
    uint64_t m64 = q->m;
    cz_fr_pow(&q->z_tau, tau, &m64, 1);
    cz_fr_sub(&q->z_tau, &q->z_tau, &one);
    for (size_t j = 0; j < cs->nc; j++) {
        /* L_j(tau) = omega^j Z(tau) / (m (tau - omega^j)) */
        cz_fr den, lj;
        cz_fr_sub(&den, tau, &wj);
        cz_fr_mul(&den, &den, &m_fr);
        cz_fr_inv(&den, &den);
        cz_fr_mul(&lj, &wj, &q->z_tau);
        cz_fr_mul(&lj, &lj, &den);
        const row *rows[3] = {&cs->a[j], &cs->b[j], &cs->c[j]};
        cz_fr *out[3] = {q->u, q->v, q->w};
        for (int mtx = 0; mtx < 3; mtx++)
            for (size_t t = 0; t < rows[mtx]->n; t++) {
                cz_fr p;
                cz_fr_mul(&p, &rows[mtx]->t[t].coeff, &lj);
                cz_fr_add(&out[mtx][rows[mtx]->t[t].col], &out[mtx][rows[mtx]->t[t].col], &p);
            }
        cz_fr_mul(&wj, &wj, &omega);
    }
}

static void qap_free(qap_eval *q) {
    free(q->u), free(q->v), free(q->w);
}

static int g1_is(const cz_g1_affine *p, const cz_fr *k) {
    cz_g1 g, want;
    cz_g1_affine want_a;
    cz_g1_generator(&g);
    cz_g1_mul_var(&want, &g, k);
    cz_g1_to_affine(&want_a, &want);
    return cz_g1_affine_equal(p, &want_a);
}

static int g2_is(const cz_g2_affine *p, const cz_fr *k) {
    cz_g2 g, want;
    cz_g2_affine want_a;
    cz_g2_generator(&g);
    cz_g2_mul_var(&want, &g, k);
    cz_g2_to_affine(&want_a, &want);
    return cz_g2_affine_equal(p, &want_a);
}

/* Checks the key against the secrets: all entries when stride is 1, else
 * every stride-th one (the vk always in full). */
static void check_params(const cz_groth16_params *p, const circuit *cs, const cz_groth16_secrets *s,
                         size_t stride) {
    qap_eval q;
    qap_at(&q, cs, &s->tau);
    size_t nv = cs->ni + cs->na;
    CHECK(g1_is(&p->vk.alpha_g1, &s->alpha));
    CHECK(g1_is(&p->vk.beta_g1, &s->beta));
    CHECK(g2_is(&p->vk.beta_g2, &s->beta));
    CHECK(g2_is(&p->vk.gamma_g2, &s->gamma));
    CHECK(g1_is(&p->vk.delta_g1, &s->delta));
    CHECK(g2_is(&p->vk.delta_g2, &s->delta));
    cz_fr gamma_inv, delta_inv;
    cz_fr_inv(&gamma_inv, &s->gamma);
    cz_fr_inv(&delta_inv, &s->delta);
    CHECK(p->vk.n_ic == cs->ni && p->n_l == cs->na && p->n_h == q.m - 1);
    for (size_t i = 0; i < nv; i++) {
        cz_fr e, t;
        cz_fr_mul(&e, &s->beta, &q.u[i]);
        cz_fr_mul(&t, &s->alpha, &q.v[i]);
        cz_fr_add(&e, &e, &t);
        cz_fr_add(&e, &e, &q.w[i]);
        cz_fr_mul(&e, &e, i < cs->ni ? &gamma_inv : &delta_inv);
        if (i < cs->ni)
            CHECK(g1_is(&p->vk.ic[i], &e));
        else if ((i - cs->ni) % stride == 0)
            CHECK(g1_is(&p->l[i - cs->ni], &e));
    }
    /* a and b keep the non-zero evaluations, in variable order */
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < nv; i++) {
        if (!cz_fr_is_zero(&q.u[i])) {
            if (ka < p->n_a && ka % stride == 0) CHECK(g1_is(&p->a[ka], &q.u[i]));
            ka++;
        }
        if (!cz_fr_is_zero(&q.v[i])) {
            if (kb < p->n_b_g1 && kb % stride == 0) {
                CHECK(g1_is(&p->b_g1[kb], &q.v[i]));
                CHECK(g2_is(&p->b_g2[kb], &q.v[i]));
            }
            kb++;
        }
    }
    CHECK(ka == p->n_a && kb == p->n_b_g1 && kb == p->n_b_g2);
    /* h[i] = tau^i Z(tau) / delta */
    cz_fr f;
    cz_fr_mul(&f, &q.z_tau, &delta_inv);
    for (size_t i = 0; i < p->n_h; i++) {
        if (i % stride == 0 || i == p->n_h - 1) CHECK(g1_is(&p->h[i], &f));
        cz_fr_mul(&f, &f, &s->tau);
    }
    qap_free(&q);
}

/* The proof Groth16 defines for this witness, secrets, r and s:
 *   A = alpha + A(tau) + r delta,  B = beta + B(tau) + s delta,
 *   C = (sum_aux z_k (beta u_k + alpha v_k + w_k) + A(tau) B(tau) - C(tau)) / delta
 *       + s A + r B - r s delta. */
static void check_proof_scalars(const cz_groth16_proof *pr, const circuit *cs,
                                const cz_groth16_secrets *s, const cz_fr *r, const cz_fr *sb) {
    qap_eval q;
    qap_at(&q, cs, &s->tau);
    cz_fr at = cz_fr_zero, bt = cz_fr_zero, ct = cz_fr_zero, lsum = cz_fr_zero, t;
    for (size_t i = 0; i < (size_t)cs->ni + cs->na; i++) {
        cz_fr_mul(&t, &cs->z[i], &q.u[i]), cz_fr_add(&at, &at, &t);
        cz_fr_mul(&t, &cs->z[i], &q.v[i]), cz_fr_add(&bt, &bt, &t);
        cz_fr_mul(&t, &cs->z[i], &q.w[i]), cz_fr_add(&ct, &ct, &t);
        if (i >= cs->ni) {
            cz_fr e, t2;
            cz_fr_mul(&e, &s->beta, &q.u[i]);
            cz_fr_mul(&t2, &s->alpha, &q.v[i]);
            cz_fr_add(&e, &e, &t2);
            cz_fr_add(&e, &e, &q.w[i]);
            cz_fr_mul(&e, &e, &cs->z[i]);
            cz_fr_add(&lsum, &lsum, &e);
        }
    }
    cz_fr A, B, C, delta_inv, hz;
    cz_fr_mul(&t, r, &s->delta);
    cz_fr_add(&A, &s->alpha, &at);
    cz_fr_add(&A, &A, &t);
    cz_fr_mul(&t, sb, &s->delta);
    cz_fr_add(&B, &s->beta, &bt);
    cz_fr_add(&B, &B, &t);
    cz_fr_mul(&hz, &at, &bt);
    cz_fr_sub(&hz, &hz, &ct);
    cz_fr_inv(&delta_inv, &s->delta);
    cz_fr_add(&C, &lsum, &hz);
    cz_fr_mul(&C, &C, &delta_inv);
    cz_fr_mul(&t, sb, &A), cz_fr_add(&C, &C, &t);
    cz_fr_mul(&t, r, &B), cz_fr_add(&C, &C, &t);
    cz_fr_mul(&t, r, sb), cz_fr_mul(&t, &t, &s->delta), cz_fr_sub(&C, &C, &t);
    CHECK(g1_is(&pr->a, &A));
    CHECK(g2_is(&pr->b, &B));
    CHECK(g1_is(&pr->c, &C));
    qap_free(&q);
}

/* ---- H against schoolbook polynomial arithmetic ---- */

static void check_h_naive(const circuit *cs) {
    cz_prove_data pd;
    to_prove_data(&pd, cs);
    unsigned k = log2_ceil(cs->nc);
    size_t m = (size_t)1 << k;
    cz_fr *h = malloc(m * sizeof *h);
    cz_error err;
    CHECK(cz_groth16_compute_h(h, &pd, &err) == CZ_OK);

    /* coefficients of A, B, C: P_i = m^-1 sum_j p_j omega^(-ij) */
    cz_fr omega, omega_inv, m_inv;
    omega_for(&omega, k);
    cz_fr_inv(&omega_inv, &omega);
    fr_u64(&m_inv, m);
    cz_fr_inv(&m_inv, &m_inv);
    cz_fr *poly[3];
    const cz_fr *evals[3] = {pd.a, pd.b, pd.c};
    for (int p = 0; p < 3; p++) {
        poly[p] = calloc(m, sizeof(cz_fr));
        for (size_t i = 0; i < m; i++) {
            cz_fr acc = cz_fr_zero, wi, wij = cz_fr_one, t;
            uint64_t e = i;
            cz_fr_pow(&wi, &omega_inv, &e, 1);
            for (size_t j = 0; j < cs->nc; j++) {
                cz_fr_mul(&t, &evals[p][j], &wij);
                cz_fr_add(&acc, &acc, &t);
                cz_fr_mul(&wij, &wij, &wi);
            }
            cz_fr_mul(&poly[p][i], &acc, &m_inv);
        }
    }
    /* interpolation sanity: A(omega^j) = a_j */
    for (size_t j = 0; j < m; j++) {
        cz_fr x, val = cz_fr_zero;
        uint64_t e = j;
        cz_fr_pow(&x, &omega, &e, 1);
        for (size_t i = m; i-- > 0;) cz_fr_mul(&val, &val, &x), cz_fr_add(&val, &val, &poly[0][i]);
        CHECK(cz_fr_equal(&val, j < cs->nc ? &pd.a[j] : &cz_fr_zero));
    }
    /* P = A B - C, degree <= 2m - 2 */
    cz_fr *prod = calloc(2 * m, sizeof(cz_fr));
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++) {
            cz_fr t;
            cz_fr_mul(&t, &poly[0][i], &poly[1][j]);
            cz_fr_add(&prod[i + j], &prod[i + j], &t);
        }
    for (size_t i = 0; i < m; i++) cz_fr_sub(&prod[i], &prod[i], &poly[2][i]);
    /* divide by x^m - 1: x^(m+i) = x^i mod (x^m - 1) */
    cz_fr *quot = calloc(m, sizeof(cz_fr));
    for (size_t i = 2 * m; i-- > m;) {
        quot[i - m] = prod[i];
        cz_fr_add(&prod[i - m], &prod[i - m], &prod[i]);
        prod[i] = cz_fr_zero;
    }
    int rem_zero = 1, equal = 1;
    for (size_t i = 0; i < m; i++) {
        if (!cz_fr_is_zero(&prod[i])) rem_zero = 0;
        if (!cz_fr_equal(&quot[i], &h[i])) equal = 0;
    }
    CHECK(rem_zero);
    CHECK(equal);
    CHECK(cz_fr_is_zero(&h[m - 1]));
    for (int p = 0; p < 3; p++) free(poly[p]);
    free(prod), free(quot), free(h);
    prove_data_free(&pd);
}

/* ---- verification helpers ---- */

static int verifies(const cz_groth16_vk *vk, const cz_groth16_proof *pr, const cz_fr *inputs,
                    size_t n) {
    int valid = -1;
    cz_error err;
    cz_status st = cz_groth16_verify(&valid, vk, pr, inputs, n, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) fprintf(stderr, "  verify: %s\n", err.message);
    return st == CZ_OK && valid == 1;
}

static int batch_verifies(const cz_groth16_vk *vk, const cz_groth16_proof *prs, size_t n,
                          const cz_fr *inputs, size_t ni) {
    int valid = -1;
    cz_error err;
    cz_status st = cz_groth16_verify_batch(&valid, vk, prs, n, inputs, ni, &err);
    CHECK(st == CZ_OK);
    return st == CZ_OK && valid == 1;
}

static void seed_bytes(uint8_t seed[32], uint8_t tag) {
    memset(seed, 0, 32);
    seed[0] = tag;
    cz_test_rand_bytes(seed + 1, 31);
}

/* The setup takes the pre-compiled circuit: the hand-built systems go
 * through cz_circuit_from_r1cs. */
static cz_status dev_setup(cz_groth16_params *out, const cz_r1cs *r,
                           const uint8_t seed[CZ_GROTH16_SEED_BYTES], cz_error *err) {
    cz_circuit *c = NULL;
    cz_status st = cz_circuit_from_r1cs(&c, r, err);
    if (st == CZ_OK) st = cz_groth16_dev_setup(out, c, seed, err);
    cz_circuit_free(c);
    return st;
}

/* setup (+ parameter check), prove with injected r, s (+ proof check),
 * verify, and the rejection cases. */
static void round_trip(const circuit *cs, size_t stride, int thorough, const char *name) {
    uint8_t seed[32];
    seed_bytes(seed, 1);
    cz_groth16_secrets secrets;
    cz_groth16_dev_secrets(&secrets, seed);
    cz_r1cs r1cs;
    to_r1cs(&r1cs, cs);
    cz_groth16_params params;
    cz_error err = {0};
    cz_status st = dev_setup(&params, &r1cs, seed, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: setup: %s\n", name, err.message);
        r1cs_free(&r1cs);
        return;
    }
    check_params(&params, cs, &secrets, stride);

    cz_prove_data pd;
    to_prove_data(&pd, cs);
    cz_fr r, s;
    random_fr(&r);
    random_fr(&s);
    cz_groth16_proof proof;
    st = cz_groth16_prove(&proof, &params, &pd, &r, &s, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) fprintf(stderr, "%s: prove: %s\n", name, err.message);
    check_proof_scalars(&proof, cs, &secrets, &r, &s);

    const cz_fr *inputs = cs->z + 1;
    size_t n_in = cs->ni - 1;
    CHECK(verifies(&params.vk, &proof, inputs, n_in));

    /* through the bytes */
    uint8_t bytes[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof back;
    cz_groth16_proof_encode(bytes, &proof);
    CHECK(cz_groth16_proof_decode(&back, bytes, &err) == CZ_OK);
    CHECK(verifies(&params.vk, &back, inputs, n_in));

    /* random r, s: another proof, also valid; the split form gives the same
     * proof as the one-shot form */
    cz_groth16_proof proof2 = proof, proof3 = proof;
    if (thorough) {
        CHECK(cz_groth16_prove(&proof2, &params, &pd, NULL, NULL, &err) == CZ_OK);
        CHECK(!cz_g1_affine_equal(&proof2.a, &proof.a));
        CHECK(verifies(&params.vk, &proof2, inputs, n_in));
        cz_groth16_msm_results msm;
        CHECK(cz_groth16_prove_start(&msm, &params, &pd, &err) == CZ_OK);
        CHECK(cz_groth16_prove_finalize(&proof3, &params.vk, &msm, &r, &s, &err) == CZ_OK);
        CHECK(cz_g1_affine_equal(&proof3.a, &proof.a) && cz_g2_affine_equal(&proof3.b, &proof.b) &&
              cz_g1_affine_equal(&proof3.c, &proof.c));
    }

    /* tampering */
    cz_g1 g1, t1;
    cz_g2 g2, t2;
    cz_g1_generator(&g1);
    cz_g2_generator(&g2);
    cz_groth16_proof bad = proof;
    cz_g1_from_affine(&t1, &bad.a), cz_g1_add(&t1, &t1, &g1), cz_g1_to_affine(&bad.a, &t1);
    CHECK(!verifies(&params.vk, &bad, inputs, n_in));
    bad = proof;
    cz_g2_from_affine(&t2, &bad.b), cz_g2_add(&t2, &t2, &g2), cz_g2_to_affine(&bad.b, &t2);
    CHECK(!verifies(&params.vk, &bad, inputs, n_in));
    bad = proof;
    cz_g1_from_affine(&t1, &bad.c), cz_g1_add(&t1, &t1, &g1), cz_g1_to_affine(&bad.c, &t1);
    CHECK(!verifies(&params.vk, &bad, inputs, n_in));
    bad = proof;
    bad.a = proof.c, bad.c = proof.a;
    CHECK(!verifies(&params.vk, &bad, inputs, n_in));
    bad = proof;
    cz_g1_affine_neg(&bad.a, &bad.a);
    CHECK(!verifies(&params.vk, &bad, inputs, n_in));
    /* a flipped bit in the bytes: refused by the decoder or the verifier */
    for (int trial = 0; trial < 6; trial++) {
        uint8_t flipped[CZ_GROTH16_PROOF_BYTES];
        memcpy(flipped, bytes, sizeof flipped);
        size_t at = 3 + (size_t)(cz_test_rand64() % (CZ_GROTH16_PROOF_BYTES - 3));
        if (at == 48 || at == 144) at++; /* keep clear of flag bytes */
        flipped[at] ^= (uint8_t)(1u << (cz_test_rand64() % 8));
        if (cz_groth16_proof_decode(&back, flipped, &err) == CZ_OK)
            CHECK(!verifies(&params.vk, &back, inputs, n_in));
    }
    /* wrong public inputs, each position */
    cz_fr *wrong = malloc((n_in ? n_in : 1) * sizeof *wrong);
    for (size_t i = 0; i < n_in; i++) {
        memcpy(wrong, inputs, n_in * sizeof *wrong);
        cz_fr_add(&wrong[i], &wrong[i], &cz_fr_one);
        CHECK(!verifies(&params.vk, &proof, wrong, n_in));
    }
    /* wrong input count */
    int valid = -1;
    CHECK(cz_groth16_verify(&valid, &params.vk, &proof, inputs, n_in + 1, &err) ==
              CZ_E_INVALID_ARG &&
          valid == 0 && strstr(err.message, "public inputs"));
    /* identity and off-group points in an in-memory proof */
    bad = proof;
    memset(&bad.c, 0, sizeof bad.c);
    CHECK(cz_groth16_verify(&valid, &params.vk, &bad, inputs, n_in, &err) == CZ_E_IDENTITY &&
          valid == 0);
    bad = proof;
    cz_fp_add(&bad.a.y, &bad.a.y, &cz_fp_one);
    CHECK(cz_groth16_verify(&valid, &params.vk, &bad, inputs, n_in, &err) == CZ_E_NOT_ON_CURVE);

    /* another key for the same circuit; batches */
    cz_fr *batch_inputs = malloc(3 * (n_in ? n_in : 1) * sizeof(cz_fr));
    for (int j = 0; j < 3; j++) memcpy(batch_inputs + j * n_in, inputs, n_in * sizeof(cz_fr));
    if (thorough) {
        uint8_t seed2[32];
        seed_bytes(seed2, 2);
        cz_groth16_params other;
        CHECK(dev_setup(&other, &r1cs, seed2, &err) == CZ_OK);
        CHECK(!verifies(&other.vk, &proof, inputs, n_in));
        cz_groth16_proof proof_other;
        CHECK(cz_groth16_prove(&proof_other, &other, &pd, NULL, NULL, &err) == CZ_OK);
        CHECK(verifies(&other.vk, &proof_other, inputs, n_in));
        CHECK(!verifies(&params.vk, &proof_other, inputs, n_in));

        /* batch: good proofs pass; one bad (another key's) fails the batch */
        cz_groth16_proof batch[3] = {proof, proof2, proof3};
        CHECK(batch_verifies(&params.vk, batch, 3, batch_inputs, n_in));
        batch[1] = proof_other;
        CHECK(!batch_verifies(&params.vk, batch, 3, batch_inputs, n_in));
        cz_groth16_params_free(&other);
    } else {
        /* the proof twice, then with a tampered copy */
        cz_groth16_proof batch[2] = {proof, proof};
        CHECK(batch_verifies(&params.vk, batch, 2, batch_inputs, n_in));
        cz_g1_from_affine(&t1, &batch[1].c), cz_g1_add(&t1, &t1, &g1);
        cz_g1_to_affine(&batch[1].c, &t1);
        CHECK(!batch_verifies(&params.vk, batch, 2, batch_inputs, n_in));
    }

    /* the same r1cs with a witness that breaks one constraint */
    circuit broken = *cs;
    broken.z = malloc((cs->ni + cs->na) * sizeof(cz_fr));
    memcpy(broken.z, cs->z, (cs->ni + cs->na) * sizeof(cz_fr));
    cz_fr_add(&broken.z[cs->ni + cs->na - 1], &broken.z[cs->ni + cs->na - 1], &cz_fr_one);
    CHECK(!satisfied(&broken));
    cz_prove_data pd_bad;
    to_prove_data(&pd_bad, &broken);
    st = cz_groth16_prove(&bad, &params, &pd_bad, NULL, NULL, &err);
    CHECK(st == CZ_E_INVALID_ARG && strstr(err.message, "does not satisfy"));
    prove_data_free(&pd_bad);
    free(broken.z);

    printf("%s: %zu constraints (domain %zu), %u inputs, %u aux; |a| %zu |b| %zu\n", name, cs->nc,
           params.n_h + 1, cs->ni, cs->na, params.n_a, params.n_b_g1);
    free(wrong);
    free(batch_inputs);
    prove_data_free(&pd);
    r1cs_free(&r1cs);
    cz_groth16_params_free(&params);
}

/* Batch of proofs with different public inputs (the cubic circuit for
 * x = 1..5), one proof bad in several ways. */
static void batch_different_inputs(void) {
    enum { N = 5 };
    circuit cs[N];
    cz_groth16_proof proofs[N];
    cz_fr ys[N];
    uint8_t seed[32];
    seed_bytes(seed, 3);
    cz_groth16_params params;
    cz_error err;
    for (int j = 0; j < N; j++) {
        cubic_circuit(&cs[j], 3 + (uint64_t)j * 1000);
        ys[j] = cs[j].z[1];
        if (j == 0) {
            cz_r1cs r1cs;
            to_r1cs(&r1cs, &cs[0]);
            CHECK(dev_setup(&params, &r1cs, seed, &err) == CZ_OK);
            r1cs_free(&r1cs);
        }
        cz_prove_data pd;
        to_prove_data(&pd, &cs[j]);
        CHECK(cz_groth16_prove(&proofs[j], &params, &pd, NULL, NULL, &err) == CZ_OK);
        prove_data_free(&pd);
        CHECK(verifies(&params.vk, &proofs[j], &ys[j], 1));
    }
    CHECK(batch_verifies(&params.vk, proofs, N, ys, 1));
    CHECK(batch_verifies(&params.vk, proofs, 1, ys, 1));
    CHECK(batch_verifies(&params.vk, proofs, 0, ys, 1));
    /* two inputs swapped */
    cz_fr swapped[N];
    memcpy(swapped, ys, sizeof swapped);
    swapped[1] = ys[3], swapped[3] = ys[1];
    CHECK(!batch_verifies(&params.vk, proofs, N, swapped, 1));
    /* one proof replaced by a proof of another statement */
    cz_groth16_proof mixed[N];
    memcpy(mixed, proofs, sizeof mixed);
    mixed[2] = proofs[4];
    CHECK(!batch_verifies(&params.vk, mixed, N, ys, 1));
    /* one proof tampered */
    memcpy(mixed, proofs, sizeof mixed);
    cz_g1 t, g;
    cz_g1_generator(&g);
    cz_g1_from_affine(&t, &mixed[4].c), cz_g1_add(&t, &t, &g), cz_g1_to_affine(&mixed[4].c, &t);
    CHECK(!batch_verifies(&params.vk, mixed, N, ys, 1));
    /* the same proof twice with its statement: fine; the identity: refused */
    memcpy(mixed, proofs, sizeof mixed);
    memset(&mixed[3].b, 0, sizeof mixed[3].b);
    int valid = -1;
    CHECK(cz_groth16_verify_batch(&valid, &params.vk, mixed, N, ys, 1, &err) == CZ_E_IDENTITY &&
          valid == 0 && strstr(err.message, "proofs[3]"));
    CHECK(cz_groth16_verify_batch(&valid, &params.vk, proofs, N, ys, 2, &err) == CZ_E_INVALID_ARG);

    /* params of another circuit are refused by the prover with a message */
    circuit other;
    random_circuit(&other, 2, 6, 10);
    cz_prove_data pd;
    to_prove_data(&pd, &other);
    cz_groth16_proof pr;
    CHECK(cz_groth16_prove(&pr, &params, &pd, NULL, NULL, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "params."));
    prove_data_free(&pd);
    circuit_free(&other);

    for (int j = 0; j < N; j++) circuit_free(&cs[j]);
    cz_groth16_params_free(&params);
}

/* The setup refuses an unconstrained aux variable (bellperson's
 * UnconstrainedVariable), densities that disagree with the matrices and
 * entries out of range (a cz_circuit's arrays edited in place: the
 * conversion from a cz_r1cs would refuse them itself). */
static void setup_refusals(void) {
    circuit cs;
    cubic_circuit(&cs, 7);
    cz_r1cs r1cs;
    to_r1cs(&r1cs, &cs);
    uint8_t seed[32];
    seed_bytes(seed, 4);
    cz_groth16_params p;
    cz_error err;
    r1cs.num_aux = 4; /* aux 3 occurs nowhere */
    free(r1cs.a_aux_density), free(r1cs.b_aux_density);
    r1cs.a_aux_density = calloc(1, 8), r1cs.b_aux_density = calloc(1, 8);
    r1cs.a_aux_density[0] = 0x7; /* x, x^2, x^3 occur in A */
    r1cs.b_aux_density[0] = 0x1;
    CHECK(dev_setup(&p, &r1cs, seed, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "aux 3 is unconstrained") && p.h == NULL);
    r1cs.num_aux = 3;
    cz_circuit *c = NULL;
    CHECK(cz_circuit_from_r1cs(&c, &r1cs, &err) == CZ_OK);
    if (!c) return;
    uint64_t *b_aux = (uint64_t *)c->b_aux_density; /* the circuit's own heap copy */
    b_aux[0] = 0x3;                                 /* claims x^2 occurs in B: it does not */
    CHECK(cz_groth16_dev_setup(&p, c, seed, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "aux 1: B(tau) = 0 but b_aux_density says 1"));
    b_aux[0] = 0x1;
    CHECK(cz_groth16_dev_setup(&p, c, seed, &err) == CZ_OK);
    cz_groth16_params_free(&p);
    uint32_t *c_col = (uint32_t *)c->m[2].col;
    c_col[0] = 9; /* out of range */
    CHECK(cz_groth16_dev_setup(&p, c, seed, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "matrix C: entry 0 has column 9"));
    c_col[0] = r1cs.c.col[0];
    uint16_t *b_coef = (uint16_t *)c->m[1].coef;
    CHECK(c->coef_bytes == 2);
    b_coef[0] = (uint16_t)c->num_coeffs; /* past the table */
    CHECK(cz_groth16_dev_setup(&p, c, seed, &err) == CZ_E_INVALID_ARG &&
          strstr(err.message, "matrix B: entry 0 has coefficient index"));
    cz_circuit_free(c);
    r1cs_free(&r1cs);
    circuit_free(&cs);
}

/* ---- the same circuit through the r1cs back-ends ---- */

static void synth_cubic(cz_cs *cs, uint64_t x_value) {
    cz_fr x, x2, x3, y, five;
    cubic_values(&x, &x2, &x3, &y, x_value);
    fr_u64(&five, 5);
    int w = cz_cs_has_witness(cs);
    cz_var Y = cz_cs_alloc_input(cs, w ? &y : NULL);
    cz_var X = cz_cs_alloc(cs, w ? &x : NULL);
    cz_var X2 = cz_cs_alloc(cs, w ? &x2 : NULL);
    cz_var X3 = cz_cs_alloc(cs, w ? &x3 : NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    cz_lc_add_var(&a, X), cz_lc_add_var(&b, X), cz_lc_add_var(&c, X2);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&a, X2), cz_lc_add_var(&b, X), cz_lc_add_var(&c, X3);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&a, X3), cz_lc_add_var(&a, X), cz_lc_add(&a, CZ_VAR_ONE, &five);
    cz_lc_add_var(&b, CZ_VAR_ONE), cz_lc_add_var(&c, Y);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

/* A longer chain: x_{i+1} = x_i (x_i + i ONE) + (i odd ? y : 0), the last x public. */
static void synth_chain(cz_cs *cs, uint32_t len, uint64_t seed_value) {
    int w = cz_cs_has_witness(cs);
    cz_fr x, y;
    fr_u64(&x, seed_value);
    fr_u64(&y, seed_value * 7 + 1);
    cz_var X = cz_cs_alloc(cs, w ? &x : NULL);
    cz_var Y = cz_cs_alloc(cs, w ? &y : NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    for (uint32_t i = 0; i < len; i++) {
        cz_fr ic, next;
        fr_u64(&ic, i);
        cz_fr_add(&next, &x, &ic);
        cz_fr_mul(&next, &next, &x);
        if (i & 1) cz_fr_add(&next, &next, &y);
        cz_var N = i + 1 == len ? cz_cs_alloc_input(cs, w ? &next : NULL)
                                : cz_cs_alloc(cs, w ? &next : NULL);
        cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
        cz_lc_add_var(&a, X);
        cz_lc_add_var(&b, X), cz_lc_add(&b, CZ_VAR_ONE, &ic);
        cz_lc_add_var(&c, N);
        if (i & 1) cz_lc_sub_var(&c, Y);
        cz_cs_enforce(cs, &a, &b, &c);
        X = N;
        x = next;
    }
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

static int params_equal(const cz_groth16_params *p, const cz_groth16_params *q) {
    if (p->vk.n_ic != q->vk.n_ic || p->n_h != q->n_h || p->n_l != q->n_l || p->n_a != q->n_a ||
        p->n_b_g1 != q->n_b_g1)
        return 0;
    size_t a = cz_groth16_vk_encoded_size(&p->vk);
    uint8_t *x = malloc(a), *y = malloc(a);
    cz_groth16_vk_encode(x, &p->vk, NULL);
    cz_groth16_vk_encode(y, &q->vk, NULL);
    int eq = memcmp(x, y, a) == 0;
    free(x), free(y);
    return eq && memcmp(p->h, q->h, p->n_h * sizeof *p->h) == 0 &&
           memcmp(p->l, q->l, p->n_l * sizeof *p->l) == 0 &&
           memcmp(p->a, q->a, p->n_a * sizeof *p->a) == 0 &&
           memcmp(p->b_g1, q->b_g1, p->n_b_g1 * sizeof *p->b_g1) == 0 &&
           memcmp(p->b_g2, q->b_g2, p->n_b_g2 * sizeof *p->b_g2) == 0;
}

static void through_backends(void) {
    cz_error err;
    uint8_t seed[32];
    seed_bytes(seed, 5);

    /* cubic: the recorded matrices give the same key as the hand-built ones */
    cz_cs *rec = cz_cs_record_new();
    synth_cubic(rec, 0);
    cz_r1cs r1cs;
    CHECK(cz_cs_status(rec) == CZ_OK && cz_record_finish(rec, &r1cs, &err) == CZ_OK);
    cz_cs_destroy(rec);
    CHECK(r1cs.num_inputs == 2 && r1cs.num_aux == 3 && r1cs.num_constraints == 5);
    circuit hand;
    cubic_circuit(&hand, 11);
    cz_r1cs hand_r1cs;
    to_r1cs(&hand_r1cs, &hand);
    cz_groth16_params p1, p2;
    CHECK(dev_setup(&p1, &r1cs, seed, &err) == CZ_OK);
    CHECK(dev_setup(&p2, &hand_r1cs, seed, &err) == CZ_OK);
    CHECK(params_equal(&p1, &p2));
    cz_cs *pcs = cz_cs_prove_new();
    synth_cubic(pcs, 11);
    cz_prove_data pd;
    CHECK(cz_cs_status(pcs) == CZ_OK && cz_prove_finish(pcs, &pd, &err) == CZ_OK);
    cz_cs_destroy(pcs);
    cz_groth16_proof proof;
    CHECK(cz_groth16_prove(&proof, &p1, &pd, NULL, NULL, &err) == CZ_OK);
    CHECK(verifies(&p1.vk, &proof, &hand.z[1], 1));
    cz_prove_data_free(&pd);
    cz_groth16_params_free(&p1);
    cz_groth16_params_free(&p2);
    r1cs_free(&hand_r1cs);
    circuit_free(&hand);
    cz_r1cs_free(&r1cs);

    /* a chain of 1500 constraints, two witnesses, batch-verified */
    const uint32_t len = 1500;
    rec = cz_cs_record_new();
    synth_chain(rec, len, 0);
    CHECK(cz_cs_status(rec) == CZ_OK && cz_record_finish(rec, &r1cs, &err) == CZ_OK);
    cz_cs_destroy(rec);
    cz_groth16_params params;
    cz_status st = dev_setup(&params, &r1cs, seed, &err);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) fprintf(stderr, "chain setup: %s\n", err.message);
    cz_groth16_proof proofs[2];
    cz_fr outs[2];
    for (int j = 0; j < 2 && st == CZ_OK; j++) {
        pcs = cz_cs_prove_new();
        synth_chain(pcs, len, 3 + (uint64_t)j);
        CHECK(cz_cs_status(pcs) == CZ_OK && cz_prove_finish(pcs, &pd, &err) == CZ_OK);
        cz_cs_destroy(pcs);
        CHECK(pd.num_constraints == len + 2 && pd.num_inputs == 2);
        outs[j] = pd.input_assignment[1];
        CHECK(cz_groth16_prove(&proofs[j], &params, &pd, NULL, NULL, &err) == CZ_OK);
        CHECK(verifies(&params.vk, &proofs[j], &outs[j], 1));
        cz_prove_data_free(&pd);
    }
    if (st == CZ_OK) {
        CHECK(batch_verifies(&params.vk, proofs, 2, outs, 1));
        cz_fr swapped[2] = {outs[1], outs[0]};
        CHECK(!batch_verifies(&params.vk, proofs, 2, swapped, 1));
        printf("back-ends: cubic and a %u-constraint chain proved and verified\n", len);
    }
    cz_groth16_params_free(&params);
    cz_r1cs_free(&r1cs);
}

/* The prover polls the calling thread's cancel flag between its steps
 * (util/cancel.h): set, it stops with CZ_E_CANCELLED before any step;
 * cleared, or no longer the thread's flag, it proves. */
static void cancel_between_steps(void) {
    circuit cs;
    cubic_circuit(&cs, 11);
    cz_r1cs r1cs;
    to_r1cs(&r1cs, &cs);
    uint8_t seed[32];
    seed_bytes(seed, 5);
    cz_groth16_params p;
    cz_error err = {0};
    CHECK(dev_setup(&p, &r1cs, seed, &err) == CZ_OK);
    cz_prove_data pd;
    to_prove_data(&pd, &cs);
    atomic_int flag = 1;
    cz_groth16_msm_results msm;
    cz_cancel_set_flag(&flag);
    CHECK(cz_groth16_prove_start(&msm, &p, &pd, &err) == CZ_E_CANCELLED);
    CHECK(strstr(err.message, "cancelled before the H polynomial") != NULL);
    atomic_store(&flag, 0);
    CHECK(cz_groth16_prove_start(&msm, &p, &pd, &err) == CZ_OK);
    cz_cancel_set_flag(NULL);
    atomic_store(&flag, 1); /* no longer this thread's flag */
    CHECK(cz_groth16_prove_start(&msm, &p, &pd, &err) == CZ_OK);
    cz_groth16_proof proof;
    CHECK(cz_groth16_prove_finalize(&proof, &p.vk, &msm, NULL, NULL, &err) == CZ_OK);
    CHECK(verifies(&p.vk, &proof, &cs.z[1], 1));
    prove_data_free(&pd);
    cz_groth16_params_free(&p);
    r1cs_free(&r1cs);
    circuit_free(&cs);
}

/* Preemption (util/cancel.h): at every step boundary of one proof a hook
 * proves another circuit's unit to the end on the same thread, as the
 * engine does for a waiting WinningPoSt. The interrupted proof's sums are
 * the same group elements as uninterrupted, and so are the inner ones. */
typedef struct {
    const cz_groth16_params *p;
    const cz_prove_data *pd;
    cz_groth16_msm_results msm;
    int runs, failures;
} inner_unit;

static void run_inner(void *ctx) {
    inner_unit *u = ctx;
    cz_error err = {0};
    if (cz_groth16_prove_start(&u->msm, u->p, u->pd, &err) != CZ_OK) u->failures++;
    u->runs++;
}

static int msm_equal(const cz_groth16_msm_results *x, const cz_groth16_msm_results *y) {
    return cz_g1_equal(&x->h, &y->h) && cz_g1_equal(&x->l, &y->l) && cz_g1_equal(&x->a, &y->a) &&
           cz_g1_equal(&x->b_g1, &y->b_g1) && cz_g2_equal(&x->b_g2, &y->b_g2);
}

static void preempted_at_boundaries(void) {
    circuit outer_cs, inner_cs;
    random_circuit(&outer_cs, 3, 300, 400);
    cubic_circuit(&inner_cs, 7);
    cz_r1cs r_outer, r_inner;
    to_r1cs(&r_outer, &outer_cs);
    to_r1cs(&r_inner, &inner_cs);
    uint8_t seed[32];
    seed_bytes(seed, 9);
    cz_groth16_params p_outer, p_inner;
    cz_error err = {0};
    CHECK(dev_setup(&p_outer, &r_outer, seed, &err) == CZ_OK);
    CHECK(dev_setup(&p_inner, &r_inner, seed, &err) == CZ_OK);
    cz_prove_data pd_outer, pd_inner;
    to_prove_data(&pd_outer, &outer_cs);
    to_prove_data(&pd_inner, &inner_cs);
    cz_groth16_msm_results alone, inner_alone, interrupted;
    CHECK(cz_groth16_prove_start(&alone, &p_outer, &pd_outer, &err) == CZ_OK);
    CHECK(cz_groth16_prove_start(&inner_alone, &p_inner, &pd_inner, &err) == CZ_OK);
    inner_unit u;
    memset(&u, 0, sizeof u);
    u.p = &p_inner, u.pd = &pd_inner;
    cz_boundary_set_hook(run_inner, &u);
    CHECK(cz_groth16_prove_start(&interrupted, &p_outer, &pd_outer, &err) == CZ_OK);
    cz_boundary_set_hook(NULL, NULL);
    /* a boundary before the H polynomial and before each of the five MSMs;
     * the inner proof met none of its own (the hook is unset inside) */
    CHECK(u.runs == 6 && u.failures == 0);
    CHECK(msm_equal(&alone, &interrupted));
    CHECK(msm_equal(&inner_alone, &u.msm));
    cz_groth16_proof proof;
    CHECK(cz_groth16_prove_finalize(&proof, &p_outer.vk, &interrupted, NULL, NULL, &err) == CZ_OK);
    CHECK(verifies(&p_outer.vk, &proof, &outer_cs.z[1], outer_cs.ni - 1));
    prove_data_free(&pd_outer);
    prove_data_free(&pd_inner);
    cz_groth16_params_free(&p_outer);
    cz_groth16_params_free(&p_inner);
    r1cs_free(&r_outer);
    r1cs_free(&r_inner);
    circuit_free(&outer_cs);
    circuit_free(&inner_cs);
}

int main(void) {
    cz_test_init("groth16/prove");
    cancel_between_steps();
    preempted_at_boundaries();

    circuit cs;
    cubic_circuit(&cs, 3);
    CHECK(satisfied(&cs));
    check_h_naive(&cs);
    round_trip(&cs, 1, 1, "cubic");
    circuit_free(&cs);

    random_circuit(&cs, 4, 12, 20);
    CHECK(satisfied(&cs));
    check_h_naive(&cs);
    round_trip(&cs, 1, 1, "random small");
    circuit_free(&cs);

    random_circuit(&cs, 1, 40, 100); /* ONE is the only input */
    CHECK(satisfied(&cs));
    round_trip(&cs, 1, 1, "random, no public input");
    circuit_free(&cs);

    random_circuit(&cs, 6, 2500, 3000);
    CHECK(satisfied(&cs));
    round_trip(&cs, 97, 0, "random 3000");
    circuit_free(&cs);

    batch_different_inputs();
    setup_refusals();
    through_backends();
    return cz_test_finish("groth16/prove");
}
