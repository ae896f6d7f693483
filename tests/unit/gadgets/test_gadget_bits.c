/*
 * Boolean and number gadgets: every operand kind (constant false, constant
 * true, a variable, a negated variable) with every value, for xor, and,
 * sha256_ch and sha256_maj: the result's value is the truth table's, the
 * witness satisfies the rows, and the row and variable counts are the
 * bellpepper ones (constants fold to no row; one row per allocation).
 * Then to_bits_le, pack_bits, pack_into_inputs and inputize on random and
 * edge values, with a tampered witness that must fail the check.
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

enum op { OP_XOR, OP_AND, OP_CH, OP_MAJ };

struct bits_case {
	enum op op;
	int kind[3];  /* 0 const false, 1 const true, 2 var, 3 not var */
	bool val[3];  /* values of the variable operands */
	zkp_bool out; /* result of the WITNESS pass */
};

static zkp_bool operand(zkp_cs *cs, int kind, bool v)
{
	if (kind < 2)
		return zkp_bool_const(kind == 1);
	zkp_bool b = zkp_bool_alloc(cs, kind == 3 ? !v : v);
	return kind == 3 ? zkp_bool_not(b) : b;
}

static bool logical(int kind, bool v) { return kind < 2 ? kind == 1 : v; }

static void bits_gadget(zkp_cs *cs, void *ctx)
{
	struct bits_case *c = ctx;
	zkp_bool o[3];
	for (int i = 0; i < 3; i++)
		o[i] = operand(cs, c->kind[i], c->val[i]);
	zkp_bool r;
	switch (c->op) {
	case OP_XOR: r = zkp_bool_xor(cs, o[0], o[1]); break;
	case OP_AND: r = zkp_bool_and(cs, o[0], o[1]); break;
	case OP_CH: r = zkp_bool_sha256_ch(cs, o[0], o[1], o[2]); break;
	default: r = zkp_bool_sha256_maj(cs, o[0], o[1], o[2]); break;
	}
	if (zkp_cs_witness(cs))
		c->out = r;
}

static bool truth(enum op op, bool a, bool b, bool c)
{
	switch (op) {
	case OP_XOR: return a != b;
	case OP_AND: return a && b;
	case OP_CH: return (a && b) != (!a && c);
	default: return ((a && b) != (a && c)) != (b && c);
	}
}

/* Rows the operation itself adds when no operand is constant (xor, and,
 * ch: one; maj: bc's row and its own) or all are (none). */
static int64_t expected_rows(enum op op, const int *kind)
{
	int nconst = 0;
	int n = op == OP_XOR || op == OP_AND ? 2 : 3;
	for (int i = 0; i < n; i++)
		nconst += kind[i] < 2;
	if (nconst == n)
		return 0;
	if (nconst == 0)
		return op == OP_MAJ ? 2 : 1;
	return -1; /* folded: at most one and() */
}

static void test_truth_tables(void **state)
{
	(void)state;
	for (int op = OP_XOR; op <= OP_MAJ; op++) {
		int n = op == OP_XOR || op == OP_AND ? 2 : 3;
		int kinds = n == 2 ? 16 : 64;
		for (int k = 0; k < kinds; k++) {
			struct bits_case c = { .op = op };
			for (int i = 0; i < 3; i++)
				c.kind[i] = i < n ? (k >> (2 * i)) & 3 : 0;
			for (int v = 0; v < (1 << n); v++) {
				for (int i = 0; i < 3; i++)
					c.val[i] = (v >> i) & 1;
				gh_result r;
				gh_run(bits_gadget, &c, &r);
				bool a = logical(c.kind[0], c.val[0]), b = logical(c.kind[1], c.val[1]),
				     cc = logical(c.kind[2], c.val[2]);
				bool want = truth(op, a, b, cc);
				if (c.out.value != want || r.check != 0)
					fail_msg("op %d kinds %d %d %d values %d: value %d want %d, check %d",
						 op, c.kind[0], c.kind[1], c.kind[2], v, c.out.value, want,
						 r.check);
				/* The result's variable really holds the value. */
				if (c.out.kind != ZKP_BOOL_CONST) {
					const zkp_fr *x = &r.w[r.inputs + c.out.var];
					bool varv = c.out.kind == ZKP_BOOL_NOT ? !want : want;
					assert_true(varv ? zkp_fr_is_one(x) : zkp_fr_is_zero(x));
				}
				uint64_t operand_rows = 0;
				for (int i = 0; i < n; i++)
					operand_rows += c.kind[i] >= 2;
				int64_t want_rows = expected_rows(op, c.kind);
				if (want_rows >= 0)
					assert_int_equal(r.rows - operand_rows, want_rows);
				else
					assert_true(r.rows - operand_rows <= 1);
				assert_int_equal(r.rows, r.aux); /* one variable per row here */
				gh_result_release(&r);
			}
		}
	}
}

/* xor's row is (2a) * b = a + b - c: A 1 term, B 1, C 3. */
static void test_xor_terms(void **state)
{
	(void)state;
	struct bits_case c = { .op = OP_XOR, .kind = { 2, 3, 0 } };
	gh_result r;
	gh_run(bits_gadget, &c, &r);
	/* two booleanity rows (A 2 terms, B 1) + the xor row */
	assert_int_equal(r.nnz[0], 2 * 2 + 1);
	assert_int_equal(r.nnz[1], 2 * 1 + 1);
	assert_int_equal(r.nnz[2], 3);
	assert_int_equal(r.check, 0);
	assert_int_equal(c.out.kind, ZKP_BOOL_NOT);
	gh_result_release(&r);
}

struct num_case {
	zkp_fr x;
	zkp_bool bits[255];
	zkp_num packed;
	bool tamper_inputs;
};

static void num_gadget(zkp_cs *cs, void *ctx)
{
	struct num_case *c = ctx;
	zkp_num x = zkp_num_alloc(cs, &c->x);
	zkp_num_inputize(cs, &x);
	zkp_num_to_bits_le(cs, &x, c->bits);
	zkp_bool rev[256];
	zkp_bits_reverse_bytes(rev, c->bits);
	c->packed = zkp_pack_bits(cs, c->bits, 255);
	zkp_pack_into_inputs(cs, c->bits, 255);
	zkp_u64_alloc_inputize(cs, 0x0123456789abcdefULL, NULL);
}

static void test_numbers(void **state)
{
	(void)state;
	zkp_fr minus_one;
	zkp_fr_neg(&minus_one, &ZKP_FR_ONE);
	for (int t = 0; t < 6; t++) {
		struct num_case c = { 0 };
		if (t == 0)
			zkp_fr_set_zero(&c.x);
		else if (t == 1)
			c.x = minus_one;
		else if (t == 2)
			zkp_fr_set_one(&c.x);
		else {
			uint64_t wide[8];
			tu_rand_bytes(wide, sizeof(wide));
			zkp_fr_from_wide(&c.x, wide);
		}
		gh_result r;
		gh_run(num_gadget, &c, &r);
		/* inputs: ONE, x, the two chunks of 255 bits, the u64 */
		assert_int_equal(r.inputs, 5);
		/* x, 255 bits, pack_bits output, 64 bits */
		assert_int_equal(r.aux, 1 + 255 + 1 + 64);
		/* inputize, 255 + unpacking, pack, 2 chunks, 64 + 1 */
		assert_int_equal(r.rows, 1 + 256 + 1 + 2 + 65);
		assert_int_equal(r.check, 0);
		/* bits are the canonical little-endian bits */
		uint64_t limbs[4];
		zkp_fr_to_limbs(limbs, &c.x);
		for (int i = 0; i < 255; i++)
			assert_int_equal(c.bits[i].value, (limbs[i / 64] >> (i % 64)) & 1);
		/* pack_bits keeps 254 bits: x with bit 254 cleared */
		limbs[3] &= ~(1ULL << 62);
		zkp_fr low;
		assert_int_equal(zkp_fr_from_limbs(&low, limbs), 0);
		assert_true(zkp_fr_eq(&c.packed.value, &low));
		/* the inputs: x, the low 254 bits, bit 254, the u64 */
		assert_true(zkp_fr_eq(&r.w[1], &c.x));
		assert_true(zkp_fr_eq(&r.w[2], &low));
		zkp_fr u;
		zkp_fr_set_u64(&u, 0x0123456789abcdefULL);
		assert_true(zkp_fr_eq(&r.w[4], &u));
		gh_result_release(&r);
	}
}

/* A flipped bit keeps its booleanity row but breaks the unpacking row,
 * which the check names. */
static void test_tampered_bit(void **state)
{
	(void)state;
	struct num_case c = { 0 };
	zkp_fr_set_u64(&c.x, 12345);
	gh_result r;
	gh_run(num_gadget, &c, &r);
	assert_int_equal(r.check, 0);
	zkp_fr *bit3 = &r.w[r.inputs + c.bits[3].var];
	assert_true(zkp_fr_is_one(bit3)); /* 12345 = 0b11000000111001 */
	zkp_fr_set_zero(bit3);
	assert_int_equal(gh_recheck(&r), ZKP_ERR_UNSATISFIED);
	assert_int_equal(r.first_bad_row, 1 + 255); /* inputize, 255 bits, then unpacking */
	gh_result_release(&r);
}

/* addmany of 2..10 words, edge and random, some operands constant: the
 * sum mod 2^32, bitlen(n (2^32 - 1)) result bits each with its row, and
 * the MultiEq rows: one per flush, before an equality would reach 254 bits
 * and at the end. */
struct add_case {
	unsigned n, reps;
	uint32_t v[10];
	uint16_t const_mask;
	zkp_u32 out[8];
};

static void add_gadget(zkp_cs *cs, void *ctx)
{
	struct add_case *c = ctx;
	zkp_u32 ops[10];
	for (unsigned k = 0; k < c->n; k++) {
		if (c->const_mask >> k & 1) {
			ops[k] = zkp_u32_const(c->v[k]);
			continue;
		}
		for (unsigned i = 0; i < 32; i++)
			ops[k].bits[i] = zkp_bool_alloc(cs, (c->v[k] >> i) & 1);
		ops[k].value = c->v[k];
	}
	zkp_multieq me;
	zkp_multieq_init(&me, cs);
	for (unsigned r = 0; r < c->reps; r++) {
		zkp_u32 o = zkp_u32_addmany(&me, ops, c->n);
		if (zkp_cs_witness(cs))
			c->out[r] = o;
	}
	zkp_multieq_finish(&me);
}

static void test_addmany(void **state)
{
	(void)state;
	for (unsigned n = 2; n <= 10; n++) {
		for (int t = 0; t < 4; t++) {
			struct add_case c = { .n = n, .reps = 8 };
			uint32_t want = 0;
			for (unsigned k = 0; k < n; k++) {
				c.v[k] = t == 0 ? UINT32_MAX : t == 1 ? 0 : (uint32_t)tu_rand64();
				want += c.v[k];
			}
			c.const_mask = t == 3 ? (uint16_t)(tu_rand64() & ((1u << (n - 1)) - 1)) : 0;
			gh_result r;
			gh_run(add_gadget, &c, &r);
			assert_int_equal(r.check, 0);
			unsigned bits = 0;
			for (uint64_t max = (uint64_t)n * UINT32_MAX; max; max >>= 1)
				bits++;
			/* flushes: equalities of `bits` bits, 253 at most per row */
			unsigned per_row = 253 / bits, flushes = (8 + per_row - 1) / per_row;
			unsigned allocated = 32 * (n - (unsigned)__builtin_popcount(c.const_mask));
			assert_int_equal(r.rows, allocated + 8 * bits + flushes);
			for (unsigned k = 0; k < 8; k++) {
				assert_int_equal(c.out[k].value, want);
				for (unsigned i = 0; i < 32; i++)
					assert_int_equal(c.out[k].bits[i].value, (want >> i) & 1);
			}
			gh_result_release(&r);
		}
	}
}

int main(void)
{
	tu_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truth_tables),
		cmocka_unit_test(test_xor_terms),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_tampered_bit),
		cmocka_unit_test(test_addmany),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
