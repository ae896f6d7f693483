/*
 * Native check of one PoSt sector's witness (include/zkpd/post_vanilla.h,
 * zkp_post_vanilla_check): the relations the Fallback PoSt circuit proves,
 * recomputed outside it, as rust-fil-proofs' verifier does them
 * (storage-proofs-post fallback/vanilla.rs verify, storage-proofs-core
 * merkle/proof.rs InclusionPath::root).
 *
 * A level's node is Poseidon of its arity over the arity children in
 * order, the current node inserted at its position among the arity - 1
 * siblings (Vec::insert).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "zkpd/poseidon.h"
#include "zkpd/post_vanilla.h"

/* First 8 bytes of a value's canonical little-endian encoding, in hex:
 * enough to tell two values apart in a message. */
static void short_hex(char out[17], const zkp_fr *a)
{
	uint8_t b[32];
	zkp_fr_to_le(b, a);
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int zkp_post_vanilla_check(const zkp_post_sector *s, unsigned challenges, const zkp_tree_shape *t,
			   zkp_error *err)
{
	const unsigned long long id = (unsigned long long)s->sector_id;
	if (t->hash != ZKP_TREE_POSEIDON)
		return zkp_error_set(err, ZKP_ERR_INVAL, "sector %llu: tree R is a Poseidon tree",
				     id);
	int rc = zkp_tree_shape_check(t, err);
	if (rc)
		return rc;
	const zkp_poseidon_consts *pc[3] = { NULL, NULL, NULL }, *p2;
	for (unsigned k = 0; k < 3 && !rc; k++)
		if (t->arity[k])
			rc = zkp_poseidon_consts_get(&pc[k], t->arity[k]);
	if (rc || zkp_poseidon_consts_get(&p2, 2))
		return zkp_error_set(err, ZKP_ERR_NOMEM,
				     "sector %llu: no memory for Poseidon constants", id);

	zkp_fr in[ZKP_POSEIDON_MAX_ARITY], r;
	char h1[17], h2[17];
	in[0] = s->comm_c;
	in[1] = s->comm_r_last;
	zkp_poseidon_hash(&r, p2, in);
	if (!zkp_fr_eq(&r, &s->comm_r)) {
		short_hex(h1, &r);
		short_hex(h2, &s->comm_r);
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "sector %llu: Poseidon-2(comm_c, comm_r_last) is %s..., "
				     "comm_r is %s...",
				     id, h1, h2);
	}

	const unsigned levels = zkp_tree_levels(t);
	for (unsigned i = 0; i < challenges; i++) {
		const zkp_post_challenge *c = &s->challenges[i];
		zkp_fr cur = c->leaf;
		uint64_t node = 0, mul = 1;
		unsigned sib = 0;
		for (unsigned l = 0; l < levels; l++) {
			unsigned a = zkp_tree_level_arity(t, l), pos = c->path.index[l];
			const zkp_poseidon_consts *h = pc[l < t->base_levels    ? 0
							  : l == t->base_levels ? 1
										: 2];
			if (pos >= a)
				return zkp_error_set(
					err, ZKP_ERR_INVAL,
					"sector %llu, challenge %u, level %u: position %u "
					"is not below the arity %u",
					id, i, l, pos, a);
			memcpy(in, &c->path.siblings[sib], pos * sizeof(zkp_fr));
			in[pos] = cur;
			memcpy(&in[pos + 1], &c->path.siblings[sib + pos],
			       (a - 1 - pos) * sizeof(zkp_fr));
			zkp_poseidon_hash(&cur, h, in);
			sib += a - 1;
			node += pos * mul;
			mul *= a;
		}
		if (node != c->node)
			return zkp_error_set(
				err, ZKP_ERR_MISMATCH,
				"sector %llu, challenge %u: the path's positions spell "
				"leaf %" PRIu64 ", but its node is %" PRIu64,
				id, i, node, c->node);
		if (!zkp_fr_eq(&cur, &s->comm_r_last)) {
			short_hex(h1, &cur);
			short_hex(h2, &s->comm_r_last);
			return zkp_error_set(err, ZKP_ERR_MISMATCH,
					     "sector %llu, challenge %u: leaf %" PRIu64
					     " hashes to %s... "
					     "at the top level (%u), but comm_r_last is %s...",
					     id, i, c->node, h1, levels - 1, h2);
		}
	}
	return 0;
}
