/*
 * MSM over G2: the template instantiated with Fp2 coordinates (one Fp2
 * multiplication is 3 Fp multiplications, so batch-affine gains more here
 * than on G1).
 */
#include "zkpd/ec.h"
#include "zkpd/msm.h"
#include "msm_int.h"

/* The batch inversion runs on norms: for d = d0 + d1 u (u^2 = -1),
 * N(d) = d d' = d0^2 + d1^2 with d' = d0 - d1 u, so 1/d = d' / N(d), and
 * N(d) = 0 only for d = 0 since -1 is not a square mod p. */
static inline void norm2(zkp_fp *n, const zkp_fp2 *d)
{
	zkp_fp t;
	zkp_fp_sqr(n, &d->c0);
	zkp_fp_sqr(&t, &d->c1);
	zkp_fp_add(n, n, &t);
}

static inline void inv_from_norm2(zkp_fp2 *r, const zkp_fp2 *d, const zkp_fp *ninv)
{
	zkp_fp_mul(&r->c0, &d->c0, ninv);
	zkp_fp_mul(&r->c1, &d->c1, ninv);
	zkp_fp_neg(&r->c1, &r->c1);
}

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
#define BATCH_NORM(n, d) norm2(n, d)
#define BATCH_INV(r, d, ninv) inv_from_norm2(r, d, ninv)
#define PT zkp_g2
#define PT_AFF zkp_g2_affine
#define PT_XYZZ zkp_g2_xyzz
#define PN(x) zkp_g2_##x
#define MSM_NAME(x) zkp_msm_g2##x
#define GROUP (&msm_group_g2)
#include "msm_tmpl.h"
