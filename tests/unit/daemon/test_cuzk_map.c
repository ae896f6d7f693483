/*
 * cuzk_map: every cuzk.v1 path to its method and back; circuit_ids (names
 * and KIND-SIZE in any case) to configured circuits; every cuzk.v1 request
 * through zkp_cuzk_request_decode into the zkpd.v1 Envelope it builds
 * (call_id, call, circuit, priority, request_id, the C1, SnapDeals and PoSt
 * witnesses), and each malformed field refused with its code and a message
 * naming it; zkpd.v1 Responses and Errors built by hand through
 * zkp_cuzk_response_encode into the cuzk.v1 answers (job results and their
 * timings, cancel, status with GPUs, SRS tiers and per-kind queues,
 * metrics, preload, evict) and the gRPC status of each error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/v1/proving.pb-c.h"
#include "cuzk_map.h"
#include "testutil.h"
#include "zkpd/config.h"
#include "zkpd/v1/zkpd.pb-c.h"

#define GIB (UINT64_C(1) << 30)

static zkp_config cfg;

static void add_circuit(const char *name, uint64_t porep, uint64_t snap, uint64_t wpost,
			uint64_t winning)
{
	zkp_config_circuit c = { .pce = "c.pce", .key = "c.zkey",
				 .porep_sector_size = porep,
				 .snap_sector_size = snap,
				 .window_post_sector_size = wpost,
				 .winning_post_sector_size = winning };
	snprintf(c.name, sizeof(c.name), "%s", name);
	zkp_error err = { 0 };
	assert_int_equal(zkp_config_add_circuit(&cfg, &c, &err), 0);
}

static int setup(void **state)
{
	(void)state;
	zkp_config_init(&cfg);
	add_circuit("plain", 0, 0, 0, 0);
	add_circuit("porep-2k", 2048, 0, 0, 0);
	add_circuit("snap-32g", 0, 32 * GIB, 0, 0);
	add_circuit("wpost-32g", 0, 0, 32 * GIB, 0);
	add_circuit("winning-2k", 0, 0, 0, 2048);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zkp_config_release(&cfg);
	return 0;
}

/* ---- helpers ---- */

static ProtobufCBinaryData bin(const void *p, size_t n)
{
	ProtobufCBinaryData b = { .len = n, .data = (uint8_t *)p };
	return b;
}

static uint8_t *pack_msg(const ProtobufCMessage *m, size_t *len)
{
	*len = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(*len ? *len : 1);
	assert_non_null(buf);
	assert_int_equal(protobuf_c_message_pack(m, buf), *len);
	return buf;
}

/* Packs msg and decodes it as method m, which must succeed; returns the
 * envelope built, unpacked (free with zkpd__v1__envelope__free_unpacked),
 * and copies the request's circuit into circuit (when not NULL). */
static Zkpd__V1__Envelope *decode_ok(enum zkp_cuzk_method m, const ProtobufCMessage *msg,
				     uint64_t call_id, char circuit[ZKP_CONFIG_NAME_MAX])
{
	size_t len;
	uint8_t *buf = pack_msg(msg, &len);
	zkp_cuzk_request r;
	zkp_error err = { 0 };
	int rc = zkp_cuzk_request_decode(&r, &cfg, m, buf, len, call_id, &err);
	free(buf);
	if (rc != 0)
		fail_msg("decode: %d %s", rc, err.msg);
	assert_int_equal(r.method, m);
	assert_non_null(r.envelope);
	assert_true(r.envelope_len > 0);
	Zkpd__V1__Envelope *env = zkpd__v1__envelope__unpack(NULL, r.envelope_len, r.envelope);
	assert_non_null(env);
	assert_int_equal(env->call_id, call_id);
	assert_int_equal(env->body_case, ZKPD__V1__ENVELOPE__BODY_REQUEST);
	if (circuit)
		snprintf(circuit, ZKP_CONFIG_NAME_MAX, "%s", r.circuit);
	zkp_cuzk_request_release(&r);
	assert_null(r.envelope);
	return env;
}

/* Decodes raw bytes as method m, which must fail with code and a message
 * holding want. */
static void decode_raw_err(enum zkp_cuzk_method m, const uint8_t *buf, size_t len, int code,
			   const char *want)
{
	zkp_cuzk_request r;
	zkp_error err = { 0 };
	assert_int_equal(zkp_cuzk_request_decode(&r, &cfg, m, buf, len, 1, &err), code);
	assert_null(r.envelope);
	assert_int_equal(err.code, code);
	if (!strstr(err.msg, want))
		fail_msg("\"%s\" does not name \"%s\"", err.msg, want);
	zkp_cuzk_request_release(&r);
}

static void decode_err(enum zkp_cuzk_method m, const ProtobufCMessage *msg, int code,
		       const char *want)
{
	size_t len;
	uint8_t *buf = pack_msg(msg, &len);
	decode_raw_err(m, buf, len, code, want);
	free(buf);
}

/* ---- methods ---- */

static void test_method_of(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		enum zkp_cuzk_method m;
	} all[] = {
		{ "SubmitProof", ZKP_CUZK_SUBMIT }, { "AwaitProof", ZKP_CUZK_AWAIT },
		{ "Prove", ZKP_CUZK_PROVE },        { "CancelProof", ZKP_CUZK_CANCEL },
		{ "GetStatus", ZKP_CUZK_STATUS },   { "GetMetrics", ZKP_CUZK_METRICS },
		{ "PreloadSRS", ZKP_CUZK_PRELOAD }, { "EvictSRS", ZKP_CUZK_EVICT },
	};
	char path[128];
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		int n = snprintf(path, sizeof(path), "/cuzk.v1.ProvingEngine/%s", all[i].name);
		assert_int_equal(zkp_cuzk_method_of(path, (size_t)n), all[i].m);
		assert_string_equal(zkp_cuzk_method_name(all[i].m), all[i].name);
		/* a trailing byte, one byte short */
		path[n] = 'x';
		assert_int_equal(zkp_cuzk_method_of(path, (size_t)n + 1), ZKP_CUZK_UNKNOWN);
		assert_int_equal(zkp_cuzk_method_of(path, (size_t)n - 1), ZKP_CUZK_UNKNOWN);
	}
	/* the length given is what counts, not a NUL */
	const char *two = "/cuzk.v1.ProvingEngine/ProveX";
	assert_int_equal(zkp_cuzk_method_of(two, strlen(two) - 1), ZKP_CUZK_PROVE);

	static const char *const bad[] = {
		"/cuzk.v1.ProvingEngine/Nope", "/other.Service/Prove",
		"/cuzk.v1.ProvingEngine/",     "/cuzk.v1.ProvingEngine",
		"/cuzk.v1.ProvingEngine/prove", "/cuzk.v2.ProvingEngine/Prove",
		"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(zkp_cuzk_method_of(bad[i], strlen(bad[i])), ZKP_CUZK_UNKNOWN);
	assert_string_equal(zkp_cuzk_method_name(ZKP_CUZK_UNKNOWN), "?");
}

static void test_status_of_error(void **state)
{
	(void)state;
	assert_int_equal(zkp_cuzk_status_of_error(0), ZKP_GRPC_OK);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_NOT_FOUND), ZKP_GRPC_NOT_FOUND);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_BUSY), ZKP_GRPC_FAILED_PRECONDITION);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_FORMAT), ZKP_GRPC_INVALID_ARGUMENT);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_INVAL), ZKP_GRPC_INVALID_ARGUMENT);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_PROTOCOL), ZKP_GRPC_INVALID_ARGUMENT);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_LIMIT), ZKP_GRPC_RESOURCE_EXHAUSTED);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_NOMEM), ZKP_GRPC_RESOURCE_EXHAUSTED);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_SHUTDOWN), ZKP_GRPC_UNAVAILABLE);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_UNSUPPORTED), ZKP_GRPC_UNIMPLEMENTED);
	assert_int_equal(zkp_cuzk_status_of_error(ZKP_ERR_DEVICE), ZKP_GRPC_INTERNAL);

	assert_int_equal(zkp_cuzk_status_of_name("ERR_NOT_FOUND"), ZKP_GRPC_NOT_FOUND);
	assert_int_equal(zkp_cuzk_status_of_name("ERR_DEVICE"), ZKP_GRPC_INTERNAL);
	assert_int_equal(zkp_cuzk_status_of_name("ERR_NOMEM"), ZKP_GRPC_RESOURCE_EXHAUSTED);
	assert_int_equal(zkp_cuzk_status_of_name("ERR_BOGUS"), ZKP_GRPC_UNKNOWN);
	assert_int_equal(zkp_cuzk_status_of_name(""), ZKP_GRPC_UNKNOWN);
}

/* ---- circuits ---- */

static void test_circuit_for_id(void **state)
{
	(void)state;
	static const struct {
		const char *id, *want;
	} cases[] = {
		{ "plain", "plain" },
		{ "porep-2k", "porep-2k" },
		{ "PoRep-2K", "porep-2k" },
		{ "porep-2048k", NULL }, /* 2 MiB */
		{ "snap-32g", "snap-32g" },
		{ "SNAP-32768m", "snap-32g" },
		{ "wpost-32G", "wpost-32g" },
		{ "wpost-32g", "wpost-32g" },
		{ "WINNING-2K", "winning-2k" },
		{ "winning-2k", "winning-2k" },
		{ "porep-32g", NULL },
		{ "snap-2k", NULL },
		{ "winning-32g", NULL },
		{ "porep-", NULL },
		{ "porep-0k", NULL },
		{ "porep-2x", NULL },
		{ "porep-2", NULL },
		{ "porep-k", NULL },
		{ "porep-2kk", NULL },
		{ "porep--2k", NULL },
		{ "Plain", NULL },
		{ "bogus", NULL },
		{ "", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = zkp_cuzk_circuit_for_id(&cfg, cases[i].id);
		if (cases[i].want == NULL) {
			if (got)
				fail_msg("%s -> %s, expected none", cases[i].id, got);
		} else {
			if (!got)
				fail_msg("%s -> none, expected %s", cases[i].id, cases[i].want);
			assert_string_equal(got, cases[i].want);
		}
	}
}

/* ---- requests ---- */

static const uint8_t c1[] = "{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}";
static uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32], rnd[32];
static uint8_t vp0[] = "vanilla-0", vp1[] = "vanilla-one", vp2[] = "v2";
static ProtobufCBinaryData vps[3];

enum kind { POREP, SNAP, WPOST, WINNING, N_TEST_KINDS };
static const char *const kind_circuit[] = { "porep-2k", "snap-32g", "wpost-32g", "winning-2k" };

/* A valid SubmitProofRequest of kind k (its buffers are static). */
static void submit_of_kind(Cuzk__V1__SubmitProofRequest *r, enum kind k)
{
	cuzk__v1__submit_proof_request__init(r);
	memset(comm_r_old, 0x11, 32);
	memset(comm_r_new, 0x22, 32);
	memset(comm_d_new, 0x33, 32);
	for (int i = 0; i < 32; i++)
		rnd[i] = (uint8_t)(i * 7 + 1);
	vps[0] = bin(vp0, sizeof(vp0) - 1);
	vps[1] = bin(vp1, sizeof(vp1) - 1);
	vps[2] = bin(vp2, sizeof(vp2) - 1);
	r->sector_number = 17;
	r->miner_id = 1000;
	switch (k) {
	case POREP:
		r->proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
		r->sector_size = 2048;
		r->registered_proof = 8;
		r->vanilla_proof = bin(c1, sizeof(c1) - 1);
		break;
	case SNAP:
		r->proof_kind = CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE;
		r->sector_size = 32 * GIB;
		r->comm_r_old = bin(comm_r_old, 32);
		r->comm_r_new = bin(comm_r_new, 32);
		r->comm_d_new = bin(comm_d_new, 32);
		r->n_vanilla_proofs = 2;
		r->vanilla_proofs = vps;
		break;
	case WPOST:
		r->proof_kind = CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION;
		r->sector_size = 32 * GIB;
		r->registered_proof = 13;
		r->randomness = bin(rnd, 32);
		r->partition_index = 5;
		r->n_vanilla_proofs = 3;
		r->vanilla_proofs = vps;
		break;
	default:
		r->proof_kind = CUZK__V1__PROOF_KIND__WINNING_POST;
		r->sector_size = 2048;
		r->registered_proof = 0;
		r->randomness = bin(rnd, 32);
		r->n_vanilla_proofs = 1;
		r->vanilla_proofs = vps + 2;
		break;
	}
}

static void assert_bin_equal(ProtobufCBinaryData a, ProtobufCBinaryData b)
{
	assert_int_equal(a.len, b.len);
	if (a.len)
		assert_memory_equal(a.data, b.data, a.len);
}

/* sub is what req of kind k must have become. */
static void check_submit(const Zkpd__V1__SubmitRequest *sub,
			 const Cuzk__V1__SubmitProofRequest *req, enum kind k,
			 Zkpd__V1__Priority prio)
{
	assert_non_null(sub);
	assert_string_equal(sub->circuit, kind_circuit[k]);
	assert_int_equal(sub->priority, prio);
	assert_string_equal(sub->request_id, req->request_id);
	assert_int_equal(sub->format, ZKPD__V1__PROOF_FORMAT__PROOF_FORMAT_BYTES);
	const Zkpd__V1__Witness *w = sub->witness;
	assert_non_null(w);
	switch (k) {
	case POREP:
		assert_int_equal(w->source_case, ZKPD__V1__WITNESS__SOURCE_C1);
		assert_bin_equal(w->c1, req->vanilla_proof);
		break;
	case SNAP:
		assert_int_equal(w->source_case, ZKPD__V1__WITNESS__SOURCE_SNAP);
		assert_bin_equal(w->snap->comm_r_old, bin(comm_r_old, 32));
		assert_bin_equal(w->snap->comm_r_new, bin(comm_r_new, 32));
		assert_bin_equal(w->snap->comm_d_new, bin(comm_d_new, 32));
		assert_int_equal(w->snap->n_partition_proofs, req->n_vanilla_proofs);
		for (size_t i = 0; i < req->n_vanilla_proofs; i++)
			assert_bin_equal(w->snap->partition_proofs[i], req->vanilla_proofs[i]);
		break;
	default:
		assert_int_equal(w->source_case, ZKPD__V1__WITNESS__SOURCE_POST);
		assert_int_equal(w->post->registered_proof, req->registered_proof);
		assert_bin_equal(w->post->randomness, bin(rnd, 32));
		assert_int_equal(w->post->partition_index, req->partition_index);
		assert_int_equal(w->post->n_sector_proofs, req->n_vanilla_proofs);
		for (size_t i = 0; i < req->n_vanilla_proofs; i++)
			assert_bin_equal(w->post->sector_proofs[i], req->vanilla_proofs[i]);
		break;
	}
}

static void test_submit_and_prove(void **state)
{
	(void)state;
	static const struct {
		Cuzk__V1__Priority in;
		Zkpd__V1__Priority out;
	} prios[] = {
		{ CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED, ZKPD__V1__PRIORITY__PRIORITY_NORMAL },
		{ CUZK__V1__PRIORITY__LOW, ZKPD__V1__PRIORITY__PRIORITY_LOW },
		{ CUZK__V1__PRIORITY__NORMAL, ZKPD__V1__PRIORITY__PRIORITY_NORMAL },
		{ CUZK__V1__PRIORITY__HIGH, ZKPD__V1__PRIORITY__PRIORITY_HIGH },
		{ CUZK__V1__PRIORITY__CRITICAL, ZKPD__V1__PRIORITY__PRIORITY_CRITICAL },
	};
	uint64_t call_id = 1;
	for (int k = 0; k < N_TEST_KINDS; k++) {
		for (size_t p = 0; p < sizeof(prios) / sizeof(prios[0]); p++) {
			Cuzk__V1__SubmitProofRequest req;
			submit_of_kind(&req, (enum kind)k);
			req.priority = prios[p].in;
			char rid[32], circuit[ZKP_CONFIG_NAME_MAX];
			snprintf(rid, sizeof(rid), "req-%d-%zu", k, p);
			req.request_id = rid;

			/* SubmitProof -> Submit */
			call_id += UINT64_C(0x100000001); /* over 32 bits */
			Zkpd__V1__Envelope *env =
				decode_ok(ZKP_CUZK_SUBMIT, &req.base, call_id, circuit);
			assert_string_equal(circuit, kind_circuit[k]);
			assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_SUBMIT);
			check_submit(env->request->submit, &req, (enum kind)k, prios[p].out);
			zkpd__v1__envelope__free_unpacked(env, NULL);

			/* Prove -> Prove with the same submit */
			Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
			pr.submit = &req;
			env = decode_ok(ZKP_CUZK_PROVE, &pr.base, call_id + 1, circuit);
			assert_string_equal(circuit, kind_circuit[k]);
			assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_PROVE);
			assert_int_equal(env->request->prove->timeout_ms, 0);
			check_submit(env->request->prove->submit, &req, (enum kind)k,
				     prios[p].out);
			zkpd__v1__envelope__free_unpacked(env, NULL);
		}
	}
}

/* sector_size 0: the size comes from registered_proof, for every seal,
 * update and PoSt proof type (Curio's ProofShare SnapDeals path sends no
 * size). */
static void test_size_from_proof(void **state)
{
	(void)state;
	static const struct {
		enum kind k;
		uint64_t rp;
		const char *circuit;
	} cases[] = {
		{ POREP, 0, "porep-2k" },   /* StackedDrg2KiBV1 */
		{ POREP, 5, "porep-2k" },   /* StackedDrg2KiBV1_1 */
		{ POREP, 10, "porep-2k" },  /* ... with synthetic PoRep */
		{ POREP, 15, "porep-2k" },  /* ... V1_2 non-interactive */
		{ SNAP, 3, "snap-32g" },    /* update StackedDrg32GiBV1 */
		{ WPOST, 8, "wpost-32g" },  /* Window StackedDrg32GiBV1 */
		{ WPOST, 13, "wpost-32g" }, /* Window StackedDrg32GiBV1_1 */
		{ WINNING, 0, "winning-2k" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		Cuzk__V1__SubmitProofRequest req;
		char circuit[ZKP_CONFIG_NAME_MAX];
		submit_of_kind(&req, cases[i].k);
		req.sector_size = 0;
		req.registered_proof = cases[i].rp;
		Zkpd__V1__Envelope *env = decode_ok(ZKP_CUZK_SUBMIT, &req.base, 1, circuit);
		assert_string_equal(circuit, cases[i].circuit);
		zkpd__v1__envelope__free_unpacked(env, NULL);
	}
	/* a size given wins over the proof type */
	Cuzk__V1__SubmitProofRequest req;
	char circuit[ZKP_CONFIG_NAME_MAX];
	submit_of_kind(&req, POREP);
	req.registered_proof = 8;
	Zkpd__V1__Envelope *env = decode_ok(ZKP_CUZK_SUBMIT, &req.base, 1, circuit);
	assert_string_equal(circuit, "porep-2k");
	zkpd__v1__envelope__free_unpacked(env, NULL);
}

static void test_submit_errors(void **state)
{
	(void)state;
	/* not a SubmitProofRequest: a string field longer than the message */
	static const uint8_t garbage[] = { 0x0a, 0x05, 'a' };
	decode_raw_err(ZKP_CUZK_SUBMIT, garbage, sizeof(garbage), ZKP_ERR_PROTOCOL,
		       "SubmitProofRequest");
	decode_raw_err(ZKP_CUZK_PROVE, garbage, sizeof(garbage), ZKP_ERR_PROTOCOL,
		       "ProveRequest");
	decode_raw_err(ZKP_CUZK_AWAIT, garbage, sizeof(garbage), ZKP_ERR_PROTOCOL,
		       "AwaitProofRequest");
	decode_raw_err(ZKP_CUZK_PRELOAD, garbage, sizeof(garbage), ZKP_ERR_PROTOCOL,
		       "PreloadSrsRequest");
	decode_raw_err(ZKP_CUZK_UNKNOWN, garbage, sizeof(garbage), ZKP_ERR_UNSUPPORTED, "method");

	Cuzk__V1__SubmitProofRequest req;
	submit_of_kind(&req, POREP);
	req.proof_kind = 0;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "proof_kind: 0");
	req.proof_kind = 9;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "proof_kind: 9");

	/* sector_size 0 and a number that is no proof type of the kind: both
	 * fields named */
	submit_of_kind(&req, POREP);
	req.sector_size = 0;
	req.registered_proof = 20;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL,
		   "sector_size: 0 and registered_proof: 20 (not a POREP_SEAL_COMMIT proof type)");
	submit_of_kind(&req, WPOST);
	req.sector_size = 0;
	req.registered_proof = 0; /* a WinningPoSt type, and what "unset" reads as */
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL,
		   "sector_size: 0 and registered_proof: 0");
	submit_of_kind(&req, SNAP);
	req.sector_size = 0;
	req.registered_proof = 5;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "registered_proof: 5");
	/* derived, but served by no circuit: the message says where the size came from */
	submit_of_kind(&req, POREP);
	req.sector_size = 0;
	req.registered_proof = 8; /* StackedDrg32GiBV1_1 */
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_NOT_FOUND,
		   "sector_size 34359738368 (from registered_proof)");

	submit_of_kind(&req, POREP);
	req.priority = 7;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "priority: 7");

	/* sizes no circuit serves, each naming its option */
	static const struct {
		enum kind k;
		uint64_t size;
		const char *option;
	} unserved[] = {
		{ POREP, 32 * GIB, "with porep_sector_size = 34359738368" },
		{ SNAP, 2048, "with snap_sector_size = 2048" },
		{ WPOST, 2048, "with window_post_sector_size = 2048" },
		{ WINNING, 32 * GIB, "with winning_post_sector_size = 34359738368" },
	};
	for (size_t i = 0; i < sizeof(unserved) / sizeof(unserved[0]); i++) {
		submit_of_kind(&req, unserved[i].k);
		req.sector_size = unserved[i].size;
		decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_NOT_FOUND, unserved[i].option);
	}

	submit_of_kind(&req, POREP);
	req.vanilla_proof = bin(NULL, 0);
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "vanilla_proof: empty");

	submit_of_kind(&req, SNAP);
	req.comm_r_new.len = 31;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "comm_r_new: 31 bytes (expected 32)");
	submit_of_kind(&req, SNAP);
	req.comm_r_old = bin(NULL, 0);
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "comm_r_old: 0 bytes");
	uint8_t long33[33] = { 0 };
	submit_of_kind(&req, SNAP);
	req.comm_d_new = bin(long33, 33);
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "comm_d_new: 33 bytes");
	submit_of_kind(&req, SNAP);
	req.n_vanilla_proofs = 0;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "vanilla_proofs: none");

	submit_of_kind(&req, WPOST);
	req.randomness = bin(long33, 33);
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "randomness: 33 bytes (expected 32)");
	submit_of_kind(&req, WINNING);
	req.randomness = bin(NULL, 0);
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "randomness: 0 bytes");
	submit_of_kind(&req, WPOST);
	req.n_vanilla_proofs = 0;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "vanilla_proofs: none");
	submit_of_kind(&req, WINNING);
	req.n_vanilla_proofs = 0;
	decode_err(ZKP_CUZK_SUBMIT, &req.base, ZKP_ERR_INVAL, "vanilla_proofs: none");

	/* Prove: no submit; a bad submit inside */
	Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;
	decode_err(ZKP_CUZK_PROVE, &pr.base, ZKP_ERR_INVAL, "submit: missing");
	submit_of_kind(&req, WPOST);
	req.randomness.len = 31;
	pr.submit = &req;
	decode_err(ZKP_CUZK_PROVE, &pr.base, ZKP_ERR_INVAL, "randomness: 31 bytes");
	submit_of_kind(&req, SNAP);
	req.sector_size = 64 * GIB;
	decode_err(ZKP_CUZK_PROVE, &pr.base, ZKP_ERR_NOT_FOUND, "snap_sector_size");
}

static void test_await_cancel(void **state)
{
	(void)state;
	Cuzk__V1__AwaitProofRequest aw = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
	Cuzk__V1__CancelProofRequest cn = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;

	aw.job_id = "42";
	aw.timeout_ms = 1234;
	Zkpd__V1__Envelope *env = decode_ok(ZKP_CUZK_AWAIT, &aw.base, 7, NULL);
	assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_AWAIT);
	assert_int_equal(env->request->await->job_id, 42);
	assert_int_equal(env->request->await->timeout_ms, 1234);
	assert_string_equal(env->request->await->request_id, "");
	zkpd__v1__envelope__free_unpacked(env, NULL);

	/* a timeout past 2^32-1 ms is capped, not wrapped */
	aw.job_id = "18446744073709551614";
	aw.timeout_ms = (uint64_t)UINT32_MAX + 5;
	env = decode_ok(ZKP_CUZK_AWAIT, &aw.base, 8, NULL);
	assert_int_equal(env->request->await->job_id, UINT64_C(18446744073709551614));
	assert_int_equal(env->request->await->timeout_ms, UINT32_MAX);
	zkpd__v1__envelope__free_unpacked(env, NULL);
	aw.timeout_ms = UINT32_MAX;
	env = decode_ok(ZKP_CUZK_AWAIT, &aw.base, 8, NULL);
	assert_int_equal(env->request->await->timeout_ms, UINT32_MAX);
	zkpd__v1__envelope__free_unpacked(env, NULL);

	cn.job_id = "9";
	env = decode_ok(ZKP_CUZK_CANCEL, &cn.base, 9, NULL);
	assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_CANCEL);
	assert_int_equal(env->request->cancel->job_id, 9);
	zkpd__v1__envelope__free_unpacked(env, NULL);

	static const char *const bad[] = {
		"", "abc", "12x", "0", " 12", "-1", "+1", "18446744073709551615",
		"99999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		aw.job_id = (char *)bad[i];
		aw.timeout_ms = 0;
		decode_err(ZKP_CUZK_AWAIT, &aw.base, ZKP_ERR_INVAL, "job_id");
		cn.job_id = (char *)bad[i];
		decode_err(ZKP_CUZK_CANCEL, &cn.base, ZKP_ERR_INVAL, "job_id");
	}
}

static void test_status_metrics_srs(void **state)
{
	(void)state;
	Cuzk__V1__GetStatusRequest st = CUZK__V1__GET_STATUS_REQUEST__INIT;
	Zkpd__V1__Envelope *env = decode_ok(ZKP_CUZK_STATUS, &st.base, 11, NULL);
	assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_STATUS);
	assert_non_null(env->request->status);
	zkpd__v1__envelope__free_unpacked(env, NULL);

	Cuzk__V1__GetMetricsRequest mt = CUZK__V1__GET_METRICS_REQUEST__INIT;
	env = decode_ok(ZKP_CUZK_METRICS, &mt.base, 12, NULL);
	assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_METRICS);
	assert_non_null(env->request->metrics);
	zkpd__v1__envelope__free_unpacked(env, NULL);

	static const struct {
		const char *id, *circuit;
	} ok[] = {
		{ "porep-2k", "porep-2k" },
		{ "WINNING-2K", "winning-2k" },
		{ "wpost-32G", "wpost-32g" },
		{ "plain", "plain" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char circuit[ZKP_CONFIG_NAME_MAX];
		Cuzk__V1__PreloadSrsRequest pl = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
		pl.circuit_id = (char *)ok[i].id;
		env = decode_ok(ZKP_CUZK_PRELOAD, &pl.base, 13, circuit);
		assert_string_equal(circuit, ok[i].circuit);
		assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_LOAD_CIRCUIT);
		assert_string_equal(env->request->load_circuit->circuit, ok[i].circuit);
		zkpd__v1__envelope__free_unpacked(env, NULL);

		Cuzk__V1__EvictSrsRequest ev = CUZK__V1__EVICT_SRS_REQUEST__INIT;
		ev.circuit_id = (char *)ok[i].id;
		env = decode_ok(ZKP_CUZK_EVICT, &ev.base, 14, circuit);
		assert_string_equal(circuit, ok[i].circuit);
		assert_int_equal(env->request->call_case, ZKPD__V1__REQUEST__CALL_UNLOAD_CIRCUIT);
		assert_string_equal(env->request->unload_circuit->circuit, ok[i].circuit);
		zkpd__v1__envelope__free_unpacked(env, NULL);
	}

	static const char *const unknown[] = { "porep-32g", "bogus", "" };
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		Cuzk__V1__PreloadSrsRequest pl = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
		pl.circuit_id = (char *)unknown[i];
		decode_err(ZKP_CUZK_PRELOAD, &pl.base, ZKP_ERR_NOT_FOUND, "circuit_id");
		Cuzk__V1__EvictSrsRequest ev = CUZK__V1__EVICT_SRS_REQUEST__INIT;
		ev.circuit_id = (char *)unknown[i];
		decode_err(ZKP_CUZK_EVICT, &ev.base, ZKP_ERR_NOT_FOUND, "circuit_id");
	}
}

/* ---- responses ---- */

/* Encodes env as method m's answer, which must be OK; returns the bytes. */
static uint8_t *encode_ok(enum zkp_cuzk_method m, const Zkpd__V1__Envelope *env,
			  const zkp_cuzk_context *ctx, size_t *len)
{
	uint8_t *out = (uint8_t *)1;
	char msg[256] = "unset";
	enum zkp_grpc_code c = zkp_cuzk_response_encode(m, env, ctx, &out, len, msg, sizeof(msg));
	if (c != ZKP_GRPC_OK)
		fail_msg("encode: %d %s", c, msg);
	assert_non_null(out);
	assert_string_equal(msg, "");
	return out;
}

static void encode_err(enum zkp_cuzk_method m, const Zkpd__V1__Envelope *env,
		       enum zkp_grpc_code want, const char *want_msg)
{
	uint8_t *out = (uint8_t *)1;
	size_t len = 99;
	char msg[256];
	zkp_cuzk_context ctx = { 0 };
	assert_int_equal(zkp_cuzk_response_encode(m, env, &ctx, &out, &len, msg, sizeof(msg)),
			 want);
	assert_null(out);
	assert_int_equal(len, 0);
	if (!strstr(msg, want_msg))
		fail_msg("\"%s\" does not hold \"%s\"", msg, want_msg);
}

static void response_env(Zkpd__V1__Envelope *env, Zkpd__V1__Response *rs)
{
	zkpd__v1__envelope__init(env);
	env->call_id = 5;
	env->body_case = ZKPD__V1__ENVELOPE__BODY_RESPONSE;
	env->response = rs;
}

static void test_encode_errors(void **state)
{
	(void)state;
	Zkpd__V1__Error e = ZKPD__V1__ERROR__INIT;
	Zkpd__V1__Envelope env = ZKPD__V1__ENVELOPE__INIT;
	env.call_id = 3;
	env.body_case = ZKPD__V1__ENVELOPE__BODY_ERROR;
	env.error = &e;
	e.message = "no job 17";
	static const struct {
		const char *code;
		enum zkp_grpc_code want;
	} cases[] = {
		{ "ERR_NOT_FOUND", ZKP_GRPC_NOT_FOUND },
		{ "ERR_SHUTDOWN", ZKP_GRPC_UNAVAILABLE },
		{ "ERR_LIMIT", ZKP_GRPC_RESOURCE_EXHAUSTED },
		{ "ERR_BUSY", ZKP_GRPC_FAILED_PRECONDITION },
		{ "ERR_INVAL", ZKP_GRPC_INVALID_ARGUMENT },
		{ "ERR_WHATEVER", ZKP_GRPC_UNKNOWN },
		{ "OK", ZKP_GRPC_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e.code = (char *)cases[i].code;
		char want[64];
		snprintf(want, sizeof(want), "%s: no job 17", cases[i].code);
		encode_err(ZKP_CUZK_AWAIT, &env, cases[i].want, want);
		char msg[256];
		uint8_t *out;
		size_t len;
		zkp_cuzk_context ctx = { 0 };
		zkp_cuzk_response_encode(ZKP_CUZK_SUBMIT, &env, &ctx, &out, &len, msg, sizeof(msg));
		assert_string_equal(msg, want);
	}

	/* a Response of another call, a Progress, no body: INTERNAL */
	Zkpd__V1__SubmitResponse sr = ZKPD__V1__SUBMIT_RESPONSE__INIT;
	Zkpd__V1__Response rs = ZKPD__V1__RESPONSE__INIT;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_SUBMIT;
	rs.submit = &sr;
	response_env(&env, &rs);
	encode_err(ZKP_CUZK_AWAIT, &env, ZKP_GRPC_INTERNAL, "AwaitProof: the engine's answer");
	encode_err(ZKP_CUZK_PROVE, &env, ZKP_GRPC_INTERNAL, "Prove");
	encode_err(ZKP_CUZK_STATUS, &env, ZKP_GRPC_INTERNAL, "GetStatus");
	encode_err(ZKP_CUZK_UNKNOWN, &env, ZKP_GRPC_INTERNAL, "?");
	Zkpd__V1__JobResult jr = ZKPD__V1__JOB_RESULT__INIT;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_RESULT;
	rs.result = &jr;
	encode_err(ZKP_CUZK_SUBMIT, &env, ZKP_GRPC_INTERNAL, "SubmitProof");
	encode_err(ZKP_CUZK_CANCEL, &env, ZKP_GRPC_INTERNAL, "CancelProof");
	Zkpd__V1__Progress pg = ZKPD__V1__PROGRESS__INIT;
	zkpd__v1__envelope__init(&env);
	env.body_case = ZKPD__V1__ENVELOPE__BODY_PROGRESS;
	env.progress = &pg;
	encode_err(ZKP_CUZK_AWAIT, &env, ZKP_GRPC_INTERNAL, "AwaitProof");
	zkpd__v1__envelope__init(&env);
	encode_err(ZKP_CUZK_METRICS, &env, ZKP_GRPC_INTERNAL, "GetMetrics");
}

static void test_encode_submit(void **state)
{
	(void)state;
	Zkpd__V1__SubmitResponse sr = ZKPD__V1__SUBMIT_RESPONSE__INIT;
	sr.job_id = 42;
	sr.state = ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED;
	Zkpd__V1__Response rs = ZKPD__V1__RESPONSE__INIT;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_SUBMIT;
	rs.submit = &sr;
	Zkpd__V1__Envelope env;
	response_env(&env, &rs);
	zkp_cuzk_context ctx = { .queue_position = 3 };
	size_t len;
	uint8_t *out = encode_ok(ZKP_CUZK_SUBMIT, &env, &ctx, &len);
	Cuzk__V1__SubmitProofResponse *r = cuzk__v1__submit_proof_response__unpack(NULL, len, out);
	assert_non_null(r);
	assert_string_equal(r->job_id, "42");
	assert_int_equal(r->queue_position, 3);
	assert_string_equal(r->assigned_gpu, "");
	cuzk__v1__submit_proof_response__free_unpacked(r, NULL);
	free(out);

	sr.job_id = UINT64_MAX;
	ctx.queue_position = 0;
	out = encode_ok(ZKP_CUZK_SUBMIT, &env, &ctx, &len);
	r = cuzk__v1__submit_proof_response__unpack(NULL, len, out);
	assert_non_null(r);
	assert_string_equal(r->job_id, "18446744073709551615");
	assert_int_equal(r->queue_position, 0);
	cuzk__v1__submit_proof_response__free_unpacked(r, NULL);
	free(out);
}

/* AwaitProof's or Prove's answer to a JobResult; returns the unpacked
 * AwaitProofResponse (*top: what to free). */
static Cuzk__V1__AwaitProofResponse *encode_result(enum zkp_cuzk_method m,
						   const Zkpd__V1__JobResult *jr,
						   ProtobufCMessage **top)
{
	Zkpd__V1__Response rs = ZKPD__V1__RESPONSE__INIT;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_RESULT;
	rs.result = (Zkpd__V1__JobResult *)jr;
	Zkpd__V1__Envelope env;
	response_env(&env, &rs);
	zkp_cuzk_context ctx = { .queue_position = 9, .was_loaded = true, .seconds = 3 };
	size_t len;
	uint8_t *out = encode_ok(m, &env, &ctx, &len);
	Cuzk__V1__AwaitProofResponse *a;
	if (m == ZKP_CUZK_PROVE) {
		Cuzk__V1__ProveResponse *p = cuzk__v1__prove_response__unpack(NULL, len, out);
		assert_non_null(p);
		assert_non_null(p->result);
		a = p->result;
		*top = &p->base;
	} else {
		a = cuzk__v1__await_proof_response__unpack(NULL, len, out);
		assert_non_null(a);
		*top = &a->base;
	}
	free(out);
	return a;
}

static void test_encode_results(void **state)
{
	(void)state;
	uint8_t proof[192];
	for (size_t i = 0; i < sizeof(proof); i++)
		proof[i] = (uint8_t)(i ^ 0x5a);
	static const struct {
		Zkpd__V1__Stage stage;
		double seconds;
	} st[] = {
		/* QUEUED, ASSEMBLE and VERIFY count in no cuzk timing */
		{ ZKPD__V1__STAGE__STAGE_QUEUED, 0.25 },    { ZKPD__V1__STAGE__STAGE_LOAD, 0.5 },
		{ ZKPD__V1__STAGE__STAGE_WITNESS, 1 },      { ZKPD__V1__STAGE__STAGE_EVAL, 2 },
		{ ZKPD__V1__STAGE__STAGE_NTT, 3 },          { ZKPD__V1__STAGE__STAGE_MSM, 4 },
		{ ZKPD__V1__STAGE__STAGE_ASSEMBLE, 0.125 }, { ZKPD__V1__STAGE__STAGE_VERIFY, 0.5 },
	};
	enum { N_ST = sizeof(st) / sizeof(st[0]) };
	Zkpd__V1__StageTiming timing[N_ST], *timingp[N_ST];
	for (size_t i = 0; i < N_ST; i++) {
		zkpd__v1__stage_timing__init(&timing[i]);
		timing[i].stage = st[i].stage;
		timing[i].seconds = st[i].seconds;
		timingp[i] = &timing[i];
	}

	static const enum zkp_cuzk_method methods[] = { ZKP_CUZK_AWAIT, ZKP_CUZK_PROVE };
	for (size_t mi = 0; mi < 2; mi++) {
		enum zkp_cuzk_method m = methods[mi];
		ProtobufCMessage *top;

		/* DONE */
		Zkpd__V1__JobResult jr = ZKPD__V1__JOB_RESULT__INIT;
		jr.job_id = 5;
		jr.state = ZKPD__V1__JOB_STATE__JOB_STATE_DONE;
		jr.proof = bin(proof, sizeof(proof));
		jr.n_stages = N_ST;
		jr.stages = timingp;
		jr.queue_seconds = 0.25;
		jr.total_seconds = 11;
		jr.circuit = "porep-2k";
		Cuzk__V1__AwaitProofResponse *a = encode_result(m, &jr, &top);
		assert_string_equal(a->job_id, "5");
		assert_int_equal(a->status, CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED);
		assert_bin_equal(a->proof, bin(proof, sizeof(proof)));
		assert_string_equal(a->error_message, "");
		assert_int_equal(a->srs_load_ms, 500);
		assert_int_equal(a->synthesis_ms, 3000);
		assert_int_equal(a->gpu_compute_ms, 7000);
		assert_int_equal(a->queue_wait_ms, 250);
		assert_int_equal(a->total_ms, 11000);
		protobuf_c_message_free_unpacked(top, NULL);

		/* FAILED */
		zkpd__v1__job_result__init(&jr);
		jr.job_id = 6;
		jr.state = ZKPD__V1__JOB_STATE__JOB_STATE_FAILED;
		jr.error_code = "ERR_X";
		jr.error_message = "text";
		jr.total_seconds = 0.0004;
		a = encode_result(m, &jr, &top);
		assert_string_equal(a->job_id, "6");
		assert_int_equal(a->status, CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED);
		assert_int_equal(a->proof.len, 0);
		assert_string_equal(a->error_message, "ERR_X: text");
		assert_int_equal(a->srs_load_ms, 0);
		assert_int_equal(a->synthesis_ms, 0);
		assert_int_equal(a->gpu_compute_ms, 0);
		assert_int_equal(a->queue_wait_ms, 0);
		assert_int_equal(a->total_ms, 0);
		protobuf_c_message_free_unpacked(top, NULL);

		/* CANCELLED; RUNNING and QUEUED (an Await that timed out) */
		static const struct {
			Zkpd__V1__JobState in;
			Cuzk__V1__AwaitProofResponse__Status out;
		} states[] = {
			{ ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED,
			  CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED },
			{ ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING,
			  CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT },
			{ ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED,
			  CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT },
			{ ZKPD__V1__JOB_STATE__JOB_STATE_UNKNOWN,
			  CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN },
		};
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			zkpd__v1__job_result__init(&jr);
			jr.job_id = 100 + i;
			jr.state = states[i].in;
			jr.queue_seconds = 1.5;
			a = encode_result(m, &jr, &top);
			char id[8];
			snprintf(id, sizeof(id), "%zu", 100 + i);
			assert_string_equal(a->job_id, id);
			assert_int_equal(a->status, states[i].out);
			assert_int_equal(a->proof.len, 0);
			assert_string_equal(a->error_message, "");
			assert_int_equal(a->queue_wait_ms, 1500);
			protobuf_c_message_free_unpacked(top, NULL);
		}
	}
}

static void test_encode_cancel_metrics_srs(void **state)
{
	(void)state;
	Zkpd__V1__Response rs = ZKPD__V1__RESPONSE__INIT;
	Zkpd__V1__Envelope env;
	response_env(&env, &rs);
	zkp_cuzk_context ctx = { 0 };
	size_t len;
	uint8_t *out;

	/* CancelProof: was_running only when it was RUNNING */
	Zkpd__V1__CancelResponse cr = ZKPD__V1__CANCEL_RESPONSE__INIT;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_CANCEL;
	rs.cancel = &cr;
	static const struct {
		Zkpd__V1__JobState state;
		bool running;
	} cancels[] = {
		{ ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING, true },
		{ ZKPD__V1__JOB_STATE__JOB_STATE_CANCELLED, false },
		{ ZKPD__V1__JOB_STATE__JOB_STATE_DONE, false },
		{ ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED, false },
	};
	for (size_t i = 0; i < sizeof(cancels) / sizeof(cancels[0]); i++) {
		cr.state = cancels[i].state;
		out = encode_ok(ZKP_CUZK_CANCEL, &env, &ctx, &len);
		Cuzk__V1__CancelProofResponse *c =
			cuzk__v1__cancel_proof_response__unpack(NULL, len, out);
		assert_non_null(c);
		assert_int_equal(c->was_running, cancels[i].running);
		cuzk__v1__cancel_proof_response__free_unpacked(c, NULL);
		free(out);
	}

	/* GetMetrics: the text as it is */
	Zkpd__V1__MetricsResponse mr = ZKPD__V1__METRICS_RESPONSE__INIT;
	mr.text = "# TYPE zkpd_up gauge\nzkpd_up 1\n";
	rs.call_case = ZKPD__V1__RESPONSE__CALL_METRICS;
	rs.metrics = &mr;
	out = encode_ok(ZKP_CUZK_METRICS, &env, &ctx, &len);
	Cuzk__V1__GetMetricsResponse *mt = cuzk__v1__get_metrics_response__unpack(NULL, len, out);
	assert_non_null(mt);
	assert_string_equal(mt->prometheus_text, mr.text);
	cuzk__v1__get_metrics_response__free_unpacked(mt, NULL);
	free(out);

	/* PreloadSRS: load time only when it was not loaded */
	Zkpd__V1__CircuitStatus cs = ZKPD__V1__CIRCUIT_STATUS__INIT;
	cs.name = "porep-2k";
	cs.loaded = true;
	Zkpd__V1__LoadCircuitResponse lr = ZKPD__V1__LOAD_CIRCUIT_RESPONSE__INIT;
	lr.circuit = &cs;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_LOAD_CIRCUIT;
	rs.load_circuit = &lr;
	ctx = (zkp_cuzk_context){ .was_loaded = false, .seconds = 1.5 };
	out = encode_ok(ZKP_CUZK_PRELOAD, &env, &ctx, &len);
	Cuzk__V1__PreloadSrsResponse *pl = cuzk__v1__preload_srs_response__unpack(NULL, len, out);
	assert_non_null(pl);
	assert_false(pl->already_loaded);
	assert_int_equal(pl->load_time_ms, 1500);
	cuzk__v1__preload_srs_response__free_unpacked(pl, NULL);
	free(out);
	ctx = (zkp_cuzk_context){ .was_loaded = true, .seconds = 1.5 };
	out = encode_ok(ZKP_CUZK_PRELOAD, &env, &ctx, &len);
	pl = cuzk__v1__preload_srs_response__unpack(NULL, len, out);
	assert_non_null(pl);
	assert_true(pl->already_loaded);
	assert_int_equal(pl->load_time_ms, 0);
	cuzk__v1__preload_srs_response__free_unpacked(pl, NULL);
	free(out);

	/* EvictSRS: freed bytes only when it was loaded */
	Zkpd__V1__UnloadCircuitResponse ur = ZKPD__V1__UNLOAD_CIRCUIT_RESPONSE__INIT;
	cs.loaded = false;
	ur.circuit = &cs;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_UNLOAD_CIRCUIT;
	rs.unload_circuit = &ur;
	ctx = (zkp_cuzk_context){ .was_loaded = true, .circuit_bytes = 30 };
	out = encode_ok(ZKP_CUZK_EVICT, &env, &ctx, &len);
	Cuzk__V1__EvictSrsResponse *ev = cuzk__v1__evict_srs_response__unpack(NULL, len, out);
	assert_non_null(ev);
	assert_true(ev->was_loaded);
	assert_int_equal(ev->freed_bytes, 30);
	cuzk__v1__evict_srs_response__free_unpacked(ev, NULL);
	free(out);
	ctx = (zkp_cuzk_context){ .was_loaded = false, .circuit_bytes = 30 };
	out = encode_ok(ZKP_CUZK_EVICT, &env, &ctx, &len);
	ev = cuzk__v1__evict_srs_response__unpack(NULL, len, out);
	assert_non_null(ev);
	assert_false(ev->was_loaded);
	assert_int_equal(ev->freed_bytes, 0);
	cuzk__v1__evict_srs_response__free_unpacked(ev, NULL);
	free(out);
}

static Cuzk__V1__GetStatusResponse *encode_status(const Zkpd__V1__StatusResponse *s)
{
	Zkpd__V1__Response rs = ZKPD__V1__RESPONSE__INIT;
	rs.call_case = ZKPD__V1__RESPONSE__CALL_STATUS;
	rs.status = (Zkpd__V1__StatusResponse *)s;
	Zkpd__V1__Envelope env;
	response_env(&env, &rs);
	zkp_cuzk_context ctx = { 0 };
	size_t len;
	uint8_t *out = encode_ok(ZKP_CUZK_STATUS, &env, &ctx, &len);
	Cuzk__V1__GetStatusResponse *r = cuzk__v1__get_status_response__unpack(NULL, len, out);
	assert_non_null(r);
	free(out);
	return r;
}

static void test_encode_status(void **state)
{
	(void)state;
	Zkpd__V1__DeviceStatus dev[2], *devp[2];
	for (int i = 0; i < 2; i++) {
		zkpd__v1__device_status__init(&dev[i]);
		devp[i] = &dev[i];
	}
	dev[0].name = "cpu";
	dev[0].kind = "cpu";
	dev[0].memory_bytes = 1000;
	dev[0].memory_used_bytes = 10;
	dev[1].name = "cuda:1";
	dev[1].kind = "cuda";
	dev[1].memory_bytes = 100;
	dev[1].memory_used_bytes = 30;

	/* the cpu pipeline's device job and cuda:1's idle pipeline name no GPU job */
	Zkpd__V1__PipelineStatus pl[3], *plp[3];
	for (int i = 0; i < 3; i++) {
		zkpd__v1__pipeline_status__init(&pl[i]);
		pl[i].id = (uint32_t)i;
		plp[i] = &pl[i];
	}
	pl[0].device = "cpu";
	pl[0].device_job = 8;
	pl[1].device = "cuda:1";
	pl[1].cpu_job = 10;
	pl[2].device = "cuda:1";
	pl[2].device_job = 7;

	static const struct {
		uint64_t id;
		const char *circuit;
		Zkpd__V1__JobState state;
		uint64_t parent;
	} js[] = {
		{ 7, "porep-2k", ZKPD__V1__JOB_STATE__JOB_STATE_RUNNING, 0 },
		{ 8, "porep-2k", ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED, 0 },
		{ 9, "porep-2k", ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED, 7 },
		{ 10, "winning-2k", ZKPD__V1__JOB_STATE__JOB_STATE_QUEUED, 0 },
	};
	enum { N_JOBS = sizeof(js) / sizeof(js[0]) };
	Zkpd__V1__JobSummary job[N_JOBS], *jobp[N_JOBS];
	for (size_t i = 0; i < N_JOBS; i++) {
		zkpd__v1__job_summary__init(&job[i]);
		job[i].job_id = js[i].id;
		job[i].circuit = (char *)js[i].circuit;
		job[i].state = js[i].state;
		job[i].parent_job_id = js[i].parent;
		jobp[i] = &job[i];
	}

	Zkpd__V1__CircuitStatus cir[2], *cirp[2];
	for (int i = 0; i < 2; i++) {
		zkpd__v1__circuit_status__init(&cir[i]);
		cirp[i] = &cir[i];
	}
	cir[0].name = "porep-2k";
	cir[0].loaded = true;
	cir[0].porep_sector_bytes = 2048;
	cir[0].pce_bytes = 10;
	cir[0].key_bytes = 20;
	cir[0].refcount = 1;
	cir[1].name = "winning-2k";
	cir[1].winning_post_sector_bytes = 2048;

	Zkpd__V1__MemoryStatus mem = ZKPD__V1__MEMORY_STATUS__INIT;
	mem.reserved_bytes = 5;
	mem.budget_bytes = 50;

	Zkpd__V1__StatusResponse s = ZKPD__V1__STATUS_RESPONSE__INIT;
	s.n_devices = 2;
	s.devices = devp;
	s.n_pipelines = 3;
	s.pipelines = plp;
	s.n_jobs = N_JOBS;
	s.jobs = jobp;
	s.n_circuits = 2;
	s.circuits = cirp;
	s.memory = &mem;
	s.jobs_done = 3;
	s.jobs_failed = 1;
	s.jobs_cancelled = 4;
	s.uptime_seconds = 12.7;

	Cuzk__V1__GetStatusResponse *r = encode_status(&s);
	assert_int_equal(r->n_gpus, 1);
	assert_int_equal(r->gpus[0]->ordinal, 1);
	assert_string_equal(r->gpus[0]->name, "cuda:1");
	assert_int_equal(r->gpus[0]->vram_total_bytes, 100);
	assert_int_equal(r->gpus[0]->vram_free_bytes, 70);
	assert_string_equal(r->gpus[0]->current_job_id, "7");
	assert_string_equal(r->gpus[0]->current_proof_kind, "POREP_SEAL_COMMIT");

	assert_int_equal(r->n_loaded_srs, 2);
	assert_string_equal(r->loaded_srs[0]->circuit_id, "porep-2k");
	assert_int_equal(r->loaded_srs[0]->tier, CUZK__V1__SRSSTATUS__TIER__HOT);
	assert_int_equal(r->loaded_srs[0]->size_bytes, 30);
	assert_int_equal(r->loaded_srs[0]->ref_count, 1);
	assert_string_equal(r->loaded_srs[1]->circuit_id, "winning-2k");
	assert_int_equal(r->loaded_srs[1]->tier, CUZK__V1__SRSSTATUS__TIER__COLD);
	assert_int_equal(r->loaded_srs[1]->size_bytes, 0);
	assert_int_equal(r->loaded_srs[1]->ref_count, 0);

	assert_int_equal(r->n_queues, 2);
	assert_string_equal(r->queues[0]->proof_kind, "POREP_SEAL_COMMIT");
	assert_int_equal(r->queues[0]->pending, 1);
	assert_int_equal(r->queues[0]->in_progress, 1);
	assert_string_equal(r->queues[1]->proof_kind, "WINNING_POST");
	assert_int_equal(r->queues[1]->pending, 1);
	assert_int_equal(r->queues[1]->in_progress, 0);

	assert_int_equal(r->total_proofs_completed, 3);
	assert_int_equal(r->total_proofs_failed, 1);
	assert_int_equal(r->uptime_seconds, 12);
	assert_int_equal(r->pinned_memory_bytes, 5);
	assert_int_equal(r->pinned_memory_limit_bytes, 50);
	cuzk__v1__get_status_response__free_unpacked(r, NULL);

	/* a GPU using more than it has: none free; its job unknown: no kind */
	dev[1].memory_used_bytes = 150;
	pl[2].device_job = 99;
	r = encode_status(&s);
	assert_int_equal(r->n_gpus, 1);
	assert_int_equal(r->gpus[0]->vram_free_bytes, 0);
	assert_string_equal(r->gpus[0]->current_job_id, "99");
	assert_string_equal(r->gpus[0]->current_proof_kind, "");
	cuzk__v1__get_status_response__free_unpacked(r, NULL);

	/* an idle GPU: no job; a plain circuit: its PROOF_KIND_UNSPECIFIED queue
	 * (docs/grpc.md); no memory status: 0 */
	pl[2].device_job = 0;
	cir[1].name = "plain";
	cir[1].winning_post_sector_bytes = 0;
	job[3].circuit = "plain";
	s.memory = NULL;
	s.uptime_seconds = -1;
	r = encode_status(&s);
	assert_int_equal(r->n_gpus, 1);
	assert_string_equal(r->gpus[0]->current_job_id, "");
	assert_string_equal(r->gpus[0]->current_proof_kind, "");
	assert_int_equal(r->n_queues, 2);
	assert_string_equal(r->queues[0]->proof_kind, "PROOF_KIND_UNSPECIFIED");
	assert_int_equal(r->queues[0]->pending, 1);
	assert_int_equal(r->queues[0]->in_progress, 0);
	assert_string_equal(r->queues[1]->proof_kind, "POREP_SEAL_COMMIT");
	assert_int_equal(r->queues[1]->pending, 1);
	assert_int_equal(r->queues[1]->in_progress, 1);
	assert_int_equal(r->uptime_seconds, 0);
	assert_int_equal(r->pinned_memory_bytes, 0);
	assert_int_equal(r->pinned_memory_limit_bytes, 0);
	cuzk__v1__get_status_response__free_unpacked(r, NULL);

	/* nothing at all */
	Zkpd__V1__StatusResponse empty = ZKPD__V1__STATUS_RESPONSE__INIT;
	r = encode_status(&empty);
	assert_int_equal(r->n_gpus, 0);
	assert_int_equal(r->n_loaded_srs, 0);
	assert_int_equal(r->n_queues, 0);
	cuzk__v1__get_status_response__free_unpacked(r, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_method_of),
		cmocka_unit_test(test_status_of_error),
		cmocka_unit_test(test_circuit_for_id),
		cmocka_unit_test(test_submit_and_prove),
		cmocka_unit_test(test_size_from_proof),
		cmocka_unit_test(test_submit_errors),
		cmocka_unit_test(test_await_cancel),
		cmocka_unit_test(test_status_metrics_srs),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_encode_submit),
		cmocka_unit_test(test_encode_results),
		cmocka_unit_test(test_encode_cancel_metrics_srs),
		cmocka_unit_test(test_encode_status),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
