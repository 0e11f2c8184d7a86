/* The harness helpers that need the filecoin layer (its parameter file
 * names and development marks), apart from harness.c, which the GPU tests
 * of scripts/gpu-check.sh link without that layer. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "filecoin/common/params_table.h"
#include "filecoin/common/registry.h"
#include "filecoin/porep/porep.h"
#include "groth16/setup.h"
#include "harness/harness.h"
#include "r1cs/backends.h"

void cz_test_mark_development(const char *path) {
    cz_error err = {0};
    if (cz_fc_param_mark_development(NULL, path, NULL, NULL, &err) != CZ_OK) {
        fprintf(stderr, "cannot mark %s as a development key: %s\n", path, err.message);
        cz_test_failures++;
    }
}

/* The tiny circuit: one input x, one aux y, x * x = y. */
static cz_status tiny_circuit(cz_circuit **out, cz_error *err) {
    cz_cs *cs = cz_cs_compile_new();
    cz_var x = cz_cs_alloc_input(cs, NULL);
    cz_var y = cz_cs_alloc(cs, NULL);
    cz_lc a, c;
    cz_lc_init(&a);
    cz_lc_init(&c);
    cz_lc_add_var(&a, x);
    cz_lc_add_var(&c, y);
    cz_cs_enforce(cs, &a, &a, &c);
    cz_lc_free(&a);
    cz_lc_free(&c);
    const cz_status st = cz_compile_finish(cs, out, err);
    cz_cs_destroy(cs);
    return st;
}

void cz_test_write_tiny_circuit(const char *path) {
    cz_circuit *r = NULL;
    cz_error err = {0};
    if (tiny_circuit(&r, &err) != CZ_OK || cz_circuit_write(r, path, &err) != CZ_OK) {
        fprintf(stderr, "tiny circuit %s: %s\n", path, err.message);
        cz_test_failures++;
    }
    cz_circuit_free(r);
}

uint64_t cz_test_write_tiny_params(const char *dir, uint64_t sector_size) {
    cz_circuit *r = NULL;
    cz_error err = {0};
    cz_groth16_params p;
    memset(&p, 0, sizeof p);
    uint8_t seed[32] = {7};
    cz_fc_sector_info sector;
    char pp[4096], vp[4096];
    struct stat sb;
    uint64_t size = 0;
    if (tiny_circuit(&r, &err) == CZ_OK && cz_groth16_dev_setup(&p, r, seed, &err) == CZ_OK &&
        cz_fc_sector_lookup(&sector, sector_size, &err) == CZ_OK &&
        cz_porep_param_paths(pp, vp, sizeof pp, dir, &sector, &err) == CZ_OK &&
        cz_groth16_params_write(&p, pp, &err) == CZ_OK &&
        cz_groth16_vk_write(&p.vk, vp, &err) == CZ_OK && stat(pp, &sb) == 0) {
        cz_test_mark_development(pp);
        cz_test_mark_development(vp);
        size = (uint64_t)sb.st_size;
    } else {
        fprintf(stderr, "tiny parameters in %s: %s\n", dir, err.message);
        cz_test_failures++;
    }
    cz_groth16_params_free(&p);
    cz_circuit_free(r);
    return size;
}
