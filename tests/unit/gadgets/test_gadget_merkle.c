/*
 * Merkle gadgets: pick and insert_2 / insert_4 / insert_8 at every position
 * (rows 2 / 8 / 22, the current node lands at the index, the siblings keep
 * their order), tree D's SHA-256 node hash against OpenSSL with the
 * Filecoin trim, and whole inclusion proofs (binary SHA-256, Poseidon 8,
 * 8-4-2) built over native trees: the witness satisfies every row, and a
 * wrong sibling or index does not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/sha.h>

#include "harness.h"
#include "testutil.h"
#include "test_fr.h"
#include "zkpd/gadgets.h"

struct ins_case {
	unsigned arity, index;
	zkp_fr cur, sib[7];
	zkp_num out[8];
};

static void ins_gadget(zkp_cs *cs, void *ctx)
{
	struct ins_case *c = ctx;
	unsigned k = c->arity == 8 ? 3 : c->arity == 4 ? 2 : 1;
	zkp_bool bits[3];
	for (unsigned i = 0; i < k; i++)
		bits[i] = zkp_bool_alloc(cs, (c->index >> i) & 1);
	zkp_num cur = zkp_num_alloc(cs, &c->cur), sib[7], out[8];
	for (unsigned i = 0; i + 1 < c->arity; i++)
		sib[i] = zkp_num_alloc(cs, &c->sib[i]);
	zkp_insert(cs, c->arity, &cur, bits, sib, out);
	if (zkp_cs_witness(cs))
		memcpy(c->out, out, sizeof(out));
}

static void test_insert(void **state)
{
	(void)state;
	static const unsigned arities[] = { 2, 4, 8 }, rows[] = { 2, 8, 22 }, bits[] = { 1, 2, 3 };
	for (int a = 0; a < 3; a++) {
		for (unsigned idx = 0; idx < arities[a]; idx++) {
			struct ins_case c = { .arity = arities[a], .index = idx };
			tu_rand_fr(&c.cur);
			for (int i = 0; i < 7; i++)
				tu_rand_fr(&c.sib[i]);
			gh_result r;
			gh_run(ins_gadget, &c, &r);
			assert_int_equal(r.check, 0);
			assert_int_equal(r.rows - bits[a], rows[a]);
			for (unsigned p = 0, s = 0; p < arities[a]; p++) {
				const zkp_fr *want = p == idx ? &c.cur : &c.sib[s++];
				assert_true(zkp_fr_eq(&c.out[p].value, want));
				assert_true(zkp_fr_eq(&r.w[r.inputs + c.out[p].var], want));
			}
			gh_result_release(&r);
		}
	}
}

struct node_case {
	zkp_fr l, r;
	zkp_num out;
};

static void node_gadget(zkp_cs *cs, void *ctx)
{
	struct node_case *c = ctx;
	zkp_num in[2] = { zkp_num_alloc(cs, &c->l), zkp_num_alloc(cs, &c->r) };
	zkp_num out = zkp_sha256_leaves_circuit(cs, in, 2);
	if (zkp_cs_witness(cs))
		c->out = out;
}

static void test_sha_node(void **state)
{
	(void)state;
	for (int t = 0; t < 3; t++) {
		struct node_case c;
		tu_rand_fr(&c.l);
		tu_rand_fr(&c.r);
		if (t == 0)
			zkp_fr_set_zero(&c.l);
		gh_result r;
		gh_run(node_gadget, &c, &r);
		assert_int_equal(r.check, 0);
		assert_int_equal(r.rows, 45382 - 3); /* a level less its index bit and two picks */
		uint8_t msg[64], d[32];
		zkp_fr_to_le(msg, &c.l);
		zkp_fr_to_le(msg + 32, &c.r);
		SHA256(msg, 64, d);
		d[31] &= 0x3f;
		zkp_fr want;
		assert_int_equal(zkp_fr_from_le(&want, d), 0);
		assert_true(zkp_fr_eq(&c.out.value, &want));
		gh_result_release(&r);
	}
}

/* A native tree of 2^k leaves of one shape, its root and a path. */
struct por_case {
	zkp_tree_shape t;
	uint64_t leaves;
	zkp_fr leaf[64];
	zkp_fr root;
	uint64_t index;
	zkp_path path;
};

static void level_hash(const zkp_tree_shape *t, zkp_fr *out, const zkp_fr *in, unsigned a)
{
	if (t->hash == ZKP_TREE_SHA256) {
		uint8_t msg[64], d[32];
		zkp_fr_to_le(msg, &in[0]);
		zkp_fr_to_le(msg + 32, &in[1]);
		SHA256(msg, 64, d);
		d[31] &= 0x3f;
		assert_int_equal(zkp_fr_from_le(out, d), 0);
		return;
	}
	const zkp_poseidon_consts *c;
	assert_int_equal(zkp_poseidon_consts_get(&c, a), 0);
	zkp_poseidon_hash(out, c, in);
}

static void make_tree(struct por_case *c)
{
	zkp_fr lvl[64], next[64];
	uint64_t n = c->leaves, idx = c->index;
	unsigned s = 0;
	memcpy(lvl, c->leaf, n * sizeof(zkp_fr));
	for (unsigned l = 0; l < zkp_tree_levels(&c->t); l++) {
		unsigned a = zkp_tree_level_arity(&c->t, l), pos = (unsigned)(idx % a);
		c->path.index[l] = (uint8_t)pos;
		for (unsigned k = 0; k < a; k++)
			if (k != pos)
				c->path.siblings[s++] = lvl[(idx / a) * a + k];
		for (uint64_t g = 0; g < n / a; g++)
			level_hash(&c->t, &next[g], &lvl[g * a], a);
		n /= a;
		idx /= a;
		memcpy(lvl, next, n * sizeof(zkp_fr));
	}
	assert_int_equal(n, 1);
	c->root = lvl[0];
}

static void por_gadget(zkp_cs *cs, void *ctx)
{
	struct por_case *c = ctx;
	zkp_num leaf = zkp_num_alloc(cs, &c->leaf[c->index]);
	zkp_num root = zkp_num_alloc(cs, &c->root);
	zkp_por_circuit(cs, &c->t, &leaf, &root, zkp_cs_witness(cs) ? &c->path : NULL);
}

static void test_por(void **state)
{
	(void)state;
	static const struct {
		zkp_tree_shape t;
		uint64_t leaves;
	} shapes[] = {
		{ { ZKP_TREE_SHA256, 3, { 2, 0, 0 } }, 8 },
		{ { ZKP_TREE_POSEIDON, 2, { 8, 0, 0 } }, 64 },
		{ { ZKP_TREE_POSEIDON, 1, { 8, 4, 2 } }, 64 },
		{ { ZKP_TREE_POSEIDON, 3, { 4, 0, 0 } }, 64 },
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct por_case c = { .t = shapes[i].t, .leaves = shapes[i].leaves };
		zkp_error err = { 0 };
		assert_int_equal(zkp_tree_shape_check(&c.t, &err), 0);
		for (uint64_t k = 0; k < c.leaves; k++)
			tu_rand_fr(&c.leaf[k]);
		c.index = tu_rand64() % c.leaves;
		make_tree(&c);
		gh_result r;
		gh_run(por_gadget, &c, &r);
		assert_int_equal(r.check, 0);
		assert_int_equal(r.inputs, 2); /* ONE and the packed index */
		zkp_fr idx;
		zkp_fr_set_u64(&idx, c.index);
		assert_true(zkp_fr_eq(&r.w[1], &idx));
		gh_result_release(&r);

		/* a wrong sibling breaks the root equality */
		zkp_fr_add(&c.path.siblings[0], &c.path.siblings[0], &ZKP_FR_ONE);
		gh_run(por_gadget, &c, &r);
		assert_int_equal(r.check, ZKP_ERR_UNSATISFIED);
		assert_int_equal(r.first_bad_row, r.rows - 1);
		gh_result_release(&r);
	}
	zkp_tree_shape bad = { ZKP_TREE_POSEIDON, 1, { 16, 0, 0 } };
	zkp_error err = { 0 };
	assert_int_equal(zkp_tree_shape_check(&bad, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "16"));
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert),
		cmocka_unit_test(test_sha_node),
		cmocka_unit_test(test_por),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
