/*
 * cuzk_map: cuzk.v1 requests into zkpd.v1 Envelopes and zkpd.v1 answers
 * into cuzk.v1 responses (cuzk_map.h).
 */
#include "cuzk_map.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cuzk/v1/proving.pb-c.h"
#include "zkpd/v1/zkpd.pb-c.h"

#define PATH_PREFIX "/cuzk.v1.ProvingEngine/"

static const struct {
	const char *name;
	enum zkp_cuzk_method m;
} methods[] = {
	{ "SubmitProof", ZKP_CUZK_SUBMIT }, { "AwaitProof", ZKP_CUZK_AWAIT },
	{ "Prove", ZKP_CUZK_PROVE },        { "CancelProof", ZKP_CUZK_CANCEL },
	{ "GetStatus", ZKP_CUZK_STATUS },   { "GetMetrics", ZKP_CUZK_METRICS },
	{ "PreloadSRS", ZKP_CUZK_PRELOAD }, { "EvictSRS", ZKP_CUZK_EVICT },
};

enum zkp_cuzk_method zkp_cuzk_method_of(const char *path, size_t len)
{
	size_t plen = strlen(PATH_PREFIX);
	if (len <= plen || memcmp(path, PATH_PREFIX, plen) != 0)
		return ZKP_CUZK_UNKNOWN;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strlen(methods[i].name) == len - plen &&
		    memcmp(methods[i].name, path + plen, len - plen) == 0)
			return methods[i].m;
	return ZKP_CUZK_UNKNOWN;
}

const char *zkp_cuzk_method_name(enum zkp_cuzk_method m)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (methods[i].m == m)
			return methods[i].name;
	return "?";
}

enum zkp_grpc_code zkp_cuzk_status_of_error(int code)
{
	switch (code) {
	case 0: return ZKP_GRPC_OK;
	case ZKP_ERR_NOT_FOUND: return ZKP_GRPC_NOT_FOUND;
	case ZKP_ERR_BUSY: return ZKP_GRPC_FAILED_PRECONDITION;
	case ZKP_ERR_LIMIT:
	case ZKP_ERR_NOMEM: return ZKP_GRPC_RESOURCE_EXHAUSTED;
	case ZKP_ERR_SHUTDOWN: return ZKP_GRPC_UNAVAILABLE;
	case ZKP_ERR_DENIED: return ZKP_GRPC_PERMISSION_DENIED;
	case ZKP_ERR_CANCELLED: return ZKP_GRPC_CANCELLED;
	case ZKP_ERR_TIMEOUT: return ZKP_GRPC_DEADLINE_EXCEEDED;
	case ZKP_ERR_UNSUPPORTED: return ZKP_GRPC_UNIMPLEMENTED;
	case ZKP_ERR_IO:
	case ZKP_ERR_DEVICE:
	case ZKP_ERR_CONFIG: return ZKP_GRPC_INTERNAL;
	default: return ZKP_GRPC_INVALID_ARGUMENT; /* the request's content was wrong */
	}
}

enum zkp_grpc_code zkp_cuzk_status_of_name(const char *name)
{
	for (int code = -1; code >= ZKP_ERR_DEVICE; code--)
		if (strcmp(zkp_err_name(code), name) == 0)
			return zkp_cuzk_status_of_error(code);
	return ZKP_GRPC_UNKNOWN;
}

/* ---- circuits ---- */

static const char *const kind_names[] = {
	[CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED] = "PROOF_KIND_UNSPECIFIED",
	[CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT] = "POREP_SEAL_COMMIT",
	[CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE] = "SNAP_DEALS_UPDATE",
	[CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION] = "WINDOW_POST_PARTITION",
	[CUZK__V1__PROOF_KIND__WINNING_POST] = "WINNING_POST",
};
#define N_KINDS 5

/* The sector size a circuit serves kind at; 0 when it does not. */
static uint64_t circuit_size(const zkp_config_circuit *c, int kind)
{
	switch (kind) {
	case CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT: return c->porep_sector_size;
	case CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE: return c->snap_sector_size;
	case CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION: return c->window_post_sector_size;
	case CUZK__V1__PROOF_KIND__WINNING_POST: return c->winning_post_sector_size;
	}
	return 0;
}

static const zkp_config_circuit *circuit_of_kind(const zkp_config *cfg, int kind, uint64_t size)
{
	for (size_t i = 0; i < cfg->n_circuits; i++)
		if (size && circuit_size(&cfg->circuits[i], kind) == size)
			return &cfg->circuits[i];
	return NULL;
}

/* The sector size a Filecoin proof type number means for kind; 0 when the
 * number is not one of that kind's. Seal (PoRep): StackedDrg 2KiB, 8MiB,
 * 512MiB, 32GiB, 64GiB as V1 (0-4), V1_1 (5-9), V1_1 with synthetic PoRep
 * (10-14) and V1_2 non-interactive (15-19). Update (SnapDeals): V1 (0-4).
 * PoSt: Winning V1 (0-4), Window V1 (5-9) and V1_1 (10-14). */
static uint64_t size_of_proof(int kind, uint64_t rp)
{
	static const uint64_t sizes[5] = { 2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30,
					   64ull << 30 };
	switch (kind) {
	case CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT: return rp < 20 ? sizes[rp % 5] : 0;
	case CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE: return rp < 5 ? sizes[rp] : 0;
	case CUZK__V1__PROOF_KIND__WINNING_POST: return rp < 5 ? sizes[rp] : 0;
	case CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION:
		return rp >= 5 && rp < 15 ? sizes[rp % 5] : 0;
	}
	return 0;
}

/* "32g" -> 32 GiB; 0 when not a size. */
static uint64_t parse_size(const char *s)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift;
	switch (tolower((unsigned char)*end)) {
	case 'k': shift = 10; break;
	case 'm': shift = 20; break;
	case 'g': shift = 30; break;
	case 't': shift = 40; break;
	default: return 0;
	}
	if (end[1] || v == 0 || v > (UINT64_MAX >> shift))
		return 0;
	return (uint64_t)v << shift;
}

const char *zkp_cuzk_circuit_for_id(const zkp_config *cfg, const char *id)
{
	static const struct {
		const char *prefix;
		int kind;
	} kinds[] = {
		{ "porep-", CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT },
		{ "snap-", CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE },
		{ "wpost-", CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION },
		{ "winning-", CUZK__V1__PROOF_KIND__WINNING_POST },
	};
	for (size_t i = 0; i < cfg->n_circuits; i++)
		if (strcmp(cfg->circuits[i].name, id) == 0)
			return cfg->circuits[i].name;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = strlen(kinds[k].prefix);
		if (strncasecmp(id, kinds[k].prefix, n) != 0)
			continue;
		const zkp_config_circuit *c = circuit_of_kind(cfg, kinds[k].kind, parse_size(id + n));
		return c ? c->name : NULL;
	}
	return NULL;
}

/* ---- requests ---- */

static int parse_job_id(const char *s, uint64_t *ret, zkp_error *err)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		goto bad;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v == 0 || v == ULLONG_MAX)
		goto bad;
	*ret = v;
	return 0;
bad:
	return zkp_error_set(err, ZKP_ERR_INVAL,
			     "job_id: \"%.64s\" is not a job id (expected the decimal id "
			     "SubmitProof returned)",
			     s);
}

static int need32(const ProtobufCBinaryData *b, const char *field, zkp_error *err)
{
	if (b->len != 32)
		return zkp_error_set(err, ZKP_ERR_INVAL, "%s: %zu bytes (expected 32)", field,
				     b->len);
	return 0;
}

static Zkpd__V1__Priority priority_of(Cuzk__V1__Priority p)
{
	switch (p) {
	case CUZK__V1__PRIORITY__LOW: return ZKPD__V1__PRIORITY__PRIORITY_LOW;
	case CUZK__V1__PRIORITY__HIGH: return ZKPD__V1__PRIORITY__PRIORITY_HIGH;
	case CUZK__V1__PRIORITY__CRITICAL: return ZKPD__V1__PRIORITY__PRIORITY_CRITICAL;
	default: return ZKPD__V1__PRIORITY__PRIORITY_NORMAL;
	}
}

/* Fills sub (its witness in w, snap, post) from a SubmitProofRequest; the
 * pointers borrow from req. */
static int submit_of(Zkpd__V1__SubmitRequest *sub, Zkpd__V1__Witness *w,
		     Zkpd__V1__SnapUpdate *snap, Zkpd__V1__PostPartition *post,
		     const Cuzk__V1__SubmitProofRequest *req, const zkp_config *cfg,
		     char circuit[ZKP_CONFIG_NAME_MAX], zkp_error *err)
{
	int kind = req->proof_kind;
	if (kind <= 0 || kind >= N_KINDS)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "proof_kind: %d (expected POREP_SEAL_COMMIT, "
				     "SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION or WINNING_POST)",
				     kind);
	/* Curio leaves sector_size unset on some paths (ProofShare's
	 * SnapDeals): the proof type names the size, as cuzk takes it. */
	uint64_t size = req->sector_size;
	if (size == 0)
		size = size_of_proof(kind, req->registered_proof);
	if (size == 0)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "sector_size: 0 and registered_proof: %" PRIu64
				     " (not a %s proof type): expected the sector size in bytes "
				     "(such as 34359738368) or the Filecoin proof type's number",
				     req->registered_proof, kind_names[kind]);
	if ((int)req->priority < 0 || req->priority > CUZK__V1__PRIORITY__CRITICAL)
		return zkp_error_set(err, ZKP_ERR_INVAL, "priority: %d (expected 0 to 4)",
				     (int)req->priority);
	const zkp_config_circuit *c = circuit_of_kind(cfg, kind, size);
	if (!c)
		return zkp_error_set(err, ZKP_ERR_NOT_FOUND,
				     "no circuit in the configuration serves %s at sector_size "
				     "%" PRIu64 "%s (expected a [circuit.NAME] with %s = %" PRIu64 ")",
				     kind_names[kind], size,
				     req->sector_size ? "" : " (from registered_proof)",
				     kind == CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT ? "porep_sector_size"
				     : kind == CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE
					     ? "snap_sector_size"
				     : kind == CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION
					     ? "window_post_sector_size"
					     : "winning_post_sector_size",
				     size);
	snprintf(circuit, ZKP_CONFIG_NAME_MAX, "%s", c->name);
	sub->circuit = circuit;
	sub->witness = w;
	sub->priority = priority_of(req->priority);
	sub->request_id = req->request_id;
	sub->format = ZKPD__V1__PROOF_FORMAT__PROOF_FORMAT_BYTES;
	switch (kind) {
	case CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT:
		if (req->vanilla_proof.len == 0)
			return zkp_error_set(err, ZKP_ERR_INVAL,
					     "vanilla_proof: empty (expected the sector's C1 "
					     "output for POREP_SEAL_COMMIT)");
		w->source_case = ZKPD__V1__WITNESS__SOURCE_C1;
		w->c1 = req->vanilla_proof;
		return 0;
	case CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE:
		if (need32(&req->comm_r_old, "comm_r_old", err) ||
		    need32(&req->comm_r_new, "comm_r_new", err) ||
		    need32(&req->comm_d_new, "comm_d_new", err))
			return ZKP_ERR_INVAL;
		if (req->n_vanilla_proofs == 0)
			return zkp_error_set(err, ZKP_ERR_INVAL,
					     "vanilla_proofs: none (expected one PartitionProof per "
					     "partition for SNAP_DEALS_UPDATE)");
		snap->comm_r_old = req->comm_r_old;
		snap->comm_r_new = req->comm_r_new;
		snap->comm_d_new = req->comm_d_new;
		snap->n_partition_proofs = req->n_vanilla_proofs;
		snap->partition_proofs = req->vanilla_proofs;
		w->source_case = ZKPD__V1__WITNESS__SOURCE_SNAP;
		w->snap = snap;
		return 0;
	default:
		if (need32(&req->randomness, "randomness", err))
			return ZKP_ERR_INVAL;
		if (req->n_vanilla_proofs == 0)
			return zkp_error_set(err, ZKP_ERR_INVAL,
					     "vanilla_proofs: none (expected one "
					     "FallbackPoStSectorProof per sector for %s)",
					     kind_names[kind]);
		post->registered_proof = req->registered_proof;
		post->randomness = req->randomness;
		post->partition_index = req->partition_index;
		post->n_sector_proofs = req->n_vanilla_proofs;
		post->sector_proofs = req->vanilla_proofs;
		w->source_case = ZKPD__V1__WITNESS__SOURCE_POST;
		w->post = post;
		return 0;
	}
}

static int pack_envelope(zkp_cuzk_request *ret, Zkpd__V1__Request *rq, uint64_t call_id,
			 zkp_error *err)
{
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = call_id;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_REQUEST;
	env.request = rq;
	size_t n = zkpd__v1__envelope__get_packed_size(&env);
	ret->envelope = malloc(n ? n : 1);
	if (!ret->envelope)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory for a %zu-byte request",
				     n);
	ret->envelope_len = zkpd__v1__envelope__pack(&env, ret->envelope);
	return 0;
}

static int circuit_id_of(zkp_cuzk_request *ret, const zkp_config *cfg, const char *id,
			 zkp_error *err)
{
	const char *name = zkp_cuzk_circuit_for_id(cfg, id);
	if (!name)
		return zkp_error_set(err, ZKP_ERR_NOT_FOUND,
				     "circuit_id: no configured circuit \"%.64s\" (expected a "
				     "circuit name or KIND-SIZE such as porep-32g, snap-2k, "
				     "wpost-32g, winning-32g)",
				     id);
	snprintf(ret->circuit, sizeof(ret->circuit), "%s", name);
	return 0;
}

int zkp_cuzk_request_decode(zkp_cuzk_request *ret, const zkp_config *cfg, enum zkp_cuzk_method m,
			    const uint8_t *msg, size_t len, uint64_t call_id, zkp_error *err)
{
	memset(ret, 0, sizeof(*ret));
	ret->method = m;
	Zkpd__V1__Request rq = ZKPD__V1__REQUEST__INIT;
	Zkpd__V1__SubmitRequest sub = ZKPD__V1__SUBMIT_REQUEST__INIT;
	Zkpd__V1__Witness w = ZKPD__V1__WITNESS__INIT;
	Zkpd__V1__SnapUpdate snap = ZKPD__V1__SNAP_UPDATE__INIT;
	Zkpd__V1__PostPartition post = ZKPD__V1__POST_PARTITION__INIT;
	Zkpd__V1__ProveRequest prove = ZKPD__V1__PROVE_REQUEST__INIT;
	Zkpd__V1__AwaitRequest await = ZKPD__V1__AWAIT_REQUEST__INIT;
	Zkpd__V1__CancelRequest cancel = ZKPD__V1__CANCEL_REQUEST__INIT;
	Zkpd__V1__StatusRequest status = ZKPD__V1__STATUS_REQUEST__INIT;
	Zkpd__V1__MetricsRequest metrics = ZKPD__V1__METRICS_REQUEST__INIT;
	Zkpd__V1__LoadCircuitRequest load = ZKPD__V1__LOAD_CIRCUIT_REQUEST__INIT;
	Zkpd__V1__UnloadCircuitRequest unload = ZKPD__V1__UNLOAD_CIRCUIT_REQUEST__INIT;
	ProtobufCMessage *in = NULL;
	int rc = 0;

#define UNPACK(type, lower)                                                              \
	do {                                                                             \
		in = (ProtobufCMessage *)lower##__unpack(NULL, len, msg);                \
		if (!in)                                                                 \
			return zkp_error_set(err, ZKP_ERR_PROTOCOL,                      \
					     "%s: %zu bytes that are not a cuzk.v1." #type,   \
					     zkp_cuzk_method_name(m), len);              \
	} while (0)

	switch (m) {
	case ZKP_CUZK_SUBMIT: {
		UNPACK(SubmitProofRequest, cuzk__v1__submit_proof_request);
		rc = submit_of(&sub, &w, &snap, &post, (Cuzk__V1__SubmitProofRequest *)in, cfg,
			       ret->circuit, err);
		rq.call_case = ZKPD__V1__REQUEST__CALL_SUBMIT;
		rq.submit = &sub;
		break;
	}
	case ZKP_CUZK_PROVE: {
		UNPACK(ProveRequest, cuzk__v1__prove_request);
		Cuzk__V1__ProveRequest *p = (Cuzk__V1__ProveRequest *)in;
		if (!p->submit) {
			rc = zkp_error_set(err, ZKP_ERR_INVAL,
					   "submit: missing (expected the SubmitProofRequest)");
			break;
		}
		rc = submit_of(&sub, &w, &snap, &post, p->submit, cfg, ret->circuit, err);
		prove.submit = &sub;
		rq.call_case = ZKPD__V1__REQUEST__CALL_PROVE;
		rq.prove = &prove;
		break;
	}
	case ZKP_CUZK_AWAIT: {
		UNPACK(AwaitProofRequest, cuzk__v1__await_proof_request);
		Cuzk__V1__AwaitProofRequest *a = (Cuzk__V1__AwaitProofRequest *)in;
		rc = parse_job_id(a->job_id, &await.job_id, err);
		await.timeout_ms = a->timeout_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)a->timeout_ms;
		rq.call_case = ZKPD__V1__REQUEST__CALL_AWAIT;
		rq.await = &await;
		break;
	}
	case ZKP_CUZK_CANCEL: {
		UNPACK(CancelProofRequest, cuzk__v1__cancel_proof_request);
		rc = parse_job_id(((Cuzk__V1__CancelProofRequest *)in)->job_id, &cancel.job_id,
				  err);
		rq.call_case = ZKPD__V1__REQUEST__CALL_CANCEL;
		rq.cancel = &cancel;
		break;
	}
	case ZKP_CUZK_STATUS:
		UNPACK(GetStatusRequest, cuzk__v1__get_status_request);
		rq.call_case = ZKPD__V1__REQUEST__CALL_STATUS;
		rq.status = &status;
		break;
	case ZKP_CUZK_METRICS:
		UNPACK(GetMetricsRequest, cuzk__v1__get_metrics_request);
		rq.call_case = ZKPD__V1__REQUEST__CALL_METRICS;
		rq.metrics = &metrics;
		break;
	case ZKP_CUZK_PRELOAD:
		UNPACK(PreloadSrsRequest, cuzk__v1__preload_srs_request);
		rc = circuit_id_of(ret, cfg, ((Cuzk__V1__PreloadSrsRequest *)in)->circuit_id, err);
		load.circuit = ret->circuit;
		rq.call_case = ZKPD__V1__REQUEST__CALL_LOAD_CIRCUIT;
		rq.load_circuit = &load;
		break;
	case ZKP_CUZK_EVICT:
		UNPACK(EvictSrsRequest, cuzk__v1__evict_srs_request);
		rc = circuit_id_of(ret, cfg, ((Cuzk__V1__EvictSrsRequest *)in)->circuit_id, err);
		unload.circuit = ret->circuit;
		rq.call_case = ZKPD__V1__REQUEST__CALL_UNLOAD_CIRCUIT;
		rq.unload_circuit = &unload;
		break;
	default:
		return zkp_error_set(err, ZKP_ERR_UNSUPPORTED, "no such cuzk.v1 method");
	}
#undef UNPACK
	if (rc == 0)
		rc = pack_envelope(ret, &rq, call_id, err);
	protobuf_c_message_free_unpacked(in, NULL);
	return rc;
}

void zkp_cuzk_request_release(zkp_cuzk_request *r)
{
	free(r->envelope);
	r->envelope = NULL;
}

/* ---- responses ---- */

static uint64_t ms(double seconds)
{
	return seconds > 0 ? (uint64_t)(seconds * 1000.0 + 0.5) : 0;
}

static void job_id_text(char buf[24], uint64_t id)
{
	snprintf(buf, 24, "%" PRIu64, id);
}

static void result_of(Cuzk__V1__AwaitProofResponse *r, const Zkpd__V1__JobResult *res,
		      char id[24], char *errbuf, size_t errlen)
{
	job_id_text(id, res->job_id);
	r->job_id = id;
	switch (res->state) {
	case ZKPD__V1__JOB_STATE__JOB_STATE_DONE:
		r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
		r->proof = res->proof;
		break;
	case ZKPD__V1__JOB_STATE__JOB_STATE_FAILED:
		r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
		break;
	case ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED:
		r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
		break;
	case ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED:
	case ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING:
		r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
		break;
	default:
		r->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN;
	}
	if (res->error_code && *res->error_code) {
		snprintf(errbuf, errlen, "%s: %s", res->error_code, res->error_message);
		r->error_message = errbuf;
	} else if (res->error_message && *res->error_message) {
		r->error_message = res->error_message;
	}
	double st[ZKPD__V1__STAGE__STAGE_DONE + 1] = { 0 };
	for (size_t i = 0; i < res->n_stages; i++)
		if ((unsigned)res->stages[i]->stage <= ZKPD__V1__STAGE__STAGE_DONE)
			st[res->stages[i]->stage] += res->stages[i]->seconds;
	r->queue_wait_ms = ms(res->queue_seconds);
	r->srs_load_ms = ms(st[ZKPD__V1__STAGE__STAGE_LOAD]);
	r->synthesis_ms = ms(st[ZKPD__V1__STAGE__STAGE_WITNESS] + st[ZKPD__V1__STAGE__STAGE_EVAL]);
	r->gpu_compute_ms = ms(st[ZKPD__V1__STAGE__STAGE_NTT] + st[ZKPD__V1__STAGE__STAGE_MSM]);
	r->total_ms = ms(res->total_seconds);
}

/* The cuzk proof kind a circuit serves (PROOF_KIND_UNSPECIFIED: none). */
static int kind_of_circuit(const Zkpd__V1__CircuitStatus *c)
{
	if (c->porep_sector_bytes)
		return CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
	if (c->snap_sector_bytes)
		return CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE;
	if (c->window_post_sector_bytes)
		return CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION;
	if (c->winning_post_sector_bytes)
		return CUZK__V1__PROOF_KIND__WINNING_POST;
	return CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED;
}

static int kind_of_job(const Zkpd__V1__StatusResponse *s, const char *circuit)
{
	for (size_t i = 0; i < s->n_circuits; i++)
		if (strcmp(s->circuits[i]->name, circuit) == 0)
			return kind_of_circuit(s->circuits[i]);
	return CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED;
}

/* GetStatusResponse from zkpd's Status; packs it into *out. */
static enum zkp_grpc_code status_of(const Zkpd__V1__StatusResponse *s, uint8_t **out,
				    size_t *out_len, char *msg, size_t msglen)
{
	Cuzk__V1__GetStatusResponse r = CUZK__V1__GET_STATUS_RESPONSE__INIT;
	size_t n_dev = s->n_devices, n_cir = s->n_circuits;
	Cuzk__V1__GPUStatus *gpus = calloc(n_dev + 1, sizeof(*gpus));
	Cuzk__V1__GPUStatus **gpup = calloc(n_dev + 1, sizeof(*gpup));
	Cuzk__V1__SRSStatus *srs = calloc(n_cir + 1, sizeof(*srs));
	Cuzk__V1__SRSStatus **srsp = calloc(n_cir + 1, sizeof(*srsp));
	char (*jobs)[24] = calloc(n_dev + 1, sizeof(*jobs));
	Cuzk__V1__QueueStatus q[N_KINDS], *qp[N_KINDS];
	enum zkp_grpc_code code = ZKP_GRPC_OK;
	*out = NULL;
	if (!gpus || !gpup || !srs || !srsp || !jobs) {
		snprintf(msg, msglen, "out of memory for the status");
		code = ZKP_GRPC_RESOURCE_EXHAUSTED;
		goto out;
	}
	for (size_t i = 0; i < n_dev; i++) {
		const Zkpd__V1__DeviceStatus *d = s->devices[i];
		unsigned ordinal;
		if (strcmp(d->kind, "cuda") != 0 || sscanf(d->name, "cuda:%u", &ordinal) != 1)
			continue; /* the CPU backend is not a GPU */
		Cuzk__V1__GPUStatus *g = &gpus[r.n_gpus];
		cuzk__v1__gpustatus__init(g);
		g->ordinal = ordinal;
		g->name = d->name;
		g->vram_total_bytes = d->memory_bytes;
		g->vram_free_bytes =
			d->memory_bytes > d->memory_used_bytes ? d->memory_bytes - d->memory_used_bytes
							       : 0;
		for (size_t p = 0; p < s->n_pipelines; p++) {
			const Zkpd__V1__PipelineStatus *pl = s->pipelines[p];
			if (strcmp(pl->device, d->name) != 0 || !pl->device_job)
				continue;
			job_id_text(jobs[r.n_gpus], pl->device_job);
			g->current_job_id = jobs[r.n_gpus];
			for (size_t j = 0; j < s->n_jobs; j++)
				if (s->jobs[j]->job_id == pl->device_job)
					g->current_proof_kind =
						(char *)kind_names[kind_of_job(s, s->jobs[j]->circuit)];
			break;
		}
		gpup[r.n_gpus++] = g;
	}
	r.gpus = gpup;
	bool served[N_KINDS] = { false };
	for (size_t i = 0; i < n_cir; i++) {
		const Zkpd__V1__CircuitStatus *c = s->circuits[i];
		cuzk__v1__srsstatus__init(&srs[i]);
		srs[i].circuit_id = c->name;
		srs[i].tier = c->loaded ? CUZK__V1__SRSSTATUS__TIER__HOT : CUZK__V1__SRSSTATUS__TIER__COLD;
		srs[i].size_bytes = c->pce_bytes + c->key_bytes;
		srs[i].ref_count = c->refcount;
		srsp[i] = &srs[i];
		served[kind_of_circuit(c)] = true;
	}
	r.n_loaded_srs = n_cir;
	r.loaded_srs = srsp;
	for (int k = 0; k < N_KINDS; k++) {
		if (!served[k])
			continue;
		Cuzk__V1__QueueStatus *qs = &q[r.n_queues];
		cuzk__v1__queue_status__init(qs);
		qs->proof_kind = (char *)kind_names[k];
		for (size_t j = 0; j < s->n_jobs; j++) {
			const Zkpd__V1__JobSummary *js = s->jobs[j];
			if (js->parent_job_id || kind_of_job(s, js->circuit) != k)
				continue; /* a partition counts in its split job */
			if (js->state == ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED)
				qs->pending++;
			else if (js->state == ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING)
				qs->in_progress++;
		}
		qp[r.n_queues++] = qs;
	}
	r.queues = qp;
	r.total_proofs_completed = s->jobs_done;
	r.total_proofs_failed = s->jobs_failed;
	r.uptime_seconds = s->uptime_seconds > 0 ? (uint64_t)s->uptime_seconds : 0;
	if (s->memory) {
		r.pinned_memory_bytes = s->memory->reserved_bytes;
		r.pinned_memory_limit_bytes = s->memory->budget_bytes;
	}
	*out_len = cuzk__v1__get_status_response__get_packed_size(&r);
	*out = malloc(*out_len ? *out_len : 1);
	if (!*out) {
		snprintf(msg, msglen, "out of memory for the status");
		code = ZKP_GRPC_RESOURCE_EXHAUSTED;
		goto out;
	}
	cuzk__v1__get_status_response__pack(&r, *out);
out:
	free(gpus);
	free(gpup);
	free(srs);
	free(srsp);
	free(jobs);
	return code;
}

enum zkp_grpc_code zkp_cuzk_response_encode(enum zkp_cuzk_method m,
					    const Zkpd__V1__Envelope *env,
					    const zkp_cuzk_context *ctx, uint8_t **out,
					    size_t *out_len, char *msg, size_t msglen)
{
	*out = NULL;
	*out_len = 0;
	msg[0] = 0;
	if (env->body_case == ZKPD__V1__ENVELOPE__BODY_ERROR) {
		snprintf(msg, msglen, "%s: %s", env->error->code, env->error->message);
		enum zkp_grpc_code c = zkp_cuzk_status_of_name(env->error->code);
		return c == ZKP_GRPC_OK ? ZKP_GRPC_UNKNOWN : c;
	}
	const Zkpd__V1__Response *rs =
		env->body_case == ZKPD__V1__ENVELOPE__BODY_RESPONSE ? env->response : NULL;
	static const Zkpd__V1__Response__CallCase want[] = {
		[ZKP_CUZK_SUBMIT] = ZKPD__V1__RESPONSE__CALL_SUBMIT,
		[ZKP_CUZK_AWAIT] = ZKPD__V1__RESPONSE__CALL_RESULT,
		[ZKP_CUZK_PROVE] = ZKPD__V1__RESPONSE__CALL_RESULT,
		[ZKP_CUZK_CANCEL] = ZKPD__V1__RESPONSE__CALL_CANCEL,
		[ZKP_CUZK_STATUS] = ZKPD__V1__RESPONSE__CALL_STATUS,
		[ZKP_CUZK_METRICS] = ZKPD__V1__RESPONSE__CALL_METRICS,
		[ZKP_CUZK_PRELOAD] = ZKPD__V1__RESPONSE__CALL_LOAD_CIRCUIT,
		[ZKP_CUZK_EVICT] = ZKPD__V1__RESPONSE__CALL_UNLOAD_CIRCUIT,
	};
	if (m == ZKP_CUZK_UNKNOWN || !rs || rs->call_case != want[m]) {
		snprintf(msg, msglen, "%s: the engine's answer was not a %s answer",
			 zkp_cuzk_method_name(m), zkp_cuzk_method_name(m));
		return ZKP_GRPC_INTERNAL;
	}
	if (m == ZKP_CUZK_STATUS)
		return status_of(rs->status, out, out_len, msg, msglen);

	char id[24], errbuf[600];
	union {
		Cuzk__V1__SubmitProofResponse submit;
		Cuzk__V1__AwaitProofResponse await;
		Cuzk__V1__CancelProofResponse cancel;
		Cuzk__V1__GetMetricsResponse metrics;
		Cuzk__V1__PreloadSrsResponse preload;
		Cuzk__V1__EvictSrsResponse evict;
	} u;
	Cuzk__V1__ProveResponse prove = CUZK__V1__PROVE_RESPONSE__INIT;
	const ProtobufCMessage *top;
	switch (m) {
	case ZKP_CUZK_SUBMIT:
		cuzk__v1__submit_proof_response__init(&u.submit);
		job_id_text(id, rs->submit->job_id);
		u.submit.job_id = id;
		u.submit.queue_position = ctx->queue_position;
		top = &u.submit.base;
		break;
	case ZKP_CUZK_AWAIT:
	case ZKP_CUZK_PROVE:
		cuzk__v1__await_proof_response__init(&u.await);
		result_of(&u.await, rs->result, id, errbuf, sizeof(errbuf));
		if (m == ZKP_CUZK_PROVE) {
			prove.result = &u.await;
			top = &prove.base;
		} else {
			top = &u.await.base;
		}
		break;
	case ZKP_CUZK_CANCEL:
		cuzk__v1__cancel_proof_response__init(&u.cancel);
		u.cancel.was_running =
			rs->cancel->state == ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING;
		top = &u.cancel.base;
		break;
	case ZKP_CUZK_METRICS:
		cuzk__v1__get_metrics_response__init(&u.metrics);
		u.metrics.prometheus_text = rs->metrics->text;
		top = &u.metrics.base;
		break;
	case ZKP_CUZK_PRELOAD:
		cuzk__v1__preload_srs_response__init(&u.preload);
		u.preload.already_loaded = ctx->was_loaded;
		u.preload.load_time_ms = ctx->was_loaded ? 0 : ms(ctx->seconds);
		top = &u.preload.base;
		break;
	default: /* EVICT */
		cuzk__v1__evict_srs_response__init(&u.evict);
		u.evict.was_loaded = ctx->was_loaded;
		u.evict.freed_bytes = ctx->was_loaded ? ctx->circuit_bytes : 0;
		top = &u.evict.base;
		break;
	}
	*out_len = protobuf_c_message_get_packed_size(top);
	*out = malloc(*out_len ? *out_len : 1);
	if (!*out) {
		snprintf(msg, msglen, "out of memory for a %zu-byte answer", *out_len);
		return ZKP_GRPC_RESOURCE_EXHAUSTED;
	}
	protobuf_c_message_pack(top, *out);
	return ZKP_GRPC_OK;
}
