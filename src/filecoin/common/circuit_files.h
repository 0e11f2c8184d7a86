/* The files every proof kind keeps beside its parameters: paths under a
 * parameter directory from Filecoin's file stem, and the pre-compiled
 * circuit (r1cs/circuit.h) loaded, or built and written once. */
#ifndef CZ_FILECOIN_CIRCUIT_FILES_H
#define CZ_FILECOIN_CIRCUIT_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "cuzk/status.h"
#include "r1cs/circuit.h"
#include "r1cs/cs.h"

/* "<dir>/<stem><ext>" (CZ_E_INVALID_ARG when it does not fit cap). */
cz_status cz_fc_stem_path(char *out, size_t cap, const char *dir, const char *stem, const char *ext,
                          cz_error *err);

/* The pre-compiled circuit at path, mapped with every invariant checked;
 * a missing file is built with the compile back-end by synthesize(cs, ctx)
 * (the circuit without a witness) and written first, a damaged or stale one
 * (checksum, version, sizes, invariants) rebuilt; either is said on
 * progress (may be NULL) with the reason, naming what (e.g. "once per
 * sector size"). *built = 1 when this call built the file. */
typedef cz_status (*cz_fc_blank_synth_fn)(cz_cs *cs, const void *ctx, cz_error *err);
cz_status cz_fc_circuit_load(cz_circuit **out, int *built, const char *path,
                             cz_fc_blank_synth_fn synthesize, const void *ctx, const char *what,
                             FILE *progress, cz_error *err);

#endif
