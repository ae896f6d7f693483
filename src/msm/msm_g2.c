/*
 * MSM over G2: the template instantiated with Fp2 coordinates (one Fp2
 * multiplication is 3 Fp multiplications, an inversion one Fp inversion
 * plus 2M + 2S, so batch-affine gains more here than on G1).
 */
#include "zkpd/ec.h"
#include "zkpd/msm.h"
#include "msm_int.h"

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
#define ONE_FE ZKP_FP2_ONE
#define PT zkp_g2
#define PT_AFF zkp_g2_affine
#define PT_XYZZ zkp_g2_xyzz
#define PN(x) zkp_g2_##x
#define MSM_NAME(x) zkp_msm_g2##x
#define GROUP (&msm_group_g2)
#include "msm_tmpl.h"
