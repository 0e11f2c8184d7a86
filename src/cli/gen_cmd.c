/* cuzk gen c1: writes a synthetic, vanilla-valid C1 output (whole-sector
 * seal for small sizes, sparse sector for large ones; filecoin/vanilla.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/registry.h"
#include "filecoin/vanilla.h"
#include "util/parallel.h"

static void gen_usage(FILE *out) {
    fprintf(out, "usage: cuzk gen c1 --sector-size SIZE --out FILE [options]\n"
                 "  --sector-size SIZE      2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or bytes)\n"
                 "  --registered-proof ID   0..14 (default: the V1_1 id of the size)\n"
                 "  --seed N                everything random follows from it (default 1)\n"
                 "  --miner-id N            prover_id = f0 actor N (default 1000)\n"
                 "  --sector-num N          sector number (default 1)\n"
                 "  --sparse | --whole      sparse sector or whole-sector seal (default: whole\n"
                 "                          up to 8 MiB, sparse above; synthetic ids: whole)\n"
                 "  --raw                   bare SealCommitPhase1Output JSON (default: Curio's\n"
                 "                          envelope {SectorNum, Phase1Out (base64), SectorSize})\n"
                 "  --no-verify             skip the vanilla self-check before writing\n");
}

static int gen_c1(int argc, char **argv) {
    const char *size_text = NULL, *out_path = NULL;
    uint64_t proof_id = UINT64_MAX, seed = 1, miner = 1000, sector_num = 1;
    int raw = 0, sparse = -1, verify = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (!strcmp(a, "--sector-size") && v)
            size_text = v, i++;
        else if (!strcmp(a, "--out") && v)
            out_path = v, i++;
        else if (!strcmp(a, "--registered-proof") && v)
            ok = cz_cli_parse_u64(v, &proof_id), i++;
        else if (!strcmp(a, "--seed") && v)
            ok = cz_cli_parse_u64(v, &seed), i++;
        else if (!strcmp(a, "--miner-id") && v)
            ok = cz_cli_parse_u64(v, &miner), i++;
        else if (!strcmp(a, "--sector-num") && v)
            ok = cz_cli_parse_u64(v, &sector_num), i++;
        else if (!strcmp(a, "--raw"))
            raw = 1;
        else if (!strcmp(a, "--sparse"))
            sparse = 1;
        else if (!strcmp(a, "--whole"))
            sparse = 0;
        else if (!strcmp(a, "--no-verify"))
            verify = 0;
        else if (cz_cli_is_help(a)) {
            gen_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk gen c1: unknown or incomplete option '%s'\n", a);
            gen_usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "cuzk gen c1: %s: expected a non-negative integer, got '%s'\n", a, v);
            return 2;
        }
    }
    if (!size_text || !out_path) {
        fprintf(stderr, "cuzk gen c1: %s is required\n",
                !size_text ? "--sector-size SIZE" : "--out FILE");
        gen_usage(stderr);
        return 2;
    }
    cz_error err = {0};
    uint64_t sector_size;
    if (cz_fc_sector_size_parse(&sector_size, size_text, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen c1: %s\n", err.message);
        return 2;
    }
    cz_fc_proof_info info;
    if (proof_id == UINT64_MAX) {
        if (cz_fc_proof_lookup_by_size(&info, sector_size, CZ_FC_API_V1_1_0, 0, &err) != CZ_OK) {
            fprintf(stderr, "cuzk gen c1: %s\n", err.message);
            return 2;
        }
    } else if (proof_id > UINT32_MAX ||
               cz_fc_proof_lookup(&info, (uint32_t)proof_id, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen c1: registered proof %llu: %s\n", (unsigned long long)proof_id,
                err.message);
        return 2;
    } else if (info.sector.sector_size != sector_size) {
        fprintf(stderr, "cuzk gen c1: registered proof %s is for %llu-byte sectors, not %llu\n",
                info.name, (unsigned long long)info.sector.sector_size,
                (unsigned long long)sector_size);
        return 2;
    }
    /* the output is known to be writable before anything is generated */
    cz_cli_out out;
    if (cz_cli_out_open(&out, out_path, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen c1: --out: %s\n", err.message);
        return 1;
    }
    cz_fc_gen_opts opts = {info.id, seed, miner, sector_num, sparse, stderr};
    cz_c1 c1;
    uint64_t t0 = cz_now_ns();
    if (cz_fc_gen_c1(&c1, &opts, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen c1: %s\n", err.message);
        cz_cli_out_abort(&out);
        return 1;
    }
    double gen_s = (double)(cz_now_ns() - t0) / 1e9;
    if (verify) {
        uint8_t prover_id[32];
        cz_fc_prover_id(prover_id, miner);
        uint64_t t1 = cz_now_ns();
        if (cz_fc_vanilla_verify(&c1, prover_id, sector_num, &err) != CZ_OK) {
            fprintf(stderr, "cuzk gen c1: self-check failed: %s\n", err.message);
            cz_c1_free(&c1);
            cz_cli_out_abort(&out);
            return 1;
        }
        fprintf(stderr, "gen: vanilla verification passed (%.2f s)\n",
                (double)(cz_now_ns() - t1) / 1e9);
    }
    uint64_t t2 = cz_now_ns();
    cz_status st = cz_c1_write_json(out.file, &c1, !raw, sector_num, &err);
    long size = ftell(out.file);
    cz_c1_free(&c1);
    if (st != CZ_OK) {
        cz_cli_out_abort(&out);
        fprintf(stderr, "cuzk gen c1: %s: %s\n", out_path, err.message);
        return 1;
    }
    if (cz_cli_out_commit(&out, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen c1: %s\n", err.message);
        return 1;
    }
    fprintf(stderr, "gen: wrote %s (%s, %ld bytes, %.2f s); generation %.2f s, peak RSS %.1f MiB\n",
            out_path, raw ? "raw C1 JSON" : "Curio envelope", size,
            (double)(cz_now_ns() - t2) / 1e9, gen_s,
            (double)cz_peak_rss_bytes() / (1024.0 * 1024.0));
    return 0;
}

int cz_cmd_gen(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "c1")) return gen_c1(argc - 1, argv + 1);
    if (argc >= 2 && cz_cli_is_help(argv[1])) {
        gen_usage(stdout);
        return 0;
    }
    if (argc < 2)
        fprintf(stderr, "cuzk gen: what to generate? (c1)\n");
    else
        fprintf(stderr, "cuzk gen: unknown kind '%s' (only c1: a synthetic C1 output)\n", argv[1]);
    gen_usage(stderr);
    return 2;
}
