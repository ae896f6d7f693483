/*
 * zkpd-bench msm: time of one multi-scalar multiplication on uniform random
 * scalars and bases.
 *
 *   zkpd-bench msm --group g1|g2 --log2 N --threads T [--runs R]
 *                  [--mode auto|xyzz|affine] [--window C] [--split PCT]
 *
 * Prints one JSON object: median and minimum over R timed runs (after one
 * untimed run that faults the workspace in), ns per point, the window and
 * accumulation form used, and blst's single-thread figure for this machine
 * kind where docs/benchmarks.md ('blst reference figures') has one. --split
 * PCT makes PCT %
 * of the scalars 0 or 1 (half each) and runs the split mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "zkpd/ec.h"
#include "zkpd/ff.h"
#include "zkpd/msm.h"
#include "zkpd/pool.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next64(void)
{
	/* splitmix64: reproducible inputs from run to run */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rand_fr(zkp_fr *r)
{
	uint64_t w[8];
	for (int i = 0; i < 8; i++)
		w[i] = next64();
	zkp_fr_from_wide(r, w);
}

/* Bases by a random walk over 8 multiples of the generator: n additions and
 * one batch conversion instead of n scalar multiplications. */
static void gen_g1(zkp_g1_affine *out, size_t n)
{
	zkp_g1 steps[8], acc, g;
	zkp_g1 *jac = malloc(n * sizeof(*jac));
	zkp_fp *scr = malloc(n * sizeof(*scr));
	zkp_fr k;
	if (!jac || !scr) {
		fprintf(stderr, "zkpd-bench msm: out of memory\n");
		exit(1);
	}
	zkp_g1_from_affine(&g, &ZKP_G1_GENERATOR);
	for (int j = 0; j < 8; j++) {
		rand_fr(&k);
		zkp_g1_mul_fr(&steps[j], &g, &k);
	}
	rand_fr(&k);
	zkp_g1_mul_fr(&acc, &g, &k);
	for (size_t i = 0; i < n; i++) {
		zkp_g1_add(&acc, &acc, &steps[next64() % 8]);
		jac[i] = acc;
	}
	zkp_g1s_to_affine(out, jac, n, scr);
	free(jac);
	free(scr);
}

static void gen_g2(zkp_g2_affine *out, size_t n)
{
	zkp_g2 steps[8], acc, g;
	zkp_g2 *jac = malloc(n * sizeof(*jac));
	zkp_fp2 *scr = malloc(n * sizeof(*scr));
	zkp_fr k;
	if (!jac || !scr) {
		fprintf(stderr, "zkpd-bench msm: out of memory\n");
		exit(1);
	}
	zkp_g2_from_affine(&g, &ZKP_G2_GENERATOR);
	for (int j = 0; j < 8; j++) {
		rand_fr(&k);
		zkp_g2_mul_fr(&steps[j], &g, &k);
	}
	rand_fr(&k);
	zkp_g2_mul_fr(&acc, &g, &k);
	for (size_t i = 0; i < n; i++) {
		zkp_g2_add(&acc, &acc, &steps[next64() % 8]);
		jac[i] = acc;
	}
	zkp_g2s_to_affine(out, jac, n, scr);
	free(jac);
	free(scr);
}

static int usage(void)
{
	fprintf(stderr, "usage: zkpd-bench msm --group g1|g2 --log2 N --threads T [--runs R]\n"
			"                      [--mode auto|xyzz|affine] [--window C] [--split PCT]\n");
	return 2;
}

int bench_msm_main(int argc, char **argv)
{
	const char *group = "g1", *mode = "auto";
	unsigned log2n = 16, threads = zkp_pool_default_threads(), runs = 5, window = 0,
		 split_pct = 0;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return usage();
		if (!strcmp(a, "--group"))
			group = v;
		else if (!strcmp(a, "--log2"))
			log2n = (unsigned)atoi(v);
		else if (!strcmp(a, "--threads"))
			threads = (unsigned)atoi(v);
		else if (!strcmp(a, "--runs"))
			runs = (unsigned)atoi(v);
		else if (!strcmp(a, "--mode"))
			mode = v;
		else if (!strcmp(a, "--window"))
			window = (unsigned)atoi(v);
		else if (!strcmp(a, "--split"))
			split_pct = (unsigned)atoi(v);
		else
			return usage();
	}
	bool g2 = !strcmp(group, "g2");
	if ((!g2 && strcmp(group, "g1")) || log2n > 28 || threads < 1 || runs < 1 ||
	    split_pct > 100)
		return usage();
	zkp_msm_opts opts = { ZKP_MSM_AUTO, window, split_pct > 0, 0, NULL };
	if (!strcmp(mode, "xyzz"))
		opts.accum = ZKP_MSM_XYZZ;
	else if (!strcmp(mode, "affine"))
		opts.accum = ZKP_MSM_AFFINE;
	else if (strcmp(mode, "auto"))
		return usage();

	int rc = 1;
	size_t n = (size_t)1 << log2n;
	zkp_pool *pool = NULL;
	void *bases = malloc(n * (g2 ? sizeof(zkp_g2_affine) : sizeof(zkp_g1_affine)));
	zkp_fr *scalars = malloc(n * sizeof(zkp_fr));
	size_t size = g2 ? zkp_msm_g2_scratch_size(n, threads, &opts)
			 : zkp_msm_g1_scratch_size(n, threads, &opts);
	void *scratch = aligned_alloc(64, (size + 63) & ~(size_t)63);
	double *t = malloc(runs * sizeof(double));
	if (!bases || !scalars || !scratch || !t) {
		fprintf(stderr, "zkpd-bench msm: out of memory\n");
		goto out;
	}
	if (threads > 1 && zkp_pool_new(&pool, threads - 1)) {
		fprintf(stderr, "zkpd-bench msm: cannot start %u threads\n", threads);
		goto out;
	}
	if (g2)
		gen_g2(bases, n);
	else
		gen_g1(bases, n);
	for (size_t i = 0; i < n; i++) {
		if (next64() % 100 < split_pct) {
			if (next64() & 1)
				zkp_fr_set_one(&scalars[i]);
			else
				zkp_fr_set_zero(&scalars[i]);
		} else {
			rand_fr(&scalars[i]);
		}
	}

	zkp_g1 r1;
	zkp_g2 r2;
	for (unsigned k = 0; k <= runs; k++) {
		double t0 = bench_now_ns();
		if (g2)
			zkp_msm_g2(&r2, bases, scalars, n, &opts, scratch, size, pool);
		else
			zkp_msm_g1(&r1, bases, scalars, n, &opts, scratch, size, pool);
		if (k > 0)
			t[k - 1] = bench_now_ns() - t0;
	}
	double med = bench_median(t, runs), min = t[0];

	zkp_msm_shape sh;
	size_t m = split_pct ? (size_t)((double)n * (100 - split_pct) / 100) : n;
	if (g2)
		zkp_msm_g2_shape(&sh, m, threads, &opts);
	else
		zkp_msm_g1_shape(&sh, m, threads, &opts);
	/* blst_p{1,2}s_mult_pippenger, one thread, this machine kind
	 * (docs/benchmarks.md, 'blst reference figures', medians) */
	double blst_ms = 0;
	if (!g2 && log2n == 16)
		blst_ms = 593;
	else if (!g2 && log2n == 18)
		blst_ms = 2260;
	else if (g2 && log2n == 16)
		blst_ms = 1550;

	json_begin_object(NULL);
	json_str("bench", "msm");
	json_str("group", g2 ? "g2" : "g1");
	json_num("log2", log2n);
	json_num("n", (double)n);
	json_num("threads", threads);
	json_str("mode", sh.accum == ZKP_MSM_AFFINE ? "affine" : "xyzz");
	json_num("window", sh.window);
	json_num("windows", sh.windows);
	json_num("cut", sh.cut);
	json_num("ranges", sh.ranges);
	json_num("split_pct", split_pct);
	json_num("runs", runs);
	json_num("median_ms", med / 1e6);
	json_num("min_ms", min / 1e6);
	json_num("ns_per_point", med / (double)n);
	json_num("scratch_bytes", (double)size);
	json_str("ff_backend", zkp_ff_backend());
	if (blst_ms > 0) {
		json_num("blst_1t_ms", blst_ms);
		json_num("speedup_vs_blst_1t", blst_ms / (med / 1e6));
	}
	json_end_object();
	rc = 0;
out:
	free(t);
	free(scratch);
	free(scalars);
	free(bases);
	zkp_pool_free(pool);
	return rc;
}
