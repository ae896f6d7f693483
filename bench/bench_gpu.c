/*
 * zkpd-gpu-bench: times the CUDA backend's G1 MSM and NTT on device 0 and
 * prints one JSON object per line, e.g.
 *   {"op":"msm_g1","log_n":20,"ms":12.3,"window":14}
 *   {"op":"ntt","log_n":20,"fwd_ms":1.2,"inv_coset_ms":1.4}
 * Usage: zkpd-gpu-bench [msm LOG_MIN LOG_MAX] [ntt LOG_MIN LOG_MAX]
 * (default: msm 20 26 step 2, ntt 20 26 step 1). Exit 77 without a device.
 *
 * Inputs are resident on the device before timing: bases are 2^20 distinct
 * points (a random point's multiples) repeated, scalars and NTT inputs are
 * uniform random below 2^254. An MSM time covers the whole backend call
 * (scalar conversion, sort, buckets, reduction, workspace allocation and
 * the host's window combination); an NTT time is queue-to-sync, the best
 * of three.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkpd/backend.h"
#include "zkpd/backend_cuda.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/ntt.h"
#include "zkpd/pool.h"

#define DISTINCT_LOG 20

static uint64_t rng_state[4] = { 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
				 0x94d049bb133111ebULL, 0x2545f4914f6cdd1dULL };

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rand64(void) /* xoshiro256** */
{
	uint64_t *s = rng_state, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Below 2^254 < r: a valid Montgomery-form element. */
static void rand_frs(zkp_fr *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < 4; j++)
			x[i].l[j] = rand64();
		x[i].l[3] &= 0x3fffffffffffffffULL;
	}
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "zkpd-gpu-bench: %s: %s\n", what, zkp_strerror(err));
	return 1;
}

static int bench_msm(zkp_backend *be, unsigned lo, unsigned hi)
{
	size_t nmax = (size_t)1 << hi, nd = (size_t)1 << DISTINCT_LOG;
	if (nd > nmax)
		nd = nmax;
	zkp_g1_affine *pts = malloc(nmax * sizeof(*pts));
	zkp_g1 *jac = malloc(nd * sizeof(*jac));
	zkp_fp *scratch = malloc(nd * sizeof(*scratch));
	zkp_fr *sc = malloc(nmax * sizeof(*sc));
	zkp_dbuf db = { 0 }, ds = { 0 };
	int err = ZKP_ERR_NOMEM;
	if (!pts || !jac || !scratch || !sc)
		goto out;
	zkp_fr k;
	rand_frs(&k, 1);
	zkp_g1 q;
	zkp_g1_from_affine(&q, &ZKP_G1_GENERATOR);
	zkp_g1_mul_fr(&q, &q, &k);
	jac[0] = q;
	for (size_t i = 1; i < nd; i++)
		zkp_g1_add(&jac[i], &jac[i - 1], &q);
	zkp_g1s_to_affine(pts, jac, nd, scratch);
	for (size_t i = nd; i < nmax; i += nd)
		memcpy(pts + i, pts, nd * sizeof(*pts));
	rand_frs(sc, nmax);
	if ((err = zkp_backend_import_host(be, &db, pts, nmax * sizeof(*pts))) ||
	    (err = zkp_backend_import_host(be, &ds, sc, nmax * sizeof(*sc))))
		goto out;
	zkp_g1 r;
	/* warm-up: module load, first allocations */
	if ((err = zkp_backend_msm_g1(be, &r, &db, &ds, NULL, (size_t)1 << 12, NULL)))
		goto out;
	for (unsigned lg = lo; lg <= hi; lg += 2) {
		double t0 = now_ms();
		if ((err = zkp_backend_msm_g1(be, &r, &db, &ds, NULL, (size_t)1 << lg, NULL)))
			goto out;
		double t1 = now_ms();
		printf("{\"op\":\"msm_g1\",\"log_n\":%u,\"ms\":%.3f}\n", lg, t1 - t0);
		fflush(stdout);
	}
out:
	zkp_backend_release(be, &db);
	zkp_backend_release(be, &ds);
	free(pts);
	free(jac);
	free(scratch);
	free(sc);
	return err ? fail("msm", err) : 0;
}

static int time_ntt(zkp_backend *be, double *best, zkp_dbuf *x, const zkp_ntt_domain *d,
		    const zkp_ntt_opts *o)
{
	*best = 1e300;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now_ms();
		int err = zkp_backend_ntt(be, x, d, o);
		if (!err)
			err = zkp_backend_sync(be);
		if (err)
			return err;
		double t = now_ms() - t0;
		if (t < *best)
			*best = t;
	}
	return 0;
}

static int bench_ntt(zkp_backend *be, zkp_pool *pool, unsigned lo, unsigned hi)
{
	size_t nmax = (size_t)1 << hi;
	zkp_fr *x = malloc(nmax * sizeof(*x));
	void *mem = NULL;
	zkp_dbuf dx = { 0 };
	int err = ZKP_ERR_NOMEM;
	if (!x)
		goto out;
	rand_frs(x, nmax);
	if ((err = zkp_backend_alloc(be, &dx, nmax * sizeof(*x))) ||
	    (err = zkp_backend_upload(be, &dx, 0, x, nmax * sizeof(*x))))
		goto out;
	for (unsigned lg = lo; lg <= hi; lg++) {
		zkp_ntt_domain d;
		free(mem);
		mem = aligned_alloc(64, zkp_ntt_domain_mem_size(lg));
		err = ZKP_ERR_NOMEM;
		if (!mem || (err = zkp_ntt_domain_init(&d, lg, ZKP_NTT_ROOTS_BELLMAN, NULL, mem,
						       pool)))
			goto out;
		zkp_ntt_opts fwd = { false, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
		zkp_ntt_opts inv = { true, true, ZKP_NTT_BITREV, ZKP_NTT_NATURAL };
		double tf, ti;
		/* first call uploads the domain's tables: not timed */
		if ((err = zkp_backend_ntt(be, &dx, &d, &fwd)) || (err = zkp_backend_sync(be)) ||
		    (err = time_ntt(be, &tf, &dx, &d, &fwd)) ||
		    (err = time_ntt(be, &ti, &dx, &d, &inv)))
			goto out;
		printf("{\"op\":\"ntt\",\"log_n\":%u,\"fwd_ms\":%.3f,\"inv_coset_ms\":%.3f}\n", lg,
		       tf, ti);
		fflush(stdout);
	}
out:
	zkp_backend_release(be, &dx);
	free(mem);
	free(x);
	return err ? fail("ntt", err) : 0;
}

int main(int argc, char **argv)
{
	unsigned msm_lo = 20, msm_hi = 26, ntt_lo = 20, ntt_hi = 26;
	bool do_msm = true, do_ntt = true;
	if (argc > 1) {
		do_msm = do_ntt = false;
		for (int i = 1; i < argc; i += 3) {
			if (i + 2 >= argc) {
				fprintf(stderr, "usage: %s [msm LO HI] [ntt LO HI]\n", argv[0]);
				return 2;
			}
			unsigned a = (unsigned)atoi(argv[i + 1]), b = (unsigned)atoi(argv[i + 2]);
			if (a < 1 || b > 28 || a > b) {
				fprintf(stderr, "%s: bad range %u..%u\n", argv[0], a, b);
				return 2;
			}
			if (!strcmp(argv[i], "msm")) {
				do_msm = true;
				msm_lo = a;
				msm_hi = b;
			} else if (!strcmp(argv[i], "ntt")) {
				do_ntt = true;
				ntt_lo = a;
				ntt_hi = b;
			} else {
				fprintf(stderr, "%s: unknown bench %s\n", argv[0], argv[i]);
				return 2;
			}
		}
	}
	int ndev = 0;
	if (zkp_backend_cuda_count(&ndev) || ndev == 0) {
		fprintf(stderr, "zkpd-gpu-bench: no CUDA device\n");
		return 77;
	}
	zkp_error e = { 0 };
	zkp_backend *be = NULL;
	zkp_pool *pool = NULL;
	int err = zkp_pool_new(&pool, 15);
	if (err)
		return fail("pool", err);
	if ((err = zkp_backend_cuda_new(&be, 0, &e))) {
		fprintf(stderr, "zkpd-gpu-bench: %s\n", zkp_error_text(&e, err));
		zkp_pool_free(pool);
		return 1;
	}
	int rc = 0;
	if (do_ntt)
		rc |= bench_ntt(be, pool, ntt_lo, ntt_hi);
	if (do_msm)
		rc |= bench_msm(be, msm_lo, msm_hi);
	zkp_backend_free(be);
	zkp_pool_free(pool);
	return rc;
}
