/*
 * Fp6 and Fp12: field axioms on random elements, the sparse and special
 * products against dense ones, Frobenius maps against generic powering
 * by p^k, the section 5 constants against their canonical hex and against
 * powers of xi, and cyclotomic squaring against plain squaring.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/error.h"
#include "zkpd/tower.h"

#define ROUNDS 8

/* Canonical gamma_w(k) of docs/math.md, 'Frobenius', (c0, c1), k = 0.. */
static const char *const GAMMA_W_HEX[12][2] = {
	{ "1", "0" },
	{ "0x1904d3bf02bb0667c231beb4202c0d1f0fd603fd3cbd5f4f7b2443d784bab9c4f67ea53d63e7813d8d0775ed92235fb8",
	  "0x00fc3e2b36c4e03288e9e902231f9fb854a14787b6c7b36fec0c8ec971f63c5f282d5ac14d6c7ec22cf78a126ddc4af3" },
	{ "0x00000000000000005f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffeffff",
	  "0" },
	{ "0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2",
	  "0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09" },
	{ "0x00000000000000005f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe",
	  "0" },
	{ "0x144e4211384586c16bd3ad4afa99cc9170df3560e77982d0db45f3536814f0bd5871c1908bd478cd1ee605167ff82995",
	  "0x05b2cfd9013a5fd8df47fa6b48b1e045f39816240c0b8fee8beadf4d8e9c0566c63a3e6e257f87329b18fae980078116" },
	{ "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaaa",
	  "0" },
	{ "0x00fc3e2b36c4e03288e9e902231f9fb854a14787b6c7b36fec0c8ec971f63c5f282d5ac14d6c7ec22cf78a126ddc4af3",
	  "0x1904d3bf02bb0667c231beb4202c0d1f0fd603fd3cbd5f4f7b2443d784bab9c4f67ea53d63e7813d8d0775ed92235fb8" },
	{ "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac",
	  "0" },
	{ "0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09",
	  "0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2" },
	{ "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad",
	  "0" },
	{ "0x05b2cfd9013a5fd8df47fa6b48b1e045f39816240c0b8fee8beadf4d8e9c0566c63a3e6e257f87329b18fae980078116",
	  "0x144e4211384586c16bd3ad4afa99cc9170df3560e77982d0db45f3536814f0bd5871c1908bd478cd1ee605167ff82995" },
};
static const char *const GAMMA_V_HEX[6][2] = {
	{ "1", "0" },
	{ "0",
	  "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac" },
	{ "0x00000000000000005f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe",
	  "0" },
	{ "0", "1" },
	{ "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac",
	  "0" },
	{ "0",
	  "0x00000000000000005f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe" },
};
static const char *const GAMMA_V2_HEX[6][2] = {
	{ "1", "0" },
	{ "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad",
	  "0" },
	{ "0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaac",
	  "0" },
	{ "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaaa",
	  "0" },
	{ "0x00000000000000005f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe",
	  "0" },
	{ "0x00000000000000005f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffeffff",
	  "0" },
};

static void rand_fp(zkp_fp *r)
{
	uint64_t w[2 * ZKP_FP_LIMBS];
	for (size_t i = 0; i < 2 * ZKP_FP_LIMBS; i++)
		w[i] = tu_rand64();
	zkp_fp_from_wide(r, w);
}

static void rand_fp2(zkp_fp2 *r)
{
	rand_fp(&r->c0);
	rand_fp(&r->c1);
}

static void rand_fp6(zkp_fp6 *r)
{
	rand_fp2(&r->c0);
	rand_fp2(&r->c1);
	rand_fp2(&r->c2);
}

static void rand_fp12(zkp_fp12 *r)
{
	rand_fp6(&r->c0);
	rand_fp6(&r->c1);
}

static void fp2_from_hex(zkp_fp2 *r, const char *const hex[2])
{
	uint8_t be[ZKP_FP_BYTES];
	assert_true(tu_hex_to_bytes(be, sizeof(be), hex[0]) > 0);
	assert_int_equal(zkp_fp_from_be(&r->c0, be), 0);
	assert_true(tu_hex_to_bytes(be, sizeof(be), hex[1]) > 0);
	assert_int_equal(zkp_fp_from_be(&r->c1, be), 0);
}

/* e = (p^k - sub) / div as little-endian limbs; returns the limb count. */
static size_t p_power_limbs(uint64_t *e, size_t cap, unsigned k, unsigned sub, unsigned div)
{
	mpz_t p, z;
	mpz_init(p);
	mpz_init(z);
	tu_mpz_from_limbs(p, ZKP_FP_MODULUS, ZKP_FP_LIMBS);
	mpz_pow_ui(z, p, k);
	mpz_sub_ui(z, z, sub);
	assert_true(mpz_divisible_ui_p(z, div));
	mpz_divexact_ui(z, z, div);
	size_t n = (mpz_sizeinbase(z, 2) + 63) / 64;
	assert_true(n <= cap);
	tu_limbs_from_mpz(e, n, z);
	mpz_clear(p);
	mpz_clear(z);
	return n;
}

static void test_frobenius_constants(void **state)
{
	(void)state;
	zkp_fp2 xi, want, pw;
	zkp_fp2_set_one(&xi);
	xi.c1 = ZKP_FP_ONE;
	uint64_t e[72];
	for (unsigned k = 0; k < 12; k++) {
		fp2_from_hex(&want, GAMMA_W_HEX[k]);
		assert_true(zkp_fp2_eq(&ZKP_FP12_FROB_W[k], &want));
		size_t n = p_power_limbs(e, 72, k, 1, 6);
		zkp_fp2_pow(&pw, &xi, e, n);
		assert_true(zkp_fp2_eq(&pw, &want));
	}
	for (unsigned k = 0; k < 6; k++) {
		fp2_from_hex(&want, GAMMA_V_HEX[k]);
		assert_true(zkp_fp2_eq(&ZKP_FP6_FROB_V[k], &want));
		size_t n = p_power_limbs(e, 72, k, 1, 3);
		zkp_fp2_pow(&pw, &xi, e, n);
		assert_true(zkp_fp2_eq(&pw, &want));

		fp2_from_hex(&want, GAMMA_V2_HEX[k]);
		assert_true(zkp_fp2_eq(&ZKP_FP6_FROB_V2[k], &want));
		zkp_fp2_sqr(&pw, &pw); /* xi^(2(p^k - 1)/3) */
		assert_true(zkp_fp2_eq(&pw, &want));
	}
}

static void test_fp6_axioms(void **state)
{
	(void)state;
	for (int i = 0; i < ROUNDS; i++) {
		zkp_fp6 a, b, c, x, y, z, one, zero;
		rand_fp6(&a);
		rand_fp6(&b);
		rand_fp6(&c);
		zkp_fp6_set_one(&one);
		zkp_fp6_set_zero(&zero);
		assert_true(zkp_fp6_is_one(&one));
		assert_true(zkp_fp6_is_zero(&zero));

		/* (ab)c = a(bc), ab = ba, a(b + c) = ab + ac */
		zkp_fp6_mul(&x, &a, &b);
		zkp_fp6_mul(&x, &x, &c);
		zkp_fp6_mul(&y, &b, &c);
		zkp_fp6_mul(&y, &a, &y);
		assert_true(zkp_fp6_eq(&x, &y));
		zkp_fp6_mul(&x, &a, &b);
		zkp_fp6_mul(&y, &b, &a);
		assert_true(zkp_fp6_eq(&x, &y));
		zkp_fp6_add(&x, &b, &c);
		zkp_fp6_mul(&x, &a, &x);
		zkp_fp6_mul(&y, &a, &b);
		zkp_fp6_mul(&z, &a, &c);
		zkp_fp6_add(&y, &y, &z);
		assert_true(zkp_fp6_eq(&x, &y));

		/* (a + b) - b = a, a + (-a) = 0, 2a = a + a, a * 1 = a */
		zkp_fp6_add(&x, &a, &b);
		zkp_fp6_sub(&x, &x, &b);
		assert_true(zkp_fp6_eq(&x, &a));
		zkp_fp6_neg(&x, &a);
		zkp_fp6_add(&x, &x, &a);
		assert_true(zkp_fp6_is_zero(&x));
		zkp_fp6_dbl(&x, &a);
		zkp_fp6_add(&y, &a, &a);
		assert_true(zkp_fp6_eq(&x, &y));
		zkp_fp6_mul(&x, &a, &one);
		assert_true(zkp_fp6_eq(&x, &a));

		/* sqr, with aliasing */
		zkp_fp6_mul(&x, &a, &a);
		y = a;
		zkp_fp6_sqr(&y, &y);
		assert_true(zkp_fp6_eq(&x, &y));

		/* inverse */
		assert_int_equal(zkp_fp6_inv(&x, &a), 0);
		zkp_fp6_mul(&x, &x, &a);
		assert_true(zkp_fp6_is_one(&x));

		/* mul_by_nonresidue is multiplication by v */
		zkp_fp6 v = zero;
		v.c1 = ZKP_FP2_ONE;
		zkp_fp6_mul(&x, &a, &v);
		zkp_fp6_mul_by_nonresidue(&y, &a);
		assert_true(zkp_fp6_eq(&x, &y));
		/* v^3 = xi */
		zkp_fp6_mul(&x, &v, &v);
		zkp_fp6_mul(&x, &x, &v);
		zkp_fp2 xi = ZKP_FP2_ONE;
		xi.c1 = ZKP_FP_ONE;
		assert_true(zkp_fp2_eq(&x.c0, &xi));
		assert_true(zkp_fp2_is_zero(&x.c1) && zkp_fp2_is_zero(&x.c2));

		/* sparse products */
		zkp_fp6 s = zero;
		s.c0 = b.c0;
		s.c1 = b.c1;
		zkp_fp6_mul(&x, &a, &s);
		zkp_fp6_mul_by_01(&y, &a, &b.c0, &b.c1);
		assert_true(zkp_fp6_eq(&x, &y));
		s = zero;
		s.c1 = b.c1;
		zkp_fp6_mul(&x, &a, &s);
		zkp_fp6_mul_by_1(&y, &a, &b.c1);
		assert_true(zkp_fp6_eq(&x, &y));
		s = zero;
		s.c0 = b.c0;
		zkp_fp6_mul(&x, &a, &s);
		zkp_fp6_mul_fp2(&y, &a, &b.c0);
		assert_true(zkp_fp6_eq(&x, &y));
	}
	zkp_fp6 zero, x;
	zkp_fp6_set_zero(&zero);
	assert_int_equal(zkp_fp6_inv(&x, &zero), ZKP_ERR_NOT_INVERTIBLE);
	assert_true(zkp_fp6_is_zero(&x));
}

static void test_fp12_axioms(void **state)
{
	(void)state;
	for (int i = 0; i < ROUNDS; i++) {
		zkp_fp12 a, b, c, x, y, z, one;
		rand_fp12(&a);
		rand_fp12(&b);
		rand_fp12(&c);
		zkp_fp12_set_one(&one);
		assert_true(zkp_fp12_is_one(&one));
		assert_false(zkp_fp12_is_one(&a));

		zkp_fp12_mul(&x, &a, &b);
		zkp_fp12_mul(&x, &x, &c);
		zkp_fp12_mul(&y, &b, &c);
		zkp_fp12_mul(&y, &a, &y);
		assert_true(zkp_fp12_eq(&x, &y));
		zkp_fp12_mul(&x, &a, &b);
		zkp_fp12_mul(&y, &b, &a);
		assert_true(zkp_fp12_eq(&x, &y));
		zkp_fp12_add(&x, &b, &c);
		zkp_fp12_mul(&x, &a, &x);
		zkp_fp12_mul(&y, &a, &b);
		zkp_fp12_mul(&z, &a, &c);
		zkp_fp12_add(&y, &y, &z);
		assert_true(zkp_fp12_eq(&x, &y));

		zkp_fp12_add(&x, &a, &b);
		zkp_fp12_sub(&x, &x, &b);
		assert_true(zkp_fp12_eq(&x, &a));
		zkp_fp12_neg(&x, &a);
		zkp_fp12_add(&x, &x, &a);
		assert_true(zkp_fp12_is_zero(&x));
		zkp_fp12_mul(&x, &a, &one);
		assert_true(zkp_fp12_eq(&x, &a));

		zkp_fp12_mul(&x, &a, &a);
		y = a;
		zkp_fp12_sqr(&y, &y);
		assert_true(zkp_fp12_eq(&x, &y));

		assert_int_equal(zkp_fp12_inv(&x, &a), 0);
		zkp_fp12_mul(&x, &x, &a);
		assert_true(zkp_fp12_is_one(&x));

		/* w^2 = v */
		zkp_fp12 w;
		zkp_fp12_set_zero(&w);
		w.c1.c0 = ZKP_FP2_ONE;
		zkp_fp12_sqr(&x, &w);
		assert_true(zkp_fp6_is_zero(&x.c1));
		assert_true(zkp_fp2_is_zero(&x.c0.c0) && zkp_fp2_is_one(&x.c0.c1) &&
			    zkp_fp2_is_zero(&x.c0.c2));

		/* the line shape c0 + c1 v + c4 v w */
		zkp_fp2 l0, l1, l4;
		rand_fp2(&l0);
		rand_fp2(&l1);
		rand_fp2(&l4);
		zkp_fp12 l;
		zkp_fp12_set_zero(&l);
		l.c0.c0 = l0;
		l.c0.c1 = l1;
		l.c1.c1 = l4;
		zkp_fp12_mul(&x, &a, &l);
		y = a;
		zkp_fp12_mul_by_014(&y, &y, &l0, &l1, &l4);
		assert_true(zkp_fp12_eq(&x, &y));
	}
	zkp_fp12 zero, x;
	zkp_fp12_set_zero(&zero);
	assert_int_equal(zkp_fp12_inv(&x, &zero), ZKP_ERR_NOT_INVERTIBLE);
	assert_true(zkp_fp12_is_zero(&x));
}

static void test_pow(void **state)
{
	(void)state;
	zkp_fp12 a, x, y;
	zkp_fp6 b, s, t;
	rand_fp12(&a);
	rand_fp6(&b);
	uint64_t zero = 0, e2[2] = { 0x123456789abcdef1ULL, 0x5 };
	zkp_fp12_pow(&x, &a, &zero, 1);
	assert_true(zkp_fp12_is_one(&x));
	zkp_fp6_pow(&s, &b, &zero, 1);
	assert_true(zkp_fp6_is_one(&s));
	/* a^(e + 1) = a^e * a, with e spanning two limbs */
	zkp_fp12_pow(&x, &a, e2, 2);
	zkp_fp12_mul(&x, &x, &a);
	e2[0]++;
	zkp_fp12_pow(&y, &a, e2, 2);
	assert_true(zkp_fp12_eq(&x, &y));
	e2[0]--;
	zkp_fp6_pow(&s, &b, e2, 2);
	zkp_fp6_mul(&s, &s, &b);
	e2[0]++;
	zkp_fp6_pow(&t, &b, e2, 2);
	assert_true(zkp_fp6_eq(&s, &t));
}

static void test_fp6_frobenius(void **state)
{
	(void)state;
	uint64_t e[40];
	zkp_fp6 a, x, y;
	rand_fp6(&a);
	static const unsigned ks[] = { 1, 2, 3 };
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		size_t n = p_power_limbs(e, 40, ks[i], 0, 1);
		zkp_fp6_pow(&x, &a, e, n);
		zkp_fp6_frobenius(&y, &a, ks[i]);
		assert_true(zkp_fp6_eq(&x, &y));
	}
	/* phi^k = phi_1 applied k times; phi_6 is the identity on Fp6 */
	x = a;
	for (unsigned k = 1; k <= 12; k++) {
		zkp_fp6_frobenius(&x, &x, 1);
		zkp_fp6_frobenius(&y, &a, k);
		assert_true(zkp_fp6_eq(&x, &y));
	}
	zkp_fp6_frobenius(&y, &a, 6);
	assert_true(zkp_fp6_eq(&y, &a));
}

static void test_fp12_frobenius(void **state)
{
	(void)state;
	uint64_t e[40];
	zkp_fp12 a, x, y;
	rand_fp12(&a);
	static const unsigned ks[] = { 1, 2, 3, 6 };
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		size_t n = p_power_limbs(e, 40, ks[i], 0, 1);
		zkp_fp12_pow(&x, &a, e, n);
		zkp_fp12_frobenius(&y, &a, ks[i]);
		assert_true(zkp_fp12_eq(&x, &y));
	}
	x = a;
	for (unsigned k = 1; k <= 11; k++) {
		zkp_fp12_frobenius(&x, &x, 1);
		zkp_fp12_frobenius(&y, &a, k);
		assert_true(zkp_fp12_eq(&x, &y));
	}
	zkp_fp12_frobenius(&x, &x, 1); /* phi_1^12 */
	assert_true(zkp_fp12_eq(&x, &a));
	zkp_fp12_frobenius(&y, &a, 12);
	assert_true(zkp_fp12_eq(&y, &a));
	zkp_fp12_frobenius(&y, &a, 0);
	assert_true(zkp_fp12_eq(&y, &a));
	/* conjugation is phi_6 */
	zkp_fp12_frobenius(&x, &a, 6);
	zkp_fp12_conjugate(&y, &a);
	assert_true(zkp_fp12_eq(&x, &y));
	/* Frobenius is multiplicative */
	zkp_fp12 b, ab;
	rand_fp12(&b);
	zkp_fp12_mul(&ab, &a, &b);
	zkp_fp12_frobenius(&ab, &ab, 5);
	zkp_fp12_frobenius(&x, &a, 5);
	zkp_fp12_frobenius(&y, &b, 5);
	zkp_fp12_mul(&x, &x, &y);
	assert_true(zkp_fp12_eq(&x, &ab));
}

/* m = f^((p^6 - 1)(p^2 + 1)), a random element of the cyclotomic subgroup. */
static void rand_cyclotomic(zkp_fp12 *m)
{
	zkp_fp12 f, t;
	rand_fp12(&f);
	assert_int_equal(zkp_fp12_inv(&t, &f), 0);
	zkp_fp12_conjugate(m, &f);
	zkp_fp12_mul(m, m, &t);
	zkp_fp12_frobenius(&t, m, 2);
	zkp_fp12_mul(m, &t, m);
}

static void test_cyclotomic(void **state)
{
	(void)state;
	for (int i = 0; i < 4; i++) {
		zkp_fp12 m, x, y;
		rand_cyclotomic(&m);
		/* in the subgroup: m^(p^4 - p^2 + 1) = 1 (m^(p^4) m = m^(p^2)),
		 * and 1/m = conj(m) */
		zkp_fp12_frobenius(&x, &m, 4);
		zkp_fp12_mul(&x, &x, &m);
		zkp_fp12_frobenius(&y, &m, 2);
		assert_true(zkp_fp12_eq(&x, &y));
		zkp_fp12_conjugate(&x, &m);
		zkp_fp12_mul(&x, &x, &m);
		assert_true(zkp_fp12_is_one(&x));

		zkp_fp12_sqr(&x, &m);
		y = m;
		zkp_fp12_cyclotomic_sqr(&y, &y);
		assert_true(zkp_fp12_eq(&x, &y));

		uint64_t e = 0xd201000000010000ULL;
		zkp_fp12_pow(&x, &m, &e, 1);
		zkp_fp12_cyclotomic_exp_x(&y, &m);
		assert_true(zkp_fp12_eq(&x, &y));
	}
	/* and it really needs the subgroup: a random element fails */
	zkp_fp12 a, x, y;
	rand_fp12(&a);
	zkp_fp12_sqr(&x, &a);
	zkp_fp12_cyclotomic_sqr(&y, &a);
	assert_false(zkp_fp12_eq(&x, &y));
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frobenius_constants),
		cmocka_unit_test(test_fp6_axioms),
		cmocka_unit_test(test_fp12_axioms),
		cmocka_unit_test(test_pow),
		cmocka_unit_test(test_fp6_frobenius),
		cmocka_unit_test(test_fp12_frobenius),
		cmocka_unit_test(test_cyclotomic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
