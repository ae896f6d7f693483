/*
 * zkp dev-ptau --power K -o NAME.INSECURE-DEV.ptau [--seed S] [--threads T]
 *
 * Writes an INSECURE development powers-of-tau file in snarkjs's format,
 * already prepared for phase 2 (ptau.h), so `snarkjs groth16 setup` takes it
 * directly. tau, alpha and beta come from the system's random generator, or
 * from --seed; anyone who knows them can forge proofs for every key made
 * from the file. The output name must end in .INSECURE-DEV.ptau so that the
 * file says what it is wherever it is copied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkp_cmds.h"
#include "zkpd/ptau.h"
#include "zkpd/pool.h"

#define SUFFIX ".INSECURE-DEV.ptau"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp dev-ptau --power K -o NAME" SUFFIX " [--seed S] [--threads T]\n\n"
		"Writes an INSECURE development powers-of-tau file for snarkjs (BLS12-381,\n"
		"2^K powers, phase-2 Lagrange sections included), for circuits of up to\n"
		"2^K - 1 constraints plus public inputs: `snarkjs groth16 setup` accepts it\n"
		"without `powersoftau prepare phase2`. tau, alpha and beta come from the\n"
		"system's random generator, or from --seed S (then anyone who knows S can\n"
		"forge proofs). There was no ceremony: never use it, or keys made from it,\n"
		"in production. The output name must end in " SUFFIX ".\n"
		"  --power K    1..%d\n"
		"  --threads T  threads to use (default: all processors)\n",
		ZKP_PTAU_MAX_POWER);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a > b && !strcmp(s + a - b, suffix);
}

int zkp_cmd_dev_ptau(int argc, char **argv)
{
	const char *out = NULL;
	long power = 0, threads = zkp_pool_default_threads();
	uint64_t seed = 0;
	bool have_seed = false;
	for (int i = 1; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--power") && i + 1 < argc) {
			power = strtol(argv[++i], &end, 10);
			if (*end || power < 1 || power > ZKP_PTAU_MAX_POWER) {
				fprintf(stderr, "zkp dev-ptau: bad --power '%s' (1..%d)\n", argv[i],
					ZKP_PTAU_MAX_POWER);
				return ZKP_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			if (zkp_parse_seed("dev-ptau", argv[++i], &seed))
				return ZKP_EXIT_USAGE;
			have_seed = true;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			if (zkp_parse_threads("dev-ptau", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
		} else {
			fprintf(stderr, "zkp dev-ptau: unexpected argument '%s'\n", argv[i]);
			help(stderr);
			return ZKP_EXIT_USAGE;
		}
	}
	if (!out || !power) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	if (!ends_with(out, SUFFIX)) {
		fprintf(stderr, "zkp dev-ptau: the output name must end in %s (got '%s')\n", SUFFIX,
			out);
		return ZKP_EXIT_USAGE;
	}
	if (threads < 1)
		threads = 1;

	int ret = ZKP_EXIT_FAIL, rc;
	zkp_error err = { 0 };
	zkp_pool *pool = NULL;
	if (zkp_pool_new(&pool, (unsigned)threads - 1)) {
		fprintf(stderr, "zkp dev-ptau: cannot start %ld threads\n", threads);
		goto out;
	}
	fprintf(stderr,
		"zkp dev-ptau: WARNING: making an INSECURE development powers of tau%s; whoever "
		"knows tau, alpha, beta can forge proofs for every key made from it\n",
		have_seed ? " from a fixed seed" : "");
	double t0 = now();
	rc = zkp_ptau_write_dev(out, (unsigned)power, have_seed ? &seed : NULL, pool, &err);
	if (rc) {
		fprintf(stderr, "zkp dev-ptau: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	fprintf(stderr, "zkp dev-ptau: wrote INSECURE development ptau %s (power %ld) in %.2f s\n",
		out, power, now() - t0);
	printf("%s\n", out);
	ret = ZKP_EXIT_OK;
out:
	zkp_pool_free(pool);
	return ret;
}
