/*
 * zkpctl grpc-status: the cuzk.v1 service's GetStatus, as Curio sees it
 * (cuzk_client.h), printed for an operator. Part of zkpctl only.
 */
#ifndef ZKPD_DAEMON_ZKPCTL_GRPC_H
#define ZKPD_DAEMON_ZKPCTL_GRPC_H

#include <stdbool.h>

/* Calls GetStatus at address (grpc.listen's form: unix:PATH or
 * HOST:PORT), with the bearer token of token_file when given and TLS when
 * ca_file is; prints the answer (one JSON object with json). Returns
 * zkpctl's exit code: 0, 2 (an unreadable token or CA file), 3 (no
 * service answers there, or not as cuzk.v1), 4 (no answer in time), 5 (the
 * service refused the call, e.g. UNAUTHENTICATED without the token). */
int zkpctl_grpc_status(const char *address, const char *token_file, const char *ca_file,
		       int timeout_ms, bool json);

#endif
