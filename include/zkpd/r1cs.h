/*
 * r1cs: reading circom's .r1cs constraint systems (docs/formats.md,
 * '.r1cs') and compiling them into a .pce.
 *
 * Accepted files: magic "r1cs", version 1, sections found by id in any order
 * (circom writes 2, 1, 3). Section 1 is the header: n8 (must be 32), the
 * prime (must be BLS12-381's r; circom's default BN254 and every other prime
 * are refused with ZKP_ERR_WRONG_PRIME and a message naming the prime),
 * nWires, nPubOut, nPubIn, nPrvIn, nLabels, mConstraints. Section 2 holds the
 * constraints, A, B, C for each as u32 nTerms then nTerms x (u32 wire,
 * 32-byte canonical little-endian coefficient). Section 3 (wire -> label
 * map) is optional and only its size is checked. Sections 4 and 5 (PLONK
 * custom gates) are refused with ZKP_ERR_UNSUPPORTED. Unknown ids are
 * skipped.
 *
 * Mapping to the pce (include/zkpd/pce.h): circom numbers wires ONE, public
 * outputs, public inputs, private inputs, internal signals, so
 * n_inputs = 1 + nPubOut + nPubIn, n_aux = nWires - n_inputs, and the
 * column of a term is its wire id. Coefficients become Montgomery values.
 *
 * Header checks: nWires >= 1 + nPubOut + nPubIn + nPrvIn, nLabels >= nWires,
 * section 1 exactly n8 + 32 bytes, section 3 (when present) exactly
 * 8 * nWires bytes, and section 2 must hold exactly mConstraints
 * constraints, no more bytes and no fewer. A wrong nPubOut/nPubIn that still
 * fits nWires cannot be told from a right one and is taken as written.
 *
 * Errors (detail in err: the file name, the byte offset, the constraint,
 * matrix and term, what was expected): ZKP_ERR_IO (open, stat, mmap),
 * ZKP_ERR_TRUNCATED (the file ends inside its header, section table or a
 * section), ZKP_ERR_FORMAT (bad magic, a missing or duplicated section,
 * fields or sizes that disagree, a wire id >= nWires, bytes after the last
 * section), ZKP_ERR_VERSION, ZKP_ERR_WRONG_PRIME, ZKP_ERR_NOT_CANONICAL (a
 * coefficient >= r), ZKP_ERR_UNSUPPORTED, ZKP_ERR_NOMEM, and whatever the
 * callback returns.
 *
 * Memory: the file is mapped read-only, never copied; while constraints are
 * streamed, pages already read are dropped from the mapping every few tens
 * of MiB, so resident memory stays near the builder's own plus the terms of
 * the largest linear combination.
 * Threads: a zkp_r1cs is used by one thread at a time.
 */
#ifndef ZKPD_R1CS_H
#define ZKPD_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/error.h"
#include "zkpd/pce.h"

typedef struct {
	uint32_t field_bytes;   /* n8 */
	uint32_t n_wires;       /* including ONE */
	uint32_t n_pub_out;
	uint32_t n_pub_in;
	uint32_t n_prv_in;
	uint64_t n_labels;
	uint32_t n_constraints;
	uint64_t n_inputs;      /* 1 + n_pub_out + n_pub_in */
	uint64_t n_aux;         /* n_wires - n_inputs */
	uint64_t file_bytes;
} zkp_r1cs_info;

typedef struct zkp_r1cs zkp_r1cs;

/* One linear combination of a constraint, as read from the file: terms in
 * file order (repeated wires and zero coefficients are passed through). */
typedef struct {
	const zkp_pce_term *terms;
	size_t n;
} zkp_r1cs_lc;

/* Called once per constraint, in order, with lc[0..2] = A, B, C. The terms
 * are valid only during the call. A non-zero return stops the walk and is
 * returned by zkp_r1cs_for_each. */
typedef int (*zkp_r1cs_constraint_fn)(void *ctx, uint64_t row, const zkp_r1cs_lc lc[3],
				      zkp_error *err);

/* Maps path and checks its container and header (not the constraints). */
int zkp_r1cs_open(zkp_r1cs **ret, const char *path, zkp_error *err);
/* Same on bytes in memory; buf is borrowed and must outlive *ret. name is
 * used in messages (NULL: "r1cs"). */
int zkp_r1cs_open_buffer(zkp_r1cs **ret, const uint8_t *buf, size_t len, const char *name,
			 zkp_error *err);
void zkp_r1cs_free(zkp_r1cs *r);
const zkp_r1cs_info *zkp_r1cs_get_info(const zkp_r1cs *r);

/* Walks every constraint, checking wire ids and coefficients, and calls fn
 * (which may be NULL to only check). Terms totals of the walk go to
 * nnz[0..2] when nnz is not NULL. Cost: one pass over section 2. */
int zkp_r1cs_for_each(zkp_r1cs *r, zkp_r1cs_constraint_fn fn, void *ctx, uint64_t nnz[3],
		      zkp_error *err);

/* A builder holding every constraint of r (caller frees it). */
int zkp_r1cs_build(zkp_r1cs *r, zkp_pce_builder **ret, zkp_error *err);

/* Reads r1cs_path and writes pce_path (atomically, see pce.h); info, when
 * not NULL, receives the header. */
int zkp_r1cs_compile(const char *r1cs_path, const char *pce_path, zkp_r1cs_info *info,
		     zkp_error *err);

#endif
