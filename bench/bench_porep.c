/*
 * zkpd-bench porep: the PoRep partition circuit's passes, timed.
 *   shape    the SHAPE pass (dimensions only)
 *   count    a ROWS pass into a counting builder (every row built, merged,
 *            counted; nothing stored)
 *   witness  the WITNESS pass from a development sector (random data and
 *            graph, native trees), straight into the assignment
 *   parallel the same witness with the challenges spread over --threads
 *            threads (zkp_porep_witness_parallel)
 *   floor    writing the same number of witness bytes (memset): the
 *            memory floor the witness pass is reported against
 * Medians of --runs runs; one JSON object on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
#include "zkpd/porep_dev.h"
#include "zkpd/pool.h"

static int usage(void)
{
	fprintf(stderr, "usage: zkpd-bench porep [--sector-size 2KiB | --nodes N --layers L "
			"--challenges C --tree B-S-T] [--runs R] [--threads T] [--seed S]\n"
			"(a development sector holds at most 2^16 nodes)\n");
	return 2;
}

int bench_porep_main(int argc, char **argv)
{
	zkp_porep_shape s = { 0 };
	const char *size = "2KiB";
	int runs = 5, threads = 2;
	unsigned long long seed = 1;
	zkp_error err = { 0 };

	for (int i = 1; i < argc; i++) {
		bool has = i + 1 < argc;
		if (!strcmp(argv[i], "--sector-size") && has)
			size = argv[++i];
		else if (!strcmp(argv[i], "--nodes") && has)
			s.nodes = strtoull(argv[++i], NULL, 10), size = NULL;
		else if (!strcmp(argv[i], "--layers") && has)
			s.layers = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--challenges") && has)
			s.challenges = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tree") && has) {
			s.tree[1] = s.tree[2] = 0;
			if (sscanf(argv[++i], "%u-%u-%u", &s.tree[0], &s.tree[1], &s.tree[2]) < 1)
				return usage();
		} else if (!strcmp(argv[i], "--runs") && has)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && has)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && has)
			seed = strtoull(argv[++i], NULL, 0);
		else
			return usage();
	}
	if (runs < 1 || runs > 100 || threads < 1 || threads > 1024)
		return usage();
	if (size) {
		uint64_t bytes;
		if (zkp_porep_parse_size(&bytes, size, &err) ||
		    zkp_porep_shape_for_size(&s, bytes, &err)) {
			fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
			return 2;
		}
	}
	zkp_porep_dev *dev = NULL;
	if (zkp_porep_dev_new(&dev, &s, seed, &err)) {
		fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
		return 2;
	}
	zkp_porep_job j = { &s, zkp_porep_dev_witness(dev) };
	zkp_circuit_dims d;
	zkp_pce_builder_stats st;
	double *t_shape = calloc((size_t)runs, sizeof(double)), *t_count = calloc((size_t)runs, sizeof(double)),
	       *t_wit = calloc((size_t)runs, sizeof(double)), *t_floor = calloc((size_t)runs, sizeof(double)),
	       *t_par = calloc((size_t)runs, sizeof(double));
	zkp_pool *pool = NULL;
	if (zkp_pool_new(&pool, (unsigned)threads - 1)) {
		fprintf(stderr, "zkpd-bench porep: cannot start %d threads\n", threads);
		return 1;
	}
	if (zkp_circuit_shape(zkp_porep_circuit_fn, &j, &d, &err)) {
		fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
		return 1;
	}
	size_t wbytes = (size_t)(d.inputs + d.aux) * sizeof(zkp_fr);
	zkp_fr *w = malloc(wbytes);
	if (!t_shape || !t_count || !t_wit || !t_floor || !t_par || !w) {
		fprintf(stderr, "zkpd-bench porep: no memory\n");
		return 1;
	}
	for (int r = 0; r < runs; r++) {
		double t0 = bench_now_ns();
		zkp_circuit_shape(zkp_porep_circuit_fn, &j, &d, &err);
		double t1 = bench_now_ns();
		if (zkp_circuit_count(zkp_porep_circuit_fn, &j, &st, &err)) {
			fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
			return 1;
		}
		double t2 = bench_now_ns();
		if (zkp_circuit_witness(zkp_porep_circuit_fn, &j, &d, w, &err)) {
			fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
			return 1;
		}
		double t3 = bench_now_ns();
		memset(w, r & 0xff, wbytes);
		__asm__ volatile("" : : "r"(w) : "memory");
		double t4 = bench_now_ns();
		if (zkp_porep_witness_parallel(&s, j.witness, w, d.inputs, d.aux, pool, &err)) {
			fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
			return 1;
		}
		t_par[r] = bench_now_ns() - t4;
		t_shape[r] = t1 - t0;
		t_count[r] = t2 - t1;
		t_wit[r] = t3 - t2;
		t_floor[r] = t4 - t3;
	}
	double ms = 1e-6, wit = bench_median(t_wit, (size_t)runs),
	       flo = bench_median(t_floor, (size_t)runs);
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	char desc[128];
	zkp_porep_describe(desc, sizeof(desc), &s);

	json_begin_object(NULL);
	json_str("bench", "porep");
	json_str("shape", desc);
	json_num("runs", runs);
	json_num("constraints", (double)d.rows);
	json_num("inputs", (double)d.inputs);
	json_num("aux", (double)d.aux);
	json_num("nnz", (double)(st.nnz[0] + st.nnz[1] + st.nnz[2]));
	json_num("shape_ms", bench_median(t_shape, (size_t)runs) * ms);
	json_num("count_ms", bench_median(t_count, (size_t)runs) * ms);
	json_num("witness_ms", wit * ms);
	json_num("witness_ns_per_row", wit / (double)d.rows);
	json_num("witness_bytes", (double)wbytes);
	json_num("threads", threads);
	json_num("witness_parallel_ms", bench_median(t_par, (size_t)runs) * ms);
	json_num("floor_ms", flo * ms);
	json_num("witness_vs_floor", flo > 0 ? wit / flo : 0);
	json_num("peak_rss_mib", (double)u.ru_maxrss / 1024.0);
	json_end_object();
	json_done();
	free(w);
	free(t_shape);
	free(t_count);
	free(t_wit);
	free(t_floor);
	free(t_par);
	zkp_pool_free(pool);
	zkp_porep_dev_free(dev);
	return 0;
}
