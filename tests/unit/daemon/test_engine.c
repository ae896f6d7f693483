/*
 * The proving engine on tiny synthetic circuits (2^9 domain) with INSECURE
 * development keys written to a temporary directory: proofs come out and
 * verify; several pipelines; priority order; cancellation while queued and
 * while running; idempotent request ids; refusals (unknown circuit, witness
 * outside witness_dir, max_queued, shutdown, GPU lists); failing witnesses
 * (wrong length, unsatisfied row); memory admission; load, unload, failed
 * loads; drain.
 *
 * The engine's notify signals a condition variable; tests wait on it and
 * drain events into a log. Hooks run inside notify, on the engine thread
 * that just emitted, to act at a precise point of a job (that thread cannot
 * move on until notify returns).
 */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine.h"
#include "testutil.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/synth.h"

#define N_CONSTRAINTS 300
#define WAIT_SECONDS 120

static char tmpdir[64];
static char pce_path[128], key_path[128], wit_dir[128];

/* The circuit, its key and a satisfying witness. */
static zkp_pce *fx_pce;
static zkp_groth16_pk fx_pk;
static zkp_groth16_pvk *fx_pvk;
static zkp_fr *fx_w;
static size_t fx_n_w;

/* ---- notify, event log, hooks ---- */

static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t t_cond = PTHREAD_COND_INITIALIZER;
static zkp_engine *t_engine;
static pthread_t main_thread;

#define LOG_MAX 4096
static zkp_engine_event ev_log[LOG_MAX];
static size_t ev_n;

/* Runs once inside notify when armed, on the first engine thread that
 * notifies while job hook_job runs: the cpu thread that admitted it. Set
 * by a test before it submits (a fresh engine's first job is id 1). */
static void (*hook_fn)(void);
static uint64_t hook_job;

static void test_notify(void *arg)
{
	(void)arg;
	void (*fn)(void) = NULL;
	pthread_mutex_lock(&t_lock);
	if (hook_fn && hook_job && !pthread_equal(pthread_self(), main_thread)) {
		zkp_job_info info;
		if (zkp_engine_job_info(t_engine, hook_job, &info) == 0) {
			if (info.state == ZKP_JOB_RUNNING) {
				fn = hook_fn;
				hook_fn = NULL;
			}
			zkp_job_info_release(&info);
		}
	}
	pthread_cond_broadcast(&t_cond);
	pthread_mutex_unlock(&t_lock);
	if (fn)
		fn();
}

static void drain_events(void)
{
	zkp_engine_event ev[64];
	size_t n;
	while ((n = zkp_engine_poll(t_engine, ev, 64)) > 0)
		for (size_t i = 0; i < n && ev_n < LOG_MAX; i++)
			ev_log[ev_n++] = ev[i];
}

static void wait_a_little(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 50 * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&t_lock);
	pthread_cond_timedwait(&t_cond, &t_lock, &ts);
	pthread_mutex_unlock(&t_lock);
}

static bool ended(enum zkp_job_state s)
{
	return s == ZKP_JOB_DONE || s == ZKP_JOB_FAILED || s == ZKP_JOB_CANCELLED;
}

/* Waits until the job ended; fills *info (caller releases). */
static void wait_end(uint64_t id, zkp_job_info *info)
{
	time_t deadline = time(NULL) + WAIT_SECONDS;
	for (;;) {
		drain_events();
		assert_int_equal(zkp_engine_job_info(t_engine, id, info), 0);
		if (ended(info->state))
			return;
		zkp_job_info_release(info);
		if (time(NULL) > deadline)
			fail_msg("job %" PRIu64 " did not end in %d s", id, WAIT_SECONDS);
		wait_a_little();
	}
}

/* Waits for a LOAD event with token; returns its rc. */
static int wait_load_event(uint64_t token)
{
	time_t deadline = time(NULL) + WAIT_SECONDS;
	for (;;) {
		drain_events();
		for (size_t i = 0; i < ev_n; i++)
			if (ev_log[i].kind == ZKP_EVENT_LOAD && ev_log[i].token == token)
				return ev_log[i].rc;
		if (time(NULL) > deadline)
			fail_msg("no LOAD event for token %" PRIu64, token);
		wait_a_little();
	}
}

/* ---- fixtures ---- */

static void raw_witness(uint8_t **data, size_t *len, const zkp_fr *w, size_t n)
{
	*len = n * 32;
	*data = malloc(*len);
	assert_non_null(*data);
	for (size_t i = 0; i < n; i++)
		zkp_fr_to_le(*data + 32 * i, &w[i]);
}

static int group_setup(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	zkp_synth_info info;
	zkp_pce_builder *b = NULL;
	uint64_t seed = tu_rand64();
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/zkpd-engine-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(pce_path, sizeof(pce_path), "%s/c1.pce", tmpdir);
	snprintf(key_path, sizeof(key_path), "%s/c1.INSECURE-DEV.params", tmpdir);
	snprintf(wit_dir, sizeof(wit_dir), "%s/wit", tmpdir);
	if (mkdir(wit_dir, 0700))
		return -1;

	rc = zkp_synth_porep_dims(N_CONSTRAINTS, &info, &err);
	if (!rc)
		rc = zkp_pce_builder_new(&b, info.n_inputs, info.n_aux);
	if (rc)
		goto out;
	fx_n_w = (size_t)(info.n_inputs + info.n_aux);
	fx_w = malloc(fx_n_w * sizeof(zkp_fr));
	if (!fx_w) {
		rc = ZKP_ERR_NOMEM;
		goto out;
	}
	rc = zkp_synth_porep(N_CONSTRAINTS, seed, zkp_synth_builder_sink, b, fx_w, NULL, &err);
	if (!rc)
		rc = zkp_pce_builder_write(b, pce_path, &err);
	if (!rc)
		rc = zkp_pce_load(&fx_pce, pce_path, 0, &err);
	if (!rc)
		rc = zkp_groth16_setup_dev(&fx_pk, fx_pce, ZKP_GROTH16_H_BELLMAN, &seed, NULL, NULL, &err);
	if (!rc)
		rc = zkp_groth16_pk_write_params(&fx_pk, key_path, &err);
	if (!rc)
		rc = zkp_groth16_pvk_new(&fx_pvk, &fx_pk.vk);
out:
	zkp_pce_builder_free(b);
	if (rc)
		fprintf(stderr, "fixture: %s\n", zkp_error_text(&err, rc));
	return rc ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	char cmd[128];
	zkp_groth16_pvk_free(fx_pvk);
	zkp_groth16_pk_release(&fx_pk);
	zkp_pce_free(fx_pce);
	free(fx_w);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Circuits: c1 (preloaded), lazy (same files, loaded on demand), broken
 * (a key that does not exist). */
static zkp_config_circuit cfg_circuits[3];

static void config_for(zkp_config *cfg, uint32_t pipelines, uint64_t budget)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->devices = (char *)"cpu";
	cfg->workers_per_device = pipelines;
	cfg->pipeline_depth = 2;
	cfg->synthesis_threads = 2;
	cfg->memory_budget = budget;
	cfg->memory_reserve = 0;
	cfg->critical_reserve = 0;
	cfg->purge_between_stages = true;
	cfg->max_queued = 100;
	cfg->job_history = 64;
	cfg->witness_dir = wit_dir;
	memset(cfg_circuits, 0, sizeof(cfg_circuits));
	static char missing[160];
	snprintf(missing, sizeof(missing), "%s/missing.params", tmpdir);
	const char *names[3] = { "c1", "lazy", "broken" };
	for (int i = 0; i < 3; i++) {
		snprintf(cfg_circuits[i].name, sizeof(cfg_circuits[i].name), "%s", names[i]);
		cfg_circuits[i].pce = pce_path;
		cfg_circuits[i].key = i == 2 ? missing : key_path;
		cfg_circuits[i].key_format = ZKP_KEY_FORMAT_BELLMAN;
	}
	cfg_circuits[0].preload = true;
	cfg->circuits = cfg_circuits;
	cfg->n_circuits = 3;
}

static void start(uint32_t pipelines, uint64_t budget)
{
	zkp_config cfg;
	zkp_error err = { 0 };
	config_for(&cfg, pipelines, budget);
	ev_n = 0;
	hook_fn = NULL;
	hook_job = 0;
	int rc = zkp_engine_new(&t_engine, &cfg, test_notify, NULL, &err);
	if (rc)
		fail_msg("engine: %s", zkp_error_text(&err, rc));
	zkp_engine_start_loads(t_engine);
}

static void stop(void)
{
	zkp_engine_free(t_engine);
	t_engine = NULL;
}

static int submit_w(const char *circuit, const zkp_fr *w, size_t n, enum zkp_priority prio,
		    const char *rid, uint64_t *id, bool *attached, zkp_error *err)
{
	zkp_job_spec spec = { 0 };
	bool att = false;
	raw_witness(&spec.data, &spec.len, w, n);
	spec.circuit = circuit;
	spec.witness_kind = ZKP_WITNESS_RAW;
	spec.priority = prio;
	spec.request_id = rid;
	spec.want_json = true;
	int rc = zkp_engine_submit(t_engine, &spec, id, attached ? attached : &att, err);
	assert_null(spec.data);
	return rc;
}

static uint64_t submit_ok(const char *circuit, enum zkp_priority prio)
{
	zkp_error err = { 0 };
	uint64_t id = 0;
	int rc = submit_w(circuit, fx_w, fx_n_w, prio, NULL, &id, NULL, &err);
	if (rc)
		fail_msg("submit: %s", zkp_error_text(&err, rc));
	assert_true(id > 0);
	return id;
}

static void check_proof(const zkp_job_info *info)
{
	zkp_groth16_proof p;
	zkp_error err = { 0 };
	size_t n_pub = (size_t)zkp_pce_get_dims(fx_pce)->n_inputs - 1;
	if (info->state != ZKP_JOB_DONE)
		fail_msg("job %" PRIu64 " %s: %s", info->job_id, zkp_job_state_name(info->state),
			 info->error_message);
	assert_int_equal(zkp_groth16_proof_from_bytes(&p, info->proof, &err), 0);
	assert_int_equal(zkp_groth16_verify(fx_pvk, fx_w + 1, n_pub, &p), 0);
	assert_int_equal(info->n_inputs, n_pub);
	for (size_t i = 0; i < n_pub; i++) {
		zkp_fr x;
		assert_int_equal(zkp_fr_from_le(&x, info->inputs + 32 * i), 0);
		assert_true(zkp_fr_eq(&x, &fx_w[1 + i]));
	}
	assert_non_null(info->proof_json);
	zkp_groth16_proof pj;
	assert_int_equal(zkp_groth16_proof_from_json(&pj, info->proof_json, "json", &err), 0);
	assert_int_equal(zkp_groth16_verify(fx_pvk, fx_w + 1, n_pub, &pj), 0);
	assert_int_equal(info->percent, 100);
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++)
		assert_true(info->stages[s].ran);
}

static void wait_idle(void)
{
	time_t deadline = time(NULL) + WAIT_SECONDS;
	while (zkp_engine_running(t_engine)) {
		if (time(NULL) > deadline)
			fail_msg("jobs still running after %d s", WAIT_SECONDS);
		drain_events();
		wait_a_little();
	}
}

static void wait_loaded(const char *name)
{
	time_t deadline = time(NULL) + WAIT_SECONDS;
	for (;;) {
		zkp_engine_status st;
		bool loaded = false;
		assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
		for (size_t i = 0; i < st.n_circuits; i++)
			if (!strcmp(st.circuits[i].name, name))
				loaded = st.circuits[i].loaded;
		zkp_engine_status_release(&st);
		if (loaded)
			return;
		if (time(NULL) > deadline)
			fail_msg("%s not loaded", name);
		drain_events();
		wait_a_little();
	}
}

/* ---- tests ---- */

static void test_one_proof(void **state)
{
	(void)state;
	zkp_job_info info;
	start(1, 0);
	uint64_t id = submit_ok("c1", ZKP_PRIO_NORMAL);
	wait_end(id, &info);
	check_proof(&info);
	zkp_job_info_release(&info);

	/* Every stage from WITNESS to VERIFY reported its end, then DONE. */
	bool seen[ZKP_NSTAGES] = { false };
	bool done = false;
	for (size_t i = 0; i < ev_n; i++) {
		if (ev_log[i].kind != ZKP_EVENT_JOB || ev_log[i].job_id != id)
			continue;
		if (ev_log[i].stage_finished)
			seen[ev_log[i].stage] = true;
		if (ev_log[i].state == ZKP_JOB_DONE)
			done = true;
	}
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++)
		assert_true(seen[s]);
	assert_true(done);

	zkp_engine_status st;
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	assert_int_equal(st.jobs_done, 1);
	assert_int_equal(st.reserved, 0);
	assert_true(st.n_snaps >= 6);
	/* Histogram: each stage ran once, so its cumulative buckets step from
	 * 0 to 1 at the first bound not below its seconds. */
	for (int s = ZKP_STAGE_WITNESS; s <= ZKP_STAGE_VERIFY; s++) {
		assert_int_equal(st.stage_count[s], 1);
		for (int b = 0; b < ZKP_STAGE_BUCKETS; b++)
			assert_int_equal(st.stage_buckets[s][b],
					 st.stage_seconds[s] <= zkp_stage_bucket_le[b]);
	}
	assert_int_equal(st.n_circuits, 3);
	assert_true(st.circuits[0].loaded);
	assert_true(st.circuits[0].insecure_dev_key);
	assert_int_equal(st.circuits[0].constraints, N_CONSTRAINTS);
	assert_true(st.circuits[0].working_set > 0);
	assert_int_equal(st.n_jobs, 0);
	zkp_engine_status_release(&st);
	stop();
}

/* Results restored from the journal are verified again before they are
 * returned: a good one ends DONE with its proof; one whose public input
 * changed, or whose proof no longer decodes, ends FAILED with
 * ZKP_ERR_CHECKSUM and no proof; a restored FAILED result needs nothing. */
static void test_restored_results_verified(void **state)
{
	(void)state;
	zkp_job_info info, r;
	zkp_error err = { 0 };
	start(1, 0);
	wait_loaded("c1");
	uint64_t id = submit_ok("c1", ZKP_PRIO_NORMAL);
	wait_end(id, &info);
	check_proof(&info);

	struct {
		const char *rid;
		int tamper; /* 0 none, 1 an input, 2 the proof's encoding */
		enum zkp_job_state want;
	} cases[] = { { "good", 0, ZKP_JOB_DONE },
		      { "input-changed", 1, ZKP_JOB_FAILED },
		      { "proof-garbled", 2, ZKP_JOB_FAILED } };
	uint8_t proof[ZKP_GROTH16_PROOF_BYTES];
	uint8_t *inputs = malloc(info.n_inputs * 32);
	assert_non_null(inputs);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		memcpy(proof, info.proof, sizeof(proof));
		memcpy(inputs, info.inputs, info.n_inputs * 32);
		if (cases[k].tamper == 1)
			inputs[0] ^= 1;
		if (cases[k].tamper == 2)
			proof[5] ^= 0x40;
		r = info;
		snprintf(r.request_id, sizeof(r.request_id), "%s", cases[k].rid);
		r.proof = proof;
		r.inputs = inputs;
		r.proof_json = NULL;
		uint64_t rid = 0;
		bool verifying = false;
		assert_int_equal(zkp_engine_restore_result(t_engine, &r, &rid, &verifying, &err), 0);
		assert_true(verifying);
		zkp_job_info got;
		wait_end(rid, &got);
		assert_int_equal(got.state, cases[k].want);
		if (cases[k].want == ZKP_JOB_DONE) {
			assert_memory_equal(got.proof, info.proof, sizeof(proof));
		} else {
			assert_null(got.proof);
			assert_int_equal(got.error_code, ZKP_ERR_CHECKSUM);
			assert_non_null(strstr(got.error_message, "does not verify"));
		}
		zkp_job_info_release(&got);
	}
	/* a FAILED result is history at once */
	r = info;
	snprintf(r.request_id, sizeof(r.request_id), "failed-before");
	r.state = ZKP_JOB_FAILED;
	r.error_code = ZKP_ERR_UNSATISFIED;
	r.proof = NULL;
	r.proof_len = 0;
	r.inputs = NULL;
	r.n_inputs = 0;
	r.proof_json = NULL;
	uint64_t rid = 0;
	bool verifying = true;
	assert_int_equal(zkp_engine_restore_result(t_engine, &r, &rid, &verifying, &err), 0);
	assert_false(verifying);
	free(inputs);
	zkp_job_info_release(&info);
	stop();
}

static void test_six_jobs_two_pipelines(void **state)
{
	(void)state;
	uint64_t ids[6];
	start(2, 0);
	for (int i = 0; i < 6; i++)
		ids[i] = submit_ok("c1", ZKP_PRIO_NORMAL);
	for (int i = 0; i < 6; i++) {
		zkp_job_info info;
		wait_end(ids[i], &info);
		check_proof(&info);
		zkp_job_info_release(&info);
	}
	zkp_engine_status st;
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	assert_int_equal(st.n_pipelines, 2);
	assert_int_equal(st.pipelines[0].proofs + st.pipelines[1].proofs, 6);
	assert_int_equal(st.jobs_done, 6);
	zkp_engine_status_release(&st);
	stop();
}

static uint64_t prio_ids[4];

/* Inside notify on the cpu thread that just admitted the first job: it
 * cannot admit another until this returns, so all four wait together. */
static void queue_four(void)
{
	static const enum zkp_priority order[4] = {
		ZKP_PRIO_LOW, ZKP_PRIO_NORMAL, ZKP_PRIO_HIGH, ZKP_PRIO_CRITICAL,
	};
	for (int i = 0; i < 4; i++) {
		zkp_error err = { 0 };
		int rc = submit_w("c1", fx_w, fx_n_w, order[i], NULL, &prio_ids[i], NULL, &err);
		if (rc)
			fail_msg("submit: %s", zkp_error_text(&err, rc));
	}
}

static void test_priority_order(void **state)
{
	(void)state;
	start(1, 0);
	pthread_mutex_lock(&t_lock);
	hook_fn = queue_four;
	hook_job = 1;
	pthread_mutex_unlock(&t_lock);
	uint64_t first = submit_ok("c1", ZKP_PRIO_NORMAL);
	assert_int_equal(first, 1);
	zkp_job_info info;
	wait_end(first, &info);
	zkp_job_info_release(&info);
	time_t deadline = time(NULL) + WAIT_SECONDS;
	while (!prio_ids[3]) {
		if (time(NULL) > deadline)
			fail_msg("hook did not run");
		wait_a_little();
	}
	for (int i = 0; i < 4; i++) {
		wait_end(prio_ids[i], &info);
		check_proof(&info);
		zkp_job_info_release(&info);
	}
	/* Start order from the WITNESS start events. */
	uint64_t started[5];
	size_t n = 0;
	for (size_t i = 0; i < ev_n && n < 5; i++)
		if (ev_log[i].kind == ZKP_EVENT_JOB && ev_log[i].stage == ZKP_STAGE_WITNESS &&
		    !ev_log[i].stage_finished && ev_log[i].state == ZKP_JOB_RUNNING)
			started[n++] = ev_log[i].job_id;
	assert_int_equal(n, 5);
	assert_int_equal(started[0], first);
	assert_int_equal(started[1], prio_ids[3]); /* CRITICAL */
	assert_int_equal(started[2], prio_ids[2]); /* HIGH */
	assert_int_equal(started[3], prio_ids[1]); /* NORMAL */
	assert_int_equal(started[4], prio_ids[0]); /* LOW */
	memset(prio_ids, 0, sizeof(prio_ids));
	stop();
}

static uint64_t cancel_state;

static void cancel_hooked(void)
{
	enum zkp_job_state s;
	assert_int_equal(zkp_engine_cancel(t_engine, hook_job, &s), 0);
	cancel_state = s;
}

static void test_cancel_running(void **state)
{
	(void)state;
	start(1, 0);
	pthread_mutex_lock(&t_lock);
	hook_fn = cancel_hooked;
	hook_job = 1;
	cancel_state = 0;
	pthread_mutex_unlock(&t_lock);
	uint64_t id = submit_ok("c1", ZKP_PRIO_NORMAL);
	assert_int_equal(id, 1);
	zkp_job_info info;
	wait_end(id, &info);
	assert_int_equal(cancel_state, ZKP_JOB_RUNNING);
	assert_int_equal(info.state, ZKP_JOB_CANCELLED);
	assert_int_equal(info.error_code, ZKP_ERR_CANCELLED);
	zkp_job_info_release(&info);
	/* Cancelling an ended job says how it ended. */
	enum zkp_job_state s;
	assert_int_equal(zkp_engine_cancel(t_engine, id, &s), 0);
	assert_int_equal(s, ZKP_JOB_CANCELLED);
	assert_int_equal(zkp_engine_cancel(t_engine, 999999, &s), ZKP_ERR_NOT_FOUND);
	assert_int_equal(zkp_engine_running(t_engine), 0);
	zkp_engine_status st;
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	assert_int_equal(st.reserved, 0);
	assert_int_equal(st.jobs_cancelled, 1);
	assert_int_equal(st.circuits[0].refcount, 0);
	zkp_engine_status_release(&st);
	/* The pipeline goes on. */
	uint64_t id2 = submit_ok("c1", ZKP_PRIO_NORMAL);
	wait_end(id2, &info);
	check_proof(&info);
	zkp_job_info_release(&info);
	stop();
}

static void test_budget_and_queue(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	start(1, 4096); /* far below one working set */
	wait_loaded("c1");
	uint64_t a = submit_ok("c1", ZKP_PRIO_CRITICAL);
	uint64_t b = submit_ok("c1", ZKP_PRIO_NORMAL);
	/* Nothing can be admitted: the jobs stay queued. */
	for (int i = 0; i < 4; i++)
		wait_a_little();
	zkp_job_info info;
	assert_int_equal(zkp_engine_job_info(t_engine, a, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_QUEUED);
	assert_int_equal(info.queue_position, 1);
	zkp_job_info_release(&info);
	assert_int_equal(zkp_engine_job_info(t_engine, b, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_QUEUED);
	assert_int_equal(info.queue_position, 2);
	assert_int_equal(info.percent, 0);
	zkp_job_info_release(&info);
	zkp_engine_status st;
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	assert_int_equal(st.queued[ZKP_PRIO_CRITICAL], 1);
	assert_int_equal(st.queued[ZKP_PRIO_NORMAL], 1);
	assert_int_equal(st.n_jobs, 2);
	assert_int_equal(st.jobs[0].job_id, a);
	assert_int_equal(st.budget, 4096);
	zkp_engine_status_release(&st);

	/* Unloading a circuit jobs wait for is refused. */
	assert_int_equal(zkp_engine_unload(t_engine, "c1", &err), ZKP_ERR_BUSY);

	/* max_queued is 100: fill up to it. */
	uint64_t more[98];
	for (int i = 0; i < 98; i++)
		more[i] = submit_ok("c1", ZKP_PRIO_LOW);
	uint64_t id;
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_LOW, NULL, &id, NULL, &err),
			 ZKP_ERR_LIMIT);

	/* Cancelling a queued job is immediate. */
	enum zkp_job_state s;
	assert_int_equal(zkp_engine_cancel(t_engine, a, &s), 0);
	assert_int_equal(s, ZKP_JOB_CANCELLED);
	assert_int_equal(zkp_engine_job_info(t_engine, a, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_CANCELLED);
	zkp_job_info_release(&info);
	assert_int_equal(zkp_engine_cancel(t_engine, b, &s), 0);
	assert_int_equal(s, ZKP_JOB_CANCELLED);
	for (int i = 0; i < 98; i++)
		assert_int_equal(zkp_engine_cancel(t_engine, more[i], &s), 0);

	/* Idle now: unload, then load again with an event. */
	assert_int_equal(zkp_engine_unload(t_engine, "c1", &err), 0);
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	assert_false(st.circuits[0].loaded);
	zkp_engine_status_release(&st);
	assert_int_equal(zkp_engine_load(t_engine, "c1", 77, &err), 0);
	assert_int_equal(wait_load_event(77), 0);
	assert_int_equal(zkp_engine_load(t_engine, "c1", 78, &err), 0);
	assert_int_equal(wait_load_event(78), 0);
	assert_int_equal(zkp_engine_load(t_engine, "nope", 79, &err), ZKP_ERR_NOT_FOUND);
	stop();
}

static void test_critical_reserve(void **state)
{
	(void)state;
	zkp_engine_status st;
	start(1, 0);
	wait_loaded("c1");
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	uint64_t ws = st.circuits[0].working_set + fx_n_w * 32;
	assert_int_equal(st.critical_reserve, st.circuits[0].working_set);
	zkp_engine_status_release(&st);
	stop();

	/* Room for one job, not for one plus the critical reserve: CRITICAL
	 * work runs, NORMAL work waits. */
	start(1, ws + ws / 2);
	wait_loaded("c1");
	uint64_t normal = submit_ok("c1", ZKP_PRIO_NORMAL);
	uint64_t crit = submit_ok("c1", ZKP_PRIO_CRITICAL);
	zkp_job_info info;
	wait_end(crit, &info);
	check_proof(&info);
	zkp_job_info_release(&info);
	assert_int_equal(zkp_engine_job_info(t_engine, normal, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_QUEUED);
	assert_int_equal(info.queue_position, 1);
	zkp_job_info_release(&info);
	stop();
}

static void test_idempotent(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	uint64_t a, b, c;
	bool att;
	start(1, 0);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "req-1", &a, &att, &err),
			 0);
	assert_false(att);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_HIGH, "req-1", &b, &att, &err), 0);
	assert_true(att);
	assert_int_equal(a, b);
	zkp_job_info info;
	wait_end(a, &info);
	check_proof(&info);
	assert_string_equal(info.request_id, "req-1");
	zkp_job_info_release(&info);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "req-1", &c, &att, &err),
			 0);
	assert_true(att);
	assert_int_equal(c, a);
	/* Another id is another job; ids never repeat. */
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "req-2", &c, &att, &err),
			 0);
	assert_false(att);
	assert_true(c > a);
	char long_id[ZKP_REQUEST_ID_MAX + 2];
	memset(long_id, 'x', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = 0;
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, long_id, &b, &att, &err),
			 ZKP_ERR_INVAL);
	wait_end(c, &info);
	zkp_job_info_release(&info);

	/* A request that failed is proved when it comes again: the new job
	 * takes the request_id, the failed one keeps its id. */
	uint64_t bad, again, found;
	assert_int_equal(submit_w("c1", fx_w, fx_n_w - 1, ZKP_PRIO_NORMAL, "req-retry", &bad, &att,
				  &err),
			 0);
	wait_end(bad, &info);
	assert_int_equal(info.state, ZKP_JOB_FAILED);
	zkp_job_info_release(&info);
	assert_int_equal(zkp_engine_find_request(t_engine, "req-retry", &found), 0);
	assert_int_equal(found, bad);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "req-retry", &again, &att,
				  &err),
			 0);
	assert_false(att);
	assert_true(again > bad);
	assert_int_equal(zkp_engine_find_request(t_engine, "req-retry", &found), 0);
	assert_int_equal(found, again);
	wait_end(again, &info);
	check_proof(&info);
	assert_string_equal(info.request_id, "req-retry");
	zkp_job_info_release(&info);
	assert_int_equal(zkp_engine_job_info(t_engine, bad, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_FAILED);
	assert_string_equal(info.request_id, "");
	zkp_job_info_release(&info);
	/* ... and once it is DONE, the same request attaches again. */
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "req-retry", &c, &att, &err),
			 0);
	assert_true(att);
	assert_int_equal(c, again);
	/* A cancelled request runs again too. */
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_LOW, "req-cancel", &bad, &att, &err),
			 0);
	enum zkp_job_state st;
	assert_int_equal(zkp_engine_cancel(t_engine, bad, &st), 0);
	wait_end(bad, &info);
	assert_int_equal(info.state, ZKP_JOB_CANCELLED);
	zkp_job_info_release(&info);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "req-cancel", &again, &att,
				  &err),
			 0);
	assert_false(att);
	wait_end(again, &info);
	check_proof(&info);
	zkp_job_info_release(&info);
	stop();
}

static uint64_t reused_count(void)
{
	zkp_engine_status st;
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	uint64_t n = st.requests_reused;
	zkp_engine_status_release(&st);
	return n;
}

static int submit_path(const char *path, const char *rid, uint64_t *id, bool *att,
		       zkp_error *err)
{
	zkp_job_spec spec = { 0 };
	spec.circuit = "c1";
	spec.witness_kind = ZKP_WITNESS_PATH;
	spec.path = path;
	spec.priority = ZKP_PRIO_NORMAL;
	spec.request_id = rid;
	spec.want_json = true;
	return zkp_engine_submit(t_engine, &spec, id, att, err);
}

/* A request_id attaches by content: the same name with other inputs (the
 * witness as a file instead of bytes; the file rewritten) is a new job
 * with its own proof, which takes the name over; the old job keeps its id
 * and result. The same inputs attach to the job now holding the name. */
static void test_request_inputs(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	uint64_t a, b, c, found;
	bool att;
	zkp_job_info ia, ib, info;
	char path[160];
	snprintf(path, sizeof(path), "%s/w.wtns", wit_dir);
	assert_int_equal(zkp_synth_write_wtns(path, fx_w, fx_n_w, &err), 0);
	start(1, 0);
	assert_int_equal(reused_count(), 0);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "wdpost-1000-0-abc", &a,
				  &att, &err),
			 0);
	assert_false(att);
	wait_end(a, &ia);
	check_proof(&ia);
	assert_int_equal(submit_path(path, "wdpost-1000-0-abc", &b, &att, &err), 0);
	assert_false(att);
	assert_true(b > a);
	assert_int_equal(reused_count(), 1);
	assert_int_equal(zkp_engine_find_request(t_engine, "wdpost-1000-0-abc", &found), 0);
	assert_int_equal(found, b);
	wait_end(b, &ib);
	check_proof(&ib);
	assert_string_equal(ib.request_id, "wdpost-1000-0-abc");
	assert_memory_not_equal(ia.proof, ib.proof, ZKP_GROTH16_PROOF_BYTES);
	assert_true(ib.has_digest && ia.has_digest);
	assert_memory_not_equal(ia.input_digest, ib.input_digest, ZKP_INPUT_DIGEST_BYTES);
	/* the old job: its result, by its id, without the name */
	assert_int_equal(zkp_engine_job_info(t_engine, a, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_DONE);
	assert_string_equal(info.request_id, "");
	assert_memory_equal(info.proof, ia.proof, ZKP_GROTH16_PROOF_BYTES);
	zkp_job_info_release(&info);
	/* the same inputs as the holder attach; the old job's do not */
	assert_int_equal(submit_path(path, "wdpost-1000-0-abc", &c, &att, &err), 0);
	assert_true(att);
	assert_int_equal(c, b);
	assert_int_equal(reused_count(), 1);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, "wdpost-1000-0-abc", &c,
				  &att, &err),
			 0);
	assert_false(att);
	assert_true(c > b);
	assert_int_equal(reused_count(), 2);
	wait_end(c, &info);
	check_proof(&info);
	zkp_job_info_release(&info);
	/* a file rewritten under the same path is another input */
	assert_int_equal(submit_path(path, "porep-1000-7", &a, &att, &err), 0);
	assert_false(att);
	wait_end(a, &info);
	zkp_job_info_release(&info);
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	nanosleep(&pause, NULL); /* a new modification time */
	assert_int_equal(zkp_synth_write_wtns(path, fx_w, fx_n_w, &err), 0);
	assert_int_equal(submit_path(path, "porep-1000-7", &b, &att, &err), 0);
	assert_false(att);
	assert_true(b > a);
	assert_int_equal(reused_count(), 3);
	wait_idle();
	zkp_job_info_release(&ia);
	zkp_job_info_release(&ib);
	unlink(path);
	stop();
}

static void test_refusals(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	uint64_t id;
	start(1, 0);
	assert_int_equal(submit_w("nope", fx_w, fx_n_w, ZKP_PRIO_NORMAL, NULL, &id, NULL, &err),
			 ZKP_ERR_NOT_FOUND);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, 9, NULL, &id, NULL, &err), ZKP_ERR_INVAL);

	/* Witness paths: inside witness_dir is served, by absolute path or
	 * relative to it; outside, through "..", through a symbolic link
	 * leading out, a missing file and a FIFO (never waited on) are all
	 * answered alike: no such file under witness_dir. */
	char inside[192], outside[192], link[192];
	uint8_t *data;
	size_t len;
	raw_witness(&data, &len, fx_w, fx_n_w);
	snprintf(inside, sizeof(inside), "%s/w.bin", wit_dir);
	snprintf(outside, sizeof(outside), "%s/w.bin", tmpdir);
	snprintf(link, sizeof(link), "%s/link.bin", wit_dir);
	FILE *f = fopen(inside, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	f = fopen(outside, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(data);
	unlink(link);
	assert_int_equal(symlink(outside, link), 0);

	char dotdot[256], missing[256], fifo[256], relative_out[] = "../w.bin";
	snprintf(dotdot, sizeof(dotdot), "%s/../w.bin", wit_dir);
	snprintf(missing, sizeof(missing), "%s/none.bin", wit_dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", wit_dir);
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	const char *refused[] = { outside, link, dotdot, missing, fifo, relative_out, wit_dir };
	zkp_job_spec spec = { .circuit = "c1", .witness_kind = ZKP_WITNESS_PATH };
	bool att;
	for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++) {
		spec.path = refused[k];
		assert_int_equal(zkp_engine_submit(t_engine, &spec, &id, &att, &err),
				 ZKP_ERR_NOT_FOUND);
		char want[320];
		snprintf(want, sizeof(want), "%s: no such readable file under server.witness_dir",
			 refused[k]);
		assert_string_equal(err.msg, want);
	}
	unlink(fifo);
	const char *served[] = { inside, "w.bin", "./w.bin" };
	for (size_t k = 0; k < sizeof(served) / sizeof(served[0]); k++) {
		spec.path = served[k];
		assert_int_equal(zkp_engine_submit(t_engine, &spec, &id, &att, &err), 0);
		zkp_job_info info;
		wait_end(id, &info);
		assert_int_equal(info.state, ZKP_JOB_DONE);
		zkp_job_info_release(&info);
	}
	/* The file is opened at submit: renaming another over the name
	 * afterwards does not change what is proved. */
	spec.path = inside;
	assert_int_equal(zkp_engine_submit(t_engine, &spec, &id, &att, &err), 0);
	char moved[256];
	snprintf(moved, sizeof(moved), "%s/w.bin.moved", wit_dir);
	assert_int_equal(rename(inside, moved), 0);
	f = fopen(inside, "wb");
	assert_non_null(f);
	fputs("not a witness", f);
	fclose(f);
	zkp_job_info info;
	wait_end(id, &info);
	assert_int_equal(info.state, ZKP_JOB_DONE);
	zkp_job_info_release(&info);
	assert_int_equal(rename(moved, inside), 0);

	/* Empty witness. */
	zkp_job_spec empty = { .circuit = "c1", .witness_kind = ZKP_WITNESS_RAW };
	assert_int_equal(zkp_engine_submit(t_engine, &empty, &id, &att, &err), ZKP_ERR_INVAL);
	stop();

	/* No witness_dir: every path is denied. */
	zkp_config cfg;
	config_for(&cfg, 1, 0);
	cfg.witness_dir = NULL;
	assert_int_equal(zkp_engine_new(&t_engine, &cfg, test_notify, NULL, &err), 0);
	zkp_engine_start_loads(t_engine);
	spec.path = inside;
	assert_int_equal(zkp_engine_submit(t_engine, &spec, &id, &att, &err), ZKP_ERR_DENIED);
	stop();

	/* A GPU list needs the CUDA backend. */
	config_for(&cfg, 1, 0);
	cfg.devices = (char *)"0,1";
	zkp_engine *e = NULL;
	assert_int_equal(zkp_engine_new(&e, &cfg, test_notify, NULL, &err), ZKP_ERR_CONFIG);
	assert_null(e);
	assert_non_null(strstr(err.msg, "CUDA"));
}

static void test_bad_witnesses(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	zkp_job_info info;
	uint64_t id;
	start(1, 0);
	/* One value short. */
	assert_int_equal(submit_w("c1", fx_w, fx_n_w - 1, ZKP_PRIO_NORMAL, NULL, &id, NULL, &err),
			 0);
	wait_end(id, &info);
	assert_int_equal(info.state, ZKP_JOB_FAILED);
	assert_int_equal(info.error_code, ZKP_ERR_MISMATCH);
	zkp_job_info_release(&info);

	/* A changed aux value breaks some row. */
	zkp_fr *w = malloc(fx_n_w * sizeof(zkp_fr));
	assert_non_null(w);
	memcpy(w, fx_w, fx_n_w * sizeof(zkp_fr));
	zkp_fr one;
	zkp_fr_set_one(&one);
	size_t k = fx_n_w / 2;
	zkp_fr_add(&w[k], &w[k], &one);
	assert_int_equal(submit_w("c1", w, fx_n_w, ZKP_PRIO_NORMAL, NULL, &id, NULL, &err), 0);
	free(w);
	wait_end(id, &info);
	assert_int_equal(info.state, ZKP_JOB_FAILED);
	assert_int_equal(info.error_code, ZKP_ERR_UNSATISFIED);
	assert_non_null(strstr(info.error_message, "row"));
	zkp_job_info_release(&info);

	/* A value >= r: the decoder's message. */
	uint8_t *data;
	size_t len;
	raw_witness(&data, &len, fx_w, fx_n_w);
	memset(data + 32, 0xff, 32);
	zkp_job_spec spec = { .circuit = "c1", .witness_kind = ZKP_WITNESS_RAW };
	spec.data = data;
	spec.len = len;
	bool att;
	assert_int_equal(zkp_engine_submit(t_engine, &spec, &id, &att, &err), 0);
	wait_end(id, &info);
	assert_int_equal(info.state, ZKP_JOB_FAILED);
	assert_int_equal(info.error_code, ZKP_ERR_NOT_CANONICAL);
	zkp_job_info_release(&info);

	/* The pipeline goes on. */
	id = submit_ok("c1", ZKP_PRIO_NORMAL);
	wait_end(id, &info);
	check_proof(&info);
	zkp_job_info_release(&info);
	stop();
}

static void test_loads(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	zkp_job_info info;
	start(1, 0);
	/* A job for a circuit not loaded waits for its load (LOAD stage). */
	uint64_t id = submit_ok("lazy", ZKP_PRIO_NORMAL);
	wait_end(id, &info);
	check_proof(&info);
	assert_true(info.stages[ZKP_STAGE_LOAD].ran);
	zkp_job_info_release(&info);

	/* A failed load fails the jobs that waited, with its message. */
	id = submit_ok("broken", ZKP_PRIO_NORMAL);
	wait_end(id, &info);
	assert_int_equal(info.state, ZKP_JOB_FAILED);
	assert_int_equal(info.error_code, ZKP_ERR_IO);
	assert_non_null(strstr(info.error_message, "missing.params"));
	zkp_job_info_release(&info);
	assert_int_equal(zkp_engine_load(t_engine, "broken", 5, &err), 0);
	assert_int_equal(wait_load_event(5), ZKP_ERR_IO);
	assert_int_equal(zkp_engine_load_error(t_engine, "broken", &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, "missing.params"));
	assert_int_equal(zkp_engine_load_error(t_engine, "lazy", &err), 0);
	assert_int_equal(zkp_engine_unload(t_engine, "nope", &err), ZKP_ERR_NOT_FOUND);
	assert_int_equal(zkp_engine_unload(t_engine, "lazy", &err), 0);
	stop();
}

static void test_drain(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	uint64_t ids[4], id;
	start(1, 0);
	for (int i = 0; i < 4; i++)
		ids[i] = submit_ok("c1", ZKP_PRIO_NORMAL);
	zkp_engine_drain(t_engine);
	assert_int_equal(submit_w("c1", fx_w, fx_n_w, ZKP_PRIO_NORMAL, NULL, &id, NULL, &err),
			 ZKP_ERR_SHUTDOWN);
	wait_idle();
	assert_int_equal(zkp_engine_running(t_engine), 0);
	/* Each ended: done if it had started, cancelled if still queued. */
	for (int i = 0; i < 4; i++) {
		zkp_job_info info;
		wait_end(ids[i], &info);
		assert_true(info.state == ZKP_JOB_DONE || info.state == ZKP_JOB_CANCELLED);
		zkp_job_info_release(&info);
	}
	zkp_engine_status st;
	assert_int_equal(zkp_engine_get_status(t_engine, &st), 0);
	assert_false(st.accepting);
	zkp_engine_status_release(&st);
	stop();
}

static void test_free_while_busy(void **state)
{
	(void)state;
	/* Freed with jobs queued and running: everything ends, nothing leaks
	 * (the sanitizer build checks). */
	start(2, 0);
	for (int i = 0; i < 8; i++)
		submit_ok("c1", i % 2 ? ZKP_PRIO_HIGH : ZKP_PRIO_LOW);
	submit_ok("lazy", ZKP_PRIO_NORMAL);
	wait_a_little();
	stop();
	zkp_engine_free(NULL);
}

int main(void)
{
	tu_seed();
	main_thread = pthread_self();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_proof),
		cmocka_unit_test(test_restored_results_verified),
		cmocka_unit_test(test_six_jobs_two_pipelines),
		cmocka_unit_test(test_priority_order),
		cmocka_unit_test(test_cancel_running),
		cmocka_unit_test(test_budget_and_queue),
		cmocka_unit_test(test_critical_reserve),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_request_inputs),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_bad_witnesses),
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_free_while_busy),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
