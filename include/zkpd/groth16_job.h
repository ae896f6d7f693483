/*
 * groth16_job: one proof split at its stage boundaries, so a daemon can run
 * the stages on different threads (a CPU stage, a device stage, a finalize
 * stage), check for cancellation between them, and see each stage's memory.
 * zkp_groth16_prove (groth16_prove.h) is these calls in a row.
 *
 * Stages, in this order, each called once:
 *   zkp_groth16_job_new     checks shapes (witness length, key vs circuit,
 *                           w[0] = ONE); holds pointers only
 *   zkp_groth16_job_eval    a, b, c = A w, B w, C w plus the input rows
 *   zkp_groth16_job_ntt     H from a, b, c; frees b and c
 *   zkp_groth16_job_msm     starts the B_G2 MSM on its own thread, runs the
 *                           G1 MSMs (H, L, A, B_G1) on the caller's; frees H
 *   zkp_groth16_job_finish  joins the G2 thread, draws r and s, assembles
 *                           A, B, C and verifies the proof against the
 *                           key's vk before handing it out
 * A job may be freed after any stage (cancellation): zkp_groth16_job_free
 * joins a running G2 thread and frees every buffer. A stage after a failed
 * one answers ZKP_ERR_INVAL.
 *
 * Ownership: the job borrows pce, pk, w, be and pool; they must outlive it
 * and are only read. It owns a, b, c, the NTT domain, the density bitmaps
 * and the G2 thread.
 * Threads: each stage may run on a different thread, one at a time per job
 * (the caller hands the job over, e.g. through a queue with a mutex). Jobs
 * are independent: any number may run at once on shared pce, pk and be.
 * Errors and costs: those of zkp_groth16_prove, by stage.
 */
#ifndef ZKPD_GROTH16_JOB_H
#define ZKPD_GROTH16_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/backend.h"
#include "zkpd/error.h"
#include "zkpd/groth16.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"

typedef struct zkp_groth16_job zkp_groth16_job;

/* Checks n_w against the circuit, the key's shape against the circuit,
 * w[0] = ONE and a host-visible backend (errors as zkp_groth16_prove:
 * ZKP_ERR_MISMATCH, ZKP_ERR_INVAL, ZKP_ERR_UNSUPPORTED, ZKP_ERR_NOMEM).
 * Allocates nothing large. */
int zkp_groth16_job_new(zkp_groth16_job **ret, const zkp_pce *pce, const zkp_groth16_pk *pk,
			const zkp_fr *w, size_t n_w, zkp_backend *be, zkp_pool *pool,
			zkp_error *err);
int zkp_groth16_job_eval(zkp_groth16_job *job, zkp_error *err);
int zkp_groth16_job_ntt(zkp_groth16_job *job, zkp_error *err);
int zkp_groth16_job_msm(zkp_groth16_job *job, zkp_error *err);
/* pvk: the key's prepared vk when the caller keeps one (a daemon prepares
 * it once per circuit); NULL prepares it here (about 1 ms). */
int zkp_groth16_job_finish(zkp_groth16_job *job, zkp_groth16_proof *proof,
			   const zkp_groth16_pvk *pvk, zkp_error *err);
/* Seconds per stage so far (zeros for stages not run). */
void zkp_groth16_job_times(const zkp_groth16_job *job, zkp_groth16_prove_times *ret);
/* NULL is a no-op. Joins the G2 thread if one runs. */
void zkp_groth16_job_free(zkp_groth16_job *job);

/*
 * The memory model of docs/memory.md, as bytes, from a circuit's and key's
 * dimensions (not from measurement). threads is the MSM thread count (it
 * sizes the MSM scratch).
 *   circuit  = mapped .pce + decoded coefficient values
 *   key      = the key's backing block; key_src = its source while decoding
 *   ws_eval  = witness + a, b, c + NTT domain
 *   ws_msm   = witness + H + domain + densities + G1 scratch + G2 scratch
 *   ws       = max(ws_eval, ws_msm): what admission reserves per job
 */
typedef struct {
	double circuit, key, key_src;
	double witness, abc, domain, dens, msm_g1, msm_g2;
	double ws_eval, ws_msm, ws;
} zkp_groth16_mem_model;

void zkp_groth16_mem_model_of(zkp_groth16_mem_model *ret, const zkp_pce *pce,
			      const zkp_groth16_pk *pk, unsigned threads);

#endif
