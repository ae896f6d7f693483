/*
 * zkp prove --key K --pce P --witness W -o PROOF [--public PUB] [--json]
 *           [--threads T] [--no-cache]
 *
 * Proves with a bellman .params or snarkjs .zkey key (groth16_io.h picks by
 * content), a .pce circuit and a .wtns (or raw) witness on the CPU backend.
 * Writes the 192-byte proof (A || B || C compressed), or with --json a
 * snarkjs proof.json; --public writes the public inputs as public.json.
 * The proof has verified against the key's vk before it is written. Stage
 * timings go to stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkp_cmds.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pool.h"
#include "zkpd/witness.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp prove --key KEY --pce CIRCUIT.pce --witness W -o PROOF\n"
		"                 [--public PUB.json] [--json] [--threads T] [--no-cache]\n\n"
		"Makes a Groth16 proof. KEY: bellman .params or snarkjs .zkey. W: circom .wtns\n"
		"or raw 32-byte little-endian values. PROOF: 192 bytes (A || B || C,\n"
		"compressed), or snarkjs proof.json with --json. --public writes the public\n"
		"inputs as snarkjs public.json. The proof is verified before it is written.\n"
		"  --threads T  threads to use (default: all processors)\n"
		"  --no-cache   neither read nor write the key's native cache\n");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	int rc = fclose(f);
	return w == len && rc == 0 ? 0 : -1;
}

int zkp_cmd_prove(int argc, char **argv)
{
	const char *key = NULL, *pce_path = NULL, *wit = NULL, *out = NULL, *pub = NULL;
	bool json = false, no_cache = false;
	long threads = zkp_pool_default_threads();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(a, "--key") && more) {
			key = argv[++i];
		} else if (!strcmp(a, "--pce") && more) {
			pce_path = argv[++i];
		} else if (!strcmp(a, "--witness") && more) {
			wit = argv[++i];
		} else if (!strcmp(a, "-o") && more) {
			out = argv[++i];
		} else if (!strcmp(a, "--public") && more) {
			pub = argv[++i];
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--no-cache")) {
			no_cache = true;
		} else if (!strcmp(a, "--threads") && more) {
			if (zkp_parse_threads("prove", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
		} else {
			fprintf(stderr, "zkp prove: unexpected argument '%s'\n", a);
			help(stderr);
			return ZKP_EXIT_USAGE;
		}
	}
	if (!key || !pce_path || !wit || !out) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	if (threads < 1)
		threads = 1;

	int ret = ZKP_EXIT_FAIL, rc;
	zkp_error err = { 0 };
	zkp_pool *pool = NULL;
	zkp_backend *be = NULL;
	zkp_pce *pce = NULL;
	zkp_fr *w = NULL;
	uint64_t n_w = 0;
	zkp_groth16_pk pk;
	zkp_groth16_pk_init(&pk);
	double t0 = now(), t_load_pce, t_key, t_wit;

	if (zkp_pool_new(&pool, (unsigned)threads - 1) || zkp_backend_cpu_new(&be, pool)) {
		fprintf(stderr, "zkp prove: cannot start %ld threads\n", threads);
		goto out;
	}
	rc = zkp_pce_load(&pce, pce_path, 0, &err);
	t_load_pce = now();
	if (rc) {
		fprintf(stderr, "zkp prove: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	zkp_groth16_load_opts opts = { .flags = no_cache ? ZKP_GROTH16_NO_CACHE : 0,
				       .pool = pool };
	rc = zkp_groth16_pk_load(&pk, key, &opts, &err);
	t_key = now();
	if (rc) {
		fprintf(stderr, "zkp prove: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	rc = zkp_witness_load(wit, &w, &n_w, &err);
	t_wit = now();
	if (rc) {
		fprintf(stderr, "zkp prove: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	zkp_groth16_proof proof;
	zkp_groth16_prove_times t;
	rc = zkp_groth16_prove(&proof, &t, pce, &pk, w, (size_t)n_w, be, pool, &err);
	if (rc) {
		fprintf(stderr, "zkp prove: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	if (json) {
		rc = zkp_groth16_proof_write_json(&proof, out, &err);
		if (rc) {
			fprintf(stderr, "zkp prove: %s\n", zkp_error_text(&err, rc));
			goto out;
		}
	} else {
		uint8_t bytes[ZKP_GROTH16_PROOF_BYTES];
		zkp_groth16_proof_to_bytes(bytes, &proof);
		if (write_file(out, bytes, sizeof(bytes))) {
			fprintf(stderr, "zkp prove: cannot write %s\n", out);
			goto out;
		}
	}
	if (pub) {
		uint64_t n_pub = zkp_pce_get_dims(pce)->n_inputs - 1;
		rc = zkp_groth16_public_write_json(w + 1, (size_t)n_pub, pub, &err);
		if (rc) {
			fprintf(stderr, "zkp prove: %s\n", zkp_error_text(&err, rc));
			goto out;
		}
	}
	fprintf(stderr,
		"zkp prove: %s (%s key%s, %ld threads)\n"
		"  load pce %.3f s, key %.3f s, witness %.3f s\n ",
		out, pk.h_conv == ZKP_GROTH16_H_SNARKJS ? "snarkjs" : "bellman",
		strstr(key, "INSECURE") ? ", INSECURE development" : "", threads,
		t_load_pce - t0, t_key - t_load_pce, t_wit - t_key);
	for (int s = 0; s < ZKP_GROTH16_SPANS; s++)
		fprintf(stderr, " %s %.3f s%s", zkp_groth16_span_name((enum zkp_groth16_span)s),
			t.span[s], s + 1 < ZKP_GROTH16_SPANS ? "," : "\n");
	fprintf(stderr,
		"  prove %.3f s (spans %.3f s; b_g2 %.3f s on its own thread), total %.3f s\n",
		t.total, zkp_groth16_spans_sum(&t), t.msm_b_g2, now() - t0);
	ret = ZKP_EXIT_OK;
out:
	free(w);
	zkp_groth16_pk_release(&pk);
	zkp_pce_free(pce);
	zkp_backend_free(be);
	zkp_pool_free(pool);
	return ret;
}
