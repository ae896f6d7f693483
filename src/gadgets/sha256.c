/*
 * SHA-256 in the circuit, as bellperson's gadgets/sha256.rs: the message
 * schedule, then 64 rounds in which e and a stay deferred sums until the
 * next round needs them, then the final additions, with one MultiEq per
 * compression (its last row comes after the final additions). 25,840 rows
 * per compression of 512 allocated bits under the constant IV.
 */
#include "zkpd/gadgets.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static const uint32_t IV[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* A word that is either known (concrete) or the pending sum of up to 8
 * operands, computed by addmany only when it is read. */
struct maybe {
	bool deferred;
	size_t n;
	zkp_u32 ops[8];
};

static zkp_u32 compute(zkp_multieq *me, struct maybe *m, const zkp_u32 *extra)
{
	if (!m->deferred)
		return m->ops[0];
	if (extra)
		m->ops[m->n++] = *extra;
	return zkp_u32_addmany(me, m->ops, m->n);
}

static zkp_u32 sigma(zkp_cs *cs, const zkp_u32 *x, unsigned r1, unsigned r2, unsigned r3,
		     bool shift3)
{
	zkp_u32 t = zkp_u32_rotr(x, r1), u = zkp_u32_rotr(x, r2);
	zkp_u32 v = shift3 ? zkp_u32_shr(x, r3) : zkp_u32_rotr(x, r3);
	t = zkp_u32_xor(cs, &t, &u);
	return zkp_u32_xor(cs, &t, &v);
}

void zkp_sha256_compress(zkp_cs *cs, const zkp_bool in[512], const zkp_u32 cur[8], zkp_u32 out[8])
{
	zkp_u32 w[64];
	zkp_multieq me;

	for (unsigned i = 0; i < 16; i++)
		w[i] = zkp_u32_from_bits_be(in + 32 * i);
	zkp_multieq_init(&me, cs);

	for (unsigned i = 16; i < 64; i++) {
		zkp_u32 ops[4];
		ops[1] = sigma(cs, &w[i - 15], 7, 18, 3, true);
		ops[3] = sigma(cs, &w[i - 2], 17, 19, 10, true);
		ops[0] = w[i - 16];
		ops[2] = w[i - 7];
		w[i] = zkp_u32_addmany(&me, ops, 4);
	}

	struct maybe a = { .ops = { cur[0] } }, e = { .ops = { cur[4] } };
	zkp_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];

	for (unsigned i = 0; i < 64; i++) {
		zkp_u32 new_e = compute(&me, &e, NULL);
		zkp_u32 s1 = sigma(cs, &new_e, 6, 11, 25, false);
		zkp_u32 ch = zkp_u32_sha256_ch(cs, &new_e, &f, &g);
		zkp_u32 temp1[5] = { h, s1, ch, zkp_u32_const(K[i]), w[i] };

		zkp_u32 new_a = compute(&me, &a, NULL);
		zkp_u32 s0 = sigma(cs, &new_a, 2, 13, 22, false);
		zkp_u32 maj = zkp_u32_sha256_maj(cs, &new_a, &b, &c);

		h = g;
		g = f;
		f = new_e;
		e.deferred = true;
		e.n = 0;
		for (unsigned k = 0; k < 5; k++)
			e.ops[e.n++] = temp1[k];
		e.ops[e.n++] = d;
		d = c;
		c = b;
		b = new_a;
		a.deferred = true;
		a.n = 0;
		for (unsigned k = 0; k < 5; k++)
			a.ops[a.n++] = temp1[k];
		a.ops[a.n++] = s0;
		a.ops[a.n++] = maj;
	}

	/* h0 and h4 finish the deferred sums; the others are pairs. */
	const zkp_u32 *last[8] = { NULL, &b, &c, &d, NULL, &f, &g, &h };
	for (unsigned i = 0; i < 8; i++) {
		if (i == 0 || i == 4) {
			out[i] = compute(&me, i == 0 ? &a : &e, &cur[i]);
			continue;
		}
		zkp_u32 pair[2] = { cur[i], *last[i] };
		out[i] = zkp_u32_addmany(&me, pair, 2);
	}
	zkp_multieq_finish(&me);
}

void zkp_sha256(zkp_cs *cs, const zkp_bool *in, size_t nbits, zkp_bool out[256])
{
	zkp_u32 cur[8], next[8];
	zkp_bool block[512];
	/* Message, a 1, zeros, and the 64-bit big-endian length, in blocks. */
	size_t total = ((nbits + 1 + 64 + 511) / 512) * 512;

	for (unsigned i = 0; i < 8; i++)
		cur[i] = zkp_u32_const(IV[i]);
	for (size_t at = 0; at < total; at += 512) {
		for (size_t k = 0; k < 512; k++) {
			size_t pos = at + k;
			if (pos < nbits)
				block[k] = in[pos];
			else if (pos == nbits)
				block[k] = zkp_bool_const(true);
			else if (pos >= total - 64)
				block[k] = zkp_bool_const(((uint64_t)nbits >> (total - 1 - pos)) & 1);
			else
				block[k] = zkp_bool_const(false);
		}
		zkp_sha256_compress(cs, block, cur, next);
		for (unsigned i = 0; i < 8; i++)
			cur[i] = next[i];
	}
	for (unsigned i = 0; i < 8; i++)
		zkp_u32_to_bits_be(out + 32 * i, &cur[i]);
}
