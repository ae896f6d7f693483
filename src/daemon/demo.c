/*
 * The bundled demo circuit. Made with the same library calls as
 * `zkp synth` and `zkp setup`, so what the demo proves is what the tools
 * and tests prove.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/log.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/synth.h"

#define DEMO_SEED 20261202u

void zkp_demo_default_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		snprintf(buf, size, "%s/zkpd/demo", xdg);
	else if (home && *home == '/')
		snprintf(buf, size, "%s/.cache/zkpd/demo", home);
	else
		snprintf(buf, size, "/tmp/zkpd-%u/demo", (unsigned)getuid());
}

/* mkdir -p with mode 0700 for what it creates. */
static int make_dirs(const char *dir, zkp_error *err)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return zkp_error_set(err, ZKP_ERR_IO, "demo directory path too long");
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != 0)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(path, 0700) && errno != EEXIST)
			return zkp_error_set(err, ZKP_ERR_IO, "cannot create %s: %s", path,
					     strerror(errno));
		*p = c;
		if (!c)
			return 0;
	}
}

static int make_files(const char *dir, zkp_error *err)
{
	char pce_path[4200], wtns_path[4200], params_path[4200], vk_path[4200];
	zkp_synth_info info;
	zkp_pce_builder *b = NULL;
	zkp_pce *pce = NULL;
	zkp_pool *pool = NULL;
	zkp_groth16_pk pk;
	zkp_fr *w = NULL;
	int rc;

	zkp_groth16_pk_init(&pk);
	snprintf(pce_path, sizeof(pce_path), "%s/demo.pce", dir);
	snprintf(wtns_path, sizeof(wtns_path), "%s/demo.wtns", dir);
	snprintf(params_path, sizeof(params_path), "%s/demo.INSECURE-DEV.params", dir);
	snprintf(vk_path, sizeof(vk_path), "%s/demo.INSECURE-DEV.vk", dir);

	rc = zkp_synth_porep_dims(ZKP_DEMO_CONSTRAINTS, &info, err);
	if (rc)
		goto out;
	w = malloc((size_t)(info.n_inputs + info.n_aux) * sizeof(zkp_fr));
	if (!w) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the demo witness");
		goto out;
	}
	rc = zkp_pce_builder_new(&b, info.n_inputs, info.n_aux);
	if (rc) {
		zkp_error_set(err, rc, "no memory for the demo circuit");
		goto out;
	}
	rc = zkp_synth_porep(ZKP_DEMO_CONSTRAINTS, DEMO_SEED, zkp_synth_builder_sink, b, w, NULL,
			     err);
	if (!rc)
		rc = zkp_pce_builder_write(b, pce_path, err);
	if (!rc)
		rc = zkp_synth_write_wtns(wtns_path, w, info.n_inputs + info.n_aux, err);
	if (!rc)
		rc = zkp_pce_load(&pce, pce_path, 0, err);
	if (rc)
		goto out;
	rc = zkp_pool_new(&pool, zkp_pool_default_threads() - 1);
	if (rc) {
		zkp_error_set(err, rc, "cannot start threads for the demo key");
		goto out;
	}
	const uint64_t seed = DEMO_SEED;
	rc = zkp_groth16_setup_dev(&pk, pce, ZKP_GROTH16_H_BELLMAN, &seed, NULL, pool, err);
	if (!rc)
		rc = zkp_groth16_pk_write_params(&pk, params_path, err);
	if (!rc)
		rc = zkp_groth16_vk_write_bellman(&pk.vk, vk_path, err);
out:
	zkp_groth16_pk_release(&pk);
	zkp_pool_free(pool);
	zkp_pce_free(pce);
	zkp_pce_builder_free(b);
	free(w);
	return rc;
}

int zkp_demo_prepare(zkp_config *cfg, const char *dir, zkp_error *err)
{
	char ready[4200];
	struct stat st;
	int rc = make_dirs(dir, err);
	if (rc)
		return rc;
	snprintf(ready, sizeof(ready), "%s/demo.ready", dir);
	if (stat(ready, &st)) {
		zkp_log(ZKP_LOG_INFO, "making the demo circuit (%u constraints) and its INSECURE "
				      "development key in %s", ZKP_DEMO_CONSTRAINTS, dir);
		rc = make_files(dir, err);
		if (rc)
			return rc;
		FILE *f = fopen(ready, "w");
		if (!f || fputs("demo circuit and INSECURE development key: complete\n", f) < 0 ||
		    fclose(f))
			return zkp_error_set(err, ZKP_ERR_IO, "cannot write %s", ready);
	}
	zkp_config_circuit c;
	char pce_path[4200], key_path[4200];
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "demo");
	snprintf(pce_path, sizeof(pce_path), "%s/demo.pce", dir);
	snprintf(key_path, sizeof(key_path), "%s/demo.INSECURE-DEV.params", dir);
	c.pce = pce_path;
	c.key = key_path;
	c.key_format = ZKP_KEY_FORMAT_BELLMAN;
	c.preload = true;
	c.insecure_dev_key = true;
	rc = zkp_config_add_circuit(cfg, &c, err);
	if (rc)
		return rc;
	if (!cfg->witness_dir) {
		cfg->witness_dir = strdup(dir);
		if (!cfg->witness_dir)
			return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory");
	}
	return 0;
}
