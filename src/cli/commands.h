/* Sub-commands of the cuzk binary: each takes argv from its own name on and
 * returns the process exit status. */
#ifndef CZ_CLI_COMMANDS_H
#define CZ_CLI_COMMANDS_H

int cz_cmd_bench_arith(int argc, char **argv);
int cz_cmd_r1cs(int argc, char **argv);
int cz_cmd_bench_groth16(int argc, char **argv);

#endif
