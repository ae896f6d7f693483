/*
 * merkle: Filecoin's Merkle trees built natively in memory, for development
 * sectors and their vanilla proofs. A tree of shape t (gadgets.h
 * zkp_tree_shape) groups consecutive nodes by each level's arity; SHA-256
 * nodes are filecoin-hashers' (the digest with its two top bits cleared),
 * Poseidon nodes neptune's MerkleTree hash of the arity.
 *
 * Three kinds: a full tree (zkp_merkle) keeps every level of every node;
 * a periodic tree (zkp_merkle_periodic) is the full tree of leaves that
 * repeat, held as one period's tree and one node per level above it; a
 * sparse tree (zkp_merkle_sparse) is built over a few given leaves and
 * asks a fill function for every other node a group of theirs needs, so it
 * holds only the union of the given leaves' paths. All hash with
 * zkp_merkle_hash, so a sparse tree whose fill function answers a full or
 * periodic tree's nodes has that tree's root and paths.
 *
 * A built tree of either kind is immutable and may be read by any number
 * of threads.
 */
#ifndef ZKPD_FILECOIN_MERKLE_INT_H
#define ZKPD_FILECOIN_MERKLE_INT_H

#include <stdint.h>

#include <stddef.h>

#include "zkpd/error.h"
#include "zkpd/gadgets.h"
#include "zkpd/pool.h"

typedef struct {
	zkp_tree_shape shape;
	unsigned nlevels;
	uint64_t count[ZKP_PATH_MAX_LEVELS + 1];
	zkp_fr *level[ZKP_PATH_MAX_LEVELS + 1]; /* level 0: the leaves */
} zkp_merkle;

/* Builds every level over n leaves (copied). ZKP_ERR_NOMEM, or
 * ZKP_ERR_INVAL when n does not make one root. Free with zkp_merkle_free
 * even on failure (t zeroed first by the caller). */
int zkp_merkle_build(zkp_merkle *t, const zkp_tree_shape *shape, const zkp_fr *leaves,
		     uint64_t n);
void zkp_merkle_free(zkp_merkle *t);
const zkp_fr *zkp_merkle_root(const zkp_merkle *t);
/* Per level: the node's position in its group and the group's other
 * members in order (a path element's index and hashes). */
void zkp_merkle_path(const zkp_merkle *t, uint64_t leaf, zkp_path *p);

/* One node of a tree of shape t: SHA-256 (arity 2) or Poseidon of the
 * arity over in[arity]. ZKP_ERR_UNSUPPORTED if SHA-256 fails, ZKP_ERR_NOMEM
 * or ZKP_ERR_INVAL from the Poseidon constants of an unknown arity. */
int zkp_merkle_hash(const zkp_tree_shape *t, zkp_fr *out, const zkp_fr *in, unsigned arity);

/* Walks leaf up a path natively: nodes[l] is the node at level l
 * (nodes[0] = leaf, nodes[levels] the root; nodes may be NULL), *root the
 * top. ZKP_ERR_INVAL for a position not below its level's arity,
 * ZKP_ERR_NOMEM for Poseidon constants. */
int zkp_merkle_walk(const zkp_tree_shape *t, const zkp_fr *leaf, const zkp_path *p,
		    zkp_fr *nodes, zkp_fr *root);

/* ---- periodic trees ---- */

/* The full tree of nleaves leaves that repeat every `period` leaves:
 * leaf i is period_leaves[i % period]. The period must be the shape's base
 * arity to a power of at most its base levels, and divide nleaves. Every
 * subtree of `period` leaves is the period's own tree, so a node below its
 * root is the period tree's node at the same position modulo the level's
 * width there, and every node at a level above it has the same value: the
 * level below's, hashed arity times with itself. */
typedef struct {
	zkp_merkle period;  /* the period's tree */
	unsigned period_levels;
	unsigned nlevels;   /* the whole tree's */
	zkp_fr above[ZKP_PATH_MAX_LEVELS + 1]; /* levels period_levels .. nlevels */
} zkp_merkle_periodic;

/* Builds it. ZKP_ERR_INVAL for a period that is not as above (named),
 * ZKP_ERR_NOMEM, zkp_merkle_hash's. Free with zkp_merkle_periodic_free even
 * on failure (t zeroed first). Cost: the period's full tree, then one hash
 * per level above it. */
int zkp_merkle_periodic_build(zkp_merkle_periodic *t, const zkp_tree_shape *shape,
			      uint64_t nleaves, const zkp_fr *period_leaves, uint64_t period,
			      zkp_error *err);
void zkp_merkle_periodic_free(zkp_merkle_periodic *t);
const zkp_fr *zkp_merkle_periodic_root(const zkp_merkle_periodic *t);
/* A zkp_merkle_fill_fn (below) answering the periodic tree's node: ctx is
 * a const zkp_merkle_periodic *. Never fails. */
int zkp_merkle_periodic_fill(void *ctx, unsigned level, uint64_t index, zkp_fr *out,
			     zkp_error *err);

/* ---- sparse trees ---- */

/* The value of a node a sparse tree does not compute: level 0 is the
 * leaves, index counts that level's nodes from 0. It must be a function of
 * (level, index) alone: every call for a node gives the same value. Called
 * from the pool's threads at once, each with an err of its own; returns 0
 * or an error code with err set. */
typedef int (*zkp_merkle_fill_fn)(void *ctx, unsigned level, uint64_t index, zkp_fr *out,
				  zkp_error *err);

/* Per level l below the root, every node of every group that holds a node
 * on a given leaf's path (the path's node and its siblings), increasing;
 * level nlevels holds the root alone. */
typedef struct {
	zkp_tree_shape shape;
	unsigned nlevels;
	uint64_t leaves;                             /* the full tree's */
	uint64_t count[ZKP_PATH_MAX_LEVELS + 1];
	uint64_t *index[ZKP_PATH_MAX_LEVELS + 1];
	zkp_fr *value[ZKP_PATH_MAX_LEVELS + 1];
} zkp_merkle_sparse;

/*
 * Builds the sparse tree of shape over nleaves leaves (the product of the
 * shape's arities) from n given leaves (idx[i], leaves[i]), in any order;
 * an index given twice must come with the same value. Every other node a
 * group on the way up needs comes from fill(ctx, ...); the groups of one
 * level are hashed over pool (NULL: on the caller). Errors: ZKP_ERR_INVAL
 * (n = 0, nleaves not the shape's, an index >= nleaves, one index with two
 * values: named), ZKP_ERR_NOMEM, fill's and zkp_merkle_hash's. Free with
 * zkp_merkle_sparse_free even on failure (t zeroed first by the caller).
 * Cost: per level, one hash per group holding a given leaf's ancestor, and
 * arity - 1 fills per such group at most; memory the arity times that.
 */
int zkp_merkle_sparse_build(zkp_merkle_sparse *t, const zkp_tree_shape *shape, uint64_t nleaves,
			    const uint64_t *idx, const zkp_fr *leaves, size_t n,
			    zkp_merkle_fill_fn fill, void *ctx, zkp_pool *pool, zkp_error *err);
void zkp_merkle_sparse_free(zkp_merkle_sparse *t);
const zkp_fr *zkp_merkle_sparse_root(const zkp_merkle_sparse *t);
/* The path of leaf, as zkp_merkle_path writes it: any leaf of a group the
 * tree holds (a given leaf, or a filled one beside it). ZKP_ERR_INVAL for
 * another. */
int zkp_merkle_sparse_path(const zkp_merkle_sparse *t, uint64_t leaf, zkp_path *p);
/* The value the tree holds for node index of level (NULL if it holds
 * none): a given leaf, a filled node or one it hashed. */
const zkp_fr *zkp_merkle_sparse_node(const zkp_merkle_sparse *t, unsigned level, uint64_t index);

#endif
