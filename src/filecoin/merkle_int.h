/*
 * merkle: Filecoin's Merkle trees built natively in memory, every level
 * kept, for development sectors and their vanilla proofs. A tree of shape
 * t (gadgets.h zkp_tree_shape) groups consecutive nodes by each level's
 * arity; SHA-256 nodes are filecoin-hashers' (the digest with its two top
 * bits cleared), Poseidon nodes neptune's MerkleTree hash of the arity.
 * A built tree is immutable and may be read by any number of threads.
 */
#ifndef ZKPD_FILECOIN_MERKLE_INT_H
#define ZKPD_FILECOIN_MERKLE_INT_H

#include <stdint.h>

#include "zkpd/gadgets.h"

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

/* Walks leaf up a path natively: nodes[l] is the node at level l
 * (nodes[0] = leaf, nodes[levels] the root; nodes may be NULL), *root the
 * top. ZKP_ERR_INVAL for a position not below its level's arity,
 * ZKP_ERR_NOMEM for Poseidon constants. */
int zkp_merkle_walk(const zkp_tree_shape *t, const zkp_fr *leaf, const zkp_path *p,
		    zkp_fr *nodes, zkp_fr *root);

#endif
