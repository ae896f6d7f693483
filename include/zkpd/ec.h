/*
 * ec: the BLS12-381 groups G1 (on E: y^2 = x^3 + 4 over Fp) and G2 (on the
 * M-type sextic twist E': y^2 = x^3 + 4(1 + u) over Fp2).
 *
 * Representations (the same three for G1 and G2):
 *  - affine (x, y); the point at infinity is stored as (0, 0), which is not
 *    on the curve, so affine arrays need no flag byte (MSM bases stay dense);
 *  - Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3; infinity has Z = 0;
 *  - XYZZ (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity has
 *    ZZ = 0. Cheapest for accumulating affine points (MSM buckets).
 *
 * Invariants and conventions:
 *  - Outputs first, may alias inputs. Nothing allocates; batch functions take
 *    caller scratch.
 *  - Arithmetic accepts any points on the curve (subgroup membership is not
 *    assumed), and handles infinity and P + P / P + (-P) in every add.
 *  - Scalars for *_mul are plain integers as little-endian 64-bit limbs (any
 *    length), or a zkp_fr in the _fr forms.
 *  - Decoders are strict (ZCash format, docs/math.md, 'Point encodings'):
 *    they return ZKP_ERR_BAD_LENGTH/BAD_FLAGS/BAD_INFINITY/
 *    SORT_FLAG_UNCOMPRESSED/NOT_CANONICAL/X_NOT_ON_CURVE/NOT_ON_CURVE/
 *    NOT_IN_SUBGROUP, checked in that order, and leave *ret unspecified on error.
 *    The _unchecked forms skip only the subgroup check, for data whose
 *    digest was already verified.
 *
 * Costs, in field multiplications M and squarings S (EFD formula names):
 * Jacobian add 11M + 5S (add-2007-bl), add_affine 7M + 4S (madd-2007-bl),
 * dbl 2M + 5S (dbl-2009-l); XYZZ add 12M + 2S (add-2008-s), add_affine
 * 8M + 2S (madd-2008-s), dbl 6M + 3S (dbl-2008-s-1). G2 counts are in Fp2
 * (one Fp2 M is 3 Fp M, one Fp2 S is 2 Fp M). *_mul: width-5 wNAF, about
 * n doublings and n/6 additions for an n-bit scalar. Subgroup checks: G1
 * 126 doublings + 10 additions, G2 63 doublings + 5 additions.
 */
#ifndef ZKPD_EC_H
#define ZKPD_EC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpd/ff.h"

#define ZKP_G1_COMPRESSED_BYTES 48
#define ZKP_G1_UNCOMPRESSED_BYTES 96
#define ZKP_G2_COMPRESSED_BYTES 96
#define ZKP_G2_UNCOMPRESSED_BYTES 192

typedef struct { zkp_fp x, y; } zkp_g1_affine;
typedef struct { zkp_fp x, y, z; } zkp_g1;
typedef struct { zkp_fp x, y, zz, zzz; } zkp_g1_xyzz;

typedef struct { zkp_fp2 x, y; } zkp_g2_affine;
typedef struct { zkp_fp2 x, y, z; } zkp_g2;
typedef struct { zkp_fp2 x, y, zz, zzz; } zkp_g2_xyzz;

extern const zkp_g1_affine ZKP_G1_GENERATOR;
extern const zkp_g2_affine ZKP_G2_GENERATOR;

/* The curve parameter x as its absolute value; x itself is negative. */
#define ZKP_BLS_X_ABS 0xd201000000010000ULL

/* ---- G1 ---- */
void zkp_g1_set_infinity(zkp_g1 *ret);
bool zkp_g1_is_infinity(const zkp_g1 *a);
bool zkp_g1_affine_is_infinity(const zkp_g1_affine *a);
void zkp_g1_from_affine(zkp_g1 *ret, const zkp_g1_affine *a);
void zkp_g1_to_affine(zkp_g1_affine *ret, const zkp_g1 *a);
/* n conversions with one field inversion; scratch holds n zkp_fp. ret must
 * not overlap a or scratch. */
void zkp_g1s_to_affine(zkp_g1_affine *ret, const zkp_g1 *a, size_t n, zkp_fp *scratch);
bool zkp_g1_eq(const zkp_g1 *a, const zkp_g1 *b); /* as points, any Z */
bool zkp_g1_affine_eq(const zkp_g1_affine *a, const zkp_g1_affine *b);
void zkp_g1_neg(zkp_g1 *ret, const zkp_g1 *a);
void zkp_g1_affine_neg(zkp_g1_affine *ret, const zkp_g1_affine *a);
void zkp_g1_add(zkp_g1 *ret, const zkp_g1 *a, const zkp_g1 *b);
void zkp_g1_add_affine(zkp_g1 *ret, const zkp_g1 *a, const zkp_g1_affine *b);
void zkp_g1_dbl(zkp_g1 *ret, const zkp_g1 *a);
void zkp_g1_mul(zkp_g1 *ret, const zkp_g1 *a, const uint64_t *k, size_t nlimbs);
void zkp_g1_mul_fr(zkp_g1 *ret, const zkp_g1 *a, const zkp_fr *k);
/* [k] a in constant time for a secret k: the same sequence of operations
 * and memory accesses whatever k is (fixed 4-bit windows, masked table
 * reads, complete projective formulas). About 2.5 times zkp_g1_mul_fr. */
void zkp_g1_mul_fr_ct(zkp_g1 *ret, const zkp_g1 *a, const zkp_fr *k);
bool zkp_g1_affine_is_on_curve(const zkp_g1_affine *a); /* infinity: true */
bool zkp_g1_is_on_curve(const zkp_g1 *a);
/* Scott's endomorphism test (ePrint 2021/1130): two 64-bit multiplications. */
bool zkp_g1_in_subgroup(const zkp_g1 *a);
bool zkp_g1_affine_in_subgroup(const zkp_g1_affine *a);

void zkp_g1_xyzz_set_infinity(zkp_g1_xyzz *ret);
void zkp_g1_xyzz_from_affine(zkp_g1_xyzz *ret, const zkp_g1_affine *a);
void zkp_g1_from_xyzz(zkp_g1 *ret, const zkp_g1_xyzz *a);
void zkp_g1_xyzz_add(zkp_g1_xyzz *ret, const zkp_g1_xyzz *a, const zkp_g1_xyzz *b);
void zkp_g1_xyzz_add_affine(zkp_g1_xyzz *ret, const zkp_g1_xyzz *a, const zkp_g1_affine *b);
void zkp_g1_xyzz_sub_affine(zkp_g1_xyzz *ret, const zkp_g1_xyzz *a, const zkp_g1_affine *b);
void zkp_g1_xyzz_dbl(zkp_g1_xyzz *ret, const zkp_g1_xyzz *a);

void zkp_g1_compress(uint8_t out[ZKP_G1_COMPRESSED_BYTES], const zkp_g1_affine *a);
void zkp_g1_serialize(uint8_t out[ZKP_G1_UNCOMPRESSED_BYTES], const zkp_g1_affine *a);
int zkp_g1_uncompress(zkp_g1_affine *ret, const uint8_t in[ZKP_G1_COMPRESSED_BYTES]);
int zkp_g1_deserialize(zkp_g1_affine *ret, const uint8_t in[ZKP_G1_UNCOMPRESSED_BYTES]);
int zkp_g1_uncompress_unchecked(zkp_g1_affine *ret, const uint8_t in[ZKP_G1_COMPRESSED_BYTES]);
int zkp_g1_deserialize_unchecked(zkp_g1_affine *ret, const uint8_t in[ZKP_G1_UNCOMPRESSED_BYTES]);
/* Either form, chosen by len (48: compressed, 96: uncompressed), subgroup
 * checked; any other len gives ZKP_ERR_BAD_LENGTH. */
int zkp_g1_affine_from_bytes(zkp_g1_affine *ret, const uint8_t *in, size_t len);

/* ---- G2: the same contracts over Fp2 ---- */
void zkp_g2_set_infinity(zkp_g2 *ret);
bool zkp_g2_is_infinity(const zkp_g2 *a);
bool zkp_g2_affine_is_infinity(const zkp_g2_affine *a);
void zkp_g2_from_affine(zkp_g2 *ret, const zkp_g2_affine *a);
void zkp_g2_to_affine(zkp_g2_affine *ret, const zkp_g2 *a);
void zkp_g2s_to_affine(zkp_g2_affine *ret, const zkp_g2 *a, size_t n, zkp_fp2 *scratch);
bool zkp_g2_eq(const zkp_g2 *a, const zkp_g2 *b);
bool zkp_g2_affine_eq(const zkp_g2_affine *a, const zkp_g2_affine *b);
void zkp_g2_neg(zkp_g2 *ret, const zkp_g2 *a);
void zkp_g2_affine_neg(zkp_g2_affine *ret, const zkp_g2_affine *a);
void zkp_g2_add(zkp_g2 *ret, const zkp_g2 *a, const zkp_g2 *b);
void zkp_g2_add_affine(zkp_g2 *ret, const zkp_g2 *a, const zkp_g2_affine *b);
void zkp_g2_dbl(zkp_g2 *ret, const zkp_g2 *a);
void zkp_g2_mul(zkp_g2 *ret, const zkp_g2 *a, const uint64_t *k, size_t nlimbs);
void zkp_g2_mul_fr(zkp_g2 *ret, const zkp_g2 *a, const zkp_fr *k);
void zkp_g2_mul_fr_ct(zkp_g2 *ret, const zkp_g2 *a, const zkp_fr *k); /* as g1's */
bool zkp_g2_affine_is_on_curve(const zkp_g2_affine *a);
bool zkp_g2_is_on_curve(const zkp_g2 *a);
/* psi(P) = [x]P (Scott, ePrint 2021/1130). */
bool zkp_g2_in_subgroup(const zkp_g2 *a);
bool zkp_g2_affine_in_subgroup(const zkp_g2_affine *a);
/* The untwist-Frobenius-twist endomorphism psi (docs/math.md,
 * 'Endomorphisms and subgroup checks'). */
void zkp_g2_psi(zkp_g2 *ret, const zkp_g2 *a);

void zkp_g2_xyzz_set_infinity(zkp_g2_xyzz *ret);
void zkp_g2_xyzz_from_affine(zkp_g2_xyzz *ret, const zkp_g2_affine *a);
void zkp_g2_from_xyzz(zkp_g2 *ret, const zkp_g2_xyzz *a);
void zkp_g2_xyzz_add(zkp_g2_xyzz *ret, const zkp_g2_xyzz *a, const zkp_g2_xyzz *b);
void zkp_g2_xyzz_add_affine(zkp_g2_xyzz *ret, const zkp_g2_xyzz *a, const zkp_g2_affine *b);
void zkp_g2_xyzz_sub_affine(zkp_g2_xyzz *ret, const zkp_g2_xyzz *a, const zkp_g2_affine *b);
void zkp_g2_xyzz_dbl(zkp_g2_xyzz *ret, const zkp_g2_xyzz *a);

void zkp_g2_compress(uint8_t out[ZKP_G2_COMPRESSED_BYTES], const zkp_g2_affine *a);
void zkp_g2_serialize(uint8_t out[ZKP_G2_UNCOMPRESSED_BYTES], const zkp_g2_affine *a);
int zkp_g2_uncompress(zkp_g2_affine *ret, const uint8_t in[ZKP_G2_COMPRESSED_BYTES]);
int zkp_g2_deserialize(zkp_g2_affine *ret, const uint8_t in[ZKP_G2_UNCOMPRESSED_BYTES]);
int zkp_g2_uncompress_unchecked(zkp_g2_affine *ret, const uint8_t in[ZKP_G2_COMPRESSED_BYTES]);
int zkp_g2_deserialize_unchecked(zkp_g2_affine *ret, const uint8_t in[ZKP_G2_UNCOMPRESSED_BYTES]);
/* 96: compressed, 192: uncompressed; else ZKP_ERR_BAD_LENGTH. */
int zkp_g2_affine_from_bytes(zkp_g2_affine *ret, const uint8_t *in, size_t len);

#endif
