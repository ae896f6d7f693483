/*
 * The job journal (src/daemon/journal.h) in a temporary directory: records
 * written and read back field for field, in sequence order; corrupt files
 * (not protobuf, another version, a name that is not the request_id's hash)
 * renamed .bad while the others load; temporary files removed at open and
 * never read; writes that fail (RLIMIT_FSIZE, a read-only directory when not
 * root, a directory gone) leave no file that could be read as valid and keep
 * the previous entry; results trimmed to the history, oldest first, without
 * touching pending entries. Then the glue over a real engine whose one
 * circuit cannot load: results restored into the history and found by
 * request_id, pending entries resubmitted, unknown circuits set aside,
 * refused resubmissions turned into FAILED results, a journaled Submit and
 * its end, and a job cancelled by a shutdown keeping its entry.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "journal.h"
#include "testutil.h"
#include "zkpd/log.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/zkpd-journal-test.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	chmod(dir, 0700);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Files in dir whose name contains part (NULL: all). */
static int count_files(const char *part)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && (!part || strstr(de->d_name, part)))
			n++;
	closedir(d);
	return n;
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void write_bytes(const char *name, const void *data, size_t len)
{
	char p[256];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static zkp_journal *open_journal(uint32_t history)
{
	zkp_journal *j = NULL;
	zkp_error err = { 0 };
	int rc = zkp_journal_open(&j, dir, history, &err);
	if (rc)
		fail_msg("open: %s", zkp_error_text(&err, rc));
	return j;
}

static void write_ok(zkp_journal *j, zkp_journal_record *r)
{
	zkp_error err = { 0 };
	int rc = zkp_journal_write(j, r, &err);
	if (rc)
		fail_msg("write: %s", zkp_error_text(&err, rc));
}

static void pending(zkp_journal_record *r, const char *rid, const char *circuit,
		    enum zkp_witness_kind kind, uint8_t *data, size_t len, char *path)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->request_id, sizeof(r->request_id), "%s", rid);
	snprintf(r->circuit, sizeof(r->circuit), "%s", circuit);
	r->priority = ZKP_PRIO_HIGH;
	r->witness_kind = kind;
	r->data = data;
	r->len = len;
	r->path = path;
}

static void load_all(zkp_journal *j, zkp_journal_record **recs, size_t *n)
{
	zkp_error err = { 0 };
	int rc = zkp_journal_load(j, recs, n, &err);
	if (rc)
		fail_msg("load: %s", zkp_error_text(&err, rc));
}

static void free_all(zkp_journal_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		zkp_journal_record_release(&recs[i]);
	free(recs);
}

/* ---- records ---- */

/* PoRep sector jobs: a C1 by value or by path while pending; a result of
 * 192 bytes per partition, whose length must agree with its partitions. */
static void test_porep_records(void **state)
{
	(void)state;
	uint8_t c1[300], proof[3 * ZKP_GROTH16_PROOF_BYTES];
	tu_rand_bytes(c1, sizeof(c1));
	tu_rand_bytes(proof, sizeof(proof));
	zkp_journal *j = open_journal(16);
	zkp_journal_record r;
	pending(&r, "sector-1", "porep-32g", ZKP_WITNESS_C1, c1, sizeof(c1), NULL);
	write_ok(j, &r);
	pending(&r, "sector-2", "porep-32g", ZKP_WITNESS_C1_PATH, NULL, 0, (char *)"/w/c1.json");
	write_ok(j, &r);
	memset(&r, 0, sizeof(r));
	snprintf(r.request_id, sizeof(r.request_id), "sector-3");
	snprintf(r.circuit, sizeof(r.circuit), "porep-32g");
	r.ended = true;
	r.state = ZKP_JOB_DONE;
	r.proof = proof;
	r.proof_len = sizeof(proof);
	r.partitions = 3;
	write_ok(j, &r);
	/* 3 partitions but one proof's bytes: set aside when read */
	snprintf(r.request_id, sizeof(r.request_id), "sector-4");
	r.proof_len = ZKP_GROTH16_PROOF_BYTES;
	write_ok(j, &r);
	zkp_journal_free(j);

	j = open_journal(16);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 3);
	assert_int_equal(count_files(".bad"), 1);
	assert_string_equal(recs[0].request_id, "sector-1");
	assert_int_equal(recs[0].witness_kind, ZKP_WITNESS_C1);
	assert_int_equal(recs[0].len, sizeof(c1));
	assert_memory_equal(recs[0].data, c1, sizeof(c1));
	assert_int_equal(recs[1].witness_kind, ZKP_WITNESS_C1_PATH);
	assert_string_equal(recs[1].path, "/w/c1.json");
	assert_true(recs[2].ended);
	assert_int_equal(recs[2].partitions, 3);
	assert_int_equal(recs[2].proof_len, sizeof(proof));
	assert_memory_equal(recs[2].proof, proof, sizeof(proof));
	free_all(recs, n);
	zkp_journal_free(j);
}

static void test_round_trip(void **state)
{
	(void)state;
	uint8_t wtns[1000], proof[ZKP_GROTH16_PROOF_BYTES], inputs[64];
	tu_rand_bytes(wtns, sizeof(wtns));
	tu_rand_bytes(proof, sizeof(proof));
	tu_rand_bytes(inputs, sizeof(inputs));
	zkp_journal *j = open_journal(16);
	zkp_journal_record r;

	pending(&r, "job-a", "porep", ZKP_WITNESS_WTNS, wtns, sizeof(wtns), NULL);
	r.want_json = true;
	write_ok(j, &r);
	pending(&r, "job-b", "post", ZKP_WITNESS_PATH, NULL, 0, (char *)"/w/b.wtns");
	r.priority = ZKP_PRIO_CRITICAL;
	write_ok(j, &r);
	pending(&r, "job-c", "porep", ZKP_WITNESS_RAW, wtns, 64, NULL);
	write_ok(j, &r);
	/* job-c ended: its entry becomes a result */
	memset(&r, 0, sizeof(r));
	snprintf(r.request_id, sizeof(r.request_id), "job-c");
	snprintf(r.circuit, sizeof(r.circuit), "porep");
	r.ended = true;
	r.state = ZKP_JOB_DONE;
	r.proof = proof;
	r.proof_len = sizeof(proof);
	r.proof_json = (char *)"{\"pi_a\":[]}";
	r.inputs = inputs;
	r.n_inputs = 2;
	r.queue_seconds = 0.5;
	r.total_seconds = 2.25;
	write_ok(j, &r);
	memset(&r, 0, sizeof(r));
	snprintf(r.request_id, sizeof(r.request_id), "job-d \"quoted\" / with spaces");
	snprintf(r.circuit, sizeof(r.circuit), "porep");
	r.ended = true;
	r.state = ZKP_JOB_FAILED;
	r.error_code = ZKP_ERR_UNSATISFIED;
	snprintf(r.error_message, sizeof(r.error_message), "row 7 is not satisfied");
	write_ok(j, &r);
	zkp_journal_free(j);
	assert_int_equal(count_files(".job"), 4);
	assert_int_equal(count_files(".tmp."), 0);

	char name[ZKP_JOURNAL_NAME_MAX];
	assert_int_equal(zkp_journal_file_name(name, "job-a"), 0);
	assert_int_equal(strlen(name), 68);
	char p[256];
	path_of(p, sizeof(p), name);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	j = open_journal(16);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 4);
	/* sequence order: a, b, c's result (which replaced its entry), d */
	assert_string_equal(recs[0].request_id, "job-a");
	assert_false(recs[0].ended);
	assert_string_equal(recs[0].circuit, "porep");
	assert_int_equal(recs[0].priority, ZKP_PRIO_HIGH);
	assert_true(recs[0].want_json);
	assert_int_equal(recs[0].witness_kind, ZKP_WITNESS_WTNS);
	assert_int_equal(recs[0].len, sizeof(wtns));
	assert_memory_equal(recs[0].data, wtns, sizeof(wtns));

	assert_string_equal(recs[1].request_id, "job-b");
	assert_int_equal(recs[1].priority, ZKP_PRIO_CRITICAL);
	assert_int_equal(recs[1].witness_kind, ZKP_WITNESS_PATH);
	assert_string_equal(recs[1].path, "/w/b.wtns");
	assert_null(recs[1].data);

	assert_string_equal(recs[2].request_id, "job-c");
	assert_true(recs[2].ended);
	assert_int_equal(recs[2].state, ZKP_JOB_DONE);
	assert_memory_equal(recs[2].proof, proof, sizeof(proof));
	assert_string_equal(recs[2].proof_json, "{\"pi_a\":[]}");
	assert_int_equal(recs[2].n_inputs, 2);
	assert_memory_equal(recs[2].inputs, inputs, 64);
	assert_true(recs[2].queue_seconds == 0.5 && recs[2].total_seconds == 2.25);
	assert_null(recs[2].data);

	assert_string_equal(recs[3].request_id, "job-d \"quoted\" / with spaces");
	assert_int_equal(recs[3].state, ZKP_JOB_FAILED);
	assert_int_equal(recs[3].error_code, ZKP_ERR_UNSATISFIED);
	assert_string_equal(recs[3].error_message, "row 7 is not satisfied");
	for (size_t i = 1; i < n; i++)
		assert_true(recs[i].seq > recs[i - 1].seq);
	uint64_t last = recs[3].seq;
	free_all(recs, n);

	/* sequence numbers go on from the largest read */
	pending(&r, "job-e", "porep", ZKP_WITNESS_RAW, wtns, 32, NULL);
	write_ok(j, &r);
	assert_true(r.seq > last);
	zkp_journal_remove(j, "job-e");
	zkp_journal_remove(j, "never-written");
	assert_int_equal(count_files(".job"), 4);
	zkp_journal_free(j);
}

/* A valid entry's bytes, to damage or rename. */
static uint8_t *entry_bytes(const char *rid, size_t *len, char name[ZKP_JOURNAL_NAME_MAX])
{
	uint8_t w[40] = { 1 };
	zkp_journal_record r;
	zkp_journal *j = open_journal(16);
	pending(&r, rid, "porep", ZKP_WITNESS_RAW, w, sizeof(w), NULL);
	write_ok(j, &r);
	zkp_journal_free(j);
	assert_int_equal(zkp_journal_file_name(name, rid), 0);
	char p[256];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	uint8_t *buf = malloc(4096);
	*len = fread(buf, 1, 4096, f);
	fclose(f);
	assert_true(*len > 0);
	return buf;
}

static void test_corrupt_set_aside(void **state)
{
	(void)state;
	char good[ZKP_JOURNAL_NAME_MAX], moved[ZKP_JOURNAL_NAME_MAX], other[ZKP_JOURNAL_NAME_MAX];
	size_t len, good_len;
	uint8_t *bytes = entry_bytes("moved", &len, moved);
	free(entry_bytes("good", &good_len, good));

	/* garbage under a valid name */
	static const char junk[] = "\xff\xff\xff\xff this is not protobuf";
	char garbage[ZKP_JOURNAL_NAME_MAX];
	assert_int_equal(zkp_journal_file_name(garbage, "garbage"), 0);
	write_bytes(garbage, junk, sizeof(junk));
	/* an entry cut short inside its witness */
	char cut[ZKP_JOURNAL_NAME_MAX];
	assert_int_equal(zkp_journal_file_name(cut, "cut"), 0);
	write_bytes(cut, bytes, len - 10);
	/* a valid entry under another request_id's name */
	assert_int_equal(zkp_journal_file_name(other, "other"), 0);
	write_bytes(other, bytes, len);
	char p[256], q[300];
	path_of(p, sizeof(p), moved);
	assert_int_equal(unlink(p), 0);
	/* version 2: a valid entry followed by field 1 (varint) = 2, which
	 * protobuf takes over the earlier version field */
	uint8_t *vlast = malloc(len + 2);
	memcpy(vlast, bytes, len);
	vlast[len] = 0x08;
	vlast[len + 1] = 0x02;
	char ver[ZKP_JOURNAL_NAME_MAX];
	assert_int_equal(zkp_journal_file_name(ver, "moved"), 0);
	write_bytes(ver, vlast, len + 2);
	/* an empty file */
	char empty[ZKP_JOURNAL_NAME_MAX];
	assert_int_equal(zkp_journal_file_name(empty, "empty"), 0);
	write_bytes(empty, "", 0);
	/* one bit flipped inside the witness: it still decodes, but its
	 * checksum (SHA-256 of every byte before it) does not match */
	uint8_t *flipped = malloc(len);
	memcpy(flipped, bytes, len);
	flipped[len - 34 - 5] ^= 0x10; /* the raw witness ends just before the trailer */
	char why[160];
	zkp_journal_record fr;
	const char *reason = zkp_journal_decode(&fr, flipped, len, moved, why, sizeof(why));
	assert_non_null(reason);
	if (!strstr(reason, "checksum mismatch"))
		fail_msg("reason: %s", reason);
	/* the same entry from a writer before checksums (no trailer: field 13,
	 * 32 bytes, last) is read */
	assert_int_equal(bytes[len - 34], 0x6a);
	assert_null(zkp_journal_decode(&fr, bytes, len - 34, moved, why, sizeof(why)));
	assert_string_equal(fr.request_id, "moved");
	zkp_journal_record_release(&fr);
	/* names that are not the journal's are left alone */
	write_bytes("README", "x", 1);
	write_bytes("0000.job", "x", 1);

	zkp_journal *j = open_journal(16);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 1);
	assert_string_equal(recs[0].request_id, "good");
	free_all(recs, n);
	zkp_journal_free(j);

	const char *bad[] = { garbage, cut, other, ver, empty };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path_of(p, sizeof(p), bad[i]);
		snprintf(q, sizeof(q), "%s.bad", p);
		assert_int_equal(access(p, F_OK), -1);
		assert_int_equal(access(q, F_OK), 0);
	}
	assert_int_equal(count_files(".bad"), 5);
	path_of(p, sizeof(p), "README");
	assert_int_equal(access(p, F_OK), 0);

	/* .bad files are never read again */
	j = open_journal(16);
	load_all(j, &recs, &n);
	assert_int_equal(n, 1);
	free_all(recs, n);
	zkp_journal_free(j);
	free(bytes);
	free(vlast);
	free(flipped);
}

static void test_temporaries(void **state)
{
	(void)state;
	char name[ZKP_JOURNAL_NAME_MAX], tmp[128];
	size_t len;
	uint8_t *bytes = entry_bytes("t", &len, name);
	/* a complete entry under a temporary name is still not read */
	char other[ZKP_JOURNAL_NAME_MAX];
	assert_int_equal(zkp_journal_file_name(other, "t2"), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp.99.0", other);
	write_bytes(tmp, bytes, len);
	snprintf(tmp, sizeof(tmp), "%s.tmp.99.1", name);
	write_bytes(tmp, bytes, len / 2);
	assert_int_equal(count_files(".tmp."), 2);

	zkp_journal *j = open_journal(16);
	assert_int_equal(count_files(".tmp."), 0);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 1);
	assert_string_equal(recs[0].request_id, "t");
	free_all(recs, n);
	zkp_journal_free(j);
	free(bytes);
}

/* Writes a 1 MiB entry for rid "big" and expects ZKP_ERR_IO whose message
 * names the file and has reason in it. */
static void expect_write_fails(zkp_journal *j, const char *reason)
{
	size_t len = 1 << 20;
	uint8_t *w = calloc(1, len);
	zkp_journal_record r;
	zkp_error err = { 0 };
	char name[ZKP_JOURNAL_NAME_MAX];
	pending(&r, "big", "porep", ZKP_WITNESS_WTNS, w, len, NULL);
	assert_int_equal(zkp_journal_write(j, &r, &err), ZKP_ERR_IO);
	assert_int_equal(zkp_journal_file_name(name, "big"), 0);
	if (!strstr(err.msg, dir) || !strstr(err.msg, name) || !strstr(err.msg, reason))
		fail_msg("message \"%s\" lacks the file or \"%s\"", err.msg, reason);
	free(w);
}

static void test_write_failures(void **state)
{
	(void)state;
	char name[ZKP_JOURNAL_NAME_MAX];
	size_t len;
	/* an earlier entry for the same request_id, to be kept intact */
	uint8_t *before = entry_bytes("big", &len, name);
	zkp_journal *j = open_journal(16);

	/* A full disk, as RLIMIT_FSIZE makes it: writes past 64 KiB fail
	 * with EFBIG (SIGXFSZ ignored). */
	struct rlimit old, small;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 64 * 1024;
	void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	expect_write_fails(j, strerror(EFBIG));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, prev);
	assert_int_equal(count_files(".tmp."), 0);
	assert_int_equal(count_files(NULL), 1);
	char p[256];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	uint8_t now[4096];
	assert_int_equal(fread(now, 1, sizeof(now), f), len);
	fclose(f);
	assert_memory_equal(now, before, len);

	/* A read-only directory (root writes anyway: skipped for it). */
	if (geteuid() != 0) {
		assert_int_equal(chmod(dir, 0500), 0);
		expect_write_fails(j, strerror(EACCES));
		assert_int_equal(chmod(dir, 0700), 0);
		assert_int_equal(count_files(NULL), 1);
	}
	zkp_journal_free(j);

	/* What is left reads back as the earlier entry. */
	j = open_journal(16);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 1);
	assert_string_equal(recs[0].request_id, "big");
	assert_int_equal(recs[0].len, 40);
	free_all(recs, n);
	zkp_journal_free(j);

	/* The directory removed under the journal. */
	char sub[128];
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	zkp_error err = { 0 };
	assert_int_equal(zkp_journal_open(&j, sub, 4, &err), 0);
	assert_int_equal(rmdir(sub), 0);
	expect_write_fails(j, strerror(ENOENT));
	zkp_journal_free(j);
	/* and a journal path that is a file */
	assert_int_equal(zkp_journal_open(&j, p, 4, &err), ZKP_ERR_IO);
	assert_non_null(strstr(err.msg, p));
	assert_null(j);
	free(before);
}

static zkp_journal_record result(const char *rid)
{
	zkp_journal_record r;
	memset(&r, 0, sizeof(r));
	snprintf(r.request_id, sizeof(r.request_id), "%s", rid);
	snprintf(r.circuit, sizeof(r.circuit), "porep");
	r.ended = true;
	r.state = ZKP_JOB_CANCELLED;
	r.error_code = ZKP_ERR_CANCELLED;
	return r;
}

static void test_history(void **state)
{
	(void)state;
	uint8_t w[32] = { 0 };
	zkp_journal *j = open_journal(2);
	zkp_journal_record r;
	pending(&r, "p", "porep", ZKP_WITNESS_RAW, w, sizeof(w), NULL);
	write_ok(j, &r);
	r = result("r1");
	write_ok(j, &r);
	r = result("r2");
	write_ok(j, &r);
	r = result("r3"); /* r1 goes */
	write_ok(j, &r);
	assert_int_equal(count_files(".job"), 3);
	/* r2's request_id reused: its result becomes a pending entry again,
	 * and is no longer a result to trim */
	pending(&r, "r2", "porep", ZKP_WITNESS_RAW, w, sizeof(w), NULL);
	write_ok(j, &r);
	r = result("r4");
	write_ok(j, &r);
	assert_int_equal(count_files(".job"), 4); /* p, r2 (pending), r3, r4 */
	r = result("r5"); /* r3 goes */
	write_ok(j, &r);
	zkp_journal_free(j);

	/* Loading with a smaller history trims the oldest results. */
	j = open_journal(1);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 3);
	assert_string_equal(recs[0].request_id, "p");
	assert_string_equal(recs[1].request_id, "r2");
	assert_false(recs[1].ended);
	assert_string_equal(recs[2].request_id, "r5");
	free_all(recs, n);
	assert_int_equal(count_files(".job"), 3);
	zkp_journal_free(j);

	/* history 0: a result is removed as soon as it is written */
	j = open_journal(0);
	load_all(j, &recs, &n);
	assert_int_equal(n, 2);
	free_all(recs, n);
	r = result("p");
	write_ok(j, &r);
	assert_int_equal(count_files(".job"), 1);
	zkp_journal_free(j);
}

/* ---- the glue, over an engine whose one circuit cannot load ---- */

static zkp_config_circuit glue_circuit;

static zkp_engine *glue_engine(void)
{
	zkp_config cfg;
	zkp_error err = { 0 };
	zkp_engine *e = NULL;
	static char missing[128];
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	memset(&cfg, 0, sizeof(cfg));
	cfg.devices = (char *)"cpu";
	cfg.workers_per_device = 1;
	cfg.pipeline_depth = 1;
	cfg.synthesis_threads = 1;
	cfg.memory_budget = 1ull << 30;
	cfg.max_queued = 100;
	cfg.job_history = 16;
	memset(&glue_circuit, 0, sizeof(glue_circuit));
	snprintf(glue_circuit.name, sizeof(glue_circuit.name), "porep");
	glue_circuit.pce = missing;
	glue_circuit.key = missing;
	glue_circuit.key_format = ZKP_KEY_FORMAT_BELLMAN;
	cfg.circuits = &glue_circuit;
	cfg.n_circuits = 1;
	int rc = zkp_engine_new(&e, &cfg, NULL, NULL, &err);
	if (rc)
		fail_msg("engine: %s", zkp_error_text(&err, rc));
	zkp_engine_start_loads(e);
	return e;
}

/* Polls events into the journal until job_id ended and its result is
 * written (at most 60 s). */
static void pump_until_ended(zkp_journal *j, zkp_engine *e, uint64_t job_id)
{
	zkp_engine_event ev[16];
	for (int i = 0; i < 6000; i++) {
		zkp_journal_poll(j, e);
		size_t n = zkp_engine_poll(e, ev, 16);
		for (size_t k = 0; k < n; k++) {
			zkp_journal_job_event(j, e, &ev[k], false);
			if (ev[k].kind == ZKP_EVENT_JOB && ev[k].job_id == job_id &&
			    (ev[k].state == ZKP_JOB_DONE || ev[k].state == ZKP_JOB_FAILED ||
			     ev[k].state == ZKP_JOB_CANCELLED)) {
				for (int w = 0; w < 6000 && !zkp_journal_idle(j); w++) {
					zkp_journal_poll(j, e);
					struct timespec ts = { 0, 1000 * 1000 };
					nanosleep(&ts, NULL);
				}
				return;
			}
		}
		if (!n) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	fail_msg("job %llu did not end", (unsigned long long)job_id);
}

struct submitted {
	int calls;
	int rc;
	uint64_t id;
	bool attached;
};

static void on_submitted(void *owner, uint64_t cookie, int rc, uint64_t id, bool attached,
			 const zkp_error *err)
{
	struct submitted *s = owner;
	(void)cookie;
	(void)err;
	s->calls++;
	s->rc = rc;
	s->id = id;
	s->attached = attached;
}

/* zkp_journal_submit to its end: polls until the journal answers. */
static int submit_wait(zkp_journal *j, zkp_engine *e, zkp_job_spec *spec, uint64_t *id,
		       bool *attached, zkp_error *err)
{
	struct submitted s = { 0 };
	int rc = zkp_journal_submit(j, e, spec, on_submitted, &s, 7, id, attached, err);
	if (rc != ZKP_JOURNAL_PENDING)
		return rc;
	for (int i = 0; i < 60000 && !s.calls; i++) {
		zkp_journal_poll(j, e);
		if (!s.calls) {
			struct timespec ts = { 0, 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	assert_int_equal(s.calls, 1);
	*id = s.id;
	*attached = s.attached;
	return s.rc;
}

static void test_glue(void **state)
{
	(void)state;
	uint8_t proof[ZKP_GROTH16_PROOF_BYTES], inputs[32], w[64] = { 0 };
	tu_rand_bytes(proof, sizeof(proof));
	tu_rand_bytes(inputs, sizeof(inputs));
	zkp_journal *j = open_journal(16);
	zkp_journal_record r = result("done-before");
	r.state = ZKP_JOB_DONE;
	r.error_code = 0;
	r.proof = proof;
	r.proof_len = sizeof(proof);
	r.inputs = inputs;
	r.n_inputs = 1;
	write_ok(j, &r);
	r = result("gone-circuit");
	snprintf(r.circuit, sizeof(r.circuit), "removed");
	write_ok(j, &r);
	pending(&r, "pending-bytes", "porep", ZKP_WITNESS_RAW, w, sizeof(w), NULL);
	write_ok(j, &r);
	pending(&r, "pending-path", "porep", ZKP_WITNESS_PATH, NULL, 0, (char *)"/nowhere.wtns");
	write_ok(j, &r);
	pending(&r, "pending-removed", "removed", ZKP_WITNESS_RAW, w, sizeof(w), NULL);
	write_ok(j, &r);
	zkp_journal_free(j);

	zkp_engine *e = glue_engine();
	zkp_error err = { 0 };
	j = open_journal(16);
	assert_int_equal(zkp_journal_restore(j, e, &err), 0);
	/* the finished job is back, but its proof is not returned before it
	 * verifies again against its circuit's key, which cannot load here:
	 * it waits at VERIFY (test_engine covers both ends) */
	uint64_t id = 0;
	zkp_job_info info;
	assert_int_equal(zkp_engine_find_request(e, "done-before", &id), 0);
	assert_int_equal(zkp_engine_job_info(e, id, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_RUNNING);
	assert_int_equal(info.stage, ZKP_STAGE_VERIFY);
	assert_null(info.proof);
	assert_string_equal(info.circuit, "porep");
	zkp_job_info_release(&info);
	/* and a Cancel leaves it alone */
	assert_int_equal(zkp_engine_cancel(e, id, NULL), 0);
	/* circuits no longer configured: set aside */
	assert_int_equal(zkp_engine_find_request(e, "gone-circuit", &id), ZKP_ERR_NOT_FOUND);
	assert_int_equal(zkp_engine_find_request(e, "pending-removed", &id), ZKP_ERR_NOT_FOUND);
	assert_int_equal(count_files(".bad"), 2);
	/* a path the engine refuses (no witness_dir): a FAILED result */
	assert_int_equal(zkp_engine_find_request(e, "pending-path", &id), 0);
	assert_int_equal(zkp_engine_job_info(e, id, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_FAILED);
	assert_int_equal(info.error_code, ZKP_ERR_DENIED);
	zkp_job_info_release(&info);
	/* the witness bytes: resubmitted; it ends (its circuit cannot load)
	 * and its result replaces the entry */
	assert_int_equal(zkp_engine_find_request(e, "pending-bytes", &id), 0);
	pump_until_ended(j, e, id);

	/* a journaled Submit; it fails (its circuit cannot load), so the same
	 * request again is a new job, journaled again */
	uint8_t *data = calloc(1, 64);
	zkp_job_spec spec = { .circuit = "porep", .witness_kind = ZKP_WITNESS_RAW, .data = data,
			      .len = 64, .request_id = "fresh" };
	bool attached = true;
	assert_int_equal(submit_wait(j, e, &spec, &id, &attached, &err), 0);
	assert_false(attached);
	pump_until_ended(j, e, id);
	spec.data = calloc(1, 64);
	uint64_t id2 = 0;
	assert_int_equal(submit_wait(j, e, &spec, &id2, &attached, &err), 0);
	assert_false(attached);
	assert_true(id2 > id);
	pump_until_ended(j, e, id2);
	/* a Submit the engine refuses leaves no entry */
	spec.data = calloc(1, 64);
	spec.circuit = "nope";
	spec.request_id = "refused";
	assert_int_equal(submit_wait(j, e, &spec, &id2, &attached, &err),
			 ZKP_ERR_NOT_FOUND);
	/* a job cancelled by a shutdown keeps its entry */
	spec.data = calloc(1, 64);
	spec.circuit = "porep";
	spec.request_id = "at-shutdown";
	assert_int_equal(submit_wait(j, e, &spec, &id2, &attached, &err), 0);
	zkp_engine_event ev = { .kind = ZKP_EVENT_JOB, .job_id = id2,
				.state = ZKP_JOB_CANCELLED };
	zkp_journal_job_event(j, e, &ev, true);
	zkp_engine_free(e);
	zkp_journal_free(j);

	j = open_journal(16);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	/* done-before, pending-path (FAILED), pending-bytes and fresh
	 * (FAILED: no circuit), at-shutdown (pending) */
	assert_int_equal(n, 5);
	int results = 0;
	bool shutdown_pending = false;
	for (size_t i = 0; i < n; i++) {
		assert_string_not_equal(recs[i].request_id, "refused");
		results += recs[i].ended;
		if (!strcmp(recs[i].request_id, "at-shutdown"))
			shutdown_pending = !recs[i].ended && recs[i].len == 64;
	}
	assert_int_equal(results, 4);
	assert_true(shutdown_pending);
	free_all(recs, n);
	zkp_journal_free(j);
}

static uint64_t reused(zkp_engine *e)
{
	zkp_engine_status st;
	assert_int_equal(zkp_engine_get_status(e, &st), 0);
	uint64_t n = st.requests_reused;
	zkp_engine_status_release(&st);
	return n;
}

/* Results keep the digest of their inputs across a restart: after it, the
 * same request_id with the same inputs attaches to the restored result,
 * with other inputs it is a new job (journaled in its place), and a result
 * written without a digest (an older zkpd) attaches to nothing. */
static void test_digest_restart(void **state)
{
	(void)state;
	uint8_t proof[ZKP_GROTH16_PROOF_BYTES], w1[64] = { 1 }, w2[64] = { 2 };
	uint8_t d1[ZKP_INPUT_DIGEST_BYTES], d2[ZKP_INPUT_DIGEST_BYTES];
	zkp_error err = { 0 };
	tu_rand_bytes(proof, sizeof(proof));
	zkp_engine *e = glue_engine();
	zkp_job_spec spec = { .circuit = "porep", .witness_kind = ZKP_WITNESS_RAW, .data = w1,
			      .len = sizeof(w1), .request_id = "wdpost-1000-0-abcdefgh" };
	assert_int_equal(zkp_engine_input_digest(e, &spec, d1, &err), 0);
	spec.data = w2;
	assert_int_equal(zkp_engine_input_digest(e, &spec, d2, &err), 0);
	assert_memory_not_equal(d1, d2, sizeof(d1));
	spec.circuit = "other";
	uint8_t d3[ZKP_INPUT_DIGEST_BYTES];
	assert_int_equal(zkp_engine_input_digest(e, &spec, d3, &err), 0);
	assert_memory_not_equal(d2, d3, sizeof(d2)); /* the circuit counts */

	zkp_journal *j = open_journal(16);
	zkp_journal_record r = result("wdpost-1000-0-abcdefgh");
	r.state = ZKP_JOB_DONE; /* no public inputs: restored DONE at once */
	r.error_code = 0;
	r.proof = proof;
	r.proof_len = sizeof(proof);
	r.has_digest = true;
	memcpy(r.input_digest, d1, sizeof(d1));
	write_ok(j, &r);
	r.has_digest = false;
	snprintf(r.request_id, sizeof(r.request_id), "written-without-digest");
	write_ok(j, &r);
	zkp_journal_free(j);

	j = open_journal(16);
	assert_int_equal(zkp_journal_restore(j, e, &err), 0);
	uint64_t held = 0, id = 0;
	bool attached = false;
	assert_int_equal(zkp_engine_find_request(e, "wdpost-1000-0-abcdefgh", &held), 0);
	spec.circuit = "porep";
	spec.data = malloc(sizeof(w1));
	memcpy(spec.data, w1, sizeof(w1));
	assert_int_equal(submit_wait(j, e, &spec, &id, &attached, &err), 0);
	assert_true(attached);
	assert_int_equal(id, held);
	assert_int_equal(reused(e), 0);
	spec.data = malloc(sizeof(w2));
	memcpy(spec.data, w2, sizeof(w2));
	assert_int_equal(submit_wait(j, e, &spec, &id, &attached, &err), 0);
	assert_false(attached);
	assert_true(id > held);
	assert_int_equal(reused(e), 1);
	zkp_job_info info;
	assert_int_equal(zkp_engine_job_info(e, held, &info), 0);
	assert_int_equal(info.state, ZKP_JOB_DONE);
	assert_memory_equal(info.proof, proof, sizeof(proof));
	zkp_job_info_release(&info);
	pump_until_ended(j, e, id); /* fails: its circuit cannot load */
	spec.request_id = "written-without-digest";
	spec.data = malloc(sizeof(w1));
	memcpy(spec.data, w1, sizeof(w1));
	assert_int_equal(zkp_engine_find_request(e, "written-without-digest", &held), 0);
	assert_int_equal(submit_wait(j, e, &spec, &id, &attached, &err), 0);
	assert_false(attached);
	assert_true(id > held);
	assert_int_equal(reused(e), 2);
	pump_until_ended(j, e, id);
	zkp_engine_free(e);
	zkp_journal_free(j);

	/* the new jobs' results, with their digests, replaced the old ones */
	j = open_journal(16);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_true(recs[i].ended);
		assert_int_equal(recs[i].state, ZKP_JOB_FAILED);
		assert_true(recs[i].has_digest);
		if (!strcmp(recs[i].request_id, "wdpost-1000-0-abcdefgh"))
			assert_memory_equal(recs[i].input_digest, d2, sizeof(d2));
		else
			assert_memory_equal(recs[i].input_digest, d1, sizeof(d1));
	}
	free_all(recs, n);
	zkp_journal_free(j);
}

/* With the writer thread: a Submit is answered from poll once its entry is
 * on disk; a second Submit of the same request_id and inputs while the
 * first is on its way attaches to the same job; a forgotten owner is not called back, and
 * its job is submitted all the same; a result's event is handed to deliver
 * only after its record was written. */
static size_t delivered;
static uint64_t delivered_job;

static void on_deliver(void *arg, const zkp_engine_event *ev)
{
	(void)arg;
	delivered++;
	delivered_job = ev->job_id;
}

static void test_writer_thread(void **state)
{
	(void)state;
	zkp_engine *e = glue_engine();
	zkp_error err = { 0 };
	zkp_journal *j = open_journal(16);
	assert_int_equal(zkp_journal_start(j, NULL, on_deliver, NULL, &err), 0);
	struct submitted a = { 0 }, b = { 0 }, gone = { 0 };
	zkp_job_spec spec = { .circuit = "porep", .witness_kind = ZKP_WITNESS_RAW,
			      .data = calloc(1, 1 << 20), .len = 1 << 20, .request_id = "twice" };
	uint64_t id = 0;
	bool att = false;
	assert_int_equal(zkp_journal_submit(j, e, &spec, on_submitted, &a, 1, &id, &att, &err),
			 ZKP_JOURNAL_PENDING);
	assert_null(spec.data); /* the journal's now */
	spec.data = calloc(1, 1 << 20); /* the same inputs */
	assert_int_equal(zkp_journal_submit(j, e, &spec, on_submitted, &b, 2, &id, &att, &err),
			 ZKP_JOURNAL_PENDING);
	spec.data = calloc(1, 64);
	spec.len = 64;
	spec.request_id = "client-gone";
	assert_int_equal(zkp_journal_submit(j, e, &spec, on_submitted, &gone, 3, &id, &att, &err),
			 ZKP_JOURNAL_PENDING);
	zkp_journal_forget(j, &gone);
	assert_false(zkp_journal_idle(j));
	for (int i = 0; i < 60000 && !zkp_journal_idle(j); i++) {
		zkp_journal_poll(j, e);
		struct timespec ts = { 0, 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	assert_true(zkp_journal_idle(j));
	assert_int_equal(a.calls, 1);
	assert_int_equal(b.calls, 1);
	assert_int_equal(a.rc, 0);
	assert_int_equal(b.rc, 0);
	assert_false(a.attached);
	assert_true(b.attached);
	assert_int_equal(a.id, b.id);
	assert_int_equal(gone.calls, 0);
	uint64_t gid = 0;
	assert_int_equal(zkp_engine_find_request(e, "client-gone", &gid), 0);
	/* both end (their circuit cannot load); each result's event comes
	 * back through deliver once written */
	delivered = 0;
	zkp_engine_event ev[16];
	for (int i = 0; i < 60000 && (delivered < 2 || !zkp_journal_idle(j)); i++) {
		zkp_journal_poll(j, e);
		size_t n = zkp_engine_poll(e, ev, 16);
		for (size_t k = 0; k < n; k++)
			zkp_journal_job_event(j, e, &ev[k], false);
		struct timespec ts = { 0, 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	assert_int_equal(delivered, 2);
	zkp_engine_free(e);
	zkp_journal_free(j);
	j = open_journal(16);
	zkp_journal_record *recs;
	size_t n;
	load_all(j, &recs, &n);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		assert_true(recs[i].ended);
	free_all(recs, n);
	zkp_journal_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_porep_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_set_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_temporaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_glue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_digest_restart, setup, teardown),
	};
	zkp_log_init("test_journal", ZKP_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
