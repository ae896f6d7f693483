/*
 * The pairing tower over Fp2 (ff layer), exactly as blst and zkcrypto build it
 * (shared/notes/bls12-381.md section 1):
 *   Fp6  = Fp2[v]/(v^3 - xi), xi = 1 + u;   element c0 + c1 v + c2 v^2
 *   Fp12 = Fp6[w]/(w^2 - v);                element c0 + c1 w
 * Same conventions as ff.h: Montgomery form, outputs first and may alias,
 * nothing allocates. The 12 Fp coefficients of an Fp12, in memory order, are
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 (the vectors' canonical order).
 */
#ifndef ZKPD_TOWER_H
#define ZKPD_TOWER_H

#include "zkpd/ff.h"

typedef struct { zkp_fp2 c0, c1, c2; } zkp_fp6;
typedef struct { zkp_fp6 c0, c1; } zkp_fp12;

#endif
