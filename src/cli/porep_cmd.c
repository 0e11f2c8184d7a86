/* cuzk setup | prove | verify | demo: PoRep C2 from the command line.
 *
 *   setup   development Groth16 parameters for a sector size's circuit, named
 *           like Filecoin's files (NOT a trusted setup);
 *   prove   a C1 output (Curio envelope or raw JSON) -> proof bytes, on the CPU,
 *           self-verified before they are written;
 *   verify  proof bytes against a C1 output and a verifying key, with the
 *           public inputs recomputed as Filecoin's verifier does;
 *   demo    the whole chain on a synthetic sector (the README's main job).
 *
 * The options of setup / prove / verify are parsed here for every kind;
 * the PoSt and SnapDeals forms are post.c's and snap.c's, and what the
 * three kinds share is proof_common.c's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/common/derive.h"
#include "filecoin/porep/c1_envelope.h"
#include "filecoin/porep/porep.h"
#include "filecoin/post/post.h"
#include "filecoin/porep/vanilla.h"
#include "util/parallel.h"

static int parse_u64(const char *cmd, const char *flag, const char *text, uint64_t *out) {
    if (cz_cli_parse_u64(text, out)) return 1;
    fprintf(stderr, "cuzk %s: %s: '%s' is not a non-negative integer\n", cmd, flag, text);
    return 0;
}

static cz_status porep_circuit(cz_circuit **out, int *built, const char *path, const void *ctx,
                               FILE *progress, cz_error *err) {
    return cz_porep_circuit_load(out, built, path, ctx, progress, err);
}

/* The development parameters of a sector size in dir: created when missing
 * (or always with force), then left on disk for later runs, with the
 * pre-compiled circuit they were made from (which the prover reads too). */
static cz_status ensure_params(const char *dir, const cz_fc_sector_info *sector, int force,
                               const char *backend, char *params_path, char *vk_path, size_t cap,
                               cz_error *err) {
    cz_status st = cz_cli_make_dir(dir, err);
    char circuit_path[4096];
    if (st == CZ_OK) st = cz_porep_param_paths(params_path, vk_path, cap, dir, sector, err);
    if (st == CZ_OK)
        st = cz_porep_circuit_path(circuit_path, sizeof circuit_path, dir, sector, err);
    if (st != CZ_OK) return st;
    char what[96];
    snprintf(what, sizeof what, "%llu-byte sector circuit",
             (unsigned long long)sector->sector_size);
    return cz_cli_dev_setup(dir, force, backend, params_path, vk_path, circuit_path, what,
                            porep_circuit, sector, err);
}

/* Parses and checks a C1 output; prints what it is. */
static cz_status load_c1(cz_c1 *c1, const char *path, cz_error *err) {
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_c1_parse_file(c1, path, err);
    if (st == CZ_OK) st = cz_c1_check_shape(c1, err);
    if (st == CZ_OK) st = cz_c1_check_indices(c1, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", path);
    printf("  read C1                 %8.2f s  (%s, %u partition(s) x %u challenges)\n",
           cz_cli_seconds_since(t0), c1->registered_proof_name, c1->partitions,
           c1->challenges_per_partition);
    return CZ_OK;
}

/* The proof-side identity: --sector-num, else the envelope's SectorNum. */
typedef struct {
    int have_miner, have_sector;
    uint64_t miner_id, sector_num;
    uint8_t prover_id[32];
} identity;

static const uint8_t *identity_resolve(identity *id, const cz_c1 *c1) {
    if (!id->have_sector && c1->has_envelope)
        id->sector_num = c1->envelope_sector_num, id->have_sector = 1;
    if (!id->have_miner) return NULL;
    cz_fc_prover_id(id->prover_id, id->miner_id);
    return id->prover_id;
}

/* Proves c1 (c1_bytes: the same document, as the daemon would receive it)
 * through an engine of its own: vanilla proofs checked first, then the
 * partitions pipelined on the chosen back-end, the proof self-verified by
 * the engine before it is returned. */
static cz_status prove_c1(uint8_t **proof, size_t *proof_len, const cz_c1 *c1,
                          const uint8_t *c1_bytes, size_t c1_len, const char *param_dir,
                          const char *backend, identity *id, cz_error *err) {
    uint64_t t0 = cz_now_ns();
    const uint8_t *prover_id = identity_resolve(id, c1);
    cz_status st = cz_fc_vanilla_verify(c1, prover_id, id->sector_num, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "vanilla proofs rejected");
    printf("  vanilla proofs checked  %8.2f s%s\n", cz_cli_seconds_since(t0),
           prover_id ? "" : "  (replica_id not recomputed: no --miner-id)");
    fflush(stdout);
    cz_engine_request req;
    memset(&req, 0, sizeof req);
    req.request_id = "cli";
    req.kind = CZ_PROOF_POREP;
    req.vanilla_proof = c1_bytes;
    req.vanilla_proof_len = c1_len;
    req.miner_id = id->have_miner ? id->miner_id : 0;
    req.sector_number = id->have_sector ? id->sector_num : 0;
    cz_engine_result r;
    st = cz_cli_engine_prove(&r, &req, param_dir, backend, err);
    if (st == CZ_OK) {
        printf("  parameters loaded       %8.2f s\n  synthesis (sum)         %8.2f s\n"
               "  prove (sum)             %8.2f s\n  job, self-verified      %8.2f s  (valid)\n",
               (double)r.srs_load_ms / 1e3, (double)r.synthesis_ms / 1e3,
               (double)r.gpu_compute_ms / 1e3, (double)r.total_ms / 1e3);
        *proof = r.proof, *proof_len = r.proof_len;
        r.proof = NULL;
    }
    cz_engine_result_free(&r);
    return st;
}

static cz_status write_proof(cz_cli_out *out, const uint8_t *data, size_t len, cz_error *err) {
    if (fwrite(data, 1, len, out->file) != len) {
        cz_cli_out_abort(out);
        return cz_error_set(err, CZ_E_IO, "cannot write '%s'", out->path);
    }
    return cz_cli_out_commit(out, err);
}

enum {
    OPT_C1 = 1000,
    OPT_PARAMS,
    OPT_OUT,
    OPT_VK,
    OPT_PROOF,
    OPT_MINER,
    OPT_SECTOR,
    OPT_SIZE,
    OPT_FORCE,
    OPT_SEED,
    OPT_BACKEND,
    OPT_KIND,
    OPT_POST,
    OPT_SNAP,
    OPT_PRINT_INPUTS,
    OPT_HELP
};
static const struct option long_opts[] = {{"c1", required_argument, NULL, OPT_C1},
                                          {"params", required_argument, NULL, OPT_PARAMS},
                                          {"out", required_argument, NULL, OPT_OUT},
                                          {"vk", required_argument, NULL, OPT_VK},
                                          {"proof", required_argument, NULL, OPT_PROOF},
                                          {"miner-id", required_argument, NULL, OPT_MINER},
                                          {"sector-num", required_argument, NULL, OPT_SECTOR},
                                          {"sector-size", required_argument, NULL, OPT_SIZE},
                                          {"force", no_argument, NULL, OPT_FORCE},
                                          {"seed", required_argument, NULL, OPT_SEED},
                                          {"params-dir", required_argument, NULL, OPT_PARAMS},
                                          {"backend", required_argument, NULL, OPT_BACKEND},
                                          {"kind", required_argument, NULL, OPT_KIND},
                                          {"post", required_argument, NULL, OPT_POST},
                                          {"snap", required_argument, NULL, OPT_SNAP},
                                          {"print-inputs", no_argument, NULL, OPT_PRINT_INPUTS},
                                          {"help", no_argument, NULL, OPT_HELP},
                                          {NULL, 0, NULL, 0}};

typedef struct {
    const char *c1, *params, *out, *vk, *proof, *backend, *post, *snap;
    int post_kind; /* --kind: -1 porep (default) or snap, else a cz_post_kind */
    int snap_kind; /* --kind snap */
    uint64_t sector_size, seed;
    int have_size, force;
    int print_inputs; /* verify --print-inputs */
    identity id;
} options;

/* Returns 0 to go on, else the exit status (1 + usage on error). */
static int parse_options(options *o, const char *cmd, const char *usage, int argc, char **argv) {
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->post_kind = -1;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
        cz_error err = {0};
        switch (opt) {
        case OPT_C1: o->c1 = optarg; break;
        case OPT_PARAMS: o->params = optarg; break;
        case OPT_OUT: o->out = optarg; break;
        case OPT_VK: o->vk = optarg; break;
        case OPT_PROOF: o->proof = optarg; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_POST: o->post = optarg; break;
        case OPT_SNAP: o->snap = optarg; break;
        case OPT_PRINT_INPUTS: o->print_inputs = 1; break;
        case OPT_KIND:
            o->post_kind = -1, o->snap_kind = 0;
            if (!strcmp(optarg, "porep"))
                ;
            else if (!strcmp(optarg, "snap") || !strcmp(optarg, "snap-update"))
                o->snap_kind = 1;
            else if (!strcmp(optarg, "winning-post") || !strcmp(optarg, "winning"))
                o->post_kind = CZ_POST_WINNING;
            else if (!strcmp(optarg, "window-post") || !strcmp(optarg, "window"))
                o->post_kind = CZ_POST_WINDOW;
            else {
                fprintf(stderr,
                        "cuzk %s: --kind '%s': expected porep, winning-post, window-post or snap\n",
                        cmd, optarg);
                return 2;
            }
            break;
        case OPT_BACKEND:
            if (!cz_cli_backend_valid(cmd, optarg)) return 2;
            o->backend = optarg;
            break;
        case OPT_MINER:
            if (!parse_u64(cmd, "--miner-id", optarg, &o->id.miner_id)) return 2;
            o->id.have_miner = 1;
            break;
        case OPT_SECTOR:
            if (!parse_u64(cmd, "--sector-num", optarg, &o->id.sector_num)) return 2;
            o->id.have_sector = 1;
            break;
        case OPT_SEED:
            if (!parse_u64(cmd, "--seed", optarg, &o->seed)) return 2;
            break;
        case OPT_SIZE:
            if (cz_fc_sector_size_parse(&o->sector_size, optarg, &err) != CZ_OK)
                return cz_cli_fail(cmd, &err) + 1;
            o->have_size = 1;
            break;
        case 'h':
        case OPT_HELP: printf("%s", usage); return -1;
        default: fprintf(stderr, "%s", usage); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cuzk %s: unexpected argument '%s'\n%s", cmd, argv[optind], usage);
        return 2;
    }
    return 0;
}

static int missing(const char *cmd, const char *flag, const char *usage) {
    fprintf(stderr, "cuzk %s: %s is required\n%s", cmd, flag, usage);
    return 2;
}

int cz_cmd_setup(int argc, char **argv) {
    static const char usage[] =
        "usage: cuzk setup [--kind porep|winning-post|window-post|snap] --sector-size SIZE\n"
        "                  --out DIR\n"
        "                  [--force] [--backend auto|cpu|cuda]\n"
        "  Development Groth16 parameters (.params, .vk named like Filecoin's) for the circuit\n"
        "  of a kind (default porep) and SIZE (2KiB, 8MiB, 512MiB, 32GiB, 64GiB), and its\n"
        "  pre-compiled circuit (.czc) beside them. NOT a trusted setup: anyone who knows the "
        "fixed seed can forge\n"
        "  proofs. On the GPU when one answers (auto), else on the CPU; the GPU writes the key\n"
        "  as it computes it (47 GB at 32GiB: that much free disk, never that much memory).\n"
        "  Existing files are kept unless --force (which removes them first).\n";
    options o;
    int rc = parse_options(&o, "setup", usage, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;
    if (!o.have_size) return missing("setup", "--sector-size", usage);
    if (!o.out) return missing("setup", "--out", usage);
    if (!cz_cli_backend_available("setup", o.backend)) return 1;
    if (o.post_kind >= 0)
        return cz_cli_post_setup(o.post_kind, o.sector_size, o.out, o.force, o.backend);
    if (o.snap_kind) return cz_cli_snap_setup(o.sector_size, o.out, o.force, o.backend);
    cz_error err = {0};
    cz_fc_sector_info sector;
    char params_path[4096], vk_path[4096];
    if (cz_fc_sector_lookup(&sector, o.sector_size, &err) != CZ_OK ||
        ensure_params(o.out, &sector, o.force, o.backend, params_path, vk_path, sizeof params_path,
                      &err) != CZ_OK)
        return cz_cli_fail("setup", &err);
    printf("  verifying key           %s\n", vk_path);
    printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    return 0;
}

/* --params: a directory holding the sector size's files, or the .params
 * file itself (the .vk next to it, same stem). */
static cz_status param_files(char *params_path, char *vk_path, size_t cap, const char *arg,
                             const cz_c1 *c1, cz_error *err) {
    cz_fc_sector_info sector;
    cz_status st = cz_fc_sector_lookup(&sector, c1->sector_size, err);
    if (st != CZ_OK) return st;
    if (cz_cli_is_dir(arg))
        return cz_porep_param_paths(params_path, vk_path, cap, arg, &sector, err);
    size_t n = strlen(arg);
    if (n < 8 || strcmp(arg + n - 7, ".params") || n + 1 > cap)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "--params '%s': expected a directory or a .params file", arg);
    snprintf(params_path, cap, "%s", arg);
    snprintf(vk_path, cap, "%.*s.vk", (int)(n - 7), arg);
    return CZ_OK;
}

/* The directory the engine reads the parameters from: --params itself, or
 * the folder of a .params file that carries Filecoin's name for the sector
 * size (the engine finds files by that name). */
static cz_status param_dir(char *dir, size_t cap, const char *arg, const cz_c1 *c1, cz_error *err) {
    if (cz_cli_is_dir(arg)) {
        snprintf(dir, cap, "%s", arg);
        return CZ_OK;
    }
    char params_path[4096], vk_path[4096], want[4096], want_vk[4096];
    cz_status st = param_files(params_path, vk_path, sizeof params_path, arg, c1, err);
    if (st != CZ_OK) return st;
    const char *slash = strrchr(params_path, '/');
    int len = slash ? (int)(slash - params_path) : 1;
    snprintf(dir, cap, "%.*s", len, slash ? params_path : ".");
    cz_fc_sector_info sector;
    if ((st = cz_fc_sector_lookup(&sector, c1->sector_size, err)) != CZ_OK) return st;
    st = cz_porep_param_paths(want, want_vk, sizeof want, dir, &sector, err);
    if (st != CZ_OK) return st;
    if (strcmp(want, params_path) != 0)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "--params '%s': parameters are read by their Filecoin name; for this "
                            "sector size that is '%s' (or pass its directory)",
                            arg, want);
    return CZ_OK;
}

int cz_cmd_prove(int argc, char **argv) {
    static const char usage[] =
        "usage: cuzk prove --c1 FILE [--params DIR|FILE] --out PROOF [--miner-id N]\n"
        "                  [--sector-num N] [--backend auto|cpu|cuda]\n"
        "       cuzk prove --post REQUEST [--params DIR] --out PROOF [--backend auto|cpu|cuda]\n"
        "       cuzk prove --snap REQUEST [--params DIR] --out PROOF [--backend auto|cpu|cuda]\n"
        "  Proves a PoRep C1 output (Curio envelope or raw JSON) and writes the proof bytes\n"
        "  (192 per partition) after verifying them; on the GPU when one answers (auto), else\n"
        "  on the CPU. --miner-id (and --sector-num unless the envelope has SectorNum) also\n"
        "  recompute and check replica_id. --post: a WinningPoSt or WindowPoSt partition\n"
        "  request (`cuzk gen post`), one 192-byte proof. --snap: a SnapDeals update request\n"
        "  (`cuzk gen snap`), 192 bytes per partition. --params: where Filecoin's tools keep\n"
        "  the parameters by default ($FIL_PROOFS_PARAMETER_CACHE, else\n"
        "  /var/tmp/filecoin-proof-parameters); each file is checked against Filecoin's\n"
        "  published digests (`cuzk params check`), development keys are used with a warning.\n";
    options o;
    int rc = parse_options(&o, "prove", usage, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;
    if (!o.params) o.params = cz_cli_param_dir_default(); /* where Filecoin's tools keep them */
    if (o.post) {
        if (!o.out) return missing("prove", "--out", usage);
        if (!cz_cli_backend_available("prove", o.backend)) return 1;
        return cz_cli_post_prove(o.post, o.params, o.out, o.backend);
    }
    if (o.snap) {
        if (!o.out) return missing("prove", "--out", usage);
        if (!cz_cli_backend_available("prove", o.backend)) return 1;
        return cz_cli_snap_prove(o.snap, o.params, o.out, o.backend);
    }
    if (!o.c1) return missing("prove", "--c1", usage);
    if (!o.out) return missing("prove", "--out", usage);
    if (!cz_cli_backend_available("prove", o.backend)) return 1;
    cz_error err = {0};
    /* the proof takes minutes: know first that it can be written */
    cz_cli_out out;
    if (cz_cli_out_open(&out, o.out, &err) != CZ_OK) {
        fprintf(stderr, "cuzk prove: --out: %s\n", err.message);
        return 1;
    }
    cz_c1 c1 = {0};
    char dir[4096];
    uint8_t *proof = NULL, *bytes = NULL;
    size_t proof_len = 0, bytes_len = 0;
    uint64_t t0 = cz_now_ns();
    cz_status st = load_c1(&c1, o.c1, &err);
    if (st == CZ_OK) st = param_dir(dir, sizeof dir, o.params, &c1, &err);
    if (st == CZ_OK) st = cz_cli_read_file(&bytes, &bytes_len, o.c1, (size_t)1 << 30, &err);
    if (st == CZ_OK)
        st = prove_c1(&proof, &proof_len, &c1, bytes, bytes_len, dir, o.backend, &o.id, &err);
    if (st == CZ_OK)
        st = write_proof(&out, proof, proof_len, &err);
    else
        cz_cli_out_abort(&out);
    cz_c1_free(&c1);
    free(bytes);
    free(proof);
    if (st != CZ_OK) return cz_cli_fail("prove", &err);
    printf("  total                   %8.2f s  -> %s (%zu bytes)\n", cz_cli_seconds_since(t0),
           o.out, proof_len);
    printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    return 0;
}

/* PoRep --print-inputs: every partition's public inputs on stdout. */
static cz_status print_porep_inputs(const cz_c1 *c1, const uint8_t *prover_id, uint64_t sector_num,
                                    cz_error *err) {
    cz_fr *inputs = NULL;
    uint32_t n = 0;
    cz_status st = cz_porep_verifier_inputs(&inputs, &n, c1, prover_id, sector_num, err);
    for (uint32_t k = 0; st == CZ_OK && k < c1->partitions; k++)
        cz_cli_print_inputs(k, k == 0, inputs + (size_t)k * n, n);
    free(inputs);
    return st;
}

int cz_cmd_verify(int argc, char **argv) {
    static const char usage[] =
        "usage: cuzk verify --c1 FILE --vk FILE|DIR --proof PROOF [--miner-id N] [--sector-num N]\n"
        "       cuzk verify --post REQUEST --vk FILE|DIR --proof PROOF\n"
        "       cuzk verify --snap REQUEST --vk FILE|DIR --proof PROOF\n"
        "       cuzk verify --print-inputs (--c1 FILE | --post REQUEST | --snap REQUEST)\n"
        "                   [--vk FILE|DIR --proof PROOF] [--miner-id N] [--sector-num N]\n"
        "  Checks PoRep proof bytes with the public inputs recomputed from the C1 output's\n"
        "  replica_id, comm_d, comm_r and seed (challenges derived, not read from the vanilla\n"
        "  proofs). With --miner-id, replica_id itself is recomputed too. Exit 0 = valid,\n"
        "  1 = invalid or error. --post: a PoSt proof, public inputs from the request's\n"
        "  randomness, partition and sectors (ids and comm_r). --snap: a SnapDeals proof,\n"
        "  public inputs from the request's comm_r_old, comm_d_new and comm_r_new.\n"
        "  --print-inputs: first writes those public inputs on stdout, as the verifier gives\n"
        "  them to Groth16 (ONE left out): per partition a line \"# partition K: N public\n"
        "  inputs\", then one field element a line (0x and 64 hex digits, big-endian, as\n"
        "  blstrs prints an Fr); partitions are separated by an empty line. Without --vk\n"
        "  and --proof nothing is verified (exit 0 once printed).\n";
    options o;
    int rc = parse_options(&o, "verify", usage, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;
    /* --print-inputs alone prints; --vk and --proof go together */
    const int need_proof = !o.print_inputs || o.vk || o.proof;
    if (need_proof && !o.vk) return missing("verify", "--vk", usage);
    if (need_proof && !o.proof) return missing("verify", "--proof", usage);
    if (o.post) return cz_cli_post_verify(o.post, o.vk, o.proof, o.print_inputs);
    if (o.snap) return cz_cli_snap_verify(o.snap, o.vk, o.proof, o.print_inputs);
    if (!o.c1) return missing("verify", "--c1", usage);
    cz_error err = {0};
    cz_c1 c1 = {0};
    cz_groth16_vk vk = {0};
    uint8_t *proof = NULL;
    size_t proof_len = 0;
    char params_path[4096], vk_path[4096];
    int valid = 0;
    cz_status st = cz_c1_parse_file(&c1, o.c1, &err);
    if (st == CZ_OK) st = cz_c1_check_shape(&c1, &err);
    if (st != CZ_OK) cz_error_prefix(&err, "%s", o.c1);
    const uint8_t *prover_id = st == CZ_OK ? identity_resolve(&o.id, &c1) : NULL;
    if (st == CZ_OK && o.print_inputs)
        st = print_porep_inputs(&c1, prover_id, o.id.sector_num, &err);
    if (st == CZ_OK && need_proof) {
        if (cz_cli_is_dir(o.vk))
            st = param_files(params_path, vk_path, sizeof vk_path, o.vk, &c1, &err);
        else
            snprintf(vk_path, sizeof vk_path, "%s", o.vk);
        if (st == CZ_OK) st = cz_cli_read_vk_proof(&vk, &proof, &proof_len, vk_path, o.proof, &err);
        if (st == CZ_OK)
            st = cz_porep_verify(&valid, &c1, &vk, proof, proof_len, prover_id, o.id.sector_num,
                                 &err);
    }
    cz_c1_free(&c1);
    cz_groth16_vk_free(&vk);
    free(proof);
    if (st == CZ_OK && !need_proof) return 0; /* inputs printed, nothing to verify */
    return cz_cli_verify_outcome(st, valid, &err);
}

int cz_cmd_demo(int argc, char **argv) {
    static const char usage[] =
        "usage: cuzk demo [--sector-size SIZE] [--params-dir DIR] [--seed N] [--backend B]\n"
        "  PoRep C2 end to end on this machine: generate a synthetic sealed sector's C1 output\n"
        "  (default 2KiB), create development parameters in DIR (default ./cuzk-params; created\n"
        "  once, then reused), prove (on the GPU when one answers, else on the CPU; --backend\n"
        "  auto|cpu|cuda), verify, print the timings.\n";
    options o;
    int rc = parse_options(&o, "demo", usage, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;
    if (!o.have_size) o.sector_size = 2048;
    if (!o.params) o.params = "cuzk-params";
    if (!cz_cli_backend_available("demo", o.backend)) return 1;
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk %s demo: PoRep C2 of a %llu-byte synthetic sector\n%s\n", CZ_VERSION,
           (unsigned long long)o.sector_size, machine);
    cz_error err = {0};
    cz_fc_proof_info info;
    cz_status st = cz_fc_proof_lookup_by_size(&info, o.sector_size, CZ_FC_API_V1_1_0, 0, &err);
    char params_path[4096], vk_path[4096];
    if (st == CZ_OK)
        st = ensure_params(o.params, &info.sector, 0, o.backend, params_path, vk_path,
                           sizeof params_path, &err);
    if (st != CZ_OK) return cz_cli_fail("demo", &err);

    uint64_t t0 = cz_now_ns();
    cz_fc_gen_opts gen = {.registered_proof = info.id,
                          .seed = o.seed,
                          .miner_id = 1000,
                          .sector_num = 1,
                          .sparse = -1,
                          .progress = stdout};
    cz_c1 c1 = {0};
    if ((st = cz_fc_gen_c1(&c1, &gen, &err)) != CZ_OK) return cz_cli_fail("demo", &err);
    printf("  generate C1             %8.2f s  (%s, miner f0%llu, sector %llu)\n",
           cz_cli_seconds_since(t0), info.name, (unsigned long long)gen.miner_id,
           (unsigned long long)gen.sector_num);
    identity id = {.have_miner = 1, .have_sector = 1, .miner_id = 1000, .sector_num = 1};
    uint8_t *proof = NULL, *bytes = NULL;
    size_t proof_len = 0, bytes_len = 0;
    t0 = cz_now_ns();
    st = cz_c1_write_json_mem(&bytes, &bytes_len, &c1, 1, gen.sector_num, &err);
    if (st == CZ_OK)
        st = prove_c1(&proof, &proof_len, &c1, bytes, bytes_len, o.params, o.backend, &id, &err);
    cz_c1_free(&c1);
    free(bytes);
    free(proof);
    if (st != CZ_OK) return cz_cli_fail("demo", &err);
    printf("  C2 total                %8.2f s  (%zu-byte proof, verified)\n",
           cz_cli_seconds_since(t0), proof_len);
    printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    return 0;
}
