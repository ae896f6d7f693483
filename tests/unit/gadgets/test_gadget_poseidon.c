/*
 * Poseidon in the circuit: neptune's row counts (311 / 377 / 505 / 598 for
 * arity 2 / 4 / 8 / 11, and 761 / 1009 / 1385 for 16 / 24 / 36), the
 * non-zeros per matrix of one hash (the term structure the official keys
 * fix: arity 2 A 2,119 B 313 C 386; 8: 3,598 / 513 / 624; 11: 4,462 / 609 /
 * 738, each counting the inputs' allocations), and the digest equal to the
 * native hash on the known-answer input [0, 1, ..., arity-1] and random
 * inputs, with the witness satisfying every row.
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
#include "zkpd/gadgets.h"

struct pos_case {
	const zkp_poseidon_consts *c;
	zkp_fr in[ZKP_POSEIDON_MAX_ARITY];
	zkp_num out;
};

static void pos_gadget(zkp_cs *cs, void *ctx)
{
	struct pos_case *p = ctx;
	zkp_num in[ZKP_POSEIDON_MAX_ARITY];
	for (unsigned i = 0; i < p->c->arity; i++)
		in[i] = zkp_num_alloc(cs, &p->in[i]);
	zkp_num out = zkp_poseidon_circuit(cs, p->c, in);
	if (zkp_cs_witness(cs))
		p->out = out;
}

static void test_counts(void **state)
{
	(void)state;
	static const struct {
		unsigned arity;
		uint64_t rows, a, b, c;
	} want[] = {
		{ 2, 311, 2119, 313, 386 },  { 4, 377, 0, 0, 0 },     { 8, 505, 3598, 513, 624 },
		{ 11, 598, 4462, 609, 738 }, { 16, 761, 0, 0, 0 },    { 24, 1009, 0, 0, 0 },
		{ 36, 1385, 0, 0, 0 },
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		struct pos_case p = { 0 };
		assert_int_equal(zkp_poseidon_consts_get(&p.c, want[k].arity), 0);
		gh_result r;
		gh_run(pos_gadget, &p, &r);
		assert_int_equal(r.rows, want[k].rows);
		assert_int_equal(r.aux, want[k].arity + want[k].rows); /* one variable per row */
		assert_int_equal(r.check, 0);
		if (want[k].a) {
			assert_int_equal(r.nnz[0], want[k].a);
			assert_int_equal(r.nnz[1], want[k].b);
			assert_int_equal(r.nnz[2], want[k].c);
		}
		gh_result_release(&r);
	}
}

static void test_digests(void **state)
{
	(void)state;
	static const unsigned arities[] = { 2, 4, 8, 11, 16 };
	for (size_t k = 0; k < sizeof(arities) / sizeof(arities[0]); k++) {
		for (int t = 0; t < 3; t++) {
			struct pos_case p = { 0 };
			assert_int_equal(zkp_poseidon_consts_get(&p.c, arities[k]), 0);
			for (unsigned i = 0; i < p.c->arity; i++) {
				if (t == 0) {
					zkp_fr_set_u64(&p.in[i], i);
				} else {
					uint64_t wide[8];
					tu_rand_bytes(wide, sizeof(wide));
					zkp_fr_from_wide(&p.in[i], wide);
				}
			}
			gh_result r;
			gh_run(pos_gadget, &p, &r);
			assert_int_equal(r.check, 0);
			zkp_fr want;
			zkp_poseidon_hash(&want, p.c, p.in);
			assert_true(zkp_fr_eq(&p.out.value, &want));
			assert_true(zkp_fr_eq(&r.w[r.inputs + p.out.var], &want));
			/* a wrong digest variable fails the last row */
			zkp_fr_add(&r.w[r.inputs + p.out.var], &want, &ZKP_FR_ONE);
			assert_int_equal(gh_recheck(&r), ZKP_ERR_UNSATISFIED);
			assert_int_equal(r.first_bad_row, r.rows - 1);
			gh_result_release(&r);
		}
	}
}

/* The known-answer vector of neptune for arity 8 through the circuit. */
static void test_kat_arity8(void **state)
{
	(void)state;
	static const uint64_t want[4] = { 0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9,
					  0x1201004211677077, 0x2394611da3a5de55 };
	struct pos_case p = { 0 };
	assert_int_equal(zkp_poseidon_consts_get(&p.c, 8), 0);
	for (unsigned i = 0; i < 8; i++)
		zkp_fr_set_u64(&p.in[i], i);
	gh_result r;
	gh_run(pos_gadget, &p, &r);
	uint64_t got[4];
	zkp_fr_to_limbs(got, &p.out.value);
	assert_memory_equal(got, want, sizeof(want));
	gh_result_release(&r);
}

/* Recorded rows replayed give the very circuit the direct gadget gives:
 * hashes chained, inputs both public and private at scattered positions,
 * the custom-tag constants, and a repeated input (which replay declines). */
struct chain {
	bool direct;
	zkp_fr in[4];
};

static void chain_gadget(zkp_cs *cs, void *ctx)
{
	struct chain *ch = ctx;
	zkp_num (*hash)(zkp_cs *, const zkp_poseidon_consts *, const zkp_num *) =
		ch->direct ? zkp_poseidon_circuit_direct : zkp_poseidon_circuit;
	const zkp_poseidon_consts *c2, *c8, *gen;
	assert_int_equal(zkp_poseidon_consts_get(&c2, 2), 0);
	assert_int_equal(zkp_poseidon_consts_get(&c8, 8), 0);
	assert_int_equal(zkp_poseidon_consts_get_custom(&gen, 2, 1), 0);
	zkp_num a = zkp_num_alloc(cs, &ch->in[0]);
	zkp_num_inputize(cs, &a);
	zkp_num b = zkp_num_alloc(cs, &ch->in[1]);
	zkp_num pair[2] = { b, a };
	zkp_num h = hash(cs, c2, pair);
	zkp_num eight[8];
	for (int i = 0; i < 8; i++)
		eight[i] = i == 5 ? h : zkp_num_alloc(cs, &ch->in[2 + i % 2]);
	zkp_num h8 = hash(cs, c8, eight);
	zkp_num g[2] = { h8, a };
	zkp_num hg = hash(cs, gen, g);
	zkp_num same[2] = { hg, hg };
	zkp_num out = hash(cs, c2, same);
	zkp_num_inputize(cs, &out);
}

static void test_replay_equals_direct(void **state)
{
	(void)state;
	struct chain ch[2] = { { .direct = true }, { .direct = false } };
	for (int i = 0; i < 4; i++) {
		uint64_t wide[8];
		tu_rand_bytes(wide, sizeof(wide));
		zkp_fr_from_wide(&ch[0].in[i], wide);
		ch[1].in[i] = ch[0].in[i];
	}
	gh_result r[2];
	for (int k = 0; k < 2; k++) {
		gh_run(chain_gadget, &ch[k], &r[k]);
		assert_int_equal(r[k].check, 0);
	}
	assert_int_equal(r[0].rows, r[1].rows);
	assert_int_equal(r[0].aux, r[1].aux);
	assert_memory_equal(r[0].nnz, r[1].nnz, sizeof(r[0].nnz));
	assert_memory_equal(zkp_pce_digest(r[0].pce), zkp_pce_digest(r[1].pce), ZKP_PCE_DIGEST_BYTES);
	assert_memory_equal(r[0].w, r[1].w, (r[0].inputs + r[0].aux) * sizeof(zkp_fr));
	gh_result_release(&r[0]);
	gh_result_release(&r[1]);
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_digests),
		cmocka_unit_test(test_kat_arity8),
		cmocka_unit_test(test_replay_equals_direct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
