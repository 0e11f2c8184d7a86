/* cuzk bench-abc: a, b, c = A·z, B·z, C·z of PoRep partitions from the
 * pre-compiled circuit, on the CPU (all cores) and, when a device answers,
 * on the GPU (circuit resident, witness uploaded once), each compared byte
 * for byte with the other. The circuit file is built in DIR when absent
 * (what the engine does on first use) and its build / open times printed;
 * the witness is synthesized in parallel (cz_porep_synthesize_witness) from
 * a synthetic sector (sparse above 8 MiB). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/bench/bench.h"
#include "cli/commands.h"
#include "filecoin/porep/porep.h"
#include "filecoin/porep/vanilla.h"
#include "gpu/gpu.h"
#include "util/parallel.h"

static void usage(FILE *out) {
    fprintf(out, "usage: cuzk bench-abc --circuit-dir DIR [--sector-size SIZE] [--partitions N]\n"
                 "                      [--runs R] [--backend auto|cpu|cuda]\n"
                 "  SIZE: 2KiB (default), 8MiB, 512MiB, 32GiB, 64GiB; N partitions (default 1)\n"
                 "  DIR holds (or receives: built on first use) the pre-compiled circuit file.\n"
                 "  Times a/b/c on the CPU (all cores) and, with a GPU, on the device (median of\n"
                 "  R runs, default 5) and checks that both give the same bytes.\n");
}

/* GPU a/b/c of one witness: median kernel time of runs, results downloaded. */
static cz_status gpu_abc(double *median_s, cz_fr *out[3], const cz_gpu_circuit *gc,
                         const cz_circuit *circ, const cz_witness *w, int runs, cz_error *err) {
    size_t rows = (size_t)circ->num_constraints, nz = (size_t)w->num_inputs + w->num_aux;
    cz_fr *dz = NULL, *dabc = NULL;
    cz_status st = cz_gpu_alloc((void **)&dz, nz * sizeof(cz_fr), err);
    if (st == CZ_OK) st = cz_gpu_alloc((void **)&dabc, 3 * rows * sizeof(cz_fr), err);
    if (st == CZ_OK) st = cz_gpu_upload(dz, w->input, w->num_inputs * sizeof(cz_fr), err);
    if (st == CZ_OK)
        st = cz_gpu_upload(dz + w->num_inputs, w->aux, w->num_aux * sizeof(cz_fr), err);
    double t[16];
    for (int r = 0; r < runs && st == CZ_OK; r++) {
        uint64_t t0 = cz_now_ns();
        st = cz_gpu_circuit_eval(dabc, dabc + rows, dabc + 2 * rows, gc, dz, err);
        t[r] = cz_cli_seconds_since(t0);
    }
    for (int k = 0; k < 3 && st == CZ_OK; k++)
        st = cz_gpu_download(out[k], dabc + k * rows, rows * sizeof(cz_fr), err);
    cz_gpu_free(dz);
    cz_gpu_free(dabc);
    if (st != CZ_OK) return st;
    cz_bench_sort(t, (size_t)runs);
    *median_s = t[runs / 2];
    return CZ_OK;
}

int cz_cmd_bench_abc(int argc, char **argv) {
    uint64_t size = 2048, partitions = 1, runs = 5;
    const char *dir = NULL, *backend = "auto";
    static const struct option opts[] = {{"sector-size", required_argument, NULL, 's'},
                                         {"circuit-dir", required_argument, NULL, 'd'},
                                         {"partitions", required_argument, NULL, 'p'},
                                         {"runs", required_argument, NULL, 'r'},
                                         {"backend", required_argument, NULL, 'b'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    optind = 1;
    int opt;
    cz_error err = {0};
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 's':
            if (cz_fc_sector_size_parse(&size, optarg, &err) != CZ_OK) {
                fprintf(stderr, "cuzk bench-abc: %s\n", err.message);
                return 2;
            }
            break;
        case 'd': dir = optarg; break;
        case 'p':
        case 'r': {
            uint64_t v = 0;
            if (!cz_cli_parse_u64(optarg, &v) || v == 0 || (opt == 'r' && v > 16)) {
                fprintf(stderr, "cuzk bench-abc: --%s: '%s' is not a count%s\n",
                        opt == 'p' ? "partitions" : "runs", optarg,
                        opt == 'r' ? " from 1 to 16" : "");
                return 2;
            }
            *(opt == 'p' ? &partitions : &runs) = v;
            break;
        }
        case 'b':
            if (!cz_cli_backend_valid("bench-abc", optarg)) return 2;
            backend = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!dir || optind != argc) {
        usage(stderr);
        return 2;
    }
    char machine[512], gpu_desc[256] = "";
    cz_machine_describe(machine, sizeof machine);
    cz_error gerr = {0};
    int gpu =
        strcmp(backend, "cpu") != 0 && cz_gpu_probe(gpu_desc, sizeof gpu_desc, &gerr) == CZ_OK;
    if (!strcmp(backend, "cuda") && !gpu) {
        fprintf(stderr, "cuzk bench-abc: --backend cuda: %s\n", gerr.message);
        return 1;
    }
    printf("cuzk bench-abc: %llu-byte sector, %llu partition(s)\n%s\ngpu: %s\n",
           (unsigned long long)size, (unsigned long long)partitions, machine,
           gpu               ? gpu_desc
           : gerr.message[0] ? gerr.message
                             : "not used");

    cz_fc_proof_info info;
    cz_porep_geometry g;
    cz_c1 c1 = {0};
    char path[4096];
    cz_circuit *circ = NULL;
    cz_gpu_circuit *gc = NULL;
    cz_witness w = {0};
    cz_fr *cpu[3] = {NULL}, *dev[3] = {NULL};
    cz_status st = cz_fc_proof_lookup_by_size(&info, size, CZ_FC_API_V1_1_0, 0, &err);
    if (st == CZ_OK) st = cz_porep_geometry_from_sector(&g, &info.sector, &err);
    if (st == CZ_OK && mkdir(dir, 0755) != 0 && errno != EEXIST)
        st = cz_error_set(&err, CZ_E_IO, "--circuit-dir %s: %s", dir, strerror(errno));
    if (st == CZ_OK) st = cz_porep_circuit_path(path, sizeof path, dir, &info.sector, &err);
    uint64_t t0 = cz_now_ns();
    int built = 0;
    if (st == CZ_OK) st = cz_porep_circuit_load(&circ, &built, path, &info.sector, stdout, &err);
    if (st == CZ_OK)
        printf("  circuit %s  %8.2f s  (%.2f GB, %llu rows, nnz %llu / %llu / %llu, %u "
               "coefficients)\n",
               built ? "built  " : "checked", cz_cli_seconds_since(t0),
               (double)cz_circuit_bytes(circ) / 1e9, (unsigned long long)circ->num_constraints,
               (unsigned long long)circ->m[0].nnz, (unsigned long long)circ->m[1].nnz,
               (unsigned long long)circ->m[2].nnz, circ->num_coeffs);
    t0 = cz_now_ns();
    cz_fc_gen_opts gen = {
        .registered_proof = info.id, .seed = 1, .miner_id = 1000, .sector_num = 1, .sparse = -1};
    if (st == CZ_OK) st = cz_fc_gen_c1(&c1, &gen, &err);
    if (st == CZ_OK) printf("  synthetic C1            %8.2f s\n", cz_cli_seconds_since(t0));
    size_t rows = circ ? (size_t)circ->num_constraints : 0;
    for (int k = 0; k < 3 && st == CZ_OK; k++) {
        cpu[k] = malloc(rows * sizeof(cz_fr));
        dev[k] = gpu ? malloc(rows * sizeof(cz_fr)) : NULL;
        if (!cpu[k] || (gpu && !dev[k])) st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    }
    if (st == CZ_OK && gpu) {
        t0 = cz_now_ns();
        st = cz_gpu_circuit_create(&gc, circ, &err);
        if (st == CZ_OK)
            printf("  circuit to the GPU      %8.2f s  (%.2f GB on the device)\n",
                   cz_cli_seconds_since(t0), (double)cz_gpu_circuit_bytes(gc) / 1e9);
    }
    for (uint64_t p = 0; p < partitions && st == CZ_OK; p++) {
        uint32_t part = (uint32_t)(p % c1.partitions);
        t0 = cz_now_ns();
        st = cz_porep_synthesize_witness(&w, &g, &c1, part, 0, &err);
        if (st != CZ_OK) break;
        double synth = cz_cli_seconds_since(t0);
        t0 = cz_now_ns();
        cz_circuit_eval(cpu[0], cpu[1], cpu[2], circ, w.input, w.aux);
        double host = cz_cli_seconds_since(t0);
        printf("  partition %-3u witness %6.3f s, a/b/c CPU %7.3f s", part, synth, host);
        if (gpu) {
            double med = 0;
            st = gpu_abc(&med, dev, gc, circ, &w, (int)runs, &err);
            if (st != CZ_OK) break;
            int same = 1;
            for (int k = 0; k < 3; k++) same &= !memcmp(cpu[k], dev[k], rows * sizeof(cz_fr));
            printf(", GPU %7.2f ms (median of %llu), %s", med * 1e3, (unsigned long long)runs,
                   same ? "GPU = CPU" : "GPU != CPU");
            if (!same) st = cz_error_set(&err, CZ_E_INTERNAL, "GPU a/b/c differ from the CPU's");
        }
        printf("\n");
    }
    if (st == CZ_OK)
        printf("  peak memory             %8.1f MiB\n", (double)cz_peak_rss_bytes() / (1 << 20));
    for (int k = 0; k < 3; k++) free(cpu[k]), free(dev[k]);
    cz_witness_free(&w);
    cz_gpu_circuit_destroy(gc);
    cz_circuit_free(circ);
    cz_c1_free(&c1);
    if (st != CZ_OK) return cz_cli_fail("bench-abc", &err);
    return 0;
}
