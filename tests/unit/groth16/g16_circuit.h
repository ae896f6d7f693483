/*
 * Circuits for the prover tests: a PoRep-shaped synthetic circuit
 * (synth.h) written to a .pce in the test's temporary directory
 * (g16_test.h) and loaded back, with its satisfying witness.
 * Include after cmocka.h.
 */
#ifndef ZKPD_G16_CIRCUIT_H
#define ZKPD_G16_CIRCUIT_H

#include <inttypes.h>
#include <stdlib.h>

#include "g16_test.h"
#include "zkpd/pce.h"
#include "zkpd/synth.h"

struct g16t_circuit {
	zkp_pce *pce;
	zkp_fr *w;
	size_t n_w;
};

/* n_constraints rows from seed, into file name of the temporary directory;
 * fails the test on any error. */
static inline void g16t_synth_circuit(struct g16t_circuit *c, uint64_t n_constraints,
				      uint64_t seed, const char *name)
{
	char path[128];
	zkp_error err = { 0 };
	zkp_synth_info info;
	zkp_pce_builder *b;
	g16t_tmp_path(path, sizeof(path), name);
	assert_int_equal(zkp_synth_porep_dims(n_constraints, &info, &err), 0);
	c->n_w = (size_t)(info.n_inputs + info.n_aux);
	c->w = malloc(c->n_w * sizeof(zkp_fr));
	assert_non_null(c->w);
	assert_int_equal(zkp_pce_builder_new(&b, info.n_inputs, info.n_aux), 0);
	int rc = zkp_synth_porep(n_constraints, seed, zkp_synth_builder_sink, b, c->w, NULL, &err);
	if (!rc)
		rc = zkp_pce_builder_write(b, path, &err);
	zkp_pce_builder_free(b);
	if (!rc)
		rc = zkp_pce_load(&c->pce, path, 0, &err);
	if (rc)
		fail_msg("synth %" PRIu64 ": %s", n_constraints, zkp_error_text(&err, rc));
}

static inline void g16t_circuit_free(struct g16t_circuit *c)
{
	zkp_pce_free(c->pce);
	free(c->w);
}

#endif
