/*
 * The libuv side of zkpd: listeners, connections, frames, timers, signals.
 *
 * Reads land in one loop-wide buffer: libuv calls alloc_cb and read_cb
 * back to back for one stream on the loop thread, so a single buffer serves
 * every connection and an idle connection costs no read buffer at all.
 *
 * TLS (tcp: listeners with tls.cert) runs OpenSSL over two memory BIOs per
 * connection: ciphertext read from the socket goes into the read BIO and
 * SSL_read's plaintext into the frame reader (through a second loop-wide
 * buffer); frames go through SSL_write and the write BIO's records to
 * uv_write. The handshake advances with each read. Pending bytes, and so
 * backpressure, count ciphertext: what the socket still has to carry.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <uv.h>

#include "cuzk_server.h"
#include "engine.h"
#include "journal.h"
#include "probe.h"
#include "server.h"
#include "session.h"
#include "sockdir.h"
#include "tls.h"
#include "wire.h"
#include "zkpd/log.h"

#define READ_BUF_BYTES (256 * 1024)
#define TICK_MS 100
/* How long a Health call to the daemon already on our socket may take. */
#define PROBE_MS 2000
#define EVENTS_PER_POLL 256
/* Plaintext passed to SSL_write at once: the write BIO then holds at most
 * this much (plus record overhead) before it is handed to uv_write. */
#define TLS_WRITE_PIECE (1u << 20)

typedef struct conn conn;

struct conn {
	union {
		uv_stream_t stream;
		uv_pipe_t pipe;
		uv_tcp_t tcp;
	} h;
	uv_timer_t idle;
	zkp_server *srv;
	zkp_session *session;
	zkp_frame_reader reader;
	SSL *ssl; /* TLS listeners only */
	conn *prev, *next;
	uint64_t pending; /* bytes queued for writing (ciphertext over TLS) */
	bool reading, closing, close_after_flush;
	bool tls_up; /* handshake finished */
	bool authed; /* full-size frames allowed (zkp_session_authenticated) */
	size_t preauth_held; /* reader bytes counted in srv->preauth_bytes */
	int handles_open; /* h and idle: freed when both closed */
	char peer[64];
};

typedef struct {
	union {
		uv_stream_t stream;
		uv_pipe_t pipe;
		uv_tcp_t tcp;
	} h;
	zkp_server *srv;
	zkp_address addr;
	bool open;
	bool tls;
} listener;

typedef struct {
	uv_write_t req;
	conn *c;
	uint8_t *frame;
	size_t len;
} write_req;

struct zkp_server {
	const zkp_config *cfg;
	uv_loop_t loop;
	uv_async_t wake;
	uv_timer_t tick, grace;
	uv_signal_t sigterm, sigint;
	zkp_engine *engine;
	zkp_journal *journal; /* NULL: server.journal_dir unset */
	zkp_cuzk_server *grpc; /* NULL: grpc.listen unset */
	zkp_session_ctx ctx;
	zkp_server_stats stats; /* loop thread */
	pthread_mutex_t shared_lock;
	zkp_server_stats shared; /* copy for other threads, refreshed by the tick */
	listener listeners[ZKP_CONFIG_MAX_LISTEN];
	size_t n_listeners;
	conn *conns;
	uint8_t *read_buf;
	uint8_t *plain_buf; /* TLS: SSL_read's output, READ_BUF_BYTES */
	SSL_CTX *tls_ctx;   /* NULL without tls.cert */
	uint8_t token_sha256[32];
	uint64_t preauth_bytes; /* buffered by unauthenticated connections (loop) */
	bool read_buf_busy;
	bool draining, finishing, finished;
	int signals;
	zkp_engine_event events[EVENTS_PER_POLL];
};

static void conn_close(conn *c);

/* ---- writing ---- */

static void maybe_resume(conn *c);

static void on_write(uv_write_t *req, int status)
{
	write_req *w = (write_req *)req;
	conn *c = w->c;
	c->pending -= w->len;
	free(w->frame);
	free(w);
	if (status < 0 && status != UV_ECANCELED && !c->closing) {
		zkp_log(ZKP_LOG_INFO, "connection %s: write failed: %s", c->peer,
			uv_strerror(status));
		conn_close(c);
		return;
	}
	if (c->closing)
		return;
	if (c->close_after_flush && c->pending == 0) {
		conn_close(c);
		return;
	}
	maybe_resume(c);
}

/* Queues bytes for the socket; takes buf whatever it returns. */
static int queue_write(conn *c, uint8_t *buf, size_t len)
{
	if (c->closing) {
		free(buf);
		return ZKP_ERR_IO;
	}
	write_req *w = malloc(sizeof(*w));
	if (!w) {
		free(buf);
		return ZKP_ERR_NOMEM;
	}
	w->c = c;
	w->frame = buf;
	w->len = len;
	uv_buf_t b = uv_buf_init((char *)buf, (unsigned)len);
	int rc = uv_write(&w->req, &c->h.stream, &b, 1, on_write);
	if (rc) {
		free(buf);
		free(w);
		zkp_log(ZKP_LOG_INFO, "connection %s: write failed: %s", c->peer, uv_strerror(rc));
		conn_close(c);
		return ZKP_ERR_IO;
	}
	c->pending += len;
	c->srv->stats.bytes_out += len;
	/* Backpressure: a client that does not read its answers stops being
	 * read from, so it cannot make the daemon queue without bound. */
	if (c->reading && c->pending > c->srv->cfg->conn_buffer_bytes) {
		uv_read_stop(&c->h.stream);
		c->reading = false;
	}
	return 0;
}

/* Hands the records OpenSSL wrote (handshake, data, alerts) to the socket.
 * A record lost would break the stream: any failure closes the connection. */
static int tls_flush(conn *c)
{
	BIO *wbio = SSL_get_wbio(c->ssl);
	size_t n;
	while (!c->closing && (n = BIO_ctrl_pending(wbio)) > 0) {
		uint8_t *buf = malloc(n);
		int got = buf ? BIO_read(wbio, buf, (int)n) : 0;
		if (got <= 0) {
			free(buf);
			zkp_log(ZKP_LOG_WARN, "connection %s: no memory for TLS records; closing it",
				c->peer);
			conn_close(c);
			return ZKP_ERR_NOMEM;
		}
		int rc = queue_write(c, buf, (size_t)got);
		if (rc) {
			conn_close(c);
			return rc;
		}
	}
	return c->closing ? ZKP_ERR_IO : 0;
}

static int tls_send(conn *c, const uint8_t *frame, size_t len)
{
	char why[512];
	for (size_t off = 0; off < len;) {
		size_t piece = len - off < TLS_WRITE_PIECE ? len - off : TLS_WRITE_PIECE, w = 0;
		ERR_clear_error();
		if (SSL_write_ex(c->ssl, frame + off, piece, &w) != 1) {
			zkp_log(ZKP_LOG_WARN, "connection %s: TLS write: %s; closing it", c->peer,
				zkp_tls_errors(why, sizeof(why)));
			conn_close(c);
			return ZKP_ERR_IO;
		}
		off += w;
		int rc = tls_flush(c);
		if (rc)
			return rc;
	}
	return 0;
}

/* zkp_session_send_fn */
static int conn_send(void *arg, uint8_t *frame, size_t len)
{
	conn *c = arg;
	int rc;
	if (c->closing) {
		free(frame);
		return ZKP_ERR_IO;
	}
	if (c->ssl) {
		/* Answers follow requests, which arrive after the handshake. */
		rc = c->tls_up ? tls_send(c, frame, len) : ZKP_ERR_IO;
		free(frame);
	} else {
		rc = queue_write(c, frame, len);
	}
	if (!rc)
		c->srv->stats.frames_out++;
	return rc;
}

/* ---- reading ---- */

/* Bytes the connection's reader holds that are not yet handed out. */
static size_t reader_held(const conn *c)
{
	return c->reader.len - c->reader.off;
}

/* Brings the unauthenticated total up to date after the reader changed;
 * once the session has authenticated, lifts its frame limit to
 * server.max_frame_bytes and stops counting it. */
static void preauth_update(conn *c)
{
	zkp_server *s = c->srv;
	s->preauth_bytes -= c->preauth_held;
	c->preauth_held = 0;
	if (c->authed)
		return;
	if (zkp_session_authenticated(c->session)) {
		c->authed = true;
		c->reader.max_frame = s->cfg->max_frame_bytes;
		return;
	}
	c->preauth_held = reader_held(c);
	s->preauth_bytes += c->preauth_held;
}

/* Feeds received bytes to the connection's reader. An unauthenticated
 * connection whose bytes would take the server's unauthenticated total past
 * server.preauth_buffer_bytes is refused instead (ZKP_ERR_LIMIT, err set),
 * so many connections that never authenticate cannot make zkpd hold more
 * than that. */
static int conn_feed(conn *c, const uint8_t *data, size_t n, zkp_error *err)
{
	zkp_server *s = c->srv;
	if (!c->authed) {
		uint64_t others = s->preauth_bytes - c->preauth_held;
		if (others + reader_held(c) + n > s->cfg->preauth_buffer_bytes) {
			zkp_error_set(err, ZKP_ERR_LIMIT,
				      "unauthenticated connections would hold more than "
				      "server.preauth_buffer_bytes (%llu bytes); authenticate "
				      "first",
				      (unsigned long long)s->cfg->preauth_buffer_bytes);
			return ZKP_ERR_LIMIT;
		}
	}
	int rc = zkp_frame_reader_feed(&c->reader, data, n);
	if (rc)
		zkp_error_set(err, ZKP_ERR_NOMEM, "no memory to receive a frame");
	preauth_update(c);
	return rc;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	conn *c = h->data;
	(void)suggested;
	*buf = uv_buf_init((char *)c->srv->read_buf, READ_BUF_BYTES);
}

/* Reads no more; closes once the answers queued so far are sent. */
static void close_when_flushed(conn *c)
{
	if (c->closing)
		return;
	uv_read_stop(&c->h.stream);
	c->reading = false;
	c->close_after_flush = true;
	if (c->pending == 0)
		conn_close(c);
}

static void frame_failed(conn *c, int code, const zkp_error *err)
{
	c->srv->stats.protocol_errors++;
	zkp_log(ZKP_LOG_WARN, "connection %s: %s; closing it", c->peer,
		zkp_error_text(err, code));
	zkp_session_frame_error(c->session, code, zkp_error_text(err, code));
	close_when_flushed(c);
}

/* Hands every complete frame in the reader to the session, until the
 * connection pauses (backpressure) or closes. Frames left in the reader
 * are handled when reading resumes (maybe_resume), not when more bytes
 * happen to arrive: a client may have sent everything already. */
static void process_frames(conn *c)
{
	while (c->reading && !c->closing) {
		const uint8_t *body;
		size_t len;
		zkp_error err = { 0 };
		int rc = zkp_frame_next(&c->reader, &body, &len, &err);
		if (rc == 0)
			return;
		if (rc < 0) {
			if (rc == ZKP_ERR_LIMIT && !c->authed) {
				zkp_error pre = { 0 };
				zkp_error_set(&pre, rc, "%s before Authenticate "
					      "(server.preauth_max_frame_bytes)",
					      zkp_error_text(&err, rc));
				err = pre;
			}
			frame_failed(c, rc, &err);
			return;
		}
		c->srv->stats.frames_in++;
		uv_timer_again(&c->idle);
		rc = zkp_session_frame(c->session, body, len);
		preauth_update(c);
		if (rc == ZKP_ERR_DENIED) {
			zkp_log(ZKP_LOG_WARN, "connection %s: not authenticated (no Authenticate "
					      "first, or a wrong token); closing it", c->peer);
			close_when_flushed(c);
			return;
		}
		if (rc) {
			c->srv->stats.protocol_errors++;
			zkp_log(ZKP_LOG_WARN, "connection %s: a frame is not an Envelope; "
					      "closing it", c->peer);
			close_when_flushed(c);
			return;
		}
	}
}

static void tls_established(conn *c)
{
	char subject[256] = "none";
	X509 *peer = SSL_get1_peer_certificate(c->ssl);
	c->tls_up = true;
	if (peer) {
		X509_NAME_oneline(X509_get_subject_name(peer), subject, sizeof(subject));
		X509_free(peer);
	}
	zkp_log(ZKP_LOG_DEBUG, "connection %s: %s, %s, client certificate %s", c->peer,
		SSL_get_version(c->ssl), SSL_get_cipher_name(c->ssl), subject);
}

/* Ciphertext from the socket: feeds OpenSSL, sends what it answers
 * (handshake records, alerts), and passes the plaintext to the frames. */
static void tls_read(conn *c, size_t n)
{
	zkp_server *s = c->srv;
	char why[512];
	if (BIO_write(SSL_get_rbio(c->ssl), s->read_buf, (int)n) != (int)n) {
		zkp_log(ZKP_LOG_WARN, "connection %s: no memory for TLS records; closing it",
			c->peer);
		conn_close(c);
		return;
	}
	for (;;) {
		size_t got = 0;
		ERR_clear_error();
		int r = SSL_read_ex(c->ssl, s->plain_buf, READ_BUF_BYTES, &got);
		if (r == 1) {
			if (!c->tls_up)
				tls_established(c);
			zkp_error err = { 0 };
			int rc = conn_feed(c, s->plain_buf, got, &err);
			if (rc) {
				frame_failed(c, rc, &err);
				return;
			}
			continue;
		}
		int e = SSL_get_error(c->ssl, r);
		if (e == SSL_ERROR_SSL)
			zkp_tls_errors(why, sizeof(why));
		if (tls_flush(c))
			return;
		if (e == SSL_ERROR_WANT_READ)
			break;
		if (e == SSL_ERROR_ZERO_RETURN) {
			/* the client's close_notify: it sends nothing more */
			close_when_flushed(c);
			return;
		}
		if (e == SSL_ERROR_SSL)
			zkp_log(ZKP_LOG_WARN, "connection %s: TLS%s: %s; closing it", c->peer,
				c->tls_up ? "" : " handshake", why);
		else
			zkp_log(ZKP_LOG_WARN, "connection %s: TLS error %d; closing it", c->peer, e);
		s->stats.protocol_errors++;
		/* the alert OpenSSL queued goes out first */
		close_when_flushed(c);
		return;
	}
	if (!c->tls_up && SSL_is_init_finished(c->ssl))
		tls_established(c);
	process_frames(c);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	conn *c = stream->data;
	(void)buf;
	if (nread == 0)
		return;
	if (nread < 0) {
		if (nread != UV_EOF)
			zkp_log(ZKP_LOG_INFO, "connection %s: %s", c->peer, uv_strerror((int)nread));
		conn_close(c);
		return;
	}
	c->srv->stats.bytes_in += (uint64_t)nread;
	if (c->ssl) {
		tls_read(c, (size_t)nread);
		return;
	}
	zkp_error err = { 0 };
	int rc = conn_feed(c, c->srv->read_buf, (size_t)nread, &err);
	if (rc) {
		frame_failed(c, rc, &err);
		return;
	}
	process_frames(c);
}

static void maybe_resume(conn *c)
{
	if (c->reading || c->closing || c->close_after_flush)
		return;
	if (c->pending <= c->srv->cfg->conn_buffer_bytes / 2) {
		if (uv_read_start(&c->h.stream, on_alloc, on_read))
			return;
		c->reading = true;
		process_frames(c);
	}
}

/* ---- connection lifetime ---- */

static void on_conn_handle_closed(uv_handle_t *h)
{
	conn *c = h->data;
	if (--c->handles_open > 0)
		return;
	zkp_session_free(c->session);
	zkp_frame_reader_release(&c->reader);
	SSL_free(c->ssl);
	free(c);
}

/* uv_close of a stream, telling ThreadSanitizer that the descriptor is
 * closed. libuv closes it with a raw close system call, which
 * ThreadSanitizer does not intercept; untold, it pairs the next file opened
 * under the same number on another thread (a key cache being written) with
 * the old connection's accept4 or epoll_ctl and reports a race. libuv built
 * with ThreadSanitizer makes the same call around its own close; ours comes
 * just after uv_close, which has closed the descriptor by then. */
#if defined(__SANITIZE_THREAD__)
void __sanitizer_syscall_pre_impl_close(long fd);
#endif
static void close_stream(uv_stream_t *st, uv_close_cb cb)
{
	uv_os_fd_t fd = -1;
	if (uv_fileno((uv_handle_t *)st, &fd))
		fd = -1;
	uv_close((uv_handle_t *)st, cb);
#if defined(__SANITIZE_THREAD__)
	if (fd >= 0)
		__sanitizer_syscall_pre_impl_close(fd);
#else
	(void)fd;
#endif
}

static void conn_close(conn *c)
{
	if (c->closing)
		return;
	c->closing = true;
	zkp_server *s = c->srv;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->stats.connections--;
	s->preauth_bytes -= c->preauth_held;
	c->preauth_held = 0;
	uv_timer_stop(&c->idle);
	uv_close((uv_handle_t *)&c->idle, on_conn_handle_closed);
	close_stream(&c->h.stream, on_conn_handle_closed);
}

static void on_idle(uv_timer_t *t)
{
	conn *c = t->data;
	if (zkp_session_busy(c->session)) {
		uv_timer_again(t);
		return;
	}
	zkp_log(ZKP_LOG_INFO, "connection %s: idle for %llu ms; closing it", c->peer,
		(unsigned long long)c->srv->cfg->idle_timeout_ms);
	conn_close(c);
}

static void on_connection(uv_stream_t *server, int status)
{
	listener *l = server->data;
	zkp_server *s = l->srv;
	if (status < 0) {
		zkp_log(ZKP_LOG_WARN, "accept on %s: %s",
			l->addr.kind == ZKP_ADDR_UNIX ? l->addr.path : l->addr.host,
			uv_strerror(status));
		return;
	}
	conn *c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->srv = s;
	if (l->addr.kind == ZKP_ADDR_UNIX)
		uv_pipe_init(&s->loop, &c->h.pipe, 0);
	else
		uv_tcp_init(&s->loop, &c->h.tcp);
	uv_timer_init(&s->loop, &c->idle);
	c->h.stream.data = c;
	c->idle.data = c;
	c->handles_open = 2;
	c->session = zkp_session_new(&s->ctx, conn_send, c);
	/* Until it authenticates, a connection may send only frames as small
	 * as an Authenticate call needs (preauth_update lifts the limit). */
	c->authed = !s->ctx.token_sha256;
	zkp_frame_reader_init(&c->reader,
			      c->authed || s->cfg->preauth_max_frame_bytes > s->cfg->max_frame_bytes ?
				      s->cfg->max_frame_bytes :
				      s->cfg->preauth_max_frame_bytes);
	/* Link first: conn_close unlinks. */
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->stats.connections++;
	if (uv_accept(server, &c->h.stream) || !c->session) {
		conn_close(c);
		return;
	}
	if (l->addr.kind == ZKP_ADDR_TCP) {
		struct sockaddr_storage ss;
		int len = sizeof(ss);
		char host[48] = "?";
		uv_tcp_nodelay(&c->h.tcp, 1);
		if (!uv_tcp_getpeername(&c->h.tcp, (struct sockaddr *)&ss, &len)) {
			if (ss.ss_family == AF_INET6)
				uv_ip6_name((struct sockaddr_in6 *)&ss, host, sizeof(host));
			else
				uv_ip4_name((struct sockaddr_in *)&ss, host, sizeof(host));
		}
		snprintf(c->peer, sizeof(c->peer), "tcp:%s#%llu", host,
			 (unsigned long long)s->stats.connections_total + 1);
	} else {
		snprintf(c->peer, sizeof(c->peer), "unix#%llu",
			 (unsigned long long)s->stats.connections_total + 1);
	}
	s->stats.connections_total++;
	if (l->tls) {
		BIO *rbio = BIO_new(BIO_s_mem()), *wbio = BIO_new(BIO_s_mem());
		c->ssl = SSL_new(s->tls_ctx);
		if (!c->ssl || !rbio || !wbio) {
			BIO_free(rbio);
			BIO_free(wbio);
			zkp_log(ZKP_LOG_WARN, "connection %s: no memory for TLS; closing it",
				c->peer);
			conn_close(c);
			return;
		}
		SSL_set_bio(c->ssl, rbio, wbio);
		SSL_set_accept_state(c->ssl);
	}
	if (s->stats.connections > s->cfg->max_connections && c->ssl) {
		/* No answer can be sent before a handshake. */
		s->stats.connections_refused++;
		conn_close(c);
		return;
	}
	if (s->stats.connections > s->cfg->max_connections) {
		zkp_error err = { 0 };
		s->stats.connections_refused++;
		zkp_error_set(&err, ZKP_ERR_LIMIT, "server.max_connections (%u) connections "
			      "are open; try again later", s->cfg->max_connections);
		zkp_session_frame_error(c->session, ZKP_ERR_LIMIT, err.msg);
		c->close_after_flush = true;
		if (c->pending == 0)
			conn_close(c);
		return;
	}
	if (s->cfg->idle_timeout_ms)
		uv_timer_start(&c->idle, on_idle, s->cfg->idle_timeout_ms,
			       s->cfg->idle_timeout_ms);
	if (uv_read_start(&c->h.stream, on_alloc, on_read)) {
		conn_close(c);
		return;
	}
	c->reading = true;
}

/* ---- listeners ---- */

/* Makes the socket's directory when it is ours to make (sockdir.h);
 * refuses to take over the socket of a running daemon; removes a stale
 * socket file left by one that died. */
static int prepare_unix_path(const zkp_config *cfg, const char *path, zkp_error *err)
{
	struct stat st;
	char dir[sizeof(((zkp_address *)0)->path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		int rc = zkp_sockdir_make(cfg, path, err);
		if (rc)
			return rc;
		/* The default directory may be in a shared /tmp, where another
		 * user could have made it first to take over the socket. */
		char def[sizeof(dir)];
		zkp_address_default_dir(def, sizeof(def));
		zkp_error why = { 0 };
		if (!strcmp(dir, def) && zkp_address_check_private_dir(dir, &why))
			return zkp_error_set(err, ZKP_ERR_IO,
					     "the default socket's directory is unsafe: %s; remove "
					     "it or set server.listen", why.msg);
	}
	if (lstat(path, &st))
		return 0;
	if (!S_ISSOCK(st.st_mode))
		return zkp_error_set(err, ZKP_ERR_IO, "%s exists and is not a socket", path);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return zkp_error_set(err, ZKP_ERR_IO, "socket: %s", strerror(errno));
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	char who[160];
	if (live && zkp_probe_unix(path, PROBE_MS, who, sizeof(who)))
		return zkp_error_set(err, ZKP_ERR_IO, "%s is serving on unix:%s", who, path);
	if (live)
		return zkp_error_set(err, ZKP_ERR_IO, "another daemon is serving unix:%s", path);
	if (unlink(path))
		return zkp_error_set(err, ZKP_ERR_IO, "cannot remove stale socket %s: %s", path,
				     strerror(errno));
	zkp_log(ZKP_LOG_INFO, "removed stale socket %s", path);
	return 0;
}

/* Gives the socket file server.socket_owner and server.socket_group. */
static int chown_socket(zkp_server *s, const char *path, zkp_error *err)
{
	unsigned uid = (unsigned)-1, gid = (unsigned)-1;
	int rc = 0;
	if (s->cfg->socket_owner)
		rc = zkp_socket_id(s->cfg->socket_owner, false, &uid, err);
	if (!rc && s->cfg->socket_group)
		rc = zkp_socket_id(s->cfg->socket_group, true, &gid, err);
	if (rc)
		return rc;
	if ((uid != (unsigned)-1 || gid != (unsigned)-1) && chown(path, uid, gid))
		return zkp_error_set(err, ZKP_ERR_IO, "cannot give unix:%s owner %s, group %s: %s",
				     path, s->cfg->socket_owner ? s->cfg->socket_owner : "unchanged",
				     s->cfg->socket_group ? s->cfg->socket_group : "unchanged",
				     strerror(errno));
	return 0;
}

static int listen_on(zkp_server *s, listener *l, zkp_error *err)
{
	int rc;
	l->srv = s;
	if (l->addr.kind == ZKP_ADDR_UNIX) {
		rc = prepare_unix_path(s->cfg, l->addr.path, err);
		if (rc)
			return rc;
		uv_pipe_init(&s->loop, &l->h.pipe, 0);
		l->open = true;
		l->h.stream.data = l;
		rc = uv_pipe_bind(&l->h.pipe, l->addr.path);
		if (!rc && chmod(l->addr.path, s->cfg->socket_mode))
			rc = uv_translate_sys_error(errno);
		if (!rc) {
			int crc = chown_socket(s, l->addr.path, err);
			if (crc)
				return crc;
		}
	} else {
		struct addrinfo hints, *ai = NULL;
		char port[8];
		memset(&hints, 0, sizeof(hints));
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE;
		snprintf(port, sizeof(port), "%u", l->addr.port);
		int gai = getaddrinfo(l->addr.host, port, &hints, &ai);
		if (gai)
			return zkp_error_set(err, ZKP_ERR_IO, "tcp:%s:%u: %s", l->addr.host,
					     l->addr.port, gai_strerror(gai));
		uv_tcp_init(&s->loop, &l->h.tcp);
		l->open = true;
		l->h.stream.data = l;
		rc = uv_tcp_bind(&l->h.tcp, ai->ai_addr, 0);
		freeaddrinfo(ai);
	}
	if (!rc)
		rc = uv_listen(&l->h.stream, 511, on_connection);
	if (rc) {
		if (l->addr.kind == ZKP_ADDR_UNIX)
			return zkp_error_set(err, ZKP_ERR_IO, "cannot listen on unix:%s: %s",
					     l->addr.path, uv_strerror(rc));
		return zkp_error_set(err, ZKP_ERR_IO, "cannot listen on tcp:%s:%u: %s",
				     l->addr.host, l->addr.port, uv_strerror(rc));
	}
	if (l->addr.kind == ZKP_ADDR_UNIX)
		zkp_log(ZKP_LOG_INFO, "listening on unix:%s (mode %04o%s%s%s%s)", l->addr.path,
			s->cfg->socket_mode, s->cfg->socket_owner ? ", owner " : "",
			s->cfg->socket_owner ? s->cfg->socket_owner : "",
			s->cfg->socket_group ? ", group " : "",
			s->cfg->socket_group ? s->cfg->socket_group : "");
	else if (l->tls)
		zkp_log(ZKP_LOG_INFO, "listening on tcp:%s:%u (TLS%s)", l->addr.host, l->addr.port,
			s->cfg->tls_client_ca ? ", client certificates required" : "");
	else
		zkp_log(ZKP_LOG_WARN, "listening on tcp:%s:%u in PLAINTEXT (server.tcp_plaintext)",
			l->addr.host, l->addr.port);
	return 0;
}

static void close_listeners(zkp_server *s)
{
	for (size_t i = 0; i < s->n_listeners; i++) {
		listener *l = &s->listeners[i];
		if (!l->open)
			continue;
		l->open = false;
		close_stream(&l->h.stream, NULL);
		if (l->addr.kind == ZKP_ADDR_UNIX)
			unlink(l->addr.path);
	}
}

/* ---- engine events and shutdown ---- */

/* Called on engine threads. */
static void engine_notify(void *arg)
{
	zkp_server *s = arg;
	uv_async_send(&s->wake);
}

static void finish(zkp_server *s);

static void deliver(void *arg, const zkp_engine_event *ev)
{
	zkp_server *s = arg;
	for (conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		zkp_session_event(c->session, ev);
	}
	zkp_cuzk_server_event(s->grpc, ev);
}

/* The journal's writer thread has finished work. */
static void journal_wake(void *arg)
{
	zkp_server *s = arg;
	uv_async_send(&s->wake);
}

static void drain_events(zkp_server *s)
{
	size_t n;
	if (s->grpc)
		zkp_cuzk_server_stats_get(s->grpc, &s->stats);
	zkp_cuzk_server_poll(s->grpc);
	zkp_journal_poll(s->journal, s->engine);
	while ((n = zkp_engine_poll(s->engine, s->events, EVENTS_PER_POLL)) > 0) {
		for (size_t i = 0; i < n; i++) {
			/* A result reaches the journal's disk before any client
			 * sees it: the journal holds the event until then. */
			if (!zkp_journal_job_event(s->journal, s->engine, &s->events[i],
						   s->draining))
				deliver(s, &s->events[i]);
		}
	}
	if (s->draining && !s->finishing && zkp_engine_running(s->engine) == 0 &&
	    zkp_journal_idle(s->journal))
		finish(s);
}

static void on_wake(uv_async_t *a)
{
	drain_events(a->data);
}

static void on_tick(uv_timer_t *t)
{
	zkp_server *s = t->data;
	double now = zkp_session_now();
	if (s->grpc)
		zkp_cuzk_server_stats_get(s->grpc, &s->stats);
	pthread_mutex_lock(&s->shared_lock);
	s->shared = s->stats;
	pthread_mutex_unlock(&s->shared_lock);
	for (conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		zkp_session_tick(c->session, now);
	}
	zkp_cuzk_server_tick(s->grpc, now);
	drain_events(s);
}

static void on_shutdown_done(uv_shutdown_t *req, int status)
{
	conn *c = req->data;
	(void)status;
	free(req);
	conn_close(c);
}

/* No job runs any more: answers went out with the last events; flush every
 * connection, then let the loop end. */
static void finish(zkp_server *s)
{
	s->finishing = true;
	zkp_log(ZKP_LOG_INFO, "no job running; closing %u connection(s)", s->stats.connections);
	for (conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		uv_shutdown_t *req = malloc(sizeof(*req));
		if (c->reading) {
			uv_read_stop(&c->h.stream);
			c->reading = false;
		}
		if (c->ssl && c->tls_up) {
			ERR_clear_error();
			SSL_shutdown(c->ssl); /* queues close_notify */
			if (tls_flush(c)) {
				free(req);
				continue;
			}
		}
		if (!req || uv_shutdown(req, &c->h.stream, on_shutdown_done)) {
			free(req);
			conn_close(c);
			continue;
		}
		req->data = c;
	}
	uv_timer_stop(&s->grace);
	uv_timer_stop(&s->tick);
	uv_close((uv_handle_t *)&s->grace, NULL);
	uv_close((uv_handle_t *)&s->tick, NULL);
	uv_close((uv_handle_t *)&s->sigterm, NULL);
	uv_close((uv_handle_t *)&s->sigint, NULL);
	/* The wake handle stays open until the engine is freed (its threads
	 * may still notify while they stop); run() closes it afterwards. */
	uv_unref((uv_handle_t *)&s->wake);
	s->finished = true;
}

static void on_grace(uv_timer_t *t)
{
	zkp_server *s = t->data;
	size_t n = zkp_engine_running(s->engine);
	if (n)
		zkp_log(ZKP_LOG_WARN, "shutdown grace of %llu ms over: cancelling %zu running job(s)",
			(unsigned long long)s->cfg->shutdown_grace_ms, n);
	zkp_engine_cancel_all(s->engine);
	drain_events(s);
}

static void on_signal(uv_signal_t *h, int signum)
{
	zkp_server *s = h->data;
	s->signals++;
	if (s->signals > 1) {
		zkp_log(ZKP_LOG_WARN, "signal %d again: cancelling running jobs now", signum);
		zkp_engine_cancel_all(s->engine);
		drain_events(s);
		return;
	}
	zkp_log(ZKP_LOG_INFO, "signal %d: draining (no new jobs; %zu running, grace %llu ms)",
		signum, zkp_engine_running(s->engine),
		(unsigned long long)s->cfg->shutdown_grace_ms);
	s->draining = true;
	s->stats.accepting = false;
	close_listeners(s);
	zkp_cuzk_server_drain(s->grpc);
	zkp_engine_drain(s->engine);
	uv_timer_start(&s->grace, on_grace, s->cfg->shutdown_grace_ms, 0);
	drain_events(s);
}

/* ---- lifetime ---- */

/* TLS context, the plaintext-TCP rule (again here: --listen bypasses the
 * config file's check) and the bearer token. */
static int setup_security(zkp_server *s, zkp_error *err)
{
	const zkp_config *cfg = s->cfg;
	int rc;
	if (cfg->tls_cert && cfg->tls_key) {
		rc = zkp_tls_server_ctx(&s->tls_ctx, cfg->tls_cert, cfg->tls_key,
					cfg->tls_client_ca, err);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < cfg->n_listen && !s->tls_ctx && !cfg->tcp_plaintext; i++)
		if (cfg->listen[i].kind == ZKP_ADDR_TCP)
			return zkp_error_set(err, ZKP_ERR_CONFIG, "tcp:%s:%u without TLS: set "
					     "tls.cert and tls.key, or server.tcp_plaintext = true "
					     "for plaintext TCP", cfg->listen[i].host,
					     cfg->listen[i].port);
	if (!cfg->token_file)
		return 0;
	char *token = NULL;
	struct stat st;
	rc = zkp_token_read(&token, cfg->token_file, err);
	if (rc)
		return rc == ZKP_ERR_NOMEM ? rc : ZKP_ERR_CONFIG;
	if (!stat(cfg->token_file, &st) && (st.st_mode & 077))
		zkp_log(ZKP_LOG_WARN, "server.token_file %s is readable by others (mode %04o); "
			"0600 keeps the token to zkpd's user", cfg->token_file,
			(unsigned)(st.st_mode & 07777));
	unsigned int n = 0;
	int ok = EVP_Digest(token, strlen(token), s->token_sha256, &n, EVP_sha256(), NULL);
	OPENSSL_cleanse(token, strlen(token));
	free(token);
	if (!ok || n != sizeof(s->token_sha256))
		return zkp_error_set(err, ZKP_ERR_NOMEM, "cannot hash the bearer token");
	s->ctx.token_sha256 = s->token_sha256;
	zkp_log(ZKP_LOG_INFO, "every connection must authenticate (server.token_file %s)",
		cfg->token_file);
	return 0;
}

int zkp_server_new(zkp_server **ret, const zkp_config *cfg, zkp_error *err)
{
	zkp_server *s = calloc(1, sizeof(*s));
	int rc;
	*ret = NULL;
	if (!s)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the server");
	s->cfg = cfg;
	pthread_mutex_init(&s->shared_lock, NULL);
	s->read_buf = malloc(READ_BUF_BYTES);
	s->plain_buf = malloc(READ_BUF_BYTES);
	if (!s->read_buf || !s->plain_buf || uv_loop_init(&s->loop)) {
		pthread_mutex_destroy(&s->shared_lock);
		free(s->read_buf);
		free(s->plain_buf);
		free(s);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "cannot set up the event loop");
	}
	uv_async_init(&s->loop, &s->wake, on_wake);
	s->wake.data = s;
	uv_timer_init(&s->loop, &s->tick);
	uv_timer_init(&s->loop, &s->grace);
	uv_signal_init(&s->loop, &s->sigterm);
	uv_signal_init(&s->loop, &s->sigint);
	s->tick.data = s->grace.data = s->sigterm.data = s->sigint.data = s;
	s->stats.accepting = true;
	s->shared = s->stats;
	s->ctx.cfg = cfg;
	s->ctx.stats = &s->stats;
	s->ctx.start = zkp_session_now();

	rc = setup_security(s, err);
	if (rc)
		goto fail;
	/* Bound before anything loads: a daemon that cannot take its address
	 * exits at once, not after a key of many GiB has been read. No
	 * connection is accepted before the loop runs. */
	for (size_t i = 0; i < cfg->n_listen; i++) {
		s->listeners[i].addr = cfg->listen[i];
		s->listeners[i].tls = cfg->listen[i].kind == ZKP_ADDR_TCP && s->tls_ctx;
		s->n_listeners = i + 1;
		rc = listen_on(s, &s->listeners[i], err);
		if (rc)
			goto fail;
	}
	rc = zkp_engine_new(&s->engine, cfg, engine_notify, s, err);
	if (rc)
		goto fail;
	s->ctx.engine = s->engine;
	/* Journaled jobs are back before the first client can ask for them. */
	if (cfg->journal_dir) {
		rc = zkp_journal_open(&s->journal, cfg->journal_dir, cfg->job_history, err);
		if (!rc)
			rc = zkp_journal_restore(s->journal, s->engine, err);
		if (!rc)
			rc = zkp_journal_start(s->journal, journal_wake, deliver, s, err);
		if (rc)
			goto fail;
		s->ctx.journal = s->journal;
	}
	if (zkp_address_set(&cfg->grpc_listen)) {
		rc = cfg->grpc_listen.kind == ZKP_ADDR_UNIX ?
			     zkp_sockdir_make(cfg, cfg->grpc_listen.path, err) : 0;
		if (!rc)
			rc = zkp_cuzk_server_new(&s->grpc, cfg, &s->ctx, engine_notify, s, err);
		/* Its socket is owned like the framed ones: Curio's user must
		 * be able to open it. */
		if (!rc && cfg->grpc_listen.kind == ZKP_ADDR_UNIX)
			rc = chown_socket(s, cfg->grpc_listen.path, err);
		if (rc)
			goto fail;
	}
	zkp_engine_start_loads(s->engine);
	uv_timer_start(&s->tick, on_tick, TICK_MS, TICK_MS);
	uv_signal_start(&s->sigterm, on_signal, SIGTERM);
	uv_signal_start(&s->sigint, on_signal, SIGINT);
	*ret = s;
	return 0;
fail:
	close_listeners(s);
	zkp_cuzk_server_free(s->grpc);
	zkp_engine_free(s->engine);
	s->engine = NULL;
	zkp_journal_free(s->journal);
	uv_close((uv_handle_t *)&s->wake, NULL);
	uv_close((uv_handle_t *)&s->tick, NULL);
	uv_close((uv_handle_t *)&s->grace, NULL);
	uv_close((uv_handle_t *)&s->sigterm, NULL);
	uv_close((uv_handle_t *)&s->sigint, NULL);
	uv_run(&s->loop, UV_RUN_DEFAULT);
	uv_loop_close(&s->loop);
	pthread_mutex_destroy(&s->shared_lock);
	SSL_CTX_free(s->tls_ctx);
	free(s->read_buf);
	free(s->plain_buf);
	free(s);
	return rc;
}

int zkp_server_run(zkp_server *s)
{
	uv_run(&s->loop, UV_RUN_DEFAULT);
	/* Every connection is closed; the engine's threads are idle. Free the
	 * gRPC front end's sessions, then the engine, while the wake handle
	 * still exists; then close that too. */
	zkp_cuzk_server_free(s->grpc);
	s->grpc = NULL;
	zkp_engine_free(s->engine);
	s->engine = NULL;
	uv_close((uv_handle_t *)&s->wake, NULL);
	uv_run(&s->loop, UV_RUN_DEFAULT);
	return s->finished ? 0 : 1;
}

void zkp_server_free(zkp_server *s)
{
	if (!s)
		return;
	zkp_cuzk_server_free(s->grpc);
	if (s->engine) {
		zkp_engine_free(s->engine);
		s->engine = NULL;
	}
	zkp_journal_free(s->journal);
	if (uv_loop_close(&s->loop))
		zkp_log(ZKP_LOG_WARN, "event loop closed with handles open");
	pthread_mutex_destroy(&s->shared_lock);
	SSL_CTX_free(s->tls_ctx);
	free(s->read_buf);
	free(s->plain_buf);
	free(s);
}

const uint8_t *zkp_server_token_sha256(const zkp_server *s)
{
	return s->ctx.token_sha256;
}

zkp_engine *zkp_server_engine(zkp_server *s)
{
	return s->engine;
}

void zkp_server_stats_get(zkp_server *s, zkp_server_stats *ret)
{
	pthread_mutex_lock(&s->shared_lock);
	*ret = s->shared;
	pthread_mutex_unlock(&s->shared_lock);
}
