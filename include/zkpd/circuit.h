/*
 * circuit: compiling a gadget-built circuit. A circuit is a function that
 * synthesizes it on a zkp_cs (cs.h); the same function, run in the three
 * modes, gives its dimensions, its structural fingerprint, its .pce file
 * and, for a job, its witness.
 *
 *   zkp_circuit_shape   one SHAPE pass: inputs, aux, rows
 *   zkp_circuit_count   + one ROWS pass into a counting builder: non-zeros
 *                       per matrix and density popcounts; writes nothing
 *   zkp_circuit_write   + a second ROWS pass streamed into the .pce
 *                       (pce.h's two-pass builder): memory does not grow
 *                       with the number of non-zeros
 *   zkp_circuit_witness one WITNESS pass into w
 *
 * The function must be deterministic: every pass must allocate and emit
 * the same sequence (a second ROWS pass that differs is refused with
 * ZKP_ERR_MISMATCH). Errors: whatever the circuit records in its cs
 * (detail copied into err), the builder's, ZKP_ERR_NOMEM.
 */
#ifndef ZKPD_CIRCUIT_H
#define ZKPD_CIRCUIT_H

#include <stdint.h>

#include "zkpd/cs.h"
#include "zkpd/error.h"
#include "zkpd/pce.h"

typedef void (*zkp_circuit_fn)(zkp_cs *cs, void *ctx);

typedef struct {
	uint64_t inputs, aux, rows; /* inputs include ONE */
} zkp_circuit_dims;

int zkp_circuit_shape(zkp_circuit_fn fn, void *ctx, zkp_circuit_dims *ret, zkp_error *err);
/* ret's rows and nnz exclude the prover's input rows (pce.h). */
int zkp_circuit_count(zkp_circuit_fn fn, void *ctx, zkp_pce_builder_stats *ret, zkp_error *err);
/* Writes path atomically; label (32 bytes, or NULL for zeros) is stored in
 * the header for zkp inspect (pce.h). stats may be NULL. */
int zkp_circuit_write(zkp_circuit_fn fn, void *ctx, const char *path, const uint8_t *label,
		      zkp_pce_builder_stats *stats, zkp_error *err);
/* w: dims->inputs + dims->aux entries (from zkp_circuit_shape). */
int zkp_circuit_witness(zkp_circuit_fn fn, void *ctx, const zkp_circuit_dims *dims, zkp_fr *w,
			zkp_error *err);

#endif
