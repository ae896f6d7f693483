/*
 * Per-thread pieces of the evaluation kernels (cuda/spmv.cu): a = A.w,
 * b = B.w, c = C.w over a matrix in the .pce encoding (include/zkpd/csr.h)
 * held in device memory, and the check a_i b_i = c_i. __host__ __device__
 * so the host unit test runs them against the C evaluator.
 *  - spmv_block: one thread per block of ZKP_CSR_BLOCK_ROWS rows, which
 *    starts from its block entry (non-zero, overflow and escape positions)
 *    and walks its rows in order, as zkp_csr_eval_block does: +1 and -1 an
 *    addition or subtraction, other codes a multiplication by the values
 *    table;
 *  - spmv_zero: the padding rows past the matrix, one thread each;
 *  - unsat_row: one thread per row, the row's index if a b != c there, else
 *    the all-ones "none" (the kernel takes the minimum over the rows).
 */
#ifndef ZKPD_CUDA_SPMV_CUH
#define ZKPD_CUDA_SPMV_CUH

#include <stddef.h>
#include <stdint.h>

#include "ff.cuh"

#define SPMV_BLOCK_ROWS 64 /* ZKP_CSR_BLOCK_ROWS */
#define SPMV_ROW_LEN_OVERFLOW 255
#define SPMV_CODE_ONE 0
#define SPMV_CODE_MINUS_ONE 1
#define SPMV_CODE_FIRST_VALUE 2
#define SPMV_CODE_ESCAPE 255
#define SPMV_NONE 0xffffffffffffffffULL

/* The matrix as the kernels read it: zkp_csr's fields, device pointers. */
struct spmv_csr {
	uint64_t rows, nnz;
	const uint8_t *row_len;
	const uint64_t *blocks; /* 16-byte entries: nnz offset, then (overflow, escape) u32s */
	const uint32_t *cols;
	const uint8_t *codes;
	const uint32_t *escapes;
	const uint32_t *overflow;
	const dfr *values;
};

/* Thread blk < ceil(rows / SPMV_BLOCK_ROWS): out[r] for the block's rows. */
ZKP_HD void spmv_block(dfr *out, const spmv_csr *m, const dfr *w, size_t blk)
{
	uint64_t r0 = (uint64_t)blk * SPMV_BLOCK_ROWS;
	uint64_t r1 = r0 + SPMV_BLOCK_ROWS < m->rows ? r0 + SPMV_BLOCK_ROWS : m->rows;
	uint64_t k = m->blocks[2 * blk];
	uint64_t idx = m->blocks[2 * blk + 1];
	uint32_t ovf = (uint32_t)idx, esc = (uint32_t)(idx >> 32);
	for (uint64_t r = r0; r < r1; r++) {
		uint64_t len = m->row_len[r];
		if (len == SPMV_ROW_LEN_OVERFLOW)
			len = m->overflow[ovf++];
		dfr acc, t;
		fe_set_zero(&acc);
		for (uint64_t end = k + len; k < end; k++) {
			dfr x = w[m->cols[k]];
			uint8_t code = m->codes[k];
			if (code == SPMV_CODE_ONE) {
				fe_add(&acc, &acc, &x);
			} else if (code == SPMV_CODE_MINUS_ONE) {
				fe_sub(&acc, &acc, &x);
			} else {
				dfr v = code == SPMV_CODE_ESCAPE ? m->values[m->escapes[esc++]]
								 : m->values[code - SPMV_CODE_FIRST_VALUE];
				fe_mul(&t, &x, &v);
				fe_add(&acc, &acc, &t);
			}
		}
		out[r] = acc;
	}
}

/* Thread i: out[rows + i] = 0 for rows + i < n_out. */
ZKP_HD void spmv_zero(dfr *out, uint64_t rows, size_t n_out, size_t i)
{
	if (rows + i < n_out)
		fe_set_zero(&out[rows + i]);
}

/* Thread i < m: i when a_i b_i != c_i, else SPMV_NONE. */
ZKP_HD uint64_t unsat_row(const dfr *a, const dfr *b, const dfr *c, size_t i)
{
	dfr x = a[i], y = b[i], z = c[i], ab;
	fe_mul(&ab, &x, &y);
	return fe_eq(&ab, &z) ? SPMV_NONE : (uint64_t)i;
}

#endif
