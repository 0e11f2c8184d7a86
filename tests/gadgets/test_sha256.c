/* The SHA-256 gadget (with UInt32, MultiEq and the boolean gadgets under it):
 *  - exact constraint / aux counts from bellperson's tests and the Filecoin
 *    circuit budget;
 *  - digests against OpenSSL on random messages of 0..200 bytes, with the
 *    check back-end satisfied and the same structure with and without a
 *    witness;
 *  - soundness spot checks: flipping one aux value (a message bit or an
 *    intermediate bit) makes the check back-end fail;
 *  - the witness back-end (no combinations built) gives the prove
 *    back-end's assignment. */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "gadgets/multipack.h"
#include "gadgets/num.h"
#include "gadgets/sha256.h"
#include "gadget_test_cs.h"
#include "harness/harness.h"
#include "r1cs/backends.h"

/* ---- helpers ---- */

static void openssl_sha256(uint8_t out[32], const uint8_t *msg, size_t len) {
    unsigned int n = 0;
    CHECK(EVP_Digest(msg, len, out, &n, EVP_sha256(), NULL) == 1 && n == 32);
}

/* The message's bits (bytes most significant bit first) as allocated bits. */
static cz_bool *alloc_message(cz_cs *cs, const uint8_t *msg, size_t len) {
    cz_bool *bits = malloc((8 * len + 1) * sizeof *bits);
    for (size_t i = 0; i < 8 * len; i++)
        bits[i] = cz_bit_alloc(cs, (msg[i / 8] >> (7 - i % 8)) & 1);
    return bits;
}

static int digest_matches(const cz_bool out[256], const uint8_t want[32]) {
    for (int i = 0; i < 256; i++)
        if (cz_bool_value(out[i]) != ((want[i / 8] >> (7 - i % 8)) & 1)) return 0;
    return 1;
}

typedef struct {
    uint64_t constraints, aux;
} sizes;

static sizes size_of(const cz_cs *cs) {
    sizes s = {cs->num_constraints, cs->num_aux};
    return s;
}

/* ---- counts ---- */

static void test_compression_counts(void) {
    /* bellperson test_full_block: 512 allocated input bits, one compression
     * from the (constant) IV; 25,840 = all constraints minus the 512 boolean
     * constraints of the input bits. */
    cz_cs *cs = cz_cs_count_new();
    uint8_t block[64] = {0};
    cz_bool *bits = alloc_message(cs, block, 64);
    CHECK(cs->num_constraints == 512 && cs->num_aux == 512);
    cz_u32 state[8];
    cz_sha256_iv(state);
    cz_sha256_compression(cs, state, bits, state);
    CHECK(cz_cs_status(cs) == CZ_OK);
    printf("  compression of 512 allocated bits: %llu constraints, %u aux (beyond the 512 bits)\n",
           (unsigned long long)cs->num_constraints - 512, cs->num_aux - 512);
    CHECK(cs->num_constraints - 512 == 25840);
    /* every aux is a bit with one constraint of its own, so aux = 25,840
     * minus the MultiEq constraints: 26 (48 addmany of 34 bits, 126 of 35
     * bits in the rounds, 35+33+33+33+35+33+33+33 at the end, packed while
     * below 254 bits) */
    CHECK(cs->num_aux - 512 == 25840 - 26);
    CHECK(cs->num_inputs == 1);
    free(bits);
    cz_cs_destroy(cs);

    /* bellperson test_full_hash: sha256 (with padding) of 512 allocated bits */
    cs = cz_cs_count_new();
    bits = alloc_message(cs, block, 64);
    cz_bool out[256];
    cz_sha256(cs, out, bits, 512);
    CHECK(cz_cs_status(cs) == CZ_OK);
    printf("  sha256 of 512 allocated bits: %llu constraints, %u aux (beyond the 512 bits)\n",
           (unsigned long long)cs->num_constraints - 512, cs->num_aux - 512);
    CHECK(cs->num_constraints - 512 == 44874);
    /* aux = constraints minus the MultiEq constraints: 26 for the first
     * block, 20 for the constant padding block (its schedule folds to
     * constants, leaving 126 round additions of 35 bits and the final 8) */
    CHECK(cs->num_aux - 512 == 44874 - 26 - 20);
    free(bits);
    cz_cs_destroy(cs);

    /* bellperson test_blank_hash: a constant block folds completely */
    cs = cz_cs_check_new();
    cz_bool blank[512];
    for (int i = 0; i < 512; i++) blank[i] = cz_bool_const(i == 0);
    cz_bool digest[256];
    cz_sha256_block_no_padding(cs, digest, blank);
    uint8_t want[32];
    openssl_sha256(want, NULL, 0);
    CHECK(cs->num_constraints == 0 && cs->num_aux == 0);
    CHECK(digest_matches(digest, want));
    for (int i = 0; i < 256; i++) CHECK(cz_bool_is_const(digest[i]));
    cz_cs_destroy(cs);
}

/* Filecoin's byte-bits of a 255-bit decomposition: the 255 allocated bits, a
 * constant false bit 255, bits reversed within each byte. */
static void byte_bits(cz_bool out[256], const cz_bool le[255]) {
    cz_bool t[256];
    memcpy(t, le, 255 * sizeof *le);
    t[255] = cz_bool_const(0);
    cz_bits_reverse_bytes(out, t, 256);
}

static void test_filecoin_counts(void) {
    /* Tree-D node hash: sha256 of two fr-safe words = 510
     * allocated bits and constant bits at positions 248 and 504:
     * 44,866 constraints and 44,820 aux for the gadget alone. The whole
     * level adds 2 x to_bits (2 x 256), insert_2 (2), the index bit (1) and
     * the fr-safe pack (1): 45,382 constraints, 45,335 aux. */
    cz_cs *cs = cz_cs_count_new();
    cz_bool index_bit = cz_bit_alloc(cs, 0);
    cz_num cur, sib, children[2];
    cz_num_alloc(cs, &cur, NULL);
    sizes s0 = size_of(cs);
    cz_num_alloc(cs, &sib, NULL);
    cz_num_insert(cs, children, &cur, &index_bit, 1, &sib);
    cz_bool msg[512], le[255];
    for (int k = 0; k < 2; k++) {
        cz_num_to_bits_le(cs, le, &children[k]);
        byte_bits(&msg[256 * k], le);
    }
    CHECK(cz_bool_is_const(msg[248]) && cz_bool_is_const(msg[504]));
    sizes s1 = size_of(cs);
    cz_bool digest[256], reversed[256];
    cz_sha256(cs, digest, msg, 512);
    sizes s2 = size_of(cs);
    cz_bits_reverse_bytes(reversed, digest, 256);
    cz_num node;
    cz_pack_bits(cs, &node, reversed, 256);
    sizes s3 = size_of(cs);
    CHECK(cz_cs_status(cs) == CZ_OK);
    printf("  tree-D node sha256: %llu constraints, %llu aux; level: %llu, %llu\n",
           (unsigned long long)(s2.constraints - s1.constraints),
           (unsigned long long)(s2.aux - s1.aux),
           (unsigned long long)(s3.constraints - s0.constraints + 1),
           (unsigned long long)(s3.aux - s0.aux + 1));
    CHECK(s2.constraints - s1.constraints == 44866);
    CHECK(s2.aux - s1.aux == 44820);
    /* + the index bit's constraint and the index bit itself */
    CHECK(s3.constraints - s0.constraints + 1 == 45382);
    CHECK(s3.aux - s0.aux + 1 == 45335);
    cz_cs_destroy(cs);

    /* hash_leaf_bits_circuit with 512 allocated bits (rust-fil-proofs
     * util.rs test): the bits, sha256, fr-safe pack = 45,387 constraints. */
    cs = cz_cs_count_new();
    uint8_t zero[64] = {0};
    cz_bool *bits = alloc_message(cs, zero, 64);
    cz_sha256(cs, digest, bits, 512);
    cz_bits_reverse_bytes(reversed, digest, 256);
    cz_pack_bits(cs, &node, reversed, 256);
    CHECK(cz_cs_status(cs) == CZ_OK && cs->num_constraints == 45387);
    free(bits);
    cz_cs_destroy(cs);

    /* A PoRep label (create_label.rs, layer 1): replica id byte-bits (256),
     * layer 1 as 32 constant bits, the challenge's 64 allocated bits MSB
     * first, 160 constant false bits, 37 parents (6 DRG parents' byte-bits,
     * repeated 6 times, then the first again): 9,984 bits. The SHA-256
     * gadget alone: 522,268 constraints, 521,748 aux. */
    cs = cz_cs_count_new();
    cz_bool *label = malloc(9984 * sizeof *label);
    cz_num x;
    cz_num_alloc(cs, &x, NULL);
    cz_num_to_bits_le(cs, le, &x);
    byte_bits(label, le);
    for (int i = 0; i < 32; i++) label[256 + i] = cz_bool_const(i == 31);
    cz_bool challenge[64];
    cz_bits_alloc_u64_le(cs, challenge, 64, 0);
    for (int i = 0; i < 64; i++) label[288 + i] = challenge[63 - i];
    for (int i = 0; i < 160; i++) label[352 + i] = cz_bool_const(0);
    cz_bool parents[6][256];
    for (int p = 0; p < 6; p++) {
        cz_num_alloc(cs, &x, NULL);
        cz_num_to_bits_le(cs, le, &x);
        byte_bits(parents[p], le);
    }
    for (int k = 0; k < 37; k++) memcpy(&label[512 + 256 * k], parents[k % 6], sizeof parents[0]);
    s1 = size_of(cs);
    cz_sha256(cs, digest, label, 9984);
    s2 = size_of(cs);
    CHECK(cz_cs_status(cs) == CZ_OK);
    printf("  label sha256 (1248 bytes): %llu constraints, %llu aux\n",
           (unsigned long long)(s2.constraints - s1.constraints),
           (unsigned long long)(s2.aux - s1.aux));
    CHECK(s2.constraints - s1.constraints == 522268);
    CHECK(s2.aux - s1.aux == 521748);
    free(label);
    cz_cs_destroy(cs);
}

/* ---- digests ---- */

/* Hashes msg with allocated bits on a proxy cs; returns the digest match. */
static int hash_on(cz_cs *cs, const uint8_t *msg, size_t len, const uint8_t want[32]) {
    cz_bool *bits = alloc_message(cs, msg, len);
    cz_bool out[256];
    cz_sha256(cs, out, bits, 8 * len);
    free(bits);
    return want ? digest_matches(out, want) : 1;
}

/* Every length up to 72 bytes (one and two blocks, every padding boundary),
 * then every 4th length and the two-block/three-block boundaries up to 200;
 * all lengths with CZ_TEST_ITERS >= 200. */
static int length_selected(size_t len) {
    size_t r = len % 64;
    return len <= 72 || len % 4 == 0 || r == 55 || r == 56 || r == 63 || r == 1 ||
           cz_test_iters(0) >= 200;
}

static void test_against_openssl(void) {
    uint8_t msg[200], want[32];
    int tested = 0, mismatches = 0, unsatisfied = 0, structure = 0;
    for (size_t len = 0; len <= 200; len++) {
        if (!length_selected(len)) continue;
        tested++;
        cz_test_rand_bytes(msg, len);
        openssl_sha256(want, msg, len);
        cz_cs *w = proxy_new(1), *n = proxy_new(0);
        if (!hash_on(w, msg, len, want)) mismatches++;
        if (!proxy_satisfied(w)) unsatisfied++;
        hash_on(n, msg, len, NULL);
        /* identical structure without a witness */
        if (!proxy_ok(n) || proxy_of(w)->digest != proxy_of(n)->digest ||
            w->num_constraints != n->num_constraints || w->num_aux != n->num_aux)
            structure++;
        cz_cs_destroy(w);
        cz_cs_destroy(n);
    }
    CHECK(mismatches == 0);
    CHECK(unsatisfied == 0);
    CHECK(structure == 0);
    printf("  %d messages of 0..200 bytes: %d digest mismatches, %d unsatisfied, %d structure "
           "differences\n",
           tested, mismatches, unsatisfied, structure);

    /* partly constant messages (constant bytes fold): digest still right */
    for (int t = 0; t < 8; t++) {
        size_t len = 1 + cz_test_rand64() % 120;
        cz_test_rand_bytes(msg, len);
        openssl_sha256(want, msg, len);
        cz_cs *cs = proxy_new(1);
        cz_bool *bits = alloc_message(cs, msg, len);
        for (size_t i = 0; i < 8 * len; i++)
            if (cz_test_rand64() % 3 == 0)
                bits[i] = cz_bool_const(cz_bool_value(bits[i]));
            else if (cz_test_rand64() % 4 == 0) { /* a NOT of a bit holding the inverse */
                cz_bool nb = cz_bit_alloc(cs, !cz_bool_value(bits[i]));
                bits[i] = cz_bool_not(nb);
            }
        cz_bool out[256];
        cz_sha256(cs, out, bits, 8 * len);
        CHECK(digest_matches(out, want));
        CHECK(proxy_satisfied(cs));
        free(bits);
        cz_cs_destroy(cs);
    }
}

/* ---- soundness spot checks ---- */

static void test_tampering(void) {
    uint8_t msg[80], want[32];
    size_t len = 55 + cz_test_rand64() % 25; /* one or two blocks */
    cz_test_rand_bytes(msg, len);
    openssl_sha256(want, msg, len);
    cz_cs *ref = proxy_new(1);
    CHECK(hash_on(ref, msg, len, want) && proxy_satisfied(ref));
    uint32_t total_aux = ref->num_aux, message_aux = (uint32_t)(8 * len);
    cz_cs_destroy(ref);

    /* every message bit among the first 16, a sample of the rest, of the
     * intermediate bits and the very last ones */
    unsigned samples = cz_test_iters(48);
    int caught = 0, tried = 0;
    for (unsigned k = 0; k < samples + 20; k++) {
        uint32_t pos;
        if (k < 16)
            pos = k;
        else if (k < 24)
            pos = (uint32_t)(cz_test_rand64() % message_aux);
        else if (k < 28)
            pos = total_aux - 1 - (k - 24);
        else
            pos = message_aux + (uint32_t)(cz_test_rand64() % (total_aux - message_aux));
        cz_cs *cs = proxy_new(1);
        proxy_of(cs)->hash = 0;
        proxy_flip(cs, pos);
        hash_on(cs, msg, len, NULL);
        tried++;
        if (proxy_ok(cs) && !proxy_satisfied(cs))
            caught++;
        else
            printf("  flipping aux %u went unnoticed\n", pos);
        cz_cs_destroy(cs);
    }
    printf("  flipped %d single aux values (of %u): %d made the check fail\n", tried, total_aux,
           caught);
    CHECK(caught == tried);
}

/* The witness back-end (no combinations built; addmany, packing and bit
 * gadgets take their witness-only shortcuts) gives the prove back-end's
 * assignment: SHA-256 of partly constant / negated message bits, the digest
 * packed into aux and into inputs, and a strict decomposition. */
typedef struct {
    const uint8_t *msg, *kind; /* kind per bit: 0 allocated, 1 constant, 2 NOT of the inverse */
    size_t len;
    cz_fr x;
} sha_ctx;

static void sha_fn(cz_cs *cs, void *ctx) {
    const sha_ctx *c = ctx;
    cz_bool *bits = alloc_message(cs, c->msg, c->len), out[256];
    for (size_t i = 0; i < 8 * c->len; i++)
        if (c->kind[i] == 1)
            bits[i] = cz_bool_const(cz_bool_value(bits[i]));
        else if (c->kind[i] == 2)
            bits[i] = cz_bool_not(cz_bit_alloc(cs, !cz_bool_value(bits[i])));
    cz_sha256(cs, out, bits, 8 * c->len);
    cz_num packed, x;
    cz_pack_bits(cs, &packed, out, 256);
    cz_pack_into_inputs(cs, out, 256);
    cz_num_alloc(cs, &x, &c->x);
    cz_bool xb[CZ_NUM_BITS];
    cz_num_to_bits_le_strict(cs, xb, &x);
    free(bits);
}

static void test_witness_only(void) {
    int all = 1;
    for (int t = 0; t < 6; t++) {
        uint8_t msg[120], kind[960];
        sha_ctx c = {msg, kind, 1 + cz_test_rand64() % 120, cz_fr_zero};
        cz_test_rand_bytes(msg, c.len);
        for (size_t i = 0; i < 8 * c.len; i++) kind[i] = t ? (uint8_t)(cz_test_rand64() % 3) : 0;
        uint8_t b[32];
        cz_test_rand_bytes(b, 32);
        b[31] &= 0x3f;
        CHECK(cz_fr_from_bytes_le(&c.x, b));
        all &= witness_matches_prove(sha_fn, &c);
    }
    printf("  witness back-end = prove back-end (sha256, packing, strict bits): %s\n",
           all ? "yes" : "NO");
    CHECK(all);
}

int main(void) {
    cz_test_init("gadgets/sha256");
    test_compression_counts();
    test_filecoin_counts();
    test_against_openssl();
    test_tampering();
    test_witness_only();
    return cz_test_finish("gadgets/sha256");
}
