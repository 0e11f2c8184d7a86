/* cuzk bench-synth: PoRep circuit synthesis of one partition of a synthetic
 * sector (generated sparse above 8 MiB), on the prove back-end (witness and
 * a/b/c evaluations, what the Groth16 prover consumes) or the witness
 * back-end (assignments only, what a GPU with the pre-compiled circuit
 * needs). Reports time and peak memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/porep.h"
#include "filecoin/vanilla.h"
#include "util/parallel.h"

static void usage(FILE *out) {
    fprintf(out, "usage: cuzk bench-synth [--sector-size SIZE] [--partition K] [--witness-only]\n"
                 "  SIZE: 2KiB (default), 8MiB, 512MiB, 32GiB, 64GiB\n"
                 "  --witness-only: the witness back-end (no a/b/c evaluations)\n");
}

static void progress(void *ctx, uint32_t done, uint32_t total) {
    cz_cli_progress_update(ctx, done, total);
}

int cz_cmd_bench_synth(int argc, char **argv) {
    uint64_t size = 2048, partition = 0;
    int witness_only = 0;
    for (int i = 1; i < argc; i++) {
        cz_error err = {0};
        if (!strcmp(argv[i], "--sector-size") && i + 1 < argc) {
            if (cz_fc_sector_size_parse(&size, argv[++i], &err) != CZ_OK) {
                fprintf(stderr, "cuzk bench-synth: %s\n", err.message);
                return 2;
            }
        } else if (!strcmp(argv[i], "--partition") && i + 1 < argc) {
            if (!cz_cli_parse_u64(argv[++i], &partition)) {
                fprintf(stderr, "cuzk bench-synth: --partition: bad number '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--witness-only")) {
            witness_only = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk bench-synth: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk bench-synth %s: PoRep, %llu-byte sector, partition %llu, %s back-end\n%s\n",
           CZ_VERSION, (unsigned long long)size, (unsigned long long)partition,
           witness_only ? "witness" : "prove", machine);
    cz_error err = {0};
    cz_fc_proof_info info;
    if (cz_fc_proof_lookup_by_size(&info, size, CZ_FC_API_V1_1_0, 0, &err) != CZ_OK) {
        fprintf(stderr, "cuzk bench-synth: %s\n", err.message);
        return 1;
    }
    uint64_t t0 = cz_now_ns();
    cz_fc_gen_opts gen = {
        .registered_proof = info.id, .seed = 1, .miner_id = 1000, .sector_num = 1, .sparse = -1};
    cz_c1 c1 = {0};
    cz_porep_geometry g;
    cz_status st = cz_fc_gen_c1(&c1, &gen, &err);
    if (st == CZ_OK && partition >= c1.partitions)
        st = cz_error_set(&err, CZ_E_INVALID_ARG, "--partition %llu: the sector has %u",
                          (unsigned long long)partition, c1.partitions);
    if (st == CZ_OK) st = cz_porep_geometry_of_c1(&g, &c1, &err);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk bench-synth: %s\n", err.message);
        cz_c1_free(&c1);
        return 1;
    }
    printf("  generate C1 (%s)    %8.2f s, peak RSS %.0f MiB\n",
           size > (UINT64_C(8) << 20) ? "sparse" : "whole", (double)(cz_now_ns() - t0) / 1e9,
           (double)cz_peak_rss_bytes() / (1 << 20));
    t0 = cz_now_ns();
    cz_cs *cs = witness_only ? cz_cs_witness_new() : cz_cs_prove_new();
    if (!cs) st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    cz_cli_progress prog;
    cz_cli_progress_begin(&prog, stderr, "synthesis");
    if (st == CZ_OK)
        st = cz_porep_synthesize_progress(cs, &g, &c1, (uint32_t)partition, progress, &prog, &err);
    cz_cli_progress_end(&prog);
    uint64_t constraints = 0;
    uint32_t aux = 0;
    if (st == CZ_OK && !witness_only) {
        cz_prove_data pd;
        st = cz_prove_finish(cs, &pd, &err);
        constraints = pd.num_constraints, aux = pd.num_aux;
        if (st == CZ_OK) cz_prove_data_free(&pd);
    } else if (st == CZ_OK) {
        cz_fr *inputs = NULL, *aux_values = NULL;
        uint32_t n_inputs = 0;
        st = cz_witness_finish(cs, &inputs, &n_inputs, &aux_values, &aux, &err);
        free(inputs), free(aux_values);
    }
    double synth_s = (double)(cz_now_ns() - t0) / 1e9;
    cz_cs_destroy(cs);
    cz_c1_free(&c1);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk bench-synth: %s\n", err.message);
        return 1;
    }
    printf("  synthesis               %8.2f s  (%u aux", synth_s, aux);
    if (!witness_only) printf(", %llu constraints", (unsigned long long)constraints);
    printf("; one thread)\n  peak memory             %8.1f MiB\n",
           (double)cz_peak_rss_bytes() / (1 << 20));
    return 0;
}
