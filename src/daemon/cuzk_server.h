/*
 * cuzk_server: the gRPC front end (grpc.listen). It serves the cuzk.v1
 * ProvingEngine service (proto/cuzk/v1/proving.proto) that Curio calls,
 * over gRPC's C core library, beside the framed server.
 *
 * Every gRPC call becomes one call of an ordinary protocol session
 * (session.h) of its own, translated by cuzk_map.h: a gRPC Prove runs
 * through the same Submit, journal, idempotency, priority and admission
 * code as a framed Prove, and its answer is the session's, translated back.
 *
 * Threads. One completion-queue thread of ours owns gRPC's side: it
 * accepts calls, refuses one without the bearer token (server.token_file
 * with grpc.require_token) before reading its message, reads each request,
 * decodes and translates it
 * (no engine call), and hands it to the loop thread through an inbox
 * (mutex; wake() tells the loop). The loop thread owns every session and
 * is the only one that calls the engine: zkp_cuzk_server_poll takes the
 * inbox, zkp_cuzk_server_event passes engine events on, and the answer is
 * started with grpc_call_start_batch, which never blocks the loop (gRPC's
 * own threads write it). A call the client cancels, or whose deadline
 * passes, is dropped at the loop's next poll; its job goes on (its result
 * stays with the engine, and a retry with the same request_id attaches).
 *
 * Limits. Requests and answers above grpc.max_message_bytes are refused
 * by gRPC with RESOURCE_EXHAUSTED before any of our code reads them; other
 * calls and connections are unaffected.
 */
#ifndef ZKPD_DAEMON_CUZK_SERVER_H
#define ZKPD_DAEMON_CUZK_SERVER_H

#include "engine.h"
#include "session.h"
#include "zkpd/config.h"
#include "zkpd/error.h"

typedef struct zkp_cuzk_server zkp_cuzk_server;

/* Binds cfg->grpc_listen (unix:PATH or HOST:PORT, plaintext, or TLS from
 * tls.cert, tls.key and tls.client_ca when grpc.transport is tls) and
 * starts the completion-queue thread. gRPC core's own log lines go
 * through zkpd's log, one line each, from then on. ctx is the framed
 * server's session context (engine, journal, token) and must outlive this; wake(wake_arg) is called
 * from the gRPC thread when the inbox has work. Errors: ZKP_ERR_IO (cannot
 * bind: one line naming the address and the system's reason),
 * ZKP_ERR_CONFIG (unreadable TLS files), ZKP_ERR_NOMEM. Loop thread. */
int zkp_cuzk_server_new(zkp_cuzk_server **ret, const zkp_config *cfg, const zkp_session_ctx *ctx,
			void (*wake)(void *), void *wake_arg, zkp_error *err);

/* Loop thread: runs the calls the gRPC thread has read, drops the calls
 * whose client went away, frees the ones answered. */
void zkp_cuzk_server_poll(zkp_cuzk_server *g);
/* Loop thread: an engine event, for every open call's session. */
void zkp_cuzk_server_event(zkp_cuzk_server *g, const zkp_engine_event *ev);
/* Loop thread: Await timeouts (now: zkp_session_now()). */
void zkp_cuzk_server_tick(zkp_cuzk_server *g, double now);
/* Loop thread: shutdown, step 1: no new calls (gRPC refuses them);
 * calls already open are answered as their jobs end. */
void zkp_cuzk_server_drain(zkp_cuzk_server *g);

/* The gRPC figures of zkp_server_stats (grpc_answered, grpc_abandoned,
 * grpc_open). Any thread. */
void zkp_cuzk_server_stats_get(zkp_cuzk_server *g, zkp_server_stats *ret);

/* Cancels the calls still open, stops gRPC, joins the thread and frees
 * every session (before the engine is freed). NULL is a no-op. Loop
 * thread, after the loop stopped. */
void zkp_cuzk_server_free(zkp_cuzk_server *g);

#endif
