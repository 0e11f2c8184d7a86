/* C1 output writer (vanilla.h): the SealCommitPhase1Output JSON byte for
 * byte as serde_json::to_vec emits it (compact, struct fields in declaration
 * order, 32-byte domains as arrays of 32 numbers, Column._h as null, enum
 * variants externally tagged), and Curio's envelope around it with standard
 * padded base64 (Go encoding/json of a []byte). */
#include <stdlib.h>
#include <string.h>

#include "filecoin/porep/vanilla.h"
#include "util/base64.h"

typedef struct {
    uint8_t *p;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const void *s, size_t n) {
    if (b->oom) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->len + n) cap *= 2;
        uint8_t *np = realloc(b->p, cap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void puts_(buf *b, const char *s) {
    put(b, s, strlen(s));
}

static void put_u64(buf *b, uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
        tmp[sizeof tmp - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(b, tmp + sizeof tmp - n, (size_t)n);
}

static void put_dom(buf *b, const uint8_t d[32]) {
    char tmp[32 * 4 + 2];
    size_t n = 0;
    tmp[n++] = '[';
    for (int i = 0; i < 32; i++) {
        unsigned v = d[i];
        if (i) tmp[n++] = ',';
        if (v >= 100) tmp[n++] = (char)('0' + v / 100);
        if (v >= 10) tmp[n++] = (char)('0' + v / 10 % 10);
        tmp[n++] = (char)('0' + v % 10);
    }
    tmp[n++] = ']';
    put(b, tmp, n);
}

static void put_doms(buf *b, const cz_c1 *c1, cz_c1_span s) {
    puts_(b, "[");
    for (uint32_t i = 0; i < s.count; i++) {
        if (i) puts_(b, ",");
        put_dom(b, c1->doms[s.first + i]);
    }
    puts_(b, "]");
}

/* InclusionPath: {"path":[{"hashes":[...],"index":n},...]} */
static void put_path(buf *b, const cz_c1 *c1, cz_c1_span s) {
    puts_(b, "{\"path\":[");
    for (uint32_t i = 0; i < s.count; i++) {
        const cz_c1_path_elem *e = &c1->path_elems[s.first + i];
        if (i) puts_(b, ",");
        puts_(b, "{\"hashes\":");
        put_doms(b, c1, e->hashes);
        puts_(b, ",\"index\":");
        put_u64(b, e->index);
        puts_(b, "}");
    }
    puts_(b, "]}");
}

/* MerkleProof {"data": ProofData}; field order of SingleProof (root, leaf,
 * path), SubProof (base_proof, sub_proof, root, leaf), TopProof (base_proof,
 * sub_proof, top_proof, root, leaf). */
static void put_merkle(buf *b, const cz_c1 *c1, const cz_c1_merkle *m) {
    if (m->kind == CZ_C1_SINGLE) {
        puts_(b, "{\"data\":{\"Single\":{\"root\":");
        put_dom(b, m->root);
        puts_(b, ",\"leaf\":");
        put_dom(b, m->leaf);
        puts_(b, ",\"path\":");
        put_path(b, c1, m->base);
        puts_(b, "}}}");
        return;
    }
    puts_(b, m->kind == CZ_C1_SUB ? "{\"data\":{\"Sub\":{\"base_proof\":"
                                  : "{\"data\":{\"Top\":{\"base_proof\":");
    put_path(b, c1, m->base);
    puts_(b, ",\"sub_proof\":");
    put_path(b, c1, m->sub);
    if (m->kind == CZ_C1_TOP) {
        puts_(b, ",\"top_proof\":");
        put_path(b, c1, m->top);
    }
    puts_(b, ",\"root\":");
    put_dom(b, m->root);
    puts_(b, ",\"leaf\":");
    put_dom(b, m->leaf);
    puts_(b, "}}}");
}

static void put_column(buf *b, const cz_c1 *c1, const cz_c1_column_proof *col) {
    puts_(b, "{\"column\":{\"index\":");
    put_u64(b, col->index);
    puts_(b, ",\"rows\":");
    put_doms(b, c1, col->rows);
    puts_(b, ",\"_h\":null},\"inclusion_proof\":");
    put_merkle(b, c1, &col->proof);
    puts_(b, "}");
}

static void put_labeling(buf *b, const cz_c1 *c1, const cz_c1_labeling_proof *lp) {
    puts_(b, "{\"parents\":");
    put_doms(b, c1, lp->parents);
    puts_(b, ",\"layer_index\":");
    put_u64(b, lp->layer_index);
    puts_(b, ",\"node\":");
    put_u64(b, lp->node);
    puts_(b, "}");
}

static void put_challenge(buf *b, const cz_c1 *c1, const cz_c1_challenge *ch) {
    puts_(b, "{\"comm_d_proofs\":");
    put_merkle(b, c1, &ch->comm_d_proof);
    puts_(b, ",\"comm_r_last_proof\":");
    put_merkle(b, c1, &ch->comm_r_last_proof);
    puts_(b, ",\"replica_column_proofs\":{\"c_x\":");
    put_column(b, c1, &ch->c_x);
    puts_(b, ",\"drg_parents\":[");
    for (int j = 0; j < CZ_C1_DRG_PARENTS; j++) {
        if (j) puts_(b, ",");
        put_column(b, c1, &ch->drg_parents[j]);
    }
    puts_(b, "],\"exp_parents\":[");
    for (int j = 0; j < CZ_C1_EXP_PARENTS; j++) {
        if (j) puts_(b, ",");
        put_column(b, c1, &ch->exp_parents[j]);
    }
    puts_(b, "]},\"labeling_proofs\":[");
    for (uint32_t l = 0; l < ch->labeling.count; l++) {
        if (l) puts_(b, ",");
        put_labeling(b, c1, &c1->labeling[ch->labeling.first + l]);
    }
    puts_(b, "],\"encoding_proof\":");
    put_labeling(b, c1, &ch->encoding);
    puts_(b, "}");
}

static cz_status write_raw(buf *b, const cz_c1 *c1, cz_error *err) {
    cz_fc_proof_info info, v1;
    cz_status st = cz_fc_proof_lookup(&info, c1->registered_proof, err);
    if (st != CZ_OK) return st;
    /* vanilla_proofs is tagged with the size-only (V1) variant name. */
    if ((st = cz_fc_proof_lookup(&v1, c1->registered_proof % 5, err)) != CZ_OK) return st;
    if (c1->n_challenges != (size_t)c1->partitions * c1->challenges_per_partition)
        return cz_error_set(err, CZ_E_INVALID_ARG, "c1 write: %zu proofs for %u x %u challenges",
                            c1->n_challenges, c1->partitions, c1->challenges_per_partition);
    puts_(b, "{\"registered_proof\":\"");
    puts_(b, info.name);
    puts_(b, "\",\"vanilla_proofs\":{\"");
    puts_(b, v1.name);
    puts_(b, "\":[");
    for (uint32_t k = 0; k < c1->partitions; k++) {
        if (k) puts_(b, ",");
        puts_(b, "[");
        for (uint32_t i = 0; i < c1->challenges_per_partition; i++) {
            if (i) puts_(b, ",");
            put_challenge(b, c1, cz_c1_challenge_at(c1, k, i));
        }
        puts_(b, "]");
    }
    puts_(b, "]},\"comm_r\":");
    put_dom(b, c1->comm_r);
    puts_(b, ",\"comm_d\":");
    put_dom(b, c1->comm_d);
    puts_(b, ",\"replica_id\":");
    put_dom(b, c1->replica_id);
    puts_(b, ",\"seed\":");
    put_dom(b, c1->seed);
    puts_(b, ",\"ticket\":");
    put_dom(b, c1->ticket);
    puts_(b, "}");
    if (b->oom) return cz_error_set(err, CZ_E_NOMEM, "c1 write: out of memory");
    return CZ_OK;
}

cz_status cz_c1_write_json_mem(uint8_t **out, size_t *out_len, const cz_c1 *c1, int envelope,
                               uint64_t sector_num, cz_error *err) {
    *out = NULL;
    *out_len = 0;
    buf raw = {0};
    cz_status st = write_raw(&raw, c1, err);
    if (st != CZ_OK) {
        free(raw.p);
        return st;
    }
    if (!envelope) {
        *out = raw.p;
        *out_len = raw.len;
        return CZ_OK;
    }
    char *b64;
    size_t b64_len;
    st = cz_base64_encode(&b64, &b64_len, raw.p, raw.len, err);
    free(raw.p);
    if (st != CZ_OK) return st;
    buf env = {0};
    puts_(&env, "{\"SectorNum\":");
    put_u64(&env, sector_num);
    puts_(&env, ",\"Phase1Out\":\"");
    put(&env, b64, b64_len);
    puts_(&env, "\",\"SectorSize\":");
    put_u64(&env, c1->sector_size);
    puts_(&env, "}");
    free(b64);
    if (env.oom) {
        free(env.p);
        return cz_error_set(err, CZ_E_NOMEM, "c1 write: out of memory");
    }
    *out = env.p;
    *out_len = env.len;
    return CZ_OK;
}

cz_status cz_c1_write_json(FILE *out, const cz_c1 *c1, int envelope, uint64_t sector_num,
                           cz_error *err) {
    uint8_t *p;
    size_t len;
    cz_status st = cz_c1_write_json_mem(&p, &len, c1, envelope, sector_num, err);
    if (st != CZ_OK) return st;
    size_t w = fwrite(p, 1, len, out);
    free(p);
    if (w != len) return cz_error_set(err, CZ_E_IO, "c1 write: short write (%zu of %zu)", w, len);
    return CZ_OK;
}
