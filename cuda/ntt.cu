/*
 * Radix-2 NTT over Fr on the device: one launch per stage, one thread per
 * butterfly, the butterflies and twiddle convention of cuda/ntt.cuh (those
 * of src/ntt/ntt.c), so results equal the CPU backend's bit for bit.
 *
 * Cost: log_n passes over the array, each reading and writing 32 n bytes,
 * plus one pass per scaling or permutation. Every pass is memory-bound at
 * large n; fusing stages in shared memory (radix-2^k) would cut the passes
 * to about log_n / k.
 */
#include "kernels.cuh"
#include "ntt.cuh"

#define NTT_BLOCK 256

static unsigned blocks_for(size_t n)
{
	return (unsigned)((n + NTT_BLOCK - 1) / NTT_BLOCK);
}

static __global__ void k_dif_stage(dfr *x, const dfr *tw, size_t n, size_t m, bool inverse)
{
	size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (q >= n / 2)
		return;
	size_t i, idx;
	ntt_pair(&i, &idx, q, n, m);
	dfr a = x[i], b = x[i + m];
	ntt_bfly_dif(&a, &b, tw, n, idx, inverse);
	x[i] = a;
	x[i + m] = b;
}

static __global__ void k_dit_stage(dfr *x, const dfr *tw, size_t n, size_t m, bool inverse)
{
	size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (q >= n / 2)
		return;
	size_t i, idx;
	ntt_pair(&i, &idx, q, n, m);
	dfr a = x[i], b = x[i + m];
	ntt_bfly_dit(&a, &b, tw, n, idx, inverse);
	x[i] = a;
	x[i + m] = b;
}

static __global__ void k_permute(dfr *x, size_t n, unsigned log_n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	size_t j = ntt_bitrev(i, log_n);
	if (i < j) {
		dfr t = x[i];
		x[i] = x[j];
		x[j] = t;
	}
}

/* x[i] *= lo[k & mask] hi[k >> split], k the logical index of position i. */
static __global__ void k_scale_coset(dfr *x, const dfr *lo, const dfr *hi, size_t n,
				     unsigned log_n, unsigned split, bool bitrev)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	size_t k = bitrev ? ntt_bitrev(i, log_n) : i;
	dfr f, v = x[i];
	ntt_coset_factor(&f, lo, hi, k, split);
	fe_mul(&v, &v, &f);
	x[i] = v;
}

static __global__ void k_scale_uniform(dfr *x, dfr f, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	dfr v = x[i];
	fe_mul(&v, &v, &f);
	x[i] = v;
}

static __global__ void k_h_pointwise(dfr *a, const dfr *b, const dfr *c, dfr zinv, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	dfr va = a[i], vb = b[i], vc = c[i];
	ntt_h_point(&va, &va, &vb, &vc, &zinv);
	a[i] = va;
}

static void transform(dfr *x, const ntt_dev_domain *d, bool dif, bool inverse,
		      cudaStream_t stream)
{
	unsigned grid = blocks_for(d->n / 2);
	if (dif) {
		for (size_t m = d->n / 2; m >= 1; m /= 2)
			k_dif_stage<<<grid, NTT_BLOCK, 0, stream>>>(x, d->tw, d->n, m, inverse);
	} else {
		for (size_t m = 1; m < d->n; m *= 2)
			k_dit_stage<<<grid, NTT_BLOCK, 0, stream>>>(x, d->tw, d->n, m, inverse);
	}
}

cudaError_t ntt_run(dfr *x, const ntt_dev_domain *d, bool inverse, bool coset,
		    bool in_bitrev, bool out_bitrev, cudaStream_t stream)
{
	unsigned grid = blocks_for(d->n);
	if (!inverse && coset)
		k_scale_coset<<<grid, NTT_BLOCK, 0, stream>>>(x, d->cs_lo, d->cs_hi, d->n,
							      d->log_n, d->split, in_bitrev);
	if (!in_bitrev && out_bitrev) {
		transform(x, d, true, inverse, stream);
	} else if (in_bitrev && !out_bitrev) {
		transform(x, d, false, inverse, stream);
	} else if (!in_bitrev) {
		transform(x, d, true, inverse, stream);
		k_permute<<<grid, NTT_BLOCK, 0, stream>>>(x, d->n, d->log_n);
	} else {
		k_permute<<<grid, NTT_BLOCK, 0, stream>>>(x, d->n, d->log_n);
		transform(x, d, true, inverse, stream);
	}
	if (inverse) {
		if (coset)
			k_scale_coset<<<grid, NTT_BLOCK, 0, stream>>>(x, d->ci_lo, d->ci_hi, d->n,
								      d->log_n, d->split,
								      out_bitrev);
		else
			k_scale_uniform<<<grid, NTT_BLOCK, 0, stream>>>(x, d->n_inv, d->n);
	}
	return cudaGetLastError();
}

cudaError_t ntt_h_pointwise(dfr *a, const dfr *b, const dfr *c, const dfr *zinv, size_t n,
			    cudaStream_t stream)
{
	if (n == 0)
		return cudaSuccess;
	k_h_pointwise<<<blocks_for(n), NTT_BLOCK, 0, stream>>>(a, b, c, *zinv, n);
	return cudaGetLastError();
}
