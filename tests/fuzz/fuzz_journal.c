/*
 * Job journal entries (src/daemon/journal.h) through zkp_journal_decode,
 * the check every NAME.job file passes when zkpd starts. Each input is
 * decoded twice: under the name its own request_id gives (when it decodes
 * far enough to have one), so the checks behind the name match are
 * reached, and under a fixed name that no request_id hashes to. A record
 * that decodes must hold what zkp_journal_load promises the engine: a
 * request_id that names the file, a circuit name that fits, a known
 * priority, and either a non-empty witness (bytes or path) or a result in
 * an end state whose inputs come in 32-byte values.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "journal.h"
#include "zkpd/v1/journal.pb-c.h"

/* Reads the first and last byte, so AddressSanitizer sees a short buffer. */
static void touch(const uint8_t *p, size_t len)
{
	volatile uint8_t sink = p[0];
	sink = p[len - 1];
	(void)sink;
}

static void check_record(const zkp_journal_record *r, const char *name)
{
	char want[ZKP_JOURNAL_NAME_MAX];
	FUZZ_CHECK(r->request_id[0] != 0);
	FUZZ_CHECK(zkp_journal_file_name(want, r->request_id) == 0);
	FUZZ_CHECK(strcmp(want, name) == 0);
	FUZZ_CHECK(r->circuit[0] != 0 && strlen(r->circuit) < ZKP_CONFIG_NAME_MAX);
	FUZZ_CHECK(r->priority >= ZKP_PRIO_NORMAL && r->priority <= ZKP_PRIO_CRITICAL);
	if (r->ended) {
		FUZZ_CHECK(r->state == ZKP_JOB_DONE || r->state == ZKP_JOB_FAILED ||
			   r->state == ZKP_JOB_CANCELLED);
		FUZZ_CHECK(!r->data && !r->path);
		FUZZ_CHECK((r->inputs != NULL) == (r->n_inputs != 0));
		if (r->n_inputs)
			touch(r->inputs, 32 * r->n_inputs);
		/* A result's proof: 192 bytes per partition (1 when none). */
		if (r->state == ZKP_JOB_DONE) {
			FUZZ_CHECK(r->partitions <= ZKP_JOURNAL_MAX_PARTITIONS);
			FUZZ_CHECK(r->proof_len == (size_t)ZKP_GROTH16_PROOF_BYTES *
							   (r->partitions ? r->partitions : 1));
			touch(r->proof, r->proof_len);
		}
	} else if (r->witness_kind == ZKP_WITNESS_PATH || r->witness_kind == ZKP_WITNESS_C1_PATH) {
		FUZZ_CHECK(r->path && r->path[0] && !r->data);
	} else {
		FUZZ_CHECK(r->witness_kind == ZKP_WITNESS_WTNS || r->witness_kind == ZKP_WITNESS_RAW ||
			   r->witness_kind == ZKP_WITNESS_C1 || r->witness_kind == ZKP_WITNESS_SNAP ||
			   r->witness_kind == ZKP_WITNESS_POST);
		FUZZ_CHECK(r->data && r->len > 0 && !r->path);
		touch(r->data, r->len);
	}
}

static void decode_as(const uint8_t *data, size_t size, const char *name)
{
	zkp_journal_record r;
	char why[256];
	const char *bad = zkp_journal_decode(&r, data, size, name, why, sizeof(why));
	if (bad) {
		FUZZ_CHECK(bad[0] != 0);
		FUZZ_CHECK(!r.data && !r.path && !r.inputs && !r.proof_json && !r.proof);
		return;
	}
	check_record(&r, name);
	zkp_journal_record_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* 64 hex digits: no SHA-256 of a request_id is all zeros in practice. */
	static const char fixed[] =
		"0000000000000000000000000000000000000000000000000000000000000000.job";
	Zkpd__V1__JournalEntry *msg = zkpd__v1__journal_entry__unpack(NULL, size, data);
	if (msg) {
		char name[ZKP_JOURNAL_NAME_MAX];
		if (msg->request_id && zkp_journal_file_name(name, msg->request_id) == 0)
			decode_as(data, size, name);
		zkpd__v1__journal_entry__free_unpacked(msg, NULL);
	}
	decode_as(data, size, fixed);
	return 0;
}
