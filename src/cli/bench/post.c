/* cuzk bench-post: WinningPoSt and WindowPoSt through an engine in this
 * process, as the daemon proves them (the request's vanilla proofs checked
 * at submission, every proof self-verified):
 *   - WinningPoSt end to end, submission to verified result: the first
 *     proof (cold: SRS load, key upload), then --runs more one after the
 *     other with the key resident (median, min, max);
 *   - WindowPoSt: one partition alone (cold), then --runs partitions
 *     submitted together: seconds per partition in steady state;
 *   - with a backlog (--backlog-c1: PoRep proofs of a C1 output;
 *     --backlog-snap: SnapDeals updates of a request; --backlog-window:
 *     partitions of the --window request) of N jobs queued, and once one of
 *     their partitions is being proven, one WinningPoSt submitted: its
 *     latency, how many of the backlog's partitions were proven while it
 *     waited, and the share of the backlog's time its proving took. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "filecoin/porep/c1.h"
#include "gpu/gpu.h"
#include "util/parallel.h"

#define MAX_RUNS 64

static void usage(FILE *out) {
    fprintf(out,
            "usage: cuzk bench-post --params DIR [--winning FILE] [--window FILE] [--runs N]\n"
            "                       [--backlog-c1 FILE | --backlog-snap FILE | --backlog-window]\n"
            "                       [--backlog N] [--miner-id N] [--synthesis-nice N]\n"
            "                       [--backend auto|cpu|cuda] [--trace FILE]\n"
            "  --winning FILE   a WinningPoSt request (`cuzk gen post --kind winning`): latency\n"
            "                   of the first proof (cold) and, key resident, the median of N\n"
            "                   proofs one after the other (--runs, default 5)\n"
            "  --window FILE    a WindowPoSt partition request (`cuzk gen post --kind window`):\n"
            "                   one alone (cold), then N submitted together: steady-state\n"
            "                   seconds per partition, host-to-device bytes per partition\n"
            "  --backlog-c1 FILE  with --winning: N PoRep proofs of this C1 output (--backlog,\n"
            "                   default 2; --miner-id as for bench-porep) queued, then one\n"
            "                   WinningPoSt once a PoRep partition is being proven: its latency\n"
            "                   and the PoRep partitions proven while it waited\n"
            "  --backlog-snap FILE  the same with N SnapDeals updates of this request\n"
            "                   (`cuzk gen snap`) as the backlog\n"
            "  --backlog-window the same with N partitions of the --window request as the\n"
            "                   backlog (no WindowPoSt benchmark of its own then)\n"
            "  --synthesis-nice N  the synthesis workers' nice value, 1 to 19 (the daemon's\n"
            "                   [pipeline] synthesis_nice; default none)\n"
            "  --trace FILE     the timeline of every unit as Chrome trace-event JSON\n");
}

/* Waits for a job; its result (free it) or the job's error, named by id. */
static cz_status await_job(cz_engine *e, const char *id, cz_engine_result *r, cz_error *err) {
    cz_status st = cz_cli_engine_await(r, e, id, err);
    return st == CZ_OK ? CZ_OK : cz_error_wrap(err, st, "%s", id);
}

/* One PoSt proof, submission to verified result: its wall seconds and,
 * when r is not NULL, the engine's result. */
static cz_status prove_post(cz_engine *e, const cz_post_request *req, const char *id,
                            double *seconds, cz_engine_result *r, cz_error *err) {
    cz_engine_request er;
    cz_cli_post_engine_request(&er, req, id);
    cz_engine_submit_info info;
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_engine_submit(e, &er, &info, err);
    cz_engine_result res;
    if (st == CZ_OK) st = await_job(e, id, &res, err);
    if (st != CZ_OK) return st;
    *seconds = cz_cli_seconds_since(t0);
    if (r)
        *r = res;
    else
        cz_engine_result_free(&res);
    return CZ_OK;
}

static void print_parts(const char *what, double seconds, const cz_engine_result *r) {
    printf("  %-23s %8.3f s  (parameters %.3f s, queued %.3f s, synthesis %.3f s, prove %.3f "
           "s)\n",
           what, seconds, (double)r->srs_load_ms / 1e3, (double)r->queue_wait_ms / 1e3,
           (double)r->synthesis_ms / 1e3, (double)r->gpu_compute_ms / 1e3);
}

static cz_status bench_winning(cz_engine *e, const cz_post_request *req, unsigned runs,
                               double *resident, cz_error *err) {
    double cold = 0, v[MAX_RUNS];
    cz_engine_result r;
    cz_status st = prove_post(e, req, "winning-cold", &cold, &r, err);
    if (st != CZ_OK) return st;
    print_parts("WinningPoSt, cold", cold, &r);
    cz_engine_result_free(&r);
    for (unsigned i = 0; i < runs && st == CZ_OK; i++) {
        char id[32];
        snprintf(id, sizeof id, "winning-%u", i);
        st = prove_post(e, req, id, &v[i], NULL, err);
    }
    if (st != CZ_OK) return st;
    *resident = cz_bench_median(v, runs);
    printf("  WinningPoSt, resident   %8.3f s  median of %u (min %.3f s, max %.3f s)\n", *resident,
           runs, v[0], v[runs - 1]);
    return CZ_OK;
}

static cz_status bench_window(cz_engine *e, const cz_post_request *req, unsigned runs,
                              cz_error *err) {
    double cold = 0;
    cz_engine_result r;
    cz_status st = prove_post(e, req, "window-cold", &cold, &r, err);
    if (st != CZ_OK) return st;
    print_parts("WindowPoSt, cold", cold, &r);
    cz_engine_result_free(&r);
    char ids[MAX_RUNS][32];
    cz_engine_request er;
    uint64_t units0 = 0, units1 = 0;
    const uint64_t busy0 = cz_cli_engine_busy_ns(e, &units0), h2d0 = cz_gpu_h2d_bytes();
    uint64_t t0 = cz_now_ns();
    for (unsigned i = 0; i < runs && st == CZ_OK; i++) {
        snprintf(ids[i], sizeof ids[i], "window-%u", i);
        cz_cli_post_engine_request(&er, req, ids[i]);
        cz_engine_submit_info info;
        st = cz_engine_submit(e, &er, &info, err);
    }
    double first = 0, last = 0;
    for (unsigned i = 0; i < runs && st == CZ_OK; i++) {
        if ((st = await_job(e, ids[i], &r, err)) != CZ_OK) break;
        cz_engine_result_free(&r);
        last = cz_cli_seconds_since(t0);
        if (i == 0) first = last;
    }
    if (st != CZ_OK) return st;
    if (runs > 1)
        printf("  WindowPoSt, steady      %8.3f s/partition  (%u together: %.3f s from the "
               "first result to the last)\n",
               (last - first) / (runs - 1), runs, last - first);
    printf("  WindowPoSt, batch wall  %8.3f s  (%.3f s/partition, %u together)\n", last,
           last / runs, runs);
    const uint64_t busy1 = cz_cli_engine_busy_ns(e, &units1);
    cz_cli_print_h2d(e, cz_gpu_h2d_bytes() - h2d0, units1 - units0, busy1 - busy0);
    return CZ_OK;
}

/* Prove workers busy right now. */
static uint32_t prove_busy(cz_engine *e) {
    cz_engine_status *s = malloc(sizeof *s);
    if (!s) return 0;
    cz_engine_get_status(e, s);
    uint32_t busy = s->prove_workers_busy;
    free(s);
    return busy;
}

/* The backlog's jobs: tmpl submitted N times under other ids; what names
 * them ("PoRep", "SnapDeals", "WindowPoSt"). */
typedef struct {
    cz_engine_request tmpl;
    const char *what;
} backlog_spec;

static cz_status bench_backlog(cz_engine *e, const cz_post_request *winning, const backlog_spec *b,
                               unsigned proofs, double resident, cz_error *err) {
    char ids[MAX_RUNS][32];
    cz_status st = CZ_OK;
    uint64_t t0 = cz_now_ns();
    for (unsigned i = 0; i < proofs && st == CZ_OK; i++) {
        snprintf(ids[i], sizeof ids[i], "backlog-%u", i);
        cz_engine_request r = b->tmpl;
        r.request_id = ids[i];
        cz_engine_submit_info info;
        st = cz_engine_submit(e, &r, &info, err);
    }
    /* The backlog runs once one of its partitions is in the prover. */
    while (st == CZ_OK && prove_busy(e) == 0) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    if (st != CZ_OK) return st;
    uint32_t busy = prove_busy(e);
    double queued_s = cz_cli_seconds_since(t0);
    uint64_t units0 = 0, units1 = 0;
    cz_cli_engine_busy_ns(e, &units0);
    double seconds = 0;
    cz_engine_result r;
    st = prove_post(e, winning, "winning-backlog", &seconds, &r, err);
    if (st != CZ_OK) return st;
    cz_cli_engine_busy_ns(e, &units1);
    printf("  backlog                 %u %s job(s) queued, a partition in the prover "
           "%.2f s later (%u prove worker(s) busy)\n",
           proofs, b->what, queued_s, busy);
    print_parts("WinningPoSt, backlog", seconds, &r);
    /* The rest of its latency: the prove queue (the PoRep partitions in the
     * prover finish first), finalization and self-verification. */
    double parts =
        (double)(r.srs_load_ms + r.queue_wait_ms + r.synthesis_ms + r.gpu_compute_ms) / 1e3;
    const double device_s = (double)r.gpu_compute_ms / 1e3;
    cz_engine_result_free(&r);
    printf("  WinningPoSt, backlog    %8.3f s more than resident alone, %.3f s waiting for a "
           "prove slot; %llu %s partition(s) proven while it waited\n",
           seconds - resident, seconds - parts, (unsigned long long)(units1 - units0 - 1), b->what);
    for (unsigned i = 0; i < proofs && st == CZ_OK; i++) {
        if ((st = await_job(e, ids[i], &r, err)) == CZ_OK) cz_engine_result_free(&r);
    }
    if (st == CZ_OK) {
        /* What the backlog lost: the proving time the WinningPoSt took
         * inside it (its unit runs on the context the backlog's partition
         * had), a lower bound that leaves out its synthesis's CPU time. */
        const double backlog_s = cz_cli_seconds_since(t0);
        printf("  backlog done            %8.2f s  (the WinningPoSt proving %.3f s of it: "
               "%.2f %%)\n",
               backlog_s, device_s, backlog_s > 0 ? 100.0 * device_s / backlog_s : 0.0);
    }
    return st;
}

static int parse_count(const char *opt, const char *text, unsigned *out) {
    uint64_t v = 0;
    if (!cz_cli_parse_u64(text, &v) || v < 1 || v > MAX_RUNS) {
        fprintf(stderr, "cuzk bench-post: --%s: '%s' is not a count from 1 to %d\n", opt, text,
                MAX_RUNS);
        return 0;
    }
    *out = (unsigned)v;
    return 1;
}

int cz_cmd_bench_post(int argc, char **argv) {
    const char *params = NULL, *winning_path = NULL, *window_path = NULL, *c1_path = NULL;
    const char *snap_path = NULL, *backend = "auto", *trace = NULL;
    unsigned runs = 5, backlog = 2;
    cz_cli_engine_tuning tuning = {0};
    int backlog_window = 0;
    uint64_t miner = 0;
    static const struct option opts[] = {{"params", required_argument, NULL, 'p'},
                                         {"winning", required_argument, NULL, 'w'},
                                         {"window", required_argument, NULL, 'W'},
                                         {"runs", required_argument, NULL, 'n'},
                                         {"backlog-c1", required_argument, NULL, 'c'},
                                         {"backlog-snap", required_argument, NULL, 's'},
                                         {"backlog-window", no_argument, NULL, 'B'},
                                         {"backlog", required_argument, NULL, 'N'},
                                         {"miner-id", required_argument, NULL, 'm'},
                                         {"backend", required_argument, NULL, 'b'},
                                         {"trace", required_argument, NULL, 't'},
                                         {"synthesis-nice", required_argument, NULL, 'S'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'p': params = optarg; break;
        case 'w': winning_path = optarg; break;
        case 'W': window_path = optarg; break;
        case 'c': c1_path = optarg; break;
        case 's': snap_path = optarg; break;
        case 'B': backlog_window = 1; break;
        case 't': trace = optarg; break;
        case 'n':
            if (!parse_count("runs", optarg, &runs)) return 2;
            break;
        case 'N':
            if (!parse_count("backlog", optarg, &backlog)) return 2;
            break;
        case 'S': {
            uint64_t v = 0;
            if (!cz_cli_parse_u64(optarg, &v) || v < 1 || v > 19) {
                fprintf(stderr,
                        "cuzk bench-post: --synthesis-nice: '%s' is not a count from 1 to 19\n",
                        optarg);
                return 2;
            }
            tuning.synthesis_nice = (uint32_t)v;
            break;
        }
        case 'm':
            if (!cz_cli_parse_u64(optarg, &miner)) {
                fprintf(stderr, "cuzk bench-post: --miner-id: '%s' is not a number\n", optarg);
                return 2;
            }
            break;
        case 'b':
            if (!cz_cli_backend_valid("bench-post", optarg)) return 2;
            backend = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    const int backlogs = (c1_path != NULL) + (snap_path != NULL) + backlog_window;
    if (!params || (!winning_path && !window_path) || (backlogs && !winning_path) || backlogs > 1 ||
        (backlog_window && !window_path) || optind != argc) {
        usage(stderr);
        return 2;
    }
    if (!cz_cli_backend_available("bench-post", backend)) return 1;
    char machine[512];
    cz_machine_describe(machine, sizeof machine);
    printf("cuzk bench-post: %u run(s)%s\n%s\n", runs,
           c1_path     ? ", PoRep backlog"
           : snap_path ? ", SnapDeals backlog"
           : backlogs  ? ", WindowPoSt backlog"
                       : "",
           machine);

    cz_error err = {0};
    cz_status st = CZ_OK;
    cz_post_request winning = {0}, window = {0};
    int have_winning = 0, have_window = 0;
    uint8_t *c1 = NULL;
    size_t c1_len = 0;
    cz_snap_request snap = {0};
    int have_snap = 0;
    if (winning_path && (st = cz_cli_post_request_load(&winning, winning_path, &err)) == CZ_OK)
        have_winning = 1;
    if (st == CZ_OK && window_path &&
        (st = cz_cli_post_request_load(&window, window_path, &err)) == CZ_OK)
        have_window = 1;
    if (st == CZ_OK && (have_winning && winning.kind != CZ_POST_WINNING))
        st = cz_error_set(&err, CZ_E_INVALID_ARG, "--winning %s is not a WinningPoSt request",
                          winning_path);
    if (st == CZ_OK && (have_window && window.kind != CZ_POST_WINDOW))
        st = cz_error_set(&err, CZ_E_INVALID_ARG, "--window %s is not a WindowPoSt request",
                          window_path);
    backlog_spec bl;
    memset(&bl, 0, sizeof bl);
    if (st == CZ_OK && c1_path) {
        st = cz_cli_read_file(&c1, &c1_len, c1_path, (size_t)1 << 30, &err);
        if (st != CZ_OK) cz_error_prefix(&err, "%s", c1_path);
        bl.tmpl.kind = CZ_PROOF_POREP;
        bl.tmpl.vanilla_proof = c1, bl.tmpl.vanilla_proof_len = c1_len;
        bl.tmpl.miner_id = miner;
        bl.what = "PoRep";
    }
    if (st == CZ_OK && snap_path &&
        (st = cz_cli_snap_request_load(&snap, snap_path, &err)) == CZ_OK) {
        have_snap = 1;
        cz_cli_snap_engine_request(&bl.tmpl, &snap, NULL);
        bl.what = "SnapDeals";
    }
    if (st == CZ_OK && backlog_window) {
        cz_cli_post_engine_request(&bl.tmpl, &window, NULL);
        bl.what = "WindowPoSt";
    }
    cz_engine *e = NULL;
    int cpu = 0;
    if (st == CZ_OK) st = cz_cli_engine_open(&e, &cpu, backend, params, trace, &tuning, &err);
    cz_cli_device_sampler ds = {0};
    if (st == CZ_OK && !cpu) cz_cli_device_sampler_start(&ds);
    uint64_t t0 = cz_now_ns();
    double resident = 0;
    if (st == CZ_OK && have_winning) st = bench_winning(e, &winning, runs, &resident, &err);
    if (st == CZ_OK && have_window && !backlog_window) st = bench_window(e, &window, runs, &err);
    if (st == CZ_OK && backlogs) st = bench_backlog(e, &winning, &bl, backlog, resident, &err);
    if (st == CZ_OK) printf("  total                   %8.2f s\n", cz_cli_seconds_since(t0));
    cz_engine_destroy(e);
    uint64_t peak_device = 0;
    if (cz_cli_device_sampler_stop(&ds, &peak_device))
        printf("  peak device memory      %8.1f GiB\n", (double)peak_device / (1u << 30));
    printf("  peak host memory        %8.1f GiB\n", (double)cz_peak_rss_bytes() / (1u << 30));
    free(c1);
    if (have_snap) cz_snap_request_free(&snap);
    if (have_winning) cz_post_request_free(&winning);
    if (have_window) cz_post_request_free(&window);
    if (st != CZ_OK) return cz_cli_fail("bench-post", &err);
    return 0;
}
