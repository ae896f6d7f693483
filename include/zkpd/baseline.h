/*
 * baseline: evaluating a = A.w, b = B.w, c = C.w the way a classic
 * synthesizer (bellman's ProvingAssignment) does it, for benches only: it
 * shows what the pre-compiled circuit saves. Nothing in the prover calls it.
 *
 * Per proof the circuit is synthesized again: the generator runs and fills
 * the witness, and for every constraint each of the three linear
 * combinations becomes a heap object, a growable array of terms
 * (variable kind and index, 32-byte coefficient: 48 bytes a term, like
 * bellman's Vec<(Variable, Scalar)>) built one term at a time, then is
 * evaluated (a coefficient equal to 1 costs an addition, anything else a
 * multiplication, as in bellman's eval), recorded in the density trackers,
 * and freed. The results equal zkp_pce_eval's bit for bit on the .pce built
 * from the same generator run (field arithmetic is exact and every value
 * is fully reduced).
 *
 * Threads: single-threaded, like one circuit's synthesis; no shared state.
 */
#ifndef ZKPD_BASELINE_H
#define ZKPD_BASELINE_H

#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/ff.h"

typedef struct {
	uint64_t lc_allocs; /* heap allocations (and reallocations) of terms */
	uint64_t terms;     /* terms built and evaluated */
	uint64_t muls;      /* terms whose coefficient was not 1 */
	uint64_t a_aux_density, b_input_density, b_aux_density; /* popcounts */
} zkp_baseline_stats;

/* Synthesizes the PoRep-shaped circuit (include/zkpd/synth.h) of
 * n_constraints rows from seed, filling w (n_inputs + n_aux values, sizes
 * from zkp_synth_porep_dims) and a, b, c (n_constraints values each).
 * st may be NULL. Errors: those of zkp_synth_porep, ZKP_ERR_NOMEM. */
int zkp_baseline_porep(uint64_t n_constraints, uint64_t seed, zkp_fr *w, zkp_fr *a, zkp_fr *b,
		       zkp_fr *c, zkp_baseline_stats *st, zkp_error *err);

#endif
