/*
 * Fp2 = Fp[u]/(u^2 + 1) against a GMP reference of the same formulas written
 * the obvious way: (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"

#define ITERS 20000

static mpz_t P;

static void rand_fp(zkp_fp *r)
{
	uint64_t w[12];
	for (int i = 0; i < 12; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(r, w);
}

static void rand_fp2(zkp_fp2 *r)
{
	rand_fp(&r->c0);
	rand_fp(&r->c1);
}

static void to_mpz(mpz_t z, const zkp_fp *a)
{
	uint64_t l[6];
	zkp_fp_to_limbs(l, a);
	tu_mpz_from_limbs(z, l, 6);
}

static void from_mpz(zkp_fp *a, const mpz_t z)
{
	uint64_t l[6];
	tu_limbs_from_mpz(l, 6, z);
	assert_int_equal(zkp_fp_from_limbs(a, l), 0);
}

/* Reference multiplication in GMP. */
static void ref_mul(zkp_fp2 *r, const zkp_fp2 *a, const zkp_fp2 *b)
{
	mpz_t a0, a1, b0, b1, t, u;
	mpz_inits(a0, a1, b0, b1, t, u, NULL);
	to_mpz(a0, &a->c0);
	to_mpz(a1, &a->c1);
	to_mpz(b0, &b->c0);
	to_mpz(b1, &b->c1);
	mpz_mul(t, a0, b0);
	mpz_submul(t, a1, b1);
	mpz_mod(t, t, P);
	mpz_mul(u, a0, b1);
	mpz_addmul(u, a1, b0);
	mpz_mod(u, u, P);
	from_mpz(&r->c0, t);
	from_mpz(&r->c1, u);
	mpz_clears(a0, a1, b0, b1, t, u, NULL);
}

static void assert_fp2_eq(const zkp_fp2 *x, const zkp_fp2 *y, const char *what)
{
	if (!zkp_fp2_eq(x, y)) {
		uint8_t bx[48], by[48];
		fprintf(stderr, "%s mismatch\n", what);
		zkp_fp_to_be(bx, &x->c0);
		zkp_fp_to_be(by, &y->c0);
		for (int i = 0; i < 48; i++)
			fprintf(stderr, "%02x", bx[i]);
		fprintf(stderr, " vs ");
		for (int i = 0; i < 48; i++)
			fprintf(stderr, "%02x", by[i]);
		fprintf(stderr, " (c0)\n");
		fail();
	}
}

static void test_mul_sqr_against_gmp(void **state)
{
	(void)state;
	for (int i = 0; i < ITERS; i++) {
		zkp_fp2 a, b, r, e;
		rand_fp2(&a);
		rand_fp2(&b);
		if (i == 0)
			zkp_fp2_set_zero(&a);
		if (i == 1)
			zkp_fp2_set_one(&b);
		zkp_fp2_mul(&r, &a, &b);
		ref_mul(&e, &a, &b);
		assert_fp2_eq(&r, &e, "fp2_mul");
		zkp_fp2_sqr(&r, &a);
		ref_mul(&e, &a, &a);
		assert_fp2_eq(&r, &e, "fp2_sqr");
		/* aliasing: ret == input */
		r = a;
		zkp_fp2_mul(&r, &r, &b);
		ref_mul(&e, &a, &b);
		assert_fp2_eq(&r, &e, "fp2_mul aliased");
	}
}

static void test_linear_ops(void **state)
{
	(void)state;
	for (int i = 0; i < ITERS; i++) {
		zkp_fp2 a, b, r, e, xi;
		rand_fp2(&a);
		rand_fp2(&b);
		zkp_fp2_add(&r, &a, &b);
		zkp_fp_add(&e.c0, &a.c0, &b.c0);
		zkp_fp_add(&e.c1, &a.c1, &b.c1);
		assert_fp2_eq(&r, &e, "fp2_add");
		zkp_fp2_sub(&r, &r, &b);
		assert_fp2_eq(&r, &a, "fp2_sub");
		zkp_fp2_neg(&r, &a);
		zkp_fp2_add(&r, &r, &a);
		assert_true(zkp_fp2_is_zero(&r));
		zkp_fp2_dbl(&r, &a);
		zkp_fp2_add(&e, &a, &a);
		assert_fp2_eq(&r, &e, "fp2_dbl");
		/* xi = 1 + u */
		xi.c0 = ZKP_FP_ONE;
		xi.c1 = ZKP_FP_ONE;
		zkp_fp2_mul_by_xi(&r, &a);
		ref_mul(&e, &a, &xi);
		assert_fp2_eq(&r, &e, "fp2_mul_by_xi");
		zkp_fp2 bf = { b.c0, { { 0 } } };
		zkp_fp2_mul_fp(&r, &a, &b.c0);
		ref_mul(&e, &a, &bf);
		assert_fp2_eq(&r, &e, "fp2_mul_fp");
	}
}

static void test_inverse(void **state)
{
	(void)state;
	zkp_fp2 z, r;
	zkp_fp2_set_zero(&z);
	assert_int_equal(zkp_fp2_inv(&r, &z), ZKP_ERR_NOT_INVERTIBLE);
	for (int i = 0; i < 2000; i++) {
		zkp_fp2 a, inv, prod;
		rand_fp2(&a);
		if (i == 0)
			zkp_fp_set_zero(&a.c1); /* purely real */
		if (i == 1)
			zkp_fp_set_zero(&a.c0); /* purely imaginary */
		assert_int_equal(zkp_fp2_inv(&inv, &a), 0);
		ref_mul(&prod, &a, &inv);
		assert_true(zkp_fp2_is_one(&prod));
	}
}

/* e = p as limbs, for a^p. */
static void test_frobenius_and_conj(void **state)
{
	(void)state;
	for (int i = 0; i < 200; i++) {
		zkp_fp2 a, f, c, pw;
		rand_fp2(&a);
		zkp_fp2_pow(&pw, &a, ZKP_FP_MODULUS, 6);
		zkp_fp2_frobenius(&f, &a, 1);
		zkp_fp2_conj(&c, &a);
		assert_fp2_eq(&f, &pw, "frobenius vs a^p");
		assert_fp2_eq(&c, &pw, "conj vs a^p");
		zkp_fp2_frobenius(&f, &a, 2);
		assert_fp2_eq(&f, &a, "frobenius^2");
	}
}

static void test_pow_small(void **state)
{
	(void)state;
	for (int i = 0; i < 500; i++) {
		zkp_fp2 a, r, e;
		rand_fp2(&a);
		uint64_t k = tu_rand64() % 50;
		zkp_fp2_pow(&r, &a, &k, 1);
		zkp_fp2_set_one(&e);
		for (uint64_t j = 0; j < k; j++)
			ref_mul(&e, &e, &a);
		assert_fp2_eq(&r, &e, "fp2_pow");
	}
}

static void test_sqrt_and_legendre(void **state)
{
	(void)state;
	int squares = 0, nonsquares = 0;
	for (int i = 0; i < 1000; i++) {
		zkp_fp2 a, s, r, chk;
		rand_fp2(&a);
		if (i == 0)
			zkp_fp_set_zero(&a.c1);
		if (i == 1)
			zkp_fp_set_zero(&a.c0);
		/* a^2 is always a square and its root is +-a */
		zkp_fp2_sqr(&s, &a);
		assert_int_equal(zkp_fp2_legendre(&s), 1);
		assert_int_equal(zkp_fp2_sqrt(&r, &s), 0);
		zkp_fp2_neg(&chk, &r);
		assert_true(zkp_fp2_eq(&r, &a) || zkp_fp2_eq(&chk, &a));
		/* a itself: root exists iff legendre says so */
		int leg = zkp_fp2_legendre(&a);
		int err = zkp_fp2_sqrt(&r, &a);
		if (leg == 1) {
			squares++;
			assert_int_equal(err, 0);
			zkp_fp2_sqr(&chk, &r);
			assert_fp2_eq(&chk, &a, "sqrt^2");
		} else {
			nonsquares++;
			assert_int_equal(leg, -1);
			assert_int_equal(err, ZKP_ERR_NO_SQRT);
		}
	}
	/* about half are squares; both branches must have run */
	assert_true(squares > 300 && nonsquares > 300);
	zkp_fp2 z, r;
	zkp_fp2_set_zero(&z);
	assert_int_equal(zkp_fp2_legendre(&z), 0);
	assert_int_equal(zkp_fp2_sqrt(&r, &z), 0);
	assert_true(zkp_fp2_is_zero(&r));
}

static void test_lexi_largest(void **state)
{
	(void)state;
	/* (p-1)/2 is not "largest", (p+1)/2 is; c1 decides unless it is 0. */
	mpz_t h;
	mpz_init(h);
	mpz_sub_ui(h, P, 1);
	mpz_fdiv_q_2exp(h, h, 1);
	zkp_fp half, half1;
	from_mpz(&half, h);
	mpz_add_ui(h, h, 1);
	from_mpz(&half1, h);
	mpz_clear(h);
	assert_false(zkp_fp_is_lexi_largest(&half));
	assert_true(zkp_fp_is_lexi_largest(&half1));
	zkp_fp2 a;
	a.c0 = half1;
	zkp_fp_set_zero(&a.c1);
	assert_true(zkp_fp2_is_lexi_largest(&a));
	a.c1 = half;
	assert_false(zkp_fp2_is_lexi_largest(&a));
	a.c0 = half;
	a.c1 = half1;
	assert_true(zkp_fp2_is_lexi_largest(&a));
	for (int i = 0; i < 1000; i++) {
		zkp_fp2 b, nb;
		rand_fp2(&b);
		zkp_fp2_neg(&nb, &b);
		if (!zkp_fp2_is_zero(&b))
			assert_true(zkp_fp2_is_lexi_largest(&b) !=
				    zkp_fp2_is_lexi_largest(&nb));
	}
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	mpz_init(P);
	tu_mpz_from_limbs(P, ZKP_FP_MODULUS, 6);
	fprintf(stderr, "multiplication: %s\n", zkp_ff_backend());
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mul_sqr_against_gmp),
		cmocka_unit_test(test_linear_ops),
		cmocka_unit_test(test_inverse),
		cmocka_unit_test(test_frobenius_and_conj),
		cmocka_unit_test(test_pow_small),
		cmocka_unit_test(test_sqrt_and_legendre),
		cmocka_unit_test(test_lexi_largest),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
