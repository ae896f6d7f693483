/*
 * Verifier, batch verifier and proof encodings, on proofs made from known
 * toxic waste (g16_test.h) and on a real snarkjs proof (tests/vectors).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "g16_test.h"
#include "zkpd/groth16_io.h"

static void rand_inputs(zkp_fr *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tu_rand_fr(&x[i]);
}

static zkp_groth16_pvk *prepare(const zkp_groth16_vk *vk)
{
	zkp_groth16_pvk *pvk;
	assert_int_equal(zkp_groth16_pvk_new(&pvk, vk), 0);
	return pvk;
}

/* ---- single proofs ---- */

static void test_valid_proofs(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 2, 5, 39, 100 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		struct g16t_setup s;
		g16t_setup_new(&s, n);
		zkp_groth16_pvk *pvk = prepare(&s.vk);
		zkp_fr x[100];
		rand_inputs(x, n);
		/* Short inputs (bits, indices) take the short wNAF path. */
		if (n > 2)
			zkp_fr_set_u64(&x[1], 12345);
		if (n > 3)
			zkp_fr_set_zero(&x[2]);
		zkp_groth16_proof p;
		g16t_prove(&p, &s, x);
		assert_int_equal(zkp_groth16_verify(pvk, x, n, &p), 0);
		/* The count excludes ONE: anything else is an error, not a "no". */
		assert_int_equal(zkp_groth16_verify(pvk, x, n + 1, &p), ZKP_ERR_MISMATCH);
		if (n)
			assert_int_equal(zkp_groth16_verify(pvk, x, n - 1, &p),
					 ZKP_ERR_MISMATCH);
		zkp_groth16_pvk_free(pvk);
		g16t_setup_free(&s);
	}
}

static void test_pvk_refuses_degenerate(void **state)
{
	(void)state;
	struct g16t_setup s;
	g16t_setup_new(&s, 1);
	zkp_groth16_pvk *pvk = NULL;
	zkp_g2_affine keep = s.vk.delta_g2;
	memset(&s.vk.delta_g2, 0, sizeof(s.vk.delta_g2));
	assert_int_equal(zkp_groth16_pvk_new(&pvk, &s.vk), ZKP_ERR_INVAL);
	assert_null(pvk);
	s.vk.delta_g2 = keep;
	memset(&s.vk.gamma_g2, 0, sizeof(s.vk.gamma_g2));
	assert_int_equal(zkp_groth16_pvk_new(&pvk, &s.vk), ZKP_ERR_INVAL);
	g16t_setup_free(&s);
}

/* 1000 random tamperings of valid proofs, all of which must be rejected:
 * a flipped bit of the 192-byte encoding that still decodes (in practice a
 * sort flag: the negated point), a changed public input, A and C swapped,
 * B taken from another proof. */
static void test_tampering(void **state)
{
	(void)state;
	enum { NPUB = 3, NBASE = 4, TRIALS = 1000 };
	struct g16t_setup s;
	g16t_setup_new(&s, NPUB);
	zkp_groth16_pvk *pvk = prepare(&s.vk);
	zkp_fr x[NBASE][NPUB];
	zkp_groth16_proof base[NBASE];
	for (int i = 0; i < NBASE; i++) {
		rand_inputs(x[i], NPUB);
		g16t_prove(&base[i], &s, x[i]);
		assert_int_equal(zkp_groth16_verify(pvk, x[i], NPUB, &base[i]), 0);
	}
	unsigned count[4] = { 0 }, decode_refusals = 0;
	for (int t = 0; t < TRIALS; t++) {
		int k = (int)(tu_rand64() % NBASE), kind = (int)(tu_rand64() % 4);
		zkp_groth16_proof p = base[k];
		zkp_fr xi[NPUB];
		memcpy(xi, x[k], sizeof(xi));
		switch (kind) {
		case 0: {
			uint8_t enc[ZKP_GROTH16_PROOF_BYTES], orig[ZKP_GROTH16_PROOF_BYTES];
			zkp_groth16_proof_to_bytes(orig, &base[k]);
			bool done = false;
			for (int tries = 0; !done; tries++) {
				memcpy(enc, orig, sizeof(enc));
				size_t bit;
				if (tries >= 32 || tu_rand64() % 2) {
					static const size_t sort_bytes[3] = { 0, 48, 144 };
					bit = sort_bytes[tu_rand64() % 3] * 8 + 2; /* 0x20 */
				} else {
					bit = tu_rand64() % (8 * sizeof(enc));
				}
				enc[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
				if (zkp_groth16_proof_from_bytes(&p, enc, NULL) == 0)
					done = true;
				else
					decode_refusals++;
			}
			break;
		}
		case 1: {
			zkp_fr d;
			tu_rand_fr(&d);
			if (zkp_fr_is_zero(&d))
				zkp_fr_set_one(&d);
			size_t j = tu_rand64() % NPUB;
			zkp_fr_add(&xi[j], &xi[j], &d);
			break;
		}
		case 2:
			p.a = base[k].c;
			p.c = base[k].a;
			break;
		case 3:
			p.b = base[(k + 1 + (int)(tu_rand64() % (NBASE - 1))) % NBASE].b;
			break;
		}
		count[kind]++;
		int rc = zkp_groth16_verify(pvk, xi, NPUB, &p);
		if (rc != ZKP_GROTH16_INVALID) {
			fprintf(stderr, "trial %d (kind %d, base %d): verify gave %d\n", t, kind, k,
				rc);
			fail();
		}
	}
	fprintf(stderr,
		"tamperings rejected: %u bit flips (%u further flips refused by the decoder), "
		"%u inputs, %u A/C swaps, %u foreign B\n",
		count[0], decode_refusals, count[1], count[2], count[3]);
	zkp_groth16_pvk_free(pvk);
	g16t_setup_free(&s);
}

/* ---- batches ---- */

static void test_batch(void **state)
{
	(void)state;
	enum { NPUB = 2, M = 10 };
	struct g16t_setup s;
	g16t_setup_new(&s, NPUB);
	zkp_groth16_pvk *pvk = prepare(&s.vk);
	zkp_fr x[M * NPUB];
	zkp_groth16_proof p[M];
	rand_inputs(x, M * NPUB);
	for (int j = 0; j < M; j++)
		g16t_prove(&p[j], &s, x + j * NPUB);

	zkp_pool *pool;
	assert_int_equal(zkp_pool_new(&pool, 2), 0);
	zkp_pool *pools[2] = { NULL, pool };
	for (int pi = 0; pi < 2; pi++) {
		for (size_t m = 1; m <= M; m++)
			assert_int_equal(zkp_groth16_verify_batch(pvk, x, NPUB, p, m, pools[pi]), 0);
		/* One bad proof anywhere spoils the batch. */
		for (int bad = 0; bad < 4; bad++) {
			zkp_groth16_proof q[M];
			zkp_fr y[M * NPUB];
			memcpy(q, p, sizeof(q));
			memcpy(y, x, sizeof(y));
			int j = (int)(tu_rand64() % M);
			switch (bad) {
			case 0:
				zkp_g1_affine_neg(&q[j].c, &q[j].c);
				break;
			case 1:
				zkp_fr_add(&y[j * NPUB + 1], &y[j * NPUB + 1], &ZKP_FR_ONE);
				break;
			case 2:
				q[j].b = p[(j + 1) % M].b;
				break;
			case 3:
				q[j].a = p[j].c;
				q[j].c = p[j].a;
				break;
			}
			assert_int_equal(zkp_groth16_verify_batch(pvk, y, NPUB, q, M, pools[pi]),
					 ZKP_GROTH16_INVALID);
		}
		/* Two proofs swapped between statements: each pair's own
		 * equation fails. */
		zkp_groth16_proof q[M];
		memcpy(q, p, sizeof(q));
		q[0] = p[1];
		q[1] = p[0];
		assert_int_equal(zkp_groth16_verify_batch(pvk, x, NPUB, q, M, pools[pi]),
				 ZKP_GROTH16_INVALID);
	}
	assert_int_equal(zkp_groth16_verify_batch(pvk, x, NPUB, p, 0, NULL), ZKP_ERR_INVAL);
	assert_int_equal(zkp_groth16_verify_batch(pvk, x, NPUB + 1, p, M, NULL),
			 ZKP_ERR_MISMATCH);
	zkp_pool_free(pool);
	zkp_groth16_pvk_free(pvk);
	g16t_setup_free(&s);
}

/* ---- encodings ---- */

static void test_proof_bytes(void **state)
{
	(void)state;
	struct g16t_setup s;
	g16t_setup_new(&s, 1);
	zkp_fr x;
	tu_rand_fr(&x);
	zkp_groth16_proof p[3], q[3];
	uint8_t buf[3 * ZKP_GROTH16_PROOF_BYTES];
	for (int i = 0; i < 3; i++) {
		g16t_prove(&p[i], &s, &x);
		zkp_groth16_proof_to_bytes(buf + i * ZKP_GROTH16_PROOF_BYTES, &p[i]);
	}
	/* Compressed flags on every point. */
	assert_true(buf[0] & 0x80);
	assert_true(buf[48] & 0x80);
	assert_true(buf[144] & 0x80);
	assert_int_equal(zkp_groth16_proof_from_bytes(&q[0], buf, NULL), 0);
	assert_true(zkp_g1_affine_eq(&q[0].a, &p[0].a));
	assert_true(zkp_g2_affine_eq(&q[0].b, &p[0].b));
	assert_true(zkp_g1_affine_eq(&q[0].c, &p[0].c));
	assert_int_equal(zkp_groth16_proofs_from_bytes(q, 3, buf, sizeof(buf), NULL), 0);
	for (int i = 0; i < 3; i++) {
		uint8_t again[ZKP_GROTH16_PROOF_BYTES];
		zkp_groth16_proof_to_bytes(again, &q[i]);
		assert_memory_equal(again, buf + i * ZKP_GROTH16_PROOF_BYTES, sizeof(again));
	}
	zkp_error e = { 0 };
	assert_int_equal(zkp_groth16_proofs_from_bytes(q, 3, buf, sizeof(buf) - 1, &e),
			 ZKP_ERR_BAD_LENGTH);
	/* A broken C in proof 2 is named. */
	uint8_t bad[sizeof(buf)];
	memcpy(bad, buf, sizeof(bad));
	bad[2 * ZKP_GROTH16_PROOF_BYTES + 144] &= 0x7f; /* clear C's compression flag */
	assert_int_equal(zkp_groth16_proofs_from_bytes(q, 3, bad, sizeof(bad), &e),
			 ZKP_ERR_BAD_FLAGS);
	assert_non_null(strstr(e.msg, "proof 2: C"));
	/* Infinity is refused, as bellman does. */
	memcpy(bad, buf, ZKP_GROTH16_PROOF_BYTES);
	memset(bad + 48, 0, 96);
	bad[48] = 0xc0;
	assert_int_equal(zkp_groth16_proof_from_bytes(&q[0], bad, &e), ZKP_ERR_FORMAT);
	assert_non_null(strstr(e.msg, "B is the point at infinity"));
	g16t_setup_free(&s);
}

static void test_json_roundtrip(void **state)
{
	(void)state;
	enum { NPUB = 4 };
	struct g16t_setup s;
	g16t_setup_new(&s, NPUB);
	zkp_fr x[NPUB], *y = NULL;
	size_t ny = 0;
	rand_inputs(x, NPUB);
	zkp_fr_set_zero(&x[0]);
	zkp_fr_set_u64(&x[1], 7);
	zkp_groth16_proof p, q;
	g16t_prove(&p, &s, x);
	char path[128], vpath[128], ppath[128];
	g16t_tmp_path(path, sizeof(path), "proof.json");
	g16t_tmp_path(vpath, sizeof(vpath), "vk.json");
	g16t_tmp_path(ppath, sizeof(ppath), "public.json");
	zkp_error e = { 0 };

	assert_int_equal(zkp_groth16_proof_write_json(&p, path, &e), 0);
	assert_int_equal(zkp_groth16_proof_read_json(&q, path, &e), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	char *txt = zkp_groth16_proof_to_json(&p);
	assert_non_null(txt);
	assert_non_null(strstr(txt, "\"bls12381\""));
	memset(&q, 0, sizeof(q));
	assert_int_equal(zkp_groth16_proof_from_json(&q, txt, NULL, &e), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	free(txt);

	assert_int_equal(zkp_groth16_public_write_json(x, NPUB, ppath, &e), 0);
	assert_int_equal(zkp_groth16_public_read_json(&y, &ny, ppath, &e), 0);
	assert_int_equal(ny, NPUB);
	assert_memory_equal(x, y, sizeof(x));
	free(y);

	zkp_groth16_vk vk;
	assert_int_equal(zkp_groth16_vk_write_json(&s.vk, vpath, &e), 0);
	assert_int_equal(zkp_groth16_vk_read_json(&vk, vpath, &e), 0);
	assert_false(vk.has_g1_extras);
	assert_true(zkp_groth16_vk_eq(&vk, &s.vk));
	/* The generic loader finds JSON by content. */
	zkp_groth16_vk vk2;
	assert_int_equal(zkp_groth16_vk_load(&vk2, vpath, 0, &e), 0);
	assert_true(zkp_groth16_vk_eq(&vk2, &s.vk));
	zkp_groth16_pvk *pvk = prepare(&vk);
	assert_int_equal(zkp_groth16_verify(pvk, x, NPUB, &p), 0);
	zkp_groth16_pvk_free(pvk);
	/* A deep copy owns its ic. */
	zkp_groth16_vk copy;
	assert_int_equal(zkp_groth16_vk_copy(&copy, &s.vk), 0);
	assert_ptr_not_equal(copy.ic, s.vk.ic);
	assert_ptr_equal(copy.ic, copy.ic_alloc);
	assert_true(copy.has_g1_extras);
	assert_true(zkp_groth16_vk_eq(&copy, &s.vk));
	zkp_groth16_vk_release(&copy);
	zkp_groth16_vk_release(&vk);
	zkp_groth16_vk_release(&vk2);
	g16t_setup_free(&s);
}

/* Jacobian z (snarkjs reads any z that way) and the refusals. */
static void test_json_points(void **state)
{
	(void)state;
	struct g16t_setup s;
	g16t_setup_new(&s, 0);
	zkp_groth16_proof p, q;
	g16t_prove(&p, &s, NULL);
	/* pi_a with z = 2: (x 4, y 8, 2). Build the text by hand. */
	char *txt = zkp_groth16_proof_to_json(&p);
	assert_non_null(txt);
	json_error_t je;
	json_t *root = json_loads(txt, 0, &je);
	free(txt);
	assert_non_null(root);
	zkp_fp two, four, eight;
	zkp_fp_set_u64(&two, 2);
	zkp_fp_set_u64(&four, 4);
	zkp_fp_set_u64(&eight, 8);
	zkp_g1_affine ja = { p.a.x, p.a.y };
	zkp_fp_mul(&ja.x, &ja.x, &four);
	zkp_fp_mul(&ja.y, &ja.y, &eight);
	mpz_t z;
	mpz_init(z);
	uint64_t l[ZKP_FP_LIMBS];
	json_t *pa = json_object_get(root, "pi_a");
	zkp_fp_to_limbs(l, &ja.x);
	tu_mpz_from_limbs(z, l, ZKP_FP_LIMBS);
	char *sx = mpz_get_str(NULL, 10, z);
	zkp_fp_to_limbs(l, &ja.y);
	tu_mpz_from_limbs(z, l, ZKP_FP_LIMBS);
	char *sy = mpz_get_str(NULL, 10, z);
	json_array_set_new(pa, 0, json_string(sx));
	json_array_set_new(pa, 1, json_string(sy));
	json_array_set_new(pa, 2, json_string("2"));
	txt = json_dumps(root, 0);
	zkp_error e = { 0 };
	assert_int_equal(zkp_groth16_proof_from_json(&q, txt, "t", &e), 0);
	assert_true(zkp_g1_affine_eq(&q.a, &p.a));
	free(txt);

	/* y off the curve */
	json_array_set_new(pa, 1, json_string("5"));
	json_array_set_new(pa, 2, json_string("1"));
	txt = json_dumps(root, 0);
	assert_int_equal(zkp_groth16_proof_from_json(&q, txt, "t", &e), ZKP_ERR_NOT_ON_CURVE);
	assert_non_null(strstr(e.msg, "pi_a"));
	free(txt);
	/* a coordinate >= p */
	json_array_set_new(pa, 0,
			   json_string("40024095552216673934177898257359041565568828199390078853"
				       "32058136124031650490837864442687629129015664037894272559787"));
	txt = json_dumps(root, 0);
	assert_int_equal(zkp_groth16_proof_from_json(&q, txt, "t", &e), ZKP_ERR_NOT_CANONICAL);
	free(txt);
	json_array_set_new(pa, 0, json_string("12ab"));
	txt = json_dumps(root, 0);
	assert_int_equal(zkp_groth16_proof_from_json(&q, txt, "t", &e), ZKP_ERR_FORMAT);
	free(txt);
	assert_int_equal(zkp_groth16_proof_from_json(&q, "{\"pi_a\": [", "t", &e),
			 ZKP_ERR_FORMAT);
	assert_non_null(strstr(e.msg, "t: line 1"));
	json_decref(root);
	free(sx);
	free(sy);
	mpz_clear(z);

	/* public.json: values must be < r. */
	char path[128];
	g16t_tmp_path(path, sizeof(path), "pub_bad.json");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("[\"1\", \"52435875175126190479447740508185965837690552500527637822603658699938581"
	      "184513\"]",
	      f);
	fclose(f);
	zkp_fr *v;
	size_t n;
	assert_int_equal(zkp_groth16_public_read_json(&v, &n, path, &e), ZKP_ERR_NOT_CANONICAL);
	assert_non_null(strstr(e.msg, "[1]"));
	g16t_setup_free(&s);
}

/* ---- a real snarkjs proof ---- */

static void test_snarkjs_fixture(void **state)
{
	(void)state;
	char zpath[256], vpath[256], ppath[256], upath[256], out[128];
	g16t_vector_path(zpath, sizeof(zpath), "snarkjs_tiny.zkey");
	g16t_vector_path(vpath, sizeof(vpath), "snarkjs_tiny_vk.json");
	g16t_vector_path(ppath, sizeof(ppath), "snarkjs_tiny_proof.json");
	g16t_vector_path(upath, sizeof(upath), "snarkjs_tiny_public.json");
	zkp_error e = { 0 };
	zkp_groth16_vk vk_json, vk_zkey;
	assert_int_equal(zkp_groth16_vk_read_json(&vk_json, vpath, &e), 0);
	assert_int_equal(zkp_groth16_vk_load(&vk_zkey, zpath, 0, &e), 0);
	assert_true(vk_zkey.has_g1_extras);
	assert_true(zkp_groth16_vk_eq(&vk_json, &vk_zkey));

	zkp_groth16_proof p;
	zkp_fr *x;
	size_t n;
	assert_int_equal(zkp_groth16_proof_read_json(&p, ppath, &e), 0);
	assert_int_equal(zkp_groth16_public_read_json(&x, &n, upath, &e), 0);
	assert_int_equal(n, 2);
	zkp_groth16_pvk *pvk = prepare(&vk_json);
	assert_int_equal(zkp_groth16_verify(pvk, x, n, &p), 0);
	zkp_fr_add(&x[1], &x[1], &ZKP_FR_ONE);
	assert_int_equal(zkp_groth16_verify(pvk, x, n, &p), ZKP_GROTH16_INVALID);
	zkp_fr_sub(&x[1], &x[1], &ZKP_FR_ONE);
	/* The same proof through the 192-byte encoding. */
	uint8_t b[ZKP_GROTH16_PROOF_BYTES];
	zkp_groth16_proof q;
	zkp_groth16_proof_to_bytes(b, &p);
	assert_int_equal(zkp_groth16_proof_from_bytes(&q, b, &e), 0);
	assert_int_equal(zkp_groth16_verify(pvk, x, n, &q), 0);
	zkp_groth16_pvk_free(pvk);

	/* Our verification_key.json equals snarkjs's field for field,
	 * vk_alphabeta_12 included (same pairing normalisation). */
	g16t_tmp_path(out, sizeof(out), "tiny_vk.json");
	assert_int_equal(zkp_groth16_vk_write_json(&vk_zkey, out, &e), 0);
	json_error_t je;
	json_t *a = json_load_file(vpath, 0, &je), *o = json_load_file(out, 0, &je);
	assert_non_null(a);
	assert_non_null(o);
	assert_true(json_equal(a, o));
	json_decref(a);
	json_decref(o);
	/* And our proof.json of their proof equals theirs. */
	g16t_tmp_path(out, sizeof(out), "tiny_proof.json");
	assert_int_equal(zkp_groth16_proof_write_json(&p, out, &e), 0);
	a = json_load_file(ppath, 0, &je);
	o = json_load_file(out, 0, &je);
	assert_true(json_equal(a, o));
	json_decref(a);
	json_decref(o);
	g16t_tmp_path(out, sizeof(out), "tiny_public.json");
	assert_int_equal(zkp_groth16_public_write_json(x, n, out, &e), 0);
	a = json_load_file(upath, 0, &je);
	o = json_load_file(out, 0, &je);
	assert_true(json_equal(a, o));
	json_decref(a);
	json_decref(o);

	free(x);
	zkp_groth16_vk_release(&vk_json);
	zkp_groth16_vk_release(&vk_zkey);
}

static void test_vk_json_refusals(void **state)
{
	(void)state;
	char vpath[256], out[128];
	g16t_vector_path(vpath, sizeof(vpath), "snarkjs_tiny_vk.json");
	json_error_t je;
	zkp_error e = { 0 };
	zkp_groth16_vk vk;
	static const struct {
		const char *key;
		const char *value;
		int code;
		const char *msg;
	} cases[] = {
		{ "protocol", "\"plonk\"", ZKP_ERR_UNSUPPORTED, "protocol" },
		{ "curve", "\"bn128\"", ZKP_ERR_WRONG_PRIME, "curve" },
		{ "nPublic", "3", ZKP_ERR_MISMATCH, "nPublic" },
		{ "IC", "[]", ZKP_ERR_FORMAT, "IC" },
		{ "vk_beta_2", "[[\"1\", \"0\"], [\"1\", \"0\"], [\"1\", \"0\"]]",
		  ZKP_ERR_NOT_ON_CURVE, "vk_beta_2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *root = json_load_file(vpath, 0, &je);
		assert_non_null(root);
		json_object_set_new(root, cases[i].key, json_loads(cases[i].value,
								   JSON_DECODE_ANY, &je));
		g16t_tmp_path(out, sizeof(out), "bad_vk.json");
		assert_int_equal(json_dump_file(root, out, 0), 0);
		json_decref(root);
		assert_int_equal(zkp_groth16_vk_read_json(&vk, out, &e), cases[i].code);
		assert_non_null(strstr(e.msg, cases[i].msg));
		assert_non_null(strstr(e.msg, "bad_vk.json"));
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_proofs),
		cmocka_unit_test(test_pvk_refuses_degenerate),
		cmocka_unit_test(test_tampering),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_proof_bytes),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_points),
		cmocka_unit_test(test_snarkjs_fixture),
		cmocka_unit_test(test_vk_json_refusals),
	};
	return cmocka_run_group_tests(tests, g16t_setup_tmp, g16t_teardown_tmp);
}
