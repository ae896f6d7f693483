/*
 * zkp setup circuit.pce -o NAME [--seed S] [--threads T] [--backend B]
 *                                [--cache-only]
 *
 * Makes INSECURE development Groth16 keys for a circuit (groth16_prove.h:
 * toxic waste from RAND_bytes, or from --seed for reproducible runs, known
 * to this process and not destroyed in any verifiable way). Writes
 * NAME.INSECURE-DEV.params (bellman layout, with its native cache beside
 * it) and NAME.INSECURE-DEV.vk; with --cache-only, the standalone native
 * key NAME.INSECURE-DEV.zkpc instead of the .params and its cache. The
 * points are made on a GPU when --backend says so (auto: a CUDA device
 * when there is one); the files are the same byte for byte either way.
 * Anyone holding the seed, or a copy of this process's memory, can forge
 * proofs against these keys: they are for tests and benchmarks only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkp_cmds.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_prove.h"
#ifdef ZKPD_HAVE_CUDA
#include "zkpd/backend_cuda.h"
#endif
#include "zkpd/pool.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: zkp setup CIRCUIT.pce -o NAME [--seed S] [--threads T]\n"
		"                 [--backend cpu|cuda[:N]|auto] [--cache-only]\n\n"
		"Makes INSECURE development Groth16 keys (bellman layout) for CIRCUIT.pce\n"
		"and writes NAME.INSECURE-DEV.params (with its native cache, .zkpc, beside\n"
		"it) and NAME.INSECURE-DEV.vk. The toxic waste comes from the system's\n"
		"random generator, or from --seed S (then anyone who knows S can forge\n"
		"proofs). Never use these keys in production.\n"
		"  --threads T     threads to use (default: all processors)\n"
		"  --backend B     where the key's points are made: cpu, cuda[:N] (GPU N,\n"
		"                  default 0) or auto (the default: GPU 0 when this zkp has\n"
		"                  the CUDA backend and a GPU is present, else the CPU);\n"
		"                  the files are the same byte for byte\n"
		"  --cache-only    write the key only as NAME.INSECURE-DEV.zkpc, a standalone\n"
		"                  native key that zkpd maps as it is (key_format = bellman),\n"
		"                  for keys too large to keep twice (a 32 GiB PoRep\n"
		"                  partition's is 47 GB); no .params\n");
}

/* The backend for --backend: NULL for the CPU (the setup makes its own
 * over its pool), a CUDA backend otherwise. Prints what was chosen. */
static int open_backend(zkp_backend **ret, const char *spec)
{
	*ret = NULL;
	bool autopick = !strcmp(spec, "auto");
	if (!strcmp(spec, "cpu"))
		goto cpu;
	if (!autopick && strncmp(spec, "cuda", 4) != 0) {
		fprintf(stderr, "zkp setup: --backend is cpu, cuda[:N] or auto, not '%s'\n", spec);
		return ZKP_EXIT_USAGE;
	}
#ifdef ZKPD_HAVE_CUDA
	{
		long dev = 0;
		if (!autopick && spec[4] == ':') {
			char *end;
			dev = strtol(spec + 5, &end, 10);
			if (*end || end == spec + 5 || dev < 0) {
				fprintf(stderr, "zkp setup: --backend %s: not a GPU index\n", spec);
				return ZKP_EXIT_USAGE;
			}
		} else if (!autopick && spec[4]) {
			fprintf(stderr, "zkp setup: --backend is cpu, cuda[:N] or auto, not '%s'\n",
				spec);
			return ZKP_EXIT_USAGE;
		}
		int count = 0;
		if (zkp_backend_cuda_count(&count) || count == 0) {
			if (autopick)
				goto cpu;
			fprintf(stderr, "zkp setup: --backend %s: no CUDA device\n", spec);
			return ZKP_EXIT_FAIL;
		}
		zkp_error e = { 0 };
		int rc = zkp_backend_cuda_new(ret, (int)dev, &e);
		if (rc) {
			fprintf(stderr, "zkp setup: --backend %s: %s\n", spec, zkp_error_text(&e, rc));
			return ZKP_EXIT_FAIL;
		}
		fprintf(stderr, "zkp setup: points on GPU %ld\n", dev);
		return ZKP_EXIT_OK;
	}
#else
	if (autopick)
		goto cpu;
	fprintf(stderr, "zkp setup: --backend %s: this zkp was built without the CUDA backend\n",
		spec);
	return ZKP_EXIT_FAIL;
#endif
cpu:
	fprintf(stderr, "zkp setup: points on the CPU\n");
	return ZKP_EXIT_OK;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int zkp_cmd_setup(int argc, char **argv)
{
	const char *pce_path = NULL, *name = NULL, *backend = "auto";
	uint64_t seed = 0;
	bool have_seed = false, cache_only = false;
	long threads = zkp_pool_default_threads();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return ZKP_EXIT_OK;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			name = argv[++i];
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			if (zkp_parse_seed("setup", argv[++i], &seed))
				return ZKP_EXIT_USAGE;
			have_seed = true;
		} else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
			backend = argv[++i];
		} else if (!strcmp(argv[i], "--cache-only")) {
			cache_only = true;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			if (zkp_parse_threads("setup", argv[++i], &threads))
				return ZKP_EXIT_USAGE;
		} else if (argv[i][0] == '-' || pce_path) {
			fprintf(stderr, "zkp setup: unexpected argument '%s'\n", argv[i]);
			help(stderr);
			return ZKP_EXIT_USAGE;
		} else {
			pce_path = argv[i];
		}
	}
	if (!pce_path || !name) {
		help(stderr);
		return ZKP_EXIT_USAGE;
	}
	if (threads < 1)
		threads = 1;

	int ret = ZKP_EXIT_FAIL, rc;
	zkp_error err = { 0 };
	zkp_pce *pce = NULL;
	zkp_pool *pool = NULL;
	zkp_backend *be = NULL;
	zkp_groth16_pk pk;
	zkp_groth16_pk_init(&pk);
	size_t len = strlen(name) + 32;
	char *params = malloc(len), *vk = malloc(len);
	if (!params || !vk) {
		fprintf(stderr, "zkp setup: out of memory\n");
		goto out;
	}
	snprintf(params, len, "%s.INSECURE-DEV.%s", name, cache_only ? "zkpc" : "params");
	snprintf(vk, len, "%s.INSECURE-DEV.vk", name);

	rc = zkp_pce_load(&pce, pce_path, 0, &err);
	if (rc) {
		fprintf(stderr, "zkp setup: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	if (zkp_pool_new(&pool, (unsigned)threads - 1)) {
		fprintf(stderr, "zkp setup: cannot start %ld threads\n", threads);
		goto out;
	}
	if ((rc = open_backend(&be, backend)) != ZKP_EXIT_OK) {
		ret = rc;
		goto out;
	}
	fprintf(stderr, "zkp setup: WARNING: making INSECURE development keys%s; whoever knows "
			"the toxic waste can forge proofs\n",
		have_seed ? " from a fixed seed" : "");
	double t0 = now();
	rc = zkp_groth16_setup_dev(&pk, pce, ZKP_GROTH16_H_BELLMAN, have_seed ? &seed : NULL, be,
				   pool, &err);
	if (rc) {
		fprintf(stderr, "zkp setup: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	double t1 = now();
	if (cache_only) {
		rc = zkp_groth16_pk_write_standalone(&pk, params, pool, &err);
	} else {
		rc = zkp_groth16_pk_write_params(&pk, params, &err);
		/* The first load then maps the key rather than decoding and
		 * subgroup-checking every point again. */
		if (!rc)
			rc = zkp_groth16_pk_write_cache(&pk, params, NULL, pool, &err);
	}
	if (!rc)
		rc = zkp_groth16_vk_write_bellman(&pk.vk, vk, &err);
	if (rc) {
		fprintf(stderr, "zkp setup: %s\n", zkp_error_text(&err, rc));
		goto out;
	}
	fprintf(stderr,
		"zkp setup: wrote INSECURE development keys %s and %s (domain 2^%u, ic %zu, "
		"h %zu, l %zu, a %zu, b %zu); setup %.2f s, write %.2f s\n",
		params, vk, zkp_pce_get_dims(pce)->domain_log2, pk.n[ZKP_GROTH16_IC],
		pk.n[ZKP_GROTH16_H], pk.n[ZKP_GROTH16_L], pk.n[ZKP_GROTH16_A],
		pk.n[ZKP_GROTH16_B_G1], t1 - t0, now() - t1);
	printf("%s\n%s\n", params, vk);
	ret = ZKP_EXIT_OK;
out:
	zkp_groth16_pk_release(&pk);
	zkp_backend_free(be);
	zkp_pool_free(pool);
	zkp_pce_free(pce);
	free(params);
	free(vk);
	return ret;
}
