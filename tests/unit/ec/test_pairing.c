/*
 * The optimal ate pairing: e(G1, G2) and the bilinearity and multi-pairing
 * cases of the vector file, bilinearity and non-degeneracy on random
 * scalars, infinity handling, multi-Miller loops (chunked and prepared)
 * against single pairings, and Groth16-shaped product checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/ec.h"
#include "zkpd/pairing.h"

static void fp12_from_json(zkp_fp12 *r, json_t *arr)
{
	/* Canonical order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1, which is
	 * also the memory order of zkp_fp12. */
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), 12);
	zkp_fp *slot = (zkp_fp *)r;
	for (size_t i = 0; i < 12; i++) {
		uint8_t be[ZKP_FP_BYTES];
		assert_int_equal(tu_hex_to_bytes(be, sizeof(be),
						 json_string_value(json_array_get(arr, i))),
				 ZKP_FP_BYTES);
		assert_int_equal(zkp_fp_from_be(&slot[i], be), 0);
	}
}

static void scalar_from_hex(uint64_t k[4], const char *hex)
{
	uint8_t be[32];
	assert_int_equal(tu_hex_to_bytes(be, sizeof(be), hex), 32);
	for (int i = 0; i < 4; i++) {
		uint64_t w = 0;
		for (int j = 0; j < 8; j++)
			w = (w << 8) | be[(3 - i) * 8 + j];
		k[i] = w;
	}
}

static void g1_from_hex(zkp_g1_affine *r, const char *hex)
{
	uint8_t buf[ZKP_G1_COMPRESSED_BYTES];
	assert_int_equal(tu_hex_to_bytes(buf, sizeof(buf), hex), (int)sizeof(buf));
	assert_int_equal(zkp_g1_uncompress(r, buf), 0);
}

static void g2_from_hex(zkp_g2_affine *r, const char *hex)
{
	uint8_t buf[ZKP_G2_COMPRESSED_BYTES];
	assert_int_equal(tu_hex_to_bytes(buf, sizeof(buf), hex), (int)sizeof(buf));
	assert_int_equal(zkp_g2_uncompress(r, buf), 0);
}

/* [k]G1 and [k]G2 as affine points, through the ec layer. */
static void g1_mul_gen(zkp_g1_affine *r, const zkp_fr *k)
{
	zkp_g1 p;
	zkp_g1_from_affine(&p, &ZKP_G1_GENERATOR);
	zkp_g1_mul_fr(&p, &p, k);
	zkp_g1_to_affine(r, &p);
}

static void g2_mul_gen(zkp_g2_affine *r, const zkp_fr *k)
{
	zkp_g2 p;
	zkp_g2_from_affine(&p, &ZKP_G2_GENERATOR);
	zkp_g2_mul_fr(&p, &p, k);
	zkp_g2_to_affine(r, &p);
}

static void fp12_pow_fr(zkp_fp12 *r, const zkp_fp12 *a, const zkp_fr *k)
{
	uint64_t l[ZKP_FR_LIMBS];
	zkp_fr_to_limbs(l, k);
	zkp_fp12_pow(r, a, l, ZKP_FR_LIMBS);
}

static void test_generator_pairing(void **state)
{
	(void)state;
	json_t *pv = json_object_get(tu_vectors(), "pairing");
	zkp_fp12 want, exact, e, t;
	fp12_from_json(&want, json_object_get(pv, "e_g1_g2"));
	fp12_from_json(&exact, json_object_get(pv, "e_g1_g2_exact_exponent"));

	zkp_pairing(&e, &ZKP_G1_GENERATOR, &ZKP_G2_GENERATOR);
	assert_true(zkp_fp12_eq(&e, &want));

	/* the library normalisation is the cube of the exact exponent */
	zkp_fp12_sqr(&t, &exact);
	zkp_fp12_mul(&t, &t, &exact);
	assert_true(zkp_fp12_eq(&t, &want));

	/* the same through the parts, the multi form and a prepared Q */
	zkp_fp12 f, g;
	zkp_miller_loop(&f, &ZKP_G1_GENERATOR, &ZKP_G2_GENERATOR, 1);
	zkp_final_exp(&g, &f);
	assert_true(zkp_fp12_eq(&g, &want));
	static zkp_g2_prepared prep;
	zkp_g2_prepare(&prep, &ZKP_G2_GENERATOR);
	zkp_miller_loop_prepared(&g, &ZKP_G1_GENERATOR, &prep, 1);
	assert_true(zkp_fp12_eq(&g, &f)); /* same lines, same order: same f */
	zkp_final_exp(&f, &f);
	assert_true(zkp_fp12_eq(&f, &want));

	/* the vectors' generators are ours */
	zkp_g1_affine p;
	zkp_g2_affine q;
	g1_from_hex(&p, json_string_value(json_object_get(
				json_array_get(json_object_get(tu_vectors(), "g1_points"), 0),
				"compressed")));
	g2_from_hex(&q, json_string_value(json_object_get(
				json_array_get(json_object_get(tu_vectors(), "g2_points"), 0),
				"compressed")));
	assert_true(zkp_g1_affine_eq(&p, &ZKP_G1_GENERATOR));
	assert_true(zkp_g2_affine_eq(&q, &ZKP_G2_GENERATOR));
}

static void test_bilinearity_vectors(void **state)
{
	(void)state;
	json_t *pv = json_object_get(tu_vectors(), "pairing");
	json_t *cases = json_object_get(pv, "bilinearity");
	zkp_fp12 base;
	fp12_from_json(&base, json_object_get(pv, "e_g1_g2"));
	assert_int_equal(json_array_size(cases), 3);
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		zkp_g1_affine p;
		zkp_g2_affine q;
		zkp_fp12 want, e, t;
		g1_from_hex(&p, json_string_value(json_object_get(c, "aG1_compressed")));
		g2_from_hex(&q, json_string_value(json_object_get(c, "bG2_compressed")));
		fp12_from_json(&want, json_object_get(c, "e"));
		zkp_pairing(&e, &p, &q);
		assert_true(zkp_fp12_eq(&e, &want));

		uint64_t ab[4];
		scalar_from_hex(ab, json_string_value(json_object_get(c, "ab_mod_r")));
		zkp_fp12_pow(&t, &base, ab, 4);
		assert_true(zkp_fp12_eq(&t, &want));
	}
}

static void test_bilinearity_random(void **state)
{
	(void)state;
	zkp_fp12 base;
	zkp_pairing(&base, &ZKP_G1_GENERATOR, &ZKP_G2_GENERATOR);
	for (int i = 0; i < 3; i++) {
		zkp_fr a, b, ab;
		tu_rand_fr(&a);
		tu_rand_fr(&b);
		zkp_fr_mul(&ab, &a, &b);
		zkp_g1_affine ap;
		zkp_g2_affine bq, aq;
		g1_mul_gen(&ap, &a);
		g2_mul_gen(&bq, &b);
		g2_mul_gen(&aq, &a);

		zkp_fp12 x, y;
		zkp_pairing(&x, &ap, &bq); /* e(aP, bQ) = e(P, Q)^(ab) */
		fp12_pow_fr(&y, &base, &ab);
		assert_true(zkp_fp12_eq(&x, &y));

		zkp_pairing(&x, &ap, &ZKP_G2_GENERATOR); /* e(aP, Q) = e(P, aQ) */
		zkp_pairing(&y, &ZKP_G1_GENERATOR, &aq);
		assert_true(zkp_fp12_eq(&x, &y));

		/* e(P, -Q) = e(-P, Q) = e(P, Q)^-1 */
		zkp_g1_affine np;
		zkp_g2_affine nq;
		zkp_g1_affine_neg(&np, &ap);
		zkp_g2_affine_neg(&nq, &bq);
		zkp_fp12 e, inv;
		zkp_pairing(&e, &ap, &bq);
		assert_int_equal(zkp_fp12_inv(&inv, &e), 0);
		zkp_pairing(&x, &ap, &nq);
		assert_true(zkp_fp12_eq(&x, &inv));
		zkp_pairing(&x, &np, &bq);
		assert_true(zkp_fp12_eq(&x, &inv));
		zkp_fp12_conjugate(&y, &e); /* GT is cyclotomic */
		assert_true(zkp_fp12_eq(&y, &inv));
	}
}

static void test_non_degenerate_and_order(void **state)
{
	(void)state;
	zkp_fp12 e, t;
	zkp_fr k;
	tu_rand_fr(&k);
	zkp_g1_affine p;
	g1_mul_gen(&p, &k);
	zkp_pairing(&e, &p, &ZKP_G2_GENERATOR);
	assert_false(zkp_fp12_is_one(&e));
	zkp_fp12_pow(&t, &e, ZKP_FR_MODULUS, ZKP_FR_LIMBS);
	assert_true(zkp_fp12_is_one(&t));

	/* in GT: e^(p^4) e = e^(p^2) (cyclotomic) and e^p = e^x */
	zkp_fp12 a, b;
	zkp_fp12_frobenius(&a, &e, 4);
	zkp_fp12_mul(&a, &a, &e);
	zkp_fp12_frobenius(&b, &e, 2);
	assert_true(zkp_fp12_eq(&a, &b));
	zkp_fp12_frobenius(&a, &e, 1);
	zkp_fp12_cyclotomic_exp_x(&b, &e);
	zkp_fp12_conjugate(&b, &b);
	assert_true(zkp_fp12_eq(&a, &b));
}

static void test_infinity(void **state)
{
	(void)state;
	zkp_g1_affine o1;
	zkp_g2_affine o2;
	memset(&o1, 0, sizeof(o1));
	memset(&o2, 0, sizeof(o2));
	zkp_fp12 e, f;
	zkp_pairing(&e, &o1, &ZKP_G2_GENERATOR);
	assert_true(zkp_fp12_is_one(&e));
	zkp_pairing(&e, &ZKP_G1_GENERATOR, &o2);
	assert_true(zkp_fp12_is_one(&e));
	zkp_pairing(&e, &o1, &o2);
	assert_true(zkp_fp12_is_one(&e));
	zkp_miller_loop(&f, NULL, NULL, 0);
	assert_true(zkp_fp12_is_one(&f));
	assert_true(zkp_pairing_check(NULL, NULL, 0));

	/* decoded identities, prepared and not, inside a product */
	json_t *id = json_object_get(tu_vectors(), "identity");
	zkp_g1_affine p[3];
	zkp_g2_affine q[3];
	g1_from_hex(&p[0], json_string_value(json_object_get(id, "g1_compressed")));
	g2_from_hex(&q[1], json_string_value(json_object_get(id, "g2_compressed")));
	p[1] = ZKP_G1_GENERATOR;
	q[0] = ZKP_G2_GENERATOR;
	p[2] = ZKP_G1_GENERATOR;
	q[2] = ZKP_G2_GENERATOR;
	zkp_miller_loop(&f, p, q, 3);
	zkp_final_exp(&f, &f);
	zkp_pairing(&e, &ZKP_G1_GENERATOR, &ZKP_G2_GENERATOR);
	assert_true(zkp_fp12_eq(&e, &f));

	static zkp_g2_prepared prep[3];
	for (int i = 0; i < 3; i++)
		zkp_g2_prepare(&prep[i], &q[i]);
	assert_true(prep[1].infinity);
	zkp_miller_loop_prepared(&f, p, prep, 3);
	zkp_final_exp(&f, &f);
	assert_true(zkp_fp12_eq(&e, &f));

	/* final_exp of 0 (not a Miller loop output) is 0, never 1 */
	zkp_fp12_set_zero(&f);
	zkp_final_exp(&f, &f);
	assert_true(zkp_fp12_is_zero(&f));
}

static void test_multi_pairing_vectors(void **state)
{
	(void)state;
	json_t *cases = json_object_get(tu_vectors(), "multi_pairing");
	assert_int_equal(json_array_size(cases), 6);
	static zkp_g2_prepared prep[3];
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		json_t *pairs = json_object_get(c, "pairs");
		bool want = json_is_true(json_object_get(c, "expect_one"));
		zkp_g1_affine p[3];
		zkp_g2_affine q[3];
		assert_int_equal(json_array_size(pairs), 3);
		for (size_t j = 0; j < 3; j++) {
			json_t *pr = json_array_get(pairs, j);
			g1_from_hex(&p[j], json_string_value(json_object_get(pr, "g1_compressed")));
			g2_from_hex(&q[j], json_string_value(json_object_get(pr, "g2_compressed")));
			zkp_g2_prepare(&prep[j], &q[j]);
		}
		assert_int_equal(zkp_pairing_check(p, q, 3), want);
		assert_int_equal(zkp_pairing_check_mixed(p, q, 1, p + 1, prep + 1, 2), want);
		assert_int_equal(zkp_pairing_check_mixed(NULL, NULL, 0, p, prep, 3), want);
	}
}

static void test_multi_miller_chunks(void **state)
{
	(void)state;
	/* More pairs than one chunk holds: sum_i a_i b_i = 0, with the last
	 * pair fixing the sum. Also the product of the pairings one by one. */
	enum { N = 2 * ZKP_MILLER_CHUNK + 3 };
	static zkp_g1_affine p[N];
	static zkp_g2_affine q[N];
	zkp_fr sum, a, b, t;
	zkp_fr_set_zero(&sum);
	for (size_t i = 0; i < N - 1; i++) {
		tu_rand_fr(&a);
		/* only a few distinct G2 points keep the setup cheap */
		zkp_fr_set_u64(&b, 1 + i % 3);
		zkp_fr_mul(&t, &a, &b);
		zkp_fr_add(&sum, &sum, &t);
		g1_mul_gen(&p[i], &a);
		g2_mul_gen(&q[i], &b);
	}
	zkp_fr_neg(&sum, &sum);
	g1_mul_gen(&p[N - 1], &sum);
	q[N - 1] = ZKP_G2_GENERATOR;
	assert_true(zkp_pairing_check(p, q, N));
	p[N - 1] = ZKP_G1_GENERATOR;
	assert_false(zkp_pairing_check(p, q, N));

	zkp_fp12 f, e, acc;
	zkp_fp12_set_one(&acc);
	for (size_t i = ZKP_MILLER_CHUNK - 2; i < N; i++) {
		zkp_pairing(&e, &p[i], &q[i]);
		zkp_fp12_mul(&acc, &acc, &e);
	}
	size_t n = N - (ZKP_MILLER_CHUNK - 2);
	zkp_miller_loop(&f, p + ZKP_MILLER_CHUNK - 2, q + ZKP_MILLER_CHUNK - 2, n);
	zkp_final_exp(&f, &f);
	assert_true(zkp_fp12_eq(&f, &acc));
}

static void test_groth16_shape(void **state)
{
	(void)state;
	/* e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) with
	 * ab = alpha beta + l gamma + c delta, checked as the product
	 * e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) = 1. */
	static zkp_g2_prepared prep[3];
	for (int round = 0; round < 3; round++) {
		zkp_fr a, b, al, be, ga, de, l, c, t, u;
		tu_rand_fr(&a);
		tu_rand_fr(&b);
		tu_rand_fr(&al);
		tu_rand_fr(&be);
		tu_rand_fr(&ga);
		tu_rand_fr(&de);
		tu_rand_fr(&l);
		zkp_fr_mul(&t, &a, &b);
		zkp_fr_mul(&u, &al, &be);
		zkp_fr_sub(&t, &t, &u);
		zkp_fr_mul(&u, &l, &ga);
		zkp_fr_sub(&t, &t, &u);
		assert_int_equal(zkp_fr_inv(&u, &de), 0);
		zkp_fr_mul(&c, &t, &u);

		zkp_g1_affine p[4];
		zkp_g2_affine q[4];
		g1_mul_gen(&p[0], &a);
		zkp_g1_affine_neg(&p[0], &p[0]);
		g2_mul_gen(&q[0], &b);
		g1_mul_gen(&p[1], &al);
		g2_mul_gen(&q[1], &be);
		g1_mul_gen(&p[2], &l);
		g2_mul_gen(&q[2], &ga);
		g1_mul_gen(&p[3], &c);
		g2_mul_gen(&q[3], &de);
		for (int i = 0; i < 3; i++)
			zkp_g2_prepare(&prep[i], &q[i + 1]);

		assert_true(zkp_pairing_check(p, q, 4));
		assert_true(zkp_pairing_check_mixed(p, q, 1, p + 1, prep, 3));

		/* the same equation as two sides of a comparison */
		zkp_fp12 lhs, rhs;
		zkp_g1_affine pa;
		zkp_g1_affine_neg(&pa, &p[0]);
		zkp_pairing(&lhs, &pa, &q[0]);
		zkp_miller_loop(&rhs, p + 1, q + 1, 3);
		zkp_final_exp(&rhs, &rhs);
		assert_true(zkp_fp12_eq(&lhs, &rhs));

		/* a proof with C moved by G1 fails */
		zkp_g1 cc;
		zkp_g1_from_affine(&cc, &p[3]);
		zkp_g1_add_affine(&cc, &cc, &ZKP_G1_GENERATOR);
		zkp_g1_to_affine(&p[3], &cc);
		assert_false(zkp_pairing_check(p, q, 4));
		assert_false(zkp_pairing_check_mixed(p, q, 1, p + 1, prep, 3));
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generator_pairing),
		cmocka_unit_test(test_bilinearity_vectors),
		cmocka_unit_test(test_bilinearity_random),
		cmocka_unit_test(test_non_degenerate_and_order),
		cmocka_unit_test(test_infinity),
		cmocka_unit_test(test_multi_pairing_vectors),
		cmocka_unit_test(test_multi_miller_chunks),
		cmocka_unit_test(test_groth16_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
