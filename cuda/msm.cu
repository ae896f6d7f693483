/*
 * The device MSM's G1 entry points, the count of scalars other than 0 and
 * 1 that picks the window, and the density compaction in front of an MSM.
 * The Pippenger kernels and their flow are msm_pippenger.cuh, instantiated
 * here for G1 and in msm_g2.cu for G2: two translation units, which a
 * parallel build compiles at once (the G2 curve code is the larger).
 *
 * Density compaction: the bitmap's 64-bit words are uploaded, one thread
 * per word counts its set bits (below n), the counts are scanned (the same
 * scan kernel, one segment), and one thread per scalar writes a selected
 * scalar to its rank: the word's offset plus the set bits below it.
 */
#include "msm_pippenger.cuh"

size_t msm_g1_ws_size(size_t n, size_t cap, unsigned c, unsigned kb)
{
	return layout_of<dfp>(n, cap, c, kb).total;
}


static __global__ void __launch_bounds__(MSM_BLOCK)
k_count_other(uint32_t *count, const dfr *scalars, size_t n)
{
	size_t i = thread_id();
	uint32_t v = __ballot_sync(0xffffffffu, i < n && msm_is_other(scalars, i));
	if ((threadIdx.x & 31) == 0 && v)
		atomicAdd(count, (uint32_t)__popc(v));
}

cudaError_t msm_g1_run(g1_xyzz *win_host, const g1_affine *bases, dfr *scalars, size_t n,
		       size_t cap, unsigned c, unsigned kb, void *ws, zkp_msm_phases *phases,
		       cudaStream_t stream)
{
	return msm_run<dfp>(win_host, bases, scalars, n, cap, c, kb, ws, phases, stream);
}

cudaError_t msm_count_other(size_t *ret, const dfr *scalars, size_t n, uint32_t *count,
			    cudaStream_t stream)
{
	uint32_t host = 0;
	*ret = 0;
	if (n == 0)
		return cudaSuccess;
	cudaError_t e = cudaMemsetAsync(count, 0, sizeof(uint32_t), stream);
	if (e != cudaSuccess)
		return e;
	k_count_other<<<grid_for(n), MSM_BLOCK, 0, stream>>>(count, scalars, n);
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(&host, count, sizeof(uint32_t), cudaMemcpyDeviceToHost, stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(stream);
	*ret = host;
	return e;
}

/* ---- density compaction ---- */

struct dens_layout {
	size_t words, counts, offs, total;
	size_t nwords;
};

static dens_layout dens_layout_of(size_t n)
{
	dens_layout l;
	l.nwords = (n + 63) / 64;
	size_t off = 0;
	l.words = off;
	off += align256(l.nwords * sizeof(uint64_t));
	l.counts = off;
	off += align256(l.nwords * sizeof(uint32_t));
	l.offs = off;
	off += align256((l.nwords + 1) * sizeof(uint32_t));
	l.total = off;
	return l;
}

size_t msm_compact_ws_size(size_t n)
{
	return dens_layout_of(n).total;
}

static __global__ void __launch_bounds__(MSM_BLOCK)
k_density_count(uint32_t *counts, const uint64_t *words, size_t nwords, size_t n)
{
	size_t w = thread_id();
	if (w < nwords)
		counts[w] = density_count(words, w, n);
}

static __global__ void __launch_bounds__(MSM_BLOCK)
k_density_scatter(dfr *out, const dfr *in, const uint64_t *words, const uint32_t *offs, size_t n)
{
	size_t i = thread_id();
	if (i < n)
		density_scatter(out, in, words, offs, i);
}

cudaError_t msm_compact(dfr *out, const dfr *scalars, const uint64_t *density, size_t n,
			void *ws, cudaStream_t stream)
{
	if (n == 0)
		return cudaSuccess;
	dens_layout l = dens_layout_of(n);
	char *base = (char *)ws;
	uint64_t *words = (uint64_t *)(base + l.words);
	uint32_t *counts = (uint32_t *)(base + l.counts);
	uint32_t *offs = (uint32_t *)(base + l.offs);
	cudaError_t e = cudaMemcpyAsync(words, density, l.nwords * sizeof(uint64_t),
					cudaMemcpyHostToDevice, stream);
	if (e != cudaSuccess)
		return e;
	k_density_count<<<grid_for(l.nwords), MSM_BLOCK, 0, stream>>>(counts, words, l.nwords, n);
	k_scan<<<1, MSM_SCAN_THREADS, 0, stream>>>(counts, offs, l.nwords);
	k_density_scatter<<<grid_for(n), MSM_BLOCK, 0, stream>>>(out, scalars, words, offs, n);
	return cudaGetLastError();
}
