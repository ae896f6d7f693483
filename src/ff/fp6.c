/*
 * Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u (docs/math.md, 'Tower').
 *
 * Multiplication is Karatsuba over Fp2 (6 Fp2 multiplications instead of 9),
 * squaring is Chung-Hasan CH-SQR2 ("Asymmetric squaring formulae", ARITH 18,
 * 2007): 2 multiplications and 3 squarings. Counts are in Fp multiplications
 * with Fp2 mul = 3 and Fp2 sqr = 2 (fp2.c).
 */
#include <string.h>

#include "zkpd/error.h"
#include "zkpd/tower.h"

/* Montgomery limbs of the constants xi^((p^k - 1)/3) and
 * xi^(2(p^k - 1)/3) (docs/math.md, 'Frobenius'); test_tower checks them
 * against the canonical hex and against the powers of xi. */
#define FP2_CONST(c0, c1) { { { c0 } }, { { c1 } } }
#define MONT_ONE 0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, \
		 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493
#define MONT_ZERO 0, 0, 0, 0, 0, 0
/* beta1, beta2: the cube roots of unity in Fp, named as in docs/math.md,
 * 'Endomorphisms and subgroup checks'. */
#define MONT_BETA1 0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, \
		   0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160
#define MONT_BETA2 0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, \
		   0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2, 0x18f0206554638741
#define MONT_NEG_BETA1 0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, \
		       0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a
#define MONT_NEG_BETA2 0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e, \
		       0xd5c13cc6f1ca4721, 0x47222a47bf7b5c04, 0x0110f184e51c5f59
#define MONT_NEG_ONE 0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, \
		     0xeca8f3318332bb7a, 0xef148d1ea0f4c069, 0x040ab3263eff0206

const zkp_fp2 ZKP_FP6_FROB_V[6] = {
	FP2_CONST(MONT_ONE, MONT_ZERO),        /* 1 */
	FP2_CONST(MONT_ZERO, MONT_BETA2),      /* beta2 u */
	FP2_CONST(MONT_BETA1, MONT_ZERO),      /* beta1 */
	FP2_CONST(MONT_ZERO, MONT_ONE),        /* u */
	FP2_CONST(MONT_BETA2, MONT_ZERO),      /* beta2 */
	FP2_CONST(MONT_ZERO, MONT_BETA1),      /* beta1 u */
};

const zkp_fp2 ZKP_FP6_FROB_V2[6] = {
	FP2_CONST(MONT_ONE, MONT_ZERO),        /* 1 */
	FP2_CONST(MONT_NEG_BETA1, MONT_ZERO),  /* -beta1 */
	FP2_CONST(MONT_BETA2, MONT_ZERO),      /* beta2 */
	FP2_CONST(MONT_NEG_ONE, MONT_ZERO),    /* -1 */
	FP2_CONST(MONT_BETA1, MONT_ZERO),      /* beta1 */
	FP2_CONST(MONT_NEG_BETA2, MONT_ZERO),  /* -beta2 */
};

void zkp_fp6_set_zero(zkp_fp6 *ret) { memset(ret, 0, sizeof(*ret)); }

void zkp_fp6_set_one(zkp_fp6 *ret)
{
	zkp_fp6_set_zero(ret);
	zkp_fp2_set_one(&ret->c0);
}

bool zkp_fp6_is_zero(const zkp_fp6 *a)
{
	return zkp_fp2_is_zero(&a->c0) && zkp_fp2_is_zero(&a->c1) && zkp_fp2_is_zero(&a->c2);
}

bool zkp_fp6_is_one(const zkp_fp6 *a)
{
	return zkp_fp2_is_one(&a->c0) && zkp_fp2_is_zero(&a->c1) && zkp_fp2_is_zero(&a->c2);
}

bool zkp_fp6_eq(const zkp_fp6 *a, const zkp_fp6 *b)
{
	return zkp_fp2_eq(&a->c0, &b->c0) && zkp_fp2_eq(&a->c1, &b->c1) &&
	       zkp_fp2_eq(&a->c2, &b->c2);
}

void zkp_fp6_add(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp6 *b)
{
	zkp_fp2_add(&ret->c0, &a->c0, &b->c0);
	zkp_fp2_add(&ret->c1, &a->c1, &b->c1);
	zkp_fp2_add(&ret->c2, &a->c2, &b->c2);
}

void zkp_fp6_sub(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp6 *b)
{
	zkp_fp2_sub(&ret->c0, &a->c0, &b->c0);
	zkp_fp2_sub(&ret->c1, &a->c1, &b->c1);
	zkp_fp2_sub(&ret->c2, &a->c2, &b->c2);
}

void zkp_fp6_neg(zkp_fp6 *ret, const zkp_fp6 *a)
{
	zkp_fp2_neg(&ret->c0, &a->c0);
	zkp_fp2_neg(&ret->c1, &a->c1);
	zkp_fp2_neg(&ret->c2, &a->c2);
}

void zkp_fp6_dbl(zkp_fp6 *ret, const zkp_fp6 *a)
{
	zkp_fp2_dbl(&ret->c0, &a->c0);
	zkp_fp2_dbl(&ret->c1, &a->c1);
	zkp_fp2_dbl(&ret->c2, &a->c2);
}

void zkp_fp6_mul(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp6 *b)
{
	/* With v_i = a_i b_i and v^3 = xi:
	 *   c0 = v0 + xi((a1 + a2)(b1 + b2) - v1 - v2)
	 *   c1 = (a0 + a1)(b0 + b1) - v0 - v1 + xi v2
	 *   c2 = (a0 + a2)(b0 + b2) - v0 - v2 + v1
	 * 6 Fp2 multiplications, 18 Fp. */
	zkp_fp2 v0, v1, v2, s, t, c0, c1, c2;
	zkp_fp2_mul(&v0, &a->c0, &b->c0);
	zkp_fp2_mul(&v1, &a->c1, &b->c1);
	zkp_fp2_mul(&v2, &a->c2, &b->c2);

	zkp_fp2_add(&s, &a->c1, &a->c2);
	zkp_fp2_add(&t, &b->c1, &b->c2);
	zkp_fp2_mul(&c0, &s, &t);
	zkp_fp2_sub(&c0, &c0, &v1);
	zkp_fp2_sub(&c0, &c0, &v2);
	zkp_fp2_mul_by_xi(&c0, &c0);
	zkp_fp2_add(&c0, &c0, &v0);

	zkp_fp2_add(&s, &a->c0, &a->c1);
	zkp_fp2_add(&t, &b->c0, &b->c1);
	zkp_fp2_mul(&c1, &s, &t);
	zkp_fp2_sub(&c1, &c1, &v0);
	zkp_fp2_sub(&c1, &c1, &v1);
	zkp_fp2_mul_by_xi(&s, &v2);
	zkp_fp2_add(&c1, &c1, &s);

	zkp_fp2_add(&s, &a->c0, &a->c2);
	zkp_fp2_add(&t, &b->c0, &b->c2);
	zkp_fp2_mul(&c2, &s, &t);
	zkp_fp2_sub(&c2, &c2, &v0);
	zkp_fp2_sub(&c2, &c2, &v2);
	zkp_fp2_add(&c2, &c2, &v1);

	ret->c0 = c0;
	ret->c1 = c1;
	ret->c2 = c2;
}

void zkp_fp6_sqr(zkp_fp6 *ret, const zkp_fp6 *a)
{
	/* CH-SQR2:
	 *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2,
	 *   s4 = a2^2
	 *   c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4
	 * (c2 = a1^2 + 2 a0 a2 once the cross terms of s2 cancel).
	 * 3 Fp2 squarings + 2 multiplications, 12 Fp. */
	zkp_fp2 s0, s1, s2, s3, s4, t;
	zkp_fp2_sqr(&s0, &a->c0);
	zkp_fp2_mul(&s1, &a->c0, &a->c1);
	zkp_fp2_dbl(&s1, &s1);
	zkp_fp2_sub(&t, &a->c0, &a->c1);
	zkp_fp2_add(&t, &t, &a->c2);
	zkp_fp2_sqr(&s2, &t);
	zkp_fp2_mul(&s3, &a->c1, &a->c2);
	zkp_fp2_dbl(&s3, &s3);
	zkp_fp2_sqr(&s4, &a->c2);

	zkp_fp2_add(&ret->c2, &s1, &s2);
	zkp_fp2_add(&ret->c2, &ret->c2, &s3);
	zkp_fp2_sub(&ret->c2, &ret->c2, &s0);
	zkp_fp2_sub(&ret->c2, &ret->c2, &s4);
	zkp_fp2_mul_by_xi(&t, &s3);
	zkp_fp2_add(&ret->c0, &s0, &t);
	zkp_fp2_mul_by_xi(&t, &s4);
	zkp_fp2_add(&ret->c1, &s1, &t);
}

void zkp_fp6_mul_by_nonresidue(zkp_fp6 *ret, const zkp_fp6 *a)
{
	/* (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2 */
	zkp_fp2 t;
	zkp_fp2_mul_by_xi(&t, &a->c2);
	ret->c2 = a->c1;
	ret->c1 = a->c0;
	ret->c0 = t;
}

void zkp_fp6_mul_by_01(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp2 *b0, const zkp_fp2 *b1)
{
	/* (a0 + a1 v + a2 v^2)(b0 + b1 v), Karatsuba on the (0, 1) part:
	 *   c0 = a0 b0 + xi a2 b1
	 *   c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1
	 *   c2 = a1 b1 + a2 b0
	 * 5 Fp2 multiplications, 15 Fp. */
	zkp_fp2 t0, t1, s, t, c0, c1, c2;
	zkp_fp2_mul(&t0, &a->c0, b0);
	zkp_fp2_mul(&t1, &a->c1, b1);

	zkp_fp2_mul(&c0, &a->c2, b1);
	zkp_fp2_mul_by_xi(&c0, &c0);
	zkp_fp2_add(&c0, &c0, &t0);

	zkp_fp2_add(&s, &a->c0, &a->c1);
	zkp_fp2_add(&t, b0, b1);
	zkp_fp2_mul(&c1, &s, &t);
	zkp_fp2_sub(&c1, &c1, &t0);
	zkp_fp2_sub(&c1, &c1, &t1);

	zkp_fp2_mul(&c2, &a->c2, b0);
	zkp_fp2_add(&c2, &c2, &t1);

	ret->c0 = c0;
	ret->c1 = c1;
	ret->c2 = c2;
}

void zkp_fp6_mul_by_1(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp2 *b1)
{
	/* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
	zkp_fp2 c0, c1, c2;
	zkp_fp2_mul(&c0, &a->c2, b1);
	zkp_fp2_mul_by_xi(&c0, &c0);
	zkp_fp2_mul(&c1, &a->c0, b1);
	zkp_fp2_mul(&c2, &a->c1, b1);
	ret->c0 = c0;
	ret->c1 = c1;
	ret->c2 = c2;
}

void zkp_fp6_mul_fp2(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp2 *b)
{
	zkp_fp2_mul(&ret->c0, &a->c0, b);
	zkp_fp2_mul(&ret->c1, &a->c1, b);
	zkp_fp2_mul(&ret->c2, &a->c2, b);
}

int zkp_fp6_inv(zkp_fp6 *ret, const zkp_fp6 *a)
{
	/* The adjugate of multiplication by a (Hankerson-Menezes-Vanstone style,
	 * e.g. Scott, "Implementing cryptographic pairings", 2007):
	 *   A = a0^2 - xi a1 a2,  B = xi a2^2 - a0 a1,  C = a1^2 - a0 a2
	 *   N = a0 A + xi (a2 B + a1 C)   (in Fp2, the norm to Fp2)
	 *   1/a = (A + B v + C v^2) / N
	 * 3 squarings + 9 multiplications in Fp2 and one Fp2 inversion. */
	zkp_fp2 A, B, C, t, n;
	zkp_fp2_sqr(&A, &a->c0);
	zkp_fp2_mul(&t, &a->c1, &a->c2);
	zkp_fp2_mul_by_xi(&t, &t);
	zkp_fp2_sub(&A, &A, &t);

	zkp_fp2_sqr(&B, &a->c2);
	zkp_fp2_mul_by_xi(&B, &B);
	zkp_fp2_mul(&t, &a->c0, &a->c1);
	zkp_fp2_sub(&B, &B, &t);

	zkp_fp2_sqr(&C, &a->c1);
	zkp_fp2_mul(&t, &a->c0, &a->c2);
	zkp_fp2_sub(&C, &C, &t);

	zkp_fp2_mul(&n, &a->c2, &B);
	zkp_fp2_mul(&t, &a->c1, &C);
	zkp_fp2_add(&n, &n, &t);
	zkp_fp2_mul_by_xi(&n, &n);
	zkp_fp2_mul(&t, &a->c0, &A);
	zkp_fp2_add(&n, &n, &t);

	int err = zkp_fp2_inv(&n, &n);
	if (err) {
		zkp_fp6_set_zero(ret);
		return err;
	}
	zkp_fp2_mul(&ret->c0, &A, &n);
	zkp_fp2_mul(&ret->c1, &B, &n);
	zkp_fp2_mul(&ret->c2, &C, &n);
	return 0;
}

void zkp_fp6_frobenius(zkp_fp6 *ret, const zkp_fp6 *a, unsigned k)
{
	/* (b0 + b1 v + b2 v^2)^(p^k) = phi(b0) + phi(b1) v^(p^k) + phi(b2) v^(2 p^k),
	 * and v^(p^k) = v (v^3)^((p^k - 1)/3) = xi^((p^k - 1)/3) v. */
	k %= 6;
	zkp_fp2_frobenius(&ret->c0, &a->c0, k);
	zkp_fp2_frobenius(&ret->c1, &a->c1, k);
	zkp_fp2_frobenius(&ret->c2, &a->c2, k);
	if (k == 0)
		return;
	zkp_fp2_mul(&ret->c1, &ret->c1, &ZKP_FP6_FROB_V[k]);
	zkp_fp2_mul(&ret->c2, &ret->c2, &ZKP_FP6_FROB_V2[k]);
}

void zkp_fp6_pow(zkp_fp6 *ret, const zkp_fp6 *a, const uint64_t *e, size_t nlimbs)
{
	zkp_fp6 acc, base = *a;
	zkp_fp6_set_one(&acc);
	for (size_t i = nlimbs; i-- > 0;) {
		for (int bit = 63; bit >= 0; bit--) {
			zkp_fp6_sqr(&acc, &acc);
			if ((e[i] >> bit) & 1)
				zkp_fp6_mul(&acc, &acc, &base);
		}
	}
	*ret = acc;
}
