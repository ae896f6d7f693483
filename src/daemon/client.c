/*
 * The blocking client: one socket, one frame reader. Sends go through
 * send(MSG_NOSIGNAL) so a daemon that went away is an error, not SIGPIPE;
 * waits go through poll() so a timeout covers the whole receive.
 *
 * Over TLS the socket is non-blocking after connect: OpenSSL reads and
 * writes whole records, and a record that arrives in pieces must not hold
 * a receive past its deadline, so every WANT_READ or WANT_WRITE becomes a
 * poll() with what is left of the deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "tls.h"
#include "wire.h"
#include "zkpd/config.h"

#define RECV_CHUNK (64u << 10)
#define TLS_HANDSHAKE_MS 30000

struct zkp_client {
	int fd;
	uint64_t next_id;
	zkp_frame_reader rd;
	uint8_t *chunk; /* RECV_CHUNK bytes */
	SSL_CTX *tls_ctx; /* TLS: both set, else both NULL */
	SSL *ssl;
	char address[300];
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* connect(2), finishing a connect that a signal interrupted: the kernel
 * goes on with it, and its outcome is read back with SO_ERROR. */
static int connect_fd(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINTR)
		return -1;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int rc;
	while ((rc = poll(&p, 1, -1)) < 0 && errno == EINTR)
		;
	if (rc < 0)
		return -1;
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl))
		return -1;
	if (soerr) {
		errno = soerr;
		return -1;
	}
	return 0;
}

static int connect_unix(zkp_client *c, const zkp_address *a, zkp_error *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strlen(a->path);
	if (n >= sizeof(sun.sun_path))
		return zkp_error_set(err, ZKP_ERR_CONFIG, "%s: socket path too long",
				     c->address);
	memcpy(sun.sun_path, a->path, n + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: socket: %s", c->address,
				     strerror(errno));
	if (connect_fd(c->fd, (const struct sockaddr *)&sun, sizeof(sun)))
		return zkp_error_set(err, ZKP_ERR_IO, "%s: connect: %s", c->address,
				     strerror(errno));
	return 0;
}

static int connect_tcp(zkp_client *c, const zkp_address *a, zkp_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char port[8];
	snprintf(port, sizeof(port), "%u", (unsigned)a->port);
	int rc = getaddrinfo(a->host, port, &hints, &res);
	if (rc)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot resolve %s: %s", c->address,
				     a->host, rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	int saved = ECONNREFUSED;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		if (connect_fd(fd, ai->ai_addr, ai->ai_addrlen)) {
			saved = errno;
			close(fd);
			continue;
		}
		/* calls are small request/answer exchanges: no Nagle delay */
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->fd = fd;
		break;
	}
	freeaddrinfo(res);
	if (c->fd < 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: connect: %s", c->address,
				     strerror(saved));
	return 0;
}

/* ---- plain socket I/O ---- */

static int send_fd(zkp_client *c, const void *data, size_t n, zkp_error *err)
{
	const uint8_t *p = data;
	while (n > 0) {
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd pf = { .fd = c->fd, .events = POLLOUT };
				if (poll(&pf, 1, -1) < 0 && errno != EINTR)
					return zkp_error_set(err, ZKP_ERR_IO, "%s: poll: %s",
							     c->address, strerror(errno));
				continue;
			}
			if (errno == EPIPE || errno == ECONNRESET)
				return zkp_error_set(err, ZKP_ERR_IO, "%s: connection closed",
						     c->address);
			return zkp_error_set(err, ZKP_ERR_IO, "%s: send: %s", c->address,
					     strerror(errno));
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Waits until deadline (-1: none) for bytes and reads what is there into
 * c->chunk: returns the count (at least 1). timeout_ms only names the wait
 * in the message. Errors: ZKP_ERR_TIMEOUT, ZKP_ERR_IO ("connection closed"
 * for an orderly end or a reset). */
static int recv_some(zkp_client *c, int64_t deadline, int timeout_ms, size_t *got,
		     zkp_error *err)
{
	for (;;) {
		int wait = -1;
		if (deadline >= 0) {
			int64_t left = deadline - now_ms();
			wait = left > 0 ? (int)left : 0;
		}
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };
		int rc = poll(&pf, 1, wait);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return zkp_error_set(err, ZKP_ERR_IO, "%s: poll: %s", c->address,
					     strerror(errno));
		}
		if (rc == 0)
			return zkp_error_set(err, ZKP_ERR_TIMEOUT, "%s: no answer within %d ms",
					     c->address, timeout_ms);
		ssize_t n = recv(c->fd, c->chunk, RECV_CHUNK, 0);
		if (n == 0)
			return zkp_error_set(err, ZKP_ERR_IO, "%s: connection closed", c->address);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			if (errno == ECONNRESET)
				return zkp_error_set(err, ZKP_ERR_IO, "%s: connection closed",
						     c->address);
			return zkp_error_set(err, ZKP_ERR_IO, "%s: recv: %s", c->address,
					     strerror(errno));
		}
		*got = (size_t)n;
		return 0;
	}
}

/* ---- TLS over the socket ----
 *
 * OpenSSL works on two memory BIOs; the bytes move through send_fd and
 * recv_some, so a daemon that went away is an error (never SIGPIPE) and
 * every wait honours its deadline. */

/* Sends the records OpenSSL has produced. */
static int tls_flush(zkp_client *c, zkp_error *err)
{
	BIO *wbio = SSL_get_wbio(c->ssl);
	int n;
	while ((n = BIO_read(wbio, c->chunk, RECV_CHUNK)) > 0) {
		int rc = send_fd(c, c->chunk, (size_t)n, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Receives more ciphertext for OpenSSL. */
static int tls_fill(zkp_client *c, int64_t deadline, int timeout_ms, zkp_error *err)
{
	size_t n;
	int rc = recv_some(c, deadline, timeout_ms, &n, err);
	if (rc)
		return rc;
	if (BIO_write(SSL_get_rbio(c->ssl), c->chunk, (int)n) != (int)n)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory for TLS", c->address);
	return 0;
}

/* A failed SSL call as a zkpd error (after what needed sending was sent). */
static int tls_failed(zkp_client *c, int ret, const char *what, zkp_error *err)
{
	char why[512];
	int e = SSL_get_error(c->ssl, ret);
	if (e == SSL_ERROR_ZERO_RETURN)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: connection closed", c->address);
	long verify = SSL_get_verify_result(c->ssl);
	if (verify != X509_V_OK)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: TLS %s: the server's certificate "
				     "is not trusted: %s", c->address, what,
				     X509_verify_cert_error_string(verify));
	return zkp_error_set(err, ZKP_ERR_IO, "%s: TLS %s: %s", c->address, what,
			     zkp_tls_errors(why, sizeof(why)));
}

static int tls_handshake(zkp_client *c, const char *host, const zkp_client_tls *o,
			 zkp_error *err)
{
	int rc = zkp_tls_client_ctx(&c->tls_ctx, o->ca_file, o->cert_file, o->key_file, err);
	if (rc)
		return rc;
	c->ssl = SSL_new(c->tls_ctx);
	BIO *rbio = BIO_new(BIO_s_mem()), *wbio = BIO_new(BIO_s_mem());
	if (!c->ssl || !rbio || !wbio) {
		BIO_free(rbio);
		BIO_free(wbio);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory for TLS", c->address);
	}
	SSL_set_bio(c->ssl, rbio, wbio);
	SSL_set_connect_state(c->ssl);
	rc = zkp_tls_client_expect(c->ssl, o->server_name ? o->server_name : host, err);
	if (rc)
		return rc;
	int timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : TLS_HANDSHAKE_MS;
	int64_t deadline = now_ms() + timeout_ms;
	for (;;) {
		ERR_clear_error();
		int r = SSL_do_handshake(c->ssl);
		/* the alert of a failed handshake goes out too */
		int frc = tls_flush(c, err);
		if (r == 1)
			return frc;
		if (SSL_get_error(c->ssl, r) != SSL_ERROR_WANT_READ)
			return tls_failed(c, r, "handshake", err);
		if (frc)
			return frc;
		rc = tls_fill(c, deadline, timeout_ms, err);
		if (rc == ZKP_ERR_TIMEOUT)
			return zkp_error_set(err, ZKP_ERR_IO, "%s: TLS handshake: no answer within "
					     "%d ms (is it a TLS port?)", c->address, timeout_ms);
		if (rc)
			return rc;
	}
}

/* ---- the client ---- */

static int client_open(zkp_client **ret, const char *address, uint64_t max_frame,
		       const zkp_client_tls *tls, zkp_error *err)
{
	zkp_address a;
	int rc = zkp_address_parse(&a, address, err);
	if (rc)
		return rc;
	if (tls && a.kind != ZKP_ADDR_TCP)
		return zkp_error_set(err, ZKP_ERR_CONFIG, "%s: TLS needs a tcp:HOST:PORT address",
				     address);
	zkp_client *c = calloc(1, sizeof(*c));
	if (!c)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory");
	c->fd = -1;
	zkp_frame_reader_init(&c->rd, max_frame);
	snprintf(c->address, sizeof(c->address), "%s", address);
	c->chunk = malloc(RECV_CHUNK);
	if (!c->chunk) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = a.kind == ZKP_ADDR_UNIX ? connect_unix(c, &a, err) : connect_tcp(c, &a, err);
	if (!rc && tls)
		rc = tls_handshake(c, a.host, tls, err);
out:
	if (rc) {
		zkp_client_close(c);
		return rc;
	}
	*ret = c;
	return 0;
}

int zkp_client_connect(zkp_client **ret, const char *address, uint64_t max_frame,
		       zkp_error *err)
{
	return client_open(ret, address, max_frame, NULL, err);
}

int zkp_client_connect_tls(zkp_client **ret, const char *address, uint64_t max_frame,
			   const zkp_client_tls *tls, zkp_error *err)
{
	return client_open(ret, address, max_frame, tls, err);
}

void zkp_client_close(zkp_client *c)
{
	if (!c)
		return;
	SSL_free(c->ssl);
	SSL_CTX_free(c->tls_ctx);
	if (c->fd >= 0)
		close(c->fd);
	zkp_frame_reader_release(&c->rd);
	free(c->chunk);
	free(c);
}

uint64_t zkp_client_next_call_id(zkp_client *c)
{
	return ++c->next_id;
}

int zkp_client_fd(const zkp_client *c)
{
	return c->fd;
}

int zkp_client_send_raw(zkp_client *c, const void *data, size_t n, zkp_error *err)
{
	if (!c->ssl)
		return send_fd(c, data, n, err);
	/* In pieces: the write BIO holds one piece's records at a time. */
	const uint8_t *p = data;
	while (n > 0) {
		size_t piece = n < (1u << 20) ? n : (1u << 20), w = 0;
		ERR_clear_error();
		int r = SSL_write_ex(c->ssl, p, piece, &w);
		int rc = tls_flush(c, err);
		if (r != 1)
			return tls_failed(c, r, "send", err);
		if (rc)
			return rc;
		p += w;
		n -= w;
	}
	return 0;
}

int zkp_client_send(zkp_client *c, const Zkpd__V1__Envelope *env, zkp_error *err)
{
	uint8_t *frame = NULL;
	size_t len = 0;
	int rc = zkp_wire_pack(env, &frame, &len);
	if (rc)
		return zkp_error_set(err, rc, "%s: cannot pack a frame: %s", c->address,
				     zkp_strerror(rc));
	rc = zkp_client_send_raw(c, frame, len, err);
	free(frame);
	return rc;
}

int zkp_client_recv(zkp_client *c, Zkpd__V1__Envelope **env, int timeout_ms, zkp_error *err)
{
	int64_t deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : -1;
	for (;;) {
		const uint8_t *body;
		size_t len;
		int rc = zkp_frame_next(&c->rd, &body, &len, err);
		if (rc < 0)
			return rc;
		if (rc == 1)
			return zkp_wire_unpack(env, body, len, err);

		if (c->ssl) {
			uint8_t plain[16384];
			size_t n = 0;
			ERR_clear_error();
			int r = SSL_read_ex(c->ssl, plain, sizeof(plain), &n);
			if (r == 1) {
				rc = zkp_frame_reader_feed(&c->rd, plain, n);
				if (rc)
					return zkp_error_set(err, rc, "%s: out of memory for a frame",
							     c->address);
				continue;
			}
			/* a post-handshake message may want an answer */
			int frc = tls_flush(c, err);
			if (SSL_get_error(c->ssl, r) != SSL_ERROR_WANT_READ)
				return tls_failed(c, r, "receive", err);
			if (frc)
				return frc;
			rc = tls_fill(c, deadline, timeout_ms, err);
			if (rc)
				return rc;
			continue;
		}
		size_t n;
		rc = recv_some(c, deadline, timeout_ms, &n, err);
		if (rc)
			return rc;
		rc = zkp_frame_reader_feed(&c->rd, c->chunk, n);
		if (rc)
			return zkp_error_set(err, rc, "%s: out of memory for a frame", c->address);
	}
}

int zkp_client_authenticate(zkp_client *c, const char *token, int timeout_ms, zkp_error *err)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT, *in = NULL;
	Zkpd__V1__Request req = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__AuthenticateRequest ar = ZKPD__V1__AUTHENTICATE_REQUEST__INIT;
	ar.token = (char *)token;
	req.call_case = ZKPD__V1__REQUEST__CALL_AUTHENTICATE;
	req.authenticate = &ar;
	env.call_id = zkp_client_next_call_id(c);
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = &req;
	int rc = zkp_client_send(c, &env, err);
	if (rc)
		return rc;
	rc = zkp_client_recv(c, &in, timeout_ms, err);
	if (rc)
		return rc;
	if (in->call_id == env.call_id && in->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE &&
	    in->response->call_case == ZKPD__V1__RESPONSE__CALL_AUTHENTICATE)
		rc = 0;
	else if (in->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR)
		rc = zkp_error_set(err, zkp_wire_error_code(in->error->code), "%s: %s: %s",
				   c->address, in->error->code, in->error->message);
	else
		rc = zkp_error_set(err, ZKP_ERR_PROTOCOL, "%s: an answer that is not the "
				   "Authenticate's", c->address);
	zkp_wire_free(in);
	return rc;
}

int zkp_token_read(char **ret, const char *path, zkp_error *err)
{
	char buf[4097];
	*ret = NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		return zkp_error_set(err, ZKP_ERR_IO, "token file %s: %s", path, strerror(errno));
	size_t n = fread(buf, 1, sizeof(buf), f);
	bool bad = ferror(f);
	fclose(f);
	if (bad)
		return zkp_error_set(err, ZKP_ERR_IO, "token file %s: cannot read it", path);
	if (n == sizeof(buf)) {
		OPENSSL_cleanse(buf, sizeof(buf));
		return zkp_error_set(err, ZKP_ERR_CONFIG, "token file %s: over %zu bytes", path,
				     sizeof(buf) - 1);
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		n--;
	buf[n] = 0;
	if (n == 0 || strlen(buf) != n) {
		OPENSSL_cleanse(buf, sizeof(buf));
		return zkp_error_set(err, ZKP_ERR_CONFIG, "token file %s: %s", path,
				     n ? "holds a NUL byte" : "is empty");
	}
	*ret = strdup(buf);
	OPENSSL_cleanse(buf, sizeof(buf));
	if (!*ret)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory");
	return 0;
}
