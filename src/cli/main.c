/* cuzk: the command-line front end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

int cz_cli_parse_u64(const char *text, uint64_t *out) {
    if (text[0] < '0' || text[0] > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

cz_status cz_cli_read_file(uint8_t **data, size_t *len, const char *path, size_t max,
                           cz_error *err) {
    *data = NULL, *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return cz_error_set(err, CZ_E_IO, "cannot open '%s': %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    cz_status st = CZ_OK;
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                st = cz_error_set(err, CZ_E_PARSE, "'%s' is larger than %zu bytes", path, max);
                break;
            }
            size_t next = cap ? 2 * cap : 1 << 16;
            uint8_t *grown = realloc(buf, next);
            if (!grown) {
                st = cz_error_set(err, CZ_E_NOMEM, "out of memory reading '%s'", path);
                break;
            }
            buf = grown, cap = next;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    if (st == CZ_OK && ferror(f))
        st = cz_error_set(err, CZ_E_IO, "cannot read '%s': %s", path, strerror(errno));
    if (st == CZ_OK && n > max)
        st = cz_error_set(err, CZ_E_PARSE, "'%s' is larger than %zu bytes", path, max);
    fclose(f);
    if (st != CZ_OK) {
        free(buf);
        return st;
    }
    *data = buf, *len = n;
    return CZ_OK;
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: cuzk <command> [options]\n"
            "\n"
            "commands:\n"
            "  demo                    PoRep C2 end to end on a synthetic 2 KiB sector (CPU)\n"
            "  setup --sector-size S --out DIR\n"
            "                          development parameters for a PoRep circuit\n"
            "  prove --c1 FILE --params DIR --out PROOF\n"
            "                          prove a PoRep C1 output (CPU), verified before written\n"
            "  verify --c1 FILE --vk FILE --proof PROOF\n"
            "                          check PoRep proof bytes against a C1 output\n"
            "  gen c1 --sector-size S --out FILE\n"
            "                          write a synthetic vanilla-valid C1 output\n"
            "  daemon [--config FILE] [--listen ADDR] [--print-config]\n"
            "                          serve cuzk.v1.ProvingEngine over gRPC\n"
            "  bench single|batch|stress|status|metrics|preload|evict ...\n"
            "                          client of a running daemon (cuzk bench for help)\n"
            "  bench-arith [--quick]   benchmark and self-check the CPU arithmetic\n"
            "                          (fields, curves, pairing, MSM, NTT)\n"
            "  bench-groth16 [-k K]    prove a synthetic 2^K-constraint circuit on the CPU\n"
            "  bench-synth [--sector-size S]\n"
            "                          PoRep synthesis of one partition: time and memory\n"
            "  bench-abc --circuit-dir DIR [--sector-size S]\n"
            "                          a/b/c from the pre-compiled circuit, CPU and GPU\n"
            "  bench gpu [--quick]     benchmark the CUDA back-end (NTT, MSM, batch addition)\n"
            "  r1cs info FILE          sizes, non-zeros and densities of a recorded circuit\n"
            "  info circuit --sector-size SIZE\n"
            "                          the PoRep circuit of a sector size (2KiB .. 64GiB):\n"
            "                          sizes, non-zeros, densities, FFT domain\n"
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
    if (!strcmp(cmd, "demo")) return cz_cmd_demo(argc - 1, argv + 1);
    if (!strcmp(cmd, "setup")) return cz_cmd_setup(argc - 1, argv + 1);
    if (!strcmp(cmd, "prove")) return cz_cmd_prove(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify")) return cz_cmd_verify(argc - 1, argv + 1);
    if (!strcmp(cmd, "gen")) return cz_cmd_gen(argc - 1, argv + 1);
    if (!strcmp(cmd, "daemon")) return cz_cmd_daemon(argc - 1, argv + 1);
    /* `bench gpu` first; other `bench` forms belong to the client commands */
    if (!strcmp(cmd, "bench") && argc > 2 && !strcmp(argv[2], "gpu"))
        return cz_cmd_bench_gpu(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return cz_cmd_bench_client(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-arith")) return cz_cmd_bench_arith(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-groth16")) return cz_cmd_bench_groth16(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-synth")) return cz_cmd_bench_synth(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-abc")) return cz_cmd_bench_abc(argc - 1, argv + 1);
    if (!strcmp(cmd, "r1cs")) return cz_cmd_r1cs(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return cz_cmd_info(argc - 1, argv + 1);
    fprintf(stderr, "cuzk: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}
