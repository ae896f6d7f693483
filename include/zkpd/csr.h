/*
 * csr: one R1CS matrix in the .pce encoding ("blocked CSR with byte
 * codes", docs/formats.md, "Matrix sections"), as the evaluators read it:
 * on the host over a .pce's mapping (pce.h), and on a device over a copy
 * the backend holds (backend.h, zkp_backend_csr).
 *
 * Invariants (a loaded .pce has them checked; nothing here checks again):
 *  - row_len: one byte per row; ZKP_CSR_ROW_LEN_OVERFLOW means the next
 *    entry of overflow, in row order, holds the row's length;
 *  - blocks: one entry per ZKP_CSR_BLOCK_ROWS rows with the non-zero,
 *    overflow and escape positions at the block's first row, so every
 *    block is evaluated on its own;
 *  - cols: the column of each non-zero; codes: ZKP_CSR_CODE_ONE (+1),
 *    ZKP_CSR_CODE_MINUS_ONE (-1), values[code - ZKP_CSR_CODE_FIRST_VALUE],
 *    or ZKP_CSR_CODE_ESCAPE: values[escapes[k]] for the next escape k;
 *  - values: Montgomery form.
 */
#ifndef ZKPD_CSR_H
#define ZKPD_CSR_H

#include <stdint.h>

#include "zkpd/ff.h"

#define ZKP_CSR_BLOCK_ROWS 64
#define ZKP_CSR_ROW_LEN_OVERFLOW 255
#define ZKP_CSR_CODE_ONE 0
#define ZKP_CSR_CODE_MINUS_ONE 1
#define ZKP_CSR_CODE_FIRST_VALUE 2
#define ZKP_CSR_CODE_ESCAPE 255

/* A block entry: also the file's 16-byte layout. */
typedef struct zkp_csr_block {
	uint64_t nnz_offset;
	uint32_t overflow_index;
	uint32_t escape_index;
} zkp_csr_block;

typedef struct {
	uint64_t rows, nnz, n_values, n_escapes, n_overflow;
	const uint8_t *row_len;
	const zkp_csr_block *blocks; /* ceil(rows / ZKP_CSR_BLOCK_ROWS) entries */
	const uint32_t *cols;
	const uint8_t *codes;
	const uint32_t *escapes;
	const uint32_t *overflow;
	const zkp_fr *values; /* n_values entries */
} zkp_csr;

static inline uint64_t zkp_csr_blocks(uint64_t rows)
{
	return (rows + ZKP_CSR_BLOCK_ROWS - 1) / ZKP_CSR_BLOCK_ROWS;
}

/* out[0 .. n) = rows blk * ZKP_CSR_BLOCK_ROWS .. + n of c times w, n the
 * rows in block blk (ZKP_CSR_BLOCK_ROWS but for the last). w holds a value
 * for every column. +-1 cost an addition, other codes a multiplication by
 * a values entry. Never fails. */
void zkp_csr_eval_block(const zkp_csr *c, const zkp_fr *w, uint64_t blk, zkp_fr *out);

#endif
