/*
 * The PoSt vanilla proof reader (include/zkpd/post_vanilla.h), on the
 * bincode reader of bincode_int.h.
 *
 * The one allocation, the challenges, waits until their count is known to
 * be at most ZKP_POST_VANILLA_MAX_CHALLENGES; every other length must equal
 * what the tree shape says and is refused before it is used, so no length
 * read from the input sizes anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bincode_int.h"
#include "zkpd/post_vanilla.h"

#define SECTOR "vanilla_proof.sectors[0]"

static const char *const variant[] = { "Single", "Sub", "Top" };

int zkp_post_vanilla_decode(zkp_post_vanilla *ret, const uint8_t *buf, size_t len,
			    const zkp_tree_shape *t, zkp_error *err)
{
	memset(ret, 0, sizeof(*ret));
	if (t->hash != ZKP_TREE_POSEIDON)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "PoSt vanilla proof: tree R is a Poseidon tree, not SHA-256");
	int rc = zkp_tree_shape_check(t, err);
	if (rc)
		return rc;
	if (zkp_tree_index_bits(t) > 63)
		return zkp_error_set(
			err, ZKP_ERR_INVAL,
			"PoSt vanilla proof: a tree of %u index bits is past any sector",
			zkp_tree_index_bits(t));

	zkp_bincode_rd r;
	zkp_bincode_init(&r, buf, len, "PoSt vanilla proof", err);
	zkp_post_vanilla v = { .tree = *t };
	zkp_fr roots[ZKP_POST_VANILLA_MAX_CHALLENGES];
	size_t root_at[ZKP_POST_VANILLA_MAX_CHALLENGES];
	uint64_t n;
	size_t pos;

	zkp_bincode_here(&r, "sector_id");
	if ((rc = zkp_bincode_u64(&r, &v.sector.sector_id, "u64")))
		goto out;
	zkp_bincode_here(&r, "comm_r");
	if ((rc = zkp_bincode_fr(&r, &v.sector.comm_r)))
		goto out;
	zkp_bincode_here(&r, "vanilla_proof.sectors");
	pos = r.off;
	if ((rc = zkp_bincode_u64(&r, &n, "length (u64)")))
		goto out;
	if (n != 1) {
		rc = zkp_bincode_fail(&r, pos, ZKP_ERR_FORMAT,
			  "length %llu; a FallbackPoStSectorProof holds exactly 1 sector",
			  (unsigned long long)n);
		goto out;
	}
	zkp_bincode_here(&r, SECTOR ".inclusion_proofs");
	pos = r.off;
	if ((rc = zkp_bincode_u64(&r, &n, "length (u64)")))
		goto out;
	if (n == 0 || n > ZKP_POST_VANILLA_MAX_CHALLENGES) {
		rc = zkp_bincode_fail(&r, pos, ZKP_ERR_FORMAT, "length %llu; a sector has 1 to %u challenges",
			  (unsigned long long)n, ZKP_POST_VANILLA_MAX_CHALLENGES);
		goto out;
	}
	v.challenges = (unsigned)n;
	v.ch = calloc(n, sizeof(*v.ch));
	if (!v.ch) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM,
				   "PoSt vanilla proof: no memory for %llu challenges",
				   (unsigned long long)n);
		goto out;
	}
	for (unsigned i = 0; i < v.challenges; i++) {
		char at[64];
		snprintf(at, sizeof(at), SECTOR ".inclusion_proofs[%u]", i);
		if ((rc = zkp_bincode_merkle_proof(&r, t, at, &v.ch[i].leaf, &v.ch[i].path, &roots[i],
						   &root_at[i])))
			goto out;
		v.ch[i].node = zkp_bincode_path_node(t, &v.ch[i].path);
	}
	zkp_bincode_here(&r, SECTOR ".comm_c");
	if ((rc = zkp_bincode_fr(&r, &v.sector.comm_c)))
		goto out;
	zkp_bincode_here(&r, SECTOR ".comm_r_last");
	if ((rc = zkp_bincode_fr(&r, &v.sector.comm_r_last)))
		goto out;
	if ((rc = zkp_bincode_end(&r)))
		goto out;
	for (unsigned i = 0; i < v.challenges; i++) {
		if (zkp_fr_eq(&roots[i], &v.sector.comm_r_last))
			continue;
		zkp_bincode_here(&r, SECTOR ".inclusion_proofs[%u].data.%s.root", i, variant[zkp_bincode_variant(t)]);
		rc = zkp_bincode_fail(&r, root_at[i], ZKP_ERR_MISMATCH, "differs from comm_r_last");
		goto out;
	}
	v.sector.challenges = v.ch;
	*ret = v;
	return 0;
out:
	free(v.ch);
	return rc;
}

void zkp_post_vanilla_release(zkp_post_vanilla *v)
{
	free(v->ch);
	memset(v, 0, sizeof(*v));
}

int zkp_post_vanilla_encode(uint8_t **out, size_t *len, const zkp_post_sector *s,
			    unsigned challenges, const zkp_tree_shape *t, zkp_error *err)
{
	zkp_bincode_wr w = { 0 };
	zkp_bincode_put_u64(&w, s->sector_id);
	zkp_bincode_put_fr(&w, &s->comm_r);
	zkp_bincode_put_u64(&w, 1); /* vanilla_proof.sectors */
	zkp_bincode_put_u64(&w, challenges);
	for (unsigned i = 0; i < challenges; i++)
		zkp_bincode_put_merkle_proof(&w, t, &s->challenges[i].leaf, &s->challenges[i].path,
					     &s->comm_r_last);
	zkp_bincode_put_fr(&w, &s->comm_c);
	zkp_bincode_put_fr(&w, &s->comm_r_last);
	if (w.failed) {
		free(w.b);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "PoSt vanilla proof: no memory");
	}
	*out = w.b;
	*len = w.len;
	return 0;
}
