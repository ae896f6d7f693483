/*
 * zkpd-bench prove --pce P --key K [--witness W | --seed S] [--threads T]
 *                  [--runs R] [--no-cache]
 *
 * Times whole Groth16 proofs on the CPU backend and prints the median of
 * each stage over R runs: witness (decoding W, or regenerating the
 * synthetic PoRep witness of P's size from seed S, `zkp synth`'s default
 * 1), eval, ntt, each MSM (B_G2 runs on its own thread, overlapping the G1
 * ones), assemble, verify, and the whole proof; then the key and circuit
 * load times and the process's peak RSS.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_util.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/synth.h"
#include "zkpd/witness.h"

static void help(FILE *f)
{
	fprintf(f, "usage: zkpd-bench prove --pce P --key K [--witness W | --seed S] "
		   "[--threads T] [--runs R] [--no-cache]\n");
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

enum { ST_WITNESS, ST_EVAL, ST_NTT, ST_H, ST_L, ST_A, ST_B1, ST_G1, ST_B2, ST_ASM, ST_VER,
       ST_PROVE, ST_N };
static const char *stage_names[ST_N] = { "witness", "eval", "ntt", "msm_h", "msm_l", "msm_a",
					 "msm_b_g1", "g1_msms", "msm_b_g2", "assemble",
					 "verify", "prove" };

int bench_prove_main(int argc, char **argv)
{
	const char *pce_path = NULL, *key = NULL, *wit = NULL;
	uint64_t seed = 1;
	long threads = sysconf(_SC_NPROCESSORS_ONLN), runs = 3;
	bool no_cache = false;
	for (int i = 1; i < argc; i++) {
		bool more = i + 1 < argc;
		if (!strcmp(argv[i], "--pce") && more)
			pce_path = argv[++i];
		else if (!strcmp(argv[i], "--key") && more)
			key = argv[++i];
		else if (!strcmp(argv[i], "--witness") && more)
			wit = argv[++i];
		else if (!strcmp(argv[i], "--seed") && more)
			seed = strtoull(argv[++i], NULL, 0);
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
	if (!pce_path || !key || threads < 1 || runs < 1 || runs > 1000) {
		help(stderr);
		return 2;
	}
	int ret = 1, rc;
	zkp_error err = { 0 };
	zkp_pool *pool = NULL;
	zkp_backend *be = NULL;
	zkp_pce *pce = NULL;
	zkp_groth16_pk pk;
	zkp_groth16_pk_init(&pk);
	double *st = calloc((size_t)runs * ST_N, sizeof(double));
	if (!st || zkp_pool_new(&pool, (unsigned)threads - 1) || zkp_backend_cpu_new(&be, pool)) {
		fprintf(stderr, "bench prove: cannot start\n");
		goto out;
	}
	double t0 = bench_now_ns();
	rc = zkp_pce_load(&pce, pce_path, 0, &err);
	double t1 = bench_now_ns();
	zkp_groth16_load_opts opts = { .flags = no_cache ? ZKP_GROTH16_NO_CACHE : 0, .pool = pool };
	if (!rc)
		rc = zkp_groth16_pk_load(&pk, key, &opts, &err);
	double t2 = bench_now_ns();
	if (rc) {
		fprintf(stderr, "bench prove: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	for (long r = 0; r < runs; r++) {
		double *s = st + r * ST_N;
		zkp_fr *w = NULL;
		uint64_t n_w = 0;
		double tw = bench_now_ns();
		rc = load_witness(&w, &n_w, wit, seed, pce, &err);
		s[ST_WITNESS] = (bench_now_ns() - tw) * 1e-9;
		zkp_groth16_proof proof;
		zkp_groth16_prove_times t;
		if (!rc)
			rc = zkp_groth16_prove(&proof, &t, pce, &pk, w, (size_t)n_w, be, pool, &err);
		free(w);
		if (rc) {
			fprintf(stderr, "bench prove: %s\n", zkp_error_text(&err, rc));
			goto out;
		}
		s[ST_EVAL] = t.eval;
		s[ST_NTT] = t.ntt;
		s[ST_H] = t.msm_h;
		s[ST_L] = t.msm_l;
		s[ST_A] = t.msm_a;
		s[ST_B1] = t.msm_b_g1;
		s[ST_G1] = t.g1_msms;
		s[ST_B2] = t.msm_b_g2;
		s[ST_ASM] = t.assemble;
		s[ST_VER] = t.verify;
		s[ST_PROVE] = t.total;
	}
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	json_begin_object(NULL);
	json_str("bench", "prove");
	json_str("pce", pce_path);
	json_str("key", key);
	json_str("h_conv", pk.h_conv == ZKP_GROTH16_H_SNARKJS ? "snarkjs" : "bellman");
	json_num("constraints", (double)d->n_constraints);
	json_num("domain_log2", d->domain_log2);
	json_num("inputs", (double)d->n_inputs);
	json_num("aux", (double)d->n_aux);
	json_num("threads", (double)threads);
	json_num("runs", (double)runs);
	json_str("ff_backend", zkp_ff_backend());
	json_num("load_pce_ms", (t1 - t0) * 1e-6);
	json_num("load_key_ms", (t2 - t1) * 1e-6);
	json_begin_object("median_ms");
	for (int k = 0; k < ST_N; k++) {
		double v[1000];
		for (long r = 0; r < runs; r++)
			v[r] = st[r * ST_N + k];
		json_num(stage_names[k], 1e3 * bench_median(v, (size_t)runs));
	}
	json_end_object();
	json_num("peak_rss_mib", (double)ru.ru_maxrss / 1024.0);
	json_end_object();
	ret = 0;
out:
	free(st);
	zkp_groth16_pk_release(&pk);
	zkp_pce_free(pce);
	zkp_backend_free(be);
	zkp_pool_free(pool);
	return ret;
}
