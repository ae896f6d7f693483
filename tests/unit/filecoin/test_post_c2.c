/*
 * PoSt partitions from vanilla proofs: development proofs of 2 KiB sectors
 * sealed over Filecoin's graph (post_dev.h) bundled as zkpd queues them,
 * decoded and checked (paths, comm_r, challenges from the randomness and
 * the sectors' positions), padded as rust-fil-proofs pads a short
 * partition, and their witness satisfying the Fallback PoSt circuit with
 * the derived public inputs; sectors put in ascending id; wrong
 * randomness, partition, proof type or bytes, one id twice, refused by
 * name.
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
#include "zkpd/porep_graph.h"
#include "zkpd/porep_seal.h"
#include "zkpd/post_c2.h"
#include "zkpd/post_dev.h"

#define WINDOW_2K_V1 5
#define WINDOW_2K_V1_2 10
#define WINNING_2K 0

static zkp_porep_sector *seal(uint64_t sector_id)
{
	const zkp_porep_proof *all, *p = NULL;
	size_t n;
	all = zkp_porep_proofs(&n);
	for (size_t i = 0; i < n; i++)
		if (all[i].sector_bytes == 2048 && all[i].mode == ZKP_POREP_INTERACTIVE &&
		    all[i].api == ZKP_POREP_V1_1)
			p = &all[i];
	assert_non_null(p);
	zkp_fr data[64];
	for (int i = 0; i < 64; i++)
		zkp_fr_set_u64(&data[i], tu_rand64());
	uint8_t prover[32] = { 7 }, ticket[32] = { 9 };
	zkp_porep_sector *sec;
	zkp_error err = { 0 };
	if (zkp_porep_seal_sector(&sec, p, data, prover, sector_id, ticket, &err))
		fail_msg("%s", err.msg);
	return sec;
}

/* A bundle of n sealed sectors (ids 100 + i) for proof type id at
 * partition k. */
static uint8_t *bundle(size_t *len, int64_t id, const uint8_t rnd[32], unsigned k, unsigned n,
		       unsigned index_k)
{
	zkp_post_proof_type pt;
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_proof_type_from_id(&pt, id, &err), 0);
	zkp_post_shape s;
	assert_int_equal(zkp_post_shape_for_size(&s, pt.kind, 2048, &err), 0);
	uint8_t *proofs[4];
	size_t lens[4];
	for (unsigned i = 0; i < n; i++) {
		zkp_porep_sector *sec = seal(100 + i);
		if (zkp_post_dev_vanilla(&proofs[i], &lens[i], sec, 100 + i, &pt, rnd,
					 (uint64_t)index_k * s.sectors + i, &err))
			fail_msg("%s", err.msg);
		zkp_porep_sector_free(sec);
	}
	uint8_t *b;
	assert_int_equal(zkp_post_bundle_encode(&b, len, (uint64_t)id, rnd, k,
						(const uint8_t *const *)proofs, lens, n, &err), 0);
	for (unsigned i = 0; i < n; i++)
		free(proofs[i]);
	return b;
}

static void post_gadget(zkp_cs *cs, void *ctx) { zkp_post_circuit_fn(cs, ctx); }

static void check_satisfies(const zkp_post_partition *p)
{
	zkp_post_witness w = { p->sectors };
	zkp_post_job job = { &p->shape, &w };
	gh_result r;
	gh_run(post_gadget, &job, &r);
	assert_int_equal(r.check, 0);
	uint64_t n_in = zkp_post_inputs(&p->shape);
	zkp_fr *pub = malloc((n_in - 1) * sizeof(zkp_fr));
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_partition_public_inputs(pub, p, &err), 0);
	for (uint64_t i = 0; i + 1 < n_in; i++)
		assert_true(zkp_fr_eq(&pub[i], &r.w[1 + i]));
	/* the library's own witness pass gives the same values */
	zkp_fr *w2 = malloc((r.inputs + r.aux) * sizeof(zkp_fr));
	assert_int_equal(zkp_post_partition_witness(w2, r.inputs, r.aux, p, &err), 0);
	assert_memory_equal(w2, r.w, (r.inputs + r.aux) * sizeof(zkp_fr));
	free(w2);
	free(pub);
	gh_result_release(&r);
}

static void test_window_and_winning(void **state)
{
	(void)state;
	uint8_t rnd[32] = { 1, 2, 3 };
	static const struct {
		int64_t id;
		unsigned k, n;
	} c[] = {
		{ WINDOW_2K_V1, 0, 2 },   /* a full partition */
		{ WINDOW_2K_V1, 3, 1 },   /* partition 3, one sector: padded */
		{ WINDOW_2K_V1_2, 1, 2 }, /* the grindability fix's indices */
		{ WINNING_2K, 0, 1 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t len;
		uint8_t *b = bundle(&len, c[i].id, rnd, c[i].k, c[i].n, c[i].k);
		zkp_post_proof_type pt;
		zkp_error err = { 0 };
		zkp_post_proof_type_from_id(&pt, c[i].id, &err);
		zkp_post_partition p;
		if (zkp_post_partition_from_bundle(&p, pt.kind, 2048, b, len, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(p.n, c[i].n);
		check_satisfies(&p);
		zkp_post_partition_release(&p);
		free(b);
	}
}

/* The proofs of sectors 100 and 101, each made for its place in id
 * order. */
static void two_proofs(uint8_t *proofs[2], size_t lens[2], int64_t id, const uint8_t rnd[32])
{
	zkp_post_proof_type pt;
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_proof_type_from_id(&pt, id, &err), 0);
	for (unsigned i = 0; i < 2; i++) {
		zkp_porep_sector *sec = seal(100 + i);
		if (zkp_post_dev_vanilla(&proofs[i], &lens[i], sec, 100 + i, &pt, rnd, i, &err))
			fail_msg("%s", err.msg);
		zkp_porep_sector_free(sec);
	}
}

/* Their bundle, given as order[0], order[1] (0: sector 100). */
static uint8_t *bundle_in_order(size_t *len, int64_t id, const uint8_t rnd[32],
				uint8_t *const proofs[2], const size_t lens[2],
				const unsigned order[2])
{
	const uint8_t *given[2] = { proofs[order[0]], proofs[order[1]] };
	size_t glens[2] = { lens[order[0]], lens[order[1]] };
	uint8_t *b;
	zkp_error err = { 0 };
	assert_int_equal(zkp_post_bundle_encode(&b, len, (uint64_t)id, rnd, 0, given, glens, 2,
						&err),
			 0);
	return b;
}

/* A partition's sectors are proved in ascending sector id whatever order
 * the job gives (rust-fil-proofs' ordered map, the chain's order): a
 * misordered job has the sorted job's public inputs and a satisfying
 * witness, for V1 (challenges hash the position) and V1_2 (they do not,
 * so only the order of the public inputs shows it). One id twice is
 * refused, naming both places. */
static void test_sector_order(void **state)
{
	(void)state;
	uint8_t rnd[32] = { 7, 1 };
	static const unsigned sorted[2] = { 0, 1 }, swapped[2] = { 1, 0 }, twice[2] = { 1, 1 };
	static const int64_t types[2] = { WINDOW_2K_V1, WINDOW_2K_V1_2 };
	for (int t = 0; t < 2; t++) {
		zkp_error err = { 0 };
		zkp_post_partition a, b;
		uint8_t *proofs[2];
		size_t lens[2], la, lb;
		two_proofs(proofs, lens, types[t], rnd);
		uint8_t *ba = bundle_in_order(&la, types[t], rnd, proofs, lens, sorted);
		uint8_t *bb = bundle_in_order(&lb, types[t], rnd, proofs, lens, swapped);
		assert_int_equal(zkp_post_partition_from_bundle(&a, ZKP_POST_WINDOW, 2048, ba, la,
								&err),
				 0);
		if (zkp_post_partition_from_bundle(&b, ZKP_POST_WINDOW, 2048, bb, lb, &err))
			fail_msg("type %d, sectors 101, 100: %s", (int)types[t], err.msg);
		assert_int_equal(b.vanilla[0].sector.sector_id, 100);
		assert_int_equal(b.vanilla[1].sector.sector_id, 101);
		uint64_t n_in = zkp_post_inputs(&a.shape) - 1;
		zkp_fr *pa = malloc(n_in * sizeof(zkp_fr)), *pb = malloc(n_in * sizeof(zkp_fr));
		assert_int_equal(zkp_post_partition_public_inputs(pa, &a, &err), 0);
		assert_int_equal(zkp_post_partition_public_inputs(pb, &b, &err), 0);
		assert_memory_equal(pa, pb, n_in * sizeof(zkp_fr));
		check_satisfies(&b);
		free(pa);
		free(pb);
		zkp_post_partition_release(&a);
		zkp_post_partition_release(&b);
		free(ba);
		free(bb);
		ba = bundle_in_order(&la, types[t], rnd, proofs, lens, twice);
		assert_int_equal(zkp_post_partition_from_bundle(&a, ZKP_POST_WINDOW, 2048, ba, la,
								&err),
				 ZKP_ERR_INVAL);
		assert_non_null(strstr(err.msg, "sectors 0 and 1 both have sector id 101"));
		free(ba);
		free(proofs[0]);
		free(proofs[1]);
	}
}

static void test_refusals(void **state)
{
	(void)state;
	uint8_t rnd[32] = { 5 }, other[32] = { 6 };
	zkp_error err = { 0 };
	zkp_post_partition p;
	size_t len;
	/* proofs made for partition 1 claimed as partition 0 (V1 hashes the
	 * sector's position) */
	uint8_t *b = bundle(&len, WINDOW_2K_V1, rnd, 0, 2, 1);
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 2048, b, len, &err),
			 ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "PoSt job, sector 0"));
	free(b);
	/* other randomness */
	b = bundle(&len, WINDOW_2K_V1, rnd, 0, 2, 0);
	memcpy(b + 8, other, 32);
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 2048, b, len, &err),
			 ZKP_ERR_MISMATCH);
	memcpy(b + 8, rnd, 32);
	/* a window proof on a winning circuit, or of another size */
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINNING, 2048, b, len, &err),
			 ZKP_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "StackedDrgWindow2KiBV1"));
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 8 << 20, b, len, &err),
			 ZKP_ERR_MISMATCH);
	/* a changed sibling in the second sector */
	b[len - 100] ^= 1;
	int rc = zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 2048, b, len, &err);
	assert_true(rc == ZKP_ERR_MISMATCH || rc == ZKP_ERR_NOT_CANONICAL);
	assert_non_null(strstr(err.msg, "sector 1"));
	b[len - 100] ^= 1;
	/* truncated, trailing, counts */
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 2048, b, 40, &err),
			 ZKP_ERR_FORMAT);
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 2048, b, len - 1, &err),
			 ZKP_ERR_FORMAT);
	b[44] = 3;
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 2048, b, len, &err),
			 ZKP_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "3 sectors"));
	b[44] = 2;
	b[0] = 99;
	assert_int_equal(zkp_post_partition_from_bundle(&p, ZKP_POST_WINDOW, 2048, b, len, &err),
			 ZKP_ERR_INVAL);
	free(b);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_and_winning),
		cmocka_unit_test(test_sector_order),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
