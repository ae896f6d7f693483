/*
 * zkp snap circuit: Filecoin's SnapDeals (EmptySectorUpdate) partition
 * circuit, synthesized natively (include/zkpd/snap.h), written as a .pce
 * or only counted.
 */
#include <stdio.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
#include "zkpd/snap.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp snap circuit --sector-size SIZE (-o FILE.pce | --count) [--json]\n"
		"       zkp snap dev-update | prove | verify ... (each has --help)\n\n"
		"Synthesizes one partition of Filecoin's SnapDeals (EmptySectorUpdate) circuit\n"
		"row for row as rust-fil-proofs does (blank: no witness): the partition and h\n"
		"selector, comm_r_old and comm_r_new against comm_c, the partition's apex tree\n"
		"in tree D new, the challenges generated in the circuit, and per challenge the\n"
		"encoding new = old + data * rho with its three inclusion proofs. Writes it as\n"
		"a .pce through the two-pass streaming builder, or with --count only counts it.\n\n"
		"  --sector-size SIZE  2KiB, 8MiB, 512MiB, 32GiB or 64GiB (published), or a\n"
		"                      test size: 1KiB, 4KiB, 8KiB, 16KiB, 32KiB, 16MiB\n"
		"  -o FILE             write the circuit (atomically) to FILE\n"
		"  --count             write nothing; print the structural fingerprint\n"
		"  --json              one JSON object on stdout, the keys of\n"
		"                      `zkp porep circuit --json`\n\n"
		"A 32GiB partition has 81,049,499 rows; --count takes about 30 s.\n");
}

static int circuit(int argc, char **argv)
{
	zkp_circuit_cli_opts o = { 0 };
	const char *size = NULL;
	const char *cmd = "snap circuit";

	for (int i = 1; i < argc; i++) {
		if (zkp_circuit_cli_opt(&o, argc, argv, &i))
			continue;
		if (!strcmp(argv[i], "--sector-size") && i + 1 < argc) {
			size = argv[++i];
			continue;
		}
		fprintf(stderr, "zkp snap: unexpected argument '%s'\n", argv[i]);
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	if (o.help) {
		help(stdout);
		return ZKP_EXIT_OK;
	}
	if (!size) {
		fprintf(stderr, "zkp snap circuit: give --sector-size\n");
		return ZKP_EXIT_USAGE;
	}
	if (zkp_circuit_cli_output(cmd, &o))
		return ZKP_EXIT_USAGE;
	zkp_error err = { 0 };
	zkp_snap_shape s;
	uint64_t bytes;
	if (zkp_porep_parse_size(&bytes, size, &err) || zkp_snap_shape_for_size(&s, bytes, &err)) {
		fprintf(stderr, "zkp snap circuit: %s\n", err.msg);
		return ZKP_EXIT_USAGE;
	}
	char desc[160], title[192];
	zkp_snap_describe(desc, sizeof(desc), &s);
	snprintf(title, sizeof(title), "Filecoin SnapDeals partition, %s", desc);
	zkp_snap_job job = { &s, NULL };
	uint8_t label[ZKP_PCE_LABEL_BYTES];
	zkp_snap_label_encode(label, &s);
	return zkp_circuit_cli_run(cmd, zkp_snap_circuit_fn, &job, label, o.out, title, o.json);
}

int zkp_cmd_snap(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "circuit"))
		return circuit(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "dev-update") || !strcmp(argv[1], "prove") ||
			  !strcmp(argv[1], "verify")))
		return zkp_cmd_snap_c2(argv[1], argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		help(stdout);
		return ZKP_EXIT_OK;
	}
	fprintf(stderr, "zkp snap: expected a subcommand: circuit, dev-update, prove, verify\n");
	help(stderr);
	return ZKP_EXIT_USAGE;
}
