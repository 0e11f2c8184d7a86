/* SnapDeals end to end through the engine's snap job kind on the CPU
 * back-end, at 2 KiB, with the development parameters of the
 * `cuzk setup --kind snap` fixture ($CZ_PARAMS_DIR):
 *  - two generated updates submitted together are proven (the second while
 *    the first is in the pipeline); each proof verifies with the public
 *    inputs recomputed from its commitments, and not with another update's
 *    commitments, an altered commitment or an altered proof byte;
 *  - bad requests are refused by cz_engine_submit itself (the admit step,
 *    before the job exists) with CZ_E_INVALID_ARG and a message naming
 *    what is wrong: commitments of 31 bytes or not canonical, no or two
 *    partition proofs, truncated bincode, an inconsistent comm_r_new or
 *    comm_d_new, an unknown id, a sector size not the id's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_prove.h"
#include "harness/harness.h"

static cz_engine *engine;
static const char *params_dir;
static unsigned job_seq;
static cz_snap_config cfg;

typedef struct {
    uint64_t id, sector_size;
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
    size_t comm_len[3];
    cz_snap_comms comms;
    uint32_t n;
    uint8_t *bytes[2];
    size_t lens[2];
} request;

static void make_request(request *r, uint64_t seed) {
    memset(r, 0, sizeof *r);
    cz_snap_gen_opts o;
    cz_snap_gen_opts_from_seed(&o, seed);
    cz_snap_partition_proof p;
    cz_error err = {0};
    CHECK(cz_snap_gen(&p, &r->comms, &cfg, &o, &err) == CZ_OK);
    CHECK(cz_snap_encode(&r->bytes[0], &r->lens[0], &cfg, &p, &err) == CZ_OK);
    cz_snap_proof_free(&p);
    r->n = 1;
    r->id = 0;
    r->sector_size = 2048;
    cz_fr_to_bytes_le(r->comm_r_old, &r->comms.comm_r_old);
    cz_fr_to_bytes_le(r->comm_d_new, &r->comms.comm_d_new);
    cz_fr_to_bytes_le(r->comm_r_new, &r->comms.comm_r_new);
    r->comm_len[0] = r->comm_len[1] = r->comm_len[2] = 32;
}

static cz_status submit(const request *r, char job_id[CZ_JOB_ID_MAX + 1], cz_error *err) {
    char id[32];
    snprintf(id, sizeof id, "snap-%u", ++job_seq);
    cz_engine_request q;
    memset(&q, 0, sizeof q);
    q.request_id = id;
    q.kind = CZ_PROOF_SNAP;
    q.sector_size = r->sector_size;
    q.registered_proof = r->id;
    q.vanilla_proofs = (const uint8_t *const *)r->bytes;
    q.vanilla_proofs_len = r->lens;
    q.n_vanilla_proofs = r->n;
    q.comm_r_old = r->comm_r_old, q.comm_r_old_len = r->comm_len[0];
    q.comm_d_new = r->comm_d_new, q.comm_d_new_len = r->comm_len[1];
    q.comm_r_new = r->comm_r_new, q.comm_r_new_len = r->comm_len[2];
    cz_engine_submit_info info;
    cz_status st = cz_engine_submit(engine, &q, &info, err);
    if (st == CZ_OK) snprintf(job_id, CZ_JOB_ID_MAX + 1, "%s", info.job_id);
    return st;
}

static int verify(const uint8_t *proof, const cz_snap_comms *comms) {
    char params_path[4096], vk_path[4096];
    CHECK(cz_snap_param_paths(params_path, vk_path, sizeof vk_path, params_dir, &cfg, NULL) ==
          CZ_OK);
    cz_groth16_vk vk;
    cz_error err = {0};
    CHECK(cz_groth16_vk_read(&vk, vk_path, CZ_GROTH16_CHECKED, &err) == CZ_OK);
    int valid = 0;
    cz_status st = cz_snap_verify(&valid, &cfg, &vk, comms, proof, 192, &err);
    cz_groth16_vk_free(&vk);
    return st == CZ_OK && valid;
}

static void test_proofs(void) {
    request r[2];
    char ids[2][CZ_JOB_ID_MAX + 1];
    uint8_t proofs[2][192];
    cz_error err = {0};
    for (int i = 0; i < 2; i++) {
        make_request(&r[i], cz_test_rand64());
        CHECK(submit(&r[i], ids[i], &err) == CZ_OK);
    }
    for (int i = 0; i < 2; i++) {
        cz_engine_result res;
        CHECK(cz_engine_await(engine, ids[i], 0, NULL, NULL, &res, &err) == CZ_OK);
        CHECK(res.status == CZ_JOB_COMPLETED && res.proof_len == 192);
        if (res.status != CZ_JOB_COMPLETED) printf("  update %d: %s\n", i, res.error_message);
        if (res.proof_len == 192) memcpy(proofs[i], res.proof, 192);
        cz_engine_result_free(&res);
    }
    for (int i = 0; i < 2; i++) {
        CHECK(verify(proofs[i], &r[i].comms));
        CHECK(!verify(proofs[i], &r[1 - i].comms));
        cz_snap_comms bad = r[i].comms;
        cz_fr_add(&bad.comm_d_new, &bad.comm_d_new, &cz_fr_one);
        CHECK(!verify(proofs[i], &bad));
        bad = r[i].comms;
        cz_fr_add(&bad.comm_r_old, &bad.comm_r_old, &cz_fr_one);
        CHECK(!verify(proofs[i], &bad));
        for (size_t pos = 0; pos < 192; pos += 41) {
            proofs[i][pos] ^= 0x08;
            CHECK(!verify(proofs[i], &r[i].comms));
            proofs[i][pos] ^= 0x08;
        }
        free(r[i].bytes[0]);
    }
    printf("  two 2 KiB updates proven together on the CPU, verified; altered inputs rejected\n");
}

/* Refused by the submission itself. */
static void bad_case(const char *what, const request *r, const char *want) {
    char job[CZ_JOB_ID_MAX + 1];
    cz_error err = {0};
    cz_status st = submit(r, job, &err);
    CHECK(st == CZ_E_INVALID_ARG);
    int ok = st != CZ_OK && strstr(err.message, want) != NULL;
    printf("  %-28s %s: %s%s\n", what, cz_status_name(st), err.message,
           ok ? "" : "  <-- expected another message");
    CHECK(ok);
}

static void test_bad_requests(void) {
    request r, more;
    make_request(&r, 11);
    make_request(&more, 12);
    r.comm_len[0] = 31;
    bad_case("comm_r_old of 31 bytes", &r, "comm_r_old: 31 bytes, expected 32");
    r.comm_len[0] = 32;
    r.comm_d_new[31] |= 0xc0;
    bad_case("comm_d_new not canonical", &r, "comm_d_new is not a canonical field element");
    r.comm_d_new[31] = more.comm_d_new[31];
    memcpy(r.comm_d_new, more.comm_d_new, 32);
    bad_case("another comm_d_new", &r, "vanilla_proofs[0] (partition 0): challenge_proofs[0]");
    cz_fr_to_bytes_le(r.comm_d_new, &r.comms.comm_d_new);
    r.comm_r_new[0] ^= 1;
    bad_case("inconsistent comm_r_new", &r, "comm_r_new is not Poseidon2(comm_c, root");
    r.comm_r_new[0] ^= 1;
    r.n = 0;
    bad_case("no partition proof", &r,
             "0 vanilla proofs: a StackedDrg2KiBV1 update has 1 partitions, one proof each");
    r.n = 2;
    r.bytes[1] = more.bytes[0], r.lens[1] = more.lens[0];
    bad_case("two partition proofs", &r, "2 vanilla proofs");
    r.n = 1;
    r.lens[0] -= 7;
    bad_case("truncated bincode", &r,
             "vanilla_proofs[0] (15057 bytes, a StackedDrg2KiBV1 partition proof has 15064): "
             "partition_proof.challenge_proofs[9].proof_r_new.path[1].index at byte 15056: "
             "truncated");
    r.lens[0] += 7;
    r.id = 5;
    bad_case("unknown update proof", &r, "registered update proof 5 is unknown");
    r.id = 1;
    bad_case("sector size not the id's", &r,
             "registered update proof 1 (StackedDrg8MiBV1) is for 8388608-byte sectors, the "
             "request says sector_size 2048");
    r.sector_size = 8 << 20;
    bad_case("proofs of another size", &r, "1 vanilla proofs: a StackedDrg8MiBV1 update has 4");
    free(r.bytes[0]);
    free(more.bytes[0]);
}

int main(void) {
    cz_test_init("engine_snap_e2e");
    params_dir = getenv("CZ_PARAMS_DIR");
    if (!params_dir) {
        printf("skipped: CZ_PARAMS_DIR not set (ctest sets it after `cuzk setup --kind snap`)\n");
        return 77;
    }
    cz_error err = {0};
    CHECK(cz_snap_config_from_sector(&cfg, 2048, &err) == CZ_OK);
    cz_engine_config ec;
    memset(&ec, 0, sizeof ec);
    ec.backend = "cpu";
    ec.param_cache = params_dir;
    /* Jobs are awaited in submission order and one can end minutes before
     * another under ASan: keep results long enough not to prune one unread. */
    ec.result_retention_ms = 3600000;
    ec.synthesis_workers = 2;
    if (cz_engine_create(&engine, &ec, &err) != CZ_OK) {
        printf("engine: %s\n", err.message);
        return 1;
    }
    printf("proofs\n");
    test_proofs();
    printf("bad requests (refused at submission)\n");
    test_bad_requests();
    cz_engine_destroy(engine);
    return cz_test_finish("engine_snap_e2e");
}
