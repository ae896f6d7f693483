/*
 * INSECURE development .ptau files (ptau.h), checked without knowing tau:
 * the layout and section sizes; every point on its curve; the powers
 * sections consistent by pairings (e([tau^(j+1)]_1, G2) = e([tau^j]_1,
 * [tau]_2) and so on); and each Lagrange block against an O(n^2) forward
 * DFT in the group: sum_i w^(ik) [L_i(tau)] = [tau^k] (k < n), with the
 * block p = power + 1 giving infinity at k = n - 1, as snarkjs's truncated
 * inverse FFT does. The integration test compares whole files with snarkjs's
 * own `powersoftau prepare phase2`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/ec.h"
#include "zkpd/ntt.h"
#include "zkpd/pairing.h"
#include "zkpd/ptau.h"

#define POWER 3
#define G1B 96
#define G2B 192

static char tmpdir[64];

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc((size_t)len);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

static uint64_t le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void fp_at(zkp_fp *r, const uint8_t *p)
{
	for (int i = 0; i < ZKP_FP_LIMBS; i++)
		r->l[i] = le(p + 8 * i, 8);
}

static zkp_g1_affine g1_at(const uint8_t *p)
{
	zkp_g1_affine a;
	fp_at(&a.x, p);
	fp_at(&a.y, p + 48);
	assert_true(zkp_g1_affine_is_on_curve(&a));
	return a;
}

static zkp_g2_affine g2_at(const uint8_t *p)
{
	zkp_g2_affine a;
	fp_at(&a.x.c0, p);
	fp_at(&a.x.c1, p + 48);
	fp_at(&a.y.c0, p + 96);
	fp_at(&a.y.c1, p + 144);
	assert_true(zkp_g2_affine_is_on_curve(&a));
	return a;
}

/* Body of section id, whose length must be len. */
static const uint8_t *section(const uint8_t *f, size_t size, uint32_t id, uint64_t len)
{
	size_t off = 12;
	for (uint32_t s = 0; s < le(f + 8, 4); s++) {
		assert_true(off + 12 <= size);
		uint64_t l = le(f + off + 4, 8);
		if (le(f + off, 4) == id) {
			assert_int_equal(l, len);
			return f + off + 12;
		}
		off += 12 + l;
	}
	fail_msg("section %u missing", id);
	return NULL;
}

/* e(p1, q1) == e(p2, q2) */
static bool same_pairing(const zkp_g1_affine *p1, const zkp_g2_affine *q1,
			 const zkp_g1_affine *p2, const zkp_g2_affine *q2)
{
	zkp_g1_affine p[2];
	zkp_g2_affine q[2] = { *q1, *q2 };
	zkp_g1_affine_neg(&p[0], p1);
	p[1] = *p2;
	return zkp_pairing_check(p, q, 2);
}

/* sum_i w^(ik) blk[i] against want[k] (NULL entry: infinity), G1 or G2. */
static void check_block(const uint8_t *blk, const uint8_t *want, unsigned p, bool g2,
			bool truncated)
{
	size_t n = (size_t)1 << p;
	zkp_fr w, wk, x;
	zkp_ntt_root_of_unity(&w, p, ZKP_NTT_ROOTS_SNARKJS);
	zkp_fr_set_one(&wk);
	for (size_t k = 0; k < n; k++) {
		bool inf = truncated && k == n - 1;
		zkp_fr_set_one(&x);
		if (!g2) {
			zkp_g1 acc, t;
			zkp_g1_set_infinity(&acc);
			for (size_t i = 0; i < n; i++) {
				zkp_g1_affine a = g1_at(blk + i * G1B);
				zkp_g1_from_affine(&t, &a);
				zkp_g1_mul_fr(&t, &t, &x);
				zkp_g1_add(&acc, &acc, &t);
				zkp_fr_mul(&x, &x, &wk);
			}
			if (inf) {
				assert_true(zkp_g1_is_infinity(&acc));
			} else {
				zkp_g1_affine b = g1_at(want + k * G1B);
				zkp_g1_from_affine(&t, &b);
				assert_true(zkp_g1_eq(&acc, &t));
			}
		} else {
			zkp_g2 acc, t;
			zkp_g2_set_infinity(&acc);
			for (size_t i = 0; i < n; i++) {
				zkp_g2_affine a = g2_at(blk + i * G2B);
				zkp_g2_from_affine(&t, &a);
				zkp_g2_mul_fr(&t, &t, &x);
				zkp_g2_add(&acc, &acc, &t);
				zkp_fr_mul(&x, &x, &wk);
			}
			zkp_g2_affine b = g2_at(want + k * G2B);
			zkp_g2_from_affine(&t, &b);
			assert_true(zkp_g2_eq(&acc, &t));
		}
		zkp_fr_mul(&wk, &wk, &w);
	}
}

static void test_dev_ptau(void **state)
{
	(void)state;
	const size_t n = (size_t)1 << POWER, big = 2 * n;
	uint64_t seed = tu_rand64();
	char path[128], again[128];
	snprintf(path, sizeof(path), "%s/a.INSECURE-DEV.ptau", tmpdir);
	snprintf(again, sizeof(again), "%s/b.INSECURE-DEV.ptau", tmpdir);
	zkp_error err = { 0 };
	assert_int_equal(zkp_ptau_write_dev(path, POWER, &seed, NULL, &err), 0);

	size_t size;
	uint8_t *f = read_all(path, &size);
	assert_memory_equal(f, "ptau", 4);
	assert_int_equal(le(f + 4, 4), 1);
	assert_int_equal(le(f + 8, 4), 11);
	const uint8_t *h = section(f, size, 1, 60);
	assert_int_equal(le(h, 4), 48);
	for (int i = 0; i < ZKP_FP_LIMBS; i++)
		assert_int_equal(le(h + 4 + 8 * i, 8), ZKP_FP_MODULUS[i]);
	assert_int_equal(le(h + 52, 4), POWER);
	assert_int_equal(le(h + 56, 4), POWER);
	const uint8_t *tau1 = section(f, size, 2, (big - 1) * G1B);
	const uint8_t *tau2 = section(f, size, 3, n * G2B);
	const uint8_t *alpha1 = section(f, size, 4, n * G1B);
	const uint8_t *beta1 = section(f, size, 5, n * G1B);
	const uint8_t *beta2 = section(f, size, 6, G2B);
	assert_int_equal(le(section(f, size, 7, 4), 4), 0);
	const uint8_t *lag1 = section(f, size, 12, (2 * big - 1) * G1B);
	const uint8_t *lag2 = section(f, size, 13, (big - 1) * G2B);
	const uint8_t *lalpha = section(f, size, 14, (big - 1) * G1B);
	const uint8_t *lbeta = section(f, size, 15, (big - 1) * G1B);
	size_t total = 12 + 12 * 11 + 60 + ((big - 1) + 2 * n + (2 * big - 1) + 2 * (big - 1)) * G1B +
		       (n + 1 + (big - 1)) * G2B + 4;
	assert_int_equal(size, total);

	/* Powers: generators first, then consistent exponents. */
	zkp_g1_affine g1 = g1_at(tau1);
	zkp_g2_affine g2 = g2_at(tau2);
	assert_memory_equal(&g1, &ZKP_G1_GENERATOR, sizeof(g1));
	assert_memory_equal(&g2, &ZKP_G2_GENERATOR, sizeof(g2));
	zkp_g2_affine t2 = g2_at(tau2 + G2B), b2 = g2_at(beta2);
	zkp_g1_affine a0 = g1_at(alpha1), b0 = g1_at(beta1);
	assert_true(same_pairing(&b0, &g2, &g1, &b2));
	for (size_t j = 0; j + 1 < big - 1; j++) {
		zkp_g1_affine x = g1_at(tau1 + j * G1B), y = g1_at(tau1 + (j + 1) * G1B);
		assert_true(same_pairing(&y, &g2, &x, &t2));
	}
	for (size_t j = 0; j < n; j++) {
		zkp_g1_affine x = g1_at(tau1 + j * G1B), a = g1_at(alpha1 + j * G1B),
			      b = g1_at(beta1 + j * G1B);
		zkp_g2_affine y = g2_at(tau2 + j * G2B);
		assert_true(same_pairing(&x, &g2, &g1, &y));
		assert_true(same_pairing(&a, &g2, &a0, &y));
		assert_true(same_pairing(&b, &g2, &b0, &y));
	}

	/* Lagrange blocks against the forward DFT. */
	for (unsigned p = 0; p <= POWER + 1; p++) {
		size_t off = ((size_t)1 << p) - 1;
		check_block(lag1 + off * G1B, tau1, p, false, p == POWER + 1);
		if (p <= POWER) {
			check_block(lag2 + off * G2B, tau2, p, true, false);
			check_block(lalpha + off * G1B, alpha1, p, false, false);
			check_block(lbeta + off * G1B, beta1, p, false, false);
		}
	}

	/* The same seed gives the same file; another seed does not. */
	size_t size2;
	assert_int_equal(zkp_ptau_write_dev(again, POWER, &seed, NULL, &err), 0);
	uint8_t *f2 = read_all(again, &size2);
	assert_int_equal(size2, size);
	assert_memory_equal(f, f2, size);
	free(f2);
	seed++;
	assert_int_equal(zkp_ptau_write_dev(again, POWER, &seed, NULL, &err), 0);
	f2 = read_all(again, &size2);
	assert_memory_not_equal(f + 200, f2 + 200, 96);
	free(f2);
	free(f);
}

static void test_dev_ptau_refusals(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/bad.INSECURE-DEV.ptau", tmpdir);
	zkp_error err = { 0 };
	assert_int_equal(zkp_ptau_write_dev(path, 0, NULL, NULL, &err), ZKP_ERR_INVAL);
	assert_int_equal(zkp_ptau_write_dev(path, ZKP_PTAU_MAX_POWER + 1, NULL, NULL, &err),
			 ZKP_ERR_INVAL);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/no-such-dir/x.INSECURE-DEV.ptau", tmpdir);
	assert_int_equal(zkp_ptau_write_dev(path, 1, NULL, NULL, &err), ZKP_ERR_IO);
}

static int setup(void **state)
{
	(void)state;
	tu_seed();
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/zkpd-ptau-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_ptau),
		cmocka_unit_test(test_dev_ptau_refusals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
