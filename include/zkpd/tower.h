/*
 * The pairing tower over Fp2 (ff layer), exactly as blst and zkcrypto build it
 * (docs/math.md, 'Tower'):
 *   Fp6  = Fp2[v]/(v^3 - xi), xi = 1 + u;   element c0 + c1 v + c2 v^2
 *   Fp12 = Fp6[w]/(w^2 - v);                element c0 + c1 w
 * Same conventions as ff.h: Montgomery form, outputs first and may alias,
 * nothing allocates, nothing can fail except inverses of zero. The 12 Fp
 * coefficients of an Fp12, in memory order, are c0.c0.c0, c0.c0.c1,
 * c0.c1.c0, ..., c1.c2.c1 (the vectors' canonical order).
 *
 * Costs below are in Fp multiplications (squarings counted as
 * multiplications); additions are not counted. An Fp2 multiplication is 3,
 * an Fp2 squaring 2.
 *
 * Not constant-time (see ff.h): inverses and pow branch on their inputs.
 */
#ifndef ZKPD_TOWER_H
#define ZKPD_TOWER_H

#include "zkpd/ff.h"

typedef struct { zkp_fp2 c0, c1, c2; } zkp_fp6;
typedef struct { zkp_fp6 c0, c1; } zkp_fp12;

/* Frobenius coefficients (docs/math.md, 'Frobenius'), in Montgomery form:
 *   ZKP_FP12_FROB_W[k] = xi^((p^k - 1)/6),   k = 0..11
 *   ZKP_FP6_FROB_V[k]  = xi^((p^k - 1)/3),   k = 0..5 (period 6)
 *   ZKP_FP6_FROB_V2[k] = xi^(2(p^k - 1)/3),  k = 0..5
 * Exposed so the tests can check them against the canonical hex. */
extern const zkp_fp2 ZKP_FP12_FROB_W[12];
extern const zkp_fp2 ZKP_FP6_FROB_V[6];
extern const zkp_fp2 ZKP_FP6_FROB_V2[6];

/* ---- Fp6 = Fp2[v]/(v^3 - xi) ---- */
void zkp_fp6_set_zero(zkp_fp6 *ret);
void zkp_fp6_set_one(zkp_fp6 *ret);
bool zkp_fp6_is_zero(const zkp_fp6 *a);
bool zkp_fp6_is_one(const zkp_fp6 *a);
bool zkp_fp6_eq(const zkp_fp6 *a, const zkp_fp6 *b);
void zkp_fp6_add(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp6 *b);
void zkp_fp6_sub(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp6 *b);
void zkp_fp6_neg(zkp_fp6 *ret, const zkp_fp6 *a);
void zkp_fp6_dbl(zkp_fp6 *ret, const zkp_fp6 *a);
/* Karatsuba over Fp2: 6 Fp2 multiplications, 18 Fp. */
void zkp_fp6_mul(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp6 *b);
/* Chung-Hasan CH-SQR2: 2 Fp2 multiplications + 3 squarings, 12 Fp. */
void zkp_fp6_sqr(zkp_fp6 *ret, const zkp_fp6 *a);
/* ret = a * v: (c0, c1, c2) -> (xi c2, c0, c1). Additions only. */
void zkp_fp6_mul_by_nonresidue(zkp_fp6 *ret, const zkp_fp6 *a);
/* ret = a * (b0 + b1 v): 5 Fp2 multiplications (15 Fp). */
void zkp_fp6_mul_by_01(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp2 *b0, const zkp_fp2 *b1);
/* ret = a * (b1 v): 3 Fp2 multiplications (9 Fp). */
void zkp_fp6_mul_by_1(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp2 *b1);
/* ret = a * b for b in Fp2: 9 Fp. */
void zkp_fp6_mul_fp2(zkp_fp6 *ret, const zkp_fp6 *a, const zkp_fp2 *b);
/* ret = 1/a: one Fp inversion plus 37 Fp multiplications;
 * ZKP_ERR_NOT_INVERTIBLE for a = 0 (ret is then 0). */
int zkp_fp6_inv(zkp_fp6 *ret, const zkp_fp6 *a);
/* ret = a^(p^k) for any k (period 6): conjugations and 2 Fp2 multiplications
 * by the constants above. */
void zkp_fp6_frobenius(zkp_fp6 *ret, const zkp_fp6 *a, unsigned k);
/* ret = a^e, e as nlimbs little-endian 64-bit limbs (square and multiply;
 * e = 0 gives 1). For tests and rare use, not for hot paths. */
void zkp_fp6_pow(zkp_fp6 *ret, const zkp_fp6 *a, const uint64_t *e, size_t nlimbs);

/* ---- Fp12 = Fp6[w]/(w^2 - v) ---- */
void zkp_fp12_set_zero(zkp_fp12 *ret);
void zkp_fp12_set_one(zkp_fp12 *ret);
bool zkp_fp12_is_zero(const zkp_fp12 *a);
bool zkp_fp12_is_one(const zkp_fp12 *a);
bool zkp_fp12_eq(const zkp_fp12 *a, const zkp_fp12 *b);
void zkp_fp12_add(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp12 *b);
void zkp_fp12_sub(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp12 *b);
void zkp_fp12_neg(zkp_fp12 *ret, const zkp_fp12 *a);
/* Karatsuba over Fp6: 3 Fp6 multiplications, 54 Fp. */
void zkp_fp12_mul(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp12 *b);
/* Complex squaring: 2 Fp6 multiplications, 36 Fp. */
void zkp_fp12_sqr(zkp_fp12 *ret, const zkp_fp12 *a);
/* ret = a * (c0 + c1 v + c4 v w): the sparse shape of a Miller-loop line
 * (docs/math.md, 'Pairing'; Fp2 slots c0.c0, c0.c1, c1.c1 non-zero).
 * 13 Fp2 multiplications, 39 Fp (a dense multiplication costs 54). */
void zkp_fp12_mul_by_014(zkp_fp12 *ret, const zkp_fp12 *a, const zkp_fp2 *c0,
			 const zkp_fp2 *c1, const zkp_fp2 *c4);
/* ret = a^(p^6) = c0 - c1 w. For a in the cyclotomic subgroup (anything
 * out of the easy part of the final exponentiation) this is 1/a. */
void zkp_fp12_conjugate(zkp_fp12 *ret, const zkp_fp12 *a);
/* ret = 1/a: one Fp inversion plus 97 Fp multiplications;
 * ZKP_ERR_NOT_INVERTIBLE for a = 0 (ret is then 0). */
int zkp_fp12_inv(zkp_fp12 *ret, const zkp_fp12 *a);
/* ret = a^(p^k) for any k (period 12): 7 Fp2 multiplications (21 Fp). */
void zkp_fp12_frobenius(zkp_fp12 *ret, const zkp_fp12 *a, unsigned k);
/* ret = a^e, e as nlimbs little-endian 64-bit limbs; e = 0 gives 1. */
void zkp_fp12_pow(zkp_fp12 *ret, const zkp_fp12 *a, const uint64_t *e, size_t nlimbs);

/* The cyclotomic subgroup: the a with a^(p^4 - p^2 + 1) = 1, which holds
 * for every f^((p^6 - 1)(p^2 + 1)) (the output of the final exponentiation's
 * easy part). The two functions below are correct only there; on other
 * inputs they return a wrong value (no check is made). */
/* Granger-Scott squaring (PKC 2010): 9 Fp2 squarings, 18 Fp. */
void zkp_fp12_cyclotomic_sqr(zkp_fp12 *ret, const zkp_fp12 *a);
/* ret = a^|x|, |x| = 0xd201000000010000 (the curve parameter is -|x|, so
 * a^x is the conjugate of this): 63 cyclotomic squarings and 5
 * multiplications, 1404 Fp. */
void zkp_fp12_cyclotomic_exp_x(zkp_fp12 *ret, const zkp_fp12 *a);

#endif
