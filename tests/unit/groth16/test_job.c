/*
 * The staged prover (groth16_job.h) on PoRep-shaped synthetic circuits
 * (domains 2^10 and 2^12) with INSECURE development keys in both H
 * conventions: the stages in a row give proofs that verify, also when
 * stages run on other threads and two jobs interleave; a job freed after
 * any stage (the G2 thread still running included) leaks nothing under the
 * sanitizers; out-of-order stages and stages after a failure answer
 * ZKP_ERR_INVAL; shape errors come from job_new and unsatisfied witnesses
 * from finish, naming the row; times fill stage by stage; the memory model
 * is positive and consistent.
 */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "g16_circuit.h"
#include "zkpd/backend.h"
#include "zkpd/groth16_job.h"
#include "zkpd/groth16_prove.h"

/* One circuit, its key, a pool and a CPU backend. */
struct env {
	struct g16t_circuit c;
	zkp_groth16_pk pk;
	zkp_pool *pool;
	zkp_backend *be;
};

static void env_new(struct env *e, uint64_t n_constraints, enum zkp_groth16_h_conv conv,
		    unsigned workers)
{
	zkp_error err = { 0 };
	uint64_t seed = tu_rand64();
	assert_int_equal(zkp_pool_new(&e->pool, workers), 0);
	assert_int_equal(zkp_backend_cpu_new(&e->be, e->pool), 0);
	g16t_synth_circuit(&e->c, n_constraints, tu_rand64(), "job.pce");
	int rc = zkp_groth16_setup_dev(&e->pk, e->c.pce, conv, &seed, NULL, e->pool, &err);
	if (rc)
		fail_msg("setup: %s", zkp_error_text(&err, rc));
}

static void env_free(struct env *e)
{
	zkp_groth16_pk_release(&e->pk);
	g16t_circuit_free(&e->c);
	zkp_backend_free(e->be);
	zkp_pool_free(e->pool);
}

static zkp_groth16_job *job_new_ok(const struct env *e)
{
	zkp_error err = { 0 };
	zkp_groth16_job *job = NULL;
	int rc = zkp_groth16_job_new(&job, e->c.pce, &e->pk, e->c.w, e->c.n_w, e->be, e->pool,
				     &err);
	if (rc)
		fail_msg("job_new: %s", zkp_error_text(&err, rc));
	assert_non_null(job);
	return job;
}

static int verify(const struct env *e, const zkp_groth16_proof *p)
{
	zkp_groth16_pvk *pvk;
	assert_int_equal(zkp_groth16_pvk_new(&pvk, &e->pk.vk), 0);
	size_t n_pub = (size_t)zkp_pce_get_dims(e->c.pce)->n_inputs - 1;
	int rc = zkp_groth16_verify(pvk, e->c.w + 1, n_pub, p);
	zkp_groth16_pvk_free(pvk);
	return rc;
}

/* Runs stage k (0 eval, 1 ntt, 2 msm, 3 finish) and fails the test on error. */
static void stage_ok(zkp_groth16_job *job, int k, zkp_groth16_proof *p,
		     const zkp_groth16_pvk *pvk)
{
	zkp_error err = { 0 };
	int rc;
	switch (k) {
	case 0: rc = zkp_groth16_job_eval(job, &err); break;
	case 1: rc = zkp_groth16_job_ntt(job, &err); break;
	case 2: rc = zkp_groth16_job_msm(job, &err); break;
	default: rc = zkp_groth16_job_finish(job, p, pvk, &err); break;
	}
	if (rc)
		fail_msg("stage %d: %s", k, zkp_error_text(&err, rc));
}

/* The spans tile the stage calls: their sum is the calls' total, up to
 * rounding (they are differences of the same clock readings). */
static void spans_tile(const zkp_groth16_prove_times *t)
{
	double sum = zkp_groth16_spans_sum(t);
	if (sum - t->total > 1e-6 || t->total - sum > 1e-6)
		fail_msg("spans sum to %.9f s, the stage calls took %.9f s", sum, t->total);
}

static const enum zkp_groth16_h_conv convs[] = { ZKP_GROTH16_H_BELLMAN, ZKP_GROTH16_H_SNARKJS };
static const uint64_t sizes[] = { 1000, 4000 }; /* domains 2^10, 2^12 */

/* ---- tests ---- */

static void test_stages_and_times(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < 2; ci++) {
		for (size_t si = 0; si < 2; si++) {
			struct env e;
			env_new(&e, sizes[si], convs[ci], 1);
			assert_int_equal(zkp_pce_get_dims(e.c.pce)->domain_log2, 10 + 2 * si);
			zkp_groth16_job *job = job_new_ok(&e);
			zkp_groth16_prove_times t;
			zkp_groth16_proof p;

			zkp_groth16_job_times(job, &t);
			assert_true(zkp_groth16_spans_sum(&t) == 0 && t.total == 0);
			stage_ok(job, 0, NULL, NULL);
			zkp_groth16_job_times(job, &t);
			assert_true(t.span[ZKP_GROTH16_SPAN_EVAL] > 0 &&
				    t.span[ZKP_GROTH16_SPAN_SAT_CHECK] > 0);
			/* The CPU backend is host-visible: nothing to upload. */
			assert_true(t.span[ZKP_GROTH16_SPAN_UPLOAD] == 0 &&
				    t.span[ZKP_GROTH16_SPAN_NTT] == 0);
			spans_tile(&t);
			stage_ok(job, 1, NULL, NULL);
			zkp_groth16_job_times(job, &t);
			assert_true(t.span[ZKP_GROTH16_SPAN_NTT] > 0 && zkp_groth16_g1_msms(&t) == 0);
			spans_tile(&t);
			stage_ok(job, 2, NULL, NULL);
			zkp_groth16_job_times(job, &t);
			for (int k = ZKP_GROTH16_SPAN_MSM_SETUP; k <= ZKP_GROTH16_SPAN_MSM_B_G1; k++)
				assert_true(t.span[k] > 0);
			assert_true(t.span[ZKP_GROTH16_SPAN_G2_WAIT] == 0 &&
				    t.span[ZKP_GROTH16_SPAN_ASSEMBLE] == 0 &&
				    t.span[ZKP_GROTH16_SPAN_VERIFY] == 0);
			spans_tile(&t);
			stage_ok(job, 3, &p, NULL);
			zkp_groth16_job_times(job, &t);
			assert_true(t.msm_b_g2 > 0 && t.span[ZKP_GROTH16_SPAN_ASSEMBLE] > 0 &&
				    t.span[ZKP_GROTH16_SPAN_VERIFY] > 0);
			spans_tile(&t);
			zkp_groth16_job_free(job);
			assert_int_equal(verify(&e, &p), 0);
			env_free(&e);
		}
	}
}

/* Cancellation: a job freed after job_new and after each of eval, ntt and
 * msm (the B_G2 thread usually still running) frees all it holds; the
 * ASan build's leak check and thread checks judge. */
static void test_free_after_each_stage(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < 2; ci++) {
		struct env e;
		env_new(&e, 4000, convs[ci], 1);
		for (int k = 0; k <= 3; k++) {
			zkp_groth16_job *job = job_new_ok(&e);
			for (int s = 0; s < k; s++)
				stage_ok(job, s, NULL, NULL);
			zkp_groth16_job_free(job);
		}
		zkp_groth16_job_free(NULL);
		env_free(&e);
	}
}

static void test_out_of_order(void **state)
{
	(void)state;
	struct env e;
	zkp_error err = { 0 };
	zkp_groth16_proof p;
	env_new(&e, 1000, ZKP_GROTH16_H_BELLMAN, 1);
	zkp_groth16_job *job = job_new_ok(&e);
	assert_int_equal(zkp_groth16_job_ntt(job, &err), ZKP_ERR_INVAL);
	if (!strstr(err.msg, "order"))
		fail_msg("message: %s", err.msg);
	assert_int_equal(zkp_groth16_job_msm(job, &err), ZKP_ERR_INVAL);
	assert_int_equal(zkp_groth16_job_finish(job, &p, NULL, &err), ZKP_ERR_INVAL);
	/* A refused call leaves the job where it was. */
	stage_ok(job, 0, NULL, NULL);
	assert_int_equal(zkp_groth16_job_eval(job, &err), ZKP_ERR_INVAL);
	assert_int_equal(zkp_groth16_job_msm(job, &err), ZKP_ERR_INVAL);
	stage_ok(job, 1, NULL, NULL);
	assert_int_equal(zkp_groth16_job_ntt(job, &err), ZKP_ERR_INVAL);
	stage_ok(job, 2, NULL, NULL);
	assert_int_equal(zkp_groth16_job_eval(job, &err), ZKP_ERR_INVAL);
	assert_int_equal(zkp_groth16_job_msm(job, &err), ZKP_ERR_INVAL);
	stage_ok(job, 3, &p, NULL);
	assert_int_equal(zkp_groth16_job_finish(job, &p, NULL, &err), ZKP_ERR_INVAL);
	zkp_groth16_job_free(job);
	assert_int_equal(verify(&e, &p), 0);
	env_free(&e);
}

static void test_refusals(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < 2; ci++) {
		struct env e;
		zkp_error err = { 0 };
		zkp_groth16_proof p;
		zkp_groth16_job *job = NULL;
		env_new(&e, 1000, convs[ci], 1);

		/* Witness length: refused before anything is allocated. */
		int rc = zkp_groth16_job_new(&job, e.c.pce, &e.pk, e.c.w, e.c.n_w - 1, e.be,
					     e.pool, &err);
		assert_int_equal(rc, ZKP_ERR_MISMATCH);
		assert_null(job);
		/* w[0] must be ONE. */
		zkp_fr one = e.c.w[0];
		zkp_fr_add(&e.c.w[0], &e.c.w[0], &ZKP_FR_ONE);
		rc = zkp_groth16_job_new(&job, e.c.pce, &e.pk, e.c.w, e.c.n_w, e.be, e.pool, &err);
		assert_int_equal(rc, ZKP_ERR_INVAL);
		assert_null(job);
		e.c.w[0] = one;

		/* Unsatisfied witness: eval refuses it, naming the first row that
		 * fails (the one zkp_pce_check names), before NTT and MSM. */
		size_t col = (size_t)zkp_pce_get_dims(e.c.pce)->n_inputs + 10;
		zkp_fr_add(&e.c.w[col], &e.c.w[col], &ZKP_FR_ONE);
		uint64_t row;
		assert_int_equal(zkp_pce_check(e.c.pce, e.c.w, &row, NULL, NULL),
				 ZKP_ERR_UNSATISFIED);
		job = job_new_ok(&e);
		rc = zkp_groth16_job_eval(job, &err);
		assert_int_equal(rc, ZKP_ERR_UNSATISFIED);
		char want[64];
		snprintf(want, sizeof(want), "row %" PRIu64 " ", row);
		if (!strstr(err.msg, want))
			fail_msg("message does not name %s: %s", want, err.msg);
		/* After a failure every stage answers ZKP_ERR_INVAL. */
		assert_int_equal(zkp_groth16_job_finish(job, &p, NULL, &err), ZKP_ERR_INVAL);
		if (!strstr(err.msg, "failed"))
			fail_msg("message: %s", err.msg);
		assert_int_equal(zkp_groth16_job_eval(job, &err), ZKP_ERR_INVAL);
		assert_int_equal(zkp_groth16_job_ntt(job, &err), ZKP_ERR_INVAL);
		assert_int_equal(zkp_groth16_job_msm(job, &err), ZKP_ERR_INVAL);
		zkp_groth16_job_free(job);
		env_free(&e);
	}
}

/* finish with a prepared vk the caller keeps for many jobs. */
static void test_caller_pvk(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < 2; ci++) {
		struct env e;
		zkp_groth16_pvk *pvk;
		env_new(&e, 1000, convs[ci], 1);
		assert_int_equal(zkp_groth16_pvk_new(&pvk, &e.pk.vk), 0);
		for (int it = 0; it < 2; it++) {
			zkp_groth16_proof p;
			zkp_groth16_job *job = job_new_ok(&e);
			for (int k = 0; k < 4; k++)
				stage_ok(job, k, &p, pvk);
			zkp_groth16_job_free(job);
			assert_int_equal(verify(&e, &p), 0);
		}
		zkp_groth16_pvk_free(pvk);
		env_free(&e);
	}
}

struct stage_arg {
	zkp_groth16_job *job;
	int k;
	zkp_groth16_proof *p;
};

static void *stage_thread(void *arg)
{
	struct stage_arg *a = arg;
	stage_ok(a->job, a->k, a->p, NULL);
	return NULL;
}

/* Each stage on a thread of its own (the G2 thread is joined by another
 * thread than the one that started it), and two jobs on one circuit and
 * key interleaved stage by stage. */
static void test_threads_and_interleaving(void **state)
{
	(void)state;
	struct env e;
	zkp_groth16_proof p[2];
	env_new(&e, 1000, ZKP_GROTH16_H_BELLMAN, 2);
	zkp_groth16_job *jobs[2] = { job_new_ok(&e), job_new_ok(&e) };
	for (int k = 0; k < 4; k++) {
		for (int j = 0; j < 2; j++) {
			pthread_t tid;
			struct stage_arg a = { jobs[j], k, &p[j] };
			assert_int_equal(pthread_create(&tid, NULL, stage_thread, &a), 0);
			assert_int_equal(pthread_join(tid, NULL), 0);
		}
	}
	for (int j = 0; j < 2; j++) {
		zkp_groth16_job_free(jobs[j]);
		assert_int_equal(verify(&e, &p[j]), 0);
	}
	assert_false(zkp_g1_affine_eq(&p[0].a, &p[1].a));
	env_free(&e);
}

static void test_mem_model(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < 2; ci++) {
		for (size_t si = 0; si < 2; si++) {
			struct env e;
			zkp_groth16_mem_model m1, m4;
			env_new(&e, sizes[si], convs[ci], 1);
			const zkp_pce_dims *d = zkp_pce_get_dims(e.c.pce);
			const double n = (double)((size_t)1 << d->domain_log2);
			const double n_all = (double)(d->n_inputs + d->n_aux);
			const double fr = (double)sizeof(zkp_fr);
			zkp_groth16_mem_model_of(&m1, e.c.pce, &e.pk, 1);
			zkp_groth16_mem_model_of(&m4, e.c.pce, &e.pk, 4);
			const zkp_groth16_mem_model *ms[2] = { &m1, &m4 };
			for (int i = 0; i < 2; i++) {
				const zkp_groth16_mem_model *m = ms[i];
				assert_true(m->circuit > 0 && m->key > 0 && m->key_src >= 0);
				assert_true(m->witness > 0 && m->abc > 0 && m->domain > 0);
				assert_true(m->dens > 0 && m->msm_g1 > 0 && m->msm_g2 > 0);
				assert_true(m->key == (double)e.pk.mem_bytes);
				assert_true(m->witness == fr * n_all);
				assert_true(m->abc == 3.0 * fr * n);
				assert_true(m->circuit >= (double)zkp_pce_mapped_bytes(e.c.pce));
				assert_true(m->ws_eval == m->witness + m->abc + m->domain);
				assert_true(m->ws_msm == m->witness + m->abc / 3.0 + m->domain + m->dens +
								 m->msm_g1 + m->msm_g2);
				assert_true(m->ws == (m->ws_eval > m->ws_msm ? m->ws_eval : m->ws_msm));
				/* The MSM terms follow the points present, the witness's
				 * MSMs in split mode (zeros skipped, ones summed). */
				unsigned t = i ? 4 : 1;
				const zkp_msm_opts split = { ZKP_MSM_AUTO, 0, true, 0, NULL };
				assert_true(m->msm_g2 ==
					    (double)zkp_msm_g2_scratch_size(e.pk.n[ZKP_GROTH16_B_G2], t,
									    &split));
				assert_true(m->msm_g1 >=
					    (double)zkp_msm_g1_scratch_size(e.pk.n[ZKP_GROTH16_H], t, NULL));
			}
			/* Only the MSM scratch depends on the thread count. */
			assert_true(m1.circuit == m4.circuit && m1.key == m4.key);
			assert_true(m1.ws_eval == m4.ws_eval);
			env_free(&e);
		}
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stages_and_times),
		cmocka_unit_test(test_free_after_each_stage),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_caller_pvk),
		cmocka_unit_test(test_threads_and_interleaving),
		cmocka_unit_test(test_mem_model),
	};
	return cmocka_run_group_tests(tests, g16t_setup_tmp, g16t_teardown_tmp);
}
