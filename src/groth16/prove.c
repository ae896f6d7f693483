/*
 * The Groth16 prover (groth16_prove.h). Math: shared/notes/filecoin.md
 * section 6 and shared/notes/interop.md sections 7-8.
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
#include <time.h>

#include <openssl/rand.h>

#include "zkpd/groth16_prove.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int rand_fr(zkp_fr *ret, zkp_error *err)
{
	uint64_t wide[2 * ZKP_FR_LIMBS];
	/* 512 random bits reduced mod r: the bias is below 2^-256. */
	if (RAND_bytes((unsigned char *)wide, sizeof(wide)) != 1)
		return zkp_error_set(err, ZKP_ERR_IO, "prove: RAND_bytes failed");
	zkp_fr_from_wide(ret, wide);
	return 0;
}

/* ---- pointwise stages, row-parallel ---- */

struct pw_ctx {
	zkp_fr *a;
	const zkp_fr *b, *c;
	zkp_fr scale;
	bool do_scale;
};

static void pw_task(void *arg, size_t begin, size_t end)
{
	struct pw_ctx *p = arg;
	for (size_t i = begin; i < end; i++) {
		zkp_fr_mul(&p->a[i], &p->a[i], &p->b[i]);
		zkp_fr_sub(&p->a[i], &p->a[i], &p->c[i]);
		if (p->do_scale)
			zkp_fr_mul(&p->a[i], &p->a[i], &p->scale);
	}
}

/* a = (a b - c) * scale (when do_scale), over n elements. */
static void pointwise(zkp_fr *a, const zkp_fr *b, const zkp_fr *c, size_t n,
		      const zkp_fr *scale, zkp_pool *pool)
{
	struct pw_ctx p = { .a = a, .b = b, .c = c, .do_scale = scale != NULL };
	if (scale)
		p.scale = *scale;
	zkp_pool_run(pool, n, 4096, pw_task, &p);
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
	double secs;
};

static void *g2_thread(void *arg)
{
	struct g2_job *j = arg;
	double t0 = now();
	j->rc = zkp_backend_msm_g2(j->be, &j->ret, j->bases, j->scalars, j->density, j->n, NULL);
	j->secs = now() - t0;
	return NULL;
}

/* Runs one G1 MSM over host memory imported into the backend. */
static int msm_g1_host(zkp_backend *be, zkp_g1 *ret, const zkp_g1_affine *bases,
		       size_t n_bases, const zkp_fr *scalars, const uint64_t *density, size_t n,
		       double *secs)
{
	zkp_dbuf b = { 0 }, s = { 0 };
	double t0 = now();
	int rc = zkp_backend_import_host(be, &b, bases, n_bases * sizeof(*bases));
	if (!rc)
		rc = zkp_backend_import_host(be, &s, scalars, n * sizeof(*scalars));
	if (!rc)
		rc = zkp_backend_msm_g1(be, ret, &b, &s, density, n, NULL);
	zkp_backend_release(be, &s);
	zkp_backend_release(be, &b);
	*secs = now() - t0;
	return rc;
}

/* Finds the unsatisfied row behind a proof that did not verify, or says
 * the key is not this circuit's. */
static int explain_failure(const zkp_pce *pce, const zkp_fr *w, zkp_pool *pool,
			   zkp_error *err)
{
	uint64_t row = 0;
	zkp_error e = { 0 };
	int rc = zkp_pce_check(pce, w, &row, pool, &e);
	if (rc == ZKP_ERR_UNSATISFIED)
		return zkp_error_set(err, rc, "prove: witness does not satisfy row %" PRIu64
					      " (%s); no proof", row, e.msg);
	if (rc)
		return zkp_error_set(err, rc, "prove: %s", zkp_error_text(&e, rc));
	return zkp_error_set(err, ZKP_ERR_MISMATCH,
			     "prove: the proof does not verify against the key's own verifying "
			     "key although the witness satisfies the circuit: the key was made "
			     "for another circuit");
}

int zkp_groth16_prove(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
		      const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w, size_t n_w,
		      zkp_backend *be, zkp_pool *pool, zkp_error *err)
{
	return zkp_groth16_prove_staged(proof, times, pce, pk, w, n_w, be, pool, NULL, NULL, err);
}

int zkp_groth16_prove_staged(zkp_groth16_proof *proof, zkp_groth16_prove_times *times,
			     const zkp_pce *pce, const zkp_groth16_pk *pk, const zkp_fr *w,
			     size_t n_w, zkp_backend *be, zkp_pool *pool,
			     zkp_groth16_stage_fn on_stage, void *arg, zkp_error *err)
{
	zkp_groth16_prove_times tm;
	memset(&tm, 0, sizeof(tm));
	double t_start = now(), t0;
	const zkp_pce_dims *dims = zkp_pce_get_dims(pce);
	const uint64_t n_in = dims->n_inputs, n_aux = dims->n_aux, m = dims->n_constraints;
	const size_t n_all = (size_t)(n_in + n_aux);
	const bool snarkjs = pk->h_conv == ZKP_GROTH16_H_SNARKJS;
	const bool compact = pk->ab_layout == ZKP_GROTH16_AB_COMPACT;
	zkp_dbuf bufs[3] = { { 0 } }, b2_bases = { 0 }, w_buf = { 0 };
	uint64_t *dens_a = NULL, *dens_b = NULL;
	void *dom_mem = NULL;
	zkp_groth16_pvk *pvk = NULL;
	bool g2_started = false;
	pthread_t g2_tid;
	struct g2_job g2 = { 0 };
	int rc = 0;

	if (n_w != n_all) {
		rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
				   "prove: witness has %zu values, the circuit needs %" PRIu64
				   " (%" PRIu64 " inputs with ONE + %" PRIu64 " aux)",
				   n_w, n_in + n_aux, n_in, n_aux);
		goto out;
	}
	if (!be->host_visible) {
		rc = zkp_error_set(err, ZKP_ERR_UNSUPPORTED,
				   "prove: backend %s keeps its memory off the host; the prover "
				   "needs host-visible buffers", be->ops->name);
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

	const unsigned log_n = dims->domain_log2;
	const size_t n = (size_t)1 << log_n;

	/* eval: a, b, c over the circuit rows, the input rows, zero padding. */
	t0 = now();
	for (int i = 0; i < 3; i++) {
		rc = zkp_backend_alloc(be, &bufs[i], n * sizeof(zkp_fr));
		if (rc) {
			zkp_error_set(err, rc, "prove: cannot allocate %zu bytes for a, b, c",
				      3 * n * sizeof(zkp_fr));
			goto out;
		}
	}
	zkp_fr *a = bufs[0].ptr, *b = bufs[1].ptr, *c = bufs[2].ptr;
	zkp_pce_eval(pce, w, a, b, c, pool);
	memcpy(a + m, w, n_in * sizeof(zkp_fr));
	memset(a + m + n_in, 0, (n - m - n_in) * sizeof(zkp_fr));
	memset(b + m, 0, (n - m) * sizeof(zkp_fr));
	memset(c + m, 0, (n - m) * sizeof(zkp_fr));
	tm.eval = now() - t0;
	if (on_stage)
		on_stage(arg, ZKP_GROTH16_STAGE_EVAL);

	/* H. */
	t0 = now();
	dom_mem = aligned_alloc(64, (zkp_ntt_domain_mem_size(log_n) + 63) & ~(size_t)63);
	if (!dom_mem) {
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
				 &shift, dom_mem, pool);
	if (rc) {
		zkp_error_set(err, rc, "prove: NTT domain of 2^%u points", log_n);
		goto out;
	}
	const zkp_ntt_opts to_coeffs = { true, false, ZKP_NTT_NATURAL, ZKP_NTT_BITREV };
	const zkp_ntt_opts to_coset = { false, true, ZKP_NTT_BITREV, ZKP_NTT_NATURAL };
	for (int i = 0; i < 3 && !rc; i++) {
		rc = zkp_backend_ntt(be, &bufs[i], &dom, &to_coeffs);
		if (!rc)
			rc = zkp_backend_ntt(be, &bufs[i], &dom, &to_coset);
	}
	if (!rc)
		rc = zkp_backend_sync(be);
	if (rc) {
		zkp_error_set(err, rc, "prove: NTT on backend %s failed", be->ops->name);
		goto out;
	}
	if (snarkjs) {
		pointwise(a, b, c, n, NULL, pool);
	} else {
		/* Z(X) = X^n - 1 takes the single value g^n - 1 on the coset g H. */
		zkp_fr zinv, one;
		uint64_t e = n;
		zkp_fr_pow(&zinv, &shift, &e, 1);
		zkp_fr_set_one(&one);
		zkp_fr_sub(&zinv, &zinv, &one);
		zkp_fr_inv(&zinv, &zinv);
		pointwise(a, b, c, n, &zinv, pool);
		const zkp_ntt_opts from_coset = { true, true, ZKP_NTT_NATURAL, ZKP_NTT_NATURAL };
		rc = zkp_backend_ntt(be, &bufs[0], &dom, &from_coset);
		if (!rc)
			rc = zkp_backend_sync(be);
		if (rc) {
			zkp_error_set(err, rc, "prove: inverse coset NTT failed");
			goto out;
		}
	}
	if (on_stage)
		on_stage(arg, ZKP_GROTH16_STAGE_NTT);
	/* b and c are no longer needed: free them before the MSMs' workspaces. */
	zkp_backend_release(be, &bufs[1]);
	zkp_backend_release(be, &bufs[2]);
	tm.ntt = now() - t0;

	/* MSMs: B_G2 on its own thread, the G1 ones here. */
	if (compact) {
		size_t words = (n_all + 63) / 64;
		dens_a = calloc(words ? words : 1, sizeof(uint64_t));
		dens_b = calloc(words ? words : 1, sizeof(uint64_t));
		if (!dens_a || !dens_b) {
			rc = zkp_error_set(err, ZKP_ERR_NOMEM, "prove: no memory for densities");
			goto out;
		}
		join_density(dens_a, NULL, n_in, zkp_pce_density_a_aux(pce), n_aux);
		join_density(dens_b, zkp_pce_density_b_input(pce), n_in,
			     zkp_pce_density_b_aux(pce), n_aux);
	}
	rc = zkp_backend_import_host(be, &b2_bases, pk->b_g2, pk->n[ZKP_GROTH16_B_G2] *
							       sizeof(zkp_g2_affine));
	if (!rc)
		rc = zkp_backend_import_host(be, &w_buf, w, n_all * sizeof(zkp_fr));
	if (rc) {
		zkp_error_set(err, rc, "prove: backend refused the B_G2 query");
		goto out;
	}
	g2.be = be;
	g2.bases = &b2_bases;
	g2.scalars = &w_buf;
	g2.density = dens_b;
	g2.n = n_all;
	if (pthread_create(&g2_tid, NULL, g2_thread, &g2)) {
		/* No thread to spare: run it here, before the G1 MSMs. */
		g2_thread(&g2);
	} else {
		g2_started = true;
	}

	zkp_g1 sum_h, sum_l, sum_a, sum_b1;
	double t_g1 = now();
	{
		zkp_dbuf hb = { 0 };
		double th = now();
		rc = zkp_backend_import_host(be, &hb, pk->h,
					     pk->n[ZKP_GROTH16_H] * sizeof(zkp_g1_affine));
		if (!rc)
			rc = zkp_backend_msm_g1(be, &sum_h, &hb, &bufs[0], NULL,
						pk->n[ZKP_GROTH16_H], NULL);
		zkp_backend_release(be, &hb);
		tm.msm_h = now() - th;
	}
	if (!rc)
		rc = msm_g1_host(be, &sum_l, pk->l, pk->n[ZKP_GROTH16_L], w + n_in, NULL,
				 (size_t)n_aux, &tm.msm_l);
	if (!rc)
		rc = msm_g1_host(be, &sum_a, pk->a, pk->n[ZKP_GROTH16_A], w, dens_a, n_all,
				 &tm.msm_a);
	if (!rc)
		rc = msm_g1_host(be, &sum_b1, pk->b_g1, pk->n[ZKP_GROTH16_B_G1], w, dens_b, n_all,
				 &tm.msm_b_g1);
	tm.g1_msms = now() - t_g1;
	if (g2_started) {
		pthread_join(g2_tid, NULL);
		g2_started = false;
	}
	tm.msm_b_g2 = g2.secs;
	if (!rc)
		rc = g2.rc;
	if (rc) {
		zkp_error_set(err, rc, "prove: MSM on backend %s failed", be->ops->name);
		goto out;
	}
	if (on_stage)
		on_stage(arg, ZKP_GROTH16_STAGE_MSM);

	/* Assembly. */
	t0 = now();
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

	/* A = alpha + sum_a + r delta */
	zkp_g1_mul_fr(&t1, &delta1, &r);
	zkp_g1_add(&pa, &sum_a, &t1);
	zkp_g1_add_affine(&pa, &pa, &vk->alpha_g1);
	/* B = beta + sum_b + s delta, in G2 and G1 */
	zkp_g2_from_affine(&t2, &vk->delta_g2);
	zkp_g2_mul_fr(&t2, &t2, &s);
	zkp_g2_add(&pb2, &g2.ret, &t2);
	zkp_g2_add_affine(&pb2, &pb2, &vk->beta_g2);
	zkp_g1_mul_fr(&t1, &delta1, &s);
	zkp_g1_add(&pb1, &sum_b1, &t1);
	zkp_g1_add_affine(&pb1, &pb1, &vk->beta_g1);
	/* C = s A + r B_1 - r s delta + L + H */
	zkp_g1_mul_fr(&pc, &pa, &s);
	zkp_g1_mul_fr(&t1, &pb1, &r);
	zkp_g1_add(&pc, &pc, &t1);
	zkp_g1_mul_fr(&t1, &delta1, &rs);
	zkp_g1_neg(&t1, &t1);
	zkp_g1_add(&pc, &pc, &t1);
	zkp_g1_add(&pc, &pc, &sum_l);
	zkp_g1_add(&pc, &pc, &sum_h);

	zkp_groth16_proof out_proof;
	zkp_g1_to_affine(&out_proof.a, &pa);
	zkp_g2_to_affine(&out_proof.b, &pb2);
	zkp_g1_to_affine(&out_proof.c, &pc);
	tm.assemble = now() - t0;

	/* Verify before answering. */
	t0 = now();
	rc = zkp_groth16_pvk_new(&pvk, vk);
	if (rc) {
		zkp_error_set(err, rc, "prove: the key's verifying key cannot be prepared");
		goto out;
	}
	rc = zkp_groth16_verify(pvk, w + 1, (size_t)(n_in - 1), &out_proof);
	tm.verify = now() - t0;
	if (rc == ZKP_GROTH16_INVALID) {
		rc = explain_failure(pce, w, pool, err);
		goto out;
	}
	if (rc) {
		zkp_error_set(err, rc, "prove: verification failed to run");
		goto out;
	}
	*proof = out_proof;

out:
	if (g2_started)
		pthread_join(g2_tid, NULL);
	zkp_groth16_pvk_free(pvk);
	zkp_backend_release(be, &w_buf);
	zkp_backend_release(be, &b2_bases);
	for (int i = 0; i < 3; i++)
		zkp_backend_release(be, &bufs[i]);
	free(dom_mem);
	free(dens_a);
	free(dens_b);
	tm.total = now() - t_start;
	if (times)
		*times = tm;
	return rc;
}
