/*
 * porep_c1: a sector's commit-phase-1 output (C1, "vanilla proofs"), read
 * from and written to the JSON that Filecoin's FFI produces
 * (SealCommitPhase1Output, serde_json) or the wrapper lotus-bench and Curio
 * pass around ({"SectorNum", "Phase1Out": base64 of that JSON,
 * "SectorSize"}). docs/filecoin-c1.md gives the schema.
 *
 * What is kept: every value the partition circuits read, in the form their
 * witness pass takes (zkp_porep_challenge), plus what a self-check compares
 * (roots, leaves, the parents' node indices, the labels C1 carries for the
 * challenged column). Nothing per JSON node: the reader streams (YAJL) and
 * holds at most the decoded values, about 60 KiB per challenge.
 *
 * Values: 32-byte commitments and tree nodes are JSON arrays of 32 integers
 * 0..255, little-endian Fr representations (Poseidon domains, replica_id)
 * or digests with the top two bits cleared (comm_d, tree D nodes). Every
 * one must be a canonical field element; the reader refuses others.
 *
 * Threads: a zkp_porep_c1 is immutable once read; any number of threads may
 * read it.
 */
#ifndef ZKPD_POREP_C1_H
#define ZKPD_POREP_C1_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/porep.h"

/* One challenge: the circuit's witness values (ch) and what the self-check
 * compares. */
typedef struct {
	zkp_porep_challenge ch;             /* leaf, paths (index + siblings), parent rows, node */
	uint32_t parent_nodes[ZKP_POREP_PARENTS]; /* column.index of the 6 DRG, 8 expander parents */
	uint32_t column_index;              /* replica_column_proofs.c_x.column.index */
	zkp_fr column_rows[ZKP_POREP_MAX_LAYERS]; /* c_x.column.rows: the challenged labels */
	zkp_fr comm_r_last_leaf;            /* comm_r_last_proof.leaf: the encoded node */
	zkp_fr roots[3];                    /* comm_d_proofs.root, comm_r_last_proof.root,
					       c_x.inclusion_proof.root */
} zkp_porep_c1_challenge;

typedef struct {
	char registered_proof[64];     /* e.g. "StackedDrg2KiBV1_1" */
	char proofs_tag[32];           /* vanilla_proofs' key, e.g. "StackedDrg2KiBV1" */
	uint64_t sector_bytes;         /* from the tag */
	zkp_porep_shape shape;         /* for sector_bytes (zkp_porep_shape_for_size) */
	unsigned partitions;           /* vanilla_proofs' length */
	unsigned challenges;           /* per partition (each partition's length) */
	uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
	zkp_fr comm_r_fr, comm_d_fr, replica_id_fr;
	/* Per partition: comm_r_last and comm_c (from its first proof; the
	 * reader checks every proof of the partition agrees). */
	zkp_fr *comm_r_last, *comm_c;  /* partitions entries */
	zkp_porep_c1_challenge *ch;    /* partitions * challenges, partition-major */
	/* The wrapper's fields when the input was wrapped (else 0). */
	int64_t wrapper_sector_num;
	uint64_t wrapper_sector_size;
} zkp_porep_c1;

/*
 * Reads a C1 from buf (either form; a leading '{"SectorNum"' or any object
 * with "Phase1Out" is the wrapper). Errors, each naming the field, and the
 * partition and challenge where there is one:
 *   ZKP_ERR_FORMAT     not JSON, a missing or unexpected field, a value of
 *                      the wrong type, a byte array not of 32 integers 0..255,
 *                      an unknown registered_proof or vanilla_proofs tag, a
 *                      tag that disagrees with registered_proof's sector size,
 *                      a path of the wrong length or arity for the size, a
 *                      Single/Sub/Top variant the size does not use, a column
 *                      of the wrong number of rows
 *   ZKP_ERR_TRUNCATED  the JSON ends early
 *   ZKP_ERR_NOT_CANONICAL a value >= r
 *   ZKP_ERR_MISMATCH   partitions of different lengths, a partition count or
 *                      challenge count that the proof version does not have,
 *                      roots that differ between the proofs of one partition,
 *                      a challenge index that differs between its proofs
 *   ZKP_ERR_NOMEM
 * Memory: the result (about 60 KiB per challenge) plus YAJL's parser state
 * and, for the wrapper, the decoded inner JSON. Cost: one pass over the bytes.
 */
int zkp_porep_c1_parse(zkp_porep_c1 **ret, const uint8_t *buf, size_t len, zkp_error *err);
/* zkp_porep_c1_parse of a file, read (not mapped), messages prefixed with
 * the path. ZKP_ERR_IO for open/read errors. */
int zkp_porep_c1_load(zkp_porep_c1 **ret, const char *path, zkp_error *err);
void zkp_porep_c1_free(zkp_porep_c1 *c1);

/* The witness inputs of partition k (k < partitions): pointers into c1. */
void zkp_porep_c1_witness(const zkp_porep_c1 *c1, unsigned k, zkp_porep_witness *ret);

/*
 * Writes c1 as the FFI's JSON (field order and encodings as serde_json
 * writes them: compact, no spaces) to path, atomically; with wrap, inside
 * the lotus-bench/Curio wrapper with the given sector number. Used by the
 * development sealer. ZKP_ERR_IO, ZKP_ERR_NOMEM.
 */
int zkp_porep_c1_write(const zkp_porep_c1 *c1, const char *path, int wrap, int64_t sector_num,
		       zkp_error *err);

#endif
