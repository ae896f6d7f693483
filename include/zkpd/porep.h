/*
 * porep: Filecoin's StackedDRG PoRep partition circuit (C2), synthesized
 * row for row as rust-fil-proofs' StackedCircuit does it
 * (storage-proofs-porep stacked/circuit/{proof,params,create_label}.rs), so
 * a .pce compiled from it is the matrix that Filecoin's published v28
 * parameters were made for. docs/filecoin-circuits.md describes its rows.
 *
 * One partition: replica_id (input 1, decomposed to bits), comm_d (input
 * 2), comm_r (input 3), comm_r_last and comm_c (private), comm_r =
 * Poseidon-2(comm_c, comm_r_last); then per challenge: the data leaf's
 * inclusion in tree D, 6 DRG and 8 expander parent columns (each hashed
 * and proven in tree C), the challenge as 64 bits (an input), the labels
 * of every layer recomputed from the parents, the encoding
 * (label_L + data), its inclusion in tree R and the challenge's own column
 * in tree C. 4 + 18 * challenges inputs including ONE.
 *
 * The rows depend only on the shape; values enter only in a WITNESS pass.
 */
#ifndef ZKPD_POREP_H
#define ZKPD_POREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/cs.h"
#include "zkpd/error.h"
#include "zkpd/gadgets.h"
#include "zkpd/pool.h"

#define ZKP_POREP_DRG_PARENTS 6
#define ZKP_POREP_EXP_PARENTS 8
#define ZKP_POREP_PARENTS (ZKP_POREP_DRG_PARENTS + ZKP_POREP_EXP_PARENTS)
#define ZKP_POREP_LABEL_PARENTS 37
#define ZKP_POREP_MAX_LAYERS 11

typedef struct {
	uint64_t nodes;      /* 32-byte nodes in the sector, a power of two */
	unsigned layers;     /* 2 or 11 (the column hash is Poseidon of that arity) */
	unsigned challenges; /* per partition */
	unsigned tree[3];    /* arities of trees C and R: base, sub, top (0 = none) */
	uint64_t sector_bytes; /* 0 for a test shape */
} zkp_porep_shape;

/* The published sector sizes: 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB.
 * Anything else: ZKP_ERR_INVAL naming the size and listing these. */
int zkp_porep_shape_for_size(zkp_porep_shape *ret, uint64_t sector_bytes, zkp_error *err);
/* Parses "2KiB", "2k", "32GiB", "32G", "34359738368", ... into bytes.
 * ZKP_ERR_INVAL for anything else. */
int zkp_porep_parse_size(uint64_t *ret, const char *s, zkp_error *err);
/* ZKP_ERR_INVAL (detail names the field) for nodes not a power of two >= 2,
 * layers other than 2 or 11, no challenges, tree arities not 2/4/8, or
 * nodes that trees of those arities cannot hold. */
int zkp_porep_shape_check(const zkp_porep_shape *s, zkp_error *err);
/* Tree D (binary SHA-256) and trees C/R (Poseidon) of a checked shape. */
void zkp_porep_tree_d(const zkp_porep_shape *s, zkp_tree_shape *ret);
void zkp_porep_tree_cr(const zkp_porep_shape *s, zkp_tree_shape *ret);
/* Inputs including ONE: 4 + 18 * challenges. */
uint64_t zkp_porep_inputs(const zkp_porep_shape *s);

/* The .pce label of a partition circuit (pce.h zkp_pce_label): bytes 0-3
 * "FPR1", 4-11 nodes, 12 layers, 13-14 challenges, 15-17 the tree
 * arities, 18-25 the sector size in bytes (0 for a test shape), all
 * little-endian; the rest zero. decode returns false for other labels. */
void zkp_porep_label_encode(uint8_t out[32], const zkp_porep_shape *s);
bool zkp_porep_label_decode(zkp_porep_shape *ret, const uint8_t label[32]);

/* "8-8-0": the tree arities as rust-fil-proofs names them. */
void zkp_porep_tree_name(char out[16], const zkp_porep_shape *s);
/* "32GiB: 2^30 nodes, 11 layers, 18 challenges, tree 8-8-0" (a test shape
 * says "test shape" for the size). */
void zkp_porep_describe(char *out, size_t n, const zkp_porep_shape *s);

/* One challenge's witness, as C1's vanilla proof gives it. */
typedef struct {
	zkp_fr data_leaf;  /* comm_d_proofs.leaf */
	zkp_path comm_d_path;
	zkp_fr parent_rows[ZKP_POREP_PARENTS][ZKP_POREP_MAX_LAYERS]; /* 6 DRG then 8 expander */
	zkp_path parent_paths[ZKP_POREP_PARENTS];
	uint64_t node;     /* the challenged node (labeling_proofs[0].node) */
	zkp_path comm_r_last_path;
	zkp_path comm_c_path;
} zkp_porep_challenge;

typedef struct {
	zkp_fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
	const zkp_porep_challenge *challenges; /* shape.challenges entries */
} zkp_porep_witness;

/* The partition circuit on cs. w is read in WITNESS passes only (NULL
 * otherwise). The shape must have passed zkp_porep_shape_check. */
void zkp_porep_circuit(zkp_cs *cs, const zkp_porep_shape *s, const zkp_porep_witness *w);

/* A partition's public inputs after ONE (zkp_porep_inputs - 1 values) in
 * the circuit's order, from the public data alone, as a verifier derives
 * them: replica_id, comm_d, comm_r, then per challenge its node (the tree D
 * index), its 6 DRG and 8 expander parents (tree C indices), the node again
 * (the challenge), and twice more (tree R and tree C indices). nodes and
 * parents have s->challenges entries. */
void zkp_porep_public_inputs(zkp_fr *out, const zkp_porep_shape *s, const zkp_fr *replica_id,
			     const zkp_fr *comm_d, const zkp_fr *comm_r, const uint64_t *nodes,
			     const uint32_t (*parents)[ZKP_POREP_PARENTS]);

/* The witness of a partition (exactly what a WITNESS pass of
 * zkp_porep_circuit writes) with its challenges spread over pool's threads:
 * the part before the first challenge runs on the caller, then each
 * challenge fills its own slice of w (every challenge allocates the same
 * number of variables). w has inputs + aux entries, the circuit's counts
 * (zkp_circuit_shape). Errors: ZKP_ERR_MISMATCH when inputs/aux are not
 * the shape's, ZKP_ERR_NOMEM, or what a challenge's pass records (the
 * first failing challenge named). */
int zkp_porep_witness_parallel(const zkp_porep_shape *s, const zkp_porep_witness *in, zkp_fr *w,
			       uint64_t inputs, uint64_t aux, zkp_pool *pool, zkp_error *err);

/* Writes partition circuit s as a .pce at path (atomically, labelled with
 * zkp_porep_label_encode): the same bytes as zkp_circuit_write of
 * zkp_porep_circuit_fn, in one synthesis pass instead of three, with the
 * challenges spread over pool's threads, each into a memory builder of its
 * own (zkp_pce_builder_append joins them in order). stats (may be NULL)
 * gets the circuit's counts. Memory: the rows, about 8 bytes a non-zero
 * (5.8 GB at 32 GiB), and each challenge's density bitmaps (33 MB at
 * 32 GiB) until it is appended. Errors: the lowest failing challenge's
 * (named), the builders' and the write's (ZKP_ERR_IO naming the path),
 * ZKP_ERR_NOMEM. */
int zkp_porep_circuit_write_parallel(const zkp_porep_shape *s, const char *path,
				     zkp_pce_builder_stats *stats, zkp_pool *pool, zkp_error *err);

/*
 * Checks every row of partition circuit s (the rows zkp_porep_circuit
 * emits: those a .pce of s stores, without the prover's input rows)
 * against the witness computed from in, in one streaming pass and without
 * a .pce: the part before the first challenge, then each challenge on
 * pool's threads (its witness, then its rows, each evaluated as
 * A.w * B.w = C.w as it is emitted). *rows (not NULL) gets the circuit's
 * row count; inputs (zkp_porep_inputs(s) values, ONE first; may be NULL)
 * the witness's public inputs, for the caller to compare with derived
 * ones. The witness is in's, unchecked: a wrong value shows as a row.
 * Cost: a witness pass and a rows pass of every challenge (a 32 GiB
 * partition: 12 s on 2 threads).
 * Returns 0 when every row holds. ZKP_ERR_UNSATISFIED: *first_row (when
 * not NULL) is the lowest failing row, numbered as in the .pce, and err
 * names it, its challenge and its A.w, B.w, C.w (rows past it are not all
 * evaluated, and inputs is not written). Other errors: a witness pass's
 * (the part named), ZKP_ERR_NOMEM.
 * Memory: the witness is mapped whole but given back challenge by
 * challenge: resident are the global part and about 32 bytes per
 * variable of each challenge in progress (231 MB each at 32 GiB).
 */
int zkp_porep_check_rows(const zkp_porep_shape *s, const zkp_porep_witness *in, zkp_fr *inputs,
			 zkp_pool *pool, uint64_t *rows, uint64_t *first_row, zkp_error *err);

/* A partition as a zkp_circuit_fn (circuit.h): ctx is a zkp_porep_job;
 * witness is read in WITNESS passes only and may be NULL otherwise. */
typedef struct {
	const zkp_porep_shape *shape;
	const zkp_porep_witness *witness;
} zkp_porep_job;
void zkp_porep_circuit_fn(zkp_cs *cs, void *job);

/* create_label_circuit: SHA-256 of replica_id's 256 bits, the layer (32
 * bits, big-endian), the node (64 bits, big-endian), zeros to 512 bits and
 * the 37 parents' 256 bits each; the digest's first 254 bits after
 * per-byte reversal, packed. */
zkp_num zkp_porep_label_circuit(zkp_cs *cs, const zkp_bool replica_id[256],
				const zkp_bool *const parents[ZKP_POREP_LABEL_PARENTS],
				const zkp_u32 *layer, const zkp_bool node_bits[64]);

#endif
