/*
 * Field-element gadgets: allocation, inputs, bit decomposition and packing
 * (bellpepper-core gadgets/num.rs, bellperson gadgets/multipack.rs,
 * rust-fil-proofs gadgets/uint64.rs and util.rs).
 */
#include "zkpd/gadgets.h"

#define FR_CAPACITY 254 /* bits that always fit below r */
#define FR_NUM_BITS 255

zkp_num zkp_num_alloc(zkp_cs *cs, const zkp_fr *value)
{
	zkp_num n;
	if (value && zkp_cs_witness(cs))
		n.value = *value;
	else
		zkp_fr_set_zero(&n.value);
	n.var = zkp_cs_alloc(cs, &n.value);
	return n;
}

void zkp_num_inputize(zkp_cs *cs, const zkp_num *x)
{
	zkp_var in = zkp_cs_alloc_input(cs, &x->value);
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	zkp_lc_add(cs, a, in, NULL);
	zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, c, x->var, NULL);
	zkp_cs_enforce_scratch(cs);
}

void zkp_num_enforce_equal(zkp_cs *cs, const zkp_num *x, const zkp_num *y)
{
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	zkp_lc_add(cs, a, x->var, NULL);
	zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, c, y->var, NULL);
	zkp_cs_enforce_scratch(cs);
}

/* The 255 bits of x's canonical value, allocated least significant first. */
static void alloc_bits(zkp_cs *cs, const zkp_num *x, zkp_bool bits[FR_NUM_BITS])
{
	uint64_t limbs[ZKP_FR_LIMBS] = { 0 };
	if (zkp_cs_witness(cs))
		zkp_fr_to_limbs(limbs, &x->value);
	for (unsigned i = 0; i < FR_NUM_BITS; i++)
		bits[i] = zkp_bool_alloc(cs, (limbs[i / 64] >> (i % 64)) & 1);
}

void zkp_num_alloc_bits_le(zkp_cs *cs, const zkp_num *x, zkp_bool bits[FR_NUM_BITS])
{
	alloc_bits(cs, x, bits);
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	for (unsigned i = 0; i < FR_NUM_BITS; i++)
		zkp_lc_add(cs, a, bits[i].var, zkp_cs_pow2(i));
	zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, c, x->var, NULL);
	zkp_cs_enforce_scratch(cs);
}

zkp_num zkp_num_mul(zkp_cs *cs, const zkp_num *x, const zkp_num *y)
{
	zkp_fr v;
	zkp_fr_mul(&v, &x->value, &y->value);
	zkp_num out = zkp_num_alloc(cs, &v);
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	zkp_lc_add(cs, a, x->var, NULL);
	zkp_lc_add(cs, b, y->var, NULL);
	zkp_lc_add(cs, c, out.var, NULL);
	zkp_cs_enforce_scratch(cs);
	return out;
}

void zkp_num_to_bits_le(zkp_cs *cs, const zkp_num *x, zkp_bool bits[FR_NUM_BITS])
{
	alloc_bits(cs, x, bits);
	/* After the bits: each zkp_bool_alloc uses the scratch rows. */
	zkp_lc *c = &cs->lc[2];
	for (unsigned i = 0; i < FR_NUM_BITS; i++)
		zkp_lc_add(cs, c, bits[i].var, zkp_cs_pow2(i));
	zkp_lc_sub(cs, c, x->var, NULL);
	zkp_cs_enforce_scratch(cs); /* A and B empty */
}

/* Sum of 2^i * bit_i over at most 254 bits, its value as a field element
 * (witness) and its combination (rows) in lc. */
static void pack(zkp_cs *cs, zkp_lc *lc, zkp_fr *value, const zkp_bool *bits, size_t n)
{
	uint64_t limbs[ZKP_FR_LIMBS] = { 0 };
	for (size_t i = 0; i < n; i++) {
		zkp_lc_add_bool(cs, lc, &bits[i], zkp_cs_pow2((unsigned)i));
		limbs[i / 64] |= (uint64_t)bits[i].value << (i % 64);
	}
	if (!zkp_cs_witness(cs) || zkp_fr_from_limbs(value, limbs))
		zkp_fr_set_zero(value);
}

zkp_num zkp_pack_bits(zkp_cs *cs, const zkp_bool *bits, size_t n)
{
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	zkp_fr value;
	pack(cs, a, &value, bits, n < FR_CAPACITY ? n : FR_CAPACITY);
	zkp_num out = zkp_num_alloc(cs, &value);
	zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
	zkp_lc_add(cs, c, out.var, NULL);
	zkp_cs_enforce_scratch(cs);
	return out;
}

void zkp_pack_into_inputs(zkp_cs *cs, const zkp_bool *bits, size_t n)
{
	zkp_lc *a = &cs->lc[0], *b = &cs->lc[1], *c = &cs->lc[2];
	for (size_t at = 0; at < n; at += FR_CAPACITY) {
		size_t k = n - at < FR_CAPACITY ? n - at : FR_CAPACITY;
		zkp_fr value;
		pack(cs, a, &value, bits + at, k);
		zkp_var in = zkp_cs_alloc_input(cs, &value);
		zkp_lc_add(cs, b, ZKP_CS_ONE, NULL);
		zkp_lc_add(cs, c, in, NULL);
		zkp_cs_enforce_scratch(cs);
	}
}

void zkp_u64_alloc_inputize(zkp_cs *cs, uint64_t v, zkp_bool bits[64])
{
	zkp_bool local[64];
	zkp_bool *b = bits ? bits : local;
	bool w = zkp_cs_witness(cs);
	for (unsigned i = 0; i < 64; i++)
		b[i] = zkp_bool_alloc(cs, w && ((v >> i) & 1));
	zkp_pack_into_inputs(cs, b, 64);
}

void zkp_bits_reverse_bytes(zkp_bool out[256], const zkp_bool in[FR_NUM_BITS])
{
	for (unsigned byte = 0; byte < 32; byte++)
		for (unsigned k = 0; k < 8; k++) {
			unsigned src = byte * 8 + 7 - k;
			out[byte * 8 + k] = src < FR_NUM_BITS ? in[src] : zkp_bool_const(false);
		}
}
