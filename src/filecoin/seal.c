/*
 * A sector sealed in memory (include/zkpd/porep_seal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "merkle_int.h"
#include "seal_int.h"
#include "zkpd/fil_sha256.h"
#include "zkpd/poseidon.h"
#include "zkpd/porep_seal.h"

#define MAX_NODES (1ULL << 28)

struct zkp_porep_sector {
	zkp_porep_shape s;
	zkp_fr replica_id, comm_r;
	zkp_fr *data, *labels; /* labels[layer * nodes + node], layer 0-based */
	zkp_porep_parents_fn parents;
	void *ctx;
	void (*ctx_release)(void *ctx); /* set by zkp_porep_sector_adopt */
	zkp_merkle d, c, r;
};

static zkp_fr *label_at(const zkp_porep_sector *sec, unsigned layer0, uint64_t node)
{
	return &sec->labels[(uint64_t)layer0 * sec->s.nodes + node];
}

int zkp_porep_label(zkp_fr *out, const zkp_fr *replica_id, unsigned layer, uint64_t node,
		    const zkp_fr *const drg[ZKP_POREP_DRG_PARENTS],
		    const zkp_fr *const exp[ZKP_POREP_EXP_PARENTS])
{
	uint8_t msg[64 + ZKP_POREP_LABEL_PARENTS * 32], digest[32];
	size_t len = 64;

	memset(msg, 0, 64);
	zkp_fr_to_le(msg, replica_id);
	for (int i = 0; i < 4; i++)
		msg[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		msg[36 + i] = (uint8_t)(node >> (56 - 8 * i));
	if (node > 0) {
		unsigned n = layer == 1 ? ZKP_POREP_DRG_PARENTS : ZKP_POREP_PARENTS;
		for (unsigned k = 0; k < ZKP_POREP_LABEL_PARENTS; k++) {
			unsigned p = k % n;
			zkp_fr_to_le(msg + 64 + 32 * k,
				     p < ZKP_POREP_DRG_PARENTS ? drg[p] : exp[p - ZKP_POREP_DRG_PARENTS]);
		}
		len = sizeof(msg);
	}
	int rc = zkp_fil_sha256_trim(digest, msg, len);
	return rc ? rc : zkp_fr_from_le(out, digest);
}

static int make_label(zkp_porep_sector *sec, unsigned layer0, uint64_t node, zkp_error *err)
{
	const zkp_fr *drg[ZKP_POREP_DRG_PARENTS], *exp[ZKP_POREP_EXP_PARENTS];
	if (node > 0) {
		uint32_t par[ZKP_POREP_PARENTS];
		sec->parents(sec->ctx, node, par);
		for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++)
			if ((p < ZKP_POREP_DRG_PARENTS && par[p] >= node) || par[p] >= sec->s.nodes)
				return zkp_error_set(err, ZKP_ERR_INVAL,
						     "node %llu: parent %u is node %u, %s",
						     (unsigned long long)node, p, par[p],
						     p < ZKP_POREP_DRG_PARENTS ? "a DRG parent must come before its node"
									       : "past the sector");
		for (unsigned p = 0; p < ZKP_POREP_DRG_PARENTS; p++)
			drg[p] = label_at(sec, layer0, par[p]);
		for (unsigned p = 0; p < ZKP_POREP_EXP_PARENTS; p++)
			exp[p] = layer0 ? label_at(sec, layer0 - 1, par[ZKP_POREP_DRG_PARENTS + p]) : NULL;
	}
	int rc = zkp_porep_label(label_at(sec, layer0, node), &sec->replica_id, layer0 + 1, node,
				 drg, exp);
	return rc ? zkp_error_set(err, rc, "node %llu: SHA-256 failed", (unsigned long long)node) : 0;
}

static int seal(zkp_porep_sector *sec, zkp_error *err)
{
	const uint64_t N = sec->s.nodes;
	const unsigned L = sec->s.layers;
	zkp_fr *col = malloc(N * sizeof(zkp_fr)), *rep = malloc(N * sizeof(zkp_fr));
	const zkp_poseidon_consts *pc, *p2;
	zkp_tree_shape td, tcr;
	int rc = 0;

	if (!col || !rep) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a sector's trees");
		goto out;
	}
	for (unsigned l = 0; l < L; l++)
		for (uint64_t n = 0; n < N; n++)
			if ((rc = make_label(sec, l, n, err)))
				goto out;
	if ((rc = zkp_poseidon_consts_get(&pc, L)) || (rc = zkp_poseidon_consts_get(&p2, 2))) {
		zkp_error_set(err, rc, "Poseidon constants");
		goto out;
	}
	for (uint64_t n = 0; n < N; n++) {
		zkp_fr rows[ZKP_POREP_MAX_LAYERS];
		for (unsigned l = 0; l < L; l++)
			rows[l] = *label_at(sec, l, n);
		zkp_poseidon_hash(&col[n], pc, rows);
		zkp_fr_add(&rep[n], label_at(sec, L - 1, n), &sec->data[n]);
	}
	zkp_porep_tree_d(&sec->s, &td);
	zkp_porep_tree_cr(&sec->s, &tcr);
	if ((rc = zkp_merkle_build(&sec->d, &td, sec->data, N)) ||
	    (rc = zkp_merkle_build(&sec->c, &tcr, col, N)) || (rc = zkp_merkle_build(&sec->r, &tcr, rep, N))) {
		zkp_error_set(err, rc, "building the sector's trees: %s", zkp_strerror(rc));
		goto out;
	}
	zkp_fr pair[2] = { *zkp_merkle_root(&sec->c), *zkp_merkle_root(&sec->r) };
	zkp_poseidon_hash(&sec->comm_r, p2, pair);
out:
	free(col);
	free(rep);
	return rc;
}

int zkp_porep_comm_d(zkp_fr *ret, const zkp_porep_shape *s, const zkp_fr *data, zkp_error *err)
{
	zkp_merkle t = { 0 };
	zkp_tree_shape td;
	zkp_porep_tree_d(s, &td);
	int rc = zkp_merkle_build(&t, &td, data, s->nodes);
	if (rc)
		zkp_error_set(err, rc, "tree D: %s", zkp_strerror(rc));
	else
		*ret = *zkp_merkle_root(&t);
	zkp_merkle_free(&t);
	return rc;
}

int zkp_porep_sector_seal(zkp_porep_sector **ret, const zkp_porep_shape *s, const zkp_fr *data,
			  const zkp_fr *replica_id, zkp_porep_parents_fn parents, void *ctx,
			  zkp_error *err)
{
	*ret = NULL;
	int rc = zkp_porep_shape_check(s, err);
	if (rc)
		return rc;
	if (s->nodes > MAX_NODES)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "%llu nodes: a sector sealed in memory holds at most 2^28",
				     (unsigned long long)s->nodes);
	zkp_porep_sector *sec = calloc(1, sizeof(*sec));
	if (!sec)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a sector");
	sec->s = *s;
	sec->replica_id = *replica_id;
	sec->parents = parents;
	sec->ctx = ctx;
	sec->data = malloc(s->nodes * sizeof(zkp_fr));
	sec->labels = malloc(s->nodes * s->layers * sizeof(zkp_fr));
	if (!sec->data || !sec->labels)
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %llu nodes",
				   (unsigned long long)s->nodes);
	else {
		memcpy(sec->data, data, s->nodes * sizeof(zkp_fr));
		rc = seal(sec, err);
	}
	if (rc) {
		zkp_porep_sector_free(sec);
		return rc;
	}
	*ret = sec;
	return 0;
}

void zkp_porep_sector_adopt(zkp_porep_sector *sec, void (*release)(void *ctx))
{
	sec->ctx_release = release;
}

void zkp_porep_sector_free(zkp_porep_sector *sec)
{
	if (!sec)
		return;
	if (sec->ctx_release)
		sec->ctx_release(sec->ctx);
	zkp_merkle_free(&sec->d);
	zkp_merkle_free(&sec->c);
	zkp_merkle_free(&sec->r);
	free(sec->data);
	free(sec->labels);
	free(sec);
}

const zkp_porep_shape *zkp_porep_sector_shape(const zkp_porep_sector *sec) { return &sec->s; }
const zkp_fr *zkp_porep_sector_replica_id(const zkp_porep_sector *sec) { return &sec->replica_id; }
const zkp_fr *zkp_porep_sector_comm_d(const zkp_porep_sector *sec) { return zkp_merkle_root(&sec->d); }
const zkp_fr *zkp_porep_sector_comm_c(const zkp_porep_sector *sec) { return zkp_merkle_root(&sec->c); }
const zkp_fr *zkp_porep_sector_comm_r_last(const zkp_porep_sector *sec) { return zkp_merkle_root(&sec->r); }
const zkp_fr *zkp_porep_sector_replica(const zkp_porep_sector *sec) { return sec->r.level[0]; }
const zkp_fr *zkp_porep_sector_comm_r(const zkp_porep_sector *sec) { return &sec->comm_r; }

const zkp_fr *zkp_porep_sector_label(const zkp_porep_sector *sec, unsigned layer, uint64_t node)
{
	return label_at(sec, layer - 1, node);
}

void zkp_porep_sector_challenge(const zkp_porep_sector *sec, uint64_t node,
				zkp_porep_c1_challenge *out)
{
	const unsigned L = sec->s.layers;
	zkp_porep_challenge *ch = &out->ch;
	uint32_t par[ZKP_POREP_PARENTS];

	memset(out, 0, sizeof(*out));
	sec->parents(sec->ctx, node, par);
	ch->node = node;
	ch->data_leaf = sec->data[node];
	zkp_merkle_path(&sec->d, node, &ch->comm_d_path);
	for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++) {
		for (unsigned l = 0; l < L; l++)
			ch->parent_rows[p][l] = *label_at(sec, l, par[p]);
		zkp_merkle_path(&sec->c, par[p], &ch->parent_paths[p]);
		out->parent_nodes[p] = par[p];
	}
	zkp_merkle_path(&sec->r, node, &ch->comm_r_last_path);
	zkp_merkle_path(&sec->c, node, &ch->comm_c_path);
	out->column_index = (uint32_t)node;
	for (unsigned l = 0; l < L; l++)
		out->column_rows[l] = *label_at(sec, l, node);
	out->comm_r_last_leaf = sec->r.level[0][node];
	out->roots[0] = *zkp_merkle_root(&sec->d);
	out->roots[1] = *zkp_merkle_root(&sec->r);
	out->roots[2] = *zkp_merkle_root(&sec->c);
}
