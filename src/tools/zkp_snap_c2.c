/*
 * zkp snap dev-update | prove | verify: a development SnapDeals update
 * whose vanilla proofs are written as Filecoin hands them to a prover, and
 * SnapDeals proving and verification from vanilla proofs and commitments
 * (include/zkpd/snap_c2.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zkp_cmds.h"
#include "zkpd/backend.h"
#include "zkpd/file.h"
#include "zkpd/groth16_io.h"
#include "zkpd/porep.h"
#include "zkpd/porep_graph.h"
#include "zkpd/porep_seal.h"
#include "zkpd/pool.h"
#include "zkpd/rng.h"
#include "zkpd/snap_c2.h"
#include "zkpd/snap_dev.h"

static int usage(const char *cmd, const char *text)
{
	fprintf(stderr, "usage: zkp snap %s %s\n", cmd, text);
	return ZKP_EXIT_USAGE;
}

static void random_nodes(zkp_fr *out, uint64_t n, uint64_t seed)
{
	zkp_rng r;
	zkp_rng_seed(&r, seed);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t wide[8];
		for (int k = 0; k < 8; k++)
			wide[k] = zkp_rng_next(&r);
		zkp_fr_from_wide(&out[i], wide);
	}
}

static int write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

static const char *dev_usage =
	"--sector-size SIZE --random SEED --prover-id HEX --sector-id N --ticket HEX\n"
	"          --data-seed SEED -o DIR\n\n"
	"A DEVELOPMENT update: seals a sector of random data (--random) over Filecoin's\n"
	"graph as `zkp porep seal` does (V1_1), updates it with random new data\n"
	"(--data-seed): tree D new, phi, every node encoded with rho, tree R new,\n"
	"comm_r_new. Writes DIR/partition-K.bin (bincode PartitionProof, one per\n"
	"partition, as Filecoin passes them) and DIR/public.json (sector size,\n"
	"partitions, h, comm_r_old, comm_d_new, comm_r_new as 64 hex digits of their\n"
	"32 little-endian bytes), and prints public.json.";

static int cmd_dev_update(int argc, char **argv)
{
	const char *size = NULL, *out = NULL;
	uint64_t rseed = 0, dseed = 0, sector_id = 0;
	uint8_t prover_id[32], ticket[32];
	bool have[6] = { false };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (!strcmp(a, "--sector-size") && has)
			size = argv[++i], have[0] = true;
		else if (!strcmp(a, "--random") && has) {
			if (zkp_parse_seed("snap dev-update", argv[++i], &rseed))
				return ZKP_EXIT_USAGE;
			have[1] = true;
		} else if (!strcmp(a, "--prover-id") && has) {
			if (zkp_parse_hex32("snap dev-update", a, argv[++i], prover_id))
				return ZKP_EXIT_USAGE;
			have[2] = true;
		} else if (!strcmp(a, "--sector-id") && has) {
			if (zkp_parse_seed("snap dev-update", argv[++i], &sector_id))
				return ZKP_EXIT_USAGE;
			have[3] = true;
		} else if (!strcmp(a, "--ticket") && has) {
			if (zkp_parse_hex32("snap dev-update", a, argv[++i], ticket))
				return ZKP_EXIT_USAGE;
			have[4] = true;
		} else if (!strcmp(a, "--data-seed") && has) {
			if (zkp_parse_seed("snap dev-update", argv[++i], &dseed))
				return ZKP_EXIT_USAGE;
			have[5] = true;
		} else if (!strcmp(a, "-o") && has)
			out = argv[++i];
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp snap dev-update %s\n", dev_usage);
			return ZKP_EXIT_OK;
		} else
			return usage("dev-update", dev_usage);
	}
	for (int i = 0; i < 6; i++)
		if (!have[i])
			return usage("dev-update", dev_usage);
	if (!out)
		return usage("dev-update", dev_usage);

	zkp_error err = { 0 };
	uint64_t bytes;
	zkp_snap_shape s;
	const zkp_porep_proof *p = NULL;
	if (zkp_porep_parse_size(&bytes, size, &err) || zkp_snap_shape_for_size(&s, bytes, &err)) {
		fprintf(stderr, "zkp snap dev-update: %s\n", err.msg);
		return ZKP_EXIT_USAGE;
	}
	size_t nproofs;
	const zkp_porep_proof *all = zkp_porep_proofs(&nproofs);
	for (size_t i = 0; i < nproofs; i++)
		if (all[i].sector_bytes == bytes && all[i].mode == ZKP_POREP_INTERACTIVE &&
		    all[i].api == ZKP_POREP_V1_1)
			p = &all[i];
	if (!p) {
		fprintf(stderr, "zkp snap dev-update: %llu-byte sectors are not sealed by Filecoin (2KiB, 8MiB, 512MiB, 32GiB, 64GiB are)\n",
			(unsigned long long)bytes);
		return ZKP_EXIT_USAGE;
	}
	if (mkdir(out, 0755) && errno != EEXIST) {
		perror(out);
		return ZKP_EXIT_FAIL;
	}

	int rc = ZKP_EXIT_FAIL;
	zkp_fr *data = malloc(s.nodes * sizeof(zkp_fr));
	zkp_porep_sector *sec = NULL;
	zkp_snap_dev *d = NULL;
	uint8_t *buf = NULL;
	double t0 = zkp_now();
	if (!data) {
		fprintf(stderr, "zkp snap dev-update: no memory for %llu nodes\n",
			(unsigned long long)s.nodes);
		goto out;
	}
	random_nodes(data, s.nodes, rseed);
	if (zkp_porep_seal_sector(&sec, p, data, prover_id, sector_id, ticket, &err))
		goto fail;
	double t_seal = zkp_now() - t0;
	random_nodes(data, s.nodes, dseed);
	if (zkp_snap_dev_new(&d, &s, sec, data, s.hs[3], &err))
		goto fail;
	for (unsigned k = 0; k < s.partitions; k++) {
		zkp_snap_witness w;
		size_t len;
		char path[4096];
		if (zkp_snap_dev_partition(d, k, &w, NULL, &err) ||
		    zkp_snap_vanilla_encode(&buf, &len, &s, &w, &err))
			goto fail;
		snprintf(path, sizeof(path), "%s/partition-%u.bin", out, k);
		if (write_file(path, buf, len)) {
			perror(path);
			goto out;
		}
		free(buf);
		buf = NULL;
	}
	uint8_t c[3][32];
	zkp_fr_to_le(c[0], zkp_snap_dev_comm_r_old(d));
	zkp_fr_to_le(c[1], zkp_snap_dev_comm_d_new(d));
	zkp_fr_to_le(c[2], zkp_snap_dev_comm_r_new(d));
	char path[4096];
	snprintf(path, sizeof(path), "%s/public.json", out);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		goto out;
	}
	static const char *const names[3] = { "comm_r_old", "comm_d_new", "comm_r_new" };
	for (int pass = 0; pass < 2; pass++) {
		FILE *o = pass ? stdout : f;
		fprintf(o, "{\"sector_size\": %llu, \"partitions\": %u, \"h\": %u",
			(unsigned long long)bytes, s.partitions, s.hs[3]);
		for (int i = 0; i < 3; i++) {
			fprintf(o, ", \"%s\": \"", names[i]);
			for (int j = 0; j < 32; j++)
				fprintf(o, "%02x", c[i][j]);
			fprintf(o, "\"");
		}
		fprintf(o, "}\n");
	}
	if (fclose(f)) {
		perror(path);
		goto out;
	}
	fprintf(stderr, "zkp snap dev-update: sealed in %.2f s, updated and written in %.2f s\n",
		t_seal, zkp_now() - t0 - t_seal);
	rc = ZKP_EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "zkp snap dev-update: %s\n", err.msg);
out:
	free(buf);
	zkp_snap_dev_free(d);
	zkp_porep_sector_free(sec);
	free(data);
	return rc;
}

/* The commitments and shape every command takes. */
struct pub {
	const char *size;
	uint8_t c[3][32];
	bool have[3];
	zkp_snap_shape s;
};

static int pub_arg(struct pub *p, const char *cmd, int argc, char **argv, int *i, int *ret)
{
	static const char *const opt[3] = { "--comm-r-old", "--comm-d-new", "--comm-r-new" };
	const char *a = argv[*i];
	if (*i + 1 >= argc)
		return 0;
	if (!strcmp(a, "--sector-size")) {
		p->size = argv[++*i];
		return 1;
	}
	for (int k = 0; k < 3; k++)
		if (!strcmp(a, opt[k])) {
			*ret = zkp_parse_hex32(cmd, a, argv[++*i], p->c[k]) ? ZKP_EXIT_USAGE : 0;
			p->have[k] = true;
			return 1;
		}
	return 0;
}

static int pub_check(struct pub *p, const char *cmd)
{
	zkp_error err = { 0 };
	uint64_t bytes;
	if (!p->size || !p->have[0] || !p->have[1] || !p->have[2])
		return -1;
	if (zkp_porep_parse_size(&bytes, p->size, &err) || zkp_snap_shape_for_size(&p->s, bytes, &err)) {
		fprintf(stderr, "zkp %s: %s\n", cmd, err.msg);
		return -1;
	}
	return 0;
}

#define PUB_USAGE "--sector-size SIZE --comm-r-old HEX --comm-d-new HEX --comm-r-new HEX"

static const char *prove_usage =
	PUB_USAGE "\n          --key KEY --pce CIRCUIT.pce -o PROOF [--threads T] PARTITION.bin...\n\n"
	"Proves a SnapDeals update from its vanilla proofs (one bincode PartitionProof per\n"
	"partition, in order) and writes the 192-byte proofs concatenated. Each vanilla\n"
	"proof is first checked against the commitments (challenges from comm_r_new,\n"
	"paths, encoding); each proof is verified with the inputs derived from them\n"
	"before it is written. Commitments: 64 hex digits of their 32 little-endian bytes.\n"
	"--threads T: threads to prove on (default: every online CPU).";

static uint8_t *read_all(const char *path, size_t *len)
{
	zkp_error err = { 0 };
	uint8_t *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "zkp snap: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	int rc = zkp_file_read_fd(fd, path, &b, len, &err);
	close(fd);
	if (rc) {
		fprintf(stderr, "zkp snap: %s\n", err.msg);
		return NULL;
	}
	return b;
}

static int cmd_prove(int argc, char **argv)
{
	struct pub pb = { 0 };
	const char *key = NULL, *pce_path = NULL, *out = NULL;
	const char *files[16];
	unsigned nfiles = 0;
	long threads = zkp_pool_default_threads();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		int r = 0;
		if (pub_arg(&pb, "snap prove", argc, argv, &i, &r)) {
			if (r)
				return r;
		} else if (!strcmp(a, "--key") && has)
			key = argv[++i];
		else if (!strcmp(a, "--pce") && has)
			pce_path = argv[++i];
		else if (!strcmp(a, "-o") && has)
			out = argv[++i];
		else if (!strcmp(a, "--threads") && has) {
			if (zkp_parse_threads("snap prove", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp snap prove %s\n", prove_usage);
			return ZKP_EXIT_OK;
		} else if (a[0] != '-' && nfiles < 16)
			files[nfiles++] = a;
		else
			return usage("prove", prove_usage);
	}
	if (!key || !pce_path || !out || !nfiles || pub_check(&pb, "snap prove"))
		return usage("prove", prove_usage);

	int rc = ZKP_EXIT_FAIL;
	zkp_error err = { 0 };
	uint8_t *bufs[16] = { 0 };
	size_t lens[16];
	zkp_snap_update u = { 0 };
	zkp_cli_prover lp;
	zkp_groth16_proof proofs[16];
	memset(&lp, 0, sizeof(lp));
	for (unsigned k = 0; k < nfiles; k++)
		if (!(bufs[k] = read_all(files[k], &lens[k])))
			goto out;
	if (zkp_snap_update_decode(&u, &pb.s, pb.c[0], pb.c[1], pb.c[2],
				   (const uint8_t *const *)bufs, lens, nfiles, &err)) {
		fprintf(stderr, "zkp snap prove: %s\n", err.msg);
		goto out;
	}
	if (zkp_cli_prover_load(&lp, "snap prove", pce_path, key, threads))
		goto out;
	zkp_snap_shape label;
	if (!zkp_snap_label_decode(&label, zkp_pce_label(lp.pce)) ||
	    label.sector_bytes != pb.s.sector_bytes) {
		fprintf(stderr, "zkp snap prove: %s is not the %s SnapDeals circuit (zkp snap circuit --sector-size writes it)\n",
			pce_path, pb.size);
		goto out;
	}
	for (unsigned k = 0; k < nfiles; k++) {
		zkp_groth16_prove_times t;
		double t0 = zkp_now();
		if (zkp_snap_prove_partition(&proofs[k], &t, &lp.prover, &u, k, &err)) {
			fprintf(stderr, "zkp snap prove: %s\n", err.msg);
			goto out;
		}
		fprintf(stderr, "zkp snap prove: partition %u: witness and proof in %.2f s (prover %.2f s), verified\n",
			k, zkp_now() - t0, t.total);
	}
	if (zkp_cli_write_proofs(out, proofs, nfiles))
		goto out;
	printf("proof          %s: %u partition proof%s (%u bytes), every one verified\n", out,
	       nfiles, nfiles == 1 ? "" : "s", nfiles * ZKP_GROTH16_PROOF_BYTES);
	rc = ZKP_EXIT_OK;
out:
	for (unsigned k = 0; k < nfiles; k++)
		free(bufs[k]);
	zkp_snap_update_release(&u);
	zkp_cli_prover_release(&lp);
	return rc;
}

static const char *verify_usage =
	PUB_USAGE " --vk VK --proof PROOF\n\n"
	"Verifies a SnapDeals proof (one 192-byte proof per partition) against public\n"
	"inputs derived from the commitments. Exit 0 valid, 1 invalid or refused, 2 usage.";

static int cmd_verify(int argc, char **argv)
{
	struct pub pb = { 0 };
	const char *vk_path = NULL, *proof_path = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		int r = 0;
		if (pub_arg(&pb, "snap verify", argc, argv, &i, &r)) {
			if (r)
				return r;
		} else if (!strcmp(a, "--vk") && has)
			vk_path = argv[++i];
		else if (!strcmp(a, "--proof") && has)
			proof_path = argv[++i];
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp snap verify %s\n", verify_usage);
			return ZKP_EXIT_OK;
		} else
			return usage("verify", verify_usage);
	}
	if (!vk_path || !proof_path || pub_check(&pb, "snap verify"))
		return usage("verify", verify_usage);

	zkp_error err = { 0 };
	zkp_groth16_pvk *pvk = NULL;
	zkp_groth16_proof proofs[16];
	int rc = zkp_cli_read_proofs("snap verify", proof_path, proofs, pb.s.partitions);
	if (rc > 0)
		printf("invalid\n");
	if (rc)
		return rc < 0 ? ZKP_EXIT_USAGE : ZKP_EXIT_FAIL;
	if (zkp_cli_pvk_load(&pvk, "snap verify", vk_path))
		return ZKP_EXIT_FAIL;
	rc = ZKP_EXIT_OK;
	if (zkp_snap_verify(pvk, proofs, &pb.s, pb.c[0], pb.c[1], pb.c[2], &err)) {
		fprintf(stderr, "zkp snap verify: %s\n", err.msg);
		printf("invalid\n");
		rc = ZKP_EXIT_FAIL;
	} else {
		printf("valid\n");
	}
	zkp_groth16_pvk_free(pvk);
	return rc;
}

int zkp_cmd_snap_c2(const char *sub, int argc, char **argv)
{
	if (!strcmp(sub, "dev-update"))
		return cmd_dev_update(argc, argv);
	if (!strcmp(sub, "prove"))
		return cmd_prove(argc, argv);
	return cmd_verify(argc, argv);
}
