/*
 * status: the Status call's answer, built from one consistent engine copy
 * (zkp_engine_get_status), a memory snapshot and the server's figures.
 *
 * Ownership: the messages returned are heap trees owned by this module;
 * free them with the matching _free (not protobuf-c's free_unpacked).
 * Threads: any thread, given a copy of the server's figures
 * (zkp_server_stats_get) or the loop's own.
 */
#ifndef ZKPD_DAEMON_STATUS_H
#define ZKPD_DAEMON_STATUS_H

#include "engine.h"
#include "session.h"
#include "wire.h"

/* Errors: ZKP_ERR_NOMEM. */
int zkp_status_build(Zkpd__V1__StatusResponse **ret, zkp_engine *e,
		     const zkp_server_stats *stats, double start);
void zkp_status_free(Zkpd__V1__StatusResponse *s);

/* One circuit's status. Errors: ZKP_ERR_NOT_FOUND, ZKP_ERR_NOMEM. */
int zkp_status_circuit(Zkpd__V1__CircuitStatus **ret, zkp_engine *e, const char *name);
void zkp_status_circuit_free(Zkpd__V1__CircuitStatus *c);

#endif
