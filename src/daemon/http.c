/*
 * The HTTP endpoint over libmicrohttpd. The listening socket is made here
 * (not by MHD from a port number) so it binds exactly http.listen's host,
 * IPv4 or IPv6, and a failure names the address and errno. /status walks
 * the protobuf-c descriptors of the Status answer, so the JSON has every
 * field the Status call has without a second list of them to keep in step.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "engine.h"
#include "http.h"
#include "metrics.h"
#include "status.h"
#include "zkpd/log.h"

#define HTTP_MAX_CONNECTIONS 64
#define HTTP_IDLE_SECONDS 10

struct zkp_http {
	struct MHD_Daemon *mhd;
	zkp_server *srv;
	zkp_engine *engine;
	const uint8_t *token_sha256; /* http.require_token: what /metrics and /status need */
	double start;
	int fd; /* listening; MHD's once it started */
	char name[300]; /* HOST:PORT for messages */

	/* Requests in progress and whether the engine is being freed. */
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned busy;
	bool closed;
};

/* ---- protobuf-c message to JSON ---- */

static json_t *message_json(const ProtobufCMessage *m);

/* A JSON string of s; text that is not UTF-8 (a file name, say) has its
 * bytes above 0x7f replaced by '?', since jansson takes UTF-8 only. */
static json_t *string_json(const char *s)
{
	json_t *v = json_string(s ? s : "");
	if (v)
		return v;
	char *copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

static json_t *bytes_json(const ProtobufCBinaryData *b)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = (b->len + 2) / 3 * 4;
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < b->len; i += 3) {
		uint32_t v = (uint32_t)b->data[i] << 16;
		if (i + 1 < b->len)
			v |= (uint32_t)b->data[i + 1] << 8;
		if (i + 2 < b->len)
			v |= b->data[i + 2];
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < b->len ? tab[v >> 6 & 63] : '=';
		out[o++] = i + 2 < b->len ? tab[v & 63] : '=';
	}
	out[o] = 0;
	json_t *j = json_string(out);
	free(out);
	return j;
}

/* One value of field f at p (a member, or an element of a repeated one). */
static json_t *value_json(const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		return json_integer(*(const int32_t *)p);
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return json_integer(*(const uint32_t *)p);
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return json_integer(*(const int64_t *)p);
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64: {
		uint64_t v = *(const uint64_t *)p;
		/* json_int_t is signed 64-bit; byte and job counts never reach 2^63. */
		return v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
	}
	case PROTOBUF_C_TYPE_FLOAT:
		return json_real(*(const float *)p);
	case PROTOBUF_C_TYPE_DOUBLE:
		return json_real(*(const double *)p);
	case PROTOBUF_C_TYPE_BOOL:
		return json_boolean(*(const protobuf_c_boolean *)p);
	case PROTOBUF_C_TYPE_ENUM: {
		int v = *(const int *)p;
		const ProtobufCEnumValue *ev =
			protobuf_c_enum_descriptor_get_value(f->descriptor, v);
		return ev ? json_string(ev->name) : json_integer(v);
	}
	case PROTOBUF_C_TYPE_STRING:
		return string_json(*(char *const *)p);
	case PROTOBUF_C_TYPE_BYTES:
		return bytes_json(p);
	case PROTOBUF_C_TYPE_MESSAGE: {
		const ProtobufCMessage *m = *(const ProtobufCMessage *const *)p;
		return m ? message_json(m) : json_null();
	}
	}
	return json_null();
}

static size_t value_size(const ProtobufCFieldDescriptor *f)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return 4;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_ENUM:
		return sizeof(int);
	case PROTOBUF_C_TYPE_STRING:
		return sizeof(char *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(ProtobufCMessage *);
	}
	return 0;
}

/* Every field of m by its proto name; a oneof contributes its set member
 * only, a proto2 optional scalar only when present. NULL on allocation
 * failure. */
static json_t *message_json(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *)m;
	json_t *obj = json_object();
	if (!obj)
		return NULL;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const void *member = base + f->offset;
		json_t *v;
		if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			if (*(const uint32_t *)(base + f->quantifier_offset) != f->id)
				continue;
			v = value_json(f, member);
		} else if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + f->quantifier_offset);
			const char *arr = *(const char *const *)member;
			size_t size = value_size(f);
			v = json_array();
			for (size_t k = 0; v && k < n; k++)
				if (json_array_append_new(v, value_json(f, arr + k * size))) {
					json_decref(v);
					v = NULL;
				}
		} else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset &&
			   f->type != PROTOBUF_C_TYPE_STRING &&
			   f->type != PROTOBUF_C_TYPE_MESSAGE) {
			if (!*(const protobuf_c_boolean *)(base + f->quantifier_offset))
				continue;
			v = value_json(f, member);
		} else {
			v = value_json(f, member);
		}
		/* json_object_set_new takes v, and fails on NULL. */
		if (json_object_set_new(obj, f->name, v)) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

/* ---- requests ---- */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *type,
			     char *body, size_t len, bool must_free)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	enum MHD_Result ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (ok == MHD_YES && code == MHD_HTTP_METHOD_NOT_ALLOWED)
		ok = MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (ok == MHD_YES)
		ok = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned code, const char *text)
{
	return reply(conn, code, "text/plain; charset=utf-8", (char *)text, strlen(text), false);
}

/* http.require_token: "Authorization: Bearer TOKEN" with server.token_file's
 * token, compared as SHA-256 digests in constant time (as the protocol's
 * Authenticate call). */
static bool authorized(const zkp_http *h, struct MHD_Connection *conn)
{
	if (!h->token_sha256)
		return true;
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_AUTHORIZATION);
	if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
		return false;
	const char *token = auth + 7;
	while (*token == ' ')
		token++;
	uint8_t digest[32];
	unsigned int n = 0;
	if (!EVP_Digest(token, strlen(token), digest, &n, EVP_sha256(), NULL) || n != 32)
		return false;
	return CRYPTO_memcmp(digest, h->token_sha256, 32) == 0;
}

static enum MHD_Result reply_unauthorized(struct MHD_Connection *conn)
{
	static const char text[] = "a bearer token is required (http.require_token)\n";
	struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(text) - 1, (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	enum MHD_Result ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
						     "text/plain; charset=utf-8");
	if (ok == MHD_YES)
		ok = MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					     "Bearer realm=\"zkpd\"");
	if (ok == MHD_YES)
		ok = MHD_queue_response(conn, MHD_HTTP_UNAUTHORIZED, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result serve_metrics(zkp_http *h, struct MHD_Connection *conn)
{
	zkp_server_stats stats;
	zkp_server_stats_get(h->srv, &stats);
	char *text = zkp_metrics_text(h->engine, &stats);
	if (!text)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text,
		     strlen(text), true);
}

static enum MHD_Result serve_status(zkp_http *h, struct MHD_Connection *conn)
{
	zkp_server_stats stats;
	Zkpd__V1__StatusResponse *st = NULL;
	json_t *obj = NULL;
	char *text = NULL;
	zkp_server_stats_get(h->srv, &stats);
	if (zkp_status_build(&st, h->engine, &stats, h->start) == 0 &&
	    (obj = message_json(&st->base)))
		text = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	zkp_status_free(st);
	if (!text)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	/* One object per line, as zkpctl --json prints its answers. */
	size_t len = strlen(text);
	char *line = realloc(text, len + 2);
	if (!line) {
		free(text);
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	line[len++] = '\n';
	line[len] = 0;
	return reply(conn, MHD_HTTP_OK, "application/json", line, len, true);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **state)
{
	zkp_http *h = cls;
	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)state;

	/* Answered on the first call, before any body: none is expected. */
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	bool metrics = !strcmp(url, "/metrics"), status = !strcmp(url, "/status");
	if (!metrics && !status && strcmp(url, "/healthz"))
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found\n");
	if ((metrics || status) && !authorized(h, conn))
		return reply_unauthorized(conn);

	pthread_mutex_lock(&h->lock);
	bool closed = h->closed;
	if (!closed)
		h->busy++;
	pthread_mutex_unlock(&h->lock);
	if (closed)
		return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down\n");

	enum MHD_Result rc;
	if (metrics) {
		rc = serve_metrics(h, conn);
	} else if (status) {
		rc = serve_status(h, conn);
	} else {
		zkp_server_stats stats;
		zkp_server_stats_get(h->srv, &stats);
		rc = stats.accepting ? reply_text(conn, MHD_HTTP_OK, "ok\n")
				     : reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "draining\n");
	}

	pthread_mutex_lock(&h->lock);
	if (--h->busy == 0)
		pthread_cond_broadcast(&h->idle);
	pthread_mutex_unlock(&h->lock);
	return rc;
}

/* The engine's free hook: from here on no request reads it. */
static void on_engine_free(void *arg)
{
	zkp_http *h = arg;
	pthread_mutex_lock(&h->lock);
	h->closed = true;
	while (h->busy)
		pthread_cond_wait(&h->idle, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	zkp_http *h = cls;
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t len = strlen(msg);
	while (len > 0 && msg[len - 1] == '\n')
		msg[--len] = 0;
	zkp_log(ZKP_LOG_WARN, "http %s: %s", h->name, msg);
}

/* ---- lifetime ---- */

/* A listening socket on addr, or -1 with err set. */
static int listen_socket(const zkp_address *addr, const char *name, zkp_error *err)
{
	struct addrinfo hints, *res = NULL;
	char port[8];
	int fd = -1, last = 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%u", (unsigned)addr->port);
	int gai = getaddrinfo(addr->host, port, &hints, &res);
	if (gai) {
		zkp_error_set(err, ZKP_ERR_IO, "http.listen %s: cannot resolve: %s", name,
			      gai_strerror(gai));
		return -1;
	}
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0) {
			last = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0)
			break;
		last = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0 && last == EADDRINUSE)
		zkp_error_set(err, ZKP_ERR_IO, "http.listen %s: cannot listen: %s (a zkpd may "
			      "already be running: curl http://%s/healthz)", name, strerror(last),
			      name);
	else if (fd < 0)
		zkp_error_set(err, ZKP_ERR_IO, "http.listen %s: cannot listen: %s", name,
			      strerror(last));
	return fd;
}

int zkp_http_new(zkp_http **ret, const zkp_address *addr, double start, zkp_error *err)
{
	zkp_http *h = calloc(1, sizeof(*h));
	*ret = NULL;
	if (!h)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for the HTTP endpoint");
	h->start = start;
	snprintf(h->name, sizeof(h->name), strchr(addr->host, ':') ? "[%s]:%u" : "%s:%u",
		 addr->host, (unsigned)addr->port);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->idle, NULL);
	h->fd = listen_socket(addr, h->name, err);
	if (h->fd < 0) {
		zkp_http_free(h);
		return ZKP_ERR_IO;
	}
	*ret = h;
	return 0;
}

int zkp_http_start(zkp_http *h, zkp_server *srv, bool require_token, zkp_error *err)
{
	h->srv = srv;
	h->engine = zkp_server_engine(srv);
	h->token_sha256 = require_token ? zkp_server_token_sha256(srv) : NULL;
	if (require_token && !h->token_sha256)
		return zkp_error_set(err, ZKP_ERR_CONFIG,
				     "http.require_token: the server has no token (server.token_file)");
	/* One internal thread serves every connection in turn. */
	h->mhd = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG, 0, NULL, NULL,
		on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h, MHD_OPTION_LISTEN_SOCKET,
		h->fd, MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_SECONDS, MHD_OPTION_END);
	if (!h->mhd)
		return zkp_error_set(err, ZKP_ERR_IO, "http.listen %s: cannot start libmicrohttpd",
				     h->name);
	zkp_engine_set_free_hook(h->engine, on_engine_free, h);
	zkp_log(ZKP_LOG_INFO, "http: serving /metrics, /status and /healthz on %s%s", h->name,
		h->token_sha256 ? " (/metrics and /status need the bearer token)" : "");
	return 0;
}

void zkp_http_free(zkp_http *h)
{
	if (!h)
		return;
	if (h->mhd) {
		/* The engine is freed on this thread too (zkp_server_run), so
		 * closed cannot change under this check. */
		if (!h->closed)
			zkp_engine_set_free_hook(h->engine, NULL, NULL);
		MHD_stop_daemon(h->mhd); /* closes the listening socket */
	} else if (h->fd >= 0) {
		close(h->fd);
	}
	pthread_cond_destroy(&h->idle);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
