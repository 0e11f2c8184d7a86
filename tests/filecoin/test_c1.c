/* Tests of the C1 output parser (src/filecoin/porep/c1.h) and of Curio's envelope
 * (c1_envelope.h).
 *
 * A small JSON writer below emits SealCommitPhase1Output documents of any
 * shape with known contents: the n-th 32-byte domain in document order is
 * dom(n), path indices, nodes and layer indices follow simple formulas. The
 * parsed structs are checked against those formulas, the committed vectors
 * (tests/vectors/c1_small.json and its Curio envelope, whose base64 was made
 * by Python's base64 module) must parse to the same values, and targeted
 * faults in the writer must be rejected with the expected JSON path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "filecoin/porep/c1_envelope.h"
#include "harness/harness.h"

/* ------------------------------------------------------------ the writer */

static void dom_value(uint32_t n, uint8_t out[32]) {
    for (int j = 0; j < 31; j++) out[j] = (uint8_t)(n * 7 + (uint32_t)j * 13 + (n >> 8));
    out[31] = (uint8_t)((n ^ (n >> 6)) & 0x3f); /* < 2^254 < r: canonical */
}

typedef enum {
    FAULT_NONE,
    FAULT_D_TWO_SIBLINGS,
    FAULT_BYTE_256,
    FAULT_SHORT_SEED,
    FAULT_NONCANONICAL,
    FAULT_ZERO_SEED,
    FAULT_UNKNOWN_PROOF,
    FAULT_NODE_STRING,
    FAULT_NEGATIVE,
    FAULT_FLOAT_INDEX,
    FAULT_MISSING_H,
    FAULT_UNKNOWN_KEY,
    FAULT_FIVE_DRG,
    FAULT_FEWER_ROWS,
    FAULT_INDEX_RANGE,
    FAULT_VP_MISMATCH,
    FAULT_DUP_KEY,
    FAULT_BOOL,
    FAULT_TWO_SUB,
    FAULT_KIND_MISMATCH,
    FAULT_NO_PARTITIONS,
    FAULT_CHALLENGE_COUNT,
    FAULT_D_SUB,
    FAULT_U32_OVERFLOW,
    FAULT_ZERO_COMM_R
} fault;

typedef struct {
    const char *proof_name, *vp_key;
    uint32_t partitions, cpp, d_depth;
    cz_c1_tree_kind kind;
    uint32_t base_depth, base_sib, sub_sib, top_sib, layers, nparents;
    fault fault;
} gen_params;

typedef struct {
    FILE *f;
    uint32_t n; /* domains written */
    const gen_params *g;
    uint32_t k, i; /* current partition, challenge */
} gen;

static void put_dom_bytes(gen *w, const uint8_t b[32], int count) {
    fputc('[', w->f);
    for (int j = 0; j < count; j++) fprintf(w->f, j ? ",%u" : "%u", b[j]);
    fputc(']', w->f);
}

static void put_dom(gen *w) {
    uint8_t b[32];
    dom_value(w->n++, b);
    put_dom_bytes(w, b, 32);
}

static void put_dom_list(gen *w, uint32_t count) {
    fputc('[', w->f);
    for (uint32_t j = 0; j < count; j++) {
        if (j) fputc(',', w->f);
        put_dom(w);
    }
    fputc(']', w->f);
}

static uint64_t node_of(uint32_t k, uint32_t i) {
    return 17ull * k + i + 3;
}

/* Path indices are the mixed-radix digits of the leaf index (*rem), least
 * significant first, as in a real proof. */
static void put_path(gen *w, uint32_t elems, uint32_t sib, int tree_d, int part, uint64_t *rem) {
    fputs("{\"path\":[", w->f);
    for (uint32_t e = 0; e < elems; e++) {
        uint32_t nsib = sib;
        uint64_t index = *rem % (sib + 1);
        *rem /= sib + 1;
        const gen_params *g = w->g;
        int first = w->k == 0 && w->i == 1 && e == 1;
        if (tree_d && first && g->fault == FAULT_D_TWO_SIBLINGS) nsib = 2;
        if (!tree_d && w->i == 1 && e == 0 && part == 0 && g->fault == FAULT_INDEX_RANGE)
            index = sib + 1;
        if (e) fputc(',', w->f);
        fputs("{\"hashes\":", w->f);
        put_dom_list(w, nsib);
        if (first && g->fault == FAULT_FLOAT_INDEX)
            fprintf(w->f, ",\"index\":%llu.0}", (unsigned long long)index);
        else
            fprintf(w->f, ",\"index\":%llu}", (unsigned long long)index);
    }
    fputs("]}", w->f);
}

static void put_merkle(gen *w, int tree_d, int column, uint64_t leaf) {
    const gen_params *g = w->g;
    cz_c1_tree_kind kind = tree_d ? CZ_C1_SINGLE : g->kind;
    if (tree_d && g->fault == FAULT_D_SUB && w->i == 0) kind = CZ_C1_SUB;
    if (!tree_d && column && g->fault == FAULT_KIND_MISMATCH && w->i == 0)
        kind = kind == CZ_C1_SINGLE ? CZ_C1_SUB : CZ_C1_SINGLE;
    static const char *names[] = {"", "Single", "Sub", "Top"};
    fprintf(w->f, "{\"data\":{\"%s\":{\"root\":", names[kind]);
    put_dom(w);
    fputs(",\"leaf\":", w->f);
    put_dom(w);
    uint32_t depth = tree_d ? g->d_depth : g->base_depth, sib = tree_d ? 1 : g->base_sib;
    if (kind == CZ_C1_SINGLE) {
        fputs(",\"path\":", w->f);
        put_path(w, depth, sib, tree_d, 0, &leaf);
    } else {
        fputs(",\"base_proof\":", w->f);
        put_path(w, depth, sib, tree_d, 0, &leaf);
        fputs(",\"sub_proof\":", w->f);
        put_path(w, g->fault == FAULT_TWO_SUB && w->i == 0 ? 2 : 1, g->sub_sib, tree_d, 1, &leaf);
        if (kind == CZ_C1_TOP) {
            fputs(",\"top_proof\":", w->f);
            put_path(w, 1, g->top_sib, tree_d, 2, &leaf);
        }
    }
    fputs("}}}", w->f);
}

static void put_column(gen *w, uint32_t c, int first_drg) {
    const gen_params *g = w->g;
    uint32_t rows = g->layers;
    if (first_drg && g->fault == FAULT_FEWER_ROWS && w->i == 0) rows--;
    fprintf(w->f, "{\"column\":{\"index\":%llu,\"rows\":",
            (unsigned long long)((node_of(w->k, w->i) + c) & 0xffffffff));
    put_dom_list(w, rows);
    if (g->fault == FAULT_MISSING_H && c == 0 && w->i == 0)
        fputs("},\"inclusion_proof\":", w->f);
    else
        fputs(",\"_h\":null},\"inclusion_proof\":", w->f);
    put_merkle(w, 0, 1, (node_of(w->k, w->i) + c) & 0xffffffff);
    fputc('}', w->f);
}

static void put_labeling(gen *w, uint32_t layer) {
    const gen_params *g = w->g;
    fputs("{\"parents\":", w->f);
    put_dom_list(w, g->nparents);
    int first = w->i == 0 && layer == 1;
    if (first && g->fault == FAULT_NEGATIVE)
        fputs(",\"layer_index\":-1", w->f);
    else if (first && g->fault == FAULT_U32_OVERFLOW)
        fputs(",\"layer_index\":4294967296", w->f);
    else
        fprintf(w->f, ",\"layer_index\":%u", layer);
    if (first && g->fault == FAULT_NODE_STRING)
        fprintf(w->f, ",\"node\":\"%llu\"}", (unsigned long long)node_of(w->k, w->i));
    else if (first && g->fault == FAULT_BOOL)
        fputs(",\"node\":true}", w->f);
    else
        fprintf(w->f, ",\"node\":%llu}", (unsigned long long)node_of(w->k, w->i));
}

static void put_challenge(gen *w) {
    const gen_params *g = w->g;
    fputs("{\"comm_d_proofs\":", w->f);
    put_merkle(w, 1, 0, node_of(w->k, w->i));
    fputs(",\"comm_r_last_proof\":", w->f);
    put_merkle(w, 0, 0, node_of(w->k, w->i));
    if (g->fault == FAULT_UNKNOWN_KEY && w->i == 0) fputs(",\"foo\":1", w->f);
    fputs(",\"replica_column_proofs\":{\"c_x\":", w->f);
    put_column(w, 0, 0);
    fputs(",\"drg_parents\":[", w->f);
    uint32_t ndrg = g->fault == FAULT_FIVE_DRG && w->i == 0 ? 5 : 6;
    for (uint32_t c = 0; c < ndrg; c++) {
        if (c) fputc(',', w->f);
        put_column(w, 1 + c, c == 0);
    }
    fputs("],\"exp_parents\":[", w->f);
    for (uint32_t c = 0; c < 8; c++) {
        if (c) fputc(',', w->f);
        put_column(w, 7 + c, 0);
    }
    fputs("]},\"labeling_proofs\":[", w->f);
    for (uint32_t l = 0; l < g->layers; l++) {
        if (l) fputc(',', w->f);
        put_labeling(w, l + 1);
    }
    fputs("],\"encoding_proof\":", w->f);
    put_labeling(w, g->layers);
    fputs("}", w->f);
}

static void write_doc(FILE *f, const gen_params *g) {
    gen w = {f, 0, g, 0, 0};
    const char *name = g->fault == FAULT_UNKNOWN_PROOF ? "StackedDrg3KiBV1" : g->proof_name;
    fprintf(f, "{\"registered_proof\":\"%s\",\n\"vanilla_proofs\":{\"%s\":[", name,
            g->fault == FAULT_VP_MISMATCH ? "StackedDrg32GiBV1" : g->vp_key);
    uint32_t parts = g->fault == FAULT_NO_PARTITIONS ? 0 : g->partitions;
    for (w.k = 0; w.k < parts; w.k++) {
        fputs(w.k ? ",\n[" : "\n[", f);
        uint32_t cpp = g->cpp - (g->fault == FAULT_CHALLENGE_COUNT && w.k == 1);
        for (w.i = 0; w.i < cpp; w.i++) {
            fputs(w.i ? ",\n" : "\n", f);
            put_challenge(&w);
        }
        fputc(']', f);
    }
    fputs("]},\n\"comm_r\":", f);
    if (g->fault == FAULT_BYTE_256) {
        uint8_t b[32];
        dom_value(w.n++, b);
        fputc('[', f);
        for (int j = 0; j < 32; j++) fprintf(f, j ? ",%u" : "%u", j == 5 ? 256u : b[j]);
        fputc(']', f);
    } else if (g->fault == FAULT_ZERO_COMM_R) {
        uint8_t z[32] = {0};
        w.n++;
        put_dom_bytes(&w, z, 32);
    } else {
        put_dom(&w);
    }
    if (g->fault == FAULT_DUP_KEY) fputs(",\n\"comm_r\":[1]", f);
    fputs(",\n\"comm_d\":", f);
    put_dom(&w);
    fputs(",\n\"replica_id\":", f);
    if (g->fault == FAULT_NONCANONICAL) {
        static const uint8_t r[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
                                      0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
                                      0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33,
                                      0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
        w.n++;
        put_dom_bytes(&w, r, 32);
    } else {
        put_dom(&w);
    }
    fputs(",\n\"seed\":", f);
    if (g->fault == FAULT_SHORT_SEED) {
        uint8_t b[32];
        dom_value(w.n++, b);
        put_dom_bytes(&w, b, 31);
    } else if (g->fault == FAULT_ZERO_SEED) {
        uint8_t z[32] = {0};
        w.n++;
        put_dom_bytes(&w, z, 32);
    } else {
        put_dom(&w);
    }
    fputs(",\n\"ticket\":", f);
    put_dom(&w);
    fputs("}\n", f);
}

static char *make_doc(const gen_params *g, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    write_doc(f, g);
    fclose(f);
    return buf;
}

/* A plain base64 encoder (standard alphabet, '=' padding), independent of
 * the decoder under test. Returns a malloc'ed NUL-terminated string. */
static char *b64_encode(const uint8_t *in, size_t n, size_t *out_len) {
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *e = malloc((n + 2) / 3 * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        e[o++] = A[v >> 18 & 63];
        e[o++] = A[v >> 12 & 63];
        e[o++] = i + 1 < n ? A[v >> 6 & 63] : '=';
        e[o++] = i + 2 < n ? A[v & 63] : '=';
    }
    e[o] = 0;
    if (out_len) *out_len = o;
    return e;
}

/* ----------------------------------------------------------- the checker */

static uint32_t ck_n;
static const cz_c1 *ck_c1;

static int dom_eq(const uint8_t *got) {
    uint8_t want[32];
    dom_value(ck_n++, want);
    return memcmp(got, want, 32) == 0;
}

static void check_span_doms(cz_c1_span s, uint32_t count) {
    CHECK(s.count == count);
    for (uint32_t j = 0; j < s.count; j++) CHECK(dom_eq(cz_c1_doms(ck_c1, s)[j]));
}

static void check_part(cz_c1_span s, uint32_t elems, uint32_t sib, uint64_t *rem) {
    CHECK(s.count == elems);
    for (uint32_t e = 0; e < s.count; e++) {
        const cz_c1_path_elem *pe = &cz_c1_elems(ck_c1, s)[e];
        CHECK(pe->index == *rem % (sib + 1));
        *rem /= sib + 1;
        check_span_doms(pe->hashes, sib);
    }
}

static void check_merkle(const cz_c1_merkle *m, const gen_params *g, int tree_d, uint64_t leaf) {
    CHECK(m->kind == (tree_d ? CZ_C1_SINGLE : g->kind));
    CHECK(dom_eq(m->root));
    CHECK(dom_eq(m->leaf));
    check_part(m->base, tree_d ? g->d_depth : g->base_depth, tree_d ? 1 : g->base_sib, &leaf);
    if (!tree_d && g->kind >= CZ_C1_SUB)
        check_part(m->sub, 1, g->sub_sib, &leaf);
    else
        CHECK(m->sub.count == 0);
    if (!tree_d && g->kind == CZ_C1_TOP)
        check_part(m->top, 1, g->top_sib, &leaf);
    else
        CHECK(m->top.count == 0);
}

static void check_column(const cz_c1_column_proof *c, const gen_params *g, uint64_t node,
                         uint32_t ci) {
    CHECK(c->index == (uint32_t)(node + ci));
    check_span_doms(c->rows, g->layers);
    check_merkle(&c->proof, g, 0, (uint32_t)(node + ci));
}

static void check_labeling(const cz_c1_labeling_proof *l, const gen_params *g, uint64_t node,
                           uint32_t layer) {
    check_span_doms(l->parents, g->nparents);
    CHECK(l->layer_index == layer);
    CHECK(l->node == node);
}

static void check_doc(const cz_c1 *c1, const gen_params *g) {
    ck_n = 0;
    ck_c1 = c1;
    uint32_t id;
    uint64_t size;
    CHECK(cz_c1_registered_proof_lookup(g->proof_name, strlen(g->proof_name), &id, &size));
    CHECK(c1->registered_proof == id);
    CHECK(c1->sector_size == size);
    CHECK(strcmp(c1->registered_proof_name, g->proof_name) == 0);
    CHECK(c1->partitions == g->partitions);
    CHECK(c1->challenges_per_partition == g->cpp);
    CHECK(c1->layers == g->layers);
    CHECK(c1->tree_d_depth == g->d_depth);
    CHECK(c1->tree_r_kind == g->kind);
    CHECK(c1->tree_r_base_depth == g->base_depth);
    CHECK(c1->tree_r_base_siblings == g->base_sib);
    CHECK(c1->tree_r_sub_siblings == (g->kind >= CZ_C1_SUB ? g->sub_sib : 0));
    CHECK(c1->tree_r_top_siblings == (g->kind == CZ_C1_TOP ? g->top_sib : 0));
    CHECK(c1->n_challenges == (size_t)g->partitions * g->cpp);
    for (uint32_t k = 0; k < g->partitions; k++) {
        for (uint32_t i = 0; i < g->cpp; i++) {
            const cz_c1_challenge *ch = cz_c1_challenge_at(c1, k, i);
            uint64_t node = node_of(k, i);
            check_merkle(&ch->comm_d_proof, g, 1, node);
            check_merkle(&ch->comm_r_last_proof, g, 0, node);
            check_column(&ch->c_x, g, node, 0);
            for (uint32_t c = 0; c < 6; c++) check_column(&ch->drg_parents[c], g, node, 1 + c);
            for (uint32_t c = 0; c < 8; c++) check_column(&ch->exp_parents[c], g, node, 7 + c);
            CHECK(ch->labeling.count == g->layers);
            for (uint32_t l = 0; l < ch->labeling.count; l++)
                check_labeling(&cz_c1_labelings(c1, ch->labeling)[l], g, node, l + 1);
            check_labeling(&ch->encoding, g, node, g->layers);
        }
    }
    CHECK(dom_eq(c1->comm_r));
    CHECK(dom_eq(c1->comm_d));
    CHECK(dom_eq(c1->replica_id));
    CHECK(dom_eq(c1->seed));
    CHECK(dom_eq(c1->ticket));
}

/* The committed vectors were written with these parameters. */
static const gen_params small = {
    "StackedDrg2KiBV1_1", "StackedDrg2KiBV1", 1, 2, 2, CZ_C1_SINGLE, 1, 3, 0, 0, 2, 2, FAULT_NONE};
static const gen_params small_top = {
    "StackedDrg64GiBV1_1", "StackedDrg64GiBV1", 2, 1, 3, CZ_C1_TOP, 2, 7, 7, 1, 3, 1, FAULT_NONE};

static void test_valid(void) {
    const gen_params *gs[] = {&small, &small_top};
    for (size_t t = 0; t < 2; t++) {
        size_t len;
        char *doc = make_doc(gs[t], &len);
        cz_c1 c1;
        cz_error err;
        CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, len, &err) == CZ_OK);
        CHECK(!c1.has_envelope);
        check_doc(&c1, gs[t]);
        cz_c1_free(&c1);
        free(doc);
    }
    /* Committed vectors: the raw document and its envelope. */
    size_t len;
    uint8_t *doc = cz_test_read_file(CZ_VECTOR_DIR "/c1_small.json", &len);
    CHECK(doc != NULL);
    size_t glen;
    char *gdoc = make_doc(&small, &glen);
    CHECK(doc && glen == len && memcmp(doc, gdoc, len) == 0);
    free(gdoc);
    cz_c1 c1;
    cz_error err;
    CHECK(cz_c1_parse(&c1, doc, len, &err) == CZ_OK);
    check_doc(&c1, &small);
    /* Spot values written out by hand: dom(0) is comm_d_proofs.root of
     * challenge 0, node of [0][1] is 4, layer 2. */
    const cz_c1_challenge *ch0 = cz_c1_challenge_at(&c1, 0, 0);
    CHECK(ch0->comm_d_proof.root[0] == 0 && ch0->comm_d_proof.root[1] == 13 &&
          ch0->comm_d_proof.root[31] == 0);
    CHECK(cz_c1_labelings(&c1, cz_c1_challenge_at(&c1, 0, 1)->labeling)[1].node == 4);
    CHECK(cz_c1_labelings(&c1, cz_c1_challenge_at(&c1, 0, 1)->labeling)[1].layer_index == 2);
    cz_c1_free(&c1);
    free(doc);

    doc = cz_test_read_file(CZ_VECTOR_DIR "/c1_small_envelope.json", &len);
    CHECK(doc != NULL);
    CHECK(cz_c1_parse(&c1, doc, len, &err) == CZ_OK);
    CHECK(c1.has_envelope && c1.envelope_sector_num == 4242 && c1.envelope_sector_size == 2048);
    check_doc(&c1, &small);
    cz_c1_free(&c1);
    CHECK(cz_c1_parse_file(&c1, CZ_VECTOR_DIR "/c1_small_envelope.json", &err) == CZ_OK);
    CHECK(c1.has_envelope);
    check_doc(&c1, &small);
    cz_c1_free(&c1);
    CHECK(cz_c1_parse_file(&c1, CZ_VECTOR_DIR "/c1_small.json", &err) == CZ_OK);
    check_doc(&c1, &small);
    cz_c1_free(&c1);
    free(doc);

    /* Whitespace and key order do not matter. */
    const char *reordered_env_fmt = " \n{ \"SectorSize\" : 2048 , \"Phase1Out\":\"%s\", "
                                    "\"SectorNum\":7 }\n";
    char *b64 = NULL;
    {
        gdoc = make_doc(&small, &glen);
        static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        b64 = malloc((glen + 2) / 3 * 4 + 1);
        size_t o = 0;
        for (size_t i = 0; i < glen; i += 3) {
            uint32_t v = (uint32_t)(uint8_t)gdoc[i] << 16;
            if (i + 1 < glen) v |= (uint32_t)(uint8_t)gdoc[i + 1] << 8;
            if (i + 2 < glen) v |= (uint8_t)gdoc[i + 2];
            b64[o++] = A[v >> 18 & 63];
            b64[o++] = A[v >> 12 & 63];
            b64[o++] = i + 1 < glen ? A[v >> 6 & 63] : '=';
            b64[o++] = i + 2 < glen ? A[v & 63] : '=';
        }
        b64[o] = 0;
        free(gdoc);
    }
    char *env = malloc(strlen(b64) + 200);
    sprintf(env, reordered_env_fmt, b64);
    CHECK(cz_c1_parse(&c1, (const uint8_t *)env, strlen(env), &err) == CZ_OK);
    CHECK(c1.has_envelope && c1.envelope_sector_num == 7);
    check_doc(&c1, &small);
    cz_c1_free(&c1);
    /* SectorSize must match the registered proof. */
    sprintf(env, "{\"SectorNum\":7,\"Phase1Out\":\"%s\",\"SectorSize\":4096}", b64);
    CHECK(cz_c1_parse(&c1, (const uint8_t *)env, strlen(env), &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "SectorSize 4096 does not match") != NULL);
    /* A broken inner document is reported with its JSON path. */
    size_t bl = strlen(b64);
    memcpy(b64 + bl - 8, "AAAAAAAA", 8);
    sprintf(env, "{\"SectorNum\":7,\"Phase1Out\":\"%s\",\"SectorSize\":2048}", b64);
    CHECK(cz_c1_parse(&c1, (const uint8_t *)env, strlen(env), &err) == CZ_E_PARSE);
    CHECK(strncmp(err.message, "Phase1Out: c1: ", 15) == 0);
    free(env);
    free(b64);
}

typedef struct {
    fault f;
    cz_status st;
    const char *msg;
} fault_case;

/* Each fault applied to a document built from base must fail with its status
 * and a message containing its text. With full_checks, the output must also
 * be left empty and the status must not depend on the error report. */
static void run_fault_cases(const gen_params *base, const fault_case *cases, size_t n,
                            const char *label, int full_checks) {
    for (size_t t = 0; t < n; t++) {
        gen_params g = *base;
        g.fault = cases[t].f;
        size_t len;
        char *doc = make_doc(&g, &len);
        cz_c1 c1;
        cz_error err;
        memset(&err, 0, sizeof err);
        cz_status st = cz_c1_parse(&c1, (const uint8_t *)doc, len, &err);
        if (st != cases[t].st || !strstr(err.message, cases[t].msg))
            printf("%s %zu: got %s \"%s\"\n", label, t, cz_status_name(st), err.message);
        CHECK(st == cases[t].st);
        CHECK(strstr(err.message, cases[t].msg) != NULL);
        if (full_checks) {
            CHECK(c1.challenges == NULL && c1.doms == NULL); /* left empty */
            CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, len, NULL) == cases[t].st);
        }
        free(doc);
    }
}

static void test_faults(void) {
    static const fault_case cases[] = {
        {FAULT_D_TWO_SIBLINGS, CZ_E_PARSE,
         "c1: vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.path.path[1]: "
         "expected 1 sibling, got 2"},
        {FAULT_BYTE_256, CZ_E_RANGE, "c1: comm_r[5]: expected integer 0..255, got 256"},
        {FAULT_SHORT_SEED, CZ_E_PARSE, "c1: seed: expected 32 bytes, got 31"},
        {FAULT_NONCANONICAL, CZ_E_RANGE, "c1: replica_id: not a canonical field element"},
        {FAULT_ZERO_SEED, CZ_E_RANGE, "c1: (root): seed is zero"},
        {FAULT_ZERO_COMM_R, CZ_E_RANGE, "c1: (root): comm_r is zero"},
        {FAULT_UNKNOWN_PROOF, CZ_E_UNSUPPORTED,
         "c1: registered_proof: unknown registered proof \"StackedDrg3KiBV1\""},
        {FAULT_NODE_STRING, CZ_E_PARSE,
         "c1: vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0].node: expected u64, got "
         "string"},
        {FAULT_BOOL, CZ_E_PARSE, "labeling_proofs[0].node: expected u64, got boolean"},
        {FAULT_NEGATIVE, CZ_E_RANGE, "labeling_proofs[0].layer_index: expected u32, got -1"},
        {FAULT_U32_OVERFLOW, CZ_E_RANGE, "layer_index: expected u32, got 4294967296"},
        {FAULT_FLOAT_INDEX, CZ_E_RANGE, "path[1].index: expected u64, got "},
        {FAULT_MISSING_H, CZ_E_PARSE,
         "[0][0].replica_column_proofs.c_x.column: missing key \"_h\""},
        {FAULT_UNKNOWN_KEY, CZ_E_PARSE,
         "c1: vanilla_proofs.StackedDrg2KiBV1[0][0].foo: unknown key"},
        {FAULT_FIVE_DRG, CZ_E_PARSE,
         "[0][0].replica_column_proofs.drg_parents: expected 6 column proofs, got 5"},
        {FAULT_FEWER_ROWS, CZ_E_PARSE,
         "drg_parents[0].column: expected 2 rows (layers) (as in earlier proofs), got 1"},
        {FAULT_INDEX_RANGE, CZ_E_RANGE,
         "[0][1].comm_r_last_proof.data.Single.path.path[0]: index 4 out of range for 4 children"},
        {FAULT_VP_MISMATCH, CZ_E_PARSE,
         "vanilla_proofs variant \"StackedDrg32GiBV1\" does not match registered proof "
         "StackedDrg2KiBV1_1"},
        {FAULT_DUP_KEY, CZ_E_PARSE, "c1: comm_r: duplicate key"},
        {FAULT_NO_PARTITIONS, CZ_E_PARSE, "c1: vanilla_proofs.StackedDrg2KiBV1: no partitions"},
        {FAULT_D_SUB, CZ_E_PARSE, "comm_d_proofs.data.Sub: tree D proof must be Single"},
    };
    run_fault_cases(&small, cases, sizeof cases / sizeof cases[0], "case", 1);
    /* Faults that need the bigger Top-shaped document. */
    static const fault_case top_cases[] = {
        {FAULT_TWO_SUB, CZ_E_PARSE,
         "[0][0].comm_r_last_proof.data.Top.sub_proof.path: expected 1 path element, got 2"},
        {FAULT_KIND_MISMATCH, CZ_E_PARSE,
         "[0][0].replica_column_proofs.c_x.inclusion_proof.data.Single: tree kind Single differs "
         "from "
         "earlier Top"},
        {FAULT_CHALLENGE_COUNT, CZ_E_PARSE,
         "c1: vanilla_proofs.StackedDrg64GiBV1[1]: partition has no proofs"},
    };
    run_fault_cases(&small_top, top_cases, sizeof top_cases / sizeof top_cases[0], "top case", 0);
    /* Challenge-count mismatch with more than one challenge per partition. */
    {
        gen_params g = small;
        g.partitions = 2;
        g.fault = FAULT_CHALLENGE_COUNT;
        size_t len;
        char *doc = make_doc(&g, &len);
        cz_c1 c1;
        cz_error err;
        CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, len, &err) == CZ_E_PARSE);
        CHECK(strstr(err.message, "c1: vanilla_proofs.StackedDrg2KiBV1[1]: expected 2 challenges "
                                  "per partition (as in earlier proofs), got 1") != NULL);
        free(doc);
    }

    /* Truncation at every few bytes, trailing garbage, non-JSON, deep nesting. */
    size_t len;
    char *doc = make_doc(&small, &len);
    cz_c1 c1;
    cz_error err;
    unsigned step = (unsigned)(len / cz_test_iters(200)) + 1;
    for (size_t cut = 0; cut < len - 1; cut += step) {
        /* The document ends in "}\n": every shorter prefix is incomplete. */
        CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, cut, &err) != CZ_OK);
        CHECK(cut == 0 || strstr(err.message, "truncated") || strstr(err.message, "invalid JSON"));
    }
    CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, len / 2, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "truncated input") != NULL);
    char *junk = malloc(len + 8);
    memcpy(junk, doc, len);
    memcpy(junk + len, " {}", 3);
    CHECK(cz_c1_parse(&c1, (const uint8_t *)junk, len + 3, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "(root): invalid JSON at byte") != NULL);
    CHECK(strstr(err.message, "trailing garbage") != NULL);
    free(junk);
    free(doc);
    const char *bad[] = {
        "not json",
        "[1,2]",
        "{\"comm_r\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
        "",
        "{\"registered_proof\":\"StackedDrg2KiBV1\"}",
        "{\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[]]}}",
        "{\"vanilla_proofs\":{}}",
        "{\"vanilla_proofs\":{\"A\":1}}",
        "{\"comm_r\":[1,2,\"\xff\"]}"};
    const char *bad_msg[] = {"invalid JSON",
                             "(root): expected object, got array",
                             "comm_r[0]: expected integer 0..255, got array",
                             "(root): invalid JSON at byte 0: parse error: premature EOF",
                             "(root): missing key \"vanilla_proofs\"",
                             "vanilla_proofs.StackedDrg2KiBV1[0]: partition has no proofs",
                             "vanilla_proofs: empty object, expected one variant",
                             "vanilla_proofs.A: unknown vanilla proof variant",
                             "invalid JSON"};
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        memset(&err, 0, sizeof err);
        cz_status st = cz_c1_parse(&c1, (const uint8_t *)bad[t], strlen(bad[t]), &err);
        if (st == CZ_OK || !strstr(err.message, bad_msg[t]))
            printf("bad %zu: got %s \"%s\"\n", t, cz_status_name(st), err.message);
        CHECK(st != CZ_OK);
        CHECK(strstr(err.message, bad_msg[t]) != NULL);
    }
    CHECK(cz_c1_parse_file(&c1, "/nonexistent/c1.json", &err) == CZ_E_NOT_FOUND);
    CHECK(cz_c1_parse(&c1, (const uint8_t *)"{\"SectorNum\":1,\"X\":2}", 20, NULL) == CZ_E_PARSE);
    /* Envelope errors. */
    const char *benv[] = {"{\"SectorNum\":1,\"Phase1Out\":\"Zg=\",\"SectorSize\":2048}",
                          "{\"SectorNum\":1,\"Phase1Out\":\"e30=\"}",
                          "{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048,\"X\":1}",
                          "{\"SectorNum\":\"1\",\"Phase1Out\":\"e30=\",\"SectorSize\":2048}",
                          "{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}",
                          "{\"SectorNum\":-1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}",
                          "{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048} x"};
    const char *benv_msg[] = {"c1 envelope: Phase1Out: base64: length 3 is not a multiple of 4",
                              "c1 envelope: missing key \"SectorSize\"",
                              "c1 envelope: unknown key \"X\"",
                              "c1 envelope: SectorNum: expected u64, got string",
                              "Phase1Out: c1: (root): missing key \"registered_proof\"",
                              "c1 envelope: SectorNum: expected u64",
                              "c1 envelope: invalid JSON"};
    for (size_t t = 0; t < sizeof benv / sizeof benv[0]; t++) {
        memset(&err, 0, sizeof err);
        cz_status st = cz_c1_parse(&c1, (const uint8_t *)benv[t], strlen(benv[t]), &err);
        if (st == CZ_OK || !strstr(err.message, benv_msg[t]))
            printf("envelope %zu: got %s \"%s\"\n", t, cz_status_name(st), err.message);
        CHECK(st != CZ_OK);
        CHECK(strstr(err.message, benv_msg[t]) != NULL);
    }
}

static void test_shape(void) {
    size_t len;
    char *doc = make_doc(&small, &len);
    cz_c1 c1;
    cz_error err;
    CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, len, &err) == CZ_OK);
    /* 2 KiB needs tree D depth 6. */
    CHECK(cz_c1_check_shape(&c1, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "tree D depth 2, expected 6") != NULL);
    cz_c1_free(&c1);
    free(doc);
    /* A real 2 KiB shape: D 6 levels, R 8-0-0 of 2 levels, 2 layers, 1 partition. */
    gen_params g = {
        "StackedDrg2KiBV1", "StackedDrg2KiBV1", 1, 2, 6, CZ_C1_SINGLE, 2, 7, 0, 0, 2, 37,
        FAULT_NONE};
    doc = make_doc(&g, &len);
    CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, len, &err) == CZ_OK);
    check_doc(&c1, &g);
    CHECK(cz_c1_check_shape(&c1, &err) == CZ_OK);
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_OK);
    /* Break the agreement in several places; each is found and named. */
    cz_c1_challenge *ch = &c1.challenges[1];
    ch->encoding.node++;
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "vanilla_proofs[0][1]: encoding_proof.node is 5, challenge node "
                              "is 4") != NULL);
    ch->encoding.node--;
    cz_c1_path_elem *pe = &c1.path_elems[ch->comm_r_last_proof.base.first + 1];
    pe->index ^= 1;
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "comm_r_last_proof leaf index is ") != NULL);
    pe->index ^= 1;
    ch->exp_parents[7].index++;
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "exp_parents[7]: inclusion proof leads to leaf 18, column.index "
                              "is 19") != NULL);
    ch->exp_parents[7].index--;
    c1.labeling[ch->labeling.first + 1].node = 9;
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_E_PARSE);
    CHECK(strstr(err.message, "labeling_proofs[1].node is 9") != NULL);
    c1.labeling[ch->labeling.first + 1].node = 4;
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_OK);
    cz_c1_free(&c1);
    free(doc);
}

/* Not a benchmark: prints how long a 32 GiB-shaped document takes. */
static void test_large(void) {
    gen_params g = {"StackedDrg32GiBV1_1",
                    "StackedDrg32GiBV1",
                    10,
                    18,
                    30,
                    CZ_C1_SUB,
                    9,
                    7,
                    7,
                    0,
                    11,
                    37,
                    FAULT_NONE};
    if (getenv("CZ_TEST_QUICK")) g.partitions = 1;
    char path[] = "/tmp/cz_test_c1_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    write_doc(f, &g);
    long size = ftell(f);
    fclose(f);
    cz_c1 c1;
    cz_error err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cz_status st = cz_c1_parse_file(&c1, path, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != CZ_OK) printf("large: %s\n", err.message);
    CHECK(st == CZ_OK);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("large: %.1f MB, %zu domains, parsed in %.3f s (%.0f MB/s)\n", size / 1e6, c1.n_doms,
           secs, size / 1e6 / secs);
    check_doc(&c1, &g);
    CHECK(g.partitions != 10 || cz_c1_check_shape(&c1, &err) == CZ_OK);
    CHECK(cz_c1_check_indices(&c1, &err) == CZ_OK);
    cz_c1_free(&c1);

    /* The same document inside Curio's envelope (base64, ~4/3 the size). */
    size_t len, blen;
    uint8_t *raw = cz_test_read_file(path, &len);
    CHECK(raw != NULL);
    char *b64 = b64_encode(raw, len, &blen);
    free(raw);
    f = fopen(path, "w");
    fprintf(f, "{\"SectorNum\":12345,\"Phase1Out\":\"%s\",\"SectorSize\":34359738368}", b64);
    size = ftell(f);
    fclose(f);
    free(b64);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = cz_c1_parse_file(&c1, path, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != CZ_OK) printf("large envelope: %s\n", err.message);
    CHECK(st == CZ_OK);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("large envelope: %.1f MB, parsed in %.3f s\n", size / 1e6, secs);
    CHECK(c1.has_envelope && c1.envelope_sector_num == 12345);
    check_doc(&c1, &g);
    cz_c1_free(&c1);
    unlink(path);
}

/* seed and ticket are chain randomness, not field elements: 32 bytes of
 * 0xff (far above r) are accepted there and kept as they are. */
static void test_randomness_any_bytes(void) {
    size_t len;
    char *doc = make_doc(&small, &len);
    static const char *const keys[] = {"\"seed\":", "\"ticket\":"};
    for (int k = 0; k < 2; k++) {
        char *at = strstr(doc, keys[k]);
        CHECK(at != NULL);
        if (!at) break;
        char *open = strchr(at, '['), *close = strchr(at, ']');
        size_t head = (size_t)(open - doc) + 1, tail = len - (size_t)(close - doc);
        char body[32 * 4 + 1] = "";
        for (int i = 0; i < 32; i++) strcat(body, i ? ",255" : "255");
        char *next = malloc(head + strlen(body) + tail + 1);
        memcpy(next, doc, head);
        memcpy(next + head, body, strlen(body));
        memcpy(next + head + strlen(body), close, tail);
        len = head + strlen(body) + tail;
        next[len] = 0;
        free(doc);
        doc = next;
    }
    cz_c1 c1;
    cz_error err;
    CHECK(cz_c1_parse(&c1, (const uint8_t *)doc, len, &err) == CZ_OK);
    static const uint8_t ff[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    CHECK(memcmp(c1.seed, ff, 32) == 0 && memcmp(c1.ticket, ff, 32) == 0);
    cz_c1_free(&c1);
    free(doc);
}

int main(int argc, char **argv) {
    cz_test_init("filecoin/c1");
    if (argc == 3 && strcmp(argv[1], "--write-small") == 0) {
        /* Regenerates tests/vectors/c1_small.json. */
        FILE *f = fopen(argv[2], "w");
        write_doc(f, &small);
        fclose(f);
        return 0;
    }
    test_valid();
    test_randomness_any_bytes();
    test_faults();
    test_shape();
    test_large();
    return cz_test_finish("filecoin/c1");
}
