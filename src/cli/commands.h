/* Sub-commands of the cuzk binary: each takes argv from its own name on and
 * returns the process exit status. */
#ifndef CZ_CLI_COMMANDS_H
#define CZ_CLI_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "cuzk/engine.h"
#include "engine/backend.h"
#include "groth16/groth16.h"

/* A decimal u64 option value: digits only, no sign, no overflow. Returns 0
 * when text is not one. */
int cz_cli_parse_u64(const char *text, uint64_t *out);

/* A whole file into *data (malloc'ed, free it), at most max bytes:
 * CZ_E_IO naming the file and the system's reason when it cannot be read,
 * CZ_E_PARSE when it is larger than max. */
cz_status cz_cli_read_file(uint8_t **data, size_t *len, const char *path, size_t max,
                           cz_error *err);

/* --backend's value: 1 when auto, cpu or cuda, else 0 after a message
 * naming cmd. */
int cz_cli_backend_valid(const char *cmd, const char *backend);

/* One back-end context for a --backend choice (printed): a CUDA device, or
 * the CPU ("auto" without a usable device). "cuda" without one fails with
 * the reason. Free with cz_backend_destroy. */
cz_status cz_cli_backend_open(cz_backend **out, const char *backend, cz_error *err);

/* Proves req as the daemon does (an engine of its own with the chosen
 * back-end, parameters from param_dir, pipelined partitions, the proof
 * self-verified before it is returned). out->proof on success (free with
 * cz_engine_result_free); the job's error otherwise. */
cz_status cz_cli_engine_prove(cz_engine_result *out, const cz_engine_request *req,
                              const char *param_dir, const char *backend, cz_error *err);

int cz_cmd_bench_arith(int argc, char **argv);
int cz_cmd_daemon(int argc, char **argv);
int cz_cmd_bench_client(int argc, char **argv);
int cz_cmd_r1cs(int argc, char **argv);
int cz_cmd_info(int argc, char **argv);
int cz_cmd_bench_groth16(int argc, char **argv);
int cz_cmd_bench_synth(int argc, char **argv);
int cz_cmd_bench_abc(int argc, char **argv);
int cz_cmd_demo(int argc, char **argv);
int cz_cmd_setup(int argc, char **argv);
int cz_cmd_prove(int argc, char **argv);
int cz_cmd_verify(int argc, char **argv);
int cz_cmd_bench_gpu(int argc, char **argv);
int cz_cmd_gen(int argc, char **argv);

#endif
