/*
 * The PoRep partition's .pce written in one pass with its challenges on a
 * thread pool (zkp_porep_circuit_write_parallel) against the two-pass
 * streaming builder (zkp_circuit_write): byte for byte the same file, the
 * same counts, on pools of 1, 2 and 4 threads for the rust-fil-proofs
 * test shapes (2 layers, 1 to 3 challenges) and of 3 for the 2 KiB
 * partition (11 layers, 18 challenges);
 * and a path it cannot write named in its error, with no file left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
#include "zkpd/pool.h"

static char dir[] = "/tmp/zkpd-porep-build-XXXXXX";

static void same_file(const char *a, const char *b)
{
	size_t at;
	if (!tu_files_equal(a, b, &at))
		fail_msg("%s and %s differ first at byte %zu", a, b, at);
}

/* The parallel write on pools of threads[0..n) against the streaming one. */
static void check_shape(const zkp_porep_shape *s, const unsigned *threads, size_t n)
{
	char ref[96], par[96];
	snprintf(ref, sizeof(ref), "%s/stream.pce", dir);
	snprintf(par, sizeof(par), "%s/parallel.pce", dir);
	zkp_porep_job j = { s, NULL };
	zkp_pce_builder_stats want, got;
	zkp_error err = { 0 };
	uint8_t label[32];
	zkp_porep_label_encode(label, s);
	if (zkp_circuit_write(zkp_porep_circuit_fn, &j, ref, label, &want, &err))
		fail_msg("streaming write: %s", err.msg);
	for (size_t t = 0; t < n; t++) {
		zkp_pool *pool = NULL;
		assert_int_equal(zkp_pool_new(&pool, threads[t] - 1), 0);
		int rc = zkp_porep_circuit_write_parallel(s, par, &got, pool, &err);
		zkp_pool_free(pool);
		if (rc)
			fail_msg("parallel write on %u threads: %s", threads[t], err.msg);
		same_file(ref, par);
		assert_int_equal(got.rows, want.rows);
		assert_int_equal(got.n_inputs, want.n_inputs);
		assert_int_equal(got.n_aux, want.n_aux);
		for (int m = 0; m < 3; m++)
			assert_int_equal(got.nnz[m], want.nnz[m]);
		assert_int_equal(got.a_aux, want.a_aux);
		assert_int_equal(got.b_input, want.b_input);
		assert_int_equal(got.b_aux, want.b_aux);
	}
	unlink(ref);
	unlink(par);
}

static void test_test_shapes(void **state)
{
	(void)state;
	static const struct {
		uint64_t nodes;
		unsigned tree[3];
		unsigned challenges;
	} shapes[] = { { 8, { 2, 0, 0 }, 1 }, { 8, { 8, 0, 0 }, 3 }, { 32, { 8, 4, 0 }, 2 },
		       { 64, { 8, 4, 2 }, 2 } };
	static const unsigned threads[] = { 1, 2, 4 };
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		zkp_porep_shape s = { .nodes = shapes[i].nodes, .layers = 2,
				      .challenges = shapes[i].challenges };
		memcpy(s.tree, shapes[i].tree, sizeof(s.tree));
		zkp_error err = { 0 };
		if (zkp_porep_shape_check(&s, &err))
			fail_msg("shape %zu: %s", i, err.msg);
		check_shape(&s, threads, 3);
	}
}

static void test_2kib(void **state)
{
	(void)state;
	zkp_porep_shape s;
	zkp_error err = { 0 };
	static const unsigned threads[] = { 3 }; /* 18 challenges over 3 */
	assert_int_equal(zkp_porep_shape_for_size(&s, 2048, &err), 0);
	check_shape(&s, threads, 1);
}

static void test_unwritable(void **state)
{
	(void)state;
	zkp_porep_shape s = { .nodes = 8, .layers = 2, .challenges = 2, .tree = { 8, 0, 0 } };
	char path[128];
	snprintf(path, sizeof(path), "%s/no-such-dir/c.pce", dir);
	zkp_pool *pool = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_pool_new(&pool, 1), 0);
	assert_int_equal(zkp_porep_circuit_write_parallel(&s, path, NULL, pool, &err), ZKP_ERR_IO);
	zkp_pool_free(pool);
	assert_non_null(strstr(err.msg, "no-such-dir"));
	assert_int_equal(access(path, F_OK), -1);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_test_shapes),
		cmocka_unit_test(test_2kib),
		cmocka_unit_test(test_unwritable),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
