/* Streaming parser of SealCommitPhase1Output JSON (see c1.h).
 *
 * A stack of frames mirrors the JSON nesting; each frame knows which schema
 * node it is (F_*), which keys it has seen and where its decoded data goes.
 * Invariant: a pointer stored in a frame (target) points into a pool that is
 * not grown while that frame is open (challenges grow only at the start of a
 * new Proof object, path_elems only at the start of a path element, labeling
 * only at the start of a labeling proof, doms only at the start of a domain),
 * except for DOM frames, whose target is re-derived from the pool index. */
#include "filecoin/porep/c1.h"
#include "filecoin/common/registry.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

typedef enum {
    F_TOP,
    F_VPWRAP,
    F_PARTS,
    F_CHALS,
    F_PROOF,
    F_MERKLE,
    F_MDATA,
    F_MBODY,
    F_IPATH,
    F_PATHARR,
    F_PELEM,
    F_DOMLIST,
    F_DOM,
    F_RCP,
    F_COLARR,
    F_COL,
    F_COLUMN,
    F_LABARR,
    F_LAB
} fkind;

/* Which tree a Merkle proof belongs to (inherited by nested frames). */
enum { TREE_NONE, TREE_D, TREE_RC };

typedef struct {
    fkind kind;
    int is_array;
    int tree;
    int part;       /* F_IPATH/F_PATHARR: 0 base, 1 sub, 2 top; F_COLARR: 0 drg, 1 exp */
    uint32_t count; /* arrays: elements started so far */
    int cur;        /* maps: id of the current key, -1 before the first */
    uint32_t seen;  /* maps: bitmask of key ids seen */
    char key[40];   /* maps: current key text, for error paths */
    void *target;
    size_t dom_index; /* F_DOM: index into doms, or SIZE_MAX for target */
} frame;

typedef struct {
    cz_c1 *c1;
    cz_error *err;
    int failed;
    cz_status status; /* set with failed */
    int depth;
    frame st[CZ_C1_MAX_DEPTH];
    uint64_t offset; /* bytes fed before the current chunk */
    /* Top-level extras. */
    char vp_size[48];
    int have_vp_size;
} parser;

/* ------------------------------------------------------------------ keys */

static const char *const top_keys[] = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                       "replica_id",       "seed",           "ticket"};
static const char *const proof_keys[] = {"comm_d_proofs", "comm_r_last_proof",
                                         "replica_column_proofs", "labeling_proofs",
                                         "encoding_proof"};
static const char *const merkle_keys[] = {"data"};
static const char *const mdata_keys[] = {"Single", "Sub", "Top"};
static const char *const mbody_keys[] = {"root",       "leaf",      "path",
                                         "base_proof", "sub_proof", "top_proof"};
static const char *const ipath_keys[] = {"path"};
static const char *const pelem_keys[] = {"hashes", "index"};
static const char *const rcp_keys[] = {"c_x", "drg_parents", "exp_parents"};
static const char *const col_keys[] = {"column", "inclusion_proof"};
static const char *const column_keys[] = {"index", "rows", "_h"};
static const char *const lab_keys[] = {"parents", "layer_index", "node"};

#define NKEYS(a) (int)(sizeof(a) / sizeof((a)[0]))

static int frame_keys(fkind k, const char *const **keys) {
    switch (k) {
    case F_TOP: *keys = top_keys; return NKEYS(top_keys);
    case F_PROOF: *keys = proof_keys; return NKEYS(proof_keys);
    case F_MERKLE: *keys = merkle_keys; return NKEYS(merkle_keys);
    case F_MDATA: *keys = mdata_keys; return NKEYS(mdata_keys);
    case F_MBODY: *keys = mbody_keys; return NKEYS(mbody_keys);
    case F_IPATH: *keys = ipath_keys; return NKEYS(ipath_keys);
    case F_PELEM: *keys = pelem_keys; return NKEYS(pelem_keys);
    case F_RCP: *keys = rcp_keys; return NKEYS(rcp_keys);
    case F_COL: *keys = col_keys; return NKEYS(col_keys);
    case F_COLUMN: *keys = column_keys; return NKEYS(column_keys);
    case F_LAB: *keys = lab_keys; return NKEYS(lab_keys);
    default: *keys = NULL; return 0;
    }
}

/* ------------------------------------------------------- registered proof */

int cz_c1_registered_proof_lookup(const char *name, size_t len, uint32_t *id,
                                  uint64_t *sector_size) {
    cz_fc_proof_info info;
    if (cz_fc_proof_lookup_by_name(&info, name, len, NULL) != CZ_OK) return 0;
    if (id) *id = info.id;
    if (sector_size) *sector_size = info.sector.sector_size;
    return 1;
}

/* ------------------------------------------------------------- errors */

static void format_path(const parser *p, int upto, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < upto && n + 1 < cap; i++) {
        const frame *f = &p->st[i];
        int w;
        if (f->is_array) {
            if (f->count == 0) break;
            w = snprintf(buf + n, cap - n, "[%u]", f->count - 1);
        } else {
            if (!f->key[0]) break;
            w = snprintf(buf + n, cap - n, "%s%s", n ? "." : "", f->key);
        }
        if (w < 0) break;
        n += (size_t)w;
        if (n >= cap) n = cap - 1;
    }
    if (!buf[0]) snprintf(buf, cap, "(root)");
}

/* Fails with a message prefixed by the JSON path: at_value = 1 names the
 * value being read in the top frame, 0 names the top frame itself. */
static int failv(parser *p, int at_value, cz_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int failv(parser *p, int at_value, cz_status st, const char *fmt, ...) {
    if (p->failed) return 0;
    p->failed = 1;
    p->status = st;
    char path[320], msg[256];
    format_path(p, at_value ? p->depth : p->depth - 1, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cz_error_set(p->err, st, "c1: %s: %s", path, msg);
    return 0;
}

/* ------------------------------------------------------------- pools */

#define POOL_PUSH(c1, arr, n, cap, out)                                                            \
    do {                                                                                           \
        if ((c1)->n == (c1)->cap) {                                                                \
            size_t nc = (c1)->cap ? (c1)->cap * 2 : 64;                                            \
            void *np = realloc((c1)->arr, nc * sizeof(*(c1)->arr));                                \
            if (!np) return failv(p, 1, CZ_E_NOMEM, "out of memory");                              \
            (c1)->arr = np;                                                                        \
            (c1)->cap = nc;                                                                        \
        }                                                                                          \
        if ((c1)->n >= UINT32_MAX) return failv(p, 1, CZ_E_RANGE, "too many values");              \
        (out) = (c1)->n++;                                                                         \
        memset(&(c1)->arr[out], 0, sizeof(*(c1)->arr));                                            \
    } while (0)

/* ------------------------------------------------------- value dispatch */

typedef enum { V_OBJ, V_ARR, V_U8, V_U32, V_U64, V_STR, V_NULL } vtype;

static const char *vtype_name(vtype v) {
    switch (v) {
    case V_OBJ: return "object";
    case V_ARR: return "array";
    case V_U8: return "integer 0..255";
    case V_U32: return "u32";
    case V_U64: return "u64";
    case V_STR: return "string";
    default: return "null";
    }
}

/* What the next value in the top frame must be, and for containers which
 * frame to open. Returns 0 (after failing) when no value is allowed. */
static int expect(parser *p, vtype *vt, fkind *child) {
    frame *f = &p->st[p->depth - 1];
    *child = F_DOM;
    switch (f->kind) {
    case F_TOP:
        if (f->cur == 0) {
            *vt = V_STR;
            return 1;
        }
        if (f->cur == 1) {
            *vt = V_OBJ;
            *child = F_VPWRAP;
            return 1;
        }
        *vt = V_ARR;
        *child = F_DOM;
        return 1;
    case F_VPWRAP:
        *vt = V_ARR;
        *child = F_PARTS;
        return 1;
    case F_PARTS:
        *vt = V_ARR;
        *child = F_CHALS;
        return 1;
    case F_CHALS:
        *vt = V_OBJ;
        *child = F_PROOF;
        return 1;
    case F_PROOF:
        *vt = f->cur == 3 ? V_ARR : V_OBJ;
        *child = f->cur <= 1 ? F_MERKLE : f->cur == 2 ? F_RCP : f->cur == 3 ? F_LABARR : F_LAB;
        return 1;
    case F_MERKLE:
        *vt = V_OBJ;
        *child = F_MDATA;
        return 1;
    case F_MDATA:
        *vt = V_OBJ;
        *child = F_MBODY;
        return 1;
    case F_MBODY:
        *vt = f->cur <= 1 ? V_ARR : V_OBJ;
        *child = f->cur <= 1 ? F_DOM : F_IPATH;
        return 1;
    case F_IPATH:
        *vt = V_ARR;
        *child = F_PATHARR;
        return 1;
    case F_PATHARR:
        *vt = V_OBJ;
        *child = F_PELEM;
        return 1;
    case F_PELEM:
        if (f->cur == 1) {
            *vt = V_U64;
            return 1;
        }
        *vt = V_ARR;
        *child = F_DOMLIST;
        return 1;
    case F_DOMLIST:
        *vt = V_ARR;
        *child = F_DOM;
        return 1;
    case F_DOM: *vt = V_U8; return 1;
    case F_RCP:
        *vt = f->cur == 0 ? V_OBJ : V_ARR;
        *child = f->cur == 0 ? F_COL : F_COLARR;
        return 1;
    case F_COLARR:
        *vt = V_OBJ;
        *child = F_COL;
        return 1;
    case F_COL:
        *vt = V_OBJ;
        *child = f->cur == 0 ? F_COLUMN : F_MERKLE;
        return 1;
    case F_COLUMN:
        if (f->cur == 0) {
            *vt = V_U32;
            return 1;
        }
        if (f->cur == 1) {
            *vt = V_ARR;
            *child = F_DOMLIST;
            return 1;
        }
        *vt = V_NULL;
        return 1;
    case F_LABARR:
        *vt = V_OBJ;
        *child = F_LAB;
        return 1;
    case F_LAB:
        if (f->cur == 0) {
            *vt = V_ARR;
            *child = F_DOMLIST;
            return 1;
        }
        *vt = f->cur == 1 ? V_U32 : V_U64;
        return 1;
    }
    return failv(p, 1, CZ_E_INTERNAL, "bad parser state");
}

/* Called before every value: counts array elements and checks the type. */
static int begin_value(parser *p, vtype got, fkind *child) {
    if (p->failed) return 0;
    if (p->depth == 0) {
        if (got != V_OBJ)
            return failv(p, 1, CZ_E_PARSE, "expected object, got %s", vtype_name(got));
        *child = F_TOP;
        return 1;
    }
    frame *f = &p->st[p->depth - 1];
    if (f->is_array) f->count++;
    vtype want;
    if (!expect(p, &want, child)) return 0;
    int ok = got == want || (got == V_U64 && (want == V_U8 || want == V_U32));
    if (!ok)
        return failv(p, 1, CZ_E_PARSE, "expected %s, got %s", vtype_name(want), vtype_name(got));
    return 1;
}

static cz_c1_challenge *cur_chal(parser *p) {
    return &p->c1->challenges[p->c1->n_challenges - 1];
}

/* Opens the child frame for a container value (begin_value already ran). */
static int push(parser *p, fkind kind, int is_array) {
    if (p->depth >= CZ_C1_MAX_DEPTH) return failv(p, 1, CZ_E_PARSE, "nesting too deep");
    frame *parent = p->depth ? &p->st[p->depth - 1] : NULL;
    frame *f = &p->st[p->depth];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->is_array = is_array;
    f->cur = -1;
    f->dom_index = SIZE_MAX;
    f->tree = parent ? parent->tree : TREE_NONE;
    cz_c1 *c1 = p->c1;
    if (parent) {
        int k = parent->cur;
        switch (kind) {
        case F_PROOF: {
            size_t idx;
            POOL_PUSH(c1, challenges, n_challenges, cap_challenges, idx);
            f->target = &c1->challenges[idx];
            break;
        }
        case F_MERKLE:
            if (parent->kind == F_PROOF) {
                f->target = k == 0 ? &cur_chal(p)->comm_d_proof : &cur_chal(p)->comm_r_last_proof;
                f->tree = k == 0 ? TREE_D : TREE_RC;
            } else {
                f->target = &((cz_c1_column_proof *)parent->target)->proof;
                f->tree = TREE_RC;
            }
            break;
        case F_MDATA:
        case F_MBODY: f->target = parent->target; break;
        case F_IPATH: {
            cz_c1_merkle *m = parent->target;
            f->part = k == 2 || k == 3 ? 0 : k == 4 ? 1 : 2;
            f->target = f->part == 0 ? &m->base : f->part == 1 ? &m->sub : &m->top;
            break;
        }
        case F_PATHARR: {
            cz_c1_span *s = parent->target;
            s->first = (uint32_t)c1->n_path_elems;
            s->count = 0;
            f->part = parent->part;
            f->target = s;
            break;
        }
        case F_PELEM: {
            size_t idx;
            POOL_PUSH(c1, path_elems, n_path_elems, cap_path_elems, idx);
            ((cz_c1_span *)parent->target)->count++;
            f->target = &c1->path_elems[idx];
            f->part = parent->part;
            break;
        }
        case F_DOMLIST: {
            cz_c1_span *s;
            if (parent->kind == F_PELEM)
                s = &((cz_c1_path_elem *)parent->target)->hashes;
            else if (parent->kind == F_COLUMN)
                s = &((cz_c1_column_proof *)parent->target)->rows;
            else
                s = &((cz_c1_labeling_proof *)parent->target)->parents;
            s->first = (uint32_t)c1->n_doms;
            s->count = 0;
            f->target = s;
            break;
        }
        case F_DOM:
            if (parent->kind == F_DOMLIST) {
                size_t idx;
                POOL_PUSH(c1, doms, n_doms, cap_doms, idx);
                ((cz_c1_span *)parent->target)->count++;
                f->dom_index = idx;
            } else if (parent->kind == F_TOP) {
                cz_c1_dom *t[] = {&c1->comm_r, &c1->comm_d, &c1->replica_id, &c1->seed,
                                  &c1->ticket};
                f->target = t[k - 2];
            } else { /* F_MBODY root / leaf */
                cz_c1_merkle *m = parent->target;
                f->target = k == 0 ? &m->root : &m->leaf;
            }
            break;
        case F_RCP: f->target = cur_chal(p); break;
        case F_COLARR: f->part = k == 1 ? 0 : 1; break;
        case F_COL:
            if (parent->kind == F_RCP) {
                f->target = &cur_chal(p)->c_x;
            } else {
                uint32_t i = parent->count - 1,
                         max = parent->part ? CZ_C1_EXP_PARENTS : CZ_C1_DRG_PARENTS;
                if (i >= max)
                    return failv(p, 1, CZ_E_PARSE, "expected %u column proofs, got more", max);
                f->target =
                    parent->part ? &cur_chal(p)->exp_parents[i] : &cur_chal(p)->drg_parents[i];
            }
            break;
        case F_COLUMN: f->target = parent->target; break;
        case F_LAB:
            if (parent->kind == F_LABARR) {
                size_t idx;
                POOL_PUSH(c1, labeling, n_labeling, cap_labeling, idx);
                cur_chal(p)->labeling.count++;
                f->target = &c1->labeling[idx];
            } else {
                f->target = &cur_chal(p)->encoding;
            }
            break;
        case F_LABARR:
            cur_chal(p)->labeling.first = (uint32_t)c1->n_labeling;
            cur_chal(p)->labeling.count = 0;
            break;
        default: break;
        }
    }
    p->depth++;
    return 1;
}

/* ------------------------------------------------------ frame completion */

/* r, the BLS12-381 scalar field modulus, little-endian bytes. */
static const uint8_t fr_modulus_le[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

static int fr_canonical(const uint8_t *le) {
    for (int i = 31; i >= 0; i--) {
        if (le[i] != fr_modulus_le[i]) return le[i] < fr_modulus_le[i];
    }
    return 0;
}

static int is_zero32(const uint8_t *b) {
    uint8_t acc = 0;
    for (int i = 0; i < 32; i++) acc |= b[i];
    return acc == 0;
}

static uint8_t *dom_ptr(parser *p, frame *f) {
    return f->dom_index != SIZE_MAX ? p->c1->doms[f->dom_index] : (uint8_t *)f->target;
}

static const char *tree_kind_name(cz_c1_tree_kind k) {
    return k == CZ_C1_SINGLE ? "Single" : k == CZ_C1_SUB ? "Sub" : "Top";
}

/* Records the first value seen of a shape property, or checks that later
 * ones agree: *slot = 0 means "not yet seen" (so stored values are +1). */
static int same_shape(parser *p, uint32_t *slot, uint32_t value, const char *what) {
    if (*slot == 0) {
        *slot = value + 1;
        return 1;
    }
    if (*slot != value + 1)
        return failv(p, 0, CZ_E_PARSE, "expected %u %s (as in earlier proofs), got %u", *slot - 1,
                     what, value);
    return 1;
}

static int end_frame(parser *p) {
    frame *f = &p->st[p->depth - 1];
    cz_c1 *c1 = p->c1;
    /* Required keys. */
    const char *const *keys;
    int nk = frame_keys(f->kind, &keys);
    uint32_t required = nk ? (1u << nk) - 1 : 0;
    if (f->kind == F_MBODY) {
        cz_c1_merkle *m = f->target;
        required = m->kind == CZ_C1_SINGLE ? 0x07 : m->kind == CZ_C1_SUB ? 0x1b : 0x3b;
    }
    if (f->kind == F_MDATA || f->kind == F_VPWRAP) {
        if (f->seen == 0) return failv(p, 0, CZ_E_PARSE, "empty object, expected one variant");
    } else {
        for (int i = 0; i < nk; i++)
            if ((required >> i & 1) && !(f->seen >> i & 1))
                return failv(p, 0, CZ_E_PARSE, "missing key \"%s\"", keys[i]);
    }
    switch (f->kind) {
    case F_DOM: {
        if (f->count != 32) return failv(p, 0, CZ_E_PARSE, "expected 32 bytes, got %u", f->count);
        /* seed and ticket are chain randomness (plain [u8; 32] in
         * rust-fil-proofs), any 32 bytes; every other domain is a field
         * element. */
        const uint8_t *d = dom_ptr(p, f);
        int randomness = d == p->c1->seed || d == p->c1->ticket;
        if (!randomness && !fr_canonical(d))
            return failv(p, 0, CZ_E_RANGE, "not a canonical field element (>= r)");
        break;
    }
    case F_PELEM: {
        cz_c1_path_elem *e = f->target;
        if (e->index > e->hashes.count)
            return failv(p, 0, CZ_E_RANGE, "index %llu out of range for %u children",
                         (unsigned long long)e->index, e->hashes.count + 1);
        uint32_t n = e->hashes.count;
        if (f->tree == TREE_D) {
            if (n != 1) return failv(p, 0, CZ_E_PARSE, "expected 1 sibling, got %u", n);
        } else {
            uint32_t *slot = f->part == 0   ? &c1->tree_r_base_siblings
                             : f->part == 1 ? &c1->tree_r_sub_siblings
                                            : &c1->tree_r_top_siblings;
            if (n == 0) return failv(p, 0, CZ_E_PARSE, "expected at least 1 sibling, got 0");
            /* tree_r_*_siblings hold value + 1 until the end of parsing. */
            if (!same_shape(p, slot, n, "siblings")) return 0;
        }
        break;
    }
    case F_PATHARR: {
        cz_c1_span *s = f->target;
        if (f->part > 0 && s->count != 1)
            return failv(p, 0, CZ_E_PARSE, "expected 1 path element, got %u", s->count);
        if (f->part == 0 && s->count == 0)
            return failv(p, 0, CZ_E_PARSE, "expected at least 1 path element, got 0");
        break;
    }
    case F_MBODY: {
        cz_c1_merkle *m = f->target;
        if (f->tree == TREE_D) {
            if (!same_shape(p, &c1->tree_d_depth, m->base.count, "tree D path elements")) return 0;
        } else {
            if (!same_shape(p, &c1->tree_r_base_depth, m->base.count, "base path elements"))
                return 0;
        }
        break;
    }
    case F_COLUMN: {
        cz_c1_column_proof *c = f->target;
        if (!same_shape(p, &c1->layers, c->rows.count, "rows (layers)")) return 0;
        break;
    }
    case F_COLARR: {
        uint32_t want = f->part ? CZ_C1_EXP_PARENTS : CZ_C1_DRG_PARENTS;
        if (f->count != want)
            return failv(p, 0, CZ_E_PARSE, "expected %u column proofs, got %u", want, f->count);
        break;
    }
    case F_LABARR:
        if (f->count == 0) return failv(p, 0, CZ_E_PARSE, "expected at least 1 labeling proof");
        if (!same_shape(p, &c1->layers, f->count, "labeling proofs (layers)")) return 0;
        break;
    case F_CHALS:
        if (f->count == 0) return failv(p, 0, CZ_E_PARSE, "partition has no proofs");
        if (!same_shape(p, &c1->challenges_per_partition, f->count, "challenges per partition"))
            return 0;
        break;
    case F_PARTS:
        if (f->count == 0) return failv(p, 0, CZ_E_PARSE, "no partitions");
        c1->partitions = f->count;
        break;
    case F_TOP: {
        if (is_zero32(c1->comm_r)) return failv(p, 0, CZ_E_RANGE, "comm_r is zero");
        if (is_zero32(c1->comm_d)) return failv(p, 0, CZ_E_RANGE, "comm_d is zero");
        if (is_zero32(c1->seed)) return failv(p, 0, CZ_E_RANGE, "seed is zero");
        /* the variant is named after the size: the V1 proof's name */
        cz_fc_proof_info v1;
        if (cz_fc_proof_lookup(&v1, c1->registered_proof % 5, NULL) != CZ_OK ||
            strcmp(v1.name, p->vp_size) != 0)
            return failv(p, 0, CZ_E_PARSE,
                         "vanilla_proofs variant \"%s\" does not match registered proof %s",
                         p->vp_size, c1->registered_proof_name);
        break;
    }
    default: break;
    }
    p->depth--;
    return 1;
}

/* ----------------------------------------------------------- callbacks */

static int cb_start_map(void *ctx) {
    parser *p = ctx;
    fkind child;
    if (!begin_value(p, V_OBJ, &child)) return 0;
    return push(p, child, 0);
}

static int cb_start_array(void *ctx) {
    parser *p = ctx;
    fkind child;
    if (!begin_value(p, V_ARR, &child)) return 0;
    return push(p, child, 1);
}

static int cb_end(void *ctx) {
    parser *p = ctx;
    if (p->failed) return 0;
    return end_frame(p);
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len) {
    parser *p = ctx;
    if (p->failed) return 0;
    frame *f = &p->st[p->depth - 1];
    size_t kl = len < sizeof f->key - 1 ? len : sizeof f->key - 1;
    memcpy(f->key, key, kl);
    f->key[kl] = 0;
    f->cur = -2;
    if (f->kind == F_VPWRAP) {
        if (f->seen) return failv(p, 1, CZ_E_PARSE, "expected exactly one key");
        f->seen = 1;
        if (len >= sizeof p->vp_size || len < 13 || memcmp(key, "StackedDrg", 10) != 0 ||
            memcmp(key + len - 2, "V1", 2) != 0)
            return failv(p, 1, CZ_E_PARSE, "unknown vanilla proof variant");
        memcpy(p->vp_size, key, len);
        p->vp_size[len] = 0;
        p->have_vp_size = 1;
        f->cur = 0;
        return 1;
    }
    const char *const *keys;
    int nk = frame_keys(f->kind, &keys);
    for (int i = 0; i < nk; i++) {
        if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0) {
            if (f->seen >> i & 1) return failv(p, 1, CZ_E_PARSE, "duplicate key");
            if (f->kind == F_MDATA) {
                if (f->seen) return failv(p, 1, CZ_E_PARSE, "expected exactly one variant");
                cz_c1_merkle *m = f->target;
                m->kind = (cz_c1_tree_kind)(i + 1);
                if (f->tree == TREE_D && m->kind != CZ_C1_SINGLE)
                    return failv(p, 1, CZ_E_PARSE, "tree D proof must be Single");
                if (f->tree == TREE_RC) {
                    uint32_t *slot = (uint32_t *)&p->c1->tree_r_kind;
                    if (*slot == 0)
                        *slot = m->kind;
                    else if (*slot != (uint32_t)m->kind)
                        return failv(p, 1, CZ_E_PARSE, "tree kind %s differs from earlier %s",
                                     tree_kind_name(m->kind), tree_kind_name(*slot));
                }
            }
            if (f->kind == F_MBODY) {
                cz_c1_merkle *m = f->target;
                int allowed = i <= 1 || (m->kind == CZ_C1_SINGLE ? i == 2
                                         : m->kind == CZ_C1_SUB  ? (i == 3 || i == 4)
                                                                 : i >= 3);
                if (!allowed)
                    return failv(p, 1, CZ_E_PARSE, "key not allowed in a %s proof",
                                 tree_kind_name(m->kind));
            }
            f->seen |= 1u << i;
            f->cur = i;
            return 1;
        }
    }
    return failv(p, 1, CZ_E_PARSE, "unknown key");
}

int cz_c1_json_u64(const char *s, size_t len, uint64_t max, uint64_t *out) {
    if (len == 0 || len > 20) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (v > max) return 0;
    *out = v;
    return 1;
}

static int cb_number(void *ctx, const char *s, size_t len) {
    parser *p = ctx;
    fkind child;
    /* Fast path for the bulk of the document: a byte inside a domain. */
    if (!p->failed && p->depth > 0) {
        frame *f = &p->st[p->depth - 1];
        if (f->kind == F_DOM && f->count < 32 && len >= 1 && len <= 3 && s[0] >= '0' &&
            s[0] <= '9') {
            unsigned v = (unsigned)(s[0] - '0');
            size_t i = 1;
            for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) v = v * 10 + (unsigned)(s[i] - '0');
            if (i == len && v <= 255) {
                dom_ptr(p, f)[f->count++] = (uint8_t)v;
                return 1;
            }
        }
    }
    if (!begin_value(p, V_U64, &child)) return 0;
    frame *f = &p->st[p->depth - 1];
    vtype want;
    expect(p, &want, &child);
    uint64_t max = want == V_U8 ? 255 : want == V_U32 ? UINT32_MAX : UINT64_MAX;
    uint64_t v;
    if (!cz_c1_json_u64(s, len, max, &v))
        return failv(p, 1, CZ_E_RANGE, "expected %s, got %.*s", vtype_name(want),
                     (int)(len > 40 ? 40 : len), s);
    switch (f->kind) {
    case F_DOM:
        if (f->count > 32) return failv(p, 1, CZ_E_PARSE, "expected 32 bytes, got more");
        dom_ptr(p, f)[f->count - 1] = (uint8_t)v;
        break;
    case F_PELEM: ((cz_c1_path_elem *)f->target)->index = v; break;
    case F_COLUMN: ((cz_c1_column_proof *)f->target)->index = (uint32_t)v; break;
    case F_LAB: {
        cz_c1_labeling_proof *l = f->target;
        if (f->cur == 1)
            l->layer_index = (uint32_t)v;
        else
            l->node = v;
        break;
    }
    default: return failv(p, 1, CZ_E_INTERNAL, "bad parser state");
    }
    return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len) {
    parser *p = ctx;
    fkind child;
    if (!begin_value(p, V_STR, &child)) return 0;
    /* Only registered_proof is a string. */
    cz_fc_proof_info info;
    cz_error lookup_err;
    if (cz_fc_proof_lookup_by_name(&info, (const char *)s, len, &lookup_err) != CZ_OK)
        return failv(p, 1, lookup_err.status, "%s", lookup_err.message);
    p->c1->registered_proof = info.id;
    p->c1->registered_proof_name = info.name;
    p->c1->sector_size = info.sector.sector_size;
    return 1;
}

static int cb_null(void *ctx) {
    parser *p = ctx;
    fkind child;
    return begin_value(p, V_NULL, &child);
}

static int cb_bool(void *ctx, int b) {
    (void)b;
    parser *p = ctx;
    if (p->failed) return 0;
    if (p->depth && p->st[p->depth - 1].is_array) p->st[p->depth - 1].count++;
    vtype want;
    fkind child;
    if (p->depth == 0) return failv(p, 1, CZ_E_PARSE, "expected object, got boolean");
    if (!expect(p, &want, &child)) return 0;
    return failv(p, 1, CZ_E_PARSE, "expected %s, got boolean", vtype_name(want));
}

static const yajl_callbacks callbacks = {cb_null,   cb_bool,        NULL,         NULL,
                                         cb_number, cb_string,      cb_start_map, cb_map_key,
                                         cb_end,    cb_start_array, cb_end};

/* --------------------------------------------------------- driver */

typedef struct {
    parser p;
    yajl_handle h;
} stream;

static cz_status stream_begin(stream *s, cz_c1 *out, cz_error *err) {
    memset(out, 0, sizeof *out);
    memset(&s->p, 0, sizeof s->p);
    s->p.c1 = out;
    s->p.err = err;
    s->h = yajl_alloc(&callbacks, NULL, &s->p);
    if (!s->h) return cz_error_set(err, CZ_E_NOMEM, "c1: out of memory");
    return CZ_OK;
}

static cz_status yajl_fail(stream *s, const uint8_t *chunk, size_t len) {
    parser *p = &s->p;
    if (p->failed) return p->status;
    unsigned char *msg = yajl_get_error(s->h, 0, chunk, len);
    char m[200];
    snprintf(m, sizeof m, "%s", msg ? (const char *)msg : "parse error");
    if (msg) yajl_free_error(s->h, msg);
    /* yajl messages end in a newline; trim it. */
    size_t ml = strlen(m);
    while (ml && (m[ml - 1] == '\n' || m[ml - 1] == ' ')) m[--ml] = 0;
    uint64_t at = p->offset + (chunk ? yajl_get_bytes_consumed(s->h) : 0);
    char path[320];
    format_path(p, p->depth, path, sizeof path);
    p->failed = 1;
    return cz_error_set(p->err, CZ_E_PARSE, "c1: %s: invalid JSON at byte %llu: %s", path,
                        (unsigned long long)at, m);
}

static cz_status stream_feed(stream *s, const uint8_t *buf, size_t len) {
    yajl_status st = yajl_parse(s->h, buf, len);
    if (st != yajl_status_ok) return yajl_fail(s, buf, len);
    s->p.offset += len;
    return CZ_OK;
}

static cz_status stream_finish(stream *s) {
    yajl_status st = yajl_complete_parse(s->h);
    if (st != yajl_status_ok) {
        if (!s->p.failed && s->p.depth > 0) {
            char path[320];
            format_path(&s->p, s->p.depth, path, sizeof path);
            s->p.failed = 1;
            return cz_error_set(s->p.err, CZ_E_PARSE, "c1: %s: truncated input (%llu bytes)", path,
                                (unsigned long long)s->p.offset);
        }
        return yajl_fail(s, NULL, 0);
    }
    if (s->p.depth != 0 || !s->p.c1->registered_proof_name)
        return cz_error_set(s->p.err, CZ_E_PARSE, "c1: truncated input");
    cz_c1 *c1 = s->p.c1;
    /* Shape slots held value + 1 while parsing. */
    uint32_t *slots[] = {&c1->challenges_per_partition,
                         &c1->layers,
                         &c1->tree_d_depth,
                         &c1->tree_r_base_depth,
                         &c1->tree_r_base_siblings,
                         &c1->tree_r_sub_siblings,
                         &c1->tree_r_top_siblings};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (*slots[i]) *slots[i] -= 1;
    return CZ_OK;
}

static void stream_end(stream *s) {
    if (s->h) yajl_free(s->h);
    s->h = NULL;
}

cz_status cz_c1_parse_raw(cz_c1 *out, const uint8_t *json, size_t len, cz_error *err) {
    stream s;
    cz_status st = stream_begin(&s, out, err);
    if (st != CZ_OK) return st;
    st = stream_feed(&s, json, len);
    if (st == CZ_OK) st = stream_finish(&s);
    stream_end(&s);
    if (st != CZ_OK) cz_c1_free(out);
    return st;
}

void cz_c1_free(cz_c1 *c1) {
    if (!c1) return;
    free(c1->doms);
    free(c1->path_elems);
    free(c1->labeling);
    free(c1->challenges);
    memset(c1, 0, sizeof *c1);
}

cz_status cz_c1_parse_raw_stream(cz_c1 *out, uint8_t *buf, size_t cap, size_t n, FILE *fp,
                                 const char *path, cz_error *err) {
    stream s;
    cz_status st = stream_begin(&s, out, err);
    while (st == CZ_OK && n > 0) {
        st = stream_feed(&s, buf, n);
        n = fread(buf, 1, cap, fp);
    }
    if (st == CZ_OK && ferror(fp)) st = cz_error_set(err, CZ_E_IO, "c1: read error on %s", path);
    if (st == CZ_OK) st = stream_finish(&s);
    stream_end(&s);
    if (st != CZ_OK) cz_c1_free(out);
    return st;
}

/* ---------------------------------------------------------- shape check */

cz_status cz_c1_check_shape(const cz_c1 *c1, cz_error *err) {
    cz_fc_proof_info info;
    cz_status st = cz_fc_proof_lookup(&info, c1->registered_proof, err);
    if (st != CZ_OK) return st;
    const cz_fc_sector_info *sec = &info.sector;
    uint32_t log_nodes = sec->tree_d_depth;
    /* tree R/C: sub and top trees each join their base trees by one level */
    uint64_t base_nodes = sec->nodes / (sec->tree_sub_arity ? sec->tree_sub_arity : 1) /
                          (sec->tree_top_arity ? sec->tree_top_arity : 1);
    uint32_t base_depth = 0;
    while ((UINT64_C(1) << (3 * (base_depth + 1))) <= base_nodes) base_depth++;
    cz_c1_tree_kind kind = !sec->tree_sub_arity   ? CZ_C1_SINGLE
                           : !sec->tree_top_arity ? CZ_C1_SUB
                                                  : CZ_C1_TOP;
    const char *name = c1->registered_proof_name;
    if (c1->tree_d_depth != log_nodes)
        return cz_error_set(err, CZ_E_PARSE, "c1: %s: tree D depth %u, expected %u", name,
                            c1->tree_d_depth, log_nodes);
    if (c1->tree_r_kind != kind)
        return cz_error_set(err, CZ_E_PARSE, "c1: %s: tree R/C proofs are %s, expected %s", name,
                            tree_kind_name(c1->tree_r_kind), tree_kind_name(kind));
    if (c1->tree_r_base_depth != base_depth || c1->tree_r_base_siblings != sec->tree_base_arity - 1)
        return cz_error_set(err, CZ_E_PARSE,
                            "c1: %s: tree R/C base has %u levels of %u siblings, expected %u of %u",
                            name, c1->tree_r_base_depth, c1->tree_r_base_siblings, base_depth,
                            sec->tree_base_arity - 1);
    if ((kind >= CZ_C1_SUB && c1->tree_r_sub_siblings != sec->tree_sub_arity - 1) ||
        (kind == CZ_C1_TOP && c1->tree_r_top_siblings != sec->tree_top_arity - 1))
        return cz_error_set(err, CZ_E_PARSE, "c1: %s: tree R/C sub/top arity mismatch", name);
    if (c1->layers != sec->layers)
        return cz_error_set(err, CZ_E_PARSE, "c1: %s: %u layers, expected %u", name, c1->layers,
                            sec->layers);
    if (c1->partitions != sec->partitions)
        return cz_error_set(err, CZ_E_PARSE, "c1: %s: %u partitions, expected %u", name,
                            c1->partitions, sec->partitions);
    return CZ_OK;
}

/* --------------------------------------------------------- index check */

/* The leaf index a Merkle path leads to; sets *ok = 0 when an index is out
 * of range or the value does not fit in 64 bits. */
static uint64_t leaf_index(const cz_c1 *c1, const cz_c1_merkle *m, int *ok) {
    uint64_t idx = 0, scale = 1;
    int scale_overflow = 0; /* the product of arities so far is >= 2^64 */
    const cz_c1_span parts[3] = {m->base, m->sub, m->top};
    for (int p = 0; p < 3; p++) {
        for (uint32_t j = 0; j < parts[p].count; j++) {
            const cz_c1_path_elem *e = &c1->path_elems[parts[p].first + j];
            uint64_t arity = (uint64_t)e->hashes.count + 1;
            if (e->index >= arity) *ok = 0;
            if (e->index) {
                if (scale_overflow || e->index > (UINT64_MAX - idx) / scale)
                    *ok = 0;
                else
                    idx += e->index * scale;
            }
            if (!scale_overflow) {
                if (scale > UINT64_MAX / arity)
                    scale_overflow = 1;
                else
                    scale *= arity;
            }
        }
    }
    return idx;
}

cz_status cz_c1_check_indices(const cz_c1 *c1, cz_error *err) {
    for (uint32_t k = 0; k < c1->partitions; k++) {
        for (uint32_t i = 0; i < c1->challenges_per_partition; i++) {
            const cz_c1_challenge *ch = cz_c1_challenge_at(c1, k, i);
            if (ch->labeling.count == 0) continue;
            uint64_t node = c1->labeling[ch->labeling.first].node;
            int ok = 1;
            const struct {
                const char *what;
                uint64_t got;
            } checks[] = {
                {"comm_d_proofs leaf index", leaf_index(c1, &ch->comm_d_proof, &ok)},
                {"comm_r_last_proof leaf index", leaf_index(c1, &ch->comm_r_last_proof, &ok)},
                {"c_x inclusion_proof leaf index", leaf_index(c1, &ch->c_x.proof, &ok)},
                {"c_x.column.index", ch->c_x.index},
                {"encoding_proof.node", ch->encoding.node},
            };
            for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++)
                if (checks[c].got != node || !ok)
                    return cz_error_set(err, CZ_E_PARSE,
                                        "c1: vanilla_proofs[%u][%u]: %s is %llu, challenge node "
                                        "is %llu",
                                        k, i, checks[c].what, (unsigned long long)checks[c].got,
                                        (unsigned long long)node);
            for (uint32_t l = 0; l < ch->labeling.count; l++)
                if (c1->labeling[ch->labeling.first + l].node != node)
                    return cz_error_set(
                        err, CZ_E_PARSE,
                        "c1: vanilla_proofs[%u][%u]: labeling_proofs[%u].node is "
                        "%llu, challenge node is %llu",
                        k, i, l, (unsigned long long)c1->labeling[ch->labeling.first + l].node,
                        (unsigned long long)node);
            for (int c = 0; c < CZ_C1_DRG_PARENTS + CZ_C1_EXP_PARENTS; c++) {
                const cz_c1_column_proof *col = c < CZ_C1_DRG_PARENTS
                                                    ? &ch->drg_parents[c]
                                                    : &ch->exp_parents[c - CZ_C1_DRG_PARENTS];
                uint64_t li = leaf_index(c1, &col->proof, &ok);
                if (!ok || li != col->index)
                    return cz_error_set(
                        err, CZ_E_PARSE,
                        "c1: vanilla_proofs[%u][%u]: %s[%d]: inclusion proof leads to leaf %llu, "
                        "column.index is %u",
                        k, i, c < CZ_C1_DRG_PARENTS ? "drg_parents" : "exp_parents",
                        c < CZ_C1_DRG_PARENTS ? c : c - CZ_C1_DRG_PARENTS, (unsigned long long)li,
                        col->index);
            }
        }
    }
    return CZ_OK;
}
