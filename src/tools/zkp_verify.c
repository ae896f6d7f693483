/*
 * zkp verify --vk VK --proof PROOF [--public PUB.json]
 *
 * VK: bellman .vk or .params, snarkjs .zkey or verification_key.json
 * (zkp_groth16_vk_load picks by content). PROOF: 192 bytes or snarkjs
 * proof.json (by content: JSON starts with '{'). PUB: snarkjs public.json;
 * without it the statement has no public inputs.
 * Exit status: 0 the proof is valid, 1 it is not, 2 usage or a file that
 * cannot be read or parsed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkp_cmds.h"
#include "zkpd/groth16_io.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp verify --vk VK --proof PROOF [--public PUB.json]\n\n"
		"Verifies a Groth16 proof. VK: .vk, .params, .zkey or verification_key.json.\n"
		"PROOF: 192 bytes (A || B || C compressed) or snarkjs proof.json.\n"
		"PUB: snarkjs public.json (omit for a statement without public inputs).\n"
		"exit status: 0 valid, 1 invalid, 2 usage or unreadable input\n");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reads a proof, binary or JSON by its first non-blank byte. */
static int read_proof(zkp_groth16_proof *proof, const char *path, zkp_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot open", path);
	uint8_t buf[ZKP_GROTH16_PROOF_BYTES + 1];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	size_t k = 0;
	while (k < len && (buf[k] == ' ' || buf[k] == '\n' || buf[k] == '\r' || buf[k] == '\t'))
		k++;
	if (k < len && buf[k] == '{')
		return zkp_groth16_proof_read_json(proof, path, err);
	if (len != ZKP_GROTH16_PROOF_BYTES)
		return zkp_error_set(err, ZKP_ERR_BAD_LENGTH,
				     "%s: a binary proof is %d bytes, this file has %s%zu", path,
				     ZKP_GROTH16_PROOF_BYTES, len > ZKP_GROTH16_PROOF_BYTES ? "more than " : "",
				     len > ZKP_GROTH16_PROOF_BYTES ? (size_t)ZKP_GROTH16_PROOF_BYTES : len);
	return zkp_groth16_proof_from_bytes(proof, buf, err);
}

int zkp_cmd_verify(int argc, char **argv)
{
	const char *vk_path = NULL, *proof_path = NULL, *pub = NULL;
	for (int i = 1; i < argc; i++) {
		bool more = i + 1 < argc;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(argv[i], "--vk") && more) {
			vk_path = argv[++i];
		} else if (!strcmp(argv[i], "--proof") && more) {
			proof_path = argv[++i];
		} else if (!strcmp(argv[i], "--public") && more) {
			pub = argv[++i];
		} else {
			fprintf(stderr, "zkp verify: unexpected argument '%s'\n", argv[i]);
			help(stderr);
			return ZKP_EXIT_USAGE;
		}
	}
	if (!vk_path || !proof_path) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	int ret = ZKP_EXIT_USAGE, rc;
	zkp_error err = { 0 };
	zkp_groth16_vk vk;
	zkp_groth16_pvk *pvk = NULL;
	zkp_groth16_proof proof;
	zkp_fr *inputs = NULL;
	size_t n = 0;
	zkp_groth16_vk_init(&vk);
	double t0 = now();
	rc = zkp_groth16_vk_load(&vk, vk_path, 0, &err);
	if (!rc)
		rc = read_proof(&proof, proof_path, &err);
	if (!rc && pub)
		rc = zkp_groth16_public_read_json(&inputs, &n, pub, &err);
	if (!rc)
		rc = zkp_groth16_pvk_new(&pvk, &vk);
	if (rc) {
		fprintf(stderr, "zkp verify: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	double t1 = now();
	rc = zkp_groth16_verify(pvk, inputs, n, &proof);
	double t2 = now();
	if (rc == 0) {
		printf("valid\n");
		ret = ZKP_EXIT_OK;
	} else if (rc == ZKP_GROTH16_INVALID) {
		printf("INVALID\n");
		ret = ZKP_EXIT_FAIL;
	} else {
		fprintf(stderr, "zkp verify: %zu public inputs given, the key has %zu: %s\n", n,
			vk.n_ic ? vk.n_ic - 1 : 0, zkp_strerror(rc));
	}
	fprintf(stderr, "zkp verify: load %.3f s, verify %.3f ms\n", t1 - t0, 1e3 * (t2 - t1));
out:
	zkp_groth16_pvk_free(pvk);
	free(inputs);
	zkp_groth16_vk_release(&vk);
	return ret;
}
