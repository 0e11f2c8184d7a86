/* cuzk bench-porep: PoRep C2 through an engine in this process, as a storage
 * provider runs it: one proof alone (cold: SRS load and key upload included),
 * then N proofs submitted together (steady state). Reports latency, seconds
 * per proof, the back-end contexts' busy fraction, the GPU prover's steps per
 * partition, peak host memory and peak device memory, with a line per proven
 * partition; --trace writes every unit's timeline as Chrome trace-event JSON
 * (Perfetto, chrome://tracing). --snap REQUEST does the same with a SnapDeals
 * update (`cuzk gen snap`) instead of a C1 output. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "filecoin/porep/c1_envelope.h"
#include "filecoin/snap/snap.h"
#include "gpu/gpu.h"
#include "util/parallel.h"
#include "util/size.h"

static void usage(FILE *out) {
    fprintf(out, "usage: cuzk bench-porep --c1 FILE|--snap REQUEST --params DIR [--proofs N]\n"
                 "                        [--miner-id N] [--backend auto|cpu|cuda] [--trace FILE]\n"
                 "                        [--synthesis-workers N] [--gpu-workers N]\n"
                 "                        [--partitions-ahead N] [--memory-budget SIZE]\n"
                 "                        [--synthesis-nice N]\n"
                 "  Proves the C1 output (or the SnapDeals update request of `cuzk gen snap`)\n"
                 "  once alone (cold), then N times together (default 3),\n"
                 "  every proof self-verified; prints latency, steady-state seconds per proof,\n"
                 "  back-end busy fraction and time per proof, GPU steps per partition (and the\n"
                 "  median and longest call of each), host-to-device bytes per partition, peak\n"
                 "  host and device memory.\n"
                 "  --trace FILE: the timeline of every unit as Chrome trace-event JSON.\n"
                 "  --synthesis-workers N: partitions synthesized at once (the daemon's\n"
                 "  [pipeline] max_parallel_synthesis; default: every core with a GPU, else 2).\n"
                 "  --gpu-workers N: prove workers per GPU (the daemon's [gpus]\n"
                 "  gpu_workers_per_device; default 4 on a GPU with under 40 GiB for keys,\n"
                 "  else 2): the units of one streamed key that share a pass over its points\n"
                 "  (CZ_GPU_PASS_UNITS) are at most these.\n"
                 "  --partitions-ahead N: partitions synthesized or waiting for the prover at\n"
                 "  once (the daemon's [pipeline] partitions_ahead; default: 2 per prove\n"
                 "  worker + 2): more prove workers without more witnesses in host memory.\n"
                 "  --memory-budget SIZE: the host memory the engine may reserve (e.g. 100GiB;\n"
                 "  the daemon's [memory] total_budget; default: physical memory less 15 %%).\n"
                 "  --synthesis-nice N: the synthesis workers' nice value, 1 to 19 (the\n"
                 "  daemon's [pipeline] synthesis_nice; default none).\n");
}

/* *out = the count given to --name (1 to max); 0 after the message when
 * it is not one. */
static int count_arg(uint32_t *out, const char *name, const char *arg, uint64_t max) {
    uint64_t v = 0;
    if (!cz_cli_parse_u64(arg, &v) || v < 1 || v > max) {
        fprintf(stderr, "cuzk bench-porep: --%s: '%s' is not a count from 1 to %llu\n", name, arg,
                (unsigned long long)max);
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

/* The request template under another id. */
static cz_status submit_one(cz_engine *e, const char *id, const cz_engine_request *tmpl,
                            cz_error *err) {
    cz_engine_request r = *tmpl;
    r.request_id = id;
    cz_engine_submit_info info;
    return cz_engine_submit(e, &r, &info, err);
}

static cz_status await_one(cz_engine *e, const char *id, double *total_s, cz_error *err) {
    cz_engine_result r;
    cz_status st = cz_cli_engine_await(&r, e, id, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "%s", id);
    *total_s = (double)r.total_ms / 1e3;
    cz_engine_result_free(&r);
    return CZ_OK;
}

int cz_cmd_bench_porep(int argc, char **argv) {
    const char *c1_path = NULL, *snap_path = NULL, *params = NULL, *backend = "auto", *trace = NULL;
    uint64_t proofs = 3, miner = 0;
    cz_cli_engine_tuning tuning = {0};
    static const struct option opts[] = {{"c1", required_argument, NULL, 'c'},
                                         {"params", required_argument, NULL, 'p'},
                                         {"proofs", required_argument, NULL, 'n'},
                                         {"miner-id", required_argument, NULL, 'm'},
                                         {"backend", required_argument, NULL, 'b'},
                                         {"trace", required_argument, NULL, 't'},
                                         {"synthesis-workers", required_argument, NULL, 'w'},
                                         {"gpu-workers", required_argument, NULL, 'g'},
                                         {"partitions-ahead", required_argument, NULL, 'a'},
                                         {"memory-budget", required_argument, NULL, 'M'},
                                         {"synthesis-nice", required_argument, NULL, 'N'},
                                         {"snap", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'c': c1_path = optarg; break;
        case 's': snap_path = optarg; break;
        case 'p': params = optarg; break;
        case 't': trace = optarg; break;
        case 'n':
        case 'm':
            if (!cz_cli_parse_u64(optarg, opt == 'n' ? &proofs : &miner) ||
                (opt == 'n' && (proofs < 1 || proofs > 64))) {
                fprintf(stderr, "cuzk bench-porep: --%s: '%s' is not %s\n",
                        opt == 'n' ? "proofs" : "miner-id", optarg,
                        opt == 'n' ? "a count from 1 to 64" : "a number");
                return 2;
            }
            break;
        case 'w':
            if (!count_arg(&tuning.synthesis_workers, "synthesis-workers", optarg, 256)) return 2;
            break;
        case 'g':
            if (!count_arg(&tuning.gpu_workers, "gpu-workers", optarg, 8)) return 2;
            break;
        case 'a':
            if (!count_arg(&tuning.partitions_ahead, "partitions-ahead", optarg, 256)) return 2;
            break;
        case 'N':
            if (!count_arg(&tuning.synthesis_nice, "synthesis-nice", optarg, 19)) return 2;
            break;
        case 'M': {
            cz_error serr = {0};
            if (cz_parse_size(&tuning.memory_budget, optarg, &serr) != CZ_OK ||
                !tuning.memory_budget) {
                fprintf(stderr, "cuzk bench-porep: --memory-budget: '%s' is not a size (%s)\n",
                        optarg, serr.message[0] ? serr.message : "zero");
                return 2;
            }
            break;
        }
        case 'b':
            if (!cz_cli_backend_valid("bench-porep", optarg)) return 2;
            backend = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!c1_path == !snap_path || !params || optind != argc) {
        usage(stderr);
        return 2;
    }
    if (!cz_cli_backend_available("bench-porep", backend)) return 1;
    cz_error err = {0};
    uint8_t *c1 = NULL;
    size_t c1_len = 0;
    const char *path = c1_path ? c1_path : snap_path;
    cz_status st = cz_cli_read_file(&c1, &c1_len, path, (size_t)1 << 31, &err);
    cz_c1 parsed = {0};
    cz_snap_request snap = {0};
    cz_snap_config snap_cfg;
    uint64_t snap_size = 0;
    cz_engine_request tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    char name[64] = "";
    unsigned partitions = 0;
    if (st == CZ_OK && c1_path && (st = cz_c1_parse(&parsed, c1, c1_len, &err)) == CZ_OK) {
        snprintf(name, sizeof name, "%s", parsed.registered_proof_name);
        partitions = parsed.partitions;
        tmpl.kind = CZ_PROOF_POREP;
        tmpl.vanilla_proof = c1, tmpl.vanilla_proof_len = c1_len;
        tmpl.miner_id = miner;
    } else if (st == CZ_OK && snap_path &&
               (st = cz_snap_request_parse_json(&snap, c1, c1_len, &err)) == CZ_OK &&
               (st = cz_snap_proof_sector_size(&snap_size, snap.registered_proof, &err)) == CZ_OK &&
               (st = cz_snap_config_from_sector(&snap_cfg, snap_size, &err)) == CZ_OK) {
        snprintf(name, sizeof name, "%s update", cz_snap_proof_name(snap.registered_proof));
        partitions = snap_cfg.partitions;
        cz_cli_snap_engine_request(&tmpl, &snap, NULL);
    }
    cz_c1_free(&parsed);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk bench-porep: %s: %s\n", path, err.message);
        cz_snap_request_free(&snap);
        free(c1);
        return 1;
    }
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk bench-porep: %s, %u partition(s), %llu proof(s) together after one alone\n%s\n",
           name, partitions, (unsigned long long)proofs, machine);

    cz_engine *e = NULL;
    int cpu = 0;
    if ((st = cz_cli_engine_open(&e, &cpu, backend, params, trace, &tuning, &err)) != CZ_OK) {
        fprintf(stderr, "cuzk bench-porep: %s\n", err.message);
        cz_snap_request_free(&snap);
        free(c1);
        return 1;
    }
    {
        cz_engine_status *bs = malloc(sizeof *bs);
        if (bs) {
            cz_engine_get_status(e, bs);
            printf("  host memory budget      %.1f GiB%s\n",
                   (double)bs->memory_total_bytes / (1024.0 * 1024.0 * 1024.0),
                   tuning.memory_budget ? " (--memory-budget)" : "");
            free(bs);
        }
    }
    cz_cli_device_sampler ds = {0};
    if (!cpu) cz_cli_device_sampler_start(&ds);

    double cold = 0, warm = 0, first_end = 0, last_end = 0;
    uint64_t t0 = cz_now_ns();
    st = submit_one(e, "bench-cold", &tmpl, &err);
    if (st == CZ_OK) st = await_one(e, "bench-cold", &cold, &err);
    if (st == CZ_OK)
        printf("  latency, first proof    %8.2f s  (cold: SRS load, key upload)\n", cold);
    uint64_t units0 = 0, busy0 = cz_cli_engine_busy_ns(e, &units0);
    const uint64_t h2d0 = cz_gpu_h2d_bytes();
    uint64_t t1 = cz_now_ns();
    char ids[64][32];
    for (uint64_t i = 0; i < proofs && st == CZ_OK; i++) {
        snprintf(ids[i], sizeof ids[i], "bench-%llu", (unsigned long long)i);
        st = submit_one(e, ids[i], &tmpl, &err);
    }
    for (uint64_t i = 0; i < proofs && st == CZ_OK; i++) {
        double total = 0;
        st = await_one(e, ids[i], &total, &err);
        if (i == 0) warm = total, first_end = cz_cli_seconds_since(t1);
        last_end = cz_cli_seconds_since(t1);
    }
    double wall = cz_cli_seconds_since(t1);
    uint64_t units1 = 0, busy1 = cz_cli_engine_busy_ns(e, &units1);
    const uint64_t h2d = cz_gpu_h2d_bytes() - h2d0;
    cz_engine_status *s = malloc(sizeof *s);
    if (st == CZ_OK && s) {
        cz_engine_get_status(e, s);
        printf("  latency, first of %-3llu  %8.2f s  (all submitted at once)\n",
               (unsigned long long)proofs, warm);
        if (proofs > 1)
            printf("  steady state            %8.2f s/proof  (%.2f s from the first result to "
                   "the last, %llu proofs)\n",
                   (last_end - first_end) / (double)(proofs - 1), last_end - first_end,
                   (unsigned long long)proofs);
        printf("  batch wall              %8.2f s  (%.2f s/proof)\n", wall, wall / (double)proofs);
        printf("  back-end busy           %8.1f %%  (%llu units)\n",
               100.0 * (double)(busy1 - busy0) / ((double)wall * 1e9 * s->n_backends),
               (unsigned long long)(units1 - units0));
        /* The steady-state line can fall below this when proofs overlap
         * (more prove workers finish more of the later proofs before the
         * first): while the back-end is the bottleneck, this is the rate. */
        printf("  back-end time per proof %8.2f s  (busy time / proofs / contexts)\n",
               (double)(busy1 - busy0) / 1e9 / (double)proofs / s->n_backends);
        cz_cli_print_h2d(e, h2d, units1 - units0, busy1 - busy0);
        uint64_t all_units = units1 ? units1 : 1;
        for (size_t i = 0; i < s->n_steps; i++)
            printf("  GPU step %-26s %8.1f ms per partition (%llu calls: median %.1f, longest "
                   "%.1f ms)\n",
                   s->steps[i].name, (double)s->steps[i].total_ns / 1e6 / (double)all_units,
                   (unsigned long long)s->steps[i].count, (double)s->steps[i].median_ns / 1e6,
                   (double)s->steps[i].max_ns / 1e6);
        printf("  total                   %8.2f s  (%llu proofs, %u partitions each)\n",
               cz_cli_seconds_since(t0), (unsigned long long)proofs + 1, partitions);
    }
    free(s);
    cz_engine_destroy(e);
    uint64_t peak_device = 0;
    if (cz_cli_device_sampler_stop(&ds, &peak_device))
        printf("  peak device memory      %8.1f GiB\n", (double)peak_device / (1u << 30));
    printf("  peak host memory        %8.1f GiB\n", (double)cz_peak_rss_bytes() / (1u << 30));
    cz_snap_request_free(&snap);
    free(c1);
    if (st != CZ_OK) return cz_cli_fail("bench-porep", &err);
    return 0;
}
