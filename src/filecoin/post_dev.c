/*
 * Development PoSt vanilla proofs (include/zkpd/post_dev.h).
 */
#include <stdlib.h>
#include <string.h>

#include "merkle_int.h"
#include "zkpd/post_dev.h"

int zkp_post_dev_vanilla(uint8_t **out, size_t *len, const zkp_porep_sector *sec,
			 uint64_t sector_id, const zkp_post_proof_type *pt,
			 const uint8_t randomness[32], uint64_t sector_index, zkp_error *err)
{
	zkp_post_shape s;
	int rc = zkp_post_shape_for_size(&s, pt->kind, pt->sector_bytes, err);
	if (rc)
		return rc;
	const zkp_porep_shape *ps = zkp_porep_sector_shape(sec);
	if (ps->nodes != s.nodes || memcmp(ps->tree, s.tree, sizeof(s.tree)))
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "the sealed sector has %llu nodes; a %s sector has %llu",
				     (unsigned long long)ps->nodes, pt->name,
				     (unsigned long long)s.nodes);
	zkp_tree_shape t;
	zkp_post_tree_r(&s, &t);
	zkp_merkle tree = { 0 };
	zkp_post_challenge *ch = calloc(s.challenges, sizeof(*ch));
	if (!ch)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a PoSt vanilla proof");
	if ((rc = zkp_merkle_build(&tree, &t, zkp_porep_sector_replica(sec), s.nodes))) {
		zkp_error_set(err, rc, "tree R of the sealed sector");
		goto out;
	}
	for (unsigned c = 0; c < s.challenges && !rc; c++) {
		uint64_t idx = zkp_post_challenge_index(pt->version, sector_index, s.challenges, c);
		if ((rc = zkp_post_leaf_challenge(&ch[c].node, randomness, sector_id, idx, s.nodes, err)))
			break;
		ch[c].leaf = tree.level[0][ch[c].node];
		zkp_merkle_path(&tree, ch[c].node, &ch[c].path);
	}
	if (!rc) {
		zkp_post_sector ps_ = { .sector_id = sector_id,
					.comm_r = *zkp_porep_sector_comm_r(sec),
					.comm_c = *zkp_porep_sector_comm_c(sec),
					.comm_r_last = *zkp_porep_sector_comm_r_last(sec),
					.challenges = ch };
		rc = zkp_post_vanilla_encode(out, len, &ps_, s.challenges, &t, err);
	}
out:
	zkp_merkle_free(&tree);
	free(ch);
	return rc;
}
