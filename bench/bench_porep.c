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
 * With --c1 FILE it measures C2's CPU side on a real C1 instead (bench_c1).
 * Medians of --runs runs; one JSON object on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_c2.h"
#include "zkpd/porep_graph.h"
#include "zkpd/porep_dev.h"
#include "zkpd/pool.h"

static int usage(void)
{
	fprintf(stderr, "usage: zkpd-bench porep [--sector-size 2KiB | --nodes N --layers L "
			"--challenges C --tree B-S-T] [--runs R] [--threads T] [--seed S]\n"
			"       zkpd-bench porep --c1 C1.json [--runs R] [--threads T]\n"
			"(a development sector holds at most 2^16 nodes)\n");
	return 2;
}

static long max_rss_kib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}

/*
 * --c1: what C2 costs per partition of a real C1 (from zkp porep seal or a
 * storage provider): parsing the C1 (time, and the growth of peak RSS over
 * the file's size), deriving and checking every partition's public inputs,
 * partition 0's witness sequentially and over the thread pool against the
 * memset floor of its bytes, the share of bit-valued variables, and a
 * projection of one 32 GiB partition's witness from the measured time per
 * row and the 32 GiB circuit's rows.
 */
static int bench_c1(const char *path, int runs, int threads)
{
	zkp_error err = { 0 };
	zkp_porep_c1 *c1 = NULL;
	const zkp_porep_proof *p = NULL;
	zkp_porep_graph g = { 0 };
	zkp_pool *pool = NULL;
	double *t_parse = calloc((size_t)runs, sizeof(double)),
	       *t_derive = calloc((size_t)runs, sizeof(double)),
	       *t_wit = calloc((size_t)runs, sizeof(double)),
	       *t_par = calloc((size_t)runs, sizeof(double)),
	       *t_floor = calloc((size_t)runs, sizeof(double));
	if (!t_parse || !t_derive || !t_wit || !t_par || !t_floor ||
	    zkp_pool_new(&pool, (unsigned)threads - 1)) {
		fprintf(stderr, "zkpd-bench porep: no memory or threads\n");
		return 1;
	}
	FILE *f = fopen(path, "rb");
	long file_bytes = -1;
	if (f && !fseek(f, 0, SEEK_END))
		file_bytes = ftell(f);
	if (f)
		fclose(f);
	long rss0 = max_rss_kib(), rss_parse = 0;
	for (int r = 0; r < runs; r++) {
		zkp_porep_c1_free(c1);
		c1 = NULL;
		double t0 = bench_now_ns();
		if (zkp_porep_c1_load(&c1, path, &err)) {
			fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
			return 1;
		}
		t_parse[r] = bench_now_ns() - t0;
		if (!r)
			rss_parse = max_rss_kib();
	}
	if (zkp_porep_c1_proof(&p, c1, &err) || zkp_porep_graph_init_proof(&g, p, &err)) {
		fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
		return 1;
	}
	const size_t n_pub = (size_t)zkp_porep_inputs(&c1->shape) - 1;
	zkp_fr *pub = malloc(n_pub * sizeof(zkp_fr));
	zkp_porep_job j = { &c1->shape, NULL };
	zkp_circuit_dims d;
	if (!pub || zkp_circuit_shape(zkp_porep_circuit_fn, &j, &d, &err)) {
		fprintf(stderr, "zkpd-bench porep: %s\n", pub ? err.msg : "no memory");
		return 1;
	}
	size_t wbytes = (size_t)(d.inputs + d.aux) * sizeof(zkp_fr);
	zkp_fr *w = malloc(wbytes);
	if (!w) {
		fprintf(stderr, "zkpd-bench porep: no memory for %zu witness bytes\n", wbytes);
		return 1;
	}
	zkp_porep_witness wit;
	zkp_porep_c1_witness(c1, 0, &wit);
	j.witness = &wit;
	for (int r = 0; r < runs; r++) {
		double t0 = bench_now_ns();
		for (unsigned k = 0; k < c1->partitions; k++)
			if (zkp_porep_c1_public_inputs(pub, c1, k, p, &g, &err)) {
				fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
				return 1;
			}
		double t1 = bench_now_ns();
		if (zkp_circuit_witness(zkp_porep_circuit_fn, &j, &d, w, &err)) {
			fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
			return 1;
		}
		double t2 = bench_now_ns();
		memset(w, r & 0xff, wbytes);
		__asm__ volatile("" : : "r"(w) : "memory");
		double t3 = bench_now_ns();
		if (zkp_porep_witness_parallel(&c1->shape, &wit, w, d.inputs, d.aux, pool, &err)) {
			fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
			return 1;
		}
		t_par[r] = bench_now_ns() - t3;
		t_derive[r] = t1 - t0;
		t_wit[r] = t2 - t1;
		t_floor[r] = t3 - t2;
	}
	/* Variables whose value is 0 or 1 (bits, mostly): what a bit-packed
	 * representation would hold in one bit instead of 32 bytes. */
	uint64_t bits = 0;
	zkp_fr zero, one;
	memset(&zero, 0, sizeof(zero));
	zkp_fr_set_one(&one);
	for (uint64_t i = 0; i < d.inputs + d.aux; i++)
		bits += zkp_fr_eq(&w[i], &zero) || zkp_fr_eq(&w[i], &one);

	/* One 32 GiB partition: its rows from the shape pass (no values). */
	zkp_porep_shape s32;
	zkp_circuit_dims d32;
	zkp_porep_job j32 = { &s32, NULL };
	if (zkp_porep_shape_for_size(&s32, 32ULL << 30, &err) ||
	    zkp_circuit_shape(zkp_porep_circuit_fn, &j32, &d32, &err)) {
		fprintf(stderr, "zkpd-bench porep: %s\n", err.msg);
		return 1;
	}
	double ms = 1e-6, wit_ns = bench_median(t_wit, (size_t)runs),
	       par_ns = bench_median(t_par, (size_t)runs), flo = bench_median(t_floor, (size_t)runs),
	       parse_ns = bench_median(t_parse, (size_t)runs);
	double per_row = wit_ns / (double)d.rows, per_row_par = par_ns / (double)d.rows;
	double bytes32 = (double)(d32.inputs + d32.aux) * (double)sizeof(zkp_fr);
	char desc[128];
	zkp_porep_describe(desc, sizeof(desc), &c1->shape);

	json_begin_object(NULL);
	json_str("bench", "porep-c1");
	json_str("c1", path);
	json_str("registered_proof", c1->registered_proof);
	json_str("shape", desc);
	json_num("partitions", c1->partitions);
	json_num("challenges_per_partition", c1->challenges);
	json_num("runs", runs);
	json_num("threads", threads);
	json_num("c1_bytes", (double)file_bytes);
	json_num("parse_ms", parse_ns * ms);
	json_num("parse_mb_per_s", parse_ns > 0 ? (double)file_bytes / parse_ns * 1e3 : 0);
	json_num("parse_peak_rss_growth_mib", (double)(rss_parse - rss0) / 1024.0);
	json_num("parse_peak_rss_growth_over_file",
		 file_bytes > 0 ? (double)(rss_parse - rss0) * 1024.0 / (double)file_bytes : 0);
	json_num("derive_all_partitions_ms", bench_median(t_derive, (size_t)runs) * ms);
	json_num("constraints", (double)d.rows);
	json_num("witness_bytes", (double)wbytes);
	json_num("witness_ms", wit_ns * ms);
	json_num("witness_ns_per_row", per_row);
	json_num("witness_parallel_ms", par_ns * ms);
	json_num("floor_ms", flo * ms);
	json_num("witness_vs_floor", flo > 0 ? wit_ns / flo : 0);
	json_num("witness_parallel_vs_floor", flo > 0 ? par_ns / flo : 0);
	json_num("bit_valued_share", (double)bits / (double)(d.inputs + d.aux));
	json_begin_object("projection_32gib_partition");
	json_num("constraints", (double)d32.rows);
	json_num("witness_bytes", bytes32);
	json_num("witness_bytes_bits_packed",
		 bytes32 * (1.0 - (double)bits / (double)(d.inputs + d.aux)) +
			 (double)(d32.inputs + d32.aux) / 8.0);
	json_num("witness_s", per_row * (double)d32.rows * 1e-9);
	json_num("witness_parallel_s", per_row_par * (double)d32.rows * 1e-9);
	json_end_object();
	json_num("peak_rss_mib", (double)max_rss_kib() / 1024.0);
	json_end_object();
	json_done();
	free(w);
	free(pub);
	free(t_parse);
	free(t_derive);
	free(t_wit);
	free(t_par);
	free(t_floor);
	zkp_porep_graph_release(&g);
	zkp_porep_c1_free(c1);
	zkp_pool_free(pool);
	return 0;
}

int bench_porep_main(int argc, char **argv)
{
	zkp_porep_shape s = { 0 };
	const char *size = "2KiB";
	int runs = 5, threads = (int)zkp_pool_default_threads();
	unsigned long long seed = 1;
	zkp_error err = { 0 };

	const char *c1 = NULL;
	for (int i = 1; i < argc; i++) {
		bool has = i + 1 < argc;
		if (!strcmp(argv[i], "--c1") && has)
			c1 = argv[++i];
		else if (!strcmp(argv[i], "--sector-size") && has)
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
	if (c1)
		return bench_c1(c1, runs, threads);
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
