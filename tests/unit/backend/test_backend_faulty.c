/*
 * The fault-injecting backend: every Nth NTT or G1 MSM fails with
 * ZKP_ERR_DEVICE, everything else is the inner backend's result. And the
 * busy time of the wrappers: the CPU backend is not a device, the offhost
 * test device counts its operations' time and not its copies', the
 * fault-injecting wrapper answers for what it wraps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/backend.h"
#include "zkpd/error.h"

static void test_every_third_fails(void **state)
{
	(void)state;
	zkp_backend *cpu, *f;
	assert_int_equal(zkp_backend_cpu_new(&cpu, NULL), 0);
	assert_int_equal(zkp_backend_faulty_new(&f, NULL, 3), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_faulty_new(&f, cpu, 0), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_faulty_new(&f, cpu, 3), 0);
	assert_true(f->host_visible);

	enum { LOG_N = 6, N = 1 << LOG_N };
	zkp_dbuf data = { 0 }, direct = { 0 };
	void *dom_mem = malloc(zkp_ntt_domain_mem_size(LOG_N));
	zkp_ntt_domain dom;
	zkp_fr shift;
	zkp_fr_set_u64(&shift, 7);
	assert_int_equal(zkp_ntt_domain_init(&dom, LOG_N, ZKP_NTT_ROOTS_BELLMAN, &shift, dom_mem,
					     NULL), 0);
	assert_int_equal(zkp_backend_alloc(f, &data, N * sizeof(zkp_fr)), 0);
	assert_int_equal(zkp_backend_alloc(cpu, &direct, N * sizeof(zkp_fr)), 0);
	zkp_fr *v = data.ptr, *w = direct.ptr;
	for (int i = 0; i < N; i++) {
		uint64_t x[8];
		for (int k = 0; k < 8; k++)
			x[k] = tu_rand64();
		zkp_fr_from_wide(&v[i], x);
		w[i] = v[i];
	}
	const zkp_ntt_opts fwd = { false, false, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
	/* Calls 1 and 2 pass through and equal the inner backend's result. */
	for (int call = 1; call <= 2; call++) {
		assert_int_equal(zkp_backend_ntt(f, &data, &dom, &fwd), 0);
		assert_int_equal(zkp_backend_ntt(cpu, &direct, &dom, &fwd), 0);
		assert_memory_equal(data.ptr, direct.ptr, N * sizeof(zkp_fr));
	}
	assert_int_equal(zkp_backend_faulty_injected(f), 0);
	/* Call 3 is a device fault and leaves the data alone. */
	assert_int_equal(zkp_backend_ntt(f, &data, &dom, &fwd), ZKP_ERR_DEVICE);
	assert_memory_equal(data.ptr, direct.ptr, N * sizeof(zkp_fr));
	assert_int_equal(zkp_backend_faulty_injected(f), 1);
	/* MSMs count too: calls 4 and 5 pass, 6 fails. */
	zkp_g1 r;
	zkp_dbuf bases = { 0 };
	zkp_g1_affine g[N];
	for (int i = 0; i < N; i++)
		g[i] = ZKP_G1_GENERATOR;
	assert_int_equal(zkp_backend_import_host(f, &bases, g, sizeof(g)), 0);
	assert_int_equal(zkp_backend_msm_g1(f, &r, &bases, &data, NULL, N, NULL), 0);
	assert_int_equal(zkp_backend_msm_g1(f, &r, &bases, &data, NULL, N, NULL), 0);
	assert_int_equal(zkp_backend_msm_g1(f, &r, &bases, &data, NULL, N, NULL),
			 ZKP_ERR_DEVICE);
	assert_int_equal(zkp_backend_faulty_injected(f), 2);
	assert_int_equal(zkp_backend_sync(f), 0);
	zkp_backend_release(f, &bases);
	zkp_backend_release(f, &data);
	zkp_backend_release(cpu, &direct);
	free(dom_mem);
	zkp_backend_free(f);
	zkp_backend_free(cpu);
}

/* The corrupting kind: every 2nd G1 MSM is off by the generator, with no
 * error; NTTs are left alone. */
static void test_corrupting(void **state)
{
	(void)state;
	zkp_backend *cpu, *f;
	assert_int_equal(zkp_backend_cpu_new(&cpu, NULL), 0);
	assert_int_equal(zkp_backend_corrupting_new(&f, cpu, 0), ZKP_ERR_INVAL);
	assert_int_equal(zkp_backend_corrupting_new(&f, cpu, 2), 0);
	enum { N = 16 };
	zkp_g1_affine g[N];
	zkp_fr s[N];
	for (int i = 0; i < N; i++) {
		g[i] = ZKP_G1_GENERATOR;
		zkp_fr_set_u64(&s[i], (uint64_t)i + 1);
	}
	zkp_dbuf bases = { 0 }, scalars = { 0 };
	assert_int_equal(zkp_backend_import_host(f, &bases, g, sizeof(g)), 0);
	assert_int_equal(zkp_backend_import_host(f, &scalars, s, sizeof(s)), 0);
	zkp_g1 want, got, off;
	assert_int_equal(zkp_backend_msm_g1(cpu, &want, &bases, &scalars, NULL, N, NULL), 0);
	assert_int_equal(zkp_backend_msm_g1(f, &got, &bases, &scalars, NULL, N, NULL), 0);
	assert_true(zkp_g1_eq(&got, &want));
	assert_int_equal(zkp_backend_msm_g1(f, &got, &bases, &scalars, NULL, N, NULL), 0);
	const zkp_g1_affine one = ZKP_G1_GENERATOR;
	zkp_g1_add_affine(&off, &want, &one);
	assert_true(zkp_g1_eq(&got, &off));
	assert_int_equal(zkp_backend_faulty_injected(f), 1);
	zkp_backend_release(f, &bases);
	zkp_backend_release(f, &scalars);
	zkp_backend_free(f);
	zkp_backend_free(cpu);
}

static void test_busy_seconds(void **state)
{
	(void)state;
	zkp_backend *cpu, *oh, *f_cpu, *f_oh;
	double busy = -1, again = -1;
	assert_int_equal(zkp_backend_cpu_new(&cpu, NULL), 0);
	assert_int_equal(zkp_backend_offhost_new(&oh, cpu), 0);
	assert_int_equal(zkp_backend_faulty_new(&f_cpu, cpu, 1000), 0);
	assert_int_equal(zkp_backend_faulty_new(&f_oh, oh, 1000), 0);
	assert_int_equal(zkp_backend_busy_seconds(cpu, &busy), ZKP_ERR_UNSUPPORTED);
	assert_true(busy == 0);
	assert_int_equal(zkp_backend_busy_seconds(f_cpu, &busy), ZKP_ERR_UNSUPPORTED);
	assert_int_equal(zkp_backend_busy_seconds(oh, &busy), 0);
	assert_true(busy == 0);

	enum { LOG_N = 8, N = 1 << LOG_N };
	zkp_fr host[N];
	for (int i = 0; i < N; i++)
		zkp_fr_set_u64(&host[i], tu_rand64());
	zkp_dbuf data = { 0 };
	assert_int_equal(zkp_backend_alloc(f_oh, &data, sizeof(host)), 0);
	assert_int_equal(zkp_backend_upload(f_oh, &data, 0, host, sizeof(host)), 0);
	assert_int_equal(zkp_backend_download(f_oh, host, &data, 0, sizeof(host)), 0);
	assert_int_equal(zkp_backend_busy_seconds(f_oh, &busy), 0);
	assert_true(busy == 0); /* copies are not busy time */

	void *dom_mem = malloc(zkp_ntt_domain_mem_size(LOG_N));
	zkp_ntt_domain dom;
	assert_int_equal(zkp_ntt_domain_init(&dom, LOG_N, ZKP_NTT_ROOTS_BELLMAN, NULL, dom_mem,
					     NULL), 0);
	const zkp_ntt_opts fwd = { false, false, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
	assert_int_equal(zkp_backend_ntt(f_oh, &data, &dom, &fwd), 0);
	assert_int_equal(zkp_backend_busy_seconds(f_oh, &busy), 0);
	assert_int_equal(zkp_backend_busy_seconds(oh, &again), 0);
	assert_true(busy > 0 && again == busy);
	assert_int_equal(zkp_backend_h_pointwise(oh, &data, &data, &data, NULL, N), 0);
	assert_int_equal(zkp_backend_busy_seconds(oh, &again), 0);
	assert_true(again > busy);
	zkp_backend_release(f_oh, &data);
	free(dom_mem);
	zkp_backend_free(f_oh);
	zkp_backend_free(f_cpu);
	zkp_backend_free(oh);
	zkp_backend_free(cpu);
}

/* The offhost device's H steps (it decodes and re-encodes each buffer)
 * give the CPU backend's results; c NULL in h_pointwise is passed on. */
static void test_offhost_h_steps(void **state)
{
	(void)state;
	zkp_backend *cpu, *oh;
	assert_int_equal(zkp_backend_cpu_new(&cpu, NULL), 0);
	assert_int_equal(zkp_backend_offhost_new(&oh, cpu), 0);
	enum { LOG_N = 7, N = 1 << LOG_N, BYTES = N * sizeof(zkp_fr) };
	zkp_fr v[3][N], s, got[N];
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < N; i++) {
			uint64_t x[8];
			for (int w = 0; w < 8; w++)
				x[w] = tu_rand64();
			zkp_fr_from_wide(&v[k][i], x);
		}
	zkp_fr_set_u64(&s, 12345);
	zkp_dbuf o[3], d[3];
	for (int k = 0; k < 3; k++) {
		assert_int_equal(zkp_backend_alloc(oh, &o[k], BYTES), 0);
		assert_int_equal(zkp_backend_upload(oh, &o[k], 0, v[k], BYTES), 0);
		assert_int_equal(zkp_backend_alloc(cpu, &d[k], BYTES), 0);
		memcpy(d[k].ptr, v[k], BYTES);
	}
	assert_int_equal(zkp_backend_h_pointwise(oh, &o[0], &o[1], NULL, &s, N), 0);
	assert_int_equal(zkp_backend_h_pointwise(cpu, &d[0], &d[1], NULL, &s, N), 0);
	assert_int_equal(zkp_backend_download(oh, got, &o[0], 0, BYTES), 0);
	assert_memory_equal(got, d[0].ptr, BYTES);
	assert_int_equal(zkp_backend_h_coeffs(oh, &o[0], &o[2], &s, LOG_N), 0);
	assert_int_equal(zkp_backend_h_coeffs(cpu, &d[0], &d[2], &s, LOG_N), 0);
	assert_int_equal(zkp_backend_download(oh, got, &o[0], 0, BYTES), 0);
	assert_memory_equal(got, d[0].ptr, BYTES);
	assert_int_equal(zkp_backend_h_coeffs(oh, &o[0], &o[0], &s, LOG_N), ZKP_ERR_INVAL);
	for (int k = 0; k < 3; k++) {
		zkp_backend_release(oh, &o[k]);
		zkp_backend_release(cpu, &d[k]);
	}
	zkp_backend_free(oh);
	zkp_backend_free(cpu);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_third_fails),
		cmocka_unit_test(test_corrupting),
		cmocka_unit_test(test_busy_seconds),
		cmocka_unit_test(test_offhost_h_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
