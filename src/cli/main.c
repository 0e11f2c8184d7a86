/* cuzk: the command-line front end. */
#include <stdio.h>
#include <string.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "gpu/gpu.h"
#include "util/parallel.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: cuzk <command> [options]      (cuzk <command> --help, or cuzk help <command>)\n"
            "\n"
            "Proving: PoRep C2, PoSt, SnapDeals (the GPU proves when a CUDA device answers, else\n"
            "the CPU; --backend cpu|cuda forces a side):\n"
            "  demo                    end to end on a synthetic 2 KiB sector: development\n"
            "                          parameters (made once), generate C1, prove, verify\n"
            "  setup [--kind porep|winning-post|window-post|snap] --sector-size S --out DIR\n"
            "                          development parameters (NOT a trusted setup)\n"
            "  prove --c1 FILE [--params DIR] --out PROOF\n"
            "                          prove a C1 output; verified before it is written\n"
            "  prove --post|--snap REQUEST [--params DIR] --out PROOF\n"
            "                          the same for a PoSt or SnapDeals request file\n"
            "  verify --c1 FILE --vk FILE --proof PROOF\n"
            "                          check proof bytes against a C1 output\n"
            "  verify --post|--snap REQUEST --vk FILE --proof PROOF\n"
            "                          the same against a PoSt or SnapDeals request file\n"
            "  gen c1 --sector-size S --out FILE\n"
            "                          write a synthetic vanilla-valid C1 output\n"
            "  gen post --kind winning|window --sector-size S --out FILE\n"
            "                          a PoSt request file of synthetic vanilla-valid proofs\n"
            "  gen snap --sector-size S --out FILE\n"
            "                          a SnapDeals request file of a synthetic update\n"
            "\n"
            "Service:\n"
            "  daemon [--config FILE] [--listen ADDR] [--print-config]\n"
            "                          serve cuzk.v1.ProvingEngine over gRPC (for Curio)\n"
            "  bench single|batch|stress|status|metrics|preload|evict ...\n"
            "                          client of a running daemon\n"
            "\n"
            "Benchmarks and inspection:\n"
            "  bench-arith [--quick]   CPU arithmetic (fields, curves, pairing, MSM, NTT),\n"
            "                          self-checked\n"
            "  bench-groth16 [--log-constraints K]\n"
            "                          prove a synthetic 2^K-constraint circuit (GPU if present)\n"
            "  bench-synth [--sector-size S]\n"
            "                          PoRep synthesis of one partition: time and memory\n"
            "  bench-porep --c1 FILE --params DIR [--proofs N] [--trace FILE]\n"
            "                          PoRep C2 through an in-process engine: latency,\n"
            "                          steady state, GPU steps, peak memory, timeline\n"
            "  bench-post --params DIR --winning FILE --window FILE [--runs N]\n"
            "             [--backlog-c1 FILE --backlog N]\n"
            "                          WinningPoSt latency (cold, key resident), WindowPoSt\n"
            "                          partition steady state, WinningPoSt during a PoRep backlog\n"
            "  bench-abc --circuit-dir DIR [--sector-size S]\n"
            "                          a/b/c from the pre-compiled circuit, CPU and GPU\n"
            "  bench gpu [--quick]     the CUDA kernels (NTT, MSM, batch addition)\n"
            "  info circuit [--kind K] --sector-size S\n"
            "                          the circuit of a kind (default porep) and sector size:\n"
            "                          sizes, non-zeros, densities, FFT domain\n"
            "  r1cs info FILE          the same for a recorded circuit file\n"
            "  params check [DIR]      every parameter file against Filecoin's published table:\n"
            "                          official, WRONG digest, development (cuzk setup), unknown\n"
            "  params table            the built-in table as JSON (parameters.json's shape)\n"
            "  version                 print the version\n"
            "  help [COMMAND]          this text, or a command's\n"
            "\n"
            "Environment: CZ_THREADS=N worker threads (default: every core).\n");
}

typedef int (*command_fn)(int argc, char **argv);

static const struct {
    const char *name;
    command_fn run;
} commands[] = {
    {"demo", cz_cmd_demo},
    {"setup", cz_cmd_setup},
    {"prove", cz_cmd_prove},
    {"verify", cz_cmd_verify},
    {"gen", cz_cmd_gen},
    {"daemon", cz_cmd_daemon},
    {"bench", cz_cmd_bench},
    {"bench-arith", cz_cmd_bench_arith},
    {"bench-groth16", cz_cmd_bench_groth16},
    {"bench-synth", cz_cmd_bench_synth},
    {"bench-abc", cz_cmd_bench_abc},
    {"bench-porep", cz_cmd_bench_porep},
    {"bench-post", cz_cmd_bench_post},
    {"r1cs", cz_cmd_r1cs},
    {"info", cz_cmd_info},
    {"params", cz_cmd_params},
};

static command_fn find_command(const char *name) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name)) return commands[i].run;
    return NULL;
}

int main(int argc, char **argv) {
    /* Lines reach a pipe or a log file as they are printed, in the order they
     * were printed relative to stderr (unbuffered). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (cz_cli_is_help(cmd)) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        /* cuzk help COMMAND [SUB]: the command's own --help */
        command_fn run = find_command(argv[2]);
        if (!run) {
            fprintf(stderr, "cuzk help: unknown command '%s'\n\n", argv[2]);
            usage(stderr);
            return 2;
        }
        char *sub[4] = {argv[2], argc > 3 ? argv[3] : "--help", "--help", NULL};
        return run(argc > 3 ? 3 : 2, sub);
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        const char *gpu_code = cz_gpu_build_code();
        printf("cuzk %s\nGPU code: %s\n", CZ_VERSION,
               gpu_code ? gpu_code : "none (built without CUDA: the CPU back-end only)");
        return 0;
    }
    command_fn run = find_command(cmd);
    if (!run) {
        fprintf(stderr, "cuzk: unknown command '%s'\n\n", cmd);
        usage(stderr);
        return 2;
    }
    cz_error err = {0};
    if (cz_thread_env_check(&err) != CZ_OK) {
        fprintf(stderr, "cuzk %s: %s\n", cmd, err.message);
        return 2;
    }
    return run(argc - 1, argv + 1);
}
