/* cuzk bench-groth16: proves a synthetic circuit of 2^k constraints on the
 * CPU or the GPU (--backend) and reports synthesis, setup, prove and verify
 * times and peak memory.
 * The circuit is a chain of multiplications of random-coefficient linear
 * combinations (dense A and B); it measures the prover, not a Filecoin
 * circuit. Development parameters are NOT a trusted setup. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "r1cs/backends.h"
#include "util/parallel.h"

#define CHAIN_INPUTS 4

/* v_j = (v_{j-1} + (j + 1) v_{j-2}) * (v_{j-3} + (3j + 5)), seeded by the
 * public inputs 2, 3, 5, 7; n constraints before the appended input ones. */
static void synthesize_chain(cz_cs *cs, uint64_t n) {
    int witness = cz_cs_has_witness(cs);
    cz_var v[3];
    cz_fr val[3], x;
    static const uint64_t seeds[CHAIN_INPUTS] = {2, 3, 5, 7};
    for (int i = 0; i < CHAIN_INPUTS; i++) {
        cz_fr_from_u64(&x, seeds[i]);
        cz_var in = cz_cs_alloc_input(cs, witness ? &x : NULL);
        if (i < 3) v[i] = in, val[i] = x;
    }
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    for (uint64_t j = 0; j < n && cz_cs_status(cs) == CZ_OK; j++) {
        cz_fr c1, c2, left, right, prod;
        cz_fr_from_u64(&c1, j + 1);
        cz_fr_from_u64(&c2, 3 * j + 5);
        if (witness) {
            cz_fr_mul(&left, &c1, &val[1]);
            cz_fr_add(&left, &left, &val[0]);
            cz_fr_add(&right, &val[2], &c2);
            cz_fr_mul(&prod, &left, &right);
        }
        cz_var out = cz_cs_alloc(cs, witness ? &prod : NULL);
        cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
        cz_lc_add_var(&a, v[0]);
        cz_lc_add(&a, v[1], &c1);
        cz_lc_add_var(&b, v[2]);
        cz_lc_add(&b, CZ_VAR_ONE, &c2);
        cz_lc_add_var(&c, out);
        cz_cs_enforce(cs, &a, &b, &c);
        v[2] = v[1], v[1] = v[0], v[0] = out;
        if (witness) val[2] = val[1], val[1] = val[0], val[0] = prod;
    }
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

static void setup_progress(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    (void)stage;
    cz_cli_progress_update(ctx, done, total);
}

int cz_cmd_bench_groth16(int argc, char **argv) {
    unsigned log_size = 16;
    int runs = 3;
    const char *params_path = NULL, *r1cs_path = NULL, *backend = "auto";
    static const struct option long_opts[] = {{"log-constraints", required_argument, NULL, 'k'},
                                              {"runs", required_argument, NULL, 'r'},
                                              {"params", required_argument, NULL, 'p'},
                                              {"save-r1cs", required_argument, NULL, 's'},
                                              {"backend", required_argument, NULL, 'b'},
                                              {"help", no_argument, NULL, 'h'},
                                              {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "k:r:p:s:b:h", long_opts, NULL)) != -1) {
        switch (opt) {
        case 'k': log_size = (unsigned)atoi(optarg); break;
        case 'r': runs = atoi(optarg); break;
        case 'p': params_path = optarg; break;
        case 's': r1cs_path = optarg; break;
        case 'b':
            if (!cz_cli_backend_valid("bench-groth16", optarg)) return 2;
            backend = optarg;
            break;
        case 'h':
            printf(
                "usage: cuzk bench-groth16 [--log-constraints K] [--runs N] [--params FILE]\n"
                "                          [--save-r1cs FILE] [--backend auto|cpu|cuda]\n"
                "  --log-constraints K  circuit of 2^K constraints (3..26, default 16)\n"
                "  --runs N             proofs timed, median reported (default 3)\n"
                "  --params FILE        reuse development parameters from FILE, or write\n"
                "                       them there when it does not exist\n"
                "  --save-r1cs FILE     also write the recorded circuit (see cuzk r1cs info)\n"
                "  --backend B          auto (the GPU when one answers, default), cpu or cuda\n");
            return 0;
        default: return 2;
        }
    }
    if (log_size < 3 || log_size > 26 || runs < 1 || runs > 15) {
        fprintf(stderr, "bench-groth16: --log-constraints must be 3..26 and --runs 1..15\n");
        return 2;
    }
    if (!cz_cli_backend_available("bench-groth16", backend)) return 1;
    /* the input constraints (ONE + inputs) fill the domain to exactly 2^k */
    uint64_t n = ((uint64_t)1 << log_size) - (CHAIN_INPUTS + 1);
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk bench-groth16 %s: 2^%u constraints, %d runs (median)\n%s\n", CZ_VERSION, log_size,
           runs, machine);

    cz_error err = {0};
    uint64_t t0 = cz_now_ns();
    cz_cs *rec = cz_cs_record_new();
    if (!rec) return cz_cli_fail("bench-groth16: record", &(cz_error){CZ_E_NOMEM, "out of memory"});
    synthesize_chain(rec, n);
    cz_r1cs r1cs;
    if (cz_record_finish(rec, &r1cs, &err) != CZ_OK)
        return cz_cs_destroy(rec), cz_cli_fail("bench-groth16: record", &err);
    cz_cs_destroy(rec);
    printf("  record circuit          %8.2f s  (%u inputs, %u aux, %llu constraints)\n",
           cz_cli_seconds_since(t0), r1cs.num_inputs, r1cs.num_aux,
           (unsigned long long)r1cs.num_constraints);
    if (r1cs_path && cz_r1cs_write(&r1cs, r1cs_path, &err) != CZ_OK)
        return cz_cli_fail("bench-groth16: save", &err);

    cz_groth16_params params;
    t0 = cz_now_ns();
    if (params_path && access(params_path, R_OK) == 0) {
        if (cz_groth16_params_read(&params, params_path, CZ_GROTH16_UNCHECKED, &err) != CZ_OK)
            return cz_cli_fail("bench-groth16: params", &err);
        printf("  read parameters         %8.2f s  (%s)\n", cz_cli_seconds_since(t0), params_path);
    } else {
        static const uint8_t seed[CZ_GROTH16_SEED_BYTES] = {'c', 'u', 'z', 'k', 'b',
                                                            'e', 'n', 'c', 'h'};
        printf("  development setup (NOT a trusted setup)\n");
        cz_cli_progress prog;
        cz_cli_progress_begin(&prog, stdout, "setup");
        cz_circuit *circ = NULL;
        cz_status st = cz_circuit_from_r1cs(&circ, &r1cs, &err);
        if (st == CZ_OK)
            st = cz_groth16_dev_setup_progress(&params, circ, seed, setup_progress, &prog, &err);
        cz_circuit_free(circ);
        cz_cli_progress_end(&prog);
        if (st != CZ_OK) return cz_cli_fail("bench-groth16: setup", &err);
        printf("  development setup       %8.2f s\n", cz_cli_seconds_since(t0));
        if (params_path && cz_groth16_params_write(&params, params_path, &err) != CZ_OK)
            return cz_cli_fail("bench-groth16: write params", &err);
    }
    cz_r1cs_free(&r1cs);

    t0 = cz_now_ns();
    cz_cs *pcs = cz_cs_prove_new();
    if (!pcs) return cz_cli_fail("bench-groth16: prove", &(cz_error){CZ_E_NOMEM, "out of memory"});
    synthesize_chain(pcs, n);
    cz_prove_data pd;
    if (cz_prove_finish(pcs, &pd, &err) != CZ_OK)
        return cz_cs_destroy(pcs), cz_cli_fail("bench-groth16: synthesis", &err);
    cz_cs_destroy(pcs);
    printf("  synthesis (witness, a/b/c) %5.2f s\n", cz_cli_seconds_since(t0));

    cz_backend *be = NULL;
    if (cz_cli_backend_open(&be, backend, &err) != CZ_OK)
        return cz_cli_fail("bench-groth16: back-end", &err);
    cz_backend_unit unit = {.job_id = "bench",
                            .kind = CZ_PROOF_KIND_UNSPECIFIED,
                            .circuit_id = "bench-groth16",
                            .params = &params,
                            .pd = &pd};
    int gpu = strcmp(be->ops->kind, "cpu") != 0;
    double times[15];
    cz_groth16_proof proof;
    for (int i = gpu ? -1 : 0; i < runs; i++) {
        t0 = cz_now_ns();
        cz_groth16_msm_results msm;
        cz_status st = cz_backend_prove_start(be, &msm, &unit, &err);
        if (st == CZ_OK) st = cz_groth16_prove_finalize(&proof, &params.vk, &msm, NULL, NULL, &err);
        if (st != CZ_OK) return cz_backend_destroy(be), cz_cli_fail("bench-groth16: prove", &err);
        if (i < 0) /* the context keeps the key resident from its first unit on */
            printf("  first proof (key upload) %7.3f s\n", cz_cli_seconds_since(t0));
        else
            times[i] = cz_cli_seconds_since(t0);
    }
    const char *where = gpu ? "GPU" : "CPU";
    cz_backend_destroy(be);
    cz_bench_sort(times, (size_t)runs);
    printf("  prove (%s)             %8.3f s  (median; min %.3f, max %.3f)\n", where,
           times[runs / 2], times[0], times[runs - 1]);

    int valid = 0;
    t0 = cz_now_ns();
    if (cz_groth16_verify(&valid, &params.vk, &proof, pd.input_assignment + 1, CHAIN_INPUTS,
                          &err) != CZ_OK)
        return cz_cli_fail("bench-groth16: verify", &err);
    printf("  verify                  %8.4f s  (%s)\n", cz_cli_seconds_since(t0),
           valid ? "proof valid" : "PROOF INVALID");
    printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    cz_prove_data_free(&pd);
    cz_groth16_params_free(&params);
    return valid ? 0 : 1;
}
