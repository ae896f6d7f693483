/*
 * cuzk_map: the cuzk.v1 ProvingEngine calls (proto/cuzk/v1/proving.proto,
 * the service Curio calls) translated into zkpd.v1 calls
 * (proto/zkpd/v1/zkpd.proto) and their answers translated back. No I/O and
 * no engine: the gRPC front end (grpc.c) runs each translated call through
 * an ordinary protocol session (session.h), so a gRPC call obeys exactly
 * the rules of a framed one (journal, idempotency, priorities, admission).
 *
 * Mapping (docs/grpc.md has the table):
 *   SubmitProof -> Submit      AwaitProof -> Await     Prove -> Prove
 *   CancelProof -> Cancel      GetStatus  -> Status    GetMetrics -> Metrics
 *   PreloadSRS  -> LoadCircuit EvictSRS   -> UnloadCircuit
 * A job is named by its zkpd job id in decimal. A Submit's circuit is the
 * configured circuit of the proof kind and sector size asked for (a
 * sector_size of 0 is taken from registered_proof); an SRS's
 * circuit_id is a circuit name, or KIND-SIZE (porep-32g, snap-2k, wpost-32g,
 * winning-32g).
 *
 * Threads: any; nothing here keeps state.
 */
#ifndef ZKPD_DAEMON_CUZK_MAP_H
#define ZKPD_DAEMON_CUZK_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/config.h"
#include "zkpd/error.h"

struct Zkpd__V1__Envelope;

enum zkp_cuzk_method {
	ZKP_CUZK_UNKNOWN = 0,
	ZKP_CUZK_SUBMIT,
	ZKP_CUZK_AWAIT,
	ZKP_CUZK_PROVE,
	ZKP_CUZK_CANCEL,
	ZKP_CUZK_STATUS,
	ZKP_CUZK_METRICS,
	ZKP_CUZK_PRELOAD,
	ZKP_CUZK_EVICT,
};

/* The method of a gRPC path ("/cuzk.v1.ProvingEngine/Prove");
 * ZKP_CUZK_UNKNOWN for any other. */
enum zkp_cuzk_method zkp_cuzk_method_of(const char *path, size_t len);
/* "SubmitProof", ...; "?" for UNKNOWN. */
const char *zkp_cuzk_method_name(enum zkp_cuzk_method m);

/* gRPC status codes (grpc/status.h's numbers, which are the protocol's). */
enum zkp_grpc_code {
	ZKP_GRPC_OK = 0,
	ZKP_GRPC_CANCELLED = 1,
	ZKP_GRPC_UNKNOWN = 2,
	ZKP_GRPC_INVALID_ARGUMENT = 3,
	ZKP_GRPC_DEADLINE_EXCEEDED = 4,
	ZKP_GRPC_NOT_FOUND = 5,
	ZKP_GRPC_PERMISSION_DENIED = 7,
	ZKP_GRPC_RESOURCE_EXHAUSTED = 8,
	ZKP_GRPC_FAILED_PRECONDITION = 9,
	ZKP_GRPC_UNIMPLEMENTED = 12,
	ZKP_GRPC_INTERNAL = 13,
	ZKP_GRPC_UNAVAILABLE = 14,
	ZKP_GRPC_UNAUTHENTICATED = 16,
};

/* The gRPC status for a zkpd error (a ZKP_ERR_* code). */
enum zkp_grpc_code zkp_cuzk_status_of_error(int zkp_code);
/* The same for the error name an Error envelope carries ("ERR_NOT_FOUND"). */
enum zkp_grpc_code zkp_cuzk_status_of_name(const char *name);

/* A circuit for an SRS circuit_id: the configured circuit of that name, or
 * the one of KIND-SIZE (KIND porep, snap, wpost or winning; SIZE as a
 * sector size: 2k, 8m, 512m, 32g, 64g, any case). Returns its name, NULL
 * when none matches. */
const char *zkp_cuzk_circuit_for_id(const zkp_config *cfg, const char *circuit_id);

/* A decoded request, ready for a session. */
typedef struct {
	enum zkp_cuzk_method method;
	uint8_t *envelope; /* malloc'd zkpd.v1 Envelope (no frame header), call_id as asked */
	size_t envelope_len;
	char circuit[ZKP_CONFIG_NAME_MAX]; /* PRELOAD, EVICT, SUBMIT, PROVE: the circuit */
} zkp_cuzk_request;

/* Decodes one cuzk.v1 request message of method m and builds the zkpd.v1
 * Envelope (Request, call_id) that does its work. Errors, with err naming
 * the field and what was wrong: ZKP_ERR_PROTOCOL (not a message of that
 * method), ZKP_ERR_INVAL (a missing or malformed field: an unknown proof
 * kind, sector_size 0 with a registered_proof that is not a proof type of
 * that kind, no vanilla proof, a job_id that is not a number),
 * ZKP_ERR_NOT_FOUND (no configured circuit serves that kind and size, or
 * that circuit_id), ZKP_ERR_NOMEM. */
int zkp_cuzk_request_decode(zkp_cuzk_request *ret, const zkp_config *cfg, enum zkp_cuzk_method m,
			    const uint8_t *msg, size_t len, uint64_t call_id, zkp_error *err);
void zkp_cuzk_request_release(zkp_cuzk_request *r);

/* What the front end knows beside the session's answer. */
typedef struct {
	uint32_t queue_position; /* SUBMIT: the job's, when the answer was built */
	bool was_loaded;         /* PRELOAD, EVICT: the circuit before the call */
	uint64_t circuit_bytes;  /* EVICT: its .pce and key bytes before the call */
	double seconds;          /* PRELOAD: how long the call took */
} zkp_cuzk_context;

/* Translates the session's final answer (a Response or an Error) to method
 * m into the cuzk.v1 response message. On ZKP_GRPC_OK, *out is the
 * malloc'd serialized response; otherwise *out is NULL and msg holds the
 * status message (an Error envelope's code and message). A failed,
 * cancelled or timed-out job is a response (AwaitProofResponse's status),
 * not a gRPC error. */
enum zkp_grpc_code zkp_cuzk_response_encode(enum zkp_cuzk_method m,
					    const struct Zkpd__V1__Envelope *env,
					    const zkp_cuzk_context *ctx, uint8_t **out,
					    size_t *out_len, char *msg, size_t msglen);

#endif
