/*
 * What `zkp porep circuit` and `zkp post circuit` share: their shape
 * options, and the structural fingerprint they print, as text or as one
 * JSON object with the same keys for every kind of circuit.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "zkp_cmds.h"

int zkp_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *v)
{
	char *end;
	unsigned long long x = strtoull(arg, &end, 10);
	if (!*arg || *end || arg[0] == '-') {
		fprintf(stderr, "zkp %s: bad %s '%s'\n", cmd, opt, arg);
		return -1;
	}
	*v = x;
	return 0;
}

int zkp_parse_tree(const char *cmd, const char *arg, unsigned tree[3])
{
	unsigned a, b, c;
	char extra;
	if (sscanf(arg, "%u-%u-%u%c", &a, &b, &c, &extra) == 3) {
		tree[0] = a, tree[1] = b, tree[2] = c;
		return 0;
	}
	if (sscanf(arg, "%u-%u%c", &a, &b, &extra) == 2) {
		tree[0] = a, tree[1] = b, tree[2] = 0;
		return 0;
	}
	if (sscanf(arg, "%u%c", &a, &extra) == 1) {
		tree[0] = a, tree[1] = tree[2] = 0;
		return 0;
	}
	fprintf(stderr, "zkp %s: bad --tree '%s' (expected e.g. 8-8-0)\n", cmd, arg);
	return -1;
}

double zkp_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double zkp_peak_rss_mib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_maxrss / 1024.0;
}

void zkp_circuit_cli_report(const char *title, const zkp_pce_builder_stats *st, bool json,
			    const char *out)
{
	const uint64_t in = st->n_inputs;
	if (json) {
		printf("{\"constraints\": %llu, \"rows\": %llu, \"inputs\": %llu, \"aux\": %llu, "
		       "\"a_aux\": %llu, \"b_input\": %llu, \"b_aux\": %llu, \"nnz_a\": %llu, "
		       "\"nnz_b\": %llu, \"nnz_c\": %llu}\n",
		       (unsigned long long)st->rows, (unsigned long long)(st->rows + in),
		       (unsigned long long)in, (unsigned long long)st->n_aux,
		       (unsigned long long)st->a_aux, (unsigned long long)st->b_input,
		       (unsigned long long)st->b_aux, (unsigned long long)(st->nnz[0] + in),
		       (unsigned long long)st->nnz[1], (unsigned long long)st->nnz[2]);
		return;
	}
	printf("circuit        %s\n", title);
	printf("constraints    %llu (%llu rows with the %llu input rows)\n",
	       (unsigned long long)st->rows, (unsigned long long)(st->rows + in),
	       (unsigned long long)in);
	printf("inputs         %llu (including ONE)\n", (unsigned long long)in);
	printf("aux            %llu\n", (unsigned long long)st->n_aux);
	printf("density        A aux %llu, B inputs %llu, B aux %llu\n",
	       (unsigned long long)st->a_aux, (unsigned long long)st->b_input,
	       (unsigned long long)st->b_aux);
	printf("nnz            A %llu, B %llu, C %llu (A with the input rows)\n",
	       (unsigned long long)(st->nnz[0] + in), (unsigned long long)st->nnz[1],
	       (unsigned long long)st->nnz[2]);
	if (out)
		printf("file           %s\n", out);
}

int zkp_circuit_cli_run(const char *cmd, zkp_circuit_fn fn, void *job, const uint8_t *label,
			const char *out, const char *title, bool json)
{
	zkp_pce_builder_stats st;
	zkp_error err = { 0 };
	double t0 = zkp_now();
	int rc = out ? zkp_circuit_write(fn, job, out, label, &st, &err) :
		       zkp_circuit_count(fn, job, &st, &err);
	double secs = zkp_now() - t0;
	if (rc) {
		fprintf(stderr, "zkp %s: %s (%s)\n", cmd, zkp_error_text(&err, rc), zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}
	zkp_circuit_cli_report(title, &st, json, out);
	fprintf(stderr, "zkp %s: %s in %.1f s, peak RSS %.1f MiB\n", cmd,
		out ? "written" : "counted", secs, zkp_peak_rss_mib());
	return ZKP_EXIT_OK;
}

int zkp_parse_hex32(const char *cmd, const char *opt, const char *arg, uint8_t out[32])
{
	const char *s = strncmp(arg, "0x", 2) ? arg : arg + 2;
	if (strlen(s) != 64)
		goto bad;
	for (int i = 0; i < 32; i++) {
		unsigned v;
		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &v) != 1)
			goto bad;
		out[i] = (uint8_t)v;
	}
	return 0;
bad:
	fprintf(stderr, "zkp %s: %s wants 32 bytes as 64 hex digits, not '%s'\n", cmd, opt, arg);
	return -1;
}

void zkp_print_hex32(const uint8_t b[32])
{
	for (int i = 0; i < 32; i++)
		printf("%02x", b[i]);
}

bool zkp_circuit_cli_opt(zkp_circuit_cli_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (!strcmp(a, "--help") || !strcmp(a, "-h"))
		o->help = true;
	else if (!strcmp(a, "--count"))
		o->count = true;
	else if (!strcmp(a, "--json"))
		o->json = true;
	else if (!strcmp(a, "-o") && *i + 1 < argc)
		o->out = argv[++*i];
	else
		return false;
	return true;
}

int zkp_circuit_cli_output(const char *cmd, const zkp_circuit_cli_opts *o)
{
	if (!!o->out != o->count)
		return 0;
	fprintf(stderr, "zkp %s: give -o FILE or --count\n", cmd);
	return -1;
}
