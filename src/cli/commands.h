/* Sub-commands of the cuzk binary: each takes argv from its own name on and
 * returns the process exit status. */
#ifndef CZ_CLI_COMMANDS_H
#define CZ_CLI_COMMANDS_H

#include <stdint.h>

/* A decimal u64 option value: digits only, no sign, no overflow. Returns 0
 * when text is not one. */
int cz_cli_parse_u64(const char *text, uint64_t *out);

int cz_cmd_bench_arith(int argc, char **argv);
int cz_cmd_daemon(int argc, char **argv);
int cz_cmd_bench_client(int argc, char **argv);
int cz_cmd_r1cs(int argc, char **argv);
int cz_cmd_info(int argc, char **argv);
int cz_cmd_bench_groth16(int argc, char **argv);
int cz_cmd_bench_synth(int argc, char **argv);
int cz_cmd_demo(int argc, char **argv);
int cz_cmd_setup(int argc, char **argv);
int cz_cmd_prove(int argc, char **argv);
int cz_cmd_verify(int argc, char **argv);
int cz_cmd_bench_gpu(int argc, char **argv);
int cz_cmd_gen(int argc, char **argv);

#endif
