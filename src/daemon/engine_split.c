/*
 * engine split jobs: a Filecoin job whose proof is several partition
 * proofs (engine.h, "PoRep and SnapDeals jobs"), proved as one job per
 * partition. The split job's CPU stage reads its input (a sector's C1, or
 * a SnapDeals update's vanilla proofs) and derives every partition's
 * public inputs from its public data through its kind's split_ops, then
 * queues the partition jobs; each partition job computes its witness from
 * the shared, immutable input and proves like any job; the last partition
 * to finish ends the split job with the proofs in partition order.
 *
 * Invariants (engine lock):
 *  - A split_job is shared by its split job and its partition jobs; each
 *    holds one reference until it ends (job_end -> split_job_ended), so the
 *    parsed input is freed once the last of them ended, not when the
 *    history forgets them.
 *  - input, pub and n are written by prepare before any partition job
 *    exists and never change: partition threads read them without the
 *    lock.
 *  - ended: the split job has ended (results of later partitions are
 *    dropped).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"

const struct split_ops *split_ops_of(enum split_kind k)
{
	return k == SPLIT_SNAP ? &snap_split_ops : &porep_split_ops;
}

void split_unref(struct split_job *sp)
{
	if (!sp || --sp->refs)
		return;
	if (sp->input)
		sp->ops->free_input(sp->input);
	free(sp->pub);
	free(sp->ids);
	free(sp->proofs);
	free(sp);
}

/* j's input read and checked against its circuit, every partition's
 * public inputs derived into a new split_job (lock not held). */
static int prepare(struct split_job **ret, const struct job *j, zkp_error *err)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(j->circ->pce);
	struct split_job *sp = calloc(1, sizeof(*sp));
	int rc;
	if (!sp)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a split job");
	sp->refs = 1;
	sp->split_id = j->id;
	sp->ops = split_ops_of(j->split);
	if ((rc = sp->ops->prepare(sp, j, d->n_inputs, err)))
		goto out;
	sp->ids = calloc(sp->n, sizeof(*sp->ids));
	sp->proofs = calloc(sp->n, ZKP_GROTH16_PROOF_BYTES);
	if (!sp->ids || !sp->proofs)
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %u partitions", sp->n);
out:
	if (rc)
		split_unref(sp);
	else
		*ret = sp;
	return rc;
}

int split_run(struct zkp_engine *e, struct job *j, zkp_error *err)
{
	struct split_job *pj = NULL;
	int rc = prepare(&pj, j, err);
	/* The input is read: its bytes go now rather than at the job's end. */
	free(j->data);
	j->data = NULL;
	if (rc)
		return rc;

	zkp_mem_snap snap;
	zkp_mem_snapshot(zkp_stage_name(ZKP_STAGE_WITNESS), &snap);
	zkp_partition_times *parts = calloc(pj->n, sizeof(*parts));
	if (!parts) {
		split_unref(pj);
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory for %u partitions' times",
				     pj->n);
	}
	pthread_mutex_lock(&e->lock);
	if (j->cancel) {
		pthread_mutex_unlock(&e->lock);
		free(parts);
		split_unref(pj);
		return ZKP_ERR_CANCELLED;
	}
	for (unsigned k = 0; k < pj->n; k++) {
		struct job *pk = job_enqueue(e, j->circ, j->prio);
		if (!pk) {
			/* Those queued already go; the caller fails the sector
			 * job, which never held pj. */
			pj->ended = true;
			for (unsigned i = 0; i < k; i++) {
				struct job *q = job_find(e, pj->ids[i]);
				if (q)
					job_cancel(e, q);
			}
			unlock_notify(e);
			free(parts);
			split_unref(pj);
			return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory queueing partitions");
		}
		pk->sp = pj;
		pk->partition = k;
		pk->split_id = j->id;
		pj->refs++;
		pj->ids[k] = pk->id;
		parts[k].job_id = pk->id;
		parts[k].state = ZKP_JOB_QUEUED;
	}
	/* The sector job now only waits: its admission goes to the partitions.
	 * Its stage is recorded here, under the lock: once unlocked, the
	 * partitions may end it. */
	double now = eng_now();
	job_span(j, ZKP_SPAN_PARTITIONS, now);
	double secs = j->spans.seconds[ZKP_SPAN_WITNESS];
	j->stages[ZKP_STAGE_WITNESS].ran = true;
	j->stages[ZKP_STAGE_WITNESS].seconds = secs;
	j->stages[ZKP_STAGE_WITNESS].rss = snap.rss.rss;
	j->stage = ZKP_STAGE_WITNESS;
	emit_job(e, j, true, secs);
	j->sp = pj;
	j->partitions = pj->n;
	j->parts = parts;
	e->reserved -= j->ws;
	j->ws = 0;
	pthread_cond_broadcast(&e->work_cond);
	uint64_t id = j->id;
	unsigned n = pj->n;
	const char *what = pj->ops->what;
	unlock_notify(e);
	zkp_log(ZKP_LOG_INFO, "job %" PRIu64 ": %s %s checked in %.3f s; %u partition job(s) queued",
		id, what, pj->name, secs, n);
	return 0;
}

int split_witness(struct zkp_engine *e, struct job *j, zkp_error *err)
{
	const struct split_job *sp = j->sp;
	const zkp_pce_dims *d = zkp_pce_get_dims(j->circ->pce);
	size_t n = (size_t)(d->n_inputs + d->n_aux);
	j->w = malloc(n * sizeof(zkp_fr));
	if (!j->w)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "partition %u: no memory for the witness",
				     j->partition);
	j->n_w = n;
	zkp_mem_add(ZKP_MEM_WITNESS, n * sizeof(zkp_fr));
	/* The proof is verified with the witness's inputs: the kind checks
	 * they are the ones derived from the public data. */
	return sp->ops->witness(sp, j->partition, j->w, d->n_inputs, d->n_aux, e->pool, err);
}

/* Ends the split job sj (lock held, pj->ended set first so that the
 * partitions cancelled from here do not end it again). */
static void end_split(struct zkp_engine *e, struct job *sj, struct split_job *pj,
		       enum zkp_job_state state, int code, const char *msg)
{
	pj->ended = true;
	if (state == ZKP_JOB_DONE) {
		sj->proof = pj->proofs;
		sj->proof_len = (size_t)pj->n * ZKP_GROTH16_PROOF_BYTES;
		pj->proofs = NULL;
		sj->inputs = malloc((size_t)pj->n * pj->n_pub * 32);
		if (sj->inputs) {
			sj->n_inputs = (size_t)pj->n * pj->n_pub;
			for (size_t i = 0; i < sj->n_inputs; i++)
				zkp_fr_to_le(sj->inputs + 32 * i, &pj->pub[i]);
		}
	}
	job_end(e, sj, state, code, msg);
	/* The others stop: queued ones at once, running ones at their next
	 * stage boundary. */
	if (state != ZKP_JOB_DONE)
		for (unsigned k = 0; k < pj->n; k++) {
			struct job *pk = pj->ids[k] ? job_find(e, pj->ids[k]) : NULL;
			if (pk && (pk->state == ZKP_JOB_QUEUED || pk->state == ZKP_JOB_RUNNING))
				job_cancel(e, pk);
		}
}

void split_job_ended(struct zkp_engine *e, struct job *j)
{
	struct split_job *pj = j->sp;
	j->sp = NULL;
	if (!j->split && !pj->ended) {
		struct job *sj = job_find(e, pj->split_id);
		/* The split job's stages are its own input check plus its
		 * partitions' stage times summed (RSS: the highest seen). */
		for (int st = ZKP_STAGE_WITNESS; sj && st <= ZKP_STAGE_VERIFY; st++) {
			const zkp_stage_timing *t = &j->stages[st];
			zkp_stage_timing *u = &sj->stages[st];
			if (!t->ran)
				continue;
			u->ran = true;
			u->seconds += t->seconds;
			if (t->rss > u->rss)
				u->rss = t->rss;
		}
		if (sj && sj->parts) {
			zkp_partition_times *pt = &sj->parts[j->partition];
			pt->state = j->state;
			pt->total_seconds = j->t_end - j->t_submit;
			pt->spans = j->spans;
		}
		if (j->state == ZKP_JOB_DONE) {
			memcpy(pj->proofs + (size_t)j->partition * ZKP_GROTH16_PROOF_BYTES, j->proof,
			       ZKP_GROTH16_PROOF_BYTES);
			pj->done++;
			if (sj)
				sj->partitions_done = pj->done;
			if (sj && pj->done == pj->n)
				end_split(e, sj, pj, ZKP_JOB_DONE, 0, NULL);
		} else if (sj) {
			char msg[600];
			snprintf(msg, sizeof(msg), "partition %u (job %" PRIu64 ") %s: %s",
				 j->partition, j->id,
				 j->state == ZKP_JOB_CANCELLED ? "was cancelled" : "failed",
				 j->error_message);
			end_split(e, sj, pj, j->state, j->error_code, msg);
		}
	}
	split_unref(pj);
}

void split_cancel(struct zkp_engine *e, struct job *j)
{
	if (!j->sp->ended)
		end_split(e, j, j->sp, ZKP_JOB_CANCELLED, ZKP_ERR_CANCELLED, "cancelled");
}

void split_progress(struct zkp_engine *e, const struct job *j, double now, uint32_t *percent)
{
	const struct split_job *pj = j->sp;
	uint64_t sum = 0;
	for (unsigned k = 0; k < pj->n; k++) {
		const struct job *pk = job_find(e, pj->ids[k]);
		if (pk)
			sum += pk->state == ZKP_JOB_DONE ? 100 : job_percent(pk, now);
	}
	uint64_t pct = pj->n ? sum / pj->n : 0;
	*percent = pct >= 99 ? 99 : (uint32_t)pct;
}
