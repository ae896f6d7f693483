/*
 * zkp porep seal | check | prove | verify: the development sealers that
 * write a C1 output (full: porep_seal.h; sparse: porep_sparse.h), the
 * check of a C1 against the partition circuit's rows without a key, and C2
 * from a C1 (include/zkpd/porep_c2.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zkp_cmds.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_io.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_c2.h"
#include "zkpd/porep_graph.h"
#include "zkpd/porep_seal.h"
#include "zkpd/porep_sparse.h"
#include "zkpd/pool.h"
#include "zkpd/rng.h"

static int usage(const char *cmd, const char *text)
{
	fprintf(stderr, "usage: zkp porep %s %s\n", cmd, text);
	return ZKP_EXIT_USAGE;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *seal_usage =
	"--sector-size SIZE (--random SEED | --data FILE) --prover-id HEX --sector-id N\n"
	"          --ticket HEX --seed HEX [--mode interactive|synthetic|ni] [--wrap] -o C1.json\n"
	"       zkp porep seal --sparse --sector-size SIZE --random SEED --prover-id HEX\n"
	"          --sector-id N --ticket HEX --seed HEX [--wrap] [--threads T] -o C1.json\n\n"
	"A DEVELOPMENT sealer: runs SDR over Filecoin's graph for the registered proof of\n"
	"SIZE and mode (V1_1 interactive by default), builds trees D, C and R, and writes\n"
	"the C1 output (the FFI's JSON, or with --wrap the lotus-bench/Curio wrapper).\n"
	"Sectors are sealed in memory: 2KiB and 8MiB in seconds, 512MiB needs ~6 GiB.\n"
	"--data: the unsealed sector, SIZE bytes of 32-byte field elements.\n\n"
	"--sparse writes a DEVELOPMENT C1 of a sector that is never sealed: no replica\n"
	"exists and no storage is proven. It computes only what the C1 reveals: the\n"
	"challenged nodes' labels in every layer over Filecoin's graph, random labels\n"
	"(a keyed PRF of SEED) for every other node, random data repeating every 8 MiB,\n"
	"and trees C and R hashed over the opened paths with random nodes elsewhere.\n"
	"zkpd accepts it as it accepts a full seal (challenges, parents, labels, paths,\n"
	"commitments, replica_id), so it proves and verifies at any size: 32GiB in\n"
	"about a second. Interactive proof versions only. --threads: default all CPUs.";

static int read_data(zkp_fr *out, const char *path, uint64_t nodes)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t b[32];
	uint64_t n = 0;
	for (; n < nodes && fread(b, 1, 32, f) == 32; n++)
		if (zkp_fr_from_le(&out[n], b)) {
			fprintf(stderr, "zkp porep seal: %s: node %llu (offset %llu) is not a field element\n",
				path, (unsigned long long)n, (unsigned long long)n * 32);
			fclose(f);
			return -1;
		}
	int extra = fgetc(f);
	fclose(f);
	if (n != nodes || extra != EOF) {
		fprintf(stderr, "zkp porep seal: %s: want exactly %llu bytes\n", path,
			(unsigned long long)nodes * 32);
		return -1;
	}
	return 0;
}

/* --sparse: the sparse development C1 (porep_sparse.h). */
static int seal_sparse(const zkp_porep_proof *p, uint64_t rseed, const uint8_t prover_id[32],
		       uint64_t sector_id, const uint8_t ticket[32], const uint8_t seed[32],
		       bool wrap, long threads, const char *out)
{
	zkp_error err = { 0 };
	zkp_pool *pool = NULL;
	zkp_porep_c1 *c1 = NULL;
	zkp_porep_sparse_stats st;
	uint8_t key[32];
	int rc = ZKP_EXIT_FAIL;

	if (threads < 1)
		threads = 1;
	if (zkp_pool_new(&pool, (unsigned)(threads - 1))) {
		fprintf(stderr, "zkp porep seal: cannot start %ld threads\n", threads);
		return ZKP_EXIT_FAIL;
	}
	zkp_porep_sparse_key(key, rseed);
	double t0 = now();
	if (zkp_porep_sparse_c1(&c1, p, key, prover_id, sector_id, ticket, seed, pool, &st, &err)) {
		fprintf(stderr, "zkp porep seal: %s\n", err.msg);
		goto out;
	}
	double t1 = now();
	if (zkp_porep_c1_write(c1, out, wrap, (int64_t)sector_id, &err)) {
		fprintf(stderr, "zkp porep seal: %s\n", err.msg);
		goto out;
	}
	printf("sparse         %s, %llu nodes, %u partition%s of %u challenges: a DEVELOPMENT C1, not a seal\n",
	       p->name, (unsigned long long)p->nodes, c1->partitions, c1->partitions == 1 ? "" : "s",
	       c1->challenges);
	printf("computed       %llu challenged nodes, %llu columns, %llu labels, %llu tree nodes in %.2f s on %ld thread%s\n",
	       (unsigned long long)st.challenged, (unsigned long long)st.columns,
	       (unsigned long long)st.labels, (unsigned long long)st.hashes, t1 - t0, threads,
	       threads == 1 ? "" : "s");
	printf("c1             %s%s, written in %.2f s; peak RSS %.1f MiB\n", out,
	       wrap ? " (wrapped)" : "", now() - t1, zkp_peak_rss_mib());
	rc = ZKP_EXIT_OK;
out:
	zkp_porep_c1_free(c1);
	zkp_pool_free(pool);
	return rc;
}

static int cmd_seal(int argc, char **argv)
{
	const char *size = NULL, *data_path = NULL, *out = NULL, *mode = "interactive";
	uint8_t prover_id[32], ticket[32], seed[32];
	bool have_prover = false, have_ticket = false, have_seed = false, random = false, wrap = false;
	uint64_t sector_id = 0, rseed = 0;
	bool have_sector = false, sparse = false, have_threads = false;
	long threads = (long)zkp_pool_default_threads();

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--sector-size") && has)
			size = argv[++i];
		else if (!strcmp(a, "--data") && has)
			data_path = argv[++i];
		else if (!strcmp(a, "--random") && has) {
			if (zkp_parse_seed("porep seal", argv[++i], &rseed))
				return ZKP_EXIT_USAGE;
			random = true;
		} else if (!strcmp(a, "--prover-id") && has) {
			if (zkp_parse_hex32("porep seal", a, argv[++i], prover_id))
				return ZKP_EXIT_USAGE;
			have_prover = true;
		} else if (!strcmp(a, "--ticket") && has) {
			if (zkp_parse_hex32("porep seal", a, argv[++i], ticket))
				return ZKP_EXIT_USAGE;
			have_ticket = true;
		} else if (!strcmp(a, "--seed") && has) {
			if (zkp_parse_hex32("porep seal", a, argv[++i], seed))
				return ZKP_EXIT_USAGE;
			have_seed = true;
		} else if (!strcmp(a, "--sector-id") && has) {
			if (zkp_parse_seed("porep seal", argv[++i], &sector_id))
				return ZKP_EXIT_USAGE;
			have_sector = true;
		} else if (!strcmp(a, "--mode") && has)
			mode = argv[++i];
		else if (!strcmp(a, "--wrap"))
			wrap = true;
		else if (!strcmp(a, "--sparse"))
			sparse = true;
		else if (!strcmp(a, "--threads") && has) {
			have_threads = true;
			if (zkp_parse_threads("porep seal", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
		} else if (!strcmp(a, "-o") && has)
			out = argv[++i];
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp porep seal %s\n", seal_usage);
			return ZKP_EXIT_OK;
		} else
			return usage("seal", seal_usage);
	}
	if (!size || !out || random == !!data_path || !have_prover || !have_ticket || !have_seed ||
	    !have_sector)
		return usage("seal", seal_usage);
	if (sparse && data_path) {
		fprintf(stderr, "zkp porep seal: --sparse makes its data from --random; --data is for a full seal\n");
		return ZKP_EXIT_USAGE;
	}
	if (!sparse && have_threads) {
		fprintf(stderr, "zkp porep seal: --threads is for --sparse; a full seal runs on one thread\n");
		return ZKP_EXIT_USAGE;
	}

	zkp_error err = { 0 };
	uint64_t bytes;
	zkp_porep_mode m;
	if (!strcmp(mode, "interactive"))
		m = ZKP_POREP_INTERACTIVE;
	else if (!strcmp(mode, "synthetic"))
		m = ZKP_POREP_SYNTHETIC;
	else if (!strcmp(mode, "ni") || !strcmp(mode, "non-interactive"))
		m = ZKP_POREP_NON_INTERACTIVE;
	else
		return usage("seal", seal_usage);
	if (zkp_porep_parse_size(&bytes, size, &err)) {
		fprintf(stderr, "zkp porep seal: %s\n", err.msg);
		return ZKP_EXIT_USAGE;
	}
	size_t nproofs;
	const zkp_porep_proof *all = zkp_porep_proofs(&nproofs), *p = NULL;
	for (size_t i = 0; i < nproofs; i++)
		if (all[i].sector_bytes == bytes && all[i].mode == m &&
		    (m != ZKP_POREP_INTERACTIVE || all[i].api == ZKP_POREP_V1_1))
			p = &all[i];
	zkp_porep_shape s;
	if (!p || zkp_porep_shape_for_size(&s, bytes, &err)) {
		fprintf(stderr, "zkp porep seal: no %s registered proof for %llu-byte sectors\n", mode,
			(unsigned long long)bytes);
		return ZKP_EXIT_USAGE;
	}
	if (sparse && m != ZKP_POREP_INTERACTIVE) {
		fprintf(stderr, "zkp porep seal: --sparse seals interactive proof versions only: %s PoRep draws its challenges from comm_r, which a sparse tree C cannot fix before the challenges are known\n",
			zkp_porep_mode_name(m));
		return ZKP_EXIT_USAGE;
	}
	if (sparse)
		return seal_sparse(p, rseed, prover_id, sector_id, ticket, seed, wrap, threads, out);

	int rc = ZKP_EXIT_FAIL;
	zkp_fr *data = malloc(s.nodes * sizeof(zkp_fr));
	zkp_porep_c1 *c1 = NULL;
	double t0 = now();
	if (!data) {
		fprintf(stderr, "zkp porep seal: no memory for %llu nodes\n", (unsigned long long)s.nodes);
		goto out;
	}
	if (random) {
		zkp_rng r;
		zkp_rng_seed(&r, rseed);
		for (uint64_t n = 0; n < s.nodes; n++) {
			uint64_t wide[8];
			for (int k = 0; k < 8; k++)
				wide[k] = zkp_rng_next(&r);
			zkp_fr_from_wide(&data[n], wide);
		}
	} else if (read_data(data, data_path, s.nodes)) {
		goto out;
	}
	if (zkp_porep_seal_c1(&c1, p, data, prover_id, sector_id, ticket, seed, &err) ||
	    zkp_porep_c1_write(c1, out, wrap, (int64_t)sector_id, &err)) {
		fprintf(stderr, "zkp porep seal: %s\n", err.msg);
		goto out;
	}
	printf("sealed         %s, %llu nodes, %u partition%s of %u challenges in %.2f s\n", p->name,
	       (unsigned long long)s.nodes, c1->partitions, c1->partitions == 1 ? "" : "s",
	       c1->challenges, now() - t0);
	printf("c1             %s%s\n", out, wrap ? " (wrapped)" : "");
	rc = ZKP_EXIT_OK;
out:
	zkp_porep_c1_free(c1);
	free(data);
	return rc;
}

/* Loads the C1, its registered proof and graph. */
static int load_c1(const char *cmd, const char *path, zkp_porep_c1 **c1,
		   const zkp_porep_proof **p, zkp_porep_graph *g)
{
	zkp_error err = { 0 };
	if (zkp_porep_c1_load(c1, path, &err) || zkp_porep_c1_proof(p, *c1, &err) ||
	    zkp_porep_graph_init_proof(g, *p, &err)) {
		fprintf(stderr, "zkp porep %s: %s\n", cmd, err.msg);
		return -1;
	}
	return 0;
}

static const char *prove_usage =
	"--c1 C1.json --key KEY --pce CIRCUIT.pce -o PROOF [--partition K] [--threads T]\n\n"
	"C2: proves every partition of the C1 (or only partition K) and writes the\n"
	"192-byte proofs concatenated. Before a proof is written its public inputs are\n"
	"derived from the C1's public data (challenges from the seed, parents from the\n"
	"graph), compared with the vanilla proofs, and the proof verified with them.\n"
	"--threads T: threads to prove on (default: every online CPU).";

static int cmd_prove(int argc, char **argv)
{
	const char *c1_path = NULL, *key = NULL, *pce_path = NULL, *out = NULL;
	long threads = zkp_pool_default_threads(), part = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--c1") && has)
			c1_path = argv[++i];
		else if (!strcmp(a, "--key") && has)
			key = argv[++i];
		else if (!strcmp(a, "--pce") && has)
			pce_path = argv[++i];
		else if (!strcmp(a, "-o") && has)
			out = argv[++i];
		else if (!strcmp(a, "--partition") && has)
			part = strtol(argv[++i], NULL, 10);
		else if (!strcmp(a, "--threads") && has) {
			if (zkp_parse_threads("porep prove", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp porep prove %s\n", prove_usage);
			return ZKP_EXIT_OK;
		} else
			return usage("prove", prove_usage);
	}
	if (!c1_path || !key || !pce_path || !out || part < -1)
		return usage("prove", prove_usage);

	int rc = ZKP_EXIT_FAIL;
	zkp_error err = { 0 };
	zkp_porep_c1 *c1 = NULL;
	const zkp_porep_proof *p;
	zkp_porep_graph g = { 0 };
	zkp_cli_prover lp;
	zkp_groth16_proof *proofs = NULL;
	memset(&lp, 0, sizeof(lp));
	if (load_c1("prove", c1_path, &c1, &p, &g))
		goto out;
	if (part >= (long)c1->partitions) {
		fprintf(stderr, "zkp porep prove: --partition %ld: the C1 has %u partitions\n", part,
			c1->partitions);
		goto out;
	}
	if (zkp_cli_prover_load(&lp, "porep prove", pce_path, key, threads))
		goto out;
	zkp_porep_shape label;
	if (!zkp_porep_label_decode(&label, zkp_pce_label(lp.pce)) || label.nodes != c1->shape.nodes ||
	    label.layers != c1->shape.layers || label.challenges != c1->shape.challenges) {
		fprintf(stderr, "zkp porep prove: %s is not the %s partition circuit (zkp porep circuit --sector-size writes it)\n",
			pce_path, p->name);
		goto out;
	}
	unsigned first = part < 0 ? 0 : (unsigned)part, count = part < 0 ? c1->partitions : 1;
	proofs = calloc(count, sizeof(*proofs));
	if (!proofs)
		goto out;
	for (unsigned k = first; k < first + count; k++) {
		zkp_groth16_prove_times t;
		if (zkp_porep_prove_partition(&proofs[k - first], &t, &lp.prover, c1, k, p, &g, &err)) {
			fprintf(stderr, "zkp porep prove: %s\n", err.msg);
			goto out;
		}
		fprintf(stderr, "zkp porep prove: partition %u proved and checked in %.2f s\n", k,
			t.total);
	}
	if (zkp_cli_write_proofs(out, proofs, count))
		goto out;
	printf("proof          %s: %u partition proof%s (%u bytes), every one verified\n", out, count,
	       count == 1 ? "" : "s", count * ZKP_GROTH16_PROOF_BYTES);
	rc = ZKP_EXIT_OK;
out:
	free(proofs);
	zkp_cli_prover_release(&lp);
	zkp_porep_graph_release(&g);
	zkp_porep_c1_free(c1);
	return rc;
}

static const char *check_usage =
	"--c1 C1.json (--pce CIRCUIT.pce | --sector-size SIZE) [--partition K] [--threads T]\n\n"
	"Checks a C1 against the PoRep partition circuit without a key: derives each\n"
	"partition's public inputs from the C1's public data (as prove does: challenges,\n"
	"parents, the challenged labels), builds its witness and checks every row,\n"
	"A.w * B.w = C.w. --pce checks the rows of that .pce; --sector-size synthesizes\n"
	"the size's circuit natively and checks each row as it is emitted, in one\n"
	"streaming pass with no file (32GiB: 12 to 20 s a partition on 2 cores).\n"
	"Default: every partition. On failure names the first failing row.\n"
	"Exit 0 every partition passes, 1 one fails or a file is refused, 2 usage.";

/* Partition k against a loaded .pce: its witness in memory, every row
 * checked with zkp_pce_check. */
static int check_pce(const zkp_pce *pce, const zkp_porep_c1 *c1, unsigned k, const zkp_fr *pub,
		     zkp_pool *pool, uint64_t *first_row, zkp_error *err)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	zkp_fr *w = malloc((d->n_inputs + d->n_aux) * sizeof(zkp_fr));
	int rc;
	if (!w)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for partition %u's witness", k);
	if (!(rc = zkp_porep_c1_witness_checked(w, d->n_inputs, d->n_aux, c1, k, pub, pool, err))) {
		zkp_error e = { 0 };
		if ((rc = zkp_pce_check(pce, w, first_row, pool, &e)))
			zkp_error_set(err, rc, "partition %u: %s", k, zkp_error_text(&e, rc));
	}
	free(w);
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	const char *c1_path = NULL, *pce_path = NULL, *size = NULL;
	long threads = (long)zkp_pool_default_threads(), part = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--c1") && has)
			c1_path = argv[++i];
		else if (!strcmp(a, "--pce") && has)
			pce_path = argv[++i];
		else if (!strcmp(a, "--sector-size") && has)
			size = argv[++i];
		else if (!strcmp(a, "--partition") && has) {
			uint64_t v;
			if (zkp_parse_u64("porep check", a, argv[++i], &v))
				return ZKP_EXIT_USAGE;
			part = v > 255 ? 255 : (long)v; /* checked against the C1 below */
		} else if (!strcmp(a, "--threads") && has) {
			if (zkp_parse_threads("porep check", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp porep check %s\n", check_usage);
			return ZKP_EXIT_OK;
		} else
			return usage("check", check_usage);
	}
	if (!c1_path || !pce_path == !size)
		return usage("check", check_usage);

	int rc = ZKP_EXIT_FAIL;
	zkp_error err = { 0 };
	zkp_porep_c1 *c1 = NULL;
	const zkp_porep_proof *p;
	zkp_porep_graph g = { 0 };
	zkp_pce *pce = NULL;
	zkp_pool *pool = NULL;
	zkp_fr *pub = NULL;
	if (threads < 1)
		threads = 1;
	double t0 = now();
	if (load_c1("check", c1_path, &c1, &p, &g))
		goto out;
	if (part >= (long)c1->partitions) {
		fprintf(stderr, "zkp porep check: --partition %ld: the C1 has %u partition%s\n", part,
			c1->partitions, c1->partitions == 1 ? "" : "s");
		rc = ZKP_EXIT_USAGE;
		goto out;
	}
	if (size) {
		uint64_t bytes;
		if (zkp_porep_parse_size(&bytes, size, &err)) {
			fprintf(stderr, "zkp porep check: %s\n", err.msg);
			rc = ZKP_EXIT_USAGE;
			goto out;
		}
		if (bytes != c1->sector_bytes) {
			fprintf(stderr, "zkp porep check: --sector-size %s, but %s is a %s C1 (%llu-byte sectors)\n",
				size, c1_path, p->name, (unsigned long long)c1->sector_bytes);
			goto out;
		}
	} else {
		zkp_porep_shape label;
		if (zkp_pce_load(&pce, pce_path, 0, &err)) {
			fprintf(stderr, "zkp porep check: %s\n", err.msg);
			goto out;
		}
		const zkp_pce_dims *d = zkp_pce_get_dims(pce);
		if (!zkp_porep_label_decode(&label, zkp_pce_label(pce)) ||
		    label.nodes != c1->shape.nodes || label.layers != c1->shape.layers ||
		    label.challenges != c1->shape.challenges ||
		    d->n_inputs != zkp_porep_inputs(&c1->shape)) {
			fprintf(stderr, "zkp porep check: %s is not the %s partition circuit (zkp porep circuit --sector-size writes it)\n",
				pce_path, p->name);
			goto out;
		}
	}
	if (zkp_pool_new(&pool, (unsigned)(threads - 1))) {
		fprintf(stderr, "zkp porep check: cannot start %ld threads\n", threads);
		goto out;
	}
	pub = malloc((zkp_porep_inputs(&c1->shape) - 1) * sizeof(zkp_fr));
	if (!pub) {
		fprintf(stderr, "zkp porep check: out of memory\n");
		goto out;
	}
	fprintf(stderr, "zkp porep check: %s (%s) loaded in %.2f s\n", c1_path, p->name, now() - t0);

	unsigned first = part < 0 ? 0 : (unsigned)part, count = part < 0 ? c1->partitions : 1;
	uint64_t rows = pce ? zkp_pce_get_dims(pce)->n_constraints : 0;
	for (unsigned k = first; k < first + count; k++) {
		uint64_t bad = UINT64_MAX;
		double t = now();
		int r = zkp_porep_c1_public_inputs(pub, c1, k, p, &g, &err);
		if (!r)
			r = pce ? check_pce(pce, c1, k, pub, pool, &bad, &err)
				: zkp_porep_c1_check_rows(c1, k, pub, pool, &rows, &bad, &err);
		if (r) {
			fprintf(stderr, "zkp porep check: %s\n", zkp_error_text(&err, r));
			if (r == ZKP_ERR_UNSATISFIED)
				printf("partition %-4u FAILED: row %llu of %llu is not satisfied (%.2f s)\n",
				       k, (unsigned long long)bad, (unsigned long long)rows,
				       now() - t);
			else
				printf("partition %-4u FAILED: %s (%.2f s)\n", k, zkp_err_name(r),
				       now() - t);
			goto out;
		}
		printf("partition %-4u passed: %llu rows satisfied%s in %.2f s\n", k,
		       (unsigned long long)rows, pce ? "" : " (streamed)", now() - t);
	}
	printf("checked        %u of %u partition%s of %s against %s in %.2f s; peak RSS %.1f MiB\n",
	       count, c1->partitions, c1->partitions == 1 ? "" : "s", c1_path,
	       pce ? pce_path : "the native circuit", now() - t0, zkp_peak_rss_mib());
	rc = ZKP_EXIT_OK;
out:
	free(pub);
	zkp_pool_free(pool);
	zkp_pce_free(pce);
	zkp_porep_graph_release(&g);
	zkp_porep_c1_free(c1);
	return rc;
}

static const char *verify_usage =
	"--vk VK --c1 C1.json --proof PROOF [--prover-id HEX --sector-id N]\n\n"
	"Verifies C2 proofs (one per partition) against public inputs derived from the\n"
	"C1's public data; with --prover-id and --sector-id also recomputes replica_id.\n"
	"Exit 0 valid, 1 invalid or refused, 2 usage.";

static int cmd_verify(int argc, char **argv)
{
	const char *vk_path = NULL, *c1_path = NULL, *proof_path = NULL;
	uint8_t prover_id[32];
	bool have_prover = false, have_sector = false;
	uint64_t sector_id = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--vk") && has)
			vk_path = argv[++i];
		else if (!strcmp(a, "--c1") && has)
			c1_path = argv[++i];
		else if (!strcmp(a, "--proof") && has)
			proof_path = argv[++i];
		else if (!strcmp(a, "--prover-id") && has) {
			if (zkp_parse_hex32("porep verify", a, argv[++i], prover_id))
				return ZKP_EXIT_USAGE;
			have_prover = true;
		} else if (!strcmp(a, "--sector-id") && has) {
			if (zkp_parse_seed("porep verify", argv[++i], &sector_id))
				return ZKP_EXIT_USAGE;
			have_sector = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp porep verify %s\n", verify_usage);
			return ZKP_EXIT_OK;
		} else
			return usage("verify", verify_usage);
	}
	if (!vk_path || !c1_path || !proof_path || have_prover != have_sector)
		return usage("verify", verify_usage);

	int rc = ZKP_EXIT_FAIL;
	zkp_error err = { 0 };
	zkp_porep_c1 *c1 = NULL;
	const zkp_porep_proof *p;
	zkp_porep_graph g = { 0 };
	zkp_groth16_pvk *pvk = NULL;
	zkp_groth16_proof *proofs = NULL;
	if (load_c1("verify", c1_path, &c1, &p, &g))
		goto out;
	if (have_prover && zkp_porep_c1_check_replica_id(c1, p, prover_id, sector_id, &err)) {
		fprintf(stderr, "zkp porep verify: %s\n", err.msg);
		goto out;
	}
	if (zkp_cli_pvk_load(&pvk, "porep verify", vk_path))
		goto out;
	proofs = calloc(c1->partitions, sizeof(*proofs));
	int got = proofs ? zkp_cli_read_proofs("porep verify", proof_path, proofs, c1->partitions) : -1;
	if (got < 0) {
		rc = ZKP_EXIT_USAGE;
		goto out;
	}
	if (got > 0 || zkp_porep_verify(pvk, proofs, c1, p, &g, &err)) {
		if (!got)
			fprintf(stderr, "zkp porep verify: %s\n", err.msg);
		printf("invalid\n");
		goto out;
	}
	printf("valid\n");
	rc = ZKP_EXIT_OK;
out:
	free(proofs);
	zkp_groth16_pvk_free(pvk);
	zkp_porep_graph_release(&g);
	zkp_porep_c1_free(c1);
	return rc;
}

int zkp_cmd_porep_c2(const char *sub, int argc, char **argv)
{
	if (!strcmp(sub, "seal"))
		return cmd_seal(argc, argv);
	if (!strcmp(sub, "prove"))
		return cmd_prove(argc, argv);
	if (!strcmp(sub, "check"))
		return cmd_check(argc, argv);
	return cmd_verify(argc, argv);
}
