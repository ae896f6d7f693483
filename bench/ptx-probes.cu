/*
 * Wrappers that isolate three device functions for bench/ptx-figures.sh,
 * which compiles this file to PTX and counts each wrapper's instructions
 * (with the __noinline__ functions it calls). Never linked into a program.
 *   probe_fr_mul:   one Fr Montgomery multiplication (fe_mul, ff.cuh)
 *   probe_g1_madd:  one G1 mixed addition, XYZZ + affine
 *                   (g1_xyzz_add_affine, ec.cuh; with its doubling and
 *                   infinity branches)
 *   probe_ntt_bfly: one forward radix-2 DIT butterfly with its twiddle
 *                   (ntt_bfly_dit, ntt.cuh: a multiplication, an addition,
 *                   a subtraction, and the idx == 0 branch)
 * Arguments come from global memory so nothing folds to constants.
 */
#include "ec.cuh"
#include "ff.cuh"
#include "ntt.cuh"

extern "C" __global__ void probe_fr_mul(dfr *ret, const dfr *a, const dfr *b)
{
	fe_mul(ret, a, b);
}

extern "C" __global__ void probe_g1_madd(g1_xyzz *ret, const g1_xyzz *a, const g1_affine *b)
{
	g1_xyzz_add_affine(ret, a, b);
}

extern "C" __global__ void probe_ntt_bfly(dfr *a, dfr *b, const dfr *tw, size_t n, size_t idx)
{
	ntt_bfly_dit(a, b, tw, n, idx, false);
}
