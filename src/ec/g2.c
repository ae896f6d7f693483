/*
 * G2: the order-r subgroup of the M-type twist E'(Fp2): y^2 = x^3 + 4(1 + u).
 * Constants are Montgomery forms of docs/math.md, 'Parameters' and
 * 'Endomorphisms and subgroup checks' (checked by the unit tests through
 * the generator's encoding and the subgroup test against multiplication
 * by r).
 */
#include <string.h>

#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "ec_int.h"

const zkp_g2_affine ZKP_G2_GENERATOR = {
	{ { { 0xf5f28fa202940a10, 0xb3f5fb2687b4961a, 0xa1a893b53e2ae580,
	      0x9894999d1a3caee9, 0x6f67b7631863366b, 0x058191924350bcd7 } },
	  { { 0xa5a9c0759e23f606, 0xaaa0c59dbccd60c3, 0x3bb17e18e2867806,
	      0x1b1ab6cc8541b367, 0xc2b6ed0ef2158547, 0x11922a097360edf3 } } },
	{ { { 0x4c730af860494c4a, 0x597cfa1f5e369c5a, 0xe7e6856caa0a635a,
	      0xbbefb5e96e0d495f, 0x07d3a975f0ef25a2, 0x0083fd8e7e80dae5 } },
	  { { 0xadc0fc92df64b05d, 0x18aa270a2b1461dc, 0x86adac6a3be4eba0,
	      0x79495c4ec93da33a, 0xe7175850a43ccaed, 0x0b2bc2a163de1bf2 } } },
};

/* b' = 4(1 + u) */
static const zkp_fp2 G2_B = {
	{ { 0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f,
	    0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e } },
	{ { 0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f,
	    0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e } },
};

/* psi(x, y) = (conj(x) c_x, conj(y) c_y) with c_x = xi^-(p-1)/3 = 0 + c u
 * and c_y = xi^-(p-1)/2 (docs/math.md, 'Endomorphisms and subgroup
 * checks'). */
static const zkp_fp PSI_CX_C1 = { {
	0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c,
	0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a,
} };

static const zkp_fp2 PSI_CY = {
	{ { 0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732,
	    0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8 } },
	{ { 0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1,
	    0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2 } },
};

#define FE zkp_fp2
#define FE_ADD zkp_fp2_add
#define FE_SUB zkp_fp2_sub
#define FE_DBL zkp_fp2_dbl
#define FE_NEG zkp_fp2_neg
#define FE_MUL zkp_fp2_mul
#define FE_SQR zkp_fp2_sqr
#define FE_IS_ZERO zkp_fp2_is_zero
#define FE_EQ zkp_fp2_eq
#define FE_INV zkp_fp2_inv
#define FE_ONE ZKP_FP2_ONE
#define CURVE_B G2_B
#define PT zkp_g2
#define PT_AFF zkp_g2_affine
#define PT_XYZZ zkp_g2_xyzz
#define PN(x) zkp_g2_##x
#define PNS(x) zkp_g2s_##x
#define RHS ec_g2_rhs
#include "curve_tmpl.h"

void zkp_g2_psi(zkp_g2 *ret, const zkp_g2 *a)
{
	/* On Jacobian coordinates: x = X/Z^2 maps to conj(X) c_x / conj(Z)^2,
	 * so psi(X, Y, Z) = (conj(X) c_x, conj(Y) c_y, conj(Z)). c_x = c u, and
	 * (a0 - a1 u) c u = a1 c + a0 c u: 2 Fp multiplications, not 3. */
	zkp_fp x0, x1;
	zkp_fp2 y;
	zkp_fp_mul(&x0, &a->x.c1, &PSI_CX_C1);
	zkp_fp_mul(&x1, &a->x.c0, &PSI_CX_C1);
	zkp_fp2_conj(&y, &a->y);
	zkp_fp2_mul(&ret->y, &y, &PSI_CY);
	zkp_fp2_conj(&ret->z, &a->z);
	ret->x.c0 = x0;
	ret->x.c1 = x1;
}

bool zkp_g2_in_subgroup(const zkp_g2 *a)
{
	/* Scott, ePrint 2021/1130: P is in G2 iff psi(P) = [x]P = -[|x|]P.
	 * psi - [x] has degree p - x = h1 r, and gcd(h1, h2) = 1, so its kernel
	 * in E'(Fp2) is exactly G2. One 64-bit multiplication. */
	zkp_g2 s, q;
	mul_by_x_abs(&q, a);
	zkp_g2_neg(&q, &q);
	zkp_g2_psi(&s, a);
	return zkp_g2_eq(&s, &q);
}

bool zkp_g2_affine_in_subgroup(const zkp_g2_affine *a)
{
	zkp_g2 p;
	zkp_g2_from_affine(&p, a);
	return zkp_g2_in_subgroup(&p);
}
