/*
 * The sparse development sealer (include/zkpd/porep_sparse.h).
 *
 * Each step needs the one before:
 *  1. tree D, a periodic tree over one period of data: comm_d;
 *  2. replica_id from comm_d;
 *  3. every partition's challenges from replica_id and the seed;
 *  4. the challenged nodes' parents from Filecoin's graph;
 *  5. their labels, layer by layer and, within a layer, in increasing node
 *     order: a DRG parent comes before its node and an expander parent's
 *     label is from the layer below, so a challenged parent's label is
 *     always computed before a label that reads it;
 *  6. the opened leaves: columns of the challenged nodes and their parents
 *     (tree C), label_L + data of the challenged nodes (tree R);
 *  7. sparse trees C and R, and tree D again as a sparse tree over the
 *     challenged data leaves (it must give comm_d back);
 *  8. comm_r, then each challenge's vanilla proof read off the trees.
 */
#include <stdlib.h>
#include <string.h>

#include "le_bytes.h"
#include "merkle_int.h"
#include "seal_int.h"
#include "zkpd/poseidon.h"
#include "zkpd/porep_sparse.h"

/* ---- the PRF ---- */

static const char key_tag[] = "zkpd sparse development sector";

void zkp_porep_sparse_key(uint8_t key[32], uint64_t seed)
{
	uint8_t msg[sizeof(key_tag) - 1 + 8];
	memcpy(msg, key_tag, sizeof(key_tag) - 1);
	zkp_put_le(msg + sizeof(key_tag) - 1, seed, 8);
	zkp_porep_blake2b(key, 32, NULL, 0, msg, sizeof(msg));
}

/* BLAKE2b-512 keyed with key over domain || a (u32 LE) || b (u32 LE) ||
 * c (u64 LE). */
static void prf(uint8_t out[64], const uint8_t key[32], uint8_t domain, uint32_t a, uint32_t b,
		uint64_t c)
{
	uint8_t msg[17];
	msg[0] = domain;
	zkp_put_le(msg + 1, a, 4);
	zkp_put_le(msg + 5, b, 4);
	zkp_put_le(msg + 9, c, 8);
	zkp_porep_blake2b(out, 64, key, 32, msg, sizeof(msg));
}

/* The first 32 bytes below 2^254 (trim_to_fr32), so always canonical. */
static void fr_trimmed(zkp_fr *out, uint8_t b[64])
{
	b[31] &= 0x3f;
	zkp_fr_from_le(out, b);
}

void zkp_porep_sparse_label(zkp_fr *out, const uint8_t key[32], unsigned layer, uint64_t node)
{
	uint8_t b[64];
	prf(b, key, 'L', layer, 0, node);
	fr_trimmed(out, b);
}

void zkp_porep_sparse_data(zkp_fr *out, const uint8_t key[32], uint64_t node)
{
	uint8_t b[64];
	prf(b, key, 'D', 0, 0, node % ZKP_POREP_SPARSE_PERIOD);
	fr_trimmed(out, b);
}

void zkp_porep_sparse_node(zkp_fr *out, const uint8_t key[32], zkp_porep_sparse_tree tree,
			   unsigned level, uint64_t index)
{
	uint8_t b[64];
	uint64_t wide[8];
	prf(b, key, 'T', (uint32_t)tree, level, index);
	for (int i = 0; i < 8; i++)
		wide[i] = zkp_get_le(b + 8 * i, 8);
	zkp_fr_from_wide(out, wide);
}

/* ---- the sealer's state ---- */

struct sealer {
	const zkp_porep_proof *p;
	const uint8_t *key;
	zkp_porep_shape s;
	zkp_tree_shape td, tcr;
	zkp_pool *pool;
	const zkp_poseidon_consts *pc; /* the column hash, arity L */
	zkp_fr replica_id, comm_d;

	zkp_merkle_periodic data; /* tree D, whole */

	uint64_t *chall;  /* partitions * challenges, in C1 order */
	uint64_t *cn;     /* the distinct challenged nodes, increasing */
	uint64_t m;
	uint32_t (*par)[ZKP_POREP_PARENTS]; /* m: each one's parents */
	zkp_fr *lab;      /* m * L: each one's labels */

	uint64_t *open;   /* the opened columns' nodes, increasing */
	uint64_t nopen;
	zkp_fr *col;      /* nopen * L */
	zkp_fr *col_leaf; /* nopen: Poseidon-L of each column */

	zkp_merkle_sparse d, c, r;
};

/* Where v sits in a[n] (increasing), or n. */
static uint64_t find(const uint64_t *a, uint64_t n, uint64_t v)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == v ? lo : n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorts a[n] and drops repeats; returns the new count. */
static uint64_t sort_unique(uint64_t *a, uint64_t n)
{
	qsort(a, n, sizeof(*a), cmp_u64);
	uint64_t m = 0;
	for (uint64_t i = 0; i < n; i++)
		if (m == 0 || a[m - 1] != a[i])
			a[m++] = a[i];
	return m;
}

/* ---- 1. tree D ---- */

struct data_job {
	const uint8_t *key;
	zkp_fr *data;
};

static void data_chunk(void *arg, size_t begin, size_t end)
{
	struct data_job *j = arg;
	for (size_t n = begin; n < end; n++)
		zkp_porep_sparse_data(&j->data[n], j->key, n);
}

static int tree_d(struct sealer *st, zkp_error *err)
{
	const uint64_t P = st->s.nodes < ZKP_POREP_SPARSE_PERIOD ? st->s.nodes : ZKP_POREP_SPARSE_PERIOD;
	struct data_job j = { st->key, malloc(P * sizeof(zkp_fr)) };
	int rc;

	if (!j.data)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %llu nodes of data",
				     (unsigned long long)P);
	zkp_pool_run(st->pool, (size_t)P, 0, data_chunk, &j);
	rc = zkp_merkle_periodic_build(&st->data, &st->td, st->s.nodes, j.data, P, err);
	if (!rc)
		st->comm_d = *zkp_merkle_periodic_root(&st->data);
	free(j.data);
	return rc;
}

/* ---- 3-5. challenges, parents, labels ---- */

static int challenges(struct sealer *st, const uint8_t seed[32], zkp_error *err)
{
	const zkp_porep_proof *p = st->p;
	const uint64_t n = (uint64_t)p->partitions * p->challenges;
	uint8_t rid[32];
	int rc;

	st->chall = malloc(n * sizeof(uint64_t));
	st->cn = malloc(n * sizeof(uint64_t));
	if (!st->chall || !st->cn)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %llu challenges",
				     (unsigned long long)n);
	zkp_fr_to_le(rid, &st->replica_id);
	for (unsigned k = 0; k < p->partitions; k++)
		if ((rc = zkp_porep_challenges(st->chall + (uint64_t)k * p->challenges, p->mode,
					       p->nodes, p->challenges, k, rid, seed, NULL, err)))
			return rc;
	memcpy(st->cn, st->chall, n * sizeof(uint64_t));
	st->m = sort_unique(st->cn, n);
	return 0;
}

static int parents(struct sealer *st, zkp_error *err)
{
	zkp_porep_graph g = { 0 };
	int rc;

	st->par = malloc(st->m * sizeof(*st->par));
	if (!st->par)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for parents");
	/* A few hundred nodes: the round function is computed as needed, not
	 * tabulated (porep_graph.h). */
	if ((rc = zkp_porep_graph_init_proof(&g, st->p, err)))
		return rc;
	for (uint64_t i = 0; i < st->m && !rc; i++)
		if (!(rc = zkp_porep_drg_parents(&g, st->cn[i], st->par[i], err)))
			rc = zkp_porep_exp_parents(&g, st->cn[i], st->par[i] + ZKP_POREP_DRG_PARENTS,
						   err);
	zkp_porep_graph_release(&g);
	return rc;
}

/* The label of node in layer (1-based): computed if it is challenged (and
 * already labelled: see the order above), else the PRF's. */
static const zkp_fr *label_of(const struct sealer *st, unsigned layer, uint64_t node, zkp_fr *tmp)
{
	uint64_t at = find(st->cn, st->m, node);
	if (at < st->m)
		return &st->lab[at * st->s.layers + layer - 1];
	zkp_porep_sparse_label(tmp, st->key, layer, node);
	return tmp;
}

static int labels(struct sealer *st, zkp_error *err)
{
	const unsigned L = st->s.layers;
	st->lab = malloc(st->m * L * sizeof(zkp_fr));
	if (!st->lab)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for labels");
	for (unsigned layer = 1; layer <= L; layer++)
		for (uint64_t i = 0; i < st->m; i++) {
			const zkp_fr *drg[ZKP_POREP_DRG_PARENTS], *exp[ZKP_POREP_EXP_PARENTS] = { 0 };
			zkp_fr tmp[ZKP_POREP_PARENTS];
			for (unsigned q = 0; q < ZKP_POREP_DRG_PARENTS; q++)
				drg[q] = label_of(st, layer, st->par[i][q], &tmp[q]);
			for (unsigned q = 0; layer > 1 && q < ZKP_POREP_EXP_PARENTS; q++)
				exp[q] = label_of(st, layer - 1, st->par[i][ZKP_POREP_DRG_PARENTS + q],
						  &tmp[ZKP_POREP_DRG_PARENTS + q]);
			int rc = zkp_porep_label(&st->lab[i * L + layer - 1], &st->replica_id, layer,
						 st->cn[i], drg, exp);
			if (rc)
				return zkp_error_set(err, rc, "label of node %llu in layer %u: SHA-256 failed",
						     (unsigned long long)st->cn[i], layer);
		}
	return 0;
}

/* ---- 6. the opened columns ---- */

static void column_chunk(void *arg, size_t begin, size_t end)
{
	struct sealer *st = arg;
	const unsigned L = st->s.layers;
	for (size_t i = begin; i < end; i++) {
		zkp_fr *rows = &st->col[i * L];
		for (unsigned l = 1; l <= L; l++)
			rows[l - 1] = *label_of(st, l, st->open[i], &rows[l - 1]);
		zkp_poseidon_hash(&st->col_leaf[i], st->pc, rows);
	}
}

static int columns(struct sealer *st, zkp_error *err)
{
	const uint64_t n = st->m * (1 + ZKP_POREP_PARENTS);
	st->open = malloc(n * sizeof(uint64_t));
	if (!st->open)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the opened columns");
	memcpy(st->open, st->cn, st->m * sizeof(uint64_t));
	for (uint64_t i = 0; i < st->m; i++)
		for (unsigned q = 0; q < ZKP_POREP_PARENTS; q++)
			st->open[st->m + i * ZKP_POREP_PARENTS + q] = st->par[i][q];
	st->nopen = sort_unique(st->open, n);
	st->col = malloc(st->nopen * st->s.layers * sizeof(zkp_fr));
	st->col_leaf = malloc(st->nopen * sizeof(zkp_fr));
	if (!st->col || !st->col_leaf)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %llu columns",
				     (unsigned long long)st->nopen);
	zkp_pool_run(st->pool, (size_t)st->nopen, 0, column_chunk, st);
	return 0;
}

/* ---- 7. the sparse trees ---- */

struct fill_prf {
	const uint8_t *key;
	zkp_porep_sparse_tree tree;
};

static int fill_prf(void *ctx, unsigned level, uint64_t index, zkp_fr *out, zkp_error *err)
{
	const struct fill_prf *f = ctx;
	(void)err;
	zkp_porep_sparse_node(out, f->key, f->tree, level, index);
	return 0;
}

static int trees(struct sealer *st, zkp_error *err)
{
	const unsigned L = st->s.layers;
	zkp_fr *rleaf = malloc(st->m * sizeof(zkp_fr)), *dleaf = malloc(st->m * sizeof(zkp_fr));
	struct fill_prf fc = { st->key, ZKP_POREP_SPARSE_TREE_C }, fr = { st->key, ZKP_POREP_SPARSE_TREE_R };
	int rc;

	if (!rleaf || !dleaf) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for tree R's leaves");
		goto out;
	}
	for (uint64_t i = 0; i < st->m; i++) {
		zkp_porep_sparse_data(&dleaf[i], st->key, st->cn[i]);
		zkp_fr_add(&rleaf[i], &st->lab[i * L + L - 1], &dleaf[i]); /* encode */
	}
	if ((rc = zkp_merkle_sparse_build(&st->c, &st->tcr, st->s.nodes, st->open, st->col_leaf,
					  st->nopen, fill_prf, &fc, st->pool, err)) ||
	    (rc = zkp_merkle_sparse_build(&st->r, &st->tcr, st->s.nodes, st->cn, rleaf, st->m,
					  fill_prf, &fr, st->pool, err)) ||
	    (rc = zkp_merkle_sparse_build(&st->d, &st->td, st->s.nodes, st->cn, dleaf, st->m,
					  zkp_merkle_periodic_fill, &st->data, st->pool, err)))
		goto out;
	if (!zkp_fr_eq(zkp_merkle_sparse_root(&st->d), &st->comm_d))
		rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
				   "tree D over the challenged leaves does not give the comm_d of the whole sector");
out:
	free(rleaf);
	free(dleaf);
	return rc;
}

static uint64_t hashed(const zkp_merkle_sparse *t)
{
	uint64_t n = 0;
	for (unsigned l = 0; l < t->nlevels; l++)
		n += t->count[l] / zkp_tree_level_arity(&t->shape, l);
	return n;
}

/* ---- 8. the vanilla proofs ---- */

static void rows_of(const struct sealer *st, uint64_t node, zkp_fr *rows)
{
	uint64_t at = find(st->open, st->nopen, node);
	memcpy(rows, &st->col[at * st->s.layers], st->s.layers * sizeof(zkp_fr));
}

static int proof(const struct sealer *st, zkp_porep_c1 *c1, size_t j, zkp_error *err)
{
	const uint64_t node = st->chall[j], at = find(st->cn, st->m, node);
	zkp_porep_c1_challenge *o = &c1->ch[j];
	zkp_porep_challenge *ch = &o->ch;
	int rc;

	memset(o, 0, sizeof(*o));
	ch->node = node;
	zkp_porep_sparse_data(&ch->data_leaf, st->key, node);
	if ((rc = zkp_merkle_sparse_path(&st->d, node, &ch->comm_d_path)) ||
	    (rc = zkp_merkle_sparse_path(&st->r, node, &ch->comm_r_last_path)) ||
	    (rc = zkp_merkle_sparse_path(&st->c, node, &ch->comm_c_path)))
		goto fail;
	for (unsigned q = 0; q < ZKP_POREP_PARENTS; q++) {
		uint32_t pq = st->par[at][q];
		o->parent_nodes[q] = pq;
		rows_of(st, pq, ch->parent_rows[q]);
		if ((rc = zkp_merkle_sparse_path(&st->c, pq, &ch->parent_paths[q])))
			goto fail;
	}
	o->column_index = (uint32_t)node;
	rows_of(st, node, o->column_rows);
	o->comm_r_last_leaf = *zkp_merkle_sparse_node(&st->r, 0, node);
	o->roots[0] = st->comm_d;
	o->roots[1] = *zkp_merkle_sparse_root(&st->r);
	o->roots[2] = *zkp_merkle_sparse_root(&st->c);
	c1->wit[j] = *ch;
	return 0;
fail:
	return zkp_error_set(err, rc, "challenge %zu (node %llu): a path the sparse trees do not hold",
			     j, (unsigned long long)node);
}

static void sealer_release(struct sealer *st)
{
	zkp_merkle_periodic_free(&st->data);
	zkp_merkle_sparse_free(&st->d);
	zkp_merkle_sparse_free(&st->c);
	zkp_merkle_sparse_free(&st->r);
	free(st->chall);
	free(st->cn);
	free(st->par);
	free(st->lab);
	free(st->open);
	free(st->col);
	free(st->col_leaf);
}

int zkp_porep_sparse_c1(zkp_porep_c1 **ret, const zkp_porep_proof *p, const uint8_t key[32],
			const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
			const uint8_t seed[32], zkp_pool *pool, zkp_porep_sparse_stats *stats,
			zkp_error *err)
{
	struct sealer st = { .p = p, .key = key, .pool = pool };
	zkp_porep_c1 *c1 = NULL;
	const zkp_poseidon_consts *p2;
	int rc;

	*ret = NULL;
	if (p->mode != ZKP_POREP_INTERACTIVE)
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
				     "%s: a sparse seal needs interactive PoRep; %s PoRep draws its challenges from comm_r, which a sparse tree C cannot fix before the challenges are known",
				     p->name, zkp_porep_mode_name(p->mode));
	if ((rc = seal_c1_new(&c1, p, ticket, seed, err)))
		return rc;
	st.s = c1->shape;
	zkp_porep_tree_d(&st.s, &st.td);
	zkp_porep_tree_cr(&st.s, &st.tcr);
	if ((rc = zkp_poseidon_consts_get(&st.pc, st.s.layers)) ||
	    (rc = zkp_poseidon_consts_get(&p2, 2))) {
		zkp_error_set(err, rc, "Poseidon constants");
		goto out;
	}
	if ((rc = tree_d(&st, err)) ||
	    (rc = seal_replica_id(&st.replica_id, p, &st.comm_d, prover_id, sector_id, ticket,
				  err)) ||
	    (rc = challenges(&st, seed, err)) || (rc = parents(&st, err)) ||
	    (rc = labels(&st, err)) || (rc = columns(&st, err)) || (rc = trees(&st, err)))
		goto out;

	zkp_fr comm_r, pair[2] = { *zkp_merkle_sparse_root(&st.c), *zkp_merkle_sparse_root(&st.r) };
	zkp_poseidon_hash(&comm_r, p2, pair);
	seal_c1_commit(c1, &st.comm_d, &st.replica_id, &comm_r);
	for (unsigned k = 0; k < c1->partitions; k++) {
		c1->comm_c[k] = pair[0];
		c1->comm_r_last[k] = pair[1];
	}
	for (size_t j = 0; j < (size_t)c1->partitions * c1->challenges; j++)
		if ((rc = proof(&st, c1, j, err)))
			goto out;
	if (stats)
		*stats = (zkp_porep_sparse_stats){ .challenged = st.m,
						   .columns = st.nopen,
						   .labels = st.m * st.s.layers,
						   .hashes = hashed(&st.c) + hashed(&st.r) + hashed(&st.d) };
out:
	sealer_release(&st);
	if (rc)
		zkp_porep_c1_free(c1);
	else
		*ret = c1;
	return rc;
}
