/*
 * tls: OpenSSL contexts for zkpd's tcp: listeners and for clients, and the
 * conversion of OpenSSL's error queue into zkpd errors (done here, once).
 *
 * Invariants:
 *  - TLS 1.2 is the lowest version either side accepts.
 *  - A server context with a client CA requires a client certificate that
 *    CA signed (SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT).
 *  - A client context always verifies the server's certificate: against
 *    ca_file, else the system's trust store; the name it checks is set per
 *    connection (zkp_tls_client_expect).
 *
 * Threads: a context may be shared once built (OpenSSL's SSL_CTX is
 * thread-safe for SSL_new); an SSL belongs to one thread at a time.
 */
#ifndef ZKPD_DAEMON_TLS_H
#define ZKPD_DAEMON_TLS_H

#include <stddef.h>

#include <openssl/ssl.h>

#include "zkpd/error.h"

/* OpenSSL's queued errors as "reason; reason" (the queue is emptied);
 * "no details" when it is empty. Returns buf. */
const char *zkp_tls_errors(char *buf, size_t size);

/* A server context from PEM files: cert (a chain, leaf first), key, and
 * client_ca (NULL: clients are not asked for a certificate). Errors:
 * ZKP_ERR_CONFIG naming the option, the file and OpenSSL's reason;
 * ZKP_ERR_NOMEM. */
int zkp_tls_server_ctx(SSL_CTX **ret, const char *cert, const char *key, const char *client_ca,
		       zkp_error *err);

/* A client context: the server's certificate must chain to ca_file (NULL:
 * the system's trust store); cert and key (both or neither) are presented
 * when the server asks. Errors: ZKP_ERR_CONFIG naming the file and why;
 * ZKP_ERR_NOMEM. */
int zkp_tls_client_ctx(SSL_CTX **ret, const char *ca_file, const char *cert, const char *key,
		       zkp_error *err);

/* Makes ssl check that the server's certificate names host (an IP address
 * is checked against the certificate's IP entries, a name against its DNS
 * entries) and sends host as SNI when it is a name. Errors: ZKP_ERR_NOMEM. */
int zkp_tls_client_expect(SSL *ssl, const char *host, zkp_error *err);

#endif
