/*
 * gadgets: bellperson-compatible circuit gadgets over a zkp_cs (cs.h).
 *
 * Every gadget allocates variables and emits rows in exactly the order, and
 * with exactly the linear combinations, of its bellperson / bellpepper-core
 * / rust-fil-proofs counterpart (docs/filecoin-circuits.md gives each row),
 * because a Groth16 key fixes the matrix down to the order of rows and
 * variables. Structure depends only on which operands are constants, never
 * on values, so SHAPE, ROWS and WITNESS passes agree.
 *
 * Values: every type carries its value, which is meaningful only in a
 * WITNESS pass (constants' values are meaningful in every pass).
 *
 * Nothing here allocates memory per row in WITNESS mode; the few scratch
 * combinations live in the caller's structures and are reused.
 */
#ifndef ZKPD_GADGETS_H
#define ZKPD_GADGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/cs.h"
#include "zkpd/poseidon.h"

/* ---- booleans (bellpepper-core gadgets/boolean.rs) ---- */

enum zkp_bool_kind { ZKP_BOOL_CONST, ZKP_BOOL_IS, ZKP_BOOL_NOT };

/* Constant, a bit variable, or the negation of one. value is the Boolean's
 * own value (for NOT, the negation of the variable's). */
typedef struct {
	zkp_var var;
	uint8_t kind;
	bool value;
} zkp_bool;

static inline zkp_bool zkp_bool_const(bool v)
{
	return (zkp_bool){ .var = 0, .kind = ZKP_BOOL_CONST, .value = v };
}
static inline zkp_bool zkp_bool_not(zkp_bool b)
{
	if (b.kind == ZKP_BOOL_IS)
		b.kind = ZKP_BOOL_NOT;
	else if (b.kind == ZKP_BOOL_NOT)
		b.kind = ZKP_BOOL_IS;
	b.value = !b.value;
	return b;
}
/* AllocatedBit::alloc: a new variable v and the row (1 - v) * v = 0. */
zkp_bool zkp_bool_alloc(zkp_cs *cs, bool value);
zkp_bool zkp_bool_xor(zkp_cs *cs, zkp_bool a, zkp_bool b);
zkp_bool zkp_bool_and(zkp_cs *cs, zkp_bool a, zkp_bool b);
/* (a and b) xor (not a and c) */
zkp_bool zkp_bool_sha256_ch(zkp_cs *cs, zkp_bool a, zkp_bool b, zkp_bool c);
/* (a and b) xor (a and c) xor (b and c) */
zkp_bool zkp_bool_sha256_maj(zkp_cs *cs, zkp_bool a, zkp_bool b, zkp_bool c);
/* lc += coeff * b: coeff*ONE for true, nothing for false, coeff*(ONE - v)
 * for NOT. coeff NULL means 1. */
void zkp_lc_add_bool(zkp_cs *cs, zkp_lc *lc, const zkp_bool *b, const zkp_fr *coeff);

/* ---- numbers (bellpepper-core gadgets/num.rs, bellperson multipack.rs) ---- */

typedef struct {
	zkp_var var;
	zkp_fr value;
} zkp_num;

zkp_num zkp_num_alloc(zkp_cs *cs, const zkp_fr *value);
/* A new input x' and the row x' * ONE = x. */
void zkp_num_inputize(zkp_cs *cs, const zkp_num *x);
/* Non-strict to_bits_le: 255 allocated bits, LSB first, then the row
 * 0 * 0 = sum 2^i b_i - x. No range check. */
void zkp_num_to_bits_le(zkp_cs *cs, const zkp_num *x, zkp_bool bits[255]);
/* storage-proofs-update's allocated_num_to_allocated_bits: the same 255
 * bits, then the row (sum 2^i b_i) * ONE = x. No range check. */
void zkp_num_alloc_bits_le(zkp_cs *cs, const zkp_num *x, zkp_bool bits[255]);
/* AllocatedNum::mul: a new number p = x * y and the row x * y = p. */
zkp_num zkp_num_mul(zkp_cs *cs, const zkp_num *x, const zkp_num *y);
/* multipack::pack_bits: the first min(n, 254) bits as a new number, row
 * (sum 2^i bit_i) * ONE = v. */
zkp_num zkp_pack_bits(zkp_cs *cs, const zkp_bool *bits, size_t n);
/* multipack::pack_into_inputs: per 254-bit chunk a new input and the row
 * (sum 2^i bit_i) * ONE = input. */
void zkp_pack_into_inputs(zkp_cs *cs, const zkp_bool *bits, size_t n);
/* constraint::equal: row a * ONE = b. */
void zkp_num_enforce_equal(zkp_cs *cs, const zkp_num *a, const zkp_num *b);
/* UInt64::alloc + pack_into_input: 64 allocated bits (LSB first), one
 * input holding v. bits may be NULL. */
void zkp_u64_alloc_inputize(zkp_cs *cs, uint64_t v, zkp_bool bits[64]);
/* The 256 bits of a number's 255-bit decomposition after
 * reverse_bit_numbering: padded with a constant false, then reversed
 * within each byte (the 32-byte little-endian repr as a bit stream with
 * each byte MSB first). */
void zkp_bits_reverse_bytes(zkp_bool out[256], const zkp_bool in[255]);

/* ---- 32-bit words and batched equalities (bellperson uint32.rs, multieq.rs) ---- */

typedef struct {
	zkp_bool bits[32]; /* least significant first */
	uint32_t value;
} zkp_u32;

/* Accumulates equalities lhs = rhs of at most 253 bits in all into one row
 * lhs * ONE = rhs, flushed before an equality would reach 254 bits and by
 * zkp_multieq_finish. */
typedef struct {
	zkp_cs *cs;
	unsigned bits_used;
	zkp_lc lhs, rhs;
	zkp_lc tmp_l, tmp_r; /* addmany's scratch */
} zkp_multieq;

void zkp_multieq_init(zkp_multieq *me, zkp_cs *cs);
/* Emits the pending row if any and frees the scratch (MultiEq's drop). */
void zkp_multieq_finish(zkp_multieq *me);

zkp_u32 zkp_u32_const(uint32_t v);
/* Bits given most significant first (UInt32::from_bits_be). */
zkp_u32 zkp_u32_from_bits_be(const zkp_bool bits[32]);
void zkp_u32_to_bits_be(zkp_bool out[32], const zkp_u32 *x);
zkp_u32 zkp_u32_rotr(const zkp_u32 *x, unsigned by);
zkp_u32 zkp_u32_shr(const zkp_u32 *x, unsigned by);
zkp_u32 zkp_u32_xor(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b);
zkp_u32 zkp_u32_sha256_ch(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c);
zkp_u32 zkp_u32_sha256_maj(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c);
/* UInt32::addmany of 2..10 operands, modulo 2^32. */
zkp_u32 zkp_u32_addmany(zkp_multieq *me, const zkp_u32 *ops, size_t n);

/* ---- SHA-256 (bellperson gadgets/sha256.rs) ---- */

/* One compression of 512 message bits (each word most significant bit
 * first) into cur, with its own MultiEq. */
void zkp_sha256_compress(zkp_cs *cs, const zkp_bool in[512], const zkp_u32 cur[8], zkp_u32 out[8]);
/* SHA-256 of nbits message bits (nbits % 8 == 0) with constant padding;
 * out is the digest as 256 bits, each word most significant bit first. */
void zkp_sha256(zkp_cs *cs, const zkp_bool *in, size_t nbits, zkp_bool out[256]);

/* ---- Poseidon (neptune's legacy circuit, src/circuit.rs) ---- */

/* Poseidon(c->domain_tag, in[0..arity)) of allocated numbers; the digest is
 * a new allocated number. Rows: 311 / 377 / 505 / 598 for arity 2 / 4 / 8
 * / 11 (3 per S-box, one per materialised combination). */
zkp_num zkp_poseidon_circuit(zkp_cs *cs, const zkp_poseidon_consts *c, const zkp_num *in);
/* The same rows built directly, every time. zkp_poseidon_circuit records
 * them once per constant set and, in ROWS passes, replays them with the
 * call's variables (cs.h zkp_cs_template), which is 7x faster for a PoSt
 * circuit; this is the reference it is tested against. */
zkp_num zkp_poseidon_circuit_direct(zkp_cs *cs, const zkp_poseidon_consts *c, const zkp_num *in);

/* ---- Merkle inclusion (rust-fil-proofs gadgets/por.rs, insertion.rs) ---- */

/* pick: c = cond ? a : b, a new number and the row (b - a) * cond = b - c. */
zkp_num zkp_pick(zkp_cs *cs, zkp_bool cond, const zkp_num *a, const zkp_num *b);
/* Inserts cur among the arity - 1 siblings at the position given by the
 * index bits (LSB first): insert_2 (2 picks), insert_4 (8 picks) or
 * insert_8 (nor, and, 20 picks), in rust-fil-proofs' pick order. out gets
 * arity numbers. arity is 2, 4 or 8 (others: ZKP_ERR_INVAL in cs). */
void zkp_insert(zkp_cs *cs, unsigned arity, const zkp_num *cur, const zkp_bool *bits,
		const zkp_num *siblings, zkp_num *out);
/* Tree D's node hash (filecoin-hashers sha256.rs hash_multi_leaf_circuit):
 * each leaf to_bits_le, padded to 256 bits and reversed within bytes,
 * SHA-256 of the concatenation, the digest's first 254 bits in byte-wise
 * little-endian order packed into a number. Equals the native
 * SHA-256(left || right) with the top two bits of byte 31 cleared. */
zkp_num zkp_sha256_leaves_circuit(zkp_cs *cs, const zkp_num *leaves, unsigned n);

enum zkp_tree_hash { ZKP_TREE_SHA256, ZKP_TREE_POSEIDON };

/* A Merkle tree's shape: `base_levels` levels of arity arity[0] from the
 * leaves, then one level of arity[1] (sub tree) if non-zero, then one of
 * arity[2] (top tree) if non-zero. */
typedef struct {
	enum zkp_tree_hash hash;
	unsigned base_levels;
	unsigned arity[3];
} zkp_tree_shape;

#define ZKP_PATH_MAX_LEVELS 40
#define ZKP_PATH_MAX_SIBLINGS 96

/* An inclusion path's witness: per level the position of the current node
 * among its siblings, and the arity - 1 sibling values, level after level. */
typedef struct {
	uint8_t index[ZKP_PATH_MAX_LEVELS];
	zkp_fr siblings[ZKP_PATH_MAX_SIBLINGS];
} zkp_path;

unsigned zkp_tree_levels(const zkp_tree_shape *t);
/* Arity of level i. */
unsigned zkp_tree_level_arity(const zkp_tree_shape *t, unsigned level);
/* Index bits of a path: sum over levels of log2(arity). */
unsigned zkp_tree_index_bits(const zkp_tree_shape *t);
/* ZKP_ERR_INVAL (detail in err) when an arity is not 2, 4 or 8, or the
 * path would not fit a zkp_path. */
int zkp_tree_shape_check(const zkp_tree_shape *t, zkp_error *err);

/* PoRCircuit::synthesize with leaf and root as variables and the root
 * private: per level the index bits, the siblings, insert, hash; then
 * pack_into_inputs of all index bits (one input: the leaf's index) and
 * the row computed_root * ONE = root. path is read in WITNESS mode only
 * (may be NULL otherwise). */
void zkp_por_circuit(zkp_cs *cs, const zkp_tree_shape *t, const zkp_num *leaf,
		     const zkp_num *root, const zkp_path *path);

/* por_no_challenge_input (rust-fil-proofs por.rs): the index bits are
 * given (zkp_tree_index_bits of them, LSB first) and the siblings already
 * allocated (arity - 1 per level, level after level); per level insert and
 * hash, then the row computed_root * ONE = root. No input. */
void zkp_por_given(zkp_cs *cs, const zkp_tree_shape *t, const zkp_num *leaf, const zkp_num *root,
		   const zkp_bool *bits, const zkp_num *siblings);

/* insertion.rs select: from[index] for the n index bits (LSB first) over
 * 2^n numbers, by halving rounds of picks from the most significant bit:
 * 2^n - 1 rows. */
zkp_num zkp_select(zkp_cs *cs, const zkp_num *from, const zkp_bool *bits, unsigned n);

#endif
