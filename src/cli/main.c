/* cuzk: the command-line front end. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: cuzk <command> [options]\n"
            "\n"
            "commands:\n"
            "  bench-arith [--quick]   benchmark and self-check the CPU arithmetic\n"
            "                          (fields, curves, pairing, MSM, NTT)\n"
            "  bench-groth16 [-k K]    prove a synthetic 2^K-constraint circuit on the CPU\n"
            "  r1cs info FILE          sizes, non-zeros and densities of a recorded circuit\n"
            "  version                 print the version\n"
            "  help                    this text\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("cuzk %s\n", CZ_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "bench-arith")) return cz_cmd_bench_arith(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-groth16")) return cz_cmd_bench_groth16(argc - 1, argv + 1);
    if (!strcmp(cmd, "r1cs")) return cz_cmd_r1cs(argc - 1, argv + 1);
    fprintf(stderr, "cuzk: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}
