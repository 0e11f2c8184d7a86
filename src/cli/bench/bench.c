/* cuzk bench SUB: the one place that dispatches the bench sub-commands,
 * the daemon client's (client.c) and gpu (gpu.c). The benchmarks of their
 * own name (bench-arith, bench-porep, ...) are main.c's commands. */
#include <stdio.h>
#include <string.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"

void cz_bench_usage(FILE *out) {
    fprintf(out,
            "usage: cuzk bench <command> [options]   (client of a running `cuzk daemon`)\n"
            "commands:\n"
            "  single   one proof (Prove), prints the result and timings\n"
            "  batch    -c/--count N proofs, -j/--concurrency J at a time; summary\n"
            "  stress   --rate R proofs/min for --duration S seconds (SubmitProof + AwaitProof)\n"
            "  status   GetStatus\n"
            "  metrics  GetMetrics (Prometheus text)\n"
            "  preload  -c/--circuit-id ID (porep-32g, winning-post-32g, window-post-32g,\n"
            "           snap-32g, ...; sizes 2k 8m 512m 32g 64g)\n"
            "  evict    -c/--circuit-id ID\n"
            "  gpu      the CUDA kernels on this machine, no daemon (cuzk bench gpu --help)\n"
            "options:\n"
            "  -a/--addr ADDR        unix:///path, http://IP:PORT or IP:PORT (default "
            "unix://cuzk.sock)\n"
            "  -t/--type porep       single/batch/stress: porep|porep-c2|seal-commit (the daemon\n"
            "                        proves PoSt and SnapDeals too; this client sends PoRep only)\n"
            "  --c1 FILE             C1 output (Curio envelope or raw JSON)\n"
            "  --sector-num N        (default: the envelope's, else 1)\n"
            "  --miner-id N          (default 1000)\n"
            "  --priority P          low|normal|high|critical (default: the kind's)\n"
            "  --timeout-ms N        per call (default none)\n"
            "  -o/--out FILE         single: write the proof bytes\n");
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0]: the sub-command */
} sub_commands[] = {
    {"single", cz_bench_client}, {"batch", cz_bench_client},   {"stress", cz_bench_client},
    {"status", cz_bench_client}, {"metrics", cz_bench_client}, {"preload", cz_bench_client},
    {"evict", cz_bench_client},  {"gpu", cz_cmd_bench_gpu},
};

int cz_cmd_bench(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "cuzk bench: which command?\n");
        cz_bench_usage(stderr);
        return 2;
    }
    if (cz_cli_is_help(argv[1])) {
        cz_bench_usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof sub_commands / sizeof sub_commands[0]; i++)
        if (!strcmp(argv[1], sub_commands[i].name)) return sub_commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cuzk bench: unknown command '%s'\n", argv[1]);
    cz_bench_usage(stderr);
    return 2;
}
