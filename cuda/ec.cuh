/*
 * G1 and G2 point arithmetic for the CUDA kernels, __host__ __device__ like
 * ff.cuh and tested on the host against the C ec layer.
 *
 * The formulas are written once over the coordinate field E: dfp for G1,
 * dfp2 (fp2.cuh) for G2. No addition or doubling formula of a = 0 curves
 * uses b, so both curves share them, as src/ec/curve_tmpl.h does.
 * Representations and formulas are those of include/zkpd/ec.h and
 * src/ec/curve_tmpl.h, so results agree limb for limb with the C layer:
 *  - affine (x, y), infinity stored as (0, 0): the layout of zkp_g?_affine;
 *  - XYZZ (X, Y, ZZ, ZZZ), infinity ZZ = 0 (set as (1, 1, 0, 0)): the layout
 *    of zkp_g?_xyzz;
 *  - Jacobian (X, Y, Z), infinity Z = 0: the layout of zkp_g?.
 * Costs (EFD names, M and S in E): madd-2008-s 8M + 2S, add-2008-s
 * 12M + 2S, dbl-2008-s-1 6M + 3S, mdbl-2008-s-1 4M + 3S; XYZZ to Jacobian
 * 2M + 2S. An Fp2 M is 3 Fp M (fp2.cuh). Each formula's Y3 is a
 * difference of two products, taken with one reduction (fe_mul_sub: in
 * Fp a sum of two products; in Fp2 two sums of four Fp products, 8
 * products and 2 reductions for the 6 and 6 of two multiplications), which
 * saves a reduction in G1 and two in G2 and gives the same values. The
 * additions compute ZZZ3 after Y3, so that it is not live beside Y3's four
 * operands (k_acc_chunk over Fp: 168 registers, 184 the other way).
 */
#ifndef ZKPD_CUDA_EC_CUH
#define ZKPD_CUDA_EC_CUH

#include "ff.cuh"
#include "fp2.cuh"

template <class E> struct ec_affine {
	E x, y;
};

template <class E> struct ec_xyzz {
	E x, y, zz, zzz;
};

template <class E> struct ec_jac {
	E x, y, z;
};

typedef ec_affine<dfp> g1_affine;
typedef ec_xyzz<dfp> g1_xyzz;
typedef ec_jac<dfp> g1_jac;
typedef ec_affine<dfp2> g2_affine;
typedef ec_xyzz<dfp2> g2_xyzz;
typedef ec_jac<dfp2> g2_jac;

template <class E> ZKP_HD bool affine_is_inf(const ec_affine<E> *a)
{
	return fe_is_zero(&a->x) && fe_is_zero(&a->y);
}

template <class E> ZKP_HD bool xyzz_is_inf(const ec_xyzz<E> *a)
{
	return fe_is_zero(&a->zz);
}

template <class E> ZKP_HD void xyzz_set_inf(ec_xyzz<E> *ret)
{
	fe_set_one(&ret->x);
	fe_set_one(&ret->y);
	fe_set_zero(&ret->zz);
	fe_set_zero(&ret->zzz);
}

template <class E> ZKP_HD void xyzz_from_affine(ec_xyzz<E> *ret, const ec_affine<E> *a)
{
	if (affine_is_inf(a)) {
		xyzz_set_inf(ret);
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
template <class E> ZKP_HD_CALL void xyzz_dbl(ec_xyzz<E> *ret, const ec_xyzz<E> *a)
{
	E u, v, w, s, m, t;
	ec_xyzz<E> out;
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
	fe_mul_sub(&out.y, &m, &t, &w, &a->y); /* one reduction for both products */
	*ret = out;
}

/* mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1), 4M + 3S. */
template <class E> ZKP_HD_CALL void xyzz_dbl_affine(ec_xyzz<E> *ret, const ec_affine<E> *a)
{
	E u, v, w, s, m, t;
	ec_xyzz<E> out;
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
	fe_mul_sub(&out.y, &m, &t, &w, &a->y); /* one reduction for both products */
	*ret = out;
}

/* add-2008-s, 12M + 2S:
 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1,
 *   R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP,
 *   X3 = R^2 - PPP - 2Q, Y3 = R(Q - X3) - S1 PPP,
 *   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.
 * P = 0: a doubling when R = 0, infinity otherwise. */
template <class E>
ZKP_HD_CALL void xyzz_add(ec_xyzz<E> *ret, const ec_xyzz<E> *a, const ec_xyzz<E> *b)
{
	if (xyzz_is_inf(a)) {
		*ret = *b;
		return;
	}
	if (xyzz_is_inf(b)) {
		*ret = *a;
		return;
	}
	E u1, u2, s1, s2, p, r, pp, ppp, q, t;
	ec_xyzz<E> out;
	fe_mul(&u1, &a->x, &b->zz);
	fe_mul(&u2, &b->x, &a->zz);
	fe_mul(&s1, &a->y, &b->zzz);
	fe_mul(&s2, &b->y, &a->zzz);
	fe_sub(&p, &u2, &u1);
	fe_sub(&r, &s2, &s1);
	if (fe_is_zero(&p)) {
		if (fe_is_zero(&r))
			xyzz_dbl(ret, a);
		else
			xyzz_set_inf(ret);
		return;
	}
	fe_sqr(&pp, &p);
	fe_mul(&ppp, &p, &pp);
	fe_mul(&q, &u1, &pp);
	fe_mul(&out.zz, &a->zz, &b->zz);
	fe_mul(&out.zz, &out.zz, &pp);
	fe_sqr(&out.x, &r);
	fe_sub(&out.x, &out.x, &ppp);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&t, &q, &out.x);
	fe_mul_sub(&out.y, &r, &t, &s1, &ppp); /* one reduction for both products */
	fe_mul(&out.zzz, &a->zzz, &b->zzz);
	fe_mul(&out.zzz, &out.zzz, &ppp);
	*ret = out;
}

/* madd-2008-s (ZZ2 = ZZZ2 = 1), 8M + 2S:
 *   U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1, PP = P^2,
 *   PPP = P PP, Q = X1 PP, X3 = R^2 - PPP - 2Q,
 *   Y3 = R(Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * P = 0: mdbl-2008-s-1 of the affine point when R = 0, else infinity. */
template <class E>
ZKP_HD_CALL void xyzz_add_affine(ec_xyzz<E> *ret, const ec_xyzz<E> *a, const ec_affine<E> *b)
{
	if (affine_is_inf(b)) {
		*ret = *a;
		return;
	}
	if (xyzz_is_inf(a)) {
		xyzz_from_affine(ret, b);
		return;
	}
	E u2, s2, p, r, pp, ppp, q, t;
	ec_xyzz<E> out;
	fe_mul(&u2, &b->x, &a->zz);
	fe_mul(&s2, &b->y, &a->zzz);
	fe_sub(&p, &u2, &a->x);
	fe_sub(&r, &s2, &a->y);
	if (fe_is_zero(&p)) {
		if (fe_is_zero(&r))
			xyzz_dbl_affine(ret, b);
		else
			xyzz_set_inf(ret);
		return;
	}
	fe_sqr(&pp, &p);
	fe_mul(&ppp, &p, &pp);
	fe_mul(&q, &a->x, &pp);
	fe_mul(&out.zz, &a->zz, &pp);
	fe_sqr(&out.x, &r);
	fe_sub(&out.x, &out.x, &ppp);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&out.x, &out.x, &q);
	fe_sub(&t, &q, &out.x);
	fe_mul_sub(&out.y, &r, &t, &a->y, &ppp); /* one reduction for both products */
	fe_mul(&out.zzz, &a->zzz, &ppp);
	*ret = out;
}

/* a + (-b): the affine point with y negated (infinity stays (0, 0)). */
template <class E>
ZKP_HD void xyzz_sub_affine(ec_xyzz<E> *ret, const ec_xyzz<E> *a, const ec_affine<E> *b)
{
	ec_affine<E> nb;
	nb.x = b->x;
	fe_neg(&nb.y, &b->y);
	xyzz_add_affine(ret, a, &nb);
}

/* With ZZ = z^2, ZZZ = z^3 take Z = ZZZ: X = X_xyzz ZZ^2, Y = Y_xyzz ZZZ^2.
 * 2M + 2S, no inversion. */
template <class E> ZKP_HD void jac_from_xyzz(ec_jac<E> *ret, const ec_xyzz<E> *a)
{
	if (xyzz_is_inf(a)) {
		fe_set_one(&ret->x);
		fe_set_one(&ret->y);
		fe_set_zero(&ret->z);
		return;
	}
	E t;
	ec_jac<E> out;
	fe_sqr(&t, &a->zz);
	fe_mul(&out.x, &a->x, &t);
	fe_sqr(&t, &a->zzz);
	fe_mul(&out.y, &a->y, &t);
	out.z = a->zzz;
	*ret = out;
}

#endif
