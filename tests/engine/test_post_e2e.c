/* WinningPoSt and WindowPoSt end to end through the engine's PoSt job kind
 * on the CPU back-end, at 2 KiB, with the development parameters the
 * `cuzk setup --kind ...` fixtures made ($CZ_PARAMS_DIR):
 *  - generated vanilla proofs (a WindowPoSt partition of 1 sector, padded
 *    to the circuit's 2; one of 2; a V1 partition 2; a WinningPoSt of a
 *    3-sector set) are proven; the proof verifies with the public inputs
 *    recomputed from the randomness, partition and sectors, and not with
 *    any of them altered (randomness, partition for V1, a comm_r, a sector
 *    id, a proof byte);
 *  - bad requests are refused at submission (CZ_E_INVALID_ARG, no job)
 *    with a message naming what is wrong: truncated bincode, too many sectors, a challenge
 * mismatch, a proof for another sector size, the kind not matching the id, a partition index out of
 * range, 31 bytes of randomness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "filecoin/post/post.h"
#include "filecoin/post/post_prove.h"
#include "harness/harness.h"

static cz_engine *engine;
static const char *params_dir;
static unsigned job_seq;
static char last_message[512]; /* bad_case's last refusal */

typedef struct {
    uint32_t id;
    cz_proof_kind kind;
    uint64_t sector_size;
    uint32_t partition;
    uint8_t randomness[32];
    size_t randomness_len;
    uint32_t n;
    uint8_t *bytes[4];
    size_t lens[4];
    uint64_t ids[4];
    cz_fr comm_rs[4];
} request;

static void request_free(request *r) {
    for (uint32_t i = 0; i < r->n; i++) free(r->bytes[i]);
}

/* Generated, encoded vanilla proofs of a registered proof. */
static void make_request(request *r, uint32_t id, uint32_t sectors, uint32_t partition) {
    memset(r, 0, sizeof *r);
    cz_post_proof_info info;
    cz_post_config cfg;
    CHECK(cz_post_proof_lookup(&info, id, NULL) == CZ_OK);
    CHECK(cz_post_config_from_sector(&cfg, info.kind, info.sector_size, NULL) == CZ_OK);
    cz_post_gen_opts o = {.registered_proof = id,
                          .sectors = sectors,
                          .seed = cz_test_rand64(),
                          .miner_id = 1000,
                          .first_sector = 7,
                          .partition = partition};
    cz_post_sector_proof *p;
    cz_error err = {0};
    CHECK(cz_post_gen(&p, &r->n, NULL, r->randomness, &o, &err) == CZ_OK);
    CHECK(r->n <= 4);
    for (uint32_t i = 0; i < r->n; i++) {
        CHECK(cz_post_encode(&r->bytes[i], &r->lens[i], &cfg, &p[i], &err) == CZ_OK);
        r->ids[i] = p[i].sector_id;
        r->comm_rs[i] = p[i].comm_r;
        cz_post_sector_proof_free(&p[i]);
    }
    free(p);
    r->id = id;
    r->kind = info.kind == CZ_POST_WINNING ? CZ_PROOF_WINNING_POST : CZ_PROOF_WINDOW_POST;
    r->sector_size = info.sector_size;
    r->partition = partition;
    r->randomness_len = 32;
}

/* Submits r; the status of the submission, the job id in id. */
static cz_status submit(const request *r, char id[32], cz_error *err) {
    snprintf(id, 32, "post-%u", ++job_seq);
    cz_engine_request q;
    memset(&q, 0, sizeof q);
    q.request_id = id;
    q.kind = r->kind;
    q.sector_size = r->sector_size;
    q.registered_proof = r->id;
    q.miner_id = 1000;
    q.vanilla_proofs = (const uint8_t *const *)r->bytes;
    q.vanilla_proofs_len = r->lens;
    q.n_vanilla_proofs = r->n;
    q.randomness = r->randomness;
    q.randomness_len = r->randomness_len;
    q.partition_index = r->partition;
    cz_engine_submit_info info;
    return cz_engine_submit(engine, &q, &info, err);
}

/* Submits and waits; the proof (192 bytes) or the failure message. */
static cz_job_status run(const request *r, uint8_t proof[192], char *message, size_t cap) {
    char id[32];
    cz_error err = {0};
    CHECK(submit(r, id, &err) == CZ_OK);
    cz_engine_result res;
    CHECK(cz_engine_await(engine, id, 0, NULL, NULL, &res, &err) == CZ_OK);
    if (res.status == CZ_JOB_COMPLETED) {
        CHECK(res.proof_len == 192);
        if (res.proof_len == 192) memcpy(proof, res.proof, 192);
    }
    if (message) snprintf(message, cap, "%s", res.error_message);
    cz_job_status st = res.status;
    cz_engine_result_free(&res);
    return st;
}

static int verify(const request *r, const uint8_t *proof, const uint8_t *randomness,
                  uint32_t partition, const uint64_t *ids, const cz_fr *comm_rs) {
    cz_post_proof_info info;
    cz_post_config cfg;
    CHECK(cz_post_proof_lookup(&info, r->id, NULL) == CZ_OK);
    CHECK(cz_post_config_from_sector(&cfg, info.kind, info.sector_size, NULL) == CZ_OK);
    char params_path[4096], vk_path[4096];
    CHECK(cz_post_param_paths(params_path, vk_path, sizeof vk_path, params_dir, &cfg, NULL) ==
          CZ_OK);
    cz_groth16_vk vk;
    cz_error err = {0};
    CHECK(cz_groth16_vk_read(&vk, vk_path, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    int valid = 0;
    cz_status st = cz_post_verify(&valid, &cfg, info.api_version, &vk, randomness, partition, ids,
                                  comm_rs, r->n, proof, 192, &err);
    cz_groth16_vk_free(&vk);
    return st == CZ_OK && valid;
}

static void prove_case(const char *what, uint32_t id, uint32_t sectors, uint32_t partition) {
    request r;
    make_request(&r, id, sectors, partition);
    uint8_t proof[192];
    char msg[512];
    cz_job_status st = run(&r, proof, msg, sizeof msg);
    CHECK(st == CZ_JOB_COMPLETED);
    if (st != CZ_JOB_COMPLETED) {
        printf("  %s: %s\n", what, msg);
        request_free(&r);
        return;
    }
    CHECK(verify(&r, proof, r.randomness, r.partition, r.ids, r.comm_rs));
    uint8_t r2[32];
    memcpy(r2, r.randomness, 32);
    r2[0] ^= 1;
    CHECK(!verify(&r, proof, r2, r.partition, r.ids, r.comm_rs));
    cz_post_proof_info info;
    CHECK(cz_post_proof_lookup(&info, id, NULL) == CZ_OK);
    if (info.api_version == CZ_FC_API_V1_0_0 && info.kind == CZ_POST_WINDOW)
        CHECK(!verify(&r, proof, r.randomness, r.partition + 1, r.ids, r.comm_rs));
    uint64_t ids[4];
    cz_fr comm_rs[4];
    memcpy(ids, r.ids, sizeof ids);
    memcpy(comm_rs, r.comm_rs, sizeof comm_rs);
    ids[r.n - 1] += 100;
    CHECK(!verify(&r, proof, r.randomness, r.partition, ids, r.comm_rs));
    cz_fr_add(&comm_rs[0], &comm_rs[0], &cz_fr_one);
    CHECK(!verify(&r, proof, r.randomness, r.partition, r.ids, comm_rs));
    for (size_t pos = 0; pos < 192; pos += 37) {
        proof[pos] ^= 0x10;
        CHECK(!verify(&r, proof, r.randomness, r.partition, r.ids, r.comm_rs));
        proof[pos] ^= 0x10;
    }
    printf("  %-44s proven on the CPU, verified; altered inputs rejected\n", what);
    request_free(&r);
}

/* A bad request is refused at submission (no job is made), with
 * CZ_E_INVALID_ARG and a message naming what is wrong. */
static void bad_case(const char *what, request *r, const char *want) {
    char id[32];
    cz_error err = {0};
    cz_status st = submit(r, id, &err);
    CHECK(st == CZ_E_INVALID_ARG);
    cz_engine_result res;
    CHECK(cz_engine_await(engine, id, 1, NULL, NULL, &res, NULL) == CZ_OK);
    CHECK(res.status == CZ_JOB_UNKNOWN);
    cz_engine_result_free(&res);
    snprintf(last_message, sizeof last_message, "%s", err.message);
    int ok = strstr(err.message, want) != NULL;
    printf("  %-30s %s: %s%s\n", what, cz_status_name(st), err.message,
           ok ? "" : "  <-- expected another message");
    CHECK(ok);
}

int main(void) {
    cz_test_init("engine_post_e2e");
    params_dir = getenv("CZ_PARAMS_DIR");
    if (!params_dir) {
        printf("skipped: CZ_PARAMS_DIR not set (ctest sets it after `cuzk setup --kind ...`)\n");
        return 77;
    }
    cz_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.backend = "cpu";
    cfg.param_cache = params_dir;
    /* Jobs are awaited in submission order and one can end minutes before
     * another under ASan: keep results long enough not to prune one unread. */
    cfg.result_retention_ms = 3600000;
    cfg.synthesis_workers = 2;
    cz_error err = {0};
    if (cz_engine_create(&engine, &cfg, &err) != CZ_OK) {
        printf("engine: %s\n", err.message);
        return 1;
    }
    printf("proofs\n");
    prove_case("WindowPoSt 2 KiB V1_1, 1 sector (padded to 2)", 10, 1, 0);
    prove_case("WindowPoSt 2 KiB V1_1, 2 sectors", 10, 2, 0);
    prove_case("WindowPoSt 2 KiB V1, 2 sectors, partition 2", 5, 2, 2);
    prove_case("WinningPoSt 2 KiB, a set of 3 sectors", 0, 3, 0);

    printf("bad requests\n");
    request r;
    make_request(&r, 10, 2, 0);
    r.lens[1] -= 5;
    bad_case("truncated bincode", &r,
             "vanilla_proofs[1] (5675 bytes, a StackedDrgWindow2KiBV1_1 proof has 5680): "
             "vanilla_proof.sectors[0].comm_r_last at byte 5648: truncated");
    r.lens[1] += 5;
    r.randomness[0] ^= 1;
    /* With another randomness the first challenge that names another leaf
     * is refused; over 64 leaves the first may still match by chance. */
    bad_case("challenge mismatch", &r, "vanilla_proofs[0] (sector 7): inclusion_proofs[");
    CHECK(strstr(last_message, ", the challenge is leaf ") != NULL);
    r.randomness[0] ^= 1;
    r.randomness_len = 31;
    bad_case("randomness of 31 bytes", &r, "randomness must be exactly 32 bytes, got 31");
    r.randomness_len = 32;
    r.id = 11;
    bad_case("another sector size (id)", &r,
             "registered proof 11 (StackedDrgWindow8MiBV1_1) is for 8388608-byte sectors, the "
             "request says sector_size 2048");
    r.sector_size = 8 << 20;
    bad_case("another sector size (proofs)", &r,
             "vanilla_proofs[0] (5680 bytes, a StackedDrgWindow8MiBV1_1 proof has 15280)");
    r.id = 10, r.sector_size = 2048;
    r.kind = CZ_PROOF_WINNING_POST;
    bad_case("kind vs registered proof", &r, "is a window PoSt, the request's proof_kind is");
    r.kind = CZ_PROOF_WINDOW_POST;
    r.partition = 3000;
    bad_case("partition index", &r, "partition_index 3000 is out of range");
    r.partition = 0;
    request more;
    make_request(&more, 10, 2, 0);
    r.bytes[2] = more.bytes[0], r.lens[2] = more.lens[0], r.n = 3;
    bad_case("too many sectors", &r, "3 vanilla proofs: StackedDrgWindow2KiBV1_1 takes 1 to 2");
    r.n = 2;
    request_free(&more);
    request_free(&r);
    cz_engine_destroy(engine);
    return cz_test_finish("engine_post_e2e");
}
