/*
 * zkpd-bench check: result checks of a backend's MSM and NTT at any size,
 * in O(n) on the CPU, for machines where an O(n log n) reference would
 * take too long (a GPU at 2^27).
 *
 *   zkpd-bench check msm [--backend B] [--group g1|g2] [--log2 LO[..HI]]
 *                        [--scalars KIND,...|all] [--runs R] [--seed S]
 *                        [--threads T] [--perturb] [--phases]
 *   zkpd-bench check ntt [--backend B] [--log2 LO[..HI]] [--spots K]
 *                        [--roots bellman|snarkjs] [--seed S] [--threads T]
 *                        [--perturb]
 *
 * B: cpu (default), cuda or cuda:N (builds with the CUDA backend), or
 * corrupt (the CPU backend with every G1 MSM off by the generator: a
 * backend that is wrong on purpose, for the checker's own tests).
 *
 * msm: bases (i + 1) Q made once at 2^HI and imported once; for each kind
 * of scalars (check_msm.h; default random) filled once at 2^HI, and each
 * size from LO to HI, R runs (default 1) of the backend's MSM over the
 * first 2^log2 entries, every result checked against the closed form.
 * ntt: at each size, the four transforms the prover and benches use
 * (forward natural to bit-reversed; inverse natural to bit-reversed; coset
 * forward bit-reversed to natural; inverse coset natural to natural) on
 * random input, each output checked at K spots (default 8: indices 0 and
 * n - 1 and random ones; every index when n <= K) against direct
 * evaluations (check_ntt.h), and the domain's constants checked.
 * --phases (msm): a device backend's phase times (zkp_msm_phases: CUDA
 * events between the phases, summed over the window passes), the runs'
 * medians in the line's "phases_median_ms", with "passes"; left out for a
 * backend that does not time them (the CPU's).
 * --perturb changes one input (the scalar at n/2, the element at 0) after
 * the operation and before the check, so every check must then fail: the
 * checker's own test.
 *
 * Output: one JSON object per line, per (kind, size) or (size, transform),
 * with "ok" and the time of the backend call (MSM: the whole call; NTT:
 * queue to sync, without the copies), then a last line
 * {"check":"summary","checks":N,"failed":F,"seed":S}. A failed check also
 * prints "MISMATCH: ..." with the seed on stderr. Exit 0 when every check
 * passed, 1 when one failed or an operation returned an error, 2 on bad
 * arguments, 77 when a CUDA backend was asked for and there is none.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "check_msm.h"
#include "check_ntt.h"
#include "check_rng.h"
#include "zkpd/backend.h"
#ifdef ZKPD_HAVE_CUDA
#include "zkpd/backend_cuda.h"
#endif
#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/ntt.h"
#include "zkpd/pool.h"

#define MAX_RUNS 16

struct opts {
	const char *backend, *what;
	bool g2, perturb, phases;
	unsigned lo, hi, runs, spots, threads;
	unsigned windows[8], n_windows; /* --window: forced widths, or one 0 (the backend's) */
	unsigned passes[8], n_passes;   /* --pass-windows: windows a device pass, or one 0 */
	bool kinds[CHECK_SC_KINDS];
	enum zkp_ntt_roots roots;
	uint64_t seed;
};

static unsigned checks, failed;

static void usage(void)
{
	fprintf(stderr,
		"usage: zkpd-bench check msm [--backend cpu|cuda[:N]|corrupt] [--group g1|g2]\n"
		"                            [--log2 LO[..HI]] [--scalars KIND,...|all] "
		"[--runs R]\n"
		"                            [--window C,...] [--pass-windows K,...] [--seed S]\n"
		"                            [--threads T] [--perturb] [--phases]\n"
		"       zkpd-bench check ntt [--backend cpu|cuda[:N]|corrupt] [--log2 LO[..HI]]\n"
		"                            [--spots K] [--roots bellman|snarkjs] [--seed S]\n"
		"                            [--threads T] [--perturb]\n"
		"scalar kinds: random equal repeated small r-1 01\n");
}

static double now_ms(void)
{
	return bench_now_ns() / 1e6;
}

static void verdict(bool ok, const char *what, const struct opts *o)
{
	checks++;
	if (!ok) {
		failed++;
		fprintf(stderr, "MISMATCH: %s on backend %s (seed %llu)\n", what, o->backend,
			(unsigned long long)o->seed);
	}
}

/* *inner gets what a wrapping backend wraps. 77: no CUDA here. */
static int backend_open(zkp_backend **ret, zkp_backend **inner, const char *name,
			zkp_pool *pool)
{
	*ret = *inner = NULL;
	if (!strcmp(name, "cpu"))
		return zkp_backend_cpu_new(ret, pool);
	if (!strcmp(name, "corrupt")) {
		int rc = zkp_backend_cpu_new(inner, pool);
		return rc ? rc : zkp_backend_corrupting_new(ret, *inner, 1);
	}
	if (!strncmp(name, "cuda", 4) && (name[4] == 0 || name[4] == ':')) {
#ifdef ZKPD_HAVE_CUDA
		int dev = name[4] ? atoi(name + 5) : 0, ndev = 0;
		if (zkp_backend_cuda_count(&ndev) || dev >= ndev) {
			fprintf(stderr, "zkpd-bench check: no CUDA device %d\n", dev);
			return 77;
		}
		zkp_error e = { 0 };
		int rc = zkp_backend_cuda_new(ret, dev, &e);
		if (rc)
			fprintf(stderr, "zkpd-bench check: %s\n", zkp_error_text(&e, rc));
		else
		return rc;
#else
		fprintf(stderr, "zkpd-bench check: this build has no CUDA backend\n");
		return 77;
#endif
	}
	fprintf(stderr, "zkpd-bench check: unknown backend %s\n", name);
	return 2;
}

static int msm_one(zkp_backend *be, const struct opts *o, const zkp_dbuf *db,
		   const zkp_dbuf *ds, zkp_fr *sc, const void *q, enum check_scalars kind,
		   unsigned lg, unsigned window, unsigned pass, zkp_pool *pool)
{
	size_t n = (size_t)1 << lg;
	double t[MAX_RUNS], ph[5][MAX_RUNS];
	unsigned passes = 0;
	bool ok = true, timed = o->phases;
	for (unsigned r = 0; r < o->runs; r++) {
		zkp_g1 r1;
		zkp_g2 r2;
		/* a forced window width and windows per device pass (0: the
		 * backend's choice); --phases: the device's phase times */
		zkp_msm_phases p = { 0 };
		const zkp_msm_opts mo = { ZKP_MSM_AUTO, window, false, pass, o->phases ? &p : NULL };
		double t0 = now_ms();
		int err = o->g2 ? zkp_backend_msm_g2(be, &r2, db, ds, NULL, n, &mo)
				: zkp_backend_msm_g1(be, &r1, db, ds, NULL, n, &mo);
		t[r] = now_ms() - t0;
		if (err) {
			fprintf(stderr, "zkpd-bench check: msm 2^%u: %s\n", lg, zkp_strerror(err));
			return err;
		}
		const double got[5] = { p.prepare, p.sort, p.accumulate, p.scan, p.reduce };
		for (unsigned k = 0; k < 5; k++)
			ph[k][r] = got[k];
		passes = p.passes;
		timed &= p.passes > 0; /* a backend without phases leaves passes 0 */
		/* --perturb: the host's scalar n/2 moves by one, the device's does not */
		zkp_fr one, saved = sc[n / 2];
		zkp_fr_set_one(&one);
		if (o->perturb)
			zkp_fr_add(&sc[n / 2], &sc[n / 2], &one);
		ok &= o->g2 ? check_msm_g2(&r2, sc, n, q, pool) : check_msm_g1(&r1, sc, n, q, pool);
		sc[n / 2] = saved;
	}
	double mn = t[0];
	for (unsigned r = 1; r < o->runs; r++)
		mn = t[r] < mn ? t[r] : mn;
	char what[96];
	snprintf(what, sizeof(what), "msm %s, scalars %s, 2^%u", o->g2 ? "g2" : "g1",
		 check_scalars_names[kind], lg);
	verdict(ok, what, o);
	char phases[256] = "";
	if (timed)
		snprintf(phases, sizeof(phases),
			 ",\"passes\":%u,\"phases_median_ms\":{\"prepare\":%.3f,\"sort\":%.3f,"
			 "\"accumulate\":%.3f,\"scan\":%.3f,\"reduce\":%.3f}",
			 passes, bench_median(ph[0], o->runs), bench_median(ph[1], o->runs),
			 bench_median(ph[2], o->runs), bench_median(ph[3], o->runs),
			 bench_median(ph[4], o->runs));
	printf("{\"check\":\"msm\",\"group\":\"%s\",\"backend\":\"%s\",\"scalars\":\"%s\","
	       "\"log_n\":%u,\"window\":%u,\"pass_windows\":%u,\"runs\":%u,\"median_ms\":%.3f,"
	       "\"min_ms\":%.3f%s,\"ok\":%s}\n",
	       o->g2 ? "g2" : "g1", o->backend, check_scalars_names[kind], lg, window, pass, o->runs,
	       bench_median(t, o->runs), mn, phases, ok ? "true" : "false");
	fflush(stdout);
	return 0;
}

static int check_msm(zkp_backend *be, const struct opts *o, zkp_pool *pool)
{
	size_t nmax = (size_t)1 << o->hi;
	size_t bsize = o->g2 ? sizeof(zkp_g2_affine) : sizeof(zkp_g1_affine);
	void *bases = malloc(nmax * bsize);
	zkp_fr *sc = malloc(nmax * sizeof(*sc));
	zkp_dbuf db = { 0 }, ds = { 0 };
	int err = ZKP_ERR_NOMEM;
	if (!bases || !sc)
		goto out;
	/* Q = k G for a k drawn from the seed. */
	check_rng r;
	check_rng_seed(&r, o->seed, ~0ULL);
	uint64_t k[2] = { check_rng_next(&r), check_rng_next(&r) };
	zkp_g1_affine q1;
	zkp_g2_affine q2;
	double t0 = now_ms();
	if (o->g2) {
		zkp_g2 g;
		zkp_g2_from_affine(&g, &ZKP_G2_GENERATOR);
		zkp_g2_mul(&g, &g, k, 2);
		zkp_g2_to_affine(&q2, &g);
		err = check_g2_bases(bases, nmax, &q2, pool);
	} else {
		zkp_g1 g;
		zkp_g1_from_affine(&g, &ZKP_G1_GENERATOR);
		zkp_g1_mul(&g, &g, k, 2);
		zkp_g1_to_affine(&q1, &g);
		err = check_g1_bases(bases, nmax, &q1, pool);
	}
	if (err)
		goto out;
	fprintf(stderr, "zkpd-bench check: 2^%u %s bases in %.0f ms\n", o->hi,
		o->g2 ? "G2" : "G1", now_ms() - t0);
	if ((err = zkp_backend_import_host(be, &db, bases, nmax * bsize)) ||
	    (err = zkp_backend_alloc(be, &ds, nmax * sizeof(*sc))))
		goto out;
	for (int kind = 0; kind < CHECK_SC_KINDS; kind++) {
		if (!o->kinds[kind])
			continue;
		check_scalars_fill(sc, nmax, kind, o->seed + (uint64_t)kind, pool);
		if ((err = zkp_backend_upload(be, &ds, 0, sc, nmax * sizeof(*sc))))
			goto out;
		for (unsigned lg = o->lo; lg <= o->hi; lg++)
			for (unsigned wi = 0; wi < o->n_windows; wi++)
				for (unsigned pi = 0; pi < o->n_passes; pi++)
					if ((err = msm_one(be, o, &db, &ds, sc,
							   o->g2 ? (void *)&q2 : (void *)&q1, kind,
							   lg, o->windows[wi], o->passes[pi], pool)))
						goto out;
	}
out:
	zkp_backend_release(be, &db);
	zkp_backend_release(be, &ds);
	free(bases);
	free(sc);
	if (err)
		fprintf(stderr, "zkpd-bench check: msm: %s\n", zkp_strerror(err));
	return err;
}

static const struct {
	const char *name;
	zkp_ntt_opts o;
} transforms[] = {
	{ "forward", { false, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV } },
	{ "inverse", { true, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV } },
	{ "coset", { false, true, ZKP_NTT_BITREV, ZKP_NTT_NATURAL } },
	{ "inverse_coset", { true, true, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL } },
};

static int ntt_size(zkp_backend *be, const struct opts *o, unsigned lg, zkp_fr *x, zkp_fr *y,
		    zkp_dbuf *dx, void *mem, zkp_pool *pool)
{
	size_t n = (size_t)1 << lg;
	zkp_ntt_domain d;
	zkp_fr shift;
	check_rng r;
	check_rng_seed(&r, o->seed, lg);
	/* The prover's cosets: g = 7 (bellman), w_2n (snarkjs' odd coset). */
	if (o->roots == ZKP_NTT_ROOTS_SNARKJS)
		zkp_ntt_root_of_unity(&shift, lg + 1, ZKP_NTT_ROOTS_SNARKJS);
	else
		zkp_fr_set_u64(&shift, 7);
	int err = zkp_ntt_domain_init(&d, lg, o->roots, &shift, mem, pool);
	if (err)
		return err;
	char what[96];
	snprintf(what, sizeof(what), "ntt domain 2^%u", lg);
	bool dom_ok = check_ntt_domain(&d, o->roots) && zkp_fr_eq(&d.shift, &shift);
	verdict(dom_ok, what, o);
	size_t idx[CHECK_NTT_MAX_SPOTS], k = o->spots < n ? o->spots : n;
	for (size_t s = 0; s < k; s++)
		idx[s] = n <= o->spots ? s : s == 0 ? 0 : s == 1 ? n - 1 : check_rng_next(&r) % n;
	for (size_t t = 0; t < sizeof(transforms) / sizeof(transforms[0]); t++) {
		for (size_t i = 0; i < n; i++) {
			for (int j = 0; j < 4; j++)
				x[i].l[j] = check_rng_next(&r);
			x[i].l[3] &= 0x3fffffffffffffffULL;
		}
		if ((err = zkp_backend_upload(be, dx, 0, x, n * sizeof(*x))))
			return err;
		double t0 = now_ms();
		if ((err = zkp_backend_ntt(be, dx, &d, &transforms[t].o)) ||
		    (err = zkp_backend_sync(be)))
			return err;
		double ms = now_ms() - t0;
		if ((err = zkp_backend_download(be, y, dx, 0, n * sizeof(*y))))
			return err;
		if (o->perturb) {
			zkp_fr one;
			zkp_fr_set_one(&one);
			zkp_fr_add(&x[0], &x[0], &one);
		}
		size_t bad = 0;
		if ((err = check_ntt_spots(&bad, x, y, &d, o->roots, &transforms[t].o, idx, k,
					   pool)))
			return err;
		snprintf(what, sizeof(what), "ntt %s 2^%u (%zu of %zu spots differ)",
			 transforms[t].name, lg, bad, k);
		verdict(bad == 0, what, o);
		printf("{\"check\":\"ntt\",\"backend\":\"%s\",\"transform\":\"%s\",\"log_n\":%u,"
		       "\"roots\":\"%s\",\"spots\":%zu,\"bad_spots\":%zu,\"domain_ok\":%s,"
		       "\"ms\":%.3f,\"ok\":%s}\n",
		       o->backend, transforms[t].name, lg,
		       o->roots == ZKP_NTT_ROOTS_SNARKJS ? "snarkjs" : "bellman", k, bad,
		       dom_ok ? "true" : "false", ms, bad == 0 && dom_ok ? "true" : "false");
		fflush(stdout);
	}
	return 0;
}

static int check_ntt(zkp_backend *be, const struct opts *o, zkp_pool *pool)
{
	size_t nmax = (size_t)1 << o->hi;
	zkp_fr *x = malloc(nmax * sizeof(*x)), *y = malloc(nmax * sizeof(*y));
	void *mem = aligned_alloc(64, zkp_ntt_domain_mem_size(o->hi));
	zkp_dbuf dx = { 0 };
	int err = ZKP_ERR_NOMEM;
	if (!x || !y || !mem)
		goto out;
	if ((err = zkp_backend_alloc(be, &dx, nmax * sizeof(*x))))
		goto out;
	for (unsigned lg = o->lo; lg <= o->hi && !err; lg++)
		err = ntt_size(be, o, lg, x, y, &dx, mem, pool);
out:
	zkp_backend_release(be, &dx);
	free(x);
	free(y);
	free(mem);
	if (err)
		fprintf(stderr, "zkpd-bench check: ntt: %s\n", zkp_strerror(err));
	return err;
}

static bool parse_uint(unsigned *ret, const char *s, unsigned lo, unsigned hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end || v < lo || v > hi)
		return false;
	*ret = (unsigned)v;
	return true;
}

/* "V[,V...]": up to 8 values, each 0 (the backend's choice) or 1..max:
 * --window's widths (max ZKP_MSM_MAX_WINDOW), --pass-windows' windows a
 * pass (max 64, the most windows an MSM has). */
static bool parse_list(unsigned vals[8], unsigned *count, const char *s, unsigned max)
{
	char buf[64];
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	*count = 0;
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*count == 8 || !parse_uint(&vals[*count], t, 0, max))
			return false;
		(*count)++;
	}
	return *count > 0;
}

static bool parse_range(struct opts *o, const char *s, unsigned max)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%s", s);
	char *dots = strstr(buf, "..");
	if (dots)
		*dots = 0;
	if (!parse_uint(&o->lo, buf, 1, max))
		return false;
	o->hi = o->lo;
	return !dots || (parse_uint(&o->hi, dots + 2, o->lo, max));
}

static bool parse_kinds(struct opts *o, const char *s)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", s);
	memset(o->kinds, 0, sizeof(o->kinds));
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "all")) {
			for (int k = 0; k < CHECK_SC_KINDS; k++)
				o->kinds[k] = true;
			continue;
		}
		int k = check_scalars_parse(t);
		if (k < 0)
			return false;
		o->kinds[k] = true;
	}
	return true;
}

int bench_check_main(int argc, char **argv)
{
	struct opts o = { .backend = "cpu", .lo = 10, .hi = 10, .runs = 1, .n_windows = 1, .n_passes = 1, .spots = 8,
			  .threads = zkp_pool_default_threads(), .roots = ZKP_NTT_ROOTS_BELLMAN,
			  .seed = (uint64_t)bench_now_ns() };
	o.kinds[CHECK_SC_RANDOM] = true;
	if (argc < 2 || (strcmp(argv[1], "msm") && strcmp(argv[1], "ntt"))) {
		usage();
		return 2;
	}
	o.what = argv[1];
	bool ntt = !strcmp(o.what, "ntt");
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool good = true;
		if (!strcmp(a, "--perturb")) {
			o.perturb = true;
			continue;
		}
		if (!strcmp(a, "--phases") && !ntt) {
			o.phases = true;
			continue;
		}
		if (!v) {
			good = false;
		} else if (!strcmp(a, "--backend")) {
			o.backend = v;
		} else if (!strcmp(a, "--group") && !ntt) {
			good = !strcmp(v, "g1") || !strcmp(v, "g2");
			o.g2 = !strcmp(v, "g2");
		} else if (!strcmp(a, "--log2")) {
			good = parse_range(&o, v, ntt ? ZKP_NTT_MAX_LOG : 28);
		} else if (!strcmp(a, "--scalars") && !ntt) {
			good = parse_kinds(&o, v);
		} else if (!strcmp(a, "--runs") && !ntt) {
			good = parse_uint(&o.runs, v, 1, MAX_RUNS);
		} else if (!strcmp(a, "--window") && !ntt) {
			good = parse_list(o.windows, &o.n_windows, v, ZKP_MSM_MAX_WINDOW);
		} else if (!strcmp(a, "--pass-windows") && !ntt) {
			good = parse_list(o.passes, &o.n_passes, v, 64);
		} else if (!strcmp(a, "--spots") && ntt) {
			good = parse_uint(&o.spots, v, 1, CHECK_NTT_MAX_SPOTS);
		} else if (!strcmp(a, "--roots") && ntt) {
			good = !strcmp(v, "bellman") || !strcmp(v, "snarkjs");
			o.roots = !strcmp(v, "snarkjs") ? ZKP_NTT_ROOTS_SNARKJS : ZKP_NTT_ROOTS_BELLMAN;
		} else if (!strcmp(a, "--threads")) {
			good = parse_uint(&o.threads, v, 1, 1024);
		} else if (!strcmp(a, "--seed")) {
			char *end;
			o.seed = strtoull(v, &end, 10);
			good = end != v && !*end;
		} else {
			good = false;
		}
		if (!good) {
			fprintf(stderr, "zkpd-bench check: bad argument %s%s%s\n", a, v ? " " : "",
				v ? v : "");
			usage();
			return 2;
		}
		i++;
	}
	zkp_pool *pool = NULL;
	zkp_backend *be = NULL, *inner = NULL;
	int rc = zkp_pool_new(&pool, o.threads - 1);
	if (rc) {
		fprintf(stderr, "zkpd-bench check: pool: %s\n", zkp_strerror(rc));
		return 1;
	}
	rc = backend_open(&be, &inner, o.backend, pool);
	if (rc == 0)
		rc = ntt ? check_ntt(be, &o, pool) : check_msm(be, &o, pool);
	else if (rc < 0)
		fprintf(stderr, "zkpd-bench check: backend %s: %s\n", o.backend, zkp_strerror(rc));
	zkp_backend_free(be);
	zkp_backend_free(inner);
	zkp_pool_free(pool);
	if (rc == 2 || rc == 77)
		return rc;
	printf("{\"check\":\"summary\",\"what\":\"%s\",\"backend\":\"%s\",\"checks\":%u,"
	       "\"failed\":%u,\"error\":%s,\"seed\":%llu}\n",
	       o.what, o.backend, checks, failed, rc ? "true" : "false",
	       (unsigned long long)o.seed);
	return rc || failed ? 1 : 0;
}
