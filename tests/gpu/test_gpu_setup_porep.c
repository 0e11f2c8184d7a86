/* The GPU development setup on the 2 KiB PoRep circuit (StackedDrg2KiBV1_1):
 * with cuzk setup's fixed seed ("cuzk-dev") its .params and .vk must have
 * the SHA-256 digests the CPU setup's files had before the setup took the
 * pre-compiled circuit (tests/CMakeLists.txt, cli/setup-2k-digest: the same
 * two values), both through the file path (points encoded on the device,
 * streamed to the writer) and through host memory (written by
 * cz_groth16_params_write); then a proof of a really sealed sector under
 * that key must pass Filecoin's verification (cz_porep_verify, inputs
 * recomputed from the C1) and a corrupted one must not. Needs the filecoin
 * layer (OpenSSL, yajl), so scripts/gpu-check.sh leaves it out: it runs from
 * the CMake build. Skips without a device (exit 77). */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/common/derive.h"
#include "filecoin/porep/porep.h"
#include "filecoin/common/registry.h"
#include "filecoin/porep/vanilla.h"
#include "gpu_test_util.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "util/parallel.h"

#define MINER  1234
#define SECTOR 42

static const char params_sha256[] =
    "d085712a54ab21b84a1c8b8cf59ff08784650371169f98afae0a3db20fa05b0a";
static const char vk_sha256[] = "53666277ccce60dc3d0b5b2db7ea319838973b3aa11b02b2ab1550af877ba3f2";

static double s_since(uint64_t t0) {
    return (double)(cz_now_ns() - t0) / 1e9;
}

static int file_sha256(char out[65], const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    static uint8_t buf[1 << 20];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) EVP_DigestUpdate(ctx, buf, n);
    fclose(f);
    uint8_t d[32];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx, d, &len);
    EVP_MD_CTX_free(ctx);
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", d[i]);
    return 1;
}

static void print_progress(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    const char **last = ctx;
    if (*last && !strcmp(*last, stage)) return;
    *last = stage;
    printf("  stage %-16s at %5.1f %%\n", stage, total ? 100.0 * (double)done / (double)total : 0);
}

int main(void) {
    cz_test_init("gpu/test_gpu_setup_porep");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    cz_error err = {0};
    cz_fc_sector_info sector;
    cz_porep_geometry g;
    CHECK(cz_fc_sector_lookup(&sector, 2048, &err) == CZ_OK);
    CHECK(cz_porep_geometry_from_sector(&g, &sector, &err) == CZ_OK);
    uint64_t t0 = cz_now_ns();
    cz_cs *cs = cz_cs_compile_new();
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, &err) == CZ_OK);
    cz_circuit *circ = NULL;
    CHECK(cz_compile_finish(cs, &circ, &err) == CZ_OK);
    cz_cs_destroy(cs);
    if (!circ) return 1;
    printf("2 KiB circuit compiled: %llu constraints, %u inputs, %u aux: %.2f s\n",
           (unsigned long long)circ->num_constraints, circ->num_inputs, circ->num_aux, s_since(t0));

    char dir[] = "/tmp/cz-gpu-setup-porep-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char pp[512], vp[512], mp[512], digest[65];
    snprintf(pp, sizeof pp, "%s/dev.params", dir);
    snprintf(vp, sizeof vp, "%s/dev.vk", dir);
    snprintf(mp, sizeof mp, "%s/memory.params", dir);
    static const uint8_t seed[CZ_GROTH16_SEED_BYTES] = {'c', 'u', 'z', 'k', '-', 'd', 'e', 'v'};

    /* to the file */
    const char *last = NULL;
    cz_groth16_vk vk;
    t0 = cz_now_ns();
    cz_status st =
        cz_gpu_groth16_dev_setup_write(&vk, pp, NULL, circ, seed, print_progress, &last, &err);
    if (st != CZ_OK) fprintf(stderr, "GPU setup to a file: %s\n", err.message);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) return 1;
    printf("GPU setup written to %s: %.2f s\n", pp, s_since(t0));
    CHECK(cz_groth16_vk_write(&vk, vp, &err) == CZ_OK);
    CHECK(file_sha256(digest, pp));
    printf("  params %s\n", digest);
    CHECK(strcmp(digest, params_sha256) == 0);
    CHECK(file_sha256(digest, vp));
    printf("  vk     %s\n", digest);
    CHECK(strcmp(digest, vk_sha256) == 0);
    cz_groth16_vk_free(&vk);

    /* to host memory */
    cz_groth16_params mem;
    t0 = cz_now_ns();
    st = cz_gpu_groth16_dev_setup(&mem, circ, seed, NULL, NULL, &err);
    if (st != CZ_OK) fprintf(stderr, "GPU setup to memory: %s\n", err.message);
    CHECK(st == CZ_OK);
    printf("GPU setup to memory: %.2f s\n", s_since(t0));
    if (st == CZ_OK) {
        CHECK(cz_groth16_params_write(&mem, mp, &err) == CZ_OK);
        CHECK(file_sha256(digest, mp) && strcmp(digest, params_sha256) == 0);
        cz_groth16_params_free(&mem);
        remove(mp);
    }
    cz_circuit_free(circ);

    /* a proof under the key, checked as Filecoin checks it */
    cz_groth16_params params;
    t0 = cz_now_ns();
    CHECK(cz_groth16_params_read(&params, pp, CZ_GROTH16_UNCHECKED, &err) == CZ_OK);
    printf("key read back (on-curve checks): %.2f s\n", s_since(t0));
    cz_c1 c1;
    cz_fc_gen_opts gen = {.registered_proof = 5, /* StackedDrg2KiBV1_1 */
                          .seed = cz_test_rand64(),
                          .miner_id = MINER,
                          .sector_num = SECTOR,
                          .sparse = 0};
    CHECK(cz_fc_gen_c1(&c1, &gen, &err) == CZ_OK);
    cz_prove_data pd;
    CHECK(cz_porep_synthesize_partition(&pd, &g, &c1, 0, &err) == CZ_OK);
    cz_gpu_srs *srs = NULL;
    CHECK(cz_gpu_srs_create(&srs, &params, &err) == CZ_OK);
    cz_groth16_msm_results sums;
    CHECK(cz_gpu_groth16_prove_start(&sums, srs, &params, NULL, &pd, NULL, &err) == CZ_OK);
    cz_groth16_proof proof;
    CHECK(cz_groth16_prove_finalize(&proof, &params.vk, &sums, NULL, NULL, &err) == CZ_OK);
    uint8_t bytes[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(bytes, &proof);
    uint8_t prover_id[32];
    cz_fc_prover_id(prover_id, MINER);
    int valid = 0;
    CHECK(cz_porep_verify(&valid, &c1, &params.vk, bytes, sizeof bytes, prover_id, SECTOR, &err) ==
          CZ_OK);
    CHECK(valid);
    printf("a 2 KiB PoRep proof under the GPU-made key: %s\n", valid ? "valid" : "INVALID");
    bytes[100] ^= 0x10;
    valid = 1;
    (void)cz_porep_verify(&valid, &c1, &params.vk, bytes, sizeof bytes, prover_id, SECTOR, &err);
    CHECK(!valid);

    cz_gpu_srs_destroy(srs);
    cz_prove_data_free(&pd);
    cz_c1_free(&c1);
    cz_groth16_params_free(&params);
    remove(pp);
    remove(vp);
    rmdir(dir);
    return cz_test_finish("gpu/test_gpu_setup_porep");
}
