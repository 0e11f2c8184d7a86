/* XXH64 (xxHash, 64-bit variant; xxh64.c), the checksum of cuzk's own files:
 * the recorded-circuit files (r1cs/, seed 0, in the file) and the digests
 * of .params files (groth16/digest.h). Little-endian hosts only. */
#ifndef CZ_UTIL_XXH64_H
#define CZ_UTIL_XXH64_H

#include <stddef.h>
#include <stdint.h>

/* Streaming form. */
typedef struct {
    uint64_t v[4];
    uint64_t total;
    uint8_t buf[32];
    size_t buf_len;
} cz_xxh64_state;
void cz_xxh64_init(cz_xxh64_state *s, uint64_t seed);
void cz_xxh64_update(cz_xxh64_state *s, const void *data, size_t len);
uint64_t cz_xxh64_digest(const cz_xxh64_state *s);
uint64_t cz_xxh64(const void *data, size_t len, uint64_t seed);

#endif
