/* Device NTT against the CPU NTT (src/poly/ntt.h): every order, direction
 * and kind at several sizes, on fresh random data, bit-exact. */
#include <stdlib.h>

#include "gpu_test_util.h"
#include "poly/ntt.h"

static void check_size(unsigned k) {
    size_t n = (size_t)1 << k;
    cz_error err = {0};
    cz_ntt_domain dom;
    cz_gpu_ntt *gd = NULL;
    CHECK(cz_ntt_domain_init(&dom, k, &err) == CZ_OK);
    if (cz_gpu_ntt_create(&gd, k, &err) != CZ_OK) {
        fprintf(stderr, "2^%u: %s\n", k, err.message);
        CHECK(0);
        cz_ntt_domain_free(&dom);
        return;
    }
    cz_fr *x = malloc(n * sizeof *x), *cpu = malloc(n * sizeof *cpu),
          *gpu = malloc(n * sizeof *gpu);
    cz_fr *dev = NULL;
    CHECK(cz_gpu_alloc((void **)&dev, n * sizeof *dev, &err) == CZ_OK);
    const cz_ntt_order orders[3] = {CZ_NTT_NN, CZ_NTT_NR, CZ_NTT_RN};
    for (int o = 0; o < 3; o++)
        for (int dir = 0; dir < 2; dir++)
            for (int kind = 0; kind < 2; kind++) {
                for (size_t i = 0; i < n; i++) gpu_rand_fr(&x[i]);
                memcpy(cpu, x, n * sizeof *x);
                CHECK(cz_ntt_transform(&dom, cpu, orders[o], (cz_ntt_direction)dir,
                                       (cz_ntt_kind)kind, &err) == CZ_OK);
                CHECK(cz_gpu_upload(dev, x, n * sizeof *x, &err) == CZ_OK);
                CHECK(cz_gpu_ntt_transform(gd, dev, orders[o], (cz_ntt_direction)dir,
                                           (cz_ntt_kind)kind, &err) == CZ_OK);
                memset(gpu, 0xa5, n * sizeof *gpu); /* poison: every element must come back */
                CHECK(cz_gpu_download(gpu, dev, n * sizeof *gpu, &err) == CZ_OK);
                size_t bad = 0;
                for (size_t i = 0; i < n; i++) bad += memcmp(&cpu[i], &gpu[i], sizeof(cz_fr)) != 0;
                if (bad)
                    fprintf(stderr, "2^%u order %d dir %d kind %d: %zu of %zu differ\n", k, o, dir,
                            kind, bad, n);
                CHECK(bad == 0);
            }
    cz_gpu_free(dev);
    cz_gpu_ntt_destroy(gd);
    cz_ntt_domain_free(&dom);
    free(x), free(cpu), free(gpu);
}

int main(void) {
    cz_test_init("gpu/test_gpu_ntt");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    const unsigned ks[] = {0, 1, 2, 3, 5, 9, 10, 11, 13, 17, 19, 20};
    /* CZ_GPU_SMALL: small sizes for runs under compute-sanitizer */
    const unsigned kmax = getenv("CZ_GPU_SMALL") ? 12 : 32;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (ks[i] <= kmax) check_size(ks[i]);
    if (getenv("CZ_SLOW_TESTS")) check_size(22);
    return cz_test_finish("gpu/test_gpu_ntt");
}
