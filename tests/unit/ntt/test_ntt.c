/*
 * NTT against an O(n^2) DFT (small n, every order, direction, coset and root
 * convention, with and without threads), against the shared vectors, and by
 * identities plus Horner spot checks for large n; the bit-reversed
 * subtraction of H's last step, and H by six transforms against seven.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/error.h"
#include "zkpd/ntt.h"

static zkp_pool *pool2;

static void fr_from_hex(zkp_fr *r, const char *hex)
{
	uint8_t b[32];
	assert_true(tu_hex_to_bytes(b, 32, hex) >= 0);
	assert_int_equal(zkp_fr_from_be(r, b), 0);
}

static size_t bitrev(size_t i, unsigned bits)
{
	size_t r = 0;
	for (unsigned b = 0; b < bits; b++)
		if (i >> b & 1)
			r |= (size_t)1 << (bits - 1 - b);
	return r;
}

struct domain {
	zkp_ntt_domain d;
	void *mem;
};

static void domain_new(struct domain *dm, unsigned log_n, enum zkp_ntt_roots roots,
		       const zkp_fr *shift)
{
	dm->mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(log_n) + 63) & ~(size_t)63);
	assert_non_null(dm->mem);
	assert_int_equal(zkp_ntt_domain_init(&dm->d, log_n, roots, shift, dm->mem, pool2), 0);
}

/* Reference: logical input coefficients -> logical output, the header's
 * formulas written out. */
static void dft_ref(zkp_fr *out, const zkp_fr *in, const zkp_ntt_domain *d,
		    bool inverse, bool coset)
{
	size_t n = d->n;
	zkp_fr w = inverse ? d->omega_inv : d->omega;
	for (size_t k = 0; k < n; k++) {
		zkp_fr acc, wk, p, term;
		zkp_fr_set_zero(&acc);
		uint64_t e = k;
		zkp_fr_pow(&wk, &w, &e, 1);
		zkp_fr_set_one(&p);
		for (size_t j = 0; j < n; j++) {
			term = in[j];
			if (coset && !inverse) {
				zkp_fr gj;
				uint64_t ej = j;
				zkp_fr_pow(&gj, &d->shift, &ej, 1);
				zkp_fr_mul(&term, &term, &gj);
			}
			zkp_fr_mul(&term, &term, &p);
			zkp_fr_add(&acc, &acc, &term);
			zkp_fr_mul(&p, &p, &wk);
		}
		if (inverse) {
			zkp_fr_mul(&acc, &acc, &d->n_inv);
			if (coset) {
				zkp_fr gk;
				uint64_t ek = k;
				zkp_fr_pow(&gk, &d->shift_inv, &ek, 1);
				zkp_fr_mul(&acc, &acc, &gk);
			}
		}
		out[k] = acc;
	}
}

static void test_against_dft(void **state)
{
	(void)state;
	for (unsigned log_n = 1; log_n <= 7; log_n++) {
		size_t n = (size_t)1 << log_n;
		for (int roots = 0; roots < 2; roots++) {
			zkp_fr shift;
			tu_rand_fr(&shift);
			struct domain dm;
			domain_new(&dm, log_n, (enum zkp_ntt_roots)roots, &shift);
			zkp_fr *in = malloc(n * sizeof(zkp_fr)), *ref = malloc(n * sizeof(zkp_fr)),
			       *x = malloc(n * sizeof(zkp_fr));
			for (size_t i = 0; i < n; i++)
				tu_rand_fr(&in[i]);
			for (int mode = 0; mode < 4; mode++) {
				bool inverse = mode & 1, coset = mode & 2;
				dft_ref(ref, in, &dm.d, inverse, coset);
				for (int io = 0; io < 4; io++) {
					zkp_ntt_opts o = { inverse, coset, (enum zkp_ntt_order)(io & 1),
							   (enum zkp_ntt_order)(io >> 1) };
					for (int threaded = 0; threaded < 2; threaded++) {
						for (size_t i = 0; i < n; i++)
							x[o.in_order ? bitrev(i, log_n) : i] = in[i];
						zkp_ntt(x, &dm.d, &o, threaded ? pool2 : NULL);
						for (size_t k = 0; k < n; k++) {
							size_t pos = o.out_order ? bitrev(k, log_n) : k;
							if (!zkp_fr_eq(&x[pos], &ref[k]))
								fail_msg("log_n %u roots %d inverse %d coset %d in %d out %d threads %d: k = %zu",
									 log_n, roots, inverse, coset, o.in_order,
									 o.out_order, threaded, k);
						}
					}
				}
			}
			free(in);
			free(ref);
			free(x);
			free(dm.mem);
		}
	}
}

static void test_vectors(void **state)
{
	(void)state;
	json_t *cases = json_object_get(tu_vectors(), "ntt");
	assert_true(json_array_size(cases) >= 4);
	size_t idx;
	json_t *c;
	json_array_foreach(cases, idx, c) {
		const char *conv = json_string_value(json_object_get(c, "root_convention"));
		unsigned log_n = (unsigned)json_integer_value(json_object_get(c, "log_n"));
		enum zkp_ntt_roots roots = strstr(conv, "5") ? ZKP_NTT_ROOTS_SNARKJS
							     : ZKP_NTT_ROOTS_BELLMAN;
		zkp_fr omega, want;
		zkp_ntt_root_of_unity(&omega, log_n, roots);
		fr_from_hex(&want, json_string_value(json_object_get(c, "omega")));
		assert_true(zkp_fr_eq(&omega, &want));

		json_t *shift_j = json_object_get(c, "coset_shift");
		zkp_fr shift;
		zkp_fr_set_u64(&shift, 7);
		if (json_is_string(shift_j))
			fr_from_hex(&shift, json_string_value(shift_j));
		else if (json_is_integer(shift_j))
			zkp_fr_set_u64(&shift, (uint64_t)json_integer_value(shift_j));
		struct domain dm;
		domain_new(&dm, log_n, roots, &shift);
		size_t n = dm.d.n;
		json_t *input = json_object_get(c, "input");
		assert_int_equal(json_array_size(input), n);
		zkp_fr x[64], y[64];
		for (size_t i = 0; i < n; i++)
			fr_from_hex(&x[i], json_string_value(json_array_get(input, i)));
		memcpy(y, x, n * sizeof(zkp_fr));
		zkp_ntt_opts fwd = { false, false, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
		zkp_ntt(x, &dm.d, &fwd, NULL);
		json_t *out = json_object_get(c, "forward");
		for (size_t i = 0; i < n; i++) {
			fr_from_hex(&want, json_string_value(json_array_get(out, i)));
			assert_true(zkp_fr_eq(&x[i], &want));
		}
		json_t *cout = json_object_get(c, "coset_forward");
		if (json_is_array(cout)) {
			zkp_ntt_opts co = { false, true, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
			zkp_ntt(y, &dm.d, &co, NULL);
			for (size_t i = 0; i < n; i++) {
				fr_from_hex(&want, json_string_value(json_array_get(cout, i)));
				assert_true(zkp_fr_eq(&y[i], &want));
			}
		}
		free(dm.mem);
	}
}

/* Horner evaluation of the coefficients c at point z. */
static void horner(zkp_fr *ret, const zkp_fr *c, size_t n, const zkp_fr *z)
{
	zkp_fr acc;
	zkp_fr_set_zero(&acc);
	for (size_t i = n; i-- > 0;) {
		zkp_fr_mul(&acc, &acc, z);
		zkp_fr_add(&acc, &acc, &c[i]);
	}
	*ret = acc;
}

static void test_large(void **state)
{
	(void)state;
	const unsigned log_n = 16;
	size_t n = (size_t)1 << log_n;
	struct domain dm;
	domain_new(&dm, log_n, ZKP_NTT_ROOTS_BELLMAN, NULL);
	zkp_fr *c = malloc(n * sizeof(zkp_fr)), *x = malloc(n * sizeof(zkp_fr));
	for (size_t i = 0; i < n; i++)
		tu_rand_fr(&c[i]);

	/* coset forward N->R, spot-checked against Horner at g * omega^k */
	memcpy(x, c, n * sizeof(zkp_fr));
	zkp_ntt_opts o = { false, true, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	zkp_ntt(x, &dm.d, &o, pool2);
	for (int t = 0; t < 8; t++) {
		size_t k = (size_t)(tu_rand64() % n);
		zkp_fr z, v;
		uint64_t e = k;
		zkp_fr_pow(&z, &dm.d.omega, &e, 1);
		zkp_fr_mul(&z, &z, &dm.d.shift);
		horner(&v, c, n, &z);
		assert_true(zkp_fr_eq(&x[bitrev(k, log_n)], &v));
	}
	/* and back: coset inverse R->N restores the coefficients */
	zkp_ntt_opts back = { true, true, ZKP_NTT_BITREV, ZKP_NTT_NATURAL };
	zkp_ntt(x, &dm.d, &back, pool2);
	assert_memory_equal(x, c, n * sizeof(zkp_fr));

	/* the Groth16 H chain without any permutation pass:
	 * evals (N) -iNTT-> coeffs (R) -coset NTT-> coset evals (N)
	 * -coset iNTT-> coeffs (R) equals the original coefficients */
	memcpy(x, c, n * sizeof(zkp_fr));
	zkp_ntt_opts f = { false, false, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
	zkp_ntt(x, &dm.d, &f, pool2); /* evaluations of c */
	zkp_ntt_opts s1 = { true, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	zkp_ntt_opts s2 = { false, true, ZKP_NTT_BITREV, ZKP_NTT_NATURAL };
	zkp_ntt_opts s3 = { true, true, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	zkp_ntt(x, &dm.d, &s1, pool2);
	zkp_ntt(x, &dm.d, &s2, NULL);
	zkp_ntt(x, &dm.d, &s3, pool2);
	zkp_ntt_bitrev_permute(x, log_n, pool2);
	assert_memory_equal(x, c, n * sizeof(zkp_fr));

	/* threaded and single-threaded agree exactly */
	zkp_fr *y = malloc(n * sizeof(zkp_fr));
	memcpy(x, c, n * sizeof(zkp_fr));
	memcpy(y, c, n * sizeof(zkp_fr));
	zkp_ntt(x, &dm.d, &f, pool2);
	zkp_ntt(y, &dm.d, &f, NULL);
	assert_memory_equal(x, y, n * sizeof(zkp_fr));
	free(y);
	free(c);
	free(x);
	free(dm.mem);
}

/* zkp_ntt_bitrev_sub against the formula, every size to 2^12, with and
 * without a scale, threaded and not. */
static void test_bitrev_sub(void **state)
{
	(void)state;
	for (unsigned log_n = 0; log_n <= 12; log_n++) {
		size_t n = (size_t)1 << log_n;
		zkp_fr *x = malloc(n * sizeof(zkp_fr)), *y = malloc(n * sizeof(zkp_fr));
		zkp_fr *ref = malloc(n * sizeof(zkp_fr)), s;
		tu_rand_fr(&s);
		for (int scaled = 0; scaled < 2; scaled++) {
			for (size_t i = 0; i < n; i++) {
				tu_rand_fr(&x[i]);
				tu_rand_fr(&y[i]);
			}
			for (size_t i = 0; i < n; i++) {
				size_t j = bitrev(i, log_n);
				zkp_fr_sub(&ref[i], &x[j], &y[j]);
				if (scaled)
					zkp_fr_mul(&ref[i], &ref[i], &s);
			}
			zkp_ntt_bitrev_sub(x, y, scaled ? &s : NULL, log_n,
					   log_n % 2 ? pool2 : NULL);
			assert_memory_equal(x, ref, n * sizeof(zkp_fr));
		}
		free(x);
		free(y);
		free(ref);
	}
}

/* H both ways on arbitrary a, b, c (they need not satisfy anything): the
 * seven-transform chain (a b - c on the coset, back) and the prover's six
 * (a b on the coset, back, c's coefficients subtracted) give the same h. */
static void test_h_six_transforms(void **state)
{
	(void)state;
	const unsigned log_n = 11;
	size_t n = (size_t)1 << log_n, bytes = n * sizeof(zkp_fr);
	struct domain dm;
	domain_new(&dm, log_n, ZKP_NTT_ROOTS_BELLMAN, NULL);
	zkp_fr *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
	zkp_fr *h7 = malloc(bytes), *bb = malloc(bytes), *cc = malloc(bytes), zinv;
	for (size_t i = 0; i < n; i++) {
		tu_rand_fr(&a[i]);
		tu_rand_fr(&b[i]);
		tu_rand_fr(&c[i]);
	}
	tu_rand_fr(&zinv);
	const zkp_ntt_opts to_coeffs = { true, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	const zkp_ntt_opts to_coset = { false, true, ZKP_NTT_BITREV, ZKP_NTT_NATURAL };
	const zkp_ntt_opts back7 = { true, true, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
	const zkp_ntt_opts back6 = { true, true, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	/* seven */
	memcpy(h7, a, bytes);
	memcpy(bb, b, bytes);
	memcpy(cc, c, bytes);
	zkp_fr *v7[3] = { h7, bb, cc };
	for (int k = 0; k < 3; k++) {
		zkp_ntt(v7[k], &dm.d, &to_coeffs, pool2);
		zkp_ntt(v7[k], &dm.d, &to_coset, pool2);
	}
	for (size_t i = 0; i < n; i++) {
		zkp_fr_mul(&h7[i], &h7[i], &bb[i]);
		zkp_fr_sub(&h7[i], &h7[i], &cc[i]);
		zkp_fr_mul(&h7[i], &h7[i], &zinv);
	}
	zkp_ntt(h7, &dm.d, &back7, pool2);
	/* six, in place in a, b, c */
	zkp_fr *v6[3] = { a, b, c };
	for (int k = 0; k < 3; k++) {
		zkp_ntt(v6[k], &dm.d, &to_coeffs, pool2);
		if (k < 2)
			zkp_ntt(v6[k], &dm.d, &to_coset, pool2);
	}
	for (size_t i = 0; i < n; i++)
		zkp_fr_mul(&a[i], &a[i], &b[i]);
	zkp_ntt(a, &dm.d, &back6, pool2);
	zkp_ntt_bitrev_sub(a, c, &zinv, log_n, pool2);
	assert_memory_equal(a, h7, bytes);
	free(a);
	free(b);
	free(c);
	free(h7);
	free(bb);
	free(cc);
	free(dm.mem);
}

static void test_domain_errors(void **state)
{
	(void)state;
	zkp_ntt_domain d;
	zkp_fr zero;
	zkp_fr_set_zero(&zero);
	static zkp_fr mem[64];
	assert_int_equal(zkp_ntt_domain_mem_size(0), 0);
	assert_int_equal(zkp_ntt_domain_mem_size(29), 0);
	assert_int_equal(zkp_ntt_domain_init(&d, 0, ZKP_NTT_ROOTS_BELLMAN, NULL, mem, NULL),
			 ZKP_ERR_INVAL);
	assert_int_equal(zkp_ntt_domain_init(&d, 29, ZKP_NTT_ROOTS_BELLMAN, NULL, mem, NULL),
			 ZKP_ERR_INVAL);
	assert_int_equal(zkp_ntt_domain_init(&d, 3, ZKP_NTT_ROOTS_BELLMAN, &zero, mem, NULL),
			 ZKP_ERR_INVAL);
	/* omega has exact order n for every size */
	for (unsigned k = 1; k <= 32; k++) {
		zkp_fr w, t;
		zkp_ntt_root_of_unity(&w, k, ZKP_NTT_ROOTS_SNARKJS);
		t = w;
		for (unsigned i = 1; i < k; i++)
			zkp_fr_sqr(&t, &t);
		zkp_fr minus_one, one;
		zkp_fr_set_one(&one);
		zkp_fr_neg(&minus_one, &one);
		assert_true(zkp_fr_eq(&t, &minus_one)); /* w^(n/2) = -1 */
	}
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	return zkp_pool_new(&pool2, 2);
}

static int teardown(void **state)
{
	(void)state;
	zkp_pool_free(pool2);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_dft),
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_bitrev_sub),
		cmocka_unit_test(test_h_six_transforms),
		cmocka_unit_test(test_domain_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
