/*
 * engine pipelines: per pipeline three threads, each running its stages of
 * a job through groth16_job.h with the engine lock released:
 *   cpu      admission, WITNESS, EVAL; hands the job to devq
 *   device   NTT, MSM under the device's lock; hands the job to finq
 *   finalize ASSEMBLE + VERIFY (zkp_groth16_job_finish), the result
 * devq holds pipeline.depth jobs, highest priority first; finq holds one.
 * A thread that holds a job checks its cancel flag at every stage boundary
 * and while it waits to hand the job on; handing on happens under the lock
 * in the same critical section as that check, so once zkp_engine_free has
 * flagged every job, nothing enters devq or finq any more and each thread
 * can stop when its input is empty.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "zkpd/groth16_io.h"
#include "zkpd/log.h"
#include "zkpd/mem.h"
#include "zkpd/witness.h"
#ifdef ZKPD_HAVE_CUDA
#include "zkpd/backend_cuda.h"
#endif

/* ---- stage helpers ---- */

/* The prover's spans are the job's own (engine.h, Time). */
static const enum zkp_span prover_span[ZKP_GROTH16_SPANS] = {
	[ZKP_GROTH16_SPAN_EVAL] = ZKP_SPAN_EVAL,
	[ZKP_GROTH16_SPAN_SAT_CHECK] = ZKP_SPAN_SAT_CHECK,
	[ZKP_GROTH16_SPAN_UPLOAD] = ZKP_SPAN_UPLOAD,
	[ZKP_GROTH16_SPAN_NTT] = ZKP_SPAN_NTT,
	[ZKP_GROTH16_SPAN_MSM_SETUP] = ZKP_SPAN_MSM_SETUP,
	[ZKP_GROTH16_SPAN_MSM_H] = ZKP_SPAN_MSM_H,
	[ZKP_GROTH16_SPAN_MSM_L] = ZKP_SPAN_MSM_L,
	[ZKP_GROTH16_SPAN_MSM_A] = ZKP_SPAN_MSM_A,
	[ZKP_GROTH16_SPAN_MSM_B_G1] = ZKP_SPAN_MSM_B_G1,
	[ZKP_GROTH16_SPAN_G2_WAIT] = ZKP_SPAN_G2_WAIT,
	[ZKP_GROTH16_SPAN_ASSEMBLE] = ZKP_SPAN_ASSEMBLE,
	[ZKP_GROTH16_SPAN_VERIFY] = ZKP_SPAN_VERIFY,
};

/* The groth16 job's span observer: j's timeline moves at the prover's
 * own clock reading. */
static void on_prover_span(void *arg, enum zkp_groth16_span s, double t)
{
	struct job *j = arg;
	pthread_mutex_lock(&j->e->lock);
	job_span(j, prover_span[s], t);
	pthread_mutex_unlock(&j->e->lock);
}

/* A groth16 job proving j on be (lock not held), its spans on j's
 * timeline. */
static int prover_new(struct zkp_engine *e, struct job *j, zkp_backend *be, zkp_error *err)
{
	struct circuit *c = j->circ;
	int rc = zkp_groth16_job_new(&j->gj, c->pce, &c->pk, j->w, j->n_w, be, e->pool, err);
	if (!rc)
		zkp_groth16_job_on_span(j->gj, on_prover_span, j);
	return rc;
}

/* Crosses a stage boundary into `next` (lock held): false when the job
 * was cancelled, which the caller then ends. */
static bool enter_stage(struct zkp_engine *e, struct job *j, enum zkp_stage next)
{
	if (j->cancel)
		return false;
	j->stage = next;
	j->t_stage = eng_now();
	emit_job(e, j, false, 0);
	return true;
}

static bool enter_stage_unlocked(struct zkp_engine *e, struct job *j, enum zkp_stage next)
{
	pthread_mutex_lock(&e->lock);
	bool ok = enter_stage(e, j, next);
	unlock_notify(e);
	return ok;
}

static void maybe_purge(struct zkp_engine *e)
{
	if (e->cfg.purge_between_stages)
		purger_request(e);
}

static void *purger_main(void *arg)
{
	struct zkp_engine *e = arg;
	pthread_mutex_lock(&e->purge_lock);
	for (;;) {
		while (!e->purge_wanted && !e->purge_stop)
			pthread_cond_wait(&e->purge_cond, &e->purge_lock);
		if (e->purge_stop)
			break;
		e->purge_wanted = false;
		pthread_mutex_unlock(&e->purge_lock);
		zkp_mem_purge();
		pthread_mutex_lock(&e->purge_lock);
		e->purges++;
	}
	pthread_mutex_unlock(&e->purge_lock);
	/* What the last jobs freed goes back too. */
	zkp_mem_purge();
	return NULL;
}

int purger_start(struct zkp_engine *e)
{
	pthread_mutex_init(&e->purge_lock, NULL);
	pthread_cond_init(&e->purge_cond, NULL);
	if (pthread_create(&e->purge_thr, NULL, purger_main, e))
		return ZKP_ERR_IO;
	e->purge_started = true;
	return 0;
}

void purger_request(struct zkp_engine *e)
{
	if (!e->purge_started)
		return;
	pthread_mutex_lock(&e->purge_lock);
	e->purge_wanted = true;
	pthread_cond_signal(&e->purge_cond);
	pthread_mutex_unlock(&e->purge_lock);
}

void purger_join(struct zkp_engine *e)
{
	if (!e->purge_started)
		return;
	pthread_mutex_lock(&e->purge_lock);
	e->purge_stop = true;
	pthread_cond_signal(&e->purge_cond);
	pthread_mutex_unlock(&e->purge_lock);
	pthread_join(e->purge_thr, NULL);
	e->purge_started = false;
	pthread_cond_destroy(&e->purge_cond);
	pthread_mutex_destroy(&e->purge_lock);
}

/* Frees what the thread holding j owns for proving (lock not held). */
static void drop_work(struct zkp_engine *e, struct job *j)
{
	zkp_groth16_job_free(j->gj);
	j->gj = NULL;
	devmem_release(e, j);
	witness_drop(j);
	free(j->data);
	j->data = NULL;
}

/* Ends a job the calling thread holds: FAILED with err, or CANCELLED
 * (code ZKP_ERR_CANCELLED) when rc is that or the job was flagged. */
static void end_held(struct zkp_engine *e, uint64_t *slot, struct job *j, int rc,
		     const zkp_error *err)
{
	uint64_t id = j->id;
	/* A circuit file cut short under its mapping explains whatever went
	 * wrong after it (zeros read as densities, points or columns). */
	zkp_error ferr = { 0 };
	if (rc && rc != ZKP_ERR_CANCELLED && j->circ && circuit_check_files(j->circ, &ferr)) {
		rc = ferr.code;
		err = &ferr;
	}
	drop_work(e, j);
	pthread_mutex_lock(&e->lock);
	if (rc == ZKP_ERR_CANCELLED || (j->cancel && rc == 0)) {
		job_end(e, j, ZKP_JOB_CANCELLED, ZKP_ERR_CANCELLED,
			"cancelled at a stage boundary");
	} else {
		job_end(e, j, ZKP_JOB_FAILED, rc, zkp_error_text(err, rc));
	}
	*slot = 0;
	unlock_notify(e);
	take_snapshot(e, id, ZKP_STAGE_DONE);
	maybe_purge(e);
}

static void cancel_held(struct zkp_engine *e, uint64_t *slot, struct job *j)
{
	end_held(e, slot, j, ZKP_ERR_CANCELLED, NULL);
}

/* ---- device faults ---- */

/*
 * A stage of j failed with rc. A device fault (ZKP_ERR_DEVICE) is counted
 * on j's device; with gpus.fallback_cpu, and once per job, j is proved
 * again on the CPU backend from EVAL through upto (EVAL or MSM: where the
 * calling thread's stages end) in a new staged job (the witness is still
 * held; one at rest packed is made whole first, and without the memory for
 * that rc stands), and the result of that replaces rc. Other
 * errors pass through. Called with the engine lock not held, by the
 * thread holding j.
 */
static int after_fault(struct zkp_engine *e, struct job *j, int rc, enum zkp_stage upto,
		       zkp_error *err)
{
	if (rc != ZKP_ERR_DEVICE)
		return rc;
	struct device *d = j->dev;
	bool retry = e->cfg.fallback_cpu && !j->fell_back;
	zkp_error uerr = { 0 };
	if (retry && witness_whole(j, &uerr)) {
		/* The device's fault stands; err still names it. */
		zkp_log(ZKP_LOG_WARN, "job %" PRIu64 ": device fault on %s (%s), no CPU fallback: "
				      "%s", j->id, d->name, err->msg, uerr.msg);
		retry = false;
	}
	pthread_mutex_lock(&e->lock);
	d->faults++;
	if (retry)
		d->fallbacks++;
	pthread_mutex_unlock(&e->lock);
	if (!retry)
		return rc;
	zkp_log(ZKP_LOG_WARN, "job %" PRIu64 ": device fault on %s (%s); proving it again on "
			      "the CPU backend (gpus.fallback_cpu)", j->id, d->name, err->msg);
	j->fell_back = true;
	zkp_groth16_job_free(j->gj);
	j->gj = NULL;
	devmem_release(e, j);
	rc = prover_new(e, j, e->cpu_be, err);
	if (!rc)
		rc = zkp_groth16_job_eval(j->gj, err);
	if (!rc && upto >= ZKP_STAGE_NTT)
		rc = zkp_groth16_job_ntt(j->gj, err);
	if (!rc && upto >= ZKP_STAGE_MSM)
		rc = zkp_groth16_job_msm(j->gj, err);
	return rc;
}

/* Device memory admission refused j with rc (ZKP_ERR_DEVICE: it can never
 * fit on its device): with gpus.fallback_cpu, and unless cancelled, j goes
 * to the CPU backend for its whole proof, counted as a fallback (no
 * fault); else rc. Lock not held. */
static int device_memory_refused(struct zkp_engine *e, struct device *d, struct job *j, int rc,
				 const zkp_error *err)
{
	if (rc != ZKP_ERR_DEVICE || !e->cfg.fallback_cpu)
		return rc;
	pthread_mutex_lock(&e->lock);
	d->fallbacks++;
	pthread_mutex_unlock(&e->lock);
	zkp_log(ZKP_LOG_WARN, "job %" PRIu64 ": %s; proving it on the CPU backend "
			      "(gpus.fallback_cpu)", j->id, err->msg);
	j->fell_back = true;
	return 0;
}

/* The circuit's resident copy on d, once a job has made it, for the eval
 * stage: with the circuit's matrices in it, a device evaluates a, b, c
 * itself. The slot is written under both the device lock and e->lock, so
 * reading it under e->lock alone is safe. */
static void attach_resident(struct zkp_engine *e, struct job *j, struct device *d)
{
	if (d->be->host_visible)
		return;
	pthread_mutex_lock(&e->lock);
	zkp_groth16_resident **slot = circuit_resident_slot(e, j->circ, d);
	zkp_groth16_resident *rk = slot ? *slot : NULL;
	pthread_mutex_unlock(&e->lock);
	if (rk)
		(void)zkp_groth16_job_use_resident(j->gj, rk);
}

/* ---- cpu thread: WITNESS, EVAL ---- */

static int run_witness(struct zkp_engine *e, struct job *j, zkp_error *err)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(j->circ->pce);
	uint64_t count = 0;
	int rc;
	if (j->sp)
		return split_witness(e, j, err);
	if (j->post)
		return post_witness(e, j, err);
	if (j->path)
		rc = zkp_witness_load_fd(j->fd, j->path, &j->w, &count, err);
	else
		rc = zkp_witness_decode(j->data, j->len, &j->w, &count, err);
	/* The bytes are decoded: drop them now rather than at the job's end. */
	free(j->data);
	j->data = NULL;
	if (rc)
		return rc;
	j->n_w = (size_t)count;
	zkp_mem_add(ZKP_MEM_WITNESS, j->n_w * sizeof(zkp_fr));
	if (count != d->n_inputs + d->n_aux)
		return zkp_error_set(err, ZKP_ERR_MISMATCH,
				     "witness has %" PRIu64 " values; circuit %s expects %" PRIu64
				     " (%" PRIu64 " inputs with ONE, %" PRIu64 " aux)",
				     count, j->circ->cfg.name, d->n_inputs + d->n_aux, d->n_inputs,
				     d->n_aux);
	return 0;
}

static void *cpu_main(void *arg)
{
	struct pipeline *pl = arg;
	struct zkp_engine *e = pl->e;
	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct job *j;
		while (!(j = admit_next(e)) && !e->stopping)
			pthread_cond_wait(&e->work_cond, &e->lock);
		if (!j)
			break;
		pl->cpu_job = j->id;
		pl->cpu_stage = ZKP_STAGE_WITNESS;
		enter_stage(e, j, ZKP_STAGE_WITNESS);
		unlock_notify(e);

		zkp_error err = { 0 };
		struct circuit *c = j->circ;
		if (j->split) {
			/* The partitions are queued as jobs of their own; the
			 * split job ends with the last of them. */
			int rc = split_run(e, j, &err);
			if (rc)
				end_held(e, &pl->cpu_job, j, rc, &err);
			pthread_mutex_lock(&e->lock);
			pl->cpu_job = 0;
			pl->cpu_stage = ZKP_STAGE_QUEUED;
			continue;
		}
		int rc = circuit_check_files(c, &err);
		if (!rc)
			rc = run_witness(e, j, &err);
		if (rc) {
			end_held(e, &pl->cpu_job, j, rc, &err);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		stage_done(e, j, ZKP_STAGE_WITNESS);

		pthread_mutex_lock(&e->lock);
		rc = devmem_admit(e, pl, j, &err);
		pthread_mutex_unlock(&e->lock);
		if (rc)
			rc = device_memory_refused(e, pl->dev, j, rc, &err);
		if (rc) {
			end_held(e, &pl->cpu_job, j, rc, &err);
			pthread_mutex_lock(&e->lock);
			continue;
		}

		pthread_mutex_lock(&e->lock);
		pl->cpu_stage = ZKP_STAGE_EVAL;
		bool go = enter_stage(e, j, ZKP_STAGE_EVAL);
		if (go) {
			job_span(j, ZKP_SPAN_EVAL, j->t_stage);
			j->dev = pl->dev; /* read by Status under the lock */
		}
		unlock_notify(e);
		if (!go) {
			cancel_held(e, &pl->cpu_job, j);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		rc = prover_new(e, j, j->fell_back ? e->cpu_be : pl->dev->be, &err);
		if (!rc && !j->fell_back)
			attach_resident(e, j, pl->dev);
		if (!rc)
			rc = zkp_groth16_job_eval(j->gj, &err);
		if (!rc) {
			j->dev_eval = zkp_groth16_job_evaluated_on_device(j->gj);
			j->witness_up = zkp_groth16_job_witness_bytes_up(j->gj);
			j->witness_packed = j->witness_up < j->n_w * sizeof(zkp_fr);
			witness_rest(e, j);
			j->witness_rest = j->wpack_bytes;
		}
		if (rc)
			rc = after_fault(e, j, rc, ZKP_STAGE_EVAL, &err);
		if (rc) {
			end_held(e, &pl->cpu_job, j, rc, &err);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		stage_done(e, j, ZKP_STAGE_EVAL);

		/* Hand on to the device stage, by priority. */
		size_t depth = e->cfg.pipeline_depth ? e->cfg.pipeline_depth : 1;
		pthread_mutex_lock(&e->lock);
		if (pl->devq_n >= depth)
			job_span(j, ZKP_SPAN_SLOT_WAIT, eng_now());
		while (!j->cancel && pl->devq_n >= depth)
			pthread_cond_wait(&pl->cond, &e->lock);
		if (j->cancel) {
			pthread_mutex_unlock(&e->lock);
			cancel_held(e, &pl->cpu_job, j);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		size_t k = pl->devq_n;
		while (k > 0 && serve_rank(pl->devq[k - 1]->prio) > serve_rank(j->prio)) {
			pl->devq[k] = pl->devq[k - 1];
			k--;
		}
		pl->devq[k] = j;
		pl->devq_n++;
		job_span(j, ZKP_SPAN_DEVICE_QUEUE, eng_now());
		pl->cpu_job = 0;
		pl->cpu_stage = ZKP_STAGE_QUEUED;
		pthread_cond_broadcast(&pl->cond);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* ---- device thread: NTT, MSM ---- */

/* Takes the device's lock for j: at once when it is free, else in the
 * DEVICE_LOCK span until it is. */
static void device_lock(struct zkp_engine *e, struct job *j, pthread_mutex_t *lock)
{
	if (pthread_mutex_trylock(lock) == 0)
		return;
	job_span_now(e, j, ZKP_SPAN_DEVICE_LOCK);
	pthread_mutex_lock(lock);
}

/* Reads the busy seconds of j's device into *t (its lock held), all its
 * queued work finished first: false when the device does not measure
 * them. */
static bool busy_read(const struct job *j, double *t)
{
	return zkp_backend_sync(j->dev->be) == 0 && zkp_backend_busy_seconds(j->dev->be, t) == 0;
}

/* Adds what the device's busy seconds grew by during one of j's stages
 * (Status reads it under the engine lock). */
static void busy_add(struct zkp_engine *e, struct job *j, double from, double to)
{
	pthread_mutex_lock(&e->lock);
	j->busy_known = true;
	j->busy += to - from;
	pthread_mutex_unlock(&e->lock);
}

/* NTT and MSM of j on its pipeline's device, under the device's lock,
 * with the key's queries resident there, and the circuit's matrices where
 * the device evaluates (made by the first job of the circuit to reach the
 * device). A job that already fell back to the CPU
 * runs there without the lock. What the device's busy seconds grow by
 * while this job holds the lock is this job's (j->busy). ZKP_ERR_CANCELLED
 * at a boundary. */
static int device_stages(struct zkp_engine *e, struct pipeline *pl, struct job *j,
			 zkp_error *err)
{
	struct device *d = pl->dev;
	pthread_mutex_t *lock = j->fell_back ? NULL : &d->lock;
	zkp_groth16_resident **slot = NULL;
	double b0 = 0, b1 = 0;
	int rc = 0;
	if (lock) {
		pthread_mutex_lock(&e->lock);
		slot = circuit_resident_slot(e, j->circ, d);
		pthread_mutex_unlock(&e->lock);
		device_lock(e, j, lock);
		if (slot && !*slot) {
			job_span_now(e, j, ZKP_SPAN_KEY_UPLOAD);
			zkp_groth16_resident *made = NULL;
			bool g2, matrices;
			devmem_plan_of(e, j->circ, d, &g2, &matrices);
			rc = zkp_groth16_resident_new(&made, &j->circ->pk, d->be, g2, err);
			if (!rc) {
				/* The circuit too where the device evaluates: the
				 * jobs after this one then eval there. Optional. */
				zkp_error why = { 0 };
				if (!d->be->host_visible && matrices &&
				    zkp_groth16_resident_hold_circuit(made, j->circ->pce, &why) &&
				    why.code != ZKP_ERR_UNSUPPORTED)
					zkp_log(ZKP_LOG_WARN, "circuit %s on %s: eval stays on the "
							      "host: %s", j->circ->cfg.name,
						d->name, why.msg);
				pthread_mutex_lock(&e->lock);
				*slot = made;
				pthread_mutex_unlock(&e->lock);
			}
		}
		if (!rc && slot)
			rc = zkp_groth16_job_use_resident(j->gj, *slot);
	}
	bool busy = lock && busy_read(j, &b0);
	if (!rc)
		rc = zkp_groth16_job_ntt(j->gj, err);
	if (busy && busy_read(j, &b1))
		busy_add(e, j, b0, b1);
	if (lock)
		pthread_mutex_unlock(lock);
	if (rc)
		return rc;
	stage_done(e, j, ZKP_STAGE_NTT);
	maybe_purge(e);

	if (!enter_stage_unlocked(e, j, ZKP_STAGE_MSM))
		return ZKP_ERR_CANCELLED;
	if (lock)
		device_lock(e, j, lock);
	busy = lock && busy_read(j, &b0);
	rc = zkp_groth16_job_msm(j->gj, err);
	if (busy && busy_read(j, &b1))
		busy_add(e, j, b0, b1);
	if (lock)
		pthread_mutex_unlock(lock);
	if (rc)
		return rc;
	stage_done(e, j, ZKP_STAGE_MSM);
	maybe_purge(e);
	return 0;
}

static void *dev_main(void *arg)
{
	struct pipeline *pl = arg;
	struct zkp_engine *e = pl->e;
	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (!pl->devq_n && !e->stopping)
			pthread_cond_wait(&pl->cond, &e->lock);
		if (!pl->devq_n)
			break;
		struct job *j = pl->devq[0];
		memmove(pl->devq, pl->devq + 1, (pl->devq_n - 1) * sizeof(*pl->devq));
		pl->devq_n--;
		pl->device_job = j->id;
		pthread_cond_broadcast(&pl->cond);
		bool go = enter_stage(e, j, ZKP_STAGE_NTT);
		unlock_notify(e);
		if (!go) {
			cancel_held(e, &pl->device_job, j);
			pthread_mutex_lock(&e->lock);
			continue;
		}

		zkp_error err = { 0 };
		int rc = device_stages(e, pl, j, &err);
		if (rc && rc != ZKP_ERR_CANCELLED)
			rc = after_fault(e, j, rc, ZKP_STAGE_MSM, &err);
		if (rc) {
			end_held(e, &pl->device_job, j, rc, &err);
			pthread_mutex_lock(&e->lock);
			continue;
		}

		pthread_mutex_lock(&e->lock);
		job_span(j, ZKP_SPAN_FINALIZE_WAIT, eng_now());
		while (!j->cancel && pl->finq)
			pthread_cond_wait(&pl->cond, &e->lock);
		if (j->cancel) {
			pthread_mutex_unlock(&e->lock);
			cancel_held(e, &pl->device_job, j);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		pl->finq = j;
		pl->device_job = 0;
		pthread_cond_broadcast(&pl->cond);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* ---- finalize thread: ASSEMBLE, VERIFY, result ---- */

/* Proof bytes, JSON and public inputs into the job (lock not held: the
 * result fields are read only once the job has ended). */
static int make_result(struct job *j, const zkp_groth16_proof *proof, zkp_error *err)
{
	const zkp_pce_dims *d = zkp_pce_get_dims(j->circ->pce);
	j->proof = malloc(ZKP_GROTH16_PROOF_BYTES);
	if (!j->proof)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory copying the proof");
	j->proof_len = ZKP_GROTH16_PROOF_BYTES;
	zkp_groth16_proof_to_bytes(j->proof, proof);
	if (j->want_json) {
		j->proof_json = zkp_groth16_proof_to_json(proof);
		if (!j->proof_json)
			return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory writing proof.json");
	}
	size_t n = (size_t)d->n_inputs - 1;
	if (n) {
		j->inputs = malloc(n * 32);
		if (!j->inputs)
			return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory copying inputs");
		for (size_t i = 0; i < n; i++) {
			zkp_fr v;
			witness_values(j, &v, 1 + i, 2 + i);
			zkp_fr_to_le(j->inputs + 32 * i, &v);
		}
	}
	j->n_inputs = n;
	return 0;
}

static void *fin_main(void *arg)
{
	struct pipeline *pl = arg;
	struct zkp_engine *e = pl->e;
	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (!pl->finq && !e->stopping)
			pthread_cond_wait(&pl->cond, &e->lock);
		if (!pl->finq)
			break;
		struct job *j = pl->finq;
		pl->finq = NULL;
		pl->finalize_job = j->id;
		pthread_cond_broadcast(&pl->cond);
		bool go = enter_stage(e, j, ZKP_STAGE_ASSEMBLE);
		unlock_notify(e);
		if (!go) {
			cancel_held(e, &pl->finalize_job, j);
			pthread_mutex_lock(&e->lock);
			continue;
		}

		zkp_error err = { 0 };
		zkp_groth16_proof proof;
		int rc = zkp_groth16_job_finish(j->gj, &proof, j->circ->pvk, &err);
		if (rc == ZKP_ERR_DEVICE) {
			/* The device's proof does not verify (a satisfied witness,
			 * checked at EVAL): a fault like any other, so it goes to
			 * the CPU with gpus.fallback_cpu. */
			rc = after_fault(e, j, rc, ZKP_STAGE_MSM, &err);
			if (!rc)
				rc = zkp_groth16_job_finish(j->gj, &proof, j->circ->pvk, &err);
		}
		if (rc == ZKP_ERR_DEVICE && !strstr(err.msg, j->dev->name)) {
			zkp_error named = { 0 };
			zkp_error_set(&named, rc, "device %s: %s", j->dev->name, err.msg);
			err = named;
		}
		/* Zeros read from a file cut short under its mapping void even a
		 * proof that verifies (end_held names the file). */
		if (!rc)
			rc = circuit_check_files(j->circ, &err);
		if (rc) {
			end_held(e, &pl->finalize_job, j, rc, &err);
			pthread_mutex_lock(&e->lock);
			continue;
		}
		job_span_now(e, j, ZKP_SPAN_RESULT);
		stage_done(e, j, ZKP_STAGE_ASSEMBLE);
		/* zkp_groth16_job_finish assembled and verified in one call:
		 * the verify stage's start is told here, so that every stage
		 * that ends has begun (its time comes from its span). */
		pthread_mutex_lock(&e->lock);
		enter_stage(e, j, ZKP_STAGE_VERIFY);
		unlock_notify(e);
		stage_done(e, j, ZKP_STAGE_VERIFY);
		rc = make_result(j, &proof, &err);
		if (rc) {
			end_held(e, &pl->finalize_job, j, rc, &err);
			pthread_mutex_lock(&e->lock);
			continue;
		}

		uint64_t id = j->id;
		drop_work(e, j);
		pthread_mutex_lock(&e->lock);
		/* The last boundary: a cancel that came during the final
		 * stages is still honoured, as zkp_engine_cancel promised. */
		if (j->cancel) {
			free(j->proof);
			j->proof = NULL;
			j->proof_len = 0;
			free(j->proof_json);
			free(j->inputs);
			j->proof_json = NULL;
			j->inputs = NULL;
			j->n_inputs = 0;
			job_end(e, j, ZKP_JOB_CANCELLED, ZKP_ERR_CANCELLED,
				"cancelled at a stage boundary");
		} else {
			job_end(e, j, ZKP_JOB_DONE, 0, NULL);
			pl->proofs++;
		}
		pl->finalize_job = 0;
		unlock_notify(e);
		take_snapshot(e, id, ZKP_STAGE_DONE);
		maybe_purge(e);
		pthread_mutex_lock(&e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* ---- setup ---- */

#ifdef ZKPD_HAVE_CUDA
static const bool have_cuda = true;
#else
static const bool have_cuda = false;
#endif


/* Appends a device: the CPU (gpu < 0) or CUDA device gpu. */
static int device_add(struct zkp_engine *e, int gpu, zkp_error *err)
{
	struct device *d = &e->devs[e->n_devs];
	int rc;
	memset(d, 0, sizeof(*d));
	d->index = (uint32_t)e->n_devs;
	d->gpu = gpu < 0 ? -1 : gpu;
	if (gpu < 0) {
		snprintf(d->name, sizeof(d->name), "cpu");
		d->kind = "cpu";
		rc = zkp_backend_cpu_new(&d->be, e->pool);
		if (rc)
			return zkp_error_set(err, rc, "cannot create the CPU backend");
	} else {
#ifdef ZKPD_HAVE_CUDA
		snprintf(d->name, sizeof(d->name), "cuda:%d", gpu);
		d->kind = "cuda";
		rc = zkp_backend_cuda_new(&d->be, gpu, err);
		if (rc)
			return rc;
		uint64_t total = 0, used = 0;
		if (zkp_backend_cuda_mem_info(d->be, &total, &used) == 0)
			devmem_init(e, d, total - used);
#else
		return zkp_error_set(err, ZKP_ERR_CONFIG, "GPU %d: this build has no CUDA backend",
				     gpu);
#endif
	}
	pthread_mutex_init(&d->lock, NULL);
	d->lock_init = true;
	d->t_made = eng_now();
	e->n_devs++;
	return engine_test_faults(d, err);
}


/* The GPUs this build and machine offer. */
static int gpu_count(int *n, zkp_error *err)
{
	*n = 0;
#ifdef ZKPD_HAVE_CUDA
	int rc = zkp_backend_cuda_count(n);
	if (rc)
		return zkp_error_set(err, rc, "cannot count CUDA devices (see the log)");
#else
	(void)err;
#endif
	return 0;
}

/* Every index of the list spec is below gpus: else ZKP_ERR_CONFIG naming
 * the first that is not. */
static int devices_present(const char *spec, int gpus, zkp_error *err)
{
	for (const char *p = spec; *p;) {
		char *end;
		long g = strtol(p, &end, 10);
		if (g >= gpus)
			return zkp_error_set(err, ZKP_ERR_CONFIG,
					     "gpus.devices = %s: GPU %ld is not present (%d CUDA "
					     "devices found%s)", spec, g, gpus,
					     have_cuda ? "" : "; this build has no CUDA backend");
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/* gpus.devices: "cpu"; "auto" (every GPU, else the CPU); or GPU indices. */
static int devices_init(struct zkp_engine *e, zkp_error *err)
{
	const char *spec = e->cfg.devices ? e->cfg.devices : "auto";
	int made = engine_test_devices(e, err);
	if (made)
		return made < 0 ? made : 0;
	int gpus = 0;
	int rc = strcmp(spec, "cpu") ? gpu_count(&gpus, err) : 0;
	if (rc)
		return rc;
	e->devs = calloc(gpus > 0 ? (size_t)gpus : 1, sizeof(*e->devs));
	if (!e->devs)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory creating devices");
	if (!strcmp(spec, "cpu") || (!strcmp(spec, "auto") && gpus == 0))
		return device_add(e, -1, err);
	if (!strcmp(spec, "auto")) {
		for (int g = 0; g < gpus && !rc; g++)
			rc = device_add(e, g, err);
		return rc;
	}
	/* An index list, checked by the config parser: digits and commas,
	 * no index twice. */
	rc = devices_present(spec, gpus, err);
	for (const char *p = spec; *p && !rc;) {
		char *end;
		long g = strtol(p, &end, 10);
		rc = device_add(e, (int)g, err);
		p = *end == ',' ? end + 1 : end;
	}
	return rc;
}

int zkp_engine_check_devices(const zkp_config *cfg, zkp_error *err)
{
	const char *spec = cfg->devices ? cfg->devices : "auto";
	if (!strcmp(spec, "auto") || !strcmp(spec, "cpu"))
		return 0;
	int gpus = 0;
	int rc = gpu_count(&gpus, err);
	return rc ? rc : devices_present(spec, gpus, err);
}

int pipelines_init(struct zkp_engine *e, zkp_error *err)
{
	int rc = devices_init(e, err);
	if (rc)
		return rc;
	rc = zkp_backend_cpu_new(&e->cpu_be, e->pool);
	if (rc)
		return zkp_error_set(err, rc, "cannot create the CPU backend");

	size_t per = e->cfg.workers_per_device ? e->cfg.workers_per_device : 1;
	size_t n = per * e->n_devs;
	size_t depth = e->cfg.pipeline_depth ? e->cfg.pipeline_depth : 1;
	e->pipelines = calloc(n, sizeof(*e->pipelines));
	if (!e->pipelines)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory creating pipelines");
	e->n_pipelines = n;
	for (size_t i = 0; i < n; i++)
		pthread_cond_init(&e->pipelines[i].cond, NULL);
	for (size_t i = 0; i < n; i++) {
		struct pipeline *pl = &e->pipelines[i];
		pl->e = e;
		pl->id = (uint32_t)i;
		pl->dev = &e->devs[i / per];
		pl->devq = calloc(depth, sizeof(*pl->devq));
		if (!pl->devq)
			return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory creating pipelines");
	}
	return 0;
}

int pipelines_start(struct zkp_engine *e)
{
	for (size_t i = 0; i < e->n_pipelines; i++) {
		struct pipeline *pl = &e->pipelines[i];
		if (pthread_create(&pl->cpu_thr, NULL, cpu_main, pl))
			return ZKP_ERR_IO;
		pl->cpu_started = true;
		if (pthread_create(&pl->dev_thr, NULL, dev_main, pl))
			return ZKP_ERR_IO;
		pl->dev_started = true;
		if (pthread_create(&pl->fin_thr, NULL, fin_main, pl))
			return ZKP_ERR_IO;
		pl->fin_started = true;
	}
	return 0;
}

void pipelines_wake(struct zkp_engine *e)
{
	for (size_t i = 0; i < e->n_pipelines; i++)
		pthread_cond_broadcast(&e->pipelines[i].cond);
}

void pipelines_join(struct zkp_engine *e)
{
	for (size_t i = 0; i < e->n_pipelines; i++) {
		struct pipeline *pl = &e->pipelines[i];
		if (pl->cpu_started)
			pthread_join(pl->cpu_thr, NULL);
		if (pl->dev_started)
			pthread_join(pl->dev_thr, NULL);
		if (pl->fin_started)
			pthread_join(pl->fin_thr, NULL);
		pl->cpu_started = pl->dev_started = pl->fin_started = false;
	}
}

void pipelines_release(struct zkp_engine *e)
{
	for (size_t i = 0; i < e->n_pipelines; i++) {
		pthread_cond_destroy(&e->pipelines[i].cond);
		free(e->pipelines[i].devq);
	}
	free(e->pipelines);
	e->pipelines = NULL;
	e->n_pipelines = 0;
	/* Resident keys before the backends that hold them. */
	for (size_t i = 0; i < e->n_circuits; i++)
		circuit_drop_resident(e, &e->circuits[i]);
	for (size_t i = 0; i < e->n_devs; i++) {
		struct device *d = &e->devs[i];
		if (d->lock_init)
			pthread_mutex_destroy(&d->lock);
		zkp_backend_free(d->be);
		zkp_backend_free(d->inner2);
		zkp_backend_free(d->inner);
		zkp_backend_free(d->host);
	}
	free(e->devs);
	e->devs = NULL;
	e->n_devs = 0;
	zkp_backend_free(e->cpu_be);
	e->cpu_be = NULL;
}
