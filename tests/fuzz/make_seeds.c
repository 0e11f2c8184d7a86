/* Seeds for tests/fuzz/fuzz_decoders.c that no command writes: a small
 * pre-compiled circuit (.czc) and cuzk.v1 requests around a C1 document.
 * Each file starts with the harness's selector byte: target t is
 * (t & 7) | (t >> 3) << 4, and bit 3 the strict mode.
 *
 * usage: make_seeds OUT_DIR C1_FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/v1/proving.pb-c.h"
#include "filecoin/common/params_table.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"
#include "r1cs/cs.h"

#define SELECTOR(t) ((uint8_t)(((t)&7) | ((t) >> 3) << 4))

static void write_seed(const char *dir, const char *name, uint8_t selector, const uint8_t *p,
                       size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fputc(selector, f) == EOF || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "make_seeds: cannot write %s\n", path);
        exit(1);
    }
}

static uint8_t *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    for (size_t r; b && (r = fread(b + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

static void write_message(const char *dir, const char *name, uint8_t rpc,
                          const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *b = malloc(n + 1);
    b[0] = rpc; /* the harness's rpc byte */
    protobuf_c_message_pack(m, b + 1);
    write_seed(dir, name, SELECTOR(12), b, n + 1);
    free(b);
}

/* x^3 + x + 5 = y with x, x^2, x^3 as aux, recorded and compiled. */
static void circuit_seed(const char *dir) {
    cz_cs *cs = cz_cs_record_new();
    cz_var y = cz_cs_alloc_input(cs, NULL);
    cz_var x = cz_cs_alloc(cs, NULL), x2 = cz_cs_alloc(cs, NULL), x3 = cz_cs_alloc(cs, NULL);
    cz_lc a, b, c;
    cz_lc_init(&a), cz_lc_init(&b), cz_lc_init(&c);
    cz_lc_add_var(&a, x), cz_lc_add_var(&b, x), cz_lc_add_var(&c, x2);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&b), cz_lc_clear(&c);
    cz_lc_add_var(&b, x2), cz_lc_add_var(&c, x3);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_clear(&a), cz_lc_clear(&b), cz_lc_clear(&c);
    cz_fr five;
    cz_fr_from_u64(&five, 5);
    cz_lc_add_var(&a, x3), cz_lc_add_var(&a, x), cz_lc_add(&a, CZ_VAR_ONE, &five);
    cz_lc_add_var(&b, CZ_VAR_ONE), cz_lc_add_var(&c, y);
    cz_cs_enforce(cs, &a, &b, &c);
    cz_lc_free(&a), cz_lc_free(&b), cz_lc_free(&c);
    cz_r1cs r;
    cz_error err = {0};
    cz_circuit *circ = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/circuit.czc.tmp-seed", dir);
    if (cz_record_finish(cs, &r, &err) != CZ_OK || cz_circuit_from_r1cs(&circ, &r, &err) != CZ_OK ||
        cz_circuit_write(circ, path, &err) != CZ_OK) {
        fprintf(stderr, "make_seeds: circuit: %s\n", err.message);
        exit(1);
    }
    cz_cs_destroy(cs);
    cz_r1cs_free(&r);
    cz_circuit_free(circ);
    size_t n = 0;
    uint8_t *bytes = read_all(path, &n);
    remove(path);
    if (!bytes) exit(1);
    write_seed(dir, "czc", SELECTOR(11), bytes, n);
    write_seed(dir, "czc8", SELECTOR(11) | 8, bytes, n);
    free(bytes);
}

/* The records cuzk setup writes beside a key (FILE.dev, FILE.blake2b), for
 * the pinned-only target 16 ("records-*": fuzz.sh gives them to it). */
static void records_seeds(const char *dir) {
    char tmp[] = "/tmp/cz-seed-records-XXXXXX", path[64], rec[80];
    if (!mkdtemp(tmp)) exit(1);
    snprintf(path, sizeof path, "%s/k.params", tmp);
    FILE *f = fopen(path, "w");
    cz_error err;
    if (!f || fputs("a development key", f) < 0 || fclose(f) != 0 ||
        cz_fc_param_mark_development(NULL, path, NULL, NULL, &err) != CZ_OK) {
        fprintf(stderr, "make_seeds: records: %s\n", err.message);
        exit(1);
    }
    const char *suffix[2] = {".dev", ".blake2b"};
    for (int strict = 0; strict < 2; strict++) {
        snprintf(rec, sizeof rec, "%s%s", path, suffix[strict]);
        size_t n = 0;
        uint8_t *text = read_all(rec, &n);
        if (!text) exit(1);
        write_seed(dir, strict ? "records-blake2b" : "records-dev", strict ? 8 : 0, text, n);
        free(text);
        remove(rec);
    }
    remove(path);
    rmdir(tmp);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: make_seeds OUT_DIR C1_FILE\n");
        return 2;
    }
    const char *dir = argv[1];
    circuit_seed(dir);
    size_t c1_len = 0;
    uint8_t *c1 = read_all(argv[2], &c1_len);
    if (!c1) {
        fprintf(stderr, "make_seeds: cannot read %s\n", argv[2]);
        return 1;
    }
    Cuzk__V1__SubmitProofRequest s;
    cuzk__v1__submit_proof_request__init(&s);
    s.request_id = "porep-1000-3";
    s.proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
    s.vanilla_proof.data = c1;
    s.vanilla_proof.len = c1_len;
    s.sector_number = 3;
    s.miner_id = 1000;
    s.registered_proof = 5;
    s.sector_size = 2048;
    write_message(dir, "pb-submit", 0, &s.base);
    Cuzk__V1__ProveRequest p;
    cuzk__v1__prove_request__init(&p);
    p.submit = &s;
    write_message(dir, "pb-prove", 2, &p.base);
    Cuzk__V1__AwaitProofRequest a;
    cuzk__v1__await_proof_request__init(&a);
    a.job_id = "porep-1000-3";
    a.timeout_ms = 10;
    write_message(dir, "pb-await", 1, &a.base);
    Cuzk__V1__CancelProofRequest c;
    cuzk__v1__cancel_proof_request__init(&c);
    c.job_id = "porep-1000-3";
    write_message(dir, "pb-cancel", 3, &c.base);
    Cuzk__V1__PreloadSrsRequest l;
    cuzk__v1__preload_srs_request__init(&l);
    l.circuit_id = "porep-2k";
    write_message(dir, "pb-preload", 6, &l.base);
    free(c1);
    records_seeds(dir);
    return 0;
}
