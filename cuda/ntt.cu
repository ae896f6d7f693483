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
 * Scalings (the forward coset shift, the inverse's 1/n and inverse coset
 * shift) are fused into the first group's load and the last group's store
 * (ntt_scale), one multiplication per element and no pass of their own.
 *
 * Twiddles: before each stage a block copies the distinct table entries
 * its butterflies use into shared memory (ntt_group_twiddles; 16 KiB
 * beside the 32 KiB tile), from 1 for the 512 butterflies of a group's
 * first stage to 512 at most. Table reads per transform fall from
 * (n/2) log_n to about a quarter of that: at 2^27 from 1.81 G entries
 * (54 GiB) to 0.53 G (15.7 GiB), at 2^26 4.3 times fewer. The price is a
 * second barrier per stage.
 *
 * Shared memory: the tile and the twiddle cache are stored as 16-byte
 * halves with their columns XOR-swizzled (ntt_sh_unit in cuda/ntt.cuh),
 * so that no access of the device plan has a bank conflict (the plain
 * layout served 2.07 times the ideal count of wavefronts); test_cuda_math
 * counts them.
 *
 * Cost: (n/2) log_n butterflies (one Fr multiplication each) in about
 * 1 + (log_n - 10) / 8 passes of 64 n bytes, plus one pass per
 * permutation. Not yet measured on a GPU: bandwidth per pass and the best
 * NTT_GROUP_THREADS are to be read from Nsight Compute.
 */
#include <string.h>

#include "kernels.cuh"
#include "ntt.cuh"

#define NTT_BLOCK 256

static unsigned blocks_for(size_t n)
{
	return (unsigned)((n + NTT_BLOCK - 1) / NTT_BLOCK);
}

/* Shared memory (48 KiB a block) allows 4 blocks per SM; the minimum
 * holds registers to 64 a thread so that they allow as many (66 without
 * it, 3 blocks). */
#define NTT_GROUP_MIN_BLOCKS 4

static __global__ void __launch_bounds__(NTT_GROUP_THREADS, NTT_GROUP_MIN_BLOCKS)
k_group(dfr *x, const dfr *tw, ntt_group gr, bool inverse)
{
	__shared__ ntt_half sh[2 << NTT_TILE_LOG];
	__shared__ ntt_half shtw[1 << NTT_TILE_LOG]; /* with sh: 48 KiB, the static limit */
	ntt_group_load(sh, x, &gr, blockIdx.x, threadIdx.x);
	for (unsigned s = 0; s < gr.g; s++) {
		ntt_group_twiddles(shtw, tw, &gr, blockIdx.x, threadIdx.x, s, inverse);
		__syncthreads(); /* the load or the last stage, and these twiddles, done */
		ntt_group_stage(sh, shtw, &gr, blockIdx.x, threadIdx.x, s, inverse);
		__syncthreads(); /* before the twiddles are overwritten, or the store */
	}
	ntt_group_store(x, sh, &gr, blockIdx.x, threadIdx.x);
}

static __global__ void __launch_bounds__(NTT_BLOCK)
k_permute(dfr *x, size_t n, unsigned log_n)
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

static __global__ void __launch_bounds__(NTT_BLOCK)
k_h_pointwise(dfr *a, const dfr *b, const dfr *c, dfr scale, bool scaled, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	dfr va = a[i], vb = b[i], vc, s = scale;
	if (c)
		vc = c[i];
	ntt_h_point(&va, &va, &vb, c ? &vc : NULL, scaled ? &s : NULL);
	a[i] = va;
}

static __global__ void __launch_bounds__(NTT_BLOCK)
k_bitrev_sub(dfr *x, const dfr *y, dfr scale, bool scaled, size_t n, unsigned log_n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	dfr s = scale;
	ntt_bitrev_sub(x, y, scaled ? &s : NULL, i, log_n);
}

/* k_group per planned group; pre and post (when on) fused into the first
 * group's load and the last group's store. */
static void transform(dfr *x, const ntt_dev_domain *d, bool dif, bool inverse,
		      const ntt_scale *pre, const ntt_scale *post, cudaStream_t stream)
{
	ntt_group groups[32];
	unsigned count = ntt_plan(groups, d->log_n, dif, NTT_MAX_GROUP, NTT_TILE_LOG,
				  NTT_RUN_LOG, NTT_GROUP_THREADS);
	groups[0].pre = *pre;
	groups[count - 1].post = *post;
	for (unsigned i = 0; i < count; i++)
		k_group<<<(unsigned)ntt_group_blocks(&groups[i]), groups[i].threads, 0, stream>>>(
			x, d->tw, groups[i], inverse);
}

cudaError_t ntt_run(dfr *x, const ntt_dev_domain *d, bool inverse, bool coset,
		    bool in_bitrev, bool out_bitrev, cudaStream_t stream)
{
	unsigned grid = blocks_for(d->n);
	ntt_scale pre, post;
	memset(&pre, 0, sizeof(pre));
	memset(&post, 0, sizeof(post));
	if (!inverse && coset) {
		pre.on = true;
		pre.lo = d->cs_lo;
		pre.hi = d->cs_hi;
		pre.split = d->split;
		pre.bitrev = ntt_pre_bitrev(in_bitrev, out_bitrev);
	}
	if (inverse) {
		post.on = true;
		post.bitrev = ntt_post_bitrev(in_bitrev, out_bitrev);
		if (coset) {
			post.lo = d->ci_lo;
			post.hi = d->ci_hi;
			post.split = d->split;
		} else {
			post.uniform = d->n_inv;
		}
	}
	if (!in_bitrev && out_bitrev) {
		transform(x, d, true, inverse, &pre, &post, stream);
	} else if (in_bitrev && !out_bitrev) {
		transform(x, d, false, inverse, &pre, &post, stream);
	} else if (!in_bitrev) {
		transform(x, d, true, inverse, &pre, &post, stream);
		k_permute<<<grid, NTT_BLOCK, 0, stream>>>(x, d->n, d->log_n);
	} else {
		k_permute<<<grid, NTT_BLOCK, 0, stream>>>(x, d->n, d->log_n);
		transform(x, d, true, inverse, &pre, &post, stream);
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

cudaError_t ntt_bitrev_sub(dfr *x, const dfr *y, const dfr *scale, unsigned log_n,
			   cudaStream_t stream)
{
	size_t n = (size_t)1 << log_n;
	dfr s;
	if (scale)
		s = *scale;
	else
		fe_set_one(&s);
	k_bitrev_sub<<<blocks_for(n), NTT_BLOCK, 0, stream>>>(x, y, s, scale != NULL, n, log_n);
	return cudaGetLastError();
}
