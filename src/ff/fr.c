/*
 * Fr, the 255-bit scalar field of BLS12-381, in Montgomery form (R = 2^256).
 * Constants: docs/math.md, 'Montgomery form' (checked against GMP by the
 * unit tests).
 */
#include <string.h>

#include "zkpd/error.h"
#include "ff_int.h"
#include "mont_int.h"

const uint64_t ZKP_FR_MODULUS[4] = {
	0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
	0x73eda753299d7d48,
};

const zkp_fr ZKP_FR_ONE = { {
	0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5,
	0x1824b159acc5056f,
} };

static const uint64_t FR_R2[4] = {
	0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f,
	0x0748d9d99f59ff11,
};

static const uint64_t FR_R3[4] = {
	0xc62c1807439b73af, 0x1b3e0d188cf06990, 0x73d13c71c7b5f418,
	0x6e2a5bb9c8db33e9,
};

#define FR_QINV 0xfffffffeffffffffULL

void zkp_fr_mul_portable(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b)
{
	mont_mul(ret->l, a->l, b->l, ZKP_FR_MODULUS, FR_QINV, 4);
}

void zkp_fr_mul(zkp_fr *ret, const zkp_fr *a, const zkp_fr *b)
{
#ifdef ZKPD_FF_ASM
	if (ff_use_mulx) {
		ff_mulx_fr_mul(ret->l, a->l, b->l);
		return;
	}
#endif
	mont_mul(ret->l, a->l, b->l, ZKP_FR_MODULUS, FR_QINV, 4);
}

void zkp_fr_sqr(zkp_fr *ret, const zkp_fr *a)
{
	/* For 4 limbs the dedicated square saves too little over CIOS to pay
	 * for its extra reduction pass. */
	zkp_fr_mul(ret, a, a);
}

#define F zkp_fr
#define FN(x) zkp_fr_##x
#define FNS(x) zkp_frs_##x
#define N 4
#define MOD ZKP_FR_MODULUS
#define QINV FR_QINV
#define R2 FR_R2
#define R3 FR_R3
#define ONE ZKP_FR_ONE
#define MUL zkp_fr_mul
#define SQR zkp_fr_sqr
#include "field_tmpl.h"

int zkp_fr_sqrt(zkp_fr *ret, const zkp_fr *a)
{
	/* Tonelli-Shanks with r - 1 = 2^32 * t, t odd; z = 5 is the smallest
	 * non-square mod r (docs/math.md, 'Square roots'). */
	if (zkp_fr_is_zero(a)) {
		zkp_fr_set_zero(ret);
		return 0;
	}
	if (zkp_fr_legendre(a) != 1)
		return ZKP_ERR_NO_SQRT;

	uint64_t t[4], t1[4];
	mod_minus_small(t, 1);
	shr_limbs(t, 32);
	memcpy(t1, t, sizeof(t1));
	shr_limbs(t1, 1); /* (t - 1) / 2, t odd */

	zkp_fr z, c, x, b, w;
	zkp_fr_set_u64(&z, 5);
	zkp_fr_pow(&c, &z, t, 4);
	zkp_fr_pow(&w, a, t1, 4);     /* a^((t-1)/2) */
	zkp_fr_mul(&x, &w, a);        /* a^((t+1)/2) */
	zkp_fr_mul(&b, &w, &x);       /* a^t */
	unsigned v = 32;
	while (!zkp_fr_is_one(&b)) {
		unsigned k = 0;
		zkp_fr b2 = b;
		while (!zkp_fr_is_one(&b2)) {
			zkp_fr_sqr(&b2, &b2);
			k++;
		}
		/* k < v always holds for a square a. */
		w = c;
		for (unsigned i = 0; i + k + 1 < v; i++)
			zkp_fr_sqr(&w, &w);
		zkp_fr_mul(&x, &x, &w);
		zkp_fr_sqr(&c, &w);
		zkp_fr_mul(&b, &b, &c);
		v = k;
	}
	*ret = x;
	return 0;
}

void zkp_fr_to_hex(char out[ZKP_FR_HEX_CHARS], const zkp_fr *a)
{
	static const char digits[] = "0123456789abcdef";
	uint8_t be[ZKP_FR_BYTES];
	zkp_fr_to_be(be, a);
	out[0] = '0';
	out[1] = 'x';
	for (int i = 0; i < ZKP_FR_BYTES; i++) {
		out[2 + 2 * i] = digits[be[i] >> 4];
		out[3 + 2 * i] = digits[be[i] & 15];
	}
	out[2 + 2 * ZKP_FR_BYTES] = 0;
}
