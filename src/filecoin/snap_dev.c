/*
 * A SnapDeals update in memory (include/zkpd/snap_dev.h).
 */
#include <stdlib.h>
#include <string.h>

#include "merkle_int.h"
#include "zkpd/poseidon.h"
#include "zkpd/snap_dev.h"

struct zkp_snap_dev {
	zkp_snap_shape s;
	unsigned h;
	zkp_fr comm_c, comm_r_old, comm_d_new, comm_r_new, phi;
	zkp_merkle r_old, d_new, r_new;
	zkp_snap_challenge *ch; /* s.challenges */
	uint64_t *nodes;
};

void zkp_snap_dev_free(zkp_snap_dev *d)
{
	if (!d)
		return;
	zkp_merkle_free(&d->r_old);
	zkp_merkle_free(&d->d_new);
	zkp_merkle_free(&d->r_new);
	free(d->ch);
	free(d->nodes);
	free(d);
}

int zkp_snap_dev_new(zkp_snap_dev **ret, const zkp_snap_shape *s, const zkp_porep_sector *old,
		     const zkp_fr *data, unsigned h, zkp_error *err)
{
	*ret = NULL;
	const zkp_porep_shape *ps = zkp_porep_sector_shape(old);
	if (ps->nodes != s->nodes || memcmp(ps->tree, s->tree, sizeof(s->tree)))
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "the sealed sector has %llu nodes and tree %u-%u-%u; this SnapDeals shape needs %llu and %u-%u-%u",
				     (unsigned long long)ps->nodes, ps->tree[0], ps->tree[1],
				     ps->tree[2], (unsigned long long)s->nodes, s->tree[0],
				     s->tree[1], s->tree[2]);
	unsigned hi;
	int rc = zkp_snap_h_index(&hi, s, h, err);
	if (rc)
		return rc;
	zkp_snap_dev *d = calloc(1, sizeof(*d));
	zkp_fr *rep = malloc(s->nodes * sizeof(zkp_fr));
	if (!d || !rep) {
		free(d);
		free(rep);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "SnapDeals update of %llu nodes",
				     (unsigned long long)s->nodes);
	}
	d->s = *s;
	d->h = h;
	d->comm_c = *zkp_porep_sector_comm_c(old);
	d->comm_r_old = *zkp_porep_sector_comm_r(old);
	d->ch = calloc(s->challenges, sizeof(*d->ch));
	d->nodes = calloc(s->challenges, sizeof(*d->nodes));
	zkp_tree_shape tr, td;
	zkp_snap_tree_r(s, &tr);
	zkp_snap_tree_d(s, &td);
	const zkp_fr *old_rep = zkp_porep_sector_replica(old);
	if (!d->ch || !d->nodes || (rc = zkp_merkle_build(&d->r_old, &tr, old_rep, s->nodes)) ||
	    (rc = zkp_merkle_build(&d->d_new, &td, data, s->nodes))) {
		rc = zkp_error_set(err, rc ? rc : ZKP_ERR_NOMEM, "SnapDeals update: trees");
		goto fail;
	}
	d->comm_d_new = *zkp_merkle_root(&d->d_new);
	if ((rc = zkp_snap_phi(&d->phi, &d->comm_d_new, &d->comm_r_old))) {
		zkp_error_set(err, rc, "phi");
		goto fail;
	}
	/* new = old + data * rho; rho changes every 2^(bits - h) nodes */
	uint64_t last = UINT64_MAX;
	zkp_fr rho;
	for (uint64_t i = 0; i < s->nodes; i++) {
		uint64_t high = zkp_snap_high(s, h, i);
		if (high != last && (rc = zkp_snap_rho(&rho, &d->phi, high))) {
			zkp_error_set(err, rc, "rho");
			goto fail;
		}
		last = high;
		zkp_fr_mul(&rep[i], &data[i], &rho);
		zkp_fr_add(&rep[i], &rep[i], &old_rep[i]);
	}
	if ((rc = zkp_merkle_build(&d->r_new, &tr, rep, s->nodes))) {
		zkp_error_set(err, rc, "SnapDeals update: tree R new");
		goto fail;
	}
	const zkp_poseidon_consts *p2;
	if ((rc = zkp_poseidon_consts_get(&p2, 2))) {
		zkp_error_set(err, rc, "Poseidon of arity 2");
		goto fail;
	}
	zkp_fr pair[2] = { d->comm_c, *zkp_merkle_root(&d->r_new) };
	zkp_poseidon_hash(&d->comm_r_new, p2, pair);
	free(rep);
	*ret = d;
	return 0;
fail:
	free(rep);
	zkp_snap_dev_free(d);
	return rc ? rc : ZKP_ERR_NOMEM;
}

const zkp_fr *zkp_snap_dev_comm_r_old(const zkp_snap_dev *d) { return &d->comm_r_old; }
const zkp_fr *zkp_snap_dev_comm_d_new(const zkp_snap_dev *d) { return &d->comm_d_new; }
const zkp_fr *zkp_snap_dev_comm_r_new(const zkp_snap_dev *d) { return &d->comm_r_new; }
const zkp_fr *zkp_snap_dev_replica_new(const zkp_snap_dev *d, uint64_t i)
{
	return &d->r_new.level[0][i];
}

int zkp_snap_dev_partition(zkp_snap_dev *d, unsigned k, zkp_snap_witness *w, uint64_t *nodes,
			   zkp_error *err)
{
	const zkp_snap_shape *s = &d->s;
	int rc = zkp_snap_challenges(d->nodes, s, &d->comm_r_new, k, err);
	if (rc)
		return rc;
	for (unsigned i = 0; i < s->challenges; i++) {
		uint64_t c = d->nodes[i];
		zkp_snap_challenge *ch = &d->ch[i];
		ch->leaf_r_old = d->r_old.level[0][c];
		ch->leaf_d_new = d->d_new.level[0][c];
		ch->leaf_r_new = d->r_new.level[0][c];
		zkp_merkle_path(&d->r_old, c, &ch->r_old);
		zkp_merkle_path(&d->d_new, c, &ch->d_new);
		zkp_merkle_path(&d->r_new, c, &ch->r_new);
	}
	if (nodes)
		memcpy(nodes, d->nodes, s->challenges * sizeof(*nodes));
	/* the partition's apex leaves: its chunk of tree D's apex row */
	unsigned row = zkp_snap_challenge_bits(s) - zkp_snap_partition_bits(s) -
		       zkp_snap_apex_bits(s);
	*w = (zkp_snap_witness){ .k = k,
				 .h = d->h,
				 .comm_r_old = d->comm_r_old,
				 .comm_d_new = d->comm_d_new,
				 .comm_r_new = d->comm_r_new,
				 .comm_c = d->comm_c,
				 .root_r_old = *zkp_merkle_root(&d->r_old),
				 .root_r_new = *zkp_merkle_root(&d->r_new),
				 .apex_leaves = &d->d_new.level[row][(uint64_t)k * s->apex_leaves],
				 .challenges = d->ch };
	return 0;
}
