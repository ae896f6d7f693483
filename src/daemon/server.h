/*
 * server: the daemon's I/O. One libuv loop on the calling thread owns the
 * listeners (Unix sockets, TCP), every connection, the timers and the
 * signal handlers; the engine's threads do the work and wake the loop
 * through one uv_async_t whose callback drains the engine's whole event
 * queue (libuv's threadpool.c pattern).
 *
 * Invariants:
 *  - Only the loop thread touches sockets, connections and sessions.
 *  - A connection holds at most server.conn_buffer_bytes of unsent replies
 *    before the server stops reading from it (it resumes below half), and
 *    at most one frame of server.max_frame_bytes being received: a slow or
 *    hostile client cannot grow the daemon's memory without bound.
 *  - A broken or oversized frame is answered with an Error (call_id 0) and
 *    that connection alone is closed once the answer is sent.
 *  - tcp: listeners speak TLS when tls.cert is set (tls.client_ca: a client
 *    certificate is required); plaintext TCP only with server.tcp_plaintext.
 *    A failed handshake closes that connection alone. With
 *    server.token_file every connection authenticates first (session.h).
 *  - SIGTERM or SIGINT: stop accepting (listeners closed, the Unix socket
 *    file removed), cancel queued jobs, let running ones finish within
 *    server.shutdown_grace, then cancel them; when none runs, flush and
 *    close every connection and return 0. A second signal cancels at once.
 *
 * Threads: zkp_server_new and zkp_server_run on one thread (the loop's).
 */
#ifndef ZKPD_DAEMON_SERVER_H
#define ZKPD_DAEMON_SERVER_H

#include <stdint.h>

#include "zkpd/config.h"
#include "zkpd/error.h"
#include "session.h"

typedef struct zkp_server zkp_server;

/* Creates the loop, binds the framed listeners (making a socket's
 * directory when it is zkpd's own, sockdir.h), creates the engine and the
 * gRPC listener, and only then lets the engine load circuits: a start that
 * cannot take an address fails without waiting for a load. cfg must
 * outlive the server. Errors: the engine's, ZKP_ERR_IO (cannot listen:
 * names the address and why; another zkpd already serves a Unix socket:
 * names it, with its pid and version when it answers; a socket directory
 * that is missing and not zkpd's to make), ZKP_ERR_NOMEM. */
int zkp_server_new(zkp_server **ret, const zkp_config *cfg, zkp_error *err);
/* Serves until shutdown completes. Returns 0 after a clean drain. */
int zkp_server_run(zkp_server *s);
/* Frees what run left; NULL is a no-op. */
void zkp_server_free(zkp_server *s);

/* The server's engine (thread-safe API, engine.h), for other front ends
 * such as the HTTP endpoint. Valid from zkp_server_new until run returns. */
struct zkp_engine *zkp_server_engine(zkp_server *s);

/* SHA-256 of server.token_file's token, or NULL without one. Any thread:
 * set before the server runs and never changed. */
const uint8_t *zkp_server_token_sha256(const zkp_server *s);

/* A copy of the server's figures (session.h) taken by the loop at most
 * 100 ms ago. Any thread. */
void zkp_server_stats_get(zkp_server *s, zkp_server_stats *ret);

#endif
