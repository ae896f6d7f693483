/*
 * groth16_job: one proof split at its stage boundaries, so a daemon can run
 * the stages on different threads (a CPU stage, a device stage, a finalize
 * stage), check for cancellation between them, and see each stage's memory.
 * zkp_groth16_prove (groth16_prove.h) is these calls in a row.
 *
 * Stages, in this order, each called once:
 *   zkp_groth16_job_new     checks shapes (witness length, key vs circuit,
 *                           w[0] = ONE); holds pointers only
 *   zkp_groth16_job_eval    a, b, c = A w, B w, C w plus the input rows;
 *                           refuses a witness with a_i b_i != c_i on some
 *                           row (ZKP_ERR_UNSATISFIED naming the first),
 *                           one Fr multiplication per row over the pool;
 *                           on a device, uploads a, b, c and the witness
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
 * (w only while zkp_groth16_job_reads_witness) and are only read. It
 * owns a, b, c, the NTT domain, the density bitmaps and the G2 thread.
 * Threads: each stage may run on a different thread, one at a time per job
 * (the caller hands the job over, e.g. through a queue with a mutex). Jobs
 * are independent: any number may run at once on shared pce, pk and be.
 * Errors and costs: those of zkp_groth16_prove, by stage.
 */
#ifndef ZKPD_GROTH16_JOB_H
#define ZKPD_GROTH16_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/backend.h"
#include "zkpd/error.h"
#include "zkpd/groth16.h"
#include "zkpd/groth16_prove.h"
#include "zkpd/pce.h"
#include "zkpd/pool.h"

typedef struct zkp_groth16_job zkp_groth16_job;

/*
 * Backends. The job drives any backend through backend.h. On a
 * host-visible one (the CPU) a, b, c are evaluated in place and the key's
 * queries are referenced where they lie. On a device backend (host_visible
 * false) a, b, c are evaluated into host staging memory (host_alloc:
 * pinned) and uploaded, the witness after them through the same staging
 * (in eval, so before the device stage; once, for the L, A and B_G1
 * MSMs), H is computed on the device (NTTs and the fused pointwise step,
 * nothing comes back), and every MSM runs there, B_G2 included, on its
 * own thread beside the G1 ones. The key's queries are copied to the
 * device per proof unless the job is given a resident copy
 * (zkp_groth16_job_use_resident), which a daemon makes once per key and
 * device. Where the device cannot hold B_G2 (a resident copy without it,
 * or the per-proof copy refused), the B_G2 MSM runs on a CPU backend of
 * the job's own over pool instead, overlapped with the device's G1 MSMs.
 * The witness's MSMs (L, A, B_G1, B_G2) skip its zeros and sum its ones
 * directly, on either kind of backend.
 */
typedef struct zkp_groth16_resident zkp_groth16_resident;

/* pk's MSM queries imported into be: the G1 ones (H, L, A, B_G1), then,
 * with with_g2, B_G2 if be can take it (on a device, where it does not
 * fit or is not wanted, the copy holds the G1 queries only and its jobs
 * run B_G2 on the host). On a device one copy of each in device memory;
 * on the CPU backend references to pk's memory (no copy). pk and be must
 * outlive it; it is read-only and may serve any number of jobs at once.
 * Errors: ZKP_ERR_NOMEM, ZKP_ERR_DEVICE (err names the G1 query and its
 * size). */
int zkp_groth16_resident_new(zkp_groth16_resident **ret, const zkp_groth16_pk *pk,
			     zkp_backend *be, bool with_g2, zkp_error *err);
/* Bytes the backend holds for it (0 on a host-visible backend). */
size_t zkp_groth16_resident_bytes(const zkp_groth16_resident *rk);
/* Whether it holds B_G2 (always on a host-visible backend). */
bool zkp_groth16_resident_has_g2(const zkp_groth16_resident *rk);
/* Makes rk hold pce's matrices too, on a device backend with spmv: jobs of
 * that circuit given rk before their eval stage then evaluate a, b, c on
 * the device (the witness crosses the bus once, a, b and c never).
 * Optional: without it eval runs on the host. pce must outlive rk.
 * Errors: ZKP_ERR_UNSUPPORTED (a host-visible backend, or none with spmv),
 * ZKP_ERR_INVAL (rk holds another circuit), ZKP_ERR_NOMEM, ZKP_ERR_DEVICE
 * (err names the matrix); rk is unchanged then. Cost: one copy of the
 * matrices, about 6 bytes per non-zero (4.3 GB for a 32 GiB PoRep
 * partition). */
int zkp_groth16_resident_hold_circuit(zkp_groth16_resident *rk, const zkp_pce *pce,
				      zkp_error *err);
/* NULL is a no-op. No job may still use it. */
void zkp_groth16_resident_free(zkp_groth16_resident *rk);

/* Checks n_w against the circuit, the key's shape against the circuit and
 * w[0] = ONE (errors as zkp_groth16_prove: ZKP_ERR_MISMATCH,
 * ZKP_ERR_INVAL, ZKP_ERR_NOMEM). Allocates nothing large. */
int zkp_groth16_job_new(zkp_groth16_job **ret, const zkp_pce *pce, const zkp_groth16_pk *pk,
			const zkp_fr *w, size_t n_w, zkp_backend *be, zkp_pool *pool,
			zkp_error *err);
/* Makes the job read the key's queries from rk instead of importing them
 * (before the msm stage), and, given before the eval stage with rk holding
 * the job's circuit, evaluate on the device. Errors: ZKP_ERR_INVAL (rk was
 * made for another key or backend, the msm stage has run, or eval ran on
 * the device over another resident copy). */
int zkp_groth16_job_use_resident(zkp_groth16_job *job, const zkp_groth16_resident *rk);
int zkp_groth16_job_eval(zkp_groth16_job *job, zkp_error *err);
/* Whether the eval stage ran on the device (a resident circuit): false
 * before it has run. */
bool zkp_groth16_job_evaluated_on_device(const zkp_groth16_job *job);
/* The bytes the eval stage sent to a device for the witness: the packed
 * form (zkpd/bitpack.h) when eval ran on the device and packing made it
 * smaller, else the whole witness; 0 on a host-visible backend and before
 * the eval stage. */
size_t zkp_groth16_job_witness_bytes_up(const zkp_groth16_job *job);
/* Whether the stages after eval still read w. False once eval has run
 * on the device with B_G2 resident there: the witness is then on the
 * device, the inputs that verify reads were copied at eval, and a proof
 * that does not verify is a device fault (the device found every row
 * satisfied), so the caller may free w or keep it in another form until
 * the job is freed. True before eval and on every other path. */
bool zkp_groth16_job_reads_witness(const zkp_groth16_job *job);
int zkp_groth16_job_ntt(zkp_groth16_job *job, zkp_error *err);
int zkp_groth16_job_msm(zkp_groth16_job *job, zkp_error *err);
/* pvk: the key's prepared vk when the caller keeps one (a daemon prepares
 * it once per circuit); NULL prepares it here (about 1 ms). */
int zkp_groth16_job_finish(zkp_groth16_job *job, zkp_groth16_proof *proof,
			   const zkp_groth16_pvk *pvk, zkp_error *err);
/* zkp_groth16_prove (groth16_prove.h) with the key's G1 queries read from
 * rk (made for pk and be); the same errors, and ZKP_ERR_INVAL for an rk of
 * another key or backend. */
int zkp_groth16_prove_resident(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			       const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w,
			       size_t n_w, zkp_backend *be, const zkp_groth16_resident *rk,
			       zkp_pool *pool, zkp_error *err);
/* Seconds per span so far (zeros for spans not entered); total is the
 * stage calls' time, which the spans add up to. */
void zkp_groth16_job_times(const zkp_groth16_job *job, zkp_groth16_prove_times *ret);

/* Called as each span begins, on the thread running the stage, with the
 * time t it begins (CLOCK_MONOTONIC seconds, the spans' clock): a caller
 * that accounts its own time around the stage calls (a daemon's waits)
 * continues the same timeline from t, and what it does after a stage
 * returns until its next step is its own to name. It must be quick, must
 * not fail and must not call into the job. */
typedef void (*zkp_groth16_span_fn)(void *arg, enum zkp_groth16_span span, double t);
/* Sets the span observer (fn NULL: none); any time between stages. */
void zkp_groth16_job_on_span(zkp_groth16_job *job, zkp_groth16_span_fn fn, void *arg);
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

/*
 * What proving a circuit takes in a device backend's memory (docs/memory.md,
 * "On a GPU"), in bytes, from the dimensions, the key's counts and the
 * backend's own scratch figures (zkp_backend_scratch_bytes):
 *   job      = a, b, c and the witness: one job's buffers, from its eval
 *              (where they are allocated) to the end of its MSMs
 *   key_g1   = the resident copy's G1 queries (zkp_groth16_resident_new)
 *   key_g2   = its B_G2 query, where it is held
 *   matrices = the circuit's A, B and C (zkp_groth16_resident_hold_circuit)
 *   tables, msm = the backend's NTT tables for the domain and its MSM
 *              workspace at its largest, kept between jobs
 * The resident figures are exactly what zkp_groth16_resident_bytes reports
 * for a backend that copies; the rest are upper bounds. be NULL: tables and
 * msm are 0 (the caller may ask a backend's own function for them).
 */
typedef struct {
	uint64_t job, key_g1, key_g2, matrices, tables, msm;
} zkp_groth16_device_need;

void zkp_groth16_device_need_of(zkp_groth16_device_need *ret, const zkp_pce *pce,
				const zkp_groth16_pk *pk, zkp_backend *be);

#endif
