/*
 * Poseidon constants and hashes against outside oracles:
 *  - round numbers against the table in neptune's round_numbers.rs test;
 *  - the Grain output against neptune's parameters/round_constants-1-1-255-
 *    9-8-57-... file (585 constants, made by the Poseidon authors' script);
 *  - every element of supraseal's constant files for arities 2, 8 and 11
 *    (compressed constants, MDS, pre-sparse, every sparse matrix);
 *  - neptune's known-answer digests (poseidon.rs hash_values_aux, Standard)
 *    for all seven Filecoin arities, by both hash paths;
 * then the optimized path against the textbook one on random inputs for
 * every arity 1..36, custom domain tags, concurrent first use, and the
 * trimmed SHA-256 helpers against standard SHA-256 values.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "testutil.h"
#include "test_fr.h"
#include "zkpd/error.h"
#include "zkpd/fil_sha256.h"
#include "zkpd/poseidon.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- first use from many threads at once ---- */

#define NTHREADS 6
#define THREAD_ARITY 16

static void *get_in_thread(void *arg)
{
	const zkp_poseidon_consts **ret = arg;
	if (zkp_poseidon_consts_get(ret, THREAD_ARITY) != 0)
		*ret = NULL;
	return NULL;
}

/* Runs first, so the threads race to build arity 16. */
static void test_concurrent_first_use(void **state)
{
	(void)state;
	pthread_t th[NTHREADS];
	const zkp_poseidon_consts *got[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, get_in_thread, &got[i]), 0);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		assert_non_null(got[i]);
		assert_ptr_equal(got[i], got[0]);
	}
	assert_int_equal(got[0]->arity, THREAD_ARITY);
}

/* ---- round numbers ---- */

static void test_round_numbers(void **state)
{
	(void)state;
	/* neptune round_numbers.rs test_round_numbers_against_known_values */
	static const unsigned cases[][2] = {
		{ 2, 55 },  { 3, 55 },  { 4, 56 },  { 5, 56 },  { 6, 56 },
		{ 7, 56 },  { 8, 57 },  { 9, 57 },  { 10, 57 }, { 11, 57 },
		{ 12, 57 }, { 13, 57 }, { 14, 57 }, { 15, 57 }, { 16, 59 },
		{ 17, 59 }, { 25, 59 }, { 37, 60 }, { 65, 61 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned rf = 0, rp = 0;
		assert_int_equal(zkp_poseidon_round_numbers(&rf, &rp, cases[i][0]), 0);
		if (rf != 8 || rp != cases[i][1])
			fail_msg("t = %u: R_F = %u, R_P = %u; neptune has 8, %u", cases[i][0], rf,
				 rp, cases[i][1]);
	}
	unsigned rf, rp;
	assert_int_equal(zkp_poseidon_round_numbers(&rf, &rp, 1), ZKP_ERR_INVAL);
	assert_int_equal(zkp_poseidon_round_numbers(&rf, &rp, 4096), ZKP_ERR_INVAL);

	/* the struct carries the same numbers */
	static const unsigned arities[][2] = { { 2, 55 },  { 4, 56 },  { 8, 57 }, { 11, 57 },
					       { 16, 59 }, { 24, 59 }, { 36, 60 } };
	for (size_t i = 0; i < 7; i++) {
		const zkp_poseidon_consts *c;
		assert_int_equal(zkp_poseidon_consts_get(&c, arities[i][0]), 0);
		assert_int_equal(c->arity, arities[i][0]);
		assert_int_equal(c->t, arities[i][0] + 1);
		assert_int_equal(c->rf, 8);
		assert_int_equal(c->rp, arities[i][1]);
	}
}

/* ---- Grain round constants ---- */

static void test_grain_against_neptune_file(void **state)
{
	(void)state;
	size_t len;
	char *txt = (char *)tu_read_vector_file("neptune_round_constants_t9_rf8_rp57.txt", &len);
	txt[len] = '\0';
	const zkp_poseidon_consts *c;
	assert_int_equal(zkp_poseidon_consts_get(&c, 8), 0);
	assert_int_equal(c->t * (c->rf + c->rp), 585);

	/* the constants are the '0x' + 64 hex digit strings of the list line */
	const char *p = strstr(txt, "['0x");
	assert_non_null(p);
	size_t n = 0;
	while ((p = strstr(p, "'0x")) != NULL) {
		char hex[67];
		memcpy(hex, p + 1, 66);
		hex[66] = '\0';
		uint8_t be[32];
		assert_int_equal(tu_hex_to_bytes(be, 32, hex), 32);
		zkp_fr want;
		assert_int_equal(zkp_fr_from_be(&want, be), 0);
		assert_true(n < 585);
		if (!zkp_fr_eq(&want, &c->round_constants[n]))
			fail_msg("round constant %zu differs from neptune's file (%s)", n, hex);
		n++;
		p += 67;
	}
	assert_int_equal(n, 585);
	free(txt);
}

/* ---- supraseal's constant files, element by element ---- */

static void fr_mont_le(uint8_t out[32], const zkp_fr *a)
{
	for (int i = 0; i < ZKP_FR_LIMBS; i++)
		for (int b = 0; b < 8; b++)
			out[8 * i + b] = (uint8_t)(a->l[i] >> (8 * b));
}

/* Compares n elements at file offset *pos (in elements) with want[0..n). */
static size_t compare_section(const uint8_t *file, size_t *pos, const zkp_fr *want, size_t n,
			      const char *what, unsigned arity)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t mine[32];
		fr_mont_le(mine, &want[i]);
		if (memcmp(mine, file + 32 * (*pos + i), 32) != 0) {
			if (bad < 5)
				fprintf(stderr, "arity %u: %s[%zu] (file element %zu) differs\n",
					arity, what, i, *pos + i);
			bad++;
		}
	}
	*pos += n;
	return bad;
}

static void check_supraseal(unsigned arity, unsigned rp)
{
	char name[64];
	snprintf(name, sizeof(name), "supraseal_poseidon_constants_%u.bin", arity);
	size_t len;
	uint8_t *file = tu_read_vector_file(name, &len);
	const zkp_poseidon_consts *c;
	assert_int_equal(zkp_poseidon_consts_get(&c, arity), 0);
	unsigned t = c->t;
	assert_int_equal(c->rp, rp);
	size_t elems = (size_t)t * c->rf + rp + 2 * (size_t)t * t + (size_t)rp * (2 * t - 1);
	assert_int_equal(len, 32 * elems);

	size_t pos = 0, bad = 0;
	bad += compare_section(file, &pos, c->compressed_rc, (size_t)t * c->rf + rp,
			       "compressed_rc", arity);
	bad += compare_section(file, &pos, c->mds, (size_t)t * t, "mds", arity);
	bad += compare_section(file, &pos, c->pre_sparse, (size_t)t * t, "pre_sparse", arity);
	for (unsigned r = 0; r < rp; r++) {
		char what[32];
		snprintf(what, sizeof(what), "sparse %u w_hat", r);
		bad += compare_section(file, &pos, c->w_hat + (size_t)r * t, t, what, arity);
		snprintf(what, sizeof(what), "sparse %u v_rest", r);
		bad += compare_section(file, &pos, c->v_rest + (size_t)r * (t - 1), t - 1, what,
				       arity);
	}
	assert_int_equal(pos, elems);
	if (bad)
		fail_msg("arity %u: %zu of %zu elements differ from %s", arity, bad, elems, name);
	free(file);
}

static void test_supraseal_2(void **state)
{
	(void)state;
	check_supraseal(2, 55);
}

static void test_supraseal_8(void **state)
{
	(void)state;
	check_supraseal(8, 57);
}

static void test_supraseal_11(void **state)
{
	(void)state;
	check_supraseal(11, 57);
}

/* The MDS matrix is the Cauchy matrix 1/(i + j + t); the pre-sparse matrix is
 * not symmetric, so its orientation matters (the header's contract). */
static void test_matrix_shapes(void **state)
{
	(void)state;
	static const unsigned arities[] = { 2, 4, 8, 11, 16, 24, 36 };
	for (size_t a = 0; a < 7; a++) {
		const zkp_poseidon_consts *c;
		assert_int_equal(zkp_poseidon_consts_get(&c, arities[a]), 0);
		unsigned t = c->t;
		bool asym = false;
		for (unsigned i = 0; i < t; i++) {
			for (unsigned j = 0; j < t; j++) {
				zkp_fr d, prod;
				zkp_fr_set_u64(&d, i + j + t);
				zkp_fr_mul(&prod, &c->mds[i * t + j], &d);
				assert_true(zkp_fr_is_one(&prod));
				if (!zkp_fr_eq(&c->pre_sparse[i * t + j], &c->pre_sparse[j * t + i]))
					asym = true;
			}
		}
		assert_true(asym);
		zkp_fr tag;
		zkp_fr_set_u64(&tag, ((uint64_t)1 << arities[a]) - 1);
		assert_true(zkp_fr_eq(&tag, &c->domain_tag));
		assert_int_equal(c->custom_id, 0);
	}
}

/* ---- known answers ---- */

/* neptune poseidon.rs hash_values_aux, Strength::Standard, MerkleTree,
 * input [0, 1, ..., arity-1]; canonical little-endian limbs. */
static const struct {
	unsigned arity;
	uint64_t digest[4];
} kats[] = {
	{ 2, { 0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b } },
	{ 4, { 0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a } },
	{ 8, { 0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55 } },
	{ 11, { 0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28 } },
	{ 16, { 0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a } },
	{ 24, { 0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15 } },
	{ 36, { 0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f } },
};

static void test_known_answers(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(kats) / sizeof(kats[0]); k++) {
		const zkp_poseidon_consts *c;
		assert_int_equal(zkp_poseidon_consts_get(&c, kats[k].arity), 0);
		zkp_fr in[ZKP_POSEIDON_MAX_ARITY], out, plain;
		for (unsigned i = 0; i < c->arity; i++)
			zkp_fr_set_u64(&in[i], i);
		zkp_poseidon_hash(&out, c, in);
		zkp_poseidon_hash_plain(&plain, c, in);
		uint64_t got[4], got_plain[4];
		zkp_fr_to_limbs(got, &out);
		zkp_fr_to_limbs(got_plain, &plain);
		if (memcmp(got, kats[k].digest, sizeof(got)) != 0)
			fail_msg("arity %u: optimized digest %016llx.. differs from neptune's",
				 kats[k].arity, (unsigned long long)got[0]);
		if (memcmp(got_plain, kats[k].digest, sizeof(got)) != 0)
			fail_msg("arity %u: plain digest %016llx.. differs from neptune's",
				 kats[k].arity, (unsigned long long)got_plain[0]);
	}
}

/* ---- optimized against textbook ---- */

static void test_optimized_matches_plain(void **state)
{
	(void)state;
	for (unsigned arity = 1; arity <= ZKP_POSEIDON_MAX_ARITY; arity++) {
		const zkp_poseidon_consts *c;
		double t0 = now_ms();
		assert_int_equal(zkp_poseidon_consts_get(&c, arity), 0);
		double ms = now_ms() - t0;
		if (arity == ZKP_POSEIDON_MAX_ARITY)
			fprintf(stderr, "arity %u constants: %.1f ms\n", arity, ms);
		for (int trial = 0; trial < 6; trial++) {
			zkp_fr in[ZKP_POSEIDON_MAX_ARITY], a, b;
			for (unsigned i = 0; i < arity; i++) {
				if (trial == 0)
					zkp_fr_set_zero(&in[i]);
				else if (trial == 1)
					zkp_fr_neg(&in[i], &ZKP_FR_ONE); /* r - 1 */
				else
					tu_rand_fr(&in[i]);
			}
			zkp_poseidon_hash(&a, c, in);
			zkp_poseidon_hash_plain(&b, c, in);
			if (!zkp_fr_eq(&a, &b))
				fail_msg("arity %u trial %d: optimized and plain digests differ",
					 arity, trial);
			/* out may alias the input */
			zkp_poseidon_hash(&in[0], c, in);
			assert_true(zkp_fr_eq(&in[0], &a));
		}
	}
}

/* ---- custom domain tags ---- */

static void test_custom_tag(void **state)
{
	(void)state;
	const zkp_poseidon_consts *base, *c, *again, *c256;
	assert_int_equal(zkp_poseidon_consts_get(&base, 2), 0);
	assert_int_equal(zkp_poseidon_consts_get_custom(&c, 2, 1), 0);
	assert_int_equal(zkp_poseidon_consts_get_custom(&again, 2, 1), 0);
	assert_ptr_equal(c, again);
	assert_int_equal(c->custom_id, 1);
	assert_int_equal(c->arity, 2);
	assert_ptr_equal(c->compressed_rc, base->compressed_rc);
	assert_ptr_equal(c->round_constants, base->round_constants);
	assert_ptr_equal(c->w_hat, base->w_hat);

	/* hash_type.rs test_domain_tags: Arbitrary(i) is 0x0000010000000000 * i
	 * in limb 0; curio's SnapDST writes id 1 as LE bytes 00 00 00 00 00 01. */
	uint64_t limbs[4];
	zkp_fr_to_limbs(limbs, &c->domain_tag);
	assert_true(limbs[0] == 0x0000010000000000ull && !limbs[1] && !limbs[2] && !limbs[3]);
	assert_int_equal(zkp_poseidon_consts_get_custom(&c256, 8, 256), 0);
	zkp_fr_to_limbs(limbs, &c256->domain_tag);
	assert_true(limbs[0] == 0x0001000000000000ull && !limbs[1] && !limbs[2] && !limbs[3]);

	zkp_fr in[2], h_base, h_custom, h_plain;
	tu_rand_fr(&in[0]);
	tu_rand_fr(&in[1]);
	zkp_poseidon_hash(&h_base, base, in);
	zkp_poseidon_hash(&h_custom, c, in);
	zkp_poseidon_hash_plain(&h_plain, c, in);
	assert_false(zkp_fr_eq(&h_base, &h_custom));
	assert_true(zkp_fr_eq(&h_custom, &h_plain));

	assert_int_equal(zkp_poseidon_consts_get_custom(&c, 2, 0), ZKP_ERR_INVAL);
	assert_int_equal(zkp_poseidon_consts_get_custom(&c, 2, 257), ZKP_ERR_INVAL);
	assert_int_equal(zkp_poseidon_consts_get_custom(&c, 37, 1), ZKP_ERR_INVAL);
	assert_int_equal(zkp_poseidon_consts_get(&c, 0), ZKP_ERR_INVAL);
	assert_int_equal(zkp_poseidon_consts_get(&c, 37), ZKP_ERR_INVAL);
}

/* ---- trimmed SHA-256 ---- */

static void test_fil_sha256(void **state)
{
	(void)state;
	uint8_t out[32], want[32];
	/* FIPS 180-2 appendix B.1: SHA-256("abc") */
	assert_int_equal(tu_hex_to_bytes(want, 32,
					 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
			 32);
	want[31] &= 0x3f;
	assert_int_equal(zkp_fil_sha256_trim(out, "abc", 3), 0);
	assert_memory_equal(out, want, 32);
	assert_int_equal(out[31], 0x2d);

	/* SHA-256 of 64 zero bytes (Ethereum's zero-hash of depth 1) */
	uint8_t zero[32] = { 0 };
	assert_int_equal(tu_hex_to_bytes(want, 32,
					 "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b"),
			 32);
	want[31] &= 0x3f;
	assert_int_equal(zkp_fil_sha256_node(out, zero, zero), 0);
	assert_memory_equal(out, want, 32);

	/* node(l, r) is the trimmed hash of l || r, and always canonical in Fr */
	for (int i = 0; i < 8; i++) {
		uint8_t lr[64], a[32], b[32];
		tu_rand_bytes(lr, sizeof(lr));
		assert_int_equal(zkp_fil_sha256_node(a, lr, lr + 32), 0);
		assert_int_equal(zkp_fil_sha256_trim(b, lr, sizeof(lr)), 0);
		assert_memory_equal(a, b, 32);
		zkp_fr f;
		assert_int_equal(zkp_fr_from_le(&f, a), 0);
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_first_use),
		cmocka_unit_test(test_round_numbers),
		cmocka_unit_test(test_grain_against_neptune_file),
		cmocka_unit_test(test_supraseal_2),
		cmocka_unit_test(test_supraseal_8),
		cmocka_unit_test(test_supraseal_11),
		cmocka_unit_test(test_matrix_shapes),
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_optimized_matches_plain),
		cmocka_unit_test(test_custom_tag),
		cmocka_unit_test(test_fil_sha256),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
