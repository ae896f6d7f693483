/*
 * The Groth16 prover (groth16_prove.h): the stages of groth16_job.h in a
 * row on the caller's thread. The math lives with the stages, in job.c.
 */
#include <string.h>

#include "groth16_int.h"
#include "zkpd/groth16_job.h"
#include "zkpd/groth16_prove.h"

int zkp_groth16_prove(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
		      const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w, size_t n_w,
		      zkp_backend *be, zkp_pool *pool, zkp_error *err)
{
	return zkp_groth16_prove_staged(proof, times, pce, pk, w, n_w, be, pool, NULL, NULL, err);
}

/* The stages in a row, with rk resident when not NULL. */
static int prove_stages(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w, size_t n_w,
			zkp_backend *be, const zkp_groth16_resident *rk, zkp_pool *pool,
			zkp_groth16_stage_fn on_stage, void *arg, zkp_error *err)
{
	double t_start = g16_now();
	zkp_groth16_job *job = NULL;
	int rc = zkp_groth16_job_new(&job, pce, pk, w, n_w, be, pool, err);
	if (rc)
		goto out;
	g16_job_observe(job, on_stage, arg);
	if (rk) {
		rc = zkp_groth16_job_use_resident(job, rk);
		if (rc) {
			zkp_error_set(err, rc, "prove: the resident key is another key's or "
					       "another backend's");
			goto out;
		}
	}
	rc = zkp_groth16_job_eval(job, err);
	if (!rc)
		rc = zkp_groth16_job_ntt(job, err);
	if (!rc)
		rc = zkp_groth16_job_msm(job, err);
	if (!rc)
		rc = zkp_groth16_job_finish(job, proof, NULL, err);
out:
	if (times) {
		if (job)
			zkp_groth16_job_times(job, times);
		else
			memset(times, 0, sizeof(*times));
		times->total = g16_now() - t_start;
	}
	zkp_groth16_job_free(job);
	return rc;
}

int zkp_groth16_prove_staged(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			     const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w,
			     size_t n_w, zkp_backend *be, zkp_pool *pool,
			     zkp_groth16_stage_fn on_stage, void *arg, zkp_error *err)
{
	return prove_stages(proof, times, pce, pk, w, n_w, be, NULL, pool, on_stage, arg, err);
}

int zkp_groth16_prove_resident(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			       const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w,
			       size_t n_w, zkp_backend *be, const zkp_groth16_resident *rk,
			       zkp_pool *pool, zkp_error *err)
{
	return prove_stages(proof, times, pce, pk, w, n_w, be, rk, pool, NULL, NULL, err);
}
