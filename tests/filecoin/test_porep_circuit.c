/* The StackedDRG PoRep circuit:
 *  - sizes of rust-fil-proofs' stacked_circuit.rs shapes (2 layers, 1
 *    challenge: 8-0-0 1,199,620; 2-0-0 1,206,212; 8-4-0 1,296,576; 8-4-2
 *    1,346,982 constraints, 22 inputs) and of the published sector sizes
 *    (32 / 64 GiB behind CZ_SLOW_TESTS=1, with cuzk's recorded non-zeros
 *    and density popcounts for 32 GiB);
 *  - the stats back-end against the record back-end (matrices stored and
 *    counted, bitmaps compared) and against the prove back-end's densities;
 *  - a witness built here from scratch (OpenSSL SHA-256 labels over the SDR
 *    graph, native Poseidon column hashes and trees, SHA-256 tree D), held
 *    in a cz_c1: the check back-end is satisfied, the circuit's public
 *    inputs equal cz_porep_public_inputs (the verifier's derivation from
 *    the graph), tampered witness values (a sibling, a column row, the data
 *    leaf, comm_r, a path index) make it fail, and shape mismatches are
 *    refused. Tree shapes 8-0-0 (2 KiB), 8-4-2 (sub and top levels);
 *  - C1 outputs of the synthetic generator (2 KiB whole, 512 MiB sparse):
 *    satisfied, inputs equal the verifier's with derived challenges. */
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/porep/porep.h"
#include "filecoin/porep/porep_circuit.h"
#include "filecoin/common/registry.h"
#include "filecoin/porep/vanilla.h"
#include "gadgets/por.h"
#include "harness/harness.h"
#include "hash/poseidon.h"
#include "r1cs/backends.h"
#include "util/parallel.h"

/* ------------------------------------------------------------- sizes */

typedef struct {
    const char *name;
    uint64_t nodes;
    uint32_t layers, challenges;
    unsigned base, sub, top;
    uint64_t constraints, aux; /* aux 0: not published */
    uint32_t inputs;
} size_case;

static void check_counts(const size_case *c) {
    cz_porep_geometry g;
    cz_error err = {0};
    CHECK(cz_porep_geometry_make(&g, c->nodes, c->layers, c->challenges, c->base, c->sub, c->top,
                                 &err) == CZ_OK);
    cz_cs *cs = cz_cs_count_new();
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, &err) == CZ_OK);
    printf("  %-22s %llu constraints (want %llu), %u aux, %u inputs\n", c->name,
           (unsigned long long)cs->num_constraints, (unsigned long long)c->constraints, cs->num_aux,
           cs->num_inputs);
    CHECK(cs->num_constraints == c->constraints);
    if (c->aux) CHECK(cs->num_aux == c->aux);
    CHECK(cs->num_inputs == c->inputs);
    CHECK(cz_porep_num_inputs(&g) == c->inputs);
    cz_cs_destroy(cs);
}

static void test_test_shapes(void) {
    /* storage-proofs-porep/tests/stacked_circuit.rs: nodes = 8 * base trees */
    static const size_case cases[] = {
        {"stacked_circuit 8-0-0", 8, 2, 1, 8, 0, 0, 1199620, 1198525, 22},
        {"stacked_circuit 2-0-0", 8, 2, 1, 2, 0, 0, 1206212, 0, 22},
        {"stacked_circuit 8-4-0", 32, 2, 1, 8, 4, 0, 1296576, 0, 22},
        {"stacked_circuit 8-4-2", 64, 2, 1, 8, 4, 2, 1346982, 0, 22},
    };
    printf("rust-fil-proofs test shapes\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_counts(&cases[i]);
}

static void test_sector_sizes(void) {
    /* counts per size (also computed by tools/refmodels/porep_size.py) */
    static const struct {
        uint64_t size, constraints, aux;
        uint32_t inputs;
        unsigned log_domain;
    } rows[] = {
        {2048, 2687921, 2685673, 40, 22},
        {8 << 20, 3844929, 3842449, 40, 22},
        {512 << 20, 4423433, 4420837, 40, 23},
    };
    printf("published sector sizes\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cz_fc_sector_info sector;
        cz_porep_geometry g;
        CHECK(cz_fc_sector_lookup(&sector, rows[i].size, NULL) == CZ_OK);
        CHECK(cz_porep_geometry_from_sector(&g, &sector, NULL) == CZ_OK);
        cz_cs *cs = cz_cs_count_new();
        CHECK(cz_porep_synthesize(cs, &g, NULL, 0, NULL) == CZ_OK);
        printf("  %llu bytes: %llu constraints, %u aux, %u inputs\n",
               (unsigned long long)rows[i].size, (unsigned long long)cs->num_constraints,
               cs->num_aux, cs->num_inputs);
        CHECK(cs->num_constraints == rows[i].constraints);
        CHECK(cs->num_aux == rows[i].aux);
        CHECK(cs->num_inputs == rows[i].inputs);
        /* 2^k >= constraints + inputs (bellperson's input constraints) */
        uint64_t n = cs->num_constraints + cs->num_inputs;
        CHECK(n <= (1ull << rows[i].log_domain) && n > (1ull << (rows[i].log_domain - 1)));
        cz_cs_destroy(cs);
    }
}

/* 32 / 64 GiB (CZ_SLOW_TESTS=1): 32 GiB on the stats back-end against
 * cuzk's recorded PCE, 64 GiB counts. */
static void test_large_sizes(void) {
    const char *slow = getenv("CZ_SLOW_TESTS");
    if (!slow || strcmp(slow, "1")) {
        printf("32 / 64 GiB circuits: skipped (set CZ_SLOW_TESTS=1)\n");
        return;
    }
    cz_fc_sector_info sector;
    cz_porep_geometry g;
    CHECK(cz_fc_sector_lookup(&sector, 32ull << 30, NULL) == CZ_OK);
    CHECK(cz_porep_geometry_from_sector(&g, &sector, NULL) == CZ_OK);
    cz_cs *cs = cz_cs_stats_new();
    cz_error err = {0};
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, &err) == CZ_OK);
    cz_r1cs_stats st;
    CHECK(cz_stats_finish(cs, &st, &err) == CZ_OK);
    cz_cs_destroy(cs);
    printf("32 GiB: %u inputs, %u aux, %llu + %u constraints, nnz %llu / %llu / %llu, "
           "densities %llu / %llu / %llu\n",
           st.num_inputs, st.num_aux, (unsigned long long)st.synthesized_constraints, st.num_inputs,
           (unsigned long long)st.nnz_a, (unsigned long long)st.nnz_b, (unsigned long long)st.nnz_c,
           (unsigned long long)st.a_aux_count, (unsigned long long)st.b_input_count,
           (unsigned long long)st.b_aux_count);
    CHECK(st.num_inputs == 328);
    CHECK(st.num_aux == 130169893);
    CHECK(st.synthesized_constraints == 130278541);
    CHECK(st.num_constraints == 130278869);
    CHECK(st.nnz_a == 309405051);
    CHECK(st.nnz_b == 130327340);
    CHECK(st.nnz_c == 282656500);
    CHECK(st.a_aux_count == 129753292);
    CHECK(st.b_input_count == 1);
    CHECK(st.b_aux_count == 33112281);
    cz_r1cs_stats_free(&st);

    CHECK(cz_fc_sector_lookup(&sector, 64ull << 30, NULL) == CZ_OK);
    CHECK(cz_porep_geometry_from_sector(&g, &sector, NULL) == CZ_OK);
    cs = cz_cs_count_new();
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, NULL) == CZ_OK);
    printf("64 GiB: %u inputs, %u aux, %llu constraints\n", cs->num_inputs, cs->num_aux,
           (unsigned long long)cs->num_constraints);
    CHECK(cs->num_inputs == 328);
    CHECK(cs->num_aux == 131076643);
    CHECK(cs->num_constraints == 131185849);
    cz_cs_destroy(cs);
}

/* ----------------------------------------------- stats against record */

static uint64_t popcount(const uint64_t *bits, uint64_t n) {
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++) c += (uint64_t)cz_density_get(bits, i);
    return c;
}

static int bitmaps_equal(const uint64_t *a, const uint64_t *b, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (cz_density_get(a, i) != cz_density_get(b, i)) return 0;
    return 1;
}

/* The full circuit of the smallest shape (every gadget of the 32 GiB
 * circuit occurs in it), recorded (matrices stored) and counted. */
static void test_stats_vs_record(void) {
    cz_porep_geometry g;
    CHECK(cz_porep_geometry_make(&g, 8, 2, 1, 8, 0, 0, NULL) == CZ_OK);
    cz_cs *cs = cz_cs_record_new();
    cz_error err = {0};
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, &err) == CZ_OK);
    cz_r1cs r;
    CHECK(cz_record_finish(cs, &r, &err) == CZ_OK);
    cz_cs_destroy(cs);
    cs = cz_cs_stats_new();
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, &err) == CZ_OK);
    cz_r1cs_stats st;
    CHECK(cz_stats_finish(cs, &st, &err) == CZ_OK);
    cz_cs_destroy(cs);
    uint64_t nnz[3] = {r.a.row_start[r.a.rows], r.b.row_start[r.b.rows], r.c.row_start[r.c.rows]};
    printf("stats vs record (8 nodes, 8-0-0): nnz %llu / %llu / %llu, densities %llu / %llu / "
           "%llu\n",
           (unsigned long long)st.nnz_a, (unsigned long long)st.nnz_b, (unsigned long long)st.nnz_c,
           (unsigned long long)st.a_aux_count, (unsigned long long)st.b_input_count,
           (unsigned long long)st.b_aux_count);
    CHECK(st.num_inputs == r.num_inputs && st.num_aux == r.num_aux);
    CHECK(st.num_constraints == r.num_constraints);
    CHECK(st.synthesized_constraints + st.num_inputs == r.num_constraints);
    CHECK(st.nnz_a == nnz[0] && st.nnz_b == nnz[1] && st.nnz_c == nnz[2]);
    CHECK(bitmaps_equal(st.a_aux_density, r.a_aux_density, r.num_aux));
    CHECK(bitmaps_equal(st.b_input_density, r.b_input_density, r.num_inputs));
    CHECK(bitmaps_equal(st.b_aux_density, r.b_aux_density, r.num_aux));
    CHECK(st.a_aux_count == popcount(r.a_aux_density, r.num_aux));
    CHECK(st.b_input_count == popcount(r.b_input_density, r.num_inputs));
    CHECK(st.b_aux_count == popcount(r.b_aux_density, r.num_aux));
    CHECK(st.b_input_count == 1); /* only ONE occurs in B */
    cz_r1cs_stats_free(&st);
    cz_r1cs_free(&r);
}

/* ------------------------------------------------- a witness from scratch */

typedef struct {
    cz_porep_geometry g;
    cz_fc_graph graph;
    uint8_t replica_id[32];
    cz_fr *data, *labels;           /* [nodes], [layers][nodes] */
    cz_fr *tree_c_leaves, *replica; /* [nodes] */
    cz_fr comm_d, comm_c, comm_r_last, comm_r;
    uint64_t challenges[8];
} sector;

static void random_dom(uint8_t out[32]) {
    cz_test_rand_bytes(out, 32);
    out[31] &= 0x3f; /* fr32: below 2^254 */
}

static cz_fr fr_of(const uint8_t d[32]) {
    cz_fr x;
    CHECK(cz_fr_from_bytes_le(&x, d));
    return x;
}

/* Filecoin's label (stacked/vanilla/create_label): SHA-256 of replica_id ||
 * layer u32 BE || node u64 BE || 20 zero bytes || for node > 0 the 37
 * parent labels (DRG parents of this layer, expander parents of the layer
 * below; 6 or 14 parents repeated in order), fr32-masked. */
static void make_labels(sector *s) {
    uint64_t n = s->g.nodes;
    for (uint32_t layer = 1; layer <= s->g.layers; layer++) {
        cz_fr *cur = &s->labels[(layer - 1) * n];
        const cz_fr *below = layer > 1 ? &s->labels[(layer - 2) * n] : NULL;
        for (uint64_t v = 0; v < n; v++) {
            uint8_t msg[64 + 37 * 32] = {0}, digest[32];
            memcpy(msg, s->replica_id, 32);
            for (int i = 0; i < 4; i++) msg[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
            for (int i = 0; i < 8; i++) msg[36 + i] = (uint8_t)(v >> (56 - 8 * i));
            size_t len = 64;
            if (v > 0) {
                uint32_t drg[6], exp[8];
                cz_fr parents[14];
                unsigned np = layer == 1 ? 6 : 14;
                cz_fc_graph_drg_parents(drg, &s->graph, (uint32_t)v);
                cz_fc_graph_exp_parents(exp, &s->graph, (uint32_t)v);
                for (int p = 0; p < 6; p++) parents[p] = cur[drg[p]];
                if (layer > 1)
                    for (int p = 0; p < 8; p++) parents[6 + p] = below[exp[p]];
                for (unsigned k = 0; k < 37; k++)
                    cz_fr_to_bytes_le(&msg[64 + 32 * k], &parents[k % np]);
                len = sizeof msg;
            }
            SHA256(msg, len, digest);
            digest[31] &= 0x3f;
            cur[v] = fr_of(digest);
        }
    }
}

static void column_of(const sector *s, cz_fr *out, uint64_t v) {
    for (uint32_t l = 0; l < s->g.layers; l++) out[l] = s->labels[l * s->g.nodes + v];
}

static void sector_init_layers(sector *s, uint64_t nodes, uint32_t layers, unsigned base,
                               unsigned sub, unsigned top, uint32_t challenges) {
    memset(s, 0, sizeof *s);
    CHECK(challenges <= sizeof s->challenges / sizeof s->challenges[0]);
    CHECK(cz_porep_geometry_make(&s->g, nodes, layers, challenges, base, sub, top, NULL) == CZ_OK);
    cz_fc_proof_info info; /* 2 KiB V1_1: the graph's porep_id and api version */
    CHECK(cz_fc_proof_lookup(&info, 5, NULL) == CZ_OK);
    CHECK(cz_fc_graph_init(&s->graph, nodes, info.porep_id, info.api_version, NULL) == CZ_OK);
    random_dom(s->replica_id);
    s->data = calloc(nodes, sizeof(cz_fr));
    s->labels = calloc(nodes * s->g.layers, sizeof(cz_fr));
    s->tree_c_leaves = calloc(nodes, sizeof(cz_fr));
    s->replica = calloc(nodes, sizeof(cz_fr));
    for (uint64_t v = 0; v < nodes; v++) {
        uint8_t d[32];
        random_dom(d);
        s->data[v] = fr_of(d);
    }
    make_labels(s);
    for (uint64_t v = 0; v < nodes; v++) {
        cz_fr col[11];
        column_of(s, col, v);
        CHECK(cz_poseidon_hash(&s->tree_c_leaves[v], col, s->g.layers) == CZ_OK);
        cz_fr_add(&s->replica[v], &s->labels[(s->g.layers - 1) * nodes + v], &s->data[v]);
    }
    CHECK(cz_por_native_path(&s->comm_d, NULL, &s->g.tree_d, s->data, 0) == CZ_OK);
    CHECK(cz_por_native_path(&s->comm_c, NULL, &s->g.tree_rc, s->tree_c_leaves, 0) == CZ_OK);
    CHECK(cz_por_native_path(&s->comm_r_last, NULL, &s->g.tree_rc, s->replica, 0) == CZ_OK);
    cz_fr pair[2] = {s->comm_c, s->comm_r_last};
    CHECK(cz_poseidon_hash(&s->comm_r, pair, 2) == CZ_OK);
    for (uint32_t i = 0; i < challenges; i++) s->challenges[i] = 1 + cz_test_rand64() % (nodes - 1);
}

static void sector_init(sector *s, uint64_t nodes, unsigned base, unsigned sub, unsigned top,
                        uint32_t challenges) {
    sector_init_layers(s, nodes, 2, base, sub, top, challenges);
}

static void sector_free(sector *s) {
    free(s->data), free(s->labels), free(s->tree_c_leaves), free(s->replica);
}

/* ---- filling a cz_c1 by hand (the parser's pools) ---- */

static uint32_t push_dom(cz_c1 *c1, const cz_fr *x) {
    c1->doms = realloc(c1->doms, (c1->n_doms + 1) * sizeof *c1->doms);
    cz_fr_to_bytes_le(c1->doms[c1->n_doms], x);
    return (uint32_t)c1->n_doms++;
}

/* A MerkleProof of leaf `index` of a tree (shape s) over leaves: path
 * elements leaf -> root, each the level's position and its siblings in
 * child order without the current node. */
static void push_merkle(cz_c1 *c1, cz_c1_merkle *m, const cz_por_shape *s, const cz_fr *leaves,
                        uint64_t index) {
    cz_fr root, sib[160];
    CHECK(cz_por_native_path(&root, sib, s, leaves, index) == CZ_OK);
    cz_fr_to_bytes_le(m->root, &root);
    cz_fr_to_bytes_le(m->leaf, &leaves[index]);
    m->kind = s->top_arity ? CZ_C1_TOP : s->sub_arity ? CZ_C1_SUB : CZ_C1_SINGLE;
    unsigned levels = cz_por_levels(s);
    size_t k = 0;
    uint32_t first = (uint32_t)c1->n_path_elems;
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = cz_por_level_arity(s, l);
        c1->path_elems = realloc(c1->path_elems, (c1->n_path_elems + 1) * sizeof *c1->path_elems);
        cz_c1_path_elem *e = &c1->path_elems[c1->n_path_elems++];
        e->index = index % a;
        e->hashes.first = (uint32_t)c1->n_doms;
        e->hashes.count = a - 1;
        for (unsigned i = 0; i + 1 < a; i++) push_dom(c1, &sib[k++]);
        index /= a;
    }
    m->base = (cz_c1_span){first, s->base_levels};
    m->sub = (cz_c1_span){first + s->base_levels, s->sub_arity ? 1 : 0};
    m->top = (cz_c1_span){first + s->base_levels + 1, s->top_arity ? 1 : 0};
}

static void push_column(cz_c1 *c1, cz_c1_column_proof *cp, const sector *s, uint64_t v) {
    cz_fr col[11];
    column_of(s, col, v);
    cp->index = (uint32_t)v;
    cp->rows.first = (uint32_t)c1->n_doms;
    cp->rows.count = s->g.layers;
    for (uint32_t l = 0; l < s->g.layers; l++) push_dom(c1, &col[l]);
    push_merkle(c1, &cp->proof, &s->g.tree_rc, s->tree_c_leaves, v);
}

/* One partition holding every challenge of s. Only what the circuit reads
 * is filled (no labeling parents, no encoding proof). */
static void make_c1(cz_c1 *c1, const sector *s) {
    memset(c1, 0, sizeof *c1);
    c1->partitions = 1;
    c1->challenges_per_partition = s->g.challenges;
    c1->layers = s->g.layers;
    memcpy(c1->replica_id, s->replica_id, 32);
    cz_fr_to_bytes_le(c1->comm_d, &s->comm_d);
    cz_fr_to_bytes_le(c1->comm_r, &s->comm_r);
    c1->n_challenges = s->g.challenges;
    c1->challenges = calloc(s->g.challenges, sizeof *c1->challenges);
    c1->labeling = calloc((size_t)s->g.challenges * s->g.layers, sizeof *c1->labeling);
    for (uint32_t i = 0; i < s->g.challenges; i++) {
        cz_c1_challenge *ch = &c1->challenges[i];
        uint64_t c = s->challenges[i];
        push_merkle(c1, &ch->comm_d_proof, &s->g.tree_d, s->data, c);
        push_merkle(c1, &ch->comm_r_last_proof, &s->g.tree_rc, s->replica, c);
        push_column(c1, &ch->c_x, s, c);
        uint32_t drg[6], exp[8];
        cz_fc_graph_drg_parents(drg, &s->graph, (uint32_t)c);
        cz_fc_graph_exp_parents(exp, &s->graph, (uint32_t)c);
        for (int p = 0; p < 6; p++) push_column(c1, &ch->drg_parents[p], s, drg[p]);
        for (int p = 0; p < 8; p++) push_column(c1, &ch->exp_parents[p], s, exp[p]);
        ch->labeling = (cz_c1_span){(uint32_t)c1->n_labeling, s->g.layers};
        for (uint32_t l = 0; l < s->g.layers; l++) {
            c1->labeling[c1->n_labeling].layer_index = l + 1;
            c1->labeling[c1->n_labeling++].node = c;
        }
        ch->encoding.node = c;
        ch->encoding.layer_index = s->g.layers;
    }
}

/* check back-end: 1 when satisfied; *first the first failing constraint */
static int check_satisfied(const cz_porep_geometry *g, const cz_c1 *c1, uint64_t *first) {
    cz_cs *cs = cz_cs_check_new();
    cz_error err = {0};
    cz_status st = cz_porep_synthesize(cs, g, c1, 0, &err);
    if (st != CZ_OK) printf("  synthesis: %s\n", err.message);
    CHECK(st == CZ_OK);
    cz_check_result r;
    cz_cs_check_result(cs, &r);
    cz_cs_destroy(cs);
    *first = r.first_failure;
    return r.satisfied;
}

static void test_witness(uint64_t nodes, unsigned base, unsigned sub, unsigned top,
                         uint32_t challenges, int tamper) {
    sector s;
    sector_init(&s, nodes, base, sub, top, challenges);
    cz_c1 c1;
    make_c1(&c1, &s);
    printf("witness %llu nodes, tree %u-%u-%u, %u challenges (", (unsigned long long)nodes, base,
           sub, top, challenges);
    for (uint32_t i = 0; i < challenges; i++)
        printf("%s%llu", i ? ", " : "", (unsigned long long)s.challenges[i]);
    printf(")\n");

    /* the circuit's inputs (witness back-end) against the verifier's */
    cz_cs *cs = cz_cs_witness_new();
    cz_error err = {0};
    CHECK(cz_porep_synthesize(cs, &s.g, &c1, 0, &err) == CZ_OK);
    cz_fr *inputs = NULL, *aux = NULL;
    uint32_t n_inputs = 0, n_aux = 0;
    CHECK(cz_witness_finish(cs, &inputs, &n_inputs, &aux, &n_aux, &err) == CZ_OK);
    cz_cs_destroy(cs);
    uint32_t want_inputs = cz_porep_num_inputs(&s.g);
    CHECK(n_inputs == want_inputs);
    cz_fr *expect = calloc(want_inputs, sizeof *expect);
    uint8_t comm_d[32], comm_r[32];
    cz_fr_to_bytes_le(comm_d, &s.comm_d);
    cz_fr_to_bytes_le(comm_r, &s.comm_r);
    CHECK(cz_porep_public_inputs(expect, &s.g, &s.graph, s.replica_id, comm_d, comm_r, s.challenges,
                                 &err) == CZ_OK);
    CHECK(cz_fr_equal(&inputs[0], &cz_fr_one));
    int inputs_equal = n_inputs == want_inputs;
    for (uint32_t i = 1; inputs_equal && i < want_inputs; i++)
        if (!cz_fr_equal(&inputs[i], &expect[i - 1])) {
            printf("  input %u differs\n", i);
            inputs_equal = 0;
        }
    CHECK(inputs_equal);
    free(inputs), free(aux), free(expect);

    uint64_t first = 0;
    CHECK(check_satisfied(&s.g, &c1, &first));

    if (tamper) {
        /* each change must break some constraint */
        struct {
            const char *what;
            uint8_t *byte;
        } edits[] = {
            {"a tree-C sibling of DRG parent 3",
             c1.doms[cz_c1_elems(&c1, c1.challenges[0].drg_parents[3].proof.base)[0].hashes.first]},
            /* layer 1 of an expander parent: read by the layer-2 label */
            {"row 1 of expander parent 5",
             c1.doms[c1.challenges[challenges - 1].exp_parents[5].rows.first]},
            {"the data leaf", c1.challenges[0].comm_d_proof.leaf},
            {"a tree-D sibling",
             c1.doms[cz_c1_elems(&c1, c1.challenges[0].comm_d_proof.base)[2].hashes.first]},
            {"a tree-R sibling",
             c1.doms[cz_c1_elems(&c1, c1.challenges[0].comm_r_last_proof.base)[0].hashes.first +
                     4]},
            {"comm_r", c1.comm_r},
        };
        for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
            uint8_t saved = edits[e].byte[0];
            edits[e].byte[0] ^= 1;
            int ok = check_satisfied(&s.g, &c1, &first);
            printf("  tampered %s: %s (constraint %llu)\n", edits[e].what,
                   ok ? "still satisfied" : "fails", (unsigned long long)first);
            CHECK(!ok);
            edits[e].byte[0] = saved;
        }
        /* a path index moved to a sibling's position */
        cz_c1_path_elem *pe =
            (cz_c1_path_elem *)&cz_c1_elems(&c1, c1.challenges[0].c_x.proof.base)[0];
        uint64_t saved_index = pe->index;
        pe->index = (pe->index + 1) % base;
        int ok = check_satisfied(&s.g, &c1, &first);
        printf("  tampered a tree-C path index: %s (constraint %llu)\n",
               ok ? "still satisfied" : "fails", (unsigned long long)first);
        CHECK(!ok);
        pe->index = saved_index;
        CHECK(check_satisfied(&s.g, &c1, &first));
    }
    cz_c1_free(&c1);
    sector_free(&s);
}

/* The stats back-end's densities and sizes against the prove back-end
 * (densities from evaluation, bellperson's eval_with_trackers) on a
 * witness, and the structure being the same with and without one. */
static void test_prove_densities(void) {
    sector s;
    sector_init(&s, 64, 8, 0, 0, 2); /* the 2 KiB geometry */
    cz_c1 c1;
    make_c1(&c1, &s);
    cz_cs *cs = cz_cs_prove_new();
    cz_error err = {0};
    uint64_t t0 = cz_now_ns();
    CHECK(cz_porep_synthesize(cs, &s.g, &c1, 0, &err) == CZ_OK);
    cz_prove_data pd;
    CHECK(cz_prove_finish(cs, &pd, &err) == CZ_OK);
    uint64_t t1 = cz_now_ns();
    cz_cs_destroy(cs);
    printf("2 KiB on the prove back-end: %llu constraints, %.2f s (peak RSS %llu MiB)\n",
           (unsigned long long)pd.num_constraints, (double)(t1 - t0) / 1e9,
           (unsigned long long)(cz_peak_rss_bytes() >> 20));
    cs = cz_cs_stats_new();
    CHECK(cz_porep_synthesize(cs, &s.g, NULL, 0, &err) == CZ_OK);
    cz_r1cs_stats st;
    CHECK(cz_stats_finish(cs, &st, &err) == CZ_OK);
    cz_cs_destroy(cs);
    CHECK(pd.num_inputs == st.num_inputs && pd.num_aux == st.num_aux);
    CHECK(pd.num_constraints == st.num_constraints);
    CHECK(bitmaps_equal(pd.a_aux_density, st.a_aux_density, st.num_aux));
    CHECK(bitmaps_equal(pd.b_input_density, st.b_input_density, st.num_inputs));
    CHECK(bitmaps_equal(pd.b_aux_density, st.b_aux_density, st.num_aux));
    /* every satisfied constraint: a * b = c (the input rows: a * 0 = 0) */
    int ok = 1;
    for (uint64_t j = 0; ok && j < pd.num_constraints; j++) {
        cz_fr ab;
        cz_fr_mul(&ab, &pd.a[j], &pd.b[j]);
        if (!cz_fr_equal(&ab, &pd.c[j])) ok = 0;
    }
    CHECK(ok);
    cz_r1cs_stats_free(&st);
    cz_prove_data_free(&pd);
    cz_c1_free(&c1);
    sector_free(&s);
}

/* C1 outputs of the synthetic generator (filecoin/porep/vanilla.h, written
 * separately; it passes the vanilla verification): the check back-end is
 * satisfied and the circuit's inputs equal the verifier's, with the
 * challenges derived from replica_id and seed (never from the proofs). */
static void test_generated_c1(uint32_t registered_proof) {
    cz_fc_gen_opts opts = {registered_proof, 7 + cz_test_rand64() % 1000, 1000, 1, -1, NULL};
    cz_c1 c1;
    cz_error err = {0};
    CHECK(cz_fc_gen_c1(&c1, &opts, &err) == CZ_OK);
    cz_fc_proof_info info;
    CHECK(cz_fc_proof_lookup(&info, registered_proof, NULL) == CZ_OK);
    cz_porep_geometry g;
    CHECK(cz_porep_geometry_from_sector(&g, &info.sector, NULL) == CZ_OK);
    cz_fc_graph graph;
    CHECK(cz_fc_graph_init(&graph, g.nodes, info.porep_id, info.api_version, NULL) == CZ_OK);
    uint64_t first = 0;
    int ok = check_satisfied(&g, &c1, &first);
    printf("generated C1 (%s, seed %llu): %s\n", info.name, (unsigned long long)opts.seed,
           ok ? "satisfied" : "NOT satisfied");
    CHECK(ok);
    cz_cs *cs = cz_cs_witness_new();
    CHECK(cz_porep_synthesize(cs, &g, &c1, 0, &err) == CZ_OK);
    cz_fr *inputs = NULL, *aux = NULL;
    uint32_t n_inputs = 0, n_aux = 0;
    CHECK(cz_witness_finish(cs, &inputs, &n_inputs, &aux, &n_aux, &err) == CZ_OK);
    cz_cs_destroy(cs);
    uint64_t challenges[64];
    CHECK(g.challenges <= 64);
    CHECK(cz_fc_porep_challenges(challenges, &c1, 0, &err) == CZ_OK);
    cz_fr *expect = calloc(cz_porep_num_inputs(&g), sizeof *expect);
    CHECK(cz_porep_public_inputs(expect, &g, &graph, c1.replica_id, c1.comm_d, c1.comm_r,
                                 challenges, &err) == CZ_OK);
    CHECK(n_inputs == cz_porep_num_inputs(&g));
    int equal = n_inputs == cz_porep_num_inputs(&g);
    for (uint32_t i = 1; equal && i < n_inputs; i++)
        equal = cz_fr_equal(&inputs[i], &expect[i - 1]);
    CHECK(equal);
    free(inputs), free(aux), free(expect);
    cz_c1_free(&c1);
}

static void test_refusals(void) {
    sector s;
    sector_init(&s, 64, 8, 0, 0, 2);
    cz_c1 c1;
    make_c1(&c1, &s);
    cz_error err = {0};
    cz_porep_geometry g;
    /* witness back-end without a witness */
    cz_cs *cs = cz_cs_check_new();
    CHECK(cz_porep_synthesize(cs, &s.g, NULL, 0, &err) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
    /* a c1 of another shape: 1 challenge per partition; 128 nodes, tree 8-2-0 */
    CHECK(cz_porep_geometry_make(&g, 64, 2, 1, 8, 0, 0, NULL) == CZ_OK);
    cs = cz_cs_count_new();
    CHECK(cz_porep_synthesize(cs, &g, &c1, 0, &err) == CZ_E_INVALID_ARG);
    printf("refused: %s\n", err.message);
    cz_cs_destroy(cs);
    CHECK(cz_porep_geometry_make(&g, 64, 2, 2, 8, 2, 0, NULL) ==
          CZ_E_INVALID_ARG); /* 64 != 8^k * 2 */
    CHECK(cz_porep_geometry_make(&g, 128, 2, 2, 8, 2, 0, NULL) == CZ_OK);
    cs = cz_cs_count_new();
    CHECK(cz_porep_synthesize(cs, &g, &c1, 0, &err) == CZ_E_INVALID_ARG);
    printf("refused: %s\n", err.message);
    cz_cs_destroy(cs);
    CHECK(cz_porep_geometry_make(&g, 64, 3, 2, 8, 0, 0, NULL) == CZ_E_INVALID_ARG);
    CHECK(cz_porep_geometry_make(&g, 48, 2, 2, 8, 0, 0, NULL) == CZ_E_INVALID_ARG);
    /* partition out of range */
    cs = cz_cs_count_new();
    CHECK(cz_porep_synthesize(cs, &s.g, &c1, 1, &err) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
    /* challenges disagreeing on comm_c */
    c1.challenges[1].c_x.proof.root[0] ^= 1;
    cs = cz_cs_count_new();
    CHECK(cz_porep_synthesize(cs, &s.g, &c1, 0, &err) == CZ_E_INVALID_ARG);
    printf("refused: %s\n", err.message);
    cz_cs_destroy(cs);
    c1.challenges[1].c_x.proof.root[0] ^= 1;
    /* a path element with a missing sibling */
    cz_c1_path_elem *pe = &c1.path_elems[c1.challenges[1].exp_parents[2].proof.base.first];
    pe->hashes.count--;
    cs = cz_cs_count_new();
    CHECK(cz_porep_synthesize(cs, &s.g, &c1, 0, &err) == CZ_E_INVALID_ARG);
    printf("refused: %s\n", err.message);
    cz_cs_destroy(cs);
    pe->hashes.count++;
    /* public inputs: a non-canonical comm_r, a challenge beyond the sector */
    cz_fr out[40];
    uint8_t bad[32];
    memset(bad, 0xff, 32);
    CHECK(cz_porep_public_inputs(out, &s.g, &s.graph, s.replica_id, c1.comm_d, bad, s.challenges,
                                 &err) == CZ_E_RANGE);
    uint64_t far[2] = {1, 64};
    CHECK(cz_porep_public_inputs(out, &s.g, &s.graph, s.replica_id, c1.comm_d, c1.comm_r, far,
                                 &err) == CZ_E_RANGE);
    cz_c1_free(&c1);
    sector_free(&s);
}

/* -------------------------------------------- the parallel witness */

/* The sequential witness back-end's assignment (the reference), or the
 * prove back-end's (it builds every linear combination, so it checks that
 * the gadgets' witness-only shortcuts compute the same values). */
static void reference_witness(cz_witness *out, const cz_porep_geometry *g, const cz_c1 *c1,
                              uint32_t partition, int prove) {
    memset(out, 0, sizeof *out);
    cz_error err = {0};
    if (prove) {
        cz_cs *cs = cz_cs_prove_new();
        CHECK(cz_porep_synthesize(cs, g, c1, partition, &err) == CZ_OK);
        cz_prove_data pd;
        CHECK(cz_prove_finish(cs, &pd, &err) == CZ_OK);
        cz_cs_destroy(cs);
        out->num_inputs = pd.num_inputs, out->num_aux = pd.num_aux;
        out->input = pd.input_assignment, out->aux = pd.aux_assignment;
        pd.input_assignment = pd.aux_assignment = NULL;
        cz_prove_data_free(&pd);
    } else {
        cz_cs *cs = cz_cs_witness_new();
        CHECK(cz_porep_synthesize(cs, g, c1, partition, &err) == CZ_OK);
        CHECK(cz_witness_finish(cs, &out->input, &out->num_inputs, &out->aux, &out->num_aux,
                                &err) == CZ_OK);
        cz_cs_destroy(cs);
    }
    out->input_cap = out->num_inputs, out->aux_cap = out->num_aux;
}

/* Byte for byte (Montgomery form). */
static int witness_equal(const cz_witness *a, const cz_witness *b) {
    if (a->num_inputs != b->num_inputs || a->num_aux != b->num_aux) {
        printf("  sizes differ: %u / %u inputs, %u / %u aux\n", a->num_inputs, b->num_inputs,
               a->num_aux, b->num_aux);
        return 0;
    }
    if (memcmp(a->input, b->input, (size_t)a->num_inputs * sizeof(cz_fr))) {
        printf("  inputs differ\n");
        return 0;
    }
    for (uint32_t v = 0; v < a->num_aux; v++)
        if (memcmp(&a->aux[v], &b->aux[v], sizeof(cz_fr))) {
            printf("  aux %u differs (first)\n", v);
            return 0;
        }
    return 1;
}

/* Stale contents: every element of w's buffers set to garbage. */
static void scribble(cz_witness *w) {
    if (w->input) memset(w->input, 0xa5, w->input_cap * sizeof(cz_fr));
    if (w->aux) memset(w->aux, 0x5a, w->aux_cap * sizeof(cz_fr));
}

/* Every partition of c1 on 1, 2, 3 and 7 threads against the sequential
 * back-end (and, with prove, the prove back-end), into one reused and
 * scribbled-over cz_witness. */
static void check_parallel(const char *name, const cz_porep_geometry *g, const cz_c1 *c1,
                           int prove) {
    static const unsigned thread_counts[] = {1, 2, 3, 7};
    cz_witness w = {0};
    cz_error err = {0};
    for (uint32_t k = 0; k < c1->partitions; k++) {
        cz_witness ref;
        reference_witness(&ref, g, c1, k, 0);
        if (prove) {
            cz_witness pr;
            reference_witness(&pr, g, c1, k, 1);
            CHECK(witness_equal(&ref, &pr));
            cz_witness_free(&pr);
        }
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            scribble(&w);
            cz_status st = cz_porep_synthesize_witness(&w, g, c1, k, thread_counts[t], &err);
            if (st != CZ_OK) printf("  %s\n", err.message);
            CHECK(st == CZ_OK);
            int equal = witness_equal(&w, &ref);
            printf("parallel witness %s, partition %u, %u thread%s: %u inputs, %u aux, %s\n", name,
                   k, thread_counts[t], thread_counts[t] == 1 ? "" : "s", w.num_inputs, w.num_aux,
                   equal ? "equal to the sequential back-end's" : "DIFFERENT");
            CHECK(equal);
        }
        cz_witness_free(&ref);
    }
    cz_witness_free(&w);
}

static void test_parallel_hand_built(uint64_t nodes, uint32_t layers, unsigned base, unsigned sub,
                                     unsigned top, uint32_t challenges, int prove) {
    sector s;
    sector_init_layers(&s, nodes, layers, base, sub, top, challenges);
    cz_c1 c1;
    make_c1(&c1, &s);
    char name[96];
    snprintf(name, sizeof name, "%llu nodes %u layers %u-%u-%u %u challenges",
             (unsigned long long)nodes, layers, base, sub, top, challenges);
    check_parallel(name, &s.g, &c1, prove);
    cz_c1_free(&c1);
    sector_free(&s);
}

static void test_parallel_generated(uint32_t registered_proof, int sparse, int prove) {
    cz_fc_gen_opts opts = {registered_proof, 11 + cz_test_rand64() % 1000, 1000, 1, sparse, NULL};
    cz_c1 c1;
    cz_error err = {0};
    CHECK(cz_fc_gen_c1(&c1, &opts, &err) == CZ_OK);
    cz_porep_geometry g;
    CHECK(cz_porep_geometry_of_c1(&g, &c1, &err) == CZ_OK);
    cz_fc_proof_info info;
    CHECK(cz_fc_proof_lookup(&info, registered_proof, NULL) == CZ_OK);
    char name[96];
    snprintf(name, sizeof name, "generated %s (seed %llu)", info.name,
             (unsigned long long)opts.seed);
    check_parallel(name, &g, &c1, prove);
    cz_c1_free(&c1);
}

/* Reuse across geometries (a bigger unit grows the buffers, a smaller one
 * reuses them), wrong layouts and tampered C1s refused with a message. */
static void test_parallel_refusals(void) {
    sector s;
    sector_init(&s, 64, 8, 0, 0, 3);
    cz_c1 c1;
    make_c1(&c1, &s);
    cz_error err = {0};
    cz_witness ref, w = {0};
    reference_witness(&ref, &s.g, &c1, 0, 0);

    /* a smaller circuit first (1 challenge of 8-0-0), then this one, then the smaller again */
    sector small;
    sector_init(&small, 8, 8, 0, 0, 1);
    cz_c1 small_c1;
    make_c1(&small_c1, &small);
    cz_witness small_ref;
    reference_witness(&small_ref, &small.g, &small_c1, 0, 0);
    CHECK(cz_porep_synthesize_witness(&w, &small.g, &small_c1, 0, 2, &err) == CZ_OK);
    CHECK(witness_equal(&w, &small_ref));
    CHECK(cz_porep_synthesize_witness(&w, &s.g, &c1, 0, 2, &err) == CZ_OK);
    CHECK(witness_equal(&w, &ref));
    cz_fr *kept = w.aux;
    CHECK(cz_porep_synthesize_witness(&w, &small.g, &small_c1, 0, 3, &err) == CZ_OK);
    CHECK(witness_equal(&w, &small_ref));
    CHECK(w.aux == kept); /* reused, not reallocated */
    printf("parallel witness: reused across circuits of %u and %u aux\n", small_ref.num_aux,
           ref.num_aux);

    /* wrong layouts: a challenge window one aux short (overrun), one too
     * long (shortfall), inputs one short, the block one aux long */
    cz_porep_layout good, bad;
    const uint32_t zero = 0;
    CHECK(cz_porep_layout_make(&good, &s.g, &err) == CZ_OK);
    CHECK(good.num_aux == ref.num_aux && good.num_inputs == ref.num_inputs);
    CHECK(good.challenge_inputs == 18 && good.top_inputs == 4);
    struct {
        const char *what;
        int64_t d_top_aux, d_ch_aux, d_ch_inputs;
        cz_status want;
    } cases[] = {
        {"challenge window one aux short", 0, -1, 0, CZ_E_RANGE},
        {"challenge window one aux long", 0, 1, 0, CZ_E_INTERNAL},
        {"challenge window one input short", 0, 0, -1, CZ_E_RANGE},
        {"block one aux long", 1, 0, 0, CZ_E_INTERNAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bad = good;
        bad.top_aux = (uint32_t)(bad.top_aux + cases[i].d_top_aux);
        bad.challenge_aux = (uint32_t)(bad.challenge_aux + cases[i].d_ch_aux);
        bad.challenge_inputs = (uint32_t)(bad.challenge_inputs + cases[i].d_ch_inputs);
        bad.num_aux = bad.top_aux + bad.challenge_aux * bad.challenges;
        bad.num_inputs = bad.top_inputs + bad.challenge_inputs * bad.challenges;
        cz_status st = cz_porep_synthesize_witnesses(&w, 1, &s.g, &bad, &c1, &zero, 2, &err);
        printf("  %s: %s (%s)\n", cases[i].what, cz_status_name(st), err.message);
        CHECK(st == cases[i].want);
        CHECK(w.num_aux == 0 && w.num_inputs == 0);
        CHECK(strstr(err.message, i == 3 ? "block" : "challenge 0") != NULL);
    }
    bad = good;
    bad.num_aux++; /* sizes that do not add up */
    CHECK(cz_porep_synthesize_witnesses(&w, 1, &s.g, &bad, &c1, &zero, 2, &err) ==
          CZ_E_INVALID_ARG);

    /* a tampered C1: a non-canonical tree-R sibling in challenge 2 (its
     * window fails, named), and a sibling missing (refused before
     * anything is synthesized) */
    uint8_t *sib =
        c1.doms[cz_c1_elems(&c1, c1.challenges[2].comm_r_last_proof.base)[0].hashes.first];
    uint8_t saved[32];
    memcpy(saved, sib, 32);
    memset(sib, 0xff, 32);
    cz_status st = cz_porep_synthesize_witness(&w, &s.g, &c1, 0, 3, &err);
    printf("  non-canonical sibling: %s (%s)\n", cz_status_name(st), err.message);
    CHECK(st == CZ_E_RANGE && strstr(err.message, "challenge 2") != NULL);
    memcpy(sib, saved, 32);
    cz_c1_path_elem *pe = &c1.path_elems[c1.challenges[1].drg_parents[4].proof.base.first];
    pe->hashes.count--;
    st = cz_porep_synthesize_witness(&w, &s.g, &c1, 0, 3, &err);
    printf("  missing sibling: %s (%s)\n", cz_status_name(st), err.message);
    CHECK(st == CZ_E_INVALID_ARG);
    pe->hashes.count++;
    /* and the same buffer still gives the right answer */
    CHECK(cz_porep_synthesize_witness(&w, &s.g, &c1, 0, 3, &err) == CZ_OK);
    CHECK(witness_equal(&w, &ref));

    cz_witness_free(&w);
    cz_witness_free(&ref);
    cz_witness_free(&small_ref);
    cz_c1_free(&small_c1);
    cz_c1_free(&c1);
    sector_free(&small);
    sector_free(&s);
}

/* Several partitions in one call (one pool of threads over all their
 * challenges): a hand-built sector of 6 challenges cut into 3 partitions
 * of 2, each against the sequential back-end, also in a stale, reversed
 * order; one partition's failure is reported as that partition's. */
static void test_parallel_batch(void) {
    sector s;
    sector_init(&s, 64, 8, 0, 0, 6);
    cz_c1 c1;
    make_c1(&c1, &s);
    c1.partitions = 3;
    c1.challenges_per_partition = 2;
    cz_porep_geometry g;
    CHECK(cz_porep_geometry_make(&g, 64, 2, 2, 8, 0, 0, NULL) == CZ_OK);
    cz_error err = {0};
    cz_witness ref[3], w[3];
    memset(w, 0, sizeof w);
    for (uint32_t k = 0; k < 3; k++) reference_witness(&ref[k], &g, &c1, k, 0);
    const uint32_t order[2][3] = {{0, 1, 2}, {2, 1, 0}};
    for (int o = 0; o < 2; o++) {
        for (int k = 0; k < 3; k++) scribble(&w[k]);
        CHECK(cz_porep_synthesize_witnesses(w, 3, &g, NULL, &c1, order[o], 4, &err) == CZ_OK);
        int equal = 1;
        for (int k = 0; k < 3; k++) equal &= witness_equal(&w[k], &ref[order[o][k]]);
        printf("parallel witness, partitions %u %u %u in one call on 4 threads: %s\n", order[o][0],
               order[o][1], order[o][2], equal ? "equal" : "DIFFERENT");
        CHECK(equal);
    }
    /* the partitions differ (else the comparison above proves little) */
    CHECK(memcmp(ref[0].aux, ref[1].aux, (size_t)ref[0].num_aux * sizeof(cz_fr)) != 0);
    /* a non-canonical data leaf in partition 1's second challenge */
    uint8_t *leaf = c1.challenges[3].comm_d_proof.leaf, saved = leaf[31];
    leaf[31] = 0xff;
    cz_status st = cz_porep_synthesize_witnesses(w, 3, &g, NULL, &c1, order[0], 4, &err);
    printf("  tampered partition 1: %s (%s)\n", cz_status_name(st), err.message);
    CHECK(st == CZ_E_RANGE && strstr(err.message, "partition 1 challenge 1") != NULL);
    CHECK(w[0].num_aux == 0 && w[2].num_aux == 0);
    leaf[31] = saved;
    for (int k = 0; k < 3; k++) cz_witness_free(&w[k]), cz_witness_free(&ref[k]);
    cz_c1_free(&c1);
    sector_free(&s);
}

/* 32 GiB (CZ_SLOW_TESTS=1): one partition of a sparse C1, 2 threads, against
 * the sequential back-end (8 GiB of witnesses). */
static void test_parallel_32g(void) {
    const char *slow = getenv("CZ_SLOW_TESTS");
    if (!slow || strcmp(slow, "1")) {
        printf("parallel witness 32 GiB: skipped (set CZ_SLOW_TESTS=1)\n");
        return;
    }
    cz_fc_gen_opts opts = {8, 3, 1000, 1, -1, NULL}; /* StackedDrg32GiBV1_1, sparse */
    cz_c1 c1;
    cz_error err = {0};
    CHECK(cz_fc_gen_c1(&c1, &opts, &err) == CZ_OK);
    cz_porep_geometry g;
    CHECK(cz_porep_geometry_of_c1(&g, &c1, &err) == CZ_OK);
    uint32_t k = c1.partitions - 1;
    cz_witness ref, w = {0};
    reference_witness(&ref, &g, &c1, k, 0);
    CHECK(cz_porep_synthesize_witness(&w, &g, &c1, k, 2, &err) == CZ_OK);
    int equal = witness_equal(&w, &ref);
    printf("parallel witness 32 GiB partition %u: %u aux, %s\n", k, w.num_aux,
           equal ? "equal" : "DIFFERENT");
    CHECK(equal);
    cz_witness_free(&w);
    cz_witness_free(&ref);
    cz_c1_free(&c1);
}

int main(void) {
    cz_test_init("porep_circuit");
    test_test_shapes();
    test_sector_sizes();
    test_stats_vs_record();
    test_witness(64, 8, 0, 0, 2, 1); /* 2 KiB geometry */
    test_witness(64, 8, 4, 2, 1, 0); /* sub and top levels */
    test_prove_densities();
    test_generated_c1(5); /* 2 KiB V1_1: a whole-sector seal */
    test_generated_c1(0); /* 2 KiB V1 (the legacy graph) */
    test_generated_c1(7); /* 512 MiB V1_1: a sparse sector */
    test_refusals();
    /* the parallel witness: the 2 KiB geometry with 7 challenges, the
     * stacked_circuit 8-4-2 shape with 4 (prove back-end too), 11 layers, the
     * generated 2 KiB (V1_1 and V1) and sparse 8 MiB / 512 MiB C1s */
    test_parallel_hand_built(64, 2, 8, 0, 0, 7, 0);
    test_parallel_hand_built(64, 2, 8, 4, 2, 4, 1);
    test_parallel_hand_built(64, 11, 8, 4, 2, 3, 0);
    test_parallel_generated(5, -1, 1);
    test_parallel_generated(0, -1, 0);
    test_parallel_generated(6, 1, 0);
    test_parallel_generated(7, -1, 0);
    test_parallel_refusals();
    test_parallel_batch();
    test_large_sizes();
    test_parallel_32g();
    return cz_test_finish("porep_circuit");
}
