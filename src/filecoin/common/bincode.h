/* A reader and a writer for bincode 1.x's default encoding, as
 * rust-fil-proofs' bincode::serialize / deserialize use it: integers
 * little-endian and fixed width (u64, usize and lengths 8 bytes, enum variant
 * tags u32), Vec<T> = u64 length then the elements, [u8; 32] = 32 raw bytes.
 *
 * The reader is for untrusted bytes: every read is bounds-checked, and the
 * first failure is recorded with the byte offset and the field path the
 * caller names ("vanilla_proof.sectors[0].comm_c at byte 24928: needs 32
 * bytes, 8 left"); later reads then fail at once, so a decoder may check
 * the status once per structure. */
#ifndef CZ_FILECOIN_BINCODE_H
#define CZ_FILECOIN_BINCODE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"

typedef struct {
    const uint8_t *data;
    size_t len, pos;
    cz_status status; /* first failure, sticky */
    cz_error *err;
} cz_bincode_reader;

void cz_bincode_reader_init(cz_bincode_reader *r, const uint8_t *data, size_t len, cz_error *err);
/* Records a failure at the current offset: "<field> at byte <pos>: <why>". */
cz_status cz_bincode_fail(cz_bincode_reader *r, size_t pos, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Each returns 1 on success, 0 after recording a failure naming field. */
int cz_bincode_u32(cz_bincode_reader *r, uint32_t *out, const char *field);
int cz_bincode_u64(cz_bincode_reader *r, uint64_t *out, const char *field);
int cz_bincode_bytes(cz_bincode_reader *r, uint8_t *out, size_t n, const char *field);
/* A Vec length that must equal `want` (an exact shape), or, with want =
 * UINT64_MAX, one whose elements of at least min_elem bytes each fit in what
 * is left. */
int cz_bincode_len(cz_bincode_reader *r, uint64_t *out, uint64_t want, size_t min_elem,
                   const char *field);
/* A 32-byte little-endian domain that must be a canonical Fr. */
int cz_bincode_fr(cz_bincode_reader *r, cz_fr *out, const char *field);
/* Fails when bytes are left after the value. */
int cz_bincode_end(cz_bincode_reader *r, const char *what);

/* Writer into a caller-sized buffer (the encoder knows the exact size):
 * writes past cap are dropped and counted, so pos > cap afterwards means
 * the size was wrong. */
typedef struct {
    uint8_t *data;
    size_t cap, pos;
} cz_bincode_writer;
void cz_bincode_put_u32(cz_bincode_writer *w, uint32_t v);
void cz_bincode_put_u64(cz_bincode_writer *w, uint64_t v);
void cz_bincode_put_bytes(cz_bincode_writer *w, const uint8_t *b, size_t n);
void cz_bincode_put_fr(cz_bincode_writer *w, const cz_fr *v);

#endif
