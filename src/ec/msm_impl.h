/* Pippenger MSM and fixed-base multiplication for one group. Included twice
 * by msm.c with PT, PTA, F, F_(name), PT_(name) defined as for point_impl.h
 * and BK naming this group's bucket type. No include guard: a template.
 *
 * Buckets use XYZZ coordinates: (X, Y, ZZ, ZZZ) stands for (X/ZZ, Y/ZZZ) with
 * ZZ^3 = ZZZ^2 always; ZZ = 0 is infinity. Formulas from the Explicit-
 * Formulas Database for a = 0: madd-2008-s, add-2008-s, dbl-2008-s-1. */

typedef struct {
    F x, y, zz, zzz;
} BK;

/* b = 2 * (affine (x, y)), y != 0 (mdbl-2008-s-1) */
static void PT_(bk_dbl_affine)(BK *b, const F *x, const F *y) {
    F u, v, w, s, m, t;
    F_(dbl)(&u, y);
    F_(sqr)(&v, &u);
    F_(mul)(&w, &u, &v);
    F_(mul)(&s, x, &v);
    F_(sqr)(&m, x);
    F_(dbl)(&t, &m);
    F_(add)(&m, &m, &t);
    F_(sqr)(&b->x, &m);
    F_(dbl)(&t, &s);
    F_(sub)(&b->x, &b->x, &t);
    F_(sub)(&t, &s, &b->x);
    F_(mul)(&t, &m, &t);
    F_(mul)(&b->y, &w, y);
    F_(sub)(&b->y, &t, &b->y);
    b->zz = v;
    b->zzz = w;
}

/* b = 2b for a finite b (dbl-2008-s-1) */
static void PT_(bk_dbl)(BK *b) {
    F u, v, w, s, m, t;
    F_(dbl)(&u, &b->y);
    F_(sqr)(&v, &u);
    F_(mul)(&w, &u, &v);
    F_(mul)(&s, &b->x, &v);
    F_(sqr)(&m, &b->x);
    F_(dbl)(&t, &m);
    F_(add)(&m, &m, &t);
    F_(mul)(&b->y, &w, &b->y);
    F_(sqr)(&b->x, &m);
    F_(dbl)(&t, &s);
    F_(sub)(&b->x, &b->x, &t);
    F_(sub)(&t, &s, &b->x);
    F_(mul)(&t, &m, &t);
    F_(sub)(&b->y, &t, &b->y);
    F_(mul)(&b->zz, &b->zz, &v);
    F_(mul)(&b->zzz, &b->zzz, &w);
}

/* b += (x, sign * y) for a finite affine point */
static void PT_(bk_add_affine)(BK *b, const PTA *p, int negate) {
    F y;
    if (negate) F_(neg)(&y, &p->y);
    else y = p->y;
    if (F_(is_zero)(&b->zz)) {
        b->x = p->x;
        b->y = y;
        b->zz = F_(one);
        b->zzz = F_(one);
        return;
    }
    F u2, s2, pp, ppp, q, r, t;
    F_(mul)(&u2, &p->x, &b->zz);
    F_(mul)(&s2, &y, &b->zzz);
    F_(sub)(&u2, &u2, &b->x); /* P = U2 - X1 */
    F_(sub)(&r, &s2, &b->y);  /* R = S2 - Y1 */
    if (F_(is_zero)(&u2)) {
        if (F_(is_zero)(&r)) PT_(bk_dbl_affine)(b, &p->x, &y);
        else b->zz = b->zzz = F_(zero);
        return;
    }
    F_(sqr)(&pp, &u2);
    F_(mul)(&ppp, &u2, &pp);
    F_(mul)(&q, &b->x, &pp);
    F_(sqr)(&t, &r);
    F_(sub)(&t, &t, &ppp);
    F_(sub)(&t, &t, &q);
    F_(sub)(&b->x, &t, &q);
    F_(sub)(&t, &q, &b->x);
    F_(mul)(&t, &r, &t);
    F_(mul)(&b->y, &b->y, &ppp);
    F_(sub)(&b->y, &t, &b->y);
    F_(mul)(&b->zz, &b->zz, &pp);
    F_(mul)(&b->zzz, &b->zzz, &ppp);
}

/* a += b */
static void PT_(bk_add)(BK *a, const BK *b) {
    if (F_(is_zero)(&b->zz)) return;
    if (F_(is_zero)(&a->zz)) {
        *a = *b;
        return;
    }
    F u1, u2, s1, s2, p, r, pp, ppp, q, t;
    F_(mul)(&u1, &a->x, &b->zz);
    F_(mul)(&u2, &b->x, &a->zz);
    F_(mul)(&s1, &a->y, &b->zzz);
    F_(mul)(&s2, &b->y, &a->zzz);
    F_(sub)(&p, &u2, &u1);
    F_(sub)(&r, &s2, &s1);
    if (F_(is_zero)(&p)) {
        if (F_(is_zero)(&r)) PT_(bk_dbl)(a);
        else a->zz = a->zzz = F_(zero);
        return;
    }
    F_(sqr)(&pp, &p);
    F_(mul)(&ppp, &p, &pp);
    F_(mul)(&q, &u1, &pp);
    F_(sqr)(&t, &r);
    F_(sub)(&t, &t, &ppp);
    F_(sub)(&t, &t, &q);
    F_(sub)(&a->x, &t, &q);
    F_(sub)(&t, &q, &a->x);
    F_(mul)(&t, &r, &t);
    F_(mul)(&s1, &s1, &ppp);
    F_(sub)(&a->y, &t, &s1);
    F_(mul)(&a->zz, &a->zz, &b->zz);
    F_(mul)(&a->zz, &a->zz, &pp);
    F_(mul)(&a->zzz, &a->zzz, &b->zzz);
    F_(mul)(&a->zzz, &a->zzz, &ppp);
}

/* Jacobian (X ZZ^2, Y ZZZ^2, ZZZ) represents the same point, by ZZ^3 = ZZZ^2. */
static void PT_(bk_to_jacobian)(PT *r, const BK *b) {
    if (F_(is_zero)(&b->zz)) {
        PT_(set_infinity)(r);
        return;
    }
    F t;
    F_(sqr)(&t, &b->zz);
    F_(mul)(&r->x, &b->x, &t);
    F_(sqr)(&t, &b->zzz);
    F_(mul)(&r->y, &b->y, &t);
    r->z = b->zzz;
}

/* Batch-affine bucket accumulation. Buckets hold affine points ((0, 0) is
 * empty). Additions into distinct buckets are collected into a batch whose
 * slope denominators are inverted together (one inversion for the batch), so
 * an addition costs about 5M + 1S instead of 8M + 2S for an XYZZ mixed
 * addition. A point whose bucket already has an addition in the open batch
 * goes into that bucket's XYZZ overflow accumulator instead, so skewed
 * scalars (many equal digits: witnesses full of 0s and 1s, or the few values
 * of a short top window) cost one XYZZ addition each, never a stall. */
#define BATCH_MAX 1024
#define MSM_PREFETCH 16
/* Sums of at most this many points run on the calling thread (PT_(msm)). */
#define MSM_SERIAL_MAX 256
typedef struct {
    PTA *buckets;
    BK *overflow;    /* [nbuckets], zz = 0 when empty */
    uint8_t *busy;   /* bucket has an addition in the open batch */
    PTA *addend;     /* [batch]: the point to add (sign applied) */
    F *den, *prefix; /* [batch] */
    uint32_t *target;
    uint8_t *doubling;
    size_t count, batch;
} PT_(batch_state);

static void PT_(batch_schedule)(PT_(batch_state) *st, const PTA *p, uint32_t b) {
    PTA *bucket = &st->buckets[b];
    if (st->busy[b]) {
        PT_(bk_add_affine)(&st->overflow[b], p, 0);
        return;
    }
    if (PT_(affine_is_infinity)(bucket)) {
        *bucket = *p;
        return;
    }
    size_t k = st->count;
    if (F_(equal)(&bucket->x, &p->x)) {
        if (!F_(equal)(&bucket->y, &p->y) || F_(is_zero)(&p->y)) {
            bucket->x = bucket->y = F_(zero); /* P + (-P), or 2P for a 2-torsion P */
            return;
        }
        F_(dbl)(&st->den[k], &p->y); /* tangent: slope 3x^2 / 2y */
        st->doubling[k] = 1;
    } else {
        F_(sub)(&st->den[k], &p->x, &bucket->x);
        st->doubling[k] = 0;
    }
    st->addend[k] = *p;
    st->target[k] = b;
    st->busy[b] = 1;
    st->count = k + 1;
}

static void PT_(batch_flush)(PT_(batch_state) *st) {
    size_t n = st->count;
    if (!n) return;
    F acc = F_(one), inv;
    for (size_t k = 0; k < n; k++) {
        st->prefix[k] = acc;
        F_(mul)(&acc, &acc, &st->den[k]);
    }
    F_(inv_var)(&acc, &acc);
    for (size_t k = n; k-- > 0;) {
        PTA *bucket = &st->buckets[st->target[k]];
        const PTA *p = &st->addend[k];
        F_(mul)(&inv, &acc, &st->prefix[k]); /* 1 / den[k] */
        F_(mul)(&acc, &acc, &st->den[k]);
        F lambda, t, x3;
        if (st->doubling[k]) {
            F_(sqr)(&t, &p->x);
            F_(add)(&lambda, &t, &t);
            F_(add)(&t, &lambda, &t);
            F_(mul)(&lambda, &t, &inv);
        } else {
            F_(sub)(&t, &p->y, &bucket->y);
            F_(mul)(&lambda, &t, &inv);
        }
        F_(sqr)(&x3, &lambda);
        F_(sub)(&x3, &x3, &bucket->x);
        F_(sub)(&x3, &x3, &p->x);
        F_(sub)(&t, &bucket->x, &x3);
        F_(mul)(&t, &lambda, &t);
        F_(sub)(&bucket->y, &t, &bucket->y);
        bucket->x = x3;
        st->busy[st->target[k]] = 0;
    }
    st->count = 0;
}

typedef struct {
    const PTA *points;
    const msm_scalar *scalars;
    size_t n, chunk_len;
    unsigned c, windows;
    PT_(batch_state) *state; /* one per worker */
    PT *partial;             /* [chunk * windows + window] */
} PT_(msm_job);

static void PT_(msm_task)(void *ctx, size_t begin, size_t end, unsigned worker) {
    PT_(msm_job) *job = ctx;
    size_t nbuckets = (size_t)1 << (job->c - 1);
    PT_(batch_state) *st = &job->state[worker];
    for (size_t t = begin; t < end; t++) {
        unsigned w = (unsigned)(t % job->windows);
        size_t lo = (t / job->windows) * job->chunk_len;
        size_t hi = lo + job->chunk_len < job->n ? lo + job->chunk_len : job->n;
        memset(st->buckets, 0, nbuckets * sizeof(PTA));
        memset(st->overflow, 0, nbuckets * sizeof(BK));
        for (size_t i = lo; i < hi; i++) {
            /* the bucket a few points ahead is a random access: start it now */
            if (i + MSM_PREFETCH < hi) {
                int ahead = msm_digit(&job->scalars[i + MSM_PREFETCH], w, job->c);
                if (ahead) {
                    const char *line = (const char *)&st->buckets[(ahead < 0 ? -ahead : ahead) - 1];
                    for (size_t off = 0; off < sizeof(PTA); off += 64) __builtin_prefetch(line + off);
                }
            }
            int d = msm_digit(&job->scalars[i], w, job->c);
            if (d == 0 || PT_(affine_is_infinity)(&job->points[i])) continue;
            PTA p = job->points[i];
            if (d < 0) F_(neg)(&p.y, &p.y);
            PT_(batch_schedule)(st, &p, (uint32_t)((d < 0 ? -d : d) - 1));
            if (st->count == st->batch) PT_(batch_flush)(st);
        }
        PT_(batch_flush)(st);
        /* sum_b (b + 1) * bucket[b] as a running sum from the top */
        BK running, sum;
        running.zz = running.zzz = sum.zz = sum.zzz = F_(zero);
        for (size_t b = nbuckets; b-- > 0;) {
            if (!PT_(affine_is_infinity)(&st->buckets[b]))
                PT_(bk_add_affine)(&running, &st->buckets[b], 0);
            PT_(bk_add)(&running, &st->overflow[b]);
            PT_(bk_add)(&sum, &running);
        }
        PT_(bk_to_jacobian)(&job->partial[t], &sum);
    }
}

static void PT_(batch_state_free)(PT_(batch_state) *st) {
    free(st->buckets), free(st->overflow), free(st->busy), free(st->addend);
    free(st->den), free(st->prefix), free(st->target), free(st->doubling);
}

static int PT_(batch_state_init)(PT_(batch_state) *st, size_t nbuckets) {
    memset(st, 0, sizeof *st);
    /* a batch much larger than a quarter of the buckets would mostly overflow */
    st->batch = nbuckets / 4 < BATCH_MAX ? (nbuckets / 4 ? nbuckets / 4 : 1) : BATCH_MAX;
    st->buckets = malloc(nbuckets * sizeof(PTA));
    st->overflow = malloc(nbuckets * sizeof(BK));
    st->busy = calloc(nbuckets, 1);
    st->addend = malloc(st->batch * sizeof(PTA));
    st->den = malloc(st->batch * sizeof(F));
    st->prefix = malloc(st->batch * sizeof(F));
    st->target = malloc(st->batch * sizeof(uint32_t));
    st->doubling = malloc(st->batch);
    return st->buckets && st->overflow && st->busy && st->addend && st->den && st->prefix &&
           st->target && st->doubling;
}

cz_status PT_(msm)(PT *out, const PTA *points, const cz_fr *scalars, size_t n) {
    if (n == 0) {
        PT_(set_infinity)(out);
        return CZ_OK;
    }
    /* A small sum (a verifier's public inputs: 67 for a 32 GiB WinningPoSt)
     * runs on the calling thread: threads started for it save under a
     * millisecond, and beside busy cores their start and join may cost far
     * more (a WinningPoSt's 3 ms self-verify took 0.28 s beside three
     * WindowPoSt syntheses on an H100 host, 13 ms since it runs here). */
    unsigned threads = n <= MSM_SERIAL_MAX ? 1 : cz_thread_count();
    msm_plan plan = msm_choose_plan(n, threads, MSM_IS_G2);
    size_t nbuckets = (size_t)1 << (plan.c - 1);
    size_t tasks = (size_t)plan.windows * plan.chunks;
    if (threads > tasks) threads = (unsigned)tasks;

    msm_scalar *recoded = malloc(n * sizeof *recoded);
    PT *partial = malloc(tasks * sizeof *partial);
    PT_(batch_state) *states = calloc(threads, sizeof *states);
    cz_status st = CZ_OK;
    if (!recoded || !partial || !states) st = CZ_E_NOMEM;
    for (unsigned t = 0; st == CZ_OK && t < threads; t++)
        if (!PT_(batch_state_init)(&states[t], nbuckets)) st = CZ_E_NOMEM;
    if (st == CZ_OK) {
        msm_recode_all(recoded, scalars, n, plan.c, plan.windows);
        PT_(msm_job) job = {points,      recoded, n, plan.chunk_len, plan.c, plan.windows,
                            states,      partial};
        /* one grain of every task: the calling thread runs them */
        cz_parallel_for(tasks, threads == 1 ? tasks : 1, PT_(msm_task), &job);
        /* Horner over windows: acc = acc * 2^c + window sum */
        PT acc;
        PT_(set_infinity)(&acc);
        for (unsigned w = plan.windows; w-- > 0;) {
            for (unsigned k = 0; k < plan.c; k++) PT_(dbl)(&acc, &acc);
            for (unsigned ch = 0; ch < plan.chunks; ch++)
                PT_(add)(&acc, &acc, &partial[(size_t)ch * plan.windows + w]);
        }
        *out = acc;
    }
    for (unsigned t = 0; states && t < threads; t++) PT_(batch_state_free)(&states[t]);
    free(states);
    free(partial);
    free(recoded);
    return st;
}

cz_status PT_(fixed_base_init)(FB *table, const PT *base) {
    PT *jac = malloc(sizeof(PT) * CZ_FIXED_BASE_WINDOWS * CZ_FIXED_BASE_DIGITS);
    F *scratch = malloc(sizeof(F) * CZ_FIXED_BASE_WINDOWS * CZ_FIXED_BASE_DIGITS);
    if (!jac || !scratch) {
        free(jac);
        free(scratch);
        return CZ_E_NOMEM;
    }
    PT window_base = *base;
    for (int j = 0; j < CZ_FIXED_BASE_WINDOWS; j++) {
        PT *row = jac + j * CZ_FIXED_BASE_DIGITS;
        row[0] = window_base;
        for (int d = 1; d < CZ_FIXED_BASE_DIGITS; d++) PT_(add)(&row[d], &row[d - 1], &window_base);
        PT_(add)(&window_base, &row[CZ_FIXED_BASE_DIGITS - 1], &row[CZ_FIXED_BASE_DIGITS - 1]);
    }
    PT_(batch_to_affine)(&table->entry[0][0], jac, CZ_FIXED_BASE_WINDOWS * CZ_FIXED_BASE_DIGITS,
                         scratch);
    free(scratch);
    free(jac);
    return CZ_OK;
}

typedef struct {
    PTA *out;
    const FB *table;
    const cz_fr *scalars;
} PT_(fixed_base_job);

static void PT_(fixed_base_task)(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    PT_(fixed_base_job) *job = ctx;
    enum { BATCH = 256 };
    PT acc[BATCH];
    F scratch[BATCH];
    for (size_t b = begin; b < end; b += BATCH) {
        size_t m = end - b < BATCH ? end - b : BATCH;
        for (size_t i = 0; i < m; i++) {
            msm_scalar k;
            msm_recode(&k, &job->scalars[b + i], 8, CZ_FIXED_BASE_WINDOWS);
            PT_(set_infinity)(&acc[i]);
            for (unsigned j = 0; j < CZ_FIXED_BASE_WINDOWS; j++) {
                int d = msm_digit(&k, j, 8);
                if (d > 0) PT_(add_affine)(&acc[i], &acc[i], &job->table->entry[j][d - 1]);
                if (d < 0) {
                    PTA neg;
                    PT_(affine_neg)(&neg, &job->table->entry[j][-d - 1]);
                    PT_(add_affine)(&acc[i], &acc[i], &neg);
                }
            }
        }
        PT_(batch_to_affine)(&job->out[b], acc, m, scratch);
    }
}

cz_status PT_(fixed_base_mul)(PTA *out, const FB *table, const cz_fr *scalars, size_t n) {
    PT_(fixed_base_job) job = {out, table, scalars};
    cz_parallel_for(n, 4096, PT_(fixed_base_task), &job);
    return CZ_OK;
}
