/*
 * G2 group law, scalar multiplication, psi and subgroup check tests. Every
 * fast path is compared with a slow obvious one (double-and-add,
 * multiplication by r) on random points.
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

static void rand_fe(zkp_fp2 *ret)
{
	uint64_t w[12];
	for (int i = 0; i < 12; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(&ret->c0, w);
	for (int i = 0; i < 12; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(&ret->c1, w);
}

static void rhs(zkp_fp2 *ret, const zkp_fp2 *x)
{
	zkp_fp2 b, t;
	zkp_fp_set_u64(&b.c0, 4);
	b.c1 = b.c0; /* 4(1 + u) */
	zkp_fp2_sqr(&t, x);
	zkp_fp2_mul(&t, &t, x);
	zkp_fp2_add(ret, &t, &b);
}

static void fp_from_hex(zkp_fp *ret, const char *hex)
{
	uint8_t b[ZKP_FP_BYTES];
	assert_true(tu_hex_to_bytes(b, sizeof(b), hex) >= 0);
	assert_int_equal(zkp_fp_from_be(ret, b), 0);
}

static void fp_from_key(zkp_fp *ret, json_t *obj, const char *key)
{
	json_t *s = json_object_get(obj, key);
	assert_non_null(s);
	fp_from_hex(ret, json_string_value(s));
}

#define FE zkp_fp2
#define FE_ADD zkp_fp2_add
#define FE_MUL zkp_fp2_mul
#define FE_SQR zkp_fp2_sqr
#define FE_EQ zkp_fp2_eq
#define FE_IS_ZERO zkp_fp2_is_zero
#define FE_SQRT zkp_fp2_sqrt
#define PT zkp_g2
#define PT_AFF zkp_g2_affine
#define PT_XYZZ zkp_g2_xyzz
#define PN(x) zkp_g2_##x
#define PNS(x) zkp_g2s_##x
#define GEN ZKP_G2_GENERATOR
#include "group_tests.h"

static void test_generator_value(void **state)
{
	(void)state;
	json_t *g = json_object_get(json_object_get(tu_vectors(), "constants"),
				    "g2_generator");
	assert_non_null(g);
	zkp_g2_affine a;
	fp_from_key(&a.x.c0, g, "x_c0");
	fp_from_key(&a.x.c1, g, "x_c1");
	fp_from_key(&a.y.c0, g, "y_c0");
	fp_from_key(&a.y.c1, g, "y_c1");
	assert_true(zkp_g2_affine_eq(&a, &ZKP_G2_GENERATOR));
}

/* psi applied to an affine point, through Jacobian coordinates with Z != 1 */
static void psi_affine(zkp_g2_affine *ret, const zkp_g2_affine *a)
{
	zkp_g2 p;
	zkp_g2_from_affine(&p, a);
	rescale(&p);
	zkp_g2_psi(&p, &p);
	zkp_g2_to_affine(ret, &p);
}

static void test_psi(void **state)
{
	(void)state;
	/* p and |t| - 1 where t = x + 1 = -0xd20100000000ffff */
	static const uint64_t P_LIMBS[6] = {
		0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
		0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a,
	};
	const uint64_t t_abs = 0xd20100000000ffffULL;
	zkp_fp beta2;
	fp_from_hex(&beta2, "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b"
			    "409427eb4f49fffd8bfd00000000aaac");
	for (int it = 0; it < 3; it++) {
		/* On all of E'(Fp2): psi^2(x, y) = (beta_2 x, -y) and
		 * psi^2 - [t] psi + [p] = 0 (section 4). */
		zkp_g2_affine c, c1, c2;
		zkp_g2 p, q, s, u;
		rand_curve_point(&c);
		psi_affine(&c1, &c);
		assert_true(zkp_g2_affine_is_on_curve(&c1));
		psi_affine(&c2, &c1);
		zkp_fp2 ex;
		zkp_fp2_mul_fp(&ex, &c.x, &beta2);
		assert_true(zkp_fp2_eq(&c2.x, &ex));
		zkp_fp2_neg(&ex, &c.y);
		assert_true(zkp_fp2_eq(&c2.y, &ex));

		zkp_g2_from_affine(&p, &c);
		zkp_g2_from_affine(&q, &c1);
		zkp_g2_from_affine(&s, &c2);
		zkp_g2_mul(&u, &q, &t_abs, 1); /* -[t] psi(P) */
		zkp_g2_add(&s, &s, &u);
		zkp_g2_mul(&u, &p, P_LIMBS, 6);
		zkp_g2_add(&s, &s, &u);
		assert_true(zkp_g2_is_infinity(&s));

		/* On G2: psi(P) = [x]P = -[|x|]P, and psi is additive. */
		zkp_g2 a, b;
		const uint64_t xabs = ZKP_BLS_X_ABS;
		rand_point(&a);
		zkp_g2_psi(&p, &a);
		zkp_g2_mul(&q, &a, &xabs, 1);
		zkp_g2_neg(&q, &q);
		assert_true(zkp_g2_eq(&p, &q));
		rand_point(&b);
		zkp_g2_add(&s, &a, &b);
		zkp_g2_psi(&s, &s);
		zkp_g2_psi(&u, &b);
		zkp_g2_add(&u, &u, &p);
		assert_true(zkp_g2_eq(&s, &u));
	}
	zkp_g2 o;
	zkp_g2_set_infinity(&o);
	zkp_g2_psi(&o, &o);
	assert_true(zkp_g2_is_infinity(&o));
}

static void test_not_in_subgroup_vectors(void **state)
{
	(void)state;
	json_t *arr = json_object_get(tu_vectors(), "g2_not_in_subgroup");
	assert_true(json_array_size(arr) >= 5);
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v) {
		zkp_g2_affine a;
		zkp_g2 p, t;
		fp_from_key(&a.x.c0, v, "x_c0");
		fp_from_key(&a.x.c1, v, "x_c1");
		fp_from_key(&a.y.c0, v, "y_c0");
		fp_from_key(&a.y.c1, v, "y_c1");
		assert_true(zkp_g2_affine_is_on_curve(&a));
		assert_false(zkp_g2_affine_in_subgroup(&a));
		zkp_g2_from_affine(&p, &a);
		rescale(&p);
		assert_false(zkp_g2_in_subgroup(&p));
		zkp_g2_mul(&t, &p, R_LIMBS, 4);
		assert_false(zkp_g2_is_infinity(&t));
		json_t *ord = json_object_get(v, "order");
		if (ord) {
			uint64_t n = strtoull(json_string_value(ord), NULL, 10);
			zkp_g2_mul(&t, &p, &n, 1);
			assert_true(zkp_g2_is_infinity(&t));
		}
	}
}

static void test_cofactor_cleared_points_pass(void **state)
{
	(void)state;
	/* h_eff,2 (section 3, 636 bits) maps E'(Fp2) into G2: subgroup points
	 * not built from the generator, and a 10-limb scalar for mul. */
	static const uint64_t heff[10] = {
		0xe8020005aaa95551, 0x59894c0adebbf6b4, 0xe954cbc06689f6a3,
		0x2ec0ec69d7477c1a, 0x6d82bf015d1212b0, 0x329c2f178731db95,
		0x9986ff031508ffe1, 0x88e2a8e9145ad768, 0x584c6a0ea91b3528,
		0x0bc69f08f2ee75b3,
	};
	for (int it = 0; it < 2; it++) {
		zkp_g2_affine c;
		zkp_g2 p, t;
		rand_curve_point(&c);
		zkp_g2_from_affine(&p, &c);
		zkp_g2_mul(&p, &p, heff, 10);
		assert_false(zkp_g2_is_infinity(&p));
		assert_true(zkp_g2_in_subgroup(&p));
		zkp_g2_mul(&t, &p, R_LIMBS, 4);
		assert_true(zkp_g2_is_infinity(&t));
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		GROUP_TESTS,
		cmocka_unit_test(test_generator_value),
		cmocka_unit_test(test_psi),
		cmocka_unit_test(test_not_in_subgroup_vectors),
		cmocka_unit_test(test_cofactor_cleared_points_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
