/*
 * G1: the order-r subgroup of E(Fp): y^2 = x^3 + 4.
 * Constants are Montgomery forms of docs/math.md, 'Parameters' and
 * 'Endomorphisms and subgroup checks' (the unit tests check them through
 * the generator's encoding and the subgroup test against multiplication
 * by r).
 */
#include <string.h>

#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "ec_int.h"

const zkp_g1_affine ZKP_G1_GENERATOR = {
	{ { 0x5cb38790fd530c16, 0x7817fc679976fff5, 0x154f95c7143ba1c1,
	    0xf0ae6acdf3d0e747, 0xedce6ecc21dbf440, 0x120177419e0bfb75 } },
	{ { 0xbaac93d50ce72271, 0x8c22631a7918fd8e, 0xdd595f13570725ce,
	    0x51ac582950405194, 0x0e1c8c3fad0059c0, 0x0bbc3efc5008a26a } },
};

/* b = 4 */
static const zkp_fp G1_B = { {
	0xaa270000000cfff3, 0x53cc0032fc34000a, 0x478fe97a6b0a807f,
	0xb1d37ebee6ba24d7, 0x8ec9733bbf78ab2f, 0x09d645513d83de7e,
} };

/* beta_1, the cube root of unity with sigma(x, y) = (beta_1 x, y) = [-x^2]
 * on G1 (docs/math.md, 'Endomorphisms and subgroup checks'; zkcrypto's
 * BETA). */
static const zkp_fp G1_BETA = { {
	0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7,
	0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160,
} };

#define FE zkp_fp
#define FE_ADD zkp_fp_add
#define FE_SUB zkp_fp_sub
#define FE_DBL zkp_fp_dbl
#define FE_NEG zkp_fp_neg
#define FE_MUL zkp_fp_mul
#define FE_SQR zkp_fp_sqr
#define FE_IS_ZERO zkp_fp_is_zero
#define FE_EQ zkp_fp_eq
#define FE_INV zkp_fp_inv
#define FE_ONE ZKP_FP_ONE
#define CURVE_B G1_B
#define PT zkp_g1
#define PT_AFF zkp_g1_affine
#define PT_XYZZ zkp_g1_xyzz
#define PN(x) zkp_g1_##x
#define PNS(x) zkp_g1s_##x
#define RHS ec_g1_rhs
#include "curve_tmpl.h"

bool zkp_g1_in_subgroup(const zkp_g1 *a)
{
	/* Scott, ePrint 2021/1130: P is in G1 iff sigma(P) = [-x^2]P, where
	 * sigma(X, Y, Z) = (beta_1 X, Y, Z). x^2 = |x|^2, so [-x^2]P is the
	 * negation of two multiplications by |x| (2 x (63 dbl + 5 add)). The
	 * kernel of sigma + [x^2] has exactly r points (its degree is
	 * x^4 - x^2 + 1 = r), so this is exact on all of E(Fp). */
	zkp_g1 s, q;
	mul_by_x_abs(&q, a);
	mul_by_x_abs(&q, &q);
	zkp_g1_neg(&q, &q);
	s = *a;
	zkp_fp_mul(&s.x, &s.x, &G1_BETA);
	return zkp_g1_eq(&s, &q);
}

bool zkp_g1_affine_in_subgroup(const zkp_g1_affine *a)
{
	zkp_g1 p;
	zkp_g1_from_affine(&p, a);
	return zkp_g1_in_subgroup(&p);
}
