/*
 * The Groth16 prover's stages (groth16_job.h). Math: docs/math.md,
 * 'Groth16 prover' and 'The H polynomial'.
 *
 * With a satisfying witness, P(X) = A(X) B(X) - C(X) vanishes on the domain
 * (the input rows too, since B = C = 0 there), so P = h Z. The key's H
 * query turns the scalars computed below into [h(tau) Z(tau) / delta]_1,
 * and the proof is
 *   A = alpha + sum w_j u_j(tau) + r delta,
 *   B = beta + sum w_j v_j(tau) + s delta,
 *   C = sum_aux w_j l_j + H + s A + r B_1 - r s delta.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "groth16_int.h"
#include "zkpd/bitpack.h"
#include "zkpd/groth16_job.h"

static int rand_fr(zkp_fr *ret, zkp_error *err)
{
	uint64_t wide[2 * ZKP_FR_LIMBS];
	/* 512 random bits reduced mod r: the bias is below 2^-256. */
	if (RAND_bytes((unsigned char *)wide, sizeof(wide)) != 1)
		return zkp_error_set(err, ZKP_ERR_IO, "prove: RAND_bytes failed");
	zkp_fr_from_wide(ret, wide);
	return 0;
}

/* ---- densities over the full assignment [inputs | aux] ---- */

static bool bit(const uint64_t *d, uint64_t i)
{
	return (d[i / 64] >> (i % 64)) & 1;
}

static void set_bit(uint64_t *d, uint64_t i)
{
	d[i / 64] |= UINT64_C(1) << (i % 64);
}

/* dst (n_in + n_aux bits) = [in_bits or all ones | aux_bits]. */
static void join_density(uint64_t *dst, const uint64_t *in_bits, uint64_t n_in,
			 const uint64_t *aux_bits, uint64_t n_aux)
{
	memset(dst, 0, ((n_in + n_aux + 63) / 64) * sizeof(uint64_t));
	for (uint64_t i = 0; i < n_in; i++)
		if (!in_bits || bit(in_bits, i))
			set_bit(dst, i);
	for (uint64_t i = 0; i < n_aux; i++)
		if (bit(aux_bits, i))
			set_bit(dst, n_in + i);
}

/* ---- the B_G2 MSM on its own thread ---- */

struct g2_job {
	zkp_backend *be;
	zkp_g2 ret;
	const zkp_dbuf *bases, *scalars;
	const uint64_t *density;
	size_t n;
	int rc;
	double secs; /* the thread's own time: msm_b_g2 */
};

static void *g2_thread(void *arg)
{
	struct g2_job *j = arg;
	double t0 = g16_now();
	j->rc = zkp_backend_msm_g2(j->be, &j->ret, j->bases, j->scalars, j->density, j->n,
				   &g16_witness_msm);
	j->secs = g16_now() - t0;
	return NULL;
}

/* Finds the unsatisfied row behind a proof that did not verify. With
 * every row satisfied the proof itself is wrong: on a device (any backend
 * but the host CPU's) that is a device fault, ZKP_ERR_DEVICE, which callers
 * may retry elsewhere; on the CPU a prover fault, or a key made for another
 * circuit of the same shape, which no check short of a proof can tell
 * apart from this one. */
static int explain_failure(const zkp_pce *pce, const zkp_fr *w, const zkp_backend *be,
			   zkp_pool *pool, zkp_error *err)
{
	if (!w)
		return zkp_error_set(err, ZKP_ERR_DEVICE,
				     "prove: the proof made on the %s backend does not verify "
				     "against the key's own verifying key although that device "
				     "found every row satisfied at eval: a device fault",
				     be->ops->name);
	uint64_t row = 0;
	zkp_error e = { 0 };
	int rc = zkp_pce_check(pce, w, &row, pool, &e);
	if (rc == ZKP_ERR_UNSATISFIED)
		return zkp_error_set(err, rc, "prove: witness does not satisfy row %" PRIu64
					      " (%s); no proof", row, e.msg);
	if (rc)
		return zkp_error_set(err, rc, "prove: %s", zkp_error_text(&e, rc));
	if (strcmp(be->ops->name, "cpu") != 0)
		return zkp_error_set(err, ZKP_ERR_DEVICE,
				     "prove: the proof made on the %s backend does not verify "
				     "against the key's own verifying key although the witness "
				     "satisfies every row: a device fault", be->ops->name);
	return zkp_error_set(err, ZKP_ERR_MISMATCH,
			     "prove: the proof does not verify against the key's own verifying "
			     "key although the witness satisfies every row: a fault in the CPU "
			     "prover, or a key made for another circuit of the same shape");
}

/* ---- the job ---- */

/* The last stage that succeeded; FAILED once one did not. */
enum job_state { JOB_NEW, JOB_EVAL, JOB_NTT, JOB_MSM, JOB_DONE, JOB_FAILED };

static const char *const state_names[] = { "job_new", "eval", "ntt", "msm", "finish" };

struct zkp_groth16_job {
	const zkp_pce *pce;
	const zkp_groth16_pk *pk;
	const zkp_fr *w;
	zkp_fr *inputs; /* w[0, n_in), copied at eval: what verify reads */
	zkp_backend *be;
	zkp_backend *host_be; /* the B_G2 MSM's: be when host-visible, else own_host_be */
	zkp_backend *own_host_be;
	const zkp_groth16_resident *rk;
	zkp_pool *pool;
	zkp_groth16_stage_fn on_stage;
	void *arg;
	zkp_groth16_span_fn on_span;
	void *span_arg;
	enum job_state state;
	bool dev_eval; /* eval runs (ran) on the device */
	zkp_dbuf bufs[3]; /* a, b, c; H overwrites a */
	void *dom_mem;
	uint64_t *dens_a, *dens_b;
	zkp_dbuf w_dev; /* the witness on be, for its MSMs */
	size_t witness_up_bytes; /* what crossed to be for w_dev, packed or whole */
	/* The B_G2 MSM's bases and scalars when imported for this job, on
	 * g2_be: be, or host_be when be cannot hold the bases. */
	zkp_backend *g2_be;
	zkp_dbuf b2_bases, w_buf;
	/* The G2 thread reads g2 and the two dbufs above through pointers
	 * into the job, which is why they live here and not on a stage's
	 * stack. */
	bool g2_started;
	pthread_t g2_tid;
	struct g2_job g2;
	zkp_g1 sum_h, sum_l, sum_a, sum_b1;
	zkp_groth16_prove_times tm;
	/* The running stage's timeline: the span it is in (-1 between
	 * stages) since t_span, and when the stage call began. */
	int span;
	double t_span, t_stage;
};

static const char *const span_names[ZKP_GROTH16_SPANS] = {
	"eval", "sat_check", "upload", "ntt", "msm_setup", "msm_h", "msm_l", "msm_a",
	"msm_b_g1", "g2_wait", "assemble", "verify",
};

const char *zkp_groth16_span_name(enum zkp_groth16_span s)
{
	return (unsigned)s < ZKP_GROTH16_SPANS ? span_names[s] : "?";
}

void zkp_groth16_job_on_span(zkp_groth16_job *job, zkp_groth16_span_fn fn, void *arg)
{
	job->on_span = fn;
	job->span_arg = arg;
}

/* Moves the running stage into span s: the span it leaves gets the time
 * since it began, read from the same clock reading that begins s, so the
 * spans of a stage call tile it with no gap. The first span of a call
 * starts the call's time. */
static void span_begin(zkp_groth16_job *job, enum zkp_groth16_span s)
{
	double t = g16_now();
	if (job->span >= 0)
		job->tm.span[job->span] += t - job->t_span;
	else
		job->t_stage = t;
	job->span = (int)s;
	job->t_span = t;
	if (job->on_span)
		job->on_span(job->span_arg, s, t);
}

/* Ends the stage call: its last span and the call's total end together. */
static void span_end(zkp_groth16_job *job)
{
	if (job->span < 0)
		return;
	double t = g16_now();
	job->tm.span[job->span] += t - job->t_span;
	job->tm.total += t - job->t_stage;
	job->span = -1;
}

void g16_job_observe(zkp_groth16_job *job, zkp_groth16_stage_fn fn, void *arg)
{
	job->on_stage = fn;
	job->arg = arg;
}

static void observe(const zkp_groth16_job *job, enum zkp_groth16_stage stage)
{
	if (job->on_stage)
		job->on_stage(job->arg, stage);
}

static void join_g2(zkp_groth16_job *job)
{
	if (!job->g2_started)
		return;
	pthread_join(job->g2_tid, NULL);
	job->g2_started = false;
	job->tm.msm_b_g2 = job->g2.secs;
}

/* The MSM inputs and workspaces; the G2 thread must be joined. */
static void release_msm_inputs(zkp_groth16_job *job)
{
	if (job->g2_be) {
		zkp_backend_release(job->g2_be, &job->w_buf);
		zkp_backend_release(job->g2_be, &job->b2_bases);
	}
	zkp_backend_release(job->be, &job->w_dev);
	free(job->dom_mem);
	free(job->dens_a);
	free(job->dens_b);
	job->dom_mem = NULL;
	job->dens_a = job->dens_b = NULL;
}

static void release_all(zkp_groth16_job *job)
{
	join_g2(job);
	release_msm_inputs(job);
	for (int i = 0; i < 3; i++)
		zkp_backend_release(job->be, &job->bufs[i]);
}

/* Admits a stage only right after the one before it; the job keeps its
 * state, so a caller that got the order wrong can still go on. */
static int enter(const zkp_groth16_job *job, enum job_state after, const char *stage,
		 zkp_error *err)
{
	if (job->state == after)
		return 0;
	if (job->state == JOB_FAILED)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "prove: stage %s after a failed stage; the job can only be "
				     "freed", stage);
	return zkp_error_set(err, ZKP_ERR_INVAL,
			     "prove: stage %s out of order: it follows %s, the job's last stage "
			     "is %s", stage, state_names[after], state_names[job->state]);
}

/* Ends a stage: a failure drops every buffer at once (the job is dead,
 * and its memory should not wait for the caller's free), inside the
 * stage's last span. */
static int leave(zkp_groth16_job *job, int rc, enum job_state done)
{
	if (rc) {
		job->state = JOB_FAILED;
		release_all(job);
	} else {
		job->state = done;
	}
	span_end(job);
	return rc;
}

const zkp_msm_opts g16_witness_msm = { ZKP_MSM_AUTO, 0, true, 0, NULL };

/* One G1 MSM of query q (G16_RES_*) over scalars already on the job's
 * backend: the bases from the resident copy, or imported for this call.
 * The witness's MSMs split off its zeros and ones; H's scalars are
 * uniform. */
static int msm_query(zkp_groth16_job *job, int q, zkp_g1 *ret, const zkp_dbuf *scalars,
		     const uint64_t *density, size_t n)
{
	static const enum zkp_groth16_section sections[G16_RES_G1_QUERIES] = {
		ZKP_GROTH16_H, ZKP_GROTH16_L, ZKP_GROTH16_A, ZKP_GROTH16_B_G1
	};
	const zkp_groth16_pk *pk = job->pk;
	const zkp_g1_affine *const src[G16_RES_G1_QUERIES] = { pk->h, pk->l, pk->a, pk->b_g1 };
	const zkp_msm_opts *opts = q == G16_RES_H ? NULL : &g16_witness_msm;
	zkp_backend *be = job->be;
	zkp_dbuf own = { 0 };
	const zkp_dbuf *bases = job->rk ? &job->rk->q[q] : &own;
	int rc = 0;
	if (!job->rk)
		rc = zkp_backend_import_host(be, &own, src[q],
					     pk->n[sections[q]] * sizeof(zkp_g1_affine));
	if (!rc)
		rc = zkp_backend_msm_g1(be, ret, bases, scalars, density, n, opts);
	zkp_backend_release(be, &own);
	return rc;
}

int zkp_groth16_job_new(zkp_groth16_job **ret, const zkp_pce *pce, const zkp_groth16_pk *pk,
			const zkp_fr *w, size_t n_w, zkp_backend *be, zkp_pool *pool,
			zkp_error *err)
{
	const zkp_pce_dims *dims = zkp_pce_get_dims(pce);
	const uint64_t n_in = dims->n_inputs, n_aux = dims->n_aux;
	zkp_groth16_job *job = NULL;
	int rc = 0;

	*ret = NULL;
	if (n_w != (size_t)(n_in + n_aux)) {
		rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
				   "prove: witness has %zu values, the circuit needs %" PRIu64
				   " (%" PRIu64 " inputs with ONE + %" PRIu64 " aux)",
				   n_w, n_in + n_aux, n_in, n_aux);
		goto out;
	}
	zkp_groth16_shape shape;
	zkp_groth16_shape_from_pce(&shape, dims, zkp_pce_density_a_aux(pce),
				   zkp_pce_density_b_input(pce), zkp_pce_density_b_aux(pce));
	rc = zkp_groth16_pk_check_shape(pk, &shape, pk->source_path, err);
	if (rc)
		goto out;
	if (!zkp_fr_is_one(&w[0])) {
		rc = zkp_error_set(err, ZKP_ERR_INVAL, "prove: witness value 0 is not ONE");
		goto out;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "prove: no memory for a proving job");
		goto out;
	}
	job->pce = pce;
	job->pk = pk;
	job->w = w;
	job->be = be;
	job->host_be = be;
	if (!be->host_visible) {
		rc = zkp_backend_cpu_new(&job->own_host_be, pool);
		if (rc) {
			zkp_error_set(err, rc, "prove: no memory for the host backend");
			free(job);
			job = NULL;
			goto out;
		}
		job->host_be = job->own_host_be;
	}
	job->pool = pool;
	job->state = JOB_NEW;
	job->span = -1;
	*ret = job;
out:
	return rc;
}

/* Packs the witness into stage (cap elements) and uploads the packed bytes
 * into scratch, from which the device unpacks them into w_dev (zkpd/
 * bitpack.h): a PoRep witness crosses in about a fortieth of its bytes.
 * *done is false, and nothing reached the device, when the packed form
 * would not be smaller than the witness or does not fit stage or scratch. */
static int stage_packed(zkp_groth16_job *job, zkp_fr *stage, size_t cap, zkp_dbuf *scratch,
			size_t n_all, bool *done)
{
	*done = false;
	const size_t cap_bytes = cap * sizeof(zkp_fr);
	if (zkp_bitpack_dense_off(n_all) > cap_bytes)
		return 0;
	size_t n_dense = zkp_bitpack_scan(stage, job->w, n_all, job->pool);
	size_t bytes = zkp_bitpack_bytes(n_all, n_dense);
	if (bytes > cap_bytes || bytes > scratch->bytes || bytes >= n_all * sizeof(zkp_fr))
		return 0;
	zkp_bitpack_gather(stage, job->w, n_all, job->pool);
	int rc = zkp_backend_upload(job->be, scratch, 0, stage, bytes);
	if (!rc)
		rc = zkp_backend_unpack(job->be, &job->w_dev, scratch, n_all, n_dense);
	if (!rc) {
		job->witness_up_bytes = bytes;
		*done = true;
	}
	return rc;
}

/* The witness onto a device backend (w_dev, for the G1 MSMs and spmv),
 * through the pinned staging of a, b, c (cap elements): packed when
 * scratch, a device buffer free until the kernels after this one, can
 * take the packed bytes and they are fewer (stage_packed), else whole, in
 * pieces of cap. A pinned copy runs at full bus speed, and here, before
 * the device stage, it overlaps the kernels of the job ahead. */
static int stage_witness(zkp_groth16_job *job, zkp_fr *stage, size_t cap, zkp_dbuf *scratch,
			 zkp_error *err)
{
	const zkp_pce_dims *dims = zkp_pce_get_dims(job->pce);
	const size_t n_all = (size_t)(dims->n_inputs + dims->n_aux);
	zkp_backend *be = job->be;
	int rc = zkp_backend_alloc(be, &job->w_dev, n_all * sizeof(zkp_fr));
	if (rc)
		return zkp_error_set(err, rc, "prove: cannot allocate %zu bytes for the witness on "
					      "backend %s", n_all * sizeof(zkp_fr), be->ops->name);
	bool done = false;
	if (scratch)
		rc = stage_packed(job, stage, cap, scratch, n_all, &done);
	for (size_t off = 0; off < n_all && !rc && !done; off += cap) {
		size_t k = n_all - off < cap ? n_all - off : cap;
		memcpy(stage, job->w + off, k * sizeof(zkp_fr));
		rc = zkp_backend_upload(be, &job->w_dev, off * sizeof(zkp_fr), stage,
					k * sizeof(zkp_fr));
		job->witness_up_bytes += k * sizeof(zkp_fr);
	}
	if (rc)
		zkp_error_set(err, rc, "prove: uploading the witness to backend %s failed",
			      be->ops->name);
	return rc;
}

/* The rows [0, m) hold (a * b = c), checked on be: else ZKP_ERR_UNSATISFIED
 * naming the first that does not. */
static int check_rows(zkp_backend *be, const zkp_dbuf *a, const zkp_dbuf *b,
		      const zkp_dbuf *c, uint64_t m, zkp_error *err)
{
	uint64_t bad = UINT64_MAX;
	int rc = zkp_backend_first_unsatisfied(be, &bad, a, b, c, (size_t)m);
	if (rc)
		return zkp_error_set(err, rc, "prove: the row check on backend %s failed",
				     be->ops->name);
	if (bad != UINT64_MAX)
		return zkp_error_set(err, ZKP_ERR_UNSATISFIED,
				     "prove: witness does not satisfy row %" PRIu64
				     " (A.w * B.w != C.w there); no proof",
				     bad);
	return 0;
}

/* a, b, c on the device over the resident matrices: the witness goes up
 * once (through pinned staging), spmv fills a, b, c with their padding,
 * the device checks the rows, and the inputs go into a's input rows. */
#define WITNESS_STAGE_ELEMS ((size_t)1 << 23) /* 256 MiB of pinned staging */

static int eval_on_device(zkp_groth16_job *job, zkp_error *err)
{
	const zkp_pce_dims *dims = zkp_pce_get_dims(job->pce);
	const uint64_t n_in = dims->n_inputs, m = dims->n_constraints;
	const size_t n = (size_t)1 << dims->domain_log2;
	const size_t n_all = (size_t)(n_in + dims->n_aux);
	zkp_backend *be = job->be;
	const zkp_groth16_resident *rk = job->rk;
	size_t cap = n_all < WITNESS_STAGE_ELEMS ? n_all : WITNESS_STAGE_ELEMS;
	zkp_fr *stage = NULL;

	int rc = 0;
	for (int i = 0; i < 3 && !rc; i++)
		rc = zkp_backend_alloc(be, &job->bufs[i], n * sizeof(zkp_fr));
	if (rc)
		return zkp_error_set(err, rc, "prove: cannot allocate %zu bytes for a, b, c on "
					      "backend %s", 3 * n * sizeof(zkp_fr), be->ops->name);
	span_begin(job, ZKP_GROTH16_SPAN_UPLOAD);
	rc = zkp_backend_host_alloc(be, (void **)&stage, cap * sizeof(zkp_fr));
	if (rc)
		return zkp_error_set(err, rc, "prove: cannot allocate %zu bytes of host staging "
					      "for the witness", cap * sizeof(zkp_fr));
	/* c receives the packed witness: spmv writes it after the unpack,
	 * which reads it, on the same queue. */
	rc = stage_witness(job, stage, cap, &job->bufs[2], err);
	zkp_backend_host_free(be, stage, cap * sizeof(zkp_fr));
	if (rc)
		return rc;
	span_begin(job, ZKP_GROTH16_SPAN_EVAL);
	for (int i = 0; i < 3 && !rc; i++)
		rc = zkp_backend_spmv(be, &job->bufs[i], &rk->m[i], &job->w_dev, n);
	if (rc)
		return zkp_error_set(err, rc, "prove: evaluating a, b, c on backend %s failed",
				     be->ops->name);
	span_begin(job, ZKP_GROTH16_SPAN_SAT_CHECK);
	rc = check_rows(be, &job->bufs[0], &job->bufs[1], &job->bufs[2], m, err);
	if (rc)
		return rc;
	span_begin(job, ZKP_GROTH16_SPAN_EVAL);
	rc = zkp_backend_upload(be, &job->bufs[0], (size_t)m * sizeof(zkp_fr), job->inputs,
				(size_t)n_in * sizeof(zkp_fr));
	if (rc)
		zkp_error_set(err, rc, "prove: uploading the inputs to backend %s failed",
			      be->ops->name);
	return rc;
}

/* a, b, c in host memory (the CPU backend's buffers, or staging that is
 * uploaded), the rows checked there. */
static int eval_on_host(zkp_groth16_job *job, zkp_error *err)
{
	const zkp_pce_dims *dims = zkp_pce_get_dims(job->pce);
	const uint64_t n_in = dims->n_inputs, m = dims->n_constraints;
	const size_t n = (size_t)1 << dims->domain_log2;
	zkp_backend *be = job->be;
	zkp_fr *stage = NULL, *abc[3];
	const size_t stage_bytes = 3 * n * sizeof(zkp_fr);
	int rc = 0;

	for (int i = 0; i < 3; i++) {
		rc = zkp_backend_alloc(be, &job->bufs[i], n * sizeof(zkp_fr));
		if (rc)
			return zkp_error_set(err, rc, "prove: cannot allocate %zu bytes for a, b, c on "
						      "backend %s", 3 * n * sizeof(zkp_fr),
					     be->ops->name);
	}
	/* On a device a, b, c are filled in host staging memory and uploaded. */
	if (be->host_visible) {
		for (int i = 0; i < 3; i++)
			abc[i] = job->bufs[i].ptr;
	} else {
		rc = zkp_backend_host_alloc(be, (void **)&stage, stage_bytes);
		if (rc)
			return zkp_error_set(err, rc, "prove: cannot allocate %zu bytes of host "
						      "staging for a, b, c", stage_bytes);
		for (int i = 0; i < 3; i++)
			abc[i] = stage + (size_t)i * n;
	}
	zkp_pce_eval(job->pce, job->w, abc[0], abc[1], abc[2], job->pool);
	/* A witness that does not satisfy the circuit stops here, before the
	 * NTTs and MSMs spend a proof's time on it (the input rows appended
	 * below hold by construction: B and C are zero there). */
	span_begin(job, ZKP_GROTH16_SPAN_SAT_CHECK);
	zkp_dbuf h[3];
	for (int i = 0; i < 3 && !rc; i++)
		rc = zkp_backend_import_host(job->host_be, &h[i], abc[i], (size_t)m * sizeof(zkp_fr));
	if (!rc)
		rc = check_rows(job->host_be, &h[0], &h[1], &h[2], m, err);
	if (rc)
		goto out;
	span_begin(job, ZKP_GROTH16_SPAN_EVAL);
	memcpy(abc[0] + m, job->w, n_in * sizeof(zkp_fr));
	memset(abc[0] + m + n_in, 0, (n - m - n_in) * sizeof(zkp_fr));
	memset(abc[1] + m, 0, (n - m) * sizeof(zkp_fr));
	memset(abc[2] + m, 0, (n - m) * sizeof(zkp_fr));
	if (stage) {
		span_begin(job, ZKP_GROTH16_SPAN_UPLOAD);
		for (int i = 0; i < 3 && !rc; i++)
			rc = zkp_backend_upload(be, &job->bufs[i], 0, abc[i], n * sizeof(zkp_fr));
		if (rc) {
			zkp_error_set(err, rc, "prove: uploading a, b, c to backend %s failed",
				      be->ops->name);
			goto out;
		}
		rc = stage_witness(job, stage, 3 * n, NULL, err);
	}
out:
	if (stage)
		zkp_backend_host_free(be, stage, stage_bytes);
	return rc;
}

int zkp_groth16_job_eval(zkp_groth16_job *job, zkp_error *err)
{
	int rc = enter(job, JOB_NEW, "eval", err);
	if (rc)
		return rc;
	span_begin(job, ZKP_GROTH16_SPAN_EVAL);
	job->dev_eval = !job->be->host_visible && job->rk && job->rk->has_circuit &&
			job->rk->circuit == job->pce;
	const uint64_t n_in = zkp_pce_get_dims(job->pce)->n_inputs;
	job->inputs = malloc((size_t)n_in * sizeof(zkp_fr));
	if (!job->inputs)
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "prove: no memory for the inputs");
	else
		memcpy(job->inputs, job->w, (size_t)n_in * sizeof(zkp_fr));
	if (!rc)
		rc = job->dev_eval ? eval_on_device(job, err) : eval_on_host(job, err);
	if (!rc)
		observe(job, ZKP_GROTH16_STAGE_EVAL);
	return leave(job, rc, JOB_EVAL);
}

/* H, in the key's convention (groth16_prove.h), into a. */
int zkp_groth16_job_ntt(zkp_groth16_job *job, zkp_error *err)
{
	int rc = enter(job, JOB_EVAL, "ntt", err);
	if (rc)
		return rc;
	span_begin(job, ZKP_GROTH16_SPAN_NTT);
	const unsigned log_n = zkp_pce_get_dims(job->pce)->domain_log2;
	const size_t n = (size_t)1 << log_n;
	const bool snarkjs = job->pk->h_conv == ZKP_GROTH16_H_SNARKJS;
	zkp_backend *be = job->be;
	zkp_dbuf *bufs = job->bufs;

	job->dom_mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(log_n) + 63) & ~(size_t)63);
	if (!job->dom_mem) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "prove: no memory for the NTT domain");
		goto out;
	}
	zkp_ntt_domain dom;
	zkp_fr shift;
	if (snarkjs) {
		/* The odd coset w_{2n} H_n: w_{2n}^2 = w_n, 5-based roots. */
		if (log_n + 1 > 32) {
			rc = zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
					   "prove: snarkjs domain of 2^%u points", log_n);
			goto out;
		}
		zkp_ntt_root_of_unity(&shift, log_n + 1, ZKP_NTT_ROOTS_SNARKJS);
	} else {
		zkp_fr_set_u64(&shift, 7);
	}
	rc = zkp_ntt_domain_init(&dom, log_n, snarkjs ? ZKP_NTT_ROOTS_SNARKJS : ZKP_NTT_ROOTS_BELLMAN,
				 &shift, job->dom_mem, job->pool);
	if (rc) {
		zkp_error_set(err, rc, "prove: NTT domain of 2^%u points", log_n);
		goto out;
	}
	/* snarkjs takes a b - c on the coset itself, so c goes there too. In
	 * the bellman convention h's coefficients are those of a b on the
	 * coset, transformed back, less c's (the inverse coset transform is
	 * linear and gives back the coefficients of any polynomial of degree
	 * below n), over Z's value: c stays in coefficients, six transforms
	 * instead of seven (docs/math.md). */
	const zkp_ntt_opts to_coeffs = { true, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	const zkp_ntt_opts to_coset = { false, true, ZKP_NTT_BITREV, ZKP_NTT_NATURAL };
	for (int i = 0; i < 3 && !rc; i++) {
		rc = zkp_backend_ntt(be, &bufs[i], &dom, &to_coeffs);
		if (!rc && (i < 2 || snarkjs))
			rc = zkp_backend_ntt(be, &bufs[i], &dom, &to_coset);
	}
	if (!rc)
		rc = zkp_backend_sync(be);
	if (rc) {
		zkp_error_set(err, rc, "prove: NTT on backend %s failed", be->ops->name);
		goto out;
	}
	if (snarkjs) {
		rc = zkp_backend_h_pointwise(be, &bufs[0], &bufs[1], &bufs[2], NULL, n);
		if (!rc)
			rc = zkp_backend_sync(be);
	} else {
		/* Z(X) = X^n - 1 takes the single value g^n - 1 on the coset g H. */
		zkp_fr zinv, one;
		uint64_t e = n;
		zkp_fr_pow(&zinv, &shift, &e, 1);
		zkp_fr_set_one(&one);
		zkp_fr_sub(&zinv, &zinv, &one);
		zkp_fr_inv(&zinv, &zinv);
		/* both a b's and c's coefficients bit-reversed, h's natural */
		const zkp_ntt_opts from_coset = { true, true, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
		rc = zkp_backend_h_pointwise(be, &bufs[0], &bufs[1], NULL, NULL, n);
		if (!rc)
			rc = zkp_backend_ntt(be, &bufs[0], &dom, &from_coset);
		if (!rc)
			rc = zkp_backend_h_coeffs(be, &bufs[0], &bufs[2], &zinv, log_n);
		if (!rc)
			rc = zkp_backend_sync(be);
	}
	if (rc) {
		zkp_error_set(err, rc, "prove: H's pointwise step or inverse coset NTT on "
				       "backend %s failed", be->ops->name);
		goto out;
	}
	observe(job, ZKP_GROTH16_STAGE_NTT);
	/* b and c are no longer needed: free them before the MSMs' workspaces. */
	zkp_backend_release(be, &bufs[1]);
	zkp_backend_release(be, &bufs[2]);
out:
	return leave(job, rc, JOB_NTT);
}

/* B_G2 on its own thread, the G1 ones here. */
int zkp_groth16_job_msm(zkp_groth16_job *job, zkp_error *err)
{
	int rc = enter(job, JOB_NTT, "msm", err);
	if (rc)
		return rc;
	span_begin(job, ZKP_GROTH16_SPAN_MSM_SETUP);
	const zkp_pce *pce = job->pce;
	const zkp_groth16_pk *pk = job->pk;
	const zkp_fr *w = job->w;
	const zkp_pce_dims *dims = zkp_pce_get_dims(pce);
	const uint64_t n_in = dims->n_inputs, n_aux = dims->n_aux;
	const size_t n_all = (size_t)(n_in + n_aux);
	zkp_backend *be = job->be;

	if (pk->ab_layout == ZKP_GROTH16_AB_COMPACT) {
		size_t words = (n_all + 63) / 64;
		job->dens_a = calloc(words ? words : 1, sizeof(uint64_t));
		job->dens_b = calloc(words ? words : 1, sizeof(uint64_t));
		if (!job->dens_a || !job->dens_b) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "prove: no memory for densities");
			goto out;
		}
		join_density(job->dens_a, NULL, n_in, zkp_pce_density_a_aux(pce), n_aux);
		join_density(job->dens_b, zkp_pce_density_b_input(pce), n_in,
			     zkp_pce_density_b_aux(pce), n_aux);
	}
	/* A device backend has the witness from eval (stage_witness); a
	 * host-visible one references it in place. */
	if (!job->w_dev.ptr)
		rc = zkp_backend_import_host(be, &job->w_dev, w, n_all * sizeof(zkp_fr));
	if (rc) {
		zkp_error_set(err, rc, "prove: cannot place the witness (%zu bytes) on backend %s",
			      n_all * sizeof(zkp_fr), be->ops->name);
		goto out;
	}
	/* B_G2 on be, from the resident copy or imported for this job; where
	 * be cannot hold the bases, on the host backend, with bases and
	 * scalars referenced in place there. */
	const size_t g2_bytes = pk->n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine);
	zkp_backend *hb = job->host_be;
	const zkp_dbuf *g2_bases = NULL, *g2_scalars = &job->w_dev;
	zkp_backend *g2_be = be;
	if (job->rk && job->rk->has_g2) {
		g2_bases = &job->rk->b_g2;
	} else if (!job->rk && zkp_backend_import_host(be, &job->b2_bases, pk->b_g2, g2_bytes) == 0) {
		job->g2_be = be;
		g2_bases = &job->b2_bases;
	}
	if (!g2_bases) {
		job->g2_be = g2_be = hb;
		rc = zkp_backend_import_host(hb, &job->b2_bases, pk->b_g2, g2_bytes);
		if (!rc)
			rc = zkp_backend_import_host(hb, &job->w_buf, w, n_all * sizeof(zkp_fr));
		if (rc) {
			zkp_error_set(err, rc, "prove: backend %s refused the B_G2 query",
				      hb->ops->name);
			goto out;
		}
		g2_bases = &job->b2_bases;
		g2_scalars = &job->w_buf;
	}
	job->g2.be = g2_be;
	job->g2.bases = g2_bases;
	job->g2.scalars = g2_scalars;
	job->g2.density = job->dens_b;
	job->g2.n = n_all;
	if (pthread_create(&job->g2_tid, NULL, g2_thread, &job->g2)) {
		/* No thread to spare: run it here, before the G1 MSMs. */
		g2_thread(&job->g2);
		job->tm.msm_b_g2 = job->g2.secs;
	} else {
		job->g2_started = true;
	}

	zkp_dbuf w_aux;
	rc = zkp_dbuf_view(&w_aux, &job->w_dev, (size_t)n_in * sizeof(zkp_fr),
			   (size_t)n_aux * sizeof(zkp_fr));
	span_begin(job, ZKP_GROTH16_SPAN_MSM_H);
	if (!rc)
		rc = msm_query(job, G16_RES_H, &job->sum_h, &job->bufs[0], NULL,
			       pk->n[ZKP_GROTH16_H]);
	/* H is spent: its memory goes before the other MSMs' workspaces. */
	zkp_backend_release(be, &job->bufs[0]);
	if (!rc) {
		span_begin(job, ZKP_GROTH16_SPAN_MSM_L);
		rc = msm_query(job, G16_RES_L, &job->sum_l, &w_aux, NULL, (size_t)n_aux);
	}
	if (!rc) {
		span_begin(job, ZKP_GROTH16_SPAN_MSM_A);
		rc = msm_query(job, G16_RES_A, &job->sum_a, &job->w_dev, job->dens_a, n_all);
	}
	if (!rc) {
		span_begin(job, ZKP_GROTH16_SPAN_MSM_B_G1);
		rc = msm_query(job, G16_RES_B_G1, &job->sum_b1, &job->w_dev, job->dens_b, n_all);
	}
	if (rc)
		zkp_error_set(err, rc, "prove: MSM on backend %s failed", be->ops->name);
out:
	return leave(job, rc, JOB_MSM);
}

int zkp_groth16_job_finish(zkp_groth16_job *job, zkp_groth16_proof *proof,
			   const zkp_groth16_pvk *pvk, zkp_error *err)
{
	int rc = enter(job, JOB_MSM, "finish", err);
	if (rc)
		return rc;
	span_begin(job, ZKP_GROTH16_SPAN_G2_WAIT);
	const zkp_groth16_pk *pk = job->pk;
	const uint64_t n_in = zkp_pce_get_dims(job->pce)->n_inputs;
	zkp_groth16_pvk *own_pvk = NULL;

	join_g2(job);
	rc = job->g2.rc;
	if (rc) {
		zkp_error_set(err, rc, "prove: MSM on backend %s failed", job->be->ops->name);
		goto out;
	}
	release_msm_inputs(job);
	observe(job, ZKP_GROTH16_STAGE_MSM);

	/* Assembly. */
	span_begin(job, ZKP_GROTH16_SPAN_ASSEMBLE);
	zkp_fr r, s, rs;
	rc = rand_fr(&r, err);
	if (!rc)
		rc = rand_fr(&s, err);
	if (rc)
		goto out;
	zkp_fr_mul(&rs, &r, &s);
	const zkp_groth16_vk *vk = &pk->vk;
	zkp_g1 pa, pb1, pc, t1, delta1;
	zkp_g2 pb2, t2;
	zkp_g1_from_affine(&delta1, &vk->delta_g1);

	/* r and s are secret (with them and the proof, the witness's
	 * contribution can be unblinded): every product with them is taken
	 * in constant time (ec.h's *_mul_fr_ct). */
	/* A = alpha + sum_a + r delta */
	zkp_g1_mul_fr_ct(&t1, &delta1, &r);
	zkp_g1_add(&pa, &job->sum_a, &t1);
	zkp_g1_add_affine(&pa, &pa, &vk->alpha_g1);
	/* B = beta + sum_b + s delta, in G2 and G1 */
	zkp_g2_from_affine(&t2, &vk->delta_g2);
	zkp_g2_mul_fr_ct(&t2, &t2, &s);
	zkp_g2_add(&pb2, &job->g2.ret, &t2);
	zkp_g2_add_affine(&pb2, &pb2, &vk->beta_g2);
	zkp_g1_mul_fr_ct(&t1, &delta1, &s);
	zkp_g1_add(&pb1, &job->sum_b1, &t1);
	zkp_g1_add_affine(&pb1, &pb1, &vk->beta_g1);
	/* C = s A + r B_1 - r s delta + L + H */
	zkp_g1_mul_fr_ct(&pc, &pa, &s);
	zkp_g1_mul_fr_ct(&t1, &pb1, &r);
	zkp_g1_add(&pc, &pc, &t1);
	zkp_g1_mul_fr_ct(&t1, &delta1, &rs);
	zkp_g1_neg(&t1, &t1);
	zkp_g1_add(&pc, &pc, &t1);
	zkp_g1_add(&pc, &pc, &job->sum_l);
	zkp_g1_add(&pc, &pc, &job->sum_h);
	explicit_bzero(&r, sizeof(r));
	explicit_bzero(&s, sizeof(s));
	explicit_bzero(&rs, sizeof(rs));

	zkp_groth16_proof out_proof;
	zkp_g1_to_affine(&out_proof.a, &pa);
	zkp_g2_to_affine(&out_proof.b, &pb2);
	zkp_g1_to_affine(&out_proof.c, &pc);

	/* Verify before answering. */
	span_begin(job, ZKP_GROTH16_SPAN_VERIFY);
	if (!pvk) {
		rc = zkp_groth16_pvk_new(&own_pvk, vk);
		if (rc) {
			zkp_error_set(err, rc, "prove: the key's verifying key cannot be prepared");
			goto out;
		}
		pvk = own_pvk;
	}
	rc = zkp_groth16_verify(pvk, job->inputs + 1, (size_t)(n_in - 1), &out_proof);
	if (rc == ZKP_GROTH16_INVALID) {
		rc = explain_failure(job->pce, zkp_groth16_job_reads_witness(job) ? job->w : NULL,
				     job->be, job->pool, err);
		goto out;
	}
	if (rc) {
		zkp_error_set(err, rc, "prove: verification failed to run");
		goto out;
	}
	*proof = out_proof;
out:
	zkp_groth16_pvk_free(own_pvk);
	return leave(job, rc, JOB_DONE);
}

void zkp_groth16_job_times(const zkp_groth16_job *job, zkp_groth16_prove_times *ret)
{
	*ret = job->tm;
}

void zkp_groth16_job_free(zkp_groth16_job *job)
{
	if (!job)
		return;
	release_all(job);
	zkp_backend_free(job->own_host_be);
	free(job->inputs);
	free(job);
}

bool zkp_groth16_job_evaluated_on_device(const zkp_groth16_job *job)
{
	return job->dev_eval && job->state >= JOB_EVAL && job->state != JOB_FAILED;
}

bool zkp_groth16_job_reads_witness(const zkp_groth16_job *job)
{
	return !(zkp_groth16_job_evaluated_on_device(job) && job->rk->has_g2);
}

size_t zkp_groth16_job_witness_bytes_up(const zkp_groth16_job *job)
{
	return job->witness_up_bytes;
}

int zkp_groth16_job_use_resident(zkp_groth16_job *job, const zkp_groth16_resident *rk)
{
	if (!rk || rk->pk != job->pk || rk->be != job->be || job->state >= JOB_MSM)
		return ZKP_ERR_INVAL;
	/* A device eval chose its path by this rk (zkp_groth16_job_reads_witness). */
	if (zkp_groth16_job_evaluated_on_device(job) && rk != job->rk)
		return ZKP_ERR_INVAL;
	job->rk = rk;
	return 0;
}
