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

static void test_error_detail(void **state)
{
	(void)state;
	zkp_error e = { 0 };
	assert_int_equal(zkp_error_set(&e, ZKP_ERR_FORMAT, "%s: offset %d: bad magic", "x.pce", 0),
			 ZKP_ERR_FORMAT);
	assert_int_equal(e.code, ZKP_ERR_FORMAT);
	assert_string_equal(e.msg, "x.pce: offset 0: bad magic");
	assert_string_equal(zkp_error_text(&e, ZKP_ERR_FORMAT), "x.pce: offset 0: bad magic");
	/* a different code than the detail was written for: the generic text */
	assert_string_equal(zkp_error_text(&e, ZKP_ERR_IO), zkp_strerror(ZKP_ERR_IO));
	assert_string_equal(zkp_error_text(NULL, ZKP_ERR_IO), zkp_strerror(ZKP_ERR_IO));
	assert_int_equal(zkp_error_set(NULL, ZKP_ERR_RANGE, "ignored"), ZKP_ERR_RANGE);
	/* long messages are cut, never overflow */
	char big[2000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	zkp_error_set(&e, ZKP_ERR_FORMAT, "%s", big);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes_are_distinct_and_named),
		cmocka_unit_test(test_error_detail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
