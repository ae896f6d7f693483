/*
 * engine SnapDeals: a sector update as a split job (engine_split.c,
 * engine.h "PoRep and SnapDeals jobs"). Its input is the update bundle
 * (snap_c2.h: the three commitments and one PartitionProof per
 * partition); prepare decodes it for the circuit's sector size and checks
 * every partition's vanilla proof natively against the commitments
 * (challenges derived from comm_r_new, the three Merkle paths, the apex
 * tree, the encoding) before any partition is queued; the public inputs
 * come from the commitments alone.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "engine_int.h"
#include "zkpd/snap.h"
#include "zkpd/snap_c2.h"

static void snap_free(void *input)
{
	zkp_snap_update *u = input;
	zkp_snap_update_release(u);
	free(u);
}

static int snap_prepare(struct split_job *sp, const struct job *j, uint64_t n_inputs,
			zkp_error *err)
{
	const struct circuit *c = j->circ;
	zkp_snap_shape s;
	int rc = zkp_snap_shape_for_size(&s, c->cfg.snap_sector_size, err);
	if (rc)
		return rc;
	if (n_inputs != ZKP_SNAP_INPUTS)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "circuit %s has %" PRIu64 " inputs; a SnapDeals partition has %d",
				     c->cfg.name, n_inputs, ZKP_SNAP_INPUTS);
	zkp_snap_update *u = calloc(1, sizeof(*u));
	if (!u)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a SnapDeals job");
	if ((rc = zkp_snap_update_from_bundle(u, &s, j->data, j->len, err))) {
		free(u);
		return rc;
	}
	sp->input = u;
	snprintf(sp->name, sizeof(sp->name), "%" PRIu64 "-byte sector's update",
		 c->cfg.snap_sector_size);
	sp->n = u->partitions;
	sp->n_pub = 4;
	sp->pub = malloc((size_t)sp->n * 4 * sizeof(zkp_fr));
	if (!sp->pub)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %u partitions", sp->n);
	for (unsigned k = 0; k < sp->n && !rc; k++)
		rc = zkp_snap_update_public_inputs(sp->pub + (size_t)k * 4, u, k, err);
	return rc;
}

static int snap_witness(const struct split_job *sp, unsigned k, zkp_fr *w, uint64_t inputs,
			uint64_t aux, zkp_pool *pool, zkp_error *err)
{
	(void)pool; /* one partition's witness is SHA-256 bound and sequential */
	return zkp_snap_update_witness(w, inputs, aux, sp->input, k, err);
}

const struct split_ops snap_split_ops = {
	.what = "SnapDeals",
	.prepare = snap_prepare,
	.witness = snap_witness,
	.free_input = snap_free,
};
