/* cuzk bench-synth: PoRep circuit synthesis of partitions of a synthetic
 * sector (generated sparse above 8 MiB), on the prove back-end (witness and
 * a/b/c evaluations, what the Groth16 prover consumes), or witness only
 * (what a GPU with the pre-compiled circuit needs): in parallel over the
 * challenges into one reused cz_witness (cz_porep_synthesize_witness), or
 * on the sequential witness back-end (the reference). --kind snap: the
 * witness of SnapDeals partitions of a synthetic update (cuzk gen snap's,
 * seed 1) on the witness back-end, one thread per partition as the engine
 * runs them. Reports time and peak memory (VmHWM). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "filecoin/porep/porep.h"
#include "filecoin/snap/snap_prove.h"
#include "filecoin/porep/vanilla.h"
#include "util/parallel.h"

static void usage(FILE *out) {
    fprintf(out, "usage: cuzk bench-synth [--sector-size SIZE] [--partition K] [--partitions N]\n"
                 "                        [--witness-only [--threads T] [--together [--rounds R]]\n"
                 "                         | --sequential | --kind snap]\n"
                 "  SIZE: 2KiB (default), 8MiB, 512MiB, 32GiB, 64GiB\n"
                 "  --partition K: the first partition (default 0); --partitions N: N partitions\n"
                 "      one after another (K, K+1, ... cycling over the sector's; default 1)\n"
                 "  default: the prove back-end (witness, a/b/c evaluations, densities)\n"
                 "  --witness-only: the witness only, the challenges on T threads (default all\n"
                 "      cores, $CZ_THREADS) into one cz_witness reused across the partitions\n"
                 "  --together: the N partitions in one call (one pool of threads over all their\n"
                 "      challenges, N witnesses held at once), R times (default 1) into the same\n"
                 "      N cz_witness\n"
                 "  --sequential: the witness only, on the sequential witness back-end (one\n"
                 "      thread, fresh buffers per partition: the reference)\n"
                 "  --kind snap: SnapDeals partitions of a synthetic update instead, witness\n"
                 "      only (one thread each)\n");
}

static void progress(void *ctx, uint32_t done, uint32_t total) {
    cz_cli_progress_update(ctx, done, total);
}

typedef enum { MODE_PROVE, MODE_PARALLEL, MODE_SEQUENTIAL } synth_mode;

/* One partition on the prove or the sequential witness back-end. */
static cz_status synth_fresh(uint32_t *aux, uint64_t *constraints, synth_mode mode,
                             const cz_porep_geometry *g, const cz_c1 *c1, uint32_t partition,
                             cz_error *err) {
    cz_cs *cs = mode == MODE_SEQUENTIAL ? cz_cs_witness_new() : cz_cs_prove_new();
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    cz_cli_progress prog;
    cz_cli_progress_begin(&prog, stderr, "synthesis");
    cz_status st = cz_porep_synthesize_progress(cs, g, c1, partition, progress, &prog, err);
    cz_cli_progress_end(&prog);
    if (st == CZ_OK && mode == MODE_PROVE) {
        cz_prove_data pd;
        st = cz_prove_finish(cs, &pd, err);
        if (st == CZ_OK) *constraints = pd.num_constraints, *aux = pd.num_aux;
        if (st == CZ_OK) cz_prove_data_free(&pd);
    } else if (st == CZ_OK) {
        cz_fr *inputs = NULL, *aux_values = NULL;
        uint32_t n_inputs = 0;
        st = cz_witness_finish(cs, &inputs, &n_inputs, &aux_values, aux, err);
        *constraints = cs->num_constraints;
        free(inputs), free(aux_values);
    }
    cz_cs_destroy(cs);
    return st;
}

/* CPU seconds of the whole process (all threads). */
static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --together: n partitions per call, `rounds` calls into the same n witnesses. */
static cz_status synth_together(const cz_porep_geometry *g, const cz_porep_layout *layout,
                                const cz_c1 *c1, uint32_t first, uint32_t n, uint32_t rounds,
                                unsigned threads, cz_error *err) {
    cz_witness *w = calloc(n, sizeof *w);
    uint32_t *parts = calloc(n, sizeof *parts);
    cz_status st = w && parts ? CZ_OK : cz_error_set(err, CZ_E_NOMEM, "out of memory");
    for (uint32_t k = 0; k < n && st == CZ_OK; k++) parts[k] = (first + k) % c1->partitions;
    for (uint32_t r = 0; r < rounds && st == CZ_OK; r++) {
        uint64_t t0 = cz_now_ns();
        double cpu0 = cpu_seconds();
        st = cz_porep_synthesize_witnesses(w, n, g, layout, c1, parts, threads, err);
        if (st == CZ_OK)
            printf("  round %-3u %u partitions %8.3f s, cpu %.3f s  (%u aux each); peak RSS "
                   "%.1f MiB\n",
                   r, n, (double)(cz_now_ns() - t0) / 1e9, cpu_seconds() - cpu0, w[0].num_aux,
                   (double)cz_peak_rss_bytes() / (1 << 20));
    }
    for (uint32_t k = 0; w && k < n; k++) cz_witness_free(&w[k]);
    free(w), free(parts);
    return st;
}

/* --kind snap: the witness of each partition (cz_snap_synthesize_witness). */
static int bench_snap(uint64_t size, uint64_t partition, uint64_t partitions) {
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk bench-synth %s: SnapDeals, %llu-byte sector, partitions %llu.. (%llu), witness "
           "only (witness back-end), 1 thread\n%s\n",
           CZ_VERSION, (unsigned long long)size, (unsigned long long)partition,
           (unsigned long long)partitions, machine);
    cz_error err = {0};
    cz_snap_config cfg;
    cz_snap_gen_opts o;
    cz_snap_gen_opts_from_seed(&o, 1);
    cz_snap_comms comms;
    cz_snap_partition_proof *p = NULL;
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_snap_config_from_sector(&cfg, size, &err);
    if (st == CZ_OK && !(p = calloc(cfg.partitions, sizeof *p)))
        st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    if (st == CZ_OK) st = cz_snap_gen(p, &comms, &cfg, &o, &err);
    if (st == CZ_OK)
        printf("  generate update         %8.2f s, peak RSS %.0f MiB\n",
               (double)(cz_now_ns() - t0) / 1e9, (double)cz_peak_rss_bytes() / (1 << 20));
    cz_witness w = {0};
    for (uint64_t k = 0; st == CZ_OK && k < partitions; k++) {
        uint32_t part = (uint32_t)((partition + k) % cfg.partitions);
        t0 = cz_now_ns();
        double cpu0 = cpu_seconds();
        st = cz_snap_synthesize_witness(&w, &cfg, part, &comms, &p[part], &err);
        if (st == CZ_OK)
            printf("  partition %-3u synthesis %8.3f s, cpu %.3f s  (%u aux); peak RSS %.1f MiB\n",
                   part, (double)(cz_now_ns() - t0) / 1e9, cpu_seconds() - cpu0, w.num_aux,
                   (double)cz_peak_rss_bytes() / (1 << 20));
    }
    cz_witness_free(&w);
    if (p) cz_snap_proofs_free(p, cfg.partitions);
    if (st != CZ_OK) return cz_cli_fail("bench-synth", &err);
    return 0;
}

int cz_cmd_bench_synth(int argc, char **argv) {
    uint64_t size = 2048, partition = 0, partitions = 1, threads = 0, rounds = 1;
    int together = 0, snap = 0;
    synth_mode mode = MODE_PROVE;
    for (int i = 1; i < argc; i++) {
        cz_error err = {0};
        uint64_t *num = NULL;
        if (!strcmp(argv[i], "--sector-size") && i + 1 < argc) {
            if (cz_fc_sector_size_parse(&size, argv[++i], &err) != CZ_OK) {
                fprintf(stderr, "cuzk bench-synth: %s\n", err.message);
                return 2;
            }
        } else if (!strcmp(argv[i], "--partition") && i + 1 < argc) {
            num = &partition;
        } else if (!strcmp(argv[i], "--partitions") && i + 1 < argc) {
            num = &partitions;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            num = &threads;
        } else if (!strcmp(argv[i], "--witness-only")) {
            if (mode != MODE_SEQUENTIAL) mode = MODE_PARALLEL;
        } else if (!strcmp(argv[i], "--together")) {
            together = 1;
        } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
            num = &rounds;
        } else if (!strcmp(argv[i], "--sequential")) {
            mode = MODE_SEQUENTIAL;
        } else if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
            const char *k = argv[++i];
            if (strcmp(k, "porep") && strcmp(k, "snap") && strcmp(k, "snap-update")) {
                fprintf(stderr, "cuzk bench-synth: --kind '%s': expected porep or snap\n", k);
                return 2;
            }
            snap = k[0] == 's';
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk bench-synth: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        if (num && !cz_cli_parse_u64(argv[++i], num)) {
            fprintf(stderr, "cuzk bench-synth: %s: bad number '%s'\n", argv[i - 1], argv[i]);
            return 2;
        }
    }
    if (partitions < 1 || partitions > 1000 || threads > 4096 || rounds < 1 || rounds > 1000) {
        fprintf(stderr,
                "cuzk bench-synth: --partitions 1..1000, --threads 0..4096, --rounds 1..1000\n");
        return 2;
    }
    if ((threads || together) && mode != MODE_PARALLEL) {
        fprintf(stderr, "cuzk bench-synth: --threads and --together need --witness-only (not "
                        "--sequential)\n");
        return 2;
    }
    if (rounds > 1 && !together) {
        fprintf(stderr, "cuzk bench-synth: --rounds needs --together\n");
        return 2;
    }
    if (snap && (mode != MODE_PROVE || threads || together)) {
        fprintf(stderr, "cuzk bench-synth: --kind snap is witness only: no other mode\n");
        return 2;
    }
    if (snap) return bench_snap(size, partition, partitions);
    unsigned nthreads =
        mode == MODE_PARALLEL ? (threads ? (unsigned)threads : cz_thread_count()) : 1;
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk bench-synth %s: PoRep, %llu-byte sector, partitions %llu.. (%llu), %s, %u "
           "thread%s\n%s\n",
           CZ_VERSION, (unsigned long long)size, (unsigned long long)partition,
           (unsigned long long)partitions,
           mode == MODE_PROVE ? "prove back-end"
           : mode == MODE_PARALLEL
               ? (together ? "witness only (parallel, the partitions in one call)"
                           : "witness only (parallel, one reused cz_witness)")
               : "witness only (sequential witness back-end)",
           nthreads, nthreads == 1 ? "" : "s", machine);
    cz_error err = {0};
    cz_fc_proof_info info;
    if (cz_fc_proof_lookup_by_size(&info, size, CZ_FC_API_V1_1_0, 0, &err) != CZ_OK)
        return cz_cli_fail("bench-synth", &err);
    uint64_t t0 = cz_now_ns();
    cz_fc_gen_opts gen = {
        .registered_proof = info.id, .seed = 1, .miner_id = 1000, .sector_num = 1, .sparse = -1};
    cz_c1 c1 = {0};
    cz_porep_geometry g;
    cz_porep_layout layout;
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
    if (mode == MODE_PARALLEL) {
        t0 = cz_now_ns();
        st = cz_porep_layout_make(&layout, &g, &err);
        if (st == CZ_OK)
            printf("  layout                  %8.3f s  (%u + %u x %u aux, %u + %u x %u inputs)\n",
                   (double)(cz_now_ns() - t0) / 1e9, layout.top_aux, g.challenges,
                   layout.challenge_aux, layout.top_inputs, g.challenges, layout.challenge_inputs);
    }
    if (together) {
        st = st == CZ_OK ? synth_together(&g, &layout, &c1, (uint32_t)partition,
                                          (uint32_t)partitions, (uint32_t)rounds, nthreads, &err)
                         : st;
        cz_c1_free(&c1);
        if (st != CZ_OK) return cz_cli_fail("bench-synth", &err);
        printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
        return 0;
    }
    cz_witness w = {0};
    double *times = calloc(partitions, sizeof *times);
    if (!times) st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    uint32_t aux = 0;
    uint64_t constraints = 0;
    for (uint64_t k = 0; st == CZ_OK && k < partitions; k++) {
        uint32_t p = (uint32_t)((partition + k) % c1.partitions);
        t0 = cz_now_ns();
        double cpu0 = cpu_seconds();
        if (mode == MODE_PARALLEL) {
            st = cz_porep_synthesize_witnesses(&w, 1, &g, &layout, &c1, &p, nthreads, &err);
            aux = w.num_aux, constraints = layout.num_constraints;
        } else {
            st = synth_fresh(&aux, &constraints, mode, &g, &c1, p, &err);
        }
        times[k] = (double)(cz_now_ns() - t0) / 1e9;
        if (st == CZ_OK)
            printf("  partition %-3u synthesis %8.3f s, cpu %.3f s  (%u aux, %llu constraints%s); "
                   "peak RSS %.1f MiB\n",
                   p, times[k], cpu_seconds() - cpu0, aux, (unsigned long long)constraints,
                   mode == MODE_PROVE ? " with the input rows" : "",
                   (double)cz_peak_rss_bytes() / (1 << 20));
    }
    cz_witness_free(&w);
    cz_c1_free(&c1);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk bench-synth: %s\n", err.message);
        free(times);
        return 1;
    }
    if (partitions > 1) {
        /* the first unit faults the buffers' pages in; the rest reuse them */
        cz_bench_sort(times + 1, partitions - 1);
        printf("  median after the first  %8.3f s  (%llu partitions)\n",
               times[1 + (partitions - 1) / 2], (unsigned long long)(partitions - 1));
    }
    printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    free(times);
    return 0;
}
