/*
 * wire: the frame reader against byte-by-byte, chunked and multi-frame
 * feeds and bad lengths; every Request and Response kind through pack,
 * frame and unpack; the blocking client against an in-test echo server on
 * a Unix socket.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "wire.h"

/* ---- helpers ---- */

static uint8_t *pack_env(const Zkpd__V1__Envelope *env, size_t *len)
{
	uint8_t *frame = NULL;
	assert_int_equal(zkp_wire_pack(env, &frame, len), 0);
	assert_non_null(frame);
	return frame;
}

/* A frame holding a Health request with the given call id. */
static uint8_t *health_frame(uint64_t id, size_t *len)
{
	Zkpd__V1__HealthRequest h = ZKPD__V1__HEALTH_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_HEALTH;
	req.health = &h;
	env.call_id = id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &req;
	return pack_env(&env, len);
}

/* A frame of a Submit carrying n witness bytes (a large body). */
static uint8_t *witness_frame(uint64_t id, size_t n, size_t *len)
{
	uint8_t *raw = malloc(n);
	assert_non_null(raw);
	tu_rand_bytes(raw, n);
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	w.source_case = ZKPD__V1__WITNESS__SOURCE_RAW;
	w.raw.data = raw;
	w.raw.len = n;
	Zkpd__V1__SubmitRequest s = ZKPD__V1__SUBMIT_REQUEST__INIT;
	s.circuit = "c";
	s.witness = &w;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
	req.submit = &s;
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &req;
	uint8_t *f = pack_env(&env, len);
	free(raw);
	return f;
}

static uint64_t frame_call_id(const uint8_t *body, size_t len)
{
	Zkpd__V1__Envelope *env = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_wire_unpack(&env, body, len, &err), 0);
	uint64_t id = env->call_id;
	zkp_wire_free(env);
	return id;
}

/* ---- frame reader ---- */

static void test_reader_byte_by_byte(void **state)
{
	(void)state;
	uint8_t *frames[3];
	size_t lens[3];
	frames[0] = health_frame(1, &lens[0]);
	frames[1] = witness_frame(2, 5000, &lens[1]);
	frames[2] = health_frame(3, &lens[2]);

	zkp_frame_reader r;
	zkp_frame_reader_init(&r, 1 << 20);
	zkp_error err = { 0 };
	uint64_t next_id = 1;
	for (int f = 0; f < 3; f++) {
		for (size_t i = 0; i < lens[f]; i++) {
			const uint8_t *body;
			size_t len;
			assert_int_equal(zkp_frame_reader_feed(&r, frames[f] + i, 1), 0);
			int rc = zkp_frame_next(&r, &body, &len, &err);
			if (i + 1 < lens[f]) {
				assert_int_equal(rc, 0);
				continue;
			}
			assert_int_equal(rc, 1);
			assert_int_equal(len, lens[f] - ZKP_FRAME_HEADER);
			assert_memory_equal(body, frames[f] + ZKP_FRAME_HEADER, len);
			assert_int_equal(frame_call_id(body, len), next_id++);
		}
	}
	/* every byte was consumed: the buffer holds nothing */
	assert_int_equal(r.len - r.off, 0);
	zkp_frame_reader_release(&r);
	for (int f = 0; f < 3; f++)
		free(frames[f]);
}

static void test_reader_chunks(void **state)
{
	(void)state;
	/* many frames of mixed sizes, concatenated, fed in random chunks */
	enum { N = 40 };
	size_t total = 0, lens[N];
	uint8_t *frames[N];
	for (int i = 0; i < N; i++) {
		frames[i] = i % 3 ? health_frame((uint64_t)i + 1, &lens[i])
				  : witness_frame((uint64_t)i + 1, 1 + tu_rand64() % 20000, &lens[i]);
		total += lens[i];
	}
	uint8_t *all = malloc(total);
	assert_non_null(all);
	for (size_t i = 0, o = 0; i < N; o += lens[i], i++)
		memcpy(all + o, frames[i], lens[i]);

	for (int round = 0; round < 3; round++) {
		zkp_frame_reader r;
		zkp_frame_reader_init(&r, 1 << 20);
		zkp_error err = { 0 };
		size_t pos = 0;
		int got = 0;
		while (pos < total || got < N) {
			/* round 0: everything at once; 1: big chunks; 2: small */
			size_t chunk = round == 0 ? total : round == 1 ? 1 + tu_rand64() % 65536
								      : 1 + tu_rand64() % 7;
			if (chunk > total - pos)
				chunk = total - pos;
			assert_int_equal(zkp_frame_reader_feed(&r, all + pos, chunk), 0);
			pos += chunk;
			const uint8_t *body;
			size_t len;
			int rc;
			while ((rc = zkp_frame_next(&r, &body, &len, &err)) == 1) {
				assert_int_equal(len, lens[got] - ZKP_FRAME_HEADER);
				assert_memory_equal(body, frames[got] + ZKP_FRAME_HEADER, len);
				assert_int_equal(frame_call_id(body, len), (uint64_t)got + 1);
				got++;
			}
			assert_int_equal(rc, 0);
			assert_true(pos < total || got == N);
		}
		assert_int_equal(got, N);
		zkp_frame_reader_release(&r);
	}
	free(all);
	for (int i = 0; i < N; i++)
		free(frames[i]);
}

static void test_reader_compacts(void **state)
{
	(void)state;
	/* a long stream of small frames, each consumed as it completes, in
	 * pieces that straddle frame boundaries: the buffer stays small */
	size_t len;
	uint8_t *f = health_frame(77, &len);
	zkp_frame_reader r;
	zkp_frame_reader_init(&r, 1 << 20);
	zkp_error err = { 0 };
	uint8_t rep[4 * 64];
	assert_true(4 * len <= sizeof(rep));
	for (int k = 0; k < 4; k++)
		memcpy(rep + (size_t)k * len, f, len);
	size_t pos = 0, fed = 0, got = 0;
	for (int i = 0; i < 10000; i++) {
		size_t k = 1 + (size_t)i % (2 * len);
		assert_int_equal(zkp_frame_reader_feed(&r, rep + pos, k), 0);
		pos = (pos + k) % len;
		fed += k;
		const uint8_t *body;
		size_t blen;
		while (zkp_frame_next(&r, &body, &blen, &err) == 1) {
			assert_int_equal(blen, len - ZKP_FRAME_HEADER);
			assert_memory_equal(body, f + ZKP_FRAME_HEADER, blen);
			got++;
		}
		assert_int_equal(got, fed / len);
		assert_true(r.len - r.off < len);
		assert_true(r.cap <= 4096);
	}
	zkp_frame_reader_release(&r);

	/* back to back: frames fed whole and consumed one by one */
	zkp_frame_reader_init(&r, 1 << 20);
	for (int i = 0; i < 10000; i++) {
		const uint8_t *body;
		size_t blen;
		assert_int_equal(zkp_frame_reader_feed(&r, f, len), 0);
		assert_int_equal(zkp_frame_next(&r, &body, &blen, &err), 1);
		assert_int_equal(zkp_frame_next(&r, &body, &blen, &err), 0);
	}
	assert_true(r.cap <= 4096);
	zkp_frame_reader_release(&r);
	free(f);
}

static void test_reader_big_buffer_returned(void **state)
{
	(void)state;
	size_t len;
	uint8_t *big = witness_frame(5, 3u << 20, &len);
	zkp_frame_reader r;
	zkp_frame_reader_init(&r, 8u << 20);
	zkp_error err = { 0 };
	const uint8_t *body;
	size_t blen;
	assert_int_equal(zkp_frame_reader_feed(&r, big, len), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &blen, &err), 1);
	assert_int_equal(blen, len - ZKP_FRAME_HEADER);
	/* never more capacity than the frame needs */
	assert_true(r.cap <= len);
	size_t hlen;
	uint8_t *h = health_frame(6, &hlen);
	assert_int_equal(zkp_frame_reader_feed(&r, h, hlen), 0);
	assert_true(r.cap <= 4096);
	assert_int_equal(zkp_frame_next(&r, &body, &blen, &err), 1);
	assert_int_equal(frame_call_id(body, blen), 6);
	zkp_frame_reader_release(&r);
	free(h);
	free(big);
}

static void test_reader_oversized(void **state)
{
	(void)state;
	zkp_frame_reader r;
	zkp_frame_reader_init(&r, 100);
	zkp_error err = { 0 };
	const uint8_t *body;
	size_t len;

	/* a good frame, then a header declaring 101 bytes */
	size_t hlen;
	uint8_t *h = health_frame(9, &hlen);
	assert_true(hlen <= 104);
	assert_int_equal(zkp_frame_reader_feed(&r, h, hlen), 0);
	/* the header's bytes arrive one at a time: refused at the 4th */
	const uint8_t hdr[4] = { 0, 0, 0, 101 };
	for (int i = 0; i < 3; i++)
		assert_int_equal(zkp_frame_reader_feed(&r, hdr + i, 1), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), 1);
	assert_int_equal(frame_call_id(body, len), 9);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), 0);
	assert_int_equal(zkp_frame_reader_feed(&r, hdr + 3, 1), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), ZKP_ERR_LIMIT);
	assert_int_equal(err.code, ZKP_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "101"));
	assert_non_null(strstr(err.msg, "100"));

	/* the body that follows is never buffered */
	uint8_t junk[4096];
	memset(junk, 0xab, sizeof(junk));
	for (int i = 0; i < 100; i++)
		assert_int_equal(zkp_frame_reader_feed(&r, junk, sizeof(junk)), 0);
	assert_true(r.len - r.off <= ZKP_FRAME_HEADER);
	assert_true(r.cap <= 4096);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), ZKP_ERR_LIMIT);
	zkp_frame_reader_release(&r);

	/* a 4 GiB - 1 length in one feed with its "body" */
	zkp_frame_reader_init(&r, 1 << 20);
	uint8_t huge[4096] = { 0xff, 0xff, 0xff, 0xff };
	assert_int_equal(zkp_frame_reader_feed(&r, huge, sizeof(huge)), 0);
	assert_true(r.len <= ZKP_FRAME_HEADER);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), ZKP_ERR_LIMIT);
	zkp_frame_reader_release(&r);
	free(h);
}

static void test_reader_max_frame_exact(void **state)
{
	(void)state;
	/* a body of exactly max_frame bytes is accepted, one more is not */
	enum { MAX = 1000 };
	uint8_t buf[4 + MAX + 1];
	memset(buf, 0, sizeof(buf));
	buf[2] = MAX >> 8;
	buf[3] = MAX & 0xff;
	zkp_frame_reader r;
	zkp_frame_reader_init(&r, MAX);
	zkp_error err = { 0 };
	const uint8_t *body;
	size_t len;
	assert_int_equal(zkp_frame_reader_feed(&r, buf, 4 + MAX), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), 1);
	assert_int_equal(len, MAX);
	assert_true(r.cap <= 4 + MAX);
	zkp_frame_reader_release(&r);

	buf[3] = (MAX + 1) & 0xff;
	zkp_frame_reader_init(&r, MAX);
	assert_int_equal(zkp_frame_reader_feed(&r, buf, sizeof(buf)), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), ZKP_ERR_LIMIT);
	zkp_frame_reader_release(&r);
}

static void test_reader_zero_length(void **state)
{
	(void)state;
	zkp_frame_reader r;
	zkp_frame_reader_init(&r, 100);
	zkp_error err = { 0 };
	const uint8_t *body;
	size_t len;
	const uint8_t zero[8] = { 0, 0, 0, 0, 1, 2, 3, 4 };
	assert_int_equal(zkp_frame_reader_feed(&r, zero, 3), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), 0);
	assert_int_equal(zkp_frame_reader_feed(&r, zero + 3, 5), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &len, &err), ZKP_ERR_PROTOCOL);
	assert_int_equal(err.code, ZKP_ERR_PROTOCOL);
	assert_non_null(strstr(err.msg, "length 0"));
	assert_true(r.len <= ZKP_FRAME_HEADER);
	zkp_frame_reader_release(&r);
}

/* ---- envelopes ---- */

/* Packs env, reads it back through a frame reader, checks that the
 * unpacked envelope packs to the same bytes, and returns it. */
static Zkpd__V1__Envelope *round_trip(const Zkpd__V1__Envelope *env)
{
	size_t len;
	uint8_t *frame = pack_env(env, &len);
	assert_int_equal(len, ZKP_FRAME_HEADER + protobuf_c_message_get_packed_size(&env->base));
	zkp_frame_reader r;
	zkp_frame_reader_init(&r, 1 << 20);
	zkp_error err = { 0 };
	const uint8_t *body;
	size_t blen;
	assert_int_equal(zkp_frame_reader_feed(&r, frame, len), 0);
	assert_int_equal(zkp_frame_next(&r, &body, &blen, &err), 1);
	Zkpd__V1__Envelope *out = NULL;
	assert_int_equal(zkp_wire_unpack(&out, body, blen, &err), 0);
	size_t len2;
	uint8_t *frame2 = pack_env(out, &len2);
	assert_int_equal(len2, len);
	assert_memory_equal(frame2, frame, len);
	assert_int_equal(out->call_id, env->call_id);
	assert_int_equal(out->body_case, env->body_case);
	free(frame2);
	zkp_frame_reader_release(&r);
	free(frame);
	return out;
}

static Zkpd__V1__Envelope *request_round_trip(uint64_t id, Zkpd__V1__Request *req)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = req;
	Zkpd__V1__Envelope *out = round_trip(&env);
	assert_int_equal(out->request->call_case, req->call_case);
	return out;
}

static Zkpd__V1__Envelope *response_round_trip(uint64_t id, Zkpd__V1__Response *resp)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_RESPONSE;
	env.response = resp;
	Zkpd__V1__Envelope *out = round_trip(&env);
	assert_int_equal(out->response->call_case, resp->call_case);
	return out;
}

static void test_requests_round_trip(void **state)
{
	(void)state;
	Zkpd__V1__Envelope *out;
	uint8_t wtns[64];
	memcpy(wtns, "wtns", 4);
	tu_rand_bytes(wtns + 4, sizeof(wtns) - 4);

	/* Submit, with each witness source */
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	Zkpd__V1__SubmitRequest s = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	s.circuit = "porep-32g";
	s.witness = &w;
	s.priority = ZKPD__V1__PRIORITY__PRIORITY_CRITICAL;
	s.request_id = "req-1";
	s.format = ZKPD__V1__PROOF_FORMAT__PROOF_FORMAT_SNARKJS_JSON;
	req.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
	req.submit = &s;
	for (int src = 0; src < 3; src++) {
		if (src == 0) {
			w.source_case = ZKPD__V1__WITNESS__SOURCE_WTNS;
			w.wtns.data = wtns;
			w.wtns.len = sizeof(wtns);
		} else if (src == 1) {
			w.source_case = ZKPD__V1__WITNESS__SOURCE_RAW;
			w.raw.data = wtns;
			w.raw.len = 32;
		} else {
			w.source_case = ZKPD__V1__WITNESS__SOURCE_PATH;
			w.path = "jobs/w.wtns";
		}
		out = request_round_trip(1, &req);
		const Zkpd__V1__SubmitRequest *o = out->request->submit;
		assert_string_equal(o->circuit, "porep-32g");
		assert_string_equal(o->request_id, "req-1");
		assert_int_equal(o->priority, ZKPD__V1__PRIORITY__PRIORITY_CRITICAL);
		assert_int_equal(o->format, ZKPD__V1__PROOF_FORMAT__PROOF_FORMAT_SNARKJS_JSON);
		assert_int_equal(o->witness->source_case, w.source_case);
		if (src == 0)
			assert_memory_equal(o->witness->wtns.data, wtns, sizeof(wtns));
		else if (src == 1)
			assert_memory_equal(o->witness->raw.data, wtns, 32);
		else
			assert_string_equal(o->witness->path, "jobs/w.wtns");
		zkp_wire_free(out);
	}

	/* Prove */
	Zkpd__V1__ProveRequest p = ZKPD__V1__PROVE_REQUEST__INIT;
	p.submit = &s;
	p.timeout_ms = 1500;
	req.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
	req.prove = &p;
	out = request_round_trip(2, &req);
	assert_int_equal(out->request->prove->timeout_ms, 1500);
	assert_string_equal(out->request->prove->submit->circuit, "porep-32g");
	zkp_wire_free(out);

	/* Await */
	Zkpd__V1__AwaitRequest a = ZKPD__V1__AWAIT_REQUEST__INIT;
	a.job_id = UINT64_MAX;
	a.timeout_ms = 7;
	req.call_case = ZKPD__V1__REQUEST__CALL_AWAIT;
	req.await = &a;
	out = request_round_trip(3, &req);
	assert_true(out->request->await->job_id == UINT64_MAX);
	assert_int_equal(out->request->await->timeout_ms, 7);
	zkp_wire_free(out);

	/* Cancel */
	Zkpd__V1__CancelRequest c = ZKPD__V1__CANCEL_REQUEST__INIT;
	c.job_id = 42;
	req.call_case = ZKPD__V1__REQUEST__CALL_CANCEL;
	req.cancel = &c;
	out = request_round_trip(4, &req);
	assert_int_equal(out->request->cancel->job_id, 42);
	zkp_wire_free(out);

	/* Status, Metrics, Health: empty messages */
	Zkpd__V1__StatusRequest st = ZKPD__V1__STATUS_REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_STATUS;
	req.status = &st;
	zkp_wire_free(request_round_trip(5, &req));
	Zkpd__V1__MetricsRequest m = ZKPD__V1__METRICS_REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_METRICS;
	req.metrics = &m;
	zkp_wire_free(request_round_trip(6, &req));
	Zkpd__V1__HealthRequest h = ZKPD__V1__HEALTH_REQUEST__INIT;
	req.call_case = ZKPD__V1__REQUEST__CALL_HEALTH;
	req.health = &h;
	zkp_wire_free(request_round_trip(7, &req));

	/* LoadCircuit, UnloadCircuit */
	Zkpd__V1__LoadCircuitRequest l = ZKPD__V1__LOAD_CIRCUIT_REQUEST__INIT;
	l.circuit = "demo";
	req.call_case = ZKPD__V1__REQUEST__CALL_LOAD_CIRCUIT;
	req.load_circuit = &l;
	out = request_round_trip(8, &req);
	assert_string_equal(out->request->load_circuit->circuit, "demo");
	zkp_wire_free(out);
	Zkpd__V1__UnloadCircuitRequest u = ZKPD__V1__UNLOAD_CIRCUIT_REQUEST__INIT;
	u.circuit = "demo2";
	req.call_case = ZKPD__V1__REQUEST__CALL_UNLOAD_CIRCUIT;
	req.unload_circuit = &u;
	out = request_round_trip(9, &req);
	assert_string_equal(out->request->unload_circuit->circuit, "demo2");
	zkp_wire_free(out);
}

static void test_responses_round_trip(void **state)
{
	(void)state;
	Zkpd__V1__Envelope *out;
	Zkpd__V1__Response resp = ZKPD__V1__RESPONSE__INIT;

	/* Submit */
	Zkpd__V1__SubmitResponse sr = ZKPD__V1__SUBMIT_RESPONSE__INIT;
	sr.job_id = 11;
	sr.attached = true;
	sr.state = ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING;
	resp.call_case = ZKPD__V1__RESPONSE__CALL_SUBMIT;
	resp.submit = &sr;
	out = response_round_trip(1, &resp);
	assert_int_equal(out->response->submit->job_id, 11);
	assert_true(out->response->submit->attached);
	assert_int_equal(out->response->submit->state, ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING);
	zkp_wire_free(out);

	/* JobResult with proof, public inputs and stage timings */
	uint8_t proof[192], pub[2][32];
	tu_rand_bytes(proof, sizeof(proof));
	tu_rand_bytes(pub, sizeof(pub));
	ProtobufCBinaryData pubs[2] = { { 32, pub[0] }, { 32, pub[1] } };
	Zkpd__V1__StageTiming t1 = ZKPD__V1__STAGE_TIMING__INIT, t2 = ZKPD__V1__STAGE_TIMING__INIT;
	t1.stage = ZKPD__V1__STAGE__STAGE_MSM;
	t1.seconds = 0.412;
	t1.rss_bytes = 1u << 30;
	t2.stage = ZKPD__V1__STAGE__STAGE_VERIFY;
	t2.seconds = 0.001;
	Zkpd__V1__StageTiming *ts[2] = { &t1, &t2 };
	Zkpd__V1__JobResult jr = ZKPD__V1__JOB_RESULT__INIT;
	jr.job_id = 12;
	jr.state = ZKPD__V1__JOB_STATE__JOB_STATE_DONE;
	jr.proof.data = proof;
	jr.proof.len = sizeof(proof);
	jr.proof_json = "{\"pi_a\": []}";
	jr.n_public_inputs = 2;
	jr.public_inputs = pubs;
	jr.n_stages = 2;
	jr.stages = ts;
	jr.queue_seconds = 0.25;
	jr.total_seconds = 3.5;
	jr.circuit = "demo";
	jr.request_id = "r";
	resp.call_case = ZKPD__V1__RESPONSE__CALL_RESULT;
	resp.result = &jr;
	out = response_round_trip(2, &resp);
	const Zkpd__V1__JobResult *o = out->response->result;
	assert_int_equal(o->proof.len, 192);
	assert_memory_equal(o->proof.data, proof, 192);
	assert_int_equal(o->n_public_inputs, 2);
	assert_memory_equal(o->public_inputs[1].data, pub[1], 32);
	assert_int_equal(o->n_stages, 2);
	assert_int_equal(o->stages[0]->stage, ZKPD__V1__STAGE__STAGE_MSM);
	assert_true(o->stages[0]->seconds == 0.412);
	assert_true(o->total_seconds == 3.5);
	assert_string_equal(o->proof_json, "{\"pi_a\": []}");
	zkp_wire_free(out);

	/* a failed job's result */
	Zkpd__V1__JobResult fr = ZKPD__V1__JOB_RESULT__INIT;
	fr.job_id = 13;
	fr.state = ZKPD__V1__JOB_STATE__JOB_STATE_FAILED;
	fr.error_code = "ERR_UNSATISFIED";
	fr.error_message = "constraint 17 not satisfied";
	resp.result = &fr;
	out = response_round_trip(3, &resp);
	assert_string_equal(out->response->result->error_code, "ERR_UNSATISFIED");
	assert_int_equal(zkp_wire_error_code(out->response->result->error_code),
			 ZKP_ERR_UNSATISFIED);
	zkp_wire_free(out);

	/* Cancel */
	Zkpd__V1__CancelResponse cr = ZKPD__V1__CANCEL_RESPONSE__INIT;
	cr.state = ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED;
	resp.call_case = ZKPD__V1__RESPONSE__CALL_CANCEL;
	resp.cancel = &cr;
	out = response_round_trip(4, &resp);
	assert_int_equal(out->response->cancel->state, ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED);
	zkp_wire_free(out);

	/* Status, every repeated field filled */
	Zkpd__V1__QueueStatus q = ZKPD__V1__QUEUE_STATUS__INIT, *qs[1] = { &q };
	q.priority = ZKPD__V1__PRIORITY__PRIORITY_HIGH;
	q.queued = 3;
	Zkpd__V1__PipelineStatus pl = ZKPD__V1__PIPELINE_STATUS__INIT, *pls[1] = { &pl };
	pl.id = 1;
	pl.device = "cuda:0";
	pl.cpu_job = 5;
	pl.cpu_stage = ZKPD__V1__STAGE__STAGE_EVAL;
	pl.proofs = 99;
	Zkpd__V1__DeviceStatus dv = ZKPD__V1__DEVICE_STATUS__INIT, *dvs[1] = { &dv };
	dv.name = "H200";
	dv.kind = "cuda";
	dv.memory_bytes = 141ull << 30;
	Zkpd__V1__CircuitStatus ci = ZKPD__V1__CIRCUIT_STATUS__INIT, *cis[1] = { &ci };
	ci.name = "demo";
	ci.loaded = true;
	ci.constraints = 1 << 20;
	ci.key_format = "zkey";
	ci.insecure_dev_key = true;
	Zkpd__V1__Counter ct = ZKPD__V1__COUNTER__INIT, *cts[1] = { &ct };
	ct.name = "witness";
	ct.value = 1234;
	Zkpd__V1__MemoryStatus mem = ZKPD__V1__MEMORY_STATUS__INIT;
	mem.rss_bytes = 5;
	mem.n_counters = 1;
	mem.counters = cts;
	Zkpd__V1__JobSummary js = ZKPD__V1__JOB_SUMMARY__INIT, *jss[1] = { &js };
	js.job_id = 5;
	js.circuit = "demo";
	js.state = ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING;
	Zkpd__V1__StageSnapshot sn = ZKPD__V1__STAGE_SNAPSHOT__INIT, *sns[1] = { &sn };
	sn.job_id = 5;
	sn.stage = ZKPD__V1__STAGE__STAGE_NTT;
	sn.t = 12.5;
	Zkpd__V1__StatusResponse st = ZKPD__V1__STATUS_RESPONSE__INIT;
	st.version = "0.1.0";
	st.uptime_seconds = 60;
	st.accepting = true;
	st.n_queues = 1;
	st.queues = qs;
	st.n_pipelines = 1;
	st.pipelines = pls;
	st.n_devices = 1;
	st.devices = dvs;
	st.n_circuits = 1;
	st.circuits = cis;
	st.memory = &mem;
	st.n_jobs = 1;
	st.jobs = jss;
	st.n_snapshots = 1;
	st.snapshots = sns;
	st.jobs_done = 10;
	st.connections = 2;
	resp.call_case = ZKPD__V1__RESPONSE__CALL_STATUS;
	resp.status = &st;
	out = response_round_trip(5, &resp);
	const Zkpd__V1__StatusResponse *so = out->response->status;
	assert_string_equal(so->version, "0.1.0");
	assert_int_equal(so->n_pipelines, 1);
	assert_string_equal(so->pipelines[0]->device, "cuda:0");
	assert_int_equal(so->memory->counters[0]->value, 1234);
	assert_true(so->circuits[0]->insecure_dev_key);
	assert_true(so->snapshots[0]->t == 12.5);
	zkp_wire_free(out);

	/* Metrics */
	Zkpd__V1__MetricsResponse mr = ZKPD__V1__METRICS_RESPONSE__INIT;
	mr.text = "# TYPE zkpd_jobs_total counter\nzkpd_jobs_total 3\n";
	resp.call_case = ZKPD__V1__RESPONSE__CALL_METRICS;
	resp.metrics = &mr;
	out = response_round_trip(6, &resp);
	assert_string_equal(out->response->metrics->text, mr.text);
	zkp_wire_free(out);

	/* LoadCircuit, UnloadCircuit */
	Zkpd__V1__LoadCircuitResponse lr = ZKPD__V1__LOAD_CIRCUIT_RESPONSE__INIT;
	lr.circuit = &ci;
	resp.call_case = ZKPD__V1__RESPONSE__CALL_LOAD_CIRCUIT;
	resp.load_circuit = &lr;
	out = response_round_trip(7, &resp);
	assert_string_equal(out->response->load_circuit->circuit->name, "demo");
	zkp_wire_free(out);
	Zkpd__V1__UnloadCircuitResponse ur = ZKPD__V1__UNLOAD_CIRCUIT_RESPONSE__INIT;
	ur.circuit = &ci;
	resp.call_case = ZKPD__V1__RESPONSE__CALL_UNLOAD_CIRCUIT;
	resp.unload_circuit = &ur;
	out = response_round_trip(8, &resp);
	assert_int_equal(out->response->unload_circuit->circuit->constraints, 1 << 20);
	zkp_wire_free(out);

	/* Health */
	Zkpd__V1__HealthResponse hr = ZKPD__V1__HEALTH_RESPONSE__INIT;
	hr.serving = true;
	hr.version = "0.1.0";
	hr.uptime_seconds = 1.5;
	resp.call_case = ZKPD__V1__RESPONSE__CALL_HEALTH;
	resp.health = &hr;
	out = response_round_trip(9, &resp);
	assert_true(out->response->health->serving);
	zkp_wire_free(out);
}

static void test_progress_and_error_round_trip(void **state)
{
	(void)state;
	Zkpd__V1__Progress p = ZKPD__V1__PROGRESS__INIT;
	p.job_id = 7;
	p.state = ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING;
	p.stage = ZKPD__V1__STAGE__STAGE_MSM;
	p.stage_finished = true;
	p.stage_seconds = 0.412;
	p.percent = 80;
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = 3;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_PROGRESS;
	env.progress = &p;
	Zkpd__V1__Envelope *out = round_trip(&env);
	assert_int_equal(out->progress->stage, ZKPD__V1__STAGE__STAGE_MSM);
	assert_int_equal(out->progress->percent, 80);
	zkp_wire_free(out);

	Zkpd__V1__Error e = ZKPD__V1__ERROR__INIT;
	e.code = "ERR_NOT_FOUND";
	e.message = "no circuit 'x'";
	env.call_id = 0;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_ERROR;
	env.error = &e;
	out = round_trip(&env);
	assert_string_equal(out->error->code, "ERR_NOT_FOUND");
	assert_string_equal(out->error->message, "no circuit 'x'");
	zkp_wire_free(out);

	/* an empty envelope packs to no bytes: refused */
	Zkpd__V1__Envelope empty = ZKPD__V1__ENVELOPE__INIT;
	uint8_t *frame = NULL;
	size_t len = 0;
	assert_int_equal(zkp_wire_pack(&empty, &frame, &len), ZKP_ERR_INVAL);
	assert_null(frame);
}

static void test_unpack_garbage(void **state)
{
	(void)state;
	zkp_error err = { 0 };
	Zkpd__V1__Envelope *env = (Zkpd__V1__Envelope *)&err;
	/* field 2 (request) says 16 bytes follow; 2 do */
	const uint8_t truncated[] = { 0x12, 0x10, 0x4a, 0x00 };
	assert_int_equal(zkp_wire_unpack(&env, truncated, sizeof(truncated), &err),
			 ZKP_ERR_PROTOCOL);
	assert_null(env);
	assert_int_equal(err.code, ZKP_ERR_PROTOCOL);
	assert_non_null(strstr(err.msg, "4 bytes"));
	/* a varint that never ends */
	const uint8_t endless[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff };
	assert_int_equal(zkp_wire_unpack(&env, endless, sizeof(endless), &err),
			 ZKP_ERR_PROTOCOL);
	/* a field of wire type 7, which does not exist */
	const uint8_t badtype[] = { 0x0f, 0x01 };
	assert_int_equal(zkp_wire_unpack(&env, badtype, sizeof(badtype), &err),
			 ZKP_ERR_PROTOCOL);
	/* random bytes never crash the unpacker */
	for (int i = 0; i < 2000; i++) {
		uint8_t junk[64];
		size_t n = 1 + tu_rand64() % sizeof(junk);
		tu_rand_bytes(junk, n);
		int rc = zkp_wire_unpack(&env, junk, n, &err);
		assert_true(rc == 0 || rc == ZKP_ERR_PROTOCOL);
		if (rc == 0)
			zkp_wire_free(env);
	}
	zkp_wire_free(NULL);
}

static void test_error_names(void **state)
{
	(void)state;
	int codes[] = {
#define CODE(name, code, text) (code),
		ZKP_ERRORS(CODE)
#undef CODE
	};
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *name = zkp_wire_error_name(codes[i]);
		assert_int_equal(strncmp(name, "ZKP_", 4) != 0, 1);
		assert_int_equal(zkp_wire_error_code(name), codes[i]);
	}
	assert_string_equal(zkp_wire_error_name(ZKP_ERR_NOT_FOUND), "ERR_NOT_FOUND");
	assert_string_equal(zkp_wire_error_name(ZKP_ERR_PROTOCOL), "ERR_PROTOCOL");
	assert_int_equal(zkp_wire_error_code("ERR_NO_SUCH_THING"), ZKP_ERR_PROTOCOL);
	assert_int_equal(zkp_wire_error_code(""), ZKP_ERR_PROTOCOL);
	assert_int_equal(zkp_wire_error_code("err_not_found"), ZKP_ERR_PROTOCOL);
}

/* ---- client ---- */

struct server {
	char dir[64], path[128], address[160];
	int lfd;
	pthread_t thread;
	bool close_at_once; /* accept, then close without reading */
};

/* Accepts one connection and echoes every byte until the client shuts its
 * side down, then closes. */
static void *serve(void *arg)
{
	struct server *s = arg;
	int fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	if (!s->close_at_once) {
		uint8_t buf[65536];
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			for (ssize_t o = 0; o < n;) {
				ssize_t w = send(fd, buf + o, (size_t)(n - o), MSG_NOSIGNAL);
				if (w <= 0)
					goto done;
				o += w;
			}
		}
	}
done:
	close(fd);
	return NULL;
}

static void server_start(struct server *s, bool close_at_once)
{
	memset(s, 0, sizeof(*s));
	s->close_at_once = close_at_once;
	snprintf(s->dir, sizeof(s->dir), "/tmp/zkp-wire-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/s.sock", s->dir);
	snprintf(s->address, sizeof(s->address), "unix:%s", s->path);
	s->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s->lfd >= 0);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	assert_true(strlen(s->path) < sizeof(sun.sun_path));
	memcpy(sun.sun_path, s->path, strlen(s->path) + 1);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(s->lfd, 4), 0);
	assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	pthread_join(s->thread, NULL);
	close(s->lfd);
	unlink(s->path);
	rmdir(s->dir);
}

static void test_client_echo(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, false);
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_client_connect(&c, s.address, 1 << 20, &err), 0);
	assert_true(zkp_client_fd(c) >= 0);
	assert_int_equal(zkp_client_next_call_id(c), 1);
	assert_int_equal(zkp_client_next_call_id(c), 2);

	/* a small envelope, and one that takes several reads (small enough
	 * for the socket buffers: the client sends all before it reads) */
	Zkpd__V1__Error e = ZKPD__V1__ERROR__INIT;
	e.code = "ERR_BUSY";
	e.message = "busy";
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = 3;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_ERROR;
	env.error = &e;
	assert_int_equal(zkp_client_send(c, &env, &err), 0);
	Zkpd__V1__Envelope *in = NULL;
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), 0);
	assert_int_equal(in->call_id, 3);
	assert_string_equal(in->error->code, "ERR_BUSY");
	zkp_wire_free(in);

	size_t len;
	uint8_t *big = witness_frame(4, 100000, &len);
	assert_int_equal(zkp_client_send_raw(c, big, len, &err), 0);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), 0);
	assert_int_equal(in->call_id, 4);
	assert_int_equal(in->request->submit->witness->raw.len, 100000);
	assert_memory_equal(in->request->submit->witness->raw.data,
			    big + len - 100000, 100000);
	zkp_wire_free(in);
	free(big);

	/* two frames in one write come back as two envelopes */
	size_t l1, l2;
	uint8_t *f1 = health_frame(5, &l1), *f2 = health_frame(6, &l2);
	uint8_t both[128];
	memcpy(both, f1, l1);
	memcpy(both + l1, f2, l2);
	assert_int_equal(zkp_client_send_raw(c, both, l1 + l2, &err), 0);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), 0);
	assert_int_equal(in->call_id, 5);
	zkp_wire_free(in);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), 0);
	assert_int_equal(in->call_id, 6);
	zkp_wire_free(in);
	free(f1);
	free(f2);

	/* nothing sent, nothing comes: a timeout, and the client still works */
	assert_int_equal(zkp_client_recv(c, &in, 100, &err), ZKP_ERR_TIMEOUT);
	assert_int_equal(err.code, ZKP_ERR_TIMEOUT);
	f1 = health_frame(7, &l1);
	assert_int_equal(zkp_client_send_raw(c, f1, l1, &err), 0);
	assert_int_equal(zkp_client_recv(c, &in, -1, &err), 0);
	assert_int_equal(in->call_id, 7);
	zkp_wire_free(in);
	free(f1);

	/* a garbage body: a protocol error */
	const uint8_t garbage[] = { 0, 0, 0, 4, 0x12, 0x10, 0x4a, 0x00 };
	assert_int_equal(zkp_client_send_raw(c, garbage, sizeof(garbage), &err), 0);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), ZKP_ERR_PROTOCOL);

	/* the echo server closes once our side is shut: connection closed */
	shutdown(zkp_client_fd(c), SHUT_WR);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), ZKP_ERR_IO);
	zkp_client_close(c);
	server_stop(&s);
}

static void test_client_limits(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, false);
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_client_connect(&c, s.address, 64, &err), 0);
	Zkpd__V1__Envelope *in = NULL;
	/* an answer over the client's max_frame */
	const uint8_t over[] = { 0, 0, 0, 65 };
	assert_int_equal(zkp_client_send_raw(c, over, sizeof(over), &err), 0);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), ZKP_ERR_LIMIT);
	zkp_client_close(c);
	server_stop(&s);

	server_start(&s, false);
	assert_int_equal(zkp_client_connect(&c, s.address, 64, &err), 0);
	const uint8_t zero[] = { 0, 0, 0, 0 };
	assert_int_equal(zkp_client_send_raw(c, zero, sizeof(zero), &err), 0);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), ZKP_ERR_PROTOCOL);
	zkp_client_close(c);
	server_stop(&s);
}

static void test_client_peer_close(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, true);
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_client_connect(&c, s.address, 1 << 20, &err), 0);
	Zkpd__V1__Envelope *in = NULL;
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), ZKP_ERR_IO);
	assert_int_equal(err.code, ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, "connection closed"));
	assert_null(in);

	/* sending into the closed connection is an error, not SIGPIPE */
	size_t len;
	uint8_t *big = witness_frame(1, 1 << 20, &len);
	int rc = 0;
	for (int i = 0; i < 8 && rc == 0; i++)
		rc = zkp_client_send_raw(c, big, len, &err);
	assert_int_equal(rc, ZKP_ERR_IO);
	free(big);
	zkp_client_close(c);
	server_stop(&s);
}

static void test_client_connect_errors(void **state)
{
	(void)state;
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_client_connect(&c, "unix:/nonexistent/zkpd-test.sock", 1024, &err),
			 ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, "unix:/nonexistent/zkpd-test.sock"));
	assert_null(c);
	assert_int_equal(zkp_client_connect(&c, "bogus", 1024, &err), ZKP_ERR_CONFIG);
	assert_null(c);
	/* a TCP port nobody listens on (bound and not listening) */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	socklen_t sl = sizeof(sin);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	char addr[64];
	snprintf(addr, sizeof(addr), "tcp:127.0.0.1:%u", (unsigned)ntohs(sin.sin_port));
	assert_int_equal(zkp_client_connect(&c, addr, 1024, &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, addr));
	close(fd);
}

static void test_client_tcp(void **state)
{
	(void)state;
	/* one exchange over TCP loopback against a raw accept */
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(lfd >= 0);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	socklen_t sl = sizeof(sin);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &sl), 0);
	char addr[64];
	snprintf(addr, sizeof(addr), "tcp:localhost:%u", (unsigned)ntohs(sin.sin_port));
	zkp_client *c = NULL;
	zkp_error err = { 0 };
	assert_int_equal(zkp_client_connect(&c, addr, 1024, &err), 0);
	int fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	size_t len;
	uint8_t *f = health_frame(9, &len);
	assert_int_equal(send(fd, f, len, 0), (ssize_t)len);
	Zkpd__V1__Envelope *in = NULL;
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), 0);
	assert_int_equal(in->call_id, 9);
	zkp_wire_free(in);
	free(f);
	close(fd);
	assert_int_equal(zkp_client_recv(c, &in, 5000, &err), ZKP_ERR_IO);
	zkp_client_close(c);
	close(lfd);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_byte_by_byte),
		cmocka_unit_test(test_reader_chunks),
		cmocka_unit_test(test_reader_compacts),
		cmocka_unit_test(test_reader_big_buffer_returned),
		cmocka_unit_test(test_reader_oversized),
		cmocka_unit_test(test_reader_max_frame_exact),
		cmocka_unit_test(test_reader_zero_length),
		cmocka_unit_test(test_requests_round_trip),
		cmocka_unit_test(test_responses_round_trip),
		cmocka_unit_test(test_progress_and_error_round_trip),
		cmocka_unit_test(test_unpack_garbage),
		cmocka_unit_test(test_error_names),
		cmocka_unit_test(test_client_echo),
		cmocka_unit_test(test_client_limits),
		cmocka_unit_test(test_client_peer_close),
		cmocka_unit_test(test_client_connect_errors),
		cmocka_unit_test(test_client_tcp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
