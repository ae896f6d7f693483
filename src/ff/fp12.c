/*
 * Fp12 = Fp6[w]/(w^2 - v) (docs/math.md, 'Tower').
 *
 * Costs are in Fp multiplications: Fp6 mul = 18, Fp6 sqr = 12 (fp6.c).
 *  - mul: Karatsuba over Fp6, 3 Fp6 multiplications = 54.
 *  - sqr: complex squaring, 2 Fp6 multiplications = 36.
 *  - mul_by_014 (a Miller-loop line): 13 Fp2 multiplications = 39.
 *  - cyclotomic_sqr: Granger-Scott, 9 Fp2 squarings = 18.
 */
#include <string.h>

#include "zkpd/error.h"
#include "zkpd/tower.h"

/* xi^((p^k - 1)/6) for k = 0..11 in Montgomery form, Fp2 (c0, c1); the
 * canonical values are gamma_w(k) of docs/math.md, 'Frobenius', which
 * test_tower checks these against, together with the powers of xi. */
const zkp_fp2 ZKP_FP12_FROB_W[12] = {
	{ /* k = 0 */
		.c0 = { {
			0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
			0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493,
		} },
		.c1 = { { 0 } },
	},
	{ /* k = 1 */
		.c0 = { {
			0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f,
			0xa35baecab2dc29ee, 0x1ce393ea5daace4d, 0x08f2220fb0fb66eb,
		} },
		.c1 = { {
			0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394,
			0xc11b9cba40a8e8d0, 0x2e3813cbe5a0de89, 0x110eefda88847faf,
		} },
	},
	{ /* k = 2 */
		.c0 = { {
			0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e,
			0xd5c13cc6f1ca4721, 0x47222a47bf7b5c04, 0x0110f184e51c5f59,
		} },
		.c1 = { { 0 } },
	},
	{ /* k = 3 */
		.c0 = { {
			0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732,
			0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8,
		} },
		.c1 = { {
			0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1,
			0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2,
		} },
	},
	{ /* k = 4 */
		.c0 = { {
			0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7,
			0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160,
		} },
		.c1 = { { 0 } },
	},
	{ /* k = 5 */
		.c0 = { {
			0x3726c30af242c66c, 0x7c2ac1aad1b6fe70, 0xa04007fbba4b14a2,
			0xef517c3266341429, 0x0095ba654ed2226b, 0x02e370eccc86f7dd,
		} },
		.c1 = { {
			0x82d83cf50dbce43f, 0xa2813e53df9d018f, 0xc6f0caa53c65e181,
			0x7525cf528d50fe95, 0x4a85ed50f4798a6b, 0x171da0fd6cf8eebd,
		} },
	},
	{ /* k = 6 */
		.c0 = { {
			0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69,
			0xeca8f3318332bb7a, 0xef148d1ea0f4c069, 0x040ab3263eff0206,
		} },
		.c1 = { { 0 } },
	},
	{ /* k = 7 */
		.c0 = { {
			0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394,
			0xc11b9cba40a8e8d0, 0x2e3813cbe5a0de89, 0x110eefda88847faf,
		} },
		.c1 = { {
			0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f,
			0xa35baecab2dc29ee, 0x1ce393ea5daace4d, 0x08f2220fb0fb66eb,
		} },
	},
	{ /* k = 8 */
		.c0 = { {
			0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95,
			0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2, 0x18f0206554638741,
		} },
		.c1 = { { 0 } },
	},
	{ /* k = 9 */
		.c0 = { {
			0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1,
			0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2,
		} },
		.c1 = { {
			0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732,
			0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8,
		} },
	},
	{ /* k = 10 */
		.c0 = { {
			0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c,
			0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a,
		} },
		.c1 = { { 0 } },
	},
	{ /* k = 11 */
		.c0 = { {
			0x82d83cf50dbce43f, 0xa2813e53df9d018f, 0xc6f0caa53c65e181,
			0x7525cf528d50fe95, 0x4a85ed50f4798a6b, 0x171da0fd6cf8eebd,
		} },
		.c1 = { {
			0x3726c30af242c66c, 0x7c2ac1aad1b6fe70, 0xa04007fbba4b14a2,
			0xef517c3266341429, 0x0095ba654ed2226b, 0x02e370eccc86f7dd,
		} },
	},
};

void zkp_fp12_set_zero(zkp_fp12 *ret) { memset(ret, 0, sizeof(*ret)); }

void zkp_fp12_set_one(zkp_fp12 *ret)
{
	zkp_fp12_set_zero(ret);
	zkp_fp2_set_one(&ret->c0.c0);
}

bool zkp_fp12_is_zero(const zkp_fp12 *a)
{
	return zkp_fp6_is_zero(&a->c0) && zkp_fp6_is_zero(&a->c1);
}

bool zkp_fp12_is_one(const zkp_fp12 *a)
{
	return zkp_fp6_is_one(&a->c0) && zkp_fp6_is_zero(&a->c1);
}

bool zkp_fp12_eq(const zkp_fp12 *a, const zkp_fp12 *b)
{
	return zkp_fp6_eq(&a->c0, &b->c0) && zkp_fp6_eq(&a->c1, &b->c1);
}

void zkp_fp12_add(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp12 *b)
{
	zkp_fp6_add(&ret->c0, &a->c0, &b->c0);
	zkp_fp6_add(&ret->c1, &a->c1, &b->c1);
}

void zkp_fp12_sub(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp12 *b)
{
	zkp_fp6_sub(&ret->c0, &a->c0, &b->c0);
	zkp_fp6_sub(&ret->c1, &a->c1, &b->c1);
}

void zkp_fp12_neg(zkp_fp12 *ret, const zkp_fp12 *a)
{
	zkp_fp6_neg(&ret->c0, &a->c0);
	zkp_fp6_neg(&ret->c1, &a->c1);
}

void zkp_fp12_mul(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp12 *b)
{
	/* (a0 + a1 w)(b0 + b1 w) with w^2 = v:
	 *   c0 = a0 b0 + v a1 b1,  c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 */
	zkp_fp6 t0, t1, s, t;
	zkp_fp6_mul(&t0, &a->c0, &b->c0);
	zkp_fp6_mul(&t1, &a->c1, &b->c1);
	zkp_fp6_add(&s, &a->c0, &a->c1);
	zkp_fp6_add(&t, &b->c0, &b->c1);
	zkp_fp6_mul(&s, &s, &t);
	zkp_fp6_sub(&s, &s, &t0);
	zkp_fp6_sub(&ret->c1, &s, &t1);
	zkp_fp6_mul_by_nonresidue(&t1, &t1);
	zkp_fp6_add(&ret->c0, &t0, &t1);
}

void zkp_fp12_sqr(zkp_fp12 *ret, const zkp_fp12 *a)
{
	/* Complex squaring: with m = a0 a1,
	 *   c0 = (a0 + a1)(a0 + v a1) - m - v m = a0^2 + v a1^2,  c1 = 2m */
	zkp_fp6 m, s, t;
	zkp_fp6_mul(&m, &a->c0, &a->c1);
	zkp_fp6_add(&s, &a->c0, &a->c1);
	zkp_fp6_mul_by_nonresidue(&t, &a->c1);
	zkp_fp6_add(&t, &t, &a->c0);
	zkp_fp6_mul(&s, &s, &t);
	zkp_fp6_sub(&s, &s, &m);
	zkp_fp6_mul_by_nonresidue(&t, &m);
	zkp_fp6_sub(&ret->c0, &s, &t);
	zkp_fp6_dbl(&ret->c1, &m);
}

void zkp_fp12_mul_by_014(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp2 *c0,
			 const zkp_fp2 *c1, const zkp_fp2 *c4)
{
	/* b = b0 + b1 w with b0 = c0 + c1 v and b1 = c4 v. Karatsuba as in
	 * zkp_fp12_mul, with the sparse Fp6 products:
	 *   t0 = a0 b0 (mul_by_01, 5 Fp2 mul), t1 = a1 b1 (mul_by_1, 3),
	 *   (a0 + a1)(b0 + b1), b0 + b1 = c0 + (c1 + c4) v (mul_by_01, 5). */
	zkp_fp6 t0, t1, s;
	zkp_fp2 c14;
	zkp_fp6_mul_by_01(&t0, &a->c0, c0, c1);
	zkp_fp6_mul_by_1(&t1, &a->c1, c4);
	zkp_fp2_add(&c14, c1, c4);
	zkp_fp6_add(&s, &a->c0, &a->c1);
	zkp_fp6_mul_by_01(&s, &s, c0, &c14);
	zkp_fp6_sub(&s, &s, &t0);
	zkp_fp6_sub(&ret->c1, &s, &t1);
	zkp_fp6_mul_by_nonresidue(&t1, &t1);
	zkp_fp6_add(&ret->c0, &t0, &t1);
}

void zkp_fp12_conjugate(zkp_fp12 *ret, const zkp_fp12 *a)
{
	ret->c0 = a->c0;
	zkp_fp6_neg(&ret->c1, &a->c1);
}

int zkp_fp12_inv(zkp_fp12 *ret, const zkp_fp12 *a)
{
	/* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
	zkp_fp6 t0, t1;
	zkp_fp6_sqr(&t0, &a->c0);
	zkp_fp6_sqr(&t1, &a->c1);
	zkp_fp6_mul_by_nonresidue(&t1, &t1);
	zkp_fp6_sub(&t0, &t0, &t1);
	int err = zkp_fp6_inv(&t0, &t0);
	if (err) {
		zkp_fp12_set_zero(ret);
		return err;
	}
	zkp_fp6_mul(&ret->c0, &a->c0, &t0);
	zkp_fp6_mul(&t1, &a->c1, &t0);
	zkp_fp6_neg(&ret->c1, &t1);
	return 0;
}

void zkp_fp12_frobenius(zkp_fp12 *ret, const zkp_fp12 *a, unsigned k)
{
	/* (c0 + c1 w)^(p^k) = c0^(p^k) + c1^(p^k) w^(p^k), and
	 * w^(p^k) = w (w^6)^((p^k - 1)/6) = xi^((p^k - 1)/6) w. */
	k %= 12;
	zkp_fp6_frobenius(&ret->c0, &a->c0, k);
	zkp_fp6_frobenius(&ret->c1, &a->c1, k);
	if (k != 0)
		zkp_fp6_mul_fp2(&ret->c1, &ret->c1, &ZKP_FP12_FROB_W[k]);
}

void zkp_fp12_pow(zkp_fp12 *ret, const zkp_fp12 *a, const uint64_t *e, size_t nlimbs)
{
	zkp_fp12 acc, base = *a;
	bool started = false;
	zkp_fp12_set_one(&acc);
	for (size_t i = nlimbs; i-- > 0;) {
		for (int bit = 63; bit >= 0; bit--) {
			if (started)
				zkp_fp12_sqr(&acc, &acc);
			if ((e[i] >> bit) & 1) {
				if (started)
					zkp_fp12_mul(&acc, &acc, &base);
				else
					acc = base;
				started = true;
			}
		}
	}
	*ret = acc;
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi): (x^2 + xi y^2) + ((x + y)^2 - x^2 - y^2) s.
 * 3 Fp2 squarings. */
static void fp4_sqr(zkp_fp2 *r0, zkp_fp2 *r1, const zkp_fp2 *x, const zkp_fp2 *y)
{
	zkp_fp2 t0, t1, t2;
	zkp_fp2_sqr(&t0, x);
	zkp_fp2_sqr(&t1, y);
	zkp_fp2_add(&t2, x, y);
	zkp_fp2_sqr(&t2, &t2);
	zkp_fp2_sub(&t2, &t2, &t0);
	zkp_fp2_sub(r1, &t2, &t1);
	zkp_fp2_mul_by_xi(&t1, &t1);
	zkp_fp2_add(r0, &t0, &t1);
}

/* ret = 3t - 2g = 2(t - g) + t and ret = 3t + 2g = 2(t + g) + t. */
static void three_minus_two(zkp_fp2 *ret, const zkp_fp2 *t, const zkp_fp2 *g)
{
	zkp_fp2 d;
	zkp_fp2_sub(&d, t, g);
	zkp_fp2_dbl(&d, &d);
	zkp_fp2_add(ret, &d, t);
}

static void three_plus_two(zkp_fp2 *ret, const zkp_fp2 *t, const zkp_fp2 *g)
{
	zkp_fp2 d;
	zkp_fp2_add(&d, t, g);
	zkp_fp2_dbl(&d, &d);
	zkp_fp2_add(ret, &d, t);
}

void zkp_fp12_cyclotomic_sqr(zkp_fp12 *ret, const zkp_fp12 *a)
{
	/* Granger-Scott, "Faster squaring in the cyclotomic subgroup of sixth
	 * degree extensions", PKC 2010, section 3.1. Write the element over
	 * Fp2 in powers of w (w^6 = xi): g_i is the coefficient of w^i, so
	 * g0 = c0.c0, g1 = c1.c0, g2 = c0.c1, g3 = c1.c1, g4 = c0.c2, g5 = c1.c2.
	 * With s = w^3 (s^2 = xi) and t = w (t^3 = s) it is A0 + A1 t + A2 t^2,
	 * A0 = g0 + g3 s, A1 = g1 + g4 s, A2 = g2 + g5 s in Fp4 = Fp2[s]. For a
	 * cyclotomic element (a^(p^6) = 1/a, and p^6 conjugates s and negates t)
	 *   a^2 = (3 A0^2 - 2 conj(A0)) + (3 s A2^2 + 2 conj(A1)) t
	 *                               + (3 A1^2 - 2 conj(A2)) t^2,
	 * conj(x + y s) = x - y s. Three Fp4 squarings: 9 Fp2 squarings. */
	zkp_fp2 a0, a1, b0, b1, c0, c1;
	fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1); /* A0^2 */
	fp4_sqr(&b0, &b1, &a->c1.c0, &a->c0.c2); /* A1^2 */
	fp4_sqr(&c0, &c1, &a->c0.c1, &a->c1.c2); /* A2^2 */
	zkp_fp2_mul_by_xi(&c1, &c1);             /* s A2^2 = xi c1 + c0 s */

	three_minus_two(&ret->c0.c0, &a0, &a->c0.c0); /* w^0 */
	three_plus_two(&ret->c1.c1, &a1, &a->c1.c1);  /* w^3 */
	three_plus_two(&ret->c1.c0, &c1, &a->c1.c0);  /* w^1 */
	three_minus_two(&ret->c0.c2, &c0, &a->c0.c2); /* w^4 */
	three_minus_two(&ret->c0.c1, &b0, &a->c0.c1); /* w^2 */
	three_plus_two(&ret->c1.c2, &b1, &a->c1.c2);  /* w^5 */
}

void zkp_fp12_cyclotomic_exp_x(zkp_fp12 *ret, const zkp_fp12 *a)
{
	/* Left to right over |x| = 0xd201000000010000: bits 63, 62, 60, 57, 48
	 * and 16 are set, so 63 squarings and 5 multiplications. */
	const uint64_t e = 0xd201000000010000ULL;
	zkp_fp12 acc = *a, base = *a;
	for (int bit = 62; bit >= 0; bit--) {
		zkp_fp12_cyclotomic_sqr(&acc, &acc);
		if ((e >> bit) & 1)
			zkp_fp12_mul(&acc, &acc, &base);
	}
	*ret = acc;
}
