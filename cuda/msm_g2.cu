/*
 * The device MSM's G2 entry points: msm_pippenger.cuh's kernels over Fp2,
 * in a translation unit of their own (msm.cu has G1's).
 */
#include "msm_pippenger.cuh"

size_t msm_g2_ws_size(size_t n, size_t cap, unsigned c, unsigned kb)
{
	return layout_of<dfp2>(n, cap, c, kb).total;
}

cudaError_t msm_g2_run(g2_xyzz *win_host, const g2_affine *bases, dfr *scalars, size_t n,
		       size_t cap, unsigned c, unsigned kb, void *ws, zkp_msm_phases *phases,
		       cudaStream_t stream)
{
	return msm_run<dfp2>(win_host, bases, scalars, n, cap, c, kb, ws, phases, stream);
}

