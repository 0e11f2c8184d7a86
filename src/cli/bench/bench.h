/* The benchmarks (src/cli/bench/): the commands main.c lists, the one
 * dispatch of `cuzk bench SUB` (bench.c) and what the benchmarks share
 * (common.c). */
#ifndef CZ_CLI_BENCH_BENCH_H
#define CZ_CLI_BENCH_BENCH_H

#include <stddef.h>
#include <stdio.h>

/* cuzk bench SUB: the daemon client's sub-commands and gpu (bench.c). */
int cz_cmd_bench(int argc, char **argv);
/* Its usage text, which the client also prints on a bad option. */
void cz_bench_usage(FILE *out);
/* A client of a running daemon (client.c): argv[0] is the sub-command
 * (single, batch, stress, status, metrics, preload or evict). */
int cz_bench_client(int argc, char **argv);

/* The benchmark commands of their own name. */
int cz_cmd_bench_arith(int argc, char **argv);
int cz_cmd_bench_groth16(int argc, char **argv);
int cz_cmd_bench_synth(int argc, char **argv);
int cz_cmd_bench_abc(int argc, char **argv);
int cz_cmd_bench_porep(int argc, char **argv);
int cz_cmd_bench_post(int argc, char **argv);
int cz_cmd_bench_gpu(int argc, char **argv);

/* v[0..n) sorted ascending, in place. */
void cz_bench_sort(double *v, size_t n);
/* The median of v[0..n) (n > 0; sorted in place): the middle value, or the
 * mean of the two middle values when n is even. */
double cz_bench_median(double *v, size_t n);

#endif
