/* Sub-commands of the cuzk binary: each takes argv from its own name on and
 * returns the process exit status. */
#ifndef CZ_CLI_COMMANDS_H
#define CZ_CLI_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "gpu/gpu.h"
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

/* Opens the GPU for proving when backend is "cuda", or "auto" and a device
 * answers: the parameters go to the device (resident, or streamed when it is
 * too small; printed), *srs set. Else *srs = NULL (the CPU; the reason
 * printed). "cuda" without a device: CZ_E_UNSUPPORTED. */
cz_status cz_cli_gpu_open(cz_gpu_srs **srs, const char *backend, const cz_groth16_params *params,
                          cz_error *err);

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
