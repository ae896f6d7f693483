/*
 * engine PoRep: a sector's C1 output proved as one job per partition
 * (engine.h, "PoRep jobs"). The sector job's CPU stage parses the C1 and
 * derives every partition's public inputs from its public data (checking
 * the C1's challenges, parents and labels against them), then queues the
 * partition jobs; each partition job computes its witness from the shared,
 * immutable C1 and proves like any job; the last partition to finish ends
 * the sector job with the proofs in partition order.
 *
 * Invariants (engine lock):
 *  - A porep_job is shared by its sector job and its partition jobs; each
 *    holds one reference until it ends (job_end -> porep_job_ended), so the
 *    parsed C1 is freed once the last of them ended, not when the history
 *    forgets them.
 *  - c1, p, pub and the shape are written by porep_split before any
 *    partition job exists and never change: partition threads read them
 *    without the lock.
 *  - ended: the sector job has ended (results of later partitions are
 *    dropped).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"
#include "zkpd/porep.h"
#include "zkpd/porep_c1.h"
#include "zkpd/porep_c2.h"
#include "zkpd/porep_graph.h"
#include "zkpd/witness.h"

struct porep_job {
	unsigned refs;
	uint64_t sector_id;
	zkp_porep_c1 *c1;
	const zkp_porep_proof *p;
	zkp_fr *pub;   /* partitions * n_pub derived public inputs, without ONE */
	size_t n_pub;
	unsigned n;    /* partitions */
	uint64_t *ids; /* the partition jobs' ids */
	uint8_t *proofs; /* n * 192 */
	unsigned done;
	bool ended;
};

void porep_unref(struct porep_job *pj)
{
	if (!pj || --pj->refs)
		return;
	zkp_porep_c1_free(pj->c1);
	free(pj->pub);
	free(pj->ids);
	free(pj->proofs);
	free(pj);
}

/* The C1 of j parsed, its proof version and graph checked against the
 * circuit, every partition's public inputs derived into a new porep_job
 * (lock not held). */
static int prepare(struct porep_job **ret, const struct job *j, zkp_error *err)
{
	const struct circuit *c = j->circ;
	const zkp_pce_dims *d = zkp_pce_get_dims(c->pce);
	zkp_porep_graph g = { 0 };
	struct porep_job *pj = calloc(1, sizeof(*pj));
	int rc;
	if (!pj)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for a PoRep job");
	pj->refs = 1;
	pj->sector_id = j->id;
	rc = j->path ? zkp_porep_c1_load_fd(&pj->c1, j->fd, j->path, err) :
		       zkp_porep_c1_parse(&pj->c1, j->data, j->len, err);
	if (rc)
		goto out;
	if ((rc = zkp_porep_c1_proof(&pj->p, pj->c1, err)))
		goto out;
	if (pj->c1->sector_bytes != c->cfg.porep_sector_size) {
		rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
				   "the C1 is of a %" PRIu64 "-byte sector (%s); circuit %s proves "
				   "%" PRIu64 "-byte sectors",
				   pj->c1->sector_bytes, pj->c1->registered_proof, c->cfg.name,
				   c->cfg.porep_sector_size);
		goto out;
	}
	pj->n = pj->c1->partitions;
	pj->n_pub = (size_t)zkp_porep_inputs(&pj->c1->shape) - 1;
	if (d->n_inputs != pj->n_pub + 1) {
		rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
				   "circuit %s has %" PRIu64 " inputs; a %s partition has %zu",
				   c->cfg.name, d->n_inputs, pj->p->name, pj->n_pub + 1);
		goto out;
	}
	pj->pub = malloc((size_t)pj->n * pj->n_pub * sizeof(zkp_fr));
	pj->ids = calloc(pj->n, sizeof(*pj->ids));
	pj->proofs = calloc(pj->n, ZKP_GROTH16_PROOF_BYTES);
	if (!pj->pub || !pj->ids || !pj->proofs) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "no memory for %u partitions", pj->n);
		goto out;
	}
	if ((rc = zkp_porep_graph_init_proof(&g, pj->p, err)))
		goto out;
	for (unsigned k = 0; k < pj->n && !rc; k++)
		rc = zkp_porep_c1_public_inputs(pj->pub + (size_t)k * pj->n_pub, pj->c1, k, pj->p,
						&g, err);
out:
	zkp_porep_graph_release(&g);
	if (rc)
		porep_unref(pj);
	else
		*ret = pj;
	return rc;
}

int porep_split(struct zkp_engine *e, struct job *j, double t0, zkp_error *err)
{
	struct porep_job *pj = NULL;
	int rc = prepare(&pj, j, err);
	/* The C1 is parsed: its bytes go now rather than at the job's end. */
	free(j->data);
	j->data = NULL;
	if (rc)
		return rc;

	zkp_mem_snap snap;
	zkp_mem_snapshot(zkp_stage_name(ZKP_STAGE_WITNESS), &snap);
	pthread_mutex_lock(&e->lock);
	if (j->cancel) {
		pthread_mutex_unlock(&e->lock);
		porep_unref(pj);
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
			porep_unref(pj);
			return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory queueing partitions");
		}
		pk->pj = pj;
		pk->partition = k;
		pk->sector_id = j->id;
		pj->refs++;
		pj->ids[k] = pk->id;
	}
	/* The sector job now only waits: its admission goes to the partitions.
	 * Its stage is recorded here, under the lock: once unlocked, the
	 * partitions may end it. */
	double secs = eng_now() - t0;
	j->stages[ZKP_STAGE_WITNESS].ran = true;
	j->stages[ZKP_STAGE_WITNESS].seconds = secs;
	j->stages[ZKP_STAGE_WITNESS].rss = snap.rss.rss;
	j->stage = ZKP_STAGE_WITNESS;
	emit_job(e, j, true, secs);
	j->pj = pj;
	j->partitions = pj->n;
	e->reserved -= j->ws;
	j->ws = 0;
	pthread_cond_broadcast(&e->work_cond);
	uint64_t id = j->id;
	unsigned n = pj->n;
	const char *name = pj->p->name;
	unlock_notify(e);
	zkp_log(ZKP_LOG_INFO, "job %" PRIu64 ": %s C1 checked in %.3f s; %u partition job(s) queued",
		id, name, secs, n);
	return 0;
}

int porep_witness(struct zkp_engine *e, struct job *j, zkp_error *err)
{
	const struct porep_job *pj = j->pj;
	const zkp_pce_dims *d = zkp_pce_get_dims(j->circ->pce);
	size_t n = (size_t)(d->n_inputs + d->n_aux);
	j->w = malloc(n * sizeof(zkp_fr));
	if (!j->w)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "partition %u: no memory for the witness",
				     j->partition);
	j->n_w = n;
	zkp_mem_add(ZKP_MEM_WITNESS, n * sizeof(zkp_fr));
	/* The proof is verified with the witness's inputs: they must be the
	 * ones derived from the public data. */
	return zkp_porep_c1_witness_checked(j->w, d->n_inputs, d->n_aux, pj->c1, j->partition,
					    pj->pub + (size_t)j->partition * pj->n_pub, e->pool,
					    err);
}

/* Ends the sector job sj (lock held, pj->ended set first so that the
 * partitions cancelled from here do not end it again). */
static void end_sector(struct zkp_engine *e, struct job *sj, struct porep_job *pj,
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

void porep_job_ended(struct zkp_engine *e, struct job *j)
{
	struct porep_job *pj = j->pj;
	j->pj = NULL;
	if (!j->porep_sector && !pj->ended) {
		struct job *sj = job_find(e, pj->sector_id);
		/* The sector's stages are its own C1 check plus its
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
		if (j->state == ZKP_JOB_DONE) {
			memcpy(pj->proofs + (size_t)j->partition * ZKP_GROTH16_PROOF_BYTES, j->proof,
			       ZKP_GROTH16_PROOF_BYTES);
			pj->done++;
			if (sj)
				sj->partitions_done = pj->done;
			if (sj && pj->done == pj->n)
				end_sector(e, sj, pj, ZKP_JOB_DONE, 0, NULL);
		} else if (sj) {
			char msg[600];
			snprintf(msg, sizeof(msg), "partition %u (job %" PRIu64 ") %s: %s",
				 j->partition, j->id,
				 j->state == ZKP_JOB_CANCELLED ? "was cancelled" : "failed",
				 j->error_message);
			end_sector(e, sj, pj, j->state, j->error_code, msg);
		}
	}
	porep_unref(pj);
}

void porep_cancel_sector(struct zkp_engine *e, struct job *j)
{
	if (!j->pj->ended)
		end_sector(e, j, j->pj, ZKP_JOB_CANCELLED, ZKP_ERR_CANCELLED, "cancelled");
}

void porep_progress(struct zkp_engine *e, const struct job *j, double now, uint32_t *percent)
{
	const struct porep_job *pj = j->pj;
	uint64_t sum = 0;
	for (unsigned k = 0; k < pj->n; k++) {
		const struct job *pk = job_find(e, pj->ids[k]);
		if (pk)
			sum += pk->state == ZKP_JOB_DONE ? 100 : job_percent(pk, now);
	}
	uint64_t pct = pj->n ? sum / pj->n : 0;
	*percent = pct >= 99 ? 99 : (uint32_t)pct;
}
