/*
 * zkp post circuit: Filecoin's Fallback PoSt circuit (WindowPoSt and
 * WinningPoSt), synthesized natively (include/zkpd/post.h), written as a
 * .pce or only counted.
 */
#include <stdio.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
#include "zkpd/post.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp post circuit --kind window|winning (--sector-size SIZE |\n"
		"                        --nodes N --sectors S --challenges C --tree B-S-T)\n"
		"                        (-o FILE.pce | --count) [--json]\n\n"
		"Synthesizes Filecoin's Fallback PoSt circuit row for row as rust-fil-proofs\n"
		"does (blank: no witness): per sector comm_r checked against comm_c and\n"
		"comm_r_last, then each challenged leaf's inclusion in tree R. Writes it as\n"
		"a .pce through the two-pass streaming builder, or with --count only counts it.\n\n"
		"  --kind K            window (a partition of WindowPoSt) or winning\n"
		"  --sector-size SIZE  a published size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB;\n"
		"                      WindowPoSt takes 2 sectors a partition below 32GiB, 2349\n"
		"                      at 32GiB, 2300 at 64GiB, 10 challenges each; WinningPoSt\n"
		"                      1 sector, 66 challenges\n"
		"  --nodes N           test shape: nodes per sector (a power of two)\n"
		"  --sectors S         test shape: sectors\n"
		"  --challenges C      test shape: challenges per sector\n"
		"  --tree B-S-T        test shape: tree R arities, e.g. 8-0-0, 8-8-0, 8-8-2\n"
		"  -o FILE             write the circuit (atomically) to FILE\n"
		"  --count             write nothing; print the structural fingerprint\n"
		"  --json              one JSON object on stdout, the keys of\n"
		"                      `zkp porep circuit --json`\n\n"
		"The 32GiB WindowPoSt partition (125,279,217 rows) counts in about a minute.\n");
}

static int circuit(int argc, char **argv)
{
	zkp_post_shape s = { 0 };
	zkp_circuit_cli_opts o = { 0 };
	const char *size = NULL, *kind = NULL;
	bool test_shape = false;
	uint64_t v;
	const char *cmd = "post circuit";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (zkp_circuit_cli_opt(&o, argc, argv, &i)) {
			continue;
		} else if (!strcmp(a, "--kind") && has) {
			kind = argv[++i];
		} else if (!strcmp(a, "--sector-size") && has) {
			size = argv[++i];
		} else if (!strcmp(a, "--nodes") && has) {
			if (zkp_parse_u64(cmd, a, argv[++i], &s.nodes))
				return ZKP_EXIT_USAGE;
			test_shape = true;
		} else if ((!strcmp(a, "--sectors") || !strcmp(a, "--challenges")) && has) {
			if (zkp_parse_u64(cmd, a, argv[++i], &v))
				return ZKP_EXIT_USAGE;
			v = v > 1000000 ? 1000000 : v; /* shape_check names it */
			if (a[2] == 's')
				s.sectors = (unsigned)v;
			else
				s.challenges = (unsigned)v;
			test_shape = true;
		} else if (!strcmp(a, "--tree") && has) {
			if (zkp_parse_tree(cmd, argv[++i], s.tree))
				return ZKP_EXIT_USAGE;
			test_shape = true;
		} else {
			fprintf(stderr, "zkp post: unexpected argument '%s'\n", a);
			help(stderr);
			return ZKP_EXIT_USAGE;
		}
	}
	if (o.help) {
		help(stdout);
		return ZKP_EXIT_OK;
	}
	zkp_error err = { 0 };
	if (!kind || zkp_post_kind_parse(&s.kind, kind, &err)) {
		fprintf(stderr, "zkp post circuit: %s\n",
			kind ? err.msg : "give --kind window or --kind winning");
		return ZKP_EXIT_USAGE;
	}
	if (!!size == test_shape) {
		fprintf(stderr, "zkp post circuit: give --sector-size, or --nodes, --sectors, "
				"--challenges and --tree for a test shape\n");
		return ZKP_EXIT_USAGE;
	}
	if (zkp_circuit_cli_output(cmd, &o))
		return ZKP_EXIT_USAGE;
	int rc;
	if (size) {
		uint64_t bytes;
		if ((rc = zkp_porep_parse_size(&bytes, size, &err)) ||
		    (rc = zkp_post_shape_for_size(&s, s.kind, bytes, &err))) {
			fprintf(stderr, "zkp post circuit: %s\n", err.msg);
			return ZKP_EXIT_USAGE;
		}
	}
	if ((rc = zkp_post_shape_check(&s, &err))) {
		fprintf(stderr, "zkp post circuit: %s\n", err.msg);
		return ZKP_EXIT_USAGE;
	}

	char desc[160], title[192];
	zkp_post_describe(desc, sizeof(desc), &s);
	snprintf(title, sizeof(title), "Filecoin Fallback PoSt, %s", desc);
	zkp_post_job job = { &s, NULL };
	uint8_t label[ZKP_PCE_LABEL_BYTES];
	zkp_post_label_encode(label, &s);
	return zkp_circuit_cli_run(cmd, zkp_post_circuit_fn, &job, label, o.out, title, o.json);
}

int zkp_cmd_post(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "circuit"))
		return circuit(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "dev-vanilla"))
		return zkp_cmd_post_dev(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		help(stdout);
		return ZKP_EXIT_OK;
	}
	fprintf(stderr, "zkp post: expected a subcommand: circuit, dev-vanilla\n");
	help(stderr);
	return ZKP_EXIT_USAGE;
}
