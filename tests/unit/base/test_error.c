#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "zkpd/error.h"

static void test_codes_are_distinct_and_named(void **state)
{
	(void)state;
	int codes[] = {
#define CODE(name, code, text) (code),
		ZKP_ERRORS(CODE)
#undef CODE
	};
	size_t n = sizeof(codes) / sizeof(codes[0]);
	assert_int_equal(codes[0], 0);
	for (size_t i = 1; i < n; i++) {
		assert_true(codes[i] < 0);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(codes[i], codes[j]);
		assert_string_not_equal(zkp_err_name(codes[i]), "UNKNOWN");
		assert_string_not_equal(zkp_strerror(codes[i]), "unknown error");
	}
	assert_string_equal(zkp_err_name(ZKP_ERR_NOT_IN_SUBGROUP), "ERR_NOT_IN_SUBGROUP");
	assert_string_equal(zkp_err_name(12345), "UNKNOWN");
	assert_string_equal(zkp_strerror(-9999), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_are_distinct_and_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
