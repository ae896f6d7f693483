/*
 * wire: zkpd's framed protobuf protocol (proto/zkpd/v1/zkpd.proto), shared
 * by the daemon's sessions, zkpctl, zkpd-bench load and the tests.
 *
 * A frame is a 4-byte big-endian length N (1 <= N <= max_frame) and N bytes
 * of one serialized zkpd.v1.Envelope. The protoc-c output is generated into
 * the build tree; only wire users (this module, session.c, zkpctl, the load
 * bench and the protocol tests) include it, through this header.
 *
 * Invariants:
 *  - The reader never buffers more than 4 + max_frame bytes for one frame:
 *    an oversized length is refused as soon as its 4 bytes arrive, before
 *    any body is read.
 *  - Protobuf errors are converted here, once: a body that does not unpack
 *    is ZKP_ERR_PROTOCOL with a message naming the frame's length.
 *
 * Threads: a reader or client belongs to one thread at a time.
 */
#ifndef ZKPD_DAEMON_WIRE_H
#define ZKPD_DAEMON_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/v1/zkpd.pb-c.h"

#define ZKP_FRAME_HEADER 4

/* ---- frames ---- */

typedef struct {
	uint8_t *buf; /* bytes received and not yet returned as frames */
	size_t len, cap, off;
	size_t scan;  /* start of the first frame not yet completely buffered */
	uint64_t max_frame;
} zkp_frame_reader;

void zkp_frame_reader_init(zkp_frame_reader *r, uint64_t max_frame);
void zkp_frame_reader_release(zkp_frame_reader *r);
/* Appends received bytes. Once a frame header declares a bad length
 * (0 or over max_frame) the bytes after that header are dropped: the
 * stream cannot be resynchronised and zkp_frame_next reports the error.
 * Errors: ZKP_ERR_NOMEM. */
int zkp_frame_reader_feed(zkp_frame_reader *r, const uint8_t *data, size_t n);
/* The next complete frame's body: returns 1 and sets *body, *len (valid
 * until the next feed or next call), 0 when more bytes are needed, or
 * ZKP_ERR_LIMIT (declared length over max_frame; err names both) or
 * ZKP_ERR_PROTOCOL (declared length 0). After an error the reader is
 * unusable (the stream cannot be resynchronised). */
int zkp_frame_next(zkp_frame_reader *r, const uint8_t **body, size_t *len, zkp_error *err);

/* Packs env into a malloc'd frame (header included). Errors: ZKP_ERR_NOMEM,
 * ZKP_ERR_LIMIT (over 4 GiB - 1), ZKP_ERR_INVAL (an empty envelope: it packs
 * to 0 bytes, a length no reader accepts). */
int zkp_wire_pack(const Zkpd__V1__Envelope *env, uint8_t **frame, size_t *len);
/* Unpacks a body. On success *env is freed with zkp_wire_free. Errors:
 * ZKP_ERR_PROTOCOL. */
int zkp_wire_unpack(Zkpd__V1__Envelope **env, const uint8_t *body, size_t len, zkp_error *err);
void zkp_wire_free(Zkpd__V1__Envelope *env);

/* Error names on the wire: zkp_err_name(code) without the "ZKP_" prefix
 * ("ERR_NOT_FOUND"), and back (ZKP_ERR_PROTOCOL for an unknown name). */
const char *zkp_wire_error_name(int code);
int zkp_wire_error_code(const char *name);

/* ---- a blocking client ---- */

typedef struct zkp_client zkp_client;

/* Connects to "unix:PATH" or "tcp:HOST:PORT" (config.h's zkp_address).
 * Errors: ZKP_ERR_CONFIG (bad address), ZKP_ERR_IO (names the address and
 * the errno text), ZKP_ERR_NOMEM. */
int zkp_client_connect(zkp_client **ret, const char *address, uint64_t max_frame,
		       zkp_error *err);

/* TLS for zkp_client_connect_tls. Strings are read during the call only. */
typedef struct {
	const char *ca_file;     /* PEM CAs the server's certificate must chain to;
				  * NULL: the system's trust store */
	const char *cert_file;   /* PEM client certificate (with key_file), or NULL */
	const char *key_file;
	const char *server_name; /* name or IP the certificate must carry; NULL:
				  * the address's HOST */
	int timeout_ms;          /* handshake; 0: 30 s */
} zkp_client_tls;

/* Connects to "tcp:HOST:PORT" and completes a TLS handshake (TLS 1.2 or
 * later) that verifies the server's certificate and name. Afterwards the
 * client is used as a plaintext one; zkp_client_fd is then only useful to
 * wait for more bytes: records already received may hold a whole answer,
 * so poll() on it is no sign that nothing is there. Errors: as
 * zkp_client_connect; ZKP_ERR_CONFIG also for a unix: address or an
 * unreadable CA, certificate or key file; ZKP_ERR_IO for a failed
 * handshake (an untrusted certificate is named as such). */
int zkp_client_connect_tls(zkp_client **ret, const char *address, uint64_t max_frame,
			   const zkp_client_tls *tls, zkp_error *err);
/* Sends Authenticate with token and waits at most timeout_ms (-1:
 * forever) for its answer; call it first on a connection to a daemon with
 * server.token_file. Errors: those of send and recv; ZKP_ERR_DENIED (a
 * wrong token: the daemon closes the connection); ZKP_ERR_PROTOCOL. */
int zkp_client_authenticate(zkp_client *c, const char *token, int timeout_ms, zkp_error *err);
/* Reads a bearer token file: its bytes up to trailing white space (at most
 * 4096), into a malloc'd string. Errors: ZKP_ERR_IO (cannot open or read;
 * names the file), ZKP_ERR_CONFIG (empty, too long, a NUL byte),
 * ZKP_ERR_NOMEM. */
int zkp_token_read(char **ret, const char *path, zkp_error *err);
void zkp_client_close(zkp_client *c);
/* A fresh call id (1, 2, ...). */
uint64_t zkp_client_next_call_id(zkp_client *c);
/* Sends one envelope as one frame. Errors: ZKP_ERR_IO (connection lost). */
int zkp_client_send(zkp_client *c, const Zkpd__V1__Envelope *env, zkp_error *err);
/* Sends bytes as they are (tests of malformed frames). */
int zkp_client_send_raw(zkp_client *c, const void *data, size_t n, zkp_error *err);
/* Receives the next envelope, waiting at most timeout_ms (-1: forever).
 * Errors: ZKP_ERR_TIMEOUT, ZKP_ERR_IO (closed by the peer: "connection
 * closed"), ZKP_ERR_LIMIT, ZKP_ERR_PROTOCOL. */
int zkp_client_recv(zkp_client *c, Zkpd__V1__Envelope **env, int timeout_ms, zkp_error *err);
/* The socket, for poll() by callers that watch several clients. */
int zkp_client_fd(const zkp_client *c);

#endif
