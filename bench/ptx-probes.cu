/*
 * Wrappers that isolate ten device functions for bench/ptx-figures.sh,
 * which compiles this file to PTX and counts each wrapper's instructions
 * (with any function it calls out of line). Never linked into a program.
 *   probe_fr_mul:   one Fr Montgomery multiplication (fe_mul, ff.cuh)
 *   probe_fp_mul:   one Fp Montgomery multiplication
 *   probe_fp_sqr:   one Fp Montgomery squaring (fe_sqr: its own rows)
 *   probe_g1_madd:  one G1 mixed addition, XYZZ + affine
 *                   (xyzz_add_affine, ec.cuh; with its doubling and
 *                   infinity branches)
 *   probe_fp_mul_sub: a b - c d in Fp with one reduction (fe_mul_sub)
 *   probe_fp2_mul:  one Fp2 multiplication (fp2.cuh: Karatsuba, 3 Fp ones)
 *   probe_fp2_mul_sub: a b - c d in Fp2 (two sums of four Fp products)
 *   probe_g2_madd:  one G2 mixed addition, XYZZ + affine (the same
 *                   formulas over Fp2)
 *   probe_ntt_bfly: one forward radix-2 DIT butterfly with its twiddle
 *                   (ntt_bfly_dit, ntt.cuh: a multiplication, an addition,
 *                   a subtraction, and the branch of twiddle index 0)
 *   probe_ntt_stage_access: what a butterfly of a grouped stage costs
 *                   besides itself (ntt_group_bfly_at, its two operands
 *                   and its twiddle read from shared memory, two elements
 *                   written back), with the group and stage uniform as
 *                   they are in k_group
 * Arguments come from global memory, at the thread's index, so nothing
 * folds to constants and nothing is uniform across a warp (ptxas would
 * move warp-uniform arithmetic to the slower uniform datapath).
 */
#include "ec.cuh"
#include "ff.cuh"
#include "ntt.cuh"

extern "C" __global__ void probe_fr_mul(dfr *ret, const dfr *a, const dfr *b)
{
	unsigned t = threadIdx.x;
	fe_mul(&ret[t], &a[t], &b[t]);
}

extern "C" __global__ void probe_fp_mul(dfp *ret, const dfp *a, const dfp *b)
{
	unsigned t = threadIdx.x;
	fe_mul(&ret[t], &a[t], &b[t]);
}

extern "C" __global__ void probe_fp_sqr(dfp *ret, const dfp *a)
{
	unsigned t = threadIdx.x;
	fe_sqr(&ret[t], &a[t]);
}

extern "C" __global__ void probe_fp_mul_sub(dfp *ret, const dfp *a, const dfp *b, const dfp *c,
					  const dfp *d)
{
	unsigned t = threadIdx.x;
	fe_mul_sub(&ret[t], &a[t], &b[t], &c[t], &d[t]);
}

extern "C" __global__ void probe_g1_madd(g1_xyzz *ret, const g1_xyzz *a, const g1_affine *b)
{
	unsigned t = threadIdx.x;
	xyzz_add_affine(&ret[t], &a[t], &b[t]);
}

extern "C" __global__ void probe_fp2_mul(dfp2 *ret, const dfp2 *a, const dfp2 *b)
{
	unsigned t = threadIdx.x;
	fe_mul(&ret[t], &a[t], &b[t]);
}

extern "C" __global__ void probe_fp2_mul_sub(dfp2 *ret, const dfp2 *a, const dfp2 *b,
					   const dfp2 *c, const dfp2 *d)
{
	unsigned t = threadIdx.x;
	fe_mul_sub(&ret[t], &a[t], &b[t], &c[t], &d[t]);
}

extern "C" __global__ void probe_g2_madd(g2_xyzz *ret, const g2_xyzz *a, const g2_affine *b)
{
	unsigned t = threadIdx.x;
	xyzz_add_affine(&ret[t], &a[t], &b[t]);
}

extern "C" __global__ void probe_ntt_bfly(dfr *a, dfr *b, const dfr *tw, const bool *one)
{
	unsigned t = threadIdx.x;
	ntt_bfly_dit(&a[t], &b[t], &tw[t], one[t], false);
}

extern "C" __global__ void probe_ntt_stage_access(dfr *out, ntt_group gr, unsigned s)
{
	__shared__ ntt_half sh[2 << NTT_TILE_LOG], shtw[1 << NTT_TILE_LOG];
	ntt_bfly_at at = ntt_group_bfly_at(&gr, blockIdx.x, s, threadIdx.x);
	dfr a, c, w;
	ntt_sh_get(&a, sh, at.a);
	ntt_sh_get(&c, sh, at.c);
	ntt_sh_get(&w, shtw, at.w);
	ntt_sh_put(sh, at.a, &c);
	ntt_sh_put(sh, at.c, &w);
	if (at.one)
		out[threadIdx.x] = a;
}
