/*
 * The SnapDeals (EmptySectorUpdate) partition circuit: its row counts
 * against rust-fil-proofs' asserted figures (storage-proofs-update
 * tests/circuit.rs: 1 KiB 1,248,389 ... 32 KiB 6,760,091; 32 GiB
 * 81,049,499 per partition; gadgets.rs: the challenge-bit and apex
 * gadgets), inputs, labels, shapes, the native challenge derivation, and
 * witnesses from development updates that satisfy the rows (tampered
 * ones do not).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "testutil.h"
#include "test_fr.h"
#include "zkpd/porep_dev.h"
#include "zkpd/snap.h"
#include "zkpd/snap_dev.h"

static void snap_gadget(zkp_cs *cs, void *ctx) { zkp_snap_circuit_fn(cs, ctx); }

static void test_test_sizes(void **state)
{
	(void)state;
	static const struct {
		uint64_t bytes, rows;
	} p[] = {
		{ 1 << 10, 1248389 },  { 2 << 10, 1705039 },  { 4 << 10, 2165109 },
		{ 8 << 10, 2620359 },  { 16 << 10, 6300021 }, { 32 << 10, 6760091 },
	};
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		zkp_snap_shape s;
		zkp_error err = { 0 };
		assert_int_equal(zkp_snap_shape_for_size(&s, p[i].bytes, &err), 0);
		zkp_snap_job job = { &s, NULL };
		gh_result r;
		gh_shape(snap_gadget, &job, &r);
		print_message("%llu bytes: %llu rows, %llu inputs, %llu aux\n",
			      (unsigned long long)p[i].bytes, (unsigned long long)r.rows,
			      (unsigned long long)r.inputs, (unsigned long long)r.aux);
		assert_int_equal(r.inputs, ZKP_SNAP_INPUTS);
		assert_int_equal(r.rows, p[i].rows);
	}
}

static void test_32g(void **state)
{
	(void)state;
	zkp_snap_shape s;
	zkp_error err = { 0 };
	assert_int_equal(zkp_snap_shape_for_size(&s, 32ULL << 30, &err), 0);
	zkp_snap_job job = { &s, NULL };
	gh_result r;
	gh_shape(snap_gadget, &job, &r);
	print_message("32GiB: %llu rows, %llu aux\n", (unsigned long long)r.rows,
		      (unsigned long long)r.aux);
	assert_int_equal(r.rows, 81049499);
}


/* A development sector (random data sealed over a random graph, porep_dev.h)
 * updated with random data. */
static zkp_snap_dev *dev_update(const zkp_snap_shape *s, zkp_porep_dev **sec, unsigned h)
{
	zkp_porep_shape ps = { .nodes = s->nodes, .layers = 2, .challenges = 1,
			       .tree = { s->tree[0], s->tree[1], s->tree[2] } };
	zkp_error err = { 0 };
	if (zkp_porep_dev_new(sec, &ps, tu_rand64(), &err))
		fail_msg("%s", err.msg);
	zkp_fr *data = malloc(s->nodes * sizeof(zkp_fr));
	assert_non_null(data);
	for (uint64_t n = 0; n < s->nodes; n++)
		tu_rand_fr(&data[n]);
	zkp_snap_dev *d;
	if (zkp_snap_dev_new(&d, s, zkp_porep_dev_sector(*sec), data, h, &err))
		fail_msg("%s", err.msg);
	free(data);
	return d;
}

static void check_partition(uint64_t bytes, unsigned k, unsigned h_index, bool tamper)
{
	zkp_snap_shape s;
	zkp_error err = { 0 };
	assert_int_equal(zkp_snap_shape_for_size(&s, bytes, &err), 0);
	zkp_porep_dev *sec;
	zkp_snap_dev *d = dev_update(&s, &sec, s.hs[h_index]);
	zkp_snap_witness w;
	uint64_t nodes[86];
	if (zkp_snap_dev_partition(d, k, &w, nodes, &err))
		fail_msg("%s", err.msg);
	/* every challenge lies in partition k */
	unsigned b = zkp_snap_challenge_bits(&s) - zkp_snap_partition_bits(&s);
	for (unsigned i = 0; i < s.challenges; i++)
		assert_int_equal(nodes[i] >> b, k);

	zkp_snap_job job = { &s, &w };
	gh_result r;
	gh_run(snap_gadget, &job, &r);
	if (r.check)
		fail_msg("%llu bytes, partition %u: unsatisfied at row %llu",
			 (unsigned long long)bytes, k, (unsigned long long)r.first_bad_row);
	zkp_fr pub[4];
	assert_int_equal(zkp_snap_public_inputs(pub, &s, k, s.hs[h_index], &w.comm_r_old,
						&w.comm_d_new, &w.comm_r_new, &err), 0);
	for (int i = 0; i < 4; i++)
		assert_true(zkp_fr_eq(&pub[i], &r.w[1 + i]));
	gh_result_release(&r);
	if (!tamper)
		goto out;

	/* Tampering leaves rows unsatisfied: a data leaf, a sibling of the
	 * new replica's path, comm_c, an apex leaf. */
	zkp_snap_challenge *ch = (zkp_snap_challenge *)&w.challenges[s.challenges - 1];
	zkp_fr keep = ch->leaf_d_new;
	zkp_fr_add(&ch->leaf_d_new, &ch->leaf_d_new, &ZKP_FR_ONE);
	gh_run(snap_gadget, &job, &r);
	assert_int_not_equal(r.check, 0);
	gh_result_release(&r);
	ch->leaf_d_new = keep;

	keep = ch->r_new.siblings[0];
	zkp_fr_add(&ch->r_new.siblings[0], &ch->r_new.siblings[0], &ZKP_FR_ONE);
	gh_run(snap_gadget, &job, &r);
	assert_int_not_equal(r.check, 0);
	gh_result_release(&r);
	ch->r_new.siblings[0] = keep;

	zkp_fr_add(&w.comm_c, &w.comm_c, &ZKP_FR_ONE);
	gh_run(snap_gadget, &job, &r);
	assert_int_not_equal(r.check, 0);
	gh_result_release(&r);
out:
	zkp_snap_dev_free(d);
	zkp_porep_dev_free(sec);
}

/* One partition of 1 KiB (h = 1), both of 16 KiB (two partitions: the
 * partition path in tree D and the partition bits in every challenge).
 * Tampered witnesses are tried on the small one. */
static void test_dev_witness(void **state)
{
	(void)state;
	check_partition(1 << 10, 0, 2, true);
	check_partition(16 << 10, 1, 5, false);
}

/* The native challenges: in range, in the partition, and the same for the
 * same comm_r_new. */
static void test_challenges(void **state)
{
	(void)state;
	zkp_snap_shape s;
	zkp_error err = { 0 };
	assert_int_equal(zkp_snap_shape_for_size(&s, 32ULL << 30, &err), 0);
	zkp_fr c;
	tu_rand_fr(&c);
	uint64_t a[86], b[86];
	for (unsigned k = 0; k < s.partitions; k++) {
		assert_int_equal(zkp_snap_challenges(a, &s, &c, k, &err), 0);
		assert_int_equal(zkp_snap_challenges(b, &s, &c, k, &err), 0);
		assert_memory_equal(a, b, sizeof(a));
		for (unsigned i = 0; i < s.challenges; i++)
			assert_int_equal(a[i] >> 26, k);
	}
	assert_int_equal(zkp_snap_challenges(a, &s, &c, 16, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "partition 16"));
}

static void test_shapes_and_labels(void **state)
{
	(void)state;
	zkp_snap_shape s, t;
	zkp_error err = { 0 };
	assert_int_equal(zkp_snap_shape_for_size(&s, 64ULL << 30, &err), 0);
	assert_int_equal(s.partitions, 16);
	assert_int_equal(s.challenges, 86);
	assert_int_equal(s.apex_leaves, 128);
	assert_int_equal(s.hs[3], 10);
	char d[160];
	zkp_snap_describe(d, sizeof(d), &s);
	assert_string_equal(d, "64GiB SnapDeals: partition of 16, 86 challenges, 2^31 nodes, tree 8-8-2, 128 apex leaves");
	uint8_t label[32];
	zkp_snap_label_encode(label, &s);
	assert_true(zkp_snap_label_decode(&t, label));
	assert_memory_equal(&s, &t, sizeof(s));
	label[0] = 'X';
	assert_false(zkp_snap_label_decode(&t, label));
	assert_int_equal(zkp_snap_shape_for_size(&s, 3000, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "3000 bytes"));
	assert_int_equal(zkp_snap_shape_for_size(&s, 2048, &err), 0);
	unsigned hi;
	assert_int_equal(zkp_snap_h_index(&hi, &s, 10, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "h = 10"));
	zkp_fr pub[4], z;
	zkp_fr_set_zero(&z);
	assert_int_equal(zkp_snap_public_inputs(pub, &s, 1, 1, &z, &z, &z, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "partition 1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_test_sizes),
		cmocka_unit_test(test_32g),
		cmocka_unit_test(test_challenges),
		cmocka_unit_test(test_shapes_and_labels),
		cmocka_unit_test(test_dev_witness),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
