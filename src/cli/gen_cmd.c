/* cuzk gen c1: writes a synthetic, vanilla-valid C1 output (whole-sector
 * seal for small sizes, sparse sector for large ones; filecoin/porep/vanilla.h).
 * cuzk gen post: synthetic, vanilla-valid WinningPoSt / WindowPoSt vanilla
 * proofs (sparse trees; filecoin/post/post.h) in a PoSt request file.
 * cuzk gen snap: a synthetic, vanilla-valid SnapDeals update
 * (filecoin/snap/snap.h) in a SnapDeals request file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/common/derive.h"
#include "filecoin/post/post.h"
#include "filecoin/common/registry.h"
#include "filecoin/snap/snap.h"
#include "filecoin/porep/vanilla.h"
#include "util/parallel.h"

static void gen_usage(FILE *out) {
    fprintf(out,
            "usage: cuzk gen c1 --sector-size SIZE --out FILE [options]\n"
            "  --sector-size SIZE      2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or bytes)\n"
            "  --registered-proof ID   0..14 (default: the V1_1 id of the size)\n"
            "  --seed N                everything random follows from it (default 1)\n"
            "  --miner-id N            prover_id = f0 actor N (default 1000)\n"
            "  --sector-num N          sector number (default 1)\n"
            "  --sparse | --whole      sparse sector or whole-sector seal (default: whole\n"
            "                          up to 8 MiB, sparse above; synthetic ids: whole)\n"
            "  --raw                   bare SealCommitPhase1Output JSON (default: Curio's\n"
            "                          envelope {SectorNum, Phase1Out (base64), SectorSize})\n"
            "  --no-verify             skip the vanilla self-check before writing\n"
            "usage: cuzk gen post --kind winning|window --sector-size SIZE --out FILE "
            "[options]\n"
            "  --sectors N             window: sectors of the partition (1 .. 2349 for 32 GiB,\n"
            "                          default 1); winning: the sector set, of which the\n"
            "                          chain's challenged one is proven (default 1)\n"
            "  --registered-proof ID   PoSt id 0..14 (default: what Curio sends, winning V1 /\n"
            "                          window V1_1)\n"
            "  --seed N                comm_c, leaf values, randomness (default 1)\n"
            "  --randomness HEX        the 32 bytes (64 hex digits) instead of the seed's\n"
            "  --miner-id N            the miner (default 1000)\n"
            "  --first-sector N        sector numbers N, N+1, ... (default 1)\n"
            "  --partition K           window: the partition index (default 0)\n"
            "  --vproof-dir DIR        also write each proof's bincode bytes as\n"
            "                          DIR/sector-<number>.vproof\n"
            "  --no-verify             skip the vanilla self-check before writing\n"
            "usage: cuzk gen snap --sector-size SIZE --out FILE [options]\n"
            "  --registered-proof ID   update proof id 0..4 (default: the size's)\n"
            "  --seed N                comm_c, sector-key and data leaves (default 1)\n"
            "  --vproof-dir DIR        also write each partition's bincode bytes as\n"
            "                          DIR/partition-<k>.vproof\n"
            "  --no-verify             skip the vanilla self-check before writing\n");
}

/* DIR/<name>-<k>.vproof with the bytes. */
static cz_status write_vproof(const char *dir, const char *name, uint64_t k, const uint8_t *b,
                              size_t len, cz_error *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%llu.vproof", dir, name, (unsigned long long)k);
    FILE *f = fopen(path, "wb");
    cz_status st = CZ_OK;
    if (!f || fwrite(b, 1, len, f) != len)
        st = cz_error_set(err, CZ_E_IO, "%s: cannot write", path);
    if (f && fclose(f) != 0 && st == CZ_OK)
        st = cz_error_set(err, CZ_E_IO, "%s: cannot write", path);
    return st;
}

static int hex32(uint8_t out[32], const char *text) {
    if (strlen(text) != 64) return 0;
    for (int i = 0; i < 64; i++) {
        char c = text[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0) return 0;
        out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | v : v << 4);
    }
    return 1;
}

/* The options gen post and gen snap share. */
typedef struct {
    const char *size_text, *out_path, *vproof_dir;
    uint64_t proof_id, seed;
    int verify;
} gen_common;

/* Consumes argv[*i] (and its value) when it is a shared option: returns 1,
 * *ok = 0 for a bad number. */
static int gen_common_option(gen_common *g, int argc, char **argv, int *i, int *ok) {
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--no-verify")) return g->verify = 0, 1;
    if (!v) return 0;
    if (!strcmp(a, "--sector-size"))
        g->size_text = v;
    else if (!strcmp(a, "--out"))
        g->out_path = v;
    else if (!strcmp(a, "--vproof-dir"))
        g->vproof_dir = v;
    else if (!strcmp(a, "--registered-proof"))
        *ok = cz_cli_parse_u64(v, &g->proof_id);
    else if (!strcmp(a, "--seed"))
        *ok = cz_cli_parse_u64(v, &g->seed);
    else
        return 0;
    ++*i;
    return 1;
}

static int gen_post(int argc, char **argv) {
    gen_common g = {NULL, NULL, NULL, UINT64_MAX, 1, 1};
    const char *kind_text = NULL;
    uint64_t miner = 1000, first = 1, sectors = 1, partition = 0;
    cz_post_gen_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (gen_common_option(&g, argc, argv, &i, &ok))
            ;
        else if (!strcmp(a, "--kind") && v)
            kind_text = v, i++;
        else if (!strcmp(a, "--miner-id") && v)
            ok = cz_cli_parse_u64(v, &miner), i++;
        else if (!strcmp(a, "--first-sector") && v)
            ok = cz_cli_parse_u64(v, &first), i++;
        else if (!strcmp(a, "--sectors") && v)
            ok = cz_cli_parse_u64(v, &sectors) && sectors >= 1 && sectors <= UINT32_MAX, i++;
        else if (!strcmp(a, "--partition") && v)
            ok = cz_cli_parse_u64(v, &partition) && partition <= UINT32_MAX, i++;
        else if (!strcmp(a, "--randomness") && v) {
            if (!hex32(o.randomness, v)) {
                fprintf(stderr, "cuzk gen post: --randomness: expected 64 hex digits, got '%s'\n",
                        v);
                return 2;
            }
            o.have_randomness = 1, i++;
        } else if (cz_cli_is_help(a)) {
            gen_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk gen post: unknown or incomplete option '%s'\n", a);
            gen_usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "cuzk gen post: %s: expected a positive integer in range, got '%s'\n",
                    a, v);
            return 2;
        }
    }
    if (!g.size_text || !g.out_path || !kind_text) {
        fprintf(stderr, "cuzk gen post: %s is required\n",
                !kind_text     ? "--kind winning|window"
                : !g.size_text ? "--sector-size SIZE"
                               : "--out FILE");
        gen_usage(stderr);
        return 2;
    }
    cz_post_kind kind;
    if (!strcmp(kind_text, "winning") || !strcmp(kind_text, "winning-post"))
        kind = CZ_POST_WINNING;
    else if (!strcmp(kind_text, "window") || !strcmp(kind_text, "window-post"))
        kind = CZ_POST_WINDOW;
    else {
        fprintf(stderr, "cuzk gen post: --kind '%s': expected winning or window\n", kind_text);
        return 2;
    }
    cz_error err = {0};
    uint64_t sector_size;
    if (cz_fc_sector_size_parse(&sector_size, g.size_text, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen post: %s\n", err.message);
        return 2;
    }
    cz_post_proof_info info;
    if (g.proof_id == UINT64_MAX) {
        if (cz_post_proof_lookup_by_size(&info, kind, sector_size, &err) != CZ_OK) {
            fprintf(stderr, "cuzk gen post: %s\n", err.message);
            return 2;
        }
    } else if (cz_post_proof_lookup(&info, g.proof_id, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen post: %s\n", err.message);
        return 2;
    } else if (info.kind != kind || info.sector_size != sector_size) {
        fprintf(stderr,
                "cuzk gen post: registered proof %s is a %s PoSt of %llu-byte sectors, not %s of "
                "%llu\n",
                info.name, cz_post_kind_name(info.kind), (unsigned long long)info.sector_size,
                cz_post_kind_name(kind), (unsigned long long)sector_size);
        return 2;
    }
    cz_cli_out out;
    if (cz_cli_out_open(&out, g.out_path, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen post: --out: %s\n", err.message);
        return 1;
    }
    o.registered_proof = info.id;
    o.sectors = (uint32_t)sectors;
    o.seed = g.seed;
    o.miner_id = miner;
    o.first_sector = first;
    o.partition = (uint32_t)partition;
    cz_post_sector_proof *proofs = NULL;
    uint32_t n = 0, win = 0;
    uint8_t r[32];
    uint64_t t0 = cz_now_ns();
    cz_status st = cz_post_gen(&proofs, &n, &win, r, &o, &err);
    double gen_s = (double)(cz_now_ns() - t0) / 1e9;
    cz_post_config cfg;
    if (st == CZ_OK) st = cz_post_config_from_sector(&cfg, info.kind, info.sector_size, &err);
    if (st == CZ_OK && g.verify) {
        uint64_t t1 = cz_now_ns();
        st = cz_post_vanilla_verify(&cfg, info.api_version, r, o.partition, proofs, n, &err);
        if (st == CZ_OK)
            fprintf(stderr, "gen: vanilla verification passed (%.2f s)\n",
                    (double)(cz_now_ns() - t1) / 1e9);
        else
            cz_error_prefix(&err, "self-check failed");
    }
    cz_post_request req;
    memset(&req, 0, sizeof req);
    req.registered_proof = info.id;
    req.kind = info.kind;
    req.sector_size = info.sector_size;
    req.miner_id = miner;
    req.partition_index = o.partition;
    memcpy(req.randomness, r, 32);
    if (st == CZ_OK) {
        req.proofs = calloc(n, sizeof *req.proofs);
        req.proof_lens = calloc(n, sizeof *req.proof_lens);
        if (!req.proofs || !req.proof_lens) st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n && st == CZ_OK; i++) {
        st = cz_post_encode(&req.proofs[i], &req.proof_lens[i], &cfg, &proofs[i], &err);
        if (st == CZ_OK) req.n_proofs = i + 1;
        if (st == CZ_OK && g.vproof_dir)
            st = write_vproof(g.vproof_dir, "sector", proofs[i].sector_id, req.proofs[i],
                              req.proof_lens[i], &err);
    }
    for (uint32_t i = 0; i < n; i++) cz_post_sector_proof_free(&proofs[i]);
    free(proofs);
    if (st == CZ_OK) st = cz_post_request_write_json(out.file, &req, &err);
    long size = st == CZ_OK ? ftell(out.file) : 0;
    size_t vbytes = n ? req.proof_lens[0] : 0;
    cz_post_request_free(&req);
    if (st == CZ_OK)
        st = cz_cli_out_commit(&out, &err);
    else
        cz_cli_out_abort(&out);
    if (st != CZ_OK) {
        /* the generator's messages start with "gen post:" */
        fprintf(stderr, "%s%s\n",
                strncmp(err.message, "gen post:", 9) ? "cuzk gen post: " : "cuzk ", err.message);
        return 1;
    }
    char rhex[65];
    for (int i = 0; i < 32; i++) snprintf(rhex + 2 * i, 3, "%02x", r[i]);
    fprintf(stderr, "gen: %s, %u vanilla proof%s of %zu bytes", info.name, n, n == 1 ? "" : "s",
            vbytes);
    if (info.kind == CZ_POST_WINNING)
        fprintf(stderr, " (sector %llu, the challenged one of %u)",
                (unsigned long long)(first + win), o.sectors);
    else
        fprintf(stderr, " (sectors %llu..%llu, partition %u)", (unsigned long long)first,
                (unsigned long long)(first + n - 1), o.partition);
    fprintf(stderr, ", randomness %s\n", rhex);
    fprintf(stderr, "gen: wrote %s (%ld bytes); generation %.2f s, peak RSS %.1f MiB\n", g.out_path,
            size, gen_s, (double)cz_peak_rss_bytes() / (1024.0 * 1024.0));
    return 0;
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
    if (cz_cli_out_commit(&out, &err) != CZ_OK) return cz_cli_fail("gen c1", &err);
    fprintf(stderr, "gen: wrote %s (%s, %ld bytes, %.2f s); generation %.2f s, peak RSS %.1f MiB\n",
            out_path, raw ? "raw C1 JSON" : "Curio envelope", size,
            (double)(cz_now_ns() - t2) / 1e9, gen_s,
            (double)cz_peak_rss_bytes() / (1024.0 * 1024.0));
    return 0;
}

static int gen_snap(int argc, char **argv) {
    gen_common g = {NULL, NULL, NULL, UINT64_MAX, 1, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (gen_common_option(&g, argc, argv, &i, &ok))
            ;
        else if (cz_cli_is_help(a)) {
            gen_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk gen snap: unknown or incomplete option '%s'\n", a);
            gen_usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "cuzk gen snap: %s: expected a positive integer in range, got '%s'\n",
                    a, v);
            return 2;
        }
    }
    if (!g.size_text || !g.out_path) {
        fprintf(stderr, "cuzk gen snap: %s is required\n",
                !g.size_text ? "--sector-size SIZE" : "--out FILE");
        gen_usage(stderr);
        return 2;
    }
    cz_error err = {0};
    uint64_t sector_size, id_size;
    uint32_t id;
    if (cz_fc_sector_size_parse(&sector_size, g.size_text, &err) != CZ_OK ||
        cz_snap_proof_id(&id, sector_size, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen snap: %s\n", err.message);
        return 2;
    }
    if (g.proof_id != UINT64_MAX) {
        if (cz_snap_proof_sector_size(&id_size, g.proof_id, &err) != CZ_OK) {
            fprintf(stderr, "cuzk gen snap: %s\n", err.message);
            return 2;
        }
        if (id_size != sector_size) {
            fprintf(stderr,
                    "cuzk gen snap: registered update proof %s is for %llu-byte sectors, not "
                    "%llu\n",
                    cz_snap_proof_name((uint32_t)g.proof_id), (unsigned long long)id_size,
                    (unsigned long long)sector_size);
            return 2;
        }
    }
    cz_snap_config cfg;
    if (cz_snap_config_from_sector(&cfg, sector_size, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen snap: %s\n", err.message);
        return 2;
    }
    cz_cli_out out;
    if (cz_cli_out_open(&out, g.out_path, &err) != CZ_OK) {
        fprintf(stderr, "cuzk gen snap: --out: %s\n", err.message);
        return 1;
    }
    cz_snap_gen_opts o;
    cz_snap_gen_opts_from_seed(&o, g.seed);
    cz_snap_partition_proof *proofs = calloc(cfg.partitions, sizeof *proofs);
    cz_snap_comms comms;
    uint64_t t0 = cz_now_ns();
    cz_status st = proofs ? cz_snap_gen(proofs, &comms, &cfg, &o, &err)
                          : cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    double gen_s = (double)(cz_now_ns() - t0) / 1e9;
    if (st == CZ_OK && g.verify) {
        uint64_t t1 = cz_now_ns();
        for (uint32_t k = 0; k < cfg.partitions && st == CZ_OK; k++)
            if ((st = cz_snap_vanilla_verify(&cfg, &comms, k, &proofs[k], &err)) != CZ_OK)
                cz_error_prefix(&err, "self-check failed: partition %u", k);
        if (st == CZ_OK)
            fprintf(stderr, "gen: vanilla verification passed (%.2f s)\n",
                    (double)(cz_now_ns() - t1) / 1e9);
    }
    cz_snap_request req;
    memset(&req, 0, sizeof req);
    req.registered_proof = id;
    req.sector_size = sector_size;
    cz_fr_to_bytes_le(req.comm_r_old, &comms.comm_r_old);
    cz_fr_to_bytes_le(req.comm_d_new, &comms.comm_d_new);
    cz_fr_to_bytes_le(req.comm_r_new, &comms.comm_r_new);
    if (st == CZ_OK) {
        req.proofs = calloc(cfg.partitions, sizeof *req.proofs);
        req.proof_lens = calloc(cfg.partitions, sizeof *req.proof_lens);
        if (!req.proofs || !req.proof_lens) st = cz_error_set(&err, CZ_E_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < cfg.partitions && st == CZ_OK; k++) {
        st = cz_snap_encode(&req.proofs[k], &req.proof_lens[k], &cfg, &proofs[k], &err);
        if (st == CZ_OK) req.n_proofs = k + 1;
        if (st == CZ_OK && g.vproof_dir)
            st = write_vproof(g.vproof_dir, "partition", k, req.proofs[k], req.proof_lens[k], &err);
    }
    if (proofs) cz_snap_proofs_free(proofs, cfg.partitions);
    if (st == CZ_OK) st = cz_snap_request_write_json(out.file, &req, &err);
    long size = st == CZ_OK ? ftell(out.file) : 0;
    cz_snap_request_free(&req);
    if (st == CZ_OK)
        st = cz_cli_out_commit(&out, &err);
    else
        cz_cli_out_abort(&out);
    if (st != CZ_OK) return cz_cli_fail("gen snap", &err);
    fprintf(stderr,
            "gen: %s update, %u partition proof%s of %zu bytes; wrote %s (%ld bytes); "
            "generation %.2f s, peak RSS %.1f MiB\n",
            cz_snap_proof_name(id), cfg.partitions, cfg.partitions == 1 ? "" : "s",
            cz_snap_encoded_size(&cfg), g.out_path, size, gen_s,
            (double)cz_peak_rss_bytes() / (1024.0 * 1024.0));
    return 0;
}

int cz_cmd_gen(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "c1")) return gen_c1(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "post")) return gen_post(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "snap")) return gen_snap(argc - 1, argv + 1);
    if (argc >= 2 && cz_cli_is_help(argv[1])) {
        gen_usage(stdout);
        return 0;
    }
    if (argc < 2)
        fprintf(stderr, "cuzk gen: what to generate? (c1, post or snap)\n");
    else
        fprintf(stderr,
                "cuzk gen: unknown kind '%s' (c1: a synthetic C1 output; post: synthetic PoSt "
                "vanilla proofs; snap: a synthetic SnapDeals update)\n",
                argv[1]);
    gen_usage(stderr);
    return 2;
}
