/*
 * Native Merkle trees (merkle_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "merkle_int.h"
#include "zkpd/fil_sha256.h"
#include "zkpd/poseidon.h"

int zkp_merkle_hash(const zkp_tree_shape *t, zkp_fr *out, const zkp_fr *in, unsigned arity)
{
	if (t->hash == ZKP_TREE_SHA256) {
		uint8_t l[32], r[32], d[32];
		zkp_fr_to_le(l, &in[0]);
		zkp_fr_to_le(r, &in[1]);
		int rc = zkp_fil_sha256_node(d, l, r);
		return rc ? rc : zkp_fr_from_le(out, d); /* trimmed: below r */
	}
	const zkp_poseidon_consts *c;
	int rc = zkp_poseidon_consts_get(&c, arity);
	if (!rc)
		zkp_poseidon_hash(out, c, in);
	return rc;
}

int zkp_merkle_build(zkp_merkle *t, const zkp_tree_shape *shape, const zkp_fr *leaves,
		     uint64_t n)
{
	t->shape = *shape;
	t->nlevels = zkp_tree_levels(shape);
	for (unsigned l = 0; l <= t->nlevels; l++) {
		uint64_t count = l == 0 ? n : n / zkp_tree_level_arity(shape, l - 1);
		t->count[l] = count;
		t->level[l] = malloc(count * sizeof(zkp_fr));
		if (!t->level[l])
			return ZKP_ERR_NOMEM;
		if (l == 0) {
			memcpy(t->level[0], leaves, n * sizeof(zkp_fr));
			continue;
		}
		unsigned a = zkp_tree_level_arity(shape, l - 1);
		for (uint64_t g = 0; g < count; g++) {
			int rc = zkp_merkle_hash(&t->shape, &t->level[l][g], &t->level[l - 1][g * a], a);
			if (rc)
				return rc;
		}
		n = count;
	}
	return n == 1 ? 0 : ZKP_ERR_INVAL;
}

void zkp_merkle_free(zkp_merkle *t)
{
	for (unsigned l = 0; l <= ZKP_PATH_MAX_LEVELS; l++) {
		free(t->level[l]);
		t->level[l] = NULL;
	}
}

const zkp_fr *zkp_merkle_root(const zkp_merkle *t) { return &t->level[t->nlevels][0]; }

void zkp_merkle_path(const zkp_merkle *t, uint64_t idx, zkp_path *p)
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

int zkp_merkle_walk(const zkp_tree_shape *t, const zkp_fr *leaf, const zkp_path *p,
		    zkp_fr *nodes, zkp_fr *root)
{
	zkp_fr in[8], cur = *leaf;
	unsigned sib = 0, levels = zkp_tree_levels(t);
	if (nodes)
		nodes[0] = cur;
	for (unsigned l = 0; l < levels; l++) {
		unsigned a = zkp_tree_level_arity(t, l), pos = p->index[l];
		if (pos >= a || a > 8)
			return ZKP_ERR_INVAL;
		memcpy(in, &p->siblings[sib], pos * sizeof(zkp_fr));
		in[pos] = cur;
		memcpy(&in[pos + 1], &p->siblings[sib + pos], (a - 1 - pos) * sizeof(zkp_fr));
		int rc = zkp_merkle_hash(t, &cur, in, a);
		if (rc)
			return rc;
		sib += a - 1;
		if (nodes)
			nodes[l + 1] = cur;
	}
	*root = cur;
	return 0;
}
