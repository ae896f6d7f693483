/*
 * Development partitions (include/zkpd/porep_dev.h).
 *
 * Labels follow rust-fil-proofs' create_label: SHA-256 over replica_id (32
 * bytes), the layer (u32 big-endian), the node (u64 big-endian), 20 zero
 * bytes and 37 parent labels, with the two top bits of the digest cleared.
 * Layer 1 takes its 6 DRG parents six times and then parent 0; later layers
 * their 6 DRG parents (same layer) and 8 expander parents (previous layer)
 * twice and then the first 9. DRG parents of node n are drawn below n, so
 * labels can be computed in node order; node 0's labels are random.
 */
#include <stdlib.h>
#include <string.h>

#include "zkpd/fil_sha256.h"
#include "zkpd/poseidon.h"
#include "zkpd/porep_dev.h"
#include "zkpd/rng.h"

#define MAX_NODES (1u << 16)

struct tree {
	zkp_tree_shape shape;
	unsigned nlevels;
	zkp_fr *level[ZKP_PATH_MAX_LEVELS + 1];
};

struct zkp_porep_dev {
	zkp_porep_shape s;
	zkp_rng rng;
	zkp_fr *data, *labels; /* labels[layer * nodes + node], layer 0-based */
	uint32_t (*parents)[ZKP_POREP_PARENTS];
	struct tree d, c, r;
	zkp_porep_challenge *ch;
	zkp_fr (*ch_labels)[ZKP_POREP_MAX_LAYERS];
	zkp_porep_witness w;
};

static void rand_fr(zkp_rng *r, zkp_fr *out)
{
	uint64_t wide[8];
	for (int i = 0; i < 8; i++)
		wide[i] = zkp_rng_next(r);
	zkp_fr_from_wide(out, wide);
}

static int fr_of_digest(zkp_fr *out, const uint8_t d[32])
{
	return zkp_fr_from_le(out, d); /* trimmed: always below r */
}

static int hash_group(const struct tree *t, zkp_fr *out, const zkp_fr *in, unsigned arity)
{
	if (t->shape.hash == ZKP_TREE_SHA256) {
		uint8_t l[32], r[32], d[32];
		zkp_fr_to_le(l, &in[0]);
		zkp_fr_to_le(r, &in[1]);
		int rc = zkp_fil_sha256_node(d, l, r);
		return rc ? rc : fr_of_digest(out, d);
	}
	const zkp_poseidon_consts *c;
	int rc = zkp_poseidon_consts_get(&c, arity);
	if (!rc)
		zkp_poseidon_hash(out, c, in);
	return rc;
}

static int tree_build(struct tree *t, const zkp_tree_shape *shape, const zkp_fr *leaves,
		      uint64_t n)
{
	t->shape = *shape;
	t->nlevels = zkp_tree_levels(shape);
	for (unsigned l = 0; l <= t->nlevels; l++) {
		t->level[l] = malloc(n * sizeof(zkp_fr));
		if (!t->level[l])
			return ZKP_ERR_NOMEM;
		if (l == 0) {
			memcpy(t->level[0], leaves, n * sizeof(zkp_fr));
			continue;
		}
		unsigned a = zkp_tree_level_arity(shape, l - 1);
		n /= a;
		for (uint64_t g = 0; g < n; g++) {
			int rc = hash_group(t, &t->level[l][g], &t->level[l - 1][g * a], a);
			if (rc)
				return rc;
		}
	}
	return n == 1 ? 0 : ZKP_ERR_INVAL;
}

static void tree_free(struct tree *t)
{
	for (unsigned l = 0; l <= ZKP_PATH_MAX_LEVELS; l++)
		free(t->level[l]);
}

static const zkp_fr *tree_root(const struct tree *t) { return &t->level[t->nlevels][0]; }

static void tree_path(const struct tree *t, uint64_t idx, zkp_path *p)
{
	unsigned s = 0;
	memset(p, 0, sizeof(*p));
	for (unsigned l = 0; l < t->nlevels; l++) {
		unsigned a = zkp_tree_level_arity(&t->shape, l), pos = (unsigned)(idx % a);
		uint64_t group = idx / a;
		p->index[l] = (uint8_t)pos;
		for (unsigned k = 0; k < a; k++)
			if (k != pos)
				p->siblings[s++] = t->level[l][group * a + k];
		idx = group;
	}
}

static zkp_fr *label_at(zkp_porep_dev *d, unsigned layer, uint64_t node)
{
	return &d->labels[(uint64_t)layer * d->s.nodes + node];
}

static int make_label(zkp_porep_dev *d, unsigned layer, uint64_t node)
{
	uint8_t msg[64 + ZKP_POREP_LABEL_PARENTS * 32], digest[32];
	const uint32_t *par = d->parents[node];
	unsigned n = layer == 0 ? ZKP_POREP_DRG_PARENTS : ZKP_POREP_PARENTS;

	memset(msg, 0, 64);
	zkp_fr_to_le(msg, &d->w.replica_id);
	for (int i = 0; i < 4; i++)
		msg[32 + i] = (uint8_t)((layer + 1) >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		msg[36 + i] = (uint8_t)(node >> (56 - 8 * i));
	for (unsigned k = 0; k < ZKP_POREP_LABEL_PARENTS; k++) {
		unsigned p = k % n;
		const zkp_fr *v = p < ZKP_POREP_DRG_PARENTS ? label_at(d, layer, par[p])
							   : label_at(d, layer - 1, par[p]);
		zkp_fr_to_le(msg + 64 + 32 * k, v);
	}
	int rc = zkp_fil_sha256_trim(digest, msg, sizeof(msg));
	return rc ? rc : fr_of_digest(label_at(d, layer, node), digest);
}

static int seal(zkp_porep_dev *d)
{
	const uint64_t N = d->s.nodes;
	const unsigned L = d->s.layers;
	zkp_fr *col = malloc(N * sizeof(zkp_fr)), *rep = malloc(N * sizeof(zkp_fr));
	zkp_tree_shape td, tcr;
	int rc = ZKP_ERR_NOMEM;
	if (!col || !rep)
		goto out;

	for (uint64_t n = 0; n < N; n++) {
		rand_fr(&d->rng, &d->data[n]);
		for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++)
			d->parents[n][p] = p < ZKP_POREP_DRG_PARENTS
						   ? (n ? (uint32_t)(zkp_rng_next(&d->rng) % n) : 0)
						   : (uint32_t)(zkp_rng_next(&d->rng) % N);
	}
	rand_fr(&d->rng, &d->w.replica_id);
	for (unsigned l = 0; l < L; l++) {
		rand_fr(&d->rng, label_at(d, l, 0));
		for (uint64_t n = 1; n < N; n++)
			if ((rc = make_label(d, l, n)))
				goto out;
	}

	const zkp_poseidon_consts *pc;
	if ((rc = zkp_poseidon_consts_get(&pc, L)))
		goto out;
	for (uint64_t n = 0; n < N; n++) {
		zkp_fr rows[ZKP_POREP_MAX_LAYERS];
		for (unsigned l = 0; l < L; l++)
			rows[l] = *label_at(d, l, n);
		zkp_poseidon_hash(&col[n], pc, rows);
		zkp_fr_add(&rep[n], label_at(d, L - 1, n), &d->data[n]);
	}
	zkp_porep_tree_d(&d->s, &td);
	zkp_porep_tree_cr(&d->s, &tcr);
	if ((rc = tree_build(&d->d, &td, d->data, N)) || (rc = tree_build(&d->c, &tcr, col, N)) ||
	    (rc = tree_build(&d->r, &tcr, rep, N)))
		goto out;

	d->w.comm_d = *tree_root(&d->d);
	d->w.comm_c = *tree_root(&d->c);
	d->w.comm_r_last = *tree_root(&d->r);
	const zkp_poseidon_consts *p2;
	if ((rc = zkp_poseidon_consts_get(&p2, 2)))
		goto out;
	zkp_fr pair[2] = { d->w.comm_c, d->w.comm_r_last };
	zkp_poseidon_hash(&d->w.comm_r, p2, pair);

	for (unsigned i = 0; i < d->s.challenges; i++) {
		zkp_porep_challenge *ch = &d->ch[i];
		uint64_t node = 1 + zkp_rng_next(&d->rng) % (N - 1);
		ch->node = node;
		ch->data_leaf = d->data[node];
		tree_path(&d->d, node, &ch->comm_d_path);
		for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++) {
			uint32_t q = d->parents[node][p];
			for (unsigned l = 0; l < L; l++)
				ch->parent_rows[p][l] = *label_at(d, l, q);
			tree_path(&d->c, q, &ch->parent_paths[p]);
		}
		tree_path(&d->r, node, &ch->comm_r_last_path);
		tree_path(&d->c, node, &ch->comm_c_path);
		for (unsigned l = 0; l < L; l++)
			d->ch_labels[i][l] = *label_at(d, l, node);
	}
	d->w.challenges = d->ch;
	rc = 0;
out:
	free(col);
	free(rep);
	return rc;
}

int zkp_porep_dev_new(zkp_porep_dev **ret, const zkp_porep_shape *s, uint64_t seed,
		      zkp_error *err)
{
	*ret = NULL;
	int rc = zkp_porep_shape_check(s, err);
	if (rc)
		return rc;
	if (s->nodes > MAX_NODES || s->nodes < 2)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "a development sector has 2 to %u nodes, not %llu", MAX_NODES,
				     (unsigned long long)s->nodes);
	zkp_porep_dev *d = calloc(1, sizeof(*d));
	if (!d)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a development sector");
	d->s = *s;
	zkp_rng_seed(&d->rng, seed);
	d->data = malloc(s->nodes * sizeof(zkp_fr));
	d->labels = malloc(s->nodes * s->layers * sizeof(zkp_fr));
	d->parents = malloc(s->nodes * sizeof(*d->parents));
	d->ch = calloc(s->challenges, sizeof(*d->ch));
	d->ch_labels = calloc(s->challenges, sizeof(*d->ch_labels));
	if (!d->data || !d->labels || !d->parents || !d->ch || !d->ch_labels)
		rc = ZKP_ERR_NOMEM;
	else
		rc = seal(d);
	if (rc) {
		zkp_porep_dev_free(d);
		return zkp_error_set(err, rc, "making a development sector: %s", zkp_strerror(rc));
	}
	*ret = d;
	return 0;
}

void zkp_porep_dev_free(zkp_porep_dev *d)
{
	if (!d)
		return;
	tree_free(&d->d);
	tree_free(&d->c);
	tree_free(&d->r);
	free(d->data);
	free(d->labels);
	free(d->parents);
	free(d->ch);
	free(d->ch_labels);
	free(d);
}

const zkp_porep_witness *zkp_porep_dev_witness(const zkp_porep_dev *d) { return &d->w; }

const zkp_fr *zkp_porep_dev_label(const zkp_porep_dev *d, unsigned i, unsigned layer)
{
	return &d->ch_labels[i][layer - 1];
}
