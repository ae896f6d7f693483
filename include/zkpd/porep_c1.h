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
 * holds only the decoded values: 57 KiB per challenge, twice (the record
 * and its contiguous witness copy, wit).
 *
 * Values: 32-byte commitments and tree nodes are JSON arrays of 32 integers
 * 0..255, little-endian Fr representations (Poseidon domains, replica_id)
 * or digests with the top two bits cleared (comm_d, tree D nodes). Every
 * one must be a canonical field element; the reader refuses others. seed
 * and ticket are randomness, any 32 bytes.
 *
 * The reader takes fields in any order and skips unknown ones, whatever
 * their value, as serde does (a debug log line names each), and needs
 * every field serde needs, "_h": null included; an unknown enum variant
 * or tag is refused, as serde refuses it. Fields it does not keep (the labeling and encoding
 * proofs' parents, the parents' and c_x's leaves) are checked for form
 * only; the writer regenerates them from what is kept.
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
	/* Each ch[j].ch again, contiguous, as zkp_porep_witness.challenges
	 * points into (a zkp_porep_c1_challenge is longer than the
	 * zkp_porep_challenge it holds). Filled by the reader; a C1 built by
	 * hand for zkp_porep_c1_write may leave it NULL. */
	zkp_porep_challenge *wit;
	/* The wrapper's fields when the input was wrapped (else 0). */
	int64_t wrapper_sector_num;
	uint64_t wrapper_sector_size;
} zkp_porep_c1;

/*
 * Reads a C1 from buf, in either form: an object whose first field is
 * SectorNum, Phase1Out or SectorSize is the wrapper, whose Phase1Out must
 * be standard padded base64 of the JSON and whose SectorSize must be the
 * C1's. Every error message names the JSON path of the offending value
 * (e.g. "vanilla_proofs[0][3].replica_column_proofs.drg_parents[2]
 * .inclusion_proof.data.Single.path.path[1].hashes[4]", inside a wrapper's
 * JSON prefixed "Phase1Out JSON: ") and the partition and challenge where there is
 * one:
 *   ZKP_ERR_FORMAT     not JSON or trailing bytes, a missing or duplicate
 *                      field, a value of the wrong type, a byte array
 *                      not of 32 integers 0..255, an integer out of its
 *                      type's range, an unknown registered_proof or
 *                      vanilla_proofs tag, a tag of another sector size than
 *                      registered_proof's, a path of the wrong length, a path
 *                      element of the wrong number of hashes or an index not
 *                      below the arity, a Single/Sub/Top variant the tree
 *                      does not use, rows, labeling proofs or parent lists of
 *                      the wrong length, a layer_index other than the
 *                      proof's layer, a node past the sector, bad base64
 *   ZKP_ERR_TRUNCATED  the input (or the JSON inside Phase1Out) ends early
 *   ZKP_ERR_NOT_CANONICAL a field element >= r (anything but seed and ticket)
 *   ZKP_ERR_MISMATCH   a partition count the proof version does not have
 *                      (1 or 10; NI 13 or 126), a partition of other than the
 *                      size's challenges (2 or 18), a labeling or encoding
 *                      node other than c_x's column index, an inclusion path
 *                      whose leaf index is not its node, comm_r_last or comm_c
 *                      roots that differ within a partition, a parent's root
 *                      other than comm_c, comm_d_proofs' root other than
 *                      comm_d, comm_r other than Poseidon(comm_c,
 *                      comm_r_last), the wrapper's SectorSize
 *   ZKP_ERR_NOMEM
 * Not checked: leaves and sibling values (no hashing but the one comm_r),
 * the labeling and encoding parents (the writer regenerates them).
 * Memory: the result (114 KiB per challenge) and YAJL's state; a wrapper's
 * JSON is decoded 48 KiB at a time, never whole. Cost: one pass, about
 * 90 MB/s (a 32 GiB C1, 38.7 MB: 0.44 s).
 */
int zkp_porep_c1_parse(zkp_porep_c1 **ret, const uint8_t *buf, size_t len, zkp_error *err);
/* zkp_porep_c1_parse of a file, read whole (not mapped), messages prefixed
 * with the path. ZKP_ERR_IO for open/read errors. Peak memory: the file
 * plus the result (32 GiB C1: 62 MB for 38.7 MB plain, 75 MB for 51.6 MB
 * wrapped). */
int zkp_porep_c1_load(zkp_porep_c1 **ret, const char *path, zkp_error *err);
/* The same for a file already open on fd (left open); messages name name.
 * A file cut short while being read: ZKP_ERR_TRUNCATED. */
int zkp_porep_c1_load_fd(zkp_porep_c1 **ret, int fd, const char *name, zkp_error *err);
void zkp_porep_c1_free(zkp_porep_c1 *c1);

/* The witness inputs of partition k (k < partitions): pointers into c1,
 * which must come from zkp_porep_c1_parse or _load (wit filled). */
void zkp_porep_c1_witness(const zkp_porep_c1 *c1, unsigned k, zkp_porep_witness *ret);

/*
 * Writes c1 as the FFI's JSON (field order and encodings as serde_json
 * writes them: compact, no spaces) to path, atomically (a temporary file
 * beside it, fsync, rename); with wrap, inside the lotus-bench/Curio
 * wrapper with the given sector number (Go's json.Marshal layout). What c1
 * does not keep is regenerated: each column proof's leaf (Poseidon of its
 * rows), the parents' roots (comm_c of the partition), the labeling
 * proofs' 37 parents from the parent rows, the encoding proof (the last
 * layer's). Reads registered_proof, sector_bytes, shape, partitions,
 * challenges, the 32-byte fields, comm_c and ch; wit is not needed. Used
 * by the development sealer. ZKP_ERR_INVAL for an incomplete c1 (unknown
 * size or registered_proof, no partitions), ZKP_ERR_IO, ZKP_ERR_NOMEM.
 * Memory: a 1 MiB buffer. Cost: 15 Poseidon-L hashes per challenge.
 */
int zkp_porep_c1_write(const zkp_porep_c1 *c1, const char *path, int wrap, int64_t sector_num,
		       zkp_error *err);

#endif
