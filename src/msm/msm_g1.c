/*
 * MSM over G1: the template instantiated with Fp coordinates.
 */
#include "zkpd/ec.h"
#include "zkpd/msm.h"
#include "msm_int.h"

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
#define ONE_FE ZKP_FP_ONE
/* Denominators are already in Fp. */
#define BATCH_NORM(n, d) (*(n) = *(d))
#define BATCH_INV(r, d, ninv) (*(r) = *(ninv))
#define PT zkp_g1
#define PT_AFF zkp_g1_affine
#define PT_XYZZ zkp_g1_xyzz
#define PN(x) zkp_g1_##x
#define MSM_NAME(x) zkp_msm_g1##x
#define GROUP (&msm_group_g1)
#include "msm_tmpl.h"
