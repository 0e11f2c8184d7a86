/* SRS manager: see srs.h for the tiers and the invariants. */
#include "engine/srs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filecoin/common/params_table.h"
#include "filecoin/porep/porep.h"
#include "filecoin/post/post_prove.h"
#include "filecoin/common/registry.h"
#include "filecoin/snap/snap_prove.h"
#include "util/log.h"
#include "util/parallel.h"

/* A circuit id is "<kind>-<size>": a kind below and the registry's short
 * name of a published sector size (porep-2k ... snap-64g). PoSt's kinds
 * follow cz_post_kind. */
enum { ID_POREP, ID_WINNING, ID_WINDOW, ID_SNAP, ID_KINDS };
static const char *const id_kinds[ID_KINDS] = {"porep", "winning-post", "window-post", "snap"};
static char circuit_ids[ID_KINDS][CZ_FC_SECTOR_SIZE_COUNT][24];
static pthread_once_t circuit_ids_once = PTHREAD_ONCE_INIT;

static void circuit_ids_make(void) {
    for (int k = 0; k < ID_KINDS; k++)
        for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++)
            snprintf(circuit_ids[k][i], sizeof circuit_ids[k][i], "%s-%s", id_kinds[k],
                     cz_fc_sector_short_name(cz_fc_sector_sizes[i]));
}

static const char *circuit_id(int kind, uint64_t sector_size) {
    pthread_once(&circuit_ids_once, circuit_ids_make);
    for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++)
        if (cz_fc_sector_sizes[i] == sector_size) return circuit_ids[kind][i];
    return NULL;
}

const char *cz_srs_snap_circuit_id(uint64_t sector_size) {
    return circuit_id(ID_SNAP, sector_size);
}

const char *cz_srs_post_circuit_id(int kind, uint64_t sector_size) {
    if (kind != CZ_POST_WINNING && kind != CZ_POST_WINDOW) return NULL;
    return circuit_id(kind == CZ_POST_WINNING ? ID_WINNING : ID_WINDOW, sector_size);
}

const char *cz_srs_porep_circuit_id(uint64_t sector_size) {
    return circuit_id(ID_POREP, sector_size);
}

void cz_srs_init(cz_srs_manager *m, cz_budget *budget, const char *dir, uint64_t min_idle_ms) {
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->changed, NULL);
    m->budget = budget;
    snprintf(m->dir, sizeof m->dir, "%s", dir ? dir : ".");
    m->min_idle_ns = min_idle_ms * 1000000ull;
}

void cz_srs_set_device_loader(cz_srs_manager *m, cz_srs_device_load_fn fn, void *ctx) {
    m->device_load = fn;
    m->device_ctx = ctx;
}

void cz_srs_set_host_locking(cz_srs_manager *m, cz_srs_lock_host_fn lock,
                             cz_srs_unlock_host_fn unlock) {
    m->lock_host = lock;
    m->unlock_host = unlock;
}

/* Unlocks e's vectors in mask that it holds. */
static void unlock_vectors(cz_srs_manager *m, cz_srs_entry *e, unsigned mask) {
    for (int k = 0; k < CZ_GROTH16_VECTORS; k++) {
        size_t bytes;
        void *v = cz_groth16_params_points(&e->params, k, &bytes);
        if (v && (mask >> k & 1)) m->unlock_host(v);
    }
}

/* Page-locks e's vectors in mask that it holds, all or none (unlocking
 * needs to know which are locked): on a refusal those locked here are
 * unlocked again and the driver's words are in *err. *bytes: the total. */
static int lock_vectors(cz_srs_manager *m, cz_srs_entry *e, unsigned mask, size_t *bytes,
                        cz_error *err) {
    *bytes = 0;
    for (int k = 0; k < CZ_GROTH16_VECTORS; k++) {
        size_t b = 0;
        void *v = cz_groth16_params_points(&e->params, k, &b);
        if (!v || !(mask >> k & 1)) continue;
        if (m->lock_host(v, b, err) != CZ_OK) {
            unlock_vectors(m, e, mask & ((1u << k) - 1));
            return 0;
        }
        *bytes += b;
    }
    return 1;
}

#define ALL_VECTORS ((1u << CZ_GROTH16_VECTORS) - 1)

/* Page-locks e's decoded points (m->lock not held; e marked loading) when
 * a device streams them; a vector the driver refuses stays pageable (its
 * copies go through the staging buffers: slower, not wrong). */
static void lock_points(cz_srs_manager *m, cz_srs_entry *e) {
    if (!m->lock_host || !e->needs_host_points) return;
    uint64_t t0 = cz_now_ns();
    cz_error err = {0};
    size_t total = 0;
    if (!lock_vectors(m, e, ALL_VECTORS, &total, &err)) {
        cz_log(CZ_LOG_WARN,
               "srs: %s: host points not page-locked (%s): streamed copies go through the "
               "staging buffers",
               e->id, err.message);
        return;
    }
    e->host_locked = 1;
    cz_log(CZ_LOG_INFO,
           "srs: %s: %.1f GB of host points page-locked in %.2f s (streamed copies "
           "read them directly)",
           e->id, (double)total / 1e9, (double)(cz_now_ns() - t0) / 1e9);
}

/* Page-locks the file mapping of e's circuit (loaded, m->lock not held;
 * e marked loading) when a device streams e's key: such a device streams
 * the circuit's matrices too, a window per copy for every unit, and from
 * locked memory the copy engines read them without the CPU, which
 * synthesis keeps busy. Refused: copied through the staging buffers. */
static void lock_circuit(cz_srs_manager *m, cz_srs_entry *e) {
    size_t bytes = 0;
    const void *map = e->circuit ? cz_circuit_mapping(e->circuit, &bytes) : NULL;
    if (!m->lock_host || !e->needs_host_points || !map || e->circuit_locked) return;
    uint64_t t0 = cz_now_ns();
    cz_error err = {0};
    if (m->lock_host((void *)map, bytes, &err) != CZ_OK) {
        cz_log(CZ_LOG_WARN,
               "srs: %s: circuit not page-locked (%s): its streamed windows go through the "
               "staging buffers",
               e->id, err.message);
        return;
    }
    e->circuit_locked = 1;
    cz_log(CZ_LOG_INFO, "srs: %s: circuit (%.1f GB) page-locked in %.2f s", e->id,
           (double)bytes / 1e9, (double)(cz_now_ns() - t0) / 1e9);
}

/* Frees e's circuit, unlocking its mapping first. */
static void free_circuit(cz_srs_manager *m, cz_srs_entry *e) {
    size_t bytes = 0;
    if (e->circuit_locked) m->unlock_host((void *)cz_circuit_mapping(e->circuit, &bytes));
    e->circuit_locked = 0;
    cz_circuit_free(e->circuit);
    e->circuit = NULL;
}

/* Frees e's decoded points, unlocking them first. */
static void free_points(cz_srs_manager *m, cz_srs_entry *e) {
    if (e->host_locked) unlock_vectors(m, e, ALL_VECTORS);
    e->host_locked = 0;
    cz_groth16_params_free(&e->params);
    e->dropped = 0;
}

/* The hot entry of id with host points that a referenced holder may change
 * (m->lock held), else NULL. */
static cz_srs_entry *host_points_entry(cz_srs_manager *m, const char *id) {
    for (size_t i = 0; i < m->n; i++) {
        cz_srs_entry *e = &m->entries[i];
        if (strcmp(e->id, id) == 0)
            return e->tier == CZ_SRS_HOT && e->refs && !e->loading && !e->points_on_device ? e
                                                                                           : NULL;
    }
    return NULL;
}

uint64_t cz_srs_drop_host_vectors(cz_srs_manager *m, const char *id, unsigned mask) {
    void *gone[CZ_GROTH16_VECTORS] = {0};
    uint64_t freed = 0;
    int locked = 0, encoded = 0;
    pthread_mutex_lock(&m->lock);
    cz_srs_entry *e = host_points_entry(m, id);
    if (e) encoded = e->params.encoded;
    mask &= ~(1u << CZ_GROTH16_H);
    for (int v = 0; e && v < CZ_GROTH16_VECTORS; v++) {
        size_t bytes = 0;
        if (!(mask >> v & 1) || !cz_groth16_params_points(&e->params, v, &bytes)) continue;
        /* out of the entry under the lock; unlocked and freed after it */
        gone[v] = cz_groth16_params_take_vector(&e->params, v);
        freed += bytes;
        locked = e->host_locked;
        e->dropped |= 1u << v;
    }
    pthread_mutex_unlock(&m->lock);
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        if (!gone[v]) continue;
        if (locked) m->unlock_host(gone[v]);
        if (!encoded) free(gone[v]); /* a view's are the mapping's */
    }
    if (freed)
        cz_log(CZ_LOG_INFO, "srs: %s: %.1f GB of host points %s (the device keeps them)", id,
               (double)freed / 1e9,
               encoded ? "let go (unlocked: the page cache may drop them)" : "freed");
    return freed;
}

/* Host bytes of a hot entry whose points are on the devices: the vk of the
 * parameters and the one from the .vk file. */
static uint64_t device_hot_bytes(uint64_t n_ic) {
    return 2 * ((uint64_t)sizeof(cz_groth16_vk) + n_ic * sizeof(cz_g1_affine));
}

/* Whether e's next load will keep its points on the devices. */
static int goes_to_device(const cz_srs_manager *m, const cz_srs_entry *e) {
    return m->device_load && !e->needs_host_points;
}

cz_status cz_srs_restore_host_vectors(cz_srs_manager *m, const char *id, cz_error *err) {
    pthread_mutex_lock(&m->lock);
    cz_srs_entry *e = host_points_entry(m, id);
    const unsigned want = e ? e->dropped : 0;
    if (want) e->loading = 1; /* no other load, drop or eviction meanwhile */
    pthread_mutex_unlock(&m->lock);
    if (!want) return CZ_OK;
    uint64_t bytes = 0;
    for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
        size_t b = 0;
        (void)cz_groth16_params_points(&e->params, v, &b);
        if (want >> v & 1) bytes += b;
    }
    cz_status st = CZ_OK;
    /* decoded as at the load, and locked as the others are (all or none) */
    for (int v = 0; v < CZ_GROTH16_VECTORS && st == CZ_OK; v++)
        if (want >> v & 1)
            st = cz_groth16_params_file_decode_vector(&e->params, &e->file, v, CZ_GROTH16_UNCHECKED,
                                                      err);
    size_t locked = 0;
    cz_error lerr = {0};
    if (st == CZ_OK && e->host_locked && !lock_vectors(m, e, want, &locked, &lerr)) {
        unlock_vectors(m, e, ~want & ALL_VECTORS);
        e->host_locked = 0;
        cz_log(CZ_LOG_WARN, "srs: %s: host points no longer page-locked (%s)", id, lerr.message);
    }
    if (st != CZ_OK) /* as it was: the vectors of this call freed (a view's: let go) again */
        for (int v = 0; v < CZ_GROTH16_VECTORS; v++) {
            void *gone = want >> v & 1 ? cz_groth16_params_take_vector(&e->params, v) : NULL;
            if (!e->params.encoded) free(gone);
        }
    pthread_mutex_lock(&m->lock);
    if (st == CZ_OK) e->dropped = 0;
    e->loading = 0;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
    if (st != CZ_OK) return cz_error_wrap(err, st, "srs %s: host points again", id);
    cz_log(CZ_LOG_INFO, "srs: %s: %.1f GB of host points %s again (a new memory plan)", id,
           (double)bytes / 1e9, e->params.encoded ? "taken from the mapping" : "decoded");
    return CZ_OK;
}

/* Drops everything above cold; the caller holds no reference. */
static uint64_t entry_to_cold(cz_srs_manager *m, cz_srs_entry *e) {
    uint64_t freed = e->hot_bytes;
    free_points(m, e);
    cz_groth16_vk_free(&e->vk);
    free_circuit(m, e);
    cz_groth16_params_file_unmap(&e->file);
    e->hot_bytes = 0;
    e->points_on_device = 0;
    /* an explicit eviction starts afresh: the next load tries the devices */
    e->needs_host_points = 0;
    e->tier = CZ_SRS_COLD;
    return freed;
}

void cz_srs_destroy(cz_srs_manager *m) {
    for (size_t i = 0; i < m->n; i++) {
        uint64_t freed = entry_to_cold(m, &m->entries[i]);
        if (freed) cz_budget_release(m->budget, freed);
    }
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->changed);
}

cz_status cz_srs_circuit_files(cz_srs_files *out, const char *dir, const char *id, cz_error *err) {
    memset(out, 0, sizeof *out);
    out->post_kind = -1;
    pthread_once(&circuit_ids_once, circuit_ids_make);
    for (int k = 0; k < ID_KINDS; k++)
        for (int i = 0; i < CZ_FC_SECTOR_SIZE_COUNT; i++)
            if (!strcmp(circuit_ids[k][i], id)) {
                out->sector_size = cz_fc_sector_sizes[i];
                out->snap = k == ID_SNAP;
                if (k == ID_WINNING || k == ID_WINDOW)
                    out->post_kind = k == ID_WINNING ? CZ_POST_WINNING : CZ_POST_WINDOW;
            }
    if (!out->sector_size)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "unknown circuit id '%s' (known: porep-2k, porep-8m, porep-512m, "
                            "porep-32g, porep-64g, winning-post-2k ... -64g, window-post-2k ... "
                            "-64g, snap-2k ... -64g)",
                            id);
    size_t cap = sizeof out->params;
    cz_fc_sector_info sector;
    cz_post_config post;
    cz_snap_config snap_cfg;
    cz_status st = cz_fc_sector_lookup(&sector, out->sector_size, err);
    if (st == CZ_OK && out->snap) {
        st = cz_snap_config_from_sector(&snap_cfg, out->sector_size, err);
        if (st == CZ_OK) st = cz_snap_param_paths(out->params, out->vk, cap, dir, &snap_cfg, err);
        if (st == CZ_OK) st = cz_snap_circuit_path(out->circuit, cap, dir, &snap_cfg, err);
    } else if (st == CZ_OK && out->post_kind >= 0) {
        st = cz_post_config_from_sector(&post, (cz_post_kind)out->post_kind, out->sector_size, err);
        if (st == CZ_OK) st = cz_post_param_paths(out->params, out->vk, cap, dir, &post, err);
        if (st == CZ_OK) st = cz_post_circuit_path(out->circuit, cap, dir, &post, err);
    } else if (st == CZ_OK) {
        st = cz_porep_param_paths(out->params, out->vk, cap, dir, &sector, err);
        if (st == CZ_OK) st = cz_porep_circuit_path(out->circuit, cap, dir, &sector, err);
    }
    return st;
}

/* Finds or creates the entry of a known circuit id; under m->lock. */
static cz_status find_entry(cz_srs_manager *m, const char *id, cz_srs_entry **out, cz_error *err) {
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->entries[i].id, id)) {
            *out = &m->entries[i];
            return CZ_OK;
        }
    cz_srs_files *f = malloc(sizeof *f);
    if (!f) return cz_error_set(err, CZ_E_NOMEM, "srs: out of memory");
    cz_status st = cz_srs_circuit_files(f, m->dir, id, err);
    if (st == CZ_OK && m->n == CZ_SRS_MAX_ENTRIES)
        st = cz_error_set(err, CZ_E_NOMEM, "srs: too many entries");
    if (st != CZ_OK) {
        free(f);
        return st;
    }
    cz_srs_entry *e = &m->entries[m->n];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    e->sector_size = f->sector_size;
    e->tier = CZ_SRS_COLD;
    e->post_kind = f->post_kind;
    e->snap = f->snap;
    memcpy(e->params_path, f->params, sizeof e->params_path);
    memcpy(e->vk_path, f->vk, sizeof e->vk_path);
    memcpy(e->circuit_path, f->circuit, sizeof e->circuit_path);
    free(f);
    m->n++;
    *out = e;
    return CZ_OK;
}

cz_status cz_srs_hot_bytes(cz_srs_manager *m, const char *id, uint64_t *bytes, cz_error *err) {
    pthread_mutex_lock(&m->lock);
    cz_srs_entry *e;
    cz_status st = find_entry(m, id, &e, err);
    char path[PATH_MAX];
    int device = 0;
    if (st == CZ_OK) {
        snprintf(path, sizeof path, "%s", e->params_path);
        device = goes_to_device(m, e);
    }
    pthread_mutex_unlock(&m->lock);
    if (st != CZ_OK) return st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        if (fd >= 0) close(fd);
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO,
                            "srs %s: parameters %s not found (run `cuzk setup` or set [srs] "
                            "param_cache)",
                            id, path);
    }
    *bytes = (uint64_t)sb.st_size;
    if (device) {
        /* n_ic: the u32 just before the vk's ic points */
        uint8_t b[4];
        uint64_t n_ic = 0;
        if (pread(fd, b, 4, CZ_GROTH16_VK_FIXED_BYTES - 4) == 4)
            n_ic = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
        *bytes = device_hot_bytes(n_ic);
    }
    close(fd);
    pthread_mutex_lock(&m->lock);
    e->expect_bytes = *bytes;
    pthread_mutex_unlock(&m->lock);
    return CZ_OK;
}

/* The pre-compiled circuit of hot e (marked loading, m->lock not held):
 * mapped, built when absent or damaged, and checked against the
 * parameters. The mapping is file-backed (page cache, like a warm SRS), so
 * it is not counted in the budget. */
static cz_status load_circuit(cz_srs_entry *e, cz_error *err) {
    cz_fc_sector_info sector;
    cz_status st = cz_fc_sector_lookup(&sector, e->sector_size, err);
    int built = 0;
    cz_circuit *c = NULL;
    cz_post_config post;
    cz_snap_config snap;
    if (st == CZ_OK && e->snap) {
        st = cz_snap_config_from_sector(&snap, e->sector_size, err);
        if (st == CZ_OK) st = cz_snap_circuit_load(&c, &built, e->circuit_path, &snap, stderr, err);
    } else if (st == CZ_OK && e->post_kind >= 0) {
        st = cz_post_config_from_sector(&post, (cz_post_kind)e->post_kind, e->sector_size, err);
        if (st == CZ_OK) st = cz_post_circuit_load(&c, &built, e->circuit_path, &post, stderr, err);
    } else if (st == CZ_OK) {
        st = cz_porep_circuit_load(&c, &built, e->circuit_path, &sector, stderr, err);
    }
    if (st == CZ_OK) {
        cz_prove_data shape;
        cz_circuit_prove_view(&shape, c, NULL, NULL, NULL, NULL);
        if ((st = cz_groth16_check_shapes(&e->params, &shape, err)) != CZ_OK) {
            cz_error_prefix(err, "circuit %s does not match %s", e->circuit_path, e->params_path);
            cz_circuit_free(c);
            c = NULL;
        }
    }
    if (st != CZ_OK) return cz_error_wrap(err, st, "srs %s", e->id);
    e->circuit = c;
    return CZ_OK;
}

/* Hot with the points on the devices (e mapped and marked loading, m->lock
 * not held): the vk and counts on the host, the circuit when asked, then
 * the device loader. CZ_E_UNSUPPORTED: a back-end needs host points. */
static cz_status load_to_devices(cz_srs_manager *m, cz_srs_entry *e, int want_circuit,
                                 const atomic_int *abort_flag, cz_error *err) {
    const uint64_t bytes = device_hot_bytes(e->file.layout.n_ic);
    char what[64];
    snprintf(what, sizeof what, "SRS %s (vk)", e->id);
    cz_status st =
        cz_budget_acquire(m->budget, bytes, what, 1, cz_srs_evict_idle, m, abort_flag, err);
    if (st != CZ_OK) return st;
    st = cz_groth16_params_decode_header(&e->params, NULL, e->file.data, e->file.len,
                                         CZ_GROTH16_UNCHECKED, err);
    if (st == CZ_OK) st = cz_groth16_vk_read(&e->vk, e->vk_path, CZ_GROTH16_CHECKED, err);
    if (st == CZ_OK && want_circuit && !e->circuit) st = load_circuit(e, err);
    if (st == CZ_OK) {
        uint64_t t0 = cz_now_ns();
        st = m->device_load(m->device_ctx, e->id, &e->file, e->circuit, err);
        if (st == CZ_OK)
            cz_log(CZ_LOG_INFO, "srs: %s: points on the device(s) in %.2f s, no host copy", e->id,
                   (double)(cz_now_ns() - t0) / 1e9);
    }
    if (st != CZ_OK) {
        cz_groth16_params_free(&e->params);
        cz_groth16_vk_free(&e->vk);
        cz_budget_release(m->budget, bytes);
        return st;
    }
    e->hot_bytes = bytes;
    e->points_on_device = 1;
    return CZ_OK;
}

/* Progress of a first-time digest: a log line at the start and every 10 s. */
typedef struct {
    const char *id, *path;
    uint64_t last_ns;
} check_progress;

static void check_progress_fn(void *ctx, uint64_t done, uint64_t total) {
    check_progress *p = ctx;
    uint64_t now = cz_now_ns();
    if (p->last_ns && now - p->last_ns < 10000000000ull) return;
    p->last_ns = now;
    cz_log(CZ_LOG_INFO,
           "srs: %s: checking %s against Filecoin's digest (once): %.0f %% of %.1f GiB", p->id,
           p->path, total ? 100.0 * (double)done / (double)total : 100.0,
           (double)total / (double)(1ull << 30));
}

/* e's .params and .vk against Filecoin's table (e marked loading, m->lock
 * not held): an official name with another digest is refused; a
 * development key (or a file not in the table) is served with a warning
 * and marks e. Each file is read once; its digest is remembered beside it.
 * A wrong file is CZ_E_NOT_FOUND (Filecoin's file is not there: the
 * daemon's FAILED_PRECONDITION); a missing one is left to the load. */
static cz_status check_files(cz_srs_manager *m, cz_srs_entry *e, cz_error *err) {
    const char *paths[2] = {e->params_path, e->vk_path};
    int development = 0;
    for (int i = 0; i < 2; i++) {
        cz_fc_param_verdict v;
        check_progress prog = {e->id, paths[i], 0};
        cz_status st = cz_fc_param_classify(&v, paths[i], NULL, 0, check_progress_fn, &prog, err);
        /* a missing file: the load that follows says so, as it always did */
        if (st == CZ_E_NOT_FOUND) return CZ_OK;
        if (st != CZ_OK) return cz_error_wrap(err, st, "srs %s", e->id);
        if (v.cls == CZ_FC_PARAM_WRONG_DIGEST)
            return cz_error_set(err, CZ_E_NOT_FOUND, /* this machine's fault, not a request's */
                                "srs %s: %s: official name, but its digest %s is not Filecoin's "
                                "%s: a partial or corrupt download (fetch it again) or a "
                                "development key without its .dev record; refused",
                                e->id, paths[i], v.digest, v.entry->digest);
        if (v.cls != CZ_FC_PARAM_OFFICIAL) {
            development = 1;
            cz_log(CZ_LOG_WARN, "srs: %s: %s is %s: proofs made with it will NOT verify on chain",
                   e->id, paths[i], cz_fc_param_class_text(v.cls));
        }
    }
    pthread_mutex_lock(&m->lock);
    e->development = development;
    pthread_mutex_unlock(&m->lock);
    return CZ_OK;
}

/* Loads e (marked loading by the caller, m->lock not held). */
static cz_status load_entry(cz_srs_manager *m, cz_srs_entry *e, int want_circuit,
                            const atomic_int *abort_flag, cz_error *err) {
    uint64_t t0 = cz_now_ns();
    if (!e->file.data) {
        cz_groth16_params_file file;
        cz_status st = check_files(m, e, err);
        if (st != CZ_OK) return st;
        st = cz_groth16_params_file_map(&file, e->params_path, err);
        if (st != CZ_OK) return cz_error_wrap(err, st, "srs %s", e->id);
        madvise((void *)file.data, file.len, MADV_WILLNEED);
        pthread_mutex_lock(&m->lock);
        e->file = file;
        e->tier = CZ_SRS_WARM;
        pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_lock(&m->lock);
    int device = goes_to_device(m, e);
    pthread_mutex_unlock(&m->lock);
    if (device) {
        cz_status st = load_to_devices(m, e, want_circuit, abort_flag, err);
        if (st != CZ_E_UNSUPPORTED) {
            if (st != CZ_OK) return cz_error_wrap(err, st, "srs %s", e->id);
            e->load_ms = (cz_now_ns() - t0) / 1000000;
            return CZ_OK;
        }
        cz_log(CZ_LOG_INFO, "srs: %s: %s; streaming them from the mapped file", e->id,
               err ? err->message : "a back-end needs host points");
        pthread_mutex_lock(&m->lock);
        e->needs_host_points = 1;
        e->expect_bytes = e->file.len;
        pthread_mutex_unlock(&m->lock);
    }
    char what[64];
    snprintf(what, sizeof what, "SRS %s", e->id);
    cz_status st =
        cz_budget_acquire(m->budget, e->file.len, what, 1, cz_srs_evict_idle, m, abort_flag, err);
    if (st != CZ_OK) return st;
    /* Points are checked on the curve; a wrong subgroup would only give
     * proofs that fail the self-verification, which is always done. For a
     * device that streams them, the points stay in the mapping as the file
     * has them (a view, no copy): the device converts and checks each as it
     * arrives (the curve on a vector's first pass: gpu/srs.h), so the host
     * holds one copy of the key, the page cache's. */
    st = e->needs_host_points
             ? cz_groth16_params_file_view(&e->params, &e->file, CZ_GROTH16_UNCHECKED, err)
             : cz_groth16_params_file_decode(&e->params, &e->file, CZ_GROTH16_UNCHECKED, err);
    if (st == CZ_OK) st = cz_groth16_vk_read(&e->vk, e->vk_path, CZ_GROTH16_CHECKED, err);
    if (st != CZ_OK) {
        cz_groth16_params_free(&e->params);
        cz_budget_release(m->budget, e->file.len);
        return cz_error_wrap(err, st, "srs %s", e->id);
    }
    lock_points(m, e);
    e->hot_bytes = e->file.len;
    e->points_on_device = 0;
    e->load_ms = (cz_now_ns() - t0) / 1000000;
    return CZ_OK;
}

/* Makes e hot (with its circuit when want_circuit), with m->lock held on
 * entry and exit; *loaded = 1 when this call did loading. */
static cz_status ensure_hot(cz_srs_manager *m, cz_srs_entry *e, int want_circuit, int *loaded,
                            const atomic_int *abort_flag, cz_error *err) {
    *loaded = 0;
    while (e->loading) pthread_cond_wait(&m->changed, &m->lock);
    if (e->tier == CZ_SRS_HOT && (!want_circuit || e->circuit)) return CZ_OK;
    e->loading = 1;
    int was_hot = e->tier == CZ_SRS_HOT;
    uint64_t t0 = cz_now_ns();
    pthread_mutex_unlock(&m->lock);
    cz_status st = was_hot ? CZ_OK : load_entry(m, e, want_circuit, abort_flag, err);
    /* e->circuit is written only by the thread that set e->loading. */
    if (st == CZ_OK && want_circuit && !e->circuit && (st = load_circuit(e, err)) != CZ_OK &&
        !was_hot) {
        free_points(m, e);
        cz_groth16_vk_free(&e->vk);
        cz_budget_release(m->budget, e->hot_bytes);
        e->hot_bytes = 0;
    }
    if (st == CZ_OK) lock_circuit(m, e);
    pthread_mutex_lock(&m->lock);
    e->loading = 0;
    if (st == CZ_OK) {
        e->tier = CZ_SRS_HOT;
        e->load_ms = (cz_now_ns() - t0) / 1000000;
        *loaded = 1;
    }
    pthread_cond_broadcast(&m->changed);
    return st;
}

cz_status cz_srs_acquire(cz_srs_manager *m, const char *id, int want_circuit, cz_srs_handle *h,
                         uint64_t *load_ms, const atomic_int *abort_flag, cz_error *err) {
    pthread_mutex_lock(&m->lock);
    cz_srs_entry *e;
    cz_status st = find_entry(m, id, &e, err);
    int loaded = 0;
    if (st == CZ_OK) {
        e->refs++; /* before loading, so that nobody evicts it meanwhile */
        st = ensure_hot(m, e, want_circuit, &loaded, abort_flag, err);
        if (st != CZ_OK) {
            e->refs--;
        } else {
            e->last_used_ns = cz_now_ns();
            h->params = &e->params;
            h->vk = &e->vk;
            h->circuit = e->circuit;
            h->params_file = &e->file;
            *load_ms = loaded ? e->load_ms : 0;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

int cz_srs_try_acquire(cz_srs_manager *m, const char *id, int want_circuit, cz_srs_handle *h) {
    int got = 0;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->n; i++) {
        cz_srs_entry *e = &m->entries[i];
        if (strcmp(e->id, id) || e->tier != CZ_SRS_HOT || e->loading) continue;
        if (want_circuit && !e->circuit) continue;
        e->refs++;
        e->last_used_ns = cz_now_ns();
        h->params = &e->params;
        h->vk = &e->vk;
        h->circuit = e->circuit;
        h->params_file = &e->file;
        got = 1;
    }
    pthread_mutex_unlock(&m->lock);
    return got;
}

void cz_srs_release(cz_srs_manager *m, const char *id) {
    int unused = 0;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->entries[i].id, id) && m->entries[i].refs) {
            unused = --m->entries[i].refs == 0;
            m->entries[i].last_used_ns = cz_now_ns();
        }
    pthread_mutex_unlock(&m->lock);
    /* An unreferenced entry may be evicted: let a waiting reservation retry. */
    if (unused) cz_budget_wake(m->budget);
}

cz_status cz_srs_preload(cz_srs_manager *m, const char *id, int *already, uint64_t *load_ms,
                         cz_error *err) {
    pthread_mutex_lock(&m->lock);
    cz_srs_entry *e;
    cz_status st = find_entry(m, id, &e, err);
    int loaded = 0;
    if (st == CZ_OK) {
        e->refs++;
        st = ensure_hot(m, e, 1, &loaded, NULL, err);
        e->refs--;
        e->last_used_ns = cz_now_ns();
        *already = st == CZ_OK && !loaded;
        *load_ms = loaded ? e->load_ms : 0;
    }
    pthread_mutex_unlock(&m->lock);
    return st;
}

cz_status cz_srs_evict(cz_srs_manager *m, const char *id, int *was_loaded, uint64_t *freed,
                       cz_error *err) {
    pthread_mutex_lock(&m->lock);
    cz_srs_entry *e;
    cz_status st = find_entry(m, id, &e, err);
    *was_loaded = 0;
    *freed = 0;
    if (st == CZ_OK) {
        while (e->loading) pthread_cond_wait(&m->changed, &m->lock);
        if (e->refs) {
            st = cz_error_set(err, CZ_E_BUSY, "srs %s: in use by %u proof(s); not evicted", id,
                              e->refs);
        } else {
            *was_loaded = e->tier == CZ_SRS_HOT;
            *freed = entry_to_cold(m, e);
        }
    }
    pthread_mutex_unlock(&m->lock);
    if (*freed) cz_budget_release(m->budget, *freed);
    return st;
}

uint64_t cz_srs_evict_idle(void *mp, uint64_t need) {
    cz_srs_manager *m = mp;
    uint64_t freed = 0, now = cz_now_ns();
    char evicted[256] = ""; /* logged after the lock */
    pthread_mutex_lock(&m->lock);
    while (freed < need) {
        cz_srs_entry *lru = NULL;
        for (size_t i = 0; i < m->n; i++) {
            cz_srs_entry *e = &m->entries[i];
            /* an entry whose points are on the devices holds a few KiB here:
             * demoting it would free nothing worth having */
            if (e->tier != CZ_SRS_HOT || e->refs || e->loading || e->points_on_device) continue;
            if (now - e->last_used_ns < m->min_idle_ns) continue;
            if (!lru || e->last_used_ns < lru->last_used_ns) lru = e;
        }
        if (!lru) break;
        /* hot -> warm: the decoded points go, the mapping stays. */
        free_points(m, lru);
        cz_groth16_vk_free(&lru->vk);
        freed += lru->hot_bytes;
        lru->hot_bytes = 0;
        lru->tier = CZ_SRS_WARM;
        size_t used = strlen(evicted);
        snprintf(evicted + used, sizeof evicted - used, "%s%s", used ? ", " : "", lru->id);
    }
    pthread_mutex_unlock(&m->lock);
    if (freed) cz_budget_release(m->budget, freed);
    if (evicted[0]) cz_log(CZ_LOG_INFO, "srs: evicted %s to warm under memory pressure", evicted);
    return freed;
}

uint64_t cz_srs_pinned_bytes(cz_srs_manager *m, const char *except_id) {
    uint64_t sum = 0;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->n; i++)
        if (m->entries[i].refs && strcmp(m->entries[i].id, except_id))
            sum += m->entries[i].hot_bytes      ? m->entries[i].hot_bytes
                   : m->entries[i].expect_bytes ? m->entries[i].expect_bytes
                                                : m->entries[i].file.len;
    pthread_mutex_unlock(&m->lock);
    return sum;
}

size_t cz_srs_list(cz_srs_manager *m, cz_engine_srs_info *out, size_t cap) {
    pthread_mutex_lock(&m->lock);
    size_t n = 0;
    for (size_t i = 0; i < m->n && n < cap; i++, n++) {
        const cz_srs_entry *e = &m->entries[i];
        snprintf(out[n].circuit_id, sizeof out[n].circuit_id, "%s", e->id);
        out[n].tier = e->tier;
        out[n].size_bytes = e->tier == CZ_SRS_COLD ? 0 : e->file.len;
        out[n].ref_count = e->refs;
        out[n].host_bytes = e->tier == CZ_SRS_HOT ? e->hot_bytes : 0;
        out[n].points_on_device = e->tier == CZ_SRS_HOT && e->points_on_device;
        out[n].development = e->tier != CZ_SRS_COLD && e->development;
    }
    pthread_mutex_unlock(&m->lock);
    return n;
}
