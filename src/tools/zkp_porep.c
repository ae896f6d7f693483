/*
 * zkp porep circuit: Filecoin's PoRep partition circuit, synthesized
 * natively (include/zkpd/porep.h), written as a .pce or only counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "zkp_cmds.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
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
		"                          --tree B-S-T) (-o FILE.pce | --count) [--json]\n\n"
		"Synthesizes one partition of Filecoin's StackedDRG PoRep circuit row for row as\n"
		"rust-fil-proofs does (blank: no witness) and writes it as a .pce through the\n"
		"two-pass streaming builder, or with --count only counts it.\n\n"
		"  --sector-size SIZE  a published size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB\n"
		"  --nodes N           test shape: nodes (a power of two)\n"
		"  --layers L          test shape: 2 or 11\n"
		"  --challenges C      test shape: challenges per partition\n"
		"  --tree B-S-T        test shape: tree C/R arities, e.g. 8-0-0, 8-8-0, 8-4-2\n"
		"  -o FILE             write the circuit (atomically) to FILE\n"
		"  --count             write nothing; print the structural fingerprint\n"
		"  --json              one JSON object on stdout: constraints (synthesized rows),\n"
		"                      rows (with the prover's input rows), inputs (with ONE), aux,\n"
		"                      a_aux, b_input, b_aux, nnz_a, nnz_b, nnz_c (with the input\n"
		"                      rows' one A term each)\n\n"
		"The 32GiB circuit counts in about 40 s and writes in about 100 s (three passes,\n"
		"under 50 MiB of memory, a 4.3 GB file).\n");
}

static int parse_u64(const char *opt, const char *arg, uint64_t *v)
{
	char *end;
	unsigned long long x = strtoull(arg, &end, 10);
	if (!*arg || *end || arg[0] == '-') {
		fprintf(stderr, "zkp porep circuit: bad %s '%s'\n", opt, arg);
		return -1;
	}
	*v = x;
	return 0;
}

static int parse_tree(const char *arg, unsigned tree[3])
{
	unsigned a, b, c;
	char extra;
	if (sscanf(arg, "%u-%u-%u%c", &a, &b, &c, &extra) == 3) {
		tree[0] = a, tree[1] = b, tree[2] = c;
		return 0;
	}
	if (sscanf(arg, "%u-%u%c", &a, &b, &extra) == 2) {
		tree[0] = a, tree[1] = b, tree[2] = 0;
		return 0;
	}
	if (sscanf(arg, "%u%c", &a, &extra) == 1) {
		tree[0] = a, tree[1] = tree[2] = 0;
		return 0;
	}
	fprintf(stderr, "zkp porep circuit: bad --tree '%s' (expected e.g. 8-8-0)\n", arg);
	return -1;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long peak_rss_kib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
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

static int circuit(int argc, char **argv, bool dev_witness)
{
	zkp_porep_shape s = { 0 };
	const char *out = NULL, *size = NULL;
	bool count = false, json = false, test_shape = false;
	uint64_t v, seed = 1;

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
		} else if (!strcmp(a, "-o") && has) {
			out = argv[++i];
		} else if (!strcmp(a, "--sector-size") && has) {
			size = argv[++i];
		} else if (!strcmp(a, "--nodes") && has) {
			if (parse_u64(a, argv[++i], &s.nodes))
				return ZKP_EXIT_USAGE;
			test_shape = true;
		} else if (!strcmp(a, "--layers") && has) {
			if (parse_u64(a, argv[++i], &v))
				return ZKP_EXIT_USAGE;
			s.layers = v > 255 ? 255 : (unsigned)v; /* shape_check names it */
			test_shape = true;
		} else if (!strcmp(a, "--challenges") && has) {
			if (parse_u64(a, argv[++i], &v))
				return ZKP_EXIT_USAGE;
			s.challenges = v > 65535 ? 65535 : (unsigned)v; /* shape_check names it */
			test_shape = true;
		} else if (!strcmp(a, "--tree") && has) {
			if (parse_tree(argv[++i], s.tree))
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
	zkp_pce_builder_stats st;
	zkp_porep_job job = { &s, NULL };
	double t0 = now();
	if (count) {
		rc = zkp_circuit_count(zkp_porep_circuit_fn, &job, &st, &err);
	} else {
		uint8_t label[ZKP_PCE_LABEL_BYTES];
		zkp_porep_label_encode(label, &s);
		rc = zkp_circuit_write(zkp_porep_circuit_fn, &job, out, label, &st, &err);
	}
	double secs = now() - t0;
	if (rc) {
		fprintf(stderr, "zkp porep circuit: %s (%s)\n", zkp_error_text(&err, rc),
			zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}

	const uint64_t in = st.n_inputs;
	if (json) {
		printf("{\"constraints\": %llu, \"rows\": %llu, \"inputs\": %llu, \"aux\": %llu, "
		       "\"a_aux\": %llu, \"b_input\": %llu, \"b_aux\": %llu, \"nnz_a\": %llu, "
		       "\"nnz_b\": %llu, \"nnz_c\": %llu}\n",
		       (unsigned long long)st.rows, (unsigned long long)(st.rows + in),
		       (unsigned long long)in, (unsigned long long)st.n_aux,
		       (unsigned long long)st.a_aux, (unsigned long long)st.b_input,
		       (unsigned long long)st.b_aux, (unsigned long long)(st.nnz[0] + in),
		       (unsigned long long)st.nnz[1], (unsigned long long)st.nnz[2]);
	} else {
		printf("circuit        Filecoin StackedDRG PoRep partition, %s\n", desc);
		printf("constraints    %llu (%llu rows with the %llu input rows)\n",
		       (unsigned long long)st.rows, (unsigned long long)(st.rows + in),
		       (unsigned long long)in);
		printf("inputs         %llu (including ONE)\n", (unsigned long long)in);
		printf("aux            %llu\n", (unsigned long long)st.n_aux);
		printf("density        A aux %llu, B inputs %llu, B aux %llu\n",
		       (unsigned long long)st.a_aux, (unsigned long long)st.b_input,
		       (unsigned long long)st.b_aux);
		printf("nnz            A %llu, B %llu, C %llu (A with the input rows)\n",
		       (unsigned long long)(st.nnz[0] + in), (unsigned long long)st.nnz[1],
		       (unsigned long long)st.nnz[2]);
		if (out)
			printf("file           %s\n", out);
	}
	fprintf(stderr, "zkp porep circuit: %s in %.1f s, peak RSS %.1f MiB\n",
		count ? "counted" : "written", secs, (double)peak_rss_kib() / 1024.0);
	return ZKP_EXIT_OK;
}

int zkp_cmd_porep(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "circuit"))
		return circuit(argc - 1, argv + 1, false);
	if (argc >= 2 && !strcmp(argv[1], "dev-witness"))
		return circuit(argc - 1, argv + 1, true);
	if (argc >= 2 && (!strcmp(argv[1], "seal") || !strcmp(argv[1], "prove") ||
			  !strcmp(argv[1], "verify")))
		return zkp_cmd_porep_c2(argv[1], argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		help(stdout);
		return ZKP_EXIT_OK;
	}
	fprintf(stderr, "zkp porep: expected a subcommand: circuit, dev-witness, seal, prove or verify\n");
	help(stderr);
	return ZKP_EXIT_USAGE;
}
