/* Groth16 interoperability, judged by implementations that share no code
 * with cuzk (issue 3's acceptance):
 *
 *  - @noble/curves (tests/oracle/verify_noble.mjs, its own BLS12-381 and
 *    pairing) verifies OUR proofs against OUR .vk files, read from the bytes
 *    (bellperson layout) and the 192-byte proof encoding: good proofs are
 *    accepted; a wrong public input, a proof with C moved by the generator,
 *    a garbled encoding and a proof under another key are rejected;
 *  - snarkjs (tests/oracle/snarkjs_roundtrip.mjs) reads our circuits and
 *    witnesses exported in iden3's .r1cs / .wtns formats (r1cs/export.h):
 *    `wtns check` accepts the witness and rejects a corrupted one; for the
 *    small circuits it runs its own Groth16 (powers of tau, phase 2, prove,
 *    verify), and the converted key and proof are accepted by OUR verifier
 *    (cz_groth16_verify, from the files) and by noble, and rejected with a
 *    wrong public input or under our key; snarkjs's public signals equal
 *    our input assignment (the wire mapping).
 *
 * Circuits, built through our gadgets and the r1cs back-ends:
 *   cubic    x^3 + x + 5 = y, y public (3 constraints);
 *   gadgets  UInt32 alloc / xor / maj / addmany (MultiEq) with the results
 *            packed into 2 public inputs (229 constraints, snarkjs 2^8);
 *   sha256   a 33-byte SHA-256 preimage (allocated bits), the digest packed
 *            into 2 public inputs (multipack); the expected inputs come from
 *            OpenSSL's SHA-256 (one compression, ~26k constraints: noble and
 *            `wtns check` only, snarkjs's setup would take minutes).
 *
 * Skips (exit 77, ctest SKIP_RETURN_CODE) when node or
 * tests/oracle/node_modules is missing. The work directory is removed on
 * success (unless $CZ_INTEROP_KEEP is set) and kept on failure. */
#include <ftw.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gadgets/boolean.h"
#include "gadgets/multieq.h"
#include "gadgets/multipack.h"
#include "gadgets/sha256.h"
#include "gadgets/uint32.h"
#include "groth16/groth16.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "harness/harness.h"
#include "r1cs/backends.h"
#include "r1cs/export.h"

#ifndef CZ_NODE
#define CZ_NODE ""
#endif
#ifndef CZ_ORACLE_DIR
#error "CZ_ORACLE_DIR must name tests/oracle (set by tests/CMakeLists.txt)"
#endif

#define SKIP_STATUS 77
#define NAME        "interop/groth16"

/* ---- circuits ---- */

static void fr_u64(cz_fr *r, uint64_t v) {
    cz_fr_from_u64(r, v);
}

/* x^3 + x + 5 = y: aux x, x2, x3; input y. */
#define CUBIC_X 3
static void synth_cubic(cz_cs *cs) {
    int w = cz_cs_has_witness(cs);
    cz_fr x, x2, x3, y, five;
    fr_u64(&x, CUBIC_X);
    cz_fr_sqr(&x2, &x);
    cz_fr_mul(&x3, &x2, &x);
    fr_u64(&five, 5);
    cz_fr_add(&y, &x3, &x);
    cz_fr_add(&y, &y, &five);
    cz_var vx = cz_cs_alloc(cs, w ? &x : NULL);
    cz_var vx2 = cz_cs_alloc(cs, w ? &x2 : NULL);
    cz_var vx3 = cz_cs_alloc(cs, w ? &x3 : NULL);
    cz_var vy = cz_cs_alloc_input(cs, w ? &y : NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    cz_lc_add_var(&a, vx), cz_lc_add_var(&b, vx), cz_lc_add_var(&c, vx2);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&a, vx2), cz_lc_add_var(&b, vx), cz_lc_add_var(&c, vx3);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&a, vx3), cz_lc_add_var(&a, vx), cz_lc_add(&a, CZ_VAR_ONE, &five);
    cz_lc_add_var(&b, CZ_VAR_ONE), cz_lc_add_var(&c, vy);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
}

static void expect_cubic(cz_fr *inputs) {
    fr_u64(&inputs[0], (uint64_t)CUBIC_X * CUBIC_X * CUBIC_X + CUBIC_X + 5);
}

static const uint32_t GADGET_WORDS[3] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u};

static void synth_gadgets(cz_cs *cs) {
    cz_u32 ops[3], x, m, s;
    for (int i = 0; i < 3; i++) cz_u32_alloc(cs, &ops[i], GADGET_WORDS[i]);
    cz_u32_xor(cs, &x, &ops[0], &ops[1]);
    cz_u32_sha256_maj(cs, &m, &ops[0], &ops[1], &ops[2]);
    cz_multieq me;
    cz_multieq_init(&me, cs);
    cz_u32_addmany(&me, &s, ops, 3);
    cz_multieq_finish(&me);
    cz_bool bits[64];
    cz_u32_to_bits_le(bits, &x);
    cz_u32_to_bits_le(bits + 32, &s);
    cz_pack_into_inputs(cs, bits, 64);
    cz_u32_to_bits_le(bits, &m);
    cz_pack_into_inputs(cs, bits, 32);
}

/* Packing, computed here: input 0 = x + 2^32 s (bits LE), input 1 = maj. */
static void expect_gadgets(cz_fr *inputs) {
    uint32_t a = GADGET_WORDS[0], b = GADGET_WORDS[1], c = GADGET_WORDS[2];
    uint32_t x = a ^ b, s = a + b + c, maj = (a & b) ^ (a & c) ^ (b & c);
    fr_u64(&inputs[0], (uint64_t)x | (uint64_t)s << 32);
    fr_u64(&inputs[1], maj);
}

static const char SHA_MESSAGE[] = "cuzk: Groth16 interop, preimage!!"; /* 33 bytes */

static void synth_sha256(cz_cs *cs) {
    size_t n = sizeof SHA_MESSAGE - 1, nbits = 8 * n;
    cz_bool msg[8 * sizeof SHA_MESSAGE], digest[256];
    for (size_t i = 0; i < nbits; i++) {
        int bit = ((uint8_t)SHA_MESSAGE[i / 8] >> (7 - i % 8)) & 1;
        msg[i] = cz_bit_alloc(cs, bit);
    }
    cz_sha256(cs, digest, msg, nbits);
    cz_pack_into_inputs(cs, digest, 256);
}

/* OpenSSL's digest; the 256 bits (byte 0's most significant first) packed
 * little-endian in chunks of 254: sum 2^i bit_(254 k + i). */
static void expect_sha256(cz_fr *inputs) {
    uint8_t d[32];
    SHA256((const uint8_t *)SHA_MESSAGE, sizeof SHA_MESSAGE - 1, d);
    for (int k = 0; k < 2; k++) {
        int lo = 254 * k, hi = k == 0 ? 254 : 256;
        cz_fr acc = cz_fr_zero;
        for (int i = hi - 1; i >= lo; i--) {
            cz_fr_dbl(&acc, &acc);
            if ((d[i / 8] >> (7 - i % 8)) & 1) cz_fr_add(&acc, &acc, &cz_fr_one);
        }
        inputs[k] = acc;
    }
}

typedef struct {
    const char *name;
    void (*synth)(cz_cs *cs);
    void (*expect)(cz_fr *inputs);
    uint32_t n_public; /* inputs without ONE */
    int snarkjs_prove; /* full snarkjs Groth16, else `wtns check` only */
} circuit_def;

static const circuit_def CIRCUITS[] = {
    {"cubic", synth_cubic, expect_cubic, 1, 1},
    {"gadgets", synth_gadgets, expect_gadgets, 2, 1},
    {"sha256", synth_sha256, expect_sha256, 2, 0},
};
#define N_CIRCUITS (sizeof CIRCUITS / sizeof CIRCUITS[0])

/* ---- files ---- */

static char workdir[256];

static void path_of(char *out, size_t cap, const char *name, const char *suffix) {
    snprintf(out, cap, "%s/%s%s", workdir, name, suffix);
}

static int write_bytes(const char *path, const uint8_t *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static int read_bytes(const char *path, uint8_t *b, size_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int ok = fread(b, 1, n, f) == n && fgetc(f) == EOF;
    fclose(f);
    return ok;
}

/* One input per line, 64 hex digits big-endian. */
static int write_inputs(const char *path, const cz_fr *x, size_t n) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t b[32];
        cz_fr_to_bytes_be(b, &x[i]);
        for (int k = 0; k < 32; k++) fprintf(f, "%02x", b[k]);
        fputc('\n', f);
    }
    return fclose(f) == 0;
}

/* Reads at most cap inputs; returns the count, or -1 on a malformed file. */
static int read_inputs(const char *path, cz_fr *x, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n') continue;
        uint8_t b[32];
        line[strcspn(line, "\r\n")] = 0;
        if ((size_t)n >= cap || !cz_test_from_hex(b, line, 32) || !cz_fr_from_bytes_be(&x[n], b)) {
            fclose(f);
            return -1;
        }
        n++;
    }
    fclose(f);
    return n;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Runs cmd through the shell, returns its stdout (malloc'ed) and exit status. */
static char *run_capture(const char *cmd, int *status) {
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    size_t got;
    while (out && (got = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 1024) {
            char *grown = realloc(out, cap * 2);
            if (!grown) free(out);
            out = grown, cap *= 2;
        }
    }
    int rc = pclose(p);
    *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    if (out) out[len] = 0;
    return out;
}

/* Whether out holds line as one whole line. */
static int has_line(const char *out, const char *line) {
    size_t n = strlen(line);
    for (const char *p = out; (p = strstr(p, line)) != NULL; p++)
        if ((p == out || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0)) return 1;
    return 0;
}

/* ---- per circuit: synthesize, set up, prove, write files ---- */

typedef struct {
    const circuit_def *def;
    cz_r1cs r1cs;
    cz_prove_data pd;
    cz_groth16_params params;
    cz_groth16_proof proof;
    int ok;
} run_state;

static void random_fr(cz_fr *k) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(k, b, sizeof b);
}

static int build_and_prove(run_state *s) {
    const circuit_def *d = s->def;
    cz_error err = {0};
    cz_cs *cs = cz_cs_record_new();
    CHECK(cs != NULL);
    if (!cs) return 0;
    d->synth(cs);
    cz_status st = cz_cs_status(cs);
    if (st == CZ_OK)
        st = cz_record_finish(cs, &s->r1cs, &err);
    else
        err = cs->error;
    cz_cs_destroy(cs);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: record: %s\n", d->name, err.message);
        CHECK(0);
        return 0;
    }
    cs = cz_cs_prove_new();
    CHECK(cs != NULL);
    if (!cs) return 0;
    d->synth(cs);
    st = cz_cs_status(cs);
    if (st == CZ_OK)
        st = cz_prove_finish(cs, &s->pd, &err);
    else
        err = cs->error;
    cz_cs_destroy(cs);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: prove back-end: %s\n", d->name, err.message);
        CHECK(0);
        return 0;
    }
    CHECK(s->pd.num_inputs == d->n_public + 1 && s->r1cs.num_inputs == s->pd.num_inputs);
    CHECK(s->r1cs.num_aux == s->pd.num_aux);
    if (s->pd.num_inputs != d->n_public + 1) return 0;

    /* the public inputs are what the circuit is meant to compute */
    cz_fr want[4];
    d->expect(want);
    for (uint32_t i = 0; i < d->n_public; i++)
        CHECK(cz_fr_equal(&s->pd.input_assignment[i + 1], &want[i]));

    uint8_t seed[CZ_GROTH16_SEED_BYTES] = {0};
    memcpy(seed, d->name, strlen(d->name));
    cz_circuit *circ = NULL;
    st = cz_circuit_from_r1cs(&circ, &s->r1cs, &err);
    if (st == CZ_OK) st = cz_groth16_dev_setup(&s->params, circ, seed, &err);
    cz_circuit_free(circ);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: setup: %s\n", d->name, err.message);
        CHECK(0);
        return 0;
    }
    cz_fr r, sv;
    random_fr(&r), random_fr(&sv);
    st = cz_groth16_prove(&s->proof, &s->params, &s->pd, &r, &sv, &err);
    if (st != CZ_OK) {
        fprintf(stderr, "%s: prove: %s\n", d->name, err.message);
        CHECK(0);
        return 0;
    }
    /* our own verifier first (the noble check below is the independent one) */
    int valid = -1;
    st = cz_groth16_verify(&valid, &s->params.vk, &s->proof, s->pd.input_assignment + 1,
                           d->n_public, &err);
    CHECK(st == CZ_OK && valid == 1);
    printf("%s: %u inputs, %u aux, %llu constraints (input constraints included)\n", d->name,
           s->pd.num_inputs, s->pd.num_aux, (unsigned long long)s->pd.num_constraints);
    return 1;
}

static int write_files(run_state *s) {
    const char *name = s->def->name;
    const cz_fr *inputs = s->pd.input_assignment + 1;
    size_t n = s->def->n_public;
    char path[512];
    cz_error err = {0};
    int ok = 1;

    path_of(path, sizeof path, name, ".vk");
    ok &= cz_groth16_vk_write(&s->params.vk, path, &err) == CZ_OK;
    uint8_t bytes[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof_encode(bytes, &s->proof);
    path_of(path, sizeof path, name, ".proof");
    ok &= write_bytes(path, bytes, sizeof bytes);
    path_of(path, sizeof path, name, ".inputs");
    ok &= write_inputs(path, inputs, n);

    /* negatives: the first input + 1; C + G1 generator (a valid point);
     * a flipped bit inside A's x coordinate */
    cz_fr wrong[4];
    memcpy(wrong, inputs, n * sizeof *wrong);
    cz_fr_add(&wrong[0], &wrong[0], &cz_fr_one);
    path_of(path, sizeof path, name, ".wrong.inputs");
    ok &= write_inputs(path, wrong, n);
    cz_groth16_proof moved = s->proof;
    cz_g1 c, g;
    cz_g1_from_affine(&c, &moved.c);
    cz_g1_generator(&g);
    cz_g1_add(&c, &c, &g);
    cz_g1_to_affine(&moved.c, &c);
    cz_groth16_proof_encode(bytes, &moved);
    path_of(path, sizeof path, name, ".tampered.proof");
    ok &= write_bytes(path, bytes, sizeof bytes);
    cz_groth16_proof_encode(bytes, &s->proof);
    bytes[20] ^= 0x04;
    path_of(path, sizeof path, name, ".garbled.proof");
    ok &= write_bytes(path, bytes, sizeof bytes);

    /* iden3 exports: the circuit, the witness, and a witness with aux 0 + 1 */
    path_of(path, sizeof path, name, ".r1cs");
    cz_status st = cz_r1cs_export_iden3(&s->r1cs, path, &err);
    if (st != CZ_OK) fprintf(stderr, "%s\n", err.message);
    ok &= st == CZ_OK;
    path_of(path, sizeof path, name, ".wtns");
    ok &= cz_wtns_export_iden3(s->pd.input_assignment, s->pd.num_inputs, s->pd.aux_assignment,
                               s->pd.num_aux, path, &err) == CZ_OK;
    cz_fr *bad = malloc(s->pd.num_aux * sizeof *bad);
    ok &= bad != NULL;
    if (bad) {
        memcpy(bad, s->pd.aux_assignment, s->pd.num_aux * sizeof *bad);
        cz_fr_add(&bad[0], &bad[0], &cz_fr_one);
        path_of(path, sizeof path, name, ".bad.wtns");
        ok &= cz_wtns_export_iden3(s->pd.input_assignment, s->pd.num_inputs, bad, s->pd.num_aux,
                                   path, &err) == CZ_OK;
        free(bad);
    }
    CHECK(ok);
    return ok;
}

/* ---- checks of the snarkjs side in C ---- */

static void check_snarkjs_converted(run_state *s) {
    const char *name = s->def->name;
    char path[512];
    cz_error err = {0};
    cz_groth16_vk vk = {0};
    path_of(path, sizeof path, name, ".snarkjs.vk");
    cz_status st = cz_groth16_vk_read(&vk, path, CZ_GROTH16_CHECKED, &err);
    if (st != CZ_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    CHECK(st == CZ_OK);
    if (st != CZ_OK) return;
    CHECK(vk.n_ic == s->pd.num_inputs);

    uint8_t bytes[CZ_GROTH16_PROOF_BYTES];
    cz_groth16_proof proof;
    path_of(path, sizeof path, name, ".snarkjs.proof");
    CHECK(read_bytes(path, bytes, sizeof bytes));
    st = cz_groth16_proof_decode(&proof, bytes, &err);
    if (st != CZ_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    CHECK(st == CZ_OK);

    /* snarkjs's public signals are wires 1..nPublic of our witness */
    cz_fr inputs[4];
    path_of(path, sizeof path, name, ".snarkjs.inputs");
    int n = read_inputs(path, inputs, 4);
    CHECK(n == (int)s->def->n_public);
    for (int i = 0; i < n && n == (int)s->def->n_public; i++)
        CHECK(cz_fr_equal(&inputs[i], &s->pd.input_assignment[i + 1]));

    if (st == CZ_OK && n == (int)s->def->n_public) {
        int valid = -1;
        st = cz_groth16_verify(&valid, &vk, &proof, inputs, (size_t)n, &err);
        CHECK(st == CZ_OK && valid == 1);
        printf("%s: cuzk verifier on snarkjs's proof: %s\n", name,
               valid == 1 ? "accept" : "REJECT");
        cz_fr_add(&inputs[0], &inputs[0], &cz_fr_one);
        valid = -1;
        st = cz_groth16_verify(&valid, &vk, &proof, inputs, (size_t)n, &err);
        CHECK(st == CZ_OK && valid == 0);
        cz_fr_sub(&inputs[0], &inputs[0], &cz_fr_one);
        /* and not under our own key for the same circuit */
        valid = -1;
        st = cz_groth16_verify(&valid, &s->params.vk, &proof, inputs, (size_t)n, &err);
        CHECK(st == CZ_OK && valid == 0);
        /* while our proof passes under our key (the C side of the noble check) */
        valid = -1;
        st = cz_groth16_verify(&valid, &s->params.vk, &s->proof, inputs, (size_t)n, &err);
        CHECK(st == CZ_OK && valid == 1);
    }
    cz_groth16_vk_free(&vk);
}

/* ---- driver ---- */

static const char *find_node(void) {
    if (CZ_NODE[0] && access(CZ_NODE, X_OK) == 0) return CZ_NODE;
    if (system("command -v node >/dev/null 2>&1") == 0) return "node";
    return NULL;
}

static int have_oracle_packages(void) {
    return access(CZ_ORACLE_DIR "/node_modules/snarkjs/package.json", R_OK) == 0 &&
           access(CZ_ORACLE_DIR "/node_modules/@noble/curves/package.json", R_OK) == 0;
}

/* appends "'<workdir>/<name><suffix>' " to cmd */
static void arg(char *cmd, size_t cap, const char *name, const char *suffix) {
    size_t len = strlen(cmd);
    snprintf(cmd + len, cap - len, " '%s/%s%s'", workdir, name, suffix);
}

int main(void) {
    cz_test_init(NAME);
    const char *node = find_node();
    if (!node) {
        printf("skipped: node not found\n");
        return SKIP_STATUS;
    }
    if (!have_oracle_packages()) {
        printf("skipped: tests/oracle/node_modules missing, run npm ci\n");
        return SKIP_STATUS;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/cz_interop_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }
    printf("work directory %s\n", workdir);

    run_state runs[N_CIRCUITS];
    memset(runs, 0, sizeof runs);
    int all_built = 1;
    for (size_t i = 0; i < N_CIRCUITS; i++) {
        runs[i].def = &CIRCUITS[i];
        runs[i].ok = build_and_prove(&runs[i]) && write_files(&runs[i]);
        all_built &= runs[i].ok;
    }

    /* snarkjs: wtns check for every circuit, its Groth16 for the small ones */
    char cmd[8192];
    int status = -1;
    char *out = NULL;
    if (all_built) {
        snprintf(cmd, sizeof cmd, "'%s' '%s/snarkjs_roundtrip.mjs' '%s'", node, CZ_ORACLE_DIR,
                 workdir);
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            size_t len = strlen(cmd);
            snprintf(cmd + len, sizeof cmd - len, " %s:%s",
                     CIRCUITS[i].snarkjs_prove ? "groth16" : "check", CIRCUITS[i].name);
        }
        out = run_capture(cmd, &status);
        printf("---- snarkjs_roundtrip.mjs (exit %d)\n%s----\n", status, out ? out : "");
        CHECK(out != NULL && status == 0);
    }
    if (out && status == 0) {
        char line[128];
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            const char *name = CIRCUITS[i].name;
            snprintf(line, sizeof line, "wtns_check %s good 1", name);
            CHECK(has_line(out, line));
            snprintf(line, sizeof line, "wtns_check %s bad 0", name);
            CHECK(has_line(out, line));
            if (!CIRCUITS[i].snarkjs_prove) continue;
            snprintf(line, sizeof line, "snarkjs_verify %s 1", name);
            CHECK(has_line(out, line));
            snprintf(line, sizeof line, "snarkjs_verify_wrong_input %s 0", name);
            CHECK(has_line(out, line));
            snprintf(line, sizeof line, "converted %s", name);
            CHECK(has_line(out, line));
            if (has_line(out, line)) check_snarkjs_converted(&runs[i]);
        }
    }
    free(out);

    /* noble: (vk, proof, inputs) triples and the verdict each must get */
    if (all_built) {
        typedef struct {
            const char *name, *vk, *proof, *inputs;
            int accept;
        } triple;
        triple t[8 * N_CIRCUITS];
        size_t nt = 0;
        for (size_t i = 0; i < N_CIRCUITS; i++) {
            const char *n = CIRCUITS[i].name;
            t[nt++] = (triple){n, ".vk", ".proof", ".inputs", 1};
            t[nt++] = (triple){n, ".vk", ".proof", ".wrong.inputs", 0};
            t[nt++] = (triple){n, ".vk", ".tampered.proof", ".inputs", 0};
            t[nt++] = (triple){n, ".vk", ".garbled.proof", ".inputs", 0};
            if (CIRCUITS[i].snarkjs_prove) {
                t[nt++] = (triple){n, ".snarkjs.vk", ".snarkjs.proof", ".snarkjs.inputs", 1};
                t[nt++] = (triple){n, ".snarkjs.vk", ".snarkjs.proof", ".wrong.inputs", 0};
                t[nt++] = (triple){n, ".vk", ".snarkjs.proof", ".inputs", 0};
                t[nt++] = (triple){n, ".snarkjs.vk", ".proof", ".inputs", 0};
            }
        }
        snprintf(cmd, sizeof cmd, "'%s' '%s/verify_noble.mjs'", node, CZ_ORACLE_DIR);
        for (size_t k = 0; k < nt; k++) {
            arg(cmd, sizeof cmd, t[k].name, t[k].vk);
            arg(cmd, sizeof cmd, t[k].name, t[k].proof);
            arg(cmd, sizeof cmd, t[k].name, t[k].inputs);
        }
        out = run_capture(cmd, &status);
        CHECK(out != NULL && status == 0);
        printf("---- verify_noble.mjs (exit %d)\n", status);
        const char *p = out ? out : "";
        for (size_t k = 0; k < nt; k++) {
            const char *eol = strchr(p, '\n');
            size_t len = eol ? (size_t)(eol - p) : strlen(p);
            int accepted = len == 6 && strncmp(p, "accept", 6) == 0;
            int rejected = len >= 6 && strncmp(p, "reject", 6) == 0;
            char what[160];
            snprintf(what, sizeof what, "%s%s %s%s %s%s", t[k].name, t[k].vk, t[k].name, t[k].proof,
                     t[k].name, t[k].inputs);
            printf("  %-62s -> %.*s\n", what, (int)len, p);
            CHECK(t[k].accept ? accepted : rejected);
            p = eol ? eol + 1 : p + len;
        }
        free(out);
    }

    for (size_t i = 0; i < N_CIRCUITS; i++) {
        cz_r1cs_free(&runs[i].r1cs);
        cz_prove_data_free(&runs[i].pd);
        cz_groth16_params_free(&runs[i].params);
    }
    if (cz_test_failures == 0 && !getenv("CZ_INTEROP_KEEP"))
        nftw(workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else
        printf("kept %s for inspection\n", workdir);
    return cz_test_finish(NAME);
}
