/*
 * The CUDA backend against the CPU backend on the same random inputs: NTT
 * with every option, the pointwise H step, G1 MSM (sizes 1, 2^10, 2^16,
 * 0/1-heavy and all-zero scalars, density bitmaps, forced windows) and the
 * host-delegated G2 MSM, plus buffer range checks. Exits 77 when no CUDA
 * device is present.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "zkpd/backend.h"
#include "zkpd/backend_cuda.h"
#include "zkpd/error.h"

static zkp_backend *cpu, *gpu;
static zkp_pool *pool;
static unsigned long checks, failures;

static void check(int ok, const char *what, size_t arg)
{
	checks++;
	if (!ok && failures++ < 20)
		fprintf(stderr, "FAIL %s (%zu)\n", what, arg);
}

static void rand_fr(zkp_fr *r)
{
	uint64_t w[8];
	for (int i = 0; i < 8; i++)
		w[i] = tu_rand64();
	zkp_fr_from_wide(r, w);
}

/* A device copy of host data; aborts the test on failure. */
static zkp_dbuf to_gpu(const void *p, size_t bytes)
{
	zkp_dbuf b;
	int err = zkp_backend_import_host(gpu, &b, p, bytes);
	if (err) {
		zkp_error e;
		zkp_backend_cuda_last_error(gpu, &e);
		fprintf(stderr, "import_host: %s: %s\n", zkp_strerror(err), e.msg);
		exit(1);
	}
	return b;
}

static void test_ntt(void)
{
	const unsigned logs[] = { 1, 2, 5, 11, 16, 20 };
	for (unsigned li = 0; li < sizeof(logs) / sizeof(logs[0]); li++) {
		unsigned lg = logs[li];
		zkp_ntt_domain d;
		void *mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(lg) + 63) & ~(size_t)63);
		zkp_fr shift;
		rand_fr(&shift);
		check(zkp_ntt_domain_init(&d, lg, li % 2 ? ZKP_NTT_ROOTS_SNARKJS :
				ZKP_NTT_ROOTS_BELLMAN, li % 3 ? &shift : NULL, mem, pool) == 0,
		      "domain", lg);
		size_t bytes = d.n * sizeof(zkp_fr);
		zkp_fr *x = malloc(bytes), *got = malloc(bytes);
		for (unsigned o = 0; o < 16; o++) {
			zkp_ntt_opts opts = { o & 1, (o & 2) != 0,
					      o & 4 ? ZKP_NTT_BITREV : ZKP_NTT_NATURAL,
					      o & 8 ? ZKP_NTT_BITREV : ZKP_NTT_NATURAL };
			for (size_t i = 0; i < d.n; i++)
				rand_fr(&x[i]);
			zkp_dbuf dg;
			check(zkp_backend_alloc(gpu, &dg, bytes) == 0, "alloc", bytes);
			check(zkp_backend_upload(gpu, &dg, 0, x, bytes) == 0, "upload", bytes);
			check(zkp_backend_ntt(gpu, &dg, &d, &opts) == 0, "gpu ntt", lg);
			check(zkp_backend_sync(gpu) == 0, "sync", lg);
			check(zkp_backend_download(gpu, got, &dg, 0, bytes) == 0, "download", bytes);
			zkp_backend_release(gpu, &dg);
			zkp_dbuf dc;
			zkp_backend_alloc(cpu, &dc, bytes);
			zkp_backend_upload(cpu, &dc, 0, x, bytes);
			zkp_backend_ntt(cpu, &dc, &d, &opts);
			check(memcmp(dc.ptr, got, bytes) == 0, "ntt equals cpu", lg * 16 + o);
			zkp_backend_release(cpu, &dc);
		}
		free(x);
		free(got);
		free(mem);
	}
}

static void test_h(void)
{
	size_t n = 4096, bytes = n * sizeof(zkp_fr);
	zkp_fr *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *got = malloc(bytes);
	zkp_fr z;
	rand_fr(&z);
	for (size_t i = 0; i < n; i++) {
		rand_fr(&a[i]);
		rand_fr(&b[i]);
		rand_fr(&c[i]);
	}
	zkp_dbuf da = to_gpu(a, bytes), db = to_gpu(b, bytes), dc = to_gpu(c, bytes);
	check(zkp_backend_cuda_h_pointwise(gpu, &da, &db, &dc, &z, n) == 0, "h pointwise", n);
	check(zkp_backend_download(gpu, got, &da, 0, bytes) == 0, "download", bytes);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		zkp_fr r;
		zkp_fr_mul(&r, &a[i], &b[i]);
		zkp_fr_sub(&r, &r, &c[i]);
		zkp_fr_mul(&r, &r, &z);
		bad += !zkp_fr_eq(&r, &got[i]);
	}
	check(bad == 0, "h equals cpu", bad);
	check(zkp_backend_cuda_h_pointwise(cpu, &da, &db, &dc, &z, n) == ZKP_ERR_INVAL,
	      "h on the cpu backend refused", 0);
	zkp_backend_release(gpu, &da);
	zkp_backend_release(gpu, &db);
	zkp_backend_release(gpu, &dc);
	free(a);
	free(b);
	free(c);
	free(got);
}

#define NPTS ((size_t)1 << 16)

static zkp_g1_affine *points(size_t n)
{
	zkp_g1_affine *p = malloc(n * sizeof(*p));
	zkp_g1 *j = malloc(n * sizeof(*j));
	zkp_fp *s = malloc(n * sizeof(*s));
	zkp_fr k;
	rand_fr(&k);
	zkp_g1 q;
	zkp_g1_from_affine(&q, &ZKP_G1_GENERATOR);
	zkp_g1_mul_fr(&q, &q, &k);
	j[0] = q;
	for (size_t i = 1; i < n; i++)
		zkp_g1_add(&j[i], &j[i - 1], &q);
	zkp_g1s_to_affine(p, j, n, s);
	for (size_t i = 5; i < n; i += 997) /* infinity, negations, repeats */
		memset(&p[i], 0, sizeof(p[i]));
	for (size_t i = 11; i < n; i += 1009)
		zkp_g1_affine_neg(&p[i], &p[i - 1]);
	for (size_t i = 13; i < n; i += 1013)
		p[i] = p[i - 2];
	free(j);
	free(s);
	return p;
}

enum kind { RANDOM, ZERO_ONE, ZEROS };

static void fill_scalars(zkp_fr *s, size_t n, enum kind k)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = tu_rand64() % 100;
		if (k == ZEROS || (k == ZERO_ONE && r < 60))
			zkp_fr_set_zero(&s[i]);
		else if (k == ZERO_ONE && r < 95)
			zkp_fr_set_one(&s[i]);
		else
			rand_fr(&s[i]);
	}
}

static void msm_case(const char *what, const zkp_g1_affine *pts, size_t n, enum kind k,
		     int density_pct, unsigned window)
{
	zkp_fr *s = malloc((n + 1) * sizeof(*s));
	fill_scalars(s, n, k);
	uint64_t *dens = NULL;
	size_t nb = n;
	if (density_pct >= 0) {
		dens = calloc(n / 64 + 1, sizeof(*dens));
		nb = 0;
		for (size_t i = 0; i < n; i++)
			if ((int)(tu_rand64() % 100) < density_pct) {
				dens[i / 64] |= UINT64_C(1) << (i % 64);
				nb++;
			}
	}
	zkp_msm_opts opts = { ZKP_MSM_AUTO, window, false };
	zkp_dbuf cb, cs;
	zkp_backend_import_host(cpu, &cb, pts, nb * sizeof(*pts));
	zkp_backend_import_host(cpu, &cs, s, n * sizeof(*s));
	zkp_dbuf gb = to_gpu(pts, nb * sizeof(*pts)), gs = to_gpu(s, n * sizeof(*s));
	zkp_g1 want, got;
	check(zkp_backend_msm_g1(cpu, &want, &cb, &cs, dens, n, NULL) == 0, "cpu msm", n);
	int err = zkp_backend_msm_g1(gpu, &got, &gb, &gs, dens, n, &opts);
	check(err == 0, what, n);
	if (err) {
		zkp_error e;
		zkp_backend_cuda_last_error(gpu, &e);
		fprintf(stderr, "  %s\n", e.msg);
	}
	check(zkp_g1_eq(&want, &got), what, n);
	zkp_backend_release(gpu, &gb);
	zkp_backend_release(gpu, &gs);
	zkp_backend_release(cpu, &cb);
	zkp_backend_release(cpu, &cs);
	free(dens);
	free(s);
}

static void test_msm(void)
{
	zkp_g1_affine *pts = points(NPTS);
	msm_case("msm n=0", pts, 0, RANDOM, -1, 0);
	msm_case("msm n=1", pts, 1, RANDOM, -1, 0);
	msm_case("msm n=2", pts, 2, RANDOM, -1, 0);
	msm_case("msm 2^10", pts, 1024, RANDOM, -1, 0);
	msm_case("msm 2^10 window 4", pts, 1024, RANDOM, -1, 4);
	msm_case("msm 2^10 window 20", pts, 1024, RANDOM, -1, 20);
	msm_case("msm 2^16", pts, NPTS, RANDOM, -1, 0);
	msm_case("msm 2^16 0/1-heavy", pts, NPTS, ZERO_ONE, -1, 0);
	msm_case("msm 2^16 zeros", pts, NPTS, ZEROS, -1, 0);
	msm_case("msm 2^16 odd size", pts, NPTS - 3, RANDOM, -1, 0);
	msm_case("msm density 50%", pts, NPTS, RANDOM, 50, 0);
	msm_case("msm density 0/1-heavy", pts, NPTS, ZERO_ONE, 80, 0);
	msm_case("msm density empty", pts, 1000, RANDOM, 0, 0);
	msm_case("msm density full", pts, 1000, RANDOM, 100, 0);
	free(pts);
}

static void test_g2(void)
{
	size_t n = 64;
	zkp_g2_affine *p = malloc(n * sizeof(*p));
	zkp_fr *s = malloc(n * sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		zkp_g2 q;
		rand_fr(&s[i]);
		zkp_g2_from_affine(&q, &ZKP_G2_GENERATOR);
		zkp_g2_mul_fr(&q, &q, &s[i]);
		zkp_g2_to_affine(&p[i], &q);
		rand_fr(&s[i]);
	}
	zkp_dbuf cb, cs, gb = to_gpu(p, n * sizeof(*p)), gs = to_gpu(s, n * sizeof(*s));
	zkp_backend_import_host(cpu, &cb, p, n * sizeof(*p));
	zkp_backend_import_host(cpu, &cs, s, n * sizeof(*s));
	zkp_g2 want, got;
	zkp_backend_msm_g2(cpu, &want, &cb, &cs, NULL, n, NULL);
	check(zkp_backend_msm_g2(gpu, &got, &gb, &gs, NULL, n, NULL) == 0, "g2 msm", n);
	check(zkp_g2_eq(&want, &got), "g2 msm equals cpu", n);
	zkp_backend_release(gpu, &gb);
	zkp_backend_release(gpu, &gs);
	free(p);
	free(s);
}

static void test_buffers(void)
{
	zkp_dbuf b;
	uint8_t in[100], out[100];
	tu_rand_bytes(in, sizeof(in));
	check(zkp_backend_alloc(gpu, &b, 100) == 0, "alloc", 100);
	check(!gpu->host_visible, "not host visible", 0);
	check(zkp_backend_upload(gpu, &b, 0, in, 100) == 0, "upload", 100);
	check(zkp_backend_download(gpu, out, &b, 0, 100) == 0, "download", 100);
	check(memcmp(in, out, 100) == 0, "round trip", 100);
	check(zkp_backend_upload(gpu, &b, 50, in, 51) == ZKP_ERR_INVAL, "upload range", 51);
	check(zkp_backend_download(gpu, out, &b, 101, 0) == ZKP_ERR_INVAL, "download range", 101);
	zkp_backend_release(gpu, &b);
	zkp_dbuf z = { 0 };
	zkp_backend_release(gpu, &z);
	zkp_backend *bad = NULL;
	zkp_error e = { 0 };
	check(zkp_backend_cuda_new(&bad, 1 << 20, &e) == ZKP_ERR_INVAL && !bad, "no such device",
	      0);
}

int main(void)
{
	int ndev = 0;
	int err = zkp_backend_cuda_count(&ndev);
	if (err || ndev == 0) {
		fprintf(stderr, "no CUDA device (%s): skipped\n", err ? zkp_strerror(err) : "0");
		return 77;
	}
	tu_seed();
	zkp_error e = { 0 };
	if (zkp_pool_new(&pool, 3) || zkp_backend_cpu_new(&cpu, pool) ||
	    (err = zkp_backend_cuda_new(&gpu, 0, &e))) {
		fprintf(stderr, "setup failed: %s\n", zkp_error_text(&e, err));
		return 1;
	}
	zkp_backend_cuda_set_host_pool(gpu, pool);
	test_buffers();
	test_ntt();
	test_h();
	test_msm();
	test_g2();
	zkp_backend_free(gpu);
	zkp_backend_free(cpu);
	zkp_pool_free(pool);
	printf("%lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
