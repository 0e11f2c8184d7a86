/* The SRS manager: Groth16 parameters per circuit id, in three tiers.
 *
 *   cold  on disk only;
 *   warm  the .params file is mapped (its pages in the page cache), nothing
 *         decoded; not counted in the budget (the kernel may drop the pages);
 *   hot   ready for proving, in one of two forms:
 *         - host points: decoded into memory; counted in the budget (the
 *           file size, which equals the decoded size: 96 bytes per G1 and
 *           192 per G2 point both ways);
 *         - points on the devices: when a device loader is set (the engine
 *           sets one when every back-end context can hold keys resident,
 *           i.e. every one is a CUDA context), each context loads the key
 *           straight from the mapping onto its device (hold, from the file), and
 *           the host keeps what a warm entry keeps plus the vk and the
 *           counts (the parameters' point arrays are NULL); counted in the
 *           budget as those few KiB. When a context declines (its device is
 *           too small: the points would stream from host memory), the entry
 *           decodes the points on the host instead, and keeps doing so.
 *
 * A job holds a reference on its circuit's entry from prepare to the end;
 * a referenced entry is never evicted. Under budget pressure the evictor
 * demotes unreferenced hot entries idle for at least min_idle to warm,
 * least recently used first. EvictSRS drops an unreferenced entry to cold. */
#ifndef CZ_ENGINE_SRS_H
#define CZ_ENGINE_SRS_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "cuzk/engine.h"
#include "engine/budget.h"
#include "engine/job.h"
#include "groth16/groth16.h"

#define CZ_SRS_MAX_ENTRIES 16

typedef struct {
    char id[32];
    uint64_t sector_size;
    int post_kind; /* -1: PoRep or SnapDeals; else the cz_post_kind of a PoSt circuit */
    int snap;      /* the SnapDeals (EmptySectorUpdate) circuit of the size */
    char params_path[PATH_MAX], vk_path[PATH_MAX];
    cz_srs_tier tier;
    int loading;                 /* a thread is loading it; others wait on the manager's cond */
    cz_groth16_params_file file; /* warm and hot: the mapped .params file (data NULL when cold) */
    /* hot: decoded, or only the vk and the counts when points_on_device */
    cz_groth16_params params;
    int points_on_device;  /* hot with the points on the back-ends' devices only */
    int needs_host_points; /* a back-end declined the file load: decode on the host */
    int host_locked;       /* hot: params' point vectors page-locked (m->lock_host) */
    unsigned dropped;      /* hot: vectors (1 << cz_groth16_vector) whose host copy was freed
                              (cz_srs_drop_host_vectors) */
    int circuit_locked;    /* its circuit's file mapping page-locked (m->lock_host) */
    cz_groth16_vk vk;      /* hot: from the .vk file, used to self-verify */
    char circuit_path[PATH_MAX];
    cz_circuit *circuit;   /* hot, when a job asked for it: the pre-compiled circuit (mapped) */
    uint64_t hot_bytes;    /* budget held while hot */
    uint64_t expect_bytes; /* what cz_srs_hot_bytes said it will hold */
    uint32_t refs;
    uint64_t last_used_ns;
    uint64_t load_ms; /* of the last load */
    /* Checked against Filecoin's table at each load from cold (digests
     * remembered beside the files, filecoin/common/params_table.h): 1 when a file
     * is a development key (or not in the table), so its proofs will not
     * verify on chain; an official name with a wrong digest is refused. */
    int development;
} cz_srs_entry;

/* Makes the key resident from the mapped file on every back-end (and the
 * circuit, when not NULL): CZ_OK, CZ_E_UNSUPPORTED when a back-end cannot
 * hold it without host points, or the failure (the file's, a device's). */
typedef cz_status (*cz_srs_device_load_fn)(void *ctx, const char *id,
                                           const cz_groth16_params_file *file,
                                           const cz_circuit *circuit, cz_error *err);

/* Page-locks bytes of host memory at p for the devices' copy engines
 * (failing costs only speed), and undoes it; p as locked. */
typedef cz_status (*cz_srs_lock_host_fn)(void *p, size_t bytes, cz_error *err);
typedef void (*cz_srs_unlock_host_fn)(void *p);

typedef struct cz_srs_manager {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    cz_srs_entry entries[CZ_SRS_MAX_ENTRIES];
    size_t n;
    cz_budget *budget;
    char dir[PATH_MAX];
    uint64_t min_idle_ns;
    cz_srs_device_load_fn device_load; /* NULL: hot means host points */
    void *device_ctx;
    cz_srs_lock_host_fn lock_host; /* NULL: host points stay pageable */
    cz_srs_unlock_host_fn unlock_host;
} cz_srs_manager;

void cz_srs_init(cz_srs_manager *m, cz_budget *budget, const char *dir, uint64_t min_idle_ms);
/* Sets the device loader (before any acquire). */
void cz_srs_set_device_loader(cz_srs_manager *m, cz_srs_device_load_fn fn, void *ctx);
/* Sets how host points that a device declined to load from the file (it
 * streams them from host memory) are page-locked while hot, before any
 * acquire: the owner of the points locks them after decoding and unlocks
 * them before freeing, so the copy engines read them directly. */
void cz_srs_set_host_locking(cz_srs_manager *m, cz_srs_lock_host_fn lock,
                             cz_srs_unlock_host_fn unlock);
void cz_srs_destroy(cz_srs_manager *m);

/* The host copies of a hot entry's vectors in mask, freed (unlocked first):
 * the caller, the only back-end, keeps those vectors on its device and
 * streams the others. H stays (a CUDA context identifies a key by its
 * first point); an entry without host points, or one loading, is left as
 * it is. The caller holds a reference. The budget keeps the entry's bytes:
 * bringing them back (below) must not wait for memory that units hold,
 * while its caller holds the device. Returns the bytes freed. */
uint64_t cz_srs_drop_host_vectors(cz_srs_manager *m, const char *id, unsigned mask);
/* The dropped vectors of a hot entry decoded again from its mapped file
 * (and locked, as the others are), before a back-end that needs every host
 * point (a new memory plan for the key) reads them; the caller holds a
 * reference. CZ_OK at once when nothing was dropped. */
cz_status cz_srs_restore_host_vectors(cz_srs_manager *m, const char *id, cz_error *err);

/* The circuit id of a PoRep sector size ("porep-2k"); NULL when none. */
const char *cz_srs_porep_circuit_id(uint64_t sector_size);
/* The circuit id of a PoSt kind (cz_post_kind) and sector size
 * ("window-post-32g"); NULL when none. */
const char *cz_srs_post_circuit_id(int kind, uint64_t sector_size);
/* The SnapDeals circuit id of a sector size ("snap-32g"); NULL when none. */
const char *cz_srs_snap_circuit_id(uint64_t sector_size);

/* The files of a circuit id under dir: its sector size, kind and the paths
 * of its .params, .vk and pre-compiled circuit; an unknown id is
 * CZ_E_INVALID_ARG naming the known ones. The paths are where a load looks;
 * nothing is opened (the daemon's configuration check uses it too). */
typedef struct {
    uint64_t sector_size;
    int post_kind; /* -1: PoRep or SnapDeals */
    int snap;
    char params[PATH_MAX], vk[PATH_MAX], circuit[PATH_MAX];
} cz_srs_files;
cz_status cz_srs_circuit_files(cz_srs_files *out, const char *dir, const char *id, cz_error *err);

/* Bytes of host memory the entry needs when hot: the .params file size, or
 * a few KiB (the vk twice) when its points go to the devices. */
cz_status cz_srs_hot_bytes(cz_srs_manager *m, const char *id, uint64_t *bytes, cz_error *err);

/* Takes a reference and makes the entry hot, with its pre-compiled circuit
 * when want_circuit (built next to the parameters when its file is absent,
 * checked against the parameters' sizes); *load_ms = time this call spent
 * loading (0 when it was hot). */
cz_status cz_srs_acquire(cz_srs_manager *m, const char *id, int want_circuit, cz_srs_handle *h,
                         uint64_t *load_ms, const atomic_int *abort_flag, cz_error *err);
/* Takes a reference only when the entry is hot already (and has its
 * circuit, when want_circuit; never waits); returns 1 when it did. */
int cz_srs_try_acquire(cz_srs_manager *m, const char *id, int want_circuit, cz_srs_handle *h);
void cz_srs_release(cz_srs_manager *m, const char *id);

/* cz_srs_acquire with the circuit, without keeping a reference. */
cz_status cz_srs_preload(cz_srs_manager *m, const char *id, int *already, uint64_t *load_ms,
                         cz_error *err);
cz_status cz_srs_evict(cz_srs_manager *m, const char *id, int *was_loaded, uint64_t *freed,
                       cz_error *err);
/* The budget's evictor (cz_budget_evict_fn). */
uint64_t cz_srs_evict_idle(void *m, uint64_t need);

/* Bytes of the referenced entries (which cannot be evicted), except_id left
 * out. A referenced entry still loading counts what cz_srs_hot_bytes said. */
uint64_t cz_srs_pinned_bytes(cz_srs_manager *m, const char *except_id);

size_t cz_srs_list(cz_srs_manager *m, cz_engine_srs_info *out, size_t cap);

#endif
