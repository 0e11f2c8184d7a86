/* The GPU prover on the 2 KiB PoRep (StackedDrg2KiBV1_1, a really sealed
 * whole sector from cz_fc_gen_c1): the circuit recorded without a witness,
 * development parameters from a fixed seed, partition 0 synthesized with
 * the prove back-end; then cz_gpu_groth16_prove_start over a resident SRS
 * (and over a streaming one, with the device capped by CZ_GPU_MEM_LIMIT)
 * must give the same five sums as the CPU's cz_groth16_prove_start, the same
 * 192 proof bytes with the same fixed r, s, and Filecoin's verification
 * (cz_porep_verify, inputs recomputed from the C1) must accept them. This
 * is the witness the 0 / 1 / other split is for (mostly zeros and ones).
 * Times are printed, not checked. The development setup takes minutes on 2
 * cores; on a GPU machine (16 cores) well under one. */
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/derive.h"
#include "filecoin/porep/porep.h"
#include "filecoin/porep/vanilla.h"
#include "gpu_test_util.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "util/parallel.h"

#define MINER  1234
#define SECTOR 42

static double ms_since(uint64_t t0) {
    return (double)(cz_now_ns() - t0) / 1e6;
}

/* zeros / ones / others among n scalars (what the split sees) */
static void census(const char *name, const cz_fr *s, size_t n) {
    size_t z = 0, o = 0;
    for (size_t i = 0; i < n; i++) {
        if (cz_fr_is_zero(&s[i]))
            z++;
        else if (cz_fr_is_one(&s[i]))
            o++;
    }
    printf("%s: %zu scalars, %.1f %% zero, %.1f %% one, %.1f %% other\n", name, n,
           n ? 100.0 * z / n : 0.0, n ? 100.0 * o / n : 0.0, n ? 100.0 * (n - z - o) / n : 0.0);
}

int main(void) {
    cz_test_init("gpu/test_gpu_porep");
    if (!gpu_test_have_device()) return CZ_GPU_TEST_SKIP;
    cz_error err = {0};
    uint64_t t0 = cz_now_ns();
    cz_c1 c1;
    cz_fc_gen_opts gen = {.registered_proof = 5, /* StackedDrg2KiBV1_1 */
                          .seed = cz_test_rand64(),
                          .miner_id = MINER,
                          .sector_num = SECTOR,
                          .sparse = 0};
    CHECK(cz_fc_gen_c1(&c1, &gen, &err) == CZ_OK);
    CHECK(c1.partitions == 1);
    cz_porep_geometry g;
    CHECK(cz_porep_geometry_of_c1(&g, &c1, &err) == CZ_OK);
    printf("c1 generated: %.0f ms\n", ms_since(t0));

    t0 = cz_now_ns();
    cz_cs *rec = cz_cs_compile_new();
    CHECK(cz_porep_synthesize(rec, &g, NULL, 0, &err) == CZ_OK);
    cz_circuit *circ = NULL;
    CHECK(cz_compile_finish(rec, &circ, &err) == CZ_OK);
    cz_cs_destroy(rec);
    if (!circ) return 1;
    printf("circuit compiled: %llu constraints, %u inputs, %u aux: %.0f ms\n",
           (unsigned long long)circ->num_constraints, circ->num_inputs, circ->num_aux,
           ms_since(t0));

    t0 = cz_now_ns();
    uint8_t seed[CZ_GROTH16_SEED_BYTES];
    for (size_t i = 0; i < sizeof seed; i++) seed[i] = (uint8_t)(0xc0 + i); /* fixed */
    cz_groth16_params params;
    if (cz_groth16_dev_setup(&params, circ, seed, &err) != CZ_OK) {
        fprintf(stderr, "dev setup: %s\n", err.message);
        return 1;
    }
    cz_circuit_free(circ);
    printf("development setup: %.0f ms\n", ms_since(t0));

    t0 = cz_now_ns();
    cz_prove_data pd;
    CHECK(cz_porep_synthesize_partition(&pd, &g, &c1, 0, &err) == CZ_OK);
    printf("partition 0 synthesized: %.0f ms\n", ms_since(t0));
    census("aux (L)", pd.aux_assignment, pd.num_aux);

    t0 = cz_now_ns();
    cz_groth16_msm_results cpu, gpu;
    CHECK(cz_groth16_prove_start(&cpu, &params, &pd, &err) == CZ_OK);
    double cpu_ms = ms_since(t0);
    printf("CPU prove_start (%u threads): %.1f ms\n", cz_thread_count(), cpu_ms);

    t0 = cz_now_ns();
    cz_gpu_srs *srs = NULL;
    if (cz_gpu_srs_create(&srs, &params, &err) != CZ_OK) {
        fprintf(stderr, "gpu srs: %s\n", err.message);
        return 1;
    }
    printf("GPU SRS resident: %.1f MiB, upload %.1f ms\n",
           (double)cz_gpu_srs_bytes(srs) / (1024.0 * 1024.0), ms_since(t0));
    /* three proofs on the resident SRS: the first pays CUDA's lazy set-up */
    for (int run = 0; run < 3; run++) {
        t0 = cz_now_ns();
        cz_status st = cz_gpu_groth16_prove_start(&gpu, srs, &params, NULL, &pd, NULL, &err);
        double ms = ms_since(t0);
        if (st != CZ_OK) fprintf(stderr, "gpu prove: %s\n", err.message);
        CHECK(st == CZ_OK);
        printf("GPU prove_start run %d: %.1f ms (CPU / GPU = %.1f)\n", run, ms, cpu_ms / ms);
        int same = cz_g1_equal(&cpu.h, &gpu.h) && cz_g1_equal(&cpu.l, &gpu.l) &&
                   cz_g1_equal(&cpu.a, &gpu.a) && cz_g1_equal(&cpu.b_g1, &gpu.b_g1) &&
                   cz_g2_equal(&cpu.b_g2, &gpu.b_g2);
        if (!same)
            fprintf(stderr, "sums differ (h %d l %d a %d b1 %d b2 %d)\n",
                    cz_g1_equal(&cpu.h, &gpu.h), cz_g1_equal(&cpu.l, &gpu.l),
                    cz_g1_equal(&cpu.a, &gpu.a), cz_g1_equal(&cpu.b_g1, &gpu.b_g1),
                    cz_g2_equal(&cpu.b_g2, &gpu.b_g2));
        CHECK(same);
    }

    /* the same fixed r, s: the same proof bytes, and Filecoin's check */
    cz_fr r, s;
    cz_fr_from_u64(&r, 0x1234567890abcdefull);
    cz_fr_from_u64(&s, 0xfedcba0987654321ull);
    cz_groth16_proof pc, pg;
    CHECK(cz_groth16_prove_finalize(&pc, &params.vk, &cpu, &r, &s, &err) == CZ_OK);
    CHECK(cz_groth16_prove_finalize(&pg, &params.vk, &gpu, &r, &s, &err) == CZ_OK);
    uint8_t bc[CZ_GROTH16_PROOF_BYTES], bg[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(bc, &pc);
    cz_groth16_proof_encode(bg, &pg);
    CHECK(memcmp(bc, bg, sizeof bc) == 0);
    uint8_t prover_id[32];
    cz_fc_prover_id(prover_id, MINER);
    int valid = 0;
    CHECK(cz_porep_verify(&valid, &c1, &params.vk, bg, sizeof bg, prover_id, SECTOR, &err) ==
          CZ_OK);
    CHECK(valid);
    /* and a corrupted proof is not accepted */
    bg[100] ^= 0x10;
    valid = 1;
    (void)cz_porep_verify(&valid, &c1, &params.vk, bg, sizeof bg, prover_id, SECTOR, &err);
    CHECK(!valid);

    cz_gpu_srs_destroy(srs);

    /* A device too small for the key (1.5 GiB usable): the points stream
     * from host memory, the sums stay the same. */
    gpu_knob("CZ_GPU_MEM_LIMIT", "1536MiB");
    t0 = cz_now_ns();
    cz_status sst = cz_gpu_srs_create(&srs, &params, &err);
    gpu_knob("CZ_GPU_MEM_LIMIT", NULL);
    if (sst != CZ_OK) fprintf(stderr, "gpu srs (streaming): %s\n", err.message);
    CHECK(sst == CZ_OK);
    char why[256];
    CHECK(cz_gpu_srs_streaming(srs, why, sizeof why) == 1);
    printf("GPU SRS %s: %.1f MiB on the device, %.1f ms\n", why,
           (double)cz_gpu_srs_bytes(srs) / (1024.0 * 1024.0), ms_since(t0));
    for (int run = 0; run < 2; run++) {
        t0 = cz_now_ns();
        cz_status st = cz_gpu_groth16_prove_start(&gpu, srs, &params, NULL, &pd, NULL, &err);
        if (st != CZ_OK) fprintf(stderr, "gpu prove (streaming): %s\n", err.message);
        CHECK(st == CZ_OK);
        printf("GPU prove_start streaming run %d: %.1f ms\n", run, ms_since(t0));
        CHECK(cz_g1_equal(&cpu.h, &gpu.h) && cz_g1_equal(&cpu.l, &gpu.l) &&
              cz_g1_equal(&cpu.a, &gpu.a) && cz_g1_equal(&cpu.b_g1, &gpu.b_g1) &&
              cz_g2_equal(&cpu.b_g2, &gpu.b_g2));
    }
    cz_gpu_srs_destroy(srs);
    cz_prove_data_free(&pd);
    cz_groth16_params_free(&params);
    cz_c1_free(&c1);
    return cz_test_finish("gpu/test_gpu_porep");
}
