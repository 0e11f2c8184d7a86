/* Synthetic PoRep challenges (rust-fil-proofs
 * storage-proofs-porep/src/stacked/vanilla/challenges.rs, module synthetic).
 *
 * Synthetic challenge i = (32 bytes of the ChaCha20 keystream at byte offset
 * 32 * i, read little-endian) mod (nodes - 1) + 1, with key
 * BLAKE2b-256(key = "filecoin.io|PoRep|1|Synthetic|1|Generation",
 * replica_id || comm_r) and nonce "synth-porep\0". PoRep challenge t of
 * partition k is synthetic challenge number
 * (u32 LE at byte offset 4 * (k * count + t) of the ChaCha20 keystream keyed by
 * BLAKE2b-256(key = "...|Selection", replica_id || seed)) mod num_synth. */
#ifndef CZ_FILECOIN_SYNTH_H
#define CZ_FILECOIN_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#define CZ_FC_SYNTH_DEFAULT_COUNT (UINT64_C(1) << 18)

typedef struct {
    uint64_t nodes;
    uint64_t num_synth;  /* number of synthetic challenges */
    uint32_t gen_key[8]; /* ChaCha20 key of the generation stream */
    uint8_t replica_id[32];
} cz_fc_synth;

/* num_synth = 0 selects the default min(nodes, 2^18). Requires
 * 2 < nodes <= 2^32 and num_synth < 2^32. */
cz_status cz_fc_synth_init(cz_fc_synth *s, uint64_t nodes, const uint8_t replica_id[32],
                           const uint8_t comm_r[32], uint64_t num_synth, cz_error *err);

/* Synthetic challenge i (< num_synth; larger i is a caller bug and returns 0,
 * which is never a valid challenge). */
uint64_t cz_fc_synth_challenge(const cz_fc_synth *s, uint64_t i);

/* The count PoRep challenges of partition `partition`, selected by seed;
 * indexes (optional, may be NULL) receives the selected synthetic indexes. */
cz_status cz_fc_synth_porep_challenges(uint64_t *out, uint64_t *indexes, size_t count,
                                       const cz_fc_synth *s, const uint8_t seed[32],
                                       uint32_t partition, cz_error *err);

#endif
