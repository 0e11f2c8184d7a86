/* What the PoRep, PoSt and SnapDeals forms of setup / prove / verify
 * share: the development setup (on the GPU or all cores, its progress, the
 * .dev marks, the reuse of cached keys), a request proven through an engine
 * of its own and its proof written, the vk and proof read, public inputs
 * printed, a verification's outcome, and the parameter directory by
 * default. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "filecoin/common/params_table.h"
#include "gpu/gpu.h"
#include "groth16/setup.h"
#include "util/parallel.h"

const char *cz_cli_param_dir_default(void) {
    const char *env = getenv("FIL_PROOFS_PARAMETER_CACHE");
    return env && env[0] ? env : CZ_FC_PARAM_DIR_DEFAULT;
}

/* The setup's progress: the redrawn (or every-10-s) line for the whole
 * setup with its estimate of the time left, and one line per finished
 * stage (the Lagrange basis, the column sums, each key vector) with its
 * time. */
typedef struct {
    cz_cli_progress bar;
    const char *stage;
    uint64_t stage_ns;
} setup_progress;

static void setup_stage_done(setup_progress *p) {
    if (!p->stage || !p->stage[0]) return;
    cz_cli_progress_end(&p->bar);
    char label[64];
    snprintf(label, sizeof label, "  %s", p->stage);
    printf("  %-23s %8.2f s\n", label, cz_cli_seconds_since(p->stage_ns));
    fflush(stdout);
}

static void setup_progress_fn(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    setup_progress *p = ctx;
    if (!p->stage || strcmp(stage, p->stage) != 0) {
        setup_stage_done(p);
        p->stage = stage;
        p->stage_ns = cz_now_ns();
    }
    cz_cli_progress_update(&p->bar, done, total);
}

/* Whether the setup runs on the GPU: cuda (a device was checked before),
 * auto when a device answers, never for cpu. desc: the device. */
static int setup_on_gpu(const char *backend, char *desc, size_t desc_size) {
    if (!strcmp(backend, "cpu")) return 0;
    cz_error gerr = {0};
    return cz_gpu_probe(desc, desc_size, &gerr) == CZ_OK;
}

/* The development key of circuit c: on the GPU straight into the file (the
 * host never holds the key: 47 GB at 32 GiB), else on all cores and then
 * written. *vk: the verifying key; digest: the file's (params_table.h),
 * hashed as it was written on the GPU's path, else "" (not known). */
static cz_status run_setup(cz_groth16_vk *vk, char digest[CZ_FC_PARAM_DIGEST_HEX],
                           const char *params_path, const cz_circuit *c, int gpu, cz_error *err) {
    static const uint8_t seed[CZ_GROTH16_SEED_BYTES] = {'c', 'u', 'z', 'k', '-', 'd', 'e', 'v'};
    setup_progress prog = {0};
    cz_cli_progress_begin(&prog.bar, stdout, "setup");
    uint64_t t0 = cz_now_ns();
    cz_status st;
    digest[0] = 0;
    if (gpu) {
        /* the file's digest as it is written: no second read of 47 GB */
        cz_fc_param_hasher *h = NULL;
        st = cz_fc_param_hasher_new(&h, err);
        const cz_groth16_params_tap tap = {cz_fc_param_hasher_update, h};
        if (st == CZ_OK)
            st = cz_gpu_groth16_dev_setup_write(vk, params_path, &tap, c, seed, setup_progress_fn,
                                                &prog, err);
        if (st == CZ_OK) setup_stage_done(&prog);
        if (h) {
            cz_status fin = cz_fc_param_hasher_finish(digest, h, st == CZ_OK ? err : NULL);
            if (st == CZ_OK) st = fin;
            if (fin != CZ_OK) digest[0] = 0;
        }
        cz_cli_progress_end(&prog.bar);
        if (st == CZ_OK)
            printf("  setup and write         %8.2f s  %s\n", cz_cli_seconds_since(t0),
                   params_path);
        return st;
    }
    cz_groth16_params params;
    st = cz_groth16_dev_setup_progress(&params, c, seed, setup_progress_fn, &prog, err);
    if (st == CZ_OK) setup_stage_done(&prog);
    cz_cli_progress_end(&prog.bar);
    if (st != CZ_OK) return st;
    printf("  setup                   %8.2f s\n", cz_cli_seconds_since(t0));
    t0 = cz_now_ns();
    st = cz_groth16_params_write(&params, params_path, err);
    if (st == CZ_OK) {
        printf("  write                   %8.2f s  %s\n", cz_cli_seconds_since(t0), params_path);
        *vk = params.vk; /* moved out: params' other arrays are freed below */
        memset(&params.vk, 0, sizeof params.vk);
    }
    cz_groth16_params_free(&params);
    return st;
}

/* Records beside a development key just written (FILE.dev with its
 * digest, filecoin/params_table.h), so that nothing takes it for Filecoin's
 * key of the same name: the daemon serves it only with a warning. known:
 * the digest when the setup hashed the file as it wrote it, else "" (the
 * file is read again). */
static cz_status mark_development(const char *path, const char *known, cz_error *err) {
    uint64_t t0 = cz_now_ns();
    char digest[CZ_FC_PARAM_DIGEST_HEX];
    cz_status st;
    if (known[0]) {
        memcpy(digest, known, sizeof digest);
        st = cz_fc_param_mark_development_hashed(path, digest, err);
    } else {
        cz_cli_progress bar;
        cz_cli_progress_begin(&bar, stdout, "digest");
        st = cz_fc_param_mark_development(digest, path, cz_cli_progress_fn, &bar, err);
        cz_cli_progress_end(&bar);
    }
    if (st == CZ_OK)
        printf("  marked development      %8.2f s  %s.dev (blake2b %s%s)\n",
               cz_cli_seconds_since(t0), path, digest, known[0] ? ", hashed as written" : "");
    return st;
}

/* Whether the key files already in place may be reused: CZ_OK when both
 * are marked development keys (or, for the .params, Filecoin's own),
 * CZ_E_NOT_FOUND when they must be made again (a development key whose
 * record is missing or stale), CZ_E_INVALID_ARG when a file carries an
 * official name with another digest and no record: it may be a partial
 * download of Filecoin's key, which the setup does not overwrite. */
static cz_status dev_keys_reusable(const char *params_path, const char *vk_path, cz_error *err) {
    const char *paths[2] = {params_path, vk_path};
    int remake = 0;
    for (int i = 0; i < 2; i++) {
        cz_fc_param_verdict v;
        cz_cli_progress bar;
        cz_cli_progress_begin(&bar, stdout, "checking the key");
        cz_status st = cz_fc_param_classify(&v, paths[i], NULL, 0, cz_cli_progress_fn, &bar, err);
        cz_cli_progress_end(&bar);
        if (st != CZ_OK) return st;
        if (v.cls == CZ_FC_PARAM_WRONG_DIGEST)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "%s: official name, digest %s instead of Filecoin's %s, and no "
                                "development record: not overwriting it (remove it, or --force)",
                                paths[i], v.digest, v.entry->digest);
        if (v.cls == CZ_FC_PARAM_UNKNOWN) remake = 1;
    }
    return remake ? CZ_E_NOT_FOUND : CZ_OK;
}

cz_status cz_cli_dev_setup(const char *dir, int force, const char *backend, const char *params_path,
                           const char *vk_path, const char *circuit_path, const char *what,
                           cz_cli_circuit_fn load, const void *ctx, cz_error *err) {
    cz_status st;
    int cached = !force && access(params_path, R_OK) == 0 && access(vk_path, R_OK) == 0;
    if (cached && (st = dev_keys_reusable(params_path, vk_path, err)) != CZ_E_NOT_FOUND) {
        if (st == CZ_OK) printf("  parameters              cached: %s\n", params_path);
        return st;
    }
    /* the setup takes minutes: know first that its files can be written */
    if (access(dir, W_OK | X_OK) != 0)
        return cz_error_set(err, CZ_E_IO, "cannot write parameters in '%s': %s", dir,
                            strerror(errno));
    /* a 32 GiB key (47 GB) and its replacement's temporary do not both fit
     * a 64 GiB disk: the old files go first */
    if (access(params_path, F_OK) == 0) {
        printf("  removing the old key    %s\n", params_path);
        unlink(params_path);
    }
    unlink(vk_path);
    char desc[256] = "";
    int gpu = setup_on_gpu(backend, desc, sizeof desc);
    printf("  development setup for the %s on the %s%s: NOT a trusted setup\n", what,
           gpu ? "GPU, " : "CPU", gpu ? desc : "");
    fflush(stdout);
    uint64_t t0 = cz_now_ns();
    cz_circuit *c = NULL;
    int built = 0;
    st = load(&c, &built, circuit_path, ctx, stdout, err);
    if (st != CZ_OK) return st;
    printf("  circuit                 %8.2f s  (%u inputs, %u aux, %llu constraints; %s)\n",
           cz_cli_seconds_since(t0), c->num_inputs, c->num_aux,
           (unsigned long long)c->num_constraints, built ? "built" : "read");
    cz_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    char digest[CZ_FC_PARAM_DIGEST_HEX];
    st = run_setup(&vk, digest, params_path, c, gpu, err);
    if ((st == CZ_E_CUDA || st == CZ_E_NOMEM) && gpu && !strcmp(backend, "auto")) {
        printf("  the GPU setup failed (%s): on the CPU instead\n", err->message);
        st = run_setup(&vk, digest, params_path, c, 0, err);
    }
    cz_circuit_free(c);
    if (st == CZ_OK) st = cz_groth16_vk_write(&vk, vk_path, err);
    cz_groth16_vk_free(&vk);
    if (st == CZ_OK) st = mark_development(params_path, digest, err);
    if (st == CZ_OK) st = mark_development(vk_path, "", err);
    return st;
}

int cz_cli_setup_report(const char *dir, int force, const char *backend, const char *params_path,
                        const char *vk_path, const char *circuit_path, const char *what,
                        cz_cli_circuit_fn load, const void *ctx) {
    cz_error err = {0};
    if (cz_cli_dev_setup(dir, force, backend, params_path, vk_path, circuit_path, what, load, ctx,
                         &err) != CZ_OK)
        return cz_cli_fail("setup", &err);
    printf("  verifying key           %s\n", vk_path);
    return 0;
}

int cz_cli_verify_outcome(cz_status st, int valid, const cz_error *err) {
    if (st != CZ_OK) return cz_cli_fail("verify", err);
    if (!valid) {
        printf("INVALID: %s\n", err->message);
        return 1;
    }
    printf("valid\n");
    return 0;
}

void cz_cli_print_inputs(uint32_t partition, int first, const cz_fr *inputs, size_t n) {
    printf("%s# partition %u: %zu public inputs\n", first ? "" : "\n", partition, n);
    for (size_t i = 0; i < n; i++) {
        uint8_t b[32];
        cz_fr_to_bytes_be(b, &inputs[i]);
        printf("0x");
        for (int j = 0; j < 32; j++) printf("%02x", b[j]);
        printf("\n");
    }
}

cz_status cz_cli_read_vk_proof(cz_groth16_vk *vk, uint8_t **proof, size_t *proof_len,
                               const char *vk_path, const char *proof_path, cz_error *err) {
    cz_status st = cz_groth16_vk_read(vk, vk_path, CZ_GROTH16_CHECKED, err);
    if (st == CZ_OK) st = cz_cli_read_file(proof, proof_len, proof_path, 1 << 20, err);
    return st;
}

cz_status cz_cli_engine_await(cz_engine_result *out, cz_engine *e, const char *id, cz_error *err) {
    cz_status st = cz_engine_await(e, id, 0, NULL, NULL, out, err);
    if (st == CZ_OK && out->status != CZ_JOB_COMPLETED) {
        st = cz_error_set(err, out->error_status, "%s", out->error_message);
        cz_engine_result_free(out);
    }
    return st;
}

cz_status cz_cli_engine_prove(cz_engine_result *out, const cz_engine_request *req,
                              const char *param_dir, const char *backend, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_engine *e = NULL;
    int cpu = 0;
    cz_status st = cz_cli_engine_open(&e, &cpu, backend, param_dir, NULL, NULL, err);
    if (st != CZ_OK) return st;
    cz_engine_submit_info info;
    st = cz_engine_submit(e, req, &info, err);
    if (st == CZ_OK) st = cz_cli_engine_await(out, e, info.job_id, err);
    cz_engine_destroy(e);
    return st;
}

int cz_cli_request_prove(const cz_engine_request *er, const char *params, const char *out_path,
                         const char *backend, uint64_t t0) {
    cz_error err = {0};
    cz_cli_out out;
    if (cz_cli_out_open(&out, out_path, &err) != CZ_OK) {
        fprintf(stderr, "cuzk prove: --out: %s\n", err.message);
        return 1;
    }
    cz_engine_result r;
    cz_status st = cz_cli_engine_prove(&r, er, params, backend, &err);
    if (st == CZ_OK) {
        printf("  parameters loaded       %8.2f s\n  synthesis               %8.2f s\n"
               "  prove                   %8.2f s\n  job, self-verified      %8.2f s  (valid)\n",
               (double)r.srs_load_ms / 1e3, (double)r.synthesis_ms / 1e3,
               (double)r.gpu_compute_ms / 1e3, (double)r.total_ms / 1e3);
        if (fwrite(r.proof, 1, r.proof_len, out.file) != r.proof_len) {
            cz_cli_out_abort(&out);
            st = cz_error_set(&err, CZ_E_IO, "cannot write '%s'", out_path);
        } else {
            st = cz_cli_out_commit(&out, &err);
        }
    } else {
        cz_cli_out_abort(&out);
    }
    size_t proof_len = r.proof_len;
    cz_engine_result_free(&r);
    if (st != CZ_OK) return cz_cli_fail("prove", &err);
    printf("  total                   %8.2f s  -> %s (%zu bytes)\n", cz_cli_seconds_since(t0),
           out_path, proof_len);
    printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    return 0;
}
