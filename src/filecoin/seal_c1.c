/*
 * The development sealer's C1 output (include/zkpd/porep_seal.h
 * zkp_porep_seal_c1): comm_d, replica_id, SDR over Filecoin's graph, the
 * challenges of every partition for the proof's mode, and each challenged
 * node's vanilla proof.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seal_int.h"
#include "zkpd/porep_graph.h"
#include "zkpd/porep_seal.h"

static int fill(zkp_porep_c1 *c1, const zkp_porep_sector *sec, const zkp_porep_proof *p,
		zkp_error *err)
{
	uint64_t *nodes = malloc(c1->challenges * sizeof(*nodes));
	int rc = 0;
	if (!nodes)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for challenges");
	/* every partition's vanilla proofs reach into the same trees */
	for (unsigned k = 0; k < c1->partitions && !rc; k++) {
		c1->comm_r_last[k] = *zkp_porep_sector_comm_r_last(sec);
		c1->comm_c[k] = *zkp_porep_sector_comm_c(sec);
		rc = zkp_porep_challenges(nodes, p->mode, p->nodes, c1->challenges, k, c1->replica_id,
					  c1->seed, c1->comm_r, err);
		for (unsigned i = 0; i < c1->challenges && !rc; i++) {
			size_t j = (size_t)k * c1->challenges + i;
			zkp_porep_sector_challenge(sec, nodes[i], &c1->ch[j]);
			c1->wit[j] = c1->ch[j].ch;
		}
	}
	free(nodes);
	return rc;
}

static void release_graph(void *g)
{
	zkp_porep_graph_release(g);
	free(g);
}

int seal_replica_id(zkp_fr *ret, const zkp_porep_proof *p, const zkp_fr *comm_d,
		    const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
		    zkp_error *err)
{
	uint8_t porep_id[32], comm_d_le[32], replica_id[32];
	zkp_porep_id(porep_id, p);
	zkp_fr_to_le(comm_d_le, comm_d);
	int rc = zkp_porep_replica_id(replica_id, prover_id, sector_id, ticket, comm_d_le, porep_id,
				      err);
	if (rc)
		return rc;
	if ((rc = zkp_fr_from_le(ret, replica_id))) /* trimmed: below 2^254 */
		return zkp_error_set(err, rc, "replica_id is not a field element");
	return 0;
}

int seal_c1_new(zkp_porep_c1 **ret, const zkp_porep_proof *p, const uint8_t ticket[32],
		const uint8_t seed[32], zkp_error *err)
{
	zkp_porep_c1 *c1 = calloc(1, sizeof(*c1));
	int rc;

	*ret = NULL;
	if (!c1)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a C1");
	if ((rc = zkp_porep_shape_for_size(&c1->shape, p->sector_bytes, err)))
		goto out;
	snprintf(c1->registered_proof, sizeof(c1->registered_proof), "%s", p->name);
	c1->sector_bytes = p->sector_bytes;
	c1->partitions = p->partitions;
	c1->challenges = p->challenges;
	c1->shape.challenges = p->challenges;
	memcpy(c1->seed, seed, 32);
	memcpy(c1->ticket, ticket, 32);
	size_t n = (size_t)c1->partitions * c1->challenges;
	c1->comm_r_last = malloc(c1->partitions * sizeof(zkp_fr));
	c1->comm_c = malloc(c1->partitions * sizeof(zkp_fr));
	c1->ch = calloc(n, sizeof(*c1->ch));
	c1->wit = calloc(n, sizeof(*c1->wit));
	if (!c1->comm_r_last || !c1->comm_c || !c1->ch || !c1->wit)
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a C1 of %zu challenges", n);
out:
	if (rc)
		zkp_porep_c1_free(c1);
	else
		*ret = c1;
	return rc;
}

void seal_c1_commit(zkp_porep_c1 *c1, const zkp_fr *comm_d, const zkp_fr *replica_id,
		    const zkp_fr *comm_r)
{
	c1->comm_d_fr = *comm_d;
	zkp_fr_to_le(c1->comm_d, comm_d);
	c1->replica_id_fr = *replica_id;
	zkp_fr_to_le(c1->replica_id, replica_id);
	c1->comm_r_fr = *comm_r;
	zkp_fr_to_le(c1->comm_r, comm_r);
}

int zkp_porep_seal_sector(zkp_porep_sector **ret, const zkp_porep_proof *p, const zkp_fr *data,
			  const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
			  zkp_error *err)
{
	zkp_porep_shape shape;
	zkp_porep_graph *g;
	zkp_fr comm_d, replica_id;
	int rc;

	*ret = NULL;
	if ((rc = zkp_porep_shape_for_size(&shape, p->sector_bytes, err)))
		return rc;
	shape.challenges = p->challenges;
	if ((rc = zkp_porep_comm_d(&comm_d, &shape, data, err)) ||
	    (rc = seal_replica_id(&replica_id, p, &comm_d, prover_id, sector_id, ticket, err)))
		return rc;
	if (!(g = calloc(1, sizeof(*g))))
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the graph");
	if (!(rc = zkp_porep_graph_init_proof(g, p, err)) &&
	    !(rc = zkp_porep_graph_precompute(g, err)) &&
	    !(rc = zkp_porep_sector_seal(ret, &shape, data, &replica_id,
					 zkp_porep_graph_parents_fn, g, err))) {
		zkp_porep_sector_adopt(*ret, release_graph);
		return 0;
	}
	release_graph(g);
	return rc;
}

int zkp_porep_seal_c1(zkp_porep_c1 **ret, const zkp_porep_proof *p, const zkp_fr *data,
		      const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
		      const uint8_t seed[32], zkp_error *err)
{
	zkp_porep_c1 *c1 = NULL;
	zkp_porep_sector *sec = NULL;
	int rc;

	*ret = NULL;
	if ((rc = seal_c1_new(&c1, p, ticket, seed, err)) ||
	    (rc = zkp_porep_seal_sector(&sec, p, data, prover_id, sector_id, ticket, err)))
		goto out;
	seal_c1_commit(c1, zkp_porep_sector_comm_d(sec), zkp_porep_sector_replica_id(sec),
		       zkp_porep_sector_comm_r(sec));
	rc = fill(c1, sec, p, err);
out:
	zkp_porep_sector_free(sec);
	if (rc)
		zkp_porep_c1_free(c1);
	else
		*ret = c1;
	return rc;
}
