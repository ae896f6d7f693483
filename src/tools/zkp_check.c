/*
 * zkp check [--threads N] [--skip-checksums] CIRCUIT.pce WITNESS
 *
 * Decodes the witness (.wtns or raw little-endian Fr), checks its length
 * against the circuit and evaluates A.w * B.w == C.w for every constraint.
 * Exit 0 when satisfied; 1 with the first failing constraint named when
 * not, or when either file is refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/witness.h"

static void help(FILE *f)
{
	fprintf(f, "usage: zkp check [--threads N] [--skip-checksums] CIRCUIT.pce WITNESS\n\n"
		   "Checks that WITNESS (circom .wtns, or raw 32-byte little-endian Fr values\n"
		   "starting with ONE) satisfies every constraint of CIRCUIT.pce.\n"
		   "  --threads N       threads to use (default: all CPUs)\n"
		   "  --skip-checksums  do not verify the circuit's section SHA-256s\n"
		   "Exit status: 0 satisfied, 1 not satisfied or a file refused, 2 usage.\n");
}

int zkp_cmd_check(int argc, char **argv)
{
	const char *files[2] = { NULL, NULL };
	int nfiles = 0;
	unsigned flags = 0;
	long threads = zkp_pool_default_threads();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(argv[i], "--skip-checksums")) {
			flags |= ZKP_PCE_SKIP_CHECKSUMS;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			char *end;
			threads = strtol(argv[++i], &end, 10);
			if (*end || threads < 1 || threads > 1024) {
				fprintf(stderr, "zkp check: --threads wants 1..1024, got '%s'\n",
					argv[i]);
				return ZKP_EXIT_USAGE;
			}
		} else if (argv[i][0] == '-' || nfiles == 2) {
			fprintf(stderr, "zkp check: unexpected argument '%s'\n", argv[i]);
			help(stderr);
			return ZKP_EXIT_USAGE;
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (nfiles != 2) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	if (threads < 1)
		threads = 1;

	zkp_error err = { 0 };
	zkp_pce *pce = NULL;
	zkp_pool *pool = NULL;
	zkp_fr *w = NULL;
	uint64_t count = 0, row = 0;
	int rc, status = ZKP_EXIT_FAIL;

	if ((rc = zkp_pce_load(&pce, files[0], flags, &err))) {
		fprintf(stderr, "zkp check: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
		goto out;
	}
	if ((rc = zkp_witness_load(files[1], &w, &count, &err))) {
		fprintf(stderr, "zkp check: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
		goto out;
	}
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	if (count != d->n_inputs + d->n_aux) {
		fprintf(stderr,
			"zkp check: %s has %llu values, %s needs %llu (%llu inputs including ONE + %llu aux) (ERR_MISMATCH)\n",
			files[1], (unsigned long long)count, files[0],
			(unsigned long long)(d->n_inputs + d->n_aux),
			(unsigned long long)d->n_inputs, (unsigned long long)d->n_aux);
		goto out;
	}
	if ((rc = zkp_pool_new(&pool, (unsigned)(threads - 1)))) {
		fprintf(stderr, "zkp check: starting %ld threads: %s\n", threads, zkp_strerror(rc));
		goto out;
	}
	rc = zkp_pce_check(pce, w, &row, pool, &err);
	if (rc == ZKP_ERR_UNSATISFIED) {
		fprintf(stderr, "zkp check: %s: %s\n", files[1], zkp_error_text(&err, rc));
		printf("unsatisfied: first failing constraint %llu of %llu\n",
		       (unsigned long long)row, (unsigned long long)d->n_constraints);
		goto out;
	}
	if (rc) {
		fprintf(stderr, "zkp check: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	printf("satisfied: %llu constraints\n", (unsigned long long)d->n_constraints);
	status = ZKP_EXIT_OK;
out:
	zkp_pool_free(pool);
	free(w);
	zkp_pce_free(pce);
	return status;
}
