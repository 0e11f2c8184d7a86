/* Merkle inclusion gadget: the constraint and input counts of
 * rust-fil-proofs' storage-proofs-core/tests/por_circuit.rs for every tree
 * shape, public and private root; the native SHA-256 tree against the
 * published empty comm_d values and OpenSSL; satisfaction on the check
 * back-end for real paths (with the packed index and root as the public
 * inputs), the same structure with and without a witness; and failures for a
 * wrong sibling, a wrong index, a flipped index bit and a wrong root. */
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gadget_test_cs.h"
#include "gadgets/por.h"
#include "harness/harness.h"

typedef struct {
    const char *name;
    cz_por_hasher hasher;
    unsigned base, sub, top;
    uint64_t public_count, private_count; /* 0: not published */
} shape_case;

/* por_circuit.rs: leaves = 64 * base tree count. */
static const shape_case cases[] = {
    {"poseidon 2", CZ_POR_POSEIDON, 2, 0, 0, 1887, 1886},
    {"poseidon 4", CZ_POR_POSEIDON, 4, 0, 0, 1164, 1163},
    {"poseidon 8", CZ_POR_POSEIDON, 8, 0, 0, 1063, 1062},
    {"poseidon 8-2", CZ_POR_POSEIDON, 8, 2, 0, 1377, 0},
    {"poseidon 8-4-2", CZ_POR_POSEIDON, 8, 4, 2, 1764, 0},
    {"poseidon 8-8", CZ_POR_POSEIDON, 8, 8, 0, 1593, 0},
    {"poseidon 8-8-2", CZ_POR_POSEIDON, 8, 8, 2, 1907, 0},
    {"poseidon 8-2-4", CZ_POR_POSEIDON, 8, 2, 4, 1764, 0},
    {"sha256 2", CZ_POR_SHA256, 2, 0, 0, 272295, 0},
    {"sha256 4", CZ_POR_SHA256, 4, 0, 0, 216258, 0},
    {"sha256 8", CZ_POR_SHA256, 8, 0, 0, 250987, 0},
};
#define NUM_CASES (sizeof cases / sizeof cases[0])

static uint64_t case_leaves(const shape_case *c) {
    return 64 * (uint64_t)(c->sub ? c->sub : 1) * (c->top ? c->top : 1);
}

static void random_fr(cz_fr *r) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(r, b, sizeof b);
}

static void test_counts(void) {
    for (size_t i = 0; i < NUM_CASES; i++) {
        const shape_case *c = &cases[i];
        cz_por_shape s;
        CHECK(cz_por_shape_make(&s, c->hasher, c->base, c->sub, c->top, case_leaves(c)) == CZ_OK);
        for (int priv = 0; priv < 2; priv++) {
            uint64_t want = priv ? c->private_count : c->public_count;
            if (!want) continue;
            cz_cs *cs = cz_cs_count_new();
            cz_por_circuit(cs, &s, NULL, 0, NULL, NULL, priv);
            CHECK(cz_cs_status(cs) == CZ_OK);
            printf("  %-16s %s root: %llu constraints, %u inputs (want %llu)\n", c->name,
                   priv ? "private" : "public", (unsigned long long)cs->num_constraints,
                   cs->num_inputs, (unsigned long long)want);
            CHECK(cs->num_constraints == want);
            CHECK(cs->num_inputs == (priv ? 2u : 3u));
            cz_cs_destroy(cs);
        }
    }
    /* level costs: Poseidon arity 8 level 530 constraints / 537
     * aux, arity 2 level 314 / 315; SHA tree-D level 45,382 / 45,335. */
    static const struct {
        cz_por_hasher h;
        unsigned a;
        uint64_t cons, aux;
    } lv[] = {{CZ_POR_POSEIDON, 8, 530, 537},
              {CZ_POR_POSEIDON, 2, 314, 315},
              {CZ_POR_SHA256, 2, 45382, 45335}};
    for (size_t i = 0; i < sizeof lv / sizeof lv[0]; i++) {
        cz_por_shape s;
        CHECK(cz_por_shape_make(&s, lv[i].h, lv[i].a, 0, 0, lv[i].a) == CZ_OK);
        cz_cs *cs = cz_cs_count_new();
        cz_num leaf, root;
        cz_num_alloc(cs, &leaf, NULL);
        uint32_t aux0 = cs->num_aux;
        cz_por_path(cs, &root, NULL, &s, &leaf, 0, NULL);
        CHECK(cz_cs_status(cs) == CZ_OK);
        CHECK(cs->num_constraints == lv[i].cons && cs->num_aux - aux0 == lv[i].aux);
        cz_cs_destroy(cs);
    }
}

static void test_shapes(void) {
    cz_por_shape s;
    CHECK(cz_por_shape_make(&s, CZ_POR_POSEIDON, 8, 8, 0, (uint64_t)1 << 30) == CZ_OK);
    CHECK(s.base_levels == 9 && cz_por_levels(&s) == 10 && cz_por_index_bits(&s) == 30);
    CHECK(cz_por_siblings(&s) == 70 && cz_por_level_arity(&s, 9) == 8);
    CHECK(cz_por_shape_make(&s, CZ_POR_POSEIDON, 8, 8, 2, (uint64_t)1 << 31) == CZ_OK);
    CHECK(s.base_levels == 9 && cz_por_levels(&s) == 11 && cz_por_level_arity(&s, 10) == 2);
    CHECK(cz_por_shape_make(&s, CZ_POR_POSEIDON, 8, 0, 0, 32) != CZ_OK);
    CHECK(cz_por_shape_make(&s, CZ_POR_POSEIDON, 3, 0, 0, 9) != CZ_OK);
    CHECK(cz_por_shape_make(&s, CZ_POR_POSEIDON, 8, 0, 2, 128) != CZ_OK);
    CHECK(cz_por_shape_make(&s, CZ_POR_SHA256, 2, 0, 0, 0) != CZ_OK);
}

static void test_native_sha(void) {
    /* Empty comm_d (filecoin-proofs tests/pieces.rs): the SHA tree
     * over all-zero 32-byte leaves. */
    static const struct {
        uint64_t leaves;
        const char *hex;
    } empty[] = {{4, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"},
                 {64, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"}};
    for (size_t i = 0; i < 2; i++) {
        cz_por_shape s;
        CHECK(cz_por_shape_make(&s, CZ_POR_SHA256, 2, 0, 0, empty[i].leaves) == CZ_OK);
        cz_fr *leaves = calloc(empty[i].leaves, sizeof *leaves);
        for (uint64_t k = 0; k < empty[i].leaves; k++) leaves[k] = cz_fr_zero;
        cz_fr root;
        uint8_t got[32], want[32];
        CHECK(cz_por_native_path(&root, NULL, &s, leaves, 0) == CZ_OK);
        cz_fr_to_bytes_le(got, &root);
        CHECK(cz_test_from_hex(want, empty[i].hex, 32));
        CHECK(memcmp(got, want, 32) == 0);
        free(leaves);
    }
    /* One node of arity 2 / 4 / 8 against OpenSSL over the LE bytes. */
    for (unsigned a = 2; a <= 8; a *= 2) {
        cz_fr in[8], out;
        uint8_t buf[256], d[32], got[32];
        for (unsigned k = 0; k < a; k++) {
            random_fr(&in[k]);
            cz_fr_to_bytes_le(&buf[32 * k], &in[k]);
        }
        SHA256(buf, 32 * a, d);
        d[31] &= 0x3f;
        CHECK(cz_por_hash_node_native(&out, in, a, CZ_POR_SHA256) == CZ_OK);
        cz_fr_to_bytes_le(got, &out);
        CHECK(memcmp(got, d, 32) == 0);
    }
}

/* Runs the public-root circuit on the check back-end; 1 when satisfied and
 * the inputs are (index, root). flip_aux: an aux to flip (0: none). */
static int run_circuit(const cz_por_shape *s, const cz_fr *leaf, uint64_t index, const cz_fr *sib,
                       const cz_fr *root, uint32_t flip_aux, uint64_t *digest) {
    cz_cs *cs = proxy_new(1);
    if (flip_aux) proxy_flip(cs, flip_aux);
    cz_por_circuit(cs, s, leaf, index, sib, root, 0);
    int ok = proxy_satisfied(cs);
    proxy_cs *p = proxy_of(cs);
    cz_fr idx;
    cz_fr_from_u64(&idx, index);
    if (ok) {
        CHECK(p->n_inputs == 2);
        CHECK(cz_fr_equal(&p->inputs[0], &idx) && cz_fr_equal(&p->inputs[1], root));
    }
    if (digest) *digest = p->digest;
    cz_cs_destroy(cs);
    return ok;
}

static void test_satisfied(void) {
    unsigned iters = cz_test_iters(2);
    for (size_t i = 0; i < NUM_CASES; i++) {
        const shape_case *c = &cases[i];
        uint64_t n = case_leaves(c);
        if (c->hasher == CZ_POR_SHA256 && c->base == 4) n = 16; /* keep SHA modest */
        cz_por_shape s;
        CHECK(cz_por_shape_make(&s, c->hasher, c->base, c->sub, c->top, n) == CZ_OK);
        cz_fr *leaves = malloc(n * sizeof *leaves);
        size_t ns = cz_por_siblings(&s);
        cz_fr *sib = malloc(ns * sizeof *sib), root, other;
        for (uint64_t k = 0; k < n; k++) random_fr(&leaves[k]);
        unsigned it_n = c->hasher == CZ_POR_SHA256 ? 1 : iters;
        for (unsigned it = 0; it < it_n; it++) {
            uint64_t index = cz_test_rand64() % n;
            CHECK(cz_por_native_path(&root, sib, &s, leaves, index) == CZ_OK);
            uint64_t d_wit = 0, d_bare = 1;
            CHECK(run_circuit(&s, &leaves[index], index, sib, &root, 0, &d_wit));
            /* the same structure without a witness */
            cz_cs *bare = proxy_new(0);
            cz_por_circuit(bare, &s, NULL, 0, NULL, NULL, 0);
            CHECK(proxy_ok(bare));
            d_bare = proxy_of(bare)->digest;
            cz_cs_destroy(bare);
            CHECK(d_wit == d_bare);
            if (it) continue;
            /* a wrong sibling (random position) */
            size_t k = cz_test_rand64() % ns;
            cz_fr saved = sib[k];
            random_fr(&sib[k]);
            CHECK(!run_circuit(&s, &leaves[index], index, sib, &root, 0, NULL));
            sib[k] = saved;
            /* a wrong index with the right path (the leaf's siblings) */
            uint64_t wrong = index ^ (1 + cz_test_rand64() % (n - 1));
            CHECK(!run_circuit(&s, &leaves[index], wrong, sib, &root, 0, NULL));
            /* the first index bit's variable flipped (aux 1: after the leaf) */
            CHECK(!run_circuit(&s, &leaves[index], index, sib, &root, 1, NULL));
            /* a wrong root */
            random_fr(&other);
            CHECK(!run_circuit(&s, &leaves[index], index, sib, &other, 0, NULL));
            /* and the right one still passes */
            CHECK(run_circuit(&s, &leaves[index], index, sib, &root, 0, NULL));
        }
        free(leaves);
        free(sib);
    }
}

/* cz_por_verify with leaf and root allocated by the caller (private root):
 * the root equality is the last constraint; inputs = the packed index. */
static void test_verify(void) {
    cz_por_shape s;
    CHECK(cz_por_shape_make(&s, CZ_POR_POSEIDON, 8, 8, 2, 1024) == CZ_OK);
    cz_fr leaves[1024], sib[22], root;
    for (int k = 0; k < 1024; k++) random_fr(&leaves[k]);
    CHECK(cz_por_siblings(&s) == 22);
    uint64_t index = cz_test_rand64() % 1024;
    CHECK(cz_por_native_path(&root, sib, &s, leaves, index) == CZ_OK);
    cz_cs *cs = proxy_new(1);
    cz_num leaf, r;
    cz_num_alloc(cs, &r, &root);
    cz_num_alloc(cs, &leaf, &leaves[index]);
    cz_por_verify(cs, &s, &leaf, index, sib, &r);
    CHECK(proxy_satisfied(cs) && cs->num_inputs == 2);
    /* 2 base levels x 530 + one arity-8 sub level 530 + arity-2 top 314 + 2 */
    CHECK(cs->num_constraints == 3 * 530 + 314 + 2);
    cz_cs_destroy(cs);
}

/* por_no_challenge_input: bits, path, leaf and root allocated first; then
 * 3 x (insert_8 22 + Poseidon_8 505) + (insert_2 2 + Poseidon_2 311) + 1. */
static int run_no_challenge(const cz_por_shape *s, const cz_fr *leaf, uint64_t index,
                            const cz_fr *sib, const cz_fr *root, uint64_t *cons) {
    cz_cs *cs = proxy_new(1);
    cz_bool bits[CZ_POR_MAX_BITS];
    cz_num path[22], l, r;
    cz_num_alloc(cs, &r, root);
    unsigned nb = cz_por_index_bits(s);
    for (unsigned i = 0; i < nb; i++) bits[i] = cz_bit_alloc(cs, (int)((index >> i) & 1));
    for (size_t k = 0; k < cz_por_siblings(s); k++) cz_num_alloc(cs, &path[k], &sib[k]);
    cz_num_alloc(cs, &l, leaf);
    uint64_t c0 = cs->num_constraints;
    cz_por_no_challenge_input(cs, s, bits, &l, path, &r);
    *cons = cs->num_constraints - c0;
    int ok = proxy_satisfied(cs) && cs->num_inputs == 1;
    cz_cs_destroy(cs);
    return ok;
}

static void test_no_challenge_input(void) {
    cz_por_shape s;
    CHECK(cz_por_shape_make(&s, CZ_POR_POSEIDON, 8, 8, 2, 1024) == CZ_OK);
    cz_fr leaves[1024], sib[22], root;
    for (int k = 0; k < 1024; k++) random_fr(&leaves[k]);
    uint64_t index = cz_test_rand64() % 1024, cons = 0;
    CHECK(cz_por_native_path(&root, sib, &s, leaves, index) == CZ_OK);
    CHECK(run_no_challenge(&s, &leaves[index], index, sib, &root, &cons));
    CHECK(cons == 3 * (22 + 505) + (2 + 311) + 1);
    random_fr(&sib[cz_test_rand64() % 22]);
    CHECK(!run_no_challenge(&s, &leaves[index], index, sib, &root, &cons));
}

int main(void) {
    cz_test_init("gadgets/por");
    test_shapes();
    test_counts();
    test_native_sha();
    test_satisfied();
    test_verify();
    test_no_challenge_input();
    return cz_test_finish("gadgets/por");
}
