/* The engine with back-end contexts that hold keys resident (CUDA-like
 * fakes with hold): the SRS's points go from the mapped file to
 * the contexts, never decoded on the host, when every context can take
 * them; a context that would stream (declines) or one without
 * hold (the CPU's kind) makes the engine decode on the host; a
 * context's load failure fails the job with its message.
 *
 * A fake context "loads" the key from the file it is given by decoding each
 * vector at the layout's offsets itself, and the test compares that with
 * cz_groth16_params_read of the same file: so the handle's mapping and
 * layout are the key's. It counts what it was asked (hold, units,
 * units without host points, loads from host points and from the file), and
 * the engine's status must show the SRS's tier, where its points are and
 * the memory it holds: the vk only when the points are on the devices, the
 * whole file otherwise (and a budget smaller than the file admits the job
 * only in the first case). CZ_SRS_HOST_POINTS=1 keeps the host decode. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "engine/job.h"
#include "filecoin/porep/porep.h"
#include "filecoin/common/registry.h"
#include "gpu/settings.h"
#include "groth16/setup.h"
#include "harness/harness.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"
#include "util/cancel.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The reference: the key as the host decoder reads it. */
static cz_groth16_params reference;
static uint64_t params_bytes;

/* ---- fake contexts ---- */

enum { LOADS, DECLINES, FAILS };

typedef struct {
    int mode;
    char holds[32];         /* circuit id resident here ("" = none) */
    cz_groth16_params copy; /* what it holds: decoded by itself from the file, or host points */
    int hold_calls;         /* counts, under lock: holds from the file */
    int hold_host_calls;    /* holds with host points (a job's admission) */
    int file_loads, host_uploads, units, units_without_host_points, releases;
    int file_mismatch; /* a load from the file differed from the reference */
    int vk_mismatch;   /* a unit's vk differed from the reference */
    /* a slow upload: holding slow_id takes slow_steps steps of 10 ms, with a
     * step boundary after each (as gpu/srs.c's pieces), the key held before
     * staying resident meanwhile; units proven during it are counted */
    char slow_id[32];
    unsigned slow_steps;
    int in_slow_hold, units_in_slow_hold;
} fake_dev;

static int vec_equal(const void *a, const void *b, size_t n, size_t size) {
    return n == 0 || (a && b && !memcmp(a, b, n * size));
}

/* Decodes the key from the mapped file at the layout's offsets (what a
 * device does with the raw bytes) and compares it with the reference. */
static cz_status load_from_file(fake_dev *d, const cz_groth16_params_file *f, cz_error *err) {
    cz_groth16_params_free(&d->copy);
    const cz_groth16_params_layout *L = &f->layout;
    const unsigned flags = CZ_DECODE_SKIP_SUBGROUP | CZ_DECODE_REJECT_INFINITY;
    void **dst[CZ_GROTH16_VECTORS] = {(void **)&d->copy.h, (void **)&d->copy.l, (void **)&d->copy.a,
                                      (void **)&d->copy.b_g1, (void **)&d->copy.b_g2};
    size_t *cnt[CZ_GROTH16_VECTORS] = {&d->copy.n_h, &d->copy.n_l, &d->copy.n_a, &d->copy.n_b_g1,
                                       &d->copy.n_b_g2};
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        size_t n = (size_t)L->count[v];
        *cnt[v] = n;
        *dst[v] = malloc((n ? n : 1) * cz_groth16_vector_point_bytes(v));
        cz_status st =
            v == CZ_GROTH16_B_G2
                ? cz_g2_batch_from_uncompressed(*dst[v], f->data + L->offset[v], n, flags, err)
                : cz_g1_batch_from_uncompressed(*dst[v], f->data + L->offset[v], n, flags, err);
        if (st != CZ_OK) return st;
    }
    const cz_groth16_params *r = &reference;
    int same = f->len == params_bytes && d->copy.n_h == r->n_h &&
               vec_equal(d->copy.h, r->h, r->n_h, sizeof *r->h) &&
               vec_equal(d->copy.l, r->l, r->n_l, sizeof *r->l) &&
               vec_equal(d->copy.a, r->a, r->n_a, sizeof *r->a) &&
               vec_equal(d->copy.b_g1, r->b_g1, r->n_b_g1, sizeof *r->b_g1) &&
               vec_equal(d->copy.b_g2, r->b_g2, r->n_b_g2, sizeof *r->b_g2);
    pthread_mutex_lock(&lock);
    d->file_loads++;
    if (!same) d->file_mismatch++;
    pthread_mutex_unlock(&lock);
    return CZ_OK;
}

static cz_status fake_hold(cz_backend *b, const char *id, const cz_groth16_params *params,
                           const cz_groth16_params_file *file, const cz_circuit *circuit,
                           int priority, cz_error *err) {
    (void)priority, (void)circuit;
    fake_dev *d = b->impl;
    if (params && params->h) {
        /* host points (the engine decoded the key): a job's admission puts
         * them on the device as the real context uploads them */
        pthread_mutex_lock(&lock);
        d->hold_host_calls++;
        pthread_mutex_unlock(&lock);
        cz_backend_note_resident(b, id, 1, 0);
        return CZ_OK;
    }
    pthread_mutex_lock(&lock);
    d->hold_calls++;
    pthread_mutex_unlock(&lock);
    if (d->mode == DECLINES)
        return cz_error_set(err, CZ_E_UNSUPPORTED, "%s: the key does not fit resident",
                            b->info.name);
    if (d->mode == FAILS)
        return cz_error_set(err, CZ_E_PARSE, "%s: params: l[3]: damaged", b->info.name);
    if (!strcmp(d->holds, id)) return CZ_OK;
    if (!strcmp(d->slow_id, id)) {
        pthread_mutex_lock(&lock);
        d->in_slow_hold = 1;
        pthread_mutex_unlock(&lock);
        for (unsigned i = 0; i < d->slow_steps; i++) {
            struct timespec ts = {0, 10 * 1000000};
            nanosleep(&ts, NULL);
            (void)cz_step_boundary();
        }
        pthread_mutex_lock(&lock);
        d->in_slow_hold = 0;
        pthread_mutex_unlock(&lock);
    }
    cz_status st = load_from_file(d, file, err);
    if (st == CZ_OK) snprintf(d->holds, sizeof d->holds, "%s", id);
    if (st == CZ_OK) cz_backend_note_resident(b, id, 1, 0);
    return st;
}

static cz_status fake_start(cz_backend *b, cz_groth16_msm_results *out, const cz_backend_unit *u,
                            cz_error *err) {
    fake_dev *d = b->impl;
    const cz_groth16_params *p = u->params;
    pthread_mutex_lock(&lock);
    d->units++;
    if (d->in_slow_hold) d->units_in_slow_hold++;
    if (!p->h) d->units_without_host_points++;
    if (p->vk.n_ic != reference.vk.n_ic ||
        memcmp(&p->vk.delta_g1, &reference.vk.delta_g1, sizeof p->vk.delta_g1) ||
        memcmp(&p->vk.alpha_g1, &reference.vk.alpha_g1, sizeof p->vk.alpha_g1))
        d->vk_mismatch++;
    pthread_mutex_unlock(&lock);
    if (strcmp(d->holds, u->circuit_id)) {
        cz_status st;
        if (p->h) { /* as a CUDA context uploads host points */
            pthread_mutex_lock(&lock);
            d->host_uploads++;
            pthread_mutex_unlock(&lock);
            st = CZ_OK;
        } else if (d->mode == LOADS && u->params_file) {
            st = load_from_file(d, u->params_file, err);
        } else {
            st = cz_error_set(err, CZ_E_UNSUPPORTED, "fake: no points to load");
        }
        if (st != CZ_OK) return st;
        snprintf(d->holds, sizeof d->holds, "%s", u->circuit_id);
    }
    memset(out, 0, sizeof *out);
    return CZ_OK;
}

static uint64_t fake_release(cz_backend *b, const char *circuit_id) {
    fake_dev *d = b->impl;
    if (circuit_id && strcmp(circuit_id, d->holds)) return 0;
    if (d->holds[0]) {
        pthread_mutex_lock(&lock);
        d->releases++;
        pthread_mutex_unlock(&lock);
    }
    d->holds[0] = 0;
    cz_groth16_params_free(&d->copy);
    return 0;
}

static const cz_backend_ops fake_cuda_ops = {
    .kind = "fake-cuda", .prove_start = fake_start, .hold = fake_hold, .release = fake_release};
/* a context that keeps nothing resident, like the CPU one */
static const cz_backend_ops fake_cpu_ops = {
    .kind = "fake-cpu", .prove_start = fake_start, .release = fake_release};

static fake_dev devs[4];

static cz_backend *make_fake(int i, int mode, const cz_backend_ops *ops) {
    cz_groth16_params_free(&devs[i].copy);
    memset(&devs[i], 0, sizeof devs[i]);
    devs[i].mode = mode;
    cz_backend *b = calloc(1, sizeof *b);
    char name[16];
    snprintf(name, sizeof name, "fake:%d", i);
    cz_backend_init(b, ops, &devs[i], name);
    return b;
}

/* ---- a job kind whose units go through the back-end ---- */

typedef struct {
    unsigned units;
    char circuit[32];
} job_state;

static cz_status job_prepare(void **statep, cz_job_plan *plan, const cz_engine_request *req,
                             const char *param_cache, cz_error *err) {
    (void)param_cache;
    job_state *s = calloc(1, sizeof *s);
    *statep = s;
    char text[64];
    size_t n = req->vanilla_proof_len < sizeof text - 1 ? req->vanilla_proof_len : sizeof text - 1;
    memcpy(text, req->vanilla_proof, n);
    text[n] = 0;
    if (sscanf(text, "%31s %u", s->circuit, &s->units) != 2)
        return cz_error_set(err, CZ_E_PARSE, "job: bad request");
    plan->units = s->units;
    plan->unit_proof_bytes = 8;
    plan->unit_bytes = 1000;
    plan->unit_bytes_after = 0;
    snprintf(plan->circuit_id, sizeof plan->circuit_id, "%s", s->circuit);
    return CZ_OK;
}

static cz_status job_synthesize(void *state, uint32_t unit, void **synth, cz_error *err) {
    (void)state, (void)err;
    uint32_t *u = malloc(sizeof *u);
    *u = unit;
    *synth = u;
    return CZ_OK;
}

static cz_status job_prove_start(void *state, uint32_t unit, void *synth, const cz_srs_handle *srs,
                                 const cz_prove_context *where, void **pending, cz_error *err) {
    (void)state, (void)unit;
    CHECK(srs && srs->params && srs->params_file && srs->params_file->data);
    cz_backend_unit u = {.job_id = where->job_id,
                         .kind = where->kind,
                         .circuit_id = where->circuit_id,
                         .params = srs->params,
                         .params_file = srs->params_file,
                         .priority = where->priority};
    cz_groth16_msm_results msm;
    cz_status st = cz_backend_prove_start(where->backend, &msm, &u, err);
    if (st != CZ_OK) {
        free(synth);
        return st;
    }
    *pending = synth;
    return CZ_OK;
}

static cz_status job_prove_finish(void *state, uint32_t unit, void *pending,
                                  const cz_srs_handle *srs, uint8_t *out, cz_error *err) {
    (void)state, (void)srs, (void)err;
    free(pending);
    memset(out, (int)unit, 8);
    return CZ_OK;
}

static void job_discard(void *state, uint32_t unit, void *data, int stage) {
    (void)state, (void)unit, (void)stage;
    free(data);
}

static cz_status job_verify(void *state, const uint8_t *proof, size_t len, const cz_srs_handle *srs,
                            cz_error *err) {
    (void)proof, (void)len, (void)err;
    (void)state;
    CHECK(srs && srs->vk && srs->vk->n_ic == reference.vk.n_ic);
    return CZ_OK;
}

static void job_free(void *state) {
    free(state);
}

static const cz_job_ops job_ops = {.name = "keyload",
                                   .prepare = job_prepare,
                                   .synthesize = job_synthesize,
                                   .prove_start = job_prove_start,
                                   .prove_finish = job_prove_finish,
                                   .discard = job_discard,
                                   .verify = job_verify,
                                   .free_state = job_free};

/* ---- helpers ---- */

/* Parameters of a multiplication chain (v_{i+1} = v_i x, x public) under
 * porep-2k's file names: a file of a few hundred KiB, so that its size and
 * the vk's differ by far. */
static uint64_t write_params(const char *dir) {
    cz_cs *cs = cz_cs_compile_new();
    cz_var x = cz_cs_alloc_input(cs, NULL), v = x;
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    for (int i = 0; i < 1500; i++) {
        cz_var w = cz_cs_alloc(cs, NULL);
        cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
        cz_lc_add_var(&a, v);
        cz_lc_add_var(&b, x);
        cz_lc_add_var(&c, w);
        cz_cs_enforce(cs, &a, &b, &c);
        v = w;
    }
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
    cz_circuit *r = NULL;
    cz_error err = {0};
    CHECK(cz_compile_finish(cs, &r, &err) == CZ_OK);
    cz_cs_destroy(cs);
    uint8_t seed[32] = {9};
    cz_groth16_params p;
    CHECK(cz_groth16_dev_setup(&p, r, seed, &err) == CZ_OK);
    cz_fc_sector_info sector;
    char pp[4096], vp[4096];
    CHECK(cz_fc_sector_lookup(&sector, 2048, &err) == CZ_OK);
    /* the same key under porep-2k's names and porep-8m's: two circuits */
    for (int k = 0; k < 2; k++) {
        CHECK(cz_fc_sector_lookup(&sector, k ? 8u << 20 : 2048, &err) == CZ_OK);
        CHECK(cz_porep_param_paths(pp, vp, sizeof pp, dir, &sector, &err) == CZ_OK);
        CHECK(cz_groth16_params_write(&p, pp, &err) == CZ_OK);
        CHECK(cz_groth16_vk_write(&p.vk, vp, &err) == CZ_OK);
        cz_test_mark_development(pp);
        cz_test_mark_development(vp);
    }
    CHECK(cz_fc_sector_lookup(&sector, 2048, &err) == CZ_OK);
    CHECK(cz_porep_param_paths(pp, vp, sizeof pp, dir, &sector, &err) == CZ_OK);
    cz_groth16_params_free(&p);
    cz_circuit_free(r);
    CHECK(cz_groth16_params_read(&reference, pp, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    struct stat sb;
    CHECK(stat(pp, &sb) == 0);
    return (uint64_t)sb.st_size;
}

static cz_engine *make_engine(const char *dir, uint64_t budget, cz_backend **backends, uint32_t n) {
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_budget_bytes = budget;
    cfg.synthesis_workers = 2;
    cfg.prove_workers = 1;
    cfg.param_cache = dir;
    cfg.result_retention_ms = 60000;
    cfg.srs_eviction_min_idle_ms = 0;
    cfg.ops[CZ_PROOF_POREP] = &job_ops;
    for (uint32_t i = 0; i < n; i++) cfg.backends[i] = backends[i];
    cfg.n_backends = n;
    cz_engine *e = NULL;
    cz_error err = {0};
    CHECK(cz_engine_create(&e, &cfg, &err) == CZ_OK);
    return e;
}

static void submit_job(cz_engine *e, const char *id, const char *text, cz_priority priority) {
    cz_engine_request r;
    memset(&r, 0, sizeof r);
    r.request_id = id;
    r.kind = CZ_PROOF_POREP;
    r.priority = priority;
    r.vanilla_proof = (const uint8_t *)text;
    r.vanilla_proof_len = strlen(text);
    cz_engine_submit_info info;
    cz_error err = {0};
    CHECK(cz_engine_submit(e, &r, &info, &err) == CZ_OK);
}

/* Submits and waits; returns the final status (message in msg). */
static cz_job_status run_job(cz_engine *e, const char *id, const char *text, char *msg,
                             size_t msg_size) {
    submit_job(e, id, text, CZ_PRIORITY_NORMAL);
    cz_error err = {0};
    cz_engine_result res;
    CHECK(cz_engine_await(e, id, 30000, NULL, NULL, &res, &err) == CZ_OK);
    cz_job_status st = res.status;
    if (msg) snprintf(msg, msg_size, "%s", res.error_message);
    cz_engine_result_free(&res);
    return st;
}

static cz_engine_srs_info srs_info(cz_engine *e, cz_engine_status *s) {
    cz_engine_get_status(e, s);
    for (size_t i = 0; i < s->n_srs; i++)
        if (!strcmp(s->srs[i].circuit_id, "porep-2k")) return s->srs[i];
    cz_engine_srs_info none;
    memset(&none, 0, sizeof none);
    none.tier = CZ_SRS_COLD;
    return none;
}

/* The host bytes of an SRS whose points are on the devices: its two vks. */
static uint64_t vk_bytes(void) {
    return 2 * (sizeof(cz_groth16_vk) + reference.vk.n_ic * sizeof(cz_g1_affine));
}

/* ---- scenarios ---- */

/* One context that loads from the file: no host decode, the budget holds
 * the vk; a second job reuses it; eviction drops both copies and the next
 * job loads again. A budget below the file size still admits the job. */
static void test_device_only(const char *dir) {
    cz_backend *b[1] = {make_fake(0, LOADS, &fake_cuda_ops)};
    cz_engine *e = make_engine(dir, params_bytes / 2 + 4000, b, 1);
    CHECK(run_job(e, "a", "porep-2k 3", NULL, 0) == CZ_JOB_COMPLETED);
    cz_engine_status s;
    cz_engine_srs_info i = srs_info(e, &s);
    CHECK(i.tier == CZ_SRS_HOT && i.points_on_device && i.size_bytes == params_bytes);
    CHECK(i.host_bytes == vk_bytes() && i.host_bytes < params_bytes / 50);
    CHECK(s.memory_used_bytes == vk_bytes());
    fake_dev *d = &devs[0];
    CHECK(d->hold_calls == 1 && d->file_loads == 1 && d->file_mismatch == 0);
    CHECK(d->host_uploads == 0 && d->units == 3 && d->units_without_host_points == 3);
    CHECK(d->vk_mismatch == 0);

    CHECK(run_job(e, "a2", "porep-2k 2", NULL, 0) == CZ_JOB_COMPLETED);
    CHECK(d->hold_calls == 1 && d->file_loads == 1 && d->units == 5);

    /* the context lost its copy (as when it proved another circuit): the
     * next unit loads it from the unit's file */
    cz_backend_release(b[0], NULL);
    CHECK(run_job(e, "a3", "porep-2k 1", NULL, 0) == CZ_JOB_COMPLETED);
    CHECK(d->file_loads == 2 && d->file_mismatch == 0 && d->host_uploads == 0);

    int was_loaded = 0;
    uint64_t freed = 0;
    cz_error err = {0};
    CHECK(cz_engine_evict(e, "porep-2k", &was_loaded, &freed, &err) == CZ_OK);
    CHECK(was_loaded && freed == vk_bytes() && d->releases == 2 && !d->holds[0]);
    i = srs_info(e, &s);
    CHECK(i.tier == CZ_SRS_COLD && s.memory_used_bytes == 0);
    CHECK(run_job(e, "a4", "porep-2k 1", NULL, 0) == CZ_JOB_COMPLETED);
    CHECK(d->hold_calls == 2 && d->file_loads == 3 && d->units_without_host_points == 7);
    cz_engine_destroy(e);
}

/* Two contexts, one declines (its device would stream): the host decodes,
 * the units carry host points, the budget holds the file size; after an
 * eviction the devices are tried again. With the budget below the file
 * size the job cannot run at all. */
static void test_one_declines(const char *dir) {
    cz_backend *b[2] = {make_fake(0, LOADS, &fake_cuda_ops),
                        make_fake(1, DECLINES, &fake_cuda_ops)};
    cz_engine *e = make_engine(dir, 4 * params_bytes, b, 2);
    CHECK(run_job(e, "b", "porep-2k 4", NULL, 0) == CZ_JOB_COMPLETED);
    cz_engine_status s;
    cz_engine_srs_info i = srs_info(e, &s);
    CHECK(i.tier == CZ_SRS_HOT && !i.points_on_device && i.host_bytes == params_bytes);
    CHECK(s.memory_used_bytes == params_bytes);
    CHECK(devs[0].hold_calls == 1 && devs[1].hold_calls == 1);
    CHECK(devs[0].units + devs[1].units == 4);
    CHECK(devs[0].units_without_host_points == 0 && devs[1].units_without_host_points == 0);
    CHECK(devs[0].file_mismatch == 0 && devs[0].vk_mismatch == 0 && devs[1].vk_mismatch == 0);
    /* hot: no new attempt for the next job */
    CHECK(run_job(e, "b2", "porep-2k 1", NULL, 0) == CZ_JOB_COMPLETED);
    CHECK(devs[0].hold_calls == 1 && devs[1].hold_calls == 1);
    int was_loaded = 0;
    uint64_t freed = 0;
    cz_error err = {0};
    CHECK(cz_engine_evict(e, "porep-2k", &was_loaded, &freed, &err) == CZ_OK);
    CHECK(was_loaded && freed == params_bytes);
    CHECK(run_job(e, "b3", "porep-2k 1", NULL, 0) == CZ_JOB_COMPLETED);
    CHECK(devs[0].hold_calls == 2 && devs[1].hold_calls == 2);
    cz_engine_destroy(e);

    b[0] = make_fake(0, LOADS, &fake_cuda_ops);
    b[1] = make_fake(1, DECLINES, &fake_cuda_ops);
    e = make_engine(dir, params_bytes / 2 + 4000, b, 2);
    char msg[512];
    CHECK(run_job(e, "b4", "porep-2k 1", msg, sizeof msg) == CZ_JOB_FAILED);
    CHECK(strstr(msg, "memory") != NULL);
    cz_engine_destroy(e);
}

/* A context's failure (a damaged point, say) fails the job with its
 * message; nothing stays in the budget. */
static void test_load_fails(const char *dir) {
    cz_backend *b[1] = {make_fake(0, FAILS, &fake_cuda_ops)};
    cz_engine *e = make_engine(dir, 4 * params_bytes, b, 1);
    char msg[512];
    CHECK(run_job(e, "c", "porep-2k 2", msg, sizeof msg) == CZ_JOB_FAILED);
    CHECK(strstr(msg, "fake:0: params: l[3]: damaged") != NULL);
    cz_engine_status s;
    cz_engine_srs_info i = srs_info(e, &s);
    CHECK(i.tier != CZ_SRS_HOT && s.memory_used_bytes == 0 && devs[0].units == 0);
    cz_engine_destroy(e);
}

/* A context without hold (the CPU's kind) beside one with it, or
 * CZ_SRS_HOST_POINTS=1: the host decodes, no context loads from the file,
 * and the job's admission may put the host points on one idle context. */
static void test_host_decode(const char *dir) {
    for (int round = 0; round < 2; round++) {
        cz_backend *b[2] = {make_fake(0, LOADS, &fake_cuda_ops),
                            make_fake(1, LOADS, round ? &fake_cuda_ops : &fake_cpu_ops)};
        cz_gpu_settings knobs;
        cz_gpu_settings_defaults(&knobs);
        knobs.srs_host_points = round;
        cz_gpu_settings_use(&knobs);
        cz_engine *e = make_engine(dir, 4 * params_bytes, b, 2);
        cz_gpu_settings_use(NULL);
        CHECK(run_job(e, "d", "porep-2k 3", NULL, 0) == CZ_JOB_COMPLETED);
        cz_engine_status s;
        cz_engine_srs_info i = srs_info(e, &s);
        CHECK(i.tier == CZ_SRS_HOT && !i.points_on_device && i.host_bytes == params_bytes);
        CHECK(devs[0].hold_calls == 0 && devs[1].hold_calls == 0);
        /* (none when a unit got to the context first: it was busy) */
        CHECK(devs[0].hold_host_calls + devs[1].hold_host_calls <= 1);
        CHECK(devs[0].units_without_host_points == 0 && devs[1].units_without_host_points == 0);
        CHECK(devs[0].units + devs[1].units == 3);
        cz_engine_destroy(e);
    }
}

/* A CRITICAL unit never waits for another key's upload: while porep-8m's
 * key goes onto the context (1 s of steps, under the context's run lock)
 * for a NORMAL job, a CRITICAL job of porep-2k, whose key is resident,
 * runs its unit at one of the upload's step boundaries, on the loading
 * thread (the engine's hook: no deadlock on the run lock, the free prove
 * worker leaves the unit to it), and completes before the upload ends; the
 * NORMAL job then completes too. */
static void test_unit_inside_upload(const char *dir) {
    cz_backend *b[1] = {make_fake(0, LOADS, &fake_cuda_ops)};
    cz_engine *e = make_engine(dir, 8 * params_bytes, b, 1);
    fake_dev *d = &devs[0];
    CHECK(run_job(e, "u1", "porep-2k 1", NULL, 0) == CZ_JOB_COMPLETED);
    snprintf(d->slow_id, sizeof d->slow_id, "porep-8m");
    d->slow_steps = 100;
    submit_job(e, "slow", "porep-8m 2", CZ_PRIORITY_NORMAL);
    int waited = 0;
    for (; waited < 5000; waited++) {
        pthread_mutex_lock(&lock);
        const int in = d->in_slow_hold;
        pthread_mutex_unlock(&lock);
        if (in) break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    CHECK(waited < 5000);
    submit_job(e, "critical", "porep-2k 1", CZ_PRIORITY_CRITICAL);
    cz_engine_result res;
    cz_error err = {0};
    CHECK(cz_engine_await(e, "critical", 30000, NULL, NULL, &res, &err) == CZ_OK);
    CHECK(res.status == CZ_JOB_COMPLETED);
    cz_engine_result_free(&res);
    pthread_mutex_lock(&lock);
    int during = d->units_in_slow_hold, still = d->in_slow_hold;
    pthread_mutex_unlock(&lock);
    if (during != 1 || !still) printf("units during the upload %d, upload on %d\n", during, still);
    CHECK(during == 1 && still);
    /* the context is not busy with a unit while only the upload goes on */
    cz_engine_status s;
    cz_engine_get_status(e, &s);
    pthread_mutex_lock(&lock);
    still = d->in_slow_hold;
    pthread_mutex_unlock(&lock);
    CHECK(!still || !s.backends[0].busy);
    CHECK(cz_engine_await(e, "slow", 30000, NULL, NULL, &res, &err) == CZ_OK);
    CHECK(res.status == CZ_JOB_COMPLETED);
    cz_engine_result_free(&res);
    cz_engine_get_status(e, &s);
    CHECK(s.preemptions == 1);
    CHECK(d->units == 4 && d->units_in_slow_hold == 1 && !strcmp(d->holds, "porep-8m"));
    d->slow_id[0] = 0;
    cz_engine_destroy(e);
}

int main(void) {
    cz_test_init("engine/engine_keyload");
    char dir[] = "/tmp/cz_engine_keyload_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    params_bytes = write_params(dir);
    CHECK(params_bytes > 100 * vk_bytes());
    test_device_only(dir);
    test_one_declines(dir);
    test_load_fails(dir);
    test_host_decode(dir);
    test_unit_inside_upload(dir);
    for (int i = 0; i < 4; i++) cz_groth16_params_free(&devs[i].copy);
    cz_groth16_params_free(&reference);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return cz_test_finish("engine/engine_keyload");
}
