/*
 * zkp post dev-vanilla: development PoSt vanilla proofs (post_dev.h) of
 * sectors sealed as `zkp porep seal` seals them, written as Filecoin hands
 * them to a PoSt prover.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zkp_cmds.h"
#include "zkpd/porep_graph.h"
#include "zkpd/porep_seal.h"
#include "zkpd/post_dev.h"
#include "zkpd/rng.h"

static const char *usage_text =
	"--proof-type N --random SEED --prover-id HEX --ticket HEX --sector-ids ID[,ID...]\n"
	"          --randomness HEX [--partition K] -o DIR\n\n"
	"DEVELOPMENT PoSt vanilla proofs: seals each sector of random data (--random SEED,\n"
	"then SEED+1, ...) over Filecoin's graph as `zkp porep seal` does (V1_1), and\n"
	"writes DIR/sector-ID.bin, the bincode FallbackPoStSectorProof of each at the\n"
	"challenges derived from --randomness, its id and its position in the proof\n"
	"(partition K's sectors come after K * sectors-per-partition others). N is the\n"
	"registered PoSt proof (go-state-types: 0-4 WinningPoSt, 5-9 WindowPoSt V1,\n"
	"10-14 WindowPoSt V1_1, each for 2KiB, 8MiB, 512MiB, 32GiB, 64GiB).";

static int usage(void)
{
	fprintf(stderr, "usage: zkp post dev-vanilla %s\n", usage_text);
	return ZKP_EXIT_USAGE;
}

int zkp_cmd_post_dev(int argc, char **argv)
{
	const char *out = NULL, *ids = NULL;
	uint64_t type_id = 0, seed = 0, partition = 0;
	uint8_t prover[32], ticket[32], rnd[32];
	unsigned have = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		const char *cmd = "post dev-vanilla";
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: zkp post dev-vanilla %s\n", usage_text);
			return ZKP_EXIT_OK;
		} else if (!strcmp(a, "--proof-type") && has) {
			if (zkp_parse_u64(cmd, a, argv[++i], &type_id))
				return ZKP_EXIT_USAGE;
			have |= 1;
		} else if (!strcmp(a, "--random") && has) {
			if (zkp_parse_seed(cmd, argv[++i], &seed))
				return ZKP_EXIT_USAGE;
			have |= 2;
		} else if (!strcmp(a, "--prover-id") && has) {
			if (zkp_parse_hex32(cmd, a, argv[++i], prover))
				return ZKP_EXIT_USAGE;
			have |= 4;
		} else if (!strcmp(a, "--ticket") && has) {
			if (zkp_parse_hex32(cmd, a, argv[++i], ticket))
				return ZKP_EXIT_USAGE;
			have |= 8;
		} else if (!strcmp(a, "--randomness") && has) {
			if (zkp_parse_hex32(cmd, a, argv[++i], rnd))
				return ZKP_EXIT_USAGE;
			have |= 16;
		} else if (!strcmp(a, "--sector-ids") && has) {
			ids = argv[++i];
			have |= 32;
		} else if (!strcmp(a, "--partition") && has) {
			if (zkp_parse_u64(cmd, a, argv[++i], &partition))
				return ZKP_EXIT_USAGE;
		} else if (!strcmp(a, "-o") && has) {
			out = argv[++i];
		} else {
			return usage();
		}
	}
	if (have != 63 || !out)
		return usage();
	zkp_error err = { 0 };
	zkp_post_proof_type pt;
	zkp_post_shape s;
	if (zkp_post_proof_type_from_id(&pt, (int64_t)type_id, &err) ||
	    zkp_post_shape_for_size(&s, pt.kind, pt.sector_bytes, &err)) {
		fprintf(stderr, "zkp post dev-vanilla: %s\n", err.msg);
		return ZKP_EXIT_USAGE;
	}
	const zkp_porep_proof *all, *p = NULL;
	size_t np;
	all = zkp_porep_proofs(&np);
	for (size_t i = 0; i < np; i++)
		if (all[i].sector_bytes == pt.sector_bytes && all[i].mode == ZKP_POREP_INTERACTIVE &&
		    all[i].api == ZKP_POREP_V1_1)
			p = &all[i];
	if (!p) {
		fprintf(stderr, "zkp post dev-vanilla: no sealer for %s\n", pt.name);
		return ZKP_EXIT_USAGE;
	}
	if (mkdir(out, 0755) && errno != EEXIST) {
		perror(out);
		return ZKP_EXIT_FAIL;
	}
	zkp_fr *data = malloc(s.nodes * sizeof(zkp_fr));
	if (!data)
		return ZKP_EXIT_FAIL;
	int rc = ZKP_EXIT_OK;
	unsigned count = 0;
	printf("{\"proof_type\": %llu, \"name\": \"%s\", \"partition\": %llu, \"randomness\": \"",
	       (unsigned long long)type_id, pt.name, (unsigned long long)partition);
	zkp_print_hex32(rnd);
	printf("\", \"sectors\": [");
	for (const char *c = ids; *c && rc == ZKP_EXIT_OK;) {
		char *end;
		unsigned long long id = strtoull(c, &end, 10);
		if (end == c || (*end && *end != ',')) {
			fprintf(stderr, "zkp post dev-vanilla: bad --sector-ids '%s'\n", ids);
			rc = ZKP_EXIT_USAGE;
			break;
		}
		zkp_rng r;
		zkp_rng_seed(&r, seed + count);
		for (uint64_t n = 0; n < s.nodes; n++) {
			uint64_t wide[8];
			for (int k = 0; k < 8; k++)
				wide[k] = zkp_rng_next(&r);
			zkp_fr_from_wide(&data[n], wide);
		}
		zkp_porep_sector *sec = NULL;
		uint8_t *b = NULL;
		size_t len;
		char path[4096];
		snprintf(path, sizeof(path), "%s/sector-%llu.bin", out, id);
		FILE *f = NULL;
		if (zkp_porep_seal_sector(&sec, p, data, prover, id, ticket, &err) ||
		    zkp_post_dev_vanilla(&b, &len, sec, id, &pt, rnd,
					 partition * s.sectors + count, &err)) {
			fprintf(stderr, "zkp post dev-vanilla: sector %llu: %s\n", id, err.msg);
			rc = ZKP_EXIT_FAIL;
		} else if (!(f = fopen(path, "wb")) || fwrite(b, 1, len, f) != len) {
			perror(path);
			rc = ZKP_EXIT_FAIL;
		}
		if (f && fclose(f) && rc == ZKP_EXIT_OK) {
			perror(path);
			rc = ZKP_EXIT_FAIL;
		}
		printf("%s%llu", count ? ", " : "", id);
		free(b);
		zkp_porep_sector_free(sec);
		count++;
		c = *end ? end + 1 : end;
	}
	printf("]}\n");
	free(data);
	return rc;
}
