/*
 * snap_vanilla: the vanilla proof of one SnapDeals partition that Filecoin
 * hands a prover (filecoin-proofs-api generate_empty_sector_update_proof
 * _with_vanilla: one per partition), read from its bincode bytes into the
 * circuit's witness types (snap.h), checked natively against the public
 * data, and written (for development updates). docs/formats.md,
 * "SnapDeals vanilla proofs", gives the layout.
 *
 * The bytes are storage-proofs-update's PartitionProof as bincode 1 writes
 * it: comm_c, apex_leafs (a Vec of 32-byte tree D nodes), challenge_proofs
 * (a Vec of ChallengeProof {proof_r_old, proof_d_new, proof_r_new}, each a
 * storage-proofs-core MerkleProof: trees R old and R new have the sector's
 * tree R shape, tree D new is binary).
 *
 * Invariants of a decoded zkp_snap_vanilla:
 *  - every 32-byte value is a canonical scalar (Montgomery form in memory);
 *  - apex_leaves has shape.apex_leaves entries and ch shape.challenges;
 *  - the three paths of challenge i spell the same leaf index, nodes[i];
 *  - every proof of a tree has the same root (root_r_old, root_d_new,
 *    root_r_new).
 * Not checked by decoding: hashes, encoding, challenges, apex leaves, the
 * public data (zkp_snap_vanilla_check).
 *
 * No function here keeps state; all are safe on any thread.
 */
#ifndef ZKPD_SNAP_VANILLA_H
#define ZKPD_SNAP_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/snap.h"

typedef struct {
	zkp_snap_shape shape;
	zkp_fr comm_c;
	zkp_fr *apex_leaves;    /* shape.apex_leaves, owned */
	zkp_snap_challenge *ch; /* shape.challenges (9.4 KiB each), owned */
	uint64_t *nodes;        /* shape.challenges, owned */
	zkp_fr root_r_old, root_d_new, root_r_new;
} zkp_snap_vanilla;

/*
 * Decodes buf[0..len), which must hold exactly one PartitionProof of
 * shape s. On failure *ret is zeroed. Every message names the byte offset
 * and the value as its serde path ("challenge_proofs[3].proof_d_new.data
 * .Single.path.path[5].hashes[0]"):
 *   ZKP_ERR_TRUNCATED     the bytes end inside a value (named)
 *   ZKP_ERR_FORMAT        a count other than the shape's (apex leaves,
 *                         challenges, path levels, siblings), a variant
 *                         other than the tree's, a position not below its
 *                         arity, bytes after the proof
 *   ZKP_ERR_NOT_CANONICAL a 32-byte value not below r
 *   ZKP_ERR_MISMATCH      a challenge whose three paths spell different
 *                         leaves, or a root other than the first proof's
 *   ZKP_ERR_NOMEM
 */
int zkp_snap_vanilla_decode(zkp_snap_vanilla *ret, const uint8_t *buf, size_t len,
			    const zkp_snap_shape *s, zkp_error *err);
void zkp_snap_vanilla_release(zkp_snap_vanilla *v);

/*
 * What the circuit proves, recomputed natively for partition k with h and
 * the public commitments (storage-proofs-update vanilla.rs verify):
 * comm_r_old = Poseidon-2(comm_c, root_r_old), the same for comm_r_new,
 * root_d_new = comm_d_new; the challenges derived from comm_r_new are the
 * paths' leaves, in order; every path hashes to its root; every new
 * replica leaf is old + data * rho; the apex leaves hash to the apex root
 * that challenge 0's tree D path passes, and each challenge's path passes
 * the apex leaf its index selects. ZKP_ERR_MISMATCH names the partition,
 * the challenge and what differs; ZKP_ERR_INVAL for k or h out of range.
 * Cost at 32 GiB: 86 x (2 x 10 Poseidon-8 + 30 SHA-256) and 127 SHA-256
 * for the apex tree, a few tens of milliseconds.
 */
int zkp_snap_vanilla_check(const zkp_snap_vanilla *v, unsigned k, unsigned h,
			   const zkp_fr *comm_r_old, const zkp_fr *comm_d_new,
			   const zkp_fr *comm_r_new, zkp_error *err);

/* The circuit's witness for partition k, pointing into v (which must
 * outlive it). */
void zkp_snap_vanilla_witness(const zkp_snap_vanilla *v, unsigned k, unsigned h,
			      const zkp_fr *comm_r_old, const zkp_fr *comm_d_new,
			      const zkp_fr *comm_r_new, zkp_snap_witness *w);

/* Encodes a partition's witness (its paths' positions included, as
 * snap_dev.h gives them) as a PartitionProof; *out is malloc'ed.
 * ZKP_ERR_NOMEM. */
int zkp_snap_vanilla_encode(uint8_t **out, size_t *len, const zkp_snap_shape *s,
			    const zkp_snap_witness *w, zkp_error *err);

#endif
