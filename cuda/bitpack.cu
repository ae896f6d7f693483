/*
 * Unpacking a packed witness on the device (include/zkpd/bitpack.h; the
 * per-thread body is cuda/bitpack.cuh): one thread a value, so a 2^27
 * witness is 2^27 threads that each read a word's masks (cached: 64
 * threads share them) and write 32 bytes, the writes of a warp one run of
 * 1 KiB. The dense values' reads are the only scattered ones, and 1.3 %
 * of a PoRep witness's values are dense.
 */
#include "kernels.cuh"

#define UNPACK_THREADS 256

static __global__ void __launch_bounds__(UNPACK_THREADS)
k_unpack(dfr *out, bitpack_view v, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		bitpack_unpack_one(out, &v, i);
}

cudaError_t bitpack_unpack_run(dfr *out, const bitpack_view *v, size_t n, cudaStream_t stream)
{
	if (n)
		k_unpack<<<(unsigned)((n + UNPACK_THREADS - 1) / UNPACK_THREADS), UNPACK_THREADS, 0,
			   stream>>>(out, *v, n);
	return cudaGetLastError();
}
