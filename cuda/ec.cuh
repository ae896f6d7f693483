/*
 * G1 point arithmetic for the CUDA kernels, __host__ __device__ like
 * ff.cuh and tested on the host against the C ec layer.
 *
 * Representations and formulas are those of include/zkpd/ec.h and
 * src/ec/curve_tmpl.h, so results agree limb for limb with the C layer:
 *  - affine (x, y), infinity stored as (0, 0): the layout of zkp_g1_affine;
 *  - XYZZ (X, Y, ZZ, ZZZ), infinity ZZ = 0 (set as (1, 1, 0, 0)): the layout
 *    of zkp_g1_xyzz;
 *  - Jacobian (X, Y, Z), infinity Z = 0: the layout of zkp_g1.
 * Costs (EFD names): madd-2008-s 8M + 2S, add-2008-s 12M + 2S,
 * dbl-2008-s-1 6M + 3S, mdbl-2008-s-1 4M + 3S; XYZZ to Jacobian 2M + 2S.
 */
#ifndef ZKPD_CUDA_EC_CUH
#define ZKPD_CUDA_EC_CUH

#include "ff.cuh"

/* The curve operations are inline functions whose inlining is left to
 * nvcc, unlike the field operations, which are forced inline. nvcc inlines
 * the mixed addition into the bucket accumulation, where calls would put
 * the accumulator in local memory; in the window reduction, which holds
 * three points, it keeps a general addition out of line (forced inline
 * there, it spilled 1,116 bytes). bench/ptx-figures.sh lists what stays
 * out of line (docs/benchmarks.md). */
#ifdef __CUDACC__
#define ZKP_HD_CALL __host__ __device__ inline
#else
#define ZKP_HD_CALL inline
#endif

struct g1_affine {
	dfp x, y;
};

struct g1_xyzz {
	dfp x, y, zz, zzz;
};

struct g1_jac {
	dfp x, y, z;
};

ZKP_HD bool g1_affine_is_inf(const g1_affine *a)
{
	return fe_is_zero(&a->x) && fe_is_zero(&a->y);
}

ZKP_HD bool g1_xyzz_is_inf(const g1_xyzz *a)
{
	return fe_is_zero(&a->zz);
}

ZKP_HD void g1_xyzz_set_inf(g1_xyzz *ret)
{
	fe_set_one(&ret->x);
	fe_set_one(&ret->y);
	fe_set_zero(&ret->zz);
	fe_set_zero(&ret->zzz);
}

ZKP_HD void g1_xyzz_from_affine(g1_xyzz *ret, const g1_affine *a)
{
	if (g1_affine_is_inf(a)) {
		g1_xyzz_set_inf(ret);
		return;
	}
	ret->x = a->x;
	ret->y = a->y;
	fe_set_one(&ret->zz);
	fe_set_one(&ret->zzz);
}

/* dbl-2008-s-1 (curve a = 0), 6M + 3S:
 *   U = 2 Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2,
 *   X3 = M^2 - 2S, Y3 = M(S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1.
 * Infinity stays infinity through ZZ3 = V ZZ1. */
ZKP_HD_CALL void g1_xyzz_dbl(g1_xyzz *ret, const g1_xyzz *a)
{
	dfp u, v, w, s, m, t;
	g1_xyzz out;
	fe_dbl(&u, &a->y);
	fe_sqr(&v, &u);
	fe_mul(&w, &u, &v);
	fe_mul(&s, &a->x, &v);
	fe_sqr(&m, &a->x);
	fe_dbl(&t, &m);
	fe_add(&m, &m, &t);
	fe_mul(&out.zz, &v, &a->zz);
	fe_mul(&out.zzz, &w, &a->zzz);
	fe_sqr(&out.x, &m);
	fe_sub(&out.x, &out.x, &s);
	fe_sub(&out.x, &out.x, &s);
	fe_sub(&t, &s, &out.x);
	fe_mul(&t, &t, &m);
	fe_mul(&w, &w, &a->y);
	fe_sub(&out.y, &t, &w);
	*ret = out;
}

/* mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1), 4M + 3S. */
ZKP_HD_CALL void g1_xyzz_dbl_affine(g1_xyzz *ret, const g1_affine *a)
{
	dfp u, v, w, s, m, t;
	g1_xyzz out;
	fe_dbl(&u, &a->y);
	fe_sqr(&v, &u);
	fe_mul(&w, &u, &v);
	fe_mul(&s, &a->x, &v);
	fe_sqr(&m, &a->x);
	fe_dbl(&t, &m);
	fe_add(&m, &m, &t);
	out.zz = v;
	out.zzz = w;
	fe_sqr(&out.x, &m);
	fe_sub(&out.x, &out.x, &s);
	fe_sub(&out.x, &out.x, &s);
	fe_sub(&t, &s, &out.x);
	fe_mul(&t, &t, &m);
	fe_mul(&w, &w, &a->y);
	fe_sub(&out.y, &t, &w);
	*ret = out;
}

/* add-2008-s, 12M + 2S:
 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1,
 *   R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP,
 *   X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - S1 PPP,
 *   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.
 * P = 0: a doubling when R = 0, infinity otherwise. */
ZKP_HD_CALL void g1_xyzz_add(g1_xyzz *ret, const g1_xyzz *a, const g1_xyzz *b)
{
	if (g1_xyzz_is_inf(a)) {
		*ret = *b;
		return;
	}
	if (g1_xyzz_is_inf(b)) {
		*ret = *a;
		return;
	}
	dfp u1, u2, s1, s2, p, r, pp, ppp, q, t;
	g1_xyzz out;
	fe_mul(&u1, &a->x, &b->zz);
	fe_mul(&u2, &b->x, &a->zz);
	fe_mul(&s1, &a->y, &b->zzz);
	fe_mul(&s2, &b->y, &a->zzz);
	fe_sub(&p, &u2, &u1);
	fe_sub(&r, &s2, &s1);
	if (fe_is_zero(&p)) {
		if (fe_is_zero(&r))
			g1_xyzz_dbl(ret, a);
		else
			g1_xyzz_set_inf(ret);
		return;
	}
	fe_sqr(&pp, &p);
	fe_mul(&ppp, &p, &pp);
	fe_mul(&q, &u1, &pp);
	fe_mul(&out.zz, &a->zz, &b->zz);
	fe_mul(&out.zz, &out.zz, &pp);
	fe_mul(&out.zzz, &a->zzz, &b->zzz);
	fe_mul(&out.zzz, &out.zzz, &ppp);
	fe_sqr(&out.x, &r);
	fe_sub(&out.x, &out.x, &ppp);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&t, &q, &out.x);
	fe_mul(&t, &t, &r);
	fe_mul(&s1, &s1, &ppp);
	fe_sub(&out.y, &t, &s1);
	*ret = out;
}

/* madd-2008-s (ZZ2 = ZZZ2 = 1), 8M + 2S:
 *   U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1, PP = P^2,
 *   PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q,
 *   Y3 = R(Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * P = 0: mdbl-2008-s-1 of the affine point when R = 0, else infinity. */
ZKP_HD_CALL void g1_xyzz_add_affine(g1_xyzz *ret, const g1_xyzz *a, const g1_affine *b)
{
	if (g1_affine_is_inf(b)) {
		*ret = *a;
		return;
	}
	if (g1_xyzz_is_inf(a)) {
		g1_xyzz_from_affine(ret, b);
		return;
	}
	dfp u2, s2, p, r, pp, ppp, q, t;
	g1_xyzz out;
	fe_mul(&u2, &b->x, &a->zz);
	fe_mul(&s2, &b->y, &a->zzz);
	fe_sub(&p, &u2, &a->x);
	fe_sub(&r, &s2, &a->y);
	if (fe_is_zero(&p)) {
		if (fe_is_zero(&r))
			g1_xyzz_dbl_affine(ret, b);
		else
			g1_xyzz_set_inf(ret);
		return;
	}
	fe_sqr(&pp, &p);
	fe_mul(&ppp, &p, &pp);
	fe_mul(&q, &a->x, &pp);
	fe_mul(&out.zz, &a->zz, &pp);
	fe_mul(&out.zzz, &a->zzz, &ppp);
	fe_sqr(&out.x, &r);
	fe_sub(&out.x, &out.x, &ppp);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&t, &q, &out.x);
	fe_mul(&t, &t, &r);
	fe_mul(&s2, &a->y, &ppp);
	fe_sub(&out.y, &t, &s2);
	*ret = out;
}

/* a + (-b): the affine point with y negated (infinity stays (0, 0)). */
ZKP_HD void g1_xyzz_sub_affine(g1_xyzz *ret, const g1_xyzz *a, const g1_affine *b)
{
	g1_affine nb;
	nb.x = b->x;
	fe_neg(&nb.y, &b->y);
	g1_xyzz_add_affine(ret, a, &nb);
}

/* With ZZ = z^2, ZZZ = z^3 take Z = ZZZ: X = X_xyzz ZZ^2, Y = Y_xyzz ZZZ^2.
 * 2M + 2S, no inversion. */
ZKP_HD void g1_jac_from_xyzz(g1_jac *ret, const g1_xyzz *a)
{
	if (g1_xyzz_is_inf(a)) {
		fe_set_one(&ret->x);
		fe_set_one(&ret->y);
		fe_set_zero(&ret->z);
		return;
	}
	dfp t;
	g1_jac out;
	fe_sqr(&t, &a->zz);
	fe_mul(&out.x, &a->x, &t);
	fe_sqr(&t, &a->zzz);
	fe_mul(&out.y, &a->y, &t);
	out.z = a->zzz;
	*ret = out;
}

#endif
