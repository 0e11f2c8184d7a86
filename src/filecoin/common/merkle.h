/* Merkle inclusion proofs as rust-fil-proofs serializes them (storage-
 * proofs-core merkle/proof.rs, bincode): what PoSt's sector proofs and
 * SnapDeals' partition proofs are made of.
 *
 * A proof is read for a known tree shape (gadgets/por.h): the MerkleProof
 * variant must be Single / Sub / Top as the shape has no sub level / a sub
 * level / a top level, each path exactly its levels, every index below its
 * level's arity, every domain a canonical Fr. Failures are recorded in the
 * bincode reader with the field path and byte offset
 * ("...inclusion_proofs[3].base_proof[0].index at byte 300: 8 is not below
 * the arity 8"). */
#ifndef CZ_FILECOIN_MERKLE_H
#define CZ_FILECOIN_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ff/fr.h"
#include "filecoin/common/bincode.h"
#include "gadgets/por.h"

/* One inclusion proof in the circuit's terms. */
typedef struct {
    cz_fr leaf, root;
    uint64_t index;  /* the leaf index: level indices as mixed-radix digits, leaf first */
    cz_fr *siblings; /* cz_por_siblings(shape) values, level by level (path order) */
    size_t offset;   /* byte offset of the MerkleProof in its encoding */
} cz_fc_merkle_proof;

/* Decodes one MerkleProof of shape s into m (m->siblings: room for
 * cz_por_siblings(s) values; offset set). 1 on success; 0 after a failure
 * recorded in r naming `where`. */
int cz_fc_merkle_decode(cz_bincode_reader *r, cz_fc_merkle_proof *m, const cz_por_shape *s,
                        const char *where);
/* The inverse of cz_fc_merkle_decode; w has room for cz_fc_merkle_size(s). */
void cz_fc_merkle_encode(cz_bincode_writer *w, const cz_fc_merkle_proof *m, const cz_por_shape *s);
/* Bytes of one encoded MerkleProof of shape s. */
size_t cz_fc_merkle_size(const cz_por_shape *s);
/* The root m's path hashes to (Poseidon or SHA-256 as s->hasher says, level
 * by level); comparing it with m->root is the caller's. */
cz_status cz_fc_merkle_root(cz_fr *out, const cz_por_shape *s, const cz_fc_merkle_proof *m);

#endif
