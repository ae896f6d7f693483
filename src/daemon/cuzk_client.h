/*
 * cuzk_client: one unary call of a gRPC service over gRPC's C core, the
 * client side of what cuzk_server serves: zkpctl grpc-status uses it to
 * ask a daemon's cuzk.v1 service for GetStatus as Curio would.
 *
 * Threads: any; each call makes and frees its own channel and completion
 * queue, and blocks at most timeout_ms.
 */
#ifndef ZKPD_DAEMON_CUZK_CLIENT_H
#define ZKPD_DAEMON_CUZK_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"

typedef struct {
	const char *target;   /* gRPC's form: unix:PATH, HOST:PORT, [ADDR]:PORT */
	const char *ca_file;  /* PEM CAs: speak TLS; NULL: plaintext */
	const char *token;    /* sent as "authorization: Bearer TOKEN"; NULL: none */
	int timeout_ms;       /* deadline of the call, > 0 */
} zkp_cuzk_client_opts;

/* Calls method ("/cuzk.v1.ProvingEngine/GetStatus") with the serialized
 * request req; on success *resp is the serialized answer (malloc'd, free
 * it) and *status 0 (-1 while the call has no status). When the call ends
 * with another gRPC status, *status
 * is that code (grpc_status_code: 14 UNAVAILABLE, 4 DEADLINE_EXCEEDED, 16
 * UNAUTHENTICATED, ...), err names it and the server's message, and the
 * return is ZKP_ERR_IO. Other errors: ZKP_ERR_CONFIG (an unreadable CA
 * file), ZKP_ERR_NOMEM. */
int zkp_cuzk_unary(const zkp_cuzk_client_opts *o, const char *method, const uint8_t *req,
		   size_t req_len, uint8_t **resp, size_t *resp_len, int *status, zkp_error *err);

#endif
