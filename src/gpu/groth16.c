/* The Groth16 heavy part on the device, with the CPU prover's definitions
 * (groth16/prover.h):
 *   h    = sum_{i < m-1} H_i h[i], H from the H chain on the device:
 *          iNTT (NR) of a, b, c; coset NTT (RN) of each; a = (a b - c) / Z;
 *          coset iNTT (NN) -> coefficients in natural order (bellperson's
 *          execute_fft; the scalars stay on the device for the H MSM);
 *   l    = sum_v aux_v l[v];
 *   a, b_g1, b_g2 over the density-compacted assignment (compacted on the
 *          device from the uploaded assignment and density bitmaps).
 * L, A, B_G1 and B_G2 use the 0 / 1 / other split (spec gpu-prover.md §2.2,
 * §7): sum = (batch addition of the points whose scalar is 1) + (MSM over
 * the gathered points and scalars that are neither 0 nor 1). Both parts are
 * exact group sums, so the result is the same group element as the plain
 * MSM. The bases stay resident in a cz_gpu_srs across proofs.
 * Everything here goes through the C interface of gpu.h, so this file is C
 * (and builds against gpu_stub.c without CUDA, failing at srs creation). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "r1cs/backends.h"
#include "util/parallel.h"

struct cz_gpu_srs {
    /* counts only (every pointer NULL): what cz_groth16_check_shapes reads */
    cz_groth16_params shape;
    unsigned log_m; /* domain 2^log_m = n_h + 1 */
    cz_gpu_ntt *dom;
    cz_g1_affine *h, *l, *a, *b_g1;
    cz_g2_affine *b_g2;
    size_t bytes;
};

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

void cz_gpu_srs_destroy(cz_gpu_srs *srs) {
    if (!srs) return;
    cz_gpu_ntt_destroy(srs->dom);
    cz_gpu_free(srs->h);
    cz_gpu_free(srs->l);
    cz_gpu_free(srs->a);
    cz_gpu_free(srs->b_g1);
    cz_gpu_free(srs->b_g2);
    free(srs);
}

size_t cz_gpu_srs_bytes(const cz_gpu_srs *srs) {
    return srs ? srs->bytes : 0;
}

static cz_status put(void **dev, const void *host, size_t bytes, const char *name, cz_error *err) {
    cz_status st = cz_gpu_alloc(dev, bytes, err);
    if (st == CZ_OK) st = cz_gpu_upload(*dev, host, bytes, err);
    if (st != CZ_OK) cz_error_prefix(err, "gpu srs: %s (%.1f MiB)", name, MIB(bytes));
    return st;
}

cz_status cz_gpu_srs_create(cz_gpu_srs **out, const cz_groth16_params *p, cz_error *err) {
    *out = NULL;
    /* n_h = m - 1 for the circuit's domain m = 2^k (prover.h) */
    size_t m = p->n_h + 1;
    unsigned k = 0;
    while (((size_t)1 << k) < m) k++;
    if (((size_t)1 << k) != m || k > 28)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gpu srs: params.h has %zu points; 2^k - 1 with k <= 28 expected",
                            p->n_h);
    const size_t g1 = sizeof(cz_g1_affine), g2 = sizeof(cz_g2_affine);
    size_t points = (p->n_h + p->n_l + p->n_a + p->n_b_g1) * g1 + p->n_b_g2 * g2;
    size_t tables = m * sizeof(cz_fr); /* m/2 powers of omega and of omega^-1 */
    size_t need = points + tables;
    size_t free_b = 0, total_b = 0;
    cz_status st = cz_gpu_mem_info(&free_b, &total_b, err);
    if (st != CZ_OK) {
        cz_error_prefix(err, "gpu srs");
        return st;
    }
    if (need > free_b)
        return cz_error_set(err, CZ_E_NOMEM,
                            "gpu srs: the proving key needs %.1f MiB on the device (points %.1f "
                            "MiB, NTT tables %.1f MiB) but only %.1f of %.1f MiB are free; "
                            "streaming bases from host memory is not implemented",
                            MIB(need), MIB(points), MIB(tables), MIB(free_b), MIB(total_b));
    cz_gpu_srs *s = calloc(1, sizeof *s);
    if (!s) return cz_error_set(err, CZ_E_NOMEM, "gpu srs: out of host memory");
    s->shape.vk.n_ic = p->vk.n_ic;
    s->shape.n_h = p->n_h, s->shape.n_l = p->n_l, s->shape.n_a = p->n_a;
    s->shape.n_b_g1 = p->n_b_g1, s->shape.n_b_g2 = p->n_b_g2;
    s->log_m = k;
    s->bytes = need;
    if ((st = cz_gpu_ntt_create(&s->dom, k, err)) != CZ_OK) {
        cz_error_prefix(err, "gpu srs: NTT domain 2^%u", k);
        goto fail;
    }
    if ((st = put((void **)&s->h, p->h, p->n_h * g1, "H", err)) != CZ_OK) goto fail;
    if ((st = put((void **)&s->l, p->l, p->n_l * g1, "L", err)) != CZ_OK) goto fail;
    if ((st = put((void **)&s->a, p->a, p->n_a * g1, "A", err)) != CZ_OK) goto fail;
    if ((st = put((void **)&s->b_g1, p->b_g1, p->n_b_g1 * g1, "B_G1", err)) != CZ_OK) goto fail;
    if ((st = put((void **)&s->b_g2, p->b_g2, p->n_b_g2 * g2, "B_G2", err)) != CZ_OK) goto fail;
    *out = s;
    return CZ_OK;
fail:
    cz_gpu_srs_destroy(s);
    return st;
}

/* Per-proof device buffers (sizes from the shapes; freed together). */
typedef struct {
    cz_fr *abc;        /* 3m: a, b, c -> h */
    cz_fr *z;          /* inputs then aux */
    uint64_t *dens;    /* a_aux, b_input, b_aux bitmaps */
    uint32_t *idx;     /* compaction indices, then tail indices */
    cz_fr *scal;       /* compacted scalars of A or B */
    uint64_t *ones;    /* "scalar is 1" bitmap */
    cz_fr *tail_s;     /* gathered tail scalars */
    cz_g1_affine *tp1; /* gathered tail points */
    cz_g2_affine *tp2;
} bufs;

static void bufs_free(bufs *b) {
    cz_gpu_free(b->abc);
    cz_gpu_free(b->z);
    cz_gpu_free(b->dens);
    cz_gpu_free(b->idx);
    cz_gpu_free(b->scal);
    cz_gpu_free(b->ones);
    cz_gpu_free(b->tail_s);
    cz_gpu_free(b->tp1);
    cz_gpu_free(b->tp2);
    memset(b, 0, sizeof *b);
}

static size_t max3(size_t a, size_t b, size_t c) {
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* The profile (CZ_GPU_PROVE_PROFILE=1): milliseconds per step on stderr. */
typedef struct {
    int on;
    uint64_t t;
} prof;
static void prof_step(prof *p, const char *what) {
    if (!p->on) return;
    uint64_t now = cz_now_ns();
    fprintf(stderr, "gpu prove: %-28s %8.2f ms\n", what, (double)(now - p->t) / 1e6);
    p->t = now;
}

/* out = sum_i scalars[i] points[i] over n device scalars with the 0 / 1 /
 * other split; G1 points p1 and, when p2 is not NULL, the G2 points p2
 * with the same scalars (B). */
static cz_status split_sum(cz_g1 *o1, cz_g2 *o2, const cz_g1_affine *p1, const cz_g2_affine *p2,
                           const cz_fr *scal, size_t n, bufs *b, const char *name, prof *pr,
                           cz_error *err) {
    size_t tail = 0;
    cz_status st = cz_gpu_classify(scal, n, b->ones, b->idx, &tail, err);
    if (st == CZ_OK) st = cz_gpu_g1_batch_add(o1, p1, b->ones, n, err);
    if (st == CZ_OK && p2) st = cz_gpu_g2_batch_add(o2, p2, b->ones, n, err);
    if (st != CZ_OK) goto fail;
    if (pr->on) {
        char what[64];
        snprintf(what, sizeof what, "%s split + batch add", name);
        prof_step(pr, what);
    }
    if (tail) {
        cz_g1 t1;
        if ((st = cz_gpu_gather_fr(b->tail_s, scal, b->idx, tail, err)) != CZ_OK) goto fail;
        if ((st = cz_gpu_gather_g1(b->tp1, p1, b->idx, tail, err)) != CZ_OK) goto fail;
        if ((st = cz_gpu_g1_msm(&t1, b->tp1, b->tail_s, tail, err)) != CZ_OK) goto fail;
        cz_g1_add(o1, o1, &t1);
        if (p2) {
            cz_g2 t2;
            if ((st = cz_gpu_gather_g2(b->tp2, p2, b->idx, tail, err)) != CZ_OK) goto fail;
            if ((st = cz_gpu_g2_msm(&t2, b->tp2, b->tail_s, tail, err)) != CZ_OK) goto fail;
            cz_g2_add(o2, o2, &t2);
        }
    }
    if (pr->on) {
        char what[64];
        snprintf(what, sizeof what, "%s tail MSM (%zu of %zu)", name, tail, n);
        prof_step(pr, what);
    }
    return CZ_OK;
fail:
    cz_error_prefix(err, "gpu prove: %s (%zu scalars)", name, n);
    return st;
}

static size_t words(size_t bits) {
    return (bits + 63) / 64;
}

cz_status cz_gpu_groth16_prove_start(cz_groth16_msm_results *out, const cz_gpu_srs *srs,
                                     const cz_prove_data *pd, cz_error *err) {
    if (!srs) return cz_error_set(err, CZ_E_INVALID_ARG, "gpu prove: no SRS (cz_gpu_srs_create)");
    cz_status st = cz_groth16_check_shapes(&srs->shape, pd, err);
    if (st != CZ_OK) return st;
    const size_t m = (size_t)1 << srs->log_m, n = pd->num_constraints;
    const size_t ni = pd->num_inputs, na = pd->num_aux;
    const size_t n_a = srs->shape.n_a, n_b = srs->shape.n_b_g1;
    bufs b = {0};
    prof pr = {getenv("CZ_GPU_PROVE_PROFILE") != NULL, cz_now_ns()};

    /* ---- H chain: a, b, c zero-padded to m on the device ---- */
    if ((st = cz_gpu_alloc((void **)&b.abc, 3 * m * sizeof(cz_fr), err)) != CZ_OK) {
        cz_error_prefix(err, "gpu prove: a, b, c (3 x 2^%u elements)", srs->log_m);
        goto done;
    }
    {
        const cz_fr *src[3] = {pd->a, pd->b, pd->c};
        for (int j = 0; j < 3; j++) {
            cz_fr *d = b.abc + j * m;
            if ((st = cz_gpu_upload(d, src[j], n * sizeof(cz_fr), err)) != CZ_OK) goto done;
            if ((st = cz_gpu_zero(d + n, (m - n) * sizeof(cz_fr), err)) != CZ_OK) goto done;
        }
        prof_step(&pr, "upload a, b, c");
        for (int j = 0; j < 3; j++) {
            cz_fr *d = b.abc + j * m;
            st = cz_gpu_ntt_transform(srs->dom, d, CZ_NTT_NR, CZ_NTT_INVERSE, CZ_NTT_PLAIN, err);
            if (st == CZ_OK)
                st =
                    cz_gpu_ntt_transform(srs->dom, d, CZ_NTT_RN, CZ_NTT_FORWARD, CZ_NTT_COSET, err);
            if (st != CZ_OK) goto done;
        }
    }
    st = cz_gpu_ntt_coset_quotient(srs->dom, b.abc, b.abc + m, b.abc + 2 * m, err);
    if (st == CZ_OK)
        st = cz_gpu_ntt_transform(srs->dom, b.abc, CZ_NTT_NN, CZ_NTT_INVERSE, CZ_NTT_COSET, err);
    if (st != CZ_OK) goto done;
    {
        cz_fr top;
        if ((st = cz_gpu_download(&top, b.abc + m - 1, sizeof top, err)) != CZ_OK) goto done;
        if (!cz_fr_is_zero(&top)) {
            st = cz_error_set(err, CZ_E_INVALID_ARG,
                              "prove: the witness does not satisfy the constraints (A B - C is "
                              "not divisible by Z: H has degree m - 1)");
            goto done;
        }
    }
    prof_step(&pr, "H chain (7 NTT + quotient)");
    if ((st = cz_gpu_g1_msm(&out->h, srs->h, b.abc, m - 1, err)) != CZ_OK) {
        cz_error_prefix(err, "gpu prove: H MSM (%zu points)", m - 1);
        goto done;
    }
    cz_gpu_free(b.abc);
    b.abc = NULL;
    prof_step(&pr, "H MSM");

    /* ---- assignment and densities up; buffers for the splits ---- */
    {
        size_t nmax = max3(na, n_a, n_b), wi = words(ni), wa = words(na);
        size_t ntail = max3(na, n_a, n_b);
        if ((st = cz_gpu_alloc((void **)&b.z, (ni + na) * sizeof(cz_fr), err)) != CZ_OK ||
            (st = cz_gpu_alloc((void **)&b.dens, (2 * wa + wi) * 8, err)) != CZ_OK ||
            (st = cz_gpu_alloc((void **)&b.idx, (ni + na) * sizeof(uint32_t), err)) != CZ_OK ||
            (st = cz_gpu_alloc((void **)&b.scal, (n_a > n_b ? n_a : n_b) * sizeof(cz_fr), err)) !=
                CZ_OK ||
            (st = cz_gpu_alloc((void **)&b.ones, words(nmax) * 8, err)) != CZ_OK ||
            (st = cz_gpu_alloc((void **)&b.tail_s, ntail * sizeof(cz_fr), err)) != CZ_OK ||
            (st = cz_gpu_alloc((void **)&b.tp1, ntail * sizeof(cz_g1_affine), err)) != CZ_OK ||
            (st = cz_gpu_alloc((void **)&b.tp2, n_b * sizeof(cz_g2_affine), err)) != CZ_OK) {
            cz_error_prefix(err, "gpu prove: per-proof buffers (%zu scalars)", ni + na);
            goto done;
        }
        if ((st = cz_gpu_upload(b.z, pd->input_assignment, ni * sizeof(cz_fr), err)) != CZ_OK ||
            (st = cz_gpu_upload(b.z + ni, pd->aux_assignment, na * sizeof(cz_fr), err)) != CZ_OK ||
            (st = cz_gpu_upload(b.dens, pd->a_aux_density, wa * 8, err)) != CZ_OK ||
            (st = cz_gpu_upload(b.dens + wa, pd->b_aux_density, wa * 8, err)) != CZ_OK ||
            (st = cz_gpu_upload(b.dens + 2 * wa, pd->b_input_density, wi * 8, err)) != CZ_OK)
            goto done;
    }
    prof_step(&pr, "upload assignment");

    /* ---- L: every aux ---- */
    st = split_sum(&out->l, NULL, srs->l, NULL, b.z + ni, na, &b, "L", &pr, err);
    if (st != CZ_OK) goto done;

    /* ---- A: every input, then the aux dense in A (z indices) ---- */
    {
        size_t c1 = 0, c2 = 0;
        if ((st = cz_gpu_select_bits(b.idx, &c1, NULL, ni, 0, err)) != CZ_OK ||
            (st = cz_gpu_select_bits(b.idx + c1, &c2, b.dens, na, (uint32_t)ni, err)) != CZ_OK ||
            (st = cz_gpu_gather_fr(b.scal, b.z, b.idx, c1 + c2, err)) != CZ_OK)
            goto done;
        if (c1 + c2 != n_a) { /* check_shapes counted the same bits on the host */
            st = cz_error_set(err, CZ_E_INTERNAL, "gpu prove: A compaction gave %zu of %zu",
                              c1 + c2, n_a);
            goto done;
        }
        st = split_sum(&out->a, NULL, srs->a, NULL, b.scal, n_a, &b, "A", &pr, err);
        if (st != CZ_OK) goto done;
    }

    /* ---- B: inputs dense in B, then aux dense in B; G1 and G2 ---- */
    {
        size_t c1 = 0, c2 = 0, wa = words(na);
        if ((st = cz_gpu_select_bits(b.idx, &c1, b.dens + 2 * wa, ni, 0, err)) != CZ_OK ||
            (st = cz_gpu_select_bits(b.idx + c1, &c2, b.dens + wa, na, (uint32_t)ni, err)) !=
                CZ_OK ||
            (st = cz_gpu_gather_fr(b.scal, b.z, b.idx, c1 + c2, err)) != CZ_OK)
            goto done;
        if (c1 + c2 != n_b) {
            st = cz_error_set(err, CZ_E_INTERNAL, "gpu prove: B compaction gave %zu of %zu",
                              c1 + c2, n_b);
            goto done;
        }
        st =
            split_sum(&out->b_g1, &out->b_g2, srs->b_g1, srs->b_g2, b.scal, n_b, &b, "B", &pr, err);
    }
done:
    bufs_free(&b);
    return st;
}
