/* Synthetic C1 generation (vanilla.h cz_fc_gen_c1): a whole-sector seal for
 * small sizes and a sparse sector for large ones (src/filecoin/README.md
 * says exactly how a sparse sector differs from a real one).
 *
 * Both modes share one representation: a label/data lookup (dense arrays,
 * or a sorted list of "special" nodes with real labels and per-layer default
 * labels everywhere else) and sparse Merkle trees that store only the nodes
 * that differ from their level's default value (a whole-sector tree simply
 * stores every node). Proofs are then read from those trees exactly as
 * rust-fil-proofs' prove_layers builds them (stacked/vanilla/proof.rs). */
#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "filecoin/common/derive.h"
#include "filecoin/porep/vanilla.h"
#include "hash/poseidon.h"
#include "util/check.h"
#include "util/parallel.h"

#define MAX_LEVELS 64
#define MAX_LAYERS 11

/* ------------------------------------------------------- sparse trees */

typedef struct {
    uint64_t index;
    cz_c1_dom value;
} sp_entry;

typedef struct {
    int sha;                       /* tree D: binary SHA-256; else Poseidon */
    unsigned levels;               /* hashing levels */
    unsigned base_levels;          /* levels of the base trees (rest: sub, top) */
    unsigned arity[MAX_LEVELS];    /* arity of the nodes hashed from level l */
    sp_entry *lv[MAX_LEVELS + 1];  /* level l's non-default nodes, sorted by index */
    size_t n[MAX_LEVELS + 1];      /* entries of lv[l] */
    cz_c1_dom def[MAX_LEVELS + 1]; /* value of every node of level l not in lv[l] */
} sp_tree;

static cz_status node_hash(uint8_t out[32], const cz_c1_dom *children, unsigned arity, int sha) {
    if (sha) {
        cz_fc_sha256_node(out, children[0], children[1]);
        return CZ_OK;
    }
    cz_fr in[8], h;
    for (unsigned c = 0; c < arity; c++)
        if (!cz_fr_from_bytes_le(&in[c], children[c])) return CZ_E_RANGE;
    cz_status st = cz_poseidon_hash(&h, in, arity);
    if (st != CZ_OK) return st;
    cz_fr_to_bytes_le(out, &h);
    return CZ_OK;
}

static void sp_free(sp_tree *t) {
    for (unsigned l = 0; l <= MAX_LEVELS; l++) free(t->lv[l]);
    memset(t, 0, sizeof *t);
}

typedef struct {
    const sp_tree *t;
    unsigned level;
    const size_t *group_start; /* ngroups + 1 offsets into lv[level] */
    sp_entry *out;
    volatile int failed;
} level_job;

static void hash_groups(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    level_job *job = ctx;
    const sp_tree *t = job->t;
    unsigned l = job->level, a = t->arity[l];
    const sp_entry *in = t->lv[l];
    for (size_t g = begin; g < end; g++) {
        cz_c1_dom children[8];
        for (unsigned c = 0; c < a; c++) memcpy(children[c], t->def[l], 32);
        uint64_t parent = in[job->group_start[g]].index / a;
        for (size_t e = job->group_start[g]; e < job->group_start[g + 1]; e++)
            memcpy(children[in[e].index % a], in[e].value, 32);
        job->out[g].index = parent;
        if (node_hash(job->out[g].value, children, a, t->sha) != CZ_OK) job->failed = 1;
    }
}

/* Builds every level above the leaves. On entry lv[0] (sorted, unique)
 * and def[0] are set. */
static cz_status sp_build(sp_tree *t, cz_error *err) {
    for (unsigned l = 0; l < t->levels; l++) {
        cz_c1_dom children[8];
        for (unsigned c = 0; c < t->arity[l]; c++) memcpy(children[c], t->def[l], 32);
        if (node_hash(t->def[l + 1], children, t->arity[l], t->sha) != CZ_OK)
            return cz_error_set(err, CZ_E_INTERNAL, "tree: default node hash failed");
        size_t groups = 0;
        for (size_t e = 0; e < t->n[l]; e++)
            if (e == 0 || t->lv[l][e].index / t->arity[l] != t->lv[l][e - 1].index / t->arity[l])
                groups++;
        size_t *start = malloc(sizeof *start * (groups + 1));
        t->lv[l + 1] = malloc(sizeof(sp_entry) * (groups ? groups : 1));
        if (!start || !t->lv[l + 1]) {
            free(start);
            return cz_error_set(err, CZ_E_NOMEM, "tree: out of memory");
        }
        size_t g = 0;
        for (size_t e = 0; e < t->n[l]; e++)
            if (e == 0 || t->lv[l][e].index / t->arity[l] != t->lv[l][e - 1].index / t->arity[l])
                start[g++] = e;
        start[groups] = t->n[l];
        level_job job = {t, l, start, t->lv[l + 1], 0};
        if (groups > 64)
            cz_parallel_for(groups, 0, hash_groups, &job);
        else
            hash_groups(&job, 0, groups, 0);
        free(start);
        t->n[l + 1] = groups;
        if (job.failed) return cz_error_set(err, CZ_E_INTERNAL, "tree: node hash failed");
    }
    return CZ_OK;
}

static const uint8_t *sp_get(const sp_tree *t, unsigned l, uint64_t index) {
    const sp_entry *a = t->lv[l];
    size_t lo = 0, hi = t->n[l];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n[l] && a[lo].index == index ? a[lo].value : t->def[l];
}

static const uint8_t *sp_root(const sp_tree *t) {
    return sp_get(t, t->levels, 0);
}

/* ------------------------------------------------------ the sector */

typedef struct {
    int sparse;
    uint64_t nodes;
    uint32_t layers;
    uint8_t replica_id[32];
    /* whole sector */
    cz_c1_dom *labels; /* label of layer l (1-based), node v at [(l - 1) * nodes + v] */
    cz_c1_dom *data;   /* nodes */
    /* sparse */
    uint64_t *special; /* sorted, unique */
    size_t n_special;
    cz_c1_dom *special_labels; /* [i * layers + l - 1] */
    cz_c1_dom default_label[MAX_LAYERS];
} sector;

static const uint8_t zero_dom[32];

static size_t find_special(const sector *s, uint64_t v) {
    size_t lo = 0, hi = s->n_special;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->special[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_special && s->special[lo] == v ? lo : SIZE_MAX;
}

static const uint8_t *label_at(const sector *s, uint32_t layer, uint64_t v) {
    if (!s->sparse) return s->labels[(size_t)(layer - 1) * s->nodes + v];
    size_t i = find_special(s, v);
    return i == SIZE_MAX ? s->default_label[layer - 1]
                         : s->special_labels[i * s->layers + layer - 1];
}

static const uint8_t *data_at(const sector *s, uint64_t v) {
    return s->sparse ? zero_dom : s->data[v];
}

/* The 37 hashed parents of node v's label on `layer`, from the sector's
 * current labels (create_label / create_label_exp). */
static void label_parents(cz_c1_dom out[CZ_FC_LABEL_PARENTS], const sector *s,
                          const uint32_t parents[CZ_FC_PARENTS], uint32_t layer) {
    cz_c1_dom p[CZ_FC_PARENTS];
    unsigned n = layer == 1 ? CZ_FC_DRG_DEGREE : CZ_FC_PARENTS;
    for (unsigned j = 0; j < n; j++)
        memcpy(p[j], label_at(s, j < CZ_FC_DRG_DEGREE ? layer : layer - 1, parents[j]), 32);
    cz_fc_label_parents_expand(out, p, n);
}

static void compute_label(uint8_t out[32], const sector *s, const uint32_t parents[CZ_FC_PARENTS],
                          uint32_t layer, uint64_t v) {
    if (v == 0) {
        cz_fc_label(out, s->replica_id, layer, 0, NULL, 0);
        return;
    }
    cz_c1_dom expanded[CZ_FC_LABEL_PARENTS];
    label_parents(expanded, s, parents, layer);
    cz_fc_label(out, s->replica_id, layer, v, expanded, CZ_FC_LABEL_PARENTS);
}

static void sector_free(sector *s) {
    free(s->labels);
    free(s->data);
    free(s->special);
    free(s->special_labels);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------- parallel helpers */

typedef struct {
    const cz_fc_graph *g;
    uint32_t *parents; /* nodes * 14 */
} parents_job;

static void parents_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    parents_job *job = ctx;
    for (size_t v = begin; v < end; v++) {
        cz_fc_graph_drg_parents(job->parents + v * CZ_FC_PARENTS, job->g, (uint32_t)v);
        cz_fc_graph_exp_parents(job->parents + v * CZ_FC_PARENTS + CZ_FC_DRG_DEGREE, job->g,
                                (uint32_t)v);
    }
}

typedef struct {
    const sector *s;
    const uint64_t *nodes; /* NULL: node = position */
    sp_entry *tree_c, *tree_r;
    volatile int failed;
} leaves_job;

/* Tree C leaf (column hash) and tree R leaf (label_L + data) of nodes. */
static void leaves_range(void *ctx, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    leaves_job *job = ctx;
    const sector *s = job->s;
    for (size_t i = begin; i < end; i++) {
        uint64_t v = job->nodes ? job->nodes[i] : i;
        cz_c1_dom rows[MAX_LAYERS];
        for (uint32_t l = 1; l <= s->layers; l++) memcpy(rows[l - 1], label_at(s, l, v), 32);
        job->tree_c[i].index = v;
        job->tree_r[i].index = v;
        if (cz_fc_column_hash(job->tree_c[i].value, rows, s->layers, NULL) != CZ_OK)
            job->failed = 1;
        cz_fr key, d, r;
        if (!cz_fr_from_bytes_le(&key, rows[s->layers - 1]) ||
            !cz_fr_from_bytes_le(&d, data_at(s, v)))
            job->failed = 1;
        cz_fr_add(&r, &key, &d);
        cz_fr_to_bytes_le(job->tree_r[i].value, &r);
    }
}

/* ------------------------------------------------------ randomness */

/* Deterministic 32-byte values from the generator seed:
 * fr32_mask(SHA256("cuzk gen " tag || seed u64 LE || index u64 LE)). */
static void derive_dom(uint8_t out[32], const char *tag, uint64_t seed, uint64_t index) {
    uint8_t buf[64];
    size_t n = strlen(tag);
    memcpy(buf, "cuzk gen ", 9);
    memcpy(buf + 9, tag, n);
    for (int i = 0; i < 8; i++) buf[9 + n + i] = (uint8_t)(seed >> (8 * i));
    for (int i = 0; i < 8; i++) buf[17 + n + i] = (uint8_t)(index >> (8 * i));
    cz_fc_sha256(out, buf, 25 + n);
    cz_fc_fr32_mask(out);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double secs_since(uint64_t t0) {
    return (double)(cz_now_ns() - t0) / 1e9;
}

#define PROGRESS(opts, ...)                                                                        \
    do {                                                                                           \
        if ((opts)->progress) {                                                                    \
            fprintf((opts)->progress, __VA_ARGS__);                                                \
            fflush((opts)->progress);                                                              \
        }                                                                                          \
    } while (0)

/* --------------------------------------------------------- proofs */

typedef struct {
    cz_c1 *c1;
    const sp_tree *tree_d, *tree_c, *tree_r;
    const sector *s;
    const cz_fc_graph *g;
} proof_ctx;

/* Merkle proof of leaf `index` (pools were sized in advance: pointers stay
 * valid). Sub/top levels are the tree's last one or two levels. */
static void fill_merkle(cz_c1_merkle *m, cz_c1 *c1, const sp_tree *t, uint64_t index,
                        cz_c1_tree_kind kind) {
    m->kind = kind;
    memcpy(m->leaf, sp_get(t, 0, index), 32);
    memcpy(m->root, sp_root(t), 32);
    cz_c1_span *parts[3] = {&m->base, &m->sub, &m->top};
    for (int p = 0; p < 3; p++) *parts[p] = (cz_c1_span){(uint32_t)c1->n_path_elems, 0};
    uint64_t i = index;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l], pos = (unsigned)(i % a);
        uint64_t group = i / a;
        int part = l < t->base_levels ? 0 : l == t->base_levels ? 1 : 2;
        if (parts[part]->count == 0) parts[part]->first = (uint32_t)c1->n_path_elems;
        parts[part]->count++;
        cz_c1_path_elem *e = &c1->path_elems[c1->n_path_elems++];
        e->index = pos;
        e->hashes = (cz_c1_span){(uint32_t)c1->n_doms, a - 1};
        for (unsigned c = 0; c < a; c++)
            if (c != pos) memcpy(c1->doms[c1->n_doms++], sp_get(t, l, group * a + c), 32);
        i = group;
    }
}

static void fill_column(proof_ctx *x, cz_c1_column_proof *col, uint64_t v) {
    cz_c1 *c1 = x->c1;
    col->index = (uint32_t)v;
    col->rows = (cz_c1_span){(uint32_t)c1->n_doms, x->s->layers};
    for (uint32_t l = 1; l <= x->s->layers; l++)
        memcpy(c1->doms[c1->n_doms++], label_at(x->s, l, v), 32);
    fill_merkle(&col->proof, c1, x->tree_c, v, c1->tree_r_kind);
}

static void fill_challenge(proof_ctx *x, cz_c1_challenge *ch, uint64_t c) {
    cz_c1 *c1 = x->c1;
    const sector *s = x->s;
    fill_merkle(&ch->comm_d_proof, c1, x->tree_d, c, CZ_C1_SINGLE);
    fill_merkle(&ch->comm_r_last_proof, c1, x->tree_r, c, c1->tree_r_kind);
    fill_column(x, &ch->c_x, c);
    uint32_t parents[CZ_FC_PARENTS];
    cz_fc_graph_drg_parents(parents, x->g, (uint32_t)c);
    cz_fc_graph_exp_parents(parents + CZ_FC_DRG_DEGREE, x->g, (uint32_t)c);
    for (int j = 0; j < CZ_FC_DRG_DEGREE; j++) fill_column(x, &ch->drg_parents[j], parents[j]);
    for (int j = 0; j < CZ_FC_EXP_DEGREE; j++)
        fill_column(x, &ch->exp_parents[j], parents[CZ_FC_DRG_DEGREE + j]);
    /* Labeling proofs of layers 1..L (layer_index 1-based), then the
     * encoding proof: a copy of the last one (proof.rs prove_layers). */
    ch->labeling = (cz_c1_span){(uint32_t)c1->n_labeling, s->layers};
    for (uint32_t l = 1; l <= s->layers; l++) {
        cz_c1_labeling_proof *lp = &c1->labeling[c1->n_labeling++];
        lp->layer_index = l;
        lp->node = c;
        lp->parents = (cz_c1_span){(uint32_t)c1->n_doms, CZ_FC_LABEL_PARENTS};
        label_parents(&c1->doms[c1->n_doms], s, parents, l);
        c1->n_doms += CZ_FC_LABEL_PARENTS;
        if (l == s->layers) {
            ch->encoding.layer_index = l;
            ch->encoding.node = c;
            ch->encoding.parents = (cz_c1_span){(uint32_t)c1->n_doms, CZ_FC_LABEL_PARENTS};
            memcpy(&c1->doms[c1->n_doms], &c1->doms[lp->parents.first],
                   CZ_FC_LABEL_PARENTS * sizeof(cz_c1_dom));
            c1->n_doms += CZ_FC_LABEL_PARENTS;
        }
    }
}

cz_status cz_fc_sdr_labels(cz_c1_dom *out, const cz_fc_graph *g, const uint8_t replica_id[32],
                           uint32_t layers, cz_error *err) {
    if (layers == 0 || layers > MAX_LAYERS)
        return cz_error_set(err, CZ_E_INVALID_ARG, "labels: %u layers", layers);
    const uint64_t nodes = g->nodes;
    uint32_t *parents = malloc(sizeof *parents * CZ_FC_PARENTS * nodes);
    if (!parents)
        return cz_error_set(err, CZ_E_NOMEM, "labels: out of memory for %llu nodes",
                            (unsigned long long)nodes);
    parents_job pj = {g, parents};
    cz_parallel_for(nodes, 0, parents_range, &pj);
    sector s;
    memset(&s, 0, sizeof s);
    s.nodes = nodes;
    s.layers = layers;
    s.labels = out;
    memcpy(s.replica_id, replica_id, 32);
    /* Layer by layer: node v reads nodes < v of its own layer (DRG) and the
     * previous layer (expander), so each layer is sequential. */
    for (uint32_t l = 1; l <= layers; l++)
        for (uint64_t v = 0; v < nodes; v++)
            compute_label(out[(size_t)(l - 1) * nodes + v], &s, parents + v * CZ_FC_PARENTS, l, v);
    free(parents);
    return CZ_OK;
}

/* ------------------------------------------------------- generation */

static void tree_shape(sp_tree *t, const cz_fc_sector_info *sec, int tree_d) {
    memset(t, 0, sizeof *t);
    if (tree_d) {
        t->sha = 1;
        t->levels = t->base_levels = sec->tree_d_depth;
        for (unsigned l = 0; l < t->levels; l++) t->arity[l] = 2;
        return;
    }
    uint64_t base_leaves = sec->nodes / (sec->tree_sub_arity ? sec->tree_sub_arity : 1) /
                           (sec->tree_top_arity ? sec->tree_top_arity : 1);
    unsigned base = 0;
    while ((UINT64_C(1) << (3 * base)) < base_leaves) base++; /* base arity 8 */
    t->base_levels = base;
    t->levels = base;
    for (unsigned l = 0; l < base; l++) t->arity[l] = sec->tree_base_arity;
    if (sec->tree_sub_arity) t->arity[t->levels++] = sec->tree_sub_arity;
    if (sec->tree_top_arity) t->arity[t->levels++] = sec->tree_top_arity;
}

cz_status cz_fc_gen_c1(cz_c1 *out, const cz_fc_gen_opts *opts, cz_error *err) {
    memset(out, 0, sizeof *out);
    cz_fc_proof_info info;
    cz_status st = cz_fc_proof_lookup(&info, opts->registered_proof, err);
    if (st != CZ_OK) return st;
    const cz_fc_sector_info *sec = &info.sector;
    if (sec->tree_base_arity != 8 || sec->layers > MAX_LAYERS)
        return CZ_BROKEN(err, "gen: unexpected geometry for %s", info.name);
    /* automatic: whole up to 8 MiB, sparse above, except synthetic ids */
    int sparse =
        opts->sparse < 0 ? !info.synthetic && sec->nodes > (UINT64_C(1) << 18) : opts->sparse != 0;
    if (info.synthetic && (sparse || sec->nodes > (UINT64_C(1) << 24)))
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "gen: %s: synthetic PoRep cannot use a sparse sector (its challenges "
                            "are drawn from comm_r, which depends on which nodes are sealed); "
                            "only a whole-sector seal works, up to 512 MiB",
                            info.name);
    if (!sparse && sec->nodes > (UINT64_C(1) << 24))
        return cz_error_set(err, CZ_E_UNSUPPORTED,
                            "gen: %s: a whole-sector seal is limited to 512 MiB; use a sparse "
                            "sector",
                            info.name);
    st = cz_poseidon_init();
    if (st != CZ_OK) return cz_error_set(err, st, "gen: Poseidon constants");
    uint64_t t0 = cz_now_ns();
    const uint64_t nodes = sec->nodes;
    const uint32_t layers = sec->layers;

    cz_c1 *c1 = out;
    c1->registered_proof = info.id;
    c1->registered_proof_name = info.name;
    c1->sector_size = sec->sector_size;
    c1->partitions = sec->partitions;
    c1->challenges_per_partition = sec->challenges_per_partition;
    c1->layers = layers;
    c1->tree_d_depth = sec->tree_d_depth;
    c1->tree_r_kind = !sec->tree_sub_arity   ? CZ_C1_SINGLE
                      : !sec->tree_top_arity ? CZ_C1_SUB
                                             : CZ_C1_TOP;
    derive_dom(c1->ticket, "ticket", opts->seed, 0);
    derive_dom(c1->seed, "seed", opts->seed, 0);
    if (c1->seed[0] == 0) c1->seed[0] = 1; /* the seed must be non-zero */

    sector s;
    memset(&s, 0, sizeof s);
    s.sparse = sparse;
    s.nodes = nodes;
    s.layers = layers;
    sp_tree tree_d, tree_c, tree_r;
    tree_shape(&tree_d, sec, 1);
    tree_shape(&tree_c, sec, 0);
    tree_shape(&tree_r, sec, 0);
    c1->tree_r_base_depth = tree_c.base_levels;
    c1->tree_r_base_siblings = sec->tree_base_arity - 1;
    c1->tree_r_sub_siblings = sec->tree_sub_arity ? sec->tree_sub_arity - 1 : 0;
    c1->tree_r_top_siblings = sec->tree_top_arity ? sec->tree_top_arity - 1 : 0;
    uint64_t *all_challenges = NULL;
    cz_fc_graph graph;
    size_t n_chal = (size_t)sec->partitions * sec->challenges_per_partition;
    uint8_t prover_id[32];
    cz_fc_prover_id(prover_id, opts->miner_id);

    st = cz_fc_graph_init(&graph, nodes, info.porep_id, info.api_version, err);
    if (st != CZ_OK) goto done;
    all_challenges = malloc(sizeof *all_challenges * n_chal);
    if (!all_challenges) {
        st = cz_error_set(err, CZ_E_NOMEM, "gen: out of memory");
        goto done;
    }
    PROGRESS(opts, "gen: %s, %s sector, %llu nodes, %u layers, %zu challenges\n", info.name,
             sparse ? "sparse" : "whole", (unsigned long long)nodes, layers, n_chal);

    /* Tree D over the data, comm_d, replica_id. */
    if (!sparse) {
        s.data = malloc(sizeof(cz_c1_dom) * nodes);
        tree_d.lv[0] = malloc(sizeof(sp_entry) * nodes);
        if (!s.data || !tree_d.lv[0]) {
            st = cz_error_set(err, CZ_E_NOMEM, "gen: out of memory for %llu nodes",
                              (unsigned long long)nodes);
            goto done;
        }
        for (uint64_t v = 0; v < nodes; v++) {
            derive_dom(s.data[v], "data", opts->seed, v);
            tree_d.lv[0][v].index = v;
            memcpy(tree_d.lv[0][v].value, s.data[v], 32);
        }
        tree_d.n[0] = nodes;
    } else {
        tree_d.lv[0] = malloc(sizeof(sp_entry)); /* all-zero data: no leaf differs */
        if (!tree_d.lv[0]) {
            st = cz_error_set(err, CZ_E_NOMEM, "gen: out of memory");
            goto done;
        }
    }
    if ((st = sp_build(&tree_d, err)) != CZ_OK) goto done;
    memcpy(c1->comm_d, sp_root(&tree_d), 32);
    cz_fc_replica_id(c1->replica_id, prover_id, opts->sector_num, c1->ticket, c1->comm_d,
                     info.porep_id);
    memcpy(s.replica_id, c1->replica_id, 32);
    PROGRESS(opts, "gen: tree D done (%.2f s)\n", secs_since(t0));

    size_t n_leaves;
    if (!sparse) {
        s.labels = malloc(sizeof(cz_c1_dom) * layers * nodes);
        if (!s.labels) {
            st = cz_error_set(err, CZ_E_NOMEM, "gen: out of memory for %llu nodes",
                              (unsigned long long)nodes);
            goto done;
        }
        if ((st = cz_fc_sdr_labels(s.labels, &graph, s.replica_id, layers, err)) != CZ_OK)
            goto done;
        PROGRESS(opts, "gen: labels of %u layers done (%.2f s)\n", layers, secs_since(t0));
        n_leaves = nodes;
    } else {
        /* Special nodes = the challenges (interactive: they depend only on
         * replica_id and seed). Every other node keeps the default label of
         * its layer: node 0's real label, SHA256(replica_id || layer ||
         * 0 || zeros) with no parents. */
        for (uint32_t k = 0; k < sec->partitions; k++) {
            st = cz_fc_porep_challenges(all_challenges + (size_t)k * sec->challenges_per_partition,
                                        c1, k, err);
            if (st != CZ_OK) goto done;
        }
        s.special = malloc(sizeof *s.special * n_chal);
        s.special_labels = malloc(sizeof(cz_c1_dom) * layers * n_chal);
        if (!s.special || !s.special_labels) {
            st = cz_error_set(err, CZ_E_NOMEM, "gen: out of memory");
            goto done;
        }
        memcpy(s.special, all_challenges, sizeof *s.special * n_chal);
        qsort(s.special, n_chal, sizeof *s.special, cmp_u64);
        size_t u = 0;
        for (size_t i = 0; i < n_chal; i++)
            if (i == 0 || s.special[i] != s.special[u - 1]) s.special[u++] = s.special[i];
        s.n_special = u;
        for (uint32_t l = 1; l <= layers; l++)
            cz_fc_label(s.default_label[l - 1], s.replica_id, l, 0, NULL, 0);
        /* Layers in order, nodes increasing: a special DRG parent (< v) or
         * expander parent (previous layer) already has its real label. */
        for (uint32_t l = 1; l <= layers; l++)
            for (size_t i = 0; i < s.n_special; i++) {
                uint32_t p[CZ_FC_PARENTS];
                cz_fc_graph_drg_parents(p, &graph, (uint32_t)s.special[i]);
                cz_fc_graph_exp_parents(p + CZ_FC_DRG_DEGREE, &graph, (uint32_t)s.special[i]);
                compute_label(s.special_labels[i * layers + l - 1], &s, p, l, s.special[i]);
            }
        n_leaves = s.n_special;
        PROGRESS(opts, "gen: labels of %zu special nodes done (%.2f s)\n", s.n_special,
                 secs_since(t0));
    }

    /* Trees C and R: leaves of every node (whole) or of the special nodes,
     * over per-level defaults from the default column / replica leaf. */
    tree_c.lv[0] = malloc(sizeof(sp_entry) * (n_leaves ? n_leaves : 1));
    tree_r.lv[0] = malloc(sizeof(sp_entry) * (n_leaves ? n_leaves : 1));
    if (!tree_c.lv[0] || !tree_r.lv[0]) {
        st = cz_error_set(err, CZ_E_NOMEM, "gen: out of memory");
        goto done;
    }
    {
        leaves_job lj = {&s, sparse ? s.special : NULL, tree_c.lv[0], tree_r.lv[0], 0};
        cz_parallel_for(n_leaves, 0, leaves_range, &lj);
        if (lj.failed) {
            st = cz_error_set(err, CZ_E_INTERNAL, "gen: leaf hash failed");
            goto done;
        }
        tree_c.n[0] = tree_r.n[0] = n_leaves;
        if (sparse) {
            /* default leaves: the column of default labels, label_L + 0 */
            st = cz_fc_column_hash(tree_c.def[0], s.default_label, layers, err);
            if (st != CZ_OK) goto done;
            memcpy(tree_r.def[0], s.default_label[layers - 1], 32);
        }
    }
    if ((st = sp_build(&tree_c, err)) != CZ_OK || (st = sp_build(&tree_r, err)) != CZ_OK) goto done;
    st = cz_fc_comm_r(c1->comm_r, sp_root(&tree_c), sp_root(&tree_r), err);
    if (st != CZ_OK) goto done;
    PROGRESS(opts, "gen: trees C and R done, comm_r known (%.2f s)\n", secs_since(t0));

    if (!sparse) /* synthetic challenges need comm_r */
        for (uint32_t k = 0; k < sec->partitions; k++) {
            st = cz_fc_porep_challenges(all_challenges + (size_t)k * sec->challenges_per_partition,
                                        c1, k, err);
            if (st != CZ_OK) goto done;
        }

    /* Pools, sized exactly so that pointers into them stay valid. */
    {
        size_t rc_sibs = 0;
        for (unsigned l = 0; l < tree_c.levels; l++) rc_sibs += tree_c.arity[l] - 1;
        size_t col_doms = layers + rc_sibs;
        size_t doms_per = tree_d.levels + rc_sibs + (1 + CZ_FC_PARENTS) * col_doms +
                          (layers + 1) * CZ_FC_LABEL_PARENTS;
        size_t elems_per = tree_d.levels + (size_t)tree_c.levels * (2 + CZ_FC_PARENTS);
        c1->cap_doms = doms_per * n_chal;
        c1->cap_path_elems = elems_per * n_chal;
        c1->cap_labeling = (size_t)layers * n_chal;
        c1->cap_challenges = n_chal;
        c1->doms = calloc(c1->cap_doms, sizeof *c1->doms);
        c1->path_elems = calloc(c1->cap_path_elems, sizeof *c1->path_elems);
        c1->labeling = calloc(c1->cap_labeling, sizeof *c1->labeling);
        c1->challenges = calloc(n_chal, sizeof *c1->challenges);
        if (!c1->doms || !c1->path_elems || !c1->labeling || !c1->challenges) {
            st = cz_error_set(err, CZ_E_NOMEM, "gen: out of memory for the proofs");
            goto done;
        }
        proof_ctx x = {c1, &tree_d, &tree_c, &tree_r, &s, &graph};
        for (size_t i = 0; i < n_chal; i++)
            fill_challenge(&x, &c1->challenges[i], all_challenges[i]);
        c1->n_challenges = n_chal;
        if (c1->n_doms != c1->cap_doms || c1->n_path_elems != c1->cap_path_elems ||
            c1->n_labeling != c1->cap_labeling) {
            st = CZ_BROKEN(err, "gen: proof pool sizes miscounted");
            goto done;
        }
    }
    PROGRESS(opts, "gen: %zu vanilla proofs built (%.2f s)\n", n_chal, secs_since(t0));

done:
    free(all_challenges);
    sector_free(&s);
    sp_free(&tree_d);
    sp_free(&tree_c);
    sp_free(&tree_r);
    if (st != CZ_OK) cz_c1_free(out);
    return st;
}
