/*
 * session: the protocol of one connection, over the engine. The server
 * (server.c) owns the socket and hands the session each frame's body; the
 * session decodes the Envelope, runs the call against the engine and sends
 * its answers back through the server's send function. It keeps the calls
 * still open on its connection: Awaits (and Proves) waiting for a job's
 * end, and LoadCircuit calls waiting for the loader.
 *
 * Invariants:
 *  - Every Request gets exactly one Response or Error with its call_id
 *    (Await and Prove: after any number of Progress events), unless the
 *    connection closes first. A connection that goes away leaves its jobs
 *    running: their results stay with the engine (Await by job id, or a
 *    Submit with the same request_id, picks them up).
 *  - A body that is not an Envelope is answered with an Error of call_id 0
 *    and zkp_session_frame returns ZKP_ERR_PROTOCOL: the server closes the
 *    connection after sending it. A well-formed Envelope that is not a
 *    valid call (no request, call_id 0, a call with a missing field) gets
 *    an Error with its call_id and the connection stays open.
 *  - With ctx->token_sha256 set, the first call must be an Authenticate
 *    with the token (compared in constant time). Any other call first, or
 *    a wrong token, is answered with ERR_DENIED and zkp_session_frame
 *    returns ZKP_ERR_DENIED: the server closes the connection after it.
 *
 * Threads: loop thread only (all of it).
 */
#ifndef ZKPD_DAEMON_SESSION_H
#define ZKPD_DAEMON_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "journal.h"
#include "zkpd/config.h"

/* gRPC status codes 0 (OK) to 16 (UNAUTHENTICATED). */
#define ZKP_GRPC_CODES 17

/* The server's own figures, for Status and Metrics (loop thread). */
typedef struct {
	uint32_t connections;
	uint64_t connections_total, connections_refused;
	uint64_t frames_in, frames_out, bytes_in, bytes_out;
	uint64_t protocol_errors;
	bool accepting;
	/* The gRPC front end (grpc.listen; all 0 without it): calls answered,
	 * by gRPC status code; calls whose client went away unanswered; calls
	 * open now. */
	bool grpc;
	uint64_t grpc_answered[ZKP_GRPC_CODES];
	uint64_t grpc_abandoned;
	uint32_t grpc_open;
} zkp_server_stats;

/* What every session of one server shares. */
typedef struct {
	zkp_engine *engine;
	zkp_journal *journal; /* NULL: no journal; else Submits go through it */
	const zkp_config *cfg;
	const zkp_server_stats *stats;
	double start; /* CLOCK_MONOTONIC seconds when the daemon started */
	/* SHA-256 of server.token_file's token; NULL: no authentication */
	const uint8_t *token_sha256;
} zkp_session_ctx;

/* Queues one frame for the connection; takes ownership of the malloc'd
 * frame (header included) whatever it returns. */
typedef int (*zkp_session_send_fn)(void *conn, uint8_t *frame, size_t len);

typedef struct zkp_session zkp_session;

/* NULL on allocation failure. ctx must outlive the session. */
zkp_session *zkp_session_new(const zkp_session_ctx *ctx, zkp_session_send_fn send, void *conn);
void zkp_session_free(zkp_session *s);

/* One frame's body. Returns 0, or ZKP_ERR_PROTOCOL after answering an
 * unreadable body, or ZKP_ERR_DENIED after refusing an unauthenticated
 * call (in both cases the caller closes the connection once that is sent). */
int zkp_session_frame(zkp_session *s, const uint8_t *body, size_t len);

/* Sends the Error of call_id 0 for a frame the server could not read
 * (oversized or zero length); code and message from the frame reader. */
void zkp_session_frame_error(zkp_session *s, int code, const char *message);

/* Whether the connection may send full-size frames: no token is required,
 * or its Authenticate call succeeded. */
bool zkp_session_authenticated(const zkp_session *s);

/* An engine event (every session sees every event; each answers only its
 * own open calls). */
void zkp_session_event(zkp_session *s, const zkp_engine_event *ev);

/* Ends the Awaits whose timeout passed (now: CLOCK_MONOTONIC seconds),
 * answering each with the job's current state. */
void zkp_session_tick(zkp_session *s, double now);

/* Whether calls are still open (an idle timeout must not close it). */
bool zkp_session_busy(const zkp_session *s);

/* CLOCK_MONOTONIC seconds. */
double zkp_session_now(void);

#endif
