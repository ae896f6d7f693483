/*
 * zkpd-bench ntt: forward NTT (natural in, bit-reversed out, the order the
 * prover uses) of 2^N random Fr elements, median over runs. The same run
 * times fr_mul and reports the butterfly model (n/2 * log2 n) * fr_mul, and
 * with --threads T > 1 also the single-thread time and the speedup.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "zkpd/ntt.h"
#include "zkpd/pool.h"

extern volatile uint64_t bench_sink;

static double time_fr_mul(void)
{
	zkp_fr a, b;
	zkp_fr_set_u64(&a, 3);
	zkp_fr_set_u64(&b, 0x123456789abcdefULL);
	double t[7];
	for (int r = 0; r < 7; r++) {
		double t0 = bench_now_ns();
		for (int i = 0; i < 1000000; i++)
			zkp_fr_mul(&a, &a, &b);
		t[r] = (bench_now_ns() - t0) / 1e6;
	}
	bench_sink += a.l[0];
	return bench_median(t, 7);
}

static double time_ntt(zkp_fr *x, const zkp_ntt_domain *d, const zkp_ntt_opts *o,
		       zkp_pool *pool, int runs)
{
	double *t = calloc((size_t)runs, sizeof(double));
	for (int r = 0; r < runs; r++) {
		double t0 = bench_now_ns();
		zkp_ntt(x, d, o, pool);
		t[r] = (bench_now_ns() - t0) / 1e6;
	}
	double m = bench_median(t, (size_t)runs);
	free(t);
	return m;
}

int bench_ntt_main(int argc, char **argv)
{
	unsigned log_n = 20, threads = zkp_pool_default_threads();
	int runs = 5;
	bool coset = false;
	enum zkp_ntt_roots roots = ZKP_NTT_ROOTS_BELLMAN;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--log2") && i + 1 < argc)
			log_n = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--coset"))
			coset = true;
		else if (!strcmp(argv[i], "--roots") && i + 1 < argc)
			roots = !strcmp(argv[++i], "snarkjs") ? ZKP_NTT_ROOTS_SNARKJS
							      : ZKP_NTT_ROOTS_BELLMAN;
		else {
			fprintf(stderr, "usage: zkpd-bench ntt [--log2 N] [--threads T] [--runs R] "
					"[--coset] [--roots bellman|snarkjs]\n");
			return 2;
		}
	}
	if (log_n < 1 || log_n > ZKP_NTT_MAX_LOG || threads < 1 || threads > 1024 ||
	    runs < 1) {
		fprintf(stderr, "zkpd-bench ntt: --log2 must be 1..%d, --threads >= 1, --runs >= 1\n",
			ZKP_NTT_MAX_LOG);
		return 2;
	}

	zkp_pool *pool = NULL;
	if (threads > 1 && zkp_pool_new(&pool, threads - 1) != 0) {
		fprintf(stderr, "zkpd-bench ntt: cannot start %u threads\n", threads);
		return 1;
	}
	size_t n = (size_t)1 << log_n;
	void *mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(log_n) + 63) & ~(size_t)63);
	zkp_fr *x = aligned_alloc(64, n * sizeof(zkp_fr));
	if (!mem || !x) {
		fprintf(stderr, "zkpd-bench ntt: out of memory for 2^%u elements\n", log_n);
		return 1;
	}
	zkp_ntt_domain d;
	double t0 = bench_now_ns();
	zkp_ntt_domain_init(&d, log_n, roots, NULL, mem, pool);
	double init_ms = (bench_now_ns() - t0) / 1e6;
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t w[8];
		for (int k = 0; k < 8; k++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			w[k] = s;
		}
		zkp_fr_from_wide(&x[i], w);
	}

	zkp_ntt_opts o = { false, coset, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	double fr_mul_ns = time_fr_mul();
	double ms = time_ntt(x, &d, &o, pool, runs);
	double ms1 = threads > 1 ? time_ntt(x, &d, &o, NULL, runs) : ms;
	double model_ms = (double)n / 2 * log_n * fr_mul_ns / 1e6;

	json_begin_object(NULL);
	json_str("bench", "ntt");
	json_num("log2", log_n);
	json_num("threads", threads);
	json_num("runs", runs);
	json_str("coset", coset ? "yes" : "no");
	json_str("roots", roots == ZKP_NTT_ROOTS_SNARKJS ? "snarkjs" : "bellman");
	json_str("ff_backend", zkp_ff_backend());
	json_num("domain_init_ms", init_ms);
	json_num("median_ms", ms);
	json_num("single_thread_median_ms", ms1);
	json_num("speedup_vs_single_thread", ms1 / ms);
	json_num("fr_mul_ns", fr_mul_ns);
	json_num("butterfly_model_ms", model_ms);
	json_num("single_thread_ratio_vs_model", ms1 / model_ms);
	json_end_object();
	json_done();
	free(x);
	free(mem);
	zkp_pool_free(pool);
	return 0;
}
