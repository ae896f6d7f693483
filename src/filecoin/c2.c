/*
 * Commit phase 2 from a C1 output (include/zkpd/porep_c2.h).
 */
#include <stdlib.h>
#include <string.h>

#include "zkpd/circuit.h"
#include "zkpd/porep_c2.h"
#include "zkpd/porep_seal.h"

int zkp_porep_c1_proof(const zkp_porep_proof **ret, const zkp_porep_c1 *c1, zkp_error *err)
{
	const zkp_porep_proof *p;
	int rc = zkp_porep_proof_lookup(&p, c1->registered_proof, err);
	if (rc)
		return rc;
	if (p->sector_bytes != c1->sector_bytes)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "registered_proof %s is for %llu-byte sectors, vanilla_proofs for %llu",
				     p->name, (unsigned long long)p->sector_bytes,
				     (unsigned long long)c1->sector_bytes);
	if (p->partitions != c1->partitions || p->challenges != c1->challenges)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "registered_proof %s has %u partitions of %u challenges; vanilla_proofs has %u of %u",
				     p->name, p->partitions, p->challenges, c1->partitions,
				     c1->challenges);
	if (p->layers != c1->shape.layers)
		return zkp_error_set(err, ZKP_ERR_MISMATCH, "registered_proof %s has %u layers, the C1 %u",
				     p->name, p->layers, c1->shape.layers);
	*ret = p;
	return 0;
}

/* The labels C1 carries for a challenged column, recomputed from its
 * parents' columns: C1 must agree with what the circuit will compute. */
static int check_labels(const zkp_porep_c1 *c1, unsigned k, unsigned i, zkp_error *err)
{
	const zkp_porep_c1_challenge *ch = &c1->ch[(size_t)k * c1->challenges + i];
	for (unsigned l = 1; l <= c1->shape.layers; l++) {
		const zkp_fr *drg[ZKP_POREP_DRG_PARENTS], *exp[ZKP_POREP_EXP_PARENTS];
		for (unsigned p = 0; p < ZKP_POREP_DRG_PARENTS; p++)
			drg[p] = &ch->ch.parent_rows[p][l - 1];
		for (unsigned p = 0; p < ZKP_POREP_EXP_PARENTS; p++)
			exp[p] = l > 1 ? &ch->ch.parent_rows[ZKP_POREP_DRG_PARENTS + p][l - 2] : NULL;
		zkp_fr label;
		int rc = zkp_porep_label(&label, &c1->replica_id_fr, l, ch->ch.node, drg, exp);
		if (rc)
			return zkp_error_set(err, rc, "SHA-256 failed");
		if (!zkp_fr_eq(&label, &ch->column_rows[l - 1]))
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "partition %u challenge %u (node %llu): replica_column_proofs.c_x.column.rows[%u] is not the label its parents give",
					     k, i, (unsigned long long)ch->ch.node, l - 1);
	}
	return 0;
}

int zkp_porep_c1_public_inputs(zkp_fr *out, const zkp_porep_c1 *c1, unsigned k,
			       const zkp_porep_proof *p, const zkp_porep_graph *g, zkp_error *err)
{
	const unsigned C = c1->challenges;
	uint64_t *nodes = malloc(C * sizeof(*nodes));
	uint32_t(*parents)[ZKP_POREP_PARENTS] = malloc(C * sizeof(*parents));
	int rc = 0;

	if (!nodes || !parents) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for partition %u's challenges", k);
		goto out;
	}
	if (k >= c1->partitions) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "partition %u: the C1 has %u", k,
				   c1->partitions);
		goto out;
	}
	if ((rc = zkp_porep_challenges(nodes, p->mode, p->nodes, C, k, c1->replica_id, c1->seed,
				       c1->comm_r, err)))
		goto out;
	for (unsigned i = 0; i < C; i++) {
		const zkp_porep_c1_challenge *ch = &c1->ch[(size_t)k * C + i];
		if (ch->ch.node != nodes[i]) {
			rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
					   "partition %u challenge %u: the C1 proves node %llu, the %s challenge is node %llu",
					   k, i, (unsigned long long)ch->ch.node,
					   zkp_porep_mode_name(p->mode), (unsigned long long)nodes[i]);
			goto out;
		}
		if ((rc = check_labels(c1, k, i, err)) ||
		    (rc = zkp_porep_drg_parents(g, nodes[i], parents[i], err)) ||
		    (rc = zkp_porep_exp_parents(g, nodes[i], parents[i] + ZKP_POREP_DRG_PARENTS, err)))
			goto out;
		for (unsigned q = 0; q < ZKP_POREP_PARENTS; q++)
			if (ch->parent_nodes[q] != parents[i][q]) {
				rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
						   "partition %u challenge %u (node %llu): %s parent %u is node %u in the C1, node %u in the graph",
						   k, i, (unsigned long long)nodes[i],
						   q < ZKP_POREP_DRG_PARENTS ? "DRG" : "expander",
						   q < ZKP_POREP_DRG_PARENTS ? q : q - ZKP_POREP_DRG_PARENTS,
						   ch->parent_nodes[q], parents[i][q]);
				goto out;
			}
	}
	zkp_porep_public_inputs(out, &c1->shape, &c1->replica_id_fr, &c1->comm_d_fr, &c1->comm_r_fr,
				nodes, (const uint32_t(*)[ZKP_POREP_PARENTS])parents);
out:
	free(nodes);
	free(parents);
	return rc;
}

int zkp_porep_c1_check_replica_id(const zkp_porep_c1 *c1, const zkp_porep_proof *p,
				  const uint8_t prover_id[32], uint64_t sector_id, zkp_error *err)
{
	uint8_t porep_id[32], want[32];
	zkp_porep_id(porep_id, p);
	int rc = zkp_porep_replica_id(want, prover_id, sector_id, c1->ticket, c1->comm_d, porep_id,
				      err);
	if (rc)
		return rc;
	if (memcmp(want, c1->replica_id, 32))
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "replica_id: the C1's is not SHA-256(prover_id, sector %llu, ticket, comm_d, porep_id of %s)",
				     (unsigned long long)sector_id, p->name);
	return 0;
}

/* The witness's inputs w[1 .. inputs) against the derived pub. */
static int compare_inputs(const zkp_fr *w, uint64_t inputs, const zkp_fr *pub, unsigned k,
			  zkp_error *err)
{
	for (uint64_t i = 0; i + 1 < inputs; i++)
		if (!zkp_fr_eq(&w[1 + i], &pub[i]))
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "partition %u: public input %llu of the witness differs from the one derived from the C1's public data",
					     k, (unsigned long long)i + 1);
	return 0;
}

int zkp_porep_c1_witness_checked(zkp_fr *w, uint64_t inputs, uint64_t aux,
				 const zkp_porep_c1 *c1, unsigned k, const zkp_fr *pub, zkp_pool *pool,
				 zkp_error *err)
{
	zkp_porep_witness wit;
	zkp_porep_c1_witness(c1, k, &wit);
	int rc = zkp_porep_witness_parallel(&c1->shape, &wit, w, inputs, aux, pool, err);
	return rc ? rc : compare_inputs(w, inputs, pub, k, err);
}

int zkp_porep_c1_check_rows(const zkp_porep_c1 *c1, unsigned k, const zkp_fr *pub,
			    zkp_pool *pool, uint64_t *rows, uint64_t *first_row, zkp_error *err)
{
	const uint64_t n = zkp_porep_inputs(&c1->shape);
	zkp_fr *in = malloc(n * sizeof(zkp_fr));
	zkp_porep_witness wit;
	zkp_error e = { 0 };
	int rc;

	if (!in)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for partition %u's inputs", k);
	zkp_porep_c1_witness(c1, k, &wit);
	rc = zkp_porep_check_rows(&c1->shape, &wit, in, pool, rows, first_row, &e);
	if (rc)
		zkp_error_set(err, rc, "partition %u: %s", k, zkp_error_text(&e, rc));
	else
		rc = compare_inputs(in, n, pub, k, err);
	free(in);
	return rc;
}

int zkp_porep_prove_partition(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			      const zkp_porep_prover *pr, const zkp_porep_c1 *c1, unsigned k,
			      const zkp_porep_proof *p, const zkp_porep_graph *g, zkp_error *err)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(pr->pce);
	const uint64_t n_in = zkp_porep_inputs(&c1->shape);
	zkp_fr *pub = NULL, *w = NULL;
	int rc;

	if (d->n_inputs != n_in)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "the circuit has %llu inputs; a %s partition has %llu",
				     (unsigned long long)d->n_inputs, p->name,
				     (unsigned long long)n_in);
	pub = malloc((n_in - 1) * sizeof(zkp_fr));
	w = malloc((d->n_inputs + d->n_aux) * sizeof(zkp_fr));
	if (!pub || !w) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for partition %u's witness", k);
		goto out;
	}
	if ((rc = zkp_porep_c1_public_inputs(pub, c1, k, p, g, err)))
		goto out;
	if ((rc = zkp_porep_c1_witness_checked(w, d->n_inputs, d->n_aux, c1, k, pub, pr->pool,
					       err)))
		goto out;
	if ((rc = zkp_groth16_prove(proof, times, pr->pce, pr->pk, w, (size_t)(d->n_inputs + d->n_aux),
				    pr->be, pr->pool, err)))
		goto out;
	rc = zkp_groth16_verify(pr->pvk, pub, (size_t)(n_in - 1), proof);
	if (rc)
		rc = zkp_error_set(err, rc == ZKP_GROTH16_INVALID ? ZKP_ERR_MISMATCH : rc,
				   "partition %u: the proof does not verify with the derived public inputs",
				   k);
out:
	free(pub);
	free(w);
	return rc;
}

int zkp_porep_verify(const zkp_groth16_pvk *pvk, const zkp_groth16_proof *proofs,
		     const zkp_porep_c1 *c1, const zkp_porep_proof *p, const zkp_porep_graph *g,
		     zkp_error *err)
{
	const uint64_t n = zkp_porep_inputs(&c1->shape) - 1;
	zkp_fr *pub = malloc(n * sizeof(zkp_fr));
	int rc = 0;
	if (!pub)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for public inputs");
	for (unsigned k = 0; k < c1->partitions && !rc; k++) {
		if ((rc = zkp_porep_c1_public_inputs(pub, c1, k, p, g, err)))
			break;
		rc = zkp_groth16_verify(pvk, pub, (size_t)n, &proofs[k]);
		if (rc == ZKP_GROTH16_INVALID)
			rc = zkp_error_set(err, ZKP_ERR_MISMATCH, "partition %u: the proof is not valid", k);
		else if (rc)
			zkp_error_set(err, rc, "partition %u: the key has %s inputs", k,
				      "a different number of");
	}
	free(pub);
	return rc;
}
