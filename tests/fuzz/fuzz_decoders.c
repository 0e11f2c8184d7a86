/* libFuzzer harness for every decoder of untrusted bytes: .vk, .params,
 * proofs, G1/G2 point encodings, recorded-circuit files (iden3-like .r1cs
 * and the pre-compiled .czc), the C1 output JSON (raw or in Curio's
 * envelope), base64, the daemon's TOML configuration, the cuzk.v1
 * protobuf requests as the daemon handles them (string checks, unpack, the
 * engine's view, and for a PoRep submission the admission check: C1 parse
 * and vanilla verification), the bincode PoSt vanilla proof
 * (FallbackPoStSectorProof, which must re-encode to the same bytes when it
 * decodes) and the PoSt request file.
 *
 * The first byte picks the decoder (low 3 bits, plus 8 when bit 4 is set)
 * and the check mode (bit 3); the rest is the input. CZ_FUZZ_TARGET=N in
 * the environment pins the decoder to N (the first byte then only gives
 * the mode), so that scripts/fuzz.sh can give each decoder a run and a
 * corpus of its own. Built and run by scripts/fuzz.sh, not by ctest. Any
 * crash, leak or sanitizer report is a bug; a clean CZ_E_* status is the
 * expected outcome. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/config.h"
#include "daemon/request.h"
#include "ec/encoding.h"
#include "engine/job.h"
#include "ff/fr.h"
#include "filecoin/common/params_table.h"
#include "filecoin/porep/c1_envelope.h"
#include "filecoin/post/post.h"
#include "filecoin/snap/snap.h"
#include "groth16/groth16.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"
#include "r1cs/internal.h"
#include "util/base64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int pinned_target = -1;

static void pin_target(void) {
    static int done;
    if (done) return;
    done = 1;
    const char *t = getenv("CZ_FUZZ_TARGET");
    if (t && *t) pinned_target = atoi(t) & 31;
}

/* A .czc file: the checksum (XXH64 of everything before the last 8 bytes)
 * is made right, so mutations reach the structural checks behind it; the
 * file goes through the real open (a mapping) in /dev/shm. */
static void fuzz_circuit(const uint8_t *in, size_t len, int strict) {
    if (len < 16) return;
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/dev/shm/cz-fuzz-%ld.czc", (long)getpid());
    uint8_t *buf = malloc(len);
    if (!buf) return;
    memcpy(buf, in, len);
    uint64_t sum = cz_xxh64(buf, len - 8, 0);
    for (int i = 0; i < 8; i++) buf[len - 8 + i] = (uint8_t)(sum >> (8 * i));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        free(buf);
        return;
    }
    ssize_t w = write(fd, buf, len);
    close(fd);
    free(buf);
    if (w != (ssize_t)len) return;
    cz_circuit *c = NULL;
    cz_error err;
    if (cz_circuit_open(&c, path, strict ? CZ_CIRCUIT_CHECKED : CZ_CIRCUIT_TRUSTED, 0, &err) !=
        CZ_OK)
        return;
    /* A circuit that opened checked is evaluated (its invariants make the
     * evaluation safe); sizes are bounded by the file, witnesses are not. */
    uint64_t nz = (uint64_t)c->num_inputs + c->num_aux;
    if (strict && c->num_inputs >= 1 && nz <= (1u << 16) && c->num_constraints <= (1u << 16)) {
        cz_fr *z = calloc(nz, sizeof *z);
        size_t n = (size_t)c->num_constraints;
        cz_fr *a = calloc(n ? n : 1, sizeof *a), *b = calloc(n ? n : 1, sizeof *b),
              *cc = calloc(n ? n : 1, sizeof *cc);
        if (z && a && b && cc) {
            for (uint64_t i = 0; i < nz; i++) cz_fr_from_u64(&z[i], i * 7 + 1);
            cz_circuit_eval(a, b, cc, c, z, z + c->num_inputs);
        }
        free(z), free(a), free(b), free(cc);
    }
    cz_circuit_free(c);
}

/* A cuzk.v1 request, the rpc from the first byte of the rest, decoded as
 * the daemon's handler does (and compared with protobuf-c's own decoding:
 * the handler's borrows the C1 instead of copying it); a PoRep or PoSt
 * submission then goes through its kind's admission check, as
 * cz_engine_submit would run it (C1 parse and vanilla verification; PoSt
 * bincode decode and vanilla verification). */
static void fuzz_request(const uint8_t *in, size_t len) {
    if (len < 1) return;
    cz_rpc rpc = (cz_rpc)(in[0] % CZ_RPC_COUNT);
    cz_rpc_request rq, ref;
    cz_error err;
    cz_status st = cz_rpc_decode(&rq, rpc, in + 1, len - 1, &err);
    cz_status st_ref = cz_rpc_decode_copying(&ref, rpc, in + 1, len - 1, 1, &err);
    if (st != st_ref) abort();
    if (st_ref == CZ_OK) {
        const cz_engine_request *x = &rq.submit, *y = &ref.submit;
        if (x->vanilla_proof_len != y->vanilla_proof_len ||
            (x->vanilla_proof_len &&
             memcmp(x->vanilla_proof, y->vanilla_proof, x->vanilla_proof_len)) ||
            x->kind != y->kind || x->miner_id != y->miner_id ||
            (x->request_id && strcmp(x->request_id, y->request_id)))
            abort();
        cz_rpc_request_free(&ref);
    }
    if (st != CZ_OK) return;
    const cz_job_ops *ops = NULL;
    if (rq.submit.kind == CZ_PROOF_POREP && rq.submit.vanilla_proof_len) ops = &cz_job_ops_porep;
    if (rq.submit.kind == CZ_PROOF_WINNING_POST || rq.submit.kind == CZ_PROOF_WINDOW_POST)
        ops = &cz_job_ops_post;
    if ((rpc == CZ_RPC_SUBMIT || rpc == CZ_RPC_PROVE) && ops) {
        void *state = NULL;
        ops->admit(&state, &rq.submit, &err);
        if (state) ops->free_state(state);
    }
    cz_rpc_request_free(&rq);
}

/* Target 16 (pinned only): the records beside a parameter file. A small
 * file is marked development once (FILE.dev and FILE.blake2b, as cuzk
 * setup marks a key); each input then replaces FILE.dev (strict: FILE.blake2b)
 * and the file is classified: a record is trusted, refused with its name, or
 * ignored, never overread. */
static void fuzz_param_records(const uint8_t *in, size_t len, int strict) {
    static char dir[] = "/tmp/cz-fuzz-records-XXXXXX";
    static char path[64], rec[80];
    static int ready;
    cz_error err;
    if (!ready) {
        if (!mkdtemp(dir)) abort();
        snprintf(path, sizeof path, "%s/k.params", dir);
        FILE *f = fopen(path, "w");
        if (!f || fputs("a development key", f) < 0 || fclose(f) != 0) abort();
        if (cz_fc_param_mark_development(NULL, path, NULL, NULL, &err) != CZ_OK) abort();
        ready = 1;
    }
    snprintf(rec, sizeof rec, "%s%s", path, strict ? ".blake2b" : ".dev");
    FILE *f = fopen(rec, "w");
    if (!f) abort();
    if (len && fwrite(in, 1, len, f) != len) abort();
    if (fclose(f) != 0) abort();
    cz_fc_param_verdict v;
    cz_fc_param_classify(&v, path, NULL, 0, NULL, NULL, &err);
    /* the other record back as the marking wrote it */
    if (cz_fc_param_mark_development(NULL, path, NULL, NULL, &err) != CZ_OK) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pin_target();
    if (size < 1) return 0;
    unsigned target = (data[0] & 7) | ((data[0] >> 4 & 1) << 3), strict = (data[0] >> 3) & 1;
    if (pinned_target >= 0) target = (unsigned)pinned_target;
    const uint8_t *in = data + 1;
    size_t len = size - 1;
    cz_error err;
    cz_groth16_check mode = strict ? CZ_GROTH16_CHECKED : CZ_GROTH16_UNCHECKED;
    unsigned flags = strict ? 0 : CZ_DECODE_SKIP_SUBGROUP;
    switch (target) {
    case 0: {
        cz_groth16_vk vk;
        if (cz_groth16_vk_decode(&vk, in, len, mode, &err) == CZ_OK) cz_groth16_vk_free(&vk);
        break;
    }
    case 1: {
        /* and the loaders that leave the points encoded (the GPU key load):
         * the layout reads exactly when the full decoder's lengths do */
        cz_groth16_params p, head;
        cz_groth16_params_layout lay;
        cz_status full = cz_groth16_params_decode(&p, in, len, mode, &err);
        if (full == CZ_OK) cz_groth16_params_free(&p);
        cz_status ls = cz_groth16_params_layout_read(&lay, in, len, &err);
        if (full == CZ_OK && ls != CZ_OK) __builtin_trap();
        if (ls == CZ_OK) {
            for (int v = 0; v < CZ_GROTH16_VECTORS; v++)
                if (lay.count[v]) {
                    cz_groth16_params_check_point(NULL, in, &lay, v, 0, mode, &err);
                    cz_groth16_params_check_point(NULL, in, &lay, v, lay.count[v] - 1, mode, &err);
                }
            if (cz_groth16_params_decode_header(&head, NULL, in, len, mode, &err) == CZ_OK)
                cz_groth16_params_free(&head);
        }
        break;
    }
    case 2: {
        cz_groth16_proof proof;
        if (len >= CZ_GROTH16_PROOF_BYTES) cz_groth16_proof_decode(&proof, in, &err);
        break;
    }
    case 3: {
        cz_g1_affine p;
        if (len >= CZ_G1_COMPRESSED_BYTES) cz_g1_affine_from_compressed(&p, in, flags, &err);
        break;
    }
    case 4: {
        cz_g1_affine p;
        if (len >= CZ_G1_UNCOMPRESSED_BYTES) cz_g1_affine_from_uncompressed(&p, in, flags, &err);
        break;
    }
    case 5: {
        cz_g2_affine p;
        if (len >= CZ_G2_COMPRESSED_BYTES) cz_g2_affine_from_compressed(&p, in, flags, &err);
        break;
    }
    case 6: {
        cz_g2_affine p;
        if (len >= CZ_G2_UNCOMPRESSED_BYTES) cz_g2_affine_from_uncompressed(&p, in, flags, &err);
        break;
    }
    case 7: {
        cz_r1cs r;
        if (cz_r1cs_decode(&r, in, len, "fuzz", &err) == CZ_OK) cz_r1cs_free(&r);
        break;
    }
    case 9: {
        uint8_t *out;
        size_t n;
        if (cz_base64_decode(&out, &n, (const char *)in, len, &err) == CZ_OK) free(out);
        break;
    }
    case 10: { /* daemon configuration (TOML subset); strict: print and re-parse */
        cz_daemon_config cfg;
        cz_config_defaults(&cfg);
        if (cz_config_parse(&cfg, (const char *)in, len, "fuzz.toml", NULL, &err) == CZ_OK &&
            strict) {
            char *text = NULL;
            size_t text_len = 0;
            FILE *f = open_memstream(&text, &text_len);
            if (f) {
                cz_config_print(&cfg, f);
                fclose(f);
                cz_daemon_config again;
                cz_config_defaults(&again);
                /* what --print-config writes must read back, to the same
                 * values (compared as printed: a string set twice leaves
                 * bytes after its NUL that a memcmp would see) */
                if (cz_config_parse(&again, text, text_len, "printed", NULL, &err) != CZ_OK)
                    abort();
                char *text2 = NULL;
                size_t text2_len = 0;
                FILE *f2 = open_memstream(&text2, &text2_len);
                if (f2) {
                    cz_config_print(&again, f2);
                    fclose(f2);
                    if (text2_len != text_len || memcmp(text, text2, text_len) != 0) abort();
                    free(text2);
                }
                free(text);
            }
        }
        break;
    }
    case 11: fuzz_circuit(in, len, (int)strict); break;
    case 16: fuzz_param_records(in, len, (int)strict); break;
    case 12: fuzz_request(in, len); break;
    case 13: { /* PoSt vanilla proof: 2 KiB WindowPoSt, strict: 32 GiB */
        cz_post_config cfg;
        cz_post_sector_proof p;
        if (cz_post_config_from_sector(&cfg, CZ_POST_WINDOW, strict ? 32ull << 30 : 2048, &err) !=
            CZ_OK)
            abort();
        if (cz_post_decode(&p, &cfg, in, len, &err) == CZ_OK) {
            uint8_t *enc;
            size_t enc_len;
            if (cz_post_encode(&enc, &enc_len, &cfg, &p, &err) != CZ_OK || enc_len != len ||
                memcmp(enc, in, len))
                abort(); /* a decoded proof re-encodes to its bytes */
            free(enc);
            cz_post_sector_proof_free(&p);
        }
        break;
    }
    case 14: { /* PoSt request file (JSON) */
        cz_post_request req;
        if (cz_post_request_parse_json(&req, in, len, &err) == CZ_OK) cz_post_request_free(&req);
        break;
    }
    case 15: { /* SnapDeals partition proof (2 KiB); strict: SnapDeals request file (JSON) */
        if (strict) {
            cz_snap_request req;
            if (cz_snap_request_parse_json(&req, in, len, &err) == CZ_OK)
                cz_snap_request_free(&req);
            break;
        }
        cz_snap_config cfg;
        cz_snap_partition_proof p;
        if (cz_snap_config_from_sector(&cfg, 2048, &err) != CZ_OK) abort();
        if (cz_snap_decode(&p, &cfg, in, len, &err) == CZ_OK) {
            uint8_t *enc;
            size_t enc_len;
            if (cz_snap_encode(&enc, &enc_len, &cfg, &p, &err) != CZ_OK || enc_len != len ||
                memcmp(enc, in, len))
                abort(); /* a decoded proof re-encodes to its bytes */
            free(enc);
            cz_snap_proof_free(&p);
        }
        break;
    }
    default: { /* 8: C1 output, auto-detected (strict: raw JSON only) */
        cz_c1 c1;
        cz_status st =
            strict ? cz_c1_parse_raw(&c1, in, len, &err) : cz_c1_parse(&c1, in, len, &err);
        if (st == CZ_OK) {
            cz_c1_check_shape(&c1, &err);
            cz_c1_check_indices(&c1, &err);
            cz_c1_free(&c1);
        }
        break;
    }
    }
    return 0;
}
