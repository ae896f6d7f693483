/*
 * One connection's calls: decode, run against the engine, answer.
 *
 * Open calls live in two small arrays (Awaits and LoadCircuits); a
 * connection rarely has more than a handful, and every engine event is
 * offered to every session, so a linear scan is the cheap choice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "metrics.h"
#include "session.h"
#include "status.h"
#include "wire.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"
#include "zkpd/post_c2.h"
#include "zkpd/snap_c2.h"

typedef struct {
	uint64_t call_id, job_id;
	double deadline; /* 0: none */
	enum zkp_job_state state;
	enum zkp_stage stage;
	bool stage_finished;
	uint32_t queue_position;
} await_call;

typedef struct {
	uint64_t call_id, token;
	char circuit[ZKP_CONFIG_NAME_MAX];
} load_call;

struct zkp_session {
	const zkp_session_ctx *ctx;
	zkp_session_send_fn send;
	void *conn;
	await_call *awaits;
	size_t n_awaits, cap_awaits;
	load_call *loads;
	size_t n_loads, cap_loads;
	/* Submits and Proves whose journal entry is being written: answered
	 * (or, for a Prove, turned into an await) from the journal's callback. */
	struct pending_submit {
		uint64_t call_id;
		bool prove;
		uint32_t timeout_ms;
	} *submits;
	size_t n_submits, cap_submits;
	bool authenticated;
};

double zkp_session_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

zkp_session *zkp_session_new(const zkp_session_ctx *ctx, zkp_session_send_fn send, void *conn)
{
	zkp_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->send = send;
	s->conn = conn;
	return s;
}

void zkp_session_free(zkp_session *s)
{
	if (!s)
		return;
	zkp_journal_forget(s->ctx->journal, s);
	free(s->submits);
	free(s->awaits);
	free(s->loads);
	free(s);
}

bool zkp_session_authenticated(const zkp_session *s)
{
	return !s->ctx->token_sha256 || s->authenticated;
}

bool zkp_session_busy(const zkp_session *s)
{
	return s->n_awaits || s->n_loads || s->n_submits;
}

/* ---- sending ---- */

static void send_env(zkp_session *s, const Zkpd__V1__Envelope *env)
{
	uint8_t *frame;
	size_t len;
	int rc = zkp_wire_pack(env, &frame, &len);
	if (rc) {
		zkp_log(ZKP_LOG_ERROR, "cannot pack a reply for call %llu: %s",
			(unsigned long long)env->call_id, zkp_strerror(rc));
		return;
	}
	s->send(s->conn, frame, len);
}

static void send_error(zkp_session *s, uint64_t call_id, int code, const char *msg)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	Zkpd__V1__Error e = ZKPD__V1__ERROR__INIT;
	e.code = (char *)zkp_wire_error_name(code);
	e.message = (char *)(msg && *msg ? msg : zkp_strerror(code));
	env.call_id = call_id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_ERROR;
	env.error = &e;
	send_env(s, &env);
}

static void send_response(zkp_session *s, uint64_t call_id, Zkpd__V1__Response *r)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = call_id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_RESPONSE;
	env.response = r;
	send_env(s, &env);
}

void zkp_session_frame_error(zkp_session *s, int code, const char *message)
{
	send_error(s, 0, code, message);
}

/* ---- job results and progress ---- */

/* The spans a job entered, in enum order, into sp (ZKP_NSPANS nodes) and
 * spp (their pointers); returns how many. Names are static strings. */
static size_t spans_out(Zkpd__V1__Span *sp, Zkpd__V1__Span **spp, const zkp_span_times *t)
{
	size_t n = 0;
	for (int k = 0; k < ZKP_NSPANS; k++) {
		if (!(t->entered & (1u << k)))
			continue;
		zkpd__v1__span__init(&sp[n]);
		sp[n].name = (char *)zkp_span_name((enum zkp_span)k);
		sp[n].seconds = t->seconds[k];
		spp[n] = &sp[n];
		n++;
	}
	return n;
}

/* A split job's partitions' times; freed with a single free() of *mem. */
static int partitions_out(Zkpd__V1__JobResult *jr, void **mem, const zkp_job_info *info)
{
	size_t n = info->partitions;
	*mem = NULL;
	if (!info->parts || !n)
		return 0;
	/* One block: n PartitionTimes, their pointers, n * ZKP_NSPANS Spans
	 * and their pointers. */
	size_t bytes = n * (sizeof(Zkpd__V1__PartitionTimes) + sizeof(void *) +
			    ZKP_NSPANS * (sizeof(Zkpd__V1__Span) + sizeof(void *)));
	char *p = malloc(bytes);
	if (!p)
		return ZKP_ERR_NOMEM;
	*mem = p;
	Zkpd__V1__PartitionTimes *pt = (Zkpd__V1__PartitionTimes *)p;
	Zkpd__V1__PartitionTimes **ptp = (Zkpd__V1__PartitionTimes **)(pt + n);
	Zkpd__V1__Span *sp = (Zkpd__V1__Span *)(ptp + n);
	Zkpd__V1__Span **spp = (Zkpd__V1__Span **)(sp + n * ZKP_NSPANS);
	for (size_t k = 0; k < n; k++) {
		const zkp_partition_times *src = &info->parts[k];
		zkpd__v1__partition_times__init(&pt[k]);
		pt[k].partition = (uint32_t)k;
		pt[k].job_id = src->job_id;
		pt[k].state = (Zkpd__V1__JobState)src->state;
		pt[k].total_seconds = src->total_seconds;
		pt[k].spans = spp + k * ZKP_NSPANS;
		pt[k].n_spans = spans_out(sp + k * ZKP_NSPANS, pt[k].spans, &src->spans);
		ptp[k] = &pt[k];
	}
	jr->partition_times = ptp;
	jr->n_partition_times = n;
	return 0;
}

static void send_result(zkp_session *s, uint64_t call_id, const zkp_job_info *info)
{
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__JobResult jr = ZKPD__V1__JOB_RESULT__INIT;
	Zkpd__V1__StageTiming st[ZKP_NSTAGES], *stp[ZKP_NSTAGES];
	Zkpd__V1__Span sp[ZKP_NSPANS], *spp[ZKP_NSPANS];
	ProtobufCBinaryData *inputs = NULL;
	void *parts = NULL;
	size_t n_st = 0;

	jr.job_id = info->job_id;
	jr.state = (Zkpd__V1__JobState)info->state;
	jr.circuit = (char *)info->circuit;
	jr.request_id = (char *)info->request_id;
	jr.queue_seconds = info->queue_seconds;
	jr.total_seconds = info->total_seconds;
	jr.partitions = info->partitions;
	jr.parent_job_id = info->parent_job_id;
	jr.partition = info->partition;
	jr.device = (char *)info->device;
	jr.device_busy_known = info->device_busy_known;
	jr.device_busy_seconds = info->device_busy_seconds;
	for (int i = 0; i < ZKP_NSTAGES; i++) {
		if (!info->stages[i].ran)
			continue;
		zkpd__v1__stage_timing__init(&st[n_st]);
		st[n_st].stage = (Zkpd__V1__Stage)i;
		st[n_st].seconds = info->stages[i].seconds;
		st[n_st].rss_bytes = info->stages[i].rss;
		stp[n_st] = &st[n_st];
		n_st++;
	}
	jr.n_stages = n_st;
	jr.stages = stp;
	jr.n_spans = spans_out(sp, spp, &info->spans);
	jr.spans = spp;
	if (partitions_out(&jr, &parts, info)) {
		send_error(s, call_id, ZKP_ERR_NOMEM, "no memory for the result");
		return;
	}
	if (info->state == ZKP_JOB_DONE) {
		jr.proof.data = info->proof;
		jr.proof.len = info->proof_len;
		if (info->proof_json)
			jr.proof_json = info->proof_json;
		if (info->n_inputs) {
			inputs = calloc(info->n_inputs, sizeof(*inputs));
			if (!inputs) {
				free(parts);
				send_error(s, call_id, ZKP_ERR_NOMEM, "no memory for the result");
				return;
			}
			for (size_t i = 0; i < info->n_inputs; i++) {
				inputs[i].data = info->inputs + 32 * i;
				inputs[i].len = 32;
			}
			jr.n_public_inputs = info->n_inputs;
			jr.public_inputs = inputs;
		}
	} else if (info->state == ZKP_JOB_FAILED || info->state == ZKP_JOB_CANCELLED) {
		int code = info->error_code ? info->error_code :
		           info->state == ZKP_JOB_CANCELLED ? ZKP_ERR_CANCELLED : ZKP_ERR_INVAL;
		jr.error_code = (char *)zkp_wire_error_name(code);
		jr.error_message = (char *)info->error_message;
	}
	r.call_case = ZKPD__V1__RESPONSE__CALL_RESULT;
	r.result = &jr;
	send_response(s, call_id, &r);
	free(inputs);
	free(parts);
}

static void send_progress(zkp_session *s, uint64_t call_id, const zkp_job_info *info,
			  const zkp_engine_event *ev)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	Zkpd__V1__Progress p = ZKPD__V1__PROGRESS__INIT;
	p.job_id = info->job_id;
	p.state = (Zkpd__V1__JobState)info->state;
	p.queue_position = info->queue_position;
	p.stage = (Zkpd__V1__Stage)(ev ? ev->stage : info->stage);
	p.stage_finished = ev ? ev->stage_finished : false;
	p.stage_seconds = ev && ev->stage_finished ? ev->stage_seconds : 0;
	p.elapsed_seconds = info->elapsed;
	p.percent = info->percent;
	p.partitions = info->partitions;
	p.partitions_done = info->partitions_done;
	env.call_id = call_id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_PROGRESS;
	env.progress = &p;
	send_env(s, &env);
}

static bool ended(enum zkp_job_state st)
{
	return st == ZKP_JOB_DONE || st == ZKP_JOB_FAILED || st == ZKP_JOB_CANCELLED;
}

static void remove_await(zkp_session *s, size_t i)
{
	s->awaits[i] = s->awaits[--s->n_awaits];
}

/* Starts an Await: answers at once when the job has ended, else sends the
 * current progress and keeps the call open. */
static void start_await(zkp_session *s, uint64_t call_id, uint64_t job_id, uint32_t timeout_ms)
{
	zkp_job_info info;
	int rc = zkp_engine_job_info(s->ctx->engine, job_id, &info);
	if (rc) {
		char msg[96];
		snprintf(msg, sizeof(msg), "no job %llu (never submitted, or forgotten)",
			 (unsigned long long)job_id);
		send_error(s, call_id, rc, msg);
		return;
	}
	if (ended(info.state)) {
		send_result(s, call_id, &info);
		zkp_job_info_release(&info);
		return;
	}
	if (s->n_awaits == s->cap_awaits) {
		size_t cap = s->cap_awaits ? 2 * s->cap_awaits : 4;
		await_call *a = realloc(s->awaits, cap * sizeof(*a));
		if (!a) {
			send_error(s, call_id, ZKP_ERR_NOMEM, "no memory for the call");
			zkp_job_info_release(&info);
			return;
		}
		s->awaits = a;
		s->cap_awaits = cap;
	}
	await_call *a = &s->awaits[s->n_awaits++];
	memset(a, 0, sizeof(*a));
	a->call_id = call_id;
	a->job_id = job_id;
	a->deadline = timeout_ms ? zkp_session_now() + timeout_ms / 1000.0 : 0;
	a->state = info.state;
	a->stage = info.stage;
	a->queue_position = info.queue_position;
	send_progress(s, call_id, &info, NULL);
	zkp_job_info_release(&info);
}

/* ---- calls ---- */

static void submit_answer(zkp_session *s, uint64_t call_id, uint64_t job_id, bool attached);

/* The journal's word on a Submit or Prove whose entry it was writing. */
static void submitted(void *owner, uint64_t cookie, int rc, uint64_t job_id, bool attached,
		      const zkp_error *err)
{
	zkp_session *s = owner;
	size_t i = 0;
	while (i < s->n_submits && s->submits[i].call_id != cookie)
		i++;
	if (i == s->n_submits)
		return;
	struct pending_submit p = s->submits[i];
	s->submits[i] = s->submits[--s->n_submits];
	if (rc) {
		send_error(s, p.call_id, rc, zkp_error_text(err, rc));
		return;
	}
	if (p.prove)
		start_await(s, p.call_id, job_id, p.timeout_ms);
	else
		submit_answer(s, p.call_id, job_id, attached);
}

/* Returns a negative error (answered), 0 or 1 (submitted; 1: attached), or
 * ZKP_JOURNAL_PENDING + 1: the journal is writing its entry and answers
 * through submitted(). */
#define SUBMIT_PENDING (ZKP_JOURNAL_PENDING + 1)

static int submit(zkp_session *s, uint64_t call_id, Zkpd__V1__SubmitRequest *req,
		  uint64_t *job_id, bool prove, uint32_t timeout_ms)
{
	zkp_job_spec spec;
	zkp_error err = { 0 };
	bool attached = false;
	memset(&spec, 0, sizeof(spec));
	if (!req || !req->circuit || !*req->circuit) {
		send_error(s, call_id, ZKP_ERR_INVAL, "submit: no circuit named");
		return ZKP_ERR_INVAL;
	}
	if (!req->witness || req->witness->source_case == ZKPD__V1__WITNESS__SOURCE__NOT_SET) {
		send_error(s, call_id, ZKP_ERR_INVAL,
			   "submit: no witness (wtns, raw, path, c1, c1_path, snap or post)");
		return ZKP_ERR_INVAL;
	}
	Zkpd__V1__Witness *w = req->witness;
	spec.circuit = req->circuit;
	spec.priority = (enum zkp_priority)req->priority;
	spec.request_id = req->request_id;
	spec.want_json = req->format == ZKPD__V1__PROOF_FORMAT__PROOF_FORMAT_SNARKJS_JSON;
	switch (w->source_case) {
	case ZKPD__V1__WITNESS__SOURCE_WTNS:
	case ZKPD__V1__WITNESS__SOURCE_RAW:
	case ZKPD__V1__WITNESS__SOURCE_C1: {
		ProtobufCBinaryData *b = w->source_case == ZKPD__V1__WITNESS__SOURCE_WTNS ? &w->wtns :
					 w->source_case == ZKPD__V1__WITNESS__SOURCE_C1 ? &w->c1 :
											  &w->raw;
		spec.witness_kind = w->source_case == ZKPD__V1__WITNESS__SOURCE_WTNS ? ZKP_WITNESS_WTNS :
				    w->source_case == ZKPD__V1__WITNESS__SOURCE_C1 ? ZKP_WITNESS_C1 :
										     ZKP_WITNESS_RAW;
		/* The engine takes the bytes: steal them from the unpacked
		 * message rather than copying a witness of up to gigabytes. */
		spec.data = b->data;
		spec.len = b->len;
		b->data = NULL;
		b->len = 0;
		break;
	}
	case ZKPD__V1__WITNESS__SOURCE_C1_PATH:
		spec.witness_kind = ZKP_WITNESS_C1_PATH;
		spec.path = w->c1_path;
		break;
	case ZKPD__V1__WITNESS__SOURCE_SNAP: {
		/* The engine queues and journals an update as one byte string
		 * (snap_c2.h's bundle). */
		const Zkpd__V1__SnapUpdate *u = w->snap;
		const ProtobufCBinaryData *c[3] = { &u->comm_r_old, &u->comm_d_new, &u->comm_r_new };
		static const char *const cname[3] = { "comm_r_old", "comm_d_new", "comm_r_new" };
		char m[160];
		for (int i = 0; i < 3; i++)
			if (c[i]->len != 32) {
				snprintf(m, sizeof(m), "submit: snap.%s has %zu bytes; a commitment has 32",
					 cname[i], c[i]->len);
				send_error(s, call_id, ZKP_ERR_INVAL, m);
				return ZKP_ERR_INVAL;
			}
		if (!u->n_partition_proofs || u->n_partition_proofs > 16) {
			snprintf(m, sizeof(m),
				 "submit: snap.partition_proofs has %zu proofs; a sector update has 1 to 16",
				 u->n_partition_proofs);
			send_error(s, call_id, ZKP_ERR_INVAL, m);
			return ZKP_ERR_INVAL;
		}
		const uint8_t *proofs[16];
		size_t lens[16];
		for (size_t k = 0; k < u->n_partition_proofs; k++) {
			proofs[k] = u->partition_proofs[k].data;
			lens[k] = u->partition_proofs[k].len;
		}
		if (zkp_snap_bundle_encode(&spec.data, &spec.len, c[0]->data, c[1]->data, c[2]->data,
					   proofs, lens, (unsigned)u->n_partition_proofs, &err)) {
			send_error(s, call_id, err.code, err.msg);
			return err.code;
		}
		spec.witness_kind = ZKP_WITNESS_SNAP;
		break;
	}
	case ZKPD__V1__WITNESS__SOURCE_POST: {
		/* Queued and journaled as one byte string (post_c2.h's bundle). */
		const Zkpd__V1__PostPartition *pp = w->post;
		char m[160];
		if (pp->randomness.len != 32) {
			snprintf(m, sizeof(m), "submit: post.randomness has %zu bytes; it has 32",
				 pp->randomness.len);
			send_error(s, call_id, ZKP_ERR_INVAL, m);
			return ZKP_ERR_INVAL;
		}
		if (!pp->n_sector_proofs || pp->n_sector_proofs > ZKP_POST_BUNDLE_MAX_SECTORS) {
			snprintf(m, sizeof(m),
				 "submit: post.sector_proofs has %zu proofs; a partition has 1 to %d",
				 pp->n_sector_proofs, ZKP_POST_BUNDLE_MAX_SECTORS);
			send_error(s, call_id, ZKP_ERR_INVAL, m);
			return ZKP_ERR_INVAL;
		}
		const uint8_t **proofs = malloc(pp->n_sector_proofs * sizeof(*proofs));
		size_t *lens = malloc(pp->n_sector_proofs * sizeof(*lens));
		int brc = proofs && lens ? 0 : ZKP_ERR_NOMEM;
		for (size_t k = 0; !brc && k < pp->n_sector_proofs; k++) {
			proofs[k] = pp->sector_proofs[k].data;
			lens[k] = pp->sector_proofs[k].len;
		}
		if (!brc)
			brc = zkp_post_bundle_encode(&spec.data, &spec.len, pp->registered_proof,
						     pp->randomness.data, pp->partition_index, proofs,
						     lens, (unsigned)pp->n_sector_proofs, &err);
		free(proofs);
		free(lens);
		if (brc) {
			send_error(s, call_id, ZKP_ERR_NOMEM, "submit: no memory for the PoSt job");
			return brc;
		}
		spec.witness_kind = ZKP_WITNESS_POST;
		break;
	}
	default:
		spec.witness_kind = ZKP_WITNESS_PATH;
		spec.path = w->path;
		break;
	}
	if (s->ctx->journal && s->n_submits == s->cap_submits) {
		size_t cap = s->cap_submits ? 2 * s->cap_submits : 4;
		struct pending_submit *p = realloc(s->submits, cap * sizeof(*p));
		if (!p) {
			free(spec.data);
			send_error(s, call_id, ZKP_ERR_NOMEM, "no memory for the call");
			return ZKP_ERR_NOMEM;
		}
		s->submits = p;
		s->cap_submits = cap;
	}
	int rc = zkp_journal_submit(s->ctx->journal, s->ctx->engine, &spec, submitted, s, call_id,
				    job_id, &attached, &err);
	if (rc == ZKP_JOURNAL_PENDING) {
		s->submits[s->n_submits++] =
			(struct pending_submit){ call_id, prove, timeout_ms };
		return SUBMIT_PENDING;
	}
	if (rc) {
		send_error(s, call_id, rc, zkp_error_text(&err, rc));
		return rc;
	}
	if (attached)
		zkp_log(ZKP_LOG_INFO, "submit: request_id \"%s\" attached to job %llu",
			req->request_id, (unsigned long long)*job_id);
	return attached ? 1 : 0;
}

static void call_submit(zkp_session *s, uint64_t call_id, Zkpd__V1__SubmitRequest *req)
{
	uint64_t job_id = 0;
	int rc = submit(s, call_id, req, &job_id, false, 0);
	if (rc >= 0 && rc != SUBMIT_PENDING)
		submit_answer(s, call_id, job_id, rc == 1);
}

static void submit_answer(zkp_session *s, uint64_t call_id, uint64_t job_id, bool attached)
{
	zkp_job_info info;
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__SubmitResponse sr = ZKPD__V1__SUBMIT_RESPONSE__INIT;
	sr.job_id = job_id;
	sr.attached = attached;
	sr.state = ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED;
	if (!zkp_engine_job_info(s->ctx->engine, job_id, &info)) {
		sr.state = (Zkpd__V1__JobState)info.state;
		zkp_job_info_release(&info);
	}
	r.call_case = ZKPD__V1__RESPONSE__CALL_SUBMIT;
	r.submit = &sr;
	send_response(s, call_id, &r);
}

static void call_cancel(zkp_session *s, uint64_t call_id, Zkpd__V1__CancelRequest *req)
{
	enum zkp_job_state st = ZKP_JOB_UNKNOWN;
	int rc = zkp_engine_cancel(s->ctx->engine, req->job_id, &st);
	if (rc) {
		char msg[96];
		snprintf(msg, sizeof(msg), "cancel: no job %llu", (unsigned long long)req->job_id);
		send_error(s, call_id, rc, msg);
		return;
	}
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__CancelResponse cr = ZKPD__V1__CANCEL_RESPONSE__INIT;
	cr.state = (Zkpd__V1__JobState)st;
	r.call_case = ZKPD__V1__RESPONSE__CALL_CANCEL;
	r.cancel = &cr;
	send_response(s, call_id, &r);
}

static void call_status(zkp_session *s, uint64_t call_id)
{
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__StatusResponse *sr = NULL;
	int rc = zkp_status_build(&sr, s->ctx->engine, s->ctx->stats, s->ctx->start);
	if (rc) {
		send_error(s, call_id, rc, "status: cannot collect the daemon's state");
		return;
	}
	r.call_case = ZKPD__V1__RESPONSE__CALL_STATUS;
	r.status = sr;
	send_response(s, call_id, &r);
	zkp_status_free(sr);
}

static void call_metrics(zkp_session *s, uint64_t call_id)
{
	char *text = zkp_metrics_text(s->ctx->engine, s->ctx->stats);
	if (!text) {
		send_error(s, call_id, ZKP_ERR_NOMEM, "metrics: cannot collect the figures");
		return;
	}
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__MetricsResponse mr = ZKPD__V1__METRICS_RESPONSE__INIT;
	mr.text = text;
	r.call_case = ZKPD__V1__RESPONSE__CALL_METRICS;
	r.metrics = &mr;
	send_response(s, call_id, &r);
	free(text);
}

/* Answers a Load or Unload with the circuit's status. */
static void send_circuit(zkp_session *s, uint64_t call_id, const char *name, bool load)
{
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__CircuitStatus *cs = NULL;
	int rc = zkp_status_circuit(&cs, s->ctx->engine, name);
	if (rc) {
		send_error(s, call_id, rc, "cannot read the circuit's state");
		return;
	}
	Zkpd__V1__LoadCircuitResponse lr = ZKPD__V1__LOAD_CIRCUIT_RESPONSE__INIT;
	Zkpd__V1__UnloadCircuitResponse ur = ZKPD__V1__UNLOAD_CIRCUIT_RESPONSE__INIT;
	if (load) {
		lr.circuit = cs;
		r.call_case = ZKPD__V1__RESPONSE__CALL_LOAD_CIRCUIT;
		r.load_circuit = &lr;
	} else {
		ur.circuit = cs;
		r.call_case = ZKPD__V1__RESPONSE__CALL_UNLOAD_CIRCUIT;
		r.unload_circuit = &ur;
	}
	send_response(s, call_id, &r);
	zkp_status_circuit_free(cs);
}

static void call_load(zkp_session *s, uint64_t call_id, const char *name)
{
	static uint64_t next_token = 1; /* loop thread only */
	zkp_error err = { 0 };
	if (!name || !*name) {
		send_error(s, call_id, ZKP_ERR_INVAL, "load: no circuit named");
		return;
	}
	if (s->n_loads == s->cap_loads) {
		size_t cap = s->cap_loads ? 2 * s->cap_loads : 2;
		load_call *l = realloc(s->loads, cap * sizeof(*l));
		if (!l) {
			send_error(s, call_id, ZKP_ERR_NOMEM, "no memory for the call");
			return;
		}
		s->loads = l;
		s->cap_loads = cap;
	}
	uint64_t token = next_token++;
	load_call *l = &s->loads[s->n_loads];
	l->call_id = call_id;
	l->token = token;
	snprintf(l->circuit, sizeof(l->circuit), "%s", name);
	/* Register first: the engine may answer with an event at once. */
	s->n_loads++;
	int rc = zkp_engine_load(s->ctx->engine, name, token, &err);
	if (rc) {
		s->n_loads--;
		send_error(s, call_id, rc, zkp_error_text(&err, rc));
	}
}

static void call_unload(zkp_session *s, uint64_t call_id, const char *name)
{
	zkp_error err = { 0 };
	if (!name || !*name) {
		send_error(s, call_id, ZKP_ERR_INVAL, "unload: no circuit named");
		return;
	}
	int rc = zkp_engine_unload(s->ctx->engine, name, &err);
	if (rc) {
		send_error(s, call_id, rc, zkp_error_text(&err, rc));
		return;
	}
	send_circuit(s, call_id, name, false);
}

static void call_health(zkp_session *s, uint64_t call_id)
{
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__HealthResponse hr = ZKPD__V1__HEALTH_RESPONSE__INIT;
	hr.serving = s->ctx->stats->accepting;
	hr.version = (char *)ZKPD_VERSION;
	hr.uptime_seconds = zkp_session_now() - s->ctx->start;
	r.call_case = ZKPD__V1__RESPONSE__CALL_HEALTH;
	r.health = &hr;
	send_response(s, call_id, &r);
}

static bool call_open(const zkp_session *s, uint64_t call_id)
{
	for (size_t i = 0; i < s->n_awaits; i++)
		if (s->awaits[i].call_id == call_id)
			return true;
	for (size_t i = 0; i < s->n_loads; i++)
		if (s->loads[i].call_id == call_id)
			return true;
	for (size_t i = 0; i < s->n_submits; i++)
		if (s->submits[i].call_id == call_id)
			return true;
	return false;
}

/* The token gate of server.token_file, before a connection's first call
 * runs. Returns 0 when env may be handled as usual (no token configured,
 * already authenticated, or the right token: the Authenticate call is then
 * answered by dispatch), ZKP_ERR_DENIED when it was refused (answered; the
 * connection is to be closed). Tokens are compared as SHA-256 digests with
 * CRYPTO_memcmp: the time taken says nothing about the token, its length
 * included. */
static int authenticate(zkp_session *s, const Zkpd__V1__Envelope *env)
{
	if (!s->ctx->token_sha256 || s->authenticated)
		return 0;
	if (env->body_case != ZKPD__V1__ENVELOPE__BODY_REQUEST ||
	    env->request->call_case != ZKPD__V1__REQUEST__CALL_AUTHENTICATE) {
		send_error(s, env->call_id, ZKP_ERR_DENIED,
			   "authenticate first: this daemon requires a token");
		return ZKP_ERR_DENIED;
	}
	uint64_t call_id = env->call_id;
	const char *token = env->request->authenticate->token ?
				    env->request->authenticate->token : "";
	uint8_t digest[32];
	unsigned int n = 0;
	if (!EVP_Digest(token, strlen(token), digest, &n, EVP_sha256(), NULL) || n != 32) {
		send_error(s, call_id, ZKP_ERR_NOMEM, "authenticate: cannot hash the token");
		return ZKP_ERR_DENIED;
	}
	if (CRYPTO_memcmp(digest, s->ctx->token_sha256, 32) != 0) {
		send_error(s, call_id, ZKP_ERR_DENIED, "authenticate: wrong token");
		return ZKP_ERR_DENIED;
	}
	s->authenticated = true;
	return 0;
}

static void call_authenticate(zkp_session *s, uint64_t call_id)
{
	Zkpd__V1__Response r = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__AuthenticateResponse ar = ZKPD__V1__AUTHENTICATE_RESPONSE__INIT;
	r.call_case = ZKPD__V1__RESPONSE__CALL_AUTHENTICATE;
	r.authenticate = &ar;
	send_response(s, call_id, &r);
}

static void dispatch(zkp_session *s, uint64_t call_id, Zkpd__V1__Request *req)
{
	switch (req->call_case) {
	case ZKPD__V1__REQUEST__CALL_SUBMIT:
		call_submit(s, call_id, req->submit);
		break;
	case ZKPD__V1__REQUEST__CALL_AWAIT: {
		uint64_t job_id = req->await->job_id;
		const char *rid = req->await->request_id;
		if (!job_id && rid && *rid &&
		    zkp_engine_find_request(s->ctx->engine, rid, &job_id)) {
			char msg[224];
			snprintf(msg, sizeof(msg), "no job with request_id \"%.128s\" (never "
				 "submitted, or forgotten)", rid);
			send_error(s, call_id, ZKP_ERR_NOT_FOUND, msg);
			break;
		}
		start_await(s, call_id, job_id, req->await->timeout_ms);
		break;
	}
	case ZKPD__V1__REQUEST__CALL_PROVE: {
		uint64_t job_id = 0;
		if (!req->prove->submit) {
			send_error(s, call_id, ZKP_ERR_INVAL, "prove: no submit request");
			break;
		}
		int rc = submit(s, call_id, req->prove->submit, &job_id, true,
				req->prove->timeout_ms);
		if (rc >= 0 && rc != SUBMIT_PENDING)
			start_await(s, call_id, job_id, req->prove->timeout_ms);
		break;
	}
	case ZKPD__V1__REQUEST__CALL_CANCEL:
		call_cancel(s, call_id, req->cancel);
		break;
	case ZKPD__V1__REQUEST__CALL_STATUS:
		call_status(s, call_id);
		break;
	case ZKPD__V1__REQUEST__CALL_METRICS:
		call_metrics(s, call_id);
		break;
	case ZKPD__V1__REQUEST__CALL_LOAD_CIRCUIT:
		call_load(s, call_id, req->load_circuit->circuit);
		break;
	case ZKPD__V1__REQUEST__CALL_UNLOAD_CIRCUIT:
		call_unload(s, call_id, req->unload_circuit->circuit);
		break;
	case ZKPD__V1__REQUEST__CALL_HEALTH:
		call_health(s, call_id);
		break;
	case ZKPD__V1__REQUEST__CALL_AUTHENTICATE:
		call_authenticate(s, call_id);
		break;
	default:
		send_error(s, call_id, ZKP_ERR_PROTOCOL,
			   "request names no call (or one this daemon does not know)");
		break;
	}
}

int zkp_session_frame(zkp_session *s, const uint8_t *body, size_t len)
{
	Zkpd__V1__Envelope *env = NULL;
	zkp_error err = { 0 };
	int rc = zkp_wire_unpack(&env, body, len, &err);
	if (rc) {
		send_error(s, 0, rc, zkp_error_text(&err, rc));
		return ZKP_ERR_PROTOCOL;
	}
	if ((rc = authenticate(s, env)) < 0) {
		/* refused and answered */
	} else if (env->body_case != ZKPD__V1__ENVELOPE__BODY_REQUEST) {
		send_error(s, env->call_id, ZKP_ERR_PROTOCOL,
			   "expected an Envelope carrying a Request");
	} else if (env->call_id == 0) {
		send_error(s, 0, ZKP_ERR_PROTOCOL, "a Request needs a non-zero call_id");
	} else if (call_open(s, env->call_id)) {
		send_error(s, env->call_id, ZKP_ERR_PROTOCOL,
			   "call_id is already in use by an open call on this connection");
	} else {
		dispatch(s, env->call_id, env->request);
	}
	zkp_wire_free(env);
	return rc < 0 ? rc : 0;
}

/* ---- events ---- */

/* Progress order: a stage's start, then its end, stage after stage. Events
 * reach the loop after the job may have moved on, and an Await that starts
 * late has already reported the job's current stage: both make some events
 * stale, and a stale event is not sent. */
static int progress_key(enum zkp_stage stage, bool finished)
{
	return 2 * (int)stage + (finished ? 1 : 0);
}

static void job_event(zkp_session *s, const zkp_engine_event *ev)
{
	for (size_t i = 0; i < s->n_awaits;) {
		await_call *a = &s->awaits[i];
		bool queue_moved = ev->kind == ZKP_EVENT_QUEUE && a->state == ZKP_JOB_QUEUED;
		if (!queue_moved && (ev->kind != ZKP_EVENT_JOB || a->job_id != ev->job_id)) {
			i++;
			continue;
		}
		zkp_job_info info;
		if (zkp_engine_job_info(s->ctx->engine, a->job_id, &info)) {
			send_error(s, a->call_id, ZKP_ERR_NOT_FOUND, "the job was forgotten");
			remove_await(s, i);
			continue;
		}
		if (ev->kind == ZKP_EVENT_JOB && ended(ev->state)) {
			/* The job's last event: every stage event came before it. */
			send_result(s, a->call_id, &info);
			zkp_job_info_release(&info);
			remove_await(s, i);
			continue;
		}
		if (ev->kind == ZKP_EVENT_QUEUE) {
			if (info.state == ZKP_JOB_QUEUED && info.queue_position != a->queue_position) {
				send_progress(s, a->call_id, &info, NULL);
				a->queue_position = info.queue_position;
			}
		} else if (progress_key(ev->stage, ev->stage_finished) >
			   progress_key(a->stage, a->stage_finished)) {
			info.state = ev->state;
			if (ev->state != ZKP_JOB_QUEUED)
				info.queue_position = 0;
			send_progress(s, a->call_id, &info, ev);
			a->stage = ev->stage;
			a->stage_finished = ev->stage_finished;
			a->state = ev->state;
		}
		zkp_job_info_release(&info);
		i++;
	}
}

static void load_event(zkp_session *s, const zkp_engine_event *ev)
{
	for (size_t i = 0; i < s->n_loads; i++) {
		if (s->loads[i].token != ev->token)
			continue;
		load_call l = s->loads[i];
		s->loads[i] = s->loads[--s->n_loads];
		if (ev->rc) {
			zkp_error err = { 0 };
			int rc = zkp_engine_load_error(s->ctx->engine, l.circuit, &err);
			send_error(s, l.call_id, rc ? rc : ev->rc, zkp_error_text(&err, ev->rc));
		} else {
			send_circuit(s, l.call_id, l.circuit, true);
		}
		return;
	}
}

void zkp_session_event(zkp_session *s, const zkp_engine_event *ev)
{
	if (ev->kind == ZKP_EVENT_LOAD)
		load_event(s, ev);
	else
		job_event(s, ev);
}

void zkp_session_tick(zkp_session *s, double now)
{
	for (size_t i = 0; i < s->n_awaits;) {
		await_call *a = &s->awaits[i];
		if (!a->deadline || now < a->deadline) {
			i++;
			continue;
		}
		zkp_job_info info;
		if (zkp_engine_job_info(s->ctx->engine, a->job_id, &info))
			send_error(s, a->call_id, ZKP_ERR_NOT_FOUND, "the job was forgotten");
		else {
			/* A timed-out Await answers with the job's current state;
			 * the job itself goes on. */
			send_result(s, a->call_id, &info);
			zkp_job_info_release(&info);
		}
		remove_await(s, i);
	}
}
