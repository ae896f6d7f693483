/*
 * zkpd-bench snap: one SnapDeals partition's CPU side, timed on a
 * development update (a random sector sealed over a random graph and
 * updated with random data, snap_dev.h):
 *   decode   the partition's PartitionProof read from its bincode bytes
 *   check    the native check against the commitments (challenges, paths,
 *            apex tree, encoding)
 *   shape    the SHAPE pass; count: a ROWS pass into a counting builder
 *   witness  the WITNESS pass into the assignment, against the memset
 *            floor of the same bytes
 * and a projection of one 32 GiB partition's witness from the measured
 * time per row and the 32 GiB circuit's rows (counted by a shape pass).
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
#include "zkpd/snap.h"
#include "zkpd/snap_dev.h"
#include "zkpd/snap_vanilla.h"

static int usage(void)
{
	fprintf(stderr, "usage: zkpd-bench snap [--sector-size 1KiB..32KiB] [--partition K] "
			"[--runs R] [--seed S]\n");
	return 2;
}

static int fail(const zkp_error *err)
{
	fprintf(stderr, "zkpd-bench snap: %s\n", err->msg);
	return 1;
}

int bench_snap_main(int argc, char **argv)
{
	const char *size = "32KiB";
	int runs = 5;
	unsigned k = 0;
	uint64_t seed = 1;
	for (int i = 1; i < argc; i++) {
		bool has = i + 1 < argc;
		if (!strcmp(argv[i], "--sector-size") && has)
			size = argv[++i];
		else if (!strcmp(argv[i], "--runs") && has)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--partition") && has)
			k = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && has)
			seed = strtoull(argv[++i], NULL, 0);
		else
			return usage();
	}
	if (runs < 1 || runs > 100)
		return usage();
	zkp_error err = { 0 };
	zkp_snap_shape s, big;
	uint64_t bytes;
	if (zkp_porep_parse_size(&bytes, size, &err) || zkp_snap_shape_for_size(&s, bytes, &err) ||
	    zkp_snap_shape_for_size(&big, 32ULL << 30, &err))
		return fail(&err);
	if (k >= s.partitions)
		return usage();
	zkp_porep_shape ps = { .nodes = s.nodes, .layers = 2, .challenges = 1,
			       .tree = { s.tree[0], s.tree[1], s.tree[2] } };
	zkp_porep_dev *sec = NULL;
	zkp_snap_dev *d = NULL;
	if (zkp_porep_dev_new(&sec, &ps, seed, &err))
		return fail(&err);
	zkp_fr *data = malloc(s.nodes * sizeof(zkp_fr));
	if (!data)
		return 1;
	for (uint64_t n = 0; n < s.nodes; n++)
		zkp_fr_set_u64(&data[n], seed * 1000003 + n);
	zkp_snap_witness w;
	uint8_t *buf = NULL;
	size_t len;
	if (zkp_snap_dev_new(&d, &s, zkp_porep_dev_sector(sec), data, s.hs[3], &err) ||
	    zkp_snap_dev_partition(d, k, &w, NULL, &err) ||
	    zkp_snap_vanilla_encode(&buf, &len, &s, &w, &err))
		return fail(&err);

	zkp_snap_job j = { &s, &w };
	zkp_circuit_dims dims, big_dims;
	zkp_snap_job big_job = { &big, NULL };
	if (zkp_circuit_shape(zkp_snap_circuit_fn, &j, &dims, &err) ||
	    zkp_circuit_shape(zkp_snap_circuit_fn, &big_job, &big_dims, &err))
		return fail(&err);
	size_t wbytes = (size_t)(dims.inputs + dims.aux) * sizeof(zkp_fr);
	zkp_fr *wv = malloc(wbytes);
	double *t[6];
	for (int i = 0; i < 6; i++)
		t[i] = calloc((size_t)runs, sizeof(double));
	if (!wv || !t[5])
		return 1;
	zkp_pce_builder_stats st;
	for (int r = 0; r < runs; r++) {
		zkp_snap_vanilla v;
		double t0 = bench_now_ns();
		if (zkp_snap_vanilla_decode(&v, buf, len, &s, &err))
			return fail(&err);
		double t1 = bench_now_ns();
		if (zkp_snap_vanilla_check(&v, k, w.h, &w.comm_r_old, &w.comm_d_new, &w.comm_r_new, &err))
			return fail(&err);
		double t2 = bench_now_ns();
		zkp_snap_vanilla_release(&v);
		zkp_circuit_shape(zkp_snap_circuit_fn, &j, &dims, &err);
		double t3 = bench_now_ns();
		if (zkp_circuit_count(zkp_snap_circuit_fn, &j, &st, &err))
			return fail(&err);
		double t4 = bench_now_ns();
		if (zkp_circuit_witness(zkp_snap_circuit_fn, &j, &dims, wv, &err))
			return fail(&err);
		double t5 = bench_now_ns();
		memset(wv, r & 0xff, wbytes);
		__asm__ volatile("" : : "r"(wv) : "memory");
		double t6 = bench_now_ns();
		t[0][r] = t1 - t0;
		t[1][r] = t2 - t1;
		t[2][r] = t3 - t2;
		t[3][r] = t4 - t3;
		t[4][r] = t5 - t4;
		t[5][r] = t6 - t5;
	}
	double ms = 1e-6, med[6];
	for (int i = 0; i < 6; i++)
		med[i] = bench_median(t[i], (size_t)runs);
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	char desc[160];
	zkp_snap_describe(desc, sizeof(desc), &s);

	json_begin_object(NULL);
	json_str("bench", "snap");
	json_str("shape", desc);
	json_num("partition", k);
	json_num("runs", runs);
	json_num("constraints", (double)dims.rows);
	json_num("aux", (double)dims.aux);
	json_num("nnz", (double)(st.nnz[0] + st.nnz[1] + st.nnz[2]));
	json_num("vanilla_bytes", (double)len);
	json_num("decode_ms", med[0] * ms);
	json_num("check_ms", med[1] * ms);
	json_num("shape_ms", med[2] * ms);
	json_num("count_ms", med[3] * ms);
	json_num("witness_ms", med[4] * ms);
	json_num("witness_ns_per_row", med[4] / (double)dims.rows);
	json_num("floor_ms", med[5] * ms);
	json_num("witness_vs_floor", med[5] > 0 ? med[4] / med[5] : 0);
	json_num("constraints_32gib", (double)big_dims.rows);
	json_num("witness_32gib_projected_s", med[4] / (double)dims.rows * (double)big_dims.rows * 1e-9);
	json_num("peak_rss_mib", (double)u.ru_maxrss / 1024.0);
	json_end_object();
	json_done();
	for (int i = 0; i < 6; i++)
		free(t[i]);
	free(wv);
	free(buf);
	free(data);
	zkp_snap_dev_free(d);
	zkp_porep_dev_free(sec);
	return 0;
}
