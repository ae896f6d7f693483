/*
 * zkpctl grpc-status (zkpctl_grpc.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/v1/proving.pb-c.h"
#include "cuzk_client.h"
#include "wire.h"
#include "zkpctl_grpc.h"
#include "zkpctl_json.h"

/* grpc_status_code values (grpc/status.h), without gRPC's headers here. */
enum { GRPC_UNAVAILABLE = 14, GRPC_DEADLINE_EXCEEDED = 4, GRPC_UNIMPLEMENTED = 12 };

static const char *tier_name(Cuzk__V1__SRSStatus__Tier t)
{
	switch (t) {
	case CUZK__V1__SRSSTATUS__TIER__HOT:
		return "hot (loaded)";
	case CUZK__V1__SRSSTATUS__TIER__WARM:
		return "warm";
	case CUZK__V1__SRSSTATUS__TIER__COLD:
		return "cold (not loaded)";
	default:
		return "?";
	}
}

static void print_json(const char *address, const Cuzk__V1__GetStatusResponse *r)
{
	struct jw w = { stdout, false };
	jw_open(&w, NULL, '{');
	jw_str(&w, "address", address);
	jw_u64(&w, "uptime_seconds", r->uptime_seconds);
	jw_u64(&w, "total_proofs_completed", r->total_proofs_completed);
	jw_u64(&w, "total_proofs_failed", r->total_proofs_failed);
	jw_open(&w, "gpus", '[');
	for (size_t i = 0; i < r->n_gpus; i++) {
		jw_open(&w, NULL, '{');
		jw_u64(&w, "ordinal", r->gpus[i]->ordinal);
		jw_str(&w, "name", r->gpus[i]->name);
		jw_str(&w, "current_job_id", r->gpus[i]->current_job_id);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_open(&w, "circuits", '[');
	for (size_t i = 0; i < r->n_loaded_srs; i++) {
		const Cuzk__V1__SRSStatus *s = r->loaded_srs[i];
		jw_open(&w, NULL, '{');
		jw_str(&w, "circuit_id", s->circuit_id);
		jw_bool(&w, "loaded", s->tier == CUZK__V1__SRSSTATUS__TIER__HOT);
		jw_u64(&w, "size_bytes", s->size_bytes);
		jw_u64(&w, "ref_count", s->ref_count);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_open(&w, "queues", '[');
	for (size_t i = 0; i < r->n_queues; i++) {
		jw_open(&w, NULL, '{');
		jw_str(&w, "proof_kind", r->queues[i]->proof_kind);
		jw_u64(&w, "pending", r->queues[i]->pending);
		jw_u64(&w, "in_progress", r->queues[i]->in_progress);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
	jw_done(&w);
}

static void print_human(const char *address, const Cuzk__V1__GetStatusResponse *r)
{
	printf("cuzk.v1 at %s: serving, up %" PRIu64 " s, %" PRIu64 " proofs completed, %" PRIu64
	       " failed\n",
	       address, r->uptime_seconds, r->total_proofs_completed, r->total_proofs_failed);
	for (size_t i = 0; i < r->n_gpus; i++)
		printf("gpu %u  %s%s%s\n", r->gpus[i]->ordinal, r->gpus[i]->name,
		       *r->gpus[i]->current_job_id ? "  running " : "",
		       r->gpus[i]->current_job_id);
	for (size_t i = 0; i < r->n_loaded_srs; i++)
		printf("circuit %-20s %s, %" PRIu64 " bytes, %u jobs holding it\n",
		       r->loaded_srs[i]->circuit_id, tier_name(r->loaded_srs[i]->tier),
		       r->loaded_srs[i]->size_bytes, r->loaded_srs[i]->ref_count);
	for (size_t i = 0; i < r->n_queues; i++)
		printf("queue %-22s %u pending, %u in progress\n", r->queues[i]->proof_kind,
		       r->queues[i]->pending, r->queues[i]->in_progress);
}

int zkpctl_grpc_status(const char *address, const char *token_file, const char *ca_file,
		       int timeout_ms, bool json)
{
	zkp_error err = { 0 };
	char *token = NULL;
	if (token_file && zkp_token_read(&token, token_file, &err)) {
		fprintf(stderr, "zkpctl: %s\n", err.msg);
		return 2;
	}
	zkp_cuzk_client_opts o = { address, ca_file, token, timeout_ms };
	Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
	uint8_t packed[16];
	size_t len = cuzk__v1__get_status_request__pack(&req, packed);
	uint8_t *resp = NULL;
	size_t resp_len = 0;
	int status = 0;
	int rc = zkp_cuzk_unary(&o, "/cuzk.v1.ProvingEngine/GetStatus", packed, len, &resp,
				&resp_len, &status, &err);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (rc) {
		fprintf(stderr, "zkpctl: grpc-status: %s\n", err.msg);
		if (rc == ZKP_ERR_CONFIG)
			return 2;
		if (status == GRPC_UNAVAILABLE) {
			fprintf(stderr, "zkpctl: no gRPC service answers at %s (is grpc.listen "
					"set to it, and zkpd running?)\n", address);
			return 3;
		}
		if (status == GRPC_UNIMPLEMENTED) {
			fprintf(stderr, "zkpctl: %s answers gRPC but not cuzk.v1\n", address);
			return 3;
		}
		return status == GRPC_DEADLINE_EXCEEDED ? 4 : status > 0 ? 5 : 3;
	}
	Cuzk__V1__GetStatusResponse *r =
		cuzk__v1__get_status_response__unpack(NULL, resp_len, resp);
	free(resp);
	if (!r) {
		fprintf(stderr, "zkpctl: grpc-status: %s: the answer is not a GetStatusResponse\n",
			address);
		return 3;
	}
	if (json)
		print_json(address, r);
	else
		print_human(address, r);
	cuzk__v1__get_status_response__free_unpacked(r, NULL);
	return 0;
}
