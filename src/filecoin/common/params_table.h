/* Filecoin's published Groth16 parameters and what a parameter directory
 * holds.
 *
 * The table (params_table_data.c, generated from rust-fil-proofs'
 * parameters.json by scripts/gen_params_table.py) names every v28 .params
 * and .vk file with its IPFS CID, its digest and its sector size. The
 * digest is what Filecoin's fetch tools check: the first 16 bytes of
 * BLAKE2b-512 of the whole file, as 32 lower-case hex characters.
 *
 * cuzk's development keys (`cuzk setup`, NOT a trusted setup) carry the
 * official names, so each is marked by a record beside it, `FILE.dev`
 * (cz_fc_param_mark_development): a text file saying what it is, with the
 * key's digest. A file is classified as
 *   OFFICIAL      its name is in the table and its digest is the table's;
 *   DEVELOPMENT   not OFFICIAL, and FILE.dev names the file's digest;
 *   WRONG_DIGEST  its name is in the table, its digest is neither the
 *                 table's nor a development record's (a partial or corrupt
 *                 download, or a development key without its record);
 *   UNKNOWN       any other file (its name is not in the table, and no
 *                 development record matches it).
 *
 * Hashing 47 GB takes about a minute, so a computed digest is remembered in
 * `FILE.blake2b` with the file's size and modification time (nanoseconds):
 * a record naming the file's current size and time is believed without
 * reading the file; a file changed since (another size or time) is hashed
 * again. The record guards against partial downloads and damage, not
 * against someone who can write the directory. Writing either record is
 * best effort where the directory is not writable. */
#ifndef CZ_FILECOIN_PARAMS_TABLE_H
#define CZ_FILECOIN_PARAMS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#define CZ_FC_PARAM_DIGEST_HEX 33 /* 32 hex characters and the NUL */

/* Where Filecoin's tools keep the parameters when FIL_PROOFS_PARAMETER_CACHE
 * is unset (the callers that read the environment apply that first). */
#define CZ_FC_PARAM_DIR_DEFAULT "/var/tmp/filecoin-proof-parameters"

typedef struct {
    const char *name;   /* file name, no directory */
    const char *cid;    /* IPFS CIDv0 */
    const char *digest; /* 32 lower-case hex characters */
    uint64_t sector_size;
} cz_fc_param_entry;

/* Sorted by name (strcmp). */
extern const cz_fc_param_entry cz_fc_param_table[];
extern const size_t cz_fc_param_table_len;

/* The entry of a file name (no directory) in a table sorted by name;
 * NULL when absent. table NULL: the built-in one. */
const cz_fc_param_entry *cz_fc_param_lookup(const char *name, const cz_fc_param_entry *table,
                                            size_t n);

typedef enum {
    CZ_FC_PARAM_OFFICIAL = 0,
    CZ_FC_PARAM_WRONG_DIGEST = 1,
    CZ_FC_PARAM_DEVELOPMENT = 2,
    CZ_FC_PARAM_UNKNOWN = 3,
} cz_fc_param_class;

/* "official, digest ok", "official name, digest WRONG", ... */
const char *cz_fc_param_class_text(cz_fc_param_class c);

/* Progress of a hash: bytes done of total. */
typedef void (*cz_fc_param_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* The digest of bytes given in order: for a file hashed as it is written
 * (cz_fc_param_hasher_update fits groth16/params_writer.h's tap). */
typedef struct cz_fc_param_hasher cz_fc_param_hasher;
cz_status cz_fc_param_hasher_new(cz_fc_param_hasher **out, cz_error *err);
/* hasher: a cz_fc_param_hasher; a failure is reported by finish. */
void cz_fc_param_hasher_update(void *hasher, const void *bytes, size_t n);
/* The digest of every byte given; frees h (NULL: CZ_E_INVALID_ARG). */
cz_status cz_fc_param_hasher_finish(char hex[CZ_FC_PARAM_DIGEST_HEX], cz_fc_param_hasher *h,
                                    cz_error *err);

/* The digest of a file (first 16 bytes of BLAKE2b-512, hex), read in
 * 16 MiB blocks; progress (may be NULL) after each block. */
cz_status cz_fc_param_digest_file(char hex[CZ_FC_PARAM_DIGEST_HEX], const char *path,
                                  cz_fc_param_progress_fn progress, void *ctx, cz_error *err);

typedef struct {
    cz_fc_param_class cls;
    const cz_fc_param_entry *entry;      /* the table's entry of the name, or NULL */
    char digest[CZ_FC_PARAM_DIGEST_HEX]; /* the file's ("" when not needed: UNKNOWN) */
    int hashed;                          /* 1: read now; 0: from the FILE.blake2b record */
    uint64_t size;
} cz_fc_param_verdict;

/* Classifies the file at path (see the top of this file) against a table
 * sorted by name (NULL: the built-in one). A file whose name is not in
 * the table and that has no FILE.dev is not read. A computed digest is
 * remembered in FILE.blake2b (best effort). Fails only when the file
 * cannot be read (or a record is malformed: named with its line). */
cz_status cz_fc_param_classify(cz_fc_param_verdict *v, const char *path,
                               const cz_fc_param_entry *table, size_t n,
                               cz_fc_param_progress_fn progress, void *ctx, cz_error *err);

/* Marks a development key just made: hashes it (progress may be NULL),
 * writes FILE.dev with that digest and FILE.blake2b for its current size
 * and time (so the daemon does not hash it again); digest (may be NULL)
 * receives it. Fails when FILE.dev cannot be written: an unmarked
 * development key would be refused under an official name. */
cz_status cz_fc_param_mark_development(char *digest, const char *path,
                                       cz_fc_param_progress_fn progress, void *ctx, cz_error *err);
/* The same records for a key whose digest is already known (the writer
 * hashed it as it wrote it, groth16/params_writer.h): no read of the file.
 * CZ_E_INVALID_ARG when digest is not 32 lower-case hex digits. */
cz_status cz_fc_param_mark_development_hashed(const char *path, const char *digest, cz_error *err);

/* Development records in dir (FILE.dev whose FILE exists), without reading
 * any key: *n_dev, and the first of them in first (may be NULL). For a
 * warning at start; CZ_E_IO when dir cannot be read. */
cz_status cz_fc_param_dir_development(size_t *n_dev, char *first, size_t first_size,
                                      const char *dir, cz_error *err);

/* Whether a name is one of cuzk's own files beside the parameters (records
 * .dev / .blake2b / .xxh64, pre-compiled circuits .czc, temporaries): the
 * parameter check leaves them out of its list. */
int cz_fc_param_is_side_file(const char *name);

#endif
