/* The proving back-end of a CLI command (--backend auto | cpu | cuda), the
 * in-process engine that prove and the benchmarks open, and what the
 * benchmarks measure of an engine (busy time, device memory). */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cuzk/engine.h"
#include "engine/backend.h"
#include "gpu/gpu.h"
#include "util/parallel.h"

int cz_cli_backend_valid(const char *cmd, const char *backend) {
    if (!strcmp(backend, "auto") || !strcmp(backend, "cpu") || !strcmp(backend, "cuda")) return 1;
    fprintf(stderr, "cuzk %s: --backend: expected auto, cpu or cuda, got '%s'\n", cmd, backend);
    return 0;
}

int cz_cli_backend_available(const char *cmd, const char *backend) {
    cz_error err = {0};
    cz_status st = cz_backend_choice_check(backend, &err);
    if (st == CZ_OK) return 1;
    if (st == CZ_E_NOT_FOUND)
        fprintf(stderr,
                "cuzk %s: --backend cuda: no NVIDIA driver / no CUDA device: %s (--backend auto "
                "or cpu proves on the CPU)\n",
                cmd, err.message);
    else
        fprintf(stderr, "cuzk %s: --backend %s: %s (--backend cpu proves on the CPU)\n", cmd,
                backend, err.message);
    return 0;
}

static void print_backend(const cz_backend *b) {
    printf("  back-end                %s: %s\n", b->info.name, b->info.description);
}

cz_status cz_cli_backend_open(cz_backend **out, const char *backend, cz_error *err) {
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.backend = backend;
    uint32_t n = 0;
    cz_status st = cz_backends_create(out, &n, 1, &cfg, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "--backend %s", backend);
    print_backend(*out);
    return CZ_OK;
}

cz_status cz_cli_engine_open(cz_engine **e, int *cpu, const char *backend, const char *param_dir,
                             const char *trace, const cz_cli_engine_tuning *tuning, cz_error *err) {
    *e = NULL;
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.backend = backend;
    cfg.param_cache = param_dir;
    cfg.result_retention_ms = 600000;
    cfg.max_batch_size = 1;
    cfg.trace_path = trace;
    cfg.progress = stdout; /* a line per proven partition */
    /* the engine chooses the contexts (every usable device, as the daemon's
     * do) and the workers left at 0 */
    if (tuning) {
        cfg.synthesis_workers = tuning->synthesis_workers;
        cfg.prove_workers = tuning->gpu_workers;
        cfg.partitions_ahead = tuning->partitions_ahead;
        cfg.synthesis_nice = tuning->synthesis_nice;
        cfg.memory_budget_bytes = tuning->memory_budget;
    }
    cz_status st = cz_engine_create(e, &cfg, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "--backend %s", backend);
    cz_engine_status *s = malloc(sizeof *s);
    if (!s) {
        cz_engine_destroy(*e);
        *e = NULL;
        return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    }
    cz_engine_get_status(*e, s);
    *cpu = !strcmp(s->backend_name, "cpu");
    printf("  back-end                %s: %s\n", s->backends[0].name, s->backends[0].description);
    free(s);
    return CZ_OK;
}

/* Device memory in use (total - free of device 0), sampled every 20 ms. */
static void *sample_device(void *arg) {
    cz_cli_device_sampler *d = arg;
    cz_error err = {0};
    if (cz_gpu_set_device(0, &err) != CZ_OK) return NULL;
    while (!atomic_load(&d->stop)) {
        size_t free_b = 0, total_b = 0;
        if (cz_gpu_mem_info(&free_b, &total_b, &err) == CZ_OK && total_b - free_b > d->peak)
            d->peak = total_b - free_b;
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

void cz_cli_device_sampler_start(cz_cli_device_sampler *d) {
    memset(d, 0, sizeof *d);
    d->running = pthread_create(&d->thread, NULL, sample_device, d) == 0;
}

int cz_cli_device_sampler_stop(cz_cli_device_sampler *d, uint64_t *peak) {
    if (!d->running) return 0;
    atomic_store(&d->stop, 1);
    pthread_join(d->thread, NULL);
    d->running = 0;
    *peak = d->peak;
    return 1;
}

uint64_t cz_cli_engine_busy_ns(cz_engine *e, uint64_t *units) {
    cz_engine_status *s = malloc(sizeof *s);
    uint64_t sum = 0;
    *units = 0;
    if (!s) return 0;
    cz_engine_get_status(e, s);
    for (uint32_t i = 0; i < s->n_backends; i++)
        sum += s->backends[i].busy_ns, *units += s->backends[i].units;
    free(s);
    return sum;
}

void cz_cli_print_h2d(cz_engine *e, uint64_t bytes, uint64_t units, uint64_t busy_ns) {
    if (!bytes || !units || !busy_ns) return; /* nothing crossed: no GPU */
    cz_engine_status *s = malloc(sizeof *s);
    if (!s) return;
    cz_engine_get_status(e, s);
    const double per = (double)bytes / (double)units;
    const double busy_per_context = (double)busy_ns / (s->n_backends ? s->n_backends : 1);
    free(s);
    printf("  host to device          %8.2f GB per partition  (%.1f GB/s over the busy time; a "
           "PCIe gen 4 link, ~25 GB/s, needs %.2f s for it)\n",
           per / 1e9, (double)bytes / busy_per_context, per / 25e9);
}
