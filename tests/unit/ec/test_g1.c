/*
 * G1 group law, scalar multiplication and subgroup check tests. Every fast
 * path is compared with a slow obvious one (double-and-add, multiplication
 * by r) on random points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"

static void rand_fe(zkp_fp *ret)
{
	uint64_t w[12];
	for (int i = 0; i < 12; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(ret, w);
}

static void rhs(zkp_fp *ret, const zkp_fp *x)
{
	zkp_fp b, t;
	zkp_fp_set_u64(&b, 4);
	zkp_fp_sqr(&t, x);
	zkp_fp_mul(&t, &t, x);
	zkp_fp_add(ret, &t, &b);
}

static void fp_from_hex(zkp_fp *ret, const char *hex)
{
	uint8_t b[ZKP_FP_BYTES];
	assert_true(tu_hex_to_bytes(b, sizeof(b), hex) >= 0);
	assert_int_equal(zkp_fp_from_be(ret, b), 0);
}

#define FE zkp_fp
#define FE_ADD zkp_fp_add
#define FE_MUL zkp_fp_mul
#define FE_SQR zkp_fp_sqr
#define FE_EQ zkp_fp_eq
#define FE_IS_ZERO zkp_fp_is_zero
#define FE_SQRT zkp_fp_sqrt
#define PT zkp_g1
#define PT_AFF zkp_g1_affine
#define PT_XYZZ zkp_g1_xyzz
#define PN(x) zkp_g1_##x
#define PNS(x) zkp_g1s_##x
#define GEN ZKP_G1_GENERATOR
#include "group_tests.h"

static void test_generator_value(void **state)
{
	(void)state;
	json_t *g = json_object_get(json_object_get(tu_vectors(), "constants"),
				    "g1_generator");
	assert_non_null(g);
	zkp_fp x, y;
	fp_from_hex(&x, json_string_value(json_object_get(g, "x")));
	fp_from_hex(&y, json_string_value(json_object_get(g, "y")));
	assert_true(zkp_fp_eq(&x, &ZKP_G1_GENERATOR.x));
	assert_true(zkp_fp_eq(&y, &ZKP_G1_GENERATOR.y));
}

static void test_endomorphism_eigenvalue(void **state)
{
	(void)state;
	/* sigma(x, y) = (beta_1 x, y) acts on G1 as [lambda_1], lambda_1 =
	 * -x^2 mod r (docs/math.md, 'Endomorphisms and subgroup checks'): the
	 * relation the subgroup check relies on. */
	static const uint64_t lambda1[4] = {
		0xfffffffe00000001, 0xa7780001fffcb7fc, 0x3339d80809a1d804, 0x73eda753299d7d48,
	};
	zkp_fp beta;
	fp_from_hex(&beta, "0x00000000000000005f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f8968"
			   "8de17d813620a00022e01fffffffefffe");
	for (int it = 0; it < 3; it++) {
		zkp_g1 p, l, s;
		rand_point(&p);
		zkp_g1_mul(&l, &p, lambda1, 4);
		s = p;
		zkp_fp_mul(&s.x, &s.x, &beta);
		assert_true(zkp_g1_eq(&s, &l));
	}
}

static void test_not_in_subgroup_vectors(void **state)
{
	(void)state;
	json_t *arr = json_object_get(tu_vectors(), "g1_not_in_subgroup");
	assert_true(json_array_size(arr) >= 5);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		zkp_g1_affine a;
		zkp_g1 p, t;
		fp_from_hex(&a.x, json_string_value(json_object_get(v, "x")));
		fp_from_hex(&a.y, json_string_value(json_object_get(v, "y")));
		assert_true(zkp_g1_affine_is_on_curve(&a));
		assert_false(zkp_g1_affine_in_subgroup(&a));
		zkp_g1_from_affine(&p, &a);
		rescale(&p);
		assert_false(zkp_g1_in_subgroup(&p));
		zkp_g1_mul(&t, &p, R_LIMBS, 4);
		assert_false(zkp_g1_is_infinity(&t));
		json_t *ord = json_object_get(v, "order");
		if (ord) {
			uint64_t n = strtoull(json_string_value(ord), NULL, 10);
			zkp_g1_mul(&t, &p, &n, 1);
			assert_true(zkp_g1_is_infinity(&t));
		}
	}
}

static void test_cofactor_cleared_points_pass(void **state)
{
	(void)state;
	/* [1 - x]P = [0xd201000000010001]P lies in G1 for every P on E(Fp)
	 * (section 3): subgroup points that are not built from the generator. */
	const uint64_t heff = 0xd201000000010001ULL;
	for (int it = 0; it < 4; it++) {
		zkp_g1_affine c;
		zkp_g1 p, t;
		rand_curve_point(&c);
		zkp_g1_from_affine(&p, &c);
		zkp_g1_mul(&p, &p, &heff, 1);
		assert_true(zkp_g1_in_subgroup(&p));
		zkp_g1_mul(&t, &p, R_LIMBS, 4);
		assert_true(zkp_g1_is_infinity(&t));
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		GROUP_TESTS,
		cmocka_unit_test(test_generator_value),
		cmocka_unit_test(test_endomorphism_eigenvalue),
		cmocka_unit_test(test_not_in_subgroup_vectors),
		cmocka_unit_test(test_cofactor_cleared_points_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
