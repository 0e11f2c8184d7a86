/* libFuzzer harness for every decoder of untrusted bytes: .vk, .params,
 * proofs, G1/G2 point encodings, recorded-circuit files, the C1 output JSON
 * (raw or in Curio's envelope), base64, the daemon's TOML configuration, the
 * bincode PoSt vanilla proof (FallbackPoStSectorProof, which must re-encode
 * to the same bytes when it decodes) and the PoSt request file.
 * The first byte picks the decoder (low 3 bits, plus 8 when bit 4 is set)
 * and the check mode (bit 3); the rest is the input. Built and run by scripts/fuzz.sh, not by
 * ctest. Any crash, leak or sanitizer report is a bug; a clean CZ_E_* status is the expected
 * outcome. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"
#include "ec/encoding.h"
#include "filecoin/c1.h"
#include "filecoin/post.h"
#include "groth16/groth16.h"
#include "r1cs/backends.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    unsigned target = (data[0] & 7) | ((data[0] >> 4 & 1) << 3), strict = (data[0] >> 3) & 1;
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
                /* what --print-config writes must read back */
                if (cz_config_parse(&again, text, text_len, "printed", NULL, &err) != CZ_OK)
                    abort();
                free(text);
            }
        }
        break;
    }
    case 11: { /* PoSt vanilla proof: 2 KiB WindowPoSt, strict: 32 GiB */
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
    case 12: { /* PoSt request file (JSON) */
        cz_post_request req;
        if (cz_post_request_parse_json(&req, in, len, &err) == CZ_OK) cz_post_request_free(&req);
        break;
    }
    default: { /* 8, 13..15: C1 output, auto-detected (strict: raw JSON only) */
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
