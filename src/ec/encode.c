/*
 * Point encodings in the ZCash format used by zkcrypto, blst and noble
 * (docs/math.md, 'Point encodings'): compressed x with flags, or
 * uncompressed x || y; G2 coordinates are written c1 first.
 */
#include <string.h>

#include "zkpd/ec.h"
#include "zkpd/error.h"
#include "ec_int.h"

/* An Fp2 element as 96 bytes: c1 (the u coefficient) first, then c0. */
static int fp2_from_be(zkp_fp2 *ret, const uint8_t in[2 * ZKP_FP_BYTES])
{
	int err = zkp_fp_from_be(&ret->c1, in);
	if (err)
		return err;
	return zkp_fp_from_be(&ret->c0, in + ZKP_FP_BYTES);
}

static void fp2_to_be(uint8_t out[2 * ZKP_FP_BYTES], const zkp_fp2 *a)
{
	zkp_fp_to_be(out, &a->c1);
	zkp_fp_to_be(out + ZKP_FP_BYTES, &a->c0);
}

#define FE zkp_fp
#define FE_BYTES ZKP_FP_BYTES
#define FE_FROM_BE zkp_fp_from_be
#define FE_TO_BE zkp_fp_to_be
#define FE_SQR zkp_fp_sqr
#define FE_EQ zkp_fp_eq
#define FE_NEG zkp_fp_neg
#define FE_SQRT zkp_fp_sqrt
#define FE_IS_LEXI_LARGEST zkp_fp_is_lexi_largest
#define PT_AFF zkp_g1_affine
#define PN(x) zkp_g1_##x
#define LN(x) g1_##x
#define RHS ec_g1_rhs
#include "encode_tmpl.h"

#define FE zkp_fp2
#define FE_BYTES (2 * ZKP_FP_BYTES)
#define FE_FROM_BE fp2_from_be
#define FE_TO_BE fp2_to_be
#define FE_SQR zkp_fp2_sqr
#define FE_EQ zkp_fp2_eq
#define FE_NEG zkp_fp2_neg
#define FE_SQRT zkp_fp2_sqrt
#define FE_IS_LEXI_LARGEST zkp_fp2_is_lexi_largest
#define PT_AFF zkp_g2_affine
#define PN(x) zkp_g2_##x
#define LN(x) g2_##x
#define RHS ec_g2_rhs
#include "encode_tmpl.h"
