/*
 * The journal's insides, shared by its two files: journal.c (records,
 * files, restore) and journal_async.c (the writer thread and the engine
 * glue of a running server). Nothing outside the journal includes this.
 *
 * Threads: everything here belongs to the server's loop thread, except
 * journal_write_file, which the writer thread calls (it reads only dir and
 * dirfd, which do not change after open), and the fields under wlock.
 */
#ifndef ZKPD_DAEMON_JOURNAL_INT_H
#define ZKPD_DAEMON_JOURNAL_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "journal.h"

#define DIGEST_BYTES 32

struct jnode {
	uint8_t digest[DIGEST_BYTES];
	uint64_t seq;
	bool ended;
	uint64_t job_id;           /* pending: the engine's job, 0 when none */
	struct jnode *hnext;       /* hash chain */
	struct jnode *prev, *next; /* pending list */
};

struct rslot {
	uint8_t digest[DIGEST_BYTES];
	uint64_t seq;
};

struct jwork; /* journal_async.c */

struct zkp_journal {
	char *dir;
	int dirfd;
	uint32_t history;
	uint64_t next_seq;
	uint64_t tmp_count;
	struct jnode **tab;
	size_t tab_size, n_nodes;
	struct jnode *pending;
	/* Restored results the engine verifies again: set aside if one fails. */
	struct restored {
		uint64_t job_id;
		char request_id[ZKP_REQUEST_ID_MAX + 1];
	} *verifying;
	size_t n_verifying, cap_verifying;
	/* Result FIFO: ring[head .. head + n) modulo cap, oldest first. */
	struct rslot *ring;
	size_t ring_head, ring_n, ring_cap;
	size_t n_results; /* nodes with ended set */

	/* The writer thread (journal_async.c). todo and done are FIFOs under
	 * wlock; the rest is the loop thread's. */
	pthread_t writer;
	bool writer_started, writer_stop;
	pthread_mutex_t wlock;
	pthread_cond_t wcond;
	struct jwork *todo, *todo_tail, *done, *done_tail;
	struct jwork *submits;  /* Submits whose entry is not yet on disk */
	size_t outstanding;     /* work handed to the writer, not yet polled */
	zkp_journal_wake_fn wake;
	zkp_journal_deliver_fn deliver;
	void *cb_arg;
};

int journal_digest(uint8_t out[DIGEST_BYTES], const char *request_id);
void journal_name(char buf[ZKP_JOURNAL_NAME_MAX], const uint8_t digest[DIGEST_BYTES]);
struct jnode *journal_node_find(const zkp_journal *j, const uint8_t d[DIGEST_BYTES]);
void journal_node_drop(zkp_journal *j, struct jnode *n);
void journal_sync_dir(const zkp_journal *j);
bool journal_ended_state(enum zkp_job_state s);
/* Binds request_id's pending entry to the engine's job. */
void journal_bind_job(zkp_journal *j, const char *request_id, uint64_t job_id);

/* A write in three steps, so that the middle one can run on the writer
 * thread: journal_prepare (loop thread) gives r its sequence number, its
 * file name and a temporary-file number; journal_write_file (any thread)
 * writes, fsyncs and renames the file into place and fsyncs the
 * directory, leaving no file of its own making when it fails (*lost: it
 * had already replaced NAME.job, which is now gone); journal_written (loop
 * thread) records the outcome in the table and trims old results. */
int journal_prepare(zkp_journal *j, zkp_journal_record *r, char name[ZKP_JOURNAL_NAME_MAX],
		    uint64_t *tmp_no, zkp_error *err);
int journal_write_file(const zkp_journal *j, const zkp_journal_record *r, const char *name,
		       uint64_t tmp_no, bool *lost, zkp_error *err);
int journal_written(zkp_journal *j, const zkp_journal_record *r, int rc, bool lost,
		    zkp_error *err);

/* Stops and joins the writer thread (journal_async.c), dropping work not
 * yet polled. */
void journal_writer_stop(zkp_journal *j);

#endif
