/*
 * The CUDA backend against the CPU backend on the same random inputs: the
 * grouped NTT with every option (2^1, 2^2, 2^5, 2^11 and every size from
 * 2^12 to 2^20), the pointwise H step with and without its scale and c
 * (b and c also as views) and H's last step (2 to 2^16 points, c a view),
 * G1 MSM (sizes 0 to 2^16, random, 0/1-heavy, witness-like
 * and all-zero scalars, density bitmaps, forced windows, scalars passed as
 * a view into a larger buffer) and the G2 MSM on the device (sizes 0 to
 * 2^14, the same kinds of scalars, densities and views) and the
 * fixed-base multiplication of key setups (G1 up to 2^22 + 3 points, past
 * one device chunk, and G2), and evaluation (a synthetic circuit's three
 * matrices times its witness, and the row check); plus buffer range checks, views refused as
 * write targets, pinned host memory (host_alloc / host_free and its
 * ZKP_MEM_PINNED count), and busy time (copies add none, an NTT and an MSM
 * add kernel time, never more than the wall time around them). Exits 77
 * when no CUDA device is present.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/backend.h"
#include "zkpd/backend_cuda.h"
#include "zkpd/error.h"
#include "zkpd/fixed_base.h"
#include "zkpd/mem.h"
#include "zkpd/pce.h"
#include "zkpd/synth.h"

static zkp_backend *cpu, *gpu;
static zkp_pool *pool;
static unsigned long checks, failures;

static void check(int ok, const char *what, size_t arg)
{
	checks++;
	if (!ok && failures++ < 20)
		fprintf(stderr, "FAIL %s (%zu)\n", what, arg);
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
	const unsigned logs[] = { 1, 2, 5, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	for (unsigned li = 0; li < sizeof(logs) / sizeof(logs[0]); li++) {
		unsigned lg = logs[li];
		zkp_ntt_domain d;
		void *mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(lg) + 63) & ~(size_t)63);
		zkp_fr shift;
		tu_rand_fr(&shift);
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
				tu_rand_fr(&x[i]);
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

/* h_pointwise on both backends, with and without a scale and c; b and c
 * are views into larger buffers on the device. */
static void test_h(void)
{
	size_t n = 4099, bytes = n * sizeof(zkp_fr), pad = 5 * sizeof(zkp_fr);
	zkp_fr *a = malloc(bytes), *b = malloc(bytes + pad), *c = malloc(bytes + pad);
	zkp_fr *got = malloc(bytes), *want = malloc(bytes);
	zkp_fr z;
	tu_rand_fr(&z);
	for (size_t i = 0; i < n; i++)
		tu_rand_fr(&a[i]);
	for (size_t i = 0; i < n + 5; i++) {
		tu_rand_fr(&b[i]);
		tu_rand_fr(&c[i]);
	}
	for (int mode = 0; mode < 4; mode++) {
		bool scaled = mode & 1, with_c = mode & 2;
		const zkp_fr *scale = scaled ? &z : NULL;
		zkp_dbuf da = to_gpu(a, bytes), db = to_gpu(b, bytes + pad);
		zkp_dbuf dc = to_gpu(c, bytes + pad), vb, vc;
		check(zkp_dbuf_view(&vb, &db, pad, bytes) == 0 &&
			      zkp_dbuf_view(&vc, &dc, pad, bytes) == 0,
		      "views", 0);
		check(zkp_backend_h_pointwise(gpu, &da, &vb, with_c ? &vc : NULL, scale, n) == 0,
		      "h pointwise", n);
		check(zkp_backend_sync(gpu) == 0, "sync", 0);
		check(zkp_backend_download(gpu, got, &da, 0, bytes) == 0, "download", bytes);
		zkp_dbuf ca, cb, cc;
		zkp_backend_alloc(cpu, &ca, bytes);
		zkp_backend_upload(cpu, &ca, 0, a, bytes);
		zkp_backend_import_host(cpu, &cb, b + 5, bytes);
		zkp_backend_import_host(cpu, &cc, c + 5, bytes);
		check(zkp_backend_h_pointwise(cpu, &ca, &cb, with_c ? &cc : NULL, scale, n) == 0,
		      "cpu h", n);
		memcpy(want, ca.ptr, bytes);
		check(memcmp(want, got, bytes) == 0, "h equals cpu (mode: 1 scaled, 2 with c)",
		      (unsigned long)mode);
		/* a is written: a view is refused, and so are short buffers */
		zkp_dbuf va;
		zkp_dbuf_view(&va, &da, 0, bytes);
		check(zkp_backend_h_pointwise(gpu, &va, &vb, &vc, scale, n) == ZKP_ERR_INVAL,
		      "h into a view refused", 0);
		check(zkp_backend_h_pointwise(gpu, &da, &vb, &vc, scale, n + 1) == ZKP_ERR_INVAL,
		      "h short buffers refused", 0);
		zkp_backend_release(gpu, &da);
		zkp_backend_release(gpu, &db);
		zkp_backend_release(gpu, &dc);
		zkp_backend_release(cpu, &ca);
		zkp_backend_release(cpu, &cb);
		zkp_backend_release(cpu, &cc);
	}
	free(a);
	free(b);
	free(c);
	free(got);
	free(want);
}

/* h_coeffs on both backends at sizes from 2 to 2^16 (one block to many),
 * c a view into a larger buffer; a view as a, overlapping buffers, short
 * ones and a size past the NTT's are refused. */
static void test_h_coeffs(void)
{
	static const unsigned logs[] = { 1, 5, 8, 9, 13, 16 };
	for (size_t k = 0; k < sizeof(logs) / sizeof(logs[0]); k++) {
		unsigned lg = logs[k];
		size_t n = (size_t)1 << lg, bytes = n * sizeof(zkp_fr), pad = 3 * sizeof(zkp_fr);
		zkp_fr *a = malloc(bytes), *c = malloc(bytes + pad), *got = malloc(bytes), z;
		tu_rand_fr(&z);
		for (size_t i = 0; i < n; i++)
			tu_rand_fr(&a[i]);
		for (size_t i = 0; i < n + 3; i++)
			tu_rand_fr(&c[i]);
		for (int scaled = 0; scaled < 2; scaled++) {
			const zkp_fr *scale = scaled ? &z : NULL;
			zkp_dbuf da = to_gpu(a, bytes), dc = to_gpu(c, bytes + pad), vc, ca, cc;
			check(zkp_dbuf_view(&vc, &dc, pad, bytes) == 0, "view", 0);
			check(zkp_backend_h_coeffs(gpu, &da, &vc, scale, lg) == 0, "h coeffs", n);
			check(zkp_backend_sync(gpu) == 0, "sync", 0);
			check(zkp_backend_download(gpu, got, &da, 0, bytes) == 0, "download", bytes);
			zkp_backend_alloc(cpu, &ca, bytes);
			zkp_backend_upload(cpu, &ca, 0, a, bytes);
			zkp_backend_import_host(cpu, &cc, c + 3, bytes);
			check(zkp_backend_h_coeffs(cpu, &ca, &cc, scale, lg) == 0, "cpu h coeffs", n);
			check(memcmp(ca.ptr, got, bytes) == 0, "h coeffs equals cpu",
			      lg * 2 + (unsigned)scaled);
			zkp_dbuf va;
			zkp_dbuf_view(&va, &da, 0, bytes);
			check(zkp_backend_h_coeffs(gpu, &va, &vc, scale, lg) == ZKP_ERR_INVAL,
			      "h coeffs into a view refused", n);
			check(zkp_backend_h_coeffs(gpu, &da, &va, scale, lg) == ZKP_ERR_INVAL,
			      "h coeffs over itself refused", n);
			check(zkp_backend_h_coeffs(gpu, &da, &vc, scale, lg + 1) == ZKP_ERR_INVAL,
			      "h coeffs short buffers refused", n);
			check(zkp_backend_h_coeffs(gpu, &da, &vc, scale, 40) == ZKP_ERR_INVAL,
			      "h coeffs past the NTT's sizes refused", n);
			zkp_backend_release(gpu, &da);
			zkp_backend_release(gpu, &dc);
			zkp_backend_release(cpu, &ca);
			zkp_backend_release(cpu, &cc);
		}
		free(a);
		free(c);
		free(got);
	}
}

/* Pinned staging memory: counted in whole 2 MiB granules while it lives or
 * is kept for reuse, usable as the source and destination of copies; a
 * freed block comes back for the same rounded size, and a different size
 * lets kept blocks go. */
static void test_host_mem(void)
{
	const size_t mib = (size_t)1 << 20, bytes = 3 * mib, rounded = 4 * mib;
	uint64_t before = zkp_mem_counter(ZKP_MEM_PINNED);
	void *p = NULL, *q = NULL, *r = NULL;
	check(zkp_backend_host_alloc(gpu, &p, bytes) == 0 && p, "host_alloc", bytes);
	check(zkp_backend_host_alloc(gpu, &q, bytes) == 0 && q, "host_alloc", bytes);
	check(zkp_mem_counter(ZKP_MEM_PINNED) == before + 2 * rounded, "pinned counted", bytes);
	if (p && q) {
		tu_rand_bytes(p, bytes);
		zkp_dbuf d;
		check(zkp_backend_alloc(gpu, &d, bytes) == 0, "alloc", bytes);
		check(zkp_backend_upload(gpu, &d, 0, p, bytes) == 0, "upload pinned", bytes);
		check(zkp_backend_download(gpu, q, &d, 0, bytes) == 0, "download pinned", bytes);
		check(memcmp(p, q, bytes) == 0, "pinned round trip", bytes);
		zkp_backend_release(gpu, &d);
	}
	zkp_backend_host_free(gpu, p, bytes);
	zkp_backend_host_free(gpu, q, bytes);
	zkp_backend_host_free(gpu, NULL, 0);
	check(zkp_mem_counter(ZKP_MEM_PINNED) == before + 2 * rounded, "kept blocks counted",
	      bytes);
	/* 2.5 MiB rounds to the kept blocks' 4 MiB (2 MiB would not). */
	const size_t same_rounded = bytes - mib / 2;
	check(zkp_backend_host_alloc(gpu, &r, same_rounded) == 0 && (r == p || r == q),
	      "a kept block is reused", same_rounded);
	check(zkp_mem_counter(ZKP_MEM_PINNED) == before + 2 * rounded, "reuse allocates nothing",
	      same_rounded);
	zkp_backend_host_free(gpu, r, same_rounded);
	check(zkp_backend_host_alloc(gpu, &r, 9 * mib) == 0 && r, "host_alloc 9 MiB", 9 * mib);
	check(zkp_mem_counter(ZKP_MEM_PINNED) == before + 10 * mib,
	      "another size lets kept blocks go", 9 * mib);
	zkp_backend_host_free(gpu, r, 9 * mib);
	void *z = NULL;
	check(zkp_backend_host_alloc(gpu, &z, 0) == 0 && z, "host_alloc 0", 0);
	zkp_backend_host_free(gpu, z, 0);
}

#define NPTS ((size_t)1 << 16)

static zkp_g1_affine *points(size_t n)
{
	zkp_g1_affine *p = malloc(n * sizeof(*p));
	zkp_g1 *j = malloc(n * sizeof(*j));
	zkp_fp *s = malloc(n * sizeof(*s));
	zkp_fr k;
	tu_rand_fr(&k);
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

/* ZERO_ONE: 60 % zeros, 35 % ones; WITNESS: 70 % zeros, 25 % ones (the
 * rest uniform). */
enum kind { RANDOM, ZERO_ONE, WITNESS, ZEROS };

static void fill_scalars(zkp_fr *s, size_t n, enum kind k)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = tu_rand64() % 100;
		unsigned zeros = k == ZERO_ONE ? 60 : k == WITNESS ? 70 : 0;
		if (k == ZEROS || r < zeros)
			zkp_fr_set_zero(&s[i]);
		else if ((k == ZERO_ONE || k == WITNESS) && r < 95)
			zkp_fr_set_one(&s[i]);
		else
			tu_rand_fr(&s[i]);
	}
}

/* One MSM, G1 (pts zkp_g1_affine) or G2 (zkp_g2_affine), on the device
 * against the CPU backend. With view_off > 0 the device scalars are a view
 * at that many scalars into a larger buffer. */
/* pass: windows a device pass (0: the backend's). */
static void msm_case_at(const char *what, bool g2, const void *pts, size_t n, enum kind k,
			int density_pct, unsigned window, size_t view_off, unsigned pass)
{
	const size_t psize = g2 ? sizeof(zkp_g2_affine) : sizeof(zkp_g1_affine);
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
	zkp_msm_opts opts = { ZKP_MSM_AUTO, window, false, pass, NULL };
	zkp_dbuf cb, cs;
	zkp_backend_import_host(cpu, &cb, pts, nb * psize);
	zkp_backend_import_host(cpu, &cs, s, n * sizeof(*s));
	zkp_dbuf gb = to_gpu(pts, nb * psize), gs, view;
	if (view_off) {
		size_t head = view_off * sizeof(*s), bytes = n * sizeof(*s);
		check(zkp_backend_alloc(gpu, &gs, head + bytes + sizeof(*s)) == 0, "alloc", n);
		check(zkp_backend_upload(gpu, &gs, head, s, bytes) == 0, "upload", n);
		check(zkp_dbuf_view(&view, &gs, head, bytes) == 0, "view", n);
		check(zkp_backend_upload(gpu, &view, 0, s, bytes) == ZKP_ERR_INVAL,
		      "upload into a view refused", n);
	} else {
		gs = to_gpu(s, n * sizeof(*s));
		view = gs;
	}
	int err;
	bool same;
	if (g2) {
		zkp_g2 want, got;
		check(zkp_backend_msm_g2(cpu, &want, &cb, &cs, dens, n, NULL) == 0, "cpu msm", n);
		err = zkp_backend_msm_g2(gpu, &got, &gb, &view, dens, n, &opts);
		same = zkp_g2_eq(&want, &got);
	} else {
		zkp_g1 want, got;
		check(zkp_backend_msm_g1(cpu, &want, &cb, &cs, dens, n, NULL) == 0, "cpu msm", n);
		err = zkp_backend_msm_g1(gpu, &got, &gb, &view, dens, n, &opts);
		same = zkp_g1_eq(&want, &got);
	}
	check(err == 0, what, n);
	if (err) {
		zkp_error e;
		zkp_backend_cuda_last_error(gpu, &e);
		fprintf(stderr, "  %s\n", e.msg);
	}
	check(same, what, n);
	/* The MSM works on its own copy: the caller's scalars stay as given. */
	if (n) {
		zkp_fr *back = malloc(n * sizeof(*back));
		check(zkp_backend_download(gpu, back, &view, 0, n * sizeof(*back)) == 0 &&
			      memcmp(back, s, n * sizeof(*back)) == 0,
		      "the scalars are left as they were", n);
		free(back);
	}
	zkp_backend_release(gpu, &gb);
	zkp_backend_release(gpu, &gs);
	zkp_backend_release(cpu, &cb);
	zkp_backend_release(cpu, &cs);
	free(dens);
	free(s);
}

static void msm_case(const char *what, const zkp_g1_affine *pts, size_t n, enum kind k,
		     int density_pct, unsigned window)
{
	msm_case_at(what, false, pts, n, k, density_pct, window, 0, 0);
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
	msm_case_at("msm 2^16 one window a pass", false, pts, NPTS, RANDOM, -1, 0, 0, 1);
	msm_case_at("msm 2^16 0/1-heavy, 3 windows a pass", false, pts, NPTS, ZERO_ONE, -1, 0, 0, 3);
	msm_case("msm density 50%", pts, NPTS, RANDOM, 50, 0);
	msm_case("msm density 0/1-heavy", pts, NPTS, ZERO_ONE, 80, 0);
	msm_case("msm density empty", pts, 1000, RANDOM, 0, 0);
	msm_case("msm density full", pts, 1000, RANDOM, 100, 0);
	msm_case("msm 2^16 witness-like", pts, NPTS, WITNESS, -1, 0);
	msm_case("msm 2^10 witness-like", pts, 1024, WITNESS, -1, 0);
	msm_case("msm 2^16 witness-like window 8", pts, NPTS, WITNESS, -1, 8);
	msm_case("msm density witness-like", pts, NPTS, WITNESS, 60, 0);
	msm_case("msm density odd size", pts, NPTS - 37, WITNESS, 70, 0);
	msm_case_at("msm scalars as a view", false, pts, 5000, RANDOM, -1, 0, 77, 0);
	msm_case_at("msm witness-like view", false, pts, NPTS - 100, WITNESS, -1, 0, 100, 0);
	msm_case_at("msm density view", false, pts, 3000, WITNESS, 50, 0, 3, 0);
	free(pts);
}

#define NPTS_G2 ((size_t)1 << 14)

static zkp_g2_affine *points_g2(size_t n)
{
	zkp_g2_affine *p = malloc(n * sizeof(*p));
	zkp_g2 *j = malloc(n * sizeof(*j));
	zkp_fp2 *s = malloc(n * sizeof(*s));
	zkp_fr k;
	tu_rand_fr(&k);
	zkp_g2 q;
	zkp_g2_from_affine(&q, &ZKP_G2_GENERATOR);
	zkp_g2_mul_fr(&q, &q, &k);
	j[0] = q;
	for (size_t i = 1; i < n; i++)
		zkp_g2_add(&j[i], &j[i - 1], &q);
	zkp_g2s_to_affine(p, j, n, s);
	for (size_t i = 5; i < n; i += 997) /* infinity, negations, repeats */
		memset(&p[i], 0, sizeof(p[i]));
	for (size_t i = 11; i < n; i += 1009)
		zkp_g2_affine_neg(&p[i], &p[i - 1]);
	for (size_t i = 13; i < n; i += 1013)
		p[i] = p[i - 2];
	free(j);
	free(s);
	return p;
}

static void test_g2(void)
{
	zkp_g2_affine *pts = points_g2(NPTS_G2);
	msm_case_at("g2 msm n=0", true, pts, 0, RANDOM, -1, 0, 0, 0);
	msm_case_at("g2 msm n=1", true, pts, 1, RANDOM, -1, 0, 0, 0);
	msm_case_at("g2 msm n=2", true, pts, 2, RANDOM, -1, 0, 0, 0);
	msm_case_at("g2 msm 2^10", true, pts, 1024, RANDOM, -1, 0, 0, 0);
	msm_case_at("g2 msm 2^10 window 4", true, pts, 1024, RANDOM, -1, 4, 0, 0);
	msm_case_at("g2 msm 2^14", true, pts, NPTS_G2, RANDOM, -1, 0, 0, 0);
	msm_case_at("g2 msm 2^14 0/1-heavy", true, pts, NPTS_G2, ZERO_ONE, -1, 0, 0, 0);
	msm_case_at("g2 msm 2^14, 2 windows a pass", true, pts, NPTS_G2, RANDOM, -1, 0, 0, 2);
	msm_case_at("g2 msm 2^14 zeros", true, pts, NPTS_G2, ZEROS, -1, 0, 0, 0);
	msm_case_at("g2 msm 2^14 witness-like", true, pts, NPTS_G2, WITNESS, -1, 0, 0, 0);
	msm_case_at("g2 msm density witness-like", true, pts, NPTS_G2, WITNESS, 25, 0, 0, 0);
	msm_case_at("g2 msm density odd size", true, pts, NPTS_G2 - 37, WITNESS, 70, 0, 0, 0);
	msm_case_at("g2 msm density empty", true, pts, 1000, RANDOM, 0, 0, 0, 0);
	msm_case_at("g2 msm witness-like view", true, pts, 5000, WITNESS, -1, 0, 100, 0);
	free(pts);
}

/* Fixed-base multiplication (key setup) on the device against the CPU
 * backend, byte for byte: sizes 0, 1, a few thousand and one past the
 * device's 2^22-point chunk; scalars uniform, 0, 1 and r - 1. */
static void fb_scalars(zkp_fr *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (i % 7) {
		case 0: zkp_fr_set_zero(&s[i]); break;
		case 1: zkp_fr_set_one(&s[i]); break;
		case 2: zkp_fr_set_one(&s[i]); zkp_fr_neg(&s[i], &s[i]); break;
		default: tu_rand_fr(&s[i]);
		}
	}
}

static void test_fixed_base(void)
{
	const size_t sizes[] = { 0, 1, 5000, ((size_t)1 << 22) + 3 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		zkp_fr *s = malloc((n + 1) * sizeof(*s));
		zkp_g1_affine *want = malloc((n + 1) * sizeof(*want)), *got = malloc((n + 1) * sizeof(*got));
		fb_scalars(s, n);
		memset(got, 0x5a, (n + 1) * sizeof(*got));
		check(zkp_backend_fixed_base_g1(cpu, want, s, n) == 0, "cpu fixed base g1", n);
		check(zkp_backend_fixed_base_g1(gpu, got, s, n) == 0, "gpu fixed base g1", n);
		check(n == 0 || memcmp(want, got, n * sizeof(*got)) == 0, "fixed base g1 equals cpu", n);
		free(want);
		free(got);
		if (n <= 5000) {
			zkp_g2_affine *w2 = malloc((n + 1) * sizeof(*w2)), *g2 = malloc((n + 1) * sizeof(*g2));
			check(zkp_backend_fixed_base_g2(cpu, w2, s, n) == 0, "cpu fixed base g2", n);
			check(zkp_backend_fixed_base_g2(gpu, g2, s, n) == 0, "gpu fixed base g2", n);
			check(n == 0 || memcmp(w2, g2, n * sizeof(*g2)) == 0, "fixed base g2 equals cpu",
			      n);
			free(w2);
			free(g2);
		}
		free(s);
	}
}

/* Evaluation on the device against the CPU backend: a synthetic circuit
 * of about 2^18 rows, each matrix imported, times its witness, with the
 * padding; the row check on the result, then with one row broken. */
static void test_spmv(void)
{
	const uint64_t rows = ((uint64_t)1 << 18) - 77;
	zkp_error err = { 0 };
	zkp_synth_info info;
	zkp_pce_builder *b = NULL;
	zkp_pce *pce = NULL;
	char path[] = "/tmp/zkpd-gpu-spmv-XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	int rc = fd < 0 || zkp_synth_porep_dims(rows, &info, &err);
	zkp_fr *w = rc ? NULL : malloc((info.n_inputs + info.n_aux) * sizeof(*w));
	if (!rc)
		rc = !w || zkp_pce_builder_new(&b, info.n_inputs, info.n_aux);
	if (!rc)
		rc = zkp_synth_porep(rows, tu_rand64(), zkp_synth_builder_sink, b, w, NULL, &err);
	if (!rc)
		rc = zkp_pce_builder_write(b, path, &err);
	if (!rc)
		rc = zkp_pce_load(&pce, path, 0, &err);
	zkp_pce_builder_free(b);
	unlink(path);
	check(rc == 0, "synthetic circuit for spmv", rc);
	if (rc) {
		free(w);
		return;
	}
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	size_t m = (size_t)d->n_constraints, n = (size_t)1 << d->domain_log2;
	size_t nw = (size_t)(d->n_inputs + d->n_aux);
	zkp_dbuf gw = to_gpu(w, nw * sizeof(*w)), cw, out[2][3];
	zkp_backend_import_host(cpu, &cw, w, nw * sizeof(*w));
	zkp_backend *be[2] = { cpu, gpu };
	const zkp_dbuf *wb[2] = { &cw, &gw };
	zkp_fr *host[2][3];
	for (int k = 0; k < 3; k++) {
		const zkp_csr *c = zkp_pce_matrix(pce, (enum zkp_pce_matrix)k);
		for (int i = 0; i < 2; i++) {
			zkp_backend_csr dm;
			host[i][k] = malloc(n * sizeof(zkp_fr));
			check(zkp_backend_csr_import(be[i], &dm, c) == 0, "csr import", k);
			check(zkp_backend_alloc(be[i], &out[i][k], n * sizeof(zkp_fr)) == 0, "alloc", k);
			check(zkp_backend_spmv(be[i], &out[i][k], &dm, wb[i], n) == 0, "spmv", k);
			check(zkp_backend_sync(be[i]) == 0, "sync", k);
			check(zkp_backend_download(be[i], host[i][k], &out[i][k], 0,
						   n * sizeof(zkp_fr)) == 0, "download", k);
			zkp_backend_csr_release(be[i], &dm);
		}
		check(!memcmp(host[0][k], host[1][k], n * sizeof(zkp_fr)), "spmv equals cpu", k);
	}
	for (int i = 0; i < 2; i++) {
		uint64_t row = 0;
		check(zkp_backend_first_unsatisfied(be[i], &row, &out[i][0], &out[i][1], &out[i][2],
						    m) == 0 && row == UINT64_MAX,
		      "every row holds", i);
	}
	size_t bad = (size_t)(tu_rand64() % m);
	zkp_fr one;
	zkp_fr_set_one(&one);
	zkp_fr_add(&host[1][2][bad], &host[1][2][bad], &one);
	uint64_t row = 0;
	check(zkp_backend_upload(gpu, &out[1][2], 0, host[1][2], n * sizeof(zkp_fr)) == 0 &&
		      zkp_backend_first_unsatisfied(gpu, &row, &out[1][0], &out[1][1], &out[1][2],
						    m) == 0 && row == bad,
	      "the broken row is named", bad);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 3; k++) {
			zkp_backend_release(be[i], &out[i][k]);
			free(host[i][k]);
		}
	zkp_backend_release(gpu, &gw);
	zkp_backend_release(cpu, &cw);
	zkp_pce_free(pce);
	free(w);
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
	/* a view reads but is never written */
	zkp_dbuf v;
	check(zkp_dbuf_view(&v, &b, 10, 50) == 0, "view", 50);
	memset(out, 0, sizeof(out));
	check(zkp_backend_download(gpu, out, &v, 0, 50) == 0 && memcmp(out, in + 10, 50) == 0,
	      "download from a view", 50);
	check(zkp_backend_upload(gpu, &v, 0, in, 10) == ZKP_ERR_INVAL, "upload into a view", 10);
	check(zkp_backend_download(gpu, out, &v, 40, 11) == ZKP_ERR_INVAL, "view range", 11);
	check(zkp_dbuf_view(&v, &b, 90, 11) == ZKP_ERR_INVAL, "view outside", 11);
	zkp_backend_release(gpu, &v); /* a no-op */
	zkp_backend_release(gpu, &b);
	{
		zkp_ntt_domain d;
		void *mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(4) + 63) & ~(size_t)63);
		zkp_ntt_opts o = { false, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
		zkp_dbuf x, vx;
		zkp_ntt_domain_init(&d, 4, ZKP_NTT_ROOTS_BELLMAN, NULL, mem, NULL);
		check(zkp_backend_alloc(gpu, &x, 32 * sizeof(zkp_fr)) == 0, "alloc", 0);
		zkp_dbuf_view(&vx, &x, 0, 16 * sizeof(zkp_fr));
		check(zkp_backend_ntt(gpu, &vx, &d, &o) == ZKP_ERR_INVAL, "ntt on a view refused",
		      0);
		zkp_backend_release(gpu, &x);
		free(mem);
	}
	zkp_dbuf z = { 0 };
	zkp_backend_release(gpu, &z);
	zkp_backend *bad = NULL;
	zkp_error e = { 0 };
	check(zkp_backend_cuda_new(&bad, 1 << 20, &e) == ZKP_ERR_INVAL && !bad, "no such device",
	      0);
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double busy(void)
{
	double b = -1;
	check(zkp_backend_busy_seconds(gpu, &b) == 0, "busy_seconds answers", 0);
	return b;
}

/* Kernel time measured by the shim's events: copies add none; an NTT and
 * an MSM add some, no more than the wall time around them (the events lie
 * inside it), all of it once synced. The CPU backend is not a device. */
static void test_busy(void)
{
	double c;
	check(zkp_backend_busy_seconds(cpu, &c) == ZKP_ERR_UNSUPPORTED, "cpu: not a device", 0);
	enum { LOG = 20 };
	size_t n = (size_t)1 << LOG;
	zkp_fr *h = malloc(n * sizeof(*h));
	for (size_t i = 0; i < n; i++)
		tu_rand_fr(&h[i]);
	check(zkp_backend_sync(gpu) == 0, "sync", 0);
	double b0 = busy();
	zkp_dbuf x = to_gpu(h, n * sizeof(*h));
	check(busy() == b0, "uploads add no busy time", 0);
	zkp_ntt_domain d;
	void *mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(LOG) + 63) & ~(size_t)63);
	zkp_ntt_domain_init(&d, LOG, ZKP_NTT_ROOTS_BELLMAN, NULL, mem, pool);
	zkp_ntt_opts o = { false, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	double t0 = wall();
	check(zkp_backend_ntt(gpu, &x, &d, &o) == 0 && zkp_backend_sync(gpu) == 0, "ntt", LOG);
	double t1 = wall(), b1 = busy();
	check(b1 > b0 && b1 - b0 <= t1 - t0, "an NTT's kernel time, within its wall time", LOG);
	zkp_g1_affine *pts = points(NPTS);
	zkp_dbuf bases = to_gpu(pts, NPTS * sizeof(*pts));
	zkp_g1 r;
	t0 = wall();
	check(zkp_backend_msm_g1(gpu, &r, &bases, &x, NULL, NPTS, NULL) == 0 &&
		      zkp_backend_sync(gpu) == 0, "msm", NPTS);
	t1 = wall();
	double b2 = busy();
	check(b2 > b1 && b2 - b1 <= t1 - t0, "an MSM's kernel time, within its wall time", NPTS);
	check(busy() == b2, "no work, no busy time", 0);
	printf("busy: NTT 2^%d %.3f ms, MSM 2^16 %.3f ms of kernel time\n", LOG, 1e3 * (b1 - b0),
	       1e3 * (b2 - b1));
	zkp_backend_release(gpu, &bases);
	zkp_backend_release(gpu, &x);
	free(pts);
	free(mem);
	free(h);
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
	/* All cores for the CPU references (the fixed-base one at 2^22). */
	unsigned cores = zkp_pool_default_threads();
	if (zkp_pool_new(&pool, cores > 4 ? cores - 1 : 3) ||
	    zkp_backend_cpu_new(&cpu, pool) ||
	    (err = zkp_backend_cuda_new(&gpu, 0, &e))) {
		fprintf(stderr, "setup failed: %s\n", zkp_error_text(&e, err));
		return 1;
	}
	test_buffers();
	test_ntt();
	test_h();
	test_h_coeffs();
	test_host_mem();
	test_msm();
	test_g2();
	test_fixed_base();
	test_spmv();
	test_busy();
	zkp_backend_free(gpu);
	zkp_backend_free(cpu);
	zkp_pool_free(pool);
	printf("%lu checks, %lu failures\n", checks, failures);
	return failures ? 1 : 0;
}
