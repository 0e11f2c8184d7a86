/* Poseidon circuit: constraint and aux counts against neptune's
 * circuit tests and Filecoin's hash_md figure (311 ... 1385, 2,770), the
 * output against the native hash (itself checked against the published
 * digests and the Python model) and the Python vectors, satisfaction on the
 * check back-end, the same structure with and without a witness, the exact
 * shape of the first constraints, the template replay against the direct
 * synthesis, tampered witnesses that must fail, and the witness back-end's
 * assignment (direct synthesis, no combinations) against the prove
 * back-end's (template replay). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gadget_test_cs.h"
#include "gadgets/poseidon.h"
#include "harness/harness.h"
#include "hash/poseidon.h"

static const unsigned arities[] = {2, 4, 8, 11, 16, 24, 36};
static const uint64_t expected_cost[] = {311, 377, 505, 598, 761, 1009, 1385};
#define NUM_ARITIES (sizeof arities / sizeof arities[0])

static void random_fr(cz_fr *r) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(r, b, sizeof b);
}

/* Synthesizes Poseidon over `arity` fresh aux inputs with values x (NULL:
 * no witness) on cs; returns the output. */
static cz_num synth_hash(cz_cs *cs, unsigned arity, const cz_fr *x) {
    cz_num in[CZ_POSEIDON_MAX_ARITY], out;
    for (unsigned i = 0; i < arity; i++) cz_num_alloc(cs, &in[i], x ? &x[i] : NULL);
    cz_poseidon_gadget_hash(cs, &out, in, arity);
    return out;
}

static void test_counts(void) {
    for (unsigned a = 0; a < NUM_ARITIES; a++) {
        cz_cs *cs = cz_cs_count_new();
        synth_hash(cs, arities[a], NULL);
        CHECK(cz_cs_status(cs) == CZ_OK);
        if (cs->num_constraints != expected_cost[a])
            printf("  arity %u: %llu constraints\n", arities[a],
                   (unsigned long long)cs->num_constraints);
        CHECK(cs->num_constraints == expected_cost[a]);
        CHECK(cs->num_aux == arities[a] + expected_cost[a]); /* inputs + one per constraint */
        CHECK(cs->num_inputs == 1);
        cz_cs_destroy(cs);
    }
    /* hash_md over 71 elements: two arity-36 hashes, 2,770 constraints */
    cz_cs *cs = cz_cs_count_new();
    cz_num in[72], out;
    for (unsigned i = 0; i < 72; i++) cz_num_alloc(cs, &in[i], NULL);
    uint32_t aux0 = cs->num_aux;
    cz_poseidon_gadget_hash_md(cs, &out, in, 71);
    CHECK(cz_cs_status(cs) == CZ_OK && cs->num_constraints == 2770);
    CHECK(cs->num_aux - aux0 == 2770);
    /* 72: a third hash of one element and 34 padding zeros (aux, no constraint) */
    uint64_t k0 = cs->num_constraints;
    aux0 = cs->num_aux;
    cz_poseidon_gadget_hash_md(cs, &out, in, 72);
    CHECK(cs->num_constraints - k0 == 3 * 1385 && cs->num_aux - aux0 == 3 * 1385 + 34);
    cz_cs_destroy(cs);
    /* errors are sticky */
    cs = cz_cs_count_new();
    synth_hash(cs, 3, NULL);
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
    cs = cz_cs_count_new();
    cz_poseidon_gadget_hash_md(cs, &out, in, 1);
    CHECK(cz_cs_status(cs) == CZ_E_INVALID_ARG);
    cz_cs_destroy(cs);
}

static int term_is(const proxy_constraint *k, int m, uint32_t idx, cz_var var, const cz_fr *c) {
    return idx < k->len[m] && k->terms[m][idx].var == var &&
           cz_fr_equal(&k->terms[m][idx].coeff, c);
}

/* Value and satisfaction, structure with vs without witness, exact shapes. */
static void test_values(void) {
    unsigned iters = cz_test_iters(2);
    for (unsigned a = 0; a < NUM_ARITIES; a++) {
        unsigned arity = arities[a];
        const cz_poseidon_params *p = cz_poseidon_params_get(arity);
        for (unsigned it = 0; it < iters; it++) {
            cz_fr x[CZ_POSEIDON_MAX_ARITY], want;
            for (unsigned i = 0; i < arity; i++) random_fr(&x[i]);
            CHECK(cz_poseidon_hash(&want, x, arity) == CZ_OK);

            cz_cs *cs = proxy_new(1);
            proxy_of(cs)->record = (it == 0);
            cz_num out = synth_hash(cs, arity, x);
            CHECK(proxy_satisfied(cs));
            CHECK(cz_fr_equal(&out.value, &want));
            CHECK(out.var == arity + expected_cost[a] - 1); /* the last aux */

            cz_cs *bare = proxy_new(0);
            synth_hash(bare, arity, NULL);
            CHECK(proxy_ok(bare) && proxy_of(bare)->digest == proxy_of(cs)->digest);
            cz_cs_destroy(bare);

            /* the template replay emits exactly the reference synthesis */
            for (int w = 0; w < 2; w++) {
                cz_cs *ref = proxy_new(!w);
                cz_num in[CZ_POSEIDON_MAX_ARITY], rout;
                for (unsigned i = 0; i < arity; i++) cz_num_alloc(ref, &in[i], &x[i]);
                cz_poseidon_gadget_hash_reference(ref, &rout, in, arity, &p->merkle_tag);
                CHECK(proxy_ok(ref) && proxy_of(ref)->digest == proxy_of(cs)->digest);
                CHECK(rout.var == out.var && ref->num_aux == cs->num_aux);
                if (!w) CHECK(proxy_satisfied(ref) && cz_fr_equal(&rout.value, &want));
                cz_cs_destroy(ref);
            }

            if (it == 0) {
                proxy_cs *px = proxy_of(cs);
                unsigned t = p->width;
                cz_fr neg;
                /* input 0 (aux 0): q = (x + crc[1])^2 at aux arity */
                const proxy_constraint *k0 = &px->cons[0], *k2 = &px->cons[2];
                CHECK(k0->len[0] == 2 && term_is(k0, 0, 0, 0, &cz_fr_one) &&
                      term_is(k0, 0, 1, CZ_VAR_ONE, &p->compressed[1]));
                CHECK(k0->len[1] == 2 && term_is(k0, 1, 0, 0, &cz_fr_one) &&
                      term_is(k0, 1, 1, CZ_VAR_ONE, &p->compressed[1]));
                CHECK(k0->len[2] == 1 && term_is(k0, 2, 0, arity, &cz_fr_one));
                /* q4 = q * q */
                CHECK(LC_IS(cs, 1, 0, T(arity, 1)) && LC_IS(cs, 1, 1, T(arity, 1)) &&
                      LC_IS(cs, 1, 2, T(arity + 1, 1)));
                /* (x + crc[1]) * q4 = y - crc[t + 1] */
                cz_fr_neg(&neg, &p->compressed[t + 1]);
                CHECK(k2->len[0] == 2 && term_is(k2, 0, 0, 0, &cz_fr_one) &&
                      term_is(k2, 0, 1, CZ_VAR_ONE, &p->compressed[1]));
                CHECK(LC_IS(cs, 2, 1, T(arity + 1, 1)));
                CHECK(k2->len[2] == 2 && term_is(k2, 2, 0, arity + 2, &cz_fr_one) &&
                      term_is(k2, 2, 1, CZ_VAR_ONE, &neg));
                /* round 1, element 0: LC * ONE = u; the LC holds ONE (the
                 * constant tag) and every first-round y */
                uint64_t kr = 3 * (uint64_t)arity;
                const proxy_constraint *k = &px->cons[kr];
                CHECK(k->len[0] == t);
                CHECK(LC_IS(cs, kr, 1, T(CZ_VAR_ONE, 1)));
                CHECK(LC_IS(cs, kr, 2, T(arity + 3 * arity, 1)));
                /* the last S-box has no constant: u * u4 = y */
                uint64_t n = px->n_cons;
                CHECK(n == expected_cost[a]);
                CHECK(LC_IS(cs, n - 2, 2, T(out.var - 1, 1)));
                /* sizes of the S-box input combinations (merged per variable):
                 * rounds 1..3 name the t values of the round before (round 1:
                 * ONE for the constant tag and the arity y's); partial round r
                 * names the t values before the partial rounds and the r
                 * earlier partial outputs; the first full round after them
                 * t + RP; later rounds t. */
                uint32_t rp = p->partial_rounds, h = 4, sizes_ok = 1;
                for (uint32_t round = 1; round < 8 + rp; round++) {
                    int partial = round >= h && round < h + rp;
                    uint64_t base =
                        3 * (uint64_t)arity +
                        (round <= h
                             ? (round - 1) * 4 * (uint64_t)t
                             : (h - 1) * 4 * (uint64_t)t +
                                   4 * (uint64_t)(round < h + rp ? round - h : rp) +
                                   (round > h + rp ? (round - h - rp) * 4 * (uint64_t)t : 0));
                    uint32_t want_len = partial ? t + (round - h) : round == h + rp ? t + rp : t;
                    for (uint32_t j = 0; j < (partial ? 1 : t); j++) {
                        const proxy_constraint *kk = &px->cons[base + 4 * j];
                        sizes_ok &= kk->len[0] == want_len && kk->len[1] == 1 && kk->len[2] == 1;
                    }
                }
                CHECK(sizes_ok);
                /* the output: LC * ONE = out */
                CHECK(LC_IS(cs, n - 1, 1, T(CZ_VAR_ONE, 1)) && LC_IS(cs, n - 1, 2, T(out.var, 1)));
            }
            cz_cs_destroy(cs);
        }
    }
}

/* Changing any one of a few aux values (first q, a middle S-box input, a
 * partial-round y, the output) must break a constraint. */
static void test_tampering(void) {
    for (unsigned a = 0; a < NUM_ARITIES; a += 3) {
        unsigned arity = arities[a];
        uint32_t last = arity + (uint32_t)expected_cost[a] - 1;
        uint32_t targets[] = {arity, arity + 2, arity + 3 * arity, last / 2, last - 1, last};
        cz_fr x[CZ_POSEIDON_MAX_ARITY];
        for (unsigned i = 0; i < arity; i++) random_fr(&x[i]);
        for (unsigned k = 0; k < sizeof targets / sizeof targets[0]; k++) {
            cz_cs *cs = proxy_new(1);
            cz_fr v;
            random_fr(&v);
            proxy_set(cs, targets[k], &v);
            synth_hash(cs, arity, x);
            CHECK(proxy_ok(cs) && !proxy_satisfied(cs));
            cz_cs_destroy(cs);
        }
    }
}

/* hash_md and explicit tags against the Python vectors (poseidon_hash.txt). */
static void read_fr(cz_vector_file *vf, int i, cz_fr *r) {
    uint8_t be[32];
    CHECK(cz_vector_hex(vf, i, be, 32));
    CHECK(cz_fr_from_bytes_be(r, be));
}

static void test_vectors(void) {
    cz_vector_file vf;
    CHECK(cz_vector_open(&vf, "poseidon_hash.txt"));
    unsigned cases = 0;
    while (cz_vector_next(&vf)) {
        cz_fr xs[128], tag, want;
        cz_num in[128], out;
        int kind = atoi(vf.fields[0]);
        size_t n = strtoul(vf.fields[1], NULL, 10);
        if (n > 72) continue;
        cz_cs *cs = proxy_new(1);
        if (kind == 0) {
            if (vf.nfields != (int)(4 + n)) break;
            read_fr(&vf, 2, &tag);
            for (size_t i = 0; i < n; i++) read_fr(&vf, 3 + (int)i, &xs[i]);
            read_fr(&vf, 3 + (int)n, &want);
            for (size_t i = 0; i < n; i++) cz_num_alloc(cs, &in[i], &xs[i]);
            cz_poseidon_gadget_hash_tag(cs, &out, in, (unsigned)n, &tag);
        } else {
            if (vf.nfields != (int)(3 + n)) break;
            for (size_t i = 0; i < n; i++) read_fr(&vf, 2 + (int)i, &xs[i]);
            read_fr(&vf, 2 + (int)n, &want);
            for (size_t i = 0; i < n; i++) cz_num_alloc(cs, &in[i], &xs[i]);
            cz_poseidon_gadget_hash_md(cs, &out, in, n);
        }
        CHECK(proxy_satisfied(cs) && cz_fr_equal(&out.value, &want));
        cz_cs_destroy(cs);
        cases++;
    }
    cz_vector_close(&vf);
    CHECK(cases > 30);
}

/* Preimage variables that are inputs or repeated (merged coefficients). */
static void test_shared_inputs(void) {
    cz_fr x, want, pre[2];
    random_fr(&x);
    pre[0] = pre[1] = x;
    CHECK(cz_poseidon_hash(&want, pre, 2) == CZ_OK);
    cz_cs *cs = proxy_new(1);
    cz_num in[2], out;
    cz_num_alloc_input(cs, &in[0], &x);
    in[1] = in[0];
    cz_poseidon_gadget_hash(cs, &out, in, 2);
    CHECK(proxy_satisfied(cs) && cz_fr_equal(&out.value, &want));
    CHECK(cs->num_constraints == 311 && cs->num_aux == 311);
    cz_cs_destroy(cs);
}

/* The first synthesis of an arity from several threads at once (the
 * template is built once, under a lock). */
static void *count_arity_16(void *arg) {
    uint64_t *n = arg;
    cz_cs *cs = cz_cs_count_new();
    synth_hash(cs, 16, NULL);
    *n = cz_cs_status(cs) == CZ_OK ? cs->num_constraints : 0;
    cz_cs_destroy(cs);
    return NULL;
}

static void test_concurrent_first_use(void) {
    pthread_t th[4];
    uint64_t n[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&th[i], NULL, count_arity_16, &n[i]) == 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++) CHECK(n[i] == 761);
}

/* The witness back-end (no combinations: the direct synthesis, values from
 * the round function) gives the prove back-end's assignment (the template
 * replay, combinations evaluated), for every arity and for hash_md. */
typedef struct {
    unsigned n, arity; /* arity 0: hash_md over n */
    const cz_fr *x;
} hash_ctx;

static void hash_fn(cz_cs *cs, void *ctx) {
    const hash_ctx *h = ctx;
    cz_num in[80], out;
    for (unsigned i = 0; i < h->n; i++) cz_num_alloc(cs, &in[i], &h->x[i]);
    if (h->arity)
        cz_poseidon_gadget_hash(cs, &out, in, h->arity);
    else
        cz_poseidon_gadget_hash_md(cs, &out, in, h->n);
    cz_num_inputize(cs, &out);
}

static void test_witness_only(void) {
    cz_fr x[80];
    for (unsigned i = 0; i < 80; i++) random_fr(&x[i]);
    int all = 1;
    for (unsigned a = 0; a < NUM_ARITIES; a++) {
        hash_ctx h = {arities[a], arities[a], x};
        all &= witness_matches_prove(hash_fn, &h);
    }
    hash_ctx md = {71, 0, x};
    all &= witness_matches_prove(hash_fn, &md);
    printf("witness back-end (direct synthesis) = prove back-end (template), every arity and "
           "hash_md: %s\n",
           all ? "yes" : "NO");
    CHECK(all);
}

int main(void) {
    cz_test_init("gadgets/poseidon");
    test_concurrent_first_use();
    test_counts();
    test_values();
    test_tampering();
    test_vectors();
    test_shared_inputs();
    test_witness_only();
    return cz_test_finish("gadgets/poseidon");
}
