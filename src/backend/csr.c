/*
 * One block of a matrix times a vector (include/zkpd/csr.h): the loop
 * every host evaluation runs (pce_eval.c, the CPU backend's spmv); and a
 * matrix held by a backend (backend.h, zkp_backend_csr).
 *
 * Per non-zero the loop reads 4 bytes of column and 1 byte of code, and a
 * witness element; +1 and -1 cost one field addition or subtraction, any
 * other code a multiplication by an entry of the small values table (which
 * stays in cache).
 */
#include <string.h>

#include "zkpd/backend.h"
#include "zkpd/csr.h"

#define PREFETCH 16

void zkp_csr_eval_block(const zkp_csr *c, const zkp_fr *w, uint64_t blk, zkp_fr *out)
{
	const zkp_csr_block *bl = &c->blocks[blk];
	uint64_t r0 = blk * ZKP_CSR_BLOCK_ROWS;
	uint64_t r1 = r0 + ZKP_CSR_BLOCK_ROWS < c->rows ? r0 + ZKP_CSR_BLOCK_ROWS : c->rows;
	uint64_t k = bl->nnz_offset;
	uint32_t ovf = bl->overflow_index, esc = bl->escape_index;
	const uint32_t *cols = c->cols;
	const uint8_t *codes = c->codes;
	const zkp_fr *values = c->values;
	const uint64_t nnz = c->nnz;

	for (uint64_t r = r0; r < r1; r++) {
		uint64_t len = c->row_len[r];
		if (len == ZKP_CSR_ROW_LEN_OVERFLOW)
			len = c->overflow[ovf++];
		zkp_fr acc, t;
		zkp_fr_set_zero(&acc);
		for (uint64_t end = k + len; k < end; k++) {
			/* Witness reads are scattered; start the one PREFETCH terms
			 * ahead so its cache miss overlaps the arithmetic. */
			if (k + PREFETCH < nnz)
				__builtin_prefetch(&w[cols[k + PREFETCH]]);
			const zkp_fr *x = &w[cols[k]];
			uint8_t code = codes[k];
			if (code == ZKP_CSR_CODE_ONE) {
				zkp_fr_add(&acc, &acc, x);
			} else if (code == ZKP_CSR_CODE_MINUS_ONE) {
				zkp_fr_sub(&acc, &acc, x);
			} else {
				const zkp_fr *v = code == ZKP_CSR_CODE_ESCAPE
							  ? &values[c->escapes[esc++]]
							  : &values[code - ZKP_CSR_CODE_FIRST_VALUE];
				zkp_fr_mul(&t, x, v);
				zkp_fr_add(&acc, &acc, &t);
			}
		}
		out[r - r0] = acc;
	}
}

/* ---- a matrix held by a backend (backend.h) ---- */

/* The arrays of m, each with its size and its place in a held copy. */
#define CSR_PARTS 7
struct csr_part {
	zkp_dbuf *dst;
	const void *src;
	size_t bytes;
};

static void csr_parts(struct csr_part parts[CSR_PARTS], zkp_backend_csr *held, const zkp_csr *m)
{
	const struct csr_part p[CSR_PARTS] = {
		{ held ? &held->row_len : NULL, m->row_len, m->rows },
		{ held ? &held->blocks : NULL, m->blocks,
		  zkp_csr_blocks(m->rows) * sizeof(zkp_csr_block) },
		{ held ? &held->cols : NULL, m->cols, m->nnz * sizeof(uint32_t) },
		{ held ? &held->codes : NULL, m->codes, m->nnz },
		{ held ? &held->escapes : NULL, m->escapes, m->n_escapes * sizeof(uint32_t) },
		{ held ? &held->overflow : NULL, m->overflow, m->n_overflow * sizeof(uint32_t) },
		{ held ? &held->values : NULL, m->values, m->n_values * sizeof(zkp_fr) },
	};
	memcpy(parts, p, sizeof(p));
}

size_t zkp_backend_csr_import_bytes(const zkp_csr *m)
{
	struct csr_part parts[CSR_PARTS];
	csr_parts(parts, NULL, m);
	size_t n = 0;
	for (size_t i = 0; i < CSR_PARTS; i++)
		n += parts[i].bytes;
	return n;
}

int zkp_backend_csr_import(zkp_backend *be, zkp_backend_csr *ret, const zkp_csr *m)
{
	memset(ret, 0, sizeof(*ret));
	ret->shape = *m;
	ret->shape.row_len = NULL;
	ret->shape.blocks = NULL;
	ret->shape.cols = NULL;
	ret->shape.codes = NULL;
	ret->shape.escapes = NULL;
	ret->shape.overflow = NULL;
	ret->shape.values = NULL;
	struct csr_part parts[CSR_PARTS];
	csr_parts(parts, ret, m);
	for (size_t i = 0; i < CSR_PARTS; i++) {
		int rc = zkp_backend_import_host(be, parts[i].dst, parts[i].src, parts[i].bytes);
		if (rc) {
			zkp_backend_csr_release(be, ret);
			return rc;
		}
	}
	return 0;
}

void zkp_backend_csr_release(zkp_backend *be, zkp_backend_csr *m)
{
	zkp_dbuf *bufs[] = { &m->row_len, &m->blocks,	&m->cols,  &m->codes,
			     &m->escapes, &m->overflow, &m->values };
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		zkp_backend_release(be, bufs[i]);
	memset(m, 0, sizeof(*m));
}

size_t zkp_backend_csr_bytes(const zkp_backend_csr *m)
{
	const zkp_dbuf *bufs[] = { &m->row_len, &m->blocks,   &m->cols,  &m->codes,
				   &m->escapes, &m->overflow, &m->values };
	size_t n = 0;
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (bufs[i]->owned)
			n += bufs[i]->bytes;
	return n;
}

zkp_csr zkp_backend_csr_view(const zkp_backend_csr *m)
{
	zkp_csr v = m->shape;
	v.row_len = m->row_len.ptr;
	v.blocks = m->blocks.ptr;
	v.cols = m->cols.ptr;
	v.codes = m->codes.ptr;
	v.escapes = m->escapes.ptr;
	v.overflow = m->overflow.ptr;
	v.values = m->values.ptr;
	return v;
}
