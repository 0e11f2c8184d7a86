/* The daemon's configuration: a TOML file with the keys of Curio's
 * cuzk.example.toml that still make sense here (same names and meanings),
 * plus a few of our own.
 *
 * The reader takes a TOML subset: [section] headers, key = value with
 * basic "strings" (\" \\ \n \t escapes), 'literal strings', integers,
 * booleans and one-line arrays of those; # comments. Unknown sections and
 * keys, malformed values and sizes are errors naming the file and line
 * ("cuzk.toml:12: [memory] total_budget: bad size '1.5GiB' ..."); keys the
 * Rust daemon deprecated are accepted with a warning. */
#ifndef CZ_DAEMON_CONFIG_H
#define CZ_DAEMON_CONFIG_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "util/size.h"

#define CZ_CONFIG_MAX_LIST   16
#define CZ_CONFIG_MAX_TUNING 48

typedef struct {
    /* [daemon] */
    char listen[512]; /* unix://PATH (relative = under the working dir) or IP:port */
    int allow_remote; /* TCP on a non-loopback address needs this */
    uint64_t drain_timeout_ms;
    char metrics_listen[64];     /* "IP:port" of the HTTP /metrics endpoint; "" = off */
    uint64_t max_request_memory; /* bytes of requests the calls in progress may hold */
    /* [memory] */
    uint64_t total_budget; /* bytes; 0 = auto */
    uint64_t safety_margin;
    uint64_t eviction_min_idle_ms;
    /* [gpus] */
    uint32_t devices[CZ_CONFIG_MAX_LIST];
    uint32_t n_devices;
    uint32_t gpu_threads;
    char backend[16]; /* prove back-end: "auto" (CUDA when a device works), "cpu", "cuda" */
    uint32_t gpu_workers_per_device;
    /* [scheduler] Same-circuit runs on the prove back-end (cz_engine_config):
     * up to max_batch_size (>= 1, default 8; 1 = plain priority/age order)
     * consecutive units of the circuit proven last; a unit of another circuit
     * ready longer than max_batch_wait_ms (default 10000) ends the run. */
    uint32_t max_batch_size;
    uint64_t max_batch_wait_ms;
    /* [synthesis] */
    uint32_t synthesis_threads; /* 0 = all cores */
    /* [pipeline] */
    uint32_t
        max_parallel_synthesis;   /* synthesis workers; 0 = auto (all cores with a GPU, else 2) */
    uint32_t max_gpu_queue_depth; /* synthesized partitions waiting; 0 = prove workers */
    uint32_t partitions_ahead;    /* synthesized or being synthesized ahead; 0 = auto */
    uint32_t synthesis_nice;      /* the synthesis workers' nice value; 0 = none */
    /* [srs] */
    char param_cache[PATH_MAX];
    char preload[CZ_CONFIG_MAX_LIST][32];
    uint32_t n_preload;
    /* [engine] (ours) */
    uint64_t result_retention_ms;
    /* [logging] */
    char log_level[16]; /* error, warn, info, debug */
    int timeline;
    /* [tuning] (ours): the knobs of the GPU layer and the key loading
     * (gpu/settings.h), each under its environment variable's name in lower
     * case without "CZ_" (gpu_mem_limit = "24GiB"); the knobs the file sets
     * to other than their defaults, as written; an environment variable
     * that is set wins. */
    struct {
        char key[40];
        char value[128];
        int quoted; /* a TOML string (else an integer) */
    } tuning[CZ_CONFIG_MAX_TUNING];
    uint32_t n_tuning;
} cz_daemon_config;

void cz_config_defaults(cz_daemon_config *cfg);

/* Parses text (name is used in messages) over cfg, which holds defaults.
 * Warnings (deprecated keys) are written to warn when not NULL. */
cz_status cz_config_parse(cz_daemon_config *cfg, const char *text, size_t len, const char *name,
                          FILE *warn, cz_error *err);
cz_status cz_config_load(cz_daemon_config *cfg, const char *path, FILE *warn, cz_error *err);

/* A listen address taken apart: a unix socket path (as written: relative
 * paths are under the working directory) or an IP literal and a port. */
typedef struct {
    int is_unix;
    char path[PATH_MAX];
    char host[64]; /* IPv4 or IPv6 literal, no brackets; "localhost" becomes 127.0.0.1 */
    unsigned port; /* 1..65535 (metrics_listen: 0..65535) */
} cz_listen_addr;

/* Parses listen: unix://PATH, unix:PATH, IP:PORT or [IPv6]:PORT. A host
 * that is not a loopback address needs allow_remote (the gRPC service has
 * no TLS and no authentication). Touches no file and no socket. */
cz_status cz_listen_parse(cz_listen_addr *out, const char *listen, int allow_remote, cz_error *err);

/* metrics_listen: IP:PORT or [IPv6]:PORT (port 0: the kernel picks one),
 * loopback unless allow_remote. */
cz_status cz_metrics_listen_parse(cz_listen_addr *out, const char *listen, int allow_remote,
                                  cz_error *err);

/* Checks what no single key can: the listen and metrics_listen addresses
 * against allow_remote, and that each [srs] preload names a known circuit
 * whose .params and .vk are readable under param_cache. `cuzk daemon
 * --print-config` and `cuzk daemon` both run it before anything else, so
 * a configuration that prints is one that starts, but for what only a
 * start can see (a port in use, a damaged parameter file). */
cz_status cz_config_check(const cz_daemon_config *cfg, cz_error *err);

/* Makes cfg's [tuning] the process's knobs (cz_gpu_settings_use_lookup):
 * each knob from its environment variable when that is set, else from
 * cfg, else its default. The daemon calls it before its engine starts. */
cz_status cz_config_apply_tuning(const cz_daemon_config *cfg, cz_error *err);

/* Writes the effective configuration as TOML that cz_config_parse reads back. */
void cz_config_print(const cz_daemon_config *cfg, FILE *out);

/* Writes the documented example file (dist/cuzk.example.toml): every key
 * with its meaning and its default, from the one table of keys. */
void cz_config_print_example(FILE *out);

/* "250ms", "30s", "5m", "2h" or a plain number of seconds. */
cz_status cz_parse_duration_ms(uint64_t *out, const char *s, cz_error *err);

#endif
