/* Fallback PoSt registry, shapes, challenges and public inputs; see post.h. */
#include "filecoin/post/post.h"

#include <stdio.h>
#include <string.h>

#include "filecoin/common/derive.h"

const char *cz_post_kind_name(cz_post_kind kind) {
    return kind == CZ_POST_WINNING ? "winning" : kind == CZ_POST_WINDOW ? "window" : "unknown";
}

/* WindowPoSt sectors per partition (window_post_sector_count), by size. */
static const uint32_t window_sectors[CZ_FC_SECTOR_SIZE_COUNT] = {2, 2, 2, 2349, 2300};

static const char *const go_names[CZ_POST_PROOF_ID_COUNT] = {
    "StackedDrgWinning2KiBV1",    "StackedDrgWinning8MiBV1",   "StackedDrgWinning512MiBV1",
    "StackedDrgWinning32GiBV1",   "StackedDrgWinning64GiBV1",  "StackedDrgWindow2KiBV1",
    "StackedDrgWindow8MiBV1",     "StackedDrgWindow512MiBV1",  "StackedDrgWindow32GiBV1",
    "StackedDrgWindow64GiBV1",    "StackedDrgWindow2KiBV1_1",  "StackedDrgWindow8MiBV1_1",
    "StackedDrgWindow512MiBV1_1", "StackedDrgWindow32GiBV1_1", "StackedDrgWindow64GiBV1_1"};
static const char *const rust_names[CZ_POST_PROOF_ID_COUNT] = {
    "StackedDrgWinning2KiBV1",    "StackedDrgWinning8MiBV1",   "StackedDrgWinning512MiBV1",
    "StackedDrgWinning32GiBV1",   "StackedDrgWinning64GiBV1",  "StackedDrgWindow2KiBV1",
    "StackedDrgWindow8MiBV1",     "StackedDrgWindow512MiBV1",  "StackedDrgWindow32GiBV1",
    "StackedDrgWindow64GiBV1",    "StackedDrgWindow2KiBV1_2",  "StackedDrgWindow8MiBV1_2",
    "StackedDrgWindow512MiBV1_2", "StackedDrgWindow32GiBV1_2", "StackedDrgWindow64GiBV1_2"};

static int size_index(uint64_t sector_size) {
    for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++)
        if (cz_fc_sector_sizes[i] == sector_size) return i;
    return -1;
}

cz_status cz_post_proof_lookup(cz_post_proof_info *out, uint64_t id, cz_error *err) {
    if (id >= CZ_POST_PROOF_ID_COUNT)
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "registered PoSt proof %llu is unknown (0-4 WinningPoSt V1, 5-9 "
                            "WindowPoSt V1, 10-14 WindowPoSt V1_1)",
                            (unsigned long long)id);
    memset(out, 0, sizeof *out);
    out->id = (uint32_t)id;
    out->name = go_names[id];
    out->rust_name = rust_names[id];
    out->kind = id < 5 ? CZ_POST_WINNING : CZ_POST_WINDOW;
    out->api_version = id < 10 ? CZ_FC_API_V1_0_0 : CZ_FC_API_V1_2_0;
    out->sector_size = cz_fc_sector_sizes[id % 5];
    return CZ_OK;
}

cz_status cz_post_proof_lookup_by_size(cz_post_proof_info *out, cz_post_kind kind,
                                       uint64_t sector_size, cz_error *err) {
    int i = size_index(sector_size);
    if (i < 0) {
        cz_fc_sector_info unused;
        return cz_fc_sector_lookup(&unused, sector_size, err);
    }
    return cz_post_proof_lookup(out, (kind == CZ_POST_WINNING ? 0u : 10u) + (unsigned)i, err);
}

cz_status cz_post_config_make(cz_post_config *out, cz_post_kind kind, uint64_t nodes,
                              unsigned base_arity, unsigned sub_arity, unsigned top_arity,
                              uint32_t sector_count, uint32_t challenge_count, cz_error *err) {
    if (kind != CZ_POST_WINNING && kind != CZ_POST_WINDOW)
        return cz_error_set(err, CZ_E_INVALID_ARG, "post config: unknown kind %d", (int)kind);
    if (sector_count < 1 || challenge_count < 1 || sector_count > 100000 || challenge_count > 1000)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "post config: %u slots x %u challenges (1..100000 x 1..1000)",
                            sector_count, challenge_count);
    memset(out, 0, sizeof *out);
    if (nodes < 2 || cz_por_shape_make(&out->tree, CZ_POR_POSEIDON, base_arity, sub_arity,
                                       top_arity, nodes) != CZ_OK)
        return cz_error_set(err, CZ_E_INVALID_ARG, "post config: no tree %u-%u-%u over %llu leaves",
                            base_arity, sub_arity, top_arity, (unsigned long long)nodes);
    out->kind = kind;
    out->nodes = nodes;
    out->sector_count = sector_count;
    out->challenge_count = challenge_count;
    uint64_t vc =
        kind == CZ_POST_WINNING ? (uint64_t)sector_count * challenge_count : challenge_count;
    if (vc > 100000)
        return cz_error_set(err, CZ_E_INVALID_ARG, "post config: %llu vanilla challenges",
                            (unsigned long long)vc);
    out->vanilla_challenges = (uint32_t)vc;
    uint64_t inputs = 1 + (uint64_t)sector_count * (1 + challenge_count);
    if (inputs >= (1u << 30))
        return cz_error_set(err, CZ_E_INVALID_ARG, "post config: %llu inputs",
                            (unsigned long long)inputs);
    return CZ_OK;
}

cz_status cz_post_config_from_sector(cz_post_config *out, cz_post_kind kind, uint64_t sector_size,
                                     cz_error *err) {
    cz_fc_sector_info s;
    cz_status st = cz_fc_sector_lookup(&s, sector_size, err);
    if (st != CZ_OK) return st;
    int i = size_index(sector_size);
    /* winning_post_setup_params: 66 sectors of 1 challenge; window: 10
     * challenges per sector */
    uint32_t sectors = kind == CZ_POST_WINNING ? CZ_POST_WINNING_CHALLENGES : window_sectors[i];
    uint32_t challenges = kind == CZ_POST_WINNING ? 1 : CZ_POST_WINDOW_CHALLENGES;
    return cz_post_config_make(out, kind, s.nodes, s.tree_base_arity, s.tree_sub_arity,
                               s.tree_top_arity, sectors, challenges, err);
}

uint32_t cz_post_num_inputs(const cz_post_config *cfg) {
    return 1 + cfg->sector_count * (1 + cfg->challenge_count);
}

cz_status cz_post_param_identifier(char *out, size_t cap, const cz_post_config *cfg,
                                   cz_error *err) {
    int n =
        snprintf(out, cap,
                 "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, "
                 "sector_count: %u}",
                 (unsigned long long)(cfg->nodes * 32), cfg->challenge_count, cfg->sector_count);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "post param identifier: buffer too small");
    return CZ_OK;
}

cz_status cz_post_param_file_stem(char *out, size_t cap, const cz_post_config *cfg, cz_error *err) {
    char ident[256];
    cz_status st = cz_post_param_identifier(ident, sizeof ident, cfg, err);
    if (st != CZ_OK) return st;
    uint8_t digest[32];
    cz_fc_sha256(digest, ident, strlen(ident));
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    int n =
        snprintf(out, cap, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-%u-%u-%u-%s",
                 cfg->tree.base_arity, cfg->tree.sub_arity, cfg->tree.top_arity, hex);
    if (n < 0 || (size_t)n >= cap)
        return cz_error_set(err, CZ_E_INVALID_ARG, "post param file stem: buffer too small");
    return CZ_OK;
}

/* ------------------------------------------------------------ challenges */

uint64_t cz_post_challenge_index(cz_fc_api_version api, uint64_t sector_index,
                                 uint32_t challenge_count, uint32_t n) {
    return api == CZ_FC_API_V1_2_0 ? n : sector_index * challenge_count + n;
}

static uint64_t le64(const uint8_t *b) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static void put_le64(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

uint64_t cz_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                uint64_t challenge_index, uint64_t nodes) {
    uint8_t msg[48], digest[32];
    memcpy(msg, randomness, 32);
    put_le64(msg + 32, sector_id);
    put_le64(msg + 40, challenge_index);
    cz_fc_sha256(digest, msg, sizeof msg);
    return le64(digest) % nodes;
}

uint64_t cz_post_sector_challenge(const uint8_t prover_id[32], const uint8_t randomness[32],
                                  uint64_t n, uint64_t sector_set_len) {
    uint8_t msg[72], digest[32];
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, randomness, 32);
    put_le64(msg + 64, n);
    cz_fc_sha256(digest, msg, sizeof msg);
    return le64(digest) % sector_set_len;
}

void cz_post_sector_challenges(uint64_t *out, const cz_post_config *cfg, cz_fc_api_version api,
                               const uint8_t randomness[32], uint32_t partition, uint32_t position,
                               uint64_t sector_id) {
    if (cfg->kind == CZ_POST_WINNING) {
        /* generate_fallback_sector_challenges: sector index 0, 66 challenges */
        for (uint32_t n = 0; n < cfg->vanilla_challenges; n++)
            out[n] = cz_post_leaf_challenge(
                randomness, sector_id, cz_post_challenge_index(api, 0, cfg->vanilla_challenges, n),
                cfg->nodes);
        return;
    }
    uint64_t sector_index = (uint64_t)partition * cfg->sector_count + position;
    for (uint32_t n = 0; n < cfg->challenge_count; n++)
        out[n] = cz_post_leaf_challenge(
            randomness, sector_id,
            cz_post_challenge_index(api, sector_index, cfg->challenge_count, n), cfg->nodes);
}

cz_status cz_post_check_randomness(const uint8_t randomness[32], cz_error *err) {
    cz_fr r;
    if (!cz_fr_from_bytes_le(&r, randomness))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "randomness is not a canonical field element (byte 31 = 0x%02x; "
                            "Filecoin masks it with 0x3f)",
                            randomness[31]);
    return CZ_OK;
}

/* ------------------------------------------------------- slots, inputs */

void cz_post_slot_source(const cz_post_config *cfg, uint32_t n, uint32_t slot, uint32_t *proof,
                         uint32_t *first) {
    if (cfg->kind == CZ_POST_WINNING) {
        *proof = 0;
        *first = slot * cfg->challenge_count;
    } else {
        *proof = slot < n ? slot : n - 1;
        *first = 0;
    }
}

cz_status cz_post_public_inputs(cz_fr *out, const cz_post_config *cfg, cz_fc_api_version api,
                                const uint8_t randomness[32], uint32_t partition,
                                const uint64_t *sector_ids, const cz_fr *comm_rs, uint32_t n,
                                cz_error *err) {
    cz_status st = cz_post_check_randomness(randomness, err);
    if (st != CZ_OK) return st;
    uint32_t want_max = cfg->kind == CZ_POST_WINNING ? 1 : cfg->sector_count;
    if (n < 1 || n > want_max)
        return cz_error_set(
            err, CZ_E_INVALID_ARG, "post public inputs: %u sectors, %s PoSt takes %s%u", n,
            cz_post_kind_name(cfg->kind), cfg->kind == CZ_POST_WINNING ? "" : "1 to ", want_max);
    const uint32_t per_slot = 1 + cfg->challenge_count;
    for (uint32_t i = 0; i < cfg->sector_count; i++) {
        cz_fr *o = out + (size_t)i * per_slot;
        /* Winning: the verifier's 66 copies of the sector, slot i = sector
         * index i; Window: past the n sectors the last slot repeats */
        uint32_t s = cfg->kind == CZ_POST_WINNING ? 0 : i;
        if (s >= n) {
            memcpy(o, out + (size_t)(n - 1) * per_slot, per_slot * sizeof *o);
            continue;
        }
        o[0] = comm_rs[s];
        uint64_t sector_index =
            (cfg->kind == CZ_POST_WINNING ? 0 : (uint64_t)partition * cfg->sector_count) + i;
        for (uint32_t c = 0; c < cfg->challenge_count; c++)
            cz_fr_from_u64(&o[1 + c],
                           cz_post_leaf_challenge(
                               randomness, sector_ids[s],
                               cz_post_challenge_index(api, sector_index, cfg->challenge_count, c),
                               cfg->nodes));
    }
    return CZ_OK;
}
