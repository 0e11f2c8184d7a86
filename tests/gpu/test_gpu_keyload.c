/* The proving key from its .params file to the device (cz_gpu_srs_load)
 * against the host decoder:
 *   - every point of every vector on the device equals, byte for byte
 *     (Montgomery form), what cz_groth16_params_read decodes from the same
 *     file: a random key of a few MB loaded in one chunk and in 1 MiB chunks
 *     (vectors and points straddle chunks), and the file of
 *     $CZ_KEYLOAD_PARAMS when set (e.g. the 2 KiB PoRep's);
 *   - the digest computed during the load is cz_params_digest of the file;
 *     a checked AUTO load writes the record, the next AUTO load is trusted
 *     and gives the same points;
 *   - refusals: a point off the curve (G1 and G2; two damaged points: the
 *     first in the file is named) refused in checked mode with the host
 *     decoder's message ("PATH: params: l[1234]: G1 uncompressed: ..."); a
 *     flag bit refused in trusted mode too; trusted mode with a wrong digest
 *     (given, or from a record) refused; a budget too small for the key
 *     resident refused (it never streams);
 *   - a proof over the loaded SRS, with no host points passed, gives the
 *     CPU prover's five sums. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/srs.h"
#include "gpu_test_util.h"
#include "groth16/digest.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"

static char dir[] = "/tmp/cz_gpu_keyload_XXXXXX";

static void random_key(cz_groth16_params *p, size_t n_ic, unsigned log_m, size_t n_l, size_t n_a,
                       size_t n_b) {
    memset(p, 0, sizeof *p);
    cz_g1_affine g1[3];
    cz_g2_affine g2[3];
    gpu_rand_g1(g1, 3);
    gpu_rand_g2(g2, 3);
    p->vk.alpha_g1 = g1[0], p->vk.beta_g1 = g1[1], p->vk.delta_g1 = g1[2];
    p->vk.beta_g2 = g2[0], p->vk.gamma_g2 = g2[1], p->vk.delta_g2 = g2[2];
    p->vk.n_ic = n_ic;
    p->n_h = ((size_t)1 << log_m) - 1, p->n_l = n_l, p->n_a = n_a;
    p->n_b_g1 = p->n_b_g2 = n_b;
    p->vk.ic = malloc(n_ic * sizeof *p->vk.ic);
    p->h = malloc(p->n_h * sizeof *p->h);
    p->l = malloc(n_l * sizeof *p->l);
    p->a = malloc(n_a * sizeof *p->a);
    p->b_g1 = malloc(n_b * sizeof *p->b_g1);
    p->b_g2 = malloc(n_b * sizeof *p->b_g2);
    gpu_rand_g1(p->vk.ic, n_ic);
    gpu_rand_g1(p->h, p->n_h);
    gpu_rand_g1(p->l, n_l);
    gpu_rand_g1(p->a, n_a);
    gpu_rand_g1(p->b_g1, n_b);
    gpu_rand_g2(p->b_g2, n_b);
}

static const void *host_vector(const cz_groth16_params *p, int v) {
    const void *vec[CZ_GROTH16_VECTORS] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    return vec[v];
}

static size_t host_count(const cz_groth16_params *p, int v) {
    const size_t n[CZ_GROTH16_VECTORS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    return n[v];
}

/* Every device vector of srs equals the host decoder's; prints the first
 * difference. */
static int same_points(const cz_gpu_srs *srs, const cz_groth16_params *ref) {
    int same = 1;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        const void *dev = NULL;
        size_t n = 0;
        cz_error err = {0};
        CHECK(cz_gpu_srs_vector(&dev, &n, srs, v, &err) == CZ_OK);
        CHECK(n == host_count(ref, v));
        const size_t size = cz_groth16_vector_point_bytes(v);
        uint8_t *got = malloc(n * size + 1);
        CHECK(cz_gpu_download(got, dev, n * size, &err) == CZ_OK);
        const uint8_t *want = host_vector(ref, v);
        for (size_t i = 0; i < n; i++)
            if (memcmp(got + i * size, want + i * size, size)) {
                printf("%s[%zu] differs from the host decoder's\n", cz_groth16_vector_name(v), i);
                same = 0;
                break;
            }
        free(got);
    }
    return same;
}

static cz_status load(cz_gpu_srs **srs, const char *path, cz_gpu_key_check check, uint64_t digest,
                      size_t chunk, int no_record, cz_gpu_key_report *rep, cz_error *err) {
    cz_groth16_params_file f;
    cz_status st = cz_groth16_params_file_map(&f, path, err);
    if (st != CZ_OK) return st;
    cz_gpu_key_options opt = {check, digest, no_record, chunk};
    st = cz_gpu_srs_load(srs, &f, 0, &opt, rep, err);
    cz_groth16_params_file_unmap(&f);
    if (st == CZ_OK)
        printf("  loaded %s: %.3f s, %s, chunk %zu KiB, %s\n", path, rep->seconds,
               rep->checked ? "checked" : "trusted", rep->chunk_bytes >> 10, rep->note);
    return st;
}

static void record_path(char *out, size_t size, const char *path) {
    cz_error err = {0};
    CHECK(cz_params_digest_path(out, size, path, &err) == CZ_OK);
}

/* The points of path on the device equal the host decoder's, in both chunk
 * sizes; the digest is the file's. */
static void check_equal(const char *path, int small_chunks_too) {
    cz_error err = {0};
    cz_groth16_params ref;
    CHECK(cz_groth16_params_read(&ref, path, CZ_GROTH16_UNCHECKED, &err) == CZ_OK);
    size_t len = 0;
    uint8_t *bytes = cz_test_read_file(path, &len);
    uint64_t digest = 0;
    CHECK(bytes && cz_params_digest(&digest, bytes, len, &err) == CZ_OK);
    free(bytes);
    const size_t chunks[2] = {0, CZ_PARAMS_DIGEST_BLOCK};
    for (int c = 0; c < 1 + small_chunks_too; c++) {
        cz_gpu_srs *srs = NULL;
        cz_gpu_key_report rep;
        cz_status st = load(&srs, path, CZ_GPU_KEY_CHECKED, 0, chunks[c], 1, &rep, &err);
        if (st != CZ_OK) printf("load: %s\n", err.message);
        CHECK(st == CZ_OK);
        if (st != CZ_OK) continue;
        CHECK(rep.checked && !rep.recorded && rep.file_bytes == len && rep.digest == digest);
        CHECK(!cz_gpu_srs_streaming(srs, NULL, 0));
        CHECK(cz_gpu_srs_bytes(srs) >= (ref.n_h + ref.n_l + ref.n_a + ref.n_b_g1) * 96);
        /* both staging buffers pinned for a whole witness (inputs and aux)
         * before anything was staged when one buffer holds it (a
         * WinningPoSt's): a unit that goes up unstaged pins nothing on its
         * latency path; a larger witness's wait for their first use */
        const size_t witness = (ref.vk.n_ic + ref.n_l) * sizeof(cz_fr);
        if (witness <= cz_gpu_uploader_chunk(srs->up))
            CHECK(cz_gpu_uploader_pinned(srs->up) >= 2 * witness);
        else
            CHECK(cz_gpu_uploader_pinned(srs->up) == 0);
        CHECK(same_points(srs, &ref));
        cz_gpu_srs_destroy(srs);
    }
    cz_groth16_params_free(&ref);
}

/* AUTO: checked without a record, which it writes; trusted with it. */
static void check_auto(const char *path) {
    char record[600];
    record_path(record, sizeof record, path);
    unlink(record);
    cz_error err = {0};
    cz_groth16_params ref;
    CHECK(cz_groth16_params_read(&ref, path, CZ_GROTH16_UNCHECKED, &err) == CZ_OK);
    for (int round = 0; round < 2; round++) {
        cz_gpu_srs *srs = NULL;
        cz_gpu_key_report rep;
        CHECK(load(&srs, path, CZ_GPU_KEY_AUTO, 0, 0, 0, &rep, &err) == CZ_OK);
        CHECK(rep.checked == (round == 0) && rep.recorded == (round == 0));
        CHECK(access(record, R_OK) == 0);
        if (srs) CHECK(same_points(srs, &ref));
        cz_gpu_srs_destroy(srs);
    }
    cz_groth16_params_free(&ref);
}

/* A copy of src's bytes with modifications, written to dst (a new file:
 * its modification time differs from any record's). */
static void write_damaged(const char *dst, const uint8_t *bytes, size_t len,
                          const cz_groth16_params_layout *lay, const int *vec, const size_t *index,
                          const size_t *byte, const uint8_t *flip, int n) {
    uint8_t *copy = malloc(len);
    memcpy(copy, bytes, len);
    for (int k = 0; k < n; k++)
        copy[lay->offset[vec[k]] + index[k] * cz_groth16_vector_point_bytes(vec[k]) + byte[k]] ^=
            flip[k];
    cz_test_write_file(dst, copy, len);
    free(copy);
}

/* The load refuses path with the host decoder's message for mode. */
static void expect_refused(const char *path, cz_gpu_key_check check, uint64_t digest,
                           cz_groth16_check host_mode, const char *names) {
    cz_error err = {0}, herr = {0};
    cz_gpu_srs *srs = NULL;
    cz_gpu_key_report rep;
    size_t free0 = 0, free1 = 0, total = 0;
    CHECK(cz_gpu_mem_info(&free0, &total, &err) == CZ_OK);
    cz_status st = load(&srs, path, check, digest, CZ_PARAMS_DIGEST_BLOCK, 1, &rep, &err);
    CHECK(st != CZ_OK && srs == NULL);
    cz_groth16_params ref;
    cz_status hst = cz_groth16_params_read(&ref, path, host_mode, &herr);
    CHECK(hst == st && hst != CZ_OK);
    if (strcmp(err.message, herr.message))
        printf("device: %s\nhost:   %s\n", err.message, herr.message);
    CHECK(!strcmp(err.message, herr.message));
    CHECK(strstr(err.message, names) != NULL);
    /* nothing stays on the device (allocations are page-granular) */
    CHECK(cz_gpu_mem_info(&free1, &total, &err) == CZ_OK);
    CHECK(free1 + ((size_t)4 << 20) >= free0);
}

static void check_refusals(const char *path) {
    cz_error err = {0};
    size_t len = 0;
    uint8_t *bytes = cz_test_read_file(path, &len);
    cz_groth16_params_layout lay;
    CHECK(cz_groth16_params_layout_read(&lay, bytes, len, &err) == CZ_OK);
    char bad[600];
    snprintf(bad, sizeof bad, "%s/bad.params", dir);

    /* off the curve: y's last byte of l[1234] */
    {
        int v[1] = {CZ_GROTH16_L};
        size_t i[1] = {1234}, b[1] = {95};
        uint8_t f[1] = {1};
        write_damaged(bad, bytes, len, &lay, v, i, b, f, 1);
        expect_refused(bad, CZ_GPU_KEY_CHECKED, 0, CZ_GROTH16_UNCHECKED, "params: l[1234]: ");
        expect_refused(bad, CZ_GPU_KEY_AUTO, 0, CZ_GROTH16_UNCHECKED, "not on the curve");
        /* trusted with the damaged file's own digest: the curve is not looked at */
        uint8_t *db = cz_test_read_file(bad, &len);
        uint64_t d = 0;
        CHECK(cz_params_digest(&d, db, len, &err) == CZ_OK);
        free(db);
        cz_gpu_srs *srs = NULL;
        cz_gpu_key_report rep;
        CHECK(load(&srs, bad, CZ_GPU_KEY_TRUSTED, d, 0, 1, &rep, &err) == CZ_OK && !rep.checked);
        cz_gpu_srs_destroy(srs);
        /* and with any other digest it is refused */
        srs = NULL;
        CHECK(load(&srs, bad, CZ_GPU_KEY_TRUSTED, d ^ 1, 0, 1, &rep, &err) == CZ_E_PARSE);
        CHECK(srs == NULL && strstr(err.message, "is not the trusted digest") != NULL);
    }
    /* two damaged points: h[5000] comes first in the file */
    {
        int v[2] = {CZ_GROTH16_L, CZ_GROTH16_H};
        size_t i[2] = {1234, 5000}, b[2] = {95, 60};
        uint8_t f[2] = {1, 0x40};
        write_damaged(bad, bytes, len, &lay, v, i, b, f, 2);
        expect_refused(bad, CZ_GPU_KEY_CHECKED, 0, CZ_GROTH16_UNCHECKED, "params: h[5000]: ");
    }
    /* G2 off the curve: x.c0 of b_g2[77] */
    {
        int v[1] = {CZ_GROTH16_B_G2};
        size_t i[1] = {77}, b[1] = {70};
        uint8_t f[1] = {8};
        write_damaged(bad, bytes, len, &lay, v, i, b, f, 1);
        expect_refused(bad, CZ_GPU_KEY_CHECKED, 0, CZ_GROTH16_UNCHECKED, "params: b_g2[77]: ");
    }
    /* a flag (compression) in a[9]: refused in trusted mode too, before the
     * digest, which is right */
    {
        int v[1] = {CZ_GROTH16_A};
        size_t i[1] = {9}, b[1] = {0};
        uint8_t f[1] = {0x80};
        write_damaged(bad, bytes, len, &lay, v, i, b, f, 1);
        uint8_t *db = cz_test_read_file(bad, &len);
        uint64_t d = 0;
        CHECK(cz_params_digest(&d, db, len, &err) == CZ_OK);
        free(db);
        expect_refused(bad, CZ_GPU_KEY_TRUSTED, d, CZ_GROTH16_TRUSTED, "params: a[9]: ");
        expect_refused(bad, CZ_GPU_KEY_CHECKED, 0, CZ_GROTH16_UNCHECKED, "compression flag");
    }
    /* a coordinate >= p: the top byte of y.c1 of b_g2[3] (p's is 0x1a) */
    {
        uint8_t *copy = malloc(len);
        memcpy(copy, bytes, len);
        copy[lay.offset[CZ_GROTH16_B_G2] + 3 * 192 + 96] = 0x1f;
        cz_test_write_file(bad, copy, len);
        free(copy);
        expect_refused(bad, CZ_GPU_KEY_CHECKED, 0, CZ_GROTH16_UNCHECKED, "params: b_g2[3]: ");
    }
    /* a record with a wrong digest for this very file (size and time
     * match): the file changed in place; refused, naming the record */
    {
        cz_groth16_params_file f;
        CHECK(cz_groth16_params_file_map(&f, path, &err) == CZ_OK);
        uint64_t d = 0;
        CHECK(cz_params_digest(&d, f.data, f.len, &err) == CZ_OK);
        CHECK(cz_params_digest_save(path, d ^ 0x100, f.len, f.mtime_ns, &err) == CZ_OK);
        cz_gpu_srs *srs = NULL;
        cz_gpu_key_report rep;
        cz_gpu_key_options opt = {CZ_GPU_KEY_AUTO, 0, 0, 0};
        CHECK(cz_gpu_srs_load(&srs, &f, 0, &opt, &rep, &err) == CZ_E_PARSE && srs == NULL);
        char record[600];
        record_path(record, sizeof record, path);
        CHECK(strstr(err.message, "differs from") && strstr(err.message, record));
        CHECK(!rep.checked);
        unlink(record);
        /* too small a budget: no streaming here */
        cz_gpu_plan pl;
        cz_groth16_params shape;
        memset(&shape, 0, sizeof shape);
        shape.vk.n_ic = (size_t)f.layout.n_ic;
        shape.n_h = (size_t)f.layout.count[0], shape.n_l = (size_t)f.layout.count[1];
        shape.n_a = (size_t)f.layout.count[2], shape.n_b_g1 = (size_t)f.layout.count[3];
        shape.n_b_g2 = (size_t)f.layout.count[4];
        char why[256];
        const cz_status tiny = cz_gpu_srs_plan(&pl, &shape, (size_t)1 << 20, why, sizeof why, &err);
        CHECK((tiny == CZ_OK || tiny == CZ_E_NOMEM) && pl.kind != CZ_GPU_PLAN_RESIDENT &&
              strstr(why, "does not fit"));
        CHECK(cz_gpu_srs_plan(&pl, &shape, 0, why, sizeof why, &err) == CZ_OK &&
              pl.kind == CZ_GPU_PLAN_RESIDENT);
        CHECK(cz_gpu_srs_load(&srs, &f, (size_t)1 << 20, &opt, &rep, &err) == CZ_E_NOMEM);
        CHECK(srs == NULL && strstr(err.message, "does not fit resident"));
        cz_groth16_params_file_unmap(&f);
    }
    unlink(bad);
    free(bytes);
}

/* A proof over a key loaded from its file equals the CPU's. */
static void check_prove(void) {
    cz_error err = {0};
    const size_t n = 2000;
    cz_cs *rec = cz_cs_compile_new();
    gpu_test_chain(rec, n);
    cz_circuit *circ = NULL;
    CHECK(cz_compile_finish(rec, &circ, &err) == CZ_OK);
    cz_cs_destroy(rec);
    uint8_t seed[CZ_GROTH16_SEED_BYTES] = {0};
    cz_test_rand_bytes(seed, sizeof seed);
    cz_groth16_params params;
    CHECK(cz_groth16_dev_setup(&params, circ, seed, &err) == CZ_OK);
    cz_circuit_free(circ);
    char path[600];
    snprintf(path, sizeof path, "%s/prove.params", dir);
    CHECK(cz_groth16_params_write(&params, path, &err) == CZ_OK);
    cz_gpu_srs *srs = NULL;
    cz_gpu_key_report rep;
    CHECK(load(&srs, path, CZ_GPU_KEY_CHECKED, 0, 0, 1, &rep, &err) == CZ_OK);
    cz_cs *pcs = cz_cs_prove_new();
    gpu_test_chain(pcs, n);
    cz_prove_data pd;
    CHECK(cz_prove_finish(pcs, &pd, &err) == CZ_OK);
    cz_cs_destroy(pcs);
    cz_groth16_msm_results cpu, gpu;
    CHECK(cz_groth16_prove_start(&cpu, &params, &pd, &err) == CZ_OK);
    cz_status sg =
        srs ? cz_gpu_groth16_prove_start(&gpu, srs, NULL, NULL, &pd, NULL, &err) : CZ_E_CUDA;
    if (sg != CZ_OK) printf("gpu prove: %s\n", err.message);
    CHECK(sg == CZ_OK);
    if (sg == CZ_OK)
        CHECK(cz_g1_equal(&cpu.h, &gpu.h) && cz_g1_equal(&cpu.l, &gpu.l) &&
              cz_g1_equal(&cpu.a, &gpu.a) && cz_g1_equal(&cpu.b_g1, &gpu.b_g1) &&
              cz_g2_equal(&cpu.b_g2, &gpu.b_g2));
    cz_gpu_srs_destroy(srs);
    cz_prove_data_free(&pd);
    cz_groth16_params_free(&params);
    unlink(path);
}

int main(void) {
    cz_test_init("gpu/test_gpu_keyload");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    CHECK(mkdtemp(dir) != NULL);
    const int small = getenv("CZ_GPU_SMALL") != NULL;
    char path[600];
    snprintf(path, sizeof path, "%s/key.params", dir);
    {
        cz_groth16_params p;
        /* about 4.8 MB: h 1.5 MB, l 1.2, a 1.1, b_g1 0.5, b_g2 1 */
        random_key(&p, 3, 14, 12000, 11000, 5000);
        cz_error err = {0};
        CHECK(cz_groth16_params_write(&p, path, &err) == CZ_OK);
        cz_groth16_params_free(&p);
    }
    check_equal(path, 1);
    check_auto(path);
    check_refusals(path);
    if (!small) check_prove();
    const char *real = getenv("CZ_KEYLOAD_PARAMS");
    if (real && *real) {
        printf("  %s\n", real);
        check_equal(real, 0);
    }
    char record[600];
    record_path(record, sizeof record, path);
    unlink(record);
    unlink(path);
    rmdir(dir);
    return cz_test_finish("gpu/test_gpu_keyload");
}
