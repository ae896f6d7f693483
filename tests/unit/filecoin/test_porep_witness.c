/*
 * The PoRep circuit's two modes from one code path: the 2 KiB partition
 * (and the four rust-fil-proofs test shapes) written as a .pce through the
 * two-pass streaming builder, its witness computed by the witness-only pass
 * from a development sector (random data, random parent graph, native
 * trees), and zkp check's row-by-row check between them. Then the 2 KiB
 * fingerprint in full (rows, inputs, aux, densities, non-zeros) against the
 * figures derived by counting rust-fil-proofs' circuit term by term (no
 * recording of the 2 KiB circuit is published; the same counting gives the
 * published 32 GiB recording exactly), and tampered inputs that must fail the check: a
 * parent's label, a sibling in tree D, the challenged node, comm_r.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "zkpd/circuit.h"
#include "zkpd/porep.h"
#include "zkpd/porep_dev.h"
#include "zkpd/pool.h"

/* Writes s's circuit to a temporary .pce and loads it. */
static zkp_pce *compile(const zkp_porep_shape *s, zkp_pce_builder_stats *st)
{
	char path[] = "/tmp/zkpd-porep-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	zkp_porep_job j = { s, NULL };
	zkp_error err = { 0 };
	uint8_t label[32];
	zkp_porep_label_encode(label, s);
	if (zkp_circuit_write(zkp_porep_circuit_fn, &j, path, label, st, &err))
		fail_msg("write: %s", err.msg);
	zkp_pce *pce = NULL;
	if (zkp_pce_load(&pce, path, 0, &err))
		fail_msg("load: %s", err.msg);
	unlink(path);
	zkp_porep_shape back;
	assert_true(zkp_porep_label_decode(&back, zkp_pce_label(pce)));
	assert_int_equal(back.nodes, s->nodes);
	assert_int_equal(back.challenges, s->challenges);
	return pce;
}

/* The witness of w for s, checked against pce; returns zkp_pce_check's
 * result and the first failing row. */
static int prove_rows(const zkp_pce *pce, const zkp_porep_shape *s, const zkp_porep_witness *w,
		      uint64_t *bad)
{
	zkp_porep_job j = { s, w };
	zkp_circuit_dims d;
	zkp_error err = { 0 };
	assert_int_equal(zkp_circuit_shape(zkp_porep_circuit_fn, &j, &d, &err), 0);
	const zkp_pce_dims *pd = zkp_pce_get_dims(pce);
	assert_int_equal(d.inputs, pd->n_inputs);
	assert_int_equal(d.aux, pd->n_aux);
	zkp_fr *wv = malloc((d.inputs + d.aux) * sizeof(zkp_fr));
	assert_non_null(wv);
	if (zkp_circuit_witness(zkp_porep_circuit_fn, &j, &d, wv, &err))
		fail_msg("witness: %s", err.msg);
	int rc = zkp_pce_check(pce, wv, bad, NULL, &err);
	free(wv);
	return rc;
}

static void test_test_shapes(void **state)
{
	(void)state;
	static const struct {
		uint64_t nodes;
		unsigned tree[3];
	} shapes[] = { { 8, { 2, 0, 0 } }, { 8, { 8, 0, 0 } }, { 32, { 8, 4, 0 } }, { 64, { 8, 4, 2 } } };
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		zkp_porep_shape s = { .nodes = shapes[i].nodes, .layers = 2, .challenges = 1,
				      .tree = { shapes[i].tree[0], shapes[i].tree[1], shapes[i].tree[2] } };
		zkp_pce *pce = compile(&s, NULL);
		zkp_porep_dev *dev = NULL;
		zkp_error err = { 0 };
		if (zkp_porep_dev_new(&dev, &s, tu_rand64(), &err))
			fail_msg("%s", err.msg);
		uint64_t bad = 0;
		if (prove_rows(pce, &s, zkp_porep_dev_witness(dev), &bad))
			fail_msg("shape %zu: row %llu unsatisfied", i, (unsigned long long)bad);
		zkp_porep_dev_free(dev);
		zkp_pce_free(pce);
	}
}

static void test_2kib(void **state)
{
	(void)state;
	zkp_porep_shape s;
	zkp_error err = { 0 };
	zkp_pce_builder_stats st;
	assert_int_equal(zkp_porep_shape_for_size(&s, 2048, &err), 0);
	zkp_pce *pce = compile(&s, &st);

	/* The fingerprint; non-zeros of A include the 40 input rows the
	 * prover adds (one A term each). */
	assert_int_equal(st.rows, 2687921);
	assert_int_equal(st.rows + st.n_inputs, 2687961);
	assert_int_equal(st.n_inputs, 40);
	assert_int_equal(st.n_aux, 2685673);
	assert_int_equal(st.a_aux, 2674908);
	assert_int_equal(st.b_input, 1);
	assert_int_equal(st.b_aux, 685521);
	assert_int_equal(st.nnz[0] + st.n_inputs, 6421005);
	assert_int_equal(st.nnz[1], 2689006);
	assert_int_equal(st.nnz[2], 5824682);
	assert_int_equal(zkp_pce_get_dims(pce)->domain_log2, 22);

	zkp_porep_dev *dev = NULL;
	if (zkp_porep_dev_new(&dev, &s, tu_rand64(), &err))
		fail_msg("%s", err.msg);
	const zkp_porep_witness *good = zkp_porep_dev_witness(dev);
	uint64_t bad = 0;
	if (prove_rows(pce, &s, good, &bad))
		fail_msg("2 KiB: row %llu unsatisfied", (unsigned long long)bad);

	/* Tampered copies: each must break a row. */
	zkp_porep_challenge *ch = malloc(s.challenges * sizeof(*ch));
	assert_non_null(ch);
	zkp_porep_witness w = *good;
	w.challenges = ch;
	for (int t = 0; t < 4; t++) {
		memcpy(ch, good->challenges, s.challenges * sizeof(*ch));
		w.comm_r = good->comm_r;
		switch (t) {
		case 0: zkp_fr_add(&ch[1].parent_rows[3][1], &ch[1].parent_rows[3][1], &ZKP_FR_ONE); break;
		case 1: zkp_fr_add(&ch[0].comm_d_path.siblings[2], &ch[0].comm_d_path.siblings[2], &ZKP_FR_ONE); break;
		case 2: ch[0].node ^= 1; break;
		default: zkp_fr_add(&w.comm_r, &w.comm_r, &ZKP_FR_ONE); break;
		}
		assert_int_equal(prove_rows(pce, &s, &w, &bad), ZKP_ERR_UNSATISFIED);
	}
	free(ch);
	zkp_porep_dev_free(dev);
	zkp_pce_free(pce);
}

/* The parallel witness equals the sequential one byte for byte, and is
 * refused for dimensions that are not the circuit's. */
static void test_parallel_witness(void **state)
{
	(void)state;
	zkp_pool *pool = NULL;
	assert_int_equal(zkp_pool_new(&pool, 2), 0);
	zkp_porep_shape shapes[2] = {
		{ .nodes = 64, .layers = 2, .challenges = 5, .tree = { 8, 0, 0 } },
		{ .nodes = 32, .layers = 11, .challenges = 3, .tree = { 8, 4, 0 } },
	};
	for (int k = 0; k < 2; k++) {
		const zkp_porep_shape *s = &shapes[k];
		zkp_porep_dev *dev = NULL;
		zkp_error err = { 0 };
		if (zkp_porep_dev_new(&dev, s, tu_rand64(), &err))
			fail_msg("%s", err.msg);
		zkp_porep_job j = { s, zkp_porep_dev_witness(dev) };
		zkp_circuit_dims d;
		assert_int_equal(zkp_circuit_shape(zkp_porep_circuit_fn, &j, &d, &err), 0);
		size_t bytes = (d.inputs + d.aux) * sizeof(zkp_fr);
		zkp_fr *a = malloc(bytes), *b = malloc(bytes);
		assert_non_null(a);
		assert_non_null(b);
		memset(b, 0xa5, bytes);
		assert_int_equal(zkp_circuit_witness(zkp_porep_circuit_fn, &j, &d, a, &err), 0);
		if (zkp_porep_witness_parallel(s, j.witness, b, d.inputs, d.aux, pool, &err))
			fail_msg("%s", err.msg);
		assert_memory_equal(a, b, bytes);
		assert_int_equal(zkp_porep_witness_parallel(s, j.witness, b, d.inputs, d.aux - 1, pool,
							    &err),
				 ZKP_ERR_MISMATCH);
		free(a);
		free(b);
		zkp_porep_dev_free(dev);
	}
	zkp_pool_free(pool);
}

/* The public inputs derived from public data alone (nodes, parents,
 * commitments) are the witness's inputs. */
static void test_public_inputs(void **state)
{
	(void)state;
	zkp_porep_shape s = { .nodes = 64, .layers = 2, .challenges = 4, .tree = { 8, 4, 2 } };
	zkp_porep_dev *dev = NULL;
	zkp_error err = { 0 };
	if (zkp_porep_dev_new(&dev, &s, tu_rand64(), &err))
		fail_msg("%s", err.msg);
	zkp_porep_job j = { &s, zkp_porep_dev_witness(dev) };
	zkp_circuit_dims d;
	assert_int_equal(zkp_circuit_shape(zkp_porep_circuit_fn, &j, &d, &err), 0);
	zkp_fr *w = malloc((d.inputs + d.aux) * sizeof(zkp_fr)), pub[4 + 18 * 4];
	assert_non_null(w);
	assert_int_equal(zkp_circuit_witness(zkp_porep_circuit_fn, &j, &d, w, &err), 0);
	uint64_t nodes[4];
	uint32_t parents[4][ZKP_POREP_PARENTS];
	for (unsigned i = 0; i < 4; i++) {
		const zkp_porep_c1_challenge *c = zkp_porep_dev_c1_challenge(dev, i);
		nodes[i] = c->ch.node;
		memcpy(parents[i], c->parent_nodes, sizeof(parents[i]));
	}
	const zkp_porep_witness *pw = zkp_porep_dev_witness(dev);
	zkp_porep_public_inputs(pub, &s, &pw->replica_id, &pw->comm_d, &pw->comm_r, nodes, parents);
	assert_int_equal(d.inputs - 1, 4 + 18 * 4 - 1);
	for (uint64_t k = 0; k + 1 < d.inputs; k++)
		if (!zkp_fr_eq(&pub[k], &w[1 + k]))
			fail_msg("public input %llu differs", (unsigned long long)k);
	free(w);
	zkp_porep_dev_free(dev);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_test_shapes),
		cmocka_unit_test(test_2kib),
		cmocka_unit_test(test_parallel_witness),
		cmocka_unit_test(test_public_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
