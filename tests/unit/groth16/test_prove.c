/*
 * Prover and INSECURE development setup: setup -> prove -> verify on
 * PoRep-shaped synthetic circuits (domains 2^10 .. 2^14) and random small
 * circuits; randomized proofs differ and all verify; unsatisfied witnesses
 * name the row; tampered proofs and inputs are rejected; the thread count
 * does not change validity; keys round-trip through the .params and .vk
 * writers and loaders.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "g16_circuit.h"
#include "zkpd/backend.h"
#include "zkpd/bitpack.h"
#include "zkpd/groth16_io.h"
#include "zkpd/groth16_job.h"
#include "zkpd/groth16_prove.h"

static void load_pce(struct g16t_circuit *c, const char *path)
{
	zkp_error err = { 0 };
	int rc = zkp_pce_load(&c->pce, path, 0, &err);
	if (rc)
		fail_msg("load %s: %s", path, zkp_error_text(&err, rc));
}

/* A random satisfiable circuit: each row takes random linear combinations
 * of earlier variables for A and B and defines a new aux variable in C. */
/* ... and `extra` more aux variables (random values, each row's A reading
 * one of them), so the witness can be many times longer than the domain. */
static void random_circuit_wide(struct g16t_circuit *c, size_t n_inputs, size_t rows,
				size_t extra, const char *name)
{
	char path[128];
	zkp_error err = { 0 };
	zkp_pce_builder *b;
	size_t n_aux = rows + 2 + extra;
	g16t_tmp_path(path, sizeof(path), name);
	c->n_w = n_inputs + n_aux;
	c->w = malloc(c->n_w * sizeof(zkp_fr));
	assert_non_null(c->w);
	zkp_fr_set_one(&c->w[0]);
	for (size_t i = 1; i < n_inputs + 2; i++)
		tu_rand_fr(&c->w[i]);
	for (size_t i = c->n_w - extra; i < c->n_w; i++)
		tu_rand_fr(&c->w[i]);
	assert_int_equal(zkp_pce_builder_new(&b, n_inputs, n_aux), 0);
	size_t known = n_inputs + 2;
	for (size_t r = 0; r < rows; r++) {
		zkp_pce_term ta[4], tb[4], tc[1];
		size_t na = 1 + tu_rand64() % 4, nb = tu_rand64() % 4;
		zkp_fr av, bv, t;
		zkp_fr_set_zero(&av);
		zkp_fr_set_zero(&bv);
		for (size_t k = 0; k < na; k++) {
			ta[k].col = (uint32_t)(tu_rand64() % known);
			if (extra && k == 0) /* every row reads one of the extra variables */
				ta[k].col = (uint32_t)(c->n_w - 1 - tu_rand64() % extra);
			if (tu_rand64() % 2)
				zkp_fr_set_one(&ta[k].coeff);
			else
				tu_rand_fr(&ta[k].coeff);
			zkp_fr_mul(&t, &ta[k].coeff, &c->w[ta[k].col]);
			zkp_fr_add(&av, &av, &t);
		}
		for (size_t k = 0; k < nb; k++) {
			tb[k].col = (uint32_t)(tu_rand64() % known);
			zkp_fr_set_one(&tb[k].coeff);
			if (tu_rand64() % 2)
				zkp_fr_neg(&tb[k].coeff, &tb[k].coeff);
			zkp_fr_mul(&t, &tb[k].coeff, &c->w[tb[k].col]);
			zkp_fr_add(&bv, &bv, &t);
		}
		/* c_col * coeff = av * bv */
		tc[0].col = (uint32_t)known;
		tu_rand_fr(&tc[0].coeff);
		zkp_fr_mul(&t, &av, &bv);
		zkp_fr inv;
		zkp_fr_inv(&inv, &tc[0].coeff);
		zkp_fr_mul(&c->w[known], &t, &inv);
		known++;
		int rc = zkp_pce_builder_add(b, ta, na, tb, nb, tc, 1, &err);
		if (rc)
			fail_msg("builder: %s", zkp_error_text(&err, rc));
	}
	/* The builder merges repeated columns by adding their coefficients,
	 * which keeps A.w and B.w. */
	int rc = zkp_pce_builder_write(b, path, &err);
	zkp_pce_builder_free(b);
	if (rc)
		fail_msg("write: %s", zkp_error_text(&err, rc));
	load_pce(c, path);
	assert_int_equal(zkp_pce_check(c->pce, c->w, NULL, NULL, &err), 0);
}

static void random_circuit(struct g16t_circuit *c, size_t n_inputs, size_t rows, const char *name)
{
	random_circuit_wide(c, n_inputs, rows, 0, name);
}

struct env {
	zkp_pool *pool;
	zkp_backend *be;
};

static void env_new(struct env *e, unsigned workers)
{
	assert_int_equal(zkp_pool_new(&e->pool, workers), 0);
	assert_int_equal(zkp_backend_cpu_new(&e->be, e->pool), 0);
}

static void env_free(struct env *e)
{
	zkp_backend_free(e->be);
	zkp_pool_free(e->pool);
}

static void setup_key_conv(zkp_groth16_pk *pk, const struct g16t_circuit *c, zkp_pool *pool,
			   enum zkp_groth16_h_conv conv)
{
	zkp_error err = { 0 };
	uint64_t seed = tu_rand64();
	int rc = zkp_groth16_setup_dev(pk, c->pce, conv, &seed, NULL, pool, &err);
	if (rc)
		fail_msg("setup: %s", zkp_error_text(&err, rc));
}

static void setup_key(zkp_groth16_pk *pk, const struct g16t_circuit *c, zkp_pool *pool)
{
	setup_key_conv(pk, c, pool, ZKP_GROTH16_H_BELLMAN);
}

static void prove_ok(zkp_groth16_proof *p, const struct g16t_circuit *c, const zkp_groth16_pk *pk,
		     const struct env *e)
{
	zkp_error err = { 0 };
	zkp_groth16_prove_times t;
	int rc = zkp_groth16_prove(p, &t, c->pce, pk, c->w, c->n_w, e->be, e->pool, &err);
	if (rc)
		fail_msg("prove: %s", zkp_error_text(&err, rc));
}

static int verify(const zkp_groth16_vk *vk, const struct g16t_circuit *c, const zkp_fr *pub,
		  const zkp_groth16_proof *p)
{
	zkp_groth16_pvk *pvk;
	assert_int_equal(zkp_groth16_pvk_new(&pvk, vk), 0);
	size_t n_pub = (size_t)zkp_pce_get_dims(c->pce)->n_inputs - 1;
	int rc = zkp_groth16_verify(pvk, pub ? pub : c->w + 1, n_pub, p);
	zkp_groth16_pvk_free(pvk);
	return rc;
}

/* ---- tests ---- */

static void test_synth_sizes(void **state)
{
	(void)state;
	static const uint64_t sizes[] = { 1000, 4000, 16000 }; /* domains 2^10, 2^12, 2^14 */
	size_t n_sizes = sizeof(sizes) / sizeof(sizes[0]);
#ifdef __SANITIZE_ADDRESS__
	/* The 2^14 setup alone takes about 8 s under the sanitizers. */
	n_sizes = getenv("ZKPD_TEST_SLOW") ? n_sizes : n_sizes - 1;
#endif
	struct env e;
	env_new(&e, 1);
	for (size_t i = 0; i < n_sizes; i++) {
		struct g16t_circuit c;
		zkp_groth16_pk pk;
		zkp_groth16_proof p;
		double t0 = g16t_now();
		g16t_synth_circuit(&c, sizes[i], tu_rand64(), "synth.pce");
		assert_int_equal(zkp_pce_get_dims(c.pce)->domain_log2, 10 + 2 * i);
		setup_key(&pk, &c, e.pool);
		double t1 = g16t_now();
		prove_ok(&p, &c, &pk, &e);
		assert_int_equal(verify(&pk.vk, &c, NULL, &p), 0);
		fprintf(stderr, "synth %" PRIu64 ": setup %.2f s, prove %.2f s\n", sizes[i],
			t1 - t0, g16t_now() - t1);
		zkp_groth16_pk_release(&pk);
		g16t_circuit_free(&c);
	}
	env_free(&e);
}

static void test_random_circuits(void **state)
{
	(void)state;
	struct env e;
	env_new(&e, 1);
	for (int it = 0; it < 6; it++) {
		struct g16t_circuit c;
		zkp_groth16_pk pk;
		zkp_groth16_proof p;
		size_t n_in = 1 + tu_rand64() % 5, rows = 1 + tu_rand64() % 200;
		random_circuit(&c, n_in, rows, "rand.pce");
		setup_key(&pk, &c, e.pool);
		prove_ok(&p, &c, &pk, &e);
		assert_int_equal(verify(&pk.vk, &c, NULL, &p), 0);
		zkp_groth16_pk_release(&pk);
		g16t_circuit_free(&c);
	}
	env_free(&e);
}

static void test_randomized_and_tampered(void **state)
{
	(void)state;
	struct env e;
	struct g16t_circuit c;
	zkp_groth16_pk pk;
	env_new(&e, 1);
	random_circuit(&c, 4, 100, "tamper.pce");
	setup_key(&pk, &c, e.pool);
	zkp_groth16_proof p[3];
	for (int i = 0; i < 3; i++) {
		prove_ok(&p[i], &c, &pk, &e);
		assert_int_equal(verify(&pk.vk, &c, NULL, &p[i]), 0);
	}
	assert_false(zkp_g1_affine_eq(&p[0].a, &p[1].a));
	assert_false(zkp_g2_affine_eq(&p[0].b, &p[1].b));
	assert_false(zkp_g1_affine_eq(&p[1].c, &p[2].c));

	/* Tampered points. */
	zkp_g1 g;
	zkp_groth16_proof t = p[0];
	zkp_g1_from_affine(&g, &t.a);
	zkp_g1_add_affine(&g, &g, &ZKP_G1_GENERATOR);
	zkp_g1_to_affine(&t.a, &g);
	assert_int_equal(verify(&pk.vk, &c, NULL, &t), ZKP_GROTH16_INVALID);
	t = p[0];
	zkp_g1_from_affine(&g, &t.c);
	zkp_g1_dbl(&g, &g);
	zkp_g1_to_affine(&t.c, &g);
	assert_int_equal(verify(&pk.vk, &c, NULL, &t), ZKP_GROTH16_INVALID);
	t = p[0];
	t.b = p[1].b;
	assert_int_equal(verify(&pk.vk, &c, NULL, &t), ZKP_GROTH16_INVALID);
	/* Tampered public input. */
	zkp_fr pub[3];
	memcpy(pub, c.w + 1, sizeof(pub));
	zkp_fr_add(&pub[1], &pub[1], &ZKP_FR_ONE);
	assert_int_equal(verify(&pk.vk, &c, pub, &p[0]), ZKP_GROTH16_INVALID);
	/* Through the byte encoding. */
	uint8_t bytes[ZKP_GROTH16_PROOF_BYTES];
	zkp_groth16_proof back;
	zkp_error err = { 0 };
	zkp_groth16_proof_to_bytes(bytes, &p[0]);
	assert_int_equal(zkp_groth16_proof_from_bytes(&back, bytes, &err), 0);
	assert_int_equal(verify(&pk.vk, &c, NULL, &back), 0);

	zkp_groth16_pk_release(&pk);
	g16t_circuit_free(&c);
	env_free(&e);
}

static void test_refusals(void **state)
{
	(void)state;
	struct env e;
	struct g16t_circuit c, other;
	zkp_groth16_pk pk, pk_other;
	zkp_groth16_proof p;
	zkp_error err = { 0 };
	env_new(&e, 1);
	g16t_synth_circuit(&c, 1000, tu_rand64(), "bad.pce");
	setup_key(&pk, &c, e.pool);

	/* Unsatisfied witness: the error names the row. */
	size_t col = (size_t)zkp_pce_get_dims(c.pce)->n_inputs + 10;
	zkp_fr saved = c.w[col];
	zkp_fr_add(&c.w[col], &c.w[col], &ZKP_FR_ONE);
	uint64_t row;
	assert_int_equal(zkp_pce_check(c.pce, c.w, &row, NULL, NULL), ZKP_ERR_UNSATISFIED);
	int rc = zkp_groth16_prove(&p, NULL, c.pce, &pk, c.w, c.n_w, e.be, e.pool, &err);
	assert_int_equal(rc, ZKP_ERR_UNSATISFIED);
	char want[64];
	snprintf(want, sizeof(want), "row %" PRIu64, row);
	if (!strstr(err.msg, want))
		fail_msg("message does not name %s: %s", want, err.msg);
	c.w[col] = saved;

	/* Witness length. */
	rc = zkp_groth16_prove(&p, NULL, c.pce, &pk, c.w, c.n_w - 1, e.be, e.pool, &err);
	assert_int_equal(rc, ZKP_ERR_MISMATCH);

	/* A key for another circuit shape. */
	random_circuit(&other, 2, 50, "other.pce");
	setup_key(&pk_other, &other, e.pool);
	rc = zkp_groth16_prove(&p, NULL, c.pce, &pk_other, c.w, c.n_w, e.be, e.pool, &err);
	assert_int_equal(rc, ZKP_ERR_MISMATCH);
	/* A key for the same shape but other matrices: caught by the final
	 * verification. */
	struct g16t_circuit same;
	zkp_groth16_pk pk_same;
	g16t_synth_circuit(&same, 1000, tu_rand64(), "same.pce");
	setup_key(&pk_same, &same, e.pool);
	rc = zkp_groth16_prove(&p, NULL, c.pce, &pk_same, c.w, c.n_w, e.be, e.pool, &err);
	if (rc != ZKP_ERR_MISMATCH)
		fail_msg("other key: %d %s", rc, err.msg);
	if (!strstr(err.msg, "verif"))
		fail_msg("message does not say the proof failed verification: %s", err.msg);

	zkp_groth16_pk_release(&pk_same);
	g16t_circuit_free(&same);
	zkp_groth16_pk_release(&pk_other);
	g16t_circuit_free(&other);
	zkp_groth16_pk_release(&pk);
	g16t_circuit_free(&c);
	env_free(&e);
}

static void test_threads(void **state)
{
	(void)state;
	struct g16t_circuit c;
	zkp_groth16_pk pk;
	struct env e0, e2;
	env_new(&e0, 0);
	env_new(&e2, 2);
	g16t_synth_circuit(&c, 4000, tu_rand64(), "thr.pce");
	setup_key(&pk, &c, e2.pool);
	zkp_groth16_proof p0, p2;
	prove_ok(&p0, &c, &pk, &e0);
	prove_ok(&p2, &c, &pk, &e2);
	assert_int_equal(verify(&pk.vk, &c, NULL, &p0), 0);
	assert_int_equal(verify(&pk.vk, &c, NULL, &p2), 0);
	/* The same seed gives the same key whatever the thread count. */
	zkp_groth16_pk k0, k2;
	zkp_error err = { 0 };
	uint64_t seed = 42;
	assert_int_equal(zkp_groth16_setup_dev(&k0, c.pce, ZKP_GROTH16_H_BELLMAN, &seed, NULL, e0.pool, &err), 0);
	assert_int_equal(zkp_groth16_setup_dev(&k2, c.pce, ZKP_GROTH16_H_BELLMAN, &seed, NULL, e2.pool, &err), 0);
	assert_true(zkp_groth16_vk_eq(&k0.vk, &k2.vk));
	assert_int_equal(k0.mem_bytes, k2.mem_bytes);
	assert_memory_equal(k0.h, k2.h, k0.n[ZKP_GROTH16_H] * sizeof(zkp_g1_affine));
	assert_memory_equal(k0.b_g2, k2.b_g2, k0.n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine));
	zkp_groth16_pk_release(&k0);
	zkp_groth16_pk_release(&k2);
	zkp_groth16_pk_release(&pk);
	g16t_circuit_free(&c);
	env_free(&e0);
	env_free(&e2);
}

/* Keys in snarkjs's convention (5-based roots, full A/B, H on the odd
 * coset of the 2n-point domain) prove through the prover's snarkjs path. */
static void test_snarkjs_convention(void **state)
{
	(void)state;
	struct env e;
	env_new(&e, 1);
	for (int it = 0; it < 4; it++) {
		struct g16t_circuit c;
		zkp_groth16_pk pk;
		zkp_groth16_proof p;
		if (it == 0)
			g16t_synth_circuit(&c, 1000, tu_rand64(), "sj.pce");
		else
			random_circuit(&c, 1 + tu_rand64() % 4, 1 + tu_rand64() % 300, "sj.pce");
		setup_key_conv(&pk, &c, e.pool, ZKP_GROTH16_H_SNARKJS);
		assert_int_equal(pk.h_conv, ZKP_GROTH16_H_SNARKJS);
		assert_int_equal(pk.ab_layout, ZKP_GROTH16_AB_FULL);
		assert_int_equal(pk.n[ZKP_GROTH16_H], pk.domain_size);
		prove_ok(&p, &c, &pk, &e);
		assert_int_equal(verify(&pk.vk, &c, NULL, &p), 0);
		zkp_groth16_pk_release(&pk);
		g16t_circuit_free(&c);
	}
	env_free(&e);
}

/* eval, ntt, msm and finish of a staged job; any failure fails the test,
 * named by what. */
static void run_stages(zkp_groth16_job *job, zkp_groth16_proof *p, const char *what)
{
	zkp_error err = { 0 };
	int rc = zkp_groth16_job_eval(job, &err);
	if (!rc)
		rc = zkp_groth16_job_ntt(job, &err);
	if (!rc)
		rc = zkp_groth16_job_msm(job, &err);
	if (!rc)
		rc = zkp_groth16_job_finish(job, p, NULL, &err);
	if (rc)
		fail_msg("%s: %s", what, zkp_error_text(&err, rc));
}

/* After an eval on the device with B_G2 resident there, the job reads
 * its witness no more: a copy of the witness spoilt right after eval
 * still gives a proof that verifies, and a wrong device result is then
 * a device fault that names the device's row check. Without B_G2 on the
 * device the job still reads the witness. */
static void witness_read_no_more(const struct g16t_circuit *c, const zkp_groth16_pk *pk,
				 const zkp_groth16_resident *rk, zkp_backend *dev, zkp_pool *pool)
{
	zkp_error err = { 0 };
	zkp_groth16_job *job;
	zkp_groth16_proof p;
	size_t bytes = c->n_w * sizeof(zkp_fr);
	zkp_fr *w = malloc(bytes);
	assert_non_null(w);
	memcpy(w, c->w, bytes);
	assert_int_equal(zkp_groth16_job_new(&job, c->pce, pk, w, c->n_w, dev, pool, &err), 0);
	assert_int_equal(zkp_groth16_job_use_resident(job, rk), 0);
	assert_true(zkp_groth16_job_reads_witness(job));
	assert_int_equal(zkp_groth16_job_eval(job, &err), 0);
	assert_false(zkp_groth16_job_reads_witness(job));
	memset(w, 0xa5, bytes);
	/* Its path was chosen by rk: another copy is refused now, rk again not. */
	zkp_groth16_resident *other;
	assert_int_equal(zkp_groth16_resident_new(&other, pk, dev, false, &err), 0);
	assert_int_equal(zkp_groth16_job_use_resident(job, other), ZKP_ERR_INVAL);
	assert_int_equal(zkp_groth16_job_use_resident(job, rk), 0);
	assert_false(zkp_groth16_job_reads_witness(job));
	zkp_groth16_resident_free(other);
	assert_int_equal(zkp_groth16_job_ntt(job, &err), 0);
	assert_int_equal(zkp_groth16_job_msm(job, &err), 0);
	int rc = zkp_groth16_job_finish(job, &p, NULL, &err);
	if (rc)
		fail_msg("prove after the witness was spoilt: %s", zkp_error_text(&err, rc));
	zkp_groth16_job_free(job);
	assert_int_equal(verify(&pk->vk, c, NULL, &p), 0);

	/* Every G1 MSM wrong: the proof does not verify, and nothing is left
	 * on the host to check the rows with. */
	zkp_backend *bad;
	zkp_groth16_resident *rk_bad;
	assert_int_equal(zkp_backend_corrupting_new(&bad, dev, 1), 0);
	assert_int_equal(zkp_groth16_resident_new(&rk_bad, pk, bad, true, &err), 0);
	assert_int_equal(zkp_groth16_resident_hold_circuit(rk_bad, c->pce, &err), 0);
	memcpy(w, c->w, bytes);
	assert_int_equal(zkp_groth16_job_new(&job, c->pce, pk, w, c->n_w, bad, pool, &err), 0);
	assert_int_equal(zkp_groth16_job_use_resident(job, rk_bad), 0);
	assert_int_equal(zkp_groth16_job_eval(job, &err), 0);
	memset(w, 0xa5, bytes);
	assert_int_equal(zkp_groth16_job_ntt(job, &err), 0);
	assert_int_equal(zkp_groth16_job_msm(job, &err), 0);
	assert_int_equal(zkp_groth16_job_finish(job, &p, NULL, &err), ZKP_ERR_DEVICE);
	assert_non_null(strstr(err.msg, "found every row satisfied at eval"));
	zkp_groth16_job_free(job);
	zkp_groth16_resident_free(rk_bad);
	zkp_backend_free(bad);

	/* B_G2 left to the host: it reads the witness at the MSMs. */
	zkp_groth16_resident *rk_g1;
	assert_int_equal(zkp_groth16_resident_new(&rk_g1, pk, dev, false, &err), 0);
	assert_int_equal(zkp_groth16_resident_hold_circuit(rk_g1, c->pce, &err), 0);
	memcpy(w, c->w, bytes);
	assert_int_equal(zkp_groth16_job_new(&job, c->pce, pk, w, c->n_w, dev, pool, &err), 0);
	assert_int_equal(zkp_groth16_job_use_resident(job, rk_g1), 0);
	run_stages(job, &p, "device eval, B_G2 on the host");
	assert_true(zkp_groth16_job_evaluated_on_device(job));
	assert_true(zkp_groth16_job_reads_witness(job));
	zkp_groth16_job_free(job);
	assert_int_equal(verify(&pk->vk, c, NULL, &p), 0);
	zkp_groth16_resident_free(rk_g1);
	free(w);
}

/* The offhost double hides its memory: what a buffer holds differs from
 * what was uploaded, and only download gives it back. */
static void test_offhost_hides(void **state)
{
	(void)state;
	struct env e;
	zkp_backend *oh;
	env_new(&e, 1);
	assert_int_equal(zkp_backend_offhost_new(&oh, e.be), 0);
	assert_false(oh->host_visible);
	zkp_fr in[8], out[8];
	for (int i = 0; i < 8; i++)
		tu_rand_fr(&in[i]);
	zkp_dbuf b = { 0 }, v;
	assert_int_equal(zkp_backend_import_host(oh, &b, in, sizeof(in)), 0);
	assert_true(b.owned);
	assert_memory_not_equal(b.ptr, in, sizeof(in));
	assert_int_equal(zkp_backend_download(oh, out, &b, 0, sizeof(out)), 0);
	assert_memory_equal(out, in, sizeof(in));
	/* A view decodes like the buffer it lies in, and refuses writes. */
	assert_int_equal(zkp_dbuf_view(&v, &b, 3 * sizeof(zkp_fr), 2 * sizeof(zkp_fr)), 0);
	assert_int_equal(zkp_backend_download(oh, out, &v, 0, v.bytes), 0);
	assert_memory_equal(out, &in[3], 2 * sizeof(zkp_fr));
	assert_int_equal(zkp_backend_upload(oh, &v, 0, in, sizeof(zkp_fr)), ZKP_ERR_INVAL);
	assert_int_equal(zkp_dbuf_view(&v, &b, 7 * sizeof(zkp_fr), 2 * sizeof(zkp_fr)),
			 ZKP_ERR_INVAL);
	zkp_backend_release(oh, &v); /* a no-op */
	zkp_backend_release(oh, &b);
	zkp_backend_free(oh);
	assert_int_equal(zkp_backend_offhost_new(&oh, NULL), ZKP_ERR_INVAL);
	assert_null(oh);
	env_free(&e);
}

/* The prover on a backend whose memory the host cannot read (as a GPU's):
 * both H conventions and A/B layouts, with the key's queries imported per
 * proof and from a resident copy, and a witness over 3 times the domain
 * (staged for upload in several pieces); every proof verifies. */
static void test_device_backend(void **state)
{
	(void)state;
	struct env e;
	zkp_backend *oh;
	zkp_error err = { 0 };
	env_new(&e, 2);
	assert_int_equal(zkp_backend_offhost_new(&oh, e.be), 0);
	for (int it = 0; it < 5; it++) {
		struct g16t_circuit c;
		zkp_groth16_pk pk;
		zkp_groth16_proof p;
		if (it == 4)
			random_circuit_wide(&c, 2, 5, 200, "dev.pce"); /* 209 variables, n = 8 */
		else if (it % 2 == 0)
			g16t_synth_circuit(&c, 1000, tu_rand64(), "dev.pce");
		else
			random_circuit(&c, 1 + tu_rand64() % 4, 1 + tu_rand64() % 300, "dev.pce");
		setup_key_conv(&pk, &c, e.pool,
			       it < 2 ? ZKP_GROTH16_H_BELLMAN : ZKP_GROTH16_H_SNARKJS);
		int rc = zkp_groth16_prove(&p, NULL, c.pce, &pk, c.w, c.n_w, oh, e.pool, &err);
		if (rc)
			fail_msg("prove on offhost: %s", zkp_error_text(&err, rc));
		assert_int_equal(verify(&pk.vk, &c, NULL, &p), 0);

		/* Staged, with the queries resident. */
		zkp_groth16_resident *rk, *rk_cpu;
		zkp_groth16_job *job;
		assert_int_equal(zkp_groth16_resident_new(&rk, &pk, oh, true, &err), 0);
		size_t want = (pk.n[ZKP_GROTH16_H] + pk.n[ZKP_GROTH16_L] + pk.n[ZKP_GROTH16_A] +
			       pk.n[ZKP_GROTH16_B_G1]) * sizeof(zkp_g1_affine) +
			      pk.n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine);
		assert_int_equal(zkp_groth16_resident_bytes(rk), want);
		assert_true(zkp_groth16_resident_has_g2(rk));
		/* The device model's resident figures are what the copy holds;
		 * a job's buffers are a, b, c and the witness; the test device
		 * keeps no scratch of its own. */
		zkp_groth16_device_need need;
		zkp_groth16_device_need_of(&need, c.pce, &pk, oh);
		assert_int_equal(need.key_g1 + need.key_g2, want);
		assert_int_equal(need.key_g2, pk.n[ZKP_GROTH16_B_G2] * sizeof(zkp_g2_affine));
		const zkp_pce_dims *dims = zkp_pce_get_dims(c.pce);
		assert_int_equal(need.job, (3 * ((uint64_t)1 << dims->domain_log2) + c.n_w) *
						   sizeof(zkp_fr));
		assert_int_equal(need.tables + need.msm, 0);
		/* Without B_G2 (device memory admission's choice where it does
		 * not fit): the G1 queries alone, and B_G2's MSM on the host. */
		zkp_groth16_resident *rk_g1;
		assert_int_equal(zkp_groth16_resident_new(&rk_g1, &pk, oh, false, &err), 0);
		assert_false(zkp_groth16_resident_has_g2(rk_g1));
		assert_int_equal(zkp_groth16_resident_bytes(rk_g1), need.key_g1);
		assert_int_equal(zkp_groth16_job_new(&job, c.pce, &pk, c.w, c.n_w, oh, e.pool, &err),
				 0);
		assert_int_equal(zkp_groth16_job_use_resident(job, rk_g1), 0);
		run_stages(job, &p, "staged prove on offhost, B_G2 on the host");
		assert_true(zkp_groth16_job_reads_witness(job));
		/* Eval on the host: the whole witness goes up after a, b, c. */
		assert_int_equal(zkp_groth16_job_witness_bytes_up(job), c.n_w * sizeof(zkp_fr));
		zkp_groth16_job_free(job);
		assert_int_equal(verify(&pk.vk, &c, NULL, &p), 0);
		zkp_groth16_resident_free(rk_g1);
		assert_int_equal(zkp_groth16_resident_new(&rk_cpu, &pk, e.be, true, &err), 0);
		assert_int_equal(zkp_groth16_resident_bytes(rk_cpu), 0);
		assert_int_equal(zkp_groth16_job_new(&job, c.pce, &pk, c.w, c.n_w, oh, e.pool, &err),
				 0);
		/* A resident copy on another backend is refused. */
		assert_int_equal(zkp_groth16_job_use_resident(job, rk_cpu), ZKP_ERR_INVAL);
		assert_int_equal(zkp_groth16_job_use_resident(job, rk), 0);
		assert_true(zkp_groth16_job_reads_witness(job));
		run_stages(job, &p, "staged prove on offhost");
		assert_true(zkp_groth16_job_reads_witness(job)); /* eval ran on the host */
		assert_int_equal(zkp_groth16_job_use_resident(job, rk), ZKP_ERR_INVAL);
		zkp_groth16_job_free(job);
		assert_int_equal(verify(&pk.vk, &c, NULL, &p), 0);

		/* With the circuit's matrices resident, eval runs on the device:
		 * spmv and the row check there, the witness uploaded once. */
		assert_int_equal(zkp_groth16_resident_hold_circuit(rk_cpu, c.pce, &err),
				 ZKP_ERR_UNSUPPORTED);
		assert_int_equal(zkp_groth16_resident_hold_circuit(rk, c.pce, &err), 0);
		assert_int_equal(zkp_groth16_resident_hold_circuit(rk, c.pce, &err), 0);
		assert_true(need.matrices > 0);
		assert_int_equal(zkp_groth16_resident_bytes(rk), want + need.matrices);
		assert_int_equal(zkp_groth16_job_new(&job, c.pce, &pk, c.w, c.n_w, oh, e.pool, &err),
				 0);
		assert_int_equal(zkp_groth16_job_use_resident(job, rk), 0);
		run_stages(job, &p, "prove with device eval on offhost");
		assert_false(zkp_groth16_job_reads_witness(job));
		zkp_groth16_prove_times t;
		zkp_groth16_job_times(job, &t);
		assert_true(t.span[ZKP_GROTH16_SPAN_UPLOAD] > 0 && t.span[ZKP_GROTH16_SPAN_SAT_CHECK] > 0);
		/* The witness went up packed where that is smaller and fits c's
		 * buffer (the synthetic circuits' witnesses are mostly 0 and 1),
		 * else whole (the random ones'). */
		size_t n_dense = 0;
		for (size_t i = 0; i < c.n_w; i++)
			n_dense += !zkp_fr_is_zero(&c.w[i]) && !zkp_fr_eq(&c.w[i], &ZKP_FR_ONE);
		size_t packed = zkp_bitpack_bytes(c.n_w, n_dense), plain = c.n_w * sizeof(zkp_fr);
		bool use_packed = packed < plain &&
				  packed <= ((size_t)1 << dims->domain_log2) * sizeof(zkp_fr);
		assert_int_equal(zkp_groth16_job_witness_bytes_up(job), use_packed ? packed : plain);
		if (it % 2 == 0 && it < 4)
			assert_true(use_packed);
		zkp_groth16_job_free(job);
		assert_int_equal(verify(&pk.vk, &c, NULL, &p), 0);
		witness_read_no_more(&c, &pk, rk, oh, e.pool);
		/* A witness that breaks a row is named there. */
		zkp_fr *bad_w = malloc(c.n_w * sizeof(zkp_fr));
		uint64_t want_row = 0;
		size_t col = 1;
		for (; col < c.n_w; col++) {
			memcpy(bad_w, c.w, c.n_w * sizeof(zkp_fr));
			zkp_fr_add(&bad_w[col], &bad_w[col], &ZKP_FR_ONE);
			if (zkp_pce_check(c.pce, bad_w, &want_row, e.pool, NULL) ==
			    ZKP_ERR_UNSATISFIED)
				break;
		}
		assert_true(col < c.n_w);
		assert_int_equal(zkp_groth16_job_new(&job, c.pce, &pk, bad_w, c.n_w, oh, e.pool, &err),
				 0);
		assert_int_equal(zkp_groth16_job_use_resident(job, rk), 0);
		char name[48];
		snprintf(name, sizeof(name), "satisfy row %" PRIu64 " ", want_row);
		assert_int_equal(zkp_groth16_job_eval(job, &err), ZKP_ERR_UNSATISFIED);
		assert_non_null(strstr(err.msg, name));
		zkp_groth16_job_free(job);
		free(bad_w);
		zkp_groth16_resident_free(rk);
		zkp_groth16_resident_free(rk_cpu);
		zkp_groth16_pk_release(&pk);
		g16t_circuit_free(&c);
	}
	zkp_backend_free(oh);
	env_free(&e);
}

static void test_key_files(void **state)
{
	(void)state;
	struct env e;
	struct g16t_circuit c;
	zkp_groth16_pk pk, back;
	zkp_groth16_vk vk;
	zkp_groth16_proof p;
	zkp_error err = { 0 };
	char params[128], vkpath[128];
	env_new(&e, 1);
	random_circuit(&c, 3, 120, "files.pce");
	setup_key(&pk, &c, e.pool);
	g16t_tmp_path(params, sizeof(params), "files.INSECURE-DEV.params");
	g16t_tmp_path(vkpath, sizeof(vkpath), "files.INSECURE-DEV.vk");
	int rc = zkp_groth16_pk_write_params(&pk, params, &err);
	if (!rc)
		rc = zkp_groth16_vk_write_bellman(&pk.vk, vkpath, &err);
	if (rc)
		fail_msg("write: %s", zkp_error_text(&err, rc));
	zkp_groth16_load_opts opts = { .flags = ZKP_GROTH16_NO_CACHE };
	rc = zkp_groth16_pk_load(&back, params, &opts, &err);
	if (rc)
		fail_msg("load: %s", zkp_error_text(&err, rc));
	rc = zkp_groth16_vk_load(&vk, vkpath, 0, &err);
	if (rc)
		fail_msg("vk load: %s", zkp_error_text(&err, rc));
	assert_true(zkp_groth16_vk_eq(&vk, &pk.vk));
	prove_ok(&p, &c, &back, &e);
	assert_int_equal(verify(&vk, &c, NULL, &p), 0);
	zkp_groth16_vk_release(&vk);
	zkp_groth16_pk_release(&back);
	zkp_groth16_pk_release(&pk);
	g16t_circuit_free(&c);
	env_free(&e);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_circuits),
		cmocka_unit_test(test_randomized_and_tampered),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_key_files),
		cmocka_unit_test(test_snarkjs_convention),
		cmocka_unit_test(test_offhost_hides),
		cmocka_unit_test(test_device_backend),
		cmocka_unit_test(test_synth_sizes),
	};
	return cmocka_run_group_tests(tests, g16t_setup_tmp, g16t_teardown_tmp);
}
