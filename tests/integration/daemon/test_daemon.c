/*
 * zkpd end to end: a real daemon process on a temporary Unix socket and a
 * TCP port, spoken to with real frames (src/daemon/wire.h's client), on two
 * synthetic PoRep-shaped circuits with INSECURE development keys made here.
 *
 * Covers: health and status; proofs that verify against the key's vk;
 * concurrent clients; idempotent resubmission; unknown circuit; wrong
 * witness length; unsatisfied witness (the row is named); witness paths
 * inside and outside server.witness_dir; priority order; cancel of queued
 * and running jobs; malformed, truncated, oversized, empty and random
 * frames, after which the daemon still serves others; a client gone
 * mid-job whose result is picked up by request_id; metrics text; every
 * finished job's spans adding up to its total time (within 5 %), with
 * several proofs at once, and running jobs' spans to their age in Status;
 * backpressure on a client that does not read; the idle timeout;
 * server.max_connections; and the SIGTERM drain (running job finishes,
 * exit status 0).
 *
 * usage: test_daemon ZKPD_BINARY
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "wire.h"
#include "zkpd/groth16.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"
#include "zkpd/synth.h"

#define SMALL_N ((1u << 10) - 16)
#define SLOW_N ((1u << 13) - 16)
#define MAX_FRAME (4u << 20)
#define MAX_CONNECTIONS 64

typedef struct {
	uint8_t *raw; /* raw witness bytes */
	size_t raw_len;
	zkp_groth16_vk vk;
	zkp_groth16_pvk *pvk;
	size_t n_inputs; /* with ONE */
} test_circuit;

static const char *zkpd_bin;
static char tmpdir[64], sock_addr[160], tcp_addr[64];
static pid_t daemon_pid;
static test_circuit small, slow;

/* ---- setup ---- */

static void make_circuit(test_circuit *c, const char *name, uint32_t n, uint64_t seed)
{
	char pce_path[256], key_path[256], wit_path[256];
	zkp_synth_info info;
	zkp_pce_builder *b;
	zkp_pce *pce;
	zkp_pool *pool;
	zkp_groth16_pk pk;
	zkp_error err = { 0 };
	int rc;

	snprintf(pce_path, sizeof(pce_path), "%s/%s.pce", tmpdir, name);
	snprintf(key_path, sizeof(key_path), "%s/%s.INSECURE-DEV.params", tmpdir, name);
	snprintf(wit_path, sizeof(wit_path), "%s/wit/%s.raw", tmpdir, name);
	assert_int_equal(zkp_synth_porep_dims(n, &info, &err), 0);
	size_t n_w = (size_t)(info.n_inputs + info.n_aux);
	zkp_fr *w = malloc(n_w * sizeof(zkp_fr));
	assert_non_null(w);
	assert_int_equal(zkp_pce_builder_new(&b, info.n_inputs, info.n_aux), 0);
	rc = zkp_synth_porep(n, seed, zkp_synth_builder_sink, b, w, NULL, &err);
	if (!rc)
		rc = zkp_pce_builder_write(b, pce_path, &err);
	zkp_pce_builder_free(b);
	if (!rc)
		rc = zkp_pce_load(&pce, pce_path, 0, &err);
	if (rc)
		fail_msg("%s: %s", name, zkp_error_text(&err, rc));
	assert_int_equal(zkp_pool_new(&pool, 2), 0);
	zkp_groth16_pk_init(&pk);
	rc = zkp_groth16_setup_dev(&pk, pce, ZKP_GROTH16_H_BELLMAN, &seed, NULL, pool, &err);
	if (!rc)
		rc = zkp_groth16_pk_write_params(&pk, key_path, &err);
	if (rc)
		fail_msg("%s key: %s", name, zkp_error_text(&err, rc));
	zkp_groth16_vk_init(&c->vk);
	assert_int_equal(zkp_groth16_vk_copy(&c->vk, &pk.vk), 0);
	assert_int_equal(zkp_groth16_pvk_new(&c->pvk, &c->vk), 0);
	c->n_inputs = (size_t)info.n_inputs;
	c->raw_len = n_w * 32;
	c->raw = malloc(c->raw_len);
	assert_non_null(c->raw);
	for (size_t i = 0; i < n_w; i++)
		zkp_fr_to_le(c->raw + 32 * i, &w[i]);
	FILE *f = fopen(wit_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(c->raw, 1, c->raw_len, f), c->raw_len);
	fclose(f);
	zkp_groth16_pk_release(&pk);
	zkp_pool_free(pool);
	zkp_pce_free(pce);
	free(w);
}

static uint16_t free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static zkp_client *dial_addr(const char *addr)
{
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	int rc = zkp_client_connect(&c, addr, MAX_FRAME * 2, &err);
	if (rc)
		fail_msg("connect %s: %s", addr, zkp_error_text(&err, rc));
	return c;
}

static zkp_client *dial(void)
{
	return dial_addr(sock_addr);
}

/* Sends req with a fresh call id; returns the final Response or Error
 * envelope for it (progress events counted into *n_progress). */
static Zkpd__V1__Envelope *call(zkp_client *c, Zkpd__V1__Request *req, int *n_progress)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT, *in = NULL;
	zkp_error err = { 0 };
	env.call_id = zkp_client_next_call_id(c);
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = req;
	int rc = zkp_client_send(c, &env, &err);
	if (rc)
		fail_msg("send: %s", zkp_error_text(&err, rc));
	for (;;) {
		rc = zkp_client_recv(c, &in, 120000, &err);
		if (rc)
			fail_msg("recv: %s", zkp_error_text(&err, rc));
		assert_int_equal(in->call_id, env.call_id);
		if (in->body_case != ZKPD__V1__ENVELOPE__BODY_PROGRESS)
			return in;
		if (n_progress)
			(*n_progress)++;
		zkp_wire_free(in);
	}
}

/* Appends env's frame to the buffer *buf of *len bytes (grown as needed),
 * for several frames sent in one write. */
static void frames_append(uint8_t **buf, size_t *len, const Zkpd__V1__Envelope *env)
{
	uint8_t *frame;
	size_t n;
	assert_int_equal(zkp_wire_pack(env, &frame, &n), 0);
	*buf = realloc(*buf, *len + n);
	assert_non_null(*buf);
	memcpy(*buf + *len, frame, n);
	*len += n;
	free(frame);
}

static void submit_req(Zkpd__V1__SubmitRequest *sr, Zkpd__V1__Witness *w, const char *circuit,
		       const uint8_t *raw, size_t len, Zkpd__V1__Priority prio, const char *rid)
{
	zkpd__v1__submit_request__init(sr);
	zkpd__v1__witness__init(w);
	w->source_case = ZKPD__V1__WITNESS__SOURCE_RAW;
	w->raw.data = (uint8_t *)raw;
	w->raw.len = len;
	sr->circuit = (char *)circuit;
	sr->witness = w;
	sr->priority = prio;
	if (rid)
		sr->request_id = (char *)rid;
}

/* Prove and return the envelope with the JobResult (or an Error). */
static Zkpd__V1__Envelope *prove(zkp_client *c, const char *circuit, const uint8_t *raw,
				 size_t len, const char *rid, int *n_progress)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__ProveRequest pr = ZKPD__V1__PROVE_REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr;
	Zkpd__V1__Witness w;
	submit_req(&sr, &w, circuit, raw, len, ZKPD__V1__PRIORITY__PRIORITY_NORMAL, rid);
	pr.submit = &sr;
	req.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
	req.prove = &pr;
	return call(c, &req, n_progress);
}

static uint64_t submit(zkp_client *c, const char *circuit, const uint8_t *raw, size_t len,
		       Zkpd__V1__Priority prio, const char *rid, bool *attached)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr;
	Zkpd__V1__Witness w;
	submit_req(&sr, &w, circuit, raw, len, prio, rid);
	req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
	req.submit = &sr;
	Zkpd__V1__Envelope *in = call(c, &req, NULL);
	if (in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR)
		fail_msg("submit: %s: %s", in->error->code, in->error->message);
	assert_int_equal(in->response->call_case, ZKPD__V1__RESPONSE__CALL_SUBMIT);
	uint64_t id = in->response->submit->job_id;
	if (attached)
		*attached = in->response->submit->attached;
	zkp_wire_free(in);
	return id;
}

static Zkpd__V1__Envelope *await_job(zkp_client *c, uint64_t id, uint32_t timeout_ms)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__AwaitRequest ar = ZKPD__V1__AWAIT_REQUEST__INIT;
	ar.job_id = id;
	ar.timeout_ms = timeout_ms;
	req.call_case = ZKPD__V1__REQUEST__CALL_AWAIT;
	req.await = &ar;
	return call(c, &req, NULL);
}

static Zkpd__V1__JobResult *result_of(Zkpd__V1__Envelope *in)
{
	if (in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR)
		fail_msg("error %s: %s", in->error->code, in->error->message);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	assert_int_equal(in->response->call_case, ZKPD__V1__RESPONSE__CALL_RESULT);
	return in->response->result;
}

/* Spans each named and not negative, adding up to `total` within 5 %
 * (the daemon makes them contiguous from one clock: only rounding
 * separates them); returns their sum. */
static double check_span_sum(Zkpd__V1__Span *const *sp, size_t n, double total, uint64_t job)
{
	double sum = 0;
	if (!n)
		fail_msg("job %" PRIu64 ": no spans", job);
	for (size_t i = 0; i < n; i++) {
		if (!sp[i]->name[0] || !(sp[i]->seconds >= 0))
			fail_msg("job %" PRIu64 ": span %zu '%s' of %g s", job, i, sp[i]->name,
				 sp[i]->seconds);
		sum += sp[i]->seconds;
	}
	if (!(sum >= 0.95 * total && sum <= 1.05 * total))
		fail_msg("job %" PRIu64 ": spans add up to %.6f s of %.6f s", job, sum, total);
	return sum;
}

/* A finished job's spans add up to its total time, and its stages (the
 * sums of their spans) to no more. */
static void check_spans(const Zkpd__V1__JobResult *r)
{
	check_span_sum(r->spans, r->n_spans, r->total_seconds, r->job_id);
	double stages = 0;
	for (size_t i = 0; i < r->n_stages; i++)
		stages += r->stages[i]->seconds;
	if (stages > 1.05 * r->total_seconds)
		fail_msg("job %" PRIu64 ": stages add up to %.6f s of %.6f s", r->job_id, stages,
			 r->total_seconds);
}

static bool has_span(const Zkpd__V1__JobResult *r, const char *name)
{
	for (size_t i = 0; i < r->n_spans; i++)
		if (!strcmp(r->spans[i]->name, name))
			return true;
	return false;
}

/* The proof verifies against the circuit's vk with the returned inputs,
 * which equal the witness's; the job's spans add up to its time. */
static void check_proof(const test_circuit *c, const Zkpd__V1__JobResult *r)
{
	zkp_groth16_proof proof;
	if (r->state != ZKPD__V1__JOB_STATE__JOB_STATE_DONE)
		fail_msg("job %" PRIu64 " state %d: %s %s", r->job_id, r->state, r->error_code,
			 r->error_message);
	assert_int_equal(r->proof.len, ZKP_GROTH16_PROOF_BYTES);
	assert_int_equal(zkp_groth16_proof_from_bytes(&proof, r->proof.data, NULL), 0);
	assert_int_equal(r->n_public_inputs, c->n_inputs - 1);
	zkp_fr *in = calloc(c->n_inputs, sizeof(zkp_fr));
	for (size_t i = 0; i < r->n_public_inputs; i++) {
		assert_int_equal(r->public_inputs[i].len, 32);
		assert_memory_equal(r->public_inputs[i].data, c->raw + 32 * (i + 1), 32);
		assert_int_equal(zkp_fr_from_le(&in[i], r->public_inputs[i].data), 0);
	}
	assert_int_equal(zkp_groth16_verify(c->pvk, in, r->n_public_inputs, &proof), 0);
	free(in);
	check_spans(r);
}

static Zkpd__V1__Envelope *simple_call(zkp_client *c, Zkpd__V1__Request__CallCase kind)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__StatusRequest st = ZKPD__V1__STATUS_REQUEST__INIT;
	Zkpd__V1__MetricsRequest mt = ZKPD__V1__METRICS_REQUEST__INIT;
	Zkpd__V1__HealthRequest ht = ZKPD__V1__HEALTH_REQUEST__INIT;
	req.call_case = kind;
	if (kind == ZKPD__V1__REQUEST__CALL_STATUS)
		req.status = &st;
	else if (kind == ZKPD__V1__REQUEST__CALL_METRICS)
		req.metrics = &mt;
	else
		req.health = &ht;
	return call(c, &req, NULL);
}

static void assert_serving(void)
{
	zkp_client *c = dial();
	Zkpd__V1__Envelope *in = simple_call(c, ZKPD__V1__REQUEST__CALL_HEALTH);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	assert_true(in->response->health->serving);
	zkp_wire_free(in);
	zkp_client_close(c);
}

static int start_daemon(void **state)
{
	char path[256];
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/zkpd-it-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/wit", tmpdir);
	mkdir(path, 0700);
	tu_seed();
	make_circuit(&small, "small", SMALL_N, 11);
	make_circuit(&slow, "slow", SLOW_N, 12);

	snprintf(sock_addr, sizeof(sock_addr), "unix:%s/zkpd.sock", tmpdir);
	snprintf(tcp_addr, sizeof(tcp_addr), "tcp:127.0.0.1:%u", free_port());
	snprintf(path, sizeof(path), "%s/zkpd.conf", tmpdir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f,
		"# INSECURE development keys: test circuits only\n"
		"[server]\nlisten = %s, %s\ntcp_plaintext = true\nmax_frame_bytes = %u\n"
		"witness_dir = %s/wit\n"
		"idle_timeout = 3s\nshutdown_grace = 60s\njob_history = 64\n"
		"conn_buffer_bytes = 64K\nmax_connections = %d\n"
		"[pipeline]\ndepth = 1\n[synthesis]\nthreads = 2\n[log]\nlevel = info\n"
		"[circuit.small]\npce = small.pce\nkey = small.INSECURE-DEV.params\n"
		"key_format = bellman\npreload = true\n"
		"[circuit.slow]\npce = slow.pce\nkey = slow.INSECURE-DEV.params\n"
		"key_format = bellman\npreload = true\n",
		sock_addr, tcp_addr, MAX_FRAME, tmpdir, MAX_CONNECTIONS);
	fclose(f);

	daemon_pid = fork();
	if (daemon_pid == 0) {
		char log[256];
		snprintf(log, sizeof(log), "%s/zkpd.log", tmpdir);
		if (!freopen(log, "w", stderr))
			_exit(127);
		execl(zkpd_bin, zkpd_bin, "--config", path, (char *)NULL);
		_exit(127);
	}
	/* Wait for the socket and both preloaded circuits. */
	for (int i = 0; i < 600; i++) {
		zkp_client *c = NULL;
		zkp_error err = { 0 };
		int st;
		if (waitpid(daemon_pid, &st, WNOHANG) == daemon_pid) {
			fprintf(stderr, "zkpd exited early (status %d); see %s/zkpd.log\n", st,
				tmpdir);
			return -1;
		}
		if (!zkp_client_connect(&c, sock_addr, MAX_FRAME * 2, &err)) {
			Zkpd__V1__Envelope *in = simple_call(c, ZKPD__V1__REQUEST__CALL_STATUS);
			size_t loaded = 0;
			if (in->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE)
				for (size_t k = 0; k < in->response->status->n_circuits; k++)
					loaded += in->response->status->circuits[k]->loaded;
			zkp_wire_free(in);
			zkp_client_close(c);
			if (loaded == 2)
				return 0;
		}
		usleep(100 * 1000);
	}
	fprintf(stderr, "zkpd did not come up within 60 s; see %s/zkpd.log\n", tmpdir);
	return -1;
}

static int stop_daemon(void **state)
{
	char cmd[128];
	(void)state;
	if (daemon_pid > 0 && kill(daemon_pid, 0) == 0) {
		kill(daemon_pid, SIGKILL);
		waitpid(daemon_pid, NULL, 0);
	}
	zkp_groth16_pvk_free(small.pvk);
	zkp_groth16_pvk_free(slow.pvk);
	zkp_groth16_vk_release(&small.vk);
	zkp_groth16_vk_release(&slow.vk);
	free(small.raw);
	free(slow.raw);
	if (getenv("ZKPD_TEST_KEEP")) {
		fprintf(stderr, "kept %s\n", tmpdir);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- tests ---- */

static void test_status_and_health(void **state)
{
	(void)state;
	zkp_client *c = dial();
	Zkpd__V1__Envelope *in = simple_call(c, ZKPD__V1__REQUEST__CALL_STATUS);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	Zkpd__V1__StatusResponse *st = in->response->status;
	assert_true(st->accepting);
	assert_int_equal(st->n_circuits, 2);
	assert_true(st->n_pipelines >= 1);
	assert_non_null(st->memory);
	assert_true(st->memory->rss_bytes > 0);
	for (size_t i = 0; i < st->n_circuits; i++) {
		assert_true(st->circuits[i]->loaded);
		assert_true(st->circuits[i]->insecure_dev_key);
		assert_true(st->circuits[i]->working_set_bytes > 0);
	}
	zkp_wire_free(in);
	in = simple_call(c, ZKPD__V1__REQUEST__CALL_HEALTH);
	assert_true(in->response->health->serving);
	zkp_wire_free(in);
	zkp_client_close(c);
}

static void test_prove_verifies(void **state)
{
	(void)state;
	int n_progress = 0;
	zkp_client *c = dial();
	Zkpd__V1__Envelope *in = prove(c, "small", small.raw, small.raw_len, NULL, &n_progress);
	Zkpd__V1__JobResult *r = result_of(in);
	check_proof(&small, r);
	assert_true(n_progress >= 2); /* at least the first one and stage events */
	assert_true(r->n_stages >= 5);
	assert_true(r->total_seconds > 0);
	/* Every stage's work and the hand-overs between them are named. */
	static const char *const named[] = {
		"queued", "witness", "eval", "sat_check", "device_queue", "ntt", "msm_setup",
		"msm_h", "msm_l", "msm_a", "msm_b_g1", "finalize_wait", "g2_wait", "assemble",
		"verify", "result",
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!has_span(r, named[i]))
			fail_msg("no span %s in job %" PRIu64, named[i], r->job_id);
	/* The CPU backend is not a device: no busy time. */
	assert_string_equal(r->device, "cpu");
	assert_false(r->device_busy_known);
	zkp_wire_free(in);
	zkp_client_close(c);
	/* The same over TCP. */
	c = dial_addr(tcp_addr);
	in = prove(c, "small", small.raw, small.raw_len, NULL, NULL);
	check_proof(&small, result_of(in));
	zkp_wire_free(in);
	zkp_client_close(c);
}

static void *client_thread(void *arg)
{
	int *failures = arg;
	zkp_client *c = dial();
	for (int i = 0; i < 3; i++) {
		Zkpd__V1__Envelope *in = prove(c, "small", small.raw, small.raw_len, NULL, NULL);
		if (in->body_case != ZKPD__V1__ENVELOPE__BODY_RESPONSE ||
		    in->response->result->state != ZKPD__V1__JOB_STATE__JOB_STATE_DONE)
			(*failures)++;
		else
			check_proof(&small, in->response->result);
		zkp_wire_free(in);
	}
	zkp_client_close(c);
	return NULL;
}

static void test_concurrent_clients(void **state)
{
	(void)state;
	pthread_t t[4];
	int failures[4] = { 0 };
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, client_thread, &failures[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(failures[i], 0);
	}
}

static void test_idempotent_resubmit(void **state)
{
	(void)state;
	bool attached = true;
	zkp_client *c = dial();
	uint64_t id = submit(c, "small", small.raw, small.raw_len,
			     ZKPD__V1__PRIORITY__PRIORITY_NORMAL, "idem-1", &attached);
	assert_false(attached);
	uint64_t id2 = submit(c, "small", small.raw, small.raw_len,
			      ZKPD__V1__PRIORITY__PRIORITY_NORMAL, "idem-1", &attached);
	assert_true(attached);
	assert_int_equal(id, id2);
	Zkpd__V1__Envelope *in = await_job(c, id, 0);
	check_proof(&small, result_of(in));
	zkp_wire_free(in);
	/* After it finished: still the same job, not a second run. */
	uint64_t id3 = submit(c, "small", small.raw, small.raw_len,
			      ZKPD__V1__PRIORITY__PRIORITY_NORMAL, "idem-1", &attached);
	assert_true(attached);
	assert_int_equal(id, id3);
	zkp_client_close(c);
}

static void expect_error(Zkpd__V1__Envelope *in, const char *code, const char *needle)
{
	if (in->body_case != ZKPD__V1__ENVELOPE__BODY_ERROR)
		fail_msg("expected error %s, got body %d", code, in->body_case);
	if (strcmp(in->error->code, code))
		fail_msg("expected %s, got %s: %s", code, in->error->code, in->error->message);
	if (needle && !strstr(in->error->message, needle))
		fail_msg("message \"%s\" does not mention \"%s\"", in->error->message, needle);
}

static void expect_failed(Zkpd__V1__Envelope *in, const char *code, const char *needle)
{
	Zkpd__V1__JobResult *r = result_of(in);
	assert_int_equal(r->state, ZKPD__V1__JOB_STATE__JOB_STATE_FAILED);
	if (strcmp(r->error_code, code))
		fail_msg("expected %s, got %s: %s", code, r->error_code, r->error_message);
	if (needle && !strstr(r->error_message, needle))
		fail_msg("message \"%s\" does not mention \"%s\"", r->error_message, needle);
}

static void test_bad_jobs(void **state)
{
	(void)state;
	zkp_client *c = dial();
	Zkpd__V1__Envelope *in = prove(c, "nonesuch", small.raw, small.raw_len, NULL, NULL);
	expect_error(in, "ERR_NOT_FOUND", "nonesuch");
	zkp_wire_free(in);

	/* One value short. */
	in = prove(c, "small", small.raw, small.raw_len - 32, NULL, NULL);
	expect_failed(in, "ERR_MISMATCH", NULL);
	zkp_wire_free(in);

	/* The small circuit's witness for the slow circuit. */
	in = prove(c, "slow", small.raw, small.raw_len, NULL, NULL);
	expect_failed(in, "ERR_MISMATCH", NULL);
	zkp_wire_free(in);

	/* A value >= r. */
	uint8_t *bad = malloc(small.raw_len);
	memcpy(bad, small.raw, small.raw_len);
	memset(bad + 32 * 5, 0xff, 32);
	in = prove(c, "small", bad, small.raw_len, NULL, NULL);
	expect_failed(in, "ERR_NOT_CANONICAL", "5");
	zkp_wire_free(in);

	/* Satisfies nothing: an aux value changed. */
	memcpy(bad, small.raw, small.raw_len);
	size_t last = small.raw_len / 32 - 1;
	bad[32 * last] ^= 1;
	in = prove(c, "small", bad, small.raw_len, NULL, NULL);
	expect_failed(in, "ERR_UNSATISFIED", "row");
	zkp_wire_free(in);
	free(bad);

	/* The daemon still proves. */
	in = prove(c, "small", small.raw, small.raw_len, NULL, NULL);
	check_proof(&small, result_of(in));
	zkp_wire_free(in);
	zkp_client_close(c);
}

static Zkpd__V1__Envelope *prove_path(zkp_client *c, const char *circuit, const char *path)
{
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__ProveRequest pr = ZKPD__V1__PROVE_REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	w.source_case = ZKPD__V1__WITNESS__SOURCE_PATH;
	w.path = (char *)path;
	sr.circuit = (char *)circuit;
	sr.witness = &w;
	pr.submit = &sr;
	req.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
	req.prove = &pr;
	return call(c, &req, NULL);
}

static void test_witness_paths(void **state)
{
	(void)state;
	char path[256];
	zkp_client *c = dial();
	snprintf(path, sizeof(path), "%s/wit/small.raw", tmpdir);
	Zkpd__V1__Envelope *in = prove_path(c, "small", path);
	check_proof(&small, result_of(in));
	zkp_wire_free(in);
	/* Outside witness_dir, also through "..": answered as a missing
	 * file would be, so a client cannot probe the host. */
	snprintf(path, sizeof(path), "%s/small.pce", tmpdir);
	in = prove_path(c, "small", path);
	expect_error(in, "ERR_NOT_FOUND", "no such readable file under server.witness_dir");
	zkp_wire_free(in);
	snprintf(path, sizeof(path), "%s/wit/../small.pce", tmpdir);
	in = prove_path(c, "small", path);
	expect_error(in, "ERR_NOT_FOUND", "no such readable file under server.witness_dir");
	zkp_wire_free(in);
	snprintf(path, sizeof(path), "%s/wit/missing.raw", tmpdir);
	in = prove_path(c, "small", path);
	expect_error(in, "ERR_NOT_FOUND", "no such readable file under server.witness_dir");
	zkp_wire_free(in);
	zkp_client_close(c);
}

static void test_priority_order(void **state)
{
	(void)state;
	zkp_client *c = dial();
	enum { BLOCKERS = 10 };
	uint64_t blockers[BLOCKERS], ids[4];
	static const Zkpd__V1__Priority prio[4] = {
		ZKPD__V1__PRIORITY__PRIORITY_LOW, ZKPD__V1__PRIORITY__PRIORITY_NORMAL,
		ZKPD__V1__PRIORITY__PRIORITY_HIGH, ZKPD__V1__PRIORITY__PRIORITY_CRITICAL
	};
	/* A pipeline holds depth + 4 = 5 jobs (cpu stage, depth queue,
	 * device stage, the queue to finalize, finalize): ten blockers fill it
	 * and keep five queued, so the burst below still finds the pipeline
	 * full even if this client is descheduled while a few blockers end. */
	for (int i = 0; i < BLOCKERS; i++)
		blockers[i] = submit(c, "slow", slow.raw, slow.raw_len,
				     ZKPD__V1__PRIORITY__PRIORITY_NORMAL, NULL, NULL);
	/* The four arrive in one write of four small frames (witnesses by
	 * path), which the daemon reads and queues in one go, so a slot that
	 * opens meanwhile cannot take one of them before the others are
	 * queued. */
	uint64_t call_ids[4];
	zkp_error err = { 0 };
	char wpath[256];
	snprintf(wpath, sizeof(wpath), "%s/wit/slow.raw", tmpdir);
	uint8_t *burst = NULL;
	size_t burst_len = 0;
	for (int i = 0; i < 4; i++) {
		Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
		Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
		Zkpd__V1__SubmitRequest sr = ZKPD__V1__SUBMIT_REQUEST__INIT;
		Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
		w.source_case = ZKPD__V1__WITNESS__SOURCE_PATH;
		w.path = wpath;
		sr.circuit = "slow";
		sr.witness = &w;
		sr.priority = prio[i];
		req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
		req.submit = &sr;
		env.call_id = call_ids[i] = zkp_client_next_call_id(c);
		env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
		env.request = &req;
		frames_append(&burst, &burst_len, &env);
	}
	assert_int_equal(zkp_client_send_raw(c, burst, burst_len, &err), 0);
	free(burst);
	for (int i = 0; i < 4; i++) {
		Zkpd__V1__Envelope *in = NULL;
		assert_int_equal(zkp_client_recv(c, &in, 60000, &err), 0);
		assert_int_equal(in->call_id, call_ids[i]);
		assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
		ids[i] = in->response->submit->job_id;
		zkp_wire_free(in);
	}
	/* Queued and running jobs in Status: their spans so far add up to
	 * their age. */
	Zkpd__V1__Envelope *sin = simple_call(c, ZKPD__V1__REQUEST__CALL_STATUS);
	assert_int_equal(sin->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	const Zkpd__V1__StatusResponse *st = sin->response->status;
	assert_true(st->n_jobs >= 4);
	for (size_t i = 0; i < st->n_jobs; i++)
		check_span_sum(st->jobs[i]->spans, st->jobs[i]->n_spans, st->jobs[i]->age_seconds,
			       st->jobs[i]->job_id);
	zkp_wire_free(sin);
	/* One pipeline: jobs finish in the order they start. Record, per job,
	 * the total time from submit to end minus nothing: the finish order is
	 * what the queue served, so compare the jobs' end ranks. */
	double end[4];
	for (int i = 0; i < 4; i++) {
		Zkpd__V1__Envelope *in = await_job(c, ids[i], 0);
		Zkpd__V1__JobResult *r = result_of(in);
		check_proof(&slow, r);
		end[i] = r->queue_seconds;
		zkp_wire_free(in);
	}
	for (int i = 0; i < BLOCKERS; i++) {
		Zkpd__V1__Envelope *in = await_job(c, blockers[i], 0);
		check_proof(&slow, result_of(in));
		zkp_wire_free(in);
	}
	/* Submitted LOW, NORMAL, HIGH, CRITICAL within milliseconds while the
	 * blockers held the pipeline: CRITICAL waited least, LOW most. */
	if (!(end[3] < end[2] && end[2] < end[1] && end[1] < end[0]))
		fail_msg("queue seconds LOW %.3f NORMAL %.3f HIGH %.3f CRITICAL %.3f: not in "
			 "priority order", end[0], end[1], end[2], end[3]);
	zkp_client_close(c);
}

static void test_cancel(void **state)
{
	(void)state;
	zkp_client *c = dial();
	uint64_t blocker = submit(c, "slow", slow.raw, slow.raw_len,
				  ZKPD__V1__PRIORITY__PRIORITY_NORMAL, NULL, NULL);
	/* One pipeline holds up to depth + 4 = 5 jobs: with six NORMAL jobs
	 * ahead of it, the LOW job is still queued when the cancel comes. */
	uint64_t more[5];
	for (int i = 0; i < 5; i++)
		more[i] = submit(c, "slow", slow.raw, slow.raw_len,
				 ZKPD__V1__PRIORITY__PRIORITY_NORMAL, NULL, NULL);
	uint64_t queued = submit(c, "slow", slow.raw, slow.raw_len,
				 ZKPD__V1__PRIORITY__PRIORITY_LOW, NULL, NULL);
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__CancelRequest cr = ZKPD__V1__CANCEL_REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_CANCEL;
	req.cancel = &cr;
	cr.job_id = queued;
	Zkpd__V1__Envelope *in = call(c, &req, NULL);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	assert_int_equal(in->response->cancel->state, ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED);
	zkp_wire_free(in);
	in = await_job(c, queued, 0);
	assert_int_equal(result_of(in)->state, ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED);
	zkp_wire_free(in);

	/* The first blocker is running: it stops at its next stage boundary. */
	cr.job_id = blocker;
	in = call(c, &req, NULL);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	Zkpd__V1__JobState st = in->response->cancel->state;
	assert_true(st == ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING ||
		    st == ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED);
	zkp_wire_free(in);
	in = await_job(c, blocker, 0);
	assert_int_equal(result_of(in)->state, ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED);
	zkp_wire_free(in);
	for (int i = 0; i < 5; i++) {
		in = await_job(c, more[i], 0);
		check_proof(&slow, result_of(in));
		zkp_wire_free(in);
	}

	/* Unknown job. */
	cr.job_id = 999999;
	in = call(c, &req, NULL);
	expect_error(in, "ERR_NOT_FOUND", NULL);
	zkp_wire_free(in);
	zkp_client_close(c);
}

static Zkpd__V1__Envelope *recv_one(zkp_client *c)
{
	Zkpd__V1__Envelope *in = NULL;
	zkp_error err = { 0 };
	int rc = zkp_client_recv(c, &in, 30000, &err);
	if (rc)
		fail_msg("recv: %s", zkp_error_text(&err, rc));
	return in;
}

/* The daemon closes a connection after answering a broken frame. */
static void expect_closed(zkp_client *c)
{
	Zkpd__V1__Envelope *in = NULL;
	zkp_error err = { 0 };
	int rc = zkp_client_recv(c, &in, 30000, &err);
	if (!rc)
		zkp_wire_free(in);
	assert_int_equal(rc, ZKP_ERR_IO);
}

static void test_bad_frames(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	/* A long-lived client that must keep being served throughout. */
	zkp_client *good = dial();

	/* Random bytes as a body. */
	zkp_client *c = dial();
	uint8_t frame[4 + 64];
	frame[0] = 0, frame[1] = 0, frame[2] = 0, frame[3] = 64;
	for (int attempt = 0; attempt < 8; attempt++) {
		tu_rand_bytes(frame + 4, 64);
		frame[4] = 0xff; /* field 31 of wire type 7: never a valid Envelope */
		assert_int_equal(zkp_client_send_raw(c, frame, sizeof(frame), &err), 0);
		Zkpd__V1__Envelope *in = recv_one(c);
		expect_error(in, "ERR_PROTOCOL", NULL);
		assert_int_equal(in->call_id, 0);
		zkp_wire_free(in);
		expect_closed(c);
		zkp_client_close(c);
		c = dial();
	}

	/* Oversized: refused from the header alone. */
	uint8_t big[4] = { 0x7f, 0xff, 0xff, 0xff };
	assert_int_equal(zkp_client_send_raw(c, big, 4, &err), 0);
	Zkpd__V1__Envelope *in = recv_one(c);
	expect_error(in, "ERR_LIMIT", NULL);
	zkp_wire_free(in);
	expect_closed(c);
	zkp_client_close(c);

	/* Zero length. */
	c = dial();
	uint8_t zero[4] = { 0, 0, 0, 0 };
	assert_int_equal(zkp_client_send_raw(c, zero, 4, &err), 0);
	in = recv_one(c);
	expect_error(in, "ERR_PROTOCOL", NULL);
	zkp_wire_free(in);
	expect_closed(c);
	zkp_client_close(c);

	/* Truncated: a header for 1000 bytes, 10 sent, then gone. */
	c = dial();
	uint8_t part[14] = { 0, 0, 0x03, 0xe8 };
	assert_int_equal(zkp_client_send_raw(c, part, sizeof(part), &err), 0);
	zkp_client_close(c);

	/* A valid Envelope that is not a request: error, connection stays. */
	c = dial();
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	Zkpd__V1__Error e = ZKPD__V1__ERROR__INIT;
	env.call_id = 7;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_ERROR;
	env.error = &e;
	assert_int_equal(zkp_client_send(c, &env, &err), 0);
	in = recv_one(c);
	expect_error(in, "ERR_PROTOCOL", NULL);
	assert_int_equal(in->call_id, 7);
	zkp_wire_free(in);
	/* A request with no call set. */
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	in = call(c, &req, NULL);
	expect_error(in, "ERR_PROTOCOL", NULL);
	zkp_wire_free(in);
	in = simple_call(c, ZKPD__V1__REQUEST__CALL_HEALTH);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	zkp_wire_free(in);
	zkp_client_close(c);

	/* The long-lived client and new ones are still served. */
	in = prove(good, "small", small.raw, small.raw_len, NULL, NULL);
	check_proof(&small, result_of(in));
	zkp_wire_free(in);
	zkp_client_close(good);
	assert_serving();
}

static void test_client_gone_mid_job(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	zkp_client *c = dial();
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__ProveRequest pr = ZKPD__V1__PROVE_REQUEST__INIT;
	Zkpd__V1__SubmitRequest sr;
	Zkpd__V1__Witness w;
	submit_req(&sr, &w, "slow", slow.raw, slow.raw_len, ZKPD__V1__PRIORITY__PRIORITY_NORMAL,
		   "gone-1");
	pr.submit = &sr;
	req.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
	req.prove = &pr;
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = 1;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &req;
	assert_int_equal(zkp_client_send(c, &env, &err), 0);
	Zkpd__V1__Envelope *in = recv_one(c); /* the first progress event */
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_PROGRESS);
	zkp_wire_free(in);
	zkp_client_close(c);

	/* Another connection resubmits: attached to the same job, which ends. */
	bool attached = false;
	c = dial();
	uint64_t id = submit(c, "slow", slow.raw, slow.raw_len,
			     ZKPD__V1__PRIORITY__PRIORITY_NORMAL, "gone-1", &attached);
	assert_true(attached);
	in = await_job(c, id, 0);
	check_proof(&slow, result_of(in));
	zkp_wire_free(in);
	zkp_client_close(c);
}

static void test_await_timeout_and_metrics(void **state)
{
	(void)state;
	zkp_client *c = dial();
	uint64_t id = submit(c, "slow", slow.raw, slow.raw_len,
			     ZKPD__V1__PRIORITY__PRIORITY_NORMAL, NULL, NULL);
	Zkpd__V1__Envelope *in = await_job(c, id, 1);
	Zkpd__V1__JobResult *r = result_of(in);
	assert_true(r->state == ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED ||
		    r->state == ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING ||
		    r->state == ZKPD__V1__JOB_STATE__JOB_STATE_DONE);
	zkp_wire_free(in);
	/* The CPU device measures no busy time. */
	in = simple_call(c, ZKPD__V1__REQUEST__CALL_STATUS);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	const Zkpd__V1__StatusResponse *st = in->response->status;
	assert_true(st->n_devices >= 1);
	for (size_t i = 0; i < st->n_devices; i++)
		assert_false(st->devices[i]->busy_known);
	zkp_wire_free(in);
	in = await_job(c, id, 0);
	check_proof(&slow, result_of(in));
	zkp_wire_free(in);

	in = simple_call(c, ZKPD__V1__REQUEST__CALL_METRICS);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	const char *text = in->response->metrics->text;
	assert_non_null(strstr(text, "# TYPE zkpd_jobs_total counter"));
	assert_non_null(strstr(text, "zkpd_jobs_total{state=\"done\"}"));
	assert_non_null(strstr(text, "zkpd_process_resident_bytes"));
	assert_non_null(strstr(text, "zkpd_protocol_errors_total"));
	assert_non_null(strstr(text, "# TYPE zkpd_device_busy_seconds_total counter"));
	assert_null(strstr(text, "zkpd_device_busy_seconds_total{device=\"cpu\""));
	zkp_wire_free(in);
	zkp_client_close(c);
}

static uint64_t daemon_rss(void)
{
	zkp_client *c = dial();
	Zkpd__V1__Envelope *in = simple_call(c, ZKPD__V1__REQUEST__CALL_STATUS);
	assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
	uint64_t rss = in->response->status->memory->rss_bytes;
	zkp_wire_free(in);
	zkp_client_close(c);
	return rss;
}

/* A client that sends calls and does not read the answers: the daemon
 * stops reading from it once server.conn_buffer_bytes (64 KiB here) of
 * answers wait, instead of queueing all of them; when the client reads
 * again every answer arrives, in order. */
static void test_backpressure(void **state)
{
	(void)state;
	enum { N = 5000 };
	zkp_error err = { 0 };
	uint64_t before = daemon_rss();
	zkp_client *c = dial();
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__StatusRequest st = ZKPD__V1__STATUS_REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_STATUS;
	req.status = &st;
	/* All frames in one write: the kernel charges every small write a
	 * whole buffer, so thousands of separate sends would fill the socket
	 * (and block this test) long before the daemon pauses. */
	uint8_t *all = NULL;
	size_t all_len = 0;
	for (uint64_t i = 1; i <= N; i++) {
		Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
		env.call_id = i;
		env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
		env.request = &req;
		frames_append(&all, &all_len, &env);
	}
	assert_int_equal(zkp_client_send_raw(c, all, all_len, &err), 0);
	free(all);
	/* Unbounded, N Status answers (over 1 KiB each) would sit in the
	 * daemon: several MiB. Paused, it holds about 64 KiB. */
	usleep(500 * 1000);
	uint64_t during = daemon_rss();
	assert_serving();
	for (uint64_t i = 1; i <= N; i++) {
		Zkpd__V1__Envelope *in = recv_one(c);
		assert_int_equal(in->call_id, i);
		assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_RESPONSE);
		assert_int_equal(in->response->call_case, ZKPD__V1__RESPONSE__CALL_STATUS);
		if (i == 1) {
			size_t len = zkpd__v1__envelope__get_packed_size(in);
			fprintf(stderr, "one Status answer: %zu bytes; RSS before %.1f MiB, "
				"with %d unread calls %.1f MiB\n", len, before / 1048576.0, N,
				during / 1048576.0);
			assert_true(len * N > (size_t)4 << 20);
		}
		zkp_wire_free(in);
	}
	/* AddressSanitizer holds freed memory in quarantine instead of
	 * reusing it, so RSS grows with any churn there: a looser bound, still
	 * below the 10 MiB of answers an unbounded server would hold. */
#ifdef __SANITIZE_ADDRESS__
	const uint64_t slack = (uint64_t)7 << 20;
#else
	const uint64_t slack = (uint64_t)3 << 20;
#endif
	zkp_client_close(c);
	assert_true(during < before + slack);
}

/* server.idle_timeout (3 s here): a connection with no frame and no open
 * call is closed; one waiting for a job is not. */
static void test_idle_timeout(void **state)
{
	(void)state;
	zkp_client *idle = dial();
	sleep(5);
	expect_closed(idle);
	zkp_client_close(idle);
	assert_serving();
}

/* server.max_connections (64 here): the connection over the limit gets an
 * ERR_LIMIT error and is closed; the others are served. */
static void test_max_connections(void **state)
{
	(void)state;
	enum { N = MAX_CONNECTIONS + 6 };
	zkp_client *c[N];
	int served = 0, refused = 0;
	for (int i = 0; i < N; i++)
		c[i] = dial();
	for (int i = 0; i < N; i++) {
		Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
		Zkpd__V1__HealthRequest hr = ZKPD__V1__HEALTH_REQUEST__INIT;
		Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT, *in = NULL;
		zkp_error err = { 0 };
		req.call_case = ZKPD__V1__REQUEST__CALL_HEALTH;
		req.health = &hr;
		env.call_id = 1;
		env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
		env.request = &req;
		zkp_client_send(c[i], &env, &err); /* may fail: already closed */
		if (zkp_client_recv(c[i], &in, 30000, &err))
			continue;
		if (in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR &&
		    !strcmp(in->error->code, "ERR_LIMIT"))
			refused++;
		else if (in->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE)
			served++;
		zkp_wire_free(in);
	}
	for (int i = 0; i < N; i++)
		zkp_client_close(c[i]);
	if (served > MAX_CONNECTIONS || refused < N - MAX_CONNECTIONS)
		fail_msg("%d served, %d refused of %d connections (limit %d)", served, refused,
			 N, MAX_CONNECTIONS);
	assert_serving();
}

static void test_sigterm_drain(void **state)
{
	(void)state;
	zkp_client *c = dial();
	uint64_t id = submit(c, "slow", slow.raw, slow.raw_len,
			     ZKPD__V1__PRIORITY__PRIORITY_NORMAL, NULL, NULL);
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__AwaitRequest ar = ZKPD__V1__AWAIT_REQUEST__INIT;
	ar.job_id = id;
	req.call_case = ZKPD__V1__REQUEST__CALL_AWAIT;
	req.await = &ar;
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT, *in;
	zkp_error err = { 0 };
	env.call_id = zkp_client_next_call_id(c);
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &req;
	assert_int_equal(zkp_client_send(c, &env, &err), 0);
	/* SIGTERM cancels queued jobs: wait until this one runs. */
	for (;;) {
		in = recv_one(c);
		assert_int_equal(in->body_case, ZKPD__V1__ENVELOPE__BODY_PROGRESS);
		bool running = in->progress->state == ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING;
		zkp_wire_free(in);
		if (running)
			break;
	}

	assert_int_equal(kill(daemon_pid, SIGTERM), 0);
	/* The running job still ends with its proof on this connection. */
	for (;;) {
		in = recv_one(c);
		if (in->body_case != ZKPD__V1__ENVELOPE__BODY_PROGRESS)
			break;
		zkp_wire_free(in);
	}
	Zkpd__V1__JobResult *r = result_of(in);
	assert_true(r->state == ZKPD__V1__JOB_STATE__JOB_STATE_DONE);
	check_proof(&slow, r);
	zkp_wire_free(in);
	expect_closed(c);
	zkp_client_close(c);

	int status = 0;
	for (int i = 0; i < 300; i++) {
		if (waitpid(daemon_pid, &status, WNOHANG) == daemon_pid)
			break;
		usleep(100 * 1000);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	daemon_pid = 0;
	char sock[200];
	snprintf(sock, sizeof(sock), "%s/zkpd.sock", tmpdir);
	assert_int_not_equal(access(sock, F_OK), 0); /* the socket file is gone */
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_daemon ZKPD_BINARY\n");
		return 2;
	}
	zkpd_bin = argv[1];
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_and_health),
		cmocka_unit_test(test_prove_verifies),
		cmocka_unit_test(test_concurrent_clients),
		cmocka_unit_test(test_idempotent_resubmit),
		cmocka_unit_test(test_bad_jobs),
		cmocka_unit_test(test_witness_paths),
		cmocka_unit_test(test_priority_order),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_bad_frames),
		cmocka_unit_test(test_client_gone_mid_job),
		cmocka_unit_test(test_await_timeout_and_metrics),
		cmocka_unit_test(test_backpressure),
		cmocka_unit_test(test_idle_timeout),
		cmocka_unit_test(test_max_connections),
		cmocka_unit_test(test_sigterm_drain),
	};
	return cmocka_run_group_tests(tests, start_daemon, stop_daemon);
}
