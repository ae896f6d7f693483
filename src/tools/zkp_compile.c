/*
 * zkp compile CIRCUIT.r1cs -o CIRCUIT.pce
 *
 * Reads a circom .r1cs (BLS12-381 prime only), writes the .pce atomically,
 * then maps the result back to print its dimensions. Exit 0 on success, 1
 * when the input is refused or the output cannot be written, 2 on usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "zkp_cmds.h"
#include "zkpd/pce.h"
#include "zkpd/r1cs.h"

static void help(FILE *f)
{
	fprintf(f, "usage: zkp compile CIRCUIT.r1cs -o CIRCUIT.pce\n\n"
		   "Compiles a circom constraint system (built with --prime bls12381) into\n"
		   "zkpd's pre-compiled circuit format.\n"
		   "  -o, --output FILE  the .pce to write (replaced atomically)\n"
		   "Exit status: 0 written, 1 input refused or output not written, 2 usage.\n");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int zkp_cmd_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 >= argc || out) {
				fprintf(stderr, "zkp compile: %s wants one FILE\n", argv[i]);
				help(stderr);
				return ZKP_EXIT_USAGE;
			}
			out = argv[++i];
		} else if (argv[i][0] == '-' || in) {
			fprintf(stderr, "zkp compile: unexpected argument '%s'\n", argv[i]);
			help(stderr);
			return ZKP_EXIT_USAGE;
		} else {
			in = argv[i];
		}
	}
	if (!in || !out) {
		fprintf(stderr, "zkp compile: %s\n", in ? "no output (-o FILE)" : "no input .r1cs");
		help(stderr);
		return ZKP_EXIT_USAGE;
	}

	zkp_error err = { 0 };
	zkp_r1cs_info info;
	double t0 = now();
	int rc = zkp_r1cs_compile(in, out, &info, &err);
	double t1 = now();
	if (rc) {
		fprintf(stderr, "zkp compile: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}
	printf("%s: %u constraints, %u wires (ONE, %u public outputs, %u public inputs, "
	       "%u private inputs, %u internal), %llu labels, %llu bytes\n",
	       in, info.n_constraints, info.n_wires, info.n_pub_out, info.n_pub_in,
	       info.n_prv_in, info.n_wires - 1 - info.n_pub_out - info.n_pub_in - info.n_prv_in,
	       (unsigned long long)info.n_labels, (unsigned long long)info.file_bytes);

	zkp_pce *pce = NULL;
	rc = zkp_pce_load(&pce, out, ZKP_PCE_SKIP_CHECKSUMS, &err);
	if (rc) {
		fprintf(stderr, "zkp compile: reading back %s: %s (%s)\n", out,
			zkp_error_text(&err, rc), zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}
	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	const uint8_t *dg = zkp_pce_digest(pce);
	char hex[2 * ZKP_PCE_DIGEST_BYTES + 1];
	for (int i = 0; i < ZKP_PCE_DIGEST_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", dg[i]);
	printf("%s: %llu inputs (including ONE), %llu aux, %llu constraints, domain 2^%u\n"
	       "  nnz A %llu, B %llu, C %llu; %.2f bytes per nnz; %zu bytes\n"
	       "  digest %s\n",
	       out, (unsigned long long)d->n_inputs, (unsigned long long)d->n_aux,
	       (unsigned long long)d->n_constraints, d->domain_log2,
	       (unsigned long long)d->nnz[0], (unsigned long long)d->nnz[1],
	       (unsigned long long)d->nnz[2], zkp_pce_bytes_per_nnz(pce),
	       zkp_pce_mapped_bytes(pce), hex);
	printf("compiled in %.3f s\n", t1 - t0);
	zkp_pce_free(pce);
	return ZKP_EXIT_OK;
}
