#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "tls.h"

const char *zkp_tls_errors(char *buf, size_t size)
{
	size_t len = 0;
	unsigned long e;
	buf[0] = 0;
	while ((e = ERR_get_error()) != 0) {
		char one[256];
		ERR_error_string_n(e, one, sizeof(one));
		if (len + 3 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "; " : "", one);
	}
	if (!len)
		snprintf(buf, size, "no details");
	return buf;
}

static SSL_CTX *new_ctx(const SSL_METHOD *method)
{
	SSL_CTX *ctx = SSL_CTX_new(method);
	if (!ctx)
		return NULL;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* No renegotiation, no session tickets to keep keys for: each
	 * connection is one handshake. */
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET);
	return ctx;
}

/* Loads cert and key into ctx and checks that they belong together;
 * cert_name and key_name say what they are in messages. */
static int load_pair(SSL_CTX *ctx, const char *cert_name, const char *cert,
		     const char *key_name, const char *key, zkp_error *err)
{
	char why[512];
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1)
		return zkp_error_set(err, ZKP_ERR_CONFIG, "%s %s: %s", cert_name, cert,
				     zkp_tls_errors(why, sizeof(why)));
	if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1)
		return zkp_error_set(err, ZKP_ERR_CONFIG, "%s %s: %s", key_name, key,
				     zkp_tls_errors(why, sizeof(why)));
	if (SSL_CTX_check_private_key(ctx) != 1)
		return zkp_error_set(err, ZKP_ERR_CONFIG, "%s %s does not match %s %s: %s",
				     key_name, key, cert_name, cert,
				     zkp_tls_errors(why, sizeof(why)));
	return 0;
}

int zkp_tls_server_ctx(SSL_CTX **ret, const char *cert, const char *key, const char *client_ca,
		       zkp_error *err)
{
	char why[512];
	int rc;
	*ret = NULL;
	ERR_clear_error();
	SSL_CTX *ctx = new_ctx(TLS_server_method());
	if (!ctx)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "TLS: %s",
				     zkp_tls_errors(why, sizeof(why)));
	rc = load_pair(ctx, "tls.cert", cert, "tls.key", key, err);
	if (rc)
		goto out;
	if (client_ca) {
		STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(client_ca);
		if (!names || SSL_CTX_load_verify_locations(ctx, client_ca, NULL) != 1) {
			sk_X509_NAME_pop_free(names, X509_NAME_free);
			rc = zkp_error_set(err, ZKP_ERR_CONFIG, "tls.client_ca: %s: %s", client_ca,
					   zkp_tls_errors(why, sizeof(why)));
			goto out;
		}
		/* names goes to ctx: the CAs the server tells clients it accepts */
		SSL_CTX_set_client_CA_list(ctx, names);
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	}
out:
	if (rc) {
		SSL_CTX_free(ctx);
		return rc;
	}
	*ret = ctx;
	return 0;
}

int zkp_tls_client_ctx(SSL_CTX **ret, const char *ca_file, const char *cert, const char *key,
		       zkp_error *err)
{
	char why[512];
	int rc = 0;
	*ret = NULL;
	ERR_clear_error();
	if (!cert != !key)
		return zkp_error_set(err, ZKP_ERR_CONFIG, "a client certificate needs its key and "
				     "a key its certificate");
	SSL_CTX *ctx = new_ctx(TLS_client_method());
	if (!ctx)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "TLS: %s",
				     zkp_tls_errors(why, sizeof(why)));
	if (ca_file ? SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1 :
		      SSL_CTX_set_default_verify_paths(ctx) != 1) {
		rc = zkp_error_set(err, ZKP_ERR_CONFIG, "CA file %s: %s",
				   ca_file ? ca_file : "(system default)",
				   zkp_tls_errors(why, sizeof(why)));
		goto out;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (cert)
		rc = load_pair(ctx, "client certificate", cert, "client key", key, err);
out:
	if (rc) {
		SSL_CTX_free(ctx);
		return rc;
	}
	*ret = ctx;
	return 0;
}

int zkp_tls_client_expect(SSL *ssl, const char *host, zkp_error *err)
{
	unsigned char addr[16];
	bool ip = inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
	X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
	X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	if (ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host) != 1 :
		 SSL_set1_host(ssl, host) != 1 || SSL_set_tlsext_host_name(ssl, host) != 1)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "TLS: cannot set the expected name %s",
				     host);
	return 0;
}
