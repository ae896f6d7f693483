/*
 * bincode: the reader and writer Filecoin's vanilla proofs need, bincode 1
 * with its default fixed-width integers: every integer little-endian at
 * its Rust width (usize as u64), a Vec as its u64 length and then its
 * elements, an enum as its u32 variant number and then the variant's
 * fields, a [u8; 32] as its 32 bytes, struct fields in declaration order.
 *
 * The reader checks the input's end before each value, so a short input
 * fails at the value it cuts, and every message names the byte offset and
 * the value as its serde path ("...inclusion_proofs[3].data.Sub
 * .base_proof.path[2].hashes[4]"), after the reader's `what` ("PoSt
 * vanilla proof"). The path is rendered only on failure.
 *
 * A storage-proofs-core MerkleProof is {data: ProofData}, ProofData one of
 * Single {root, leaf, path}, Sub {base_proof, sub_proof, root, leaf} and
 * Top {base_proof, sub_proof, top_proof, root, leaf}, an InclusionPath a
 * Vec of PathElement {hashes: Vec<Domain>, index: usize}. The variant is
 * the tree's: Top with a top level, Sub with a sub level, else Single.
 */
#ifndef ZKPD_FILECOIN_BINCODE_INT_H
#define ZKPD_FILECOIN_BINCODE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/gadgets.h"

typedef struct {
	const uint8_t *b;
	size_t len, off;
	zkp_error *err;
	const char *what; /* the message's first words */
	char pfx[160];    /* serde path of the value being read */
	int lvl, hash;    /* inside a path: its element, and the hash (-1: none) */
	bool at_index;
} zkp_bincode_rd;

void zkp_bincode_init(zkp_bincode_rd *r, const uint8_t *b, size_t len, const char *what,
		      zkp_error *err);
/* Names the value read next. */
void zkp_bincode_here(zkp_bincode_rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "WHAT, byte AT: FIELD: detail" into r->err; returns code. */
int zkp_bincode_fail(const zkp_bincode_rd *r, size_t at, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* ZKP_ERR_TRUNCATED, ZKP_ERR_NOT_CANONICAL (a value not below r). */
int zkp_bincode_u64(zkp_bincode_rd *r, uint64_t *v, const char *what);
int zkp_bincode_fr(zkp_bincode_rd *r, zkp_fr *out);
/* A Vec's length, which must equal want (ZKP_ERR_FORMAT naming both,
 * with `unit` saying what want counts). */
int zkp_bincode_len(zkp_bincode_rd *r, uint64_t want, const char *unit);
/* ZKP_ERR_FORMAT naming the extra bytes unless the input is used up. */
int zkp_bincode_end(zkp_bincode_rd *r);

/* The MerkleProof variant (0 Single, 1 Sub, 2 Top) a tree takes. */
unsigned zkp_bincode_variant(const zkp_tree_shape *t);
/*
 * One MerkleProof of tree t at serde path `at` (its ".data..." follows):
 * leaf, root (and root_at, its byte offset, if not NULL), and the path as
 * zkp_path holds it (per level the position, siblings level after level).
 * ZKP_ERR_FORMAT for a variant tag that is not t's, a path or element
 * length not t's, a position not below its arity; as above otherwise.
 */
int zkp_bincode_merkle_proof(zkp_bincode_rd *r, const zkp_tree_shape *t, const char *at,
			     zkp_fr *leaf, zkp_path *path, zkp_fr *root, size_t *root_at);
/* The leaf index a path's positions spell (level 0 least significant). */
uint64_t zkp_bincode_path_node(const zkp_tree_shape *t, const zkp_path *p);

/* ---- writer ---- */

/* A growing buffer; on allocation failure `failed` is set and later
 * writes do nothing. */
typedef struct {
	uint8_t *b;
	size_t len, cap;
	bool failed;
} zkp_bincode_wr;

void zkp_bincode_put_u64(zkp_bincode_wr *w, uint64_t v);
void zkp_bincode_put_u32(zkp_bincode_wr *w, uint32_t v);
void zkp_bincode_put_fr(zkp_bincode_wr *w, const zkp_fr *v);
/* A MerkleProof of tree t as the reader above reads it. */
void zkp_bincode_put_merkle_proof(zkp_bincode_wr *w, const zkp_tree_shape *t, const zkp_fr *leaf,
				  const zkp_path *path, const zkp_fr *root);

#endif
