/*
 * SnapDeals vanilla proofs (PartitionProof, bincode): a development
 * update's partitions encoded, decoded back to the same witness, checked
 * natively against the public data, and their witness satisfying the
 * circuit; tampered bytes and wrong public data refused with errors that
 * name what is wrong; truncations and random corruption never crash.
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
#include "zkpd/snap_c2.h"
#include "zkpd/snap_dev.h"
#include "zkpd/snap_vanilla.h"


struct fixture {
	zkp_snap_shape s;
	zkp_porep_dev *sec;
	zkp_snap_dev *d;
	unsigned k;
	zkp_snap_witness w;
	uint8_t *buf;
	size_t len;
};

static void setup_update(struct fixture *f, uint64_t bytes, unsigned k)
{
	zkp_error err = { 0 };
	memset(f, 0, sizeof(*f));
	assert_int_equal(zkp_snap_shape_for_size(&f->s, bytes, &err), 0);
	zkp_porep_shape ps = { .nodes = f->s.nodes, .layers = 2, .challenges = 1,
			       .tree = { f->s.tree[0], f->s.tree[1], f->s.tree[2] } };
	if (zkp_porep_dev_new(&f->sec, &ps, tu_rand64(), &err))
		fail_msg("%s", err.msg);
	zkp_fr *data = malloc(f->s.nodes * sizeof(zkp_fr));
	assert_non_null(data);
	for (uint64_t n = 0; n < f->s.nodes; n++)
		tu_rand_fr(&data[n]);
	if (zkp_snap_dev_new(&f->d, &f->s, zkp_porep_dev_sector(f->sec), data, f->s.hs[3], &err))
		fail_msg("%s", err.msg);
	free(data);
	f->k = k;
	if (zkp_snap_dev_partition(f->d, k, &f->w, NULL, &err) ||
	    zkp_snap_vanilla_encode(&f->buf, &f->len, &f->s, &f->w, &err))
		fail_msg("%s", err.msg);
}

static void teardown_update(struct fixture *f)
{
	free(f->buf);
	zkp_snap_dev_free(f->d);
	zkp_porep_dev_free(f->sec);
}

static int check(const struct fixture *f, const uint8_t *buf, size_t len, unsigned k,
		 const zkp_fr *comm_r_new, zkp_error *err)
{
	zkp_snap_vanilla v;
	int rc = zkp_snap_vanilla_decode(&v, buf, len, &f->s, err);
	if (rc)
		return rc;
	rc = zkp_snap_vanilla_check(&v, k, f->s.hs[3], &f->w.comm_r_old, &f->w.comm_d_new,
				    comm_r_new, err);
	zkp_snap_vanilla_release(&v);
	return rc;
}

static void snap_gadget(zkp_cs *cs, void *ctx) { zkp_snap_circuit_fn(cs, ctx); }

/* Encode, decode, compare, check, and prove the rows hold. */
static void test_round_trip(void **state)
{
	(void)state;
	struct fixture f;
	setup_update(&f, 1 << 10, 0);
	/* 1 KiB: comm_c, 8 apex leaves, 10 x (Sub proof, Single binary proof, Sub proof) */
	zkp_snap_vanilla v;
	zkp_error err = { 0 };
	if (zkp_snap_vanilla_decode(&v, f.buf, f.len, &f.s, &err))
		fail_msg("%s", err.msg);
	assert_true(zkp_fr_eq(&v.comm_c, &f.w.comm_c));
	assert_true(zkp_fr_eq(&v.root_r_old, &f.w.root_r_old));
	assert_true(zkp_fr_eq(&v.root_r_new, &f.w.root_r_new));
	assert_true(zkp_fr_eq(&v.root_d_new, &f.w.comm_d_new));
	assert_memory_equal(v.apex_leaves, f.w.apex_leaves, 8 * sizeof(zkp_fr));
	for (unsigned i = 0; i < f.s.challenges; i++) {
		assert_true(zkp_fr_eq(&v.ch[i].leaf_r_new, &f.w.challenges[i].leaf_r_new));
		assert_memory_equal(&v.ch[i].d_new, &f.w.challenges[i].d_new, sizeof(zkp_path));
	}
	if (zkp_snap_vanilla_check(&v, 0, f.s.hs[3], &f.w.comm_r_old, &f.w.comm_d_new,
				   &f.w.comm_r_new, &err))
		fail_msg("%s", err.msg);

	/* Re-encoding the decoded proof gives the same bytes. */
	zkp_snap_witness w2;
	zkp_snap_vanilla_witness(&v, 0, f.s.hs[3], &f.w.comm_r_old, &f.w.comm_d_new,
				 &f.w.comm_r_new, &w2);
	uint8_t *again;
	size_t again_len;
	assert_int_equal(zkp_snap_vanilla_encode(&again, &again_len, &f.s, &w2, &err), 0);
	assert_int_equal(again_len, f.len);
	assert_memory_equal(again, f.buf, f.len);
	free(again);

	/* The decoded witness satisfies the circuit. */
	zkp_snap_job job = { &f.s, &w2 };
	gh_result r;
	gh_run(snap_gadget, &job, &r);
	assert_int_equal(r.check, 0);
	gh_result_release(&r);
	zkp_snap_vanilla_release(&v);
	teardown_update(&f);
}

/* Wrong public data and tampered values, each named. */
static void test_refusals(void **state)
{
	(void)state;
	struct fixture f;
	setup_update(&f, 16 << 10, 1);
	zkp_error err = { 0 };
	assert_int_equal(check(&f, f.buf, f.len, 1, &f.w.comm_r_new, &err), 0);

	/* the other partition's challenges */
	assert_int_equal(check(&f, f.buf, f.len, 0, &f.w.comm_r_new, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "partition 0, challenge 0: the proof is of leaf"));
	/* a partition past the sector's */
	assert_int_equal(check(&f, f.buf, f.len, 2, &f.w.comm_r_new, &err), ZKP_ERR_INVAL);
	/* another comm_r_new */
	zkp_fr other;
	tu_rand_fr(&other);
	assert_int_equal(check(&f, f.buf, f.len, 1, &other, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "root_r_new"));

	uint8_t *b = malloc(f.len);
	/* comm_c */
	memcpy(b, f.buf, f.len);
	b[5] ^= 1;
	assert_int_equal(check(&f, b, f.len, 1, &f.w.comm_r_new, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "Poseidon-2(comm_c, root_r_old)"));
	/* an apex leaf */
	memcpy(b, f.buf, f.len);
	b[8 + 32 + 8 + 32 * 77 + 3] ^= 1;
	assert_int_equal(check(&f, b, f.len, 1, &f.w.comm_r_new, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "partition 1"));
	/* the last byte: challenge 9's new replica leaf */
	memcpy(b, f.buf, f.len);
	b[f.len - 32] ^= 1;
	assert_int_equal(check(&f, b, f.len, 1, &f.w.comm_r_new, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "challenge 9: leaf"));
	assert_non_null(strstr(err.msg, "in tree R new hashes to"));
	/* a value not below r */
	memcpy(b, f.buf, f.len);
	memset(b, 0xff, 32);
	assert_int_equal(check(&f, b, f.len, 1, &f.w.comm_r_new, &err), ZKP_ERR_NOT_CANONICAL);
	assert_non_null(strstr(err.msg, "byte 0: comm_c"));
	/* the apex leaf count */
	memcpy(b, f.buf, f.len);
	b[32] = 64;
	assert_int_equal(check(&f, b, f.len, 1, &f.w.comm_r_new, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "byte 32: apex_leafs: length 64; expected 128"));
	/* a trailing byte */
	uint8_t *longer = malloc(f.len + 1);
	memcpy(longer, f.buf, f.len);
	longer[f.len] = 0;
	assert_int_equal(check(&f, longer, f.len + 1, 1, &f.w.comm_r_new, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "1 more bytes follow"));
	free(longer);

	/* Every truncation fails by name; random corruption never crashes
	 * and, with the check, is always refused. */
	for (size_t cut = 0; cut < f.len; cut += 1 + cut / 7) {
		assert_int_equal(check(&f, f.buf, cut, 1, &f.w.comm_r_new, &err),
				 ZKP_ERR_TRUNCATED);
		assert_non_null(strstr(err.msg, "SnapDeals vanilla proof, byte"));
	}
	for (int i = 0; i < 200; i++) {
		memcpy(b, f.buf, f.len);
		size_t at = tu_rand64() % f.len;
		b[at] ^= (uint8_t)(1 + tu_rand64() % 255);
		int rc = check(&f, b, f.len, 1, &f.w.comm_r_new, &err);
		if (rc == 0)
			fail_msg("a change at byte %zu was accepted", at);
	}
	free(b);
	teardown_update(&f);
}

/* The 32 GiB layout: 561,768 bytes a partition (docs/formats.md), and
 * the reader takes what the writer wrote. */
static void test_32g_layout(void **state)
{
	(void)state;
	zkp_snap_shape s;
	zkp_error err = { 0 };
	assert_int_equal(zkp_snap_shape_for_size(&s, 32ULL << 30, &err), 0);
	zkp_fr *apex = calloc(s.apex_leaves, sizeof(zkp_fr));
	zkp_snap_challenge *ch = calloc(s.challenges, sizeof(*ch));
	assert_non_null(apex);
	assert_non_null(ch);
	zkp_snap_witness w = { .apex_leaves = apex, .challenges = ch };
	uint8_t *buf;
	size_t len;
	assert_int_equal(zkp_snap_vanilla_encode(&buf, &len, &s, &w, &err), 0);
	assert_int_equal(len, 561768);
	zkp_snap_vanilla v;
	if (zkp_snap_vanilla_decode(&v, buf, len, &s, &err))
		fail_msg("%s", err.msg);
	zkp_snap_vanilla_release(&v);
	/* tree D's proof of challenge 0 is Single: its tag at 4,144 + 2,484 */
	assert_int_equal(buf[32 + 8 + 128 * 32 + 8 + 2484], 0);
	buf[32 + 8 + 128 * 32 + 8 + 2484] = 1;
	assert_int_equal(zkp_snap_vanilla_decode(&v, buf, len, &s, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "byte 6628: challenge_proofs[0].proof_d_new.data: a Sub proof, but a tree of arities 2-0-0 takes Single proofs"));
	free(buf);
	free(apex);
	free(ch);
}

/* The update bundle zkpd queues: round trip, and every malformed length
 * named. */
static void test_bundle(void **state)
{
	(void)state;
	struct fixture f;
	setup_update(&f, 16 << 10, 0);
	zkp_error err = { 0 };
	uint8_t c[3][32];
	zkp_fr_to_le(c[0], &f.w.comm_r_old);
	zkp_fr_to_le(c[1], &f.w.comm_d_new);
	zkp_fr_to_le(c[2], &f.w.comm_r_new);
	/* partition 1's proof from the same update */
	zkp_snap_witness w1;
	uint8_t *b1;
	size_t l1;
	assert_int_equal(zkp_snap_dev_partition(f.d, 1, &w1, NULL, &err), 0);
	assert_int_equal(zkp_snap_vanilla_encode(&b1, &l1, &f.s, &w1, &err), 0);
	const uint8_t *proofs[2] = { f.buf, b1 };
	size_t lens[2] = { f.len, l1 };
	uint8_t *bundle;
	size_t blen;
	assert_int_equal(zkp_snap_bundle_encode(&bundle, &blen, c[0], c[1], c[2], proofs, lens, 2, &err), 0);
	assert_int_equal(blen, 100 + 16 + f.len + l1);
	zkp_snap_update u;
	if (zkp_snap_update_from_bundle(&u, &f.s, bundle, blen, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(u.partitions, 2);
	assert_true(zkp_fr_eq(&u.comm_r_new, &f.w.comm_r_new));
	zkp_fr pub[4];
	assert_int_equal(zkp_snap_update_public_inputs(pub, &u, 1, &err), 0);
	zkp_snap_update_release(&u);

	/* the partitions swapped: partition 0's proof fails its challenges */
	const uint8_t *swapped[2] = { b1, f.buf };
	size_t slens[2] = { l1, f.len };
	uint8_t *sb;
	size_t sl;
	assert_int_equal(zkp_snap_bundle_encode(&sb, &sl, c[0], c[1], c[2], swapped, slens, 2, &err), 0);
	assert_int_equal(zkp_snap_update_from_bundle(&u, &f.s, sb, sl, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "partition 0: SnapDeals partition 0, challenge 0"));
	free(sb);

	assert_int_equal(zkp_snap_update_from_bundle(&u, &f.s, bundle, 99, &err), ZKP_ERR_FORMAT);
	assert_int_equal(zkp_snap_update_from_bundle(&u, &f.s, bundle, 104, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "byte 100: partition 0's length is cut short"));
	assert_int_equal(zkp_snap_update_from_bundle(&u, &f.s, bundle, blen - 1, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "partition 1's"));
	bundle[96] = 17;
	assert_int_equal(zkp_snap_update_from_bundle(&u, &f.s, bundle, blen, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "17 partitions"));
	bundle[96] = 1;
	assert_int_equal(zkp_snap_update_from_bundle(&u, &f.s, bundle, blen, &err), ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "more bytes follow"));
	bundle[96] = 2;
	bundle[0] ^= 1; /* comm_r_old */
	assert_int_equal(zkp_snap_update_from_bundle(&u, &f.s, bundle, blen, &err), ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "root_r_old"));
	free(bundle);
	free(b1);
	teardown_update(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_32g_layout),
		cmocka_unit_test(test_bundle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
