/*
 * Per-thread pieces of the fixed-base kernels (cuda/fixed_base.cu), the
 * device side of a development key setup (include/zkpd/fixed_base.h),
 * written once over the coordinate field E of G1 (dfp) and G2 (dfp2) and
 * __host__ __device__ so the host unit test runs them:
 *  - fb_mul: [k]G for one scalar, the sum of the table points
 *    T[w][byte w of k - 1] over the non-zero bytes of the canonical k, at
 *    most 32 mixed additions into an XYZZ accumulator;
 *  - fb_to_affine: a run of XYZZ points to affine with one inversion
 *    (Montgomery's trick): with d_j = ZZ_j ZZZ_j, 1/ZZ_j = ZZZ_j / d_j and
 *    1/ZZZ_j = ZZ_j / d_j, so x = X / ZZ, y = Y / ZZZ cost 4M each once
 *    1/d_j is known; the prefix products are kept in the outputs' x.
 * The table has the layout of zkp_fixed_base_g?_table, so results equal
 * the CPU's byte for byte (affine coordinates are canonical).
 */
#ifndef ZKPD_CUDA_FB_CUH
#define ZKPD_CUDA_FB_CUH

#include <stddef.h>
#include <stdint.h>

#include "ec.cuh"
#include "ff.cuh"

#define FB_WINDOWS 32
#define FB_DIGITS 255
/* Points per thread of fb_to_affine: one inversion (about 570 Fp
 * multiplications) shared by this many, against 9 multiplications each. */
#define FB_AFFINE_RUN 64

/* Thread i < n: tmp[i] = [scalars[i]] G in XYZZ. */
template <class E>
ZKP_HD void fb_mul(ec_xyzz<E> *tmp, const ec_affine<E> *table, const dfr *scalars, size_t i)
{
	uint64_t k[4];
	dfr s = scalars[i];
	fe_from_mont(k, &s);
	ec_xyzz<E> acc;
	xyzz_set_inf(&acc);
	for (unsigned w = 0; w < FB_WINDOWS; w++) {
		unsigned d = (unsigned)(k[w / 8] >> (8 * (w % 8))) & 0xff;
		if (d) {
			ec_affine<E> p = table[w * FB_DIGITS + d - 1];
			xyzz_add_affine(&acc, &acc, &p);
		}
	}
	tmp[i] = acc;
}

/* Thread t: points [t run, min((t + 1) run, n)) of in to affine in out
 * (separate buffers); infinity becomes (0, 0). */
template <class E>
ZKP_HD void fb_to_affine(ec_affine<E> *out, const ec_xyzz<E> *in, size_t n, unsigned run,
			 size_t t)
{
	size_t lo = t * run;
	if (lo >= n)
		return;
	size_t hi = lo + run < n ? lo + run : n;
	E acc, d;
	fe_set_one(&acc);
	for (size_t j = lo; j < hi; j++) {
		if (xyzz_is_inf(&in[j]))
			continue;
		out[j].x = acc; /* the product of the d before j */
		fe_mul(&d, &in[j].zz, &in[j].zzz);
		fe_mul(&acc, &acc, &d);
	}
	E inv;
	fe_inv(&inv, &acc); /* the inverse of the product of every d */
	for (size_t j = hi; j-- > lo;) {
		if (xyzz_is_inf(&in[j])) {
			fe_set_zero(&out[j].x);
			fe_set_zero(&out[j].y);
			continue;
		}
		E dinv, izz, izzz;
		fe_mul(&dinv, &inv, &out[j].x); /* 1 / d_j */
		fe_mul(&d, &in[j].zz, &in[j].zzz);
		fe_mul(&inv, &inv, &d); /* the inverse of the product of the d before j */
		fe_mul(&izz, &dinv, &in[j].zzz);
		fe_mul(&izzz, &dinv, &in[j].zz);
		fe_mul(&out[j].x, &in[j].x, &izz);
		fe_mul(&out[j].y, &in[j].y, &izzz);
	}
}

#endif
