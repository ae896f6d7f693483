/*
 * Structural fingerprints of the PoRep circuit against published figures:
 * create_label_circuit's test (532,025 rows), the four StackedCircuit test
 * shapes of rust-fil-proofs' tests/stacked_circuit.rs (1 challenge, 2
 * layers: 1,206,212 / 1,199,620 / 1,296,576 / 1,346,982 rows, 22 inputs),
 * and bad shapes refused with a clear error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "testutil.h"
#include "zkpd/porep.h"

/* create_label's own test: the replica id and 37 parents as allocated
 * bits (37 x 256 + 256 booleanity rows), layer 3 and node 22 constant. */
static void label_gadget(zkp_cs *cs, void *ctx)
{
	(void)ctx;
	static zkp_bool parents[ZKP_POREP_LABEL_PARENTS][256];
	const zkp_bool *p[ZKP_POREP_LABEL_PARENTS];
	zkp_bool id[256], node[64];
	for (unsigned k = 0; k < ZKP_POREP_LABEL_PARENTS; k++) {
		for (unsigned i = 0; i < 256; i++)
			parents[k][i] = zkp_bool_alloc(cs, false);
		p[k] = parents[k];
	}
	for (unsigned i = 0; i < 256; i++)
		id[i] = zkp_bool_alloc(cs, false);
	for (unsigned i = 0; i < 64; i++)
		node[i] = zkp_bool_const((22ULL >> i) & 1);
	zkp_u32 layer = zkp_u32_const(3);
	zkp_porep_label_circuit(cs, id, p, &layer, node);
}

static void test_create_label(void **state)
{
	(void)state;
	gh_result r;
	gh_shape(label_gadget, NULL, &r);
	assert_int_equal(r.rows, 532025);
}

static void porep_gadget(zkp_cs *cs, void *ctx)
{
	zkp_porep_circuit(cs, ctx, NULL);
}

static void test_stacked_test_shapes(void **state)
{
	(void)state;
	static const struct {
		uint64_t nodes;
		unsigned tree[3];
		uint64_t rows;
	} shapes[] = {
		{ 8, { 2, 0, 0 }, 1206212 },
		{ 8, { 8, 0, 0 }, 1199620 },
		{ 32, { 8, 4, 0 }, 1296576 },
		{ 64, { 8, 4, 2 }, 1346982 },
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		zkp_porep_shape s = { .nodes = shapes[i].nodes, .layers = 2, .challenges = 1,
				      .tree = { shapes[i].tree[0], shapes[i].tree[1], shapes[i].tree[2] } };
		zkp_error err = { 0 };
		if (zkp_porep_shape_check(&s, &err))
			fail_msg("%s", err.msg);
		gh_result r;
		gh_shape(porep_gadget, &s, &r);
		printf("shape %zu: rows %llu inputs %llu aux %llu\n", i, (unsigned long long)r.rows,
		       (unsigned long long)r.inputs, (unsigned long long)r.aux);
		assert_int_equal(r.inputs, 22);
		assert_int_equal(r.inputs, zkp_porep_inputs(&s));
		assert_int_equal(r.rows, shapes[i].rows);
	}
}

static void test_2kib_shape(void **state)
{
	(void)state;
	zkp_porep_shape s;
	zkp_error err = { 0 };
	assert_int_equal(zkp_porep_shape_for_size(&s, 2048, &err), 0);
	gh_result r;
	gh_shape(porep_gadget, &s, &r);
	assert_int_equal(r.rows, 2687921);
	assert_int_equal(r.inputs, 40);
	assert_int_equal(r.aux, 2685673);
}

static void test_bad_shapes(void **state)
{
	(void)state;
	zkp_porep_shape s;
	zkp_error err = { 0 };
	assert_int_equal(zkp_porep_shape_for_size(&s, 4096, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "4096"));
	s = (zkp_porep_shape){ .nodes = 64, .layers = 3, .challenges = 1, .tree = { 8, 0, 0 } };
	assert_int_equal(zkp_porep_shape_check(&s, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "layers = 3"));
	s.layers = 2;
	s.tree[0] = 16;
	assert_int_equal(zkp_porep_shape_check(&s, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "16"));
	s.tree[0] = 8;
	s.nodes = 32; /* not a power of 8 */
	assert_int_equal(zkp_porep_shape_check(&s, &err), ZKP_ERR_INVAL);
	s.nodes = 48;
	assert_int_equal(zkp_porep_shape_check(&s, &err), ZKP_ERR_INVAL);
	s.nodes = 64;
	s.challenges = 0;
	assert_int_equal(zkp_porep_shape_check(&s, &err), ZKP_ERR_INVAL);
	uint64_t b;
	assert_int_equal(zkp_porep_parse_size(&b, "32GiB", &err), 0);
	assert_int_equal(b, 32ULL << 30);
	assert_int_equal(zkp_porep_parse_size(&b, "2k", &err), 0);
	assert_int_equal(b, 2048);
	assert_int_equal(zkp_porep_parse_size(&b, "2 KiB", &err), ZKP_ERR_INVAL);
	assert_int_equal(zkp_porep_parse_size(&b, "big", &err), ZKP_ERR_INVAL);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_label),
		cmocka_unit_test(test_stacked_test_shapes),
		cmocka_unit_test(test_2kib_shape),
		cmocka_unit_test(test_bad_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
