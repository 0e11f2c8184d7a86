/* Parameter-directory paths and the pre-compiled circuit files
 * (circuit_files.h). */
#include "filecoin/common/circuit_files.h"

#include <string.h>
#include <unistd.h>

#include "util/parallel.h"

cz_status cz_fc_stem_path(char *out, size_t cap, const char *dir, const char *stem, const char *ext,
                          cz_error *err) {
    const char *sep = (dir[0] && dir[strlen(dir) - 1] != '/') ? "/" : "";
    int n = snprintf(out, cap, "%s%s%s%s", dir, sep, stem, ext);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "parameter path under '%s' is too long", dir);
    return CZ_OK;
}

cz_status cz_fc_circuit_load(cz_circuit **out, int *built, const char *path,
                             cz_fc_blank_synth_fn synthesize, const void *ctx, const char *what,
                             FILE *progress, cz_error *err) {
    *out = NULL;
    *built = 0;
    cz_error open_err = {0};
    if (access(path, F_OK) == 0) {
        if (cz_circuit_open(out, path, CZ_CIRCUIT_CHECKED, 0, &open_err) == CZ_OK) return CZ_OK;
        if (progress)
            fprintf(progress, "circuit %s: %s: building it again\n", path, open_err.message);
    } else if (progress) {
        fprintf(progress, "circuit %s: not found: building it (%s)\n", path, what);
    }
    uint64_t t0 = cz_now_ns();
    cz_cs *cs = cz_cs_compile_new();
    if (!cs) return cz_error_set(err, CZ_E_NOMEM, "circuit %s: out of memory", path);
    cz_circuit *c = NULL;
    cz_status st = synthesize(cs, ctx, err);
    if (st == CZ_OK) st = cz_compile_finish(cs, &c, err);
    cz_cs_destroy(cs);
    if (st == CZ_OK) st = cz_circuit_write(c, path, err);
    uint64_t checksum = c ? c->checksum : 0;
    cz_circuit_free(c); /* the mapping replaces the heap copy */
    if (st == CZ_OK) st = cz_circuit_open(out, path, CZ_CIRCUIT_TRUSTED, checksum, err);
    if (st != CZ_OK) return cz_error_wrap(err, st, "circuit %s", path);
    *built = 1;
    if (progress)
        fprintf(progress, "circuit %s: built in %.1f s (%.2f GB)\n", path,
                (double)(cz_now_ns() - t0) / 1e9, (double)cz_circuit_bytes(*out) / 1e9);
    return CZ_OK;
}
