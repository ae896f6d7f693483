/*
 * zkp porep circuit: Filecoin's PoRep partition circuit, synthesized
 * natively (include/zkpd/porep.h), written as a .pce or only counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
#include "zkpd/pool.h"
#include "zkpd/porep_dev.h"
#include "zkpd/synth.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp porep dev-witness (--sector-size 2KiB | --nodes N --layers L\n"
		"                          --challenges C --tree B-S-T) [--seed S] -o FILE.wtns\n\n"
		"Writes the witness of one partition of a DEVELOPMENT sector: random data\n"
		"labelled over a random parent graph (not Filecoin's), with native trees. It\n"
		"satisfies the circuit `zkp porep circuit` writes for the same shape, so the\n"
		"circuit can be checked, set up, proved and verified end to end; it is not a\n"
		"seal. At most 2^16 nodes (2KiB or a test shape).\n\n"
		"usage: zkp porep circuit (--sector-size SIZE | --nodes N --layers L --challenges C\n"
		"                          --tree B-S-T) (-o FILE.pce [--in-memory [--threads T]]\n"
		"                          | --count) [--json]\n\n"
		"Synthesizes one partition of Filecoin's StackedDRG PoRep circuit row for row as\n"
		"rust-fil-proofs does (blank: no witness) and writes it as a .pce through the\n"
		"two-pass streaming builder, or with --count only counts it.\n\n"
		"  --sector-size SIZE  a published size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB\n"
		"  --nodes N           test shape: nodes (a power of two)\n"
		"  --layers L          test shape: 2 or 11\n"
		"  --challenges C      test shape: challenges per partition\n"
		"  --tree B-S-T        test shape: tree C/R arities, e.g. 8-0-0, 8-8-0, 8-4-2\n"
		"  -o FILE             write the circuit (atomically) to FILE\n"
		"  --in-memory         with -o: hold the rows in memory (about 8 bytes a non-zero,\n"
		"                      5.8 GB at 32GiB) and synthesize once, the challenges\n"
		"                      spread over --threads threads; the same file\n"
		"  --threads T         threads for --in-memory (default: every online CPU)\n"
		"  --count             write nothing; print the structural fingerprint\n"
		"  --json              one JSON object on stdout: constraints (synthesized rows),\n"
		"                      rows (with the prover's input rows), inputs (with ONE), aux,\n"
		"                      a_aux, b_input, b_aux, nnz_a, nnz_b, nnz_c (with the input\n"
		"                      rows' one A term each)\n\n"
		"On one core the 32GiB circuit counts in about 30 s and writes in about 50 s\n"
		"(three passes, under 50 MiB of memory, a 4.3 GB file); --in-memory writes it\n"
		"in one pass on every core, with a 6.3 GiB peak.\n");
}

/* The witness of a development sector's partition, as a .wtns. */
static int write_dev_witness(const zkp_porep_shape *s, uint64_t seed, const char *out,
			     const char *desc)
{
	zkp_porep_dev *dev = NULL;
	zkp_fr *w = NULL;
	zkp_error err = { 0 };
	zkp_circuit_dims d;
	int rc = zkp_porep_dev_new(&dev, s, seed, &err);
	if (rc) {
		fprintf(stderr, "zkp porep dev-witness: %s\n", err.msg);
		return rc == ZKP_ERR_INVAL ? ZKP_EXIT_USAGE : ZKP_EXIT_FAIL;
	}
	zkp_porep_job job = { s, zkp_porep_dev_witness(dev) };
	if (!(rc = zkp_circuit_shape(zkp_porep_circuit_fn, &job, &d, &err))) {
		w = malloc((d.inputs + d.aux) * sizeof(zkp_fr));
		if (!w)
			rc = zkp_error_set(&err, ZKP_ERR_NOMEM, "no memory for %llu witness values",
					   (unsigned long long)(d.inputs + d.aux));
	}
	if (!rc)
		rc = zkp_circuit_witness(zkp_porep_circuit_fn, &job, &d, w, &err);
	if (!rc)
		rc = zkp_synth_write_wtns(out, w, d.inputs + d.aux, &err);
	if (rc)
		fprintf(stderr, "zkp porep dev-witness: %s\n", zkp_error_text(&err, rc));
	else
		printf("witness        %s: %llu values (%llu inputs) of a development sector (%s, seed %llu)\n",
		       out, (unsigned long long)(d.inputs + d.aux), (unsigned long long)d.inputs,
		       desc, (unsigned long long)seed);
	free(w);
	zkp_porep_dev_free(dev);
	return rc ? ZKP_EXIT_FAIL : ZKP_EXIT_OK;
}

/* -o with --in-memory: one synthesis pass, the challenges on a pool. */
static int write_in_memory(const zkp_porep_shape *s, const char *out, const char *title,
			   bool json, unsigned threads)
{
	zkp_pool *pool = NULL;
	zkp_pce_builder_stats st;
	zkp_error err = { 0 };
	if (zkp_pool_new(&pool, threads - 1)) {
		fprintf(stderr, "zkp porep circuit: cannot start %u threads\n", threads);
		return ZKP_EXIT_FAIL;
	}
	double t0 = zkp_now();
	int rc = zkp_porep_circuit_write_parallel(s, out, &st, pool, &err);
	double secs = zkp_now() - t0;
	zkp_pool_free(pool);
	if (rc) {
		fprintf(stderr, "zkp porep circuit: %s (%s)\n", zkp_error_text(&err, rc),
			zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}
	zkp_circuit_cli_report(title, &st, json, out);
	fprintf(stderr, "zkp porep circuit: written in %.1f s on %u threads, peak RSS %.1f MiB\n",
		secs, threads, zkp_peak_rss_mib());
	return ZKP_EXIT_OK;
}

static int circuit(int argc, char **argv, bool dev_witness)
{
	zkp_porep_shape s = { 0 };
	const char *out = NULL, *size = NULL;
	bool count = false, json = false, test_shape = false, in_memory = false, threads_set = false;
	uint64_t v, seed = 1;
	long threads = (long)zkp_pool_default_threads();

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(a, "--count") && !dev_witness) {
			count = true;
		} else if (!strcmp(a, "--seed") && has && dev_witness) {
			if (zkp_parse_seed("porep dev-witness", argv[++i], &seed))
				return ZKP_EXIT_USAGE;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--in-memory") && !dev_witness) {
			in_memory = true;
		} else if (!strcmp(a, "--threads") && has && !dev_witness) {
			if (zkp_parse_threads("porep circuit", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
			threads_set = true;
		} else if (!strcmp(a, "-o") && has) {
			out = argv[++i];
		} else if (!strcmp(a, "--sector-size") && has) {
			size = argv[++i];
		} else if (!strcmp(a, "--nodes") && has) {
			if (zkp_parse_u64("porep circuit", a, argv[++i], &s.nodes))
				return ZKP_EXIT_USAGE;
			test_shape = true;
		} else if (!strcmp(a, "--layers") && has) {
			if (zkp_parse_u64("porep circuit", a, argv[++i], &v))
				return ZKP_EXIT_USAGE;
			s.layers = v > 255 ? 255 : (unsigned)v; /* shape_check names it */
			test_shape = true;
		} else if (!strcmp(a, "--challenges") && has) {
			if (zkp_parse_u64("porep circuit", a, argv[++i], &v))
				return ZKP_EXIT_USAGE;
			s.challenges = v > 65535 ? 65535 : (unsigned)v; /* shape_check names it */
			test_shape = true;
		} else if (!strcmp(a, "--tree") && has) {
			if (zkp_parse_tree("porep circuit", argv[++i], s.tree))
				return ZKP_EXIT_USAGE;
			test_shape = true;
		} else {
			fprintf(stderr, "zkp porep: unexpected argument '%s'\n", a);
			help(stderr);
			return ZKP_EXIT_USAGE;
		}
	}
	if (!!size == test_shape) {
		fprintf(stderr, "zkp porep circuit: give --sector-size, or --nodes, --layers, "
				"--challenges and --tree for a test shape\n");
		return ZKP_EXIT_USAGE;
	}
	if (!!out == count) {
		fprintf(stderr, "zkp porep: give -o FILE%s\n", dev_witness ? "" : " or --count");
		return ZKP_EXIT_USAGE;
	}
	if ((in_memory && count) || (threads_set && !in_memory)) {
		fprintf(stderr, "zkp porep circuit: %s\n",
			count ? "--in-memory writes a file: give -o FILE, not --count"
			      : "--threads is for --in-memory; the streaming builder runs on one thread");
		return ZKP_EXIT_USAGE;
	}

	zkp_error err = { 0 };
	int rc;
	if (size) {
		uint64_t bytes;
		if ((rc = zkp_porep_parse_size(&bytes, size, &err)) ||
		    (rc = zkp_porep_shape_for_size(&s, bytes, &err))) {
			fprintf(stderr, "zkp porep circuit: %s\n", err.msg);
			return ZKP_EXIT_USAGE;
		}
	}
	if ((rc = zkp_porep_shape_check(&s, &err))) {
		fprintf(stderr, "zkp porep circuit: %s\n", err.msg);
		return ZKP_EXIT_USAGE;
	}

	char desc[128];
	zkp_porep_describe(desc, sizeof(desc), &s);
	if (dev_witness)
		return write_dev_witness(&s, seed, out, desc);
	zkp_porep_job job = { &s, NULL };
	uint8_t label[ZKP_PCE_LABEL_BYTES];
	zkp_porep_label_encode(label, &s);
	char title[192];
	snprintf(title, sizeof(title), "Filecoin StackedDRG PoRep partition, %s", desc);
	if (in_memory)
		return write_in_memory(&s, out, title, json, (unsigned)threads);
	return zkp_circuit_cli_run("porep circuit", zkp_porep_circuit_fn, &job, label, out, title,
				   json);
}

int zkp_cmd_porep(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "circuit"))
		return circuit(argc - 1, argv + 1, false);
	if (argc >= 2 && !strcmp(argv[1], "dev-witness"))
		return circuit(argc - 1, argv + 1, true);
	if (argc >= 2 && (!strcmp(argv[1], "seal") || !strcmp(argv[1], "prove") ||
			  !strcmp(argv[1], "verify") || !strcmp(argv[1], "check")))
		return zkp_cmd_porep_c2(argv[1], argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		help(stdout);
		return ZKP_EXIT_OK;
	}
	fprintf(stderr, "zkp porep: expected a subcommand: circuit, dev-witness, seal, check, prove or verify\n");
	help(stderr);
	return ZKP_EXIT_USAGE;
}
