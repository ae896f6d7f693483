/*
 * http: the optional HTTP endpoint (http.listen, off when unset), for
 * monitoring: scrapers and load balancers speak HTTP, not zkpd's framed
 * protocol.
 *
 *   GET /metrics  200, Prometheus text 0.0.4 (metrics.h): the Metrics call's
 *                 answer
 *   GET /status   200, the Status call's answer (status.h) as one JSON
 *                 object: proto field names, enums by name, 64-bit integers
 *                 as numbers, bytes as base64
 *   GET /healthz  200 "ok" while jobs are accepted, 503 "draining" after
 *                 SIGTERM; never needs a token
 *   401           /metrics and /status without the bearer token, when
 *                 http.require_token is set
 *   other paths   404; methods other than GET and HEAD: 405 with Allow
 *
 * libmicrohttpd parses HTTP and runs every request on its one internal
 * polling thread; the libuv loop never sees these connections. Requests
 * read the engine through its thread-safe API and the server's figures
 * through zkp_server_stats_get. At most HTTP_MAX_CONNECTIONS (64)
 * connections are open at once and one idle for 10 s is closed, so a
 * client cannot hold the endpoint's memory.
 *
 * Invariants:
 *  - No request touches the engine once zkp_engine_free has begun: the
 *    endpoint registers the engine's free hook, which waits for the
 *    request in progress and makes later ones answer 503.
 *  - The socket is bound by zkp_http_new, before the server starts, so a
 *    bad or taken http.listen stops zkpd before it serves anything.
 *
 * Threads: zkp_http_new, zkp_http_start and zkp_http_free on the thread
 * that runs the server (main's: the engine is freed there too); the
 * handlers on libmicrohttpd's thread.
 */
#ifndef ZKPD_DAEMON_HTTP_H
#define ZKPD_DAEMON_HTTP_H

#include <stdbool.h>

#include "server.h"
#include "zkpd/config.h"
#include "zkpd/error.h"

typedef struct zkp_http zkp_http;

/* Binds addr (tcp; a name, an IPv4 or an IPv6 literal) and listens; start
 * is the CLOCK_MONOTONIC second the daemon started (Status's uptime).
 * Errors: ZKP_ERR_IO (cannot resolve or bind addr: the message names the
 * address and why), ZKP_ERR_NOMEM. */
int zkp_http_new(zkp_http **ret, const zkp_address *addr, double start, zkp_error *err);
/* Starts serving srv's engine and figures on libmicrohttpd's thread. srv
 * must outlive h. With require_token (http.require_token), /metrics and
 * /status answer 401 with "WWW-Authenticate: Bearer" unless the request
 * carries "Authorization: Bearer TOKEN" with srv's token; /healthz stays
 * open for load balancers. Errors: ZKP_ERR_IO (the thread cannot start),
 * ZKP_ERR_CONFIG (require_token and srv has no token). */
int zkp_http_start(zkp_http *h, zkp_server *srv, bool require_token, zkp_error *err);
/* Stops serving (a request in progress finishes first), closes the socket
 * and frees h. NULL is a no-op. */
void zkp_http_free(zkp_http *h);

#endif
