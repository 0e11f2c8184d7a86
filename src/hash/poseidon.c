/* Poseidon (neptune, Standard strength): see poseidon.h. */
#include "hash/poseidon.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- round numbers ---- */

static const unsigned supported_arities[] = {2, 4, 8, 11, 16, 24, 36};
#define NUM_ARITIES (sizeof supported_arities / sizeof supported_arities[0])

/* neptune's calc_round_numbers (256-bit prime, M = 128, +2 full rounds,
 * partial rounds x 1.075 rounded up), tabulated. */
static const unsigned partial_rounds_by_arity[] = {55, 56, 57, 57, 59, 59, 60};

static int arity_slot(unsigned arity) {
    for (unsigned i = 0; i < NUM_ARITIES; i++)
        if (supported_arities[i] == arity) return (int)i;
    return -1;
}

int cz_poseidon_arity_supported(unsigned arity) {
    return arity_slot(arity) >= 0;
}

unsigned cz_poseidon_partial_rounds(unsigned arity) {
    int s = arity_slot(arity);
    return s < 0 ? 0 : partial_rounds_by_arity[s];
}

/* ---- Grain LFSR (neptune round_constants.rs) ---- */

/* 80-bit state as a ring: bits[(head + k) % 80] is b_{i+k}. */
typedef struct {
    uint8_t bits[80];
    unsigned head;
} grain_lfsr;

/* b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i;
 * the new bit replaces b_i. */
static unsigned grain_step(grain_lfsr *g) {
    unsigned h = g->head;
    uint8_t b = g->bits[(h + 62) % 80] ^ g->bits[(h + 51) % 80] ^ g->bits[(h + 38) % 80] ^
                g->bits[(h + 23) % 80] ^ g->bits[(h + 13) % 80] ^ g->bits[h];
    g->bits[h] = b;
    g->head = (h + 1) % 80;
    return b;
}

/* Self-shrinking output: pairs (x, y), y kept when x = 1. */
static unsigned grain_bit(grain_lfsr *g) {
    for (;;) {
        unsigned x = grain_step(g);
        unsigned y = grain_step(g);
        if (x) return y;
    }
}

static void grain_push(grain_lfsr *g, unsigned *pos, unsigned nbits, uint64_t value) {
    for (unsigned i = nbits; i-- > 0;) g->bits[(*pos)++] = (uint8_t)((value >> i) & 1);
}

void cz_poseidon_grain_constants(cz_fr *out, unsigned t, unsigned rf, unsigned rp) {
    grain_lfsr g;
    unsigned pos = 0;
    g.head = 0;
    grain_push(&g, &pos, 2, 1);    /* field: prime field */
    grain_push(&g, &pos, 4, 1);    /* sbox: neptune's value */
    grain_push(&g, &pos, 12, 255); /* n = Fr::NUM_BITS */
    grain_push(&g, &pos, 12, t);
    grain_push(&g, &pos, 10, rf);
    grain_push(&g, &pos, 10, rp);
    grain_push(&g, &pos, 30, (1u << 30) - 1);
    for (unsigned i = 0; i < 160; i++) grain_step(&g);
    size_t n = (size_t)(rf + rp) * t;
    for (size_t k = 0; k < n;) {
        /* 255 bits, most significant first; rejected when >= r */
        uint64_t limbs[CZ_FR_LIMBS] = {0, 0, 0, 0};
        for (unsigned i = 0; i < 255; i++) {
            limbs[3] = (limbs[3] << 1) | (limbs[2] >> 63);
            limbs[2] = (limbs[2] << 1) | (limbs[1] >> 63);
            limbs[1] = (limbs[1] << 1) | (limbs[0] >> 63);
            limbs[0] = (limbs[0] << 1) | grain_bit(&g);
        }
        if (cz_fr_from_limbs(&out[k], limbs)) k++;
    }
}

/* ---- small dense linear algebra over Fr (t <= 37, variable time: public data) ---- */

/* r = a * b, all n x n; r must not alias a or b. */
static void mat_mul(cz_fr *r, const cz_fr *a, const cz_fr *b, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            cz_fr acc = cz_fr_zero, t;
            for (unsigned k = 0; k < n; k++) {
                cz_fr_mul(&t, &a[i * n + k], &b[k * n + j]);
                cz_fr_add(&acc, &acc, &t);
            }
            r[i * n + j] = acc;
        }
}

/* r = m * v (column vector); r must not alias v. */
static void mat_vec(cz_fr *r, const cz_fr *m, const cz_fr *v, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        cz_fr acc = cz_fr_zero, t;
        for (unsigned k = 0; k < n; k++) {
            cz_fr_mul(&t, &m[i * n + k], &v[k]);
            cz_fr_add(&acc, &acc, &t);
        }
        r[i] = acc;
    }
}

/* Gauss-Jordan on the n x cols augmented matrix a (row-major): reduces the
 * left n x n block to the identity. Returns 0 when it is singular. */
static int gauss_jordan(cz_fr *a, unsigned n, unsigned cols) {
    for (unsigned c = 0; c < n; c++) {
        unsigned piv = c;
        while (piv < n && cz_fr_is_zero(&a[piv * cols + c])) piv++;
        if (piv == n) return 0;
        if (piv != c)
            for (unsigned j = 0; j < cols; j++) {
                cz_fr t = a[c * cols + j];
                a[c * cols + j] = a[piv * cols + j];
                a[piv * cols + j] = t;
            }
        cz_fr inv;
        cz_fr_inv_var(&inv, &a[c * cols + c]);
        for (unsigned j = 0; j < cols; j++) cz_fr_mul(&a[c * cols + j], &a[c * cols + j], &inv);
        for (unsigned r = 0; r < n; r++) {
            if (r == c || cz_fr_is_zero(&a[r * cols + c])) continue;
            cz_fr f = a[r * cols + c], t;
            for (unsigned j = 0; j < cols; j++) {
                cz_fr_mul(&t, &f, &a[c * cols + j]);
                cz_fr_sub(&a[r * cols + j], &a[r * cols + j], &t);
            }
        }
    }
    return 1;
}

/* ---- parameter generation ---- */

typedef struct {
    cz_poseidon_params p;
    cz_fr data[]; /* every array of p, in one block */
} params_block;

/* The optimized form (neptune preprocessing.rs and mds.rs).
 * rc: round constants, m / minv: MDS and inverse. */
static void compress_constants(cz_fr *out, const cz_fr *rc, const cz_fr *minv, unsigned t,
                               unsigned rf, unsigned rp, cz_fr *scratch /* 2 t */) {
    unsigned h = rf / 2;
    cz_fr *acc = scratch, *v = scratch + t;
    size_t k = 0;
    memcpy(out, rc, t * sizeof *out); /* rk(0) */
    k += t;
    for (unsigned j = 1; j < h; j++, k += t) mat_vec(&out[k], minv, &rc[j * t], t);
    /* Partial block: walk the partial rounds backwards, pushing every constant
     * but element 0 through M^-1 into the round before. */
    cz_fr *partial_keys = &out[k + t]; /* p_i, stored reversed */
    memcpy(acc, &rc[(size_t)(h + rp) * t], t * sizeof *acc);
    for (unsigned i = 0; i < rp; i++) {
        mat_vec(v, minv, acc, t);
        partial_keys[rp - 1 - i] = v[0];
        v[0] = cz_fr_zero;
        const cz_fr *prev = &rc[(size_t)(h + rp - 1 - i) * t];
        for (unsigned j = 0; j < t; j++) cz_fr_add(&acc[j], &prev[j], &v[j]);
    }
    mat_vec(&out[k], minv, acc, t);
    k += t + rp;
    for (unsigned j = 1; j < h; j++, k += t)
        mat_vec(&out[k], minv, &rc[(size_t)(h + rp + j) * t], t);
}

/* Sparse factorization: cur = M; RP times: record M''(cur), cur = M * M'(cur);
 * then pre_sparse = cur and the list is reversed. Returns 0 on a singular
 * minor (cannot happen for a Cauchy MDS matrix) or no memory. */
static int sparse_factor(cz_fr *pre_sparse, cz_fr *w_hat, cz_fr *v_rest, const cz_fr *m, unsigned t,
                         unsigned rp) {
    unsigned n = t - 1;
    cz_fr *cur = malloc(sizeof(cz_fr) * ((size_t)3 * t * t + (size_t)n * (n + 1)));
    if (!cur) return 0;
    cz_fr *mp = cur + t * t, *next = mp + t * t, *aug = next + t * t;
    int ok = 1;
    memcpy(cur, m, sizeof(cz_fr) * t * t);
    for (unsigned r = 0; r < rp && ok; r++) {
        unsigned slot = rp - 1 - r; /* the list is reversed */
        /* w_hat = [cur[0][0], minor(cur)^-1 * cur[1..][0]], solved as minor * x = w */
        for (unsigned i = 0; i < n; i++) {
            for (unsigned j = 0; j < n; j++) aug[i * (n + 1) + j] = cur[(i + 1) * t + j + 1];
            aug[i * (n + 1) + n] = cur[(i + 1) * t];
        }
        ok = gauss_jordan(aug, n, n + 1);
        w_hat[(size_t)slot * t] = cur[0];
        for (unsigned i = 0; i < n; i++) w_hat[(size_t)slot * t + 1 + i] = aug[i * (n + 1) + n];
        for (unsigned j = 1; j < t; j++) v_rest[(size_t)slot * n + j - 1] = cur[j];
        /* M'(cur): identity in row / column 0, cur's lower-right block elsewhere */
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++)
                mp[i * t + j] =
                    (i == 0 || j == 0) ? (i == j ? cz_fr_one : cz_fr_zero) : cur[i * t + j];
        mat_mul(next, m, mp, t);
        memcpy(cur, next, sizeof(cz_fr) * t * t);
    }
    memcpy(pre_sparse, cur, sizeof(cz_fr) * t * t);
    free(cur);
    return ok;
}

static const cz_poseidon_params *params_generate(unsigned arity) {
    unsigned t = arity + 1, rf = CZ_POSEIDON_FULL_ROUNDS, rp = cz_poseidon_partial_rounds(arity);
    size_t n_rc = (size_t)(rf + rp) * t, n_mat = (size_t)t * t, n_crc = (size_t)t * rf + rp;
    size_t total = n_rc + 3 * n_mat + n_crc + (size_t)rp * t + (size_t)rp * (t - 1);
    params_block *b = malloc(sizeof *b + total * sizeof(cz_fr));
    cz_fr *aug = malloc(sizeof(cz_fr) * 2 * n_mat);
    if (!b || !aug) goto fail;
    cz_fr *rc = b->data, *m = rc + n_rc, *minv = m + n_mat, *crc = minv + n_mat;
    cz_fr *pre = crc + n_crc, *w_hat = pre + n_mat, *v_rest = w_hat + (size_t)rp * t;

    cz_poseidon_grain_constants(rc, t, rf, rp);
    /* Cauchy MDS: M[i][j] = (i + (t + j))^-1 */
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            cz_fr x;
            cz_fr_from_u64(&x, (uint64_t)i + t + j);
            cz_fr_inv_var(&m[i * t + j], &x);
        }
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < 2 * t; j++)
            aug[i * 2 * t + j] = j < t ? m[i * t + j] : (j - t == i ? cz_fr_one : cz_fr_zero);
    if (!gauss_jordan(aug, t, 2 * t)) goto fail;
    for (unsigned i = 0; i < t; i++) memcpy(&minv[i * t], &aug[i * 2 * t + t], t * sizeof(cz_fr));

    compress_constants(crc, rc, minv, t, rf, rp, aug);
    if (!sparse_factor(pre, w_hat, v_rest, m, t, rp)) goto fail;
    free(aug);

    b->p.arity = arity;
    b->p.width = t;
    b->p.full_rounds = rf;
    b->p.partial_rounds = rp;
    uint64_t tag_limbs[CZ_FR_LIMBS] = {arity < 64 ? (1ULL << arity) - 1 : 0, 0, 0, 0};
    cz_fr_from_limbs(&b->p.merkle_tag, tag_limbs);
    b->p.round_consts = rc;
    b->p.mds = m;
    b->p.mds_inv = minv;
    b->p.compressed = crc;
    b->p.pre_sparse = pre;
    b->p.sparse_w_hat = w_hat;
    b->p.sparse_v_rest = v_rest;
    return &b->p;
fail:
    free(aug);
    free(b);
    return NULL;
}

static _Atomic(const cz_poseidon_params *) params_table[NUM_ARITIES];
static pthread_mutex_t params_lock = PTHREAD_MUTEX_INITIALIZER;

const cz_poseidon_params *cz_poseidon_params_get(unsigned arity) {
    int s = arity_slot(arity);
    if (s < 0) return NULL;
    const cz_poseidon_params *p = atomic_load_explicit(&params_table[s], memory_order_acquire);
    if (p) return p;
    pthread_mutex_lock(&params_lock);
    p = atomic_load_explicit(&params_table[s], memory_order_relaxed);
    if (!p) {
        p = params_generate(arity);
        if (p) atomic_store_explicit(&params_table[s], p, memory_order_release);
    }
    pthread_mutex_unlock(&params_lock);
    return p;
}

cz_status cz_poseidon_init(void) {
    for (unsigned i = 0; i < NUM_ARITIES; i++)
        if (!cz_poseidon_params_get(supported_arities[i])) return CZ_E_NOMEM;
    return CZ_OK;
}

/* ---- permutations ---- */

static void sbox(cz_fr *x) {
    cz_fr x2, x4;
    cz_fr_sqr(&x2, x);
    cz_fr_sqr(&x4, &x2);
    cz_fr_mul(x, &x4, x);
}

/* s = s * m as a row vector: new[j] = sum_i s[i] m[i][j]. */
static void row_times(cz_fr *s, const cz_fr *m, unsigned t) {
    cz_fr r[CZ_POSEIDON_MAX_WIDTH], tmp;
    for (unsigned j = 0; j < t; j++) {
        r[j] = cz_fr_zero;
        for (unsigned i = 0; i < t; i++) {
            cz_fr_mul(&tmp, &s[i], &m[i * t + j]);
            cz_fr_add(&r[j], &r[j], &tmp);
        }
    }
    memcpy(s, r, t * sizeof *s);
}

void cz_poseidon_permute_ref(const cz_poseidon_params *p, cz_fr *state) {
    unsigned t = p->width, h = p->full_rounds / 2, rounds = p->full_rounds + p->partial_rounds;
    cz_fr r[CZ_POSEIDON_MAX_WIDTH], tmp;
    for (unsigned round = 0; round < rounds; round++) {
        int full = round < h || round >= h + p->partial_rounds;
        for (unsigned i = 0; i < t; i++)
            cz_fr_add(&state[i], &state[i], &p->round_consts[(size_t)round * t + i]);
        for (unsigned i = 0; i < (full ? t : 1); i++) sbox(&state[i]);
        /* state = M * state (column vector) */
        for (unsigned i = 0; i < t; i++) {
            r[i] = cz_fr_zero;
            for (unsigned j = 0; j < t; j++) {
                cz_fr_mul(&tmp, &p->mds[i * t + j], &state[j]);
                cz_fr_add(&r[i], &r[i], &tmp);
            }
        }
        memcpy(state, r, t * sizeof *state);
    }
}

void cz_poseidon_permute_opt(const cz_poseidon_params *p, cz_fr *s) {
    unsigned t = p->width, h = p->full_rounds / 2, rp = p->partial_rounds;
    const cz_fr *crc = p->compressed;
    cz_fr tmp;
    size_t off = 0;
    /* round 0: pre-add and post-add constants */
    for (unsigned i = 0; i < t; i++) {
        cz_fr_add(&s[i], &s[i], &crc[i]);
        sbox(&s[i]);
        cz_fr_add(&s[i], &s[i], &crc[t + i]);
    }
    off = 2 * t;
    unsigned round = 0;
    for (;;) {
        /* the matrix step after `round` */
        if (round == h - 1) {
            row_times(s, p->pre_sparse, t);
        } else if (round > h - 1 && round < h + rp) {
            const cz_fr *w = &p->sparse_w_hat[(size_t)(round - h) * t];
            const cz_fr *v = &p->sparse_v_rest[(size_t)(round - h) * (t - 1)];
            cz_fr s0 = s[0], acc = cz_fr_zero;
            for (unsigned i = 0; i < t; i++) {
                cz_fr_mul(&tmp, &s[i], &w[i]);
                cz_fr_add(&acc, &acc, &tmp);
            }
            for (unsigned k = 1; k < t; k++) {
                cz_fr_mul(&tmp, &s0, &v[k - 1]);
                cz_fr_add(&s[k], &s[k], &tmp);
            }
            s[0] = acc;
        } else {
            row_times(s, p->mds, t);
        }
        round++;
        if (round == p->full_rounds + rp) break;
        if (round >= h && round < h + rp) { /* partial */
            sbox(&s[0]);
            cz_fr_add(&s[0], &s[0], &crc[off++]);
        } else if (round + 1 < p->full_rounds + rp) { /* full, with post constants */
            for (unsigned i = 0; i < t; i++) {
                sbox(&s[i]);
                cz_fr_add(&s[i], &s[i], &crc[off + i]);
            }
            off += t;
        } else { /* the terminal round: no constant */
            for (unsigned i = 0; i < t; i++) sbox(&s[i]);
        }
    }
}

/* ---- hashes ---- */

cz_status cz_poseidon_hash_tag(cz_fr *out, const cz_fr *in, unsigned arity, const cz_fr *tag) {
    if (!cz_poseidon_arity_supported(arity)) return CZ_E_INVALID_ARG;
    const cz_poseidon_params *p = cz_poseidon_params_get(arity);
    if (!p) return CZ_E_NOMEM;
    cz_fr state[CZ_POSEIDON_MAX_WIDTH];
    state[0] = *tag;
    memcpy(&state[1], in, arity * sizeof *in);
    cz_poseidon_permute_opt(p, state);
    *out = state[1];
    return CZ_OK;
}

cz_status cz_poseidon_hash(cz_fr *out, const cz_fr *in, unsigned arity) {
    if (!cz_poseidon_arity_supported(arity)) return CZ_E_INVALID_ARG;
    const cz_poseidon_params *p = cz_poseidon_params_get(arity);
    if (!p) return CZ_E_NOMEM;
    return cz_poseidon_hash_tag(out, in, arity, &p->merkle_tag);
}

cz_status cz_poseidon_hash_md(cz_fr *out, const cz_fr *in, size_t n) {
    if (n < 2) return CZ_E_INVALID_ARG;
    const unsigned chunk = CZ_POSEIDON_MD_ARITY - 1;
    cz_fr pre[CZ_POSEIDON_MD_ARITY], acc = in[0];
    for (size_t start = 1; start < n; start += chunk) {
        size_t len = n - start < chunk ? n - start : chunk;
        pre[0] = acc;
        memcpy(&pre[1], &in[start], len * sizeof *in);
        for (size_t j = 1 + len; j < CZ_POSEIDON_MD_ARITY; j++) pre[j] = cz_fr_zero;
        cz_status st = cz_poseidon_hash(&acc, pre, CZ_POSEIDON_MD_ARITY);
        if (st != CZ_OK) return st;
    }
    *out = acc;
    return CZ_OK;
}
