/* Sub-commands of the cuzk binary: each takes argv from its own name on and
 * returns the process exit status. */
#ifndef CZ_CLI_COMMANDS_H
#define CZ_CLI_COMMANDS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "cuzk/engine.h"
#include "engine/backend.h"
#include "filecoin/post/post.h"
#include "filecoin/snap/snap.h"
#include "groth16/groth16.h"
#include "r1cs/circuit.h"

/* Shared by every command (common.c). */

/* A decimal u64 option value: digits only, no sign, no overflow. Returns 0
 * when text is not one. */
int cz_cli_parse_u64(const char *text, uint64_t *out);

/* A whole file into *data (malloc'ed, free it), at most max bytes:
 * CZ_E_IO naming the file and the system's reason when it cannot be read,
 * CZ_E_PARSE when it is larger than max. */
cz_status cz_cli_read_file(uint8_t **data, size_t *len, const char *path, size_t max,
                           cz_error *err);

/* 1 when arg asks for help: --help, -h or help. */
int cz_cli_is_help(const char *arg);

/* A failed command's one line on stderr, "cuzk CMD: message"; returns 1
 * (the exit status of a failure of the work). */
int cz_cli_fail(const char *cmd, const cz_error *err);

/* Seconds since t0 (cz_now_ns). */
double cz_cli_seconds_since(uint64_t t0);

/* Whether path is a directory; mkdir -p. */
int cz_cli_is_dir(const char *path);
cz_status cz_cli_make_dir(const char *path, cz_error *err);

/* An output file that is known to be writable before the work that fills
 * it starts (a proof that took minutes must not be lost to a typo in --out).
 * cz_cli_out_open creates PATH.tmp-PID next to path (so a directory that is
 * missing or read-only fails at once, with the system's reason) and refuses a
 * directory; cz_cli_out_commit flushes, syncs and renames it over path, so
 * path never holds a partial file; cz_cli_out_abort removes it. A path that
 * exists and is not a regular file (/dev/stdout, a FIFO) is written
 * directly. */
typedef struct {
    FILE *file;
    char path[4096], tmp[4096]; /* tmp[0] == 0: written in place */
} cz_cli_out;
cz_status cz_cli_out_open(cz_cli_out *out, const char *path, cz_error *err);
cz_status cz_cli_out_commit(cz_cli_out *out, cz_error *err);
void cz_cli_out_abort(cz_cli_out *out);

/* Progress of a long step on a stream: on a terminal one line redrawn with
 * '\r' (at most every 0.2 s), elsewhere (a pipe, a log) a full line at most
 * every 10 s, so logs stay readable. Each line has the percentage, the
 * elapsed time and, from 2 % on, an estimate of the time left. */
typedef struct {
    FILE *stream;
    const char *what;
    int tty, open_line;
    uint64_t start_ns, last_ns;
} cz_cli_progress;
void cz_cli_progress_begin(cz_cli_progress *p, FILE *stream, const char *what);
/* done of total units (any unit that is about proportional to time). */
void cz_cli_progress_update(cz_cli_progress *p, uint64_t done, uint64_t total);
/* Ends the redrawn line (if any); prints nothing else. */
void cz_cli_progress_end(cz_cli_progress *p);
/* cz_cli_progress_update as a callback (ctx: the cz_cli_progress). */
void cz_cli_progress_fn(void *ctx, uint64_t done, uint64_t total);

/* --backend's value: 1 when auto, cpu or cuda, else 0 after a message
 * naming cmd. */
int cz_cli_backend_valid(const char *cmd, const char *backend);

/* Checked before anything slow (parameters, setup) starts: 1 for "cpu", for
 * a device that answers, and for "auto" on a machine with no GPU at all;
 * else 0 after a message naming cmd and why ("cuda" without a device, or a
 * GPU this build cannot use: no code for its compute capability, a driver
 * too old). */
int cz_cli_backend_available(const char *cmd, const char *backend);

/* One back-end context for a --backend choice (printed): a CUDA device, or
 * the CPU ("auto" without a usable device). "cuda" without one fails with
 * the reason. Free with cz_backend_destroy. */
cz_status cz_cli_backend_open(cz_backend **out, const char *backend, cz_error *err);

/* What a benchmark may change in the CLI's engine; 0 keeps the default
 * (the daemon's): synthesis_workers, the synthesis workers' count;
 * gpu_workers, the prove workers per device; partitions_ahead, the
 * run-ahead bound (units synthesized or in flight at once);
 * synthesis_nice, the synthesis workers' nice value; memory_budget, the
 * host memory budget (else physical memory less the safety margin). */
typedef struct {
    uint32_t synthesis_workers, gpu_workers, partitions_ahead, synthesis_nice;
    uint64_t memory_budget;
} cz_cli_engine_tuning;

/* An engine as the CLI commands use it: one back-end context of the
 * --backend choice (printed; *cpu when it is the CPU), parameters from
 * param_dir, results kept 10 minutes, no same-circuit runs, a line on
 * stdout per proven partition, the timeline to trace when not NULL. With a
 * GPU every core synthesizes partitions for it and two prove workers take
 * them; on the CPU two synthesis workers and one prove worker; tuning
 * (NULL: none) changes those. */
cz_status cz_cli_engine_open(cz_engine **e, int *cpu, const char *backend, const char *param_dir,
                             const char *trace, const cz_cli_engine_tuning *tuning, cz_error *err);

/* Peak device memory in use (device 0, sampled every 20 ms) while it runs;
 * stop returns 0 when no sampler ran (no GPU), else 1 and the peak. */
typedef struct {
    atomic_int stop;
    uint64_t peak;
    pthread_t thread;
    int running;
} cz_cli_device_sampler;
void cz_cli_device_sampler_start(cz_cli_device_sampler *d);
int cz_cli_device_sampler_stop(cz_cli_device_sampler *d, uint64_t *peak);

/* Busy time and units of all the engine's back-end contexts so far. */
uint64_t cz_cli_engine_busy_ns(cz_engine *e, uint64_t *units);
/* "host to device: X GB per partition": bytes (cz_gpu_h2d_bytes's growth)
 * over units, with the rate over busy_ns (cz_cli_engine_busy_ns's growth,
 * per context) and the time a PCIe gen 4 link (~25 GB/s) would need for
 * them; nothing when no bytes crossed (the CPU back-end). */
void cz_cli_print_h2d(cz_engine *e, uint64_t bytes, uint64_t units, uint64_t busy_ns);

/* Shared by the PoRep, PoSt and SnapDeals forms of setup / prove / verify
 * (proof_common.c). */

/* Development Groth16 parameters (NOT a trusted setup; fixed seed) written
 * to params_path / vk_path in dir, from the pre-compiled circuit that
 * load(out, built, circuit_path, ctx, progress, err) reads or builds at
 * circuit_path; on the GPU when backend allows and one answers (falling
 * back to the CPU for auto), else on all cores. Kept when both files exist,
 * unless force (the old files are removed first). what names the circuit in
 * the lines printed. */
typedef cz_status (*cz_cli_circuit_fn)(cz_circuit **out, int *built, const char *path,
                                       const void *ctx, FILE *progress, cz_error *err);
cz_status cz_cli_dev_setup(const char *dir, int force, const char *backend, const char *params_path,
                           const char *vk_path, const char *circuit_path, const char *what,
                           cz_cli_circuit_fn load, const void *ctx, cz_error *err);

/* Waits for job id of e: CZ_OK and *out (free it with
 * cz_engine_result_free) when it completed, else the job's message and its
 * status (CZ_E_VERIFY for a proof that failed self-verification,
 * CZ_E_CANCELLED, ...; *out freed). */
cz_status cz_cli_engine_await(cz_engine_result *out, cz_engine *e, const char *id, cz_error *err);
/* Proves req as the daemon does (an engine of its own with the chosen
 * back-end, parameters from param_dir, pipelined partitions, the proof
 * self-verified before it is returned). out->proof on success (free with
 * cz_engine_result_free); the job's error otherwise. */
cz_status cz_cli_engine_prove(cz_engine_result *out, const cz_engine_request *req,
                              const char *param_dir, const char *backend, cz_error *err);

/* Shared (proof_common.c): er proven through an engine of its own
 * (cz_cli_engine_prove), the timings printed, the proof bytes written to
 * out (t0: when the command started); the exit status. */
int cz_cli_request_prove(const cz_engine_request *er, const char *params, const char *out,
                         const char *backend, uint64_t t0);
/* Also shared: cz_cli_dev_setup with the failure or the vk path printed
 * (the exit status); a verification's outcome printed ("valid", "INVALID:
 * why" or the error; the exit status); the vk and the proof bytes (at most
 * 1 MiB) read. */
int cz_cli_setup_report(const char *dir, int force, const char *backend, const char *params_path,
                        const char *vk_path, const char *circuit_path, const char *what,
                        cz_cli_circuit_fn load, const void *ctx);
int cz_cli_verify_outcome(cz_status st, int valid, const cz_error *err);
cz_status cz_cli_read_vk_proof(cz_groth16_vk *vk, uint8_t **proof, size_t *proof_len,
                               const char *vk_path, const char *proof_path, cz_error *err);
/* verify --print-inputs: one partition's public inputs (ONE left out) on
 * stdout, one field element a line (0x and 64 hex digits, big-endian, as
 * blstrs prints an Fr), after a "# partition K: N public inputs" line;
 * partitions after the first begin with an empty line. */
void cz_cli_print_inputs(uint32_t partition, int first, const cz_fr *inputs, size_t n);

/* The parameter directory by default, as Filecoin's tools choose it
 * (prove's --params, params check): $FIL_PROOFS_PARAMETER_CACHE when set
 * and not empty, else /var/tmp/filecoin-proof-parameters. */
const char *cz_cli_param_dir_default(void);

/* PoSt forms of setup / prove / verify (src/cli/post.c): the kind
 * (cz_post_kind) and size; a request file (`cuzk gen post`). */
int cz_cli_post_setup(int kind, uint64_t sector_size, const char *dir, int force,
                      const char *backend);
int cz_cli_post_prove(const char *request, const char *params, const char *out,
                      const char *backend);
/* verify --post; print_inputs: the public inputs on stdout first (vk and
 * proof may then be NULL: nothing is verified). */
int cz_cli_post_verify(const char *request, const char *vk, const char *proof, int print_inputs);

/* SnapDeals forms of setup / prove / verify (src/cli/snap.c): the size;
 * a request file (`cuzk gen snap`). */
int cz_cli_snap_setup(uint64_t sector_size, const char *dir, int force, const char *backend);
int cz_cli_snap_prove(const char *request, const char *params, const char *out,
                      const char *backend);
int cz_cli_snap_verify(const char *request, const char *vk, const char *proof, int print_inputs);
/* A SnapDeals request file (`cuzk gen snap`), with a line saying what it
 * holds, and the engine request of its contents (pointing into req). */
cz_status cz_cli_snap_request_load(cz_snap_request *req, const char *path, cz_error *err);
void cz_cli_snap_engine_request(cz_engine_request *out, const cz_snap_request *req, const char *id);
/* A request file (`cuzk gen post`), with a line saying what it holds. */
cz_status cz_cli_post_request_load(cz_post_request *req, const char *path, cz_error *err);
/* The engine request of a PoSt request file's contents (pointing into req). */
void cz_cli_post_engine_request(cz_engine_request *out, const cz_post_request *req, const char *id);

int cz_cmd_daemon(int argc, char **argv);
int cz_cmd_r1cs(int argc, char **argv);
int cz_cmd_info(int argc, char **argv);
int cz_cmd_demo(int argc, char **argv);
int cz_cmd_setup(int argc, char **argv);
int cz_cmd_prove(int argc, char **argv);
int cz_cmd_verify(int argc, char **argv);
int cz_cmd_gen(int argc, char **argv);
int cz_cmd_params(int argc, char **argv);

#endif
