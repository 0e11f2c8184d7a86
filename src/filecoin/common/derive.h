/* Vanilla-side Filecoin derivations that need only hashing: SHA-256
 * helpers, prover_id, replica_id and the comm_d of an empty (all-zero) sector.
 * Sources: rust-fil-proofs storage-proofs-porep stacked/vanilla (params.rs,
 * challenges.rs) and filecoin-proofs tests/pieces.rs. */
#ifndef CZ_FILECOIN_DERIVE_H
#define CZ_FILECOIN_DERIVE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

/* SHA-256 of data (OpenSSL libcrypto underneath). */
void cz_fc_sha256(uint8_t out[32], const void *data, size_t len);

/* The lowercase hex SHA-256 of a NUL-terminated string: the <hex> of a
 * Groth16 parameter file name (parameter_cache.rs::cache_identifier). */
void cz_fc_sha256_hex(char out[65], const char *text);

/* Clears the two top bits of byte 31 so that 32 bytes read little-endian
 * are below 2^254 < r: Filecoin's "fr32 safe" truncation of a digest. */
static inline void cz_fc_fr32_mask(uint8_t bytes[32]) {
    bytes[31] &= 0x3f;
}

/* Tree-D node: fr32_mask(SHA256(left || right)). */
void cz_fc_sha256_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);

/* prover_id of an f0 miner actor: unsigned LEB128 of the id at the start of
 * 32 zero bytes. */
void cz_fc_prover_id(uint8_t out[32], uint64_t miner_id);

/* replica_id = fr32_mask(SHA256(prover_id || sector_id u64 BE || ticket ||
 * comm_d || porep_id)). */
void cz_fc_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                      const uint8_t ticket[32], const uint8_t comm_d[32],
                      const uint8_t porep_id[32]);

/* comm_d of a sector of all-zero data: the root of the binary tree-D over
 * sector_size / 32 zero leaves. sector_size must be a power of two with at
 * least two leaves (>= 64 bytes) and at most 2^40 bytes; costs log2(leaves)
 * hashes because every level of an all-zero tree is one repeated node. */
cz_status cz_fc_empty_comm_d(uint8_t out[32], uint64_t sector_size, cz_error *err);

/* Interactive PoRep challenges of one partition: for
 * i < count, j = count * partition + i (as u32),
 * h = SHA256(replica_id || seed || j u32 LE) and
 * out[i] = (h read as a little-endian integer mod (nodes - 1)) + 1, so node 0
 * is never challenged. count is the challenges per partition. */
cz_status cz_fc_interactive_challenges(uint64_t *out, size_t count, const uint8_t replica_id[32],
                                       const uint8_t seed[32], uint64_t nodes, uint32_t partition,
                                       cz_error *err);

#endif
