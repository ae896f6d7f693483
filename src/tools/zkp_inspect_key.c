/*
 * zkp inspect for keys: proving keys (.params, .zkey) are loaded without
 * subgroup checks and without the native cache (inspecting must be quick
 * and must not write next to the key); verifying keys (.vk and snarkjs
 * verification_key.json) with their few points checked.
 */
#include <stdio.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/groth16_io.h"

static const char *format_name(enum zkp_groth16_format f)
{
	switch (f) {
	case ZKP_GROTH16_FMT_PARAMS: return "bellman .params";
	case ZKP_GROTH16_FMT_VK: return "bellman .vk";
	case ZKP_GROTH16_FMT_ZKEY: return "snarkjs .zkey";
	case ZKP_GROTH16_FMT_JSON: return "snarkjs verification_key.json";
	case ZKP_GROTH16_FMT_NONE: break;
	}
	return "in-memory";
}

static void hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int inspect_vk(const char *path, bool json, const char *sha)
{
	zkp_groth16_vk vk;
	zkp_groth16_vk_init(&vk);
	zkp_error err = { 0 };
	int rc = zkp_groth16_vk_load(&vk, path, 0, &err);
	if (rc) {
		fprintf(stderr, "zkp inspect: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}
	if (json) {
		printf("{\"file\": ");
		zkp_print_json_string(path);
		printf(", \"kind\": \"verifying key\", \"public_inputs\": %zu, \"ic\": %zu, "
		       "\"sha256\": \"%s\"}\n", vk.n_ic - 1, vk.n_ic, sha);
	} else {
		printf("file           %s\nkind           verifying key\n", path);
		printf("public inputs  %zu (ic has %zu points)\nsha256         %s\n", vk.n_ic - 1,
		       vk.n_ic, sha);
	}
	zkp_groth16_vk_release(&vk);
	return ZKP_EXIT_OK;
}

int zkp_inspect_key(const char *path, bool json)
{
	zkp_error err = { 0 };
	uint8_t digest[32];
	char sha[65];
	int rc = zkp_groth16_file_sha256(digest, path, &err);
	if (rc) {
		fprintf(stderr, "zkp inspect: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}
	hex(sha, digest, sizeof(digest));

	zkp_groth16_pk pk;
	zkp_groth16_pk_init(&pk);
	zkp_groth16_load_opts opts = { .flags = ZKP_GROTH16_SKIP_SUBGROUP | ZKP_GROTH16_NO_CACHE };
	rc = zkp_groth16_pk_load(&pk, path, &opts, &err);
	if (rc) {
		/* Not a proving key: a verifying key is the other thing it can be. */
		zkp_error vk_err = { 0 };
		zkp_groth16_vk vk;
		zkp_groth16_vk_init(&vk);
		if (zkp_groth16_vk_load(&vk, path, 0, &vk_err) == 0) {
			zkp_groth16_vk_release(&vk);
			return inspect_vk(path, json, sha);
		}
		fprintf(stderr, "zkp inspect: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}

	static const size_t point_bytes[ZKP_GROTH16_NSECTIONS] = { 96, 96, 96, 96, 96, 192 };
	size_t total = 0;
	for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++)
		total += pk.n[s] * point_bytes[s];
	const char *h = pk.h_conv == ZKP_GROTH16_H_SNARKJS ? "snarkjs (odd coset)"
							 : "bellman (coset / Z)";
	const char *ab = pk.ab_layout == ZKP_GROTH16_AB_FULL ? "full" : "compact (density)";
	if (json) {
		printf("{\"file\": ");
		zkp_print_json_string(path);
		printf(", \"kind\": \"proving key\", \"format\": \"%s\", \"h_convention\": \"%s\", "
		       "\"ab_layout\": \"%s\", \"inputs\": %llu, \"aux\": %llu, \"domain\": %llu, "
		       "\"sections\": {",
		       format_name(pk.format), h, ab, (unsigned long long)pk.n_inputs,
		       (unsigned long long)pk.n_aux, (unsigned long long)pk.domain_size);
		for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++)
			printf("%s\"%s\": %zu", s ? ", " : "",
			       zkp_groth16_section_name((enum zkp_groth16_section)s), pk.n[s]);
		printf("}, \"point_bytes\": %zu, \"file_bytes\": %llu, \"sha256\": \"%s\"}\n", total,
		       (unsigned long long)pk.source_bytes, sha);
	} else {
		printf("file           %s\nkind           proving key, %s\n", path,
		       format_name(pk.format));
		printf("H convention   %s\nA/B layout     %s\n", h, ab);
		printf("inputs         %llu (including ONE)\naux            %llu\ndomain         %llu\n",
		       (unsigned long long)pk.n_inputs, (unsigned long long)pk.n_aux,
		       (unsigned long long)pk.domain_size);
		printf("\nsection        points        bytes (uncompressed)\n");
		for (int s = 0; s < ZKP_GROTH16_NSECTIONS; s++)
			printf("%-12s %10zu %14zu\n",
			       zkp_groth16_section_name((enum zkp_groth16_section)s), pk.n[s],
			       pk.n[s] * point_bytes[s]);
		printf("\npoints         %zu bytes\nfile           %llu bytes\nsha256         %s\n",
		       total, (unsigned long long)pk.source_bytes, sha);
	}
	zkp_groth16_pk_release(&pk);
	return ZKP_EXIT_OK;
}
