/*
 * pce: pre-compiled circuits. A circuit's R1CS matrices A, B, C never change
 * between proofs; only the witness does. They are compiled once into a .pce
 * file (format: docs/formats.md), mapped read-only, and shared by every
 * pipeline and every process proving that circuit.
 *
 * Variables: the full assignment w has n_inputs + n_aux entries,
 * w = [inputs | aux], inputs[0] = ONE (the constant 1). Columns index w.
 * Rows: the circuit's constraints A_i.w * B_i.w = C_i.w. The Groth16 input
 * rows (one per input: inputs[j] * 0 = 0, which make the public inputs'
 * polynomials independent) are not stored; the prover adds them, and
 * domain_log2 counts them: 2^domain_log2 >= n_constraints + n_inputs.
 *
 * Matrix storage ("blocked CSR with byte codes", about 5-6 bytes per
 * non-zero on PoRep-shaped circuits instead of >= 36 with a 32-byte
 * coefficient each):
 *  - row_len: one byte per row; 255 means "look in overflow" (the next
 *    entry of the overflow array, in row order, holds the true length);
 *  - blocks: one entry per ZKP_PCE_BLOCK_ROWS rows, giving the nnz offset,
 *    the overflow index and the escape index at the block's first row, so
 *    any block can be evaluated independently (row-parallel evaluation);
 *  - cols: u32 column per non-zero, increasing within a row;
 *  - codes: one byte per non-zero: 0 = +1, 1 = -1 (evaluated by add and
 *    subtract, never a multiplication), 2..254 = values[code - 2],
 *    255 = values[escapes[k]] for the next escape k in nnz order;
 *  - values: the matrix's distinct coefficients other than +-1, most
 *    frequent first (so they get the one-byte codes); stored in the file
 *    canonical little-endian, held in memory in Montgomery form.
 * Density bitmaps (bit i of word i/64): a_aux (aux variables with a non-zero
 * coefficient in A), b_input and b_aux (likewise for B). Groth16 keys compact
 * their A and B queries by them.
 *
 * Lifetime and threads: a zkp_pce is immutable after load; any number of
 * threads may evaluate with it at once. zkp_pce_free unmaps it.
 */
#ifndef ZKPD_PCE_H
#define ZKPD_PCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/csr.h"
#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"

#define ZKP_PCE_BLOCK_ROWS ZKP_CSR_BLOCK_ROWS
#define ZKP_PCE_DIGEST_BYTES 32
#define ZKP_PCE_LABEL_BYTES 32

enum zkp_pce_matrix { ZKP_PCE_A, ZKP_PCE_B, ZKP_PCE_C };

typedef struct {
	uint64_t n_inputs;      /* including ONE */
	uint64_t n_aux;
	uint64_t n_constraints; /* stored rows */
	uint32_t domain_log2;
	uint64_t nnz[3];        /* per matrix, A B C */
} zkp_pce_dims;

/* One matrix, as mapped (pointers into the file) plus its decoded values
 * (csr.h; values on the heap). */
typedef zkp_csr zkp_pce_csr;

typedef struct zkp_pce zkp_pce;

enum {
	ZKP_PCE_SKIP_CHECKSUMS = 1 << 0, /* trusted local file: skip SHA-256 of sections */
};

/* Maps and checks path. Errors (detail in err): ZKP_ERR_IO (open, mmap),
 * ZKP_ERR_FORMAT (bad magic, a section out of bounds or misaligned, sizes
 * that disagree with the dimensions, a column >= n_inputs + n_aux, codes
 * or escapes pointing past values), ZKP_ERR_TRUNCATED, ZKP_ERR_VERSION,
 * ZKP_ERR_CHECKSUM (names the section, or "header": the header and section
 * table carry their own SHA-256, always checked), ZKP_ERR_NOT_CANONICAL (a
 * value >= r), ZKP_ERR_NOMEM. docs/formats.md lists every check.
 * Cost: one SHA-256 pass over the file (unless skipped) and a structural
 * walk over the columns and codes (about 5 bytes per non-zero). */
int zkp_pce_load(zkp_pce **ret, const char *path, unsigned flags, zkp_error *err);
void zkp_pce_free(zkp_pce *pce);

const zkp_pce_dims *zkp_pce_get_dims(const zkp_pce *pce);
const zkp_pce_csr *zkp_pce_matrix(const zkp_pce *pce, enum zkp_pce_matrix m);
/* SHA-256 over the dimensions and the matrix sections: names the circuit in
 * keys and jobs, whatever file it was loaded from. */
const uint8_t *zkp_pce_digest(const zkp_pce *pce);
/* The circuit's label: 32 bytes its builder stored to say what the circuit
 * is (zkp inspect decodes the kinds it knows; all zero: none). Not part of
 * the digest: it names, the matrices define. */
const uint8_t *zkp_pce_label(const zkp_pce *pce);
/* Density bitmaps: a_aux and b_aux have n_aux bits, b_input n_inputs bits. */
const uint64_t *zkp_pce_density_a_aux(const zkp_pce *pce);
const uint64_t *zkp_pce_density_b_input(const zkp_pce *pce);
const uint64_t *zkp_pce_density_b_aux(const zkp_pce *pce);
/* Bytes mapped, and bytes per non-zero of the three matrices together (the
 * 21 matrix sections over nnz(A) + nnz(B) + nnz(C); 0 when there are none). */
size_t zkp_pce_mapped_bytes(const zkp_pce *pce);
/* Whether the file was cut short under the mapping since it was loaded
 * (mapguard.h): what was read past its new end is zeros, so every result
 * computed from the circuit since is void; it must be loaded again. */
bool zkp_pce_damaged(const zkp_pce *pce);
double zkp_pce_bytes_per_nnz(const zkp_pce *pce);

/* a = A.w, b = B.w, c = C.w (n_constraints entries each; any of a, b, c may
 * be NULL to skip that matrix), w of n_inputs + n_aux entries (Montgomery).
 * Row-parallel over pool by blocks; +-1 coefficients cost an addition.
 * Never fails on a loaded pce. */
void zkp_pce_eval(const zkp_pce *pce, const zkp_fr *w, zkp_fr *a, zkp_fr *b, zkp_fr *c,
		  zkp_pool *pool);

/* Checks A_i.w * B_i.w == C_i.w for every row. Returns 0, or
 * ZKP_ERR_UNSATISFIED with *first_row (when not NULL) set to the lowest
 * failing row and the detail in err. */
int zkp_pce_check(const zkp_pce *pce, const zkp_fr *w, uint64_t *first_row, zkp_pool *pool,
		  zkp_error *err);

/*
 * Building a .pce: constraints are added in order, each as three linear
 * combinations of (column, coefficient) terms; terms with the same column
 * are merged and zero coefficients dropped. Writing is atomic (temporary
 * file in the same directory, fsync, rename, fsync of the directory), so a
 * crash or a full disk never leaves a partial file under the final name.
 *
 * Two kinds of builder give the same bytes for the same rows:
 *  - a memory builder (zkp_pce_builder_new) holds every non-zero until
 *    zkp_pce_builder_write: about 8 bytes per non-zero;
 *  - a counting builder (zkp_pce_builder_new_counting) is for circuits too
 *    large for that, whose synthesis can run twice with the same rows. The
 *    first pass only counts. zkp_pce_builder_stream_begin then lays out the
 *    file from the counts, the second pass adds the same rows again, each
 *    encoded straight into the file, and zkp_pce_builder_write finishes it.
 *    Memory grows with neither the rows nor the non-zeros.
 *
 * Threads: a builder is not thread-safe; use one builder per thread.
 */
typedef struct zkp_pce_builder zkp_pce_builder;

typedef struct {
	uint32_t col;
	zkp_fr coeff; /* Montgomery */
} zkp_pce_term;

/* A memory builder. Errors: ZKP_ERR_INVAL (n_inputs = 0, or n_inputs +
 * n_aux > 2^32: columns are u32), ZKP_ERR_NOMEM. Memory while building:
 * about 8 bytes per non-zero and 3 per row (arrays that grow by doubling,
 * unless zkp_pce_builder_reserve sized them), 32 per distinct coefficient,
 * and the density bitmaps, (2 n_aux + n_inputs) / 8 bytes. */
int zkp_pce_builder_new(zkp_pce_builder **ret, uint64_t n_inputs, uint64_t n_aux);

/* A counting builder: zkp_pce_builder_add merges each constraint exactly
 * as a memory builder does, but only counts it (rows, non-zeros and rows
 * of 255 or more non-zeros per matrix, uses of each distinct coefficient
 * per matrix, the density bitmaps, and a 64-bit fingerprint of the rows).
 * Errors as zkp_pce_builder_new. Memory: the density bitmaps, at most
 * about 130 bytes per distinct coefficient (the value, its hash slots,
 * three use counts, with the slack of doubling), and the longest
 * constraint's terms; nothing per row or non-zero.
 * zkp_pce_builder_get_stats reads the counts; writing needs a second pass
 * (zkp_pce_builder_stream_begin). */
int zkp_pce_builder_new_counting(zkp_pce_builder **ret, uint64_t n_inputs, uint64_t n_aux);

/* Frees the builder; a second pass in progress is abandoned and its
 * temporary file removed. NULL is ignored. */
void zkp_pce_builder_free(zkp_pce_builder *b);

/* Sizes a memory builder for rows constraints and nnz[m] non-zeros in
 * matrix m (nnz may be NULL: rows only), exactly, so that building a
 * circuit whose counts are known (from a counting pass, say) never
 * reallocates or over-allocates. Adding more is still allowed (the arrays
 * grow again by doubling). A no-op returning 0 on a counting builder.
 * Errors: ZKP_ERR_RANGE (rows > 2^28, or nnz not addressable),
 * ZKP_ERR_NOMEM (the builder is unchanged, or partly reserved). */
int zkp_pce_builder_reserve(zkp_pce_builder *b, uint64_t rows, const uint64_t nnz[3]);

/* Adds the next constraint. Errors: ZKP_ERR_RANGE (a column >= n_inputs +
 * n_aux, detail names the constraint and term; more than 2^28 constraints;
 * 2^32 - 2 distinct coefficients), ZKP_ERR_NOMEM. On error the builder is
 * unchanged, except during a second pass.
 * During a second pass (after zkp_pce_builder_stream_begin) the row is also
 * checked against the counting pass, and the check is cheap, so it catches
 * a difference where the counts first disagree, which may be a later row
 * than the one that differs: ZKP_ERR_MISMATCH ("constraint N: the second
 * pass differs from the counting pass: ...") when there are more rows, or
 * more non-zeros or rows of 255+ non-zeros in a matrix, than counted, or a
 * coefficient that matrix never had in the counting pass, or used more
 * often than there. A failed write of the temporary file is ZKP_ERR_IO.
 * Any error during a second pass abandons it: its temporary file is
 * removed, and the builder is left with its counts, ready for another
 * zkp_pce_builder_stream_begin. */
int zkp_pce_builder_add(zkp_pce_builder *b, const zkp_pce_term *a, size_t na,
			const zkp_pce_term *bt, size_t nb, const zkp_pce_term *c, size_t nc,
			zkp_error *err);

/* Appends src's constraints after dst's, as if each had been added to dst
 * in order (the same file bytes): both memory builders over the same
 * n_inputs and n_aux; src is unchanged and dst keeps its label. The way to
 * build one circuit's parts on several threads, a builder each. Errors:
 * ZKP_ERR_INVAL (a counting builder, or other dimensions), ZKP_ERR_RANGE
 * (more than 2^28 constraints or 2^32 - 2 distinct coefficients in all),
 * ZKP_ERR_NOMEM; on error dst holds the rows it held (it may hold more
 * room, and values no row uses, which are never written). The copy of
 * src's non-zeros and density bits runs on pool (NULL: on the caller);
 * what dst holds does not depend on it. */
int zkp_pce_builder_append(zkp_pce_builder *dst, const zkp_pce_builder *src, zkp_pool *pool,
			   zkp_error *err);

/* Constraints added so far; during a second pass, those of that pass. */
uint64_t zkp_pce_builder_rows(const zkp_pce_builder *b);
/* Sets the label written into the header (zkp_pce_label); zero until set.
 * Returns 0. */
int zkp_pce_builder_set_label(zkp_pce_builder *b, const uint8_t label[ZKP_PCE_LABEL_BYTES]);

/* The circuit's structure as built (a memory builder) or counted (a
 * counting builder, including during its second pass: the counting
 * pass's figures): a_aux, b_input and b_aux are the number of bits set in
 * the density bitmaps. Cost: one pass over the bitmaps. */
typedef struct {
	uint64_t rows, n_inputs, n_aux, nnz[3], a_aux, b_input, b_aux;
} zkp_pce_builder_stats;
void zkp_pce_builder_get_stats(const zkp_pce_builder *b, zkp_pce_builder_stats *ret);

/* Starts the second pass of a counting builder: codes each matrix's values
 * from the counts (the ranking a memory builder uses), fixes every section's
 * size and offset, creates path.tmp.XXXXXX beside path, writes the values
 * and opens the other sections; zkp_pce_builder_rows restarts from 0. Then
 * add the same constraints again and call zkp_pce_builder_write with the
 * same path. Memory until then: the counting builder's, plus 21 section
 * buffers of at most 256 KiB each (less for small sections), and about 51
 * bytes per distinct coefficient (codes and counts for three matrices).
 * Errors: ZKP_ERR_INVAL (not a counting builder; a second pass already
 * under way, which is abandoned),
 * ZKP_ERR_RANGE (the domain would exceed 2^28, or a matrix has 2^32 or
 * more escaped coefficients), ZKP_ERR_IO (creating or sizing the temporary
 * file), ZKP_ERR_NOMEM; on error no temporary file is left. */
int zkp_pce_builder_stream_begin(zkp_pce_builder *b, const char *path, zkp_error *err);

/* Writes path atomically (see above and docs/formats.md).
 * A memory builder: encodes everything held; the builder is unchanged and
 * can be written again. Errors: ZKP_ERR_IO (detail names the path and the
 * system error), ZKP_ERR_RANGE (domain would exceed 2^28), ZKP_ERR_NOMEM.
 * A counting builder during its second pass: checks that the second pass
 * had as many rows, and per matrix as many non-zeros and long rows, as the
 * first, and the same fingerprint (ZKP_ERR_MISMATCH otherwise), then
 * finishes the file: density bitmaps (the first pass's), header and
 * digest, fsync, rename, fsync of the directory. path must be the one
 * given to zkp_pce_builder_stream_begin (ZKP_ERR_INVAL). Errors also
 * ZKP_ERR_IO, ZKP_ERR_NOMEM. Either way the second pass is over: on error
 * its temporary file is removed, and the builder is back to its counts.
 * A counting builder not in a second pass: ZKP_ERR_INVAL. */
int zkp_pce_builder_write(zkp_pce_builder *b, const char *path, zkp_error *err);

#endif
