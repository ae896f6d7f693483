/*
 * Fixed-base multiplication on the device: [k_i] G for a chunk of scalars
 * (a development key setup, include/zkpd/fixed_base.h), for G1 and G2.
 * Two kernels, each a wrapper around a per-thread function of
 * cuda/fb.cuh, which the host unit test runs on the CPU: one thread per
 * scalar sums its table points into XYZZ, then one thread per run of
 * FB_AFFINE_RUN points converts them to affine with one inversion.
 */
#include "fb.cuh"
#include "kernels.cuh"

#define FB_BLOCK 128

static unsigned fb_grid(size_t threads)
{
	return (unsigned)((threads + FB_BLOCK - 1) / FB_BLOCK);
}

template <class E>
static __global__ void __launch_bounds__(FB_BLOCK)
k_fb_mul(ec_xyzz<E> *tmp, const ec_affine<E> *table, const dfr *scalars, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		fb_mul(tmp, table, scalars, i);
}

template <class E>
static __global__ void __launch_bounds__(FB_BLOCK)
k_fb_affine(ec_affine<E> *out, const ec_xyzz<E> *tmp, size_t n)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	fb_to_affine(out, tmp, n, FB_AFFINE_RUN, t);
}

template <class E>
static cudaError_t fb_run(ec_affine<E> *out, ec_xyzz<E> *tmp, const ec_affine<E> *table,
			  const dfr *scalars, size_t n, cudaStream_t stream)
{
	if (n == 0)
		return cudaSuccess;
	k_fb_mul<E><<<fb_grid(n), FB_BLOCK, 0, stream>>>(tmp, table, scalars, n);
	size_t runs = (n + FB_AFFINE_RUN - 1) / FB_AFFINE_RUN;
	k_fb_affine<E><<<fb_grid(runs), FB_BLOCK, 0, stream>>>(out, tmp, n);
	return cudaGetLastError();
}

cudaError_t fb_g1_run(g1_affine *out, g1_xyzz *tmp, const g1_affine *table, const dfr *scalars,
		      size_t n, cudaStream_t stream)
{
	return fb_run<dfp>(out, tmp, table, scalars, n, stream);
}

cudaError_t fb_g2_run(g2_affine *out, g2_xyzz *tmp, const g2_affine *table, const dfr *scalars,
		      size_t n, cudaStream_t stream)
{
	return fb_run<dfp2>(out, tmp, table, scalars, n, stream);
}
