/*
 * Fp, the 381-bit base field of BLS12-381, in Montgomery form (R = 2^384).
 * Constants: docs/math.md, 'Montgomery form' (checked against GMP by the
 * unit tests).
 */
#include <string.h>

#include "zkpd/error.h"
#include "ff_int.h"
#include "mont_int.h"

const uint64_t ZKP_FP_MODULUS[6] = {
	0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
	0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a,
};

const zkp_fp ZKP_FP_ONE = { {
	0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
	0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493,
} };

static const uint64_t FP_R2[6] = {
	0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5,
	0x67eb88a9939d83c0, 0x9a793e85b519952d, 0x11988fe592cae3aa,
};

static const uint64_t FP_R3[6] = {
	0xed48ac6bd94ca1e0, 0x315f831e03a7adf8, 0x9a53352a615e29dd,
	0x34c04e5e921e1761, 0x2512d43565724728, 0x0aa6346091755d4d,
};

#define FP_QINV 0x89f3fffcfffcfffdULL

void zkp_fp_mul_portable(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b)
{
	mont_mul(ret->l, a->l, b->l, ZKP_FP_MODULUS, FP_QINV, 6);
}

void zkp_fp_sqr_portable(zkp_fp *ret, const zkp_fp *a)
{
	mont_sqr(ret->l, a->l, ZKP_FP_MODULUS, FP_QINV, 6);
}

void zkp_fp_mul(zkp_fp *ret, const zkp_fp *a, const zkp_fp *b)
{
#ifdef ZKPD_FF_ASM
	if (ff_use_mulx) {
		ff_mulx_fp_mul(ret->l, a->l, b->l);
		return;
	}
#endif
	mont_mul(ret->l, a->l, b->l, ZKP_FP_MODULUS, FP_QINV, 6);
}

void zkp_fp_sqr(zkp_fp *ret, const zkp_fp *a)
{
#ifdef ZKPD_FF_ASM
	if (ff_use_mulx) {
		ff_mulx_fp_sqr(ret->l, a->l);
		return;
	}
#endif
	mont_sqr(ret->l, a->l, ZKP_FP_MODULUS, FP_QINV, 6);
}

#define F zkp_fp
#define FN(x) zkp_fp_##x
#define FNS(x) zkp_fps_##x
#define N 6
#define MOD ZKP_FP_MODULUS
#define QINV FP_QINV
#define R2 FP_R2
#define R3 FP_R3
#define ONE ZKP_FP_ONE
#define MUL zkp_fp_mul
#define SQR zkp_fp_sqr
#include "field_tmpl.h"

int zkp_fp_sqrt(zkp_fp *ret, const zkp_fp *a)
{
	/* p = 3 mod 4, so a^((p+1)/4) is a root whenever one exists. */
	uint64_t e[6];
	uint64_t one[6] = { 1 };
	mont_add_n(e, ZKP_FP_MODULUS, one, 6);
	shr_limbs(e, 2);
	zkp_fp x, x2;
	zkp_fp_pow(&x, a, e, 6);
	zkp_fp_sqr(&x2, &x);
	if (!zkp_fp_eq(&x2, a))
		return ZKP_ERR_NO_SQRT;
	*ret = x;
	return 0;
}

bool zkp_fp_is_lexi_largest(const zkp_fp *a)
{
	/* a > (p-1)/2  <=>  2a > p - 1  <=>  2a >= p for the integer 2a. */
	uint64_t v[6], d[6];
	zkp_fp_to_limbs(v, a);
	mont_add_n(d, v, v, 6); /* no carry: a < p < 2^381 */
	return mont_geq(d, ZKP_FP_MODULUS, 6);
}
