/*
 * 32-bit words and MultiEq (bellperson gadgets/uint32.rs, multieq.rs).
 *
 * addmany of n operands allocates bitlen(n * (2^32 - 1)) result bits (33
 * for 2, 34 for 3-4, 35 for 5-8), each with its booleanity row, and states
 * sum(operand bits) = sum(result bits) through MultiEq, which packs such
 * equalities into one row lhs * ONE = rhs until the next one would reach
 * 254 bits. Only the low 32 result bits are kept; the carries stay in the
 * witness.
 */
#include "zkpd/gadgets.h"

#define FR_CAPACITY 254

void zkp_multieq_init(zkp_multieq *me, zkp_cs *cs)
{
	*me = (zkp_multieq){ .cs = cs };
}

static void flush(zkp_multieq *me)
{
	zkp_lc *one = &me->cs->lc[1];
	zkp_lc_add(me->cs, one, ZKP_CS_ONE, NULL);
	zkp_cs_enforce(me->cs, &me->lhs, one, &me->rhs);
	zkp_lc_clear(one);
	zkp_lc_clear(&me->lhs);
	zkp_lc_clear(&me->rhs);
	me->bits_used = 0;
}

void zkp_multieq_finish(zkp_multieq *me)
{
	if (me->bits_used > 0)
		flush(me);
	zkp_lc_release(&me->lhs);
	zkp_lc_release(&me->rhs);
	zkp_lc_release(&me->tmp_l);
	zkp_lc_release(&me->tmp_r);
}

static void enforce_equal(zkp_multieq *me, unsigned bits, const zkp_lc *lhs, const zkp_lc *rhs)
{
	if (me->bits_used + bits >= FR_CAPACITY)
		flush(me);
	const zkp_fr *coeff = zkp_cs_pow2(me->bits_used);
	zkp_lc_add_lc(me->cs, &me->lhs, lhs, coeff);
	zkp_lc_add_lc(me->cs, &me->rhs, rhs, coeff);
	me->bits_used += bits;
}

zkp_u32 zkp_u32_const(uint32_t v)
{
	zkp_u32 x;
	for (unsigned i = 0; i < 32; i++)
		x.bits[i] = zkp_bool_const((v >> i) & 1);
	x.value = v;
	return x;
}

static uint32_t value_of(const zkp_bool bits[32])
{
	uint32_t v = 0;
	for (unsigned i = 0; i < 32; i++)
		v |= (uint32_t)bits[i].value << i;
	return v;
}

zkp_u32 zkp_u32_from_bits_be(const zkp_bool bits[32])
{
	zkp_u32 x;
	for (unsigned i = 0; i < 32; i++)
		x.bits[i] = bits[31 - i];
	x.value = value_of(x.bits);
	return x;
}

void zkp_u32_to_bits_be(zkp_bool out[32], const zkp_u32 *x)
{
	for (unsigned i = 0; i < 32; i++)
		out[i] = x->bits[31 - i];
}

zkp_u32 zkp_u32_rotr(const zkp_u32 *x, unsigned by)
{
	zkp_u32 r;
	by %= 32;
	for (unsigned i = 0; i < 32; i++)
		r.bits[i] = x->bits[(i + by) % 32];
	r.value = by ? (x->value >> by) | (x->value << (32 - by)) : x->value;
	return r;
}

zkp_u32 zkp_u32_shr(const zkp_u32 *x, unsigned by)
{
	zkp_u32 r;
	by %= 32;
	for (unsigned i = 0; i < 32; i++)
		r.bits[i] = i + by < 32 ? x->bits[i + by] : zkp_bool_const(false);
	r.value = x->value >> by;
	return r;
}

zkp_u32 zkp_u32_xor(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b)
{
	zkp_u32 r;
	for (unsigned i = 0; i < 32; i++)
		r.bits[i] = zkp_bool_xor(cs, a->bits[i], b->bits[i]);
	r.value = a->value ^ b->value;
	return r;
}

zkp_u32 zkp_u32_sha256_ch(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c)
{
	zkp_u32 r;
	for (unsigned i = 0; i < 32; i++)
		r.bits[i] = zkp_bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i]);
	r.value = (a->value & b->value) ^ (~a->value & c->value);
	return r;
}

zkp_u32 zkp_u32_sha256_maj(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c)
{
	zkp_u32 r;
	for (unsigned i = 0; i < 32; i++)
		r.bits[i] = zkp_bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i]);
	r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
	return r;
}

zkp_u32 zkp_u32_addmany(zkp_multieq *me, const zkp_u32 *ops, size_t n)
{
	zkp_cs *cs = me->cs;
	zkp_lc *lhs = &me->tmp_l, *rhs = &me->tmp_r;
	uint64_t sum = 0;
	bool all_const = true;

	zkp_lc_clear(lhs);
	zkp_lc_clear(rhs);
	for (size_t k = 0; k < n; k++) {
		sum += ops[k].value;
		for (unsigned i = 0; i < 32; i++) {
			zkp_lc_add_bool(cs, lhs, &ops[k].bits[i], zkp_cs_pow2(i));
			all_const &= ops[k].bits[i].kind == ZKP_BOOL_CONST;
		}
	}
	if (all_const)
		return zkp_u32_const((uint32_t)sum);

	zkp_u32 r;
	bool w = zkp_cs_witness(cs);
	unsigned bits = 0;
	for (uint64_t max = (uint64_t)n * UINT32_MAX; max; max >>= 1, bits++) {
		zkp_bool b = zkp_bool_alloc(cs, w && ((sum >> bits) & 1));
		zkp_lc_add(cs, rhs, b.var, zkp_cs_pow2(bits));
		if (bits < 32)
			r.bits[bits] = b;
	}
	enforce_equal(me, bits, lhs, rhs);
	r.value = (uint32_t)sum;
	return r;
}
