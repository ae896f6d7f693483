/*
 * Trees not held whole (src/filecoin/merkle_int.h): a sparse tree given
 * every leaf has the full tree's root and paths; given a few leaves and
 * filled from a full tree, the same; a periodic tree is the full tree of
 * its repeated leaves; bad input is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "merkle_int.h"
#include "testutil.h"

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

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_tree_whole),
		cmocka_unit_test(test_sparse_tree_filled),
		cmocka_unit_test(test_periodic_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
