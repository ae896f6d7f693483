/*
 * engine circuits: the circuit table and the loader thread. A load maps the
 * .pce, decodes the key against the circuit's shape, prepares the vk once
 * and computes the memory model admission reserves per job; it runs without
 * the engine lock, so submissions and status go on meanwhile.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "zkpd/groth16_io.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"
#include "zkpd/porep.h"
#include "zkpd/post.h"
#include "zkpd/snap.h"

int circuits_init(struct zkp_engine *e)
{
	if (!e->cfg.n_circuits)
		return 0;
	e->circuits = calloc(e->cfg.n_circuits, sizeof(*e->circuits));
	if (!e->circuits)
		return ZKP_ERR_NOMEM;
	e->n_circuits = e->cfg.n_circuits;
	for (size_t i = 0; i < e->n_circuits; i++) {
		struct circuit *c = &e->circuits[i];
		c->cfg = e->cfg.circuits[i];
		c->insecure = c->cfg.insecure_dev_key ||
			      (c->cfg.key && strstr(c->cfg.key, "INSECURE-DEV"));
		zkp_groth16_pk_init(&c->pk);
		c->want_load = c->cfg.preload;
	}
	return 0;
}

/* counted: the parts were added to the memory tracker's pce and key
 * counters (a finished load), which must give them back. */
static void circuit_unload_parts(zkp_pce *pce, zkp_groth16_pk *pk, zkp_groth16_pvk *pvk,
				 bool counted)
{
	if (counted && pce) {
		zkp_mem_sub(ZKP_MEM_PCE, zkp_pce_mapped_bytes(pce));
		zkp_mem_sub(ZKP_MEM_KEY, pk->mem_bytes);
	}
	zkp_groth16_pvk_free(pvk);
	zkp_groth16_pk_release(pk);
	zkp_pce_free(pce);
}

zkp_groth16_resident **circuit_resident_slot(struct zkp_engine *e, struct circuit *c,
					     const struct device *d)
{
	if (!c->rk)
		c->rk = calloc(e->n_devs, sizeof(*c->rk));
	return c->rk ? &c->rk[d->index] : NULL;
}

/* Frees a slot array detached from its circuit. */
static void resident_free_all(struct zkp_engine *e, zkp_groth16_resident **rk)
{
	if (!rk)
		return;
	for (size_t i = 0; i < e->n_devs; i++) {
		if (!rk[i])
			continue;
		struct device *d = &e->devs[i];
		pthread_mutex_lock(&d->lock);
		zkp_groth16_resident_free(rk[i]);
		pthread_mutex_unlock(&d->lock);
	}
	free(rk);
}

void circuit_drop_resident(struct zkp_engine *e, struct circuit *c)
{
	pthread_mutex_lock(&e->lock);
	zkp_groth16_resident **rk = c->rk;
	c->rk = NULL;
	devmem_drop_circuit(e, c);
	pthread_mutex_unlock(&e->lock);
	resident_free_all(e, rk);
}

void circuits_release(struct zkp_engine *e)
{
	for (size_t i = 0; i < e->n_circuits; i++) {
		struct circuit *c = &e->circuits[i];
		circuit_unload_parts(c->pce, &c->pk, c->pvk, true);
		free(c->tokens);
		free(c->dplan);
	}
	free(e->circuits);
	e->circuits = NULL;
	e->n_circuits = 0;
}

int circuit_check_files(const struct circuit *c, zkp_error *err)
{
	const char *what = NULL, *path = NULL;
	if (c->pce && zkp_pce_damaged(c->pce))
		what = "circuit file", path = c->cfg.pce;
	else if (zkp_groth16_pk_damaged(&c->pk))
		what = "key cache of", path = c->cfg.key;
	if (!what)
		return 0;
	return zkp_error_set(err, ZKP_ERR_TRUNCATED,
			     "circuit %s: its %s %s was cut short on disk while loaded; nothing "
			     "proved with it since is valid: replace the file (write a new one "
			     "and rename it over) and unload and load the circuit",
			     c->cfg.name, what, path);
}

struct circuit *circuit_find(struct zkp_engine *e, const char *name)
{
	for (size_t i = 0; i < e->n_circuits; i++)
		if (!strcmp(e->circuits[i].cfg.name, name))
			return &e->circuits[i];
	return NULL;
}

int circuit_not_found(const struct zkp_engine *e, const char *name, zkp_error *err)
{
	char names[200] = "";
	size_t n = 0;
	for (size_t i = 0; i < e->n_circuits && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				      e->circuits[i].cfg.name);
	if (n >= sizeof(names))
		memcpy(names + sizeof(names) - 6, ", ...", 6);
	return zkp_error_set(err, ZKP_ERR_NOT_FOUND, "no circuit named \"%s\" (configured: %s)",
			     name, e->n_circuits ? names : "none");
}

void circuit_request_load(struct zkp_engine *e, struct circuit *c)
{
	c->want_load = true;
	pthread_cond_broadcast(&e->load_cond);
}

uint64_t critical_reserve(const struct zkp_engine *e)
{
	if (e->critical_reserve_cfg)
		return e->critical_reserve_cfg;
	uint64_t m = 0;
	for (size_t i = 0; i < e->n_circuits; i++)
		if (e->circuits[i].loaded && e->circuits[i].ws > m)
			m = e->circuits[i].ws;
	return m;
}

/* What one load produces, built without the lock. */
struct loaded {
	zkp_pce *pce;
	zkp_groth16_pk pk;
	zkp_groth16_pvk *pvk;
	zkp_groth16_mem_model model;
};

/* A PoRep circuit's .pce must say (its label, written by zkp porep
 * circuit) that it is the partition circuit of the configured size. */
static int check_porep_label(const zkp_pce *pce, const zkp_config_circuit *cfg, zkp_error *err)
{
	zkp_porep_shape want, got;
	int rc = zkp_porep_shape_for_size(&want, cfg->porep_sector_size, err);
	if (rc)
		return rc;
	char a[160], b[160];
	zkp_porep_describe(a, sizeof(a), &want);
	if (!zkp_porep_label_decode(&got, zkp_pce_label(pce)))
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: not a PoRep partition circuit (its label says none); "
				     "porep_sector_size wants %s",
				     cfg->pce, a);
	if (got.nodes != want.nodes || got.layers != want.layers ||
	    got.challenges != want.challenges || got.sector_bytes != want.sector_bytes ||
	    memcmp(got.tree, want.tree, sizeof(got.tree)) != 0) {
		zkp_porep_describe(b, sizeof(b), &got);
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: the PoRep circuit of %s, not of %s (porep_sector_size)",
				     cfg->pce, b, a);
	}
	return 0;
}

/* The same for a SnapDeals circuit (label written by zkp snap circuit). */
static int check_snap_label(const zkp_pce *pce, const zkp_config_circuit *cfg, zkp_error *err)
{
	zkp_snap_shape want, got;
	int rc = zkp_snap_shape_for_size(&want, cfg->snap_sector_size, err);
	if (rc)
		return rc;
	char a[200], b[200];
	zkp_snap_describe(a, sizeof(a), &want);
	if (!zkp_snap_label_decode(&got, zkp_pce_label(pce)))
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: not a SnapDeals partition circuit (its label says none); "
				     "snap_sector_size wants %s",
				     cfg->pce, a);
	if (got.sector_bytes != want.sector_bytes) {
		zkp_snap_describe(b, sizeof(b), &got);
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: the SnapDeals circuit of %s, not of %s (snap_sector_size)",
				     cfg->pce, b, a);
	}
	return 0;
}

/* The same for a PoSt circuit (label written by zkp post circuit). */
static int check_post_label(const zkp_pce *pce, const zkp_config_circuit *cfg, zkp_error *err)
{
	enum zkp_post_kind kind = cfg->winning_post_sector_size ? ZKP_POST_WINNING : ZKP_POST_WINDOW;
	uint64_t bytes = cfg->winning_post_sector_size ? cfg->winning_post_sector_size :
							 cfg->window_post_sector_size;
	zkp_post_shape want, got;
	int rc = zkp_post_shape_for_size(&want, kind, bytes, err);
	if (rc)
		return rc;
	char a[200], b[200];
	zkp_post_describe(a, sizeof(a), &want);
	if (!zkp_post_label_decode(&got, zkp_pce_label(pce)))
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "%s: not a PoSt circuit (its label says none); the configuration wants %s",
				     cfg->pce, a);
	if (got.kind != want.kind || got.nodes != want.nodes || got.sectors != want.sectors ||
	    got.challenges != want.challenges || memcmp(got.tree, want.tree, sizeof(got.tree))) {
		zkp_post_describe(b, sizeof(b), &got);
		return zkp_error_set(err, ZKP_ERR_MISMATCH, "%s: the circuit of %s, not of %s",
				     cfg->pce, b, a);
	}
	return 0;
}

static int load_one(struct loaded *r, const zkp_config_circuit *cfg, zkp_pool *pool,
		    unsigned threads, zkp_error *err)
{
	zkp_groth16_shape shape;
	int rc;
	memset(r, 0, sizeof(*r));
	zkp_groth16_pk_init(&r->pk);
	rc = zkp_pce_load(&r->pce, cfg->pce, 0, err);
	if (rc)
		goto out;
	if (cfg->porep_sector_size && (rc = check_porep_label(r->pce, cfg, err)))
		goto out;
	if (cfg->snap_sector_size && (rc = check_snap_label(r->pce, cfg, err)))
		goto out;
	if ((cfg->window_post_sector_size || cfg->winning_post_sector_size) &&
	    (rc = check_post_label(r->pce, cfg, err)))
		goto out;
	zkp_groth16_shape_from_pce(&shape, zkp_pce_get_dims(r->pce),
				   zkp_pce_density_a_aux(r->pce), zkp_pce_density_b_input(r->pce),
				   zkp_pce_density_b_aux(r->pce));
	zkp_groth16_load_opts opts = { .pool = pool, .expect = &shape };
	rc = zkp_groth16_pk_load(&r->pk, cfg->key, &opts, err);
	if (rc)
		goto out;
	/* The loader picks the format by content; a config that says
	 * otherwise names the wrong file. */
	bool is_zkey = r->pk.format == ZKP_GROTH16_FMT_ZKEY;
	if (is_zkey != (cfg->key_format == ZKP_KEY_FORMAT_ZKEY)) {
		rc = zkp_error_set(err, ZKP_ERR_FORMAT,
				   "%s: key_format is %s but the file is a %s key", cfg->key,
				   cfg->key_format == ZKP_KEY_FORMAT_ZKEY ? "zkey" : "bellman",
				   is_zkey ? "snarkjs .zkey" : "bellman .params");
		goto out;
	}
	rc = zkp_groth16_pvk_new(&r->pvk, &r->pk.vk);
	if (rc) {
		zkp_error_set(err, rc, "%s: cannot prepare the verifying key", cfg->key);
		goto out;
	}
	zkp_groth16_mem_model_of(&r->model, r->pce, &r->pk, threads);
	/* What the allocator cannot attribute: the mapped circuit and the
	 * key's block (heap or mapped cache). */
	zkp_mem_add(ZKP_MEM_PCE, zkp_pce_mapped_bytes(r->pce));
	zkp_mem_add(ZKP_MEM_KEY, r->pk.mem_bytes);
out:
	if (rc) {
		circuit_unload_parts(r->pce, &r->pk, r->pvk, false);
		memset(r, 0, sizeof(*r));
	}
	return rc;
}

static void fail_waiting_jobs(struct zkp_engine *e, struct circuit *c)
{
	for (int p = 0; p < PRIO_LEVELS; p++) {
		struct job *j = e->queue[p].head;
		while (j) {
			struct job *next = j->next;
			if (j->circ == c)
				job_end(e, j, ZKP_JOB_FAILED, c->load_rc, c->load_err.msg);
			j = next;
		}
	}
}

/* A restored result's proof against the loaded circuit's key. */
static int verify_restored(const struct circuit *c, const struct job *j, char *why, size_t size)
{
	zkp_groth16_proof proof;
	zkp_error perr = { 0 };
	int rc = zkp_groth16_proof_from_bytes(&proof, j->proof, &perr);
	if (rc) {
		snprintf(why, size, "the proof does not decode: %s", zkp_error_text(&perr, rc));
		return rc;
	}
	zkp_fr *in = malloc(j->n_inputs * sizeof(*in));
	if (!in) {
		snprintf(why, size, "out of memory");
		return ZKP_ERR_NOMEM;
	}
	for (size_t i = 0; i < j->n_inputs && !rc; i++)
		if ((rc = zkp_fr_from_le(&in[i], j->inputs + 32 * i)))
			snprintf(why, size, "public input %zu is not a field element", i);
	if (!rc) {
		rc = zkp_groth16_verify(c->pvk, in, j->n_inputs, &proof);
		if (rc == ZKP_GROTH16_INVALID)
			snprintf(why, size, "the pairing check fails");
		else if (rc)
			snprintf(why, size, "%s", zkp_strerror(rc));
	}
	free(in);
	return rc;
}

/* Verifies every restored result of c waiting for it (lock held, dropped
 * for each pairing check; c stays loaded meanwhile: the refcount holds
 * off an unload). */
static void reverify_restored(struct zkp_engine *e, struct circuit *c)
{
	c->refcount++;
	for (;;) {
		struct job *j = e->reverify.head;
		while (j && j->circ != c)
			j = j->next;
		if (!j)
			break;
		/* Only this thread ends reverify jobs (and the engine is not
		 * freed before it is joined): j stays valid unlocked. */
		pthread_mutex_unlock(&e->lock);
		char why[160] = "";
		int rc = verify_restored(c, j, why, sizeof(why));
		pthread_mutex_lock(&e->lock);
		job_reverified(e, j, rc, why);
	}
	c->refcount--;
}

static void *loader_main(void *arg)
{
	struct zkp_engine *e = arg;
	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct circuit *c = NULL;
		while (!e->stopping) {
			for (size_t i = 0; i < e->n_circuits && !c && e->loads_started; i++)
				if (e->circuits[i].want_load)
					c = &e->circuits[i];
			if (c)
				break;
			pthread_cond_wait(&e->load_cond, &e->lock);
		}
		if (!c)
			break;
		c->want_load = false;
		if (c->loaded) {
			reverify_restored(e, c);
			unlock_notify(e);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		c->loading = true;
		c->load_started = eng_now();
		zkp_config_circuit cfg = c->cfg;
		pthread_mutex_unlock(&e->lock);

		struct loaded r;
		zkp_error err = { 0 };
		engine_test_load_begins(cfg.name);
		double t0 = eng_now();
		int rc = load_one(&r, &cfg, e->pool, e->threads, &err);
		double secs = eng_now() - t0;
		if (rc) {
			zkp_log(ZKP_LOG_ERROR, "circuit %s: load failed: %s", cfg.name,
				zkp_error_text(&err, rc));
		} else {
			const zkp_pce_dims *d = zkp_pce_get_dims(r.pce);
			zkp_log(ZKP_LOG_INFO,
				"circuit %s loaded: %" PRIu64 " constraints, domain 2^%u, %" PRIu64
				" inputs, %" PRIu64 " aux; pce %zu bytes, key %zu bytes, "
				"working set %.0f bytes; %.3f s",
				cfg.name, d->n_constraints, d->domain_log2, d->n_inputs - 1,
				d->n_aux, zkp_pce_mapped_bytes(r.pce), r.pk.mem_bytes, r.model.ws,
				secs);
		}

		pthread_mutex_lock(&e->lock);
		c->loading = false;
		c->load_rc = rc;
		c->load_err.code = rc;
		snprintf(c->load_err.msg, sizeof(c->load_err.msg), "%s",
			 rc ? zkp_error_text(&err, rc) : "");
		double done = eng_now();
		if (!rc) {
			c->pce = r.pce;
			c->pk = r.pk;
			c->pvk = r.pvk;
			c->model = r.model;
			/* Rounded up, without libm. */
			c->ws = (uint64_t)r.model.ws;
			if ((double)c->ws < r.model.ws)
				c->ws++;
			c->loaded = true;
			if (c->insecure)
				zkp_log(ZKP_LOG_WARN,
					"circuit %s uses an INSECURE development key: its "
					"proofs can be forged by anyone",
					c->cfg.name);
			uint64_t crit = critical_reserve(e);
			if (c->ws + crit > e->budget)
				zkp_log(ZKP_LOG_WARN,
					"circuit %s: working set %" PRIu64
					" bytes plus the critical reserve %" PRIu64
					" exceed the memory budget %" PRIu64
					" bytes: only CRITICAL jobs can run",
					c->cfg.name, c->ws, crit, e->budget);
			/* Jobs that waited report their LOAD stage and go back
			 * to waiting in their queue. */
			for (int p = 0; p < PRIO_LEVELS; p++)
				for (struct job *j = e->queue[p].head; j; j = j->next) {
					if (j->circ != c || j->stage != ZKP_STAGE_LOAD)
						continue;
					job_span(j, ZKP_SPAN_QUEUED, done);
					j->stages[ZKP_STAGE_LOAD].ran = true;
					j->stages[ZKP_STAGE_LOAD].seconds =
						j->spans.seconds[ZKP_SPAN_LOAD];
					emit_job(e, j, true, j->stages[ZKP_STAGE_LOAD].seconds);
					j->stage = ZKP_STAGE_QUEUED;
				}
			stage_count_add(e, ZKP_STAGE_LOAD, secs);
			pthread_cond_broadcast(&e->work_cond);
			reverify_restored(e, c);
		} else {
			fail_waiting_jobs(e, c);
		}
		for (size_t i = 0; i < c->n_tokens; i++)
			emit_load(e, c->tokens[i], rc);
		c->n_tokens = 0;
		unlock_notify(e);
		pthread_mutex_lock(&e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

int loader_start(struct zkp_engine *e)
{
	if (pthread_create(&e->loader_thr, NULL, loader_main, e))
		return ZKP_ERR_IO;
	e->loader_started = true;
	return 0;
}

void zkp_engine_start_loads(zkp_engine *e)
{
	pthread_mutex_lock(&e->lock);
	e->loads_started = true;
	pthread_cond_broadcast(&e->load_cond);
	pthread_mutex_unlock(&e->lock);
}

void loader_join(struct zkp_engine *e)
{
	if (e->loader_started)
		pthread_join(e->loader_thr, NULL);
	e->loader_started = false;
}

int zkp_engine_load(zkp_engine *e, const char *circuit, uint64_t token, zkp_error *err)
{
	int rc = 0;
	pthread_mutex_lock(&e->lock);
	struct circuit *c = circuit_find(e, circuit);
	if (!c) {
		rc = circuit_not_found(e, circuit, err);
		goto out;
	}
	if (e->stopping || !e->accepting) {
		rc = zkp_error_set(err, ZKP_ERR_SHUTDOWN, "the daemon is shutting down");
		goto out;
	}
	if (c->loaded) {
		emit_load(e, token, 0);
		goto out;
	}
	if (c->n_tokens == c->cap_tokens) {
		size_t cap = c->cap_tokens ? 2 * c->cap_tokens : 4;
		uint64_t *t = realloc(c->tokens, cap * sizeof(*t));
		if (!t) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory");
			goto out;
		}
		c->tokens = t;
		c->cap_tokens = cap;
	}
	c->tokens[c->n_tokens++] = token;
	if (!c->loading)
		circuit_request_load(e, c);
out:
	unlock_notify(e);
	return rc;
}

int zkp_engine_unload(zkp_engine *e, const char *circuit, zkp_error *err)
{
	zkp_pce *pce = NULL;
	zkp_groth16_pk pk;
	zkp_groth16_pvk *pvk = NULL;
	zkp_groth16_resident **rk = NULL;
	int rc = 0;
	zkp_groth16_pk_init(&pk);
	pthread_mutex_lock(&e->lock);
	struct circuit *c = circuit_find(e, circuit);
	if (!c) {
		rc = circuit_not_found(e, circuit, err);
		goto out;
	}
	if (c->loading || c->want_load || c->refcount || c->queued) {
		rc = zkp_error_set(err, ZKP_ERR_BUSY,
				   "circuit %s is %s: %" PRIu32 " jobs running, %" PRIu32
				   " queued",
				   circuit, c->loading || c->want_load ? "loading" : "in use",
				   c->refcount, c->queued);
		goto out;
	}
	if (!c->loaded)
		goto out;
	/* Detached under the lock, freed after it: unmapping takes a while. */
	pce = c->pce;
	pk = c->pk;
	pvk = c->pvk;
	rk = c->rk;
	c->rk = NULL;
	devmem_drop_circuit(e, c);
	c->pce = NULL;
	zkp_groth16_pk_init(&c->pk);
	c->pvk = NULL;
	c->loaded = false;
	c->ws = 0;
out:
	pthread_mutex_unlock(&e->lock);
	if (pce)
		zkp_log(ZKP_LOG_INFO, "circuit %s unloaded", circuit);
	resident_free_all(e, rk);
	circuit_unload_parts(pce, &pk, pvk, true);
	return rc;
}

int zkp_engine_load_error(zkp_engine *e, const char *circuit, zkp_error *err)
{
	int rc;
	pthread_mutex_lock(&e->lock);
	struct circuit *c = circuit_find(e, circuit);
	if (!c) {
		rc = circuit_not_found(e, circuit, err);
	} else {
		rc = c->load_rc;
		if (err) {
			err->code = c->load_err.code;
			memcpy(err->msg, c->load_err.msg, sizeof(err->msg));
		}
	}
	pthread_mutex_unlock(&e->lock);
	return rc;
}
