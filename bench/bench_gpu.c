/*
 * zkpd-gpu-bench: times the CUDA backend's G1 MSM and NTT on device 0.
 * Prints one JSON object per line on stdout while it runs, e.g.
 *   {"op":"msm_g1","scalars":"random","log_n":20,"runs":5,"median_ms":12.3,
 *    "min_ms":12.1,"max_ms":12.9}
 *   {"op":"ntt","log_n":20,"runs":5,"fwd_median_ms":1.2,"inv_coset_median_ms":1.4}
 *   {"op":"msm_g1","scalars":"witness","log_n":26,"skipped":"time budget"}
 * and, when done, a short table of the medians on stderr.
 *
 * Usage: zkpd-gpu-bench [--budget SECONDS] [msm LO HI] [ntt LO HI]
 *                       [witness LO HI]
 * (default: msm 20 26, ntt 20 27, every size, budget 300 s; witness only
 * when named). Exit 77 without a device.
 *
 * witness: a PoRep-mix witness (1.3 % of values neither 0 nor 1) sent to
 * the device whole, as through the prover's 256 MiB pinned staging, and
 * packed (pack on the pool, one upload, the unpack kernel), each until
 * synchronised; the packed result is downloaded and compared, a
 * difference exits 1. Prints {"op":"witness_up",...,"whole_median_ms",
 * "packed_median_ms","pack_host_median_ms","ratio"}.
 *
 * Time budget: before each size the bench predicts its cost from the size
 * below (2.2 times the median per doubling, times the runs, plus input
 * setup) and skips it, with a "skipped" line, when that would end past the
 * budget counted from the start; a size whose first run is slow gets fewer
 * runs (at least 1).
 *
 * Inputs are resident on the device before timing: bases are 2^20 distinct
 * points (a random point's multiples) repeated, scalars either uniform
 * random below 2^254 ("random") or witness-like ("witness": 70 % zeros,
 * 25 % ones, 5 % uniform); NTT inputs uniform. An MSM time covers the
 * whole backend call (scalar conversion and 0/1 classification, sort,
 * buckets, batch addition of the ones, reduction, workspace allocation and
 * the host's window combination); an NTT time is queue-to-sync of one
 * transform (forward natural to bit-reversed; inverse coset bit-reversed
 * to natural). Runs: 5, or 3 from 2^23 up.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "zkpd/backend.h"
#include "zkpd/backend_cuda.h"
#include "zkpd/bitpack.h"
#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "zkpd/ntt.h"
#include "zkpd/pool.h"

#define DISTINCT_LOG 20
#define MAX_RUNS 5
#define GROWTH 2.2 /* predicted time ratio per doubling of n */

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

static void witness_frs(zkp_fr *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rand64() % 100;
		if (r < 70)
			zkp_fr_set_zero(&x[i]);
		else if (r < 95)
			zkp_fr_set_one(&x[i]);
		else
			rand_frs(&x[i], 1);
	}
}

static double start_ms, budget_ms;

static double now_ms(void)
{
	return bench_now_ns() / 1e6;
}

static double elapsed_ms(void)
{
	return now_ms() - start_ms;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "zkpd-gpu-bench: %s: %s\n", what, zkp_strerror(err));
	return 1;
}

/* Rows of the final table. */
#define MAX_ROWS 64
static struct {
	char op[24];
	unsigned log_n, runs;
	double a, b; /* medians (ms); b < 0: none */
	bool skipped;
} rows[MAX_ROWS];
static unsigned nrows;

static void add_row(const char *op, unsigned log_n, unsigned runs, double a, double b,
		    bool skipped)
{
	if (nrows == MAX_ROWS)
		return;
	snprintf(rows[nrows].op, sizeof(rows[nrows].op), "%s", op);
	rows[nrows].log_n = log_n;
	rows[nrows].runs = runs;
	rows[nrows].a = a;
	rows[nrows].b = b;
	rows[nrows].skipped = skipped;
	nrows++;
}

/* Whether a size predicted to take `predict_ms` still fits the budget;
 * prints the "skipped" line when it does not. */
static bool fits(const char *op, const char *scalars, unsigned log_n, double predict_ms)
{
	if (elapsed_ms() + predict_ms <= budget_ms)
		return true;
	if (scalars)
		printf("{\"op\":\"%s\",\"scalars\":\"%s\",\"log_n\":%u,\"skipped\":\"time budget\","
		       "\"predicted_ms\":%.0f}\n",
		       op, scalars, log_n, predict_ms);
	else
		printf("{\"op\":\"%s\",\"log_n\":%u,\"skipped\":\"time budget\","
		       "\"predicted_ms\":%.0f}\n",
		       op, log_n, predict_ms);
	fflush(stdout);
	char name[24];
	snprintf(name, sizeof(name), "%s%s%s", op, scalars ? " " : "", scalars ? scalars : "");
	add_row(name, log_n, 0, 0, -1, true);
	return false;
}

static unsigned runs_for(unsigned log_n)
{
	return log_n >= 23 ? 3 : MAX_RUNS;
}

/* The predicted median at log_n from the one measured at last_lg. */
static double extrapolate(double last, unsigned last_lg, unsigned log_n)
{
	for (unsigned i = last_lg; i < log_n; i++)
		last *= GROWTH;
	return last;
}

/* Both kinds of scalars at each size of [lo, hi], smaller sizes first. */
static int msm_sizes(zkp_backend *be, const zkp_dbuf *db, zkp_dbuf *ds, zkp_fr *sc,
		     unsigned lo, unsigned hi)
{
	static const char *const kinds[2] = { "random", "witness" };
	double last[2] = { 0, 0 };
	unsigned last_lg[2] = { 0, 0 };
	for (unsigned lg = lo; lg <= hi; lg++) {
		for (unsigned kind = 0; kind < 2; kind++) {
			size_t n = (size_t)1 << lg;
			unsigned runs = runs_for(lg);
			/* input setup: host generation and upload, about 20 ns a scalar */
			double setup = (double)n * 2e-5;
			double per = 0;
			if (last[kind] > 0)
				per = extrapolate(last[kind], last_lg[kind], lg);
			if (!fits("msm_g1", kinds[kind], lg, per * runs + setup))
				continue;
			if (kind == 0)
				rand_frs(sc, n);
			else
				witness_frs(sc, n);
			int err = zkp_backend_upload(be, ds, 0, sc, n * sizeof(*sc));
			if (err)
				return fail("msm upload", err);
			double t[MAX_RUNS];
			unsigned done = 0;
			for (unsigned r = 0; r < runs; r++) {
				zkp_g1 res;
				double t0 = now_ms();
				if ((err = zkp_backend_msm_g1(be, &res, db, ds, NULL, n, NULL)))
					return fail("msm", err);
				t[done++] = now_ms() - t0;
				/* fewer runs when the remaining ones would overrun */
				if (elapsed_ms() + t[0] * (runs - done) > budget_ms)
					break;
			}
			double mn = t[0], mx = t[0];
			for (unsigned r = 1; r < done; r++) {
				mn = t[r] < mn ? t[r] : mn;
				mx = t[r] > mx ? t[r] : mx;
			}
			double med = bench_median(t, done);
			printf("{\"op\":\"msm_g1\",\"scalars\":\"%s\",\"log_n\":%u,\"runs\":%u,"
			       "\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f}\n",
			       kinds[kind], lg, done, med, mn, mx);
			fflush(stdout);
			char name[24];
			snprintf(name, sizeof(name), "msm_g1 %s", kinds[kind]);
			add_row(name, lg, done, med, -1, false);
			last[kind] = med;
			last_lg[kind] = lg;
		}
	}
	return 0;
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
	rand_frs(sc, (size_t)1 << 12);
	if ((err = zkp_backend_import_host(be, &db, pts, nmax * sizeof(*pts))) ||
	    (err = zkp_backend_alloc(be, &ds, nmax * sizeof(*sc))) ||
	    (err = zkp_backend_upload(be, &ds, 0, sc, ((size_t)1 << 12) * sizeof(*sc))))
		goto out;
	zkp_g1 r;
	/* warm-up: module load, first allocations */
	if ((err = zkp_backend_msm_g1(be, &r, &db, &ds, NULL, (size_t)1 << 12, NULL)))
		goto out;
	if (msm_sizes(be, &db, &ds, sc, lo, hi))
		err = ZKP_ERR_DEVICE; /* already reported */
out:
	zkp_backend_release(be, &db);
	zkp_backend_release(be, &ds);
	free(pts);
	free(jac);
	free(scratch);
	free(sc);
	return err == ZKP_ERR_DEVICE ? 1 : err ? fail("msm", err) : 0;
}

static int time_ntt(zkp_backend *be, double *med, unsigned *runs, zkp_dbuf *x,
		    const zkp_ntt_domain *d, const zkp_ntt_opts *o)
{
	double t[MAX_RUNS];
	unsigned done = 0;
	for (unsigned rep = 0; rep < *runs; rep++) {
		double t0 = now_ms();
		int err = zkp_backend_ntt(be, x, d, o);
		if (!err)
			err = zkp_backend_sync(be);
		if (err)
			return err;
		t[done++] = now_ms() - t0;
	}
	*med = bench_median(t, done);
	return 0;
}

static int bench_ntt(zkp_backend *be, zkp_pool *pool, unsigned lo, unsigned hi)
{
	size_t nmax = (size_t)1 << hi;
	zkp_fr *x = malloc(nmax * sizeof(*x));
	void *mem = NULL;
	zkp_dbuf dx = { 0 };
	int err = ZKP_ERR_NOMEM;
	double last = 0;
	unsigned last_lg = 0;
	if (!x)
		goto out;
	rand_frs(x, nmax);
	if ((err = zkp_backend_alloc(be, &dx, nmax * sizeof(*x))) ||
	    (err = zkp_backend_upload(be, &dx, 0, x, nmax * sizeof(*x))))
		goto out;
	for (unsigned lg = lo; lg <= hi; lg++) {
		unsigned runs = MAX_RUNS;
		/* domain tables on the host (about 40 ns an element) plus runs */
		double predict = (double)((size_t)1 << lg) * 4e-5;
		double per = last > 0 ? extrapolate(last, last_lg, lg) : 0;
		if (!fits("ntt", NULL, lg, predict + 2 * runs * per))
			continue;
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
		    (err = time_ntt(be, &tf, &runs, &dx, &d, &fwd)) ||
		    (err = time_ntt(be, &ti, &runs, &dx, &d, &inv)))
			goto out;
		printf("{\"op\":\"ntt\",\"log_n\":%u,\"runs\":%u,\"fwd_median_ms\":%.3f,"
		       "\"inv_coset_median_ms\":%.3f}\n",
		       lg, runs, tf, ti);
		fflush(stdout);
		add_row("ntt fwd / inv coset", lg, runs, tf, ti, false);
		last = tf > ti ? tf : ti;
		last_lg = lg;
	}
out:
	zkp_backend_release(be, &dx);
	free(mem);
	free(x);
	return err ? fail("ntt", err) : 0;
}

/* A PoRep partition's mix: 1.3 % of the values dense, the rest 0 or 1
 * (docs/benchmarks.md, the 32 GiB witness). */
static void porep_frs(zkp_fr *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rand64() % 1000;
		if (r < 13)
			rand_frs(&x[i], 1);
		else if (r & 1)
			zkp_fr_set_one(&x[i]);
		else
			zkp_fr_set_zero(&x[i]);
	}
}

#define STAGE_ELEMS ((size_t)1 << 23) /* the prover's pinned staging: 256 MiB */

/* The witness to the device as the prover sends it, both ways: whole
 * (copied through the pinned staging in pieces, each uploaded) and
 * packed (zkpd/bitpack.h: scanned and gathered on the pool into the
 * staging, one upload, unpacked by a kernel), each from the host's array
 * to the device's full vector, synchronised. The packed result is
 * downloaded and compared with the input at every size. */
static int bench_witness(zkp_backend *be, zkp_pool *pool, unsigned lo, unsigned hi)
{
	size_t nmax = (size_t)1 << hi;
	zkp_fr *x = malloc(nmax * sizeof(*x)), *back = malloc(nmax * sizeof(*x)), *stage = NULL;
	zkp_dbuf dw = { 0 }, dp = { 0 };
	int err = ZKP_ERR_NOMEM;
	if (!x || !back)
		goto out;
	porep_frs(x, nmax);
	if ((err = zkp_backend_host_alloc(be, (void **)&stage, STAGE_ELEMS * sizeof(zkp_fr))) ||
	    (err = zkp_backend_alloc(be, &dw, nmax * sizeof(zkp_fr))) ||
	    (err = zkp_backend_alloc(be, &dp, STAGE_ELEMS * sizeof(zkp_fr))))
		goto out;
	for (unsigned lg = lo; lg <= hi; lg++) {
		size_t n = (size_t)1 << lg;
		/* about 0.2 ns a byte each way, twice */
		if (!fits("witness_up", NULL, lg, 3 * 2 * 32.0 * (double)n * 2e-7 + 200))
			continue;
		double whole[MAX_RUNS], packed[MAX_RUNS], host[MAX_RUNS];
		size_t n_dense = 0, bytes = 0;
		unsigned runs = 3;
		for (unsigned r = 0; r < runs; r++) {
			double t0 = now_ms();
			for (size_t off = 0; off < n && !err; off += STAGE_ELEMS) {
				size_t k = n - off < STAGE_ELEMS ? n - off : STAGE_ELEMS;
				memcpy(stage, x + off, k * sizeof(zkp_fr));
				err = zkp_backend_upload(be, &dw, off * sizeof(zkp_fr), stage,
							 k * sizeof(zkp_fr));
			}
			if (err || (err = zkp_backend_sync(be)))
				goto out;
			double t1 = now_ms();
			n_dense = zkp_bitpack_scan(stage, x, n, pool);
			bytes = zkp_bitpack_bytes(n, n_dense);
			err = ZKP_ERR_INVAL;
			if (bytes > STAGE_ELEMS * sizeof(zkp_fr))
				goto out;
			zkp_bitpack_gather(stage, x, n, pool);
			double t2 = now_ms();
			if ((err = zkp_backend_upload(be, &dp, 0, stage, bytes)) ||
			    (err = zkp_backend_unpack(be, &dw, &dp, n, n_dense)) ||
			    (err = zkp_backend_sync(be)))
				goto out;
			double t3 = now_ms();
			whole[r] = t1 - t0;
			packed[r] = t3 - t1;
			host[r] = t2 - t1;
		}
		if ((err = zkp_backend_download(be, back, &dw, 0, n * sizeof(zkp_fr))))
			goto out;
		if (memcmp(back, x, n * sizeof(zkp_fr))) {
			fprintf(stderr, "zkpd-gpu-bench: the unpacked witness of 2^%u differs\n", lg);
			err = ZKP_ERR_MISMATCH;
			goto out;
		}
		double mw = bench_median(whole, runs), mp = bench_median(packed, runs);
		printf("{\"op\":\"witness_up\",\"log_n\":%u,\"runs\":%u,\"dense\":%zu,"
		       "\"whole_bytes\":%zu,\"packed_bytes\":%zu,\"whole_median_ms\":%.3f,"
		       "\"packed_median_ms\":%.3f,\"pack_host_median_ms\":%.3f,"
		       "\"ratio\":%.2f,\"checked\":true}\n",
		       lg, runs, n_dense, n * sizeof(zkp_fr), bytes, mw, mp,
		       bench_median(host, runs), mp > 0 ? mw / mp : 0);
		fflush(stdout);
		add_row("witness whole / packed", lg, runs, mw, mp, false);
	}
out:
	zkp_backend_release(be, &dp);
	zkp_backend_release(be, &dw);
	zkp_backend_host_free(be, stage, STAGE_ELEMS * sizeof(zkp_fr));
	free(back);
	free(x);
	return err ? fail("witness", err) : 0;
}

/*
 * Whole-proof timing (the H polynomial, the four G1 MSMs and the host G2
 * MSM of one Groth16 proof on this backend) belongs in this table as a
 * third bench, "prove LO HI", printing {"op":"prove",...} lines and table
 * rows like the two above; bench/gpu-check.sh then adds its range to the
 * command line.
 */
struct bench_range {
	const char *name;
	unsigned lo, hi, min_log, max_log;
	bool on;
};

static void print_table(void)
{
	fprintf(stderr, "%-22s %6s %5s %12s %12s\n", "op", "log_n", "runs", "median_ms",
		"second_ms");
	for (unsigned i = 0; i < nrows; i++) {
		if (rows[i].skipped) {
			fprintf(stderr, "%-22s %6u %5s %12s %12s\n", rows[i].op, rows[i].log_n, "-",
				"skipped", "-");
			continue;
		}
		char b[32] = "-";
		if (rows[i].b >= 0)
			snprintf(b, sizeof(b), "%.3f", rows[i].b);
		fprintf(stderr, "%-22s %6u %5u %12.3f %12s\n", rows[i].op, rows[i].log_n,
			rows[i].runs, rows[i].a, b);
	}
}

int main(int argc, char **argv)
{
	struct bench_range benches[] = {
		{ "ntt", 20, 27, 1, ZKP_NTT_MAX_LOG, true },
		{ "msm", 20, 26, 1, 28, true },
		{ "witness", 24, 27, 10, 28, false },
	};
	const unsigned nbench = sizeof(benches) / sizeof(benches[0]);
	double budget_s = 300;
	int i = 1;
	if (i + 1 < argc && !strcmp(argv[i], "--budget")) {
		budget_s = atof(argv[i + 1]);
		i += 2;
	}
	if (i < argc)
		for (unsigned b = 0; b < nbench; b++)
			benches[b].on = false;
	for (; i < argc; i += 3) {
		unsigned b = 0;
		while (b < nbench && strcmp(argv[i], benches[b].name))
			b++;
		if (b == nbench || i + 2 >= argc) {
			fprintf(stderr,
				"usage: %s [--budget SECONDS] [msm LO HI] [ntt LO HI] "
				"[witness LO HI]\n",
				argv[0]);
			return 2;
		}
		unsigned lo = (unsigned)atoi(argv[i + 1]), hi = (unsigned)atoi(argv[i + 2]);
		if (lo < benches[b].min_log || hi > benches[b].max_log || lo > hi) {
			fprintf(stderr, "%s: bad range %u..%u for %s\n", argv[0], lo, hi,
				benches[b].name);
			return 2;
		}
		benches[b].lo = lo;
		benches[b].hi = hi;
		benches[b].on = true;
	}
	if (budget_s <= 0) {
		fprintf(stderr, "%s: bad budget\n", argv[0]);
		return 2;
	}
	int ndev = 0;
	if (zkp_backend_cuda_count(&ndev) || ndev == 0) {
		fprintf(stderr, "zkpd-gpu-bench: no CUDA device\n");
		return 77;
	}
	start_ms = now_ms();
	budget_ms = budget_s * 1e3;
	zkp_error e = { 0 };
	zkp_backend *be = NULL;
	zkp_pool *pool = NULL;
	int err = zkp_pool_new(&pool, zkp_pool_default_threads() - 1);
	if (err)
		return fail("pool", err);
	if ((err = zkp_backend_cuda_new(&be, 0, &e))) {
		fprintf(stderr, "zkpd-gpu-bench: %s\n", zkp_error_text(&e, err));
		zkp_pool_free(pool);
		return 1;
	}
	int rc = 0;
	if (benches[0].on)
		rc |= bench_ntt(be, pool, benches[0].lo, benches[0].hi);
	if (benches[1].on)
		rc |= bench_msm(be, benches[1].lo, benches[1].hi);
	if (benches[2].on)
		rc |= bench_witness(be, pool, benches[2].lo, benches[2].hi);
	zkp_backend_free(be);
	zkp_pool_free(pool);
	fprintf(stderr, "zkpd-gpu-bench: %.1f s of a %.0f s budget\n", elapsed_ms() / 1e3,
		budget_s);
	print_table();
	return rc;
}
