/*
 * zkp inspect [--json] [--skip-checksums] FILE
 *
 * A .pce: loads the file with every check the prover applies (so a file
 * inspect accepts is one the daemon accepts) and prints its dimensions,
 * per-matrix statistics, density counts, sizes and circuit digest, and the
 * memory model (docs/memory.md) for proving it with a bellman-layout key
 * mapped from its native cache, on --threads threads.
 * Anything else is inspected as a Groth16 key (zkp_inspect_key.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkp_cmds.h"
#include "zkpd/groth16_job.h"
#ifdef ZKPD_HAVE_CUDA
#include "zkpd/backend_cuda.h"
#endif
#include "zkpd/pce.h"
#include "zkpd/porep.h"
#include "zkpd/pool.h"
#include "zkpd/post.h"
#include "zkpd/snap.h"

static void help(FILE *f)
{
	fprintf(f, "usage: zkp inspect [--json] [--skip-checksums] [--threads T] FILE\n\n"
		   "A .pce: prints dimensions, non-zeros, +-1 and distinct coefficients,\n"
		   "escapes and overflow rows per matrix, density counts, bytes per non-zero,\n"
		   "mapped bytes, the circuit digest, and the memory a proof of it takes\n"
		   "(docs/memory.md: the circuit and a bellman key mapped from its native\n"
		   "cache, shared; each job's working set on T threads, default all CPUs).\n"
		   "A key (.params, .zkey, .vk,\n"
		   "verification_key.json): its format, conventions, section counts and\n"
		   "sizes, and the file's SHA-256.\n"
		   "  --json            one JSON object on stdout\n"
		   "  --skip-checksums  do not verify the section SHA-256s (trusted files)\n"
		   "  --threads T       threads of the memory model's MSM workspaces\n");
}

struct mstat {
	uint64_t ones, minus_ones;
};

static struct mstat scan(const zkp_pce_csr *c)
{
	struct mstat s = { 0, 0 };
	for (uint64_t k = 0; k < c->nnz; k++) {
		s.ones += c->codes[k] == 0;
		s.minus_ones += c->codes[k] == 1;
	}
	return s;
}

static uint64_t popcount(const uint64_t *w, uint64_t bits)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < (bits + 63) / 64; i++)
		n += (uint64_t)__builtin_popcountll(w[i]);
	return n;
}

void zkp_print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

int zkp_cmd_inspect(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false;
	unsigned flags = 0;
	long threads = zkp_pool_default_threads();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--skip-checksums")) {
			flags |= ZKP_PCE_SKIP_CHECKSUMS;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			threads = strtol(argv[++i], NULL, 10);
			if (threads < 1 || threads > 4096) {
				fprintf(stderr, "zkp inspect: --threads wants 1..4096\n");
				return ZKP_EXIT_USAGE;
			}
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "zkp inspect: unexpected argument '%s'\n", argv[i]);
			help(stderr);
			return ZKP_EXIT_USAGE;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}

	/* Anything that does not start like a .pce is taken for a key. */
	char magic[8] = { 0 };
	FILE *f = fopen(path, "rb");
	if (f) {
		size_t got = fread(magic, 1, sizeof(magic), f);
		fclose(f);
		if (got == sizeof(magic) && memcmp(magic, "ZKPDPCE", 8) != 0)
			return zkp_inspect_key(path, json);
	}

	zkp_error err = { 0 };
	zkp_pce *pce = NULL;
	int rc = zkp_pce_load(&pce, path, flags, &err);
	if (rc) {
		fprintf(stderr, "zkp inspect: %s (%s)\n", zkp_error_text(&err, rc), zkp_err_name(rc));
		return ZKP_EXIT_FAIL;
	}

	const zkp_pce_dims *d = zkp_pce_get_dims(pce);
	const zkp_pce_csr *m[3];
	struct mstat st[3];
	for (int i = 0; i < 3; i++) {
		m[i] = zkp_pce_matrix(pce, (enum zkp_pce_matrix)i);
		st[i] = scan(m[i]);
	}
	uint64_t dens[3] = {
		popcount(zkp_pce_density_a_aux(pce), d->n_aux),
		popcount(zkp_pce_density_b_input(pce), d->n_inputs),
		popcount(zkp_pce_density_b_aux(pce), d->n_aux),
	};
	char digest[2 * ZKP_PCE_DIGEST_BYTES + 1];
	for (int i = 0; i < ZKP_PCE_DIGEST_BYTES; i++)
		snprintf(digest + 2 * i, 3, "%02x", zkp_pce_digest(pce)[i]);
	double b_aux_pct = d->n_aux ? 100.0 * (double)dens[2] / (double)d->n_aux : 0.0;
	zkp_porep_shape porep;
	bool is_porep = zkp_porep_label_decode(&porep, zkp_pce_label(pce));
	zkp_post_shape post;
	bool is_post = !is_porep && zkp_post_label_decode(&post, zkp_pce_label(pce));
	zkp_snap_shape snap;
	bool is_snap = !is_porep && !is_post && zkp_snap_label_decode(&snap, zkp_pce_label(pce));
	char desc[160] = "", tree[16] = "";
	if (is_porep) {
		zkp_porep_describe(desc, sizeof(desc), &porep);
		zkp_porep_tree_name(tree, &porep);
	} else if (is_post) {
		zkp_post_describe(desc, sizeof(desc), &post);
		zkp_porep_shape t = { .tree = { post.tree[0], post.tree[1], post.tree[2] } };
		zkp_porep_tree_name(tree, &t);
	} else if (is_snap) {
		zkp_snap_describe(desc, sizeof(desc), &snap);
		zkp_porep_shape t = { .tree = { snap.tree[0], snap.tree[1], snap.tree[2] } };
		zkp_porep_tree_name(tree, &t);
	}

	/* The model with the key this circuit's bellman setup makes (compact
	 * A and B: the density counts), mapped from its native cache. */
	zkp_groth16_pk pk;
	zkp_groth16_mem_model mm;
	const double gib = 1024.0 * 1024.0 * 1024.0;
	zkp_groth16_pk_init(&pk);
	pk.n[ZKP_GROTH16_IC] = (size_t)d->n_inputs;
	pk.n[ZKP_GROTH16_H] = ((size_t)1 << d->domain_log2) - 1;
	pk.n[ZKP_GROTH16_L] = (size_t)d->n_aux;
	pk.n[ZKP_GROTH16_A] = (size_t)(d->n_inputs + dens[0]);
	pk.n[ZKP_GROTH16_B_G1] = pk.n[ZKP_GROTH16_B_G2] = (size_t)(dens[1] + dens[2]);
	pk.mem_bytes = 96 * (pk.n[ZKP_GROTH16_IC] + pk.n[ZKP_GROTH16_H] + pk.n[ZKP_GROTH16_L] +
			     pk.n[ZKP_GROTH16_A] + pk.n[ZKP_GROTH16_B_G1]) +
		       192 * pk.n[ZKP_GROTH16_B_G2];
	pk.mem_mapped = true;
	zkp_groth16_mem_model_of(&mm, pce, &pk, (unsigned)threads);
	/* On a GPU (docs/memory.md, "On a GPU"): with the CUDA backend's own
	 * tables and workspace where the build has it. */
	zkp_groth16_device_need dn;
	zkp_groth16_device_need_of(&dn, pce, &pk, NULL);
#ifdef ZKPD_HAVE_CUDA
	zkp_backend_cuda_scratch_bytes(d->domain_log2, pk.n[ZKP_GROTH16_H] > pk.n[ZKP_GROTH16_L]
							      ? pk.n[ZKP_GROTH16_H]
							      : pk.n[ZKP_GROTH16_L],
				       pk.n[ZKP_GROTH16_B_G2], (size_t)(d->n_inputs + d->n_aux),
				       &dn.tables, &dn.msm);
	const bool have_cuda = true;
#else
	const bool have_cuda = false;
#endif
	const double dev_keys = (double)(dn.key_g1 + dn.key_g2 + dn.matrices + dn.tables);

	if (json) {
		printf("{\"file\": ");
		zkp_print_json_string(path);
		printf(", \"inputs\": %llu, \"aux\": %llu, \"constraints\": %llu, \"domain_log2\": %u,",
		       (unsigned long long)d->n_inputs, (unsigned long long)d->n_aux,
		       (unsigned long long)d->n_constraints, d->domain_log2);
		printf(" \"matrices\": {");
		for (int i = 0; i < 3; i++) {
			uint64_t distinct = m[i]->n_values + (st[i].ones > 0) + (st[i].minus_ones > 0);
			printf("%s\"%c\": {\"nnz\": %llu, \"plus_one\": %llu, \"minus_one\": %llu, "
			       "\"distinct\": %llu, \"values\": %llu, \"escapes\": %llu, "
			       "\"overflow_rows\": %llu}",
			       i ? ", " : "", "ABC"[i], (unsigned long long)m[i]->nnz,
			       (unsigned long long)st[i].ones, (unsigned long long)st[i].minus_ones,
			       (unsigned long long)distinct, (unsigned long long)m[i]->n_values,
			       (unsigned long long)m[i]->n_escapes,
			       (unsigned long long)m[i]->n_overflow);
		}
		printf("}, \"density\": {\"a_aux\": %llu, \"b_input\": %llu, \"b_aux\": %llu},",
		       (unsigned long long)dens[0], (unsigned long long)dens[1],
		       (unsigned long long)dens[2]);
		printf(" \"bytes_per_nnz\": %.3f, \"mapped_bytes\": %zu, \"digest\": \"%s\",",
		       zkp_pce_bytes_per_nnz(pce), zkp_pce_mapped_bytes(pce), digest);
		printf(" \"memory_model\": {\"threads\": %ld, \"circuit_bytes\": %.0f, "
		       "\"key_bytes\": %.0f, \"witness_bytes\": %.0f, \"abc_bytes\": %.0f, "
		       "\"domain_bytes\": %.0f, \"msm_g1_bytes\": %.0f, \"msm_g2_bytes\": %.0f, "
		       "\"working_set_eval_bytes\": %.0f, \"working_set_msm_bytes\": %.0f, "
		       "\"working_set_bytes\": %.0f},",
		       threads, mm.circuit, mm.key, mm.witness, mm.abc, mm.domain, mm.msm_g1,
		       mm.msm_g2, mm.ws_eval, mm.ws_msm, mm.ws);
		printf(" \"device_model\": {\"key_g1_bytes\": %llu, \"key_g2_bytes\": %llu, "
		       "\"matrices_bytes\": %llu, \"job_bytes\": %llu",
		       (unsigned long long)dn.key_g1, (unsigned long long)dn.key_g2,
		       (unsigned long long)dn.matrices, (unsigned long long)dn.job);
		if (have_cuda)
			printf(", \"cuda_tables_bytes\": %llu, \"cuda_msm_workspace_bytes\": %llu",
			       (unsigned long long)dn.tables, (unsigned long long)dn.msm);
		printf("}, \"circuit\": ");
		if (is_porep)
			printf("{\"kind\": \"filecoin-porep\", \"sector_bytes\": %llu, \"nodes\": %llu, "
			       "\"layers\": %u, \"challenges\": %u, \"tree\": \"%s\"}}\n",
			       (unsigned long long)porep.sector_bytes, (unsigned long long)porep.nodes,
			       porep.layers, porep.challenges, tree);
		else if (is_post)
			printf("{\"kind\": \"filecoin-post-%s\", \"sector_bytes\": %llu, "
			       "\"nodes\": %llu, \"sectors\": %u, \"challenges\": %u, \"tree\": \"%s\"}}\n",
			       zkp_post_kind_name(post.kind), (unsigned long long)post.sector_bytes,
			       (unsigned long long)post.nodes, post.sectors, post.challenges, tree);
		else if (is_snap)
			printf("{\"kind\": \"filecoin-snap\", \"sector_bytes\": %llu, "
			       "\"nodes\": %llu, \"partitions\": %u, \"challenges\": %u, "
			       "\"apex_leaves\": %u, \"tree\": \"%s\"}}\n",
			       (unsigned long long)snap.sector_bytes, (unsigned long long)snap.nodes,
			       snap.partitions, snap.challenges, snap.apex_leaves, tree);
		else
			printf("null}\n");
	} else {
		printf("file           %s\n", path);
		if (is_porep)
			printf("circuit        Filecoin StackedDRG PoRep partition, %s\n", desc);
		else if (is_post)
			printf("circuit        Filecoin Fallback PoSt, %s\n", desc);
		else if (is_snap)
			printf("circuit        Filecoin SnapDeals partition, %s\n", desc);
		printf("inputs         %llu (including ONE)\n", (unsigned long long)d->n_inputs);
		printf("aux            %llu\n", (unsigned long long)d->n_aux);
		printf("constraints    %llu\n", (unsigned long long)d->n_constraints);
		printf("domain         2^%u\n", d->domain_log2);
		printf("\nmatrix  %12s %12s %12s %9s %12s %9s\n", "nnz", "+1", "-1", "distinct",
		       "escapes", "overflow");
		for (int i = 0; i < 3; i++)
			printf("%c       %12llu %12llu %12llu %9llu %12llu %9llu\n", "ABC"[i],
			       (unsigned long long)m[i]->nnz, (unsigned long long)st[i].ones,
			       (unsigned long long)st[i].minus_ones,
			       (unsigned long long)(m[i]->n_values + (st[i].ones > 0) +
						    (st[i].minus_ones > 0)),
			       (unsigned long long)m[i]->n_escapes,
			       (unsigned long long)m[i]->n_overflow);
		printf("\ndensity        A aux %llu, B inputs %llu, B aux %llu (%.1f%% of aux)\n",
		       (unsigned long long)dens[0], (unsigned long long)dens[1],
		       (unsigned long long)dens[2], b_aux_pct);
		printf("bytes/nnz      %.3f\n", zkp_pce_bytes_per_nnz(pce));
		printf("mapped bytes   %zu\n", zkp_pce_mapped_bytes(pce));
		printf("digest         %s\n", digest);
		printf("\nmemory model   (docs/memory.md; a bellman key mapped from its cache, %ld threads)\n",
		       threads);
		printf("  shared       circuit %.2f GiB + key %.2f GiB\n", mm.circuit / gib,
		       mm.key / gib);
		printf("  per job      %.2f GiB: eval %.2f (witness %.2f, a b c %.2f, domain %.2f), "
		       "msm %.2f (G1 %.2f, G2 %.2f)\n",
		       mm.ws / gib, mm.ws_eval / gib, mm.witness / gib, mm.abc / gib,
		       mm.domain / gib, mm.ws_msm / gib, mm.msm_g1 / gib, mm.msm_g2 / gib);
		printf("  pipelines    1: %.2f GiB, 2: %.2f GiB, 4: %.2f GiB\n",
		       (mm.circuit + mm.key + mm.ws) / gib, (mm.circuit + mm.key + 2 * mm.ws) / gib,
		       (mm.circuit + mm.key + 4 * mm.ws) / gib);
		printf("\non a GPU       (device memory, docs/memory.md%s)\n",
		       have_cuda ? "; the CUDA backend's tables and workspace" : "");
		printf("  resident     G1 queries %.2f GiB, B_G2 %.2f GiB, matrices %.2f GiB",
		       (double)dn.key_g1 / gib, (double)dn.key_g2 / gib, (double)dn.matrices / gib);
		if (have_cuda)
			printf(", NTT tables %.2f GiB\n  workspace    MSM %.2f GiB\n",
			       (double)dn.tables / gib, (double)dn.msm / gib);
		else
			printf("\n");
		printf("  per job      %.2f GiB (a b c and the witness)\n", (double)dn.job / gib);
		if (have_cuda)
			printf("  jobs         1: %.2f GiB, 2: %.2f GiB, 4: %.2f GiB (all resident)\n",
			       (dev_keys + (double)dn.msm + (double)dn.job) / gib,
			       (dev_keys + (double)dn.msm + 2.0 * (double)dn.job) / gib,
			       (dev_keys + (double)dn.msm + 4.0 * (double)dn.job) / gib);
	}
	zkp_pce_free(pce);
	return ZKP_EXIT_OK;
}
