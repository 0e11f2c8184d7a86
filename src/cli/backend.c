/* The proving back-end of a CLI command: --backend auto | cpu | cuda. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "util/parallel.h"

int cz_cli_backend_valid(const char *cmd, const char *backend) {
    if (!strcmp(backend, "auto") || !strcmp(backend, "cpu") || !strcmp(backend, "cuda")) return 1;
    fprintf(stderr, "cuzk %s: --backend: expected auto, cpu or cuda, got '%s'\n", cmd, backend);
    return 0;
}

int cz_cli_backend_available(const char *cmd, const char *backend) {
    if (strcmp(backend, "cuda")) return 1;
    char desc[256] = "";
    cz_error gerr = {0};
    if (cz_gpu_probe(desc, sizeof desc, &gerr) == CZ_OK) return 1;
    /* The kernel module publishes this file once loaded; without it no CUDA
     * build can see a device, whatever the probe's own words are. */
    if (access("/proc/driver/nvidia/version", F_OK) != 0)
        fprintf(stderr,
                "cuzk %s: --backend cuda: no NVIDIA driver / no CUDA device on this machine; "
                "%s (--backend auto or cpu proves on the CPU)\n",
                cmd, gerr.message);
    else
        fprintf(stderr, "cuzk %s: --backend cuda: %s (--backend auto or cpu proves on the CPU)\n",
                cmd, gerr.message);
    return 0;
}

cz_status cz_cli_gpu_open(cz_gpu_srs **srs, const char *backend, const cz_groth16_params *params,
                          cz_error *err) {
    *srs = NULL;
    if (!strcmp(backend, "cpu")) {
        printf("  back-end                cpu (--backend cpu)\n");
        return CZ_OK;
    }
    char desc[256] = "";
    cz_error gerr = {0};
    if (cz_gpu_probe(desc, sizeof desc, &gerr) != CZ_OK) {
        if (!strcmp(backend, "cuda"))
            return cz_error_set(err, CZ_E_UNSUPPORTED, "--backend cuda: %s", gerr.message);
        printf("  back-end                cpu (%s)\n", gerr.message);
        return CZ_OK;
    }
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_gpu_srs_create(srs, params, err);
    if (st != CZ_OK) return cz_error_prefix(err, "GPU");
    char why[256];
    int streaming = cz_gpu_srs_streaming(*srs, why, sizeof why);
    printf("  back-end                cuda: %s\n  parameters to the GPU   %8.2f s  (%.0f MiB%s)\n",
           desc, (double)(cz_now_ns() - t0) / 1e9, (double)cz_gpu_srs_bytes(*srs) / (1 << 20),
           streaming ? ", points streamed from host memory" : "");
    if (streaming) printf("  note                    %s\n", why);
    return CZ_OK;
}
