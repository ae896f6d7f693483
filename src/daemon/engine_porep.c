/*
 * engine PoRep: a sector's C1 output as a split job (engine_split.c,
 * engine.h "PoRep and SnapDeals jobs"). prepare parses the C1, checks its
 * proof version and sector size against the circuit, and derives every
 * partition's public inputs from its public data, comparing the
 * challenges, parents and challenged labels with the C1's (porep_c2.h);
 * a partition's witness is computed from the shared, immutable C1 with
 * its challenges over the pool.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "engine_int.h"
#include "zkpd/porep.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_c2.h"
#include "zkpd/porep_graph.h"

struct porep_input {
	zkp_porep_c1 *c1;
	const zkp_porep_proof *p;
};

static void porep_free(void *input)
{
	struct porep_input *in = input;
	zkp_porep_c1_free(in->c1);
	free(in);
}

static int porep_prepare(struct split_job *sp, const struct job *j, uint64_t n_inputs,
			 zkp_error *err)
{
	const struct circuit *c = j->circ;
	zkp_porep_graph g = { 0 };
	struct porep_input *in = calloc(1, sizeof(*in));
	int rc;
	if (!in)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a PoRep job");
	sp->input = in;
	rc = j->path ? zkp_porep_c1_load_fd(&in->c1, j->fd, j->path, err) :
		       zkp_porep_c1_parse(&in->c1, j->data, j->len, err);
	if (rc)
		return rc;
	if ((rc = zkp_porep_c1_proof(&in->p, in->c1, err)))
		return rc;
	snprintf(sp->name, sizeof(sp->name), "%s C1", in->p->name);
	if (in->c1->sector_bytes != c->cfg.porep_sector_size)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "the C1 is of a %" PRIu64 "-byte sector (%s); circuit %s proves "
				     "%" PRIu64 "-byte sectors",
				     in->c1->sector_bytes, in->c1->registered_proof, c->cfg.name,
				     c->cfg.porep_sector_size);
	sp->n = in->c1->partitions;
	sp->n_pub = (size_t)zkp_porep_inputs(&in->c1->shape) - 1;
	if (n_inputs != sp->n_pub + 1)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "circuit %s has %" PRIu64 " inputs; a %s partition has %zu",
				     c->cfg.name, n_inputs, in->p->name, sp->n_pub + 1);
	sp->pub = malloc((size_t)sp->n * sp->n_pub * sizeof(zkp_fr));
	if (!sp->pub)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %u partitions", sp->n);
	if ((rc = zkp_porep_graph_init_proof(&g, in->p, err)))
		return rc;
	for (unsigned k = 0; k < sp->n && !rc; k++)
		rc = zkp_porep_c1_public_inputs(sp->pub + (size_t)k * sp->n_pub, in->c1, k, in->p,
						&g, err);
	zkp_porep_graph_release(&g);
	return rc;
}

static int porep_witness(const struct split_job *sp, unsigned k, zkp_fr *w, uint64_t inputs,
			 uint64_t aux, zkp_pool *pool, zkp_error *err)
{
	const struct porep_input *in = sp->input;
	return zkp_porep_c1_witness_checked(w, inputs, aux, in->c1, k,
					    sp->pub + (size_t)k * sp->n_pub, pool, err);
}

const struct split_ops porep_split_ops = {
	.what = "PoRep sector",
	.prepare = porep_prepare,
	.witness = porep_witness,
	.free_input = porep_free,
};
