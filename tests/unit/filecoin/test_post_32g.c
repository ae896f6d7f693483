/*
 * The published WindowPoSt partition figures, counted through the real
 * synthesis into a counting builder: 32 GiB, 2,349 sectors x 10
 * challenges, 125,279,217 rows and 25,840 inputs; 64 GiB, 2,300 sectors,
 * 129,887,900 rows and 25,301 inputs. About a minute each on one core
 * (2 min for both; the Poseidon rows are replayed from a recorded
 * template), so it carries the label slow like test_porep_32g;
 * test_post_circuit checks the same figures from one sector's rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "zkpd/circuit.h"
#include "zkpd/post.h"

static void count(uint64_t bytes, uint64_t rows, uint64_t inputs)
{
	zkp_post_shape s;
	zkp_error err = { 0 };
	zkp_pce_builder_stats st;
	assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINDOW, bytes, &err), 0);
	zkp_post_job job = { &s, NULL };
	if (zkp_circuit_count(zkp_post_circuit_fn, &job, &st, &err))
		fail_msg("%s", err.msg);
	printf("%llu GiB: rows %llu inputs %llu aux %llu nnz %llu/%llu/%llu\n",
	       (unsigned long long)(bytes >> 30), (unsigned long long)st.rows,
	       (unsigned long long)st.n_inputs, (unsigned long long)st.n_aux,
	       (unsigned long long)st.nnz[0], (unsigned long long)st.nnz[1],
	       (unsigned long long)st.nnz[2]);
	assert_int_equal(st.rows, rows);
	assert_int_equal(st.n_inputs, inputs);
}

static void test_32gib(void **state)
{
	(void)state;
	count(32ULL << 30, 125279217, 25840);
}

static void test_64gib(void **state)
{
	(void)state;
	count(64ULL << 30, 129887900, 25301);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_32gib),
		cmocka_unit_test(test_64gib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
