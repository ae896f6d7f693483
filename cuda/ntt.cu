/*
 * NTT over Fr on the device: the radix-2 stages run in groups of up to
 * NTT_MAX_GROUP consecutive stages in shared memory (cuda/ntt.cuh: a block
 * loads a tile of up to 1024 elements, 32 KiB, runs the group's stages on
 * it with a barrier between stages, and stores it back). The butterflies
 * and twiddle convention are those of src/ntt/ntt.c, so results equal the
 * CPU backend's bit for bit.
 *
 * Plan (ntt_plan): the group holding the stage of half size 1 (the last for
 * DIF, the first for DIT) takes up to 10 stages, a contiguous tile; the
 * other groups take up to 8, so that a tile moves runs of at least 4
 * consecutive elements (128 bytes) per global access. 2^20 takes 3 passes
 * (10 + 5 + 5 stages), 2^26 three (10 + 8 + 8), 2^27 four, against log_n
 * passes for one launch per stage.
 *
 * Cost: (n/2) log_n butterflies (one Fr multiplication each) in about
 * 1 + (log_n - 10) / 8 passes of 64 n bytes, plus one pass per coset or
 * inverse scaling and per permutation. Not yet measured on a GPU: bandwidth
 * per pass, shared-memory bank conflicts of the strided stages, and the
 * best NTT_GROUP_THREADS are to be read from Nsight Compute.
 */
#include "kernels.cuh"
#include "ntt.cuh"

#define NTT_BLOCK 256

static unsigned blocks_for(size_t n)
{
	return (unsigned)((n + NTT_BLOCK - 1) / NTT_BLOCK);
}

static __global__ void k_group(dfr *x, const dfr *tw, ntt_group gr, bool inverse)
{
	__shared__ dfr sh[1 << NTT_TILE_LOG];
	ntt_group_load(sh, x, &gr, blockIdx.x, threadIdx.x);
	__syncthreads();
	for (unsigned s = 0; s < gr.g; s++) {
		ntt_group_stage(sh, tw, &gr, blockIdx.x, threadIdx.x, s, inverse);
		__syncthreads();
	}
	ntt_group_store(x, sh, &gr, blockIdx.x, threadIdx.x);
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

static __global__ void k_h_pointwise(dfr *a, const dfr *b, const dfr *c, dfr scale, bool scaled,
				     size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	dfr va = a[i], vb = b[i], vc = c[i], s = scale;
	if (scaled)
		ntt_h_point(&va, &va, &vb, &vc, &s);
	else
		ntt_h_point(&va, &va, &vb, &vc, NULL);
	a[i] = va;
}

static void transform(dfr *x, const ntt_dev_domain *d, bool dif, bool inverse,
		      cudaStream_t stream)
{
	ntt_group groups[32];
	unsigned count = ntt_plan(groups, d->log_n, dif, NTT_MAX_GROUP, NTT_TILE_LOG,
				  NTT_RUN_LOG, NTT_GROUP_THREADS);
	for (unsigned i = 0; i < count; i++)
		k_group<<<(unsigned)ntt_group_blocks(&groups[i]), groups[i].threads, 0, stream>>>(
			x, d->tw, groups[i], inverse);
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

cudaError_t ntt_h_pointwise(dfr *a, const dfr *b, const dfr *c, const dfr *scale, size_t n,
			    cudaStream_t stream)
{
	if (n == 0)
		return cudaSuccess;
	dfr s;
	if (scale)
		s = *scale;
	else
		fe_set_one(&s);
	k_h_pointwise<<<blocks_for(n), NTT_BLOCK, 0, stream>>>(a, b, c, s, scale != NULL, n);
	return cudaGetLastError();
}
