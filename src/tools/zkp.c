/*
 * zkp: the offline tool. One table lists the subcommands; each lives in its
 * own file (zkp_<name>.c) and is declared in zkp_cmds.h.
 *
 * Exit codes: 0 success, 1 the operation failed (a file refused, a witness
 * that does not satisfy the circuit), 2 usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkp_cmds.h"

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cmds[] = {
	{ "compile", zkp_cmd_compile, "compile a circom .r1cs (BLS12-381) into a .pce" },
	{ "inspect", zkp_cmd_inspect, "print a .pce file's dimensions, sizes and digest" },
	{ "check", zkp_cmd_check, "check that a witness satisfies a .pce circuit" },
	{ "synth", zkp_cmd_synth, "make a satisfiable PoRep-shaped circuit and its witness" },
	{ "setup", zkp_cmd_setup, "make INSECURE development Groth16 keys for a .pce" },
	{ "prove", zkp_cmd_prove, "make a Groth16 proof from a key, a .pce and a witness" },
	{ "verify", zkp_cmd_verify, "verify a Groth16 proof against a verifying key" },
	{ "dev-key", zkp_cmd_dev_key, "make a 2 KiB Filecoin circuit and its INSECURE development key in a directory" },
	{ "dev-ptau", zkp_cmd_dev_ptau, "write an INSECURE development powers of tau for snarkjs" },
	{ "porep", zkp_cmd_porep, "Filecoin PoRep: 'circuit', 'dev-witness', 'seal' (development), 'prove' (C2), 'verify'" },
	{ "post", zkp_cmd_post, "Filecoin WindowPoSt and WinningPoSt: 'circuit', 'dev-vanilla'" },
	{ "snap", zkp_cmd_snap, "Filecoin SnapDeals (sector update): 'circuit', 'dev-update', 'prove', 'verify'" },
	{ "export-vk", zkp_cmd_export_vk, "write a key's verifying key as .vk or verification_key.json" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: zkp <command> [options] [args]\n"
		   "       zkp <command> --help\n"
		   "       zkp --version\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nexit status: 0 success, 1 the operation failed, 2 usage error\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return ZKP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return ZKP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("zkp %s\n", ZKPD_VERSION);
		return ZKP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "zkp: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return ZKP_EXIT_USAGE;
}

int zkp_parse_seed(const char *cmd, const char *arg, uint64_t *seed)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 0);
	if (!*arg || *end || errno || arg[0] == '-') {
		fprintf(stderr, "zkp %s: bad --seed '%s'\n", cmd, arg);
		return -1;
	}
	*seed = v;
	return 0;
}

int zkp_parse_threads(const char *cmd, const char *arg, long *threads)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (!*arg || *end || v < 1 || v > 1024) {
		fprintf(stderr, "zkp %s: bad --threads '%s'\n", cmd, arg);
		return -1;
	}
	*threads = v;
	return 0;
}
