/*
 * Private declarations shared by the ec/ sources.
 */
#ifndef ZKPD_EC_INT_H
#define ZKPD_EC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "zkpd/ec.h"

/* Window width of the signed-digit (wNAF) scalar multiplication: odd
 * multiples P, 3P, ..., 15P are precomputed (1 doubling + 7 additions) and
 * a 255-bit scalar costs about 255 doublings + 255/6 additions. */
#define EC_WNAF_W 5
/* Scalars are recoded in chunks of at most this many limbs, so the digit
 * buffer is bounded for scalars of any length. */
#define EC_WNAF_CHUNK_LIMBS 4
#define EC_WNAF_MAX_DIGITS (64 * EC_WNAF_CHUNK_LIMBS + 1)

/* Width-w NAF of the nlimbs-limb integer k (nlimbs <= EC_WNAF_CHUNK_LIMBS,
 * 2 <= w <= 7): k = sum digits[i] 2^i with every non-zero digit odd, of
 * absolute value < 2^(w-1), and at least w-1 zeros after each non-zero
 * digit. Returns the digit count (index of the top non-zero digit + 1, 0 for
 * k = 0); digits beyond it are not written. */
size_t ec_wnaf(int8_t digits[EC_WNAF_MAX_DIGITS], const uint64_t *k, size_t nlimbs,
	       unsigned w);

/* The right-hand side of the curve equation, x^3 + b. */
void ec_g1_rhs(zkp_fp *ret, const zkp_fp *x);
void ec_g2_rhs(zkp_fp2 *ret, const zkp_fp2 *x);

#endif
