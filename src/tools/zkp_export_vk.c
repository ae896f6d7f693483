/*
 * zkp export-vk KEY -o OUT [--json]
 *
 * Writes the verifying key of any key zkp reads (.params, .zkey, .vk,
 * verification_key.json) as a bellman .vk, or as snarkjs
 * verification_key.json with --json or an OUT ending in .json.
 */
#include <stdio.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/groth16_io.h"

static void help(FILE *f)
{
	fprintf(f, "usage: zkp export-vk KEY -o OUT [--json]\n\n"
		   "Writes KEY's verifying key (KEY: .params, .zkey, .vk or\n"
		   "verification_key.json) as a bellman .vk, or as snarkjs\n"
		   "verification_key.json with --json or when OUT ends in .json.\n"
		   "Exit status: 0 written, 1 KEY refused or OUT not written, 2 usage.\n");
}

int zkp_cmd_export_vk(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (argv[i][0] == '-' || in) {
			fprintf(stderr, "zkp export-vk: unexpected argument '%s'\n", argv[i]);
			help(stderr);
			return ZKP_EXIT_USAGE;
		} else {
			in = argv[i];
		}
	}
	if (!in || !out) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	size_t len = strlen(out);
	if (len >= 5 && !strcmp(out + len - 5, ".json"))
		json = true;

	zkp_groth16_vk vk;
	zkp_groth16_vk_init(&vk);
	zkp_error err = { 0 };
	int rc = zkp_groth16_vk_load(&vk, in, 0, &err);
	if (!rc)
		rc = json ? zkp_groth16_vk_write_json(&vk, out, &err)
			  : zkp_groth16_vk_write_bellman(&vk, out, &err);
	if (rc == ZKP_ERR_INVAL && !json)
		zkp_error_set(&err, rc,
			      "%s: has no beta_g1/delta_g1, which a bellman .vk needs; use --json", in);
	zkp_groth16_vk_release(&vk);
	if (rc) {
		fprintf(stderr, "zkp export-vk: %s (%s)\n", zkp_error_text(&err, rc),
			zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}
	printf("wrote %s (%s)\n", out, json ? "snarkjs verification_key.json" : "bellman .vk");
	return ZKP_EXIT_OK;
}
