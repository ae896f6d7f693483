/*
 * cuzk_server: cuzk.v1 over gRPC's C core, each call run by a session of
 * its own on the loop thread (cuzk_server.h).
 *
 * A call's life:
 *   gRPC thread: request_call completes (NEW) -> a call without the bearer
 *     token (when one is required) is refused before its message is read;
 *     else start RECV_CLOSE_ON_SERVER (CLOSE) and RECV_MESSAGE (RECV) ->
 *     the message is decoded and
 *     translated (cuzk_map.h) -> the call goes to the inbox, or is answered
 *     at once when it cannot be run (bad message, no token).
 *   loop thread: the call gets a session; the Authenticate envelope (when
 *     a token is required) and the translated request are fed to it; the
 *     session's answer is translated and sent (SEND); the session is freed.
 *   CLOSE completes when the call ends for any reason; if that happens
 *     before the answer (client cancelled, deadline), the loop drops the
 *     session at its next poll.
 * Each call is reference counted: one for whoever runs it (the gRPC thread,
 * then the loop) and one per batch in flight; the last drops the call.
 */
#include "cuzk_server.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk_map.h"
#include "wire.h"
#include "zkpd/log.h"

/* Outstanding request_call slots: calls accepted while the thread is busy. */
#define ACCEPT_SLOTS 16
#define TOKEN_MAX 4096
#define CALL_ID_AUTH 1
#define CALL_ID_MAIN 2

enum tag_kind { TAG_NEW, TAG_RECV, TAG_CLOSE, TAG_SEND, TAG_SHUTDOWN };

typedef struct gcall gcall;
typedef struct {
	enum tag_kind kind;
	gcall *c;
} tag;

struct gcall {
	zkp_cuzk_server *g;
	grpc_call *call;
	grpc_call_details details;
	grpc_metadata_array md;
	grpc_byte_buffer *recv;
	int cancelled; /* RECV_CLOSE_ON_SERVER's answer */
	tag t_new, t_recv, t_close, t_send;
	atomic_int refs;
	atomic_bool closed; /* the call ended (CLOSE completed) */
	atomic_bool answering; /* answer() started */
	bool counted; /* counts in open */
	/* Set by the gRPC thread before the call reaches the inbox. */
	zkp_cuzk_request req;
	uint8_t *auth_env; /* Authenticate envelope, or NULL */
	size_t auth_len;
	char peer[64];
	/* Loop thread. */
	zkp_session *session;
	zkp_cuzk_context ctx;
	double started;
	bool answered;
	gcall *next, *prev; /* inbox (next only), then the live list */
	/* The answer in flight. */
	grpc_byte_buffer *send_buf;
	grpc_slice status_details;
	bool has_details;
};

struct zkp_cuzk_server {
	const zkp_config *cfg;
	zkp_session_ctx sctx; /* the framed server's, token dropped with require_token off */
	grpc_server *server;
	grpc_completion_queue *cq;
	pthread_t thread;
	bool thread_started;
	void (*wake)(void *);
	void *wake_arg;
	char unix_path[sizeof(((zkp_address *)0)->path)];
	pthread_mutex_t mu; /* inbox, shutdown_done */
	pthread_cond_t cond;
	gcall *inbox, **inbox_tail;
	bool shutting_down, shutdown_done;
	tag t_shutdown;
	gcall *live; /* loop thread: calls with a session */
	/* Figures (any thread). */
	atomic_uint_fast64_t answered[ZKP_GRPC_CODES];
	atomic_uint_fast64_t abandoned;
	atomic_uint open;
};

/* ---- calls ---- */

static void call_unref(gcall *c)
{
	if (atomic_fetch_sub(&c->refs, 1) != 1)
		return;
	if (c->counted) {
		atomic_fetch_sub(&c->g->open, 1);
		if (!atomic_load(&c->answering))
			atomic_fetch_add(&c->g->abandoned, 1);
	}
	if (c->call)
		grpc_call_unref(c->call);
	grpc_call_details_destroy(&c->details);
	grpc_metadata_array_destroy(&c->md);
	if (c->recv)
		grpc_byte_buffer_destroy(c->recv);
	if (c->send_buf)
		grpc_byte_buffer_destroy(c->send_buf);
	if (c->has_details)
		grpc_slice_unref(c->status_details);
	zkp_cuzk_request_release(&c->req);
	free(c->auth_env);
	free(c);
}

/* Sends the answer: a message (status OK) or a status alone. Any thread;
 * at most once per call. */
static void answer(gcall *c, int code, const uint8_t *msg, size_t len, const char *details)
{
	grpc_op ops[3];
	memset(ops, 0, sizeof(ops));
	size_t n = 0;
	atomic_store(&c->answering, true);
	if (code >= 0 && code < ZKP_GRPC_CODES)
		atomic_fetch_add(&c->g->answered[code], 1);
	ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
	if (code == ZKP_GRPC_OK) {
		grpc_slice s = grpc_slice_from_copied_buffer((const char *)msg, len);
		c->send_buf = grpc_raw_byte_buffer_create(&s, 1);
		grpc_slice_unref(s);
		ops[n].op = GRPC_OP_SEND_MESSAGE;
		ops[n++].data.send_message.send_message = c->send_buf;
	}
	c->status_details = grpc_slice_from_copied_string(details ? details : "");
	c->has_details = true;
	ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[n].data.send_status_from_server.status = (grpc_status_code)code;
	ops[n++].data.send_status_from_server.status_details = &c->status_details;
	atomic_fetch_add(&c->refs, 1);
	if (grpc_call_start_batch(c->call, ops, n, &c->t_send, NULL) != GRPC_CALL_OK)
		call_unref(c); /* the call is already gone */
	if (code != ZKP_GRPC_OK)
		zkp_log(ZKP_LOG_INFO, "grpc %s from %s: status %d: %s",
			zkp_cuzk_method_name(c->req.method), c->peer, code, details ? details : "");
}

static gcall *call_new(zkp_cuzk_server *g)
{
	gcall *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->g = g;
	grpc_call_details_init(&c->details);
	grpc_metadata_array_init(&c->md);
	c->t_new = (tag){ TAG_NEW, c };
	c->t_recv = (tag){ TAG_RECV, c };
	c->t_close = (tag){ TAG_CLOSE, c };
	c->t_send = (tag){ TAG_SEND, c };
	atomic_init(&c->refs, 1);
	atomic_init(&c->closed, false);
	atomic_init(&c->answering, false);
	return c;
}

/* Asks gRPC for the next call. gRPC thread (or new, before it starts). */
static void accept_one(zkp_cuzk_server *g)
{
	gcall *c = call_new(g);
	if (!c) {
		zkp_log(ZKP_LOG_ERROR, "grpc: no memory to accept a call");
		return;
	}
	if (grpc_server_request_call(g->server, &c->call, &c->details, &c->md, g->cq, g->cq,
				     &c->t_new) != GRPC_CALL_OK)
		call_unref(c);
}

/* The bearer token of "authorization: Bearer TOKEN", copied into buf;
 * false when the call has none. */
static bool bearer_token(const grpc_metadata_array *md, char *buf, size_t size)
{
	static const char prefix[] = "Bearer ";
	for (size_t i = 0; i < md->count; i++) {
		const grpc_slice k = md->metadata[i].key, v = md->metadata[i].value;
		if (GRPC_SLICE_LENGTH(k) != 13 ||
		    memcmp(GRPC_SLICE_START_PTR(k), "authorization", 13) != 0)
			continue;
		size_t len = GRPC_SLICE_LENGTH(v), pl = sizeof(prefix) - 1;
		if (len <= pl || len - pl >= size ||
		    strncasecmp((const char *)GRPC_SLICE_START_PTR(v), prefix, pl) != 0)
			return false;
		memcpy(buf, GRPC_SLICE_START_PTR(v) + pl, len - pl);
		buf[len - pl] = 0;
		return true;
	}
	return false;
}

static int pack_authenticate(gcall *c, const char *token)
{
	Zkpd__V1__AuthenticateRequest a = ZKPD__V1__AUTHENTICATE_REQUEST__INIT;
	Zkpd__V1__Request rq = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	a.token = (char *)token;
	rq.call_case = ZKPD__V1__REQUEST__CALL_AUTHENTICATE;
	rq.authenticate = &a;
	env.call_id = CALL_ID_AUTH;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &rq;
	c->auth_len = zkpd__v1__envelope__get_packed_size(&env);
	c->auth_env = malloc(c->auth_len);
	if (!c->auth_env)
		return ZKP_ERR_NOMEM;
	zkpd__v1__envelope__pack(&env, c->auth_env);
	return 0;
}

/* Whether the call's metadata carries the token (when one is required):
 * SHA-256 digests compared in constant time, as the framed Authenticate
 * does. On refusal *why says what was wrong. */
static bool token_ok(const zkp_cuzk_server *g, const gcall *c, const char **why)
{
	if (!g->sctx.token_sha256)
		return true;
	char token[TOKEN_MAX];
	if (!bearer_token(&c->md, token, sizeof(token))) {
		*why = "no bearer token (expected \"authorization: Bearer TOKEN\" metadata)";
		return false;
	}
	uint8_t digest[32];
	unsigned int n = 0;
	bool ok = EVP_Digest(token, strlen(token), digest, &n, EVP_sha256(), NULL) && n == 32 &&
		  CRYPTO_memcmp(digest, g->sctx.token_sha256, 32) == 0;
	OPENSSL_cleanse(token, sizeof(token));
	*why = "wrong bearer token";
	return ok;
}

/* NEW completed: refuse a call without the token before reading anything
 * of its message, else start reading it. gRPC thread. */
static void on_new(gcall *c)
{
	c->counted = true;
	atomic_fetch_add(&c->g->open, 1);
	char *peer = grpc_call_get_peer(c->call);
	snprintf(c->peer, sizeof(c->peer), "%s", peer ? peer : "?");
	gpr_free(peer);
	c->req.method = zkp_cuzk_method_of((const char *)GRPC_SLICE_START_PTR(c->details.method),
					   GRPC_SLICE_LENGTH(c->details.method));
	const char *why;
	if (!token_ok(c->g, c, &why)) {
		answer(c, ZKP_GRPC_UNAUTHENTICATED, NULL, 0, why);
		call_unref(c);
		return;
	}
	grpc_op op;
	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &c->cancelled;
	atomic_fetch_add(&c->refs, 1);
	if (grpc_call_start_batch(c->call, &op, 1, &c->t_close, NULL) != GRPC_CALL_OK) {
		atomic_store(&c->closed, true);
		call_unref(c);
	}
	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &c->recv;
	atomic_fetch_add(&c->refs, 1);
	if (grpc_call_start_batch(c->call, &op, 1, &c->t_recv, NULL) != GRPC_CALL_OK) {
		call_unref(c); /* the RECV reference */
		call_unref(c); /* ours */
	}
}

/* RECV completed: decode, translate, hand to the loop. gRPC thread. The
 * RECV reference becomes the runner's (the NEW one was ours until now). */
static void on_recv(gcall *c, bool ok)
{
	zkp_cuzk_server *g = c->g;
	call_unref(c); /* the RECV batch's reference; ours stays */
	if (c->req.method == ZKP_CUZK_UNKNOWN) {
		char what[160];
		snprintf(what, sizeof(what), "%.*s is not a cuzk.v1.ProvingEngine method",
			 (int)GRPC_SLICE_LENGTH(c->details.method),
			 (const char *)GRPC_SLICE_START_PTR(c->details.method));
		answer(c, ZKP_GRPC_UNIMPLEMENTED, NULL, 0, what);
		call_unref(c);
		return;
	}
	if (!ok) { /* the call failed under gRPC: cancelled, or over max_message_bytes */
		call_unref(c);
		return;
	}
	if (!c->recv) {
		answer(c, ZKP_GRPC_INVALID_ARGUMENT, NULL, 0,
		       "no request message (expected one per call)");
		call_unref(c);
		return;
	}
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, c->recv)) {
		answer(c, ZKP_GRPC_INVALID_ARGUMENT, NULL, 0, "cannot read the request message");
		call_unref(c);
		return;
	}
	grpc_slice all = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	grpc_byte_buffer_destroy(c->recv);
	c->recv = NULL;
	zkp_error err = { 0 };
	enum zkp_cuzk_method m = c->req.method;
	int rc = zkp_cuzk_request_decode(&c->req, g->cfg, m, GRPC_SLICE_START_PTR(all),
					 GRPC_SLICE_LENGTH(all), CALL_ID_MAIN, &err);
	grpc_slice_unref(all);
	if (rc) {
		c->req.method = m;
		answer(c, zkp_cuzk_status_of_error(rc), NULL, 0, err.msg);
		call_unref(c);
		return;
	}
	if (g->sctx.token_sha256) { /* checked in on_new; the session checks it again */
		char token[TOKEN_MAX];
		if (!bearer_token(&c->md, token, sizeof(token)))
			token[0] = 0;
		rc = pack_authenticate(c, token);
		OPENSSL_cleanse(token, sizeof(token));
		if (rc) {
			answer(c, ZKP_GRPC_RESOURCE_EXHAUSTED, NULL, 0, "out of memory");
			call_unref(c);
			return;
		}
	}
	pthread_mutex_lock(&g->mu);
	c->next = NULL;
	*g->inbox_tail = c;
	g->inbox_tail = &c->next;
	pthread_mutex_unlock(&g->mu);
	g->wake(g->wake_arg);
}

static void *cq_thread(void *arg)
{
	zkp_cuzk_server *g = arg;
	for (;;) {
		grpc_event ev = grpc_completion_queue_next(g->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC),
							   NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type != GRPC_OP_COMPLETE)
			continue;
		tag *t = ev.tag;
		gcall *c = t->c;
		switch (t->kind) {
		case TAG_NEW:
			if (!ev.success) { /* the server is shutting down */
				call_unref(c);
				break;
			}
			accept_one(g);
			on_new(c);
			break;
		case TAG_RECV:
			on_recv(c, ev.success);
			break;
		case TAG_CLOSE:
			atomic_store(&c->closed, true);
			g->wake(g->wake_arg); /* the loop drops its session */
			call_unref(c);
			break;
		case TAG_SEND:
			call_unref(c);
			break;
		case TAG_SHUTDOWN:
			pthread_mutex_lock(&g->mu);
			g->shutdown_done = true;
			pthread_cond_broadcast(&g->cond);
			pthread_mutex_unlock(&g->mu);
			break;
		}
	}
	return NULL;
}

/* ---- the loop's side ---- */

static void live_remove(zkp_cuzk_server *g, gcall *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		g->live = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = c->prev = NULL;
}

/* The session's answers. Loop thread. Only the main call's final answer
 * matters: Progress is dropped, and an answered Authenticate lets the
 * main call run (a refused one ends the call here). */
static int session_send(void *conn, uint8_t *frame, size_t len)
{
	gcall *c = conn;
	zkp_cuzk_server *g = c->g;
	Zkpd__V1__Envelope *env = NULL;
	if (len > ZKP_FRAME_HEADER)
		env = zkpd__v1__envelope__unpack(NULL, len - ZKP_FRAME_HEADER,
						 frame + ZKP_FRAME_HEADER);
	free(frame);
	if (!env || c->answered)
		goto out;
	if (env->body_case == ZKPD__V1__ENVELOPE__BODY_PROGRESS)
		goto out;
	if (env->call_id == CALL_ID_AUTH) {
		if (env->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR) {
			c->answered = true;
			answer(c, ZKP_GRPC_UNAUTHENTICATED, NULL, 0, env->error->message);
		}
		goto out;
	}
	if (c->req.method == ZKP_CUZK_SUBMIT &&
	    env->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE &&
	    env->response->call_case == ZKPD__V1__RESPONSE__CALL_SUBMIT) {
		zkp_job_info info;
		if (zkp_engine_job_info(g->sctx.engine, env->response->submit->job_id, &info) == 0) {
			c->ctx.queue_position = info.queue_position;
			zkp_job_info_release(&info);
		}
	}
	c->ctx.seconds = zkp_session_now() - c->started;
	uint8_t *out;
	size_t out_len;
	char msg[700];
	enum zkp_grpc_code code =
		zkp_cuzk_response_encode(c->req.method, env, &c->ctx, &out, &out_len, msg, sizeof(msg));
	c->answered = true;
	answer(c, code, out, out_len, msg);
	free(out);
out:
	if (env)
		zkpd__v1__envelope__free_unpacked(env, NULL);
	return 0;
}

/* A circuit's state before Preload or Evict. */
static void circuit_before(zkp_cuzk_server *g, gcall *c)
{
	zkp_engine_status st;
	if (zkp_engine_get_status(g->sctx.engine, &st))
		return;
	for (size_t i = 0; i < st.n_circuits; i++)
		if (strcmp(st.circuits[i].name, c->req.circuit) == 0) {
			c->ctx.was_loaded = st.circuits[i].loaded;
			c->ctx.circuit_bytes = st.circuits[i].pce_bytes + st.circuits[i].key_bytes;
		}
	zkp_engine_status_release(&st);
}

static void run_call(zkp_cuzk_server *g, gcall *c)
{
	c->session = zkp_session_new(&g->sctx, session_send, c);
	if (!c->session) {
		answer(c, ZKP_GRPC_RESOURCE_EXHAUSTED, NULL, 0, "out of memory for the call");
		call_unref(c);
		return;
	}
	c->started = zkp_session_now();
	c->next = g->live;
	c->prev = NULL;
	if (g->live)
		g->live->prev = c;
	g->live = c;
	if (c->req.method == ZKP_CUZK_PRELOAD || c->req.method == ZKP_CUZK_EVICT)
		circuit_before(g, c);
	if (c->auth_env && zkp_session_frame(c->session, c->auth_env, c->auth_len))
		return; /* refused: answered in session_send */
	if (!c->answered)
		zkp_session_frame(c->session, c->req.envelope, c->req.envelope_len);
	/* The request bytes (a C1 can be tens of MB) are not needed again. */
	zkp_cuzk_request_release(&c->req);
}

/* Frees the sessions of calls answered or gone. Loop thread. */
static void reap(zkp_cuzk_server *g)
{
	for (gcall *c = g->live, *next; c; c = next) {
		next = c->next;
		if (!c->answered && !atomic_load(&c->closed))
			continue;
		live_remove(g, c);
		zkp_session_free(c->session);
		c->session = NULL;
		call_unref(c);
	}
}

/* Empties the inbox; returns its calls, oldest first. */
static gcall *take_inbox(zkp_cuzk_server *g)
{
	pthread_mutex_lock(&g->mu);
	gcall *list = g->inbox;
	g->inbox = NULL;
	g->inbox_tail = &g->inbox;
	pthread_mutex_unlock(&g->mu);
	return list;
}

void zkp_cuzk_server_poll(zkp_cuzk_server *g)
{
	if (!g)
		return;
	for (gcall *c = take_inbox(g), *next; c; c = next) {
		next = c->next;
		if (atomic_load(&c->closed)) {
			call_unref(c);
			continue;
		}
		run_call(g, c);
	}
	reap(g);
}

void zkp_cuzk_server_event(zkp_cuzk_server *g, const zkp_engine_event *ev)
{
	if (!g)
		return;
	for (gcall *c = g->live; c; c = c->next)
		if (c->session && !c->answered)
			zkp_session_event(c->session, ev);
	reap(g);
}

void zkp_cuzk_server_tick(zkp_cuzk_server *g, double now)
{
	if (!g)
		return;
	for (gcall *c = g->live; c; c = c->next)
		if (c->session && !c->answered)
			zkp_session_tick(c->session, now);
	reap(g);
}

void zkp_cuzk_server_stats_get(zkp_cuzk_server *g, zkp_server_stats *ret)
{
	ret->grpc = true;
	for (int i = 0; i < ZKP_GRPC_CODES; i++)
		ret->grpc_answered[i] = atomic_load(&g->answered[i]);
	ret->grpc_abandoned = atomic_load(&g->abandoned);
	ret->grpc_open = atomic_load(&g->open);
}

void zkp_cuzk_server_drain(zkp_cuzk_server *g)
{
	if (!g || g->shutting_down)
		return;
	g->shutting_down = true;
	grpc_server_shutdown_and_notify(g->server, g->cq, &g->t_shutdown);
}

/* ---- lifetime ---- */

static char *read_pem(const char *path, const char *option, zkp_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	if (!f) {
		zkp_error_set(err, ZKP_ERR_CONFIG, "%s %s: %s", option, path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4097 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				zkp_error_set(err, ZKP_ERR_NOMEM, "%s %s: out of memory", option, path);
				return NULL;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		zkp_error_set(err, ZKP_ERR_CONFIG, "%s %s: read error", option, path);
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

/* gRPC core's own log lines, which span several lines and quote its
 * internal error trees, go through zkpd's log as one line each: WARN for
 * its errors, DEBUG for the rest. While the listener is being bound
 * (binding set, loop thread) they go to DEBUG only, and the system's
 * reason (os_error) is kept for zkpd's own one-line error. */
static atomic_bool binding;
static char bind_why[160];

static void grpc_log_line(gpr_log_func_args *a)
{
	char line[600];
	size_t n = 0;
	for (const char *m = a->message; *m && n + 1 < sizeof(line); m++)
		line[n++] = *m == '\n' || *m == '\r' ? ' ' : *m;
	line[n] = 0;
	if (atomic_load(&binding)) {
		const char *os = strstr(a->message, "os_error:\"");
		if (os && !bind_why[0]) {
			os += strlen("os_error:\"");
			size_t k = strcspn(os, "\"");
			snprintf(bind_why, sizeof(bind_why), "%.*s", (int)k, os);
		}
		zkp_log(ZKP_LOG_DEBUG, "grpc: %s", line);
		return;
	}
	zkp_log(a->severity == GPR_LOG_SEVERITY_ERROR ? ZKP_LOG_WARN : ZKP_LOG_DEBUG, "grpc: %s",
		line);
}

static int credentials(zkp_cuzk_server *g, grpc_server_credentials **ret, zkp_error *err)
{
	const zkp_config *cfg = g->cfg;
	*ret = NULL;
	if (cfg->grpc_transport != ZKP_GRPC_TLS) {
		*ret = grpc_insecure_server_credentials_create();
		return 0;
	}
	char *cert = read_pem(cfg->tls_cert, "tls.cert", err);
	char *key = cert ? read_pem(cfg->tls_key, "tls.key", err) : NULL;
	char *ca = key && cfg->tls_client_ca ? read_pem(cfg->tls_client_ca, "tls.client_ca", err)
					      : NULL;
	int rc = 0;
	if (!cert || !key || (cfg->tls_client_ca && !ca)) {
		rc = err->code ? err->code : ZKP_ERR_CONFIG;
	} else {
		grpc_ssl_pem_key_cert_pair pair = { key, cert };
		*ret = grpc_ssl_server_credentials_create_ex(
			ca, &pair, 1,
			ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
			   : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
			NULL);
		if (!*ret)
			rc = zkp_error_set(err, ZKP_ERR_CONFIG,
					   "grpc.listen: gRPC refused tls.cert/tls.key");
	}
	if (key)
		memset(key, 0, strlen(key));
	free(cert);
	free(key);
	free(ca);
	return rc;
}

int zkp_cuzk_server_new(zkp_cuzk_server **ret, const zkp_config *cfg, const zkp_session_ctx *ctx,
			void (*wake)(void *), void *wake_arg, zkp_error *err)
{
	*ret = NULL;
	zkp_cuzk_server *g = calloc(1, sizeof(*g));
	if (!g)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the gRPC server");
	g->cfg = cfg;
	g->sctx = *ctx;
	if (!cfg->grpc_require_token)
		g->sctx.token_sha256 = NULL;
	g->wake = wake;
	g->wake_arg = wake_arg;
	g->inbox_tail = &g->inbox;
	g->t_shutdown = (tag){ TAG_SHUTDOWN, NULL };
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cond, NULL);
	gpr_set_log_function(grpc_log_line);
	grpc_init();

	char addr[600];
	const zkp_address *a = &cfg->grpc_listen;
	if (a->kind == ZKP_ADDR_UNIX) {
		snprintf(addr, sizeof(addr), "unix:%s", a->path);
		snprintf(g->unix_path, sizeof(g->unix_path), "%s", a->path);
	} else if (strchr(a->host, ':')) {
		snprintf(addr, sizeof(addr), "[%s]:%u", a->host, a->port);
	} else {
		snprintf(addr, sizeof(addr), "%s:%u", a->host, a->port);
	}
	grpc_arg args[2];
	args[0].type = args[1].type = GRPC_ARG_INTEGER;
	args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	args[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
	args[0].value.integer = args[1].value.integer = (int)cfg->grpc_max_message_bytes;
	grpc_channel_args cargs = { 2, args };
	g->server = grpc_server_create(&cargs, NULL);
	g->cq = grpc_completion_queue_create_for_next(NULL);
	grpc_server_register_completion_queue(g->server, g->cq, NULL);
	grpc_server_credentials *creds;
	int rc = credentials(g, &creds, err);
	if (rc)
		goto fail;
	bind_why[0] = 0;
	atomic_store(&binding, true);
	int port = grpc_server_add_http2_port(g->server, addr, creds);
	atomic_store(&binding, false);
	grpc_server_credentials_release(creds);
	if (!port) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "grpc.listen: cannot listen on %s: %s", addr,
				   bind_why[0] ? bind_why : "gRPC could not bind it (the log at "
							    "debug level has its report)");
		goto fail;
	}
	grpc_server_start(g->server);
	if (g->unix_path[0] && chmod(g->unix_path, cfg->socket_mode))
		zkp_log(ZKP_LOG_WARN, "grpc: chmod %04o %s: %s", cfg->socket_mode, g->unix_path,
			strerror(errno));
	for (int i = 0; i < ACCEPT_SLOTS; i++)
		accept_one(g);
	if (pthread_create(&g->thread, NULL, cq_thread, g)) {
		rc = zkp_error_set(err, ZKP_ERR_IO, "grpc: cannot start its thread");
		goto fail;
	}
	g->thread_started = true;
	if (cfg->grpc_transport == ZKP_GRPC_TLS)
		zkp_log(ZKP_LOG_INFO, "grpc: serving cuzk.v1 on %s (TLS%s)", addr,
			cfg->tls_client_ca ? ", client certificates required" : "");
	else if (a->kind == ZKP_ADDR_UNIX || zkp_address_is_loopback(a))
		zkp_log(ZKP_LOG_INFO, "grpc: serving cuzk.v1 on %s (plaintext, %s)", addr,
			a->kind == ZKP_ADDR_UNIX ? "the socket's mode and owner guard it"
						 : "loopback");
	else
		zkp_log(ZKP_LOG_WARN, "grpc: serving cuzk.v1 on %s in PLAINTEXT over the network "
			"(grpc.allow_insecure_plaintext_network)", addr);
	*ret = g;
	return 0;
fail:
	zkp_cuzk_server_free(g);
	return rc;
}

void zkp_cuzk_server_free(zkp_cuzk_server *g)
{
	if (!g)
		return;
	if (!g->shutting_down) {
		g->shutting_down = true;
		grpc_server_shutdown_and_notify(g->server, g->cq, &g->t_shutdown);
	}
	/* Sessions go first: they hold the engine's and journal's callbacks. */
	zkp_cuzk_server_poll(g);
	for (gcall *c = g->live, *next; c; c = next) {
		next = c->next;
		live_remove(g, c);
		zkp_session_free(c->session);
		c->session = NULL;
		if (!c->answered)
			answer(c, ZKP_GRPC_UNAVAILABLE, NULL, 0, "zkpd is shutting down");
		call_unref(c);
	}
	grpc_server_cancel_all_calls(g->server);
	if (g->thread_started) {
		pthread_mutex_lock(&g->mu);
		while (!g->shutdown_done)
			pthread_cond_wait(&g->cond, &g->mu);
		pthread_mutex_unlock(&g->mu);
		/* Calls read after the last poll never ran. */
		for (gcall *c = take_inbox(g), *next; c; c = next) {
			next = c->next;
			grpc_call_cancel_with_status(c->call, GRPC_STATUS_UNAVAILABLE,
						     "zkpd is shutting down", NULL);
			call_unref(c);
		}
		grpc_server_destroy(g->server);
		g->server = NULL;
		grpc_completion_queue_shutdown(g->cq);
		pthread_join(g->thread, NULL);
	} else {
		grpc_server_destroy(g->server);
		g->server = NULL;
		grpc_completion_queue_shutdown(g->cq);
		for (;;) { /* the accept slots asked for before the failure */
			grpc_event ev = grpc_completion_queue_next(
				g->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
			if (ev.type == GRPC_QUEUE_SHUTDOWN)
				break;
			tag *t = ev.tag;
			if (ev.type == GRPC_OP_COMPLETE && t->kind == TAG_NEW)
				call_unref(t->c);
		}
	}
	grpc_completion_queue_destroy(g->cq);
	if (g->unix_path[0])
		unlink(g->unix_path);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cond);
	grpc_shutdown();
	free(g);
}
