/*
 * Fp2 = Fp[u]/(u^2 + 1). Multiplication by Karatsuba (3 Fp multiplications),
 * squaring by the complex method (2).
 */
#include <string.h>

#include "zkpd/error.h"
#include "zkpd/ff.h"

const zkp_fp2 ZKP_FP2_ONE = { { { 0x760900000002fffd, 0xebf4000bc40c0002,
				  0x5f48985753c758ba, 0x77ce585370525745,
				  0x5c071a97a256ec6d, 0x15f65ec3fa80e493 } },
			      { { 0 } } };

void zkp_fp2_set_zero(zkp_fp2 *ret) { memset(ret, 0, sizeof(*ret)); }
void zkp_fp2_set_one(zkp_fp2 *ret) { *ret = ZKP_FP2_ONE; }

bool zkp_fp2_is_zero(const zkp_fp2 *a)
{
	return zkp_fp_is_zero(&a->c0) && zkp_fp_is_zero(&a->c1);
}

bool zkp_fp2_is_one(const zkp_fp2 *a)
{
	return zkp_fp_is_one(&a->c0) && zkp_fp_is_zero(&a->c1);
}

bool zkp_fp2_eq(const zkp_fp2 *a, const zkp_fp2 *b)
{
	return zkp_fp_eq(&a->c0, &b->c0) && zkp_fp_eq(&a->c1, &b->c1);
}

void zkp_fp2_add(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp2 *b)
{
	zkp_fp_add(&ret->c0, &a->c0, &b->c0);
	zkp_fp_add(&ret->c1, &a->c1, &b->c1);
}

void zkp_fp2_sub(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp2 *b)
{
	zkp_fp_sub(&ret->c0, &a->c0, &b->c0);
	zkp_fp_sub(&ret->c1, &a->c1, &b->c1);
}

void zkp_fp2_neg(zkp_fp2 *ret, const zkp_fp2 *a)
{
	zkp_fp_neg(&ret->c0, &a->c0);
	zkp_fp_neg(&ret->c1, &a->c1);
}

void zkp_fp2_dbl(zkp_fp2 *ret, const zkp_fp2 *a)
{
	zkp_fp_dbl(&ret->c0, &a->c0);
	zkp_fp_dbl(&ret->c1, &a->c1);
}

void zkp_fp2_conj(zkp_fp2 *ret, const zkp_fp2 *a)
{
	ret->c0 = a->c0;
	zkp_fp_neg(&ret->c1, &a->c1);
}

void zkp_fp2_mul(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp2 *b)
{
	zkp_fp t0, t1, s0, s1;
	zkp_fp_mul(&t0, &a->c0, &b->c0);
	zkp_fp_mul(&t1, &a->c1, &b->c1);
	zkp_fp_add(&s0, &a->c0, &a->c1);
	zkp_fp_add(&s1, &b->c0, &b->c1);
	zkp_fp_mul(&s0, &s0, &s1); /* (a0 + a1)(b0 + b1) */
	zkp_fp_sub(&s0, &s0, &t0);
	zkp_fp_sub(&ret->c1, &s0, &t1);
	zkp_fp_sub(&ret->c0, &t0, &t1);
}

void zkp_fp2_sqr(zkp_fp2 *ret, const zkp_fp2 *a)
{
	/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
	zkp_fp s, d, m;
	zkp_fp_add(&s, &a->c0, &a->c1);
	zkp_fp_sub(&d, &a->c0, &a->c1);
	zkp_fp_mul(&m, &a->c0, &a->c1);
	zkp_fp_mul(&ret->c0, &s, &d);
	zkp_fp_dbl(&ret->c1, &m);
}

void zkp_fp2_mul_fp(zkp_fp2 *ret, const zkp_fp2 *a, const zkp_fp *b)
{
	zkp_fp_mul(&ret->c0, &a->c0, b);
	zkp_fp_mul(&ret->c1, &a->c1, b);
}

void zkp_fp2_mul_by_xi(zkp_fp2 *ret, const zkp_fp2 *a)
{
	/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
	zkp_fp t;
	zkp_fp_sub(&t, &a->c0, &a->c1);
	zkp_fp_add(&ret->c1, &a->c0, &a->c1);
	ret->c0 = t;
}

void zkp_fp2_frobenius(zkp_fp2 *ret, const zkp_fp2 *a, unsigned k)
{
	if (k & 1)
		zkp_fp2_conj(ret, a);
	else
		*ret = *a;
}

int zkp_fp2_inv(zkp_fp2 *ret, const zkp_fp2 *a)
{
	/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
	zkp_fp n, t;
	zkp_fp_sqr(&n, &a->c0);
	zkp_fp_sqr(&t, &a->c1);
	zkp_fp_add(&n, &n, &t);
	int err = zkp_fp_inv(&n, &n);
	if (err) {
		zkp_fp2_set_zero(ret);
		return err;
	}
	zkp_fp_mul(&ret->c0, &a->c0, &n);
	zkp_fp_mul(&t, &a->c1, &n);
	zkp_fp_neg(&ret->c1, &t);
	return 0;
}

void zkp_fp2_pow(zkp_fp2 *ret, const zkp_fp2 *a, const uint64_t *e, size_t nlimbs)
{
	zkp_fp2 acc = ZKP_FP2_ONE, base = *a;
	for (size_t i = nlimbs; i-- > 0;) {
		for (int bit = 63; bit >= 0; bit--) {
			zkp_fp2_sqr(&acc, &acc);
			if ((e[i] >> bit) & 1)
				zkp_fp2_mul(&acc, &acc, &base);
		}
	}
	*ret = acc;
}

int zkp_fp2_legendre(const zkp_fp2 *a)
{
	/* a is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp. */
	zkp_fp n, t;
	zkp_fp_sqr(&n, &a->c0);
	zkp_fp_sqr(&t, &a->c1);
	zkp_fp_add(&n, &n, &t);
	return zkp_fp_legendre(&n);
}

/* e = (p - 3) / 4 and (p - 1) / 2 as limbs. */
static void exp_p_minus(uint64_t e[6], uint64_t k, unsigned shift)
{
	uint64_t borrow = k;
	for (int i = 0; i < 6; i++) {
		uint64_t v = ZKP_FP_MODULUS[i];
		e[i] = v - borrow;
		borrow = v < borrow;
	}
	for (int i = 0; i < 6; i++)
		e[i] = (e[i] >> shift) | (i < 5 ? e[i + 1] << (64 - shift) : 0);
}

int zkp_fp2_sqrt(zkp_fp2 *ret, const zkp_fp2 *a)
{
	/* Adj and Rodriguez-Henriquez, "Square root computation over even
	 * extension fields", Algorithm 9 (q = p^2, p = 3 mod 4). */
	if (zkp_fp2_is_zero(a)) {
		zkp_fp2_set_zero(ret);
		return 0;
	}
	uint64_t e1[6], e2[6];
	exp_p_minus(e1, 3, 2); /* (p - 3) / 4 */
	exp_p_minus(e2, 1, 1); /* (p - 1) / 2 */

	zkp_fp2 a1, alpha, x0, x, chk;
	zkp_fp2_pow(&a1, a, e1, 6);
	zkp_fp2_mul(&x0, &a1, a);      /* a^((p+1)/4) */
	zkp_fp2_mul(&alpha, &a1, &x0); /* a^((p-1)/2) */

	zkp_fp2 minus_one;
	zkp_fp2_neg(&minus_one, &ZKP_FP2_ONE);
	if (zkp_fp2_eq(&alpha, &minus_one)) {
		/* x = u * x0 */
		zkp_fp_neg(&x.c0, &x0.c1);
		x.c1 = x0.c0;
	} else {
		zkp_fp2 b;
		zkp_fp2_add(&b, &alpha, &ZKP_FP2_ONE);
		zkp_fp2_pow(&b, &b, e2, 6);
		zkp_fp2_mul(&x, &b, &x0);
	}
	zkp_fp2_sqr(&chk, &x);
	if (!zkp_fp2_eq(&chk, a))
		return ZKP_ERR_NO_SQRT;
	*ret = x;
	return 0;
}

bool zkp_fp2_is_lexi_largest(const zkp_fp2 *a)
{
	if (!zkp_fp_is_zero(&a->c1))
		return zkp_fp_is_lexi_largest(&a->c1);
	return zkp_fp_is_lexi_largest(&a->c0);
}
