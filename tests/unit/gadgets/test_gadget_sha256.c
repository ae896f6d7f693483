/*
 * SHA-256 in the circuit: bellperson's published row counts (25,840 for
 * one compression of 512 allocated bits under the constant IV, 44,874 for
 * the hash of 512 allocated bits), the digest against OpenSSL on the
 * standard "abc" vector and random messages of every padding case, with
 * the witness satisfying every row, and messages mixing constant and
 * allocated bits (the folding paths of xor, ch and maj).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/sha.h>

#include "harness.h"
#include "testutil.h"
#include "zkpd/gadgets.h"

struct sha_case {
	const uint8_t *msg;
	size_t len;
	const uint8_t *const_mask; /* per bit: 1 = constant (NULL: all allocated) */
	bool compress_only;
	uint8_t digest[32];
};

static void sha_gadget(zkp_cs *cs, void *ctx)
{
	struct sha_case *c = ctx;
	size_t nbits = c->len * 8;
	zkp_bool *in = malloc((nbits ? nbits : 1) * sizeof(*in));
	for (size_t i = 0; i < nbits; i++) {
		bool v = (c->msg[i / 8] >> (7 - i % 8)) & 1;
		bool k = c->const_mask && c->const_mask[i];
		in[i] = k ? zkp_bool_const(v) : zkp_bool_alloc(cs, v);
	}
	zkp_bool out[256];
	if (c->compress_only) {
		zkp_u32 iv[8], res[8];
		static const uint32_t IV[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
						0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
		for (int i = 0; i < 8; i++)
			iv[i] = zkp_u32_const(IV[i]);
		zkp_sha256_compress(cs, in, iv, res);
		for (int i = 0; i < 8; i++)
			zkp_u32_to_bits_be(out + 32 * i, &res[i]);
	} else {
		zkp_sha256(cs, in, nbits, out);
	}
	if (zkp_cs_witness(cs)) {
		memset(c->digest, 0, 32);
		for (int i = 0; i < 256; i++)
			c->digest[i / 8] |= (uint8_t)(out[i].value << (7 - i % 8));
	}
	free(in);
}

static void test_counts(void **state)
{
	(void)state;
	uint8_t msg[64] = { 0 };
	struct sha_case c = { .msg = msg, .len = 64, .compress_only = true };
	gh_result r;
	gh_shape(sha_gadget, &c, &r);
	assert_int_equal(r.rows - 512, 25840);
	c.compress_only = false;
	gh_shape(sha_gadget, &c, &r);
	assert_int_equal(r.rows - 512, 44874);
}

static void check_digest(struct sha_case *c)
{
	uint8_t want[32];
	gh_result r;
	gh_run(sha_gadget, c, &r);
	SHA256(c->msg, c->len, want);
	if (r.check != 0)
		fail_msg("%zu-byte message: row %llu unsatisfied", c->len,
			 (unsigned long long)r.first_bad_row);
	assert_memory_equal(c->digest, want, 32);
	gh_result_release(&r);
}

static void test_abc(void **state)
{
	(void)state;
	struct sha_case c = { .msg = (const uint8_t *)"abc", .len = 3 };
	static const uint8_t want[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	check_digest(&c);
	assert_memory_equal(c.digest, want, 32);
}

static void test_random_lengths(void **state)
{
	(void)state;
	static const size_t lens[] = { 0, 1, 55, 56, 63, 64, 65, 119, 128 };
	uint8_t msg[128];
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		tu_rand_bytes(msg, sizeof(msg));
		struct sha_case c = { .msg = msg, .len = lens[i] };
		check_digest(&c);
	}
	memset(msg, 0xff, 64);
	struct sha_case ones = { .msg = msg, .len = 64 };
	check_digest(&ones);
	memset(msg, 0, 64);
	struct sha_case zeros = { .msg = msg, .len = 64 };
	check_digest(&zeros);
}

/* Half the bits constant, at random: every folding case of xor, ch and
 * maj shows up, and each must still give the right digest and rows that
 * the witness satisfies. Fewer rows than the all-allocated message. */
static void test_mixed_constants(void **state)
{
	(void)state;
	uint8_t msg[64], mask[512];
	tu_rand_bytes(msg, sizeof(msg));
	for (int t = 0; t < 3; t++) {
		for (int i = 0; i < 512; i++)
			mask[i] = t == 2 ? 1 : (tu_rand64() & 3) == 0;
		struct sha_case c = { .msg = msg, .len = 64, .const_mask = mask };
		check_digest(&c);
		gh_result r;
		gh_shape(sha_gadget, &c, &r);
		assert_true(r.rows < 512 + 44874);
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_abc),
		cmocka_unit_test(test_random_lengths),
		cmocka_unit_test(test_mixed_constants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
