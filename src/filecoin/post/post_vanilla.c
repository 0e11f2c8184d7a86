/* Fallback PoSt vanilla proofs: bincode decoding and encoding, native
 * verification and the sparse-tree generator; see post.h.
 *
 * Layout (rust-fil-proofs filecoin-proofs types/mod.rs, storage-proofs-post
 * fallback/vanilla.rs, storage-proofs-core merkle/proof.rs):
 *   FallbackPoStSectorProof := sector_id u64 | comm_r [32] | Proof
 *   Proof        := u64 n (1) | SectorProof x n
 *   SectorProof  := u64 n_incl | MerkleProof x n_incl | comm_c [32] | comm_r_last [32]
 * (MerkleProof: common/merkle.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/common/bincode.h"
#include "filecoin/common/derive.h"
#include "filecoin/common/merkle.h"
#include "filecoin/post/post.h"
#include "hash/poseidon.h"
#include "util/check.h"
#include "util/parallel.h"

/* --------------------------------------------------------------- memory */

void cz_post_sector_proof_free(cz_post_sector_proof *p) {
    if (!p) return;
    free(p->inclusions);
    free(p->sibling_pool);
    memset(p, 0, sizeof *p);
}

cz_status cz_post_sector_proof_alloc(cz_post_sector_proof *p, const cz_post_config *cfg,
                                     cz_error *err) {
    memset(p, 0, sizeof *p);
    size_t per = cz_por_siblings(&cfg->tree), n = cfg->vanilla_challenges;
    p->inclusions = calloc(n ? n : 1, sizeof *p->inclusions);
    p->sibling_pool = calloc(n * per > 0 ? n * per : 1, sizeof *p->sibling_pool);
    if (!p->inclusions || !p->sibling_pool) {
        cz_post_sector_proof_free(p);
        return cz_error_set(err, CZ_E_NOMEM, "post proof: out of memory");
    }
    p->n_inclusions = (uint32_t)n;
    for (size_t i = 0; i < n; i++) p->inclusions[i].siblings = p->sibling_pool + i * per;
    return CZ_OK;
}

/* ------------------------------------------------------------- decoding */

cz_status cz_post_decode(cz_post_sector_proof *out, const cz_post_config *cfg, const uint8_t *data,
                         size_t len, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_post_sector_proof p;
    cz_status st = cz_post_sector_proof_alloc(&p, cfg, err);
    if (st != CZ_OK) return st;
    cz_bincode_reader r;
    cz_bincode_reader_init(&r, data, len, err);
    uint64_t n_sectors, n_incl;
    int ok = cz_bincode_u64(&r, &p.sector_id, "sector_id") &&
             cz_bincode_fr(&r, &p.comm_r, "comm_r") &&
             cz_bincode_len(&r, &n_sectors, 1, 0, "vanilla_proof.sectors (length)") &&
             cz_bincode_len(&r, &n_incl, cfg->vanilla_challenges, 0,
                            "vanilla_proof.sectors[0].inclusion_proofs (length)");
    for (uint32_t i = 0; ok && i < cfg->vanilla_challenges; i++) {
        char where[96];
        snprintf(where, sizeof where, "vanilla_proof.sectors[0].inclusion_proofs[%u]", i);
        ok = cz_fc_merkle_decode(&r, &p.inclusions[i], &cfg->tree, where);
    }
    ok = ok && cz_bincode_fr(&r, &p.comm_c, "vanilla_proof.sectors[0].comm_c") &&
         cz_bincode_fr(&r, &p.comm_r_last, "vanilla_proof.sectors[0].comm_r_last") &&
         cz_bincode_end(&r, "FallbackPoStSectorProof");
    if (!ok) {
        cz_post_sector_proof_free(&p);
        return r.status;
    }
    *out = p;
    return CZ_OK;
}

/* ------------------------------------------------------------- encoding */

size_t cz_post_encoded_size(const cz_post_config *cfg) {
    return 8 + 32 + 8 + 8 + (size_t)cfg->vanilla_challenges * cz_fc_merkle_size(&cfg->tree) + 64;
}

cz_status cz_post_encode(uint8_t **out, size_t *len, const cz_post_config *cfg,
                         const cz_post_sector_proof *p, cz_error *err) {
    if (p->n_inclusions != cfg->vanilla_challenges)
        return cz_error_set(err, CZ_E_INVALID_ARG, "post encode: %u inclusion proofs, not %u",
                            p->n_inclusions, cfg->vanilla_challenges);
    size_t size = cz_post_encoded_size(cfg);
    cz_bincode_writer w = {malloc(size), size, 0};
    if (!w.data) return cz_error_set(err, CZ_E_NOMEM, "post encode: out of memory");
    cz_bincode_put_u64(&w, p->sector_id);
    cz_bincode_put_fr(&w, &p->comm_r);
    cz_bincode_put_u64(&w, 1);
    cz_bincode_put_u64(&w, p->n_inclusions);
    for (uint32_t i = 0; i < p->n_inclusions; i++)
        cz_fc_merkle_encode(&w, &p->inclusions[i], &cfg->tree);
    cz_bincode_put_fr(&w, &p->comm_c);
    cz_bincode_put_fr(&w, &p->comm_r_last);
    if (w.pos != size) {
        free(w.data);
        return CZ_BROKEN(err, "post encode: wrote %zu bytes, expected %zu", w.pos, size);
    }
    *out = w.data;
    *len = size;
    return CZ_OK;
}

/* ---------------------------------------------------------- verification */

static void fr_hex(char out[65], const cz_fr *v) {
    uint8_t b[32];
    cz_fr_to_bytes_le(b, v);
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Inclusion proof i of p against challenge ch[i]. */
static cz_status check_inclusion(const cz_post_config *cfg, const cz_post_sector_proof *p,
                                 const uint64_t *ch, uint32_t i, cz_error *err) {
    const cz_fc_merkle_proof *inc = &p->inclusions[i];
    cz_fr root;
    cz_status st;
    if (!cz_fr_equal(&inc->root, &p->comm_r_last))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "inclusion_proofs[%u]: root differs from comm_r_last", i);
    if (inc->index != ch[i])
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "inclusion_proofs[%u] proves leaf %llu, the challenge is leaf %llu", i,
                            (unsigned long long)inc->index, (unsigned long long)ch[i]);
    if ((st = cz_fc_merkle_root(&root, &cfg->tree, inc)) != CZ_OK)
        return cz_error_set(err, st, "inclusion_proofs[%u]: Poseidon failed", i);
    if (!cz_fr_equal(&root, &inc->root))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "inclusion_proofs[%u]: the path of leaf %llu does not hash to the root",
                            i, (unsigned long long)inc->index);
    return CZ_OK;
}

typedef struct {
    const cz_post_config *cfg;
    const cz_post_sector_proof *p;
    const uint64_t *ch;
    cz_status *status;
} inclusions_job;

static void inclusions_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    inclusions_job *j = ctx;
    for (size_t i = begin; i < end; i++)
        j->status[i] = check_inclusion(j->cfg, j->p, j->ch, (uint32_t)i, NULL);
}

/* One sector's proof; its inclusion proofs on every core when spread (a
 * WinningPoSt's one sector: 66 paths of 11 Poseidon hashes at 32 GiB, 21 ms
 * on one core, on the path of a proof due within seconds), the lowest
 * failing one reported. */
static cz_status verify_one(const cz_post_config *cfg, cz_fc_api_version api,
                            const uint8_t randomness[32], uint32_t partition, uint32_t position,
                            const cz_post_sector_proof *p, int spread, cz_error *err) {
    if (p->n_inclusions != cfg->vanilla_challenges)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%u inclusion proofs, %s PoSt needs %u",
                            p->n_inclusions, cz_post_kind_name(cfg->kind), cfg->vanilla_challenges);
    cz_fr pre[2] = {p->comm_c, p->comm_r_last}, h;
    cz_status st = cz_poseidon_hash(&h, pre, 2);
    if (st != CZ_OK) return cz_error_set(err, st, "Poseidon failed");
    if (!cz_fr_equal(&h, &p->comm_r)) {
        char a[65], b[65];
        fr_hex(a, &p->comm_r);
        fr_hex(b, &h);
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "comm_r %s is not Poseidon2(comm_c, comm_r_last) = %s", a, b);
    }
    const size_t nc = cfg->vanilla_challenges ? cfg->vanilla_challenges : 1;
    uint64_t *ch = malloc(sizeof *ch * nc);
    cz_status *status = spread ? calloc(nc, sizeof *status) : NULL;
    if (!ch || (spread && !status)) {
        free(ch), free(status);
        return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    }
    cz_post_sector_challenges(ch, cfg, api, randomness, partition, position, p->sector_id);
    uint32_t first = 0; /* the inclusion proofs before it passed */
    if (spread) {
        inclusions_job job = {cfg, p, ch, status};
        cz_parallel_for(p->n_inclusions, 1, inclusions_range, &job);
        while (first < p->n_inclusions && status[first] == CZ_OK) first++;
    }
    /* in turn from the first that failed (again, for its message) */
    st = CZ_OK;
    for (uint32_t i = first; i < p->n_inclusions && st == CZ_OK; i++)
        st = check_inclusion(cfg, p, ch, i, err);
    free(ch), free(status);
    return st;
}

typedef struct {
    const cz_post_config *cfg;
    cz_fc_api_version api;
    const uint8_t *randomness;
    uint32_t partition;
    const cz_post_sector_proof *proofs;
    cz_status *status;
    cz_error *errors;
} verify_job;

static void verify_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    verify_job *j = ctx;
    for (size_t i = begin; i < end; i++)
        j->status[i] = verify_one(j->cfg, j->api, j->randomness, j->partition, (uint32_t)i,
                                  &j->proofs[i], 0, &j->errors[i]);
}

cz_status cz_post_vanilla_verify(const cz_post_config *cfg, cz_fc_api_version api,
                                 const uint8_t randomness[32], uint32_t partition,
                                 const cz_post_sector_proof *proofs, uint32_t n, cz_error *err) {
    cz_status st = cz_post_check_randomness(randomness, err);
    if (st != CZ_OK) return st;
    if (cfg->kind == CZ_POST_WINNING && n != 1)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "winning PoSt takes exactly 1 vanilla proof (the challenged sector), "
                            "got %u",
                            n);
    if (cfg->kind == CZ_POST_WINDOW && (n < 1 || n > cfg->sector_count))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "window PoSt takes 1 to %u vanilla proofs per partition, got %u",
                            cfg->sector_count, n);
    for (uint32_t i = 1; i < n; i++)
        if (proofs[i].sector_id <= proofs[i - 1].sector_id)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "vanilla_proofs[%u]: sector %llu after sector %llu: a partition's "
                                "sectors must be distinct and sorted by number",
                                i, (unsigned long long)proofs[i].sector_id,
                                (unsigned long long)proofs[i - 1].sector_id);
    /* the sectors on all cores (2349 x 10 paths of 10 Poseidon hashes at
     * 32 GiB); the lowest failing proof is reported */
    verify_job job = {cfg,
                      api,
                      randomness,
                      cfg->kind == CZ_POST_WINNING ? 0 : partition,
                      proofs,
                      calloc(n, sizeof(cz_status)),
                      calloc(n, sizeof(cz_error))};
    if (!job.status || !job.errors) {
        free(job.status), free(job.errors);
        return cz_error_set(err, CZ_E_NOMEM, "post verify: out of memory");
    }
    if (n < cz_thread_count()) /* fewer sectors than cores: each one's paths spread */
        for (uint32_t i = 0; i < n && (!i || job.status[i - 1] == CZ_OK); i++)
            job.status[i] =
                verify_one(cfg, api, randomness, job.partition, i, &proofs[i], 1, &job.errors[i]);
    else
        cz_parallel_for(n, 16, verify_range, &job);
    st = CZ_OK;
    for (uint32_t i = 0; i < n && st == CZ_OK; i++)
        if (job.status[i] != CZ_OK) {
            st = job.status[i];
            if (err) *err = job.errors[i];
            cz_error_prefix(err, "vanilla_proofs[%u] (sector %llu)", i,
                            (unsigned long long)proofs[i].sector_id);
        }
    free(job.status), free(job.errors);
    return st;
}

/* ------------------------------------------------------------ generation */

/* A non-default node of a sparse tree level. */
typedef struct {
    uint64_t index;
    cz_fr value;
} sp_node;

typedef struct {
    unsigned levels;
    sp_node *lv[CZ_POR_MAX_BITS + 1];
    size_t n[CZ_POR_MAX_BITS + 1];
    cz_fr def[CZ_POR_MAX_BITS + 1]; /* value of every node of level l not in lv[l] */
} sp_tree;

static void sp_free(sp_tree *t) {
    for (unsigned l = 0; l <= CZ_POR_MAX_BITS; l++) free(t->lv[l]);
}

static cz_fr sp_get(const sp_tree *t, unsigned l, uint64_t index) {
    size_t lo = 0, hi = t->n[l];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->lv[l][mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n[l] && t->lv[l][lo].index == index ? t->lv[l][lo].value : t->def[l];
}

/* Every level above lv[0] (sorted, unique indices) and def[0]. */
static cz_status sp_build(sp_tree *t, const cz_por_shape *s) {
    t->levels = cz_por_levels(s);
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = cz_por_level_arity(s, l);
        cz_fr children[CZ_POR_MAX_ARITY];
        for (unsigned c = 0; c < a; c++) children[c] = t->def[l];
        cz_status st = cz_poseidon_hash(&t->def[l + 1], children, a);
        if (st != CZ_OK) return st;
        t->lv[l + 1] = malloc(sizeof(sp_node) * (t->n[l] ? t->n[l] : 1));
        if (!t->lv[l + 1]) return CZ_E_NOMEM;
        size_t g = 0;
        for (size_t e = 0; e < t->n[l];) {
            uint64_t parent = t->lv[l][e].index / a;
            for (unsigned c = 0; c < a; c++) children[c] = t->def[l];
            for (; e < t->n[l] && t->lv[l][e].index / a == parent; e++)
                children[t->lv[l][e].index % a] = t->lv[l][e].value;
            t->lv[l + 1][g].index = parent;
            if ((st = cz_poseidon_hash(&t->lv[l + 1][g].value, children, a)) != CZ_OK) return st;
            g++;
        }
        t->n[l + 1] = g;
    }
    return CZ_OK;
}

static int cmp_node(const void *a, const void *b) {
    uint64_t x = ((const sp_node *)a)->index, y = ((const sp_node *)b)->index;
    return x < y ? -1 : x > y;
}

/* fr32_mask(SHA256("cuzk gen post " tag || seed || a || b)) as an Fr. */
static void derive_fr(cz_fr *out, const char *tag, uint64_t seed, uint64_t a, uint64_t b) {
    uint8_t msg[96], digest[32];
    size_t n = (size_t)snprintf((char *)msg, 40, "cuzk gen post %s", tag);
    for (int i = 0; i < 8; i++) {
        msg[n + i] = (uint8_t)(seed >> (8 * i));
        msg[n + 8 + i] = (uint8_t)(a >> (8 * i));
        msg[n + 16 + i] = (uint8_t)(b >> (8 * i));
    }
    cz_fc_sha256(digest, msg, n + 24);
    cz_fc_fr32_mask(digest);
    cz_fr_from_bytes_le(out, digest); /* below 2^254 < r */
}

cz_status cz_post_default_root(cz_fr *out, const cz_post_config *cfg, const cz_fr *leaf) {
    cz_fr cur = *leaf, children[CZ_POR_MAX_ARITY];
    unsigned levels = cz_por_levels(&cfg->tree);
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = cz_por_level_arity(&cfg->tree, l);
        for (unsigned c = 0; c < a; c++) children[c] = cur;
        cz_status st = cz_poseidon_hash(&cur, children, a);
        if (st != CZ_OK) return st;
    }
    *out = cur;
    return CZ_OK;
}

/* The proof of one sector: sparse tree R over its challenged leaves. */
static cz_status gen_sector(cz_post_sector_proof *p, const cz_post_config *cfg,
                            cz_fc_api_version api, const uint8_t randomness[32], uint32_t partition,
                            uint32_t position, uint64_t sector_id, uint64_t seed, cz_error *err) {
    cz_status st = cz_post_sector_proof_alloc(p, cfg, err);
    if (st != CZ_OK) return st;
    uint32_t V = cfg->vanilla_challenges;
    uint64_t *ch = malloc(sizeof *ch * V);
    sp_tree t;
    memset(&t, 0, sizeof t);
    t.lv[0] = malloc(sizeof(sp_node) * V);
    if (!ch || !t.lv[0]) {
        free(ch);
        sp_free(&t);
        cz_post_sector_proof_free(p);
        return cz_error_set(err, CZ_E_NOMEM, "gen post: out of memory");
    }
    cz_post_sector_challenges(ch, cfg, api, randomness, partition, position, sector_id);
    /* leaves: 0 everywhere, a random value at each challenged leaf */
    t.def[0] = cz_fr_zero;
    for (uint32_t i = 0; i < V; i++) {
        t.lv[0][i].index = ch[i];
        derive_fr(&t.lv[0][i].value, "leaf", seed, sector_id, ch[i]);
    }
    qsort(t.lv[0], V, sizeof(sp_node), cmp_node);
    size_t u = 0;
    for (uint32_t i = 0; i < V; i++)
        if (u == 0 || t.lv[0][u - 1].index != t.lv[0][i].index) t.lv[0][u++] = t.lv[0][i];
    t.n[0] = u;
    st = sp_build(&t, &cfg->tree);
    if (st == CZ_OK) {
        p->sector_id = sector_id;
        derive_fr(&p->comm_c, "comm_c", seed, sector_id, 0);
        p->comm_r_last = sp_get(&t, t.levels, 0);
        cz_fr pre[2] = {p->comm_c, p->comm_r_last};
        st = cz_poseidon_hash(&p->comm_r, pre, 2);
    }
    for (uint32_t i = 0; i < V && st == CZ_OK; i++) {
        cz_fc_merkle_proof *inc = &p->inclusions[i];
        inc->index = ch[i];
        inc->leaf = sp_get(&t, 0, ch[i]);
        inc->root = p->comm_r_last;
        uint64_t idx = ch[i];
        size_t sib = 0;
        for (unsigned l = 0; l < t.levels; l++) {
            unsigned a = cz_por_level_arity(&cfg->tree, l);
            uint64_t group = idx / a, pos = idx % a;
            for (unsigned c = 0; c < a; c++)
                if (c != pos) inc->siblings[sib++] = sp_get(&t, l, group * a + c);
            idx = group;
        }
    }
    free(ch);
    sp_free(&t);
    if (st != CZ_OK) {
        cz_post_sector_proof_free(p);
        return cz_error_set(err, st, "gen post: tree hashing failed");
    }
    return CZ_OK;
}

typedef struct {
    cz_post_sector_proof *proofs;
    const cz_post_config *cfg;
    cz_fc_api_version api;
    const uint8_t *randomness;
    const cz_post_gen_opts *opts;
    uint64_t *sector_ids;
    cz_status *status;
    cz_error *errors;
} gen_job;

static void gen_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    gen_job *j = ctx;
    for (size_t i = begin; i < end; i++)
        j->status[i] = gen_sector(&j->proofs[i], j->cfg, j->api, j->randomness, j->opts->partition,
                                  (uint32_t)i, j->sector_ids[i], j->opts->seed, &j->errors[i]);
}

cz_status cz_post_gen(cz_post_sector_proof **out, uint32_t *n, uint32_t *winning_index,
                      uint8_t randomness_out[32], const cz_post_gen_opts *opts, cz_error *err) {
    *out = NULL;
    *n = 0;
    cz_post_proof_info info;
    cz_post_config cfg;
    cz_status st;
    if ((st = cz_post_proof_lookup(&info, opts->registered_proof, err)) != CZ_OK ||
        (st = cz_post_config_from_sector(&cfg, info.kind, info.sector_size, err)) != CZ_OK)
        return st;
    if (opts->sectors < 1 || (info.kind == CZ_POST_WINDOW && opts->sectors > cfg.sector_count))
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "gen post: %u sectors; a %s partition holds 1 to %u", opts->sectors,
                            info.name, cfg.sector_count);
    if (opts->first_sector > UINT64_MAX - opts->sectors)
        return cz_error_set(err, CZ_E_INVALID_ARG, "gen post: sector numbers overflow");
    uint8_t r[32];
    if (opts->have_randomness) {
        memcpy(r, opts->randomness, 32);
    } else {
        cz_fr v;
        derive_fr(&v, "randomness", opts->seed, 0, 0);
        cz_fr_to_bytes_le(r, &v);
    }
    if ((st = cz_post_check_randomness(r, err)) != CZ_OK) return st;
    memcpy(randomness_out, r, 32);

    uint32_t count = info.kind == CZ_POST_WINNING ? 1 : opts->sectors;
    uint64_t *ids = malloc(sizeof *ids * count);
    cz_post_sector_proof *proofs = calloc(count, sizeof *proofs);
    cz_status *status = calloc(count, sizeof *status);
    cz_error *errors = calloc(count, sizeof *errors);
    if (!ids || !proofs || !status || !errors) {
        free(ids), free(proofs), free(status), free(errors);
        return cz_error_set(err, CZ_E_NOMEM, "gen post: out of memory");
    }
    if (info.kind == CZ_POST_WINNING) {
        uint8_t prover_id[32];
        cz_fc_prover_id(prover_id, opts->miner_id);
        uint64_t k = cz_post_sector_challenge(prover_id, r, 0, opts->sectors);
        ids[0] = opts->first_sector + k;
        if (winning_index) *winning_index = (uint32_t)k;
    } else {
        for (uint32_t i = 0; i < count; i++) ids[i] = opts->first_sector + i;
        if (winning_index) *winning_index = 0;
    }
    gen_job job = {proofs, &cfg, info.api_version, r, opts, ids, status, errors};
    cz_parallel_for(count, 1, gen_range, &job);
    st = CZ_OK;
    for (uint32_t i = 0; i < count && st == CZ_OK; i++)
        if (status[i] != CZ_OK) {
            st = status[i];
            if (err) *err = errors[i];
        }
    if (st != CZ_OK) {
        for (uint32_t i = 0; i < count; i++) cz_post_sector_proof_free(&proofs[i]);
        free(proofs);
        proofs = NULL;
        count = 0;
    }
    free(ids), free(status), free(errors);
    *out = proofs;
    *n = count;
    return st;
}
