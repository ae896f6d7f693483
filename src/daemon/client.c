/*
 * The blocking client: one socket, one frame reader. Sends go through
 * send(MSG_NOSIGNAL) so a daemon that went away is an error, not SIGPIPE;
 * waits go through poll() so a timeout covers the whole receive.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"
#include "zkpd/config.h"

#define RECV_CHUNK (64u << 10)

struct zkp_client {
	int fd;
	uint64_t next_id;
	zkp_frame_reader rd;
	uint8_t *chunk; /* RECV_CHUNK bytes */
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

int zkp_client_connect(zkp_client **ret, const char *address, uint64_t max_frame,
		       zkp_error *err)
{
	zkp_address a;
	int rc = zkp_address_parse(&a, address, err);
	if (rc)
		return rc;
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
out:
	if (rc) {
		zkp_client_close(c);
		return rc;
	}
	*ret = c;
	return 0;
}

void zkp_client_close(zkp_client *c)
{
	if (!c)
		return;
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

		int wait = -1;
		if (deadline >= 0) {
			int64_t left = deadline - now_ms();
			wait = left > 0 ? (int)left : 0;
		}
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };
		rc = poll(&pf, 1, wait);
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
		rc = zkp_frame_reader_feed(&c->rd, c->chunk, (size_t)n);
		if (rc)
			return zkp_error_set(err, rc, "%s: out of memory for a frame", c->address);
	}
}
