/*
 * zkpd-bench prove (--pce P --key K | --synth LOG2) [--witness W | --seed S]
 *                  [--backends LIST] [--threads T] [--runs R] [--no-cache]
 *
 * Times whole Groth16 proofs and prints the median of each stage over R
 * runs: witness (decoding W, or regenerating the synthetic PoRep witness
 * of the circuit's size from seed S, `zkp synth`'s default 1), eval, ntt,
 * each MSM (B_G2 runs on its own thread, overlapping the G1 ones),
 * assemble, verify, and the whole proof; then the key and circuit load
 * times and the process's peak RSS.
 *
 * --synth LOG2 makes a PoRep-shaped circuit with a 2^LOG2 domain (seed S)
 * in a temporary directory and an INSECURE development key in memory
 * (setup_ms; its points made on the first backend, setup_backend: on a
 * GPU by the device), for sizes whose key files would take minutes to
 * write and decode. --backends is a comma list of cpu, offhost (the test backend
 * that hides its memory as a device does) and cuda or cuda:N (builds with
 * the CUDA backend); default cpu. Before its runs each backend gets the
 * key's queries resident (resident_ms: a copy to a device, nothing on
 * the CPU), as the daemon does. The first backend's figures are the
 * top-level ones; each further backend adds an entry to "compare" with its
 * medians and prove_ratio = first backend's proof / this one's.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_util.h"
#include "zkpd/backend.h"
#ifdef ZKPD_HAVE_CUDA
#include "zkpd/backend_cuda.h"
#endif
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_job.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pool.h"
#include "zkpd/synth.h"
#include "zkpd/witness.h"

static void help(FILE *f)
{
	fprintf(f, "usage: zkpd-bench prove (--pce P --key K | --synth LOG2) "
		   "[--witness W | --seed S]\n"
		   "                        [--backends cpu,offhost,cuda[:N]] [--threads T] "
		   "[--runs R] [--no-cache]\n");
}

#define MAX_BACKENDS 4

/* A backend by name; *inner gets what an offhost backend wraps. */
static int backend_open(zkp_backend **ret, zkp_backend **inner, const char *name,
			zkp_pool *pool, zkp_error *err)
{
	*ret = *inner = NULL;
	if (!strcmp(name, "cpu"))
		return zkp_backend_cpu_new(ret, pool);
	if (!strcmp(name, "offhost")) {
		int rc = zkp_backend_cpu_new(inner, pool);
		if (!rc)
			rc = zkp_backend_offhost_new(ret, *inner);
		return rc;
	}
	if (!strncmp(name, "cuda", 4) && (name[4] == 0 || name[4] == ':')) {
#ifdef ZKPD_HAVE_CUDA
		int dev = name[4] ? atoi(name + 5) : 0;
		int rc = zkp_backend_cuda_new(ret, dev, err);
		if (!rc)
		return rc;
#else
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
				     "backend %s: this build has no CUDA backend", name);
#endif
	}
	return zkp_error_set(err, ZKP_ERR_INVAL, "unknown backend %s", name);
}

/* A PoRep-shaped circuit with a 2^log2 domain, in dir. */
static int synth_pce(zkp_pce **ret, const char *dir, unsigned log2, uint64_t seed,
		     zkp_error *err)
{
	char path[256];
	zkp_synth_info info;
	zkp_pce_builder *b = NULL;
	uint64_t n = ((uint64_t)1 << log2) - 64;
	snprintf(path, sizeof(path), "%s/synth.pce", dir);
	int rc = zkp_synth_porep_dims(n, &info, err);
	if (!rc)
		rc = zkp_pce_builder_new(&b, info.n_inputs, info.n_aux);
	if (!rc)
		rc = zkp_synth_porep(n, seed, zkp_synth_builder_sink, b, NULL, NULL, err);
	if (!rc)
		rc = zkp_pce_builder_write(b, path, err);
	zkp_pce_builder_free(b);
	if (!rc)
		rc = zkp_pce_load(ret, path, 0, err);
	unlink(path);
	return rc;
}

static int load_witness(zkp_fr **w, uint64_t *n_w, const char *path, uint64_t seed,
			const zkp_pce *pce, zkp_error *err)
{
	if (path)
		return zkp_witness_load(path, w, n_w, err);
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	*n_w = d->n_inputs + d->n_aux;
	*w = malloc(*n_w * sizeof(zkp_fr));
	if (!*w)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "witness: out of memory");
	return zkp_synth_porep(d->n_constraints, seed, NULL, NULL, *w, NULL, err);
}

/* Per run: the witness, the prover's spans (groth16_prove.h), the G1
 * MSMs together, the G2 MSM's own thread and the whole proof. */
enum { ST_WITNESS, ST_SPAN0, ST_G1 = ST_SPAN0 + ZKP_GROTH16_SPANS, ST_B2, ST_PROVE, ST_N };

static const char *stage_name(int k)
{
	static const char *const own[] = { "g1_msms", "msm_b_g2", "prove" };
	if (k == ST_WITNESS)
		return "witness";
	if (k < ST_G1)
		return zkp_groth16_span_name((enum zkp_groth16_span)(k - ST_SPAN0));
	return own[k - ST_G1];
}

/* The stage medians of R runs (st: R rows of ST_N) as a JSON object. */
static void json_medians(const char *key, const double *st, long runs)
{
	json_begin_object(key);
	for (int k = 0; k < ST_N; k++) {
		double v[1000];
		for (long r = 0; r < runs; r++)
			v[r] = st[r * ST_N + k];
		json_num(stage_name(k), 1e3 * bench_median(v, (size_t)runs));
	}
	json_end_object();
}

/* R proofs on one backend into st; *resident_ms the key's import. */
static int run_backend(double *st, double *resident_ms, long runs, zkp_backend *be,
		       const zkp_pce *pce, const zkp_groth16_pk *pk, const char *wit,
		       uint64_t seed, zkp_pool *pool, zkp_error *err)
{
	zkp_groth16_resident *rk = NULL;
	double t0 = bench_now_ns();
	int rc = zkp_groth16_resident_new(&rk, pk, be, true, err);
	*resident_ms = (bench_now_ns() - t0) * 1e-6;
	for (long r = 0; r < runs && !rc; r++) {
		double *s = st + r * ST_N;
		zkp_fr *w = NULL;
		uint64_t n_w = 0;
		double tw = bench_now_ns();
		rc = load_witness(&w, &n_w, wit, seed, pce, err);
		s[ST_WITNESS] = (bench_now_ns() - tw) * 1e-9;
		zkp_groth16_proof proof;
		zkp_groth16_prove_times t = { 0 };
		if (!rc)
			rc = zkp_groth16_prove_resident(&proof, &t, pce, pk, w, (size_t)n_w, be, rk,
							pool, err);
		free(w);
		for (int k = 0; k < ZKP_GROTH16_SPANS; k++)
			s[ST_SPAN0 + k] = t.span[k];
		s[ST_G1] = zkp_groth16_g1_msms(&t);
		s[ST_B2] = t.msm_b_g2;
		s[ST_PROVE] = t.total;
	}
	zkp_groth16_resident_free(rk);
	return rc;
}

static double median_of(const double *st, long runs, int k)
{
	double v[1000];
	for (long r = 0; r < runs; r++)
		v[r] = st[r * ST_N + k];
	return bench_median(v, (size_t)runs);
}

int bench_prove_main(int argc, char **argv)
{
	const char *pce_path = NULL, *key = NULL, *wit = NULL, *list = "cpu";
	uint64_t seed = 1;
	long threads = zkp_pool_default_threads(), runs = 3, synth = 0;
	bool no_cache = false;
	for (int i = 1; i < argc; i++) {
		bool more = i + 1 < argc;
		if (!strcmp(argv[i], "--pce") && more)
			pce_path = argv[++i];
		else if (!strcmp(argv[i], "--key") && more)
			key = argv[++i];
		else if (!strcmp(argv[i], "--synth") && more)
			synth = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--witness") && more)
			wit = argv[++i];
		else if (!strcmp(argv[i], "--seed") && more)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--backends") && more)
			list = argv[++i];
		else if (!strcmp(argv[i], "--threads") && more)
			threads = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--runs") && more)
			runs = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-cache"))
			no_cache = true;
		else {
			help(stderr);
			return 2;
		}
	}
	bool files = pce_path && key;
	if (files == (synth != 0) || (synth && (synth < 10 || synth > 28)) ||
	    (synth && wit) || threads < 1 || runs < 1 || runs > 1000) {
		help(stderr);
		return 2;
	}
	char names[MAX_BACKENDS][32];
	size_t n_be = 0;
	for (const char *p = list; *p && n_be < MAX_BACKENDS;) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(names[0])) {
			help(stderr);
			return 2;
		}
		memcpy(names[n_be], p, len);
		names[n_be++][len] = 0;
		p += len + (p[len] == ',');
	}

	int ret = 1, rc;
	zkp_error err = { 0 };
	zkp_pool *pool = NULL;
	zkp_backend *be[MAX_BACKENDS] = { 0 }, *inner[MAX_BACKENDS] = { 0 };
	double resident_ms[MAX_BACKENDS] = { 0 };
	zkp_pce *pce = NULL;
	zkp_groth16_pk pk;
	zkp_groth16_pk_init(&pk);
	char dir[64] = "";
	double *st = calloc((size_t)runs * ST_N * n_be, sizeof(double));
	if (!st || zkp_pool_new(&pool, (unsigned)threads - 1)) {
		fprintf(stderr, "bench prove: cannot start\n");
		goto out;
	}
	for (size_t b = 0; b < n_be; b++) {
		rc = backend_open(&be[b], &inner[b], names[b], pool, &err);
		if (rc) {
			fprintf(stderr, "bench prove: %s\n", zkp_error_text(&err, rc));
			goto out;
		}
	}
	double t0 = bench_now_ns(), t1, t2;
	if (synth) {
		snprintf(dir, sizeof(dir), "/tmp/zkpd-bench-XXXXXX");
		rc = mkdtemp(dir) ? 0 : zkp_error_set(&err, ZKP_ERR_IO, "mkdtemp failed");
		if (!rc)
			rc = synth_pce(&pce, dir, (unsigned)synth, seed, &err);
		t1 = bench_now_ns();
		if (!rc)
			rc = zkp_groth16_setup_dev(&pk, pce, ZKP_GROTH16_H_BELLMAN, &seed, be[0], pool,
						   &err);
	} else {
		rc = zkp_pce_load(&pce, pce_path, 0, &err);
		t1 = bench_now_ns();
		zkp_groth16_load_opts opts = { .flags = no_cache ? ZKP_GROTH16_NO_CACHE : 0,
					       .pool = pool };
		if (!rc)
			rc = zkp_groth16_pk_load(&pk, key, &opts, &err);
	}
	t2 = bench_now_ns();
	if (rc) {
		fprintf(stderr, "bench prove: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	for (size_t b = 0; b < n_be; b++) {
		rc = run_backend(st + b * runs * ST_N, &resident_ms[b], runs, be[b], pce, &pk, wit,
				 seed, pool, &err);
		if (rc) {
			fprintf(stderr, "bench prove: backend %s: %s\n", names[b],
				zkp_error_text(&err, rc));
			goto out;
		}
	}
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	json_begin_object(NULL);
	json_str("bench", "prove");
	json_str("pce", synth ? "synthetic" : pce_path);
	json_str("key", synth ? "INSECURE development key (in memory)" : key);
	json_str("h_conv", pk.h_conv == ZKP_GROTH16_H_SNARKJS ? "snarkjs" : "bellman");
	json_num("constraints", (double)d->n_constraints);
	json_num("domain_log2", d->domain_log2);
	json_num("inputs", (double)d->n_inputs);
	json_num("aux", (double)d->n_aux);
	json_num("threads", (double)threads);
	json_num("runs", (double)runs);
	json_str("ff_backend", zkp_ff_backend());
	json_num(synth ? "synth_ms" : "load_pce_ms", (t1 - t0) * 1e-6);
	json_num(synth ? "setup_ms" : "load_key_ms", (t2 - t1) * 1e-6);
	if (synth)
		json_str("setup_backend", names[0]);
	json_str("backend", names[0]);
	json_num("resident_ms", resident_ms[0]);
	json_medians("median_ms", st, runs);
	if (n_be > 1) {
		double first = median_of(st, runs, ST_PROVE);
		json_begin_array("compare");
		for (size_t b = 1; b < n_be; b++) {
			const double *sb = st + b * runs * ST_N;
			json_begin_object(NULL);
			json_str("backend", names[b]);
			json_num("resident_ms", resident_ms[b]);
			json_medians("median_ms", sb, runs);
			json_num("prove_ratio", first / median_of(sb, runs, ST_PROVE));
			json_end_object();
		}
		json_end_array();
	}
	json_num("peak_rss_mib", (double)ru.ru_maxrss / 1024.0);
	json_end_object();
	ret = 0;
out:
	if (dir[0])
		rmdir(dir);
	free(st);
	zkp_groth16_pk_release(&pk);
	zkp_pce_free(pce);
	for (size_t b = 0; b < n_be; b++) {
		zkp_backend_free(be[b]);
		zkp_backend_free(inner[b]);
	}
	zkp_pool_free(pool);
	return ret;
}
