/*
 * snap: Filecoin's SnapDeals (EmptySectorUpdate) partition circuit,
 * synthesized row for row as rust-fil-proofs' EmptySectorUpdateCircuit does
 * it (storage-proofs-update circuit.rs, gadgets.rs, constants.rs), and the
 * native values it rests on (phi, rho, the partition's challenges).
 * docs/filecoin-circuits.md describes its rows.
 *
 * An update re-encodes a committed-capacity sector's replica with new data:
 * every node becomes new = old + data * rho, where rho = H(phi, high bits
 * of the node's index), phi = H(comm_d_new, comm_r_old) and H is Poseidon
 * of arity 2 with the "gen randomness" domain tag (neptune's
 * HashType::Custom(Arbitrary(1)), tag 2^40). A partition proves, for each
 * of its challenges (generated in the circuit from comm_r_new and the
 * partition index), that the node's old replica leaf, new data leaf and
 * new replica leaf are in tree R old, tree D new and tree R new and obey
 * the encoding.
 *
 * Public inputs after ONE, in order: k | h_select << partition_bits (the
 * partition index and a one-hot selector of h among the shape's six h
 * values), comm_r_old, comm_d_new, comm_r_new.
 *
 * The rows depend only on the shape; values enter only in a WITNESS pass.
 */
#ifndef ZKPD_SNAP_H
#define ZKPD_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/cs.h"
#include "zkpd/error.h"
#include "zkpd/gadgets.h"

#define ZKP_SNAP_HS 6      /* h values a shape allows */
#define ZKP_SNAP_INPUTS 5  /* ONE, k_and_h_select, comm_r_old, comm_d_new, comm_r_new */

typedef struct {
	uint64_t nodes;        /* 32-byte nodes in the sector, 2^5 .. 2^31 */
	unsigned tree[3];      /* tree R's arities: base, sub, top (0 = none) */
	unsigned partitions;   /* 1, 2, 4 or 16 */
	unsigned challenges;   /* per partition: 10 or 86 */
	unsigned apex_leaves;  /* per partition: 8 or 128 */
	unsigned hs[ZKP_SNAP_HS];
	uint64_t sector_bytes;
} zkp_snap_shape;

/* Every sector size storage-proofs-update allows: the test sizes 1, 2, 4,
 * 8, 16 and 32 KiB, 8 MiB, 16 MiB, 512 MiB, 32 GiB and 64 GiB, with its
 * tree R, partitions, challenges, apex leaves and h values
 * (constants.rs). Anything else: ZKP_ERR_INVAL naming the size. */
int zkp_snap_shape_for_size(zkp_snap_shape *ret, uint64_t sector_bytes, zkp_error *err);
/* Tree R (Poseidon) and tree D (binary SHA-256) of a shape. */
void zkp_snap_tree_r(const zkp_snap_shape *s, zkp_tree_shape *ret);
void zkp_snap_tree_d(const zkp_snap_shape *s, zkp_tree_shape *ret);
/* log2 of nodes, partitions and apex leaves. */
unsigned zkp_snap_challenge_bits(const zkp_snap_shape *s);
unsigned zkp_snap_partition_bits(const zkp_snap_shape *s);
unsigned zkp_snap_apex_bits(const zkp_snap_shape *s);
/* "32GiB SnapDeals: partition of 16, 86 challenges, 2^30 nodes, tree
 * 8-8-0, 128 apex leaves". */
void zkp_snap_describe(char *out, size_t n, const zkp_snap_shape *s);

/* The .pce label (pce.h): bytes 0-3 "SNP1", 4-11 the sector size in bytes,
 * little-endian; the rest zero (the size determines the whole shape).
 * decode returns false for other labels or an unknown size. */
void zkp_snap_label_encode(uint8_t out[32], const zkp_snap_shape *s);
bool zkp_snap_label_decode(zkp_snap_shape *ret, const uint8_t label[32]);

/* ---- native values ---- */

/* phi = H_gen(comm_d_new, comm_r_old). */
int zkp_snap_phi(zkp_fr *ret, const zkp_fr *comm_d_new, const zkp_fr *comm_r_old);
/* rho = H_gen(phi, high) for the h high bits `high` of a node index. */
int zkp_snap_rho(zkp_fr *ret, const zkp_fr *phi, uint64_t high);
/* The h high bits of node (of zkp_snap_challenge_bits). */
uint64_t zkp_snap_high(const zkp_snap_shape *s, unsigned h, uint64_t node);
/* Partition k's challenges (s->challenges node indices), as
 * storage-proofs-update challenges.rs derives them: digest j of the
 * partition is H_gen(comm_r_new, k * digests + j), each gives
 * floor(254 / b) challenges of b = challenge bits - partition bits random
 * bits (its little-endian bits, in order), and k fills the top bits.
 * ZKP_ERR_INVAL for k out of range. */
int zkp_snap_challenges(uint64_t *out, const zkp_snap_shape *s, const zkp_fr *comm_r_new,
			unsigned k, zkp_error *err);
/* Index of h among s->hs; ZKP_ERR_INVAL naming h and the allowed values. */
int zkp_snap_h_index(unsigned *ret, const zkp_snap_shape *s, unsigned h, zkp_error *err);

/* ---- the circuit ---- */

/* One challenge's witness, as a PartitionProof carries it. */
typedef struct {
	zkp_fr leaf_r_old, leaf_d_new, leaf_r_new;
	zkp_path r_old, d_new, r_new; /* siblings only; the bits come from the challenge */
} zkp_snap_challenge;

typedef struct {
	unsigned k; /* partition index */
	unsigned h; /* one of shape.hs */
	zkp_fr comm_r_old, comm_d_new, comm_r_new;
	zkp_fr comm_c, root_r_old, root_r_new;
	const zkp_fr *apex_leaves;                /* shape.apex_leaves entries */
	const zkp_snap_challenge *challenges;     /* shape.challenges entries */
} zkp_snap_witness;

/* The circuit on cs. w is read in WITNESS passes only (NULL otherwise).
 * The shape must come from zkp_snap_shape_for_size (or its label). */
void zkp_snap_circuit(zkp_cs *cs, const zkp_snap_shape *s, const zkp_snap_witness *w);

/* The 4 public inputs after ONE. ZKP_ERR_INVAL for k or h out of range. */
int zkp_snap_public_inputs(zkp_fr out[4], const zkp_snap_shape *s, unsigned k, unsigned h,
			   const zkp_fr *comm_r_old, const zkp_fr *comm_d_new,
			   const zkp_fr *comm_r_new, zkp_error *err);

/* The circuit as a zkp_circuit_fn (circuit.h): ctx is a zkp_snap_job. */
typedef struct {
	const zkp_snap_shape *shape;
	const zkp_snap_witness *witness;
} zkp_snap_job;
void zkp_snap_circuit_fn(zkp_cs *cs, void *job);

#endif
