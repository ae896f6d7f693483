/*
 * The Fallback PoSt circuit: its structural fingerprint on rust-fil-proofs'
 * test shape (3 sectors x 5 challenges on base-8 trees of 64 leaves:
 * 16,869 rows), the published WindowPoSt partitions (125,279,217 rows for
 * 32 GiB, 129,887,900 for 64 GiB) from one sector's rows, the inputs of
 * WinningPoSt (68) and the 2 KiB WindowPoSt partition, witnesses from development-sealed sectors that
 * satisfy the rows (and a tampered one that does not), a real 32 GiB
 * WindowPoSt vanilla proof whose witness satisfies the rows, the public inputs
 * a verifier derives, labels, and bad shapes refused by name.
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
#include "zkpd/porep_c1.h"
#include "zkpd/porep_seal.h"
#include "zkpd/post.h"
#include "zkpd/post_vanilla.h"
#include "zkpd/rng.h"

static void post_gadget(zkp_cs *cs, void *ctx)
{
	zkp_post_job *j = ctx;
	zkp_post_circuit_fn(cs, j);
}

static void test_fallback_test_shape(void **state)
{
	(void)state;
	zkp_post_shape s = { .kind = ZKP_POST_WINDOW, .nodes = 64, .sectors = 3, .challenges = 5,
			     .tree = { 8, 0, 0 } };
	zkp_error err = { 0 };
	if (zkp_post_shape_check(&s, &err))
		fail_msg("%s", err.msg);
	zkp_post_job job = { &s, NULL };
	gh_result r;
	gh_shape(post_gadget, &job, &r);
	assert_int_equal(r.rows, 16869);
	assert_int_equal(r.inputs, 19);
	assert_int_equal(r.inputs, zkp_post_inputs(&s));
}

static void test_published_small(void **state)
{
	(void)state;
	zkp_post_shape s;
	zkp_error err = { 0 };
	gh_result r;
	zkp_post_job job = { &s, NULL };
	/* WinningPoSt, 32 GiB: one sector, 66 challenges of 10 octree levels */
	assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINNING, 32ULL << 30, &err), 0);
	assert_int_equal(s.sectors, 1);
	assert_int_equal(s.challenges, 66);
	gh_shape(post_gadget, &job, &r);
	assert_int_equal(r.inputs, 68);
	assert_int_equal(r.rows, 313 + 66 * (10 * 530 + 2));
	/* WindowPoSt, 2 KiB: 2 sectors x 10 challenges, 2 octree levels */
	assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINDOW, 2048, &err), 0);
	assert_int_equal(s.sectors, 2);
	gh_shape(post_gadget, &job, &r);
	assert_int_equal(r.inputs, 23);
	assert_int_equal(r.rows, 2 * (313 + 10 * (2 * 530 + 2)));
	/* 64 GiB WindowPoSt: 2,300 sectors, a binary top level */
	assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINDOW, 64ULL << 30, &err), 0);
	assert_int_equal(s.sectors, 2300);
	assert_int_equal(zkp_post_inputs(&s), 25301);
	char d[128];
	zkp_post_describe(d, sizeof(d), &s);
	assert_string_equal(d, "64GiB WindowPoSt: 2300 sectors x 10 challenges, 2^31 nodes, tree 8-8-2");
}

/* The published WindowPoSt partitions, from one sector's synthesis: the
 * circuit repeats the same block per sector, so sectors x one sector's
 * rows is the partition's (test_post_32g, label full, counts the whole
 * partitions: about 6 minutes each). */
static void test_published_partitions(void **state)
{
	(void)state;
	static const struct {
		uint64_t bytes, rows, inputs;
		unsigned sectors;
	} p[] = {
		{ 32ULL << 30, 125279217, 25840, 2349 },
		{ 64ULL << 30, 129887900, 25301, 2300 },
	};
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		zkp_post_shape s;
		zkp_error err = { 0 };
		assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINDOW, p[i].bytes, &err), 0);
		assert_int_equal(s.sectors, p[i].sectors);
		assert_int_equal(zkp_post_inputs(&s), p[i].inputs);
		s.sectors = 1;
		zkp_post_job job = { &s, NULL };
		gh_result r;
		gh_shape(post_gadget, &job, &r);
		assert_int_equal(r.rows * p[i].sectors, p[i].rows);
		assert_int_equal(1 + (r.inputs - 1) * p[i].sectors, p[i].inputs);
	}
}

/* A development-sealed sector (random data, random parents) and its
 * challenges' tree R leaves and paths. */
struct dev_sector {
	zkp_porep_sector *sec;
	zkp_post_challenge ch[8];
};

struct parents {
	uint64_t nodes;
	zkp_rng rng;
};

static void random_parents(void *ctx, uint64_t node, uint32_t out[ZKP_POREP_PARENTS])
{
	struct parents *p = ctx;
	for (unsigned k = 0; k < ZKP_POREP_PARENTS; k++)
		out[k] = k < ZKP_POREP_DRG_PARENTS ? (node ? (uint32_t)(zkp_rng_next(&p->rng) % node) : 0)
						   : (uint32_t)(zkp_rng_next(&p->rng) % p->nodes);
}

static void dev_sector(struct dev_sector *d, const zkp_post_shape *s, zkp_post_sector *out)
{
	zkp_porep_shape ps = { .nodes = s->nodes, .layers = 2, .challenges = 1,
			       .tree = { s->tree[0], s->tree[1], s->tree[2] } };
	zkp_fr *data = malloc(s->nodes * sizeof(zkp_fr)), rid;
	assert_non_null(data);
	for (uint64_t n = 0; n < s->nodes; n++)
		tu_rand_fr(&data[n]);
	tu_rand_fr(&rid);
	struct parents p = { .nodes = s->nodes };
	zkp_rng_seed(&p.rng, tu_rand64());
	zkp_error err = { 0 };
	if (zkp_porep_sector_seal(&d->sec, &ps, data, &rid, random_parents, &p, &err))
		fail_msg("%s", err.msg);
	free(data);
	assert_true(s->challenges <= 8);
	for (unsigned i = 0; i < s->challenges; i++) {
		zkp_porep_c1_challenge c;
		uint64_t node = 1 + tu_rand64() % (s->nodes - 1);
		zkp_porep_sector_challenge(d->sec, node, &c);
		d->ch[i].node = node;
		d->ch[i].leaf = c.comm_r_last_leaf;
		d->ch[i].path = c.ch.comm_r_last_path;
	}
	*out = (zkp_post_sector){ .sector_id = tu_rand64(),
				  .comm_r = *zkp_porep_sector_comm_r(d->sec),
				  .comm_c = *zkp_porep_sector_comm_c(d->sec),
				  .comm_r_last = *zkp_porep_sector_comm_r_last(d->sec),
				  .challenges = d->ch };
}

static void check_satisfied(const zkp_post_shape *s)
{
	struct dev_sector dev[3];
	zkp_post_sector sec[3];
	assert_true(s->sectors <= 3);
	for (unsigned i = 0; i < s->sectors; i++)
		dev_sector(&dev[i], s, &sec[i]);
	zkp_post_witness w = { sec };
	zkp_post_job job = { s, &w };
	gh_result r;
	gh_run(post_gadget, &job, &r);
	if (r.check)
		fail_msg("unsatisfied at row %llu", (unsigned long long)r.first_bad_row);

	/* The inputs a verifier derives are the witness's. */
	uint64_t n_in = zkp_post_inputs(s);
	zkp_fr *pub = malloc((n_in - 1) * sizeof(zkp_fr)), comm_r[3];
	uint64_t nodes[24];
	for (unsigned i = 0; i < s->sectors; i++) {
		comm_r[i] = sec[i].comm_r;
		for (unsigned c = 0; c < s->challenges; c++)
			nodes[i * s->challenges + c] = dev[i].ch[c].node;
	}
	zkp_post_public_inputs(pub, s, comm_r, nodes);
	for (uint64_t k = 0; k + 1 < n_in; k++)
		if (!zkp_fr_eq(&pub[k], &r.w[1 + k]))
			fail_msg("public input %llu differs from the witness's",
				 (unsigned long long)k);
	free(pub);
	gh_result_release(&r);

	/* A leaf that is not in the tree, or a comm_c that does not give
	 * comm_r, leaves rows unsatisfied. */
	zkp_fr_add(&dev[s->sectors - 1].ch[0].leaf, &dev[s->sectors - 1].ch[0].leaf, &ZKP_FR_ONE);
	gh_run(post_gadget, &job, &r);
	assert_int_not_equal(r.check, 0);
	gh_result_release(&r);
	zkp_fr_sub(&dev[s->sectors - 1].ch[0].leaf, &dev[s->sectors - 1].ch[0].leaf, &ZKP_FR_ONE);
	zkp_fr_add(&sec[0].comm_c, &sec[0].comm_c, &ZKP_FR_ONE);
	gh_run(post_gadget, &job, &r);
	assert_int_not_equal(r.check, 0);
	gh_result_release(&r);

	for (unsigned i = 0; i < s->sectors; i++)
		zkp_porep_sector_free(dev[i].sec);
}

static void test_witness_satisfies(void **state)
{
	(void)state;
	zkp_post_shape octree = { .kind = ZKP_POST_WINDOW, .nodes = 64, .sectors = 2,
				  .challenges = 5, .tree = { 8, 0, 0 } };
	check_satisfied(&octree);
	zkp_post_shape top = { .kind = ZKP_POST_WINNING, .nodes = 128, .sectors = 1,
			       .challenges = 8, .tree = { 8, 8, 2 } };
	check_satisfied(&top);
	zkp_post_shape three = { .kind = ZKP_POST_WINDOW, .nodes = 256, .sectors = 3,
				 .challenges = 2, .tree = { 8, 4, 0 } };
	check_satisfied(&three);
}

/* A real WindowPoSt vanilla proof of one 32 GiB sector (tests/vectors/
 * post-32g): its witness satisfies a one-sector circuit of the 32 GiB
 * shape (53,333 rows), and the public inputs derived from the zero
 * randomness, sector 1 and its comm_r are the witness's. */
static void test_real_windowpost_satisfies(void **state)
{
	(void)state;
	zkp_post_shape s;
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINDOW, 32ULL << 30, &err), 0);
	s.sectors = 1;
	zkp_tree_shape tr;
	zkp_post_tree_r(&s, &tr);
	size_t len;
	uint8_t *b = tu_read_vector_file("post-32g/post.vproof", &len);
	zkp_post_vanilla v;
	int rc = zkp_post_vanilla_decode(&v, b, len, &tr, &err);
	free(b);
	if (rc)
		fail_msg("decode: %s", err.msg);
	assert_int_equal(v.challenges, s.challenges);

	zkp_post_witness w = { &v.sector };
	zkp_post_job job = { &s, &w };
	gh_result r;
	gh_run(post_gadget, &job, &r);
	assert_int_equal(r.rows, 53333);
	if (r.check)
		fail_msg("unsatisfied at row %llu", (unsigned long long)r.first_bad_row);

	uint8_t zero[32] = { 0 };
	uint64_t nodes[ZKP_POST_WINDOW_CHALLENGES];
	for (unsigned c = 0; c < s.challenges; c++)
		assert_int_equal(zkp_post_leaf_challenge(&nodes[c], zero, 1,
							 zkp_post_challenge_index(ZKP_POST_V1, 0,
										  s.challenges, c),
							 s.nodes, &err),
				 0);
	zkp_fr pub[1 + ZKP_POST_WINDOW_CHALLENGES];
	zkp_post_public_inputs(pub, &s, &v.sector.comm_r, nodes);
	for (unsigned k = 0; k < 1 + s.challenges; k++)
		if (!zkp_fr_eq(&pub[k], &r.w[1 + k]))
			fail_msg("public input %u differs from the witness's", k);
	gh_result_release(&r);
	zkp_post_vanilla_release(&v);
}

static void test_labels_and_bad_shapes(void **state)
{
	(void)state;
	zkp_post_shape s, back;
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINDOW, 32ULL << 30, &err), 0);
	uint8_t label[32];
	zkp_post_label_encode(label, &s);
	assert_true(zkp_post_label_decode(&back, label));
	assert_int_equal(back.kind, s.kind);
	assert_int_equal(back.nodes, s.nodes);
	assert_int_equal(back.sectors, s.sectors);
	assert_int_equal(back.challenges, s.challenges);
	assert_int_equal(back.sector_bytes, s.sector_bytes);
	for (int i = 0; i < 3; i++)
		assert_int_equal(back.tree[i], s.tree[i]);
	label[0] = 'X';
	assert_false(zkp_post_label_decode(&back, label));

	assert_int_equal(zkp_post_shape_for_size(&s, ZKP_POST_WINDOW, 4096, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "4096"));
	enum zkp_post_kind k;
	assert_int_equal(zkp_post_kind_parse(&k, "winning", &err), 0);
	assert_int_equal(k, ZKP_POST_WINNING);
	assert_int_equal(zkp_post_kind_parse(&k, "snap", &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "'snap'"));
	s = (zkp_post_shape){ .nodes = 64, .sectors = 0, .challenges = 1, .tree = { 8, 0, 0 } };
	assert_int_equal(zkp_post_shape_check(&s, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "sectors = 0"));
	s.sectors = 1;
	s.challenges = 0;
	assert_int_equal(zkp_post_shape_check(&s, &err), ZKP_ERR_INVAL);
	assert_non_null(strstr(err.msg, "challenges = 0"));
	s.challenges = 1;
	s.nodes = 32;
	assert_int_equal(zkp_post_shape_check(&s, &err), ZKP_ERR_INVAL);
	s.nodes = 64;
	s.tree[0] = 16;
	assert_int_equal(zkp_post_shape_check(&s, &err), ZKP_ERR_INVAL);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallback_test_shape),
		cmocka_unit_test(test_published_small),
		cmocka_unit_test(test_published_partitions),
		cmocka_unit_test(test_witness_satisfies),
		cmocka_unit_test(test_real_windowpost_satisfies),
		cmocka_unit_test(test_labels_and_bad_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
