/*
 * SnapDeals vanilla proofs (include/zkpd/snap_vanilla.h): the
 * PartitionProof reader and writer on bincode_int.h, and the native check.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bincode_int.h"
#include "merkle_int.h"
#include "zkpd/fil_sha256.h"
#include "zkpd/poseidon.h"
#include "zkpd/snap_vanilla.h"

void zkp_snap_vanilla_release(zkp_snap_vanilla *v)
{
	free(v->apex_leaves);
	free(v->ch);
	free(v->nodes);
	memset(v, 0, sizeof(*v));
}

static const char *const proof_name[3] = { "proof_r_old", "proof_d_new", "proof_r_new" };

int zkp_snap_vanilla_decode(zkp_snap_vanilla *ret, const uint8_t *buf, size_t len,
			    const zkp_snap_shape *s, zkp_error *err)
{
	memset(ret, 0, sizeof(*ret));
	zkp_snap_vanilla v = { .shape = *s };
	zkp_tree_shape t[3];
	zkp_snap_tree_r(s, &t[0]);
	zkp_snap_tree_d(s, &t[1]);
	t[2] = t[0];
	v.apex_leaves = calloc(s->apex_leaves, sizeof(zkp_fr));
	v.ch = calloc(s->challenges, sizeof(*v.ch));
	v.nodes = calloc(s->challenges, sizeof(*v.nodes));
	if (!v.apex_leaves || !v.ch || !v.nodes) {
		zkp_snap_vanilla_release(&v);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "SnapDeals vanilla proof: no memory");
	}
	zkp_bincode_rd r;
	zkp_bincode_init(&r, buf, len, "SnapDeals vanilla proof", err);
	int rc;
	zkp_bincode_here(&r, "comm_c");
	if ((rc = zkp_bincode_fr(&r, &v.comm_c)))
		goto out;
	zkp_bincode_here(&r, "apex_leafs");
	if ((rc = zkp_bincode_len(&r, s->apex_leaves, "apex leaves for this sector size")))
		goto out;
	for (unsigned i = 0; i < s->apex_leaves; i++) {
		zkp_bincode_here(&r, "apex_leafs[%u]", i);
		if ((rc = zkp_bincode_fr(&r, &v.apex_leaves[i])))
			goto out;
	}
	zkp_bincode_here(&r, "challenge_proofs");
	if ((rc = zkp_bincode_len(&r, s->challenges, "challenges for this sector size")))
		goto out;
	zkp_fr *roots[3] = { &v.root_r_old, &v.root_d_new, &v.root_r_new };
	for (unsigned i = 0; i < s->challenges; i++) {
		zkp_snap_challenge *c = &v.ch[i];
		zkp_fr *leaf[3] = { &c->leaf_r_old, &c->leaf_d_new, &c->leaf_r_new };
		zkp_path *path[3] = { &c->r_old, &c->d_new, &c->r_new };
		for (unsigned p = 0; p < 3; p++) {
			char at[64];
			zkp_fr root;
			size_t root_at;
			snprintf(at, sizeof(at), "challenge_proofs[%u].%s", i, proof_name[p]);
			if ((rc = zkp_bincode_merkle_proof(&r, &t[p], at, leaf[p], path[p], &root,
							   &root_at)))
				goto out;
			uint64_t node = zkp_bincode_path_node(&t[p], path[p]);
			if (p == 0)
				v.nodes[i] = node;
			else if (node != v.nodes[i]) {
				zkp_bincode_here(&r, "%s.data", at);
				rc = zkp_bincode_fail(&r, root_at, ZKP_ERR_MISMATCH,
						      "the path spells leaf %" PRIu64
						      ", proof_r_old's leaf %" PRIu64,
						      node, v.nodes[i]);
				goto out;
			}
			if (i == 0)
				*roots[p] = root;
			else if (!zkp_fr_eq(&root, roots[p])) {
				rc = zkp_bincode_fail(&r, root_at, ZKP_ERR_MISMATCH,
						      "differs from challenge_proofs[0]'s root");
				goto out;
			}
		}
	}
	if ((rc = zkp_bincode_end(&r)))
		goto out;
	*ret = v;
	return 0;
out:
	zkp_snap_vanilla_release(&v);
	return rc;
}

static void short_hex(char out[17], const zkp_fr *a)
{
	uint8_t b[32];
	zkp_fr_to_le(b, a);
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int differ(zkp_error *err, const zkp_fr *got, const zkp_fr *want, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int differ(zkp_error *err, const zkp_fr *got, const zkp_fr *want, const char *fmt, ...)
{
	char what[160], g[17], w[17];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	short_hex(g, got);
	short_hex(w, want);
	return zkp_error_set(err, ZKP_ERR_MISMATCH, "SnapDeals %s: %s... where %s... is expected",
			     what, g, w);
}

int zkp_snap_vanilla_check(const zkp_snap_vanilla *v, unsigned k, unsigned h,
			   const zkp_fr *comm_r_old, const zkp_fr *comm_d_new,
			   const zkp_fr *comm_r_new, zkp_error *err)
{
	const zkp_snap_shape *s = &v->shape;
	zkp_fr pub[4], phi, x;
	int rc = zkp_snap_public_inputs(pub, s, k, h, comm_r_old, comm_d_new, comm_r_new, err);
	if (rc)
		return rc;
	const zkp_poseidon_consts *p2;
	if ((rc = zkp_poseidon_consts_get(&p2, 2)) || (rc = zkp_snap_phi(&phi, comm_d_new, comm_r_old)))
		return zkp_error_set(err, rc, "SnapDeals check: Poseidon constants");
	zkp_fr pair[2] = { v->comm_c, v->root_r_old };
	zkp_poseidon_hash(&x, p2, pair);
	if (!zkp_fr_eq(&x, comm_r_old))
		return differ(err, &x, comm_r_old, "partition %u: Poseidon-2(comm_c, root_r_old) is", k);
	pair[1] = v->root_r_new;
	zkp_poseidon_hash(&x, p2, pair);
	if (!zkp_fr_eq(&x, comm_r_new))
		return differ(err, &x, comm_r_new, "partition %u: Poseidon-2(comm_c, root_r_new) is", k);
	if (!zkp_fr_eq(&v->root_d_new, comm_d_new))
		return differ(err, &v->root_d_new, comm_d_new, "partition %u: tree D new's root is", k);

	uint64_t *want = malloc(s->challenges * sizeof(uint64_t));
	if (!want)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "SnapDeals check");
	if ((rc = zkp_snap_challenges(want, s, comm_r_new, k, err)))
		goto out;

	/* the apex tree's root */
	zkp_fr apex[128];
	unsigned n = s->apex_leaves;
	memcpy(apex, v->apex_leaves, n * sizeof(zkp_fr));
	for (; n > 1; n /= 2)
		for (unsigned i = 0; i < n / 2; i++) {
			uint8_t l[32], r[32], d[32];
			zkp_fr_to_le(l, &apex[2 * i]);
			zkp_fr_to_le(r, &apex[2 * i + 1]);
			if ((rc = zkp_fil_sha256_node(d, l, r)) || (rc = zkp_fr_from_le(&apex[i], d))) {
				rc = zkp_error_set(err, rc, "SnapDeals check: apex tree");
				goto out;
			}
		}

	zkp_tree_shape tr, td;
	zkp_snap_tree_r(s, &tr);
	zkp_snap_tree_d(s, &td);
	const unsigned cbl = zkp_snap_challenge_bits(s), pbl = zkp_snap_partition_bits(s);
	const unsigned below = cbl - pbl - zkp_snap_apex_bits(s);
	zkp_fr dn[64];
	for (unsigned i = 0; i < s->challenges; i++) {
		const zkp_snap_challenge *c = &v->ch[i];
		if (v->nodes[i] != want[i]) {
			rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
					   "SnapDeals partition %u, challenge %u: the proof is of leaf %" PRIu64
					   ", but comm_r_new challenges leaf %" PRIu64,
					   k, i, v->nodes[i], want[i]);
			goto out;
		}
		const struct {
			const zkp_tree_shape *t;
			const zkp_fr *leaf, *root;
			const zkp_path *path;
			const char *name;
			zkp_fr *nodes;
		} p[3] = {
			{ &tr, &c->leaf_r_old, &v->root_r_old, &c->r_old, "tree R old", NULL },
			{ &td, &c->leaf_d_new, &v->root_d_new, &c->d_new, "tree D new", dn },
			{ &tr, &c->leaf_r_new, &v->root_r_new, &c->r_new, "tree R new", NULL },
		};
		for (int j = 0; j < 3; j++) {
			if ((rc = zkp_merkle_walk(p[j].t, p[j].leaf, p[j].path, p[j].nodes, &x))) {
				rc = zkp_error_set(err, rc, "SnapDeals partition %u, challenge %u: %s path",
						   k, i, p[j].name);
				goto out;
			}
			if (!zkp_fr_eq(&x, p[j].root)) {
				rc = differ(err, &x, p[j].root,
					    "partition %u, challenge %u: leaf %" PRIu64 " in %s hashes to",
					    k, i, want[i], p[j].name);
				goto out;
			}
		}
		/* the apex leaf this challenge passes, and the apex root */
		unsigned ai = (unsigned)((want[i] >> below) & (s->apex_leaves - 1));
		if (!zkp_fr_eq(&dn[below], &v->apex_leaves[ai])) {
			rc = differ(err, &v->apex_leaves[ai], &dn[below],
				    "partition %u, challenge %u: apex leaf %u is", k, i, ai);
			goto out;
		}
		if (i == 0 && !zkp_fr_eq(&dn[cbl - pbl], &apex[0])) {
			rc = differ(err, &apex[0], &dn[cbl - pbl],
				    "partition %u: the root of the tree over apex_leafs is", k);
			goto out;
		}
		/* the encoding */
		zkp_fr rho;
		if ((rc = zkp_snap_rho(&rho, &phi, zkp_snap_high(s, h, want[i])))) {
			rc = zkp_error_set(err, rc, "SnapDeals check: rho");
			goto out;
		}
		zkp_fr_mul(&x, &c->leaf_d_new, &rho);
		zkp_fr_add(&x, &x, &c->leaf_r_old);
		if (!zkp_fr_eq(&x, &c->leaf_r_new)) {
			rc = differ(err, &c->leaf_r_new, &x,
				    "partition %u, challenge %u: the new replica leaf is", k, i);
			goto out;
		}
	}
out:
	free(want);
	return rc;
}

void zkp_snap_vanilla_witness(const zkp_snap_vanilla *v, unsigned k, unsigned h,
			      const zkp_fr *comm_r_old, const zkp_fr *comm_d_new,
			      const zkp_fr *comm_r_new, zkp_snap_witness *w)
{
	*w = (zkp_snap_witness){ .k = k,
				 .h = h,
				 .comm_r_old = *comm_r_old,
				 .comm_d_new = *comm_d_new,
				 .comm_r_new = *comm_r_new,
				 .comm_c = v->comm_c,
				 .root_r_old = v->root_r_old,
				 .root_r_new = v->root_r_new,
				 .apex_leaves = v->apex_leaves,
				 .challenges = v->ch };
}

int zkp_snap_vanilla_encode(uint8_t **out, size_t *len, const zkp_snap_shape *s,
			    const zkp_snap_witness *w, zkp_error *err)
{
	zkp_bincode_wr b = { 0 };
	zkp_tree_shape tr, td;
	zkp_snap_tree_r(s, &tr);
	zkp_snap_tree_d(s, &td);
	zkp_bincode_put_fr(&b, &w->comm_c);
	zkp_bincode_put_u64(&b, s->apex_leaves);
	for (unsigned i = 0; i < s->apex_leaves; i++)
		zkp_bincode_put_fr(&b, &w->apex_leaves[i]);
	zkp_bincode_put_u64(&b, s->challenges);
	for (unsigned i = 0; i < s->challenges; i++) {
		const zkp_snap_challenge *c = &w->challenges[i];
		zkp_bincode_put_merkle_proof(&b, &tr, &c->leaf_r_old, &c->r_old, &w->root_r_old);
		zkp_bincode_put_merkle_proof(&b, &td, &c->leaf_d_new, &c->d_new, &w->comm_d_new);
		zkp_bincode_put_merkle_proof(&b, &tr, &c->leaf_r_new, &c->r_new, &w->root_r_new);
	}
	if (b.failed) {
		free(b.b);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "SnapDeals vanilla proof: no memory");
	}
	*out = b.b;
	*len = b.len;
	return 0;
}
