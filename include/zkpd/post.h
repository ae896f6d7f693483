/*
 * post: Filecoin's Fallback PoSt circuit (WindowPoSt and WinningPoSt),
 * synthesized row for row as rust-fil-proofs' FallbackPoStCircuit does it
 * (storage-proofs-post fallback/circuit.rs); docs/filecoin-circuits.md
 * describes its rows.
 *
 * Per sector, in order: comm_r_last, comm_c and comm_r allocated (private),
 * comm_r made an input, the row Poseidon-2(comm_c, comm_r_last) = comm_r;
 * then per challenge the challenged leaf of tree R allocated and its
 * inclusion proven against comm_r_last (zkp_por_circuit: one input, the
 * leaf's index). 1 + sectors * (1 + challenges) inputs including ONE.
 *
 * rust-fil-proofs synthesizes the sectors in parallel chunks and merges
 * the chunks' systems in order (the "extensible" path); inputs and aux
 * being numbered separately, that equals this sequential synthesis.
 *
 * The rows depend only on the shape; values enter only in a WITNESS pass.
 */
#ifndef ZKPD_POST_H
#define ZKPD_POST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/cs.h"
#include "zkpd/error.h"
#include "zkpd/gadgets.h"

enum zkp_post_kind { ZKP_POST_WINDOW, ZKP_POST_WINNING };

#define ZKP_POST_WINDOW_CHALLENGES 10 /* per sector */
#define ZKP_POST_WINNING_CHALLENGES 66
#define ZKP_POST_WINNING_SECTORS 1

typedef struct {
	enum zkp_post_kind kind;
	uint64_t nodes;        /* 32-byte nodes in a sector, a power of two */
	unsigned sectors;      /* per partition (per proof) */
	unsigned challenges;   /* per sector */
	unsigned tree[3];      /* tree R's arities: base, sub, top (0 = none) */
	uint64_t sector_bytes; /* 0 for a test shape */
} zkp_post_shape;

/* "window" / "winning"; parse: ZKP_ERR_INVAL naming the text otherwise. */
const char *zkp_post_kind_name(enum zkp_post_kind k);
int zkp_post_kind_parse(enum zkp_post_kind *ret, const char *s, zkp_error *err);

/* A published sector size (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB) and
 * kind: tree R as the sector's PoRep has it, WindowPoSt's sectors per
 * partition (2 below 32 GiB, 2,349 at 32 GiB, 2,300 at 64 GiB) and 10
 * challenges, or WinningPoSt's 1 sector and 66 challenges. Anything else:
 * ZKP_ERR_INVAL naming the size and listing the published ones. */
int zkp_post_shape_for_size(zkp_post_shape *ret, enum zkp_post_kind kind, uint64_t sector_bytes,
			    zkp_error *err);
/* ZKP_ERR_INVAL (detail names the field) for nodes not a power of two,
 * no sectors or challenges, arities not 2/4/8, or nodes that a tree of
 * those arities cannot hold. */
int zkp_post_shape_check(const zkp_post_shape *s, zkp_error *err);
/* Tree R (Poseidon) of a checked shape. */
void zkp_post_tree_r(const zkp_post_shape *s, zkp_tree_shape *ret);
/* Inputs including ONE: 1 + sectors * (1 + challenges). */
uint64_t zkp_post_inputs(const zkp_post_shape *s);
/* "32GiB WindowPoSt: 2,349 sectors x 10 challenges, 2^30 nodes, tree
 * 8-8-0" (a test shape says "test shape"). */
void zkp_post_describe(char *out, size_t n, const zkp_post_shape *s);

/* The .pce label (pce.h zkp_pce_label): bytes 0-3 "FPS1", 4 the kind, 5-12
 * nodes, 13-16 sectors, 17-18 challenges, 19-21 the tree arities, 22-29
 * the sector size in bytes (0 for a test shape), little-endian; the rest
 * zero. decode returns false for other labels. */
void zkp_post_label_encode(uint8_t out[32], const zkp_post_shape *s);
bool zkp_post_label_decode(zkp_post_shape *ret, const uint8_t label[32]);

/* One challenge's witness, as the vanilla proof gives it. */
typedef struct {
	uint64_t node; /* the challenged leaf's index in tree R */
	zkp_fr leaf;
	zkp_path path;
} zkp_post_challenge;

typedef struct {
	uint64_t sector_id;
	zkp_fr comm_r, comm_c, comm_r_last;
	const zkp_post_challenge *challenges; /* shape.challenges entries */
} zkp_post_sector;

typedef struct {
	const zkp_post_sector *sectors; /* shape.sectors entries */
} zkp_post_witness;

/* The circuit on cs. w is read in WITNESS passes only (NULL otherwise).
 * The shape must have passed zkp_post_shape_check. */
void zkp_post_circuit(zkp_cs *cs, const zkp_post_shape *s, const zkp_post_witness *w);

/* The public inputs after ONE (zkp_post_inputs - 1 values) in the
 * circuit's order: per sector comm_r, then its challenges' leaf indices.
 * comm_r has s->sectors entries, nodes s->sectors * s->challenges. */
void zkp_post_public_inputs(zkp_fr *out, const zkp_post_shape *s, const zkp_fr *comm_r,
			    const uint64_t *nodes);

/* The circuit as a zkp_circuit_fn (circuit.h): ctx is a zkp_post_job. */
typedef struct {
	const zkp_post_shape *shape;
	const zkp_post_witness *witness;
} zkp_post_job;
void zkp_post_circuit_fn(zkp_cs *cs, void *job);

#endif
