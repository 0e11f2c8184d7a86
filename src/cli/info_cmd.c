/* cuzk info circuit [--kind porep|winning-post|window-post|snap-update] --sector-size
 * SIZE: the circuit of a kind and sector size (PoRep by default)
 * synthesized without a witness on the stats back-end (sizes, non-zeros,
 * densities, FFT domain), as the Groth16 parameters of that size expect,
 * and the device memory plan its key gets on cards of common sizes (the
 * plan functions of src/gpu/plan.h: no device needed).
 * With --compile FILE the compile back-end builds the pre-compiled circuit
 * (r1cs/circuit.h) instead and writes it to FILE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/porep/porep_circuit.h"
#include "filecoin/post/post_circuit.h"
#include "filecoin/common/registry.h"
#include "filecoin/snap/snap_circuit.h"
#include "gpu/plan.h"
#include "groth16/groth16.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"
#include "util/parallel.h"

static void info_usage(FILE *out) {
    fprintf(out, "usage: cuzk info circuit [--kind KIND] --sector-size SIZE [--count | --compile "
                 "FILE]\n"
                 "  KIND: porep (default), winning-post, window-post or snap-update\n"
                 "  SIZE: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or a byte count\n"
                 "  --count: sizes only (faster; no non-zeros or densities)\n"
                 "  --compile FILE: build the pre-compiled circuit and write it to FILE\n");
}

static void size_name(char *out, size_t cap, uint64_t bytes) {
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, u++;
    snprintf(out, cap, "%llu %s", (unsigned long long)bytes, names[u]);
}

static void progress(void *ctx, uint32_t done, uint32_t total) {
    cz_cli_progress_update(ctx, done, total);
}

/* The figures the stats back-end would give, from a compiled circuit. */
static void stats_of_circuit(cz_r1cs_stats *st, const cz_circuit *c, uint64_t synthesized) {
    st->num_inputs = c->num_inputs;
    st->num_aux = c->num_aux;
    st->synthesized_constraints = synthesized;
    st->num_constraints = c->num_constraints;
    st->nnz_a = c->m[0].nnz, st->nnz_b = c->m[1].nnz, st->nnz_c = c->m[2].nnz;
    st->a_aux_count = cz_density_popcount(c->a_aux_density, c->num_aux);
    st->b_input_count = cz_density_popcount(c->b_input_density, c->num_inputs);
    st->b_aux_count = cz_density_popcount(c->b_aux_density, c->num_aux);
}

/* The memory plan of the key of a circuit of these figures (its point
 * counts: H 2^log_m - 1, L the aux, A the inputs and the aux in A, B the
 * inputs and aux in B) on the device memory cards of common sizes leave
 * usable, as a CUDA context would choose it. */
static void print_plans(const cz_r1cs_stats *st, unsigned log_m) {
    cz_groth16_params shape;
    memset(&shape, 0, sizeof shape);
    shape.vk.n_ic = st->num_inputs;
    shape.n_h = ((size_t)1 << log_m) - 1;
    shape.n_l = st->num_aux;
    shape.n_a = (size_t)st->num_inputs + st->a_aux_count;
    shape.n_b_g1 = shape.n_b_g2 = st->b_input_count + st->b_aux_count;
    static const struct {
        const char *card;
        double usable_gib;
    } cards[] = {{"12 GB", 11.5}, {"16 GB", 15.0}, {"24 GB", 23.0},         {"32 GB", 31.0},
                 {"48 GB", 47.0}, {"80 GB", 79.0}, {"141 GB (H200)", 139.0}};
    const double gib = 1024.0 * 1024.0 * 1024.0;
    cz_gpu_plan pl;
    cz_error err = {0};
    if (cz_gpu_plan_make(&pl, &shape, 0, NULL, &err) == CZ_E_INVALID_ARG) {
        printf("GPU memory plan:      none (%s)\n", err.message);
        return;
    }
    printf("GPU memory plan:      of the key, by card (usable memory): at least %.1f GiB, "
           "resident from %.1f GiB\n",
           (double)pl.minimum / gib, (double)pl.resident_need / gib);
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++) {
        const size_t budget = (size_t)(cards[i].usable_gib * gib);
        char line[320];
        if (cz_gpu_plan_make(&pl, &shape, budget, NULL, &err) == CZ_OK)
            cz_gpu_plan_describe(line, sizeof line, &pl);
        else
            snprintf(line, sizeof line, "refused (below the minimum)");
        printf("  %-13s (%5.1f GiB) %s\n", cards[i].card, cards[i].usable_gib, line);
    }
}

/* --kind: PoRep, a PoSt kind (post >= 0) or SnapDeals. */
typedef struct {
    int post; /* -1: PoRep or SnapDeals; else the cz_post_kind */
    int snap; /* EmptySectorUpdate (one partition) */
} circuit_kind;

static void post_progress(void *ctx, uint32_t done, uint32_t total) {
    cz_cli_progress_update(ctx, done, total);
}

static int info_circuit(uint64_t sector_size, circuit_kind kind, int count_only,
                        const char *compile_path) {
    cz_error err = {0};
    cz_fc_sector_info sector;
    cz_porep_geometry g;
    cz_post_config post;
    cz_snap_config snap;
    if (cz_fc_sector_lookup(&sector, sector_size, &err) != CZ_OK ||
        (kind.snap       ? cz_snap_config_from_sector(&snap, sector_size, &err)
         : kind.post < 0 ? cz_porep_geometry_from_sector(&g, &sector, &err)
                         : cz_post_config_from_sector(&post, (cz_post_kind)kind.post, sector_size,
                                                      &err)) != CZ_OK) {
        return cz_cli_fail("info circuit", &err);
    }
    cz_cs *cs = compile_path ? cz_cs_compile_new()
                : count_only ? cz_cs_count_new()
                             : cz_cs_stats_new();
    if (!cs) {
        fprintf(stderr, "cuzk info circuit: out of memory\n");
        return 1;
    }
    /* progress (on stderr) only where synthesis takes seconds */
    cz_cli_progress prog;
    cz_cli_progress_begin(&prog, stderr, "synthesis");
    int show = sector.nodes >= ((uint64_t)1 << 30);
    uint64_t t0 = cz_now_ns();
    cz_status st =
        kind.snap
            ? cz_snap_synthesize(cs, &snap, 0, NULL, NULL, show ? post_progress : NULL, &prog, &err)
        : kind.post < 0
            ? cz_porep_synthesize_progress(cs, &g, NULL, 0, show ? progress : NULL, &prog, &err)
            : cz_post_synthesize(cs, &post, NULL, 0, show ? post_progress : NULL, &prog, &err);
    cz_cli_progress_end(&prog);
    uint64_t t1 = cz_now_ns();
    cz_r1cs_stats stats;
    memset(&stats, 0, sizeof stats);
    cz_circuit *circ = NULL;
    uint64_t write_ns = 0;
    if (st == CZ_OK) {
        if (compile_path) {
            st = cz_compile_finish(cs, &circ, &err);
            t1 = cz_now_ns();
            if (st == CZ_OK) {
                stats_of_circuit(&stats, circ, cs->num_constraints);
                st = cz_circuit_write(circ, compile_path, &err);
                write_ns = cz_now_ns() - t1;
            }
        } else if (count_only) {
            stats.num_inputs = cs->num_inputs;
            stats.num_aux = cs->num_aux;
            stats.synthesized_constraints = cs->num_constraints;
            stats.num_constraints = cs->num_constraints + cs->num_inputs;
        } else {
            st = cz_stats_finish(cs, &stats, &err);
        }
    }
    cz_cs_destroy(cs);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk info circuit: %s\n", err.message);
        cz_circuit_free(circ);
        return 1;
    }
    char name[32];
    size_name(name, sizeof name, sector_size);
    if (kind.snap) {
        char stem[256] = "";
        cz_snap_param_file_stem(stem, sizeof stem, &snap, NULL);
        printf("circuit:              EmptySectorUpdate (SnapDeals), %s sector (one partition of "
               "%u)\n",
               name, snap.partitions);
        printf("geometry:             %llu nodes, tree R %u-%u-%u, tree D depth %u, %u challenges, "
               "%u apex leaves, h %u\n",
               (unsigned long long)snap.nodes, snap.tree_r.base_arity, snap.tree_r.sub_arity,
               snap.tree_r.top_arity, snap.node_bits, snap.challenges, snap.apex_leaves, snap.h);
        printf("parameters:           %s.params\n", stem);
    } else if (kind.post < 0) {
        printf("circuit:              StackedDRG PoRep, %s sector (one partition of %u)\n", name,
               sector.partitions);
        printf("geometry:             %llu nodes, %u layers, %u challenges, tree R/C %u-%u-%u, "
               "tree D depth %u\n",
               (unsigned long long)g.nodes, g.layers, g.challenges, sector.tree_base_arity,
               sector.tree_sub_arity, sector.tree_top_arity, sector.tree_d_depth);
    } else {
        char stem[256] = "";
        cz_post_param_file_stem(stem, sizeof stem, &post, NULL);
        printf("circuit:              Fallback PoSt (%sPoSt), %s sector%s\n",
               kind.post == CZ_POST_WINNING ? "Winning" : "Window", name,
               kind.post == CZ_POST_WINDOW ? " (one partition)" : "");
        printf("geometry:             %llu nodes, tree R %u-%u-%u, %u sector slots x %u "
               "challenges\n",
               (unsigned long long)post.nodes, post.tree.base_arity, post.tree.sub_arity,
               post.tree.top_arity, post.sector_count, post.challenge_count);
        printf("parameters:           %s.params\n", stem);
    }
    printf("inputs (with ONE):    %u\n", stats.num_inputs);
    printf("aux:                  %u\n", stats.num_aux);
    printf("constraints:          %llu synthesized, %llu with the %u input constraints\n",
           (unsigned long long)stats.synthesized_constraints,
           (unsigned long long)stats.num_constraints, stats.num_inputs);
    if (!count_only) {
        printf("non-zeros A / B / C:  %llu / %llu / %llu (input constraints included)\n",
               (unsigned long long)stats.nnz_a, (unsigned long long)stats.nnz_b,
               (unsigned long long)stats.nnz_c);
        printf("density a_aux:        %llu of %u\n", (unsigned long long)stats.a_aux_count,
               stats.num_aux);
        printf("density b_input:      %llu of %u\n", (unsigned long long)stats.b_input_count,
               stats.num_inputs);
        printf("density b_aux:        %llu of %u\n", (unsigned long long)stats.b_aux_count,
               stats.num_aux);
    }
    unsigned log_m = 0;
    if (cz_groth16_domain_log_size(&log_m, stats.num_constraints, &err) == CZ_OK) {
        printf("FFT domain:           2^%u\n", log_m);
        if (!count_only) print_plans(&stats, log_m);
    } else {
        printf("FFT domain:           none (%s)\n", err.message);
    }
    printf("synthesis:            %.2f s on the %s back-end, peak RSS %.1f MiB\n",
           (double)(t1 - t0) / 1e9,
           compile_path ? "compile"
           : count_only ? "count"
                        : "stats",
           (double)cz_peak_rss_bytes() / (1024.0 * 1024.0));
    if (circ) {
        printf("coefficients:         %u distinct (u%u indices)\n", circ->num_coeffs,
               8 * circ->coef_bytes);
        printf("compiled circuit:     %.1f MiB of arrays, written to %s in %.2f s "
               "(checksum %016llx)\n",
               (double)cz_circuit_bytes(circ) / (1024.0 * 1024.0), compile_path,
               (double)write_ns / 1e9, (unsigned long long)circ->checksum);
        cz_circuit_free(circ);
    } else {
        cz_r1cs_stats_free(&stats);
    }
    return 0;
}

int cz_cmd_info(int argc, char **argv) {
    if (argc >= 2 && cz_cli_is_help(argv[1])) {
        info_usage(stdout);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "circuit")) {
        if (argc < 2)
            fprintf(stderr, "cuzk info: about what? (circuit)\n");
        else
            fprintf(stderr, "cuzk info: unknown subject '%s' (only circuit)\n", argv[1]);
        info_usage(stderr);
        return 2;
    }
    uint64_t size = 0;
    int have_size = 0, count_only = 0;
    circuit_kind kind = {-1, 0};
    const char *compile_path = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sector-size") && i + 1 < argc) {
            cz_error err = {0};
            if (cz_fc_sector_size_parse(&size, argv[++i], &err) != CZ_OK) {
                fprintf(stderr, "cuzk info circuit: %s\n", err.message);
                return 2;
            }
            have_size = 1;
        } else if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
            const char *k = argv[++i];
            kind.snap = 0;
            if (!strcmp(k, "porep"))
                kind.post = -1;
            else if (!strcmp(k, "snap-update") || !strcmp(k, "snap"))
                kind.post = -1, kind.snap = 1;
            else if (!strcmp(k, "winning-post") || !strcmp(k, "winning"))
                kind.post = CZ_POST_WINNING;
            else if (!strcmp(k, "window-post") || !strcmp(k, "window"))
                kind.post = CZ_POST_WINDOW;
            else {
                fprintf(stderr,
                        "cuzk info circuit: --kind '%s': expected porep, winning-post, "
                        "window-post or snap-update\n",
                        k);
                return 2;
            }
        } else if (!strcmp(argv[i], "--count")) {
            count_only = 1;
        } else if (!strcmp(argv[i], "--compile") && i + 1 < argc) {
            compile_path = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            info_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk info circuit: unknown option '%s'\n", argv[i]);
            info_usage(stderr);
            return 2;
        }
    }
    if (!have_size) {
        fprintf(stderr, "cuzk info circuit: --sector-size SIZE is required\n");
        info_usage(stderr);
        return 2;
    }
    if (count_only && compile_path) {
        fprintf(stderr, "cuzk info circuit: --count and --compile exclude each other\n");
        info_usage(stderr);
        return 2;
    }
    return info_circuit(size, kind, count_only, compile_path);
}
