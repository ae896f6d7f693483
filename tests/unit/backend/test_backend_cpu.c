/*
 * The CPU backend through the ops table: buffer rules, and NTT/MSM results
 * equal to the direct layer calls, H's elementwise steps to their formulas.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/backend.h"
#include "zkpd/error.h"

static zkp_pool *pool;
static zkp_backend *be;

static void test_buffers(void **state)
{
	(void)state;
	assert_string_equal(be->ops->name, "cpu");
	assert_true(be->host_visible);
	zkp_dbuf b, imp;
	assert_int_equal(zkp_backend_alloc(be, &b, 100), 0);
	assert_true(b.owned);
	uint8_t in[100], out[100];
	tu_rand_bytes(in, sizeof(in));
	assert_int_equal(zkp_backend_upload(be, &b, 0, in, 100), 0);
	assert_int_equal(zkp_backend_download(be, out, &b, 0, 100), 0);
	assert_memory_equal(in, out, 100);
	assert_int_equal(zkp_backend_upload(be, &b, 60, in, 40), 0);
	assert_int_equal(zkp_backend_download(be, out, &b, 60, 40), 0);
	assert_memory_equal(in, out, 40);
	/* out of range, including offset + size overflowing */
	assert_int_equal(zkp_backend_upload(be, &b, 61, in, 40), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_download(be, out, &b, 101, 0), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_download(be, out, &b, 1, SIZE_MAX), ZKP_ERR_INVAL);
	/* imported host memory is referenced, never copied, and read-only */
	assert_int_equal(zkp_backend_import_host(be, &imp, in, sizeof(in)), 0);
	assert_ptr_equal(imp.ptr, in);
	assert_false(imp.owned);
	assert_int_equal(zkp_backend_upload(be, &imp, 0, out, 1), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_import_host(be, &imp, NULL, 5), ZKP_ERR_INVAL);
	zkp_backend_release(be, &imp);
	zkp_backend_release(be, &b);
	assert_null(b.ptr);
	zkp_dbuf zero = { 0 };
	zkp_backend_release(be, &zero);
	assert_int_equal(zkp_backend_sync(be), 0);
}

static void test_ntt_matches_layer(void **state)
{
	(void)state;
	unsigned log_n = 12;
	size_t n = (size_t)1 << log_n;
	void *mem = aligned_alloc(64, zkp_ntt_domain_mem_size(log_n));
	zkp_ntt_domain d;
	assert_int_equal(zkp_ntt_domain_init(&d, log_n, ZKP_NTT_ROOTS_SNARKJS, NULL, mem, pool), 0);
	zkp_fr *x = malloc(n * sizeof(zkp_fr)), *y = malloc(n * sizeof(zkp_fr));
	for (size_t i = 0; i < n; i++)
		tu_rand_fr(&x[i]);
	zkp_dbuf b;
	assert_int_equal(zkp_backend_alloc(be, &b, n * sizeof(zkp_fr)), 0);
	assert_int_equal(zkp_backend_upload(be, &b, 0, x, n * sizeof(zkp_fr)), 0);
	zkp_ntt_opts o = { false, true, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	assert_int_equal(zkp_backend_ntt(be, &b, &d, &o), 0);
	zkp_ntt(x, &d, &o, NULL);
	assert_int_equal(zkp_backend_download(be, y, &b, 0, n * sizeof(zkp_fr)), 0);
	assert_memory_equal(x, y, n * sizeof(zkp_fr));
	/* a buffer too small for the domain is refused */
	zkp_dbuf small;
	assert_int_equal(zkp_backend_alloc(be, &small, (n - 1) * sizeof(zkp_fr)), 0);
	assert_int_equal(zkp_backend_ntt(be, &small, &d, &o), ZKP_ERR_INVAL);
	zkp_backend_release(be, &small);
	zkp_backend_release(be, &b);
	free(x);
	free(y);
	free(mem);
}

/* H's two elementwise steps: h_pointwise with and without c and scale,
 * h_coeffs against the ntt layer's zkp_ntt_bitrev_sub, and the buffers
 * each refuses. */
static void test_h_steps(void **state)
{
	(void)state;
	const unsigned log_n = 10;
	size_t n = (size_t)1 << log_n, bytes = n * sizeof(zkp_fr);
	zkp_fr *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes), *ref = malloc(bytes);
	zkp_fr s;
	tu_rand_fr(&s);
	zkp_dbuf a, b, c;
	assert_int_equal(zkp_backend_alloc(be, &a, bytes), 0);
	assert_int_equal(zkp_backend_alloc(be, &b, bytes), 0);
	assert_int_equal(zkp_backend_alloc(be, &c, bytes), 0);
	for (int mode = 0; mode < 4; mode++) {
		bool with_c = mode & 1, scaled = mode & 2;
		for (size_t i = 0; i < n; i++) {
			tu_rand_fr(&x[i]);
			tu_rand_fr(&y[i]);
			tu_rand_fr(&z[i]);
			zkp_fr_mul(&ref[i], &x[i], &y[i]);
			if (with_c)
				zkp_fr_sub(&ref[i], &ref[i], &z[i]);
			if (scaled)
				zkp_fr_mul(&ref[i], &ref[i], &s);
		}
		assert_int_equal(zkp_backend_upload(be, &a, 0, x, bytes), 0);
		assert_int_equal(zkp_backend_upload(be, &b, 0, y, bytes), 0);
		assert_int_equal(zkp_backend_upload(be, &c, 0, z, bytes), 0);
		assert_int_equal(zkp_backend_h_pointwise(be, &a, &b, with_c ? &c : NULL,
							 scaled ? &s : NULL, n), 0);
		assert_memory_equal(a.ptr, ref, bytes);
	}
	/* h_coeffs: a and c as now, against the layer */
	memcpy(ref, a.ptr, bytes);
	zkp_ntt_bitrev_sub(ref, c.ptr, &s, log_n, NULL);
	assert_int_equal(zkp_backend_h_coeffs(be, &a, &c, &s, log_n), 0);
	assert_memory_equal(a.ptr, ref, bytes);
	/* a view of c may be read; a must be owned, both large enough, apart */
	zkp_dbuf view, half;
	assert_int_equal(zkp_dbuf_view(&view, &c, 0, bytes), 0);
	assert_int_equal(zkp_backend_h_coeffs(be, &a, &view, NULL, log_n), 0);
	assert_int_equal(zkp_backend_h_coeffs(be, &view, &a, NULL, log_n), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_h_coeffs(be, &a, &c, NULL, log_n + 1), ZKP_ERR_INVAL);
	assert_int_equal(zkp_dbuf_view(&half, &a, bytes / 2, bytes / 2), 0);
	assert_int_equal(zkp_backend_h_coeffs(be, &a, &half, NULL, log_n), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_h_coeffs(be, &a, &a, NULL, log_n), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_h_coeffs(be, &a, &c, NULL, 40), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_h_pointwise(be, &a, &b, &half, NULL, n), ZKP_ERR_INVAL);
	zkp_backend_release(be, &a);
	zkp_backend_release(be, &b);
	zkp_backend_release(be, &c);
	free(x);
	free(y);
	free(z);
	free(ref);
}

static void test_msm_matches_layer(void **state)
{
	(void)state;
	const size_t n = 300;
	zkp_g1_affine *p1 = malloc(n * sizeof(*p1));
	zkp_g2_affine *p2 = malloc(n * sizeof(*p2));
	zkp_fr *s = malloc(n * sizeof(*s));
	zkp_g1 acc1, gen1;
	zkp_g2 acc2, gen2;
	zkp_g1_from_affine(&gen1, &ZKP_G1_GENERATOR);
	zkp_g2_from_affine(&gen2, &ZKP_G2_GENERATOR);
	zkp_fr k;
	tu_rand_fr(&k);
	zkp_g1_mul_fr(&acc1, &gen1, &k);
	zkp_g2_mul_fr(&acc2, &gen2, &k);
	for (size_t i = 0; i < n; i++) {
		zkp_g1_to_affine(&p1[i], &acc1);
		zkp_g2_to_affine(&p2[i], &acc2);
		zkp_g1_add(&acc1, &acc1, &gen1);
		zkp_g2_add(&acc2, &acc2, &gen2);
		tu_rand_fr(&s[i]);
	}
	uint64_t density[5] = { 0 };
	size_t set = 0;
	for (size_t i = 0; i < n; i++)
		if (tu_rand64() & 1) {
			density[i / 64] |= UINT64_C(1) << (i % 64);
			set++;
		}

	zkp_dbuf b1, b2, sc;
	assert_int_equal(zkp_backend_import_host(be, &b1, p1, n * sizeof(*p1)), 0);
	assert_int_equal(zkp_backend_import_host(be, &b2, p2, n * sizeof(*p2)), 0);
	assert_int_equal(zkp_backend_import_host(be, &sc, s, n * sizeof(*s)), 0);

	zkp_g1 r1, e1;
	zkp_g2 r2, e2;
	assert_int_equal(zkp_backend_msm_g1(be, &r1, &b1, &sc, NULL, n, NULL), 0);
	zkp_g1_set_infinity(&e1);
	for (size_t i = 0; i < n; i++) {
		zkp_g1 t;
		zkp_g1_from_affine(&t, &p1[i]);
		zkp_g1_mul_fr(&t, &t, &s[i]);
		zkp_g1_add(&e1, &e1, &t);
	}
	assert_true(zkp_g1_eq(&r1, &e1));

	assert_int_equal(zkp_backend_msm_g2(be, &r2, &b2, &sc, NULL, n, NULL), 0);
	zkp_g2_set_infinity(&e2);
	for (size_t i = 0; i < n; i++) {
		zkp_g2 t;
		zkp_g2_from_affine(&t, &p2[i]);
		zkp_g2_mul_fr(&t, &t, &s[i]);
		zkp_g2_add(&e2, &e2, &t);
	}
	assert_true(zkp_g2_eq(&r2, &e2));

	/* density form: bases compacted to the set bits */
	zkp_g1_set_infinity(&e1);
	for (size_t i = 0, j = 0; i < n; i++) {
		if (!(density[i / 64] >> (i % 64) & 1))
			continue;
		zkp_g1 t;
		zkp_g1_from_affine(&t, &p1[j++]);
		zkp_g1_mul_fr(&t, &t, &s[i]);
		zkp_g1_add(&e1, &e1, &t);
	}
	zkp_dbuf compact;
	assert_int_equal(zkp_backend_import_host(be, &compact, p1, set * sizeof(*p1)), 0);
	assert_int_equal(zkp_backend_msm_g1(be, &r1, &compact, &sc, density, n, NULL), 0);
	assert_true(zkp_g1_eq(&r1, &e1));
	/* too few bases for the density, too few scalars: refused */
	zkp_dbuf short_b;
	assert_int_equal(zkp_backend_import_host(be, &short_b, p1, (set - 1) * sizeof(*p1)), 0);
	assert_int_equal(zkp_backend_msm_g1(be, &r1, &short_b, &sc, density, n, NULL),
			 ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_msm_g1(be, &r1, &b1, &sc, NULL, n + 1, NULL), ZKP_ERR_INVAL);

	free(p1);
	free(p2);
	free(s);
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	if (zkp_pool_new(&pool, 1) != 0)
		return -1;
	return zkp_backend_cpu_new(&be, pool);
}

static int teardown(void **state)
{
	(void)state;
	zkp_backend_free(be);
	zkp_pool_free(pool);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_ntt_matches_layer),
		cmocka_unit_test(test_msm_matches_layer),
		cmocka_unit_test(test_h_steps),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
