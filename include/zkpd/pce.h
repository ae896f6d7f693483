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

#include "zkpd/error.h"
#include "zkpd/ff.h"
#include "zkpd/pool.h"

#define ZKP_PCE_BLOCK_ROWS 64
#define ZKP_PCE_DIGEST_BYTES 32

enum zkp_pce_matrix { ZKP_PCE_A, ZKP_PCE_B, ZKP_PCE_C };

typedef struct {
	uint64_t n_inputs;      /* including ONE */
	uint64_t n_aux;
	uint64_t n_constraints; /* stored rows */
	uint32_t domain_log2;
	uint64_t nnz[3];        /* per matrix, A B C */
} zkp_pce_dims;

/* One matrix, as mapped (pointers into the file) plus its decoded values. */
typedef struct {
	uint64_t rows, nnz, n_values, n_escapes, n_overflow;
	const uint8_t *row_len;
	const struct zkp_pce_block {
		uint64_t nnz_offset;
		uint32_t overflow_index;
		uint32_t escape_index;
	} *blocks; /* ceil(rows / ZKP_PCE_BLOCK_ROWS) entries */
	const uint32_t *cols;
	const uint8_t *codes;
	const uint32_t *escapes;
	const uint32_t *overflow;
	const zkp_fr *values; /* Montgomery, n_values entries (heap) */
} zkp_pce_csr;

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
/* Density bitmaps: a_aux and b_aux have n_aux bits, b_input n_inputs bits. */
const uint64_t *zkp_pce_density_a_aux(const zkp_pce *pce);
const uint64_t *zkp_pce_density_b_input(const zkp_pce *pce);
const uint64_t *zkp_pce_density_b_aux(const zkp_pce *pce);
/* Bytes mapped, and bytes per non-zero of the three matrices together (the
 * 21 matrix sections over nnz(A) + nnz(B) + nnz(C); 0 when there are none). */
size_t zkp_pce_mapped_bytes(const zkp_pce *pce);
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
 * are merged and zero coefficients dropped. The builder holds everything in
 * memory until zkp_pce_builder_write, which writes atomically (temporary
 * file in the same directory, fsync, rename, fsync of the directory), so a
 * crash or a full disk never leaves a partial file under the final name.
 */
typedef struct zkp_pce_builder zkp_pce_builder;

typedef struct {
	uint32_t col;
	zkp_fr coeff; /* Montgomery */
} zkp_pce_term;

/* Errors: ZKP_ERR_INVAL (n_inputs = 0, or n_inputs + n_aux > 2^32: columns
 * are u32), ZKP_ERR_NOMEM. Memory while building: about 8 bytes per
 * non-zero and 3 per row, plus 32 per distinct coefficient. */
int zkp_pce_builder_new(zkp_pce_builder **ret, uint64_t n_inputs, uint64_t n_aux);
void zkp_pce_builder_free(zkp_pce_builder *b);
/* Errors: ZKP_ERR_RANGE (a column >= n_inputs + n_aux, detail names the
 * constraint and term; more than 2^28 constraints; 2^32 - 2 distinct
 * coefficients), ZKP_ERR_NOMEM. On error the builder is unchanged. */
int zkp_pce_builder_add(zkp_pce_builder *b, const zkp_pce_term *a, size_t na,
			const zkp_pce_term *bt, size_t nb, const zkp_pce_term *c, size_t nc,
			zkp_error *err);
uint64_t zkp_pce_builder_rows(const zkp_pce_builder *b);
/* Errors: ZKP_ERR_IO (detail names the path and the system error),
 * ZKP_ERR_RANGE (domain would exceed 2^28), ZKP_ERR_NOMEM. */
int zkp_pce_builder_write(zkp_pce_builder *b, const char *path, zkp_error *err);

#endif
