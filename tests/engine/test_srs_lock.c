/* The SRS manager page-locks the host points of a key that a device
 * declined to load from its file (it streams them from host memory), and
 * unlocks every locked vector before the points are freed: on the demotion
 * to warm under memory pressure, on the eviction to cold and at the end.
 * The lock functions are fakes that record what is locked (a real unlock
 * after free would leave pages locked or hit reused addresses); the fake
 * unlock reads the vector's first byte, so freeing first is a
 * use-after-free under ASan. A driver that refuses costs only speed: the
 * key loads, nothing stays locked and nothing is unlocked. With its
 * circuit, the circuit's file mapping is locked too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/srs.h"
#include "r1cs/circuit.h"
#include "harness/harness.h"

#define MAX_LOCKED 16

static struct {
    void *p;
    size_t bytes;
} locked[MAX_LOCKED];
static size_t n_locked, locks, unlocks,
    fail_at; /* fail_at: the lock call that fails (1..), 0 none */
static volatile uint8_t sink;

static cz_status fake_lock(void *p, size_t bytes, cz_error *err) {
    if (++locks == fail_at) return cz_error_set(err, CZ_E_CUDA, "fake: the driver refuses");
    CHECK(n_locked < MAX_LOCKED);
    for (size_t i = 0; i < n_locked; i++) CHECK(locked[i].p != p); /* never twice */
    locked[n_locked].p = p;
    locked[n_locked].bytes = bytes;
    n_locked++;
    return CZ_OK;
}

static void fake_unlock(void *p) {
    size_t i = 0;
    while (i < n_locked && locked[i].p != p) i++;
    CHECK(i < n_locked); /* only what was locked */
    if (i == n_locked) return;
    sink = *(volatile uint8_t *)p; /* still allocated */
    locked[i] = locked[--n_locked];
    unlocks++;
}

/* A device that cannot hold any key resident: the entry holds host points
 * (a view of its mapped file). */
static cz_status declining_loader(void *ctx, const char *id, const cz_groth16_params_file *file,
                                  const cz_circuit *circuit, cz_error *err) {
    (void)ctx, (void)file, (void)circuit;
    return cz_error_set(err, CZ_E_UNSUPPORTED, "fake device: %s would stream", id);
}

/* What a locked entry's vectors must be: each non-empty one, its bytes. */
static void check_locked_as(const cz_groth16_params *p) {
    size_t n = 0;
    for (int k = 0; k < CZ_GROTH16_VECTORS; k++) {
        size_t bytes = 0;
        const void *v = cz_groth16_params_points(p, k, &bytes);
        if (!v) continue;
        n++;
        int found = 0;
        for (size_t i = 0; i < n_locked; i++)
            if (locked[i].p == v) found = 1, CHECK(locked[i].bytes == bytes);
        CHECK(found);
    }
    CHECK(n == n_locked);
    CHECK(n >= 4); /* the tiny circuit has h, l, a, b points */
}

/* id hot, with its circuit when want_circuit. */
static void acquire(cz_srs_manager *m, const char *id, int want_circuit) {
    cz_srs_handle h;
    uint64_t ms = 0;
    cz_error err = {0};
    cz_status st = cz_srs_acquire(m, id, want_circuit, &h, &ms, NULL, &err);
    if (st != CZ_OK) fprintf(stderr, "acquire %s: %s\n", id, err.message);
    CHECK(st == CZ_OK && (!want_circuit || h.circuit != NULL));
}

/* The only device keeps every vector but H on it (a resident plan from host
 * points; cz_srs_drop_host_vectors): their host copies go, unlocked first,
 * and come back from the file as they were (cz_srs_restore_host_vectors),
 * locked again; without a reference nothing changes. e hot, referenced. */
static void check_drop_restore(cz_srs_manager *m, cz_srs_entry *e, const char *id) {
    void *saved[CZ_GROTH16_VECTORS] = {0};
    size_t bytes[CZ_GROTH16_VECTORS] = {0}, dropped_bytes = 0, dropped = 0;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        const void *p = cz_groth16_params_points(&e->params, v, &bytes[v]);
        CHECK(p != NULL || bytes[v] == 0);
        if (!p) continue;
        saved[v] = malloc(bytes[v]);
        if (saved[v]) memcpy(saved[v], p, bytes[v]);
        if (v != CZ_GROTH16_H) dropped_bytes += bytes[v], dropped++;
    }
    const void *h = e->params.h;
    const size_t locked_before = n_locked, unlocks_before = unlocks;
    CHECK(dropped >= 3 && e->dropped == 0);
    CHECK(cz_srs_drop_host_vectors(m, id, ~0u) == dropped_bytes);
    CHECK(e->params.h == h && !e->params.l && !e->params.a && !e->params.b_g2);
    CHECK(e->params.n_l && e->params.n_a && e->params.n_b_g2); /* the counts stay */
    CHECK(n_locked == locked_before - dropped && unlocks == unlocks_before + dropped);
    CHECK(e->dropped && !(e->dropped & 1u << CZ_GROTH16_H));
    CHECK(cz_srs_drop_host_vectors(m, id, ~0u) == 0); /* nothing left to drop */
    cz_error err = {0};
    CHECK(cz_srs_restore_host_vectors(m, id, &err) == CZ_OK);
    CHECK(e->dropped == 0 && n_locked == locked_before);
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        size_t b = 0;
        const void *p = cz_groth16_params_points(&e->params, v, &b);
        CHECK(b == bytes[v] && (!saved[v] || (p && memcmp(p, saved[v], b) == 0)));
        free(saved[v]);
    }
    check_locked_as(&e->params);
    CHECK(cz_srs_restore_host_vectors(m, id, &err) == CZ_OK); /* nothing to do */
    /* dropped again: an eviction unlocks only what is left */
    CHECK(cz_srs_drop_host_vectors(m, id, 1u << CZ_GROTH16_L) == bytes[CZ_GROTH16_L]);
    CHECK(!e->params.l && e->params.a && n_locked == locked_before - 1);
}

int main(void) {
    cz_test_init("engine/test_srs_lock");
    char dir[] = "/tmp/cz-srs-lock-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(cz_test_write_tiny_params(dir, 2048) > 0);
    const char *id = cz_srs_porep_circuit_id(2048);
    CHECK(id != NULL);

    cz_budget budget;
    cz_budget_init(&budget, (uint64_t)1 << 30);
    cz_srs_manager m;
    cz_srs_init(&m, &budget, dir, 0);
    cz_srs_set_device_loader(&m, declining_loader, NULL);
    cz_srs_set_host_locking(&m, fake_lock, fake_unlock);
    cz_srs_entry *e = NULL;

    /* hot with host points: every vector locked */
    acquire(&m, id, 0);
    for (size_t i = 0; i < m.n; i++)
        if (!strcmp(m.entries[i].id, id)) e = &m.entries[i];
    CHECK(e != NULL && e->tier == CZ_SRS_HOT && e->needs_host_points && e->host_locked);
    /* a view of the mapping (the device converts what it streams): the
     * locked ranges are the file's points, in a shared mapping */
    CHECK(e->params.encoded && e->params.l &&
          (const uint8_t *)e->params.l == e->file.data + e->file.layout.offset[CZ_GROTH16_L]);
    CHECK(cz_test_mapping_shared(e->file.data) != 0);
    check_locked_as(&e->params);
    const size_t vectors = n_locked;
    cz_srs_release(&m, id);
    CHECK(cz_srs_drop_host_vectors(&m, id, ~0u) == 0); /* no reference: left as it is */

    /* memory pressure demotes it to warm: unlocked, then freed */
    CHECK(cz_srs_evict_idle(&m, UINT64_MAX) > 0);
    CHECK(e->tier == CZ_SRS_WARM && !e->host_locked);
    CHECK(n_locked == 0 && unlocks == vectors);

    /* hot again (it still streams): locked again; to cold: unlocked */
    acquire(&m, id, 0);
    CHECK(e->host_locked);
    check_locked_as(&e->params);
    cz_srs_release(&m, id);
    int was_loaded = 0;
    uint64_t freed = 0;
    cz_error err = {0};
    CHECK(cz_srs_evict(&m, id, &was_loaded, &freed, &err) == CZ_OK);
    CHECK(was_loaded && freed > 0);
    CHECK(n_locked == 0 && unlocks == 2 * vectors);

    /* the driver refuses the second vector: the first is unlocked again,
     * the key still loads, pageable */
    fail_at = 2;
    locks = 0;
    acquire(&m, id, 0);
    CHECK(e->tier == CZ_SRS_HOT && !e->host_locked);
    CHECK(n_locked == 0 && unlocks == 2 * vectors + 1);
    cz_srs_release(&m, id);

    /* with its circuit (a streamed key's units stream its matrices): the
     * circuit's file mapping is locked too, and unlocked before it is
     * unmapped (the fake unlock reads it) */
    fail_at = 0;
    CHECK(cz_srs_evict(&m, id, &was_loaded, &freed, &err) == CZ_OK);
    const size_t unlocks_before = unlocks;
    cz_test_write_tiny_circuit(e->circuit_path);
    acquire(&m, id, 1);
    size_t map_bytes = 0;
    const void *map = e->circuit ? cz_circuit_mapping(e->circuit, &map_bytes) : NULL;
    CHECK(e->host_locked && e->circuit_locked && map != NULL && n_locked == vectors + 1);
    int map_found = 0;
    for (size_t i = 0; i < n_locked; i++)
        if (locked[i].p == map) map_found = 1, CHECK(locked[i].bytes == map_bytes);
    CHECK(map_found);
    CHECK(cz_test_mapping_shared(map) != 0); /* shared, or no /proc to tell */
    cz_srs_release(&m, id);
    CHECK(cz_srs_evict(&m, id, &was_loaded, &freed, &err) == CZ_OK);
    CHECK(n_locked == 0 && unlocks == unlocks_before + vectors + 1 && !e->circuit_locked);

    /* the end: a locked entry is unlocked before its points go, but for
     * the vector dropped in check_drop_restore */
    acquire(&m, id, 0);
    CHECK(e->host_locked);
    check_drop_restore(&m, e, id);
    cz_srs_release(&m, id);
    const size_t before = unlocks;
    cz_srs_destroy(&m);
    CHECK(n_locked == 0 && unlocks == before + vectors - 1);
    cz_budget_destroy(&budget);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return cz_test_finish("engine/test_srs_lock");
}
