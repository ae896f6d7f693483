/*
 * zkp synth --shape porep --constraints N -o OUT.pce [--witness OUT.wtns]
 *           [--seed S] [--json]
 *
 * Makes a satisfiable PoRep-shaped circuit of N constraints
 * (include/zkpd/synth.h), writes it as a .pce and, when asked, its witness
 * as a circom .wtns, then loads the file back and prints the figures it
 * achieved next to the 32 GiB partition's: non-zeros per constraint, aux
 * per constraint, share of aux variables in B and A, bytes per non-zero.
 *
 * Memory: the builder's 8 bytes per non-zero (about 45 bytes per
 * constraint) plus 32 bytes per variable for the witness.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/pce.h"
#include "zkpd/synth.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp synth --shape porep --constraints N -o OUT.pce [--witness OUT.wtns]\n"
		"                 [--seed S] [--json]\n\n"
		"Makes a satisfiable circuit shaped like one Filecoin 32 GiB PoRep partition\n"
		"scaled to N constraints (SHA-256-style bit rows, bit packing, Poseidon-style\n"
		"rows; the same non-zeros per row, aux per row and share of aux in B), writes\n"
		"it to OUT.pce and its witness to OUT.wtns (circom .wtns, BLS12-381), and\n"
		"prints the achieved figures next to the full-size partition's.\n"
		"  --constraints N  number of constraints: decimal, or 2^K (1 to 2^31)\n"
		"  --seed S         picks operands and bit values (default 1); the\n"
		"                   dimensions depend on N only\n"
		"  --json           print the figures as one JSON object\n");
}

static int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	errno = 0;
	if (s[0] == '2' && s[1] == '^') {
		unsigned long k = strtoul(s + 2, &end, 10);
		if (end == s + 2 || *end || k > 63)
			return -1;
		*ret = (uint64_t)1 << k;
		return 0;
	}
	if (s[0] == '-' || !*s)
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end || errno)
		return -1;
	*ret = v;
	return 0;
}

static double dev(double got, double want) { return 100.0 * (got / want - 1.0); }

static void print_text(const zkp_synth_info *info, const zkp_pce *pce, const char *out,
		       const char *wtns, uint64_t seed)
{
	zkp_synth_ratios r, t;
	zkp_synth_ratios_of(&r, info);
	zkp_synth_porep_target(&t);
	printf("wrote %s: %" PRIu64 " constraints, %" PRIu64 " inputs (including ONE), %" PRIu64
	       " aux, seed %" PRIu64 "\n",
	       out, info->n_constraints, info->n_inputs, info->n_aux, seed);
	printf("  %-22s %10s %14s %10s\n", "per constraint", "achieved", "32 GiB PoRep",
	       "deviation");
	const char *names[] = { "A non-zeros", "B non-zeros", "C non-zeros", "aux variables" };
	const double got[] = { r.a_per_row, r.b_per_row, r.c_per_row, r.aux_per_row };
	const double want[] = { t.a_per_row, t.b_per_row, t.c_per_row, t.aux_per_row };
	for (int i = 0; i < 4; i++)
		printf("  %-22s %10.4f %14.4f %+9.2f%%\n", names[i], got[i], want[i],
		       dev(got[i], want[i]));
	printf("  %-22s %9.2f%% %13.2f%% %+9.2f%%\n", "aux in B (share)", 100 * r.aux_in_b,
	       100 * t.aux_in_b, dev(r.aux_in_b, t.aux_in_b));
	printf("  %-22s %9.2f%% %13.2f%% %+9.2f%%\n", "aux in A (share)", 100 * r.aux_in_a,
	       100 * t.aux_in_a, dev(r.aux_in_a, t.aux_in_a));
	printf("  %-22s %10" PRIu64 " %14" PRIu64 "\n", "inputs in B", info->inputs_in_b,
	       (uint64_t)1);
	double n = (double)info->n_constraints;
	printf("  rows: bit gadgets %.2f%%, packing %.2f%%, Poseidon %.2f%% (%" PRIu64
	       " permutations)\n",
	       100 * (double)info->bit_rows / n, 100 * (double)info->packing_rows / n,
	       100 * (double)info->poseidon_rows / n, info->poseidon_hashes);
	printf("  non-zeros A %" PRIu64 ", B %" PRIu64 ", C %" PRIu64 "; %.3f bytes per non-zero, "
	       "%zu bytes mapped\n",
	       info->nnz[0], info->nnz[1], info->nnz[2], zkp_pce_bytes_per_nnz(pce),
	       zkp_pce_mapped_bytes(pce));
	printf("  digest ");
	for (int i = 0; i < ZKP_PCE_DIGEST_BYTES; i++)
		printf("%02x", zkp_pce_digest(pce)[i]);
	printf("\n");
	if (wtns)
		printf("wrote %s: %" PRIu64 " values\n", wtns, info->n_inputs + info->n_aux);
}

static void print_json(const zkp_synth_info *info, const zkp_pce *pce, const char *out,
		       const char *wtns, uint64_t seed)
{
	zkp_synth_ratios r, t;
	zkp_synth_ratios_of(&r, info);
	zkp_synth_porep_target(&t);
	printf("{\"shape\": \"porep\", \"pce\": ");
	zkp_print_json_string(out);
	printf(", \"witness\": ");
	if (wtns)
		zkp_print_json_string(wtns);
	else
		printf("null");
	printf(", \"seed\": %" PRIu64 ",\n", seed);
	printf(" \"constraints\": %" PRIu64 ", \"inputs\": %" PRIu64 ", \"aux\": %" PRIu64
	       ", \"nnz\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "],\n",
	       info->n_constraints, info->n_inputs, info->n_aux, info->nnz[0], info->nnz[1],
	       info->nnz[2]);
	printf(" \"achieved\": {\"a_per_row\": %.6f, \"b_per_row\": %.6f, \"c_per_row\": %.6f, "
	       "\"aux_per_row\": %.6f, \"aux_in_b\": %.6f, \"aux_in_a\": %.6f},\n",
	       r.a_per_row, r.b_per_row, r.c_per_row, r.aux_per_row, r.aux_in_b, r.aux_in_a);
	printf(" \"target\": {\"a_per_row\": %.6f, \"b_per_row\": %.6f, \"c_per_row\": %.6f, "
	       "\"aux_per_row\": %.6f, \"aux_in_b\": %.6f, \"aux_in_a\": %.6f},\n",
	       t.a_per_row, t.b_per_row, t.c_per_row, t.aux_per_row, t.aux_in_b, t.aux_in_a);
	printf(" \"inputs_in_b\": %" PRIu64 ", \"bit_rows\": %" PRIu64 ", \"packing_rows\": %" PRIu64
	       ", \"poseidon_rows\": %" PRIu64 ", \"poseidon_permutations\": %" PRIu64 ",\n",
	       info->inputs_in_b, info->bit_rows, info->packing_rows, info->poseidon_rows,
	       info->poseidon_hashes);
	printf(" \"bytes_per_nnz\": %.4f, \"mapped_bytes\": %zu, \"digest\": \"",
	       zkp_pce_bytes_per_nnz(pce), zkp_pce_mapped_bytes(pce));
	for (int i = 0; i < ZKP_PCE_DIGEST_BYTES; i++)
		printf("%02x", zkp_pce_digest(pce)[i]);
	printf("\"}\n");
}

int zkp_cmd_synth(int argc, char **argv)
{
	const char *shape = NULL, *out = NULL, *wtns = NULL;
	uint64_t n = 0, seed = 1;
	bool json = false, have_n = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!v) {
			fprintf(stderr, "zkp synth: '%s' needs a value or is unknown\n", a);
			help(stderr);
			return ZKP_EXIT_USAGE;
		} else if (!strcmp(a, "--shape")) {
			shape = argv[++i];
		} else if (!strcmp(a, "--constraints")) {
			if (parse_u64(argv[++i], &n) || n == 0 || n > ZKP_SYNTH_MAX_CONSTRAINTS) {
				fprintf(stderr,
					"zkp synth: --constraints wants 1 to 2^31 (decimal or 2^K), "
					"got '%s'\n",
					argv[i]);
				return ZKP_EXIT_USAGE;
			}
			have_n = true;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			out = argv[++i];
		} else if (!strcmp(a, "--witness")) {
			wtns = argv[++i];
		} else if (!strcmp(a, "--seed")) {
			if (parse_u64(argv[++i], &seed)) {
				fprintf(stderr, "zkp synth: --seed wants an unsigned integer, got '%s'\n",
					argv[i]);
				return ZKP_EXIT_USAGE;
			}
		} else {
			fprintf(stderr, "zkp synth: unexpected argument '%s'\n", a);
			help(stderr);
			return ZKP_EXIT_USAGE;
		}
	}
	if (!shape || strcmp(shape, "porep")) {
		fprintf(stderr, "zkp synth: --shape %s%s%s: the only shape is 'porep'\n",
			shape ? "'" : "(missing)", shape ? shape : "", shape ? "'" : "");
		return ZKP_EXIT_USAGE;
	}
	if (!have_n || !out) {
		fprintf(stderr, "zkp synth: --constraints and -o are required\n");
		help(stderr);
		return ZKP_EXIT_USAGE;
	}

	zkp_error err = { 0 };
	zkp_synth_info d, info;
	zkp_pce_builder *b = NULL;
	zkp_pce *pce = NULL;
	zkp_fr *w = NULL;
	int rc, status = ZKP_EXIT_FAIL;

	if ((rc = zkp_synth_porep_dims(n, &d, &err)))
		goto fail;
	if ((rc = zkp_pce_builder_new(&b, d.n_inputs, d.n_aux))) {
		zkp_error_set(&err, rc, "starting a builder for %" PRIu64 " variables",
			      d.n_inputs + d.n_aux);
		goto fail;
	}
	if (wtns && !(w = malloc((d.n_inputs + d.n_aux) * sizeof(zkp_fr)))) {
		rc = zkp_error_set(&err, ZKP_ERR_NOMEM, "no memory for %" PRIu64 " witness values",
				   d.n_inputs + d.n_aux);
		goto fail;
	}
	if ((rc = zkp_synth_porep(n, seed, zkp_synth_builder_sink, b, w, &info, &err)))
		goto fail;
	if ((rc = zkp_pce_builder_write(b, out, &err)))
		goto fail;
	zkp_pce_builder_free(b);
	b = NULL;
	if (w && (rc = zkp_synth_write_wtns(wtns, w, info.n_inputs + info.n_aux, &err)))
		goto fail;
	free(w);
	w = NULL;
	if ((rc = zkp_pce_load(&pce, out, 0, &err)))
		goto fail;
	if (json)
		print_json(&info, pce, out, wtns, seed);
	else
		print_text(&info, pce, out, wtns, seed);
	status = ZKP_EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "zkp synth: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
out:
	zkp_pce_free(pce);
	zkp_pce_builder_free(b);
	free(w);
	return status;
}
