/*
 * The 32 GiB PoRep partition's structural fingerprint, counted through the
 * real synthesis (a shape pass and a rows pass into a counting builder),
 * against the figures extracted from rust-fil-proofs' own circuit: 130,278,869
 * rows with the 328 input rows, 130,169,893 aux, densities a_aux
 * 129,753,292 / b_input 1 / b_aux 33,112,281, non-zeros A 309,405,051 (with
 * the input rows) / B 130,327,340 / C 282,656,500. About 40 s on one core,
 * so it carries the label slow (not in the sanitizer run).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "zkpd/circuit.h"
#include "zkpd/porep.h"

static void test_32gib(void **state)
{
	(void)state;
	zkp_porep_shape s;
	zkp_error err = { 0 };
	zkp_pce_builder_stats st;
	assert_int_equal(zkp_porep_shape_for_size(&s, 32ULL << 30, &err), 0);
	zkp_porep_job job = { &s, NULL };
	if (zkp_circuit_count(zkp_porep_circuit_fn, &job, &st, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(st.rows, 130278541);
	assert_int_equal(st.n_inputs, 328);
	assert_int_equal(st.rows + st.n_inputs, 130278869);
	assert_int_equal(st.n_aux, 130169893);
	assert_int_equal(st.a_aux, 129753292);
	assert_int_equal(st.b_input, 1);
	assert_int_equal(st.b_aux, 33112281);
	assert_int_equal(st.nnz[0] + st.n_inputs, 309405051);
	assert_int_equal(st.nnz[1], 130327340);
	assert_int_equal(st.nnz[2], 282656500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_32gib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
