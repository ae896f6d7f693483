/*
 * zkpd-bench pipeline --pce P --key K -n N --pipelines K --out DIR
 *                     [--baseline] [--no-purge] [--threads T] [--seed S]
 *                     [--trust-key] [--no-cache] [--sample-ms MS] [--c1 C1.json]
 *
 * Memory of N Groth16 proofs on the CPU backend, run by K pipeline threads
 * that take proofs from one counter. Shared (default): ONE circuit and ONE
 * key, loaded before the proofs, read by every pipeline. --baseline: every
 * proof loads its own circuit and key and drops them afterwards, the
 * classic way. --no-purge: no allocator purge after each proof.
 *
 * Snapshots (mem.h) at: startup, circuit_load, key_load (per proof in
 * baseline mode), and per proof witness, eval, ntt, msm, purge (after the
 * proof's buffers are dropped, and purged unless --no-purge); then end.
 * A sampler thread reads VmRSS every MS ms (default 5) for the plot.
 *
 * Writes DIR/pipeline.json (summary, model, every snapshot),
 * DIR/snapshots.csv, DIR/rss.csv (samples) and DIR/rss.png when gnuplot is
 * installed; prints the summary JSON on stdout. The model (docs/memory.md)
 * gives the predicted peak next to the measured one.
 *
 * The synthetic PoRep witness is regenerated from S (default 1, `zkp
 * synth`'s default) for P's size, so P must come from `zkp synth` with the
 * same seed. With --c1, P is a real PoRep partition circuit (`zkp porep
 * circuit`) and each proof's witness is computed from that C1 (parsed once,
 * shared; proof i proves partition i mod partitions), as a zkpd partition
 * job does.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_job.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/mem.h"
#include "zkpd/porep_c1.h"
#include "zkpd/pool.h"
#include "zkpd/synth.h"

static void help(FILE *f)
{
	fprintf(f, "usage: zkpd-bench pipeline --pce P --key K -n N --pipelines K --out DIR\n"
		   "                          [--baseline] [--no-purge] [--threads T] [--seed S]\n"
		   "                          [--trust-key] [--no-cache] [--sample-ms MS] [--c1 C1]\n");
}

static const double MIB = 1024.0 * 1024.0;

static double maxd(double a, double b)
{
	return a > b ? a : b;
}

/* ---- recording ---- */

typedef struct {
	int proof;    /* -1: not a proof's */
	int pipeline; /* -1: the main thread */
	zkp_mem_snap s;
} record;

typedef struct {
	double t;
	uint64_t rss;
} sample;

static struct {
	pthread_mutex_t lock;
	record *recs;
	size_t n_recs, cap_recs;
	sample *samples;
	size_t n_samples, cap_samples;
	atomic_bool stop;
	double sample_ms;
} rec = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void snap(const char *stage, int proof, int pipeline)
{
	record r = { .proof = proof, .pipeline = pipeline };
	zkp_mem_snapshot(stage, &r.s);
	pthread_mutex_lock(&rec.lock);
	if (rec.n_recs < rec.cap_recs)
		rec.recs[rec.n_recs++] = r;
	pthread_mutex_unlock(&rec.lock);
}

static void *sampler(void *arg)
{
	(void)arg;
	struct timespec ts = { 0, (long)(rec.sample_ms * 1e6) };
	while (!atomic_load(&rec.stop)) {
		zkp_mem_rss r;
		if (!zkp_mem_rss_read(&r)) {
			pthread_mutex_lock(&rec.lock);
			if (rec.n_samples == rec.cap_samples) {
				size_t cap = rec.cap_samples ? 2 * rec.cap_samples : 4096;
				sample *p = realloc(rec.samples, cap * sizeof(*p));
				if (p) {
					rec.samples = p;
					rec.cap_samples = cap;
				}
			}
			if (rec.n_samples < rec.cap_samples)
				rec.samples[rec.n_samples++] =
					(sample){ bench_now_ns() * 1e-9, r.rss };
			pthread_mutex_unlock(&rec.lock);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- the pipelines ---- */

typedef struct {
	const char *pce_path, *key_path;
	zkp_groth16_load_opts opts;
	uint64_t seed;
	const zkp_porep_c1 *c1; /* NULL: the synthetic witness */
	long n;
	bool baseline, purge;
	zkp_pce *pce;        /* shared mode */
	zkp_groth16_pk *pk;  /* shared mode */
	zkp_backend *be;
	zkp_pool *pool;
	atomic_long next;
	atomic_int failed;
} shared_ctx;

typedef struct {
	shared_ctx *sh;
	int pipeline;
	int proof;
	size_t n_domain;
} pipe_ctx;

static const char *const stage_names[] = { "eval", "ntt", "msm" };

static void on_stage(void *arg, enum zkp_groth16_stage st)
{
	pipe_ctx *p = arg;
	const size_t v = p->n_domain * sizeof(zkp_fr);
	/* The prover holds a, b, c from eval to the end of ntt, a alone after. */
	if (st == ZKP_GROTH16_STAGE_EVAL)
		zkp_mem_add(ZKP_MEM_ABC, 3 * v);
	else if (st == ZKP_GROTH16_STAGE_MSM)
		zkp_mem_sub(ZKP_MEM_ABC, 2 * v);
	snap(stage_names[st], p->proof, p->pipeline);
}

static int load_pair(zkp_pce **pce, zkp_groth16_pk *pk, shared_ctx *sh, int proof, int pipe,
		     zkp_error *err)
{
	int rc = zkp_pce_load(pce, sh->pce_path, 0, err);
	if (rc)
		return rc;
	zkp_mem_add(ZKP_MEM_PCE, zkp_pce_mapped_bytes(*pce));
	snap("circuit_load", proof, pipe);
	rc = zkp_groth16_pk_load(pk, sh->key_path, &sh->opts, err);
	if (rc)
		return rc;
	zkp_mem_add(ZKP_MEM_KEY, pk->mem_bytes);
	snap("key_load", proof, pipe);
	return 0;
}

static void drop_pair(zkp_pce *pce, zkp_groth16_pk *pk)
{
	if (pce)
		zkp_mem_sub(ZKP_MEM_PCE, zkp_pce_mapped_bytes(pce));
	if (pk->mem)
		zkp_mem_sub(ZKP_MEM_KEY, pk->mem_bytes);
	zkp_pce_free(pce);
	zkp_groth16_pk_release(pk);
}

static int one_proof(shared_ctx *sh, int proof, int pipe)
{
	zkp_error err = { 0 };
	zkp_pce *pce = sh->pce;
	zkp_groth16_pk own;
	zkp_groth16_pk_init(&own);
	const zkp_groth16_pk *pk = sh->pk;
	zkp_fr *w = NULL;
	size_t w_bytes = 0;
	int rc = 0;
	if (sh->baseline) {
		pce = NULL;
		rc = load_pair(&pce, &own, sh, proof, pipe, &err);
		if (rc)
			goto out;
		pk = &own;
	}
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	const size_t n_w = (size_t)(d->n_inputs + d->n_aux);
	w_bytes = n_w * sizeof(zkp_fr);
	w = malloc(w_bytes);
	if (!w) {
		rc = zkp_error_set(&err, ZKP_ERR_NOMEM, "witness: out of memory");
		goto out;
	}
	zkp_mem_add(ZKP_MEM_WITNESS, w_bytes);
	if (sh->c1) {
		zkp_porep_witness wit;
		zkp_porep_c1_witness(sh->c1, (unsigned)proof % sh->c1->partitions, &wit);
		rc = zkp_porep_witness_parallel(&sh->c1->shape, &wit, w, d->n_inputs, d->n_aux,
						sh->pool, &err);
	} else {
		rc = zkp_synth_porep(d->n_constraints, sh->seed, NULL, NULL, w, NULL, &err);
	}
	if (rc)
		goto out;
	snap("witness", proof, pipe);
	pipe_ctx pc = { sh, pipe, proof, (size_t)1 << d->domain_log2 };
	zkp_groth16_proof pr;
	rc = zkp_groth16_prove_staged(&pr, NULL, pce, pk, w, n_w, sh->be, sh->pool, on_stage, &pc,
				      &err);
	if (!rc)
		zkp_mem_sub(ZKP_MEM_ABC, pc.n_domain * sizeof(zkp_fr));
out:
	if (w)
		zkp_mem_sub(ZKP_MEM_WITNESS, w_bytes);
	free(w);
	if (sh->baseline)
		drop_pair(pce, &own);
	if (rc)
		fprintf(stderr, "bench pipeline: proof %d: %s\n", proof, zkp_error_text(&err, rc));
	else {
		if (sh->purge)
			zkp_mem_purge();
		snap("purge", proof, pipe);
	}
	return rc;
}

typedef struct {
	shared_ctx *sh;
	int pipeline;
} worker_arg;

static void *pipeline_thread(void *arg)
{
	worker_arg *a = arg;
	shared_ctx *sh = a->sh;
	for (;;) {
		long i = atomic_fetch_add(&sh->next, 1);
		if (i >= sh->n || atomic_load(&sh->failed))
			break;
		if (one_proof(sh, (int)i, a->pipeline))
			atomic_store(&sh->failed, 1);
	}
	return NULL;
}

/* ---- output ---- */

static void write_csv(const char *dir, double t0)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/snapshots.csv", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "t_s,stage,proof,pipeline,rss,hwm,rss_anon,rss_file,je_allocated,"
			   "je_active,je_resident,je_mapped,je_retained,je_metadata");
		for (int c = 0; c < ZKP_MEM_NCATEGORIES; c++)
			fprintf(f, ",%s", zkp_mem_category_name((enum zkp_mem_category)c));
		fprintf(f, "\n");
		for (size_t i = 0; i < rec.n_recs; i++) {
			const record *r = &rec.recs[i];
			const zkp_mem_snap *s = &r->s;
			fprintf(f, "%.6f,%s,%d,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				s->t - t0, s->stage, r->proof, r->pipeline, s->rss.rss, s->rss.hwm,
				s->rss.rss_anon, s->rss.rss_file);
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				   ",%" PRIu64,
				s->je.allocated, s->je.active, s->je.resident, s->je.mapped,
				s->je.retained, s->je.metadata);
			for (int c = 0; c < ZKP_MEM_NCATEGORIES; c++)
				fprintf(f, ",%" PRIu64, s->counters[c]);
			fprintf(f, "\n");
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/rss.csv", dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "t_s,rss_mib\n");
		for (size_t i = 0; i < rec.n_samples; i++)
			fprintf(f, "%.6f,%.3f\n", rec.samples[i].t - t0,
				(double)rec.samples[i].rss / MIB);
		fclose(f);
	}
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* RSS over time, one point per sample, and each snapshot as a labelled
 * mark (stage name) on the curve. */
static const char *plot(const char *dir, const char *title, double t0)
{
	if (!have_gnuplot())
		return "skipped: gnuplot is not installed";
	char path[4096];
	snprintf(path, sizeof(path), "%s/marks.dat", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return "skipped: cannot write marks.dat";
	for (size_t i = 0; i < rec.n_recs; i++)
		fprintf(f, "%.6f,%.3f,%s\n", rec.recs[i].s.t - t0,
			(double)rec.recs[i].s.rss.rss / MIB, rec.recs[i].s.stage);
	fclose(f);
	/* gnuplot's messages go to DIR/gnuplot.log, not into the JSON. */
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "gnuplot 2>'%s/gnuplot.log'", dir);
	FILE *g = popen(cmd, "w");
	if (!g)
		return "skipped: gnuplot did not start";
	fprintf(g, "set terminal pngcairo size 1400,700 noenhanced\n"
		   "set output '%s/rss.png'\n"
		   "set title '%s'\n"
		   "set xlabel 'seconds'\nset ylabel 'RSS (MiB)'\nset key top left\n"
		   "set datafile separator ','\n"
		   "plot '%s/rss.csv' every ::1 using 1:2 with lines title 'VmRSS', \\\n"
		   "     '%s/marks.dat' using 1:2 with points pt 7 ps 0.6 "
		   "title 'stage snapshots', \\\n"
		   "     '%s/marks.dat' using 1:2:3 with labels rotate by 90 left "
		   "offset 0,0.6 font ',7' notitle\n",
		   dir, title, dir, dir, dir);
	if (pclose(g) != 0) {
		/* pngcairo missing (gnuplot-nox): the plain png terminal. */
		g = popen(cmd, "w");
		if (!g)
			return "skipped: gnuplot did not start";
		fprintf(g, "set terminal png size 1400,700 noenhanced\n"
			   "set output '%s/rss.png'\nset title '%s'\n"
			   "set xlabel 'seconds'\nset ylabel 'RSS (MiB)'\n"
			   "set datafile separator ','\n"
			   "plot '%s/rss.csv' every ::1 using 1:2 with lines title 'VmRSS'\n",
			   dir, title, dir);
		if (pclose(g) != 0)
			return "failed: gnuplot returned an error";
	}
	return "rss.png";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static double median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

int bench_pipeline_main(int argc, char **argv)
{
	const char *pce_path = NULL, *key = NULL, *out_dir = NULL, *c1_path = NULL;
	long n = 0, k = 1, threads = zkp_pool_default_threads();
	uint64_t seed = 1;
	bool baseline = false, purge = true, trust = false, no_cache = false;
	double sample_ms = 5;
	for (int i = 1; i < argc; i++) {
		bool more = i + 1 < argc;
		if (!strcmp(argv[i], "--pce") && more)
			pce_path = argv[++i];
		else if (!strcmp(argv[i], "--key") && more)
			key = argv[++i];
		else if (!strcmp(argv[i], "--c1") && more)
			c1_path = argv[++i];
		else if (!strcmp(argv[i], "-n") && more)
			n = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--pipelines") && more)
			k = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--out") && more)
			out_dir = argv[++i];
		else if (!strcmp(argv[i], "--threads") && more)
			threads = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seed") && more)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--sample-ms") && more)
			sample_ms = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--baseline"))
			baseline = true;
		else if (!strcmp(argv[i], "--no-purge"))
			purge = false;
		else if (!strcmp(argv[i], "--trust-key"))
			trust = true;
		else if (!strcmp(argv[i], "--no-cache"))
			no_cache = true;
		else {
			help(stderr);
			return 2;
		}
	}
	if (!pce_path || !key || !out_dir || n < 1 || n > 100000 || k < 1 || k > 64 ||
	    threads < 1 || !(sample_ms >= 1 && sample_ms <= 1000)) {
		help(stderr);
		return 2;
	}
	if (mkdir(out_dir, 0777) && access(out_dir, W_OK)) {
		fprintf(stderr, "bench pipeline: cannot create %s\n", out_dir);
		return 1;
	}
	int ret = 1, rc;
	zkp_error err = { 0 };
	zkp_pool *pool = NULL;
	zkp_backend *be = NULL;
	zkp_porep_c1 *c1 = NULL;
	zkp_pce *pce = NULL, *probe_pce = NULL;
	zkp_groth16_pk pk, probe_pk;
	zkp_groth16_pk_init(&pk);
	zkp_groth16_pk_init(&probe_pk);
	pthread_t samp, *tids = NULL;
	bool sampling = false;
	worker_arg *args = NULL;
	shared_ctx sh = {
		.pce_path = pce_path,
		.key_path = key,
		.opts = { .flags = (trust ? ZKP_GROTH16_SKIP_SUBGROUP : 0) |
				   (no_cache ? ZKP_GROTH16_NO_CACHE : 0) },
		.seed = seed,
		.n = n,
		.baseline = baseline,
		.purge = purge,
	};
	rec.cap_recs = (size_t)n * 8 + 16;
	rec.recs = calloc(rec.cap_recs, sizeof(record));
	tids = calloc((size_t)k, sizeof(*tids));
	args = calloc((size_t)k, sizeof(*args));
	rec.sample_ms = sample_ms;
	if (!rec.recs || !tids || !args) {
		fprintf(stderr, "bench pipeline: out of memory\n");
		goto out;
	}
	double t0 = bench_now_ns() * 1e-9;
	snap("startup", -1, -1);
	if (!pthread_create(&samp, NULL, sampler, NULL))
		sampling = true;
	if (zkp_pool_new(&pool, (unsigned)threads - 1) || zkp_backend_cpu_new(&be, pool)) {
		fprintf(stderr, "bench pipeline: cannot start the pool\n");
		goto out;
	}
	sh.opts.pool = pool;
	sh.be = be;
	sh.pool = pool;
	if (c1_path) {
		rc = zkp_porep_c1_load(&c1, c1_path, &err);
		if (rc) {
			fprintf(stderr, "bench pipeline: %s\n", zkp_error_text(&err, rc));
			goto out;
		}
		sh.c1 = c1;
	}
	uint64_t startup_rss = rec.recs[0].s.rss.rss;
	uint64_t post_load_rss = startup_rss;
	if (!baseline) {
		rc = load_pair(&pce, &pk, &sh, -1, -1, &err);
		if (rc) {
			fprintf(stderr, "bench pipeline: %s\n", zkp_error_text(&err, rc));
			goto out;
		}
		zkp_mem_purge();
		snap("post_load", -1, -1);
		post_load_rss = rec.recs[rec.n_recs - 1].s.rss.rss;
		sh.pce = pce;
		sh.pk = &pk;
	}
	double t_run = bench_now_ns() * 1e-9;
	for (long i = 0; i < k; i++) {
		args[i] = (worker_arg){ &sh, (int)i };
		if (pthread_create(&tids[i], NULL, pipeline_thread, &args[i])) {
			fprintf(stderr, "bench pipeline: cannot start pipeline %ld\n", i);
			atomic_store(&sh.failed, 1);
			for (long j = 0; j < i; j++)
				pthread_join(tids[j], NULL);
			goto out;
		}
	}
	for (long i = 0; i < k; i++)
		pthread_join(tids[i], NULL);
	double run_s = bench_now_ns() * 1e-9 - t_run;
	if (atomic_load(&sh.failed))
		goto out;
	if (purge)
		zkp_mem_purge();
	snap("end", -1, -1);

	/* The model needs a circuit and key: the shared ones, or a probe load
	 * (taken after the measurement so it does not count). */
	zkp_groth16_mem_model m;
	const zkp_pce *mp = pce;
	const zkp_groth16_pk *mk = &pk;
	if (baseline) {
		rc = zkp_pce_load(&probe_pce, pce_path, 0, &err);
		if (!rc)
			rc = zkp_groth16_pk_load(&probe_pk, key, &sh.opts, &err);
		if (rc) {
			fprintf(stderr, "bench pipeline: %s\n", zkp_error_text(&err, rc));
			goto out;
		}
		mp = probe_pce;
		mk = &probe_pk;
	}
	/* Workers read the peak before the probe load. */
	zkp_mem_rss fin = rec.recs[rec.n_recs - 1].s.rss;
	zkp_groth16_mem_model_of(&m, mp, mk, zkp_pool_threads(pool));
	/* The sampled peak overall and over the proofs alone (in shared mode
	 * the key's load transient can exceed the proofs' peak). */
	uint64_t peak_sampled = 0, run_peak = 0;
	for (size_t i = 0; i < rec.n_samples; i++) {
		if (rec.samples[i].rss > peak_sampled)
			peak_sampled = rec.samples[i].rss;
		if (rec.samples[i].t >= t_run && rec.samples[i].rss > run_peak)
			run_peak = rec.samples[i].rss;
	}
	double peak = (double)(fin.hwm > peak_sampled ? fin.hwm : peak_sampled);
	double base = (double)startup_rss;
	/* Shared: the key's load transient, or K jobs at their peak, on top of
	 * one circuit and key. Baseline: K pipelines each at their own worst
	 * moment (a load or a job's peak) on top of a private circuit and key. */
	double predicted = baseline ? base + (double)k * (m.circuit + m.key + maxd(m.key_src, m.ws))
				    : base + m.circuit + m.key + maxd(m.key_src, (double)k * m.ws);
	double predicted_run = baseline ? predicted
					: base + m.circuit + m.key + (double)k * m.ws;

	/* Post-purge RSS per proof, in proof order; the last one in time is
	 * taken when every other pipeline has finished. */
	uint64_t *pp = calloc((size_t)n, sizeof(uint64_t));
	if (!pp)
		goto out;
	uint64_t last_purge = 0;
	for (size_t i = 0; i < rec.n_recs; i++)
		if (rec.recs[i].proof >= 0 && !strcmp(rec.recs[i].s.stage, "purge")) {
			pp[rec.recs[i].proof] = rec.recs[i].s.rss.rss;
			last_purge = rec.recs[i].s.rss.rss;
		}
	size_t half = (size_t)n / 2;
	uint64_t *tmp = calloc((size_t)n, sizeof(uint64_t));
	double first_half = 0, second_half = 0;
	if (tmp && half) {
		memcpy(tmp, pp, half * sizeof(uint64_t));
		first_half = median_u64(tmp, half);
		memcpy(tmp, pp + (size_t)n - half, half * sizeof(uint64_t));
		second_half = median_u64(tmp, half);
	}
	free(tmp);

	const zkp_pce_dims *d = zkp_pce_get_dims(mp);
	char title[512];
	snprintf(title, sizeof(title), "%s: %ld proofs, %ld pipeline(s)%s%s, 2^%u domain",
		 baseline ? "baseline" : "shared", n, k, purge ? "" : ", no purge",
		 zkp_mem_have_jemalloc() ? ", jemalloc" : "", d->domain_log2);
	write_csv(out_dir, t0);
	const char *png = plot(out_dir, title, t0);

	/* The summary, on stdout and (with every snapshot) in pipeline.json. */
	char path[4096];
	snprintf(path, sizeof(path), "%s/pipeline.json", out_dir);
	FILE *jf = fopen(path, "w");
	FILE *outs[2] = { stdout, jf };
	for (int o = 0; o < 2; o++) {
		FILE *f = outs[o];
		if (!f)
			continue;
		fprintf(f, "{\n  \"bench\": \"pipeline\",\n  \"mode\": \"%s\",\n",
			baseline ? "baseline" : "shared");
		fprintf(f, "  \"pce\": \"%s\",\n  \"key\": \"%s\",\n", pce_path, key);
		fprintf(f, "  \"proofs\": %ld,\n  \"pipelines\": %ld,\n  \"threads\": %ld,\n", n, k,
			threads);
		fprintf(f, "  \"purge\": %s,\n  \"jemalloc\": %s,\n", purge ? "true" : "false",
			zkp_mem_have_jemalloc() ? "true" : "false");
		fprintf(f, "  \"constraints\": %" PRIu64 ",\n  \"domain_log2\": %u,\n"
			   "  \"inputs\": %" PRIu64 ",\n  \"aux\": %" PRIu64 ",\n"
			   "  \"nnz\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "],\n",
			d->n_constraints, d->domain_log2, d->n_inputs, d->n_aux, d->nnz[0], d->nnz[1],
			d->nnz[2]);
		fprintf(f, "  \"key_sections\": {");
		for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++)
			fprintf(f, "%s\"%s\": %zu", s ? ", " : "",
				zkp_groth16_section_name((enum zkp_groth16_section)s), mk->n[s]);
		fprintf(f, "},\n  \"key_mapped\": %s,\n", mk->mem_mapped ? "true" : "false");
		fprintf(f, "  \"run_s\": %.3f,\n  \"proofs_per_s\": %.4f,\n", run_s,
			(double)n / run_s);
		fprintf(f, "  \"model_mib\": {\"circuit\": %.2f, \"key\": %.2f, "
			   "\"key_load_source\": %.2f, "
			   "\"witness\": %.2f, \"abc\": %.2f, \"ntt_domain\": %.2f, "
			   "\"densities\": %.3f, \"msm_g1_scratch\": %.2f, "
			   "\"msm_g2_scratch\": %.2f, \"working_set_eval\": %.2f, "
			   "\"working_set_msm\": %.2f, \"working_set\": %.2f},\n",
			m.circuit / MIB, m.key / MIB, m.key_src / MIB, m.witness / MIB, m.abc / MIB,
			m.domain / MIB, m.dens / MIB, m.msm_g1 / MIB, m.msm_g2 / MIB,
			m.ws_eval / MIB, m.ws_msm / MIB, m.ws / MIB);
		fprintf(f, "  \"startup_rss_mib\": %.2f,\n  \"post_load_rss_mib\": %.2f,\n",
			(double)startup_rss / MIB, (double)post_load_rss / MIB);
		fprintf(f, "  \"predicted_peak_rss_mib\": %.2f,\n  \"peak_rss_mib\": %.2f,\n",
			predicted / MIB, peak / MIB);
		fprintf(f, "  \"peak_vs_model\": %.4f,\n", peak / predicted);
		fprintf(f, "  \"predicted_proving_peak_rss_mib\": %.2f,\n"
			   "  \"proving_peak_rss_mib\": %.2f,\n",
			predicted_run / MIB, (double)run_peak / MIB);
		fprintf(f, "  \"last_purge_rss_mib\": %.2f,\n  \"end_rss_mib\": %.2f,\n",
			(double)last_purge / MIB, (double)fin.rss / MIB);
		fprintf(f, "  \"steady_first_half_mib\": %.2f,\n"
			   "  \"steady_second_half_mib\": %.2f,\n",
			first_half / MIB, second_half / MIB);
		fprintf(f, "  \"post_purge_rss_mib\": [");
		for (long i = 0; i < n; i++)
			fprintf(f, "%s%.2f", i ? ", " : "", (double)pp[i] / MIB);
		fprintf(f, "],\n  \"plot\": \"%s\"", png);
		if (f == jf) {
			fprintf(f, ",\n  \"snapshots\": [\n");
			for (size_t i = 0; i < rec.n_recs; i++) {
				const record *r = &rec.recs[i];
				fprintf(f, "    {\"t\": %.6f, \"stage\": \"%s\", \"proof\": %d, "
					   "\"pipeline\": %d, \"rss\": %" PRIu64 ", \"hwm\": %" PRIu64
					   ", \"je_allocated\": %" PRIu64 ", \"je_resident\": %" PRIu64
					   ", \"je_retained\": %" PRIu64,
					r->s.t - t0, r->s.stage, r->proof, r->pipeline, r->s.rss.rss,
					r->s.rss.hwm, r->s.je.allocated, r->s.je.resident,
					r->s.je.retained);
				for (int c = 0; c < ZKP_MEM_NCATEGORIES; c++)
					fprintf(f, ", \"%s\": %" PRIu64,
						zkp_mem_category_name((enum zkp_mem_category)c),
						r->s.counters[c]);
				fprintf(f, "}%s\n", i + 1 < rec.n_recs ? "," : "");
			}
			fprintf(f, "  ]");
		}
		fprintf(f, "\n}\n");
	}
	if (jf)
		fclose(jf);
	free(pp);
	ret = 0;
out:
	if (sampling) {
		atomic_store(&rec.stop, true);
		pthread_join(samp, NULL);
	}
	if (pce)
		drop_pair(pce, &pk);
	zkp_groth16_pk_release(&pk);
	zkp_pce_free(probe_pce);
	zkp_groth16_pk_release(&probe_pk);
	zkp_backend_free(be);
	zkp_pool_free(pool);
	zkp_porep_c1_free(c1);
	free(rec.recs);
	free(rec.samples);
	free(tids);
	free(args);
	return ret;
}
