/*
 * Evaluation on the device: a = A.w, b = B.w, c = C.w over a matrix held
 * in device memory, with the prover's zero padding, and the satisfiability
 * check (cuda/spmv.cuh has the per-thread bodies and their method).
 *
 * One thread per block of 64 rows: a PoRep partition of 2^27 rows is 2
 * million threads, each walking a few hundred non-zeros in order, so the
 * loads of a thread's columns and codes run along its own cache lines; the
 * witness reads are scattered, 32 bytes each, as on the host.
 */
#include "kernels.cuh"
#include "spmv.cuh"

#define SPMV_THREADS 128

static unsigned spmv_grid(size_t threads)
{
	return (unsigned)((threads + SPMV_THREADS - 1) / SPMV_THREADS);
}

static __global__ void __launch_bounds__(SPMV_THREADS)
k_spmv(dfr *out, spmv_csr m, const dfr *w, size_t nblocks)
{
	size_t blk = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (blk < nblocks)
		spmv_block(out, &m, w, blk);
}

static __global__ void __launch_bounds__(SPMV_THREADS)
k_spmv_zero(dfr *out, uint64_t rows, size_t n_out)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	spmv_zero(out, rows, n_out, i);
}

static __global__ void __launch_bounds__(SPMV_THREADS)
k_unsat(unsigned long long *first, const dfr *a, const dfr *b, const dfr *c, size_t m)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= m)
		return;
	uint64_t r = unsat_row(a, b, c, i);
	if (r != SPMV_NONE)
		atomicMin(first, (unsigned long long)r);
}

cudaError_t spmv_run(dfr *out, const spmv_csr *m, const dfr *w, size_t n_out, cudaStream_t stream)
{
	size_t nblocks = (size_t)((m->rows + SPMV_BLOCK_ROWS - 1) / SPMV_BLOCK_ROWS);
	if (nblocks)
		k_spmv<<<spmv_grid(nblocks), SPMV_THREADS, 0, stream>>>(out, *m, w, nblocks);
	if (n_out > m->rows)
		k_spmv_zero<<<spmv_grid(n_out - m->rows), SPMV_THREADS, 0, stream>>>(out, m->rows,
										     n_out);
	return cudaGetLastError();
}

cudaError_t spmv_first_unsat(uint64_t *ret, const dfr *a, const dfr *b, const dfr *c, size_t m,
			     unsigned long long *first, cudaStream_t stream)
{
	unsigned long long host = SPMV_NONE;
	cudaError_t e = cudaMemcpyAsync(first, &host, sizeof(host), cudaMemcpyHostToDevice, stream);
	if (e == cudaSuccess && m)
		k_unsat<<<spmv_grid(m), SPMV_THREADS, 0, stream>>>(first, a, b, c, m);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(&host, first, sizeof(host), cudaMemcpyDeviceToHost, stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(stream);
	*ret = host;
	return e;
}
