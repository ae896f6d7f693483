/*
 * Sparse matrix-vector products over a loaded .pce: a = A.w, b = B.w,
 * c = C.w, and the satisfaction check a_i * b_i == c_i.
 *
 * Work is split by blocks of ZKP_PCE_BLOCK_ROWS rows: a block entry holds
 * the non-zero, overflow and escape positions at its first row, so a thread
 * starts anywhere without a prefix scan; each block is csr.h's
 * zkp_csr_eval_block.
 *
 * The loader bounded every index followed here (columns, codes, escapes,
 * overflow and block entries), so no check is repeated per non-zero.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "pce_int.h"

struct eval_arg {
	const zkp_pce *pce;
	const zkp_fr *w;
	zkp_fr *out[3];
};

static void eval_chunk(void *p, size_t begin, size_t end)
{
	const struct eval_arg *a = p;
	for (int m = 0; m < 3; m++) {
		if (!a->out[m])
			continue;
		for (size_t blk = begin; blk < end; blk++)
			zkp_csr_eval_block(&a->pce->m[m], a->w, blk,
				   a->out[m] + blk * ZKP_PCE_BLOCK_ROWS);
	}
}

/* Blocks per pool chunk: about 8 chunks per thread, so uneven rows (long
 * Poseidon rows next to boolean ones) still balance. */
static size_t grain_of(uint64_t nblocks, zkp_pool *pool)
{
	size_t g = (size_t)(nblocks / (8 * (uint64_t)zkp_pool_threads(pool)));
	return g ? g : 1;
}

void zkp_pce_eval(const zkp_pce *pce, const zkp_fr *w, zkp_fr *a, zkp_fr *b, zkp_fr *c,
		  zkp_pool *pool)
{
	struct eval_arg arg = { pce, w, { a, b, c } };
	uint64_t nblocks = pce_blocks_of(pce->dims.n_constraints);
	if (nblocks)
		zkp_pool_run(pool, (size_t)nblocks, grain_of(nblocks, pool), eval_chunk, &arg);
}

struct check_arg {
	const zkp_pce *pce;
	const zkp_fr *w;
	_Atomic uint64_t first; /* lowest failing row found so far */
};

static void check_chunk(void *p, size_t begin, size_t end)
{
	struct check_arg *a = p;
	zkp_fr va[ZKP_PCE_BLOCK_ROWS], vb[ZKP_PCE_BLOCK_ROWS], vc[ZKP_PCE_BLOCK_ROWS], ab;

	for (size_t blk = begin; blk < end; blk++) {
		uint64_t r0 = (uint64_t)blk * ZKP_PCE_BLOCK_ROWS;
		/* A lower row already failed: this block cannot hold the answer. */
		if (r0 > atomic_load_explicit(&a->first, memory_order_relaxed))
			return;
		zkp_csr_eval_block(&a->pce->m[0], a->w, blk, va);
		zkp_csr_eval_block(&a->pce->m[1], a->w, blk, vb);
		zkp_csr_eval_block(&a->pce->m[2], a->w, blk, vc);
		uint64_t n = a->pce->dims.n_constraints - r0;
		if (n > ZKP_PCE_BLOCK_ROWS)
			n = ZKP_PCE_BLOCK_ROWS;
		for (uint64_t i = 0; i < n; i++) {
			zkp_fr_mul(&ab, &va[i], &vb[i]);
			if (zkp_fr_eq(&ab, &vc[i]))
				continue;
			uint64_t row = r0 + i, cur = atomic_load(&a->first);
			while (row < cur && !atomic_compare_exchange_weak(&a->first, &cur, row))
				;
			return;
		}
	}
}

int zkp_pce_check(const zkp_pce *pce, const zkp_fr *w, uint64_t *first_row, zkp_pool *pool,
		  zkp_error *err)
{
	struct check_arg arg = { .pce = pce, .w = w };
	uint64_t nblocks = pce_blocks_of(pce->dims.n_constraints);
	atomic_init(&arg.first, UINT64_MAX);
	if (nblocks)
		zkp_pool_run(pool, (size_t)nblocks, grain_of(nblocks, pool), check_chunk, &arg);

	uint64_t row = atomic_load(&arg.first);
	if (row == UINT64_MAX)
		return 0;
	if (first_row)
		*first_row = row;

	/* Recompute the failing row's three products for the message. */
	zkp_fr v[3][ZKP_PCE_BLOCK_ROWS];
	char hx[3][ZKP_FR_HEX_CHARS];
	for (int m = 0; m < 3; m++) {
		zkp_csr_eval_block(&pce->m[m], w, row / ZKP_PCE_BLOCK_ROWS, v[m]);
		zkp_fr_to_hex(hx[m], &v[m][row % ZKP_PCE_BLOCK_ROWS]);
	}
	return zkp_error_set(err, ZKP_ERR_UNSATISFIED,
			     "constraint %" PRIu64 " is not satisfied: A.w = %s, B.w = %s, C.w = %s",
			     row, hx[0], hx[1], hx[2]);
}
