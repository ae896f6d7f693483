/*
 * zkpd-bench spmv --pce FILE [--threads T] [--runs R] [--skip-checksums]
 *                 [--baseline-shape porep --seed S]
 *
 * Times a = A.w, b = B.w, c = C.w over a mapped .pce (median of R runs
 * after one warm-up): ns per non-zero and GB/s of matrix bytes streamed.
 * With --baseline-shape the file must be `zkp synth --shape porep` output
 * of the same N (taken from the file) and seed S: the witness is that
 * circuit's, and the classic-synthesizer baseline (include/zkpd/baseline.h)
 * re-runs the generator and evaluates heap linear combinations for the same
 * circuit, timed the same way; both outputs are hashed and must agree.
 * Without it, the witness is random and only the PCE side runs.
 * Each side also reports the median CPU time of the process per run, which
 * a shared machine disturbs much less than wall time (with T > 1 it sums
 * the PCE side's threads: work, not latency).
 *
 * Each side runs in its own forked child, one after the other, so their
 * peak RSS (VmHWM from /proc/self/status, read by the child at the end and
 * sent back through a pipe) are separate. Both hold the witness and the
 * three output vectors; the PCE side also holds the mapped file, whose
 * pages count as RssFile: they are clean page cache that every pipeline
 * and process proving the circuit shares, so the JSON also reports the
 * anonymous (private) part of each side's RSS.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "zkpd/baseline.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/synth.h"

struct side {
	int rc;
	char msg[512];
	uint64_t n, n_inputs, n_aux, nnz[3];
	double bytes_per_nnz;
	uint64_t mapped_bytes;
	double load_ms, witness_ms, median_ms, min_ms, gen_median_ms;
	double cpu_median_ms; /* CPU time of the process (all threads) per run */
	uint64_t hash[2];
	uint64_t hwm_kb, rss_kb, anon_kb, file_kb;
	zkp_baseline_stats st;
};

struct opts {
	const char *pce;
	unsigned threads;
	int runs;
	unsigned flags;
	bool baseline;
	uint64_t seed;
};

static int fail(struct side *s, int rc, const char *fmt, const char *detail)
{
	s->rc = rc ? rc : ZKP_ERR_INVAL;
	snprintf(s->msg, sizeof(s->msg), fmt, detail);
	return s->rc;
}

static void read_status(struct side *s)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (sscanf(line, "VmHWM: %llu", &v) == 1)
			s->hwm_kb = v;
		else if (sscanf(line, "VmRSS: %llu", &v) == 1)
			s->rss_kb = v;
		else if (sscanf(line, "RssAnon: %llu", &v) == 1)
			s->anon_kb = v;
		else if (sscanf(line, "RssFile: %llu", &v) == 1)
			s->file_kb = v;
	}
	fclose(f);
}

/* A 128-bit fingerprint of the outputs: two multiply-rotate streams. */
static void hash_outputs(uint64_t h[2], const zkp_fr *a, const zkp_fr *b, const zkp_fr *c,
			 uint64_t n)
{
	uint64_t x = 0x243f6a8885a308d3ULL, y = 0x13198a2e03707344ULL;
	const zkp_fr *v[3] = { a, b, c };
	for (int m = 0; m < 3; m++)
		for (uint64_t i = 0; i < n; i++)
			for (int l = 0; l < ZKP_FR_LIMBS; l++) {
				uint64_t w = v[m][i].l[l];
				x = ((x ^ w) * 0x9e3779b97f4a7c15ULL);
				x = x << 29 | x >> 35;
				y = (y + w) * 0xbf58476d1ce4e5b9ULL;
				y ^= y >> 31;
			}
	h[0] = x;
	h[1] = y;
}

/* CPU time of the whole process: on a shared machine it moves much less
 * than wall time when other work competes for the cores. */
static double cpu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static zkp_fr *alloc_frs(uint64_t n)
{
	size_t bytes = (size_t)n * sizeof(zkp_fr);
	return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

static void random_witness(zkp_fr *w, uint64_t n)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	w[0] = ZKP_FR_ONE;
	for (uint64_t i = 1; i < n; i++) {
		uint64_t wide[8];
		for (int k = 0; k < 8; k++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			wide[k] = s;
		}
		zkp_fr_from_wide(&w[i], wide);
	}
}

/* The PCE side: load, witness, warm-up, R timed evaluations. */
static int run_pce(const struct opts *o, struct side *s)
{
	zkp_error err = { 0 };
	zkp_pce *pce = NULL;
	zkp_pool *pool = NULL;
	zkp_fr *w = NULL, *a = NULL, *b = NULL, *c = NULL;
	double *t = calloc((size_t)o->runs, sizeof(double));
	double *u = calloc((size_t)o->runs, sizeof(double));
	int rc;

	double t0 = bench_now_ns();
	if ((rc = zkp_pce_load(&pce, o->pce, o->flags, &err))) {
		fail(s, rc, "%s", zkp_error_text(&err, rc));
		goto out;
	}
	s->load_ms = (bench_now_ns() - t0) / 1e6;
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	s->n = d->n_constraints;
	s->n_inputs = d->n_inputs;
	s->n_aux = d->n_aux;
	memcpy(s->nnz, d->nnz, sizeof(s->nnz));
	s->bytes_per_nnz = zkp_pce_bytes_per_nnz(pce);
	s->mapped_bytes = zkp_pce_mapped_bytes(pce);

	uint64_t nw = d->n_inputs + d->n_aux;
	w = alloc_frs(nw);
	a = alloc_frs(s->n ? s->n : 1);
	b = alloc_frs(s->n ? s->n : 1);
	c = alloc_frs(s->n ? s->n : 1);
	if (!t || !u || !w || !a || !b || !c) {
		fail(s, ZKP_ERR_NOMEM, "%s", "out of memory for the witness and outputs");
		goto out;
	}
	if (o->threads > 1 && (rc = zkp_pool_new(&pool, o->threads - 1))) {
		fail(s, rc, "%s", "cannot start the thread pool");
		goto out;
	}
	t0 = bench_now_ns();
	if (o->baseline) {
		zkp_synth_info info;
		if ((rc = zkp_synth_porep_dims(s->n, &info, &err))) {
			fail(s, rc, "%s", zkp_error_text(&err, rc));
			goto out;
		}
		if (info.n_inputs != d->n_inputs || info.n_aux != d->n_aux) {
			fail(s, ZKP_ERR_MISMATCH,
			     "%s: not a --shape porep circuit (its inputs or aux differ from the "
			     "generator's for the same number of constraints)",
			     o->pce);
			goto out;
		}
		if ((rc = zkp_synth_porep(s->n, o->seed, NULL, NULL, w, NULL, &err))) {
			fail(s, rc, "%s", zkp_error_text(&err, rc));
			goto out;
		}
	} else {
		random_witness(w, nw);
	}
	s->witness_ms = (bench_now_ns() - t0) / 1e6;

	zkp_pce_eval(pce, w, a, b, c, pool);
	for (int r = 0; r < o->runs; r++) {
		double c0 = cpu_now_ns();
		t0 = bench_now_ns();
		zkp_pce_eval(pce, w, a, b, c, pool);
		t[r] = (bench_now_ns() - t0) / 1e6;
		u[r] = (cpu_now_ns() - c0) / 1e6;
	}
	read_status(s);
	s->median_ms = bench_median(t, (size_t)o->runs);
	s->min_ms = t[0];
	s->cpu_median_ms = bench_median(u, (size_t)o->runs);
	hash_outputs(s->hash, a, b, c, s->n);
	rc = 0;
out:
	zkp_pool_free(pool);
	zkp_pce_free(pce);
	free(w);
	free(a);
	free(b);
	free(c);
	free(t);
	free(u);
	return rc;
}

/* The baseline side: warm-up and R timed syntheses, then R runs of the
 * generator alone (the witness part of the baseline's time). */
static int run_baseline(const struct opts *o, uint64_t n, struct side *s)
{
	zkp_error err = { 0 };
	zkp_synth_info info;
	zkp_fr *w = NULL, *a = NULL, *b = NULL, *c = NULL;
	double *t = calloc((size_t)o->runs, sizeof(double));
	double *u = calloc((size_t)o->runs, sizeof(double));
	int rc;

	if ((rc = zkp_synth_porep_dims(n, &info, &err))) {
		fail(s, rc, "%s", zkp_error_text(&err, rc));
		goto out;
	}
	s->n = n;
	s->n_inputs = info.n_inputs;
	s->n_aux = info.n_aux;
	memcpy(s->nnz, info.nnz, sizeof(s->nnz));
	w = alloc_frs(info.n_inputs + info.n_aux);
	a = alloc_frs(n);
	b = alloc_frs(n);
	c = alloc_frs(n);
	if (!t || !u || !w || !a || !b || !c) {
		fail(s, ZKP_ERR_NOMEM, "%s", "out of memory for the witness and outputs");
		goto out;
	}
	for (int r = -1; r < o->runs; r++) {
		double c0 = cpu_now_ns(), t0 = bench_now_ns();
		if ((rc = zkp_baseline_porep(n, o->seed, w, a, b, c, &s->st, &err))) {
			fail(s, rc, "%s", zkp_error_text(&err, rc));
			goto out;
		}
		if (r >= 0) {
			t[r] = (bench_now_ns() - t0) / 1e6;
			u[r] = (cpu_now_ns() - c0) / 1e6;
		}
	}
	read_status(s);
	s->median_ms = bench_median(t, (size_t)o->runs);
	s->min_ms = t[0];
	s->cpu_median_ms = bench_median(u, (size_t)o->runs);
	hash_outputs(s->hash, a, b, c, n);
	for (int r = 0; r < o->runs; r++) {
		double t0 = bench_now_ns();
		if ((rc = zkp_synth_porep(n, o->seed, NULL, NULL, w, NULL, &err))) {
			fail(s, rc, "%s", zkp_error_text(&err, rc));
			goto out;
		}
		t[r] = (bench_now_ns() - t0) / 1e6;
	}
	s->gen_median_ms = bench_median(t, (size_t)o->runs);
	rc = 0;
out:
	free(w);
	free(a);
	free(b);
	free(c);
	free(t);
	free(u);
	return rc;
}

/* Runs one side in a child and collects its result. */
static int in_child(const struct opts *o, bool baseline, uint64_t n, struct side *s)
{
	int fd[2];
	memset(s, 0, sizeof(*s));
	fflush(stdout);
	if (pipe(fd))
		return fail(s, ZKP_ERR_IO, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return fail(s, ZKP_ERR_IO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fd[0]);
		if (baseline)
			run_baseline(o, n, s);
		else
			run_pce(o, s);
		ssize_t k = write(fd[1], s, sizeof(*s));
		_exit(k == (ssize_t)sizeof(*s) ? 0 : 1);
	}
	close(fd[1]);
	size_t got = 0;
	while (got < sizeof(*s)) {
		ssize_t k = read(fd[0], (char *)s + got, sizeof(*s) - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(*s)) {
		memset(s, 0, sizeof(*s));
		char why[64];
		if (WIFSIGNALED(status))
			snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(status));
		else
			snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(status));
		return fail(s, ZKP_ERR_IO, "the measuring child died (%s)", why);
	}
	return s->rc;
}

static double mib(uint64_t kb) { return (double)kb / 1024.0; }

static void usage(FILE *f)
{
	fprintf(f, "usage: zkpd-bench spmv --pce FILE [--threads T] [--runs R] [--skip-checksums]\n"
		   "                       [--baseline-shape porep --seed S]\n");
}

int bench_spmv_main(int argc, char **argv)
{
	struct opts o = { .threads = zkp_pool_default_threads(), .runs = 5, .seed = 1 };
	const char *shape = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pce") && i + 1 < argc)
			o.pce = argv[++i];
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			o.threads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			o.runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			o.seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--baseline-shape") && i + 1 < argc)
			shape = argv[++i];
		else if (!strcmp(argv[i], "--skip-checksums"))
			o.flags |= ZKP_PCE_SKIP_CHECKSUMS;
		else {
			usage(stderr);
			return 2;
		}
	}
	if (!o.pce || o.threads < 1 || o.threads > 1024 || o.runs < 1 ||
	    (shape && strcmp(shape, "porep"))) {
		fprintf(stderr, "zkpd-bench spmv: --pce is required, --threads 1..1024, --runs >= 1, "
				"and the only baseline shape is porep\n");
		usage(stderr);
		return 2;
	}
	o.baseline = shape != NULL;

	struct side p, q;
	if (in_child(&o, false, 0, &p)) {
		fprintf(stderr, "zkpd-bench spmv: %s (%s)\n", p.msg, zkp_err_name(p.rc));
		return 1;
	}
	if (o.baseline && in_child(&o, true, p.n, &q)) {
		fprintf(stderr, "zkpd-bench spmv: baseline: %s (%s)\n", q.msg, zkp_err_name(q.rc));
		return 1;
	}

	double nnz = (double)(p.nnz[0] + p.nnz[1] + p.nnz[2]);
	double matrix_bytes = p.bytes_per_nnz * nnz;
	json_begin_object(NULL);
	json_str("bench", "spmv");
	json_str("pce", o.pce);
	json_num("constraints", (double)p.n);
	json_num("inputs", (double)p.n_inputs);
	json_num("aux", (double)p.n_aux);
	json_num("nnz_a", (double)p.nnz[0]);
	json_num("nnz_b", (double)p.nnz[1]);
	json_num("nnz_c", (double)p.nnz[2]);
	json_num("bytes_per_nnz", p.bytes_per_nnz);
	json_num("matrix_bytes", matrix_bytes);
	json_num("mapped_bytes", (double)p.mapped_bytes);
	json_num("threads", o.threads);
	json_num("runs", o.runs);
	json_str("ff_backend", zkp_ff_backend());
	json_begin_object("pce_eval");
	json_num("load_ms", p.load_ms);
	json_num("witness_ms", p.witness_ms);
	json_num("median_ms", p.median_ms);
	json_num("min_ms", p.min_ms);
	json_num("cpu_median_ms", p.cpu_median_ms);
	json_num("ns_per_nnz", p.median_ms * 1e6 / nnz);
	json_num("gb_per_s", matrix_bytes / (p.median_ms * 1e6));
	json_num("peak_rss_mib", mib(p.hwm_kb));
	json_num("rss_anon_mib", mib(p.anon_kb));
	json_num("rss_file_mib", mib(p.file_kb));
	json_end_object();
	bool equal = true;
	if (o.baseline) {
		equal = p.hash[0] == q.hash[0] && p.hash[1] == q.hash[1];
		json_begin_object("baseline");
		json_str("shape", "porep");
		json_num("seed", (double)o.seed);
		json_num("threads", 1);
		json_num("median_ms", q.median_ms);
		json_num("min_ms", q.min_ms);
		json_num("cpu_median_ms", q.cpu_median_ms);
		json_num("ns_per_nnz", q.median_ms * 1e6 / nnz);
		json_num("generator_only_median_ms", q.gen_median_ms);
		json_num("lc_build_eval_ms", q.median_ms - q.gen_median_ms);
		json_num("lc_allocs", (double)q.st.lc_allocs);
		json_num("mul_terms", (double)q.st.muls);
		json_num("peak_rss_mib", mib(q.hwm_kb));
		json_num("rss_anon_mib", mib(q.anon_kb));
		json_num("rss_file_mib", mib(q.file_kb));
		json_end_object();
		json_num("speedup", q.median_ms / p.median_ms);
		json_num("speedup_excluding_witness", (q.median_ms - q.gen_median_ms) / p.median_ms);
		json_num("speedup_cpu_time", q.cpu_median_ms / p.cpu_median_ms);
		json_num("peak_rss_ratio_pce_over_baseline", (double)p.hwm_kb / (double)q.hwm_kb);
		json_num("anon_rss_ratio_pce_over_baseline", (double)p.anon_kb / (double)q.anon_kb);
		json_str("outputs_equal", equal ? "yes" : "no");
	}
	json_end_object();
	json_done();
	if (!equal)
		fprintf(stderr, "zkpd-bench spmv: the baseline's a, b, c differ from the PCE's "
				"(wrong --seed for this file?)\n");
	return equal ? 0 : 1;
}
