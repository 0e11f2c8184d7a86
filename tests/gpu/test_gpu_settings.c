/* The GPU knobs (gpu/settings.h), no device needed: the defaults; every
 * knob parsed from a table as from the environment, with its clamping;
 * malformed CZ_GPU_MEM_LIMIT / CZ_GPU_STREAM_CHUNK named in the error and
 * reported by cz_gpu_settings_status; the environment read once (a later
 * change of it has no effect), replaced only through cz_gpu_settings_use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/settings.h"
#include "groth16/groth16.h"
#include "harness/harness.h"

typedef struct {
    const char *names[8], *values[8];
    int n;
} table;

static const char *lookup(const char *name, void *ctx) {
    const table *t = ctx;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->names[i], name)) return t->values[i];
    return NULL;
}

static cz_status parse1(cz_gpu_settings *s, const char *name, const char *value, cz_error *err) {
    table t = {{name}, {value}, 1};
    return cz_gpu_settings_parse(s, lookup, &t, err);
}

int main(void) {
    cz_test_init("gpu/settings");
    unsetenv("CZ_GPU_MEM_LIMIT");
    unsetenv("CZ_GPU_NTT_MAXB");
    cz_gpu_settings s, d;
    cz_error err = {0};
    cz_gpu_settings_defaults(&d);
    CHECK(!d.has_mem_limit && d.stream_chunk == 0 && d.abc_long == 16 && d.abc_shared == 1);
    CHECK(d.stream_keep == 0);
    CHECK(d.msm_acc_g1 == 2 && d.msm_acc_g2 == 3 && d.msm_s == 0 && d.ntt_maxb == 9);
    CHECK(d.batch_t == 0 && d.batch_kmin == 32 && d.batch_chunk == (size_t)1 << 27);
    table none = {{0}, {0}, 0};
    CHECK(cz_gpu_settings_parse(&s, lookup, &none, &err) == CZ_OK && !memcmp(&s, &d, sizeof s));

    CHECK(parse1(&s, "CZ_GPU_MEM_LIMIT", "1536MiB", &err) == CZ_OK);
    CHECK(s.has_mem_limit && s.mem_limit == 1536ull << 20);
    CHECK(parse1(&s, "CZ_GPU_MEM_LIMIT", "lots", &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "CZ_GPU_MEM_LIMIT") && strstr(err.message, "lots"));
    CHECK(!s.has_mem_limit);
    CHECK(parse1(&s, "CZ_GPU_STREAM_CHUNK", "128", &err) == CZ_OK && s.stream_chunk == 128);
    CHECK(parse1(&s, "CZ_GPU_STREAM_CHUNK", "1000", &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "CZ_GPU_STREAM_CHUNK: '1000' is not a power of two") != NULL);
    CHECK(parse1(&s, "CZ_GPU_STREAM_CHUNK", "32", &err) == CZ_E_INVALID_ARG);
    /* CZ_GPU_STREAM_KEEP: vector names, only beside a forced chunk */
    table keep = {{"CZ_GPU_STREAM_CHUNK", "CZ_GPU_STREAM_KEEP"}, {"4096", "h,b_g2"}, 2};
    CHECK(cz_gpu_settings_parse(&s, lookup, &keep, &err) == CZ_OK);
    CHECK(s.stream_keep == (1u << CZ_GROTH16_H | 1u << CZ_GROTH16_B_G2));
    keep.values[1] = "b_g1";
    CHECK(cz_gpu_settings_parse(&s, lookup, &keep, &err) == CZ_OK);
    CHECK(s.stream_keep == 1u << CZ_GROTH16_B_G1);
    keep.values[1] = "h,x";
    CHECK(cz_gpu_settings_parse(&s, lookup, &keep, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "CZ_GPU_STREAM_KEEP: 'x' in 'h,x'") != NULL);
    keep.values[1] = "b_g";
    CHECK(cz_gpu_settings_parse(&s, lookup, &keep, &err) == CZ_E_INVALID_ARG);
    CHECK(parse1(&s, "CZ_GPU_STREAM_KEEP", "h", &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "without CZ_GPU_STREAM_CHUNK") != NULL);
    /* the experimental knobs: clamped or defaulted, never an error */
    CHECK(parse1(&s, "CZ_GPU_NTT_MAXB", "5", &err) == CZ_OK && s.ntt_maxb == 5);
    CHECK(parse1(&s, "CZ_GPU_NTT_MAXB", "12", &err) == CZ_OK && s.ntt_maxb == 9);
    CHECK(parse1(&s, "CZ_GPU_NTT_G", "7", &err) == CZ_OK && s.ntt_g == 3);
    CHECK(parse1(&s, "CZ_GPU_NTT_NN", "0", &err) == CZ_OK && s.ntt_nn_dif == 0);
    CHECK(parse1(&s, "CZ_GPU_ABC_LONG", "8", &err) == CZ_OK && s.abc_long == 8);
    CHECK(parse1(&s, "CZ_GPU_ABC_LONG", "8x", &err) == CZ_OK && s.abc_long == 16);
    CHECK(parse1(&s, "CZ_GPU_MSM_S", "0", &err) == CZ_OK && s.msm_s == 0);
    CHECK(parse1(&s, "CZ_GPU_MSM_S", "24", &err) == CZ_OK && s.msm_s == 24);
    CHECK(parse1(&s, "CZ_GPU_MSM_PROFILE", "", &err) == CZ_OK && s.msm_profile == 1);
    CHECK(d.msm_affine == 0 && d.msm_affine_chunk == 0);
    CHECK(parse1(&s, "CZ_GPU_MSM_AFFINE", "1048576", &err) == CZ_OK && s.msm_affine == 1048576);
    CHECK(parse1(&s, "CZ_GPU_MSM_AFFINE_CHUNK", "97", &err) == CZ_OK && s.msm_affine_chunk == 97);
    CHECK(parse1(&s, "CZ_GPU_BATCH_CHUNK", "200", &err) == CZ_OK && s.batch_chunk == 192);
    CHECK(parse1(&s, "CZ_GPU_BATCH_T", "0", &err) == CZ_OK && s.batch_t == 1);
    CHECK(parse1(&s, "CZ_GPU_BATCH_FANIN", "99", &err) == CZ_OK && s.batch_fanin == 32);
    CHECK(d.tail_dense == 50);
    CHECK(parse1(&s, "CZ_GPU_TAIL_DENSE", "0", &err) == CZ_OK && s.tail_dense == 0);
    CHECK(parse1(&s, "CZ_GPU_TAIL_DENSE", "101", &err) == CZ_OK && s.tail_dense == 101);
    CHECK(parse1(&s, "CZ_GPU_TAIL_DENSE", "200", &err) == CZ_OK && s.tail_dense == 101);

    /* The table: names unique and CZ_-prefixed, every default reads as the
     * default, a doc line each, unknown names refused. */
    CHECK(cz_gpu_knob_count() > 30 && cz_gpu_knob_count() < CZ_GPU_MAX_KNOBS);
    for (size_t i = 0; i < cz_gpu_knob_count(); i++) {
        cz_gpu_knob_info k;
        cz_gpu_knob_at(i, &k);
        CHECK(!strncmp(k.name, "CZ_", 3) && k.doc && *k.doc);
        CHECK(cz_gpu_knob_find(k.name) == (int)i);
        int is_default = 0;
        if (k.def) CHECK(cz_gpu_knob_check(k.name, k.def, &is_default, &err) == CZ_OK && is_default);
    }
    int is_default = 1;
    CHECK(cz_gpu_knob_check("CZ_GPU_TAIL_DENSE", "7", &is_default, &err) == CZ_OK && !is_default);
    CHECK(cz_gpu_knob_check("CZ_GPU_NOPE", "1", &is_default, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_gpu_knob_check("CZ_GPU_MEM_LIMIT", "lots", &is_default, &err) == CZ_E_PARSE);
    /* the knobs that left getenv for the table */
    CHECK(parse1(&s, "CZ_SRS_HOST_POINTS", "1", &err) == CZ_OK && s.srs_host_points == 1);
    CHECK(parse1(&s, "CZ_GPU_KEYLOAD_CHUNK_MIB", "16", &err) == CZ_OK && s.keyload_chunk_mib == 16);
    CHECK(parse1(&s, "CZ_GPU_SETUP_WINDOW", "17", &err) == CZ_OK && s.setup_window == 0);
    CHECK(parse1(&s, "CZ_GPU_SETUP_WINDOW", "11", &err) == CZ_OK && s.setup_window == 11);

    /* The process's settings: the environment at the first use, once. */
    setenv("CZ_GPU_MEM_LIMIT", "lots", 1);
    setenv("CZ_GPU_NTT_MAXB", "6", 1);
    const cz_gpu_settings *p = cz_gpu_settings_get();
    CHECK(p->ntt_maxb == 6 && !p->has_mem_limit);
    CHECK(cz_gpu_settings_status(&err) == CZ_E_PARSE && strstr(err.message, "CZ_GPU_MEM_LIMIT"));
    setenv("CZ_GPU_NTT_MAXB", "4", 1);
    unsetenv("CZ_GPU_MEM_LIMIT");
    CHECK(cz_gpu_settings_get()->ntt_maxb == 6); /* read once */
    CHECK(cz_gpu_settings_status(&err) == CZ_E_PARSE);
    /* tests replace them explicitly, and go back */
    s = d;
    s.stream_chunk = 256;
    cz_gpu_settings_use(&s);
    CHECK(cz_gpu_settings_get()->stream_chunk == 256 && cz_gpu_settings_status(&err) == CZ_OK);
    table bad = {{"CZ_GPU_STREAM_CHUNK"}, {"3"}, 1};
    CHECK(cz_gpu_settings_use_lookup(lookup, &bad, &err) == CZ_E_INVALID_ARG);
    CHECK(cz_gpu_settings_status(&err) == CZ_E_INVALID_ARG);
    cz_gpu_settings_use(NULL);
    CHECK(cz_gpu_settings_get()->ntt_maxb == 6 && cz_gpu_settings_status(&err) == CZ_E_PARSE);
    return cz_test_finish("gpu/settings");
}
