/*
 * Fp2 = Fp[u] / (u^2 + 1) for the CUDA kernels (the G2 coordinates),
 * __host__ __device__ over ff.cuh's Fp, so the host build tests it against
 * the C ff layer.
 *
 * Invariants: dfp2 has the layout of zkp_fp2 (c0 + c1 u, each a fully
 * reduced Montgomery Fp element), outputs come first and may alias inputs,
 * and every result is fully reduced, so it agrees limb for limb with
 * src/ff/fp2.c. The operations overload ff.cuh's names (fe_add, fe_mul, ...)
 * so that the curve formulas of ec.cuh, written once over a field type,
 * serve G1 over Fp and G2 over Fp2.
 *
 * Costs in Fp operations: multiplication 3M + 5A (Karatsuba), squaring
 * 2M + 3A ((a0 + a1)(a0 - a1) + 2 a0 a1 u), addition 2A, inversion one Fp
 * inversion and 4M.
 */
#ifndef ZKPD_CUDA_FP2_CUH
#define ZKPD_CUDA_FP2_CUH

#include "ff.cuh"

struct dfp2 {
	dfp c0, c1;
};

ZKP_HD void fe_set_zero(dfp2 *ret)
{
	fe_set_zero(&ret->c0);
	fe_set_zero(&ret->c1);
}

ZKP_HD void fe_set_one(dfp2 *ret)
{
	fe_set_one(&ret->c0);
	fe_set_zero(&ret->c1);
}

ZKP_HD bool fe_is_zero(const dfp2 *a)
{
	return fe_is_zero(&a->c0) && fe_is_zero(&a->c1);
}

ZKP_HD bool fe_eq(const dfp2 *a, const dfp2 *b)
{
	return fe_eq(&a->c0, &b->c0) && fe_eq(&a->c1, &b->c1);
}

ZKP_HD void fe_add(dfp2 *ret, const dfp2 *a, const dfp2 *b)
{
	fe_add(&ret->c0, &a->c0, &b->c0);
	fe_add(&ret->c1, &a->c1, &b->c1);
}

ZKP_HD void fe_dbl(dfp2 *ret, const dfp2 *a)
{
	fe_dbl(&ret->c0, &a->c0);
	fe_dbl(&ret->c1, &a->c1);
}

ZKP_HD void fe_sub(dfp2 *ret, const dfp2 *a, const dfp2 *b)
{
	fe_sub(&ret->c0, &a->c0, &b->c0);
	fe_sub(&ret->c1, &a->c1, &b->c1);
}

ZKP_HD void fe_neg(dfp2 *ret, const dfp2 *a)
{
	fe_neg(&ret->c0, &a->c0);
	fe_neg(&ret->c1, &a->c1);
}

ZKP_HD void fe_cneg(dfp2 *ret, const dfp2 *a, bool neg)
{
	fe_cneg(&ret->c0, &a->c0, neg);
	fe_cneg(&ret->c1, &a->c1, neg);
}

/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u.
 * Every input is read before ret is written. */
ZKP_HD_CALL void fe_mul(dfp2 *ret, const dfp2 *a, const dfp2 *b)
{
	dfp t0, t1, sa, sb;
	fe_mul(&t0, &a->c0, &b->c0);
	fe_mul(&t1, &a->c1, &b->c1);
	fe_add(&sa, &a->c0, &a->c1);
	fe_add(&sb, &b->c0, &b->c1);
	fe_mul(&sa, &sa, &sb);
	fe_sub(&ret->c0, &t0, &t1);
	fe_sub(&sa, &sa, &t0);
	fe_sub(&ret->c1, &sa, &t1);
}

/* a b - c d, each coefficient one sum of four Fp products with one
 * reduction (ff.cuh's fe_mul_sum):
 *   (a0 b0 - a1 b1) - (c0 d0 - c1 d1) and (a0 b1 + a1 b0) - (c0 d1 + c1 d0),
 * the subtracted factors negated. 8 products and 2 reductions, where two
 * multiplications take 6 of each. Every input is read before ret is
 * written. */
ZKP_HD_CALL void fe_mul_sub(dfp2 *ret, const dfp2 *a, const dfp2 *b, const dfp2 *c,
			    const dfp2 *d)
{
	dfp na1, nc0, nc1, r0, r1;
	fe_neg(&na1, &a->c1);
	fe_neg(&nc0, &c->c0);
	fe_neg(&nc1, &c->c1);
	const dfp *x0[4] = { &a->c0, &na1, &nc0, &c->c1 };
	const dfp *y0[4] = { &b->c0, &b->c1, &d->c0, &d->c1 };
	const dfp *x1[4] = { &a->c0, &a->c1, &nc0, &nc1 };
	const dfp *y1[4] = { &b->c1, &b->c0, &d->c1, &d->c0 };
	fe_mul_sum<fp_params, 4>(&r0, x0, y0);
	fe_mul_sum<fp_params, 4>(&r1, x1, y1);
	ret->c0 = r0;
	ret->c1 = r1;
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
ZKP_HD_CALL void fe_sqr(dfp2 *ret, const dfp2 *a)
{
	dfp s, d, p;
	fe_add(&s, &a->c0, &a->c1);
	fe_sub(&d, &a->c0, &a->c1);
	fe_mul(&p, &a->c0, &a->c1);
	fe_mul(&ret->c0, &s, &d);
	fe_dbl(&ret->c1, &p);
}

/* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2): one Fp inversion
 * (ff.cuh's fe_inv); 0 for a = 0. */
ZKP_HD_CALL void fe_inv(dfp2 *ret, const dfp2 *a)
{
	dfp t0, t1, c1;
	fe_sqr(&t0, &a->c0);
	fe_sqr(&t1, &a->c1);
	fe_add(&t0, &t0, &t1);
	fe_inv(&t0, &t0);
	fe_mul(&c1, &a->c1, &t0);
	fe_mul(&ret->c0, &a->c0, &t0);
	fe_neg(&ret->c1, &c1);
}

#endif
