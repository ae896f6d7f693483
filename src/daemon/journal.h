/*
 * journal: the optional on-disk record of jobs (server.journal_dir), so that
 * a job submitted with a request_id is not lost when zkpd dies (SIGKILL, a
 * crash, a power cut) and its result outlives a restart.
 *
 * Files. One per request_id in the journal directory: NAME.job, NAME the
 * SHA-256 of the request_id in lowercase hex. It holds one protobuf
 * zkpd.v1.JournalEntry (proto/zkpd/v1/journal.proto, version 1): while the
 * job is pending (queued or running) its request_id, circuit, priority,
 * proof format and witness (the bytes and their format, or only the path of
 * a path witness); once the job ended, its result record instead (state,
 * error code and message, proof, proof.json, public inputs, queue and total
 * seconds, the digest of its inputs). Every file carries a sequence number
 * that grows with each write: pending entries are resubmitted in submit
 * order, results kept newest.
 *
 * Invariants:
 *  - NAME.job is complete and fsync'd, or absent: a write goes to
 *    NAME.job.tmp.PID.N in the same directory, is fsync'd, renamed over
 *    NAME.job, and the directory is fsync'd. A write that fails removes its
 *    temporary file and leaves no NAME.job of its own making; temporary
 *    files left by a crash are removed by zkp_journal_open and never read.
 *  - Only jobs with a non-empty request_id are journaled (one that has none
 *    cannot be asked for again after a restart).
 *  - At most `history` result records exist; writing one more removes the
 *    oldest (by sequence).
 *  - A file that cannot be read or decoded, or holds an entry that is not
 *    valid (another version, a name that is not its request_id's, no
 *    witness and no result, ...), is renamed NAME.job.bad with a WARN line
 *    naming it and the reason, and is never read again.
 *
 * Each file ends with a checksum field (SHA-256 of every byte before it):
 * a file whose bytes changed after they were written is set aside (.bad)
 * like one that does not decode. Files from writers before checksums have
 * none. Restored DONE results with public inputs are verified again by the
 * engine before they are returned (zkp_engine_restore_result); one that
 * fails is set aside when its end event reaches zkp_journal_job_event.
 *
 * Two layers. Records (zkp_journal_open ... zkp_journal_remove) know
 * nothing of the engine and are what the unit test drives. The engine glue
 * (zkp_journal_restore, zkp_journal_submit, zkp_journal_job_event) is what
 * the server calls.
 *
 * Threads: a zkp_journal belongs to the server's loop thread, except the
 * file writes of Submits and results, which its writer thread does
 * (zkp_journal_start). Cost: a journaled Submit writes its witness (bytes,
 * or only a path) and waits for two fsyncs before it is answered, but the
 * loop serves other connections meanwhile; a job's end writes its result
 * (a few hundred bytes) and fsyncs twice before its clients hear of it;
 * neither takes an engine lock while it writes.
 */
#ifndef ZKPD_DAEMON_JOURNAL_H
#define ZKPD_DAEMON_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "zkpd/error.h"

#define ZKP_JOURNAL_VERSION 1
/* "NAME.job": 64 hex digits, ".job", NUL. */
#define ZKP_JOURNAL_NAME_MAX 69
/* A PoRep sector job's partitions at most (non-interactive 32 GiB: 126). */
#define ZKP_JOURNAL_MAX_PARTITIONS 256

typedef struct zkp_journal zkp_journal;

/* One file's content. For zkp_journal_write the pointers are borrowed;
 * records from zkp_journal_load own them (zkp_journal_record_release). */
typedef struct {
	uint64_t seq; /* set by zkp_journal_write */
	char request_id[ZKP_REQUEST_ID_MAX + 1];
	char circuit[ZKP_CONFIG_NAME_MAX];
	enum zkp_priority priority;
	bool want_json;
	bool ended; /* false: a pending entry; true: a result record */
	/* Pending: the witness (or C1) as submitted. */
	enum zkp_witness_kind witness_kind;
	uint8_t *data; /* WTNS, RAW, C1 */
	size_t len;
	char *path; /* PATH, C1_PATH */
	/* Ended: */
	enum zkp_job_state state; /* DONE, FAILED or CANCELLED */
	int error_code;           /* FAILED, CANCELLED: a zkp_err */
	char error_message[512];
	uint8_t *proof;                         /* DONE: 192 bytes; 192 per partition */
	size_t proof_len;
	uint32_t partitions;                    /* a PoRep sector job's; else 0 */
	char *proof_json;                       /* DONE: NULL when not asked for */
	uint8_t *inputs;                        /* DONE: n_inputs * 32 bytes */
	size_t n_inputs;
	double queue_seconds, total_seconds;
	/* The digest of the job's inputs (engine.h): a pending entry's as
	 * taken at its Submit (not written: taken again when resubmitted), a
	 * result's as written. has_digest false: a result from a writer
	 * before digests, which no Submit attaches to. */
	bool has_digest;
	uint8_t input_digest[ZKP_INPUT_DIGEST_BYTES];
} zkp_journal_record;

/* Frees what a loaded record owns; accepts a zeroed record. */
void zkp_journal_record_release(zkp_journal_record *r);

/* The file name of request_id's record ("<sha256 hex>.job") into buf.
 * Errors: ZKP_ERR_NOMEM (OpenSSL could not hash). */
int zkp_journal_file_name(char buf[ZKP_JOURNAL_NAME_MAX], const char *request_id);

/* Opens dir (created, mode 0700, when it does not exist; its parent must),
 * removes the temporary files a crash left there, and keeps at most history
 * result records from then on. Reads no record (zkp_journal_load does).
 * Errors: ZKP_ERR_IO naming the directory and the errno text (not a
 * directory, no permission), ZKP_ERR_NOMEM. */
int zkp_journal_open(zkp_journal **ret, const char *dir, uint32_t history, zkp_error *err);
/* NULL is a no-op. Leaves every file in place. */
void zkp_journal_free(zkp_journal *j);

/* Reads every NAME.job: *ret gets the valid records ordered by sequence
 * (malloc'd array; release each record, then free the array). Bad files
 * are renamed .bad (WARN logged); result records beyond `history` are
 * removed, oldest first. Call once, after open. Errors: ZKP_ERR_IO (the
 * directory cannot be listed), ZKP_ERR_NOMEM. */
int zkp_journal_load(zkp_journal *j, zkp_journal_record **ret, size_t *n, zkp_error *err);

/* One file's bytes, under the file name `name` ("NAME.job"), decoded and
 * checked as zkp_journal_load does for each file: NULL with *r filled
 * (release it with zkp_journal_record_release), or why the bytes are not
 * a valid entry for that name (*r is then empty). why (size bytes) may be
 * where the reason is written. No I/O. */
const char *zkp_journal_decode(zkp_journal_record *r, const uint8_t *buf, size_t len,
			       const char *name, char *why, size_t size);

/* Writes r (r->request_id non-empty) atomically as its NAME.job, replacing
 * the file there; r->seq gets its sequence number. A result record may push
 * the oldest one out (history). Errors, with a message naming the file and
 * the errno text: ZKP_ERR_IO (disk full, permissions, ...), ZKP_ERR_INVAL
 * (no request_id), ZKP_ERR_NOMEM. */
int zkp_journal_write(zkp_journal *j, zkp_journal_record *r, zkp_error *err);

/* Removes request_id's file, if any, and makes that durable. */
void zkp_journal_remove(zkp_journal *j, const char *request_id);

/* Renames request_id's file NAME.job.bad with a WARN line giving why. */
void zkp_journal_set_aside(zkp_journal *j, const char *request_id, const char *why);

/* ---- engine glue (the server's loop thread) ---- */

/* At start, before listening: loads the journal; puts each result record
 * back into the engine's finished-job history (zkp_engine_restore_result),
 * oldest first, and resubmits each pending entry with its request_id,
 * priority and witness, in submit order. An entry for a circuit that is no
 * longer configured is set aside (.bad); one that the engine refuses for
 * another reason (a witness path gone, a limit) becomes a FAILED result
 * with the engine's error, so the client learns why. Logs one INFO line
 * with the counts. Errors: zkp_journal_load's. */
int zkp_journal_restore(zkp_journal *j, zkp_engine *e, zkp_error *err);

/* The writer thread. zkp_journal_start starts it: from then on the
 * entries of Submits and the result records of ended jobs are written and
 * fsync'd there, never on the loop thread, so other connections are served
 * while a large witness goes to disk. wake is called on the writer thread
 * when finished work waits (the server wakes its loop, which calls
 * zkp_journal_poll); deliver gets, on the loop thread, each job event that
 * zkp_journal_job_event held back until its result was on disk. Errors:
 * ZKP_ERR_NOMEM (no thread). Without it (the unit tests), the same work is
 * done at once on the caller's thread and still completed by poll. */
typedef void (*zkp_journal_wake_fn)(void *arg);
typedef void (*zkp_journal_deliver_fn)(void *arg, const zkp_engine_event *ev);
int zkp_journal_start(zkp_journal *j, zkp_journal_wake_fn wake, zkp_journal_deliver_fn deliver,
		      void *arg, zkp_error *err);

/* A Submit's outcome: rc 0 with the job id and whether it attached to a
 * job that had the request_id already, or the error (err). owner and
 * cookie are the caller's (a session and its call id). */
typedef void (*zkp_journal_submit_fn)(void *owner, uint64_t cookie, int rc, uint64_t job_id,
				      bool attached, const zkp_error *err);

#define ZKP_JOURNAL_PENDING 1

/* zkp_engine_submit, with the job journaled first when j is not NULL, the
 * spec has a request_id and would not attach to a known job (none holds
 * the request_id, or the one that does failed, was cancelled or had other
 * inputs: zkp_engine_request_attaches). A Submit that attaches writes
 * nothing. The request_id's file then holds the newest job: an older one
 * that lost its request_id to it is not journaled any more. Returns 0 when it was handled at once
 * (*job_id and *attached set; not journaled, or attached), an error (err
 * set; the spec's data freed), or ZKP_JOURNAL_PENDING: the entry is being
 * written (the journal owns the data and copies the strings) and done(owner,
 * cookie, ...) is called from zkp_journal_poll once the entry is durable and
 * the job submitted: with ZKP_ERR_IO naming the file and the errno text when
 * it could not be written, with the engine's error (the entry removed again)
 * when the engine refuses the job. A second Submit of the same request_id
 * and inputs while the first one's entry is being written waits for it and
 * attaches. */
int zkp_journal_submit(zkp_journal *j, zkp_engine *e, zkp_job_spec *spec,
		       zkp_journal_submit_fn done, void *owner, uint64_t cookie, uint64_t *job_id,
		       bool *attached, zkp_error *err);

/* An engine event, seen by the server. When a journaled job ended, its
 * entry is replaced by its result record (or removed when the engine has
 * already forgotten the job: server.job_history = 0); the event is then
 * held (returns true) and handed to deliver once the record is durable, so
 * no client is told of a result that is not on disk. A job CANCELLED while
 * shutting_down (by the shutdown, or by a Cancel that came during it: the
 * two look alike here) keeps its pending entry: it runs again after the
 * restart. A result that cannot be written is logged (WARN); the pending
 * entry then stays, and the job runs again after a restart. A restored
 * result that failed its second verification has its file set aside.
 * Returns false when the caller delivers the event itself. NULL j: false. */
bool zkp_journal_job_event(zkp_journal *j, zkp_engine *e, const zkp_engine_event *ev,
			   bool shutting_down);

/* Completes the writer's finished work, in the order it was handed over:
 * Submits (engine submit, done called) and results (deliver called). Loop
 * thread. NULL j is a no-op. */
void zkp_journal_poll(zkp_journal *j, zkp_engine *e);

/* The owner (a session whose connection closed) is no longer called back;
 * its Submits still complete. */
void zkp_journal_forget(zkp_journal *j, const void *owner);

/* Whether no work is queued or unpolled (the server finishes a drain only
 * then). NULL j: true. */
bool zkp_journal_idle(const zkp_journal *j);

#endif
