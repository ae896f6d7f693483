/*
 * The optimal ate pairing e: G1 x G2 -> GT on BLS12-381 (ec layer).
 *
 * Normalisation: like blst, zkcrypto and noble, the final exponentiation
 * raises to 3(p^12 - 1)/r (shared/notes/bls12-381.md section 6), so
 * zkp_pairing(G1, G2) equals their Gt generator. Still bilinear and
 * non-degenerate, since gcd(3, r) = 1.
 *
 * Inputs are affine points; either being infinity gives 1. Points are assumed
 * to be in their subgroups (callers check on decode). Nothing allocates.
 */
#ifndef ZKPD_PAIRING_H
#define ZKPD_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "zkpd/ec.h"
#include "zkpd/tower.h"

/* f = prod_i f_{|x|, Q_i}(P_i), conjugated for the negative x; one shared
 * squaring chain for all n pairs. */
void zkp_miller_loop(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q,
		     size_t n);
/* ret = f^(3 (p^12 - 1) / r). */
void zkp_final_exp(zkp_fp12 *ret, const zkp_fp12 *f);
/* ret = e(P, Q). */
void zkp_pairing(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q);
/* prod_i e(P_i, Q_i) == 1, with one Miller loop chain and one final
 * exponentiation. This is the Groth16 verification equation's shape. */
bool zkp_pairing_check(const zkp_g1_affine *p, const zkp_g2_affine *q, size_t n);

#endif
