/*
 * The journal's writer thread and its engine glue (journal.h).
 *
 * Work items go to the writer in a FIFO (todo) and come back in the same
 * order (done); the writer only writes files (journal_write_file), so the
 * journal's table and the engine are touched on the loop thread alone, in
 * zkp_journal_poll. A Submit's item carries the witness and copies of the
 * strings: the protobuf message they came from is freed once the call
 * returns. Its callers wait in a list of waiters: the one that sent it,
 * and any other Submit of the same request_id that came while it was being
 * written (they attach). A result's item carries the job's info (which owns
 * the proof and inputs the record points at) and the engine event to hand
 * on once the record is durable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal_int.h"
#include "zkpd/log.h"

struct waiter {
	zkp_journal_submit_fn fn; /* NULL once its owner is forgotten */
	void *owner;
	uint64_t cookie;
};

struct jwork {
	struct jwork *next;      /* todo or done */
	struct jwork *next_sub;  /* j->submits */
	bool submit;             /* else a result */
	zkp_journal_record r;    /* what is written */
	char name[ZKP_JOURNAL_NAME_MAX];
	uint64_t tmp_no;
	int rc;
	bool lost;
	zkp_error err;
	/* submit */
	struct waiter *waiters;
	size_t n_waiters, cap_waiters;
	/* result */
	zkp_job_info info;
	zkp_engine_event ev;
};

static void work_free(struct jwork *w)
{
	if (!w)
		return;
	if (w->submit) {
		free(w->r.data);
		free(w->r.path);
		free(w->waiters);
	} else {
		zkp_job_info_release(&w->info);
	}
	free(w);
}

static int add_waiter(struct jwork *w, zkp_journal_submit_fn fn, void *owner, uint64_t cookie)
{
	if (w->n_waiters == w->cap_waiters) {
		size_t cap = w->cap_waiters ? 2 * w->cap_waiters : 2;
		struct waiter *v = realloc(w->waiters, cap * sizeof(*v));
		if (!v)
			return ZKP_ERR_NOMEM;
		w->waiters = v;
		w->cap_waiters = cap;
	}
	w->waiters[w->n_waiters++] = (struct waiter){ fn, owner, cookie };
	return 0;
}

/* ---- the writer thread ---- */

static void *writer_main(void *arg)
{
	zkp_journal *j = arg;
	pthread_mutex_lock(&j->wlock);
	for (;;) {
		while (!j->todo && !j->writer_stop)
			pthread_cond_wait(&j->wcond, &j->wlock);
		struct jwork *w = j->todo;
		if (!w)
			break;
		j->todo = w->next;
		if (!j->todo)
			j->todo_tail = NULL;
		pthread_mutex_unlock(&j->wlock);
		w->next = NULL;
		w->rc = journal_write_file(j, &w->r, w->name, w->tmp_no, &w->lost, &w->err);
		pthread_mutex_lock(&j->wlock);
		if (j->done_tail)
			j->done_tail->next = w;
		else
			j->done = w;
		j->done_tail = w;
		if (j->wake)
			j->wake(j->cb_arg);
	}
	pthread_mutex_unlock(&j->wlock);
	return NULL;
}

int zkp_journal_start(zkp_journal *j, zkp_journal_wake_fn wake, zkp_journal_deliver_fn deliver,
		      void *arg, zkp_error *err)
{
	j->wake = wake;
	j->deliver = deliver;
	j->cb_arg = arg;
	if (pthread_create(&j->writer, NULL, writer_main, j))
		return zkp_error_set(err, ZKP_ERR_NOMEM, "journal %s: cannot start its writer thread",
				     j->dir);
	j->writer_started = true;
	return 0;
}

void journal_writer_stop(zkp_journal *j)
{
	if (j->writer_started) {
		pthread_mutex_lock(&j->wlock);
		j->writer_stop = true;
		pthread_cond_signal(&j->wcond);
		pthread_mutex_unlock(&j->wlock);
		pthread_join(j->writer, NULL);
		j->writer_started = false;
	}
	/* What no poll completed: its files are written or not, as a crash
	 * would leave them, and are read at the next start. */
	struct jwork *lists[] = { j->todo, j->done };
	for (size_t i = 0; i < 2; i++)
		for (struct jwork *w = lists[i], *next; w; w = next) {
			next = w->next;
			work_free(w);
		}
	j->todo = j->todo_tail = j->done = j->done_tail = NULL;
	j->submits = NULL;
	j->outstanding = 0;
}

/* Hands w to the writer (or, without one, writes it now); the loop
 * completes it in zkp_journal_poll. */
static void hand_over(zkp_journal *j, struct jwork *w)
{
	j->outstanding++;
	w->next = NULL;
	if (!j->writer_started)
		w->rc = journal_write_file(j, &w->r, w->name, w->tmp_no, &w->lost, &w->err);
	pthread_mutex_lock(&j->wlock);
	struct jwork **head = j->writer_started ? &j->todo : &j->done;
	struct jwork **tail = j->writer_started ? &j->todo_tail : &j->done_tail;
	if (*tail)
		(*tail)->next = w;
	else
		*head = w;
	*tail = w;
	pthread_cond_signal(&j->wcond);
	pthread_mutex_unlock(&j->wlock);
}

/* ---- Submit ---- */

int zkp_journal_submit(zkp_journal *j, zkp_engine *e, zkp_job_spec *spec,
		       zkp_journal_submit_fn done, void *owner, uint64_t cookie, uint64_t *job_id,
		       bool *attached, zkp_error *err)
{
	const char *rid = spec->request_id;
	uint8_t digest[ZKP_INPUT_DIGEST_BYTES];
	*job_id = 0;
	*attached = false;
	/* Not journaled: no journal, no request_id, a Submit the engine will
	 * refuse on its face, or one that attaches to a known job (one that
	 * failed, was cancelled or had other inputs is not attached to: the
	 * new job is journaled). */
	if (!j || !rid || !*rid || strlen(rid) > ZKP_REQUEST_ID_MAX || !spec->circuit ||
	    strlen(spec->circuit) >= ZKP_CONFIG_NAME_MAX ||
	    zkp_engine_input_digest(e, spec, digest, err) != 0)
		return zkp_engine_submit(e, spec, job_id, attached, err);
	spec->input_digest = digest;
	if (zkp_engine_request_attaches(e, rid, digest))
		return zkp_engine_submit(e, spec, job_id, attached, err);

	/* The same request on its way to disk: wait for it, then attach. */
	for (struct jwork *w = j->submits; w; w = w->next_sub) {
		if (strcmp(w->r.request_id, rid) ||
		    memcmp(w->r.input_digest, digest, sizeof(digest)))
			continue;
		free(spec->data);
		spec->data = NULL;
		if (add_waiter(w, done, owner, cookie))
			return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory queueing a Submit");
		return ZKP_JOURNAL_PENDING;
	}

	struct jwork *w = calloc(1, sizeof(*w));
	int rc = 0;
	if (!w || add_waiter(w, done, owner, cookie)) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory journaling a Submit");
		goto fail;
	}
	w->submit = true;
	zkp_journal_record *r = &w->r;
	snprintf(r->request_id, sizeof(r->request_id), "%s", rid);
	snprintf(r->circuit, sizeof(r->circuit), "%s", spec->circuit);
	r->priority = spec->priority;
	r->want_json = spec->want_json;
	r->witness_kind = spec->witness_kind;
	r->has_digest = true;
	memcpy(r->input_digest, digest, sizeof(digest));
	if (spec->path && !(r->path = strdup(spec->path))) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory journaling a Submit");
		goto fail;
	}
	rc = journal_prepare(j, r, w->name, &w->tmp_no, err);
	if (rc)
		goto fail;
	r->data = spec->data; /* the journal's until the engine takes it */
	r->len = spec->len;
	spec->data = NULL;
	w->next_sub = j->submits;
	j->submits = w;
	hand_over(j, w);
	return ZKP_JOURNAL_PENDING;
fail:
	if (w)
		free(w->waiters);
	if (w)
		free(w->r.path);
	free(w);
	free(spec->data);
	spec->data = NULL;
	return rc;
}

static void submit_done(zkp_journal *j, zkp_engine *e, struct jwork *w)
{
	zkp_journal_record *r = &w->r;
	zkp_error err = { 0 };
	uint64_t job_id = 0;
	bool attached = false;
	int rc = journal_written(j, r, w->rc, w->lost, &w->err);
	if (rc) {
		err = w->err;
		char msg[sizeof(err.msg)];
		snprintf(msg, sizeof(msg), "%s", w->err.msg);
		zkp_error_set(&err, rc, "the job cannot be journaled: %s", msg);
	} else {
		zkp_job_spec spec = {
			.circuit = r->circuit,
			.witness_kind = r->witness_kind,
			.data = r->data,
			.len = r->len,
			.path = r->path,
			.priority = r->priority,
			.request_id = r->request_id,
			.input_digest = r->input_digest,
			.want_json = r->want_json,
		};
		r->data = NULL; /* the engine's from here on */
		rc = zkp_engine_submit(e, &spec, &job_id, &attached, &err);
		if (rc)
			zkp_journal_remove(j, r->request_id);
		else
			journal_bind_job(j, r->request_id, job_id);
	}
	for (size_t i = 0; i < w->n_waiters; i++)
		if (w->waiters[i].fn)
			w->waiters[i].fn(w->waiters[i].owner, w->waiters[i].cookie, rc, job_id,
					 i > 0, &err);
}

/* ---- results ---- */

bool zkp_journal_job_event(zkp_journal *j, zkp_engine *e, const zkp_engine_event *ev,
			   bool shutting_down)
{
	if (!j || ev->kind != ZKP_EVENT_JOB || !journal_ended_state(ev->state) || !ev->job_id)
		return false;
	/* A restored result verified again: its file stays as it is, or is
	 * set aside when its proof did not verify. */
	for (size_t i = 0; i < j->n_verifying; i++) {
		if (j->verifying[i].job_id != ev->job_id)
			continue;
		if (ev->state != ZKP_JOB_DONE)
			zkp_journal_set_aside(j, j->verifying[i].request_id,
					      "its proof does not verify against the circuit's key");
		j->verifying[i] = j->verifying[--j->n_verifying];
		return false;
	}
	struct jnode *n = j->pending;
	while (n && n->job_id != ev->job_id)
		n = n->next;
	if (!n)
		return false;
	char name[ZKP_JOURNAL_NAME_MAX];
	journal_name(name, n->digest);
	if (ev->state == ZKP_JOB_CANCELLED && shutting_down) {
		/* Cancelled by the shutdown, not by a client: it runs again
		 * after the restart. */
		n->job_id = 0;
		return false;
	}
	struct jwork *w = calloc(1, sizeof(*w));
	if (w && zkp_engine_job_info(e, ev->job_id, &w->info) == 0 && !w->info.request_id[0]) {
		/* A newer job took its request_id while its entry was on its way
		 * to disk: the file is the newer job's. */
		work_free(w);
		return false;
	}
	if (!w || !w->info.job_id) {
		if (w) {
			/* Already forgotten (server.job_history = 0): no result
			 * to keep. */
			free(w);
			journal_node_drop(j, n);
			if (!unlinkat(j->dirfd, name, 0))
				journal_sync_dir(j);
		} else {
			zkp_log(ZKP_LOG_WARN, "job %" PRIu64 ": result not journaled: out of memory",
				ev->job_id);
		}
		return false;
	}
	/* The pending entry's job ends here: a second event cannot write
	 * the result twice. */
	n->job_id = 0;
	const zkp_job_info *info = &w->info;
	zkp_journal_record *r = &w->r;
	snprintf(r->request_id, sizeof(r->request_id), "%s", info->request_id);
	snprintf(r->circuit, sizeof(r->circuit), "%s", info->circuit);
	r->priority = info->priority;
	r->want_json = info->proof_json != NULL;
	r->ended = true;
	r->state = info->state;
	r->error_code = info->error_code;
	memcpy(r->error_message, info->error_message, sizeof(r->error_message));
	r->proof = info->proof;
	r->proof_len = info->proof_len;
	r->partitions = info->partitions;
	r->proof_json = info->proof_json;
	r->inputs = info->inputs;
	r->n_inputs = info->n_inputs;
	r->queue_seconds = info->queue_seconds;
	r->total_seconds = info->total_seconds;
	r->has_digest = info->has_digest;
	memcpy(r->input_digest, info->input_digest, sizeof(r->input_digest));
	w->ev = *ev;
	zkp_error err = { 0 };
	int rc = journal_prepare(j, r, w->name, &w->tmp_no, &err);
	if (rc) {
		zkp_log(ZKP_LOG_WARN, "job %" PRIu64 " (request_id \"%s\"): result not journaled: %s",
			ev->job_id, info->request_id, zkp_error_text(&err, rc));
		work_free(w);
		return false;
	}
	hand_over(j, w);
	return true;
}

static void result_done(zkp_journal *j, struct jwork *w)
{
	int rc = journal_written(j, &w->r, w->rc, w->lost, &w->err);
	if (rc)
		zkp_log(ZKP_LOG_WARN, "job %" PRIu64 " (request_id \"%s\"): result not journaled: %s",
			w->ev.job_id, w->r.request_id, zkp_error_text(&w->err, rc));
	if (j->deliver)
		j->deliver(j->cb_arg, &w->ev);
}

/* ---- completion ---- */

void zkp_journal_poll(zkp_journal *j, zkp_engine *e)
{
	if (!j)
		return;
	for (;;) {
		pthread_mutex_lock(&j->wlock);
		struct jwork *w = j->done;
		if (w) {
			j->done = w->next;
			if (!j->done)
				j->done_tail = NULL;
		}
		pthread_mutex_unlock(&j->wlock);
		if (!w)
			return;
		j->outstanding--;
		if (w->submit) {
			struct jwork **p = &j->submits;
			while (*p && *p != w)
				p = &(*p)->next_sub;
			if (*p)
				*p = w->next_sub;
			submit_done(j, e, w);
		} else {
			result_done(j, w);
		}
		work_free(w);
	}
}

void zkp_journal_forget(zkp_journal *j, const void *owner)
{
	if (!j)
		return;
	for (struct jwork *w = j->submits; w; w = w->next_sub)
		for (size_t i = 0; i < w->n_waiters; i++)
			if (w->waiters[i].owner == owner)
				w->waiters[i].fn = NULL;
}

bool zkp_journal_idle(const zkp_journal *j)
{
	return !j || j->outstanding == 0;
}
