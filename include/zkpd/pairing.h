/*
 * The optimal ate pairing e: G1 x G2 -> GT on BLS12-381 (ec layer).
 *
 * Normalisation: like blst, zkcrypto and noble, the final exponentiation
 * raises to 3(p^12 - 1)/r (docs/math.md, 'Pairing'), so
 * zkp_pairing(G1, G2) equals their Gt generator. Still bilinear and
 * non-degenerate, since gcd(3, r) = 1.
 *
 * Invariants and conventions:
 *  - Inputs are affine points; a pair with either point at infinity (stored
 *    as (0, 0), see ec.h) contributes 1. Points are assumed to be on their
 *    curves and in their subgroups (decoders check that); other inputs give
 *    a meaningless value but stay memory-safe.
 *  - Nothing allocates. Live (unprepared) G2 points are processed in chunks
 *    of ZKP_MILLER_CHUNK sharing one squaring chain; a larger n costs one
 *    extra chain of 62 Fp12 squarings (2,232 Fp multiplications) and one
 *    Fp12 multiplication per further chunk. Stack use is
 *    about 8 KB.
 *  - Reentrant: no global state, any thread.
 *
 * Cost, in Fp multiplications (derivation in pairing.c): Miller loop 6,625
 * for one pair, 4,432 for each further live pair and 2,924 for each further
 * prepared one (5,117 when the only pair is prepared); final exponentiation
 * 7,684 plus one Fp inversion. One pairing: 14,309 and one inversion.
 */
#ifndef ZKPD_PAIRING_H
#define ZKPD_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "zkpd/ec.h"
#include "zkpd/tower.h"

/* Lines in a Miller loop over |x| = 0xd201000000010000: 63 doublings and 5
 * additions. */
#define ZKP_PAIRING_LINES 68
#define ZKP_MILLER_CHUNK 16

/* A G2 point prepared for repeated pairings (the fixed points of a Groth16
 * verifying key): the coefficients of its 68 Miller-loop lines, independent
 * of the G1 point. Evaluating a line at P then costs 4 Fp multiplications
 * instead of about 25 to 41 for stepping the point. About 19.6 KB, a plain
 * value: copy it, store it, share it read-only between threads. */
typedef struct {
	zkp_fp2 ell[ZKP_PAIRING_LINES][3];
	bool infinity;
} zkp_g2_prepared;

/* Fills *ret for q (any q, infinity included). 1,508 Fp multiplications,
 * no inversion. */
void zkp_g2_prepare(zkp_g2_prepared *ret, const zkp_g2_affine *q);

/* f = prod_i f_{|x|, Q_i}(P_i), conjugated for the negative x; one shared
 * squaring chain for all pairs (per chunk, see above). n = 0 gives 1. The
 * result is defined only up to factors that the final exponentiation
 * removes, so compare values only after zkp_final_exp. */
void zkp_miller_loop(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q,
		     size_t n);
/* The same for prepared G2 points: pairs (p[i], q[i]), i < n. */
void zkp_miller_loop_prepared(zkp_fp12 *ret, const zkp_g1_affine *p,
			      const zkp_g2_prepared *q, size_t n);
/* Both kinds in one loop: pairs (p[i], q[i]), i < n, and (pp[j], qp[j]),
 * j < m. Either array may be empty (NULL with a count of 0). */
void zkp_miller_loop_mixed(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q,
			   size_t n, const zkp_g1_affine *pp, const zkp_g2_prepared *qp,
			   size_t m);
/* ret = f^(3 (p^12 - 1) / r): easy part f^((p^6 - 1)(p^2 + 1)), then the
 * hard part chain of docs/math.md, 'Pairing'. f = 0 (never a Miller loop
 * output) gives 0. */
void zkp_final_exp(zkp_fp12 *ret, const zkp_fp12 *f);
/* ret = e(P, Q). */
void zkp_pairing(zkp_fp12 *ret, const zkp_g1_affine *p, const zkp_g2_affine *q);
/* prod_i e(P_i, Q_i) == 1, with one Miller loop chain and one final
 * exponentiation. This is the Groth16 verification equation's shape. */
bool zkp_pairing_check(const zkp_g1_affine *p, const zkp_g2_affine *q, size_t n);
/* The same over live and prepared pairs together (zkp_miller_loop_mixed).
 * Groth16: live (-A, B) from the proof, prepared (alpha, beta),
 * (L, gamma), (C, delta) with the verifying key's G2 points prepared once. */
bool zkp_pairing_check_mixed(const zkp_g1_affine *p, const zkp_g2_affine *q, size_t n,
			     const zkp_g1_affine *pp, const zkp_g2_prepared *qp, size_t m);

#endif
