/*
 * The sparse development sealer (porep_sparse.h) and the trees it builds
 * (src/filecoin/merkle_int.h):
 *  - a sparse tree given every leaf has the full tree's root and paths;
 *    given a few leaves and filled from a full tree, the same; a periodic
 *    tree is the full tree of its repeated leaves; bad input is refused;
 *  - on 2 KiB sectors over many seeds (so that challenges collide with
 *    each other's parents), a node's column is the same wherever the C1
 *    shows it: the PRF's labels for a node that is not challenged, the
 *    labels SDR computes from its parents for one that is;
 *  - at every published size, every partition's public inputs derive from
 *    the C1 (challenges, parents, challenged labels), every path leads to
 *    its root, comm_r = Poseidon-2(comm_c, comm_r_last), comm_d is the
 *    periodic data's; up to 8 MiB the C1 reads back, the same seed gives
 *    the same bytes and another seed another sector;
 *  - synthetic and non-interactive proof versions are refused.
 * The row-by-row check of sparse C1s against the circuit is in
 * test_porep_c2 (2 KiB) and the integration tests (32 GiB).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "merkle_int.h"
#include "testutil.h"
#include "zkpd/porep_c2.h"
#include "zkpd/porep_seal.h"
#include "zkpd/porep_sparse.h"
#include "zkpd/poseidon.h"

static const uint8_t prover_id[32] = { 7 }, ticket[32] = { 11, 1 }, seed[32] = { 13, 2 };

/* ---- trees ---- */

static void random_leaves(zkp_fr *v, uint64_t n, enum zkp_tree_hash h)
{
	for (uint64_t i = 0; i < n; i++) {
		uint8_t b[32];
		tu_rand_bytes(b, 32);
		if (h == ZKP_TREE_SHA256)
			b[31] &= 0x3f;
		else
			b[31] &= 0x1f; /* below r */
		assert_int_equal(zkp_fr_from_le(&v[i], b), 0);
	}
}

static uint64_t leaves_of(const zkp_tree_shape *t)
{
	uint64_t n = 1;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++)
		n *= zkp_tree_level_arity(t, l);
	return n;
}

static void assert_path_eq(const zkp_path *a, const zkp_path *b, const zkp_tree_shape *t)
{
	unsigned sib = 0;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++) {
		assert_int_equal(a->index[l], b->index[l]);
		sib += zkp_tree_level_arity(t, l) - 1;
	}
	for (unsigned k = 0; k < sib; k++)
		assert_true(zkp_fr_eq(&a->siblings[k], &b->siblings[k]));
}

/* A fill function answering a full tree's nodes. */
static int fill_full(void *ctx, unsigned level, uint64_t index, zkp_fr *out, zkp_error *err)
{
	const zkp_merkle *t = ctx;
	(void)err;
	assert_true(index < t->count[level]);
	*out = t->level[level][index];
	return 0;
}

static int fill_never(void *ctx, unsigned level, uint64_t index, zkp_fr *out, zkp_error *err)
{
	(void)ctx;
	(void)out;
	return zkp_error_set(err, ZKP_ERR_INVAL, "asked for node %llu of level %u",
			     (unsigned long long)index, level);
}

static const zkp_tree_shape shapes[] = {
	{ ZKP_TREE_SHA256, 6, { 2, 0, 0 } },   /* tree D of 2 KiB */
	{ ZKP_TREE_POSEIDON, 2, { 8, 0, 0 } }, /* trees C/R of 2 KiB */
	{ ZKP_TREE_POSEIDON, 2, { 8, 8, 0 } }, /* 32 GiB's shape, small */
	{ ZKP_TREE_POSEIDON, 2, { 8, 8, 2 } }, /* 64 GiB's */
	{ ZKP_TREE_POSEIDON, 3, { 4, 2, 0 } },
};

static void test_sparse_tree_whole(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const zkp_tree_shape *t = &shapes[s];
		uint64_t n = leaves_of(t);
		zkp_fr *v = malloc(n * sizeof(zkp_fr));
		uint64_t *idx = malloc(n * sizeof(uint64_t));
		assert_non_null(v);
		assert_non_null(idx);
		random_leaves(v, n, t->hash);
		for (uint64_t i = 0; i < n; i++)
			idx[i] = n - 1 - i; /* any order */
		zkp_fr *rev = malloc(n * sizeof(zkp_fr));
		assert_non_null(rev);
		for (uint64_t i = 0; i < n; i++)
			rev[i] = v[n - 1 - i];
		zkp_merkle full = { 0 };
		zkp_merkle_sparse sp = { 0 };
		zkp_error err = { 0 };
		zkp_pool *pool;
		assert_int_equal(zkp_pool_new(&pool, 1), 0);
		assert_int_equal(zkp_merkle_build(&full, t, v, n), 0);
		if (zkp_merkle_sparse_build(&sp, t, n, idx, rev, n, fill_never, NULL, pool, &err))
			fail_msg("shape %zu: %s", s, err.msg);
		assert_true(zkp_fr_eq(zkp_merkle_sparse_root(&sp), zkp_merkle_root(&full)));
		for (uint64_t i = 0; i < n; i++) {
			zkp_path a, b;
			zkp_merkle_path(&full, i, &a);
			assert_int_equal(zkp_merkle_sparse_path(&sp, i, &b), 0);
			assert_path_eq(&a, &b, t);
		}
		zkp_merkle_sparse_free(&sp);
		zkp_merkle_free(&full);
		zkp_pool_free(pool);
		free(v);
		free(rev);
		free(idx);
	}
}

static void test_sparse_tree_filled(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const zkp_tree_shape *t = &shapes[s];
		uint64_t n = leaves_of(t), idx[6];
		zkp_fr *v = malloc(n * sizeof(zkp_fr)), given[6];
		assert_non_null(v);
		random_leaves(v, n, t->hash);
		zkp_merkle full = { 0 };
		assert_int_equal(zkp_merkle_build(&full, t, v, n), 0);
		for (int k = 0; k < 6; k++) {
			idx[k] = k == 5 ? idx[0] : tu_rand64() % n; /* one twice */
			given[k] = v[idx[k]];
		}
		zkp_merkle_sparse sp = { 0 };
		zkp_error err = { 0 };
		if (zkp_merkle_sparse_build(&sp, t, n, idx, given, 6, fill_full, &full, NULL, &err))
			fail_msg("shape %zu: %s", s, err.msg);
		assert_true(zkp_fr_eq(zkp_merkle_sparse_root(&sp), zkp_merkle_root(&full)));
		for (int k = 0; k < 6; k++) {
			zkp_path a, b;
			zkp_merkle_path(&full, idx[k], &a);
			assert_int_equal(zkp_merkle_sparse_path(&sp, idx[k], &b), 0);
			assert_path_eq(&a, &b, t);
			/* a filled leaf beside it has its full path too */
			uint64_t nb = idx[k] ^ 1;
			zkp_merkle_path(&full, nb, &a);
			assert_int_equal(zkp_merkle_sparse_path(&sp, nb, &b), 0);
			assert_path_eq(&a, &b, t);
			assert_true(zkp_fr_eq(zkp_merkle_sparse_node(&sp, 0, idx[k]), &v[idx[k]]));
		}
		/* a leaf in no held group has no path */
		uint64_t a0 = zkp_tree_level_arity(t, 0), far = n;
		for (uint64_t c = 0; c < n && far == n; c += a0) {
			bool held = false;
			for (int k = 0; k < 6; k++)
				held |= idx[k] / a0 == c / a0;
			if (!held)
				far = c;
		}
		zkp_path p;
		if (far < n)
			assert_int_equal(zkp_merkle_sparse_path(&sp, far, &p), ZKP_ERR_INVAL);

		/* one leaf twice with two values; a leaf past the tree; a leaf
		 * count the shape does not hold */
		zkp_merkle_sparse bad = { 0 };
		given[5] = v[idx[0] ^ 1];
		if (!zkp_fr_eq(&given[5], &given[0])) {
			assert_int_equal(zkp_merkle_sparse_build(&bad, t, n, idx, given, 6, fill_full,
								 &full, NULL, &err),
					 ZKP_ERR_INVAL);
			assert_non_null(strstr(err.msg, "given twice"));
		}
		zkp_merkle_sparse_free(&bad);
		idx[5] = n;
		assert_int_equal(zkp_merkle_sparse_build(&bad, t, n, idx, given, 6, fill_full, &full,
							 NULL, &err),
				 ZKP_ERR_INVAL);
		zkp_merkle_sparse_free(&bad);
		assert_int_equal(zkp_merkle_sparse_build(&bad, t, n * 2, idx, given, 5, fill_full,
							 &full, NULL, &err),
				 ZKP_ERR_INVAL);
		zkp_merkle_sparse_free(&bad);
		zkp_merkle_sparse_free(&sp);
		zkp_merkle_free(&full);
		free(v);
	}
}

static void test_periodic_tree(void **state)
{
	(void)state;
	static const struct {
		zkp_tree_shape t;
		uint64_t period;
	} cases[] = {
		{ { ZKP_TREE_SHA256, 8, { 2, 0, 0 } }, 8 },
		{ { ZKP_TREE_SHA256, 8, { 2, 0, 0 } }, 256 },
		{ { ZKP_TREE_SHA256, 8, { 2, 0, 0 } }, 1 },
		{ { ZKP_TREE_POSEIDON, 2, { 8, 8, 2 } }, 8 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const zkp_tree_shape *t = &cases[c].t;
		uint64_t n = leaves_of(t), P = cases[c].period, idx[3];
		zkp_fr *v = malloc(n * sizeof(zkp_fr)), given[3];
		assert_non_null(v);
		random_leaves(v, P, t->hash);
		for (uint64_t i = P; i < n; i++)
			v[i] = v[i % P];
		zkp_merkle full = { 0 };
		zkp_merkle_periodic per = { 0 };
		zkp_merkle_sparse sp = { 0 };
		zkp_error err = { 0 };
		assert_int_equal(zkp_merkle_build(&full, t, v, n), 0);
		if (zkp_merkle_periodic_build(&per, t, n, v, P, &err))
			fail_msg("case %zu: %s", c, err.msg);
		assert_true(zkp_fr_eq(zkp_merkle_periodic_root(&per), zkp_merkle_root(&full)));
		for (unsigned l = 0; l <= full.nlevels; l++)
			for (uint64_t i = 0; i < full.count[l]; i++) {
				zkp_fr x;
				assert_int_equal(zkp_merkle_periodic_fill(&per, l, i, &x, &err), 0);
				assert_true(zkp_fr_eq(&x, &full.level[l][i]));
			}
		for (int k = 0; k < 3; k++) {
			idx[k] = tu_rand64() % n;
			given[k] = v[idx[k]];
		}
		assert_int_equal(zkp_merkle_sparse_build(&sp, t, n, idx, given, 3,
							 zkp_merkle_periodic_fill, &per, NULL, &err),
				 0);
		assert_true(zkp_fr_eq(zkp_merkle_sparse_root(&sp), zkp_merkle_root(&full)));
		zkp_merkle_sparse_free(&sp);
		zkp_merkle_periodic_free(&per);
		zkp_merkle_free(&full);
		free(v);
	}
	/* a period that is no power of the base arity, or does not divide */
	zkp_tree_shape t = { ZKP_TREE_POSEIDON, 2, { 8, 8, 0 } };
	zkp_merkle_periodic per = { 0 };
	zkp_fr v[16] = { 0 };
	zkp_error err = { 0 };
	assert_int_equal(zkp_merkle_periodic_build(&per, &t, 512, v, 16, &err), ZKP_ERR_INVAL);
	zkp_merkle_periodic_free(&per);
}

/* ---- sparse C1s ---- */

static zkp_porep_c1 *sparse(const char *name, uint64_t random, uint64_t sector_id,
			    zkp_pool *pool)
{
	const zkp_porep_proof *p;
	zkp_error err = { 0 };
	uint8_t key[32];
	zkp_porep_c1 *c1 = NULL;
	assert_int_equal(zkp_porep_proof_lookup(&p, name, &err), 0);
	zkp_porep_sparse_key(key, random);
	if (zkp_porep_sparse_c1(&c1, p, key, prover_id, sector_id, ticket, seed, pool, NULL, &err))
		fail_msg("%s: %s", name, err.msg);
	return c1;
}

/* Where node's column was first seen, to compare later sightings with. */
struct sighting {
	uint64_t node;
	const zkp_fr *rows;
};

static const zkp_fr *seen(struct sighting *s, size_t *n, uint64_t node, const zkp_fr *rows)
{
	for (size_t i = 0; i < *n; i++)
		if (s[i].node == node)
			return s[i].rows;
	s[*n].node = node;
	s[(*n)++].rows = rows;
	return NULL;
}

static void test_prf_consistency(void **state)
{
	(void)state;
	uint8_t key[32];
	unsigned parent_challenged = 0, repeated = 0, same_challenge = 0;
	for (uint64_t r = 1; r <= 40; r++) {
		zkp_porep_c1 *c1 = sparse("StackedDrg2KiBV1_1", r, 100 + r, NULL);
		const unsigned L = c1->shape.layers, n = c1->partitions * c1->challenges;
		struct sighting s[64];
		size_t ns = 0;
		zkp_porep_sparse_key(key, r);
		for (unsigned j = 0; j < n; j++) {
			const zkp_porep_c1_challenge *ch = &c1->ch[j];
			const zkp_fr *prev = seen(s, &ns, ch->column_index, ch->column_rows);
			if (prev) {
				same_challenge++;
				assert_memory_equal(prev, ch->column_rows, L * sizeof(zkp_fr));
			}
			for (unsigned q = 0; q < ZKP_POREP_PARENTS; q++) {
				prev = seen(s, &ns, ch->parent_nodes[q], ch->ch.parent_rows[q]);
				if (prev) {
					repeated++;
					assert_memory_equal(prev, ch->ch.parent_rows[q], L * sizeof(zkp_fr));
				}
			}
		}
		/* each node: computed labels if challenged, the PRF's if not */
		for (size_t i = 0; i < ns; i++) {
			bool challenged = false;
			for (unsigned j = 0; j < n; j++)
				challenged |= c1->ch[j].ch.node == s[i].node;
			for (unsigned l = 1; l <= L; l++) {
				zkp_fr want;
				zkp_porep_sparse_label(&want, key, l, s[i].node);
				if (challenged)
					assert_false(zkp_fr_eq(&want, &s[i].rows[l - 1]));
				else
					assert_true(zkp_fr_eq(&want, &s[i].rows[l - 1]));
			}
		}
		for (unsigned j = 0; j < n; j++) {
			const zkp_porep_c1_challenge *ch = &c1->ch[j];
			for (unsigned i = 0; i < n; i++)
				for (unsigned q = 0; q < ZKP_POREP_PARENTS; q++)
					if (ch->parent_nodes[q] == c1->ch[i].ch.node) {
						parent_challenged++;
						assert_memory_equal(ch->ch.parent_rows[q],
								    c1->ch[i].column_rows,
								    L * sizeof(zkp_fr));
					}
			/* the labels are SDR's over these parents' rows */
			for (unsigned l = 1; l <= L; l++) {
				const zkp_fr *drg[ZKP_POREP_DRG_PARENTS], *exp[ZKP_POREP_EXP_PARENTS] = { 0 };
				for (unsigned q = 0; q < ZKP_POREP_DRG_PARENTS; q++)
					drg[q] = &ch->ch.parent_rows[q][l - 1];
				for (unsigned q = 0; l > 1 && q < ZKP_POREP_EXP_PARENTS; q++)
					exp[q] = &ch->ch.parent_rows[ZKP_POREP_DRG_PARENTS + q][l - 2];
				zkp_fr lab;
				assert_int_equal(zkp_porep_label(&lab, &c1->replica_id_fr, l, ch->ch.node,
								 drg, exp),
						 0);
				assert_true(zkp_fr_eq(&lab, &ch->column_rows[l - 1]));
			}
			zkp_fr d;
			zkp_porep_sparse_data(&d, key, ch->ch.node);
			assert_true(zkp_fr_eq(&d, &ch->ch.data_leaf));
		}
		zkp_porep_c1_free(c1);
	}
	printf("40 sealed 2 KiB sectors: %u challenges that were another's parent, %u nodes seen twice, %u challenged twice\n",
	       parent_challenged, repeated, same_challenge);
	/* the cases the memo exists for did happen */
	assert_true(parent_challenged > 0);
	assert_true(repeated > 0);
}

/* Every path of c1 to its root. */
static void walk_all(const zkp_porep_c1 *c1)
{
	zkp_tree_shape td, tcr;
	const zkp_poseidon_consts *pc, *p2;
	zkp_porep_tree_d(&c1->shape, &td);
	zkp_porep_tree_cr(&c1->shape, &tcr);
	assert_int_equal(zkp_poseidon_consts_get(&pc, c1->shape.layers), 0);
	assert_int_equal(zkp_poseidon_consts_get(&p2, 2), 0);
	for (unsigned k = 0; k < c1->partitions; k++) {
		zkp_fr pair[2] = { c1->comm_c[k], c1->comm_r_last[k] }, comm_r, root, leaf;
		zkp_poseidon_hash(&comm_r, p2, pair);
		assert_true(zkp_fr_eq(&comm_r, &c1->comm_r_fr));
		for (unsigned i = 0; i < c1->challenges; i++) {
			const zkp_porep_c1_challenge *ch = &c1->ch[(size_t)k * c1->challenges + i];
			assert_int_equal(zkp_merkle_walk(&td, &ch->ch.data_leaf, &ch->ch.comm_d_path,
							 NULL, &root),
					 0);
			assert_true(zkp_fr_eq(&root, &c1->comm_d_fr));
			zkp_fr enc;
			zkp_fr_add(&enc, &ch->column_rows[c1->shape.layers - 1], &ch->ch.data_leaf);
			assert_true(zkp_fr_eq(&enc, &ch->comm_r_last_leaf));
			assert_int_equal(zkp_merkle_walk(&tcr, &enc, &ch->ch.comm_r_last_path, NULL,
							 &root),
					 0);
			assert_true(zkp_fr_eq(&root, &c1->comm_r_last[k]));
			zkp_poseidon_hash(&leaf, pc, ch->column_rows);
			assert_int_equal(zkp_merkle_walk(&tcr, &leaf, &ch->ch.comm_c_path, NULL, &root),
					 0);
			assert_true(zkp_fr_eq(&root, &c1->comm_c[k]));
			for (unsigned q = 0; q < ZKP_POREP_PARENTS; q++) {
				zkp_poseidon_hash(&leaf, pc, ch->ch.parent_rows[q]);
				assert_int_equal(zkp_merkle_walk(&tcr, &leaf, &ch->ch.parent_paths[q],
								 NULL, &root),
						 0);
				assert_true(zkp_fr_eq(&root, &c1->comm_c[k]));
			}
		}
	}
}

static void test_every_size(void **state)
{
	(void)state;
	static const char *names[] = { "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1",
				       "StackedDrg512MiBV1", "StackedDrg32GiBV1_1",
				       "StackedDrg64GiBV1_1" };
	zkp_pool *pool;
	assert_int_equal(zkp_pool_new(&pool, 1), 0);
	for (size_t t = 0; t < sizeof(names) / sizeof(names[0]); t++) {
		zkp_porep_c1 *c1 = sparse(names[t], 9, 77, pool);
		const zkp_porep_proof *p;
		zkp_porep_graph g = { 0 };
		zkp_error err = { 0 };
		assert_int_equal(zkp_porep_c1_proof(&p, c1, &err), 0);
		assert_int_equal(zkp_porep_graph_init_proof(&g, p, &err), 0);
		zkp_fr *pub = malloc((zkp_porep_inputs(&c1->shape) - 1) * sizeof(zkp_fr));
		assert_non_null(pub);
		for (unsigned k = 0; k < c1->partitions; k++)
			if (zkp_porep_c1_public_inputs(pub, c1, k, p, &g, &err))
				fail_msg("%s partition %u: %s", names[t], k, err.msg);
		assert_int_equal(zkp_porep_c1_check_replica_id(c1, p, prover_id, 77, &err), 0);
		walk_all(c1);

		/* comm_d is the tree of the periodic data: at sizes without a
		 * repeat, the full tree over every node's data */
		if (p->nodes <= ZKP_POREP_SPARSE_PERIOD) {
			uint8_t key[32];
			zkp_fr *data = malloc(p->nodes * sizeof(zkp_fr)), comm_d;
			assert_non_null(data);
			zkp_porep_sparse_key(key, 9);
			for (uint64_t n = 0; n < p->nodes; n++)
				zkp_porep_sparse_data(&data[n], key, n);
			assert_int_equal(zkp_porep_comm_d(&comm_d, &c1->shape, data, &err), 0);
			assert_true(zkp_fr_eq(&comm_d, &c1->comm_d_fr));
			free(data);
		}

		if (p->nodes > ZKP_POREP_SPARSE_PERIOD) {
			free(pub);
			zkp_porep_graph_release(&g);
			zkp_porep_c1_free(c1);
			continue;
		}
		/* through the file and back: the same values, the same bytes
		 * from the same seed */
		char path[] = "/tmp/zkpd-sparse-XXXXXX", path2[] = "/tmp/zkpd-sparse-XXXXXX";
		int fd = mkstemp(path), fd2 = mkstemp(path2);
		assert_true(fd >= 0 && fd2 >= 0);
		close(fd);
		close(fd2);
		zkp_porep_c1 *again = sparse(names[t], 9, 77, NULL), *back = NULL;
		assert_int_equal(zkp_porep_c1_write(c1, path, 0, 0, &err), 0);
		assert_int_equal(zkp_porep_c1_write(again, path2, 0, 0, &err), 0);
		if (zkp_porep_c1_load(&back, path, &err))
			fail_msg("%s: %s", names[t], err.msg);
		assert_memory_equal(back->comm_r, c1->comm_r, 32);
		assert_memory_equal(back->wit, c1->wit,
				    (size_t)c1->partitions * c1->challenges * sizeof(*c1->wit));
		FILE *a = fopen(path, "rb"), *b = fopen(path2, "rb");
		assert_non_null(a);
		assert_non_null(b);
		int ca, cb;
		do {
			ca = fgetc(a);
			cb = fgetc(b);
			assert_int_equal(ca, cb);
		} while (ca != EOF);
		fclose(a);
		fclose(b);
		unlink(path);
		unlink(path2);

		/* another seed, another sector */
		zkp_porep_c1 *other = sparse(names[t], 10, 77, NULL);
		assert_memory_not_equal(other->comm_d, c1->comm_d, 32);
		assert_memory_not_equal(other->comm_r, c1->comm_r, 32);
		zkp_porep_c1_free(other);
		zkp_porep_c1_free(again);
		zkp_porep_c1_free(back);
		free(pub);
		zkp_porep_graph_release(&g);
		zkp_porep_c1_free(c1);
	}
	zkp_pool_free(pool);
}

static void test_refused(void **state)
{
	(void)state;
	static const char *names[] = { "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
				       "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep" };
	for (int t = 0; t < 2; t++) {
		const zkp_porep_proof *p;
		zkp_error err = { 0 };
		zkp_porep_c1 *c1 = NULL;
		uint8_t key[32];
		zkp_porep_sparse_key(key, 1);
		assert_int_equal(zkp_porep_proof_lookup(&p, names[t], &err), 0);
		assert_int_equal(zkp_porep_sparse_c1(&c1, p, key, prover_id, 1, ticket, seed, NULL,
						     NULL, &err),
				 ZKP_ERR_UNSUPPORTED);
		assert_null(c1);
		assert_non_null(strstr(err.msg, "interactive"));
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_tree_whole),
		cmocka_unit_test(test_sparse_tree_filled),
		cmocka_unit_test(test_periodic_tree),
		cmocka_unit_test(test_prf_consistency),
		cmocka_unit_test(test_every_size),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
