/*
 * Merkle inclusion in the circuit (rust-fil-proofs gadgets/por.rs and
 * insertion.rs; tree D's node hash from filecoin-hashers sha256.rs).
 *
 * Costs per level: binary SHA-256 (tree D) 45,382 rows; Poseidon octree
 * 530 (3 index bits, 22 insert rows, 505 hash rows); binary Poseidon 314.
 * Each inclusion adds 2 rows: the packed index input and the root equality.
 */
#include <string.h>

#include "zkpd/gadgets.h"

zkp_num zkp_pick(zkp_cs *cs, zkp_bool cond, const zkp_num *a, const zkp_num *b)
{
	zkp_lc *A = &cs->lc[0], *B = &cs->lc[1], *C = &cs->lc[2];
	zkp_num c;
	c.value = cond.value ? a->value : b->value;
	c.var = zkp_cs_alloc(cs, &c.value);
	zkp_lc_add(cs, A, b->var, NULL);
	zkp_lc_sub(cs, A, a->var, NULL);
	zkp_lc_add_bool(cs, B, &cond, NULL);
	zkp_lc_add(cs, C, b->var, NULL);
	zkp_lc_sub(cs, C, c.var, NULL);
	zkp_cs_enforce_scratch(cs);
	return c;
}

static void insert_4(zkp_cs *cs, const zkp_num *a, const zkp_bool *bits, const zkp_num *s,
		     zkp_num *out)
{
	const zkp_num *b = &s[0], *c = &s[1], *d = &s[2];
	zkp_bool b0 = bits[0], b1 = bits[1];
	zkp_num p0_x0 = zkp_pick(cs, b0, b, a);
	out[0] = zkp_pick(cs, b1, b, &p0_x0);
	zkp_num p1_x0 = zkp_pick(cs, b0, a, b);
	out[1] = zkp_pick(cs, b1, c, &p1_x0);
	zkp_num p2_x1 = zkp_pick(cs, b0, d, a);
	out[2] = zkp_pick(cs, b1, &p2_x1, c);
	zkp_num p3_x1 = zkp_pick(cs, b0, a, d);
	out[3] = zkp_pick(cs, b1, &p3_x1, d);
}

static void insert_8(zkp_cs *cs, const zkp_num *a, const zkp_bool *bits, const zkp_num *s,
		     zkp_num *out)
{
	const zkp_num *b = &s[0], *c = &s[1], *d = &s[2], *e = &s[3], *f = &s[4], *g = &s[5],
		      *h = &s[6];
	zkp_bool b0 = bits[0], b1 = bits[1], b2 = bits[2];
	zkp_bool nor = zkp_bool_and(cs, zkp_bool_not(b0), zkp_bool_not(b1));
	zkp_bool and = zkp_bool_and(cs, b0, b1);

	zkp_num p0_xx0 = zkp_pick(cs, nor, a, b);
	out[0] = zkp_pick(cs, b2, b, &p0_xx0);
	zkp_num p1_x00 = zkp_pick(cs, b0, a, b);
	zkp_num p1_xx0 = zkp_pick(cs, b1, c, &p1_x00);
	out[1] = zkp_pick(cs, b2, c, &p1_xx0);
	zkp_num p2_x10 = zkp_pick(cs, b0, d, a);
	zkp_num p2_xx0 = zkp_pick(cs, b1, &p2_x10, c);
	out[2] = zkp_pick(cs, b2, d, &p2_xx0);
	zkp_num p3_xx0 = zkp_pick(cs, and, a, d);
	out[3] = zkp_pick(cs, b2, e, &p3_xx0);
	zkp_num p4_xx1 = zkp_pick(cs, nor, a, f);
	out[4] = zkp_pick(cs, b2, &p4_xx1, e);
	zkp_num p5_x01 = zkp_pick(cs, b0, a, f);
	zkp_num p5_xx1 = zkp_pick(cs, b1, g, &p5_x01);
	out[5] = zkp_pick(cs, b2, &p5_xx1, f);
	zkp_num p6_x11 = zkp_pick(cs, b0, h, a);
	zkp_num p6_xx1 = zkp_pick(cs, b1, &p6_x11, g);
	out[6] = zkp_pick(cs, b2, &p6_xx1, g);
	zkp_num p7_xx1 = zkp_pick(cs, and, a, h);
	out[7] = zkp_pick(cs, b2, &p7_xx1, h);
}

void zkp_insert(zkp_cs *cs, unsigned arity, const zkp_num *cur, const zkp_bool *bits,
		const zkp_num *siblings, zkp_num *out)
{
	switch (arity) {
	case 2:
		out[0] = zkp_pick(cs, bits[0], &siblings[0], cur);
		out[1] = zkp_pick(cs, bits[0], cur, &siblings[0]);
		break;
	case 4:
		insert_4(cs, cur, bits, siblings, out);
		break;
	case 8:
		insert_8(cs, cur, bits, siblings, out);
		break;
	default:
		zkp_cs_fail(cs, ZKP_ERR_INVAL, "insert: arity %u is not 2, 4 or 8", arity);
	}
}

zkp_num zkp_sha256_leaves_circuit(zkp_cs *cs, const zkp_num *leaves, unsigned n)
{
	zkp_bool msg[2 * 256], digest[256], le[256], bits[255];
	zkp_num out = { 0 };
	if (n > 2) {
		zkp_cs_fail(cs, ZKP_ERR_INVAL, "SHA-256 node of %u leaves: at most 2", n);
		return out;
	}
	for (unsigned i = 0; i < n; i++) {
		zkp_num_to_bits_le(cs, &leaves[i], bits);
		zkp_bits_reverse_bytes(msg + 256 * i, bits);
	}
	zkp_sha256(cs, msg, 256 * n, digest);
	/* byte-wise little-endian: reverse the bits of each digest byte */
	for (unsigned byte = 0; byte < 32; byte++)
		for (unsigned k = 0; k < 8; k++)
			le[byte * 8 + k] = digest[byte * 8 + 7 - k];
	return zkp_pack_bits(cs, le, 254);
}

unsigned zkp_tree_levels(const zkp_tree_shape *t)
{
	return t->base_levels + (t->arity[1] != 0) + (t->arity[2] != 0);
}

unsigned zkp_tree_level_arity(const zkp_tree_shape *t, unsigned level)
{
	if (level < t->base_levels)
		return t->arity[0];
	if (level == t->base_levels && t->arity[1])
		return t->arity[1];
	return t->arity[2];
}

static unsigned log2u(unsigned a) { return a == 8 ? 3 : a == 4 ? 2 : 1; }

unsigned zkp_tree_index_bits(const zkp_tree_shape *t)
{
	unsigned n = 0;
	for (unsigned l = 0; l < zkp_tree_levels(t); l++)
		n += log2u(zkp_tree_level_arity(t, l));
	return n;
}

static bool arity_ok(unsigned a) { return a == 2 || a == 4 || a == 8; }

int zkp_tree_shape_check(const zkp_tree_shape *t, zkp_error *err)
{
	if (!arity_ok(t->arity[0]) || (t->arity[1] && !arity_ok(t->arity[1])) ||
	    (t->arity[2] && !arity_ok(t->arity[2])))
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "tree arities %u-%u-%u: each must be 2, 4 or 8 (0 for no sub/top tree)",
				     t->arity[0], t->arity[1], t->arity[2]);
	if (t->arity[2] && !t->arity[1])
		return zkp_error_set(err, ZKP_ERR_INVAL, "tree arities %u-%u-%u: a top tree needs a sub tree",
				     t->arity[0], t->arity[1], t->arity[2]);
	if (t->hash == ZKP_TREE_SHA256 && (t->arity[0] != 2 || t->arity[1] || t->arity[2]))
		return zkp_error_set(err, ZKP_ERR_INVAL, "a SHA-256 tree is binary");
	unsigned levels = zkp_tree_levels(t), sib = 0;
	for (unsigned l = 0; l < levels; l++)
		sib += zkp_tree_level_arity(t, l) - 1;
	if (levels > ZKP_PATH_MAX_LEVELS || sib > ZKP_PATH_MAX_SIBLINGS ||
	    zkp_tree_index_bits(t) > 254)
		return zkp_error_set(err, ZKP_ERR_INVAL,
				     "a tree of %u levels and %u siblings per path is too deep", levels, sib);
	return 0;
}

/* One level: cur inserted among the siblings at the bits' position, hashed. */
static zkp_num level_hash(zkp_cs *cs, const zkp_tree_shape *t, unsigned arity, const zkp_num *cur,
			  const zkp_bool *bits, const zkp_num *sib)
{
	zkp_num ins[8];
	zkp_insert(cs, arity, cur, bits, sib, ins);
	if (t->hash == ZKP_TREE_SHA256)
		return zkp_sha256_leaves_circuit(cs, ins, arity);
	const zkp_poseidon_consts *c;
	int rc = zkp_poseidon_consts_get(&c, arity);
	if (rc) {
		zkp_cs_fail(cs, rc, "Poseidon of arity %u", arity);
		return *cur;
	}
	return zkp_poseidon_circuit(cs, c, ins);
}

void zkp_por_circuit(zkp_cs *cs, const zkp_tree_shape *t, const zkp_num *leaf,
		     const zkp_num *root, const zkp_path *path)
{
	zkp_bool bits[254];
	zkp_num sib[7], cur = *leaf;
	unsigned nbits = 0, s = 0;
	const bool w = zkp_cs_witness(cs);

	for (unsigned l = 0; l < zkp_tree_levels(t) && !zkp_cs_error(cs); l++) {
		unsigned arity = zkp_tree_level_arity(t, l), k = log2u(arity);
		unsigned index = w ? path->index[l] : 0;
		zkp_bool *lb = &bits[nbits];
		for (unsigned i = 0; i < k; i++)
			lb[i] = zkp_bool_alloc(cs, (index >> i) & 1);
		nbits += k;
		for (unsigned i = 0; i + 1 < arity; i++, s++)
			sib[i] = zkp_num_alloc(cs, w ? &path->siblings[s] : NULL);
		cur = level_hash(cs, t, arity, &cur, lb, sib);
	}
	zkp_pack_into_inputs(cs, bits, nbits);
	zkp_num_enforce_equal(cs, &cur, root);
}

void zkp_por_given(zkp_cs *cs, const zkp_tree_shape *t, const zkp_num *leaf, const zkp_num *root,
		   const zkp_bool *bits, const zkp_num *siblings)
{
	zkp_num cur = *leaf;
	for (unsigned l = 0; l < zkp_tree_levels(t) && !zkp_cs_error(cs); l++) {
		unsigned arity = zkp_tree_level_arity(t, l);
		cur = level_hash(cs, t, arity, &cur, bits, siblings);
		bits += log2u(arity);
		siblings += arity - 1;
	}
	zkp_num_enforce_equal(cs, &cur, root);
}

zkp_num zkp_select(zkp_cs *cs, const zkp_num *from, const zkp_bool *bits, unsigned n)
{
	/* state halves each round; 2^n <= 256 in every Filecoin use */
	zkp_num state[256];
	size_t half = (size_t)1 << n;
	if (n > 8) {
		zkp_cs_fail(cs, ZKP_ERR_INVAL, "select over 2^%u numbers: at most 2^8", n);
		return from[0];
	}
	memcpy(state, from, half * sizeof(state[0]));
	for (unsigned i = 0; i < n; i++) {
		half /= 2;
		for (size_t j = 0; j < half; j++)
			state[j] = zkp_pick(cs, bits[n - 1 - i], &state[half + j], &state[j]);
	}
	return state[0];
}
