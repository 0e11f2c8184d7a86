/* cuzk r1cs info FILE: sizes, non-zeros and densities of a recorded circuit. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "groth16/groth16.h"
#include "r1cs/backends.h"

static uint64_t popcount_bits(const uint64_t *bits, uint64_t n) {
    uint64_t total = 0;
    for (uint64_t i = 0; i < (n + 63) / 64; i++) total += (uint64_t)__builtin_popcountll(bits[i]);
    return total;
}

static int r1cs_info(const char *path) {
    cz_r1cs r;
    cz_error err = {0};
    if (cz_r1cs_read(&r, path, &err) != CZ_OK) return cz_cli_fail("r1cs info", &err);
    unsigned log_m = 0;
    int have_domain = cz_groth16_domain_log_size(&log_m, r.num_constraints, &err) == CZ_OK;
    printf("file:                 %s\n", path);
    printf("inputs (with ONE):    %u\n", r.num_inputs);
    printf("aux:                  %u\n", r.num_aux);
    printf("constraints:          %llu (including %u appended input constraints)\n",
           (unsigned long long)r.num_constraints, r.num_inputs);
    printf("non-zeros A / B / C:  %llu / %llu / %llu\n",
           (unsigned long long)r.a.row_start[r.a.rows], (unsigned long long)r.b.row_start[r.b.rows],
           (unsigned long long)r.c.row_start[r.c.rows]);
    printf("density a_aux:        %llu of %u\n",
           (unsigned long long)popcount_bits(r.a_aux_density, r.num_aux), r.num_aux);
    printf("density b_input:      %llu of %u\n",
           (unsigned long long)popcount_bits(r.b_input_density, r.num_inputs), r.num_inputs);
    printf("density b_aux:        %llu of %u\n",
           (unsigned long long)popcount_bits(r.b_aux_density, r.num_aux), r.num_aux);
    if (have_domain)
        printf("FFT domain:           2^%u\n", log_m);
    else
        printf("FFT domain:           none (%s)\n", err.message);
    cz_r1cs_free(&r);
    return 0;
}

static void r1cs_usage(FILE *out) {
    fprintf(out, "usage: cuzk r1cs info FILE\n"
                 "  Sizes, non-zeros, densities and FFT domain of a recorded circuit file (cuzk's\n"
                 "  own format, e.g. from cuzk bench-groth16 --save-r1cs FILE).\n");
}

int cz_cmd_r1cs(int argc, char **argv) {
    if (argc >= 2 && cz_cli_is_help(argv[1])) {
        r1cs_usage(stdout);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "info")) {
        if (argc < 2)
            fprintf(stderr, "cuzk r1cs: which command? (info)\n");
        else
            fprintf(stderr, "cuzk r1cs: unknown command '%s' (only info)\n", argv[1]);
        r1cs_usage(stderr);
        return 2;
    }
    if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
        r1cs_usage(stdout);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "cuzk r1cs info: %s\n", argc < 3 ? "FILE is required" : "one FILE only");
        r1cs_usage(stderr);
        return 2;
    }
    return r1cs_info(argv[2]);
}
